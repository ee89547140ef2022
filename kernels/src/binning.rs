//! Kernels of binning: `bincount` and `histogram` (atomic counts, privatised in shared memory
//! when the bins fit), `digitize` and `interp` (a binary search per element).
//!
//! A histogram kernel finds the bin of each element in one of three ways ([`BinSource`]):
//! given (`bincount`: an int64 bin per element, checked by the caller), arithmetically over
//! equal bins (NumPy's formula and its correction at the edges, in the data's float type), or
//! by a binary search over monotonic edges. It adds 1 (counts, `unsigned long long`) or the
//! element's weight (`double`) to the bin. With few bins ([`plan_histogram`]) each block
//! counts into its own copy of the bins in dynamic shared memory and adds that copy to the
//! result once; otherwise it adds to the result directly. One source serves every backend: on
//! the CPU a block is one thread and its shared memory the launch's per-block scratch.

use xp_backend_api::LaunchConfig;

use crate::plan::{plan_flat, PlanArg, PlannedLaunch, Target};
use crate::render::Rendered;

/// How a histogram kernel finds an element's bin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinSource {
    /// `x` is int64 bins, each in `0..nb` (`bincount`).
    Index,
    /// `x` is `float`: `nb` equal bins whose `nb + 1` edges (float) are `e`.
    UniformF32,
    /// `x` is `double`: `nb` equal bins whose `nb + 1` edges (double) are `e`.
    UniformF64,
    /// `x` is `double`: `nb` bins between `nb + 1` non-decreasing edges `e` (double).
    EdgesF64,
}

impl BinSource {
    const ALL: [BinSource; 4] = [BinSource::Index, BinSource::UniformF32, BinSource::UniformF64, BinSource::EdgesF64];

    fn tag(self) -> &'static str {
        match self {
            BinSource::Index => "index",
            BinSource::UniformF32 => "uniform_f32",
            BinSource::UniformF64 => "uniform_f64",
            BinSource::EdgesF64 => "edges_f64",
        }
    }

    /// The element type of `x` and of the edges.
    fn types(self) -> (&'static str, &'static str) {
        match self {
            BinSource::Index => ("xp::i64", "double"),
            BinSource::UniformF32 => ("float", "float"),
            BinSource::UniformF64 | BinSource::EdgesF64 => ("double", "double"),
        }
    }

    /// Code that sets `k` to the bin of element `i`, or `continue`s past an element outside
    /// every bin (NaN included). The last bin includes its right edge.
    fn body(self) -> &'static str {
        match self {
            BinSource::Index => "    const xp::i64 k = x[i];\n",
            BinSource::UniformF32 | BinSource::UniformF64 => {
                "    const T v = x[i];
    if (!(v >= e[0] && v <= e[nb])) continue;
    xp::i64 k = (xp::i64)(((T)(v - e[0]) / (T)denom) * (T)nb);
    if (k >= nb) k = nb - 1;
    if (k < 0) k = 0;
    if (v < e[k]) { if (k > 0) --k; }
    else if (k != nb - 1 && v >= e[k + 1]) ++k;
"
            }
            BinSource::EdgesF64 => {
                "    const T v = x[i];
    if (!(v >= e[0] && v <= e[nb])) continue;
    xp::i64 k;
    if (v == e[nb]) {
      k = nb - 1;
    } else {
      xp::i64 lo = 0, hi = nb + 1;  // the first edge greater than v is in [lo, hi)
      while (lo < hi) { const xp::i64 mid = lo + (hi - lo) / 2; if (e[mid] <= v) lo = mid + 1; else hi = mid; }
      k = lo - 1;
    }
"
            }
        }
    }
}

/// The histogram kernel of `source`, `weighted` or counting, `shared` (privatised bins) or
/// not.
///
/// Parameters: `const X* x, const double* w, Acc* bins, const T* e, xp::i64 nb, xp::i64 n,
/// xp::i64 denom_bits` (`w` unused when counting, `e` and `denom` unused for [`BinSource::Index`];
/// `denom_bits` the bits of the double `e[nb] - e[0]` as NumPy computes it). `bins` (`unsigned long long` counts or
/// `double` sums, `nb` of them) must start zeroed. Shared variants need `nb` accumulators of
/// dynamic shared memory (4 bytes for counts, 8 for sums).
pub fn histogram(source: BinSource, weighted: bool, shared: bool) -> Rendered {
    let (xt, et) = source.types();
    let name = format!(
        "xp_hist_{}_{}_{}",
        source.tag(),
        if weighted { "w" } else { "n" },
        if shared { "shared" } else { "global" }
    );
    let acc = if weighted { "double" } else { "unsigned long long" };
    let one = if weighted { "w[i]" } else { "1u" };
    let mut c = format!(
        "extern \"C\" __global__ void {name}(const {xt}* __restrict__ x, const double* __restrict__ w, {acc}* bins, const {et}* __restrict__ e, xp::i64 nb, xp::i64 n, xp::i64 denom_bits) {{
  typedef {et} T;
  const double denom = __longlong_as_double((long long)denom_bits);
  (void)e; (void)denom; (void)w;
"
    );
    if shared {
        let sacc = if weighted { "double" } else { "unsigned int" };
        c += &format!(
            "  extern __shared__ {sacc} {name}_bins[];
  {sacc}* sb = {name}_bins;
  for (xp::i64 b = threadIdx.x; b < nb; b += blockDim.x) sb[b] = 0;
  __syncthreads();
  XP_FOR_EACH(xp::i64, i, n) {{
{body}    atomicAdd(&sb[k], ({sacc})({one}));
  }}
  __syncthreads();
  for (xp::i64 b = threadIdx.x; b < nb; b += blockDim.x) {{
    const {sacc} s = sb[b];
    if (s != ({sacc})0) atomicAdd(&bins[b], ({acc})s);
  }}
}}
",
            body = source.body()
        );
    } else {
        c += &format!(
            "  XP_FOR_EACH(xp::i64, i, n) {{
{body}    atomicAdd(&bins[k], ({acc})({one}));
  }}
}}
",
            body = source.body()
        );
    }
    Rendered { name, code: c }
}

/// The most bins a block privatises in shared memory: 8192 counts or 4096 weighted sums
/// (32 KiB either way, within every GPU's default limit of dynamic shared memory).
pub const SHARED_BINS_BYTES: usize = 32 * 1024;

/// The launch of [`histogram`] over `n` elements into `nb` bins. Operands: 0 the elements
/// `x` (contiguous, of the source's type), 1 the float64 weights (contiguous; ignored when
/// not `weighted`), 2 the edges (the source's type; ignored for [`BinSource::Index`]); the
/// zeroed bins are bound as the plan's output. `denom` as [`histogram`].
pub fn plan_histogram(
    source: BinSource,
    weighted: bool,
    n: usize,
    nb: usize,
    denom: f64,
    target: Target,
) -> PlannedLaunch {
    let acc_bytes = if weighted { 8 } else { 4 };
    let flat = plan_flat(n, target);
    let blocks = flat.grid.x.max(1) as usize;
    let config = match target {
        // A GPU's privatised copies pay for themselves once there are several elements a bin
        // per block; few blocks, each striding over many elements.
        Target::Gpu { sm_count, .. } => {
            let blocks = (blocks as u32).min(sm_count.max(1) * 8).max(1);
            LaunchConfig::new(blocks, flat.block.x)
        }
        Target::Cpu { .. } => flat,
    };
    // A block's 32-bit counts must not overflow: the most elements one block sees.
    let per_block = n.div_ceil(config.grid.x.max(1) as usize);
    let shared = nb * acc_bytes <= SHARED_BINS_BYTES && (weighted || per_block < u32::MAX as usize);
    let config = if shared { config.with_shared_mem((nb * acc_bytes) as u32) } else { config };
    let args = vec![
        PlanArg::Operand(0),
        if weighted { PlanArg::Operand(1) } else { PlanArg::Null },
        PlanArg::Output,
        if source == BinSource::Index { PlanArg::Null } else { PlanArg::Operand(2) },
        PlanArg::I64(nb as i64),
        PlanArg::I64(n as i64),
        PlanArg::I64(denom.to_bits() as i64),
    ];
    PlannedLaunch { kernel: histogram(source, weighted, shared), config, args }
}

/// NumPy's `digitize` over double `x` and `nb` double bins, monotonic: `out[i]` is the
/// number of bins `b` with `b < x` (`right`) or `b <= x` (not `right`) for increasing bins;
/// for decreasing bins (`rev`) `len(bins) - searchsorted(bins[::-1], x, side)` as NumPy's,
/// `side` being `'left'` when `right`. NaN sorts last, as NumPy's.
///
/// Parameters: `const double* x, const double* bins, xp::i64* out, xp::i64 nb, xp::i64 n,
/// int right, int rev`.
pub fn digitize() -> Rendered {
    let name = "xp_digitize".to_string();
    let code = format!(
        "extern \"C\" __global__ void {name}(const double* __restrict__ x, const double* __restrict__ bins, xp::i64* __restrict__ out, xp::i64 nb, xp::i64 n, int right, int rev) {{
  XP_FOR_EACH(xp::i64, i, n) {{
    const double v = x[i];
    // searchsorted(b, v, side) over b = bins, or bins reversed (NumPy's side is 'left'
    // exactly when `right`, either way); side 'left' counts b < v, 'right' b <= v.
    const bool left = right != 0;
    xp::i64 lo = 0, hi = nb;
    while (lo < hi) {{
      const xp::i64 mid = lo + (hi - lo) / 2;
      const double b = bins[rev ? nb - 1 - mid : mid];
      // NaN-aware orders: NaN after every number.
      const bool b_lt_v = b < v || (v != v && b == b);
      const bool v_lt_b = v < b || (b != b && v == v);
      if (left ? b_lt_v : !v_lt_b) lo = mid + 1; else hi = mid;
    }}
    out[i] = rev ? nb - lo : lo;
  }}
}}
"
    );
    Rendered { name, code }
}

/// The launch of [`digitize`]. Operands: 0 the contiguous float64 `x` (`n` elements), 1 the
/// contiguous float64 bins; the int64 output is bound as the plan's output.
pub fn plan_digitize(n: usize, nb: usize, right: bool, decreasing: bool, target: Target) -> PlannedLaunch {
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Output,
        PlanArg::I64(nb as i64),
        PlanArg::I64(n as i64),
        PlanArg::I32(right as i32),
        PlanArg::I32(decreasing as i32),
    ];
    PlannedLaunch { kernel: digitize(), config: plan_flat(n, target), args }
}

/// NumPy's `interp(x, xp, fp, left, right)` in double, step for step as NumPy's C loop (a
/// binary search for `xp[j] <= x < xp[j+1]`, the slope, the retry from the right end when the
/// result is NaN). `xp` must increase; `nxp >= 1`.
///
/// Parameters: `const double* x, const double* xp, const double* fp, double* out,
/// xp::i64 nxp, xp::i64 n, xp::i64 left_bits, xp::i64 right_bits` (the bits of the doubles
/// `left` and `right`: plans pass doubles as their bits).
pub fn interp() -> Rendered {
    let name = "xp_interp".to_string();
    let code = format!(
        "extern \"C\" __global__ void {name}(const double* __restrict__ x, const double* __restrict__ xp, const double* __restrict__ fp, double* __restrict__ out, xp::i64 nxp, xp::i64 n, xp::i64 left_bits, xp::i64 right_bits) {{
  const double left = __longlong_as_double((long long)left_bits), right = __longlong_as_double((long long)right_bits);
  XP_FOR_EACH(xp::i64, i, n) {{
    const double v = x[i];
    if (v != v) {{ out[i] = v; continue; }}
    if (nxp == 1) {{ out[i] = v < xp[0] ? left : (v > xp[0] ? right : fp[0]); continue; }}
    if (v < xp[0]) {{ out[i] = left; continue; }}
    if (v > xp[nxp - 1]) {{ out[i] = right; continue; }}
    // The last j with xp[j] <= v.
    xp::i64 lo = 0, hi = nxp;
    while (lo < hi) {{ const xp::i64 mid = lo + (hi - lo) / 2; if (xp[mid] <= v) lo = mid + 1; else hi = mid; }}
    const xp::i64 j = lo - 1;
    if (j >= nxp - 1) {{ out[i] = fp[nxp - 1]; continue; }}
    if (xp[j] == v) {{ out[i] = fp[j]; continue; }}
    const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    double r = slope * (v - xp[j]) + fp[j];
    if (r != r) {{
      r = slope * (v - xp[j + 1]) + fp[j + 1];
      if (r != r && fp[j] == fp[j + 1]) r = fp[j];
    }}
    out[i] = r;
  }}
}}
"
    );
    Rendered { name, code }
}

/// The launch of [`interp`]. Operands: 0 the contiguous float64 `x` (`n` elements), 1 `xp`,
/// 2 `fp` (contiguous float64, `nxp` each); the float64 output is bound as the plan's output.
pub fn plan_interp(n: usize, nxp: usize, left: f64, right: f64, target: Target) -> PlannedLaunch {
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Operand(2),
        PlanArg::Output,
        PlanArg::I64(nxp as i64),
        PlanArg::I64(n as i64),
        PlanArg::I64(left.to_bits() as i64),
        PlanArg::I64(right.to_bits() as i64),
    ];
    PlannedLaunch { kernel: interp(), config: plan_flat(n, target), args }
}

/// Every kernel of this module (built ahead of time on the CPU; compiled by the cross-vendor
/// check).
pub fn builtin_kernels() -> Vec<Rendered> {
    let mut v = Vec::new();
    for s in BinSource::ALL {
        for weighted in [false, true] {
            for shared in [false, true] {
                v.push(histogram(s, weighted, shared));
            }
        }
    }
    v.push(digitize());
    v.push(interp());
    v
}
