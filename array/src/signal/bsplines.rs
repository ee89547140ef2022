//! B-spline signal processing: SciPy's `cspline1d`, `qspline1d`, their `_eval`,
//! `cspline2d`, `qspline2d`, `spline_filter`, `sepfir2d`, `gauss_spline`, `symiirorder1` and
//! `symiirorder2`.
//!
//! **Algorithm** (Unser, Aldroubi & Eden, "B-spline signal processing", *IEEE Trans. Signal
//! Process.* 41 (1993) 821–848): the interpolating cubic (quadratic) B-spline coefficients are
//! the signal through the symmetric all-pole filter `6 / ((1 − z₁ q⁻¹)(1 − z₁ q))`
//! (`8 / …` for quadratics) with `z₁ = −2 + √3` (`−3 + 2√2`), run as a causal and an
//! anti-causal first-order recursion over mirror-symmetric boundaries. The causal start is a
//! weighted sum of the line (weights `z₁^k` made on the device); both recursions run in one
//! user kernel, one thread per line. `symiirorder1` is the same pair of recursions with the
//! caller's `c0` and `z1`, its start truncated where `|z1|^k` falls below `precision`
//! (`1e-11` for float64, `1e-6` for float32 unless given), as SciPy.
//!
//! The smoothing cubic spline (`cspline1d` with `lamb ≠ 0`, `cspline2d` with `lamb > 1/144`)
//! has a complex pole pair `r e^{±iω}` (§III-B of the paper): a causal and an anti-causal
//! second-order recursion (one kernel, one thread per line). `symiirorder2` runs that pair for
//! the caller's `r`, `ω`: the causal pass starts from the causal filter's response over the
//! mirrored signal (`y[0]`, `y[1]`), the anti-causal pass from the whole symmetric filter's
//! response at the last two samples, each a weighted sum whose weights (the closed-form
//! impulse responses, host-side, their count set by `precision` only) multiply the line on
//! the device. The sums stop where SciPy's C code stops them — after the first causal weight
//! whose square is at most `precision²`, and the first two-sided weight whose square is at
//! most `precision` (not squared) — so the results agree with SciPy's to rounding, including
//! where an oscillating response crosses zero early.
//!
//! The 2-d functions apply the 1-d filter along the last axis and then along the first (lines
//! of a moved axis, as every line filter here), with SciPy's 2-d default precisions (`1e-3`
//! for float32, `1e-6` otherwise). `sepfir2d` is two `ndimage` convolutions with half-sample
//! mirror boundaries (`x[−1] = x[0]`), which is what SciPy's C code reads; `spline_filter` is
//! `cspline2d` followed by `sepfir2d` with the float32 taps `[1, 4, 1] / 6`, as SciPy's.
//!
//! The evaluators sum the 4 (3) B-spline basis functions around each point in one elementwise
//! kernel, points outside `[0, N − 1]` reflected about the ends.
//!
//! **dtypes**: `cspline1d`/`qspline1d` give float64; `cspline1d_eval` gives the
//! coefficients' dtype and `qspline1d_eval` the points' (float32 or float64), as SciPy's;
//! `gauss_spline`, `symiirorder1/2`, `cspline2d`, `qspline2d`, `sepfir2d` and
//! `spline_filter` keep float32 (integers give float64). `symiirorder1` also takes complex
//! input (and complex `c0`, `z1` with it), and the interpolating 2-d splines (`cspline2d`
//! with `lamb ≤ 1/144`, `qspline2d`, `spline_filter` with `lmbda ≤ 1/144`) complex input,
//! filtered with the real pole, as SciPy's; `spline_filter` computes complex in complex64 as
//! SciPy's does. `symiirorder2` and the smoothing splines take real input only (complex is
//! `UnsupportedDType`; SciPy rejects it too).

use std::sync::OnceLock;

use num_complex::Complex64 as C;
use xp_backend_api::{DType, Error, Result};

use super::lines::{cast, device_f64, kernel, last, line_ids, Lines};
use crate::{Array, Operand, Scalar};

const FB1: &str = r#"
const long long o = line * len;
T acc = y0[line];
y[o] = acc;
for (long long t = 1; t < len; ++t) { acc = x[o + t] + z * acc; y[o + t] = acc; }
T out = e * y[o + len - 1];
y[o + len - 1] = out;
for (long long t = len - 2; t >= 0; --t) { out = z * out + c * y[o + t]; y[o + t] = out; }
done = 1;
"#;

/// The causal recursion `yp[n] = x[n] + z yp[n − 1]` from `yp[0] = y0[line]`, then the
/// anti-causal `out[K − 1] = e yp[K − 1]`, `out[n] = z out[n + 1] + c yp[n]`, over `(lines, K)`.
fn forward_backward(x: &Array, y0: &Array, z: C, c: C, e: C) -> Result<Array> {
    static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern = kernel(
        &K,
        "int64 line, raw T x, raw T y0, T z, T c, T e, int64 len",
        "raw T y, int8 done",
        FB1,
        "xp_signal_symiir1",
    )?;
    let dev = x.device_arc();
    let (lines, n) = (x.shape()[0], x.shape()[1]);
    let y = Array::empty_on(&dev, &[lines, n], x.dtype())?;
    if lines == 0 || n == 0 {
        return Ok(y);
    }
    let complex = x.dtype().is_complex();
    let f = |v: C| Operand::Scalar(if complex { Scalar::Complex(v.re, v.im) } else { Scalar::Float(v.re) });
    kern.call_all(&[
        Operand::Array(&line_ids(&dev, lines)?),
        Operand::Array(x),
        Operand::Array(&y0.ascontiguous()?),
        f(z),
        f(c),
        f(e),
        Operand::Scalar(Scalar::Int(n as i128)),
        Operand::Array(&y),
        Operand::Array(&Array::empty_on(&dev, &[lines], DType::I8)?),
    ])?;
    Ok(y)
}

/// `Σ_k w[k] x[line, k]` for the first `w.len()` samples of each line.
fn start_sum(x: &Array, w: &Array) -> Result<Array> {
    let m = w.size() as isize;
    last(x, Some(0), Some(m), None)?.mul(&w.reshape(&[1, m])?)?.sum(Some(&[-1]), false)
}

/// Interpolating B-spline coefficients of `signal` (1-d) with pole `zi` and gain `gain`.
fn spline_coeffs(op: &str, signal: &Array, zi: f64, gain: f64) -> Result<Array> {
    if signal.ndim() != 1 {
        return Err(Error::value(op, format!("the signal must be 1-d, got shape {:?}", signal.shape())));
    }
    if signal.dtype().is_complex() {
        return Err(Error::unsupported_dtype(op, signal.dtype()));
    }
    let x = cast(signal, DType::F64)?.ascontiguous()?.reshape(&[1, -1])?;
    let k = x.shape()[1];
    if k == 0 {
        return signal.astype(DType::F64);
    }
    let dev = x.device_arc();
    // y0 = x[0] + zi Σ_k zi^k x[k]
    let ks = crate::with_device(&dev, || crate::arange(0i64, k as i64, 1i64, Some(DType::F64)))?;
    let w = Array::full_on(&dev, &[k], zi, DType::F64)?.pow(&ks.add_scalar(1.0)?)?;
    let y0 = start_sum(&x, &w)?.add(&last(&x, Some(0), Some(1), None)?.reshape(&[-1])?)?;
    let out = forward_backward(&x, &y0, C::new(zi, 0.0), C::new(-zi, 0.0), C::new(zi / (zi - 1.0), 0.0))?;
    out.mul_scalar(gain)?.reshape(&[-1])
}

/// SciPy's `cspline1d(signal, lamb)`: the cubic B-spline coefficients of the 1-d `signal`
/// with mirror-symmetric boundaries (float64): interpolating for `lamb = 0`, else smoothing
/// with the second-derivative penalty `lamb`.
pub fn cspline1d(signal: &Array, lamb: f64) -> Result<Array> {
    if lamb != 0.0 {
        return smoothing_cubic(signal, lamb);
    }
    spline_coeffs("cspline1d", signal, -2.0 + 3f64.sqrt(), 6.0)
}

const FB2: &str = r#"
const long long o = line * len;
y[o] = s0[line];
y[o + 1] = s1[line];
for (long long t = 2; t < len; ++t) y[o + t] = cs * x[o + t] + a1 * y[o + t - 1] - a2 * y[o + t - 2];
T u2 = tail1[line], u1 = tail2[line];
y[o + len - 1] = u2;
y[o + len - 2] = u1;
for (long long t = len - 3; t >= 0; --t) {
    const T u = cs * y[o + t] + a1 * u1 - a2 * u2;
    y[o + t] = u;
    u2 = u1;
    u1 = u;
}
done = 1;
"#;

/// The smoothing cubic spline (Unser et al. 1993, §III-B): the symmetric second-order filter
/// with the complex pole pair `ρ e^{±iω}` that `lamb` gives, as a causal and an anti-causal
/// second-order recursion whose starts are weighted sums of the signal (weights made on the
/// device from the filter's impulse responses).
fn smoothing_cubic(signal: &Array, lam: f64) -> Result<Array> {
    let op = "cspline1d";
    if signal.ndim() != 1 || signal.dtype().is_complex() {
        return Err(Error::value(
            op,
            format!("the signal must be a real 1-d array, got {} {:?}", signal.dtype(), signal.shape()),
        ));
    }
    let k = signal.size();
    if k < 2 {
        return Err(Error::value(op, "smoothing needs at least 2 samples"));
    }
    let xi = 1.0 - 96.0 * lam + 24.0 * lam * (3.0 + 144.0 * lam).sqrt();
    let omega = (144.0 * lam - 1.0).sqrt().atan2(xi.sqrt());
    let rho = (24.0 * lam - 1.0 - xi.sqrt()) / (24.0 * lam)
        * ((48.0 * lam + 24.0 * lam * (3.0 + 144.0 * lam).sqrt()) / xi).sqrt();
    if !(rho.is_finite() && omega.is_finite()) {
        return Err(Error::value(op, format!("no smoothing spline filter exists for lamb = {lam}")));
    }
    let cs = 1.0 - 2.0 * rho * omega.cos() + rho * rho;
    let x = cast(signal, DType::F64)?.ascontiguous()?;
    let dev = x.device_arc();
    let j = crate::with_device(&dev, || crate::arange(0i64, k as i64, 1i64, Some(DType::F64)))?;
    let rho_a = Array::full_on(&dev, &[k], rho, DType::F64)?;
    // causal impulse response h_c(m) = cs / sin ω · ρ^m sin(ω (m + 1)), m ≥ 0
    let hc = |m: &Array| -> Result<Array> {
        rho_a.pow(m)?.mul(&m.add_scalar(1.0)?.mul_scalar(omega)?.sin()?)?.mul_scalar(cs / omega.sin())
    };
    let c0 =
        cs * cs * (1.0 + rho * rho) / (1.0 - rho * rho) / (1.0 - 2.0 * rho * rho * (2.0 * omega).cos() + rho.powi(4));
    let gamma = (1.0 - rho * rho) / (1.0 + rho * rho) / omega.tan();
    // symmetric impulse response h_s(m) = c0 ρ^|m| (cos ω|m| + γ sin ω|m|)
    let hs = |m: &Array| -> Result<Array> {
        let a = m.abs()?;
        let w = a.mul_scalar(omega)?;
        rho_a.pow(&a)?.mul(&w.cos()?.add(&w.sin()?.mul_scalar(gamma)?)?)?.mul_scalar(c0)
    };
    let hc0 = cs / omega.sin() * omega.sin();
    let hc1 = cs / omega.sin() * rho * (2.0 * omega).sin();
    let dot = |w: &Array| -> Result<Array> { x.mul(w)?.sum(None, false)?.reshape(&[1]) };
    let first = |v: f64, at: i64| -> Result<Array> { j.eq(at)?.astype(DType::F64)?.mul_scalar(v) };
    let s0 = dot(&hc(&j.add_scalar(1.0)?)?.add(&first(hc0, 0)?)?)?;
    let s1 = dot(&hc(&j.add_scalar(2.0)?)?.add(&first(hc0, 0)?)?.add(&first(hc1, 1)?)?)?;
    let kf = k as f64;
    // over the reversed signal: index r = K − 1 − j
    let r = j.mul_scalar(-1.0)?.add_scalar(kf - 1.0)?;
    let e0 = dot(&hs(&r)?.add(&hs(&r.add_scalar(1.0)?)?)?)?;
    let e1 = dot(&hs(&r.add_scalar(-1.0)?)?.add(&hs(&r.add_scalar(2.0)?)?)?)?;
    let y =
        second_order_pair(&x.reshape(&[1, k as isize])?, &s0, &s1, &e0, &e1, cs, 2.0 * rho * omega.cos(), rho * rho)?;
    y.reshape(&[-1])
}

/// The causal recursion `y[n] = cs x[n] + a1 y[n − 1] − a2 y[n − 2]` from `y[0] = s0[line]`,
/// `y[1] = s1[line]`, then the anti-causal `out[n] = cs y[n] + a1 out[n + 1] − a2 out[n + 2]`
/// from `out[K − 1] = tail1[line]`, `out[K − 2] = tail2[line]`, over `(lines, K)` data
/// (`K ≥ 2`), in `x`'s dtype.
#[allow(clippy::too_many_arguments)]
fn second_order_pair(
    x: &Array,
    s0: &Array,
    s1: &Array,
    tail1: &Array,
    tail2: &Array,
    cs: f64,
    a1: f64,
    a2: f64,
) -> Result<Array> {
    static K2: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern = kernel(
        &K2,
        "int64 line, raw T x, raw T s0, raw T s1, raw T tail1, raw T tail2, T cs, T a1, T a2, int64 len",
        "raw T y, int8 done",
        FB2,
        "xp_signal_symiir2",
    )?;
    let dev = x.device_arc();
    let (lines, n) = (x.shape()[0], x.shape()[1]);
    let y = Array::empty_on(&dev, &[lines, n], x.dtype())?;
    if lines == 0 {
        return Ok(y);
    }
    let dt = x.dtype();
    let f = |v: f64| Operand::Scalar(Scalar::Float(v));
    let line = |a: &Array| -> Result<Array> { cast(a, dt)?.ascontiguous() };
    kern.call_all(&[
        Operand::Array(&line_ids(&dev, lines)?),
        Operand::Array(&x.ascontiguous()?),
        Operand::Array(&line(s0)?),
        Operand::Array(&line(s1)?),
        Operand::Array(&line(tail1)?),
        Operand::Array(&line(tail2)?),
        f(cs),
        f(a1),
        f(a2),
        Operand::Scalar(Scalar::Int(n as i128)),
        Operand::Array(&y),
        Operand::Array(&Array::empty_on(&dev, &[lines], DType::I8)?),
    ])?;
    Ok(y)
}

/// SciPy's `qspline1d(signal, lamb)`: the quadratic B-spline coefficients interpolating the
/// 1-d `signal` (float64); `lamb` must be 0, as in SciPy.
pub fn qspline1d(signal: &Array, lamb: f64) -> Result<Array> {
    if lamb != 0.0 {
        return Err(Error::value("qspline1d", "Smoothing quadratic splines not supported yet."));
    }
    spline_coeffs("qspline1d", signal, -3.0 + 2.0 * 2f64.sqrt(), 8.0)
}

const EVAL: &str = r#"
double t = ((double)xv - x0) / dx;
const double top = (double)(len - 1);
for (int it = 0; it < 64 && (t < 0 || t > top); ++it) { if (t < 0) t = -t; if (t > top) t = 2 * top - t; }
double acc = 0.0;
const long long jl = (long long)floor(t - (cubic ? 2.0 : 1.5)) + 1;
for (int q = 0; q < (cubic ? 4 : 3); ++q) {
    const long long j = jl + q;
    long long ij = j < 0 ? 0 : (j > len - 1 ? len - 1 : j);
    const double u = fabs(t - (double)j);
    double b;
    if (cubic) b = u < 1 ? 2.0 / 3.0 - u * u + u * u * u / 2 : (u < 2 ? (2 - u) * (2 - u) * (2 - u) / 6 : 0.0);
    else b = u < 0.5 ? 0.75 - u * u : (u < 1.5 ? (u - 1.5) * (u - 1.5) / 2 : 0.0);
    acc += (double)cj[ij] * b;
}
y = (T)acc;
"#;

fn spline_eval(op: &str, cj: &Array, newx: &Array, dx: f64, x0: f64, cubic: bool) -> Result<Array> {
    if cj.ndim() != 1 || cj.size() == 0 {
        return Err(Error::value(op, format!("cj must be a non-empty 1-d array, got shape {:?}", cj.shape())));
    }
    if cj.dtype().is_complex() {
        return Err(Error::unsupported_dtype(op, cj.dtype()));
    }
    // SciPy's result dtypes: the coefficients' for cubics, the points' for quadratics.
    let like = if cubic { cj.dtype() } else { newx.dtype() };
    let dt = if like == DType::F32 { DType::F32 } else { DType::F64 };
    static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern = kernel(
        &K,
        "float64 xv, raw T cj, int64 len, float64 x0, float64 dx, int64 cubic",
        "T y",
        EVAL,
        "xp_signal_spline_eval",
    )?;
    let out = Array::empty_on(&newx.device_arc(), newx.shape(), dt)?;
    kern.call_all(&[
        Operand::Array(&cast(newx, DType::F64)?),
        Operand::Array(&cast(cj, dt)?.ascontiguous()?),
        Operand::Scalar(Scalar::Int(cj.size() as i128)),
        Operand::Scalar(Scalar::Float(x0)),
        Operand::Scalar(Scalar::Float(dx)),
        Operand::Scalar(Scalar::Int(cubic as i128)),
        Operand::Array(&out),
    ])?;
    Ok(out)
}

/// SciPy's `cspline1d_eval(cj, newx, dx, x0)`: the cubic spline of coefficients `cj` (knots
/// `x0 + k·dx`) at `newx`, mirror-symmetric beyond the ends. SciPy's defaults `1.0`, `0`.
pub fn cspline1d_eval(cj: &Array, newx: &Array, dx: f64, x0: f64) -> Result<Array> {
    spline_eval("cspline1d_eval", cj, newx, dx, x0, true)
}

/// SciPy's `qspline1d_eval(cj, newx, dx, x0)`: the quadratic counterpart of
/// [`cspline1d_eval`].
pub fn qspline1d_eval(cj: &Array, newx: &Array, dx: f64, x0: f64) -> Result<Array> {
    spline_eval("qspline1d_eval", cj, newx, dx, x0, false)
}

/// SciPy's `gauss_spline(x, n)`: the Gaussian approximation `exp(−x² / (2σ²)) / √(2πσ²)`,
/// `σ² = (n + 1) / 12`, of the B-spline basis function of order `n`. float32 stays float32.
pub fn gauss_spline(x: &Array, n: usize) -> Result<Array> {
    if x.dtype().is_complex() {
        return Err(Error::unsupported_dtype("gauss_spline", x.dtype()));
    }
    let dt = if x.dtype() == DType::F32 { DType::F32 } else { DType::F64 };
    let s2 = (n as f64 + 1.0) / 12.0;
    let x = cast(x, dt)?;
    x.square()?.mul_scalar(-1.0 / (2.0 * s2))?.exp()?.mul_scalar(1.0 / (2.0 * std::f64::consts::PI * s2).sqrt())
}

/// The real float dtype the symmetric IIR filters compute in for `x` (SciPy's promotion:
/// float32 stays, other reals give float64; float16 and bfloat16 compute in float32), or
/// `UnsupportedDType` for complex and boolean input.
fn real_float(op: &str, x: &Array) -> Result<DType> {
    match x.dtype() {
        DType::F32 | DType::F16 | DType::BF16 => Ok(DType::F32),
        DType::C64 | DType::C128 | DType::Bool => Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![x.dtype()],
            detail: "the symmetric IIR filters take real input".into(),
        }),
        _ => Ok(DType::F64),
    }
}

/// `precision` ≤ 0 or > 1 replaced by SciPy's default of the C filters for `dt`.
fn default_precision(precision: f64, dt: DType) -> f64 {
    if precision <= 0.0 || precision > 1.0 {
        if matches!(dt, DType::F32 | DType::C64) {
            1e-6
        } else {
            1e-11
        }
    } else {
        precision
    }
}

fn not_converged(op: &str) -> Error {
    Error::value(op, "Sum to find symmetric boundary conditions did not converge.")
}

/// Checks the rank of a `symiirorder*` input (1-d, or 2-d filtered row by row, as SciPy).
fn check_rows(op: &str, x: &Array) -> Result<()> {
    if x.ndim() == 0 || x.ndim() > 2 {
        return Err(Error::value(op, format!("Input must be 1D or 2D, got shape {:?}", x.shape())));
    }
    Ok(())
}

/// The first-order symmetric pair over `(lines, K)` data of a float or complex dtype (`|z1| <
/// 1` checked by the caller; complex `c0`, `z1` only with complex data); `precision` already
/// resolved.
fn symiir1_lines(op: &str, data: &Array, c0: C, z1: C, precision: f64) -> Result<Array> {
    let k = data.shape()[1];
    // Terms z1^(i+1) x[i] until |z1^m| ≤ precision (compared squared, as SciPy's C code).
    let mut w = Vec::new();
    let mut pz = C::new(1.0, 0.0);
    loop {
        pz *= z1;
        w.push(pz);
        if !(pz.norm_sqr() > precision * precision && w.len() < k) {
            break;
        }
    }
    if w.len() >= k {
        return Err(not_converged(op));
    }
    let dev = data.device_arc();
    let wa = if data.dtype().is_complex() {
        cast(&Array::from_slice_on(&dev, &w, &[w.len()])?, data.dtype())?
    } else {
        let re: Vec<f64> = w.iter().map(|v| v.re).collect();
        cast(&Array::from_slice_on(&dev, &re, &[w.len()])?, data.dtype())?
    };
    let y0 = start_sum(data, &wa)?.add(&last(data, Some(0), Some(1), None)?.reshape(&[-1])?)?;
    forward_backward(data, &y0, z1, c0, -c0 / (z1 - 1.0))
}

/// SciPy's `symiirorder1(input, c0, z1, precision)`: `input` (1-d, or 2-d filtered along its
/// rows) through the symmetric first-order filter `c0 / ((1 − z1 q⁻¹)(1 − z1 q))` with
/// mirror-symmetric boundaries. `c0` and `z1` are real or complex (`f64` or
/// `num_complex::Complex64`); complex ones need complex input, as SciPy's. A `precision` of
/// at most 0 or above 1 means the default (`1e-6` for float32 and complex64, `1e-11`
/// otherwise). float32 and complex64 stay, complex128 stays, other reals give float64.
/// `|z1| ≥ 1`, a rank other than 1 or 2, and a start sum that does not converge within the
/// signal are errors, as SciPy's.
pub fn symiirorder1(input: &Array, c0: impl Into<C>, z1: impl Into<C>, precision: f64) -> Result<Array> {
    let op = "symiirorder1";
    let (c0, z1) = (c0.into(), z1.into());
    if z1.norm() >= 1.0 {
        return Err(Error::value(op, "|z1| must be less than 1.0"));
    }
    check_rows(op, input)?;
    let dt = match input.dtype() {
        DType::C64 => DType::C64,
        DType::C128 => DType::C128,
        _ => real_float(op, input)?,
    };
    if !dt.is_complex() && (c0.im != 0.0 || z1.im != 0.0) {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("complex c0 ({c0}) or z1 ({z1}) need a complex input, got {}", input.dtype()),
        });
    }
    let lx = Lines::new(op, input, -1, dt)?;
    let out = symiir1_lines(op, &lx.data, c0, z1, default_precision(precision, dt))?;
    lx.restore(&out)
}

/// The causal response `h_c(k)` of `cs / (1 − a2 q⁻¹ − a3 q⁻²)` (SciPy's `_hc`).
fn hc(k: i64, cs: f64, r: f64, omega: f64) -> f64 {
    if k < 0 {
        return 0.0;
    }
    let rk = r.powi(k as i32);
    if omega == 0.0 {
        cs * rk * (k + 1) as f64
    } else if omega == std::f64::consts::PI {
        cs * rk * (k + 1) as f64 * (1 - 2 * (k % 2)) as f64
    } else {
        cs * rk * (omega * (k + 1) as f64).sin() / omega.sin()
    }
}

/// The symmetric response `h_s(k)` of `cs² / ((1 − a2 q⁻¹ − a3 q⁻²)(1 − a2 q − a3 q²))`
/// (SciPy's `_hs`; `rsq = r²`).
fn hs(k: i64, cs: f64, rsq: f64, omega: f64) -> f64 {
    let k = k.abs();
    let kf = k as f64;
    let rk = rsq.powf(kf / 2.0);
    let cssq = cs * cs;
    if omega == 0.0 || omega == std::f64::consts::PI {
        let c0 = (1.0 + rsq) / ((1.0 - rsq) * (1.0 - rsq) * (1.0 - rsq)) * cssq;
        let sign = if omega == 0.0 { 1.0 } else { (1 - 2 * (k % 2)) as f64 };
        let gamma = (1.0 - rsq) / (1.0 + rsq) * sign;
        return c0 * rk * (1.0 + gamma * kf);
    }
    let c0 = cssq * (1.0 + rsq) / (1.0 - rsq) / (1.0 - 2.0 * rsq * (2.0 * omega).cos() + rsq * rsq);
    let gamma = (1.0 - rsq) / (1.0 + rsq) / omega.tan();
    c0 * rk * ((omega * kf).cos() + gamma * (omega * kf).sin())
}

/// The weights `term(0), term(1), …` up to and including the first whose square is at most
/// `tol`, or `None` when that takes `n` or more terms (SciPy's non-convergence).
fn truncated(n: usize, tol: f64, term: impl Fn(i64) -> f64) -> Option<Vec<f64>> {
    let mut w = Vec::new();
    loop {
        let d = term(w.len() as i64);
        w.push(d);
        if !(d * d > tol && w.len() < n) {
            break;
        }
    }
    (w.len() < n).then_some(w)
}

/// The second-order symmetric pair over `(lines, K)` data of a real float dtype (`r < 1`
/// checked by the caller); `precision` already resolved.
fn symiir2_lines(op: &str, data: &Array, r: f64, omega: f64, precision: f64) -> Result<Array> {
    let n = data.shape()[1];
    let rsq = r * r;
    let cs = 1.0 - 2.0 * r * omega.cos() + rsq;
    // Causal starts y[0], y[1]: the causal filter over the mirrored past, truncated where a
    // weight's square falls to precision² (SciPy's rule, zero crossings of the oscillating
    // response included).
    let p2 = precision * precision;
    let mut f0 = truncated(n, p2, |k| hc(k + 1, cs, r, omega)).ok_or_else(|| not_converged(op))?;
    let mut f1 = truncated(n, p2, |k| hc(k + 2, cs, r, omega)).ok_or_else(|| not_converged(op))?;
    f0[0] += hc(0, cs, r, omega);
    if f1.len() < 2 {
        f1.resize(2, 0.0);
    }
    f1[0] += hc(1, cs, r, omega);
    f1[1] += hc(0, cs, r, omega);
    // Anti-causal starts out[K−1], out[K−2]: the whole symmetric filter at the last samples,
    // truncated where a weight's square falls to precision (not squared: SciPy's rule).
    let b0 = truncated(n, precision, |k| hs(k, cs, rsq, omega) + hs(k + 1, cs, rsq, omega))
        .ok_or_else(|| not_converged(op))?;
    let b1 = truncated(n, precision, |k| hs(k - 1, cs, rsq, omega) + hs(k + 2, cs, rsq, omega))
        .ok_or_else(|| not_converged(op))?;
    let dev = data.device_arc();
    let dt = data.dtype();
    let weights = |w: &[f64]| -> Result<Array> { device_f64(&dev, w, &[w.len()], dt) };
    let s0 = start_sum(data, &weights(&f0)?)?;
    let s1 = start_sum(data, &weights(&f1)?)?;
    let end_sum = |w: &[f64]| -> Result<Array> {
        let rev: Vec<f64> = w.iter().rev().copied().collect();
        let m = w.len() as isize;
        last(data, Some(n as isize - m), None, None)?.mul(&weights(&rev)?.reshape(&[1, m])?)?.sum(Some(&[-1]), false)
    };
    let (t1, t2) = (end_sum(&b0)?, end_sum(&b1)?);
    second_order_pair(data, &s0, &s1, &t1, &t2, cs, 2.0 * r * omega.cos(), rsq)
}

/// SciPy's `symiirorder2(input, r, omega, precision)`: `input` (1-d, or 2-d filtered along
/// its rows) through the symmetric second-order filter
/// `cs² / ((1 − a2 q⁻¹ − a3 q⁻²)(1 − a2 q − a3 q²))`, `a2 = 2 r cos ω`, `a3 = −r²`,
/// `cs = 1 − 2 r cos ω + r²`, with mirror-symmetric boundaries: a causal pass started from
/// the causal filter over the mirrored signal, then an anti-causal pass started from the
/// whole filter's response at the last two samples. The start sums stop where SciPy's do:
/// after the first causal weight whose square is at most `precision²`, and the first
/// two-sided weight whose square is at most `precision`. `precision` ≤ 0 or > 1 means
/// `1e-6` for float32 and `1e-11` otherwise. `r ≥ 1`, complex input, a rank other than 1 or
/// 2, and start sums that need the whole signal are errors, as SciPy's.
///
/// ```
/// # use xp_array::{Array, signal};
/// # xp_array::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let dev = xp_array::device("cpu").unwrap();
/// let x: Vec<f64> = (0..40).map(|i| (i as f64 * 0.3).sin()).collect();
/// let x = Array::from_slice_on(&dev, &x, &[40]).unwrap();
/// let y = signal::symiirorder2(&x, 0.5, 0.4, -1.0).unwrap();
/// assert_eq!(y.shape(), &[40]);
/// ```
pub fn symiirorder2(input: &Array, r: f64, omega: f64, precision: f64) -> Result<Array> {
    let op = "symiirorder2";
    if r >= 1.0 {
        return Err(Error::value(op, "r must be less than 1.0"));
    }
    check_rows(op, input)?;
    let dt = real_float(op, input)?;
    let lx = Lines::new(op, input, -1, dt)?;
    let out = symiir2_lines(op, &lx.data, r, omega, default_precision(precision, dt))?;
    lx.restore(&out)
}

/// `f` applied to the lines of `x` along `axis` (as `dt`), the result put back.
fn along(op: &str, x: &Array, axis: isize, dt: DType, f: impl Fn(&Array) -> Result<Array>) -> Result<Array> {
    let lx = Lines::new(op, x, axis, dt)?;
    lx.restore(&f(&lx.data)?)
}

/// The dtype and default precision of the 2-d spline functions (SciPy's `1e-3` for float32,
/// `1e-6` otherwise, when `precision` is negative or at least 1).
fn spline2d_setup(op: &str, signal: &Array, precision: f64, complex_ok: bool) -> Result<(DType, f64)> {
    if signal.ndim() != 2 {
        return Err(Error::value(op, format!("the input must be a 2-d array, got shape {:?}", signal.shape())));
    }
    let dt = match signal.dtype() {
        DType::C64 | DType::C128 if complex_ok => signal.dtype(),
        DType::C64 | DType::C128 => {
            return Err(Error::UnsupportedDType {
                op: op.into(),
                dtypes: vec![signal.dtype()],
                detail: "the smoothing spline (lamb > 1/144) takes real input".into(),
            })
        }
        _ => real_float(op, signal)?,
    };
    let precision = if (0.0..1.0).contains(&precision) {
        precision
    } else if matches!(signal.dtype(), DType::F32 | DType::C64) {
        1e-3
    } else {
        1e-6
    };
    Ok((dt, precision))
}

/// The pole pair `(r, ω)` of the smoothing cubic spline of `lamb > 1/144` (Unser et al. 1993,
/// §III-B; SciPy's `compute_root_from_lambda`).
fn smoothing_root(lamb: f64) -> (f64, f64) {
    let tmp = (3.0 + 144.0 * lamb).sqrt();
    let xi = 1.0 - 96.0 * lamb + 24.0 * lamb * tmp;
    let omega = ((144.0 * lamb - 1.0) / xi).sqrt().atan();
    let tmp2 = xi.sqrt();
    let r = (24.0 * lamb - 1.0 - tmp2) / (24.0 * lamb) * (48.0 * lamb + 24.0 * lamb * tmp).sqrt() / tmp2;
    (r, omega)
}

/// SciPy's `cspline2d(signal, lamb, precision)`: the cubic B-spline coefficients of the 2-d
/// `signal` with mirror-symmetric boundaries, by the 1-d filter along the last axis and then
/// along the first. `lamb ≤ 1/144` interpolates (the pole `−2 + √3` through
/// [`symiirorder1`]); a larger `lamb` is the smoothing spline of that second-derivative
/// penalty (the complex pole pair through [`symiirorder2`]), as SciPy decides. `precision`
/// outside `[0, 1)` means SciPy's default (`1e-3` for float32, `1e-6` otherwise); the start
/// sums are truncated there, so short lines (about `log(precision) / log|pole|` samples)
/// are a non-convergence error, as SciPy's. float32 stays float32, other reals give float64.
pub fn cspline2d(signal: &Array, lamb: f64, precision: f64) -> Result<Array> {
    let op = "cspline2d";
    let (dt, precision) = spline2d_setup(op, signal, precision, lamb <= 1.0 / 144.0)?;
    if lamb <= 1.0 / 144.0 {
        let r = -2.0 + 3f64.sqrt();
        let f = |l: &Array| symiir1_lines(op, l, C::new(-r * 6.0, 0.0), C::new(r, 0.0), precision);
        return along(op, &along(op, signal, -1, dt, f)?, 0, dt, f);
    }
    let (r, omega) = smoothing_root(lamb);
    let f = |l: &Array| symiir2_lines(op, l, r, omega, precision);
    along(op, &along(op, signal, -1, dt, f)?, 0, dt, f)
}

/// SciPy's `qspline2d(signal, lamb, precision)`: the quadratic B-spline coefficients of the
/// 2-d `signal` (the pole `−3 + 2√2` along the last axis, then the first). `lamb > 0` is an
/// error ("lambda must be negative or zero"), as SciPy's; `precision` as in [`cspline2d`].
pub fn qspline2d(signal: &Array, lamb: f64, precision: f64) -> Result<Array> {
    let op = "qspline2d";
    if lamb > 0.0 {
        return Err(Error::value(op, "lambda must be negative or zero"));
    }
    let (dt, precision) = spline2d_setup(op, signal, precision, true)?;
    let r = -3.0 + 2.0 * 2f64.sqrt();
    let f = |l: &Array| symiir1_lines(op, l, C::new(-r * 8.0, 0.0), C::new(r, 0.0), precision);
    along(op, &along(op, signal, -1, dt, f)?, 0, dt, f)
}

/// SciPy's `sepfir2d(input, hrow, hcol)`: the 2-d `input` convolved with the odd-length 1-d
/// filters `hrow` along its rows (the last axis) and then `hcol` along its columns, the
/// signal extended by half-sample mirror symmetry (`x[−1] = x[0]`, `x[−2] = x[1]`,
/// periodic beyond twice the length) as SciPy's C code. Real and complex input (complex
/// filtered part by part); integers give float64, float32 stays float32. Even-length or
/// non-1-d filters and complex filters are errors.
pub fn sepfir2d(input: &Array, hrow: &Array, hcol: &Array) -> Result<Array> {
    let op = "sepfir2d";
    if input.ndim() != 2 {
        return Err(Error::value(op, format!("the input must be a 2-d array, got shape {:?}", input.shape())));
    }
    for h in [hrow, hcol] {
        if h.ndim() != 1 {
            return Err(Error::value(op, format!("hrow and hcol must be 1-d, got shape {:?}", h.shape())));
        }
        if h.dtype().is_complex() {
            return Err(Error::UnsupportedDType {
                op: op.into(),
                dtypes: vec![input.dtype(), h.dtype()],
                detail: "the filters must be real".into(),
            });
        }
        if h.size() % 2 == 0 {
            return Err(Error::value(op, "hrow and hcol must be odd length"));
        }
    }
    let dt = match input.dtype() {
        DType::F32 | DType::F16 | DType::BF16 => DType::F32,
        DType::C64 => DType::C64,
        DType::C128 => DType::C128,
        DType::Bool => return Err(Error::unsupported_dtype(op, DType::Bool)),
        _ => DType::F64,
    };
    let mode = crate::ndimage::Mode::Reflect;
    let x = cast(input, dt)?;
    let rows = crate::ndimage::convolve1d(&x, hrow, 1, mode, 0.0, 0)?;
    crate::ndimage::convolve1d(&rows, hcol, 0, mode, 0.0, 0)
}

/// SciPy's `spline_filter(Iin, lmbda)`: the 2-d `Iin` smoothed by a cubic smoothing spline
/// of fall-off `lmbda` (SciPy's default `5.0`): the coefficients of [`cspline2d`] (default
/// precision) convolved with the cubic B-spline's samples `[1, 4, 1] / 6` along both axes by
/// [`sepfir2d`]. Those samples are float32 values, as SciPy's, so float64 results agree
/// with SciPy's to the last bits. The result has `Iin`'s dtype: float32, float64, complex64
/// or complex128. Complex input is computed in complex64, as SciPy's (complex128 is rounded
/// to it first), and only by the interpolating spline (`lmbda ≤ 1/144`; a larger `lmbda`
/// with complex input is an `UnsupportedDType` error, where SciPy raises a `TypeError`).
pub fn spline_filter(iin: &Array, lmbda: f64) -> Result<Array> {
    let op = "spline_filter";
    if !matches!(iin.dtype(), DType::F32 | DType::F64 | DType::C64 | DType::C128) {
        return Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![iin.dtype()],
            detail: "Invalid data type for Iin: float32, float64, complex64 or complex128 is needed".into(),
        });
    }
    if iin.dtype().is_complex() && lmbda > 1.0 / 144.0 {
        return Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![iin.dtype()],
            detail: format!("complex input needs lmbda <= 1/144 (the interpolating spline), got {lmbda}"),
        });
    }
    let work = if iin.dtype() == DType::C128 { iin.astype(DType::C64)? } else { iin.clone() };
    let ck = cspline2d(&work, lmbda, -1.0)?;
    let taps = [1.0f32 / 6.0, 4.0f32 / 6.0, 1.0f32 / 6.0];
    let h = Array::from_slice_on(&iin.device_arc(), &taps, &[3])?;
    cast(&sepfir2d(&ck, &h, &h)?, iin.dtype())
}
