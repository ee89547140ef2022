//! Device memory under the pool (`cuMemAlloc`/`cuMemFree`) and the pinned staging buffers
//! that make host-to-device copies asynchronous.
//!
//! # Staging
//! `copy_from_host` must return once the source slice may be reused, without waiting for the
//! stream's earlier work. Each piece of the source (4 MiB at most) is copied into a pinned
//! buffer, the DMA from that buffer is queued, and an event recorded after it marks when the
//! buffer may be reused. A device keeps at most 8 such buffers (32 MiB of page-locked memory),
//! allocated on first use. When page-locked memory cannot be had, copies fall back to
//! `cuMemcpyHtoDAsync` from the slice followed by a stream synchronisation.

use std::collections::VecDeque;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use cudarc::driver::sys::{self, CUresult};
use parking_lot::Mutex;
use xp_backend_api::{Error, RawMemory, Result};

use crate::device::Context;

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

/// Bytes in one staging buffer.
pub(crate) const STAGING_CHUNK: usize = 4 << 20;
const MAX_STAGING_CHUNKS: usize = 8;

/// One pinned host buffer and the event that marks the end of the last copy from it.
pub(crate) struct StagingChunk {
    pub(crate) host: *mut u8,
    pub(crate) event: sys::CUevent,
}

/// The pinned buffers of one device, least recently used first.
#[derive(Default)]
pub(crate) struct Staging {
    free: Mutex<VecDeque<StagingChunk>>,
    count: AtomicUsize,
    disabled: AtomicBool,
}

// SAFETY: the raw pointers in `StagingChunk` are owned by the queue (a chunk is used by one
// thread at a time: it is popped before use and pushed back after); pinned memory and events
// may be used from any thread of the process.
unsafe impl Send for StagingChunk {}

impl Staging {
    /// A chunk whose previous copy has finished, or `None` when page-locked memory is not
    /// available (then the caller copies without staging). The context must be current.
    pub(crate) fn acquire(&self, ctx: &Context) -> Result<Option<StagingChunk>> {
        loop {
            if self.disabled.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let mut q = self.free.lock();
            if let Some(front) = q.front() {
                // SAFETY: `front.event` was created by `new_chunk` and chunks are never destroyed.
                let r = unsafe { sys::cuEventQuery(front.event) };
                if r == CUresult::CUDA_SUCCESS {
                    return Ok(q.pop_front());
                }
                if r != CUresult::CUDA_ERROR_NOT_READY {
                    ctx.check("cuEventQuery", r)?;
                }
            }
            if self.count.load(Ordering::Relaxed) < MAX_STAGING_CHUNKS {
                self.count.fetch_add(1, Ordering::Relaxed);
                drop(q);
                return match new_chunk(ctx) {
                    Ok(c) => Ok(Some(c)),
                    Err(e) => {
                        self.count.fetch_sub(1, Ordering::Relaxed);
                        if matches!(e, Error::OutOfMemory { .. }) {
                            self.disabled.store(true, Ordering::Relaxed);
                            Ok(None)
                        } else {
                            Err(e)
                        }
                    }
                };
            }
            if let Some(oldest) = q.pop_front() {
                drop(q);
                // SAFETY: the event belongs to the chunk, which this thread now owns.
                let r = unsafe { sys::cuEventSynchronize(oldest.event) };
                if let Err(e) = ctx.check("cuEventSynchronize", r) {
                    self.release(oldest);
                    return Err(e);
                }
                return Ok(Some(oldest));
            }
            // Every chunk is in another thread's hands for a moment (a host memcpy).
            drop(q);
            std::thread::yield_now();
        }
    }

    /// Give a chunk back (after recording its event, or unused).
    pub(crate) fn release(&self, chunk: StagingChunk) {
        self.free.lock().push_back(chunk);
    }
}

fn new_chunk(ctx: &Context) -> Result<StagingChunk> {
    let mut host: *mut c_void = std::ptr::null_mut();
    // SAFETY: the context is current (caller); `host` is a valid out-pointer. The pinned
    // buffer is kept for the life of the device (never freed).
    let r = unsafe { sys::cuMemHostAlloc(&mut host, STAGING_CHUNK, 0) };
    match r {
        CUresult::CUDA_SUCCESS => {}
        CUresult::CUDA_ERROR_OUT_OF_MEMORY
        | CUresult::CUDA_ERROR_NOT_SUPPORTED
        | CUresult::CUDA_ERROR_NOT_PERMITTED => {
            return Err(Error::OutOfMemory { requested: STAGING_CHUNK, in_use: 0, limit: 0 });
        }
        _ => ctx.check("cuMemHostAlloc", r)?,
    }
    let mut event: sys::CUevent = std::ptr::null_mut();
    let flags = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
    // SAFETY: the context is current; `event` is a valid out-pointer.
    let r = unsafe { sys::cuEventCreate(&mut event, flags) };
    if let Err(e) = ctx.check("cuEventCreate", r) {
        // SAFETY: `host` came from cuMemHostAlloc just above and was never shared.
        unsafe { sys::cuMemFreeHost(host) };
        return Err(e);
    }
    Ok(StagingChunk { host: host.cast(), event })
}
