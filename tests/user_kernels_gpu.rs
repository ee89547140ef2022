//! User-defined kernels on every GPU found (`--features cuda` and/or `hip`): one test per check
//! of `array/tests/user_kernel_checks/`, named after it, each against a host reference, as
//! `array/tests/user_kernels.rs` runs them on the CPU. Without a GPU each test prints a
//! `SKIPPED` line on the runner's stderr and passes, unless `XP_REQUIRE_GPU=cuda` (or `hip`)
//! asks for one; the seeds' kernels are then still compiled with NVRTC and hiprtc, which need
//! no GPU, to prove they build for both vendors.

#[cfg(any(feature = "cuda", feature = "hip"))]
use std::io::Write;

user_kernel_tests!(crate::gpus::on_every_gpu);

/// The sources of the seeds' kernels in every layout and index width a GPU launch can pick.
#[cfg(any(feature = "cuda", feature = "hip"))]
fn seed_sources() -> Vec<(String, String)> {
    use xp::kernels::elementwise::{IndexWidth, Layout};
    use xp::DType;
    let mut out = Vec::new();
    let ew = [
        (crate::user_kernel_checks::my_kernel(), vec![DType::F32, DType::F32]),
        (crate::user_kernel_checks::my_kernel_generic(), vec![DType::F32, DType::F32]),
        (crate::user_kernel_checks::my_kernel_generic(), vec![DType::F64, DType::F64]),
        (crate::user_kernel_checks::axpb(), vec![DType::F32, DType::F32, DType::F32]),
        (crate::user_kernel_checks::leaky_relu(), vec![DType::F32, DType::F32]),
        (xp::array::ElementwiseKernel::new("raw T x", "T y", "y = x[n - 1 - i]", "reverse").unwrap(), vec![DType::F32]),
    ];
    for (k, dts) in &ew {
        for layout in [Layout::Contiguous, Layout::Flat, Layout::Strided] {
            for index in [IndexWidth::I32, IndexWidth::I64] {
                let r = k.render(dts, layout, index).unwrap();
                out.push((r.name, r.code));
            }
        }
    }
    for (k, dt) in [
        (crate::user_kernel_checks::sum_squares(), DType::F32),
        (crate::user_kernel_checks::l2norm(), DType::F32),
        (crate::user_kernel_checks::l2norm(), DType::F64),
    ] {
        for index in [IndexWidth::I32, IndexWidth::I64] {
            let r = k.render(dt, index).unwrap();
            out.push((r.name, r.code));
        }
    }
    // CuPy's k-means `sum_kernel`: a reduction of two inputs (the fused kernel).
    let sum_kernel =
        xp::ReductionKernel::new("T x, S mask", "T out", "mask ? x : 0", "a + b", "out = a", "0", "sum_kernel")
            .unwrap();
    for index in [IndexWidth::I32, IndexWidth::I64] {
        let r = sum_kernel.render_for(&[DType::F64, DType::Bool], index).unwrap();
        out.push((r.name, r.code));
    }
    for (name, code) in xp::kernels::seeds::RAW_KERNELS {
        out.push((name.to_string(), code.to_string()));
    }
    out.push(("scale".to_string(), xp::kernels::seeds::SCALE_AND_BLOCK_SUM.to_string()));
    out
}

#[cfg(any(feature = "cuda", feature = "hip"))]
fn compile_all(compiler: &str, compile: impl Fn(&xp::KernelSource) -> xp::Result<Vec<u8>>) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let mut failed = Vec::new();
    let sources = seed_sources();
    for (name, code) in &sources {
        match compile(&xp::KernelSource::new(name, code)) {
            Ok(img) => assert!(!img.is_empty()),
            Err(xp::Error::BackendUnavailable { reason, .. }) => {
                assert!(!in_ci, "{compiler} must be installed in CI: {reason}");
                let _ = writeln!(std::io::stderr(), "SKIPPED the {compiler} compile of user kernels: {reason}");
                return;
            }
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    println!("{compiler}: {} user kernels compiled, {} failed", sources.len() - failed.len(), failed.len());
    assert!(failed.is_empty(), "{compiler} failed on:\n{}", failed.join("\n\n"));
}

#[cfg(feature = "cuda")]
#[test]
fn seed_user_kernels_compile_with_nvrtc() {
    compile_all("NVRTC sm_90", |s| {
        xp_backend_cuda::compile_for_arch(s, &xp::backend::CompileOptions::default(), "sm_90")
    });
}

#[cfg(feature = "hip")]
#[test]
fn seed_user_kernels_compile_with_hiprtc() {
    compile_all("hiprtc gfx90a", |s| {
        xp_backend_hip::compile_for_arch(s, &xp::backend::CompileOptions::default(), "gfx90a")
    });
}
