//! Kernels of advanced indexing: gather (`take`), scatter (`put`, two passes so that the last
//! write wins where indices repeat), compaction (boolean masks) and `nonzero`. They move
//! elements without looking at them, so one kernel per element size (1, 2, 4, 8, 16 bytes)
//! serves every dtype. Indices are int64; an index out of range sets an error flag that the
//! caller reads back (NumPy raises `IndexError`; indices never wrap).

use std::fmt::Write;

use crate::elementwise::Rendered;
use crate::plan::{plan_flat, PlanArg, PlannedLaunch, Target};
use xp_backend_api::LaunchConfig;

/// Element sizes the kernels exist for.
pub const ELEMENT_SIZES: [usize; 5] = [1, 2, 4, 8, 16];

pub(crate) fn word(bytes: usize) -> &'static str {
    match bytes {
        1 => "xp::u8",
        2 => "xp::u16",
        4 => "xp::u32",
        8 => "xp::u64",
        _ => "xp::c128",
    }
}

/// `out[o, j, r] = x[o, idx[j], r]` over a C-contiguous `x` seen as (outer, axis_len, inner).
///
/// Parameters: `const T* x, const xp::i64* idx, T* out, xp::i64 n_idx, xp::i64 axis_len,
/// xp::i64 inner, xp::i64 n, int* err`.
pub fn gather(bytes: usize) -> Rendered {
    let t = word(bytes);
    let name = format!("xp_gather_{bytes}");
    let mut c = String::new();
    let _ = writeln!(
        c,
        "extern \"C\" __global__ void {name}(const {t}* __restrict__ x, const xp::i64* __restrict__ idx, {t}* __restrict__ out, xp::i64 n_idx, xp::i64 axis_len, xp::i64 inner, xp::i64 n, int* err) {{"
    );
    c.push_str(
        "  XP_FOR_EACH(xp::i64, i, n) {
    const xp::i64 r = i % inner;
    const xp::i64 t = i / inner;
    const xp::i64 j = t % n_idx;
    const xp::i64 o = t / n_idx;
    xp::i64 k = idx[j];
    if (k < 0) k += axis_len;
    if (k < 0 || k >= axis_len) { *err = 1; continue; }
    out[i] = x[(o * axis_len + k) * inner + r];
  }
}
",
    );
    Rendered { name, code: c }
}

/// The hash of a target position in the claim table of [`scatter_claim`] and [`scatter`]
/// (Fibonacci hashing of `k + 1` into `2^(64 - shift)` slots).
const SCATTER_SLOT: &str = "(xp::i64)(((unsigned long long)(k + 1) * 0x9E3779B97F4A7C15ull) >> shift)";

/// The first pass of `a[idx[i]] = v[i % nv]`, which makes the last write win wherever indices
/// repeat (as NumPy): every `i` claims its target `k` in an open-addressing hash table of
/// `mask + 1` slots (a power of two, at least twice `n_idx`; `shift` is 64 minus its log2), whose
/// first half holds keys `k + 1` (0: empty) and second half the largest `i` that writes `k`.
/// The table starts zeroed. An index out of range sets `*err` and claims nothing.
///
/// Parameters: `const xp::i64* idx, xp::i64 n_idx, xp::i64 len, unsigned long long* table,
/// xp::i64 mask, int shift, int* err`.
pub fn scatter_claim() -> Rendered {
    let name = "xp_scatter_claim".to_string();
    let code = format!(
        "extern \"C\" __global__ void {name}(const xp::i64* __restrict__ idx, xp::i64 n_idx, xp::i64 len, unsigned long long* table, xp::i64 mask, int shift, int* err) {{
  XP_FOR_EACH(xp::i64, i, n_idx) {{
    xp::i64 k = idx[i];
    if (k < 0) k += len;
    if (k < 0 || k >= len) {{ *err = 1; continue; }}
    const unsigned long long key = (unsigned long long)(k + 1);
    for (xp::i64 h = {SCATTER_SLOT};; h = (h + 1) & mask) {{
      const unsigned long long prev = atomicCAS(&table[h], 0ull, key);
      if (prev == 0ull || prev == key) {{
        atomicMax(&table[mask + 1 + h], (unsigned long long)i);
        break;
      }}
    }}
  }}
}}
"
    );
    Rendered { name, code }
}

/// The second pass of `a[idx[i]] = v[i % nv]` over a C-contiguous `a` of `len` elements: only
/// the `i` that [`scatter_claim`] recorded as the last writer of its target writes, so the
/// result is NumPy's whatever order threads run in.
///
/// Parameters: `T* a, const xp::i64* idx, const T* v, xp::i64 n_idx, xp::i64 nv, xp::i64 len,
/// const unsigned long long* table, xp::i64 mask, int shift`.
pub fn scatter(bytes: usize) -> Rendered {
    let t = word(bytes);
    let name = format!("xp_scatter_last_{bytes}");
    let code = format!(
        "extern \"C\" __global__ void {name}({t}* a, const xp::i64* __restrict__ idx, const {t}* __restrict__ v, xp::i64 n_idx, xp::i64 nv, xp::i64 len, const unsigned long long* __restrict__ table, xp::i64 mask, int shift) {{
  XP_FOR_EACH(xp::i64, i, n_idx) {{
    xp::i64 k = idx[i];
    if (k < 0) k += len;
    if (k < 0 || k >= len) continue;
    const unsigned long long key = (unsigned long long)(k + 1);
    for (xp::i64 h = {SCATTER_SLOT};; h = (h + 1) & mask) {{
      const unsigned long long slot = table[h];
      if (slot == key) {{
        if (table[mask + 1 + h] == (unsigned long long)i) a[k] = v[i % nv];
        break;
      }}
      if (slot == 0ull) break;
    }}
  }}
}}
"
    );
    Rendered { name, code }
}

/// `out[pos[i] - 1] = x[i]` where `mask[i]`, `pos` the inclusive running count of the mask.
///
/// Parameters: `const T* x, const bool* mask, const xp::i64* pos, T* out, xp::i64 n`.
pub fn compact(bytes: usize) -> Rendered {
    let t = word(bytes);
    let name = format!("xp_compact_{bytes}");
    let mut c = String::new();
    let _ = writeln!(
        c,
        "extern \"C\" __global__ void {name}(const {t}* __restrict__ x, const bool* __restrict__ mask, const xp::i64* __restrict__ pos, {t}* __restrict__ out, xp::i64 n) {{"
    );
    c.push_str(
        "  XP_FOR_EACH(xp::i64, i, n) {
    if (mask[i]) out[pos[i] - 1] = x[i];
  }
}
",
    );
    Rendered { name, code: c }
}

/// Mask elements a GPU compaction tile covers (256 threads, 16 warp-wide chunks a warp).
pub const COMPACT_TILE: usize = 4096;

/// GPU: the set elements of each tile of [`COMPACT_TILE`] mask elements.
///
/// Parameters: `const bool* mask, xp::u32* counts, xp::i64 n`; one block of 256 a tile.
pub fn compact_count() -> Rendered {
    let name = "xp_compact_count".to_string();
    let code = format!(
        "extern \"C\" __global__ void __launch_bounds__(256) {name}(const bool* __restrict__ mask, xp::u32* __restrict__ counts, xp::i64 n) {{
  __shared__ unsigned wsum[32];
  const unsigned t = threadIdx.x, ws = XP_WARP_LANES, lane = t % ws, warp = t / ws;
  const xp::i64 base = (xp::i64)blockIdx.x * {COMPACT_TILE};
  unsigned c = 0;
#pragma unroll
  for (int j = 0; j < {COMPACT_TILE} / 256; ++j) {{
    const xp::i64 i = base + j * 256 + t;
    if (i < n && mask[i]) ++c;
  }}
  for (unsigned o = ws / 2; o > 0; o /= 2) c += xp::shfl_down(c, o, (int)ws);
  if (lane == 0) wsum[warp] = c;
  __syncthreads();
  if (t == 0) {{
    unsigned s = 0;
    for (unsigned w = 0; w < 256 / ws; ++w) s += wsum[w];
    counts[blockIdx.x] = s;
  }}
}}
"
    );
    Rendered { name, code }
}

/// GPU: `x[mask]` tile by tile. Each warp takes 16 consecutive chunks of a warp's width and
/// places a chunk's set elements by a vote, after the tile's offset (`incl[t] - counts[t]`,
/// the inclusive scan of [`compact_count`]) and the warps before it.
///
/// Parameters: `const T* x, const bool* mask, const xp::u32* counts, const xp::u64* incl, T*
/// out, xp::i64 n`.
pub fn compact_tiles(bytes: usize) -> Rendered {
    let t = word(bytes);
    let name = format!("xp_compact_tiles_{bytes}");
    let code = format!(
        "extern \"C\" __global__ void __launch_bounds__(256) {name}(const {t}* __restrict__ x, const bool* __restrict__ mask, const xp::u32* __restrict__ counts, const xp::u64* __restrict__ incl, {t}* __restrict__ out, xp::i64 n) {{
  __shared__ unsigned wsum[32];
  const unsigned tid = threadIdx.x, ws = XP_WARP_LANES, lane = tid % ws, warp = tid / ws;
  const unsigned chunks = {COMPACT_TILE} / 256;
  const xp::i64 tile = blockIdx.x;
  const xp::i64 base = tile * {COMPACT_TILE} + (xp::i64)warp * ws * chunks;
  xp::lane_mask votes[{COMPACT_TILE} / 256];
  unsigned c = 0;
#pragma unroll
  for (unsigned j = 0; j < chunks; ++j) {{
    const xp::i64 i = base + (xp::i64)j * ws + lane;
    votes[j] = xp::ballot(i < n && mask[i]);
    c += (unsigned)xp::mask_popc(votes[j]);
  }}
  if (lane == 0) wsum[warp] = c;
  __syncthreads();
  xp::u64 at = incl[tile] - (xp::u64)counts[tile];
  for (unsigned w = 0; w < warp; ++w) at += wsum[w];
  const xp::lane_mask below = xp::lanes_below(lane);
#pragma unroll
  for (unsigned j = 0; j < chunks; ++j) {{
    const xp::i64 i = base + (xp::i64)j * ws + lane;
    if ((votes[j] >> lane) & 1) out[at + (xp::u64)xp::mask_popc(votes[j] & below)] = x[i];
    at += (xp::u64)xp::mask_popc(votes[j]);
  }}
}}
"
    );
    Rendered { name, code }
}

/// The launches of a GPU `x[mask]` of `n` elements: (count, tiles). Operands of the count: 0
/// the mask, 1 the u32 counts ([`COMPACT_TILE`] elements each); of the tiles: 0 `x`, 1 the
/// mask, 2 the counts, 3 their inclusive scan (u64), with the output bound.
pub fn plan_compact_tiles(bytes: usize, n: usize) -> (PlannedLaunch, PlannedLaunch) {
    let tiles = n.div_ceil(COMPACT_TILE).max(1) as u32;
    let config = LaunchConfig::new(tiles, 256);
    let count = PlannedLaunch {
        kernel: compact_count(),
        config,
        args: vec![PlanArg::Operand(0), PlanArg::Operand(1), PlanArg::I64(n as i64)],
    };
    let scatter = PlannedLaunch {
        kernel: compact_tiles(bytes),
        config,
        args: vec![
            PlanArg::Operand(0),
            PlanArg::Operand(1),
            PlanArg::Operand(2),
            PlanArg::Operand(3),
            PlanArg::Output,
            PlanArg::I64(n as i64),
        ],
    };
    (count, scatter)
}

/// `a[i] = v[nv == 1 ? 0 : pos[i] - 1]` where `mask[i]`: the inverse of [`compact`], NumPy's
/// `a[mask] = v` with `v` of the selection's length (or one value).
///
/// Parameters: `T* a, const bool* mask, const xp::i64* pos, const T* v, xp::i64 nv, xp::i64 n`.
pub fn expand(bytes: usize) -> Rendered {
    let t = word(bytes);
    let name = format!("xp_expand_{bytes}");
    let mut c = String::new();
    let _ = writeln!(
        c,
        "extern \"C\" __global__ void {name}({t}* __restrict__ a, const bool* __restrict__ mask, const xp::i64* __restrict__ pos, const {t}* __restrict__ v, xp::i64 nv, xp::i64 n) {{"
    );
    c.push_str(
        "  XP_FOR_EACH(xp::i64, i, n) {
    if (mask[i]) a[i] = v[nv == 1 ? 0 : pos[i] - 1];
  }
}
",
    );
    Rendered { name, code: c }
}

/// The coordinates of the set elements of a C-contiguous bool array of `shape`: dimension
/// `d` of the `p`-th set element goes to `out[d * count + p]`.
///
/// Parameters: `const bool* mask, const xp::i64* pos, xp::i64* out, xp::Shape shape,
/// xp::i64 n, xp::i64 count`.
pub fn nonzero() -> Rendered {
    let name = "xp_nonzero".to_string();
    let code = format!(
        "extern \"C\" __global__ void {name}(const bool* __restrict__ mask, const xp::i64* __restrict__ pos, xp::i64* __restrict__ out, XP_GRID_CONST const xp::Shape shape, xp::i64 n, xp::i64 count) {{
  XP_FOR_EACH(xp::i64, i, n) {{
    if (!mask[i]) continue;
    const xp::i64 p = pos[i] - 1;
    xp::i64 r = i;
    for (int d = (int)shape.ndim - 1; d >= 0; --d) {{
      out[d * count + p] = r % shape.dims[d];
      r /= shape.dims[d];
    }}
  }}
}}
"
    );
    Rendered { name, code }
}

/// The launch of [`gather`] for `take`: `n` output elements from a C-contiguous array seen as
/// (outer, `axis_len`, `inner`) at `n_idx` indices. Operands: 0 the array, 1 the int64
/// indices, 2 the int32 error flag; the output is bound as the plan's output.
pub fn plan_take(bytes: usize, n: usize, n_idx: usize, axis_len: usize, inner: usize, target: Target) -> PlannedLaunch {
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Output,
        PlanArg::I64(n_idx as i64),
        PlanArg::I64(axis_len as i64),
        PlanArg::I64(inner as i64),
        PlanArg::I64(n as i64),
        PlanArg::Operand(2),
    ];
    PlannedLaunch { kernel: gather(bytes), config: plan_flat(n, target), args }
}

/// The plan of `put`: [`scatter_claim`] then [`scatter`], over `n_idx` indices into `len`
/// elements with `n_values` values, and the length in `u64` words of the zeroed claim table
/// the caller provides.
pub struct PutPlan {
    /// Words of the claim table (operand 3), which must start zeroed.
    pub table_words: usize,
    /// The two launches. Operands: 0 the target array, 1 the int64 indices, 2 the values (of
    /// the target's dtype, contiguous), 3 the table, 4 the int32 error flag.
    pub launches: Vec<PlannedLaunch>,
}

/// See [`PutPlan`].
pub fn plan_put(bytes: usize, n_idx: usize, n_values: usize, len: usize, target: Target) -> PutPlan {
    let slots = (2 * n_idx).next_power_of_two().max(2);
    let (mask, shift) = (slots as i64 - 1, 64 - slots.trailing_zeros() as i32);
    let config = plan_flat(n_idx, target);
    let (ni, len) = (PlanArg::I64(n_idx as i64), PlanArg::I64(len as i64));
    let claim = vec![
        PlanArg::Operand(1),
        ni.clone(),
        len.clone(),
        PlanArg::Operand(3),
        PlanArg::I64(mask),
        PlanArg::I32(shift),
        PlanArg::Operand(4),
    ];
    let write = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Operand(2),
        ni,
        PlanArg::I64(n_values as i64),
        len,
        PlanArg::Operand(3),
        PlanArg::I64(mask),
        PlanArg::I32(shift),
    ];
    PutPlan {
        table_words: 2 * slots,
        launches: vec![
            PlannedLaunch { kernel: scatter_claim(), config, args: claim },
            PlannedLaunch { kernel: scatter(bytes), config, args: write },
        ],
    }
}

/// The launch of [`compact`] over `n` elements. Operands: 0 the contiguous values, 1 the
/// contiguous bool mask, 2 the mask's inclusive running count; the output is bound as the
/// plan's output.
pub fn plan_compact(bytes: usize, n: usize, target: Target) -> PlannedLaunch {
    let args =
        vec![PlanArg::Operand(0), PlanArg::Operand(1), PlanArg::Operand(2), PlanArg::Output, PlanArg::I64(n as i64)];
    PlannedLaunch { kernel: compact(bytes), config: plan_flat(n, target), args }
}

/// The launch of [`expand`] over `n` elements with `nv` values. Operands: 0 the contiguous
/// target, 1 the contiguous bool mask, 2 the mask's inclusive running count, 3 the values.
pub fn plan_expand(bytes: usize, n: usize, nv: usize, target: Target) -> PlannedLaunch {
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Operand(2),
        PlanArg::Operand(3),
        PlanArg::I64(nv as i64),
        PlanArg::I64(n as i64),
    ];
    PlannedLaunch { kernel: expand(bytes), config: plan_flat(n, target), args }
}

/// The launch of [`nonzero`] over a C-contiguous bool array of `shape` (a 0-d array as shape
/// `[1]`) with `count` set elements. Operands: 0 the mask, 1 its inclusive running count; the
/// `(ndim, count)` int64 output is bound as the plan's output.
pub fn plan_nonzero(shape: &[usize], count: usize, target: Target) -> PlannedLaunch {
    let n: usize = shape.iter().product();
    let shape = if shape.is_empty() { PlanArg::shape(&[1]) } else { PlanArg::shape(shape) };
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Output,
        shape,
        PlanArg::I64(n as i64),
        PlanArg::I64(count as i64),
    ];
    PlannedLaunch { kernel: nonzero(), config: plan_flat(n, target), args }
}

/// The GPU-only kernels of this module (compiled by the cross-vendor check).
pub fn gpu_only_kernels() -> Vec<Rendered> {
    let mut v: Vec<Rendered> = ELEMENT_SIZES.iter().map(|&b| crate::transpose::transpose_copy(b, true)).collect();
    v.extend(ELEMENT_SIZES.iter().map(|&b| compact_tiles(b)));
    v.push(compact_count());
    v
}

/// Every indexing kernel of the CPU (built ahead of time there; compiled by the cross-vendor
/// check too).
pub fn builtin_kernels() -> Vec<Rendered> {
    let mut out = Vec::new();
    for b in ELEMENT_SIZES {
        out.push(gather(b));
        out.push(scatter(b));
        out.push(compact(b));
        out.push(expand(b));
        out.push(crate::transpose::transpose_copy(b, false));
    }
    out.push(scatter_claim());
    out.push(nonzero());
    out
}
