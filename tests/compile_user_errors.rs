//! Compile errors of user kernels through NVRTC (`sm_90`) and hiprtc (`gfx90a`), no GPU
//! needed: a kernel of each style with an error on line 3 of one of the user's pieces is
//! rendered as the library compiles it, and the error, read back in the user's terms
//! (`xp::array::user::source_lines`), names the piece and the line and quotes the user's text.
//! The CPU backend's C++ compiler meets the same kernels in `array/tests` (the check
//! `compile_errors_quote_the_users_lines`). A missing compiler is a visible skip (a failure in
//! CI).
#![cfg(all(feature = "cuda", feature = "hip"))]

use xp::array::user::source_lines::{explain, mark};
use xp::backend::{CompileOptions, Error, KernelSource};
use xp::kernels::elementwise::{IndexWidth, Layout};
use xp::{DType, ElementwiseKernel, ReductionKernel};

const RAW: &str =
    "extern \"C\" __global__ void bad_raw(float* x) {\n  int i = threadIdx.x;\n  x[i] = undefined_k;\n}\n";

/// (kernel, code, the pieces, the piece and line text the error must quote, the name in it).
type Case = (String, String, Vec<(&'static str, String)>, &'static str, &'static str, &'static str);

fn cases() -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    out.push((
        "bad_raw".into(),
        mark("source", RAW),
        vec![("source", RAW.to_string())],
        "source",
        "  x[i] = undefined_k;",
        "undefined_k",
    ));
    let op = "const T two = 2;\nT t = x * two;\nz = t + undefined_q;";
    let k = ElementwiseKernel::new("T x", "T z", op, "bad_operation").unwrap();
    let r = k.render(&[DType::F32], Layout::Contiguous, IndexWidth::I32).unwrap();
    out.push((
        "bad_operation".into(),
        r.code,
        vec![("operation", op.to_string()), ("preamble", String::new())],
        "operation",
        "z = t + undefined_q;",
        "undefined_q",
    ));
    let pre = "__device__ inline T helper(T v) {\n  T w = v * 2;\n  return w + missing_r;\n}";
    let k = ElementwiseKernel::new("T x", "T z", "z = helper(x)", "bad_preamble").unwrap().with_preamble(pre);
    let r = k.render(&[DType::F64], Layout::Strided, IndexWidth::I64).unwrap();
    out.push((
        "bad_preamble".into(),
        r.code,
        vec![("operation", "z = helper(x)".to_string()), ("preamble", pre.to_string())],
        "preamble",
        "  return w + missing_r;",
        "missing_r",
    ));
    let map = "(x > 0\n ? x\n : undefined_m)";
    let k = ReductionKernel::new("T x", "T y", map, "a + b", "y = a", "0", "bad_map").unwrap();
    let r = k.render(DType::F32, IndexWidth::I32).unwrap();
    out.push((
        "bad_map".into(),
        r.code,
        vec![("map_expr", map.to_string())],
        "map_expr",
        " : undefined_m)",
        "undefined_m",
    ));
    let map2 = "(mask\n ? x\n : undefined_m)";
    let k = ReductionKernel::new("T x, S mask", "T y", map2, "a + b", "y = a", "0", "bad_map2").unwrap();
    let r = k.render_for(&[DType::F64, DType::Bool], IndexWidth::I64).unwrap();
    out.push((
        "bad_map2".into(),
        r.code,
        vec![("map_expr", map2.to_string())],
        "map_expr",
        " : undefined_m)",
        "undefined_m",
    ));
    out
}

fn check(compiler: &str, compile: impl Fn(&KernelSource) -> xp::Result<Vec<u8>>) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    for (kernel, code, pieces, piece, line, ident) in cases() {
        let err = match compile(&KernelSource::new(&kernel, &code)) {
            Err(Error::BackendUnavailable { reason, .. }) => {
                assert!(!in_ci, "{compiler} must be installed in CI: {reason}");
                eprintln!("SKIPPED the {compiler} compile errors of user kernels: {reason}");
                return;
            }
            Ok(_) => panic!("{compiler} compiled {kernel}, which has an error"),
            Err(e) => e,
        };
        let pieces: Vec<(&str, &str)> = pieces.iter().map(|(p, t)| (*p, t.as_str())).collect();
        let msg = explain(err, &kernel, &pieces).to_string();
        let head = format!("{kernel}: {piece}, line 3: error");
        let first =
            msg.lines().find(|l| l.starts_with(&head)).unwrap_or_else(|| panic!("{compiler}: no `{head}` in {msg}"));
        assert!(first.contains(ident), "{compiler}: the message names `{ident}`: {msg}");
        assert!(msg.contains(&format!("  3 | {line}\n")), "{compiler}: line 3 quoted: {msg}");
        println!("{compiler}: {first}");
    }
}

#[test]
fn user_kernel_compile_errors_quote_the_users_lines_with_nvrtc() {
    check("NVRTC sm_90", |s| xp_backend_cuda::compile_for_arch(s, &CompileOptions::new(["-minimal"]), "sm_90"));
}

#[test]
fn user_kernel_compile_errors_quote_the_users_lines_with_hiprtc() {
    check("hiprtc gfx90a", |s| xp_backend_hip::compile_for_arch(s, &CompileOptions::default(), "gfx90a"));
}
