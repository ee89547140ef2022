// SciPy's Bessel functions (scipy.special: j0, j1, y0, y1, jn, yn, i0, i0e, i1, i1e, k0, k0e,
// k1, k1e, iv, kv) in the kernel dialect. Emitted after xp_special.h and xp_special_gamma.h.
//
// Algorithms:
// - J and Y of integer order: the platform's j0, j1, y0, y1, jn, yn (libm; CUDA's and HIP's
//   device libraries), with SciPy's values at 0, at the infinities, for x < 0 (Y: NaN) and for
//   negative orders (J_-n = (-1)^n J_n, Y_-n = (-1)^n Y_n).
// - I and K of real order nu >= 0 (i0 ... k1e are nu = 0 and 1): Temme's method as in
//   Numerical Recipes' bessik (3rd ed., 6.6): mu = nu - round(nu) in [-1/2, 1/2]; K_mu and
//   K_mu+1 from Temme's series for x < 2 (its gamma-function coefficients from the Taylor
//   series of 1/Gamma(1 +- mu), A&S 6.1.34) or Steed's continued fraction CF2 for x >= 2 (which
//   gives e^x K directly, so the scaled functions never overflow), K_nu by upward recurrence;
//   I_nu'/I_nu from the continued fraction CF1 and downward recurrence, then I from the
//   Wronskian I K' - I' K = -1/x. Negative orders: K_-nu = K_nu,
//   I_-nu = I_nu + (2/pi) sin(nu pi) K_nu.
#ifndef XP_SPECIAL_BESSEL_H
#define XP_SPECIAL_BESSEL_H

namespace xp {
namespace sp {

XP_DEVICE double j0(double x) {
  if (xp::isnan(x)) return x;
  if (xp::isinf(x)) return nan();
  return ::j0(x);
}
XP_DEVICE double j1(double x) {
  if (xp::isnan(x)) return x;
  if (xp::isinf(x)) return nan();
  if (x == 0) return x;
  return ::j1(x);
}
XP_DEVICE double y0(double x) {
  if (xp::isnan(x) || x < 0 || xp::isinf(x)) return nan();
  if (x == 0) return -inf();
  return ::y0(x);
}
XP_DEVICE double y1(double x) {
  if (xp::isnan(x) || x < 0 || xp::isinf(x)) return nan();
  if (x == 0) return -inf();
  return ::y1(x);
}
// J_n(x) for integer n (a double holding one).
XP_SP_OUTLINE double jn_int(double n, double x) {
  if (xp::isnan(n) || xp::isnan(x)) return nan();
  if (xp::isinf(x)) return nan();
  if (n != xp::floor(n) || xp::fabs(n) > 2147483647.0) return nan();
  const int k = (int)n;
  if (k == 0) return j0(x);
  if (x == 0) return 0.0;
  if (k == 1) return ::j1(x);
  if (k == -1) return -::j1(x);
  return ::jn(k, x);
}
XP_SP_OUTLINE double yn_int(double n, double x) {
  if (xp::isnan(n) || xp::isnan(x) || x < 0 || xp::isinf(x)) return nan();
  n = xp::trunc(n);
  if (xp::fabs(n) > 2147483647.0) return nan();
  int k = (int)n;
  double sg = 1.0;
  if (k < 0) {
    k = -k;
    if (k & 1) sg = -1.0;
  }
  if (x == 0) return -sg * inf();
  if (k == 0) return ::y0(x);
  if (k == 1) return sg * ::y1(x);
  return sg * ::yn(k, x);
}

// e^-x I_nu(x) and e^x K_nu(x), nu >= 0, x > 0 finite (Temme's method, NR's bessik).
XP_SP_OUTLINE void bessik_scaled(double nu, double x, double& ri, double& rk) {
  const int nl = (int)(nu + 0.5);
  const double xmu = nu - nl, xmu2 = xmu * xmu;
  const double xi = 1.0 / x, xi2 = 2.0 * xi;
  // CF1: f = I'_nu / I_nu.
  double h = nu * xi;
  if (h < XP_SP_FPMIN) h = XP_SP_FPMIN;
  double b = xi2 * nu, d = 0.0, c = h;
  for (int i = 1; i < 100000; ++i) {
    b += xi2;
    d = 1.0 / (b + d);
    c = b + 1.0 / c;
    const double del = c * d;
    h = del * h;
    if (xp::fabs(del - 1.0) < XP_SP_EPS) break;
  }
  // Downward recurrence to mu from an arbitrary scale.
  double ril = 1e-200, ripl = h * ril;
  const double ril1 = ril;
  double fact = nu * xi;
  for (int l = nl; l >= 1; --l) {
    const double ritemp = fact * ril + ripl;
    fact -= xi;
    ripl = fact * ritemp + ril;
    ril = ritemp;
  }
  const double f = ripl / ril;
  double rkmu, rk1;
  if (x < 2.0) {
    const double x2 = 0.5 * x, pimu = XP_SP_PI * xmu;
    const double fct = xp::fabs(pimu) < 1e-15 ? 1.0 : pimu / xp::sin(pimu);
    double dd = -xp::log(x2);
    double e = xmu * dd;
    const double fct2 = xp::fabs(e) < 1e-15 ? 1.0 : xp::sinh(e) / e;
    // gam1 = (1/G(1-mu) - 1/G(1+mu)) / (2 mu), gam2 = (1/G(1-mu) + 1/G(1+mu)) / 2
    const double gp = rgamma1p_g(xmu), gm = rgamma1p_g(-xmu);
    const double gampl = 1.0 + xmu * gp;   // 1/Gamma(1 + mu)
    const double gammi = 1.0 - xmu * gm;   // 1/Gamma(1 - mu)
    const double gam1 = -0.5 * (gm + gp);  // (gammi - gampl) / (2 mu)
    const double gam2 = 0.5 * (gammi + gampl);
    double ff = fct * (gam1 * xp::cosh(e) + gam2 * fct2 * dd);
    double sum = ff;
    e = xp::exp(e);
    double p = 0.5 * e / gampl;
    double q = 0.5 / (e * gammi);
    double cc = 1.0;
    dd = x2 * x2;
    double sum1 = p;
    for (int i = 1; i < 10000; ++i) {
      ff = (i * ff + p + q) / (i * (double)i - xmu2);
      cc *= dd / i;
      p /= (i - xmu);
      q /= (i + xmu);
      const double del = cc * ff;
      sum += del;
      const double del1 = cc * (p - i * ff);
      sum1 += del1;
      if (xp::fabs(del) < xp::fabs(sum) * XP_SP_EPS) break;
    }
    const double ex = xp::exp(x);
    rkmu = sum * ex;
    rk1 = sum1 * xi2 * ex;
  } else {
    double bb = 2.0 * (1.0 + x), dd = 1.0 / bb, hh = dd, delh = dd;
    double q1 = 0.0, q2 = 1.0;
    const double a1 = 0.25 - xmu2;
    double q = a1, cc = a1, a = -a1;
    double s = 1.0 + q * delh;
    for (int i = 2; i < 100000; ++i) {
      a -= 2 * (i - 1);
      cc = -a * cc / i;
      const double qnew = (q1 - bb * q2) / a;
      q1 = q2;
      q2 = qnew;
      q += cc * qnew;
      bb += 2.0;
      dd = 1.0 / (bb + a * dd);
      delh = (bb * dd - 1.0) * delh;
      hh += delh;
      const double dels = q * delh;
      s += dels;
      if (xp::fabs(dels / s) < XP_SP_EPS) break;
    }
    hh = a1 * hh;
    rkmu = xp::sqrt(XP_SP_PI / (2.0 * x)) / s;
    rk1 = rkmu * (xmu + x + 0.5 - hh) * xi;
  }
  const double rkmup = xmu * xi * rkmu - rk1;
  const double rimu = xi / (f * rkmu - rkmup);
  ri = (rimu * ril1) / ril;
  for (int i = 1; i <= nl; ++i) {
    const double rktemp = (xmu + i) * xi2 * rk1 + rkmu;
    rkmu = rk1;
    rk1 = rktemp;
  }
  rk = rkmu;
}

// e^(s x) v without overflowing early (s x may pass 709 while the product is finite).
XP_DEVICE double scale_exp(double v, double sx) {
  if (xp::fabs(sx) < 700.0) return v * xp::exp(sx);
  const double h = xp::exp(0.5 * sx);
  return v * h * h;
}

// I_v(x) (scaled: e^-|x| I_v(x)) for real v.
XP_DEVICE double iv_impl(double v, double x, bool scaled) {
  if (xp::isnan(v) || xp::isnan(x)) return nan();
  double sg = 1.0;
  if (x < 0) {
    if (v != xp::floor(v)) return nan();
    if (xp::fmod(v, 2.0) != 0) sg = -1.0;
    x = -x;
  }
  if (x == 0) {
    if (v == 0) return 1.0;
    if (v > 0 || v == xp::floor(v)) return 0.0;
    return inf();
  }
  if (xp::isinf(x)) return scaled ? sg * 0.0 : nan();
  if (xp::isinf(v)) return 0.0;
  const double nu = xp::fabs(v);
  if (v >= 0 && (x < 2.0 || x * x < 4.0 * (nu + 1.0))) {
    // The power series (x/2)^v sum (x^2/4)^k / (k! Gamma(v + k + 1)): positive terms.
    const double q = 0.25 * x * x;
    double t = nu + 1.0 < 170.0 ? xp::pow(0.5 * x, nu) / xp::tgamma(nu + 1.0)
                                : xp::exp(nu * xp::log(0.5 * x) - lgamma_plat(nu + 1.0));
    double s = t;
    for (int k = 1; k < 10000; ++k) {
      t *= q / (k * (nu + k));
      s += t;
      if (t <= s * XP_SP_EPS * 0.5) break;
    }
    return sg * (scaled ? s * xp::exp(-x) : s);
  }
  double ri, rk;
  bessik_scaled(nu, x, ri, rk);
  double r = scaled ? ri : scale_exp(ri, x);
  if (v < 0 && v != xp::floor(v)) {
    const double kt = scaled ? scale_exp(rk, -2.0 * x) : scale_exp(rk, -x);
    r += (2.0 / XP_SP_PI) * sinpi(nu) * kt;
  }
  return sg * r;
}
XP_DEVICE double kv_impl(double v, double x, bool scaled) {
  if (xp::isnan(v) || xp::isnan(x) || x < 0) return nan();
  if (x == 0) return inf();
  if (xp::isinf(x)) return 0.0;
  if (xp::isinf(v)) return inf();
  double ri, rk;
  bessik_scaled(xp::fabs(v), x, ri, rk);
  return scaled ? rk : scale_exp(rk, -x);
}
XP_DEVICE double iv(double v, double x) { return iv_impl(v, x, false); }
XP_DEVICE double kv(double v, double x) { return kv_impl(v, x, false); }
XP_DEVICE double i0(double x) { return iv_impl(0.0, x, false); }
XP_DEVICE double i0e(double x) { return iv_impl(0.0, x, true); }
XP_DEVICE double i1(double x) {
  if (x == 0) return x;
  return iv_impl(1.0, x, false);
}
XP_DEVICE double i1e(double x) {
  if (x == 0) return x;
  return iv_impl(1.0, x, true);
}
XP_DEVICE double k0(double x) { return kv_impl(0.0, x, false); }
XP_DEVICE double k0e(double x) { return kv_impl(0.0, x, true); }
XP_DEVICE double k1(double x) { return kv_impl(1.0, x, false); }
XP_DEVICE double k1e(double x) { return kv_impl(1.0, x, true); }

}  // namespace sp
}  // namespace xp

#endif  // XP_SPECIAL_BESSEL_H
