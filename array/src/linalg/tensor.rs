//! NumPy 2's `vecdot` and `numpy.linalg`'s tensor equations, `tensorsolve` and `tensorinv`.
//!
//! `vecdot` is an elementwise product and a sum over one axis (the conjugate of the first
//! operand, as NumPy 2 and the array API define it), so it fuses and runs on every device; its
//! dtype is the operands' promoted dtype (NumPy's gufunc loops keep int32 as int32, wrapping
//! on overflow as NumPy does). `tensorsolve` and `tensorinv` reshape the tensor to a square
//! matrix and call [`solve`](super::solve) and [`inv`](super::inv), whose errors (a singular
//! matrix is `LinAlg`) they keep.

use xp_backend_api::{Error, Result};

use crate::layout::normalize_axis;
use crate::Array;

/// NumPy 2's `vecdot(x1, x2, axis)`: `Σ conj(x1) · x2` over `axis` (of each operand; the other
/// axes broadcast). The result has the operands' promoted dtype.
///
/// Errors: the two axes of different lengths (`Value`); `axis` out of range (`Axis`); shapes
/// that do not broadcast (`ShapeMismatch`).
pub fn vecdot(x1: &Array, x2: &Array, axis: isize) -> Result<Array> {
    let op = "vecdot";
    crate::exec::same_device(op, &[x1, x2])?;
    let (a1, a2) = (normalize_axis(op, axis, x1.ndim())?, normalize_axis(op, axis, x2.ndim())?);
    if x1.shape()[a1] != x2.shape()[a2] {
        return Err(Error::value(
            op,
            format!(
                "Input operands have different lengths along axis {axis}: shapes {:?} and {:?}",
                x1.shape(),
                x2.shape()
            ),
        ));
    }
    let last = |x: &Array, a: usize| crate::moveaxis(x, &[a as isize], &[-1]);
    let (l1, l2) = (last(x1, a1)?, last(x2, a2)?);
    let dtype = crate::promote_types(x1.dtype(), x2.dtype());
    let l1 = if l1.dtype().is_complex() { l1.conj()? } else { l1 };
    l1.mul(&l2)?.sum(Some(&[-1]), false)?.astype(dtype)
}

/// NumPy's `linalg.tensorsolve(a, b, axes)`: the `x` with `tensordot(a, x, x.ndim) == b`.
/// `axes` names axes of `a` moved to the end first (each once, counted from 0). `x` has shape
/// `a.shape[b.ndim:]`, whose product must equal that of `a.shape[:b.ndim]`.
///
/// Errors: the shapes do not make a square system (`LinAlg`, as NumPy); a bad entry of `axes`
/// (`Value`); a singular system (`LinAlg`).
pub fn tensorsolve(a: &Array, b: &Array, axes: Option<&[usize]>) -> Result<Array> {
    let op = "tensorsolve";
    crate::exec::same_device(op, &[a, b])?;
    let an = a.ndim();
    let a = match axes {
        None => a.clone(),
        Some(axes) => {
            let mut order: Vec<usize> = (0..an).collect();
            for &k in axes {
                let at = order.iter().position(|&d| d == k).ok_or_else(|| {
                    Error::value(op, format!("axes {axes:?}: {k} is not an axis of a (of {an} dimensions), or repeats"))
                })?;
                order.remove(at);
                order.push(k);
            }
            a.permute(&order.iter().map(|&d| d as isize).collect::<Vec<_>>())?
        }
    };
    // NumPy's `a.shape[-(an - b.ndim):]`, Python's slice: the whole shape when the two have
    // as many dimensions, else the last `an - b.ndim` (or from `b.ndim - an` when that is
    // negative).
    let tail = match an.cmp(&b.ndim()) {
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => b.ndim(),
        std::cmp::Ordering::Less => (b.ndim() - an).min(an),
    };
    let old_shape = a.shape()[tail..].to_vec();
    let prod: usize = old_shape.iter().product();
    if prod.checked_mul(prod) != Some(a.size()) {
        return Err(Error::LinAlg {
            op: op.into(),
            reason: format!(
                "Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim]) (a of \
                 shape {:?}, b of shape {:?})",
                a.shape(),
                b.shape()
            ),
        });
    }
    let m = a.reshape(&[prod as isize, prod as isize])?;
    let x = super::solve(&m, &b.ravel()?)?;
    x.reshape(&old_shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
}

/// NumPy's `linalg.tensorinv(a, ind)`: the inverse of `a` as a tensor operator for
/// `tensordot(…, ind)`: `a` reshaped to `(prod(a.shape[:ind]), prod(a.shape[ind:]))`,
/// inverted, and given the shape `a.shape[ind:] + a.shape[:ind]`.
///
/// Errors: `ind` 0 (`Value`); the reshape not square (`LinAlg`); a singular matrix (`LinAlg`).
pub fn tensorinv(a: &Array, ind: usize) -> Result<Array> {
    let op = "tensorinv";
    if ind == 0 {
        return Err(Error::value(op, "Invalid ind argument."));
    }
    if ind > a.ndim() {
        return Err(Error::value(op, format!("ind {ind} is more than the {} dimensions of a", a.ndim())));
    }
    let (head, tail) = a.shape().split_at(ind);
    let rows: usize = tail.iter().product();
    if rows == 0 || !a.size().is_multiple_of(rows) {
        return Err(Error::value(op, format!("cannot reshape an array of shape {:?} into {rows} rows", a.shape())));
    }
    let inv = super::inv(&a.reshape(&[rows as isize, -1])?)?;
    let shape: Vec<isize> = tail.iter().chain(head).map(|&d| d as isize).collect();
    inv.reshape(&shape)
}
