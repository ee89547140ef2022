//! The cross-vendor compile check: the built-in kernels the generator emits (the element-wise
//! ops sampled, see [`units`]), plus the seeds' raw kernels and samples of lazy fusion's
//! reductions, compiled with NVRTC for `sm_90` and with hiprtc for `gfx90a`. No GPU is needed,
//! only the compilers (CI installs both). In CI (`CI=true`) a missing compiler fails the test.
#![cfg(all(feature = "cuda", feature = "hip"))]

use xp::backend::{CompileOptions, Error, KernelSource};

/// (name, code) of every kernel to check, batched into translation units of `batch` kernels
/// (one compiler run per batch; a failing batch is retried kernel by kernel).
///
/// The element-wise ops are sampled as the op table grows: on GPUs each loop in one of the
/// five forms, every form met by every op (`gpu_kernels_sampled`), and one row kernel (CPU
/// code) in five; the other kernel families (indexing, reductions, scans, sorting, signal, the
/// blocked IIR filter, random, sparse, fused reductions, the k-d tree's search, the generic
/// filters of `ndimage` with a sample user function, the level-scheduled ILU(0) and triangular
/// solves of `sparse.linalg`, the seeds' raw kernels) are checked in full.
///
/// The ops that call helpers of a preamble (SciPy's special functions: long bodies that take
/// both compilers seconds and gigabytes per unit of 64) are sampled: each such op is checked in
/// its first row kernel and its first GPU kernel, in units of [`PREAMBLE_BATCH`], so that every
/// op's helpers and one loop's body meet both compilers in both kinds of code around them; the
/// plain ops check every layout's code in full.
fn units(batch: usize, part: Part) -> Vec<Vec<(String, String)>> {
    // The element-wise row kernels (CPU code) one in five; the rest of the CPU set in full.
    let rows: std::collections::HashMap<String, usize> =
        xp::kernels::elementwise::builtin_kernels().into_iter().enumerate().map(|(k, r)| (r.name, k)).collect();
    let cpu: Vec<_> = xp::kernels::cpu::cpu_builtin_kernels()
        .into_iter()
        .filter(|r| rows.get(&r.name).is_none_or(|k| k % 5 == 0))
        .collect();
    let gpu_start = cpu.len();
    let all: Vec<(String, String)> = cpu
        .into_iter()
        .chain(xp::kernels::elementwise::gpu_kernels_sampled())
        .chain(xp::kernels::index::gpu_only_kernels())
        .chain(xp::kernels::sort::gpu_only_kernels())
        .chain(xp::kernels::signal::gpu_only_kernels())
        .chain(xp::kernels::iir::all_kernels())
        .chain(xp::kernels::reduce::fused::sample_kernels())
        .chain(xp::random::builtin_kernels())
        .chain(xp::spatial::builtin_kernels())
        .chain(xp::ndimage::builtin_kernels().expect("the generic filters' kernels render"))
        .chain(xp::ndimage::interpolation_kernels())
        .chain(xp::sparse::linalg::level_scheduled_kernels().expect("the level-scheduled sparse kernels render"))
        .chain(xp::sparse::raw_kernels())
        .map(|r| (r.name, r.code))
        .collect();
    let with_preamble: Vec<&str> =
        xp::kernels::ops::ALL.iter().filter(|op| !op.preamble.is_empty()).map(|op| op.name).collect();
    // The op of an element-wise kernel `xp_<op>_<loop>_<layout>…`, when it has a preamble (the
    // longest such name, so that `gammaln` is not taken for `gamma`).
    let preamble_op = |name: &str| -> Option<&str> {
        let rest = name.strip_prefix("xp_")?;
        with_preamble
            .iter()
            .copied()
            .filter(|op| rest.strip_prefix(op).is_some_and(|r| r.starts_with('_')))
            .max_by_key(|op| op.len())
    };
    let mut seen = std::collections::HashSet::new();
    let (mut plain, mut sampled) = (Vec::new(), Vec::new());
    for (k, (name, code)) in all.into_iter().enumerate() {
        match preamble_op(&name) {
            None => plain.push((name, code)),
            Some(op) => {
                if seen.insert((op.to_string(), k >= gpu_start)) {
                    sampled.push((name, code));
                }
            }
        }
    }
    if part == Part::Preamble {
        return sampled.chunks(PREAMBLE_BATCH).map(|c| c.to_vec()).collect();
    }
    let mut out: Vec<Vec<_>> = plain.chunks(batch).map(|c| c.to_vec()).collect();
    for (n, c) in xp::kernels::seeds::RAW_KERNELS {
        out.push(vec![(n.to_string(), c.to_string())]);
    }
    out
}

/// The two halves of the check, separate tests so that the test harness runs them side by side.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Part {
    /// Every kernel of the ops without a preamble, and the seeds' raw kernels.
    Plain,
    /// The sampled kernels of the ops with preambles.
    Preamble,
}

/// Kernels per unit for the sampled ops with preambles.
const PREAMBLE_BATCH: usize = 8;

fn check(compiler: &str, part: Part, compile: impl Fn(&KernelSource) -> xp::Result<Vec<u8>>) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let mut ok = 0usize;
    let mut failed = Vec::new();
    let mut total = 0usize;
    let started = std::time::Instant::now();
    for unit in units(64, part) {
        total += unit.len();
        let code: String = unit.iter().map(|(_, c)| c.as_str()).collect::<Vec<_>>().join("\n");
        let t0 = std::time::Instant::now();
        let result = compile(&KernelSource::new(&unit[0].0, code));
        if std::env::var_os("XP_COMPILE_CHECK_TIMES").is_some() {
            eprintln!("{compiler}: {} kernels from {}: {:.1} s", unit.len(), unit[0].0, t0.elapsed().as_secs_f64());
        }
        match result {
            Ok(img) => {
                assert!(!img.is_empty());
                ok += unit.len();
            }
            Err(Error::BackendUnavailable { reason, .. }) => {
                assert!(!in_ci, "{compiler} must be installed in CI: {reason}");
                eprintln!("SKIPPED: the {compiler} compile check: {reason}");
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
    let line = format!(
        "compile check, {compiler}, {}: {ok} of {total} kernels compiled, {} failed ({:.0} s)",
        match part {
            Part::Plain => "plain ops",
            Part::Preamble => "ops with preambles",
        },
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    println!("{line}");
    record_count(&line);
    assert!(failed.is_empty(), "{compiler} failed on:\n{}", failed.join("\n\n"));
}

fn nvrtc(s: &KernelSource) -> xp::Result<Vec<u8>> {
    // `-minimal` named: the first and only attempt, so a kernel that would need the full
    // runtime headers (and so compile twice at run time) fails here.
    xp_backend_cuda::compile_for_arch(s, &CompileOptions::new(["-minimal"]), "sm_90")
}

fn hiprtc(s: &KernelSource) -> xp::Result<Vec<u8>> {
    xp_backend_hip::compile_for_arch(s, &CompileOptions::default(), "gfx90a")
}

#[test]
fn every_kernel_compiles_with_nvrtc_for_sm_90() {
    check("NVRTC sm_90", Part::Plain, nvrtc);
}

#[test]
fn the_ops_with_preambles_compile_with_nvrtc_for_sm_90() {
    // NVRTC's fast-compile level: the same front end and code generation, without the
    // optimisation passes that take minutes over the long special-function helpers.
    check("NVRTC sm_90", Part::Preamble, |s| {
        xp_backend_cuda::compile_for_arch(s, &CompileOptions::new(["-minimal", "-Ofc=max"]), "sm_90")
    });
}

#[test]
fn every_kernel_compiles_with_hiprtc_for_gfx90a() {
    check("hiprtc gfx90a", Part::Plain, hiprtc);
}

#[test]
fn the_ops_with_preambles_compile_with_hiprtc_for_gfx90a() {
    check("hiprtc gfx90a", Part::Preamble, hiprtc);
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

/// The `ndimage` kernels alone (the tiled filters among them), one unit each, for a quick
/// check of that family with both compilers.
#[test]
fn the_ndimage_kernels_compile_for_sm_90_and_gfx90a() {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let kernels = xp::ndimage::builtin_kernels().expect("the ndimage kernels render");
    for r in &kernels {
        let unit = KernelSource::new(&r.name, r.code.clone());
        for (compiler, result) in [("NVRTC sm_90", nvrtc(&unit)), ("hiprtc gfx90a", hiprtc(&unit))] {
            match result {
                Ok(img) => assert!(!img.is_empty()),
                Err(Error::BackendUnavailable { reason, .. }) => {
                    assert!(!in_ci, "{compiler} must be installed in CI: {reason}");
                    eprintln!("SKIPPED: the {compiler} check of the ndimage kernels: {reason}");
                }
                Err(e) => panic!("{compiler}, {}: {e}", r.name),
            }
        }
    }
}
