//! `synchronize` of the device waits for every stream of the device, as
//! `cudaDeviceSynchronize` does, not only for the default stream.

use std::sync::Arc;
use std::time::{Duration, Instant};

use xp_backend_api::{scalar_bytes, Backend, Buffer, DynDevice, Event, KernelArg, KernelSource, LaunchConfig, Stream};
use xp_backend_cpu::CpuBackend;

/// Sleeps, then fills `x` with `v`: work that is still queued long after the launch returns.
/// (The CPU backend compiles kernels as C++, so a kernel may call the C library.)
const SLOW_FILL: &str = r#"
#include <unistd.h>
extern "C" __global__ void slow_fill(float* x, int n, float v, int sleep_us) {
    usleep(sleep_us);
    for (int i = 0; i < n; ++i) x[i] = v;
}
"#;

const SLEEP: Duration = Duration::from_millis(400);
const N: usize = 1024;

fn dev() -> Arc<dyn DynDevice> {
    CpuBackend::device(0).expect("the CPU device opens")
}

/// Queue a slow fill of a new buffer on `stream`, and an event after it.
fn slow_fill(d: &dyn DynDevice, stream: &Arc<dyn Stream>, v: f32) -> (Buffer, Arc<dyn Event>) {
    let m = d.compile(&KernelSource::new("slow_fill", SLOW_FILL), &Default::default()).unwrap();
    let k = m.function("slow_fill").unwrap();
    let buf = d.alloc(N * 4, stream).unwrap();
    let (n, us) = (N as i32, SLEEP.as_micros() as i32);
    let args = [
        KernelArg::buffer(&buf),
        KernelArg::Value(scalar_bytes(&n)),
        KernelArg::Value(scalar_bytes(&v)),
        KernelArg::Value(scalar_bytes(&us)),
    ];
    stream.launch(&*k, &LaunchConfig::new(1, 1), &args).unwrap();
    (buf, stream.record_event().unwrap())
}

/// The buffer's bytes, read on the default stream (which does not wait for other streams).
fn read(d: &dyn DynDevice, b: &Buffer) -> Vec<f32> {
    let mut bytes = vec![0u8; N * 4];
    d.default_stream().copy_to_host(b, 0, &mut bytes).unwrap();
    bytes.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn device_synchronize_waits_for_work_on_every_stream() {
    let d = dev();
    // Compile first, so that the launches below queue at once.
    d.compile(&KernelSource::new("slow_fill", SLOW_FILL), &Default::default()).unwrap();
    let (s1, s2) = (d.new_stream().unwrap(), d.new_stream().unwrap());
    assert_ne!(s1.id(), s2.id());
    let start = Instant::now();
    let (a, done_a) = slow_fill(&*d, &s1, 1.0);
    let (b, done_b) = slow_fill(&*d, &s2, 2.0);
    assert!(!done_a.query().unwrap() && !done_b.query().unwrap(), "the fills sleep, so they are still queued");
    d.synchronize().unwrap();
    let waited = start.elapsed();
    assert!(done_a.query().unwrap(), "the work on the first stream is unfinished after {waited:?}");
    assert!(done_b.query().unwrap(), "the work on the second stream is unfinished after {waited:?}");
    assert!(waited >= SLEEP, "synchronize returned after {waited:?}");
    assert_eq!(read(&*d, &a), vec![1.0; N]);
    assert_eq!(read(&*d, &b), vec![2.0; N]);
}

#[test]
fn device_synchronize_waits_for_work_of_a_dropped_stream() {
    let d = dev();
    d.compile(&KernelSource::new("slow_fill", SLOW_FILL), &Default::default()).unwrap();
    let s = d.new_stream().unwrap();
    let (a, done) = slow_fill(&*d, &s, 3.0);
    // The buffer remembers the stream; drop both, so only the stream's queue is left running.
    drop(a);
    drop(s);
    d.synchronize().unwrap();
    assert!(done.query().unwrap(), "the work queued on a dropped stream is unfinished");
}
