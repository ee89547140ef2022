//! Running a grid on the CPU.
//!
//! Blocks are spread over the rayon pool in contiguous chunks. A kernel without a barrier runs
//! each block's threads one after another inside the compiled code (a plain loop the compiler
//! can optimise). A kernel that calls `__syncthreads()` runs each block's threads as stackful
//! fibers (`corosensei`) on one worker: the barrier suspends the calling fiber, and the
//! scheduler resumes the next, so every thread reaches the barrier before any passes it.
//! `__shared__` variables are `static thread_local`, shared by the fibers of the worker's
//! current block. Fiber stacks are kept per worker and reused across blocks.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use rayon::prelude::*;
use xp_backend_api::{Kernel, KernelArg, LaunchConfig, RawArg};

/// CUDA's `dim3`, as the prelude lays it out.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct Dim3C {
    x: u32,
    y: u32,
    z: u32,
}

/// `xp::cpu::Ctx` of the prelude: what one worker tells the compiled code.
#[repr(C)]
pub struct Ctx {
    thread_idx: Dim3C,
    block_idx: Dim3C,
    block_dim: Dim3C,
    grid_dim: Dim3C,
    sync: unsafe extern "C" fn(*mut c_void),
    sync_data: *mut c_void,
    dyn_shared: *mut c_void,
}

pub(crate) type BlocksFn = unsafe extern "C" fn(*mut *mut c_void, *mut Ctx, u64, u64);
pub(crate) type ThreadFn = unsafe extern "C" fn(*mut *mut c_void, *mut Ctx);
pub(crate) type NParamsFn = unsafe extern "C" fn() -> i32;

/// One kernel ready to run on the CPU. Holds its library open.
#[derive(Clone)]
pub struct CpuKernel {
    pub(crate) name: String,
    pub(crate) blocks: BlocksFn,
    pub(crate) thread: ThreadFn,
    pub(crate) nparams: usize,
    pub(crate) fibers: bool,
    pub(crate) _lib: Option<Arc<libloading::Library>>,
}

impl Kernel for CpuKernel {
    fn name(&self) -> &str {
        &self.name
    }
    fn num_params(&self) -> Option<usize> {
        Some(self.nparams)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Argument values copied out of the caller's frame, 8-byte aligned.
pub(crate) struct OwnedArgs {
    storage: Vec<Vec<u64>>,
}

impl OwnedArgs {
    pub(crate) fn new(args: &[KernelArg<'_>]) -> Self {
        let storage = xp_backend_api::resolve_args(args)
            .iter()
            .map(|a| {
                let bytes = match a {
                    RawArg::Pointer(_) | RawArg::Value(_) => a.bytes(),
                };
                let mut v = vec![0u64; bytes.len().div_ceil(8).max(1)];
                // SAFETY: `v` holds at least `bytes.len()` bytes and does not overlap `bytes`.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr() as *mut u8, bytes.len()) };
                v
            })
            .collect();
        OwnedArgs { storage }
    }
}

/// The array of argument pointers handed to compiled code; it only reads through them.
struct ArgPtrs(Vec<*mut c_void>);
// SAFETY: the pointers address `OwnedArgs` storage that outlives the launch and is only read.
unsafe impl Sync for ArgPtrs {}
unsafe impl Send for ArgPtrs {}

impl ArgPtrs {
    fn argv(&self) -> *mut *mut c_void {
        self.0.as_ptr() as *mut *mut c_void
    }
}

unsafe extern "C" fn no_barrier(data: *mut c_void) {
    // Kernels without `__syncthreads` in their source run as plain loops, where a barrier
    // cannot be kept (a header or a macro hid it from the scan). Reaching one is noted, and the
    // launch fails once its blocks return (`execute`); unwinding through the compiled code
    // instead would be undefined.
    // SAFETY: `data` is the `AtomicBool` that `execute` installed for this launch, alive until
    // every block has returned.
    unsafe { (*(data as *const AtomicBool)).store(true, Ordering::Relaxed) };
}

/// How a kernel task fails without a panic's message: the stream reports `name` and
/// `message` (see the stream module's docs).
pub(crate) struct TaskFault {
    pub(crate) name: &'static str,
    pub(crate) message: String,
}

thread_local! {
    static CURRENT_YIELDER: Cell<*const Yielder<(), ()>> = const { Cell::new(std::ptr::null()) };
    /// Fiber stacks kept for reuse, with the size each was asked for.
    static STACKS: RefCell<Vec<(usize, DefaultStack)>> = const { RefCell::new(Vec::new()) };
}

/// A fiber's stack when the launch does not say (`LaunchConfig::stack_bytes`). Below it lies a
/// guard page: a thread that overflows its stack faults there instead of writing over other
/// memory, and the launch fails (the `trap` module).
const FIBER_STACK: usize = 128 << 10;

/// The smallest fiber stack a launch may ask for.
const MIN_FIBER_STACK: usize = 16 << 10;

unsafe extern "C" fn fiber_barrier(_: *mut c_void) {
    let y = CURRENT_YIELDER.with(|c| c.get());
    // SAFETY: `y` was set by the fiber running on this thread to its own yielder, which lives
    // as long as that fiber; the barrier is only installed for fiber launches.
    unsafe { (*y).suspend(()) };
    CURRENT_YIELDER.with(|c| c.set(y));
}

fn dim(d: xp_backend_api::Dim3) -> Dim3C {
    Dim3C { x: d.x, y: d.y, z: d.z }
}

/// Run a whole grid; returns when every block has finished. A kernel that reached
/// `__syncthreads()` without fibers fails its stream with `CPU_BARRIER_WITHOUT_FIBERS`; a fault
/// of a fiber (a stack overflow, an illegal address) with `CPU_FIBER_FAULT`.
pub(crate) fn execute(k: &CpuKernel, cfg: &LaunchConfig, args: &OwnedArgs) {
    let missed = AtomicBool::new(false);
    let faulted: parking_lot::Mutex<Option<(usize, usize, usize)>> = parking_lot::Mutex::new(None);
    let ptrs = ArgPtrs(args.storage.iter().map(|v| v.as_ptr() as *mut c_void).collect());
    let nblocks = cfg.grid.volume();
    let workers = rayon::current_num_threads().max(1) as u64;
    let chunks = nblocks.min(workers * 4).max(1);
    let per = nblocks.div_ceil(chunks);
    let shared_words = (cfg.shared_mem_bytes as usize).div_ceil(8);
    let ptrs = &ptrs;
    let missed_ptr = &missed as *const AtomicBool as usize;
    (0..chunks).into_par_iter().for_each(|c| {
        let b0 = c * per;
        let b1 = ((c + 1) * per).min(nblocks);
        if b0 >= b1 {
            return;
        }
        let mut shared = vec![0u64; shared_words.max(1)];
        let mut ctx = Ctx {
            thread_idx: Dim3C::default(),
            block_idx: Dim3C::default(),
            block_dim: dim(cfg.block),
            grid_dim: dim(cfg.grid),
            sync: if k.fibers { fiber_barrier } else { no_barrier },
            sync_data: if k.fibers { std::ptr::null_mut() } else { missed_ptr as *mut c_void },
            dyn_shared: shared.as_mut_ptr() as *mut c_void,
        };
        let argv = ptrs.argv();
        if !k.fibers {
            // SAFETY: `blocks` is the entry point compiled for this kernel; `argv` holds one
            // pointer per parameter (count checked at launch) to correctly sized values; `ctx`
            // is valid for the call.
            unsafe { (k.blocks)(argv, &mut ctx, b0, b1) };
        } else {
            for b in b0..b1 {
                if let Some(f) = run_block_fibers(k.thread, argv, &mut ctx, b, cfg) {
                    faulted.lock().get_or_insert(f);
                    // The launch has failed: its other blocks need not run.
                    break;
                }
            }
        }
    });
    if let Some((addr, sp, size)) = faulted.into_inner() {
        // A fault within a page or so below the stack pointer is the stack running out.
        let overflow = addr <= sp && sp - addr < 64 << 10;
        let what = if overflow {
            format!(
                "overflowed its {size}-byte stack (give its threads more with RawKernel::with_stack_size or \
                 LaunchConfig::with_stack)"
            )
        } else {
            format!("touched unmapped memory at {addr:#x} (an illegal address)")
        };
        std::panic::resume_unwind(Box::new(TaskFault {
            name: "CPU_FIBER_FAULT",
            message: format!("a thread of kernel `{}` {what}; its results are undefined", k.name),
        }));
    }
    if missed.load(Ordering::Relaxed) {
        std::panic::resume_unwind(Box::new(TaskFault {
            name: "CPU_BARRIER_WITHOUT_FIBERS",
            message: format!(
                "kernel `{}` reached __syncthreads(), which its source does not name (a header or a macro \
                 hid it), so the CPU backend ran its threads without a barrier and its results are wrong; \
                 name __syncthreads in the kernel's own source",
                k.name
            ),
        }));
    }
}

/// Run block `b` on fibers: the first fault of one of its threads, if any, as (address, stack
/// pointer, stack size) (see the `trap` module).
fn run_block_fibers(
    thread: ThreadFn,
    argv: *mut *mut c_void,
    ctx: &mut Ctx,
    b: u64,
    cfg: &LaunchConfig,
) -> Option<(usize, usize, usize)> {
    crate::trap::prepare();
    let mut fault = None;
    let (gx, gy) = (cfg.grid.x as u64, cfg.grid.y as u64);
    ctx.block_idx = Dim3C { x: (b % gx) as u32, y: ((b / gx) % gy) as u32, z: (b / (gx * gy)) as u32 };
    let n = cfg.block.volume() as usize;
    let ctx_ptr = ctx as *mut Ctx as usize;
    let argv_u = argv as usize;
    let size = match cfg.stack_bytes {
        0 => FIBER_STACK,
        b => (b as usize).max(MIN_FIBER_STACK),
    };
    let mut fibers: Vec<Option<Coroutine<(), (), (), DefaultStack>>> = STACKS.with(|s| {
        let mut s = s.borrow_mut();
        if s.last().is_some_and(|(z, _)| *z != size) {
            // Another size than the kept stacks': they go back to the system.
            s.clear();
        }
        (0..n)
            .map(|_| {
                let stack = match s.pop() {
                    Some((_, st)) => st,
                    // A fiber stack the system refuses (mmap) ends the launch as a panic,
                    // which fails the stream with its message (see the stream's docs).
                    None => {
                        DefaultStack::new(size).unwrap_or_else(|e| panic!("mmap of a {size}-byte fiber stack: {e}"))
                    }
                };
                Some(Coroutine::with_stack(stack, move |y: &Yielder<(), ()>, ()| {
                    CURRENT_YIELDER.with(|c| c.set(y as *const _));
                    // SAFETY: as in `execute`; the scheduler set this fiber's thread index in
                    // `ctx` before resuming it.
                    unsafe { thread(argv_u as *mut *mut c_void, ctx_ptr as *mut Ctx) };
                }))
            })
            .collect()
    });
    let (bx, by) = (cfg.block.x as usize, cfg.block.y as usize);
    let mut alive = n;
    while alive > 0 {
        for (t, slot) in fibers.iter_mut().enumerate() {
            let Some(f) = slot else { continue };
            // SAFETY: `ctx_ptr` is `ctx`, which outlives every fiber of this block.
            unsafe {
                (*(ctx_ptr as *mut Ctx)).thread_idx =
                    Dim3C { x: (t % bx) as u32, y: ((t / bx) % by) as u32, z: (t / (bx * by)) as u32 }
            };
            let (r, trapped) = crate::trap::guarded(f.trap_handler(), || f.resume(()));
            if let Some((addr, sp)) = trapped {
                fault.get_or_insert((addr, sp, size));
            }
            match r {
                CoroutineResult::Yield(()) => {}
                CoroutineResult::Return(()) => {
                    let done = slot.take().expect("present");
                    STACKS.with(|s| s.borrow_mut().push((size, done.into_stack())));
                    alive -= 1;
                }
            }
        }
    }
    fault
}
