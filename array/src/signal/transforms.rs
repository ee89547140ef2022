//! SciPy's analog frequency transforms (`lp2lp`, `lp2hp`, `lp2bp`, `lp2bs` and their `_zpk`
//! forms), the bilinear transform (`bilinear`, `bilinear_zpk`) and analog frequency responses
//! (`freqs`, `freqs_zpk`).
//!
//! **Host work.** As the rest of filter design: coefficients, zeros and poles are read to the
//! host, transformed in f64 (complex f64 for roots) and copied back once; the responses are
//! evaluated on the device (Horner's rule for `freqs`, a product over the roots for
//! `freqs_zpk`).
//!
//! **Transfer-function forms.** The `b, a` transforms substitute the frequency map into the
//! polynomials and clear the denominators: low-pass to low-pass `s → s / wo`, to high-pass
//! `s → wo / s`, to band-pass `s → (s² + wo²) / (bw s)`, to band-stop `s → bw s / (s² + wo²)`;
//! the bilinear transform `s → 2 fs (z − 1) / (z + 1)`, with the factor `2 fs` split evenly
//! between `z + 1` and `z − 1` so that high orders at high rates do not overflow. Each result
//! is normalised as SciPy's `normalize` (leading zeros dropped, `a[0] = 1`).
//!
//! **Choices.** Zeros and poles come back as complex128 arrays (as every zpk result of
//! `xp::signal`), the gain as an `f64`. Complex `b, a` are accepted by the transfer-function
//! forms and give complex results; real inputs give float64.

use num_complex::Complex64 as C;
use xp_backend_api::{DType, Error, Result};

use super::design::{self, c_array, host_c, one_d, poly_at, real_or_complex, WorN, Zpk};
use crate::{Array, Scalar};

/// Zeros and poles read from the device, and the relative degree checked.
fn zp(op: &str, z: &Array, p: &Array) -> Result<(Vec<C>, Vec<C>)> {
    one_d(op, z)?;
    one_d(op, p)?;
    let (z, p) = (host_c(z)?, host_c(p)?);
    if z.len() > p.len() {
        return Err(Error::value(
            op,
            format!(
                "Improper transfer function. Must have at least as many poles as zeros (got {} zeros, {} poles).",
                z.len(),
                p.len()
            ),
        ));
    }
    Ok((z, p))
}

fn out_zpk((z, p, k): Zpk) -> Result<(Array, Array, f64)> {
    Ok((c_array(&z)?, c_array(&p)?, k))
}

fn check_freq(op: &str, what: &str, v: f64) -> Result<()> {
    if !v.is_finite() {
        return Err(Error::value(op, format!("{what} must be a finite number, got {v}")));
    }
    Ok(())
}

/// SciPy's `lp2lp_zpk(z, p, k, wo=1.0)`: a low-pass prototype moved to cutoff `wo`
/// (`s → s / wo`).
pub fn lp2lp_zpk(z: &Array, p: &Array, k: f64, wo: f64) -> Result<(Array, Array, f64)> {
    let op = "lp2lp_zpk";
    check_freq(op, "wo", wo)?;
    let (z, p) = zp(op, z, p)?;
    out_zpk(design::lp2lp(&z, &p, k, wo))
}

/// SciPy's `lp2hp_zpk(z, p, k, wo=1.0)`: a low-pass prototype turned high-pass with cutoff
/// `wo` (`s → wo / s`).
pub fn lp2hp_zpk(z: &Array, p: &Array, k: f64, wo: f64) -> Result<(Array, Array, f64)> {
    let op = "lp2hp_zpk";
    check_freq(op, "wo", wo)?;
    let (z, p) = zp(op, z, p)?;
    out_zpk(design::lp2hp(&z, &p, k, wo))
}

/// SciPy's `lp2bp_zpk(z, p, k, wo=1.0, bw=1.0)`: a low-pass prototype turned band-pass with
/// centre `wo` and width `bw`.
pub fn lp2bp_zpk(z: &Array, p: &Array, k: f64, wo: f64, bw: f64) -> Result<(Array, Array, f64)> {
    let op = "lp2bp_zpk";
    check_freq(op, "wo", wo)?;
    check_freq(op, "bw", bw)?;
    let (z, p) = zp(op, z, p)?;
    out_zpk(design::lp2bp(&z, &p, k, wo, bw))
}

/// SciPy's `lp2bs_zpk(z, p, k, wo=1.0, bw=1.0)`: a low-pass prototype turned band-stop with
/// centre `wo` and width `bw`.
pub fn lp2bs_zpk(z: &Array, p: &Array, k: f64, wo: f64, bw: f64) -> Result<(Array, Array, f64)> {
    let op = "lp2bs_zpk";
    check_freq(op, "wo", wo)?;
    check_freq(op, "bw", bw)?;
    let (z, p) = zp(op, z, p)?;
    out_zpk(design::lp2bs(&z, &p, k, wo, bw))
}

fn check_fs(op: &str, fs: f64) -> Result<()> {
    if !fs.is_finite() || fs <= 0.0 {
        return Err(Error::value(op, format!("Sampling frequency fs must be a positive finite number, got {fs}")));
    }
    Ok(())
}

/// SciPy's `bilinear_zpk(z, p, k, fs)`: an analog filter's zeros, poles and gain mapped to a
/// digital filter by the bilinear transform at sampling rate `fs` (zeros at infinity go to
/// Nyquist, `z = −1`).
pub fn bilinear_zpk(z: &Array, p: &Array, k: f64, fs: f64) -> Result<(Array, Array, f64)> {
    let op = "bilinear_zpk";
    check_fs(op, fs)?;
    let (z, p) = zp(op, z, p)?;
    out_zpk(design::bilinear(&z, &p, k, fs))
}

// ---- transfer-function forms ------------------------------------------------------------------

/// `b, a` read to the host (complex), checked 1-d and not empty, leading zeros dropped.
fn tf(op: &str, b: &Array, a: &Array) -> Result<(Vec<C>, Vec<C>, bool)> {
    for (what, v) in [("b", b), ("a", a)] {
        if v.ndim() > 1 {
            return Err(Error::value(
                op,
                format!("Parameter {what} is not a 1d array since {what}.shape={:?}", v.shape()),
            ));
        }
        if v.size() == 0 {
            return Err(Error::value(op, format!("Parameter {what} must not be empty")));
        }
    }
    let real = !b.dtype().is_complex() && !a.dtype().is_complex();
    let trim = |v: Vec<C>| -> Vec<C> {
        let s = v.iter().position(|x| x.norm() != 0.0).unwrap_or(v.len().saturating_sub(1));
        v[s..].to_vec()
    };
    Ok((trim(host_c(&b.reshape(&[-1])?)?), trim(host_c(&a.reshape(&[-1])?)?), real))
}

/// SciPy's `normalize` on complex coefficients: leading zeros of both dropped, divided by
/// `a[0]`.
fn normalize_c(op: &str, b: &[C], a: &[C]) -> Result<(Vec<C>, Vec<C>)> {
    let s = a
        .iter()
        .position(|v| v.norm() != 0.0)
        .ok_or_else(|| Error::value(op, "Denominator must have at least on nonzero element."))?;
    let a = &a[s..];
    let a0 = a[0];
    let mut b: Vec<C> = b.iter().map(|v| v / a0).collect();
    let a: Vec<C> = a.iter().map(|v| v / a0).collect();
    let lead = b.iter().position(|v| v.norm() != 0.0).unwrap_or(b.len().saturating_sub(1));
    b.drain(..lead);
    Ok((b, a))
}

fn out_tf(op: &str, b: &[C], a: &[C], real: bool) -> Result<(Array, Array)> {
    let (b, a) = normalize_c(op, b, a)?;
    Ok((real_or_complex(b, real)?, real_or_complex(a, real)?))
}

/// Highest-power-first product of two polynomials.
fn pmul(x: &[C], y: &[C]) -> Vec<C> {
    let mut out = vec![C::new(0.0, 0.0); x.len() + y.len() - 1];
    for (i, u) in x.iter().enumerate() {
        for (j, v) in y.iter().enumerate() {
            out[i + j] += u * v;
        }
    }
    out
}

fn ppow(x: &[C], n: usize) -> Vec<C> {
    (0..n).fold(vec![C::new(1.0, 0.0)], |acc, _| pmul(&acc, x))
}

/// `Σ_j c[j] · f^(deg − j) · g^(m − (deg − j))` with `deg = len(c) − 1`, as a polynomial of
/// degree `(m) · max(deg f, deg g)` aligned at its lowest power: the substitution
/// `s → f / g` into `c` with the denominator `g^m` cleared.
fn substitute(c: &[C], f: &[C], g: &[C], m: usize) -> Vec<C> {
    let deg = c.len() - 1;
    let mut terms = Vec::with_capacity(c.len());
    for (j, &cj) in c.iter().enumerate() {
        let p = deg - j;
        let t: Vec<C> = pmul(&ppow(f, p), &ppow(g, m - p)).into_iter().map(|v| v * cj).collect();
        terms.push(t);
    }
    let len = terms.iter().map(Vec::len).max().unwrap_or(1);
    let mut out = vec![C::new(0.0, 0.0); len];
    for t in terms {
        let off = len - t.len();
        for (i, v) in t.into_iter().enumerate() {
            out[off + i] += v;
        }
    }
    out
}

/// Both polynomials through [`substitute`] with the common order `max(deg b, deg a)`.
fn map_tf(b: &[C], a: &[C], f: &[C], g: &[C]) -> (Vec<C>, Vec<C>) {
    let m = (b.len() - 1).max(a.len() - 1);
    (substitute(b, f, g, m), substitute(a, f, g, m))
}

fn cr(v: f64) -> C {
    C::new(v, 0.0)
}

/// SciPy's `lp2lp(b, a, wo=1.0)`: a low-pass prototype's transfer function moved to cutoff
/// `wo` (`s → s / wo`).
pub fn lp2lp(b: &Array, a: &Array, wo: f64) -> Result<(Array, Array)> {
    let op = "lp2lp";
    check_freq(op, "wo", wo)?;
    let (b, a, real) = tf(op, b, a)?;
    let (nb, na) = map_tf(&b, &a, &[cr(1.0), cr(0.0)], &[cr(wo)]);
    out_tf(op, &nb, &na, real)
}

/// SciPy's `lp2hp(b, a, wo=1.0)`: a low-pass prototype's transfer function turned high-pass
/// with cutoff `wo` (`s → wo / s`).
pub fn lp2hp(b: &Array, a: &Array, wo: f64) -> Result<(Array, Array)> {
    let op = "lp2hp";
    check_freq(op, "wo", wo)?;
    let (b, a, real) = tf(op, b, a)?;
    let (nb, na) = map_tf(&b, &a, &[cr(wo)], &[cr(1.0), cr(0.0)]);
    out_tf(op, &nb, &na, real)
}

/// SciPy's `lp2bp(b, a, wo=1.0, bw=1.0)`: a low-pass prototype's transfer function turned
/// band-pass with centre `wo` and width `bw` (`s → (s² + wo²) / (bw s)`).
pub fn lp2bp(b: &Array, a: &Array, wo: f64, bw: f64) -> Result<(Array, Array)> {
    let op = "lp2bp";
    check_freq(op, "wo", wo)?;
    check_freq(op, "bw", bw)?;
    let (b, a, real) = tf(op, b, a)?;
    let (nb, na) = map_tf(&b, &a, &[cr(1.0), cr(0.0), cr(wo * wo)], &[cr(bw), cr(0.0)]);
    out_tf(op, &nb, &na, real)
}

/// SciPy's `lp2bs(b, a, wo=1.0, bw=1.0)`: a low-pass prototype's transfer function turned
/// band-stop with centre `wo` and width `bw` (`s → bw s / (s² + wo²)`).
pub fn lp2bs(b: &Array, a: &Array, wo: f64, bw: f64) -> Result<(Array, Array)> {
    let op = "lp2bs";
    check_freq(op, "wo", wo)?;
    check_freq(op, "bw", bw)?;
    let (b, a, real) = tf(op, b, a)?;
    let (nb, na) = map_tf(&b, &a, &[cr(bw), cr(0.0)], &[cr(1.0), cr(0.0), cr(wo * wo)]);
    out_tf(op, &nb, &na, real)
}

/// SciPy's `bilinear(b, a, fs=1.0)`: an analog transfer function mapped to a digital one by
/// the bilinear transform at sampling rate `fs` (`s → 2 fs (z − 1) / (z + 1)`).
pub fn bilinear(b: &Array, a: &Array, fs: f64) -> Result<(Array, Array)> {
    let op = "bilinear";
    check_fs(op, fs)?;
    let (b, a, real) = tf(op, b, a)?;
    let c = (2.0 * fs).sqrt();
    let (nb, na) = map_tf(&b, &a, &[cr(c), cr(-c)], &[cr(1.0 / c), cr(1.0 / c)]);
    out_tf(op, &nb, &na, real)
}

// ---- analog responses -------------------------------------------------------------------------

/// SciPy's `findfreqs(num, den, N, kind)`: `n` log-spaced frequencies around the features of
/// the zeros `tz` and poles `ep` (two decades past them each way, rounded to decades).
fn findfreqs(tz: &[C], ep: &[C], n: usize) -> Result<Array> {
    let ep = if ep.is_empty() { vec![cr(-1000.0)] } else { ep.to_vec() };
    let mut ez: Vec<C> = ep.iter().copied().filter(|v| v.im >= 0.0).collect();
    ez.extend(tz.iter().copied().filter(|v| v.norm() < 1e5 && v.im >= 0.0));
    let integ = |v: &C| if v.norm() < 1e-10 { 1.0 } else { 0.0 };
    let hi = ez.iter().map(|v| 3.0 * (v.re + integ(v)).abs() + 1.5 * v.im).fold(f64::NEG_INFINITY, f64::max);
    let lo = ez.iter().map(|v| (v.re + integ(v)).abs() + 2.0 * v.im).fold(f64::INFINITY, f64::min);
    let hfreq = (hi.log10() + 0.5).round_ties_even();
    let lfreq = ((0.1 * lo).log10() - 0.5).round_ties_even();
    if !hfreq.is_finite() || !lfreq.is_finite() {
        return Err(Error::value("freqs", "the zeros and poles give no finite frequency range; pass worN explicitly"));
    }
    crate::logspace(lfreq, hfreq, n, true, 10.0, Some(DType::F64))
}

/// Angular frequencies of an analog response: `n` chosen by [`findfreqs`] or the given ones.
fn analog_grid(op: &str, wor_n: &WorN, tz: &[C], ep: &[C]) -> Result<Array> {
    match wor_n {
        WorN::N(n) => findfreqs(tz, ep, *n),
        WorN::Freqs(f) => {
            if f.ndim() > 1 {
                return Err(Error::value(op, format!("worN must be a 1-d array, got shape {:?}", f.shape())));
            }
            if f.dtype().is_complex() {
                return Err(Error::unsupported_dtype(op, f.dtype()));
            }
            f.astype(DType::F64)?.reshape(&[-1])
        }
    }
}

/// SciPy's `freqs(b, a, worN=200)`: the angular frequencies `w` (rad/s) and the complex
/// response `B(jw) / A(jw)` of an analog filter. `WorN::N(n)` picks `n` frequencies around
/// the filter's zeros and poles (SciPy's `findfreqs`); `WorN::Freqs` gives them.
pub fn freqs(b: &Array, a: &Array, wor_n: &WorN) -> Result<(Array, Array)> {
    let op = "freqs";
    let (bh, ah, _) = tf(op, b, a)?;
    let w = analog_grid(op, wor_n, &design::roots(&bh), &design::roots(&ah))?;
    let s = w.mul_scalar(Scalar::Complex(0.0, 1.0))?;
    let rev = |v: &[C]| v.iter().rev().copied().collect::<Vec<_>>();
    let h = poly_at(&rev(&bh), &s)?.div(&poly_at(&rev(&ah), &s)?)?;
    Ok((w, h))
}

/// SciPy's `freqs_zpk(z, p, k, worN=200)`: the angular frequencies and the response
/// `k Π(jw − z) / Π(jw − p)` of an analog filter in zero-pole-gain form.
pub fn freqs_zpk(z: &Array, p: &Array, k: f64, wor_n: &WorN) -> Result<(Array, Array)> {
    let op = "freqs_zpk";
    one_d(op, z)?;
    one_d(op, p)?;
    let (zh, ph) = (host_c(z)?, host_c(p)?);
    let w = analog_grid(op, wor_n, &zh, &ph)?;
    let s = w.mul_scalar(Scalar::Complex(0.0, 1.0))?;
    let prod_at = |r: &[C]| -> Result<Array> {
        let mut acc = s.mul_scalar(0.0)?.add_scalar(1.0)?;
        for v in r {
            acc = acc.mul(&s.add_scalar(Scalar::Complex(-v.re, -v.im))?)?;
        }
        Ok(acc)
    };
    let h = prod_at(&zh)?.div(&prod_at(&ph)?)?.mul_scalar(k)?;
    Ok((w, h))
}
