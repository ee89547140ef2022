//! CUDA events: completion markers in a stream, with timing.

use std::any::Any;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUresult};
use xp_backend_api::gpu::{downcast_event, incomplete_event_error, untimed_event_error};
use xp_backend_api::{Event, MemoryPool, Result};

use crate::context::Context;
use crate::library;

/// A CUDA event (`CUevent`), recorded on a [`crate::CudaStream`].
pub struct CudaEvent {
    raw: sys::CUevent,
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
    timing: bool,
}

// SAFETY: a CUevent is a driver handle usable from any thread once its context is current,
// which every method arranges (`Context::enter`); the driver API is thread-safe.
unsafe impl Send for CudaEvent {}
// SAFETY: as for `Send`; the event has no Rust-side mutable state.
unsafe impl Sync for CudaEvent {}

impl CudaEvent {
    pub(crate) fn new(ctx: Arc<Context>, pool: Arc<MemoryPool>, timing: bool) -> Result<Self> {
        ctx.enter("cuEventCreate")?;
        let flags = if timing {
            sys::CUevent_flags::CU_EVENT_DEFAULT as u32
        } else {
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32
        };
        let mut raw: sys::CUevent = std::ptr::null_mut();
        // SAFETY: the context is current (`enter`); `raw` is a valid out-pointer.
        ctx.check("cuEventCreate", unsafe { sys::cuEventCreate(&mut raw, flags) })?;
        Ok(CudaEvent { raw, ctx, pool, timing })
    }

    /// Record the event at the current end of `stream` (a raw stream of the same context).
    pub(crate) fn record_on(&self, stream: sys::CUstream) -> Result<()> {
        self.ctx.enter("cuEventRecord")?;
        // SAFETY: the context is current; `self.raw` is a live event and `stream` a live stream,
        // both of this context.
        self.ctx.check("cuEventRecord", unsafe { sys::cuEventRecord(self.raw, stream) })
    }

    /// The raw handle, for calling other CUDA libraries.
    pub fn cu_event(&self) -> sys::CUevent {
        self.raw
    }

    /// The ordinal of the device the event belongs to.
    pub fn device_ordinal(&self) -> usize {
        self.ctx.ordinal
    }
}

impl Event for CudaEvent {
    fn synchronize(&self) -> Result<()> {
        self.ctx.enter("cuEventSynchronize")?;
        // SAFETY: the context is current; `self.raw` is a live event.
        self.ctx.check("cuEventSynchronize", unsafe { sys::cuEventSynchronize(self.raw) })
    }

    fn query(&self) -> Result<bool> {
        self.ctx.enter("cuEventQuery")?;
        // SAFETY: the context is current; `self.raw` is a live event.
        match unsafe { sys::cuEventQuery(self.raw) } {
            CUresult::CUDA_SUCCESS => Ok(true),
            CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            r => self.ctx.check("cuEventQuery", r).map(|_| false),
        }
    }

    fn elapsed_ms(&self, end: &dyn Event) -> Result<f32> {
        let end: &CudaEvent = downcast_event("elapsed_ms", "end event", end, "CUDA")?;
        if !self.timing || !end.timing {
            return Err(untimed_event_error());
        }
        self.ctx.enter("cuEventElapsedTime")?;
        let mut ms = 0f32;
        let r = if library::driver_has("cuEventElapsedTime_v2") {
            // SAFETY: the context is current; both events are live; `ms` is a valid out-pointer;
            // the driver exports the function (checked just above).
            unsafe { sys::cuEventElapsedTime_v2(&mut ms, self.raw, end.raw) }
        } else {
            // Drivers older than CUDA 12.8 have only the first version, which cudarc's CUDA 13
            // bindings do not declare.
            type ElapsedTime = unsafe extern "C" fn(*mut f32, sys::CUevent, sys::CUevent) -> CUresult;
            let f: ElapsedTime = library::driver_symbol("cuEventElapsedTime")?;
            // SAFETY: `f` is cuEventElapsedTime of the loaded driver, whose C signature is
            // `ElapsedTime`; the context is current, both events are live, `ms` is valid.
            unsafe { f(&mut ms, self.raw, end.raw) }
        };
        if r == CUresult::CUDA_ERROR_NOT_READY {
            return Err(incomplete_event_error());
        }
        self.ctx.check("cuEventElapsedTime", r)?;
        Ok(ms)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        if self.ctx.is_corrupted() {
            return;
        }
        let r = self.ctx.enter("cuEventDestroy").and_then(|_| {
            // SAFETY: the context is current and the event is destroyed once, here. Destroying
            // an event whose work is pending is allowed: the driver frees it when it completes.
            self.ctx.check("cuEventDestroy", unsafe { sys::cuEventDestroy_v2(self.raw) })
        });
        self.pool.defer(r);
    }
}
