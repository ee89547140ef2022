//! SciPy's waveforms: `chirp`, `sawtooth`, `square`, `gausspulse`, `unit_impulse` and
//! `max_len_seq`.
//!
//! The time-sampled waveforms are elementwise expressions of `t`, built from xp's ufuncs so
//! they run (and fuse) on the device. Results are float64 for every real `t`, as SciPy's.
//! `unit_impulse` and `max_len_seq` are built on the host: the first is one nonzero sample, the
//! second a bit-serial recurrence (Fibonacci linear-feedback shift register with SciPy's
//! primitive-polynomial taps) that has no parallel form worth a kernel.

use std::f64::consts::PI;
use std::str::FromStr;

use xp_backend_api::{DType, Error, Result};

use crate::ufunc::Operand;
use crate::{Array, Scalar};

/// The frequency sweep of [`chirp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChirpMethod {
    /// `f(t) = f0 + (f1 - f0) t / t1`.
    #[default]
    Linear,
    /// Quadratic in `t`, with the vertex at `t = 0` or `t = t1`.
    Quadratic,
    /// Geometric (`f0 (f1/f0)^(t/t1)`).
    Logarithmic,
    /// `f0 f1 t1 / ((f0 - f1) t + f1 t1)`.
    Hyperbolic,
}

impl FromStr for ChirpMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<ChirpMethod> {
        Ok(match s {
            "linear" | "lin" | "li" => ChirpMethod::Linear,
            "quadratic" | "quad" | "q" => ChirpMethod::Quadratic,
            "logarithmic" | "log" | "lo" => ChirpMethod::Logarithmic,
            "hyperbolic" | "hyp" => ChirpMethod::Hyperbolic,
            _ => {
                return Err(Error::value(
                    "chirp",
                    format!("method must be 'linear', 'quadratic', 'logarithmic', or 'hyperbolic', but a value of {s:?} was given."),
                ))
            }
        })
    }
}

fn float_of(t: &Array) -> Result<Array> {
    if t.dtype().is_float() || t.dtype().is_complex() {
        Ok(t.clone())
    } else {
        t.astype(DType::F64)
    }
}

fn f(v: f64) -> Operand<'static> {
    Operand::Scalar(Scalar::Float(v))
}

/// SciPy's `chirp(t, f0, t1, f1, method='linear', phi=0, vertex_zero=True)`:
/// `cos(phase(t) + phi·π/180)`.
#[allow(clippy::too_many_arguments)]
pub fn chirp(t: &Array, f0: f64, t1: f64, f1: f64, method: ChirpMethod, phi: f64, vertex_zero: bool) -> Result<Array> {
    let t = float_of(t)?.astype(DType::F64)?;
    let two_pi = 2.0 * PI;
    let phase = match method {
        ChirpMethod::Linear => {
            let beta = (f1 - f0) / t1;
            t.mul_scalar(f0)?.add(&t.square()?.mul_scalar(0.5 * beta)?)?.mul_scalar(two_pi)?
        }
        ChirpMethod::Quadratic => {
            let beta = (f1 - f0) / (t1 * t1);
            if vertex_zero {
                t.mul_scalar(f0)?.add(&t.pow(f(3.0))?.mul_scalar(beta / 3.0)?)?.mul_scalar(two_pi)?
            } else {
                let d = t.mul_scalar(-1.0)?.add_scalar(t1)?.pow(f(3.0))?.add_scalar(-t1.powi(3))?;
                t.mul_scalar(f1)?.add(&d.mul_scalar(beta / 3.0)?)?.mul_scalar(two_pi)?
            }
        }
        ChirpMethod::Logarithmic => {
            if f0 * f1 <= 0.0 {
                return Err(Error::value(
                    "chirp",
                    "For a logarithmic chirp, f0 and f1 must be nonzero and have the same sign.",
                ));
            }
            if f0 == f1 {
                t.mul_scalar(two_pi * f0)?
            } else {
                let beta = t1 / (f1 / f0).ln();
                t.mul_scalar((f1 / f0).ln() / t1)?.exp()?.add_scalar(-1.0)?.mul_scalar(two_pi * beta * f0)?
            }
        }
        ChirpMethod::Hyperbolic => {
            if f0 == 0.0 || f1 == 0.0 {
                return Err(Error::value("chirp", "For a hyperbolic chirp, f0 and f1 must be nonzero."));
            }
            if f0 == f1 {
                t.mul_scalar(two_pi * f0)?
            } else {
                let sing = -f1 * t1 / (f0 - f1);
                t.mul_scalar(-1.0 / sing)?.add_scalar(1.0)?.abs()?.log()?.mul_scalar(two_pi * (-sing * f0))?
            }
        }
    };
    phase.add_scalar(phi * PI / 180.0)?.cos()
}

/// SciPy's `gausspulse(t, fc=1000, bw=0.5, bwr=-6, tpr=-60)`: the real part of a
/// Gaussian-modulated sinusoid (the in-phase component).
pub fn gausspulse(t: &Array, fc: f64, bw: f64, bwr: f64) -> Result<Array> {
    if fc < 0.0 {
        return Err(Error::value("gausspulse", format!("Center frequency (fc={fc:.2}) must be >=0.")));
    }
    if bw <= 0.0 {
        return Err(Error::value("gausspulse", format!("Fractional bandwidth (bw={bw:.2}) must be > 0.")));
    }
    if bwr >= 0.0 {
        return Err(Error::value("gausspulse", format!("Reference level for bandwidth (bwr={bwr:.2}) must be < 0 dB")));
    }
    let rf = 10f64.powf(bwr / 20.0);
    let a = -(PI * fc * bw).powi(2) / (4.0 * rf.ln());
    let t = float_of(t)?.astype(DType::F64)?;
    let env = t.square()?.mul_scalar(-a)?.exp()?;
    env.mul(&t.mul_scalar(2.0 * PI * fc)?.cos()?)
}

fn periodic_phase(t: &Array) -> Result<Array> {
    // mod(t, 2π) with Python's sign convention (the result has the sign of 2π)
    t.rem(f(2.0 * PI))
}

/// The dtype SciPy's `sawtooth`/`square` answer in: float64 (the float64 `width`/`duty`
/// promotes float32 `t` as well).
fn wave_dtype(_t: &Array) -> DType {
    DType::F64
}

/// SciPy's `sawtooth(t, width=1)`: rising from -1 to 1 on `[0, width·2π)`, falling back on
/// `[width·2π, 2π)`; `width` outside `[0, 1]` gives NaN.
pub fn sawtooth(t: &Array, width: f64) -> Result<Array> {
    let dt = wave_dtype(t);
    let tt = t.astype(DType::F64)?;
    if !(0.0..=1.0).contains(&width) {
        return tt.mul_scalar(0.0)?.add_scalar(f64::NAN)?.astype(dt);
    }
    let tmod = periodic_phase(&tt)?;
    let up = tmod.mul_scalar(1.0 / (PI * width))?.add_scalar(-1.0)?;
    let down = tmod.mul_scalar(-1.0)?.add_scalar(PI * (width + 1.0))?.mul_scalar(1.0 / (PI * (1.0 - width)))?;
    let rising = tmod.lt(f(width * 2.0 * PI))?;
    crate::where_(&rising, (&up).into(), (&down).into())?.astype(dt)
}

/// SciPy's `square(t, duty=0.5)`: 1 on the first `duty` of each period, -1 after; `duty`
/// outside `[0, 1]` gives NaN.
pub fn square(t: &Array, duty: f64) -> Result<Array> {
    let dt = wave_dtype(t);
    let tt = t.astype(DType::F64)?;
    if !(0.0..=1.0).contains(&duty) {
        return tt.mul_scalar(0.0)?.add_scalar(f64::NAN)?.astype(dt);
    }
    let tmod = periodic_phase(&tt)?;
    let on = tmod.lt(f(duty * 2.0 * PI))?;
    crate::where_(&on, f(1.0), f(-1.0))?.astype(dt)
}

/// Where [`unit_impulse`] puts its 1.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ImpulseIndex {
    /// The first sample (`idx=None`).
    #[default]
    First,
    /// The centre, `shape[i] // 2` in every dimension (`idx='mid'`).
    Mid,
    /// This index in every dimension (an int).
    All(usize),
    /// One index per dimension (a tuple).
    At(Vec<usize>),
}

/// SciPy's `unit_impulse(shape, idx=None, dtype=float)`: zeros with a single 1.
pub fn unit_impulse(shape: &[usize], idx: &ImpulseIndex, dtype: Option<DType>) -> Result<Array> {
    let dtype = dtype.unwrap_or(DType::F64);
    let at: Vec<usize> = match idx {
        ImpulseIndex::First => vec![0; shape.len()],
        ImpulseIndex::Mid => shape.iter().map(|s| s / 2).collect(),
        ImpulseIndex::All(i) => vec![*i; shape.len()],
        ImpulseIndex::At(v) => v.clone(),
    };
    if at.len() != shape.len() || at.iter().zip(shape).any(|(i, s)| i >= s) {
        return Err(Error::value("unit_impulse", format!("index {at:?} is out of bounds for shape {shape:?}")));
    }
    let n: usize = shape.iter().product();
    let mut flat = 0usize;
    for (i, s) in at.iter().zip(shape) {
        flat = flat * s + i;
    }
    let mut v = vec![0.0f64; n];
    v[flat] = 1.0;
    Array::from_slice(&v, shape)?.astype(dtype)
}

/// Taps of SciPy's maximum-length sequences, per register width.
fn mls_taps(nbits: usize) -> Option<&'static [usize]> {
    Some(match nbits {
        2 => &[1],
        3 => &[2],
        4 => &[3],
        5 => &[3],
        6 => &[5],
        7 => &[6],
        8 => &[7, 6, 1],
        9 => &[5],
        10 => &[7],
        11 => &[9],
        12 => &[11, 10, 4],
        13 => &[12, 11, 8],
        14 => &[13, 12, 2],
        15 => &[14],
        16 => &[15, 13, 4],
        17 => &[14],
        18 => &[11],
        19 => &[18, 17, 14],
        20 => &[17],
        21 => &[19],
        22 => &[21],
        23 => &[18],
        24 => &[23, 22, 17],
        25 => &[22],
        26 => &[25, 24, 20],
        27 => &[26, 25, 22],
        28 => &[25],
        29 => &[27],
        30 => &[29, 28, 7],
        31 => &[28],
        32 => &[31, 30, 10],
        _ => return None,
    })
}

/// SciPy's `max_len_seq(nbits, state=None, length=None, taps=None)`: the sequence (int8, 0/1)
/// and the final register state (int8).
pub fn max_len_seq(
    nbits: usize,
    state: Option<&[u8]>,
    length: Option<usize>,
    taps: Option<&[usize]>,
) -> Result<(Array, Array)> {
    let op = "max_len_seq";
    let taps: Vec<usize> = match taps {
        Some(t) => {
            if t.iter().any(|&v| v == 0 || v >= nbits) {
                return Err(Error::value(op, "taps must be between 1 and nbits-1"));
            }
            t.to_vec()
        }
        None => {
            mls_taps(nbits).ok_or_else(|| Error::value(op, "nbits must be between 2 and 32 if taps is None"))?.to_vec()
        }
    };
    let mut st: Vec<u8> = match state {
        Some(s) => {
            if s.len() != nbits {
                return Err(Error::value(op, format!("state must have length nbits ({nbits}), got {}", s.len())));
            }
            s.iter().map(|v| (v != &0) as u8).collect()
        }
        None => vec![1; nbits],
    };
    if st.iter().all(|v| *v == 0) {
        return Err(Error::value(op, "state must not be all zeros"));
    }
    let length = length.unwrap_or((1usize << nbits) - 1);
    let mut seq = Vec::with_capacity(length);
    let mut idx = 0;
    for _ in 0..length {
        let mut fb = st[idx];
        seq.push(fb as i8);
        for &t in &taps {
            fb ^= st[(t + idx) % nbits];
        }
        st[idx] = fb;
        idx = (idx + 1) % nbits;
    }
    st.rotate_left(idx);
    let st: Vec<i8> = st.into_iter().map(|v| v as i8).collect();
    Ok((Array::from_vec(seq)?, Array::from_vec(st)?))
}
