//! CUDA streams: launches and copies in order.
//!
//! # Capture
//! `begin_capture` is `cuStreamBeginCapture` in relaxed mode (`CU_STREAM_CAPTURE_MODE_RELAXED`):
//! the pool may call `cuMemAlloc` while a stream captures, which the global and thread-local
//! modes refuse, and other threads keep working. `end_capture` is `cuStreamEndCapture` then
//! `cuGraphInstantiateWithFlags`; the graph template is destroyed once instantiated, the
//! executable graph ([`CudaGraph`]) on drop (`cuGraphExecDestroy` frees it once a launch in
//! flight has finished). Copies from and to the host and synchronising the stream are refused
//! before the driver sees them (`xp_backend_api::capture`); a wait on an event recorded outside
//! the capture is queued with `CU_EVENT_WAIT_EXTERNAL`, as the driver requires.

use std::any::Any;
use std::ffi::c_uint;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use cudarc::driver::sys::{self, CUresult};
use xp_backend_api::gpu::{downcast_event, note_buffer_uses, GpuTarget, PackedArgs};
use xp_backend_api::{
    Buffer, CaptureState, Error, Event, Graph, Kernel, KernelArg, LaunchConfig, MemoryPool, Result, Stream,
};

use crate::compile::CudaKernel;
use crate::context::Context;
use crate::event::CudaEvent;

static NEXT_STREAM_ID: AtomicU64 = AtomicU64::new(1);

/// Flags for `cuStreamCreate`: non-blocking, so the legacy default stream never serialises
/// xp's work.
const STREAM_FLAGS: c_uint = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as c_uint;

/// A non-blocking CUDA stream (`CUstream`) of one device.
pub struct CudaStream {
    id: u64,
    raw: sys::CUstream,
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
    this: Weak<CudaStream>,
    capture: CaptureState,
}

// SAFETY: a CUstream is a driver handle usable from any thread once its context is current,
// which every method arranges (`Context::enter`); the driver API is thread-safe.
unsafe impl Send for CudaStream {}
// SAFETY: as for `Send`; the stream has no Rust-side mutable state.
unsafe impl Sync for CudaStream {}

impl CudaStream {
    pub(crate) fn new(ctx: Arc<Context>, pool: Arc<MemoryPool>) -> Result<Arc<CudaStream>> {
        ctx.enter("cuStreamCreate")?;
        let mut raw: sys::CUstream = std::ptr::null_mut();
        // SAFETY: the context is current (`enter`); `raw` is a valid out-pointer.
        ctx.check("cuStreamCreate", unsafe { sys::cuStreamCreate(&mut raw, STREAM_FLAGS) })?;
        let id = NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new_cyclic(|this| CudaStream {
            id,
            raw,
            ctx,
            pool,
            this: this.clone(),
            capture: CaptureState::default(),
        }))
    }

    /// The raw handle, for calling other CUDA libraries (cuBLAS, cuFFT) on this stream.
    pub fn cu_stream(&self) -> sys::CUstream {
        self.raw
    }

    /// The ordinal of the device the stream belongs to.
    pub fn device_ordinal(&self) -> usize {
        self.ctx.ordinal
    }

    /// This stream as the trait object buffers remember.
    fn as_dyn(&self) -> Arc<dyn Stream> {
        // A method runs on a live `Arc<CudaStream>` (streams are only made by `new`), so the
        // upgrade cannot fail.
        self.this.upgrade().expect("a CudaStream is always owned by an Arc")
    }

    /// The device as the shared checks of launches and copies see it.
    fn target(&self) -> GpuTarget<'_> {
        GpuTarget::new("cuda", "CUDA", self.ctx.ordinal, &self.ctx.label, &self.ctx.props, &self.pool)
    }

    fn stream_sync(&self) -> Result<()> {
        // SAFETY: the context is current (callers `enter` first); `self.raw` is a live stream.
        self.ctx.check("cuStreamSynchronize", unsafe { sys::cuStreamSynchronize(self.raw) })
    }
}

impl Stream for CudaStream {
    fn id(&self) -> u64 {
        self.id
    }

    fn synchronize(&self) -> Result<()> {
        self.capture.forbid("synchronize")?;
        self.ctx.enter("cuStreamSynchronize")?;
        self.stream_sync()?;
        self.pool.deferred_result()
    }

    fn record_event(&self) -> Result<Arc<dyn Event>> {
        let ev = CudaEvent::new(Arc::clone(&self.ctx), Arc::clone(&self.pool), true)?;
        ev.record_on(self.raw)?;
        Ok(Arc::new(ev))
    }

    fn wait_event(&self, event: &dyn Event) -> Result<()> {
        let ev: &CudaEvent = downcast_event("wait_event", "event", event, "CUDA")?;
        self.ctx.enter("cuStreamWaitEvent")?;
        // SAFETY: the context is current; the stream and the event are live (an event of
        // another device's context is allowed: the driver orders across devices).
        let flags =
            if self.capture.is_active() { sys::CUevent_wait_flags::CU_EVENT_WAIT_EXTERNAL as c_uint } else { 0 };
        self.ctx.check("cuStreamWaitEvent", unsafe { sys::cuStreamWaitEvent(self.raw, ev.cu_event(), flags) })
    }

    fn launch(&self, kernel: &dyn Kernel, config: &LaunchConfig, args: &[KernelArg<'_>]) -> Result<()> {
        let name = kernel.name();
        let k: &CudaKernel = self.target().open_launch(kernel, config, args)?;
        self.ctx.enter("cuLaunchKernel")?;
        k.allow_shared_mem(config.shared_mem_bytes)?;
        // cuLaunchKernel reads each parameter through a pointer to its bytes; `params` owns
        // them and outlives the call.
        let mut params = PackedArgs::new(args);
        note_buffer_uses(args, &self.as_dyn());
        let (g, b) = (config.grid, config.block);
        // SAFETY: the context is current; `k.cu_function()` is a live function of a module of this
        // context (the kernel keeps the module loaded); the geometry was checked against the
        // device's limits; `params` holds one pointer per kernel parameter (checked against the
        // kernel's parameter list where the driver reports it), each to bytes of the parameter's
        // size that live until the call returns (the driver copies them).
        let r = unsafe {
            sys::cuLaunchKernel(
                k.cu_function(),
                g.x as c_uint,
                g.y as c_uint,
                g.z as c_uint,
                b.x as c_uint,
                b.y as c_uint,
                b.z as c_uint,
                config.shared_mem_bytes as c_uint,
                self.raw,
                params.kernel_params(),
                std::ptr::null_mut(),
            )
        };
        match r {
            CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => Err(Error::Launch {
                kernel: name.to_string(),
                reason: format!(
                    "too many resources requested (registers or shared memory) for blocks of {}x{}x{} threads; \
                     use smaller blocks",
                    b.x, b.y, b.z
                ),
            }),
            _ => self.ctx.check("cuLaunchKernel", r),
        }
    }

    fn copy_from_host(&self, dst: &Buffer, dst_offset: usize, src: &[u8]) -> Result<()> {
        self.capture.forbid("copy_from_host")?;
        if !self.target().open_host_copy("copy_from_host", dst, dst_offset, src.len())? {
            return Ok(());
        }
        self.ctx.enter("cuMemcpyHtoDAsync")?;
        dst.note_use(&self.as_dyn());
        let base = dst.device_ptr() + dst_offset as u64;
        let ctx = &*self.ctx;
        ctx.staging.copy_from_host(
            ctx,
            base,
            src,
            |at, chunk, len| {
                // SAFETY: the context is current; `at..at + len` lies in `dst` (checked above); the
                // pinned source stays untouched until the event recorded next completes.
                let r = unsafe { sys::cuMemcpyHtoDAsync_v2(at, chunk.host().cast(), len, self.raw) };
                let r = if r == CUresult::CUDA_SUCCESS {
                    // SAFETY: the context is current; the chunk's event and the stream are live.
                    unsafe { sys::cuEventRecord(chunk.event(), self.raw) }
                } else {
                    r
                };
                ctx.check("cuMemcpyHtoDAsync", r)
            },
            |at, piece| {
                // SAFETY: the context is current; the range lies in `dst`; `piece` stays borrowed
                // until the stream synchronisation below has finished the copy.
                let r = unsafe { sys::cuMemcpyHtoDAsync_v2(at, piece.as_ptr().cast(), piece.len(), self.raw) };
                ctx.check("cuMemcpyHtoDAsync", r)?;
                self.stream_sync()
            },
        )
    }

    fn copy_to_host(&self, src: &Buffer, src_offset: usize, dst: &mut [u8]) -> Result<()> {
        self.capture.forbid("copy_to_host")?;
        if !self.target().open_host_copy("copy_to_host", src, src_offset, dst.len())? {
            return Ok(());
        }
        self.ctx.enter("cuMemcpyDtoHAsync")?;
        src.note_use(&self.as_dyn());
        let at = src.device_ptr() + src_offset as u64;
        // SAFETY: the context is current; the source range lies in `src` (checked above); `dst` is
        // borrowed mutably until the synchronisation below has finished the copy.
        let r = unsafe { sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr().cast(), at, dst.len(), self.raw) };
        self.ctx.check("cuMemcpyDtoHAsync", r)?;
        self.stream_sync()
    }

    fn copy_device(
        &self,
        src: &Buffer,
        src_offset: usize,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        if !self.target().open_device_copy(src, src_offset, dst, dst_offset, bytes)? {
            return Ok(());
        }
        self.ctx.enter("cuMemcpyDtoDAsync")?;
        let me = self.as_dyn();
        src.note_use(&me);
        dst.note_use(&me);
        let (s, d) = (src.device_ptr() + src_offset as u64, dst.device_ptr() + dst_offset as u64);
        // SAFETY: the context is current; both ranges lie in buffers of this device (checked above),
        // which stay allocated until this stream's work on them ends (stream-ordered pool).
        let r = unsafe { sys::cuMemcpyDtoDAsync_v2(d, s, bytes, self.raw) };
        self.ctx.check("cuMemcpyDtoDAsync", r)
    }

    fn copy_peer(
        &self,
        src: &Buffer,
        src_offset: usize,
        dst_stream: &Arc<dyn Stream>,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<bool> {
        let Some(ds) = dst_stream.as_any().downcast_ref::<CudaStream>() else { return Ok(false) };
        crate::context::enable_peer_access(&self.ctx, &ds.ctx)?;
        let (me, dctx) = (self.as_dyn(), &ds.ctx);
        self.target().peer_copy(
            &ds.target(),
            &me,
            dst_stream,
            (src, src_offset),
            (dst, dst_offset),
            bytes,
            |s, d| {
                self.ctx.enter("cuMemcpyPeerAsync")?;
                // SAFETY: both ranges lie in buffers of their devices (checked by `peer_copy`); the
                // source stays allocated until this stream's work ends, the destination until the
                // destination stream's, which waits for the copy.
                let r = unsafe { sys::cuMemcpyPeerAsync(d, dctx.raw, s, self.ctx.raw, bytes, self.raw) };
                self.ctx.check("cuMemcpyPeerAsync", r)
            },
        )?;
        Ok(true)
    }

    fn begin_capture(&self) -> Result<()> {
        self.capture.begin()?;
        let r = self.ctx.enter("cuStreamBeginCapture").and_then(|_| {
            // SAFETY: the context is current; `self.raw` is a live stream of it.
            let r = unsafe {
                sys::cuStreamBeginCapture_v2(self.raw, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
            };
            self.ctx.check("cuStreamBeginCapture", r)
        });
        if r.is_err() {
            let _ = self.capture.end();
        }
        r
    }

    fn end_capture(&self) -> Result<Arc<dyn Graph>> {
        let entered = self.ctx.enter("cuStreamEndCapture");
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        let ended = entered.and_then(|_| {
            // SAFETY: the context is current; `graph` is a valid out-pointer.
            self.ctx.check("cuStreamEndCapture", unsafe { sys::cuStreamEndCapture(self.raw, &mut graph) })
        });
        // Leave capture mode whatever the driver said; a refused call invalidated the capture.
        let state = self.capture.end();
        let made = ended.and(state).and_then(|_| {
            let mut exec: sys::CUgraphExec = std::ptr::null_mut();
            // SAFETY: the context is current; `graph` is the live graph the capture made;
            // `exec` is a valid out-pointer.
            let r = unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) };
            self.ctx.check("cuGraphInstantiateWithFlags", r)?;
            Ok(exec)
        });
        if !graph.is_null() {
            // SAFETY: the template is destroyed once; an executable graph does not depend on it.
            let r = unsafe { sys::cuGraphDestroy(graph) };
            self.pool.defer(self.ctx.check("cuGraphDestroy", r));
        }
        let exec = made?;
        Ok(Arc::new(CudaGraph { exec, ctx: Arc::clone(&self.ctx), pool: Arc::clone(&self.pool) }))
    }

    fn is_capturing(&self) -> bool {
        self.capture.is_active()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// An executable CUDA graph (`CUgraphExec`) made by a stream capture.
pub struct CudaGraph {
    exec: sys::CUgraphExec,
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
}

// SAFETY: a CUgraphExec is a driver handle usable from any thread once its context is current,
// which every method arranges; the driver API is thread-safe.
unsafe impl Send for CudaGraph {}
// SAFETY: as for `Send`; the graph has no Rust-side mutable state.
unsafe impl Sync for CudaGraph {}

impl CudaGraph {
    fn stream<'a>(&self, op: &str, stream: &'a dyn Stream) -> Result<&'a CudaStream> {
        let s = stream
            .as_any()
            .downcast_ref::<CudaStream>()
            .ok_or_else(|| Error::value(op, "the stream does not belong to the CUDA backend"))?;
        if !Arc::ptr_eq(&s.ctx, &self.ctx) {
            return Err(Error::value(op, "the stream belongs to another device than the graph"));
        }
        Ok(s)
    }

    /// The raw handle.
    pub fn cu_graph_exec(&self) -> sys::CUgraphExec {
        self.exec
    }
}

impl Graph for CudaGraph {
    fn launch(&self, stream: &dyn Stream) -> Result<()> {
        let s = self.stream("cuGraphLaunch", stream)?;
        self.ctx.enter("cuGraphLaunch")?;
        // SAFETY: the context is current; the executable graph and the stream are live, of it.
        self.ctx.check("cuGraphLaunch", unsafe { sys::cuGraphLaunch(self.exec, s.raw) })
    }

    fn upload(&self, stream: &dyn Stream) -> Result<()> {
        let s = self.stream("cuGraphUpload", stream)?;
        self.ctx.enter("cuGraphUpload")?;
        // SAFETY: as for `launch`.
        self.ctx.check("cuGraphUpload", unsafe { sys::cuGraphUpload(self.exec, s.raw) })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        if self.ctx.is_corrupted() {
            return;
        }
        let r = self.ctx.enter("cuGraphExecDestroy").and_then(|_| {
            // SAFETY: destroyed once, here; a launch in flight finishes first (the driver frees
            // the graph afterwards).
            self.ctx.check("cuGraphExecDestroy", unsafe { sys::cuGraphExecDestroy(self.exec) })
        });
        self.pool.defer(r);
    }
}

impl Drop for CudaStream {
    fn drop(&mut self) {
        if self.ctx.is_corrupted() {
            return;
        }
        let r = self.ctx.enter("cuStreamDestroy").and_then(|_| {
            // SAFETY: the context is current and the stream is destroyed once, here. Work still
            // queued on it completes first (the driver releases the stream afterwards).
            self.ctx.check("cuStreamDestroy", unsafe { sys::cuStreamDestroy_v2(self.raw) })
        });
        self.pool.defer(r);
    }
}
