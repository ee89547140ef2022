//! The trait family a backend implements, and its object-safe mirror.

use std::any::Any;
use std::sync::Arc;

use crate::blas::Blas;
use crate::collective::CollectiveLib;
use crate::compile::{CompileOptions, KernelSource};
use crate::fft::FftLib;
use crate::launch::{KernelArg, LaunchConfig};
use crate::memory::{Buffer, MemoryPool, PinnedMemoryPool};
use crate::solver::Solver;
use crate::sparse::SparseLib;
use crate::{Error, Result};

/// What a device says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProperties {
    /// Marketing name (`NVIDIA H100 80GB HBM3`, `AMD Instinct MI250X`, the CPU's model name).
    pub name: String,
    /// Bytes of device memory (host memory on the CPU).
    pub total_memory: usize,
    /// Streaming multiprocessors / compute units / CPU worker threads.
    pub multiprocessor_count: u32,
    /// Architecture: `sm_90`, `gfx90a`, `x86_64`.
    pub arch: String,
    /// Threads that execute in lock-step: 32 on NVIDIA, 64 or 32 on AMD, 1 on the CPU.
    pub warp_size: u32,
    /// Largest number of threads in one block.
    pub max_threads_per_block: u32,
    /// Largest block extent per dimension.
    pub max_block_dim: [u32; 3],
    /// Largest grid extent per dimension.
    pub max_grid_dim: [u32; 3],
    /// Largest static + dynamic shared memory per block, in bytes.
    pub max_shared_memory_per_block: usize,
    /// Whether the device is the host itself (its memory is host memory and its kernels run
    /// on host threads). Planners ask this, never the backend's name.
    pub is_host: bool,
    /// Compute capability `(major, minor)`: `(9, 0)` on an H100; the GCN major and minor
    /// on AMD (`(9, 0)` on gfx90a); `(0, 0)` on the CPU.
    pub compute_capability: (u32, u32),
    /// Peak clock rate in kHz, as CUDA's `clockRate` (0 when the device does not say).
    pub clock_rate_khz: u32,
}

/// An in-order queue of work on a device.
pub trait Stream: Send + Sync {
    /// A process-unique id.
    fn id(&self) -> u64;
    /// Block until every piece of work queued so far has finished; also reports errors
    /// recorded by destructors since the last synchronising call.
    fn synchronize(&self) -> Result<()>;
    /// Record a new event at the current end of this stream.
    fn record_event(&self) -> Result<Arc<dyn Event>>;
    /// Make later work on this stream wait until `event` has completed.
    fn wait_event(&self, event: &dyn Event) -> Result<()>;
    /// Queue a kernel launch. Arguments are copied before this returns; buffers must stay
    /// alive until the work completes, which [`Buffer`]'s stream tracking guarantees for
    /// buffers dropped afterwards.
    fn launch(&self, kernel: &dyn Kernel, config: &LaunchConfig, args: &[KernelArg<'_>]) -> Result<()>;
    /// Copy host bytes into `dst` at `dst_offset`, in stream order; returns once `src` may be reused.
    fn copy_from_host(&self, dst: &Buffer, dst_offset: usize, src: &[u8]) -> Result<()>;
    /// Copy bytes of `src` at `src_offset` to the host, in stream order; returns when they are there.
    fn copy_to_host(&self, src: &Buffer, src_offset: usize, dst: &mut [u8]) -> Result<()>;
    /// Copy `bytes` between two buffers of this device, in stream order (asynchronous).
    fn copy_device(&self, src: &Buffer, src_offset: usize, dst: &Buffer, dst_offset: usize, bytes: usize)
        -> Result<()>;
    /// Copy `bytes` from `src` (a buffer of this stream's device) into `dst`, a buffer of
    /// another device of the same backend, directly between the GPUs when they can reach each
    /// other (else staged by the driver): queued on this stream after the work `dst_stream`
    /// has queued so far, and later work on `dst_stream` waits for the copy. `Ok(false)` when
    /// the backend has no such copy (the caller then copies through the host).
    fn copy_peer(
        &self,
        src: &Buffer,
        src_offset: usize,
        dst_stream: &Arc<dyn Stream>,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<bool> {
        let _ = (src, src_offset, dst_stream, dst, dst_offset, bytes);
        Ok(false)
    }
    /// Start recording the work queued on this stream into a graph instead of running it
    /// (see [`crate::capture`]). The caller also starts the pool's side
    /// ([`MemoryPool::begin_capture`]). Backends without graphs keep this default:
    /// [`Error::Unsupported`].
    fn begin_capture(&self) -> Result<()> {
        Err(crate::capture::capture_unsupported("begin_capture"))
    }
    /// Stop recording and make the executable graph of what was recorded. An error (a refused
    /// operation invalidated the capture, the driver failed) leaves the stream out of capture
    /// mode with nothing recorded kept.
    fn end_capture(&self) -> Result<Arc<dyn crate::capture::Graph>> {
        Err(crate::capture::capture_unsupported("end_capture"))
    }
    /// Whether the stream is recording a capture.
    fn is_capturing(&self) -> bool {
        false
    }
    /// Downcasting, for backends.
    fn as_any(&self) -> &dyn Any;
}

/// A marker in a stream: completion and timing.
pub trait Event: Send + Sync {
    /// Block until the work before the event has finished.
    fn synchronize(&self) -> Result<()>;
    /// Whether the work before the event has finished, without blocking.
    fn query(&self) -> Result<bool>;
    /// Milliseconds from `self` to `end`; both must have completed.
    fn elapsed_ms(&self, end: &dyn Event) -> Result<f32>;
    /// Downcasting, for backends.
    fn as_any(&self) -> &dyn Any;
}

/// A compiled module: one or more kernels.
pub trait Module: Send + Sync {
    /// The kernel called `name` (its `extern "C"` name).
    fn function(&self, name: &str) -> Result<Arc<dyn Kernel>>;
}

/// One kernel of a module.
pub trait Kernel: Send + Sync {
    /// The kernel's name.
    fn name(&self) -> &str;
    /// How many parameters the kernel takes, where the compiler can tell.
    fn num_params(&self) -> Option<usize>;
    /// Downcasting, for backends.
    fn as_any(&self) -> &dyn Any;
}

/// A device of one backend, with its concrete types (the static side of the contract).
pub trait Device: Send + Sync + 'static {
    /// The stream type.
    type Stream: Stream + 'static;
    /// The module type.
    type Module: Module + 'static;

    /// `cpu`, `cuda` or `hip`.
    fn backend_name(&self) -> &'static str;
    /// The ordinal among the backend's devices.
    fn ordinal(&self) -> usize;
    /// Properties.
    fn properties(&self) -> &DeviceProperties;
    /// The stream used when none is chosen.
    fn default_stream(&self) -> Arc<Self::Stream>;
    /// A new stream.
    fn new_stream(&self) -> Result<Arc<Self::Stream>>;
    /// The device's memory pool.
    fn memory_pool(&self) -> &Arc<MemoryPool>;
    /// The pool of page-locked host memory for copies to and from this device.
    fn pinned_memory_pool(&self) -> Result<Arc<PinnedMemoryPool>>;
    /// Compile (or find in the cache) a kernel source.
    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Arc<Self::Module>>;
    /// Wait for all work on every stream of the device; report recorded errors.
    fn synchronize(&self) -> Result<()>;
    /// The device's FFT library, opened on first use (`BackendUnavailable` naming the missing
    /// library and how to install it when it cannot be).
    fn fft(&self) -> Result<Arc<dyn FftLib>> {
        Err(Error::Unsupported(format!("the {} backend has no FFT library", self.backend_name())))
    }
    /// The device's BLAS, opened on first use (`BackendUnavailable` naming the missing
    /// library and how to install it when it cannot be).
    fn blas(&self) -> Result<Arc<dyn Blas>> {
        Err(Error::Unsupported(format!("the {} backend has no BLAS", self.backend_name())))
    }
    /// The device's dense solvers, opened on first use (`BackendUnavailable` naming the
    /// missing library and how to install it when it cannot be).
    fn solver(&self) -> Result<Arc<dyn Solver>> {
        Err(Error::Unsupported(format!("the {} backend has no dense solvers", self.backend_name())))
    }
    /// The device's sparse library (cuSPARSE, rocSPARSE), opened on first use
    /// (`BackendUnavailable` naming the missing library when it cannot be).
    fn sparse(&self) -> Result<Arc<dyn SparseLib>> {
        Err(Error::Unsupported(format!("the {} backend has no sparse library", self.backend_name())))
    }
    /// The device's collective library (NCCL, RCCL), opened on first use (`BackendUnavailable`
    /// naming the missing library and how to install it when it cannot be).
    fn collectives(&self) -> Result<Arc<dyn CollectiveLib>> {
        Err(Error::Unsupported(format!(
            "the {} backend has no collective library (collectives run between GPUs, through NCCL or RCCL)",
            self.backend_name()
        )))
    }
}

/// The object-safe mirror of [`Device`], so the backend can be chosen at run time.
pub trait DynDevice: Send + Sync {
    /// `cpu`, `cuda` or `hip`.
    fn backend_name(&self) -> &'static str;
    /// The ordinal among the backend's devices.
    fn ordinal(&self) -> usize;
    /// Properties.
    fn properties(&self) -> &DeviceProperties;
    /// The stream used when none is chosen.
    fn default_stream(&self) -> Arc<dyn Stream>;
    /// A new stream.
    fn new_stream(&self) -> Result<Arc<dyn Stream>>;
    /// The device's memory pool.
    fn memory_pool(&self) -> &Arc<MemoryPool>;
    /// The pool of page-locked host memory for copies to and from this device.
    fn pinned_memory_pool(&self) -> Result<Arc<PinnedMemoryPool>>;
    /// Compile (or find in the cache) a kernel source.
    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Arc<dyn Module>>;
    /// Wait for all work of the device; report recorded errors.
    fn synchronize(&self) -> Result<()>;
    /// The device's FFT library (see [`Device::fft`]).
    fn fft(&self) -> Result<Arc<dyn FftLib>>;
    /// The device's BLAS (see [`Device::blas`]).
    fn blas(&self) -> Result<Arc<dyn Blas>>;
    /// The device's dense solvers (see [`Device::solver`]).
    fn solver(&self) -> Result<Arc<dyn Solver>>;
    /// The device's sparse library (see [`Device::sparse`]).
    fn sparse(&self) -> Result<Arc<dyn SparseLib>>;
    /// The device's collective library (see [`Device::collectives`]).
    fn collectives(&self) -> Result<Arc<dyn CollectiveLib>>;
    /// `cpu`, `cuda:0`, `hip:1`.
    fn label(&self) -> String {
        if self.properties().is_host {
            self.backend_name().to_string()
        } else {
            format!("{}:{}", self.backend_name(), self.ordinal())
        }
    }
    /// Allocate `bytes` for use on `stream`.
    fn alloc(&self, bytes: usize, stream: &Arc<dyn Stream>) -> Result<Buffer> {
        self.memory_pool().alloc(bytes, stream)
    }
}

impl<D: Device> DynDevice for D {
    fn backend_name(&self) -> &'static str {
        Device::backend_name(self)
    }
    fn ordinal(&self) -> usize {
        Device::ordinal(self)
    }
    fn properties(&self) -> &DeviceProperties {
        Device::properties(self)
    }
    fn default_stream(&self) -> Arc<dyn Stream> {
        Device::default_stream(self)
    }
    fn new_stream(&self) -> Result<Arc<dyn Stream>> {
        Ok(Device::new_stream(self)?)
    }
    fn memory_pool(&self) -> &Arc<MemoryPool> {
        Device::memory_pool(self)
    }
    fn pinned_memory_pool(&self) -> Result<Arc<PinnedMemoryPool>> {
        Device::pinned_memory_pool(self)
    }
    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Arc<dyn Module>> {
        Ok(Device::compile(self, source, options)?)
    }
    fn synchronize(&self) -> Result<()> {
        Device::synchronize(self)
    }
    fn fft(&self) -> Result<Arc<dyn FftLib>> {
        Device::fft(self)
    }
    fn blas(&self) -> Result<Arc<dyn Blas>> {
        Device::blas(self)
    }
    fn solver(&self) -> Result<Arc<dyn Solver>> {
        Device::solver(self)
    }
    fn sparse(&self) -> Result<Arc<dyn SparseLib>> {
        Device::sparse(self)
    }
    fn collectives(&self) -> Result<Arc<dyn CollectiveLib>> {
        Device::collectives(self)
    }
}

/// What a backend found of its installation, for `xp::show_config()`: versions and where
/// its vendor libraries were loaded from. Gathering it never panics; what is missing is said
/// in the value (`none`, or the reason).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BackendInfo {
    /// `(what, version)`: `("driver", "13.0")`, `("NVRTC", "13.0")`, `("C++ compiler", "g++ 13.2")`.
    pub versions: Vec<(String, String)>,
    /// `(library, where it was found or why it was not)`: `("libcuda", "/usr/lib/…/libcuda.so.1")`.
    pub libraries: Vec<(String, String)>,
}

/// A backend: how to find out whether it works here and how to open its devices.
pub trait Backend: Send + Sync + 'static {
    /// The device type.
    type Device: Device;
    /// `cpu`, `cuda` or `hip`.
    const NAME: &'static str;
    /// Whether the backend can run here; never panics: a missing driver or library is
    /// [`crate::Error::BackendUnavailable`] with the reason.
    fn probe() -> Result<()>;
    /// Number of devices.
    fn device_count() -> Result<usize>;
    /// Open device `ordinal` (opening twice returns the same device).
    fn device(ordinal: usize) -> Result<Arc<Self::Device>>;
    /// Versions and library locations, for reports; empty unless the backend says more.
    fn info() -> BackendInfo {
        BackendInfo::default()
    }
}

/// The object-safe mirror of [`Backend`].
pub trait DynBackend: Send + Sync {
    /// `cpu`, `cuda` or `hip`.
    fn name(&self) -> &'static str;
    /// See [`Backend::probe`].
    fn probe(&self) -> Result<()>;
    /// See [`Backend::device_count`].
    fn device_count(&self) -> Result<usize>;
    /// See [`Backend::device`].
    fn device(&self, ordinal: usize) -> Result<Arc<dyn DynDevice>>;
    /// See [`Backend::info`].
    fn info(&self) -> BackendInfo {
        BackendInfo::default()
    }
}

/// Wraps a static [`Backend`] as a [`DynBackend`].
pub struct BackendHandle<B: Backend>(std::marker::PhantomData<B>);

impl<B: Backend> Default for BackendHandle<B> {
    fn default() -> Self {
        BackendHandle(std::marker::PhantomData)
    }
}

impl<B: Backend> DynBackend for BackendHandle<B> {
    fn name(&self) -> &'static str {
        B::NAME
    }
    fn probe(&self) -> Result<()> {
        B::probe()
    }
    fn device_count(&self) -> Result<usize> {
        B::device_count()
    }
    fn device(&self, ordinal: usize) -> Result<Arc<dyn DynDevice>> {
        Ok(B::device(ordinal)?)
    }
    fn info(&self) -> BackendInfo {
        B::info()
    }
}
