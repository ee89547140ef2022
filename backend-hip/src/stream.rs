//! HIP streams: in-order queues of launches and copies on one device.
//!
//! Every stream is created non-blocking (`hipStreamNonBlocking`), the default stream of a
//! device included, so xp's streams never serialise with the legacy null stream that other
//! libraries in the process may use.
//!
//! Copies from the host wait for the stream before returning, so the caller may reuse the
//! source slice at once (the HIP runtime does not promise to have staged pageable memory when
//! `hipMemcpyHtoDAsync` returns). Copies to the host wait too, as the contract says.
//! Device-to-device copies and launches are asynchronous.

use std::any::Any;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use xp_backend_api::{
    check_launch, resolve_args, Buffer, DeviceProperties, Error, Event, Kernel, KernelArg, LaunchConfig, MemoryPool,
    Result, Stream,
};

use crate::compile::HipKernel;
use crate::event::HipEvent;
use crate::result;
use crate::safe::StreamHandle;

static NEXT_STREAM_ID: AtomicU64 = AtomicU64::new(1);

/// A stream of a HIP device.
pub struct HipStream {
    id: u64,
    handle: StreamHandle,
    props: Arc<DeviceProperties>,
    pool: Weak<MemoryPool>,
    this: Weak<HipStream>,
}

impl std::fmt::Debug for HipStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HipStream({} on hip:{})", self.id, self.handle.ordinal())
    }
}

impl HipStream {
    /// A new non-blocking stream on device `ordinal`.
    pub(crate) fn new(ordinal: usize, props: Arc<DeviceProperties>, pool: Weak<MemoryPool>) -> Result<Arc<Self>> {
        let handle = StreamHandle::new(ordinal, pool.clone())?;
        let id = NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new_cyclic(|this| HipStream { id, handle, props, pool, this: this.clone() }))
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

    fn check_buffer(&self, op: &str, buffer: &Buffer) -> Result<()> {
        if std::ptr::eq(Arc::as_ptr(buffer.pool()), self.pool.as_ptr()) {
            Ok(())
        } else {
            Err(Error::DeviceMismatch { op: op.to_string(), lhs: format!("{buffer:?}"), rhs: self.label() })
        }
    }
}

impl Stream for HipStream {
    fn id(&self) -> u64 {
        self.id
    }

    fn synchronize(&self) -> Result<()> {
        self.handle.synchronize()?;
        self.take_deferred()
    }

    fn record_event(&self) -> Result<Arc<dyn Event>> {
        Ok(self.record()?)
    }

    fn wait_event(&self, event: &dyn Event) -> Result<()> {
        let ev = event
            .as_any()
            .downcast_ref::<HipEvent>()
            .ok_or_else(|| Error::value("wait_event", "the event does not belong to the HIP backend"))?;
        self.handle.wait(ev.handle())
    }

    fn launch(&self, kernel: &dyn Kernel, config: &LaunchConfig, args: &[KernelArg<'_>]) -> Result<()> {
        check_launch(kernel.name(), &self.props, config)?;
        let k = kernel.as_any().downcast_ref::<HipKernel>().ok_or_else(|| Error::Launch {
            kernel: kernel.name().to_string(),
            reason: "the kernel was not compiled by the HIP backend".into(),
        })?;
        if k.ordinal() != self.ordinal() {
            return Err(Error::DeviceMismatch {
                op: format!("launch of `{}`", k.name()),
                lhs: format!("hip:{}", k.ordinal()),
                rhs: self.label(),
            });
        }
        for a in args {
            if let KernelArg::Buffer { buffer, .. } = a {
                self.check_buffer("launch", buffer)?;
            }
        }
        let raw = resolve_args(args);
        // hipModuleLaunchKernel reads each parameter through these pointers during the call.
        let mut params: Vec<*mut c_void> = raw.iter().map(|a| a.bytes().as_ptr() as *mut c_void).collect();
        let c = config;
        // SAFETY: the kernel and the stream are live and of the same device (checked above);
        // `params` holds one pointer per argument into `raw`, which outlives the call; every
        // buffer argument lies on this device and is noted below as used by this stream, so the
        // pool does not reuse it before the kernel ends.
        unsafe {
            result::module_launch_kernel(
                k.raw(),
                [c.grid.x, c.grid.y, c.grid.z],
                [c.block.x, c.block.y, c.block.z],
                c.shared_mem_bytes,
                self.handle.raw(),
                &mut params,
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
        let me = self.as_dyn();
        for a in args {
            if let KernelArg::Buffer { buffer, .. } = a {
                buffer.note_use(&me);
            }
        }
        Ok(())
    }

    fn copy_from_host(&self, dst: &Buffer, dst_offset: usize, src: &[u8]) -> Result<()> {
        dst.check_range("copy_from_host", dst_offset, src.len())?;
        self.check_buffer("copy_from_host", dst)?;
        if src.is_empty() {
            return Ok(());
        }
        dst.note_use(&self.as_dyn());
        // SAFETY: the destination range lies inside `dst` (checked), which stays allocated while
        // this stream uses it (noted above); `src` is borrowed until we synchronise below.
        unsafe {
            result::memcpy_htod_async(dst.device_ptr() + dst_offset as u64, src.as_ptr(), src.len(), self.handle.raw())
        }?;
        self.handle.synchronize()
    }

    fn copy_to_host(&self, src: &Buffer, src_offset: usize, dst: &mut [u8]) -> Result<()> {
        src.check_range("copy_to_host", src_offset, dst.len())?;
        self.check_buffer("copy_to_host", src)?;
        if dst.is_empty() {
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

    fn copy_device(
        &self,
        src: &Buffer,
        src_offset: usize,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        src.check_range("copy_device", src_offset, bytes)?;
        dst.check_range("copy_device", dst_offset, bytes)?;
        self.check_buffer("copy_device", src)?;
        self.check_buffer("copy_device", dst)?;
        if bytes == 0 {
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

    fn as_any(&self) -> &dyn Any {
        self
    }
}
