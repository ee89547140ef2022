//! The evaluation kernels of the interpolators: one pass over the queries each, written as
//! user elementwise kernels (so they run on every backend), with a binary search of the
//! breakpoints per query, the interval's coefficients read from a small table, and the
//! polynomial by Horner's rule.

use std::sync::OnceLock;

use xp_backend_api::{DType, Result};

use crate::user::ElementwiseKernel;
use crate::{Array, Operand, Scalar};

fn kernel(
    cell: &'static OnceLock<ElementwiseKernel>,
    ins: &str,
    outs: &str,
    op: &str,
    name: &str,
) -> Result<&'static ElementwiseKernel> {
    crate::user::cached_kernel(cell, ins, outs, op, name, "")
}

const PPOLY_EVAL: &str = r#"
const double xx = xv;
// The last breakpoint <= xx (>= for descending ones) by a halving search whose trip count is
// the same for every query (no divergence in a warp); NaN finds interval 0.
long long base = 0, len = m + 1;
if (desc) {
    while (len > 1) { const long long h = len >> 1; base = (bp[base + h] >= xx) ? base + h : base; len -= h; }
    if (bp[base] >= xx) ++base;
} else {
    while (len > 1) { const long long h = len >> 1; base = (bp[base + h] <= xx) ? base + h : base; len -= h; }
    if (bp[base] <= xx) ++base;
}
long long idx = base - 1;
if (idx < 0) idx = 0;
if (idx > m - 1) idx = m - 1;
const long long col = t == 1 ? 0 : (long long)i % t;
const double dx = xx - bp[idx];
const double* c = cf + idx * k1 * t + col;
double r = c[0];
for (long long j = 1; j < k1; ++j) r = r * dx + c[j * t];
if (xx != xx || (noext != 0 && (xx < xlo || xx > xhi))) r = nanv;
y = r;
"#;

/// A piecewise polynomial at the queries `xq` (float64, shape `(nq, t)` or broadcast to it):
/// `bp` the `m + 1` breakpoints (float64, increasing, or decreasing with `desc`), `cf` the
/// coefficients laid out `(m, k + 1, t)` C-contiguous; NaN outside `[xlo, xhi]` when `noext`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn ppoly_eval(
    xq: &Array,
    bp: &Array,
    cf: &Array,
    k1: usize,
    t: usize,
    desc: bool,
    noext: bool,
    bounds: (f64, f64),
) -> Result<Array> {
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    let k = kernel(
        &K,
        "float64 xv, raw float64 bp, raw float64 cf, int64 m, int64 k1, int64 t, int64 desc, int64 noext, float64 xlo, float64 xhi, float64 nanv",
        "float64 y",
        PPOLY_EVAL,
        "xp_ppoly_eval",
    )?;
    let m = bp.size() - 1;
    let i = |v: usize| Operand::Scalar(Scalar::Int(v as i128));
    let f = |v: f64| Operand::Scalar(Scalar::Float(v));
    k.call(&[
        Operand::Array(xq),
        Operand::Array(bp),
        Operand::Array(cf),
        i(m),
        i(k1),
        i(t),
        i(desc as usize),
        i(noext as usize),
        f(bounds.0),
        f(bounds.1),
        f(f64::NAN),
    ])
}

const LINEAR_EVAL: &str = r#"
const T xx = xv;
// searchsorted(xs, xx, 'left'): the count of points below xx, by a halving search of one trip
// count for every query.
long long base = 0, len = npts;
while (len > 1) { const long long h = len >> 1; base = (xs[base + h] < xx) ? base + h : base; len -= h; }
if (xs[base] < xx) ++base;
long long hi = base;
if (hi > npts - 1) hi = npts - 1;
if (hi < 1) hi = 1;
const long long lo = hi - 1;
const long long col = t == 1 ? 0 : (long long)i % t;
const T xl = xs[lo];
const T yl = ys[lo * t + col];
const T slope = (ys[hi * t + col] - yl) / (xs[hi] - xl);
T r = slope * (xx - xl) + yl;
if (fill != 0) {
    if ((double)xx < xlo) r = (T)fb;
    else if ((double)xx > xhi) r = (T)fa;
}
y = r;
"#;

/// `interp1d`'s linear kind at `xq` (broadcast to `(nq, t)`): `xs` the sorted points, `ys`
/// the `(n, t)` data, all of one float dtype (the answer's). NumPy's rule of the neighbours:
/// `searchsorted(x, xq)` clipped to `[1, n - 1]`. `fill`: `(below, above, lo, hi)`, the
/// values below `lo` and above `hi`.
pub(crate) fn linear_eval(
    xq: &Array,
    xs: &Array,
    ys: &Array,
    t: usize,
    fill: Option<(f64, f64, f64, f64)>,
) -> Result<Array> {
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    let k = kernel(
        &K,
        "T xv, raw T xs, raw T ys, int64 npts, int64 t, int64 fill, float64 xlo, float64 xhi, float64 fb, float64 fa",
        "T y",
        LINEAR_EVAL,
        "xp_interp1d_linear",
    )?;
    let i = |v: usize| Operand::Scalar(Scalar::Int(v as i128));
    let f = |v: f64| Operand::Scalar(Scalar::Float(v));
    let (on, (fb, fa, lo, hi)) = match fill {
        Some(v) => (1, v),
        None => (0, (0.0, 0.0, 0.0, 0.0)),
    };
    k.call(&[
        Operand::Array(xq),
        Operand::Array(xs),
        Operand::Array(ys),
        i(xs.size()),
        i(t),
        i(on),
        f(lo),
        f(hi),
        f(fb),
        f(fa),
    ])
}

const GRID_LINEAR: &str = r#"
const long long col = (long long)i % t;
const long long p = (long long)i / t;
long long base[16];
double w[16];
long long stride[16];
long long s = 1;
for (long long d = nd - 1; d >= 0; --d) { stride[d] = s; s *= gn[d]; }
for (long long d = 0; d < nd; ++d) {
    const double* g = gr + go[d];
    const long long ng = gn[d];
    const double xx = pts[p * nd + d];
    long long a = 0, b = ng;
    while (a < b) {
        const long long mid = (a + b) >> 1;
        if (g[mid] < xx) a = mid + 1; else b = mid;
    }
    long long k = a - 1;
    if (k > ng - 2) k = ng - 2;
    if (k < 0) k = 0;
    base[d] = k;
    w[d] = ng > 1 ? (xx - g[k]) / (g[k + 1] - g[k]) : (xx - xx);
}
double acc = 0.0;
const long long corners = 1LL << nd;
for (long long c = 0; c < corners; ++c) {
    double wt = 1.0;
    long long flat = 0;
    for (long long d = 0; d < nd; ++d) {
        const long long up = (c >> (nd - 1 - d)) & 1;
        const long long j = base[d] + (up && gn[d] > 1 ? 1 : 0);
        wt *= up ? w[d] : 1.0 - w[d];
        flat += j * stride[d];
    }
    acc += wt * (double)vals[flat * t + col];
}
y = acc;
"#;

/// The most grid axes of the one-pass multilinear kernel.
pub(crate) const GRID_MAX_NDIM: usize = 16;

/// Multilinear interpolation on a rectilinear grid: `pts` the `(m, nd)` float64 queries, `gr`
/// the grids' points concatenated (float64), `go`/`gn` each axis's offset and length (int64),
/// `vals` the `(N, t)` values (C order over the grid). The answer is `(m, t)` float64.
pub(crate) fn grid_linear(
    pts: &Array,
    gr: &Array,
    go: &Array,
    gn: &Array,
    vals: &Array,
    m: usize,
    t: usize,
) -> Result<Array> {
    // One kernel per values dtype: a placeholder bound only by a raw parameter would not
    // tell the compiled kernels apart.
    static K64: OnceLock<ElementwiseKernel> = OnceLock::new();
    static K32: OnceLock<ElementwiseKernel> = OnceLock::new();
    let params = |v: &str| {
        format!(
            "float64 shp, raw float64 pts, raw float64 gr, raw int64 go, raw int64 gn, raw {v} vals, int64 nd, int64 t"
        )
    };
    let (k, vals) = match vals.dtype() {
        DType::F32 => (kernel(&K32, &params("float32"), "float64 y", GRID_LINEAR, "xp_grid_linear_f32")?, vals.clone()),
        DType::F64 => (kernel(&K64, &params("float64"), "float64 y", GRID_LINEAR, "xp_grid_linear_f64")?, vals.clone()),
        _ => (
            kernel(&K64, &params("float64"), "float64 y", GRID_LINEAR, "xp_grid_linear_f64")?,
            vals.astype(DType::F64)?,
        ),
    };
    let nd = go.size();
    let shape = Array::full_on(&pts.device_arc(), &[1], 0.0, DType::F64)?.broadcast_to(&[m, t])?;
    let i = |v: usize| Operand::Scalar(Scalar::Int(v as i128));
    k.call(&[
        Operand::Array(&shape),
        Operand::Array(pts),
        Operand::Array(gr),
        Operand::Array(go),
        Operand::Array(gn),
        Operand::Array(&vals),
        i(nd),
        i(t),
    ])
}
