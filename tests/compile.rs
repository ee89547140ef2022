//! The cross-vendor compile checks, NVRTC for `sm_90` and hiprtc for `gfx90a`, as one binary:
//! the element-wise and index kernels (`compile_check.rs`), the reductions and scans
//! (`compile_reduce.rs`), the kernels written in Rust of the tests and examples (`compile_rust.rs`),
//! the compile errors of user kernels in the user's lines (`compile_user_errors.rs`), `ndimage`'s
//! interpolation kernels (`compile_ndimage.rs`).

mod compile_check;
mod compile_ndimage;
mod compile_reduce;
mod compile_rust;
mod compile_user_errors;
