//! SciPy's fast Hankel transform: `fht`, `ifht` and `fhtoffset`, Hamilton's FFTLog.
//!
//! # The transform
//! SciPy's `fht` is the discrete form of the Hankel transform `A(k) = ∫_0^∞ a(r) J_μ(k r) k dr`
//! for `a` sampled on the logarithmic grid `r_j = r_c exp((j - j_c) dln)`, `j_c = (n-1)/2`
//! (and taken as periodic there), with `offset = ln(k_c r_c)` placing the output grid and a
//! power-law `bias = q`. On the log grid the transform is a convolution, so it runs as one
//! real FFT, a product with `n/2 + 1` coefficients, one inverse real FFT and a reversal:
//! A. J. S. Hamilton, "Uncorrelated modes of the non-linear power spectrum", MNRAS 312
//! (2000) 257-284, Appendix B (FFTLog), after J. D. Talman, J. Comput. Phys. 29 (1978) 35-48.
//! The coefficients are
//! `u_m = 2^{q + 2πi m/L} Γ((μ+1+q)/2 + iπm/L) / Γ((μ+1-q)/2 - iπm/L) · e^{-2πi m offset/L}`,
//! `L = n dln`; for even `n` the last one is made real (its imaginary part would be dropped
//! by the inverse real FFT anyway, and the inverse needs the same real value). A bias
//! `q ≠ 0` multiplies the input by `e^{-q (j - j_c) dln}` before and the output by
//! `e^{-q ((j - j_c) dln + offset)}` after. `ifht` runs the same steps with the coefficients `1 / conj(u_m)` and the
//! reciprocal factors, which inverts `fht` exactly (a zero coefficient stays zero).
//!
//! The `n` coefficients (and the bias factors) are computed on the host in float64: they are
//! per-transform-length setup; the FFTs and products run on the array's device. The complex
//! log-gamma is Lanczos' approximation (C. Lanczos, "A precision approximation of the gamma
//! function", SIAM J. Numer. Anal. B 1 (1964) 86-96) with `g = 7` and the nine coefficients
//! of P. Godfrey (about 15 correct digits for `Re z ≥ 1/2`), reached from smaller real parts
//! by the recurrence `lnΓ(z) = lnΓ(z + 1) - ln z`. Only `exp` of differences of log-gammas
//! is used, so the branch of the logarithm does not matter, except in `fhtoffset`, where a
//! different branch moves its rounded quantity by a whole number and leaves the result alone.
//!
//! # SciPy's rules
//! The transform runs along the last axis (batched over the others). float32 stays float32
//! (the coefficients are rounded once), other real inputs give float64; complex input is a
//! `DType` error (SciPy's `rfft` raises `TypeError`), an empty last axis a `Value` error.

use num_complex::Complex;
use xp_backend_api::{DType, Error, Result};

use super::{c2r_axis, r2c_axis, single};
use crate::Array;

/// Lanczos' coefficients for `g = 7`, `n = 9` (Godfrey's).
const LANCZOS_G: f64 = 7.0;
#[allow(clippy::excessive_precision)]
const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_93,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_13,
    -176.615_029_162_140_59,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_571_6e-6,
    1.505_632_735_149_311_6e-7,
];

/// The complex log-gamma `ln Γ(z)` (some branch of it; see the module docs).
pub(crate) fn lgamma_complex(z: Complex<f64>) -> Complex<f64> {
    if z.re < 0.5 {
        // lnΓ(z) = lnΓ(z + k) - Σ_{j<k} ln(z + j), with Re(z + k) ≥ 1/2.
        let k = (0.5 - z.re).ceil() as usize;
        let mut sum = Complex::new(0.0, 0.0);
        for j in 0..k {
            sum += (z + j as f64).ln();
        }
        return lgamma_complex(z + k as f64) - sum;
    }
    let z = z - 1.0;
    let mut x = Complex::new(LANCZOS[0], 0.0);
    for (i, &p) in LANCZOS.iter().enumerate().skip(1) {
        x += p / (z + i as f64);
    }
    let t = z + LANCZOS_G + 0.5;
    let half_ln_2pi = 0.5 * (2.0 * std::f64::consts::PI).ln();
    (z + 0.5) * t.ln() - t + x.ln() + half_ln_2pi
}

/// Whether `x` is a pole of Γ (0, -1, -2, …).
fn is_pole(x: f64) -> bool {
    x <= 0.0 && x == x.floor()
}

/// `Γ(xp) / Γ(xm)` for real arguments, at least one of them a pole of Γ (as limits).
fn pole_ratio(xp: f64, xm: f64) -> f64 {
    match (is_pole(xp), is_pole(xm)) {
        (false, true) => 0.0,
        (true, false) => f64::INFINITY,
        _ => {
            // Γ(-a + ε) / Γ(-b + ε) → (-1)^{a-b} b! / a!.
            let (a, b) = (-xp, -xm);
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            let mut r = 1.0;
            let mut k = lo + 1.0;
            while k <= hi {
                r *= k;
                k += 1.0;
            }
            let sign = if (a - b) as i64 % 2 == 0 { 1.0 } else { -1.0 };
            if a < b {
                sign * r
            } else {
                sign / r
            }
        }
    }
}

/// The `n/2 + 1` FFTLog coefficients `u_m` (module docs), or their inverses `1/conj(u_m)`.
fn coefficients(n: usize, dln: f64, mu: f64, offset: f64, bias: f64, inverse: bool) -> Vec<Complex<f64>> {
    let ln2 = std::f64::consts::LN_2;
    let (xp, xm) = ((mu + 1.0 + bias) / 2.0, (mu + 1.0 - bias) / 2.0);
    let h = n / 2 + 1;
    let mut u: Vec<Complex<f64>> = (0..h)
        .map(|m| {
            let y = std::f64::consts::PI * m as f64 / (n as f64 * dln);
            let lp = lgamma_complex(Complex::new(xp, y));
            let lm = lgamma_complex(Complex::new(xm, y)).conj();
            (lp - lm + Complex::new(ln2 * bias, 2.0 * y * (ln2 - offset))).exp()
        })
        .collect();
    if n.is_multiple_of(2) {
        u[h - 1].im = 0.0;
    }
    if !(u[0].re.is_finite() && u[0].im.is_finite()) {
        u[0] = Complex::new(2f64.powf(bias) * pole_ratio(xp, xm), 0.0);
    }
    if inverse {
        for c in &mut u {
            *c = if c.re == 0.0 && c.im == 0.0 { Complex::new(0.0, 0.0) } else { 1.0 / c.conj() };
        }
    }
    u
}

/// The FFTLog steps along the last axis of `a` (module docs).
#[allow(clippy::too_many_arguments)]
fn fftlog(op: &str, a: &Array, dln: f64, mu: f64, offset: f64, bias: f64, inverse: bool) -> Result<Array> {
    if a.dtype().is_complex() {
        return Err(Error::DType { op: op.into(), reason: format!("{op} takes real input, not {}", a.dtype()) });
    }
    if a.ndim() == 0 {
        return Err(Error::Axis { op: op.into(), reason: "a 0-d array has no axis to transform".into() });
    }
    let ax = a.ndim() - 1;
    let n = a.shape()[ax];
    if n == 0 {
        return Err(Error::value(op, "the transformed axis is empty"));
    }
    let rdt = if single(a.dtype()) { DType::F32 } else { DType::F64 };
    let dev = a.device_arc();
    let real_vec = |v: Vec<f64>| -> Result<Array> {
        if rdt == DType::F32 {
            Array::from_slice_on(&dev, &v.iter().map(|&x| x as f32).collect::<Vec<_>>(), &[n])
        } else {
            Array::from_slice_on(&dev, &v, &[n])
        }
    };
    let jc = (n as f64 - 1.0) / 2.0;
    let step = |j: usize| (j as f64 - jc) * dln;
    let mut x = super::to(a, rdt)?;
    if bias != 0.0 {
        let pre: Vec<f64> =
            (0..n).map(|j| if inverse { (bias * (step(j) + offset)).exp() } else { (-bias * step(j)).exp() }).collect();
        x = x.mul(&real_vec(pre)?)?;
    }
    let spec = r2c_axis(op, &x, ax, n)?;
    let u: Vec<Complex<f64>> =
        coefficients(n, dln, mu, offset, bias, inverse).into_iter().map(|c| c / n as f64).collect();
    let h = u.len();
    let uc = if rdt == DType::F32 {
        Array::from_slice_on(&dev, &u.iter().map(|c| Complex::new(c.re as f32, c.im as f32)).collect::<Vec<_>>(), &[h])?
    } else {
        Array::from_slice_on(&dev, &u, &[h])?
    };
    let prod = spec.mul(&uc)?.ascontiguous()?;
    let y = c2r_axis(&prod, ax, n)?;
    let mut s = vec![crate::SliceArg::ALL; y.ndim()];
    s[ax] = crate::SliceArg::Range { start: None, stop: None, step: Some(-1) };
    let rev = y.slice(&s)?;
    if bias != 0.0 {
        let post: Vec<f64> =
            (0..n).map(|j| if inverse { (bias * step(j)).exp() } else { (-bias * (step(j) + offset)).exp() }).collect();
        return rev.mul(&real_vec(post)?);
    }
    rev.ascontiguous()
}

/// SciPy's `fft.fht`: the fast Hankel transform of `a` (along its last axis) sampled on a
/// log grid of spacing `dln`, of order `mu`, with `offset` (`ln(k_c r_c)`; SciPy's default
/// 0) and power-law `bias` (default 0).
pub fn fht(a: &Array, dln: f64, mu: f64, offset: f64, bias: f64) -> Result<Array> {
    fftlog("fht", a, dln, mu, offset, bias, false)
}

/// SciPy's `fft.ifht`: the inverse of [`fht`] with the same parameters.
pub fn ifht(a: &Array, dln: f64, mu: f64, offset: f64, bias: f64) -> Result<Array> {
    fftlog("ifht", a, dln, mu, offset, bias, true)
}

/// SciPy's `fft.fhtoffset`: the offset nearest `initial` (SciPy's default 0) that satisfies
/// Hamilton's low-ringing condition for spacing `dln`, order `mu` and `bias`.
pub fn fhtoffset(dln: f64, mu: f64, initial: f64, bias: f64) -> f64 {
    let (xp, xm) = ((mu + 1.0 + bias) / 2.0, (mu + 1.0 - bias) / 2.0);
    let y = std::f64::consts::PI / (2.0 * dln);
    let zp = lgamma_complex(Complex::new(xp, y));
    let zm = lgamma_complex(Complex::new(xm, y));
    let arg = (std::f64::consts::LN_2 - initial) / dln + (zp.im + zm.im) / std::f64::consts::PI;
    initial + (arg - arg.round_ties_even()) * dln
}
