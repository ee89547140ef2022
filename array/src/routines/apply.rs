//! NumPy's `apply_along_axis`: a function of 1-d arrays applied to every 1-d slice of an array.
//!
//! As in NumPy, the function is called once per slice, in C order of the other axes: the
//! loop runs on the host over the slices (their number is the array's size over the axis's
//! extent), each call receiving a view of one slice on the array's device, so the work inside
//! `func` runs there. The answers are written into one array whose dtype and shape are those
//! of the first answer (later ones are cast to that dtype and broadcast to that shape, as
//! NumPy assigns them); its axes are the input's, with `axis` replaced by the answer's axes.
//! When the function is an xp reduction or scan along one axis, calling it with `axis` on the
//! whole array does the same work in one launch.

use xp_backend_api::{Error, Result};

use crate::layout::{normalize_axis, SliceArg};
use crate::Array;

/// NumPy's `apply_along_axis(func1d, axis, arr)`: `func(slice)` for every 1-d slice of `arr`
/// along `axis`. The result has shape `arr.shape[:axis] + r.shape + arr.shape[axis+1:]` where
/// `r` is the first answer, and `r`'s dtype.
///
/// Errors: `axis` out of range (`Axis`); an empty iteration space (another axis of extent 0,
/// `Value`, as NumPy); an answer that does not broadcast to the first one's shape
/// (`ShapeMismatch`); any error of `func`.
pub fn apply_along_axis<F>(func: F, axis: isize, arr: &Array) -> Result<Array>
where
    F: Fn(&Array) -> Result<Array>,
{
    let op = "apply_along_axis";
    let nd = arr.ndim();
    let ax = normalize_axis(op, axis, nd)?;
    let moved = crate::moveaxis(arr, &[ax as isize], &[-1])?;
    let outer: Vec<usize> = moved.shape()[..nd - 1].to_vec();
    let count: usize = outer.iter().product();
    if count == 0 {
        return Err(Error::value(
            op,
            format!("Cannot apply_along_axis when any iteration dimensions are 0 (shape {:?})", arr.shape()),
        ));
    }
    // The index of slice `flat` (C order over the other axes), then `rest` for the remaining axes.
    let index = |mut flat: usize, rest: SliceArg| {
        let mut idx = vec![rest; nd];
        for d in (0..nd - 1).rev() {
            idx[d] = SliceArg::Index((flat % outer[d]) as isize);
            flat /= outer[d];
        }
        idx
    };
    let slice_at = |flat: usize| moved.slice(&index(flat, SliceArg::ALL));
    let first = func(&slice_at(0)?)?;
    let res_shape = first.shape().to_vec();
    let mut out_shape = outer.clone();
    out_shape.extend_from_slice(&res_shape);
    let out = Array::empty_on(&arr.device_arc(), &out_shape, first.dtype())?;
    let dst = |flat: usize| out.slice(&index(flat, SliceArg::Ellipsis));
    first.copy_into(&dst(0)?)?;
    for k in 1..count {
        let r = func(&slice_at(k)?)?;
        let r = if r.shape() == res_shape.as_slice() {
            r
        } else {
            r.broadcast_to(&res_shape).map_err(|_| Error::ShapeMismatch {
                op: op.into(),
                lhs: res_shape.clone(),
                rhs: r.shape().to_vec(),
                reason: "the function's answers must all have the first answer's shape".into(),
            })?
        };
        let r = if r.dtype() == first.dtype() { r } else { r.astype(first.dtype())? };
        r.copy_into(&dst(k)?)?;
    }
    // The answer's axes go where `axis` was.
    let r = res_shape.len();
    let mut order: Vec<isize> = (0..ax as isize).collect();
    order.extend((nd - 1..nd - 1 + r).map(|d| d as isize));
    order.extend((ax..nd - 1).map(|d| d as isize));
    out.permute(&order)
}
