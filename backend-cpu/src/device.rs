//! The CPU device: one per process.

use std::sync::{Arc, OnceLock, Weak};

use parking_lot::Mutex;
use xp_backend_api::{CompileCache, CompileOptions, Device, DeviceProperties, KernelSource, MemoryPool, Result};

use crate::compile::{builtin_module, CpuCompiler, CpuModule};
use crate::memory::{physical_memory, HostMemory};
use crate::stream::{CpuStream, Progress};

/// The CPU as a device.
pub struct CpuDevice {
    props: Arc<DeviceProperties>,
    pool: Arc<MemoryPool>,
    default_stream: Arc<CpuStream>,
    /// The progress of every stream made by `new_stream` whose worker may still run: a worker
    /// keeps its progress alive until it has drained its queue, so a dropped stream's queued
    /// work is waited for too. Dead entries are pruned as streams are made and waited for.
    streams: Mutex<Vec<Weak<Progress>>>,
    compiler: CpuCompiler,
    cache: CompileCache<CpuModule>,
}

impl CpuDevice {
    pub(crate) fn open() -> Result<Self> {
        let total = physical_memory();
        let workers = rayon::current_num_threads() as u32;
        let props = Arc::new(DeviceProperties {
            name: cpu_name(),
            total_memory: total,
            multiprocessor_count: workers,
            arch: std::env::consts::ARCH.to_string(),
            warp_size: 1,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [u32::MAX, 65535, 65535],
            max_shared_memory_per_block: 48 << 10,
            is_host: true,
            compute_capability: (0, 0),
            clock_rate_khz: cpu_clock_khz(),
        });
        let pool = MemoryPool::new(Arc::new(HostMemory::new(total)), "cpu", "XP_CPU_MEMORY_LIMIT")?;
        let default_stream = CpuStream::new(Arc::clone(&props), Arc::clone(&pool))?;
        Ok(CpuDevice {
            props,
            pool,
            default_stream,
            streams: Mutex::new(Vec::new()),
            compiler: CpuCompiler::new(),
            cache: CompileCache::with_default_dir(),
        })
    }

    /// The compile cache (its counters show memory and disk hits).
    pub fn compile_cache(&self) -> &CompileCache<CpuModule> {
        &self.cache
    }
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_else(|| format!("{} CPU", std::env::consts::ARCH))
}

/// The largest clock any core reports (`cpu MHz` in `/proc/cpuinfo`, else the cpufreq maximum),
/// in kHz; 0 when the system does not say.
fn cpu_clock_khz() -> u32 {
    let from_cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .filter(|l| l.starts_with("cpu MHz"))
            .filter_map(|l| l.split(':').nth(1)?.trim().parse::<f64>().ok())
            .reduce(f64::max)
            .map(|mhz| (mhz * 1000.0) as u32)
    });
    from_cpuinfo
        .or_else(|| {
            std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq").ok()?.trim().parse().ok()
        })
        .unwrap_or(0)
}

impl Device for CpuDevice {
    type Stream = CpuStream;
    type Module = CpuModule;

    fn backend_name(&self) -> &'static str {
        "cpu"
    }
    fn ordinal(&self) -> usize {
        0
    }
    fn properties(&self) -> &DeviceProperties {
        &self.props
    }
    fn default_stream(&self) -> Arc<CpuStream> {
        Arc::clone(&self.default_stream)
    }
    fn new_stream(&self) -> Result<Arc<CpuStream>> {
        let stream = CpuStream::new(Arc::clone(&self.props), Arc::clone(&self.pool))?;
        let mut streams = self.streams.lock();
        streams.retain(|p| p.strong_count() > 0);
        streams.push(stream.progress());
        Ok(stream)
    }
    fn memory_pool(&self) -> &Arc<MemoryPool> {
        &self.pool
    }
    fn pinned_memory_pool(&self) -> Result<Arc<xp_backend_api::PinnedMemoryPool>> {
        Ok(crate::pinned::pool())
    }
    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Arc<CpuModule>> {
        if let Some(m) = builtin_module(source, options) {
            return Ok(m);
        }
        self.cache.get_or_compile(&self.compiler, source, options)
    }
    /// Wait for the work queued so far on every stream of the device (the default stream,
    /// every stream from `new_stream`, dropped ones still draining), as
    /// `cudaDeviceSynchronize` does.
    fn fft(&self) -> Result<Arc<dyn xp_backend_api::FftLib>> {
        Ok(Arc::new(crate::fft::CpuFft))
    }
    fn blas(&self) -> Result<Arc<dyn xp_backend_api::Blas>> {
        Ok(Arc::new(crate::blas::CpuBlas))
    }

    fn solver(&self) -> Result<Arc<dyn xp_backend_api::Solver>> {
        Ok(Arc::new(crate::solver::CpuSolver))
    }
    fn synchronize(&self) -> Result<()> {
        // Take the live streams out of the lock first, so that waiting holds no lock.
        let live: Vec<Arc<Progress>> = {
            let mut streams = self.streams.lock();
            streams.retain(|p| p.strong_count() > 0);
            streams.iter().filter_map(Weak::upgrade).collect()
        };
        for p in &live {
            p.wait_idle();
        }
        for p in &live {
            p.check("synchronize")?;
        }
        xp_backend_api::Stream::synchronize(&*self.default_stream)
    }
}

static DEVICE: OnceLock<Result<Arc<CpuDevice>>> = OnceLock::new();

pub(crate) fn device() -> Result<Arc<CpuDevice>> {
    DEVICE.get_or_init(|| CpuDevice::open().map(Arc::new)).clone()
}
