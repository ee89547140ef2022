//! What the GPU backends share about events: refusing another backend's event, and the errors
//! of timing an event that cannot be timed.

use std::any::Any;

use crate::device::Event;
use crate::Error;
use crate::Result;

/// `event` as the backend's own type `T`, or [`Error::Value`] for `op` saying that the
/// `what` (`event`, `end event`) does not belong to `backend` (`CUDA`, `HIP`).
pub fn downcast_event<'a, T: Any>(op: &str, what: &str, event: &'a dyn Event, backend: &str) -> Result<&'a T> {
    event
        .as_any()
        .downcast_ref::<T>()
        .ok_or_else(|| Error::value(op, format!("the {what} does not belong to the {backend} backend")))
}

/// The error of `elapsed_ms` when an event was created without timing.
pub fn untimed_event_error() -> Error {
    Error::value("elapsed_ms", "an event created without timing cannot be timed")
}

/// The error of `elapsed_ms` when an event has not completed.
pub fn incomplete_event_error() -> Error {
    Error::value("elapsed_ms", "an event has not completed yet; synchronize it first")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::null::NullDevice;
    use crate::{Device, Stream};

    #[test]
    fn events_of_another_backend_are_refused_by_name() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let ev = d.default_stream().record_event().unwrap();
        let e = downcast_event::<u8>("wait_event", "event", &*ev, "HIP").unwrap_err();
        assert_eq!(e.to_string(), "wait_event: the event does not belong to the HIP backend");
    }
}
