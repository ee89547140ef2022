//! NumPy's routines beyond the ufuncs, one file per kind: array manipulation (`manip`),
//! elementwise math (`math`), logic functions (`logic`), statistics (`stats`), order
//! statistics and sets (`order`), counting and binning (`binning`), polynomials
//! (`polynomial`), window functions (`window`), padding (`pad`), the bit-level float
//! functions (`special`), grids and the `*_indices_from` helpers (`grids`), views that reorder
//! or window axes (`views`: `rollaxis`, `matrix_transpose`, `sliding_window_view`), bit packing
//! and counting (`bits`), machine limits (`info`: `finfo`, `iinfo`, `real_if_close`) and
//! `apply_along_axis` (`apply`). `vecdot` lives with linear algebra ([`crate::linalg`]) and is
//! re-exported here, as NumPy has it at the top level.
//!
//! This module is also NumPy's function namespace, the one the crate root and the facade's
//! `xp::` take with a glob: it re-exports the indexing routines and index types, whose code
//! lives with indexing in [`crate::indexing`] (and [`slicing`], the `s![..]` items), the
//! spaced sequences of [`crate::creation`] (`logspace`, `geomspace`), and the text files of
//! [`crate::io`] (`savetxt`, `loadtxt`).
//!
//! Most routines are compositions of the array layer's views, ufuncs, reductions and joins, so
//! they run on every device without a kernel of their own; binning (`bincount`, `histogram`,
//! `digitize`, `interp`) and the bit-level float functions (`nextafter`, `spacing`, `i0`) have
//! built-in kernels (`xp_kernels::binning`, `xp_kernels::special`); order statistics and sets
//! (`median`, `quantile`, `isin`, …) sort with `crate::sort`. Names, argument order, result dtypes
//! and shapes follow NumPy; bad arguments are errors naming the routine (never panics).

mod apply;
mod binning;
mod bits;
mod grids;
mod info;
mod logic;
mod manip;
pub(crate) mod math;
mod order;
mod pad;
mod polynomial;
mod special;
mod stats;
mod views;
mod window;

pub use apply::apply_along_axis;
pub use binning::{
    bincount, digitize, histogram, histogram2d, histogram_bin_edges, histogramdd, interp, interp_periodic, Bins,
};
pub use bits::{bitwise_count, packbits, unpackbits, BitOrder};
pub use grids::{diag_indices_from, mgrid, ogrid, tril_indices_from, triu_indices_from, GridAxis, GridStep};
pub use info::{finfo, iinfo, real_if_close, FInfo, IInfo};
pub use logic::{allclose, array_equal, array_equiv, isclose, iscomplex, isneginf, isposinf, isreal};
pub use manip::{
    append, array_split, atleast_1d, atleast_2d, atleast_3d, block, broadcast_arrays, column_stack, concatenate,
    delete, diagflat, diff, dsplit, dstack, flip, fliplr, flipud, hsplit, hstack, insert, moveaxis, repeat, resize,
    roll, rot90, split, stack, swapaxes, tile, tri, tril, trim_zeros, triu, unstack, vsplit, vstack, Sections,
};
pub use math::{
    angle, around, count_nonzero, cross, deg2rad, divmod, ediff1d, fix, float_power, fmod, frexp, gcd, heaviside, lcm,
    logaddexp, logaddexp2, modf, nan_to_num, ptp, rad2deg, sinc, trapezoid, Spacing,
};
pub use order::{
    intersect1d, isin, median, nanmedian, nanpercentile, nanquantile, percentile, quantile, setdiff1d, setxor1d,
    union1d, QuantileMethod, Quantiles,
};
pub use pad::{pad, PadMode};
pub use polynomial::{poly, polyadd, polyder, polydiv, polyfit, polyint, polymul, polysub, polyval, roots, vander};
pub use special::{i0, nextafter, spacing};
pub use stats::{
    average, corrcoef, cov, gradient, ldexp, nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmin,
    nanprod, nanstd, nansum, nanvar, unwrap,
};
pub use views::{matrix_transpose, rollaxis, sliding_window_view};
pub use window::{bartlett, blackman, hamming, hanning, kaiser};

// NumPy's namespace, continued: the functions whose code lives outside `routines`.
pub use crate::creation::{geomspace, logspace};
pub use crate::indexing::{
    argwhere, choose, compress, copyto, diag_indices, extract, fill_diagonal, flatnonzero, indices, ix_, place,
    put_along_axis, putmask, ravel_multi_index, select, slicing, take_along_axis, tril_indices, triu_indices,
    unravel_index, Ellipsis, IndexInt, IndexItem, IntoIndexItem, NewAxis, SteppedRange,
};
pub use crate::io::{loadtxt, savetxt};
pub use crate::linalg::vecdot;
