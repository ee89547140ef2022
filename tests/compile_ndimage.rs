//! The cross-vendor compile check of `ndimage`'s interpolation kernels (the chunked spline
//! prefilter and a sample of the specialised resampling kernels: every coordinate source,
//! orders 0–5, two and three dimensions, 32- and 64-bit indices), compiled with NVRTC for
//! `sm_90` and with hiprtc for `gfx90a` in one translation unit each. No GPU is needed, only
//! the compilers. In CI (`CI=true`) a missing compiler fails the test.
#![cfg(all(feature = "cuda", feature = "hip"))]

use xp::backend::{CompileOptions, Error, KernelSource};

fn check(compiler: &str, compile: impl Fn(&KernelSource) -> xp::Result<Vec<u8>>) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let kernels = xp::ndimage::interpolation_kernels();
    assert!(kernels.len() > 30);
    let code: String = kernels.iter().map(|r| r.code.as_str()).collect::<Vec<_>>().join("\n");
    match compile(&KernelSource::new(&kernels[0].name, code)) {
        Ok(img) => assert!(!img.is_empty()),
        Err(Error::BackendUnavailable { reason, .. }) => {
            assert!(!in_ci, "{compiler} must be installed in CI: {reason}");
            eprintln!("SKIPPED: the {compiler} compile check: {reason}");
        }
        Err(e) => panic!("{compiler} failed on the ndimage interpolation kernels: {e}"),
    }
}

#[test]
fn interpolation_kernels_compile_with_nvrtc_for_sm_90() {
    check("NVRTC sm_90", |s| {
        xp_backend_cuda::compile_for_arch(s, &CompileOptions::new(["-minimal"]).with_no_contraction(true), "sm_90")
    });
}

#[test]
fn interpolation_kernels_compile_with_hiprtc_for_gfx90a() {
    check("hiprtc gfx90a", |s| {
        xp_backend_hip::compile_for_arch(s, &CompileOptions::default().with_no_contraction(true), "gfx90a")
    });
}
