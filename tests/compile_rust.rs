//! The kernels written in Rust of the tests (`rust_kernel_defs.rs`), `examples/rust_kernels.rs`
//! and `examples/bench.rs`, as the macros generate them, compiled with NVRTC for `sm_90` and
//! with hiprtc for `gfx90a`. No GPU is needed; in CI (`CI=true`) a missing compiler fails.
#![cfg(all(feature = "cuda", feature = "hip"))]

use xp::backend::{CompileOptions, Error, KernelSource};
use xp::DType;

#[allow(dead_code)]
#[path = "rust_kernel_defs.rs"]
mod defs;

#[allow(dead_code)]
#[path = "../examples/rust_kernels.rs"]
mod example;

#[allow(dead_code)]
#[path = "../examples/bench.rs"]
mod bench;

fn sources() -> Vec<(String, String)> {
    let mut out = defs::sources();
    for k in [
        &example::saxpy_jit,
        &example::matmul_tiled,
        &example::block_sum,
        &bench::saxpy_jit,
        &bench::block_sum_jit,
        &bench::matmul_tiled_jit,
    ] {
        out.push((k.instance_name(&[]), k.source().expect("a source")));
    }
    use xp::kernels::elementwise::{IndexWidth, Layout};
    for k in [&example::leaky_relu, &bench::leaky_relu_jit] {
        let e = k.elementwise().expect("an elementwise kernel");
        for dt in [DType::F32, DType::F64] {
            for layout in [Layout::Contiguous, Layout::Flat, Layout::Strided] {
                let r = e.render(&[dt, dt], layout, IndexWidth::I64).expect("a rendering");
                out.push((r.name, r.code));
            }
        }
    }
    out
}

fn check(compiler: &str, compile: impl Fn(&KernelSource) -> xp::Result<Vec<u8>>) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let sources = sources();
    let mut failed = Vec::new();
    for (name, code) in &sources {
        match compile(&KernelSource::new(name, code)) {
            Ok(img) => assert!(!img.is_empty()),
            Err(Error::BackendUnavailable { reason, .. }) => {
                assert!(!in_ci, "{compiler} must be installed in CI: {reason}");
                eprintln!("SKIPPED the {compiler} compile of kernels written in Rust: {reason}");
                return;
            }
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    println!("{compiler}: {} kernels written in Rust compiled, {} failed", sources.len() - failed.len(), failed.len());
    assert!(failed.is_empty(), "{compiler} failed on:\n{}", failed.join("\n\n"));
}

#[test]
fn rust_kernels_compile_with_nvrtc_for_sm_90() {
    check("NVRTC sm_90", |s| {
        xp_backend_cuda::compile_for_arch(s, &CompileOptions::new(["-minimal"]).with_no_contraction(true), "sm_90")
    });
}

#[test]
fn rust_kernels_compile_with_hiprtc_for_gfx90a() {
    check("hiprtc gfx90a", |s| {
        xp_backend_hip::compile_for_arch(s, &CompileOptions::default().with_no_contraction(true), "gfx90a")
    });
}
