//! Lazy fusion: elementwise ops return pending arrays, and chains of them run as one kernel
//! when their values are needed, with the bits the ops give one kernel each.
//!
//! # The model
//! An elementwise op ([`crate::ufunc::call`] and everything built on it: every ufunc method,
//! the operators, `where`, `clip`, weak scalars) and [`Array::astype`] return at once an
//! [`Array`] whose values are *pending*: an expression (the op, its type loop, its operands:
//! arrays, other pending arrays, scalars) with the result's shape, dtype and device. The call
//! checks everything it checked before — dtypes, broadcasting, a weak scalar's range, devices —
//! so an error comes from the call that makes it, as without fusion.
//!
//! The values are computed the first time something needs them:
//! - a host read (`to_vec`, `item`, printing), a copy to another device;
//! - anything that is not an elementwise op or a reduction: a sort, indexing that gathers or
//!   scatters, a library call (BLAS, FFT, solvers, sparse), a user kernel, a collective;
//! - a write into an array that a pending expression reads (`fill`, `set`, `out=`, a kernel
//!   writing it): the readers are computed first, so they see the values they were made from;
//! - [`eval`] on one or more arrays;
//! - a bound at the call: more than [`MAX_DEPTH`] ops deep or more than [`MAX_OPS`] ops in
//!   all (a wide tree of short chains), more kernel parameters than [`MAX_PARAM_BYTES`], or
//!   operands keeping more than a tenth of the device's memory alive.
//!
//! Views need nothing: a reshape, slice or transpose of a pending array is pending too, and
//! its consumer reads it as any array. An elementwise op on a pending operand of its own shape
//! (in its own layout, on the same stream) inlines the operand's expression; other pending operands are
//! computed first, as their own kernels.
//!
//! The evaluation lowers the expressions through the elementwise code generator of the
//! built-in ops ([`xp_kernels::elementwise`]): each op's loop body in its own block, its
//! inputs converted to the loop's dtypes with `xp::cast` and its result held in the loop's
//! output dtype, as the op's own kernel reads and stores them. Arrays an expression reads
//! twice are read once; scalars are kernel parameters, never part of the code, so a loop such
//! as `b = &b + 0.02` compiles one kernel whatever the value. A kernel is cached by the
//! expression's shape (ops, loops, dtypes, which operand feeds which input), then by layout
//! and index width, as every elementwise kernel. Several pending arrays computed together
//! ([`eval`]) of one shape are outputs of one kernel. An expression of one op runs the op's
//! own kernel.
//!
//! # Reductions
//! A reduction (`sum`, `mean`, `var`, `max`, `argmax`, `any`, … over any axes) of a pending
//! array computes the array's expression inside the reduction's kernel, as it reads it: the
//! values are never stored, and the array stays pending (a later consumer computes it again,
//! fused into its own kernel). So `sum(x*x + 2*y)` reads `x` and `y` once, and a softmax
//! `e = exp(x - max(x)); e / sum(e)` reads `x` three times and writes once. This applies to the
//! whole pending array in C order (a reshape or slice of one, or a Fortran-ordered one, is
//! computed first) on the stream it was
//! made on, while its arrays and scalars fit the kernel's parameters. On the CPU, whose cores
//! rather than its memory bound a transcendental map, a map holding anything but arithmetic,
//! comparisons, selections and casts is computed first (once) and then reduced.
//!
//! # Memory order
//! A pending array has the layout its op gives a result computed at the call
//! ([`crate::memory_order`]: Fortran order when its array inputs are F-ordered, else C; `astype`
//! keeps its input's order). The fused kernel writes each output in that layout, planned over
//! the transposes when the outputs are Fortran-ordered, so the planner merges dimensions as
//! it does for C.
//!
//! # The same bits
//! Every kernel of xp is compiled without floating-point contraction
//! ([`xp_backend_api::CompileOptions::no_contraction`]: NVRTC `-fmad=false`, hiprtc and the
//! CPU's compiler `-ffp-contract=off`), and each intermediate is rounded to the dtype its op
//! stores, so a fused result equals the op-by-op result bit for bit. A reduction of a pending
//! array combines the computed values in the order its kernel combines the elements of the
//! computed array (its plan is that array's plan), so it gives the same bits too.
//!
//! # Turning it off, watching it
//! `XP_LAZY=0` turns fusion off for the process, [`disabled`] for a closure; ops then run at
//! the call, one kernel each. `XP_TRACE_FUSION=1` writes one line to stderr per evaluation:
//! why it ran, its ops, its outputs, and whether its kernel was new. [`stats`] counts the same.
//!
//! # Pitfalls (and what xp does about them)
//! - **Memory held by pending arrays.** A pending array keeps the arrays it reads alive until
//!   it is computed: `y = &x * 2.0; drop(x)` frees `x` only when `y` is computed. The memory
//!   bound computes an expression whose operands hold more than a tenth of the device; call
//!   [`eval`] to free inputs early.
//! - **Recompile storms.** Kernels are keyed by the expression's shape, never by scalar values,
//!   and the depth bound cuts long loops into equal pieces, so a loop reuses a few kernels.
//!   Shapes that change every iteration (a chain that grows by one op each time and is read
//!   each time) compile one kernel each; [`stats`] and `XP_TRACE_FUSION=1` show it.
//! - **Errors found by a kernel** (a device fault) surface at the evaluation, and name the ops
//!   of the fused kernel (its name lists them).
//! - **The CPU without a C++ compiler.** Built-in ops need no compiler, fused kernels do: when
//!   none can be run, expressions are computed op by op with the built-in kernels and new ops
//!   on that device run at the call (`XP_TRACE_FUSION=1` says so).

use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;
use smallvec::SmallVec;
use xp_backend_api::{DType, DynDevice, Error, KernelArg, Result, Stream};
use xp_kernels::elementwise::{ElementwiseSpec, Operand as KOperand};
use xp_kernels::ops::{ElementwiseOp, TypeLoop};
use xp_kernels::plan::{plan_elementwise, PlanArg, MAX_RANK};
use xp_kernels::reduce::{collapse_joint, plan_reduce, render_reduce_fused, FusedSource, ReduceOp};
use xp_kernels::render::IndexWidth;

use crate::array::Storage;
use crate::element::scalar_bytes;
use crate::exec::{
    current_stream, device_id, elementwise_kernel, elementwise_operands, kernel, launch_planned, run_launches,
    target_of, with_stream, Bindings, KernelKey,
};
use crate::layout::c_strides;
use crate::promote::Scalar;
use crate::Array;

/// Ops an expression may chain before it is computed at the call that would make it deeper.
pub const MAX_DEPTH: u32 = 32;

/// Ops (distinct pending expressions) an expression may hold in all before it is computed at
/// the call that would make it larger. The depth bound alone lets a tree grow wide: a loop
/// that combines two chains at each step (`a = &a + &b; b = &a * &b`) doubles its ops per
/// depth, and each such shape is a kernel of its own.
pub const MAX_OPS: usize = 64;

/// Kernel-parameter bytes an expression's operands may take (a pointer and strides per array,
/// the value of each scalar) before it is computed: CUDA and HIP take 4 KiB of parameters, and
/// the shape and outputs need the rest.
pub const MAX_PARAM_BYTES: usize = 3072;

/// Parameter bytes an array operand takes (its pointer and strides).
const ARRAY_PARAM_BYTES: usize = 8 + 8 * 8;
/// Parameter bytes a scalar operand takes at most (a complex128).
const SCALAR_PARAM_BYTES: usize = 16;

/// What an expression computes.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    /// Op `op` with its type loop `lp`.
    Op { op: &'static ElementwiseOp, lp: &'static TypeLoop },
    /// `astype` to the expression's dtype.
    Cast,
}

impl Kind {
    fn name(&self) -> &'static str {
        match self {
            Kind::Op { op, .. } => op.name,
            Kind::Cast => "astype",
        }
    }
}

/// An operand of an expression.
pub(crate) enum Arg {
    /// An array (computed or pending), not yet broadcast.
    Array(Array),
    /// A weak scalar, converted to the loop's input dtype at the launch.
    Scalar(Scalar),
}

/// A pending array's expression.
pub(crate) struct Expr {
    pub(crate) kind: Kind,
    pub(crate) args: Vec<Arg>,
    pub(crate) shape: Vec<usize>,
    /// The result's layout: dense at offset 0, C order unless the op keeps a Fortran (or,
    /// for `astype`, another) order of its inputs ([`crate::memory_order`]).
    pub(crate) layout: crate::layout::Layout,
    pub(crate) dtype: DType,
    pub(crate) device: Arc<dyn DynDevice>,
    /// The stream current at the call: the evaluation queues its kernel there.
    stream: Arc<dyn Stream>,
    /// What the pending graph this expression heads takes (see [`Measure`]).
    measure: Measure,
}

/// What a pending graph takes, kept up to date at each op at the cost of a few words:
/// - its depth (exact);
/// - its expressions, as a set of 128 bits, expression `k` of this thread (in the order they
///   were made) at bit `k mod 128`: the count is exact for a graph made within 128 ops, which
///   is every graph the op-count bound lets grow, and a lower estimate otherwise (the bound is
///   a heuristic against wide trees, not a limit of the kernels);
/// - the computed arrays it reads (exact: (storage address, bytes), sorted, few);
/// - its scalars, bounded from above by the sum over the operands (a scalar reached by two
///   paths counts twice); past the parameter bound the graph is walked for the exact count.
#[derive(Clone, Debug)]
struct Measure {
    depth: u32,
    nodes: u128,
    scalars: usize,
    leaves: SmallVec<[(usize, usize); 6]>,
}

/// The sorted union of `a` and `b` (sorted, without repeats).
fn union(a: &[(usize, usize)], b: &[(usize, usize)]) -> SmallVec<[(usize, usize); 6]> {
    let mut out = SmallVec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

thread_local! {
    /// The number of the next expression this thread makes.
    static NEXT: Cell<u64> = const { Cell::new(0) };
}

impl Measure {
    /// The measure of a new op over `args`, from its operands' measures.
    fn of(args: &[Arg]) -> Measure {
        let id = NEXT.with(|n| {
            let k = n.get();
            n.set(k + 1);
            k
        });
        let mut m = Measure { depth: 1, nodes: 1u128 << (id % 128), scalars: 0, leaves: SmallVec::new() };
        for a in args {
            match a {
                Arg::Scalar(_) => m.scalars += 1,
                Arg::Array(a) => {
                    let pending = a.storage.with_expr(|e| {
                        let o = &e.measure;
                        m.depth = m.depth.max(o.depth + 1);
                        m.nodes |= o.nodes;
                        m.scalars += o.scalars;
                        if m.leaves.is_empty() {
                            m.leaves.extend_from_slice(&o.leaves);
                        } else if !o.leaves.is_empty() {
                            m.leaves = union(&m.leaves, &o.leaves);
                        }
                    });
                    if pending.is_none() {
                        let leaf = [(Arc::as_ptr(&a.storage) as usize, a.storage_bytes())];
                        m.leaves = union(&m.leaves, &leaf);
                    }
                }
            }
        }
        m
    }

    /// The scalars of the graph of an op over `args`, each expression counted once.
    fn exact_scalars(args: &[Arg]) -> usize {
        fn walk(args: &[Arg], n: &mut usize, seen: &mut Vec<usize>) {
            for a in args {
                match a {
                    Arg::Scalar(_) => *n += 1,
                    Arg::Array(a) => {
                        let id = Arc::as_ptr(&a.storage) as usize;
                        if !seen.contains(&id) {
                            seen.push(id);
                            a.storage.with_expr(|e| walk(&e.args, n, seen));
                        }
                    }
                }
            }
        }
        let (mut n, mut seen) = (0, Vec::new());
        walk(args, &mut n, &mut seen);
        n
    }

    fn ops(&self) -> usize {
        self.nodes.count_ones() as usize
    }

    fn params(&self) -> usize {
        self.leaves.len() * ARRAY_PARAM_BYTES + self.scalars * SCALAR_PARAM_BYTES
    }

    fn held(&self) -> usize {
        self.leaves.iter().map(|(_, b)| b).sum()
    }

    /// The bound the graph of an op over `args` passes, if any (`memory_bound` 0: none); the
    /// scalar count made exact when the bound from above passes the parameter bound.
    fn passes(&mut self, args: &[Arg], memory_bound: usize) -> Option<Reason> {
        if self.depth > MAX_DEPTH || self.ops() > MAX_OPS {
            return Some(Reason::Depth);
        }
        if self.params() > MAX_PARAM_BYTES {
            self.scalars = Measure::exact_scalars(args);
            if self.params() > MAX_PARAM_BYTES {
                return Some(Reason::Params);
            }
        }
        if memory_bound > 0 && self.held() > memory_bound {
            return Some(Reason::Memory);
        }
        None
    }
}

impl Expr {
    /// The arrays among the operands.
    pub(crate) fn arrays(&self) -> impl Iterator<Item = &Array> {
        self.args.iter().filter_map(|a| match a {
            Arg::Array(a) => Some(a),
            Arg::Scalar(_) => None,
        })
    }
}

/// Why an evaluation ran (for `XP_TRACE_FUSION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    /// A host read.
    HostRead,
    /// A kernel, library call or copy reads the values.
    Consumer,
    /// An array the expression reads is about to be written.
    Overwrite,
    /// [`eval`].
    Eval,
    /// The depth or op-count bound.
    Depth,
    /// The kernel-parameter bound.
    Params,
    /// The memory bound.
    Memory,
    /// A stream capture begins or ends.
    Capture,
}

impl Reason {
    fn label(self) -> &'static str {
        match self {
            Reason::HostRead => "host read",
            Reason::Consumer => "read by a kernel, library or copy",
            Reason::Overwrite => "an operand is about to be written",
            Reason::Eval => "eval",
            Reason::Capture => "stream capture",
            Reason::Depth => "depth or op-count bound",
            Reason::Params => "kernel-parameter bound",
            Reason::Memory => "memory bound",
        }
    }
}

// ---- switches and counters -------------------------------------------------------------------

thread_local! {
    static DISABLED: Cell<u32> = const { Cell::new(0) };
}

fn env_lazy() -> Result<bool> {
    static V: OnceLock<Result<bool>> = OnceLock::new();
    V.get_or_init(|| xp_backend_api::env::switch("XP_LAZY", true)).clone()
}

fn env_trace() -> Result<bool> {
    static V: OnceLock<Result<bool>> = OnceLock::new();
    V.get_or_init(|| xp_backend_api::env::switch("XP_TRACE_FUSION", false)).clone()
}

/// Whether elementwise ops on this thread return pending arrays now: `XP_LAZY` (default on)
/// and no enclosing [`disabled`]. A bad `XP_LAZY` value is an error.
pub fn enabled() -> Result<bool> {
    Ok(env_lazy()? && DISABLED.with(|d| d.get()) == 0)
}

/// Run `f` with lazy fusion off on this thread: ops inside it run at their call, one kernel
/// each. Arrays made pending before stay pending.
pub fn disabled<R>(f: impl FnOnce() -> R) -> R {
    DISABLED.with(|d| d.set(d.get() + 1));
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            DISABLED.with(|d| d.set(d.get() - 1));
        }
    }
    let _restore = Restore;
    f()
}

thread_local! {
    static STATS: Cell<Stats> = const {
        Cell::new(Stats { evaluations: 0, fused_kernels: 0, fused_ops: 0, compiles: 0 })
    };
}

fn count(f: impl FnOnce(&mut Stats)) {
    STATS.with(|s| {
        let mut v = s.get();
        f(&mut v);
        s.set(v);
    });
}

/// Counts of the lazy evaluations this thread ran, since it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Evaluations (each ran one kernel, or one per op without fusion).
    pub evaluations: u64,
    /// Evaluations that ran a fused kernel of two or more ops.
    pub fused_kernels: u64,
    /// Ops those fused kernels computed.
    pub fused_ops: u64,
    /// Fused kernels generated (not found among the kernels this process already loaded).
    pub compiles: u64,
}

/// This thread's counts so far.
pub fn stats() -> Stats {
    STATS.with(|s| s.get())
}

/// Devices on which fused kernels cannot be compiled (the CPU without a C++ compiler).
fn unfusable() -> &'static RwLock<Vec<usize>> {
    static U: OnceLock<RwLock<Vec<usize>>> = OnceLock::new();
    U.get_or_init(Default::default)
}

fn can_fuse_on(device: &Arc<dyn DynDevice>) -> bool {
    !unfusable().read().contains(&device_id(device))
}

// ---- making pending arrays -------------------------------------------------------------------

/// Whether an elementwise op on `device` whose result has `size` elements returns a pending
/// array now.
pub(crate) fn should_defer(device: &Arc<dyn DynDevice>, size: usize) -> Result<bool> {
    Ok(size > 0 && enabled()? && can_fuse_on(device))
}

/// A pending array computing `kind` of `args` (checked by the caller) into `layout` (dense,
/// offset 0) of `dtype` on `device`. Pending operands past a bound are computed first.
pub(crate) fn defer(
    kind: Kind,
    args: Vec<Arg>,
    layout: crate::layout::Layout,
    dtype: DType,
    device: Arc<dyn DynDevice>,
) -> Result<Array> {
    let memory_bound = device.properties().total_memory / 10;
    let mut measure = Measure::of(&args);
    if let Some(why) = measure.passes(&args, memory_bound) {
        let pending: Vec<&Storage> =
            args.iter().filter_map(|a| if let Arg::Array(a) = a { Some(&*a.storage) } else { None }).collect();
        evaluate(&pending, why)?;
        measure = Measure::of(&args);
    }
    let stream = current_stream(&device);
    let shape = layout.shape().to_vec();
    let a = Array::pending(Arc::new(Expr { kind, args, shape, layout, dtype, device, stream, measure }));
    remember(&a.storage);
    Ok(a)
}

// ---- the pending arrays of this thread, for stream capture -------------------------------------

thread_local! {
    /// The pending storages this thread made (weakly), so that a stream capture can compute
    /// the pending work before it begins and the work made during it before it ends.
    static MADE: std::cell::RefCell<(Vec<std::sync::Weak<Storage>>, usize)> =
        const { std::cell::RefCell::new((Vec::new(), 64)) };
}

fn remember(s: &Arc<Storage>) {
    MADE.with(|m| {
        let (list, bound) = &mut *m.borrow_mut();
        list.push(Arc::downgrade(s));
        if list.len() >= *bound {
            // Dropped storages go; computed ones stay until dropped (a load each, where
            // upgrading each would take two atomic writes): the capture skips them.
            list.retain(|w| w.strong_count() > 0);
            *bound = (2 * list.len()).max(64);
        }
    });
}

/// Compute every pending array this thread made on `device` (on `stream` only, when given):
/// a stream capture does it before it begins, so that work made earlier is not recorded
/// into the graph (and left uncomputed), and before it ends, so that work made during it is.
///
/// Returns the streams the evaluated arrays were queued on (each once), so that a caller can
/// order other work after them.
pub(crate) fn evaluate_made_on(
    device: &Arc<dyn DynDevice>,
    stream: Option<&Arc<dyn Stream>>,
) -> Result<Vec<Arc<dyn Stream>>> {
    let live: Vec<Arc<Storage>> = MADE.with(|m| {
        let (list, _) = &mut *m.borrow_mut();
        list.retain(|w| w.upgrade().is_some_and(|s| s.is_pending()));
        list.iter().filter_map(|w| w.upgrade()).collect()
    });
    let roots: Vec<&Storage> = live
        .iter()
        .filter(|s| Arc::ptr_eq(&s.device, device))
        .filter(|s| match (stream, s.expr()) {
            (None, _) => true,
            (Some(t), Some(e)) => e.stream.id() == t.id(),
            (Some(_), None) => false,
        })
        .map(|s| &**s)
        .collect();
    let mut streams: Vec<Arc<dyn Stream>> = Vec::new();
    for e in roots.iter().filter_map(|s| s.expr()) {
        if !streams.iter().any(|t| t.id() == e.stream.id()) {
            streams.push(Arc::clone(&e.stream));
        }
    }
    evaluate(&roots, Reason::Capture)?;
    Ok(streams)
}

// ---- evaluation ------------------------------------------------------------------------------

/// Compute the pending arrays among `arrays`, together: those of one device, stream and
/// shape are outputs of one kernel. Computed arrays are left as they are.
pub fn eval(arrays: &[&Array]) -> Result<()> {
    let roots: Vec<&Storage> = arrays.iter().map(|a| &*a.storage).collect();
    evaluate(&roots, Reason::Eval)
}

/// Compute the pending storages among `roots`.
pub(crate) fn evaluate(roots: &[&Storage], why: Reason) -> Result<()> {
    // A bad XP_TRACE_FUSION is the error of the first evaluation.
    env_trace()?;
    let mut todo: Vec<(&Storage, Arc<Expr>)> = Vec::new();
    for r in roots {
        if let Some(e) = r.expr() {
            if !todo.iter().any(|(s, _)| std::ptr::eq(*s, *r)) {
                todo.push((r, e));
            }
        }
    }
    while let Some((first, e)) = todo.first().cloned() {
        // One kernel for the roots that share the first one's device, stream and shape.
        let (group, rest): (Vec<_>, Vec<_>) = todo.into_iter().partition(|(_, o)| {
            Arc::ptr_eq(&o.stream, &e.stream) && Arc::ptr_eq(&o.device, &e.device) && o.shape == e.shape
        });
        todo = rest;
        if first.is_pending() {
            run_group(&group, why)?;
        }
    }
    Ok(())
}

/// Whether `a`, a pending operand of an expression of `shape` queued on `stream`, is inlined
/// into it (else it is computed as a kernel of its own and read as an array).
fn inlinable(a: &Array, e: &Expr, shape: &[usize], stream: &Arc<dyn Stream>) -> bool {
    // The view must map each index to the element the expression computes there: the whole
    // pending array in its own layout (a dense C or F layout of one shape is the same map
    // whatever the strides of its extent-1 dimensions).
    let (l, own) = (a.layout(), &e.layout);
    Arc::ptr_eq(&e.stream, stream)
        && e.shape == shape
        && a.shape() == shape
        && l.offset() == 0
        && ((own.is_c_contiguous() && l.is_c_contiguous())
            || (own.is_f_contiguous() && l.is_f_contiguous())
            || l == own)
}

fn run_group(group: &[(&Storage, Arc<Expr>)], why: Reason) -> Result<()> {
    let e0 = &group[0].1;
    count(|s| s.evaluations += 1);
    let single = group.len() == 1
        && !e0.args.iter().any(|a| match a {
            Arg::Array(a) => a.storage.expr().is_some_and(|c| inlinable(a, &c, &e0.shape, &e0.stream)),
            Arg::Scalar(_) => false,
        });
    if single || !can_fuse_on(&e0.device) {
        return with_stream(&e0.device, &e0.stream, || {
            for (s, e) in group {
                if !single {
                    // Without fusion: the operands first, each on its own.
                    let pending: Vec<&Storage> = e.arrays().map(|a| &*a.storage).collect();
                    evaluate(&pending, why)?;
                }
                let out = run_single(e)?;
                trace(why, e, 1, 1, if single { "one op, its own kernel" } else { "op by op: no fused kernels here" });
                s.fulfil(out.into_buffer().expect("a fresh result"));
            }
            Ok(())
        });
    }
    with_stream(&e0.device, &e0.stream, || run_fused(group, why))
}

/// Compute one expression as its op alone (the op's own kernel), into a fresh array.
fn run_single(e: &Expr) -> Result<Array> {
    match e.kind {
        Kind::Op { op, .. } => {
            let ops: Vec<crate::ufunc::Operand<'_>> = e
                .args
                .iter()
                .map(|a| match a {
                    Arg::Array(a) => crate::ufunc::Operand::Array(a),
                    Arg::Scalar(s) => crate::ufunc::Operand::Scalar(*s),
                })
                .collect();
            let r = crate::ufunc::call_op_now(op, &ops, None)?;
            if *r.layout() == e.layout {
                return Ok(r);
            }
            // The op lays its result out by the same rule; should it ever differ, the pending
            // array's layout is the one its views were made with.
            let out = Array::empty_laid_out(&e.device, e.layout.clone(), e.dtype)?;
            r.copy_into(&out)?;
            Ok(out)
        }
        Kind::Cast => {
            let Some(Arg::Array(a)) = e.args.first() else { unreachable!("a cast has one array operand") };
            let out = Array::empty_laid_out(&e.device, e.layout.clone(), e.dtype)?;
            a.copy_into(&out)?;
            Ok(out)
        }
    }
}

/// Where a lowered node reads an operand.
#[derive(Clone, Copy)]
enum Src {
    Leaf(usize),
    Scalar(usize),
    Node(usize),
}

struct Node {
    kind: Kind,
    dtype: DType,
    srcs: Vec<Src>,
}

/// Expressions lowered to one kernel over `shape`.
struct Lowering<'a> {
    shape: &'a [usize],
    stream: &'a Arc<dyn Stream>,
    /// Computed arrays read, broadcast to `shape`, each once.
    leaves: Vec<Array>,
    /// Scalars: bytes in the dtype the loop takes.
    scalars: Vec<(crate::element::ScalarBytes, DType)>,
    nodes: Vec<Node>,
    /// Node of each inlined storage: (address, node), searched linearly (an expression has
    /// at most [`MAX_OPS`] ops).
    memo: Vec<(usize, usize)>,
}

impl Lowering<'_> {
    fn node(&mut self, storage: &Storage, e: &Expr) -> Result<usize> {
        let id = storage as *const Storage as usize;
        if let Some(&(_, k)) = self.memo.iter().find(|(s, _)| *s == id) {
            return Ok(k);
        }
        let loop_in = match e.kind {
            Kind::Op { lp, .. } => lp.dtypes().0,
            Kind::Cast => smallvec::smallvec![e.dtype],
        };
        let mut srcs = Vec::with_capacity(e.args.len());
        for (k, a) in e.args.iter().enumerate() {
            srcs.push(match a {
                Arg::Scalar(s) => {
                    self.scalars.push((scalar_bytes(*s, loop_in[k])?, loop_in[k]));
                    Src::Scalar(self.scalars.len() - 1)
                }
                Arg::Array(a) => match a.storage.expr() {
                    Some(c) if inlinable(a, &c, self.shape, self.stream) => Src::Node(self.node(&a.storage, &c)?),
                    _ => Src::Leaf(self.leaf(a)?),
                },
            });
        }
        self.nodes.push(Node { kind: e.kind, dtype: e.dtype, srcs });
        let k = self.nodes.len() - 1;
        self.memo.push((id, k));
        Ok(k)
    }

    fn leaf(&mut self, a: &Array) -> Result<usize> {
        // A pending operand that is not inlined is computed now, as its own kernel(s).
        a.storage.buffer()?;
        let b = if a.shape() == self.shape { a.clone() } else { a.broadcast_to(self.shape)? };
        if let Some(k) =
            self.leaves.iter().position(|l| l.shares_buffer(&b) && l.dtype() == b.dtype() && l.layout() == b.layout())
        {
            return Ok(k);
        }
        self.leaves.push(b);
        Ok(self.leaves.len() - 1)
    }

    /// The expression's shape, as the kernel cache's key: ops, loops, dtypes, wiring. Built
    /// for every evaluation, so without the formatting machinery.
    fn signature(&self, outputs: &[usize]) -> String {
        fn num(s: &mut String, tag: char, k: usize) {
            s.push(tag);
            if k >= 10 {
                num_digits(s, k / 10);
            }
            s.push(char::from(b'0' + (k % 10) as u8));
            s.push(',');
        }
        fn num_digits(s: &mut String, k: usize) {
            if k >= 10 {
                num_digits(s, k / 10);
            }
            s.push(char::from(b'0' + (k % 10) as u8));
        }
        let mut s = String::with_capacity(24 * self.nodes.len() + 8 * self.leaves.len() + 16);
        for n in &self.nodes {
            match n.kind {
                Kind::Op { op, lp } => {
                    s.push_str(op.name);
                    s.push(':');
                    s.push_str(lp.sig);
                }
                Kind::Cast => {
                    s.push_str("cast:");
                    s.push_str(n.dtype.short());
                }
            }
            s.push('(');
            for src in &n.srcs {
                match *src {
                    Src::Leaf(k) => num(&mut s, 'L', k),
                    Src::Scalar(k) => num(&mut s, 'S', k),
                    Src::Node(k) => num(&mut s, 'N', k),
                }
            }
            s.push(')');
        }
        s.push('|');
        for l in &self.leaves {
            s.push_str(l.dtype().short());
        }
        s.push('|');
        for (_, d) in &self.scalars {
            s.push_str(d.short());
        }
        s.push('|');
        for &o in outputs {
            num(&mut s, 'O', o);
        }
        s
    }

    /// Each node as a block computing `v{k}` from `l{k}` (leaves), `s{k}` (scalars) and
    /// earlier nodes, as its op's own kernel computes it; and the ops' preambles.
    fn node_code(&self) -> (String, Vec<&'static str>) {
        let mut body = String::new();
        let mut preambles: Vec<&'static str> = Vec::new();
        let name = |src: &Src| match src {
            Src::Leaf(k) => format!("l{k}"),
            Src::Scalar(k) => format!("s{k}"),
            Src::Node(k) => format!("v{k}"),
        };
        for (k, n) in self.nodes.iter().enumerate() {
            let oc = n.dtype.c_name();
            match n.kind {
                Kind::Cast => {
                    let _ = writeln!(body, "const {oc} v{k} = xp::cast<{oc}>({});", name(&n.srcs[0]));
                }
                Kind::Op { op, lp } => {
                    if !op.preamble.is_empty() && !preambles.contains(&op.preamble) {
                        preambles.push(op.preamble);
                    }
                    let (lin, _) = lp.dtypes();
                    let _ = writeln!(body, "{oc} v{k};");
                    body.push_str("{\n");
                    for (j, (src, d)) in n.srcs.iter().zip(&lin).enumerate() {
                        let _ = writeln!(body, "  const {c} in{j} = xp::cast<{c}>({});", name(src), c = d.c_name());
                    }
                    let _ = writeln!(body, "  {oc} out0;\n  {}\n  v{k} = out0;\n}}", lp.body.unwrap_or(op.body));
                }
            }
        }
        (body, preambles)
    }

    /// The kernel: each leaf and scalar named once, each node a block as its op's kernel
    /// computes it, the outputs last.
    fn spec(
        &self,
        outputs: &[usize],
        layout: xp_kernels::elementwise::Layout,
        index: xp_kernels::elementwise::IndexWidth,
    ) -> ElementwiseSpec {
        let mut body = String::new();
        let nl = self.leaves.len();
        for (k, l) in self.leaves.iter().enumerate() {
            let _ = writeln!(body, "const {} l{k} = in{k};", l.dtype().c_name());
        }
        for (k, (_, d)) in self.scalars.iter().enumerate() {
            let _ = writeln!(body, "const {} s{k} = in{};", d.c_name(), nl + k);
        }
        let (nodes, preambles) = self.node_code();
        body.push_str(&nodes);
        for (j, o) in outputs.iter().enumerate() {
            let _ = writeln!(body, "out{j} = v{o};");
        }
        let mut stem = String::from("lazy");
        for n in self.nodes.iter().take(4) {
            stem.push('_');
            stem.push_str(n.kind.name());
        }
        ElementwiseSpec {
            op: stem,
            inputs: self
                .leaves
                .iter()
                .map(|l| KOperand::array(l.dtype(), l.dtype()))
                .chain(self.scalars.iter().map(|(_, d)| KOperand::scalar(*d, *d)))
                .collect(),
            outputs: outputs.iter().map(|&o| KOperand::array(self.nodes[o].dtype, self.nodes[o].dtype)).collect(),
            body,
            preamble: preambles.join("\n"),
            layout,
            index,
            fast: None,
        }
    }
}

/// Compute `group` (roots of one device, stream and shape) with one fused kernel.
fn run_fused(group: &[(&Storage, Arc<Expr>)], why: Reason) -> Result<()> {
    let e0 = &group[0].1;
    let device = &e0.device;
    let mut lw = Lowering {
        shape: &e0.shape,
        stream: &e0.stream,
        leaves: Vec::new(),
        scalars: Vec::new(),
        nodes: Vec::new(),
        memo: Vec::new(),
    };
    let mut outputs = Vec::with_capacity(group.len());
    for (s, e) in group {
        outputs.push(lw.node(s, e)?);
    }
    // A root computed while its operands were (another root reading it): done.
    let live: Vec<usize> = (0..group.len()).filter(|&k| group[k].0.is_pending()).collect();
    if live.is_empty() {
        return Ok(());
    }
    let outputs: Vec<usize> = live.iter().map(|&k| outputs[k]).collect();
    let results: Vec<Array> = live
        .iter()
        .zip(&outputs)
        .map(|(&k, &o)| Array::empty_laid_out(device, group[k].1.layout.clone(), lw.nodes[o].dtype))
        .collect::<Result<_>>()?;
    let sig = lw.signature(&outputs);
    // Fortran-ordered results: planned over every operand's transpose, as
    // `launch_elementwise` does (the kernel reads and writes each index alike).
    let flip = results.iter().all(crate::exec::fortran_only);
    let (t_leaves, t_results): (Vec<Array>, Vec<Array>) = if flip {
        (lw.leaves.iter().map(Array::t).collect(), results.iter().map(Array::t).collect())
    } else {
        (Vec::new(), Vec::new())
    };
    let rev_shape: Vec<usize> = e0.shape.iter().rev().copied().collect();
    let (plan_shape, operands) = if flip {
        (&rev_shape, elementwise_operands("lazy", &rev_shape, device, t_leaves.iter().chain(t_results.iter()))?)
    } else {
        (&e0.shape, elementwise_operands("lazy", &e0.shape, device, lw.leaves.iter().chain(results.iter()))?)
    };
    let mut compiled = false;
    if let Some(plan) = plan_elementwise("lazy", plan_shape, &operands, 0, target_of(device))? {
        let (layout, index) = (plan.layout, plan.index);
        let key = KernelKey::Lazy { sig, layout, index };
        let f = match elementwise_kernel(device, key, || {
            compiled = true;
            count(|s| s.compiles += 1);
            let r = lw.spec(&outputs, layout, index).render();
            (r.name, r.code)
        }) {
            Ok(f) => f,
            Err(e) if no_compiler(device, &e) => {
                unfusable().write().push(device_id(device));
                drop(results);
                return run_group(group, why);
            }
            Err(e) => return Err(e),
        };
        let mut lead: Vec<KernelArg<'_>> = Vec::with_capacity(lw.leaves.len() + lw.scalars.len() + results.len());
        for l in &lw.leaves {
            lead.push(l.kernel_arg()?);
        }
        for (b, _) in &lw.scalars {
            lead.push(KernelArg::Value(b));
        }
        for r in &results {
            lead.push(r.kernel_arg_mut()?);
        }
        launch_planned(device, &*f, &plan.config, &lead, &plan.tail, Bindings::default())?;
    }
    count(|s| {
        s.fused_kernels += 1;
        s.fused_ops += lw.nodes.len() as u64;
    });
    trace(why, e0, lw.nodes.len(), outputs.len(), if compiled { "fused, new kernel" } else { "fused" });
    // The transposed views share the results' storages, which move into the pending arrays.
    drop((t_leaves, t_results));
    for (&k, r) in live.iter().zip(results) {
        group[k].0.fulfil(r.into_buffer().expect("a fresh result"));
    }
    Ok(())
}

// ---- the reduction prologue ------------------------------------------------------------------

/// Kernel-parameter bytes an array read by a fused reduction takes (its pointer and its
/// strides over the kept and the reduced dimensions).
const REDUCE_ARRAY_PARAM_BYTES: usize = 8 + 2 * 64;

/// Reduce `x` with `op` over `axes` into `out` with the map of a pending `x` computed inside
/// the reduction kernel (the map is not stored; `x` stays pending). The kernel combines the
/// values in the order the plain reduction of the computed `x` (a fresh C-contiguous array)
/// combines its elements, so the result has the same bits. Returns `false`, having done
/// nothing but compute operands the map cannot inline, when `x` is computed, is a view other
/// than the whole pending array, was made on another stream, or the map would take too many
/// kernel parameters; and on a device without a compiler for fused kernels.
pub(crate) fn reduce_pending(
    device: &Arc<dyn DynDevice>,
    op: &ReduceOp,
    x: &Array,
    axes: &[usize],
    out: &Array,
) -> Result<bool> {
    let Some(e) = x.storage.expr() else { return Ok(false) };
    if !enabled()?
        || !can_fuse_on(device)
        || !Arc::ptr_eq(&e.device, device)
        || !Arc::ptr_eq(&e.stream, &current_stream(device))
        || !inlinable(x, &e, &e.shape, &e.stream)
        || !e.layout.is_c_contiguous()
        || e.shape.len() > MAX_RANK
    {
        return Ok(false);
    }
    env_trace()?;
    let mut lw = Lowering {
        shape: &e.shape,
        stream: &e.stream,
        leaves: Vec::new(),
        scalars: Vec::new(),
        nodes: Vec::new(),
        memo: Vec::new(),
    };
    let root = lw.node(&x.storage, &e)?;
    if !x.is_pending() {
        // Computed while its operands were (a pending operand read it): reduce it as it is.
        return Ok(false);
    }
    if lw.leaves.len() * REDUCE_ARRAY_PARAM_BYTES + lw.scalars.len() * SCALAR_PARAM_BYTES > MAX_PARAM_BYTES {
        return Ok(false);
    }
    // A CPU's cores are the bottleneck of a transcendental map, not its memory: recomputing it
    // for the reduction and again for a later consumer (softmax's exp) costs more than storing it.
    if device.properties().is_host && !lw.nodes.iter().all(|n| cheap_on_cpu(n.kind)) {
        return Ok(false);
    }
    let plan = plan_reduce(op, &e.shape, &c_strides(&e.shape), axes, target_of(device))?;
    let Some(first) = plan.launches.first() else { return Ok(true) };
    let strides: Vec<&[isize]> = lw.leaves.iter().map(|l| l.strides()).collect();
    let joint = collapse_joint(&e.shape, &strides, axes);
    let span = |l: &Array| -> usize {
        l.shape().iter().zip(l.strides()).map(|(&n, &s)| n.saturating_sub(1) * s.unsigned_abs()).sum()
    };
    if plan.index == IndexWidth::I32 && lw.leaves.iter().any(|l| span(l) >= 1 << 30) {
        return Ok(false);
    }
    let mut compiled = false;
    let key = KernelKey::Named(format!("lazyred|{}|{}", first.kernel.name, lw.signature(&[root])));
    let fused = kernel(device, key, || {
        compiled = true;
        count(|s| s.compiles += 1);
        let (body, preambles) = lw.node_code();
        let src = FusedSource {
            arrays: lw.leaves.iter().map(|l| l.dtype()).collect(),
            scalars: lw.scalars.iter().map(|(_, d)| *d).collect(),
            body,
            result: format!("v{root}"),
            preamble: preambles.join("\n"),
        };
        let r = render_reduce_fused(op, &src, plan.index);
        (r.name, r.code)
    });
    let fused = match fused {
        Ok(f) => f,
        Err(err) if no_compiler(device, &err) => {
            unfusable().write().push(device_id(device));
            return Ok(false);
        }
        Err(err) => return Err(err),
    };
    let value = |a: PlanArg| a.value_bytes().expect("a by-value argument");
    let mut values: Vec<Vec<u8>> = Vec::with_capacity(2 * lw.leaves.len() + 2);
    for k in 0..lw.leaves.len() {
        values.push(value(PlanArg::strides(&joint.kstrides[k])));
        values.push(value(PlanArg::strides(&joint.rstrides[k])));
    }
    values.push(value(PlanArg::shape(&joint.kshape)));
    values.push(value(PlanArg::shape(&joint.rshape)));
    let mut lead: Vec<KernelArg<'_>> = Vec::with_capacity(3 * lw.leaves.len() + lw.scalars.len() + 2);
    for (k, l) in lw.leaves.iter().enumerate() {
        lead.push(l.kernel_arg()?);
        lead.push(KernelArg::Value(&values[2 * k]));
        lead.push(KernelArg::Value(&values[2 * k + 1]));
    }
    for (b, _) in &lw.scalars {
        lead.push(KernelArg::Value(b));
    }
    let n = values.len();
    lead.push(KernelArg::Value(&values[n - 2]));
    lead.push(KernelArg::Value(&values[n - 1]));
    let scratch =
        if plan.scratch_bytes > 0 { Some(device.alloc(plan.scratch_bytes, &current_stream(device))?) } else { None };
    let bind = Bindings { input: None, output: Some(out), scratch: scratch.as_ref(), operands: &[] };
    let args: Vec<PlanArg> =
        first.args.iter().map(|a| if matches!(a, PlanArg::Input { .. }) { PlanArg::Null } else { a.clone() }).collect();
    launch_planned(device, &*fused, &first.config, &lead, &args, bind)?;
    run_launches(device, &plan.launches[1..], bind)?;
    count(|s| {
        s.fused_kernels += 1;
        s.fused_ops += lw.nodes.len() as u64;
    });
    trace(
        Reason::Consumer,
        &e,
        lw.nodes.len(),
        1,
        if compiled { "reduced in the reduction's kernel, new kernel" } else { "reduced in the reduction's kernel" },
    );
    Ok(true)
}

/// Ops a CPU computes in a few instructions an element, so that computing them again inside a
/// reduction costs less than writing and reading their values.
fn cheap_on_cpu(kind: Kind) -> bool {
    const CHEAP: &[&str] = &[
        "add",
        "subtract",
        "multiply",
        "negative",
        "positive",
        "absolute",
        "square",
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "logical_and",
        "logical_or",
        "logical_xor",
        "logical_not",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "invert",
        "where",
        "clip",
        "copysign",
        "sign",
        "floor",
        "ceil",
        "trunc",
        "rint",
        "conjugate",
        "true_divide",
        "divide",
        "isnan",
        "isinf",
        "isfinite",
        "signbit",
    ];
    match kind {
        Kind::Cast => true,
        Kind::Op { op, .. } => CHEAP.contains(&op.name),
    }
}

/// Whether `e`, from compiling a fused kernel on `device`, says that the CPU has no C++
/// compiler (fused kernels are then computed op by op there).
fn no_compiler(device: &Arc<dyn DynDevice>, e: &Error) -> bool {
    device.properties().is_host && matches!(e, Error::Compile { log, .. } if log.contains("a C++ compiler is needed"))
}

fn trace(why: Reason, e: &Expr, ops: usize, outputs: usize, how: &str) {
    if !env_trace().unwrap_or(false) {
        return;
    }
    eprintln!(
        "xp fusion: {} on {}: {ops} op(s) ending in {}, {outputs} output(s) of shape {:?} {}: {how}",
        why.label(),
        e.device.label(),
        e.kind.name(),
        e.shape,
        e.dtype,
    );
}
