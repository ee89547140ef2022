//! NumPy's functions that make index arrays: `indices`, `ix_`, `diag_indices`,
//! `tril_indices`, `triu_indices`, `ravel_multi_index`, `unravel_index`, `flatnonzero`,
//! `argwhere` (and `Array::nonzero`, in `take.rs`).

use xp_backend_api::{DType, Error, Result};

use crate::{current_device, Array};

/// NumPy's `indices(dimensions, dtype)`: shape `(len(dimensions), *dimensions)`, slice `i`
/// holding each element's index along axis `i`.
pub fn indices(dimensions: &[usize], dtype: DType) -> Result<Array> {
    crate::layout::checked_size("indices", dimensions)?;
    let nd = dimensions.len();
    if nd == 0 {
        return crate::zeros(&[0], dtype);
    }
    let mut grids = Vec::with_capacity(nd);
    for (i, &d) in dimensions.iter().enumerate() {
        let mut shape = vec![1isize; nd];
        shape[i] = d as isize;
        grids.push(crate::arange(0, d as i64, 1, Some(dtype))?.reshape(&shape)?.broadcast_to(dimensions)?);
    }
    crate::stack(&grids.iter().collect::<Vec<_>>(), 0)
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
        let i = super::indices_as_i64(idx)?;
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
    let i = super::indices_as_i64(indices)?;
    if i.lt(0)?.logical_or(&i.ge(size as i64)?)?.any(None, false)?.item::<bool>()? {
        return Err(Error::Index {
            op: "unravel_index".into(),
            reason: format!("index out of bounds for array with size {size}"),
        });
    }
    let st = strides_of(shape);
    shape.iter().zip(&st).map(|(&d, &s)| i.floor_divide(s)?.rem(d.max(1) as i64)).collect()
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
    crate::stack(&refs, 1)
}
