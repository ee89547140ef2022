//! NumPy-style arrays for xp, on whichever backend the arrays live.
//!
//! This crate does not depend on any backend: the `xp` facade registers the backends its
//! features enable ([`register_backend`]), and device selection works over that registry.
//! Device selection follows CuPy: `XP_DEVICE=cpu|cuda:N|hip:N` names the default device;
//! without it the first GPU found is the default, else the CPU.
//!
//! # For NumPy users
//! - [`Array`] has a run-time dtype and rank. Views ([`Array::slice`], [`Array::t`],
//!   [`Array::reshape`], [`Array::broadcast_to`]…) share the buffer; strides are counted in
//!   elements, not bytes.
//! - Every op returns `Result`; the operators (`&a + &b`, `&a * 2.0`) call the same ops and
//!   panic with the op's error message.
//! - Promotion is NumPy 2's (NEP 50): Rust scalars are weak, so `&a * 2.0` keeps `float32`,
//!   and `uint8` plus 300 is an `Overflow` error.
//! - Casting float → integer is NumPy's where NumPy defines it (truncation, and within the
//!   int64 range a wrap to the target's width, as on x86-64); where its result is undefined
//!   (NaN, infinities, beyond int64) xp gives one answer on every backend: NaN gives 0, the
//!   others saturate to the target's range.
//! - Ops are queued on the current stream and return at once; reading to the host waits.
//! - Memory order is NumPy's: `order='F'` is [`Order::F`] in the `_order` forms
//!   (`zeros_order`, `copy_order`, `reshape_order`, …), `a.flags` is [`Array::flags`], and
//!   elementwise results keep a Fortran layout of their inputs ([`memory_order`]).
//! - `a[.., 1::2, -1]` is `a.at(s![.., 1..;2, -1])`, `a[mask] = 0` is `a.set(s![&mask], 0.0)`
//!   ([`s!`], [`indexing::slicing`]).
//!
//! # Where things go
//! - The array core, at the top of the crate: [`Array`] with its [`layout`] and promotion
//!   ([`promote`]), the ufuncs ([`ufunc`]), reductions and scans ([`reduce`]), NumPy's creation
//!   routines ([`creation`], `logspace` and `geomspace` included), indexing ([`indexing`]:
//!   `a[index]` and `s!`, `take`/`put`, masks, NumPy's indexing routines and index arrays),
//!   files ([`io`]: `.npy`/`.npz` and text) and sorting ([`sort`](mod@sort)).
//! - NumPy's other routines in [`routines`], one file per kind: `manip`, `math`, `logic`,
//!   `stats`, `order`, `binning`, `polynomial`, `window`, `pad`, `special`, `grids` (`mgrid`,
//!   `ogrid`, the `*_indices_from` helpers), `views` (`rollaxis`, `sliding_window_view`, …),
//!   `bits` (`packbits`, `unpackbits`), `info` (`finfo`, `iinfo`). [`routines`] is
//!   also NumPy's function namespace: it re-exports the indexing, spacing and text-file
//!   functions, so that the crate root and the facade's `xp::` take every NumPy function with
//!   one glob.
//! - Printing: `{}` is NumPy's `str(a)`, `{:#}` its `repr(a)` ([`display`], with NumPy's print
//!   options). The operators (`&a + &b`, `&a * 2.0`) and the in-place ones (`x += &y`, with
//!   fallible forms `x.add_assign(&y)?`) follow NumPy's promotion and casting.
//! - NumPy's submodules under NumPy's names: [`linalg`], [`fft`], [`random`]. xp's own:
//!   [`device`](mod@device) selection, [`distributed`], user kernels ([`user`]).
//! - SciPy's modules: one folder per SciPy module, named as SciPy names it and re-exported by
//!   the facade under that name: [`signal`] (with `signal::windows`), [`sparse`] (with
//!   `sparse::linalg` and `sparse::csgraph`), [`special`], [`stats`], [`interpolate`],
//!   [`spatial`] and [`ndimage`]. SciPy's additions to linalg (`solve_triangular`, `lu_factor`,
//!   `expm`, special matrices) are files of their own in `linalg/`, still `xp::linalg`, and
//!   `scipy.fft`'s transforms (`dct`, `dst`, `fht`, …) are `fft/trig.rs` and `fft/hankel.rs`,
//!   still `xp::fft`. Elementwise
//!   special functions (`erf`, `expit`, `xlogy`, …) are ops in the kernels' op table
//!   (`xp_kernels::ops::special`), so that they fuse and pick their loops as the ufuncs do;
//!   [`special`] calls them and holds the ones built on reductions (`softmax`, `logsumexp`).
//! - NumPy's window functions (`xp::hanning`, …, `xp::kaiser`) stay in `routines/window.rs`
//!   while SciPy's `signal.windows` will be `signal/windows.rs`; likewise NumPy's `i0`,
//!   `nextafter` and `spacing` stay in `routines/special.rs`, and NumPy's statistics in
//!   `routines/stats.rs`.
#![warn(missing_docs)]

mod array;
pub mod array_module;
pub mod creation;
pub mod device;
pub mod display;
pub mod distributed;
pub mod element;
mod exec;
pub mod fft;
pub mod indexing;
pub mod interop;
pub mod interpolate;
pub mod io;
pub mod layout;
pub mod lazy;
pub mod linalg;
pub mod memory_order;
pub mod ndarray_interop;
pub mod ndimage;
pub mod promote;
pub mod random;
pub mod reduce;
pub mod routines;
pub mod signal;
pub mod sort;
pub mod sparse;
pub mod spatial;
pub mod special;
pub mod stats;
pub mod stream;
pub mod ufunc;
pub mod user;

pub use array::Array;
/// `num_complex`, whose `Complex<f32>` and `Complex<f64>` are the complex elements and scalars.
pub use num_complex;
/// The imaginary unit as a scalar operand, Python's `1j`: `&x + &y * xp::J` is NumPy's `x + 1j * y`.
pub const J: num_complex::Complex<f64> = num_complex::Complex::new(0.0, 1.0);
pub use array_module::{get_array_module, ArrayModule};
pub use creation::*;
pub use device::{
    current_device, default_device, device, devices, parse_device_label, register_backend, registered_backends,
    with_device,
};
pub use display::{array2string, array_repr, array_str, get_printoptions, set_printoptions, PrintOptions};
pub use element::Element;
pub use exec::{current_stream, with_stream as with_stream_on};
pub use io::{load_npy, load_npz, save_npz};
pub use layout::{Layout, SliceArg};
pub use lazy::eval;
pub use memory_order::{
    ascontiguousarray, asfortranarray, empty_like_order, empty_order, full_like_order, full_order, ones_like_order,
    ones_order, zeros_like_order, zeros_order, Flags, Order,
};
pub use promote::{can_cast_safe, promote_types, result_type, Scalar};
pub use routines::*;
pub use signal::numpy::{convolve, correlate};
pub use sort::{
    argpartition, argsort, lexsort, partition, searchsorted, sort, sort_complex, unique, unique_all, Side, Unique,
};
pub use stream::{get_elapsed_time, with_stream, Event, Graph, Stream, StreamGuard};
pub use ufunc::{call, clip, where_, Operand, ScalarOperand};
pub use user::{fuse, ElementwiseKernel, FuseVar, LaunchArg, RawKernel, RawModule, ReductionKernel};
pub use xp_backend_api::{DType, Error, Result};
