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

/// The radix sort engine every sort, search and set kernel is written against: key making, digit
/// ranking, the onesweep pass and its look-back: `include/xp_sort.h`, emitted once per translation unit behind its
/// guard; its bytes are part of every such kernel's source and so of its cache key.
const SORT_ENGINE: &str = concat!("\n", include_str!("../include/xp_sort.h"));

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
