//! Statistics and calculus composed of the reductions: the NaN-ignoring reductions,
//! `average`, `cov`, `corrcoef`, `gradient`, `unwrap`, and `ldexp`.

use std::f64::consts::PI;

use xp_backend_api::{DType, Error, Result};

use crate::layout::normalize_axis;
use crate::routines::math::as_float;
use crate::{where_, Array, Operand, Scalar, SliceArg};

/// `a` with its NaNs replaced by `fill` (integers and bools have none: `a` itself).
fn nan_filled(a: &Array, fill: f64) -> Result<Array> {
    if a.dtype().is_float() || a.dtype().is_complex() {
        where_(&a.isnan()?, Operand::Scalar(Scalar::Float(fill)), a.into())
    } else {
        Ok(a.clone())
    }
}

/// NumPy's `nansum(a, axis, keepdims)`: the sum with NaNs counted as zero.
pub fn nansum(a: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    nan_filled(a, 0.0)?.sum(axis, keepdims)
}

/// NumPy's `nanprod(a, axis, keepdims)`: the product with NaNs counted as one.
pub fn nanprod(a: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    nan_filled(a, 1.0)?.prod(axis, keepdims)
}

/// NumPy's `nancumsum(a, axis)`: the running sum with NaNs counted as zero.
pub fn nancumsum(a: &Array, axis: Option<isize>) -> Result<Array> {
    nan_filled(a, 0.0)?.cumsum(axis)
}

/// NumPy's `nancumprod(a, axis)`: the running product with NaNs counted as one.
pub fn nancumprod(a: &Array, axis: Option<isize>) -> Result<Array> {
    nan_filled(a, 1.0)?.cumprod(axis)
}

/// How many elements are not NaN, in `dtype`.
fn not_nan_count(a: &Array, axis: Option<&[isize]>, keepdims: bool, dtype: DType) -> Result<Array> {
    a.isnan()?.logical_not()?.sum(axis, keepdims)?.astype(dtype)
}

/// NumPy's `nanmean(a, axis, keepdims)`: the mean of the elements that are not NaN (NaN where
/// there are none).
pub fn nanmean(a: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    if !(a.dtype().is_float() || a.dtype().is_complex()) {
        return a.mean(axis, keepdims);
    }
    let tot = nansum(a, axis, keepdims)?;
    tot.div(&not_nan_count(a, axis, keepdims, tot.dtype())?)
}

/// NumPy's `nanvar(a, axis, ddof, keepdims)`: the variance of the elements that are not NaN.
pub fn nanvar(a: &Array, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Result<Array> {
    if !(a.dtype().is_float() || a.dtype().is_complex()) {
        return a.var(axis, ddof, keepdims);
    }
    let nan = a.isnan()?;
    let mean = nanmean(a, axis, true)?;
    let dev = a.sub(&mean)?;
    let sq = if a.dtype().is_complex() { dev.mul(&dev.conj()?)?.real() } else { dev.mul(&dev)? };
    let sq = where_(&nan, Operand::Scalar(Scalar::Float(0.0)), (&sq).into())?;
    let tot = sq.sum(axis, keepdims)?;
    let cnt = not_nan_count(a, axis, keepdims, tot.dtype())?.sub(Operand::Scalar(Scalar::Int(ddof as i128)))?;
    // NumPy gives NaN (not a negative variance) where there are ddof or fewer values.
    let cnt = where_(&cnt.le(0)?, Operand::Scalar(Scalar::Float(f64::NAN)), (&cnt).into())?;
    tot.div(&cnt)
}

/// NumPy's `nanstd`: the square root of [`nanvar`].
pub fn nanstd(a: &Array, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Result<Array> {
    nanvar(a, axis, ddof, keepdims)?.sqrt()
}

/// `max` (or `min`) ignoring NaNs; NaN where every element is NaN.
fn nan_extreme(a: &Array, axis: Option<&[isize]>, keepdims: bool, max: bool) -> Result<Array> {
    if !a.dtype().is_float() {
        return if max { a.max(axis, keepdims) } else { a.min(axis, keepdims) };
    }
    let nan = a.isnan()?;
    let fill = if max { f64::NEG_INFINITY } else { f64::INFINITY };
    let m = nan_filled(a, fill)?;
    let m = if max { m.max(axis, keepdims)? } else { m.min(axis, keepdims)? };
    where_(&nan.all(axis, keepdims)?, Operand::Scalar(Scalar::Float(f64::NAN)), (&m).into())
}

/// NumPy's `nanmax(a, axis, keepdims)`.
pub fn nanmax(a: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    nan_extreme(a, axis, keepdims, true)
}

/// NumPy's `nanmin(a, axis, keepdims)`.
pub fn nanmin(a: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    nan_extreme(a, axis, keepdims, false)
}

fn nan_arg(op: &str, a: &Array, axis: Option<isize>, max: bool) -> Result<Array> {
    if !a.dtype().is_float() {
        return if max { a.argmax(axis) } else { a.argmin(axis) };
    }
    let nan = a.isnan()?;
    let axes = axis.map(|x| vec![x]);
    if nan.all(axes.as_deref(), false)?.any(None, false)?.item::<bool>()? {
        return Err(Error::value(op, "all-NaN slice encountered"));
    }
    let m = nan_filled(a, if max { f64::NEG_INFINITY } else { f64::INFINITY })?;
    if max {
        m.argmax(axis)
    } else {
        m.argmin(axis)
    }
}

/// NumPy's `nanargmax(a, axis)`: the index of the largest element that is not NaN (a
/// `Value` error for an all-NaN slice).
pub fn nanargmax(a: &Array, axis: Option<isize>) -> Result<Array> {
    nan_arg("nanargmax", a, axis, true)
}

/// NumPy's `nanargmin(a, axis)`.
pub fn nanargmin(a: &Array, axis: Option<isize>) -> Result<Array> {
    nan_arg("nanargmin", a, axis, false)
}

/// NumPy's `average(a, axis, weights)`: the weighted mean (`weights` of `a`'s shape, or 1-d
/// along `axis`); the plain mean without weights. Integers average in float64.
pub fn average(a: &Array, axis: Option<isize>, weights: Option<&Array>) -> Result<Array> {
    let op = "average";
    let axes = axis.map(|x| vec![x]);
    let Some(w) = weights else {
        return a.mean(axes.as_deref(), false);
    };
    let w = if w.shape() == a.shape() {
        w.clone()
    } else {
        let Some(ax) = axis else {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: a.shape().to_vec(),
                rhs: w.shape().to_vec(),
                reason: "differ: axis must be given when the weights' shape differs from a's".into(),
            });
        };
        let ax = normalize_axis(op, ax, a.ndim())?;
        if w.ndim() != 1 || w.shape()[0] != a.shape()[ax] {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: a.shape().to_vec(),
                rhs: w.shape().to_vec(),
                reason: format!("do not fit: 1-d weights must have the length of axis {ax}"),
            });
        }
        let mut shape = vec![1isize; a.ndim()];
        shape[ax] = w.size() as isize;
        w.reshape(&shape)?
    };
    let t = crate::promote_types(
        crate::promote_types(a.dtype(), w.dtype()),
        if a.dtype().is_float() || a.dtype().is_complex() { a.dtype() } else { DType::F64 },
    );
    let (a, w) = (a.astype(t)?, w.astype(t)?.broadcast_to(a.shape())?);
    let scl = w.sum(axes.as_deref(), false)?;
    if scl.eq(0)?.any(None, false)?.item::<bool>()? {
        return Err(Error::value(op, "weights sum to zero, can't be normalized"));
    }
    a.mul(&w)?.sum(axes.as_deref(), false)?.div(&scl)
}

/// NumPy's `cov(m)` with rows as variables and `ddof` 1: the covariance matrix (float64 at
/// least; a 0-d array for a single variable).
pub fn cov(m: &Array) -> Result<Array> {
    if m.ndim() > 2 {
        return Err(Error::value("cov", format!("m has more than 2 dimensions: shape {:?}", m.shape())));
    }
    let t = crate::promote_types(m.dtype(), DType::F64);
    let x = crate::atleast_2d(m)?.astype(t)?;
    let n = x.shape()[1];
    let centered = x.sub(&x.mean(Some(&[1]), true)?)?;
    let c = crate::linalg::matmul(&centered, &centered.t().conj()?)?;
    let c = c.div(Operand::Scalar(Scalar::Int(n as i128 - 1)))?;
    c.squeeze(None)?.copy()
}

/// NumPy's `corrcoef(x)`: the correlation coefficients of the rows, clipped to [-1, 1].
pub fn corrcoef(x: &Array) -> Result<Array> {
    let c = cov(x)?;
    if c.ndim() == 0 {
        return c.div(&c);
    }
    let n = c.shape()[0];
    let d = c.diagonal(0, 0, 1)?.real().sqrt()?;
    let c = c.div(&d.reshape(&[n as isize, 1])?)?.div(&d.reshape(&[1, n as isize])?)?;
    if c.dtype().is_complex() {
        Ok(c)
    } else {
        c.clip(-1, 1)
    }
}

/// `a[..., start:stop, ...]` on axis `ax`.
fn part(a: &Array, ax: usize, start: Option<isize>, stop: Option<isize>) -> Result<Array> {
    let mut sl = vec![SliceArg::ALL; a.ndim()];
    sl[ax] = SliceArg::Range { start, stop, step: None };
    a.slice(&sl)
}

/// NumPy's `gradient(f, axis)` with unit spacing and first-order edges: central differences
/// inside, one-sided differences at the ends (integers in float64).
pub fn gradient(f: &Array, axis: isize) -> Result<Array> {
    let op = "gradient";
    let ax = normalize_axis(op, axis, f.ndim())?;
    if f.shape()[ax] < 2 {
        return Err(Error::value(
            op,
            format!("shape {:?}: each axis needs at least 2 elements (edge_order + 1)", f.shape()),
        ));
    }
    let f = if f.dtype().is_float() || f.dtype().is_complex() { f.clone() } else { f.astype(DType::F64)? };
    let first = part(&f, ax, Some(1), Some(2))?.sub(&part(&f, ax, Some(0), Some(1))?)?;
    let inner =
        part(&f, ax, Some(2), None)?.sub(&part(&f, ax, None, Some(-2))?)?.div(Operand::Scalar(Scalar::Float(2.0)))?;
    let last = part(&f, ax, Some(-1), None)?.sub(&part(&f, ax, Some(-2), Some(-1))?)?;
    crate::concatenate(&[&first, &inner, &last], ax as isize)
}

/// NumPy's `unwrap(p, axis)` with period 2π: jumps of more than π between neighbours are
/// taken modulo 2π.
pub fn unwrap(p: &Array, axis: isize) -> Result<Array> {
    let op = "unwrap";
    let ax = normalize_axis(op, axis, p.ndim())?;
    let p = as_float(p)?;
    if p.shape()[ax] < 2 {
        return p.copy();
    }
    let dd = crate::diff(&p, 1, ax as isize)?;
    let ddmod =
        dd.add_scalar(PI)?.rem(Operand::Scalar(Scalar::Float(2.0 * PI)))?.sub(Operand::Scalar(Scalar::Float(PI)))?;
    let flip_up = ddmod.eq(Operand::Scalar(Scalar::Float(-PI)))?.logical_and(&dd.gt(0)?)?;
    let ddmod = where_(&flip_up, Operand::Scalar(Scalar::Float(PI)), (&ddmod).into())?;
    let correct = ddmod.sub(&dd)?;
    let correct = where_(
        &dd.abs()?.lt(Operand::Scalar(Scalar::Float(PI)))?,
        Operand::Scalar(Scalar::Float(0.0)),
        (&correct).into(),
    )?;
    let rest = part(&p, ax, Some(1), None)?.add(&correct.cumsum(Some(ax as isize))?)?;
    crate::concatenate(&[&part(&p, ax, None, Some(1))?, &rest], ax as isize)
}

/// NumPy's `ldexp(x1, x2)`: `x1 · 2**x2` for integer `x2` (integers `x1` in float64).
pub fn ldexp(x1: &Array, x2: &Array) -> Result<Array> {
    if !x2.dtype().is_integer() {
        return Err(Error::DType {
            op: "ldexp".into(),
            reason: format!("exponents must be integers, got {}", x2.dtype().name()),
        });
    }
    let x = as_float(x1)?;
    if x.dtype().is_complex() {
        return Err(Error::unsupported_dtype("ldexp", x.dtype()));
    }
    // Powers of two are exact in every float dtype within its exponent range.
    x.mul(&x2.astype(x.dtype())?.exp2()?)
}
