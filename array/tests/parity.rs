//! NumPy parity of `put` with repeated indices, `fill`, complex ordering, `numpy.linalg`'s
//! solvers, sorts, scans, random bits, `convolve2d`, sparse matrices, float → integer casts,
//! out-of-range indices and overlapping `out` on the CPU backend, whose
//! launches run blocks on several workers at once: one test per check of `parity_checks/`,
//! named after it. The root package's `tests/parity_gpu.rs` runs the same list on every GPU.

use std::sync::Arc;

use xp_array::{device, register_backend};
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

/// Runs `check` on the CPU device.
fn on_the_cpu(_test: &str, check: fn(&Arc<dyn DynDevice>)) {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    check(&device("cpu").unwrap());
}

parity_tests!(on_the_cpu);
