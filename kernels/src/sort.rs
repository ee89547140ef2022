//! Sorting and searching kernels: an LSB radix sort over unsigned keys, the maps from every
//! dtype to keys whose unsigned order is NumPy's order, and a binary search.
//!
//! # Keys
//!
//! A value of `b` bytes becomes an unsigned key of `b` bytes: unsigned integers and bool as they
//! are, signed integers with the sign bit flipped, floats by their bits (negative values
//! inverted, positive ones with the sign bit set), so that unsigned order is numeric order.
//! Every NaN becomes the largest key, so NaNs sort last as NumPy's; with `canon` set, -0.0
//! becomes +0.0 (NumPy's sorts and searches treat them as equal, and a stable argsort must keep
//! their order). Complex values take three keys, least significant first: the imaginary part,
//! the real part, and a class (0 no NaN, 1 imaginary NaN, 2 real NaN, 3 both), which is NumPy's
//! order `[R + Rj, R + nanj, nan + Rj, nan + nanj]`. Key kernels read values by their bits,
//! so one kernel per key width and kind (unsigned, signed, float) serves every dtype; the float
//! kind takes the dtype's infinity and NaN bits as arguments.
//!
//! # The radix sort
//!
//! Least significant digit first, stable, `digit_bits` bits a pass (4 on GPUs, 8 on the CPU),
//! over keys of 1 to 8 bytes with an optional payload (a u32 or u64 per key, the element's
//! flat position, for argsort). A pass is a histogram launch (per tile, per digit; stored
//! digit-major, so that one inclusive scan of the counts, the caller's `cumsum`, gives every
//! tile's global offset for every digit) and a scatter launch that moves each tile's keys to
//! their places, keeping their order. A sort of many rows at once takes further passes whose
//! digit is the row (the payload divided by the row length), so rows end up in order and each
//! sorted.
//! - GPU: blocks of 256 threads own tiles of `256 * K` keys (`K` = 8, or 4 when key and payload
//!   take more than 8 bytes), `K` consecutive keys a thread. Per-thread digit counts are packed
//!   16 bits a digit in four registers; one block-wide scan of them (warp shuffles, then
//!   shared memory across warps) gives each key its place in the tile, the tile is reordered in
//!   shared memory and written out coalesced.
//! - CPU: a work item owns a contiguous tile and runs it sequentially, which is stable by
//!   construction.
//!
//! # Onesweep (GPUs)
//!
//! GPU sorts of up to 2^30 - 1 keys take 8-bit digits and one launch a pass, after one
//! histogram launch that counts every pass's digits (four passes a launch): 4 passes and 5
//! reads of a float32 array instead of 8 passes of histogram, scan and scatter.
//! - A pass takes tiles of `256 * K` keys (`K` by the key's and payload's widths, as many as
//!   the static shared memory holds, see [`onesweep_items_per_thread`]) in the order its
//!   blocks start (a counter). Each warp ranks its `32 * K` consecutive keys with per-warp
//!   digit counters: the lanes holding one digit, found by eight ballots (the hardware's
//!   match vote takes a step per distinct value, which random digits make slow), agree on a
//!   leader whose atomic add returns their rank base. After the tile's scan the warps'
//!   counters hold places in the tile, so a key's place is one shared read.
//! - The tile then publishes its 256 digit counts, and one thread a digit looks back over
//!   the tiles before it, 16 at a time, for its global offset (words of a 2-bit flag and a
//!   30-bit count: "count only" or "inclusive prefix"; tile 0 starts from the histogram).
//! - Keys are reordered in shared memory and written out in digit runs. Payloads are read
//!   only once the keys are in place (their loads in flight during the look-back), so no
//!   registers hold them while keys are ranked; passes with payloads run three blocks a
//!   multiprocessor (80 registers a thread, none spilled), key-only passes four (64).
//! - The first pass can read values and make their keys (and take element indices as the
//!   payload); the last can write values back, or int64 positions within rows for
//!   `argsort`, so no launch of its own is spent on either.
//! - The histogram launch spreads lanes over eight copies of the counters, an odd number of
//!   words apart so that copies of one digit sit in different banks: keys with equal high
//!   bytes (floats of one range, small integers in wide types) do not all contend for one
//!   counter. Each thread keeps eight loads in flight. Its key kind and whether rows are
//!   counted are compiled in (a kernel each), so the loop spends nothing on them.
//! - Digits of row passes are kept in shared memory (a byte a key) by the row-pass kernel
//!   only; key passes find them from the keys.

use xp_backend_api::DType;

use crate::plan::{PlanArg, PlannedLaunch, Target};
use crate::render::Rendered;
use xp_backend_api::LaunchConfig;

/// Threads of a GPU radix block.
pub const GPU_RADIX_BLOCK: u32 = 256;

const SORT_ENGINE: &str = r#"
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
"#;

/// The C type of an unsigned word of `bytes` bytes.
fn word(bytes: usize) -> &'static str {
    match bytes {
        1 => "xp::u8",
        2 => "xp::u16",
        4 => "xp::u32",
        _ => "xp::u64",
    }
}

/// How the values of a dtype become keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// Unsigned integers and bool: the bits.
    Unsigned,
    /// Signed integers: the sign bit flipped.
    Signed,
    /// Floats (and each part of a complex): see the module docs.
    Float,
}

impl KeyKind {
    fn code(self) -> i32 {
        match self {
            KeyKind::Unsigned => 0,
            KeyKind::Signed => 1,
            KeyKind::Float => 2,
        }
    }
    fn tag(self) -> &'static str {
        match self {
            KeyKind::Unsigned => "u",
            KeyKind::Signed => "s",
            KeyKind::Float => "f",
        }
    }
}

/// The key format of a dtype: key width (of one part, for complex), kind, the bits of its
/// infinity and of its canonical NaN (floats), whether it is complex, and the bits that can
/// differ between keys (1 for bool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyFormat {
    /// Bytes of a key.
    pub bytes: usize,
    /// See [`KeyKind`].
    pub kind: KeyKind,
    /// The bits of +infinity (floats).
    pub inf_bits: u64,
    /// The bits of the NaN that sorted NaNs come back as.
    pub nan_bits: u64,
    /// Two float keys and a class key per value.
    pub complex: bool,
    /// Key bits that can be set (the radix passes needed).
    pub bits: u32,
}

/// See [`KeyFormat`].
pub fn key_format(dt: DType) -> KeyFormat {
    let (bytes, kind, inf_bits, nan_bits, complex) = match dt {
        DType::Bool | DType::U8 | DType::U16 | DType::U32 | DType::U64 => (dt.size(), KeyKind::Unsigned, 0, 0, false),
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => (dt.size(), KeyKind::Signed, 0, 0, false),
        DType::F16 => (2, KeyKind::Float, 0x7c00, 0x7e00, false),
        DType::BF16 => (2, KeyKind::Float, 0x7f80, 0x7fc0, false),
        DType::F32 => (4, KeyKind::Float, 0x7f80_0000, 0x7fc0_0000, false),
        DType::F64 => (8, KeyKind::Float, 0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0000, false),
        DType::C64 => (4, KeyKind::Float, 0x7f80_0000, 0x7fc0_0000, true),
        DType::C128 => (8, KeyKind::Float, 0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0000, true),
    };
    let bits = if dt == DType::Bool { 1 } else { 8 * bytes as u32 };
    KeyFormat { bytes, kind, inf_bits, nan_bits, complex, bits }
}

fn kernel(name: String, body: String) -> Rendered {
    Rendered { name, code: format!("{SORT_ENGINE}\n{body}") }
}

/// `keys[i] = key(x[i])` over `n` values read as words of `bytes` bytes.
///
/// Parameters: `const U* x, U* keys, xp::i64 n, xp::u64 inf, int canon`.
pub fn key_kernel(bytes: usize, kind: KeyKind) -> Rendered {
    let u = word(bytes);
    let name = format!("xp_sort_key_{}{}", kind.tag(), bytes * 8);
    let k = kind.code();
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}(const {u}* __restrict__ x, {u}* __restrict__ keys, xp::i64 n, xp::u64 inf, int canon) {{
  XP_FOR_EACH(xp::i64, i, n) keys[i] = xp::sort::key_of<{u}, {k}>(x[i], ({u})inf, canon);
}}
"
        ),
    )
}

/// The inverse of [`key_kernel`] (NaNs come back as `nan`).
///
/// Parameters: `const U* keys, U* out, xp::i64 n, xp::u64 nan`.
pub fn unkey_kernel(bytes: usize, kind: KeyKind) -> Rendered {
    let u = word(bytes);
    let name = format!("xp_sort_unkey_{}{}", kind.tag(), bytes * 8);
    let k = kind.code();
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}(const {u}* __restrict__ keys, {u}* __restrict__ out, xp::i64 n, xp::u64 nan) {{
  XP_FOR_EACH(xp::i64, i, n) out[i] = xp::sort::unkey<{u}, {k}>(keys[i], ({u})nan);
}}
"
        ),
    )
}

/// The three keys of complex values whose parts are floats of `bytes` bytes: imaginary,
/// real, class (see the module docs).
///
/// Parameters: `const U* x, U* im, U* re, xp::u8* cls, xp::i64 n, xp::u64 inf, int canon`.
pub fn complex_key_kernel(bytes: usize) -> Rendered {
    let u = word(bytes);
    let name = format!("xp_sort_ckey_{}", bytes * 8);
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}(const {u}* __restrict__ x, {u}* __restrict__ im, {u}* __restrict__ re, xp::u8* __restrict__ cls, xp::i64 n, xp::u64 inf, int canon) {{
  const {u} all = ({u})~({u})0;
  XP_FOR_EACH(xp::i64, i, n) {{
    const {u} r = xp::sort::float_key<{u}>(x[2 * i], ({u})inf, canon);
    const {u} m = xp::sort::float_key<{u}>(x[2 * i + 1], ({u})inf, canon);
    const int c = (r == all ? 2 : 0) + (m == all ? 1 : 0);
    re[i] = r;
    im[i] = m;
    cls[i] = (xp::u8)c;
  }}
}}
"
        ),
    )
}

/// `v[i] = i`. Parameters: `V* v, xp::i64 n`.
pub fn iota_kernel(vbytes: usize) -> Rendered {
    let v = word(vbytes);
    let name = format!("xp_sort_iota_{}", vbytes * 8);
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}({v}* __restrict__ v, xp::i64 n) {{
  XP_FOR_EACH(xp::i64, i, n) v[i] = ({v})i;
}}
"
        ),
    )
}

/// `out[i] = v[i] % len` as int64: the position within its row of each sorted element.
/// Parameters: `const V* v, xp::i64* out, xp::i64 n, xp::i64 len`.
pub fn position_kernel(vbytes: usize) -> Rendered {
    let v = word(vbytes);
    let name = format!("xp_sort_pos_{}", vbytes * 8);
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}(const {v}* __restrict__ v, xp::i64* __restrict__ out, xp::i64 n, xp::i64 len) {{
  XP_FOR_EACH(xp::i64, i, n) out[i] = (xp::i64)((xp::u64)v[i] % (xp::u64)len);
}}
"
        ),
    )
}

/// `out[i] = src[v[i]]` (keys gathered into the order of a payload).
/// Parameters: `const U* src, const V* v, U* out, xp::i64 n`.
pub fn gather_kernel(bytes: usize, vbytes: usize) -> Rendered {
    let (u, v) = (word(bytes), word(vbytes));
    let name = format!("xp_sort_gather_{}_{}", bytes * 8, vbytes * 8);
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}(const {u}* __restrict__ src, const {v}* __restrict__ v, {u}* __restrict__ out, xp::i64 n) {{
  XP_FOR_EACH(xp::i64, i, n) out[i] = src[v[i]];
}}
"
        ),
    )
}

/// The name tag, key type and payload type of a radix kernel (a payload type is named even
/// when there is none, for the signature).
fn tparams(bytes: usize, vbytes: usize) -> (String, &'static str, &'static str) {
    let v = if vbytes == 0 { "xp::u32" } else { word(vbytes) };
    (format!("{}_v{}", bytes * 8, vbytes * 8), word(bytes), v)
}

/// Keys a GPU thread owns in a radix pass.
pub fn gpu_items_per_thread(bytes: usize, vbytes: usize) -> usize {
    if bytes + vbytes <= 8 {
        8
    } else {
        4
    }
}

/// The histogram launch of a radix pass (see the module docs).
///
/// Parameters (GPU): `const U* keys, const V* vals, xp::u32* counts, xp::i64 n, xp::i64 ntiles,
/// int shift, xp::i64 row_len`; the CPU's take `xp::i64 tile_len` after `ntiles`.
pub fn hist_kernel(bytes: usize, vbytes: usize, gpu: bool) -> Rendered {
    let (tag, u, v) = tparams(bytes, vbytes);
    let hv = vbytes > 0;
    let name = format!("xp_radix_hist_{}_{tag}", if gpu { "gpu" } else { "cpu" });
    let body = if gpu {
        let k = gpu_items_per_thread(bytes, vbytes);
        format!(
            "extern \"C\" __global__ void __launch_bounds__(256) {name}(const {u}* __restrict__ keys, const {v}* __restrict__ vals, xp::u32* __restrict__ counts, xp::i64 n, xp::i64 ntiles, int shift, xp::i64 row_len) {{
  xp::sort::gpu_hist<{u}, {v}, {hv}, {k}>(keys, vals, counts, n, ntiles, shift, row_len);
}}
"
        )
    } else {
        format!(
            "extern \"C\" __global__ void {name}(const {u}* __restrict__ keys, const {v}* __restrict__ vals, xp::u32* __restrict__ counts, xp::i64 n, xp::i64 ntiles, xp::i64 tile_len, int shift, xp::i64 row_len) {{
  xp::sort::cpu_hist<{u}, {v}, {hv}>(keys, vals, counts, n, ntiles, tile_len, shift, row_len);
}}
"
        )
    };
    kernel(name, body)
}

/// The scatter launch of a radix pass.
///
/// Parameters (GPU): `const U* kin, const V* vin, U* kout, V* vout, const xp::u64* incl,
/// xp::i64 n, xp::i64 ntiles, int shift, xp::i64 row_len`; the CPU's take `const xp::u32*
/// counts` before `incl` and `xp::i64 tile_len` after `ntiles`.
pub fn scatter_kernel(bytes: usize, vbytes: usize, gpu: bool) -> Rendered {
    let (tag, u, v) = tparams(bytes, vbytes);
    let hv = vbytes > 0;
    let name = format!("xp_radix_scatter_{}_{tag}", if gpu { "gpu" } else { "cpu" });
    let body = if gpu {
        let k = gpu_items_per_thread(bytes, vbytes);
        format!(
            "extern \"C\" __global__ void __launch_bounds__(256) {name}(const {u}* __restrict__ kin, const {v}* __restrict__ vin, {u}* __restrict__ kout, {v}* __restrict__ vout, const xp::u64* __restrict__ incl, xp::i64 n, xp::i64 ntiles, int shift, xp::i64 row_len) {{
  xp::sort::gpu_scatter<{u}, {v}, {hv}, {k}>(kin, vin, kout, vout, incl, n, ntiles, shift, row_len);
}}
"
        )
    } else {
        format!(
            "extern \"C\" __global__ void {name}(const {u}* __restrict__ kin, const {v}* __restrict__ vin, {u}* __restrict__ kout, {v}* __restrict__ vout, const xp::u32* __restrict__ counts, const xp::u64* __restrict__ incl, xp::i64 n, xp::i64 ntiles, xp::i64 tile_len, int shift, xp::i64 row_len) {{
  xp::sort::cpu_scatter<{u}, {v}, {hv}>(kin, vin, kout, vout, counts, incl, n, ntiles, tile_len, shift, row_len);
}}
"
        )
    };
    kernel(name, body)
}

/// `out[i]` = the insertion point of `v[i]` in the sorted `a` (`side` right when `right`):
/// a binary search comparing keys, so NaNs and signed zeros follow NumPy. Complex values
/// compare by (class, real key, imaginary key).
///
/// Parameters: `const U* a, xp::i64 na, const U* v, xp::i64 nv, xp::i64* out, int right,
/// xp::u64 inf` (for complex, `a` and `v` are the interleaved parts).
pub fn searchsorted_kernel(bytes: usize, kind: KeyKind, complex: bool) -> Rendered {
    let u = word(bytes);
    let k = kind.code();
    let name = format!("xp_searchsorted_{}{}{}", if complex { "c" } else { "" }, kind.tag(), bytes * 8);
    let (load, less) = if complex {
        (
            format!(
                "struct K {{ int c; {u} r, m; }};
  auto key = [&](const {u}* p, xp::i64 j) {{
    K q;
    q.r = xp::sort::float_key<{u}>(p[2 * j], ({u})inf, 1);
    q.m = xp::sort::float_key<{u}>(p[2 * j + 1], ({u})inf, 1);
    q.c = (q.r == ({u})~({u})0 ? 2 : 0) + (q.m == ({u})~({u})0 ? 1 : 0);
    return q;
  }};"
            ),
            "auto lt = [](const K& x, const K& y) { return x.c != y.c ? x.c < y.c : x.r != y.r ? x.r < y.r : x.m < y.m; };"
                .to_string(),
        )
    } else {
        (
            format!(
                "auto key = [&](const {u}* p, xp::i64 j) {{ return xp::sort::key_of<{u}, {k}>(p[j], ({u})inf, 1); }};"
            ),
            format!("auto lt = []({u} x, {u} y) {{ return x < y; }};"),
        )
    };
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void {name}(const {u}* __restrict__ a, xp::i64 na, const {u}* __restrict__ v, xp::i64 nv, xp::i64* __restrict__ out, int right, xp::u64 inf) {{
  {load}
  {less}
  XP_FOR_EACH(xp::i64, i, nv) {{
    const auto x = key(v, i);
    xp::i64 lo = 0, hi = na;
    while (lo < hi) {{
      const xp::i64 mid = lo + (hi - lo) / 2;
      const auto y = key(a, mid);
      const bool go_right = right ? !lt(x, y) : lt(y, x);
      if (go_right) lo = mid + 1; else hi = mid;
    }}
    out[i] = lo;
  }}
}}
"
        ),
    )
}

/// How a radix sort of `n` keys runs on a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RadixPlan {
    /// Keys sorted.
    pub n: usize,
    /// Bits a pass.
    pub digit_bits: u32,
    /// Keys a tile.
    pub tile: usize,
    /// Tiles.
    pub ntiles: usize,
    /// GPU kernels (else the CPU's).
    pub gpu: bool,
}

impl RadixPlan {
    /// The plan for `n` keys of `bytes` bytes with payloads of `vbytes` (0: none).
    pub fn new(n: usize, bytes: usize, vbytes: usize, target: Target) -> RadixPlan {
        match target {
            Target::Gpu { .. } => {
                let tile = GPU_RADIX_BLOCK as usize * gpu_items_per_thread(bytes, vbytes);
                RadixPlan { n, digit_bits: 4, tile, ntiles: n.div_ceil(tile).max(1), gpu: true }
            }
            Target::Cpu { workers } => {
                let ntiles = (n / 32768).clamp(1, workers.max(1) * 4);
                RadixPlan { n, digit_bits: 8, tile: n.div_ceil(ntiles).max(1), ntiles, gpu: false }
            }
        }
    }

    /// Digits of a pass.
    pub fn radix(&self) -> usize {
        1 << self.digit_bits
    }

    /// Entries of the counts array (u32, digit-major).
    pub fn count_len(&self) -> usize {
        self.radix() * self.ntiles
    }

    fn config(&self) -> LaunchConfig {
        if self.gpu {
            LaunchConfig::new(self.ntiles as u32, GPU_RADIX_BLOCK)
        } else {
            LaunchConfig::new(self.ntiles as u32, 1)
        }
    }

    /// The histogram launch of a pass at `shift` (of the row when `row_len > 0`). Operands: 0
    /// the keys, 1 the payload (when `vbytes > 0`), 2 the u32 counts.
    pub fn hist(&self, bytes: usize, vbytes: usize, shift: u32, row_len: usize) -> PlannedLaunch {
        let vals = if vbytes > 0 { PlanArg::Operand(1) } else { PlanArg::Null };
        let mut args = vec![
            PlanArg::Operand(0),
            vals,
            PlanArg::Operand(2),
            PlanArg::I64(self.n as i64),
            PlanArg::I64(self.ntiles as i64),
        ];
        if !self.gpu {
            args.push(PlanArg::I64(self.tile as i64));
        }
        args.extend([PlanArg::I32(shift as i32), PlanArg::I64(row_len as i64)]);
        PlannedLaunch { kernel: hist_kernel(bytes, vbytes, self.gpu), config: self.config(), args }
    }

    /// The scatter launch of a pass. Operands: 0 keys in, 1 payload in, 2 keys out, 3 payload
    /// out, 4 the u32 counts, 5 their inclusive scan (u64).
    pub fn scatter(&self, bytes: usize, vbytes: usize, shift: u32, row_len: usize) -> PlannedLaunch {
        let (vin, vout) =
            if vbytes > 0 { (PlanArg::Operand(1), PlanArg::Operand(3)) } else { (PlanArg::Null, PlanArg::Null) };
        let mut args = vec![PlanArg::Operand(0), vin, PlanArg::Operand(2), vout];
        if !self.gpu {
            args.push(PlanArg::Operand(4));
        }
        args.extend([PlanArg::Operand(5), PlanArg::I64(self.n as i64), PlanArg::I64(self.ntiles as i64)]);
        if !self.gpu {
            args.push(PlanArg::I64(self.tile as i64));
        }
        args.extend([PlanArg::I32(shift as i32), PlanArg::I64(row_len as i64)]);
        PlannedLaunch { kernel: scatter_kernel(bytes, vbytes, self.gpu), config: self.config(), args }
    }
}

/// Passes one onesweep histogram launch counts.
pub const HIST_PASSES: u32 = 4;

/// Threads of an onesweep pass's block (at least 256: a thread a digit).
pub fn onesweep_threads(bytes: usize, vbytes: usize) -> u32 {
    let _ = (bytes, vbytes);
    GPU_RADIX_BLOCK
}

/// The blocks of an onesweep pass a GPU multiprocessor should hold at once (the launch bound
/// that caps registers: 64 a thread at 4 blocks of 256, 80 at 3).
///
/// Measured on an H100 (2^26 float32 keys, four passes): keys alone sort in 1.65 ms at 4
/// blocks and 1.71 ms at 3; with int32 positions 3.16 ms at 4 blocks, where 16 keys and
/// payloads a thread spill to local memory in the look-back, and 2.84 ms at 3, where nothing
/// spills.
pub fn onesweep_blocks_per_sm(vbytes: usize) -> u32 {
    let threads = if vbytes == 0 { 1024 } else { 768 };
    (threads / GPU_RADIX_BLOCK).max(1)
}

/// Static shared memory one block may hold.
const SHARED_BYTES: usize = 48 * 1024;

/// The static shared memory of an onesweep pass: the tile's keys, payloads and (row passes)
/// digits, the warps' counters, the digits' global offsets and the warps' totals.
fn onesweep_shared(bytes: usize, vbytes: usize, rows: bool, threads: usize, k: usize) -> usize {
    let warps = threads / 32;
    threads * k * (bytes + vbytes + rows as usize) + warps * 256 * 4 + 256 * 4 + warps * 8 + 4
}

/// Keys a GPU thread owns in an onesweep pass: as many as the tile's shared memory allows, up
/// to a number by the key's and payload's widths; `rows`: the sort has row passes (a byte a key
/// more).
pub fn onesweep_items_per_thread(bytes: usize, vbytes: usize, rows: bool) -> usize {
    // Measured on an H200 (2^26 float32 keys): 16, 24, 28 and 32 keys a thread sort in
    // 1.89, 1.71, 1.73 and 1.79 ms; with int32 payloads 12, 16 and 20 in 2.92, 2.90, 3.21 ms.
    let want = match bytes + vbytes {
        0..=4 => 24,
        5..=8 => 16,
        _ => 8,
    };
    let threads = onesweep_threads(bytes, vbytes) as usize;
    (1..=want).rev().find(|&k| onesweep_shared(bytes, vbytes, rows, threads, k) <= SHARED_BYTES).unwrap_or(1)
}

/// The onesweep histogram launch (every pass's digit counts in one read).
///
/// Parameters: `const U* x, xp::u32* hist, xp::i64 n, int p0, int np, int key_passes,
/// xp::i64 row_len, xp::u64 inf, int canon`: the counts of passes `p0 .. p0 + np` (`np` at
/// most [`HIST_PASSES`]). `kind`: the kind of the values `x` holds (their keys made as they
/// are read), `None` where `x` holds keys; `rows`: the sort has row passes.
pub fn onesweep_hist_kernel(bytes: usize, kind: Option<KeyKind>, rows: bool) -> Rendered {
    let u = word(bytes);
    let code = kind.map_or(-1, KeyKind::code);
    let name = format!(
        "xp_onesweep_hist_{}_{}{}",
        bytes * 8,
        kind.map_or("keys", KeyKind::tag),
        if rows { "_rows" } else { "" }
    );
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void __launch_bounds__(256) {name}(const {u}* __restrict__ x, xp::u32* __restrict__ hist, xp::i64 n, int p0, int np, int key_passes, xp::i64 row_len, xp::u64 inf, int canon) {{
  xp::sort::onesweep_hist<{u}, {code}, {rows}>(x, hist, n, p0, np, key_passes, row_len, ({u})inf, canon);
}}
"
        ),
    )
}

/// One onesweep pass with `k` keys a thread ([`onesweep_items_per_thread`]); `rows`: a pass
/// over the row index's digits.
///
/// Parameters: `const U* kin, const V* vin, U* kout, V* vout, const xp::u32* hist, xp::u32*
/// look, xp::i64 n, xp::i64 ntiles, int pass, int shift, xp::i64 row_len`, then what the pass
/// does besides (see [`PassIo`]): `int kind_in, xp::u64 inf, int canon, int iota, int
/// kind_out, xp::u64 nan, xp::i64 pos_len`.
pub fn onesweep_pass_kernel(bytes: usize, vbytes: usize, rows: bool, k: usize) -> Rendered {
    let (tag, u, v) = tparams(bytes, vbytes);
    let hv = vbytes > 0;
    let bt = onesweep_threads(bytes, vbytes);
    let mb = onesweep_blocks_per_sm(vbytes);
    let name = format!("xp_onesweep_{}_{tag}_k{k}", if rows { "rows" } else { "pass" });
    kernel(
        name.clone(),
        format!(
            "extern \"C\" __global__ void __launch_bounds__({bt}, {mb}) {name}(const {u}* __restrict__ kin, const {v}* __restrict__ vin, {u}* __restrict__ kout, {v}* __restrict__ vout, const xp::u32* __restrict__ hist, xp::u32* __restrict__ look, xp::i64 n, xp::i64 ntiles, int pass, int shift, xp::i64 row_len, int kind_in, xp::u64 inf, int canon, int iota, int kind_out, xp::u64 nan, xp::i64 pos_len) {{
  xp::sort::PassIo io;
  io.kind_in = kind_in;
  io.canon = canon;
  io.kind_out = kind_out;
  io.iota = iota;
  io.inf = inf;
  io.nan = nan;
  io.pos_len = pos_len;
  xp::sort::onesweep_pass<{u}, {v}, {hv}, {k}, {bt}, {rows}>(kin, vin, kout, vout, hist + (xp::i64)pass * 256, look + (xp::i64)pass * (ntiles * 256 + 1), n, ntiles, shift, row_len, io);
}}
"
        ),
    )
}

/// What an onesweep pass does besides moving keys (the first pass may make keys from values
/// and the payload from positions; the last may turn keys back into values, or write none,
/// and write the payload as int64 positions within rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PassIo {
    /// Keys made from values of this kind as they are read (first pass).
    pub key_in: Option<KeyKind>,
    /// The bits of the values' +infinity (floats).
    pub inf_bits: u64,
    /// -0.0 read as +0.0.
    pub canon: bool,
    /// The payload read is each element's index (first pass; the payload input is unbound).
    pub iota: bool,
    /// Keys written back as values of this kind (last pass).
    pub key_out: Option<KeyKind>,
    /// The bits NaNs come back as.
    pub nan_bits: u64,
    /// The payload written as int64 `payload % pos_len` (last pass; 0: as it is).
    pub pos_len: usize,
}

/// How an onesweep radix sort (GPUs: 8-bit digits, one launch a pass after one histogram
/// launch) runs: `key_passes` over the key's bits, then `row_passes` over the row index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnesweepPlan {
    /// Keys sorted.
    pub n: usize,
    /// Keys a tile.
    pub tile: usize,
    /// Tiles.
    pub ntiles: usize,
    /// Passes over the key's digits.
    pub key_passes: u32,
    /// Passes over the row's digits.
    pub row_passes: u32,
    /// Elements a row (0: one row).
    pub row_len: usize,
    hist_blocks: u32,
    threads: u32,
    items: usize,
}

impl OnesweepPlan {
    /// Keys an onesweep sort takes: tile counts and offsets live in 30 bits.
    pub const MAX_KEYS: usize = (1 << 30) - 1;

    /// The plan for `n` keys (`n` at most [`Self::MAX_KEYS`]) of `bytes` bytes with `bits`
    /// significant bits, payloads of `vbytes`, and `rows` rows of `row_len` when `rows > 1`.
    /// `None` off GPUs or for more keys.
    pub fn new(
        n: usize,
        bytes: usize,
        vbytes: usize,
        bits: u32,
        rows: usize,
        row_len: usize,
        target: Target,
    ) -> Option<OnesweepPlan> {
        let Target::Gpu { sm_count, .. } = target else { return None };
        if n > Self::MAX_KEYS || n == 0 {
            return None;
        }
        let threads = onesweep_threads(bytes, vbytes);
        let row_bits = if rows > 1 { usize::BITS - (rows - 1).leading_zeros() } else { 0 };
        let items = onesweep_items_per_thread(bytes, vbytes, row_bits > 0);
        let tile = threads as usize * items;
        let ntiles = n.div_ceil(tile);
        let hist_blocks = (ntiles as u32).clamp(1, sm_count.max(1) * 8);
        Some(OnesweepPlan {
            n,
            tile,
            ntiles,
            key_passes: bits.div_ceil(8).max(1),
            row_passes: row_bits.div_ceil(8),
            row_len: if rows > 1 { row_len } else { 0 },
            hist_blocks,
            threads,
            items,
        })
    }

    /// Passes in all.
    pub fn passes(&self) -> u32 {
        self.key_passes + self.row_passes
    }

    /// Entries of the u32 histogram array (zeroed before [`Self::hist`]).
    pub fn hist_len(&self) -> usize {
        self.passes() as usize * 256
    }

    /// Entries of the u32 look-back array (zeroed before the first pass).
    pub fn look_len(&self) -> usize {
        self.passes() as usize * (self.ntiles * 256 + 1)
    }

    /// The histogram launches (one per [`HIST_PASSES`] passes), over keys or (`key_in`)
    /// values. Operands: 0 the keys or values, 1 the histogram.
    pub fn hist(&self, bytes: usize, io: &PassIo) -> Vec<PlannedLaunch> {
        (0..self.passes())
            .step_by(HIST_PASSES as usize)
            .map(|p0| PlannedLaunch {
                kernel: onesweep_hist_kernel(bytes, io.key_in, self.row_passes > 0),
                config: LaunchConfig::new(self.hist_blocks, GPU_RADIX_BLOCK),
                args: vec![
                    PlanArg::Operand(0),
                    PlanArg::Operand(1),
                    PlanArg::I64(self.n as i64),
                    PlanArg::I32(p0 as i32),
                    PlanArg::I32((self.passes() - p0).min(HIST_PASSES) as i32),
                    PlanArg::I32(self.key_passes as i32),
                    PlanArg::I64(self.row_len as i64),
                    PlanArg::I64(io.inf_bits as i64),
                    PlanArg::I32(io.canon as i32),
                ],
            })
            .collect()
    }

    /// Pass `p`. Operands: 0 keys in, 1 payload in, 2 keys out, 3 payload out, 4 the
    /// histogram, 5 the look-back array. `io` applies where it can: its first-pass parts to
    /// pass 0, its last-pass parts to the last pass; with `keys_out` false the last pass
    /// writes no keys.
    pub fn pass(&self, bytes: usize, vbytes: usize, p: u32, io: &PassIo, keys_out: bool) -> PlannedLaunch {
        let (first, last) = (p == 0, p + 1 == self.passes());
        let vin = if vbytes == 0 || (first && io.iota) { PlanArg::Null } else { PlanArg::Operand(1) };
        let vout = if vbytes > 0 { PlanArg::Operand(3) } else { PlanArg::Null };
        let kout = if last && !keys_out { PlanArg::Null } else { PlanArg::Operand(2) };
        let (shift, row_len) = if p < self.key_passes { (8 * p, 0) } else { (8 * (p - self.key_passes), self.row_len) };
        PlannedLaunch {
            kernel: onesweep_pass_kernel(bytes, vbytes, p >= self.key_passes, self.items),
            config: LaunchConfig::new(self.ntiles as u32, self.threads),
            args: vec![
                PlanArg::Operand(0),
                vin,
                kout,
                vout,
                PlanArg::Operand(4),
                PlanArg::Operand(5),
                PlanArg::I64(self.n as i64),
                PlanArg::I64(self.ntiles as i64),
                PlanArg::I32(p as i32),
                PlanArg::I32(shift as i32),
                PlanArg::I64(row_len as i64),
                PlanArg::I32(if first { io.key_in.map_or(-1, KeyKind::code) } else { -1 }),
                PlanArg::I64(io.inf_bits as i64),
                PlanArg::I32(io.canon as i32),
                PlanArg::I32((first && io.iota) as i32),
                PlanArg::I32(if last { io.key_out.map_or(-1, KeyKind::code) } else { -1 }),
                PlanArg::I64(io.nan_bits as i64),
                PlanArg::I64(if last { io.pos_len as i64 } else { 0 }),
            ],
        }
    }
}

/// Key widths of the radix kernels.
pub const KEY_BYTES: [usize; 4] = [1, 2, 4, 8];
/// Payload widths (0: none).
pub const PAYLOAD_BYTES: [usize; 3] = [0, 4, 8];

fn elementwise_kernels() -> Vec<Rendered> {
    let mut v = Vec::new();
    for b in KEY_BYTES {
        for kind in [KeyKind::Unsigned, KeyKind::Signed] {
            v.push(key_kernel(b, kind));
            v.push(unkey_kernel(b, kind));
            v.push(searchsorted_kernel(b, kind, false));
        }
        if b >= 2 {
            v.push(key_kernel(b, KeyKind::Float));
            v.push(unkey_kernel(b, KeyKind::Float));
            v.push(searchsorted_kernel(b, KeyKind::Float, false));
        }
        for vb in [4, 8] {
            v.push(gather_kernel(b, vb));
        }
    }
    for b in [4, 8] {
        v.push(complex_key_kernel(b));
        v.push(searchsorted_kernel(b, KeyKind::Float, true));
        v.push(iota_kernel(b));
        v.push(position_kernel(b));
    }
    v
}

/// Every sort kernel of the CPU (built ahead of time there).
pub fn builtin_kernels() -> Vec<Rendered> {
    let mut v = elementwise_kernels();
    for b in KEY_BYTES {
        for vb in PAYLOAD_BYTES {
            v.push(hist_kernel(b, vb, false));
            v.push(scatter_kernel(b, vb, false));
        }
    }
    v
}

/// The GPU-only sort kernels (compiled by the cross-vendor check).
pub fn gpu_only_kernels() -> Vec<Rendered> {
    let mut v = Vec::new();
    for b in KEY_BYTES {
        for vb in PAYLOAD_BYTES {
            v.push(hist_kernel(b, vb, true));
            v.push(scatter_kernel(b, vb, true));
            for rows in [false, true] {
                v.push(onesweep_pass_kernel(b, vb, rows, onesweep_items_per_thread(b, vb, rows)));
            }
        }
        for kind in [None, Some(KeyKind::Unsigned), Some(KeyKind::Signed), Some(KeyKind::Float)] {
            if kind == Some(KeyKind::Float) && b == 1 {
                continue;
            }
            for rows in [false, true] {
                v.push(onesweep_hist_kernel(b, kind, rows));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_names_are_unique() {
        let mut all = builtin_kernels();
        all.extend(gpu_only_kernels());
        let mut names: Vec<_> = all.iter().map(|k| k.name.clone()).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn plans_cover_every_key() {
        let p = RadixPlan::new(
            1 << 20,
            4,
            4,
            Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024, max_grid_x: i32::MAX as u32 },
        );
        assert_eq!(p.tile, 2048);
        assert_eq!(p.ntiles * p.tile, 1 << 20);
        let c = RadixPlan::new(100_001, 8, 8, Target::Cpu { workers: 2 });
        assert!(c.ntiles * c.tile >= 100_001 && c.digit_bits == 8);
        assert_eq!(key_format(DType::Bool).bits, 1);
        assert!(key_format(DType::C64).complex);
    }

    #[test]
    fn onesweep_plans_count_passes_and_launches() {
        let gpu =
            Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024, max_grid_x: i32::MAX as u32 };
        let p = OnesweepPlan::new(1 << 26, 4, 0, 32, 1, 1 << 26, gpu).unwrap();
        assert_eq!((p.key_passes, p.row_passes, p.tile, p.ntiles), (4, 0, 6144, (1 << 26) / 6144 + 1));
        assert_eq!(p.hist(4, &PassIo::default()).len(), 1);
        assert_eq!(p.look_len(), 4 * (p.ntiles * 256 + 1));
        // 2^14 rows of 1024 uint64 with a payload: 8 key passes, 2 row passes, 3 histogram
        // launches, smaller tiles.
        let r = OnesweepPlan::new(1 << 24, 8, 4, 64, 1 << 14, 1024, gpu).unwrap();
        assert_eq!((r.key_passes, r.row_passes, r.tile), (8, 2, 2048));
        assert_eq!(r.hist(8, &PassIo::default()).len(), 3);
        // The last pass writes int64 positions; the first reads no payload when it is the index.
        let io = PassIo { iota: true, pos_len: 1024, ..PassIo::default() };
        let first = r.pass(8, 4, 0, &io, false);
        assert!(matches!(first.args[1], PlanArg::Null) && matches!(first.args[2], PlanArg::Operand(2)));
        let last = r.pass(8, 4, r.passes() - 1, &io, false);
        assert!(matches!(last.args[2], PlanArg::Null));
        assert!(matches!(last.args.last(), Some(PlanArg::I64(1024))));
        // Not on the CPU, not past 2^30 - 1 keys.
        assert!(OnesweepPlan::new(10, 4, 0, 32, 1, 10, Target::Cpu { workers: 2 }).is_none());
        assert!(OnesweepPlan::new(1 << 30, 4, 0, 32, 1, 1 << 30, gpu).is_none());
    }
}
