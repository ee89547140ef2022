//! The device search of [`super::KDTree`]: one thread per query point, each an iterative
//! depth-first search of the tree's flat arrays with an explicit stack, the same steps as the
//! host search (see the tree's docs), and the launches that run it.
//!
//! The tree's arrays on the device: `nodes` (4 int32 a node: the split dimension, or -1 for a
//! leaf; the left child, the right one following it; the node's points `start..end` in the
//! tree's order), `splits` (float64 a node), `cells` (`2m` float64 a node: the lower corner,
//! then the upper one), `points` (`(n, m)` float64 in the tree's order) and `index` (int32, the
//! row of `data` of each point).
//!
//! A kernel is generated for each norm (p = 1, 2, inf, any other p), each largest `k` of
//! [`KMAX`] (the k-best list is `KMAX` registers of distance and index, kept sorted by an
//! unrolled insertion that moves the displaced entries down one place) and each point dimension
//! 2, 3 (the query in registers) or any other (the query read from memory).

use xp_kernels::plan::{plan_flat, PlanArg, PlannedLaunch, Target};
use xp_kernels::render::Rendered;

/// The deepest stack of the search: a tree deeper than this is searched on the host.
pub(crate) const STACK: usize = 64;

/// The sizes of the k-best list the kernels are generated for (the smallest that holds `k`).
pub(crate) const KMAX: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// The point dimensions with a kernel of their own (0: any dimension).
const DIMS: [usize; 3] = [2, 3, 0];

/// The norm of a search, as the kernels are generated for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KernelNorm {
    One,
    Two,
    Inf,
    /// Any other p: `|t|^p` summed, the sum raised to `1/p`.
    P,
}

impl KernelNorm {
    fn code(self) -> (u32, &'static str) {
        match self {
            KernelNorm::P => (0, "pany"),
            KernelNorm::One => (1, "p1"),
            KernelNorm::Two => (2, "p2"),
            KernelNorm::Inf => (3, "pinf"),
        }
    }
}

/// The search, shared by every kernel of this file (guarded, so that several kernels can share
/// one translation unit).
const SEARCH: &str = r#"
#ifndef XP_KDTREE_SEARCH_H
#define XP_KDTREE_SEARCH_H
#define XP_KDTREE_STACK 64
namespace xp_kdtree {
// NORM: 1 is p = 1, 2 is p = 2, 3 is p = inf, 0 any other p. Distances are compared as powers
// (sum |t|^p, max |t| for p = inf) and rooted at the end, as the host search does.
template <int NORM> XP_DEVICE double term(double t, double p) {
  if (NORM == 2) return t * t;
  if (NORM == 0) return pow(fabs(t), p);
  return fabs(t);
}
template <int NORM> XP_DEVICE double combine(double acc, double t) { return NORM == 3 ? fmax(acc, t) : acc + t; }
// (ad, ai) after (bd, bi) in the order of the answers: by distance, then by index.
XP_DEVICE bool worse(double ad, int ai, double bd, int bi) { return ad > bd || (ad == bd && ai > bi); }

// The query point: M coordinates in registers, or (M = 0) read from memory. Loops over the
// coordinates have a constant trip count for M > 0, which the compilers unroll.
template <int M> struct Query {
  double v[M];
  XP_DEVICE void load(const double* q, int) {
#pragma unroll
    for (int d = 0; d < M; ++d) v[d] = q[d];
  }
  XP_DEVICE int dims(int) const { return M; }
  XP_DEVICE double at(int d) const { return v[d]; }
  // A coordinate chosen at run time, without indexing the registers.
  XP_DEVICE double pick(int dim) const {
    double r = v[0];
#pragma unroll
    for (int d = 1; d < M; ++d) r = d == dim ? v[d] : r;
    return r;
  }
};
template <> struct Query<0> {
  const double* v;
  int m;
  XP_DEVICE void load(const double* q, int mm) { v = q; m = mm; }
  XP_DEVICE int dims(int) const { return m; }
  XP_DEVICE double at(int d) const { return v[d]; }
  XP_DEVICE double pick(int dim) const { return v[dim]; }
};

// The distance (as a power) from q to a cell: per dimension max(lo - q, q - hi, 0).
template <int NORM, int M> XP_DEVICE double cell_distance(const double* __restrict__ cell, const Query<M>& q, int m, double p) {
  const int mm = q.dims(m);
  double acc = 0.0;
  for (int d = 0; d < mm; ++d) {
    const double t = fmax(fmax(cell[d] - q.at(d), q.at(d) - cell[mm + d]), 0.0);
    acc = combine<NORM>(acc, term<NORM>(t, p));
  }
  return acc;
}

template <int NORM, int KMAX, int M>
XP_DEVICE void search(xp::i64 qi, const double* __restrict__ qs, const int* __restrict__ nodes,
                      const double* __restrict__ splits, const double* __restrict__ cells,
                      const double* __restrict__ pts, const int* __restrict__ index, double* __restrict__ out_d,
                      xp::i64* __restrict__ out_i, int m, int k, int n, int near_same, double p, double inv_p,
                      double eps_factor, double bound) {
  Query<M> q;
  q.load(qs + qi * (xp::i64)m, m);
  const int mm = q.dims(m);
  const double inf = __longlong_as_double(0x7ff0000000000000LL);
  // The k best so far, sorted; empty places are (inf, INT_MAX), after every real neighbour
  // (a neighbour is nearer than the bound, so finite).
  double bd[KMAX];
  int bi[KMAX];
#pragma unroll
  for (int j = 0; j < KMAX; ++j) {
    bd[j] = inf;
    bi[j] = 0x7fffffff;
  }
  double kd = inf;
  int ki = 0x7fffffff;
  int stack_node[XP_KDTREE_STACK];
  double stack_rd[XP_KDTREE_STACK];
  int top = 0;
  int node = 0;
  double rd = cell_distance<NORM, M>(cells, q, m, p);
  for (;;) {
    // A node is searched unless its cell is not nearer than the bound, or farther than the
    // k-th neighbour scaled by the eps factor (never while fewer than k are known: kd = inf).
    if (!(rd >= bound) && !(rd * eps_factor > kd)) {
      const int dim = nodes[4 * node];
      if (dim < 0) {
        const int end = nodes[4 * node + 3];
        for (int pos = nodes[4 * node + 2]; pos < end; ++pos) {
          const double* pp = pts + (xp::i64)pos * mm;
          double acc = 0.0;
          for (int d = 0; d < mm; ++d) acc = combine<NORM>(acc, term<NORM>(pp[d] - q.at(d), p));
          const int ci = index[pos];
          if (acc >= bound || acc != acc || !worse(kd, ki, acc, ci)) continue;
          double cd = acc;
          int cx = ci;
#pragma unroll
          for (int j = 0; j < KMAX; ++j) {
            if (j < k && worse(bd[j], bi[j], cd, cx)) {
              const double td = bd[j];
              const int tx = bi[j];
              bd[j] = cd;
              bi[j] = cx;
              cd = td;
              cx = tx;
            }
          }
#pragma unroll
          for (int j = 0; j < KMAX; ++j) {
            if (j == k - 1) {
              kd = bd[j];
              ki = bi[j];
            }
          }
        }
      } else {
        const int left = nodes[4 * node + 1];
        const bool lower = q.pick(dim) < splits[node];
        const int near = lower ? left : left + 1;
        const int far = lower ? left + 1 : left;
        // The far child waits on the stack; the near one is searched now. Its cell distance is
        // its parent's when the split lies inside the parent's cell (near_same).
        if (top < XP_KDTREE_STACK) {
          stack_node[top] = far;
          stack_rd[top] = cell_distance<NORM, M>(cells + (xp::i64)far * 2 * mm, q, m, p);
          ++top;
        }
        if (!near_same) rd = cell_distance<NORM, M>(cells + (xp::i64)near * 2 * mm, q, m, p);
        node = near;
        continue;
      }
    }
    if (top == 0) break;
    --top;
    node = stack_node[top];
    rd = stack_rd[top];
  }
  double* od = out_d + qi * (xp::i64)k;
  xp::i64* oi = out_i + qi * (xp::i64)k;
#pragma unroll
  for (int j = 0; j < KMAX; ++j) {
    if (j < k) {
      const double s = bd[j];
      const bool found = s != inf;
      od[j] = !found ? inf : NORM == 2 ? sqrt(s) : NORM == 0 ? pow(s, inv_p) : s;
      oi[j] = found ? (xp::i64)bi[j] : (xp::i64)n;
    }
  }
}
}  // namespace xp_kdtree
#endif
"#;

/// The leaf key of each query (the first point of the leaf its coordinates fall in): queries
/// sorted by it search neighbouring cells side by side.
const LEAF_KEY: &str = r#"
extern "C" __global__ void xp_kdtree_leaf_key(const double* __restrict__ qs, const int* __restrict__ nodes,
                                              const double* __restrict__ splits, int* __restrict__ keys,
                                              xp::i64 count, xp::i32 m) {
  XP_FOR_EACH(xp::i64, i, count) {
    int node = 0;
    int dim = nodes[0];
    while (dim >= 0) {
      node = nodes[4 * node + 1] + (qs[i * (xp::i64)m + dim] < splits[node] ? 0 : 1);
      dim = nodes[4 * node];
    }
    keys[i] = nodes[4 * node + 2];
  }
}
"#;

/// The kernel keyed by the leaf of each query.
pub(crate) fn leaf_key_kernel() -> Rendered {
    Rendered { name: "xp_kdtree_leaf_key".to_string(), code: LEAF_KEY.to_string() }
}

/// The search kernel of `norm`, a k-best list of `kmax` and points of dimension `dim` (0: any).
///
/// Parameters: `const double* qs, const xp::i64* order, const int* nodes, const double* splits,
/// const double* cells, const double* points, const int* index, double* out_d, xp::i64* out_i,
/// xp::i64 count, xp::i32 m, xp::i32 k, xp::i32 n, xp::i32 near_same, double p, double inv_p,
/// double eps_factor, double bound`. Thread `i` answers query `order[i]` (`i` when `order` is
/// null).
pub(crate) fn query_kernel(norm: KernelNorm, kmax: usize, dim: usize) -> Rendered {
    let (nc, tag) = norm.code();
    let name = format!("xp_kdtree_query_{tag}_k{kmax}_m{dim}");
    let body = format!(
        "extern \"C\" __global__ void {name}(const double* __restrict__ qs, const xp::i64* __restrict__ order,
    const int* __restrict__ nodes, const double* __restrict__ splits, const double* __restrict__ cells,
    const double* __restrict__ pts, const int* __restrict__ index, double* __restrict__ out_d,
    xp::i64* __restrict__ out_i, xp::i64 count, xp::i32 m, xp::i32 k, xp::i32 n, xp::i32 near_same,
    double p, double inv_p, double eps_factor, double bound) {{
  XP_FOR_EACH(xp::i64, i, count) {{
    const xp::i64 qi = order ? order[i] : i;
    xp_kdtree::search<{nc}, {kmax}, {dim}>(qi, qs, nodes, splits, cells, pts, index, out_d, out_i, m, k, n,
                                         near_same, p, inv_p, eps_factor, bound);
  }}
}}
"
    );
    Rendered { name, code: format!("{SEARCH}\n{body}") }
}

/// The smallest list size of [`KMAX`] that holds `k` (`None` above the largest).
pub(crate) fn kmax_for(k: usize) -> Option<usize> {
    KMAX.iter().copied().find(|&s| s >= k)
}

/// The kernel dimension of points of dimension `m`.
pub(crate) fn dim_for(m: usize) -> usize {
    if DIMS.contains(&m) {
        m
    } else {
        0
    }
}

fn f64_arg(x: f64) -> PlanArg {
    PlanArg::I64(x.to_bits() as i64)
}

/// The launch of the leaf keys of `count` queries: operands 0 the queries, 1 the nodes, 2 the
/// splits, 3 the int32 keys written.
pub(crate) fn plan_leaf_key(count: usize, m: usize, target: Target) -> PlannedLaunch {
    let mut args: Vec<PlanArg> = (0..4).map(PlanArg::Operand).collect();
    args.extend([PlanArg::I64(count as i64), PlanArg::I32(m as i32)]);
    PlannedLaunch { kernel: leaf_key_kernel(), config: plan_flat(count, target), args }
}

/// What a search launch needs beside its arrays.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchParams {
    pub norm: KernelNorm,
    pub count: usize,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub near_same: bool,
    pub p: f64,
    pub eps_factor: f64,
    pub bound: f64,
    /// Whether operand 1 is the order of the queries (else the threads take them in order).
    pub ordered: bool,
}

/// The launch of the search: operands 0 the queries `(count, m)`, 1 the order (when
/// `ordered`), 2 nodes, 3 splits, 4 cells, 5 points, 6 index, 7 the distances and 8 the indices
/// written, `(count, k)` each. `k` must be at most the largest of [`KMAX`].
pub(crate) fn plan_search(s: &SearchParams, target: Target) -> PlannedLaunch {
    let kmax = kmax_for(s.k).unwrap_or(KMAX[KMAX.len() - 1]);
    let mut args = vec![PlanArg::Operand(0), if s.ordered { PlanArg::Operand(1) } else { PlanArg::Null }];
    args.extend((2..9).map(PlanArg::Operand));
    args.extend([
        PlanArg::I64(s.count as i64),
        PlanArg::I32(s.m as i32),
        PlanArg::I32(s.k as i32),
        PlanArg::I32(s.n as i32),
        PlanArg::I32(s.near_same as i32),
        f64_arg(s.p),
        f64_arg(1.0 / s.p),
        f64_arg(s.eps_factor),
        f64_arg(s.bound),
    ]);
    PlannedLaunch { kernel: query_kernel(s.norm, kmax, dim_for(s.m)), config: plan_flat(s.count, target), args }
}

/// Every kernel of this file.
pub(crate) fn all() -> Vec<Rendered> {
    let mut v = vec![leaf_key_kernel()];
    for norm in [KernelNorm::Two, KernelNorm::One, KernelNorm::Inf, KernelNorm::P] {
        for kmax in KMAX {
            for dim in DIMS {
                v.push(query_kernel(norm, kmax, dim));
            }
        }
    }
    v
}
