//! The pinned host memory pool: page-locked host buffers for fast copies, as CuPy's
//! `PinnedMemoryPool`.
//!
//! # Blocks and size classes
//! A request is rounded up to its size class: a multiple of 4 KiB up to 16 KiB, above that
//! four classes per doubling (20, 24, 28, 32 KiB, 40, 48, …), so a block wastes less than a
//! page, or at most a fifth of itself. A dropped buffer's block is cached in the free list of its class and
//! handed to the next request of the same class; nothing is split or merged (pinning is
//! costly, blocks are few and large). Each backend's [`RawHostMemory`] allocates the blocks:
//! `cuMemHostAlloc` on CUDA, `hipHostMalloc` on HIP, ordinary page-aligned memory on the CPU.
//!
//! # Contents
//! A block is zeroed when first allocated; a reused block keeps what its last user wrote.
//!
//! # Copies
//! A [`PinnedBuffer`] dereferences to `[u8]`, so it is the host side of
//! [`Stream::copy_from_host`](crate::Stream::copy_from_host) and
//! [`Stream::copy_to_host`](crate::Stream::copy_to_host) as any slice is. Those copies return
//! once the host bytes may be reused, so a pinned block needs no stream fences: it goes back
//! to the pool the moment its buffer is dropped.
//!
//! # Limits
//! [`PinnedMemoryPool::set_limit`] caps the bytes the pool holds (used plus cached). A request
//! that would pass it first gives the cached blocks back, then fails with
//! [`Error::OutOfMemory`] naming the bytes requested and the limit. `XP_MEMORY_POOL=off` turns
//! caching off here too: every dropped buffer is freed at once.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::{Error, Result};

/// A backend's allocator of page-locked host memory, under a [`PinnedMemoryPool`].
///
/// # Safety
/// `alloc` returns a pointer to `bytes` writable bytes, aligned to at least 64 bytes, that
/// stay valid, and are touched by nothing else, until passed to `free`; any thread may use
/// them.
pub unsafe trait RawHostMemory: Send + Sync {
    /// Allocate `bytes` (a positive multiple of 4096); [`Error::OutOfMemory`] when the host
    /// cannot pin that much.
    fn alloc(&self, bytes: usize) -> Result<NonNull<u8>>;
    /// Free a block.
    ///
    /// # Safety
    /// `ptr` came from `alloc` of this allocator with `bytes`, is freed once, and nothing
    /// uses it any more.
    unsafe fn free(&self, ptr: NonNull<u8>, bytes: usize) -> Result<()>;
}

/// Ordinary host memory, page-aligned: the CPU backend's "pinned" memory (its device memory
/// is host memory, so there is nothing to pin) and a stand-in where no driver is involved.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageAlignedMemory;

const PAGE: usize = 4096;

// SAFETY: `std::alloc` returns fresh, exclusively owned, page-aligned memory of the size asked
// for, usable from any thread, until it is deallocated with the same layout.
unsafe impl RawHostMemory for PageAlignedMemory {
    fn alloc(&self, bytes: usize) -> Result<NonNull<u8>> {
        let oom = || Error::OutOfMemory { requested: bytes, in_use: 0, limit: usize::MAX };
        let layout = std::alloc::Layout::from_size_align(bytes.max(1), PAGE).map_err(|_| oom())?;
        // SAFETY: the layout has a non-zero size.
        NonNull::new(unsafe { std::alloc::alloc(layout) }).ok_or_else(oom)
    }

    unsafe fn free(&self, ptr: NonNull<u8>, bytes: usize) -> Result<()> {
        let layout = std::alloc::Layout::from_size_align(bytes.max(1), PAGE)
            .expect("the layout was valid when the block was allocated");
        // SAFETY: the caller guarantees `ptr` came from `alloc` with `bytes`, so with this
        // layout, and is freed once.
        unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) };
        Ok(())
    }
}

/// The size class of a request of `bytes`: multiples of 4 KiB up to 16 KiB, then four
/// classes per doubling. `None` when the class would overflow.
pub fn pinned_size_class(bytes: usize) -> Option<usize> {
    let n = bytes.max(1).checked_next_multiple_of(PAGE)?;
    if n <= 4 * PAGE {
        return Some(n);
    }
    let step = (1usize << (usize::BITS - 1 - n.leading_zeros())) / 4;
    n.checked_next_multiple_of(step)
}

#[derive(Default)]
struct PinnedState {
    /// Cached blocks by size class.
    free: BTreeMap<usize, Vec<NonNull<u8>>>,
    used: usize,
    cached: usize,
    n_free: usize,
}

// SAFETY: the cached pointers are owned blocks of a `RawHostMemory`, usable from any thread
// (its contract); the state is only reached under the pool's mutex.
unsafe impl Send for PinnedState {}

/// A pool of page-locked host blocks, cached by size class (see the module docs).
pub struct PinnedMemoryPool {
    raw: Arc<dyn RawHostMemory>,
    state: Mutex<PinnedState>,
    limit: Mutex<usize>,
    enabled: bool,
    label: String,
}

impl fmt::Debug for PinnedMemoryPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnedMemoryPool")
            .field("device", &self.label)
            .field("used_bytes", &self.used_bytes())
            .field("total_bytes", &self.total_bytes())
            .finish()
    }
}

impl PinnedMemoryPool {
    /// A pool over `raw`, for the device named `label` in messages; unlimited; caching unless
    /// `XP_MEMORY_POOL=off`.
    pub fn new(raw: Arc<dyn RawHostMemory>, label: impl Into<String>) -> Arc<Self> {
        // A bad value is refused when the device's pool is made, before this one.
        let enabled = crate::env::switch("XP_MEMORY_POOL", true).unwrap_or(true);
        Arc::new(PinnedMemoryPool {
            raw,
            state: Mutex::new(PinnedState::default()),
            limit: Mutex::new(usize::MAX),
            enabled,
            label: label.into(),
        })
    }

    /// The device's name in messages.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// A buffer of `bytes` page-locked host bytes: a cached block of the request's size class,
    /// else a new one (after giving the cached blocks back when the limit or the host refuses).
    pub fn alloc(self: &Arc<Self>, bytes: usize) -> Result<PinnedBuffer> {
        let limit = self.limit();
        let class = pinned_size_class(bytes).ok_or(Error::OutOfMemory {
            requested: bytes,
            in_use: self.used_bytes(),
            limit,
        })?;
        let reused = {
            let mut s = self.state.lock();
            let hit = s.free.get_mut(&class).and_then(Vec::pop);
            if hit.is_some() {
                s.n_free -= 1;
                s.cached -= class;
                s.used += class;
            }
            hit
        };
        let ptr = match reused {
            Some(p) => p,
            None => self.alloc_new(bytes, class)?,
        };
        Ok(PinnedBuffer { ptr, len: bytes, class, pool: Arc::clone(self) })
    }

    fn alloc_new(&self, bytes: usize, class: usize) -> Result<NonNull<u8>> {
        let try_alloc = |this: &Self| -> Result<NonNull<u8>> {
            {
                // Count the bytes before calling the allocator, so racing requests see them.
                let limit = this.limit();
                let mut s = this.state.lock();
                if (s.used + s.cached).saturating_add(class) > limit {
                    return Err(Error::OutOfMemory { requested: bytes, in_use: s.used, limit });
                }
                s.used += class;
            }
            match this.raw.alloc(class) {
                Ok(p) => Ok(p),
                Err(e) => {
                    this.state.lock().used -= class;
                    Err(e)
                }
            }
        };
        let ptr = match try_alloc(self) {
            Ok(p) => p,
            Err(Error::OutOfMemory { .. }) => {
                self.free_all_blocks()?;
                try_alloc(self).map_err(|e| match e {
                    Error::OutOfMemory { .. } => {
                        Error::OutOfMemory { requested: bytes, in_use: self.used_bytes(), limit: self.limit() }
                    }
                    other => other,
                })?
            }
            Err(e) => return Err(e),
        };
        // SAFETY: `ptr` has `class` writable bytes owned by this pool (`RawHostMemory`
        // contract); zeroing makes every byte initialised before a slice is made of them.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, class) };
        Ok(ptr)
    }

    fn release(&self, ptr: NonNull<u8>, class: usize) {
        if self.enabled {
            let mut s = self.state.lock();
            s.used -= class;
            s.cached += class;
            s.n_free += 1;
            s.free.entry(class).or_default().push(ptr);
            return;
        }
        // SAFETY: the block came from `self.raw.alloc(class)`, its buffer is being dropped and
        // it was never cached, so it is freed once and unused. A failure to free cannot be
        // reported from a destructor and loses only the block.
        let _ = unsafe { self.raw.free(ptr, class) };
        self.state.lock().used -= class;
    }

    /// Bytes of live buffers, rounded to their size classes (CuPy's `used_bytes`).
    pub fn used_bytes(&self) -> usize {
        self.state.lock().used
    }

    /// Bytes held from the host: used plus cached (CuPy's `total_bytes`).
    pub fn total_bytes(&self) -> usize {
        let s = self.state.lock();
        s.used + s.cached
    }

    /// Bytes of cached blocks (CuPy's `free_bytes`).
    pub fn free_bytes(&self) -> usize {
        self.state.lock().cached
    }

    /// Cached blocks waiting for reuse (CuPy's `n_free_blocks`).
    pub fn n_free_blocks(&self) -> usize {
        self.state.lock().n_free
    }

    /// Give every cached block back to the host (CuPy's `free_all_blocks`); live buffers stay.
    /// Every block is freed even when one fails; the first failure is returned.
    pub fn free_all_blocks(&self) -> Result<()> {
        let blocks = {
            let mut s = self.state.lock();
            s.cached = 0;
            s.n_free = 0;
            std::mem::take(&mut s.free)
        };
        let mut first_err = None;
        for (class, ptrs) in blocks {
            for p in ptrs {
                // SAFETY: cached blocks came from `self.raw.alloc(class)`, no buffer owns them,
                // and they were taken out of the free lists above, so each is freed once.
                if let Err(e) = unsafe { self.raw.free(p, class) } {
                    first_err.get_or_insert(e);
                }
            }
        }
        first_err.map_or(Ok(()), Err)
    }

    /// The limit in bytes (`usize::MAX` when unlimited).
    pub fn limit(&self) -> usize {
        *self.limit.lock()
    }

    /// The limit in bytes, `0` when there is none (CuPy's `get_limit`).
    pub fn get_limit(&self) -> usize {
        match self.limit() {
            usize::MAX => 0,
            l => l,
        }
    }

    /// Cap the bytes the pool holds (used plus cached); `0` or `usize::MAX` removes the cap, as
    /// CuPy's `set_limit(size=0)`. Blocks already held are kept.
    pub fn set_limit(&self, bytes: usize) {
        *self.limit.lock() = if bytes == 0 { usize::MAX } else { bytes };
    }
}

impl Drop for PinnedMemoryPool {
    fn drop(&mut self) {
        // Buffers hold the pool, so none is live here; a failure to unpin cannot be reported.
        let _ = self.free_all_blocks();
    }
}

/// Page-locked host bytes from a [`PinnedMemoryPool`]; dropping the buffer returns its block
/// to the pool. Dereferences to `[u8]`.
pub struct PinnedBuffer {
    ptr: NonNull<u8>,
    len: usize,
    class: usize,
    pool: Arc<PinnedMemoryPool>,
}

// SAFETY: the buffer owns its block exclusively (the pool hands a block to one buffer at a
// time) and the block may be used from any thread (`RawHostMemory` contract), as a `Vec<u8>`.
unsafe impl Send for PinnedBuffer {}
// SAFETY: shared references only read through `&[u8]`.
unsafe impl Sync for PinnedBuffer {}

impl PinnedBuffer {
    /// Bytes requested.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether zero bytes were requested.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of the block under the buffer (its size class).
    pub fn capacity(&self) -> usize {
        self.class
    }

    /// The first byte's host address.
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// The first byte's host address, for writing.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the block has `class >= len` bytes, initialised when allocated (zeroed) and
        // owned by this buffer until it drops.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The bytes, for writing.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`; `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The pool it came from.
    pub fn pool(&self) -> &Arc<PinnedMemoryPool> {
        &self.pool
    }
}

impl Deref for PinnedBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl DerefMut for PinnedBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.as_mut_slice()
    }
}

impl fmt::Debug for PinnedBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PinnedBuffer({:p}, {} bytes on {})", self.ptr, self.len, self.pool.label)
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        self.pool.release(self.ptr, self.class);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_waste_less_than_a_page_or_a_fifth() {
        assert_eq!(pinned_size_class(0), Some(4096));
        assert_eq!(pinned_size_class(4097), Some(8192));
        assert_eq!(pinned_size_class(16 << 10), Some(16 << 10));
        assert_eq!(pinned_size_class((16 << 10) + 1), Some(20 << 10));
        assert_eq!(pinned_size_class((1 << 20) + 1), Some((1 << 20) + (256 << 10)));
        assert_eq!(pinned_size_class(usize::MAX), None);
        for n in [20_000usize, 70_000, 3 << 20, 123_456_789] {
            let c = pinned_size_class(n).unwrap();
            assert!(c >= n && (c - n) * 5 <= c, "{n} -> {c}");
        }
    }
}
