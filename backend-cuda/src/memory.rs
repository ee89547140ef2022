//! Device memory under the pool (`cuMemAlloc`/`cuMemFree`) and the pinned memory under the
//! staging buffers that make host-to-device copies asynchronous.
//!
//! # Staging
//! The staging logic is shared with the other GPU backends
//! ([`xp_backend_api::gpu::HostStaging`]): each piece of the source (4 MiB at most) is copied
//! into a pinned buffer, the DMA from that buffer is queued, and an event recorded after it
//! marks when the buffer may be reused; at most 8 buffers (32 MiB of page-locked memory) per
//! device, allocated on first use. This module gives it `cuMemHostAlloc` and CUDA events. When
//! page-locked memory cannot be had, copies fall back to `cuMemcpyHtoDAsync` from the slice
//! followed by a stream synchronisation.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUresult};
use xp_backend_api::gpu::PinnedMemory;
use xp_backend_api::{Error, RawMemory, Result};

use crate::context::Context;

/// `cuMemAlloc`/`cuMemFree` on one device's primary context.
pub(crate) struct CudaMemory {
    ctx: Arc<Context>,
}

impl CudaMemory {
    pub(crate) fn new(ctx: Arc<Context>) -> Self {
        CudaMemory { ctx }
    }
}

impl RawMemory for CudaMemory {
    fn alloc(&self, bytes: usize) -> Result<u64> {
        self.ctx.enter("cuMemAlloc")?;
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: the context is current (`enter`); `ptr` is a valid out-pointer.
        let r = unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) };
        if r == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            let (mut free, mut total) = (0usize, 0usize);
            // SAFETY: the context is current; both are valid out-pointers.
            let info = unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) };
            let (in_use, limit) =
                if info == CUresult::CUDA_SUCCESS { (total - free, total) } else { (0, self.ctx.props.total_memory) };
            return Err(Error::OutOfMemory { requested: bytes, in_use, limit });
        }
        self.ctx.check("cuMemAlloc", r)?;
        Ok(ptr)
    }

    unsafe fn free(&self, ptr: u64, _bytes: usize) -> Result<()> {
        // A corrupted context cannot free anything; its memory goes with the process.
        if self.ctx.is_corrupted() {
            return Ok(());
        }
        self.ctx.enter("cuMemFree")?;
        // SAFETY: the caller guarantees `ptr` came from `alloc` (cuMemAlloc on this context),
        // is freed once, and no queued work uses it.
        self.ctx.check("cuMemFree", unsafe { sys::cuMemFree_v2(ptr) })
    }

    fn total_memory(&self) -> usize {
        self.ctx.props.total_memory
    }
}

// SAFETY: pinned buffers from cuMemHostAlloc and CUevents may be used from any thread of the
// process once the context is current (every method makes it so); the buffers are never freed
// and have the bytes asked for.
unsafe impl PinnedMemory for Context {
    type Event = sys::CUevent;

    fn alloc_chunk(&self, bytes: usize) -> Result<(*mut u8, sys::CUevent)> {
        let mut host: *mut c_void = std::ptr::null_mut();
        // SAFETY: the context is current (the copy entered it); `host` is a valid out-pointer.
        // The pinned buffer is kept for the life of the device (never freed).
        let r = unsafe { sys::cuMemHostAlloc(&mut host, bytes, 0) };
        match r {
            CUresult::CUDA_SUCCESS => {}
            CUresult::CUDA_ERROR_OUT_OF_MEMORY
            | CUresult::CUDA_ERROR_NOT_SUPPORTED
            | CUresult::CUDA_ERROR_NOT_PERMITTED => {
                return Err(Error::OutOfMemory { requested: bytes, in_use: 0, limit: 0 });
            }
            _ => self.check("cuMemHostAlloc", r)?,
        }
        let mut event: sys::CUevent = std::ptr::null_mut();
        let flags = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
        // SAFETY: the context is current; `event` is a valid out-pointer.
        let r = unsafe { sys::cuEventCreate(&mut event, flags) };
        if let Err(e) = self.check("cuEventCreate", r) {
            // SAFETY: `host` came from cuMemHostAlloc just above and was never shared.
            unsafe { sys::cuMemFreeHost(host) };
            return Err(e);
        }
        Ok((host.cast(), event))
    }

    fn event_done(&self, event: sys::CUevent) -> Result<bool> {
        // SAFETY: `event` was created by `alloc_chunk` and chunks are never destroyed.
        match unsafe { sys::cuEventQuery(event) } {
            CUresult::CUDA_SUCCESS => Ok(true),
            CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            r => self.check("cuEventQuery", r).map(|()| false),
        }
    }

    fn event_wait(&self, event: sys::CUevent) -> Result<()> {
        // SAFETY: the event belongs to a chunk, which the calling thread owns.
        self.check("cuEventSynchronize", unsafe { sys::cuEventSynchronize(event) })
    }
}
