#ifndef XP_SCAN_ENGINE
#define XP_SCAN_ENGINE 1
namespace xp {
namespace scan {
using xp::red::imin;
using xp::red::load;

// Output offset of element 0 of row r.
template <class I> XP_DEVICE I out_base(I r, I n_inner, I len) { return (r / n_inner) * len * n_inner + r % n_inner; }

// Row r, chunk [k0, k1), one thread, sequentially.
template <class Op, bool PART, class T, class I>
XP_DEVICE void seq_row(const T* __restrict__ src, typename Op::Out* __restrict__ out, typename Op::Out* __restrict__ pout,
                       const typename Op::Out* __restrict__ carry, const Shape& rs, const Strides& rst, I r, I n_inner,
                       I len, I ast, I k0, I k1, I c, I nch) {
  typedef typename Op::Acc Acc;
  const T* __restrict__ p = src + offset_of<I>(r, rs, rst);
  Acc acc = (carry && c > 0) ? carry[r * nch + c - 1] : Op::identity();
  if (pout) {
    for (I k = k0; k < k1; ++k) Op::combine(acc, load<Op, PART>(p[k * ast], (i64)k));
    pout[r * nch + c] = acc;
    return;
  }
  typename Op::Out* __restrict__ q = out + out_base<I>(r, n_inner, len);
  for (I k = k0; k < k1; ++k) {
    Op::combine(acc, load<Op, PART>(p[k * ast], (i64)k));
    q[k * n_inner] = acc;
  }
}

#if defined(XP_CPU)
constexpr int kTile = 64;

// Rows r0 .. r0 + nt (neighbours within one block of n_inner rows), chunk [k0, k1), together.
template <class Op, bool PART, class T, class I>
inline void tile_rows(const T* __restrict__ src, typename Op::Out* __restrict__ out, typename Op::Out* __restrict__ pout,
                      const typename Op::Out* __restrict__ carry, const Shape& rs, const Strides& rst, I r0, int nt,
                      I n_inner, I len, I ast, I k0, I k1, I c, I nch) {
  typedef typename Op::Acc Acc;
  Acc acc[kTile];
  I base[kTile];
  bool contiguous = true;
  for (int t = 0; t < nt; ++t) {
    base[t] = offset_of<I>(r0 + (I)t, rs, rst);
    contiguous = contiguous && base[t] == base[0] + (I)t;
    acc[t] = (carry && c > 0) ? carry[(r0 + (I)t) * nch + c - 1] : Op::identity();
  }
  typename Op::Out* __restrict__ q = out + out_base<I>(r0, n_inner, len);
  for (I k = k0; k < k1; ++k) {
    if (contiguous) {
      const T* __restrict__ p = src + base[0] + k * ast;
      for (int t = 0; t < nt; ++t) Op::combine(acc[t], load<Op, PART>(p[t], (i64)k));
    } else {
      for (int t = 0; t < nt; ++t) Op::combine(acc[t], load<Op, PART>(src[base[t] + k * ast], (i64)k));
    }
    if (!pout)
      for (int t = 0; t < nt; ++t) q[k * n_inner + t] = acc[t];
  }
  if (pout)
    for (int t = 0; t < nt; ++t) pout[(r0 + (I)t) * nch + c] = acc[t];
}

template <class Op, class I>
inline void run(const typename Op::In* __restrict__ in, const typename Op::Out* __restrict__ pin,
                typename Op::Out* __restrict__ out, typename Op::Out* __restrict__ pout,
                const typename Op::Out* __restrict__ carry, const Shape& rs, const Strides& rst, I n_rows, I n_inner,
                I len, I ast, I chunk, i64 tile) {
  const I c = (I)blockIdx.y, nch = (I)gridDim.y;
  const I k0 = imin<I>(len, c * chunk), k1 = imin<I>(len, k0 + chunk);
  if (tile == 0) {
    for (I r = (I)blockIdx.x; r < n_rows; r += (I)gridDim.x) {
      if (pin) seq_row<Op, true>(pin, out, pout, carry, rs, rst, r, n_inner, len, ast, k0, k1, c, nch);
      else seq_row<Op, false>(in, out, pout, carry, rs, rst, r, n_inner, len, ast, k0, k1, c, nch);
    }
    return;
  }
  const I tw = (I)tile < (I)kTile ? (I)tile : (I)kTile;
  const I tpr = (n_inner + tw - 1) / tw;
  const I items = (n_rows / n_inner) * tpr;
  for (I w = (I)blockIdx.x; w < items; w += (I)gridDim.x) {
    const I r0 = (w / tpr) * n_inner + (w % tpr) * tw;
    const int nt = (int)imin<I>(tw, n_inner - (w % tpr) * tw);
    if (pin) tile_rows<Op, true>(pin, out, pout, carry, rs, rst, r0, nt, n_inner, len, ast, k0, k1, c, nch);
    else tile_rows<Op, false>(in, out, pout, carry, rs, rst, r0, nt, n_inner, len, ast, k0, k1, c, nch);
  }
}

#else
constexpr int kItems = 4;

// Exclusive scan of one value per thread of the block; `total` gets the block's total.
template <class Op> XP_DEVICE typename Op::Acc block_exclusive(typename Op::Acc v, typename Op::Acc& total) {
  typedef typename Op::Acc Acc;
  const unsigned ws = (unsigned)warpSize;
  const unsigned lane = threadIdx.x % ws, wid = threadIdx.x / ws, nw = blockDim.x / ws;
  Acc x = v;
  for (unsigned d = 1; d < ws; d <<= 1) {
    const Acc y = xp::shfl_up(x, d, (int)ws);
    if (lane >= d) {
      Acc t = y;
      Op::combine(t, x);
      x = t;
    }
  }
  __shared__ Acc sh[32];
  xp::gpu_block_sync();
  if (lane == ws - 1) sh[wid] = x;
  xp::gpu_block_sync();
  if (wid == 0) {
    Acc w = lane < nw ? sh[lane] : Op::identity();
    for (unsigned d = 1; d < ws; d <<= 1) {
      const Acc y = xp::shfl_up(w, d, (int)ws);
      if (lane >= d) {
        Acc t = y;
        Op::combine(t, w);
        w = t;
      }
    }
    if (lane < nw) sh[lane] = w;
  }
  xp::gpu_block_sync();
  total = sh[nw - 1];
  Acc r = wid > 0 ? sh[wid - 1] : Op::identity();
  Acc e = xp::shfl_up(x, 1, (int)ws);
  if (lane > 0) Op::combine(r, e);
  return r;
}

// Row r, chunk [k0, k1), by the whole block: tiles of kItems * blockDim.x elements.
template <class Op, bool PART, class T, class I>
XP_DEVICE void block_row(const T* __restrict__ src, typename Op::Out* __restrict__ out, typename Op::Out* __restrict__ pout,
                         const typename Op::Out* __restrict__ carry, const Shape& rs, const Strides& rst, I r, I n_inner,
                         I len, I ast, I k0, I k1, I c, I nch) {
  typedef typename Op::Acc Acc;
  const T* __restrict__ p = src + offset_of<I>(r, rs, rst);
  const I tid = (I)threadIdx.x, nth = (I)blockDim.x;
  if (pout) {
    Acc acc = Op::identity();
    for (I k = k0 + tid; k < k1; k += nth) Op::combine(acc, load<Op, PART>(p[k * ast], (i64)k));
    acc = xp::red::group_reduce<Op>(acc);
    if (tid == 0) pout[r * nch + c] = acc;
    return;
  }
  typename Op::Out* __restrict__ q = out + out_base<I>(r, n_inner, len);
  Acc running = (carry && c > 0) ? carry[r * nch + c - 1] : Op::identity();
  for (I t0 = k0; t0 < k1; t0 += nth * (I)kItems) {
    Acc v[kItems];
    Acc local = Op::identity();
    const I kb = t0 + tid * (I)kItems;
    for (int i = 0; i < kItems; ++i) {
      const I k = kb + (I)i;
      if (k < k1) {
        v[i] = load<Op, PART>(p[k * ast], (i64)k);
        Op::combine(local, v[i]);
      }
    }
    Acc total;
    const Acc excl = block_exclusive<Op>(local, total);
    Acc pre = running;
    Op::combine(pre, excl);
    for (int i = 0; i < kItems; ++i) {
      const I k = kb + (I)i;
      if (k < k1) {
        Op::combine(pre, v[i]);
        q[k * n_inner] = pre;
      }
    }
    Op::combine(running, total);
  }
}

// A value another block published: read through volatile words (past this SM's L1).
template <class T> XP_DEVICE T read_published(const T* p) {
  T r;
  const volatile unsigned char* s = reinterpret_cast<const volatile unsigned char*>(p);
  unsigned char* d = reinterpret_cast<unsigned char*>(&r);
  if (sizeof(T) % 4 == 0) {
    const volatile unsigned* s4 = reinterpret_cast<const volatile unsigned*>(p);
    unsigned* d4 = reinterpret_cast<unsigned*>(&r);
    for (unsigned k = 0; k < sizeof(T) / 4; ++k) d4[k] = s4[k];
  } else {
    for (unsigned k = 0; k < sizeof(T); ++k) d[k] = s[k];
  }
  return r;
}

// The look-back of tile `t > 0` of a single-pass scan, by the block's first warp: publishes
// the tile's `total`, then looks back over a window of warpSize predecessors at a time (each
// lane waits for its tile's flag, and the window adds the totals up to the nearest prefix),
// then publishes the tile's inclusive prefix. Every thread of the block gets the tile's
// exclusive prefix.
template <class Op>
XP_DEVICE typename Op::Acc look_back(i64 t, const typename Op::Acc& total, typename Op::Acc* totals,
                                     typename Op::Acc* prefixes, unsigned* flags) {
  typedef typename Op::Acc Acc;
  __shared__ unsigned long long raw_prefix[(sizeof(Acc) + 7) / 8];
  const unsigned ws = (unsigned)warpSize;
  if (threadIdx.x < ws) {
    const unsigned lane = threadIdx.x;
    Acc run = Op::identity();
    if (t > 0) {
      if (lane == 0) {
        totals[t] = total;
        __threadfence();
        atomicExch(&flags[t], 1u);
      }
      for (i64 end = t;; end -= (i64)ws) {
        const i64 j = end - 1 - (i64)lane;
        unsigned f = 0u;
        Acc x = Op::identity();
        if (j >= 0) {
          do {
            f = *reinterpret_cast<volatile unsigned*>(&flags[j]);
          } while (f == 0u);
          __threadfence();
          x = read_published(f == 2u ? &prefixes[j] : &totals[j]);
        }
        // The nearest lane holding a prefix (tile 0 always does), to every lane.
        unsigned first = f == 2u ? lane : ws;
        for (unsigned d = ws / 2; d > 0; d >>= 1) {
          const unsigned o = xp::shfl_down(first, d, (int)ws);
          if (o < first) first = o;
        }
        for (unsigned d = 1; d < ws; d <<= 1) {
          const unsigned o = xp::shfl_up(first, d, (int)ws);
          if (lane >= d) first = o;
        }
        if (lane > first) x = Op::identity();
        for (unsigned d = ws / 2; d > 0; d >>= 1) {
          const Acc o = xp::shfl_down(x, d, (int)ws);
          Op::combine(x, o);
        }
        if (lane == 0) {
          Op::combine(x, run);
          run = x;
        }
        if (first < ws) break;
      }
    }
    if (lane == 0) {
      Acc inc = run;
      Op::combine(inc, total);
      prefixes[t] = inc;
      __threadfence();
      atomicExch(&flags[t], 2u);
      *reinterpret_cast<Acc*>(raw_prefix) = run;
    }
  }
  xp::gpu_block_sync();
  return *reinterpret_cast<Acc*>(raw_prefix);
}

// The single-pass scan of one row (decoupled look-back): tiles of kOne * 256 elements (kOne
// rendered from the planner's `onepass_items`), taken in the order blocks start (a counter),
// each publishing its total, then its inclusive prefix, which the next tiles read instead of
// rescanning. One read and one write of the data.
// Scratch at `pout`: totals[nt], prefixes[nt] (Out), then nt + 1 flags (0 none, 1 total,
// 2 prefix; the last is the tile counter). `tile` -1 zeroes the flags, -2 scans.
template <class Op, class I, int kOne>
XP_DEVICE void onepass(const typename Op::In* __restrict__ in, typename Op::Out* __restrict__ out,
                       typename Op::Out* __restrict__ pout, const Shape& rs, const Strides& rst, I len, I ast, I nt,
                       i64 mode) {
  typedef typename Op::Acc Acc;
  constexpr int kThreads = 256;
  Acc* totals = pout;
  Acc* prefixes = pout + nt;
  unsigned* flags = reinterpret_cast<unsigned*>(reinterpret_cast<char*>(pout) + ((2 * (i64)nt * sizeof(Acc) + 15) & ~(i64)15));
  if (mode == -1) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i <= (i64)nt; i += (i64)blockDim.x * gridDim.x) flags[i] = 0u;
    return;
  }
  __shared__ unsigned s_tile;
  const unsigned tid = threadIdx.x;
  if (tid == 0) s_tile = atomicAdd(&flags[nt], 1u);
  xp::gpu_block_sync();
  const i64 t = (i64)s_tile;
  const typename Op::In* __restrict__ p = in + offset_of<I>((I)0, rs, rst);
  // Raw words (8-byte aligned, as every accumulator needs): Acc may have constructors.
  // Each thread's kOne elements are padded by one (row of kOne + 1), so that the blocked
  // reads and writes below fall in distinct banks.
  __shared__ unsigned long long raw[((kOne + 1) * kThreads * sizeof(Acc) + 7) / 8];
  Acc* buf = reinterpret_cast<Acc*>(raw);
  const i64 base = t * (i64)(kOne * kThreads);
  for (int k = 0; k < kOne; ++k) {
    const i64 j = k * kThreads + tid, g = base + j;
    buf[j + j / kOne] = g < (i64)len ? load<Op, false>(p[g * (i64)ast], g) : Op::identity();
  }
  xp::gpu_block_sync();
  // The thread's elements stay in shared memory (read again below), not in registers: fewer
  // registers let more blocks wait on their look-backs while others read.
  Acc local = Op::identity();
  for (int i = 0; i < kOne; ++i) Op::combine(local, buf[tid * (kOne + 1) + i]);
  Acc total;
  const Acc excl = block_exclusive<Op>(local, total);
  Acc pre = look_back<Op>(t, total, totals, prefixes, flags);
  Op::combine(pre, excl);
  for (int i = 0; i < kOne; ++i) {
    Op::combine(pre, buf[tid * (kOne + 1) + i]);
    buf[tid * (kOne + 1) + i] = pre;
  }
  xp::gpu_block_sync();
  for (int k = 0; k < kOne; ++k) {
    const i64 j = k * kThreads + tid, g = base + j;
    if (g < (i64)len) out[g] = buf[j + j / kOne];
  }
}

template <class Op, class I>
XP_DEVICE void run(const typename Op::In* __restrict__ in, const typename Op::Out* __restrict__ pin,
                   typename Op::Out* __restrict__ out, typename Op::Out* __restrict__ pout,
                   const typename Op::Out* __restrict__ carry, const Shape& rs, const Strides& rst, I n_rows, I n_inner,
                   I len, I ast, I chunk, i64 tile) {
  (void)tile;
  const I c = (I)blockIdx.y, nch = (I)gridDim.y;
  const I k0 = imin<I>(len, c * chunk), k1 = imin<I>(len, k0 + chunk);
  if (blockDim.x == 1) {
    for (I r = (I)blockIdx.x * (I)blockDim.y + (I)threadIdx.y; r < n_rows; r += (I)gridDim.x * (I)blockDim.y) {
      if (pin) seq_row<Op, true>(pin, out, pout, carry, rs, rst, r, n_inner, len, ast, k0, k1, c, nch);
      else seq_row<Op, false>(in, out, pout, carry, rs, rst, r, n_inner, len, ast, k0, k1, c, nch);
    }
    return;
  }
  for (I r = (I)blockIdx.x; r < n_rows; r += (I)gridDim.x) {
    if (pin) block_row<Op, true>(pin, out, pout, carry, rs, rst, r, n_inner, len, ast, k0, k1, c, nch);
    else block_row<Op, false>(in, out, pout, carry, rs, rst, r, n_inner, len, ast, k0, k1, c, nch);
  }
}
#endif

}  // namespace scan
}  // namespace xp
#endif  // XP_SCAN_ENGINE
