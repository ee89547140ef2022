//! SciPy's spatial algorithms (`scipy.spatial`; CuPy's `cupyx.scipy.spatial`): distances
//! between point sets and nearest-neighbour queries, under SciPy's names and arguments.
//!
//! - [`distance`]: `cdist`, `pdist` with SciPy's 19 metrics, `squareform`, the single-pair
//!   functions. Computed on the device as broadcast maps reduced over the coordinates, fused
//!   into one reduction kernel (see the module's docs).
//! - [`distance_matrix`], [`minkowski_distance`], [`minkowski_distance_p`]: SciPy's Minkowski
//!   helpers of `scipy.spatial`, the same kernels.
//! - [`KDTree`]: a k-d tree built with the sliding-midpoint rule and queried for the k nearest
//!   neighbours under any p-norm, with `eps` and `distance_upper_bound` (searched on the
//!   device, one thread per query, on GPUs; see its docs).
//!
//! Answers are float64 (SciPy converts float32 and integer points to float64); indices int64.

pub mod distance;
mod host;
mod kdtree;
mod kdtree_kernels;

pub use kdtree::{KDTree, KDTreeSearch};

use xp_backend_api::{Error, Result};

use crate::Array;

/// The generated kernels of this module in every variant it launches (the k-d tree's search
/// and leaf keys), for a cross-vendor compile check.
pub fn builtin_kernels() -> Vec<xp_kernels::render::Rendered> {
    kdtree_kernels::all()
}

/// SciPy's `distance_matrix(x, y, p)`: the `(m, n)` float64 matrix of the Minkowski
/// `p`-distances between the rows of `x` `(m, k)` and `y` `(n, k)` (`p = ±inf`: the largest
/// coordinate difference). SciPy's `threshold` only picks how SciPy loops; here one fused
/// reduction computes the matrix (see [`distance`]). Points that are not 2-d, or of different
/// `k`, and complex points are `Value` errors.
pub fn distance_matrix(x: &Array, y: &Array, p: f64) -> Result<Array> {
    let op = "distance_matrix";
    for (name, a) in [("x", x), ("y", y)] {
        if a.ndim() != 2 {
            return Err(Error::value(op, format!("{name} must be a 2-d array of points, not shape {:?}", a.shape())));
        }
    }
    if x.shape()[1] != y.shape()[1] {
        return Err(Error::value(
            op,
            format!(
                "x contains {}-dimensional vectors but y contains {}-dimensional vectors",
                x.shape()[1],
                y.shape()[1]
            ),
        ));
    }
    let p = if p.is_infinite() { f64::INFINITY } else { p };
    distance::minkowski_matrix(op, x, y, p)
}

/// SciPy's `minkowski_distance_p(x, y, p)`: `sum(|x - y|^p)` over the last axis of the
/// broadcast `x` and `y` (`max |x - y|` for `p = ±inf`), float64, without the `1/p` root.
/// Shapes that do not broadcast are a `ShapeMismatch` error; 0-d operands an `Axis` error.
pub fn minkowski_distance_p(x: &Array, y: &Array, p: f64) -> Result<Array> {
    let op = "minkowski_distance_p";
    let shape = crate::layout::broadcast_shapes(op, &[x.shape(), y.shape()])?;
    let (x, y) = (distance::to_f64(op, x)?, distance::to_f64(op, y)?);
    crate::lazy::eval(&[&x, &y])?;
    let diff = x.broadcast_to(&shape)?.sub(&y.broadcast_to(&shape)?)?.abs()?;
    if p.is_infinite() {
        diff.max(Some(&[-1]), false)
    } else if p == 1.0 {
        diff.sum(Some(&[-1]), false)
    } else {
        diff.pow(p)?.sum(Some(&[-1]), false)
    }
}

/// SciPy's `minkowski_distance(x, y, p)`: the Minkowski `p`-distance between the broadcast
/// `x` and `y` along their last axis, float64 (`p = ±inf`: the largest difference). Errors as
/// [`minkowski_distance_p`].
pub fn minkowski_distance(x: &Array, y: &Array, p: f64) -> Result<Array> {
    let s = minkowski_distance_p(x, y, p)?;
    if p.is_infinite() || p == 1.0 {
        Ok(s)
    } else {
        s.pow(1.0 / p)
    }
}
