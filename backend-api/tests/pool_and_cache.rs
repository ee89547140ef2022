//! The memory pool and the compile cache, on the null backend (no hardware).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use xp_backend_api::null::{NullDevice, NullStream};
use xp_backend_api::{Device, Error, KernelSource, Stream};

fn device(capacity: usize) -> NullDevice {
    NullDevice::new(capacity, None).unwrap()
}

#[test]
fn best_fit_split_and_merge() {
    let d = device(1 << 30);
    let pool = d.memory_pool();
    let s: Arc<dyn Stream> = d.default_stream();
    let a = pool.alloc(1000, &s).unwrap(); // rounds to 1024
    let b = pool.alloc(4096, &s).unwrap();
    let c = pool.alloc(100, &s).unwrap();
    assert_eq!(d.memory.raw_allocs(), 1, "small requests share one segment");
    assert_eq!(b.device_ptr() - a.device_ptr(), 1024);
    let st = pool.stats();
    assert_eq!((st.in_use, st.blocks, st.segments), (1024 + 4096 + 512, 3, 1));
    let (pa, pb) = (a.device_ptr(), b.device_ptr());
    drop(a);
    drop(b); // merges with a's block
    let big = pool.alloc(5000, &s).unwrap();
    assert_eq!(big.device_ptr(), pa, "the merged block of a and b is reused");
    let small = pool.alloc(512, &s).unwrap();
    assert_ne!(small.device_ptr(), pb);
    drop((big, small, c));
    let st = pool.stats();
    assert_eq!((st.in_use, st.blocks), (0, 0));
    assert_eq!(st.cached, 2 << 20);
    assert_eq!(pool.free_all_cached().unwrap(), 2 << 20);
    assert_eq!(pool.stats().segments, 0);
    assert_eq!(d.memory.live(), 0);
}

#[test]
fn over_the_limit_frees_cached_then_reports_out_of_memory_and_recovers() {
    let d = device(64 << 20);
    let pool = d.memory_pool();
    let s: Arc<dyn Stream> = d.default_stream();
    pool.set_limit(16 << 20);
    // Fill the cache with a freed 8 MiB block, then ask for 12 MiB: the pool must release the
    // cached segment to fit it.
    drop(pool.alloc(8 << 20, &s).unwrap());
    assert_eq!(pool.stats().cached, 8 << 20);
    let big = pool.alloc(12 << 20, &s).unwrap();
    assert_eq!(pool.stats().cached, 0);
    let e = pool.alloc(8 << 20, &s).unwrap_err();
    match e {
        Error::OutOfMemory { requested, in_use, limit } => {
            assert_eq!(requested, 8 << 20);
            assert_eq!(in_use, 12 << 20);
            assert_eq!(limit, 16 << 20);
        }
        other => panic!("expected OutOfMemory, got {other}"),
    }
    // The failure lost nothing: a normal allocation still works.
    let ok = pool.alloc(1 << 20, &s).unwrap();
    drop((big, ok));
    assert_eq!(pool.stats().in_use, 0);
}

#[test]
fn backend_failure_is_retried_after_freeing_cached_blocks() {
    // The device itself (not the pool's limit) runs out: 6 MiB of 8 hold a cached segment.
    let d = device(8 << 20);
    let pool = d.memory_pool();
    let s: Arc<dyn Stream> = d.default_stream();
    drop(pool.alloc(6 << 20, &s).unwrap());
    let b = pool.alloc(4 << 20, &s).unwrap();
    assert_eq!(pool.stats().in_use, 4 << 20);
    drop(b);
}

#[test]
fn reuse_on_another_stream_waits_for_the_old_one() {
    let d = device(1 << 30);
    let pool = d.memory_pool();
    let s1 = NullStream::new();
    let s2 = NullStream::new();
    let d1: Arc<dyn Stream> = s1.clone();
    let d2: Arc<dyn Stream> = s2.clone();
    let a = pool.alloc(4096, &d1).unwrap();
    let pa = a.device_ptr();
    drop(a);
    // Same stream: in order, no wait.
    let b = pool.alloc(4096, &d1).unwrap();
    assert_eq!(b.device_ptr(), pa);
    assert_eq!(s1.waits.load(Ordering::SeqCst), 0);
    b.note_use(&d2);
    drop(b);
    // Fenced by both streams; reuse on s2 must wait for s1's work.
    let c = pool.alloc(4096, &d2).unwrap();
    assert_eq!(c.device_ptr(), pa);
    assert_eq!(s2.waits.load(Ordering::SeqCst), 1);
}

#[test]
fn limits_parse_as_bytes_or_percent() {
    use xp_backend_api::memory::parse_limit;
    assert_eq!(parse_limit("1000", 0), Some(1000));
    assert_eq!(parse_limit("2GiB", 0), Some(2 << 30));
    assert_eq!(parse_limit("512MB", 0), Some(512_000_000));
    assert_eq!(parse_limit("50%", 1000), Some(500));
    assert_eq!(parse_limit("lots", 1000), None);
    assert_eq!(parse_limit("150%", 1000), None);
}

#[test]
fn cache_memory_then_disk_then_compiler_and_errors_are_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let src = KernelSource::new("k", "extern \"C\" __global__ void k() {}");
    {
        let d = NullDevice::new(1 << 20, Some(dir.path().to_path_buf())).unwrap();
        d.compile(&src, &Default::default()).unwrap();
        d.compile(&src, &Default::default()).unwrap();
        let st = d.cache.stats();
        assert_eq!((st.compiles, st.memory_hits, st.disk_hits), (1, 1, 0));
        // A compile error carries the log and is not cached: the fixed source compiles.
        let bad = KernelSource::new("bad", "#error broken\n__global__ void bad() {}");
        match d.compile(&bad, &Default::default()) {
            Err(Error::Compile { kernel, log, .. }) => {
                assert_eq!(kernel, "bad");
                assert!(log.contains("bad(1)"));
            }
            _ => panic!("expected a compile error"),
        }
        let fixed = KernelSource::new("bad", "__global__ void bad() {}");
        assert!(d.compile(&fixed, &Default::default()).is_ok());
    }
    // A new device (as a new process would) finds the entry on disk.
    let d = NullDevice::new(1 << 20, Some(dir.path().to_path_buf())).unwrap();
    d.compile(&src, &Default::default()).unwrap();
    let st = d.cache.stats();
    assert_eq!((st.compiles, st.disk_hits), (0, 1));
    assert_eq!(d.compiler.compiles.load(Ordering::SeqCst), 0);
    // Entries live in sharded folders; a corrupt one is compiled again.
    for shard in std::fs::read_dir(dir.path()).unwrap() {
        let shard = shard.unwrap().path();
        assert_eq!(shard.file_name().unwrap().len(), 2);
        for e in std::fs::read_dir(&shard).unwrap() {
            let p = e.unwrap().path();
            let mut b = std::fs::read(&p).unwrap();
            b[0] ^= 0xff;
            std::fs::write(&p, b).unwrap();
        }
    }
    let d = NullDevice::new(1 << 20, Some(dir.path().to_path_buf())).unwrap();
    d.compile(&src, &Default::default()).unwrap();
    let st = d.cache.stats();
    assert!(st.corrupt >= 1 && st.compiles >= 1, "{st:?}");
}

#[test]
fn cupy_names_report_used_total_and_free_blocks() {
    let d = device(1 << 30);
    let pool = d.memory_pool();
    let s: Arc<dyn Stream> = d.default_stream();
    assert_eq!((pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()), (0, 0, 0));
    let a = pool.alloc(1000, &s).unwrap();
    let b = pool.alloc(3 << 20, &s).unwrap();
    assert_eq!(pool.used_bytes(), 1024 + (3 << 20));
    // The small request carved a 2 MiB segment; the large one has its own 4 MiB segment.
    assert_eq!(pool.total_bytes(), (2 << 20) + (4 << 20));
    assert_eq!(pool.free_bytes(), pool.total_bytes() - pool.used_bytes());
    assert_eq!(pool.n_free_blocks(), 2, "the rests of both segments");
    drop(a);
    assert_eq!(pool.used_bytes(), 3 << 20);
    assert_eq!(pool.n_free_blocks(), 2, "a's block merged back into its segment's rest");
    // free_all_blocks keeps the segment of the live buffer and frees the other.
    pool.free_all_blocks().unwrap();
    assert_eq!(pool.total_bytes(), 4 << 20);
    assert_eq!(d.memory.live(), 4 << 20);
    drop(b);
    pool.free_all_blocks().unwrap();
    assert_eq!((pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()), (0, 0, 0));
    assert_eq!(d.memory.live(), 0);
}

#[test]
fn set_limit_zero_means_no_limit_as_in_cupy() {
    let d = device(64 << 20);
    let pool = d.memory_pool();
    let s: Arc<dyn Stream> = d.default_stream();
    assert_eq!(pool.get_limit(), 0);
    pool.set_limit(4 << 20);
    assert_eq!((pool.get_limit(), pool.limit()), (4 << 20, 4 << 20));
    match pool.alloc(8 << 20, &s) {
        Err(Error::OutOfMemory { requested, limit, .. }) => assert_eq!((requested, limit), (8 << 20, 4 << 20)),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    pool.set_limit(0);
    assert_eq!((pool.get_limit(), pool.limit()), (0, usize::MAX));
    let big = pool.alloc(8 << 20, &s).unwrap();
    pool.set_limit_fraction(0.5).unwrap();
    assert_eq!(pool.get_limit(), 32 << 20);
    assert!(pool.set_limit_fraction(1.5).is_err());
    drop(big);
}

mod pinned {
    use std::sync::Arc;

    use xp_backend_api::memory::PageAlignedMemory;
    use xp_backend_api::{Device, Error, PinnedMemoryPool};

    fn pool() -> Arc<PinnedMemoryPool> {
        PinnedMemoryPool::new(Arc::new(PageAlignedMemory), "test")
    }

    #[test]
    fn blocks_are_cached_by_size_class_and_reused() {
        let p = pool();
        let mut a = p.alloc(10_000).unwrap(); // class 12 KiB
        assert_eq!((a.len(), a.capacity()), (10_000, 12 << 10));
        assert!(a.iter().all(|&b| b == 0), "a new block is zeroed");
        a[9_999] = 7;
        let addr = a.as_ptr();
        assert_eq!((p.used_bytes(), p.total_bytes(), p.n_free_blocks()), (12 << 10, 12 << 10, 0));
        drop(a);
        assert_eq!((p.used_bytes(), p.total_bytes(), p.n_free_blocks()), (0, 12 << 10, 1));
        // Another size of the same class reuses the block; another class does not.
        let b = p.alloc(11_000).unwrap();
        assert_eq!(b.as_ptr(), addr);
        let c = p.alloc(100).unwrap();
        assert_ne!(c.as_ptr(), addr);
        assert_eq!((p.used_bytes(), p.n_free_blocks()), ((12 << 10) + 4096, 0));
        drop((b, c));
        assert_eq!(p.free_bytes(), (12 << 10) + 4096);
        p.free_all_blocks().unwrap();
        assert_eq!((p.used_bytes(), p.total_bytes(), p.n_free_blocks()), (0, 0, 0));
    }

    #[test]
    fn limit_refuses_then_frees_cached_blocks_and_lifting_it_succeeds() {
        let p = pool();
        p.set_limit(64 << 10);
        assert_eq!(p.get_limit(), 64 << 10);
        match p.alloc(100 << 10) {
            Err(Error::OutOfMemory { requested, limit, .. }) => assert_eq!((requested, limit), (100 << 10, 64 << 10)),
            other => panic!("expected OutOfMemory, got {other:?}"),
        }
        // A cached 48 KiB block stands in the way of 32 KiB: it is given back first.
        drop(p.alloc(48 << 10).unwrap());
        assert_eq!(p.total_bytes(), 48 << 10);
        let b = p.alloc(32 << 10).unwrap();
        assert_eq!((p.used_bytes(), p.total_bytes()), (32 << 10, 32 << 10));
        p.set_limit(0);
        assert_eq!(p.get_limit(), 0);
        let big = p.alloc(100 << 10).unwrap();
        assert_eq!(big.len(), 100 << 10);
        drop((b, big));
    }

    #[test]
    fn the_null_device_has_a_pinned_pool() {
        let d = super::device(1 << 20);
        let p = d.pinned_memory_pool().unwrap();
        assert!(Arc::ptr_eq(&p, &d.pinned_memory_pool().unwrap()), "one pool, not one per call");
        let mut buf = p.alloc(4).unwrap();
        buf.copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(&buf[..], &[1, 2, 3, 4]);
    }
}

/// A capture's allocations come from segments of their own, never from blocks other work
/// freed; blocks the captured work touched (made before or during the capture) are held while
/// the graph lives, even when their buffers are dropped, and come back when it goes, fenced by
/// the streams it was launched on; a failed capture gives everything back.
#[test]
fn capture_memory_is_private_held_while_the_graph_lives_and_never_leaked() {
    let d = device(1 << 30);
    let pool = d.memory_pool();
    let s: Arc<dyn Stream> = NullStream::new();
    let other: Arc<dyn Stream> = NullStream::new();
    // A free block on the free list, and a live input made before the capture.
    let input = pool.alloc(1024, &s).unwrap();
    let freed = pool.alloc(4096, &other).unwrap();
    let keeper = pool.alloc(512, &s).unwrap();
    let fenced = pool.alloc(8192, &s).unwrap();
    let keeper2 = pool.alloc(512, &s).unwrap();
    let (freed_ptr, fenced_ptr) = (freed.device_ptr(), fenced.device_ptr());
    drop((freed, fenced));
    let (input_ptr, before) = (input.device_ptr(), pool.stats());
    assert_eq!(before.segments, 1);

    let cap = pool.begin_capture(&s).unwrap();
    assert!(pool.begin_capture(&s).is_err(), "one capture per stream");
    assert_eq!(pool.live_captures(), 1);
    input.note_use(&s);
    let t1 = pool.alloc(4096, &s).unwrap();
    let t2 = pool.alloc(512, &s).unwrap();
    assert_ne!(t1.device_ptr(), freed_ptr, "a capture never takes a block from the free list");
    assert_eq!(pool.stats().segments, 2, "a private segment");
    assert_eq!(t2.device_ptr(), t1.device_ptr() + 4096, "carved in order");
    // Another stream allocating meanwhile gets the free list, not the private segment.
    let outside = pool.alloc(4096, &other).unwrap();
    assert_eq!(outside.device_ptr(), freed_ptr);
    // A block the capturing stream used is left alone (ordering after it would record an
    // event into the capture).
    let outside2 = pool.alloc(8192, &other).unwrap();
    assert_ne!(outside2.device_ptr(), fenced_ptr);
    drop((outside, outside2));
    let (t1_ptr, t2_ptr) = (t1.device_ptr(), t2.device_ptr());
    drop(t1); // freed inside the capture: held
    cap.end();
    drop(input); // freed after: held too, the graph reads it
    assert_eq!(cap.held_bytes(), 4096 + 1024);
    cap.note_launch(&other);
    // While the graph lives, nothing it touches is handed out.
    let probes: Vec<_> = (0..64).map(|_| pool.alloc(512, &s).unwrap()).collect();
    for p in &probes {
        assert!(![t1_ptr, input_ptr].contains(&p.device_ptr()), "a held block was reused");
        assert!(p.device_ptr() < t1_ptr || p.device_ptr() >= t1_ptr + (2 << 20), "the private segment was used");
    }
    drop(probes);
    drop(cap);
    assert_eq!(pool.live_captures(), 0);
    // t2 outlives the graph and is an ordinary block now.
    assert_eq!(t2.device_ptr(), t2_ptr);
    drop((t2, keeper, keeper2));
    let st = pool.stats();
    assert_eq!((st.in_use, st.blocks), (0, 0), "nothing leaked");
    assert_eq!(pool.free_all_cached().unwrap(), st.cached, "every segment is whole again");
    assert_eq!(d.memory.live(), 0);

    // A failed capture (dropped without a graph) gives everything back at once.
    let cap = pool.begin_capture(&s).unwrap();
    let a = pool.alloc(3 << 20, &s).unwrap(); // a large private segment
    let b = pool.alloc(100, &s).unwrap();
    drop(a);
    drop(cap);
    drop(b);
    let st = pool.stats();
    assert_eq!((st.in_use, st.blocks, pool.live_captures()), (0, 0, 0));
    pool.free_all_cached().unwrap();
    assert_eq!(d.memory.live(), 0);
}
