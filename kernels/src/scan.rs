//! The scan generator and planner: `cumsum` and `cumprod` along one axis.
//!
//! A scan is data ([`ScanOp`]: input and output dtypes, `map`, `combine`, `identity`), and
//! one kernel per op and index width does every pass of every plan. Results accumulate in the
//! output dtype, as NumPy's (`cumsum` of float32 in float32, of int8 in int64), but long
//! rows are cut into chunks, so the rounding error of a float `cumsum` grows with the chunk
//! length plus the number of chunks rather than with the row length.
//!
//! # The kernel
//!
//! Parameters, in order (`I` is `xp::i32` or `xp::i64`):
//! `const In* in, const Out* pin, Out* out, Out* pout, const Out* carry, xp::Shape rshape,
//! xp::Strides rstrides, I n_rows, I n_inner, I len, I ast, I chunk, xp::i64 tile`.
//! Row `r` (C order over `rshape`, every dimension but the scan axis) starts at
//! `in[offset(r, rstrides)]` (or `pin[...]`, a row of an earlier pass's totals) and has
//! `len` elements `ast` apart. Its element `k` goes to `out[(r / n_inner) * len * n_inner +
//! k * n_inner + r % n_inner]` (C order of the input's shape). `blockIdx.y` picks the chunk
//! `[c * chunk, (c + 1) * chunk)` of the row. With `pout` set, only the chunk's total is
//! written, at `pout[r * gridDim.y + c]`; with `carry` set, the scan of chunk `c > 0` starts
//! from `carry[r * gridDim.y + c - 1]` (the inclusive scan of the totals).
//!
//! # Plans
//!
//! On GPUs one long row (at least [`ONEPASS_MIN`] elements, not a float `cumprod`) is scanned in a
//! single pass with decoupled look-back: blocks take tiles in the order they start (a counter),
//! publish the tile's total, then find their prefix from the totals and prefixes of the tiles
//! before them, a warp's width of tiles at a time, and publish their own inclusive prefix. One
//! read and one write of the data, and two launches (the flags zeroed, the scan). Tiles are
//! 8192 elements of 4 bytes (32 a thread), 4096 of 8 and 2048 of 16, staged in shared memory,
//! where each thread's elements stay until they are written: the scan has its own entry point
//! (`{name}_onepass`) whose registers are capped so that [`ONEPASS_BLOCKS`] blocks fit on an
//! SM, since a block reads its tile once and then waits on its look-back, and the memory is
//! kept busy only by enough blocks reading at once.
//!
//! Otherwise, one launch when rows are many or short. A long row is scanned in three phases: chunk
//! totals, an inclusive scan of the totals (planned the same way, recursively), and a rescan
//! of each chunk starting from the totals before it.
//! - GPU: a block per (row, chunk) scanning tiles of `4 * blockDim.x` elements (per-thread
//!   scans, warp shuffles, shared memory across warps); a thread per row when the scan axis is
//!   not the innermost (neighbouring threads then read neighbouring elements) or rows are short.
//! - CPU: a work item per (row, chunk), scanning sequentially; when the scan axis is not the
//!   innermost, tiles of up to 64 neighbouring rows scanned together, the inner loop over the
//!   tile contiguous in the output.

use std::fmt::Write;

use xp_backend_api::{DType, Error, LaunchConfig, Result};

use crate::plan::{align16, check_rank, merge_dims as merge, pow2_floor, PlanArg, PlannedLaunch, Target, TargetKind};
use crate::reduce::ENGINE;
use crate::render::{sanitize, IndexWidth, Rendered};

/// The scan engine every scan kernel is written against (the single-pass decoupled look-back
/// scan and its per-block pieces): `include/xp_scan.h`, emitted once per translation unit behind its
/// guard; its bytes are part of every such kernel's source and so of its cache key.
const SCAN_ENGINE: &str = concat!("\n", include_str!("../include/xp_scan.h"));

/// A scan, as data: `out[k] = combine(out[k-1], map(in[k]))`, accumulated in `out_type`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScanOp {
    /// A stem for kernel names (`cumsum`).
    pub name: String,
    /// The input's storage dtype.
    pub in_type: DType,
    /// The output dtype, also the accumulator's.
    pub out_type: DType,
    /// An expression of the output's C type from `in0` (of the input's C type).
    pub map: String,
    /// Statements folding `b` into `a` (`a` holds the earlier elements).
    pub combine: String,
    /// The expression `combine` leaves values unchanged with.
    pub identity: String,
}

/// The names of the built-in scans.
pub const BUILTIN_SCANS: [&str; 2] = ["cumsum", "cumprod"];

/// The built-in scan `name` (`cumsum` or `cumprod`) of input dtype `input`, with the result
/// dtypes of `sum` and `prod`: int64 for bool and signed integers, uint64 for unsigned ones,
/// the input's dtype for floats and complex (accumulating in it, as NumPy).
pub fn builtin_scan(name: &str, input: DType) -> Result<ScanOp> {
    let prod = match name {
        "cumsum" => false,
        "cumprod" => true,
        _ => {
            return Err(Error::value(
                "scan",
                format!("no built-in scan `{name}` (known: {})", BUILTIN_SCANS.join(", ")),
            ))
        }
    };
    let sym = if prod { '*' } else { '+' };
    let one = if prod { 1 } else { 0 };
    let (out, map, combine, identity) = if input == DType::Bool || input.is_signed_integer() {
        (
            DType::I64,
            "(xp::i64)in0".to_string(),
            format!("a = (xp::i64)((xp::u64)a {sym} (xp::u64)b);"),
            format!("(xp::i64){one}"),
        )
    } else if input.is_unsigned_integer() {
        (DType::U64, "(xp::u64)in0".to_string(), format!("a = a {sym} b;"), format!("(xp::u64){one}"))
    } else if input.is_complex() {
        let c = input.c_name();
        (input, "in0".to_string(), format!("a = a {sym} b;"), format!("{c}({one}, 0)"))
    } else {
        let c = input.c_name();
        (input, "in0".to_string(), format!("a = {c}(a {sym} b);"), format!("{c}({one}.0f)"))
    };
    Ok(ScanOp { name: name.to_string(), in_type: input, out_type: out, map, combine, identity })
}

/// Write the kernel of `op` for index width `index` and targets of `kind` (see the module docs
/// for its parameters). GPU sources also hold the single-pass scan's entry point.
pub fn render_scan(op: &ScanOp, index: IndexWidth, kind: TargetKind) -> Rendered {
    // Kept per op, width and kind: a repeated scan costs a lookup, not a new rendering.
    type Memo = std::sync::Mutex<std::collections::HashMap<(ScanOp, IndexWidth, TargetKind), Rendered>>;
    static MEMO: std::sync::OnceLock<Memo> = std::sync::OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    let key = (op.clone(), index, kind);
    if let Some(r) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return r.clone();
    }
    let r = render_scan_uncached(op, index, kind == TargetKind::Gpu);
    memo.lock().unwrap_or_else(|e| e.into_inner()).insert(key, r.clone());
    r
}

fn render_scan_uncached(op: &ScanOp, index: IndexWidth, gpu: bool) -> Rendered {
    let idx = index.c_name();
    let tag =
        format!("{}|{}|{}|{}|{}|{:?}", op.in_type.short(), op.out_type.short(), op.map, op.combine, op.identity, index);
    let hash = xxhash_rust::xxh3::xxh3_64(tag.as_bytes())
        ^ xxhash_rust::xxh3::xxh3_64(ENGINE.as_bytes())
        ^ xxhash_rust::xxh3::xxh3_64(SCAN_ENGINE.as_bytes()).rotate_left(17);
    let name = format!(
        "xp_scan_{}_{}_{}_{:012x}",
        sanitize(&op.name),
        op.in_type.short(),
        index.short(),
        hash & 0xffff_ffff_ffff
    );
    let (inc, outc) = (op.in_type.c_name(), op.out_type.c_name());
    let mut code = String::new();
    code.push_str(ENGINE);
    code.push_str(SCAN_ENGINE);
    let _ = write!(
        code,
        "namespace {name}_ns {{\n\
         struct Op {{\n\
         \x20 typedef {inc} In;\n\
         \x20 typedef {outc} Acc;\n\
         \x20 typedef {outc} Out;\n\
         \x20 static XP_DEVICE Acc identity() {{ return ({id}); }}\n\
         \x20 static XP_DEVICE Acc map(const In in0, const xp::i64 _j) {{ (void)_j; return ({map}); }}\n\
         \x20 static XP_DEVICE void combine(Acc& a, const Acc& b) {{ {combine} }}\n\
         }};\n\
         }}  // namespace {name}_ns\n\
         extern \"C\" __global__ void {name}(const {inc}* __restrict__ in, const {outc}* __restrict__ pin, \
         {outc}* __restrict__ out, {outc}* __restrict__ pout, const {outc}* __restrict__ carry, \
         XP_GRID_CONST const xp::Shape rshape, XP_GRID_CONST const xp::Strides rstrides, {idx} n_rows, {idx} n_inner, {idx} len, {idx} ast, {idx} chunk, xp::i64 tile) {{\n\
         \x20 xp::scan::run<{name}_ns::Op, {idx}>(in, pin, out, pout, carry, rshape, rstrides, n_rows, n_inner, len, ast, \
         chunk, tile);\n\
         }}\n",
        id = op.identity,
        map = op.map,
        combine = op.combine,
    );
    if gpu {
        let kone = onepass_items(op.out_type.size());
        let _ = write!(
            code,
            "extern \"C\" __global__ void __launch_bounds__(256, {ONEPASS_BLOCKS}) {name}_onepass(const {inc}* __restrict__ in, \
             const {outc}* __restrict__ pin, {outc}* __restrict__ out, {outc}* __restrict__ pout, const {outc}* __restrict__ carry, \
             XP_GRID_CONST const xp::Shape rshape, XP_GRID_CONST const xp::Strides rstrides, {idx} n_rows, {idx} n_inner, \
             {idx} len, {idx} ast, {idx} chunk, xp::i64 tile) {{\n\
             \x20 (void)pin; (void)carry; (void)n_rows; (void)n_inner;\n\
             \x20 xp::scan::onepass<{name}_ns::Op, {idx}, {kone}>(in, out, pout, rshape, rstrides, len, ast, chunk, tile);\n\
             }}\n"
        );
    }
    Rendered { name, code }
}

/// Blocks of 256 threads an SM keeps of the single-pass scan: its registers are capped so
/// that this many fit, since each block reads its tile once and then waits on its look-back.
pub const ONEPASS_BLOCKS: u32 = 6;

/// Elements a thread scans in the single-pass scan, by the accumulator's bytes: tiles of
/// 8192 elements of 4 bytes, 4096 of 8, 2048 of 16 (the planner's tile count and the kernel's
/// template argument both come from here).
pub fn onepass_items(acc_bytes: usize) -> usize {
    if acc_bytes <= 4 {
        32
    } else if acc_bytes <= 8 {
        16
    } else {
        8
    }
}

/// Points a scan launch at the single-pass entry point (`{name}_onepass`, GPUs only) of the
/// same source.
fn onepass_entry(k: &mut Rendered) {
    k.name.push_str("_onepass");
}

/// The shortest row scanned in a single pass on GPUs (shorter rows take the three phases).
pub const ONEPASS_MIN: usize = 1 << 16;

/// The launches of one scan, in order, and the scratch they share.
#[derive(Debug, Clone)]
pub struct ScanPlan {
    /// Launches to run in order on one stream (empty for an empty input).
    pub launches: Vec<PlannedLaunch>,
    /// Bytes of scratch the launches need (0: none).
    pub scratch_bytes: usize,
    /// The index width of the kernels.
    pub index: IndexWidth,
}

/// The rows of a scan after collapsing: every dimension but the axis, with neighbours merged
/// on each side of the axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollapsedScan {
    /// Extents of the row dimensions (`[1]` when none).
    pub rshape: Vec<usize>,
    /// Their input strides.
    pub rstrides: Vec<isize>,
    /// Product of the extents after the axis.
    pub n_inner: usize,
    /// Extent of the axis.
    pub len: usize,
    /// Input stride of the axis.
    pub ast: isize,
}

/// Collapse a scan of `shape`/`strides` along `axis`.
pub fn collapse_scan(shape: &[usize], strides: &[isize], axis: usize) -> CollapsedScan {
    let outer = merge(&(0..axis).map(|d| (shape[d], strides[d])).collect::<Vec<_>>());
    let inner = merge(&(axis + 1..shape.len()).map(|d| (shape[d], strides[d])).collect::<Vec<_>>());
    let n_inner = inner.iter().map(|d| d.0).product();
    let mut rows: Vec<(usize, isize)> = outer.into_iter().chain(inner).collect();
    if rows.is_empty() {
        rows.push((1, 0));
    }
    CollapsedScan {
        rshape: rows.iter().map(|d| d.0).collect(),
        rstrides: rows.iter().map(|d| d.1).collect(),
        n_inner,
        len: shape[axis],
        ast: strides[axis],
    }
}

struct Level<'a> {
    kernel: &'a Rendered,
    index: IndexWidth,
    target: Target,
    osize: usize,
    /// Keep NumPy's left-to-right order (float products: where a running product overflows
    /// or underflows depends on the order, so GPUs scan each row in one thread).
    ordered: bool,
}

/// Where a level reads its rows from.
struct Rows {
    /// `Input` or `Scratch` (then read through `pin`).
    src: PlanArg,
    rshape: Vec<usize>,
    rstrides: Vec<isize>,
    ast: isize,
    n_inner: usize,
    len: usize,
}

impl Level<'_> {
    fn ix(&self, v: usize) -> PlanArg {
        self.ixs(v as isize)
    }

    fn ixs(&self, v: isize) -> PlanArg {
        PlanArg::index(self.index, v as i64)
    }

    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        rows: &Rows,
        dest: PlanArg,
        pout: PlanArg,
        carry: PlanArg,
        cfg: LaunchConfig,
        chunk: usize,
        tile: usize,
    ) -> PlannedLaunch {
        let n_rows: usize = rows.rshape.iter().product();
        let (a_in, a_pin) = match &rows.src {
            PlanArg::Input { .. } => (rows.src.clone(), PlanArg::Null),
            _ => (PlanArg::Null, rows.src.clone()),
        };
        PlannedLaunch {
            kernel: self.kernel.clone(),
            config: cfg,
            args: vec![
                a_in,
                a_pin,
                dest,
                pout,
                carry,
                PlanArg::shape(&rows.rshape),
                PlanArg::strides(&rows.rstrides),
                self.ix(n_rows),
                self.ix(rows.n_inner),
                self.ix(rows.len),
                self.ixs(rows.ast),
                self.ix(chunk),
                PlanArg::I64(tile as i64),
            ],
        }
    }

    /// Plan the scan of `rows` into `dest`, appending launches; `scratch` is the next free
    /// scratch byte.
    fn plan(&self, rows: &Rows, dest: PlanArg, launches: &mut Vec<PlannedLaunch>, scratch: &mut usize) {
        let n_rows: usize = rows.rshape.iter().product();
        let len = rows.len;
        // (grid x, block, chunk, tile)
        let (gx, block, mut chunk, tile): (usize, (u32, u32), usize, usize) = match self.target {
            Target::Cpu { workers } => {
                let tile = if rows.n_inner >= 8 { 64 } else { 0 };
                let items = if tile > 0 { (n_rows / rows.n_inner) * rows.n_inner.div_ceil(64) } else { n_rows };
                let chunk = if items < 4 * workers.max(1) && len >= 8192 { 4096 } else { len.max(1) };
                (items, (1, 1), chunk, tile)
            }
            Target::Gpu { .. } if self.ordered => (n_rows.div_ceil(256), (1, 256), len.max(1), 0),
            Target::Gpu { sm_count, warp_size, max_threads_per_block, .. } => {
                if rows.n_inner >= 32 || len <= 64 {
                    let blocks = n_rows.div_ceil(256);
                    let chunk = if blocks < 2 * sm_count as usize && len >= 1024 { 256 } else { len.max(1) };
                    (blocks, (1, 256), chunk, 0)
                } else {
                    let maxb = pow2_floor(max_threads_per_block.clamp(warp_size, 1024)).min(512);
                    let threads = if len >= 2048 { maxb } else { 256.min(maxb) }.max(warp_size);
                    let tilelen = threads as usize * 4;
                    let chunk =
                        if n_rows < 2 * sm_count as usize && len >= 4 * tilelen { tilelen * 4 } else { len.max(1) };
                    (n_rows, (threads, 1), chunk, 0)
                }
            }
        };
        if chunk < len {
            chunk = chunk.max(len.div_ceil(65535));
        }
        let nch = len.div_ceil(chunk).max(1);
        let grid = (gx.clamp(1, 1 << 30) as u32, nch as u32);
        let cfg = LaunchConfig::new(grid, block);
        if nch == 1 {
            launches.push(self.launch(rows, dest, PlanArg::Null, PlanArg::Null, cfg, chunk, tile));
            return;
        }
        let totals = *scratch;
        *scratch += align16(n_rows * nch * self.osize);
        let scanned = *scratch;
        *scratch += align16(n_rows * nch * self.osize);
        launches.push(self.launch(
            rows,
            PlanArg::Null,
            PlanArg::Scratch { offset_bytes: totals },
            PlanArg::Null,
            cfg,
            chunk,
            tile,
        ));
        let sub = Rows {
            src: PlanArg::Scratch { offset_bytes: totals },
            rshape: vec![n_rows],
            rstrides: vec![nch as isize],
            ast: 1,
            n_inner: 1,
            len: nch,
        };
        self.plan(&sub, PlanArg::Scratch { offset_bytes: scanned }, launches, scratch);
        launches.push(self.launch(
            rows,
            dest,
            PlanArg::Null,
            PlanArg::Scratch { offset_bytes: scanned },
            cfg,
            chunk,
            tile,
        ));
    }
}

/// Plan the scan of an input of `shape` and `strides` (in elements, any sign) along `axis`;
/// the output is a fresh C-contiguous array of `shape` and dtype `op.out_type`.
pub fn plan_scan(op: &ScanOp, shape: &[usize], strides: &[isize], axis: usize, target: Target) -> Result<ScanPlan> {
    check_rank("scan", shape, strides)?;
    if axis >= shape.len() {
        return Err(Error::Axis { op: op.name.clone(), reason: format!("axis {axis} for rank {}", shape.len()) });
    }
    let n: usize = shape.iter().product();
    let mut plan = ScanPlan { launches: Vec::new(), scratch_bytes: 0, index: IndexWidth::I64 };
    if n == 0 {
        return Ok(plan);
    }
    let c = collapse_scan(shape, strides, axis);
    let span: usize = c
        .rshape
        .iter()
        .zip(&c.rstrides)
        .map(|(&n, &s)| (n - 1).saturating_mul(s.unsigned_abs()))
        .chain([(c.len - 1).saturating_mul(c.ast.unsigned_abs())])
        .fold(0usize, |a, b| a.saturating_add(b));
    if let Target::Gpu { .. } = target {
        if span < 1 << 30 && n < 1 << 30 {
            plan.index = IndexWidth::I32;
        }
    }
    let kernel = render_scan(op, plan.index, target.kind());
    let ordered = op.name == "cumprod" && (op.out_type.is_float() || op.out_type.is_complex());
    let level = Level { kernel: &kernel, index: plan.index, target, osize: op.out_type.size(), ordered };
    let rows = Rows {
        src: PlanArg::Input { offset_elems: 0 },
        rshape: c.rshape.clone(),
        rstrides: c.rstrides.clone(),
        ast: c.ast,
        n_inner: c.n_inner,
        len: c.len,
    };
    let mut scratch = 0;
    if let Target::Gpu { .. } = target {
        // One long row: the single-pass scan (see the engine's `onepass`).
        let n_rows: usize = c.rshape.iter().product();
        if !ordered && n_rows == 1 && c.n_inner == 1 && c.len >= ONEPASS_MIN {
            let osize = op.out_type.size();
            let nt = c.len.div_ceil(onepass_items(osize) * 256);
            plan.scratch_bytes = align16(2 * nt * osize) + align16((nt + 1) * 4);
            for (mode, blocks) in [(-1i64, (nt + 1).div_ceil(256)), (-2, nt)] {
                let mut l = level.launch(
                    &rows,
                    PlanArg::Output,
                    PlanArg::Scratch { offset_bytes: 0 },
                    PlanArg::Null,
                    LaunchConfig::new((blocks as u32, 1), (256, 1)),
                    nt,
                    0,
                );
                *l.args.last_mut().expect("the tile argument") = PlanArg::I64(mode);
                onepass_entry(&mut l.kernel);
                plan.launches.push(l);
            }
            return Ok(plan);
        }
    }
    level.plan(&rows, PlanArg::Output, &mut plan.launches, &mut scratch);
    plan.scratch_bytes = scratch;
    Ok(plan)
}

/// Every kernel the built-in scans can use on `kind`: each scan and input dtype, in each
/// index width the kind's plans use (64-bit on the CPU; 32 and 64 on GPUs).
pub fn builtin_scan_kernels(kind: TargetKind) -> Vec<Rendered> {
    let mut out = Vec::new();
    for name in BUILTIN_SCANS {
        for d in DType::ALL {
            let op = builtin_scan(name, d).expect("every dtype has a scan loop");
            for &w in kind.index_widths() {
                out.push(render_scan(&op, w, kind));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPU: Target =
        Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024, max_grid_x: 2147483647 };
    const CPU: Target = Target::Cpu { workers: 8 };

    #[test]
    fn dtypes_follow_numpy() {
        assert_eq!(builtin_scan("cumsum", DType::Bool).unwrap().out_type, DType::I64);
        assert_eq!(builtin_scan("cumsum", DType::U8).unwrap().out_type, DType::U64);
        assert_eq!(builtin_scan("cumprod", DType::F16).unwrap().out_type, DType::F16);
        assert_eq!(builtin_scan("cumsum", DType::C64).unwrap().out_type, DType::C64);
        assert!(builtin_scan("cummax", DType::F32).is_err());
    }

    #[test]
    fn collapse_keeps_the_axis() {
        let c = collapse_scan(&[2, 3, 5, 7], &[105, 35, 7, 1], 2);
        assert_eq!((c.rshape.clone(), c.rstrides.clone()), (vec![6, 7], vec![35, 1]));
        assert_eq!((c.n_inner, c.len, c.ast), (7, 5, 7));
        let c = collapse_scan(&[10], &[-1], 0);
        assert_eq!((c.rshape.clone(), c.n_inner, c.ast), (vec![1], 1, -1));
    }

    #[test]
    fn long_rows_are_scanned_in_three_phases() {
        let op = builtin_scan("cumsum", DType::F32).unwrap();
        // One long row on a GPU: the single pass (zero the flags, scan), 8192-element tiles,
        // by the entry point with capped registers.
        let p = plan_scan(&op, &[1 << 26], &[1], 0, GPU).unwrap();
        assert_eq!(p.launches.len(), 2);
        assert_eq!(
            (p.launches[0].args[12].clone(), p.launches[1].args[12].clone()),
            (PlanArg::I64(-1), PlanArg::I64(-2))
        );
        assert_eq!(p.launches[1].config.grid.x, 1 << 13);
        assert_eq!(p.scratch_bytes, 2 * 4 * (1 << 13) + align16(4 * ((1 << 13) + 1)));
        let entry = &p.launches[1].kernel;
        assert!(entry.name.ends_with("_onepass") && crate::kernel_names(&entry.code).contains(&entry.name));
        // cumprod of floats keeps NumPy's order: a thread scans the row.
        let prod = builtin_scan("cumprod", DType::F32).unwrap();
        let p = plan_scan(&prod, &[1 << 26], &[1], 0, GPU).unwrap();
        assert_eq!(p.launches.len(), 1);
        let p = plan_scan(&op, &[3, 1 << 24], &[1 << 24, 1], 1, GPU).unwrap();
        // totals, (totals of totals, scan, rescan) or a single scan, rescan.
        assert!(p.launches.len() >= 3, "{}", p.launches.len());
        assert_eq!(p.launches[0].args[3], PlanArg::Scratch { offset_bytes: 0 });
        assert_eq!(p.launches.last().unwrap().args[2], PlanArg::Output);
        assert!(p.scratch_bytes > 0);
        let p = plan_scan(&op, &[1 << 20], &[1], 0, CPU).unwrap();
        assert_eq!(p.launches.len(), 3);
        assert_eq!(p.launches[0].config.grid.y, 256);
        // Many short rows: one launch.
        let p = plan_scan(&op, &[4096, 100], &[100, 1], 1, GPU).unwrap();
        assert_eq!(p.launches.len(), 1);
        let p = plan_scan(&op, &[1000, 1000], &[1000, 1], 0, CPU).unwrap();
        assert_eq!(p.launches.len(), 1);
        assert_eq!(p.launches[0].args[12], PlanArg::I64(64));
        assert!(plan_scan(&op, &[0, 3], &[3, 1], 1, CPU).unwrap().launches.is_empty());
    }

    #[test]
    fn kernel_sets() {
        let cpu = builtin_scan_kernels(TargetKind::Cpu);
        assert_eq!(cpu.len(), 30);
        assert_eq!(builtin_scan_kernels(TargetKind::Gpu).len(), 60);
        for r in &cpu {
            assert!(!crate::cpu::uses_barrier(&r.code));
            assert_eq!(crate::kernel_names(&r.code), vec![r.name.clone()]);
        }
        // GPU sources add the single-pass entry point.
        for r in builtin_scan_kernels(TargetKind::Gpu) {
            assert_eq!(crate::kernel_names(&r.code), vec![r.name.clone(), format!("{}_onepass", r.name)]);
        }
    }
}
