// SciPy's exponential integrals, Lambert W and complete/Jacobian elliptic functions
// (scipy.special: expn, exp1, expi, lambertw, ellipk, ellipkm1, ellipj) in the kernel dialect.
// Emitted after xp_special.h.
//
// Algorithms:
// - E_n(x) (expn, exp1): the power series with the digamma term for x <= 1 and the continued
//   fraction (modified Lentz) for x > 1 (Numerical Recipes, 3rd ed., 6.3; A&S 5.1.11, 5.1.22).
// - Ei(x) (expi): its power series gamma + log x + sum x^k / (k k!) up to 40, the asymptotic
//   series e^x / x sum k! / x^k beyond (A&S 5.1.10, 5.1.51); Ei(-x) = -E_1(x).
// - lambertw (branch 0): Halley's iteration on w e^w = x (Corless, Gonnet, Hare, Jeffrey &
//   Knuth, "On the Lambert W function", 1996), started from the series at the branch point
//   -1/e, log1p(x), or the asymptotic log x - log log x + log log x / log x; for large x
//   Newton on w + log w = log x; complex for x < -1/e.
// - ellipk(m) = ellipkm1(1 - m), ellipkm1(p) = K(1 - p) = pi / (2 AGM(1, sqrt(p))) (A&S 17.6).
// - ellipj: the descending Landen transformation / AGM scale of A&S 16.4, with the series of
//   A&S 16.13 and 16.15 for m within 1e-9 of 0 and 1.
#ifndef XP_SPECIAL_EXPINT_H
#define XP_SPECIAL_EXPINT_H

namespace xp {
namespace sp {

#define XP_SP_EULER_G 0.57721566490153286061
#define XP_SP_FPMIN_E 1e-300
#define XP_SP_EPS_E 1.1102230246251565e-16

// E_n(x) for integer n >= 0, x > 0 finite.
XP_SP_OUTLINE double expn_pos(int n, double x) {
  const int nm1 = n - 1;
  if (n == 0) return xp::exp(-x) / x;
  if (x > 1.0) {
    // The continued fraction, evaluated from its tail (it converges slowly near x = 1, where a
    // forward evaluation stops early); 20 + 150/x terms reach 1e-21.
    const int N = 20 + (int)(150.0 / x);
    double v = x + n + 2.0 * N;
    for (int i = N; i >= 1; --i) v = (x + n + 2.0 * (i - 1)) - (double)i * (nm1 + i) / v;
    return xp::exp(-x) / v;
  }
  double ans = nm1 != 0 ? 1.0 / nm1 : -xp::log(x) - XP_SP_EULER_G;
  double fact = 1.0;
  for (int i = 1; i < 10000; ++i) {
    fact *= -x / i;
    double del;
    if (i != nm1) {
      del = -fact / (i - nm1);
    } else {
      double psi = -XP_SP_EULER_G;
      for (int ii = 1; ii <= nm1; ++ii) psi += 1.0 / ii;
      del = fact * (-xp::log(x) + psi);
    }
    ans += del;
    if (xp::fabs(del) <= xp::fabs(ans) * XP_SP_EPS_E * 0.5) break;
  }
  return ans;
}
XP_DEVICE double expn(double n, double x) {
  if (xp::isnan(n) || xp::isnan(x) || x < 0) return nan();
  n = xp::trunc(n);
  if (n < 0) return nan();
  if (x == 0) return n <= 1 ? inf() : 1.0 / (n - 1.0);
  if (xp::isinf(x)) return 0.0;
  if (x > 745.2) return 0.0;
  if (n > 2147483647.0) return 0.0;
  return expn_pos((int)n, x);
}
XP_DEVICE double exp1(double x) {
  if (xp::isnan(x) || x < 0) return nan();
  if (x == 0) return inf();
  if (xp::isinf(x) || x > 745.2) return 0.0;
  return expn_pos(1, x);
}
XP_DEVICE double expi(double x) {
  if (xp::isnan(x)) return x;
  if (x == 0) return -inf();
  if (x < 0) return -exp1(-x);
  if (xp::isinf(x)) return x;
  if (x <= 40.0) {
    double term = 1.0, s = 0.0;
    for (int k = 1; k < 1000; ++k) {
      term *= x / k;
      const double d = term / k;
      s += d;
      if (d <= s * XP_SP_EPS_E * 0.5) break;
    }
    return XP_SP_EULER_G + xp::log(x) + s;
  }
  if (x > 709.782712893384) return inf();  // SciPy: inf once e^x overflows
  double term = 1.0, s = 1.0;
  for (int k = 1; k < 100; ++k) {
    const double nt = term * k / x;
    if (nt > term) break;
    term = nt;
    s += term;
    if (term <= s * XP_SP_EPS_E * 0.5) break;
  }
  const double h = xp::exp(0.5 * x);
  return h * (h / x) * s;
}

// ---- Lambert W, branch 0 ---------------------------------------------------------------------
#define XP_SP_INV_E 0.36787944117144232160

XP_SP_OUTLINE xp::c128 lambertw_complex(double x) {
  // x < -1/e: complex Halley iteration.
  xp::c128 w;
  const double e1 = 2.0 * (2.71828182845904523536 * x + 1.0);  // < 0
  if (x > -1.0) {
    const xp::c128 p(0.0, xp::sqrt(-e1));
    w = xp::c128(-1.0) + p - p * p / xp::c128(3.0) + xp::c128(11.0 / 72.0) * p * p * p;
  } else {
    const xp::c128 l1(xp::log(-x), XP_SP_PI);
    const xp::c128 l2 = xp::log(l1);
    w = l1 - l2 + l2 / l1;
  }
  const xp::c128 z(x);
  for (int i = 0; i < 64; ++i) {
    const xp::c128 ew = xp::exp(w);
    const xp::c128 f = w * ew - z;
    const xp::c128 wp1 = w + xp::c128(1.0);
    const xp::c128 den = ew * wp1 - (w + xp::c128(2.0)) * f / (xp::c128(2.0) * wp1);
    const xp::c128 dw = f / den;
    w = w - dw;
    if (xp::hypot(dw.re, dw.im) <= 1e-16 * xp::hypot(w.re, w.im)) break;
  }
  return w;
}

XP_SP_OUTLINE double lambertw_real(double x) {
  double w;
  if (x > 1e3) {
    // w + log w = log x by Newton from the asymptotic start.
    const double l1 = xp::log(x), l2 = xp::log(l1);
    w = l1 - l2 + l2 / l1;
    for (int i = 0; i < 32; ++i) {
      const double f = w + xp::log(w) - l1;
      const double dw = f * w / (w + 1.0);
      w -= dw;
      if (xp::fabs(dw) <= 1e-16 * w) break;
    }
    return w;
  }
  if (x < -0.32) {
    const double p = xp::sqrt(2.0 * (2.71828182845904523536 * x + 1.0));
    w = -1.0 + p * (1.0 + p * (-1.0 / 3.0 + p * (11.0 / 72.0)));
  } else if (x < 3.0) {
    w = xp::log1p(x);
  } else {
    const double l1 = xp::log(x), l2 = xp::log(l1);
    w = l1 - l2 + l2 / l1;
  }
  for (int i = 0; i < 64; ++i) {
    const double ew = xp::exp(w);
    const double f = w * ew - x;
    const double wp1 = w + 1.0;
    if (wp1 == 0) break;
    const double dw = f / (ew * wp1 - (w + 2.0) * f / (2.0 * wp1));
    w -= dw;
    if (!(xp::fabs(dw) > 1e-16 * xp::fabs(w))) break;
  }
  return w;
}

XP_DEVICE xp::c128 lambertw(double x) {
  if (xp::isnan(x)) return xp::c128(x, 0.0);
  if (x == 0) return xp::c128(x, 0.0);
  if (xp::isinf(x)) return x > 0 ? xp::c128(x, 0.0) : xp::c128(inf(), XP_SP_PI);
  if (x == -XP_SP_INV_E) return xp::c128(-1.0, 0.0);
  if (x < -XP_SP_INV_E) return lambertw_complex(x);
  return xp::c128(lambertw_real(x), 0.0);
}

// ---- complete elliptic integral of the first kind ------------------------------------------
XP_SP_OUTLINE double ellipkm1(double p) {
  if (xp::isnan(p) || p < 0) return nan();
  if (p == 0) return inf();
  if (xp::isinf(p)) return 0.0;
  double a = 1.0, b = xp::sqrt(p);
  for (int i = 0; i < 64; ++i) {
    const double an = 0.5 * (a + b);
    const double bn = xp::sqrt(a * b);
    a = an;
    b = bn;
    if (xp::fabs(a - b) <= 1e-16 * a) break;
  }
  return XP_SP_PI / (a + b);
}
XP_DEVICE double ellipk(double m) {
  if (xp::isnan(m)) return m;
  if (m > 1.0) return nan();
  return ellipkm1(1.0 - m);
}

// ---- Jacobian elliptic functions -----------------------------------------------------------
XP_SP_OUTLINE void ellipj(double u, double m, double& sn, double& cn, double& dn, double& ph) {
  if (xp::isnan(u) || xp::isnan(m) || m < 0 || m > 1 || xp::isinf(u)) {
    sn = cn = dn = ph = nan();
    return;
  }
  if (m < 1e-9) {
    const double s = xp::sin(u), c = xp::cos(u);
    const double t = 0.25 * m * (u - s * c);
    sn = s - t * c;
    cn = c + t * s;
    dn = 1.0 - 0.5 * m * s * s;
    ph = u - t;
    return;
  }
  if (m >= 1.0 - 1e-9) {
    const double m1 = 1.0 - m;
    const double ch = xp::cosh(u), sh = xp::sinh(u), th = xp::tanh(u), sech = 1.0 / ch;
    const double t = 0.25 * m1 * (sh * ch - u) * sech;
    const double g = xp::atan(sh);  // the Gudermannian
    sn = th + t * sech;
    cn = sech - t * th;
    dn = sech + 0.25 * m1 * (sh * ch + u) * th * sech;
    ph = g + t;
    return;
  }
  double a[10], c[10];
  a[0] = 1.0;
  double b = xp::sqrt(1.0 - m);
  c[0] = xp::sqrt(m);
  int i = 0;
  while (i < 9 && xp::fabs(c[i] / a[i]) > 1e-16) {
    a[i + 1] = 0.5 * (a[i] + b);
    c[i + 1] = 0.5 * (a[i] - b);
    b = xp::sqrt(a[i] * b);
    ++i;
  }
  double phi = a[i] * u * (double)(1 << i);
  double prev = phi;
  for (; i > 0; --i) {
    prev = phi;
    phi = 0.5 * (xp::asin(c[i] * xp::sin(phi) / a[i]) + phi);
  }
  sn = xp::sin(phi);
  cn = xp::cos(phi);
  dn = cn / xp::cos(prev - phi);
  ph = phi;
}
XP_DEVICE double ellipj_sn(double u, double m) {
  double s, c, d, p;
  ellipj(u, m, s, c, d, p);
  return s;
}
XP_DEVICE double ellipj_cn(double u, double m) {
  double s, c, d, p;
  ellipj(u, m, s, c, d, p);
  return c;
}
XP_DEVICE double ellipj_dn(double u, double m) {
  double s, c, d, p;
  ellipj(u, m, s, c, d, p);
  return d;
}
XP_DEVICE double ellipj_ph(double u, double m) {
  double s, c, d, p;
  ellipj(u, m, s, c, d, p);
  return p;
}

}  // namespace sp
}  // namespace xp

#endif  // XP_SPECIAL_EXPINT_H
