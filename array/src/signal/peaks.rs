//! Peaks and extrema: SciPy's `argrelextrema`, `argrelmax`, `argrelmin`, `find_peaks`,
//! `peak_prominences` and `peak_widths`.
//!
//! **Device work.** The relative-extremum mask is one elementwise kernel (each sample
//! compared with its `order` neighbours on each side), its indices `nonzero`. `find_peaks`
//! finds its candidates the same way: a sample where the signal rises marks a peak when the
//! plateau it starts ends in a fall; that thread scans the plateau and writes the peak at its
//! middle (SciPy's rule, rounding down). Prominences and widths run one thread per peak, each
//! walking the signal from its peak as SciPy's definitions do (prominence: the lowest point on
//! each side before the signal rises above the peak, within `wlen`; width: the interpolated
//! crossings of the reference height `x[peak] − rel_height · prominence`). The conditions are
//! masks on the device, compressed.
//!
//! **Host work.** `distance` is a greedy selection in order of decreasing height (a sequential
//! rule over the candidate peaks, not the samples): their positions and heights are read to
//! the host, selected, and the kept indices sent back.

use std::sync::OnceLock;

use xp_backend_api::{DType, Error, Result};

use super::lines::{cast, kernel, Lines};
use crate::{Array, Operand, Scalar};

/// The comparison `argrelextrema` applies between a sample and its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comparator {
    /// `np.greater` (`argrelmax`).
    Greater,
    /// `np.less` (`argrelmin`).
    Less,
    /// `np.greater_equal`.
    GreaterEqual,
    /// `np.less_equal`.
    LessEqual,
}

/// How `argrelextrema` treats neighbours beyond the ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ExtremaMode {
    /// Clip to the end sample (the ends are never strict extrema); SciPy's default.
    #[default]
    Clip,
    /// Wrap around.
    Wrap,
}

impl std::str::FromStr for ExtremaMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<ExtremaMode> {
        match s {
            "clip" => Ok(ExtremaMode::Clip),
            "wrap" => Ok(ExtremaMode::Wrap),
            _ => Err(Error::value("argrelextrema", format!("clipmode must be 'clip' or 'wrap', got '{s}'"))),
        }
    }
}

const RELEXT: &str = r#"
const long long l = i / len, t = i % len;
const T* xs = x + l * len;
const T v = xs[t];
bool ok = true;
for (long long s = 1; s <= order && ok; ++s) {
    long long p = t + s, q = t - s;
    if (wrap) {
        p %= len; q %= len; if (q < 0) q += len;
    } else {
        if (p > len - 1) p = len - 1;
        if (q < 0) q = 0;
    }
    const T a = xs[p], b = xs[q];
    if (cmp == 0) ok = v > a && v > b;
    else if (cmp == 1) ok = v < a && v < b;
    else if (cmp == 2) ok = v >= a && v >= b;
    else ok = v <= a && v <= b;
}
y = ok;
"#;

/// SciPy's `argrelextrema(data, comparator, axis, order, mode)`: the indices (one int64 array
/// per dimension, C order, as `nonzero`) of the samples for which `comparator` holds against
/// each of their `order` neighbours on both sides along `axis`.
pub fn argrelextrema(
    data: &Array,
    comparator: Comparator,
    axis: isize,
    order: usize,
    mode: ExtremaMode,
) -> Result<Vec<Array>> {
    let op = "argrelextrema";
    if order < 1 {
        return Err(Error::value(op, "Order must be an int >= 1"));
    }
    if data.dtype().is_complex() {
        return Err(Error::unsupported_dtype(op, data.dtype()));
    }
    let dt = match data.dtype() {
        DType::Bool | DType::F16 | DType::BF16 => DType::F32,
        d => d,
    };
    let lx = Lines::new(op, data, axis, dt)?;
    static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern =
        kernel(&K, "raw T x, int64 len, int64 order, int64 wrap, int64 cmp", "bool y", RELEXT, "xp_signal_relextrema")?;
    let dev = data.device_arc();
    let mask = Array::empty_on(&dev, lx.data.shape(), DType::Bool)?;
    if mask.size() > 0 {
        let i = |v: i64| Operand::Scalar(Scalar::Int(v as i128));
        let cmp = match comparator {
            Comparator::Greater => 0,
            Comparator::Less => 1,
            Comparator::GreaterEqual => 2,
            Comparator::LessEqual => 3,
        };
        kern.call_all(&[
            Operand::Array(&lx.data),
            i(lx.len() as i64),
            i(order as i64),
            i((mode == ExtremaMode::Wrap) as i64),
            i(cmp),
            Operand::Array(&mask),
        ])?;
    }
    lx.restore(&mask)?.nonzero()
}

/// SciPy's `argrelmax(data, axis, order, mode)`: [`argrelextrema`] with `np.greater`.
pub fn argrelmax(data: &Array, axis: isize, order: usize, mode: ExtremaMode) -> Result<Vec<Array>> {
    argrelextrema(data, Comparator::Greater, axis, order, mode)
}

/// SciPy's `argrelmin(data, axis, order, mode)`: [`argrelextrema`] with `np.less`.
pub fn argrelmin(data: &Array, axis: isize, order: usize, mode: ExtremaMode) -> Result<Vec<Array>> {
    argrelextrema(data, Comparator::Less, axis, order, mode)
}

/// A condition on a peak property: `(min, max)`, either bound optional (SciPy's scalar is a
/// minimum alone).
pub type Interval = (Option<f64>, Option<f64>);

/// The conditions of [`find_peaks`] (SciPy's keyword arguments; `Default` is SciPy's).
#[derive(Debug, Clone, PartialEq)]
pub struct FindPeaksOptions {
    /// Required height of the peaks.
    pub height: Option<Interval>,
    /// Required vertical distance to the neighbouring samples.
    pub threshold: Option<Interval>,
    /// Minimal horizontal distance (≥ 1) between peaks; lower peaks are removed first.
    pub distance: Option<f64>,
    /// Required prominence.
    pub prominence: Option<Interval>,
    /// Required width (in samples).
    pub width: Option<Interval>,
    /// Window length for prominences (and the widths' prominences).
    pub wlen: Option<f64>,
    /// The relative height at which widths are measured (default 0.5).
    pub rel_height: f64,
    /// Required plateau size (in samples).
    pub plateau_size: Option<Interval>,
}

impl Default for FindPeaksOptions {
    fn default() -> Self {
        FindPeaksOptions {
            height: None,
            threshold: None,
            distance: None,
            prominence: None,
            width: None,
            wlen: None,
            rel_height: 0.5,
            plateau_size: None,
        }
    }
}

/// The peaks `find_peaks` found and the properties its conditions computed (SciPy's
/// `properties` dict, each `None` when its condition was not asked for).
#[derive(Debug, Clone)]
pub struct Peaks {
    /// The peak indices (int64, increasing).
    pub peaks: Array,
    /// `peak_heights`.
    pub peak_heights: Option<Array>,
    /// `left_thresholds` and `right_thresholds`.
    pub thresholds: Option<(Array, Array)>,
    /// `prominences`, `left_bases`, `right_bases`.
    pub prominences: Option<(Array, Array, Array)>,
    /// `widths`, `width_heights`, `left_ips`, `right_ips`.
    pub widths: Option<(Array, Array, Array, Array)>,
    /// `plateau_sizes`, `left_edges`, `right_edges`.
    pub plateaus: Option<(Array, Array, Array)>,
}

const MAXIMA: &str = r#"
y = -1; le = -1; re = -1;
if (i >= 1 && i < len - 1 && x[i - 1] < x[i]) {
    long long j = i + 1;
    while (j < len - 1 && x[j] == x[i]) ++j;
    if (x[j] < x[i]) { y = (i + j - 1) / 2; le = i; re = j - 1; }
}
"#;

const PROMINENCE: &str = r#"
const long long p = pk;
if (p < 0 || p >= len) { prom = nanv; lb = -1; rb = -1; } else {
long long imin = 0, imax = len - 1;
if (wlen > 1) {
    if (p - wlen / 2 > imin) imin = p - wlen / 2;
    if (p + wlen / 2 < imax) imax = p + wlen / 2;
}
const double xp = (double)x[p];
long long k = p, left = p; double lmin = xp;
while (imin <= k && (double)x[k] <= xp) { if ((double)x[k] < lmin) { lmin = (double)x[k]; left = k; } --k; }
k = p; long long right = p; double rmin = xp;
while (k <= imax && (double)x[k] <= xp) { if ((double)x[k] < rmin) { rmin = (double)x[k]; right = k; } ++k; }
prom = xp - (lmin > rmin ? lmin : rmin);
lb = left; rb = right;
}
"#;

const WIDTHS: &str = r#"
const long long p = pk;
const double h = (double)x[p] - prom * rel;
wh = h;
long long k = p;
while (lb < k && h < (double)x[k]) --k;
double l = (double)k;
if ((double)x[k] < h) l += (h - (double)x[k]) / ((double)x[k + 1] - (double)x[k]);
k = p;
while (k < rb && h < (double)x[k]) ++k;
double r = (double)k;
if ((double)x[k] < h) r -= (h - (double)x[k]) / ((double)x[k - 1] - (double)x[k]);
w = r - l; li = l; ri = r;
"#;

fn check_1d(op: &str, x: &Array) -> Result<()> {
    if x.ndim() != 1 {
        return Err(Error::value(op, format!("`x` must be a 1-D array, got shape {:?}", x.shape())));
    }
    Ok(())
}

fn check_peaks(op: &str, peaks: &Array) -> Result<Array> {
    if !(peaks.dtype().is_integer() || peaks.dtype() == DType::Bool) || peaks.ndim() != 1 {
        return Err(Error::value(
            op,
            format!("`peaks` must be a 1-D array of integers, got {} of shape {:?}", peaks.dtype(), peaks.shape()),
        ));
    }
    cast(peaks, DType::I64)?.ascontiguous()
}

fn wlen_of(op: &str, wlen: Option<f64>) -> Result<i64> {
    match wlen {
        None => Ok(-1),
        Some(w) if w > 1.0 => Ok(w.ceil() as i64),
        Some(w) => Err(Error::value(op, format!("`wlen` must be larger than 1, was {w}"))),
    }
}

fn real_f64(op: &str, x: &Array) -> Result<Array> {
    if x.dtype().is_complex() {
        return Err(Error::unsupported_dtype(op, x.dtype()));
    }
    cast(x, DType::F64)?.ascontiguous()
}

/// Prominences and bases of `peaks` (int64) in `x` (float64): `(prominences, left, right)`.
fn prominences_of(op: &str, x: &Array, peaks: &Array, wlen: i64) -> Result<(Array, Array, Array)> {
    static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern = kernel(
        &K,
        "int64 pk, raw float64 x, int64 len, int64 wlen, float64 nanv",
        "float64 prom, int64 lb, int64 rb",
        PROMINENCE,
        "xp_signal_prominence",
    )?;
    if peaks.size() > 0 {
        let (lo, hi) = (peaks.min(None, false)?.item::<i64>()?, peaks.max(None, false)?.item::<i64>()?);
        for p in [lo, hi] {
            if p < 0 || p as usize >= x.size() {
                return Err(Error::value(op, format!("peak {p} is not a valid index for `x`")));
            }
        }
    }
    let mut out = kern.call_all(&[
        Operand::Array(peaks),
        Operand::Array(x),
        Operand::Scalar(Scalar::Int(x.size() as i128)),
        Operand::Scalar(Scalar::Int(wlen as i128)),
        Operand::Scalar(Scalar::Float(f64::NAN)),
    ])?;
    let rb = out.pop().unwrap();
    let lb = out.pop().unwrap();
    Ok((out.pop().unwrap(), lb, rb))
}

/// SciPy's `peak_prominences(x, peaks, wlen)`: `(prominences, left_bases, right_bases)` of
/// `peaks` in the 1-d `x` (float64, int64, int64).
pub fn peak_prominences(x: &Array, peaks: &Array, wlen: Option<f64>) -> Result<(Array, Array, Array)> {
    let op = "peak_prominences";
    check_1d(op, x)?;
    let x = real_f64(op, x)?;
    let peaks = check_peaks(op, peaks)?;
    prominences_of(op, &x, &peaks, wlen_of(op, wlen)?)
}

fn widths_of(
    x: &Array,
    peaks: &Array,
    rel_height: f64,
    prom: &(Array, Array, Array),
) -> Result<(Array, Array, Array, Array)> {
    static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern = kernel(
        &K,
        "int64 pk, float64 prom, int64 lb, int64 rb, raw float64 x, float64 rel",
        "float64 w, float64 wh, float64 li, float64 ri",
        WIDTHS,
        "xp_signal_widths",
    )?;
    let mut out = kern.call_all(&[
        Operand::Array(peaks),
        Operand::Array(&prom.0),
        Operand::Array(&prom.1),
        Operand::Array(&prom.2),
        Operand::Array(x),
        Operand::Scalar(Scalar::Float(rel_height)),
    ])?;
    let ri = out.pop().unwrap();
    let li = out.pop().unwrap();
    let wh = out.pop().unwrap();
    Ok((out.pop().unwrap(), wh, li, ri))
}

/// SciPy's `peak_widths(x, peaks, rel_height, wlen)`: `(widths, width_heights, left_ips,
/// right_ips)` of `peaks` in the 1-d `x`, measured at `x[peak] − rel_height · prominence`
/// (all float64). SciPy's defaults: `rel_height = 0.5`, `wlen = None`.
pub fn peak_widths(
    x: &Array,
    peaks: &Array,
    rel_height: f64,
    wlen: Option<f64>,
) -> Result<(Array, Array, Array, Array)> {
    let op = "peak_widths";
    check_1d(op, x)?;
    if rel_height < 0.0 || rel_height.is_nan() {
        return Err(Error::value(op, "`rel_height` must be greater or equal to 0.0"));
    }
    let x = real_f64(op, x)?;
    let peaks = check_peaks(op, peaks)?;
    let prom = prominences_of(op, &x, &peaks, wlen_of(op, wlen)?)?;
    widths_of(&x, &peaks, rel_height, &prom)
}

/// `keep` (bool, per peak) applied to every per-peak array.
fn compress_all(keep: &Array, arrays: &mut [&mut Array]) -> Result<()> {
    for a in arrays.iter_mut() {
        **a = a.compress_mask(keep)?;
    }
    Ok(())
}

fn interval_mask(v: &Array, iv: Interval) -> Result<Array> {
    let mut m = Array::full_on(&v.device_arc(), v.shape(), true, DType::Bool)?;
    if let Some(lo) = iv.0 {
        m = m.logical_and(&v.ge(lo)?)?;
    }
    if let Some(hi) = iv.1 {
        m = m.logical_and(&v.le(hi)?)?;
    }
    Ok(m)
}

/// SciPy's `find_peaks(x, height, threshold, distance, prominence, width, wlen, rel_height,
/// plateau_size)`: the local maxima of the 1-d `x` (plateaus give their middle sample) that
/// meet every condition of `opts`, and the properties those conditions computed.
pub fn find_peaks(x: &Array, opts: &FindPeaksOptions) -> Result<Peaks> {
    let op = "find_peaks";
    check_1d(op, x)?;
    if let Some(d) = opts.distance {
        if d.is_nan() || d < 1.0 {
            return Err(Error::value(op, "`distance` must be greater or equal to 1"));
        }
    }
    let xf = real_f64(op, x)?;
    let dev = x.device_arc();
    let n = xf.size();
    static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern =
        kernel(&K, "raw float64 x, int64 len, int64 dummy", "int64 y, int64 le, int64 re", MAXIMA, "xp_signal_maxima")?;
    let dummy = Array::full_on(&dev, &[n], 0i64, DType::I64)?;
    let mut m =
        kern.call_all(&[Operand::Array(&xf), Operand::Scalar(Scalar::Int(n as i128)), Operand::Array(&dummy)])?;
    let re = m.pop().unwrap();
    let le = m.pop().unwrap();
    let mid = m.pop().unwrap();
    let found = mid.ge(0i64)?;
    let (mut peaks, mut left, mut right) =
        (mid.compress_mask(&found)?, le.compress_mask(&found)?, re.compress_mask(&found)?);
    let mut out = Peaks {
        peaks: peaks.clone(),
        peak_heights: None,
        thresholds: None,
        prominences: None,
        widths: None,
        plateaus: None,
    };
    let mut plateau: Option<Array> = None;
    if let Some(iv) = opts.plateau_size {
        let size = right.sub(&left)?.add_scalar(1)?;
        let keep = interval_mask(&size.astype(DType::F64)?, iv)?;
        let mut s = size;
        compress_all(&keep, &mut [&mut peaks, &mut left, &mut right, &mut s])?;
        plateau = Some(s);
    }
    let mut heights: Option<Array> = None;
    if let Some(iv) = opts.height {
        let mut h = xf.take(&peaks, None)?;
        let keep = interval_mask(&h, iv)?;
        compress_all(&keep, &mut [&mut peaks, &mut left, &mut right, &mut h])?;
        if let Some(p) = plateau.as_mut() {
            *p = p.compress_mask(&keep)?;
        }
        heights = Some(h);
    }
    let mut thr: Option<(Array, Array)> = None;
    if let Some(iv) = opts.threshold {
        let xp = xf.take(&peaks, None)?;
        let mut lt = xp.sub(&xf.take(&peaks.add_scalar(-1)?, None)?)?;
        let mut rt = xp.sub(&xf.take(&peaks.add_scalar(1)?, None)?)?;
        let keep = interval_mask(&lt.minimum(&rt)?, (iv.0, None))?
            .logical_and(&interval_mask(&lt.maximum(&rt)?, (None, iv.1))?)?;
        compress_all(&keep, &mut [&mut peaks, &mut left, &mut right, &mut lt, &mut rt])?;
        for a in [plateau.as_mut(), heights.as_mut()].into_iter().flatten() {
            *a = a.compress_mask(&keep)?;
        }
        thr = Some((lt, rt));
    }
    if let Some(d) = opts.distance {
        let pos = peaks.to_vec::<i64>()?;
        let pri = xf.take(&peaks, None)?.to_vec::<f64>()?;
        let keep = select_by_distance(&pos, &pri, d.ceil() as i64);
        let keep = Array::from_slice_on(&dev, &keep, &[keep.len()])?;
        compress_all(&keep, &mut [&mut peaks, &mut left, &mut right])?;
        for a in [plateau.as_mut(), heights.as_mut()].into_iter().flatten() {
            *a = a.compress_mask(&keep)?;
        }
        if let Some((a, b)) = thr.as_mut() {
            *a = a.compress_mask(&keep)?;
            *b = b.compress_mask(&keep)?;
        }
    }
    let wlen = wlen_of(op, opts.wlen)?;
    let mut prom: Option<(Array, Array, Array)> = None;
    if opts.prominence.is_some() || opts.width.is_some() {
        prom = Some(prominences_of(op, &xf, &peaks, wlen)?);
    }
    let apply = |keep: &Array,
                 peaks: &mut Array,
                 plateau: &mut Option<Array>,
                 heights: &mut Option<Array>,
                 thr: &mut Option<(Array, Array)>,
                 left: &mut Array,
                 right: &mut Array|
     -> Result<()> {
        compress_all(keep, &mut [peaks, left, right])?;
        for a in [plateau.as_mut(), heights.as_mut()].into_iter().flatten() {
            *a = a.compress_mask(keep)?;
        }
        if let Some((a, b)) = thr.as_mut() {
            *a = a.compress_mask(keep)?;
            *b = b.compress_mask(keep)?;
        }
        Ok(())
    };
    if let (Some(iv), Some(p)) = (opts.prominence, prom.as_mut()) {
        let keep = interval_mask(&p.0, iv)?;
        apply(&keep, &mut peaks, &mut plateau, &mut heights, &mut thr, &mut left, &mut right)?;
        compress_all(&keep, &mut [&mut p.0, &mut p.1, &mut p.2])?;
    }
    let mut widths = None;
    if let (Some(iv), Some(p)) = (opts.width, prom.as_mut()) {
        if opts.rel_height < 0.0 || opts.rel_height.is_nan() {
            return Err(Error::value(op, "`rel_height` must be greater or equal to 0.0"));
        }
        let mut w = widths_of(&xf, &peaks, opts.rel_height, p)?;
        let keep = interval_mask(&w.0, iv)?;
        apply(&keep, &mut peaks, &mut plateau, &mut heights, &mut thr, &mut left, &mut right)?;
        compress_all(&keep, &mut [&mut p.0, &mut p.1, &mut p.2, &mut w.0, &mut w.1, &mut w.2, &mut w.3])?;
        widths = Some(w);
    }
    out.peaks = peaks;
    out.peak_heights = heights;
    out.thresholds = thr;
    out.prominences = if opts.prominence.is_some() || opts.width.is_some() { prom } else { None };
    out.widths = widths;
    out.plateaus = plateau.map(|s| (s, left, right));
    Ok(out)
}

/// SciPy's greedy distance rule: the highest peaks first, each removing the lower peaks
/// closer than `distance` (ties of height keep their order: a stable sort).
fn select_by_distance(pos: &[i64], pri: &[f64], distance: i64) -> Vec<bool> {
    let n = pos.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| pri[a].partial_cmp(&pri[b]).unwrap_or(std::cmp::Ordering::Equal));
    let mut keep = vec![true; n];
    for &j in order.iter().rev() {
        if !keep[j] {
            continue;
        }
        let mut k = j;
        while k > 0 && pos[j] - pos[k - 1] < distance {
            keep[k - 1] = false;
            k -= 1;
        }
        let mut k = j + 1;
        while k < n && pos[k] - pos[j] < distance {
            keep[k] = false;
            k += 1;
        }
    }
    keep
}

/// SciPy's `correlation_lags(in1_len, in2_len, mode)`: the lag of each output of
/// `correlate` of inputs of these lengths in `mode` (int64).
pub fn correlation_lags(in1_len: usize, in2_len: usize, mode: super::Mode) -> Result<Array> {
    let (a, b) = (in1_len as i64, in2_len as i64);
    let (start, stop) = match mode {
        super::Mode::Full => (-b + 1, a),
        super::Mode::Same => {
            // The full lags, `in1_len` of them kept around the middle.
            let mid = (a + b - 1) / 2;
            let first = mid - a / 2;
            (-b + 1 + first, -b + 1 + first + a)
        }
        super::Mode::Valid => {
            let lag_max = a - b;
            if lag_max >= 0 {
                (0, lag_max + 1)
            } else {
                (lag_max, 1)
            }
        }
    };
    crate::arange(start, stop, 1i64, Some(DType::I64))
}
