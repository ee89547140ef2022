#ifndef XP_RNG_DIST
#define XP_RNG_DIST 1
// The distributions of `xp::random` beyond the engine's own (uniform, normal, exponential,
// gamma, beta, Poisson, binomial), one element at a time on its own stream of Philox words
// (`xp::rng::Stream`), in double precision from the engine's exactly-rounded pieces (`ln`,
// `ex`, `sincos_turn`, `loggam`, explicit products), so that every backend gives the same bits.
namespace xp {
namespace rng {
XP_DEVICE double inf_() { return bits_to_f64(0x7ff0000000000000ull); }
// e^x with overflow to inf (the engine's `ex` takes x <= 709).
XP_DEVICE double exs(double x) { return x > 709.78 ? inf_() : ex(x); }
// x^y for x > 0 (0 at x = 0).
XP_DEVICE double pw(double x, double y) { return x <= 0.0 ? 0.0 : exs(M(y, ln(x))); }
// asin(x) for |x| <= 1/2: its Taylor series, sum of c_n x^(2n+1) with c_0 = 1 and c_(n+1) =
// c_n (2n+1)^2 / ((2n+2)(2n+3)), 30 terms (the last below 2^-60 of the sum).
XP_DEVICE double asin_half(double x) {
  const double z = M(x, x);
  double t = x, c = 1.0, sum = 0.0;
  for (int n = 0; n < 30; ++n) {
    sum = F(c, t, sum);
    const double k = (double)(2 * n + 1);
    c = M(c, M(k, k) / M(k + 1.0, k + 2.0));
    t = M(t, z);
  }
  return sum;
}
// acos(w) on [-1, 1] from `asin_half`: pi/2 - asin(w) for |w| < 1/2, otherwise the half-angle
// forms 2 asin(sqrt((1 - w) / 2)) and pi - 2 asin(sqrt((1 + w) / 2)).
XP_DEVICE double acos_(double w) {
  if (w >= 0.5) return M(2.0, asin_half(sqrt(M(0.5, 1.0 - w))));
  if (w <= -0.5) return F(-2.0, asin_half(sqrt(M(0.5, 1.0 + w))), 3.141592653589793);
  return 1.5707963267948966 - asin_half(w);
}
// Uniform on the open interval (0, 1).
XP_DEVICE double uopen(Stream& s) {
  for (;;) {
    const double u = s.uniform();
    if (u > 0.0) return u;
  }
}
// Standard exponential, -ln u for u in (0, 1].
XP_DEVICE double sexp(Stream& s) { return -ln(s.open()); }
// Chi-square of df degrees of freedom: 2 gamma(df / 2).
XP_DEVICE double chisq(Stream& s, double df) { return M(2.0, gamma1(s, M(0.5, df))); }
// Standard Cauchy: tan of a uniform angle, as the ratio of its sine and cosine.
XP_DEVICE double cauchy(Stream& s) {
  double sn, cs;
  sincos_turn(s.uniform(), &sn, &cs);
  return sn / cs;
}
// Student's t: a normal over the root of a chi-square divided by its degrees of freedom.
XP_DEVICE double student_t(Stream& s, double df) {
  const double z = s.normal();
  return z / sqrt(chisq(s, df) / df);
}
// The same with the gamma constants of df / 2 given (`gamma_dc`).
XP_DEVICE double student_t_dc(Stream& s, double df, double d, double c) {
  const double z = s.normal();
  return z / sqrt(M(2.0, gamma_dc(s, M(0.5, df), d, c)) / df);
}
// Student's t for a float answer: the float ziggurat and `gamma_dc_f`, the quotient in float.
XP_DEVICE float student_t_dc_f(Stream& s, double df, float d, float c) {
  const float z = s.normal_f();
  const float g = gamma_dc_f(s, M(0.5, df), d, c);
  return z / xp::sqrt(Mf(2.0f, g) / (float)df);
}
// Noncentral chi-square: for df > 1 a chi-square of df - 1 plus a squared normal of mean
// sqrt(nonc); otherwise a chi-square of df + 2 K, K Poisson of mean nonc / 2 (the Poisson
// mixture of its definition).
XP_DEVICE double ncchisq(Stream& s, double df, double nonc) {
  if (nonc == 0.0) return chisq(s, df);
  if (df > 1.0) {
    const double c = chisq(s, df - 1.0);
    const double z = s.normal() + sqrt(nonc);
    return F(z, z, c);
  }
  const i64 k = poisson(s, M(0.5, nonc));
  return chisq(s, F(2.0, (double)k, df));
}
// Laplace: inversion of its distribution function on u in (0, 1).
XP_DEVICE double laplace(Stream& s, double loc, double scale) {
  const double u = uopen(s);
  if (u < 0.5) return F(scale, ln(u + u), loc);
  return F(-scale, ln(2.0 - (u + u)), loc);
}
// Logistic: loc + scale ln(u / (1 - u)).
XP_DEVICE double logistic(Stream& s, double loc, double scale) {
  const double u = uopen(s);
  return F(scale, ln(u / (1.0 - u)), loc);
}
// Gumbel: loc - scale ln(-ln u).
XP_DEVICE double gumbel(Stream& s, double loc, double scale) {
  const double u = uopen(s);
  return F(-scale, ln(-ln(u)), loc);
}
// Weibull of shape a: E^(1/a), E standard exponential.
XP_DEVICE double weibull(Stream& s, double a) {
  if (a == 0.0) return 0.0;
  return pw(sexp(s), 1.0 / a);
}
// Pareto II (Lomax) of shape a, as NumPy's: e^(E / a) - 1.
XP_DEVICE double pareto(Stream& s, double a) { return exs(sexp(s) / a) - 1.0; }
// Power of exponent a: u^(1/a) for u in (0, 1].
XP_DEVICE double power(Stream& s, double a) { return exs(ln(s.open()) / a); }
// Rayleigh: scale sqrt(2 E).
XP_DEVICE double rayleigh(Stream& s, double scale) { return M(scale, sqrt(M(2.0, sexp(s)))); }
// Von Mises of mean mu and concentration kappa: Best and Fisher's (1979) rejection from a
// wrapped Cauchy envelope; a uniform angle for kappa < 1e-8 and a wrapped normal of variance
// 1 / kappa for kappa > 1e6, where the envelope's parameter loses its precision. The result is
// wrapped into [-pi, pi).
XP_DEVICE double vonmises(Stream& s, double mu, double kappa) {
  const double pi = 3.141592653589793, tau = 6.283185307179586;
  double x;
  if (kappa < 1e-8) {
    x = M(pi, F(2.0, s.uniform(), -1.0));
  } else if (kappa > 1e6) {
    x = s.normal() / sqrt(kappa);
  } else {
    double r;
    if (kappa < 1e-5) {
      // (1 + rho^2) / (2 rho) to second order in kappa.
      r = 1.0 / kappa + kappa;
    } else {
      const double t = 1.0 + sqrt(F(M(4.0, kappa), kappa, 1.0));
      const double rho = (t - sqrt(M(2.0, t))) / M(2.0, kappa);
      r = F(rho, rho, 1.0) / M(2.0, rho);
    }
    double w;
    for (;;) {
      double sn, cs;
      sincos_turn(M(0.5, s.uniform()), &sn, &cs);  // z = cos(pi u)
      w = F(r, cs, 1.0) / (r + cs);
      const double c = M(kappa, r - w);
      const double v = s.open();
      if (F(c, 2.0 - c, -v) > 0.0) break;
      if (ln(c / v) + 1.0 - c >= 0.0) break;
    }
    if (w > 1.0) w = 1.0;
    if (w < -1.0) w = -1.0;
    const double th = acos_(w);
    x = s.uniform() < 0.5 ? -th : th;
  }
  double y = x + mu;
  y = F(-tau, xp::floor((y + pi) / tau), y);
  return y;
}
// Wald (inverse Gaussian) of mean mu and scale lam: Michael, Schucany and Haas' (1976)
// transformation of a squared normal, its root taken in the form without cancellation.
XP_DEVICE double wald(Stream& s, double mu, double lam) {
  const double z = s.normal();
  const double y = M(mu, M(z, z));
  if (y == 0.0) return mu;
  const double x = mu - M(2.0 * mu, y) / (y + sqrt(F(y, y, M(4.0 * lam, y))));
  const double u = s.uniform();
  if (M(u, mu + x) <= mu) return x;
  return M(mu, mu) / x;
}
// Triangular on [left, right] with its mode at `mode`: inversion of its distribution function.
XP_DEVICE double triangular(Stream& s, double left, double mode, double right) {
  const double base = right - left, lb = mode - left, rb = right - mode;
  const double u = s.uniform();
  if (M(u, base) <= lb) return left + sqrt(M(M(u, base), lb));
  return right - sqrt(M(M(1.0 - u, base), rb));
}
XP_DEVICE i64 clamp_count(double x) { return x >= 9.2233720368547758e18 ? (i64)0x7fffffffffffffffll : (i64)x; }
// Geometric on {1, 2, ...}: inversion, ceil(ln u / ln(1 - p)) (`l1p` = ln(1 - p)).
XP_DEVICE i64 geometric(Stream& s, double p, double l1p) {
  if (p >= 1.0) return 1;
  const double k = xp::ceil(ln(uopen(s)) / l1p);
  return k < 1.0 ? 1 : clamp_count(k);
}
// Negative binomial: Poisson of a gamma(n) (1 - p) / p mean (its gamma-Poisson mixture).
XP_DEVICE i64 negative_binomial(Stream& s, double n, double p) {
  if (p >= 1.0) return 0;
  const double lam = M(gamma1(s, n), (1.0 - p) / p);
  return poisson(s, lam);
}
// Logarithmic series: Kemp's (1981) LK algorithm (`r` = ln(1 - p)).
XP_DEVICE i64 logseries(Stream& s, double p, double r) {
  for (;;) {
    const double v = uopen(s);
    if (v >= p) return 1;
    const double u = s.uniform();
    const double q = 1.0 - ex(M(r, u));
    if (v <= M(q, q)) {
      const double k = xp::floor(1.0 + ln(v) / ln(q));
      if (k < 1.0 || k >= 9.2e18) continue;
      return (i64)k;
    }
    if (v >= q) return 1;
    return 2;
  }
}
// Zipf of exponent a > 1: Devroye's (1986, X.6) rejection from the Pareto-like X =
// floor(u^(-1 / (a - 1))), draws past 2^62 rejected.
XP_DEVICE i64 zipf(Stream& s, double a) {
  const double am1 = a - 1.0, b = ex(M(am1, 0.6931471805599453));
  for (;;) {
    const double u = s.open();
    const double v = s.uniform();
    const double lx = -ln(u) / am1;
    if (lx > 42.9) continue;
    const double x = xp::floor(ex(lx));
    if (x < 1.0) continue;
    const double t = ex(M(am1, ln(1.0 + 1.0 / x)));
    if (M(v, M(x, t - 1.0)) / (b - 1.0) <= t / b) return (i64)x;
  }
}
// Hypergeometric: `ngood` good and `nbad` bad items, `nsample` drawn without replacement, the
// number of good ones. With m = min(nsample, total - nsample) draws of the rarer colour: for
// m < 10 the urn itself, draw by draw; otherwise Stadlober's (1989) HRUA, ratio of uniforms
// with a table-mountain hat about the mode (constants 2 sqrt(2 / e) and 3 - 2 sqrt(3 / e)),
// quick acceptance and rejection by the bounds of 2 ln x, and log factorials from `loggam`.
XP_DEVICE i64 hypergeometric(Stream& s, i64 good, i64 bad, i64 sample) {
  const i64 total = good + bad;
  const i64 m = sample < total - sample ? sample : total - sample;
  const i64 mn = good < bad ? good : bad, mx = good < bad ? bad : good;
  i64 z = 0;
  if (m < 10) {
    i64 left = total, g = mn;
    for (i64 k = 0; k < m && g > 0; ++k) {
      if (M(s.uniform(), (double)left) < (double)g) {
        ++z;
        --g;
      }
      --left;
    }
  } else {
    const double N = (double)total, mm = (double)m, a = (double)mn, b = (double)mx;
    const double p = a / N, q = 1.0 - p;
    const double mu = F(mm, p, 0.5);
    const double sd = sqrt(M(M(M(N - mm, mm), M(p, q)), 1.0 / (N - 1.0)) + 0.5);
    const double h = F(1.7155277699214135, sd, 0.8989161620588988);
    const double mode = xp::floor(M(mm + 1.0, a + 1.0) / (N + 2.0));
    const double lf = loggam(mode + 1.0) + loggam(a - mode + 1.0) + loggam(mm - mode + 1.0) + loggam(b - mm + mode + 1.0);
    const double top = xp::fmin(xp::fmin(mm, a) + 1.0, xp::floor(F(16.0, sd, mu)));
    for (;;) {
      const double x = s.uniform(), y = s.uniform();
      if (x == 0.0) continue;
      const double w = F(h, (y - 0.5) / x, mu);
      if (w < 0.0 || w >= top) continue;
      const double zz = xp::floor(w);
      const double t = lf - (loggam(zz + 1.0) + loggam(a - zz + 1.0) + loggam(mm - zz + 1.0) + loggam(b - mm + zz + 1.0));
      if (F(x, 4.0 - x, -3.0) <= t) {
        z = (i64)zz;
        break;
      }
      if (M(x, x - t) >= 1.0) continue;
      if (M(2.0, ln(x)) <= t) {
        z = (i64)zz;
        break;
      }
    }
  }
  if (good > bad) z = m - z;
  if (m < sample) z = good - z;
  return z;
}
}  // namespace rng
}  // namespace xp
#endif
