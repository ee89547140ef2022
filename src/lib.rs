//! xp: NumPy-style N-d arrays whose work runs on NVIDIA GPUs (CUDA), AMD GPUs (HIP) or the
//! CPU, chosen at run time, from one code base.
//!
//! This facade re-exports the backend contract, the kernel dialect and the array layer, and
//! registers the backends that its features enable: `cpu` (default), `cuda`, `hip`. Every
//! combination builds on a machine without CUDA, ROCm or a GPU; vendor libraries are opened at
//! run time, and a missing one is [`Error::BackendUnavailable`], never a panic.
//!
//! ```
//! let dev = xp::default_device().unwrap(); // the CPU when no GPU is present
//! println!("running on {}", dev.label());
//! ```
#![warn(missing_docs)]

use std::sync::{Arc, Once};

pub use xp_array as array;
pub use xp_array::{
    arange, concatenate, empty, empty_like, eye, full, full_like, get_array_module, identity, linspace, load_npy,
    load_npz, meshgrid, ones, ones_like, save_npz, stack, where_, with_device, with_stream, zeros, zeros_like, Array,
    ArrayModule, Operand, Scalar, SliceArg,
};
pub use xp_backend_api as backend;
pub use xp_backend_api::{DType, DynDevice, Error, KernelArg, KernelSource, LaunchConfig, Result};
pub use xp_kernels as kernels;

pub mod memory;
pub use memory::{clear_kernel_cache, get_default_memory_pool, get_default_pinned_memory_pool};

static REGISTER: Once = Once::new();

// Backends register when the program starts, so that `xp::zeros(…)` and friends find them
// without an explicit `init()`.
#[ctor::ctor]
fn register_at_start() {
    init();
}

/// Register the backends enabled by this build's features (done by every entry point here;
/// call it yourself only when using `xp_array` directly).
pub fn init() {
    REGISTER.call_once(|| {
        #[cfg(feature = "cuda")]
        xp_array::register_backend(std::sync::Arc::new(
            xp_backend_api::BackendHandle::<xp_backend_cuda::CudaBackend>::default(),
        ));
        #[cfg(feature = "hip")]
        xp_array::register_backend(std::sync::Arc::new(
            xp_backend_api::BackendHandle::<xp_backend_hip::HipBackend>::default(),
        ));
        #[cfg(feature = "cpu")]
        xp_array::register_backend(std::sync::Arc::new(
            xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default(),
        ));
    });
}

/// Every usable device, GPUs first.
pub fn devices() -> Vec<Arc<dyn DynDevice>> {
    init();
    xp_array::devices()
}

/// The default device: `XP_DEVICE=cpu|cuda:N|hip:N`, else the first GPU, else the CPU.
pub fn default_device() -> Result<Arc<dyn DynDevice>> {
    init();
    xp_array::default_device()
}

/// The device named `label` (`cpu`, `cuda:0`, `hip:0`).
pub fn device(label: &str) -> Result<Arc<dyn DynDevice>> {
    init();
    xp_array::device(label)
}

/// The usual imports.
pub mod prelude {
    pub use crate::{
        default_device, device, devices, get_array_module, Array, DType, DynDevice, Error, KernelArg, KernelSource,
        LaunchConfig, Scalar, SliceArg,
    };
}
