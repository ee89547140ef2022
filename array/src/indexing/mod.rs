//! NumPy's indexing: `a[index]` and `a[index] = v` with every kind of index
//! ([`Array::getitem`], [`Array::setitem`], and the [`s!`](crate::s) macro for [`Array::at`]
//! and [`Array::set`]), the kernels under them ([`Array::take`], [`Array::put`], boolean masks,
//! [`Array::nonzero`]), NumPy's indexing routines and the functions that make index arrays.
//!
//! - `take.rs`: `take`, `put`, mask compaction and expansion, `nonzero`, the indexing kernels;
//! - `getitem.rs`: [`IndexItem`], `getitem` and `setitem` (basic, advanced and mask indexing);
//! - [`slicing`]: `s![..]`, `at` and `set`, [`NewAxis`], [`Ellipsis`];
//! - `gather.rs`: `take_along_axis`, `put_along_axis`, `choose`, `select`, `compress`,
//!   `extract`, `putmask`, `copyto`, `place`, `fill_diagonal`;
//! - `index_arrays.rs`: `indices`, `ix_`, `diag_indices`, `tril_indices`, `triu_indices`,
//!   `ravel_multi_index`, `unravel_index`, `flatnonzero`, `argwhere`.
//!
//! An index out of range is an `Index` error, as NumPy's (never CuPy's wrap-around), and
//! nothing is written. Index arrays reach the kernels as int64 through `indices_as_i64`, so
//! a uint64 index of 2^63 or more is out of range too, never a negative index in disguise. The routines are also re-exported by [`crate::routines`], NumPy's
//! function namespace.
//!
//! [`Array::getitem`]: crate::Array::getitem
//! [`Array::setitem`]: crate::Array::setitem
//! [`Array::at`]: crate::Array::at
//! [`Array::set`]: crate::Array::set
//! [`Array::take`]: crate::Array::take
//! [`Array::put`]: crate::Array::put
//! [`Array::nonzero`]: crate::Array::nonzero

mod gather;
mod getitem;
mod index_arrays;
pub mod slicing;
mod take;

pub use gather::{
    choose, compress, copyto, extract, fill_diagonal, place, put_along_axis, putmask, select, take_along_axis,
};
pub use getitem::IndexItem;
pub use index_arrays::{
    argwhere, diag_indices, flatnonzero, indices, ix_, ravel_multi_index, tril_indices, triu_indices, unravel_index,
};
pub use slicing::{Ellipsis, IndexInt, IntoIndexItem, NewAxis, SteppedRange};

use xp_backend_api::{DType, Result};

use crate::{Array, Operand, Scalar};

/// Integer indices as int64, for the index kernels and the bounds checks. uint64 values of 2^63
/// and more, which a plain conversion would wrap to negative indices counting from the end,
/// become int64's maximum instead: out of bounds for every axis (none holds 2^63 elements),
/// so they are refused as NumPy refuses them.
pub(crate) fn indices_as_i64(idx: &Array) -> Result<Array> {
    if idx.dtype() == DType::U64 {
        let top = Operand::Scalar(Scalar::Int(i64::MAX.into()));
        return crate::ufunc::call("minimum", &[Operand::Array(idx), top], None)?.astype(DType::I64);
    }
    idx.astype(DType::I64)
}
