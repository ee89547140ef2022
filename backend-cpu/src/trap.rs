//! Faults inside a fiber as errors of the launch, not the end of the process.
//!
//! A kernel with `__syncthreads()` runs each thread on a fiber whose stack has a guard page
//! below it (`launch`). A thread whose locals overflow that stack, or that touches unmapped
//! memory, raises `SIGSEGV` (or `SIGBUS`) while its stack pointer lies in the fiber's stack. A
//! handler installed once for the process recognises that case by the stack pointer, and makes
//! the fiber return at once on a reset stack (corosensei's trap handler); the launch then fails
//! its stream with `CPU_FIBER_FAULT`, as CUDA reports an illegal address. A fault anywhere else
//! goes to the handler that was there before (Rust's stack-overflow report, or the default
//! action), unchanged.
//!
//! What is not caught: faults of kernels without a barrier (they run on the worker's own
//! stack, where nothing can be unwound safely), and writes out of bounds that land in mapped
//! memory (no fault happens). Only x86-64 Linux has the handler; elsewhere a fault in a fiber
//! ends the process, as it did before.

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod imp {
    use std::cell::Cell;
    use std::ffi::c_void;
    use std::sync::OnceLock;

    use corosensei::trap::CoroutineTrapHandler;

    thread_local! {
        /// The trap handler of the fiber this thread is running, while it runs.
        static ARMED: Cell<Option<CoroutineTrapHandler<()>>> = const { Cell::new(None) };
        /// The address and stack pointer of the fault that ended the last fiber, if one did.
        static TRAPPED: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
        /// Whether this thread has an alternate signal stack (a handler for a stack overflow
        /// cannot run on the stack that overflowed).
        static ALT_STACK: Cell<bool> = const { Cell::new(false) };
    }

    /// The dispositions of SIGSEGV and SIGBUS before ours.
    static PREVIOUS: OnceLock<[libc::sigaction; 2]> = OnceLock::new();

    const ALT_STACK_BYTES: usize = 64 << 10;

    fn slot(sig: libc::c_int) -> usize {
        usize::from(sig == libc::SIGBUS)
    }

    unsafe extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
        let uc = ctx as *mut libc::ucontext_t;
        // SAFETY: the kernel passes a valid ucontext to an SA_SIGINFO handler.
        let sp = unsafe { (*uc).uc_mcontext.gregs[libc::REG_RSP as usize] } as usize;
        let armed = ARMED.try_with(|a| a.get()).ok().flatten();
        if let Some(h) = armed.filter(|h| h.stack_ptr_in_bounds(sp)) {
            // SAFETY: `info` is valid in the handler.
            let addr = unsafe { (*info).si_addr() } as usize;
            let _ = ARMED.try_with(|a| a.set(None));
            let _ = TRAPPED.try_with(|t| t.set(Some((addr, sp))));
            // SAFETY: the stack pointer lies in the armed fiber's stack (checked above), and the
            // interrupted context is updated with every register the returned set names. The
            // fiber runs compiled kernel code that holds no Rust state across the fault.
            let regs = unsafe { h.setup_trap_handler(|| ()) };
            // SAFETY: as above; the registers are the context's own.
            unsafe {
                let g = &mut (*uc).uc_mcontext.gregs;
                g[libc::REG_RIP as usize] = regs.rip as i64;
                g[libc::REG_RSP as usize] = regs.rsp as i64;
                g[libc::REG_RBP as usize] = regs.rbp as i64;
                g[libc::REG_RDI as usize] = regs.rdi as i64;
                g[libc::REG_RSI as usize] = regs.rsi as i64;
            }
            return;
        }
        // Not a fiber's fault: what was there before.
        let Some(prev) = PREVIOUS.get().map(|p| p[slot(sig)]) else { return };
        let action = prev.sa_sigaction;
        if action == libc::SIG_DFL || action == libc::SIG_IGN {
            // Restore it and return: the faulting instruction runs again and takes the default
            // action.
            // SAFETY: a valid sigaction, ours to restore.
            unsafe { libc::sigaction(sig, &prev, std::ptr::null_mut()) };
        } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
            // SAFETY: the previous handler was installed with SA_SIGINFO and this signature.
            let f: unsafe extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) =
                unsafe { std::mem::transmute(action) };
            unsafe { f(sig, info, ctx) };
        } else {
            // SAFETY: the previous handler was installed without SA_SIGINFO.
            let f: unsafe extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(action) };
            unsafe { f(sig) };
        }
    }

    /// Install the handler (once per process) and give this thread an alternate signal stack
    /// if it has none.
    pub(crate) fn prepare() {
        PREVIOUS.get_or_init(|| {
            // SAFETY: plain sigaction calls with zero-initialised structures; the old actions
            // are kept for chaining.
            unsafe {
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = on_fault as *const () as usize;
                new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut new.sa_mask);
                let mut old: [libc::sigaction; 2] = std::mem::zeroed();
                libc::sigaction(libc::SIGSEGV, &new, &mut old[0]);
                libc::sigaction(libc::SIGBUS, &new, &mut old[1]);
                old
            }
        });
        ALT_STACK.with(|done| {
            if done.get() {
                return;
            }
            // SAFETY: sigaltstack reads into a zeroed stack_t; a new stack is an anonymous
            // mapping that lives as long as the thread (it is never unmapped: small, and the
            // kernel may still be using it while the thread ends).
            unsafe {
                let mut cur: libc::stack_t = std::mem::zeroed();
                libc::sigaltstack(std::ptr::null(), &mut cur);
                if cur.ss_flags & libc::SS_DISABLE != 0 {
                    let p = libc::mmap(
                        std::ptr::null_mut(),
                        ALT_STACK_BYTES,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                        -1,
                        0,
                    );
                    if p != libc::MAP_FAILED {
                        let st = libc::stack_t { ss_sp: p, ss_flags: 0, ss_size: ALT_STACK_BYTES };
                        libc::sigaltstack(&st, std::ptr::null_mut());
                    }
                }
            }
            done.set(true);
        });
    }

    /// Run `resume` (one resumption of a fiber) with its trap handler armed: the fault that
    /// ends the fiber, if one does, as (address, stack pointer).
    pub(crate) fn guarded<R>(
        handler: CoroutineTrapHandler<()>,
        resume: impl FnOnce() -> R,
    ) -> (R, Option<(usize, usize)>) {
        TRAPPED.with(|t| t.set(None));
        ARMED.with(|a| a.set(Some(handler)));
        let r = resume();
        ARMED.with(|a| a.set(None));
        (r, TRAPPED.with(|t| t.take()))
    }
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
mod imp {
    use corosensei::trap::CoroutineTrapHandler;

    pub(crate) fn prepare() {}

    pub(crate) fn guarded<R>(_: CoroutineTrapHandler<()>, resume: impl FnOnce() -> R) -> (R, Option<(usize, usize)>) {
        (resume(), None)
    }
}

pub(crate) use imp::{guarded, prepare};
