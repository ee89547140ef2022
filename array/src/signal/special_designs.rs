//! SciPy's comb, gammatone and minimum-phase designs: `iircomb`, `gammatone` and
//! `minimum_phase`.
//!
//! **Algorithms.** [`iircomb`] is Orfanidis's comb (*Introduction to Signal Processing*, 1996,
//! §11.5): one pole of multiplicity `N = fs / w0` per harmonic, `H(z) = (b − c z^−N) / (1 −
//! a z^−N)` (signs flipped for the other comb), with the −3 dB bandwidth `w0 / Q` fixing
//! `β = tan(N Δω / 4)`. [`gammatone`]'s FIR form samples the gammatone impulse response `t^(n−1)
//! e^(−2π b t) cos(2π f t)` with the ERB bandwidth `b = 1.019 · (f / 9.26449 + 24.7)` (Glasberg
//! & Moore), scaled to unit gain at the centre; its IIR form is Slaney's fourth-order
//! recursive approximation ("An efficient implementation of the Patterson–Holdsworth auditory
//! filter bank", Apple TR 35, 1993), normalised to unit gain at the centre frequency.
//! [`minimum_phase`] is the homomorphic method (the real cepstrum of `|H|` folded onto
//! positive quefrencies; Oppenheim & Schafer, §13.8) or the Hilbert method of
//! Damera-Venkata et al. (the spectrum shifted and scaled to be non-negative, its square root
//! given minimum phase through the discrete Hilbert transform of its log), both with FFTs of
//! `n_fft` points on the device.
//!
//! **Choices.** Results are float64 arrays on the current device (`minimum_phase`: on `h`'s
//! device). SciPy's warnings (an `order` or `numtaps` given to the IIR gammatone, a filter that
//! does not look symmetric given to `minimum_phase`) are not raised: the arguments are ignored
//! or the conversion proceeds, as SciPy does after warning.

use std::f64::consts::PI;
use std::str::FromStr;

use num_complex::Complex64 as C;
use xp_backend_api::{DType, Error, Result};

use crate::{Array, Scalar};

/// The comb of [`iircomb`] (`ftype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CombType {
    /// Notches at the harmonics of `w0` (`'notch'`).
    #[default]
    Notch,
    /// Peaks at the harmonics of `w0` (`'peak'`).
    Peak,
}

impl FromStr for CombType {
    type Err = Error;
    fn from_str(s: &str) -> Result<CombType> {
        match s.to_ascii_lowercase().as_str() {
            "notch" => Ok(CombType::Notch),
            "peak" => Ok(CombType::Peak),
            _ => Err(Error::value("iircomb", format!("ftype must be either notch or peak, got '{s}'."))),
        }
    }
}

/// SciPy's `iircomb(w0, Q, ftype='notch', fs=2.0, pass_zero=False)`: a digital comb filter
/// with notches (or peaks) of quality `q` at the multiples of `w0` (in the units of `fs`;
/// `fs / w0` must be an integer). `pass_zero` moves the peaks to `0, w0, 2 w0, …` for a
/// peaking comb (the notches to the midpoints for a notching one). Returns `(b, a)`.
pub fn iircomb(w0: f64, q: f64, ftype: CombType, fs: f64, pass_zero: bool) -> Result<(Array, Array)> {
    let op = "iircomb";
    if !fs.is_finite() || fs <= 0.0 {
        return Err(Error::value(op, format!("Sampling frequency fs must be a positive finite number, got {fs}")));
    }
    if !(w0 > 0.0 && w0 < fs / 2.0) {
        return Err(Error::value(op, format!("w0 must be between 0 and {} (Nyquist), but given {w0}.", fs / 2.0)));
    }
    if !q.is_finite() || q <= 0.0 {
        return Err(Error::value(op, format!("Q must be a positive finite number, got {q}")));
    }
    let n = (fs / w0).round_ties_even() as usize;
    if (w0 - fs / n as f64).abs() / fs > 1e-14 {
        return Err(Error::value(op, format!("fs must be divisible by w0 (fs = {fs}, w0 = {w0}).")));
    }
    let delta = 2.0 * PI * w0 / fs / q;
    let (g0, g) = match ftype {
        CombType::Notch => (1.0, 0.0),
        CombType::Peak => (0.0, 1.0),
    };
    let beta = (n as f64 * delta / 4.0).tan();
    let (ax, bx, cx) = ((1.0 - beta) / (1.0 + beta), (g0 + g * beta) / (1.0 + beta), (g0 - g * beta) / (1.0 + beta));
    let negative = match ftype {
        CombType::Peak => pass_zero,
        CombType::Notch => !pass_zero,
    };
    let sgn = if negative { -1.0 } else { 1.0 };
    let mut b = vec![0.0; n + 1];
    let mut a = vec![0.0; n + 1];
    b[0] = bx;
    b[n] = sgn * cx;
    a[0] = 1.0;
    a[n] = sgn * ax;
    Ok((Array::from_vec(b)?, Array::from_vec(a)?))
}

/// The form of [`gammatone`] (`ftype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GammatoneType {
    /// The sampled impulse response (`'fir'`).
    Fir,
    /// Slaney's fourth-order recursive filter (`'iir'`).
    Iir,
}

impl FromStr for GammatoneType {
    type Err = Error;
    fn from_str(s: &str) -> Result<GammatoneType> {
        match s.to_ascii_lowercase().as_str() {
            "fir" => Ok(GammatoneType::Fir),
            "iir" => Ok(GammatoneType::Iir),
            _ => Err(Error::value("gammatone", format!("ftype must be either fir or iir, got '{s}'."))),
        }
    }
}

/// The equivalent rectangular bandwidth at `hz` (Glasberg & Moore).
fn erb(hz: f64) -> f64 {
    hz / 9.26449 + 24.7
}

/// SciPy's `gammatone(freq, ftype, order=None, numtaps=None, fs=None)`: a gammatone filter
/// centred at `freq` (units of `fs`, default 2). The FIR form has `order` (default 4, 1 to
/// 24) and `numtaps` (default `max(fs · 0.015, 15)`) and `a = [1]`; the IIR form is of order 8
/// and ignores both. Returns `(b, a)`.
pub fn gammatone(
    freq: f64,
    ftype: GammatoneType,
    order: Option<usize>,
    numtaps: Option<usize>,
    fs: Option<f64>,
) -> Result<(Array, Array)> {
    let op = "gammatone";
    let fs = fs.unwrap_or(2.0);
    if !fs.is_finite() || fs <= 0.0 {
        return Err(Error::value(op, format!("Sampling frequency fs must be a positive finite number, got {fs}")));
    }
    if !(freq > 0.0 && freq < fs / 2.0) {
        return Err(Error::value(
            op,
            format!("The frequency must be between 0 and {} (Nyquist), but given {freq}.", fs / 2.0),
        ));
    }
    match ftype {
        GammatoneType::Fir => {
            let order = order.unwrap_or(4);
            let numtaps = numtaps.unwrap_or(((fs * 0.015) as usize).max(15));
            if order == 0 || order > 24 {
                return Err(Error::value(op, format!("Invalid order: order must be > 0 and <= 24, got {order}.")));
            }
            let bw = 1.019 * erb(freq);
            let fact: f64 = (1..order).map(|v| v as f64).product();
            let scale = 2.0 * (2.0 * PI * bw).powi(order as i32) / fact / fs;
            let b: Vec<f64> = (0..numtaps)
                .map(|i| {
                    let t = i as f64 / fs;
                    t.powi(order as i32 - 1) * (-2.0 * PI * bw * t).exp() * (2.0 * PI * freq * t).cos() * scale
                })
                .collect();
            Ok((Array::from_vec(b)?, Array::from_vec(vec![1.0])?))
        }
        GammatoneType::Iir => {
            let t = 1.0 / fs;
            let bw = 2.0 * PI * 1.019 * erb(freq);
            let fr = 2.0 * freq * PI * t;
            let bwt = bw * t;
            // The gain at the centre frequency: the product of the four second-order numerators
            // over the denominator's value there.
            let j = C::new(0.0, 1.0);
            let g1 = -2.0 * (2.0 * j * fr).exp() * t;
            let g2 = 2.0 * (C::new(-bwt, fr)).exp() * t;
            let s3 = (3.0 + 2f64.powf(1.5)).sqrt() * fr.sin();
            let s4 = (3.0 - 2f64.powf(1.5)).sqrt() * fr.sin();
            let g5 = (2.0 * j * fr).exp();
            let mut g = g1 + g2 * (fr.cos() - s4);
            g *= g1 + g2 * (fr.cos() + s4);
            g *= g1 + g2 * (fr.cos() - s3);
            g *= g1 + g2 * (fr.cos() + s3);
            let d = -2.0 / (2.0 * bwt).exp() - 2.0 * g5 + 2.0 * (1.0 + g5) / bwt.exp();
            let g = (g / d.powi(4)).norm();
            let e = |m: f64| (m * bwt).exp();
            let t4 = t.powi(4);
            let b = vec![
                t4 / g,
                -4.0 * t4 * fr.cos() / e(1.0) / g,
                6.0 * t4 * (2.0 * fr).cos() / e(2.0) / g,
                -4.0 * t4 * (3.0 * fr).cos() / e(3.0) / g,
                t4 * (4.0 * fr).cos() / e(4.0) / g,
            ];
            let c1 = fr.cos();
            let c2 = (2.0 * fr).cos();
            let c3 = (3.0 * fr).cos();
            let c4 = (4.0 * fr).cos();
            let a = vec![
                1.0,
                -8.0 * c1 / e(1.0),
                4.0 * (4.0 + 3.0 * c2) / e(2.0),
                -8.0 * (6.0 * c1 + c3) / e(3.0),
                2.0 * (18.0 + 16.0 * c2 + c4) / e(4.0),
                -8.0 * (6.0 * c1 + c3) / e(5.0),
                4.0 * (4.0 + 3.0 * c2) / e(6.0),
                -8.0 * c1 / e(7.0),
                (-8.0 * bwt).exp(),
            ];
            Ok((Array::from_vec(b)?, Array::from_vec(a)?))
        }
    }
}

/// The method of [`minimum_phase`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MinimumPhaseMethod {
    /// The real cepstrum folded onto positive quefrencies (`'homomorphic'`).
    #[default]
    Homomorphic,
    /// The discrete Hilbert transform of the log magnitude (`'hilbert'`).
    Hilbert,
}

impl FromStr for MinimumPhaseMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<MinimumPhaseMethod> {
        match s {
            "homomorphic" => Ok(MinimumPhaseMethod::Homomorphic),
            "hilbert" => Ok(MinimumPhaseMethod::Hilbert),
            _ => {
                Err(Error::value("minimum_phase", format!("method must be \"homomorphic\" or \"hilbert\", got '{s}'")))
            }
        }
    }
}

/// A host vector as a float64 array on `like`'s device.
fn on(like: &Array, v: &[f64]) -> Result<Array> {
    Array::from_slice_on(&like.device_arc(), v, &[v.len()])
}

/// SciPy's `minimum_phase(h, method='homomorphic', n_fft=None, half=True)`: a linear-phase
/// FIR filter `h` (real, 1-d, at least 3 taps) turned minimum phase. With `half` (the
/// default) the result has `len(h) / 2` taps (rounded up) and approximates the square root
/// of `h`'s magnitude response; with `half = false` (homomorphic only) it has `len(h)` taps
/// and `h`'s magnitude response. `n_fft` (at least `len(h)`) defaults to the power of two
/// at or above `2 (len(h) − 1) / 0.01`.
pub fn minimum_phase(h: &Array, method: MinimumPhaseMethod, n_fft: Option<usize>, half: bool) -> Result<Array> {
    let op = "minimum_phase";
    if h.dtype().is_complex() {
        return Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![h.dtype()],
            detail: "Complex filters not supported".into(),
        });
    }
    if h.ndim() != 1 || h.shape()[0] <= 2 {
        return Err(Error::value(op, format!("h must be 1-D and at least 2 samples long, got shape {:?}", h.shape())));
    }
    if method == MinimumPhaseMethod::Hilbert && !half {
        return Err(Error::value(op, "`half=False` is only supported when `method='homomorphic'`"));
    }
    let len = h.shape()[0];
    let n_half = len / 2;
    let n = n_fft.unwrap_or_else(|| {
        let want = 2.0 * (len - 1) as f64 / 0.01;
        1usize << (want.log2().ceil() as u32)
    });
    if n < len {
        return Err(Error::value(op, format!("n_fft must be at least len(h)=={len}, got {n}")));
    }
    let h = h.astype(DType::F64)?;
    let fft = |a: &Array| crate::fft::fft(a, Some(n), -1, None);
    let ifft = |a: &Array| crate::fft::ifft(a, Some(n), -1, None);
    let out = match method {
        MinimumPhaseMethod::Homomorphic => {
            let mag = fft(&h)?.abs()?;
            let host = mag.to_vec::<f64>()?;
            let floor = host.iter().copied().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
            if !floor.is_finite() {
                return Err(Error::value(op, "h has an all-zero spectrum"));
            }
            let mut logm = mag.add_scalar(1e-7 * floor)?.log()?;
            if half {
                logm = logm.mul_scalar(0.5)?;
            }
            let cep = ifft(&logm)?.real();
            let mut win = vec![0.0; n];
            win[0] = 1.0;
            let stop = n / 2;
            for w in win.iter_mut().take(stop).skip(1) {
                *w = 2.0;
            }
            if n % 2 == 1 {
                win[stop] = 1.0;
            }
            let folded = cep.mul(&on(&h, &win)?)?;
            ifft(&fft(&folded)?.exp()?)?.real()
        }
        MinimumPhaseMethod::Hilbert => {
            let shift: Vec<f64> = (0..n).map(|i| i as f64 * (2.0 * PI / n as f64 * n_half as f64)).collect();
            let rot = on(&h, &shift)?.mul_scalar(Scalar::Complex(0.0, 1.0))?.exp()?;
            let hr = fft(&h)?.mul(&rot)?.real();
            let host = hr.to_vec::<f64>()?;
            let dp = host.iter().copied().fold(f64::NEG_INFINITY, f64::max) - 1.0;
            let ds = -host.iter().copied().fold(f64::INFINITY, f64::min);
            let s = 4.0 / ((1.0 + dp + ds).sqrt() + (1.0 - dp + ds).sqrt()).powi(2);
            let mag = hr.add_scalar(ds)?.mul_scalar(s)?.sqrt()?.add_scalar(1e-10)?;
            let mid = n / 2;
            let sig: Vec<f64> = (0..n)
                .map(|i| {
                    if i == 0 || i == mid {
                        0.0
                    } else if i < mid {
                        1.0
                    } else {
                        -1.0
                    }
                })
                .collect();
            let inner = on(&h, &sig)?.mul(&ifft(&mag.log()?)?)?;
            ifft(&mag.mul(&fft(&inner)?.exp()?)?)?.real()
        }
    };
    let n_out = if half { n_half + len % 2 } else { len };
    out.slice(&[crate::SliceArg::range(0, n_out as isize, 1)])?.ascontiguous()
}
