//! SciPy's Fourier-domain filters (`scipy.ndimage.fourier_gaussian`, `fourier_uniform`,
//! `fourier_shift`; CuPy's `cupyx.scipy.ndimage` ones): the input is a spectrum (an
//! [`xp::fft`](crate::fft) output) and each is a multiplication by a separable factor.
//!
//! # Contract
//! - The input is the full FFT (`n = -1`) or, with `n > 0`, a real FFT along `axis` of a
//!   signal of length `n` (the axis holds the non-negative frequencies `0..len`). Along every
//!   other axis, element `k` of length `m` is the frequency `k / m` for `k < (m + 1) / 2` and
//!   `(k - m) / m` above, as `fftfreq`.
//! - `sigma`, `size` and `shift` are one value for every axis or one per axis.
//! - Factors per axis of frequency `f`: Gaussian `exp(-2 pi^2 sigma^2 f^2)`, uniform
//!   `sin(pi size f) / (pi size f)` (1 at `f = 0`), shift `exp(-2 pi i shift f)`.
//! - dtypes (SciPy's): `fourier_gaussian` and `fourier_uniform` keep complex64, complex128
//!   and float32 and give float64 for other real inputs; `fourier_shift` gives complex64 for
//!   complex64 and complex128 otherwise. Factors are float64 (the product is formed in double
//!   precision and rounded once).
//! - Errors: a sequence of the wrong length, `n == 0` or an axis out of range (`Axis`), a
//!   bool input (`UnsupportedDType`).
//!
//! The factors are 1-d vectors of each axis's length, computed on the host (their size is an
//! axis's, not the image's), broadcast and multiplied on the device.

use std::f64::consts::PI;

use num_complex::Complex;
use xp_backend_api::{DType, Error, Result};

use crate::layout::normalize_axis;
use crate::ufunc::call;
use crate::{Array, Operand};

fn per_axis(op: &str, what: &str, v: &[f64], nd: usize) -> Result<Vec<f64>> {
    match v.len() {
        1 => Ok(vec![v[0]; nd]),
        n if n == nd => Ok(v.to_vec()),
        n => Err(Error::value(
            op,
            format!("sequence argument `{what}` must have length equal to input rank {nd}, got {n}"),
        )),
    }
}

/// Per axis: the signal length `m` and each element's signed frequency index `k` (so the
/// frequency is `k / m`).
fn freq_indices(op: &str, input: &Array, n: isize, axis: isize) -> Result<Vec<(f64, Vec<f64>)>> {
    if input.dtype() == DType::Bool {
        return Err(Error::unsupported_dtype(op, input.dtype()));
    }
    let nd = input.ndim();
    let ax = if nd == 0 { 0 } else { normalize_axis(op, axis, nd)? };
    if n == 0 {
        return Err(Error::value(op, "n must be -1 (a full FFT) or a positive length"));
    }
    Ok(input
        .shape()
        .iter()
        .enumerate()
        .map(|(d, &len)| {
            if n > 0 && d == ax {
                (n as f64, (0..len).map(|k| k as f64).collect())
            } else {
                let ks = (0..len).map(|k| if k < len.div_ceil(2) { k as f64 } else { k as f64 - len as f64 }).collect();
                (len as f64, ks)
            }
        })
        .collect())
}

fn broadcast_shape(nd: usize, d: usize, len: usize) -> Vec<isize> {
    let mut s = vec![1isize; nd];
    s[d] = len as isize;
    s
}

fn real_factor(
    op: &str,
    input: &Array,
    params: &[f64],
    n: isize,
    axis: isize,
    f: impl Fn(f64, f64) -> f64,
) -> Result<Array> {
    let nd = input.ndim();
    let p = per_axis(op, "parameter", params, nd.max(1))?;
    let freqs = freq_indices(op, input, n, axis)?;
    let out_dt = match input.dtype() {
        DType::C64 | DType::C128 | DType::F32 => input.dtype(),
        _ => DType::F64,
    };
    let dev = input.device_arc();
    let mut acc = input.clone();
    for (d, (m, ks)) in freqs.iter().enumerate() {
        let v: Vec<f64> = ks.iter().map(|&k| f(p[d], k / m)).collect();
        let fa = Array::from_slice_on(&dev, &v, &[v.len()])?.reshape(&broadcast_shape(nd, d, v.len()))?;
        acc = call("multiply", &[Operand::Array(&acc), Operand::Array(&fa)], None)?;
    }
    acc.astype(out_dt)
}

/// SciPy's `ndimage.fourier_gaussian`: the spectrum times the Fourier transform of a
/// Gaussian of standard deviation `sigma` (per axis), `exp(-2 pi^2 sigma^2 f^2)`. `n = -1`
/// for a full FFT, else the length of the real FFT's signal along `axis`.
pub fn fourier_gaussian(input: &Array, sigma: &[f64], n: isize, axis: isize) -> Result<Array> {
    real_factor("fourier_gaussian", input, sigma, n, axis, |s, f| (-2.0 * PI * PI * s * s * f * f).exp())
}

/// SciPy's `ndimage.fourier_uniform`: the spectrum times the Fourier transform of a box of
/// width `size` (per axis), `sin(pi size f) / (pi size f)`.
pub fn fourier_uniform(input: &Array, size: &[f64], n: isize, axis: isize) -> Result<Array> {
    real_factor("fourier_uniform", input, size, n, axis, |s, f| {
        let t = PI * s * f;
        if t == 0.0 {
            1.0
        } else {
            t.sin() / t
        }
    })
}

/// SciPy's `ndimage.fourier_shift`: the spectrum times `exp(-2 pi i shift f)` per axis, the
/// transform of the signal shifted by `shift` (circularly).
pub fn fourier_shift(input: &Array, shift: &[f64], n: isize, axis: isize) -> Result<Array> {
    let op = "fourier_shift";
    let nd = input.ndim();
    let p = per_axis(op, "shift", shift, nd.max(1))?;
    let freqs = freq_indices(op, input, n, axis)?;
    let out_dt = if input.dtype() == DType::C64 { DType::C64 } else { DType::C128 };
    let dev = input.device_arc();
    let mut acc = input.clone();
    for (d, (m, ks)) in freqs.iter().enumerate() {
        let v: Vec<Complex<f64>> = ks
            .iter()
            .map(|&k| {
                let t = -2.0 * PI * p[d] * k / m;
                Complex::new(t.cos(), t.sin())
            })
            .collect();
        let fa = Array::from_slice_on(&dev, &v, &[v.len()])?.reshape(&broadcast_shape(nd, d, v.len()))?;
        acc = call("multiply", &[Operand::Array(&acc), Operand::Array(&fa)], None)?;
    }
    acc.astype(out_dt)
}
