// SciPy's gamma family (scipy.special) in the kernel dialect: gamma, gammaln, loggamma, rgamma,
// digamma, polygamma, the Riemann and Hurwitz zeta functions, beta and betaln. Emitted after
// xp_special.h (inf, nan) by the ops of `kernels/src/ops/special.rs` that need it.
//
// Algorithms:
// - gamma, gammaln: the platform's tgamma and lgamma (libm, CUDA's and HIP's device libraries;
//   lgamma_r on the host, which leaves the global signgam alone), with SciPy's values at the
//   poles and infinities; rgamma = 1 / gamma, 0 at the poles.
// - digamma: the reflection psi(x) = psi(1 - x) - pi cot(pi x) for x < 0, the recurrence
//   psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic (Stirling) series
//   log x - 1/(2x) - sum B_2k / (2k x^2k) (Abramowitz & Stegun 6.3.18).
// - Hurwitz zeta(s, q), s > 1: the Euler-Maclaurin summation formula (N = 10 direct terms, the
//   integral, half the next term and up to 13 Bernoulli corrections B_2j / (2j)!); terms of
//   negative q are summed directly for integer s. Riemann zeta(s): Euler-Maclaurin for s >= 0
//   (the formula continues analytically past s = 1), Riemann's functional equation
//   zeta(s) = 2 (2 pi)^(s-1) sin(pi s / 2) Gamma(1 - s) zeta(1 - s) for s < 0.
// - polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1, digamma for n = 0.
// - beta(a, b): Gamma(a) Gamma(b) / Gamma(a + b) while that is representable, else
//   exp(betaln). betaln: log|beta| for small arguments; once max(a, b) >= 10, lgamma of the
//   smaller plus Stirling's series for log Gamma(b) - log Gamma(a + b) written with
//   log1p(a / b), so nothing large cancels (Abramowitz & Stegun 6.1.40).
// - 1/Gamma(1 + z) near 0: its Taylor series (Abramowitz & Stegun 6.1.34; the coefficients
//   recomputed to double precision), used by the incomplete gamma function and Temme's method.
#ifndef XP_SPECIAL_GAMMA_H
#define XP_SPECIAL_GAMMA_H

namespace xp {
namespace sp {

#define XP_SP_PI 3.14159265358979323846
#define XP_SP_EULER 0.57721566490153286061
#define XP_SP_LN_SQRT_2PI 0.91893853320467274178
#define XP_SP_EPS 1.1102230246251565e-16
#define XP_SP_FPMIN 1e-300

// sin(pi x), exactly 0 at the integers.
XP_DEVICE double sinpi(double x) {
  if (!xp::isfinite(x)) return nan();
  double r = xp::fmod(x, 2.0);  // exact, in (-2, 2)
  if (r < -1.0) r += 2.0;
  else if (r > 1.0) r -= 2.0;
  if (r > 0.5) r = 1.0 - r;
  else if (r < -0.5) r = -1.0 - r;
  return xp::sin(XP_SP_PI * r);
}
// cos(pi x), exactly 0 at the half-integers.
XP_DEVICE double cospi(double x) {
  if (!xp::isfinite(x)) return nan();
  double r = xp::fmod(xp::fabs(x), 2.0);
  if (r > 1.0) r = 2.0 - r;  // cos(pi r), r in [0, 1]
  return xp::sin(XP_SP_PI * (0.5 - r));
}

XP_DEVICE bool is_nonpos_int(double x) { return x <= 0 && x == xp::floor(x); }

XP_DEVICE double lgamma_plat(double x) {
#if defined(XP_CPU)
  int s;
  return ::lgamma_r(x, &s);
#else
  return xp::lgamma(x);
#endif
}

XP_DEVICE double gamma(double x) {
  if (xp::isnan(x)) return x;
  if (x == 0) return xp::signbit(x) ? -inf() : inf();
  if (is_nonpos_int(x)) return nan();  // also -inf
  return xp::tgamma(x);
}
XP_DEVICE double gammaln(double x) {
  if (xp::isinf(x)) return x;  // SciPy: gammaln(-inf) = -inf
  return lgamma_plat(x);       // inf at the poles, NaN for NaN
}
// gammaln for a float32 answer (the `f->f` loop), in float arithmetic, within 5 float ulp of
// the float64 answer rounded wherever gammaln is well conditioned. Below 8 the argument is
// moved into [1.5, 2.5) by Gamma's recurrence with a running product p (at most six steps,
// unrolled and predicated so that a warp does not diverge on them), the shift u = z - 2 exact
// (log Gamma(x) = log Gamma(2 + u) -+ log p), and log Gamma(2 + u) = u g(u) with g a degree-9
// polynomial (kernels/tools/lgamma_poly.py: 5e-10 relative); from 8 on, Stirling's series to
// 1/x^7 (the first term left out is below 1e-11). One log either way (taken outside the
// branch). Zero, negative and non-finite x take the float64 function.
XP_DEVICE float gammaln_f32(float x) {
  if (!(x > 0.0f) || xp::isinf(x)) return (float)gammaln((double)x);
  const bool big = x >= 8.0f;
  float u = 0.0f, prod = 1.0f;
  const bool up = x < 1.5f;
  if (x < 0.5f) {
    u = x;
    prod = xp::xp_fma(x, x, x);  // x (x + 1)
  } else if (up) {
    u = x - 1.0f;
    prod = x;
  } else if (!big) {
    float z = x;
#pragma unroll
    for (int k = 0; k < 6; ++k) {
      const bool step = z >= 2.5f;
      z = step ? z - 1.0f : z;
      prod = step ? prod * z : prod;
    }
    u = z - 2.0f;
  }
  const float l = xp::log(big ? x : prod);
  if (!big) {
    float g = 1.15003557684015785e-04f;
    g = xp::xp_fma(g, u, -2.53861846508772286e-04f);
    g = xp::xp_fma(g, u, 5.05657420194373613e-04f);
    g = xp::xp_fma(g, u, -1.18583769807322414e-03f);
    g = xp::xp_fma(g, u, 2.89095619143147796e-03f);
    g = xp::xp_fma(g, u, -7.38617763720478271e-03f);
    g = xp::xp_fma(g, u, 2.05807883317342781e-02f);
    g = xp::xp_fma(g, u, -6.73522812986548647e-02f);
    g = xp::xp_fma(g, u, 3.22467033676928694e-01f);
    g = xp::xp_fma(g, u, 4.22784334999111389e-01f);
    return xp::xp_fma(u, g, up ? -l : l);
  }
  const float w = 1.0f / x, w2 = w * w;
  const float s = w * (1.0f / 12.0f - w2 * (1.0f / 360.0f - w2 * (1.0f / 1260.0f - w2 * (1.0f / 1680.0f))));
  return xp::xp_fma(x - 0.5f, l, -x) + (0.91893853320467274178f + s);
}
XP_DEVICE double loggamma(double x) {
  if (xp::isnan(x)) return x;
  if (x == 0) return inf();
  if (x < 0) return nan();
  return lgamma_plat(x);
}
XP_DEVICE double rgamma(double x) {
  if (xp::isnan(x)) return x;
  if (x == 0) return x;
  if (is_nonpos_int(x) || xp::isinf(x)) return 0.0;
  return 1.0 / xp::tgamma(x);
}

// 1/Gamma(1 + z) - 1 = z g(z); returns g(z), for |z| <= 1/2 (A&S 6.1.34).
XP_DEVICE double rgamma1p_g(double z) {
  const double c[25] = {5.77215664901532866e-01,  -6.55878071520253902e-01, -4.20026350340952370e-02,
                        1.66538611382291479e-01,  -4.21977345555443334e-02, -9.62197152787697303e-03,
                        7.21894324666309990e-03,  -1.16516759185906517e-03, -2.15241674114950975e-04,
                        1.28050282388116196e-04,  -2.01348547807882387e-05, -1.25049348214267063e-06,
                        1.13302723198169593e-06,  -2.05633841697760707e-07, 6.11609510448141609e-09,
                        5.00200764446922295e-09,  -1.18127457048702004e-09, 1.04342671169110054e-10,
                        7.78226343990507081e-12,  -3.69680561864220598e-12, 5.10037028745447575e-13,
                        -2.05832605356650664e-14, -5.34812253942301782e-15, 1.22677862823826084e-15,
                        -1.18125930169745883e-16};
  double s = 0.0;
  for (int k = 24; k >= 0; --k) s = s * z + c[k];
  return s;
}

XP_SP_OUTLINE double digamma(double x) {
  if (xp::isnan(x)) return x;
  if (x == 0) return xp::signbit(x) ? inf() : -inf();
  if (xp::isinf(x)) return x > 0 ? x : nan();
  double r = 0.0;
  if (x < 0) {
    if (x == xp::floor(x)) return nan();
    r = -XP_SP_PI * cospi(x) / sinpi(x);
    x = 1.0 - x;
  }
  while (x < 10.0) {
    r -= 1.0 / x;
    x += 1.0;
  }
  const double z = 1.0 / (x * x);
  const double p =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return r + xp::log(x) - 0.5 / x - p;
}

// B_2j / (2j)!, j = 1..13.
XP_DEVICE double bern_fact(int j) {
  const double b[13] = {8.3333333333333333e-02,  -1.3888888888888889e-03, 3.3068783068783070e-05,
                        -8.2671957671957672e-07, 2.0876756987868099e-08,  -5.2841901386874932e-10,
                        1.3382536530684679e-11,  -3.3896802963225827e-13, 8.5860620562778446e-15,
                        -2.1748686985580620e-16, 5.5090028283602295e-18,  -1.3954464685812522e-19,
                        3.5347070396294670e-21};
  return b[j - 1];
}

// Euler-Maclaurin for sum_k (q + k)^-s, q > 0, s != 1 (s > 1, or any s >= 0 for q = 1).
XP_SP_OUTLINE double zeta_em(double s, double q) {
  const int N = 10;
  double sum = 0.0;
  for (int k = 0; k < N; ++k) {
    const double t = xp::pow(q + k, -s);
    sum += t;
    if (s > 1 && t <= XP_SP_EPS * 0.5 * sum) return sum;
  }
  const double a = q + N;
  const double w = xp::pow(a, -s);
  sum += a * w / (s - 1.0) + 0.5 * w;
  double fac = s * w / a;  // s (s+1) ... (s+2j-2) a^(-s-2j+1)
  for (int j = 1; j <= 13; ++j) {
    const double t = bern_fact(j) * fac;
    sum += t;
    if (xp::fabs(t) <= XP_SP_EPS * 0.5 * xp::fabs(sum)) break;
    fac *= (s + 2 * j - 1) * (s + 2 * j) / (a * a);
  }
  return sum;
}

// Hurwitz zeta(s, q), SciPy's values: NaN for s < 1, inf at s = 1 and at q a non-positive
// integer; q < 0 only for integer s.
XP_DEVICE double zeta2(double s, double q) {
  if (xp::isnan(s) || xp::isnan(q)) return nan();
  if (s == 1.0) return inf();
  if (s < 1.0) return nan();
  if (q <= 0) {
    if (q == xp::floor(q)) return inf();
    if (s != xp::floor(s)) return nan();
  }
  if (xp::isinf(s)) return q == 1.0 ? 1.0 : (q < 1.0 ? inf() : 0.0);
  if (xp::isinf(q)) return 0.0;
  double head = 0.0;
  while (q < 0) {
    head += xp::pow(q, -s);
    q += 1.0;
  }
  return head + zeta_em(s, q);
}

// Riemann zeta(s).
XP_DEVICE double zeta1(double s) {
  if (xp::isnan(s)) return s;
  if (s == 1.0) return inf();
  if (xp::isinf(s)) return s > 0 ? 1.0 : nan();
  if (s >= 0) return s > 60 ? 1.0 + xp::pow(2.0, -s) : zeta_em(s, 1.0);
  const double sn = sinpi(0.5 * s);
  if (sn == 0) return 0.0;
  const double t = 1.0 - s;
  const double z = zeta_em(t, 1.0);
  if (t < 170.0) return 2.0 * xp::pow(2.0 * XP_SP_PI, -t) * sn * xp::tgamma(t) * z;
  // log of 2 (2 pi)^(s-1) Gamma(1 - s), then the signs
  const double l = 0.69314718055994531 - t * 1.8378770664093455 + lgamma_plat(t);
  return (sn < 0 ? -1.0 : 1.0) * xp::exp(l) * z;
}

XP_SP_OUTLINE double polygamma(double n, double x) {
  if (xp::isnan(n) || xp::isnan(x)) return nan();
  if (n == 0) return digamma(x);
  if (n < 0 || n != xp::floor(n)) return nan();
  const double z = zeta2(n + 1.0, x);
  const double f = xp::tgamma(n + 1.0);
  const double sgn = xp::fmod(n, 2.0) == 1.0 ? 1.0 : -1.0;
  return sgn * f * z;
}

// Stirling's correction log Gamma(x) - ((x - 1/2) log x - x + log sqrt(2 pi)), x >= 10.
XP_DEVICE double stirling_corr(double x) {
  const double z = 1.0 / (x * x);
  return (1.0 / 12 -
          z * (1.0 / 360 - z * (1.0 / 1260 - z * (1.0 / 1680 - z * (1.0 / 1188 - z * (691.0 / 360360 - z / 156)))))) /
         x;
}

// log Gamma(x) for x >= 13 by Stirling's formula, summed in the textbook order (SciPy's
// betaln adds such logarithms past Gamma's overflow, and this reproduces its rounding).
XP_DEVICE double lgamma_stirling(double x) {
  if (x < 13.0) return lgamma_plat(x);
  const double q = (x - 0.5) * xp::log(x) - x + XP_SP_LN_SQRT_2PI;
  return q + stirling_corr(x);
}

// betaln for 0 < a <= b, b >= 10.
XP_DEVICE double betaln_big(double a, double b) {
  if (xp::isinf(b)) return -inf();
  const double l1p = xp::log1p(a / b);
  const double d = -a * xp::log(b) - (a + b - 0.5) * l1p + a + stirling_corr(b) - stirling_corr(a + b);
  if (a < 10.0) return lgamma_plat(a) + d;
  // log Gamma(a) by Stirling as well
  return XP_SP_LN_SQRT_2PI + (a - 0.5) * xp::log(a) - a + stirling_corr(a) + d;
}

XP_DEVICE double beta(double a, double b) {
  if (xp::isnan(a) || xp::isnan(b)) return nan();
  if (is_nonpos_int(a) || is_nonpos_int(b)) return inf();
  const double s = a + b;
  if (a > 0 && b > 0) {
    if (xp::isinf(a) || xp::isinf(b)) return 0.0;
    const double hi = a > b ? a : b, lo = a > b ? b : a;
    if (hi < 60.0) return xp::tgamma(a) * xp::tgamma(b) / xp::tgamma(s);
    return xp::exp(betaln_big(lo, hi));
  }
  if (is_nonpos_int(s)) {
    const double sg = (gamma(a) < 0) != (gamma(b) < 0) ? -1.0 : 1.0;
    return sg * 0.0;
  }
  if (xp::fabs(a) < 60 && xp::fabs(b) < 60 && xp::fabs(s) < 60) return xp::tgamma(a) * xp::tgamma(b) / xp::tgamma(s);
  const double sg = ((xp::tgamma(a) < 0) != (xp::tgamma(b) < 0)) != (xp::tgamma(s) < 0) ? -1.0 : 1.0;
  return sg * xp::exp(lgamma_plat(a) + lgamma_plat(b) - lgamma_plat(s));
}

XP_DEVICE double betaln(double a, double b) {
  if (xp::isnan(a) || xp::isnan(b)) return nan();
  if (is_nonpos_int(a) || is_nonpos_int(b)) return inf();
  const double s = a + b;
  if (a > 0 && b > 0) {
    const double hi = a > b ? a : b, lo = a > b ? b : a;
    if (xp::isinf(hi) || (hi > 1e6 && hi > 1e6 * lo)) return betaln_big(lo, hi);
    // Past Gamma's overflow, SciPy's sum of logarithms (its rounding is the reference's).
    if (s > 171.62) return lgamma_stirling(hi) + (lgamma_stirling(lo) - lgamma_stirling(s));
    const double ga = xp::tgamma(hi), gb = xp::tgamma(lo), gs = xp::tgamma(s);
    if (xp::fabs(ga - gs) > xp::fabs(gb - gs)) return xp::log(xp::fabs(gb / gs * ga));
    return xp::log(xp::fabs(ga / gs * gb));
  }
  if (is_nonpos_int(s)) return -inf();
  if (xp::fabs(a) < 60 && xp::fabs(b) < 60 && xp::fabs(s) < 60)
    return xp::log(xp::fabs(xp::tgamma(a) * xp::tgamma(b) / xp::tgamma(s)));
  return lgamma_plat(a) + lgamma_plat(b) - lgamma_plat(s);
}

}  // namespace sp
}  // namespace xp

#endif  // XP_SPECIAL_GAMMA_H
