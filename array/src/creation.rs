//! Creating arrays on the current device: `zeros`, `ones`, `full`, `empty`, `*_like`,
//! `arange`, `linspace`, `logspace`, `geomspace`, `eye`, `identity`, `meshgrid`. (Loading
//! arrays from files is in [`crate::io`].)

use std::sync::Arc;

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, Result};

use crate::element::scalar_bytes;
use crate::promote::Scalar;
use crate::ufunc::Operand;
use crate::{current_device, Array};

/// Zeros of `shape` and `dtype`.
pub fn zeros(shape: &[usize], dtype: DType) -> Result<Array> {
    Array::full_on(&current_device()?, shape, 0, dtype)
}
/// Ones of `shape` and `dtype`.
pub fn ones(shape: &[usize], dtype: DType) -> Result<Array> {
    Array::full_on(&current_device()?, shape, 1, dtype)
}
/// `value` converted to `dtype`, repeated to `shape`.
pub fn full(shape: &[usize], value: impl Into<Scalar>, dtype: DType) -> Result<Array> {
    Array::full_on(&current_device()?, shape, value, dtype)
}
/// An uninitialised array.
pub fn empty(shape: &[usize], dtype: DType) -> Result<Array> {
    Array::empty_on(&current_device()?, shape, dtype)
}
/// Zeros shaped like `a` (same dtype and device), in `a`'s memory order (NumPy's default
/// `order='K'`; [`crate::zeros_like_order`] chooses it).
pub fn zeros_like(a: &Array) -> Result<Array> {
    crate::zeros_like_order(a, crate::Order::K)
}
/// Ones shaped like `a`, in `a`'s memory order.
pub fn ones_like(a: &Array) -> Result<Array> {
    crate::ones_like_order(a, crate::Order::K)
}
/// `value` shaped like `a`, in `a`'s memory order.
pub fn full_like(a: &Array, value: impl Into<Scalar>) -> Result<Array> {
    crate::full_like_order(a, value, crate::Order::K)
}
/// Uninitialised, shaped like `a`, in `a`'s memory order.
pub fn empty_like(a: &Array) -> Result<Array> {
    crate::empty_like_order(a, crate::Order::K)
}

/// An empty host vector with room for `n` elements of `T`, or [`Error::OutOfMemory`] when the
/// host cannot give it (`try_reserve`: never the abort of a failed allocation).
pub(crate) fn host_vec<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::OutOfMemory {
        requested: n.saturating_mul(std::mem::size_of::<T>()),
        in_use: 0,
        limit: usize::MAX,
    })?;
    Ok(v)
}

/// An array of `shape` and `T`'s dtype on `device` whose elements, in C order, are `values`.
/// The device buffer is taken first, so a size the device's pool refuses is its
/// `OutOfMemory` before any host memory is touched; the host staging is [`host_vec`].
fn from_host_values<T: crate::Element>(
    device: &Arc<dyn DynDevice>,
    op: &str,
    shape: &[usize],
    values: impl Iterator<Item = T>,
) -> Result<Array> {
    let n = crate::layout::checked_size(op, shape)?;
    let out = Array::empty_on(device, shape, T::DTYPE)?;
    let mut v = host_vec::<T>(n)?;
    v.extend(values.take(n));
    out.copy_from_slice(&v)?;
    Ok(out)
}

fn host_array(
    device: &Arc<dyn DynDevice>,
    shape: &[usize],
    dtype: DType,
    values: impl Iterator<Item = Scalar>,
) -> Result<Array> {
    let n = crate::layout::checked_size("array", shape)?;
    let out = Array::empty_on(device, shape, dtype)?;
    let mut bytes = host_vec::<u8>(n.saturating_mul(dtype.size()))?;
    for v in values {
        bytes.extend(scalar_bytes(v, dtype)?);
    }
    out.copy_from_bytes(&bytes)?;
    Ok(out)
}

/// Values from `start` to `stop` (exclusive) by `step`, as NumPy's `arange`. `dtype` `None`
/// takes int64 when all three are integers, else float64.
pub fn arange(
    start: impl Into<Scalar>,
    stop: impl Into<Scalar>,
    step: impl Into<Scalar>,
    dtype: Option<DType>,
) -> Result<Array> {
    let (start, stop, step) = (start.into(), stop.into(), step.into());
    let all_int = [start, stop, step].iter().all(|s| matches!(s, Scalar::Int(_) | Scalar::Bool(_)));
    let dtype = dtype.unwrap_or(if all_int { DType::I64 } else { DType::F64 });
    let f = |s: Scalar| s.as_complex().0;
    let (a, b, s) = (f(start), f(stop), f(step));
    if s == 0.0 {
        return Err(Error::value("arange", "step must not be zero"));
    }
    if !(a.is_finite() && b.is_finite() && s.is_finite()) {
        return Err(Error::value("arange", "start, stop and step must be finite"));
    }
    let n = ((b - a) / s).ceil().max(0.0);
    if n > isize::MAX as f64 {
        return Err(Error::Overflow { op: "arange".into(), reason: format!("{n} elements is too many") });
    }
    let n = n as usize;
    let dev = current_device()?;
    if all_int && dtype.kind() != DTypeKind::Float && dtype.kind() != DTypeKind::Complex {
        let (a, s) = (int_of(start), int_of(step));
        // Every value lies between start and stop: typed vectors when both ends fit.
        let (lo, hi) = (a.min(int_of(stop)), a.max(int_of(stop)));
        if dtype == DType::I64 && lo >= i64::MIN as i128 && hi <= i64::MAX as i128 {
            return from_host_values(&dev, "arange", &[n], (0..n).map(|i| (a + s * i as i128) as i64));
        }
        if dtype == DType::I32 && lo >= i32::MIN as i128 && hi <= i32::MAX as i128 {
            return from_host_values(&dev, "arange", &[n], (0..n).map(|i| (a + s * i as i128) as i32));
        }
        return host_array(&dev, &[n], dtype, (0..n).map(|i| Scalar::Int(a + s * i as i128)));
    }
    match dtype {
        DType::F64 => from_host_values(&dev, "arange", &[n], (0..n).map(|i| a + s * i as f64)),
        DType::F32 => from_host_values(&dev, "arange", &[n], (0..n).map(|i| (a + s * i as f64) as f32)),
        _ => host_array(&dev, &[n], dtype, (0..n).map(|i| Scalar::Float(a + s * i as f64))),
    }
}

fn int_of(s: Scalar) -> i128 {
    match s {
        Scalar::Int(i) => i,
        Scalar::Bool(b) => b as i128,
        other => other.as_complex().0 as i128,
    }
}

/// `num` evenly spaced values from `start` to `stop` (inclusive when `endpoint`), as NumPy's
/// `linspace` (computed in float64, then converted).
pub fn linspace(start: f64, stop: f64, num: usize, endpoint: bool, dtype: Option<DType>) -> Result<Array> {
    let dtype = dtype.unwrap_or(DType::F64);
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let delta = stop - start;
    let step = if div > 0 { delta / div as f64 } else { f64::NAN };
    let vals = (0..num).map(move |i| {
        let v = if div > 0 {
            if step == 0.0 {
                (i as f64 / div as f64) * delta + start
            } else {
                i as f64 * step + start
            }
        } else {
            i as f64 * delta + start
        };
        if endpoint && num > 1 && i == num - 1 {
            Scalar::Float(stop)
        } else {
            Scalar::Float(v)
        }
    });
    host_array(&current_device()?, &[num], dtype, vals)
}

/// NumPy's `logspace(start, stop, num, endpoint, base, dtype)`: `base ** linspace(start,
/// stop, num, endpoint)`.
pub fn logspace(start: f64, stop: f64, num: usize, endpoint: bool, base: f64, dtype: Option<DType>) -> Result<Array> {
    let y = crate::linspace(start, stop, num, endpoint, None)?;
    let r = crate::call("power", &[Operand::Scalar(Scalar::Float(base)), Operand::Array(&y)], None)?;
    match dtype {
        Some(d) if d != r.dtype() => r.astype(d),
        _ => Ok(r),
    }
}

/// NumPy's `geomspace(start, stop, num, endpoint, dtype)`: numbers spaced evenly on a log
/// scale from `start` to `stop` (both of one sign, neither zero), the ends exact.
pub fn geomspace(start: f64, stop: f64, num: usize, endpoint: bool, dtype: Option<DType>) -> Result<Array> {
    if start == 0.0 || stop == 0.0 {
        return Err(Error::value("geomspace", "a geometric sequence cannot include zero"));
    }
    let sign = start.signum();
    let (s, e) = (start / sign, stop / sign);
    let inner = logspace(s.log10(), e.log10(), num, endpoint, 10.0, None)?;
    let dev = inner.device_arc();
    let mut parts = Vec::new();
    if num > 0 {
        parts.push(Array::full_on(&dev, &[1], s, DType::F64)?);
        let last = if num > 1 && endpoint { num - 1 } else { num };
        if last > 1 {
            parts.push(inner.slice(&[crate::SliceArg::range(1, last as isize, 1)])?);
        }
        if num > 1 && endpoint {
            parts.push(Array::full_on(&dev, &[1], e, DType::F64)?);
        }
    } else {
        parts.push(inner);
    }
    let r = crate::concatenate(&parts.iter().collect::<Vec<_>>(), 0)?.mul_scalar(sign)?;
    match dtype {
        Some(d) if d != r.dtype() => r.astype(d),
        _ => Ok(r),
    }
}

/// An `n`×`m` array with ones on diagonal `k` (NumPy's `eye`).
pub fn eye(n: usize, m: Option<usize>, k: isize, dtype: DType) -> Result<Array> {
    let m = m.unwrap_or(n);
    crate::layout::checked_size("eye", &[n, m])?;
    if n * m > 1 << 14 {
        // Large: compare a column and a row of indices on the device rather than fill on the
        // host and copy. The result's memory is asked for first, so a size the pool refuses
        // fails before the index arrays are built.
        drop(Array::empty_on(&current_device()?, &[n, m], dtype)?);
        let rows = arange(0, n as i64, 1, Some(DType::I64))?.reshape(&[n as isize, 1])?;
        let cols = arange(0, m as i64, 1, Some(DType::I64))?.reshape(&[1, m as isize])?;
        return cols.sub(&rows)?.eq(k as i64)?.astype(dtype);
    }
    let vals = (0..n * m).map(move |f| {
        let (i, j) = ((f / m.max(1)) as isize, (f % m.max(1)) as isize);
        Scalar::Int((j - i == k) as i128)
    });
    host_array(&current_device()?, &[n, m], dtype, vals)
}

/// The `n`×`n` identity.
pub fn identity(n: usize, dtype: DType) -> Result<Array> {
    eye(n, None, 0, dtype)
}

/// Coordinate arrays from 1-d arrays (NumPy's `meshgrid`; `ij` indexing when `ij`, else
/// `xy`, which swaps the first two outputs' axes). Returns copies, as NumPy's default.
pub fn meshgrid(xs: &[&Array], ij: bool) -> Result<Vec<Array>> {
    let n = xs.len();
    let mut shape: Vec<usize> = xs.iter().map(|x| x.size()).collect();
    if !ij && n >= 2 {
        shape.swap(0, 1);
    }
    let mut out = Vec::with_capacity(n);
    for (k, x) in xs.iter().enumerate() {
        let mut view_shape = vec![1isize; n];
        let pos = if !ij && n >= 2 && k < 2 { 1 - k } else { k };
        view_shape[pos] = x.size() as isize;
        let v = x.ravel()?.reshape(&view_shape)?.broadcast_to(&shape)?;
        out.push(v.copy()?);
    }
    Ok(out)
}
