//! The facade's device tests as one binary: the NumPy-parity checks and the user-kernel checks
//! on every GPU found (written once in `array/tests/`, run there on the CPU), and the user tools
//! (`tools.rs`). The lists' macros are mounted first, at the root, as they expect.

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
mod parity_gpu;
mod tools;
mod user_kernels_gpu;
