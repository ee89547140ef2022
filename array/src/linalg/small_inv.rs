//! The inverses of a stack of small real matrices in one launch, for `inv` on GPUs.
//!
//! `inv` of a stack through the solver library is several steps per call: a column-major copy,
//! the batched LU (`getrf`) and the batched inverse from it (`getri`), each batched routine
//! taking device arrays of the matrices' addresses that the host builds and uploads, and a
//! transposed view as the answer. For a stack of matrices of up to [`MAX_N`] rows this module
//! does it all in one kernel, a block per matrix: the matrix and the identity beside it are
//! loaded into shared memory (coalesced, from the C-ordered input), reduced by Gauss–Jordan
//! elimination with partial pivoting (Golub & Van Loan, *Matrix Computations*, §3.4: the pivot
//! of column `k` is the first largest `|a_ik|`, `i ≥ k`, LAPACK's choice), and the right half,
//! the inverse, written C-ordered. The pivots are those of `getrf`, so a matrix is singular
//! here exactly when its LU has a zero pivot; its status is then `k + 1` for the first zero
//! pivot `k` (as `getrf`'s `info`), and the caller reads the statuses once, as for the
//! library's path.
//!
//! The CPU device keeps its solver library (faer), which has no per-call launch costs; the
//! kernel runs there too under `ndimage::with_device_kernels`, for tests.

use std::collections::HashMap;
use std::sync::OnceLock;

use parking_lot::Mutex;
use xp_backend_api::{DType, Error, Result};

use crate::user::{LaunchArg, RawKernel};
use crate::Array;

/// The largest order the kernel inverts (its shared tile is `MAX_N × 2 MAX_N`).
pub(super) const MAX_N: usize = 32;

const SOURCE: &str = r#"
extern "C" __global__ void NAME(const T* a, T* out, int* info, long long batch, int n) {
    __shared__ T m[32][65];
    __shared__ T colk[32];
    __shared__ int piv;
    const long long b = blockIdx.x;
    if (b >= batch) return;
    const int tid = threadIdx.x, nt = blockDim.x, w = 2 * n;
    const T* src = a + b * (long long)n * n;
    for (int e = tid; e < n * w; e += nt) {
        const int i = e / w, j = e - (e / w) * w;
        m[i][j] = j < n ? src[i * n + j] : (T)(j - n == i ? 1 : 0);
    }
    __syncthreads();
    int status = 0;
    for (int k = 0; k < n; ++k) {
        if (tid == 0) {
            int p = k;
            T best = m[k][k] < (T)0 ? -m[k][k] : m[k][k];
            for (int i = k + 1; i < n; ++i) {
                const T v = m[i][k] < (T)0 ? -m[i][k] : m[i][k];
                if (v > best) { best = v; p = i; }
            }
            piv = p;
        }
        __syncthreads();
        const int p = piv;
        const T pv = m[p][k];
        // Every thread holds the pivot before the swap below moves it.
        __syncthreads();
        if (pv == (T)0) { status = k + 1; break; }
        if (p != k) {
            for (int j = k + tid; j < w; j += nt) { const T t = m[k][j]; m[k][j] = m[p][j]; m[p][j] = t; }
        }
        __syncthreads();
        for (int j = k + tid; j < w; j += nt) m[k][j] = m[k][j] / pv;
        for (int i = tid; i < n; i += nt) colk[i] = i == k ? (T)0 : m[i][k];
        __syncthreads();
        const int span = w - k;
        for (int e = tid; e < n * span; e += nt) {
            const int i = e / span, j = k + (e - (e / span) * span);
            if (i != k) m[i][j] = m[i][j] - colk[i] * m[k][j];
        }
        __syncthreads();
    }
    if (status == 0) {
        T* dst = out + b * (long long)n * n;
        for (int e = tid; e < n * n; e += nt) { const int i = e / n; dst[e] = m[i][n + (e - i * n)]; }
    }
    if (tid == 0) info[b] = status;
}
"#;

/// The kernel for `T` (`float` or `double`), made once per process (and compiled once per
/// device).
fn kernel(t: &str) -> RawKernel {
    static CACHE: OnceLock<Mutex<HashMap<String, RawKernel>>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(|| Mutex::new(HashMap::new())).lock();
    cache
        .entry(t.to_string())
        .or_insert_with(|| RawKernel::new(&source(t), &format!("xp_linalg_inv_small_{t}")))
        .clone()
}

/// The kernel for float32 and float64 (for compile checks on GPU compilers).
pub fn small_inverse_kernels() -> Vec<xp_kernels::render::Rendered> {
    ["float", "double"]
        .iter()
        .map(|t| xp_kernels::render::Rendered { name: format!("xp_linalg_inv_small_{t}"), code: source(t) })
        .collect()
}

/// The kernel's source for `T`.
fn source(t: &str) -> String {
    format!("typedef {t} T;\n{}", SOURCE.replace("NAME", &format!("xp_linalg_inv_small_{t}")))
}

/// The inverses of the `batch` C-ordered `n × n` matrices of `a` (float32 or float64,
/// `1 ≤ n ≤ MAX_N`) into a new C-ordered array of `a`'s shape, with one status per matrix (0,
/// or `k + 1` for a zero pivot in column `k`), both queued on `a`'s device.
pub(super) fn inv_small(a: &Array, n: usize, batch: usize) -> Result<(Array, Array)> {
    let t = match a.dtype() {
        DType::F32 => "float",
        DType::F64 => "double",
        d => return Err(Error::value("inv", format!("the batched small inverse takes float32 or float64, not {d}"))),
    };
    if !(1..=MAX_N).contains(&n) || batch == 0 || batch > i32::MAX as usize {
        return Err(Error::value("inv", format!("the batched small inverse takes 1 to {MAX_N} rows, not {n}")));
    }
    let dev = a.device_arc();
    let a = a.ascontiguous()?;
    let out = Array::empty_on(&dev, a.shape(), a.dtype())?;
    let info = Array::empty_on(&dev, &[batch], DType::I32)?;
    // Enough threads for the tile's rows of `2n` elements, in whole warps, at most 256.
    let threads = (2 * n * n).div_ceil(32).clamp(1, 8) as u32 * 32;
    kernel(t).launch(
        batch as u32,
        threads,
        &[
            LaunchArg::Array(&a),
            LaunchArg::Array(&out),
            LaunchArg::Array(&info),
            LaunchArg::I64(batch as i64),
            LaunchArg::I32(n as i32),
        ],
    )?;
    Ok((out, info))
}
