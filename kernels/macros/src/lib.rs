//! Kernels written in Rust for xp, as CuPy's `cupyx.jit`: `#[xp::rawkernel]`, `#[xp::kernel]`
//! and `#[xp::device]` translate a Rust function into xp's kernel dialect (CUDA C++ with
//! `xp_prelude.h`) at cargo time, so one Rust kernel runs on NVRTC, hiprtc and the CPU
//! backend. Use them through the `xp` crate (`#[xp::rawkernel]`); the runtime side — the
//! kernel values, their launchers and the builtins' stubs — is `xp::rust_kernel`, whose docs
//! describe the supported subset and the semantics.
//!
//! # How it works
//! - `translate` walks the body, writes C++ with holes for types, solves Rust's typing of
//!   the subset (enough to type literals and choose between plain C++ operators and Rust's
//!   wrapping ones), and fills the holes. Unsupported syntax is an error at its span that
//!   says what is supported.
//! - `expand` emits the kernel's value (a `static` named as the function, holding the
//!   source and the parameters' descriptors) and a hidden, never-called copy of the function
//!   that rustc type-checks against the builtins' stubs (`xp::rust_kernel::builtins`), so a
//!   type error points at the user's line.
//!
//! The translation works on `proc_macro2` and `syn` types only, so it is unit-tested without
//! a compiler run (`cargo test -p xp-macros`): the tests check each error's message and its
//! line and column.

use proc_macro::TokenStream;

pub(crate) mod expand;
pub(crate) mod translate;
mod types;

#[cfg(test)]
mod tests;

fn run(
    attr: TokenStream,
    item: TokenStream,
    f: fn(&syn::ItemFn) -> syn::Result<proc_macro2::TokenStream>,
) -> TokenStream {
    let attr = proc_macro2::TokenStream::from(attr);
    if let Some(t) = attr.clone().into_iter().next() {
        return syn::Error::new(t.span(), "this attribute takes no arguments").to_compile_error().into();
    }
    let item = match syn::parse::<syn::ItemFn>(item) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error().into(),
    };
    match f(&item) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// A kernel with an explicit grid, as `@cupyx.jit.rawkernel()`: parameters are scalars (or a
/// type parameter bounded by `xp::Float` / `xp::Int`), `&[T]` (read) and `&mut [T]`
/// (written); the body uses `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()`,
/// `sync_threads()`, `shared_array::<T, N>()`, atomics and warp operations. The function
/// becomes a `static` of type `xp::rust_kernel::RustKernel`, launched with
/// `saxpy.launch((blocks,), (threads,), (2.0f32, &x, &y, &mut out))?`.
#[proc_macro_attribute]
pub fn rawkernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    run(attr, item, expand::rawkernel)
}

/// An elementwise kernel, as `@cupyx.jit.kernel()` and `ElementwiseKernel`: value
/// parameters are inputs (one element each, broadcast), `&mut T` parameters outputs; the
/// function becomes a `static` of type `xp::rust_kernel::RustElementwiseKernel`, called with
/// `leaky_relu.call((&x, 0.1f32))?`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    run(attr, item, expand::kernel)
}

/// A helper called from kernels (`__device__` in CUDA). The function stays an ordinary Rust
/// function too; kernels that call it carry its source.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    run(attr, item, expand::device)
}
