//! NumPy's view-making routines that reorder or repeat axes: `rollaxis`, `matrix_transpose`
//! and `lib.stride_tricks.sliding_window_view`. Each returns a view sharing the input's
//! buffer (no copy, no kernel), as NumPy does; a sliding window view's elements overlap, so
//! it is for reading (NumPy marks it read-only): `copy()` it before writing.

use xp_backend_api::{Error, Result};

use crate::layout::{normalize_axis, Layout};
use crate::Array;

/// NumPy's `rollaxis(a, axis, start)`: axis `axis` moved to stand before position `start`
/// (the others keep their order). `start` may be `-ndim ..= ndim`.
///
/// Errors: `axis` or `start` out of range (`Axis`).
pub fn rollaxis(a: &Array, axis: isize, start: isize) -> Result<Array> {
    let op = "rollaxis";
    let n = a.ndim();
    let axis = normalize_axis(op, axis, n)?;
    let s = if start < 0 { start + n as isize } else { start };
    if s < 0 || s > n as isize {
        return Err(Error::Axis {
            op: op.into(),
            reason: format!("'start' arg requires {} <= start < {}, but {start} was passed in", -(n as isize), n + 1),
        });
    }
    let mut start = s as usize;
    if axis < start {
        start -= 1;
    }
    let mut order: Vec<isize> = (0..n as isize).filter(|&d| d != axis as isize).collect();
    order.insert(start, axis as isize);
    a.permute(&order)
}

/// NumPy 2's `matrix_transpose(x)`: the last two axes swapped (a view).
///
/// Errors: fewer than 2 dimensions (`Value`).
pub fn matrix_transpose(x: &Array) -> Result<Array> {
    if x.ndim() < 2 {
        return Err(Error::value(
            "matrix_transpose",
            format!("Input array must be at least 2-dimensional, got shape {:?}", x.shape()),
        ));
    }
    crate::swapaxes(x, -1, -2)
}

/// NumPy's `lib.stride_tricks.sliding_window_view(x, window_shape, axis)`: every window of
/// extents `window_shape` as a view of shape `x.shape` (each windowed axis shortened by its
/// window less one) followed by `window_shape`. `axis` `None` windows every axis, in order
/// (`window_shape` then has one extent per axis); an axis may repeat, as in NumPy.
///
/// Errors: `window_shape` and `axis` of different lengths, a window longer than its axis
/// (`Value`); an axis out of range (`Axis`).
pub fn sliding_window_view(x: &Array, window_shape: &[usize], axis: Option<&[isize]>) -> Result<Array> {
    let op = "sliding_window_view";
    let axes: Vec<usize> = match axis {
        None => {
            if window_shape.len() != x.ndim() {
                return Err(Error::value(
                    op,
                    format!(
                        "Since axis is None, must provide window_shape for all dimensions of x; got {} window_shape \
                         elements and x.ndim is {}",
                        window_shape.len(),
                        x.ndim()
                    ),
                ));
            }
            (0..x.ndim()).collect()
        }
        Some(ax) => {
            if ax.len() != window_shape.len() {
                return Err(Error::value(
                    op,
                    format!(
                        "Must provide matching length window_shape and axis; got {} window_shape elements and {} \
                         axes elements",
                        window_shape.len(),
                        ax.len()
                    ),
                ));
            }
            ax.iter().map(|&a| normalize_axis(op, a, x.ndim())).collect::<Result<_>>()?
        }
    };
    let mut shape = x.shape().to_vec();
    let mut strides = x.strides().to_vec();
    for (&ax, &w) in axes.iter().zip(window_shape) {
        if shape[ax] < w {
            return Err(Error::value(
                op,
                format!("window shape {window_shape:?} cannot be larger than input array shape {:?}", x.shape()),
            ));
        }
        shape[ax] = shape[ax] + 1 - w;
    }
    for (&ax, &w) in axes.iter().zip(window_shape) {
        shape.push(w);
        strides.push(x.strides()[ax]);
    }
    // Invariant 4 of `layout`: every window's element is an element of `x` (each window axis
    // starts at an index of `x` and runs at most to `x`'s extent), so the view stays inside
    // the buffer; an empty result reaches nothing.
    Ok(x.with_layout(Layout::from_parts(op, shape, strides, x.layout().offset())?))
}
