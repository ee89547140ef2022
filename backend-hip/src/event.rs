//! HIP events: completion markers in a stream, with timing.

use std::any::Any;
use std::sync::Weak;

use xp_backend_api::gpu::{downcast_event, incomplete_event_error};
use xp_backend_api::{Error, Event, MemoryPool, Result};

use crate::safe::EventHandle;
use crate::stream::HipStream;

/// An event of a HIP device (timing enabled).
#[derive(Debug)]
pub struct HipEvent {
    handle: EventHandle,
}

impl HipEvent {
    /// A new, unrecorded event on device `ordinal`.
    pub(crate) fn new(ordinal: usize, pool: Weak<MemoryPool>) -> Result<Self> {
        Ok(HipEvent { handle: EventHandle::new(ordinal, pool)? })
    }

    /// Record the event at the current end of `stream`.
    pub fn record(&self, stream: &HipStream) -> Result<()> {
        if stream.ordinal() != self.handle.ordinal() {
            return Err(Error::DeviceMismatch {
                op: "record event".into(),
                lhs: format!("hip:{}", self.handle.ordinal()),
                rhs: format!("hip:{}", stream.ordinal()),
            });
        }
        self.handle.record(stream.handle())
    }

    /// The owned runtime handle.
    pub fn handle(&self) -> &EventHandle {
        &self.handle
    }
}

impl Event for HipEvent {
    fn synchronize(&self) -> Result<()> {
        self.handle.synchronize()
    }

    fn query(&self) -> Result<bool> {
        self.handle.query()
    }

    fn elapsed_ms(&self, end: &dyn Event) -> Result<f32> {
        let end: &HipEvent = downcast_event("elapsed_ms", "end event", end, "HIP")?;
        self.handle.elapsed_ms(&end.handle).map_err(|e| match e {
            Error::Driver { code, .. } if code == crate::sys::hipErrorNotReady as i64 => incomplete_event_error(),
            other => other,
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
