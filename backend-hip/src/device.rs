//! A HIP device: its properties, default stream, memory pool and compile cache.

use std::sync::{Arc, OnceLock};

use xp_backend_api::gpu::HostStaging;
use xp_backend_api::{
    Blas, CacheStats, CompileCache, CompileOptions, Device, DeviceProperties, Error, FftLib, KernelSource, MemoryPool,
    Result, Solver,
};

use crate::blas::RocBlasLib;
use crate::compile::{HipCompiler, HipModule};
use crate::event::HipEvent;
use crate::fft::HipFftLib;
use crate::memory::HipMemory;
use crate::solver::HipSolver;
use crate::sparse::RocSparseLib;
use crate::stream::HipStream;
use crate::{result, sys};

/// One AMD GPU, opened through [`HipBackend::device`](crate::HipBackend).
pub struct HipDevice {
    ordinal: usize,
    props: Arc<DeviceProperties>,
    gcn_arch_name: String,
    pool: Arc<MemoryPool>,
    staging: Arc<HostStaging<sys::hipEvent_t>>,
    default_stream: Arc<HipStream>,
    compiler: HipCompiler,
    cache: CompileCache<HipModule>,
    /// hipFFT on this device, opened on first use (or why it cannot be).
    fft: OnceLock<Result<Arc<HipFftLib>>>,
    /// rocBLAS on this device, opened on first use (or why it cannot be).
    blas: OnceLock<Result<Arc<RocBlasLib>>>,
    /// rocSOLVER on this device, opened on first use (or why it cannot be).
    solver: OnceLock<Result<Arc<HipSolver>>>,
    /// rocSPARSE on this device, opened on first use (or why it cannot be).
    sparse: OnceLock<Result<Arc<RocSparseLib>>>,
}

impl std::fmt::Debug for HipDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HipDevice")
            .field("ordinal", &self.ordinal)
            .field("name", &self.props.name)
            .field("gcn_arch_name", &self.gcn_arch_name)
            .finish()
    }
}

/// The architecture without its target features: `gfx90a:sramecc+:xnack-` → `gfx90a`.
pub fn strip_target_features(gcn_arch_name: &str) -> &str {
    gcn_arch_name.split(':').next().unwrap_or(gcn_arch_name).trim()
}

fn query_properties(ordinal: usize) -> Result<(DeviceProperties, String)> {
    let attr = |a| result::device_attribute(a, ordinal).map(|v| v.max(0) as u32);
    let gcn = result::gcn_arch_name(ordinal)?.filter(|s| !s.is_empty()).ok_or_else(|| Error::BackendUnavailable {
        backend: "hip".into(),
        reason: format!(
            "the architecture (gcnArchName) of hip:{ordinal} could not be read from hipGetDeviceProperties \
                 of {}",
            sys::library().map(|l| l.hip_path.display().to_string()).unwrap_or_default()
        ),
    })?;
    let props = DeviceProperties {
        name: result::device_name(ordinal)?,
        total_memory: result::device_total_mem(ordinal)?,
        multiprocessor_count: attr(sys::hipDeviceAttributeMultiprocessorCount)?,
        arch: strip_target_features(&gcn).to_string(),
        warp_size: attr(sys::hipDeviceAttributeWarpSize)?,
        max_threads_per_block: attr(sys::hipDeviceAttributeMaxThreadsPerBlock)?,
        max_block_dim: [
            attr(sys::hipDeviceAttributeMaxBlockDimX)?,
            attr(sys::hipDeviceAttributeMaxBlockDimY)?,
            attr(sys::hipDeviceAttributeMaxBlockDimZ)?,
        ],
        max_grid_dim: [
            attr(sys::hipDeviceAttributeMaxGridDimX)?,
            attr(sys::hipDeviceAttributeMaxGridDimY)?,
            attr(sys::hipDeviceAttributeMaxGridDimZ)?,
        ],
        max_shared_memory_per_block: attr(sys::hipDeviceAttributeMaxSharedMemoryPerBlock)? as usize,
        is_host: false,
        compute_capability: (
            attr(sys::hipDeviceAttributeComputeCapabilityMajor)?,
            attr(sys::hipDeviceAttributeComputeCapabilityMinor)?,
        ),
        clock_rate_khz: attr(sys::hipDeviceAttributeClockRate)?,
    };
    Ok((props, gcn))
}

impl HipDevice {
    /// Open device `ordinal` (the backend caches the result).
    pub(crate) fn open(ordinal: usize) -> Result<Self> {
        result::set_device(ordinal)?;
        let (props, gcn_arch_name) = query_properties(ordinal)?;
        let raw = Arc::new(HipMemory::new(ordinal, props.total_memory));
        let pool = MemoryPool::new(raw, format!("hip:{ordinal}"), "XP_GPU_MEMORY_LIMIT")?;
        let props = Arc::new(props);
        let staging = Arc::new(HostStaging::new());
        let default_stream = HipStream::new(ordinal, Arc::clone(&props), Arc::downgrade(&pool), Arc::clone(&staging))?;
        let compiler = HipCompiler::new(ordinal, &props.arch, Arc::downgrade(&pool));
        Ok(HipDevice {
            ordinal,
            props,
            gcn_arch_name,
            pool,
            staging,
            default_stream,
            compiler,
            cache: CompileCache::with_default_dir(),
            fft: OnceLock::new(),
            blas: OnceLock::new(),
            solver: OnceLock::new(),
            sparse: OnceLock::new(),
        })
    }

    /// The full `gcnArchName`, target features included (`gfx90a:sramecc+:xnack-`).
    pub fn gcn_arch_name(&self) -> &str {
        &self.gcn_arch_name
    }

    /// A new, unrecorded event on this device.
    pub fn new_event(&self) -> Result<Arc<HipEvent>> {
        Ok(Arc::new(HipEvent::new(self.ordinal, Arc::downgrade(&self.pool))?))
    }

    /// Free and total device memory in bytes, as the runtime sees it (`hipMemGetInfo`).
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        result::set_device(self.ordinal)?;
        result::mem_get_info()
    }

    /// Counters of the compile cache.
    pub fn compile_cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    fn take_deferred(&self) -> Result<()> {
        self.pool.deferred_result()
    }
}

impl Device for HipDevice {
    type Stream = HipStream;
    type Module = HipModule;

    fn backend_name(&self) -> &'static str {
        "hip"
    }

    fn ordinal(&self) -> usize {
        self.ordinal
    }

    fn properties(&self) -> &DeviceProperties {
        &self.props
    }

    fn default_stream(&self) -> Arc<HipStream> {
        Arc::clone(&self.default_stream)
    }

    fn new_stream(&self) -> Result<Arc<HipStream>> {
        HipStream::new(self.ordinal, Arc::clone(&self.props), Arc::downgrade(&self.pool), Arc::clone(&self.staging))
    }

    fn memory_pool(&self) -> &Arc<MemoryPool> {
        &self.pool
    }

    fn pinned_memory_pool(&self) -> Result<Arc<xp_backend_api::PinnedMemoryPool>> {
        Ok(crate::pinned::pool(self.ordinal, &format!("hip:{}", self.ordinal)))
    }

    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Arc<HipModule>> {
        self.cache.get_or_compile(&self.compiler, source, options)
    }

    fn synchronize(&self) -> Result<()> {
        result::set_device(self.ordinal)?;
        result::device_synchronize()?;
        self.take_deferred()
    }

    fn fft(&self) -> Result<Arc<dyn FftLib>> {
        let lib = self.fft.get_or_init(|| {
            HipFftLib::open(self.ordinal, Arc::clone(&self.props), Arc::clone(&self.pool)).map(Arc::new)
        });
        lib.clone().map(|l| l as Arc<dyn FftLib>)
    }

    fn blas(&self) -> Result<Arc<dyn Blas>> {
        let lib = self.blas.get_or_init(|| {
            RocBlasLib::open(self.ordinal, Arc::clone(&self.props), Arc::clone(&self.pool)).map(Arc::new)
        });
        lib.clone().map(|l| l as Arc<dyn Blas>)
    }

    fn solver(&self) -> Result<Arc<dyn Solver>> {
        let lib = self.solver.get_or_init(|| {
            HipSolver::open(self.ordinal, Arc::clone(&self.props), Arc::clone(&self.pool)).map(Arc::new)
        });
        lib.clone().map(|l| l as Arc<dyn Solver>)
    }

    fn sparse(&self) -> Result<Arc<dyn xp_backend_api::sparse::SparseLib>> {
        let lib = self.sparse.get_or_init(|| {
            RocSparseLib::open(self.ordinal, Arc::clone(&self.props), Arc::clone(&self.pool)).map(Arc::new)
        });
        lib.clone().map(|l| l as Arc<dyn xp_backend_api::sparse::SparseLib>)
    }

    fn collectives(&self) -> Result<Arc<dyn xp_backend_api::collective::CollectiveLib>> {
        let api = crate::sys::rccl()?;
        let rccl = HipCollectives { ordinal: self.ordinal, api };
        Ok(Arc::new(xp_backend_api::gpu::nccl::NcclCollectives::new(Arc::new(rccl))))
    }
}

/// RCCL on one HIP device.
struct HipCollectives {
    ordinal: usize,
    api: &'static xp_backend_api::gpu::nccl::NcclApi,
}

impl xp_backend_api::gpu::nccl::NcclDevice for HipCollectives {
    fn api(&self) -> &xp_backend_api::gpu::nccl::NcclApi {
        self.api
    }

    fn enter(&self) -> Result<()> {
        crate::result::set_device(self.ordinal)
    }

    fn raw_stream(&self, op: &str, stream: &Arc<dyn xp_backend_api::Stream>) -> Result<*mut std::ffi::c_void> {
        let s = stream
            .as_any()
            .downcast_ref::<HipStream>()
            .ok_or_else(|| Error::value(op, "the stream does not belong to the HIP backend"))?;
        if s.ordinal() != self.ordinal {
            return Err(Error::DeviceMismatch {
                op: op.into(),
                lhs: format!("hip:{}", self.ordinal),
                rhs: format!("a stream of hip:{}", s.ordinal()),
            });
        }
        Ok(s.handle().raw() as *mut std::ffi::c_void)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_features_are_stripped() {
        assert_eq!(strip_target_features("gfx90a:sramecc+:xnack-"), "gfx90a");
        assert_eq!(strip_target_features("gfx1030"), "gfx1030");
    }
}
