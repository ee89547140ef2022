//! Pinned staging of host-to-device copies: a few page-locked buffers per device, reused in
//! turn, so that a copy from pageable memory returns as soon as its bytes are staged.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::Mutex;

use crate::{Error, Result};

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

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};

    use super::*;

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
}
