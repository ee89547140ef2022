//! User-defined kernels (ElementwiseKernel, ReductionKernel, RawKernel, RawModule, fuse) on
//! the CPU backend, where they are compiled as C++ at run time. The checks themselves live in
//! `user_kernel_checks/` and run on GPUs from the root package's `tests/user_kernels_gpu.rs`.

use std::sync::Arc;

use xp_array::{device, register_backend};
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

mod user_kernel_checks;
use user_kernel_checks as checks;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

#[test]
fn elementwise_seed() {
    checks::elementwise_seed(&cpu());
}

#[test]
fn axpb_and_leaky_relu() {
    checks::axpb_and_leaky_relu(&cpu());
}

#[test]
fn raw_params() {
    checks::raw_params(&cpu());
}

#[test]
fn reduction_seed() {
    checks::reduction_seed(&cpu());
}

#[test]
fn row_norms() {
    checks::row_norms(&cpu());
}

#[test]
fn raw_kernels() {
    checks::raw_kernels(&cpu());
}

#[test]
fn tiled_matmul_and_module() {
    checks::tiled_matmul_and_module(&cpu());
}

#[test]
fn fused() {
    checks::fused(&cpu());
}

#[test]
fn fused_negative_on_bool() {
    checks::fused_negative_on_bool(&cpu());
}

#[test]
fn bad_input() {
    checks::bad_input(&cpu());
}
