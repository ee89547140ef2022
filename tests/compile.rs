//! The cross-vendor compile checks, NVRTC for `sm_90` and hiprtc for `gfx90a`, as one binary:
//! the element-wise and index kernels (`compile_check.rs`), the reductions and scans
//! (`compile_reduce.rs`).

mod compile_check;
mod compile_reduce;
