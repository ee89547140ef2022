//! NumPy's logic functions: whole-array comparisons (`isclose`, `allclose`, `array_equal`,
//! `array_equiv`) and the value tests `isneginf`, `isposinf`, `iscomplex`, `isreal`.

use xp_backend_api::{DType, Result};

use crate::Array;

/// NumPy's `isclose(a, b, rtol, atol, equal_nan)`: `|a - b| <= atol + rtol·|b|` elementwise,
/// with infinities close only to themselves; NaNs are close to each other when `equal_nan`.
pub fn isclose(a: &Array, b: &Array, rtol: f64, atol: f64, equal_nan: bool) -> Result<Array> {
    // NumPy converts `b` to a float dtype first (integers and bools to float64).
    let y = if b.dtype().is_float() || b.dtype().is_complex() { b.clone() } else { b.astype(DType::F64)? };
    let x = a;
    let bound = y.abs()?.mul_scalar(rtol)?.add_scalar(atol)?;
    let near = x.sub(&y)?.abs()?.le(&bound)?.logical_and(&y.isfinite()?)?;
    let r = near.logical_or(&x.eq(&y)?)?;
    if equal_nan {
        r.logical_or(&x.isnan()?.logical_and(&y.isnan()?)?)
    } else {
        Ok(r)
    }
}

/// NumPy's `allclose`: whether [`isclose`] holds everywhere.
pub fn allclose(a: &Array, b: &Array, rtol: f64, atol: f64, equal_nan: bool) -> Result<bool> {
    isclose(a, b, rtol, atol, equal_nan)?.all(None, false)?.item::<bool>()
}

/// NumPy's `array_equal(a1, a2, equal_nan)`: the same shape and equal elements (NaNs equal
/// each other when `equal_nan`).
pub fn array_equal(a1: &Array, a2: &Array, equal_nan: bool) -> Result<bool> {
    if a1.shape() != a2.shape() {
        return Ok(false);
    }
    let mut eq = a1.eq(a2)?;
    if equal_nan {
        eq = eq.logical_or(&a1.isnan()?.logical_and(&a2.isnan()?)?)?;
    }
    eq.all(None, false)?.item::<bool>()
}

/// NumPy's `array_equiv(a1, a2)`: shapes broadcast together and all elements are equal.
pub fn array_equiv(a1: &Array, a2: &Array) -> Result<bool> {
    if crate::layout::broadcast_shapes("array_equiv", &[a1.shape(), a2.shape()]).is_err() {
        return Ok(false);
    }
    a1.eq(a2)?.all(None, false)?.item::<bool>()
}

/// NumPy's `isneginf(x)`.
pub fn isneginf(x: &Array) -> Result<Array> {
    x.isinf()?.logical_and(&x.signbit()?)
}

/// NumPy's `isposinf(x)`.
pub fn isposinf(x: &Array) -> Result<Array> {
    x.isinf()?.logical_and(&x.signbit()?.logical_not()?)
}

/// NumPy's `iscomplex(x)`: a non-zero imaginary part (false for real dtypes).
pub fn iscomplex(x: &Array) -> Result<Array> {
    if x.dtype().is_complex() {
        x.imag()?.ne(0)
    } else {
        Array::full_on(&x.device_arc(), x.shape(), false, DType::Bool)
    }
}

/// NumPy's `isreal(x)`: a zero imaginary part (true for real dtypes).
pub fn isreal(x: &Array) -> Result<Array> {
    iscomplex(x)?.logical_not()
}
