//! Elementwise math and small numerical routines composed of the ufuncs and reductions
//! (`fmod`, `logaddexp`, `heaviside`, `sinc`, `nan_to_num`, `around`, `cross`, `trapezoid`,
//! `gcd`, …), the pairs `modf`, `frexp` and `divmod`, and `ediff1d`.

use std::f64::consts::{LN_2, PI};

use xp_backend_api::{DType, DTypeKind, Error, Result};

use crate::layout::normalize_axis;
use crate::promote::{can_cast_safe, promote_types};
use crate::{where_, Array, Operand, Scalar, SliceArg};

/// The dtype a float-only ufunc computes `d` in: `d` itself for floats and complex, else the
/// smallest float to which it converts safely (as NumPy picks a float loop for integers).
pub(crate) fn float_dtype(d: DType) -> DType {
    match d.kind() {
        DTypeKind::Float | DTypeKind::Complex => d,
        _ => [DType::F16, DType::F32, DType::F64].into_iter().find(|&f| can_cast_safe(d, f)).unwrap_or(DType::F64),
    }
}

/// `a` converted to [`float_dtype`] (the array itself when it is already there).
pub(crate) fn as_float(a: &Array) -> Result<Array> {
    let f = float_dtype(a.dtype());
    if f == a.dtype() {
        Ok(a.clone())
    } else {
        a.astype(f)
    }
}

fn refuse_complex(op: &str, arrays: &[&Array]) -> Result<()> {
    match arrays.iter().find(|a| a.dtype().is_complex()) {
        Some(a) => Err(Error::unsupported_dtype(op, a.dtype())),
        None => Ok(()),
    }
}

/// Both operands converted to their common float dtype.
fn float_pair(op: &str, x1: &Array, x2: &Array) -> Result<(Array, Array)> {
    refuse_complex(op, &[x1, x2])?;
    let t = promote_types(float_dtype(x1.dtype()), float_dtype(x2.dtype()));
    let conv = |a: &Array| if a.dtype() == t { Ok(a.clone()) } else { a.astype(t) };
    Ok((conv(x1)?, conv(x2)?))
}

/// NumPy's `fmod(x1, x2)`: the remainder of truncated division, with the sign of `x1` (C's
/// `fmod`; `x % 0` is NaN for floats and 0 for integers).
pub fn fmod(x1: &Array, x2: &Array) -> Result<Array> {
    refuse_complex("fmod", &[x1, x2])?;
    // |x1| mod |x2| is exact, and both are non-negative, so `remainder` is C's fmod there.
    let r = x1.abs()?.rem(&x2.abs()?)?;
    if r.dtype().is_float() {
        r.copysign(x1)
    } else if r.dtype().is_signed_integer() {
        where_(&x1.lt(0)?, (&r.negative()?).into(), (&r).into())
    } else {
        Ok(r)
    }
}

/// `log1p(exp(-|x - y|))` (`two`: `log2(1 + 2**-|x - y|)`) in the pair's dtype. NumPy adds it to
/// the larger argument in that dtype; for the narrower float types each step is computed in
/// float64 and rounded to the dtype, as C's correctly rounded float functions give them, so
/// that every backend (whose float32 `exp2`/`log1p` err differently) gives NumPy's sum.
fn log1p_exp_gap(x: &Array, y: &Array, two: bool) -> Result<Array> {
    let t = x.dtype();
    let d = x.sub(y)?.abs()?.negative()?;
    if !matches!(t, DType::F16 | DType::BF16 | DType::F32) {
        return if two { d.exp2()?.log1p()?.mul_scalar(std::f64::consts::LOG2_E) } else { d.exp()?.log1p() };
    }
    // Each step correctly rounded to the dtype, as C's float functions round them.
    let step =
        |a: &Array, f: &dyn Fn(&Array) -> Result<Array>| -> Result<Array> { f(&a.astype(DType::F64)?)?.astype(t) };
    let e = step(&d, &|a| if two { a.exp2() } else { a.exp() })?;
    let l = step(&e, &|a| a.log1p())?;
    if two {
        l.mul(&Array::scalar_on(&l.device_arc(), std::f64::consts::LOG2_E, t)?)
    } else {
        Ok(l)
    }
}

/// NumPy's `logaddexp(x1, x2)`: `log(exp(x1) + exp(x2))` without overflow.
pub fn logaddexp(x1: &Array, x2: &Array) -> Result<Array> {
    let (x, y) = float_pair("logaddexp", x1, x2)?;
    let big = x.maximum(&y)?;
    let rest = log1p_exp_gap(&x, &y, false)?;
    // Equal arguments (±inf included) give x + log 2, as NumPy.
    where_(&x.eq(&y)?, (&x.add_scalar(LN_2)?).into(), (&big.add(&rest)?).into())
}

/// NumPy's `logaddexp2(x1, x2)`: `log2(2**x1 + 2**x2)` without overflow.
pub fn logaddexp2(x1: &Array, x2: &Array) -> Result<Array> {
    let (x, y) = float_pair("logaddexp2", x1, x2)?;
    let big = x.maximum(&y)?;
    let rest = log1p_exp_gap(&x, &y, true)?;
    where_(&x.eq(&y)?, (&x.add_scalar(1)?).into(), (&big.add(&rest)?).into())
}

/// NumPy's `heaviside(x1, x2)`: 0 where `x1 < 0`, `x2` where `x1 == 0`, 1 where `x1 > 0`
/// (NaN stays NaN).
pub fn heaviside(x1: &Array, x2: &Array) -> Result<Array> {
    let (x, h0) = float_pair("heaviside", x1, x2)?;
    let step = x.gt(0)?.astype(x.dtype())?;
    let r = where_(&x.eq(0)?, (&h0).into(), (&step).into())?;
    where_(&x.isnan()?, (&x).into(), (&r).into())
}

/// NumPy's `float_power(x1, x2)`: `x1 ** x2` computed in float64 (complex128 for complex).
pub fn float_power(x1: &Array, x2: &Array) -> Result<Array> {
    let t = if x1.dtype().is_complex() || x2.dtype().is_complex() { DType::C128 } else { DType::F64 };
    x1.astype(t)?.pow(&x2.astype(t)?)
}

/// NumPy's `sinc(x)`: `sin(πx) / (πx)`, 1 at 0.
pub fn sinc(x: &Array) -> Result<Array> {
    let y = where_(&x.eq(0)?, Operand::Scalar(Scalar::Float(1.0e-20)), x.into())?.mul_scalar(PI)?;
    y.sin()?.div(&y)
}

/// NumPy's `deg2rad` (`radians`): `x · π/180`.
pub fn deg2rad(x: &Array) -> Result<Array> {
    refuse_complex("deg2rad", &[x])?;
    as_float(x)?.mul_scalar(PI / 180.0)
}

/// NumPy's `rad2deg` (`degrees`): `x · 180/π`.
pub fn rad2deg(x: &Array) -> Result<Array> {
    refuse_complex("rad2deg", &[x])?;
    as_float(x)?.mul_scalar(180.0 / PI)
}

/// NumPy's `fix(x)`: rounding towards zero (integers unchanged).
pub fn fix(x: &Array) -> Result<Array> {
    refuse_complex("fix", &[x])?;
    if x.dtype().is_float() {
        x.trunc()
    } else {
        x.copy()
    }
}

/// The largest finite value of a float dtype.
fn float_max(d: DType) -> f64 {
    match d {
        DType::F16 => 65504.0,
        DType::BF16 => 3.3895313892515355e38,
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

fn nan_to_num_real(x: &Array, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Array> {
    let big = float_max(x.dtype());
    let inf = x.isinf()?;
    let pos = inf.logical_and(&x.gt(0)?)?;
    let neg = inf.logical_and(&x.lt(0)?)?;
    let r = where_(&x.isnan()?, Operand::Scalar(Scalar::Float(nan)), x.into())?;
    let r = where_(&pos, Operand::Scalar(Scalar::Float(posinf.unwrap_or(big))), (&r).into())?;
    where_(&neg, Operand::Scalar(Scalar::Float(neginf.unwrap_or(-big))), (&r).into())
}

/// The complex array of dtype `t` with real parts `re` and imaginary parts `im` (written
/// into the two halves of each element, so infinities and signed zeros stay as they are).
pub(crate) fn complex_from(re: &Array, im: &Array, t: DType) -> Result<Array> {
    let shape = crate::layout::broadcast_shapes("complex", &[re.shape(), im.shape()])?;
    let out = Array::empty_on(&re.device_arc(), &shape, t)?;
    re.copy_into(&out.real())?;
    im.copy_into(&out.imag()?)?;
    Ok(out)
}

/// NumPy's `nan_to_num(x, nan, posinf, neginf)`: NaN → `nan`, +inf → `posinf` (default the
/// dtype's largest value), -inf → `neginf` (default its most negative); complex parts
/// separately; integers and bools unchanged (a copy).
pub fn nan_to_num(x: &Array, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Array> {
    match x.dtype().kind() {
        DTypeKind::Float => nan_to_num_real(x, nan, posinf, neginf),
        DTypeKind::Complex => {
            let re = nan_to_num_real(&x.real(), nan, posinf, neginf)?;
            let im = nan_to_num_real(&x.imag()?, nan, posinf, neginf)?;
            complex_from(&re, &im, x.dtype())
        }
        _ => x.copy(),
    }
}

/// NumPy's `around(a, decimals)` (`round`): round half to even at `decimals` decimal places
/// (negative: to the left of the point), by scaling with `10**decimals`.
pub fn around(a: &Array, decimals: i32) -> Result<Array> {
    let scaled = |x: &Array| -> Result<Array> {
        if decimals >= 0 {
            let f = 10f64.powi(decimals);
            x.mul_scalar(f)?.rint()?.div(Operand::Scalar(Scalar::Float(f)))
        } else {
            let f = 10f64.powi(-decimals);
            x.div(Operand::Scalar(Scalar::Float(f)))?.rint()?.mul_scalar(f)
        }
    };
    match a.dtype().kind() {
        DTypeKind::Float => scaled(a),
        DTypeKind::Complex => complex_from(&scaled(&a.real())?, &scaled(&a.imag()?)?, a.dtype()),
        DTypeKind::Bool => a.copy(),
        _ if decimals >= 0 => a.copy(),
        // Integers rounded to tens, hundreds…: computed in float64, exact below 2**53.
        _ => scaled(&a.astype(DType::F64)?)?.astype(a.dtype()),
    }
}

/// NumPy's `angle(z, deg)`: the argument of each element (radians, or degrees when `deg`).
pub fn angle(z: &Array, deg: bool) -> Result<Array> {
    let a = if z.dtype().is_complex() {
        z.imag()?.arctan2(&z.real())?
    } else {
        let x = as_float(z)?;
        let zero = Array::scalar_on(&x.device_arc(), 0, x.dtype())?;
        zero.arctan2(&x)?
    };
    if deg {
        a.mul_scalar(180.0 / PI)
    } else {
        Ok(a)
    }
}

/// Component `i` of the vectors along the last axis.
fn component(a: &Array, i: isize) -> Result<Array> {
    a.slice(&[SliceArg::Ellipsis, SliceArg::Index(i)])
}

/// NumPy's `cross(a, b, axis)`: the cross product of the 3-vectors (or 2-vectors, whose
/// missing z is 0) along `axis` of `a` and `b`, which broadcast; two 2-vectors give the z
/// component alone.
pub fn cross(a: &Array, b: &Array, axis: isize) -> Result<Array> {
    let op = "cross";
    let aa = crate::moveaxis(a, &[normalize_axis(op, axis, a.ndim())? as isize], &[-1])?;
    let bb = crate::moveaxis(b, &[normalize_axis(op, axis, b.ndim())? as isize], &[-1])?;
    let (na, nb) = (aa.shape()[aa.ndim() - 1], bb.shape()[bb.ndim() - 1]);
    if !matches!(na, 2 | 3) || !matches!(nb, 2 | 3) {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
            reason: "are incompatible for a cross product (the vectors must have 2 or 3 components)".into(),
        });
    }
    let (a0, a1, b0, b1) = (component(&aa, 0)?, component(&aa, 1)?, component(&bb, 0)?, component(&bb, 1)?);
    let z = a0.mul(&b1)?.sub(&a1.mul(&b0)?)?;
    if na == 2 && nb == 2 {
        return Ok(z);
    }
    let (x, y) = match (na == 3, nb == 3) {
        (true, true) => {
            let (a2, b2) = (component(&aa, 2)?, component(&bb, 2)?);
            (a1.mul(&b2)?.sub(&a2.mul(&b1)?)?, a2.mul(&b0)?.sub(&a0.mul(&b2)?)?)
        }
        // b's z is 0.
        (true, false) => {
            let a2 = component(&aa, 2)?;
            (a2.mul(&b1)?.negative()?, a2.mul(&b0)?)
        }
        // a's z is 0.
        _ => {
            let b2 = component(&bb, 2)?;
            (a1.mul(&b2)?, a0.mul(&b2)?.negative()?)
        }
    };
    let shape = crate::layout::broadcast_shapes(op, &[x.shape(), y.shape(), z.shape()])?;
    let parts: Vec<Array> = [x, y, z].iter().map(|p| p.broadcast_to(&shape)).collect::<Result<_>>()?;
    crate::stack(&parts.iter().collect::<Vec<_>>(), -1)
}

/// The spacing of `trapezoid`: samples `x` or a constant `dx`.
#[derive(Debug, Clone, Copy)]
pub enum Spacing<'a> {
    /// The sample points (1-d along `axis`, or the shape of `y`).
    X(&'a Array),
    /// A constant spacing.
    Dx(f64),
}

/// NumPy's `trapezoid(y, x, dx, axis)`: the integral of `y` along `axis` by the trapezoidal
/// rule.
pub fn trapezoid(y: &Array, spacing: Spacing<'_>, axis: isize) -> Result<Array> {
    let op = "trapezoid";
    let ax = normalize_axis(op, axis, y.ndim())?;
    let n = y.shape()[ax] as isize;
    let part = |start: Option<isize>, stop: Option<isize>| {
        let mut sl = vec![SliceArg::ALL; y.ndim()];
        sl[ax] = SliceArg::Range { start, stop, step: None };
        y.slice(&sl)
    };
    let (hi, lo) = (part(Some(1), None)?, part(None, Some((n - 1).max(0)))?);
    let mid = hi.add(&lo)?;
    let area = match spacing {
        Spacing::Dx(dx) => mid.mul_scalar(dx)?,
        Spacing::X(x) => {
            let d = if x.ndim() == 1 {
                let mut shape = vec![1isize; y.ndim()];
                shape[ax] = x.size() as isize - 1;
                crate::diff(x, 1, 0)?.reshape(&shape)?
            } else {
                crate::diff(x, 1, axis)?
            };
            d.mul(&mid)?
        }
    };
    area.div(Operand::Scalar(Scalar::Float(2.0)))?.sum(Some(&[ax as isize]), false)
}

/// NumPy's `ptp(a, axis, keepdims)`: `max - min` (wrapping for integers, as NumPy).
pub fn ptp(a: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    a.max(axis, keepdims)?.sub(&a.min(axis, keepdims)?)
}

/// NumPy's `count_nonzero(a, axis)`: how many elements are not zero (int64; 0-d for `None`).
pub fn count_nonzero(a: &Array, axis: Option<&[isize]>) -> Result<Array> {
    let nz = if a.dtype() == DType::Bool { a.clone() } else { a.ne(0)? };
    nz.sum(axis, false)?.astype(DType::I64)
}

fn check_integers(op: &str, x1: &Array, x2: &Array) -> Result<()> {
    match [x1, x2].iter().find(|a| !a.dtype().is_integer()) {
        Some(a) => Err(Error::DType { op: op.into(), reason: format!("needs integers, got {}", a.dtype().name()) }),
        None => Ok(()),
    }
}

/// NumPy's `gcd(x1, x2)`: the greatest common divisor of `|x1|` and `|x2|` (0 when both
/// are 0), by Euclid's algorithm over the whole array until every remainder is zero.
pub fn gcd(x1: &Array, x2: &Array) -> Result<Array> {
    check_integers("gcd", x1, x2)?;
    let (mut a, mut b) = (x1.abs()?, x2.abs()?);
    let shape = crate::layout::broadcast_shapes("gcd", &[a.shape(), b.shape()])?;
    a = a.broadcast_to(&shape)?;
    while b.ne(0)?.any(None, false)?.item::<bool>()? {
        let next = a.rem(&b)?;
        a = where_(&b.ne(0)?, (&b).into(), (&a).into())?;
        b = next;
    }
    let t = crate::promote_types(x1.dtype(), x2.dtype());
    a.broadcast_to(&shape)?.astype(t)
}

/// NumPy's `lcm(x1, x2)`: the least common multiple of `|x1|` and `|x2|` (0 when either is 0).
pub fn lcm(x1: &Array, x2: &Array) -> Result<Array> {
    check_integers("lcm", x1, x2)?;
    let g = gcd(x1, x2)?;
    let zero = g.eq(0)?;
    let safe = where_(&zero, Operand::Scalar(Scalar::Int(1)), (&g).into())?;
    let m = x1.abs()?.floor_divide(&safe)?.mul(&x2.abs()?)?.abs()?;
    where_(&zero, Operand::Scalar(Scalar::Int(0)), (&m).into())?.astype(g.dtype())
}

/// NumPy's `modf(x)`: fractional and integral parts, both with `x`'s sign.
pub fn modf(x: &Array) -> Result<(Array, Array)> {
    let x = if x.dtype().is_float() { x.clone() } else { x.astype(DType::F64)? };
    let int = x.trunc()?;
    let frac = where_(&x.isinf()?, Operand::Scalar(Scalar::Float(0.0)), (&x.sub(&int)?).into())?.copysign(&x)?;
    Ok((frac, int))
}

/// NumPy's `frexp(x)`: mantissa in [0.5, 1) (with `x`'s sign) and int32 exponent, `x = m 2^e`.
pub fn frexp(x: &Array) -> Result<(Array, Array)> {
    let x = if x.dtype().is_float() { x.clone() } else { x.astype(DType::F64)? };
    let w = x.astype(DType::F64)?;
    let finite = w.isfinite()?.logical_and(&w.ne(0.0)?)?;
    let safe = where_(&finite, (&w).into(), Operand::Scalar(Scalar::Float(1.0)))?;
    let mut e = safe.abs()?.log2()?.floor()?.add(1.0)?;
    // log2 may round across a power of two: correct the exponent so that 0.5 <= |m| < 1.
    for _ in 0..2 {
        let m = scale2(&safe.abs()?, &e.negative()?)?;
        e = where_(&m.ge(1.0)?, (&e.add(1.0)?).into(), (&e).into())?;
        e = where_(&m.lt(0.5)?, (&e.sub(1.0)?).into(), (&e).into())?;
    }
    let e = where_(&finite, (&e).into(), Operand::Scalar(Scalar::Float(0.0)))?;
    let m = scale2(&w, &e.negative()?)?;
    let m = where_(&finite, (&m).into(), (&w).into())?.astype(x.dtype())?;
    Ok((m, e.astype(DType::I32)?))
}

/// `x 2^k` (float64 `k` holding integers) in two halves, so that neither factor overflows.
fn scale2(x: &Array, k: &Array) -> Result<Array> {
    let half = k.mul(0.5)?.trunc()?;
    let rest = k.sub(&half)?;
    crate::routines::ldexp(&crate::routines::ldexp(x, &half.astype(DType::I32)?)?, &rest.astype(DType::I32)?)
}

/// NumPy's `divmod(x1, x2)`: `(floor_divide(x1, x2), remainder(x1, x2))`.
pub fn divmod(x1: &Array, x2: &Array) -> Result<(Array, Array)> {
    Ok((x1.floor_divide(x2)?, x1.rem(x2)?))
}

/// NumPy's `ediff1d(ary, to_end, to_begin)`: differences of the flattened array, with values
/// put before and after.
pub fn ediff1d(ary: &Array, to_end: Option<&Array>, to_begin: Option<&Array>) -> Result<Array> {
    let flat = ary.ravel()?;
    let d = if flat.size() < 2 {
        Array::empty_on(&flat.device_arc(), &[0], flat.dtype())?
    } else {
        crate::routines::diff(&flat, 1, 0)?
    };
    let mut parts = Vec::new();
    if let Some(b) = to_begin {
        parts.push(b.ravel()?.astype(d.dtype())?);
    }
    parts.push(d);
    if let Some(e) = to_end {
        parts.push(e.ravel()?.astype(parts[0].dtype())?);
    }
    let refs: Vec<&Array> = parts.iter().collect();
    crate::concatenate(&refs, 0)
}
