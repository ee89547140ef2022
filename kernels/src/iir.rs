//! Kernels of the blocked parallel IIR filter (`xp::signal::lfilter` on GPUs).
//!
//! The direct form II transposed recursion of order `K` is linear in its state: with zero
//! input the state evolves as `z ← A z` (`A` the companion matrix of `a`: `A[j][0] = −a[j+1]`,
//! `A[j][j+1] = 1`) and the output is `z[0]`. A line of `n` samples is cut into blocks of `L`
//! samples and filtered in four steps (the blocked formulation of parallel recursive
//! filtering, Nehab et al., "GPU-efficient recursive filtering and summed-area tables",
//! SIGGRAPH Asia 2011, here for one causal filter of any order):
//!
//! 1. [`blocks`]: one thread per block runs the recursion from a zero state (the first block
//!    from the initial state `zi`), writing the block's outputs and its end state `e[b]`. A
//!    thread block of [`BLOCK_THREADS`] threads owns as many consecutive blocks of one line;
//!    it stages [`STAGE`] samples of each block at a time through shared memory so that the
//!    global loads and stores are coalesced.
//! 2. [`scan_local`] / [`scan_fix`]: the true end states `T[b] = e[b] + P T[b−1]` with
//!    `P = A^L`, a linear recurrence over the blocks, scanned hierarchically: groups of `G`
//!    states are scanned by one thread each, the groups' totals are scanned the same way with
//!    `P^G` (recursively), and each state then adds `P^(i+1)` times the total before its group.
//! 3. [`fix`]: every sample of block `b ≥ 1` adds the zero-input response of the true state
//!    `T[b−1]`: `y[t] += Σ_j O[i][j] T[b−1][j]` with `O[i][j] = (A^i)[0][j]`, `i` the sample's
//!    place in its block (a table of `L × K`, made on the host).
//! 4. [`final_state`]: the final state of each line, `e[last] + A^r T[last−1]` (`r` the last
//!    block's length).
//!
//! `K` is a compile-time constant of each kernel (1 to [`MAX_ORDER`]), so that the state and
//! the coefficients live in registers. Every kernel runs on every backend (the CPU backend runs
//! the staging barrier as fibers).

use xp_backend_api::{DType, Error, LaunchConfig, Result};

use crate::plan::{PlanArg, PlannedLaunch, Target};
use crate::render::Rendered;

/// The largest filter order the blocked kernels exist for.
pub const MAX_ORDER: usize = 16;

/// Threads of a [`blocks`] thread block (consecutive blocks of one line).
pub const BLOCK_THREADS: usize = 64;

/// Samples of each block staged through shared memory at a time by [`blocks`]; block lengths
/// are multiples of it.
pub const STAGE: usize = 16;

/// States per group of the hierarchical block scan.
pub const SCAN_GROUP: usize = 32;

/// The element types of the kernels.
pub const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C64, DType::C128];

fn check(op: &str, dt: DType, k: usize) -> Result<()> {
    if !DTYPES.contains(&dt) {
        return Err(Error::unsupported_dtype(op, dt));
    }
    if k == 0 || k > MAX_ORDER {
        return Err(Error::value(op, format!("the blocked IIR kernels exist for orders 1 to {MAX_ORDER}, not {k}")));
    }
    Ok(())
}

/// Step 1: each block filtered from a zero state (block 0 from `zi`).
///
/// Parameters: `const T* x, const T* b, const T* a, const T* zi, T* y, T* e, xp::i64 n,
/// xp::i64 L, xp::i64 nb, xp::i64 tiles_per_line, xp::i64 n_tiles` (`x`, `y` `(lines, n)`;
/// `b`, `a` `K + 1` normalised coefficients; `zi` `(lines, K)`; `e` `(lines, nb, K)`; a tile is
/// [`BLOCK_THREADS`] consecutive blocks of one line). Launched with [`BLOCK_THREADS`] threads.
pub fn blocks(dt: DType, k: usize) -> Rendered {
    let name = format!("xp_iir_blocks_{}_k{k}", dt.short());
    let t = dt.c_name();
    let w = BLOCK_THREADS;
    let s = STAGE;
    let words = (w * (s + 1) * dt.size()).div_ceil(8);
    let code = format!(
        "extern \"C\" __global__ void __launch_bounds__({w}) {name}(const {t}* __restrict__ x, const {t}* __restrict__ bc, const {t}* __restrict__ ac, const {t}* __restrict__ zi, {t}* __restrict__ y, {t}* __restrict__ e, xp::i64 n, xp::i64 L, xp::i64 nb, xp::i64 tiles_per_line, xp::i64 n_tiles) {{
  typedef {t} T;
  __shared__ double {name}_stage[{words}];
  T* sh = (T*){name}_stage;
  T bb[{k} + 1], aa[{k} + 1];
  for (int j = 0; j <= {k}; ++j) {{ bb[j] = bc[j]; aa[j] = ac[j]; }}
  const int tx = (int)threadIdx.x;
  for (xp::i64 tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {{
    const xp::i64 line = tile / tiles_per_line;
    const xp::i64 first = (tile - line * tiles_per_line) * {w};
    const xp::i64 blk = first + tx;
    const xp::i64 t0 = first * L;
    const T* __restrict__ xl = x + line * n;
    T* __restrict__ yl = y + line * n;
    T z[{k}];
    for (int j = 0; j < {k}; ++j) z[j] = blk == 0 ? zi[line * {k} + j] : T(0);
    for (xp::i64 c = 0; c < L && t0 + c < n; c += {s}) {{
      for (int r = tx; r < {w} * {s}; r += {w}) {{
        const int p = r / {s}, o = r - p * {s};
        const xp::i64 ts = t0 + p * L + c + o;
        sh[p * ({s} + 1) + o] = ts < n ? xl[ts] : T(0);
      }}
      __syncthreads();
      T* row = sh + tx * ({s} + 1);
      const xp::i64 mine = t0 + tx * L + c;
      for (int o = 0; o < {s}; ++o) {{
        if (mine + o >= n) break;
        const T xv = row[o];
        const T yv = bb[0] * xv + z[0];
        for (int j = 0; j + 1 < {k}; ++j) z[j] = z[j + 1] + bb[j + 1] * xv - aa[j + 1] * yv;
        z[{k} - 1] = bb[{k}] * xv - aa[{k}] * yv;
        row[o] = yv;
      }}
      __syncthreads();
      for (int r = tx; r < {w} * {s}; r += {w}) {{
        const int p = r / {s}, o = r - p * {s};
        const xp::i64 ts = t0 + p * L + c + o;
        if (ts < n) yl[ts] = sh[p * ({s} + 1) + o];
      }}
      __syncthreads();
    }}
    if (blk < nb) {{
      for (int j = 0; j < {k}; ++j) e[(line * nb + blk) * {k} + j] = z[j];
    }}
  }}
}}
"
    );
    Rendered { name, code }
}

/// Step 2a: each group of `G` consecutive states of a line scanned in place by one thread
/// (`s[i] += P s[i − 1]`), the group's last value written to `tot`.
///
/// Parameters: `T* s, T* tot, const T* P, xp::i64 lines, xp::i64 m, xp::i64 stride, xp::i64 G,
/// xp::i64 ng` (`s[line · stride + i · K + j]` for `i < m`; `tot` `(lines, ng, K)`; `P`
/// `K × K` row-major).
pub fn scan_local(dt: DType, k: usize) -> Rendered {
    let name = format!("xp_iir_scan_local_{}_k{k}", dt.short());
    let t = dt.c_name();
    let code = format!(
        "extern \"C\" __global__ void {name}({t}* __restrict__ s, {t}* __restrict__ tot, const {t}* __restrict__ P, xp::i64 lines, xp::i64 m, xp::i64 stride, xp::i64 G, xp::i64 ng) {{
  typedef {t} T;
  XP_FOR_EACH(xp::i64, item, lines * ng) {{
    const xp::i64 line = item / ng, g = item - line * ng;
    T* sl = s + line * stride;
    const xp::i64 i0 = g * G;
    xp::i64 i1 = i0 + G;
    if (i1 > m) i1 = m;
    T cur[{k}];
    for (int j = 0; j < {k}; ++j) cur[j] = sl[i0 * {k} + j];
    for (xp::i64 i = i0 + 1; i < i1; ++i) {{
      T nxt[{k}];
      for (int r = 0; r < {k}; ++r) {{
        T acc = sl[i * {k} + r];
        for (int c = 0; c < {k}; ++c) acc = acc + P[r * {k} + c] * cur[c];
        nxt[r] = acc;
      }}
      for (int j = 0; j < {k}; ++j) {{ cur[j] = nxt[j]; sl[i * {k} + j] = nxt[j]; }}
    }}
    for (int j = 0; j < {k}; ++j) tot[item * {k} + j] = cur[j];
  }}
}}
"
    );
    Rendered { name, code }
}

/// Step 2b: each state of group `g ≥ 1` adds `P^(i+1)` times the scanned total of group
/// `g − 1` (`i` its place in the group).
///
/// Parameters: `T* s, const T* tot, const T* Pp, xp::i64 lines, xp::i64 m, xp::i64 stride,
/// xp::i64 G, xp::i64 ng` (`Pp` `(G, K, K)`: `P^1 … P^G`).
pub fn scan_fix(dt: DType, k: usize) -> Rendered {
    let name = format!("xp_iir_scan_fix_{}_k{k}", dt.short());
    let t = dt.c_name();
    let code = format!(
        "extern \"C\" __global__ void {name}({t}* __restrict__ s, const {t}* __restrict__ tot, const {t}* __restrict__ Pp, xp::i64 lines, xp::i64 m, xp::i64 stride, xp::i64 G, xp::i64 ng) {{
  typedef {t} T;
  const xp::i64 rest = m - G;
  XP_FOR_EACH(xp::i64, item, lines * rest) {{
    const xp::i64 line = item / rest, i = G + (item - line * rest);
    const xp::i64 g = i / G, p = i - g * G;
    const T* tv = tot + (line * ng + g - 1) * {k};
    const T* pm = Pp + p * {k} * {k};
    T* sv = s + line * stride + i * {k};
    T prev[{k}];
    for (int c = 0; c < {k}; ++c) prev[c] = tv[c];
    for (int r = 0; r < {k}; ++r) {{
      T acc = sv[r];
      for (int c = 0; c < {k}; ++c) acc = acc + pm[r * {k} + c] * prev[c];
      sv[r] = acc;
    }}
  }}
}}
"
    );
    Rendered { name, code }
}

/// Step 3: the samples of blocks `b ≥ 1` add the zero-input response of the true state
/// before their block.
///
/// Parameters: `T* y, const T* e, const T* O, xp::i64 lines, xp::i64 n, xp::i64 L,
/// xp::i64 nb` (`e` the scanned states `(lines, nb, K)`; `O` `(L, K)`).
pub fn fix(dt: DType, k: usize) -> Rendered {
    let name = format!("xp_iir_fix_{}_k{k}", dt.short());
    let t = dt.c_name();
    let code = format!(
        "extern \"C\" __global__ void {name}({t}* __restrict__ y, const {t}* __restrict__ e, const {t}* __restrict__ O, xp::i64 lines, xp::i64 n, xp::i64 L, xp::i64 nb) {{
  typedef {t} T;
  const xp::i64 rest = n - L;
  XP_FOR_EACH(xp::i64, item, lines * rest) {{
    const xp::i64 line = item / rest, t = L + (item - line * rest);
    const xp::i64 b = t / L, i = t - b * L;
    const T* zv = e + (line * nb + b - 1) * {k};
    const T* ov = O + i * {k};
    T acc = y[line * n + t];
    for (int j = 0; j < {k}; ++j) acc = acc + ov[j] * zv[j];
    y[line * n + t] = acc;
  }}
}}
"
    );
    Rendered { name, code }
}

/// Step 4: each line's final state `e[nb − 1] + A^r e[nb − 2]` (`e[nb − 1]` alone when
/// `nb == 1`).
///
/// Parameters: `const T* e, const T* Ar, T* zf, xp::i64 lines, xp::i64 nb` (`Ar` `K × K`).
pub fn final_state(dt: DType, k: usize) -> Rendered {
    let name = format!("xp_iir_final_{}_k{k}", dt.short());
    let t = dt.c_name();
    let code = format!(
        "extern \"C\" __global__ void {name}(const {t}* __restrict__ e, const {t}* __restrict__ Ar, {t}* __restrict__ zf, xp::i64 lines, xp::i64 nb) {{
  typedef {t} T;
  XP_FOR_EACH(xp::i64, item, lines * {k}) {{
    const xp::i64 line = item / {k}, r = item - line * {k};
    T acc = e[(line * nb + nb - 1) * {k} + r];
    if (nb > 1) {{
      const T* pv = e + (line * nb + nb - 2) * {k};
      for (int c = 0; c < {k}; ++c) acc = acc + Ar[r * {k} + c] * pv[c];
    }}
    zf[item] = acc;
  }}
}}
"
    );
    Rendered { name, code }
}

/// The block length for `lines` lines of `n` samples on `target`: enough blocks to give every
/// GPU lane a few, no shorter than 64 samples (the states' traffic stays under 1/8 of the
/// data's at order 8) and no longer than 2048; a multiple of [`STAGE`].
pub fn block_length(lines: usize, n: usize, target: Target) -> usize {
    let lanes = match target {
        Target::Cpu { workers } => workers.max(1) * BLOCK_THREADS,
        Target::Gpu { sm_count, .. } => sm_count.max(1) as usize * 2048,
    };
    let want = (lines.saturating_mul(n) / lanes.max(1)).max(1);
    want.next_power_of_two().clamp(64, 2048)
}

/// The launches of step 1 for `lines` lines of `n` samples in blocks of `len` ([`blocks`]).
/// Operands: 0 `x`, 1 `b`, 2 `a`, 3 `zi`, 4 `y`, 5 `e`.
pub fn plan_blocks(dt: DType, k: usize, lines: usize, n: usize, len: usize, target: Target) -> Result<PlannedLaunch> {
    let op = "lfilter";
    check(op, dt, k)?;
    if len == 0 || !len.is_multiple_of(STAGE) {
        return Err(Error::value(op, format!("the block length {len} must be a positive multiple of {STAGE}")));
    }
    let nb = n.div_ceil(len).max(1);
    let tiles_per_line = nb.div_ceil(BLOCK_THREADS);
    let n_tiles = lines * tiles_per_line;
    let grid = match target {
        Target::Cpu { workers } => n_tiles.min(workers.max(1) * 4),
        Target::Gpu { max_grid_x, .. } => n_tiles.min(max_grid_x.max(1) as usize),
    }
    .max(1);
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Operand(2),
        PlanArg::Operand(3),
        PlanArg::Operand(4),
        PlanArg::Operand(5),
        PlanArg::I64(n as i64),
        PlanArg::I64(len as i64),
        PlanArg::I64(nb as i64),
        PlanArg::I64(tiles_per_line as i64),
        PlanArg::I64(n_tiles as i64),
    ];
    Ok(PlannedLaunch { kernel: blocks(dt, k), config: LaunchConfig::new(grid as u32, BLOCK_THREADS as u32), args })
}

fn flat(items: usize, target: Target) -> LaunchConfig {
    crate::plan::plan_flat(items, target)
}

/// Step 2a over `m` states per line in groups of `group`. Operands: 0 `s`, 1 `tot`, 2 `P`.
pub fn plan_scan_local(
    dt: DType,
    k: usize,
    lines: usize,
    m: usize,
    stride: usize,
    group: usize,
    target: Target,
) -> Result<PlannedLaunch> {
    check("lfilter", dt, k)?;
    let ng = m.div_ceil(group.max(1));
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Operand(2),
        PlanArg::I64(lines as i64),
        PlanArg::I64(m as i64),
        PlanArg::I64(stride as i64),
        PlanArg::I64(group as i64),
        PlanArg::I64(ng as i64),
    ];
    let config = match target {
        Target::Cpu { workers } => LaunchConfig::new((lines * ng).clamp(1, workers.max(1) * 4) as u32, 1),
        Target::Gpu { .. } => flat(lines * ng, target),
    };
    Ok(PlannedLaunch { kernel: scan_local(dt, k), config, args })
}

/// Step 2b. Operands: 0 `s`, 1 `tot`, 2 the powers `P^1 … P^group`.
pub fn plan_scan_fix(
    dt: DType,
    k: usize,
    lines: usize,
    m: usize,
    stride: usize,
    group: usize,
    target: Target,
) -> Result<PlannedLaunch> {
    check("lfilter", dt, k)?;
    let ng = m.div_ceil(group.max(1));
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Operand(2),
        PlanArg::I64(lines as i64),
        PlanArg::I64(m as i64),
        PlanArg::I64(stride as i64),
        PlanArg::I64(group as i64),
        PlanArg::I64(ng as i64),
    ];
    Ok(PlannedLaunch { kernel: scan_fix(dt, k), config: flat(lines * m.saturating_sub(group), target), args })
}

/// Step 3. Operands: 0 `y`, 1 `e`, 2 `O`.
pub fn plan_fix(dt: DType, k: usize, lines: usize, n: usize, len: usize, target: Target) -> Result<PlannedLaunch> {
    check("lfilter", dt, k)?;
    let nb = n.div_ceil(len).max(1);
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Operand(2),
        PlanArg::I64(lines as i64),
        PlanArg::I64(n as i64),
        PlanArg::I64(len as i64),
        PlanArg::I64(nb as i64),
    ];
    Ok(PlannedLaunch { kernel: fix(dt, k), config: flat(lines * n.saturating_sub(len), target), args })
}

/// Step 4. Operands: 0 `e`, 1 `A^r`, 2 `zf`.
pub fn plan_final(dt: DType, k: usize, lines: usize, nb: usize, target: Target) -> Result<PlannedLaunch> {
    check("lfilter", dt, k)?;
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Operand(2),
        PlanArg::I64(lines as i64),
        PlanArg::I64(nb as i64),
    ];
    Ok(PlannedLaunch { kernel: final_state(dt, k), config: flat(lines * k, target), args })
}

/// Every kernel of this module (all dtypes and orders), for the cross-vendor compile check.
pub fn all_kernels() -> Vec<Rendered> {
    let mut v = Vec::new();
    for dt in DTYPES {
        for k in 1..=MAX_ORDER {
            v.extend([blocks(dt, k), scan_local(dt, k), scan_fix(dt, k), fix(dt, k), final_state(dt, k)]);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPU: Target = Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024, max_grid_x: 1 << 30 };

    #[test]
    fn block_lengths_fill_the_device_within_bounds() {
        assert_eq!(block_length(64, 1 << 20, GPU), 256);
        assert_eq!(block_length(1, 1 << 24, GPU), 64);
        assert_eq!(block_length(1, 1 << 40, GPU), 2048);
        assert_eq!(block_length(1, 100, GPU) % STAGE, 0);
    }

    #[test]
    fn plans_check_order_dtype_and_block_length() {
        let p = plan_blocks(DType::F32, 8, 64, 1 << 20, 256, GPU).unwrap();
        assert_eq!(p.kernel.name, "xp_iir_blocks_f32_k8");
        assert_eq!(p.config.grid.x, 64 * 64);
        assert_eq!(p.config.block.x, BLOCK_THREADS as u32);
        assert!(plan_blocks(DType::F32, 0, 1, 10, 64, GPU).is_err());
        assert!(plan_blocks(DType::F32, MAX_ORDER + 1, 1, 10, 64, GPU).is_err());
        assert!(plan_blocks(DType::I32, 2, 1, 10, 64, GPU).is_err());
        assert!(plan_blocks(DType::F64, 2, 1, 10, 60, GPU).is_err());
        assert!(crate::cpu::uses_barrier(&p.kernel.code));
        assert_eq!(all_kernels().len(), 4 * MAX_ORDER * 5);
    }
}
