//! SciPy's sparse *arrays* (`csr_array`, `csc_array`, `coo_array`), beside its sparse
//! *matrices*: the same storage with NumPy's semantics instead of `numpy.matrix`'s.
//!
//! **What differs.** In SciPy, `A * B` of two sparse arrays multiplies element by element
//! (for sparse matrices it is the matrix product), `A @ B` is the matrix product for both, and
//! reductions along an axis give 1-d arrays (`(n,)`, where a sparse matrix gives a `(1, n)` or
//! `(m, 1)` matrix). Here:
//! - [`CsrArray`], [`CscArray`] and [`CooArray`] wrap [`CsrMatrix`], [`CscMatrix`] and
//!   [`CooMatrix`] and dereference to them, so every method of the matrix (conversions,
//!   indexing, `dot`, `multiply`, the solvers through [`crate::sparse::linalg`]) works on them
//!   unchanged;
//! - `&a * &b` is the element-wise product ([`CsrMatrix::multiply`]) and [`CsrArray::matmul`]
//!   / [`CsrArray::matmul_sparse`] are `@`; the sparse matrices have no `*` operator in Rust
//!   (their product is the named `dot`), so no expression changes meaning between the two;
//! - `sum(Some(axis))` answers a 1-d array.
//!
//! Arrays are 2-d only (SciPy 1.14's 1-d COO arrays are not offered), and `dia_array` is not
//! offered (the DIA format itself is not). Like [`crate::Array`]'s operators, `*` panics on
//! mismatched shapes (use `multiply` for a `Result`).

use std::ops::Deref;

use xp_backend_api::Result;

use super::{CooMatrix, CscMatrix, CsrMatrix};
use crate::Array;

macro_rules! sparse_array {
    ($name:ident, $mat:ident, $scipy:literal, $sum:expr) => {
        #[doc = concat!("SciPy's `", $scipy, "`: a [`", stringify!($mat), "`] with NumPy's semantics (see the module docs).")]
        #[derive(Debug, Clone)]
        pub struct $name(pub $mat);

        impl Deref for $name {
            type Target = $mat;
            fn deref(&self) -> &$mat {
                &self.0
            }
        }

        impl From<$mat> for $name {
            fn from(m: $mat) -> Self {
                $name(m)
            }
        }

        impl $name {
            /// The sparse matrix of the same storage (SciPy's `spmatrix` form).
            pub fn into_matrix(self) -> $mat {
                self.0
            }

            /// NumPy's `sum(axis)`: every entry (`None`, a 0-d array), or a 1-d array of the
            /// columns' (`Some(0)`) or the rows' (`Some(1)`) sums.
            pub fn sum(&self, axis: Option<isize>) -> Result<Array> {
                #[allow(clippy::redundant_closure_call)]
                let s = ($sum)(&self.0, axis)?;
                if axis.is_some() {
                    s.reshape(&[-1])
                } else {
                    Ok(s)
                }
            }

            /// `A @ x` for a dense vector or matrix `x`.
            pub fn matmul(&self, x: &Array) -> Result<Array> {
                self.0.dot(x)
            }
        }
    };
}

sparse_array!(CsrArray, CsrMatrix, "csr_array", |m: &CsrMatrix, axis| m.sum(axis));
sparse_array!(CscArray, CscMatrix, "csc_array", |m: &CscMatrix, axis| m.sum(axis));
sparse_array!(CooArray, CooMatrix, "coo_array", |m: &CooMatrix, axis| -> Result<Array> { m.tocsr()?.sum(axis) });

impl CsrArray {
    /// `A @ B` of two sparse arrays.
    pub fn matmul_sparse(&self, other: &CsrArray) -> Result<CsrArray> {
        self.0.dot_sparse(&other.0).map(CsrArray)
    }

    /// The element-wise product `A * B` (shapes must be equal).
    pub fn multiply(&self, other: &CsrArray) -> Result<CsrArray> {
        self.0.multiply(&other.0).map(CsrArray)
    }
}

impl std::ops::Mul<&CsrArray> for &CsrArray {
    type Output = CsrArray;

    /// The element-wise product, as NumPy's `*` (panics on mismatched shapes, as
    /// [`crate::Array`]'s operators do).
    #[track_caller]
    fn mul(self, rhs: &CsrArray) -> CsrArray {
        self.multiply(rhs).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl std::ops::Mul<&CscArray> for &CscArray {
    type Output = CscArray;

    /// The element-wise product, as NumPy's `*` (panics on mismatched shapes, as
    /// [`crate::Array`]'s operators do).
    #[track_caller]
    fn mul(self, rhs: &CscArray) -> CscArray {
        // Aᵀ ⊙ Bᵀ = (A ⊙ B)ᵀ: the CSR forms of the transposes multiply.
        let p = self.0.transpose().multiply(&rhs.0.transpose()).unwrap_or_else(|e| panic!("{e}"));
        CscArray(p.transpose())
    }
}

/// SciPy's `csr_array((data, indices, indptr), shape)`.
pub fn csr_array(data: &Array, indices: &Array, indptr: &Array, shape: Option<(usize, usize)>) -> Result<CsrArray> {
    CsrMatrix::new(data, indices, indptr, shape).map(CsrArray)
}

/// SciPy's `csc_array((data, indices, indptr), shape)`.
pub fn csc_array(data: &Array, indices: &Array, indptr: &Array, shape: Option<(usize, usize)>) -> Result<CscArray> {
    super::csc_matrix(data, indices, indptr, shape).map(CscArray)
}

/// SciPy's `coo_array((data, (row, col)), shape)`.
pub fn coo_array(data: &Array, row: &Array, col: &Array, shape: Option<(usize, usize)>) -> Result<CooArray> {
    CooMatrix::new(data, row, col, shape).map(CooArray)
}
