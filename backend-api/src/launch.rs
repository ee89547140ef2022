//! Launch geometry and kernel arguments.

use crate::memory::Buffer;

/// A grid or block size, as CUDA's `dim3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// x extent.
    pub x: u32,
    /// y extent.
    pub y: u32,
    /// z extent.
    pub z: u32,
}

impl Dim3 {
    /// `x * y * z` (as u64, so it cannot overflow).
    pub fn volume(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }
}
impl From<(u32,)> for Dim3 {
    fn from(v: (u32,)) -> Self {
        Dim3 { x: v.0, y: 1, z: 1 }
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from(v: (u32, u32)) -> Self {
        Dim3 { x: v.0, y: v.1, z: 1 }
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from(v: (u32, u32, u32)) -> Self {
        Dim3 { x: v.0, y: v.1, z: v.2 }
    }
}

/// Grid, block and dynamic shared memory of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in a block.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
    /// The stack of each thread, in bytes, where the backend runs threads on stacks of its own:
    /// the CPU backend's fibers (kernels with `__syncthreads`), 128 KiB when 0. GPU backends
    /// keep the driver's per-thread stack and ignore it.
    pub stack_bytes: u32,
}

impl LaunchConfig {
    /// A launch of `grid` blocks of `block` threads with no dynamic shared memory.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        LaunchConfig { grid: grid.into(), block: block.into(), shared_mem_bytes: 0, stack_bytes: 0 }
    }

    /// The same launch with stacks of `bytes` per thread where the backend gives threads stacks
    /// of their own (see [`LaunchConfig::stack_bytes`]).
    pub fn with_stack(mut self, bytes: u32) -> Self {
        self.stack_bytes = bytes;
        self
    }

    /// The same launch with `bytes` of dynamic shared memory.
    pub fn with_shared_mem(mut self, bytes: u32) -> Self {
        self.shared_mem_bytes = bytes;
        self
    }

    /// A 1-D launch covering `n` threads with blocks of `threads`.
    pub fn for_num_elements(n: u64, threads: u32) -> Self {
        let blocks = n.div_ceil(threads as u64).max(1);
        LaunchConfig::new(blocks.min(u32::MAX as u64) as u32, threads)
    }
}

/// One kernel argument: a device buffer (passed as a pointer to its first byte plus
/// `offset_bytes`) or a scalar passed by value.
#[derive(Clone, Copy)]
pub enum KernelArg<'a> {
    /// A device pointer into `buffer`.
    Buffer {
        /// The buffer.
        buffer: &'a Buffer,
        /// Bytes from the buffer's start.
        offset_bytes: usize,
    },
    /// A value passed by copy; the bytes must match the kernel parameter's C layout.
    Value(&'a [u8]),
}

impl<'a> KernelArg<'a> {
    /// The whole buffer, from its start.
    pub fn buffer(buffer: &'a Buffer) -> Self {
        KernelArg::Buffer { buffer, offset_bytes: 0 }
    }
}

/// Plain scalar types that may be passed to kernels by value.
///
/// # Safety
/// The type must be plain data with no padding and the same layout as its C counterpart.
pub unsafe trait KernelScalar: Copy + Send + Sync + 'static {}
macro_rules! kernel_scalar {
    ($($t:ty),*) => { $(unsafe impl KernelScalar for $t {})* };
}
// SAFETY: primitive integers and floats are plain data without padding.
kernel_scalar!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

/// The bytes of a scalar kernel argument.
pub fn scalar_bytes<T: KernelScalar>(v: &T) -> &[u8] {
    // SAFETY: `KernelScalar` types are plain data without padding, so every byte is initialised.
    unsafe { std::slice::from_raw_parts(v as *const T as *const u8, std::mem::size_of::<T>()) }
}

/// An argument after its buffer has been resolved to an address: what backends launch with.
#[derive(Debug, Clone)]
pub enum RawArg {
    /// A device address (host address on the CPU backend).
    Pointer(u64),
    /// Value bytes.
    Value(Vec<u8>),
}

impl RawArg {
    /// The bytes the kernel receives for this parameter.
    pub fn bytes(&self) -> &[u8] {
        match self {
            RawArg::Pointer(p) => scalar_bytes(p),
            RawArg::Value(v) => v,
        }
    }
}

/// Resolve arguments to raw addresses and values.
pub fn resolve_args(args: &[KernelArg<'_>]) -> Vec<RawArg> {
    args.iter()
        .map(|a| match a {
            KernelArg::Buffer { buffer, offset_bytes } => RawArg::Pointer(buffer.device_ptr() + *offset_bytes as u64),
            KernelArg::Value(v) => RawArg::Value(v.to_vec()),
        })
        .collect()
}
