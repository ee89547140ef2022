//! The device kernels of the filters: one user elementwise kernel per family, each thread
//! computing one output element from a table of tap offsets (one row of `ndim` offsets per
//! tap, built on the host from the weights or footprint, so its size is the filter's, not the
//! image's); the 1-d forms take offsets along one axis and step by its stride. The boundary rule maps an index outside `[0, n)` back inside as SciPy extends a
//! line: `reflect` with period `2n`, `mirror` with period `2n - 2`, `wrap` with period `n`,
//! `nearest` by clamping, and `constant` reads `cval`.

use std::sync::OnceLock;

use xp_backend_api::{DType, Error, Result};

use super::super::Mode;
use crate::user::{ElementwiseKernel, LaunchArg, RawKernel};
use crate::{Array, Operand, Scalar};

/// The most axes the kernels index.
pub(crate) const MAX_NDIM: usize = 32;

/// The footprint size up to which a rank filter selects in a per-thread buffer; larger
/// footprints select by counting (quadratic in the footprint, but with no memory per element).
const LOCAL: usize = 1024;

pub(super) const HELPERS: &str = r#"#ifndef XP_NDIMAGE_FILTER_HELPERS
#define XP_NDIMAGE_FILTER_HELPERS 1
// The index that `j` (outside [0, n)) reads under boundary rule `m`: 0 reflect, 2 nearest,
// 3 mirror, 4 wrap (1, constant, never comes here).
static XP_DEVICE long long xp_nd_extend(long long j, long long n, long long m) {
  if (m == 2) return j < 0 ? 0 : n - 1;
  if (m == 4) { j %= n; return j < 0 ? j + n : j; }
  if (m == 3) {
    if (n == 1) return 0;
    const long long p = 2 * n - 2;
    j %= p; if (j < 0) j += p;
    return j < n ? j : p - j;
  }
  const long long p = 2 * n;
  j %= p; if (j < 0) j += p;
  return j < n ? j : p - 1 - j;
}
#endif
"#;

/// The integer code of a mode in the kernels (grid-constant is constant, grid-wrap is wrap).
pub(super) fn mode_code(mode: Mode) -> i64 {
    match mode {
        Mode::Reflect => 0,
        Mode::Constant | Mode::GridConstant => 1,
        Mode::Nearest => 2,
        Mode::Mirror => 3,
        Mode::Wrap | Mode::GridWrap => 4,
    }
}

fn kernel(
    cell: &'static OnceLock<ElementwiseKernel>,
    ins: &str,
    op: &str,
    name: &str,
) -> Result<&'static ElementwiseKernel> {
    crate::user::cached_kernel(cell, ins, "T y", op, name, HELPERS)
}

/// The coordinates of output `i` and the flat input index of tap `k` (or `outside`).
const COORDS: &str = r#"
long long rem = (long long)i;
long long c[32];
int inner = 1;
for (long long d = nd - 1; d >= 0; --d) {
    const long long n = shp[d]; c[d] = rem % n; rem /= n;
    if (c[d] + olo[d] < 0 || c[d] + ohi[d] >= n) inner = 0;
}
"#;

/// Tap `k`'s flat index (`outside` in constant mode past the edge): inside the image a table
/// of flat offsets, near the edges the boundary rule per axis.
const TAP: &str = r#"
long long flat = 0; int outside = 0;
if (inner) {
    flat = (long long)i + fofs[k];
} else {
    for (long long d = 0; d < nd; ++d) {
        const long long n = shp[d];
        long long j = c[d] + offs[k * nd + d];
        if (j < 0 || j >= n) {
            if (mode == 1) { outside = 1; break; }
            j = xp_nd_extend(j, n, mode);
        }
        flat = flat * n + j;
    }
}
"#;

fn corr_source() -> String {
    format!(
        "{COORDS}double acc = 0.0;\nfor (long long k = 0; k < nw; ++k) {{\n{TAP}\n    acc += wts[k] * (outside ? cval : (double)x[flat]);\n}}\n\
         acc = acc / div;\nif (isint) {{ y = (T)(long long)acc; }} else {{ y = (T)acc; }}\n"
    )
}

fn rank_source() -> String {
    format!(
        r#"{COORDS}const T cv = isint ? (T)(long long)cval : (T)cval;
T best = cv;
if (rank == 0 || rank == nw - 1) {{
    const int want_max = rank != 0;
    for (long long k = 0; k < nw; ++k) {{
{TAP}
        const T v = outside ? cv : x[flat];
        if (k == 0 || (want_max ? (v > best) : (v < best))) best = v;
    }}
}} else if (nw <= {LOCAL}) {{
    T buf[{LOCAL}];
    for (long long k = 0; k < nw; ++k) {{
{TAP}
        buf[k] = outside ? cv : x[flat];
    }}
    // Hoare's FIND (Wirth's formulation): partition around buf[rank] until it is in place.
    long long lo = 0, hi = nw - 1;
    while (lo < hi) {{
        const T piv = buf[rank];
        long long a = lo, b = hi;
        do {{
            while (buf[a] < piv) ++a;
            while (piv < buf[b]) --b;
            if (a <= b) {{ const T t = buf[a]; buf[a] = buf[b]; buf[b] = t; ++a; --b; }}
        }} while (a <= b);
        if (b < rank) lo = a;
        if (rank < a) hi = b;
    }}
    best = buf[rank];
}} else {{
    // Counting selection: the value with `rank` values below it and more than `rank` at or
    // below it.
    for (long long k = 0; k < nw; ++k) {{
{TAP}
        const T v = outside ? cv : x[flat];
        long long below = 0, upto = 0;
        for (long long q = 0; q < nw; ++q) {{
            long long flat2 = (long long)i + fofs[q]; int out2 = 0;
            if (!inner) {{ flat2 = 0; for (long long d = 0; d < nd; ++d) {{
                const long long n = shp[d];
                long long j = c[d] + offs[q * nd + d];
                if (j < 0 || j >= n) {{
                    if (mode == 1) {{ out2 = 1; break; }}
                    j = xp_nd_extend(j, n, mode);
                }}
                flat2 = flat2 * n + j;
            }} }}
            const T u = out2 ? cv : x[flat2];
            below += u < v; upto += u <= v;
        }}
        if (below <= rank && rank < upto) {{ best = v; break; }}
    }}
}}
y = best;
"#
    )
}

/// The coordinate of output `i` along the filtered axis (length `n`, stride `s` in elements)
/// and the flat index of its line's first element; tap `k` reads `x[base + j * s]`.
const COORD1: &str = r#"
const long long n = len, s = stride;
const long long c = ((long long)i / s) % n;
const long long base = (long long)i - c * s;
"#;

const TAP1: &str = r#"
long long j = c + offs[k]; int outside = 0;
if (j < 0 || j >= n) {
    if (mode == 1) { outside = 1; j = 0; } else { j = xp_nd_extend(j, n, mode); }
}
const long long flat = base + j * s;
"#;

fn corr1_source() -> String {
    format!(
        "{COORD1}double acc = 0.0;\nif (c + olo >= 0 && c + ohi < n) {{\n    const T* p = x + base + c * s;\n    for (long long k = 0; k < nw; ++k) acc += wts[k] * (double)p[offs[k] * s];\n}} else {{\nfor (long long k = 0; k < nw; ++k) {{\n{TAP1}\n    acc += wts[k] * (outside ? cval : (double)x[flat]);\n}}\n}}\n\
         acc = acc / div;\nif (isint) {{ y = (T)(long long)acc; }} else {{ y = (T)acc; }}\n"
    )
}

fn minmax1_source() -> String {
    format!(
        r#"{COORD1}const T cv = isint ? (T)(long long)cval : (T)cval;
T best = cv;
for (long long k = 0; k < nw; ++k) {{
{TAP1}
    const T v = outside ? cv : x[flat];
    if (k == 0 || (want_max ? (v > best) : (v < best))) best = v;
}}
y = best;
"#
    )
}

/// The shared checks and tables of one launch.
struct Launch {
    x: Array,
    shp: Array,
    offs: Array,
    fofs: Array,
    olo: Array,
    ohi: Array,
    out: Array,
    nd: usize,
    nw: usize,
    isint: bool,
}

fn prepare(op: &str, x: &Array, offsets: &[Vec<i64>]) -> Result<Launch> {
    let dt = x.dtype();
    if !(dt == DType::F32 || dt == DType::F64 || dt.is_integer()) {
        return Err(Error::unsupported_dtype(op, dt));
    }
    let nd = x.ndim().max(1);
    if nd > MAX_NDIM {
        return Err(Error::value(op, format!("at most {MAX_NDIM} dimensions are supported, got {nd}")));
    }
    let dev = x.device_arc();
    let mut shape: Vec<i64> = x.shape().iter().map(|&n| n as i64).collect();
    if shape.is_empty() {
        shape.push(1);
    }
    let mut flat: Vec<i64> = Vec::with_capacity(offsets.len() * nd);
    for o in offsets {
        if o.is_empty() {
            flat.extend(std::iter::repeat_n(0, nd));
        } else {
            flat.extend_from_slice(o);
        }
    }
    // Each tap's flat offset (row-major with signed digits), and the taps' extent per axis:
    // an element whose window lies inside the image reads `x[i + fofs[k]]`.
    let mut fofs: Vec<i64> =
        flat.chunks(nd).map(|t| t.iter().zip(&shape).fold(0, |acc, (&o, &n)| acc * n + o)).collect();
    let mut lo = vec![0i64; nd];
    let mut hi = vec![0i64; nd];
    for t in flat.chunks(nd) {
        for d in 0..nd {
            lo[d] = lo[d].min(t[d]);
            hi[d] = hi[d].max(t[d]);
        }
    }
    if flat.is_empty() {
        flat.push(0);
        fofs.push(0);
    }
    Ok(Launch {
        x: x.ascontiguous()?,
        shp: Array::from_slice_on(&dev, &shape, &[nd])?,
        offs: Array::from_slice_on(&dev, &flat, &[flat.len()])?,
        fofs: Array::from_slice_on(&dev, &fofs, &[fofs.len()])?,
        olo: Array::from_slice_on(&dev, &lo, &[nd])?,
        ohi: Array::from_slice_on(&dev, &hi, &[nd])?,
        out: Array::empty_on(&dev, x.shape(), dt)?,
        nd,
        nw: offsets.len(),
        isint: dt.is_integer(),
    })
}

/// The correlation `y[i] = (sum_k w[k] * x[i + offsets[k]]) / div`, summed in float64 and
/// cast to `x`'s dtype once (integers truncated toward zero and wrapped, as SciPy's C cast).
pub(crate) fn correlate_taps(
    op: &str,
    x: &Array,
    offsets: &[Vec<i64>],
    weights: &[f64],
    div: f64,
    mode: Mode,
    cval: f64,
) -> Result<Array> {
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    static SRC: OnceLock<String> = OnceLock::new();
    let src = SRC.get_or_init(corr_source);
    let k = kernel(
        &K,
        "raw T x, raw int64 shp, raw int64 offs, raw int64 fofs, raw int64 olo, raw int64 ohi, raw float64 wts, int64 nd, int64 nw, int64 mode, float64 cval, float64 div, int64 isint",
        src,
        "xp_ndimage_correlate",
    )?;
    if x.size() == 0 {
        return Array::empty_on(&x.device_arc(), x.shape(), x.dtype());
    }
    let l = prepare(op, x, offsets)?;
    let mut w = weights.to_vec();
    if w.is_empty() {
        w.push(0.0);
    }
    let wts = Array::from_slice_on(&x.device_arc(), &w, &[w.len()])?;
    let i = |v: i64| Operand::Scalar(Scalar::Int(v as i128));
    let f = |v: f64| Operand::Scalar(Scalar::Float(v));
    k.call(&[
        Operand::Array(&l.x),
        Operand::Array(&l.shp),
        Operand::Array(&l.offs),
        Operand::Array(&l.fofs),
        Operand::Array(&l.olo),
        Operand::Array(&l.ohi),
        Operand::Array(&wts),
        i(l.nd as i64),
        i(l.nw as i64),
        i(mode_code(mode)),
        f(cval),
        f(div),
        i(l.isint as i64),
        Operand::Array(&l.out),
    ])?;
    Ok(l.out)
}

/// [`correlate_taps`] along one axis: `offsets` are the taps' offsets along `axis`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn correlate_axis(
    op: &str,
    x: &Array,
    axis: usize,
    offsets: &[i64],
    weights: &[f64],
    div: f64,
    mode: Mode,
    cval: f64,
) -> Result<Array> {
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    static SRC: OnceLock<String> = OnceLock::new();
    let src = SRC.get_or_init(corr1_source);
    let k = kernel(
        &K,
        "raw T x, raw int64 offs, raw float64 wts, int64 len, int64 stride, int64 nw, int64 olo, int64 ohi, int64 mode, float64 cval, float64 div, int64 isint",
        src,
        "xp_ndimage_correlate1d",
    )?;
    let dev = x.device_arc();
    let dt = x.dtype();
    let native = crate::ndimage::native(&*dev);
    if !native && x.size() > 0 && !offsets.is_empty() && (dt == DType::F32 || dt == DType::F64 || dt.is_integer()) {
        // GPUs: the tiled kernel where the window and the grid fit it.
        let shape = x.shape();
        let (n, s) = if shape.is_empty() { (1, 1) } else { (shape[axis], shape[axis + 1..].iter().product::<usize>()) };
        let span = offsets.iter().copied().max().unwrap_or(0) - offsets.iter().copied().min().unwrap_or(0);
        if super::tiled::corr1_fits(n, s, span, offsets.len(), x.size()) {
            let xc = x.ascontiguous()?;
            let out = Array::empty_on(&dev, shape, dt)?;
            super::tiled::correlate_axis_tiled(&xc, &out, n, s, offsets, weights, div, mode, cval)?;
            return Ok(out);
        }
    }
    let Some(l) = prepare_axis(op, x, axis, offsets)? else {
        return Array::empty_on(&dev, x.shape(), x.dtype());
    };
    if native {
        return correlate_axis_tiles(&l, offsets, weights, div, mode, cval);
    }
    let mut w = weights.to_vec();
    if w.is_empty() {
        w.push(0.0);
    }
    let wts = Array::from_slice_on(&x.device_arc(), &w, &[w.len()])?;
    let i = |v: i64| Operand::Scalar(Scalar::Int(v as i128));
    let f = |v: f64| Operand::Scalar(Scalar::Float(v));
    k.call(&[
        Operand::Array(&l.x),
        Operand::Array(&l.offs),
        Operand::Array(&wts),
        i(l.n),
        i(l.s),
        i(offsets.len() as i64),
        i(offsets.iter().copied().min().unwrap_or(0)),
        i(offsets.iter().copied().max().unwrap_or(0)),
        i(mode_code(mode)),
        f(cval),
        f(div),
        i(l.isint as i64),
        Operand::Array(&l.out),
    ])?;
    Ok(l.out)
}

/// The minimum (or maximum) along one axis over the taps at `offsets`.
pub(crate) fn min_max_axis(
    op: &str,
    x: &Array,
    axis: usize,
    offsets: &[i64],
    max: bool,
    mode: Mode,
    cval: f64,
) -> Result<Array> {
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    static SRC: OnceLock<String> = OnceLock::new();
    let src = SRC.get_or_init(minmax1_source);
    let k = kernel(
        &K,
        "raw T x, raw int64 offs, int64 len, int64 stride, int64 nw, int64 want_max, int64 mode, float64 cval, int64 isint",
        src,
        "xp_ndimage_minmax1d",
    )?;
    let Some(l) = prepare_axis(op, x, axis, offsets)? else {
        return Array::empty_on(&x.device_arc(), x.shape(), x.dtype());
    };
    let i = |v: i64| Operand::Scalar(Scalar::Int(v as i128));
    k.call(&[
        Operand::Array(&l.x),
        Operand::Array(&l.offs),
        i(l.n),
        i(l.s),
        i(offsets.len() as i64),
        i(max as i64),
        i(mode_code(mode)),
        Operand::Scalar(Scalar::Float(cval)),
        i(l.isint as i64),
        Operand::Array(&l.out),
    ])?;
    Ok(l.out)
}

/// The tables of a launch along one axis (`None` for an empty array).
struct AxisLaunch {
    x: Array,
    offs: Array,
    out: Array,
    n: i64,
    s: i64,
    isint: bool,
}

fn prepare_axis(op: &str, x: &Array, axis: usize, offsets: &[i64]) -> Result<Option<AxisLaunch>> {
    let dt = x.dtype();
    if !(dt == DType::F32 || dt == DType::F64 || dt.is_integer()) {
        return Err(Error::unsupported_dtype(op, dt));
    }
    if x.size() == 0 {
        return Ok(None);
    }
    let dev = x.device_arc();
    let shape = x.shape();
    let (n, s) = if shape.is_empty() { (1, 1) } else { (shape[axis], shape[axis + 1..].iter().product::<usize>()) };
    let mut offs = offsets.to_vec();
    if offs.is_empty() {
        offs.push(0);
    }
    Ok(Some(AxisLaunch {
        x: x.ascontiguous()?,
        offs: Array::from_slice_on(&dev, &offs, &[offs.len()])?,
        out: Array::empty_on(&dev, shape, dt)?,
        n: n as i64,
        s: s as i64,
        isint: dt.is_integer(),
    }))
}

/// The rank filter: `y[i]` is the `rank`-th smallest (from 0) of `x[i + offsets[k]]`, with
/// `cval` cast to `x`'s dtype outside in constant mode.
pub(crate) fn rank_taps(
    op: &str,
    x: &Array,
    offsets: &[Vec<i64>],
    rank: usize,
    mode: Mode,
    cval: f64,
) -> Result<Array> {
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    static SRC: OnceLock<String> = OnceLock::new();
    let src = SRC.get_or_init(rank_source);
    let k = kernel(
        &K,
        "raw T x, raw int64 shp, raw int64 offs, raw int64 fofs, raw int64 olo, raw int64 ohi, int64 nd, int64 nw, int64 rank, int64 mode, float64 cval, int64 isint",
        src,
        "xp_ndimage_rank",
    )?;
    if x.size() == 0 {
        return Array::empty_on(&x.device_arc(), x.shape(), x.dtype());
    }
    let dt = x.dtype();
    if dt == DType::F32 || dt == DType::F64 || dt.is_integer() {
        if let Some(plan) = super::tiled::rank_plan(x.shape(), offsets) {
            let xc = x.ascontiguous()?;
            let out = Array::empty_on(&x.device_arc(), x.shape(), dt)?;
            super::tiled::rank_tiled(&xc, &out, &plan, rank, mode, cval)?;
            return Ok(out);
        }
    }
    let l = prepare(op, x, offsets)?;
    let i = |v: i64| Operand::Scalar(Scalar::Int(v as i128));
    k.call(&[
        Operand::Array(&l.x),
        Operand::Array(&l.shp),
        Operand::Array(&l.offs),
        Operand::Array(&l.fofs),
        Operand::Array(&l.olo),
        Operand::Array(&l.ohi),
        i(l.nd as i64),
        i(l.nw as i64),
        i(rank as i64),
        i(mode_code(mode)),
        Operand::Scalar(Scalar::Float(cval)),
        i(l.isint as i64),
        Operand::Array(&l.out),
    ])?;
    Ok(l.out)
}

/// Outputs per thread of the CPU's 1-d correlation.
const TILE: usize = 16;

/// The CPU's 1-d correlation: each thread makes [`TILE`] consecutive outputs, and where they lie
/// on one line segment whose taps are all inside the image it sums them as `TILE` running
/// float64 sums over the taps (`y[i + w] += wts[k] * x[i + w + offs[k] * s]`): a loop the host
/// compiler vectorises, with the tap's offset and weight loaded once per tile; symmetric
/// weights add the two mirrored taps first, halving the products. Elsewhere (the edges) each
/// output takes the general path with the boundary rule. Without symmetry these are the
/// elementwise kernel's sums in its order; with it, the pairs are added first (a rounding of
/// the float64 sum apart).
fn tiles_source(t: DType) -> String {
    let c = t.c_name();
    let tag = t.short();
    format!(
        r#"{HELPERS}
typedef {c} T;
extern "C" __global__ void xp_ndimage_corr1_tiles_{tag}(const T* __restrict__ x, T* __restrict__ y,
    const long long* __restrict__ offs, const double* __restrict__ wts, long long total, long long len,
    long long stride, long long nw, long long olo, long long ohi, long long mode, double cval, double div,
    long long isint, long long sym) {{
  const long long W = {TILE};
  const long long i0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * W;
  if (i0 >= total) return;
  const long long n = len, s = stride;
  const long long c0 = (i0 / s) % n;
  int fast = i0 + W <= total;
  if (fast) {{
    if (s > 1) fast = (i0 % s) + W <= s && c0 + olo >= 0 && c0 + ohi < n;
    else fast = c0 + W <= n && c0 + olo >= 0 && c0 + W - 1 + ohi < n;
  }}
  if (fast) {{
    double acc[{TILE}];
    for (long long w = 0; w < W; ++w) acc[w] = 0.0;
    const T* p = x + i0;
    if (sym) {{
      // Taps k and nw - 1 - k have equal weights and opposite offsets.
      const long long h = nw / 2;
      for (long long k = 0; k < h; ++k) {{
        const double wk = wts[k];
        const T* a = p + offs[k] * s;
        const T* b = p + offs[nw - 1 - k] * s;
        for (long long w = 0; w < W; ++w) acc[w] += wk * ((double)a[w] + (double)b[w]);
      }}
      if (nw % 2) {{
        const double wk = wts[h];
        const T* a = p + offs[h] * s;
        for (long long w = 0; w < W; ++w) acc[w] += wk * (double)a[w];
      }}
    }} else {{
      for (long long k = 0; k < nw; ++k) {{
        const double wk = wts[k];
        const T* a = p + offs[k] * s;
        for (long long w = 0; w < W; ++w) acc[w] += wk * (double)a[w];
      }}
    }}
    for (long long w = 0; w < W; ++w) {{
      const double v = acc[w] / div;
      if (isint) y[i0 + w] = (T)(long long)v; else y[i0 + w] = (T)v;
    }}
    return;
  }}
  const long long end = i0 + W < total ? i0 + W : total;
  for (long long i = i0; i < end; ++i) {{
    const long long c = (i / s) % n;
    const long long base = i - c * s;
    double acc = 0.0;
    for (long long k = 0; k < nw; ++k) {{
      long long j = c + offs[k];
      double v;
      if (j < 0 || j >= n) {{
        if (mode == 1) v = cval; else v = (double)x[base + xp_nd_extend(j, n, mode) * s];
      }} else {{
        v = (double)x[base + j * s];
      }}
      acc += wts[k] * v;
    }}
    acc = acc / div;
    if (isint) y[i] = (T)(long long)acc; else y[i] = (T)acc;
  }}
}}
"#
    )
}

fn correlate_axis_tiles(
    l: &AxisLaunch,
    offsets: &[i64],
    weights: &[f64],
    div: f64,
    mode: Mode,
    cval: f64,
) -> Result<Array> {
    static K: std::sync::Mutex<Vec<(DType, RawKernel)>> = std::sync::Mutex::new(Vec::new());
    let dt = l.x.dtype();
    let k = {
        let mut cache = K.lock().map_err(|_| Error::value("correlate1d", "kernel cache poisoned"))?;
        match cache.iter().find(|(d, _)| *d == dt) {
            Some((_, k)) => k.clone(),
            None => {
                let k = RawKernel::new(&tiles_source(dt), &format!("xp_ndimage_corr1_tiles_{}", dt.short()));
                cache.push((dt, k.clone()));
                k
            }
        }
    };
    let dev = l.x.device_arc();
    let mut w = weights.to_vec();
    if w.is_empty() {
        w.push(0.0);
    }
    let nw = offsets.len();
    // The mirrored taps pair up when the offsets and weights are symmetric about the centre.
    let sym = nw > 1
        && (0..nw).all(|k| offsets[k] + offsets[nw - 1 - k] == offsets[0] + offsets[nw - 1])
        && (0..nw / 2).all(|k| w[k] == w[nw - 1 - k]);
    let wts = Array::from_slice_on(&dev, &w, &[w.len()])?;
    let total = l.x.size();
    let threads = total.div_ceil(TILE);
    let block = 128usize;
    let grid = threads.div_ceil(block);
    k.launch(
        grid as u32,
        block as u32,
        &[
            LaunchArg::Array(&l.x),
            LaunchArg::Array(&l.out),
            LaunchArg::Array(&l.offs),
            LaunchArg::Array(&wts),
            LaunchArg::I64(total as i64),
            LaunchArg::I64(l.n),
            LaunchArg::I64(l.s),
            LaunchArg::I64(nw as i64),
            LaunchArg::I64(offsets.iter().copied().min().unwrap_or(0)),
            LaunchArg::I64(offsets.iter().copied().max().unwrap_or(0)),
            LaunchArg::I64(mode_code(mode)),
            LaunchArg::F64(cval),
            LaunchArg::F64(div),
            LaunchArg::I64(l.isint as i64),
            LaunchArg::I64(sym as i64),
        ],
    )?;
    Ok(l.out.clone())
}
