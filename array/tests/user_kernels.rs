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

/// A kernel with a barrier runs its threads on fibers of 128 KiB; one whose locals need more
/// asks for larger stacks (`with_stack_size`) and runs. (Without it, this kernel would meet the
/// fibers' guard page.)
#[test]
fn a_kernel_with_large_locals_runs_on_larger_fiber_stacks() {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    let cpu = device("cpu").unwrap();
    const BIG: &str = r#"
extern "C" __global__ void big_locals(float* out) {
    volatile float local[65536];  // 256 KiB
    for (int i = 0; i < 65536; ++i) local[i] = (float)(i + threadIdx.x);
    __syncthreads();
    float s = 0.0f;
    for (int i = 0; i < 65536; i += 4096) s += local[i];
    out[threadIdx.x] = s;
}
"#;
    xp_array::with_device(&cpu, || {
        let k = xp_array::RawKernel::new(BIG, "big_locals").with_stack_size(1 << 20).unwrap();
        let out = xp_array::zeros(&[4], xp_array::DType::F32).unwrap();
        k.launch(1, 4, &[xp_array::LaunchArg::Array(&out)]).unwrap();
        let want: Vec<f32> = (0..4).map(|t| (4096 * 120 + 16 * t) as f32).collect();
        assert_eq!(out.to_vec::<f32>().unwrap(), want);
        assert!(xp_array::RawKernel::new(BIG, "big_locals").with_stack_size(usize::MAX).is_err());
    });
}

/// A `raw T` parameter whose `T` no other argument binds: the kernel compiled for one dtype of
/// it is not reused for another (the cache key once left that dtype out, and a float32 table
/// was read as float64).
#[test]
fn a_raw_parameters_own_type_is_part_of_the_kernels_key() {
    use xp_array::{Array, DType, ElementwiseKernel, Operand};
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    let cpu = device("cpu").unwrap();
    xp_array::with_device(&cpu, || {
        let k =
            ElementwiseKernel::new("raw T table, int64 k", "float64 y", "y = (double)table[k]", "raw_lookup").unwrap();
        let i = Array::from_vec(vec![2i64, 0, 1]).unwrap();
        let t64 = Array::from_vec(vec![1.5f64, 2.5, 3.5]).unwrap();
        let t32 = t64.astype(DType::F32).unwrap();
        for t in [&t64, &t32, &t64] {
            let y = k.call(&[Operand::Array(t), Operand::Array(&i)]).unwrap();
            assert_eq!(y.to_vec::<f64>().unwrap(), vec![3.5, 1.5, 2.5], "table of {:?}", t.dtype());
        }
    });
}
