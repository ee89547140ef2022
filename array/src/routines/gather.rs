//! Selection and assembly by index: `take_along_axis`, `choose`, `select`, `compress`,
//! `putmask`, `copyto`, `delete`, `insert`, `resize`, `vander`, composed of `take`,
//! `where_` and the joins.

use xp_backend_api::{DType, Error, Result};

use crate::layout::{checked_size, normalize_axis};
use crate::{where_, Array, Scalar, SliceArg};

fn index_i64(dev: &std::sync::Arc<dyn xp_backend_api::DynDevice>, v: &[i64]) -> Result<Array> {
    Array::from_slice_on(dev, v, &[v.len()])
}

/// NumPy's `take_along_axis(arr, indices, axis)`: `arr`'s elements at `indices` along
/// `axis`, the other axes matched by broadcasting (negative indices count from the end).
pub fn take_along_axis(arr: &Array, indices: &Array, axis: isize) -> Result<Array> {
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
    let idx = indices.astype(DType::I64)?;
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

/// NumPy's `putmask(a, mask, values)` as a new array: where `mask` is true, element `n` of
/// the flattened result is `values[n % len(values)]`.
pub fn putmask(a: &Array, mask: &Array, values: &Array) -> Result<Array> {
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
    let s = src.astype(dst.dtype())?.broadcast_to(dst.shape())?;
    where_(&where_mask.broadcast_to(dst.shape())?, (&s).into(), dst.into())?.astype(dst.dtype())
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

/// NumPy's `vander(x, N)`: the columns `x**(N-1), …, x, 1` of the 1-d `x` (`N` defaults to
/// `len(x)`), powers by repeated multiplication (integers in int64).
pub fn vander(x: &Array, n: Option<usize>) -> Result<Array> {
    let op = "vander";
    if x.ndim() != 1 {
        return Err(Error::value(op, format!("x must be a one-dimensional array, got shape {:?}", x.shape())));
    }
    // NumPy computes in `promote_types(x.dtype, int)`: integers widen to int64.
    let x = &x.astype(crate::promote_types(x.dtype(), DType::I64))?;
    let (m, n) = (x.shape()[0], n.unwrap_or(x.shape()[0]));
    let ones = Array::full_on(&x.device_arc(), &[m, n.min(1)], 1, x.dtype())?;
    let inc = if n > 1 {
        let col = x.reshape(&[m as isize, 1])?.broadcast_to(&[m, n - 1])?;
        let mut acc = vec![col.slice(&[SliceArg::ALL, SliceArg::range(0, 1, 1)])?];
        for j in 1..n - 1 {
            let next =
                product(&acc[j - 1], &col.slice(&[SliceArg::ALL, SliceArg::range(j as isize, j as isize + 1, 1)])?)?;
            acc.push(next);
        }
        let mut parts = vec![ones];
        parts.extend(acc);
        crate::concatenate(&parts.iter().collect::<Vec<_>>(), 1)?
    } else {
        ones
    };
    crate::flip(&inc, Some(&[1]))?.copy()
}

/// How [`pad`] fills the new elements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PadMode {
    /// A constant (NumPy's `constant_values`).
    Constant(Scalar),
    /// The edge value repeated.
    Edge,
    /// The mirror image without repeating the edge (`reflect`).
    Reflect,
    /// The mirror image repeating the edge (`symmetric`).
    Symmetric,
    /// The other end's values (`wrap`).
    Wrap,
    /// A linear ramp from this end value to the edge value (`linear_ramp`, `end_values`).
    LinearRamp(Scalar),
    /// The largest of the `stat_length` elements nearest the edge (`None`: the whole axis).
    Maximum(Option<usize>),
    /// The smallest of them (`minimum`).
    Minimum(Option<usize>),
    /// Their mean, rounded for integer arrays (`mean`).
    Mean(Option<usize>),
    /// Their median, rounded for integer arrays (`median`).
    Median(Option<usize>),
    /// Unspecified values (`empty`; xp writes zeros).
    Empty,
}

impl PadMode {
    /// The mode named as NumPy names it (`constant` pads with 0).
    pub fn from_name(name: &str) -> Result<PadMode> {
        Ok(match name {
            "constant" => PadMode::Constant(Scalar::Int(0)),
            "edge" => PadMode::Edge,
            "reflect" => PadMode::Reflect,
            "symmetric" => PadMode::Symmetric,
            "wrap" => PadMode::Wrap,
            "linear_ramp" => PadMode::LinearRamp(Scalar::Int(0)),
            "maximum" => PadMode::Maximum(None),
            "minimum" => PadMode::Minimum(None),
            "mean" => PadMode::Mean(None),
            "median" => PadMode::Median(None),
            "empty" => PadMode::Empty,
            _ => return Err(Error::value("pad", format!("mode {name:?} is not supported"))),
        })
    }

    /// The source index of padded position `p` (from `-before`) on an axis of `n > 0`.
    fn source(self, p: i64, n: i64) -> i64 {
        match self {
            PadMode::Constant(_)
            | PadMode::Edge
            | PadMode::LinearRamp(_)
            | PadMode::Maximum(_)
            | PadMode::Minimum(_)
            | PadMode::Mean(_)
            | PadMode::Median(_)
            | PadMode::Empty => p.clamp(0, n - 1),
            PadMode::Wrap => p.rem_euclid(n),
            PadMode::Reflect if n == 1 => 0,
            PadMode::Reflect => {
                let q = p.rem_euclid(2 * n - 2);
                if q >= n {
                    2 * n - 2 - q
                } else {
                    q
                }
            }
            PadMode::Symmetric => {
                let q = p.rem_euclid(2 * n);
                if q >= n {
                    2 * n - 1 - q
                } else {
                    q
                }
            }
        }
    }
}

/// NumPy's `pad(array, pad_width, mode)`: `pad_width[i] = (before, after)` elements added on
/// axis `i` (one pair applies to every axis).
pub fn pad(array: &Array, pad_width: &[(usize, usize)], mode: PadMode) -> Result<Array> {
    let op = "pad";
    let nd = array.ndim();
    let widths: Vec<(usize, usize)> = match pad_width.len() {
        1 => vec![pad_width[0]; nd],
        k if k == nd => pad_width.to_vec(),
        k => {
            return Err(Error::value(op, format!("pad_width has {k} pairs for an array of dimension {nd}")));
        }
    };
    let dev = array.device_arc();
    let mut out = array.clone();
    for (ax, &(before, after)) in widths.iter().enumerate() {
        if before == 0 && after == 0 {
            continue;
        }
        let n = out.shape()[ax];
        let mode = if mode == PadMode::Empty { PadMode::Constant(Scalar::Int(0)) } else { mode };
        if let Some(parts) = pad_computed(&out, ax, before, after, mode)? {
            out = crate::concatenate(&[&parts.0, &out, &parts.1], ax as isize)?;
            continue;
        }
        if let PadMode::Constant(v) = mode {
            let mut parts = Vec::with_capacity(3);
            for w in [before, after] {
                let mut shape = out.shape().to_vec();
                shape[ax] = w;
                parts.push(Array::full_on(&dev, &shape, v, out.dtype())?);
            }
            out = crate::concatenate(&[&parts[0], &out, &parts[1]], ax as isize)?;
            continue;
        }
        if n == 0 {
            return Err(Error::value(op, format!("can't extend empty axis {ax} using modes other than 'constant'")));
        }
        let idx: Vec<i64> = (-(before as i64)..(n + after) as i64).map(|p| mode.source(p, n as i64)).collect();
        out = out.take(&index_i64(&dev, &idx)?, Some(ax as isize))?;
    }
    if out.shares_buffer(array) {
        out.copy()
    } else {
        Ok(out)
    }
}

/// The blocks before and after `x` along `ax` of the modes computed from the values
/// (`linear_ramp` and the statistics), as NumPy's `pad` computes them; `None` for the others.
fn pad_computed(x: &Array, ax: usize, before: usize, after: usize, mode: PadMode) -> Result<Option<(Array, Array)>> {
    let op = "pad";
    let n = x.shape()[ax];
    let dt = x.dtype();
    let int = !(dt.is_float() || dt.is_complex());
    let fit = |a: Array| -> Result<Array> {
        let a = if int && (a.dtype().is_float() || a.dtype().is_complex()) { a.rint()? } else { a };
        a.astype(dt)
    };
    let along = |lo: usize, hi: usize| -> Result<Array> {
        let mut args = vec![SliceArg::ALL; x.ndim()];
        args[ax] = SliceArg::range(lo as isize, hi as isize, 1);
        x.slice(&args)
    };
    let block = |v: &Array, w: usize| -> Result<Array> {
        let mut shape = x.shape().to_vec();
        shape[ax] = w;
        v.broadcast_to(&shape)?.copy()
    };
    let stat = |len: Option<usize>, f: &dyn Fn(&Array) -> Result<Array>| -> Result<Option<(Array, Array)>> {
        if n == 0 {
            return Err(Error::value(
                op,
                format!("can't extend empty axis {ax} using modes other than 'constant' or 'empty'"),
            ));
        }
        let k = len.unwrap_or(n).min(n);
        if k == 0 {
            return Err(Error::value(op, "stat_length of 0 yields no value for padding"));
        }
        let lo = fit(f(&along(0, k)?)?)?;
        let hi = fit(f(&along(n - k, n)?)?)?;
        Ok(Some((block(&lo, before)?, block(&hi, after)?)))
    };
    let axes = [ax as isize];
    match mode {
        PadMode::Maximum(k) => stat(k, &|a| a.max(Some(&axes), true)),
        PadMode::Minimum(k) => stat(k, &|a| a.min(Some(&axes), true)),
        PadMode::Mean(k) => stat(k, &|a| a.mean(Some(&axes), true)),
        PadMode::Median(k) => stat(k, &|a| crate::routines::median(a, Some(ax as isize), true)),
        PadMode::LinearRamp(end) => {
            if n == 0 {
                return Err(Error::value(
                    op,
                    format!("can't extend empty axis {ax} using modes other than 'constant' or 'empty'"),
                ));
            }
            // linspace(end, edge, w, endpoint=False) before, its mirror after: end + k (edge -
            // end) / w, in the array's float type (float64 for integers), floored for integers.
            let ft = if dt.is_float() || dt.is_complex() { dt } else { DType::F64 };
            let ramp = |edge: Array, w: usize, rev: bool| -> Result<Array> {
                let mut shape = vec![1isize; x.ndim()];
                shape[ax] = w as isize;
                let e = edge.astype(ft)?;
                let end_a = Array::full_on(&x.device_arc(), &[], end, ft)?;
                let step = e.sub(&end_a)?.div(w.max(1) as f64)?;
                let k = crate::arange(0, w as i64, 1, Some(ft))?.reshape(&shape)?;
                let k = if rev { crate::flip(&k, Some(&axes))? } else { k };
                let v = k.mul(&step)?.add(&end_a)?;
                let v = if int { v.floor()? } else { v };
                v.astype(dt)
            };
            Ok(Some((ramp(along(0, 1)?, before, false)?, ramp(along(n - 1, n)?, after, true)?)))
        }
        _ => Ok(None),
    }
}

/// `a · b` as NumPy's accumulating loops compute it: for complex numbers each part rounded
/// after each operation (`ar·br - ai·bi`), not with the fused multiply-add of `multiply`.
fn product(a: &Array, b: &Array) -> Result<Array> {
    if !a.dtype().is_complex() {
        return a.mul(b);
    }
    let (ar, ai, br, bi) = (a.real(), a.imag()?, b.real(), b.imag()?);
    let re = ar.mul(&br)?.sub(&ai.mul(&bi)?)?;
    let im = ar.mul(&bi)?.add(&ai.mul(&br)?)?;
    crate::routines::math::complex_from(&re, &im, a.dtype())
}
