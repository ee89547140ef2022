//! The CPU's pinned host memory pool. The CPU's device memory is host memory already, so its
//! "pinned" blocks are ordinary page-aligned host memory
//! ([`PageAlignedMemory`](xp_backend_api::memory::PageAlignedMemory)), cached by size class
//! with the same user API as the GPU backends' page-locked pools. One pool per process.

use std::sync::{Arc, OnceLock};

use xp_backend_api::memory::PageAlignedMemory;
use xp_backend_api::PinnedMemoryPool;

/// The process's pinned pool of the CPU device.
pub(crate) fn pool() -> Arc<PinnedMemoryPool> {
    static POOL: OnceLock<Arc<PinnedMemoryPool>> = OnceLock::new();
    Arc::clone(POOL.get_or_init(|| PinnedMemoryPool::new(Arc::new(PageAlignedMemory), "cpu")))
}
