//! The facade's device tests as one binary: the NumPy-parity checks and the user-kernel checks
//! on every GPU found (written once in `array/tests/`, run there on the CPU), and the user tools
//! (`tools.rs`), and the kernels written in Rust (`rust_kernels.rs`, on the CPU and every GPU).
//! The lists' macros are mounted first, at the root, as they expect.

#[macro_use]
#[path = "../array/tests/device_tests/mod.rs"]
mod device_tests;
#[macro_use]
#[path = "../array/tests/parity_checks/mod.rs"]
mod parity_checks;
#[macro_use]
#[path = "../array/tests/user_kernel_checks/mod.rs"]
mod user_kernel_checks;
mod gpus;

mod interop_gpu;
mod ndimage_gpu;
mod parity_gpu;
// Kernels written in Rust: their definitions (shared with the compile check) and checks.
#[allow(dead_code)]
mod rust_kernel_defs;
mod rust_kernels;
mod tools;
mod user_kernels_gpu;
