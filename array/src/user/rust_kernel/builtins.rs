//! The builtins a kernel written in Rust calls, as Rust functions, and the [`Float`] and
//! [`Int`] bounds of its type parameters.
//!
//! The macros translate each call into the dialect (`thread_idx().x` is `threadIdx.x`,
//! `sync_threads()` is `__syncthreads()` …); the functions here exist so that rustc
//! type-checks kernel bodies and reports a type error at the line that has it. Called on the
//! host they behave as a grid of one block of one thread, in a warp of one lane: indices are
//! 0, dimensions 1, barriers do nothing, atomics update in place, shuffles return their own
//! value. [`shared_array`] leaks its memory when called on the host (a kernel's shared memory
//! lives as long as the block; on the host there is no block to end).
//!
//! | builtin | CUDA C++ |
//! | --- | --- |
//! | `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()` (`.x`, `.y`, `.z`: `u32`) | `threadIdx` … |
//! | `sync_threads()` | `__syncthreads()` |
//! | `let t = shared_array::<T, N>();` (`T` may be `[U; M]`: 2-d) | `__shared__ T t[N];` |
//! | `let t = shared_dyn::<T>();` (sized by `launch_with`'s bytes) | `extern __shared__ T t[];` |
//! | `atomic_add(&mut x[i], v)` (also `sub`, `min`, `max`, `and`, `or`, `xor`, `exch`; `atomic_cas(&mut x[i], cmp, v)`) | `atomicAdd(&x[i], v)` … |
//! | `shfl(v, lane)`, `shfl_down(v, d)`, `shfl_up(v, d)`, `shfl_xor(v, m)` | `__shfl_sync` … (whole warp) |
//! | `ballot(p)` (`u64`: 32 or 64 lanes), `warp_any(p)`, `warp_all(p)`, `lane_id()`, `warp_size()`, `sync_warp()` | `__ballot_sync` … |

use std::ops::{Add, AddAssign, BitAnd, BitOr, BitXor, Div, DivAssign, Mul, MulAssign, Neg, Not, Rem, Sub, SubAssign};

/// What `thread_idx()`, `block_idx()`, `block_dim()` and `grid_dim()` return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim3 {
    /// x.
    pub x: u32,
    /// y.
    pub y: u32,
    /// z.
    pub z: u32,
}

/// The thread's index in its block (`threadIdx`).
pub fn thread_idx() -> Dim3 {
    Dim3 { x: 0, y: 0, z: 0 }
}

/// The block's index in the grid (`blockIdx`).
pub fn block_idx() -> Dim3 {
    Dim3 { x: 0, y: 0, z: 0 }
}

/// The block's size (`blockDim`).
pub fn block_dim() -> Dim3 {
    Dim3 { x: 1, y: 1, z: 1 }
}

/// The grid's size (`gridDim`).
pub fn grid_dim() -> Dim3 {
    Dim3 { x: 1, y: 1, z: 1 }
}

/// A barrier for the threads of a block (`__syncthreads()`).
pub fn sync_threads() {}

/// A barrier for the lanes of a warp.
pub fn sync_warp() {}

/// `N` elements of shared memory (`__shared__ T name[N];`), bound with `let`.
pub fn shared_array<T: Copy + Default, const N: usize>() -> &'static mut [T; N] {
    let b: Box<[T]> = vec![T::default(); N].into_boxed_slice();
    match <Box<[T; N]>>::try_from(b) {
        Ok(a) => Box::leak(a),
        Err(_) => unreachable!("a boxed slice of N elements is an array of N"),
    }
}

/// The launch's dynamic shared memory as a slice of `T` (`extern __shared__ T name[];`); its
/// length is not known to the kernel.
pub fn shared_dyn<T: Copy>() -> &'static mut [T] {
    &mut []
}

/// The lane's index in its warp.
pub fn lane_id() -> u32 {
    0
}

/// The lanes of a warp: 32 on CUDA, 64 or 32 on HIP, 1 on the CPU backend.
pub fn warp_size() -> u32 {
    1
}

/// `v` of lane `lane` of the warp.
pub fn shfl<T: Copy>(v: T, lane: u32) -> T {
    let _ = lane;
    v
}

/// `v` of the lane `d` above (own value past the warp's end).
pub fn shfl_down<T: Copy>(v: T, d: u32) -> T {
    let _ = d;
    v
}

/// `v` of the lane `d` below (own value before the warp's start).
pub fn shfl_up<T: Copy>(v: T, d: u32) -> T {
    let _ = d;
    v
}

/// `v` of lane `lane_id() ^ m`.
pub fn shfl_xor<T: Copy>(v: T, m: u32) -> T {
    let _ = m;
    v
}

/// The mask of the warp's lanes whose `p` holds.
pub fn ballot(p: bool) -> u64 {
    p as u64
}

/// Whether `p` holds on some lane of the warp.
pub fn warp_any(p: bool) -> bool {
    p
}

/// Whether `p` holds on every lane of the warp.
pub fn warp_all(p: bool) -> bool {
    p
}

/// Element types with atomic operations: `i32`, `u32`, `i64`, `u64`, `f32`, `f64` (and, for
/// `and`/`or`/`xor`, the integers among them).
pub trait Atomic: Copy + PartialOrd {
    /// `self + v`, wrapping for integers.
    fn atomic_sum(self, v: Self) -> Self;
    /// `self - v`, wrapping for integers.
    fn atomic_difference(self, v: Self) -> Self;
}

/// Integer element types with atomic bit operations.
pub trait AtomicBits: Atomic + BitAnd<Output = Self> + BitOr<Output = Self> + BitXor<Output = Self> {}

macro_rules! atomic_int {
    ($($t:ty),*) => {$(
        impl Atomic for $t {
            fn atomic_sum(self, v: Self) -> Self { self.wrapping_add(v) }
            fn atomic_difference(self, v: Self) -> Self { self.wrapping_sub(v) }
        }
        impl AtomicBits for $t {}
    )*};
}
atomic_int!(i32, u32, i64, u64);
impl Atomic for f32 {
    fn atomic_sum(self, v: Self) -> Self {
        self + v
    }
    fn atomic_difference(self, v: Self) -> Self {
        self - v
    }
}
impl Atomic for f64 {
    fn atomic_sum(self, v: Self) -> Self {
        self + v
    }
    fn atomic_difference(self, v: Self) -> Self {
        self - v
    }
}

fn update<T: Copy>(p: &mut T, new: T) -> T {
    std::mem::replace(p, new)
}

/// `*p += v` atomically; the old value.
pub fn atomic_add<T: Atomic>(p: &mut T, v: T) -> T {
    let new = p.atomic_sum(v);
    update(p, new)
}

/// `*p -= v` atomically; the old value.
pub fn atomic_sub<T: Atomic>(p: &mut T, v: T) -> T {
    let new = p.atomic_difference(v);
    update(p, new)
}

/// `*p = max(*p, v)` atomically; the old value.
pub fn atomic_max<T: Atomic>(p: &mut T, v: T) -> T {
    let new = if *p < v { v } else { *p };
    update(p, new)
}

/// `*p = min(*p, v)` atomically; the old value.
pub fn atomic_min<T: Atomic>(p: &mut T, v: T) -> T {
    let new = if v < *p { v } else { *p };
    update(p, new)
}

/// `*p &= v` atomically; the old value.
pub fn atomic_and<T: AtomicBits>(p: &mut T, v: T) -> T {
    let new = *p & v;
    update(p, new)
}

/// `*p |= v` atomically; the old value.
pub fn atomic_or<T: AtomicBits>(p: &mut T, v: T) -> T {
    let new = *p | v;
    update(p, new)
}

/// `*p ^= v` atomically; the old value.
pub fn atomic_xor<T: AtomicBits>(p: &mut T, v: T) -> T {
    let new = *p ^ v;
    update(p, new)
}

/// `*p = v` atomically; the old value.
pub fn atomic_exch<T: Atomic>(p: &mut T, v: T) -> T {
    update(p, v)
}

/// `*p = v` if `*p == cmp`, atomically; the old value.
pub fn atomic_cas<T: Atomic>(p: &mut T, cmp: T, v: T) -> T {
    let old = *p;
    if old == cmp {
        *p = v;
    }
    old
}

/// Conversions into a kernel's type parameter (`T::from_f64(0.5)`), as `as` would convert.
pub trait FromPrimitive: Sized {
    /// From an `f64`.
    fn from_f64(v: f64) -> Self;
    /// From an `f32`.
    fn from_f32(v: f32) -> Self;
    /// From an `i64`.
    fn from_i64(v: i64) -> Self;
    /// From an `i32`.
    fn from_i32(v: i32) -> Self;
    /// From a `usize`.
    fn from_usize(v: usize) -> Self;
}

macro_rules! from_primitive {
    ($($t:ty),*) => {$(
        impl FromPrimitive for $t {
            fn from_f64(v: f64) -> Self { v as $t }
            fn from_f32(v: f32) -> Self { v as $t }
            fn from_i64(v: i64) -> Self { v as $t }
            fn from_i32(v: i32) -> Self { v as $t }
            fn from_usize(v: usize) -> Self { v as $t }
        }
    )*};
}
from_primitive!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

/// The bound of a float type parameter of a kernel (`T: xp::Float`): `f32` or `f64`, with the
/// math methods kernels may call.
#[allow(missing_docs)]
pub trait Float:
    Copy
    + Default
    + PartialOrd
    + FromPrimitive
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    fn sqrt(self) -> Self;
    fn cbrt(self) -> Self;
    fn exp(self) -> Self;
    fn exp2(self) -> Self;
    fn exp_m1(self) -> Self;
    fn ln(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn asinh(self) -> Self;
    fn acosh(self) -> Self;
    fn atanh(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn trunc(self) -> Self;
    fn round(self) -> Self;
    fn fract(self) -> Self;
    fn recip(self) -> Self;
    fn to_degrees(self) -> Self;
    fn to_radians(self) -> Self;
    fn signum(self) -> Self;
    fn abs(self) -> Self;
    fn max(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn clamp(self, lo: Self, hi: Self) -> Self;
    fn powf(self, o: Self) -> Self;
    fn powi(self, n: i32) -> Self;
    fn atan2(self, o: Self) -> Self;
    fn hypot(self, o: Self) -> Self;
    fn copysign(self, o: Self) -> Self;
    fn mul_add(self, a: Self, b: Self) -> Self;
    fn log(self, base: Self) -> Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_finite(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn is_sign_positive(self) -> bool;
}

macro_rules! float_impl {
    ($($t:ty),*) => {$(
        impl Float for $t {
            fn sqrt(self) -> Self { <$t>::sqrt(self) }
            fn cbrt(self) -> Self { <$t>::cbrt(self) }
            fn exp(self) -> Self { <$t>::exp(self) }
            fn exp2(self) -> Self { <$t>::exp2(self) }
            fn exp_m1(self) -> Self { <$t>::exp_m1(self) }
            fn ln(self) -> Self { <$t>::ln(self) }
            fn log2(self) -> Self { <$t>::log2(self) }
            fn log10(self) -> Self { <$t>::log10(self) }
            fn ln_1p(self) -> Self { <$t>::ln_1p(self) }
            fn sin(self) -> Self { <$t>::sin(self) }
            fn cos(self) -> Self { <$t>::cos(self) }
            fn tan(self) -> Self { <$t>::tan(self) }
            fn asin(self) -> Self { <$t>::asin(self) }
            fn acos(self) -> Self { <$t>::acos(self) }
            fn atan(self) -> Self { <$t>::atan(self) }
            fn sinh(self) -> Self { <$t>::sinh(self) }
            fn cosh(self) -> Self { <$t>::cosh(self) }
            fn tanh(self) -> Self { <$t>::tanh(self) }
            fn asinh(self) -> Self { <$t>::asinh(self) }
            fn acosh(self) -> Self { <$t>::acosh(self) }
            fn atanh(self) -> Self { <$t>::atanh(self) }
            fn floor(self) -> Self { <$t>::floor(self) }
            fn ceil(self) -> Self { <$t>::ceil(self) }
            fn trunc(self) -> Self { <$t>::trunc(self) }
            fn round(self) -> Self { <$t>::round(self) }
            fn fract(self) -> Self { <$t>::fract(self) }
            fn recip(self) -> Self { <$t>::recip(self) }
            fn to_degrees(self) -> Self { <$t>::to_degrees(self) }
            fn to_radians(self) -> Self { <$t>::to_radians(self) }
            fn signum(self) -> Self { <$t>::signum(self) }
            fn abs(self) -> Self { <$t>::abs(self) }
            fn max(self, o: Self) -> Self { <$t>::max(self, o) }
            fn min(self, o: Self) -> Self { <$t>::min(self, o) }
            fn clamp(self, lo: Self, hi: Self) -> Self { if self < lo { lo } else if self > hi { hi } else { self } }
            fn powf(self, o: Self) -> Self { <$t>::powf(self, o) }
            fn powi(self, n: i32) -> Self { <$t>::powi(self, n) }
            fn atan2(self, o: Self) -> Self { <$t>::atan2(self, o) }
            fn hypot(self, o: Self) -> Self { <$t>::hypot(self, o) }
            fn copysign(self, o: Self) -> Self { <$t>::copysign(self, o) }
            fn mul_add(self, a: Self, b: Self) -> Self { <$t>::mul_add(self, a, b) }
            fn log(self, base: Self) -> Self { <$t>::log(self, base) }
            fn is_nan(self) -> bool { <$t>::is_nan(self) }
            fn is_infinite(self) -> bool { <$t>::is_infinite(self) }
            fn is_finite(self) -> bool { <$t>::is_finite(self) }
            fn is_sign_negative(self) -> bool { <$t>::is_sign_negative(self) }
            fn is_sign_positive(self) -> bool { <$t>::is_sign_positive(self) }
        }
    )*};
}
float_impl!(f32, f64);

/// The bound of an integer type parameter of a kernel (`T: xp::Int`), with the methods
/// kernels may call.
#[allow(missing_docs)]
pub trait Int:
    Copy
    + Default
    + Ord
    + FromPrimitive
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + std::ops::Shl<u32, Output = Self>
    + std::ops::Shr<u32, Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    fn pow(self, e: u32) -> Self;
    fn wrapping_add(self, o: Self) -> Self;
    fn wrapping_sub(self, o: Self) -> Self;
    fn wrapping_mul(self, o: Self) -> Self;
    fn saturating_add(self, o: Self) -> Self;
    fn saturating_sub(self, o: Self) -> Self;
    fn count_ones(self) -> u32;
    fn leading_zeros(self) -> u32;
    fn trailing_zeros(self) -> u32;
}

macro_rules! int_impl {
    ($($t:ty),*) => {$(
        impl Int for $t {
            fn pow(self, e: u32) -> Self { <$t>::wrapping_pow(self, e) }
            fn wrapping_add(self, o: Self) -> Self { <$t>::wrapping_add(self, o) }
            fn wrapping_sub(self, o: Self) -> Self { <$t>::wrapping_sub(self, o) }
            fn wrapping_mul(self, o: Self) -> Self { <$t>::wrapping_mul(self, o) }
            fn saturating_add(self, o: Self) -> Self { <$t>::saturating_add(self, o) }
            fn saturating_sub(self, o: Self) -> Self { <$t>::saturating_sub(self, o) }
            fn count_ones(self) -> u32 { <$t>::count_ones(self) }
            fn leading_zeros(self) -> u32 { <$t>::leading_zeros(self) }
            fn trailing_zeros(self) -> u32 { <$t>::trailing_zeros(self) }
        }
    )*};
}
int_impl!(i8, i16, i32, i64, u8, u16, u32, u64);
