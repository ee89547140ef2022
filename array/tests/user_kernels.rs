//! User-defined kernels (ElementwiseKernel, ReductionKernel, RawKernel, RawModule, fuse) on
//! the CPU backend, where they are compiled as C++ at run time: one test per check of
//! `user_kernel_checks/`, named after it. The root package's `tests/user_kernels_gpu.rs` runs
//! the same list on every GPU.

use std::sync::Arc;

use xp_array::{device, register_backend};
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

/// Runs `check` on the CPU device.
fn on_the_cpu(_test: &str, check: fn(&Arc<dyn DynDevice>)) {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    check(&device("cpu").unwrap());
}

user_kernel_tests!(on_the_cpu);
