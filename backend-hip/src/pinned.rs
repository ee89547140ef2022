//! The pinned host memory pool of each device: page-locked blocks from `hipHostMalloc`
//! (made with the device current) under the shared
//! [`PinnedMemoryPool`](xp_backend_api::PinnedMemoryPool), freed with `hipHostFree`.
//! Host-to-device copies from a pinned buffer still go through the staging buffers (the
//! contract lets the source be reused at once); device-to-host copies into one run at the full
//! DMA rate.

use std::collections::HashMap;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, OnceLock};

use xp_backend_api::{Error, PinnedMemoryPool, RawHostMemory, Result};

use crate::{result, sys};

/// `hipHostMalloc`/`hipHostFree` with device `ordinal` current.
struct HipHostMemory {
    ordinal: usize,
}

// SAFETY: hipHostMalloc returns `bytes` page-aligned, page-locked host bytes that any thread
// may use and that stay valid until hipHostFree; the pool owns them exclusively.
unsafe impl RawHostMemory for HipHostMemory {
    fn alloc(&self, bytes: usize) -> Result<NonNull<u8>> {
        result::set_device(self.ordinal)?;
        let oom = || Error::OutOfMemory { requested: bytes, in_use: 0, limit: usize::MAX };
        match result::host_malloc(bytes) {
            Ok(p) => NonNull::new(p).ok_or_else(oom),
            Err(Error::Driver { code, .. }) if code == sys::hipErrorOutOfMemory as i64 => Err(oom()),
            Err(e) => Err(e),
        }
    }

    unsafe fn free(&self, ptr: NonNull<u8>, _bytes: usize) -> Result<()> {
        result::set_device(self.ordinal)?;
        // SAFETY: the caller guarantees `ptr` came from `alloc` (hipHostMalloc), is freed once
        // and is no longer used.
        unsafe { result::host_free(ptr.as_ptr()) }
    }
}

/// The pinned pool of device `ordinal`, named `label` in messages (made on first use).
pub(crate) fn pool(ordinal: usize, label: &str) -> Arc<PinnedMemoryPool> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<PinnedMemoryPool>>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let pool = pools
        .entry(ordinal)
        .or_insert_with(|| PinnedMemoryPool::new(Arc::new(HipHostMemory { ordinal }), label.to_string()));
    Arc::clone(pool)
}
