//! In-order streams: each stream is a worker thread draining a queue of tasks; a kernel task
//! spreads the grid's blocks over the rayon pool.

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Weak};

use parking_lot::{Condvar, Mutex};
use xp_backend_api::{
    check_launch, DeviceProperties, Error, Event, Kernel, KernelArg, LaunchConfig, MemoryPool, Result,
};

use crate::event::{CpuEvent, EventState};
use crate::launch::{execute, CpuKernel, OwnedArgs};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

type Task = Box<dyn FnOnce() + Send>;

/// How far a stream's worker has come: tasks submitted and tasks finished. The worker thread
/// holds it until it has drained the queue, which outlives the stream when the stream is
/// dropped with work queued.
#[derive(Default)]
pub(crate) struct Progress {
    submitted: Mutex<(u64, u64)>,
    cv: Condvar,
}

impl Progress {
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
}

impl CpuStream {
    pub(crate) fn new(props: Arc<DeviceProperties>, pool: Arc<MemoryPool>) -> Result<Arc<Self>> {
        let (tx, rx) = channel::<Task>();
        let progress = Arc::new(Progress::default());
        let p = Arc::clone(&progress);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        std::thread::Builder::new()
            .name(format!("xp-cpu-stream-{id}"))
            .spawn(move || {
                while let Ok(task) = rx.recv() {
                    task();
                    let mut g = p.submitted.lock();
                    g.1 += 1;
                    p.cv.notify_all();
                }
            })
            .map_err(|e| Error::io("starting a CPU stream thread", e))?;
        Ok(Arc::new_cyclic(|me| CpuStream { id, tx: Mutex::new(tx), progress, me: me.clone(), props, pool }))
    }

    fn handle(&self) -> Arc<dyn xp_backend_api::Stream> {
        self.me.upgrade().expect("a stream in use is alive")
    }

    /// Queue a task.
    pub(crate) fn enqueue(&self, task: Task) {
        let tx = self.tx.lock();
        self.progress.submitted.lock().0 += 1;
        // The worker only stops when the sender is dropped, which happens with the stream.
        tx.send(task).expect("the stream worker outlives the stream");
    }

    fn wait_idle(&self) {
        self.progress.wait_idle();
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
        self.wait_idle();
        match self.pool.take_deferred_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn record_event(&self) -> Result<Arc<dyn Event>> {
        let state = Arc::new(EventState::default());
        let s = Arc::clone(&state);
        self.enqueue(Box::new(move || s.fire()));
        Ok(Arc::new(CpuEvent { state }))
    }

    fn wait_event(&self, event: &dyn Event) -> Result<()> {
        let ev = event
            .as_any()
            .downcast_ref::<CpuEvent>()
            .ok_or_else(|| Error::value("wait_event", "the event belongs to another backend"))?;
        let s = Arc::clone(&ev.state);
        self.enqueue(Box::new(move || {
            s.wait();
        }));
        Ok(())
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
        self.enqueue(Box::new(move || execute(&k, &cfg, &owned)));
        Ok(())
    }

    fn copy_from_host(&self, dst: &xp_backend_api::Buffer, dst_offset: usize, src: &[u8]) -> Result<()> {
        dst.check_range("copy_from_host", dst_offset, src.len())?;
        dst.note_use(&self.handle());
        self.wait_idle();
        // SAFETY: the range lies inside `dst` (checked above), the stream is idle so no queued
        // task touches the buffer, and `src` is a distinct host slice.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), (dst.device_ptr() as *mut u8).add(dst_offset), src.len())
        };
        Ok(())
    }

    fn copy_to_host(&self, src: &xp_backend_api::Buffer, src_offset: usize, dst: &mut [u8]) -> Result<()> {
        src.check_range("copy_to_host", src_offset, dst.len())?;
        self.wait_idle();
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
        let me = self.handle();
        src.note_use(&me);
        dst.note_use(&me);
        let s = src.device_ptr() as usize + src_offset;
        let d = dst.device_ptr() as usize + dst_offset;
        self.enqueue(Box::new(move || {
            // SAFETY: both ranges were checked against their buffers, which stay allocated
            // until this stream has passed this task (stream-ordered pool); `copy` allows overlap.
            unsafe { std::ptr::copy(s as *const u8, d as *mut u8, bytes) };
        }));
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
