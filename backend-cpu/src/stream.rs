//! In-order streams: each stream is a worker thread draining a queue of tasks; a kernel task
//! spreads the grid's blocks over the rayon pool.
//!
//! # A task that panics
//! A panic inside a task (a library call, a kernel's host side) is caught on the worker, which
//! lives on: the stream becomes failed, as a GPU context does after a sticky error. Its first
//! message is kept, and every later call on the stream — queueing work, synchronising, reading
//! to the host — returns it as an [`Error::Driver`] named `CPU_TASK_PANICKED`. A kernel that
//! reaches `__syncthreads()` though its source does not name it (a header or a macro hid the
//! barrier, so its threads ran without one) fails the stream the same way, named
//! `CPU_BARRIER_WITHOUT_FIBERS`, once its blocks have returned. Tasks queued
//! before the failure still run in order, so events recorded on the stream still fire and no
//! other stream waiting for them hangs; events may still be recorded on a failed stream (the
//! pool records one to reuse memory the stream used), and fire once the queue before them ran.
//! A thread of a kernel with a barrier that overflows its fiber's stack or touches unmapped
//! memory fails the stream with `CPU_FIBER_FAULT` (the `trap` module). What the CPU backend
//! cannot catch: a kernel without a barrier that faults, aborts (a C++ `abort`) or overflows its
//! worker's stack, and any out-of-bounds store that lands in mapped memory (nothing faults; the
//! memory is corrupted, as a wild store on a GPU corrupts device memory).
//!
//! # Capture
//! A capturing stream (`begin_capture`) keeps every task that would be queued — launches,
//! device copies, library calls, event waits — in order instead of queueing it, and
//! `end_capture` makes a [`CpuGraph`] of them: launching it queues one task that runs them all
//! again, in order, with the arguments they were captured with (the pool keeps the buffers
//! they touch out of reuse while the graph lives). A copy from the host keeps its bytes and
//! writes them again at each replay (the CPU's built-in loops read a scalar operand as a 0-d
//! array made from the host, so ops with scalars must be capturable here; GPUs pass scalars by
//! value and refuse such copies). Copies to the host and synchronising the stream are refused
//! during a capture and invalidate it (`xp_backend_api::capture`).

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Weak};

use parking_lot::{Condvar, Mutex};
use xp_backend_api::{
    check_launch, CaptureState, DeviceProperties, Error, Event, Graph, Kernel, KernelArg, LaunchConfig, MemoryPool,
    Result,
};

use crate::event::{CpuEvent, EventState};
use crate::launch::{execute, CpuKernel, OwnedArgs, TaskFault};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

type Task = Box<dyn FnOnce() + Send>;

/// A task kept by a capture, run again at each launch of the graph.
type Step = Arc<dyn Fn() + Send + Sync>;

/// How far a stream's worker has come: tasks submitted and tasks finished. The worker thread
/// holds it until it has drained the queue, which outlives the stream when the stream is
/// dropped with work queued.
#[derive(Default)]
pub(crate) struct Progress {
    /// The stream's id.
    id: u64,
    submitted: Mutex<(u64, u64)>,
    cv: Condvar,
    /// The error name and message of the first task that failed, once one has.
    failed: Mutex<Option<(&'static str, String)>>,
}

/// The error name and text of a failed task's payload: a kernel's [`TaskFault`], or a panic.
fn failure(payload: &(dyn Any + Send)) -> (&'static str, String) {
    if let Some(f) = payload.downcast_ref::<TaskFault>() {
        (f.name, f.message.clone())
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        ("CPU_TASK_PANICKED", format!("a task panicked: {s}"))
    } else if let Some(s) = payload.downcast_ref::<String>() {
        ("CPU_TASK_PANICKED", format!("a task panicked: {s}"))
    } else {
        ("CPU_TASK_PANICKED", "a task panicked without a message".to_string())
    }
}

impl Progress {
    /// `Ok` until a task of the stream has panicked; then the error that `op` returns.
    pub(crate) fn check(&self, op: &str) -> Result<()> {
        let id = self.id;
        match self.failed.lock().as_ref() {
            None => Ok(()),
            Some((name, msg)) => Err(Error::Driver {
                api: op.to_string(),
                code: -1,
                name: (*name).into(),
                detail: format!("CPU stream {id}: {msg}; the stream is failed and refuses every later call"),
            }),
        }
    }

    /// Block until every task submitted so far has finished.
    pub(crate) fn wait_idle(&self) {
        let mut g = self.submitted.lock();
        let target = g.0;
        while g.1 < target {
            self.cv.wait(&mut g);
        }
    }
}

/// A stream of the CPU backend.
pub struct CpuStream {
    id: u64,
    tx: Mutex<Sender<Task>>,
    progress: Arc<Progress>,
    me: Weak<CpuStream>,
    props: Arc<DeviceProperties>,
    pool: Arc<MemoryPool>,
    capture: CaptureState,
    recorded: Mutex<Vec<Step>>,
}

impl CpuStream {
    pub(crate) fn new(props: Arc<DeviceProperties>, pool: Arc<MemoryPool>) -> Result<Arc<Self>> {
        let (tx, rx) = channel::<Task>();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let progress = Arc::new(Progress { id, ..Progress::default() });
        let p = Arc::clone(&progress);
        std::thread::Builder::new()
            .name(format!("xp-cpu-stream-{id}"))
            .spawn(move || {
                while let Ok(task) = rx.recv() {
                    // A panicking task fails the stream and leaves the worker running (module docs).
                    if let Err(payload) = std::panic::catch_unwind(AssertUnwindSafe(task)) {
                        p.failed.lock().get_or_insert_with(|| failure(&*payload));
                    }
                    let mut g = p.submitted.lock();
                    g.1 += 1;
                    p.cv.notify_all();
                }
            })
            .map_err(|e| Error::io("starting a CPU stream thread", e))?;
        Ok(Arc::new_cyclic(|me| CpuStream {
            id,
            tx: Mutex::new(tx),
            progress,
            me: me.clone(),
            props,
            pool,
            capture: CaptureState::default(),
            recorded: Mutex::new(Vec::new()),
        }))
    }

    fn handle(&self) -> Arc<dyn xp_backend_api::Stream> {
        self.me.upgrade().expect("a stream in use is alive")
    }

    /// Queue a task for `op`, unless the stream has failed (module docs); during a capture,
    /// keep it for the graph instead.
    pub(crate) fn enqueue(&self, op: &str, task: impl Fn() + Send + Sync + 'static) -> Result<()> {
        self.progress.check(op)?;
        if self.capture.is_active() {
            self.recorded.lock().push(Arc::new(task));
            return Ok(());
        }
        self.send(op, Box::new(task))
    }

    /// Queue a task for `op`, failed stream or not.
    fn send(&self, op: &str, task: Task) -> Result<()> {
        let tx = self.tx.lock();
        self.progress.submitted.lock().0 += 1;
        // The worker stops only when the sender is dropped, with the stream, and survives
        // panicking tasks; a send that fails anyway is undone and reported.
        tx.send(task).map_err(|_| {
            self.progress.submitted.lock().0 -= 1;
            Error::Driver {
                api: op.to_string(),
                code: -1,
                name: "CPU_STREAM_STOPPED".into(),
                detail: format!("the worker of CPU stream {} has stopped", self.id),
            }
        })
    }

    /// Wait for every task queued so far; the stream's failure for `op`, if it has failed.
    fn wait_idle(&self, op: &str) -> Result<()> {
        self.progress.wait_idle();
        self.progress.check(op)
    }

    /// The stream's progress, which the device keeps (weakly) to wait for every stream.
    pub(crate) fn progress(&self) -> Weak<Progress> {
        Arc::downgrade(&self.progress)
    }
}

impl xp_backend_api::Stream for CpuStream {
    fn id(&self) -> u64 {
        self.id
    }

    fn synchronize(&self) -> Result<()> {
        self.capture.forbid("synchronize")?;
        self.wait_idle("synchronize")?;
        match self.pool.take_deferred_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn record_event(&self) -> Result<Arc<dyn Event>> {
        let state = Arc::new(EventState::default());
        let s = Arc::clone(&state);
        // Even on a failed stream: an event only marks a point in the queue, and the pool
        // records one when a buffer that the stream used is freed, to reuse the memory once the
        // stream's earlier tasks are done. Refusing it would fail allocations on other streams.
        self.send("record_event", Box::new(move || s.fire()))?;
        Ok(Arc::new(CpuEvent { state }))
    }

    fn wait_event(&self, event: &dyn Event) -> Result<()> {
        let ev = event
            .as_any()
            .downcast_ref::<CpuEvent>()
            .ok_or_else(|| Error::value("wait_event", "the event belongs to another backend"))?;
        let s = Arc::clone(&ev.state);
        self.enqueue("wait_event", move || {
            s.wait();
        })
    }

    fn launch(&self, kernel: &dyn Kernel, config: &LaunchConfig, args: &[KernelArg<'_>]) -> Result<()> {
        let k = kernel
            .as_any()
            .downcast_ref::<CpuKernel>()
            .ok_or_else(|| Error::Launch { kernel: kernel.name().to_string(), reason: "not a CPU kernel".into() })?;
        check_launch(kernel.name(), &self.props, config)?;
        if let Some(n) = k.num_params() {
            if n != args.len() {
                return Err(Error::Launch {
                    kernel: k.name().to_string(),
                    reason: format!("the kernel takes {n} arguments, {} given", args.len()),
                });
            }
        }
        let me = self.handle();
        for a in args {
            if let KernelArg::Buffer { buffer, offset_bytes } = a {
                // A buffer of another device (a GPU address) must never reach a host kernel.
                buffer.check_pool(&format!("launch of `{}`", k.name()), &self.pool, "cpu")?;
                if *offset_bytes > buffer.len() {
                    return Err(Error::Launch {
                        kernel: k.name().to_string(),
                        reason: format!("argument offset {offset_bytes} lies past the buffer's {} bytes", buffer.len()),
                    });
                }
                buffer.note_use(&me);
            }
        }
        let owned = OwnedArgs::new(args);
        let k = k.clone();
        let cfg = *config;
        self.enqueue("launch", move || execute(&k, &cfg, &owned))
    }

    fn copy_from_host(&self, dst: &xp_backend_api::Buffer, dst_offset: usize, src: &[u8]) -> Result<()> {
        dst.check_range("copy_from_host", dst_offset, src.len())?;
        dst.check_pool("copy_from_host", &self.pool, "cpu")?;
        dst.note_use(&self.handle());
        if self.capture.is_active() {
            // The bytes are kept by the graph and written again at each replay (module docs).
            let (bytes, at) = (src.to_vec(), dst.device_ptr() as usize + dst_offset);
            return self.enqueue("copy_from_host", move || {
                // SAFETY: the range lies inside `dst` (checked above), which the pool holds while
                // the graph that replays this task lives; `bytes` is the task's own copy.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), at as *mut u8, bytes.len()) };
            });
        }
        self.wait_idle("copy_from_host")?;
        // SAFETY: the range lies inside `dst` (checked above), the stream is idle so no queued
        // task touches the buffer, and `src` is a distinct host slice.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), (dst.device_ptr() as *mut u8).add(dst_offset), src.len())
        };
        Ok(())
    }

    fn copy_to_host(&self, src: &xp_backend_api::Buffer, src_offset: usize, dst: &mut [u8]) -> Result<()> {
        self.capture.forbid("copy_to_host")?;
        src.check_range("copy_to_host", src_offset, dst.len())?;
        src.check_pool("copy_to_host", &self.pool, "cpu")?;
        self.wait_idle("copy_to_host")?;
        // SAFETY: the range lies inside `src` (checked above) and the stream is idle, so every
        // write queued before this copy has landed.
        unsafe {
            std::ptr::copy_nonoverlapping((src.device_ptr() as *const u8).add(src_offset), dst.as_mut_ptr(), dst.len())
        };
        match self.pool.take_deferred_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn copy_device(
        &self,
        src: &xp_backend_api::Buffer,
        src_offset: usize,
        dst: &xp_backend_api::Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        src.check_range("copy_device", src_offset, bytes)?;
        dst.check_range("copy_device", dst_offset, bytes)?;
        src.check_pool("copy_device", &self.pool, "cpu")?;
        dst.check_pool("copy_device", &self.pool, "cpu")?;
        let me = self.handle();
        src.note_use(&me);
        dst.note_use(&me);
        let s = src.device_ptr() as usize + src_offset;
        let d = dst.device_ptr() as usize + dst_offset;
        self.enqueue("copy_device", move || {
            // SAFETY: both ranges were checked against their buffers, which stay allocated
            // until this stream has passed this task (stream-ordered pool; held while a
            // graph that replays it lives); `copy` allows overlap.
            unsafe { std::ptr::copy(s as *const u8, d as *mut u8, bytes) };
        })
    }

    fn begin_capture(&self) -> Result<()> {
        self.progress.check("begin_capture")?;
        self.capture.begin()?;
        self.recorded.lock().clear();
        Ok(())
    }

    fn end_capture(&self) -> Result<Arc<dyn Graph>> {
        let steps = std::mem::take(&mut *self.recorded.lock());
        self.capture.end()?;
        Ok(Arc::new(CpuGraph { steps: Arc::new(steps), pool: Arc::clone(&self.pool) }))
    }

    fn is_capturing(&self) -> bool {
        self.capture.is_active()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A graph of the CPU backend: the tasks a capture kept, run again in order at each launch.
pub struct CpuGraph {
    steps: Arc<Vec<Step>>,
    pool: Arc<MemoryPool>,
}

impl CpuGraph {
    /// The CPU stream `stream`, of the device the graph was captured on.
    fn stream<'a>(&self, op: &str, stream: &'a dyn xp_backend_api::Stream) -> Result<&'a CpuStream> {
        let s = stream
            .as_any()
            .downcast_ref::<CpuStream>()
            .ok_or_else(|| Error::value(op, "the stream does not belong to the CPU backend"))?;
        if !Arc::ptr_eq(&s.pool, &self.pool) {
            return Err(Error::value(op, "the stream belongs to another device than the graph"));
        }
        Ok(s)
    }

    /// How many tasks a launch runs.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the capture recorded nothing.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

impl Graph for CpuGraph {
    fn launch(&self, stream: &dyn xp_backend_api::Stream) -> Result<()> {
        let s = self.stream("graph launch", stream)?;
        let steps = Arc::clone(&self.steps);
        s.enqueue("graph launch", move || {
            for step in steps.iter() {
                step();
            }
        })
    }

    fn upload(&self, stream: &dyn xp_backend_api::Stream) -> Result<()> {
        // Nothing to prepare: the tasks are already host code.
        self.stream("graph upload", stream).map(|_| ())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use xp_backend_api::{Device, Stream};

    use super::*;

    /// Before, the worker thread died with the panic: the next `synchronize` waited forever
    /// and the next launch panicked on the closed queue.
    #[test]
    fn a_panicking_task_fails_the_stream_instead_of_hanging_it() {
        let dev = crate::device::device().unwrap();
        let s = dev.new_stream().unwrap();
        let other = dev.new_stream().unwrap();
        let before = s.record_event().unwrap();
        s.enqueue("test", || panic!("a task that panics")).unwrap();
        // Work queued before the failure still runs: the event fires, the other stream goes on.
        other.wait_event(&*before).unwrap();
        other.synchronize().unwrap();
        let e = s.synchronize().unwrap_err();
        let Error::Driver { api, name, detail, .. } = &e else { panic!("{e:?}") };
        assert_eq!((api.as_str(), name.as_str()), ("synchronize", "CPU_TASK_PANICKED"));
        assert!(detail.contains("a task that panics"), "{detail}");
        // Every later call is refused with the same failure, none hangs or panics; only an
        // event may still be recorded (the pool's fences), and it fires.
        let after = s.record_event().unwrap();
        other.wait_event(&*after).unwrap();
        other.synchronize().unwrap();
        assert!(after.query().unwrap());
        let buf = dev.memory_pool().alloc(16, &(Arc::clone(&other) as Arc<dyn Stream>)).unwrap();
        let mut host = [0u8; 16];
        assert!(matches!(s.copy_to_host(&buf, 0, &mut host), Err(Error::Driver { .. })));
        assert!(matches!(s.copy_device(&buf, 0, &buf, 8, 8), Err(Error::Driver { .. })));
        // The device's synchronize waits for every stream and reports the failed one (no other
        // unit test of this crate synchronises the device while this one holds the stream).
        assert!(matches!(dev.synchronize(), Err(Error::Driver { .. })));
        drop(buf);
        // Another stream of the device is not failed by it.
        other.synchronize().unwrap();
    }

    /// A buffer of another device (here the null backend's, standing in for a GPU's) never
    /// reaches a host task: copies and library calls refuse it before anything is queued.
    #[test]
    fn buffers_of_another_device_are_refused_before_a_task_is_queued() {
        let dev = crate::device::device().unwrap();
        let s = dev.new_stream().unwrap();
        let handle: Arc<dyn Stream> = Arc::clone(&s) as Arc<dyn Stream>;
        let other = xp_backend_api::null::NullDevice::new(1 << 20, None).unwrap();
        let theirs = other.memory_pool().alloc(64, &handle).unwrap();
        let ours = dev.memory_pool().alloc(64, &handle).unwrap();
        let mut host = [0u8; 8];
        assert!(matches!(s.copy_to_host(&theirs, 0, &mut host), Err(Error::DeviceMismatch { .. })));
        assert!(matches!(s.copy_from_host(&theirs, 0, &host), Err(Error::DeviceMismatch { .. })));
        assert!(matches!(s.copy_device(&theirs, 0, &ours, 0, 8), Err(Error::DeviceMismatch { .. })));
        let e = crate::memory::check_span("gemm", "A", &theirs, 0, 4, 4).unwrap_err();
        assert!(matches!(&e, Error::DeviceMismatch { op, .. } if op == "gemm (A)"), "{e}");
        assert!(crate::memory::check_span("gemm", "A", &ours, 0, 4, 4).is_ok());
        s.synchronize().unwrap();
    }
}
