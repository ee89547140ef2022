//! Float functions computed on the bits or by series, with kernels of their own
//! (`xp_kernels::special`): `nextafter`, `spacing`, `i0` (the Kaiser window built on `i0` is in
//! `window.rs`).

use xp_backend_api::{DType, Error, Result};
use xp_kernels::special::{
    i0 as i0_kernel, nextafter as nextafter_kernel, plan_special, spacing as spacing_kernel, FloatFormat,
};

use super::math::float_dtype;
use crate::exec::{run_launches, target_of, Bindings};
use crate::layout::broadcast_shapes;
use crate::promote::promote_types;
use crate::Array;

/// The bit format of a float dtype `op` computes on, or an error for the others.
fn format_of(op: &str, d: DType) -> Result<FloatFormat> {
    match d {
        DType::F16 => Ok(FloatFormat::F16),
        DType::F32 => Ok(FloatFormat::F32),
        DType::F64 => Ok(FloatFormat::F64),
        _ => Err(Error::unsupported_dtype(op, d)),
    }
}

/// The dtype a float-only function of `a` computes in (NumPy's loop: `a`'s float type, the
/// smallest safe float for integers); complex and bfloat16 are errors.
fn loop_dtype(op: &str, arrays: &[&Array]) -> Result<DType> {
    let mut t: Option<DType> = None;
    for a in arrays {
        if a.dtype().is_complex() || a.dtype() == DType::BF16 {
            return Err(Error::unsupported_dtype(op, a.dtype()));
        }
        let f = float_dtype(a.dtype());
        t = Some(t.map_or(f, |t| promote_types(t, f)));
    }
    t.ok_or_else(|| Error::value(op, "no operands"))
}

fn contiguous_as(a: &Array, shape: &[usize], dtype: DType) -> Result<Array> {
    let a = if a.dtype() == dtype { a.clone() } else { a.astype(dtype)? };
    a.broadcast_to(shape)?.ascontiguous()
}

/// NumPy's `nextafter(x1, x2)`: the next float after `x1` towards `x2`, elementwise
/// (broadcast; in the common float type, float16 included).
pub fn nextafter(x1: &Array, x2: &Array) -> Result<Array> {
    let op = "nextafter";
    let dev = crate::ufunc::common_device(op, &[x1, x2])?;
    let t = loop_dtype(op, &[x1, x2])?;
    let f = format_of(op, t)?;
    let shape = broadcast_shapes(op, &[x1.shape(), x2.shape()])?;
    let (a, b) = (contiguous_as(x1, &shape, t)?, contiguous_as(x2, &shape, t)?);
    let out = Array::empty_on(&dev, &shape, t)?;
    if out.size() > 0 {
        let plan = plan_special(nextafter_kernel(f), 2, out.size(), target_of(&dev));
        run_launches(&dev, &[plan], Bindings { output: Some(&out), operands: &[&a, &b], ..Default::default() })?;
    }
    Ok(out)
}

/// NumPy's `spacing(x)`: the distance from `x` to the next float away from zero (negative
/// for negative `x`, NaN for NaN and infinities), elementwise, in `x`'s float type. For
/// float16 it is, as NumPy's, the distance to the next float towards +inf (never negative).
pub fn spacing(x: &Array) -> Result<Array> {
    let op = "spacing";
    let t = loop_dtype(op, &[x])?;
    let f = format_of(op, t)?;
    unary(op, x, t, spacing_kernel(f))
}

fn unary(op: &str, x: &Array, t: DType, kernel: xp_kernels::render::Rendered) -> Result<Array> {
    let dev = crate::ufunc::common_device(op, &[x])?;
    let a = contiguous_as(x, x.shape(), t)?;
    let out = Array::empty_on(&dev, x.shape(), t)?;
    if out.size() > 0 {
        let plan = plan_special(kernel, 1, out.size(), target_of(&dev));
        run_launches(&dev, &[plan], Bindings { output: Some(&out), operands: &[&a], ..Default::default() })?;
    }
    Ok(out)
}

/// NumPy's `i0(x)`: the modified Bessel function of the first kind, order 0, by NumPy's
/// Chebyshev series, in `x`'s float type (float64 for integers; float16 computed in float32
/// and rounded). Complex input is an error, as NumPy's.
pub fn i0(x: &Array) -> Result<Array> {
    let op = "i0";
    let t = loop_dtype(op, &[x])?;
    match t {
        DType::F64 => unary(op, x, t, i0_kernel(true)),
        DType::F32 => unary(op, x, t, i0_kernel(false)),
        _ => unary(op, x, DType::F32, i0_kernel(false))?.astype(t),
    }
}
