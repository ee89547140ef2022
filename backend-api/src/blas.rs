//! The BLAS family of the contract (ARCHITECTURE.md §2.5): a device hands out its [`Blas`] (cuBLAS on
//! CUDA, rocBLAS on HIP, the `gemm` crate on the CPU), whose one entry point is a strided
//! batched matrix product, the operation every NumPy product (`matmul`, `dot`, `tensordot`,
//! `einsum` …) lowers to.
//!
//! Matrices are described in row-major (C) terms, as the array layer sees them; a GPU backend
//! swaps operands to call its column-major library (`C^T = B^T A^T`).

use crate::{Buffer, DType, Error, Result, Stream};
use std::sync::Arc;

/// One operand of a [`GemmDesc`]: element `(i, j)` of matrix `b` is at
/// `offset + b * batch_stride + i * ld + j` elements into `buffer` (after the transposition
/// of [`GemmDesc::trans_a`] / [`GemmDesc::trans_b`] for `A` and `B`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixLayout {
    /// Elements from one row to the next (at least the row length, at least 1).
    pub ld: usize,
    /// Elements from one matrix of the batch to the next (0: every product reads the same
    /// matrix, as a broadcast operand does).
    pub batch_stride: usize,
}

/// `C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b]` for `b` in `0..batch`, all of `dtype`,
/// `C[b]` being `m × n`, `op(A[b])` `m × k`, `op(B[b])` `k × n`; `op` is the transpose when
/// `trans_a` / `trans_b` is set (then `A[b]` is stored `k × m`, `B[b]` `n × k`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GemmDesc {
    /// f16, bf16, f32, f64, c64 or c128 (see [`Blas::supports`]).
    pub dtype: DType,
    /// Rows of `C`.
    pub m: usize,
    /// Columns of `C`.
    pub n: usize,
    /// The contracted length.
    pub k: usize,
    /// Products in the batch.
    pub batch: usize,
    /// `A` is stored transposed.
    pub trans_a: bool,
    /// `B` is stored transposed.
    pub trans_b: bool,
    /// `A`'s layout.
    pub a: MatrixLayout,
    /// `B`'s layout.
    pub b: MatrixLayout,
    /// `C`'s layout (`batch_stride` must separate the products: no two write one element).
    pub c: MatrixLayout,
    /// `alpha` (real).
    pub alpha: f64,
    /// `beta` (real; 0 means `C` is not read).
    pub beta: f64,
}

impl GemmDesc {
    /// Rows and columns of `A` and of `B` as stored.
    pub fn stored(&self) -> ((usize, usize), (usize, usize)) {
        let a = if self.trans_a { (self.k, self.m) } else { (self.m, self.k) };
        let b = if self.trans_b { (self.n, self.k) } else { (self.k, self.n) };
        (a, b)
    }

    /// Elements from each operand's offset to one past the last it touches: `(A, B, C)`.
    pub fn spans(&self) -> (usize, usize, usize) {
        let ((ar, ac), (br, bc)) = self.stored();
        let span = |rows: usize, cols: usize, l: MatrixLayout| {
            if rows == 0 || cols == 0 || self.batch == 0 {
                0
            } else {
                (self.batch - 1) * l.batch_stride + (rows - 1) * l.ld + cols
            }
        };
        (span(ar, ac, self.a), span(br, bc, self.b), span(self.m, self.n, self.c))
    }

    /// A `Value` error unless the leading dimensions hold their rows (`op` names the caller).
    pub fn check(&self, op: &str) -> Result<()> {
        let ((_, ac), (_, bc)) = self.stored();
        let bad = |what: &str, ld: usize, cols: usize| {
            Err(Error::Value { op: op.into(), reason: format!("{what}: leading dimension {ld} < {cols} columns") })
        };
        if self.a.ld < ac.max(1) {
            return bad("A", self.a.ld, ac);
        }
        if self.b.ld < bc.max(1) {
            return bad("B", self.b.ld, bc);
        }
        if self.c.ld < self.n.max(1) {
            return bad("C", self.c.ld, self.n);
        }
        if self.batch > 1 && self.c.batch_stride < self.m * self.c.ld.max(self.n) && self.m * self.n > 0 {
            return Err(Error::Value {
                op: op.into(),
                reason: format!("C's batch stride {} lets products overlap", self.c.batch_stride),
            });
        }
        Ok(())
    }
}

/// A device's BLAS.
pub trait Blas: Send + Sync {
    /// The library and its version, e.g. `cuBLAS 13.0.0` or `gemm 0.19`.
    fn name(&self) -> String;
    /// Whether [`Blas::gemm`] takes `dtype` (the array layer converts otherwise).
    fn supports(&self, dtype: DType) -> bool;
    /// Queue the products of `desc` on `stream`: each operand a buffer and a byte offset.
    /// `A` and `B` may alias each other, never `C`.
    fn gemm(
        &self,
        stream: &Arc<dyn Stream>,
        desc: &GemmDesc,
        a: (&Buffer, usize),
        b: (&Buffer, usize),
        c: (&Buffer, usize),
    ) -> Result<()>;
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A product of 5 pairs of matrices (2 × 4 by 4 × 3) with padded rows and a broadcast `B`.
    pub(crate) fn desc(trans_a: bool) -> GemmDesc {
        GemmDesc {
            dtype: DType::F32,
            m: 2,
            n: 3,
            k: 4,
            batch: 5,
            trans_a,
            trans_b: false,
            a: MatrixLayout { ld: if trans_a { 2 } else { 4 }, batch_stride: 8 },
            b: MatrixLayout { ld: 3, batch_stride: 0 },
            c: MatrixLayout { ld: 3, batch_stride: 6 },
            alpha: 1.0,
            beta: 0.0,
        }
    }

    #[test]
    fn spans_cover_the_last_element_of_the_last_product() {
        assert_eq!(desc(false).spans(), (4 * 8 + 4 + 4, 3 * 3 + 3, 4 * 6 + 3 + 3));
        assert_eq!(desc(true).spans(), (4 * 8 + 3 * 2 + 2, 12, 30));
        assert!(desc(false).check("t").is_ok());
        let mut d = desc(false);
        d.a.ld = 3;
        assert!(d.check("t").is_err());
        let mut d = desc(false);
        d.c.batch_stride = 3;
        assert!(d.check("t").is_err());
    }
}
