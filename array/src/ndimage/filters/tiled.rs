//! The tiled device kernels of the filters: the 1-d correlation along one axis (every separable
//! linear pass) and the rank filters of small windows over the last two axes.
//!
//! Each thread block copies its tile of the image and the halo its window needs into shared
//! memory once, applying the boundary rule only there (so the taps read shared memory with no
//! test), then every thread computes its outputs from the tile:
//!
//! - **1-d correlation**: along the contiguous axis a block makes [`ROW_TILE`] consecutive outputs
//!   of one line, 4 per thread, 256 apart (conflict-free shared reads); along a strided axis a
//!   block of 32 × 8 threads makes 32 neighbouring lines (coalesced along the contiguous axis) ×
//!   [`COL_TILE`] positions, 8 per thread. The tile holds float64 values (each input converted
//!   once) and the taps' weights and offsets sit beside it; each output is summed in float64
//!   over the taps in table order from 0.0 and divided once, exactly as the general kernel
//!   sums it, so the two give the same bits.
//! - **Rank filters** whose window lies in the last two axes and has at most [`RANK_MAX_TAPS`]
//!   elements: a block of 32 × 8 threads makes 32 × 8 outputs; each thread reads its window
//!   from the tile into registers and selects the `rank`-th value by a selection network: K. E.
//!   Batcher's odd-even merge sort ("Sorting networks and their applications", AFIPS 1968) for
//!   the window's size, cut back to the comparators the output `rank` depends on (one of a
//!   comparator's two outputs alone is a single min or max). The network is generated per
//!   (dtype, window size, rank), so the compiler keeps the window in registers.
//!
//! All index arithmetic inside a tile is 32-bit; the block's position is decomposed once per
//! block; the image offsets are 64-bit only where they address global memory.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use xp_backend_api::{CompileOptions, DType, Error, Result};

use super::kernels::{mode_code, HELPERS};
use crate::ndimage::Mode;
use crate::user::{LaunchArg, RawKernel};
use crate::Array;

/// Threads of a block of the contiguous-axis correlation.
const ROW_THREADS: usize = 256;
/// Outputs per thread of the contiguous-axis correlation.
const ROW_PER: usize = 4;
/// Outputs per block of the contiguous-axis correlation.
pub(super) const ROW_TILE: usize = ROW_THREADS * ROW_PER;
/// The widest window span (last tap less first) the contiguous-axis kernel takes.
pub(super) const ROW_MAX_SPAN: i64 = 1536;
/// Threads of a block of the strided-axis correlation along the contiguous axis and the
/// filtered axis, and outputs per thread.
const COL_X: usize = 32;
const COL_Y: usize = 8;
const COL_PER: usize = 8;
/// Positions along the filtered axis per block of the strided-axis correlation.
pub(super) const COL_TILE: usize = COL_Y * COL_PER;
/// The widest window span the strided-axis kernel takes (its tile is `(COL_TILE + span) × 32`
/// float64 values).
pub(super) const COL_MAX_SPAN: i64 = 96;

/// The most window elements the register rank kernel selects among.
pub(crate) const RANK_MAX_TAPS: usize = 49;
/// The widest extent of a window along either of the two axes for the register rank kernel.
const RANK_MAX_EXTENT: i64 = 24;
/// The rank kernel's block: 32 × 8 threads, one output each.
const RANK_BX: usize = 32;
const RANK_BY: usize = 8;

/// Every kernel of this file is compiled without contraction of `a * b + c` (as the CPU's
/// compiler is), so the sums have the same bits on every backend.
fn compile(code: &str, name: &str) -> RawKernel {
    RawKernel::with_compile_options(code, name, CompileOptions::default().with_no_contraction(true))
}

fn cached(key: String, make: impl FnOnce() -> (String, String)) -> Result<RawKernel> {
    static CACHE: OnceLock<Mutex<HashMap<String, RawKernel>>> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .map_err(|_| Error::value("ndimage", "kernel cache poisoned"))?;
    if let Some(k) = cache.get(&key) {
        return Ok(k.clone());
    }
    let (code, name) = make();
    let k = compile(&code, &name);
    cache.insert(key, k.clone());
    Ok(k)
}

/// `code` with the identifier `T` renamed `to`, so that the kernels of several dtypes can share a
/// translation unit.
fn rename_t(code: &str, to: &str) -> String {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = String::with_capacity(code.len() + 64);
    for (i, ch) in code.char_indices() {
        if ch == 'T' && (i == 0 || !ident(b[i - 1])) && (i + 1 >= b.len() || !ident(b[i + 1])) {
            out.push_str(to);
        } else {
            out.push(ch);
        }
    }
    out
}

/// The source of the two 1-d correlation kernels for images of dtype `t`.
pub(super) fn corr1_source(t: DType) -> String {
    let tag = t.short();
    rename_t(&corr1_template(t), &format!("xp_nd_{tag}_t"))
}

fn corr1_template(t: DType) -> String {
    let c = t.c_name();
    let tag = t.short();
    format!(
        r#"{HELPERS}
typedef {c} T;
#ifndef XP_NDIMAGE_TILED_LOAD_{tag}
#define XP_NDIMAGE_TILED_LOAD_{tag} 1
// Element `j` of a line of `n` elements `s` apart, extended past the ends by rule `mode`.
static XP_DEVICE double xp_nd_line_{tag}(const T* line, long long j, long long n, long long s, int mode, double cval) {{
  if (j < 0 || j >= n) {{
    if (mode == 1) return cval;
    j = xp_nd_extend(j, n, mode);
  }}
  return (double)line[j * s];
}}
#endif
extern "C" __global__ void xp_ndimage_corr1_row_{tag}(const T* __restrict__ x, T* __restrict__ y,
    const int* __restrict__ offs, const double* __restrict__ wts, int nw, int olo, int span, long long n,
    unsigned int tiles, int mode, double cval, double div, int isint) {{
  extern __shared__ double xp_nd_row_smem_{tag}[];
  double* sh = xp_nd_row_smem_{tag};
  const int width = {ROW_TILE} + span;
  double* sw = sh + width;
  int* so = (int*)(sw + nw);
  const unsigned int b = blockIdx.x;
  const unsigned int line = b / tiles;
  const long long c0 = (long long)(b - line * tiles) * {ROW_TILE};
  const T* xl = x + (long long)line * n;
  const int t = threadIdx.x;
  for (int k = t; k < nw; k += {ROW_THREADS}) {{ sw[k] = wts[k]; so[k] = offs[k] - olo; }}
  const long long first = c0 + olo;
  if (first >= 0 && first + width <= n) {{
    const T* p = xl + first;
    for (int m = t; m < width; m += {ROW_THREADS}) sh[m] = (double)p[m];
  }} else {{
    for (int m = t; m < width; m += {ROW_THREADS}) sh[m] = xp_nd_line_{tag}(xl, first + m, n, 1, mode, cval);
  }}
  __syncthreads();
  double acc[{ROW_PER}];
  for (int r = 0; r < {ROW_PER}; ++r) acc[r] = 0.0;
  for (int k = 0; k < nw; ++k) {{
    const double wk = sw[k];
    const double* p = sh + t + so[k];
    for (int r = 0; r < {ROW_PER}; ++r) acc[r] += wk * p[r * {ROW_THREADS}];
  }}
  T* yl = y + (long long)line * n;
  for (int r = 0; r < {ROW_PER}; ++r) {{
    const long long c = c0 + t + r * {ROW_THREADS};
    if (c < n) {{
      const double v = acc[r] / div;
      if (isint) yl[c] = (T)(long long)v; else yl[c] = (T)v;
    }}
  }}
}}
extern "C" __global__ void xp_ndimage_corr1_col_{tag}(const T* __restrict__ x, T* __restrict__ y,
    const int* __restrict__ offs, const double* __restrict__ wts, int nw, int olo, int span, long long n,
    long long s, unsigned int tiles_c, unsigned int tiles_q, int mode, double cval, double div, int isint) {{
  extern __shared__ double xp_nd_col_smem_{tag}[];
  double* sh = xp_nd_col_smem_{tag};
  const int rows = {COL_TILE} + span;
  double* sw = sh + rows * {COL_X};
  int* so = (int*)(sw + nw);
  const unsigned int b = blockIdx.x;
  const unsigned int rest = b / tiles_q;
  const unsigned int tq = b - rest * tiles_q;
  const unsigned int o = rest / tiles_c;
  const unsigned int tc = rest - o * tiles_c;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * {COL_X} + tx;
  for (int k = tid; k < nw; k += {COL_X} * {COL_Y}) {{ sw[k] = wts[k]; so[k] = offs[k] - olo; }}
  const long long q = (long long)tq * {COL_X} + tx;
  const long long c0 = (long long)tc * {COL_TILE};
  const long long first = c0 + olo;
  const long long lbase = (long long)o * n * s + q;
  if (q < s) {{
    const T* xl = x + lbase;
    if (first >= 0 && first + rows <= n) {{
      for (int m = ty; m < rows; m += {COL_Y}) sh[m * {COL_X} + tx] = (double)xl[(first + m) * s];
    }} else {{
      for (int m = ty; m < rows; m += {COL_Y}) sh[m * {COL_X} + tx] = xp_nd_line_{tag}(xl, first + m, n, s, mode, cval);
    }}
  }}
  __syncthreads();
  if (q >= s) return;
  double acc[{COL_PER}];
  for (int r = 0; r < {COL_PER}; ++r) acc[r] = 0.0;
  for (int k = 0; k < nw; ++k) {{
    const double wk = sw[k];
    const double* p = sh + (ty + so[k]) * {COL_X} + tx;
    for (int r = 0; r < {COL_PER}; ++r) acc[r] += wk * p[r * {COL_Y} * {COL_X}];
  }}
  T* yl = y + lbase;
  for (int r = 0; r < {COL_PER}; ++r) {{
    const long long c = c0 + ty + r * {COL_Y};
    if (c < n) {{
      const double v = acc[r] / div;
      if (isint) yl[c * s] = (T)(long long)v; else yl[c * s] = (T)v;
    }}
  }}
}}
"#
    )
}

/// Whether [`correlate_axis_tiled`] takes a pass along an axis of length `n` with `s` elements
/// after it over taps spanning `span`, in a grid of `total` elements.
pub(super) fn corr1_fits(n: usize, s: usize, span: i64, nw: usize, total: usize) -> bool {
    let blocks = if s == 1 {
        (total / n.max(1)).saturating_mul(n.div_ceil(ROW_TILE))
    } else {
        (total / (n * s).max(1)).saturating_mul(n.div_ceil(COL_TILE)).saturating_mul(s.div_ceil(COL_X))
    };
    let fits = if s == 1 { n >= 128 && span <= ROW_MAX_SPAN } else { s >= 4 && span <= COL_MAX_SPAN };
    fits && blocks > 0 && blocks < (1 << 31) && nw <= (span as usize + 1) && n < (1 << 40)
}

/// The 1-d correlation of the contiguous `x` along an axis of length `n` with `s` elements
/// after it: `y[i] = (sum_k wts[k] * x[i + offs[k] * s]) / div`, written to `out`.
#[allow(clippy::too_many_arguments)]
pub(super) fn correlate_axis_tiled(
    x: &Array,
    out: &Array,
    n: usize,
    s: usize,
    offsets: &[i64],
    weights: &[f64],
    div: f64,
    mode: Mode,
    cval: f64,
) -> Result<()> {
    let dt = x.dtype();
    let tag = dt.short();
    let row = s == 1;
    let name = if row { format!("xp_ndimage_corr1_row_{tag}") } else { format!("xp_ndimage_corr1_col_{tag}") };
    let k = cached(name.clone(), || (corr1_source(dt), name.clone()))?;
    let dev = x.device_arc();
    let olo = offsets.iter().copied().min().unwrap_or(0);
    let span = offsets.iter().copied().max().unwrap_or(0) - olo;
    let offs: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
    let offs = Array::from_slice_on(&dev, &offs, &[offs.len()])?;
    let wts = Array::from_slice_on(&dev, weights, &[weights.len()])?;
    let nw = offsets.len();
    let total = x.size();
    let side = nw * 12;
    if row {
        let tiles = n.div_ceil(ROW_TILE);
        let blocks = (total / n) * tiles;
        let smem = (ROW_TILE + span as usize) * 8 + side;
        k.launch_with(
            blocks as u32,
            ROW_THREADS as u32,
            smem as u32,
            None,
            &[
                LaunchArg::Array(x),
                LaunchArg::Array(out),
                LaunchArg::Array(&offs),
                LaunchArg::Array(&wts),
                LaunchArg::I32(nw as i32),
                LaunchArg::I32(olo as i32),
                LaunchArg::I32(span as i32),
                LaunchArg::I64(n as i64),
                LaunchArg::U32(tiles as u32),
                LaunchArg::I32(mode_code(mode) as i32),
                LaunchArg::F64(cval),
                LaunchArg::F64(div),
                LaunchArg::I32(dt.is_integer() as i32),
            ],
        )
    } else {
        let tiles_c = n.div_ceil(COL_TILE);
        let tiles_q = s.div_ceil(COL_X);
        let blocks = (total / (n * s)) * tiles_c * tiles_q;
        let smem = (COL_TILE + span as usize) * COL_X * 8 + side;
        k.launch_with(
            blocks as u32,
            (COL_X as u32, COL_Y as u32, 1),
            smem as u32,
            None,
            &[
                LaunchArg::Array(x),
                LaunchArg::Array(out),
                LaunchArg::Array(&offs),
                LaunchArg::Array(&wts),
                LaunchArg::I32(nw as i32),
                LaunchArg::I32(olo as i32),
                LaunchArg::I32(span as i32),
                LaunchArg::I64(n as i64),
                LaunchArg::I64(s as i64),
                LaunchArg::U32(tiles_c as u32),
                LaunchArg::U32(tiles_q as u32),
                LaunchArg::I32(mode_code(mode) as i32),
                LaunchArg::F64(cval),
                LaunchArg::F64(div),
                LaunchArg::I32(dt.is_integer() as i32),
            ],
        )
    }
}

// ---- rank filters ------------------------------------------------------------------------------

/// Batcher's odd-even merge sort of `2^p >= n` wires, as (low, high) comparators in order,
/// keeping those between wires below `n` (the others, with the extra wires holding +infinity,
/// exchange nothing).
fn batcher(n: usize) -> Vec<(usize, usize)> {
    let mut size = 1;
    while size < n {
        size *= 2;
    }
    let mut out = Vec::new();
    let mut p = 1;
    while p < size {
        let mut k = p;
        while k >= 1 {
            let mut j = k % p;
            while j + k < size {
                for i in 0..k.min(size - j - k) {
                    let a = i + j;
                    let b = i + j + k;
                    if a / (2 * p) == b / (2 * p) && a < n && b < n {
                        out.push((a, b));
                    }
                }
                j += 2 * k;
            }
            k /= 2;
        }
        p *= 2;
    }
    out
}

/// One step of a selection network: both outputs of a comparator, its minimum alone (to the
/// low wire), or its maximum alone (to the high wire).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Step {
    Exchange(usize, usize),
    Min(usize, usize),
    Max(usize, usize),
}

/// The selection network of the `rank`-th smallest of `n` values (it ends on wire `rank`):
/// Batcher's sorting network cut back to what that wire depends on.
pub(crate) fn selection_network(n: usize, rank: usize) -> Vec<Step> {
    let net = batcher(n);
    let mut need = vec![false; n];
    need[rank] = true;
    let mut steps = Vec::new();
    for &(a, b) in net.iter().rev() {
        match (need[a], need[b]) {
            (false, false) => {}
            (true, true) => steps.push(Step::Exchange(a, b)),
            (true, false) => {
                steps.push(Step::Min(a, b));
                need[b] = true;
            }
            (false, true) => {
                steps.push(Step::Max(a, b));
                need[a] = true;
            }
        }
    }
    steps.reverse();
    steps
}

fn rank_source(t: DType, n: usize, rank: usize) -> (String, String) {
    let c = t.c_name();
    let tag = t.short();
    let name = format!("xp_ndimage_rank2d_{tag}_{n}_{rank}");
    let mut body = String::new();
    for k in 0..n {
        body.push_str(&format!("  T v{k} = w[so[{k}]];\n"));
    }
    for s in selection_network(n, rank) {
        body.push_str(&match s {
            Step::Exchange(a, b) => {
                format!("  {{ const T a_ = v{a}, b_ = v{b}; v{a} = XP_ND_MIN(a_, b_); v{b} = XP_ND_MAX(a_, b_); }}\n")
            }
            Step::Min(a, b) => format!("  v{a} = XP_ND_MIN(v{a}, v{b});\n"),
            Step::Max(a, b) => format!("  v{b} = XP_ND_MAX(v{a}, v{b});\n"),
        });
    }
    let npad = n.next_multiple_of(2);
    let code = rename_t(&rank_template(c, &name, n, rank, npad, &body), &format!("xp_nd_{tag}_t"));
    (code, name)
}

fn rank_template(c: &str, name: &str, n: usize, rank: usize, npad: usize, body: &str) -> String {
    format!(
        r#"{HELPERS}
typedef {c} T;
#ifndef XP_ND_MIN
#define XP_ND_MIN(a, b) ((b) < (a) ? (b) : (a))
#define XP_ND_MAX(a, b) ((a) < (b) ? (b) : (a))
#endif
extern "C" __global__ void {name}(const T* __restrict__ x, T* __restrict__ y, const int* __restrict__ toff,
    long long H, long long W, unsigned int tiles_y, unsigned int tiles_x, int ylo, int xlo, int th, int tw,
    int mode, double cval, int isint) {{
  extern __shared__ double xp_nd_rank_smem[];
  int* so = (int*)xp_nd_rank_smem;
  T* tile = (T*)(so + {npad});
  const unsigned int b = blockIdx.x;
  const unsigned int rest = b / tiles_x;
  const unsigned int bx = b - rest * tiles_x;
  const unsigned int p = rest / tiles_y;
  const unsigned int by = rest - p * tiles_y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * {RANK_BX} + tx;
  if (tid < {n}) so[tid] = toff[tid];
  const T cv = isint ? (T)(long long)cval : (T)cval;
  const long long y0 = (long long)by * {RANK_BY}, x0 = (long long)bx * {RANK_BX};
  const T* xb = x + (long long)p * H * W;
  for (int ry = ty; ry < th; ry += {RANK_BY}) {{
    long long gy = y0 + ylo + ry;
    int out = 0;
    if (gy < 0 || gy >= H) {{ if (mode == 1) out = 1; else gy = xp_nd_extend(gy, H, mode); }}
    const T* xr = xb + gy * W;
    for (int rx = tx; rx < tw; rx += {RANK_BX}) {{
      long long gx = x0 + xlo + rx;
      int o = out;
      if (gx < 0 || gx >= W) {{ if (mode == 1) o = 1; else gx = xp_nd_extend(gx, W, mode); }}
      tile[ry * tw + rx] = o ? cv : xr[gx];
    }}
  }}
  __syncthreads();
  const long long gy = y0 + ty, gx = x0 + tx;
  if (gy >= H || gx >= W) return;
  const T* w = tile + ty * tw + tx;
{body}  y[(long long)p * H * W + gy * W + gx] = v{rank};
}}
"#
    )
}

/// The sources of the register rank kernels for a few windows and dtypes, for the compile check.
pub(super) fn sample_rank_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (t, n, r) in
        [(DType::F32, 9, 4), (DType::F32, 25, 12), (DType::F64, 25, 3), (DType::U8, 49, 24), (DType::I64, 5, 2)]
    {
        let (code, name) = rank_source(t, n, r);
        out.push((name, code));
    }
    out
}

/// The register rank kernel's plan: the tile's origin and size, and each tap's offset in it.
pub(super) struct RankPlan {
    ylo: i64,
    xlo: i64,
    th: usize,
    tw: usize,
    toff: Vec<i32>,
}

/// The register rank kernel's plan for `taps` (each `nd` offsets) over an image of `shape`:
/// `None` unless the window lies in the last two axes, has 3 to [`RANK_MAX_TAPS`] elements and
/// a small extent.
pub(super) fn rank_plan(shape: &[usize], taps: &[Vec<i64>]) -> Option<RankPlan> {
    let nd = shape.len();
    let n = taps.len();
    if nd == 0 || !(3..=RANK_MAX_TAPS).contains(&n) {
        return None;
    }
    let total: usize = shape.iter().product();
    if total == 0 || total >= (1usize << 40) {
        return None;
    }
    let (mut ylo, mut yhi, mut xlo, mut xhi) = (0i64, 0i64, 0i64, 0i64);
    for t in taps {
        if t.len() != nd || t[..nd.saturating_sub(2)].iter().any(|&o| o != 0) {
            return None;
        }
        let dx = t[nd - 1];
        let dy = if nd >= 2 { t[nd - 2] } else { 0 };
        ylo = ylo.min(dy);
        yhi = yhi.max(dy);
        xlo = xlo.min(dx);
        xhi = xhi.max(dx);
    }
    if yhi - ylo > RANK_MAX_EXTENT || xhi - xlo > RANK_MAX_EXTENT {
        return None;
    }
    let th = RANK_BY + (yhi - ylo) as usize;
    let tw = RANK_BX + (xhi - xlo) as usize;
    let toff = taps
        .iter()
        .map(|t| {
            let dx = t[nd - 1];
            let dy = if nd >= 2 { t[nd - 2] } else { 0 };
            ((dy - ylo) as usize * tw + (dx - xlo) as usize) as i32
        })
        .collect();
    Some(RankPlan { ylo, xlo, th, tw, toff })
}

/// The `rank`-th smallest of the window at each element of the contiguous `x`, by the
/// register kernel of `plan`, written to `out`.
pub(super) fn rank_tiled(x: &Array, out: &Array, plan: &RankPlan, rank: usize, mode: Mode, cval: f64) -> Result<()> {
    let dt = x.dtype();
    let n = plan.toff.len();
    let key = format!("rank2d|{}|{n}|{rank}", dt.short());
    let k = cached(key, || rank_source(dt, n, rank))?;
    let shape = x.shape();
    let nd = shape.len();
    let w = shape[nd - 1];
    let h = if nd >= 2 { shape[nd - 2] } else { 1 };
    let planes = x.size() / (h * w);
    let tiles_x = w.div_ceil(RANK_BX);
    let tiles_y = h.div_ceil(RANK_BY);
    let blocks = planes * tiles_x * tiles_y;
    if blocks >= (1 << 31) {
        return Err(Error::value("rank_filter", "image too large for one launch"));
    }
    let dev = x.device_arc();
    let toff = Array::from_slice_on(&dev, &plan.toff, &[n])?;
    let smem = n.next_multiple_of(2) * 4 + plan.th * plan.tw * dt.size();
    k.launch_with(
        blocks as u32,
        (RANK_BX as u32, RANK_BY as u32, 1),
        smem as u32,
        None,
        &[
            LaunchArg::Array(x),
            LaunchArg::Array(out),
            LaunchArg::Array(&toff),
            LaunchArg::I64(h as i64),
            LaunchArg::I64(w as i64),
            LaunchArg::U32(tiles_y as u32),
            LaunchArg::U32(tiles_x as u32),
            LaunchArg::I32(plan.ylo as i32),
            LaunchArg::I32(plan.xlo as i32),
            LaunchArg::I32(plan.th as i32),
            LaunchArg::I32(plan.tw as i32),
            LaunchArg::I32(mode_code(mode) as i32),
            LaunchArg::F64(cval),
            LaunchArg::I32(dt.is_integer() as i32),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every selection network picks the `rank`-th value of every 0/1 input (the 0-1 principle
    /// makes that enough for every input) for small sizes, and of some permutations.
    #[test]
    fn selection_networks_select() {
        for n in 1..=RANK_MAX_TAPS {
            for rank in 0..n {
                let net = selection_network(n, rank);
                let run = |v: &mut Vec<i64>| {
                    for s in &net {
                        match *s {
                            Step::Exchange(a, b) => {
                                let (p, q) = (v[a], v[b]);
                                v[a] = p.min(q);
                                v[b] = p.max(q);
                            }
                            Step::Min(a, b) => v[a] = v[a].min(v[b]),
                            Step::Max(a, b) => v[b] = v[a].max(v[b]),
                        }
                    }
                    v[rank]
                };
                if n <= 12 {
                    for bits in 0u32..(1 << n) {
                        let mut v: Vec<i64> = (0..n).map(|k| ((bits >> k) & 1) as i64).collect();
                        let ones = bits.count_ones() as usize;
                        let want = if rank >= n - ones { 1 } else { 0 };
                        assert_eq!(run(&mut v), want, "n {n} rank {rank} bits {bits:b}");
                    }
                }
                let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ (n as u64 * 131 + rank as u64);
                for _ in 0..64 {
                    let mut v: Vec<i64> = (0..n)
                        .map(|_| {
                            s ^= s << 13;
                            s ^= s >> 7;
                            s ^= s << 17;
                            (s % 7) as i64
                        })
                        .collect();
                    let mut sorted = v.clone();
                    sorted.sort();
                    assert_eq!(run(&mut v), sorted[rank], "n {n} rank {rank}");
                }
            }
        }
        // The median of 25 takes fewer than a full sort's comparators.
        let med = selection_network(25, 12);
        assert!(med.len() < batcher(25).len(), "{} steps", med.len());
    }
}
