//! B-spline signal processing: SciPy's `cspline1d`, `qspline1d`, their `_eval`,
//! `gauss_spline` and `symiirorder1`.
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
//! The evaluators sum the 4 (3) B-spline basis functions around each point in one elementwise
//! kernel, points outside `[0, N − 1]` reflected about the ends.
//!
//! **dtypes**: `cspline1d`/`qspline1d` give float64; `cspline1d_eval` gives the
//! coefficients' dtype and `qspline1d_eval` the points' (float32 or float64), as SciPy's; `gauss_spline` and `symiirorder1` keep float32.

use std::sync::OnceLock;

use xp_backend_api::{DType, Error, Result};

use super::lines::{cast, kernel, last, line_ids, Lines};
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
fn forward_backward(x: &Array, y0: &Array, z: f64, c: f64, e: f64) -> Result<Array> {
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
    let f = |v: f64| Operand::Scalar(Scalar::Float(v));
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
    let out = forward_backward(&x, &y0, zi, -zi, zi / (zi - 1.0))?;
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
T u2 = e1[line], u1 = e0[line];
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
    static K2: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern = kernel(
        &K2,
        "int64 line, raw T x, raw T s0, raw T s1, raw T e0, raw T e1, T cs, T a1, T a2, int64 len",
        "raw T y, int8 done",
        FB2,
        "xp_signal_symiir2",
    )?;
    let y = Array::empty_on(&dev, &[1, k], DType::F64)?;
    let f = |v: f64| Operand::Scalar(Scalar::Float(v));
    kern.call_all(&[
        Operand::Array(&line_ids(&dev, 1)?),
        Operand::Array(&x),
        Operand::Array(&s0.ascontiguous()?),
        Operand::Array(&s1.ascontiguous()?),
        Operand::Array(&e1.ascontiguous()?),
        Operand::Array(&e0.ascontiguous()?),
        f(cs),
        f(2.0 * rho * omega.cos()),
        f(rho * rho),
        Operand::Scalar(Scalar::Int(k as i128)),
        Operand::Array(&y),
        Operand::Array(&Array::empty_on(&dev, &[1], DType::I8)?),
    ])?;
    y.reshape(&[-1])
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

/// SciPy's `symiirorder1(input, c0, z1, precision)`: the 1-d `input` through the symmetric
/// first-order filter `c0 / ((1 − z1 q⁻¹)(1 − z1 q))` with mirror-symmetric boundaries.
/// `precision` ≤ 0 or > 1 means the default. `|z1| ≥ 1` and a start sum that does not
/// converge within the signal are errors, as SciPy's.
pub fn symiirorder1(input: &Array, c0: f64, z1: f64, precision: f64) -> Result<Array> {
    let op = "symiirorder1";
    if z1.abs() >= 1.0 {
        return Err(Error::value(op, "|z1| must be less than 1.0"));
    }
    if input.ndim() != 1 {
        return Err(Error::value(op, format!("the input must be 1-d, got shape {:?}", input.shape())));
    }
    if input.dtype().is_complex() {
        return Err(Error::unsupported_dtype(op, input.dtype()));
    }
    let dt = if input.dtype() == DType::F32 { DType::F32 } else { DType::F64 };
    let precision = if precision <= 0.0 || precision > 1.0 {
        if dt == DType::F32 {
            1e-6
        } else {
            1e-11
        }
    } else {
        precision
    };
    let lx = Lines::new(op, input, 0, dt)?;
    let k = lx.len();
    // Terms z1^(i+1) x[i] until |z1^m| ≤ precision.
    let mut w = Vec::new();
    let mut pz = 1.0f64;
    loop {
        pz *= z1;
        w.push(pz);
        if !(pz * pz > precision * precision && w.len() < k) {
            break;
        }
    }
    if w.len() >= k {
        return Err(Error::value(op, "Sum to find symmetric boundary conditions did not converge."));
    }
    let dev = input.device_arc();
    let wa = cast(&Array::from_slice_on(&dev, &w, &[w.len()])?, dt)?;
    let y0 = start_sum(&lx.data, &wa)?.add(&last(&lx.data, Some(0), Some(1), None)?.reshape(&[-1])?)?;
    let out = forward_backward(&lx.data, &y0, z1, c0, -c0 / (z1 - 1.0))?;
    lx.restore(&out)
}
