//! Tests of the HIP backend that hold on every machine.
//!
//! Each test asserts something in every branch: with an AMD GPU it checks results; without one
//! it checks that the backend says so precisely (`hipErrorNoDevice`, or every library path
//! tried). `XP_REQUIRE_GPU=hip` makes the no-GPU branch a failure, for GPU machines.

use std::path::PathBuf;

use xp_backend_api::{
    scalar_bytes, Backend, CompileOptions, Device, Error, Event, KernelArg, KernelSource, LaunchConfig, Module, Stream,
};
use xp_backend_hip::{compile_for_arch, sys, HipBackend};

/// Whether `XP_REQUIRE_GPU` names `hip`.
fn gpu_required() -> bool {
    std::env::var("XP_REQUIRE_GPU").is_ok_and(|v| v.split(',').any(|b| b.trim() == "hip"))
}

/// What the backend must say on a machine without a usable AMD GPU: the library is absent
/// (reason names the paths tried) or present with no device (reason names hipErrorNoDevice).
fn assert_no_gpu_explained(e: &Error) {
    assert!(!gpu_required(), "XP_REQUIRE_GPU=hip, but the HIP backend is unusable: {e}");
    let Error::BackendUnavailable { backend, reason } = e else { panic!("expected BackendUnavailable, got {e:?}") };
    assert_eq!(backend, "hip");
    if sys::library().is_ok() {
        assert!(reason.contains("hipErrorNoDevice"), "reason does not name hipErrorNoDevice: {reason}");
    } else {
        assert!(reason.contains("libamdhip64.so.5"), "reason does not list the paths tried: {reason}");
    }
    eprintln!("no AMD GPU here (asserted): {reason}");
}

#[test]
fn probe_finds_a_device_or_says_hip_error_no_device() {
    match HipBackend::probe() {
        Ok(()) => assert!(HipBackend::device_count().expect("count after a good probe") > 0),
        Err(e) => {
            assert_no_gpu_explained(&e);
            assert!(matches!(HipBackend::device_count(), Err(Error::BackendUnavailable { .. })));
            assert!(matches!(HipBackend::device(0), Err(Error::BackendUnavailable { .. })));
        }
    }
}

#[test]
fn missing_library_error_names_every_path_tried() {
    let dir = std::env::temp_dir().join("xp-no-such-rocm");
    let paths: Vec<PathBuf> = ["libamdhip64.so", "libamdhip64.so.6"]
        .iter()
        .map(|n| dir.join(n))
        .chain([PathBuf::from("libxp-no-such-hip.so.9")])
        .collect();
    let err = sys::load_from(&paths, &paths).expect_err("nothing loads from paths that do not exist");
    let Error::BackendUnavailable { backend, reason } = &err else {
        panic!("expected BackendUnavailable, got {err:?}")
    };
    assert_eq!(backend, "hip");
    for p in &paths {
        assert!(reason.contains(&p.display().to_string()), "{} missing from: {reason}", p.display());
    }
}

#[test]
fn default_candidates_cover_rocm_5_to_7_and_the_loader_path() {
    let c: Vec<String> = sys::hip_candidates().iter().map(|p| p.display().to_string()).collect();
    for want in
        ["/opt/rocm/lib/libamdhip64.so", "/opt/rocm/lib/libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"]
    {
        assert!(c.iter().any(|p| p == want), "{want} not in {c:?}");
    }
    let last = c.last().expect("candidates");
    assert!(!last.contains('/'), "the loader's own search comes last: {c:?}");
    assert!(sys::hiprtc_candidates().iter().any(|p| p.ends_with("libhiprtc.so.6")));
}

const ADD_ONE: &str = r#"extern "C" __global__ void k(float* x){ x[threadIdx.x] += 1.0f; }"#;

#[test]
fn compile_for_gfx90a_gives_a_code_object() {
    let src = KernelSource::new("k", ADD_ONE);
    match compile_for_arch(&src, &CompileOptions::default(), "gfx90a") {
        Ok(image) => {
            assert!(!image.is_empty());
            assert!(
                image.starts_with(b"\x7fELF") || image.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"),
                "not a code object: {:?}",
                &image[..image.len().min(32)]
            );
        }
        Err(e) => {
            let Error::BackendUnavailable { reason, .. } = &e else { panic!("hiprtc failed: {e}") };
            assert!(reason.contains("libhiprtc.so") || reason.contains("libamdhip64.so"), "{reason}");
        }
    }
}

#[test]
fn syntax_error_is_a_compile_error_with_log_and_kernel_name() {
    let src = KernelSource::new("broken_kernel", "extern \"C\" __global__ void k(float* x){\n  x[0] = 1.0f\n}\n");
    let opts = CompileOptions::new(["-DXP_TEST=1"]);
    match compile_for_arch(&src, &opts, "gfx90a") {
        Err(Error::Compile { kernel, log, options }) => {
            assert_eq!(kernel, "broken_kernel");
            assert!(log.contains("error"), "{log}");
            // The user's line 2, in the user's file: the prelude does not shift line numbers.
            assert!(log.contains("broken_kernel.hip:2:"), "{log}");
            assert!(options.contains("--offload-arch=gfx90a") && options.contains("-DXP_TEST=1"), "{options}");
            let shown = Error::Compile { kernel, log: log.clone(), options }.to_string();
            assert!(shown.contains("broken_kernel") && shown.contains(&log));
        }
        Err(Error::BackendUnavailable { reason, .. }) => {
            assert!(reason.contains("libhiprtc.so") || reason.contains("libamdhip64.so"), "{reason}")
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn kernel_runs_on_the_gpu_or_there_is_none() {
    let dev = match HipBackend::device(0) {
        Ok(d) => d,
        Err(e) => return assert_no_gpu_explained(&e),
    };
    let props = dev.properties();
    assert!(props.arch.starts_with("gfx") && !props.arch.contains(':'), "{props:?}");
    assert!(props.warp_size == 32 || props.warp_size == 64, "{props:?}");
    assert!(props.total_memory > 0 && props.multiprocessor_count > 0, "{props:?}");

    let module = dev.compile(&KernelSource::new("k", ADD_ONE), &CompileOptions::default()).expect("compile");
    let kernel = module.function("k").expect("kernel k");
    assert!(module.function("no_such_kernel").is_err());

    let stream = dev.new_stream().expect("stream");
    let dyn_stream: std::sync::Arc<dyn Stream> = stream.clone();
    let host: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let bytes: Vec<u8> = host.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let buf = dev.memory_pool().alloc(bytes.len(), &dyn_stream).expect("alloc");
    stream.copy_from_host(&buf, 0, &bytes).expect("copy in");
    let start = stream.record().expect("event");
    stream.launch(&*kernel, &LaunchConfig::new(1, 256), &[KernelArg::buffer(&buf)]).expect("launch");
    let end = stream.record().expect("event");
    let mut out = vec![0u8; bytes.len()];
    stream.copy_to_host(&buf, 0, &mut out).expect("copy out");
    let got: Vec<f32> = out.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, host.iter().map(|v| v + 1.0).collect::<Vec<_>>());
    end.synchronize().expect("event sync");
    assert!(end.query().expect("query"));
    assert!(start.elapsed_ms(&*end).expect("elapsed") >= 0.0);

    // A launch the device cannot run is refused before reaching the runtime.
    let n = 7u32;
    let too_big = LaunchConfig::new(1, props.max_threads_per_block + 1);
    let err = stream.launch(&*kernel, &too_big, &[KernelArg::Value(scalar_bytes(&n))]).expect_err("too many threads");
    assert_eq!(err.kind(), "Launch");
    Device::synchronize(&*dev).expect("device sync");
}

#[test]
fn a_library_without_the_hip_symbols_is_refused_naming_the_first_missing_one() {
    // libc opens everywhere but exports no HIP function: the generated loader requires them all.
    let err = sys::load_from(&[PathBuf::from("libc.so.6")], &[]).expect_err("libc is not a HIP runtime");
    let Error::BackendUnavailable { backend, reason } = &err else {
        panic!("expected BackendUnavailable, got {err:?}")
    };
    assert_eq!(backend, "hip");
    assert!(reason.contains("libc.so.6") && reason.contains("not a usable HIP runtime"), "{reason}");
    assert!(reason.contains("hipInit"), "the first missing symbol is named: {reason}");
}

#[test]
fn rocm5_runtime_gives_hiprtc_and_the_properties_layout() {
    let lib = match sys::library() {
        Ok(lib) => lib,
        Err(e) => {
            let Error::BackendUnavailable { reason, .. } = &e else { panic!("{e:?}") };
            assert!(reason.contains("libamdhip64.so.5"), "{reason}");
            return eprintln!("no HIP runtime here (asserted): {reason}");
        }
    };
    let (_, offset) = lib.device_properties.expect("the runtime exports a properties query");
    assert!(offset == sys::GCN_ARCH_NAME_OFFSET_R0000 || offset == sys::GCN_ARCH_NAME_OFFSET_R0600);
    // hiprtc is found, in its own library (ROCm 6+) or inside libamdhip64 (ROCm 5).
    if let Err(reason) = &lib.rtc {
        panic!("hiprtc not loaded: {reason}");
    }
    let rtc_path = lib.rtc_path.as_ref().expect("where hiprtc was found");
    let file = rtc_path.file_name().and_then(|f| f.to_str()).unwrap_or_default();
    assert!(file.starts_with("libhiprtc.so") || rtc_path == &lib.hip_path, "{}", rtc_path.display());
}

/// Spins for `cycles` clock cycles, then fills `x` with `v`: work that is still running long
/// after its launch returns.
const SPIN_THEN_FILL: &str = r#"
extern "C" __global__ void spin_then_fill(float* x, unsigned n, float v, long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
"#;

#[test]
fn device_synchronize_waits_for_every_stream_or_there_is_no_gpu() {
    let dev = match HipBackend::device(0) {
        Ok(d) => d,
        Err(e) => return assert_no_gpu_explained(&e),
    };
    let module = dev.compile(&KernelSource::new("spin_then_fill", SPIN_THEN_FILL), &CompileOptions::default()).unwrap();
    let k = module.function("spin_then_fill").unwrap();
    // 300 ms at the peak clock (longer at a lower one).
    let cycles = dev.properties().clock_rate_khz.max(1_000_000) as i64 * 300;
    let n = 1024usize;
    let mut queued = Vec::new();
    for v in [1.0f32, 2.0] {
        let s: std::sync::Arc<dyn Stream> = dev.new_stream().unwrap();
        let buf = dev.memory_pool().alloc(n * 4, &s).unwrap();
        let n32 = n as u32;
        let args = [
            KernelArg::buffer(&buf),
            KernelArg::Value(scalar_bytes(&n32)),
            KernelArg::Value(scalar_bytes(&v)),
            KernelArg::Value(scalar_bytes(&cycles)),
        ];
        s.launch(&*k, &LaunchConfig::for_num_elements(n as u64, 256), &args).unwrap();
        let done = s.record_event().unwrap();
        assert!(!done.query().unwrap(), "the kernel spins, so it is still running");
        queued.push((s, buf, done, v));
    }
    Device::synchronize(&*dev).unwrap();
    let mut out = vec![0u8; n * 4];
    for (_, buf, done, v) in &queued {
        assert!(done.query().unwrap(), "the work on a stream is unfinished after the device's synchronize");
        dev.default_stream().copy_to_host(buf, 0, &mut out).unwrap();
        let got: Vec<f32> = out.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, vec![*v; n]);
    }
}

#[test]
fn fft_is_hipfft_or_backend_unavailable_naming_libhipfft() {
    let dev = match HipBackend::probe().and_then(|_| HipBackend::device(0)) {
        Ok(d) => d,
        Err(e) => return assert_no_gpu_explained(&e),
    };
    let first =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| Device::fft(&*dev))).expect("fft() must not panic");
    match (first, sys::hipfft()) {
        (Ok(lib), Ok(_)) => assert!(lib.name().starts_with("hipFFT"), "{}", lib.name()),
        (Err(Error::BackendUnavailable { backend, reason }), Err(_)) => {
            assert_eq!(backend, "hip");
            assert!(reason.contains("libhipfft"), "{reason}");
            // Asked again, the device answers the same without searching again.
            assert!(matches!(Device::fft(&*dev), Err(Error::BackendUnavailable { .. })));
        }
        (other, lib) => panic!("fft() gave {:?} while the library search gave {lib:?}", other.map(|l| l.name())),
    }
}

#[test]
fn info_reports_rocsparse_in_every_case() {
    let info = HipBackend::info();
    let Some((_, path)) = info.libraries.iter().find(|(name, _)| name == "librocsparse") else {
        // Without the HIP runtime, info reports the runtime alone.
        assert!(sys::library().is_err(), "librocsparse missing from {:?}", info.libraries);
        return;
    };
    let (_, version) = info.versions.iter().find(|(name, _)| name == "rocSPARSE").expect("a rocSPARSE version entry");
    match sys::rocsparse() {
        Ok(lib) => {
            assert_eq!(path, &lib.path.display().to_string());
            if HipBackend::probe().is_err() {
                // The version needs a handle, and a handle a GPU.
                assert!(version.starts_with("unknown (") && version.contains("AMD GPU"), "{version}");
            }
        }
        Err(_) => {
            assert_eq!(version, "none");
            assert!(path.starts_with("none (") && path.contains("rocSPARSE"), "{path}");
        }
    }
}
