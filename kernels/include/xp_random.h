#ifndef XP_RNG_ENGINE
#define XP_RNG_ENGINE 1
namespace xp {
namespace rng {
struct W4 {
  u32 x, y, z, w;
};
// Philox4x32-10 with its round keys given: ks[2r], ks[2r + 1] for round r (see
// `key_schedule`), so that a kernel taking them as parameters spends no instruction on them.
XP_DEVICE W4 philox_ks(W4 c, const u32* ks) {
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    const u64 p0 = (u64)0xD2511F53u * (u64)c.x;
    const u64 p1 = (u64)0xCD9E8D57u * (u64)c.z;
    W4 n;
    n.x = (u32)(p1 >> 32) ^ c.y ^ ks[2 * r];
    n.y = (u32)p1;
    n.z = (u32)(p0 >> 32) ^ c.w ^ ks[2 * r + 1];
    n.w = (u32)p0;
    c = n;
  }
  return c;
}
// Philox4x32-10 under key (k0, k1): its round keys bumped by the Weyl constants.
XP_DEVICE W4 philox(W4 c, u32 k0, u32 k1) {
  u32 ks[20];
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    ks[2 * r] = k0 + (u32)r * 0x9E3779B9u;
    ks[2 * r + 1] = k1 + (u32)r * 0xBB67AE85u;
  }
  return philox_ks(c, ks);
}
XP_DEVICE W4 block(u64 b, u32 j, u32 stream, u32 k0, u32 k1) {
  W4 c;
  c.x = (u32)b;
  c.y = (u32)(b >> 32);
  c.z = j;
  c.w = stream;
  return philox(c, k0, k1);
}
// Products that no compiler may fuse into a neighbouring sum.
XP_DEVICE double M(double a, double b) { return xp_mul_rn(a, b); }
XP_DEVICE double F(double a, double b, double c) { return xp_fma(a, b, c); }

// [0, 1) from 24 bits / 53 bits; (0, 1] variants for logarithms.
XP_DEVICE float u24(u32 w) { return (float)(w >> 8) * 5.9604644775390625e-08f; }
XP_DEVICE double u53(u32 a, u32 b) {
  return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * 1.1102230246251565e-16;
}
XP_DEVICE double u32open(u32 w) { return ((double)w + 1.0) * 2.3283064365386963e-10; }  // (0, 1]

// ln(x) for finite x > 0.
XP_DEVICE double ln(double x) {
  int e = 0;
  u64 b = f64_to_bits(x);
  if ((b >> 52) == 0) {  // subnormal
    x = M(x, 18014398509481984.0);
    b = f64_to_bits(x);
    e = -54;
  }
  e += (int)((b >> 52) & 0x7ff) - 1023;
  double m = bits_to_f64((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  if (m > 1.4142135623730951) {
    m = M(m, 0.5);
    e += 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double z = M(s, s);
  // 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), |s| <= 0.1716: 12 terms reach 2^-60.
  double p = 1.0 / 25.0;
  p = F(p, z, 1.0 / 23.0);
  p = F(p, z, 1.0 / 21.0);
  p = F(p, z, 1.0 / 19.0);
  p = F(p, z, 1.0 / 17.0);
  p = F(p, z, 1.0 / 15.0);
  p = F(p, z, 1.0 / 13.0);
  p = F(p, z, 1.0 / 11.0);
  p = F(p, z, 1.0 / 9.0);
  p = F(p, z, 1.0 / 7.0);
  p = F(p, z, 1.0 / 5.0);
  p = F(p, z, 1.0 / 3.0);
  const double lm = M(2.0 * s, F(p, z, 1.0));
  const double de = (double)e;
  return F(de, 0.6931471803691238, F(de, 1.9082149292705877e-10, lm));
}
// e^x (x <= 709).
XP_DEVICE double ex(double x) {
  if (x < -745.0) return 0.0;
  const double k = xp::rint(M(x, 1.4426950408889634));
  const double r = F(-k, 1.9082149292705877e-10, F(-k, 0.6931471803691238, x));
  double p = 1.0 / 6227020800.0;
  p = F(p, r, 1.0 / 479001600.0);
  p = F(p, r, 1.0 / 39916800.0);
  p = F(p, r, 1.0 / 3628800.0);
  p = F(p, r, 1.0 / 362880.0);
  p = F(p, r, 1.0 / 40320.0);
  p = F(p, r, 1.0 / 5040.0);
  p = F(p, r, 1.0 / 720.0);
  p = F(p, r, 1.0 / 120.0);
  p = F(p, r, 1.0 / 24.0);
  p = F(p, r, 1.0 / 6.0);
  p = F(p, r, 0.5);
  p = F(p, r, 1.0);
  p = F(p, r, 1.0);
  int ki = (int)k;
  // 2^k in two steps so that k down to -1074 stays representable.
  const int k1 = ki / 2, k2 = ki - k1;
  const double s1 = bits_to_f64((u64)(k1 + 1023) << 52), s2 = bits_to_f64((u64)(k2 + 1023) << 52);
  return M(M(p, s1), s2);
}
// sin and cos of 2 pi t, t in [0, 1).
XP_DEVICE void sincos_turn(double t, double* s, double* c) {
  const double q4 = M(t, 4.0);
  const double qf = xp::floor(q4);
  const int q = (int)qf & 3;
  const double f = M(q4 - qf, 1.5707963267948966);  // [0, pi/2)
  const double g = f > 0.7853981633974483 ? 1.5707963267948966 - f : f;
  const double z = M(g, g);
  double ps = -1.0 / 1307674368000.0;
  ps = F(ps, z, 1.0 / 6227020800.0);
  ps = F(ps, z, -1.0 / 39916800.0);
  ps = F(ps, z, 1.0 / 362880.0);
  ps = F(ps, z, -1.0 / 5040.0);
  ps = F(ps, z, 1.0 / 120.0);
  ps = F(ps, z, -1.0 / 6.0);
  const double sg = F(M(ps, z), g, g);
  double pc = 1.0 / 20922789888000.0;
  pc = F(pc, z, -1.0 / 87178291200.0);
  pc = F(pc, z, 1.0 / 479001600.0);
  pc = F(pc, z, -1.0 / 3628800.0);
  pc = F(pc, z, 1.0 / 40320.0);
  pc = F(pc, z, -1.0 / 720.0);
  pc = F(pc, z, 1.0 / 24.0);
  pc = F(pc, z, -0.5);
  const double cg = F(pc, z, 1.0);
  const bool swap = f > 0.7853981633974483;
  const double sf = swap ? cg : sg, cf = swap ? sg : cg;
  // Quadrant q turns (sf, cf) by q quarter turns; selects, not an indexed table, so that
  // nothing goes to local memory on GPUs.
  const double a = (q & 1) ? cf : sf, b = (q & 1) ? -sf : cf;
  *s = (q & 2) ? -a : a;
  *c = (q & 2) ? -b : b;
}
// float32 versions for float32 draws: the same constructions in single precision (products
// that no compiler may fuse, explicit fused ones), to about one ulp of float.
XP_DEVICE float Mf(float a, float b) { return xp_mul_rn(a, b); }
XP_DEVICE float Ff(float a, float b, float c) { return xp_fma(a, b, c); }
// -2 ln(u) for u = ((float)w + 1) 2^-32 in (0, 1], all 32 bits of `w` used: x = (float)w + 1
// = 2^e m with m in [sqrt(1/2), sqrt(2)) split by integer arithmetic on x's bits (subtracting
// sqrt(1/2)'s bits carries into the exponent exactly when m must be halved; the 2^-32 is folded
// into the same subtraction), then ln(m) = f - f^2 / 2 + f^3 P(f) for f = m - 1 (exact) with
// P the degree-8 minimax polynomial of Cephes' logf, every coefficient times -2 (exact).
XP_DEVICE float m2lnf_u32(u32 w) {
  const float x = (float)w + 1.0f;
  const u32 b = f32_to_bits(x) - (0x3f3504f3u + (32u << 23));
  const float de = (float)((int)b >> 23);
  const float f = bits_to_f32((b & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
  const float z = Mf(f, f);
  float p = -1.4075367258e-1f;
  p = Ff(p, f, 2.3029220620e-1f);
  p = Ff(p, f, -2.3353997480e-1f);
  p = Ff(p, f, 2.4840281692e-1f);
  p = Ff(p, f, -2.8498645574e-1f);
  p = Ff(p, f, 3.3336115330e-1f);
  p = Ff(p, f, -4.0001429530e-1f);
  p = Ff(p, f, 4.9999987986e-1f);
  p = Ff(p, f, -6.6666662348e-1f);
  // -2 ln m = -2 f + f^2 - 2 f^3 P(f); -2 ln 2 rounded to float is 4e-9 off, so e (-2 ln 2)
  // stays within 2^-27 of the result.
  const float lm = Ff(f, -2.0f, Ff(Mf(f, z), p, z));
  return Ff(de, -1.38629436f, lm);
}
// NumPy's loggam: log Gamma(x) for x > 0 by Stirling's series.
XP_DEVICE double loggam(double x) {
  if (x == 1.0 || x == 2.0) return 0.0;
  const int n = x < 7.0 ? (int)(7.0 - x) : 0;
  double x0 = x + (double)n;
  const double r = 1.0 / x0, x2 = M(r, r);
  double g = -174611.0 / 125400.0;
  g = F(g, x2, 43867.0 / 244188.0);
  g = F(g, x2, -3617.0 / 122400.0);
  g = F(g, x2, 1.0 / 156.0);
  g = F(g, x2, -691.0 / 360360.0);
  g = F(g, x2, 1.0 / 1188.0);
  g = F(g, x2, -1.0 / 1680.0);
  g = F(g, x2, 1.0 / 1260.0);
  g = F(g, x2, -1.0 / 360.0);
  g = F(g, x2, 1.0 / 12.0);
  double gl = g / x0 + 0.9189385332046727 + M(x0 - 0.5, ln(x0)) - x0;
  for (int k = 1; k <= n; ++k) {
    gl -= ln(x0 - 1.0);
    x0 -= 1.0;
  }
  return gl;
}

// One element's stream of words (draws by rejection).
struct Stream {
  u64 b;
  u32 stream, k0, k1, j;
  W4 buf;
  int used;
  XP_DEVICE u32 next() {
    if (used == 4) {
      buf = block(b, j++, stream, k0, k1);
      used = 0;
    }
    const u32 w = used == 0 ? buf.x : used == 1 ? buf.y : used == 2 ? buf.z : buf.w;
    ++used;
    return w;
  }
  XP_DEVICE double uniform() { const u32 a = next(); return u53(a, next()); }
  XP_DEVICE double open() { return u32open(next()); }
  XP_DEVICE double normal() {
    const double r = sqrt(M(-2.0, ln(open())));
    double s, c;
    sincos_turn(uniform(), &s, &c);
    return M(r, c);
  }
};
XP_DEVICE Stream stream_of(u64 b, u32 stream, u32 k0, u32 k1, u32 first) {
  Stream s;
  s.b = b;
  s.stream = stream;
  s.k0 = k0;
  s.k1 = k1;
  s.j = first;
  s.used = 4;
  return s;
}
// Marsaglia and Tsang's gamma(k, 1).
XP_DEVICE double gamma1(Stream& s, double k) {
  if (k <= 0.0) return 0.0;
  double boost = 1.0;
  if (k < 1.0) {
    boost = ex(ln(s.open()) / k);
    k += 1.0;
  }
  const double d = k - 1.0 / 3.0, c = 1.0 / sqrt(M(9.0, d));
  for (;;) {
    double x, v;
    do {
      x = s.normal();
      v = F(c, x, 1.0);
    } while (v <= 0.0);
    v = M(M(v, v), v);
    const double u = s.open();
    const double x2 = M(x, x);
    if (u < 1.0 - M(0.0331, M(x2, x2))) return M(M(d, v), boost);
    if (ln(u) < F(0.5, x2, M(d, 1.0 - v + ln(v)))) return M(M(d, v), boost);
  }
}
// NumPy's Poisson: multiplication for lam < 10, PTRS (Hoermann) above.
XP_DEVICE i64 poisson(Stream& s, double lam) {
  if (lam <= 0.0) return 0;
  if (lam < 10.0) {
    const double enlam = ex(-lam);
    i64 x = 0;
    double prod = 1.0;
    for (;;) {
      prod = M(prod, s.uniform());
      if (prod > enlam) ++x; else return x;
    }
  }
  const double slam = sqrt(lam), loglam = ln(lam);
  const double b = F(2.53, slam, 0.931), a = F(0.02483, b, -0.059);
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double U = s.uniform() - 0.5, V = s.uniform();
    const double us = 0.5 - xp::fabs(U);
    const i64 k = (i64)xp::floor(F(M(2.0, a) / us + b, U, lam + 0.43));
    if (us >= 0.07 && V <= vr) return k;
    if (k < 0 || (us < 0.013 && V > us)) continue;
    if (ln(V) + ln(invalpha) - ln(a / M(us, us) + b) <= -lam + M((double)k, loglam) - loggam((double)k + 1.0)) return k;
  }
}
// Binomial(n, p): inversion while n min(p, 1-p) is small, else split by a beta draw
// (Devroye), each split at least halving n.
XP_DEVICE i64 binomial(Stream& s, i64 n, double p) {
  i64 add = 0;
  for (;;) {
    if (n <= 0 || p <= 0.0) return add;
    if (p >= 1.0) return add + n;
    const double q = p > 0.5 ? 1.0 - p : p;
    if (M((double)n, q) < 30.0) {
      // Inversion on q, then map back.
      const double qn = ex(M((double)n, ln(1.0 - q))), r = q / (1.0 - q);
      double u = s.uniform(), pk = qn;
      i64 x = 0;
      while (u > pk && x < n) {
        u -= pk;
        pk = M(pk, M(r, (double)(n - x) / (double)(x + 1)));
        ++x;
      }
      return add + (p > 0.5 ? n - x : x);
    }
    const i64 a = 1 + n / 2, bb = n + 1 - a;
    const double ga = gamma1(s, (double)a), gb = gamma1(s, (double)bb);
    const double x = ga / (ga + gb);
    if (x >= p) {
      n = a - 1;
      p = p / x;
    } else {
      add += a;
      n = bb - 1;
      p = (p - x) / (1.0 - x);
    }
  }
}
}  // namespace rng
}  // namespace xp
#endif
