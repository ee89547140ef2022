//! Statistics of order: `mode` and `rankdata`, from a sort along the axis and the runs of
//! equal neighbours in it.
//!
//! Along the last axis of a sorted array, a run of equal values starts where a value differs
//! from its left neighbour (NaNs count as equal to one another). The run number of each
//! position is the running sum of the start flags. A stable argsort of the negated start flags
//! lists each row's run starts first and in order, so gathering it at `run number - 1` gives
//! the first position of each position's run; the same with the end flags gives the last.
//! Everything is sorts, scans, gathers and elementwise comparisons on the device.

use std::str::FromStr;

use xp_backend_api::{DType, DTypeKind, Error, Result};

use super::along;
use crate::lazy::eval;
use crate::promote::Scalar;
use crate::routines::moveaxis;
use crate::take_along_axis;
use crate::ufunc::{where_, Operand};
use crate::{Array, SliceArg};

/// `a[..., start..stop]`.
fn last_part(a: &Array, start: usize, stop: usize) -> Result<Array> {
    let mut sl = vec![SliceArg::ALL; a.ndim()];
    sl[a.ndim() - 1] = SliceArg::range(start as isize, stop as isize, 1);
    a.slice(&sl)
}

/// The flags of the positions of `s` (sorted along its last axis, of length at least 1) that
/// start a run of equal values: the first of each row, and each that differs from its left
/// neighbour (two NaNs are equal).
fn run_starts(s: &Array) -> Result<Array> {
    let last = s.ndim() - 1;
    let n = s.shape()[last];
    let mut head_shape = s.shape().to_vec();
    head_shape[last] = 1;
    let head = Array::full_on(&s.device_arc(), &head_shape, true, DType::Bool)?;
    if n == 1 {
        return Ok(head);
    }
    let (right, left) = (last_part(s, 1, n)?, last_part(s, 0, n - 1)?);
    let mut differ = right.ne(&left)?;
    if s.dtype().is_float() {
        differ = differ.logical_and(&right.isnan()?.logical_and(&left.isnan()?)?.logical_not()?)?;
    }
    crate::concatenate(&[&head, &differ], last as isize)
}

/// The flags of the positions that end a run, from the start flags.
fn run_ends(starts: &Array) -> Result<Array> {
    let last = starts.ndim() - 1;
    let n = starts.shape()[last];
    let mut tail_shape = starts.shape().to_vec();
    tail_shape[last] = 1;
    let tail = Array::full_on(&starts.device_arc(), &tail_shape, true, DType::Bool)?;
    crate::concatenate(&[&last_part(starts, 1, n)?, &tail], last as isize)
}

/// The run number (from 1) of each position and the first and last position (from 0) of its
/// run, all int64 along the last axis.
fn runs(starts: &Array) -> Result<(Array, Array, Array)> {
    let number = starts.cumsum(Some(-1))?;
    let slot = number.sub(1)?;
    eval(&[&slot])?;
    let bound = |flags: &Array| -> Result<Array> {
        // The stable sort lists the flagged positions of each row first, in order.
        let listed = flags.logical_not()?.astype(DType::U8)?.argsort(Some(-1))?;
        take_along_axis(&listed, &slot, -1)
    };
    let first = bound(starts)?;
    let last = bound(&run_ends(starts)?)?;
    Ok((number, first, last))
}

/// What [`mode`] answers: SciPy's `ModeResult`.
#[derive(Debug, Clone)]
pub struct ModeResult {
    /// The most frequent value of each slice (the smallest among equally frequent ones), in
    /// the input's dtype.
    pub mode: Array,
    /// How often it occurs (int64).
    pub count: Array,
}

/// SciPy's `mode(a, axis, keepdims)`: the most frequent value of each slice along `axis`
/// (`None`: of the flattened array; SciPy's default is `Some(0)`) and its count; among equally
/// frequent values the smallest (NaN, which sorts last and counts as equal to other NaNs, is
/// the largest). With `keepdims` the reduced axis stays with extent 1 (every axis, for `None`).
///
/// `mode` keeps the input's dtype and `count` is int64; an empty slice gives a NaN mode and a
/// zero count, both float64, as SciPy. Bool and complex input are `DType` errors (SciPy takes
/// numbers only). The slices are sorted on the device and the runs of equal values counted
/// (see the module's notes); `argmax` of the counts picks the first, smallest, longest run.
pub fn mode(a: &Array, axis: Option<isize>, keepdims: bool) -> Result<ModeResult> {
    let op = "mode";
    if !matches!(a.dtype().kind(), DTypeKind::Float | DTypeKind::Signed | DTypeKind::Unsigned) {
        return Err(Error::DType { op: op.into(), reason: format!("not supported for input dtype {}", a.dtype()) });
    }
    let (x, ax) = along(op, a, axis)?;
    let n = x.shape()[ax];
    let mut kept_shape = x.shape().to_vec();
    kept_shape[ax] = 1;
    let finish = |r: Array| -> Result<Array> {
        // r has the extent 1 last; put it back where the axis was, or drop it.
        if keepdims {
            let r = moveaxis(&r, &[-1], &[ax as isize])?;
            match axis {
                None => r.reshape(&vec![1; a.ndim()]),
                Some(_) => Ok(r),
            }
        } else {
            r.squeeze(Some(&[-1]))
        }
    };
    let dev = a.device_arc();
    if n == 0 {
        let mut shape: Vec<usize> = kept_shape.clone();
        shape.remove(ax);
        shape.push(1);
        let nan = Array::full_on(&dev, &shape, f64::NAN, DType::F64)?;
        let zero = Array::full_on(&dev, &shape, 0.0, DType::F64)?;
        return Ok(ModeResult { mode: finish(nan)?, count: finish(zero)? });
    }
    let moved = moveaxis(&x, &[ax as isize], &[-1])?;
    let s = moved.sort(Some(-1))?;
    let starts = run_starts(&s)?;
    let (_, first, last) = runs(&starts)?;
    let count = last.sub(&first)?.add(1)?;
    eval(&[&count])?;
    let at = count.argmax(Some(-1))?.expand_dims(-1)?;
    let m = take_along_axis(&s, &at, -1)?;
    let c = take_along_axis(&count, &at, -1)?;
    Ok(ModeResult { mode: finish(m)?, count: finish(c)? })
}

/// How [`rankdata`] ranks equal values (SciPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RankMethod {
    /// The mean of the ranks the equal values span (float64); SciPy's default.
    #[default]
    Average,
    /// The smallest of those ranks.
    Min,
    /// The largest of those ranks.
    Max,
    /// Ranks of distinct values without gaps: 1 for the smallest, 2 for the next, …
    Dense,
    /// Distinct ranks in the order the values appear.
    Ordinal,
}

impl FromStr for RankMethod {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "average" => RankMethod::Average,
            "min" => RankMethod::Min,
            "max" => RankMethod::Max,
            "dense" => RankMethod::Dense,
            "ordinal" => RankMethod::Ordinal,
            _ => {
                return Err(Error::value(
                    "rankdata",
                    format!("unknown method \"{s}\" (known: average, min, max, dense, ordinal)"),
                ))
            }
        })
    }
}

/// SciPy's `rankdata(a, method, axis)`: the ranks (from 1) of the values along `axis`
/// (`None`, SciPy's default: of the flattened array, answered 1-d), equal values ranked as
/// `method` says.
///
/// The result is float64 for [`RankMethod::Average`] and int64 for the others, as SciPy. As
/// SciPy's `nan_policy="propagate"`: when the input holds a NaN the result is float64 for
/// every method and the slices that hold one are all NaN (telling costs one read of a flag
/// to the host). The slices are sorted on the device; ordinal ranks come from the inverse
/// permutation (an argsort of the argsort), the others from the runs of equal values (see the
/// module's notes). Complex input is a `DType` error.
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::{stats, Array};
/// let a = Array::from_slice(&[0i64, 2, 3, 2], &[4]).unwrap();
/// let r = stats::rankdata(&a, stats::RankMethod::Average, None).unwrap();
/// assert_eq!(r.to_vec::<f64>().unwrap(), vec![1.0, 2.5, 4.0, 2.5]);
/// let r = stats::rankdata(&a, "min".parse().unwrap(), None).unwrap();
/// assert_eq!(r.to_vec::<i64>().unwrap(), vec![1, 2, 4, 2]);
/// # });
/// ```
pub fn rankdata(a: &Array, method: RankMethod, axis: Option<isize>) -> Result<Array> {
    let op = "rankdata";
    if a.dtype().is_complex() {
        return Err(Error::DType { op: op.into(), reason: format!("not supported for input dtype {}", a.dtype()) });
    }
    let (x, ax) = along(op, a, axis)?;
    let out = if method == RankMethod::Average { DType::F64 } else { DType::I64 };
    let dev = a.device_arc();
    if x.size() == 0 {
        return Array::empty_on(&dev, x.shape(), out);
    }
    let moved = moveaxis(&x, &[ax as isize], &[-1])?.ascontiguous()?;
    let ranks = if method == RankMethod::Ordinal {
        moved.argsort(Some(-1))?.argsort(Some(-1))?.add(1)?
    } else {
        let order = moved.argsort(Some(-1))?;
        let inverse = order.argsort(Some(-1))?;
        let s = moved.sort(Some(-1))?;
        let starts = run_starts(&s)?;
        let in_sorted = match method {
            RankMethod::Dense => starts.cumsum(Some(-1))?,
            _ => {
                let (_, first, last) = runs(&starts)?;
                match method {
                    RankMethod::Min => first.add(1)?,
                    RankMethod::Max => last.add(1)?,
                    _ => first.add(&last)?.astype(DType::F64)?.mul(0.5)?.add(1.0)?,
                }
            }
        };
        eval(&[&in_sorted])?;
        take_along_axis(&in_sorted, &inverse, -1)?
    };
    let ranks = if x.dtype().is_float() {
        let nan_rows = moved.isnan()?.any(Some(&[-1]), true)?;
        if nan_rows.any(None, false)?.item::<bool>()? {
            where_(&nan_rows, Operand::Scalar(Scalar::Float(f64::NAN)), (&ranks.astype(DType::F64)?).into())?
        } else {
            ranks
        }
    } else {
        ranks
    };
    moveaxis(&ranks, &[-1], &[ax as isize])?.ascontiguous()
}
