//! The portable kernel dialect of xp, and the code generators that write kernels in it.
//!
//! Every kernel of xp — built-in ops, generated elementwise kernels, users' raw kernels — is
//! CUDA C++ (C++17) compiled together with [`PRELUDE`] (`include/xp_prelude.h`). The prelude
//! gives NVRTC, hiprtc and a host C++ compiler the same names for element types (`xp::f16`,
//! `xp::bf16`, `xp::c64`, `xp::c128`, `xp::i32`…), math (`xp::sin`, `xp::exp` overloaded for
//! every float and complex type), thread and block indices, `__shared__`, `__syncthreads()`,
//! atomics, and the N-d strided indexer (`xp::Shape`, `xp::Strides`, `xp::offset_of`). It
//! includes no vendor header.
//!
//! Ops are data ([`ops::ElementwiseOp`]: a name, type loops, a C expression, a preamble), and
//! [`elementwise::ElementwiseSpec`] turns one op call — dtypes, layout, index width — into a
//! kernel source; reductions and scans are data too ([`reduce::ops`], [`scan::ScanOp`]). The
//! planners ([`plan`], [`reduce::plan_reduce`], [`scan::plan_scan`]) turn a call into launches
//! as data for a [`plan::Target`]. This crate knows nothing of devices beyond their
//! properties; it only writes text and plans. What only the CPU backend needs is in [`cpu`].
#![warn(missing_docs)]

pub mod binning;
pub mod cpu;
pub mod elementwise;
pub mod iir;
pub mod index;
pub mod ops;
pub mod plan;
pub mod random;
pub mod reduce;
pub mod render;
pub mod scan;
pub mod seeds;
pub mod signal;
pub mod signature;
pub mod sort;
pub mod sparse;
pub mod special;
pub mod transpose;

/// The prelude every kernel is compiled with (`include/xp_prelude.h`).
pub const PRELUDE: &str = include_str!("../include/xp_prelude.h");

/// Rust's semantics for kernels written in Rust (`include/xp_rust.h`): wrapping integer
/// arithmetic, masked shifts, defined division by zero, saturating casts, and the builtins'
/// atomics and warp operations. Kernels of `#[xp::rawkernel]` and `#[xp::kernel]` are compiled
/// with it after [`PRELUDE`].
pub const RUST_HEADER: &str = include_str!("../include/xp_rust.h");

/// A 128-bit hash of a kernel source (used as the key of built-in kernels and, with the
/// compiler's identity, of the compile cache).
pub fn source_key(code: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(code.as_bytes())
}

/// The hash of [`PRELUDE`], part of every backend's compiler identity.
pub fn prelude_hash() -> u64 {
    xxhash_rust::xxh3::xxh3_64(PRELUDE.as_bytes())
}

/// The source to hand a compiler: the prelude, then `code`, with line numbers restarting at 1
/// so that compiler messages point into `code`.
pub fn with_prelude(code: &str) -> String {
    let mut s = String::with_capacity(PRELUDE.len() + code.len() + 32);
    s.push_str(PRELUDE);
    s.push_str("\n#line 1\n");
    s.push_str(code);
    s.push('\n');
    s
}

/// The names of the `__global__` functions defined in `code` (in order of appearance).
///
/// This is a light scan, not a C++ parser: it finds each `__global__` token outside comments
/// and takes the identifier that stands before the next `(`.
pub fn kernel_names(code: &str) -> Vec<String> {
    let clean = strip_comments(code);
    let mut names = Vec::new();
    let mut rest = clean.as_str();
    while let Some(pos) = rest.find("__global__") {
        let after = &rest[pos + "__global__".len()..];
        let boundary_ok = rest[..pos].chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        // The name is the identifier before the parameters' parenthesis, past any
        // `__launch_bounds__(...)`.
        let mut from = 0;
        while let Some(paren) = after[from..].find('(').map(|p| p + from) {
            let head = after[..paren].trim_end();
            let name = trailing_ident(head).to_string();
            if name == "__launch_bounds__" {
                let mut depth = 0usize;
                let close = after[paren..].char_indices().find_map(|(i, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(paren + i + 1);
                            }
                        }
                        _ => {}
                    }
                    None
                });
                match close {
                    Some(c) => {
                        from = c;
                        continue;
                    }
                    None => break,
                }
            }
            if boundary_ok && !name.is_empty() && !names.contains(&name) {
                names.push(name);
            }
            break;
        }
        rest = after;
    }
    names
}

/// `code` with `//` and `/* */` comments replaced by spaces (string literals are kept).
pub fn strip_comments(code: &str) -> String {
    let b = code.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            out.push(b[i]);
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    out.push(b[i]);
                    i += 1;
                }
                out.push(b[i]);
                i += 1;
            }
            if i < b.len() {
                out.push(b[i]);
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            out.extend_from_slice(b"  ");
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                i += 1;
            }
            if i < b.len() {
                out.extend_from_slice(b"  ");
                i += 2;
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| code.to_string())
}

/// The identifier that ends `s` (empty when `s` ends in another character).
pub(crate) fn trailing_ident(s: &str) -> &str {
    let start =
        s.char_indices().rev().take_while(|(_, c)| c.is_alphanumeric() || *c == '_').last().map_or(s.len(), |(i, _)| i);
    &s[start..]
}

#[cfg(test)]
mod tests {
    #[test]
    fn trailing_ident_takes_the_last_name() {
        assert_eq!(crate::trailing_ident("void xp_k_1"), "xp_k_1");
        assert_eq!(crate::trailing_ident("float* "), "");
        assert_eq!(crate::trailing_ident(""), "");
        assert_eq!(crate::trailing_ident("T tile"), "tile");
    }

    use super::*;

    #[test]
    fn finds_kernel_names() {
        let src = r#"
            // __global__ void commented(int x)
            extern "C" __global__ void my_add(const float* x) {}
            extern "C" __global__
            void saxpy (float a) {}
            __device__ float helper(float x) { return x; }
            extern "C" __global__ void __launch_bounds__(256, (4)) bounded(int n) {}
        "#;
        assert_eq!(kernel_names(src), vec!["my_add", "saxpy", "bounded"]);
    }
}
