//! Raw device memory under the pool (`hipMalloc` and `hipFree` on one device), and the
//! page-locked host memory under the staging buffers of host-to-device copies.
//!
//! The stream-ordered [`MemoryPool`](xp_backend_api::MemoryPool) of `xp-backend-api` sits on
//! top; this allocator only talks to the runtime. `hipErrorOutOfMemory` becomes
//! [`Error::OutOfMemory`], which makes the pool release its cached blocks and try once more.
//!
//! Staging is the logic shared with the CUDA backend
//! ([`HostStaging`](xp_backend_api::gpu::HostStaging)): pieces of 4 MiB at most go through at
//! most 8 pinned buffers per device, so `copy_from_host` returns once the source may be reused
//! without waiting for the stream. `HipPinnedMemory` gives it `hipHostMalloc` and events
//! created with `hipEventDisableTiming`. When page-locked memory cannot be had, copies go
//! straight from the slice and wait for the stream.

use xp_backend_api::gpu::PinnedMemory;
use xp_backend_api::{Error, RawMemory, Result};

use crate::sys::hipEvent_t;
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

/// `hipHostMalloc` and events of device `ordinal`, for the shared staging buffers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HipPinnedMemory {
    ordinal: usize,
}

impl HipPinnedMemory {
    /// Pinned memory for copies to device `ordinal`.
    pub(crate) fn new(ordinal: usize) -> Self {
        HipPinnedMemory { ordinal }
    }
}

// SAFETY: memory from hipHostMalloc and HIP events may be used from any host thread; staging
// never frees the buffers, which have the bytes asked for; the events are never destroyed, so
// every event `alloc_chunk` returned stays valid for `event_done` and `event_wait`.
unsafe impl PinnedMemory for HipPinnedMemory {
    type Event = hipEvent_t;

    fn alloc_chunk(&self, bytes: usize) -> Result<(*mut u8, hipEvent_t)> {
        result::set_device(self.ordinal)?;
        let host = match result::host_malloc(bytes) {
            Ok(p) => p,
            Err(Error::Driver { code, .. })
                if code == sys::hipErrorOutOfMemory as i64 || code == sys::hipErrorNotSupported as i64 =>
            {
                return Err(Error::OutOfMemory { requested: bytes, in_use: 0, limit: 0 });
            }
            Err(e) => return Err(e),
        };
        match result::event_create_without_timing() {
            Ok(event) => Ok((host, event)),
            Err(e) => {
                // SAFETY: `host` came from hipHostMalloc just above and was never shared. The
                // event's error is the one to report; a failure to free adds nothing.
                let _ = unsafe { result::host_free(host) };
                Err(e)
            }
        }
    }

    fn event_done(&self, event: hipEvent_t) -> Result<bool> {
        // SAFETY: `event` was created by `alloc_chunk` and staging events are never destroyed.
        unsafe { result::event_query(event) }
    }

    fn event_wait(&self, event: hipEvent_t) -> Result<()> {
        // SAFETY: as in `event_done`.
        unsafe { result::event_synchronize(event) }
    }
}
