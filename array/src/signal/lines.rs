//! Shared plumbing of the line filters: an axis moved last and the array viewed as `(lines,
//! n)`, the dtype rules SciPy's filters share, slices along the last axis, and small host
//! reads of coefficient arrays.

use std::sync::{Arc, OnceLock};

use xp_backend_api::{DType, DynDevice, Error, Result};

use crate::layout::normalize_axis;
use crate::routines::moveaxis;
use crate::user::ElementwiseKernel;
use crate::{Array, SliceArg};

/// An array with its filtering axis moved last, C-contiguous as `(lines, n)`, and what is
/// needed to put a result of the same lead shape back.
pub(crate) struct Lines {
    /// The data, `(lines, n)`, C-contiguous.
    pub data: Array,
    /// The lead shape (every axis but the filtered one, in order).
    pub lead: Vec<usize>,
    /// The filtered axis of the original array.
    pub axis: usize,
}

impl Lines {
    /// `x` (of any rank ≥ 1) with `axis` moved last, as `dtype`, contiguous `(lines, n)`.
    pub fn new(op: &str, x: &Array, axis: isize, dtype: DType) -> Result<Lines> {
        if x.ndim() == 0 {
            return Err(Error::value(op, "the input must have at least one dimension"));
        }
        let ax = normalize_axis(op, axis, x.ndim())?;
        let m = moveaxis(x, &[ax as isize], &[-1])?;
        let lead = m.shape()[..m.ndim() - 1].to_vec();
        let n = m.shape()[m.ndim() - 1];
        let lines = lead.iter().product::<usize>();
        let data = cast(&m, dtype)?.ascontiguous()?.reshape(&[lines as isize, n as isize])?;
        Ok(Lines { data, lead, axis: ax })
    }

    /// The number of lines.
    pub fn count(&self) -> usize {
        self.data.shape()[0]
    }

    /// The length of each line.
    pub fn len(&self) -> usize {
        self.data.shape()[1]
    }

    /// A `(lines, m)` result put back in the original layout (its last axis at `axis`).
    pub fn restore(&self, y: &Array) -> Result<Array> {
        let m = y.shape()[y.ndim() - 1];
        let mut shape: Vec<isize> = self.lead.iter().map(|&v| v as isize).collect();
        shape.push(m as isize);
        let y = y.reshape(&shape)?;
        moveaxis(&y, &[-1], &[self.axis as isize])?.ascontiguous()
    }
}

/// `a` as `dtype` (the same array when it already is).
pub(crate) fn cast(a: &Array, dtype: DType) -> Result<Array> {
    if a.dtype() == dtype {
        Ok(a.clone())
    } else {
        a.astype(dtype)
    }
}

/// The float dtype SciPy's linear filters compute in for inputs of `dtypes`: NumPy's result
/// type, with integers and booleans promoted to float64 and float16 computed in float32.
pub(crate) fn float_type(dtypes: &[DType]) -> DType {
    let mut dt = dtypes[0];
    for &d in &dtypes[1..] {
        dt = crate::promote_types(dt, d);
    }
    match dt {
        DType::F32 | DType::F64 | DType::C64 | DType::C128 => dt,
        DType::F16 | DType::BF16 => DType::F32,
        _ if dt.is_complex() => DType::C128,
        _ => DType::F64,
    }
}

/// `a[..., start:stop:step]` along the last axis.
pub(crate) fn last(a: &Array, start: Option<isize>, stop: Option<isize>, step: Option<isize>) -> Result<Array> {
    a.slice(&[SliceArg::Ellipsis, SliceArg::Range { start, stop, step }])
}

/// A 1-d coefficient array read to the host as float64 (real part), checked to be 1-d.
pub(crate) fn host_f64(op: &str, what: &str, a: &Array) -> Result<Vec<f64>> {
    if a.ndim() != 1 {
        return Err(Error::value(op, format!("{what} must be 1-d, got shape {:?}", a.shape())));
    }
    let r = if a.dtype().is_complex() { a.real() } else { a.clone() };
    r.astype(DType::F64)?.ascontiguous()?.to_vec::<f64>()
}

/// An int64 `0..n` on `dev` (the line numbers the line kernels are indexed by).
pub(crate) fn line_ids(dev: &Arc<dyn DynDevice>, n: usize) -> Result<Array> {
    crate::with_device(dev, || crate::arange(0i64, n as i64, 1i64, Some(DType::I64)))
}

/// A user kernel built once.
pub(crate) fn kernel(
    cell: &'static OnceLock<ElementwiseKernel>,
    ins: &str,
    outs: &str,
    op: &str,
    name: &str,
) -> Result<&'static ElementwiseKernel> {
    crate::user::cached_kernel(cell, ins, outs, op, name, "")
}

/// An array of `data` (float64) as `dtype` on `dev`.
pub(crate) fn device_f64(dev: &Arc<dyn DynDevice>, data: &[f64], shape: &[usize], dtype: DType) -> Result<Array> {
    cast(&Array::from_slice_on(dev, data, shape)?, dtype)
}
