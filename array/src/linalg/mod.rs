//! Linear algebra: NumPy's products (`matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`,
//! `einsum`, `kron`, `trace`, `diagonal`, `diag`) on the device's BLAS (`Device::blas`:
//! cuBLAS, rocBLAS, or the `gemm` crate on the CPU). The products are NumPy top-level names and
//! are re-exported by the facade at `xp::`.

mod products;

pub use products::{diag, dot, einsum, inner, kron, matmul, outer, tensordot, trace, vdot, TensorAxes};
