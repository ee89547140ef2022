//! The facade's memory API: the default pools of the current device and clearing the kernel
//! cache; the pools under many threads and streams, on the CPU and every GPU found. The tests
//! run one at a time (`serial`): they count the pools' bytes, and one sets `XP_CACHE_DIR` for the
//! process.

use std::sync::Arc;

use serial_test::serial;
use xp::{DType, DynDevice};

/// The CPU and every GPU the enabled backends found.
fn every_device() -> Vec<Arc<dyn DynDevice>> {
    let mut all = vec![xp::device("cpu").unwrap()];
    all.extend(xp::devices().into_iter().filter(|d| !d.properties().is_host));
    all
}

/// 16 threads, each with a stream of its own, allocate, compute and free through the array API
/// at once; every result is right, and once all is done the pool holds no used byte more than
/// before (everything freed went back to it).
#[test]
#[serial]
fn sixteen_threads_on_their_own_streams_leave_the_pool_as_they_found_it() {
    for d in every_device() {
        let pool = xp::memory::pool(&d);
        d.synchronize().unwrap();
        let before = pool.used_bytes();
        std::thread::scope(|scope| {
            for t in 0..16usize {
                let d = &d;
                scope.spawn(move || {
                    let stream = d.new_stream().unwrap();
                    xp::with_device(d, || {
                        xp::array::with_stream_on(d, &stream, || {
                            for round in 0..12usize {
                                // n elements 0..n as float64: 2x + 1 sums to n².
                                let n = 1000 + 613 * t + 4099 * round;
                                let a = xp::arange(0.0, n as f64, 1.0, Some(DType::F64)).unwrap();
                                let b = a.mul_scalar(2.0).unwrap().add_scalar(1.0).unwrap();
                                let total = b.sum(None, false).unwrap().item::<f64>().unwrap();
                                assert_eq!(total, (n * n) as f64, "{} thread {t} round {round}", d.label());
                                // A second, differently sized buffer freed before the first.
                                let c = xp::zeros(&[n / 3 + 1], DType::I32).unwrap();
                                drop(c);
                            }
                        });
                    });
                    stream.synchronize().unwrap();
                });
            }
        });
        d.synchronize().unwrap();
        assert_eq!(pool.used_bytes(), before, "{}: bytes left in use after every thread ended", d.label());
        pool.free_all_blocks().unwrap();
        assert!(pool.total_bytes() >= pool.used_bytes());
    }
}

/// A buffer dropped by the host while another stream still reads it is not handed to a third
/// allocation before that read ends: what the reading stream computed is right, by its data.
#[test]
#[serial]
fn a_buffer_dropped_while_another_stream_reads_it_is_reused_only_after_the_read() {
    for d in every_device() {
        xp::with_device(&d, || {
            let (s1, s2) = (d.new_stream().unwrap(), d.new_stream().unwrap());
            let n = 1usize << 22;
            for round in 0..4 {
                let v = 1.0 + round as f32;
                let x = xp::array::with_stream_on(&d, &s1, || xp::full(&[n], v, DType::F32)).unwrap();
                s1.synchronize().unwrap();
                // Eight kernels on s2 read x; the host drops x while they are queued.
                let y = xp::array::with_stream_on(&d, &s2, || {
                    let mut y = x.mul_scalar(0.5).unwrap();
                    for _ in 0..7 {
                        y = y.add(&x).unwrap();
                    }
                    y
                });
                drop(x);
                // s1 takes buffers of x's size and overwrites them at once.
                let z: Vec<_> = (0..3)
                    .map(|_| xp::array::with_stream_on(&d, &s1, || xp::full(&[n], -100.0f32, DType::F32)).unwrap())
                    .collect();
                s2.synchronize().unwrap();
                s1.synchronize().unwrap();
                let want = v * 7.5;
                let got = y.to_vec::<f32>().unwrap();
                let bad = got.iter().filter(|&&g| g != want).count();
                assert_eq!(bad, 0, "{} round {round}: {bad} of {n} elements are not {want}", d.label());
                drop(z);
            }
        });
    }
}

#[test]
#[serial]
fn default_pools_follow_the_current_device_and_the_kernel_cache_clears() {
    let cpu = xp::device("cpu").unwrap();
    xp::with_device(&cpu, || {
        let pool = xp::get_default_memory_pool().unwrap();
        assert!(Arc::ptr_eq(&pool, &xp::memory::pool(&cpu)));
        let before = pool.used_bytes();
        let a = xp::zeros(&[1024], xp::DType::F64).unwrap();
        assert!(pool.used_bytes() >= before + 8192, "{} -> {}", before, pool.used_bytes());
        drop(a);
        let pinned = xp::get_default_pinned_memory_pool().unwrap();
        assert!(Arc::ptr_eq(&pinned, &xp::memory::pinned_pool(&cpu).unwrap()));
        let block = pinned.alloc(100).unwrap();
        assert!(pinned.used_bytes() >= 4096);
        drop(block);
        pinned.free_all_blocks().unwrap();
        assert_eq!(pinned.total_bytes(), pinned.used_bytes());
    });

    let dir = std::env::temp_dir().join(format!("xp-clear-kernel-cache-{}", std::process::id()));
    let shard = dir.join("0f");
    std::fs::create_dir_all(&shard).unwrap();
    for i in 0..3 {
        std::fs::write(shard.join(format!("0f{i:030}.bin")), b"image").unwrap();
    }
    std::env::set_var("XP_CACHE_DIR", &dir);
    assert_eq!(xp::clear_kernel_cache().unwrap(), 3);
    assert_eq!(std::fs::read_dir(&shard).unwrap().count(), 0);
    std::env::set_var("XP_CACHE_DIR", "off");
    assert_eq!(xp::clear_kernel_cache().unwrap(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
