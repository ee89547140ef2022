//! Connected-component labelling and the per-label statistics (SciPy's `scipy.ndimage`
//! measurements, CuPy's `cupyx.scipy.ndimage`).
//!
//! # Labels and index
//! Every statistic takes `input`, `labels` and `index` with SciPy's meaning:
//! - no `labels`: the statistic of the whole input, a 0-d array;
//! - `labels` without `index`: of the pixels whose label is positive, a 0-d array;
//! - `index` a 0-d array: of the pixels whose label equals it, a 0-d array;
//! - `index` an array: one value per entry of `index` (the answer has `index`'s shape, with a
//!   trailing axis of the input's rank for positions and centres of mass). A label that no
//!   pixel carries gives 0 for `minimum`, `maximum`, `median`, the positions and `sum_labels`,
//!   and NaN for `mean`, `variance`, `standard_deviation` and `center_of_mass`, as SciPy.
//!
//! `labels` must have the input's shape (or broadcast to it) and an integer or bool dtype.
//!
//! # Dtypes (SciPy's)
//! `sum_labels`: the input's sum dtype (NumPy's `sum`: int32 → int64) for a 0-d answer,
//! float64 per index; `mean`, `variance`, `standard_deviation`, `center_of_mass`: float64;
//! `minimum`, `maximum`, `extrema`: the input's dtype; `median`: the input's float dtype
//! (float64 for integer images); positions, `find_objects`, `histogram`: int64; `label`:
//! int32 labels.
//!
//! # Algorithms (all on the device)
//! - `label`: parallel union-find (Playne and Hawick, "A New Algorithm for Parallel
//!   Connected-Component Labelling on GPUs", IEEE TPDS 29(6), 2018; Oliveira and Lotufo, "A
//!   Study on Connected Components Labeling Algorithms Using GPUs", SIBGRAPI 2010), one
//!   thread per pixel, 32-bit parents and index arithmetic below 2^31 pixels:
//!   1. each foreground pixel points at its first earlier foreground `structure` neighbour
//!      (or itself), so most unions are made before any atomic;
//!   2. each foreground pixel unites with its other earlier neighbours, linking the larger
//!      root under the smaller with an atomic minimum (retrying when another thread moved the
//!      root first); a parent is never larger than its child, so a component's root is its
//!      first pixel in C order;
//!   3. every pixel points straight at its root, and each block of 256 pixels counts its roots;
//!   4. one block scans the counts; each root's number is its block's offset plus its rank
//!      in the block (a shared-memory scan), so roots are numbered in C order, SciPy's order;
//!   5. every other pixel takes its root's number.
//!
//!   Six launches, no sort, one read of the count; pixels away from the edges find their
//!   neighbours through a table of flat offsets.
//! - `label` on the CPU device: the same numbering from a native two-pass union-find over
//!   the host buffer, strips of the first axis in parallel (see `ndimage::host`).
//! - Sums, means, variances, centres of mass and histograms: `bincount` over a per-pixel
//!   segment number (the position of the pixel's label among the sorted unique `index`,
//!   from `searchsorted`). Variance is two-pass (the mean first, then the centred squares).
//! - Minima, maxima, medians and positions: one `lexsort` by (segment, value) and the segment
//!   bounds by `searchsorted`; ties go to the first pixel in C order, as SciPy's.
//! - `find_objects`: per axis one sort of `label · n + coordinate`, whose first and last
//!   entries per label are the bounding box.

use std::ops::Range;
use std::sync::Arc;

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, Result};

use super::morphology::{generate_binary_structure, grid, kernel};
use crate::sort::Side;
use crate::{Array, LaunchArg, Scalar};

/// The pieces shared by the labelling kernels (`T` is the parent index type, `int` below 2^31
/// pixels): `LPOSITION` whether every neighbour of pixel `i` is inside (no coordinates kept,
/// so nothing spills), `LNEIGHBOUR(k)` the flat index `j` of neighbour `k` and whether it is
/// `inside` (through the offset table away from the edges, coordinates only at the edges).
const LABEL_COMMON: &str = r#"
#define LPOSITION int inner_ = 1; { T r_ = i; for (int d = nd - 1; d >= 0; --d) { const T s_ = (T)shape[d]; \
    const T c = r_ % s_; r_ /= s_; if (c < 1 || c + 1 >= s_) inner_ = 0; } }
#define LNEIGHBOUR(k) T j = 0; int inside = 1; \
    if (inner_) { j = i + (T)fo[k]; } else { \
        T c_[32]; { T r_ = i; for (int d = nd - 1; d >= 0; --d) { const T s_ = (T)shape[d]; c_[d] = r_ % s_; r_ /= s_; } } \
        for (int d = 0; d < nd; ++d) { const long long q = (long long)c_[d] + offs[(k) * nd + d]; \
            if (q < 0 || q >= shape[d]) { inside = 0; break; } j = j * (T)shape[d] + (T)q; } }
"#;

/// The root of `x`, and the atomic minimum of a parent (non-negative values).
const LABEL_FIND: &str = r#"
static __device__ __forceinline__ T xp_nd_find(const T* p, T x) {
    T q = p[x];
    while (q != x) { x = q; q = p[x]; }
    return x;
}
static __device__ __forceinline__ int xp_nd_amin(int* p, int v) { return atomicMin(p, v); }
static __device__ __forceinline__ long long xp_nd_amin(long long* p, long long v) {
    return (long long)atomicMin((unsigned long long*)p, (unsigned long long)v);
}
"#;

/// Every foreground pixel points at its first earlier foreground neighbour (in the offset
/// table's order), or at itself; the background is -1.
const LABEL_INIT: &str = r#"
extern "C" __global__ void NAME(const unsigned char* fg, T* p, const long long* offs, const long long* fo,
    const long long* shape, int nd, int nk, T n) {
    const T i = (T)blockIdx.x * (T)blockDim.x + (T)threadIdx.x;
    if (i >= n) return;
    if (!fg[i]) { p[i] = (T)-1; return; }
    LPOSITION
    T to = i;
    for (int k = 0; k < nk; ++k) {
        LNEIGHBOUR(k)
        if (inside && j < i && fg[j]) { to = j; break; }
    }
    p[i] = to;
}
"#;

/// Union of every foreground pixel with its other earlier foreground neighbours: the larger
/// root goes under the smaller with an atomic minimum, retried when another thread moved it.
const LABEL_MERGE: &str = r#"
extern "C" __global__ void NAME(const unsigned char* fg, T* p, const long long* offs, const long long* fo,
    const long long* shape, int nd, int nk, T n) {
    const T i = (T)blockIdx.x * (T)blockDim.x + (T)threadIdx.x;
    if (i >= n || !fg[i]) return;
    LPOSITION
    int first = 1;
    for (int k = 0; k < nk; ++k) {
        LNEIGHBOUR(k)
        if (!inside || j >= i || !fg[j]) continue;
        // The first such neighbour is the initial parent.
        if (first) { first = 0; continue; }
        T a = i, b = j;
        for (;;) {
            a = xp_nd_find(p, a);
            b = xp_nd_find(p, b);
            if (a == b) break;
            if (a < b) { const T t = a; a = b; b = t; }
            const T old = xp_nd_amin(&p[a], b);
            if (old == a) break;
            a = old;
        }
    }
}
"#;

/// Every pixel points at its root; each block counts its roots.
const LABEL_FLATTEN: &str = r#"
extern "C" __global__ void NAME(T* p, int* counts, T n) {
    __shared__ int cnt;
    const T i = (T)blockIdx.x * (T)blockDim.x + (T)threadIdx.x;
    if (threadIdx.x == 0) cnt = 0;
    __syncthreads();
    if (i < n) {
        const T q = p[i];
        if (q >= 0) {
            const T r = xp_nd_find(p, q);
            if (r != q) p[i] = r;
            if (r == i) atomicAdd(&cnt, 1);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) counts[blockIdx.x] = cnt;
}
"#;

/// The exclusive prefix sum of the blocks' root counts, in place, by one block of 1024 threads;
/// the total into `total[0]`.
const LABEL_SCAN: &str = r#"
extern "C" __global__ void NAME(int* counts, long long* total, T nb) {
    __shared__ long long part[1024];
    const int t = threadIdx.x;
    const T per = (nb + 1023) / 1024;
    const T lo = (T)t * per < nb ? (T)t * per : nb;
    const T hi = lo + per < nb ? lo + per : nb;
    long long s = 0;
    for (T k = lo; k < hi; ++k) s += counts[k];
    part[t] = s;
    __syncthreads();
    for (int o = 1; o < 1024; o <<= 1) {
        const long long v = t >= o ? part[t - o] : 0;
        __syncthreads();
        part[t] += v;
        __syncthreads();
    }
    long long run = part[t] - s;
    for (T k = lo; k < hi; ++k) { const int c = counts[k]; counts[k] = (int)run; run += c; }
    if (t == 1023) total[0] = part[1023];
}
"#;

/// Every root's number: its block's offset plus its rank among the block's roots, plus one.
const LABEL_ROOTS: &str = r#"
extern "C" __global__ void NAME(const T* p, const int* offsets, int* out, T n) {
    __shared__ int rank[256];
    const int t = threadIdx.x;
    const T i = (T)blockIdx.x * (T)blockDim.x + (T)t;
    const int root = i < n && p[i] == i;
    rank[t] = root;
    __syncthreads();
    for (int o = 1; o < 256; o <<= 1) {
        const int v = t >= o ? rank[t - o] : 0;
        __syncthreads();
        rank[t] += v;
        __syncthreads();
    }
    if (root) out[i] = offsets[blockIdx.x] + rank[t];
}
"#;

/// Every pixel takes its root's number (the background 0).
const LABEL_NUMBER: &str = r#"
extern "C" __global__ void NAME(const T* p, int* out, T n) {
    const T i = (T)blockIdx.x * (T)blockDim.x + (T)threadIdx.x;
    if (i >= n) return;
    const T q = p[i];
    if (q < 0) out[i] = 0;
    else if (q != i) out[i] = out[q];
}
"#;

fn dev_of(a: &Array) -> Arc<dyn DynDevice> {
    a.device_arc()
}

fn i64_scalar(dev: &Arc<dyn DynDevice>, v: i64) -> Result<Array> {
    Array::full_on(dev, &[], v, DType::I64)
}

fn arange_i64(dev: &Arc<dyn DynDevice>, n: usize) -> Result<Array> {
    let v: Vec<i64> = (0..n as i64).collect();
    Array::from_slice_on(dev, &v, &[n])
}

fn check_int(op: &str, what: &str, a: &Array) -> Result<()> {
    if !matches!(a.dtype().kind(), DTypeKind::Signed | DTypeKind::Unsigned | DTypeKind::Bool) {
        return Err(Error::DType { op: op.into(), reason: format!("{what} must be integers, got {}", a.dtype()) });
    }
    Ok(())
}

fn check_image(op: &str, a: &Array) -> Result<()> {
    if a.dtype().kind() == DTypeKind::Complex {
        return Err(Error::DType { op: op.into(), reason: format!("{} images are not supported", a.dtype()) });
    }
    Ok(())
}

/// SciPy's `label(input, structure)`: the connected components of the non-zero pixels of
/// `input`, connected through `structure` (a `3 × … × 3` element of the input's rank; default
/// the connectivity-1 cross), numbered 1, 2, … in the order of their first pixel in C order.
/// Returns the int32 labels (0 for the background) and the number of components.
pub fn label(input: &Array, structure: Option<&Array>) -> Result<(Array, usize)> {
    let op = "label";
    check_image(op, input)?;
    let nd = input.ndim();
    let dev = dev_of(input);
    let st = match structure {
        Some(s) => {
            if s.ndim() != nd {
                return Err(Error::value(
                    op,
                    format!("structure and input must have equal rank (structure rank {}, input rank {nd})", s.ndim()),
                ));
            }
            if s.shape().iter().any(|&d| d != 3) {
                return Err(Error::value(
                    op,
                    format!("structure dimensions must be equal to 3, got shape {:?}", s.shape()),
                ));
            }
            s.clone()
        }
        None => generate_binary_structure(nd, 1)?,
    };
    // A bool image is its own mask.
    let fg = if input.dtype() == DType::Bool { input.clone() } else { input.ne(Scalar::Int(0))? };
    let n = input.size();
    if nd == 0 || n == 0 {
        let l = fg.astype(DType::I32)?;
        let k = if n == 1 { l.sum(None, false)?.astype(DType::I64)?.item::<i64>()? as usize } else { 0 };
        return Ok((l, k));
    }
    // The neighbour offsets (the structure's set elements but the centre): setup of 3^nd at most.
    let sv = st.astype(DType::Bool)?.ascontiguous()?.to_vec::<bool>()?;
    let mut offs = Vec::new();
    for (flat, &on) in sv.iter().enumerate() {
        let mut r = flat;
        let mut idx = vec![0i64; nd];
        for d in (0..nd).rev() {
            idx[d] = (r % 3) as i64 - 1;
            r /= 3;
        }
        if on && idx.iter().any(|&v| v != 0) {
            offs.extend(idx);
        }
    }
    let nk = offs.len() / nd;
    let shape: Vec<i64> = input.shape().iter().map(|&s| s as i64).collect();
    let mut fo: Vec<i64> =
        offs.chunks(nd).map(|t| t.iter().zip(&shape).fold(0, |acc, (&o, &len)| acc * len + o)).collect();
    if offs.is_empty() {
        offs.push(0);
        fo.push(0);
    }
    // On the CPU device (host memory) the native two-pass form labels the image in place.
    if super::native(&*dev) && n < i32::MAX as usize && nd <= 32 {
        let fgc = fg.ascontiguous()?;
        let (out, count) = {
            let view = fgc.as_ndarray_view::<bool>()?;
            let fgs = view.as_slice().ok_or_else(|| Error::value(op, "the mask is not contiguous"))?;
            let offs = if nk == 0 { &[][..] } else { &offs[..] };
            super::host::label(fgs, input.shape(), offs)
        };
        let out = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(input.shape()), out)
            .map_err(|e| Error::value(op, format!("shape {:?}: {e}", input.shape())))?;
        return Ok((Array::from_ndarray_owned(out)?, count));
    }
    let offs = Array::from_slice_on(&dev, &offs, &[offs.len()])?;
    let fo = Array::from_slice_on(&dev, &fo, &[fo.len()])?;
    let shape = Array::from_slice_on(&dev, &shape, &[nd])?;
    let fgc = fg.ascontiguous()?;
    // 32-bit parents and index arithmetic below 2^31 pixels.
    let wide = n >= i32::MAX as usize;
    let (t, pdt) = if wide { ("long long", DType::I64) } else { ("int", DType::I32) };
    let idx = |v: usize| if wide { LaunchArg::I64(v as i64) } else { LaunchArg::I32(v as i32) };
    let k = |code: &str, name: &str| kernel(&format!("{LABEL_COMMON}{LABEL_FIND}{code}"), name, t);
    let p = Array::empty_on(&dev, &[n], pdt)?;
    let (g, b) = grid(n);
    let table = [
        LaunchArg::Array(&fgc),
        LaunchArg::Array(&p),
        LaunchArg::Array(&offs),
        LaunchArg::Array(&fo),
        LaunchArg::Array(&shape),
        LaunchArg::I32(nd as i32),
        LaunchArg::I32(nk as i32),
        idx(n),
    ];
    k(LABEL_INIT, "xp_nd_label_init").launch(g, b, &table)?;
    k(LABEL_MERGE, "xp_nd_label_merge").launch(g, b, &table)?;
    // Roots are numbered in C order: a count per block, an exclusive scan of the counts, a rank
    // inside each block; then every pixel takes its root's number.
    let nb = g as usize;
    let counts = Array::empty_on(&dev, &[nb], DType::I32)?;
    k(LABEL_FLATTEN, "xp_nd_label_flatten").launch(g, b, &[LaunchArg::Array(&p), LaunchArg::Array(&counts), idx(n)])?;
    let total = Array::empty_on(&dev, &[1], DType::I64)?;
    k(LABEL_SCAN, "xp_nd_label_scan").launch(
        1,
        1024,
        &[LaunchArg::Array(&counts), LaunchArg::Array(&total), idx(nb)],
    )?;
    let out = Array::empty_on(&dev, &[n], DType::I32)?;
    k(LABEL_ROOTS, "xp_nd_label_roots").launch(
        g,
        b,
        &[LaunchArg::Array(&p), LaunchArg::Array(&counts), LaunchArg::Array(&out), idx(n)],
    )?;
    k(LABEL_NUMBER, "xp_nd_label_number").launch(g, b, &[LaunchArg::Array(&p), LaunchArg::Array(&out), idx(n)])?;
    let count = total.to_vec::<i64>()?[0];
    let out = out.reshape(&input.shape().iter().map(|&s| s as isize).collect::<Vec<_>>())?;
    Ok((out, count as usize))
}

/// SciPy's `find_objects` as a device table: int64 of shape `(max_label, ndim, 2)`, row `l − 1`
/// holding `[start, stop)` per axis of label `l`'s bounding box, or `-1`s where no pixel has
/// label `l`. `max_label` 0 means the largest label present.
pub fn find_objects_table(labels: &Array, max_label: usize) -> Result<Array> {
    let op = "find_objects";
    check_int(op, "labels", labels)?;
    let dev = dev_of(labels);
    let nd = labels.ndim();
    let lab = labels.astype(DType::I64)?.ravel()?;
    let n = lab.size();
    let max = if max_label > 0 {
        max_label
    } else if n == 0 {
        0
    } else {
        lab.max(None, false)?.item::<i64>()?.max(0) as usize
    };
    if max == 0 || nd == 0 {
        return Array::empty_on(&dev, &[max, nd, 2], DType::I64);
    }
    let ids = arange_i64(&dev, n)?;
    let wanted = arange_i64(&dev, max)?.add(Scalar::Int(1))?;
    let mut cols = Vec::with_capacity(nd);
    let mut stride = n;
    for d in 0..nd {
        let len = labels.shape()[d];
        stride /= len.max(1);
        let coord = ids.floor_divide(Scalar::Int(stride as i128))?.rem(Scalar::Int(len as i128))?;
        let big = Scalar::Int(((max + 1) * len) as i128);
        let key = lab.mul(Scalar::Int(len as i128))?.add(&coord)?;
        let ok = lab.gt(Scalar::Int(0))?.logical_and(&lab.le(Scalar::Int(max as i128))?)?;
        let key = crate::where_(&ok, (&key).into(), big.into())?;
        let sorted = key.sort(None)?;
        let lo_key = wanted.mul(Scalar::Int(len as i128))?;
        let first = crate::sort::searchsorted(&sorted, &lo_key, Side::Left, None)?;
        let end = crate::sort::searchsorted(&sorted, &lo_key.add(Scalar::Int(len as i128))?, Side::Left, None)?;
        let present = end.gt(&first)?;
        let fi = first.minimum(Scalar::Int(n as i128 - 1))?;
        let li = end.sub(Scalar::Int(1))?.maximum(Scalar::Int(0))?;
        let start = sorted.take(&fi, None)?.sub(&lo_key)?;
        let stop = sorted.take(&li, None)?.sub(&lo_key)?.add(Scalar::Int(1))?;
        let m1 = i64_scalar(&dev, -1)?;
        let start = crate::where_(&present, (&start).into(), (&m1).into())?;
        let stop = crate::where_(&present, (&stop).into(), (&m1).into())?;
        cols.push(crate::stack(&[&start, &stop], 1)?);
    }
    crate::stack(&cols.iter().collect::<Vec<_>>(), 1)
}

/// SciPy's `find_objects(input, max_label)`: for labels 1 ..= `max_label` (0: the largest
/// present), the bounding box of each label's pixels as one range per axis, or `None` for a
/// label no pixel has. The table is computed on the device ([`find_objects_table`]) and read
/// back (its size is the number of labels).
pub fn find_objects(labels: &Array, max_label: usize) -> Result<Vec<Option<Vec<Range<usize>>>>> {
    let nd = labels.ndim();
    let t = find_objects_table(labels, max_label)?;
    let v = t.ascontiguous()?.to_vec::<i64>()?;
    Ok(v.chunks(2 * nd.max(1))
        .take(t.shape()[0])
        .map(|row| {
            if nd == 0 || row[0] < 0 {
                None
            } else {
                Some(row.chunks(2).map(|p| p[0] as usize..p[1] as usize).collect())
            }
        })
        .collect())
}

/// The pixels' segments: `seg` (int64, flat) in `0..nseg`, or `nseg` for a pixel that no
/// segment takes; `back` maps the per-segment answers to `index`'s entries.
struct Segments {
    seg: Array,
    nseg: usize,
    /// `None`: one segment, a 0-d answer; `Some((positions, shape))`: per index entry.
    back: Option<(Array, Vec<usize>)>,
}

fn segments(op: &str, input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Segments> {
    let dev = dev_of(input);
    let n = input.size();
    let Some(labels) = labels else {
        return Ok(Segments { seg: Array::full_on(&dev, &[n], 0i64, DType::I64)?, nseg: 1, back: None });
    };
    check_int(op, "labels", labels)?;
    let labels = if labels.shape() != input.shape() {
        labels.broadcast_to(input.shape()).map_err(|_| Error::ShapeMismatch {
            op: op.into(),
            lhs: input.shape().to_vec(),
            rhs: labels.shape().to_vec(),
            reason: "input and labels must have the same shape (excepting dimensions with width 1)".into(),
        })?
    } else {
        labels.clone()
    };
    let lab = labels.astype(DType::I64)?.ravel()?;
    let zero = i64_scalar(&dev, 0)?;
    let one = i64_scalar(&dev, 1)?;
    match index {
        None => {
            let seg = crate::where_(&lab.gt(Scalar::Int(0))?, (&zero).into(), (&one).into())?;
            Ok(Segments { seg, nseg: 1, back: None })
        }
        Some(ix) if ix.ndim() == 0 => {
            check_int(op, "index", ix)?;
            let seg = crate::where_(&lab.eq(&ix.astype(DType::I64)?)?, (&zero).into(), (&one).into())?;
            Ok(Segments { seg, nseg: 1, back: None })
        }
        Some(ix) => {
            check_int(op, "index", ix)?;
            let ixf = ix.astype(DType::I64)?.ravel()?;
            let u = crate::sort::unique(&ixf)?;
            let nseg = u.size();
            if nseg == 0 {
                let seg = Array::full_on(&dev, &[n], 0i64, DType::I64)?;
                return Ok(Segments { seg, nseg: 0, back: Some((ixf, ix.shape().to_vec())) });
            }
            let pos = crate::sort::searchsorted(&u, &lab, Side::Left, None)?;
            let clipped = pos.minimum(Scalar::Int(nseg as i128 - 1))?;
            let matched = u.take(&clipped, None)?.eq(&lab)?;
            let none = i64_scalar(&dev, nseg as i64)?;
            let seg = crate::where_(&matched, (&clipped).into(), (&none).into())?;
            let back = crate::sort::searchsorted(&u, &ixf, Side::Left, None)?;
            Ok(Segments { seg, nseg, back: Some((back, ix.shape().to_vec())) })
        }
    }
}

impl Segments {
    /// Per-segment values `(nseg, …)` as the answer: 0-d (or the trailing axes) for one
    /// segment, else one per index entry in `index`'s shape.
    fn answer(&self, per_seg: &Array) -> Result<Array> {
        let tail: Vec<isize> = per_seg.shape()[1..].iter().map(|&s| s as isize).collect();
        match &self.back {
            None => per_seg.reshape(&tail),
            Some((pos, shape)) => {
                let got = if self.nseg == 0 {
                    Array::empty_on(&per_seg.device_arc(), &[0], per_seg.dtype())?
                        .reshape(&[0].into_iter().chain(tail.iter().copied()).collect::<Vec<_>>())?
                } else {
                    per_seg.take(pos, Some(0))?
                };
                let full: Vec<isize> = shape.iter().map(|&s| s as isize).chain(tail).collect();
                got.reshape(&full)
            }
        }
    }

    /// `bincount` of the segments (weights as float64), the first `nseg` bins.
    fn bincount(&self, weights: Option<&Array>) -> Result<Array> {
        let w = weights.map(|w| w.astype(DType::F64)).transpose()?;
        let c = crate::bincount(&self.seg, w.as_ref(), self.nseg + 1)?;
        c.take(&arange_i64(&self.seg.device_arc(), self.nseg)?, None)
    }

    /// The pixels sorted by (segment, keys…), and each segment's `[start, end)` in that order.
    fn sorted(&self, keys: &[&Array]) -> Result<(Array, Array, Array)> {
        let mut all: Vec<&Array> = keys.to_vec();
        all.push(&self.seg);
        let order = crate::sort::lexsort(&all)?;
        let sseg = self.seg.take(&order, None)?;
        let ids = arange_i64(&self.seg.device_arc(), self.nseg)?;
        let start = crate::sort::searchsorted(&sseg, &ids, Side::Left, None)?;
        let end = crate::sort::searchsorted(&sseg, &ids, Side::Right, None)?;
        Ok((order, start, end))
    }
}

fn flat_input(op: &str, input: &Array) -> Result<Array> {
    check_image(op, input)?;
    input.ravel()
}

/// SciPy's `sum_labels(input, labels, index)`: the sum of the values per label (module docs
/// for `labels`/`index`); NumPy's sum dtype for a 0-d answer, float64 per index.
pub fn sum_labels(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let op = "sum_labels";
    let x = flat_input(op, input)?;
    let s = segments(op, input, labels, index)?;
    if s.back.is_none() {
        let zero = Array::full_on(&x.device_arc(), &[], 0i64, x.dtype())?;
        let m = crate::where_(&s.seg.eq(Scalar::Int(0))?, (&x).into(), (&zero).into())?;
        return m.sum(None, false);
    }
    s.answer(&s.bincount(Some(&x))?)
}

/// SciPy's `sum` (its older name of [`sum_labels`]).
pub fn sum(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    sum_labels(input, labels, index)
}

fn mean_parts(
    op: &str,
    input: &Array,
    labels: Option<&Array>,
    index: Option<&Array>,
) -> Result<(Segments, Array, Array)> {
    let x = flat_input(op, input)?;
    let s = segments(op, input, labels, index)?;
    let cnt = s.bincount(None)?.astype(DType::F64)?;
    let mean = s.bincount(Some(&x))?.div(&cnt)?;
    Ok((s, x, mean))
}

/// SciPy's `mean(input, labels, index)`: float64 (NaN for a label without pixels).
pub fn mean(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let (s, _, m) = mean_parts("mean", input, labels, index)?;
    s.answer(&m)
}

fn variance_of(op: &str, input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<(Segments, Array)> {
    let (s, x, m) = mean_parts(op, input, labels, index)?;
    let cnt = s.bincount(None)?.astype(DType::F64)?;
    let mpad = crate::concatenate(&[&m, &Array::full_on(&m.device_arc(), &[1], 0.0, DType::F64)?], 0)?;
    let dev = x.astype(DType::F64)?.sub(&mpad.take(&s.seg, None)?)?;
    let var = s.bincount(Some(&dev.mul(&dev)?))?.div(&cnt)?;
    Ok((s, var))
}

/// SciPy's `variance(input, labels, index)`: the population variance, float64 (two-pass:
/// the mean, then the centred squares).
pub fn variance(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let (s, v) = variance_of("variance", input, labels, index)?;
    s.answer(&v)
}

/// SciPy's `standard_deviation(input, labels, index)`: the square root of [`variance`].
pub fn standard_deviation(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let (s, v) = variance_of("standard_deviation", input, labels, index)?;
    s.answer(&v.sqrt()?)
}

/// The sorted values and per-segment bounds for the order statistics; `max` breaks ties
/// towards the first pixel for the last entry of a segment.
struct Ordered {
    s: Segments,
    x: Array,
    order: Array,
    start: Array,
    end: Array,
}

fn ordered(op: &str, input: &Array, labels: Option<&Array>, index: Option<&Array>, max: bool) -> Result<Ordered> {
    let x = flat_input(op, input)?;
    let s = segments(op, input, labels, index)?;
    let (order, start, end) = if max {
        let neg = arange_i64(&x.device_arc(), x.size())?.negative()?;
        s.sorted(&[&neg, &x])?
    } else {
        s.sorted(&[&x])?
    };
    Ok(Ordered { s, x, order, start, end })
}

impl Ordered {
    fn empty(&self) -> Result<Array> {
        self.end.le(&self.start)
    }

    /// The pixel (flat index) at sorted position `pos` (clipped), per segment.
    fn pixel(&self, pos: &Array) -> Result<Array> {
        let n = self.x.size() as i128;
        let p = pos.maximum(Scalar::Int(0))?.minimum(Scalar::Int((n - 1).max(0)))?;
        self.order.take(&p, None)
    }

    fn value_at(&self, pos: &Array) -> Result<Array> {
        let v = self.x.take(&self.pixel(pos)?, None)?;
        let zero = Array::full_on(&v.device_arc(), &[], 0i64, v.dtype())?;
        crate::where_(&self.empty()?, (&zero).into(), (&v).into())
    }

    fn first(&self) -> Result<Array> {
        self.start.clone().ascontiguous()
    }

    fn last(&self) -> Result<Array> {
        self.end.sub(Scalar::Int(1))
    }

    /// The positions (int64 `(nseg, ndim)`) of the pixels at `pos`, 0 for empty segments.
    fn position_at(&self, pos: &Array, shape: &[usize]) -> Result<Array> {
        let p = self.pixel(pos)?;
        let zero = i64_scalar(&p.device_arc(), 0)?;
        let p = crate::where_(&self.empty()?, (&zero).into(), (&p).into())?;
        positions(&p, shape)
    }
}

/// Flat indices to their coordinates: int64 `(len, ndim)`.
fn positions(flat: &Array, shape: &[usize]) -> Result<Array> {
    let nd = shape.len();
    let mut cols = Vec::with_capacity(nd);
    let mut stride: usize = shape.iter().product();
    for &len in shape {
        stride /= len.max(1);
        cols.push(flat.floor_divide(Scalar::Int(stride as i128))?.rem(Scalar::Int(len.max(1) as i128))?);
    }
    if cols.is_empty() {
        return Array::empty_on(&flat.device_arc(), &[flat.size(), 0], DType::I64);
    }
    crate::stack(&cols.iter().collect::<Vec<_>>(), 1)
}

/// SciPy's `minimum(input, labels, index)`: in the input's dtype (0 for a label without pixels).
pub fn minimum(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let o = ordered("minimum", input, labels, index, false)?;
    o.s.answer(&o.value_at(&o.first()?)?)
}

/// SciPy's `maximum(input, labels, index)`: in the input's dtype (0 for a label without pixels).
pub fn maximum(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let o = ordered("maximum", input, labels, index, true)?;
    o.s.answer(&o.value_at(&o.last()?)?)
}

/// SciPy's `median(input, labels, index)`: the middle value, or the mean of the two middle
/// values, in the input's float dtype (float64 for integer images; 0 for a label without
/// pixels).
pub fn median(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let o = ordered("median", input, labels, index, false)?;
    let cnt = o.end.sub(&o.start)?;
    let lo = o.start.add(&cnt.sub(Scalar::Int(1))?.floor_divide(Scalar::Int(2))?)?;
    let hi = o.start.add(&cnt.floor_divide(Scalar::Int(2))?)?;
    let ft = if input.dtype().kind() == DTypeKind::Float { input.dtype() } else { DType::F64 };
    let a = o.value_at(&lo)?.astype(ft)?;
    let b = o.value_at(&hi)?.astype(ft)?;
    let m = a.add(&b)?.div(Scalar::Float(2.0))?.astype(ft)?;
    o.s.answer(&m)
}

/// SciPy's `minimum_position(input, labels, index)`: the coordinates (int64, the first in C
/// order among ties) of the minimum; `(ndim,)` for a 0-d answer, else `index.shape + (ndim,)`.
pub fn minimum_position(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let o = ordered("minimum_position", input, labels, index, false)?;
    o.s.answer(&o.position_at(&o.first()?, input.shape())?)
}

/// SciPy's `maximum_position(input, labels, index)`: as [`minimum_position`] for the maximum.
pub fn maximum_position(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let o = ordered("maximum_position", input, labels, index, true)?;
    o.s.answer(&o.position_at(&o.last()?, input.shape())?)
}

/// SciPy's `extrema(input, labels, index)`: `(minimum, maximum, minimum_position,
/// maximum_position)`, each as the functions of those names answer.
pub fn extrema(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<(Array, Array, Array, Array)> {
    Ok((
        minimum(input, labels, index)?,
        maximum(input, labels, index)?,
        minimum_position(input, labels, index)?,
        maximum_position(input, labels, index)?,
    ))
}

/// SciPy's `center_of_mass(input, labels, index)`: the value-weighted mean coordinate,
/// float64, `(ndim,)` for a 0-d answer, else `index.shape + (ndim,)`.
pub fn center_of_mass(input: &Array, labels: Option<&Array>, index: Option<&Array>) -> Result<Array> {
    let op = "center_of_mass";
    let x = flat_input(op, input)?.astype(DType::F64)?;
    let s = segments(op, input, labels, index)?;
    let total = s.bincount(Some(&x))?;
    let ids = arange_i64(&x.device_arc(), x.size())?;
    let coords = positions(&ids, input.shape())?.astype(DType::F64)?;
    let mut cols = Vec::with_capacity(input.ndim());
    for d in 0..input.ndim() {
        let c = coords.take(&i64_scalar(&x.device_arc(), d as i64)?, Some(1))?;
        cols.push(s.bincount(Some(&x.mul(&c)?))?.div(&total)?);
    }
    let per = if cols.is_empty() {
        Array::empty_on(&x.device_arc(), &[s.nseg, 0], DType::F64)?
    } else {
        crate::stack(&cols.iter().collect::<Vec<_>>(), 1)?
    };
    s.answer(&per)
}

/// SciPy's `histogram(input, min, max, bins, labels, index)`: int64 counts of the values in
/// `bins` equal bins over `[min, max]` (edges NumPy's `linspace`, the last bin closed), `(bins,)`
/// for a 0-d answer, else `index.shape + (bins,)`.
pub fn histogram(
    input: &Array,
    min: f64,
    max: f64,
    bins: usize,
    labels: Option<&Array>,
    index: Option<&Array>,
) -> Result<Array> {
    let op = "histogram";
    if bins == 0 {
        return Err(Error::value(op, "`bins` must be positive"));
    }
    if min > max || !min.is_finite() || !max.is_finite() {
        return Err(Error::value(op, format!("max must be larger than min and both finite, got [{min}, {max}]")));
    }
    let x = flat_input(op, input)?.astype(DType::F64)?;
    let s = segments(op, input, labels, index)?;
    let dev = x.device_arc();
    // NumPy's linspace(min, max, bins + 1): k * step + min, the last edge exactly max.
    let step = (max - min) / bins as f64;
    let mut edges: Vec<f64> = (0..=bins).map(|k| k as f64 * step + min).collect();
    edges[bins] = max;
    let e = Array::from_slice_on(&dev, &edges, &[bins + 1])?;
    let b = crate::sort::searchsorted(&e, &x, Side::Right, None)?.sub(Scalar::Int(1))?;
    let b = b.minimum(Scalar::Int(bins as i128 - 1))?;
    let inside = x.ge(Scalar::Float(min))?.logical_and(&x.le(Scalar::Float(max))?)?;
    let ok = inside.logical_and(&s.seg.lt(Scalar::Int(s.nseg as i128))?)?;
    let nb = s.nseg * bins;
    let key = s.seg.mul(Scalar::Int(bins as i128))?.add(&b)?;
    let sentinel = i64_scalar(&dev, nb as i64)?;
    let key = crate::where_(&ok, (&key).into(), (&sentinel).into())?;
    let c = crate::bincount(&key, None, nb + 1)?.take(&arange_i64(&dev, nb)?, None)?;
    s.answer(&c.reshape(&[s.nseg as isize, bins as isize])?)
}

/// SciPy's `labeled_comprehension` for the reductions xp runs on the device: `func` one of
/// `"sum"`, `"mean"`, `"variance"`, `"standard_deviation"`, `"minimum"`, `"maximum"`,
/// `"median"`, applied per label as the function of that name (an arbitrary Python callable
/// has no device form).
pub fn labeled_comprehension(
    input: &Array,
    labels: Option<&Array>,
    index: Option<&Array>,
    func: &str,
) -> Result<Array> {
    match func {
        "sum" => sum_labels(input, labels, index),
        "mean" => mean(input, labels, index),
        "variance" => variance(input, labels, index),
        "standard_deviation" => standard_deviation(input, labels, index),
        "minimum" => minimum(input, labels, index),
        "maximum" => maximum(input, labels, index),
        "median" => median(input, labels, index),
        other => Err(Error::value("labeled_comprehension", format!("unknown function {other:?}"))),
    }
}
