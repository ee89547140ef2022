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
//! Coming from CuPy: `docs/cupy-to-xp.md` in the repository lists CuPy's idioms beside their xp
//! forms and the differences that remain.
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
//!
//! # One kernel, four ways
//! `y = a * x + b` over float32 arrays, on whichever device the arrays live (here the CPU): as
//! a `RawKernel` (CUDA C++ string, explicit grid), an `ElementwiseKernel` (C++ operation,
//! broadcasting), and in Rust with `#[xp::kernel]` (elementwise) and `#[xp::rawkernel]`
//! (explicit grid), as CuPy's `cupyx.jit`. The Rust forms are translated into the same dialect
//! at cargo time and type-checked by rustc ([`rust_kernel`] has the subset and semantics).
//!
//! ```
//! use xp::{Array, DType, ElementwiseKernel, LaunchArg, RawKernel};
//!
//! // 1. RawKernel: C++ source, explicit grid.
//! const AXPB: &str = r#"extern "C" __global__ void axpb(float a, const float* x, float b, float* y, int n) {
//!     int i = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (i < n) y[i] = a * x[i] + b;
//! }"#;
//! // 2. ElementwiseKernel: a C++ operation, broadcast over the arguments.
//! let ek = ElementwiseKernel::new("float32 a, float32 x, float32 b", "float32 y", "y = a * x + b", "axpb_ew")?;
//!
//! // 3. #[xp::kernel]: the operation in Rust.
//! #[xp::kernel]
//! fn axpb_jit(a: f32, x: f32, b: f32, y: &mut f32) {
//!     *y = a * x + b;
//! }
//!
//! // 4. #[xp::rawkernel]: the raw kernel in Rust.
//! #[xp::rawkernel]
//! fn axpb_raw(a: f32, x: &[f32], b: f32, y: &mut [f32]) {
//!     let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
//!     if i < x.len() {
//!         y[i] = a * x[i] + b;
//!     }
//! }
//!
//! let cpu = xp::device("cpu")?;
//! xp::with_device(&cpu, || -> xp::Result<()> {
//!     let x = xp::arange(0.0, 8.0, 1.0, Some(DType::F32))?;
//!     let want: Vec<f32> = (0..8).map(|v| 2.0 * v as f32 + 1.0).collect();
//!
//!     let y1 = xp::empty(&[8], DType::F32)?;
//!     let args = [LaunchArg::F32(2.0), LaunchArg::Array(&x), LaunchArg::F32(1.0), LaunchArg::Array(&y1), LaunchArg::I32(8)];
//!     RawKernel::new(AXPB, "axpb").launch((1u32,), (8u32,), &args)?;
//!     let y2 = ek.call(&[2.0f32.into(), (&x).into(), 1.0f32.into()])?;
//!     let y3 = axpb_jit.call((2.0f32, &x, 1.0f32))?;
//!     let mut y4 = xp::empty(&[8], DType::F32)?;
//!     axpb_raw.launch((1u32,), (8u32,), (2.0f32, &x, 1.0f32, &mut y4))?;
//!
//!     for y in [&y1, &y2, &y3, &y4] {
//!         assert_eq!(y.to_vec::<f32>()?, want);
//!     }
//!     Ok(())
//! })?;
//! # Ok::<(), xp::Error>(())
//! ```
//!
//! Mistakes in a kernel written in Rust are compile errors at their line: rustc type-checks
//! the body (here, an `f32` plus a `u32`), a function that is neither a builtin nor marked
//! `#[xp::device]` is not found, and syntax outside the subset is refused with a sentence
//! saying what is supported.
//!
//! ```compile_fail,E0308
//! #[xp::rawkernel]
//! fn bad(x: &[f32], out: &mut [f32]) {
//!     out[0] = x[0] + 1u32;
//! }
//! ```
//!
//! ```compile_fail,E0425
//! #[xp::rawkernel]
//! fn bad(x: &[f32], out: &mut [f32]) {
//!     out[0] = frobnicate(x[0]);
//! }
//! ```
//!
//! ```compile_fail
//! #[xp::rawkernel]
//! fn bad(x: &[f32], out: &mut [f32]) {
//!     out[0] = match x.len() { 0 => 0.0, _ => x[0] };
//! }
//! ```
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
/// Memory order, as NumPy's `order=` argument and `a.flags` (see [`xp_array::memory_order`]).
pub use xp_array::memory_order::{
    ascontiguousarray, asfortranarray, empty_like_order, empty_order, full_like_order, full_order, ones_like_order,
    ones_order, zeros_like_order, zeros_order, Flags, Order,
};
/// N-d image processing (`scipy.ndimage`, CuPy's `cupyx.scipy.ndimage`): filters, spline
/// interpolation, morphology and measurements.
pub use xp_array::ndimage;
/// `num_complex`, whose `Complex<f32>` and `Complex<f64>` are xp's complex elements and scalars.
pub use xp_array::num_complex;
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
/// Kernels written in Rust, as CuPy's `cupyx.jit`: `#[xp::rawkernel]` (explicit grid, shared
/// memory, barriers), `#[xp::kernel]` (elementwise) and `#[xp::device]` (helpers) translate a
/// Rust function into the kernel dialect at cargo time; see [`rust_kernel`] for the subset,
/// the semantics and the launch.
pub use xp_array::user::rust_kernel;
pub use xp_array::user::rust_kernel::{Float, Int, RustElementwiseKernel, RustKernel};
pub use xp_array::{
    arange, concatenate, empty, empty_like, eye, full, full_like, get_array_module, identity, linspace, load_npy,
    load_npz, meshgrid, ones, ones_like, save_npz, stack, where_, with_device, with_stream, zeros, zeros_like, Array,
    ArrayModule, Operand, Scalar, ScalarOperand, SliceArg, J,
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
/// Streams, events and graphs under `cupy.cuda`'s names (`xp::Stream`, `xp::Event`,
/// `xp::get_elapsed_time`, `xp::with_stream(&stream, || …)`, `Graph` from
/// `stream.begin_capture()` … `stream.end_capture()`); see [`xp_array::stream`].
pub use xp_array::{get_elapsed_time, Event, Graph, Stream, StreamGuard};
pub use xp_backend_api as backend;
pub use xp_backend_api::{DType, DynDevice, Error, KernelArg, KernelSource, LaunchConfig, Result};
pub use xp_kernels as kernels;
pub use xp_macros::{device, kernel, rawkernel};

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
    pub use crate::{get_elapsed_time, with_stream, Event, Graph, Stream};
}
