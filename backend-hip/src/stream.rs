//! HIP streams: in-order queues of launches and copies on one device.
//!
//! Every stream is created non-blocking (`hipStreamNonBlocking`), the default stream of a
//! device included, so xp's streams never serialise with the legacy null stream that other
//! libraries in the process may use.
//!
//! Copies from the host go through the device's pinned staging buffers (see the `memory`
//! module) and return as soon as the source slice may be reused; without page-locked memory
//! they wait for the stream instead (the HIP runtime does not promise to have staged pageable
//! memory when `hipMemcpyHtoDAsync` returns). Copies to the host wait, as the contract says.
//! Device-to-device copies and launches are asynchronous.
//!
//! A launch or copy is checked before anything is queued with the checks every GPU backend
//! shares (`xp_backend_api::gpu::GpuTarget`), and a launch's arguments are packed by
//! `xp_backend_api::gpu::PackedArgs`.
//!
//! # Capture
//! As on CUDA: `hipStreamBeginCapture` in relaxed mode (`hipStreamCaptureModeRelaxed`, so that
//! the pool may call `hipMalloc` during a capture), `hipStreamEndCapture`,
//! `hipGraphInstantiate` (the template destroyed at once), `hipGraphLaunch`, `hipGraphUpload`
//! (where the runtime has it; elsewhere an upload only checks its stream), and
//! `hipGraphExecDestroy` on drop. The entry points are looked up on the first capture
//! (`sys::graph_api`); a runtime without them makes the capture an `Unsupported` error. Host
//! copies and synchronising the stream are refused during a capture
//! (`xp_backend_api::capture`), and waits on events recorded outside it use
//! `hipEventWaitExternal`.

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use xp_backend_api::gpu::{downcast_event, note_buffer_uses, GpuTarget, HostStaging, PackedArgs};
use xp_backend_api::{
    Buffer, CaptureState, DeviceProperties, Error, Event, Graph, Kernel, KernelArg, LaunchConfig, MemoryPool, Result,
    Stream,
};

use crate::compile::HipKernel;
use crate::event::HipEvent;
use crate::memory::HipPinnedMemory;
use crate::result;
use crate::safe::StreamHandle;
use crate::sys::hipEvent_t;

static NEXT_STREAM_ID: AtomicU64 = AtomicU64::new(1);

/// A stream of a HIP device.
pub struct HipStream {
    id: u64,
    handle: StreamHandle,
    props: Arc<DeviceProperties>,
    pool: Weak<MemoryPool>,
    staging: Arc<HostStaging<hipEvent_t>>,
    this: Weak<HipStream>,
    capture: CaptureState,
}

impl std::fmt::Debug for HipStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HipStream({} on hip:{})", self.id, self.handle.ordinal())
    }
}

impl HipStream {
    /// A new non-blocking stream on device `ordinal`.
    pub(crate) fn new(
        ordinal: usize,
        props: Arc<DeviceProperties>,
        pool: Weak<MemoryPool>,
        staging: Arc<HostStaging<hipEvent_t>>,
    ) -> Result<Arc<Self>> {
        let handle = StreamHandle::new(ordinal, pool.clone())?;
        let id = NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new_cyclic(|this| HipStream {
            id,
            handle,
            props,
            pool,
            staging,
            this: this.clone(),
            capture: CaptureState::default(),
        }))
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.handle.ordinal()
    }

    /// The owned runtime handle.
    pub fn handle(&self) -> &StreamHandle {
        &self.handle
    }

    /// Record a new event at the current end of the stream.
    pub fn record(&self) -> Result<Arc<HipEvent>> {
        let ev = HipEvent::new(self.ordinal(), self.pool.clone())?;
        ev.record(self)?;
        Ok(Arc::new(ev))
    }

    fn label(&self) -> String {
        format!("hip:{}", self.ordinal())
    }

    /// This stream as the `Arc<dyn Stream>` that buffers remember.
    fn as_dyn(&self) -> Arc<dyn Stream> {
        // Streams are only ever created inside an `Arc` (see `new`), and `&self` proves that Arc
        // is alive, so the upgrade cannot fail.
        self.this.upgrade().expect("a HipStream lives in the Arc made by HipStream::new")
    }

    /// Errors recorded by destructors since the last synchronising call.
    fn take_deferred(&self) -> Result<()> {
        match self.pool.upgrade().and_then(|p| p.take_deferred_error()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The device's pool. Devices are never closed, so it is there while a stream of the
    /// device is; a buffer of another device is refused in any case.
    fn pool(&self, op: &str) -> Result<Arc<MemoryPool>> {
        self.pool.upgrade().ok_or_else(|| Error::value(op, format!("the device {} has been closed", self.label())))
    }

    /// The device as the shared checks of launches and copies see it.
    fn target<'a>(&'a self, label: &'a str, pool: &'a MemoryPool) -> GpuTarget<'a> {
        GpuTarget::new("hip", "HIP", self.ordinal(), label, &self.props, pool)
    }
}

impl Stream for HipStream {
    fn id(&self) -> u64 {
        self.id
    }

    fn synchronize(&self) -> Result<()> {
        self.capture.forbid("synchronize")?;
        self.handle.synchronize()?;
        self.take_deferred()
    }

    fn record_event(&self) -> Result<Arc<dyn Event>> {
        Ok(self.record()?)
    }

    fn wait_event(&self, event: &dyn Event) -> Result<()> {
        let ev: &HipEvent = downcast_event("wait_event", "event", event, "HIP")?;
        if self.capture.is_active() {
            let h = result::hip()?;
            // SAFETY: both handles are owned by live wrappers; the flag is the header's.
            let r = unsafe {
                (h.hipStreamWaitEvent)(self.handle.raw(), ev.handle().raw(), crate::sys::hipEventWaitExternal)
            };
            return result::check("hipStreamWaitEvent", r);
        }
        self.handle.wait(ev.handle())
    }

    fn launch(&self, kernel: &dyn Kernel, config: &LaunchConfig, args: &[KernelArg<'_>]) -> Result<()> {
        let (pool, label) = (self.pool("launch")?, self.label());
        // hiprtc code objects do not tell their parameters' sizes, so only the buffers are checked.
        let k: &HipKernel = self.target(&label, &pool).open_launch(kernel, config, args)?;
        // hipModuleLaunchKernel reads each parameter through these pointers during the call.
        let mut params = PackedArgs::new(args);
        let c = config;
        // SAFETY: the kernel and the stream are live and of the same device (checked above);
        // `params` holds one pointer per argument into storage it owns, which outlives the call;
        // every buffer argument lies on this device and is noted below as used by this stream, so
        // the pool does not reuse it before the kernel ends.
        unsafe {
            result::module_launch_kernel(
                k.raw(),
                [c.grid.x, c.grid.y, c.grid.z],
                [c.block.x, c.block.y, c.block.z],
                c.shared_mem_bytes,
                self.handle.raw(),
                params.pointers_mut(),
            )
        }
        .map_err(|e| match e {
            Error::Driver { api, code, name, detail } if detail.is_empty() => Error::Driver {
                api,
                code,
                name,
                detail: format!("launching `{}` with grid {:?} and block {:?}", k.name(), c.grid, c.block),
            },
            other => other,
        })?;
        note_buffer_uses(args, &self.as_dyn());
        Ok(())
    }

    fn copy_from_host(&self, dst: &Buffer, dst_offset: usize, src: &[u8]) -> Result<()> {
        self.capture.forbid("copy_from_host")?;
        let (pool, label) = (self.pool("copy_from_host")?, self.label());
        if !self.target(&label, &pool).open_host_copy("copy_from_host", dst, dst_offset, src.len())? {
            return Ok(());
        }
        dst.note_use(&self.as_dyn());
        let stream = self.handle.raw();
        self.staging.copy_from_host(
            &HipPinnedMemory::new(self.ordinal()),
            dst.device_ptr() + dst_offset as u64,
            src,
            |at, chunk, len| {
                // SAFETY: `at..at + len` lies inside `dst` (checked), which stays allocated while
                // this stream uses it (noted above); the pinned chunk is not touched again until the
                // event recorded next has completed (`HostStaging::acquire`).
                unsafe { result::memcpy_htod_async(at, chunk.host(), len, stream) }?;
                // SAFETY: the chunk's event and the stream are live and of this device.
                unsafe { result::event_record(chunk.event(), stream) }
            },
            |at, piece| {
                // SAFETY: the range lies inside `dst`; `piece` is borrowed until the stream
                // synchronisation below has finished the copy.
                unsafe { result::memcpy_htod_async(at, piece.as_ptr(), piece.len(), stream) }?;
                self.handle.synchronize()
            },
        )
    }

    fn copy_to_host(&self, src: &Buffer, src_offset: usize, dst: &mut [u8]) -> Result<()> {
        self.capture.forbid("copy_to_host")?;
        let (pool, label) = (self.pool("copy_to_host")?, self.label());
        if !self.target(&label, &pool).open_host_copy("copy_to_host", src, src_offset, dst.len())? {
            return Ok(());
        }
        src.note_use(&self.as_dyn());
        // SAFETY: the source range lies inside `src` (checked); `dst` is borrowed mutably until we
        // synchronise below, so nothing else reads or writes it while the copy runs.
        unsafe {
            result::memcpy_dtoh_async(
                dst.as_mut_ptr(),
                src.device_ptr() + src_offset as u64,
                dst.len(),
                self.handle.raw(),
            )
        }?;
        self.handle.synchronize()
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
        let Some(ds) = dst_stream.as_any().downcast_ref::<HipStream>() else { return Ok(false) };
        let op = "to_device (peer copy)";
        let (pool, dpool, label, dlabel) = (self.pool(op)?, ds.pool(op)?, self.label(), ds.label());
        result::enable_peer_access(self.ordinal(), ds.ordinal())?;
        let me = self.as_dyn();
        let (src_t, dst_t) = (self.target(&label, &pool), ds.target(&dlabel, &dpool));
        src_t.peer_copy(&dst_t, &me, dst_stream, (src, src_offset), (dst, dst_offset), bytes, |s, d| {
            // SAFETY: both ranges lie in buffers of their devices (checked by `peer_copy`); the
            // source stays allocated until this stream's work ends, the destination until the
            // destination stream's, which waits for the copy.
            unsafe { result::memcpy_peer_async(d, ds.ordinal(), s, self.ordinal(), bytes, self.handle.raw()) }
        })?;
        Ok(true)
    }

    fn copy_device(
        &self,
        src: &Buffer,
        src_offset: usize,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        let (pool, label) = (self.pool("copy_device")?, self.label());
        if !self.target(&label, &pool).open_device_copy(src, src_offset, dst, dst_offset, bytes)? {
            return Ok(());
        }
        let me = self.as_dyn();
        src.note_use(&me);
        dst.note_use(&me);
        // SAFETY: both ranges lie inside buffers of this device (checked), which the pool keeps
        // allocated until this stream's work ends (noted above).
        unsafe {
            result::memcpy_dtod_async(
                dst.device_ptr() + dst_offset as u64,
                src.device_ptr() + src_offset as u64,
                bytes,
                self.handle.raw(),
            )
        }
    }

    fn begin_capture(&self) -> Result<()> {
        let api = crate::sys::graph_api()?;
        self.capture.begin()?;
        let r = result::set_device(self.ordinal()).and_then(|_| {
            // SAFETY: the stream is live; the mode is the header's relaxed mode.
            let r = unsafe { (api.hipStreamBeginCapture)(self.handle.raw(), crate::sys::hipStreamCaptureModeRelaxed) };
            result::check("hipStreamBeginCapture", r)
        });
        if r.is_err() {
            let _ = self.capture.end();
        }
        r
    }

    fn end_capture(&self) -> Result<Arc<dyn Graph>> {
        let api = match crate::sys::graph_api() {
            Ok(a) => a,
            Err(e) => {
                let _ = self.capture.end();
                return Err(e);
            }
        };
        let mut graph: crate::sys::hipGraph_t = std::ptr::null_mut();
        let ended = result::set_device(self.ordinal()).and_then(|_| {
            // SAFETY: the stream is live; `graph` is a valid out-pointer.
            result::check("hipStreamEndCapture", unsafe { (api.hipStreamEndCapture)(self.handle.raw(), &mut graph) })
        });
        // Leave capture mode whatever the runtime said; a refused call invalidated the capture.
        let state = self.capture.end();
        let made = ended.and(state).and_then(|_| {
            let mut exec: crate::sys::hipGraphExec_t = std::ptr::null_mut();
            // SAFETY: `graph` is the live graph the capture made; no error node or log is asked for.
            let r =
                unsafe { (api.hipGraphInstantiate)(&mut exec, graph, std::ptr::null_mut(), std::ptr::null_mut(), 0) };
            result::check("hipGraphInstantiate", r)?;
            Ok(exec)
        });
        if !graph.is_null() {
            // SAFETY: the template is destroyed once; the executable graph does not depend on it.
            let r = result::check("hipGraphDestroy", unsafe { (api.hipGraphDestroy)(graph) });
            if let Some(p) = self.pool.upgrade() {
                p.defer(r);
            }
        }
        let exec = made?;
        Ok(Arc::new(HipGraph { exec, ordinal: self.ordinal(), pool: self.pool.clone() }))
    }

    fn is_capturing(&self) -> bool {
        self.capture.is_active()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// An executable HIP graph (`hipGraphExec_t`) made by a stream capture.
pub struct HipGraph {
    exec: crate::sys::hipGraphExec_t,
    ordinal: usize,
    pool: Weak<MemoryPool>,
}

// SAFETY: a hipGraphExec_t is a runtime handle usable from any thread; the runtime is
// thread-safe and the graph has no Rust-side mutable state.
unsafe impl Send for HipGraph {}
// SAFETY: as for `Send`.
unsafe impl Sync for HipGraph {}

impl HipGraph {
    fn stream<'a>(&self, op: &str, stream: &'a dyn Stream) -> Result<&'a HipStream> {
        let s = stream
            .as_any()
            .downcast_ref::<HipStream>()
            .ok_or_else(|| Error::value(op, "the stream does not belong to the HIP backend"))?;
        if s.ordinal() != self.ordinal {
            return Err(Error::value(op, "the stream belongs to another device than the graph"));
        }
        Ok(s)
    }
}

impl Graph for HipGraph {
    fn launch(&self, stream: &dyn Stream) -> Result<()> {
        let s = self.stream("hipGraphLaunch", stream)?;
        let api = crate::sys::graph_api()?;
        result::set_device(self.ordinal)?;
        // SAFETY: the executable graph and the stream are live, of the same device.
        result::check("hipGraphLaunch", unsafe { (api.hipGraphLaunch)(self.exec, s.handle.raw()) })
    }

    fn upload(&self, stream: &dyn Stream) -> Result<()> {
        let s = self.stream("hipGraphUpload", stream)?;
        let api = crate::sys::graph_api()?;
        let Some(upload) = api.hipGraphUpload else { return Ok(()) };
        result::set_device(self.ordinal)?;
        // SAFETY: as for `launch`.
        result::check("hipGraphUpload", unsafe { upload(self.exec, s.handle.raw()) })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for HipGraph {
    fn drop(&mut self) {
        let Ok(api) = crate::sys::graph_api() else { return };
        // SAFETY: destroyed once, here; a launch in flight finishes first.
        let r = result::check("hipGraphExecDestroy", unsafe { (api.hipGraphExecDestroy)(self.exec) });
        if let Some(p) = self.pool.upgrade() {
            p.defer(r);
        }
    }
}
