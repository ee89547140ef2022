use std::sync::Weak;

use xp_backend_api::{MemoryPool, Result};

use super::{defer, EventHandle};
use crate::result;
use crate::sys::hipStream_t;

/// An owned non-blocking HIP stream of one device.
#[derive(Debug)]
pub struct StreamHandle {
    raw: hipStream_t,
    ordinal: usize,
    sink: Weak<MemoryPool>,
}

// SAFETY: a hipStream_t is an opaque handle that the HIP runtime lets any host thread use
// concurrently; this type only passes it to runtime calls.
unsafe impl Send for StreamHandle {}
// SAFETY: as above; no method mutates Rust-side state.
unsafe impl Sync for StreamHandle {}

impl StreamHandle {
    /// Create a non-blocking stream on device `ordinal`; errors at drop go to `sink`.
    pub fn new(ordinal: usize, sink: Weak<MemoryPool>) -> Result<Self> {
        result::set_device(ordinal)?;
        let raw = result::stream_create_non_blocking()?;
        Ok(StreamHandle { raw, ordinal, sink })
    }

    /// The raw handle, valid while `self` lives.
    pub fn raw(&self) -> hipStream_t {
        self.raw
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Block until the stream's work has finished.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: `self.raw` is live until `self` is dropped.
        unsafe { result::stream_synchronize(self.raw) }
    }

    /// Make later work on this stream wait for `event`.
    pub fn wait(&self, event: &EventHandle) -> Result<()> {
        // SAFETY: both handles are owned by live wrappers.
        unsafe { result::stream_wait_event(self.raw, event.raw()) }
    }
}

impl Drop for StreamHandle {
    fn drop(&mut self) {
        // SAFETY: `self.raw` is live and this is its last use.
        defer(&self.sink, unsafe { result::stream_destroy(self.raw) });
    }
}
