//! Events: a marker task in a stream that stamps the time when the stream reaches it.

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};
use xp_backend_api::{Error, Event, Result};

#[derive(Default)]
pub(crate) struct EventState {
    pub(crate) done: Mutex<Option<Instant>>,
    pub(crate) cv: Condvar,
}

impl EventState {
    pub(crate) fn fire(&self) {
        *self.done.lock() = Some(Instant::now());
        self.cv.notify_all();
    }
    pub(crate) fn wait(&self) -> Instant {
        let mut g = self.done.lock();
        loop {
            if let Some(t) = *g {
                return t;
            }
            self.cv.wait(&mut g);
        }
    }
}

/// An event of the CPU backend.
pub struct CpuEvent {
    pub(crate) state: Arc<EventState>,
}

impl Event for CpuEvent {
    fn synchronize(&self) -> Result<()> {
        self.state.wait();
        Ok(())
    }
    fn query(&self) -> Result<bool> {
        Ok(self.state.done.lock().is_some())
    }
    fn elapsed_ms(&self, end: &dyn Event) -> Result<f32> {
        let end = end
            .as_any()
            .downcast_ref::<CpuEvent>()
            .ok_or_else(|| Error::value("elapsed_ms", "the end event belongs to another backend"))?;
        let (Some(a), Some(b)) = (*self.state.done.lock(), *end.state.done.lock()) else {
            return Err(Error::value("elapsed_ms", "both events must have completed; synchronize the end event first"));
        };
        let ms = if b >= a { (b - a).as_secs_f64() * 1e3 } else { -((a - b).as_secs_f64() * 1e3) };
        Ok(ms as f32)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
