//! Sparse matrix products by a vendor library (cuSPARSE, rocSPARSE), the contract's
//! [`SparseLib`]: what `xp::sparse` hands a library when the library is faster than xp's own
//! kernels (the product of two sparse matrices, SpGEMM).
//!
//! Matrices are CSR with sorted column indices and 32-bit or 64-bit indices (`indptr` and
//! `indices` of one integer dtype), values of float32, float64, complex64 or complex128. The
//! product's buffers come from the device's pool; its column indices are sorted within each
//! row; entries that cancel to zero may be kept (the caller removes them).

use std::sync::Arc;

use crate::{Buffer, DType, Error, Result, Stream};

/// The shape and types of a CSR matrix on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsrDesc {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Stored entries.
    pub nnz: usize,
    /// `int32` or `int64`: the dtype of `indptr` and `indices`.
    pub index: DType,
    /// The values' dtype.
    pub dtype: DType,
}

/// The device buffers of a CSR matrix: `(buffer, byte offset)` of `indptr` (`rows + 1`
/// entries), `indices` and `data` (`nnz` entries each).
#[derive(Clone, Copy)]
pub struct CsrBuffers<'b> {
    /// Row pointers.
    pub indptr: (&'b Buffer, usize),
    /// Column indices.
    pub indices: (&'b Buffer, usize),
    /// Values.
    pub data: (&'b Buffer, usize),
}

/// A CSR matrix a library made: its buffers (from the device's pool) and its number of entries.
pub struct CsrProduct {
    /// Stored entries.
    pub nnz: usize,
    /// Row pointers (`rows + 1` entries of the index dtype).
    pub indptr: Buffer,
    /// Column indices.
    pub indices: Buffer,
    /// Values.
    pub data: Buffer,
}

/// A device's sparse library.
pub trait SparseLib: Send + Sync {
    /// The library and its version: `cuSPARSE 12.6.3`.
    fn name(&self) -> String;
    /// Whether [`SparseLib::spgemm`] takes matrices of `index` indices and `dtype` values.
    fn supports_spgemm(&self, index: DType, dtype: DType) -> bool;
    /// `C = A · B`, queued on `stream`; the number of entries of `C` is read back (it sizes the
    /// output), so this returns after the symbolic phase has run.
    fn spgemm(
        &self,
        a: (&CsrDesc, CsrBuffers<'_>),
        b: (&CsrDesc, CsrBuffers<'_>),
        stream: &Arc<dyn Stream>,
    ) -> Result<CsrProduct>;
}

/// Check the descriptions of an SpGEMM before a library is called: same dtypes, inner
/// dimensions that match, a supported pair.
pub fn check_spgemm(lib: &dyn SparseLib, a: &CsrDesc, b: &CsrDesc) -> Result<()> {
    let op = "spgemm";
    if a.cols != b.rows {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: vec![a.rows, a.cols],
            rhs: vec![b.rows, b.cols],
            reason: "do not multiply".into(),
        });
    }
    if a.index != b.index || a.dtype != b.dtype {
        return Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![a.index, a.dtype, b.index, b.dtype],
            detail: "both matrices need the same index and value dtypes".into(),
        });
    }
    if !lib.supports_spgemm(a.index, a.dtype) {
        return Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![a.index, a.dtype],
            detail: format!("{} does not multiply these", lib.name()),
        });
    }
    Ok(())
}
