#ifndef XP_SORT_ENGINE
#define XP_SORT_ENGINE 1
namespace xp {
namespace sort {
template <class U> XP_DEVICE U sign_bit() { return (U)((U)1 << (sizeof(U) * 8 - 1)); }
// Key of the bits `b` of a float whose infinity has bits `inf`.
template <class U> XP_DEVICE U float_key(U b, U inf, int canon) {
  const U s = sign_bit<U>();
  const U a = (U)(b & (U)~s);
  if (a > inf) return (U)~(U)0;
  if (canon && a == 0) b = 0;
  return (b & s) ? (U)~b : (U)(b | s);
}
template <class U> XP_DEVICE U float_unkey(U k, U nan) {
  if (k == (U)~(U)0) return nan;
  const U s = sign_bit<U>();
  return (k & s) ? (U)(k & (U)~s) : (U)~k;
}
// kind: 0 unsigned, 1 signed, 2 float.
template <class U, int KIND> XP_DEVICE U key_of(U b, U inf, int canon) {
  if (KIND == 0) return b;
  if (KIND == 1) return (U)(b ^ sign_bit<U>());
  return float_key<U>(b, inf, canon);
}
template <class U, int KIND> XP_DEVICE U unkey(U k, U nan) {
  if (KIND == 0) return k;
  if (KIND == 1) return (U)(k ^ sign_bit<U>());
  return float_unkey<U>(k, nan);
}
// The digit of element (key k, payload v): of the row (v / row_len) when row_len > 0.
template <class U, class V> XP_DEVICE unsigned digit(U k, V v, int shift, i64 row_len, unsigned mask) {
  if (row_len > 0) return (unsigned)(((u64)v / (u64)row_len) >> shift) & mask;
  return (unsigned)((u64)k >> shift) & mask;
}

#if defined(XP_GPU)
// Four registers of 16-bit counters, one per digit of 16.
struct Packed {
  u64 w[4];
};
XP_DEVICE u64 pick(const Packed& p, unsigned d) {
  const unsigned q = d >> 2;
  return q == 0 ? p.w[0] : q == 1 ? p.w[1] : q == 2 ? p.w[2] : p.w[3];
}
XP_DEVICE void bump(Packed& p, unsigned d) {
  const u64 inc = 1ull << ((d & 3u) * 16u);
  const unsigned q = d >> 2;
#pragma unroll
  for (unsigned i = 0; i < 4; ++i) p.w[i] += (q == i) ? inc : 0ull;
}
XP_DEVICE unsigned field(const Packed& p, unsigned d) { return (unsigned)((pick(p, d) >> ((d & 3u) * 16u)) & 0xffffull); }

// Per-tile digit counts, digit-major: counts[d * ntiles + tile].
template <class U, class V, bool HV, int K>
XP_DEVICE void gpu_hist(const U* __restrict__ keys, const V* __restrict__ vals, u32* __restrict__ counts, i64 n,
                        i64 ntiles, int shift, i64 row_len) {
  constexpr int BT = 256;
  __shared__ u64 wtot[BT / 32][4];
  const int t = threadIdx.x, lane = t % warpSize, warp = t / warpSize, nw = BT / warpSize;
  const i64 tile = blockIdx.x;
  const i64 base = tile * (i64)(BT * K) + (i64)t * K;
  Packed c = {{0ull, 0ull, 0ull, 0ull}};
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const i64 i = base + j;
    if (i < n) bump(c, digit<U, V>(keys[i], HV ? vals[i] : (V)0, shift, row_len, 15u));
  }
#pragma unroll
  for (int q = 0; q < 4; ++q)
    for (int o = warpSize / 2; o > 0; o /= 2) c.w[q] += shfl_down(c.w[q], o, warpSize);
  if (lane == 0)
    for (int q = 0; q < 4; ++q) wtot[warp][q] = c.w[q];
  __syncthreads();
  if (t < 16) {
    unsigned s = 0;
    for (int w = 0; w < nw; ++w) s += (unsigned)((wtot[w][t >> 2] >> ((t & 3) * 16)) & 0xffffull);
    counts[(i64)t * ntiles + tile] = s;
  }
}

// One stable pass: tile keys to their places. incl is the inclusive scan of the counts.
template <class U, class V, bool HV, int K>
XP_DEVICE void gpu_scatter(const U* __restrict__ kin, const V* __restrict__ vin, U* __restrict__ kout,
                           V* __restrict__ vout, const u64* __restrict__ incl, i64 n, i64 ntiles, int shift,
                           i64 row_len) {
  constexpr int BT = 256, TILE = BT * K;
  __shared__ U sk[TILE];
  __shared__ V sv[HV ? TILE : 1];
  __shared__ u64 wtot[BT / 32][4];
  __shared__ u32 dstart[16];
  __shared__ u32 dtot[16];
  __shared__ i64 gofs[16];
  const int t = threadIdx.x, lane = t % warpSize, warp = t / warpSize, nw = BT / warpSize;
  const i64 tile = blockIdx.x;
  const i64 base = tile * (i64)TILE + (i64)t * K;
  U k[K];
  V v[K];
  unsigned dg[K];
  Packed c = {{0ull, 0ull, 0ull, 0ull}};
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const i64 i = base + j;
    dg[j] = 16u;
    if (i < n) {
      k[j] = kin[i];
      v[j] = HV ? vin[i] : (V)0;
      dg[j] = digit<U, V>(k[j], v[j], shift, row_len, 15u);
      bump(c, dg[j]);
    }
  }
  // Inclusive scan of the packed counts over the block's threads.
  Packed inc = c;
  for (int o = 1; o < warpSize; o *= 2) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const u64 y = shfl_up(inc.w[q], o, warpSize);
      if (lane >= o) inc.w[q] += y;
    }
  }
  if (lane == warpSize - 1)
    for (int q = 0; q < 4; ++q) wtot[warp][q] = inc.w[q];
  __syncthreads();
  Packed run;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    u64 p = inc.w[q] - c.w[q];
    for (int w = 0; w < warp; ++w) p += wtot[w][q];
    run.w[q] = p;
  }
  if (t < 16) {
    unsigned s = 0;
    for (int w = 0; w < nw; ++w) s += (unsigned)((wtot[w][t >> 2] >> ((t & 3) * 16)) & 0xffffull);
    dtot[t] = s;
    gofs[t] = (i64)incl[(i64)t * ntiles + tile] - (i64)s;
  }
  __syncthreads();
  if (t == 0) {
    unsigned a = 0;
    for (int d = 0; d < 16; ++d) {
      dstart[d] = a;
      a += dtot[d];
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < K; ++j) {
    if (dg[j] < 16u) {
      const unsigned p = dstart[dg[j]] + field(run, dg[j]);
      sk[p] = k[j];
      if (HV) sv[p] = v[j];
      bump(run, dg[j]);
    }
  }
  __syncthreads();
  const i64 rem = n - tile * (i64)TILE;
  const int tn = rem < (i64)TILE ? (int)rem : TILE;
  for (int p = t; p < tn; p += BT) {
    const U key = sk[p];
    const V val = HV ? sv[p] : (V)0;
    const unsigned d = digit<U, V>(key, val, shift, row_len, 15u);
    const i64 g = gofs[d] + (i64)(p - (int)dstart[d]);
    kout[g] = key;
    if (HV) vout[g] = val;
  }
}

// ---- Onesweep: 8-bit digits, one launch a pass (see the module docs) ----
// The `live` lanes of the warp holding the same 8-bit digit as this one: one ballot a bit.
// (The hardware's match.any takes a step for each distinct value, which random digits make
// slow; eight ballots cost the same whatever the digits.)
XP_DEVICE lane_mask peers_of(unsigned d, lane_mask live) {
  lane_mask m = live;
#pragma unroll
  for (int b = 0; b < 8; ++b) {
#if defined(XP_CUDA)
    // The lanes agreeing with this one on bit b (the compiler otherwise tests the bit twice).
    u32 x;
    asm("{\n .reg .pred p;\n and.b32 %0, %1, %2;\n setp.ne.u32 p, %0, 0;\n vote.sync.ballot.b32 %0, p, 0xffffffff;\n @!p not.b32 %0, %0;\n}"
        : "=r"(x)
        : "r"(d), "r"(1u << b));
    m &= x;
#else
    const bool p = (d & (1u << b)) != 0u;
    const lane_mask bb = ballot(p);
    m &= p ? bb : ~bb;
#endif
  }
  return m;
}
// The highest lane of a nonempty mask.
XP_DEVICE int mask_high(lane_mask m) {
#if defined(XP_CUDA)
  return 31 - __clz((int)m);
#else
  return 63 - __clzll((long long)m);
#endif
}

// Exclusive sum over a block's threads (warp shuffles, then the warps' totals).
XP_DEVICE u64 block_exclusive_u64(u64 x, u64* wtot) {
  const unsigned t = threadIdx.x, ws = XP_WARP_LANES, lane = t % ws, warp = t / ws;
  u64 inc = x;
  for (unsigned o = 1; o < ws; o *= 2) {
    const u64 y = shfl_up(inc, o, (int)ws);
    if (lane >= o) inc += y;
  }
  if (lane == ws - 1) wtot[warp] = inc;
  __syncthreads();
  u64 pre = 0;
  for (unsigned w = 0; w < warp; ++w) pre += wtot[w];
  return pre + inc - x;
}

constexpr u32 kLookAgg = 1u << 30, kLookInc = 2u << 30, kLookVal = (1u << 30) - 1u;
constexpr int kLookWindow = 16;

// Keys from values' bits with the kind chosen at run time (-1: the bits are keys already).
template <class U> XP_DEVICE U key_rt(U b, int kind, U inf, int canon) {
  return kind == 2 ? float_key<U>(b, inf, canon) : kind == 1 ? (U)(b ^ sign_bit<U>()) : b;
}
template <class U> XP_DEVICE U unkey_rt(U k, int kind, U nan) {
  return kind == 2 ? float_unkey<U>(k, nan) : kind == 1 ? (U)(k ^ sign_bit<U>()) : k;
}

// The digit counts of passes p0 .. p0 + np - 1 (np <= kHistPasses) in one read of the keys:
// hist[pass * 256 + digit] (zeroed first). Key passes take 8 bits of the key from bit 0 up;
// row passes 8 bits of the row (i / row_len). Lanes spread over kHistParts copies of the
// counters, kHistStride words apart (odd, so that copies of one digit fall in different
// banks): keys sharing a digit, as the high bytes of floats often do, then contend less.
constexpr int kHistPasses = 4, kHistParts = 8, kHistStride = 257;
template <class U, int KIND, bool ROWS>
XP_DEVICE void onesweep_hist(const U* __restrict__ x, u32* __restrict__ hist, i64 n, int p0, int np, int key_passes,
                             i64 row_len, U inf, int canon) {
  constexpr int BT = 256;
  __shared__ u32 sh[kHistPasses * kHistParts * kHistStride];
  for (int i = threadIdx.x; i < kHistPasses * kHistParts * kHistStride; i += BT) sh[i] = 0u;
  __syncthreads();
  const unsigned lane = threadIdx.x % XP_WARP_LANES, part = lane % kHistParts;
  // kHistLoads keys a thread in flight at once.
  constexpr int kHistLoads = 8;
  const i64 stride = (i64)gridDim.x * BT, step = stride * kHistLoads;
  for (i64 i0 = (i64)blockIdx.x * BT + threadIdx.x; i0 < n; i0 += step) {
    U xs[kHistLoads];
#pragma unroll
    for (int u = 0; u < kHistLoads; ++u) {
      const i64 i = i0 + u * stride;
      xs[u] = i < n ? x[i] : (U)0;
    }
#pragma unroll
    for (int u = 0; u < kHistLoads; ++u) {
      const i64 i = i0 + u * stride;
      const bool ok = i < n;
      const u64 k = KIND < 0 ? (u64)xs[u] : (u64)key_of<U, KIND < 0 ? 0 : KIND>(xs[u], inf, canon);
      const u64 r = ROWS && ok ? (u64)i / (u64)row_len : 0ull;
#pragma unroll
      for (int p = 0; p < kHistPasses; ++p) {
        if (p >= np) break;
        const int q = p0 + p;
        const unsigned d = !ROWS || q < key_passes ? (unsigned)((k >> (8 * q)) & 255u)
                                                   : (unsigned)((r >> (8 * (q - key_passes))) & 255u);
        if (ok) atomicAdd(&sh[(p * kHistParts + part) * kHistStride + d], 1u);
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < np * 256; i += BT) {
    const int p = i / 256, d = i % 256;
    u32 c = 0u;
    for (int q = 0; q < kHistParts; ++q) c += sh[(p * kHistParts + q) * kHistStride + d];
    if (c) atomicAdd(&hist[(p0 + p) * 256 + d], c);
  }
}

// What a pass does besides moving keys: the first pass may read values (keys made from their
// bits, `kind_in` >= 0) and take each element's index as its payload (`iota`); the last may
// write values back (`kind_out` >= 0), write no keys (`kout` null), and write the payload as
// int64 positions within rows of `pos_len` (> 0).
struct PassIo {
  int kind_in, canon, kind_out, iota;
  u64 inf, nan;
  i64 pos_len;
};

// One stable pass over tiles of 256 * K keys, taken in the order blocks start (a counter).
// Each warp ranks its 32 * K consecutive keys with per-warp digit counters (lanes holding one
// digit agree on a leader), each tile publishes its digit counts, moves its keys to their
// places in shared memory, digit runs together, looks back over the tiles before it for its
// global offsets (one thread a digit, words of flag and count) while its payloads load, puts
// the payloads beside their keys, and writes the runs out. `hist` is this pass's 256
// global counts; `look` this pass's ntiles * 256 words, then the tile counter, all zero.
template <class U, class V, bool HV, int K, int BT, bool RP>
XP_DEVICE void onesweep_pass(const U* __restrict__ kin, const V* __restrict__ vin, U* __restrict__ kout,
                             V* __restrict__ vout, const u32* __restrict__ hist, u32* __restrict__ look, i64 n,
                             i64 ntiles, int shift, i64 row_len, const PassIo io) {
  static_assert(BT >= 256 && BT % 32 == 0, "a thread a digit");
  constexpr int TILE = BT * K, MAXW = BT / 32;
  static_assert(TILE < 65536, "offsets in a tile fit 16 bits");
  __shared__ U sk[TILE];
  __shared__ V sv[HV ? TILE : 1];
  __shared__ u8 sd[RP ? TILE : 1];
  __shared__ u32 whist[MAXW * 256];
  __shared__ u32 gofs[256];
  __shared__ u64 wtot[MAXW];
  __shared__ u32 s_tile;
  const unsigned t = threadIdx.x, ws = XP_WARP_LANES, lane = t % ws, warp = t / ws, nw = BT / ws;
  for (int i = t; i < MAXW * 256; i += BT) whist[i] = 0u;
  if (t == 0) s_tile = atomicAdd(&look[ntiles * 256], 1u);
  __syncthreads();
  const i64 tile = (i64)s_tile, tile_lo = tile * (i64)TILE;
  // Keys in this tile, and where this warp's keys start in it (32-bit from here on).
  const int tn = n - tile_lo < (i64)TILE ? (int)(n - tile_lo) : TILE;
  const int wbase = (int)(warp * ws) * K;
  // Payloads are read only once the keys are in their places in the tile (or are the keys'
  // indices, `iota`): their loads are in flight while the tile looks back, and no registers
  // hold them while keys are ranked. Row passes take the row from the payload, so they read
  // payloads with the keys and hold them.
  constexpr bool HOLD = HV && RP;
  U k[K];
  V v[HOLD ? K : 1];
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const int q = wbase + j * (int)ws + (int)lane;
    if (q < tn) {
      const i64 i = tile_lo + q;
      k[j] = kin[i];
      if (HOLD) v[j] = io.iota ? (V)i : vin[i];
    }
  }
  // Keys made from values after every load is in flight.
  if (io.kind_in >= 0) {
#pragma unroll
    for (int j = 0; j < K; ++j) k[j] = key_rt<U>(k[j], io.kind_in, (U)io.inf, io.canon);
  }
  u32* wh = whist + warp * 256;
  // Per key: its rank among the warp's keys of its digit (low 16 bits) and the digit
  // (high bits; 256 past the end). The leader of the lanes sharing a digit adds their number
  // with an atomic that returns the count before: one warp's atomics on a counter take effect
  // in the order they are issued, so ranks follow the keys' order with no warp barrier, and
  // the next key's ballots need not wait for this one's count.
  u32 rd[K];
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const bool ok = wbase + j * (int)ws + (int)lane < tn;
    const unsigned dg = ok ? digit<U, V>(k[j], HOLD ? v[j] : (V)0, shift, row_len, 255u) : 256u;
    const lane_mask peers = peers_of(dg, ballot(ok));
    const int leader = mask_high(peers);
    u32 old = 0u;
    if ((int)lane == leader && ok) old = atomicAdd(&wh[dg], (u32)mask_popc(peers));
    old = shfl_idx(old, leader);
    rd[j] = (old + (u32)mask_popc(peers & lanes_below(lane))) | (dg << 16);
  }
  __syncthreads();
  // Thread t < 256 owns digit t: the warps' offsets, the tile's count, its place in the tile;
  // it publishes the tile's count at once, and looks back once the keys are in place.
  const bool owner = t < 256u;
  const unsigned d = owner ? t : 0u;
  u32 c = 0u;
  if (owner)
    for (unsigned w = 0; w < nw; ++w) {
      const u32 x = whist[w * 256 + d];
      whist[w * 256 + d] = c;
      c += x;
    }
  const u64 mine = owner ? ((u64)(tile == 0 ? hist[d] : 0u) << 32) | (u64)c : 0ull;
  const u64 ex = block_exclusive_u64(mine, wtot);
  u32* lk = look + tile * 256 + d;
  if (owner) {
    // The warps' offsets become places in the tile.
    for (unsigned w = 0; w < nw; ++w) whist[w * 256 + d] += (u32)ex;
    atomicExch(lk, tile == 0 ? kLookInc | ((u32)(ex >> 32) + c) : kLookAgg | c);
  }
  __syncthreads();
  // Each key to its place in the tile (`rd` becomes the place, digit above it).
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const unsigned dg = rd[j] >> 16;
    const u32 p = wh[dg & 255u] + (rd[j] & 0xffffu);
    rd[j] = (p & 0xffffu) | (dg << 16);
    if (dg < 256u) {
      sk[p] = k[j];
      if (HOLD) sv[p] = v[j];
      if (RP) sd[p] = (u8)dg;
    }
  }
  V pv[HV && !HOLD ? K : 1];
  if (HV && !HOLD && !io.iota) {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const int q = wbase + j * (int)ws + (int)lane;
      if (q < tn) pv[j] = vin[tile_lo + q];
    }
  }
  if (owner) {
    u32 start = (u32)(ex >> 32);
    if (tile > 0) {
      // A window of kLookWindow predecessors read at once (the loads overlap), nearest first,
      // summed up to the nearest one holding its inclusive prefix (tile 0 always does).
      u32 sum = 0u;
      for (i64 j = tile - 1;; j -= kLookWindow) {
        u32 f[kLookWindow];
#pragma unroll
        for (int w = 0; w < kLookWindow; ++w)
          f[w] = j - w >= 0 ? *reinterpret_cast<volatile u32*>(look + (j - w) * 256 + d) : kLookInc;
        bool found = false;
#pragma unroll
        for (int w = 0; w < kLookWindow; ++w) {
          if (found) break;
          while ((f[w] & ~kLookVal) == 0u) f[w] = *reinterpret_cast<volatile u32*>(look + (j - w) * 256 + d);
          sum += f[w] & kLookVal;
          found = (f[w] & kLookInc) != 0u;
        }
        if (found) break;
      }
      atomicExch(lk, kLookInc | (sum + c));
      start = sum;
    }
    gofs[d] = start - (u32)ex;
  }
  // The payloads to their keys' places.
  if (HV && !HOLD) {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const unsigned dg = rd[j] >> 16;
      if (dg < 256u) sv[rd[j] & 0xffffu] = io.iota ? (V)(tile_lo + wbase + j * (int)ws + (int)lane) : pv[j];
    }
  }
  __syncthreads();
  for (int p = t; p < tn; p += BT) {
    const unsigned dg = RP ? (unsigned)sd[p] : (unsigned)(((u64)sk[p] >> shift) & 255u);
    const i64 g = (i64)gofs[dg] + p;
    if (kout) kout[g] = io.kind_out >= 0 ? unkey_rt<U>(sk[p], io.kind_out, (U)io.nan) : sk[p];
    if (HV) {
      if (io.pos_len > 0) {
        // Positions of the first row (all of them when there is one) need no division;
        // 32-bit payloads divide in 32 bits.
        const u64 q = (u64)sv[p], m = (u64)io.pos_len;
        reinterpret_cast<i64*>(vout)[g] = (i64)(q < m ? q : sizeof(V) == 4 ? (u64)((u32)q % (u32)m) : q % m);
      } else {
        vout[g] = sv[p];
      }
    }
  }
}
#endif  // XP_GPU

// CPU kernels (compiled for GPUs too by the cross-vendor check).
template <class U, class V, bool HV>
XP_DEVICE void cpu_hist(const U* __restrict__ keys, const V* __restrict__ vals, u32* __restrict__ counts, i64 n,
                     i64 ntiles, i64 tile_len, int shift, i64 row_len) {
  const i64 tile = blockIdx.x;
  const i64 lo = tile * tile_len, hi = lo + tile_len < n ? lo + tile_len : n;
  u32 c[256];
  for (int d = 0; d < 256; ++d) c[d] = 0;
  for (i64 i = lo; i < hi; ++i) c[digit<U, V>(keys[i], HV ? vals[i] : (V)0, shift, row_len, 255u)]++;
  for (int d = 0; d < 256; ++d) counts[(i64)d * ntiles + tile] = c[d];
}
template <class U, class V, bool HV>
XP_DEVICE void cpu_scatter(const U* __restrict__ kin, const V* __restrict__ vin, U* __restrict__ kout, V* __restrict__ vout,
                        const u32* __restrict__ counts, const u64* __restrict__ incl, i64 n, i64 ntiles, i64 tile_len,
                        int shift, i64 row_len) {
  const i64 tile = blockIdx.x;
  const i64 lo = tile * tile_len, hi = lo + tile_len < n ? lo + tile_len : n;
  i64 o[256];
  for (int d = 0; d < 256; ++d) o[d] = (i64)incl[(i64)d * ntiles + tile] - (i64)counts[(i64)d * ntiles + tile];
  for (i64 i = lo; i < hi; ++i) {
    const U key = kin[i];
    const V val = HV ? vin[i] : (V)0;
    const i64 g = o[digit<U, V>(key, val, shift, row_len, 255u)]++;
    kout[g] = key;
    if (HV) vout[g] = val;
  }
}
}  // namespace sort
}  // namespace xp
#endif
