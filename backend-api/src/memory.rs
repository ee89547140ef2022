//! Untyped device buffers and the stream-ordered memory pool every backend shares.
//!
//! # The pool
//! Requests are rounded up to 512 bytes. Blocks are carved from segments that the backend's
//! [`RawMemory`] allocates (2 MiB for small requests, the rounded request for large ones); a
//! request takes the smallest free block that fits (best fit), splitting off the rest, and a
//! freed block merges with its free neighbours in the same segment.
//!
//! # Stream order
//! A buffer remembers every stream it was used on. When it is dropped its block goes back to
//! the pool at once, fenced by those streams: reusing it on one of them is safe because streams
//! run in order; reusing it on another stream first makes that stream wait for an event
//! recorded on each fencing stream, so a kernel still reading the old contents finishes first.
//! Nothing here blocks the host.
//!
//! # Limits and failure
//! A limit (bytes) caps the bytes the pool holds from the backend. When a new segment would
//! pass the limit, or the backend itself fails, the pool releases its cached (wholly free)
//! segments and tries once more before returning [`Error::OutOfMemory`]. The pool can be
//! switched off (`XP_MEMORY_POOL=off`): then every buffer is its own allocation and is freed to
//! the backend when dropped (after its streams finish), so memory checkers see each one.
//!
//! # The user API
//! The pool answers to CuPy's names, so that seed programs read the same: `used_bytes` (live
//! buffers), `total_bytes` (used plus cached), `free_bytes`, `n_free_blocks`,
//! `free_all_blocks` (cached segments go back to the device once their streams finish, as
//! [`MemoryPool::free_all_cached`] does), `set_limit` / `get_limit`. As in CuPy,
//! `set_limit(0)` removes the limit and `get_limit()` is `0` when there is none; a limit below
//! what the pool holds frees nothing by itself, it refuses later growth.
//!
//! # Stream capture
//! While a stream captures work into a graph ([`MemoryPool::begin_capture`]), the pool gives
//! that stream's allocations a private part: segments of their own, carved in order and never
//! entered in the free list, so that no block that other work freed (and that other streams
//! may still use) enters the graph. Every block the captured work touches (allocated during
//! the capture or before it, noted by [`Buffer::note_use`]) is *held* when its buffer is
//! dropped: it stays out of reuse while the graph lives, since each replay reads and writes
//! it again. Dropping the [`CaptureMemory`] (with the graph, or at once when the capture
//! failed) gives the private segments' free space and the held blocks back to the pool, fenced
//! by the streams the graph was launched on. So memory freed inside a capture is never handed
//! to other work and clobbered by a replay, and a failed capture leaks nothing.
//!
//! # Foreign memory
//! [`Buffer::foreign`] wraps memory that another library allocated (a DLPack tensor, a cudarc
//! allocation, a host array) with an owner value. Such a buffer never enters the pool: the
//! pool's counters, segments and free lists do not see it, and its drop does not release a
//! block. When the last xp reference goes, the streams that used the buffer are synchronised
//! (the foreign allocator knows nothing of xp's streams, so its memory must be idle before it
//! is given back) and the owner is dropped, which runs the foreign deleter exactly once.
//!
//! # Pinned host memory
//! [`PinnedMemoryPool`] caches page-locked host blocks by size class for fast copies, with the
//! same user API; each device has one (`Device::pinned_memory_pool`). See [`pinned`].

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::device::Stream;
use crate::{Error, Result};

/// Limits are parsed with the other `XP_*` values; kept here, where the pool's users look.
pub use crate::env::parse_limit;

pub mod pinned;

pub use pinned::{pinned_size_class, PageAlignedMemory, PinnedBuffer, PinnedMemoryPool, RawHostMemory};

/// Allocation granularity of the pool.
pub const ALIGNMENT: usize = 512;
const SMALL_SEGMENT: usize = 2 << 20;
const SMALL_REQUEST: usize = 1 << 20;

/// The backend's raw allocator under the pool.
pub trait RawMemory: Send + Sync {
    /// Allocate `bytes`; on failure return [`Error::OutOfMemory`] (or a driver error).
    fn alloc(&self, bytes: usize) -> Result<u64>;
    /// Free an address returned by `alloc`.
    ///
    /// # Safety
    /// `ptr` came from `alloc` of this allocator, is freed once, and no work uses it any more.
    unsafe fn free(&self, ptr: u64, bytes: usize) -> Result<()>;
    /// Total memory of the device, for limits given as a percentage.
    fn total_memory(&self) -> usize;
}

/// Counters of a pool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes in live buffers (rounded to the pool's granularity).
    pub in_use: usize,
    /// Bytes the pool holds from the backend but no buffer uses.
    pub cached: usize,
    /// Largest `in_use` seen.
    pub peak: usize,
    /// Live buffers.
    pub blocks: usize,
    /// Segments held from the backend.
    pub segments: usize,
}

struct Block {
    size: usize,
    free: bool,
    /// Streams that may still use the block's old contents (free blocks only).
    fences: Vec<Arc<dyn Stream>>,
}

struct Segment {
    size: usize,
    blocks: BTreeMap<usize, Block>,
}

#[derive(Default)]
struct PoolState {
    segments: BTreeMap<u64, Segment>,
    /// (size, address) of every free block.
    free: BTreeSet<(usize, u64)>,
    in_use: usize,
    reserved: usize,
    peak: usize,
    blocks: usize,
    /// Capturing streams (by id) and their capture's id.
    capturing: HashMap<u64, u64>,
    /// The memory of each live capture or graph, by capture id.
    books: HashMap<u64, CaptureBook>,
}

/// A block freed while a graph that replays it lives: (address, size, fences).
type HeldBlock = (u64, usize, Vec<Arc<dyn Stream>>);

/// What the pool keeps for one capture and the graph made from it (module docs).
#[derive(Default)]
struct CaptureBook {
    /// Addresses of live blocks the captured work touched (held when they are freed).
    used: HashSet<u64>,
    /// Bases of the capture's private segments, the last one being carved.
    private: Vec<u64>,
    /// Blocks freed while the graph lives: (address, size, fences).
    held: Vec<HeldBlock>,
}

/// A stream-ordered, best-fit memory pool over a backend's [`RawMemory`].
pub struct MemoryPool {
    raw: Arc<dyn RawMemory>,
    state: Mutex<PoolState>,
    limit: Mutex<usize>,
    enabled: bool,
    label: String,
    deferred: Mutex<Option<Error>>,
    /// Live captures and graphs (`books.len()`), read without the lock on every allocation.
    captures: AtomicUsize,
}

impl fmt::Debug for MemoryPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryPool").field("device", &self.label).field("stats", &self.stats()).finish()
    }
}

fn round_up(n: usize, to: usize) -> Option<usize> {
    n.checked_add(to - 1).map(|v| v / to * to)
}

impl MemoryPool {
    /// A pool over `raw`. `label` names the device in messages. The limit comes from
    /// `limit_env` (bytes or a percentage; `0` for none) when that variable is set, else is
    /// unlimited; the pool is off when `XP_MEMORY_POOL=off`. A bad value of either variable is
    /// an error naming it ([`crate::env`]).
    pub fn new(raw: Arc<dyn RawMemory>, label: impl Into<String>, limit_env: &str) -> Result<Arc<Self>> {
        let total = raw.total_memory();
        let limit = crate::env::limit(limit_env, total)?.unwrap_or(usize::MAX);
        let enabled = crate::env::switch("XP_MEMORY_POOL", true)?;
        Ok(Arc::new(MemoryPool {
            raw,
            state: Mutex::new(PoolState::default()),
            limit: Mutex::new(limit),
            enabled,
            label: label.into(),
            deferred: Mutex::new(None),
            captures: AtomicUsize::new(0),
        }))
    }

    /// Keep the first error met where it cannot be returned (in a destructor).
    pub fn record_deferred(&self, e: Error) {
        self.deferred.lock().get_or_insert(e);
    }

    /// The error recorded by a destructor since the last call, if any; synchronising calls
    /// of the device return it.
    pub fn take_deferred_error(&self) -> Option<Error> {
        self.deferred.lock().take()
    }

    /// [`take_deferred_error`](Self::take_deferred_error) as a result: what a synchronising
    /// call returns once its own work succeeded.
    pub fn deferred_result(&self) -> Result<()> {
        match self.take_deferred_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Keep the error of `r`, if any, for the next synchronising call (for destructors).
    pub fn defer(&self, r: Result<()>) {
        if let Err(e) = r {
            self.record_deferred(e);
        }
    }

    /// The device's name in messages (`cuda:0`, `hip:1`, `cpu`).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Whether blocks are cached and reused (false with `XP_MEMORY_POOL=off`).
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The limit in bytes (`usize::MAX` when unlimited).
    pub fn limit(&self) -> usize {
        *self.limit.lock()
    }

    /// Set the limit in bytes; `0` or `usize::MAX` removes it, as CuPy's `set_limit(size=0)`
    /// does. Memory already held is kept: a lower limit only refuses later growth (call
    /// [`free_all_blocks`](Self::free_all_blocks) to give cached memory back).
    pub fn set_limit(&self, bytes: usize) {
        *self.limit.lock() = if bytes == 0 { usize::MAX } else { bytes };
    }

    /// Set the limit to `fraction` (0 to 1) of the device's memory, as CuPy's
    /// `set_limit(fraction=…)`; `0.0` removes the limit.
    pub fn set_limit_fraction(&self, fraction: f64) -> Result<()> {
        if !(0.0..=1.0).contains(&fraction) {
            return Err(Error::value("memory pool", format!("limit fraction {fraction} is not between 0 and 1")));
        }
        self.set_limit((self.raw.total_memory() as f64 * fraction) as usize);
        Ok(())
    }

    /// The limit in bytes, `0` when there is none (CuPy's `get_limit`).
    pub fn get_limit(&self) -> usize {
        match self.limit() {
            usize::MAX => 0,
            l => l,
        }
    }

    /// Bytes held by live buffers, rounded to the pool's granularity (CuPy's `used_bytes`).
    pub fn used_bytes(&self) -> usize {
        self.state.lock().in_use
    }

    /// Bytes the pool holds from the device: used plus cached (CuPy's `total_bytes`).
    pub fn total_bytes(&self) -> usize {
        self.state.lock().reserved
    }

    /// Bytes held from the device that no buffer uses (CuPy's `free_bytes`).
    pub fn free_bytes(&self) -> usize {
        let s = self.state.lock();
        s.reserved - s.in_use
    }

    /// Free blocks waiting for reuse (CuPy's `n_free_blocks`).
    pub fn n_free_blocks(&self) -> usize {
        self.state.lock().free.len()
    }

    /// Give every wholly free segment back to the device, each once the streams that used it
    /// have finished (CuPy's `free_all_blocks`). A segment that still holds a live buffer stays.
    pub fn free_all_blocks(&self) -> Result<()> {
        self.free_all_cached().map(|_| ())
    }

    /// Current counters.
    pub fn stats(&self) -> PoolStats {
        let s = self.state.lock();
        PoolStats {
            in_use: s.in_use,
            cached: s.reserved - s.in_use,
            peak: s.peak,
            blocks: s.blocks,
            segments: s.segments.len(),
        }
    }

    /// Allocate a buffer of `bytes` for use on `stream`.
    pub fn alloc(self: &Arc<Self>, bytes: usize, stream: &Arc<dyn Stream>) -> Result<Buffer> {
        let size = round_up(bytes.max(1), ALIGNMENT).ok_or(Error::OutOfMemory {
            requested: bytes,
            in_use: self.stats().in_use,
            limit: self.limit(),
        })?;
        let capture = if self.captures.load(Ordering::Acquire) > 0 { self.capture_of(stream) } else { None };
        let ptr = if let Some(id) = capture {
            self.alloc_captured(size, id)?
        } else if self.enabled {
            self.alloc_pooled(size, stream)?
        } else {
            self.alloc_unpooled(size)?
        };
        Ok(Buffer {
            ptr,
            bytes,
            size,
            pool: Arc::clone(self),
            streams: Mutex::new(vec![Arc::clone(stream)]),
            owner: None,
        })
    }

    fn oom(&self, requested: usize) -> Error {
        Error::OutOfMemory { requested, in_use: self.state.lock().in_use, limit: self.limit() }
    }

    fn alloc_unpooled(&self, size: usize) -> Result<u64> {
        {
            let s = self.state.lock();
            if s.reserved.saturating_add(size) > self.limit() {
                return Err(Error::OutOfMemory { requested: size, in_use: s.in_use, limit: self.limit() });
            }
        }
        let ptr = self.raw.alloc(size)?;
        let mut s = self.state.lock();
        s.reserved += size;
        s.in_use += size;
        s.peak = s.peak.max(s.in_use);
        s.blocks += 1;
        Ok(ptr)
    }

    /// A new segment for a block of `size` bytes, its base: a small request gets a
    /// [`SMALL_SEGMENT`], a larger one its size rounded up to it. When the device is out of
    /// memory, the cached blocks are given back and the exact size is tried once more.
    fn grow(&self, size: usize) -> Result<u64> {
        let seg_size = if size <= SMALL_REQUEST {
            SMALL_SEGMENT
        } else {
            round_up(size, SMALL_SEGMENT).ok_or_else(|| self.oom(size))?
        };
        match self.new_segment(seg_size, size) {
            Ok(b) => Ok(b),
            Err(Error::OutOfMemory { .. }) => {
                self.free_all_cached()?;
                self.new_segment(size, size).map_err(|e| match e {
                    Error::OutOfMemory { .. } => self.oom(size),
                    other => other,
                })
            }
            Err(e) => Err(e),
        }
    }

    fn alloc_pooled(&self, size: usize, stream: &Arc<dyn Stream>) -> Result<u64> {
        if let Some(ptr) = self.take_free(size, stream)? {
            return Ok(ptr);
        }
        let base = self.grow(size)?;
        let mut s = self.state.lock();
        let seg_len = s.segments[&base].size;
        if seg_len > size {
            let seg = s.segments.get_mut(&base).expect("segment just inserted");
            seg.blocks.insert(size, Block { size: seg_len - size, free: true, fences: Vec::new() });
            s.free.insert((seg_len - size, base + size as u64));
        }
        s.in_use += size;
        s.peak = s.peak.max(s.in_use);
        s.blocks += 1;
        Ok(base)
    }

    /// Allocate a segment of `seg_size` whose first block (`first` bytes) is taken.
    fn new_segment(&self, seg_size: usize, first: usize) -> Result<u64> {
        {
            let s = self.state.lock();
            if s.reserved.saturating_add(seg_size) > self.limit() {
                return Err(Error::OutOfMemory { requested: first, in_use: s.in_use, limit: self.limit() });
            }
        }
        let base = self.raw.alloc(seg_size)?;
        let mut s = self.state.lock();
        s.reserved += seg_size;
        let mut blocks = BTreeMap::new();
        blocks.insert(0, Block { size: first, free: false, fences: Vec::new() });
        s.segments.insert(base, Segment { size: seg_size, blocks });
        Ok(base)
    }

    fn take_free(&self, size: usize, stream: &Arc<dyn Stream>) -> Result<Option<u64>> {
        let mut s = self.state.lock();
        let found = if s.capturing.is_empty() {
            s.free.range((size, 0)..).next().copied()
        } else {
            // A block that a capturing stream used is left alone while it captures: ordering
            // after that stream would record an event into its capture.
            let st = &*s;
            st.free.range((size, 0)..).copied().find(|&(_, addr)| !fenced_by_capture(st, addr))
        };
        let Some((bsize, addr)) = found else {
            return Ok(None);
        };
        s.free.remove(&(bsize, addr));
        let (base, seg) = s.segments.range_mut(..=addr).next_back().expect("free block has a segment");
        let base = *base;
        let off = (addr - base) as usize;
        let block = seg.blocks.get_mut(&off).expect("free block is indexed");
        block.free = false;
        let fences = std::mem::take(&mut block.fences);
        // Sizes are multiples of ALIGNMENT, so any rest is a usable block.
        if bsize > size {
            block.size = size;
            seg.blocks.insert(off + size, Block { size: bsize - size, free: true, fences: fences.clone() });
            s.free.insert((bsize - size, addr + size as u64));
        }
        s.in_use += size;
        s.peak = s.peak.max(s.in_use);
        s.blocks += 1;
        drop(s);
        // Stream order: work on other streams that may still touch the old contents must
        // finish before `stream` uses the block.
        for f in fences.iter().filter(|f| f.id() != stream.id()) {
            let ev = f.record_event()?;
            stream.wait_event(&*ev)?;
        }
        Ok(Some(addr))
    }

    fn release(&self, ptr: u64, size: usize, fences: Vec<Arc<dyn Stream>>) {
        if self.captures.load(Ordering::Acquire) > 0 {
            let mut s = self.state.lock();
            if let Some(book) = s.books.values_mut().find(|b| b.used.contains(&ptr)) {
                // A block a graph replays stays out of reuse while the graph lives.
                book.used.remove(&ptr);
                book.held.push((ptr, size, fences));
                return;
            }
        }
        if !self.enabled {
            for f in &fences {
                if let Err(e) = f.synchronize() {
                    self.record_deferred(e);
                }
            }
            // SAFETY: `ptr` came from `alloc_unpooled` of this pool's allocator with `size`
            // bytes, the buffer owning it is being dropped, and its streams were synchronised.
            if let Err(e) = unsafe { self.raw.free(ptr, size) } {
                self.record_deferred(e);
            }
            let mut s = self.state.lock();
            s.reserved -= size;
            s.in_use -= size;
            s.blocks -= 1;
            return;
        }
        let mut s = self.state.lock();
        let (base, seg) = s.segments.range_mut(..=ptr).next_back().expect("buffer has a segment");
        let base = *base;
        let mut off = (ptr - base) as usize;
        let mut block = seg.blocks.remove(&off).expect("buffer block is in its segment");
        let released = block.size;
        block.free = true;
        // A live block may carry fences already: the streams a graph using it was launched on.
        let mut fences = fences;
        merge_fences(&mut fences, std::mem::take(&mut block.fences));
        block.fences = fences;
        let mut remove_from_index = Vec::new();
        // Merge with the next block.
        let next_off = off + block.size;
        if seg.blocks.get(&next_off).is_some_and(|b| b.free) {
            let next = seg.blocks.remove(&next_off).expect("checked");
            remove_from_index.push((next.size, base + next_off as u64));
            block.size += next.size;
            merge_fences(&mut block.fences, next.fences);
        }
        // Merge with the previous block.
        if let Some((&prev_off, prev)) = seg.blocks.range(..off).next_back() {
            if prev.free && prev_off + prev.size == off {
                let prev = seg.blocks.remove(&prev_off).expect("checked");
                remove_from_index.push((prev.size, base + prev_off as u64));
                block.size += prev.size;
                merge_fences(&mut block.fences, prev.fences);
                off = prev_off;
            }
        }
        let new_size = block.size;
        seg.blocks.insert(off, block);
        for k in remove_from_index {
            s.free.remove(&k);
        }
        s.free.insert((new_size, base + off as u64));
        s.in_use -= released;
        s.blocks -= 1;
    }

    /// Return every wholly free segment to the backend (after the streams that used it
    /// finish). Returns the bytes released.
    pub fn free_all_cached(&self) -> Result<usize> {
        let victims: Vec<(u64, Segment)> = {
            let mut s = self.state.lock();
            let bases: Vec<u64> = s
                .segments
                .iter()
                .filter(|(_, seg)| seg.blocks.len() == 1 && seg.blocks.values().all(|b| b.free))
                .map(|(b, _)| *b)
                .filter(|b| s.capturing.is_empty() || !fenced_by_capture(&s, *b))
                .collect();
            let mut out = Vec::new();
            for b in bases {
                let seg = s.segments.remove(&b).expect("listed");
                s.free.remove(&(seg.size, b));
                s.reserved -= seg.size;
                out.push((b, seg));
            }
            out
        };
        let mut released = 0;
        let mut first_err = None;
        for (base, seg) in victims {
            for b in seg.blocks.values() {
                for f in &b.fences {
                    if let Err(e) = f.synchronize() {
                        first_err.get_or_insert(e);
                    }
                }
            }
            // SAFETY: the segment came from `self.raw.alloc(seg.size)`, it has no live block, it
            // was removed from the pool above so it is freed once, and its streams finished.
            if let Err(e) = unsafe { self.raw.free(base, seg.size) } {
                first_err.get_or_insert(e);
            }
            released += seg.size;
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(released),
        }
    }
}

static NEXT_CAPTURE: AtomicU64 = AtomicU64::new(1);

impl MemoryPool {
    /// Start giving `stream`'s allocations from a capture-private part of the pool and
    /// holding the blocks its work touches (module docs). The stream's backend starts its own
    /// capture besides; the returned [`CaptureMemory`] lives as long as the graph (or is
    /// dropped at once when the capture fails). [`Error::Value`] when the stream already
    /// captures.
    pub fn begin_capture(self: &Arc<Self>, stream: &Arc<dyn Stream>) -> Result<CaptureMemory> {
        let id = NEXT_CAPTURE.fetch_add(1, Ordering::Relaxed);
        let mut s = self.state.lock();
        if s.capturing.contains_key(&stream.id()) {
            return Err(Error::value("begin_capture", "the stream is already capturing"));
        }
        s.capturing.insert(stream.id(), id);
        s.books.insert(id, CaptureBook::default());
        self.captures.store(s.books.len(), Ordering::Release);
        Ok(CaptureMemory { pool: Arc::clone(self), id, stream: stream.id(), launches: Mutex::new(Vec::new()) })
    }

    /// Captures in progress and graphs alive whose memory the pool keeps.
    pub fn live_captures(&self) -> usize {
        self.state.lock().books.len()
    }

    /// The capture `stream` is in, if any.
    fn capture_of(&self, stream: &Arc<dyn Stream>) -> Option<u64> {
        self.state.lock().capturing.get(&stream.id()).copied()
    }

    /// Note that work queued on the stream `stream_id` touches the block at `ptr`.
    fn note_capture_use(&self, ptr: u64, stream_id: u64) {
        let mut s = self.state.lock();
        if let Some(&id) = s.capturing.get(&stream_id) {
            if let Some(book) = s.books.get_mut(&id) {
                book.used.insert(ptr);
            }
        }
    }

    /// A block of `size` for the capturing stream: carved from the capture's last private
    /// segment, else from a new one; never from the free list.
    fn alloc_captured(&self, size: usize, id: u64) -> Result<u64> {
        if !self.enabled {
            let ptr = self.alloc_unpooled(size)?;
            self.book_new_block(ptr, id);
            return Ok(ptr);
        }
        {
            let mut s = self.state.lock();
            let s = &mut *s;
            let last = s.books.get(&id).and_then(|b| b.private.last().copied());
            if let Some(base) = last {
                let seg = s.segments.get_mut(&base).expect("a private segment is in the pool");
                if let Some((&off, tail)) = seg.blocks.iter().next_back() {
                    if tail.free && tail.size >= size {
                        let rest = tail.size - size;
                        seg.blocks.insert(off, Block { size, free: false, fences: Vec::new() });
                        if rest > 0 {
                            seg.blocks.insert(off + size, Block { size: rest, free: true, fences: Vec::new() });
                        }
                        s.in_use += size;
                        s.peak = s.peak.max(s.in_use);
                        s.blocks += 1;
                        let ptr = base + off as u64;
                        if let Some(b) = s.books.get_mut(&id) {
                            b.used.insert(ptr);
                        }
                        return Ok(ptr);
                    }
                }
            }
        }
        let base = self.grow(size)?;
        let mut s = self.state.lock();
        let seg_len = s.segments[&base].size;
        if seg_len > size {
            // The rest is carved by later allocations of the capture; it is not in the free list.
            let seg = s.segments.get_mut(&base).expect("segment just inserted");
            seg.blocks.insert(size, Block { size: seg_len - size, free: true, fences: Vec::new() });
        }
        s.in_use += size;
        s.peak = s.peak.max(s.in_use);
        s.blocks += 1;
        // The graph may have been dropped meanwhile (another thread): then the segment is an
        // ordinary one and its rest goes to the free list at once.
        match s.books.get_mut(&id) {
            Some(book) => {
                book.used.insert(base);
                book.private.push(base);
            }
            None => {
                if seg_len > size {
                    s.free.insert((seg_len - size, base + size as u64));
                }
            }
        }
        Ok(base)
    }

    /// Enter a block just allocated for capture `id` in its book.
    fn book_new_block(&self, ptr: u64, id: u64) {
        if let Some(b) = self.state.lock().books.get_mut(&id) {
            b.used.insert(ptr);
        }
    }

    /// Give a finished capture's memory back (module docs): the private segments' free rest
    /// and the held blocks, fenced by `launches`; live blocks it used carry `launches` as
    /// fences for when they are freed.
    fn release_capture(&self, id: u64, launches: Vec<Arc<dyn Stream>>) {
        let book = {
            let mut s = self.state.lock();
            s.capturing.retain(|_, c| *c != id);
            let b = s.books.remove(&id);
            self.captures.store(s.books.len(), Ordering::Release);
            b
        };
        let Some(book) = book else { return };
        if !self.enabled {
            // Unpooled buffers are freed to the backend at once: wait for the graph's launches.
            for f in &launches {
                if let Err(e) = f.synchronize() {
                    self.record_deferred(e);
                }
            }
        } else {
            let mut s = self.state.lock();
            let s = &mut *s;
            for base in &book.private {
                if let Some(seg) = s.segments.get_mut(base) {
                    if let Some((&off, tail)) = seg.blocks.iter().next_back() {
                        if tail.free {
                            s.free.insert((tail.size, base + off as u64));
                        }
                    }
                }
            }
            for ptr in &book.used {
                if let Some((base, seg)) = s.segments.range_mut(..=*ptr).next_back() {
                    if let Some(b) = seg.blocks.get_mut(&((*ptr - *base) as usize)) {
                        if !b.free {
                            merge_fences(&mut b.fences, launches.clone());
                        }
                    }
                }
            }
        }
        for (ptr, size, mut fences) in book.held {
            merge_fences(&mut fences, launches.clone());
            self.release(ptr, size, fences);
        }
    }
}

/// The memory of one stream capture and of the graph made from it: while it lives, the blocks
/// the captured work touched stay out of reuse (see the module docs). Dropping it gives them
/// back, fenced by the streams passed to [`note_launch`](Self::note_launch).
pub struct CaptureMemory {
    pool: Arc<MemoryPool>,
    id: u64,
    stream: u64,
    launches: Mutex<Vec<Arc<dyn Stream>>>,
}

impl fmt::Debug for CaptureMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CaptureMemory({} on {})", self.id, self.pool.label)
    }
}

impl CaptureMemory {
    /// The capture has ended: later allocations of its stream come from the pool as before.
    /// The blocks it touched stay held while `self` lives.
    pub fn end(&self) {
        let mut s = self.pool.state.lock();
        if s.capturing.get(&self.stream) == Some(&self.id) {
            s.capturing.remove(&self.stream);
        }
    }

    /// Note that the graph was launched on `stream`: its memory goes back after that work.
    pub fn note_launch(&self, stream: &Arc<dyn Stream>) {
        let mut l = self.launches.lock();
        if !l.iter().any(|t| t.id() == stream.id()) {
            l.push(Arc::clone(stream));
        }
    }

    /// Bytes of blocks held for the graph: freed by their buffers, kept for its replays.
    pub fn held_bytes(&self) -> usize {
        let s = self.pool.state.lock();
        s.books.get(&self.id).map_or(0, |b| b.held.iter().map(|h| h.1).sum())
    }

    /// The pool it belongs to.
    pub fn pool(&self) -> &Arc<MemoryPool> {
        &self.pool
    }
}

impl Drop for CaptureMemory {
    fn drop(&mut self) {
        let launches = std::mem::take(self.launches.get_mut());
        self.pool.release_capture(self.id, launches);
    }
}

/// Whether the free block at `addr` is fenced by a stream that is capturing.
fn fenced_by_capture(s: &PoolState, addr: u64) -> bool {
    let Some((base, seg)) = s.segments.range(..=addr).next_back() else { return false };
    seg.blocks
        .get(&((addr - base) as usize))
        .is_some_and(|b| b.fences.iter().any(|f| s.capturing.contains_key(&f.id())))
}

fn merge_fences(into: &mut Vec<Arc<dyn Stream>>, from: Vec<Arc<dyn Stream>>) {
    for f in from {
        if !into.iter().any(|g| g.id() == f.id()) {
            into.push(f);
        }
    }
}

/// An untyped allocation on a device. Dropping it returns the memory to the pool in stream
/// order (see the module docs).
pub struct Buffer {
    ptr: u64,
    bytes: usize,
    size: usize,
    pool: Arc<MemoryPool>,
    streams: Mutex<Vec<Arc<dyn Stream>>>,
    /// The owner of foreign memory ([`Buffer::foreign`]); `None` for the pool's own blocks.
    owner: Option<Box<dyn std::any::Any + Send + Sync>>,
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Buffer({:#x}, {} bytes on {})", self.ptr, self.bytes, self.pool.label)
    }
}

impl Buffer {
    /// A buffer over `bytes` of memory at `ptr` that another allocator owns, used first on
    /// `stream`. `owner` is dropped (running the foreign deleter) when the buffer is, after the
    /// streams that used the buffer have finished; the pool never sees the memory (see the
    /// module docs). `pool` is the pool of the device the memory belongs to, so that the
    /// device's checks ([`Buffer::check_pool`]) accept the buffer.
    ///
    /// # Safety
    /// `ptr..ptr + bytes` is memory of `pool`'s device (device memory on a GPU backend, host
    /// memory on the CPU backend) that stays valid, and is written by nothing but xp's streams
    /// (or work ordered with them), until `owner` is dropped.
    pub unsafe fn foreign(
        pool: &Arc<MemoryPool>,
        ptr: u64,
        bytes: usize,
        stream: &Arc<dyn Stream>,
        owner: Box<dyn std::any::Any + Send + Sync>,
    ) -> Buffer {
        Buffer {
            ptr,
            bytes,
            size: bytes,
            pool: Arc::clone(pool),
            streams: Mutex::new(vec![Arc::clone(stream)]),
            owner: Some(owner),
        }
    }

    /// Whether the memory belongs to another allocator ([`Buffer::foreign`]).
    pub fn is_foreign(&self) -> bool {
        self.owner.is_some()
    }

    /// Record an event on every stream that has used the buffer so far: a consumer outside xp
    /// waits for them on its own stream (on the device, not the host) before it touches the
    /// memory.
    pub fn record_user_events(&self) -> Result<Vec<Arc<dyn crate::device::Event>>> {
        let users: Vec<Arc<dyn Stream>> = self.streams.lock().iter().map(Arc::clone).collect();
        users.iter().map(|s| s.record_event()).collect()
    }

    /// Block the host until the work every stream has queued on this buffer has finished.
    pub fn synchronize_users(&self) -> Result<()> {
        let users: Vec<Arc<dyn Stream>> = self.streams.lock().iter().map(Arc::clone).collect();
        for s in users {
            s.synchronize()?;
        }
        Ok(())
    }

    /// The device address of the first byte (a host address on the CPU backend).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// Bytes requested.
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// Whether zero bytes were requested.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The pool it belongs to.
    pub fn pool(&self) -> &Arc<MemoryPool> {
        &self.pool
    }

    /// Note that work on `stream` uses this buffer (launches and copies do this).
    pub fn note_use(&self, stream: &Arc<dyn Stream>) {
        let mut s = self.streams.lock();
        if !s.iter().any(|t| t.id() == stream.id()) {
            s.push(Arc::clone(stream));
        }
        drop(s);
        if self.pool.captures.load(Ordering::Acquire) > 0 {
            self.pool.note_capture_use(self.ptr, stream.id());
        }
    }

    /// Order `stream` after the work every other stream has queued on this buffer so far: an
    /// event recorded on each, waited for on `stream` (no host wait). A read on `stream` then
    /// sees finished work whichever stream wrote the buffer.
    pub fn order_after_users(&self, stream: &Arc<dyn Stream>) -> Result<()> {
        let others: Vec<Arc<dyn Stream>> =
            self.streams.lock().iter().filter(|s| s.id() != stream.id()).map(Arc::clone).collect();
        for s in others {
            let done = s.record_event()?;
            stream.wait_event(&*done)?;
        }
        Ok(())
    }

    /// Whether the buffer came from `pool`.
    pub fn is_from(&self, pool: &MemoryPool) -> bool {
        std::ptr::eq(Arc::as_ptr(&self.pool), pool)
    }

    /// [`Error::DeviceMismatch`] for `op` unless the buffer came from `pool`, the pool of the
    /// device named `device_label`.
    pub fn check_pool(&self, op: &str, pool: &MemoryPool, device_label: &str) -> Result<()> {
        if self.is_from(pool) {
            Ok(())
        } else {
            Err(Error::DeviceMismatch { op: op.to_string(), lhs: device_label.to_string(), rhs: format!("{self:?}") })
        }
    }

    /// Check that `offset + bytes` lies inside the buffer.
    pub fn check_range(&self, op: &str, offset: usize, bytes: usize) -> Result<()> {
        match offset.checked_add(bytes) {
            Some(end) if end <= self.bytes => Ok(()),
            _ => Err(Error::Index {
                op: op.to_string(),
                reason: format!("{bytes} bytes at offset {offset} do not fit a buffer of {} bytes", self.bytes),
            }),
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let fences = std::mem::take(self.streams.get_mut());
        if let Some(owner) = self.owner.take() {
            // Foreign memory: its allocator does not follow xp's streams, so they finish first.
            for f in &fences {
                if let Err(e) = f.synchronize() {
                    self.pool.record_deferred(e);
                }
            }
            drop(owner);
            return;
        }
        self.pool.release(self.ptr, self.size, fences);
    }
}

#[cfg(test)]
mod foreign_tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::null::{NullMemory, NullStream};

    struct Owner(Arc<AtomicUsize>);
    impl Drop for Owner {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_foreign_buffer_stays_out_of_the_pool_and_drops_its_owner_once() {
        let pool = MemoryPool::new(Arc::new(NullMemory::new(1 << 30)), "null", "XP_TEST_NO_LIMIT").unwrap();
        let s: Arc<dyn Stream> = NullStream::new();
        let t: Arc<dyn Stream> = NullStream::new();
        let own = pool.alloc(1000, &s).unwrap();
        let before = pool.stats();
        let dropped = Arc::new(AtomicUsize::new(0));
        // SAFETY: the address is never dereferenced by the null backend.
        let f = unsafe { Buffer::foreign(&pool, 0x1000, 4096, &s, Box::new(Owner(Arc::clone(&dropped)))) };
        assert!(f.is_foreign() && !own.is_foreign());
        assert_eq!((f.device_ptr(), f.len()), (0x1000, 4096));
        assert!(f.check_pool("test", &pool, "null").is_ok());
        assert_eq!(pool.stats(), before, "the pool does not count foreign memory");
        f.note_use(&t);
        assert_eq!(f.record_user_events().unwrap().len(), 2);
        drop(f);
        assert_eq!(dropped.load(Ordering::SeqCst), 1);
        assert_eq!(pool.stats(), before, "dropping it releases no block");
        drop(own);
        assert_eq!(pool.stats().in_use, 0);
    }
}
