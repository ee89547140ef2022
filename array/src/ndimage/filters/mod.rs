//! SciPy's `scipy.ndimage` filters (CuPy's `cupyx.scipy.ndimage` filters): correlation and
//! convolution ([`correlate`], [`convolve`], [`correlate1d`], [`convolve1d`]), the Gaussian
//! family ([`gaussian_filter`], [`gaussian_filter1d`], [`gaussian_gradient_magnitude`],
//! [`gaussian_laplace`]), [`uniform_filter`], the rank filters ([`minimum_filter`],
//! [`maximum_filter`], [`median_filter`], [`rank_filter`], [`percentile_filter`] and the 1-d
//! forms), the derivative filters ([`prewitt`], [`sobel`], [`laplace`]) and the filters with a
//! user function compiled at run time ([`generic_filter`], [`generic_filter1d`]; see
//! [`generic`] for the function's form).
//!
//! # Contract
//! - **dtypes**: the result has the input's dtype, as SciPy's default `output`. Sums are
//!   accumulated in float64 and cast once per pass: float32 rounds to nearest, integers are
//!   truncated toward zero and wrap to their width (SciPy's C cast), so `correlate` of a
//!   `uint8` image gives SciPy's wrapped `uint8` values. Multi-pass filters (separable
//!   Gaussian, uniform, Sobel, Prewitt, Laplace) store each pass in the input's dtype, as SciPy
//!   does with its output array. float32, float64 and every integer dtype are supported;
//!   complex64 and complex128 images too in the linear filters (`correlate`, `convolve`, their
//!   1-d forms, `gaussian_filter(1d)`, `uniform_filter(1d)`: the real and imaginary parts
//!   filtered apart, `cval` applying to the real part), with real weights; bool, float16,
//!   complex weights and complex images in the other filters are `UnsupportedDType`.
//! - **Boundaries**: every [`Mode`]; `GridConstant` is `Constant` and `GridWrap` is `Wrap`.
//!   Indices far outside the image extend periodically (`Reflect` with period `2n`, `Mirror`
//!   with `2n - 2`), as SciPy's line extension does, so windows larger than the image agree.
//!   In constant mode linear filters add `cval` as a float64; rank filters first cast `cval`
//!   to the input's dtype (SciPy's rule).
//! - **Origins**: tap `k` of a window of length `n` reads offset `k - n / 2 - origin`; an
//!   origin outside `[-(n / 2), (n - 1) / 2]` is a `Value` error. `origin` arguments are one
//!   value for every axis or one per axis (an empty slice is zero). `convolve` flips the
//!   weights and negates the origin (one step further for even lengths), as SciPy.
//! - **Errors** (`Value` unless said): weights or footprint of another rank than the input
//!   (SciPy's `RuntimeError`), an empty weights array, a size below 1, a bad origin, a rank or
//!   percentile outside the footprint, a negative sigma or order, a per-axis sequence of the
//!   wrong length; an axis out of range is `Axis`. Each names the function.
//!
//! # Algorithms
//! Each filter is one device kernel launch per pass ([`kernels`](self)): a thread per output
//! element walks a table of tap offsets (and weights) built on the host from the weights,
//! footprint or size, so the host work is the size of the filter, never of the image. Linear
//! separable filters run one 1-d pass per axis, whose kernel reads the element's line by the
//! axis's stride (no N-d index arithmetic per tap). Rank filters select the `rank`-th value of the
//! window by Hoare's FIND algorithm (C. A. R. Hoare, "Algorithm 65: Find", CACM 4(7), 1961) in
//! a per-thread buffer; minimum and maximum are a plain scan, and run as one 1-d pass per
//! axis when given a `size` (the window is a box, so the minimum separates). Footprints over
//! 1,024 elements select by counting, which needs no per-element memory. An element whose
//! whole window lies inside the image reads its taps at flat offsets made once on the host;
//! only elements near the edges walk the axes and apply the boundary rule.
//!
//! On the CPU backend the 1-d correlation (every separable linear pass: Gaussian, uniform,
//! Sobel, Prewitt, Laplace, `correlate1d`) runs as a kernel of its own in which each thread
//! makes 16 consecutive outputs as 16 float64 running sums over the taps, the form the host
//! compiler vectorises, for both the contiguous axis and the strided ones (there the 16
//! outputs are neighbours along the last axis, so every tap reads 16 consecutive inputs);
//! symmetric weights (the Gaussian, uniform and smoothing kernels) add the mirrored taps
//! before the product.
//!
//! On GPUs the 1-d correlation runs as a shared-memory tiled kernel ([`tiled`](self)): a block
//! copies its tile and the window's halo once (converted to float64, the boundary rule applied
//! only there) and each thread makes several outputs from it with 32-bit tile arithmetic, the
//! sums in the general kernel's order (the same bits); windows wider than the tile's halo
//! allows keep the general kernel. Rank filters whose window lies in the last two axes and has
//! at most 49 elements (every backend) run a tiled kernel that reads each window into
//! registers and selects by a selection network (Batcher's merge sort cut back to the wanted
//! rank); larger or N-d windows keep the general kernel. `signal.medfilt` and `medfilt2d`
//! are this median filter with zero outside.
//!
//! The Gaussian kernel of order `m` is `q_m(x) g(x)` over `x = -r..=r`, `r = radius` or
//! `floor(truncate * sigma + 0.5)`, with `g` the sampled Gaussian normalised to sum 1 and
//! `q_0 = 1`, `q_{m+1}(x) = q_m'(x) - x q_m(x) / sigma^2` (the derivatives of
//! `exp(-x^2 / 2 sigma^2)`), applied as a convolution.

pub mod generic;
mod kernels;
mod tiled;

pub use generic::{builtin_kernels, generic_filter, generic_filter1d, FilterFunction, FilterFunction1d};

use xp_backend_api::{DType, Error, Result};

use self::kernels::{correlate_axis, correlate_taps, min_max_axis, rank_taps};
use super::Mode;
use crate::layout::normalize_axis;
use crate::ufunc::call;
use crate::{Array, Operand, Scalar};

// ---- argument helpers --------------------------------------------------------------------------

/// One value per axis from `v` (one value for every axis, or one per axis; empty → `default`).
fn per_axis<T: Copy>(op: &str, what: &str, v: &[T], nd: usize, default: T) -> Result<Vec<T>> {
    match v.len() {
        0 => Ok(vec![default; nd]),
        1 => Ok(vec![v[0]; nd]),
        n if n == nd => Ok(v.to_vec()),
        n => Err(Error::value(
            op,
            format!("sequence argument `{what}` must have length equal to input rank {nd}, got {n}"),
        )),
    }
}

fn check_origin(op: &str, len: usize, origin: isize) -> Result<()> {
    let c = (len / 2) as isize + origin;
    if c < 0 || c >= len as isize {
        return Err(Error::value(op, format!("invalid origin {origin} for a filter of length {len}")));
    }
    Ok(())
}

fn check_input(op: &str, input: &Array) -> Result<()> {
    let dt = input.dtype();
    if dt == DType::F32 || dt == DType::F64 || dt.is_integer() {
        Ok(())
    } else {
        Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![dt],
            detail: "ndimage filters take float32, float64 or integer images".into(),
        })
    }
}

/// A linear filter of a complex image: `f` of the real and imaginary parts (the real part with
/// `cval`, the imaginary part with 0), recombined in the input's complex dtype, as SciPy does.
fn by_parts(input: &Array, cval: f64, f: impl Fn(&Array, f64) -> Result<Array>) -> Result<Array> {
    if !input.dtype().is_complex() {
        return f(input, cval);
    }
    let re = f(&input.real().ascontiguous()?, cval)?;
    let im = f(&input.imag()?.ascontiguous()?, 0.0)?;
    let j = call("multiply", &[Operand::Array(&im), Operand::Scalar(Scalar::Complex(0.0, 1.0))], None)?;
    call("add", &[Operand::Array(&j), Operand::Array(&re)], None)?.astype(input.dtype())
}

/// The C-order multi-indices of a box of `shape`.
fn box_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let total: usize = shape.iter().product();
    let mut out = Vec::with_capacity(total);
    for mut flat in 0..total {
        let mut idx = vec![0; shape.len()];
        for d in (0..shape.len()).rev() {
            idx[d] = flat % shape[d];
            flat /= shape[d];
        }
        out.push(idx);
    }
    out
}

/// A filter's small argument array (weights, footprint) as float64 values on the host.
fn host_f64(op: &str, what: &str, a: &Array) -> Result<Vec<f64>> {
    if a.dtype().is_complex() {
        return Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![a.dtype()],
            detail: format!("complex {what} are not supported"),
        });
    }
    a.astype(DType::F64)?.to_vec::<f64>()
}

// ---- correlation and convolution ---------------------------------------------------------------

fn correlate_nd(
    op: &str,
    input: &Array,
    weights: &Array,
    mode: Mode,
    cval: f64,
    origin: &[isize],
    flip: bool,
) -> Result<Array> {
    check_input(op, input)?;
    let nd = input.ndim();
    if weights.ndim() != nd {
        return Err(Error::value(
            op,
            format!(
                "filter weights array has incorrect shape: {:?} for an input of shape {:?}",
                weights.shape(),
                input.shape()
            ),
        ));
    }
    if weights.size() == 0 {
        return Err(Error::value(op, "no filter weights given"));
    }
    let w = host_f64(op, "weights", weights)?;
    let wshape = weights.shape().to_vec();
    let mut origin = per_axis(op, "origin", origin, nd, 0)?;
    if flip {
        for (o, &n) in origin.iter_mut().zip(&wshape) {
            *o = -*o - if n % 2 == 0 { 1 } else { 0 };
        }
    }
    for (&n, &o) in wshape.iter().zip(&origin) {
        check_origin(op, n, o)?;
    }
    let mut offs = Vec::new();
    let mut wts = Vec::new();
    for (flat, idx) in box_indices(&wshape).into_iter().enumerate() {
        let v = if flip { w[idx.iter().zip(&wshape).fold(0, |acc, (&k, &n)| acc * n + (n - 1 - k))] } else { w[flat] };
        if v != 0.0 {
            offs.push(
                idx.iter()
                    .zip(&wshape)
                    .zip(&origin)
                    .map(|((&k, &n), &o)| k as i64 - (n / 2) as i64 - o as i64)
                    .collect(),
            );
            wts.push(v);
        }
    }
    correlate_taps(op, input, &offs, &wts, 1.0, mode, cval)
}

/// SciPy's `ndimage.correlate`: `y[i] = sum_k weights[k] * input[i + k - shape / 2 - origin]`
/// over the N-d `weights` (of the input's rank), extended past the edges by `mode`.
pub fn correlate(input: &Array, weights: &Array, mode: Mode, cval: f64, origin: &[isize]) -> Result<Array> {
    by_parts(input, cval, |x, c| correlate_nd("correlate", x, weights, mode, c, origin, false))
}

/// SciPy's `ndimage.convolve`: [`correlate`] with the weights flipped on every axis and the
/// origin negated (and moved one more step on axes of even length), as SciPy.
pub fn convolve(input: &Array, weights: &Array, mode: Mode, cval: f64, origin: &[isize]) -> Result<Array> {
    by_parts(input, cval, |x, c| correlate_nd("convolve", x, weights, mode, c, origin, true))
}

#[allow(clippy::too_many_arguments)]
fn correlate_1d(
    op: &str,
    input: &Array,
    weights: &[f64],
    axis: isize,
    mode: Mode,
    cval: f64,
    origin: isize,
    div: f64,
) -> Result<Array> {
    check_input(op, input)?;
    if weights.is_empty() {
        return Err(Error::value(op, "no filter weights given"));
    }
    let nd = input.ndim();
    let ax = normalize_axis(op, axis, nd.max(1))?;
    let n = weights.len();
    check_origin(op, n, origin)?;
    let base = (n / 2) as i64 + origin as i64;
    let mut offs = Vec::new();
    let mut wts = Vec::new();
    for (k, &v) in weights.iter().enumerate() {
        if v != 0.0 {
            offs.push(k as i64 - base);
            wts.push(v);
        }
    }
    correlate_axis(op, input, ax, &offs, &wts, div, mode, cval)
}

fn weights_1d(op: &str, weights: &Array) -> Result<Vec<f64>> {
    if weights.ndim() != 1 {
        return Err(Error::value(op, format!("filter weights must be 1-d, got shape {:?}", weights.shape())));
    }
    host_f64(op, "weights", weights)
}

/// SciPy's `ndimage.correlate1d`: the correlation with the 1-d `weights` along `axis`.
pub fn correlate1d(input: &Array, weights: &Array, axis: isize, mode: Mode, cval: f64, origin: isize) -> Result<Array> {
    let w = weights_1d("correlate1d", weights)?;
    by_parts(input, cval, |x, c| correlate_1d("correlate1d", x, &w, axis, mode, c, origin, 1.0))
}

/// SciPy's `ndimage.convolve1d`: the convolution with the 1-d `weights` along `axis`
/// ([`correlate1d`] with the weights reversed and the origin negated, one more step for an
/// even length).
pub fn convolve1d(input: &Array, weights: &Array, axis: isize, mode: Mode, cval: f64, origin: isize) -> Result<Array> {
    let mut w = weights_1d("convolve1d", weights)?;
    w.reverse();
    let o = -origin - if w.len() % 2 == 0 { 1 } else { 0 };
    by_parts(input, cval, |x, c| correlate_1d("convolve1d", x, &w, axis, mode, c, o, 1.0))
}

// ---- Gaussian ---------------------------------------------------------------------------------

/// The order-`order` Gaussian derivative kernel of `sigma` over `-radius..=radius`, in
/// correlation order (already reversed for convolution).
fn gaussian_kernel(sigma: f64, order: usize, radius: usize) -> Vec<f64> {
    let r = radius as i64;
    if sigma == 0.0 {
        let mut w = vec![0.0; 2 * radius + 1];
        if order == 0 {
            w[radius] = 1.0;
        }
        return w;
    }
    let s2 = sigma * sigma;
    let xs: Vec<f64> = (-r..=r).map(|x| x as f64).collect();
    let mut phi: Vec<f64> = xs.iter().map(|x| (-0.5 / s2 * x * x).exp()).collect();
    let total: f64 = phi.iter().sum();
    for p in &mut phi {
        *p /= total;
    }
    if order > 0 {
        // q as coefficients of x^0.. x^order.
        let mut q = vec![0.0; order + 1];
        q[0] = 1.0;
        for _ in 0..order {
            let mut next = vec![0.0; order + 1];
            for (j, &c) in q.iter().enumerate() {
                if j > 0 {
                    next[j - 1] += j as f64 * c;
                }
                if j < order {
                    next[j + 1] -= c / s2;
                }
            }
            q = next;
        }
        for (p, &x) in phi.iter_mut().zip(&xs) {
            let v = q.iter().rev().fold(0.0, |acc, &c| acc * x + c);
            *p *= v;
        }
    }
    phi.reverse();
    phi
}

fn check_sigma(op: &str, sigma: f64) -> Result<()> {
    if sigma.is_nan() || sigma < 0.0 || sigma.is_infinite() {
        return Err(Error::value(op, format!("sigma must be a finite non-negative number, got {sigma}")));
    }
    Ok(())
}

fn gaussian_radius(op: &str, sigma: f64, truncate: f64, radius: Option<usize>) -> Result<usize> {
    Ok(match radius {
        Some(r) => r,
        None => {
            let r = (truncate * sigma + 0.5).floor();
            if r.is_nan() || r < 0.0 || r.is_infinite() {
                return Err(Error::value(op, format!("truncate must give a non-negative radius, got {truncate}")));
            }
            r as usize
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn gaussian_1d(
    op: &str,
    input: &Array,
    sigma: f64,
    axis: isize,
    order: usize,
    mode: Mode,
    cval: f64,
    truncate: f64,
    radius: Option<usize>,
) -> Result<Array> {
    check_sigma(op, sigma)?;
    let r = gaussian_radius(op, sigma, truncate, radius)?;
    let w = gaussian_kernel(sigma, order, r);
    correlate_1d(op, input, &w, axis, mode, cval, 0, 1.0)
}

/// SciPy's `ndimage.gaussian_filter1d`: the Gaussian (or its `order`-th derivative) of
/// standard deviation `sigma` along `axis`, cut at `radius` (default
/// `floor(truncate * sigma + 0.5)`; SciPy's default `truncate` is 4).
#[allow(clippy::too_many_arguments)]
pub fn gaussian_filter1d(
    input: &Array,
    sigma: f64,
    axis: isize,
    order: usize,
    mode: Mode,
    cval: f64,
    truncate: f64,
    radius: Option<usize>,
) -> Result<Array> {
    by_parts(input, cval, |x, c| gaussian_1d("gaussian_filter1d", x, sigma, axis, order, mode, c, truncate, radius))
}

#[allow(clippy::too_many_arguments)]
fn gaussian_nd(
    op: &str,
    input: &Array,
    sigma: &[f64],
    order: &[usize],
    mode: Mode,
    cval: f64,
    truncate: f64,
    radius: Option<&[usize]>,
) -> Result<Array> {
    check_input(op, input)?;
    let nd = input.ndim();
    let sig = per_axis(op, "sigma", sigma, nd, 0.0)?;
    let ord = per_axis(op, "order", order, nd, 0)?;
    let rad: Vec<Option<usize>> = match radius {
        None => vec![None; nd],
        Some(r) => per_axis(op, "radius", r, nd, 0)?.into_iter().map(Some).collect(),
    };
    for &s in &sig {
        check_sigma(op, s)?;
    }
    let mut out: Option<Array> = None;
    for d in 0..nd {
        if sig[d] > 1e-15 {
            let src = out.as_ref().unwrap_or(input);
            out = Some(gaussian_1d(op, src, sig[d], d as isize, ord[d], mode, cval, truncate, rad[d])?);
        }
    }
    match out {
        Some(o) => Ok(o),
        None => input.copy(),
    }
}

/// SciPy's `ndimage.gaussian_filter`: one [`gaussian_filter1d`] pass per axis whose sigma is
/// above 1e-15, in axis order, each stored in the input's dtype. `sigma`, `order` and
/// `radius` are one value for every axis or one per axis.
#[allow(clippy::too_many_arguments)]
pub fn gaussian_filter(
    input: &Array,
    sigma: &[f64],
    order: &[usize],
    mode: Mode,
    cval: f64,
    truncate: f64,
    radius: Option<&[usize]>,
) -> Result<Array> {
    by_parts(input, cval, |x, c| gaussian_nd("gaussian_filter", x, sigma, order, mode, c, truncate, radius))
}

/// SciPy's `ndimage.gaussian_gradient_magnitude`: `sqrt(sum_a d_a^2)` with `d_a` the
/// first-order Gaussian derivative along axis `a` (squares and sums in the input's dtype, the
/// square root cast back to it, as SciPy).
pub fn gaussian_gradient_magnitude(
    input: &Array,
    sigma: &[f64],
    mode: Mode,
    cval: f64,
    truncate: f64,
) -> Result<Array> {
    let op = "gaussian_gradient_magnitude";
    check_input(op, input)?;
    let nd = input.ndim();
    let mut acc: Option<Array> = None;
    for a in 0..nd {
        let mut order = vec![0usize; nd];
        order[a] = 1;
        let d = gaussian_nd(op, input, sigma, &order, mode, cval, truncate, None)?;
        let sq = call("multiply", &[Operand::Array(&d), Operand::Array(&d)], None)?;
        acc = Some(match acc {
            None => sq,
            Some(s) => call("add", &[Operand::Array(&s), Operand::Array(&sq)], None)?,
        });
    }
    let Some(s) = acc else { return input.copy() };
    call("sqrt", &[Operand::Array(&s)], None)?.astype(input.dtype())
}

/// SciPy's `ndimage.gaussian_laplace`: the sum over the axes of the second-order Gaussian
/// derivative along each (summed in the input's dtype).
pub fn gaussian_laplace(input: &Array, sigma: &[f64], mode: Mode, cval: f64, truncate: f64) -> Result<Array> {
    let op = "gaussian_laplace";
    check_input(op, input)?;
    let nd = input.ndim();
    let mut acc: Option<Array> = None;
    for a in 0..nd {
        let mut order = vec![0usize; nd];
        order[a] = 2;
        let d = gaussian_nd(op, input, sigma, &order, mode, cval, truncate, None)?;
        acc = Some(match acc {
            None => d,
            Some(s) => call("add", &[Operand::Array(&s), Operand::Array(&d)], None)?.astype(input.dtype())?,
        });
    }
    match acc {
        Some(s) => Ok(s),
        None => input.copy(),
    }
}

// ---- uniform ---------------------------------------------------------------------------------

fn uniform_1d(
    op: &str,
    input: &Array,
    size: usize,
    axis: isize,
    mode: Mode,
    cval: f64,
    origin: isize,
) -> Result<Array> {
    if size < 1 {
        return Err(Error::value(op, format!("incorrect filter size {size}")));
    }
    correlate_1d(op, input, &vec![1.0; size], axis, mode, cval, origin, size as f64)
}

/// SciPy's `ndimage.uniform_filter1d`: the mean over `size` consecutive elements along
/// `axis` (summed in float64, divided once).
pub fn uniform_filter1d(
    input: &Array,
    size: usize,
    axis: isize,
    mode: Mode,
    cval: f64,
    origin: isize,
) -> Result<Array> {
    by_parts(input, cval, |x, c| uniform_1d("uniform_filter1d", x, size, axis, mode, c, origin))
}

/// SciPy's `ndimage.uniform_filter`: [`uniform_filter1d`] along every axis whose size is
/// above 1; `size` and `origin` are one value for every axis or one per axis.
pub fn uniform_filter(input: &Array, size: &[usize], mode: Mode, cval: f64, origin: &[isize]) -> Result<Array> {
    by_parts(input, cval, |x, c| uniform_nd(x, size, mode, c, origin))
}

fn uniform_nd(input: &Array, size: &[usize], mode: Mode, cval: f64, origin: &[isize]) -> Result<Array> {
    let op = "uniform_filter";
    check_input(op, input)?;
    let nd = input.ndim();
    let sizes = per_axis(op, "size", size, nd, 3)?;
    let origins = per_axis(op, "origin", origin, nd, 0)?;
    let mut out: Option<Array> = None;
    for d in 0..nd {
        if sizes[d] == 0 {
            return Err(Error::value(op, format!("incorrect filter size {}", sizes[d])));
        }
        if sizes[d] > 1 {
            let src = out.as_ref().unwrap_or(input);
            out = Some(uniform_1d(op, src, sizes[d], d as isize, mode, cval, origins[d])?);
        }
    }
    match out {
        Some(o) => Ok(o),
        None => input.copy(),
    }
}

// ---- rank filters ----------------------------------------------------------------------------

/// The window of a rank filter: the taps' offsets, and whether it is a full box given by size.
struct Window {
    taps: Vec<Vec<i64>>,
    sizes: Vec<usize>,
    origins: Vec<isize>,
    is_box: bool,
}

fn window(
    op: &str,
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    origin: &[isize],
) -> Result<Window> {
    check_input(op, input)?;
    let nd = input.ndim();
    let origins = per_axis(op, "origin", origin, nd, 0)?;
    let (shape, mask, is_box) = match footprint {
        Some(fp) => {
            if fp.ndim() != nd {
                return Err(Error::value(
                    op,
                    format!(
                        "footprint array has incorrect shape: {:?} for an input of shape {:?}",
                        fp.shape(),
                        input.shape()
                    ),
                ));
            }
            let m: Vec<bool> = host_f64(op, "footprints", fp)?.into_iter().map(|v| v != 0.0).collect();
            let all = m.iter().all(|&b| b);
            (fp.shape().to_vec(), m, all)
        }
        None => {
            let Some(size) = size else {
                return Err(Error::value(op, "no footprint provided"));
            };
            let s = per_axis(op, "size", size, nd, 1)?;
            let total: usize = s.iter().product();
            (s, vec![true; total], true)
        }
    };
    if shape.contains(&0) {
        return Err(Error::value(op, format!("invalid filter shape {shape:?}")));
    }
    for (&n, &o) in shape.iter().zip(&origins) {
        check_origin(op, n, o)?;
    }
    let taps: Vec<Vec<i64>> = box_indices(&shape)
        .into_iter()
        .zip(&mask)
        .filter(|(_, &m)| m)
        .map(|(idx, _)| {
            idx.iter().zip(&shape).zip(&origins).map(|((&k, &n), &o)| k as i64 - (n / 2) as i64 - o as i64).collect()
        })
        .collect();
    if taps.is_empty() {
        return Err(Error::value(op, "filter footprint has no nonzero element"));
    }
    Ok(Window { taps, sizes: shape, origins, is_box })
}

fn min_or_max(op: &str, input: &Array, w: Window, mode: Mode, cval: f64, max: bool) -> Result<Array> {
    if !w.is_box || input.ndim() == 0 {
        let r = if max { w.taps.len() - 1 } else { 0 };
        return rank_taps(op, input, &w.taps, r, mode, cval);
    }
    let nd = input.ndim();
    let mut out: Option<Array> = None;
    for d in 0..nd {
        let n = w.sizes[d];
        if n > 1 {
            let base = (n / 2) as i64 + w.origins[d] as i64;
            let taps: Vec<i64> = (0..n as i64).map(|k| k - base).collect();
            let src = out.as_ref().unwrap_or(input);
            out = Some(min_max_axis(op, src, d, &taps, max, mode, cval)?);
        }
    }
    match out {
        Some(o) => Ok(o),
        None => input.copy(),
    }
}

/// SciPy's `ndimage.minimum_filter`: the minimum over the window, given by `size` (a box, one
/// length for every axis or one per axis) or `footprint` (nonzero elements; it wins over
/// `size`).
pub fn minimum_filter(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: &[isize],
) -> Result<Array> {
    let w = window("minimum_filter", input, size, footprint, origin)?;
    min_or_max("minimum_filter", input, w, mode, cval, false)
}

/// SciPy's `ndimage.maximum_filter`: the maximum over the window (see [`minimum_filter`]).
pub fn maximum_filter(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: &[isize],
) -> Result<Array> {
    let w = window("maximum_filter", input, size, footprint, origin)?;
    min_or_max("maximum_filter", input, w, mode, cval, true)
}

#[allow(clippy::too_many_arguments)]
fn min_max_1d(
    op: &str,
    input: &Array,
    size: usize,
    axis: isize,
    mode: Mode,
    cval: f64,
    origin: isize,
    max: bool,
) -> Result<Array> {
    check_input(op, input)?;
    if size < 1 {
        return Err(Error::value(op, format!("incorrect filter size {size}")));
    }
    let nd = input.ndim();
    let ax = normalize_axis(op, axis, nd.max(1))?;
    check_origin(op, size, origin)?;
    let base = (size / 2) as i64 + origin as i64;
    let taps: Vec<i64> = (0..size as i64).map(|k| k - base).collect();
    min_max_axis(op, input, ax, &taps, max, mode, cval)
}

/// SciPy's `ndimage.minimum_filter1d`: the minimum over `size` consecutive elements along
/// `axis`.
pub fn minimum_filter1d(
    input: &Array,
    size: usize,
    axis: isize,
    mode: Mode,
    cval: f64,
    origin: isize,
) -> Result<Array> {
    min_max_1d("minimum_filter1d", input, size, axis, mode, cval, origin, false)
}

/// SciPy's `ndimage.maximum_filter1d`: the maximum over `size` consecutive elements along
/// `axis`.
pub fn maximum_filter1d(
    input: &Array,
    size: usize,
    axis: isize,
    mode: Mode,
    cval: f64,
    origin: isize,
) -> Result<Array> {
    min_max_1d("maximum_filter1d", input, size, axis, mode, cval, origin, true)
}

fn rank_with(op: &str, input: &Array, w: Window, rank: usize, mode: Mode, cval: f64) -> Result<Array> {
    let n = w.taps.len();
    if rank == 0 {
        return min_or_max(op, input, w, mode, cval, false);
    }
    if rank == n - 1 {
        return min_or_max(op, input, w, mode, cval, true);
    }
    rank_taps(op, input, &w.taps, rank, mode, cval)
}

/// SciPy's `ndimage.rank_filter`: the `rank`-th smallest value of the window (from 0; a
/// negative rank counts from the largest).
pub fn rank_filter(
    input: &Array,
    rank: isize,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: &[isize],
) -> Result<Array> {
    let op = "rank_filter";
    let w = window(op, input, size, footprint, origin)?;
    let n = w.taps.len() as isize;
    let r = if rank < 0 { rank + n } else { rank };
    if r < 0 || r >= n {
        return Err(Error::value(op, format!("rank {rank} not within filter footprint size {n}")));
    }
    rank_with(op, input, w, r as usize, mode, cval)
}

/// The median over a box of odd `sizes` centred on each element, zero outside the image:
/// SciPy's `signal.medfilt` and `medfilt2d`, on the rank filters' kernels.
pub(crate) fn median_zero_padded(op: &str, input: &Array, sizes: &[usize]) -> Result<Array> {
    let taps: Vec<Vec<i64>> = box_indices(sizes)
        .into_iter()
        .map(|idx| idx.iter().zip(sizes).map(|(&k, &n)| k as i64 - (n / 2) as i64).collect())
        .collect();
    if taps.len() <= 1 {
        return input.copy();
    }
    rank_taps(op, input, &taps, taps.len() / 2, Mode::Constant, 0.0)
}

/// SciPy's `ndimage.median_filter`: the element of rank `n / 2` of the window's `n` values.
pub fn median_filter(
    input: &Array,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: &[isize],
) -> Result<Array> {
    let op = "median_filter";
    let w = window(op, input, size, footprint, origin)?;
    let r = w.taps.len() / 2;
    rank_with(op, input, w, r, mode, cval)
}

/// SciPy's `ndimage.percentile_filter`: the element of rank `floor(n * percentile / 100)`
/// (`n - 1` at 100) of the window's `n` values; a negative percentile counts from 100.
pub fn percentile_filter(
    input: &Array,
    percentile: f64,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    mode: Mode,
    cval: f64,
    origin: &[isize],
) -> Result<Array> {
    let op = "percentile_filter";
    let w = window(op, input, size, footprint, origin)?;
    let p = if percentile < 0.0 { percentile + 100.0 } else { percentile };
    if !(0.0..=100.0).contains(&p) {
        return Err(Error::value(op, format!("invalid percentile {percentile}")));
    }
    let n = w.taps.len();
    let r = if p == 100.0 { n - 1 } else { ((n as f64) * p / 100.0) as usize };
    rank_with(op, input, w, r.min(n - 1), mode, cval)
}

// ---- derivatives -----------------------------------------------------------------------------

fn derivative(
    op: &str,
    input: &Array,
    axis: isize,
    mode: Mode,
    cval: f64,
    diff: [f64; 3],
    smooth: [f64; 3],
) -> Result<Array> {
    check_input(op, input)?;
    let nd = input.ndim();
    let ax = normalize_axis(op, axis, nd.max(1))?;
    let mut out = correlate_1d(op, input, &diff, ax as isize, mode, cval, 0, 1.0)?;
    for d in 0..nd {
        if d != ax {
            out = correlate_1d(op, &out, &smooth, d as isize, mode, cval, 0, 1.0)?;
        }
    }
    Ok(out)
}

/// SciPy's `ndimage.prewitt`: the difference `[-1, 0, 1]` along `axis`, then `[1, 1, 1]`
/// along every other axis.
pub fn prewitt(input: &Array, axis: isize, mode: Mode, cval: f64) -> Result<Array> {
    derivative("prewitt", input, axis, mode, cval, [-1.0, 0.0, 1.0], [1.0, 1.0, 1.0])
}

/// SciPy's `ndimage.sobel`: the difference `[-1, 0, 1]` along `axis`, then `[1, 2, 1]`
/// along every other axis.
pub fn sobel(input: &Array, axis: isize, mode: Mode, cval: f64) -> Result<Array> {
    derivative("sobel", input, axis, mode, cval, [-1.0, 0.0, 1.0], [1.0, 2.0, 1.0])
}

/// SciPy's `ndimage.laplace`: the sum over the axes of the second difference `[1, -2, 1]`
/// along each (summed in the input's dtype).
pub fn laplace(input: &Array, mode: Mode, cval: f64) -> Result<Array> {
    let op = "laplace";
    check_input(op, input)?;
    let mut acc: Option<Array> = None;
    for d in 0..input.ndim() {
        let t = correlate_1d(op, input, &[1.0, -2.0, 1.0], d as isize, mode, cval, 0, 1.0)?;
        acc = Some(match acc {
            None => t,
            Some(s) => call("add", &[Operand::Array(&s), Operand::Array(&t)], None)?.astype(input.dtype())?,
        });
    }
    match acc {
        Some(s) => Ok(s),
        None => input.copy(),
    }
}
