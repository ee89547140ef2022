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
//!
//! # Tools
//! - [`show_config`] (as `cupy.show_config()`) prints the build — xp's version, features,
//!   rustc and target — and, for every backend, whether it works here (or why not), its
//!   driver and compiler versions, where its vendor libraries were found, and its devices.
//!   [`config_info`] returns the same as data.
//! - [`benchmark`] (as `cupyx.profiler.benchmark`) times a function on the host and on the
//!   current device's stream, and prints as CuPy does.
//! - [`profile::range`] and [`profile::mark`] annotate Nsight Systems timelines through NVTX
//!   (`libnvtx3interop` of CUDA 13, or `libnvToolsExt` of older toolkits, found at run time;
//!   no-ops without it). See [`profile`] for where the library is looked for.
#![warn(missing_docs)]

mod benchmark;
pub mod config;
pub mod interop;
pub mod profile;

use std::sync::{Arc, Once};

pub use benchmark::{benchmark, benchmark_named, BenchmarkResult};
pub use config::{BackendReport, ConfigInfo, DeviceReport};

pub use xp_array as array;
/// Collectives between GPUs (`cupyx.distributed`, `torch.distributed`) through NCCL or RCCL:
/// `init_all` for one process driving several GPUs, `init_process` for one process per GPU.
pub use xp_array::distributed;
/// Discrete Fourier transforms (`numpy.fft`, CuPy's `cupy.fft`), `scipy.fft`'s additions
/// (`dct`, `idct`, `dst`, `idst`, `dctn`, `idctn`, `dstn`, `idstn`, `fht`, `ifht`,
/// `fhtoffset`, `hfft2`, `ihfft2`, `hfftn`, `ihfftn`, `next_fast_len`, `prev_fast_len`) and
/// the plan cache (`xp::fft::config::get_plan_cache()`).
pub use xp_array::fft;
/// Interpolation (`scipy.interpolate`, CuPy's `cupyx.scipy.interpolate`).
pub use xp_array::interpolate;
/// Lazy fusion: elementwise ops return pending arrays that chains run as one kernel, with the
/// bits of the ops run one by one. `xp::eval(&[&a, &b])` computes pending arrays now (one
/// kernel for those of one shape), `xp::lazy::disabled(|| …)` or `XP_LAZY=0` turns fusion off,
/// `XP_TRACE_FUSION=1` logs each evaluation.
pub use xp_array::lazy;
pub use xp_array::lazy::eval;
/// Linear algebra (`numpy.linalg`, CuPy's `cupy.linalg`) and SciPy's additions
/// (`scipy.linalg`: `solve_triangular`, `lu`, `cho_solve`, `solve_with`, `expm`, the special
/// matrices, ...); the products are also at `xp::`.
pub use xp_array::linalg;
pub use xp_array::linalg::{diag, dot, einsum, inner, kron, matmul, outer, tensordot, trace, vdot, TensorAxes};
/// N-d image processing (`scipy.ndimage`, CuPy's `cupyx.scipy.ndimage`): filters, spline
/// interpolation, morphology and measurements.
pub use xp_array::ndimage;
/// Random numbers (`numpy.random`, CuPy's `cupy.random`): `default_rng(seed)` and the legacy
/// functions, the same bits on every device.
pub use xp_array::random;
pub use xp_array::routines::*;
/// NumPy's `a[...]` as a Rust index expression: `a.at(s![.., 1..;2, -1])`,
/// `a.set(s![&mask], 0.0)` (see `xp::array::indexing::slicing`).
pub use xp_array::s;
/// Convolution and correlation (`scipy.signal`, CuPy's `cupyx.scipy.signal`): `convolve2d`,
/// `correlate2d`, N-d `convolve`/`correlate` with a method, `fftconvolve`, `oaconvolve`.
pub use xp_array::signal;
/// Sparse matrices (`scipy.sparse`, CuPy's `cupyx.scipy.sparse`): COO, CSR and CSC, their
/// products with dense arrays and with each other.
pub use xp_array::sparse;
/// Distances and nearest neighbours (`scipy.spatial`, CuPy's `cupyx.scipy.spatial`).
pub use xp_array::spatial;
/// Special functions (`scipy.special`, CuPy's `cupyx.scipy.special`): the logistic and
/// information-theory functions, Huber losses and Box-Cox transforms, the error functions and
/// their inverses, the normal CDF and its inverse, the gamma family (`gamma`, `gammaln`,
/// `digamma`, `polygamma`, `multigammaln`, `zeta`, `beta`…), the incomplete gamma and beta
/// functions and their inverses, the distribution functions (`bdtr`, `chdtr`, `fdtr`, `gdtr`,
/// `nbdtr`, `pdtr`, `stdtr` and their complements and inverses), Bessel functions (`j0`…`yn`,
/// `i0`…`k1e`, `iv`, `kv`), exponential integrals, Lambert W, elliptic functions (`ellipk`,
/// `ellipkm1`, `ellipj`), `softmax`, `log_softmax`, `logsumexp`.
pub use xp_array::special;
/// Statistics (`scipy.stats`, CuPy's `cupyx.scipy.stats`).
pub use xp_array::stats;
pub use xp_array::{
    arange, concatenate, empty, empty_like, eye, full, full_like, get_array_module, identity, linspace, load_npy,
    load_npz, meshgrid, ones, ones_like, save_npz, stack, where_, with_device, with_stream, zeros, zeros_like, Array,
    ArrayModule, Operand, Scalar, SliceArg,
};
/// Sorting, searching and sets at the top level, as `cupy.sort`, `cupy.argsort`, `cupy.unique`
/// and `cupy.searchsorted` are.
pub use xp_array::{
    argpartition, argsort, lexsort, partition, searchsorted, sort, sort_complex, unique, unique_all, Side, Unique,
};
/// NumPy's type promotion (`numpy.result_type`, `promote_types`, `can_cast` with
/// `casting="safe"`), element-wise calls by name, `clip`, and the current stream and device.
pub use xp_array::{call, can_cast_safe, clip, current_device, current_stream, promote_types, result_type, Element};
/// NumPy's 1-d `convolve` and `correlate`.
pub use xp_array::{convolve, correlate};
/// User-defined kernels at the top level, as `cupy.ElementwiseKernel`, `cupy.ReductionKernel`,
/// `cupy.RawKernel`, `cupy.RawModule` and `cupy.fuse` are.
pub use xp_array::{fuse, ElementwiseKernel, FuseVar, LaunchArg, RawKernel, RawModule, ReductionKernel};
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

/// The backends this build's features enable, in the order devices are chosen (cuda, hip, cpu).
// Each push is behind its own feature: a `vec![…]` cannot leave elements out.
#[allow(clippy::vec_init_then_push)]
fn built_backends() -> Vec<Arc<dyn xp_backend_api::DynBackend>> {
    let mut b: Vec<Arc<dyn xp_backend_api::DynBackend>> = Vec::new();
    #[cfg(feature = "cuda")]
    b.push(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cuda::CudaBackend>::default()));
    #[cfg(feature = "hip")]
    b.push(Arc::new(xp_backend_api::BackendHandle::<xp_backend_hip::HipBackend>::default()));
    #[cfg(feature = "cpu")]
    b.push(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
    b
}

/// Register the backends enabled by this build's features (done by every entry point here;
/// call it yourself only when using `xp_array` directly).
pub fn init() {
    REGISTER.call_once(|| {
        for b in built_backends() {
            xp_array::register_backend(b);
        }
    });
}

/// The build and what it finds here: xp's version, features, rustc and target; per backend
/// (built or not) whether it works, its versions, its libraries' paths and its devices.
/// Never panics: a missing backend is reported with the reason.
pub fn config_info() -> ConfigInfo {
    init();
    let built = built_backends();
    let backends = ["cuda", "hip", "cpu"]
        .into_iter()
        .map(|name| match built.iter().find(|b| b.name() == name) {
            Some(b) => config::backend_report(b),
            None => config::not_built(name),
        })
        .collect();
    ConfigInfo {
        version: env!("CARGO_PKG_VERSION"),
        features: config::enabled_features(),
        rustc: env!("XP_BUILD_RUSTC_VERSION"),
        target: env!("XP_BUILD_TARGET"),
        profile: env!("XP_BUILD_PROFILE"),
        backends,
        nvtx: profile::nvtx_library().map(|p| p.display().to_string()),
    }
}

/// Print [`config_info`], as `cupy.show_config()`.
pub fn show_config() {
    print!("{}", config_info());
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
        default_device, device, devices, get_array_module, s, Array, DType, DynDevice, Ellipsis, Error, IndexItem,
        KernelArg, KernelSource, LaunchConfig, NewAxis, Scalar, SliceArg,
    };
}
