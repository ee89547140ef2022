//! A backend with no hardware: memory is address arithmetic, streams run nothing, and the
//! "compiler" copies the source. It exists to test the pool, the cache and the array logic
//! that does not need results.

use std::any::Any;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::compile::{CompileCache, CompileOptions, KernelCompiler, KernelSource};
use crate::device::{Device, DeviceProperties, Event, Kernel, Module, Stream};
use crate::launch::{KernelArg, LaunchConfig};
use crate::memory::{Buffer, MemoryPool, RawMemory};
use crate::{Error, Result};

static NEXT_STREAM: AtomicU64 = AtomicU64::new(1);

/// Fake device memory: hands out increasing addresses and counts what is live.
#[derive(Debug, Default)]
pub struct NullMemory {
    next: AtomicU64,
    live: AtomicUsize,
    /// Raw allocations larger than this fail with `OutOfMemory`.
    pub capacity: usize,
    allocs: AtomicUsize,
}

impl NullMemory {
    /// Memory of `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        NullMemory { next: AtomicU64::new(1 << 20), live: AtomicUsize::new(0), capacity, allocs: AtomicUsize::new(0) }
    }
    /// Bytes held from this "device".
    pub fn live(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }
    /// Raw allocations made so far.
    pub fn raw_allocs(&self) -> usize {
        self.allocs.load(Ordering::SeqCst)
    }
}

impl RawMemory for NullMemory {
    fn alloc(&self, bytes: usize) -> Result<u64> {
        let live = self.live.load(Ordering::SeqCst);
        if live + bytes > self.capacity {
            return Err(Error::OutOfMemory { requested: bytes, in_use: live, limit: self.capacity });
        }
        self.live.fetch_add(bytes, Ordering::SeqCst);
        self.allocs.fetch_add(1, Ordering::SeqCst);
        Ok(self.next.fetch_add(bytes as u64, Ordering::SeqCst))
    }
    unsafe fn free(&self, _ptr: u64, bytes: usize) -> Result<()> {
        self.live.fetch_sub(bytes, Ordering::SeqCst);
        Ok(())
    }
    fn total_memory(&self) -> usize {
        self.capacity
    }
}

/// A stream that records how many events were waited on and runs nothing.
pub struct NullStream {
    id: u64,
    /// Events this stream was made to wait on.
    pub waits: AtomicUsize,
}

impl NullStream {
    /// A new stream.
    pub fn new() -> Arc<Self> {
        Arc::new(NullStream { id: NEXT_STREAM.fetch_add(1, Ordering::SeqCst), waits: AtomicUsize::new(0) })
    }
}

struct NullEvent;

impl Event for NullEvent {
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
    fn query(&self) -> Result<bool> {
        Ok(true)
    }
    fn elapsed_ms(&self, _end: &dyn Event) -> Result<f32> {
        Ok(0.0)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Stream for NullStream {
    fn id(&self) -> u64 {
        self.id
    }
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
    fn record_event(&self) -> Result<Arc<dyn Event>> {
        Ok(Arc::new(NullEvent))
    }
    fn wait_event(&self, _event: &dyn Event) -> Result<()> {
        self.waits.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
    fn launch(&self, _kernel: &dyn Kernel, _config: &LaunchConfig, _args: &[KernelArg<'_>]) -> Result<()> {
        Ok(())
    }
    fn copy_from_host(&self, dst: &Buffer, dst_offset: usize, src: &[u8]) -> Result<()> {
        dst.check_range("copy_from_host", dst_offset, src.len())
    }
    fn copy_to_host(&self, src: &Buffer, src_offset: usize, dst: &mut [u8]) -> Result<()> {
        src.check_range("copy_to_host", src_offset, dst.len())
    }
    fn copy_device(&self, src: &Buffer, so: usize, dst: &Buffer, d: usize, bytes: usize) -> Result<()> {
        src.check_range("copy_device", so, bytes)?;
        dst.check_range("copy_device", d, bytes)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The null compiler: the image is the source; a source containing `#error` fails.
pub struct NullCompiler {
    /// Compiles run so far.
    pub compiles: AtomicUsize,
}

/// A module of the null backend: the source it came from.
pub struct NullModule {
    /// The image.
    pub image: Vec<u8>,
}

struct NullKernel(String);

impl Kernel for NullKernel {
    fn name(&self) -> &str {
        &self.0
    }
    fn num_params(&self) -> Option<usize> {
        None
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Module for NullModule {
    fn function(&self, name: &str) -> Result<Arc<dyn Kernel>> {
        let text = String::from_utf8_lossy(&self.image);
        if text.contains(name) {
            Ok(Arc::new(NullKernel(name.to_string())))
        } else {
            Err(Error::value("get_function", format!("no kernel `{name}` in the module")))
        }
    }
}

impl KernelCompiler for NullCompiler {
    type Module = NullModule;
    fn identity(&self) -> String {
        "null-compiler 1".into()
    }
    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Vec<u8>> {
        self.compiles.fetch_add(1, Ordering::SeqCst);
        if let Some(line) = source.code.lines().position(|l| l.contains("#error")) {
            return Err(Error::Compile {
                kernel: source.name.clone(),
                log: format!("{}({}): error: #error directive", source.name, line + 1),
                options: options.display(),
            });
        }
        Ok(source.code.as_bytes().to_vec())
    }
    fn load(&self, image: &[u8], _path: Option<&Path>) -> Result<Arc<NullModule>> {
        Ok(Arc::new(NullModule { image: image.to_vec() }))
    }
}

/// The null device.
pub struct NullDevice {
    props: DeviceProperties,
    pool: Arc<MemoryPool>,
    stream: Arc<NullStream>,
    /// Its compiler (public so tests can count compiles).
    pub compiler: NullCompiler,
    /// Its compile cache.
    pub cache: CompileCache<NullModule>,
    /// Its raw memory.
    pub memory: Arc<NullMemory>,
    streams: Mutex<Vec<Arc<NullStream>>>,
}

impl NullDevice {
    /// The device as the GPU backends' shared checks see one (`null:0`), for tests of those
    /// checks.
    pub fn gpu_target(&self) -> crate::gpu::GpuTarget<'_> {
        crate::gpu::GpuTarget::new("null", "null", 0, "null:0", &self.props, crate::Device::memory_pool(self))
    }

    /// A device with `capacity` bytes of fake memory and a cache on `disk` (or memory only).
    pub fn new(capacity: usize, disk: Option<std::path::PathBuf>) -> Result<Self> {
        let memory = Arc::new(NullMemory::new(capacity));
        let pool = MemoryPool::new(memory.clone(), "null:0", "XP_NULL_MEMORY_LIMIT")?;
        Ok(NullDevice {
            props: DeviceProperties {
                name: "null device".into(),
                total_memory: capacity,
                multiprocessor_count: 1,
                arch: "null".into(),
                warp_size: 1,
                max_threads_per_block: 1024,
                max_block_dim: [1024, 1024, 64],
                max_grid_dim: [u32::MAX, 65535, 65535],
                max_shared_memory_per_block: 48 << 10,
                is_host: false,
                compute_capability: (0, 0),
                clock_rate_khz: 0,
            },
            pool,
            stream: NullStream::new(),
            compiler: NullCompiler { compiles: AtomicUsize::new(0) },
            cache: CompileCache::new(disk),
            memory,
            streams: Mutex::new(Vec::new()),
        })
    }
}

impl Device for NullDevice {
    type Stream = NullStream;
    type Module = NullModule;
    fn backend_name(&self) -> &'static str {
        "null"
    }
    fn ordinal(&self) -> usize {
        0
    }
    fn properties(&self) -> &DeviceProperties {
        &self.props
    }
    fn default_stream(&self) -> Arc<NullStream> {
        Arc::clone(&self.stream)
    }
    fn new_stream(&self) -> Result<Arc<NullStream>> {
        let s = NullStream::new();
        self.streams.lock().push(Arc::clone(&s));
        Ok(s)
    }
    fn memory_pool(&self) -> &Arc<MemoryPool> {
        &self.pool
    }
    fn pinned_memory_pool(&self) -> Result<Arc<crate::PinnedMemoryPool>> {
        static POOL: std::sync::OnceLock<Arc<crate::PinnedMemoryPool>> = std::sync::OnceLock::new();
        Ok(Arc::clone(
            POOL.get_or_init(|| crate::PinnedMemoryPool::new(Arc::new(crate::memory::PageAlignedMemory), "null")),
        ))
    }
    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Arc<NullModule>> {
        self.cache.get_or_compile(&self.compiler, source, options)
    }
    fn synchronize(&self) -> Result<()> {
        match self.pool.take_deferred_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
