//! What holds memory, as CuPy lets users see and release it: the device memory pools, the
//! pinned host memory pools and the kernel cache on disk.
//!
//! | CuPy | xp |
//! |---|---|
//! | `cp.get_default_memory_pool()` | [`get_default_memory_pool`] (the current device's pool), [`pool`] |
//! | `mempool.used_bytes()`, `total_bytes()`, `free_bytes()`, `n_free_blocks()` | the same names on [`MemoryPool`] |
//! | `mempool.free_all_blocks()` | [`MemoryPool::free_all_blocks`] |
//! | `mempool.set_limit(size=…)`, `set_limit(fraction=…)`, `get_limit()` | [`MemoryPool::set_limit`] (`0` removes the limit, as in CuPy), [`MemoryPool::set_limit_fraction`], [`MemoryPool::get_limit`] |
//! | `cp.get_default_pinned_memory_pool()` | [`get_default_pinned_memory_pool`], [`pinned_pool`] |
//! | removing `~/.cupy/kernel_cache` by hand | [`clear_kernel_cache`] |
//!
//! CuPy has one pinned pool per process; xp has one per device, so that its blocks are
//! page-locked by that device's driver (on the CPU they are ordinary page-aligned memory, the
//! CPU's "device" memory being host memory already). A [`PinnedBuffer`] dereferences to
//! `[u8]`, so it is the host side of any copy.
//!
//! ```
//! let pool = xp::get_default_memory_pool().unwrap();
//! let a = xp::zeros(&[1000], xp::DType::F32).unwrap();
//! assert!(pool.used_bytes() >= 4000);
//! assert!(pool.total_bytes() >= pool.used_bytes());
//! drop(a);
//! pool.free_all_blocks().unwrap();
//!
//! let pinned = xp::get_default_pinned_memory_pool().unwrap();
//! let mut staging = pinned.alloc(4000).unwrap();
//! staging[0] = 1;
//! assert!(pinned.used_bytes() >= 4000);
//! ```

use std::sync::Arc;

pub use xp_backend_api::memory::PoolStats;
pub use xp_backend_api::{MemoryPool, PinnedBuffer, PinnedMemoryPool};

use crate::{DynDevice, Result};

/// The memory pool of `device`.
pub fn pool(device: &Arc<dyn DynDevice>) -> Arc<MemoryPool> {
    Arc::clone(device.memory_pool())
}

/// The pinned host memory pool of `device`.
pub fn pinned_pool(device: &Arc<dyn DynDevice>) -> Result<Arc<PinnedMemoryPool>> {
    device.pinned_memory_pool()
}

/// The memory pool of this thread's current device (as `cupy.get_default_memory_pool()`).
pub fn get_default_memory_pool() -> Result<Arc<MemoryPool>> {
    crate::init();
    Ok(pool(&xp_array::current_device()?))
}

/// The pinned host memory pool of this thread's current device (as
/// `cupy.get_default_pinned_memory_pool()`).
pub fn get_default_pinned_memory_pool() -> Result<Arc<PinnedMemoryPool>> {
    crate::init();
    pinned_pool(&xp_array::current_device()?)
}

/// Remove every compiled kernel from the disk cache (`XP_CACHE_DIR`, default
/// `~/.cache/xp/kernels`); returns the entries removed. Kernels this process already loaded
/// stay usable, and other processes sharing the folder compile again what they miss. The
/// cache is bounded by `XP_CACHE_MAX_BYTES` anyway (default 1 GiB, least recently used
/// entries go first); this is for a clean start.
pub fn clear_kernel_cache() -> Result<usize> {
    match xp_backend_api::compile::default_cache_dir() {
        Some(dir) => xp_backend_api::compile::clear_cache_dir(&dir),
        None => Ok(0),
    }
}
