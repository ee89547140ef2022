//! A first slice of NumPy's routines beyond the ufuncs: array manipulation, elementwise math,
//! whole-array comparisons, spaced sequences and window functions; and NumPy's indexing and
//! assignment with every kind of index (`Array::getitem`, `Array::setitem`).
//!
//! Most routines are compositions of the array layer's views, ufuncs, reductions and joins, so
//! they run on every device without a kernel of their own; binning (`bincount`, `histogram`,
//! `digitize`, `interp`) and the bit-level float functions (`nextafter`, `spacing`, `i0`) have
//! built-in kernels (`xp_kernels::binning`, `xp_kernels::special`); order statistics and sets
//! (`median`, `quantile`, `isin`, …) sort with `crate::sort`. Names, argument order, result dtypes
//! and shapes follow NumPy; bad arguments are errors naming the routine (never panics).

mod binning;
mod gather;
mod indexing;
mod logic;
mod manip;
pub(crate) mod math;
mod more;
mod order;
pub mod slicing;
mod special;
mod stats;

pub use binning::{
    bincount, digitize, histogram, histogram2d, histogram_bin_edges, histogramdd, interp, interp_periodic, Bins,
};
pub use gather::{
    choose, compress, copyto, delete, insert, pad, put_along_axis, putmask, resize, select, take_along_axis, vander,
    PadMode,
};
pub use indexing::IndexItem;
pub use logic::{allclose, array_equal, bartlett, blackman, geomspace, hamming, hanning, indices, isclose, logspace};
pub use manip::{
    append, atleast_1d, atleast_2d, atleast_3d, column_stack, diff, dstack, flip, fliplr, flipud, hstack, moveaxis,
    repeat, roll, rot90, swapaxes, tile, tri, tril, triu, vstack,
};
pub use math::{
    angle, around, count_nonzero, cross, deg2rad, fix, float_power, fmod, gcd, heaviside, lcm, logaddexp, logaddexp2,
    nan_to_num, polyval, ptp, rad2deg, sinc, trapezoid, Spacing,
};
pub use more::{
    argwhere, array_equiv, array_split, block, broadcast_arrays, diag_indices, diagflat, divmod, dsplit, ediff1d,
    extract, fill_diagonal, flatnonzero, frexp, hsplit, iscomplex, isneginf, isposinf, isreal, ix_, loadtxt, modf,
    place, polyfit, ravel_multi_index, roots, savetxt, split, tril_indices, trim_zeros, triu_indices, unravel_index,
    unstack, vsplit, Sections,
};
pub use order::{
    intersect1d, isin, median, nanmedian, nanpercentile, nanquantile, percentile, quantile, setdiff1d, setxor1d,
    union1d, QuantileMethod, Quantiles,
};
pub use slicing::{Ellipsis, IndexInt, IntoIndexItem, NewAxis, SteppedRange};
pub use special::{i0, kaiser, nextafter, spacing};
pub use stats::{
    average, corrcoef, cov, gradient, ldexp, nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmin,
    nanprod, nanstd, nansum, nanvar, unwrap,
};
