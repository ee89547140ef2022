//! Raw device memory under the pool: `hipMalloc` and `hipFree` on one device.
//!
//! The stream-ordered [`MemoryPool`](xp_backend_api::MemoryPool) of `xp-backend-api` sits on
//! top; this allocator only talks to the runtime. `hipErrorOutOfMemory` becomes
//! [`Error::OutOfMemory`], which makes the pool release its cached blocks and try once more.

use xp_backend_api::{Error, RawMemory, Result};

use crate::{result, sys};

/// `hipMalloc`/`hipFree` on device `ordinal`.
#[derive(Debug)]
pub struct HipMemory {
    ordinal: usize,
    total: usize,
}

impl HipMemory {
    /// The allocator of device `ordinal`, which has `total` bytes.
    pub fn new(ordinal: usize, total: usize) -> Self {
        HipMemory { ordinal, total }
    }
}

impl RawMemory for HipMemory {
    fn alloc(&self, bytes: usize) -> Result<u64> {
        result::set_device(self.ordinal)?;
        match result::malloc(bytes) {
            Err(Error::Driver { code, .. }) if code == sys::hipErrorOutOfMemory as i64 => {
                let in_use = result::mem_get_info().map(|(free, total)| total - free).unwrap_or(0);
                Err(Error::OutOfMemory { requested: bytes, in_use, limit: self.total })
            }
            other => other,
        }
    }

    unsafe fn free(&self, ptr: u64, _bytes: usize) -> Result<()> {
        result::set_device(self.ordinal)?;
        // SAFETY: the pool's contract (`RawMemory::free`) guarantees `ptr` came from `alloc` on
        // this device, is freed once and is no longer used by queued work.
        unsafe { result::free(ptr) }
    }

    fn total_memory(&self) -> usize {
        self.total
    }
}
