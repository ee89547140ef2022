//! Binary and grey morphology, structuring elements and the Euclidean distance transform
//! (SciPy's `scipy.ndimage` morphology, CuPy's `cupyx.scipy.ndimage`).
//!
//! # Contract
//! - Binary operations take any array (non-zero is true) and answer `bool` arrays of the
//!   input's shape; grey operations keep the input's dtype; `distance_transform_edt` answers
//!   float64.
//! - A structuring element (`structure`, `footprint`) must have the input's rank; `origin` is
//!   one value for every axis or one per axis, each within `-(s / 2) ..= (s - 1) / 2` of the
//!   element's size `s` along its axis. A wrong rank or origin is an [`Error::Value`] naming
//!   the function, as SciPy's `RuntimeError`/`ValueError`.
//! - SciPy's geometry: the element's centre is `s / 2` shifted by `origin` (a positive origin
//!   moves the element towards lower indices); dilations reflect the element (and negate the
//!   origin, less one along an even-sized axis), so `binary_dilation` and `grey_dilation` agree
//!   with SciPy pixel for pixel.
//! - `iterations < 1` repeats a binary erosion or dilation until the image no longer changes
//!   (each pass a device kernel; one boolean read per pass to know when to stop).
//! - `brute_force` is accepted for SciPy's signature; every pass here recomputes every pixel,
//!   which is what SciPy's brute force does, so the answers are the same either way.
//!
//! # Algorithms
//! - Binary erosion/dilation: one device thread per output pixel tests the structuring
//!   element's offsets (the image outside counts as `border_value`); dilation is the erosion of
//!   the complement by the reflected element (Serra, *Image Analysis and Mathematical
//!   Morphology*, 1982, ch. II), as SciPy defines it.
//!   When the element lies in the image's last two axes (extent at most 33 along each), the
//!   device pass is tiled: a block copies its pixels and the halo into shared memory once (the
//!   border and the complement for a dilation applied while copying) and each thread ands its
//!   taps from the tile, 32-bit arithmetic, stopping at the first unset tap; the default
//!   element is made on the host (no device round trip).
//!   On the CPU device the passes are native host code, one line of the last axis at a time
//!   (the line's answer and-ed with each offset's shifted source line), with the same pixels.
//! - Grey erosion/dilation: one thread per output pixel takes the minimum (maximum) over the
//!   footprint of the input less (plus) the non-flat structure, with the boundary `mode`
//!   applied per axis; opening, closing, gradient, Laplace and the top-hats compose them.
//! - `binary_fill_holes` with a symmetric `3 × … × 3` element at origin 0: the background's
//!   connected components (`label`'s union-find) that reach the border stay, the others are
//!   filled, with no propagation loop; other elements propagate from the border pass by pass.
//! - `distance_transform_edt`: separable, one pass per axis in SciPy's order, the square root
//!   at the end (Felzenszwalb and Huttenlocher, "Distance Transforms of Sampled Functions",
//!   Theory of Computing 8, 2012: the squared distance is `min_p f(p) + (s·(q − p))²` along
//!   each axis in turn).
//!   - Axis 0 reads the mask itself: its lines are cut into segments of about `√L` pixels;
//!     one kernel finds each segment's first and last zero pixel, a second (one thread per
//!     segment, neighbouring threads on neighbouring lines, so loads coalesce) takes the
//!     nearest zero before and after the segment from those and sweeps the segment both ways.
//!   - Later axes: one thread per pixel searches outwards along the axis, stopping as soon as
//!     `(s·r)²` reaches the best value found (every farther candidate is at least that), so
//!     the work is the distance found, not the line's length. A search that passes 64 steps
//!     flags its line, and a second kernel recomputes the flagged lines exactly with the lower
//!     envelope of parabolas, one thread per line (images with large empty regions).
//!   - Each candidate is `f(p) + d·d` with `d = s·(q − p)`, the envelope's own arithmetic:
//!     with unit sampling every value is an exact integer and the answer is the envelope's to
//!     the bit; with other sampling the least candidate can differ from the envelope's pick
//!     by rounding (an ulp or so, within SciPy's own rounding).
//!   - 32-bit index arithmetic below 2^31 pixels.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use xp_backend_api::{DType, DTypeKind, DynDevice, Error, Result};

use super::Mode;
use crate::{Array, LaunchArg, RawKernel, Scalar};

/// The most axes the morphology kernels handle.
const MAX_NDIM: usize = 32;

/// How many steps each way a pixel of a later distance-transform pass searches before its line
/// takes the exact per-line envelope instead.
const EDT_SEARCH: usize = 64;

pub(crate) const COORDS: &str = r#"
    long long c_[32]; { long long r_ = i; for (long long d = nd - 1; d >= 0; --d) { c_[d] = r_ % shape[d]; r_ /= shape[d]; } }
"#;

const BINARY_EROSION: &str = r#"
extern "C" __global__ void xp_nd_binary_erosion(const unsigned char* in, const unsigned char* mask, unsigned char* out,
    const long long* offs, const long long* shape, long long nd, long long nk, long long n, int border, int invert, int hasmask) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    COORDS
    int res = 1;
    for (long long k = 0; k < nk && res; ++k) {
        long long j = 0; int inside = 1;
        for (long long d = 0; d < nd; ++d) {
            long long q = c_[d] + offs[k * nd + d];
            if (q < 0 || q >= shape[d]) { inside = 0; break; }
            j = j * shape[d] + q;
        }
        int v = inside ? (in[j] != 0) : border;
        if (invert) v = !v;
        if (!v) res = 0;
    }
    if (invert) res = !res;
    if (hasmask && !mask[i]) res = in[i] != 0;
    out[i] = (unsigned char)res;
}
"#;

/// The erosion pass of a structuring element lying in the last two axes: a block of 32 × 8
/// threads copies its 32 × 8 pixels and the element's halo into shared memory once (the
/// outside as `border`, complemented for a dilation), then each thread ands its taps from the
/// tile, stopping at the first unset one. 32-bit arithmetic within the tile; the block's
/// position is decomposed once.
const BINARY_EROSION_2D: &str = r#"
extern "C" __global__ void xp_nd_binary_erosion2d(const unsigned char* __restrict__ in,
    const unsigned char* __restrict__ mask, unsigned char* __restrict__ out, const int* __restrict__ toff, int nk,
    long long H, long long W, unsigned int tiles_y, unsigned int tiles_x, int ylo, int xlo, int th, int tw,
    int border, int invert, int hasmask) {
  extern __shared__ int xp_nd_bin_smem[];
  int* so = xp_nd_bin_smem;
  unsigned char* tile = (unsigned char*)(so + nk);
  const unsigned int b = blockIdx.x;
  const unsigned int rest = b / tiles_x;
  const unsigned int bx = b - rest * tiles_x;
  const unsigned int p = rest / tiles_y;
  const unsigned int by = rest - p * tiles_y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int k = ty * 32 + tx; k < nk; k += 256) so[k] = toff[k];
  const long long y0 = (long long)by * 8, x0 = (long long)bx * 32;
  const long long plane = (long long)p * H * W;
  const unsigned char* ib = in + plane;
  const unsigned char bv = (unsigned char)((border != 0) ^ (invert != 0));
  for (int ry = ty; ry < th; ry += 8) {
    const long long gy = y0 + ylo + ry;
    const int rin = gy >= 0 && gy < H;
    const unsigned char* ir = ib + gy * W;
    for (int rx = tx; rx < tw; rx += 32) {
      const long long gx = x0 + xlo + rx;
      tile[ry * tw + rx] = (rin && gx >= 0 && gx < W) ? (unsigned char)((ir[gx] != 0) ^ (invert != 0)) : bv;
    }
  }
  __syncthreads();
  const long long gy = y0 + ty, gx = x0 + tx;
  if (gy >= H || gx >= W) return;
  const unsigned char* c = tile + ty * tw + tx;
  int res = 1;
  for (int k = 0; k < nk; ++k) {
    if (!c[so[k]]) { res = 0; break; }
  }
  if (invert) res = !res;
  const long long i = plane + gy * W + gx;
  if (hasmask && !mask[i]) res = in[i] != 0;
  out[i] = (unsigned char)res;
}
"#;

/// The largest extent along either axis of an element the tiled erosion takes.
const EROSION_2D_MAX_EXTENT: i64 = 32;

/// The tiled erosion's plan: the tile's origin and size and each tap's offset in the tile.
struct Erosion2d {
    ylo: i64,
    xlo: i64,
    th: usize,
    tw: usize,
    toff: Array,
    nk: usize,
}

/// The tiled erosion's plan for `offs` (`nk` taps of `nd` offsets) on `dev`, when every tap lies
/// in the image's last two axes and the element is small.
fn erosion_2d_plan(dev: &Arc<dyn DynDevice>, shape: &[usize], offs: &[i64], nk: usize) -> Result<Option<Erosion2d>> {
    let nd = shape.len();
    let total: usize = shape.iter().product();
    if nd == 0 || nk == 0 || total == 0 || total >= (1usize << 40) || offs.len() != nk * nd {
        return Ok(None);
    }
    let (mut ylo, mut yhi, mut xlo, mut xhi) = (0i64, 0i64, 0i64, 0i64);
    for t in offs.chunks(nd) {
        if t[..nd.saturating_sub(2)].iter().any(|&o| o != 0) {
            return Ok(None);
        }
        let dy = if nd >= 2 { t[nd - 2] } else { 0 };
        ylo = ylo.min(dy);
        yhi = yhi.max(dy);
        xlo = xlo.min(t[nd - 1]);
        xhi = xhi.max(t[nd - 1]);
    }
    if yhi - ylo > EROSION_2D_MAX_EXTENT || xhi - xlo > EROSION_2D_MAX_EXTENT {
        return Ok(None);
    }
    let w = shape[nd - 1];
    let h = if nd >= 2 { shape[nd - 2] } else { 1 };
    let blocks = (total / (h * w)) * h.div_ceil(8) * w.div_ceil(32);
    if blocks >= (1 << 31) {
        return Ok(None);
    }
    let th = 8 + (yhi - ylo) as usize;
    let tw = 32 + (xhi - xlo) as usize;
    let toff: Vec<i32> = offs
        .chunks(nd)
        .map(|t| {
            let dy = if nd >= 2 { t[nd - 2] } else { 0 };
            ((dy - ylo) as usize * tw + (t[nd - 1] - xlo) as usize) as i32
        })
        .collect();
    Ok(Some(Erosion2d { ylo, xlo, th, tw, toff: Array::from_slice_on(dev, &toff, &[nk])?, nk }))
}

/// One pass of [`BINARY_EROSION_2D`] (see [`erosion_pass`]).
fn erosion_pass_2d(x: &Array, plan: &Erosion2d, border: bool, invert: bool, mask: Option<&Array>) -> Result<Array> {
    let dev = x.device_arc();
    let out = Array::empty_on(&dev, x.shape(), DType::Bool)?;
    let shape = x.shape();
    let nd = shape.len();
    let w = shape[nd - 1];
    let h = if nd >= 2 { shape[nd - 2] } else { 1 };
    let (tiles_y, tiles_x) = (h.div_ceil(8), w.div_ceil(32));
    let blocks = (x.size() / (h * w)) * tiles_y * tiles_x;
    let k = kernel(BINARY_EROSION_2D, "xp_nd_binary_erosion2d", "unsigned char");
    let smem = plan.nk * 4 + plan.th * plan.tw;
    k.launch_with(
        blocks as u32,
        (32u32, 8u32, 1u32),
        smem as u32,
        None,
        &[
            LaunchArg::Array(x),
            LaunchArg::Array(mask.unwrap_or(x)),
            LaunchArg::Array(&out),
            LaunchArg::Array(&plan.toff),
            LaunchArg::I32(plan.nk as i32),
            LaunchArg::I64(h as i64),
            LaunchArg::I64(w as i64),
            LaunchArg::U32(tiles_y as u32),
            LaunchArg::U32(tiles_x as u32),
            LaunchArg::I32(plan.ylo as i32),
            LaunchArg::I32(plan.xlo as i32),
            LaunchArg::I32(plan.th as i32),
            LaunchArg::I32(plan.tw as i32),
            LaunchArg::I32(border as i32),
            LaunchArg::I32(invert as i32),
            LaunchArg::I32(mask.is_some() as i32),
        ],
    )?;
    Ok(out)
}

/// The tiled binary erosion's source, for the compile check.
pub(crate) fn erosion_2d_source() -> (String, String) {
    ("xp_nd_binary_erosion2d".into(), format!("typedef unsigned char T;\n{BINARY_EROSION_2D}"))
}

const GREY: &str = r#"
extern "C" __global__ void NAME(const T* in, T* out, const long long* offs, const double* sv,
    const long long* shape, long long nd, long long nk, long long n, int mode, double cval, int ismax, int hasst) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    COORDS
    T acc = in[i]; double dacc = 0.0;
    for (long long k = 0; k < nk; ++k) {
        long long j = 0; int oob = 0;
        for (long long d = 0; d < nd; ++d) {
            const long long L = shape[d];
            long long q = c_[d] + offs[k * nd + d];
            if (q < 0 || q >= L) {
                if (mode == 0) { long long p = 2 * L; q = ((q % p) + p) % p; if (q >= L) q = p - 1 - q; }
                else if (mode == 1) { oob = 1; q = 0; }
                else if (mode == 2) { q = q < 0 ? 0 : L - 1; }
                else if (mode == 3) { if (L == 1) q = 0; else { long long p = 2 * L - 2; q = ((q % p) + p) % p; if (q >= L) q = p - q; } }
                else { q = ((q % L) + L) % L; }
            }
            j = j * L + q;
        }
        if (hasst) {
            double v = oob ? cval : (double)in[j];
            v = ismax ? v + sv[k] : v - sv[k];
            if (k == 0 || (ismax ? v > dacc : v < dacc)) dacc = v;
        } else {
            T v = oob ? (T)cval : in[j];
            if (k == 0 || (ismax ? v > acc : v < acc)) acc = v;
        }
    }
    out[i] = hasst ? (T)dacc : acc;
}
"#;

/// First EDT pass, along axis 0 of the mask, in segments of `S` pixels: each segment's first and
/// last zero (background) pixel, or -1.
const EDT_SEG: &str = r#"
extern "C" __global__ void NAME(const unsigned char* fg, long long* firstz, long long* lastz,
    T L, T inner, T nlines, T S, T nseg) {
    const T t = (T)blockIdx.x * (T)blockDim.x + (T)threadIdx.x;
    if (t >= nlines * nseg) return;
    const T l = t % nlines, sg = t / nlines;
    const T base = (l / inner) * L * inner + (l % inner);
    const T q0 = sg * S, q1 = q0 + S < L ? q0 + S : L;
    long long first = -1, last = -1;
    for (T q = q0; q < q1; ++q) {
        if (!fg[base + q * inner]) { if (first < 0) first = (long long)q; last = (long long)q; }
    }
    firstz[t] = first; lastz[t] = last;
}
"#;

/// First EDT pass, along axis 0: the squared distance `(s·(q − p))²` to the nearest zero pixel
/// `p` of the line (infinite without one), from the segments' first and last zeros and two
/// sweeps over the thread's own segment.
const EDT_FIRST: &str = r#"
extern "C" __global__ void NAME(const unsigned char* fg, const long long* firstz, const long long* lastz,
    double* out, T L, T inner, T nlines, T S, T nseg, double s) {
    const T t = (T)blockIdx.x * (T)blockDim.x + (T)threadIdx.x;
    if (t >= nlines * nseg) return;
    const double inf = 1.0 / 0.0;
    const T l = t % nlines, sg = t / nlines;
    const T base = (l / inner) * L * inner + (l % inner);
    const T q0 = sg * S, q1 = q0 + S < L ? q0 + S : L;
    long long up = -1, dn = -1;
    for (T k = sg; k > 0; --k) { const long long z = lastz[(k - 1) * nlines + l]; if (z >= 0) { up = z; break; } }
    for (T k = sg + 1; k < nseg; ++k) { const long long z = firstz[k * nlines + l]; if (z >= 0) { dn = z; break; } }
    // Backwards: the distance to the next zero at or after q, kept in `out`.
    for (T q = q1; q-- > q0;) {
        if (!fg[base + q * inner]) dn = (long long)q;
        double v = inf;
        if (dn >= 0) { const double d = s * (double)((long long)q - dn); v = d * d; }
        out[base + q * inner] = v;
    }
    // Forwards: the nearer of the zero at or before q and the one after.
    for (T q = q0; q < q1; ++q) {
        if (!fg[base + q * inner]) up = (long long)q;
        if (up >= 0) {
            const double d = s * (double)((long long)q - up);
            const double v = d * d;
            if (v < out[base + q * inner]) out[base + q * inner] = v;
        }
    }
}
"#;

/// Later EDT passes: one thread per pixel looks outwards along the axis for the least
/// `f(p) + (s·(q − p))²`, stopping once `(s·r)²` reaches the best found; a pixel whose search
/// passes `cap` steps flags its line for the exact per-line pass (`EDT_PASS`).
const EDT_NEAR: &str = r#"
extern "C" __global__ void NAME(const double* f, double* out, int* flag, T L, T inner, T n, double s, T cap) {
    const T i = (T)blockIdx.x * (T)blockDim.x + (T)threadIdx.x;
    if (i >= n) return;
    const T q = (i / inner) % L;
    double best = f[i];
    for (T r = 1;; ++r) {
        const double d = s * (double)r;
        const double dd = d * d;
        if (!(dd < best)) break;
        if (r > cap) { flag[(i / (L * inner)) * inner + i % inner] = 1; break; }
        const bool lo = q >= r, hi = q + r < L;
        if (!lo && !hi) break;
        if (lo) { const double v = f[i - r * inner] + dd; if (v < best) best = v; }
        if (hi) { const double v = f[i + r * inner] + dd; if (v < best) best = v; }
    }
    out[i] = best;
}
"#;

/// The exact per-line pass of Felzenszwalb and Huttenlocher for the lines `EDT_NEAR` flagged:
/// one thread per line, the envelope's parabola indices `v` and boundaries `z` interleaved
/// across lines (entry `k` of line `l` at `k · nlines + l`) so neighbouring threads touch
/// neighbouring words.
const EDT_PASS: &str = r#"
extern "C" __global__ void NAME(const double* f, double* out, const int* flag, long long* v, double* z,
    T L, T inner, T nlines, double s) {
    const T l = (T)blockIdx.x * (T)blockDim.x + (T)threadIdx.x;
    if (l >= nlines || !flag[l]) return;
    const double inf = 1.0 / 0.0;
    const T base = (l / inner) * L * inner + (l % inner);
    const double s2 = s * s;
    long long k = -1;
    for (T q = 0; q < L; ++q) {
        const double fq = f[base + q * inner];
        if (fq == inf) continue;
        double sq = -inf;
        while (k >= 0) {
            const long long p = v[k * nlines + l];
            const double fp = f[base + p * inner];
            sq = ((fq + s2 * (double)q * (double)q) - (fp + s2 * (double)p * (double)p)) / (2.0 * s2 * (double)((long long)q - p));
            if (sq <= z[k * nlines + l]) { --k; sq = -inf; } else break;
        }
        ++k;
        v[k * nlines + l] = (long long)q; z[k * nlines + l] = sq; z[(k + 1) * nlines + l] = inf;
    }
    if (k < 0) { for (T q = 0; q < L; ++q) out[base + q * inner] = inf; return; }
    k = 0;
    for (T q = 0; q < L; ++q) {
        while (z[(k + 1) * nlines + l] < (double)q) ++k;
        const long long p = v[k * nlines + l];
        const double d = s * (double)((long long)q - p);
        out[base + q * inner] = f[base + p * inner] + d * d;
    }
}
"#;

/// The C type of `dt` in the morphology kernels.
pub(crate) fn ctype(op: &str, dt: DType) -> Result<&'static str> {
    Ok(match dt {
        DType::Bool | DType::U8 => "unsigned char",
        DType::I8 => "signed char",
        DType::I16 => "short",
        DType::U16 => "unsigned short",
        DType::I32 => "int",
        DType::U32 => "unsigned int",
        DType::I64 => "long long",
        DType::U64 => "unsigned long long",
        DType::F32 => "float",
        DType::F64 => "double",
        other => return Err(Error::DType { op: op.into(), reason: format!("{other} images are not supported") }),
    })
}

/// The kernel `name` of `code` (with `T` the C type `t` and `COORDS` expanded), compiled once.
pub(crate) fn kernel(code: &str, name: &str, t: &str) -> RawKernel {
    static CACHE: OnceLock<Mutex<HashMap<String, RawKernel>>> = OnceLock::new();
    let key = format!("{name}|{t}");
    let mut cache = CACHE.get_or_init(|| Mutex::new(HashMap::new())).lock();
    cache
        .entry(key)
        .or_insert_with(|| {
            let tname = t.replace(' ', "_");
            let full = format!("{name}_{tname}");
            let src = format!("typedef {t} T;\n{}", code.replace("COORDS", COORDS).replace("NAME", &full));
            RawKernel::new(&src, if code.contains("NAME") { &full } else { name })
        })
        .clone()
}

/// The launch geometry of `n` threads.
pub(crate) fn grid(n: usize) -> (u32, u32) {
    (n.div_ceil(256).max(1) as u32, 256)
}

fn i64s(dev: &Arc<dyn DynDevice>, v: &[i64]) -> Result<Array> {
    let v = if v.is_empty() { vec![0] } else { v.to_vec() };
    Array::from_slice_on(dev, &v, &[v.len()])
}

fn shape_i64(a: &Array) -> Vec<i64> {
    a.shape().iter().map(|&s| s as i64).collect()
}

fn check_rank(op: &str, a: &Array) -> Result<()> {
    if a.ndim() > MAX_NDIM {
        return Err(Error::value(op, format!("at most {MAX_NDIM} dimensions are supported, got {}", a.ndim())));
    }
    Ok(())
}

/// A structuring element read to the host: its shape and which elements are set (and their
/// values, for a non-flat structure). Its size does not grow with the image.
struct Element {
    shape: Vec<usize>,
    values: Vec<f64>,
}

impl Element {
    fn read(op: &str, what: &str, a: &Array, ndim: usize) -> Result<Element> {
        if a.ndim() != ndim {
            return Err(Error::value(
                op,
                format!("{what} and input must have same dimensionality ({what} rank {}, input rank {ndim})", a.ndim()),
            ));
        }
        if a.shape().contains(&0) {
            return Err(Error::value(op, format!("{what} must not be empty (shape {:?})", a.shape())));
        }
        let values = a.astype(DType::F64)?.ascontiguous()?.to_vec::<f64>()?;
        Ok(Element { shape: a.shape().to_vec(), values })
    }

    fn ones(shape: Vec<usize>) -> Element {
        let n = shape.iter().product();
        Element { shape, values: vec![1.0; n] }
    }

    /// The element reversed along every axis (SciPy's reflection for dilations).
    fn reflected(&self) -> Element {
        let mut values = self.values.clone();
        values.reverse();
        Element { shape: self.shape.clone(), values }
    }

    /// The offsets (relative to the output pixel) of the set elements, row after row, and the
    /// values of those elements in `vals` when given.
    fn offsets(&self, origin: &[isize], vals: Option<&Element>) -> (Vec<i64>, Vec<f64>) {
        let nd = self.shape.len();
        let mut offs = Vec::new();
        let mut sv = Vec::new();
        for (flat, &v) in self.values.iter().enumerate() {
            if v == 0.0 {
                continue;
            }
            let mut r = flat;
            let mut idx = vec![0i64; nd];
            for d in (0..nd).rev() {
                idx[d] = (r % self.shape[d]) as i64;
                r /= self.shape[d];
            }
            for d in 0..nd {
                offs.push(idx[d] - (self.shape[d] / 2) as i64 - origin[d] as i64);
            }
            sv.push(vals.map_or(0.0, |e| e.values[flat]));
        }
        (offs, sv)
    }
}

/// `origin` for `nd` axes (one value broadcast, or one per axis), checked against `shape`.
fn origins(op: &str, origin: Option<&[isize]>, shape: &[usize]) -> Result<Vec<isize>> {
    let nd = shape.len();
    let o = match origin {
        None | Some([]) => vec![0; nd],
        Some([o]) => vec![*o; nd],
        Some(o) if o.len() == nd => o.to_vec(),
        Some(o) => {
            return Err(Error::value(op, format!("origin must have one value or one per axis ({nd}), got {}", o.len())))
        }
    };
    for (d, (&o, &s)) in o.iter().zip(shape).enumerate() {
        let s = s as isize;
        if o < -(s / 2) || o > (s - 1) / 2 {
            return Err(Error::value(op, format!("invalid origin {o} along axis {d} for an element of size {s}")));
        }
    }
    Ok(o)
}

/// The origin of a reflected element (SciPy's dilations): negated, less one along an
/// even-sized axis.
fn reflected_origin(origin: &[isize], shape: &[usize]) -> Vec<isize> {
    origin.iter().zip(shape).map(|(&o, &s)| if s % 2 == 0 { -o - 1 } else { -o }).collect()
}

fn as_bool(a: &Array) -> Result<Array> {
    if a.dtype() == DType::Bool {
        a.ascontiguous()
    } else {
        a.ne(Scalar::Int(0))?.ascontiguous()
    }
}

/// SciPy's `generate_binary_structure(rank, connectivity)`: the `3 × … × 3` boolean element
/// whose set elements are those within `connectivity` unit steps of the centre (a
/// `connectivity` below 1 counts as 1; rank 0 is the 0-d `True`).
pub fn generate_binary_structure(rank: usize, connectivity: usize) -> Result<Array> {
    let dev = crate::current_device()?;
    if rank == 0 {
        return Array::from_slice_on(&dev, &[true], &[]);
    }
    check_rank_n("generate_binary_structure", rank)?;
    Array::from_slice_on(&dev, &binary_structure_values(rank, connectivity), &vec![3; rank])
}

/// The elements of [`generate_binary_structure`] in C order, on the host.
fn binary_structure_values(rank: usize, connectivity: usize) -> Vec<bool> {
    let conn = connectivity.max(1);
    let n = 3usize.pow(rank as u32);
    (0..n)
        .map(|mut f| {
            let mut dist = 0;
            for _ in 0..rank {
                dist += usize::from(f % 3 != 1);
                f /= 3;
            }
            dist <= conn
        })
        .collect()
}

fn check_rank_n(op: &str, rank: usize) -> Result<()> {
    if rank > MAX_NDIM {
        return Err(Error::value(op, format!("at most {MAX_NDIM} dimensions are supported, got {rank}")));
    }
    Ok(())
}

/// SciPy's `iterate_structure(structure, iterations)`: the element dilated by itself
/// `iterations - 1` times (a copy as bool when `iterations < 2`).
pub fn iterate_structure(structure: &Array, iterations: usize) -> Result<Array> {
    let op = "iterate_structure";
    let st = as_bool(structure)?;
    if iterations < 2 {
        return st.copy();
    }
    check_rank(op, &st)?;
    let ni = iterations - 1;
    let shape: Vec<usize> = st.shape().iter().map(|&s| s + ni * (s.saturating_sub(1))).collect();
    let pos: Vec<usize> = st.shape().iter().map(|&s| ni * (s / 2)).collect();
    let dev = st.device_arc();
    let out = Array::full_on(&dev, &shape, false, DType::Bool)?;
    let idx: Vec<crate::indexing::IndexItem<'_>> = pos
        .iter()
        .zip(st.shape())
        .map(|(&p, &s)| crate::indexing::IndexItem::Slice(Some(p as isize), Some((p + s) as isize), None))
        .collect();
    out.setitem(&idx, &st)?;
    binary_dilation(&out, Some(&st), ni as i64, None, false, None, false)
}

fn default_structure(op: &str, ndim: usize, structure: Option<&Array>) -> Result<Element> {
    match structure {
        Some(s) => Element::read(op, "structure", s, ndim),
        None => {
            // Made on the host: no round trip through the device for the default element.
            check_rank_n(op, ndim)?;
            let values = binary_structure_values(ndim, 1).into_iter().map(|b| if b { 1.0 } else { 0.0 }).collect();
            Ok(Element { shape: vec![3; ndim], values })
        }
    }
}

/// One binary erosion pass (or, with `invert`, the dilation by the element whose offsets
/// `offs` already are) of the contiguous bool image `x`.
fn erosion_pass(
    x: &Array,
    offs: &Array,
    nk: usize,
    shape: &Array,
    border: bool,
    invert: bool,
    mask: Option<&Array>,
) -> Result<Array> {
    let dev = x.device_arc();
    let out = Array::empty_on(&dev, x.shape(), DType::Bool)?;
    let n = x.size();
    if n == 0 {
        return Ok(out);
    }
    let k = kernel(BINARY_EROSION, "xp_nd_binary_erosion", "unsigned char");
    let (g, b) = grid(n);
    k.launch(
        g,
        b,
        &[
            LaunchArg::Array(x),
            LaunchArg::Array(mask.unwrap_or(x)),
            LaunchArg::Array(&out),
            LaunchArg::Array(offs),
            LaunchArg::Array(shape),
            LaunchArg::I64(x.ndim() as i64),
            LaunchArg::I64(nk as i64),
            LaunchArg::I64(n as i64),
            LaunchArg::I32(border as i32),
            LaunchArg::I32(invert as i32),
            LaunchArg::I32(mask.is_some() as i32),
        ],
    )?;
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn binary_op(
    op: &str,
    input: &Array,
    structure: Option<&Array>,
    iterations: i64,
    mask: Option<&Array>,
    border_value: bool,
    origin: Option<&[isize]>,
    dilate: bool,
) -> Result<Array> {
    check_rank(op, input)?;
    let x = as_bool(input)?;
    let el = default_structure(op, x.ndim(), structure)?;
    let org = origins(op, origin, &el.shape)?;
    let (el, org) = if dilate {
        let o = reflected_origin(&org, &el.shape);
        (el.reflected(), o)
    } else {
        (el, org)
    };
    let mask = match mask {
        Some(m) => {
            if m.shape() != x.shape() {
                return Err(Error::ShapeMismatch {
                    op: op.into(),
                    lhs: x.shape().to_vec(),
                    rhs: m.shape().to_vec(),
                    reason: "mask and input must have equal sizes".into(),
                });
            }
            Some(as_bool(m)?)
        }
        None => None,
    };
    let (offs, _) = el.offsets(&org, None);
    let nk = offs.len() / x.ndim().max(1);
    let dev = x.device_arc();
    if super::native(&*dev) && x.ndim() > 0 {
        return binary_op_host(op, &x, &offs, iterations, mask.as_ref(), border_value, dilate);
    }
    if x.ndim() == 0 {
        return x.copy();
    }
    if x.size() > 0 {
        if let Some(plan) = erosion_2d_plan(&dev, x.shape(), &offs, nk)? {
            let pass = |a: &Array| erosion_pass_2d(a, &plan, border_value, dilate, mask.as_ref());
            return iterate_passes(&x, iterations, pass);
        }
    }
    let offs = i64s(&dev, &offs)?;
    let shape = i64s(&dev, &shape_i64(&x))?;
    let pass = |a: &Array| erosion_pass(a, &offs, nk, &shape, border_value, dilate, mask.as_ref());
    iterate_passes(&x, iterations, pass)
}

/// `pass` applied `iterations` times from `x` (`< 1`: until the image no longer changes).
fn iterate_passes(x: &Array, iterations: i64, pass: impl Fn(&Array) -> Result<Array>) -> Result<Array> {
    let mut cur = pass(x)?;
    if iterations == 1 {
        return Ok(cur);
    }
    let mut done = 1i64;
    loop {
        if iterations > 1 && done >= iterations {
            return Ok(cur);
        }
        let next = pass(&cur)?;
        done += 1;
        if iterations < 1 && !next.ne(&cur)?.any(None, false)?.item::<bool>()? {
            return Ok(next);
        }
        cur = next;
    }
}

/// [`binary_op`]'s passes on the CPU device: the native pass over the host buffers, the
/// image kept on the host between passes.
fn binary_op_host(
    op: &str,
    x: &Array,
    offs: &[i64],
    iterations: i64,
    mask: Option<&Array>,
    border: bool,
    invert: bool,
) -> Result<Array> {
    let shape = x.shape().to_vec();
    let view = x.as_ndarray_view::<bool>()?;
    let mview = mask.map(|m| m.as_ndarray_view::<bool>()).transpose()?;
    let contiguous = || Error::value(op, "the image is not contiguous");
    let xs = view.as_slice().ok_or_else(contiguous)?;
    let ms = match &mview {
        Some(m) => Some(m.as_slice().ok_or_else(contiguous)?),
        None => None,
    };
    let mut cur = super::host::erosion_pass(xs, ms, &shape, offs, border, invert);
    let mut done = 1i64;
    while iterations < 1 || done < iterations {
        let next = super::host::erosion_pass(&cur, ms, &shape, offs, border, invert);
        done += 1;
        let same = next == cur;
        cur = next;
        if iterations < 1 && same {
            break;
        }
    }
    drop(view);
    let out = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), cur)
        .map_err(|e| Error::value(op, format!("shape {shape:?}: {e}")))?;
    Array::from_ndarray_owned(out)
}

/// SciPy's `binary_erosion(input, structure, iterations, mask, border_value, origin,
/// brute_force)`: a pixel stays set when every element of `structure` (default: the
/// connectivity-1 cross) lands on a set pixel, the outside counting as `border_value`;
/// repeated `iterations` times (`< 1`: until nothing changes); where `mask` is false the input
/// is kept.
pub fn binary_erosion(
    input: &Array,
    structure: Option<&Array>,
    iterations: i64,
    mask: Option<&Array>,
    border_value: bool,
    origin: Option<&[isize]>,
    brute_force: bool,
) -> Result<Array> {
    let _ = brute_force;
    binary_op("binary_erosion", input, structure, iterations, mask, border_value, origin, false)
}

/// SciPy's `binary_dilation(input, structure, iterations, mask, border_value, origin,
/// brute_force)`: a pixel is set when the reflected `structure` placed on it meets a set pixel
/// (the outside counting as `border_value`); arguments as [`binary_erosion`].
pub fn binary_dilation(
    input: &Array,
    structure: Option<&Array>,
    iterations: i64,
    mask: Option<&Array>,
    border_value: bool,
    origin: Option<&[isize]>,
    brute_force: bool,
) -> Result<Array> {
    let _ = brute_force;
    binary_op("binary_dilation", input, structure, iterations, mask, border_value, origin, true)
}

/// SciPy's `binary_opening(input, structure, iterations, origin, mask, border_value,
/// brute_force)`: `iterations` erosions, then as many dilations.
pub fn binary_opening(
    input: &Array,
    structure: Option<&Array>,
    iterations: i64,
    origin: Option<&[isize]>,
    mask: Option<&Array>,
    border_value: bool,
    brute_force: bool,
) -> Result<Array> {
    let op = "binary_opening";
    let st = match structure {
        Some(s) => s.clone(),
        None => generate_binary_structure(input.ndim(), 1)?,
    };
    let e = binary_op(op, input, Some(&st), iterations, mask, border_value, origin, false)?;
    let _ = brute_force;
    binary_op(op, &e, Some(&st), iterations, mask, border_value, origin, true)
}

/// SciPy's `binary_closing(input, structure, iterations, origin, mask, border_value,
/// brute_force)`: `iterations` dilations, then as many erosions.
pub fn binary_closing(
    input: &Array,
    structure: Option<&Array>,
    iterations: i64,
    origin: Option<&[isize]>,
    mask: Option<&Array>,
    border_value: bool,
    brute_force: bool,
) -> Result<Array> {
    let op = "binary_closing";
    let st = match structure {
        Some(s) => s.clone(),
        None => generate_binary_structure(input.ndim(), 1)?,
    };
    let d = binary_op(op, input, Some(&st), iterations, mask, border_value, origin, true)?;
    let _ = brute_force;
    binary_op(op, &d, Some(&st), iterations, mask, border_value, origin, false)
}

/// SciPy's `binary_hit_or_miss(input, structure1, structure2, origin1, origin2)`: the pixels
/// where `structure1` fits the foreground and `structure2` (default: the complement of
/// `structure1`) fits the background; the outside is background.
pub fn binary_hit_or_miss(
    input: &Array,
    structure1: Option<&Array>,
    structure2: Option<&Array>,
    origin1: Option<&[isize]>,
    origin2: Option<&[isize]>,
) -> Result<Array> {
    let op = "binary_hit_or_miss";
    let s1 = match structure1 {
        Some(s) => as_bool(s)?,
        None => generate_binary_structure(input.ndim(), 1)?,
    };
    let s2 = match structure2 {
        Some(s) => as_bool(s)?,
        None => s1.logical_not()?,
    };
    let o2 = match origin2 {
        Some(o) => Some(o),
        None => origin1,
    };
    let hit = binary_op(op, input, Some(&s1), 1, None, false, origin1, false)?;
    let bg = as_bool(input)?.logical_not()?;
    let miss = binary_op(op, &bg, Some(&s2), 1, None, true, o2, false)?;
    hit.logical_and(&miss)
}

/// SciPy's `binary_propagation(input, structure, mask, border_value, origin)`: the dilation
/// of `input` repeated inside `mask` until nothing changes (reconstruction by dilation).
pub fn binary_propagation(
    input: &Array,
    structure: Option<&Array>,
    mask: Option<&Array>,
    border_value: bool,
    origin: Option<&[isize]>,
) -> Result<Array> {
    binary_op("binary_propagation", input, structure, -1, mask, border_value, origin, true)
}

/// SciPy's `binary_fill_holes(input, structure, origin)`: the input with every background
/// region that the border cannot reach through `structure`-connected background set.
pub fn binary_fill_holes(input: &Array, structure: Option<&Array>, origin: Option<&[isize]>) -> Result<Array> {
    let op = "binary_fill_holes";
    let x = as_bool(input)?;
    let mask = x.logical_not()?;
    if let Some(r) = fill_holes_by_labels(op, &x, &mask, structure, origin)? {
        return Ok(r);
    }
    let seed = Array::full_on(&x.device_arc(), x.shape(), false, DType::Bool)?;
    let outside = binary_op(op, &seed, structure, -1, Some(&mask), true, origin, true)?;
    outside.logical_not()
}

/// `binary_fill_holes` without a propagation loop, for a symmetric `3 × … × 3` element at
/// origin 0 (where reaching from the border through the element is connectivity): the
/// background's components ([`label`](super::measurements::label)) that hold a pixel whose
/// element reaches outside the image stay background, the others are filled. `None` for other
/// elements, which take the iterative path.
fn fill_holes_by_labels(
    op: &str,
    x: &Array,
    bg: &Array,
    structure: Option<&Array>,
    origin: Option<&[isize]>,
) -> Result<Option<Array>> {
    if origin.is_some_and(|o| o.iter().any(|&v| v != 0)) || x.ndim() == 0 || x.size() == 0 {
        return Ok(None);
    }
    let el = default_structure(op, x.ndim(), structure)?;
    let symmetric = el.values.iter().zip(el.values.iter().rev()).all(|(a, b)| (*a != 0.0) == (*b != 0.0));
    if el.shape.iter().any(|&s| s != 3) || !symmetric {
        return Ok(None);
    }
    let st = match structure {
        Some(s) => s.clone(),
        None => generate_binary_structure(x.ndim(), 1)?,
    };
    let (lab, n) = super::measurements::label(bg, Some(&st))?;
    // Pixels whose element reaches outside: those an all-true image loses to a false border.
    let dev = x.device_arc();
    let (offs, _) = el.offsets(&vec![0; x.ndim()], None);
    let nk = offs.len() / x.ndim();
    let ones = Array::full_on(&dev, x.shape(), true, DType::Bool)?;
    let inner = erosion_pass(&ones, &i64s(&dev, &offs)?, nk, &i64s(&dev, &shape_i64(x))?, false, false, None)?;
    let lab = lab.astype(DType::I64)?.ravel()?;
    let zero = Array::full_on(&dev, &[], 0i64, DType::I64)?;
    let edge = crate::where_(&inner.logical_not()?.ravel()?, (&lab).into(), (&zero).into())?;
    let reached = crate::bincount(&edge, None, n + 1)?.gt(Scalar::Int(0))?;
    let open = reached.take(&lab, None)?.reshape(&x.shape().iter().map(|&s| s as isize).collect::<Vec<_>>())?;
    Ok(Some(x.logical_or(&bg.logical_and(&open.logical_not()?)?)?))
}

/// How a grey operation reads its element: its footprint, and the structure's values.
fn grey_element(
    op: &str,
    ndim: usize,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
) -> Result<(Element, Option<Element>)> {
    let st = structure.map(|s| Element::read(op, "structure", s, ndim)).transpose()?;
    let fp = match (footprint, &st, size) {
        (Some(f), _, _) => Element::read(op, "footprint", f, ndim)?,
        (None, Some(s), _) => Element::ones(s.shape.clone()),
        (None, None, Some(sz)) => {
            let shape = match sz {
                [s] => vec![*s; ndim],
                s if s.len() == ndim => s.to_vec(),
                s => {
                    return Err(Error::value(
                        op,
                        format!("size must have one value or one per axis ({ndim}), got {}", s.len()),
                    ))
                }
            };
            if shape.contains(&0) {
                return Err(Error::value(op, format!("size {shape:?} has a zero")));
            }
            Element::ones(shape)
        }
        (None, None, None) => return Err(Error::value(op, "size, footprint, or structure must be specified")),
    };
    if let Some(s) = &st {
        if s.shape != fp.shape {
            return Err(Error::value(
                op,
                format!("structure shape {:?} and footprint shape {:?} differ", s.shape, fp.shape),
            ));
        }
    }
    Ok((fp, st))
}

fn mode_code(mode: Mode) -> i32 {
    match mode {
        Mode::Reflect => 0,
        Mode::Constant | Mode::GridConstant => 1,
        Mode::Nearest => 2,
        Mode::Mirror => 3,
        Mode::Wrap | Mode::GridWrap => 4,
    }
}

#[allow(clippy::too_many_arguments)]
fn grey_op(
    op: &str,
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: Option<&[isize]>,
    dilate: bool,
) -> Result<Array> {
    check_rank(op, input)?;
    let t = ctype(op, input.dtype())?;
    if input.dtype().kind() == DTypeKind::Complex {
        return Err(Error::DType { op: op.into(), reason: "complex images are not supported".into() });
    }
    let x = input.ascontiguous()?;
    let (fp, st) = grey_element(op, x.ndim(), size, footprint, structure)?;
    let org = origins(op, origin, &fp.shape)?;
    let (fp, st, org) = if dilate {
        let o = reflected_origin(&org, &fp.shape);
        (fp.reflected(), st.map(|s| s.reflected()), o)
    } else {
        (fp, st, org)
    };
    let (offs, sv) = fp.offsets(&org, st.as_ref());
    let nd = x.ndim();
    let nk = offs.len().checked_div(nd).unwrap_or(0);
    let dev = x.device_arc();
    let out = Array::empty_on(&dev, x.shape(), x.dtype())?;
    let n = x.size();
    if n == 0 || nd == 0 {
        return x.copy();
    }
    let offs = i64s(&dev, &offs)?;
    let svs = Array::from_slice_on(&dev, &if sv.is_empty() { vec![0.0] } else { sv }, &[nk.max(1)])?;
    let shape = i64s(&dev, &shape_i64(&x))?;
    let k = kernel(GREY, "xp_nd_grey", t);
    let (g, b) = grid(n);
    k.launch(
        g,
        b,
        &[
            LaunchArg::Array(&x),
            LaunchArg::Array(&out),
            LaunchArg::Array(&offs),
            LaunchArg::Array(&svs),
            LaunchArg::Array(&shape),
            LaunchArg::I64(nd as i64),
            LaunchArg::I64(nk as i64),
            LaunchArg::I64(n as i64),
            LaunchArg::I32(mode_code(mode)),
            LaunchArg::F64(cval),
            LaunchArg::I32(dilate as i32),
            LaunchArg::I32(st.is_some() as i32),
        ],
    )?;
    Ok(out)
}

/// SciPy's `grey_erosion(input, size, footprint, structure, mode, cval, origin)`: the minimum
/// over the footprint (a box of `size`, or `footprint`'s set elements, or the whole of
/// `structure`) of the input less the non-flat `structure`; the outside as `mode` (with `cval`
/// for `Constant`). One of `size`, `footprint`, `structure` is needed.
#[allow(clippy::too_many_arguments)]
pub fn grey_erosion(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: Option<&[isize]>,
) -> Result<Array> {
    grey_op("grey_erosion", input, size, footprint, structure, mode, cval, origin, false)
}

/// SciPy's `grey_dilation(...)`: the maximum over the reflected footprint of the input plus
/// the reflected `structure`; arguments as [`grey_erosion`].
#[allow(clippy::too_many_arguments)]
pub fn grey_dilation(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: Option<&[isize]>,
) -> Result<Array> {
    grey_op("grey_dilation", input, size, footprint, structure, mode, cval, origin, true)
}

/// SciPy's `grey_opening(...)`: [`grey_erosion`] then [`grey_dilation`].
#[allow(clippy::too_many_arguments)]
pub fn grey_opening(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: Option<&[isize]>,
) -> Result<Array> {
    let op = "grey_opening";
    let e = grey_op(op, input, size, footprint, structure, mode, cval, origin, false)?;
    grey_op(op, &e, size, footprint, structure, mode, cval, origin, true)
}

/// SciPy's `grey_closing(...)`: [`grey_dilation`] then [`grey_erosion`].
#[allow(clippy::too_many_arguments)]
pub fn grey_closing(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: Option<&[isize]>,
) -> Result<Array> {
    let op = "grey_closing";
    let d = grey_op(op, input, size, footprint, structure, mode, cval, origin, true)?;
    grey_op(op, &d, size, footprint, structure, mode, cval, origin, false)
}

/// SciPy's `morphological_gradient(...)`: dilation less erosion, in the input's dtype.
#[allow(clippy::too_many_arguments)]
pub fn morphological_gradient(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: Option<&[isize]>,
) -> Result<Array> {
    let op = "morphological_gradient";
    let d = grey_op(op, input, size, footprint, structure, mode, cval, origin, true)?;
    let e = grey_op(op, input, size, footprint, structure, mode, cval, origin, false)?;
    d.sub(&e)
}

/// SciPy's `morphological_laplace(...)`: dilation plus erosion less twice the input, in the
/// input's dtype.
#[allow(clippy::too_many_arguments)]
pub fn morphological_laplace(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: Option<&[isize]>,
) -> Result<Array> {
    let op = "morphological_laplace";
    let d = grey_op(op, input, size, footprint, structure, mode, cval, origin, true)?;
    let e = grey_op(op, input, size, footprint, structure, mode, cval, origin, false)?;
    d.add(&e)?.sub(input)?.sub(input)
}

/// SciPy's `white_tophat(...)`: the input less its [`grey_opening`] (exclusive or for bool
/// images).
#[allow(clippy::too_many_arguments)]
pub fn white_tophat(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: Option<&[isize]>,
) -> Result<Array> {
    let o = grey_opening(input, size, footprint, structure, mode, cval, origin)?;
    if input.dtype() == DType::Bool {
        input.logical_xor(&o)
    } else {
        input.sub(&o)
    }
}

/// SciPy's `black_tophat(...)`: the [`grey_closing`] less the input (exclusive or for bool
/// images).
#[allow(clippy::too_many_arguments)]
pub fn black_tophat(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    structure: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: Option<&[isize]>,
) -> Result<Array> {
    let c = grey_closing(input, size, footprint, structure, mode, cval, origin)?;
    if input.dtype() == DType::Bool {
        c.logical_xor(input)
    } else {
        c.sub(input)
    }
}

/// SciPy's `distance_transform_edt(input, sampling)` (distances only): for each non-zero
/// pixel, the Euclidean distance to the nearest zero pixel, with `sampling` the pixel spacing
/// (one value, or one per axis); float64. Zero pixels are 0; an image without any zero pixel
/// is infinite everywhere.
pub fn distance_transform_edt(input: &Array, sampling: Option<&[f64]>) -> Result<Array> {
    let op = "distance_transform_edt";
    check_rank(op, input)?;
    let nd = input.ndim();
    let samp = match sampling {
        None | Some([]) => vec![1.0; nd],
        Some([s]) => vec![*s; nd],
        Some(s) if s.len() == nd => s.to_vec(),
        Some(s) => {
            return Err(Error::value(
                op,
                format!("sequence argument must have length equal to input rank ({nd}), got {}", s.len()),
            ))
        }
    };
    let x = as_bool(input)?;
    let dev = x.device_arc();
    let n = x.size();
    if n == 0 || nd == 0 {
        let inf = Array::full_on(&dev, &[], f64::INFINITY, DType::F64)?;
        let zero = Array::full_on(&dev, &[], 0.0, DType::F64)?;
        return crate::where_(&x, (&inf).into(), (&zero).into())?.sqrt();
    }
    // 32-bit index arithmetic wherever every index fits.
    let small = n + n / 2 < u32::MAX as usize;
    let (t, idx): (&str, fn(usize) -> LaunchArg<'static>) = if small {
        ("unsigned int", |v| LaunchArg::U32(v as u32))
    } else {
        ("long long", |v| LaunchArg::I64(v as i64))
    };
    let shape = x.shape().to_vec();
    // Axis 0 straight from the mask: zeros give 0, the rest the squared distance to the nearest
    // zero of their line (SciPy's first pass over `f = 0 / ∞`).
    let l = shape[0];
    let inner = n / l;
    let seg = ((l as f64).sqrt().ceil() as usize).max(32).min(l);
    let nseg = l.div_ceil(seg);
    let firstz = Array::empty_on(&dev, &[inner * nseg], DType::I64)?;
    let lastz = Array::empty_on(&dev, &[inner * nseg], DType::I64)?;
    let (g, b) = grid(inner * nseg);
    let geom = [idx(l), idx(inner), idx(inner), idx(seg), idx(nseg)];
    let mut args = vec![LaunchArg::Array(&x), LaunchArg::Array(&firstz), LaunchArg::Array(&lastz)];
    args.extend(geom.iter().cloned());
    kernel(EDT_SEG, "xp_nd_edt_seg", t).launch(g, b, &args)?;
    let mut f = Array::empty_on(&dev, &shape, DType::F64)?;
    let mut args =
        vec![LaunchArg::Array(&x), LaunchArg::Array(&firstz), LaunchArg::Array(&lastz), LaunchArg::Array(&f)];
    args.extend(geom.iter().cloned());
    args.push(LaunchArg::F64(samp[0]));
    kernel(EDT_FIRST, "xp_nd_edt_first", t).launch(g, b, &args)?;
    drop((firstz, lastz));
    let near = kernel(EDT_NEAR, "xp_nd_edt_near", t);
    let pass = kernel(EDT_PASS, "xp_nd_edt_pass", t);
    for (d, &s) in samp.iter().enumerate().skip(1) {
        let l = shape[d];
        let inner: usize = shape[d + 1..].iter().product();
        let nlines = n / l;
        let out = Array::empty_on(&dev, &shape, DType::F64)?;
        let flag = Array::full_on(&dev, &[nlines], 0, DType::I32)?;
        let (g, b) = grid(n);
        near.launch(
            g,
            b,
            &[
                LaunchArg::Array(&f),
                LaunchArg::Array(&out),
                LaunchArg::Array(&flag),
                idx(l),
                idx(inner),
                idx(n),
                LaunchArg::F64(s),
                idx(EDT_SEARCH.min(l)),
            ],
        )?;
        // The lines some pixel of which searched past the cap: the exact per-line envelope
        // (the scratch is only touched on those lines).
        let v = Array::empty_on(&dev, &[n], DType::I64)?;
        let z = Array::empty_on(&dev, &[n + nlines], DType::F64)?;
        let (g, b) = grid(nlines);
        pass.launch(
            g,
            b,
            &[
                LaunchArg::Array(&f),
                LaunchArg::Array(&out),
                LaunchArg::Array(&flag),
                LaunchArg::Array(&v),
                LaunchArg::Array(&z),
                idx(l),
                idx(inner),
                idx(nlines),
                LaunchArg::F64(s),
            ],
        )?;
        f = out;
    }
    f.sqrt()
}
