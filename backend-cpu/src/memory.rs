//! Host memory under the pool: 64-byte aligned, zeroed allocations.

use std::alloc::Layout;

use xp_backend_api::{Error, RawMemory, Result};

/// The CPU's raw allocator.
pub struct HostMemory {
    total: usize,
}

impl HostMemory {
    /// An allocator that reports `total` bytes of memory.
    pub fn new(total: usize) -> Self {
        HostMemory { total }
    }
}

const ALIGN: usize = 64;

impl RawMemory for HostMemory {
    fn alloc(&self, bytes: usize) -> Result<u64> {
        let layout = Layout::from_size_align(bytes.max(1), ALIGN).map_err(|_| Error::OutOfMemory {
            requested: bytes,
            in_use: 0,
            limit: usize::MAX,
        })?;
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return Err(Error::OutOfMemory { requested: bytes, in_use: 0, limit: self.total });
        }
        Ok(p as u64)
    }

    unsafe fn free(&self, ptr: u64, bytes: usize) -> Result<()> {
        let layout = Layout::from_size_align(bytes.max(1), ALIGN).expect("the layout was valid at allocation");
        // SAFETY: the caller guarantees `ptr` came from `alloc` with `bytes`, so with this layout.
        unsafe { std::alloc::dealloc(ptr as *mut u8, layout) };
        Ok(())
    }

    fn total_memory(&self) -> usize {
        self.total
    }
}

/// Total physical memory, from `/proc/meminfo` (0 when unknown).
pub fn physical_memory() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<usize>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}
