//! NumPy's array manipulation: joining (`concatenate`, `stack`, the stacking helpers, `block`),
//! splitting (`split`, `array_split`, `hsplit`, `vsplit`, `dsplit`, `unstack`), flips, rolls,
//! repeats, tiles and axis moves, `broadcast_arrays`, adding and removing elements (`append`,
//! `insert`, `delete`, `resize`, `trim_zeros`), `diff`, and triangles and diagonals (`tri`,
//! `tril`, `triu`, `diagflat`); views where NumPy's are views (flips, splits, `unstack`,
//! `broadcast_arrays`), else copies built from slicing, broadcasting and `concatenate`.

use xp_backend_api::{DType, Error, Result};

use crate::indexing::flatnonzero;
use crate::layout::{checked_size, normalize_axes, normalize_axis};
use crate::{Array, Scalar, SliceArg};

/// `a[..., ::-1, ...]` on axis `ax` (already normalized).
fn reversed(a: &Array, ax: usize) -> Result<Array> {
    let mut sl = vec![SliceArg::ALL; a.ndim()];
    sl[ax] = SliceArg::Range { start: None, stop: None, step: Some(-1) };
    a.slice(&sl)
}

/// `a[..., start:stop, ...]` on axis `ax`.
fn range_on(a: &Array, ax: usize, start: Option<isize>, stop: Option<isize>) -> Result<Array> {
    let mut sl = vec![SliceArg::ALL; a.ndim()];
    sl[ax] = SliceArg::Range { start, stop, step: None };
    a.slice(&sl)
}

/// NumPy's `flip(a, axis)`: a view with the order of the elements reversed along `axis`
/// (every axis when `None`).
pub fn flip(a: &Array, axis: Option<&[isize]>) -> Result<Array> {
    let axes = match axis {
        Some(ax) => normalize_axes("flip", ax, a.ndim())?,
        None => (0..a.ndim()).collect(),
    };
    let mut sl = vec![SliceArg::ALL; a.ndim()];
    for ax in axes {
        sl[ax] = SliceArg::Range { start: None, stop: None, step: Some(-1) };
    }
    a.slice(&sl)
}

/// NumPy's `fliplr`: reverse axis 1 (the array must be at least 2-d).
pub fn fliplr(a: &Array) -> Result<Array> {
    if a.ndim() < 2 {
        return Err(Error::value("fliplr", format!("the input must be >= 2-d, got shape {:?}", a.shape())));
    }
    reversed(a, 1)
}

/// NumPy's `flipud`: reverse axis 0 (the array must be at least 1-d).
pub fn flipud(a: &Array) -> Result<Array> {
    if a.ndim() < 1 {
        return Err(Error::value("flipud", "the input must be >= 1-d, got a 0-d array"));
    }
    reversed(a, 0)
}

/// NumPy's `roll(a, shift, axis)`: elements shifted by `shift` along `axis`, those past the
/// end coming back at the start; `None` rolls the flattened array and keeps the shape.
pub fn roll(a: &Array, shift: isize, axis: Option<isize>) -> Result<Array> {
    let Some(axis) = axis else {
        let flat = a.reshape(&[-1])?;
        let shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
        return roll(&flat, shift, Some(0))?.reshape(&shape);
    };
    let ax = normalize_axis("roll", axis, a.ndim())?;
    let n = a.shape()[ax] as isize;
    if n == 0 {
        return a.copy();
    }
    let s = shift.rem_euclid(n);
    if s == 0 {
        return a.copy();
    }
    let head = range_on(a, ax, Some(n - s), None)?;
    let tail = range_on(a, ax, None, Some(n - s))?;
    concatenate(&[&head, &tail], ax as isize)
}

/// NumPy's `rot90(m, k, axes)`: rotate by 90° `k` times in the plane of `axes`, from the
/// first axis towards the second (a view).
pub fn rot90(m: &Array, k: isize, axes: [isize; 2]) -> Result<Array> {
    let op = "rot90";
    let nd = m.ndim() as isize;
    if axes[0] == axes[1] || (axes[0] - axes[1]).abs() == nd {
        return Err(Error::value(op, format!("axes {axes:?} must be different")));
    }
    if axes.iter().any(|&a| a >= nd || a < -nd) {
        return Err(Error::Axis {
            op: op.into(),
            reason: format!("axes {axes:?} are out of range for an array of dimension {nd}"),
        });
    }
    let (a0, a1) = (normalize_axis(op, axes[0], m.ndim())?, normalize_axis(op, axes[1], m.ndim())?);
    let k = k.rem_euclid(4);
    let mut perm: Vec<isize> = (0..nd).collect();
    perm.swap(a0, a1);
    match k {
        0 => m.slice(&[SliceArg::Ellipsis]),
        2 => flip(m, Some(&[a0 as isize, a1 as isize])),
        1 => reversed(m, a1)?.permute(&perm),
        _ => reversed(&m.permute(&perm)?, a1),
    }
}

/// NumPy's `repeat(a, repeats, axis)` with one count: each element `repeats` times in a
/// row along `axis`; `None` repeats the flattened array.
pub fn repeat(a: &Array, repeats: usize, axis: Option<isize>) -> Result<Array> {
    let (a, ax) = match axis {
        Some(axis) => (a.clone(), normalize_axis("repeat", axis, a.ndim())?),
        None => (a.reshape(&[-1])?, 0),
    };
    let mut wide = a.shape().to_vec();
    wide.insert(ax + 1, repeats);
    checked_size("repeat", &wide)?;
    let spread = a.expand_dims(ax as isize + 1)?.broadcast_to(&wide)?.copy()?;
    let mut shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
    shape[ax] *= repeats as isize;
    spread.reshape(&shape)
}

/// NumPy's `tile(a, reps)`: `a` repeated `reps[i]` times along each axis; the shorter of
/// `a.shape` and `reps` is padded with leading ones.
pub fn tile(a: &Array, reps: &[usize]) -> Result<Array> {
    let nd = a.ndim().max(reps.len());
    let mut shape = vec![1usize; nd - a.ndim()];
    shape.extend_from_slice(a.shape());
    let mut r = vec![1usize; nd - reps.len()];
    r.extend_from_slice(reps);
    let out: Vec<usize> = shape.iter().zip(&r).map(|(s, r)| s * r).collect();
    checked_size("tile", &out)?;
    let split: Vec<isize> = shape.iter().flat_map(|&s| [1, s as isize]).collect();
    let wide: Vec<usize> = shape.iter().zip(&r).flat_map(|(&s, &r)| [r, s]).collect();
    let out: Vec<isize> = out.iter().map(|&d| d as isize).collect();
    a.reshape(&split)?.broadcast_to(&wide)?.copy()?.reshape(&out)
}

/// NumPy's `moveaxis(a, source, destination)`: the axes `source` moved to the positions
/// `destination`, the others keeping their order (a view).
pub fn moveaxis(a: &Array, source: &[isize], destination: &[isize]) -> Result<Array> {
    let op = "moveaxis";
    if source.len() != destination.len() {
        return Err(Error::value(
            op,
            format!("source {source:?} and destination {destination:?} must have the same number of elements"),
        ));
    }
    let src = normalize_axes(op, source, a.ndim())?;
    let dst = normalize_axes(op, destination, a.ndim())?;
    let mut order: Vec<usize> = (0..a.ndim()).filter(|d| !src.contains(d)).collect();
    let mut pairs: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
    pairs.sort_unstable();
    for (d, s) in pairs {
        order.insert(d, s);
    }
    let perm: Vec<isize> = order.into_iter().map(|d| d as isize).collect();
    a.permute(&perm)
}

/// NumPy's `swapaxes(a, axis1, axis2)` (a view).
pub fn swapaxes(a: &Array, axis1: isize, axis2: isize) -> Result<Array> {
    let i = normalize_axis("swapaxes", axis1, a.ndim())?;
    let j = normalize_axis("swapaxes", axis2, a.ndim())?;
    let mut perm: Vec<isize> = (0..a.ndim() as isize).collect();
    perm.swap(i, j);
    a.permute(&perm)
}

/// NumPy's `atleast_1d`: a 0-d array as shape `(1,)`, others unchanged (views).
pub fn atleast_1d(a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape(&[1]),
        _ => Ok(a.clone()),
    }
}

/// NumPy's `atleast_2d`: `()` → `(1, 1)`, `(N,)` → `(1, N)` (views).
pub fn atleast_2d(a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape(&[1, 1]),
        1 => a.expand_dims(0),
        _ => Ok(a.clone()),
    }
}

/// NumPy's `atleast_3d`: `()` → `(1, 1, 1)`, `(N,)` → `(1, N, 1)`, `(M, N)` → `(M, N, 1)`.
pub fn atleast_3d(a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape(&[1, 1, 1]),
        1 => a.expand_dims(0)?.expand_dims(2),
        2 => a.expand_dims(2),
        _ => Ok(a.clone()),
    }
}

/// NumPy's `append(arr, values, axis)`: `concatenate` along `axis`, or of both flattened
/// when `None`.
pub fn append(arr: &Array, values: &Array, axis: Option<isize>) -> Result<Array> {
    match axis {
        Some(axis) => concatenate(&[arr, values], axis),
        None => concatenate(&[&arr.reshape(&[-1])?, &values.reshape(&[-1])?], 0),
    }
}

/// NumPy's `diff(a, n, axis)`: the `n`-th forward difference along `axis` (`!=` for bool).
pub fn diff(a: &Array, n: usize, axis: isize) -> Result<Array> {
    if a.ndim() == 0 {
        return Err(Error::value("diff", "diff requires input that is at least one dimensional"));
    }
    let ax = normalize_axis("diff", axis, a.ndim())?;
    let mut out = a.clone();
    for _ in 0..n {
        let hi = range_on(&out, ax, Some(1), None)?;
        let lo = range_on(&out, ax, None, Some(-1))?;
        out = if out.dtype() == DType::Bool { hi.ne(&lo)? } else { hi.sub(&lo)? };
    }
    Ok(out)
}

/// Join arrays along an existing axis (dtypes promote as NumPy).
pub fn concatenate(arrays: &[&Array], axis: isize) -> Result<Array> {
    let Some(first) = arrays.first() else {
        return Err(Error::value("concatenate", "need at least one array to concatenate"));
    };
    let dev = crate::ufunc::common_device("concatenate", arrays)?;
    let nd = first.ndim();
    if nd == 0 {
        return Err(Error::value("concatenate", "zero-dimensional arrays cannot be concatenated"));
    }
    let ax = normalize_axis("concatenate", axis, nd)?;
    let mut shape = first.shape().to_vec();
    let mut dtype = first.dtype();
    for a in &arrays[1..] {
        if a.ndim() != nd || (0..nd).any(|d| d != ax && a.shape()[d] != first.shape()[d]) {
            return Err(Error::ShapeMismatch {
                op: "concatenate".into(),
                lhs: first.shape().to_vec(),
                rhs: a.shape().to_vec(),
                reason: format!("must match except along axis {ax}"),
            });
        }
        shape[ax] += a.shape()[ax];
        dtype = crate::promote_types(dtype, a.dtype());
    }
    let out = Array::empty_on(&dev, &shape, dtype)?;
    let mut at = 0isize;
    for a in arrays {
        let len = a.shape()[ax] as isize;
        let mut sl = vec![SliceArg::ALL; nd];
        sl[ax] = SliceArg::range(at, at + len, 1);
        a.copy_into(&out.slice(&sl)?)?;
        at += len;
    }
    Ok(out)
}

/// Join arrays of one shape along a new axis.
pub fn stack(arrays: &[&Array], axis: isize) -> Result<Array> {
    let Some(first) = arrays.first() else {
        return Err(Error::value("stack", "need at least one array to stack"));
    };
    for a in &arrays[1..] {
        if a.shape() != first.shape() {
            return Err(Error::ShapeMismatch {
                op: "stack".into(),
                lhs: first.shape().to_vec(),
                rhs: a.shape().to_vec(),
                reason: "must be equal to stack".into(),
            });
        }
    }
    let ax = normalize_axis("stack", axis, first.ndim() + 1)? as isize;
    let expanded: Vec<Array> = arrays.iter().map(|a| a.expand_dims(ax)).collect::<Result<_>>()?;
    let refs: Vec<&Array> = expanded.iter().collect();
    concatenate(&refs, ax)
}

fn check_nonempty(op: &str, arrays: &[&Array]) -> Result<()> {
    if arrays.is_empty() {
        return Err(Error::value(op, "need at least one array to concatenate"));
    }
    Ok(())
}

/// NumPy's `hstack`: 1-d arrays joined end to end, others along axis 1.
pub fn hstack(arrays: &[&Array]) -> Result<Array> {
    check_nonempty("hstack", arrays)?;
    let arrs: Vec<Array> = arrays.iter().map(|a| atleast_1d(a)).collect::<Result<_>>()?;
    let refs: Vec<&Array> = arrs.iter().collect();
    concatenate(&refs, if arrs[0].ndim() == 1 { 0 } else { 1 })
}

/// NumPy's `vstack`: arrays made at least 2-d, joined along axis 0.
pub fn vstack(arrays: &[&Array]) -> Result<Array> {
    check_nonempty("vstack", arrays)?;
    let arrs: Vec<Array> = arrays.iter().map(|a| atleast_2d(a)).collect::<Result<_>>()?;
    concatenate(&arrs.iter().collect::<Vec<_>>(), 0)
}

/// NumPy's `dstack`: arrays made at least 3-d, joined along axis 2.
pub fn dstack(arrays: &[&Array]) -> Result<Array> {
    check_nonempty("dstack", arrays)?;
    let arrs: Vec<Array> = arrays.iter().map(|a| atleast_3d(a)).collect::<Result<_>>()?;
    concatenate(&arrs.iter().collect::<Vec<_>>(), 2)
}

/// NumPy's `column_stack`: 1-d arrays as columns, 2-d arrays as they are, joined along axis 1.
pub fn column_stack(arrays: &[&Array]) -> Result<Array> {
    check_nonempty("column_stack", arrays)?;
    let arrs: Vec<Array> = arrays
        .iter()
        .map(|a| if a.ndim() < 2 { Ok(atleast_2d(a)?.t()) } else { Ok((*a).clone()) })
        .collect::<Result<_>>()?;
    concatenate(&arrs.iter().collect::<Vec<_>>(), 1)
}

/// NumPy's `tri(N, M, k, dtype)`: ones at and below diagonal `k` of an `N`×`M` array (`M`
/// defaults to `N`), on the current device.
pub fn tri(n: usize, m: Option<usize>, k: isize, dtype: DType) -> Result<Array> {
    let m = m.unwrap_or(n);
    checked_size("tri", &[n, m])?;
    let rows = crate::arange(0, n as i64, 1, Some(DType::I64))?.reshape(&[n as isize, 1])?;
    let cols = crate::arange(0, m as i64, 1, Some(DType::I64))?.reshape(&[1, m as isize])?;
    // Row i keeps the columns j with j - i <= k.
    cols.sub(&rows)?.le(k)?.astype(dtype)
}

/// The lower (`lower`) or upper triangle of the last two axes, the rest zero; a 1-d array is
/// spread over the rows of a square matrix, as NumPy does.
fn triangle(op: &str, a: &Array, k: isize, lower: bool) -> Result<Array> {
    let (m, n) = match a.shape() {
        [] => return Err(Error::value(op, "the input must be at least 1-d, got a 0-d array")),
        [n] => (*n, *n),
        s => (s[s.len() - 2], s[s.len() - 1]),
    };
    let dev = a.device_arc();
    let keep = crate::with_device(&dev, || {
        if lower {
            tri(m, Some(n), k, DType::Bool)
        } else {
            tri(m, Some(n), k - 1, DType::Bool)?.logical_not()
        }
    })?;
    let zero = Array::scalar_on(&dev, 0, a.dtype())?;
    crate::where_(&keep, a.into(), (&zero).into())
}

/// NumPy's `tril(m, k)`: the elements on and below diagonal `k` of each matrix, zeros above.
pub fn tril(m: &Array, k: isize) -> Result<Array> {
    triangle("tril", m, k, true)
}

/// NumPy's `triu(m, k)`: the elements on and above diagonal `k` of each matrix, zeros below.
pub fn triu(m: &Array, k: isize) -> Result<Array> {
    triangle("triu", m, k, false)
}

/// NumPy's `diagflat(v, k)`: the flattened `v` on diagonal `k` of a square matrix.
pub fn diagflat(v: &Array, k: isize) -> Result<Array> {
    crate::linalg::diag(&v.ravel()?, k)
}

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
        joined.push(crate::concatenate(&refs, -1)?);
    }
    let refs: Vec<&Array> = joined.iter().collect();
    crate::concatenate(&refs, -2)
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

pub(super) fn index_i64(dev: &std::sync::Arc<dyn xp_backend_api::DynDevice>, v: &[i64]) -> Result<Array> {
    Array::from_slice_on(dev, v, &[v.len()])
}

/// NumPy's `delete(arr, obj, axis)`: `arr` without the slices `obj` along `axis` (of the
/// flattened array when `None`).
pub fn delete(arr: &Array, obj: &[isize], axis: Option<isize>) -> Result<Array> {
    let op = "delete";
    let (a, ax) = match axis {
        Some(x) => (arr.clone(), normalize_axis(op, x, arr.ndim())?),
        None => (arr.reshape(&[-1])?, 0),
    };
    let n = a.shape()[ax] as isize;
    let mut keep = vec![true; n as usize];
    for &i in obj {
        if i < -n || i >= n {
            return Err(Error::Index {
                op: op.into(),
                reason: format!("index {i} is out of bounds for axis {ax} with size {n}"),
            });
        }
        keep[i.rem_euclid(n.max(1)) as usize] = false;
    }
    let idx: Vec<i64> = (0..n as i64).filter(|&i| keep[i as usize]).collect();
    a.take(&index_i64(&a.device_arc(), &idx)?, Some(ax as isize))
}

/// NumPy's `insert(arr, obj, values, axis)` with one position: `values` (a scalar, converted
/// to `arr`'s dtype) inserted before index `obj` along `axis` (of the flattened array when
/// `None`).
pub fn insert(arr: &Array, obj: isize, values: Scalar, axis: Option<isize>) -> Result<Array> {
    let op = "insert";
    let (a, ax) = match axis {
        Some(x) => (arr.clone(), normalize_axis(op, x, arr.ndim())?),
        None => (arr.reshape(&[-1])?, 0),
    };
    let n = a.shape()[ax] as isize;
    if obj < -n || obj > n {
        return Err(Error::Index {
            op: op.into(),
            reason: format!("index {obj} is out of bounds for axis {ax} with size {n}"),
        });
    }
    let at = if obj < 0 { obj + n } else { obj };
    let mut shape = a.shape().to_vec();
    shape[ax] = 1;
    let v = Array::full_on(&a.device_arc(), &shape, values, a.dtype())?;
    let mut lo = vec![SliceArg::ALL; a.ndim()];
    let mut hi = lo.clone();
    lo[ax] = SliceArg::Range { start: None, stop: Some(at), step: None };
    hi[ax] = SliceArg::Range { start: Some(at), stop: None, step: None };
    crate::concatenate(&[&a.slice(&lo)?, &v, &a.slice(&hi)?], ax as isize)
}

/// NumPy's `resize(a, new_shape)`: the flattened `a` repeated as often as needed to fill
/// `new_shape` (zeros when `a` is empty).
pub fn resize(a: &Array, new_shape: &[usize]) -> Result<Array> {
    let size = checked_size("resize", new_shape)?;
    let dev = a.device_arc();
    if a.size() == 0 {
        return Array::full_on(&dev, new_shape, 0, a.dtype());
    }
    let pos = crate::with_device(&dev, || crate::arange(0, size as i64, 1, Some(DType::I64)))?.rem(a.size() as i64)?;
    let shape: Vec<isize> = new_shape.iter().map(|&d| d as isize).collect();
    a.reshape(&[-1])?.take(&pos, Some(0))?.reshape(&shape)
}
