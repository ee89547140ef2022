//! More of NumPy's namespace: splitting and joining (`split`, `array_split`, `hsplit`,
//! `vsplit`, `dsplit`, `unstack`, `block`, `broadcast_arrays`, `trim_zeros`), index helpers
//! (`diagflat`, `fill_diagonal`, `diag_indices`, `tril_indices`, `triu_indices`, `ix_`,
//! `ravel_multi_index`, `unravel_index`, `place`, `extract`, `flatnonzero`, `argwhere`),
//! elementwise pairs (`modf`, `frexp`, `divmod`), `ediff1d`, `polyfit`, `roots`, predicates
//! (`array_equiv`, `isneginf`, `isposinf`, `iscomplex`, `isreal`) and text files (`savetxt`,
//! `loadtxt`). Splits and `unstack` return views, as NumPy's.

use std::path::Path;

use xp_backend_api::{DType, Error, Result};

use crate::layout::{normalize_axis, SliceArg};
use crate::promote::Scalar;
use crate::ufunc::{where_, Operand};
use crate::{current_device, Array};

/// How [`split`] and [`array_split`] cut an axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sections {
    /// Into this many parts.
    Count(usize),
    /// At these indices (parts `[0, i0)`, `[i0, i1)`, …, `[ik, len)`).
    At(Vec<isize>),
}

fn cut(op: &str, a: &Array, sections: &Sections, axis: isize, even: bool) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::value(op, "a 0-d array cannot be split"));
    }
    let ax = normalize_axis(op, axis, a.ndim())?;
    let len = a.shape()[ax] as isize;
    let bounds: Vec<(isize, isize)> = match sections {
        Sections::Count(0) => return Err(Error::value(op, "number sections must be larger than 0")),
        Sections::Count(n) => {
            let n = *n as isize;
            if even && len % n != 0 {
                return Err(Error::value(op, "array split does not result in an equal division"));
            }
            let (q, r) = (len / n, len % n);
            let mut at = 0;
            (0..n)
                .map(|i| {
                    let size = q + if i < r { 1 } else { 0 };
                    let b = (at, at + size);
                    at += size;
                    b
                })
                .collect()
        }
        Sections::At(idx) => {
            let mut edges = vec![0isize];
            edges.extend(idx.iter().map(|&i| if i < 0 { (i + len).max(0) } else { i.min(len) }));
            edges.push(len);
            edges.windows(2).map(|w| (w[0], w[1].max(w[0]))).collect()
        }
    };
    bounds
        .into_iter()
        .map(|(s, e)| {
            let mut sl = vec![SliceArg::ALL; a.ndim()];
            sl[ax] = SliceArg::range(s, e, 1);
            a.slice(&sl)
        })
        .collect()
}

/// NumPy's `split(a, sections, axis)`: views; a count must divide the axis.
pub fn split(a: &Array, sections: &Sections, axis: isize) -> Result<Vec<Array>> {
    cut("split", a, sections, axis, true)
}

/// NumPy's `array_split(a, sections, axis)`: as `split`, the first parts one longer when a
/// count does not divide the axis.
pub fn array_split(a: &Array, sections: &Sections, axis: isize) -> Result<Vec<Array>> {
    cut("array_split", a, sections, axis, false)
}

/// NumPy's `hsplit`: along axis 1 (axis 0 of a 1-d array).
pub fn hsplit(a: &Array, sections: &Sections) -> Result<Vec<Array>> {
    cut("hsplit", a, sections, if a.ndim() == 1 { 0 } else { 1 }, true)
}

/// NumPy's `vsplit`: along axis 0 of an array of at least 2 dimensions.
pub fn vsplit(a: &Array, sections: &Sections) -> Result<Vec<Array>> {
    if a.ndim() < 2 {
        return Err(Error::value("vsplit", "vsplit only works on arrays of 2 or more dimensions"));
    }
    cut("vsplit", a, sections, 0, true)
}

/// NumPy's `dsplit`: along axis 2 of an array of at least 3 dimensions.
pub fn dsplit(a: &Array, sections: &Sections) -> Result<Vec<Array>> {
    if a.ndim() < 3 {
        return Err(Error::value("dsplit", "dsplit only works on arrays of 3 or more dimensions"));
    }
    cut("dsplit", a, sections, 2, true)
}

/// NumPy's `unstack(a, axis)`: the views `a[..., i, ...]` along `axis`.
pub fn unstack(a: &Array, axis: isize) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::value("unstack", "input array must be at least 1-d"));
    }
    let ax = normalize_axis("unstack", axis, a.ndim())?;
    (0..a.shape()[ax])
        .map(|i| {
            let mut sl = vec![SliceArg::ALL; a.ndim()];
            sl[ax] = SliceArg::Index(i as isize);
            a.slice(&sl)
        })
        .collect()
}

/// NumPy's `broadcast_arrays(*args)`: views of one broadcast shape.
pub fn broadcast_arrays(arrays: &[&Array]) -> Result<Vec<Array>> {
    let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
    let shape = crate::layout::broadcast_shapes("broadcast_arrays", &shapes)?;
    arrays.iter().map(|a| a.broadcast_to(&shape)).collect()
}

/// NumPy's `block` for a grid of arrays: each row joined along the last axis, the rows along
/// the one before (arrays of fewer dimensions gain leading ones, as NumPy).
pub fn block(rows: &[Vec<&Array>]) -> Result<Array> {
    if rows.is_empty() || rows.iter().any(|r| r.is_empty()) {
        return Err(Error::value("block", "lists cannot be empty"));
    }
    let nd = rows.iter().flatten().map(|a| a.ndim()).max().unwrap_or(0).max(2);
    let lift = |a: &Array| -> Result<Array> {
        let mut shape = vec![1usize; nd - a.ndim()];
        shape.extend(a.shape());
        a.reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
    };
    let mut joined = Vec::with_capacity(rows.len());
    for r in rows {
        let parts: Vec<Array> = r.iter().map(|a| lift(a)).collect::<Result<_>>()?;
        let refs: Vec<&Array> = parts.iter().collect();
        joined.push(crate::index::concatenate(&refs, -1)?);
    }
    let refs: Vec<&Array> = joined.iter().collect();
    crate::index::concatenate(&refs, -2)
}

/// NumPy's `trim_zeros(filt, trim)`: the 1-d `filt` without its leading (`'f'` in `trim`)
/// and trailing (`'b'`) zeros, as a view.
pub fn trim_zeros(filt: &Array, trim: &str) -> Result<Array> {
    if filt.ndim() != 1 {
        return Err(Error::value("trim_zeros", "filt must be 1-d"));
    }
    let nz = flatnonzero(filt)?.to_vec::<i64>()?;
    let n = filt.size() as isize;
    let (first, last) = match (nz.first(), nz.last()) {
        (Some(&f), Some(&l)) => (f as isize, l as isize + 1),
        _ => (n, n),
    };
    let lower = trim.to_ascii_lowercase();
    let s = if lower.contains('f') { first } else { 0 };
    let e = if lower.contains('b') { last } else { n };
    filt.slice(&[SliceArg::range(s, e.max(s), 1)])
}

/// NumPy's `diagflat(v, k)`: the flattened `v` on diagonal `k` of a square matrix.
pub fn diagflat(v: &Array, k: isize) -> Result<Array> {
    crate::linalg::diag(&v.ravel()?, k)
}

/// NumPy's `fill_diagonal(a, val)` (without `wrap`): `a[i, i, …] = val` in place for a 2-d
/// array or one whose dimensions are all equal.
pub fn fill_diagonal(a: &Array, val: impl Into<Scalar>) -> Result<()> {
    if a.ndim() < 2 {
        return Err(Error::value("fill_diagonal", "array must be at least 2-d"));
    }
    if a.ndim() > 2 && a.shape().iter().any(|&d| d != a.shape()[0]) {
        return Err(Error::value("fill_diagonal", "all dimensions of input must be of equal length"));
    }
    let n = *a.shape().iter().min().expect("at least 2-d") as isize;
    let idx = crate::creation::arange(0, n as i64, 1, Some(DType::I64))?;
    let items: Vec<crate::routines::IndexItem<'_>> =
        (0..a.ndim()).map(|_| crate::routines::IndexItem::Array(&idx)).collect();
    let v = Array::scalar_on(&a.device_arc(), val, a.dtype())?;
    a.setitem(&items, &v)
}

/// NumPy's `diag_indices(n, ndim)`: `ndim` copies of `arange(n)`.
pub fn diag_indices(n: usize, ndim: usize) -> Result<Vec<Array>> {
    (0..ndim).map(|_| crate::creation::arange(0, n as i64, 1, Some(DType::I64))).collect()
}

/// NumPy's `tril_indices(n, k, m)`: rows and columns of the lower triangle.
pub fn tril_indices(n: usize, k: isize, m: Option<usize>) -> Result<(Array, Array)> {
    let t = crate::routines::tri(n, m, k, DType::Bool)?;
    let mut nz = t.nonzero()?;
    let c = nz.pop().expect("two index arrays");
    Ok((nz.pop().expect("two index arrays"), c))
}

/// NumPy's `triu_indices(n, k, m)`: rows and columns of the upper triangle.
pub fn triu_indices(n: usize, k: isize, m: Option<usize>) -> Result<(Array, Array)> {
    let t = crate::routines::tri(n, m, k - 1, DType::Bool)?.logical_not()?;
    let mut nz = t.nonzero()?;
    let c = nz.pop().expect("two index arrays");
    Ok((nz.pop().expect("two index arrays"), c))
}

/// NumPy's `ix_(*args)`: open-mesh views of 1-d index arrays (bool ones as their indices).
pub fn ix_(args: &[&Array]) -> Result<Vec<Array>> {
    let nd = args.len();
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            if a.ndim() != 1 {
                return Err(Error::value("ix_", "cross index must be 1 dimensional"));
            }
            let a = if a.dtype() == DType::Bool { a.nonzero()?.remove(0) } else { (*a).clone() };
            let mut shape = vec![1isize; nd];
            shape[i] = a.size() as isize;
            a.reshape(&shape)
        })
        .collect()
}

fn strides_of(dims: &[usize]) -> Vec<i64> {
    let mut s = vec![1i64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * dims[d + 1] as i64;
    }
    s
}

/// NumPy's `ravel_multi_index(multi_index, dims)` (C order, `mode='raise'`).
pub fn ravel_multi_index(multi_index: &[&Array], dims: &[usize]) -> Result<Array> {
    if multi_index.len() != dims.len() {
        return Err(Error::value(
            "ravel_multi_index",
            format!("parameter multi_index must be a sequence of length {}", dims.len()),
        ));
    }
    let st = strides_of(dims);
    let mut acc: Option<Array> = None;
    for ((idx, &d), &s) in multi_index.iter().zip(dims).zip(&st) {
        if !idx.dtype().is_integer() {
            return Err(Error::DType {
                op: "ravel_multi_index".into(),
                reason: format!("only int indices permitted, not {}", idx.dtype()),
            });
        }
        let i = idx.astype(DType::I64)?;
        let bad = i.lt(0)?.logical_or(&i.ge(d as i64)?)?.any(None, false)?.item::<bool>()?;
        if bad {
            // NumPy's ValueError.
            return Err(Error::Value {
                op: "ravel_multi_index".into(),
                reason: "invalid entry in coordinates array".into(),
            });
        }
        let term = i.mul(s)?;
        acc = Some(match acc {
            None => term,
            Some(a) => a.add(&term)?,
        });
    }
    match acc {
        Some(a) => Ok(a),
        None => Array::scalar_on(&current_device()?, 0i64, DType::I64),
    }
}

/// NumPy's `unravel_index(indices, shape)` (C order): one int64 array per dimension.
pub fn unravel_index(indices: &Array, shape: &[usize]) -> Result<Vec<Array>> {
    if !indices.dtype().is_integer() {
        return Err(Error::DType {
            op: "unravel_index".into(),
            reason: format!("only int indices permitted, not {}", indices.dtype()),
        });
    }
    let size: usize = shape.iter().product();
    let i = indices.astype(DType::I64)?;
    if i.lt(0)?.logical_or(&i.ge(size as i64)?)?.any(None, false)?.item::<bool>()? {
        return Err(Error::Index {
            op: "unravel_index".into(),
            reason: format!("index out of bounds for array with size {size}"),
        });
    }
    let st = strides_of(shape);
    shape.iter().zip(&st).map(|(&d, &s)| i.floor_divide(s)?.rem(d.max(1) as i64)).collect()
}

/// NumPy's `place(arr, mask, vals)`: the elements where `mask` is set take `vals` in order,
/// repeated as needed, in place.
pub fn place(arr: &Array, mask: &Array, vals: &Array) -> Result<()> {
    let m = mask.astype(DType::Bool)?;
    if m.size() != arr.size() {
        return Err(Error::ShapeMismatch {
            op: "place".into(),
            lhs: arr.shape().to_vec(),
            rhs: mask.shape().to_vec(),
            reason: "mask and data must be the same size".into(),
        });
    }
    let m = m.reshape(&arr.shape().iter().map(|&d| d as isize).collect::<Vec<_>>())?;
    let count = m.sum(None, false)?.item::<i64>()? as usize;
    if count == 0 {
        return Ok(());
    }
    if vals.size() == 0 {
        return Err(Error::value("place", "cannot insert from an empty array"));
    }
    let v = crate::routines::resize(&vals.ravel()?, &[count])?;
    arr.setitem(&[crate::routines::IndexItem::Mask(&m)], &v)
}

/// NumPy's `extract(condition, arr)`: the elements of the flattened `arr` where the flattened
/// `condition` is non-zero.
pub fn extract(condition: &Array, arr: &Array) -> Result<Array> {
    let c = condition.ravel()?.astype(DType::Bool)?;
    let a = arr.ravel()?;
    if c.size() != a.size() {
        return Err(Error::ShapeMismatch {
            op: "extract".into(),
            lhs: arr.shape().to_vec(),
            rhs: condition.shape().to_vec(),
            reason: "condition and arr must have the same size".into(),
        });
    }
    a.compress_mask(&c)
}

/// NumPy's `flatnonzero(a)`: int64 indices of the non-zero elements of the flattened array.
pub fn flatnonzero(a: &Array) -> Result<Array> {
    Ok(a.ravel()?.nonzero()?.remove(0))
}

/// NumPy's `argwhere(a)`: the indices of the non-zero elements, one row each, `(N, a.ndim)`.
pub fn argwhere(a: &Array) -> Result<Array> {
    if a.ndim() == 0 {
        let n = a.astype(DType::Bool)?.item::<bool>()? as usize;
        return Array::empty_on(&a.device_arc(), &[n, 0], DType::I64);
    }
    let nz = a.nonzero()?;
    let refs: Vec<&Array> = nz.iter().collect();
    crate::index::stack(&refs, 1)
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
    crate::index::concatenate(&refs, 0)
}

/// NumPy's `polyfit(x, y, deg)`: least-squares coefficients, highest power first (`y` 1-d or
/// 2-d with one fit per column), through `linalg.lstsq` on the scaled Vandermonde matrix.
pub fn polyfit(x: &Array, y: &Array, deg: usize) -> Result<Array> {
    if x.ndim() != 1 || y.ndim() == 0 || y.ndim() > 2 || y.shape()[0] != x.size() {
        return Err(Error::ShapeMismatch {
            op: "polyfit".into(),
            lhs: x.shape().to_vec(),
            rhs: y.shape().to_vec(),
            reason: "x must be 1-d and y of x's length (1-d or 2-d)".into(),
        });
    }
    let x = x.astype(DType::F64)?;
    let v = crate::routines::vander(&x, Some(deg + 1))?;
    // Scale the columns to unit norm, as NumPy, for the conditioning.
    let scale = v.mul(&v)?.sum(Some(&[0]), false)?.sqrt()?;
    let scale = where_(&scale.eq(0.0)?, Operand::Scalar(Scalar::Float(1.0)), (&scale).into())?;
    let (c, _, _, _) = crate::linalg::lstsq(&v.div(&scale)?, &y.astype(DType::F64)?, None)?;
    if c.ndim() == 2 {
        c.div(&scale.expand_dims(-1)?)
    } else {
        c.div(&scale)
    }
}

/// NumPy's `roots(p)`: the roots of the polynomial with coefficients `p` (highest power
/// first): eigenvalues of its companion matrix, and zeros for trailing zero coefficients.
pub fn roots(p: &Array) -> Result<Array> {
    if p.ndim() != 1 {
        return Err(Error::value("roots", "input must be a rank-1 array"));
    }
    let dev = p.device_arc();
    let nz = flatnonzero(p)?.to_vec::<i64>()?;
    let (Some(&first), Some(&last)) = (nz.first(), nz.last()) else {
        return Array::empty_on(&dev, &[0], DType::F64);
    };
    let trailing = p.size() - 1 - last as usize;
    let core = p.slice(&[SliceArg::range(first as isize, last as isize + 1, 1)])?;
    let core = if core.dtype().is_complex() { core } else { core.astype(DType::F64)? };
    let n = core.size();
    let mut r = if n > 1 {
        let a = Array::full_on(&dev, &[n - 1, n - 1], 0, core.dtype())?;
        if n > 2 {
            let ones = Array::full_on(&dev, &[n - 2], 1, core.dtype())?;
            crate::linalg::diag(&ones, -1)?.copy_into(&a)?;
        }
        let lead = core.slice(&[SliceArg::Index(0)])?;
        let row = core.slice(&[SliceArg::range(1, n as isize, 1)])?.negative()?.div(&lead)?;
        row.copy_into(&a.slice(&[SliceArg::Index(0)])?)?;
        crate::linalg::eigvals(&a)?
    } else {
        Array::empty_on(&dev, &[0], core.dtype())?
    };
    if trailing > 0 {
        let z = Array::full_on(&dev, &[trailing], 0, r.dtype())?;
        r = crate::index::concatenate(&[&r, &z], 0)?;
    }
    Ok(r)
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

/// NumPy's `savetxt(fname, X, delimiter=' ')` for a 1-d or 2-d numeric array, NumPy's
/// default format `%.18e` (integers as integers).
pub fn savetxt(path: impl AsRef<Path>, x: &Array, delimiter: &str) -> Result<()> {
    if x.ndim() == 0 || x.ndim() > 2 || x.dtype().is_complex() {
        return Err(Error::value(
            "savetxt",
            format!("expected a real 1-d or 2-d array, got {:?} {}", x.shape(), x.dtype()),
        ));
    }
    let cols = if x.ndim() == 2 { x.shape()[1] } else { 1 };
    let mut s = String::new();
    if x.dtype().is_integer() || x.dtype() == DType::Bool {
        let v = x.astype(DType::I64)?.to_vec::<i64>()?;
        for row in v.chunks(cols.max(1)) {
            s.push_str(&row.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(delimiter));
            s.push('\n');
        }
    } else {
        let v = x.astype(DType::F64)?.to_vec::<f64>()?;
        for row in v.chunks(cols.max(1)) {
            s.push_str(&row.iter().map(|e| format!("{e:.18e}")).collect::<Vec<_>>().join(delimiter));
            s.push('\n');
        }
    }
    std::fs::write(path.as_ref(), s)
        .map_err(|e| Error::Io { context: format!("savetxt to {}", path.as_ref().display()), message: e.to_string() })
}

/// NumPy's `loadtxt(fname, delimiter)` of numeric text: float64, 1-d for one column (or one
/// row), else 2-d; `#` starts a comment; `None` splits at whitespace.
pub fn loadtxt(path: impl AsRef<Path>, delimiter: Option<&str>) -> Result<Array> {
    let p = path.as_ref().display().to_string();
    let text = std::fs::read_to_string(path.as_ref())
        .map_err(|e| Error::Io { context: format!("loadtxt from {p}"), message: e.to_string() })?;
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = match delimiter {
            Some(d) => line.split(d).map(str::trim).collect(),
            None => line.split_whitespace().collect(),
        };
        let row = fields
            .iter()
            .map(|f| {
                f.parse::<f64>().map_err(|_| {
                    Error::value("loadtxt", format!("could not convert string {f:?} to float64 at row {ln}"))
                })
            })
            .collect::<Result<Vec<f64>>>()?;
        if let Some(first) = rows.first() {
            if first.len() != row.len() {
                return Err(Error::value(
                    "loadtxt",
                    format!("the number of columns changed from {} to {} at row {}", first.len(), row.len(), ln + 1),
                ));
            }
        }
        rows.push(row);
    }
    let cols = rows.first().map_or(0, |r| r.len());
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    let shape = if rows.len() == 1 || cols == 1 { vec![flat.len()] } else { vec![rows.len(), cols] };
    Array::from_slice_on(&current_device()?, &flat, &shape)
}
