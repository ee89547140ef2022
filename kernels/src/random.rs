//! Random number kernels: the counter-based Philox4x32-10 generator and the distributions of
//! `xp::random`, written so that one seed gives the same bits on every backend.
//!
//! # Counters
//!
//! A generator is a 64-bit key, a 32-bit stream (`jumped`) and a 64-bit count of blocks used.
//! Block `b` of a call is `philox(counter = (b lo, b hi, j, stream), key)`: four 32-bit words.
//! Bulk draws (uniform, normal, exponential, integers) turn the words of block `base + i`
//! into elements `4i..4i+4` (f32) or `2i..2i+2` (f64, two words each); draws by rejection
//! (gamma, beta, Poisson, binomial) give element `i` the blocks `(base + i, j = 0, 1, …)` as
//! its own stream of words. Either way an element's value depends only on the key, the
//! counter and the element's index: not on the grid, the device or its number of
//! multiprocessors.
//!
//! # Same bits everywhere
//!
//! Integer arithmetic and the word-to-float conversions are exact. The transcendental
//! functions the distributions need (`log`, `exp`, `sin`/`cos` of a turn, `loggam`) are this
//! module's own, in double precision, built from operations IEEE 754 rounds the same way on
//! every backend: `+`, `-`, `/`, `sqrt` and explicit fused or non-contractible products
//! (`xp_fma`, `xp_mul_rn`), so that no compiler may fuse a product into a sum on one backend
//! and not on another. Bulk float32 draws are made in single precision throughout, by the
//! float versions of those functions: GPUs convert between float and double, and compute in
//! double, at a fraction of their float rate, which would bound a draw well below the
//! memory's speed. Draws by rejection compute in double and round their results.

use crate::plan::{plan_flat, PlanArg, PlannedLaunch, Target};
use crate::render::Rendered;

/// The Philox4x32-10 engine every random kernel is written against (counters, keys, and the
/// transforms from words to each distribution): `include/xp_random.h`, emitted once per translation unit behind its
/// guard; its bytes are part of every such kernel's source and so of its cache key.
const RNG_ENGINE: &str = concat!("\n", include_str!("../include/xp_random.h"));

/// The engine's C++ source (the header behind its guard): for kernels of other crates that
/// draw from the same counters.
pub fn engine_source() -> &'static str {
    RNG_ENGINE
}

fn kernel(name: String, body: String) -> Rendered {
    Rendered { name, code: format!("{RNG_ENGINE}\n{body}") }
}

/// The bulk distributions: one Philox block gives 4 float32 or 2 float64 elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bulk {
    /// `lo + scale * u`, `u` uniform in [0, 1).
    Uniform,
    /// `lo + scale * z`, `z` standard normal (Box–Muller; float32 with a table of angles).
    Normal,
    /// `scale * e`, `e` standard exponential (`-ln u`, `u` in (0, 1]).
    Exponential,
}

/// The kernel of a bulk distribution into float32 (`f64 == false`) or float64.
///
/// Parameters: `T* out, xp::i64 n, xp::u64 base, xp::i32 stream, double lo, double scale`,
/// then the 20 round keys of the generator's key ([`key_schedule`]).
pub fn bulk_kernel(kind: Bulk, f64: bool) -> Rendered {
    let t = if f64 { "double" } else { "float" };
    let tag = match kind {
        Bulk::Uniform => "uniform",
        Bulk::Normal => "normal",
        Bulk::Exponential => "exponential",
    };
    let name = format!("xp_rng_{tag}_{}", if f64 { "f64" } else { "f32" });
    let per = if f64 { 2 } else { 4 };
    // Values v[0..per] of the block's words w[0..4], in the output's precision, and how they
    // are stored (`lo` and `scale` come as doubles and are rounded once to the output's
    // precision). Float32 normals have a kernel of their own.
    let (values, store) = match (kind, f64) {
        (Bulk::Normal, false) => return normal_f32_kernel(),
        (Bulk::Uniform, false) => {
            ("for (int j = 0; j < 4; ++j) v[j] = xp::rng::u24(w[j]);", "xp::rng::Ff(sc, v[j], l0)")
        }
        (Bulk::Uniform, true) => {
            ("v[0] = xp::rng::u53(w[0], w[1]); v[1] = xp::rng::u53(w[2], w[3]);", "xp::rng::F(sc, v[j], l0)")
        }
        (Bulk::Exponential, false) => {
            ("for (int j = 0; j < 4; ++j) v[j] = xp::rng::Mf(0.5f, xp::rng::m2lnf_u32(w[j]));", "xp::rng::Mf(sc, v[j])")
        }
        (Bulk::Exponential, true) => (
            "for (int j = 0; j < 2; ++j) v[j] = -xp::rng::ln(1.0 - xp::rng::u53(w[2 * j], w[2 * j + 1]));",
            "xp::rng::M(sc, v[j])",
        ),
        (Bulk::Normal, true) => (
            "{
      const double r = sqrt(xp::rng::M(-2.0, xp::rng::ln(1.0 - xp::rng::u53(w[0], w[1]))));
      double s, c;
      xp::rng::sincos_turn(xp::rng::u53(w[2], w[3]), &s, &c);
      v[0] = xp::rng::M(r, c);
      v[1] = xp::rng::M(r, s);
    }",
            "xp::rng::F(sc, v[j], l0)",
        ),
    };
    let keys = (0..20).map(|r| format!("xp::i32 k{r}")).collect::<Vec<_>>().join(", ");
    let key_list = (0..20).map(|r| format!("(xp::u32)k{r}")).collect::<Vec<_>>().join(", ");
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}({t}* __restrict__ out, xp::i64 n, xp::u64 base, xp::i32 stream, double lo, double scale, {keys}) {{
  const xp::i64 blocks = (n + {per} - 1) / {per};
  const xp::u32 ks[20] = {{{key_list}}};
  const {t} sc = ({t})scale, l0 = ({t})lo;
  (void)l0;
  XP_FOR_EACH(xp::i64, i, blocks) {{
    const xp::u64 b = base + (xp::u64)i;
    xp::rng::W4 c;
    c.x = (xp::u32)b;
    c.y = (xp::u32)(b >> 32);
    c.z = 0u;
    c.w = (xp::u32)stream;
    const xp::rng::W4 r = xp::rng::philox_ks(c, ks);
    const xp::u32 w[4] = {{r.x, r.y, r.z, r.w}};
    {t} v[{per}];
    {values}
#if defined(XP_GPU)
    // A whole block's values in one 16-byte store: consecutive threads write consecutive
    // 16 bytes.
    if (i * {per} + {per} <= n && (((xp::u64)out) & 15) == 0) {{
      struct alignas(16) V {{ {t} x[{per}]; }} q;
      for (int j = 0; j < {per}; ++j) q.x[j] = ({t})({store});
      *reinterpret_cast<V*>(out + i * {per}) = q;
      continue;
    }}
#endif
    for (int j = 0; j < {per}; ++j) {{
      const xp::i64 e = i * {per} + j;
      if (e < n) out[e] = ({t})({store});
    }}
  }}
}}
"
        ),
    )
}

/// Philox blocks a GPU thread of the float32 normal kernel turns into values: more than the
/// other bulk draws, since each block first copies its tables to shared memory.
pub const NORMAL_BLOCKS_PER_THREAD: usize = 32;

/// Tables of float32 normals: the cosine and sine of `2 pi (k + 1/2) / 512` for `k < 512`
/// (as C++: `turn::cs[k]` holds the cosine's float bits in its low word and the sine's in its
/// high word) with `turn::pair`, which turns a radius and a word into two normals; and 256
/// rows for `turn::m2ln`, the radius' logarithm.
fn turn_source() -> &'static str {
    static S: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let step = std::f64::consts::TAU / 512.0;
        let cs = (0..512)
            .map(|k| {
                let a = step * (k as f64 + 0.5);
                let (c, s) = ((a.cos() as f32).to_bits() as u64, (a.sin() as f32).to_bits() as u64);
                format!("0x{:016x}ull", (s << 32) | c)
            })
            .collect::<Vec<_>>()
            .join(", ");
        // Rows of -2 ln m (see `m2ln`): row k holds m in [m_lo, m_hi), the bit patterns
        // sqrt(1/2) + k 2^15 onwards; the row holding 1 gets inv_c = 1 exactly.
        let ln = (0..256u32)
            .map(|k| {
                let lo = 0x3f35_04f3u32 + (k << 15);
                let hi = lo + (1 << 15);
                let inv_c = if (lo..hi).contains(&0x3f80_0000) {
                    1.0f32
                } else {
                    let c = 0.5 * (f32::from_bits(lo) as f64 + f32::from_bits(hi) as f64);
                    (1.0 / c) as f32
                };
                let l = (2.0 * (inv_c as f64).ln()) as f32;
                format!("0x{:016x}ull", ((l.to_bits() as u64) << 32) | inv_c.to_bits() as u64)
            })
            .collect::<Vec<_>>()
            .join(", ");
        let a = step as f32;
        let b = (-1.5 * a as f64) as f32;
        format!(
            "#ifndef XP_RNG_TURN
#define XP_RNG_TURN 1
namespace xp {{
namespace rng {{
namespace turn {{
__device__ const u64 cs[512] = {{{cs}}};
__device__ const u64 lnrow[256] = {{{ln}}};
// -2 ln(u) for u = ((float)w + 1) 2^-32, as `m2lnf_u32` splits it (x = 2^e m, m in
// [sqrt(1/2), sqrt(2))), with ln m from row k of the table `lnrow` (`row(k)`: 1 / c in the low
// word, 2 ln(1 / c) in the high word): m / c = 1 + r, |r| < 0.002, and -2 ln(1 + r) =
// -2 r + r^2 - 2 r^3 / 3 to within 2^-28 of it.
template <class Row> XP_DEVICE float m2ln(u32 w, Row row) {{
  const float x = (float)w + 1.0f;
  const u32 b = f32_to_bits(x) - (0x3f3504f3u + (32u << 23));
  const float de = (float)((int)b >> 23);
  const float m = bits_to_f32((b & 0x007fffffu) + 0x3f3504f3u);
  const u64 e = row((b >> 15) & 255u);
  const float r = Ff(m, bits_to_f32((u32)e), -1.0f);
  const float p = Mf(r, Ff(r, Ff(r, -2.0f / 3.0f, 1.0f), -2.0f));
  return Ff(de, -1.38629436f, bits_to_f32((u32)(e >> 32)) + p);
}}
// z_c = l0 + r cos(t), z_s = l0 + r sin(t) for the angle t = 2 pi (k + f) / 512 of word `w`:
// k its top 9 bits, whose table entry is `e`, and f in [0, 1) its low 23. With t_k the
// table's angle and d = t - t_k in [-pi / 512, pi / 512): cos d = 1 - d^2 / 2 and sin d =
// d - d^3 / 6 to within 6e-11, then the sum formulas.
XP_DEVICE void pair(u32 w, u64 e, float r, float l0, float* zc, float* zs) {{
  const float C = bits_to_f32((u32)e), S = bits_to_f32((u32)(e >> 32));
  const float fb = bits_to_f32(0x3f800000u | (w & 0x007fffffu));  // 1 + f
  const float d = Ff(fb, bits_to_f32(0x{:08x}u), bits_to_f32(0x{:08x}u));
  const float d2 = Mf(d, d);
  const float sd = Ff(Mf(d, d2), -1.0f / 6.0f, d), cd = Ff(d2, -0.5f, 1.0f);
  const float a = Mf(r, cd), b = Mf(r, sd);
  *zc = Ff(C, a, Ff(-S, b, l0));
  *zs = Ff(S, a, Ff(C, b, l0));
}}
}}  // namespace turn
}}  // namespace rng
}}  // namespace xp
#endif
",
            a.to_bits(),
            b.to_bits()
        )
    })
}

/// Float32 normals, by Box–Muller: per block of words, `w0` and `w2` give radii
/// `sqrt(-2 ln u)` (`u = ((float)w + 1) 2^-32`, all 32 bits) and `w1`, `w3` their angles
/// `2 pi w / 2^32`, both by the tables of [`turn_source`] (in shared memory on GPUs) and a
/// short polynomial. The parameters are `bulk_kernel`'s.
///
/// GPU threads run only whole blocks of four in their loop, two at a time and step by step so
/// that the two chains of instructions interleave ([`NORMAL_BLOCKS_PER_THREAD`] blocks a
/// thread, over which the tables' copy is shared), and leave the last, partial block to one
/// thread.
fn normal_f32_kernel() -> Rendered {
    // It takes no parameters of its own: rendered once.
    static K: std::sync::OnceLock<Rendered> = std::sync::OnceLock::new();
    K.get_or_init(render_normal_f32).clone()
}

fn render_normal_f32() -> Rendered {
    let name = "xp_rng_normal_f32".to_string();
    let keys = (0..20).map(|r| format!("xp::i32 k{r}")).collect::<Vec<_>>().join(", ");
    let key_list = (0..20).map(|r| format!("(xp::u32)k{r}")).collect::<Vec<_>>().join(", ");
    let turn = turn_source();
    Rendered {
        name: name.clone(),
        code: format!(
            "{RNG_ENGINE}
{turn}
namespace xp {{
namespace rng {{
// The words of block `b` under round keys `ks`.
XP_DEVICE W4 words(xp::u64 b, xp::u32 stream, const xp::u32* ks) {{
  W4 c;
  c.x = (xp::u32)b;
  c.y = (xp::u32)(b >> 32);
  c.z = 0u;
  c.w = stream;
  return philox_ks(c, ks);
}}
// The four normals of block `b`, angles from table `cs`: words 0 and 2 the radii, 1 and 3
// their angles.
template <class Row>
XP_DEVICE void normals4(xp::u64 b, xp::u32 stream, const xp::u32* ks, const xp::u64* cs, Row row, float sc, float l0, float* v) {{
  const W4 q = words(b, stream, ks);
  const xp::u32 w[4] = {{q.x, q.y, q.z, q.w}};
  for (int j = 0; j < 2; ++j) {{
    // The radius takes the scale: one product for both values.
    const float r = Mf(sqrtf(turn::m2ln(w[2 * j], row)), sc);
    turn::pair(w[2 * j + 1], cs[w[2 * j + 1] >> 23], r, l0, &v[2 * j], &v[2 * j + 1]);
  }}
}}
}}  // namespace rng
}}  // namespace xp
extern \"C\" __global__ void {name}(float* __restrict__ out, xp::i64 n, xp::u64 base, xp::i32 stream, double lo, double scale, {keys}) {{
  const xp::i64 blocks = (n + 3) / 4;
  const xp::u32 ks[20] = {{{key_list}}};
  const float sc = (float)scale, l0 = (float)lo;
#if defined(XP_GPU)
  __shared__ xp::u64 cs[512];
  __shared__ xp::u64 lt[256];
  for (unsigned t = threadIdx.x; t < 512u; t += blockDim.x) cs[t] = xp::rng::turn::cs[t];
  for (unsigned t = threadIdx.x; t < 256u; t += blockDim.x) lt[t] = xp::rng::turn::lnrow[t];
  xp::gpu_block_sync();
  const auto row = [&](xp::u32 k) {{ return lt[k]; }};
  const xp::i64 whole = n / 4, stride = (xp::i64)blockDim.x * (xp::i64)gridDim.x;
  const bool aligned = (((xp::u64)out) & 15) == 0;
  struct alignas(16) V {{ float x[4]; }};
  xp::i64 i = (xp::i64)blockIdx.x * blockDim.x + threadIdx.x;
  // Two blocks a round (i and i + stride): two independent chains of instructions.
  for (; i + stride < whole; i += 2 * stride) {{
    // Step by step over both blocks, so that the compiler may interleave them: words,
    // logarithms, square roots (each a branch for its rare operands), angles.
    const xp::rng::W4 a = xp::rng::words(base + (xp::u64)i, (xp::u32)stream, ks);
    const xp::rng::W4 b = xp::rng::words(base + (xp::u64)(i + stride), (xp::u32)stream, ks);
    const float m[4] = {{xp::rng::turn::m2ln(a.x, row), xp::rng::turn::m2ln(a.z, row), xp::rng::turn::m2ln(b.x, row), xp::rng::turn::m2ln(b.z, row)}};
    float r[4];
    for (int k = 0; k < 4; ++k) r[k] = xp::rng::Mf(sqrtf(m[k]), sc);
    V p, q;
    xp::rng::turn::pair(a.y, cs[a.y >> 23], r[0], l0, &p.x[0], &p.x[1]);
    xp::rng::turn::pair(a.w, cs[a.w >> 23], r[1], l0, &p.x[2], &p.x[3]);
    xp::rng::turn::pair(b.y, cs[b.y >> 23], r[2], l0, &q.x[0], &q.x[1]);
    xp::rng::turn::pair(b.w, cs[b.w >> 23], r[3], l0, &q.x[2], &q.x[3]);
    if (aligned) {{
      // A whole block's values in one 16-byte store.
      *reinterpret_cast<V*>(out + i * 4) = p;
      *reinterpret_cast<V*>(out + (i + stride) * 4) = q;
    }} else {{
      for (int j = 0; j < 4; ++j) out[i * 4 + j] = p.x[j];
      for (int j = 0; j < 4; ++j) out[(i + stride) * 4 + j] = q.x[j];
    }}
  }}
  if (i < whole) {{
    V p;
    xp::rng::normals4(base + (xp::u64)i, (xp::u32)stream, ks, cs, row, sc, l0, p.x);
    for (int j = 0; j < 4; ++j) out[i * 4 + j] = p.x[j];
  }}
  // The last block when n is not a multiple of 4.
  if (whole < blocks && blockIdx.x == 0 && threadIdx.x == 0) {{
    float v[4];
    xp::rng::normals4(base + (xp::u64)whole, (xp::u32)stream, ks, cs, row, sc, l0, v);
    for (int j = 0; whole * 4 + j < n; ++j) out[whole * 4 + j] = v[j];
  }}
#else
  XP_FOR_EACH(xp::i64, i, blocks) {{
    float v[4];
    xp::rng::normals4(base + (xp::u64)i, (xp::u32)stream, ks, xp::rng::turn::cs, [](xp::u32 k) {{ return xp::rng::turn::lnrow[k]; }}, sc, l0, v);
    for (int j = 0; j < 4 && i * 4 + j < n; ++j) out[i * 4 + j] = v[j];
  }}
#endif
}}
"
        ),
    }
}

/// Uniform integers in `[low, low + range)` as int64 (`range` 0: all 2^64 values), one
/// element per two words (a 64-bit draw times the range, high half: Lemire's method without
/// its rejection step, bias below 2^-32 for ranges under 2^32).
///
/// Parameters: `xp::i64* out, xp::i64 n, xp::u64 base, xp::i32 stream`, the 20 round keys
/// ([`key_params`]), `xp::i64 low, xp::u64 range`.
pub fn integers_kernel() -> Rendered {
    let name = "xp_rng_integers".to_string();
    let (keys, key_array) = (key_params(), key_array());
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}(xp::i64* __restrict__ out, xp::i64 n, xp::u64 base, xp::i32 stream, {keys}, xp::i64 low, xp::u64 range) {{
  const xp::i64 blocks = (n + 1) / 2;
  {key_array}
  XP_FOR_EACH(xp::i64, i, blocks) {{
    xp::rng::W4 c;
    c.x = (xp::u32)(base + (xp::u64)i);
    c.y = (xp::u32)((base + (xp::u64)i) >> 32);
    c.z = 0u;
    c.w = (xp::u32)stream;
    const xp::rng::W4 r = xp::rng::philox_ks(c, ks);
    const xp::u64 d[2] = {{((xp::u64)r.x << 32) | r.y, ((xp::u64)r.z << 32) | r.w}};
    for (int j = 0; j < 2; ++j) {{
      const xp::i64 e = i * 2 + j;
      if (e >= n) break;
      xp::u64 off = d[j];
      if (range != 0) {{
        const xp::u64 a = d[j] >> 32, b = d[j] & 0xffffffffull;
        const xp::u64 rh = range >> 32, rl = range & 0xffffffffull;
        // High 64 bits of d * range.
        const xp::u64 ll = b * rl, lh = b * rh, hl = a * rl, hh = a * rh;
        const xp::u64 mid = (ll >> 32) + (lh & 0xffffffffull) + (hl & 0xffffffffull);
        off = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
      }}
      out[e] = (xp::i64)((xp::u64)low + off);
    }}
  }}
}}
"
        ),
    )
}

/// The distributions drawn by rejection, one stream of blocks per element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rejection {
    /// `gamma(a) * scale` (float64; `b` unused).
    Gamma,
    /// `gamma(a) / (gamma(a) + gamma(b))` (float64).
    Beta,
    /// Poisson of mean `a` (int64).
    Poisson,
    /// Binomial of `a` trials (an integer) with probability `b` (int64).
    Binomial,
}

/// The constants a kernel of a distribution drawn by rejection takes beside `a` and `b`
/// (`REJECTION_CONSTANTS` of them, unused ones 0), computed here with the operations the device
/// code would use (`M` a product, `F` a fused multiply-add, IEEE quotients and roots), so the
/// draws have the same bits as if each element had computed them: Marsaglia and Tsang's `d`
/// and `c` for each gamma shape, and BTRD's constants for the binomial.
pub fn rejection_constants(kind: Rejection, a: f64, b: f64) -> [f64; REJECTION_CONSTANTS] {
    let mut c = [0.0; REJECTION_CONSTANTS];
    let gamma_dc = |k: f64| {
        let d = (if k < 1.0 { k + 1.0 } else { k }) - 1.0 / 3.0;
        (d, 1.0 / (9.0 * d).sqrt())
    };
    match kind {
        Rejection::Gamma => (c[0], c[1]) = gamma_dc(a),
        Rejection::Beta => {
            (c[0], c[1]) = gamma_dc(a);
            (c[2], c[3]) = gamma_dc(b);
        }
        Rejection::Poisson => {}
        Rejection::Binomial => {
            let (dn, p) = (a, b);
            if p > 0.0 && p < 1.0 {
                let q = if p > 0.5 { 1.0 - p } else { p };
                let qq = 1.0 - q;
                let m = ((dn + 1.0) * q).floor();
                let r = q / qq;
                let nr = (dn + 1.0) * r;
                let npq = (dn * q) * qq;
                let sq = npq.sqrt();
                let bb = 2.53f64.mul_add(sq, 1.15);
                let aa = 0.01f64.mul_add(q, 0.0248f64.mul_add(bb, -0.0873));
                let cc = dn.mul_add(q, 0.5);
                let alpha = (2.83 + 5.1 / bb) * sq;
                let vr = 0.92 - 4.2 / bb;
                c = [m, r, nr, npq, bb, aa, cc, alpha, 1.0 / vr, 0.86 * vr, vr];
            }
        }
    }
    c
}

/// How many constants [`rejection_constants`] gives.
pub const REJECTION_CONSTANTS: usize = 11;

/// The kernel of a distribution drawn by rejection.
///
/// Parameters: `T* out, xp::i64 n, xp::u64 base, xp::i32 stream`, the 20 round keys
/// ([`key_params`]), `double a, double b, double c0, …, double c10` (the constants of [`rejection_constants`];
/// `T` double for gamma and beta, or float with `single`: gamma's loop in float, beta's float64
/// draw rounded once, written without a float64 array between; int64 for the counts, where
/// `single` is ignored).
pub fn rejection_kernel(kind: Rejection, single: bool) -> Rendered {
    let (tag, t, expr) = match kind {
        Rejection::Gamma => ("gamma", "double", "xp::rng::M(xp::rng::gamma_dc(s, a, c0, c1), b)"),
        Rejection::Beta => (
            "beta",
            "double",
            "[&]() { const double x = xp::rng::gamma_dc(s, a, c0, c1); xp::rng::Stream t = xp::rng::stream_of(base + (xp::u64)i, (xp::u32)stream, ks, 0x80000000u); const double y = xp::rng::gamma_dc(t, b, c2, c3); return x / (x + y); }()",
        ),
        Rejection::Poisson => ("poisson", "xp::i64", "xp::rng::poisson(s, a)"),
        Rejection::Binomial => (
            "binomial",
            "xp::i64",
            "[&]() { const double pre[11] = {c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10}; return xp::rng::binomial_pre(s, (xp::i64)a, b, pre); }()",
        ),
    };
    let single = single && t == "double";
    // Float32 gamma draws run Marsaglia and Tsang's loop in float (`gamma_dc_f`).
    let expr = if single && kind == Rejection::Gamma {
        "xp::rng::M((double)xp::rng::gamma_dc_f(s, a, (float)c0, (float)c1), b)"
    } else {
        expr
    };
    let (name, t) = if single { (format!("xp_rng_{tag}_f32"), "float") } else { (format!("xp_rng_{tag}"), t) };
    let consts: String = (0..REJECTION_CONSTANTS).map(|k| format!(", double c{k}")).collect();
    let (keys, key_array) = (key_params(), key_array());
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}({t}* __restrict__ out, xp::i64 n, xp::u64 base, xp::i32 stream, {keys}, double a, double b{consts}) {{
  {key_array}
  XP_FOR_EACH(xp::i64, i, n) {{
    xp::rng::Stream s = xp::rng::stream_of(base + (xp::u64)i, (xp::u32)stream, ks, 0u);
    out[i] = ({t})({expr});
  }}
}}
"
        ),
    )
}

/// The raw Philox blocks `base .. base + blocks` (for tests: known-answer vectors).
///
/// Parameters: `xp::u32* out, xp::i64 blocks, xp::u64 base, xp::i32 j, xp::i32 stream,
/// xp::i32 k0, xp::i32 k1`.
pub fn philox_kernel() -> Rendered {
    let name = "xp_rng_philox".to_string();
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}(xp::u32* __restrict__ out, xp::i64 blocks, xp::u64 base, xp::i32 j, xp::i32 stream, xp::i32 k0, xp::i32 k1) {{
  XP_FOR_EACH(xp::i64, i, blocks) {{
    const xp::rng::W4 r = xp::rng::block(base + (xp::u64)i, (xp::u32)j, (xp::u32)stream, (xp::u32)k0, (xp::u32)k1);
    out[4 * i] = r.x; out[4 * i + 1] = r.y; out[4 * i + 2] = r.z; out[4 * i + 3] = r.w;
  }}
}}
"
        ),
    )
}

/// A draw's position in its generator's sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    /// First block.
    pub base: u64,
    /// The generator's stream.
    pub stream: u32,
    /// The key.
    pub key: [u32; 2],
}

impl Draw {
    fn head(&self, n: usize) -> Vec<PlanArg> {
        vec![PlanArg::Output, PlanArg::I64(n as i64), PlanArg::I64(self.base as i64), PlanArg::I32(self.stream as i32)]
            .into_iter()
            .chain(key_schedule(self.key).into_iter().map(|k| PlanArg::I32(k as i32)))
            .collect()
    }
}

/// The 20 round keys as kernel parameters, `xp::i32 k0, …, xp::i32 k19` (filled by
/// [`key_schedule`]), for the kernels whose elements draw from their own stream of words
/// (`xp::rng::Stream`).
pub fn key_params() -> String {
    (0..20).map(|r| format!("xp::i32 k{r}")).collect::<Vec<_>>().join(", ")
}

/// The statement that gathers [`key_params`] into `const xp::u32 ks[20]`.
pub fn key_array() -> String {
    let list = (0..20).map(|r| format!("(xp::u32)k{r}")).collect::<Vec<_>>().join(", ");
    format!("const xp::u32 ks[20] = {{{list}}};")
}

/// The round keys of Philox4x32-10 for `key`: round `r` uses `key[0] + r * 0x9E3779B9` and
/// `key[1] + r * 0xBB67AE85` (wrapping), at `2r` and `2r + 1`.
pub fn key_schedule(key: [u32; 2]) -> [u32; 20] {
    let mut ks = [0u32; 20];
    for r in 0..10u32 {
        ks[2 * r as usize] = key[0].wrapping_add(r.wrapping_mul(0x9E37_79B9));
        ks[2 * r as usize + 1] = key[1].wrapping_add(r.wrapping_mul(0xBB67_AE85));
    }
    ks
}

/// Doubles as kernel arguments (bit patterns).
fn f64_arg(x: f64) -> PlanArg {
    PlanArg::I64(x.to_bits() as i64)
}

/// Philox blocks a GPU thread turns into values in a bulk draw (a grid-stride loop, so that
/// neighbouring threads still write neighbouring bytes): what a thread does once (its
/// index, the parameters' conversions) is shared by several blocks. Values depend only on
/// their index, never on the grid.
pub const BULK_BLOCKS_PER_THREAD: usize = 4;

/// The launch of a bulk draw of `n` elements, and the blocks it uses.
pub fn plan_bulk(
    kind: Bulk,
    f64: bool,
    n: usize,
    draw: Draw,
    lo: f64,
    scale: f64,
    target: Target,
) -> (PlannedLaunch, u64) {
    let per = if f64 { 2 } else { 4 };
    let blocks = n.div_ceil(per);
    let mut args = vec![
        PlanArg::Output,
        PlanArg::I64(n as i64),
        PlanArg::I64(draw.base as i64),
        PlanArg::I32(draw.stream as i32),
        f64_arg(lo),
        f64_arg(scale),
    ];
    args.extend(key_schedule(draw.key).into_iter().map(|k| PlanArg::I32(k as i32)));
    let per_thread = if kind == Bulk::Normal && !f64 { NORMAL_BLOCKS_PER_THREAD } else { BULK_BLOCKS_PER_THREAD };
    let threads = match target {
        Target::Gpu { .. } => blocks.div_ceil(per_thread),
        Target::Cpu { .. } => blocks,
    };
    (PlannedLaunch { kernel: bulk_kernel(kind, f64), config: plan_flat(threads, target), args }, blocks as u64)
}

/// The launch of `n` integers in `[low, low + range)`, and the blocks it uses.
pub fn plan_integers(n: usize, draw: Draw, low: i64, range: u64, target: Target) -> (PlannedLaunch, u64) {
    let blocks = n.div_ceil(2);
    let mut args = draw.head(n);
    args.extend([PlanArg::I64(low), PlanArg::I64(range as i64)]);
    (PlannedLaunch { kernel: integers_kernel(), config: plan_flat(blocks, target), args }, blocks as u64)
}

/// The launch of `n` draws by rejection, and the blocks it uses (one stream per element);
/// `single`: float32 output for gamma and beta (see [`rejection_kernel`]).
pub fn plan_rejection(
    kind: Rejection,
    single: bool,
    n: usize,
    draw: Draw,
    a: f64,
    b: f64,
    target: Target,
) -> (PlannedLaunch, u64) {
    let mut args = draw.head(n);
    args.extend([f64_arg(a), f64_arg(b)]);
    args.extend(rejection_constants(kind, a, b).iter().map(|&c| f64_arg(c)));
    (PlannedLaunch { kernel: rejection_kernel(kind, single), config: plan_flat(n, target), args }, n as u64)
}

/// The launch of raw blocks (tests).
pub fn plan_philox(blocks: usize, base: u64, j: u32, stream: u32, key: [u32; 2], target: Target) -> PlannedLaunch {
    let args = vec![
        PlanArg::Output,
        PlanArg::I64(blocks as i64),
        PlanArg::I64(base as i64),
        PlanArg::I32(j as i32),
        PlanArg::I32(stream as i32),
        PlanArg::I32(key[0] as i32),
        PlanArg::I32(key[1] as i32),
    ];
    PlannedLaunch { kernel: philox_kernel(), config: plan_flat(blocks, target), args }
}

/// Every random kernel (built ahead of time on the CPU; compiled by the cross-vendor check).
pub fn builtin_kernels() -> Vec<Rendered> {
    let mut v = Vec::new();
    for kind in [Bulk::Uniform, Bulk::Normal, Bulk::Exponential] {
        v.push(bulk_kernel(kind, false));
        v.push(bulk_kernel(kind, true));
    }
    v.push(integers_kernel());
    for kind in [Rejection::Gamma, Rejection::Beta, Rejection::Poisson, Rejection::Binomial] {
        v.push(rejection_kernel(kind, false));
    }
    v.push(rejection_kernel(Rejection::Gamma, true));
    v.push(rejection_kernel(Rejection::Beta, true));
    v.push(philox_kernel());
    v
}
