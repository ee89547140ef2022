//! Linear algebra: NumPy's products (`matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`,
//! `einsum`, `kron`, `trace`, `diagonal`, `diag`) on the device's BLAS (`Device::blas`:
//! cuBLAS, rocBLAS, or the `gemm` crate on the CPU), re-exported by the facade at `xp::`; and
//! `numpy.linalg`: norms and chains of products (`norm`, `matrix_power`, `multi_dot`) and the
//! solvers and decompositions on the device's dense solvers (`Device::solver`: cuSOLVER,
//! rocSOLVER, or `faer` on the CPU).

mod norms;
mod products;
mod solve;

pub use norms::{cond, matrix_power, multi_dot, norm, CondOrd, NormOrd};

pub use products::{diag, dot, einsum, inner, kron, matmul, outer, tensordot, trace, vdot, TensorAxes};

pub use solve::{
    cholesky, det, eig, eigh, eigvals, eigvalsh, inv, lstsq, matrix_rank, pinv, qr, slogdet, solve, svd, svdvals,
    QrMode,
};
