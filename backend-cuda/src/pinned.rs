//! The pinned host memory pool of each device: page-locked blocks from `cuMemHostAlloc`
//! (`CU_MEMHOSTALLOC_PORTABLE`, so every context treats them as pinned) under the shared
//! [`PinnedMemoryPool`], freed with `cuMemFreeHost`. Host-to-device copies from a pinned
//! buffer still go through the staging buffers (the contract lets the source be reused at
//! once); device-to-host copies into one run at the full DMA rate.

use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys::{self, CUresult};
use xp_backend_api::{Error, PinnedMemoryPool, RawHostMemory, Result};

use crate::context::Context;

/// `cuMemHostAlloc`/`cuMemFreeHost` in one device's primary context.
struct CudaHostMemory {
    ctx: Arc<Context>,
}

// SAFETY: cuMemHostAlloc returns `bytes` page-aligned, page-locked host bytes that any thread
// may use and that stay valid until cuMemFreeHost; the pool owns them exclusively.
unsafe impl RawHostMemory for CudaHostMemory {
    fn alloc(&self, bytes: usize) -> Result<NonNull<u8>> {
        self.ctx.enter("cuMemHostAlloc")?;
        let mut host: *mut c_void = std::ptr::null_mut();
        // SAFETY: the context is current (`enter`); `host` is a valid out-pointer and the flag
        // is a documented value.
        let r = unsafe { sys::cuMemHostAlloc(&mut host, bytes, sys::CU_MEMHOSTALLOC_PORTABLE) };
        if r == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            return Err(Error::OutOfMemory { requested: bytes, in_use: 0, limit: usize::MAX });
        }
        self.ctx.check("cuMemHostAlloc", r)?;
        NonNull::new(host.cast()).ok_or(Error::OutOfMemory { requested: bytes, in_use: 0, limit: usize::MAX })
    }

    unsafe fn free(&self, ptr: NonNull<u8>, _bytes: usize) -> Result<()> {
        // A corrupted context cannot free anything; its memory goes with the process.
        if self.ctx.is_corrupted() {
            return Ok(());
        }
        self.ctx.enter("cuMemFreeHost")?;
        // SAFETY: the caller guarantees `ptr` came from `alloc` (cuMemHostAlloc), is freed
        // once and is no longer used.
        self.ctx.check("cuMemFreeHost", unsafe { sys::cuMemFreeHost(ptr.as_ptr().cast()) })
    }
}

/// The pinned pool of the device of `ctx` (one per device, made on first use).
pub(crate) fn pool(ctx: &Arc<Context>) -> Arc<PinnedMemoryPool> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<PinnedMemoryPool>>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let pool = pools
        .entry(ctx.ordinal)
        .or_insert_with(|| PinnedMemoryPool::new(Arc::new(CudaHostMemory { ctx: Arc::clone(ctx) }), ctx.label.clone()));
    Arc::clone(pool)
}
