//! What the GPU backends (CUDA, HIP) share beyond the pool and the compile cache, so that each
//! keeps only its vendor calls: the checks and argument packing of a launch, sticky errors,
//! pinned staging of host-to-device copies, event helpers and the per-process device registry.
//!
//! Nothing here calls a vendor library. Where a piece needs the vendor (pinned memory, events),
//! it asks through a small trait ([`PinnedMemory`]) or a closure.

use std::any::Any;
use std::collections::VecDeque;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use crate::device::{DeviceProperties, Event, Kernel, Stream};
use crate::launch::{resolve_args, KernelArg, LaunchConfig, RawArg};
use crate::memory::{Buffer, MemoryPool};
use crate::{check_launch, Error, Result};

// ---------------------------------------------------------------------------------------------
// Launches and copies

/// What the shared checks ask of a GPU backend's kernel type.
pub trait GpuKernel: Kernel + Any {
    /// The ordinal of the device the kernel's module is loaded on.
    fn device_ordinal(&self) -> usize;
    /// The byte size of each parameter, where the vendor reports them.
    fn param_sizes(&self) -> Option<&[usize]>;
}

/// The device a GPU stream queues work on, as the checks that open every launch and copy see
/// it. Each backend's stream builds one and calls [`GpuTarget::open_launch`] and the copy
/// checks before its vendor calls, so every GPU backend refuses the same things with the same
/// errors.
pub struct GpuTarget<'a> {
    /// The backend's name in labels: `cuda`, `hip`.
    pub backend: &'a str,
    /// The backend's name in prose: `CUDA`, `HIP`.
    pub vendor: &'a str,
    /// The device's ordinal.
    pub ordinal: usize,
    /// The device's label, `cuda:0`.
    pub label: &'a str,
    /// The device's limits.
    pub props: &'a DeviceProperties,
    /// The device's pool, which every buffer used must come from.
    pub pool: &'a MemoryPool,
}

impl GpuTarget<'_> {
    /// Check a launch before anything is queued, and return the kernel as the backend's type
    /// `K`: the kernel was compiled by this backend ([`Error::Launch`]) for this device
    /// ([`Error::DeviceMismatch`]), the geometry and dynamic shared memory fit the device
    /// ([`check_launch`]), and the arguments fit the kernel and the device
    /// ([`check_launch_args`]).
    pub fn open_launch<'k, K: GpuKernel>(
        &self,
        kernel: &'k dyn Kernel,
        config: &LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<&'k K> {
        let name = kernel.name();
        let k = kernel.as_any().downcast_ref::<K>().ok_or_else(|| Error::Launch {
            kernel: name.to_string(),
            reason: format!("the kernel was not compiled by the {} backend", self.vendor),
        })?;
        if k.device_ordinal() != self.ordinal {
            return Err(Error::DeviceMismatch {
                op: format!("launch of `{name}`"),
                lhs: self.label.to_string(),
                rhs: format!("{}:{}", self.backend, k.device_ordinal()),
            });
        }
        check_launch(name, self.props, config)?;
        check_launch_args(name, k.param_sizes(), self.pool, self.label, args)?;
        Ok(k)
    }

    /// Check one side of a copy by `op` (`copy_from_host`, `copy_to_host`): `bytes` at
    /// `offset` lie inside `buffer` ([`Error::Index`]), which belongs to this device
    /// ([`Error::DeviceMismatch`]). Returns whether there is anything to copy.
    pub fn open_host_copy(&self, op: &str, buffer: &Buffer, offset: usize, bytes: usize) -> Result<bool> {
        buffer.check_range(op, offset, bytes)?;
        buffer.check_pool(op, self.pool, self.label)?;
        Ok(bytes != 0)
    }

    /// Check a device-to-device copy (`copy_device`): both ranges lie inside their buffers,
    /// and both buffers belong to this device. Returns whether there is anything to copy.
    pub fn open_device_copy(
        &self,
        src: &Buffer,
        src_offset: usize,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<bool> {
        const OP: &str = "copy_device";
        src.check_range(OP, src_offset, bytes)?;
        dst.check_range(OP, dst_offset, bytes)?;
        src.check_pool(OP, self.pool, self.label)?;
        dst.check_pool(OP, self.pool, self.label)?;
        Ok(bytes != 0)
    }

    /// A copy from a buffer of this device to a buffer of the device `dst_target`
    /// (`Stream::copy_peer`): both ranges are checked against their buffers and pools; then,
    /// when there is anything to copy, `copy` queues it on `stream` (of this device) after the
    /// work `dst_stream` has queued so far (the destination may reuse memory that work still
    /// touches), the source is noted as used by `stream`, and `dst_stream` waits for the copy.
    #[allow(clippy::too_many_arguments)]
    pub fn peer_copy(
        &self,
        dst_target: &GpuTarget<'_>,
        stream: &Arc<dyn Stream>,
        dst_stream: &Arc<dyn Stream>,
        (src, src_offset): (&Buffer, usize),
        (dst, dst_offset): (&Buffer, usize),
        bytes: usize,
        copy: impl FnOnce(u64, u64) -> Result<()>,
    ) -> Result<()> {
        const OP: &str = "to_device (peer copy)";
        src.check_pool(OP, self.pool, self.label)?;
        src.check_range(OP, src_offset, bytes)?;
        dst.check_pool(OP, dst_target.pool, dst_target.label)?;
        dst.check_range(OP, dst_offset, bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        let before = dst_stream.record_event()?;
        stream.wait_event(&*before)?;
        src.note_use(stream);
        copy(src.device_ptr() + src_offset as u64, dst.device_ptr() + dst_offset as u64)?;
        let done = stream.record_event()?;
        dst_stream.wait_event(&*done)
    }
}

/// Check the arguments of a launch before anything is queued: their number and sizes against
/// the kernel's parameters (`param_sizes`, where the vendor reports them), then that every
/// buffer belongs to the device of `pool` (named `device_label`) and that its offset lies
/// inside it. Every failure is [`Error::Launch`] or [`Error::DeviceMismatch`] /
/// [`Error::Index`] naming the kernel.
pub fn check_launch_args(
    kernel: &str,
    param_sizes: Option<&[usize]>,
    pool: &MemoryPool,
    device_label: &str,
    args: &[KernelArg<'_>],
) -> Result<()> {
    if let Some(params) = param_sizes {
        check_param_sizes(kernel, params, args)?;
    }
    for a in args {
        if let KernelArg::Buffer { buffer, offset_bytes } = a {
            // The message is only written when a check fails: launches are on the hot path.
            if buffer.is_from(pool) && buffer.check_range("launch", *offset_bytes, 0).is_ok() {
                continue;
            }
            let op = format!("launch of `{kernel}`");
            buffer.check_pool(&op, pool, device_label)?;
            buffer.check_range(&op, *offset_bytes, 0)?;
        }
    }
    Ok(())
}

/// Check the argument count and sizes against a kernel's parameter sizes in bytes (a buffer
/// is passed as an 8-byte device address).
pub fn check_param_sizes(kernel: &str, params: &[usize], args: &[KernelArg<'_>]) -> Result<()> {
    let err = |reason: String| Err(Error::Launch { kernel: kernel.to_string(), reason });
    if params.len() != args.len() {
        return err(format!("the kernel takes {} parameters; {} arguments were given", params.len(), args.len()));
    }
    for (i, (size, arg)) in params.iter().zip(args).enumerate() {
        let given = match arg {
            KernelArg::Buffer { .. } => std::mem::size_of::<u64>(),
            KernelArg::Value(v) => v.len(),
        };
        if given != *size {
            return err(format!("parameter {i} is {size} bytes; the argument given is {given} bytes"));
        }
    }
    Ok(())
}

/// Kernel arguments packed the way `cuLaunchKernel` and `hipModuleLaunchKernel` take them
/// (`kernelParams`): one pointer per parameter, to bytes of the parameter's size. The bytes
/// are owned here, so the pointers stay valid for as long as this value lives.
pub struct PackedArgs {
    // The pointers point into the vector's heap storage, which does not move when
    // `PackedArgs` does.
    values: Vec<RawArg>,
    pointers: Vec<*mut c_void>,
}

impl PackedArgs {
    /// Resolve buffers to device addresses and point at every argument's bytes.
    pub fn new(args: &[KernelArg<'_>]) -> Self {
        let values = resolve_args(args);
        let pointers = values.iter().map(|a| a.bytes().as_ptr() as *mut c_void).collect();
        PackedArgs { values, pointers }
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the kernel takes no parameters.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The pointer array, or null when there are no parameters (as the vendor APIs accept).
    pub fn kernel_params(&mut self) -> *mut *mut c_void {
        if self.pointers.is_empty() {
            std::ptr::null_mut()
        } else {
            self.pointers.as_mut_ptr()
        }
    }

    /// The pointers as a slice.
    pub fn pointers_mut(&mut self) -> &mut [*mut c_void] {
        &mut self.pointers
    }
}

/// Record that work on `stream` uses every buffer among `args` (see [`crate::Buffer::note_use`]).
pub fn note_buffer_uses(args: &[KernelArg<'_>], stream: &Arc<dyn Stream>) {
    for a in args {
        if let KernelArg::Buffer { buffer, .. } = a {
            buffer.note_use(stream);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sticky errors

/// The vendor error that first left a GPU context unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Poison {
    /// The call that reported it.
    pub api: String,
    /// The vendor's numeric code.
    pub code: i64,
    /// The vendor's symbolic name.
    pub name: String,
}

/// Whether a sticky error (an illegal address in a kernel, a failed launch, …) has corrupted a
/// GPU context. The first one is kept; from then on every call on that context is refused with
/// an [`Error::Driver`] carrying its code and name, without calling the vendor again.
#[derive(Debug, Default)]
pub struct StickyError {
    first: OnceLock<Poison>,
}

impl StickyError {
    /// No error yet.
    pub const fn new() -> Self {
        StickyError { first: OnceLock::new() }
    }

    /// Keep `api` failing with `code`/`name` as the error, unless one is kept already.
    pub fn record(&self, api: &str, code: i64, name: &str) {
        let _ = self.first.set(Poison { api: api.to_string(), code, name: name.to_string() });
    }

    /// The error kept, if any.
    pub fn get(&self) -> Option<&Poison> {
        self.first.get()
    }

    /// Whether an error is kept.
    pub fn is_set(&self) -> bool {
        self.first.get().is_some()
    }

    /// `Ok` while no error is kept; else the [`Error::Driver`] that a call of `api` returns,
    /// with the kept code and name and the detail `describe` writes.
    pub fn refuse(&self, api: &str, describe: impl FnOnce(&Poison) -> String) -> Result<()> {
        match self.first.get() {
            None => Ok(()),
            Some(p) => {
                Err(Error::Driver { api: api.to_string(), code: p.code, name: p.name.clone(), detail: describe(p) })
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pinned staging

/// Bytes in one staging buffer.
pub const STAGING_CHUNK: usize = 4 << 20;
/// Staging buffers a device keeps at most (32 MiB of page-locked memory).
pub const MAX_STAGING_CHUNKS: usize = 8;

/// The vendor half of pinned staging: page-locked host buffers and events.
///
/// # Safety
/// The buffers and events returned must be usable from any thread of the process, and a
/// buffer must stay allocated, with at least the bytes asked for, for as long as the process
/// runs (staging never frees them). `event_done` and `event_wait` must accept every event that
/// `alloc_chunk` of any value of the type returned.
pub unsafe trait PinnedMemory {
    /// An event handle.
    type Event: Copy;
    /// A page-locked buffer of `bytes` and an event (not yet recorded, which counts as
    /// complete). [`Error::OutOfMemory`] means page-locked memory cannot be had here: staging
    /// is then switched off and copies go straight from the caller's slice.
    fn alloc_chunk(&self, bytes: usize) -> Result<(*mut u8, Self::Event)>;
    /// Whether the work before `event` has finished, without blocking.
    fn event_done(&self, event: Self::Event) -> Result<bool>;
    /// Block until the work before `event` has finished.
    fn event_wait(&self, event: Self::Event) -> Result<()>;
}

/// One pinned host buffer of [`STAGING_CHUNK`] bytes and the event that marks the end of the
/// last copy from it.
pub struct StagingChunk<E> {
    host: *mut u8,
    event: E,
}

// SAFETY: chunks come only from `PinnedMemory::alloc_chunk`, whose contract makes the buffer
// and the event usable from any thread; a chunk is used by one thread at a time (it is popped
// from the queue before use and pushed back after).
unsafe impl<E> Send for StagingChunk<E> {}

impl<E: Copy> StagingChunk<E> {
    /// The page-locked buffer.
    pub fn host(&self) -> *mut u8 {
        self.host
    }

    /// The chunk's event: record it after queueing the copy from the buffer.
    pub fn event(&self) -> E {
        self.event
    }
}

/// The pinned staging buffers of one device, least recently used first.
///
/// `copy_from_host` must return once the source slice may be reused, without waiting for the
/// stream's earlier work. Each piece of the source ([`STAGING_CHUNK`] bytes at most) is copied
/// into a pinned buffer, the DMA from that buffer is queued, and an event recorded after it
/// marks when the buffer may be reused. A device keeps at most [`MAX_STAGING_CHUNKS`] buffers,
/// allocated on first use. When page-locked memory cannot be had, copies go straight from the
/// slice and wait for the stream.
pub struct HostStaging<E> {
    free: Mutex<VecDeque<StagingChunk<E>>>,
    count: AtomicUsize,
    disabled: AtomicBool,
}

impl<E> Default for HostStaging<E> {
    fn default() -> Self {
        HostStaging { free: Mutex::new(VecDeque::new()), count: AtomicUsize::new(0), disabled: AtomicBool::new(false) }
    }
}

impl<E: Copy> HostStaging<E> {
    /// No buffers yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Buffers allocated so far.
    pub fn chunks(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// Whether staging was switched off for want of page-locked memory.
    pub fn is_disabled(&self) -> bool {
        self.disabled.load(Ordering::Relaxed)
    }

    /// A chunk whose previous copy has finished, or `None` when page-locked memory is not
    /// available (then the caller copies without staging).
    pub fn acquire<P: PinnedMemory<Event = E>>(&self, mem: &P) -> Result<Option<StagingChunk<E>>> {
        loop {
            if self.disabled.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let mut q = self.free.lock();
            if let Some(front) = q.front() {
                if mem.event_done(front.event)? {
                    return Ok(q.pop_front());
                }
            }
            if self.count.load(Ordering::Relaxed) < MAX_STAGING_CHUNKS {
                self.count.fetch_add(1, Ordering::Relaxed);
                drop(q);
                return match mem.alloc_chunk(STAGING_CHUNK) {
                    Ok((host, event)) => Ok(Some(StagingChunk { host, event })),
                    Err(e) => {
                        self.count.fetch_sub(1, Ordering::Relaxed);
                        if matches!(e, Error::OutOfMemory { .. }) {
                            self.disabled.store(true, Ordering::Relaxed);
                            Ok(None)
                        } else {
                            Err(e)
                        }
                    }
                };
            }
            if let Some(oldest) = q.pop_front() {
                drop(q);
                if let Err(e) = mem.event_wait(oldest.event) {
                    self.release(oldest);
                    return Err(e);
                }
                return Ok(Some(oldest));
            }
            // Every chunk is in another thread's hands for a moment (a host memcpy).
            drop(q);
            std::thread::yield_now();
        }
    }

    /// Give a chunk back (after recording its event, or unused).
    pub fn release(&self, chunk: StagingChunk<E>) {
        self.free.lock().push_back(chunk);
    }

    /// Copy `src` to the device address `dst` piece by piece through the staging buffers.
    ///
    /// For a staged piece, `queue_pinned(at, chunk, len)` queues the copy of `len` bytes from
    /// `chunk.host()` to `at` and records `chunk.event()` after it; the chunk is given back
    /// whatever it returns. Without staging, `queue_and_wait(at, piece)` copies straight from
    /// the slice and returns when the copy is done.
    pub fn copy_from_host<P: PinnedMemory<Event = E>>(
        &self,
        mem: &P,
        dst: u64,
        src: &[u8],
        mut queue_pinned: impl FnMut(u64, &StagingChunk<E>, usize) -> Result<()>,
        mut queue_and_wait: impl FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        for (i, piece) in src.chunks(STAGING_CHUNK).enumerate() {
            let at = dst + (i * STAGING_CHUNK) as u64;
            match self.acquire(mem)? {
                Some(chunk) => {
                    // SAFETY: the chunk is a pinned buffer of STAGING_CHUNK >= piece.len() bytes
                    // (`PinnedMemory` contract) owned by this thread until released, and its last
                    // copy has finished (`acquire`).
                    unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), chunk.host, piece.len()) };
                    let r = queue_pinned(at, &chunk, piece.len());
                    self.release(chunk);
                    r?;
                }
                None => queue_and_wait(at, piece)?,
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Events

/// `event` as the backend's own type `T`, or [`Error::Value`] for `op` saying that the
/// `what` (`event`, `end event`) does not belong to `backend` (`CUDA`, `HIP`).
pub fn downcast_event<'a, T: Any>(op: &str, what: &str, event: &'a dyn Event, backend: &str) -> Result<&'a T> {
    event
        .as_any()
        .downcast_ref::<T>()
        .ok_or_else(|| Error::value(op, format!("the {what} does not belong to the {backend} backend")))
}

/// The error of `elapsed_ms` when an event was created without timing.
pub fn untimed_event_error() -> Error {
    Error::value("elapsed_ms", "an event created without timing cannot be timed")
}

/// The error of `elapsed_ms` when an event has not completed.
pub fn incomplete_event_error() -> Error {
    Error::value("elapsed_ms", "an event has not completed yet; synchronize it first")
}

// ---------------------------------------------------------------------------------------------
// Devices

/// The devices of a backend opened so far, by ordinal: opening twice returns the same device.
pub struct DeviceRegistry<D> {
    devices: Mutex<Vec<(usize, Arc<D>)>>,
}

impl<D> Default for DeviceRegistry<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D> DeviceRegistry<D> {
    /// No device opened yet (usable in a `static`).
    pub const fn new() -> Self {
        DeviceRegistry { devices: Mutex::new(Vec::new()) }
    }

    /// The device `ordinal`, opened with `open` the first time. The registry is locked while
    /// `open` runs, so a device is opened once even when threads race.
    pub fn get_or_open(&self, ordinal: usize, open: impl FnOnce() -> Result<Arc<D>>) -> Result<Arc<D>> {
        let mut devices = self.devices.lock();
        if let Some((_, d)) = devices.iter().find(|(o, _)| *o == ordinal) {
            return Ok(Arc::clone(d));
        }
        let d = open()?;
        devices.push((ordinal, Arc::clone(&d)));
        Ok(d)
    }
}

// ---------------------------------------------------------------------------------------------
// Text

/// The text of a NUL-terminated log buffer written by a runtime compiler, without the NUL and
/// without trailing white space.
pub fn log_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};

    use super::*;
    use crate::launch::scalar_bytes;
    use crate::null::NullDevice;
    use crate::Device;

    /// Pinned memory on the host heap, with events that complete when told to.
    #[derive(Default)]
    struct FakePinned {
        buffers: RefCell<Vec<Vec<u8>>>,
        done: RefCell<Vec<bool>>,
        waits: Cell<usize>,
        no_pinned_memory: bool,
    }

    // SAFETY: the buffers are heap allocations kept (never shrunk) for the test's whole life;
    // the tests use one thread.
    unsafe impl PinnedMemory for FakePinned {
        type Event = usize;
        fn alloc_chunk(&self, bytes: usize) -> Result<(*mut u8, usize)> {
            if self.no_pinned_memory {
                return Err(Error::OutOfMemory { requested: bytes, in_use: 0, limit: 0 });
            }
            let mut b = self.buffers.borrow_mut();
            b.push(vec![0; bytes]);
            self.done.borrow_mut().push(true);
            Ok((b.last_mut().unwrap().as_mut_ptr(), b.len() - 1))
        }
        fn event_done(&self, event: usize) -> Result<bool> {
            Ok(self.done.borrow()[event])
        }
        fn event_wait(&self, event: usize) -> Result<()> {
            self.waits.set(self.waits.get() + 1);
            self.done.borrow_mut()[event] = true;
            Ok(())
        }
    }

    #[test]
    fn staged_copies_go_in_pieces_through_reused_chunks() {
        let mem = FakePinned::default();
        let staging = HostStaging::new();
        let src: Vec<u8> = (0..STAGING_CHUNK * 2 + 10).map(|i| (i % 251) as u8).collect();
        let mut queued = Vec::new();
        staging
            .copy_from_host(
                &mem,
                0x1000,
                &src,
                |at, chunk, len| {
                    // SAFETY: the chunk holds `len` bytes just copied from the source.
                    let bytes = unsafe { std::slice::from_raw_parts(chunk.host(), len) };
                    let start = (at - 0x1000) as usize;
                    assert_eq!(bytes, &src[start..start + len]);
                    mem.done.borrow_mut()[chunk.event()] = false; // the "DMA" is pending
                    queued.push((at, len, chunk.event()));
                    Ok(())
                },
                |_, _| panic!("staging is available"),
            )
            .unwrap();
        let want = vec![
            (0x1000, STAGING_CHUNK, 0),
            (0x1000 + STAGING_CHUNK as u64, STAGING_CHUNK, 1),
            (0x1000 + 2 * STAGING_CHUNK as u64, 10, 2),
        ];
        assert_eq!(queued, want);
        assert_eq!(staging.chunks(), 3);
        // A finished chunk is reused before a new one is made.
        mem.done.borrow_mut()[0] = true;
        let c = staging.acquire(&mem).unwrap().unwrap();
        assert_eq!(c.event(), 0);
        staging.release(c);
        assert_eq!(staging.chunks(), 3);
    }

    #[test]
    fn at_the_chunk_limit_the_oldest_chunk_is_waited_for() {
        let mem = FakePinned::default();
        let staging = HostStaging::new();
        for _ in 0..MAX_STAGING_CHUNKS {
            let c = staging.acquire(&mem).unwrap().unwrap();
            mem.done.borrow_mut()[c.event()] = false;
            staging.release(c);
        }
        let c = staging.acquire(&mem).unwrap().unwrap();
        assert_eq!((c.event(), mem.waits.get(), staging.chunks()), (0, 1, MAX_STAGING_CHUNKS));
    }

    #[test]
    fn without_pinned_memory_copies_go_straight_from_the_slice() {
        let mem = FakePinned { no_pinned_memory: true, ..Default::default() };
        let staging = HostStaging::new();
        let mut direct = Vec::new();
        staging
            .copy_from_host(
                &mem,
                0,
                &[7u8; 100],
                |_, _, _| panic!("no staging"),
                |at, p| {
                    direct.push((at, p.len()));
                    Ok(())
                },
            )
            .unwrap();
        assert_eq!(direct, vec![(0, 100)]);
        assert!(staging.is_disabled());
        assert!(staging.acquire(&mem).unwrap().is_none());
    }

    #[test]
    fn the_first_sticky_error_is_kept_and_refuses_later_calls() {
        let s = StickyError::new();
        assert!(s.refuse("a", |_| unreachable!()).is_ok());
        s.record("cuLaunchKernel", 700, "CUDA_ERROR_ILLEGAL_ADDRESS");
        s.record("cuMemFree", 719, "CUDA_ERROR_LAUNCH_FAILED");
        assert!(s.is_set());
        let e = s.refuse("cuMemAlloc", |p| format!("after {}", p.api)).unwrap_err();
        let Error::Driver { api, code, name, detail } = e else { panic!("{e:?}") };
        assert_eq!((api.as_str(), code, name.as_str()), ("cuMemAlloc", 700, "CUDA_ERROR_ILLEGAL_ADDRESS"));
        assert_eq!(detail, "after cuLaunchKernel");
    }

    #[test]
    fn packed_args_point_at_each_parameter_s_bytes() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let s: Arc<dyn Stream> = d.default_stream();
        let buf = d.memory_pool().alloc(64, &s).unwrap();
        let n = 42u32;
        let args = [KernelArg::Buffer { buffer: &buf, offset_bytes: 16 }, KernelArg::Value(scalar_bytes(&n))];
        let mut packed = Box::new(PackedArgs::new(&args)); // moving it keeps the pointers valid
        assert_eq!(packed.len(), 2);
        let p = packed.pointers_mut().to_vec();
        // SAFETY: the pointers point at 8 and 4 bytes owned by `packed`, which is alive.
        let (addr, value) = unsafe { (*(p[0] as *const u64), *(p[1] as *const u32)) };
        assert_eq!((addr, value), (buf.device_ptr() + 16, 42));
        assert!(PackedArgs::new(&[]).kernel_params().is_null());
    }

    #[test]
    fn launch_arguments_are_checked_against_sizes_device_and_range() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let other = NullDevice::new(1 << 20, None).unwrap();
        let s: Arc<dyn Stream> = d.default_stream();
        let ours = d.memory_pool().alloc(64, &s).unwrap();
        let theirs = other.memory_pool().alloc(64, &s).unwrap();
        let n = 1u32;
        let pool = d.memory_pool();
        let ok = [KernelArg::buffer(&ours), KernelArg::Value(scalar_bytes(&n))];
        assert!(check_launch_args("k", Some(&[8, 4]), pool, "null:0", &ok).is_ok());
        let e = check_launch_args("k", Some(&[8, 8]), pool, "null:0", &ok).unwrap_err();
        assert!(matches!(&e, Error::Launch { reason, .. } if reason.contains("parameter 1 is 8 bytes")), "{e}");
        let e = check_launch_args("k", Some(&[8]), pool, "null:0", &ok).unwrap_err();
        assert!(matches!(&e, Error::Launch { reason, .. } if reason.contains("takes 1 parameters")), "{e}");
        let e = check_launch_args("k", None, pool, "null:0", &[KernelArg::buffer(&theirs)]).unwrap_err();
        assert!(matches!(&e, Error::DeviceMismatch { op, lhs, .. } if op == "launch of `k`" && lhs == "null:0"), "{e}");
        let past_end = [KernelArg::Buffer { buffer: &ours, offset_bytes: 65 }];
        assert!(matches!(check_launch_args("k", None, pool, "null:0", &past_end), Err(Error::Index { .. })));
    }

    /// A kernel of a made-up GPU backend, loaded on device `ordinal`.
    #[derive(Debug)]
    struct FakeKernel {
        ordinal: usize,
        params: Vec<usize>,
    }

    impl Kernel for FakeKernel {
        fn name(&self) -> &str {
            "k"
        }
        fn num_params(&self) -> Option<usize> {
            Some(self.params.len())
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    impl GpuKernel for FakeKernel {
        fn device_ordinal(&self) -> usize {
            self.ordinal
        }
        fn param_sizes(&self) -> Option<&[usize]> {
            Some(&self.params)
        }
    }

    /// A kernel of another backend still.
    struct OtherKernel;

    impl Kernel for OtherKernel {
        fn name(&self) -> &str {
            "other"
        }
        fn num_params(&self) -> Option<usize> {
            None
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    #[test]
    fn launches_open_with_the_backend_s_kernel_of_this_device() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let s: Arc<dyn Stream> = d.default_stream();
        let buf = d.memory_pool().alloc(64, &s).unwrap();
        let target = GpuTarget {
            backend: "gpu",
            vendor: "GPU",
            ordinal: 0,
            label: "gpu:0",
            props: d.properties(),
            pool: d.memory_pool(),
        };
        let cfg = LaunchConfig::new(1, 32);
        let args = [KernelArg::buffer(&buf)];
        let ours = FakeKernel { ordinal: 0, params: vec![8] };
        let k: &FakeKernel = target.open_launch(&ours, &cfg, &args).unwrap();
        assert!(std::ptr::eq(k, &ours));
        let e = target.open_launch::<FakeKernel>(&OtherKernel, &cfg, &args).unwrap_err();
        assert_eq!(e.to_string(), "launch of kernel `other` rejected: the kernel was not compiled by the GPU backend");
        let elsewhere = FakeKernel { ordinal: 1, params: vec![8] };
        let e = target.open_launch::<FakeKernel>(&elsewhere, &cfg, &args).unwrap_err();
        assert!(
            matches!(&e, Error::DeviceMismatch { op, lhs, rhs } if op == "launch of `k`" && lhs == "gpu:0" && rhs == "gpu:1"),
            "{e}"
        );
        let too_big = LaunchConfig::new(1, d.properties().max_threads_per_block + 1);
        assert!(matches!(target.open_launch::<FakeKernel>(&ours, &too_big, &args), Err(Error::Launch { .. })));
        let e = target.open_launch::<FakeKernel>(&ours, &cfg, &[]).unwrap_err();
        assert!(matches!(&e, Error::Launch { reason, .. } if reason.contains("takes 1 parameters")), "{e}");
    }

    #[test]
    fn copies_open_with_ranges_inside_buffers_of_this_device() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let other = NullDevice::new(1 << 20, None).unwrap();
        let s: Arc<dyn Stream> = d.default_stream();
        let (a, b) = (d.memory_pool().alloc(64, &s).unwrap(), d.memory_pool().alloc(64, &s).unwrap());
        let theirs = other.memory_pool().alloc(64, &s).unwrap();
        let target = GpuTarget {
            backend: "gpu",
            vendor: "GPU",
            ordinal: 0,
            label: "gpu:0",
            props: d.properties(),
            pool: d.memory_pool(),
        };
        assert!(target.open_host_copy("copy_to_host", &a, 32, 32).unwrap());
        assert!(!target.open_host_copy("copy_to_host", &a, 64, 0).unwrap());
        let e = target.open_host_copy("copy_from_host", &a, 33, 32).unwrap_err();
        assert!(matches!(&e, Error::Index { op, .. } if op == "copy_from_host"), "{e}");
        let e = target.open_host_copy("copy_from_host", &theirs, 0, 8).unwrap_err();
        assert!(matches!(&e, Error::DeviceMismatch { op, lhs, .. } if op == "copy_from_host" && lhs == "gpu:0"), "{e}");
        assert!(target.open_device_copy(&a, 0, &b, 32, 32).unwrap());
        assert!(!target.open_device_copy(&a, 0, &b, 0, 0).unwrap());
        assert!(matches!(target.open_device_copy(&a, 0, &b, 40, 32), Err(Error::Index { .. })));
        let e = target.open_device_copy(&a, 0, &theirs, 0, 8).unwrap_err();
        assert!(matches!(&e, Error::DeviceMismatch { op, .. } if op == "copy_device"), "{e}");
    }

    #[test]
    fn a_device_is_opened_once() {
        let r: DeviceRegistry<usize> = DeviceRegistry::new();
        let opened = Cell::new(0);
        let open = || {
            opened.set(opened.get() + 1);
            Ok(Arc::new(opened.get()))
        };
        let a = r.get_or_open(3, open).unwrap();
        let b = r.get_or_open(3, || panic!("already open")).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(r.get_or_open(4, || Err(Error::value("open", "no such device"))).is_err());
        assert!(r.get_or_open(4, open).is_ok());
        assert_eq!(opened.get(), 2);
    }

    #[test]
    fn logs_end_at_the_nul_without_trailing_space() {
        assert_eq!(log_text(b"line 1: error\n\n\0garbage"), "line 1: error");
        assert_eq!(log_text(b"no nul "), "no nul");
    }

    #[test]
    fn events_of_another_backend_are_refused_by_name() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let ev = d.default_stream().record_event().unwrap();
        let e = downcast_event::<u8>("wait_event", "event", &*ev, "HIP").unwrap_err();
        assert_eq!(e.to_string(), "wait_event: the event does not belong to the HIP backend");
    }
}
