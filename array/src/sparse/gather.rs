//! Kernels that write whole rows of a new CSR matrix: the rows picked by `A[rows]` and
//! `A[start:stop:step]`, and the rows of `kron(A, B)`.
//!
//! Each output row is given to a group of `g` consecutive lanes (a power of two near the mean
//! row length, at most 32, on GPUs; one thread per row on the CPU), which copy or form the
//! row's entries at consecutive positions, so the reads and writes of a warp are coalesced
//! where a thread per row would stride across rows. The row offsets of the answer are made
//! before the launch (a prefix sum of the row lengths), so the rows need no order.
//!
//! `kron(A, B)` in CSR form: row `ia·mb + ib` of the product holds, for each entry `(ia, ja)`
//! of `A`'s row and each entry `(ib, jb)` of `B`'s row, in that order, the entry
//! `(ja·nb + jb, A[ia, ja]·B[ib, jb])`; its length is the product of the two rows' lengths, so
//! the offsets come from the two matrices' row lengths alone and no sort is needed. Columns
//! come out sorted when both matrices' rows are sorted and free of duplicates.

use std::collections::HashMap;
use std::sync::OnceLock;

use parking_lot::Mutex;
use xp_backend_api::{DType, Result};

use crate::user::{LaunchArg, RawKernel};
use crate::Array;

const GATHER_ROWS: &str = r#"
extern "C" __global__ void NAME(const long long* rows, const long long* starts, const T* data, const I* ind,
                                const I* ptr, T* od, I* oi, long long k, int g) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long r = t / g;
    if (r >= k) return;
    const long long lane = t - r * g;
    const long long src = rows[r], o = starts[r];
    const long long s = (long long)ptr[src], e = (long long)ptr[src + 1];
    for (long long q = s + lane; q < e; q += g) { od[o + q - s] = data[q]; oi[o + q - s] = ind[q]; }
}
"#;

const KRON: &str = r#"
extern "C" __global__ void NAME(const T* ad, const I* ai, const I* ap, const T* bd, const I* bi, const I* bp,
                                const I* optr, T* od, I* oi, long long m, long long mb, long long nb, int g) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long r = t / g;
    if (r >= m) return;
    const long long lane = t - r * g;
    const long long ra = r / mb, rb = r - ra * mb;
    const long long sa = (long long)ap[ra], sb = (long long)bp[rb];
    const long long lb = (long long)bp[rb + 1] - sb, len = ((long long)ap[ra + 1] - sa) * lb;
    const long long o = (long long)optr[r];
    for (long long q = lane; q < len; q += g) {
        const long long qa = q / lb, qb = q - qa * lb;
        od[o + q] = PRODUCT;
        oi[o + q] = (I)((long long)ai[sa + qa] * nb + (long long)bi[sb + qb]);
    }
}
"#;

/// The kernel `name` of `code` with the types `T` and `I`, made once per process.
fn kernel(code: &str, stem: &str, t: &str, i: &str, product: &str) -> RawKernel {
    static CACHE: OnceLock<Mutex<HashMap<String, RawKernel>>> = OnceLock::new();
    let tag = format!("{stem}_{}_{}", t.replace(':', "_"), i.replace(':', "_"));
    let mut cache = CACHE.get_or_init(|| Mutex::new(HashMap::new())).lock();
    cache
        .entry(tag.clone())
        .or_insert_with(|| {
            let src =
                format!("typedef {t} T;\ntypedef {i} I;\n{}", code.replace("NAME", &tag).replace("PRODUCT", product));
            RawKernel::new(&src, &tag)
        })
        .clone()
}

/// The C type moving an element of `bytes` bytes.
fn word(bytes: usize) -> &'static str {
    match bytes {
        1 => "xp::u8",
        2 => "xp::u16",
        4 => "xp::u32",
        8 => "xp::u64",
        _ => "xp::c128",
    }
}

/// The C type of an index dtype (int32 or int64).
fn index_c(idx: DType) -> &'static str {
    if idx == DType::I32 {
        "xp::i32"
    } else {
        "xp::i64"
    }
}

/// Lanes per row for rows of `nnz / m` entries on average (one on the host).
fn lanes(dev_is_host: bool, nnz: usize, m: usize) -> u32 {
    if dev_is_host {
        1
    } else {
        (nnz.div_ceil(m.max(1)).max(1) as u32).next_power_of_two().min(32)
    }
}

/// The grid of `rows * g` threads in blocks of 256.
fn grid(rows: usize, g: u32) -> u32 {
    ((rows as u64 * g as u64).div_ceil(256)).max(1) as u32
}

/// Copy source row `rows[r]` of `(data, ind, ptr)` to positions `starts[r]…` of `(od, oi)`
/// for each of the `k` picked rows (`rows` and `starts` int64; `ind`, `ptr` and `oi` of one
/// index dtype; `total` entries in all).
#[allow(clippy::too_many_arguments)]
pub(super) fn gather_rows(
    rows: &Array,
    starts: &Array,
    data: &Array,
    ind: &Array,
    ptr: &Array,
    od: &Array,
    oi: &Array,
    total: usize,
) -> Result<()> {
    let k = rows.size();
    if k == 0 || total == 0 {
        return Ok(());
    }
    let host = data.device().properties().is_host;
    let g = lanes(host, total, k);
    let kern = kernel(GATHER_ROWS, "xp_sparse_gather_rows", word(data.itemsize()), index_c(ind.dtype()), "");
    kern.launch(
        grid(k, g),
        256u32,
        &[
            LaunchArg::Array(rows),
            LaunchArg::Array(starts),
            LaunchArg::Array(data),
            LaunchArg::Array(ind),
            LaunchArg::Array(ptr),
            LaunchArg::Array(od),
            LaunchArg::Array(oi),
            LaunchArg::I64(k as i64),
            LaunchArg::I32(g as i32),
        ],
    )
}

/// The entries of `kron(A, B)` into `(od, oi)` at the offsets `optr` (`m = ma·mb` rows):
/// values of dtype `t` (both matrices' data already in `t`), every index array in one dtype.
#[allow(clippy::too_many_arguments)]
pub(super) fn kron_rows(
    a: (&Array, &Array, &Array),
    b: (&Array, &Array, &Array),
    optr: &Array,
    od: &Array,
    oi: &Array,
    (m, mb, nb): (usize, usize, usize),
    total: usize,
) -> Result<()> {
    if m == 0 || total == 0 {
        return Ok(());
    }
    let t = od.dtype();
    // uint16 products are formed as unsigned int (C++ would promote them to int, where a
    // product can overflow), then cut to 16 bits, as NumPy's wrapping product.
    let product = if t == DType::U16 {
        "(T)((unsigned)ad[sa + qa] * (unsigned)bd[sb + qb])"
    } else {
        "(T)(ad[sa + qa] * bd[sb + qb])"
    };
    let host = od.device().properties().is_host;
    let g = lanes(host, total, m);
    let kern = kernel(KRON, "xp_sparse_kron", t.c_name(), index_c(oi.dtype()), product);
    kern.launch(
        grid(m, g),
        256u32,
        &[
            LaunchArg::Array(a.0),
            LaunchArg::Array(a.1),
            LaunchArg::Array(a.2),
            LaunchArg::Array(b.0),
            LaunchArg::Array(b.1),
            LaunchArg::Array(b.2),
            LaunchArg::Array(optr),
            LaunchArg::Array(od),
            LaunchArg::Array(oi),
            LaunchArg::I64(m as i64),
            LaunchArg::I64(mb as i64),
            LaunchArg::I64(nb as i64),
            LaunchArg::I32(g as i32),
        ],
    )
}

/// Every kernel of this module, of `connected_components`' union–find and of `inv`'s small
/// batched inverse, for every type they are made for (for compile checks on GPU compilers).
pub fn raw_kernels() -> Vec<xp_kernels::render::Rendered> {
    use xp_kernels::render::Rendered;
    let mut v = Vec::new();
    for i in [DType::I32, DType::I64] {
        let ic = index_c(i);
        for bytes in [1, 2, 4, 8, 16] {
            let t = word(bytes);
            let name = format!("xp_sparse_gather_rows_{}_{}", t.replace(':', "_"), ic.replace(':', "_"));
            let code = format!("typedef {t} T;\ntypedef {ic} I;\n{}", GATHER_ROWS.replace("NAME", &name));
            v.push(Rendered { name, code });
        }
        for t in xp_kernels::sparse::VALUE_DTYPES {
            let name = format!("xp_sparse_kron_{}_{}", t.c_name().replace(':', "_"), ic.replace(':', "_"));
            let product = if t == DType::U16 {
                "(T)((unsigned)ad[sa + qa] * (unsigned)bd[sb + qb])"
            } else {
                "(T)(ad[sa + qa] * bd[sb + qb])"
            };
            let code = format!(
                "typedef {} T;\ntypedef {ic} I;\n{}",
                t.c_name(),
                KRON.replace("NAME", &name).replace("PRODUCT", product)
            );
            v.push(Rendered { name, code });
        }
    }
    v.extend(super::csgraph::union_find_sources());
    v.extend(crate::linalg::small_inverse_kernels());
    v
}
