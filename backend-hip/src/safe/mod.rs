//! Owning wrappers of HIP and hiprtc handles: each is released exactly once, in `Drop`.
//!
//! `Drop` never panics. A runtime error met while releasing a handle is recorded on the
//! device's memory pool ([`MemoryPool::record_deferred`]) and returned by the device's next
//! synchronising call; the pool is held weakly, so a handle does not keep it alive.

use std::sync::Weak;

use xp_backend_api::{MemoryPool, Result};

mod event;
mod module;
mod program;
mod stream;

pub use event::EventHandle;
pub use module::ModuleHandle;
pub use program::Program;
pub use stream::StreamHandle;

/// Record `r`'s error, if any, on the pool behind `sink`.
pub(crate) fn defer(sink: &Weak<MemoryPool>, r: Result<()>) {
    if let (Err(e), Some(pool)) = (r, sink.upgrade()) {
        pool.defer(Err(e));
    }
}
