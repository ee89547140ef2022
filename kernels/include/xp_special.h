// SciPy's special functions (scipy.special) in the kernel dialect: the helpers behind the ops
// of `kernels/src/ops/special.rs`, emitted once per translation unit (the guard below) before
// any kernel that uses one of them.
//
// Every function here computes in double; the float32 loops call it and round once. Only the
// prelude's math (xp::exp, xp::log1p, xp::erfc, ...) is used, which NVRTC, hiprtc and the host
// compiler all have.
//
// Algorithms:
// - logistic, information-theory, Huber and Box-Cox functions: their definitions, each written
//   in the form that cancels least (log1p/expm1, atanh near 1/2, r^2 / (1 + sqrt(1 + t^2))).
// - erfcx: exp(x^2) erfc(x) with exp(x^2) from an exact product (Dekker's splitting) below 25,
//   the asymptotic series of erfc above; for x < 0, 2 exp(x^2) - erfcx(-x).
// - erfinv, erfcinv, ndtri: M. Giles' single-precision approximation of erfinv ("Approximating
//   the erfinv function", GPU Computing Gems, 2011) or, in the far tail, the fixed point of
//   z^2 = -log(q) - log(z sqrt(pi)) + log(1 - 1/(2 z^2)), then Halley steps on erf or erfc
//   (erfc whenever the argument is near +-1, so that the residual keeps its relative accuracy).
// - ndtr, log_ndtr: erfc at -x/sqrt(2) carried as a double-double (first-order correction of
//   the rounding of the product); log_ndtr below -1 as log(erfcx(t) / 2) - x^2 / 2.
#ifndef XP_SPECIAL_H
#define XP_SPECIAL_H

namespace xp {
namespace sp {

XP_DEVICE double inf() { return __longlong_as_double(0x7ff0000000000000LL); }
XP_DEVICE double nan() { return __longlong_as_double(0x7ff8000000000000LL); }

// 2 / sqrt(pi), 1 / sqrt(pi), sqrt(pi), sqrt(2) and 1 / sqrt(2) = XP_SQRT1_2_HI + XP_SQRT1_2_LO.
// The long workhorses (series, continued fractions, root finders) are compiled once and called,
// not inlined into every caller: inlined, an inverse function that calls its forward function
// inside a Halley loop multiplies the code NVRTC and hiprtc optimise (minutes per kernel).
#if defined(XP_CUDA)
#define XP_SP_OUTLINE __device__ __noinline__
#elif defined(XP_HIP)
#define XP_SP_OUTLINE __device__ __attribute__((noinline))
#else
#define XP_SP_OUTLINE inline
#endif

#define XP_SP_2_SQRTPI 1.1283791670955126
#define XP_SP_1_SQRTPI 0.56418958354775628
#define XP_SP_SQRTPI 1.7724538509055160
#define XP_SP_SQRT2 1.4142135623730951
#define XP_SP_SQRT1_2_HI 0.70710678118654757
#define XP_SP_SQRT1_2_LO (-4.8336466567264567e-17)

// ---- exact products (Dekker): a * b = p + two_prod_err(a, b, p), for |a|, |b| < 2^995 ------
XP_DEVICE void split(double a, double& hi, double& lo) {
  const double c = 134217729.0 * a;  // 2^27 + 1
  hi = c - (c - a);
  lo = a - hi;
}
XP_DEVICE double two_prod_err(double a, double b, double p) {
  double ah, al, bh, bl;
  split(a, ah, al);
  split(b, bh, bl);
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}
// exp(x * x) with the rounding of x * x taken into account.
XP_DEVICE double exp_sq(double x) {
  const double p = x * x;
  if (!(p <= 709.0)) return xp::exp(p);
  return xp::exp(p) * (1.0 + two_prod_err(x, x, p));
}

// ---- logistic functions ---------------------------------------------------------------------
XP_DEVICE double expit(double x) {
  if (x >= 0) return 1.0 / (1.0 + xp::exp(-x));
  const double e = xp::exp(x);
  return e / (1.0 + e);  // also NaN
}
XP_DEVICE double logit(double x) {
  // 2x - 1 is exact on [1/4, 1] (Sterbenz), and atanh is well conditioned there.
  if (x >= 0.25 && x <= 0.75) return 2.0 * xp::atanh(2.0 * x - 1.0);
  return xp::log(x / (1.0 - x));  // 0 -> -inf, 1 -> inf, outside [0, 1] or NaN -> NaN
}
XP_DEVICE double log_expit(double x) {
  if (x < 0) return x - xp::log1p(xp::exp(x));
  return -xp::log1p(xp::exp(-x));  // also NaN
}

// ---- x log y and information theory -----------------------------------------------------------
XP_DEVICE double xlogy(double x, double y) {
  if (x == 0 && !xp::isnan(y)) return 0.0;
  return x * xp::log(y);
}
XP_DEVICE double xlog1py(double x, double y) {
  if (x == 0 && !xp::isnan(y)) return 0.0;
  return x * xp::log1p(y);
}
XP_DEVICE double entr(double x) {
  if (xp::isnan(x)) return x;
  if (x > 0) return -x * xp::log(x);
  return x == 0 ? 0.0 : -inf();
}
XP_DEVICE double rel_entr(double x, double y) {
  if (xp::isnan(x) || xp::isnan(y)) return nan();
  if (x > 0 && y > 0) return x * xp::log(x / y);
  if (x == 0 && y >= 0) return 0.0;
  return inf();
}
XP_DEVICE double kl_div(double x, double y) {
  if (xp::isnan(x) || xp::isnan(y)) return nan();
  if (x > 0 && y > 0) return x * xp::log(x / y) - x + y;
  if (x == 0 && y >= 0) return y;
  return inf();
}

// ---- Huber losses ---------------------------------------------------------------------------
XP_DEVICE double huber(double delta, double r) {
  if (delta < 0) return inf();
  const double a = xp::fabs(r);
  if (a <= delta) return 0.5 * r * r;
  return delta * (a - 0.5 * delta);  // also NaN
}
XP_DEVICE double pseudo_huber(double delta, double r) {
  if (xp::isnan(delta) || xp::isnan(r)) return nan();
  if (delta < 0) return inf();
  if (delta == 0 || r == 0) return 0.0;
  const double a = xp::fabs(r);
  if (xp::isinf(a)) return inf();
  // delta^2 (sqrt(1 + t^2) - 1) = r^2 / (1 + sqrt(1 + t^2)), t = r / delta: no cancellation,
  // and |r| / (1 + hypot) <= delta keeps the product from overflowing early.
  return a * (a / (1.0 + xp::hypot(1.0, r / delta)));
}

// ---- Box-Cox transforms ---------------------------------------------------------------------
XP_DEVICE double boxcox(double x, double lmbda) {
  if (xp::fabs(lmbda) < 1e-19) return xp::log(x);
  return xp::expm1(lmbda * xp::log(x)) / lmbda;
}
XP_DEVICE double boxcox1p(double x, double lmbda) {
  const double g = xp::log1p(x);
  if (xp::fabs(lmbda) < 1e-19 || xp::fabs(g) < 1e-289) return g;
  return xp::expm1(lmbda * g) / lmbda;
}
XP_DEVICE double inv_boxcox(double y, double lmbda) {
  if (lmbda == 0) return xp::exp(y);
  return xp::exp(xp::log1p(lmbda * y) / lmbda);
}
XP_DEVICE double inv_boxcox1p(double y, double lmbda) {
  if (lmbda == 0) return xp::expm1(y);
  return xp::expm1(xp::log1p(lmbda * y) / lmbda);
}

// ---- error functions --------------------------------------------------------------------------
// erfcx for x >= 0 (NaN passes through).
XP_DEVICE double erfcx_nonneg(double x) {
  if (!(x >= 25.0)) return exp_sq(x) * xp::erfc(x);
  // erfc(x) ~ exp(-x^2) / (x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2 x^2)^k; 9 terms reach
  // double precision from x = 25 on (the 10th is below 1e-19).
  const double t = 1.0 / (2.0 * x * x);
  double s = 1.0, term = 1.0;
  for (int k = 1; k <= 9; ++k) {
    term *= -(double)(2 * k - 1) * t;
    s += term;
  }
  return XP_SP_1_SQRTPI / x * s;
}
XP_DEVICE double erfcx(double x) {
  if (x < 0) {
    if (x < -26.7) return inf();
    return 2.0 * exp_sq(x) - erfcx_nonneg(-x);
  }
  return erfcx_nonneg(x);
}

// Giles' approximation of erfinv(x) / x as a function of w = -log((1 - x)(1 + x)).
XP_DEVICE double giles(double w) {
  double p;
  if (w < 5.0) {
    w = w - 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = xp::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p;
}
// erfinv(y) for |y| <= 1/2: Giles' estimate, then Halley steps on erf(z) - y
// (z -= f / (f' + z f), since f'' = -2 z f').
XP_DEVICE double erfinv_central(double y) {
  double z = y * giles(-xp::log1p(-y * y));
  for (int i = 0; i < 4; ++i) {
    const double f = xp::erf(z) - y;
    const double dz = f / (XP_SP_2_SQRTPI * xp::exp(-z * z) + z * f);
    z -= dz;
    if (!(xp::fabs(dz) > 1e-17 * xp::fabs(z))) break;
  }
  return z;
}
// The z > 0 with erfc(z) = q, for 0 < q <= 1/2: Giles' estimate (1 - q exact), or the
// asymptotic fixed point in the far tail, then Halley steps on erfc(z) - q.
XP_DEVICE double erfcinv_tail(double q) {
  const double w = -xp::log(q * (2.0 - q));
  double z;
  if (w < 16.0) {
    z = (1.0 - q) * giles(w);
  } else {
    const double t = -xp::log(q);
    z = xp::sqrt(t);
    for (int i = 0; i < 4; ++i) z = xp::sqrt(t - xp::log(z * XP_SP_SQRTPI) + xp::log1p(-0.5 / (z * z)));
  }
  for (int i = 0; i < 6; ++i) {
    const double f = xp::erfc(z) - q;
    const double dz = f / (z * f - XP_SP_2_SQRTPI * xp::exp(-z * z));
    z -= dz;
    if (!(xp::fabs(dz) > 1e-17 * z)) break;
  }
  return z;
}
XP_DEVICE double erfinv(double y) {
  if (xp::isnan(y)) return y;
  if (!(y > -1.0 && y < 1.0)) return y == 1.0 ? inf() : (y == -1.0 ? -inf() : nan());
  if (xp::fabs(y) <= 0.5) return erfinv_central(y);
  return xp::copysign(erfcinv_tail(1.0 - xp::fabs(y)), y);
}
XP_DEVICE double erfcinv(double q) {
  if (xp::isnan(q)) return q;
  if (!(q > 0.0 && q < 2.0)) return q == 0.0 ? inf() : (q == 2.0 ? -inf() : nan());
  if (q < 0.5) return erfcinv_tail(q);
  if (q <= 1.5) return erfinv_central(1.0 - q);  // exact on [1/2, 3/2]
  return -erfcinv_tail(2.0 - q);                 // exact on [1, 2]
}

// ---- the normal distribution ------------------------------------------------------------------
XP_DEVICE double erf(double x) { return xp::erf(x); }
// SciPy's erfc: 0 once x^2 passes the largest argument of exp (its answers there are
// subnormal).
XP_DEVICE double erfc(double x) {
  if (x > 26.641747557046327) return 0.0;
  return xp::erfc(x);
}
// ndtr(x) for x <= 0 (NaN passes through).
XP_DEVICE double ndtr_nonpos(double x) {
  if (x < -38.5) return 0.0;  // below half the smallest subnormal
  // t = -x / sqrt(2) = hi + lo; erfc(hi + lo) = erfc(hi) - lo 2/sqrt(pi) exp(-hi^2) + O(lo^2).
  const double hi = -x * XP_SP_SQRT1_2_HI;
  const double lo = two_prod_err(-x, XP_SP_SQRT1_2_HI, hi) + (-x) * XP_SP_SQRT1_2_LO;
  return 0.5 * (xp::erfc(hi) - lo * XP_SP_2_SQRTPI * xp::exp(-hi * hi));
}
XP_DEVICE double ndtr(double x) {
  if (xp::isnan(x)) return x;
  return x <= 0 ? ndtr_nonpos(x) : 1.0 - ndtr_nonpos(-x);
}
XP_DEVICE double log_ndtr(double x) {
  if (xp::isnan(x)) return x;
  if (x > 0) return xp::log1p(-ndtr_nonpos(-x));
  if (x >= -1.0) return xp::log(ndtr(x));
  // log(erfc(t) / 2) = log(erfcx(t) / 2) - t^2, t = -x / sqrt(2), t^2 = x^2 / 2.
  return xp::log(0.5 * erfcx_nonneg(-x * XP_SP_SQRT1_2_HI)) - 0.5 * (x * x);
}
XP_DEVICE double ndtri(double p) {
  if (xp::isnan(p)) return p;
  if (!(p > 0.0 && p < 1.0)) return p == 0.0 ? -inf() : (p == 1.0 ? inf() : nan());
  const double z = erfcinv(2.0 * p);
  return z == 0.0 ? 0.0 : -XP_SP_SQRT2 * z;
}

}  // namespace sp
}  // namespace xp

#endif  // XP_SPECIAL_H
