//! Kernels of direct convolution (`xp::signal`): one correlation kernel family that every
//! direct method reduces to.
//!
//! Each kernel computes `out[o] = Σ_k x̃[o + off + k] · w[k]` over contiguous arrays: `w` is
//! the kernel already flipped (convolution) and conjugated (correlation) by the caller, `off`
//! the per-dimension start that the mode gives (`-(m - 1)` for full, `0` for valid, a centring
//! for same), and `x̃` the input extended by the boundary rule ([`Boundary`]): the fill value,
//! periodic wrap, or SciPy's `symm` (reflection that repeats the edge, `x[-1] = x[0]`, period
//! `2n`). Sums run in the element type; integers multiply and add as unsigned words of 64 bits
//! and are truncated to their type at the end, which is the wrap-around NumPy's integer loops
//! give.
//!
//! Three kernels per element type:
//! - [`direct_nd`]: any rank, one output element per thread, taps walked as an odometer.
//! - [`rows_2d`] (the CPU's 2-d kernel): one work item is one output row (or a chunk of its
//!   columns when there are fewer rows than workers, as in 1-d); the row is built by
//!   one pass per tap over the input row, whose interior has no boundary test, so the C++
//!   compiler vectorises it. No barrier: it runs as a plain loop on the CPU backend.
//! - [`tiled_2d`] (GPU only): a block stages its 32×32 output tile plus the halo of the input
//!   (boundary applied while loading) and the taps in shared memory once, then each thread
//!   computes its outputs from shared memory: each input element is read once per block, not
//!   once per tap. Kernels too large for shared memory fall back to [`direct_nd`].

use std::str::FromStr;

use xp_backend_api::{DType, Error, LaunchConfig, Result};

use crate::plan::{plan_flat, PlanArg, PlannedLaunch, Target, MAX_RANK};
use crate::render::Rendered;

/// How an input is extended past its edges (SciPy's `boundary` of `convolve2d`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Boundary {
    /// Pad with the fill value (`"fill"`).
    #[default]
    Fill,
    /// Periodic: `x[-1] = x[n - 1]` (`"wrap"`, `"circular"`).
    Wrap,
    /// Symmetric reflection including the edge: `x[-1] = x[0]`, `x[n] = x[n - 1]` (`"symm"`,
    /// `"symmetric"`).
    Symm,
}

impl Boundary {
    /// The kernels' code of the rule.
    pub fn code(self) -> i32 {
        match self {
            Boundary::Fill => 0,
            Boundary::Wrap => 1,
            Boundary::Symm => 2,
        }
    }
}

impl FromStr for Boundary {
    type Err = Error;
    fn from_str(s: &str) -> Result<Boundary> {
        match s {
            "fill" => Ok(Boundary::Fill),
            "wrap" | "circular" => Ok(Boundary::Wrap),
            "symm" | "symmetric" => Ok(Boundary::Symm),
            _ => Err(Error::value(
                "signal",
                format!(
                    "Acceptable boundary flags are 'fill', 'circular' (or 'wrap'), and 'symmetric' (or 'symm'); got '{s}'"
                ),
            )),
        }
    }
}

/// The element types the kernels exist for.
pub const DTYPES: [DType; 12] = [
    DType::F32,
    DType::F64,
    DType::C64,
    DType::C128,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
];

/// Output tile of [`tiled_2d`]: 32 columns × 32 rows, computed by 32 × 8 threads (4 rows each).
const TILE_W: usize = 32;
const TILE_H: usize = 32;
const BLOCK_H: u32 = 8;

/// Shared memory [`tiled_2d`] may use (within every GPU's default dynamic limit).
pub const TILED_SHARED_BYTES: usize = 48 * 1024;

/// The index helper every kernel shares, defined once per translation unit.
const HELPERS: &str = "#ifndef XP_SIGNAL_HELPERS
#define XP_SIGNAL_HELPERS 1
// The index that `i` reads in an extent of `n` under boundary rule `b` (0 fill, 1 wrap,
// 2 symm), or -1 for the fill value.
static XP_DEVICE xp::i64 xp_sig_index(xp::i64 i, xp::i64 n, int b) {
  if (i >= 0 && i < n) return i;
  if (b == 0) return -1;
  if (b == 1) { i %= n; return i < 0 ? i + n : i; }
  const xp::i64 p = 2 * n;
  i %= p;
  if (i < 0) i += p;
  return i < n ? i : p - 1 - i;
}
#endif
";

fn check_dtype(op: &str, dt: DType) -> Result<()> {
    if DTYPES.contains(&dt) {
        Ok(())
    } else {
        Err(Error::unsupported_dtype(op, dt))
    }
}

/// `o += v * w` in the element type (integers as unsigned 64-bit words).
fn madd(dt: DType, o: &str, v: &str, w: &str) -> String {
    if dt.is_float() || dt.is_complex() {
        format!("{o} += {v} * {w};")
    } else {
        let t = dt.c_name();
        format!("{o} = ({t})((unsigned long long){o} + (unsigned long long){v} * (unsigned long long){w});")
    }
}

/// The N-d direct kernel of element type `dt`.
///
/// Parameters: `const T* x, const T* w, T* out, const T* fill, xp::Shape xs, xp::Shape ks,
/// xp::Shape os, xp::Strides off, xp::i64 n_out, xp::i64 n_k, int boundary` (`fill` one
/// element; all arrays contiguous).
pub fn direct_nd(dt: DType) -> Rendered {
    let name = format!("xp_sig_nd_{}", dt.short());
    let t = dt.c_name();
    let m = madd(dt, "acc", "v", "w[k]");
    let code = format!(
        "{HELPERS}extern \"C\" __global__ void {name}(const {t}* __restrict__ x, const {t}* __restrict__ w, {t}* __restrict__ out, const {t}* __restrict__ fillp, xp::Shape xs, xp::Shape ks, xp::Shape os, xp::Strides off, xp::i64 n_out, xp::i64 n_k, int b) {{
  typedef {t} T;
  const T fill = fillp[0];
  const int r = (int)os.ndim;
  XP_FOR_EACH(xp::i64, o, n_out) {{
    xp::i64 base[XP_MAX_DIMS], kc[XP_MAX_DIMS];
    xp::i64 rem = o;
    for (int d = r - 1; d >= 0; --d) {{
      base[d] = rem % os.dims[d] + off.s[d];
      rem /= os.dims[d];
      kc[d] = 0;
    }}
    T acc = T(0);
    for (xp::i64 k = 0; k < n_k; ++k) {{
      xp::i64 idx = 0;
      bool inside = true;
      for (int d = 0; d < r; ++d) {{
        const xp::i64 i = xp_sig_index(base[d] + kc[d], xs.dims[d], b);
        if (i < 0) {{ inside = false; break; }}
        idx = idx * xs.dims[d] + i;
      }}
      const T v = inside ? x[idx] : fill;
      {m}
      for (int d = r - 1; d >= 0; --d) {{
        if (++kc[d] < ks.dims[d]) break;
        kc[d] = 0;
      }}
    }}
    out[o] = acc;
  }}
}}
"
    );
    Rendered { name, code }
}

/// The CPU's 2-d kernel of element type `dt`: one output row per work item, one vectorisable
/// pass per tap.
///
/// Parameters: `const T* x, const T* w, T* out, const T* fill, xp::i64 nx0, xp::i64 nx1,
/// xp::i64 kh, xp::i64 kw, xp::i64 oh, xp::i64 ow, xp::i64 off0, xp::i64 off1, int boundary,
/// xp::i64 nc` (`nc` column chunks per row: work items are row chunks, so that a single row,
/// 1-d, still spreads over the workers).
pub fn rows_2d(dt: DType) -> Rendered {
    let name = format!("xp_sig_rows2d_{}", dt.short());
    let t = dt.c_name();
    let m_edge = madd(dt, "o[j]", "v", "wv");
    let m_in = madd(dt, "o[j]", "xr[j + s]", "wv");
    let m_fill = madd(dt, "o[j]", "fill", "wr[kx]");
    let code = format!(
        "{HELPERS}extern \"C\" __global__ void {name}(const {t}* __restrict__ x, const {t}* __restrict__ w, {t}* __restrict__ out, const {t}* __restrict__ fillp, xp::i64 nx0, xp::i64 nx1, xp::i64 kh, xp::i64 kw, xp::i64 oh, xp::i64 ow, xp::i64 off0, xp::i64 off1, int b, xp::i64 nc) {{
  typedef {t} T;
  const T fill = fillp[0];
  // Work item = one of the nc column chunks of one output row.
  XP_FOR_EACH(xp::i64, item, oh * nc) {{
    const xp::i64 y = item / nc, ch = item - y * nc;
    const xp::i64 c0 = ow * ch / nc, c1 = ow * (ch + 1) / nc;
    T* __restrict__ o = out + y * ow;
    for (xp::i64 j = c0; j < c1; ++j) o[j] = T(0);
    for (xp::i64 ky = 0; ky < kh; ++ky) {{
      const xp::i64 iy = xp_sig_index(y + off0 + ky, nx0, b);
      const T* __restrict__ wr = w + ky * kw;
      if (iy < 0) {{
        for (xp::i64 j = c0; j < c1; ++j)
          for (xp::i64 kx = 0; kx < kw; ++kx) {{ {m_fill} }}
        continue;
      }}
      const T* __restrict__ xr = x + iy * nx1;
      for (xp::i64 kx = 0; kx < kw; ++kx) {{
        const T wv = wr[kx];
        const xp::i64 s = off1 + kx;  // output column j reads input column j + s
        // [c0, j0) and [j1, c1) read past the row's ends; [j0, j1) is inside.
        xp::i64 j0 = -s;
        if (j0 < c0) j0 = c0;
        if (j0 > c1) j0 = c1;
        xp::i64 j1 = nx1 - s;
        if (j1 > c1) j1 = c1;
        if (j1 < j0) j1 = j0;
        for (xp::i64 j = c0; j < j0; ++j) {{
          const xp::i64 ix = xp_sig_index(j + s, nx1, b);
          const T v = ix < 0 ? fill : xr[ix];
          {m_edge}
        }}
        for (xp::i64 j = j0; j < j1; ++j) {{ {m_in} }}
        for (xp::i64 j = j1; j < c1; ++j) {{
          const xp::i64 ix = xp_sig_index(j + s, nx1, b);
          const T v = ix < 0 ? fill : xr[ix];
          {m_edge}
        }}
      }}
    }}
  }}
}}
"
    );
    Rendered { name, code }
}

/// The GPU's tiled 2-d kernel of element type `dt` (block 32 × 8, output tile 32 × 32).
///
/// Parameters as [`rows_2d`] (`nc` unused). Dynamic shared memory:
/// `(kh·kw + (32 + kh − 1)(32 + kw − 1))` elements ([`tiled_2d_shared_bytes`]).
pub fn tiled_2d(dt: DType) -> Rendered {
    let name = format!("xp_sig_tiled2d_{}", dt.short());
    let t = dt.c_name();
    let m = madd(dt, "acc", "st[(r + ky) * tw + tx + kx]", "sk[ky * kw + kx]");
    // 3×3, the common case: taps in registers and the sum unrolled, in the loop's order.
    let taps3: String = (0..9).map(|i| format!("const T k{i} = sk[{i}]; ")).collect();
    let sum3: String = (0..9)
        .map(|i| madd(dt, "acc", &format!("s[{} * tw + {}]", i / 3, i % 3), &format!("k{i}")))
        .collect::<Vec<_>>()
        .join(" ");
    let code = format!(
        "{HELPERS}#if defined(XP_GPU)
extern \"C\" __global__ void __launch_bounds__(256) {name}(const {t}* __restrict__ x, const {t}* __restrict__ w, {t}* __restrict__ out, const {t}* __restrict__ fillp, xp::i64 nx0, xp::i64 nx1, xp::i64 kh, xp::i64 kw, xp::i64 oh, xp::i64 ow, xp::i64 off0, xp::i64 off1, int b, xp::i64 nc) {{
  typedef {t} T;
  (void)nc;
  extern __shared__ double {name}_smem[];
  T* sk = (T*){name}_smem;
  T* st = sk + kh * kw;
  const int th = {TILE_H} + (int)kh - 1, tw = {TILE_W} + (int)kw - 1;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x, nt = blockDim.x * blockDim.y;
  const T fill = fillp[0];
  for (int i = tid; i < (int)(kh * kw); i += nt) sk[i] = w[i];
  const xp::i64 y0 = (xp::i64)blockIdx.y * {TILE_H}, x0 = (xp::i64)blockIdx.x * {TILE_W};
  // Rows by threadIdx.y, columns by threadIdx.x: a row's index once per row, and none of the
  // boundary rule for tiles whose halo lies inside the input (almost all of them).
  const xp::i64 gy0 = y0 + off0, gx0 = x0 + off1;
  const bool inside = gy0 >= 0 && gy0 + th <= nx0 && gx0 >= 0 && gx0 + tw <= nx1;
  for (int r = threadIdx.y; r < th; r += blockDim.y) {{
    const xp::i64 iy = inside ? gy0 + r : xp_sig_index(gy0 + r, nx0, b);
    for (int c = threadIdx.x; c < tw; c += blockDim.x) {{
      const xp::i64 ix = inside ? gx0 + c : xp_sig_index(gx0 + c, nx1, b);
      st[r * tw + c] = (iy < 0 || ix < 0) ? fill : x[iy * nx1 + ix];
    }}
  }}
  __syncthreads();
  const int tx = threadIdx.x;
  const xp::i64 xx = x0 + tx;
  if (kh == 3 && kw == 3) {{
    {taps3}
    for (int r = threadIdx.y; r < {TILE_H}; r += blockDim.y) {{
      const xp::i64 y = y0 + r;
      if (y >= oh || xx >= ow) continue;
      const T* s = st + r * tw + tx;
      T acc = T(0);
      {sum3}
      out[y * ow + xx] = acc;
    }}
    return;
  }}
  for (int r = threadIdx.y; r < {TILE_H}; r += blockDim.y) {{
    const xp::i64 y = y0 + r;
    if (y >= oh || xx >= ow) continue;
    T acc = T(0);
    for (int ky = 0; ky < (int)kh; ++ky)
      for (int kx = 0; kx < (int)kw; ++kx) {{ {m} }}
    out[y * ow + xx] = acc;
  }}
}}
#endif
"
    );
    Rendered { name, code }
}

/// Threads of a [`stencil3_2d`] block (one output column each).
const STENCIL_W: usize = 128;

/// Output rows per thread of [`stencil3_2d`]: many on large outputs (fewer re-read halo rows),
/// few on small ones (enough threads to fill the GPU).
fn stencil_rows(oh: usize, ow: usize) -> usize {
    if oh.saturating_mul(ow) >= 1 << 22 {
        16
    } else {
        4
    }
}

/// The GPU's 3×3 kernel of element type `dt`, `rows` output rows per thread: each thread
/// walks one output column down `rows` rows with the three input rows it needs in registers
/// (a sliding window: one new input row of three elements per output), the taps in registers.
/// The three elements of a row that neighbouring threads share come from the L1 cache, so each
/// input element leaves memory about once, plus two halo rows per `rows`. Blocks whose input
/// window lies inside the input skip the boundary rule. The sum runs in the order of
/// [`tiled_2d`]'s 3×3 branch. Parameters as [`rows_2d`] (`kh`, `kw` are 3; `nc` unused).
pub fn stencil3_2d(dt: DType, rows: usize) -> Rendered {
    let name = format!("xp_sig_stencil3_{}_r{rows}", dt.short());
    let t = dt.c_name();
    let taps: String = (0..9).map(|i| format!("const T k{i} = w[{i}]; ")).collect();
    let sum: String = (0..9)
        .map(|i| madd(dt, "acc", &format!("{}{}", ["a", "b", "c"][i / 3], i % 3), &format!("k{i}")))
        .collect::<Vec<_>>()
        .join(" ");
    let code = format!(
        "{HELPERS}#if defined(XP_GPU)
extern \"C\" __global__ void __launch_bounds__({STENCIL_W}) {name}(const {t}* __restrict__ x, const {t}* __restrict__ w, {t}* __restrict__ out, const {t}* __restrict__ fillp, xp::i64 nx0, xp::i64 nx1, xp::i64 kh, xp::i64 kw, xp::i64 oh, xp::i64 ow, xp::i64 off0, xp::i64 off1, int b, xp::i64 nc) {{
  typedef {t} T;
  (void)kh; (void)kw; (void)nc;
  const xp::i64 bx = (xp::i64)blockIdx.x * {STENCIL_W}, y0 = (xp::i64)blockIdx.y * {rows};
  const xp::i64 xx = bx + threadIdx.x;
  if (xx >= ow) return;
  {taps}
  const T fill = fillp[0];
  const xp::i64 gy0 = y0 + off0, gx = xx + off1;
  const bool inside = gy0 >= 0 && gy0 + {rows} + 2 <= nx0 && bx + off1 >= 0 && bx + off1 + {STENCIL_W} + 2 <= nx1;
  const T* __restrict__ p = x + gy0 * nx1 + gx;
  xp::i64 ix[3];
  if (!inside) {{
    for (int j = 0; j < 3; ++j) ix[j] = xp_sig_index(gx + j, nx1, b);
  }}
#define XP_S3_ROW(v, r) \\
  if (inside) {{ v##0 = p[(xp::i64)(r) * nx1]; v##1 = p[(xp::i64)(r) * nx1 + 1]; v##2 = p[(xp::i64)(r) * nx1 + 2]; }} \\
  else {{ const xp::i64 iy = xp_sig_index(gy0 + (r), nx0, b); \\
    v##0 = (iy < 0 || ix[0] < 0) ? fill : x[iy * nx1 + ix[0]]; \\
    v##1 = (iy < 0 || ix[1] < 0) ? fill : x[iy * nx1 + ix[1]]; \\
    v##2 = (iy < 0 || ix[2] < 0) ? fill : x[iy * nx1 + ix[2]]; }}
  T a0, a1, a2, b0, b1, b2, c0, c1, c2;
  XP_S3_ROW(a, 0)
  XP_S3_ROW(b, 1)
#pragma unroll
  for (int r = 0; r < {rows}; ++r) {{
    XP_S3_ROW(c, r + 2)
    if (y0 + r < oh) {{
      T acc = T(0);
      {sum}
      out[(y0 + r) * ow + xx] = acc;
    }}
    a0 = b0; a1 = b1; a2 = b2; b0 = c0; b1 = c1; b2 = c2;
  }}
#undef XP_S3_ROW
}}
#endif
"
    );
    Rendered { name, code }
}

/// The dynamic shared memory of [`tiled_2d`] for a `kh × kw` kernel of `dt`.
pub fn tiled_2d_shared_bytes(dt: DType, kh: usize, kw: usize) -> usize {
    (kh * kw + (TILE_H + kh - 1) * (TILE_W + kw - 1)) * dt.size()
}

/// The geometry of one direct correlation: contiguous input `x` of shape `xshape`, taps of
/// shape `kshape`, output of shape `oshape`, and the per-dimension start `off`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectGeometry {
    /// The input's shape.
    pub xshape: Vec<usize>,
    /// The taps' shape (same rank).
    pub kshape: Vec<usize>,
    /// The output's shape (same rank).
    pub oshape: Vec<usize>,
    /// Output index `o` reads input `o + off + k` for tap `k`.
    pub off: Vec<i64>,
}

/// The launch of a direct correlation of element type `dt`. Operands: 0 the input, 1 the
/// taps, 2 the fill value (one element of `dt`); the output is bound as the plan's output.
/// Rank 1 and 2 run the 2-d kernels (the CPU's row kernel, or the GPU's tiled kernel when its
/// shared memory and grid allow), any other rank [`direct_nd`].
pub fn plan_direct(dt: DType, g: &DirectGeometry, boundary: Boundary, target: Target) -> Result<PlannedLaunch> {
    let op = "signal direct convolution";
    check_dtype(op, dt)?;
    let r = g.xshape.len();
    if r == 0 || r > MAX_RANK || g.kshape.len() != r || g.oshape.len() != r || g.off.len() != r {
        return Err(Error::value(op, format!("inconsistent geometry {g:?} (rank 1 to {MAX_RANK})")));
    }
    let n_out: usize = g.oshape.iter().product();
    let n_k: usize = g.kshape.iter().product();
    if r <= 2 {
        let two = |v: &[usize]| if v.len() == 1 { [1, v[0]] } else { [v[0], v[1]] };
        let (xs, ks, os) = (two(&g.xshape), two(&g.kshape), two(&g.oshape));
        let off = if r == 1 { [0, g.off[0]] } else { [g.off[0], g.off[1]] };
        let args = vec![
            PlanArg::Operand(0),
            PlanArg::Operand(1),
            PlanArg::Output,
            PlanArg::Operand(2),
            PlanArg::I64(xs[0] as i64),
            PlanArg::I64(xs[1] as i64),
            PlanArg::I64(ks[0] as i64),
            PlanArg::I64(ks[1] as i64),
            PlanArg::I64(os[0] as i64),
            PlanArg::I64(os[1] as i64),
            PlanArg::I64(off[0]),
            PlanArg::I64(off[1]),
            PlanArg::I32(boundary.code()),
        ];
        match target {
            Target::Cpu { workers } => {
                // Rows in contiguous strips, a few per worker; with fewer rows than that (1-d),
                // rows cut into column chunks of at least 4096 outputs.
                let items = workers.max(1) * 4;
                let nc = if os[0] >= items { 1 } else { (os[1] / 4096).clamp(1, items.div_ceil(os[0].max(1))) };
                let blocks = (os[0] * nc).min(items).max(1);
                let mut args = args;
                args.push(PlanArg::I64(nc as i64));
                return Ok(PlannedLaunch { kernel: rows_2d(dt), config: LaunchConfig::new(blocks as u32, 1), args });
            }
            Target::Gpu { max_grid_x, .. } => {
                let rows = stencil_rows(os[0], os[1]);
                let (gx, gy) = (os[1].div_ceil(STENCIL_W), os[0].div_ceil(rows));
                if r == 2 && ks == [3, 3] && gx <= max_grid_x as usize && gy <= 65535 {
                    let config = LaunchConfig::new((gx as u32, gy as u32), (STENCIL_W as u32, 1));
                    let mut args = args;
                    args.push(PlanArg::I64(1));
                    return Ok(PlannedLaunch { kernel: stencil3_2d(dt, rows), config, args });
                }
                let shared = tiled_2d_shared_bytes(dt, ks[0], ks[1]);
                let gx = os[1].div_ceil(TILE_W);
                let gy = os[0].div_ceil(TILE_H);
                if r == 2 && shared <= TILED_SHARED_BYTES && gx <= max_grid_x as usize && gy <= 65535 {
                    let config = LaunchConfig::new((gx as u32, gy as u32), (TILE_W as u32, BLOCK_H))
                        .with_shared_mem(shared as u32);
                    let mut args = args;
                    args.push(PlanArg::I64(1));
                    return Ok(PlannedLaunch { kernel: tiled_2d(dt), config, args });
                }
            }
        }
    }
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Output,
        PlanArg::Operand(2),
        PlanArg::shape(&g.xshape),
        PlanArg::shape(&g.kshape),
        PlanArg::shape(&g.oshape),
        PlanArg::Strides(g.off.clone()),
        PlanArg::I64(n_out as i64),
        PlanArg::I64(n_k as i64),
        PlanArg::I32(boundary.code()),
    ];
    let config = match target {
        Target::Cpu { workers } => {
            LaunchConfig::new((n_out * n_k / 16384).clamp(1, workers.max(1) * 4).min(n_out.max(1)) as u32, 1)
        }
        Target::Gpu { .. } => plan_flat(n_out, target),
    };
    Ok(PlannedLaunch { kernel: direct_nd(dt), config, args })
}

/// The kernels of this module the CPU backend builds ahead of time.
pub fn builtin_kernels() -> Vec<Rendered> {
    let mut v = Vec::new();
    for dt in DTYPES {
        v.push(direct_nd(dt));
        v.push(rows_2d(dt));
    }
    v
}

/// The GPU-only kernels of this module (compiled by the cross-vendor check).
pub fn gpu_only_kernels() -> Vec<Rendered> {
    DTYPES.iter().flat_map(|&dt| [tiled_2d(dt), stencil3_2d(dt, 4), stencil3_2d(dt, 16)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPU: Target = Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024, max_grid_x: 1 << 30 };

    fn geom(x: &[usize], k: &[usize], o: &[usize], off: &[i64]) -> DirectGeometry {
        DirectGeometry { xshape: x.to_vec(), kshape: k.to_vec(), oshape: o.to_vec(), off: off.to_vec() }
    }

    #[test]
    fn two_d_plans_pick_rows_on_the_cpu_tiles_on_gpus_and_nd_for_large_taps() {
        let g = geom(&[1024, 1024], &[3, 3], &[1024, 1024], &[-1, -1]);
        let cpu = plan_direct(DType::F32, &g, Boundary::Symm, Target::Cpu { workers: 2 }).unwrap();
        assert!(cpu.kernel.name.starts_with("xp_sig_rows2d"));
        assert!(!crate::cpu::uses_barrier(&cpu.kernel.code));
        // 3×3 taps: the register stencil, 4 rows per thread on this size, 16 on large ones.
        let gpu = plan_direct(DType::F32, &g, Boundary::Symm, GPU).unwrap();
        assert_eq!(gpu.kernel.name, "xp_sig_stencil3_f32_r4");
        assert_eq!((gpu.config.grid.x, gpu.config.grid.y), (8, 256));
        let large = geom(&[8192, 8192], &[3, 3], &[8192, 8192], &[-1, -1]);
        assert_eq!(
            plan_direct(DType::F32, &large, Boundary::Symm, GPU).unwrap().kernel.name,
            "xp_sig_stencil3_f32_r16"
        );
        // Other small taps: the shared-memory tile.
        let g5 = geom(&[1024, 1024], &[5, 5], &[1024, 1024], &[-2, -2]);
        let gpu = plan_direct(DType::F32, &g5, Boundary::Symm, GPU).unwrap();
        assert!(gpu.kernel.name.starts_with("xp_sig_tiled2d"));
        assert_eq!((gpu.config.grid.x, gpu.config.grid.y), (32, 32));
        // One long row (1-d) is cut into column chunks for the workers.
        let one = geom(&[1, 100_000], &[1, 9], &[1, 100_000], &[0, -4]);
        let cpu = plan_direct(DType::F64, &one, Boundary::Fill, Target::Cpu { workers: 2 }).unwrap();
        assert_eq!(cpu.config.grid.x, 8);
        assert_eq!(cpu.args.last(), Some(&PlanArg::I64(8)));
        let big = geom(&[1024, 1024], &[80, 80], &[1024, 1024], &[-40, -40]);
        let gpu = plan_direct(DType::F64, &big, Boundary::Fill, GPU).unwrap();
        assert!(gpu.kernel.name.starts_with("xp_sig_nd"));
        let three = geom(&[4, 4, 4], &[2, 2, 2], &[3, 3, 3], &[0, 0, 0]);
        assert!(plan_direct(DType::I32, &three, Boundary::Fill, GPU).unwrap().kernel.name.starts_with("xp_sig_nd"));
    }

    #[test]
    fn unsupported_dtypes_and_bad_geometry_are_errors() {
        let g = geom(&[4], &[2], &[3], &[0]);
        assert!(plan_direct(DType::F16, &g, Boundary::Fill, GPU).is_err());
        assert!(plan_direct(DType::F32, &geom(&[4], &[2], &[3, 1], &[0]), Boundary::Fill, GPU).is_err());
        assert_eq!("circular".parse::<Boundary>().unwrap(), Boundary::Wrap);
        assert!("reflect".parse::<Boundary>().unwrap_err().to_string().contains("boundary"));
    }
}
