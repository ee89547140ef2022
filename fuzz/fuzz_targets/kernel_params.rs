//! The two kernel-parameter grammars: the C parameter lists of raw kernels' sources
//! (`xp_kernels::signature`, which RawKernel's argument checks read) and the
//! `ElementwiseKernel`/`ReductionKernel` parameter strings (`"T x, raw float32 y"`). Any text is
//! an answer or an error, never a panic; what parses names every parameter once.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xp_array::user::parse_params;
use xp_kernels::signature::{kernel_params, Param};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The first line is the kernel's name, the rest its source.
    let (name, code) = text.split_once('\n').unwrap_or(("k", text));
    if let Some(params) = kernel_params(code, name) {
        for p in &params {
            if let Param::Scalar { bytes, .. } = p {
                assert!(matches!(bytes, 1 | 2 | 4 | 8 | 16), "{p:?}");
            }
        }
    }
    if let Ok(params) = parse_params("fuzz", text) {
        let mut names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len(), "a parameter named twice was accepted: {text:?}");
    }
});
