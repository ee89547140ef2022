//! The reduction planner: a call (shape, strides, reduced axes, target) becomes a
//! [`ReducePlan`] of one or two launches (see the strategies in the [module docs](super)).

use xp_backend_api::{Error, LaunchConfig, Result};

use super::{render_reduce, ReduceOp, IN_ORDER_MAX};
use crate::plan::{align16, check_rank, merge_dims as merge, pow2_floor, PlanArg, PlannedLaunch, Target};
use crate::render::{IndexWidth, Rendered};

/// The launches of one reduction, in order, and the scratch they share.
#[derive(Debug, Clone)]
pub struct ReducePlan {
    /// Launches to run in order on one stream (empty when there is no output element).
    pub launches: Vec<PlannedLaunch>,
    /// Bytes of scratch the launches need (0: none; pass no buffer).
    pub scratch_bytes: usize,
    /// Output elements (the product of the kept extents).
    pub n_out: usize,
    /// Elements reduced into each output.
    pub n_red: usize,
    /// The index width of the kernels.
    pub index: IndexWidth,
}

/// The reduction problem after dimension collapsing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollapsedReduction {
    /// Extents of the kept dimensions, in axis order (`[1]` when none).
    pub kshape: Vec<usize>,
    /// Input strides of the kept dimensions.
    pub kstrides: Vec<isize>,
    /// Extents of the reduced dimensions (`[1]` when none).
    pub rshape: Vec<usize>,
    /// Input strides of the reduced dimensions.
    pub rstrides: Vec<isize>,
    /// Elements from the input's first element to the element all offsets start from
    /// (nonzero when reduced dimensions with negative strides were flipped).
    pub base: isize,
}

impl CollapsedReduction {
    /// Output elements.
    pub fn n_out(&self) -> usize {
        self.kshape.iter().product()
    }
    /// Elements per output.
    pub fn n_red(&self) -> usize {
        self.rshape.iter().product()
    }
}

/// [`merge`]d dimensions as extents and strides; one dimension `(1, 0)` when none is left.
fn merge_dims(dims: &[(usize, isize)]) -> (Vec<usize>, Vec<isize>) {
    let merged = merge(dims);
    if merged.is_empty() {
        return (vec![1], vec![0]);
    }
    merged.into_iter().unzip()
}

/// Split `shape`/`strides` (strides in elements) into kept and reduced dimensions and merge
/// neighbours that address memory as one dimension. Kept dimensions keep their order (the
/// output is C-contiguous over them). Reduced dimensions keep theirs when `keep_order` (the
/// op reads element indices); otherwise negative strides are flipped (moving `base`) and the
/// dimensions are sorted by decreasing stride, so a transposed or reversed input reduces as
/// a contiguous one. Zero-size problems collapse to one kept and one reduced dimension.
pub fn collapse_reduction(shape: &[usize], strides: &[isize], axes: &[usize], keep_order: bool) -> CollapsedReduction {
    let n_out: usize = (0..shape.len()).filter(|d| !axes.contains(d)).map(|d| shape[d]).product();
    let n_red: usize = axes.iter().map(|&d| shape[d]).product();
    if n_out == 0 || n_red == 0 {
        return CollapsedReduction {
            kshape: vec![n_out],
            kstrides: vec![0],
            rshape: vec![n_red],
            rstrides: vec![1],
            base: 0,
        };
    }
    let kept: Vec<(usize, isize)> =
        (0..shape.len()).filter(|d| !axes.contains(d)).map(|d| (shape[d], strides[d])).collect();
    let mut red: Vec<(usize, isize)> =
        (0..shape.len()).filter(|d| axes.contains(d)).map(|d| (shape[d], strides[d])).collect();
    let mut base = 0isize;
    if !keep_order {
        for (n, s) in red.iter_mut() {
            if *s < 0 && *n > 1 {
                base += (*n as isize - 1) * *s;
                *s = -*s;
            }
        }
        red.sort_by_key(|d| std::cmp::Reverse(d.1));
    }
    let (kshape, kstrides) = merge_dims(&kept);
    let (rshape, rstrides) = merge_dims(&red);
    CollapsedReduction { kshape, kstrides, rshape, rstrides, base }
}

/// Whether every offset of the problem, the counts and the segment bookkeeping fit in 32 bits.
fn fits_i32(c: &CollapsedReduction, extra: usize) -> bool {
    let span: usize = c
        .kshape
        .iter()
        .zip(&c.kstrides)
        .chain(c.rshape.iter().zip(&c.rstrides))
        .map(|(&n, &s)| n.saturating_sub(1).saturating_mul(s.unsigned_abs()))
        .fold(0usize, |a, b| a.saturating_add(b));
    let lim = 1usize << 30;
    span < lim && c.n_out() < lim && c.n_red() < lim && extra < lim
}

/// How one pass of the engine runs.
#[derive(Debug, Clone, Copy)]
struct Pass {
    /// Threads per output (GPU), 1 on the CPU.
    gx: u32,
    /// Outputs per block (GPU), 1 on the CPU.
    gy: u32,
    /// Segments of the reduced range.
    segments: usize,
    /// Elements per segment.
    seg: usize,
    /// Tile width (CPU tile mode), 0 otherwise.
    tile: usize,
    /// Blocks along x.
    blocks: u32,
}

fn gpu_pass(n_out: usize, n_red: usize, columns: bool, sm: u32, ws: u32, maxb: u32) -> Pass {
    let maxb = pow2_floor(maxb.clamp(ws.max(32), 1024)).min(512).max(ws);
    let (gx, gy) = if columns || n_red <= 16 {
        (1, 256.min(maxb))
    } else {
        // About 64 elements per thread on long rows (enough loads in flight per thread), and
        // groups of up to 8 threads on short ones.
        let want =
            (n_red.div_ceil(64).max(n_red.div_ceil(16).min(8)) as u64).next_power_of_two().min(maxb as u64) as u32;
        let gx = if want >= ws { want } else { want.max(1) };
        // Groups wider than a warp combine through the block's shared memory: one per block.
        (gx, if gx > ws { 1 } else { (256 / gx).max(1) })
    };
    let per_block = (gx * gy) as usize;
    let groups_blocks = n_out.div_ceil(gy as usize).max(1);
    // Four waves of fully occupied multiprocessors (2048 threads each).
    let target = sm as usize * (2048 / per_block).max(1) * 4;
    let min_seg = if gx == 1 { 64 } else { gx as usize * 64 };
    let mut segments = 1usize;
    if groups_blocks < target && n_red >= 2 * min_seg {
        segments = target.div_ceil(groups_blocks).min(n_red / min_seg).clamp(1, 65535);
    }
    let seg = if segments > 1 { n_red.div_ceil(segments).div_ceil(64) * 64 } else { n_red.max(1) };
    let segments = if segments > 1 { n_red.div_ceil(seg) } else { 1 };
    let blocks = groups_blocks.min(1 << 20) as u32;
    Pass { gx, gy, segments, seg, tile: 0, blocks }
}

/// Rows per inner accumulator in CPU tile mode (the engine's `kRowBlock`).
const CPU_ROW_BLOCK: usize = 64;
/// Bytes of one CPU tile's accumulators, inner and cascade (the engine's `kTileBytes`).
const CPU_TILE_BYTES: usize = 96 << 10;
/// The widest CPU tile planned: rows of up to 16 KiB of float32 read in one sweep, while the
/// inner accumulators stay in the first-level cache.
const CPU_TILE_MAX: usize = 4096;

/// The widest tile the engine fits for segments of `seg` rows (its `tile_width`): an inner
/// array and one per level of the cascade over blocks of [`CPU_ROW_BLOCK`] rows.
fn cpu_tile_fit(seg: usize, acc_size: usize) -> usize {
    let blocks = seg.div_ceil(CPU_ROW_BLOCK);
    let levels = (usize::BITS - blocks.leading_zeros()) as usize;
    (CPU_TILE_BYTES / ((levels + 1) * acc_size.max(1))).max(1)
}

/// Tiles of at most `cap` outputs splitting rows of `klast` evenly (a multiple of 16 wide
/// where that still fits).
fn cpu_tile_width(klast: usize, cap: usize) -> usize {
    let cap = cap.max(1);
    let per_row = klast.div_ceil(cap);
    if per_row <= 1 {
        return klast.max(1);
    }
    let even = klast.div_ceil(per_row);
    let rounded = even.div_ceil(16) * 16;
    if rounded <= cap {
        rounded
    } else {
        even
    }
}

fn cpu_pass(n_out: usize, n_red: usize, klast: usize, tile_mode: bool, acc_size: usize, workers: usize) -> Pass {
    let target = 4 * workers.max(1);
    if tile_mode {
        // Rows are read whole (or in tiles of up to CPU_TILE_MAX outputs), one after another:
        // long sequential reads. Parallelism comes from tiles, then from segments of rows.
        let outer = n_out / klast;
        let items = outer * klast.div_ceil(CPU_TILE_MAX);
        let mut segments = 1;
        if items < target && n_red >= 2 * CPU_ROW_BLOCK {
            segments = target.div_ceil(items).min(n_red / CPU_ROW_BLOCK).clamp(1, 65535);
        }
        let seg =
            if segments > 1 { n_red.div_ceil(segments).div_ceil(CPU_ROW_BLOCK) * CPU_ROW_BLOCK } else { n_red.max(1) };
        let segments = if segments > 1 { n_red.div_ceil(seg) } else { 1 };
        let tile = cpu_tile_width(klast, CPU_TILE_MAX.min(cpu_tile_fit(seg, acc_size)));
        let items = outer * klast.div_ceil(tile);
        return Pass { gx: 1, gy: 1, segments, seg, tile, blocks: items.min(1 << 30) as u32 };
    }
    let mut segments = 1;
    if n_out < target && n_red >= 2 * 4096 {
        segments = target.div_ceil(n_out).min(n_red / 4096).clamp(1, 65535);
    }
    let seg = if segments > 1 { n_red.div_ceil(segments).div_ceil(512) * 512 } else { n_red.max(1) };
    let segments = if segments > 1 { n_red.div_ceil(seg) } else { 1 };
    Pass { gx: 1, gy: 1, segments, seg, tile: 0, blocks: n_out.clamp(1, 1 << 30) as u32 }
}

#[allow(clippy::too_many_arguments)]
fn launch(
    kernel: &Rendered,
    index: IndexWidth,
    p: &Pass,
    io: [PlanArg; 4],
    kshape: &[usize],
    kstrides: &[isize],
    rshape: &[usize],
    rstrides: &[isize],
    n_out: usize,
    n_red: usize,
    n_post: usize,
    ddof: i64,
) -> PlannedLaunch {
    let ix = |v: usize| PlanArg::index(index, v as i64);
    let [a0, a1, a2, a3] = io;
    PlannedLaunch {
        kernel: kernel.clone(),
        config: LaunchConfig::new((p.blocks, p.segments as u32), (p.gx, p.gy)),
        args: vec![
            a0,
            a1,
            a2,
            a3,
            PlanArg::shape(kshape),
            PlanArg::strides(kstrides),
            PlanArg::shape(rshape),
            PlanArg::strides(rstrides),
            ix(n_out),
            ix(n_red),
            ix(p.seg),
            PlanArg::I64(p.tile as i64),
            PlanArg::I64(n_post as i64),
            PlanArg::I64(ddof),
        ],
    }
}

/// Plan the reduction of an input of `shape` and `strides` (in elements, any sign) over
/// `axes` (distinct, each below the rank). Once extents of 1 are dropped and neighbours merged,
/// at most [`MAX_RANK`](crate::plan::MAX_RANK) kept and as many reduced dimensions may remain.
pub fn plan_reduce(
    op: &ReduceOp,
    shape: &[usize],
    strides: &[isize],
    axes: &[usize],
    target: Target,
) -> Result<ReducePlan> {
    if shape.len() != strides.len() {
        check_rank("reduce", shape, strides)?;
    }
    for (i, &a) in axes.iter().enumerate() {
        if a >= shape.len() || axes[..i].contains(&a) {
            return Err(Error::Axis { op: op.name.clone(), reason: format!("axes {axes:?} for rank {}", shape.len()) });
        }
    }
    // The kernels index at most MAX_RANK kept and reduced dimensions: the rank that counts is
    // the one left once extents of 1 are dropped and neighbours merged.
    let c = collapse_reduction(shape, strides, axes, op.uses_index());
    check_rank("reduce", &c.kshape, &c.kstrides)?;
    check_rank("reduce", &c.rshape, &c.rstrides)?;
    Ok(plan_collapsed(op, &c, target))
}

/// Plan an already collapsed problem (see [`collapse_reduction`]).
pub fn plan_collapsed(op: &ReduceOp, c: &CollapsedReduction, target: Target) -> ReducePlan {
    let (n_out, n_red) = (c.n_out(), c.n_red());
    let mut plan = ReducePlan { launches: Vec::new(), scratch_bytes: 0, n_out, n_red, index: IndexWidth::I64 };
    if n_out == 0 {
        return plan;
    }
    let klast = *c.kshape.last().expect("rank >= 1");
    let kst_last = *c.kstrides.last().expect("rank >= 1");
    let rst_last = *c.rstrides.last().expect("rank >= 1");
    let columns = n_out > 1 && kst_last == 1 && rst_last.unsigned_abs() != 1 && n_red > 1;
    let first = match target {
        Target::Gpu { sm_count, warp_size, max_threads_per_block, .. } if op.in_order && n_red <= IN_ORDER_MAX => {
            // A thread per output (as the columns strategy), the range never split.
            let mut p = gpu_pass(n_out, n_red, true, sm_count, warp_size, max_threads_per_block);
            p.segments = 1;
            p.seg = n_red.max(1);
            p
        }
        Target::Gpu { sm_count, warp_size, max_threads_per_block, .. } => {
            gpu_pass(n_out, n_red, columns, sm_count, warp_size, max_threads_per_block)
        }
        Target::Cpu { workers } => cpu_pass(n_out, n_red, klast, columns && klast >= 8, op.acc_size, workers),
    };
    let index = match target {
        Target::Cpu { .. } => IndexWidth::I64,
        Target::Gpu { .. } => {
            if fits_i32(c, n_out.saturating_mul(first.segments) + first.seg) {
                IndexWidth::I32
            } else {
                IndexWidth::I64
            }
        }
    };
    plan.index = index;
    let kernel = render_reduce(op, index);
    let input = PlanArg::Input { offset_elems: c.base };
    if first.segments == 1 {
        plan.launches.push(launch(
            &kernel,
            index,
            &first,
            [input, PlanArg::Null, PlanArg::Output, PlanArg::Null],
            &c.kshape,
            &c.kstrides,
            &c.rshape,
            &c.rstrides,
            n_out,
            n_red,
            n_red,
            op.ddof,
        ));
        return plan;
    }
    let s = first.segments;
    plan.scratch_bytes = align16(n_out * s * op.acc_size);
    plan.launches.push(launch(
        &kernel,
        index,
        &first,
        [input, PlanArg::Null, PlanArg::Null, PlanArg::Scratch { offset_bytes: 0 }],
        &c.kshape,
        &c.kstrides,
        &c.rshape,
        &c.rstrides,
        n_out,
        n_red,
        n_red,
        op.ddof,
    ));
    // Partials of output o are at o + s * n_out: a (n_out) x (S) problem, outputs contiguous.
    let second = match target {
        Target::Gpu { sm_count, warp_size, max_threads_per_block, .. } => {
            let mut p = gpu_pass(n_out, s, n_out > 1, sm_count, warp_size, max_threads_per_block);
            p.segments = 1;
            p.seg = s;
            p
        }
        Target::Cpu { workers } => {
            if n_out >= 8 {
                // Rows of partials, as many tiles as workers can share (at least 256 wide).
                let cap = n_out.div_ceil(4 * workers.max(1)).clamp(256, CPU_TILE_MAX);
                let tile = cpu_tile_width(n_out, cap.min(cpu_tile_fit(s, op.acc_size)));
                Pass { gx: 1, gy: 1, segments: 1, seg: s, tile, blocks: n_out.div_ceil(tile).min(1 << 30) as u32 }
            } else {
                Pass { gx: 1, gy: 1, segments: 1, seg: s, tile: 0, blocks: n_out as u32 }
            }
        }
    };
    plan.launches.push(launch(
        &kernel,
        index,
        &second,
        [PlanArg::Null, PlanArg::Scratch { offset_bytes: 0 }, PlanArg::Output, PlanArg::Null],
        &[n_out],
        &[1],
        &[s],
        &[n_out as isize],
        n_out,
        s,
        n_red,
        op.ddof,
    ));
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::builtin_reduce;
    use xp_backend_api::DType;

    const GPU: Target =
        Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024, max_grid_x: 2147483647 };
    const CPU: Target = Target::Cpu { workers: 8 };

    fn op(name: &str, d: DType) -> ReduceOp {
        builtin_reduce(name, d, 0).unwrap()
    }

    #[test]
    fn collapse_merges_and_reorders() {
        // (2,3,4) C-contiguous, reduce axis 2: one kept dim of 6, one reduced of 4.
        let c = collapse_reduction(&[2, 3, 4], &[12, 4, 1], &[2], false);
        assert_eq!((c.kshape.clone(), c.kstrides.clone()), (vec![6], vec![4]));
        assert_eq!((c.rshape.clone(), c.rstrides.clone()), (vec![4], vec![1]));
        // Full reduction of a transposed matrix: one contiguous range.
        let c = collapse_reduction(&[5, 7], &[1, 5], &[0, 1], false);
        assert_eq!((c.rshape.clone(), c.rstrides.clone(), c.kshape.clone()), (vec![35], vec![1], vec![1]));
        // ... but argmin keeps C order over the reduced axes.
        let c = collapse_reduction(&[5, 7], &[1, 5], &[0, 1], true);
        assert_eq!(c.rshape, vec![5, 7]);
        // A reversed vector: flipped, base at the last element.
        let c = collapse_reduction(&[10], &[-1], &[0], false);
        assert_eq!((c.rstrides.clone(), c.base), (vec![1], -9));
        // Axes (0, 3) of a C-contiguous (2,3,5,7).
        let c = collapse_reduction(&[2, 3, 5, 7], &[105, 35, 7, 1], &[0, 3], false);
        assert_eq!((c.kshape.clone(), c.kstrides.clone()), (vec![15], vec![7]));
        assert_eq!((c.rshape.clone(), c.rstrides.clone()), (vec![2, 7], vec![105, 1]));
        // Zero size.
        let c = collapse_reduction(&[3, 0], &[0, 1], &[1], false);
        assert_eq!((c.n_out(), c.n_red()), (3, 0));
    }

    #[test]
    fn gpu_full_reduction_splits_into_two_launches() {
        let p = plan_reduce(&op("sum", DType::F32), &[1 << 28], &[1], &[0], GPU).unwrap();
        assert_eq!(p.launches.len(), 2);
        assert_eq!(p.index, IndexWidth::I32);
        let l0 = &p.launches[0];
        assert_eq!(l0.config.block.x, 512);
        let s = l0.config.grid.y as usize;
        assert!(s >= 132 * 4, "{s} segments");
        assert_eq!(p.scratch_bytes, align16(s * 4));
        assert_eq!(l0.args[3], PlanArg::Scratch { offset_bytes: 0 });
        let l1 = &p.launches[1];
        assert_eq!(l1.args[1], PlanArg::Scratch { offset_bytes: 0 });
        assert_eq!(l1.args[2], PlanArg::Output);
        assert_eq!(l1.config.grid.y, 1);
        assert_eq!(l1.args[12], PlanArg::I64(1 << 28));
    }

    #[test]
    fn gpu_strategies() {
        // std along axis 1 of (16384, 16384): a block per row, no split.
        let p = plan_reduce(&op("std", DType::F32), &[16384, 16384], &[16384, 1], &[1], GPU).unwrap();
        assert_eq!(p.launches.len(), 1);
        assert_eq!(p.launches[0].config.block, (256, 1).into());
        // Short rows: a sub-warp group per row.
        let p = plan_reduce(&op("sum", DType::F32), &[100000, 64], &[64, 1], &[1], GPU).unwrap();
        assert_eq!(p.launches.len(), 1);
        assert_eq!(p.launches[0].config.block, (4, 64).into());
        // mean along axis 0 of (16384, 16384): a thread per column, rows split, then combined.
        let p = plan_reduce(&op("mean", DType::F32), &[16384, 16384], &[16384, 1], &[0], GPU).unwrap();
        assert_eq!(p.launches.len(), 2);
        assert_eq!(p.launches[0].config.block.x, 1);
        let s = p.launches[0].config.grid.y as usize;
        assert!(s > 1);
        assert_eq!(p.scratch_bytes, align16(16384 * s * 4));
        assert_eq!(p.launches[1].args[6], PlanArg::Shape(vec![s as i64]));
        assert_eq!(p.launches[1].args[7], PlanArg::Strides(vec![16384]));
        // Many columns: no split.
        let p = plan_reduce(&op("sum", DType::F32), &[64, 1 << 22], &[1 << 22, 1], &[0], GPU).unwrap();
        assert_eq!(p.launches.len(), 1);
        // 64-bit indexing past 2^30 elements.
        let p = plan_reduce(&op("sum", DType::U8), &[1 << 31], &[1], &[0], GPU).unwrap();
        assert_eq!(p.index, IndexWidth::I64);
        // Complex products fold in order: one thread per output, never split.
        let p = plan_reduce(&op("prod", DType::C64), &[257], &[1], &[0], GPU).unwrap();
        assert_eq!(p.launches.len(), 1);
        assert_eq!(p.launches[0].config.block.x, 1);
        let p = plan_reduce(&op("prod", DType::C128), &[8, 1000], &[1000, 1], &[1], GPU).unwrap();
        assert_eq!((p.launches.len(), p.launches[0].config.block.x), (1, 1));
        // ... up to IN_ORDER_MAX elements; real products split as sums do.
        let p = plan_reduce(&op("prod", DType::C64), &[IN_ORDER_MAX * 4], &[1], &[0], GPU).unwrap();
        assert_eq!(p.launches.len(), 2);
        let p = plan_reduce(&op("prod", DType::F32), &[257 * 64], &[1], &[0], GPU).unwrap();
        assert!(p.launches[0].config.block.x > 1);
    }

    #[test]
    fn cpu_strategies() {
        // A long vector: split across workers, combined by a second launch.
        let p = plan_reduce(&op("sum", DType::F64), &[1 << 20], &[1], &[0], CPU).unwrap();
        assert_eq!(p.launches.len(), 2);
        assert_eq!(p.launches[0].config.block.volume(), 1);
        assert!(p.launches[0].config.grid.y >= 32);
        // Columns of a C-contiguous matrix: whole rows per work item, rows split in segments.
        let p = plan_reduce(&op("mean", DType::F32), &[1000, 1000], &[1000, 1], &[0], CPU).unwrap();
        assert_eq!(p.launches[0].args[11], PlanArg::I64(1000));
        assert_eq!(p.launches.len(), 2);
        // Rows: one output per work item.
        let p = plan_reduce(&op("mean", DType::F32), &[1000, 1000], &[1000, 1], &[1], CPU).unwrap();
        assert_eq!(p.launches.len(), 1);
        assert_eq!(p.launches[0].args[11], PlanArg::I64(0));
        assert_eq!(p.launches[0].config.grid.x, 1000);
        // Empty output: nothing to do; empty range: one launch writing identities.
        assert!(plan_reduce(&op("sum", DType::F32), &[0, 5], &[5, 1], &[1], CPU).unwrap().launches.is_empty());
        let p = plan_reduce(&op("sum", DType::F32), &[5, 0], &[0, 1], &[1], CPU).unwrap();
        assert_eq!(p.launches.len(), 1);
        assert_eq!(p.n_red, 0);
    }

    /// The tile width a CPU launch asks for.
    fn tile_of(l: &PlannedLaunch) -> usize {
        match l.args[11] {
            PlanArg::I64(t) => t as usize,
            ref a => panic!("tile argument {a:?}"),
        }
    }

    /// The rows per segment of a CPU launch.
    fn seg_of(l: &PlannedLaunch) -> usize {
        match l.args[10] {
            PlanArg::I64(s) => s as usize,
            ref a => panic!("seg argument {a:?}"),
        }
    }

    #[test]
    fn cpu_columns_stream_whole_rows_split_into_segments() {
        // mean(axis=0) of a C-contiguous 4096 x 4096 on 2 workers: a work item per segment of
        // rows, each reading whole rows; a second launch combines the segments.
        let two = Target::Cpu { workers: 2 };
        let p = plan_reduce(&op("mean", DType::F32), &[4096, 4096], &[4096, 1], &[0], two).unwrap();
        assert_eq!(p.launches.len(), 2);
        let (l0, l1) = (&p.launches[0], &p.launches[1]);
        assert_eq!(tile_of(l0), 4096);
        assert_eq!(l0.config.grid.x, 1);
        let s = l0.config.grid.y as usize;
        assert_eq!(s, 8);
        assert!(seg_of(l0).is_multiple_of(CPU_ROW_BLOCK));
        assert!(seg_of(l0) * s >= 4096);
        assert_eq!(p.scratch_bytes, align16(4096 * s * 4));
        // The partials: rows of 4096, shared by the workers in tiles.
        assert_eq!(l1.args[7], PlanArg::Strides(vec![4096]));
        assert!(tile_of(l1) >= 256 && l1.config.grid.x as usize * tile_of(l1) >= 4096);
        assert!(l1.config.grid.x >= 2);
        // Rows wider than CPU_TILE_MAX: equal tiles, enough of them that rows need no split.
        let p = plan_reduce(&op("sum", DType::F32), &[64, 40000], &[40000, 1], &[0], two).unwrap();
        assert_eq!(p.launches.len(), 1);
        let t = tile_of(&p.launches[0]);
        assert!(t <= CPU_TILE_MAX && t.is_multiple_of(16), "{t}");
        assert_eq!(p.launches[0].config.grid.x as usize, 40000usize.div_ceil(t));
        // Long narrow columns: one tile per row, rows split over the workers.
        let p = plan_reduce(&op("sum", DType::F32), &[1 << 20, 16], &[16, 1], &[0], two).unwrap();
        assert_eq!(p.launches.len(), 2);
        assert_eq!(tile_of(&p.launches[0]), 16);
        assert_eq!(p.launches[0].config.grid.y, 8);
        // Axis 1 of a C-contiguous (A, B, C): tiles along C, one per outer index.
        let p = plan_reduce(&op("sum", DType::F64), &[32, 300, 100], &[30000, 100, 1], &[1], two).unwrap();
        assert_eq!(p.launches.len(), 1);
        assert_eq!((tile_of(&p.launches[0]), p.launches[0].config.grid.x), (100, 32));
    }

    #[test]
    fn cpu_tiles_fit_their_stack_budget() {
        // Wide accumulators (Welford's four doubles, value and index) and long segments make
        // narrower tiles; the inner array and every level of the cascade fit in the budget.
        for (name, d) in [("var", DType::F64), ("argmax", DType::F64), ("sum", DType::C128), ("mean", DType::F32)] {
            let o = op(name, d);
            for rows in [100, 5000, 1 << 20] {
                for workers in [1, 2, 64] {
                    let t = Target::Cpu { workers };
                    let p = plan_reduce(&o, &[rows, 8192], &[8192, 1], &[0], t).unwrap();
                    for l in &p.launches {
                        let (tile, seg) = (tile_of(l), seg_of(l));
                        if tile == 0 {
                            continue;
                        }
                        let levels = (usize::BITS - seg.div_ceil(CPU_ROW_BLOCK).leading_zeros()) as usize;
                        assert!((levels + 1) * tile * o.acc_size <= CPU_TILE_BYTES, "{name} {rows} {workers}");
                        assert!(tile >= 16, "{name} {rows} {workers}: tile {tile}");
                    }
                }
            }
        }
    }

    #[test]
    fn bad_axes_are_errors() {
        assert!(plan_reduce(&op("sum", DType::F32), &[3, 4], &[4, 1], &[2], CPU).is_err());
        assert!(plan_reduce(&op("sum", DType::F32), &[3, 4], &[4, 1], &[1, 1], CPU).is_err());
    }

    #[test]
    fn cpu_tile_constants_match_the_engine() {
        assert!(super::super::ENGINE.contains(&format!("constexpr int kRowBlock = {CPU_ROW_BLOCK};")));
        assert!(super::super::ENGINE.contains(&format!("constexpr int kTileBytes = {} * 1024;", CPU_TILE_BYTES >> 10)));
    }
}
