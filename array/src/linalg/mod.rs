//! Linear algebra: NumPy's products (`matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`,
//! `einsum`, `kron`, `trace`, `diagonal`, `diag`) on the device's BLAS (`Device::blas`:
//! cuBLAS, rocBLAS, or the `gemm` crate on the CPU), re-exported by the facade at `xp::`; and
//! `numpy.linalg`: norms and chains of products (`norm`, `matrix_power`, `multi_dot`) and the
//! solvers and decompositions on the device's dense solvers (`Device::solver`: cuSOLVER,
//! rocSOLVER, or `faer` on the CPU); `vecdot`, `tensorsolve` and `tensorinv` (`tensor.rs`)
//! are built on them.
//!
//! SciPy's additions (`scipy.linalg`, CuPy's `cupyx.scipy.linalg`) live here too, under
//! SciPy's names, on the same device solvers and array ops:
//! - solves and factorisations: [`solve_triangular`], [`lu`], [`lu_factor`], [`lu_solve`],
//!   [`cho_factor`], [`cho_solve`], and SciPy's `solve(a, b, assume_a, lower, transposed)` as
//!   [`solve_with`] with [`SolveOptions`] ([`solve`] keeps NumPy's signature; SciPy's
//!   `solve(a, b)` with its defaults is `solve_with(a, b, &SolveOptions::default())`);
//!   [`bandwidth`];
//! - the matrix exponential [`expm`] (Al-Mohy and Higham's scaling and squaring);
//! - special matrices: [`block_diag`], [`toeplitz`], [`circulant`], [`hankel`], [`hadamard`],
//!   [`helmert`], [`hilbert`], [`invhilbert`], [`leslie`], [`companion`],
//!   [`convolution_matrix`], [`dft`], [`fiedler`], [`fiedler_companion`], [`khatri_rao`].

mod expm;
mod lu;
mod norms;
mod products;
mod small_inv;
mod solve;
mod special_matrices;
mod structured;
mod tensor;
mod triangular;

pub use norms::{cond, matrix_power, multi_dot, norm, CondOrd, NormOrd};

pub use products::{diag, dot, einsum, inner, kron, matmul, outer, tensordot, trace, vdot, TensorAxes};

pub use solve::{
    cholesky, det, eig, eigh, eigvals, eigvalsh, inv, lstsq, matrix_rank, pinv, qr, slogdet, solve, svd, svdvals,
    QrMode,
};
pub use tensor::{tensorinv, tensorsolve, vecdot};

/// NumPy 2's `linalg.matrix_transpose` (also at the top level).
pub use crate::routines::matrix_transpose;

pub use expm::expm;
pub use lu::{cho_factor, cho_solve, lu, lu_factor, lu_solve};
pub use small_inv::small_inverse_kernels;
pub use special_matrices::{
    block_diag, circulant, companion, convolution_matrix, dft, fiedler, fiedler_companion, hadamard, hankel, helmert,
    hilbert, invhilbert, khatri_rao, leslie, toeplitz, DftScale,
};
pub use structured::{bandwidth, solve_with, AssumeA, SolveOptions};
pub use triangular::{solve_triangular, Trans};
