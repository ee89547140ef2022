// xp_rust.h: Rust's semantics for kernels written in Rust (`#[xp::rawkernel]`, `#[xp::kernel]`,
// `#[xp::device]`), after xp_prelude.h. The translator writes plain C++ operators where they
// mean what Rust's do (float arithmetic; `u32`/`u64` arithmetic, which wraps in C++ too) and
// these helpers elsewhere:
// - integer `+ - *` and unary `-` wrap (Rust's release behaviour), computed in an unsigned type
//   so that C++ has no undefined overflow;
// - integer division and remainder by zero give 0, and MIN / -1 gives MIN (MIN % -1 gives 0),
//   where Rust panics: a kernel cannot panic, so xp defines them;
// - shifts take their amount modulo the width (`x << 33` on a `u32` is `x << 1`), as Rust's
//   wrapping shifts; a left shift of a negative value shifts its bits;
// - `as` from float to integer saturates (NaN gives 0), integer to integer wraps;
// - `max`/`min` of floats return the other operand when one is NaN, as Rust's.
// The name `__syncthreads` never appears here: the CPU backend runs a kernel's threads as
// fibers only when its source names it.
#ifndef XP_RUST_H
#define XP_RUST_H
namespace xp {
namespace rs {
template <class T> struct is_intty { static constexpr bool value = int_traits<T>::is_int; };

template <class T> XP_DEVICE T add(T a, T b) {
  if constexpr (is_intty<T>::value) return wrapping_add(a, b); else return a + b;
}
template <class T> XP_DEVICE T sub(T a, T b) {
  if constexpr (is_intty<T>::value) return wrapping_sub(a, b); else return a - b;
}
template <class T> XP_DEVICE T mul(T a, T b) {
  if constexpr (is_intty<T>::value) return wrapping_mul(a, b); else return a * b;
}
template <class T> XP_DEVICE T neg(T a) {
  if constexpr (is_intty<T>::value) return wrapping_neg(a); else return -a;
}
template <class T> XP_DEVICE T div(T a, T b) {
  if constexpr (is_intty<T>::value) {
    if (b == 0) return (T)0;
    if constexpr (int_traits<T>::is_signed) {
      if (b == (T)-1) return wrapping_neg(a);
    }
    return (T)(a / b);
  } else {
    return a / b;
  }
}
template <class T> XP_DEVICE T rem(T a, T b) {
  if constexpr (is_intty<T>::value) {
    if (b == 0) return (T)0;
    if constexpr (int_traits<T>::is_signed) {
      if (b == (T)-1) return (T)0;
    }
    return (T)(a % b);
  } else {
    return fmod(a, b);
  }
}
template <class T, class S> XP_DEVICE T shl(T a, S b) {
  typedef typename int_traits<T>::wide_unsigned U;
  return (T)((U)a << ((unsigned)b & (int_traits<T>::bits - 1)));
}
template <class T, class S> XP_DEVICE T shr(T a, S b) {
  return (T)(a >> ((unsigned)b & (int_traits<T>::bits - 1)));
}
template <class T> XP_DEVICE T band(T a, T b) { return (T)(a & b); }
template <class T> XP_DEVICE T bor(T a, T b) { return (T)(a | b); }
template <class T> XP_DEVICE T bxor(T a, T b) { return (T)(a ^ b); }
template <class T> XP_DEVICE T bnot(T a) {
  if constexpr (is_same<T, bool>::value) return !a; else return (T)~a;
}
#define XP_RS_ASSIGN(name) \
  template <class T, class S> XP_DEVICE void name##_assign(T& a, S b) { a = name(a, (T)b); }
XP_RS_ASSIGN(add)
XP_RS_ASSIGN(sub)
XP_RS_ASSIGN(mul)
XP_RS_ASSIGN(div)
XP_RS_ASSIGN(rem)
XP_RS_ASSIGN(band)
XP_RS_ASSIGN(bor)
XP_RS_ASSIGN(bxor)
#undef XP_RS_ASSIGN
template <class T, class S> XP_DEVICE void shl_assign(T& a, S b) { a = shl(a, b); }
template <class T, class S> XP_DEVICE void shr_assign(T& a, S b) { a = shr(a, b); }

// `v as To`.
template <class To, class From> XP_DEVICE To as_(From v) {
  if constexpr (is_same<To, From>::value) {
    return v;
  } else if constexpr (is_intty<To>::value && !is_intty<From>::value && !is_same<From, bool>::value) {
    const double d = (double)v;
    if (d != d) return (To)0;
    if (d <= (double)int_traits<To>::lowest) return int_traits<To>::lowest;
    if (d >= (double)int_traits<To>::highest) return int_traits<To>::highest;
    return (To)d;
  } else {
    return (To)v;
  }
}

// Methods of floats and integers.
template <class T> XP_DEVICE T max(T a, T b) {
  if constexpr (is_intty<T>::value) return a < b ? b : a; else return fmax(a, b);
}
template <class T> XP_DEVICE T min(T a, T b) {
  if constexpr (is_intty<T>::value) return b < a ? b : a; else return fmin(a, b);
}
template <class T> XP_DEVICE T clamp(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }
template <class T> XP_DEVICE T abs(T x) {
  if constexpr (is_intty<T>::value) return wrapping_abs(x); else return fabs(x);
}
template <class T> XP_DEVICE T signum(T x) {
  if constexpr (is_intty<T>::value) {
    return (T)((x > 0) - (x < 0));
  } else {
    return isnan(x) ? x : copysign((T)1, x);
  }
}
template <class T> XP_DEVICE T mul_add(T a, T b, T c) {
  if constexpr (is_same<T, float>::value) return ::fmaf(a, b, c); else return ::fma(a, b, c);
}
// Half away from zero, as Rust's `round`.
template <class T> XP_DEVICE T round(T x) {
  if constexpr (is_same<T, float>::value) return ::roundf(x); else return ::round(x);
}
template <class T> XP_DEVICE T fract(T x) { return x - trunc(x); }
template <class T> XP_DEVICE T recip(T x) { return (T)1 / x; }
template <class T> XP_DEVICE T to_degrees(T x) {
  if constexpr (is_same<T, float>::value) return x * 57.2957795130823208767981548141051703f;
  else return x * (180.0 / 3.14159265358979323846264338327950288);
}
template <class T> XP_DEVICE T to_radians(T x) {
  if constexpr (is_same<T, float>::value) return x * (3.14159265358979323846264338327950288f / 180.0f);
  else return x * (3.14159265358979323846264338327950288 / 180.0);
}
template <class T> XP_DEVICE T log_base(T x, T b) { return log(x) / log(b); }
// x^n by repeated squaring in T (the same bits on every backend).
template <class T> XP_DEVICE T powi(T x, i32 n) {
  u32 e = n < 0 ? (u32)0 - (u32)n : (u32)n;
  T r = (T)1, p = x;
  for (; e != 0; e >>= 1) {
    if (e & 1u) r = r * p;
    p = p * p;
  }
  return n < 0 ? (T)1 / r : r;
}
// Integer x^e, wrapping.
template <class T> XP_DEVICE T pow(T x, u32 e) {
  typedef typename int_traits<T>::wide_unsigned U;
  U r = 1, p = (U)x;
  for (; e != 0; e >>= 1) {
    if (e & 1u) r *= p;
    p *= p;
  }
  return (T)r;
}
template <class T> XP_DEVICE bool is_nan(T x) { return isnan(x); }
template <class T> XP_DEVICE bool is_infinite(T x) { return isinf(x); }
template <class T> XP_DEVICE bool is_finite(T x) { return isfinite(x); }
template <class T> XP_DEVICE bool is_sign_negative(T x) { return signbit(x); }
template <class T> XP_DEVICE bool is_sign_positive(T x) { return !signbit(x); }
template <class T> XP_DEVICE T saturating_add(T a, T b) {
  T r = wrapping_add(a, b);
  if constexpr (int_traits<T>::is_signed) {
    if (b > 0 && r < a) return int_traits<T>::highest;
    if (b < 0 && r > a) return int_traits<T>::lowest;
    return r;
  } else {
    return r < a ? int_traits<T>::highest : r;
  }
}
template <class T> XP_DEVICE T saturating_sub(T a, T b) {
  T r = wrapping_sub(a, b);
  if constexpr (int_traits<T>::is_signed) {
    if (b > 0 && r > a) return int_traits<T>::lowest;
    if (b < 0 && r < a) return int_traits<T>::highest;
    return r;
  } else {
    return a < b ? (T)0 : r;
  }
}
template <class T> XP_DEVICE u32 count_ones(T x) {
  typedef typename int_traits<T>::wide_unsigned U;
  U v = (U)x;
  if constexpr (int_traits<T>::bits < sizeof(U) * 8) v &= (U)((((U)1) << int_traits<T>::bits) - 1);
  u32 c = 0;
  for (; v != 0; v &= v - 1) ++c;
  return c;
}
template <class T> XP_DEVICE u32 leading_zeros(T x) {
  typedef typename int_traits<T>::wide_unsigned U;
  U v = (U)x;
  u32 c = 0;
  for (int b = (int)int_traits<T>::bits - 1; b >= 0 && !((v >> b) & 1u); --b) ++c;
  return c;
}
template <class T> XP_DEVICE u32 trailing_zeros(T x) {
  typedef typename int_traits<T>::wide_unsigned U;
  U v = (U)x;
  u32 c = 0;
  while (c < int_traits<T>::bits && !((v >> c) & 1u)) ++c;
  return c;
}

// Atomics: each returns the old value.
template <int N> struct uint_of_size;
template <> struct uint_of_size<4> { typedef unsigned int type; };
template <> struct uint_of_size<8> { typedef unsigned long long type; };
template <class T> union bits_of {
  T t;
  typename uint_of_size<sizeof(T)>::type u;
};
#if defined(XP_GPU)
template <class T> XP_DEVICE T atomic_cas(T* p, T cmp, T v) {
  if constexpr (is_same<T, i32>::value || is_same<T, u32>::value || is_same<T, u64>::value) {
    return atomicCAS(p, cmp, v);
  } else {
    typedef typename uint_of_size<sizeof(T)>::type B;
    bits_of<T> c, w, r;
    c.t = cmp;
    w.t = v;
    r.u = atomicCAS((B*)p, c.u, w.u);
    return r.t;
  }
}
// Compare-and-swap loop: stores f(old, v) until no other thread intervened.
template <class T, class F> XP_DEVICE T atomic_update(T* p, T v, F f) {
  typedef typename uint_of_size<sizeof(T)>::type B;
  bits_of<T> old, want;
  old.t = *(volatile T*)p;
  for (;;) {
    want.t = f(old.t, v);
    B seen = atomicCAS((B*)p, old.u, want.u);
    if (seen == old.u) return old.t;
    old.u = seen;
  }
}
template <class T> XP_DEVICE T atomic_add(T* p, T v) {
  if constexpr (is_same<T, i64>::value) return (T)atomicAdd((unsigned long long*)p, (unsigned long long)v);
  else return atomicAdd(p, v);
}
template <class T> XP_DEVICE T atomic_sub(T* p, T v) {
  if constexpr (is_intty<T>::value) return atomic_add(p, wrapping_neg(v)); else return atomic_add(p, -v);
}
template <class T> XP_DEVICE T atomic_max(T* p, T v) {
  if constexpr (is_same<T, i32>::value || is_same<T, u32>::value || is_same<T, u64>::value) return atomicMax(p, v);
  else return atomic_update(p, v, [](T a, T b) { return a < b ? b : a; });
}
template <class T> XP_DEVICE T atomic_min(T* p, T v) {
  if constexpr (is_same<T, i32>::value || is_same<T, u32>::value || is_same<T, u64>::value) return atomicMin(p, v);
  else return atomic_update(p, v, [](T a, T b) { return b < a ? b : a; });
}
template <class T> XP_DEVICE T atomic_and(T* p, T v) {
  if constexpr (is_same<T, i64>::value) return (T)atomicAnd((unsigned long long*)p, (unsigned long long)v);
  else return atomicAnd(p, v);
}
template <class T> XP_DEVICE T atomic_or(T* p, T v) {
  if constexpr (is_same<T, i64>::value) return (T)atomicOr((unsigned long long*)p, (unsigned long long)v);
  else return atomicOr(p, v);
}
template <class T> XP_DEVICE T atomic_xor(T* p, T v) {
  if constexpr (is_same<T, i64>::value) return (T)atomicXor((unsigned long long*)p, (unsigned long long)v);
  else return atomicXor(p, v);
}
template <class T> XP_DEVICE T atomic_exch(T* p, T v) {
  if constexpr (is_same<T, i32>::value || is_same<T, u32>::value || is_same<T, u64>::value || is_same<T, float>::value) {
    return atomicExch(p, v);
  } else {
    typedef typename uint_of_size<sizeof(T)>::type B;
    bits_of<T> w, r;
    w.t = v;
    r.u = atomicExch((B*)p, w.u);
    return r.t;
  }
}

// Warp operations on every lane of a warp (32 lanes on CUDA, 64 or 32 on HIP).
XP_DEVICE u32 warp_size() { return (u32)XP_WARP_LANES; }
XP_DEVICE u32 lane_id() {
  return (u32)((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) % (u32)XP_WARP_LANES;
}
XP_DEVICE void sync_warp() { warp_sync(); }
template <class T> XP_DEVICE T shfl_down(T v, u32 d) { return xp::shfl_down(v, d, (int)XP_WARP_LANES); }
template <class T> XP_DEVICE T shfl_up(T v, u32 d) { return xp::shfl_up(v, d, (int)XP_WARP_LANES); }
template <class T> XP_DEVICE T shfl_xor(T v, u32 m) {
  shfl_box<T> a, b;
  a.t = v;
  for (int k = 0; k < (int)((sizeof(T) + 3) / 4); ++k) {
#if defined(XP_CUDA)
    b.w[k] = __shfl_xor_sync(0xffffffffu, a.w[k], (int)m);
#else
    b.w[k] = __shfl_xor(a.w[k], (int)m);
#endif
  }
  return b.t;
}
template <class T> XP_DEVICE T shfl(T v, u32 src) {
  shfl_box<T> a, b;
  a.t = v;
  for (int k = 0; k < (int)((sizeof(T) + 3) / 4); ++k) {
#if defined(XP_CUDA)
    b.w[k] = __shfl_sync(0xffffffffu, a.w[k], (int)src);
#else
    b.w[k] = __shfl(a.w[k], (int)src);
#endif
  }
  return b.t;
}
XP_DEVICE u64 ballot(bool p) { return (u64)xp::ballot(p ? 1 : 0); }
XP_DEVICE bool warp_any(bool p) { return xp::ballot(p ? 1 : 0) != 0; }
XP_DEVICE bool warp_all(bool p) { return xp::ballot(p ? 0 : 1) == 0; }
#else
// The CPU backend runs atomics on the prelude's templates, and a warp of one lane.
template <class T> inline T atomic_cas(T* p, T cmp, T v) { return atomicCAS(p, cmp, v); }
template <class T> inline T atomic_add(T* p, T v) { return atomicAdd(p, v); }
template <class T> inline T atomic_sub(T* p, T v) {
  if constexpr (is_intty<T>::value) return atomicAdd(p, wrapping_neg(v)); else return atomicAdd(p, -v);
}
template <class T> inline T atomic_max(T* p, T v) { return atomicMax(p, v); }
template <class T> inline T atomic_min(T* p, T v) { return atomicMin(p, v); }
template <class T> inline T atomic_and(T* p, T v) { return atomicAnd(p, v); }
template <class T> inline T atomic_or(T* p, T v) { return atomicOr(p, v); }
template <class T> inline T atomic_xor(T* p, T v) { return atomicXor(p, v); }
template <class T> inline T atomic_exch(T* p, T v) { return atomicExch(p, v); }
inline u32 warp_size() { return 1u; }
inline u32 lane_id() { return 0u; }
inline void sync_warp() {}
template <class T> inline T shfl_down(T v, u32) { return v; }
template <class T> inline T shfl_up(T v, u32) { return v; }
template <class T> inline T shfl_xor(T v, u32) { return v; }
template <class T> inline T shfl(T v, u32) { return v; }
inline u64 ballot(bool p) { return p ? 1u : 0u; }
inline bool warp_any(bool p) { return p; }
inline bool warp_all(bool p) { return p; }
#endif
}  // namespace rs
}  // namespace xp
#endif  // XP_RUST_H
