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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
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
}

/// A stream-ordered, best-fit memory pool over a backend's [`RawMemory`].
pub struct MemoryPool {
    raw: Arc<dyn RawMemory>,
    state: Mutex<PoolState>,
    limit: Mutex<usize>,
    enabled: bool,
    label: String,
    deferred: Mutex<Option<Error>>,
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
        let ptr = if self.enabled { self.alloc_pooled(size, stream)? } else { self.alloc_unpooled(size)? };
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

    fn alloc_pooled(&self, size: usize, stream: &Arc<dyn Stream>) -> Result<u64> {
        if let Some(ptr) = self.take_free(size, stream)? {
            return Ok(ptr);
        }
        let seg_size = if size <= SMALL_REQUEST {
            SMALL_SEGMENT
        } else {
            round_up(size, SMALL_SEGMENT).ok_or_else(|| self.oom(size))?
        };
        let base = match self.new_segment(seg_size, size) {
            Ok(b) => b,
            Err(Error::OutOfMemory { .. }) => {
                // Give back what is cached and try once more, at the exact size.
                self.free_all_cached()?;
                self.new_segment(size, size).map_err(|e| match e {
                    Error::OutOfMemory { .. } => self.oom(size),
                    other => other,
                })?
            }
            Err(e) => return Err(e),
        };
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
        let Some(&(bsize, addr)) = s.free.range((size, 0)..).next() else {
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
