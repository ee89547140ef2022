// xp_prelude.h: the portable kernel dialect of xp.
//
// Kernels are written once in CUDA C++ (C++17) and compiled by NVRTC (CUDA), hiprtc (HIP) or
// the system C++ compiler (CPU). This header gives all three the same names for element types
// (xp::f16, xp::bf16, xp::c64, ...), math functions, thread and block indices, shared memory,
// barriers, atomics and the N-d strided indexer. It includes no vendor header: NVRTC ships
// none, so half, bfloat16 and complex are defined here.
#ifndef XP_PRELUDE_H
#define XP_PRELUDE_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define XP_CUDA 1
#define XP_GPU 1
#elif defined(__HIPCC_RTC__) || defined(__HIPCC__) || defined(__HIP__)
#define XP_HIP 1
#define XP_GPU 1
#else
#define XP_CPU 1
#endif

// ---------------------------------------------------------------------------------------------
// Qualifiers, indices, barriers
// ---------------------------------------------------------------------------------------------
#if defined(XP_GPU)
#define XP_DEVICE __device__ __forceinline__
#define XP_HD __host__ __device__ __forceinline__
#else
#include <cmath>
#include <cstring>
#include <cstddef>
#include <utility>
#include <type_traits>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __shared__ static thread_local
#define __launch_bounds__(...)
#define XP_DEVICE inline
#define XP_HD inline

namespace xp {
namespace cpu {
struct dim3 {
  unsigned int x, y, z;
};
// What one CPU worker knows about the thread it is running: written by the launcher before
// each (fiber) thread runs, read by the macros below.
struct Ctx {
  dim3 thread_idx;
  dim3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
  void (*sync)(void*);
  void* sync_data;
  void* dyn_shared;
};
inline thread_local Ctx* ctx = nullptr;
}  // namespace cpu
}  // namespace xp
typedef xp::cpu::dim3 dim3;
#define threadIdx (xp::cpu::ctx->thread_idx)
#define blockIdx (xp::cpu::ctx->block_idx)
#define blockDim (xp::cpu::ctx->block_dim)
#define gridDim (xp::cpu::ctx->grid_dim)
#define warpSize 1
inline void __syncthreads() { xp::cpu::ctx->sync(xp::cpu::ctx->sync_data); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// CUDA's global helpers that a C++ compiler lacks.
template <class T> inline T min(T a, T b) { return b < a ? b : a; }
template <class T> inline T max(T a, T b) { return a < b ? b : a; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
inline float __int_as_float(int x) { float r; memcpy(&r, &x, 4); return r; }
inline unsigned int __float_as_uint(float x) { unsigned int r; memcpy(&r, &x, 4); return r; }
inline float __uint_as_float(unsigned int x) { float r; memcpy(&r, &x, 4); return r; }
inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
inline double __longlong_as_double(long long x) { double r; memcpy(&r, &x, 8); return r; }

// Atomics: blocks run on several workers at once, so these are real atomic operations.
template <class T> inline T atomicAdd(T* p, T v) {
  if constexpr (std::is_integral<T>::value) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
  } else {
    T old = *p, want;
    do { want = old + v; } while (!__atomic_compare_exchange(p, &old, &want, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return old;
  }
}
template <class T> inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicExch(T* p, T v) { T old; __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED); return old; }
template <class T> inline T atomicCAS(T* p, T cmp, T v) {
  __atomic_compare_exchange(p, &cmp, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return cmp;
}
template <class T> inline T atomicMax(T* p, T v) {
  T old = *p;
  while (old < v && !__atomic_compare_exchange(p, &old, &v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  return old;
}
template <class T> inline T atomicMin(T* p, T v) {
  T old = *p;
  while (v < old && !__atomic_compare_exchange(p, &old, &v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  return old;
}
template <class T> inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }

namespace xp {
namespace cpu {
// Calls kernel `f` with arguments unpacked from an array of pointers to their values; the
// parameter types come from the kernel's own signature.
template <class... A, std::size_t... I>
inline void call_unpacked(void (*f)(A...), void** args, std::index_sequence<I...>) {
  f(*static_cast<typename std::remove_cv<typename std::remove_reference<A>::type>::type*>(args[I])...);
}
template <class... A> inline void call(void (*f)(A...), void** args) {
  call_unpacked(f, args, std::index_sequence_for<A...>{});
}
template <class... A> constexpr int param_count(void (*)(A...)) { return (int)sizeof...(A); }
// Runs blocks [b0, b1) of the grid, every thread of a block in turn (kernels without barriers).
template <class F> inline void run_blocks(F f, void** args, Ctx* c, unsigned long long b0, unsigned long long b1) {
  ctx = c;
  const unsigned long long gx = c->grid_dim.x, gy = c->grid_dim.y;
  for (unsigned long long b = b0; b < b1; ++b) {
    c->block_idx.x = (unsigned)(b % gx);
    c->block_idx.y = (unsigned)((b / gx) % gy);
    c->block_idx.z = (unsigned)(b / (gx * gy));
    for (unsigned z = 0; z < c->block_dim.z; ++z)
      for (unsigned y = 0; y < c->block_dim.y; ++y)
        for (unsigned x = 0; x < c->block_dim.x; ++x) {
          c->thread_idx.x = x;
          c->thread_idx.y = y;
          c->thread_idx.z = z;
          call(f, args);
        }
  }
}
// Runs one thread whose indices the launcher has set (kernels with barriers, as fibers).
template <class F> inline void run_thread(F f, void** args, Ctx* c) {
  ctx = c;
  call(f, args);
}
}  // namespace cpu
}  // namespace xp
#endif  // XP_CPU

#if defined(XP_CUDA)
#define XP_LOOP_HINT _Pragma("unroll")
#endif

// ---------------------------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------------------------
namespace xp {
typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

template <class T, class U> struct is_same { static constexpr bool value = false; };
template <class T> struct is_same<T, T> { static constexpr bool value = true; };

// Bit casts that every compiler accepts.
XP_HD float bits_to_f32(u32 b) {
#if defined(XP_GPU)
  return __uint_as_float(b);
#else
  float r; memcpy(&r, &b, 4); return r;
#endif
}
XP_HD u32 f32_to_bits(float f) {
#if defined(XP_GPU)
  return __float_as_uint(f);
#else
  u32 r; memcpy(&r, &f, 4); return r;
#endif
}
XP_HD double bits_to_f64(u64 b) {
#if defined(XP_GPU)
  return __longlong_as_double((long long)b);
#else
  double r; memcpy(&r, &b, 8); return r;
#endif
}
XP_HD u64 f64_to_bits(double f) {
#if defined(XP_GPU)
  return (u64)__double_as_longlong(f);
#else
  u64 r; memcpy(&r, &f, 8); return r;
#endif
}

// IEEE half precision. Arithmetic happens in float and rounds back on store, which gives the
// correctly rounded result for + - * / (float carries more than twice half's precision).
struct f16 {
  u16 bits;
  f16() = default;
  XP_HD static f16 from_bits(u16 b) { f16 h; h.bits = b; return h; }
  XP_HD f16(float f) : bits(from_f32(f)) {}
  XP_HD f16(double d) : bits(from_f64(d)) {}
  XP_HD f16(int v) : bits(from_f64((double)v)) {}
  XP_HD f16(long long v) : bits(from_f64((double)v)) {}
  XP_HD f16(unsigned int v) : bits(from_f64((double)v)) {}
  XP_HD f16(unsigned long long v) : bits(from_f64((double)v)) {}
  XP_HD operator float() const { return to_f32(bits); }
  XP_HD static u16 from_f32(float f) {
#if defined(XP_CUDA)
    unsigned short r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));
    return r;
#else
    _Float16 h = (_Float16)f; u16 r; __builtin_memcpy(&r, &h, 2); return r;
#endif
  }
  XP_HD static u16 from_f64(double d) {
#if defined(XP_CUDA)
    unsigned short r;
    asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r) : "d"(d));
    return r;
#else
    _Float16 h = (_Float16)d; u16 r; __builtin_memcpy(&r, &h, 2); return r;
#endif
  }
  XP_HD static float to_f32(u16 b) {
#if defined(XP_CUDA)
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(b));
    return f;
#else
    _Float16 h; __builtin_memcpy(&h, &b, 2); return (float)h;
#endif
  }
};

// bfloat16: the top half of a float, rounded to nearest even.
struct bf16 {
  u16 bits;
  bf16() = default;
  XP_HD static bf16 from_bits(u16 b) { bf16 h; h.bits = b; return h; }
  XP_HD bf16(float f) : bits(from_f32(f)) {}
  XP_HD bf16(double d) : bits(from_f32((float)d)) {}
  XP_HD bf16(int v) : bits(from_f32((float)v)) {}
  XP_HD bf16(long long v) : bits(from_f32((float)v)) {}
  XP_HD bf16(unsigned int v) : bits(from_f32((float)v)) {}
  XP_HD bf16(unsigned long long v) : bits(from_f32((float)v)) {}
  XP_HD operator float() const { return bits_to_f32(((u32)bits) << 16); }
  XP_HD static u16 from_f32(float f) {
    u32 u = f32_to_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)((u >> 16) | 0x40);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return (u16)(u >> 16);
  }
};

// Complex numbers.
template <class T> struct complex {
  typedef T value_type;
  T re, im;
  complex() = default;
  XP_HD complex(T r) : re(r), im(0) {}
  XP_HD complex(T r, T i) : re(r), im(i) {}
  template <class U> XP_HD explicit complex(const complex<U>& o) : re((T)o.re), im((T)o.im) {}
  XP_HD complex& operator+=(const complex& o) { re += o.re; im += o.im; return *this; }
  XP_HD complex& operator-=(const complex& o) { re -= o.re; im -= o.im; return *this; }
  XP_HD complex& operator*=(const complex& o) { *this = *this * o; return *this; }
  XP_HD complex& operator/=(const complex& o) { *this = *this / o; return *this; }
  XP_HD friend complex operator+(complex a, complex b) { return complex(a.re + b.re, a.im + b.im); }
  XP_HD friend complex operator-(complex a, complex b) { return complex(a.re - b.re, a.im - b.im); }
  XP_HD friend complex operator-(complex a) { return complex(-a.re, -a.im); }
  XP_HD friend complex operator*(complex a, complex b) {
    return complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
  }
  // Smith's algorithm: no overflow for large operands.
  XP_HD friend complex operator/(complex a, complex b) {
    T abr = b.re < 0 ? -b.re : b.re, abi = b.im < 0 ? -b.im : b.im;
    if (abr >= abi) {
      if (abr == 0 && abi == 0) return complex(a.re / abr, a.im / abi);
      T rat = b.im / b.re, scl = (T)1 / (b.re + b.im * rat);
      return complex((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    T rat = b.re / b.im, scl = (T)1 / (b.im + b.re * rat);
    return complex((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
  }
  XP_HD friend bool operator==(complex a, complex b) { return a.re == b.re && a.im == b.im; }
  XP_HD friend bool operator!=(complex a, complex b) { return !(a == b); }
};
typedef complex<float> c64;
typedef complex<double> c128;

// ---------------------------------------------------------------------------------------------
// Math: one overloaded name per function for float, double and the types above.
// ---------------------------------------------------------------------------------------------
#define XP_MATH1(name, fname, dname)                              \
  XP_DEVICE float name(float x) { return ::fname(x); }            \
  XP_DEVICE double name(double x) { return ::dname(x); }          \
  XP_DEVICE f16 name(f16 x) { return f16(::fname((float)x)); }    \
  XP_DEVICE bf16 name(bf16 x) { return bf16(::fname((float)x)); }
XP_MATH1(sqrt, sqrtf, sqrt)
XP_MATH1(cbrt, cbrtf, cbrt)
XP_MATH1(exp, expf, exp)
XP_MATH1(exp2, exp2f, exp2)
XP_MATH1(expm1, expm1f, expm1)
XP_MATH1(log, logf, log)
XP_MATH1(log2, log2f, log2)
XP_MATH1(log10, log10f, log10)
XP_MATH1(log1p, log1pf, log1p)
XP_MATH1(sin, sinf, sin)
XP_MATH1(cos, cosf, cos)
XP_MATH1(tan, tanf, tan)
XP_MATH1(asin, asinf, asin)
XP_MATH1(acos, acosf, acos)
XP_MATH1(atan, atanf, atan)
XP_MATH1(sinh, sinhf, sinh)
XP_MATH1(cosh, coshf, cosh)
XP_MATH1(tanh, tanhf, tanh)
XP_MATH1(asinh, asinhf, asinh)
XP_MATH1(acosh, acoshf, acosh)
XP_MATH1(atanh, atanhf, atanh)
XP_MATH1(floor, floorf, floor)
XP_MATH1(ceil, ceilf, ceil)
XP_MATH1(trunc, truncf, trunc)
XP_MATH1(rint, rintf, rint)
XP_MATH1(fabs, fabsf, fabs)
XP_MATH1(erf, erff, erf)
XP_MATH1(erfc, erfcf, erfc)
XP_MATH1(tgamma, tgammaf, tgamma)
XP_MATH1(lgamma, lgammaf, lgamma)
#undef XP_MATH1

#define XP_MATH2(name, fname, dname)                                             \
  XP_DEVICE float name(float x, float y) { return ::fname(x, y); }               \
  XP_DEVICE double name(double x, double y) { return ::dname(x, y); }            \
  XP_DEVICE f16 name(f16 x, f16 y) { return f16(::fname((float)x, (float)y)); }  \
  XP_DEVICE bf16 name(bf16 x, bf16 y) { return bf16(::fname((float)x, (float)y)); }
XP_MATH2(pow, powf, pow)
XP_MATH2(atan2, atan2f, atan2)
XP_MATH2(hypot, hypotf, hypot)
XP_MATH2(fmod, fmodf, fmod)
XP_MATH2(copysign, copysignf, copysign)
XP_MATH2(fmax, fmaxf, fmax)
XP_MATH2(fmin, fminf, fmin)
XP_MATH2(nextafter, nextafterf, nextafter)
#undef XP_MATH2

XP_DEVICE bool isnan(float x) { return x != x; }
XP_DEVICE bool isnan(double x) { return x != x; }
XP_DEVICE bool isinf(float x) { return (f32_to_bits(x) & 0x7fffffffu) == 0x7f800000u; }
XP_DEVICE bool isinf(double x) { return (f64_to_bits(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull; }
XP_DEVICE bool isfinite(float x) { return (f32_to_bits(x) & 0x7f800000u) != 0x7f800000u; }
XP_DEVICE bool isfinite(double x) { return (f64_to_bits(x) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull; }
XP_DEVICE bool signbit(float x) { return (f32_to_bits(x) >> 31) != 0; }
XP_DEVICE bool signbit(double x) { return (f64_to_bits(x) >> 63) != 0; }
XP_DEVICE float inf_f32() { return bits_to_f32(0x7f800000u); }
XP_DEVICE double inf_f64() { return bits_to_f64(0x7ff0000000000000ull); }
XP_DEVICE float nan_f32() { return bits_to_f32(0x7fc00000u); }
XP_DEVICE double nan_f64() { return bits_to_f64(0x7ff8000000000000ull); }

template <class T> XP_DEVICE T real(complex<T> z) { return z.re; }
template <class T> XP_DEVICE T imag(complex<T> z) { return z.im; }
template <class T> XP_DEVICE complex<T> conj(complex<T> z) { return complex<T>(z.re, -z.im); }
template <class T> XP_DEVICE T abs(complex<T> z) { return hypot(z.re, z.im); }
template <class T> XP_DEVICE T arg(complex<T> z) { return atan2(z.im, z.re); }
template <class T> XP_DEVICE complex<T> exp(complex<T> z) {
  T e = exp(z.re);
  return complex<T>(e * cos(z.im), e * sin(z.im));
}
template <class T> XP_DEVICE complex<T> log(complex<T> z) { return complex<T>(log(abs(z)), arg(z)); }
template <class T> XP_DEVICE complex<T> sqrt(complex<T> z) {
  T r = abs(z);
  if (r == 0) return complex<T>(0, z.im);
  T t = sqrt((r + fabs(z.re)) / 2);
  if (z.re >= 0) return complex<T>(t, z.im / (2 * t));
  return complex<T>(fabs(z.im) / (2 * t), copysign(t, z.im));
}
template <class T> XP_DEVICE complex<T> sin(complex<T> z) {
  return complex<T>(sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im));
}
template <class T> XP_DEVICE complex<T> cos(complex<T> z) {
  return complex<T>(cos(z.re) * cosh(z.im), -sin(z.re) * sinh(z.im));
}
template <class T> XP_DEVICE complex<T> tan(complex<T> z) { return sin(z) / cos(z); }
template <class T> XP_DEVICE complex<T> sinh(complex<T> z) {
  return complex<T>(sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im));
}
template <class T> XP_DEVICE complex<T> cosh(complex<T> z) {
  return complex<T>(cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im));
}
template <class T> XP_DEVICE complex<T> tanh(complex<T> z) { return sinh(z) / cosh(z); }
template <class T> XP_DEVICE complex<T> pow(complex<T> a, complex<T> b) {
  if (a.re == 0 && a.im == 0) {
    if (b.re == 0 && b.im == 0) return complex<T>(1, 0);
    return complex<T>(0, 0);
  }
  return exp(b * log(a));
}
template <class T> XP_DEVICE bool isnan(complex<T> z) { return isnan(z.re) || isnan(z.im); }
template <class T> XP_DEVICE bool isinf(complex<T> z) { return isinf(z.re) || isinf(z.im); }
template <class T> XP_DEVICE bool isfinite(complex<T> z) { return isfinite(z.re) && isfinite(z.im); }

template <class T> struct is_complex_t { static constexpr bool value = false; };
template <class T> struct is_complex_t<complex<T>> { static constexpr bool value = true; };

// Conversion between any two element types, as NumPy's astype: complex to real keeps the real
// part, anything to bool tests against zero.
template <class To, class From> XP_DEVICE To cast(From v) {
  if constexpr (is_same<To, From>::value) {
    return v;
  } else if constexpr (is_same<To, bool>::value) {
    if constexpr (is_complex_t<From>::value) {
      return v.re != 0 || v.im != 0;
    } else {
      return (float)v != 0.0f || (double)v != 0.0;
    }
  } else if constexpr (is_complex_t<To>::value) {
    if constexpr (is_complex_t<From>::value) {
      return To(v);
    } else {
      return To(cast<typename To::value_type>(v), (typename To::value_type)0);
    }
  } else if constexpr (is_complex_t<From>::value) {
    return cast<To>(v.re);
  } else {
    return (To)v;
  }
}

// ---------------------------------------------------------------------------------------------
// N-d strided indexing: shapes and strides (in elements) of up to XP_MAX_DIMS dimensions,
// passed to kernels by value.
// ---------------------------------------------------------------------------------------------
#define XP_MAX_DIMS 8
struct Shape {
  i64 ndim;
  i64 dims[XP_MAX_DIMS];
};
struct Strides {
  i64 s[XP_MAX_DIMS];
};
// The element offset of flat (C-order) index `i` in an array of `shape` and `strides`.
template <class I> XP_DEVICE I offset_of(I i, const Shape& shape, const Strides& strides) {
  I off = 0;
  for (int d = (int)shape.ndim - 1; d > 0; --d) {
    I n = (I)shape.dims[d];
    I c = i % n;
    i /= n;
    off += c * (I)strides.s[d];
  }
  if (shape.ndim > 0) off += i * (I)strides.s[0];
  return off;
}
}  // namespace xp

// Loop over `n` elements: a grid-stride loop on GPUs; on the CPU each block takes one
// contiguous chunk, so the compiler can vectorise it.
#if defined(XP_GPU)
#define XP_FOR_EACH(I, i, n) \
  for (I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i < (I)(n); i += (I)blockDim.x * (I)gridDim.x)
#else
#define XP_FOR_EACH(I, i, n)                                                                      \
  for (I xp_n_ = (I)(n), xp_t_ = (I)(blockIdx.x * blockDim.x + threadIdx.x),                      \
         xp_g_ = (I)(gridDim.x * blockDim.x),                                                     \
         i = (I)((unsigned __int128)xp_n_ * (unsigned __int128)xp_t_ / (unsigned __int128)xp_g_), \
         xp_end_ = (I)((unsigned __int128)xp_n_ * (unsigned __int128)(xp_t_ + 1) /                \
                       (unsigned __int128)xp_g_);                                                 \
       i < xp_end_; ++i)
#endif

#endif  // XP_PRELUDE_H
