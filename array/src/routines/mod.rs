//! A first slice of NumPy's routines beyond the ufuncs: array manipulation, elementwise math,
//! whole-array comparisons, spaced sequences and window functions; and NumPy's indexing and
//! assignment with every kind of index (`Array::getitem`, `Array::setitem`).
//!
//! Every routine is a composition of the array layer's views, ufuncs, reductions and joins, so
//! it runs on every device without a kernel of its own. Names, argument order, result dtypes
//! and shapes follow NumPy; bad arguments are errors naming the routine (never panics).

mod gather;
mod indexing;
mod logic;
mod manip;
pub(crate) mod math;
mod more;
mod order;
mod stats;

pub use gather::{
    choose, compress, copyto, delete, insert, pad, putmask, resize, select, take_along_axis, vander, PadMode,
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
pub use stats::{
    average, corrcoef, cov, gradient, ldexp, nanargmax, nanargmin, nancumsum, nanmax, nanmean, nanmin, nanprod, nanstd,
    nansum, nanvar, unwrap,
};
