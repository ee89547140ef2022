//! SciPy's spectral analysis: `periodogram`, `welch`, `csd`, `coherence`, `spectrogram`,
//! `stft`, `istft`, `detrend`, `czt` and `zoom_fft`.
//!
//! **Device work.** Everything data-sized runs as xp array ops: segments are gathered with one
//! `take` along the (last) axis into a `(..., n_segments, nperseg)` array, detrended (segment
//! means, least-squares lines), multiplied by the window, transformed by one batched
//! `xp::fft::rfft`/`fft`, and averaged with `mean`/`median` over segments. `istft` overlap-adds
//! by splitting each segment into hops and summing shifted, zero-padded copies (no scatter).
//! `czt` is Bluestein's algorithm (chirps on the host, one FFT convolution on the device).
//! Only the window and the chirps (lengths `nperseg`, `n + m`) are computed on the host.
//!
//! **dtypes.** float32 input stays float32 (spectra, `detrend`, `istft`) and complex64 (`csd`,
//! `stft`), as SciPy; integers compute in float64; `czt`/`zoom_fft` answer in complex128 and
//! `lombscargle` in float64 for every input, as SciPy.
//!
//! **Choices.** Only `axis=-1`-style layouts are computed internally; other axes are moved
//! there and back. `nperseg` larger than the signal is reduced to the signal's length (SciPy
//! warns). `detrend` accepts `Detrend::None`, `Constant` and `Linear`.

use std::f64::consts::PI;
use std::str::FromStr;

use num_complex::Complex64 as C;
use xp_backend_api::{DType, Error, Result};

use super::windows::Window;
use crate::layout::SliceArg;
use crate::ufunc::Operand;
use crate::{Array, Scalar};

/// `detrend`'s `type` (and the `detrend` option of the estimators; `False` is `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detrend {
    /// No detrending (`False`).
    None,
    /// Subtract the mean (`'constant'`, SciPy's default for the estimators).
    #[default]
    Constant,
    /// Subtract the least-squares line (`'linear'`).
    Linear,
}

impl FromStr for Detrend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Detrend> {
        match s {
            "constant" | "c" => Ok(Detrend::Constant),
            "linear" | "l" => Ok(Detrend::Linear),
            "none" | "false" => Ok(Detrend::None),
            _ => Err(Error::value("detrend", "Trend type must be 'linear' or 'constant'.")),
        }
    }
}

/// `scaling` of the estimators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scaling {
    /// Power spectral density (V²/Hz).
    Density,
    /// Power spectrum (V²).
    Spectrum,
}

impl FromStr for Scaling {
    type Err = Error;
    fn from_str(s: &str) -> Result<Scaling> {
        match s {
            "density" | "psd" => Ok(Scaling::Density),
            "spectrum" => Ok(Scaling::Spectrum),
            _ => Err(Error::value("spectral", format!("Unknown scaling: {s}"))),
        }
    }
}

/// `average` of `welch`/`csd`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Average {
    /// Mean over segments.
    #[default]
    Mean,
    /// Median over segments, divided by the median's bias for chi-squared data.
    Median,
}

impl FromStr for Average {
    type Err = Error;
    fn from_str(s: &str) -> Result<Average> {
        match s {
            "mean" => Ok(Average::Mean),
            "median" => Ok(Average::Median),
            _ => Err(Error::value("welch", format!("average must be \"median\" or \"mean\", got {s}"))),
        }
    }
}

/// `mode` of `spectrogram`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpectrogramMode {
    /// Power spectral density.
    #[default]
    Psd,
    /// The complex STFT.
    Complex,
    /// `|STFT|`.
    Magnitude,
    /// `angle(STFT)`.
    Angle,
}

impl FromStr for SpectrogramMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<SpectrogramMode> {
        Ok(match s {
            "psd" => SpectrogramMode::Psd,
            "complex" => SpectrogramMode::Complex,
            "magnitude" => SpectrogramMode::Magnitude,
            "angle" => SpectrogramMode::Angle,
            "phase" => return Err(Error::Unsupported("spectrogram mode 'phase'".into())),
            _ => {
                return Err(Error::value(
                    "spectrogram",
                    format!("unknown value for mode {s}, must be one of: psd, complex, magnitude, angle, phase"),
                ))
            }
        })
    }
}

/// How `stft` extends the signal at both ends by `nperseg / 2` samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundaryExt {
    /// Even (mirror) extension.
    Even,
    /// Odd extension.
    Odd,
    /// The edge values repeated.
    Constant,
    /// Zeros.
    Zeros,
}

impl FromStr for BoundaryExt {
    type Err = Error;
    fn from_str(s: &str) -> Result<BoundaryExt> {
        Ok(match s {
            "even" => BoundaryExt::Even,
            "odd" => BoundaryExt::Odd,
            "constant" => BoundaryExt::Constant,
            "zeros" => BoundaryExt::Zeros,
            _ => {
                return Err(Error::value(
                    "stft",
                    format!(
                        "Unknown boundary option '{s}', must be one of: ['even', 'odd', 'constant', 'zeros', None]"
                    ),
                ))
            }
        })
    }
}

/// The options shared by the segment-based estimators (SciPy's keyword defaults are the
/// `Default`, with `window = 'hann'`).
#[derive(Debug, Clone)]
pub struct SpectralOptions {
    /// Sampling frequency (default 1).
    pub fs: f64,
    /// The window.
    pub window: Window,
    /// Segment length (default 256, or the signal length if shorter).
    pub nperseg: Option<usize>,
    /// Overlap (default `nperseg / 2`).
    pub noverlap: Option<usize>,
    /// FFT length (default `nperseg`).
    pub nfft: Option<usize>,
    /// Per-segment detrending.
    pub detrend: Detrend,
    /// One-sided spectrum for real input (default true).
    pub return_onesided: bool,
    /// Density or spectrum scaling.
    pub scaling: Scaling,
    /// The time axis.
    pub axis: isize,
}

impl Default for SpectralOptions {
    fn default() -> Self {
        SpectralOptions {
            fs: 1.0,
            window: Window::Hann,
            nperseg: None,
            noverlap: None,
            nfft: None,
            detrend: Detrend::Constant,
            return_onesided: true,
            scaling: Scaling::Density,
            axis: -1,
        }
    }
}

fn work_dtype(op: &str, a: &Array) -> Result<DType> {
    Ok(match a.dtype() {
        DType::F32 | DType::C64 => a.dtype(),
        DType::F64 | DType::C128 => a.dtype(),
        DType::F16 | DType::BF16 => DType::F32,
        DType::Bool => {
            return Err(Error::UnsupportedDType {
                op: op.into(),
                dtypes: vec![a.dtype()],
                detail: "boolean input".into(),
            })
        }
        _ => DType::F64,
    })
}

fn real_of(dt: DType) -> DType {
    match dt {
        DType::C64 | DType::F32 => DType::F32,
        _ => DType::F64,
    }
}

fn complex_of(dt: DType) -> DType {
    match real_of(dt) {
        DType::F32 => DType::C64,
        _ => DType::C128,
    }
}

fn norm_axis(op: &str, axis: isize, ndim: usize) -> Result<usize> {
    let a = if axis < 0 { axis + ndim as isize } else { axis };
    if a < 0 || a as usize >= ndim {
        return Err(Error::Axis {
            op: op.into(),
            reason: format!("axis {axis} is out of bounds for array of dimension {ndim}"),
        });
    }
    Ok(a as usize)
}

fn last_range(start: isize, stop: Option<isize>) -> Vec<SliceArg> {
    vec![SliceArg::Ellipsis, SliceArg::Range { start: Some(start), stop, step: None }]
}

fn sl(a: &Array, start: isize, stop: Option<isize>) -> Result<Array> {
    a.slice(&last_range(start, stop))
}

fn fl(v: f64) -> Operand<'static> {
    Operand::Scalar(Scalar::Float(v))
}

/// Removes the mean or the least-squares line along the last axis.
fn detrend_last(x: &Array, kind: Detrend) -> Result<Array> {
    let n = *x.shape().last().unwrap_or(&0);
    match kind {
        Detrend::None => Ok(x.clone()),
        Detrend::Constant => x.sub(&x.mean(Some(&[-1]), true)?),
        Detrend::Linear => {
            if n <= 1 {
                return x.sub(&x.mean(Some(&[-1]), true)?);
            }
            let tm = (n as f64 - 1.0) / 2.0;
            let t = crate::arange(0, n as i64, 1, Some(DType::F64))?.add_scalar(-tm)?.astype(real_of(x.dtype()))?;
            let stt: f64 = (0..n).map(|i| (i as f64 - tm).powi(2)).sum();
            let mean = x.mean(Some(&[-1]), true)?;
            let slope = x.mul(&t)?.sum(Some(&[-1]), true)?.mul_scalar(1.0 / stt)?;
            x.sub(&mean)?.sub(&slope.mul(&t)?)
        }
    }
}

/// SciPy's `detrend(data, axis=-1, type='linear', bp=0)`: the data minus its mean
/// (`Constant`) or minus a least-squares line fitted separately between breakpoints
/// (`Linear`, `bp` indices along `axis`).
pub fn detrend(data: &Array, axis: isize, kind: Detrend, bp: &[usize]) -> Result<Array> {
    let op = "detrend";
    let dt = work_dtype(op, data)?;
    let ax = norm_axis(op, axis, data.ndim())?;
    let x = crate::moveaxis(&data.astype(dt)?, &[ax as isize], &[-1])?;
    let n = x.shape()[x.ndim() - 1];
    let out = match kind {
        Detrend::Linear if !bp.is_empty() => {
            let mut edges = vec![0usize];
            edges.extend(bp.iter().copied());
            edges.push(n);
            edges.sort_unstable();
            edges.dedup();
            if edges.iter().any(|&e| e > n) {
                return Err(Error::value(op, "Breakpoints must be less than length of data along given axis."));
            }
            let parts: Vec<Array> = edges
                .windows(2)
                .map(|w| detrend_last(&sl(&x, w[0] as isize, Some(w[1] as isize))?, Detrend::Linear))
                .collect::<Result<_>>()?;
            let refs: Vec<&Array> = parts.iter().collect();
            crate::concatenate(&refs, -1)?
        }
        _ => detrend_last(&x, kind)?,
    };
    crate::moveaxis(&out, &[-1], &[ax as isize])
}

/// The segments of `x` (last axis): `(..., nseg, nperseg)` as a strided view (every window of
/// `nperseg` samples, one in `nstep`): no index array and no copy; the detrending, the window
/// and the transform read it in place.
fn segments(x: &Array, nperseg: usize, nstep: usize) -> Result<Array> {
    let n = x.shape()[x.ndim() - 1];
    let nseg = (n - nperseg) / nstep + 1;
    let windows = crate::routines::sliding_window_view(x, &[nperseg], Some(&[-1]))?;
    let mut args = vec![crate::SliceArg::ALL; x.ndim() - 1];
    args.push(crate::SliceArg::range(0, ((nseg - 1) * nstep + 1) as isize, nstep as isize));
    args.push(crate::SliceArg::ALL);
    windows.slice(&args)
}

/// Extends the last axis by `w` samples at each end.
fn extend_ends(x: &Array, w: usize, how: BoundaryExt) -> Result<Array> {
    if w == 0 {
        return Ok(x.clone());
    }
    let n = x.shape()[x.ndim() - 1] as isize;
    let mut zshape = x.shape().to_vec();
    *zshape.last_mut().unwrap() = w;
    let (left, right) = match how {
        BoundaryExt::Zeros => (crate::zeros(&zshape, x.dtype())?, crate::zeros(&zshape, x.dtype())?),
        BoundaryExt::Constant => {
            (sl(x, 0, Some(1))?.broadcast_to(&zshape)?, sl(x, n - 1, None)?.broadcast_to(&zshape)?)
        }
        BoundaryExt::Even | BoundaryExt::Odd => {
            let li = Array::from_vec((0..w).map(|i| (w - i) as i64).collect::<Vec<_>>())?;
            let ri = Array::from_vec((0..w).map(|i| (n - 2 - i as isize) as i64).collect::<Vec<_>>())?;
            let l = x.take(&li, Some(-1))?;
            let r = x.take(&ri, Some(-1))?;
            if how == BoundaryExt::Even {
                (l, r)
            } else {
                let first = sl(x, 0, Some(1))?.mul_scalar(2.0)?;
                let last = sl(x, n - 1, None)?.mul_scalar(2.0)?;
                (first.sub(&l)?, last.sub(&r)?)
            }
        }
    };
    crate::concatenate(&[&left, x, &right], -1)
}

struct Helper {
    nperseg: usize,
    nfft: usize,
    nstep: usize,
    win: Vec<f64>,
    onesided: bool,
}

fn setup(op: &str, n: usize, o: &SpectralOptions, complex_in: bool, default_nperseg: usize) -> Result<Helper> {
    let nperseg = match o.nperseg {
        Some(0) => return Err(Error::value(op, "nperseg must be a positive integer")),
        Some(v) => v.min(n),
        None => default_nperseg.min(n),
    };
    let win = o.window.samples(nperseg, false)?;
    let nfft = o.nfft.unwrap_or(nperseg);
    if nfft < nperseg {
        return Err(Error::value(op, "nfft must be greater than or equal to nperseg."));
    }
    let noverlap = o.noverlap.unwrap_or(nperseg / 2);
    if noverlap >= nperseg {
        return Err(Error::value(op, "noverlap must be less than nperseg."));
    }
    Ok(Helper { nperseg, nfft, nstep: nperseg - noverlap, win, onesided: o.return_onesided && !complex_in })
}

/// The windowed, transformed segments: `(..., nseg, nfreq)`.
fn transformed(x: &Array, h: &Helper, detrend: Detrend) -> Result<Array> {
    let segs = segments(x, h.nperseg, h.nstep)?;
    let segs = detrend_last(&segs, detrend)?;
    let w = Array::from_vec(h.win.clone())?.astype(real_of(x.dtype()))?;
    let segs = segs.mul(&w)?;
    if h.onesided {
        crate::fft::rfft(&segs, Some(h.nfft), -1, None)
    } else {
        crate::fft::fft(&segs, Some(h.nfft), -1, None)
    }
}

fn prepare(op: &str, x: &Array, axis: isize) -> Result<(Array, usize)> {
    let dt = work_dtype(op, x)?;
    if x.ndim() == 0 {
        return Err(Error::value(op, "input must have at least one dimension"));
    }
    let ax = norm_axis(op, axis, x.ndim())?;
    Ok((crate::moveaxis(&x.astype(dt)?, &[ax as isize], &[-1])?, ax))
}

/// The cross spectral density per segment, scaled: `(..., nseg, nfreq)`.
fn csd_segments(op: &str, x: &Array, y: Option<&Array>, o: &SpectralOptions) -> Result<(Array, Helper, usize)> {
    let (xm, ax) = prepare(op, x, o.axis)?;
    let ym = match y {
        Some(y) => Some(prepare(op, y, o.axis)?.0),
        None => None,
    };
    let n = xm.shape()[xm.ndim() - 1];
    if let Some(y) = &ym {
        if y.shape() != xm.shape() {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: x.shape().to_vec(),
                rhs: y.shape().to_vec(),
                reason: "x and y must have the same shape".into(),
            });
        }
    }
    if n == 0 {
        return Err(Error::value(op, "input is empty"));
    }
    let complex_in = xm.dtype().is_complex() || ym.as_ref().is_some_and(|y| y.dtype().is_complex());
    let h = setup(op, n, o, complex_in, 256)?;
    let fx = transformed(&xm, &h, o.detrend)?;
    let p = match &ym {
        Some(y) => fx.conj()?.mul(&transformed(y, &h, o.detrend)?)?,
        None => fx.conj()?.mul(&fx)?,
    };
    let wsum: f64 = h.win.iter().sum();
    let w2: f64 = h.win.iter().map(|v| v * v).sum();
    let scale = match o.scaling {
        Scaling::Density => 1.0 / (o.fs * w2),
        Scaling::Spectrum => 1.0 / (wsum * wsum),
    };
    let mut p = p.mul_scalar(scale)?;
    if h.onesided {
        let nf = p.shape()[p.ndim() - 1] as isize;
        let stop = if h.nfft % 2 == 0 { nf - 1 } else { nf };
        let f = Array::from_vec((0..nf).map(|i| if i >= 1 && i < stop { 2.0 } else { 1.0 }).collect::<Vec<f64>>())?
            .astype(real_of(p.dtype()))?;
        p = p.mul(&f)?;
    }
    Ok((p, h, ax))
}

/// `(..., nseg, nfreq)` to SciPy's layout: frequencies at the data's axis, segments last.
fn to_output_layout(r: &Array, ax: usize, ndim_in: usize) -> Result<Array> {
    // r has dims (others..., nseg, nfreq) where `others` are the input's dims without `ax`.
    let r = crate::swapaxes(r, -1, -2)?; // (others..., nfreq, nseg)
    let _ = ndim_in;
    crate::moveaxis(&r, &[-2], &[ax as isize])
}

fn median_bias(n: usize) -> f64 {
    let mut b = 1.0;
    for i in 1..=n.saturating_sub(1) / 2 {
        let ii = 2.0 * i as f64;
        b += 1.0 / (ii + 1.0) - 1.0 / ii;
    }
    b
}

fn average_segments(p: &Array, average: Average) -> Result<Array> {
    let nseg = p.shape()[p.ndim() - 2];
    match average {
        Average::Mean => p.mean(Some(&[-2]), false),
        Average::Median => {
            let bias = median_bias(nseg);
            if p.dtype().is_complex() {
                let re = crate::median(&p.real(), Some(-2), false)?;
                let im = crate::median(&p.imag()?, Some(-2), false)?;
                let j = Scalar::Complex(0.0, 1.0);
                re.astype(complex_of(p.dtype()))?.add(&im.mul_scalar(j)?)?.mul_scalar(1.0 / bias)
            } else {
                crate::median(p, Some(-2), false)?.mul_scalar(1.0 / bias)
            }
        }
    }
}

/// SciPy's `csd(x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
/// axis, average)`: the cross power spectral density `Pxy` by Welch's method (complex).
pub fn csd(x: &Array, y: &Array, o: &SpectralOptions, average: Average) -> Result<Array> {
    let (p, _, ax) = csd_segments("csd", x, Some(y), o)?;
    let avg = average_segments(&p, average)?;
    crate::moveaxis(&avg, &[-1], &[ax as isize])
}

/// SciPy's `welch(x, ...)`: the power spectral density by averaging modified periodograms.
pub fn welch(x: &Array, o: &SpectralOptions, average: Average) -> Result<Array> {
    let (p, _, ax) = csd_segments("welch", x, None, o)?;
    let p = p.real();
    let avg = average_segments(&p, average)?;
    crate::moveaxis(&avg, &[-1], &[ax as isize])
}

/// SciPy's `periodogram(x, fs=1, window='boxcar', nfft=None, detrend='constant',
/// return_onesided=True, scaling='density', axis=-1)`: one segment of the whole signal.
pub fn periodogram(x: &Array, o: &SpectralOptions) -> Result<Array> {
    let ax = norm_axis("periodogram", o.axis, x.ndim().max(1))?;
    let n = x.shape().get(ax).copied().unwrap_or(0);
    let mut o2 = o.clone();
    let mut x = x.clone();
    match o.nfft {
        None => o2.nperseg = Some(n),
        Some(nf) if nf >= n => o2.nperseg = Some(n),
        Some(nf) => {
            let mut args = vec![SliceArg::Range { start: None, stop: None, step: None }; x.ndim()];
            args[ax] = SliceArg::Range { start: None, stop: Some(nf as isize), step: None };
            x = x.slice(&args)?;
            o2.nperseg = Some(nf);
            o2.nfft = None;
        }
    }
    o2.noverlap = Some(0);
    welch(&x, &o2, Average::Mean)
}

/// SciPy's `coherence(x, y, ...)`: `|Pxy|² / (Pxx Pyy)`.
pub fn coherence(x: &Array, y: &Array, o: &SpectralOptions) -> Result<Array> {
    let pxx = welch(x, o, Average::Mean)?;
    let pyy = welch(y, o, Average::Mean)?;
    let pxy = csd(x, y, o, Average::Mean)?;
    pxy.abs()?.square()?.div(&pxx)?.div(&pyy)
}

/// The STFT-mode segments (`(..., nseg, nfreq)`, scaled by `sqrt(scale)`) and the axis.
fn stft_segments(
    op: &str,
    x: &Array,
    o: &SpectralOptions,
    boundary: Option<BoundaryExt>,
    padded: bool,
) -> Result<(Array, usize)> {
    let (mut xm, ax) = prepare(op, x, o.axis)?;
    let n0 = xm.shape()[xm.ndim() - 1];
    if n0 == 0 {
        return Err(Error::value(op, "input is empty"));
    }
    // SciPy reduces `nperseg` to the signal's length (with a warning) before extending it
    let nperseg = o.nperseg.unwrap_or(256).min(n0);
    if nperseg == 0 {
        return Err(Error::value(op, "nperseg must be a positive integer"));
    }
    if let Some(b) = boundary {
        xm = extend_ends(&xm, nperseg / 2, b)?;
    }
    let noverlap = o.noverlap.unwrap_or(nperseg / 2);
    if noverlap >= nperseg {
        return Err(Error::value(op, "noverlap must be less than nperseg."));
    }
    if padded {
        let n = xm.shape()[xm.ndim() - 1];
        let nstep = nperseg - noverlap;
        let nadd = (nstep - (n - nperseg) % nstep) % nstep;
        if nadd > 0 {
            let mut zs = xm.shape().to_vec();
            *zs.last_mut().unwrap() = nadd;
            let z = crate::zeros(&zs, xm.dtype())?;
            xm = crate::concatenate(&[&xm, &z], -1)?;
        }
    }
    let n = xm.shape()[xm.ndim() - 1];
    let mut o2 = o.clone();
    o2.nperseg = Some(nperseg);
    let h = setup(op, n, &o2, xm.dtype().is_complex(), nperseg)?;
    let fx = transformed(&xm, &h, o.detrend)?;
    let wsum: f64 = h.win.iter().sum();
    let w2: f64 = h.win.iter().map(|v| v * v).sum();
    let scale = match o.scaling {
        Scaling::Density => 1.0 / (o.fs * w2),
        Scaling::Spectrum => 1.0 / (wsum * wsum),
    };
    Ok((fx.mul_scalar(scale.sqrt())?, ax))
}

/// SciPy's `spectrogram(x, fs=1, window=('tukey', .25), nperseg=None, noverlap=None, ...,
/// mode='psd')`: per-segment spectra, `(..., nfreq, nseg)`. `noverlap` defaults to
/// `nperseg // 8`.
pub fn spectrogram(x: &Array, o: &SpectralOptions, mode: SpectrogramMode) -> Result<Array> {
    let mut o2 = o.clone();
    let (xm, _) = prepare("spectrogram", x, o.axis)?;
    let n = xm.shape()[xm.ndim() - 1];
    let nperseg = o.nperseg.unwrap_or(256).min(n);
    o2.nperseg = Some(nperseg);
    o2.noverlap = Some(o.noverlap.unwrap_or(nperseg / 8));
    match mode {
        SpectrogramMode::Psd => {
            let (p, _, ax) = csd_segments("spectrogram", x, None, &o2)?;
            to_output_layout(&p.real(), ax, x.ndim())
        }
        _ => {
            let (z, ax) = stft_segments("spectrogram", x, &o2, None, false)?;
            let z = match mode {
                SpectrogramMode::Magnitude => z.abs()?,
                SpectrogramMode::Angle => crate::angle(&z, false)?,
                _ => z,
            };
            to_output_layout(&z, ax, x.ndim())
        }
    }
}

/// SciPy's `stft(x, fs=1, window='hann', nperseg=256, noverlap=None, nfft=None,
/// detrend=False, return_onesided=True, boundary='zeros', padded=True, axis=-1,
/// scaling='spectrum')`: `Zxx`, `(..., nfreq, nseg)` complex.
pub fn stft(x: &Array, o: &SpectralOptions, boundary: Option<BoundaryExt>, padded: bool) -> Result<Array> {
    let (z, ax) = stft_segments("stft", x, o, boundary, padded)?;
    to_output_layout(&z, ax, x.ndim())
}

/// Overlap-adds `(..., nseg, nperseg)` frames with hop `nstep` into `(..., L)`,
/// `L = nperseg + (nseg - 1) nstep`: each frame is cut into `k = ceil(nperseg/nstep)` hops and
/// the `k` shifted hop planes are summed (zero-padded concatenations; no scatter).
fn overlap_add(frames: &Array, nstep: usize) -> Result<Array> {
    let nd = frames.ndim();
    let nseg = frames.shape()[nd - 2];
    let nperseg = frames.shape()[nd - 1];
    let k = nperseg.div_ceil(nstep);
    let lead: Vec<usize> = frames.shape()[..nd - 2].to_vec();
    let mut f = frames.clone();
    if k * nstep > nperseg {
        let mut zs = frames.shape().to_vec();
        zs[nd - 1] = k * nstep - nperseg;
        f = crate::concatenate(&[&f, &crate::zeros(&zs, f.dtype())?], -1)?;
    }
    let mut shape: Vec<isize> = lead.iter().map(|&v| v as isize).collect();
    shape.extend([nseg as isize, k as isize, nstep as isize]);
    let f = f.reshape(&shape)?;
    let nb = nseg + k - 1;
    let mut acc: Option<Array> = None;
    for j in 0..k {
        let plane = f.slice(&[
            SliceArg::Ellipsis,
            SliceArg::Index(j as isize),
            SliceArg::Range { start: None, stop: None, step: None },
        ])?;
        let mut parts: Vec<Array> = vec![];
        if j > 0 {
            let mut zs = lead.clone();
            zs.extend([j, nstep]);
            parts.push(crate::zeros(&zs, f.dtype())?);
        }
        parts.push(plane);
        if k - 1 - j > 0 {
            let mut zs = lead.clone();
            zs.extend([k - 1 - j, nstep]);
            parts.push(crate::zeros(&zs, f.dtype())?);
        }
        let refs: Vec<&Array> = parts.iter().collect();
        let shifted = crate::concatenate(&refs, -2)?;
        acc = Some(match acc {
            None => shifted,
            Some(a) => a.add(&shifted)?,
        });
    }
    let acc = acc.unwrap();
    let mut out_shape: Vec<isize> = lead.iter().map(|&v| v as isize).collect();
    out_shape.push((nb * nstep) as isize);
    let flat = acc.reshape(&out_shape)?;
    sl(&flat, 0, Some((nperseg + (nseg - 1) * nstep) as isize))
}

/// SciPy's `istft(Zxx, fs=1, window='hann', nperseg=None, noverlap=None, nfft=None,
/// input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2, scaling='spectrum')` for
/// the default axes: the signal, by windowed overlap-add normalised by the summed squared
/// window.
pub fn istft(zxx: &Array, o: &SpectralOptions, input_onesided: bool, boundary: bool) -> Result<Array> {
    let op = "istft";
    if zxx.ndim() < 2 {
        return Err(Error::value(op, "Input stft must be at least 2d!"));
    }
    let nd = zxx.ndim();
    let nfreq = zxx.shape()[nd - 2];
    if nfreq == 0 || zxx.shape()[nd - 1] == 0 {
        return Err(Error::value(op, format!("Input stft is empty (shape {:?})", zxx.shape())));
    }
    let n_default = if input_onesided { 2 * (nfreq - 1) } else { nfreq };
    let nperseg = o.nperseg.unwrap_or(n_default);
    if nperseg < 1 {
        return Err(Error::value(op, "nperseg must be a positive integer"));
    }
    let nfft = match o.nfft {
        Some(v) if v < nperseg => return Err(Error::value(op, "nfft must be greater than or equal to nperseg.")),
        Some(v) => v,
        None => {
            if input_onesided && nperseg == n_default + 1 {
                nperseg
            } else {
                n_default
            }
        }
    };
    let noverlap = o.noverlap.unwrap_or(nperseg / 2);
    if noverlap >= nperseg {
        return Err(Error::value(op, "noverlap must be less than nperseg."));
    }
    let nstep = nperseg - noverlap;
    let z = crate::swapaxes(zxx, -1, -2)?; // (..., nseg, nfreq)
    let z = if z.dtype().is_complex() { z } else { z.astype(complex_of(z.dtype()))? };
    let rdt = real_of(z.dtype());
    let xs = if input_onesided {
        crate::fft::irfft(&z, Some(nfft), -1, None)?
    } else {
        crate::fft::ifft(&z, Some(nfft), -1, None)?
    };
    let xs = sl(&xs, 0, Some(nperseg as isize))?;
    let win = o.window.samples(nperseg, false)?;
    let wsum: f64 = win.iter().sum();
    let w2: f64 = win.iter().map(|v| v * v).sum();
    let gain = match o.scaling {
        Scaling::Spectrum => wsum,
        Scaling::Density => (o.fs * w2).sqrt(),
    };
    let w = Array::from_vec(win.clone())?.astype(rdt)?;
    let frames = xs.mul(&w)?.mul_scalar(gain)?;
    let nseg = frames.shape()[frames.ndim() - 2];
    let mut x = overlap_add(&frames, nstep)?;
    let w2frames = Array::from_vec(win.iter().map(|v| v * v).collect::<Vec<f64>>())?
        .astype(rdt)?
        .broadcast_to(&[nseg, nperseg])?;
    let mut norm = overlap_add(&w2frames, nstep)?;
    if boundary {
        let h = (nperseg / 2) as isize;
        let len = x.shape()[x.ndim() - 1] as isize;
        x = sl(&x, h, Some(len - h))?;
        norm = sl(&norm, h, Some(len - h))?;
    }
    let safe = crate::where_(&norm.gt(fl(1e-10))?, (&norm).into(), fl(1.0))?;
    let x = x.div(&safe)?;
    Ok(x)
}

/// SciPy's `czt(x, m=None, w=None, a=1, axis=-1)`: the chirp z-transform
/// `X_k = Σ_n x_n a^{-n} w^{nk}`, `k < m` (defaults: `m = n`, `w = e^{-2πi/m}`, the DFT), by
/// Bluestein's algorithm.
pub fn czt(x: &Array, m: Option<usize>, w: Option<C>, a: C, axis: isize) -> Result<Array> {
    let op = "czt";
    let ax = norm_axis(op, axis, x.ndim())?;
    let n = x.shape()[ax];
    let m = m.unwrap_or(n);
    if m < 1 {
        return Err(Error::value(op, "Invalid number of CZT data points (0) specified."));
    }
    if n < 1 {
        return Err(Error::value(op, "Invalid number of data points (0) specified."));
    }
    let w = w.unwrap_or(C::from_polar(1.0, -2.0 * PI / m as f64));
    work_dtype(op, x)?;
    // SciPy answers in complex128 for every input (its chirps are complex128)
    let cdt = DType::C128;
    let xm = crate::moveaxis(&x.astype(cdt)?, &[ax as isize], &[-1])?;
    let lw = w.ln();
    let la = a.ln();
    // y_n = x_n a^{-n} w^{n²/2}
    let pre: Vec<C> = (0..n).map(|i| (-(i as f64) * la + (i as f64 * i as f64 / 2.0) * lw).exp()).collect();
    let post: Vec<C> = (0..m).map(|k| ((k as f64 * k as f64 / 2.0) * lw).exp()).collect();
    let h: Vec<C> = (0..n + m - 1)
        .map(|j| {
            let d = j as f64 - (n as f64 - 1.0);
            (-(d * d / 2.0) * lw).exp()
        })
        .collect();
    let nfft = crate::fft::next_fast_len(n + m - 1, false)?;
    let pre = Array::from_vec(pre)?.astype(cdt)?;
    let post = Array::from_vec(post)?.astype(cdt)?;
    let hf = crate::fft::fft(&Array::from_vec(h)?.astype(cdt)?, Some(nfft), -1, None)?;
    let y = crate::fft::fft(&xm.mul(&pre)?, Some(nfft), -1, None)?;
    let conv = crate::fft::ifft(&y.mul(&hf)?, None, -1, None)?;
    let out = sl(&conv, n as isize - 1, Some((n + m - 1) as isize))?.mul(&post)?;
    crate::moveaxis(&out, &[-1], &[ax as isize])
}

/// SciPy's `zoom_fft(x, fn, m=None, fs=2, endpoint=False, axis=-1)`: the DFT of `x` at `m`
/// frequencies spanning `[f1, f2]` (`fn = (f1, f2)`, or `f2` alone with `f1 = 0`).
pub fn zoom_fft(x: &Array, fn_: &[f64], m: Option<usize>, fs: f64, endpoint: bool, axis: isize) -> Result<Array> {
    let op = "zoom_fft";
    let ax = norm_axis(op, axis, x.ndim())?;
    let n = x.shape()[ax];
    let m = m.unwrap_or(n);
    let (f1, f2) = match fn_ {
        [f2] => (0.0, *f2),
        [f1, f2] => (*f1, *f2),
        _ => return Err(Error::value(op, "fn must be a scalar or 2-length sequence")),
    };
    if f2 < f1 {
        return Err(Error::value(op, "f1 must be less than f2"));
    }
    let scale = if endpoint { (f2 - f1) * m as f64 / (fs * (m as f64 - 1.0)) } else { (f2 - f1) / fs };
    let w = C::from_polar(1.0, -2.0 * PI / m as f64 * scale);
    let a = C::from_polar(1.0, 2.0 * PI * f1 / fs);
    czt(x, Some(m), Some(w), a, axis)
}

/// `normalize` of [`lombscargle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LombNormalize {
    /// Unnormalised power (`False` / `'power'`): `A² N / 4` for a harmonic of amplitude `A`.
    #[default]
    Power,
    /// Normalised by the residuals of the reference model (`True` / `'normalize'`).
    Normalize,
    /// The complex amplitude `a + ib` of the fit `a cos ωx + b sin ωx` (`'amplitude'`).
    Amplitude,
}

impl FromStr for LombNormalize {
    type Err = Error;
    fn from_str(s: &str) -> Result<LombNormalize> {
        match s {
            "power" | "false" => Ok(LombNormalize::Power),
            "normalize" | "true" => Ok(LombNormalize::Normalize),
            "amplitude" => Ok(LombNormalize::Amplitude),
            _ => Err(Error::value(
                "lombscargle",
                "Normalize must be: False (or 'power'), True (or 'normalize'), or 'amplitude'.",
            )),
        }
    }
}

/// SciPy's `lombscargle(x, y, freqs, precenter=False, normalize=False, weights=None,
/// floating_mean=False)`: the generalised Lomb-Scargle periodogram of Zechmeister & Kürster
/// (2009), a weighted least-squares fit of `a cos ωx + b sin ωx (+ c)` per angular frequency.
/// Computed on the device as `(len(freqs), len(x))` cosine and sine planes reduced along the
/// samples; float64 (complex128 for `Amplitude`).
pub fn lombscargle(
    x: &Array,
    y: &Array,
    freqs: &Array,
    precenter: bool,
    normalize: LombNormalize,
    weights: Option<&Array>,
    floating_mean: bool,
) -> Result<Array> {
    let op = "lombscargle";
    for (name, a) in [("x", x), ("y", y), ("freqs", freqs)].into_iter().chain(weights.map(|w| ("weights", w))) {
        if a.ndim() != 1 || a.size() == 0 {
            return Err(Error::value(op, format!("{name} must be a non-empty 1-D array, got shape {:?}", a.shape())));
        }
        if a.dtype().is_complex() {
            return Err(Error::UnsupportedDType {
                op: op.into(),
                dtypes: vec![a.dtype()],
                detail: format!("{name} must be real"),
            });
        }
    }
    let n = x.shape()[0];
    if y.shape()[0] != n || weights.is_some_and(|w| w.shape()[0] != n) {
        return Err(Error::value(op, "Input arrays x, y and weights must have the same shape."));
    }
    let x = x.astype(DType::F64)?;
    let mut y = y.astype(DType::F64)?;
    if precenter {
        y = y.sub(&y.mean(None, false)?)?;
    }
    let w = match weights {
        Some(w) => {
            let w = w.astype(DType::F64)?;
            let host = w.to_vec::<f64>()?;
            let total: f64 = host.iter().sum();
            if host.iter().any(|v| *v < 0.0) || total <= 0.0 {
                return Err(Error::value(op, "Weights must be non-negative and their sum must be positive."));
            }
            w.mul_scalar(1.0 / total)?
        }
        None => crate::full(&[n], 1.0 / n as f64, DType::F64)?,
    };
    let f = freqs.astype(DType::F64)?.reshape(&[-1, 1])?;
    let wt = f.mul(&x.reshape(&[1, -1])?)?;
    let (c, s) = (wt.cos()?, wt.sin()?);
    let wsum = |a: &Array| a.mul(&w)?.sum(Some(&[-1]), false);
    let yy_hat = y.mul(&y)?.mul(&w)?.sum(None, false)?;
    let mut yc = wsum(&c.mul(&y)?)?;
    let mut ys = wsum(&s.mul(&y)?)?;
    let mut cc = wsum(&c.mul(&c)?)?;
    let mut ss = wsum(&s.mul(&s)?)?;
    let mut cs = wsum(&c.mul(&s)?)?;
    let mut yy = yy_hat;
    if floating_mean {
        let ym = y.mul(&w)?.sum(None, false)?;
        let cm = wsum(&c)?;
        let sm = wsum(&s)?;
        yc = yc.sub(&ym.mul(&cm)?)?;
        ys = ys.sub(&ym.mul(&sm)?)?;
        cc = cc.sub(&cm.mul(&cm)?)?;
        ss = ss.sub(&sm.mul(&sm)?)?;
        cs = cs.sub(&cm.mul(&sm)?)?;
        yy = yy.sub(&ym.mul(&ym)?)?;
    }
    let d = cc.mul(&ss)?.sub(&cs.mul(&cs)?)?;
    match normalize {
        LombNormalize::Amplitude => {
            let a = yc.mul(&ss)?.sub(&ys.mul(&cs)?)?.div(&d)?;
            let b = ys.mul(&cc)?.sub(&yc.mul(&cs)?)?.div(&d)?;
            a.astype(DType::C128)?.add(&b.mul_scalar(Scalar::Complex(0.0, 1.0))?)
        }
        _ => {
            let p = ss
                .mul(&yc.mul(&yc)?)?
                .add(&cc.mul(&ys.mul(&ys)?)?)?
                .sub(&cs.mul(&yc)?.mul(&ys)?.mul_scalar(2.0)?)?
                .div(&d)?;
            if normalize == LombNormalize::Normalize {
                p.div(&yy)
            } else {
                p.mul_scalar(0.5 * n as f64)
            }
        }
    }
}
