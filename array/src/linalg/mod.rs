//! Linear algebra: NumPy's products (`matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`,
//! `einsum`, `kron`, `trace`, `diagonal`, `diag`) on the device's BLAS (`Device::blas`:
//! cuBLAS, rocBLAS, or the `gemm` crate on the CPU), re-exported by the facade at `xp::`; and
//! `numpy.linalg`: norms and chains of products (`norm`, `matrix_power`, `multi_dot`) and the
//! solvers and decompositions on the device's dense solvers (`Device::solver`: cuSOLVER,
//! rocSOLVER, or `faer` on the CPU); `vecdot`, `tensorsolve` and `tensorinv` (`tensor.rs`)
//! are built on them.

mod norms;
mod products;
mod solve;
mod tensor;

pub use norms::{cond, matrix_power, multi_dot, norm, CondOrd, NormOrd};

pub use products::{diag, dot, einsum, inner, kron, matmul, outer, tensordot, trace, vdot, TensorAxes};

pub use solve::{
    cholesky, det, eig, eigh, eigvals, eigvalsh, inv, lstsq, matrix_rank, pinv, qr, slogdet, solve, svd, svdvals,
    QrMode,
};
pub use tensor::{tensorinv, tensorsolve, vecdot};

/// NumPy 2's `linalg.matrix_transpose` (also at the top level).
pub use crate::routines::matrix_transpose;
