//! Linear algebra: NumPy's products (`matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`,
//! `einsum`, `kron`, `trace`, `diagonal`, `diag`) on the device's BLAS (`Device::blas`:
//! cuBLAS, rocBLAS, or the `gemm` crate on the CPU). The products are NumPy top-level names and
//! are re-exported by the facade at `xp::`. Of `numpy.linalg` itself: `norm`, `matrix_power`
//! and `multi_dot`; the solvers come with the solver contract.

mod norms;
mod products;

pub use norms::{matrix_power, multi_dot, norm, NormOrd};

pub use products::{diag, dot, einsum, inner, kron, matmul, outer, tensordot, trace, vdot, TensorAxes};
