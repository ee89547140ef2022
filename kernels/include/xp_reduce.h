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

// VE consecutive elements from `p`, in loads of up to 16 bytes; `p` is aligned to the load
// (vec_aligned). A fused source reads each array this way where its reduced stride is 1.
template <int VE, class L> XP_DEVICE bool vec_aligned(const L* p) {
  constexpr unsigned long long B = VE * sizeof(L) < 16 ? VE * sizeof(L) : 16;
  return (unsigned long long)p % B == 0;
}
template <int VE, class L> XP_DEVICE void vload(const L* __restrict__ p, L (&v)[VE]) {
  constexpr int BYTES = VE * (int)sizeof(L);
  constexpr int B = BYTES < 16 ? BYTES : 16;
  constexpr int PER = B / (int)sizeof(L);
  struct alignas(B) Chunk { L e[PER]; };
  for (int c = 0; c < VE / PER; ++c) {
    const Chunk w = ((const Chunk*)p)[c];
    for (int e = 0; e < PER; ++e) v[c * PER + e] = w.e[e];
  }
}

// Values j .. j + VE - 1 of a source: by vector loads of every array when `vec`, else one by one.
template <int VE, class Src, class I>
XP_DEVICE void src_group(const Src& src, const typename Src::Pos& ps, I j, bool vec, typename Src::T (&x)[VE]) {
  if (vec) {
    src.template get_vec<VE>(ps, j, x);
  } else {
    for (int e = 0; e < VE; ++e) x[e] = src.get(ps, j + e);
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

// One block of inner accumulators (the `c`-th, counting from 0) joins the cascade of `lev`:
// equal levels merge, the earlier one on the left.
template <class Op, class I>
inline void tile_join(typename Op::Acc* __restrict__ inner, typename Op::Acc* __restrict__ lev, I nt,
                      unsigned long long c) {
  typedef typename Op::Acc Acc;
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

// The cascade of `count` blocks combined, higher levels first: the array holding the result,
// or null when there was no block.
template <class Op, class I>
inline typename Op::Acc* tile_result(typename Op::Acc* __restrict__ lev, I nt, unsigned long long count) {
  typedef typename Op::Acc Acc;
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
    tile_join<Op, I>(inner, lev, nt, count++);
  }
  return tile_result<Op, I>(lev, nt, count);
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

// ---- Fused sources ----------------------------------------------------------------------------
// `run_src` reduces the values a source computes (a fused elementwise map over several arrays)
// instead of loaded elements. A source `Src` has
//   typedef T;                                 // the value type `Op::map` takes
//   struct Pos;                                // where one output's elements start
//   Pos pos(I o) const;                        // for output o (C order over the kept extents)
//   T get(const Pos& p, I j) const;            // element j of that output's reduced range
//   bool vec_ok<VE>(const Pos& p, I j) const;  // (GPU) get_vec may read from j, and from
//                                              // every j + k * VE after it
//   void get_vec<VE>(const Pos& p, I j, T (&x)[VE]) const;  // (GPU) elements j .. j + VE - 1
// The plan's shapes and strides (`ks`, `kst`, `rs`, `rst`) are those of the C-contiguous
// array the map would be written to, and every function below combines values in the order
// its counterpart above combines that array's elements: the result has the bits of the map
// computed into an array and reduced.

template <class Op, class Src, class I>
inline typename Op::Acc cpu_range_src(const Src& src, const typename Src::Pos& ps, I j0, I j1) {
  typedef typename Op::Acc Acc;
  Acc levels[64];
  unsigned long long count = 0;
  for (I b0 = j0; b0 < j1; b0 += (I)kBlock) {
    const I b1 = imin<I>(j1, b0 + (I)kBlock);
    Acc lane[kLanes];
    for (int l = 0; l < kLanes; ++l) lane[l] = Op::identity();
    I j = b0;
    for (; j + kLanes <= b1; j += kLanes)
      for (int l = 0; l < kLanes; ++l) Op::combine(lane[l], Op::map(src.get(ps, j + l), (i64)(j + l)));
    for (int l = 0; j < b1; ++j, ++l) Op::combine(lane[l & (kLanes - 1)], Op::map(src.get(ps, j), (i64)j));
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

// cpu_tile over a source: outputs o0 .. o0 + nt - 1. Each accumulator takes its rows in order,
// as in cpu_tile, so walking a tile output by output changes no bit.
template <class Op, class Src, class I>
inline typename Op::Acc* cpu_tile_src(const Src& src, I o0, I nt, I j0, I j1, typename Op::Acc* __restrict__ inner,
                                      typename Op::Acc* __restrict__ lev) {
  typedef typename Op::Acc Acc;
  unsigned long long count = 0;
  for (I b0 = j0; b0 < j1; b0 += (I)kRowBlock) {
    const I b1 = imin<I>(j1, b0 + (I)kRowBlock);
    for (I t = 0; t < nt; ++t) {
      const typename Src::Pos ps = src.pos(o0 + t);
      Acc a = Op::identity();
      for (I j = b0; j < b1; ++j) Op::combine(a, Op::map(src.get(ps, j), (i64)j));
      inner[t] = a;
    }
    tile_join<Op, I>(inner, lev, nt, count++);
  }
  return tile_result<Op, I>(lev, nt, count);
}

template <class Op, class I, class Src>
inline void run_src(const Src& src, const typename Op::Acc* __restrict__ pin, typename Op::Out* __restrict__ out,
                    typename Op::Acc* __restrict__ pout, const Shape& ks, const Strides& kst, const Shape& rs,
                    const Strides& rst, I n_out, I n_red, I seg, i64 tile, i64 n_post, i64 ddof) {
  typedef typename Op::Acc Acc;
  if (pin) {
    run<Op, I>((const typename Op::In*)nullptr, pin, out, pout, ks, kst, rs, rst, n_out, n_red, seg, tile, n_post, ddof);
    return;
  }
  const I s = (I)blockIdx.y;
  const I j0 = imin<I>(n_red, s * seg);
  const I j1 = imin<I>(n_red, j0 + seg);
  if (tile == 0) {
    for (I o = (I)blockIdx.x; o < n_out; o += (I)gridDim.x) {
      const Acc a = cpu_range_src<Op, Src, I>(src, src.pos(o), j0, j1);
      emit<Op, I>(out, pout, o, s, n_out, a, n_post, ddof);
    }
    return;
  }
  const I klast = (I)ks.dims[ks.ndim - 1];
  const I tw = tile_width<Acc, I>(tile, seg);
  const I tpr = (klast + tw - 1) / tw;
  const I items = klast > 0 ? (n_out / klast) * tpr : 0;
  alignas(64) unsigned char buf[kTileBytes];
  Acc* const inner = reinterpret_cast<Acc*>(buf);
  Acc* const lev = inner + tw;
  for (I w = (I)blockIdx.x; w < items; w += (I)gridDim.x) {
    const I o0 = (w / tpr) * klast + (w % tpr) * tw;
    const I nt = imin<I>(tw, klast - (w % tpr) * tw);
    const Acc* r = cpu_tile_src<Op, Src, I>(src, o0, nt, j0, j1, inner, lev);
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

// ---- Fused sources (see the CPU half) ---------------------------------------------------------
// gpu_range over a source; `vb` is the offset of the output's first element in the
// C-contiguous array the map would be written to (512-byte aligned, as every fresh buffer), so
// that the elements go to the threads gpu_range would give them, in the same groups.
template <class Op, class Src, class I>
XP_DEVICE typename Op::Acc gpu_range_src(const Src& src, const typename Src::Pos& ps, I vb, I g0, I j1, I tid, I step,
                                         const Shape& rs, const Strides& rst) {
  typedef typename Op::Acc Acc;
  typedef typename Src::T T;
  Acc acc = Op::identity();
  if (g0 >= j1) return acc;
  const I st = (I)rst.s[0];
  if (rs.ndim == 1) {
    if constexpr (16 % sizeof(T) == 0 && sizeof(T) < 16) {
      const unsigned long long addr = (unsigned long long)(vb + g0) * (unsigned long long)sizeof(T);
      if (st == 1) {
        constexpr int VE = 16 / (int)sizeof(T);
        const I len = j1 - g0;
        const I head = imin<I>(len, (I)(((16u - (unsigned)(addr & 15u)) & 15u) / (unsigned)sizeof(T)));
        for (I k = tid; k < head; k += step) Op::combine(acc, Op::map(src.get(ps, g0 + k), (i64)(g0 + k)));
        const I nv = (len - head) / (I)VE;
        const I jv = g0 + head;
        const bool vec = src.template vec_ok<VE>(ps, jv);
        I v = tid;
        while (v < nv) {
          Acc part = Op::identity();
          const I vend = imin<I>(nv, v + step * 16);
          for (; v + 3 * step < vend; v += 4 * step) {
            T x0[VE], x1[VE], x2[VE], x3[VE];
            src_group<VE>(src, ps, jv + v * VE, vec, x0);
            src_group<VE>(src, ps, jv + (v + step) * VE, vec, x1);
            src_group<VE>(src, ps, jv + (v + 2 * step) * VE, vec, x2);
            src_group<VE>(src, ps, jv + (v + 3 * step) * VE, vec, x3);
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x0[e], (i64)(jv + v * VE + e)));
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x1[e], (i64)(jv + (v + step) * VE + e)));
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x2[e], (i64)(jv + (v + 2 * step) * VE + e)));
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x3[e], (i64)(jv + (v + 3 * step) * VE + e)));
          }
          for (; v < vend; v += step) {
            T x0[VE];
            src_group<VE>(src, ps, jv + v * VE, vec, x0);
            for (int e = 0; e < VE; ++e) Op::combine(part, Op::map(x0[e], (i64)(jv + v * VE + e)));
          }
          Op::combine(acc, part);
        }
        for (I k = head + nv * (I)VE + tid; k < len; k += step)
          Op::combine(acc, Op::map(src.get(ps, g0 + k), (i64)(g0 + k)));
        return acc;
      }
    }
    I j = g0 + tid;
    while (j < j1) {
      Acc part = Op::identity();
      const I jend = imin<I>(j1, j + step * 64);
      for (; j + 3 * step < jend; j += 4 * step) {
        const T x0 = src.get(ps, j), x1 = src.get(ps, j + step), x2 = src.get(ps, j + 2 * step),
                x3 = src.get(ps, j + 3 * step);
        Op::combine(part, Op::map(x0, (i64)j));
        Op::combine(part, Op::map(x1, (i64)(j + step)));
        Op::combine(part, Op::map(x2, (i64)(j + 2 * step)));
        Op::combine(part, Op::map(x3, (i64)(j + 3 * step)));
      }
      for (; j < jend; j += step) Op::combine(part, Op::map(src.get(ps, j), (i64)j));
      Op::combine(acc, part);
    }
    return acc;
  }
  I j = g0 + tid;
  while (j < j1) {
    Acc part = Op::identity();
    const I jend = imin<I>(j1, j + step * 64);
    for (; j < jend; j += step) Op::combine(part, Op::map(src.get(ps, j), (i64)j));
    Op::combine(acc, part);
  }
  return acc;
}

template <class Op, class I, class Src>
XP_DEVICE void run_src(const Src& src, const typename Op::Acc* __restrict__ pin, typename Op::Out* __restrict__ out,
                       typename Op::Acc* __restrict__ pout, const Shape& ks, const Strides& kst, const Shape& rs,
                       const Strides& rst, I n_out, I n_red, I seg, i64 tile, i64 n_post, i64 ddof) {
  typedef typename Op::Acc Acc;
  if (pin) {
    run<Op, I>((const typename Op::In*)nullptr, pin, out, pout, ks, kst, rs, rst, n_out, n_red, seg, tile, n_post, ddof);
    return;
  }
  const I s = (I)blockIdx.y;
  const I j0 = imin<I>(n_red, s * seg);
  const I j1 = imin<I>(n_red, j0 + seg);
  const I per = (I)blockDim.y;
  const I tid = (I)threadIdx.x, step = (I)blockDim.x;
  for (I o0 = (I)blockIdx.x * per; o0 < n_out; o0 += (I)gridDim.x * per) {
    const I o = o0 + (I)threadIdx.y;
    Acc a = Op::identity();
    if (o < n_out) {
      const I b = offset_of<I>(o, ks, kst);
      a = gpu_range_src<Op, Src, I>(src, src.pos(o), b, j0, j1, tid, step, rs, rst);
    }
    a = group_reduce<Op>(a);
    if (tid == 0 && o < n_out) emit<Op, I>(out, pout, o, s, n_out, a, n_post, ddof);
  }
}
#endif

}  // namespace red
}  // namespace xp
#endif  // XP_REDUCE_ENGINE
