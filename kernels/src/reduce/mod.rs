//! The reduction generator and planner.
//!
//! A reduction is data ([`ReduceOp`]: an input dtype, an accumulator C type, `map`, `combine`,
//! `post` and `identity` fragments, a preamble), as CuPy's `ReductionKernel`. One generic
//! engine (emitted before every kernel, behind an include guard) turns an op into one kernel
//! per index width; the kernel's code depends only on the op and the index width, never on
//! shapes, so the set of kernels stays finite: [`builtin_reduce_kernels`] lists every kernel
//! the built-in reductions can need.
//!
//! [`plan_reduce`] turns one call (the input's shape and strides, the reduced axes, the
//! target) into a [`ReducePlan`]: one or two launches with symbolic arguments ([`PlanArg`]) and
//! the scratch bytes they need. The caller allocates the output (a fresh C-contiguous array of
//! the kept dimensions, in axis order) and the scratch, resolves the arguments and launches.
//!
//! # The kernel
//!
//! Parameters, in order (`I` is `xp::i32` or `xp::i64`):
//! `const In* in, const Acc* pin, Out* out, Acc* pout, xp::Shape kshape, xp::Strides kstrides,
//! xp::Shape rshape, xp::Strides rstrides, I n_out, I n_red, I seg, xp::i64 tile,
//! xp::i64 n_post, xp::i64 ddof`.
//! Output `o` (C order over `kshape`) reduces elements `in[offset(o, kstrides) + offset(j,
//! rstrides)]` for `j` in segment `blockIdx.y` (`[s*seg, (s+1)*seg)`) of `[0, n_red)`. With
//! `pin` set, the elements are accumulators of an earlier pass instead. With `pout` set, the
//! result is stored as an accumulator at `pout[o + s*n_out]`; otherwise `post` writes `out[o]`
//! (with `_n = n_post`, the length of the whole reduced range).
//!
//! # Strategies
//!
//! - GPU, rows (the reduced range is contiguous, or outputs are not): a group of
//!   `blockDim.x` threads per output — a whole block of up to 512 threads for long rows, a
//!   power-of-two part of a warp for short ones with `blockDim.y` groups per block — loads
//!   unrolled and 16 bytes wide where aligned, combined with warp shuffles and, across warps,
//!   shared memory. Few long rows (a full reduction) are split into segments over
//!   `blockIdx.y` whose partial accumulators a second launch combines: deterministic, no
//!   atomics.
//! - GPU, columns (outputs contiguous, reduced range strided: `mean(axis=0)` of a C-contiguous
//!   matrix): a thread per output (`blockDim.x == 1`), neighbouring threads reading
//!   neighbouring elements; with few columns the rows are split over `blockIdx.y` and
//!   combined by a second launch.
//! - CPU (no barriers, no shared memory; a launch is a grid of one-thread blocks): one output
//!   per work item, reduced with eight independent accumulators over blocks of 512 elements
//!   (a loop the compiler vectorises when the range is contiguous), the blocks combined in a
//!   binary cascade so float error grows like log n; or, when outputs are contiguous and the
//!   reduced range is not (`mean(axis=0)` of a C-contiguous matrix), tiles of neighbouring
//!   outputs (`tile > 0`) — whole rows up to 4096 outputs — walked row after row, so that
//!   reads are long sequential streams: each output keeps an accumulator for a block of 64
//!   rows, and the blocks are combined in the same binary cascade (its arrays, like the
//!   tile's width, bounded by 96 KiB of stack). With fewer work items than four per worker,
//!   the range (the rows, in tile mode) is split into segments and a second launch combines
//!   the partials.
//!
//! # Files
//!
//! The engine is `include/xp_reduce.h`; the built-in reductions are the table of [`ops`]
//! ([`BUILTINS`]); the planner is [`plan`]; reductions of a fused elementwise map (lazy
//! fusion's prologue) are [`fused`]. The launch types ([`Target`], [`PlanArg`],
//! [`PlannedLaunch`]) live in [`crate::plan`] and are re-exported here.

use std::fmt::Write;

use xp_backend_api::DType;

pub use crate::plan::{PlanArg, PlannedLaunch, Target, TargetKind};
use crate::render::{sanitize, IndexWidth, Rendered};

pub mod fused;
pub mod ops;
pub mod plan;

pub use fused::{collapse_joint, render_reduce_fused, FusedSource, JointCollapse};
pub use ops::{builtin_reduce, Accumulation, BuiltinReduction, OutRule, Prefer, BUILTINS, BUILTIN_REDUCTIONS};
pub use plan::{collapse_reduction, plan_collapsed, plan_reduce, CollapsedReduction, ReducePlan};

/// The engine every reduction and scan kernel is written against (`include/xp_reduce.h`;
/// guarded, so any number of kernels may share a translation unit).
pub(crate) const ENGINE: &str = concat!("\n", include_str!("../../include/xp_reduce.h"));

/// A reduction, as data.
///
/// The fragments are C++ of the kernel dialect:
/// - `map`: an expression of type `acc_type` from `in0` (the loaded element, of `in_type`'s C
///   type) and `_j` (`xp::i64`, the element's index along the flattened reduced range, C
///   order over the reduced axes);
/// - `combine`: statements folding accumulator `b` into accumulator `a` (`a` holds earlier
///   elements than `b`);
/// - `post`: statements setting `out0` (of `out_type`'s C type) from accumulator `a`, `_n`
///   (`xp::i64`, the number of reduced elements) and `_ddof` (`xp::i64`);
/// - `identity`: an expression of `acc_type` that `combine` leaves other values unchanged with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReduceOp {
    /// A stem for kernel names (`sum`).
    pub name: String,
    /// The input's storage dtype.
    pub in_type: DType,
    /// The C type of the accumulator (may be a struct of the preamble).
    pub acc_type: String,
    /// `sizeof(acc_type)` in bytes (scratch for partial accumulators is sized with it).
    pub acc_size: usize,
    /// The output dtype.
    pub out_type: DType,
    /// Code put before the kernel; it may be emitted more than once in one translation unit,
    /// so definitions in it need include guards.
    pub preamble: String,
    /// See the type's docs.
    pub map: String,
    /// See the type's docs.
    pub combine: String,
    /// See the type's docs.
    pub post: String,
    /// See the type's docs.
    pub identity: String,
    /// The value of `_ddof` (an argument of the kernel, not part of its code).
    pub ddof: i64,
    /// GPU plans fold each output's elements in order, one thread per output, up to
    /// [`IN_ORDER_MAX`] elements. Complex products need it: their pattern of infinities and
    /// NaNs after an overflow depends on the order of the multiplications, and NumPy
    /// multiplies in order.
    pub in_order: bool,
}

impl ReduceOp {
    /// Whether `map` reads the element index `_j` (then the reduced axes keep their order).
    pub fn uses_index(&self) -> bool {
        contains_ident(&self.map, "_j")
    }
}

/// The longest reduced range an [`ReduceOp::in_order`] op folds in order on a GPU; longer
/// ranges are split over threads as any other reduction.
pub const IN_ORDER_MAX: usize = 1 << 16;

fn contains_ident(code: &str, ident: &str) -> bool {
    let b = code.as_bytes();
    let mut from = 0;
    while let Some(p) = code[from..].find(ident) {
        let s = from + p;
        let e = s + ident.len();
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        if (s == 0 || !word(b[s - 1])) && (e >= b.len() || !word(b[e])) {
            return true;
        }
        from = e;
    }
    false
}

/// Write the kernel of `op` for index width `index` (see the module docs for its parameters).
pub fn render_reduce(op: &ReduceOp, index: IndexWidth) -> Rendered {
    // Every call of a reduction plans one; its code is kept, so that a repeated reduction
    // costs a lookup rather than writing (and hashing) the engine again.
    type Memo = std::sync::Mutex<std::collections::HashMap<(ReduceOp, IndexWidth), Rendered>>;
    static MEMO: std::sync::OnceLock<Memo> = std::sync::OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    let key = (ReduceOp { ddof: 0, ..op.clone() }, index);
    if let Some(r) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return r.clone();
    }
    let r = render_reduce_uncached(op, index);
    memo.lock().unwrap_or_else(|e| e.into_inner()).insert(key, r.clone());
    r
}

fn render_reduce_uncached(op: &ReduceOp, index: IndexWidth) -> Rendered {
    let idx = index.c_name();
    let hash = xxhash_rust::xxh3::xxh3_64(op_tag(op, index).as_bytes()) ^ xxhash_rust::xxh3::xxh3_64(ENGINE.as_bytes());
    let name = format!(
        "xp_reduce_{}_{}_{}_{:012x}",
        sanitize(&op.name),
        op.in_type.short(),
        index.short(),
        hash & 0xffff_ffff_ffff
    );
    let (inc, acc, outc) = (op.in_type.c_name(), &op.acc_type, op.out_type.c_name());
    let mut code = String::new();
    code.push_str(ENGINE);
    if !op.preamble.is_empty() {
        code.push_str(&op.preamble);
        code.push('\n');
    }
    let _ = write!(
        code,
        "namespace {name}_ns {{\n\
         {op_struct}\
         }}  // namespace {name}_ns\n\
         extern \"C\" __global__ void {name}(const {inc}* __restrict__ in, const {acc}* __restrict__ pin, \
         {outc}* __restrict__ out, {acc}* __restrict__ pout, XP_GRID_CONST const xp::Shape kshape, \
         XP_GRID_CONST const xp::Strides kstrides, XP_GRID_CONST const xp::Shape rshape, \
         XP_GRID_CONST const xp::Strides rstrides, {idx} n_out, {idx} n_red, {idx} seg, xp::i64 tile, \
         xp::i64 n_post, xp::i64 ddof) {{\n\
         \x20 xp::red::run<{name}_ns::Op, {idx}>(in, pin, out, pout, kshape, kstrides, rshape, rstrides, n_out, n_red, \
         seg, tile, n_post, ddof);\n\
         }}\n",
        op_struct = op_struct(op),
    );
    Rendered { name, code }
}

/// The fields of `op` that its kernels' code depends on, with the index width: hashed into the
/// kernels' names.
pub(crate) fn op_tag(op: &ReduceOp, index: IndexWidth) -> String {
    let mut tag = String::new();
    let _ = write!(
        tag,
        "{}|{}|{}|{}|{}|{}|{}|{}|{:?}",
        op.in_type.short(),
        op.acc_type,
        op.out_type.short(),
        op.preamble,
        op.map,
        op.combine,
        op.post,
        op.identity,
        index
    );
    tag
}

/// The engine's `struct Op` of `op` (see `include/xp_reduce.h`).
pub(crate) fn op_struct(op: &ReduceOp) -> String {
    format!(
        "struct Op {{\n\
         \x20 typedef {inc} In;\n\
         \x20 typedef {acc} Acc;\n\
         \x20 typedef {outc} Out;\n\
         \x20 static XP_DEVICE Acc identity() {{ return ({id}); }}\n\
         \x20 static XP_DEVICE Acc map(const In in0, const xp::i64 _j) {{ (void)_j; return ({map}); }}\n\
         \x20 static XP_DEVICE void combine(Acc& a, const Acc& b) {{ {combine} }}\n\
         \x20 static XP_DEVICE void post(const Acc& a, const xp::i64 _n, const xp::i64 _ddof, Out& out0) {{ (void)_n; (void)_ddof; {post} }}\n\
         }};\n",
        inc = op.in_type.c_name(),
        acc = op.acc_type,
        outc = op.out_type.c_name(),
        id = op.identity,
        map = op.map,
        combine = op.combine,
        post = op.post,
    )
}

/// Every kernel the built-in reductions can use on `kind`: each op and input dtype with a
/// loop, in each index width the kind's plans use (64-bit on the CPU; 32 and 64 on GPUs).
pub fn builtin_reduce_kernels(kind: TargetKind) -> Vec<Rendered> {
    let mut out = Vec::new();
    for r in &BUILTINS {
        for d in DType::ALL {
            if let Ok(op) = r.instantiate(d, 0) {
                for &w in kind.index_widths() {
                    out.push(render_reduce(&op, w));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPU: Target = Target::Cpu { workers: 8 };

    fn op(name: &str, d: DType) -> ReduceOp {
        builtin_reduce(name, d, 0).unwrap()
    }

    #[test]
    fn kernel_sets_are_finite_and_unique() {
        let cpu = builtin_reduce_kernels(TargetKind::Cpu);
        let gpu = builtin_reduce_kernels(TargetKind::Gpu);
        assert_eq!(gpu.len(), 2 * cpu.len());
        let mut names: Vec<_> = gpu.iter().map(|r| r.name.clone()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), gpu.len());
        for r in &cpu {
            assert_eq!(crate::kernel_names(&r.code), vec![r.name.clone()]);
            assert!(!crate::cpu::uses_barrier(&r.code), "CPU kernels never need fibers");
        }
        // The plan for any shape uses a kernel of the set.
        let p = plan_reduce(&op("var", DType::F16), &[3, 1025], &[1025, 1], &[1], CPU).unwrap();
        assert!(cpu.iter().any(|r| r.name == p.launches[0].kernel.name));
    }
}
