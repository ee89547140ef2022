use std::sync::Weak;

use xp_backend_api::{MemoryPool, Result};

use super::{defer, StreamHandle};
use crate::result;
use crate::sys::hipEvent_t;

/// An owned HIP event (with timing) of one device.
#[derive(Debug)]
pub struct EventHandle {
    raw: hipEvent_t,
    ordinal: usize,
    sink: Weak<MemoryPool>,
}

// SAFETY: a hipEvent_t is an opaque handle that the HIP runtime lets any host thread use
// concurrently; this type only passes it to runtime calls.
unsafe impl Send for EventHandle {}
// SAFETY: as above; no method mutates Rust-side state.
unsafe impl Sync for EventHandle {}

impl EventHandle {
    /// Create an event on device `ordinal`; errors at drop go to `sink`.
    pub fn new(ordinal: usize, sink: Weak<MemoryPool>) -> Result<Self> {
        result::set_device(ordinal)?;
        let raw = result::event_create()?;
        Ok(EventHandle { raw, ordinal, sink })
    }

    /// The raw handle, valid while `self` lives.
    pub fn raw(&self) -> hipEvent_t {
        self.raw
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Record the event at the current end of `stream` (a stream of the same device).
    pub fn record(&self, stream: &StreamHandle) -> Result<()> {
        debug_assert_eq!(self.ordinal, stream.ordinal(), "event and stream of different devices");
        // SAFETY: both handles are owned by live wrappers and were made on the same device.
        unsafe { result::event_record(self.raw, stream.raw()) }
    }

    /// Block until the work before the event has finished.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: `self.raw` is live until `self` is dropped.
        unsafe { result::event_synchronize(self.raw) }
    }

    /// Whether the work before the event has finished.
    pub fn query(&self) -> Result<bool> {
        // SAFETY: `self.raw` is live until `self` is dropped.
        unsafe { result::event_query(self.raw) }
    }

    /// Milliseconds from `self` to `end`.
    pub fn elapsed_ms(&self, end: &EventHandle) -> Result<f32> {
        // SAFETY: both handles are owned by live wrappers.
        unsafe { result::event_elapsed_ms(self.raw, end.raw) }
    }
}

impl Drop for EventHandle {
    fn drop(&mut self) {
        // SAFETY: `self.raw` is live and this is its last use.
        defer(&self.sink, unsafe { result::event_destroy(self.raw) });
    }
}
