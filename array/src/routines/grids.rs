//! NumPy's grids and the index helpers that take an array: `mgrid` and `ogrid` (NumPy's
//! `np.mgrid[a:b:s, …]` written as a list of [`GridAxis`]), and `diag_indices_from`,
//! `tril_indices_from`, `triu_indices_from`.
//!
//! Each axis of a grid is `arange(n) * step + start` on the device, the two operations NumPy
//! applies, so the values round as NumPy's do. The dtype is int64 when every start, stop and
//! step is an integer, else float64 (NumPy's `result_type` of the slice's numbers, a count of
//! points `n*1j` counting as a float). `np.mgrid[a:b]` with one slice and no tuple is NumPy's
//! special case of a 1-d answer: here it is `mgrid(&[axis])?` of shape `(1, n)`, squeezed by
//! the caller if wanted.

use xp_backend_api::{DType, Error, Result};

use crate::promote::Scalar;
use crate::Array;

/// How an axis of [`mgrid`]/[`ogrid`] steps: NumPy's slice step, real or imaginary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GridStep {
    /// A real step (`start:stop:step`): `ceil((stop - start) / step)` values, `stop` excluded.
    Step(Scalar),
    /// NumPy's imaginary step `n*1j`: `n` points from `start` to `stop`, both included.
    Points(usize),
}

/// One axis of [`mgrid`]/[`ogrid`]: NumPy's slice `start:stop:step` or `start:stop:n*1j`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridAxis {
    /// First value.
    pub start: Scalar,
    /// End of the range (excluded for a real step, included for a count of points).
    pub stop: Scalar,
    /// The step or the count of points.
    pub step: GridStep,
}

impl GridAxis {
    /// `start:stop:step`.
    pub fn range(start: impl Into<Scalar>, stop: impl Into<Scalar>, step: impl Into<Scalar>) -> Self {
        GridAxis { start: start.into(), stop: stop.into(), step: GridStep::Step(step.into()) }
    }

    /// `start:stop:n*1j`: `n` points, `stop` included.
    pub fn points(start: impl Into<Scalar>, stop: impl Into<Scalar>, n: usize) -> Self {
        GridAxis { start: start.into(), stop: stop.into(), step: GridStep::Points(n) }
    }
}

/// A real number of a grid's slice, and whether it is an integer.
fn real(op: &str, s: Scalar) -> Result<(f64, bool)> {
    match s {
        Scalar::Bool(b) => Ok((b as u8 as f64, true)),
        Scalar::Int(i) => Ok((i as f64, true)),
        Scalar::Float(f) => Ok((f, false)),
        Scalar::Complex(..) => {
            Err(Error::value(op, "a grid's start, stop and step are real (a count of points is GridStep::Points)"))
        }
    }
}

/// One axis of a grid: its number of values, first value and step.
type AxisPlan = (usize, Scalar, Scalar);

/// Each axis's plan, and the grid's dtype.
fn plan(op: &str, axes: &[GridAxis]) -> Result<(Vec<AxisPlan>, DType)> {
    let mut all_int = true;
    let mut parts = Vec::with_capacity(axes.len());
    for ax in axes {
        let ((start, si), (stop, ti)) = (real(op, ax.start)?, real(op, ax.stop)?);
        all_int &= si && ti;
        let (size, step) = match ax.step {
            GridStep::Step(s) => {
                let (step, int) = real(op, s)?;
                all_int &= int;
                if step == 0.0 {
                    return Err(Error::value(op, "a grid's step must not be zero"));
                }
                let n = ((stop - start) / step).ceil();
                if !n.is_finite() {
                    return Err(Error::value(op, format!("the range {start}:{stop}:{step} has no finite length")));
                }
                if n < 0.0 {
                    return Err(Error::value(
                        op,
                        format!("negative dimensions are not allowed ({start}:{stop}:{step} has {n} values)"),
                    ));
                }
                (n as usize, s)
            }
            GridStep::Points(n) => {
                all_int = false;
                let step = if n == 1 { 1.0 } else { (stop - start) / (n as f64 - 1.0) };
                (n, Scalar::Float(step))
            }
        };
        parts.push((size, ax.start, step));
    }
    Ok((parts, if all_int { DType::I64 } else { DType::F64 }))
}

/// The open grid's axes: axis `k` of shape `(1, …, n_k, …, 1)`.
fn open(op: &str, axes: &[GridAxis]) -> Result<(Vec<Array>, Vec<usize>)> {
    let (parts, dtype) = plan(op, axes)?;
    let shape: Vec<usize> = parts.iter().map(|p| p.0).collect();
    crate::layout::checked_size(op, &shape)?;
    let as_dtype = |s: Scalar| if dtype == DType::F64 { Scalar::Float(s.as_complex().0) } else { s };
    let grids = parts
        .iter()
        .enumerate()
        .map(|(k, &(n, start, step))| {
            let mut sh = vec![1isize; parts.len()];
            sh[k] = n as isize;
            crate::arange(0, n as i64, 1, Some(dtype))?
                .mul_scalar(as_dtype(step))?
                .add_scalar(as_dtype(start))?
                .reshape(&sh)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((grids, shape))
}

/// NumPy's `mgrid[axes]`: the dense mesh, shape `(len(axes), n_0, n_1, …)`, slice `k` holding
/// axis `k`'s values along dimension `k`.
///
/// Errors: no axes, a zero step, a range of negative length (`Value`).
pub fn mgrid(axes: &[GridAxis]) -> Result<Array> {
    let op = "mgrid";
    if axes.is_empty() {
        return Err(Error::value(op, "a grid needs at least one axis"));
    }
    let (grids, shape) = open(op, axes)?;
    let full = grids.iter().map(|g| g.broadcast_to(&shape)).collect::<Result<Vec<_>>>()?;
    crate::stack(&full.iter().collect::<Vec<_>>(), 0)
}

/// NumPy's `ogrid[axes]`: the open mesh, one array per axis, axis `k` of shape
/// `(1, …, n_k, …, 1)`, all of the grid's one dtype (they broadcast to [`mgrid`]'s slices).
pub fn ogrid(axes: &[GridAxis]) -> Result<Vec<Array>> {
    open("ogrid", axes).map(|(g, _)| g)
}

/// NumPy's `diag_indices_from(arr)`: `arr.ndim` copies of `arange(n)` (int64) for an array
/// whose every dimension is `n`. Errors: fewer than 2 dimensions, unequal dimensions (`Value`).
pub fn diag_indices_from(arr: &Array) -> Result<Vec<Array>> {
    let op = "diag_indices_from";
    if arr.ndim() < 2 {
        return Err(Error::value(op, format!("input array must be at least 2-d, got shape {:?}", arr.shape())));
    }
    let n = arr.shape()[0];
    if arr.shape().iter().any(|&d| d != n) {
        return Err(Error::value(
            op,
            format!("All dimensions of input must be of equal length, got shape {:?}", arr.shape()),
        ));
    }
    crate::with_device(&arr.device_arc(), || crate::indexing::diag_indices(n, arr.ndim()))
}

fn matrix_dims(op: &str, arr: &Array) -> Result<(usize, usize)> {
    match *arr.shape() {
        [n, m] => Ok((n, m)),
        _ => Err(Error::value(op, format!("input array must be 2-d, got shape {:?}", arr.shape()))),
    }
}

/// NumPy's `tril_indices_from(arr, k)`: rows and columns (int64) of the lower triangle of the
/// 2-d `arr`, diagonal offset `k`. Errors: `arr` not 2-d (`Value`).
pub fn tril_indices_from(arr: &Array, k: isize) -> Result<(Array, Array)> {
    let (n, m) = matrix_dims("tril_indices_from", arr)?;
    crate::with_device(&arr.device_arc(), || crate::indexing::tril_indices(n, k, Some(m)))
}

/// NumPy's `triu_indices_from(arr, k)`: rows and columns (int64) of the upper triangle of the
/// 2-d `arr`, diagonal offset `k`. Errors: `arr` not 2-d (`Value`).
pub fn triu_indices_from(arr: &Array, k: isize) -> Result<(Array, Array)> {
    let (n, m) = matrix_dims("triu_indices_from", arr)?;
    crate::with_device(&arr.device_arc(), || crate::indexing::triu_indices(n, k, Some(m)))
}
