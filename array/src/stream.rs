//! Streams, events and graphs as `cupy.cuda` names them: [`Stream`], [`Event`],
//! [`get_elapsed_time`], [`with_stream`], and [`Graph`] from a stream capture.
//!
//! Every type is backend-neutral: on the CPU a stream is a worker thread, an event a marker in
//! its queue, and a graph the recorded list of its tasks, so a program that times or captures
//! its work runs unchanged on every device.
//!
//! ```
//! # use xp_array as xp;
//! # xp::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
//! let d = xp::device("cpu")?;
//! let s = xp::Stream::new(&d, true)?;
//! let (start, stop) = (xp::Event::new(), xp::Event::new());
//! let y = xp::with_stream(&s, || -> xp::Result<xp::Array> {
//!     start.record(Some(&s))?;
//!     let x = xp::with_device(&d, || xp::arange(0.0, 1000.0, 1.0, None))?;
//!     let y = x.mul(&x)?.sum(None, false)?;
//!     stop.record(Some(&s))?;
//!     Ok(y)
//! })?;
//! stop.synchronize()?;
//! assert!(xp::get_elapsed_time(&start, &stop)? >= 0.0);
//! assert_eq!(y.item::<f64>()?, 332_833_500.0);
//! # Ok::<(), xp::Error>(())
//! ```
//!
//! # Choices
//! - **The current stream.** [`with_stream`] runs a closure with a stream current for its
//!   device on this thread, as CuPy's `with stream:`. The guard form is [`Stream::use_`]
//!   (CuPy's `stream.use()`, `use` being a Rust keyword): the stream is current until the
//!   returned [`StreamGuard`] is dropped, rather than for the rest of the thread as in CuPy,
//!   so that a scope always restores what was current before. Guards dropped out of order
//!   each remove their own entry.
//! - **The null stream.** [`Stream::null`] is the stream xp uses when none is chosen, the
//!   device's default stream. On CUDA and HIP it is a non-blocking stream of xp's own, not the
//!   legacy `NULL` stream, which xp never uses; `non_blocking` is recorded for CuPy's
//!   attribute, and every xp stream is non-blocking towards the legacy stream.
//! - **Events** are made unrecorded ([`Event::new`]); [`Event::record`] marks the current end
//!   of a stream (`None`: the current stream of the current device). An event that was never
//!   recorded is complete (`query` is true, `synchronize` returns), as in CUDA;
//!   [`get_elapsed_time`] of one is an error, as CuPy's is (`cudaErrorInvalidResourceHandle`),
//!   and so is timing an event that has not completed (`cudaErrorNotReady`): synchronise the
//!   stop event first.
//! - **Graphs.** [`Stream::begin_capture`] … [`Stream::end_capture`] records the work queued
//!   on the stream (from this thread, on its device) into a [`Graph`] instead of running it;
//!   [`Graph::launch`] replays it on any stream of the device. CUDA captures in *relaxed* mode
//!   (`CU_STREAM_CAPTURE_MODE_RELAXED`, CuPy's choice too): the pool may allocate device
//!   memory during a capture and other threads are not restricted, where the global and
//!   thread-local modes would refuse `cuMemAlloc`. Capture is of one stream: a capture does
//!   not follow work into other streams through events.
//! - **Memory in a graph.** Arrays made during a capture get their memory from a private part
//!   of the pool, and every block the captured work touches (made during the capture or
//!   before it) stays out of reuse while the graph lives, even when its array is dropped: a
//!   replay reads and writes the same addresses again (`xp_backend_api::memory`, "Stream
//!   capture"). Arrays made during a capture hold the values of the latest replay.
//! - **Lazy fusion.** Pending arrays this thread made on the device are computed before a
//!   capture begins (their work is not recorded, and their values are there after it: the
//!   capturing stream waits for that work through events, with no host wait), and
//!   pending arrays made during it on the capturing stream are computed, and so recorded,
//!   before it ends.
//! - **What a capture refuses.** Anything that needs the host: reading to the host (`to_vec`,
//!   `item`, printing), copying from host memory on a GPU (`from_slice`; the CPU keeps the
//!   bytes and writes them again at each replay, which its scalar operands need),
//!   synchronising the stream.
//!   The call is an error, and the capture is invalidated: `end_capture` then returns an error
//!   naming the first such call, and the capture's memory goes back to the pool (nothing
//!   leaks). Work queued before the failure is discarded.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use xp_backend_api::{CaptureMemory, DynDevice, Error, Result};

use crate::exec::{current_stream, pop_stream, push_stream};

type RawStream = Arc<dyn xp_backend_api::Stream>;
type RawEvent = Arc<dyn xp_backend_api::Event>;

/// An in-order queue of work on a device (`cupy.cuda.Stream`). Cloning gives another handle
/// to the same stream.
#[derive(Clone)]
pub struct Stream {
    device: Arc<dyn DynDevice>,
    raw: RawStream,
    non_blocking: bool,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream({} on {})", self.raw.id(), self.device.label())
    }
}

/// The memory of the captures in progress, by stream id.
fn captures() -> &'static Mutex<HashMap<u64, CaptureMemory>> {
    static C: OnceLock<Mutex<HashMap<u64, CaptureMemory>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

impl Stream {
    /// A new stream on `device` (`cupy.cuda.Stream(non_blocking=…)`; see the module docs for
    /// `non_blocking`).
    pub fn new(device: &Arc<dyn DynDevice>, non_blocking: bool) -> Result<Stream> {
        Ok(Stream { device: Arc::clone(device), raw: device.new_stream()?, non_blocking })
    }

    /// The stream xp uses on `device` when none is chosen (`cupy.cuda.Stream.null`).
    pub fn null(device: &Arc<dyn DynDevice>) -> Stream {
        Stream { device: Arc::clone(device), raw: device.default_stream(), non_blocking: false }
    }

    /// The current stream of `device` on this thread (`cupy.cuda.get_current_stream`).
    pub fn current(device: &Arc<dyn DynDevice>) -> Stream {
        Stream { device: Arc::clone(device), raw: current_stream(device), non_blocking: false }
    }

    /// A handle to a backend stream of `device` (what [`crate::current_stream`] returns).
    pub fn from_raw(device: &Arc<dyn DynDevice>, raw: RawStream) -> Stream {
        Stream { device: Arc::clone(device), raw, non_blocking: false }
    }

    /// The backend's stream.
    pub fn raw(&self) -> &RawStream {
        &self.raw
    }

    /// The device of the stream.
    pub fn device(&self) -> &Arc<dyn DynDevice> {
        &self.device
    }

    /// Whether it was made non-blocking (module docs).
    pub fn non_blocking(&self) -> bool {
        self.non_blocking
    }

    /// Whether this is the device's default stream.
    pub fn is_null(&self) -> bool {
        self.raw.id() == self.device.default_stream().id()
    }

    /// Wait until every piece of work queued on the stream has finished; also reports errors
    /// of the device met since the last synchronising call. An error inside a capture.
    pub fn synchronize(&self) -> Result<()> {
        self.raw.synchronize()
    }

    /// Whether the work queued so far has finished, without waiting (`Stream.done`).
    pub fn done(&self) -> Result<bool> {
        self.raw.record_event()?.query()
    }

    /// Make later work on this stream wait for `event` (`Stream.wait_event`), without a host
    /// wait. An event never recorded is complete: nothing to wait for.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        match event.recorded() {
            Some(e) => self.raw.wait_event(&*e),
            None => Ok(()),
        }
    }

    /// Record `event` (a new one when `None`) at the current end of this stream and return it
    /// (`Stream.record`).
    pub fn record(&self, event: Option<Event>) -> Result<Event> {
        let e = event.unwrap_or_default();
        e.record(Some(self))?;
        Ok(e)
    }

    /// Make this stream current for its device on this thread until the guard is dropped
    /// (CuPy's `stream.use()`; see the module docs).
    ///
    /// ```
    /// # use xp_array as xp;
    /// # xp::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
    /// let d = xp::device("cpu")?;
    /// let s = xp::Stream::new(&d, false)?;
    /// {
    ///     let _g = s.use_();
    ///     assert_eq!(xp::Stream::current(&d).raw().id(), s.raw().id());
    /// }
    /// assert!(xp::Stream::current(&d).is_null());
    /// # Ok::<(), xp::Error>(())
    /// ```
    pub fn use_(&self) -> StreamGuard {
        StreamGuard { token: push_stream(&self.device, &self.raw), _not_send: PhantomData }
    }

    /// Whether the stream is capturing.
    pub fn is_capturing(&self) -> bool {
        self.raw.is_capturing()
    }

    /// Start recording the work queued on this stream into a graph
    /// (`Stream.begin_capture`); see the module docs for what happens to pending arrays,
    /// memory, and what a capture refuses.
    pub fn begin_capture(&self) -> Result<()> {
        if self.raw.is_capturing() {
            return Err(Error::value("begin_capture", "the stream is already capturing"));
        }
        // Pending arrays are computed now, on their own streams; the capture orders itself
        // after that work by event waits (no host wait), so what it records reads their values.
        for other in crate::lazy::evaluate_made_on(&self.device, None)? {
            if other.id() != self.raw.id() {
                self.raw.wait_event(&*other.record_event()?)?;
            }
        }
        let memory = self.device.memory_pool().begin_capture(&self.raw)?;
        // On an error the capture's memory (empty) goes back with `memory`.
        self.raw.begin_capture()?;
        captures().lock().insert(self.raw.id(), memory);
        Ok(())
    }

    /// Stop recording and return the graph of what was recorded (`Stream.end_capture`). On
    /// an error (a refused call invalidated the capture, the driver failed) the stream has
    /// left capture mode and the capture's memory is back in the pool.
    pub fn end_capture(&self) -> Result<Graph> {
        let Some(memory) = captures().lock().remove(&self.raw.id()) else {
            return Err(Error::value("end_capture", "the stream is not capturing"));
        };
        // Pending work made during the capture is recorded into it.
        let pending = crate::lazy::evaluate_made_on(&self.device, Some(&self.raw)).map(|_| ());
        memory.end();
        let graph = self.raw.end_capture()?;
        pending?;
        Ok(Graph { raw: graph, memory, device: Arc::clone(&self.device) })
    }
}

/// The scope of [`Stream::use_`]: the stream is current until this is dropped. Not `Send`:
/// it belongs to the thread whose current stream it set.
#[must_use = "the stream is current only while the guard lives"]
pub struct StreamGuard {
    token: u64,
    _not_send: PhantomData<*const ()>,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        pop_stream(self.token);
    }
}

/// Run `f` with `stream` current for its device on this thread (CuPy's `with stream:`).
pub fn with_stream<R>(stream: &Stream, f: impl FnOnce() -> R) -> R {
    let _g = stream.use_();
    f()
}

/// A marker in a stream, for waiting and timing (`cupy.cuda.Event`).
#[derive(Default)]
pub struct Event {
    recorded: Mutex<Option<RawEvent>>,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Event(recorded: {})", self.recorded.lock().is_some())
    }
}

impl Event {
    /// A new event, not yet recorded (`cupy.cuda.Event()`). Events always keep time.
    pub fn new() -> Event {
        Event::default()
    }

    fn recorded(&self) -> Option<RawEvent> {
        self.recorded.lock().clone()
    }

    /// Mark the current end of `stream` (`None`: the current stream of the current device).
    /// Recording again moves the mark.
    pub fn record(&self, stream: Option<&Stream>) -> Result<()> {
        let raw = match stream {
            Some(s) => s.raw.record_event()?,
            None => current_stream(&crate::current_device()?).record_event()?,
        };
        *self.recorded.lock() = Some(raw);
        Ok(())
    }

    /// Wait until the work before the mark has finished (an event never recorded: at once).
    pub fn synchronize(&self) -> Result<()> {
        match self.recorded() {
            Some(e) => e.synchronize(),
            None => Ok(()),
        }
    }

    /// Whether the work before the mark has finished, without waiting (`Event.done`; an event
    /// never recorded: `true`).
    pub fn query(&self) -> Result<bool> {
        match self.recorded() {
            Some(e) => e.query(),
            None => Ok(true),
        }
    }

    /// [`query`](Self::query) under CuPy's name.
    pub fn done(&self) -> Result<bool> {
        self.query()
    }

    /// Whether the event has been recorded.
    pub fn is_recorded(&self) -> bool {
        self.recorded.lock().is_some()
    }
}

/// Milliseconds between two recorded events that have completed
/// (`cupy.cuda.get_elapsed_time`). An event never recorded, or one not yet completed, is an
/// error (CUDA's `cudaErrorInvalidResourceHandle`, `cudaErrorNotReady`).
pub fn get_elapsed_time(start: &Event, stop: &Event) -> Result<f32> {
    let never = |which: &str| {
        Error::value(
            "get_elapsed_time",
            format!(
                "the {which} event was never recorded (cudaErrorInvalidResourceHandle: invalid resource handle); \
                 record it on a stream first"
            ),
        )
    };
    let a = start.recorded().ok_or_else(|| never("start"))?;
    let b = stop.recorded().ok_or_else(|| never("stop"))?;
    a.elapsed_ms(&*b)
}

/// An executable graph from a stream capture (`cupy.cuda.Graph`): the recorded work, launched
/// again on any stream of its device. Dropping it gives back the memory it kept (module docs).
pub struct Graph {
    // Dropped first: the backend's graph, then the memory it replays.
    raw: Arc<dyn xp_backend_api::Graph>,
    memory: CaptureMemory,
    device: Arc<dyn DynDevice>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Graph(on {})", self.device.label())
    }
}

impl Graph {
    fn check(&self, op: &str, stream: &Stream) -> Result<()> {
        if !Arc::ptr_eq(&stream.device, &self.device) {
            return Err(Error::DeviceMismatch { op: op.into(), lhs: self.device.label(), rhs: stream.device.label() });
        }
        Ok(())
    }

    /// Queue the whole graph on `stream` (`Graph.launch`).
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        self.check("Graph.launch", stream)?;
        self.memory.note_launch(&stream.raw);
        self.raw.launch(&*stream.raw)
    }

    /// Prepare the graph on the device ahead of its first launch, in `stream`'s order
    /// (`Graph.upload`).
    pub fn upload(&self, stream: &Stream) -> Result<()> {
        self.check("Graph.upload", stream)?;
        self.raw.upload(&*stream.raw)
    }

    /// The device it was captured on.
    pub fn device(&self) -> &Arc<dyn DynDevice> {
        &self.device
    }

    /// Bytes of blocks kept for the graph after their arrays were dropped.
    pub fn held_bytes(&self) -> usize {
        self.memory.held_bytes()
    }

    /// The backend's graph.
    pub fn raw(&self) -> &Arc<dyn xp_backend_api::Graph> {
        &self.raw
    }
}
