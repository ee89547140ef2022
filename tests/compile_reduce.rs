//! The cross-vendor compile check of the reduction and scan kernels: every kernel the
//! built-in reductions and scans can emit for GPUs, compiled with NVRTC for `sm_90` and with
//! hiprtc for `gfx90a`. No GPU is needed, only the compilers. In CI (`CI=true`) a missing
//! compiler fails the test.
#![cfg(all(feature = "cuda", feature = "hip"))]

use xp::backend::{CompileOptions, Error, KernelSource};
use xp::kernels::plan::TargetKind;

/// (name, code) of every kernel of `set`, batched into translation units of `batch` kernels
/// (one compiler run per batch; a failing batch is retried kernel by kernel).
fn units(set: &str, batch: usize) -> Vec<Vec<(String, String)>> {
    let all: Vec<(String, String)> = match set {
        "reduce" => xp::kernels::reduce::builtin_reduce_kernels(TargetKind::Gpu),
        _ => xp::kernels::scan::builtin_scan_kernels(TargetKind::Gpu),
    }
    .into_iter()
    .map(|r| (r.name, r.code))
    .collect();
    all.chunks(batch).map(|c| c.to_vec()).collect()
}

fn check(set: &str, compiler: &str, compile: impl Fn(&KernelSource) -> xp::Result<Vec<u8>>) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let mut ok = 0usize;
    let mut failed = Vec::new();
    let mut total = 0usize;
    for unit in units(set, 48) {
        total += unit.len();
        let code: String = unit.iter().map(|(_, c)| c.as_str()).collect::<Vec<_>>().join("\n");
        match compile(&KernelSource::new(&unit[0].0, code)) {
            Ok(img) => {
                assert!(!img.is_empty());
                ok += unit.len();
            }
            Err(Error::BackendUnavailable { reason, .. }) => {
                assert!(!in_ci, "{compiler} must be installed in CI: {reason}");
                eprintln!("SKIPPED: the {compiler} compile check of the {set} kernels: {reason}");
                return;
            }
            Err(_) => {
                for (n, c) in &unit {
                    match compile(&KernelSource::new(n, c)) {
                        Ok(_) => ok += 1,
                        Err(e) => failed.push(format!("{n}: {e}")),
                    }
                }
            }
        }
    }
    let line = format!("compile check, {set}, {compiler}: {ok} of {total} kernels compiled, {} failed", failed.len());
    println!("{line}");
    record_count(&line);
    assert!(failed.is_empty(), "{compiler} failed on:\n{}", failed.join("\n\n"));
}

fn nvrtc(s: &KernelSource) -> xp::Result<Vec<u8>> {
    xp_backend_cuda::compile_for_arch(s, &CompileOptions::default(), "sm_90")
}

fn hiprtc(s: &KernelSource) -> xp::Result<Vec<u8>> {
    xp_backend_hip::compile_for_arch(s, &CompileOptions::default(), "gfx90a")
}

#[test]
fn reduce_kernels_compile_with_nvrtc_for_sm_90() {
    check("reduce", "nvrtc sm_90", nvrtc);
}

#[test]
fn reduce_kernels_compile_with_hiprtc_for_gfx90a() {
    check("reduce", "hiprtc gfx90a", hiprtc);
}

#[test]
fn scan_kernels_compile_with_nvrtc_for_sm_90() {
    check("scan", "nvrtc sm_90", nvrtc);
}

#[test]
fn scan_kernels_compile_with_hiprtc_for_gfx90a() {
    check("scan", "hiprtc gfx90a", hiprtc);
}

/// Keep the count where CI prints it from (`target/tmp/compile-check-counts.txt`), so that
/// the counts show without running the check a second time.
fn record_count(line: &str) {
    use std::io::Write;
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("compile-check-counts.txt");
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{line}");
    }
}
