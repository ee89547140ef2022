//! The seeds' raw CUDA kernels, unchanged, on the CPU backend through the backend trait.

use std::sync::Arc;

use rand::Rng;
use xp_backend_api::{scalar_bytes, Backend, Buffer, DynDevice, Error, KernelArg, KernelSource, LaunchConfig};
use xp_backend_cpu::CpuBackend;
use xp_kernels::seeds::{BLOCK_SUM, MY_ADD, SAXPY, TILED_MATMUL};

fn dev() -> Arc<dyn DynDevice> {
    CpuBackend::device(0).expect("the CPU device opens")
}

fn upload(d: &dyn DynDevice, v: &[f32]) -> Buffer {
    let s = d.default_stream();
    let b = d.alloc(v.len() * 4, &s).unwrap();
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
    s.copy_from_host(&b, 0, &bytes).unwrap();
    b
}

fn download(d: &dyn DynDevice, b: &Buffer, n: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; n * 4];
    d.default_stream().copy_to_host(b, 0, &mut bytes).unwrap();
    bytes.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn my_add_on_a_5x5_grid() {
    let d = dev();
    let x: Vec<f32> = (0..25).map(|i| i as f32).collect();
    let (a, b, y) = (upload(&*d, &x), upload(&*d, &x), upload(&*d, &[0.0; 25]));
    let m = d.compile(&KernelSource::new("my_add", MY_ADD), &Default::default()).unwrap();
    let k = m.function("my_add").unwrap();
    assert_eq!(k.num_params(), Some(3));
    d.default_stream()
        .launch(&*k, &LaunchConfig::new(5, 5), &[KernelArg::buffer(&a), KernelArg::buffer(&b), KernelArg::buffer(&y)])
        .unwrap();
    let got = download(&*d, &y, 25);
    let want: Vec<f32> = x.iter().map(|v| v + v).collect();
    assert_eq!(got, want);
}

#[test]
fn saxpy_over_a_million_floats() {
    let d = dev();
    let n = 1_000_000usize;
    let mut rng = rand::rng();
    let x: Vec<f32> = (0..n).map(|_| rng.random()).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.random()).collect();
    let (bx, by, out) = (upload(&*d, &x), upload(&*d, &y), upload(&*d, &vec![0.0; n]));
    let m = d.compile(&KernelSource::new("saxpy", SAXPY), &Default::default()).unwrap();
    let k = m.function("saxpy").unwrap();
    let a = 2.0f32;
    let nn = n as i32;
    let threads = 256u32;
    let blocks = (n as u32).div_ceil(threads);
    d.default_stream()
        .launch(
            &*k,
            &LaunchConfig::new(blocks, threads),
            &[
                KernelArg::Value(scalar_bytes(&a)),
                KernelArg::buffer(&bx),
                KernelArg::buffer(&by),
                KernelArg::buffer(&out),
                KernelArg::Value(scalar_bytes(&nn)),
            ],
        )
        .unwrap();
    let got = download(&*d, &out, n);
    for i in 0..n {
        assert_eq!(got[i], a * x[i] + y[i], "element {i}");
    }
}

#[test]
fn tiled_matmul_with_shared_memory_and_barriers() {
    let d = dev();
    let (m_, k_, n_) = (256usize, 192usize, 320usize);
    let mut rng = rand::rng();
    let a: Vec<f32> = (0..m_ * k_).map(|_| rng.random_range(-1.0..1.0)).collect();
    let b: Vec<f32> = (0..k_ * n_).map(|_| rng.random_range(-1.0..1.0)).collect();
    let (ba, bb, bc) = (upload(&*d, &a), upload(&*d, &b), upload(&*d, &vec![0.0; m_ * n_]));
    let module = d.compile(&KernelSource::new("matmul_tiled", TILED_MATMUL), &Default::default()).unwrap();
    let k = module.function("matmul_tiled").unwrap();
    let (mi, ki, ni) = (m_ as i32, k_ as i32, n_ as i32);
    d.default_stream()
        .launch(
            &*k,
            &LaunchConfig::new(((n_ as u32).div_ceil(16), (m_ as u32).div_ceil(16)), (16, 16)),
            &[
                KernelArg::buffer(&ba),
                KernelArg::buffer(&bb),
                KernelArg::buffer(&bc),
                KernelArg::Value(scalar_bytes(&mi)),
                KernelArg::Value(scalar_bytes(&ki)),
                KernelArg::Value(scalar_bytes(&ni)),
            ],
        )
        .unwrap();
    let got = download(&*d, &bc, m_ * n_);
    for i in 0..m_ {
        for j in 0..n_ {
            let want: f64 = (0..k_).map(|p| a[i * k_ + p] as f64 * b[p * n_ + j] as f64).sum();
            let g = got[i * n_ + j] as f64;
            assert!((g - want).abs() <= 1e-4 * (1.0 + want.abs()), "C[{i},{j}] = {g}, want {want}");
        }
    }
}

#[test]
fn dynamic_shared_memory_block_reduction() {
    // A block-wide tree reduction through `extern __shared__`, the classic CUDA pattern.
    let d = dev();
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let (bx, bo) = (upload(&*d, &x), upload(&*d, &[0.0; 8]));
    let k = d
        .compile(&KernelSource::new("block_sum", BLOCK_SUM), &Default::default())
        .unwrap()
        .function("block_sum")
        .unwrap();
    let nn = n as i32;
    d.default_stream()
        .launch(
            &*k,
            &LaunchConfig::new(8, 128).with_shared_mem(128 * 4),
            &[KernelArg::buffer(&bx), KernelArg::buffer(&bo), KernelArg::Value(scalar_bytes(&nn))],
        )
        .unwrap();
    let got = download(&*d, &bo, 8);
    for (b, g) in got.iter().enumerate() {
        let want: f32 = x.iter().skip(b * 128).take(128).sum();
        assert_eq!(*g, want, "block {b}");
    }
}

#[test]
fn wrong_argument_count_and_oversized_block_are_launch_errors() {
    let d = dev();
    let k = d.compile(&KernelSource::new("my_add", MY_ADD), &Default::default()).unwrap().function("my_add").unwrap();
    let y = upload(&*d, &[0.0; 4]);
    let e = d.default_stream().launch(&*k, &LaunchConfig::new(1, 4), &[KernelArg::buffer(&y)]).unwrap_err();
    assert!(matches!(&e, Error::Launch { reason, .. } if reason.contains("takes 3 arguments, 1 given")), "{e}");
    let args = [KernelArg::buffer(&y), KernelArg::buffer(&y), KernelArg::buffer(&y)];
    let e = d.default_stream().launch(&*k, &LaunchConfig::new(1, 2048), &args).unwrap_err();
    assert!(matches!(&e, Error::Launch { reason, .. } if reason.contains("2048 threads")), "{e}");
}

#[test]
fn syntax_error_reports_the_log_and_does_not_poison_the_cache() {
    let d = dev();
    let bad = "extern \"C\" __global__ void broken_k(float* x) {\n  x[0] = 1.0f\n}\n";
    let e = d.compile(&KernelSource::new("broken_k", bad), &Default::default()).err().expect("a syntax error fails");
    match &e {
        Error::Compile { kernel, log, .. } => {
            assert_eq!(kernel, "broken_k");
            assert!(log.contains("error"), "log: {log}");
            assert!(log.contains(":2:") || log.contains(":3:"), "the log points at the user's line: {log}");
        }
        other => panic!("expected a compile error, got {other}"),
    }
    let fixed = bad.replace("1.0f\n", "1.0f;\n");
    let m = d.compile(&KernelSource::new("broken_k", fixed), &Default::default()).unwrap();
    let k = m.function("broken_k").unwrap();
    let x = upload(&*d, &[0.0]);
    d.default_stream().launch(&*k, &LaunchConfig::new(1, 1), &[KernelArg::buffer(&x)]).unwrap();
    assert_eq!(download(&*d, &x, 1), vec![1.0]);
}

#[test]
fn events_time_stream_work() {
    let d = dev();
    let s = d.new_stream().unwrap();
    let a = s.record_event().unwrap();
    let k = d.compile(&KernelSource::new("saxpy", SAXPY), &Default::default()).unwrap().function("saxpy").unwrap();
    let n = 1 << 16;
    let (x, y, o) = (upload(&*d, &vec![1.0; n]), upload(&*d, &vec![2.0; n]), upload(&*d, &vec![0.0; n]));
    let (two, nn) = (2.0f32, n as i32);
    s.launch(
        &*k,
        &LaunchConfig::for_num_elements(n as u64, 256),
        &[
            KernelArg::Value(scalar_bytes(&two)),
            KernelArg::buffer(&x),
            KernelArg::buffer(&y),
            KernelArg::buffer(&o),
            KernelArg::Value(scalar_bytes(&nn)),
        ],
    )
    .unwrap();
    let b = s.record_event().unwrap();
    b.synchronize().unwrap();
    assert!(b.query().unwrap());
    let ms = a.elapsed_ms(&*b).unwrap();
    assert!(ms >= 0.0, "elapsed {ms}");
    let mut bytes = vec![0u8; 4];
    s.copy_to_host(&o, 4 * (n - 1), &mut bytes).unwrap();
    assert_eq!(f32::from_ne_bytes(bytes.try_into().unwrap()), 4.0);
}

/// A barrier the source scan cannot see (its name pasted together by a macro) once made the
/// process abort; now the launch fails its stream, naming the kernel and what to do, and a new
/// stream works.
#[test]
fn a_hidden_barrier_fails_the_stream_instead_of_aborting() {
    let d = dev();
    const HIDDEN: &str = r#"
#define BARRIER(x) __sync##x()
extern "C" __global__ void hidden(float* a) {
    a[threadIdx.x] = 1.0f;
    BARRIER(threads);
    a[threadIdx.x] += a[(threadIdx.x + 1) % blockDim.x];
}
"#;
    let s = d.new_stream().unwrap();
    let a = d.alloc(32 * 4, &s).unwrap();
    let m = d.compile(&KernelSource::new("hidden", HIDDEN), &Default::default()).unwrap();
    let k = m.function("hidden").unwrap();
    // Queued without complaint (the fault shows once the blocks have run), then reported by
    // the next call on the stream.
    let _ = s.launch(&*k, &LaunchConfig::new(1, 32), &[KernelArg::buffer(&a)]);
    let e = s.synchronize().unwrap_err();
    match &e {
        Error::Driver { name, detail, .. } => {
            assert_eq!(name, "CPU_BARRIER_WITHOUT_FIBERS", "{e}");
            assert!(detail.contains("hidden") && detail.contains("__syncthreads"), "{e}");
        }
        other => panic!("expected a driver error, got {other}"),
    }
    // The stream stays failed; another stream of the device runs on.
    assert!(s.synchronize().is_err());
    let x = upload(&*d, &[1.0, 2.0]);
    assert_eq!(download(&*d, &x, 2), vec![1.0, 2.0]);
}

/// Run `code`'s kernel `name` (with a barrier, so on fibers) on a new stream of one block of
/// four threads writing `out`: the stream's error.
fn faulting_launch(d: &Arc<dyn DynDevice>, name: &str, code: &str) -> Error {
    let s = d.new_stream().unwrap();
    let out = d.alloc(64, &s).unwrap();
    let m = d.compile(&KernelSource::new(name, code), &Default::default()).unwrap();
    let k = m.function(name).unwrap();
    let _ = s.launch(&*k, &LaunchConfig::new(1, 4), &[KernelArg::buffer(&out)]);
    s.synchronize().unwrap_err()
}

/// A thread whose locals overflow its fiber's stack, or that touches unmapped memory, once
/// ended the process (a segmentation fault; before guard pages were probed, an overflow could
/// write over other memory). Now the launch fails its stream with `CPU_FIBER_FAULT`, saying
/// which, and the device works on.
#[test]
fn a_fiber_that_overflows_its_stack_or_faults_fails_the_launch() {
    let d = dev();
    const DEEP: &str = r#"
extern "C" __global__ void deep(float* out) {
    volatile float local[1 << 20];  // 4 MiB, past the 128 KiB fiber stack
    for (int i = 0; i < (1 << 20); i += 1024) local[i] = (float)i;
    __syncthreads();
    out[threadIdx.x] = local[threadIdx.x * 1024];
}
"#;
    const WILD: &str = r#"
extern "C" __global__ void wild(float* out) {
    __syncthreads();
    if (threadIdx.x == 2) *(volatile float*)(16) = 1.0f;
    out[threadIdx.x] = 1.0f;
}
"#;
    for (name, code, says) in
        [("deep", DEEP, "overflowed its 131072-byte stack"), ("wild", WILD, "unmapped memory at 0x10")]
    {
        match faulting_launch(&d, name, code) {
            Error::Driver { name: code_name, detail, .. } => {
                assert_eq!(code_name, "CPU_FIBER_FAULT", "{detail}");
                assert!(detail.contains(name) && detail.contains(says), "{detail}");
            }
            other => panic!("{name}: expected a driver error, got {other}"),
        }
    }
    // The same deep kernel with stacks large enough runs.
    let s = d.new_stream().unwrap();
    let out = d.alloc(16, &s).unwrap();
    let m = d.compile(&KernelSource::new("deep", DEEP), &Default::default()).unwrap();
    let k = m.function("deep").unwrap();
    s.launch(&*k, &LaunchConfig::new(1, 4).with_stack(8 << 20), &[KernelArg::buffer(&out)]).unwrap();
    s.synchronize().unwrap();
    let mut bytes = vec![0u8; 16];
    s.copy_to_host(&out, 0, &mut bytes).unwrap();
    s.synchronize().unwrap();
    let got: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, vec![0.0, 1024.0, 2048.0, 3072.0]);
}
