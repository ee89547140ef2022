//! Stream capture and graphs: the part of the contract behind `cupy.cuda.Graph`.
//!
//! A stream in capture mode records the work queued on it instead of running it;
//! [`Stream::end_capture`] turns the record into a [`Graph`],
//! which can then be launched on any stream of the device, as often as wanted, at a fraction
//! of the host cost of queueing the work again.
//!
//! # What a backend does
//! - CUDA: `cuStreamBeginCapture` in relaxed mode, `cuStreamEndCapture`, `cuGraphInstantiate`,
//!   `cuGraphLaunch`, `cuGraphUpload`, destroyed on drop.
//! - HIP: the same through `hipStreamBeginCapture` … `hipGraphLaunch`.
//! - CPU: the stream's worker does not run what is queued during capture; the tasks are kept
//!   in order and a launch of the graph queues one task that runs them all again.
//!
//! Streams without capture keep the defaults of [`crate::Stream`]: `begin_capture` and
//! `end_capture` are [`Error::Unsupported`].
//!
//! # What may not happen inside a capture
//! Work that needs the host while the stream records cannot be replayed: a copy to the host
//! (a read), a copy from host memory (its staging memory would be read again on every replay),
//! and a synchronisation of the capturing stream. (The CPU backend may keep the bytes of a
//! copy from the host and write them again at each replay, as its own memory allows.)
//! Backends refuse them through
//! [`CaptureState::forbid`], which returns [`Error::Unsupported`] naming the operation and
//! *invalidates* the capture, as CUDA does: [`Stream::end_capture`]
//! then fails with the first refused operation, and no graph is made.
//!
//! # Memory
//! The pool gives the capturing stream's allocations their own segments and keeps every block
//! the captured work touches out of reuse while the graph lives
//! ([`MemoryPool::begin_capture`](crate::MemoryPool::begin_capture), [`CaptureMemory`]).

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use crate::device::Stream;
use crate::{Error, Result};

pub use crate::memory::CaptureMemory;

/// An executable graph made by a stream capture.
pub trait Graph: Send + Sync {
    /// Queue the whole graph on `stream` (a stream of the device it was captured on).
    fn launch(&self, stream: &dyn Stream) -> Result<()>;
    /// Prepare the graph's resources on the device ahead of its first launch, in `stream`'s
    /// order, so the first launch costs what later ones cost. Backends with nothing to prepare
    /// check the stream and return.
    fn upload(&self, stream: &dyn Stream) -> Result<()>;
    /// Downcasting, for backends.
    fn as_any(&self) -> &dyn Any;
}

/// The error of the capture calls on a stream whose backend cannot capture.
pub fn capture_unsupported(op: &str) -> Error {
    Error::Unsupported(format!("{op}: this stream's backend cannot capture work into graphs"))
}

/// The capture state a backend's stream keeps: whether it records, and the first operation
/// refused while it did.
#[derive(Debug, Default)]
pub struct CaptureState {
    active: AtomicBool,
    refused: Mutex<Option<String>>,
}

impl CaptureState {
    /// Enter capture mode; [`Error::Value`] when the stream already captures.
    pub fn begin(&self) -> Result<()> {
        if self.active.swap(true, Ordering::AcqRel) {
            return Err(Error::value("begin_capture", "the stream is already capturing"));
        }
        *self.refused.lock() = None;
        Ok(())
    }

    /// Whether the stream is capturing.
    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }

    /// `Ok` outside a capture. Inside one, [`Error::Unsupported`] saying that `op` cannot be
    /// captured, and the capture is invalidated (module docs).
    pub fn forbid(&self, op: &str) -> Result<()> {
        if !self.is_active() {
            return Ok(());
        }
        let msg = format!(
            "{op} inside a stream capture: work that needs the host (a read to the host, a copy from host \
             memory, a synchronisation) cannot be replayed by a graph; do it before begin_capture or after \
             end_capture"
        );
        self.refused.lock().get_or_insert_with(|| msg.clone());
        Err(Error::Unsupported(msg))
    }

    /// Leave capture mode. [`Error::Value`] when the stream was not capturing; when an
    /// operation was refused during the capture, the error naming it (the capture is
    /// invalid). The caller discards what it recorded on an error.
    pub fn end(&self) -> Result<()> {
        if !self.active.swap(false, Ordering::AcqRel) {
            return Err(Error::value("end_capture", "the stream is not capturing"));
        }
        match self.refused.lock().take() {
            Some(msg) => Err(Error::value("end_capture", format!("the capture was invalidated: {msg}"))),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_operation_invalidates_the_capture() {
        let c = CaptureState::default();
        assert!(c.forbid("copy_to_host").is_ok(), "outside a capture nothing is refused");
        assert!(c.end().is_err(), "ending without a capture");
        c.begin().unwrap();
        assert!(c.begin().is_err(), "a capture inside a capture");
        let e = c.forbid("copy_to_host").unwrap_err();
        assert!(matches!(&e, Error::Unsupported(m) if m.starts_with("copy_to_host inside a stream capture")), "{e}");
        let _ = c.forbid("synchronize");
        let e = c.end().unwrap_err();
        assert!(e.to_string().contains("copy_to_host"), "the first refused operation: {e}");
        // A new capture starts clean.
        c.begin().unwrap();
        c.end().unwrap();
        assert!(!c.is_active());
    }
}
