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

use std::fmt::Write;

use xp_backend_api::{DType, Error, LaunchConfig, Result};

use crate::elementwise::{IndexWidth, Rendered};

/// The engine every reduction and scan kernel is written against (guarded, so any number of
/// kernels may share a translation unit).
pub(crate) const ENGINE: &str = r#"
// The reduction engine: emitted (once per translation unit, behind its guard) before every
// reduction and scan kernel. An op is a struct with
//   typedef In, Acc, Out;
//   static Acc identity();
//   static Acc map(In in0, xp::i64 j);             // one element, j its index in the range
//   static void combine(Acc& a, const Acc& b);      // a holds earlier elements than b
//   static void post(const Acc& a, xp::i64 n, xp::i64 ddof, Out& out0);
// Offsets are in elements and signed; `I` is the index type (xp::i32 or xp::i64).
#ifndef XP_REDUCE_ENGINE
#define XP_REDUCE_ENGINE 1
namespace xp {
namespace red {

template <class I> XP_DEVICE I imin(I a, I b) { return b < a ? b : a; }

// One element of a range: an input element through `map`, or an accumulator of an earlier pass.
template <class Op, bool PART, class T> XP_DEVICE typename Op::Acc load(const T& v, i64 j) {
  if constexpr (PART) {
    (void)j;
    return v;
  } else {
    return Op::map(v, j);
  }
}

// Where a result goes: into the partials of an earlier pass (`pout[o + s * n_out]`), or
// through `post` into the output.
template <class Op, class I>
XP_DEVICE void emit(typename Op::Out* __restrict__ out, typename Op::Acc* __restrict__ pout, I o, I s, I n_out,
                    const typename Op::Acc& a, i64 n_post, i64 ddof) {
  if (pout) {
    pout[o + s * n_out] = a;
  } else {
    typename Op::Out r;
    Op::post(a, n_post, ddof, r);
    out[o] = r;
  }
}

#if defined(XP_CPU)
// ---------------------------------------------------------------------------------------------
// CPU: one work item (a block of one thread) per output, or per tile of outputs; no barriers.
// ---------------------------------------------------------------------------------------------
constexpr int kLanes = 8;               // independent accumulators: the compiler vectorises across them
constexpr int kBlock = 512;             // elements per block; blocks are then combined pairwise
constexpr int kSweep = 8;               // rows read together along a tile in tile mode
constexpr int kRowBlock = 64;           // rows per inner accumulator in tile mode; blocks combined pairwise
constexpr int kTileBytes = 96 * 1024;   // stack bytes for one tile's accumulators (inner and cascade)

// The reduction of elements [j0, j1) of one output whose first element is `p`: blocks of
// kBlock elements over kLanes lanes, the blocks combined in a binary cascade, so that the
// rounding error of a float sum grows with the logarithm of the length.
template <class Op, bool PART, class T, class I>
inline typename Op::Acc cpu_range(const T* __restrict__ p, I j0, I j1, const Shape& rs, const Strides& rst) {
  typedef typename Op::Acc Acc;
  Acc levels[64];
  unsigned long long count = 0;
  const bool r1 = rs.ndim == 1;
  const I st = (I)rst.s[0];
  for (I b0 = j0; b0 < j1; b0 += (I)kBlock) {
    const I b1 = imin<I>(j1, b0 + (I)kBlock);
    Acc lane[kLanes];
    for (int l = 0; l < kLanes; ++l) lane[l] = Op::identity();
    I j = b0;
    if (r1 && st == 1) {
      for (; j + kLanes <= b1; j += kLanes)
        for (int l = 0; l < kLanes; ++l) Op::combine(lane[l], load<Op, PART>(p[j + l], (i64)(j + l)));
    } else if (r1) {
      for (; j + kLanes <= b1; j += kLanes)
        for (int l = 0; l < kLanes; ++l) Op::combine(lane[l], load<Op, PART>(p[(j + l) * st], (i64)(j + l)));
    }
    for (int l = 0; j < b1; ++j, ++l)
      Op::combine(lane[l & (kLanes - 1)], load<Op, PART>(p[offset_of<I>(j, rs, rst)], (i64)j));
    for (int w = 1; w < kLanes; w *= 2)
      for (int l = 0; l + w < kLanes; l += 2 * w) Op::combine(lane[l], lane[l + w]);
    Acc blk = lane[0];
    unsigned long long c = count++;
    int lv = 0;
    while (c & 1ull) {
      Op::combine(levels[lv], blk);
      blk = levels[lv];
      c >>= 1;
      ++lv;
    }
    levels[lv] = blk;
  }
  Acc acc = Op::identity();
  for (int lv = 63; lv >= 0; --lv)
    if ((count >> lv) & 1ull) Op::combine(acc, levels[lv]);
  return acc;
}

// Tile mode keeps, for each output of a tile, an inner accumulator of kRowBlock rows and one
// per level of the binary cascade that combines those blocks: `tile_levels(seg)` levels for a
// segment of `seg` rows. The tile is as wide as these arrays allow in kTileBytes (the planner
// asks for no wider).
template <class I> inline int tile_levels(I seg) {
  unsigned long long blocks = (unsigned long long)((seg + (I)kRowBlock - 1) / (I)kRowBlock);
  int n = 0;
  for (; blocks; blocks >>= 1) ++n;
  return n;
}

template <class Acc, class I> inline I tile_width(i64 tile, I seg) {
  const I fit = (I)(kTileBytes / ((tile_levels<I>(seg) + 1) * (i64)sizeof(Acc)));
  const I tw = (I)tile < fit ? (I)tile : fit;
  return tw > 0 ? tw : (I)1;
}

// One row `j` of the reduced range folded into the `nt` accumulators `a` of a tile whose row
// starts at `q` (neighbouring outputs `kst` elements apart).
template <class Op, bool PART, class T, class I>
inline void tile_row(typename Op::Acc* __restrict__ a, const T* __restrict__ q, I kst, I nt, I j) {
  if (kst == 1) {
    for (I t = 0; t < nt; ++t) Op::combine(a[t], load<Op, PART>(q[t], (i64)j));
  } else {
    for (I t = 0; t < nt; ++t) Op::combine(a[t], load<Op, PART>(q[t * kst], (i64)j));
  }
}

// Tile mode: `nt` outputs whose first elements are `p + t * kst`, reduced together over rows
// [j0, j1) of the reduced range. The rows are walked in order, each read along the tile (one
// sequential stream when kst == 1 and the tile spans whole rows), into inner accumulators of
// kRowBlock rows; the blocks are combined in a binary cascade, as in cpu_range, over the
// arrays of `lev` (`nlev` arrays of `nt`). Returns the array holding the result, or null when
// the range is empty.
template <class Op, bool PART, class T, class I>
inline typename Op::Acc* cpu_tile(const T* __restrict__ p, I kst, I nt, I j0, I j1, const Shape& rs,
                                  const Strides& rst, typename Op::Acc* __restrict__ inner,
                                  typename Op::Acc* __restrict__ lev) {
  typedef typename Op::Acc Acc;
  const bool r1 = rs.ndim == 1;
  const I st = (I)rst.s[0];
  unsigned long long count = 0;
  for (I b0 = j0; b0 < j1; b0 += (I)kRowBlock) {
    const I b1 = imin<I>(j1, b0 + (I)kRowBlock);
    for (I t = 0; t < nt; ++t) inner[t] = Op::identity();
    I j = b0;
    if (r1 && kst == 1) {
      // Sweeps of kSweep rows: each accumulator is loaded and stored once for kSweep
      // elements, which still join it in row order.
      for (; j + (I)kSweep <= b1; j += (I)kSweep) {
        const T* __restrict__ q = p + j * st;
        for (I t = 0; t < nt; ++t) {
          Acc a = inner[t];
          for (int r = 0; r < kSweep; ++r) Op::combine(a, load<Op, PART>(q[t + (I)r * st], (i64)(j + r)));
          inner[t] = a;
        }
      }
    }
    for (; j < b1; ++j) tile_row<Op, PART>(inner, p + (r1 ? j * st : offset_of<I>(j, rs, rst)), kst, nt, j);
    // The block joins the cascade: equal levels merge (the earlier one on the left).
    unsigned long long c = count++;
    int lv = 0;
    Acc* cur = inner;
    while (c & 1ull) {
      Acc* __restrict__ l = lev + (I)lv * nt;
      for (I t = 0; t < nt; ++t) Op::combine(l[t], cur[t]);
      cur = l;
      c >>= 1;
      ++lv;
    }
    Acc* __restrict__ l = lev + (I)lv * nt;
    for (I t = 0; t < nt; ++t) l[t] = cur[t];
  }
  if (count == 0) return nullptr;
  int top = 63;
  while (!((count >> top) & 1ull)) --top;
  Acc* __restrict__ r = lev + (I)top * nt;
  for (int lv = top - 1; lv >= 0; --lv)
    if ((count >> lv) & 1ull) {
      const Acc* __restrict__ l = lev + (I)lv * nt;
      for (I t = 0; t < nt; ++t) Op::combine(r[t], l[t]);
    }
  return r;
}

template <class Op, class I>
inline void run(const typename Op::In* __restrict__ in, const typename Op::Acc* __restrict__ pin,
                typename Op::Out* __restrict__ out, typename Op::Acc* __restrict__ pout, const Shape& ks,
                const Strides& kst, const Shape& rs, const Strides& rst, I n_out, I n_red, I seg, i64 tile, i64 n_post,
                i64 ddof) {
  typedef typename Op::Acc Acc;
  const I s = (I)blockIdx.y;
  const I j0 = imin<I>(n_red, s * seg);
  const I j1 = imin<I>(n_red, j0 + seg);
  if (tile == 0) {
    for (I o = (I)blockIdx.x; o < n_out; o += (I)gridDim.x) {
      const I b = offset_of<I>(o, ks, kst);
      const Acc a = pin ? cpu_range<Op, true>(pin + b, j0, j1, rs, rst) : cpu_range<Op, false>(in + b, j0, j1, rs, rst);
      emit<Op, I>(out, pout, o, s, n_out, a, n_post, ddof);
    }
    return;
  }
  // Tiles of up to `tile` neighbouring outputs along the last kept dimension, as wide as the
  // accumulators for a segment of `seg` rows fit in kTileBytes.
  const I klast = (I)ks.dims[ks.ndim - 1];
  const I kstl = (I)kst.s[ks.ndim - 1];
  const I tw = tile_width<Acc, I>(tile, seg);
  const I tpr = (klast + tw - 1) / tw;
  const I items = klast > 0 ? (n_out / klast) * tpr : 0;
  alignas(64) unsigned char buf[kTileBytes];
  Acc* const inner = reinterpret_cast<Acc*>(buf);
  Acc* const lev = inner + tw;
  for (I w = (I)blockIdx.x; w < items; w += (I)gridDim.x) {
    const I o0 = (w / tpr) * klast + (w % tpr) * tw;
    const I nt = imin<I>(tw, klast - (w % tpr) * tw);
    const I b = offset_of<I>(o0, ks, kst);
    const Acc* r = pin ? cpu_tile<Op, true>(pin + b, kstl, nt, j0, j1, rs, rst, inner, lev)
                       : cpu_tile<Op, false>(in + b, kstl, nt, j0, j1, rs, rst, inner, lev);
    for (I t = 0; t < nt; ++t) emit<Op, I>(out, pout, o0 + t, s, n_out, r ? r[t] : Op::identity(), n_post, ddof);
  }
}

#else
// ---------------------------------------------------------------------------------------------
// GPU: a group of blockDim.x threads per output (1: a thread per output; a power of two up to
// the warp; or a multiple of the warp with blockDim.y == 1), blockDim.y groups per block,
// outputs spread over blockIdx.x, the reduced range split into segments over blockIdx.y.
// ---------------------------------------------------------------------------------------------

// Combine the values of a group's threads; thread 0 of the group gets the result.
template <class Op> XP_DEVICE typename Op::Acc group_reduce(typename Op::Acc v) {
  typedef typename Op::Acc Acc;
  const unsigned gx = blockDim.x;
  if (gx == 1) return v;
  const unsigned ws = (unsigned)warpSize;
  const unsigned w = gx < ws ? gx : ws;
  for (unsigned d = w / 2; d > 0; d >>= 1) {
    const Acc o = xp::shfl_down(v, d, (int)w);
    Op::combine(v, o);
  }
  if (gx <= ws) return v;
  __shared__ Acc sh[32];
  const unsigned lane = threadIdx.x % ws, wid = threadIdx.x / ws, nw = gx / ws;
  xp::gpu_block_sync();
  if (lane == 0) sh[wid] = v;
  xp::gpu_block_sync();
  if (wid == 0) {
    v = lane < nw ? sh[lane] : Op::identity();
    for (unsigned d = ws / 2; d > 0; d >>= 1) {
      const Acc o = xp::shfl_down(v, d, (int)ws);
      Op::combine(v, o);
    }
  }
  return v;
}

// This thread's share of elements [g0, j1) of one output, whose first element is `p`: indices
// g0 + tid, g0 + tid + step, ... Loads are unrolled (and 16-byte wide where the range is
// contiguous and aligned); the thread's accumulator is folded every 64 elements.
template <class Op, bool PART, class T, class I>
XP_DEVICE typename Op::Acc gpu_range(const T* __restrict__ p, I g0, I j1, I tid, I step, const Shape& rs,
                                     const Strides& rst) {
  typedef typename Op::Acc Acc;
  Acc acc = Op::identity();
  if (g0 >= j1) return acc;
  const I st = (I)rst.s[0];
  if (rs.ndim == 1) {
    if constexpr (!PART && 16 % sizeof(T) == 0 && sizeof(T) < 16) {
      const unsigned long long addr = (unsigned long long)(p + g0);
      if (st == 1 && addr % sizeof(T) == 0) {
        constexpr int VE = 16 / (int)sizeof(T);
        struct alignas(16) Vec { T e[VE]; };
        const T* __restrict__ q = p + g0;
        const I len = j1 - g0;
        const I head = imin<I>(len, (I)(((16u - (unsigned)(addr & 15u)) & 15u) / (unsigned)sizeof(T)));
        for (I k = tid; k < head; k += step) Op::combine(acc, Op::map(q[k], (i64)(g0 + k)));
        const Vec* __restrict__ qv = (const Vec*)(q + head);
        const I nv = (len - head) / (I)VE;
        const I jv = g0 + head;
        I v = tid;
        while (v < nv) {
          Acc part = Op::identity();
          const I vend = imin<I>(nv, v + step * 16);
          for (; v + 3 * step < vend; v += 4 * step) {
            const Vec x0 = qv[v], x1 = qv[v + step], x2 = qv[v + 2 * step], x3 = qv[v + 3 * step];
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x0.e[e], (i64)(jv + v * VE + e)));
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x1.e[e], (i64)(jv + (v + step) * VE + e)));
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x2.e[e], (i64)(jv + (v + 2 * step) * VE + e)));
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x3.e[e], (i64)(jv + (v + 3 * step) * VE + e)));
          }
          for (; v < vend; v += step) {
            const Vec x0 = qv[v];
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x0.e[e], (i64)(jv + v * VE + e)));
          }
          Op::combine(acc, part);
        }
        for (I k = head + nv * (I)VE + tid; k < len; k += step) Op::combine(acc, Op::map(q[k], (i64)(g0 + k)));
        return acc;
      }
    }
    I j = g0 + tid;
    while (j < j1) {
      Acc part = Op::identity();
      const I jend = imin<I>(j1, j + step * 64);
      for (; j + 3 * step < jend; j += 4 * step) {
        const T x0 = p[j * st], x1 = p[(j + step) * st], x2 = p[(j + 2 * step) * st], x3 = p[(j + 3 * step) * st];
        Op::combine(part, load<Op, PART>(x0, (i64)j));
        Op::combine(part, load<Op, PART>(x1, (i64)(j + step)));
        Op::combine(part, load<Op, PART>(x2, (i64)(j + 2 * step)));
        Op::combine(part, load<Op, PART>(x3, (i64)(j + 3 * step)));
      }
      for (; j < jend; j += step) Op::combine(part, load<Op, PART>(p[j * st], (i64)j));
      Op::combine(acc, part);
    }
    return acc;
  }
  I j = g0 + tid;
  while (j < j1) {
    Acc part = Op::identity();
    const I jend = imin<I>(j1, j + step * 64);
    for (; j < jend; j += step) Op::combine(part, load<Op, PART>(p[offset_of<I>(j, rs, rst)], (i64)j));
    Op::combine(acc, part);
  }
  return acc;
}

template <class Op, class I>
XP_DEVICE void run(const typename Op::In* __restrict__ in, const typename Op::Acc* __restrict__ pin,
                   typename Op::Out* __restrict__ out, typename Op::Acc* __restrict__ pout, const Shape& ks,
                   const Strides& kst, const Shape& rs, const Strides& rst, I n_out, I n_red, I seg, i64 tile,
                   i64 n_post, i64 ddof) {
  typedef typename Op::Acc Acc;
  (void)tile;
  const I s = (I)blockIdx.y;
  const I j0 = imin<I>(n_red, s * seg);
  const I j1 = imin<I>(n_red, j0 + seg);
  const I per = (I)blockDim.y;
  const I tid = (I)threadIdx.x, step = (I)blockDim.x;
  // Every thread of a block runs the same iterations (group_reduce may hold a barrier).
  for (I o0 = (I)blockIdx.x * per; o0 < n_out; o0 += (I)gridDim.x * per) {
    const I o = o0 + (I)threadIdx.y;
    Acc a = Op::identity();
    if (o < n_out) {
      const I b = offset_of<I>(o, ks, kst);
      a = pin ? gpu_range<Op, true>(pin + b, j0, j1, tid, step, rs, rst)
              : gpu_range<Op, false>(in + b, j0, j1, tid, step, rs, rst);
    }
    a = group_reduce<Op>(a);
    if (tid == 0 && o < n_out) emit<Op, I>(out, pout, o, s, n_out, a, n_post, ddof);
  }
}
#endif

}  // namespace red
}  // namespace xp
#endif  // XP_REDUCE_ENGINE
"#;

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

/// The names of the built-in reductions.
pub const BUILTIN_REDUCTIONS: [&str; 11] =
    ["sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "any", "all"];

/// The C type computations on `d` happen in: `float` for float16/bfloat16/float32, `double`
/// for float64, the type itself otherwise.
fn float_compute(d: DType) -> &'static str {
    match d {
        DType::F16 | DType::BF16 | DType::F32 => "float",
        DType::F64 => "double",
        _ => d.c_name(),
    }
}

fn int_limits(d: DType) -> (&'static str, &'static str) {
    match d {
        DType::I8 => ("(xp::i8)(-128)", "(xp::i8)127"),
        DType::I16 => ("(xp::i16)(-32768)", "(xp::i16)32767"),
        DType::I32 => ("(xp::i32)(-2147483647 - 1)", "(xp::i32)2147483647"),
        DType::I64 => ("(xp::i64)(-9223372036854775807LL - 1)", "(xp::i64)9223372036854775807LL"),
        DType::U8 => ("(xp::u8)0", "(xp::u8)255"),
        DType::U16 => ("(xp::u16)0", "(xp::u16)65535"),
        DType::U32 => ("(xp::u32)0", "(xp::u32)4294967295u"),
        DType::U64 => ("(xp::u64)0", "(xp::u64)18446744073709551615ull"),
        _ => unreachable!("integer dtypes only"),
    }
}

fn guarded(tag: &str, body: &str) -> String {
    format!("#ifndef XP_RED_{tag}\n#define XP_RED_{tag} 1\n{body}#endif\n")
}

/// The accumulator of `var`/`std`: count, mean, sum of squared deviations (Chan et al.'s
/// merge of Welford's running moments), for real type `r`, or for complex values with real
/// parts of type `r` (`m2` sums |x - mean|^2).
fn welford_preamble(r: &str, complex: bool) -> (String, String) {
    let tag = if complex { format!("welford_c{r}") } else { format!("welford_{r}") };
    let ty = format!("xp_{tag}");
    let body = if complex {
        format!(
            "struct {ty} {{ {r} n, re, im, m2; }};\n\
             XP_DEVICE void xp_merge({ty}& a, const {ty}& b) {{\n\
             \x20 if (b.n == ({r})0) return;\n\
             \x20 if (a.n == ({r})0) {{ a = b; return; }}\n\
             \x20 const {r} n = a.n + b.n, f = b.n / n, dr = b.re - a.re, di = b.im - a.im;\n\
             \x20 a.re += dr * f; a.im += di * f; a.m2 += b.m2 + (dr * dr + di * di) * a.n * f; a.n = n;\n}}\n"
        )
    } else {
        // Sums relative to a shift `k` (the first element seen): one element joins with two
        // multiply-adds and no division; accumulators of several elements merge by Chan's rule.
        format!(
            "struct {ty} {{ {r} n, k, s1, s2; }};\n\
             XP_DEVICE {r} xp_m2(const {ty}& a) {{ return a.n > ({r})0 ? a.s2 - a.s1 * (a.s1 / a.n) : ({r})0; }}\n\
             XP_DEVICE void xp_merge({ty}& a, const {ty}& b) {{\n\
             \x20 if (b.n == ({r})0) return;\n\
             \x20 if (a.n == ({r})0) {{ a = b; return; }}\n\
             \x20 if (b.n == ({r})1) {{ const {r} d = b.k + b.s1 - a.k; a.s1 += d; a.s2 += d * d; a.n += ({r})1; return; }}\n\
             \x20 const {r} ma = a.k + a.s1 / a.n, mb = b.k + b.s1 / b.n;\n\
             \x20 const {r} n = a.n + b.n, f = b.n / n, d = mb - ma;\n\
             \x20 const {r} m2 = xp_m2(a) + xp_m2(b) + d * d * a.n * f;\n\
             \x20 a.n = n; a.k = ma + d * f; a.s1 = ({r})0; a.s2 = m2;\n}}\n"
        )
    };
    (ty, guarded(&tag, &body))
}

/// The accumulator of `argmin`/`argmax`: a value and its index (-1: none yet).
fn arg_preamble(v: &str) -> (String, String) {
    let tag = format!("arg_{}", v.replace("xp::", ""));
    let ty = format!("xp_{tag}");
    (ty.clone(), guarded(&tag, &format!("struct {ty} {{ {v} v; xp::i64 i; }};\n")))
}

/// The built-in reduction `name` (one of [`BUILTIN_REDUCTIONS`]) for input dtype `input`,
/// with NumPy 2's result dtypes: `sum`/`prod` of bool and signed integers give int64, of
/// unsigned integers uint64, of floats and complex their own dtype (float16 and bfloat16
/// accumulate in float32); `mean` of bool and integers gives float64; `var`/`std` (`ddof`
/// subtracted from the count) of complex input give the real dtype; `min`/`max` propagate
/// NaN and have no complex loop; `argmin`/`argmax` give int64, the first index among ties
/// and the first NaN; `any`/`all` give bool.
pub fn builtin_reduce(name: &str, input: DType, ddof: i64) -> Result<ReduceOp> {
    let kind_int = input == DType::Bool || input.is_integer();
    let c = input.c_name();
    let mut op = ReduceOp {
        name: name.to_string(),
        in_type: input,
        acc_type: String::new(),
        acc_size: 0,
        out_type: input,
        preamble: String::new(),
        map: "in0".into(),
        combine: String::new(),
        post: "out0 = a;".into(),
        identity: String::new(),
        ddof,
        in_order: name == "prod" && input.is_complex(),
    };
    match name {
        "sum" | "prod" => {
            let prod = name == "prod";
            if input == DType::Bool || input.is_signed_integer() {
                op.acc_type = "xp::i64".into();
                op.out_type = DType::I64;
                op.map = "(xp::i64)in0".into();
                op.combine = format!("a = (xp::i64)((xp::u64)a {} (xp::u64)b);", if prod { '*' } else { '+' });
            } else if input.is_unsigned_integer() {
                op.acc_type = "xp::u64".into();
                op.out_type = DType::U64;
                op.map = "(xp::u64)in0".into();
                op.combine = format!("a = a {} b;", if prod { '*' } else { '+' });
            } else {
                op.acc_type = float_compute(input).into();
                op.map = format!("({})in0", op.acc_type);
                op.combine = format!("a = a {} b;", if prod { '*' } else { '+' });
                op.post = format!("out0 = {c}(a);");
            }
            op.identity = match (input.is_complex(), prod) {
                (true, _) => format!("{}({}, 0)", op.acc_type, if prod { 1 } else { 0 }),
                (false, _) => format!("({})({})", op.acc_type, if prod { 1 } else { 0 }),
            };
        }
        "mean" => {
            if kind_int {
                op.acc_type = "double".into();
                op.out_type = DType::F64;
                op.post = "out0 = a / (double)_n;".into();
            } else if input.is_complex() {
                let r = if input == DType::C64 { "float" } else { "double" };
                op.acc_type = c.into();
                op.post = format!("out0 = {c}(a.re / ({r})_n, a.im / ({r})_n);");
            } else {
                op.acc_type = float_compute(input).into();
                op.post = format!("out0 = {c}(a / ({})_n);", op.acc_type);
            }
            op.map = format!("({})in0", op.acc_type);
            op.combine = "a = a + b;".into();
            op.identity = format!("({})0", op.acc_type);
            if input.is_complex() {
                op.identity = format!("{}(0, 0)", op.acc_type);
            }
        }
        "var" | "std" => {
            let (r, out) = match input {
                DType::C64 => ("float", DType::F32),
                DType::C128 => ("double", DType::F64),
                _ if kind_int => ("double", DType::F64),
                d => (float_compute(d), d),
            };
            let (ty, pre) = welford_preamble(r, input.is_complex());
            op.preamble = pre;
            op.out_type = out;
            op.map = if input.is_complex() {
                format!("{ty}{{({r})1, ({r})in0.re, ({r})in0.im, ({r})0}}")
            } else {
                format!("{ty}{{({r})1, ({r})in0, ({r})0, ({r})0}}")
            };
            op.identity = format!("{ty}{{({r})0, ({r})0, ({r})0, ({r})0}}");
            op.combine = "xp_merge(a, b);".into();
            let m2 = if input.is_complex() { "a.m2" } else { "xp_m2(a)" };
            let value = if name == "std" { format!("xp::sqrt({m2} / d_)") } else { format!("{m2} / d_") };
            op.post =
                format!("{r} d_ = ({r})(_n - _ddof); if (d_ < ({r})0) d_ = ({r})0; out0 = {}({value});", out.c_name());
            op.acc_type = ty;
        }
        "min" | "max" => {
            if input.is_complex() {
                // NumPy orders complex numbers lexicographically and returns the first NaN: the
                // argmin/argmax accumulator keeps that element (ties and NaNs go to the smaller
                // index, whatever order partial results meet in), and the value is the answer.
                let arg = builtin_reduce(if name == "min" { "argmin" } else { "argmax" }, input, ddof)?;
                return Ok(ReduceOp { name: name.to_string(), out_type: input, post: "out0 = a.v;".into(), ..arg });
            }
            let lt = if name == "min" { "<" } else { ">" };
            if input == DType::Bool {
                op.acc_type = "bool".into();
                op.combine = if name == "min" { "a = a && b;" } else { "a = a || b;" }.into();
                op.identity = if name == "min" { "true" } else { "false" }.into();
            } else if input.is_integer() {
                op.acc_type = c.into();
                op.combine = format!("if (b {lt} a) a = b;");
                let (lo, hi) = int_limits(input);
                op.identity = if name == "min" { hi } else { lo }.into();
            } else {
                let f = float_compute(input);
                op.acc_type = f.into();
                op.map = format!("({f})in0");
                // NaN propagates: once `a` is NaN it stays; a NaN `b` replaces `a`.
                op.combine = format!("if (!(a != a) && ((b != b) || b {lt} a)) a = b;");
                let inf = if f == "float" { "xp::inf_f32()" } else { "xp::inf_f64()" };
                op.identity = if name == "min" { inf.to_string() } else { format!("(-{inf})") };
                op.post = format!("out0 = {c}(a);");
            }
        }
        "argmin" | "argmax" => {
            let lt = if name == "argmin" { "<" } else { ">" };
            let v = float_compute(input);
            let (ty, pre) = arg_preamble(v);
            op.preamble = pre;
            op.out_type = DType::I64;
            op.acc_type = ty.clone();
            op.map = format!("{ty}{{({v})in0, _j}}");
            op.identity = format!("{ty}{{{v}(0), (xp::i64)-1}}");
            op.post = "out0 = a.i;".into();
            // The smaller index wins ties, whatever order accumulators meet in; so does the
            // first NaN (which beats every number).
            let (nan, better, eq) = if input.is_complex() {
                (
                    "(x.v.re != x.v.re || x.v.im != x.v.im)".to_string(),
                    format!("(b.v.re {lt} a.v.re || (b.v.re == a.v.re && b.v.im {lt} a.v.im))"),
                    "(b.v.re == a.v.re && b.v.im == a.v.im)".to_string(),
                )
            } else if input.is_float() {
                ("(x.v != x.v)".to_string(), format!("(b.v {lt} a.v)"), "(b.v == a.v)".to_string())
            } else {
                ("false".to_string(), format!("(b.v {lt} a.v)"), "(b.v == a.v)".to_string())
            };
            let an = nan.replace("x.", "a.");
            let bn = nan.replace("x.", "b.");
            op.combine = format!(
                "if (b.i >= 0) {{ if (a.i < 0) {{ a = b; }} else {{ const bool an_ = {an}, bn_ = {bn}; \
                 if (an_) {{ if (bn_ && b.i < a.i) a = b; }} \
                 else if (bn_ || {better} || ({eq} && b.i < a.i)) {{ a = b; }} }} }}"
            );
        }
        "any" | "all" => {
            op.acc_type = "bool".into();
            op.out_type = DType::Bool;
            op.map = "xp::cast<bool>(in0)".into();
            op.combine = if name == "any" { "a = a || b;" } else { "a = a && b;" }.into();
            op.identity = if name == "any" { "false" } else { "true" }.into();
        }
        _ => {
            return Err(Error::value(
                "reduce",
                format!("no built-in reduction `{name}` (known: {})", BUILTIN_REDUCTIONS.join(", ")),
            ))
        }
    }
    op.acc_size = acc_size_of(name, input);
    Ok(op)
}

fn acc_size_of(name: &str, input: DType) -> usize {
    let fsize = |d: DType| match d {
        DType::F64 | DType::C128 => 8,
        DType::F16 | DType::BF16 | DType::F32 | DType::C64 => 4,
        _ => 8,
    };
    match name {
        "sum" | "prod" => match input {
            d if d.is_float() || d.is_complex() => fsize(d) * if d.is_complex() { 2 } else { 1 },
            _ => 8,
        },
        "mean" => match input {
            d if d.is_complex() => d.size(),
            d if d.is_float() => fsize(d),
            _ => 8,
        },
        "var" | "std" => fsize(input) * 4,
        "min" | "max" => match input {
            d if d.is_float() => fsize(d),
            d => d.size(),
        },
        "argmin" | "argmax" => {
            let v = match input {
                d if d.is_float() => fsize(d),
                d => d.size(),
            };
            // struct { V v; i64 i; }: the value padded to 8 bytes, then the index.
            v.div_ceil(8) * 8 + 8
        }
        _ => 1,
    }
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
    let idx = index_c(index);
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
    let hash = xxhash_rust::xxh3::xxh3_64(tag.as_bytes()) ^ xxhash_rust::xxh3::xxh3_64(ENGINE.as_bytes());
    let name = format!(
        "xp_reduce_{}_{}_{}_{:012x}",
        sanitize(&op.name),
        op.in_type.short(),
        if index == IndexWidth::I32 { "i32" } else { "i64" },
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
         struct Op {{\n\
         \x20 typedef {inc} In;\n\
         \x20 typedef {acc} Acc;\n\
         \x20 typedef {outc} Out;\n\
         \x20 static XP_DEVICE Acc identity() {{ return ({id}); }}\n\
         \x20 static XP_DEVICE Acc map(const In in0, const xp::i64 _j) {{ (void)_j; return ({map}); }}\n\
         \x20 static XP_DEVICE void combine(Acc& a, const Acc& b) {{ {combine} }}\n\
         \x20 static XP_DEVICE void post(const Acc& a, const xp::i64 _n, const xp::i64 _ddof, Out& out0) {{ (void)_n; (void)_ddof; {post} }}\n\
         }};\n\
         }}  // namespace {name}_ns\n\
         extern \"C\" __global__ void {name}(const {inc}* __restrict__ in, const {acc}* __restrict__ pin, \
         {outc}* __restrict__ out, {acc}* __restrict__ pout, XP_GRID_CONST const xp::Shape kshape, \
         XP_GRID_CONST const xp::Strides kstrides, XP_GRID_CONST const xp::Shape rshape, \
         XP_GRID_CONST const xp::Strides rstrides, {idx} n_out, {idx} n_red, {idx} seg, xp::i64 tile, \
         xp::i64 n_post, xp::i64 ddof) {{\n\
         \x20 xp::red::run<{name}_ns::Op, {idx}>(in, pin, out, pout, kshape, kstrides, rshape, rstrides, n_out, n_red, \
         seg, tile, n_post, ddof);\n\
         }}\n",
        id = op.identity,
        map = op.map,
        combine = op.combine,
        post = op.post,
    );
    Rendered { name, code }
}

pub(crate) fn index_c(index: IndexWidth) -> &'static str {
    match index {
        IndexWidth::I32 => "xp::i32",
        IndexWidth::I64 => "xp::i64",
    }
}

pub(crate) fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// What a plan is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// The CPU backend with `workers` threads.
    Cpu {
        /// Worker threads.
        workers: usize,
    },
    /// A GPU.
    Gpu {
        /// Streaming multiprocessors / compute units.
        sm_count: u32,
        /// 32 on NVIDIA; 64 or 32 on AMD.
        warp_size: u32,
        /// The device's largest block.
        max_threads_per_block: u32,
    },
}

/// The family of a [`Target`], which decides the set of kernels plans can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetKind {
    /// CPU plans use 64-bit indexing only.
    Cpu,
    /// GPU plans use 32-bit indexing where offsets allow, else 64-bit.
    Gpu,
}

impl Target {
    /// The target's family.
    pub fn kind(&self) -> TargetKind {
        match self {
            Target::Cpu { .. } => TargetKind::Cpu,
            Target::Gpu { .. } => TargetKind::Gpu,
        }
    }
}

/// One argument of a planned launch, described symbolically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanArg {
    /// A pointer to the input's element at `offset_elems` elements from the input's first
    /// element (the element at the array's offset; nonzero when negative strides were
    /// flipped).
    Input {
        /// Elements from the input's first element (may be negative).
        offset_elems: isize,
    },
    /// A pointer to the start of the output.
    Output,
    /// A pointer into the plan's scratch buffer.
    Scratch {
        /// Bytes from the scratch buffer's start (a multiple of 16).
        offset_bytes: usize,
    },
    /// A null pointer.
    Null,
    /// An `xp::Shape` (rank, then up to 8 extents).
    Shape(Vec<i64>),
    /// An `xp::Strides` (up to 8 strides, in elements).
    Strides(Vec<i64>),
    /// An `xp::i32` by value.
    I32(i32),
    /// An `xp::i64` by value.
    I64(i64),
}

impl PlanArg {
    /// The bytes of a by-value argument in the kernel's C layout; `None` for pointers.
    pub fn value_bytes(&self) -> Option<Vec<u8>> {
        let words = |v: Vec<i64>| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        match self {
            PlanArg::Shape(d) => {
                let mut v = vec![d.len() as i64];
                v.extend(d);
                v.resize(9, 0);
                Some(words(v))
            }
            PlanArg::Strides(s) => {
                let mut v = s.clone();
                v.resize(8, 0);
                Some(words(v))
            }
            PlanArg::I32(x) => Some(x.to_ne_bytes().to_vec()),
            PlanArg::I64(x) => Some(x.to_ne_bytes().to_vec()),
            PlanArg::Null => Some(0u64.to_ne_bytes().to_vec()),
            PlanArg::Input { .. } | PlanArg::Output | PlanArg::Scratch { .. } => None,
        }
    }
}

/// One launch of a plan.
#[derive(Debug, Clone)]
pub struct PlannedLaunch {
    /// The kernel.
    pub kernel: Rendered,
    /// Grid, block, shared memory.
    pub config: LaunchConfig,
    /// Its arguments, in order.
    pub args: Vec<PlanArg>,
}

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

fn merge_dims(dims: &[(usize, isize)]) -> (Vec<usize>, Vec<isize>) {
    let mut sh: Vec<usize> = Vec::new();
    let mut st: Vec<isize> = Vec::new();
    for &(n, s) in dims {
        if n == 1 {
            continue;
        }
        if let (Some(ln), Some(ls)) = (sh.last_mut(), st.last_mut()) {
            if *ls == s * n as isize {
                *ln *= n;
                *ls = s;
                continue;
            }
        }
        sh.push(n);
        st.push(s);
    }
    if sh.is_empty() {
        sh.push(1);
        st.push(0);
    }
    (sh, st)
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

fn i64s(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

fn i64st(v: &[isize]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

/// Round up to a multiple of 16 bytes.
pub(crate) fn align16(x: usize) -> usize {
    x.div_ceil(16) * 16
}

/// The largest power of two not above `x` (`x >= 1`).
pub(crate) fn pow2_floor(x: u32) -> u32 {
    1u32 << (31 - x.max(1).leading_zeros())
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
    let ix = |v: usize| match index {
        IndexWidth::I32 => PlanArg::I32(v as i32),
        IndexWidth::I64 => PlanArg::I64(v as i64),
    };
    let [a0, a1, a2, a3] = io;
    PlannedLaunch {
        kernel: kernel.clone(),
        config: LaunchConfig::new((p.blocks, p.segments as u32), (p.gx, p.gy)),
        args: vec![
            a0,
            a1,
            a2,
            a3,
            PlanArg::Shape(i64s(kshape)),
            PlanArg::Strides(i64st(kstrides)),
            PlanArg::Shape(i64s(rshape)),
            PlanArg::Strides(i64st(rstrides)),
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
/// `axes` (distinct, each below the rank; the rank is at most 8).
pub fn plan_reduce(
    op: &ReduceOp,
    shape: &[usize],
    strides: &[isize],
    axes: &[usize],
    target: Target,
) -> Result<ReducePlan> {
    if shape.len() != strides.len() || shape.len() > 8 {
        return Err(Error::value(
            "reduce",
            format!("shape {shape:?} and strides {strides:?} must have one rank, at most 8"),
        ));
    }
    for (i, &a) in axes.iter().enumerate() {
        if a >= shape.len() || axes[..i].contains(&a) {
            return Err(Error::Axis { op: op.name.clone(), reason: format!("axes {axes:?} for rank {}", shape.len()) });
        }
    }
    let c = collapse_reduction(shape, strides, axes, op.uses_index());
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
        Target::Gpu { sm_count, warp_size, max_threads_per_block } if op.in_order && n_red <= IN_ORDER_MAX => {
            // A thread per output (as the columns strategy), the range never split.
            let mut p = gpu_pass(n_out, n_red, true, sm_count, warp_size, max_threads_per_block);
            p.segments = 1;
            p.seg = n_red.max(1);
            p
        }
        Target::Gpu { sm_count, warp_size, max_threads_per_block } => {
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
        Target::Gpu { sm_count, warp_size, max_threads_per_block } => {
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

/// Every kernel the built-in reductions can use on `kind`: each op and input dtype with a
/// loop, in each index width the kind's plans use (64-bit on the CPU; 32 and 64 on GPUs).
pub fn builtin_reduce_kernels(kind: TargetKind) -> Vec<Rendered> {
    let widths: &[IndexWidth] = match kind {
        TargetKind::Cpu => &[IndexWidth::I64],
        TargetKind::Gpu => &[IndexWidth::I32, IndexWidth::I64],
    };
    let mut out = Vec::new();
    for name in BUILTIN_REDUCTIONS {
        for d in DType::ALL {
            if let Ok(op) = builtin_reduce(name, d, 0) {
                for &w in widths {
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

    const GPU: Target = Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024 };
    const CPU: Target = Target::Cpu { workers: 8 };

    fn op(name: &str, d: DType) -> ReduceOp {
        builtin_reduce(name, d, 0).unwrap()
    }

    #[test]
    fn result_dtypes_follow_numpy() {
        assert_eq!(op("sum", DType::I8).out_type, DType::I64);
        assert_eq!(op("sum", DType::Bool).out_type, DType::I64);
        assert_eq!(op("prod", DType::U16).out_type, DType::U64);
        assert_eq!(op("sum", DType::F16).out_type, DType::F16);
        assert_eq!(op("sum", DType::F16).acc_type, "float");
        assert_eq!(op("mean", DType::I32).out_type, DType::F64);
        assert_eq!(op("mean", DType::F16).out_type, DType::F16);
        assert_eq!(op("var", DType::C64).out_type, DType::F32);
        assert_eq!(op("std", DType::C128).out_type, DType::F64);
        assert_eq!(op("argmax", DType::F32).out_type, DType::I64);
        assert_eq!(op("any", DType::C64).out_type, DType::Bool);
        assert_eq!(op("max", DType::C64).out_type, DType::C64);
        assert!(op("min", DType::C128).uses_index());
        assert!(builtin_reduce("median", DType::F32, 0).is_err());
        assert!(op("argmin", DType::F32).uses_index());
        assert!(!op("sum", DType::F32).uses_index());
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
    fn cpu_tile_constants_match_the_engine() {
        assert!(ENGINE.contains(&format!("constexpr int kRowBlock = {CPU_ROW_BLOCK};")));
        assert!(ENGINE.contains(&format!("constexpr int kTileBytes = {} * 1024;", CPU_TILE_BYTES >> 10)));
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
            assert!(!crate::uses_barrier(&r.code), "CPU kernels never need fibers");
        }
        // The plan for any shape uses a kernel of the set.
        let p = plan_reduce(&op("var", DType::F16), &[3, 1025], &[1025, 1], &[1], CPU).unwrap();
        assert!(cpu.iter().any(|r| r.name == p.launches[0].kernel.name));
    }
}
