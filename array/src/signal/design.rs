//! SciPy's IIR and FIR filter design, the conversions between transfer-function, zero-pole-gain
//! and second-order-section forms, and frequency responses.
//!
//! **Host work.** A filter design is a handful of coefficients whose count grows with the
//! filter order, never with data: prototypes, transforms and pairing run on the host in f64
//! (complex f64 for roots) and the results are copied once to the current device. Frequency
//! responses ([`freqz`], [`sosfreqz`], [`group_delay`]) evaluate the polynomials at the requested
//! frequencies on the device with Horner's rule (one fused elementwise pass per coefficient).
//!
//! **Algorithms.** Analog low-pass prototypes with cutoff 1 rad/s in zero-pole-gain form:
//! Butterworth (poles on the unit circle), Chebyshev I and II (poles on an ellipse, Chebyshev II
//! zeros on the imaginary axis), elliptic (Cauer; the degree equation solved through the nome
//! series, zeros and poles from Jacobi elliptic functions computed by the arithmetic-geometric
//! mean, the inverse of `sc` by descending Landen transformations — Orfanidis, "Lecture notes on
//! elliptic filter design", 2006), Bessel-Thomson (roots of the reverse Bessel polynomial by
//! Aberth-Ehrlich iteration, scaled for `phase`, `delay` or `mag` normalisation). Frequency
//! transforms `lp2lp`/`lp2hp`/`lp2bp`/`lp2bs` map the prototype in zpk form; digital filters
//! use the bilinear transform with the band edges prewarped (`2 fs tan(π Wn / fs)`, `fs = 2`).
//! [`zpk2sos`] pairs poles and zeros by SciPy's `'nearest'` (or `'keep_odd'`) rule: the pole
//! closest to the unit circle first, each with its nearest zero, the sections ordered so the
//! last holds the poles closest to the unit circle and the gain sits in the first section.
//! Polynomial roots ([`tf2zpk`]) come from the same Aberth-Ehrlich iteration, polished by Newton
//! steps.
//!
//! **FIR design**: [`firwin`] (windowed sinc, scaled to unit gain at the centre of the first
//! pass band), [`firwin2`] (frequency sampling: the interpolated response, linear phase shift,
//! inverse real DFT, windowed), [`firls`] (least squares over bands with linear desired gain:
//! the normal equations of the cosine basis, solved by Gaussian elimination).
//!
//! **Choices.** Zeros and poles are returned as complex128 arrays, always (SciPy returns real
//! zeros for some designs); `k` is an `f64`. `'sos'` output of analog filters is not provided.

use std::f64::consts::PI;
use std::str::FromStr;

use num_complex::Complex64 as C;
use xp_backend_api::{DType, Error, Result};

use super::windows::Window;
use crate::ufunc::Operand;
use crate::{Array, Scalar};

const EPSILON: f64 = 2e-16;

// ---- options --------------------------------------------------------------------------------

/// The band type of an IIR design (`btype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BType {
    /// `'lowpass'` (also `'low'`, `'l'`, `'lp'`).
    #[default]
    Lowpass,
    /// `'highpass'` (also `'high'`, `'h'`, `'hp'`).
    Highpass,
    /// `'bandpass'` (also `'band'`, `'pass'`, `'bp'`).
    Bandpass,
    /// `'bandstop'` (also `'stop'`, `'bs'`).
    Bandstop,
}

impl FromStr for BType {
    type Err = Error;
    fn from_str(s: &str) -> Result<BType> {
        Ok(match s {
            "lowpass" | "low" | "l" | "lp" => BType::Lowpass,
            "highpass" | "high" | "h" | "hp" => BType::Highpass,
            "bandpass" | "band" | "pass" | "bp" => BType::Bandpass,
            "bandstop" | "stop" | "bs" | "bands" => BType::Bandstop,
            _ => return Err(Error::value("iirfilter", format!("'{s}' is an invalid bandtype for filter."))),
        })
    }
}

/// The output form of a design (`output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// Numerator and denominator (`'ba'`, the default of SciPy's IIR designs).
    #[default]
    Ba,
    /// Zeros, poles and gain (`'zpk'`).
    Zpk,
    /// Second-order sections (`'sos'`).
    Sos,
}

impl FromStr for Output {
    type Err = Error;
    fn from_str(s: &str) -> Result<Output> {
        Ok(match s {
            "ba" => Output::Ba,
            "zpk" => Output::Zpk,
            "sos" => Output::Sos,
            _ => return Err(Error::value("iirfilter", format!("'{s}' is not a valid output form."))),
        })
    }
}

/// Bessel normalisation (`norm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BesselNorm {
    /// Phase response midpoint at the cutoff (SciPy's default).
    #[default]
    Phase,
    /// Unit group delay at DC.
    Delay,
    /// Gain -3 dB at the cutoff.
    Mag,
}

impl FromStr for BesselNorm {
    type Err = Error;
    fn from_str(s: &str) -> Result<BesselNorm> {
        Ok(match s {
            "phase" => BesselNorm::Phase,
            "delay" => BesselNorm::Delay,
            "mag" => BesselNorm::Mag,
            _ => return Err(Error::value("bessel", format!("normalization '{s}' not understood"))),
        })
    }
}

/// The prototype of [`iirfilter`] (`ftype` with its ripples).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FType {
    /// Butterworth.
    Butter,
    /// Chebyshev I with passband ripple `rp` dB.
    Cheby1 {
        /// Passband ripple (dB).
        rp: f64,
    },
    /// Chebyshev II with stopband attenuation `rs` dB.
    Cheby2 {
        /// Stopband attenuation (dB).
        rs: f64,
    },
    /// Elliptic (Cauer).
    Ellip {
        /// Passband ripple (dB).
        rp: f64,
        /// Stopband attenuation (dB).
        rs: f64,
    },
    /// Bessel-Thomson.
    Bessel {
        /// Normalisation.
        norm: BesselNorm,
    },
}

/// `scipy.signal.zpk2sos`'s `pairing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pairing {
    /// Each pole with its nearest zero; odd orders get a zero and a pole at the origin.
    #[default]
    Nearest,
    /// As `Nearest`, but an odd order keeps one first-order section.
    KeepOdd,
}

impl FromStr for Pairing {
    type Err = Error;
    fn from_str(s: &str) -> Result<Pairing> {
        match s {
            "nearest" => Ok(Pairing::Nearest),
            "keep_odd" => Ok(Pairing::KeepOdd),
            "minimal" => Err(Error::Unsupported("zpk2sos pairing 'minimal'".into())),
            _ => Err(Error::value("zpk2sos", "pairing must be one of {'nearest', 'keep_odd', 'minimal'}")),
        }
    }
}

/// A designed filter in the requested form, its arrays on the current device.
#[derive(Debug, Clone)]
pub enum Filter {
    /// Numerator `b` and denominator `a` (float64).
    Ba(Array, Array),
    /// Zeros and poles (complex128) and the gain.
    Zpk(Array, Array, f64),
    /// Second-order sections, `(n_sections, 6)` float64.
    Sos(Array),
}

// ---- host polynomial helpers ----------------------------------------------------------------

/// Coefficients (highest power first) of the monic polynomial with `roots`.
pub(super) fn poly(roots: &[C]) -> Vec<C> {
    let mut a = vec![C::new(1.0, 0.0)];
    for &r in roots {
        let mut next = a.clone();
        next.push(C::new(0.0, 0.0));
        for i in 0..a.len() {
            next[i + 1] -= r * a[i];
        }
        a = next;
    }
    a
}

pub(super) fn polyval(c: &[C], x: C) -> C {
    c.iter().fold(C::new(0.0, 0.0), |acc, &v| acc * x + v)
}

/// Roots of the polynomial `c` (highest power first) by Aberth-Ehrlich iteration, polished by
/// Newton steps; leading zeros are dropped and trailing zeros give roots at 0 (as `np.roots`).
pub(crate) fn roots(c: &[C]) -> Vec<C> {
    let start = c.iter().position(|v| v.norm() != 0.0).unwrap_or(c.len());
    let c = &c[start..];
    if c.len() <= 1 {
        return vec![];
    }
    let end = c.iter().rposition(|v| v.norm() != 0.0).unwrap_or(0);
    let nzeros = c.len() - 1 - end;
    let c: Vec<C> = c[..=end].iter().map(|v| v / c[0]).collect();
    let n = c.len() - 1;
    let mut out = vec![C::new(0.0, 0.0); nzeros];
    if n == 0 {
        return out;
    }
    let dc: Vec<C> = (0..n).map(|i| c[i] * (n - i) as f64).collect();
    // initial points on a circle of the mean root radius
    let radius = c[n].norm().powf(1.0 / n as f64).max(1e-3);
    let mut z: Vec<C> = (0..n).map(|k| C::from_polar(radius, 2.0 * PI * k as f64 / n as f64 + 0.4)).collect();
    for _ in 0..500 {
        let mut moved = 0.0f64;
        for i in 0..n {
            let p = polyval(&c, z[i]);
            let dp = polyval(&dc, z[i]);
            if p.norm() == 0.0 {
                continue;
            }
            let ratio = p / dp;
            let mut s = C::new(0.0, 0.0);
            for j in 0..n {
                if j != i {
                    s += C::new(1.0, 0.0) / (z[i] - z[j]);
                }
            }
            let w = ratio / (C::new(1.0, 0.0) - ratio * s);
            z[i] -= w;
            moved = moved.max(w.norm() / z[i].norm().max(1e-300));
        }
        if moved < 1e-15 {
            break;
        }
    }
    for zi in &mut z {
        for _ in 0..3 {
            let p = polyval(&c, *zi);
            let dp = polyval(&dc, *zi);
            if dp.norm() == 0.0 {
                break;
            }
            let step = p / dp;
            if !step.re.is_finite() || !step.im.is_finite() {
                break;
            }
            *zi -= step;
        }
    }
    out.extend(z);
    out
}

/// Whether the complex `v` come in exact conjugate pairs (SciPy's test for real coefficients).
fn conjugate_paired(v: &[C]) -> bool {
    let mut pos: Vec<C> = v.iter().copied().filter(|x| x.im > 0.0).collect();
    let mut neg: Vec<C> = v.iter().copied().filter(|x| x.im < 0.0).map(|x| x.conj()).collect();
    if pos.len() != neg.len() {
        return false;
    }
    let key = |a: &C, b: &C| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im));
    pos.sort_by(key);
    neg.sort_by(key);
    pos == neg
}

pub(super) fn prod(v: &[C]) -> C {
    v.iter().fold(C::new(1.0, 0.0), |a, &b| a * b)
}

pub(super) fn c_array(v: &[C]) -> Result<Array> {
    Array::from_vec(v.to_vec())
}

pub(super) fn host_c(a: &Array) -> Result<Vec<C>> {
    a.astype(DType::C128)?.ascontiguous()?.to_vec::<C>()
}

pub(super) fn host_f(op: &str, a: &Array) -> Result<Vec<f64>> {
    if a.dtype().is_complex() {
        return Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![a.dtype()],
            detail: "complex coefficients are not supported here".into(),
        });
    }
    a.astype(DType::F64)?.ascontiguous()?.to_vec::<f64>()
}

pub(super) fn one_d(op: &str, a: &Array) -> Result<()> {
    if a.ndim() > 1 {
        return Err(Error::value(op, format!("expected a 1-d array, got shape {:?}", a.shape())));
    }
    Ok(())
}

// ---- zpk <-> tf <-> sos ---------------------------------------------------------------------

/// Host `zpk2tf` for 1-d zeros: `(b, a)` real when the roots are conjugate-paired.
fn zpk2tf_h(z: &[C], p: &[C], k: f64) -> (Vec<C>, Vec<C>, bool, bool) {
    let b: Vec<C> = poly(z).into_iter().map(|v| v * k).collect();
    let a = poly(p);
    (b, a, conjugate_paired(z), conjugate_paired(p))
}

pub(super) fn real_or_complex(v: Vec<C>, real: bool) -> Result<Array> {
    if real {
        Array::from_vec(v.iter().map(|x| x.re).collect::<Vec<f64>>())
    } else {
        Array::from_vec(v)
    }
}

/// SciPy's `zpk2tf(z, p, k)`: numerator and denominator of the zeros, poles and gain (1-d
/// zeros). The coefficients are float64 when the roots come in conjugate pairs.
pub fn zpk2tf(z: &Array, p: &Array, k: f64) -> Result<(Array, Array)> {
    one_d("zpk2tf", z)?;
    one_d("zpk2tf", p)?;
    let (zh, ph) = (host_c(z)?, host_c(p)?);
    let real_in = !z.dtype().is_complex() && !p.dtype().is_complex();
    let (b, a, rb, ra) = zpk2tf_h(&zh, &ph, k);
    Ok((real_or_complex(b, real_in || rb)?, real_or_complex(a, real_in || ra)?))
}

/// SciPy's `normalize(b, a)` for 1-d coefficients: leading zeros of `a` and `b` removed, both
/// divided by `a[0]`.
pub(super) fn normalize_h(b: &[f64], a: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    let a0 = a
        .iter()
        .position(|v| *v != 0.0)
        .ok_or_else(|| Error::value("normalize", "Denominator must have at least on nonzero element."))?;
    let a = &a[a0..];
    let mut b: Vec<f64> = b.iter().map(|v| v / a[0]).collect();
    let a: Vec<f64> = a.iter().map(|v| v / a[0]).collect();
    let lead = b.iter().position(|v| *v != 0.0).unwrap_or(b.len().saturating_sub(1));
    b.drain(..lead);
    Ok((b, a))
}

/// SciPy's `tf2zpk(b, a)`: zeros, poles (complex128) and gain of a transfer function.
pub fn tf2zpk(b: &Array, a: &Array) -> Result<(Array, Array, f64)> {
    one_d("tf2zpk", b)?;
    one_d("tf2zpk", a)?;
    let (b, a) = normalize_h(&host_f("tf2zpk", b)?, &host_f("tf2zpk", a)?)?;
    let (z, p, k) = tf2zpk_h(&b, &a);
    Ok((c_array(&z)?, c_array(&p)?, k))
}

fn tf2zpk_h(b: &[f64], a: &[f64]) -> (Vec<C>, Vec<C>, f64) {
    let k = b.first().copied().unwrap_or(0.0);
    let bc: Vec<C> = b.iter().map(|v| C::new(v / if k == 0.0 { 1.0 } else { k }, 0.0)).collect();
    let ac: Vec<C> = a.iter().map(|v| C::new(*v, 0.0)).collect();
    (roots(&bc), roots(&ac), k)
}

/// SciPy's `_cplxreal`: conjugate pairs (one member, positive imaginary part, sorted by real
/// part then |imag|) followed by the real values (sorted).
fn cplxreal(z: &[C]) -> Result<Vec<C>> {
    let tol = 100.0 * f64::EPSILON;
    let mut real: Vec<f64> = vec![];
    let mut pos: Vec<C> = vec![];
    let mut neg: Vec<C> = vec![];
    for &v in z {
        if v.im.abs() <= tol * v.norm() {
            real.push(v.re);
        } else if v.im > 0.0 {
            pos.push(v);
        } else {
            neg.push(v);
        }
    }
    if pos.len() != neg.len() {
        return Err(Error::value("zpk2sos", "Array contains complex value with no matching conjugate."));
    }
    let key = |a: &C, b: &C| a.re.total_cmp(&b.re).then(a.im.abs().total_cmp(&b.im.abs()));
    pos.sort_by(key);
    neg.sort_by(key);
    let mut out: Vec<C> = Vec::with_capacity(z.len());
    for (p, n) in pos.iter().zip(&neg) {
        if (*p - n.conj()).norm() > tol * 100.0 * p.norm().max(1.0) {
            return Err(Error::value("zpk2sos", "Array contains complex value with no matching conjugate."));
        }
        out.push((p + n.conj()) / 2.0);
    }
    real.sort_by(|a, b| a.total_cmp(b));
    out.extend(real.into_iter().map(|r| C::new(r, 0.0)));
    Ok(out)
}

fn is_real(v: C) -> bool {
    v.im == 0.0
}

#[derive(PartialEq)]
enum Which {
    Any,
    Real,
    Complex,
}

fn nearest_idx(fro: &[C], to: C, which: Which) -> Option<usize> {
    let mut order: Vec<usize> = (0..fro.len()).collect();
    order.sort_by(|&a, &b| (fro[a] - to).norm().total_cmp(&(fro[b] - to).norm()));
    order.into_iter().find(|&i| match which {
        Which::Any => true,
        Which::Real => is_real(fro[i]),
        Which::Complex => !is_real(fro[i]),
    })
}

/// One section `[b0 b1 b2 1 a1 a2]` from up to two zeros and two poles.
fn single_sos(z: &[C], p: &[C]) -> [f64; 6] {
    let b = poly(z);
    let a = poly(p);
    let mut s = [0.0; 6];
    for (i, v) in b.iter().enumerate() {
        s[3 - b.len() + i] = v.re;
    }
    for (i, v) in a.iter().enumerate() {
        s[6 - a.len() + i] = v.re;
    }
    s
}

fn zpk2sos_h(z: &[C], p: &[C], k: f64, pairing: Pairing) -> Result<Vec<[f64; 6]>> {
    if z.is_empty() && p.is_empty() {
        return Ok(vec![[k, 0.0, 0.0, 1.0, 0.0, 0.0]]);
    }
    let mut z = z.to_vec();
    let mut p = p.to_vec();
    while p.len() < z.len() {
        p.push(C::new(0.0, 0.0));
    }
    while z.len() < p.len() {
        z.push(C::new(0.0, 0.0));
    }
    let n_sections = p.len().div_ceil(2);
    if p.len() % 2 == 1 && pairing == Pairing::Nearest {
        p.push(C::new(0.0, 0.0));
        z.push(C::new(0.0, 0.0));
    }
    let mut z = cplxreal(&z)?;
    let mut p = cplxreal(&p)?;
    let mut sos = Vec::with_capacity(n_sections);
    for _ in 0..n_sections {
        let i1 = (0..p.len()).min_by(|&a, &b| (1.0 - p[a].norm()).abs().total_cmp(&(1.0 - p[b].norm()).abs())).unwrap();
        let p1 = p.remove(i1);
        let nreal_p = p.iter().filter(|v| is_real(**v)).count();
        let nreal_z = z.iter().filter(|v| is_real(**v)).count();
        if is_real(p1) && nreal_p == 0 {
            let zi = nearest_idx(&z, p1, Which::Real).ok_or_else(|| Error::value("zpk2sos", "no real zero to pair"))?;
            let z1 = z.remove(zi);
            sos.push(single_sos(&[z1, C::new(0.0, 0.0)], &[p1, C::new(0.0, 0.0)]));
        } else if p.len() + 1 == z.len() && !is_real(p1) && nreal_p == 1 && nreal_z == 1 {
            let zi = nearest_idx(&z, p1, Which::Complex)
                .ok_or_else(|| Error::value("zpk2sos", "no complex zero to pair"))?;
            let z1 = z.remove(zi);
            sos.push(single_sos(&[z1, z1.conj()], &[p1, p1.conj()]));
        } else {
            let p2 = if is_real(p1) {
                let i2 = (0..p.len())
                    .filter(|&i| is_real(p[i]))
                    .min_by(|&a, &b| (p[a].norm() - 1.0).abs().total_cmp(&(p[b].norm() - 1.0).abs()))
                    .unwrap();
                p.remove(i2)
            } else {
                p1.conj()
            };
            if !z.is_empty() {
                let zi = nearest_idx(&z, p1, Which::Any).unwrap();
                let z1 = z.remove(zi);
                if !is_real(z1) {
                    sos.push(single_sos(&[z1, z1.conj()], &[p1, p2]));
                } else if !z.is_empty() {
                    let zi2 = nearest_idx(&z, p1, Which::Real)
                        .ok_or_else(|| Error::value("zpk2sos", "no real zero to pair"))?;
                    let z2 = z.remove(zi2);
                    sos.push(single_sos(&[z1, z2], &[p1, p2]));
                } else {
                    sos.push(single_sos(&[z1], &[p1, p2]));
                }
            } else {
                sos.push(single_sos(&[], &[p1, p2]));
            }
        }
    }
    sos.reverse();
    for v in &mut sos[0][..3] {
        *v *= k;
    }
    Ok(sos)
}

fn sos_array(sos: &[[f64; 6]]) -> Result<Array> {
    let flat: Vec<f64> = sos.iter().flatten().copied().collect();
    Array::from_slice(&flat, &[sos.len(), 6])
}

/// SciPy's `zpk2sos(z, p, k, pairing)` for digital filters: second-order sections, `(n, 6)`.
pub fn zpk2sos(z: &Array, p: &Array, k: f64, pairing: Option<Pairing>) -> Result<Array> {
    one_d("zpk2sos", z)?;
    one_d("zpk2sos", p)?;
    sos_array(&zpk2sos_h(&host_c(z)?, &host_c(p)?, k, pairing.unwrap_or_default())?)
}

/// SciPy's `tf2sos(b, a, pairing)`: `zpk2sos(*tf2zpk(b, a))`.
pub fn tf2sos(b: &Array, a: &Array, pairing: Option<Pairing>) -> Result<Array> {
    let (z, p, k) = tf2zpk(b, a)?;
    zpk2sos(&z, &p, k, pairing)
}

fn sos_host(op: &str, sos: &Array) -> Result<Vec<[f64; 6]>> {
    if sos.ndim() != 2 || sos.shape()[1] != 6 {
        return Err(Error::value(op, format!("sos array must be shape (n_sections, 6), got {:?}", sos.shape())));
    }
    let v = host_f(op, sos)?;
    let rows: Vec<[f64; 6]> = v.chunks(6).map(|c| [c[0], c[1], c[2], c[3], c[4], c[5]]).collect();
    if rows.iter().any(|r| r[3] != 1.0) {
        return Err(Error::value(op, "sos[:, 3] should be all ones"));
    }
    Ok(rows)
}

/// SciPy's `sos2tf(sos)`: the numerator and denominator of the cascade.
pub fn sos2tf(sos: &Array) -> Result<(Array, Array)> {
    let rows = sos_host("sos2tf", sos)?;
    let mut b = vec![1.0];
    let mut a = vec![1.0];
    for r in rows {
        b = convolve_h(&b, &r[..3]);
        a = convolve_h(&a, &r[3..]);
    }
    Ok((Array::from_vec(b)?, Array::from_vec(a)?))
}

/// SciPy's `sos2zpk(sos)`: zeros and poles of every section (two each), and the total gain.
pub fn sos2zpk(sos: &Array) -> Result<(Array, Array, f64)> {
    let rows = sos_host("sos2zpk", sos)?;
    let (mut z, mut p, mut k) = (vec![], vec![], 1.0);
    for r in rows {
        let (zz, pp, kk) = tf2zpk_h(&r[..3], &r[3..]);
        let lead = r[..3].iter().position(|v| *v != 0.0).unwrap_or(2);
        let (zz, kk) = if lead > 0 {
            (roots(&r[lead..3].iter().map(|v| C::new(v / r[lead], 0.0)).collect::<Vec<_>>()), r[lead])
        } else {
            (zz, kk)
        };
        z.extend(zz.iter().copied());
        z.extend(std::iter::repeat_n(C::new(0.0, 0.0), 2 - zz.len()));
        p.extend(pp.iter().copied());
        p.extend(std::iter::repeat_n(C::new(0.0, 0.0), 2usize.saturating_sub(pp.len())));
        k *= kk;
    }
    Ok((c_array(&z)?, c_array(&p)?, k))
}

fn convolve_h(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

// ---- analog prototypes ----------------------------------------------------------------------

pub(super) type Zpk = (Vec<C>, Vec<C>, f64);

/// Butterworth analog prototype.
fn buttap(n: usize) -> Zpk {
    let p = (0..n)
        .map(|i| {
            let m = -(n as f64) + 1.0 + 2.0 * i as f64;
            -C::from_polar(1.0, PI * m / (2.0 * n as f64))
        })
        .collect();
    (vec![], p, 1.0)
}

fn cheb1ap(n: usize, rp: f64) -> Zpk {
    if n == 0 {
        return (vec![], vec![], 10f64.powf(-rp / 20.0));
    }
    let eps = (10f64.powf(0.1 * rp) - 1.0).sqrt();
    let mu = (1.0 / eps).asinh() / n as f64;
    let p: Vec<C> = (0..n)
        .map(|i| {
            let m = -(n as f64) + 1.0 + 2.0 * i as f64;
            -(C::new(mu, PI * m / (2.0 * n as f64))).sinh()
        })
        .collect();
    let mut k = prod(&p.iter().map(|v| -v).collect::<Vec<_>>()).re;
    if n.is_multiple_of(2) {
        k /= (1.0 + eps * eps).sqrt();
    }
    (vec![], p, k)
}

fn cheb2ap(n: usize, rs: f64) -> Zpk {
    if n == 0 {
        return (vec![], vec![], 1.0);
    }
    let de = 1.0 / (10f64.powf(0.1 * rs) - 1.0).sqrt();
    let mu = (1.0 / de).asinh() / n as f64;
    let nn = n as i64;
    let ms: Vec<i64> = if n % 2 == 1 {
        (-nn + 1..0).step_by(2).chain((2..nn).step_by(2)).collect()
    } else {
        (-nn + 1..nn).step_by(2).collect()
    };
    let z: Vec<C> = ms.iter().map(|&m| C::new(0.0, 1.0 / (m as f64 * PI / (2.0 * n as f64)).sin())).collect();
    let p: Vec<C> = (0..n)
        .map(|i| {
            let m = -(n as f64) + 1.0 + 2.0 * i as f64;
            let e = -C::from_polar(1.0, PI * m / (2.0 * n as f64));
            C::new(1.0, 0.0) / C::new(mu.sinh() * e.re, mu.cosh() * e.im)
        })
        .collect();
    let k = (prod(&p.iter().map(|v| -v).collect::<Vec<_>>()) / prod(&z.iter().map(|v| -v).collect::<Vec<_>>())).re;
    (z, p, k)
}

fn agm(mut a: f64, mut b: f64) -> f64 {
    for _ in 0..64 {
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
        let an = 0.5 * (a + b);
        b = (a * b).sqrt();
        a = an;
    }
    0.5 * (a + b)
}

/// `K(1 - p)`, the complete elliptic integral of parameter `1 - p`.
pub(super) fn ellipkm1(p: f64) -> f64 {
    if p == 0.0 {
        return f64::INFINITY;
    }
    PI / (2.0 * agm(1.0, p.sqrt()))
}

/// `K(m)`, the complete elliptic integral of the first kind of parameter `m`.
pub(super) fn ellipk(m: f64) -> f64 {
    ellipkm1(1.0 - m)
}

/// Jacobi `sn, cn, dn` of `u` and parameter `m` by the arithmetic-geometric mean (A&S 16.4).
fn ellipj(u: f64, m: f64) -> (f64, f64, f64) {
    if m < 1e-300 {
        return (u.sin(), u.cos(), 1.0);
    }
    let mut a = vec![1.0];
    let mut c = vec![m.sqrt()];
    let mut b = (1.0 - m).sqrt();
    let mut n = 0;
    while c[n].abs() > 1e-17 && n < 30 {
        let an = 0.5 * (a[n] + b);
        let cn = 0.5 * (a[n] - b);
        b = (a[n] * b).sqrt();
        a.push(an);
        c.push(cn);
        n += 1;
    }
    let mut phi = 2f64.powi(n as i32) * a[n] * u;
    let mut prev = phi;
    for i in (1..=n).rev() {
        prev = phi;
        phi = 0.5 * (phi + (c[i] / a[i] * phi.sin()).asin());
    }
    let sn = phi.sin();
    let cn = phi.cos();
    let dn = if n == 0 { (1.0 - m * sn * sn).sqrt() } else { cn / (prev - phi).cos() };
    (sn, cn, dn)
}

fn complement(k: C) -> C {
    ((C::new(1.0, 0.0) - k) * (C::new(1.0, 0.0) + k)).sqrt()
}

/// The inverse of Jacobi's `sn` for complex `w` by descending Landen transformations.
fn arc_jac_sn(w: C, m: f64) -> Result<C> {
    let k = m.sqrt();
    if k > 1.0 {
        return Err(Error::value("ellip", "elliptic modulus above 1"));
    }
    if k == 1.0 {
        return Ok(w.atanh());
    }
    let mut ks = vec![C::new(k, 0.0)];
    while ks.last().unwrap().norm() != 0.0 {
        if ks.len() > 12 {
            return Err(Error::value("ellip", "Landen transformation not converging"));
        }
        let kp = complement(*ks.last().unwrap());
        ks.push((C::new(1.0, 0.0) - kp) / (C::new(1.0, 0.0) + kp));
    }
    let kk = ks[1..].iter().fold(C::new(1.0, 0.0), |acc, v| acc * (C::new(1.0, 0.0) + v)) * (PI / 2.0);
    let mut wn = w;
    for i in 0..ks.len() - 1 {
        let (kn, knext) = (ks[i], ks[i + 1]);
        wn = 2.0 * wn / ((C::new(1.0, 0.0) + knext) * (C::new(1.0, 0.0) + complement(kn * wn)));
    }
    Ok(kk * (2.0 / PI) * wn.asin())
}

fn arc_jac_sc1(w: f64, m: f64) -> Result<f64> {
    let z = arc_jac_sn(C::new(0.0, w), m)?;
    Ok(z.im)
}

/// The degree equation: the modulus `m` of an order-`n` elliptic filter with `m1`.
fn ellipdeg(n: usize, m1: f64) -> f64 {
    let k1 = ellipk(m1);
    let k1p = ellipkm1(m1);
    let q1 = (-PI * k1p / k1).exp();
    let q = q1.powf(1.0 / n as f64);
    let num: f64 = (0..=7).map(|m| q.powi(m * (m + 1))).sum();
    let den: f64 = 1.0 + 2.0 * (1..=7).map(|m| q.powi(m * m)).sum::<f64>();
    16.0 * q * (num / den).powi(4)
}

fn ellipap(n: usize, rp: f64, rs: f64) -> Result<Zpk> {
    if n == 0 {
        return Ok((vec![], vec![], 10f64.powf(-rp / 20.0)));
    }
    if n == 1 {
        let p = -(1.0 / (10f64.powf(0.1 * rp) - 1.0)).sqrt();
        return Ok((vec![], vec![C::new(p, 0.0)], -p));
    }
    let eps_sq = 10f64.powf(0.1 * rp) - 1.0;
    let eps = eps_sq.sqrt();
    let ck1_sq = eps_sq / (10f64.powf(0.1 * rs) - 1.0);
    if ck1_sq == 0.0 {
        return Err(Error::value("ellip", "Cannot design a filter with given rp and rs specifications."));
    }
    let val0 = ellipk(ck1_sq);
    let m = ellipdeg(n, ck1_sq);
    let capk = ellipk(m);
    let js: Vec<usize> = ((1 - n % 2)..n).step_by(2).collect();
    let scd: Vec<(f64, f64, f64)> = js.iter().map(|&j| ellipj(j as f64 * capk / n as f64, m)).collect();
    let mut z: Vec<C> =
        scd.iter().filter(|(s, _, _)| s.abs() > EPSILON).map(|(s, _, _)| C::new(0.0, 1.0 / (m.sqrt() * s))).collect();
    let zc: Vec<C> = z.iter().map(|v| v.conj()).collect();
    z.extend(zc);
    let r = arc_jac_sc1(1.0 / eps, ck1_sq)?;
    let v0 = capk * r / (n as f64 * val0);
    let (sv, cv, dv) = ellipj(v0, 1.0 - m);
    let mut p: Vec<C> =
        scd.iter().map(|&(s, c, d)| -(C::new(c * d * sv * cv, s * dv)) / (1.0 - (d * sv).powi(2))).collect();
    if n % 2 == 1 {
        let scale = p.iter().map(|v| v.norm_sqr()).sum::<f64>().sqrt();
        let newp: Vec<C> = p.iter().filter(|v| v.im.abs() > EPSILON * scale).map(|v| v.conj()).collect();
        p.extend(newp);
    } else {
        let pc: Vec<C> = p.iter().map(|v| v.conj()).collect();
        p.extend(pc);
    }
    let mut k = (prod(&p.iter().map(|v| -v).collect::<Vec<_>>()) / prod(&z.iter().map(|v| -v).collect::<Vec<_>>())).re;
    if n.is_multiple_of(2) {
        k /= (1.0 + eps_sq).sqrt();
    }
    Ok((z, p, k))
}

fn besselap(n: usize, norm: BesselNorm) -> Result<Zpk> {
    if n == 0 {
        return Ok((vec![], vec![], 1.0));
    }
    // reverse Bessel polynomial theta_n(s) = sum_k (2n-k)! / (2^(n-k) k! (n-k)!) s^k, monic
    let coef = |k: usize| -> f64 {
        // (2n-k)! / ((n-k)! k! 2^(n-k)) computed as a product to stay finite
        let mut v = 1.0;
        for i in (n - k + 1)..=(2 * n - k) {
            v *= i as f64;
        }
        for i in 1..=k {
            v /= i as f64;
        }
        v / 2f64.powi((n - k) as i32)
    };
    let c: Vec<C> = (0..=n).rev().map(|k| C::new(coef(k), 0.0)).collect();
    let a_last = coef(0);
    let mut p = roots(&c);
    // make conjugates exact and real poles real
    for v in &mut p {
        if v.im.abs() < 1e-13 * v.norm() {
            v.im = 0.0;
        }
    }
    match norm {
        BesselNorm::Delay => Ok((vec![], p, a_last)),
        BesselNorm::Phase => {
            let s = 10f64.powf(-a_last.log10() / n as f64);
            Ok((vec![], p.iter().map(|v| v * s).collect(), 1.0))
        }
        BesselNorm::Mag => {
            let mag =
                |w: f64| -> f64 { a_last / prod(&p.iter().map(|v| C::new(0.0, w) - v).collect::<Vec<_>>()).norm() };
            let target = 1.0 / 2f64.sqrt();
            let (mut lo, mut hi) = (1e-6, 1.0);
            while mag(hi) > target {
                hi *= 2.0;
            }
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if mag(mid) > target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let w = 0.5 * (lo + hi);
            Ok((vec![], p.iter().map(|v| v / w).collect(), a_last / w.powi(n as i32)))
        }
    }
}

// ---- transforms -----------------------------------------------------------------------------

pub(super) fn neg_prod(v: &[C]) -> C {
    prod(&v.iter().map(|x| -x).collect::<Vec<_>>())
}

pub(super) fn lp2lp(z: &[C], p: &[C], k: f64, wo: f64) -> Zpk {
    let degree = p.len() as i32 - z.len() as i32;
    (z.iter().map(|v| v * wo).collect(), p.iter().map(|v| v * wo).collect(), k * wo.powi(degree))
}

pub(super) fn lp2hp(z: &[C], p: &[C], k: f64, wo: f64) -> Zpk {
    let degree = p.len() - z.len();
    let mut zh: Vec<C> = z.iter().map(|v| wo / v).collect();
    zh.extend(std::iter::repeat_n(C::new(0.0, 0.0), degree));
    let ph = p.iter().map(|v| wo / v).collect();
    (zh, ph, k * (neg_prod(z) / neg_prod(p)).re)
}

pub(super) fn lp2bp(z: &[C], p: &[C], k: f64, wo: f64, bw: f64) -> Zpk {
    let degree = p.len() - z.len();
    let split = |v: &[C]| -> Vec<C> {
        let l: Vec<C> = v.iter().map(|x| x * bw / 2.0).collect();
        let mut out: Vec<C> = l.iter().map(|x| x + (x * x - wo * wo).sqrt()).collect();
        out.extend(l.iter().map(|x| x - (x * x - wo * wo).sqrt()));
        out
    };
    let mut zb = split(z);
    zb.extend(std::iter::repeat_n(C::new(0.0, 0.0), degree));
    (zb, split(p), k * bw.powi(degree as i32))
}

pub(super) fn lp2bs(z: &[C], p: &[C], k: f64, wo: f64, bw: f64) -> Zpk {
    let degree = p.len() - z.len();
    let split = |v: &[C]| -> Vec<C> {
        // A complex quotient (not real / complex), so that the sign of a zero imaginary part,
        // and with it the branch `sqrt` takes for real poles, is NumPy's.
        let h: Vec<C> = v.iter().map(|x| C::new(bw / 2.0, 0.0) / x).collect();
        let mut out: Vec<C> = h.iter().map(|x| x + (x * x - wo * wo).sqrt()).collect();
        out.extend(h.iter().map(|x| x - (x * x - wo * wo).sqrt()));
        out
    };
    let mut zb = split(z);
    zb.extend(std::iter::repeat_n(C::new(0.0, wo), degree));
    zb.extend(std::iter::repeat_n(C::new(0.0, -wo), degree));
    (zb, split(p), k * (neg_prod(z) / neg_prod(p)).re)
}

pub(super) fn bilinear(z: &[C], p: &[C], k: f64, fs: f64) -> Zpk {
    let degree = p.len() - z.len();
    let fs2 = C::new(2.0 * fs, 0.0);
    let mut zz: Vec<C> = z.iter().map(|v| (fs2 + v) / (fs2 - v)).collect();
    let pz = p.iter().map(|v| (fs2 + v) / (fs2 - v)).collect();
    zz.extend(std::iter::repeat_n(C::new(-1.0, 0.0), degree));
    let kz = k
        * (prod(&z.iter().map(|v| fs2 - v).collect::<Vec<_>>()) / prod(&p.iter().map(|v| fs2 - v).collect::<Vec<_>>()))
            .re;
    (zz, pz, kz)
}

// ---- IIR design -----------------------------------------------------------------------------

/// SciPy's `iirfilter(N, Wn, rp, rs, btype, analog, ftype, output, fs)`: an order-`n` digital
/// (or analog) filter of the prototype `ftype`. `wn` holds one edge (low/high-pass) or two
/// (band-pass/stop), normalised to Nyquist = 1 unless `fs` is given.
pub fn iirfilter(
    n: usize,
    wn: &[f64],
    ftype: FType,
    btype: BType,
    analog: bool,
    output: Output,
    fs: Option<f64>,
) -> Result<Filter> {
    let op = "iirfilter";
    let mut wn = wn.to_vec();
    if let Some(fs) = fs {
        if analog {
            return Err(Error::value(op, "fs cannot be specified for an analog filter"));
        }
        for w in &mut wn {
            *w = 2.0 * *w / fs;
        }
    }
    if wn.iter().any(|w| !w.is_finite() || *w <= 0.0) {
        return Err(Error::value(op, "filter critical frequencies must be greater than 0"));
    }
    let band = matches!(btype, BType::Bandpass | BType::Bandstop);
    if band && wn.len() != 2 {
        return Err(Error::value(op, "Wn must specify start and stop frequencies for bandpass or bandstop filter"));
    }
    if !band && wn.len() != 1 {
        return Err(Error::value(op, "Wn must be a scalar for lowpass or highpass filters"));
    }
    if band && wn[0] >= wn[1] {
        return Err(Error::value(op, "Wn[0] must be less than Wn[1]"));
    }
    if !analog && wn.iter().any(|w| *w >= 1.0) {
        let msg = if let Some(fs) = fs {
            format!("Digital filter critical frequencies must be 0 < Wn < fs/2 (fs={fs} -> fs/2={})", fs / 2.0)
        } else {
            "Digital filter critical frequencies must be 0 < Wn < 1".to_string()
        };
        return Err(Error::value(op, msg));
    }
    let (z, p, k) = match ftype {
        FType::Butter => buttap(n),
        FType::Cheby1 { rp } => {
            if rp <= 0.0 {
                return Err(Error::value(op, "passband ripple (rp) must be positive"));
            }
            cheb1ap(n, rp)
        }
        FType::Cheby2 { rs } => {
            if rs <= 0.0 {
                return Err(Error::value(op, "stopband attenuation (rs) must be positive"));
            }
            cheb2ap(n, rs)
        }
        FType::Ellip { rp, rs } => {
            if rp <= 0.0 || rs <= 0.0 {
                return Err(Error::value(op, "passband ripple (rp) and stopband attenuation (rs) must be positive"));
            }
            ellipap(n, rp, rs)?
        }
        FType::Bessel { norm } => besselap(n, norm)?,
    };
    let (warped, fsd) = if analog {
        (wn.clone(), 0.0)
    } else {
        (wn.iter().map(|w| 4.0 * (PI * w / 2.0).tan()).collect::<Vec<_>>(), 2.0)
    };
    let (z, p, k) = match btype {
        BType::Lowpass => lp2lp(&z, &p, k, warped[0]),
        BType::Highpass => lp2hp(&z, &p, k, warped[0]),
        BType::Bandpass => lp2bp(&z, &p, k, (warped[0] * warped[1]).sqrt(), warped[1] - warped[0]),
        BType::Bandstop => lp2bs(&z, &p, k, (warped[0] * warped[1]).sqrt(), warped[1] - warped[0]),
    };
    let (z, p, k) = if analog { (z, p, k) } else { bilinear(&z, &p, k, fsd) };
    match output {
        Output::Zpk => Ok(Filter::Zpk(c_array(&z)?, c_array(&p)?, k)),
        Output::Ba => {
            let (b, a, _, _) = zpk2tf_h(&z, &p, k);
            Ok(Filter::Ba(real_or_complex(b, true)?, real_or_complex(a, true)?))
        }
        Output::Sos => {
            if analog {
                return Err(Error::Unsupported("iirfilter: 'sos' output of analog filters".into()));
            }
            Ok(Filter::Sos(sos_array(&zpk2sos_h(&z, &p, k, Pairing::Nearest)?)?))
        }
    }
}

/// SciPy's `butter(N, Wn, btype, analog, output, fs)`.
pub fn butter(n: usize, wn: &[f64], btype: BType, analog: bool, output: Output, fs: Option<f64>) -> Result<Filter> {
    iirfilter(n, wn, FType::Butter, btype, analog, output, fs)
}

/// SciPy's `cheby1(N, rp, Wn, btype, analog, output, fs)`.
pub fn cheby1(
    n: usize,
    rp: f64,
    wn: &[f64],
    btype: BType,
    analog: bool,
    output: Output,
    fs: Option<f64>,
) -> Result<Filter> {
    iirfilter(n, wn, FType::Cheby1 { rp }, btype, analog, output, fs)
}

/// SciPy's `cheby2(N, rs, Wn, btype, analog, output, fs)`.
pub fn cheby2(
    n: usize,
    rs: f64,
    wn: &[f64],
    btype: BType,
    analog: bool,
    output: Output,
    fs: Option<f64>,
) -> Result<Filter> {
    iirfilter(n, wn, FType::Cheby2 { rs }, btype, analog, output, fs)
}

/// SciPy's `ellip(N, rp, rs, Wn, btype, analog, output, fs)`.
#[allow(clippy::too_many_arguments)]
pub fn ellip(
    n: usize,
    rp: f64,
    rs: f64,
    wn: &[f64],
    btype: BType,
    analog: bool,
    output: Output,
    fs: Option<f64>,
) -> Result<Filter> {
    iirfilter(n, wn, FType::Ellip { rp, rs }, btype, analog, output, fs)
}

/// SciPy's `bessel(N, Wn, btype, analog, output, norm, fs)`.
#[allow(clippy::too_many_arguments)]
pub fn bessel(
    n: usize,
    wn: &[f64],
    btype: BType,
    analog: bool,
    output: Output,
    norm: BesselNorm,
    fs: Option<f64>,
) -> Result<Filter> {
    iirfilter(n, wn, FType::Bessel { norm }, btype, analog, output, fs)
}

fn notch_peak(op: &str, w0: f64, q: f64, fs: f64, peak: bool) -> Result<(Array, Array)> {
    if !(w0 > 0.0 && w0 < fs / 2.0) {
        return Err(Error::value(op, format!("w0 should be such that 0 < w0 < fs/2 (fs={fs} -> fs/2={})", fs / 2.0)));
    }
    let w0 = 2.0 * w0 / fs;
    let bw = w0 / q * PI;
    let w0 = w0 * PI;
    let beta = (bw / 2.0).tan();
    let gain = 1.0 / (1.0 + beta);
    let b = if peak { vec![1.0 - gain, 0.0, -(1.0 - gain)] } else { vec![gain, -2.0 * gain * w0.cos(), gain] };
    let a = vec![1.0, -2.0 * gain * w0.cos(), 2.0 * gain - 1.0];
    Ok((Array::from_vec(b)?, Array::from_vec(a)?))
}

/// SciPy's `iirnotch(w0, Q, fs=2.0)`: a second-order notch at `w0` with quality `Q`.
pub fn iirnotch(w0: f64, q: f64, fs: Option<f64>) -> Result<(Array, Array)> {
    notch_peak("iirnotch", w0, q, fs.unwrap_or(2.0), false)
}

/// SciPy's `iirpeak(w0, Q, fs=2.0)`: a second-order resonator at `w0` with quality `Q`.
pub fn iirpeak(w0: f64, q: f64, fs: Option<f64>) -> Result<(Array, Array)> {
    notch_peak("iirpeak", w0, q, fs.unwrap_or(2.0), true)
}

// ---- FIR design -----------------------------------------------------------------------------

/// `pass_zero` of [`firwin`]: a bool or SciPy's band-type string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassZero {
    /// `True`/`False`.
    Bool(bool),
    /// `'lowpass'`, `'highpass'`, `'bandpass'` or `'bandstop'`.
    BType(BType),
}

impl Default for PassZero {
    fn default() -> Self {
        PassZero::Bool(true)
    }
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        (PI * x).sin() / (PI * x)
    }
}

/// SciPy's `kaiser_atten(numtaps, width)`.
pub fn kaiser_atten(numtaps: usize, width: f64) -> f64 {
    2.285 * (numtaps as f64 - 1.0) * PI * width + 7.95
}

/// SciPy's `kaiser_beta(a)`.
pub fn kaiser_beta(a: f64) -> f64 {
    if a > 50.0 {
        0.1102 * (a - 8.7)
    } else if a > 21.0 {
        0.5842 * (a - 21.0).powf(0.4) + 0.07886 * (a - 21.0)
    } else {
        0.0
    }
}

/// SciPy's `firwin(numtaps, cutoff, width=None, window='hamming', pass_zero=True, scale=True,
/// fs=None)`: a linear-phase FIR filter by the window method.
pub fn firwin(
    numtaps: usize,
    cutoff: &[f64],
    width: Option<f64>,
    window: Option<&Window>,
    pass_zero: PassZero,
    scale: bool,
    fs: Option<f64>,
) -> Result<Array> {
    let op = "firwin";
    let nyq = 0.5 * fs.unwrap_or(2.0);
    let cutoff: Vec<f64> = cutoff.iter().map(|c| c / nyq).collect();
    if cutoff.is_empty() {
        return Err(Error::value(op, "At least one cutoff frequency must be given."));
    }
    if cutoff.iter().any(|&c| c <= 0.0 || c >= 1.0) {
        return Err(Error::value(
            op,
            "Invalid cutoff frequency: frequencies must be greater than 0 and less than fs/2.",
        ));
    }
    if cutoff.windows(2).any(|w| w[1] <= w[0]) {
        return Err(Error::value(op, "Invalid cutoff frequencies: the frequencies must be strictly increasing."));
    }
    let win = match width {
        Some(w) => Window::Kaiser(kaiser_beta(kaiser_atten(numtaps, w / nyq))),
        None => window.cloned().unwrap_or(Window::Hamming),
    };
    let pz = match pass_zero {
        PassZero::Bool(b) => b,
        PassZero::BType(t) => {
            let (pz, ok) = match t {
                BType::Lowpass | BType::Highpass => (t == BType::Lowpass, cutoff.len() == 1),
                BType::Bandpass | BType::Bandstop => (t == BType::Bandstop, cutoff.len() > 1),
            };
            if !ok {
                return Err(Error::value(
                    op,
                    format!("cutoff must have the right number of elements for pass_zero={t:?}"),
                ));
            }
            pz
        }
    };
    let pass_nyquist = (cutoff.len() % 2 == 1) ^ pz;
    if pass_nyquist && numtaps.is_multiple_of(2) {
        return Err(Error::value(
            op,
            "A filter with an even number of coefficients must have zero response at the Nyquist frequency.",
        ));
    }
    let mut edges = vec![];
    if pz {
        edges.push(0.0);
    }
    edges.extend(&cutoff);
    if pass_nyquist {
        edges.push(1.0);
    }
    let alpha = 0.5 * (numtaps as f64 - 1.0);
    let m: Vec<f64> = (0..numtaps).map(|i| i as f64 - alpha).collect();
    let mut h = vec![0.0; numtaps];
    for band in edges.chunks(2) {
        let (l, r) = (band[0], band[1]);
        for (hi, mi) in h.iter_mut().zip(&m) {
            *hi += r * sinc(r * mi) - l * sinc(l * mi);
        }
    }
    let w = win.samples(numtaps, true)?;
    for (hi, wi) in h.iter_mut().zip(&w) {
        *hi *= wi;
    }
    if scale {
        let (l, r) = (edges[0], edges[1]);
        let f = if l == 0.0 {
            0.0
        } else if r == 1.0 {
            1.0
        } else {
            0.5 * (l + r)
        };
        let s: f64 = h.iter().zip(&m).map(|(hi, mi)| hi * (PI * mi * f).cos()).sum();
        for hi in &mut h {
            *hi /= s;
        }
    }
    Array::from_vec(h)
}

/// SciPy's `firwin2(numtaps, freq, gain, nfreqs=None, window='hamming', antisymmetric=False,
/// fs=None)`: a FIR filter by frequency sampling.
pub fn firwin2(
    numtaps: usize,
    freq: &[f64],
    gain: &[f64],
    nfreqs: Option<usize>,
    window: Option<&Window>,
    antisymmetric: bool,
    fs: Option<f64>,
) -> Result<Array> {
    let op = "firwin2";
    let nyq = 0.5 * fs.unwrap_or(2.0);
    if freq.len() != gain.len() {
        return Err(Error::value(op, "freq and gain must be of same length."));
    }
    let nfreqs = nfreqs.unwrap_or(1 + (1usize << (numtaps as f64).log2().ceil() as u32));
    if numtaps >= nfreqs {
        return Err(Error::value(
            op,
            format!("ntaps must be less than nfreqs, but firwin2 was called with ntaps={numtaps} and nfreqs={nfreqs}"),
        ));
    }
    if freq.is_empty() || freq[0] != 0.0 || freq[freq.len() - 1] != nyq {
        return Err(Error::value(op, "freq must start with 0 and end with fs/2."));
    }
    if freq.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::value(op, "The values in freq must be nondecreasing."));
    }
    let ftype = match (antisymmetric, numtaps % 2 == 1) {
        (false, true) => 1,
        (false, false) => 2,
        (true, true) => 3,
        (true, false) => 4,
    };
    let last = gain[gain.len() - 1];
    if ftype == 2 && last != 0.0 {
        return Err(Error::value(op, "A Type II filter must have zero gain at the Nyquist frequency."));
    }
    if ftype == 3 && (gain[0] != 0.0 || last != 0.0) {
        return Err(Error::value(op, "A Type III filter must have zero gain at zero and Nyquist frequencies."));
    }
    if ftype == 4 && gain[0] != 0.0 {
        return Err(Error::value(op, "A Type IV filter must have zero gain at zero frequency."));
    }
    let mut freq = freq.to_vec();
    let eps = f64::EPSILON * nyq;
    for k in 0..freq.len() - 1 {
        if freq[k] == freq[k + 1] {
            freq[k] -= eps;
            freq[k + 1] += eps;
        }
    }
    let interp = |x: f64| -> f64 {
        if x <= freq[0] {
            return gain[0];
        }
        for i in 0..freq.len() - 1 {
            if x <= freq[i + 1] {
                let t = (x - freq[i]) / (freq[i + 1] - freq[i]);
                return gain[i] + t * (gain[i + 1] - gain[i]);
            }
        }
        last
    };
    let xs: Vec<f64> = (0..nfreqs).map(|i| nyq * i as f64 / (nfreqs - 1) as f64).collect();
    let spec: Vec<C> = xs
        .iter()
        .map(|&x| {
            let mut s = C::from_polar(interp(x), -(numtaps as f64 - 1.0) / 2.0 * PI * x / nyq);
            if ftype > 2 {
                s *= C::new(0.0, 1.0);
            }
            s
        })
        .collect();
    // inverse real DFT of length 2 (nfreqs - 1), first numtaps outputs
    let n = 2 * (nfreqs - 1);
    let w = window.cloned().unwrap_or(Window::Hamming).samples(numtaps, true)?;
    let mut out: Vec<f64> = (0..numtaps)
        .map(|t| {
            let mut s = spec[0].re + if t % 2 == 0 { spec[nfreqs - 1].re } else { -spec[nfreqs - 1].re };
            for (k, v) in spec.iter().enumerate().take(nfreqs - 1).skip(1) {
                let ang = 2.0 * PI * ((k * t) % n) as f64 / n as f64;
                s += 2.0 * (v * C::from_polar(1.0, ang)).re;
            }
            s / n as f64 * w[t]
        })
        .collect();
    if ftype == 3 {
        out[numtaps / 2] = 0.0;
    }
    Array::from_vec(out)
}

/// Solves `A x = b` (dense, host) by Gaussian elimination with partial pivoting.
fn solve_dense(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Result<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap();
        if a[piv][col] == 0.0 {
            return Err(Error::value("firls", "singular least-squares system"));
        }
        a.swap(col, piv);
        b.swap(col, piv);
        for r in col + 1..n {
            let f = a[r][col] / a[col][col];
            if f != 0.0 {
                let (top, bottom) = a.split_at_mut(r);
                for (x, p) in bottom[0][col..].iter_mut().zip(&top[col][col..]) {
                    *x -= f * p;
                }
                b[r] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|c| a[r][c] * x[c]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Ok(x)
}

/// SciPy's `firls(numtaps, bands, desired, weight=None, fs=None)`: the odd-length linear-phase
/// FIR filter minimising the weighted squared error to a piecewise-linear desired response.
pub fn firls(numtaps: usize, bands: &[f64], desired: &[f64], weight: Option<&[f64]>, fs: Option<f64>) -> Result<Array> {
    let op = "firls";
    let nyq = 0.5 * fs.unwrap_or(2.0);
    if numtaps.is_multiple_of(2) || numtaps < 1 {
        return Err(Error::value(op, format!("numtaps must be odd and >= 1, got {numtaps}")));
    }
    if !bands.len().is_multiple_of(2) || bands.is_empty() {
        return Err(Error::value(op, "bands must contain frequency pairs."));
    }
    if desired.len() != bands.len() {
        return Err(Error::value(op, "desired must have one entry per frequency."));
    }
    let nb = bands.len() / 2;
    let bands: Vec<f64> = bands.iter().map(|b| b / nyq).collect();
    if bands.iter().any(|&b| !(0.0..=1.0).contains(&b)) {
        return Err(Error::value(op, "bands must be between 0 and 1 relative to Nyquist"));
    }
    if bands.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::value(op, "bands must be monotonically nondecreasing"));
    }
    let weight: Vec<f64> = weight.map(<[f64]>::to_vec).unwrap_or(vec![1.0; nb]);
    if weight.len() != nb {
        return Err(Error::value(op, "weight must be the same size as the number of band pairs."));
    }
    let m = (numtaps - 1) / 2;
    // q[n] = sum_b w_b (f_hi sinc(f_hi n) - f_lo sinc(f_lo n))
    let q: Vec<f64> = (0..numtaps)
        .map(|n| {
            (0..nb)
                .map(|b| {
                    let (lo, hi) = (bands[2 * b], bands[2 * b + 1]);
                    weight[b] * (hi * sinc(hi * n as f64) - lo * sinc(lo * n as f64))
                })
                .sum()
        })
        .collect();
    let qm: Vec<Vec<f64>> = (0..=m).map(|i| (0..=m).map(|j| q[i.abs_diff(j)] + q[i + j]).collect()).collect();
    let rhs: Vec<f64> = (0..=m)
        .map(|n| {
            (0..nb)
                .map(|b| {
                    let (f0, f1) = (bands[2 * b], bands[2 * b + 1]);
                    let (d0, d1) = (desired[2 * b], desired[2 * b + 1]);
                    let slope = (d1 - d0) / (f1 - f0);
                    let c = d0 - f0 * slope;
                    let term = |f: f64| -> f64 {
                        let mut v = f * (slope * f + c) * sinc(f * n as f64);
                        if n == 0 {
                            v -= slope * f * f / 2.0;
                        } else {
                            v += slope * (n as f64 * PI * f).cos() / (PI * n as f64).powi(2);
                        }
                        v
                    };
                    weight[b] * (term(f1) - term(f0))
                })
                .sum()
        })
        .collect();
    let a = solve_dense(qm, rhs)?;
    let mut h: Vec<f64> = a[1..].iter().rev().copied().collect();
    h.push(2.0 * a[0]);
    h.extend_from_slice(&a[1..]);
    Array::from_vec(h)
}

// ---- frequency responses --------------------------------------------------------------------

/// The frequencies of a response: a count (spread over `[0, π)` or `[0, 2π)`) or explicit
/// frequencies in the units of `fs`.
#[derive(Debug, Clone)]
pub enum WorN {
    /// This many equally spaced frequencies.
    N(usize),
    /// These frequencies (units of `fs`).
    Freqs(Array),
}

impl Default for WorN {
    fn default() -> Self {
        WorN::N(512)
    }
}

/// Angular frequencies (rad/sample) on the device, and the frequencies to report in `fs`'s
/// units.
fn response_grid(op: &str, wor_n: &WorN, whole: bool, fs: f64, include_nyquist: bool) -> Result<(Array, Array)> {
    match wor_n {
        WorN::N(n) => {
            let last = if whole { 2.0 * PI } else { PI };
            let endpoint = !whole && include_nyquist;
            let w = crate::linspace(0.0, last, *n, endpoint, Some(DType::F64))?;
            let shown = w.mul_scalar(fs / (2.0 * PI))?;
            Ok((w, shown))
        }
        WorN::Freqs(f) => {
            if f.ndim() > 1 {
                return Err(Error::value(op, "worN must be a 1-d array"));
            }
            let f = f.astype(DType::F64)?;
            Ok((f.mul_scalar(2.0 * PI / fs)?, f))
        }
    }
}

/// `Σ c_k e^{-jωk}` on the device by Horner's rule in `e^{-jω}`.
pub(super) fn poly_at(c: &[C], zm1: &Array) -> Result<Array> {
    let mut acc: Option<Array> = None;
    for &v in c.iter().rev() {
        acc = Some(match acc {
            None => zm1.mul_scalar(0.0)?.add_scalar(Scalar::Complex(v.re, v.im))?,
            Some(a) => a.mul(zm1)?.add_scalar(Scalar::Complex(v.re, v.im))?,
        });
    }
    match acc {
        Some(a) => Ok(a),
        None => zm1.mul_scalar(0.0),
    }
}

fn exp_neg_j(w: &Array) -> Result<Array> {
    w.mul_scalar(Scalar::Complex(0.0, -1.0))?.exp()
}

/// SciPy's `freqz(b, a=1, worN=512, whole=False, fs=2π, include_nyquist=False)`: the
/// frequencies (units of `fs`) and the complex response `B(e^{jω}) / A(e^{jω})`.
pub fn freqz(
    b: &Array,
    a: Option<&Array>,
    wor_n: &WorN,
    whole: bool,
    fs: Option<f64>,
    include_nyquist: bool,
) -> Result<(Array, Array)> {
    one_d("freqz", b)?;
    let fs = fs.unwrap_or(2.0 * PI);
    let (w, shown) = response_grid("freqz", wor_n, whole, fs, include_nyquist)?;
    let zm1 = exp_neg_j(&w)?;
    let bh = host_c(b)?;
    let num = poly_at(&bh, &zm1)?;
    let h = match a {
        Some(a) => {
            one_d("freqz", a)?;
            num.div(&poly_at(&host_c(a)?, &zm1)?)?
        }
        None => num,
    };
    Ok((shown, h))
}

/// SciPy's `freqz_sos(sos, worN=512, whole=False, fs=2π)` (formerly `sosfreqz`): the response
/// of a cascade of second-order sections.
pub fn sosfreqz(sos: &Array, wor_n: &WorN, whole: bool, fs: Option<f64>) -> Result<(Array, Array)> {
    let rows = sos_host("sosfreqz", sos)?;
    let fs = fs.unwrap_or(2.0 * PI);
    let (w, shown) = response_grid("sosfreqz", wor_n, whole, fs, false)?;
    let zm1 = exp_neg_j(&w)?;
    let mut h: Option<Array> = None;
    for r in rows {
        let b: Vec<C> = r[..3].iter().map(|v| C::new(*v, 0.0)).collect();
        let a: Vec<C> = r[3..].iter().map(|v| C::new(*v, 0.0)).collect();
        let s = poly_at(&b, &zm1)?.div(&poly_at(&a, &zm1)?)?;
        h = Some(match h {
            None => s,
            Some(h) => h.mul(&s)?,
        });
    }
    Ok((shown, h.ok_or_else(|| Error::value("sosfreqz", "sos has no sections"))?))
}

/// SciPy's `group_delay((b, a), w=512, whole=False, fs=2π)`: frequencies and the group delay
/// `-dφ/dω` in samples, from `Re(Σ k c_k z^-k / Σ c_k z^-k)` with `c = b * conj(reverse(a))`.
/// Where the denominator vanishes the delay is 0 (SciPy warns there).
pub fn group_delay(b: &Array, a: &Array, w: &WorN, whole: bool, fs: Option<f64>) -> Result<(Array, Array)> {
    one_d("group_delay", b)?;
    one_d("group_delay", a)?;
    let fs = fs.unwrap_or(2.0 * PI);
    let (wr, shown) = response_grid("group_delay", w, whole, fs, false)?;
    let (bh, ah) = (host_c(b)?, host_c(a)?);
    let ar: Vec<C> = ah.iter().rev().map(|v| v.conj()).collect();
    let mut c = vec![C::new(0.0, 0.0); bh.len() + ar.len() - 1];
    for (i, x) in bh.iter().enumerate() {
        for (j, y) in ar.iter().enumerate() {
            c[i + j] += x * y;
        }
    }
    let cr: Vec<C> = c.iter().enumerate().map(|(i, v)| v * i as f64).collect();
    let zm1 = exp_neg_j(&wr)?;
    let num = poly_at(&cr, &zm1)?;
    let den = poly_at(&c, &zm1)?;
    let singular = den.abs()?.lt(Operand::Scalar(Scalar::Float(10.0 * f64::EPSILON)))?;
    let gd = num.div(&den)?.real().add_scalar(-(ah.len() as f64 - 1.0))?;
    let gd = crate::where_(&singular, Operand::Scalar(Scalar::Float(0.0)), (&gd).into())?;
    Ok((shown, gd))
}
