//! The CPU device's memory pool and pinned pool through their user API (CuPy's names). The
//! pools are per process, so the tests run one at a time.

use std::sync::Arc;

use serial_test::serial;
use xp_backend_api::{Backend, Device, Error, Stream};
use xp_backend_cpu::CpuBackend;

#[test]
#[serial]
fn device_pool_used_total_free_all_blocks_and_limits() {
    let dev = CpuBackend::device(0).unwrap();
    let pool = dev.memory_pool();
    let s: Arc<dyn Stream> = dev.default_stream();
    pool.free_all_blocks().unwrap();
    let (used0, total0) = (pool.used_bytes(), pool.total_bytes());
    let a = pool.alloc(10_000, &s).unwrap();
    assert_eq!(pool.used_bytes(), used0 + 10_240, "rounded to 512 bytes");
    assert!(pool.total_bytes() >= pool.used_bytes());
    drop(a);
    s.synchronize().unwrap();
    assert_eq!(pool.used_bytes(), used0);
    if pool.is_enabled() {
        assert!(pool.n_free_blocks() >= 1);
        assert!(pool.free_bytes() >= 10_240, "the block is cached");
        assert!(pool.total_bytes() > total0);
    }
    pool.free_all_blocks().unwrap();
    assert_eq!(pool.total_bytes(), pool.used_bytes(), "no cached bytes are left");

    let old = pool.limit();
    pool.set_limit(pool.total_bytes() + (1 << 20));
    match pool.alloc(64 << 20, &s) {
        Err(Error::OutOfMemory { requested, limit, .. }) => {
            assert_eq!(requested, 64 << 20);
            assert_eq!(limit, pool.get_limit());
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    pool.set_limit(0);
    assert_eq!(pool.get_limit(), 0);
    let big = pool.alloc(64 << 20, &s).unwrap();
    drop(big);
    pool.set_limit(old);
    pool.free_all_blocks().unwrap();
}

#[test]
#[serial]
fn pinned_pool_used_total_free_all_blocks_and_limits() {
    let dev = CpuBackend::device(0).unwrap();
    let pinned = dev.pinned_memory_pool().unwrap();
    assert!(Arc::ptr_eq(&pinned, &dev.pinned_memory_pool().unwrap()));
    pinned.free_all_blocks().unwrap();
    assert_eq!((pinned.used_bytes(), pinned.total_bytes(), pinned.n_free_blocks()), (0, 0, 0));

    let mut host = pinned.alloc(1 << 20).unwrap();
    assert_eq!((pinned.used_bytes(), pinned.total_bytes()), (1 << 20, 1 << 20));
    assert_eq!(host.as_ptr() as usize % 4096, 0, "page-aligned");
    // The pinned buffer is the host side of copies both ways.
    for (i, b) in host.iter_mut().enumerate() {
        *b = i as u8;
    }
    let s: Arc<dyn Stream> = dev.default_stream();
    let buf = dev.memory_pool().alloc(1 << 20, &s).unwrap();
    s.copy_from_host(&buf, 0, &host).unwrap();
    let mut back = pinned.alloc(1 << 20).unwrap();
    s.copy_to_host(&buf, 0, &mut back).unwrap();
    assert_eq!(&back[..], &host[..]);
    drop((buf, back));

    drop(host);
    assert_eq!((pinned.used_bytes(), pinned.total_bytes(), pinned.n_free_blocks()), (0, 2 << 20, 2));
    let again = pinned.alloc(1 << 20).unwrap();
    assert_eq!(pinned.total_bytes(), 2 << 20, "a cached block of the class is reused");
    drop(again);
    pinned.free_all_blocks().unwrap();
    assert_eq!((pinned.total_bytes(), pinned.free_bytes(), pinned.n_free_blocks()), (0, 0, 0));

    pinned.set_limit(1 << 20);
    assert_eq!(pinned.get_limit(), 1 << 20);
    match pinned.alloc(3 << 20) {
        Err(Error::OutOfMemory { requested, limit, .. }) => assert_eq!((requested, limit), (3 << 20, 1 << 20)),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    pinned.set_limit(0);
    assert_eq!(pinned.get_limit(), 0);
    let ok = pinned.alloc(3 << 20).unwrap();
    assert_eq!(ok.len(), 3 << 20);
    drop(ok);
    pinned.free_all_blocks().unwrap();
}
