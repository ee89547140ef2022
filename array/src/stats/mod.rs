//! SciPy's statistics (`scipy.stats`; CuPy's `cupyx.scipy.stats`), under SciPy's names and
//! arguments.
//!
//! # The contract
//! - **Names and arguments** are SciPy's, in SciPy's order, the Rust way: `axis` is an
//!   `Option<isize>` where `None` is SciPy's `axis=None` (the flattened array) — SciPy's
//!   default is `axis=0` for every function here but [`rankdata`], so pass `Some(0)` for
//!   SciPy's default; string arguments are enums with `FromStr` ([`RankMethod`],
//!   [`Alternative`]); tuples SciPy returns are small structs ([`ModeResult`],
//!   [`PearsonRResult`], [`DescribeResult`]).
//! - **dtypes** are SciPy's: a float input keeps its dtype (float32 stays float32), bool and
//!   integers give float64; [`mode`] keeps the input's dtype; [`rankdata`] gives float64 for
//!   `"average"` and int64 for the other methods. Complex input is a `DType` error.
//! - **`nan_policy`** is `"propagate"` only (no argument is taken): a NaN makes the statistic
//!   of its slice NaN, as SciPy's default does. [`rankdata`] follows SciPy: a NaN anywhere in
//!   the input makes the result float64, NaN on the slices that hold one. [`mode`] counts
//!   NaNs as equal to one another, as SciPy does.
//! - **Errors** are SciPy's exceptions mapped to `xp::Error`: an axis out of range is `Axis`,
//!   a bad value (`base <= 0`, a `proportiontocut` that cuts everything, fewer than two
//!   observations for [`pearsonr`], an unknown method) is `Value`, operands that do not
//!   broadcast are `Value` (SciPy raises `ValueError`).
//!
//! # Algorithms
//! - Every reduction runs on the array's device as xp's reductions, in float64 whatever the
//!   input's float dtype: a float32 input is converted once, reduced in float64 and the result
//!   rounded once to float32, so that float32 answers carry no accumulation error of their
//!   own.
//! - Moments ([`moment`], [`skew`], [`kurtosis`], [`zscore`], [`zmap`], [`boxcox_llf`], …)
//!   use the two-pass (centred) formula: the mean first, then the mean of the powers of the
//!   deviations (Chan, Golub & LeVeque, "Algorithms for computing the sample variance", 1983),
//!   the powers formed by repeated multiplication. [`skew`] and [`kurtosis`] give NaN where the
//!   second moment vanishes relative to the mean (`m2 <= (resolution · mean)²`, the dtype's
//!   decimal resolution, as SciPy), and their unbiased forms are the adjusted
//!   Fisher–Pearson coefficients (Joanes & Gill, "Comparing measures of sample skewness and
//!   kurtosis", 1998: `G1` and `G2`).
//! - Sorting-based statistics ([`trim_mean`], [`mode`], [`rankdata`], [`iqr`]) sort along the
//!   axis on the device (xp's stable radix sort) and find runs of equal values by comparing
//!   neighbours; the first and last position of each run come from a second stable sort of
//!   the run-start flags (which lists each row's run starts in order), read back by the run's
//!   number (a running sum of the flags). No host loop touches the data.
//! - [`pearsonr`]'s statistic is the centred cross product over the product of the centred
//!   norms, clipped to `[-1, 1]`. Its p-value uses the exact null distribution of `r` for
//!   normal samples (`(r + 1) / 2 ~ Beta(n/2 - 1, n/2 - 1)`), evaluated by the regularized
//!   incomplete beta function's continued fraction (Lentz's method, as in Press et al.,
//!   "Numerical Recipes", §6.4) with a Lanczos log-gamma; this runs on the host over the
//!   statistics read back (one value per slice, not per element).

#![warn(missing_docs)]

mod correlation;
mod descriptive;
mod moments;
mod rank;

pub use correlation::{pearsonr, spearmanr, Alternative, PearsonRResult};
pub use descriptive::{boxcox_llf, entropy, gmean, hmean, iqr, pmean, tmax, tmean, tmin, trim_mean, tstd, tvar};
pub use moments::{describe, kstat, kurtosis, moment, sem, skew, variation, zmap, zscore, DescribeResult, MomentOrder};
pub use rank::{mode, rankdata, ModeResult, RankMethod};

use xp_backend_api::{DType, DTypeKind, Error, Result};

use crate::layout::{broadcast_shapes, normalize_axis};
use crate::Array;

/// The float dtype SciPy answers in for an input of dtype `d`: floats keep theirs, bool and
/// integers give float64; complex is a `DType` error naming `op`.
fn result_dtype(op: &str, d: DType) -> Result<DType> {
    match d.kind() {
        DTypeKind::Float => Ok(d),
        DTypeKind::Signed | DTypeKind::Unsigned | DTypeKind::Bool => Ok(DType::F64),
        _ => Err(Error::DType { op: op.into(), reason: format!("not supported for input dtype {d}") }),
    }
}

/// `a` as float64, the dtype every statistic here is computed in.
fn as_f64(op: &str, a: &Array) -> Result<Array> {
    result_dtype(op, a.dtype())?;
    if a.dtype() == DType::F64 {
        Ok(a.clone())
    } else {
        a.astype(DType::F64)
    }
}

/// The axes a reduction over `axis` takes (`None`: every axis) and the number of values each
/// slice holds; an axis out of range is an `Axis` error naming `op`.
fn reduce_axes(op: &str, a: &Array, axis: Option<isize>) -> Result<(Option<Vec<isize>>, usize)> {
    match axis {
        None => Ok((None, a.size())),
        Some(ax) => {
            let d = normalize_axis(op, ax, a.ndim())?;
            Ok((Some(vec![d as isize]), a.shape()[d]))
        }
    }
}

/// `a` and one axis of it to work along: `axis` normalised, or the flattened array and axis 0
/// when `axis` is `None`.
fn along(op: &str, a: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    match axis {
        None => Ok((a.ravel()?, 0)),
        Some(ax) => Ok((a.clone(), normalize_axis(op, ax, a.ndim())?)),
    }
}

/// The shape `a` and `b` broadcast to; a `Value` error (SciPy's `ValueError`) when they do not.
fn broadcast_pair(op: &str, a: &Array, b: &Array) -> Result<Vec<usize>> {
    broadcast_shapes(op, &[a.shape(), b.shape()]).map_err(|_| {
        Error::value(op, format!("array shapes are incompatible for broadcasting: {:?} and {:?}", a.shape(), b.shape()))
    })
}

/// SciPy's "resolution" of a float dtype (`10**-precision`), used to tell a vanishing second
/// moment.
fn resolution(d: DType) -> f64 {
    match d {
        DType::F16 | DType::BF16 => 1e-3,
        DType::F32 => 1e-6,
        _ => 1e-15,
    }
}
