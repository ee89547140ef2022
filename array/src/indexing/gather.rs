//! NumPy's indexing routines that select and assign by index: `take_along_axis`,
//! `put_along_axis`, `choose`, `select`, `compress`, `extract`, `putmask`, `copyto`, `place`
//! and `fill_diagonal`, composed of `take`, `where_`, masks and `setitem`.

use xp_backend_api::{DType, Error, Result};

use crate::layout::normalize_axis;
use crate::promote::Scalar;
use crate::{where_, Array};

/// NumPy's `take_along_axis(arr, indices, axis)`: `arr`'s elements at `indices` along
/// `axis`, the other axes matched by broadcasting (negative indices count from the end).
pub fn take_along_axis(arr: &Array, indices: &Array, axis: isize) -> Result<Array> {
    crate::exec::same_device("take_along_axis", &[arr, indices])?;
    let op = "take_along_axis";
    if !indices.dtype().is_integer() {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("indices must be integers, got {}", indices.dtype().name()),
        });
    }
    if indices.ndim() != arr.ndim() {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: arr.shape().to_vec(),
            rhs: indices.shape().to_vec(),
            reason: "must have the same number of dimensions".into(),
        });
    }
    let ax = normalize_axis(op, axis, arr.ndim())?;
    let nd = arr.ndim();
    let mut want: Vec<&[usize]> = vec![indices.shape()];
    let mut other = arr.shape().to_vec();
    other[ax] = 1;
    want.push(&other);
    let shape = crate::layout::broadcast_shapes(op, &want)?;
    let dev = arr.device_arc();
    let n = arr.shape()[ax] as i64;
    let idx = super::indices_as_i64(indices)?;
    let bad = idx.ge(n)?.logical_or(&idx.lt(-n)?)?.any(None, false)?.item::<bool>()?;
    if bad {
        return Err(Error::Index {
            op: op.into(),
            reason: format!("an index is out of bounds for axis {ax} with size {n}"),
        });
    }
    let idx = where_(&idx.lt(0)?, (&idx.add_scalar(n)?).into(), (&idx).into())?;
    // The flat position in C order of each gathered element.
    let strides = crate::layout::c_strides(arr.shape());
    let mut flat = crate::with_device(&dev, || crate::zeros(&shape, DType::I64))?;
    for d in 0..nd {
        let coord = if d == ax {
            idx.broadcast_to(&shape)?
        } else {
            let mut s = vec![1isize; nd];
            s[d] = shape[d] as isize;
            crate::with_device(&dev, || crate::arange(0, shape[d] as i64, 1, Some(DType::I64)))?.reshape(&s)?
        };
        flat = flat.add(&coord.mul_scalar(strides[d] as i64)?)?;
    }
    let src = arr.ascontiguous()?.reshape(&[-1])?;
    src.take(&flat.reshape(&[-1])?, Some(0))?.reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
}

/// NumPy's `put_along_axis(arr, indices, values, axis)`, in place: `arr[.., indices[i], ..] =
/// values[i]` along `axis`, the other axes matched by broadcasting (`values` broadcast to the
/// indices' shape, cast to `arr`'s dtype; negative indices count from the end; where an
/// index repeats, the last value wins). With `axis` `None`, `arr` is seen flattened and
/// `indices` must be 1-d. `arr` must be C-contiguous (it is written through its flat
/// elements); a bad index is an `Index` error and writes nothing.
pub fn put_along_axis(arr: &Array, indices: &Array, values: &Array, axis: Option<isize>) -> Result<()> {
    crate::exec::same_device("put_along_axis", &[arr, indices, values])?;
    let op = "put_along_axis";
    if !indices.dtype().is_integer() {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("`indices` must be an integer array, got {}", indices.dtype().name()),
        });
    }
    let Some(axis) = axis else {
        if indices.ndim() != 1 {
            return Err(Error::value(op, "when axis=None, `indices` must have a single dimension."));
        }
        if !arr.is_contiguous() {
            return Err(Error::value(op, "the target must be C-contiguous"));
        }
        return put_along_axis(&arr.reshape(&[-1])?, indices, values, Some(0));
    };
    if indices.ndim() != arr.ndim() {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: arr.shape().to_vec(),
            rhs: indices.shape().to_vec(),
            reason: "`indices` and `arr` must have the same number of dimensions".into(),
        });
    }
    let ax = normalize_axis(op, axis, arr.ndim())?;
    let nd = arr.ndim();
    let dev = arr.device_arc();
    // NumPy's fancy index: `indices` along `axis`, `arange` along every other axis.
    let mut ranges = Vec::with_capacity(nd);
    for d in 0..nd {
        if d != ax {
            let mut s = vec![1isize; nd];
            s[d] = arr.shape()[d] as isize;
            ranges.push(crate::with_device(&dev, || crate::arange(0, s[d] as i64, 1, Some(DType::I64)))?.reshape(&s)?);
        }
    }
    let mut rest = ranges.iter();
    let items: Vec<crate::IndexItem<'_>> = (0..nd)
        .map(|d| {
            crate::IndexItem::Array(if d == ax { indices } else { rest.next().expect("one range per other axis") })
        })
        .collect();
    arr.setitem(&items, values).map_err(|e| match e {
        Error::Index { reason, .. } => Error::Index { op: op.into(), reason },
        Error::Value { reason, .. } => Error::Value { op: op.into(), reason },
        e => e,
    })
}

/// NumPy's `choose(a, choices)`: element `i` from `choices[a[i]]` (all broadcast together);
/// an index outside `0..len(choices)` is an `Index` error.
pub fn choose(a: &Array, choices: &[&Array]) -> Result<Array> {
    crate::exec::same_device("choose", &[&[a], choices].concat())?;
    let op = "choose";
    let Some(first) = choices.first() else {
        return Err(Error::value(op, "choices must not be empty"));
    };
    let n = choices.len() as i64;
    if a.lt(0)?.logical_or(&a.ge(n)?)?.any(None, false)?.item::<bool>()? {
        return Err(Error::Index { op: op.into(), reason: format!("an index is outside 0..{n}") });
    }
    let mut t = first.dtype();
    for c in choices {
        t = crate::promote_types(t, c.dtype());
    }
    let mut out = first.astype(t)?;
    for (i, c) in choices.iter().enumerate().skip(1) {
        out = where_(&a.eq(i as i64)?, (*c).into(), (&out).into())?;
    }
    let mut shapes: Vec<&[usize]> = choices.iter().map(|c| c.shape()).collect();
    shapes.push(a.shape());
    let shape = crate::layout::broadcast_shapes(op, &shapes)?;
    out.broadcast_to(&shape)?.copy()
}

/// NumPy's `select(condlist, choicelist, default)`: where the first true condition picks its
/// choice, `default` where none is true.
pub fn select(condlist: &[&Array], choicelist: &[&Array], default: Scalar) -> Result<Array> {
    if !condlist.is_empty() || !choicelist.is_empty() {
        crate::exec::same_device("select", &[condlist, choicelist].concat())?;
    }
    let op = "select";
    if condlist.len() != choicelist.len() {
        return Err(Error::value(
            op,
            format!(
                "list of cases must be same length as list of conditions ({} and {})",
                condlist.len(),
                choicelist.len()
            ),
        ));
    }
    let Some(first) = choicelist.first() else {
        return Err(Error::value(op, "select with an empty condition list is not possible"));
    };
    if let Some(c) = condlist.iter().find(|c| c.dtype() != DType::Bool) {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("invalid entry in condlist: should be boolean ndarray, got {}", c.dtype().name()),
        });
    }
    let mut t = first.dtype();
    for c in choicelist {
        t = crate::promote_types(t, c.dtype());
    }
    t = crate::promote::weak_dtype(op, t, &default)?;
    let mut shapes: Vec<&[usize]> = choicelist.iter().map(|c| c.shape()).collect();
    shapes.extend(condlist.iter().map(|c| c.shape()));
    let shape = crate::layout::broadcast_shapes(op, &shapes)?;
    let mut out = Array::full_on(&first.device_arc(), &shape, default, t)?;
    for (c, v) in condlist.iter().zip(choicelist).rev() {
        out = where_(c, (*v).into(), (&out).into())?;
    }
    out.astype(t)
}

/// NumPy's `compress(condition, a, axis)`: the slices of `a` along `axis` (of the flattened
/// `a` when `None`) where the 1-d `condition` is true.
pub fn compress(condition: &Array, a: &Array, axis: Option<isize>) -> Result<Array> {
    crate::exec::same_device("compress", &[condition, a])?;
    let op = "compress";
    let (a, ax) = match axis {
        Some(x) => (a.clone(), normalize_axis(op, x, a.ndim())?),
        None => (a.reshape(&[-1])?, 0),
    };
    if condition.ndim() != 1 {
        return Err(Error::value(op, format!("condition must be 1-d, got shape {:?}", condition.shape())));
    }
    if condition.size() > a.shape()[ax] {
        return Err(Error::Index {
            op: op.into(),
            reason: format!(
                "condition of length {} is longer than axis {ax} of size {}",
                condition.size(),
                a.shape()[ax]
            ),
        });
    }
    let keep = condition.nonzero()?.remove(0);
    a.take(&keep, Some(ax as isize))
}

/// NumPy's `extract(condition, arr)`: the elements of the flattened `arr` where the flattened
/// `condition` is non-zero.
pub fn extract(condition: &Array, arr: &Array) -> Result<Array> {
    crate::exec::same_device("extract", &[condition, arr])?;
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

/// NumPy's `putmask(a, mask, values)` as a new array: where `mask` is true, element `n` of
/// the flattened result is `values[n % len(values)]`.
pub fn putmask(a: &Array, mask: &Array, values: &Array) -> Result<Array> {
    crate::exec::same_device("putmask", &[a, mask, values])?;
    let op = "putmask";
    if mask.shape() != a.shape() {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: a.shape().to_vec(),
            rhs: mask.shape().to_vec(),
            reason: "must be equal (mask and data)".into(),
        });
    }
    let nv = values.size() as i64;
    if nv == 0 {
        return a.copy();
    }
    let dev = a.device_arc();
    let pos = crate::with_device(&dev, || crate::arange(0, a.size() as i64, 1, Some(DType::I64)))?;
    let picked = values.reshape(&[-1])?.take(&pos.rem(nv)?, Some(0))?.astype(a.dtype())?;
    let shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
    where_(mask, (&picked.reshape(&shape)?).into(), a.into())?.astype(a.dtype())
}

/// NumPy's `copyto(dst, src, where)` as a new array: `src` (broadcast, converted to `dst`'s
/// dtype) where `where` is true, `dst` elsewhere.
pub fn copyto(dst: &Array, src: &Array, where_mask: &Array) -> Result<Array> {
    crate::exec::same_device("copyto", &[dst, src, where_mask])?;
    let s = src.astype(dst.dtype())?.broadcast_to(dst.shape())?;
    where_(&where_mask.broadcast_to(dst.shape())?, (&s).into(), dst.into())?.astype(dst.dtype())
}

/// NumPy's `place(arr, mask, vals)`: the elements where `mask` is set take `vals` in order,
/// repeated as needed, in place.
pub fn place(arr: &Array, mask: &Array, vals: &Array) -> Result<()> {
    crate::exec::same_device("place", &[arr, mask, vals])?;
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
    arr.setitem(&[crate::IndexItem::Mask(&m)], &v)
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
    let items: Vec<crate::IndexItem<'_>> = (0..a.ndim()).map(|_| crate::IndexItem::Array(&idx)).collect();
    let v = Array::scalar_on(&a.device_arc(), val, a.dtype())?;
    a.setitem(&items, &v)
}
