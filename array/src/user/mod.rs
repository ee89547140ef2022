//! User-defined kernels, as CuPy's: [`ElementwiseKernel`], [`ReductionKernel`],
//! [`RawKernel`] / [`RawModule`], and [`fuse`].
//!
//! All of them run on every backend: on GPUs through NVRTC or hiprtc, on the CPU compiled as
//! C++ at run time (a C++ compiler is then needed; built-in ops are not affected). Kernels are
//! compiled on first use per device and per dtype combination, and cached.
//!
//! # Parameter strings
//! `"float32 x, T y, raw T z"`: comma-separated `[raw] type name`. A type is a NumPy dtype
//! name (`float32`, `int64`, `complex64`, also `float`, `double`, `int`) or a one-letter
//! *placeholder*: every parameter with the same letter has the same dtype, taken from the
//! arguments — from the output arrays first when they are given, then from the inputs (an
//! array binds a placeholder; two arrays that bind one placeholder to two dtypes are an
//! [`Error::DType`](crate::Error::DType)). A scalar argument binds a placeholder only when no array does.
//!
//! Choices where CuPy is silent or strict:
//! - an input array whose dtype differs from a parameter of fixed type is converted as it is
//!   loaded when the conversion is safe (NumPy's `can_cast`), else it is a `DType` error;
//! - an output array of another dtype than its parameter's is written with conversion when
//!   NumPy's `same_kind` rule allows;
//! - outputs start undefined unless given: an operation that reads an output (`z += x`) needs
//!   the output array passed in, which is then loaded first.
//!
//! # Names in an operation
//! Non-raw parameters are values (`const` for inputs, references for outputs) of their
//! element; `raw` parameters are pointers to the first element of a C-contiguous array,
//! indexed by hand with `i`, the flat (C-order) index of the element being computed; `n` is
//! the number of elements. Reserved, so not allowed as parameter names: `i`, `n`, names of the
//! form `inK`/`outK`, names starting or ending with `_`, and C++ keywords.
//!
//! # Compile errors in the user's lines
//! When NVRTC, hiprtc or the CPU backend's C++ compiler rejects a user kernel, the error quotes
//! the user's own text with the user's line numbers, not lines of the library's prelude or of
//! the generated wrapper. Each piece the user wrote is compiled behind a `#line 1 "<piece>"`
//! directive — `<source>` for a [`RawKernel`]/[`RawModule`], `<operation>` and `<preamble>` for
//! an [`ElementwiseKernel`], `<map_expr>`, `<reduce_expr>`, `<post_map_expr>`, `<identity>`
//! and `<preamble>` for a [`ReductionKernel`] — and the compiler's log is read back for those
//! names: the [`Error::Compile`](crate::Error::Compile) log then starts with one entry per
//! error (`my_kernel: operation, line 3: error: …`, the user's line, a caret under the column
//! when the compiler gives one) and ends with the compiler's full output. See
//! [`source_lines`]. Kernels written in Rust (`#[xp::kernel]`) are reported in the generated
//! C++'s lines (`<source>`), which the error quotes.
//!
//! # Files
//! - `params`: parameter strings, placeholder bindings and name checks;
//! - `elementwise`: [`ElementwiseKernel`] and the launch of user elementwise kernels;
//! - `reduction`: [`ReductionKernel`];
//! - `raw`: [`RawKernel`], [`RawModule`] and their [`LaunchArg`]s;
//! - `fuse`: [`fuse`], [`FuseVar`] and [`Fused`];
//! - [`source_lines`]: the `#line` marks of the user's pieces and the quoting of compile errors;
//! - [`rust_kernel`]: the runtime of kernels written in Rust (`#[xp::rawkernel]`, `#[xp::kernel]`).

use std::sync::atomic::{AtomicU64, Ordering};

mod elementwise;
mod fuse;
mod params;
mod raw;
mod reduction;
pub mod rust_kernel;
pub mod source_lines;

pub use elementwise::ElementwiseKernel;

/// The library's own elementwise kernel kept in `cell` (a `static`), defined on first use as
/// `ElementwiseKernel::new(ins, outs, op, name)` with `preamble`: how a library function keeps its
/// kernels for the life of the process (the compiled code is cached per device and dtypes).
pub(crate) fn cached_kernel(
    cell: &'static std::sync::OnceLock<ElementwiseKernel>,
    ins: &str,
    outs: &str,
    op: &str,
    name: &str,
    preamble: &str,
) -> xp_backend_api::Result<&'static ElementwiseKernel> {
    if let Some(k) = cell.get() {
        return Ok(k);
    }
    let k = ElementwiseKernel::new(ins, outs, op, name)?;
    let k = if preamble.is_empty() { k } else { k.with_preamble(preamble) };
    Ok(cell.get_or_init(|| k))
}
pub use fuse::{fuse, FuseVar, Fused};
pub use params::{parse_params, Param, ParamType};
pub use raw::{LaunchArg, RawKernel, RawModule};
pub use reduction::ReductionKernel;

/// The names of CUDA's device math functions that the host C++ compiler lacks.
const CUDA_ONLY_MATH: [&str; 4] = ["erfinv", "erfcinv", "normcdf", "normcdfinv"];

/// CUDA's inverse error functions and normal distribution (`erfinv`, `erfcinv`, `normcdf`,
/// `normcdfinv`, with their `f` forms and float overloads), defined for the CPU backend when
/// any of `texts` names one, so that a user kernel calling them compiles on every backend:
/// NVRTC and hiprtc have them built in, and on the CPU they are the library's own
/// (`xp_special.h`: Giles' estimate refined by Halley steps, to double precision).
pub(crate) fn cuda_math_for_cpu(texts: &[&str]) -> String {
    if !texts.iter().any(|t| CUDA_ONLY_MATH.iter().any(|f| t.contains(f))) {
        return String::new();
    }
    let mut s = format!("#if defined(XP_CPU)\n{}\n", xp_kernels::ops::special::PREAMBLE);
    for (name, sp) in [("erfinv", "erfinv"), ("erfcinv", "erfcinv"), ("normcdf", "ndtr"), ("normcdfinv", "ndtri")] {
        s.push_str(&format!(
            "inline double {name}(double x) {{ return xp::sp::{sp}(x); }}\n\
             inline float {name}(float x) {{ return (float)xp::sp::{sp}((double)x); }}\n\
             inline float {name}f(float x) {{ return (float)xp::sp::{sp}((double)x); }}\n"
        ));
    }
    s.push_str("#endif\n");
    s
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// FNV-1a of `s`: enough to keep the names of generated helpers apart.
pub(crate) fn fnv64(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
