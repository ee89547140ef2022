//! Kernels of sparse matrices in compressed sparse row (CSR) form: products with dense
//! vectors and matrices (`A @ x`, `A @ X`, `A.T @ X`), expansion to a dense matrix, the row of
//! each stored entry, sums of segments (duplicates, rows), lookups of single entries, and the
//! two steps of a sparse-sparse product by expansion (count, expand; the sort and the sum of
//! duplicates that follow are the array layer's).
//!
//! Every kernel is rendered per value type ([`SpValue`]) and index type ([`IndexWidth`]); one
//! source serves every backend. The matrix-vector product gives a row to a group of `w` lanes
//! of a warp on GPUs (`w` chosen from the mean row length, [`spmv_lanes`]), which read the row
//! together and add their sums with shuffles; on the CPU a work item is a run of whole rows.
//! The transposed product adds into its output with atomics (componentwise for complex
//! values): its rows scatter to columns. It is rendered for the floating value types only
//! ([`ATOMIC_DTYPES`]); integer and bool matrices form their transpose instead.

use xp_backend_api::{DType, LaunchConfig};

use crate::plan::{plan_flat, PlanArg, PlannedLaunch, Target, GPU_BLOCK};
use crate::render::{IndexWidth, Rendered};

/// The value types of sparse matrices, SciPy's: bool, the signed and unsigned integers,
/// float32, float64, complex64, complex128.
pub const VALUE_DTYPES: [DType; 13] = [
    DType::Bool,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
    DType::F32,
    DType::F64,
    DType::C64,
    DType::C128,
];

/// The value types [`rmm`] takes: those every backend adds atomically (the others form the
/// transpose and use [`spmm`]/[`spmv`]).
pub const ATOMIC_DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C64, DType::C128];

/// The value type of a sparse kernel: one of [`VALUE_DTYPES`]. Integer arithmetic wraps, as
/// NumPy's; bool sums are logical or and bool products logical and, as SciPy's.
pub type SpValue = DType;

const HELPERS: &str = "#ifndef XP_SPARSE_HELPERS
#define XP_SPARSE_HELPERS 1
namespace xp {
namespace sparse {
XP_DEVICE void atomic_add(float* p, float v) { atomicAdd(p, v); }
XP_DEVICE void atomic_add(double* p, double v) { atomicAdd(p, v); }
XP_DEVICE void atomic_add(xp::c64* p, xp::c64 v) { atomicAdd(&p->re, v.re); atomicAdd(&p->im, v.im); }
XP_DEVICE void atomic_add(xp::c128* p, xp::c128 v) { atomicAdd(&p->re, v.re); atomicAdd(&p->im, v.im); }
}  // namespace sparse
}  // namespace xp
#endif
";

fn tags(t: SpValue, i: IndexWidth) -> (String, &'static str, &'static str) {
    (format!("{}_{}", t.short(), i.short()), t.c_name(), i.c_name())
}

/// The C++ product of two values of type `t`: uint16 operands are multiplied as unsigned int
/// (C++ would promote them to int, where a product can overflow), then cut to 16 bits, as
/// NumPy's wrapping product.
fn product(t: SpValue, a: &str, b: &str) -> String {
    if t == DType::U16 {
        format!("(xp::u16)((unsigned)({a}) * (unsigned)({b}))")
    } else {
        format!("{a} * {b}")
    }
}

fn with_helpers(name: String, body: String) -> Rendered {
    Rendered { name, code: format!("{HELPERS}{body}") }
}

/// `y = A @ x` for a CSR matrix of `m` rows and a contiguous vector `x`.
///
/// Parameters: `const T* data, const I* indices, const I* indptr, const T* x, T* y, xp::i64 m,
/// int w`: on GPUs `w` lanes (a power of two up to the warp size) share a row, and the launch
/// has at least `m * w` threads; the CPU ignores `w`.
pub fn spmv(t: SpValue, i: IndexWidth) -> Rendered {
    let (tag, tt, it) = tags(t, i);
    let name = format!("xp_csr_spmv_{tag}");
    let prod = product(t, "data[p]", "x[indices[p]]");
    let code = format!(
        "extern \"C\" __global__ void {name}(const {tt}* __restrict__ data, const {it}* __restrict__ indices, const {it}* __restrict__ indptr, const {tt}* __restrict__ x, {tt}* __restrict__ y, xp::i64 m, int w) {{
  typedef {tt} T;
#if defined(XP_GPU)
  // Every lane of a warp reaches the shuffles: rows past the end add zeros.
  const xp::i64 t = (xp::i64)blockIdx.x * blockDim.x + threadIdx.x;
  const xp::i64 row = t / w;
  const int lane = (int)(t & (xp::i64)(w - 1));
  T s = T(0);
  if (row < m) {{
    const {it} e = indptr[row + 1];
    for ({it} p = indptr[row] + lane; p < e; p += w) s += {prod};
  }}
  for (int off = w >> 1; off > 0; off >>= 1) s += xp::shfl_down(s, (unsigned)off, w);
  if (row < m && lane == 0) y[row] = s;
#else
  (void)w;
  XP_FOR_EACH(xp::i64, row, m) {{
    T s = T(0);
    const {it} e = indptr[row + 1];
    for ({it} p = indptr[row]; p < e; ++p) s += {prod};
    y[row] = s;
  }}
#endif
}}
"
    );
    with_helpers(name, code)
}

/// Lanes per row of [`spmv`] on a GPU: the power of two nearest above the mean row length,
/// at most the warp size. Short rows share a warp; long rows take one.
pub fn spmv_lanes(nnz: usize, m: usize, warp_size: u32) -> u32 {
    let mean = nnz.div_ceil(m.max(1)).max(1) as u32;
    mean.next_power_of_two().min(warp_size.max(1))
}

/// The launch of [`spmv`]: operands 0 data, 1 indices, 2 indptr, 3 x; output y.
pub fn plan_spmv(t: SpValue, i: IndexWidth, m: usize, nnz: usize, target: Target) -> PlannedLaunch {
    let (config, w) = match target {
        Target::Gpu { warp_size, .. } => {
            let w = spmv_lanes(nnz, m, warp_size);
            let threads = (m as u64 * w as u64).max(1);
            (LaunchConfig::new(threads.div_ceil(GPU_BLOCK as u64) as u32, GPU_BLOCK), w)
        }
        Target::Cpu { .. } => (plan_flat(nnz.max(m), target), 1),
    };
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::Operand(1),
        PlanArg::Operand(2),
        PlanArg::Operand(3),
        PlanArg::Output,
        PlanArg::I64(m as i64),
        PlanArg::I32(w as i32),
    ];
    PlannedLaunch { kernel: spmv(t, i), config, args }
}

/// `Y = A @ X` for a CSR matrix of `m` rows and a C-contiguous dense `X` of `k` columns: a
/// thread per element of `Y` (row-major), so that a warp reads a row of `X` together.
///
/// Parameters: `const T* data, const I* indices, const I* indptr, const T* X, T* Y, xp::i64 m,
/// xp::i64 k`.
pub fn spmm(t: SpValue, i: IndexWidth) -> Rendered {
    let (tag, tt, it) = tags(t, i);
    let name = format!("xp_csr_spmm_{tag}");
    let prod = product(t, "data[p]", "X[(xp::i64)indices[p] * k + j]");
    let code = format!(
        "extern \"C\" __global__ void {name}(const {tt}* __restrict__ data, const {it}* __restrict__ indices, const {it}* __restrict__ indptr, const {tt}* __restrict__ X, {tt}* __restrict__ Y, xp::i64 m, xp::i64 k) {{
  typedef {tt} T;
  XP_FOR_EACH(xp::i64, t, m * k) {{
    const xp::i64 row = t / k, j = t - row * k;
    T s = T(0);
    const {it} e = indptr[row + 1];
    for ({it} p = indptr[row]; p < e; ++p) s += {prod};
    Y[t] = s;
  }}
}}
"
    );
    with_helpers(name, code)
}

/// `Y += A.T @ X` for a CSR matrix of `m` rows and a C-contiguous dense `X` (`m` by `k`): each
/// stored entry adds its product to `Y` (`n` by `k`, zeroed by the caller) atomically.
///
/// Parameters: `const T* data, const I* indices, const I* indptr, const T* X, T* Y, xp::i64 m,
/// xp::i64 k`.
pub fn rmm(t: SpValue, i: IndexWidth) -> Rendered {
    let (tag, tt, it) = tags(t, i);
    let name = format!("xp_csr_rmm_{tag}");
    let code = format!(
        "extern \"C\" __global__ void {name}(const {tt}* __restrict__ data, const {it}* __restrict__ indices, const {it}* __restrict__ indptr, const {tt}* __restrict__ X, {tt}* Y, xp::i64 m, xp::i64 k) {{
  XP_FOR_EACH(xp::i64, t, m * k) {{
    const xp::i64 row = t / k, j = t - row * k;
    const {tt} xv = X[t];
    const {it} e = indptr[row + 1];
    for ({it} p = indptr[row]; p < e; ++p) xp::sparse::atomic_add(&Y[(xp::i64)indices[p] * k + j], data[p] * xv);
  }}
}}
"
    );
    with_helpers(name, code)
}

/// Adds each stored entry of a CSR matrix of `m` rows into the zeroed C-contiguous dense `out`
/// (`m` by `n`); duplicates add, in their order.
///
/// Parameters: `const T* data, const I* indices, const I* indptr, T* out, xp::i64 m, xp::i64 n`.
pub fn todense(t: SpValue, i: IndexWidth) -> Rendered {
    let (tag, tt, it) = tags(t, i);
    let name = format!("xp_csr_todense_{tag}");
    let code = format!(
        "extern \"C\" __global__ void {name}(const {tt}* __restrict__ data, const {it}* __restrict__ indices, const {it}* __restrict__ indptr, {tt}* __restrict__ out, xp::i64 m, xp::i64 n) {{
  XP_FOR_EACH(xp::i64, row, m) {{
    const {it} e = indptr[row + 1];
    for ({it} p = indptr[row]; p < e; ++p) out[row * n + (xp::i64)indices[p]] += data[p];
  }}
}}
"
    );
    with_helpers(name, code)
}

/// The row of each stored entry of a CSR matrix of `m` rows.
///
/// Parameters: `const I* indptr, I* rows, xp::i64 m`.
pub fn rows(i: IndexWidth) -> Rendered {
    let it = i.c_name();
    let name = format!("xp_csr_rows_{}", i.short());
    let code = format!(
        "extern \"C\" __global__ void {name}(const {it}* __restrict__ indptr, {it}* __restrict__ rows, xp::i64 m) {{
  XP_FOR_EACH(xp::i64, row, m) {{
    const {it} e = indptr[row + 1];
    for ({it} p = indptr[row]; p < e; ++p) rows[p] = ({it})row;
  }}
}}
"
    );
    Rendered { name, code }
}

/// The `m + 1` row offsets of `nnz` entries whose rows (int64) are sorted: `indptr[r]` is the
/// number of entries of rows below `r`. Item `i` writes the offsets of the rows whose first
/// entry is `i` (those after row `rows[i - 1]`, up to row `rows[i]`).
///
/// Parameters: `const xp::i64* rows, I* indptr, xp::i64 nnz, xp::i64 m`; `nnz + 1` items.
pub fn offsets(i: IndexWidth) -> Rendered {
    let it = i.c_name();
    let name = format!("xp_csr_offsets_{}", i.short());
    let code = format!(
        "extern \"C\" __global__ void {name}(const xp::i64* __restrict__ rows, {it}* __restrict__ indptr, xp::i64 nnz, xp::i64 m) {{
  XP_FOR_EACH(xp::i64, i, nnz + 1) {{
    const xp::i64 lo = i == 0 ? 0 : rows[i - 1] + 1;
    const xp::i64 hi = i == nnz ? m : rows[i];
    for (xp::i64 r = lo; r <= hi; ++r) indptr[r] = ({it})i;
  }}
}}
"
    );
    Rendered { name, code }
}

/// The sums of `nseg` segments of `data`: `out[s]` adds `data[starts[s] .. starts[s + 1]]` in
/// order (sums of duplicates after a sort; sums of rows with `starts = indptr`).
///
/// Parameters: `const T* data, const I* starts, T* out, xp::i64 nseg`.
pub fn segsum(t: SpValue, i: IndexWidth) -> Rendered {
    let (tag, tt, it) = tags(t, i);
    let name = format!("xp_segsum_{tag}");
    let code = format!(
        "extern \"C\" __global__ void {name}(const {tt}* __restrict__ data, const {it}* __restrict__ starts, {tt}* __restrict__ out, xp::i64 nseg) {{
  XP_FOR_EACH(xp::i64, s, nseg) {{
    {tt} acc = {tt}(0);
    const {it} e = starts[s + 1];
    for ({it} p = starts[s]; p < e; ++p) acc += data[p];
    out[s] = acc;
  }}
}}
"
    );
    with_helpers(name, code)
}

/// Entries of a CSR matrix: `out[q]` is the sum of the stored entries at row `qr[q]`, column
/// `qc[q]` (zero when none is stored).
///
/// Parameters: `const T* data, const I* indices, const I* indptr, const xp::i64* qr, const
/// xp::i64* qc, T* out, xp::i64 nq`.
pub fn get(t: SpValue, i: IndexWidth) -> Rendered {
    let (tag, tt, it) = tags(t, i);
    let name = format!("xp_csr_get_{tag}");
    let code = format!(
        "extern \"C\" __global__ void {name}(const {tt}* __restrict__ data, const {it}* __restrict__ indices, const {it}* __restrict__ indptr, const xp::i64* __restrict__ qr, const xp::i64* __restrict__ qc, {tt}* __restrict__ out, xp::i64 nq) {{
  XP_FOR_EACH(xp::i64, q, nq) {{
    {tt} acc = {tt}(0);
    const xp::i64 r = qr[q], c = qc[q];
    const {it} e = indptr[r + 1];
    for ({it} p = indptr[r]; p < e; ++p) if ((xp::i64)indices[p] == c) acc += data[p];
    out[q] = acc;
  }}
}}
"
    );
    with_helpers(name, code)
}

/// The first step of `C = A @ B` by expansion: the number of products of each row of `A`
/// (the sum of the lengths of the rows of `B` its entries name).
///
/// Parameters: `const I* a_indices, const I* a_indptr, const I* b_indptr, xp::i64* counts,
/// xp::i64 m`.
pub fn spgemm_count(i: IndexWidth) -> Rendered {
    let it = i.c_name();
    let name = format!("xp_spgemm_count_{}", i.short());
    let code = format!(
        "extern \"C\" __global__ void {name}(const {it}* __restrict__ a_indices, const {it}* __restrict__ a_indptr, const {it}* __restrict__ b_indptr, xp::i64* __restrict__ counts, xp::i64 m) {{
  XP_FOR_EACH(xp::i64, row, m) {{
    xp::i64 c = 0;
    const {it} e = a_indptr[row + 1];
    for ({it} p = a_indptr[row]; p < e; ++p) {{ const {it} k = a_indices[p]; c += (xp::i64)(b_indptr[k + 1] - b_indptr[k]); }}
    counts[row] = c;
  }}
}}
"
    );
    Rendered { name, code }
}

/// The second step of `C = A @ B` by expansion: every product `A[r, k] * B[k, c]`, written
/// from `offs[r]` (the exclusive prefix sum of [`spgemm_count`]) as the key `r * nb + c` and
/// its value.
///
/// Parameters: `const T* a_data, const I* a_indices, const I* a_indptr, const T* b_data, const
/// I* b_indices, const I* b_indptr, const xp::i64* offs, xp::i64* keys, T* vals, xp::i64 m,
/// xp::i64 nb`.
pub fn spgemm_expand(t: SpValue, i: IndexWidth) -> Rendered {
    let (tag, tt, it) = tags(t, i);
    let name = format!("xp_spgemm_expand_{tag}");
    let prod = product(t, "av", "b_data[q]");
    let code = format!(
        "extern \"C\" __global__ void {name}(const {tt}* __restrict__ a_data, const {it}* __restrict__ a_indices, const {it}* __restrict__ a_indptr, const {tt}* __restrict__ b_data, const {it}* __restrict__ b_indices, const {it}* __restrict__ b_indptr, const xp::i64* __restrict__ offs, xp::i64* __restrict__ keys, {tt}* __restrict__ vals, xp::i64 m, xp::i64 nb) {{
  XP_FOR_EACH(xp::i64, row, m) {{
    xp::i64 o = offs[row];
    const {it} e = a_indptr[row + 1];
    for ({it} p = a_indptr[row]; p < e; ++p) {{
      const {it} k = a_indices[p];
      const {tt} av = a_data[p];
      const {it} f = b_indptr[k + 1];
      for ({it} q = b_indptr[k]; q < f; ++q, ++o) {{ keys[o] = row * nb + (xp::i64)b_indices[q]; vals[o] = {prod}; }}
    }}
  }}
}}
"
    );
    with_helpers(name, code)
}

/// A launch over `n` items of a kernel whose parameters are operands then by-value counts:
/// `operands` operand pointers (0, 1, …), the output at `out_at`, then `values`.
pub fn plan_items(
    kernel: Rendered,
    n: usize,
    operands: usize,
    out_at: Option<usize>,
    values: &[i64],
    target: Target,
) -> PlannedLaunch {
    let mut args: Vec<PlanArg> = (0..operands).map(PlanArg::Operand).collect();
    if let Some(at) = out_at {
        args.insert(at, PlanArg::Output);
    }
    args.extend(values.iter().map(|&v| PlanArg::I64(v)));
    PlannedLaunch { kernel, config: plan_flat(n, target), args }
}

/// Every kernel of this module, for the CPU backend's ahead-of-time build and the GPU compile
/// checks.
pub fn builtin_kernels() -> Vec<Rendered> {
    let mut v = Vec::new();
    for i in [IndexWidth::I32, IndexWidth::I64] {
        v.push(rows(i));
        v.push(offsets(i));
        v.push(spgemm_count(i));
        for t in VALUE_DTYPES {
            v.extend([spmv(t, i), spmm(t, i), todense(t, i), segsum(t, i), get(t, i), spgemm_expand(t, i)]);
        }
        v.extend(ATOMIC_DTYPES.map(|t| rmm(t, i)));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_follow_the_mean_row_length() {
        assert_eq!(spmv_lanes(0, 0, 32), 1);
        assert_eq!(spmv_lanes(10, 10, 32), 1);
        assert_eq!(spmv_lanes(30, 10, 32), 4);
        assert_eq!(spmv_lanes(1 << 20, 10, 32), 32);
        assert_eq!(spmv_lanes(1 << 20, 10, 64), 64);
    }

    #[test]
    fn names_are_unique() {
        let v = builtin_kernels();
        let mut names: Vec<_> = v.iter().map(|k| k.name.clone()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), v.len());
    }
}
