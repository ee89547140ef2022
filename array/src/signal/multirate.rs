//! SciPy's multirate functions built on the filters and designs of this module:
//! [`resample_poly`], [`decimate`], and [`resample_windowed`] (`resample` with a window given
//! by name).
//!
//! `resample_poly` follows SciPy's construction: a Kaiser (or the given) windowed-sinc low-pass
//! of `2·10·max(up, down) + 1` taps from [`firwin`](super::firwin) scaled by `up`, padded with
//! zeros so that the polyphase output ([`upfirdn`](super::upfirdn)) lines up with the input's
//! first sample, and cropped to `ceil(n·up/down)` samples. The taps are cast to the input's
//! float type, as SciPy casts them. Padding: `'constant'` (zeros), `'line'` (the line through
//! the first and last samples, continued), or a statistic (`'mean'`, `'median'`, `'minimum'`,
//! `'maximum'`) subtracted before and added back after. `'line'` filters the input minus that
//! line (which the zero padding then extends exactly) and adds the filter's response to the
//! infinite line, which per output sample is two sums over the taps of its polyphase phase
//! (computed on the host: O(taps + output length) numbers, not the data). SciPy's other
//! extension modes of `upfirdn` (`'symmetric'`, `'reflect'`, …) and a non-zero `cval` are
//! `Unsupported`.
//!
//! `decimate` designs SciPy's default filters: an order-8 Chebyshev type I low-pass (0.05 dB
//! ripple, cut-off `0.8/q`) as second-order sections, run forwards and backwards
//! ([`sosfiltfilt`](super::sosfiltfilt)) or forwards only ([`sosfilt`](super::sosfilt)); or a
//! Hamming-windowed FIR of `n + 1` taps (`n` = `20·q` by default, SciPy's `2·10·q`) through `resample_poly` (zero
//! phase) or [`lfilter`](super::lfilter); then keeps every `q`-th sample.

use std::str::FromStr;

use xp_backend_api::{DType, Error, Result};

use super::design::{cheby1, firwin, BType, Filter, Output, PassZero};
use super::windows::{get_window, Window};
use super::{lfilter, resample, sosfilt, sosfiltfilt, upfirdn};
use crate::layout::normalize_axis;
use crate::{Array, SliceArg};

/// SciPy's `resample(x, num, axis, window=<name>)`: the named window (`get_window(window, n)`,
/// periodic) in the FFT's order (`ifftshift`) weights the spectrum; see
/// [`resample`](super::resample) for an explicit frequency-domain window.
pub fn resample_windowed(x: &Array, num: usize, axis: isize, window: &Window) -> Result<Array> {
    let ax = normalize_axis("resample", axis, x.ndim())?;
    let w = get_window(window, x.shape()[ax], true)?;
    let w = crate::fft::ifftshift(&w, None)?.to_device(&x.device_arc())?;
    resample(x, num, axis, Some(&w))
}

/// How `resample_poly` extends the signal past its ends (SciPy's `padtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PolyPad {
    /// Zeros (SciPy's default `'constant'` with `cval=None`).
    #[default]
    Constant,
    /// The line through the first and last samples, continued.
    Line,
    /// The mean along the axis, subtracted first and added back.
    Mean,
    /// The median along the axis, likewise.
    Median,
    /// The minimum along the axis, likewise.
    Minimum,
    /// The maximum along the axis, likewise.
    Maximum,
}

impl FromStr for PolyPad {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "constant" => PolyPad::Constant,
            "line" => PolyPad::Line,
            "mean" => PolyPad::Mean,
            "median" => PolyPad::Median,
            "minimum" => PolyPad::Minimum,
            "maximum" => PolyPad::Maximum,
            "symmetric" | "reflect" | "edge" | "wrap" | "smooth" | "antisymmetric" | "antireflect" => {
                return Err(Error::Unsupported(format!("resample_poly: padtype {s:?}")))
            }
            _ => return Err(Error::value("resample_poly", format!("unknown padtype {s:?}"))),
        })
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The float type the filter runs in: the input's float type (complex keeps its part type),
/// float64 for integers and bool.
fn float_of(d: DType) -> DType {
    match d {
        DType::F32 | DType::F64 | DType::C64 | DType::C128 => d,
        _ => DType::F64,
    }
}

/// The full slice along every axis but `ax`, which takes `arg`.
fn along(ndim: usize, ax: usize, arg: SliceArg) -> Vec<SliceArg> {
    (0..ndim).map(|k| if k == ax { arg } else { SliceArg::Range { start: None, stop: None, step: None } }).collect()
}

/// SciPy's `resample_poly(x, up, down, axis, window, padtype)`: `x` resampled by `up/down`
/// with a polyphase FIR filter (see the module docs). `window` defaults to `('kaiser', 5.0)`.
pub fn resample_poly(
    x: &Array,
    up: usize,
    down: usize,
    axis: isize,
    window: Option<&Window>,
    padtype: PolyPad,
) -> Result<Array> {
    let op = "resample_poly";
    if up == 0 || down == 0 {
        return Err(Error::value(op, format!("up ({up}) and down ({down}) must be at least 1")));
    }
    let g = gcd(up, down);
    let (up, down) = (up / g, down / g);
    let dt = float_of(x.dtype());
    let x = x.astype(dt)?;
    if up == 1 && down == 1 {
        return x.copy();
    }
    let max_rate = up.max(down);
    let half_len = 10 * max_rate;
    let kaiser = Window::Kaiser(5.0);
    let h = firwin(
        2 * half_len + 1,
        &[1.0 / max_rate as f64],
        None,
        Some(window.unwrap_or(&kaiser)),
        PassZero::default(),
        true,
        None,
    )?;
    let taps: Vec<f64> = h.to_vec::<f64>()?.into_iter().map(|t| t * up as f64).collect();
    polyphase(&x, up, down, axis, taps, half_len, padtype)
}

/// `resample_poly`'s body for taps `taps` (already scaled) of half-length `half_len`.
fn polyphase(
    x: &Array,
    up: usize,
    down: usize,
    axis: isize,
    taps: Vec<f64>,
    half_len: usize,
    padtype: PolyPad,
) -> Result<Array> {
    let op = "resample_poly";
    let ax = normalize_axis(op, axis, x.ndim())?;
    let n_in = x.shape()[ax];
    if n_in == 0 {
        return Err(Error::value(op, "x has no samples along the axis"));
    }
    let n_out = (n_in * up).div_ceil(down);
    let out_len = |len_h: usize| ((n_in - 1) * up + len_h - 1) / down + 1;
    let n_pre_pad = down - half_len % down;
    let n_pre_remove = (half_len + n_pre_pad) / down;
    let mut n_post_pad = 0;
    while out_len(taps.len() + n_pre_pad + n_post_pad) < n_out + n_pre_remove {
        n_post_pad += 1;
    }
    let mut h = vec![0.0; n_pre_pad];
    h.extend_from_slice(&taps);
    h.extend(std::iter::repeat_n(0.0, n_post_pad));
    // The taps in the input's float type (SciPy casts them), on its device.
    let part = match x.dtype() {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        d => d,
    };
    let h_dev = Array::from_slice_on(&x.device_arc(), &h, &[h.len()])?.astype(part)?;
    let (centred, background, line) = match padtype {
        PolyPad::Constant => (x.clone(), None, None),
        PolyPad::Mean | PolyPad::Median | PolyPad::Minimum | PolyPad::Maximum => {
            let axes = [ax as isize];
            let b = match padtype {
                PolyPad::Mean => x.mean(Some(&axes), true)?,
                PolyPad::Median => crate::routines::median(x, Some(ax as isize), true)?,
                PolyPad::Minimum => x.min(Some(&axes), true)?,
                _ => x.max(Some(&axes), true)?,
            };
            (x - &b, Some(b), None)
        }
        PolyPad::Line => {
            let first = x.slice(&along(x.ndim(), ax, SliceArg::Range { start: Some(0), stop: Some(1), step: None }))?;
            let last = x.slice(&along(x.ndim(), ax, SliceArg::Range { start: Some(-1), stop: None, step: None }))?;
            let slope = if n_in > 1 { (&last - &first) / (n_in - 1) as f64 } else { &first * 0.0 };
            let mut shape = vec![1usize; x.ndim()];
            shape[ax] = n_in;
            let k = crate::arange(0i64, n_in as i64, 1i64, Some(part))?
                .to_device(&x.device_arc())?
                .reshape(&shape.iter().map(|&n| n as isize).collect::<Vec<_>>())?;
            let l = &first + &(&slope * &k);
            (x - &l, None, Some((first, slope)))
        }
    };
    let y = upfirdn(&h_dev, &centred, up, down, ax as isize)?;
    let mut y = y.slice(&along(
        y.ndim(),
        ax,
        SliceArg::Range { start: Some(n_pre_remove as isize), stop: Some((n_pre_remove + n_out) as isize), step: None },
    ))?;
    if let Some(b) = background {
        y = &y + &b;
    }
    if let Some((first, slope)) = line {
        // The response to the infinite line x0 + slope·k at output m: per phase p of m·down,
        // S0 = Σ h[t] and T = Σ h[t]·t over the taps t ≡ p (mod up); x0·S0 + slope·(S0·m·down − T)/up.
        let mut s0 = vec![0.0; up];
        let mut t1 = vec![0.0; up];
        for (t, &v) in h.iter().enumerate() {
            s0[t % up] += v;
            t1[t % up] += v * t as f64;
        }
        let (mut a, mut b) = (Vec::with_capacity(n_out), Vec::with_capacity(n_out));
        for i in 0..n_out {
            let m = i + n_pre_remove;
            let p = (m * down) % up;
            a.push(s0[p]);
            b.push((s0[p] * (m * down) as f64 - t1[p]) / up as f64);
        }
        let mut shape = vec![1isize; y.ndim()];
        shape[ax] = n_out as isize;
        let dev = y.device_arc();
        let a = Array::from_slice_on(&dev, &a, &[n_out])?.astype(part)?.reshape(&shape)?;
        let b = Array::from_slice_on(&dev, &b, &[n_out])?.astype(part)?.reshape(&shape)?;
        y = &(&y + &(&first * &a)) + &(&slope * &b);
    }
    y.astype(x.dtype())
}

/// SciPy's `decimate` filter type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DecimateFilter {
    /// An order-8 (or `n`) Chebyshev type I low-pass (SciPy's default `'iir'`).
    #[default]
    Iir,
    /// A Hamming-windowed FIR of `n + 1` taps, `n` = `20·q` by default (`'fir'`).
    Fir,
}

impl FromStr for DecimateFilter {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "iir" => Ok(DecimateFilter::Iir),
            "fir" => Ok(DecimateFilter::Fir),
            _ => Err(Error::value("decimate", format!("invalid ftype {s:?} (expected 'iir' or 'fir')"))),
        }
    }
}

/// SciPy's `decimate(x, q, n, ftype, axis, zero_phase)`: `x` low-pass filtered and downsampled
/// by the integer `q` (see the module docs for the filters). Integer input computes in float64;
/// float32 stays float32.
pub fn decimate(
    x: &Array,
    q: usize,
    n: Option<usize>,
    ftype: DecimateFilter,
    axis: isize,
    zero_phase: bool,
) -> Result<Array> {
    let op = "decimate";
    if q == 0 {
        return Err(Error::value(op, "q must be a positive integer"));
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    let dt = float_of(x.dtype());
    let x = x.astype(dt)?;
    let part = match dt {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        d => d,
    };
    let y = match ftype {
        DecimateFilter::Fir => {
            let n = n.unwrap_or(20 * q);
            let b = firwin(n + 1, &[1.0 / q as f64], None, Some(&Window::Hamming), PassZero::default(), true, None)?;
            if zero_phase {
                let taps = b.to_vec::<f64>()?;
                let half_len = (taps.len() - 1) / 2;
                return polyphase(&x, 1, q, ax as isize, taps, half_len, PolyPad::Constant);
            }
            let dev = x.device_arc();
            let b = b.to_device(&dev)?.astype(part)?;
            let a = Array::from_slice_on(&dev, &[1.0f64], &[1])?.astype(part)?;
            lfilter(&b, &a, &x, ax as isize, None)?.0
        }
        DecimateFilter::Iir => {
            let n = n.unwrap_or(8);
            let Filter::Sos(sos) = cheby1(n, 0.05, &[0.8 / q as f64], BType::Lowpass, false, Output::Sos, None)? else {
                return Err(Error::value(op, "the Chebyshev design gave no second-order sections"));
            };
            let sos = sos.to_device(&x.device_arc())?.astype(part)?;
            if zero_phase {
                sosfiltfilt(&sos, &x, ax as isize, Some(super::PadType::Odd), None)?
            } else {
                sosfilt(&sos, &x, ax as isize, None)?.0
            }
        }
    };
    y.slice(&along(y.ndim(), ax, SliceArg::Range { start: None, stop: None, step: Some(q as isize) }))
}
