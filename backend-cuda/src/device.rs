//! CUDA devices: the primary context, properties, the default stream, the memory pool and
//! the compile cache of each GPU.

use std::ffi::{c_int, CStr};
use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::{self, CUdevice, CUdevice_attribute, CUresult};
use xp_backend_api::gpu::DeviceRegistry;
use xp_backend_api::{
    Blas, CompileCache, CompileOptions, Device, DeviceProperties, Error, FftLib, KernelSource, MemoryPool, Result,
};

use crate::blas::CublasLib;
use crate::compile::{CudaCompiler, CudaModule};
use crate::context::Context;
use crate::event::CudaEvent;
use crate::fft::CufftLib;
use crate::library;
use crate::memory::CudaMemory;
use crate::result::{check, driver_error};
use crate::solver::CusolverLib;
use crate::stream::CudaStream;

/// One CUDA device (GPU), opened through [`Backend::device`](xp_backend_api::Backend::device) of
/// [`crate::CudaBackend`].
pub struct CudaDevice {
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
    default_stream: Arc<CudaStream>,
    compiler: CudaCompiler,
    cache: CompileCache<CudaModule>,
    /// cuFFT on this device, opened on first use (or why it cannot be).
    fft: OnceLock<Result<Arc<CufftLib>>>,
    /// cuBLAS on this device, opened on first use (or why it cannot be).
    blas: OnceLock<Result<Arc<CublasLib>>>,
    solver: OnceLock<Result<Arc<CusolverLib>>>,
    /// cuSPARSE on this device, opened on first use (or why it cannot be).
    sparse: OnceLock<Result<Arc<crate::sparse::CusparseLib>>>,
}

impl std::fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaDevice").field("label", &self.ctx.label).field("name", &self.ctx.props.name).finish()
    }
}

/// Load the driver and run `cuInit` once per process.
pub(crate) fn init() -> Result<()> {
    static INIT: OnceLock<std::result::Result<(), Error>> = OnceLock::new();
    INIT.get_or_init(|| {
        library::driver()?;
        // SAFETY: the driver library is loaded (checked just above), so cudarc's loader finds
        // it; cuInit takes flags that must be 0.
        let r = unsafe { sys::cuInit(0) };
        if r != CUresult::CUDA_SUCCESS {
            let e = driver_error("cuInit", r, "");
            return Err(Error::BackendUnavailable { backend: "cuda".into(), reason: e.to_string() });
        }
        Ok(())
    })
    .clone()
}

/// Number of devices the driver sees.
pub(crate) fn device_count() -> Result<usize> {
    init()?;
    let mut n: c_int = 0;
    // SAFETY: the driver is initialised (`init`); `n` is a valid out-pointer.
    check("cuDeviceGetCount", unsafe { sys::cuDeviceGetCount(&mut n) })?;
    Ok(n.max(0) as usize)
}

fn attribute(dev: CUdevice, attr: CUdevice_attribute) -> Result<u32> {
    let mut v: c_int = 0;
    // SAFETY: `dev` came from cuDeviceGet; `v` is a valid out-pointer.
    check("cuDeviceGetAttribute", unsafe { sys::cuDeviceGetAttribute(&mut v, attr, dev) })?;
    Ok(v.max(0) as u32)
}

fn properties(dev: CUdevice) -> Result<DeviceProperties> {
    use CUdevice_attribute::*;
    let mut name = [0 as std::ffi::c_char; 256];
    // SAFETY: `name` has room for `len` bytes; the driver writes a NUL-terminated string.
    check("cuDeviceGetName", unsafe { sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as c_int, dev) })?;
    // SAFETY: cuDeviceGetName succeeded, so `name` holds a NUL-terminated string.
    let name = unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy().into_owned();
    let mut total = 0usize;
    // SAFETY: `total` is a valid out-pointer; `dev` came from cuDeviceGet.
    check("cuDeviceTotalMem", unsafe { sys::cuDeviceTotalMem_v2(&mut total, dev) })?;
    let major = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    Ok(DeviceProperties {
        name,
        total_memory: total,
        multiprocessor_count: attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        arch: format!("sm_{major}{minor}"),
        warp_size: attribute(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        max_threads_per_block: attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_block_dim: [
            attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
            attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
            attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
        ],
        max_grid_dim: [
            attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
            attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
            attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
        ],
        // The opt-in limit: launches above 48 KiB raise the kernel's own limit first.
        max_shared_memory_per_block: attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as usize,
        is_host: false,
        compute_capability: (major, minor),
        clock_rate_khz: attribute(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
    })
}

impl CudaDevice {
    /// Open device `ordinal` (called once per ordinal by the backend's registry).
    pub(crate) fn open(ordinal: usize) -> Result<Arc<CudaDevice>> {
        let count = device_count()?;
        if ordinal >= count {
            return Err(Error::value(
                "cuda device",
                format!("cuda:{ordinal} does not exist: {count} CUDA device(s) found"),
            ));
        }
        let mut dev: CUdevice = 0;
        // SAFETY: the driver is initialised (`device_count` ran `init`); `ordinal` < count.
        check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut dev, ordinal as c_int) })?;
        let props = properties(dev)?;
        let mut raw: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: `dev` is a valid device; the primary context retained here is never released,
        // so `raw` stays valid for the life of the process.
        check("cuDevicePrimaryCtxRetain", unsafe { sys::cuDevicePrimaryCtxRetain(&mut raw, dev) })?;
        let label = format!("cuda:{ordinal}");
        let ctx = Arc::new(Context::new(ordinal, label.clone(), raw, props));
        ctx.enter("cuCtxSetCurrent")?;
        let memory = Arc::new(CudaMemory::new(Arc::clone(&ctx)));
        let pool = MemoryPool::new(memory, label, "XP_GPU_MEMORY_LIMIT")?;
        let default_stream = CudaStream::new(Arc::clone(&ctx), Arc::clone(&pool))?;
        let compiler = CudaCompiler::new(Arc::clone(&ctx), Arc::clone(&pool));
        Ok(Arc::new(CudaDevice {
            ctx,
            pool,
            default_stream,
            compiler,
            cache: CompileCache::with_default_dir(),
            fft: OnceLock::new(),
            blas: OnceLock::new(),
            solver: OnceLock::new(),
            sparse: OnceLock::new(),
        }))
    }

    /// `cuda:N`.
    pub fn label(&self) -> &str {
        &self.ctx.label
    }

    /// The compute capability, `(9, 0)` on an H100.
    pub fn compute_capability(&self) -> (u32, u32) {
        let digits = &self.ctx.props.arch[3..];
        let (major, minor) = digits.split_at(digits.len() - 1);
        (major.parse().unwrap_or(0), minor.parse().unwrap_or(0))
    }

    /// Free and total device memory in bytes, as the driver reports them (`cuMemGetInfo`).
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.ctx.enter("cuMemGetInfo")?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: the context is current (`enter`); both are valid out-pointers.
        self.ctx.check("cuMemGetInfo", unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) })?;
        Ok((free, total))
    }

    /// A new event, not yet recorded; `timing: false` makes a lighter event that cannot be
    /// used with [`xp_backend_api::Event::elapsed_ms`].
    pub fn new_event(&self, timing: bool) -> Result<Arc<CudaEvent>> {
        Ok(Arc::new(CudaEvent::new(Arc::clone(&self.ctx), Arc::clone(&self.pool), timing)?))
    }

    /// Whether a sticky error (an illegal address in a kernel, …) has corrupted this device's
    /// context; then every call fails and only a new process can use the device again.
    pub fn is_corrupted(&self) -> bool {
        self.ctx.is_corrupted()
    }

    /// The compile cache (for its counters).
    pub fn compile_cache(&self) -> &CompileCache<CudaModule> {
        &self.cache
    }

    /// The raw primary context, for calling other CUDA libraries on this device.
    pub fn cu_context(&self) -> sys::CUcontext {
        self.ctx.raw
    }
}

impl Device for CudaDevice {
    type Stream = CudaStream;
    type Module = CudaModule;

    fn backend_name(&self) -> &'static str {
        "cuda"
    }
    fn ordinal(&self) -> usize {
        self.ctx.ordinal
    }
    fn properties(&self) -> &DeviceProperties {
        &self.ctx.props
    }
    fn default_stream(&self) -> Arc<CudaStream> {
        Arc::clone(&self.default_stream)
    }
    fn new_stream(&self) -> Result<Arc<CudaStream>> {
        CudaStream::new(Arc::clone(&self.ctx), Arc::clone(&self.pool))
    }
    fn memory_pool(&self) -> &Arc<MemoryPool> {
        &self.pool
    }
    fn pinned_memory_pool(&self) -> Result<Arc<xp_backend_api::PinnedMemoryPool>> {
        Ok(crate::pinned::pool(&self.ctx))
    }
    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Arc<CudaModule>> {
        self.ctx.enter("compile")?;
        self.cache.get_or_compile(&self.compiler, source, options)
    }
    fn synchronize(&self) -> Result<()> {
        self.ctx.enter("cuCtxSynchronize")?;
        // SAFETY: the device's context is current on this thread (`enter`).
        self.ctx.check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })?;
        self.pool.deferred_result()
    }
    fn fft(&self) -> Result<Arc<dyn FftLib>> {
        let lib = self.fft.get_or_init(|| CufftLib::open(Arc::clone(&self.ctx), Arc::clone(&self.pool)).map(Arc::new));
        lib.clone().map(|l| l as Arc<dyn FftLib>)
    }
    fn blas(&self) -> Result<Arc<dyn Blas>> {
        let lib =
            self.blas.get_or_init(|| CublasLib::open(Arc::clone(&self.ctx), Arc::clone(&self.pool)).map(Arc::new));
        lib.clone().map(|l| l as Arc<dyn Blas>)
    }

    fn solver(&self) -> Result<Arc<dyn xp_backend_api::Solver>> {
        let lib = self.solver.get_or_init(|| {
            let blas = self
                .blas
                .get_or_init(|| CublasLib::open(Arc::clone(&self.ctx), Arc::clone(&self.pool)).map(Arc::new))
                .clone()?;
            CusolverLib::open(Arc::clone(&self.ctx), Arc::clone(&self.pool), blas).map(Arc::new)
        });
        lib.clone().map(|l| l as Arc<dyn xp_backend_api::Solver>)
    }

    fn sparse(&self) -> Result<Arc<dyn xp_backend_api::sparse::SparseLib>> {
        let lib = self.sparse.get_or_init(|| {
            crate::sparse::CusparseLib::open(Arc::clone(&self.ctx), Arc::clone(&self.pool)).map(Arc::new)
        });
        lib.clone().map(|l| l as Arc<dyn xp_backend_api::sparse::SparseLib>)
    }

    fn collectives(&self) -> Result<Arc<dyn xp_backend_api::collective::CollectiveLib>> {
        let api = library::nccl()?;
        let nccl = crate::nccl::CudaCollectives { ctx: Arc::clone(&self.ctx), api };
        Ok(Arc::new(xp_backend_api::gpu::nccl::NcclCollectives::new(Arc::new(nccl))))
    }
}

/// Devices opened so far, by ordinal: opening twice returns the same device.
pub(crate) fn device(ordinal: usize) -> Result<Arc<CudaDevice>> {
    static DEVICES: DeviceRegistry<CudaDevice> = DeviceRegistry::new();
    DEVICES.get_or_open(ordinal, || CudaDevice::open(ordinal))
}
