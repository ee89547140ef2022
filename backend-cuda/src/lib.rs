//! The CUDA backend of xp: NVIDIA GPUs through the driver API and NVRTC, both opened at run
//! time (cudarc with dynamic loading), so this crate builds and links on machines without
//! CUDA.
//!
//! # The contract, as this backend keeps it
//! - [`CudaBackend::probe`] never panics. It first finds the driver library
//!   (`libcuda.so.1`) the way cudarc's loader will, then runs `cuInit`, counts devices and
//!   finds NVRTC. A missing driver, a failing `cuInit` (with the CUDA error name), no device,
//!   or a missing NVRTC (with the hint `pip install nvidia-cuda-nvrtc`) is
//!   [`Error::BackendUnavailable`]. Where the libraries are looked for is written in the
//!   `library` module's docs; `XP_NVRTC_PATH` names NVRTC explicitly.
//! - Each device uses its primary context, made current on the calling thread by every entry
//!   point, so any thread may use any device.
//! - Streams are non-blocking CUDA streams, the device's default stream included. Launches and
//!   device-to-device copies are asynchronous; host-to-device copies go through pinned staging
//!   buffers and return as soon as the source slice may be reused; device-to-host copies return
//!   when the bytes are there.
//! - Memory comes from the shared stream-ordered [`xp_backend_api::MemoryPool`] over
//!   `cuMemAlloc`/`cuMemFree`, limited by `XP_GPU_MEMORY_LIMIT`; a failed `cuMemAlloc` is
//!   [`Error::OutOfMemory`].
//! - Kernels are compiled by NVRTC for the device's own arch straight to cubin, behind the
//!   shared [`xp_backend_api::CompileCache`] (memory, then disk). [`compile_for_arch`] compiles
//!   for any arch with NVRTC alone, without a driver or GPU.
//! - Launches are checked against the device's limits ([`xp_backend_api::check_launch`]) and,
//!   where the driver reports parameter sizes (CUDA 12.4+), against the kernel's parameters:
//!   both are [`Error::Launch`] before anything is queued.
//! - cuFFT ([`CufftLib`]) and cuBLAS ([`CublasLib`]) are found when a device's
//!   [`fft`](xp_backend_api::Device::fft) / [`blas`](xp_backend_api::Device::blas) is first
//!   asked for (`XP_CUFFT_PATH`, `XP_CUBLAS_PATH`, the toolkit, NVIDIA's pip wheels, the loader
//!   path) and called through cudarc's bindings; a missing one is
//!   [`Error::BackendUnavailable`] with the `pip install` that brings it.
//! - Errors met in destructors are kept by the pool and returned by the next synchronising call.
//!   After a sticky error (an illegal address in a kernel, a failed launch, …) the context is
//!   corrupted: every later call on that device returns [`Error::Driver`] saying so, at once,
//!   and only a new process can use the device again.
//! - Opened devices live until the process exits.
//!
//! The launch checks and argument packing, pinned staging, sticky-error state and device
//! registry are shared with the HIP backend (`xp_backend_api::gpu`); this crate gives them the
//! CUDA calls.
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

mod blas;
mod compile;
mod context;
mod device;
mod event;
mod fft;
mod library;
mod memory;
mod nccl;
mod pinned;
mod result;
mod solver;
mod sparse;
mod stream;

use std::sync::Arc;

pub use blas::CublasLib;
pub use compile::{compile_for_arch, nvrtc_path, nvrtc_version, CudaKernel, CudaModule};
pub use device::CudaDevice;
pub use event::CudaEvent;
pub use fft::{CufftLib, CufftPlan};
pub use stream::{CudaGraph, CudaStream};
use xp_backend_api::{Backend, BackendInfo, Error, Result};

/// The CUDA backend (`cuda`).
#[derive(Debug, Clone, Copy, Default)]
pub struct CudaBackend;

impl Backend for CudaBackend {
    type Device = CudaDevice;
    const NAME: &'static str = "cuda";

    fn probe() -> Result<()> {
        let count = device::device_count().map_err(|e| match e {
            e @ Error::BackendUnavailable { .. } => e,
            other => Error::BackendUnavailable { backend: "cuda".into(), reason: other.to_string() },
        })?;
        if count == 0 {
            return Err(Error::BackendUnavailable {
                backend: "cuda".into(),
                reason: "the NVIDIA driver is installed but reports no CUDA device".into(),
            });
        }
        library::nvrtc()?;
        Ok(())
    }

    fn device_count() -> Result<usize> {
        device::device_count()
    }

    fn device(ordinal: usize) -> Result<Arc<CudaDevice>> {
        device::device(ordinal)
    }

    fn info() -> BackendInfo {
        let first_line = |e: Error| format!("none ({})", e.to_string().lines().next().unwrap_or(""));
        let (driver_version, driver_path) = match library::driver() {
            Ok(d) => (driver_version().unwrap_or_else(first_line), d.name.clone()),
            Err(e) => ("none".into(), first_line(e)),
        };
        let (nvrtc_version, nvrtc_path) = match library::nvrtc() {
            Ok(n) => (format!("{}.{}", n.version.0, n.version.1), n.path.clone()),
            Err(e) => ("none".into(), first_line(e)),
        };
        let (cufft_version, cufft_path) = match library::cufft().and_then(|l| Ok((fft::cufft_version()?, l))) {
            Ok((v, l)) => (fft::version_text(v), l.path.clone()),
            Err(e) => ("none".into(), first_line(e)),
        };
        let (cublas_version, cublas_path) = match library::cublas().and_then(|l| Ok((blas::cublas_version()?, l))) {
            Ok(((major, minor, patch), l)) => (format!("{major}.{minor}.{patch}"), l.path.clone()),
            Err(e) => ("none".into(), first_line(e)),
        };
        let (cusolver_version, cusolver_path) =
            match library::cusolver().and_then(|l| Ok((solver::cusolver_version()?, l))) {
                Ok(((major, minor, patch), l)) => (format!("{major}.{minor}.{patch}"), l.path.clone()),
                Err(e) => ("none".into(), first_line(e)),
            };
        let (cusparse_version, cusparse_path) =
            match library::cusparse().and_then(|l| Ok((sparse::cusparse_version()?, l))) {
                Ok(((major, minor, patch), l)) => (format!("{major}.{minor}.{patch}"), l.path.clone()),
                Err(e) => ("none".into(), first_line(e)),
            };
        let (nccl_version, nccl_path) = match library::nccl().and_then(|l| Ok((l.version()?, l))) {
            Ok((v, l)) => (v, l.path.display().to_string()),
            Err(e) => ("none".into(), first_line(e)),
        };
        BackendInfo {
            versions: vec![
                ("CUDA driver".into(), driver_version),
                ("NVRTC".into(), nvrtc_version),
                ("cuFFT".into(), cufft_version),
                ("cuBLAS".into(), cublas_version),
                ("cuSOLVER".into(), cusolver_version),
                ("cuSPARSE".into(), cusparse_version),
                ("NCCL".into(), nccl_version),
            ],
            libraries: vec![
                ("libcuda".into(), driver_path),
                ("libnvrtc".into(), nvrtc_path),
                ("libcufft".into(), cufft_path),
                ("libcublas".into(), cublas_path),
                ("libcusolver".into(), cusolver_path),
                ("libcusparse".into(), cusparse_path),
                ("libnccl".into(), nccl_path),
            ],
        }
    }
}

/// The CUDA version the driver supports (`cuDriverGetVersion`), as `13.0`.
fn driver_version() -> Result<String> {
    type GetVersion = unsafe extern "C" fn(*mut std::ffi::c_int) -> std::ffi::c_int;
    let get: GetVersion = library::driver_symbol("cuDriverGetVersion")?;
    let mut v = 0;
    // SAFETY: cuDriverGetVersion writes one int through a valid pointer; it needs no cuInit.
    let r = unsafe { get(&mut v) };
    if r != 0 {
        return Err(Error::Driver {
            api: "cuDriverGetVersion".into(),
            code: r as i64,
            name: format!("CUresult {r}"),
            detail: String::new(),
        });
    }
    Ok(format!("{}.{}", v / 1000, (v % 1000) / 10))
}

#[cfg(test)]
mod tests {
    use super::*;
    use xp_backend_api::{CompileOptions, KernelSource};

    fn nvrtc_required() -> bool {
        matches!(std::env::var("XP_REQUIRE_NVRTC").as_deref(), Ok("1") | Ok("true") | Ok("yes"))
    }

    /// NVRTC, or `None` after asserting that its absence is reported properly.
    fn nvrtc_or_checked_absence(test: &str) -> Option<()> {
        match nvrtc_version() {
            Ok(_) => Some(()),
            Err(e) => {
                assert!(!nvrtc_required(), "XP_REQUIRE_NVRTC is set but NVRTC cannot be used: {e}");
                match &e {
                    Error::BackendUnavailable { backend, reason } => {
                        assert_eq!(backend, "cuda");
                        assert!(
                            reason.contains("NVRTC") && reason.contains("pip install nvidia-cuda-nvrtc"),
                            "{reason}"
                        );
                    }
                    other => panic!("a missing NVRTC must be BackendUnavailable, got {other:?}"),
                }
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "SKIPPED {test}: NVRTC not found ({e})");
                None
            }
        }
    }

    #[test]
    fn probe_names_what_is_missing_and_never_panics() {
        let driver = library::driver();
        let probed = std::panic::catch_unwind(CudaBackend::probe).expect("probe must not panic");
        match (driver, probed) {
            (Err(_), Ok(())) => panic!("probe succeeded without a driver library"),
            (Err(_), Err(Error::BackendUnavailable { backend, reason })) => {
                assert_eq!(backend, "cuda");
                assert!(reason.contains("libcuda.so.1"), "the reason must name the driver library: {reason}");
                assert!(reason.contains("NVIDIA driver"), "{reason}");
                // The other entry points say the same, without panicking.
                assert!(matches!(CudaBackend::device_count(), Err(Error::BackendUnavailable { .. })));
                assert!(matches!(CudaBackend::device(0), Err(Error::BackendUnavailable { .. })));
            }
            (Ok(_), Ok(())) => assert!(CudaBackend::device_count().unwrap() >= 1),
            (Ok(_), Err(Error::BackendUnavailable { backend, reason })) => {
                assert_eq!(backend, "cuda");
                assert!(
                    reason.contains("CUDA_ERROR") || reason.contains("no CUDA device") || reason.contains("NVRTC"),
                    "the reason must name the CUDA error or the missing piece: {reason}"
                );
            }
            (_, Err(other)) => panic!("probe must fail with BackendUnavailable, got {other:?}"),
        }
    }

    #[test]
    fn compile_for_arch_makes_a_cubin_without_a_gpu() {
        let src = KernelSource::new("k", r#"extern "C" __global__ void k(float* x){ x[threadIdx.x] += 1.0f; }"#);
        match compile_for_arch(&src, &CompileOptions::default(), "sm_90") {
            Ok(cubin) => {
                assert!(!cubin.is_empty());
                assert_eq!(&cubin[..4], b"\x7fELF", "a cubin is an ELF image");
            }
            Err(e) => {
                assert!(nvrtc_or_checked_absence("compile_for_arch_makes_a_cubin_without_a_gpu").is_none(), "{e}");
            }
        }
    }

    #[test]
    fn compile_error_carries_the_log_with_user_line_numbers_and_the_kernel_name() {
        if nvrtc_or_checked_absence("compile_error_carries_the_log").is_none() {
            return;
        }
        let code = "// line 1\nextern \"C\" __global__ void broken(float* x){\n    x[0] = ;\n}\n";
        let src = KernelSource::new("broken", code);
        let opts = CompileOptions::new(["-DXP_TEST=1"]);
        match compile_for_arch(&src, &opts, "sm_90") {
            Err(Error::Compile { kernel, log, options }) => {
                assert_eq!(kernel, "broken");
                assert!(log.contains("broken.cu(3)"), "the log must point at line 3 of the user's code: {log}");
                assert!(log.contains("error"), "{log}");
                assert!(options.contains("-arch=sm_90") && options.contains("-DXP_TEST=1"), "{options}");
            }
            other => panic!("expected Error::Compile, got {other:?}"),
        }
    }

    #[test]
    fn flags_reach_nvrtc_and_a_bad_option_is_a_compile_error() {
        if nvrtc_or_checked_absence("flags_reach_nvrtc").is_none() {
            return;
        }
        let code =
            "#if TILE != 16\n#error TILE must be 16\n#endif\nextern \"C\" __global__ void t(int* x){ x[0] = TILE; }";
        let src = KernelSource::new("t", code);
        assert!(compile_for_arch(&src, &CompileOptions::new(["-DTILE=16"]), "sm_80").is_ok());
        match compile_for_arch(&src, &CompileOptions::new(["-DTILE=8"]), "sm_80") {
            Err(Error::Compile { log, .. }) => assert!(log.contains("TILE must be 16"), "{log}"),
            other => panic!("expected Error::Compile, got {other:?}"),
        }
        match compile_for_arch(&src, &CompileOptions::new(["-DTILE=16", "--no-such-option"]), "sm_80") {
            Err(Error::Compile { kernel, .. }) => assert_eq!(kernel, "t"),
            other => panic!("expected Error::Compile for an unknown option, got {other:?}"),
        }
    }

    #[test]
    fn a_source_that_needs_the_full_runtime_headers_still_compiles() {
        if nvrtc_or_checked_absence("full_runtime_headers").is_none() {
            return;
        }
        // Texture objects are among what `-minimal` leaves out.
        let src = KernelSource::new(
            "tex",
            "extern \"C\" __global__ void tex(cudaTextureObject_t t, float* y) { y[0] = (float)(t != 0); }",
        );
        match compile_for_arch(&src, &CompileOptions::new(["-minimal"]), "sm_90") {
            Err(Error::Compile { .. }) => {}
            other => panic!("expected `-minimal` to leave texture objects out, got {other:?}"),
        }
        let cubin = compile_for_arch(&src, &CompileOptions::default(), "sm_90").expect("compiled without -minimal");
        assert!(!cubin.is_empty());
        // A real error is reported with the log of the full compile.
        let bad = KernelSource::new("bad", "extern \"C\" __global__ void bad(float* y) { y[0] = undefined_name; }");
        match compile_for_arch(&bad, &CompileOptions::default(), "sm_90") {
            Err(Error::Compile { log, options, .. }) => {
                assert!(log.contains("undefined_name"), "{log}");
                assert!(!options.contains("-minimal"), "{options}");
            }
            other => panic!("expected Error::Compile, got {other:?}"),
        }
    }

    #[test]
    fn a_non_nvidia_arch_is_a_value_error() {
        let src = KernelSource::new("k", "extern \"C\" __global__ void k(){}");
        match compile_for_arch(&src, &CompileOptions::default(), "gfx90a") {
            Err(Error::Value { reason, .. }) => assert!(reason.contains("gfx90a"), "{reason}"),
            Err(e @ Error::BackendUnavailable { .. }) => assert!(!nvrtc_required(), "{e}"),
            other => panic!("expected Error::Value, got {other:?}"),
        }
    }
}
