//! Discrete Fourier transforms, as `numpy.fft` (CuPy's `cupy.fft`): `fft`, `ifft`, `rfft`,
//! `irfft`, `hfft`, `ihfft`, their 2-d and N-d forms, `fftfreq`, `rfftfreq`, `fftshift` and
//! `ifftshift`, on the device's FFT library (cuFFT, hipFFT, or `rustfft`/`realfft` on the
//! CPU) through the contract's `FftLib`, with plans kept in a per-device cache
//! ([`config::get_plan_cache`]).
//!
//! Also `scipy.fft`'s functions that NumPy lacks (CuPy's `cupyx.scipy.fft`): the real
//! trigonometric transforms [`dct`], [`idct`], [`dst`], [`idst`] (types 1-4) and their N-d
//! forms [`dctn`], [`idctn`], [`dstn`], [`idstn`] (module `trig`: Makhoul's algorithm and its
//! relatives, one FFT each), the fast Hankel transform [`fht`], [`ifht`] and [`fhtoffset`]
//! (module `hankel`: Hamilton's FFTLog), the Hermitian N-d transforms [`hfft2`], [`ihfft2`],
//! [`hfftn`], [`ihfftn`], and [`next_fast_len`] / [`prev_fast_len`] with the lengths of
//! SciPy's pocketfft backend.
//!
//! # NumPy's rules, and the choices where NumPy leaves room
//! - Result dtypes follow NumPy 2: single precision stays single (float32, float16 and
//!   complex64 inputs give complex64; `irfft` of complex64 gives float32); float64,
//!   complex128, integers and bool give complex128 / float64. `rfft` of a complex array is a
//!   `DType` error (NumPy raises `TypeError`).
//! - `n` / `s` zero-pad or truncate each transformed axis; `n = 0` is a `Value` error ("Invalid
//!   number of FFT data points"); an axis out of range is an `Axis` error; a transformed axis of
//!   length 0 with no `n` is a `Value` error, as NumPy.
//! - `norm` is `None`, `"backward"`, `"ortho"` or `"forward"`; anything else is a `Value`
//!   error.
//! - SciPy's `hfftn`/`ihfftn` are [`irfftn`] of the conjugate / the conjugate of [`rfftn`]
//!   with the opposite normalisation (so float32 gives float32 / complex64), over the last two
//!   axes by default for the `2` forms.
//! - Results are new arrays. A transform along an axis that is neither the first nor the
//!   last of a stacked array may come back as a transposed view (NumPy's values; its strides
//!   are the copy's).
//!
//! # How transforms map onto plans
//! Transforms over the trailing axes of a C-contiguous array (up to three) are one plan of
//! that rank, batched over the leading axes; a single other axis is a strided plan batched
//! over the later axes (looped over the earlier ones when there are few), and otherwise the
//! axis is moved last by one transposing copy. Each execution runs on the current stream, its
//! work area borrowed from the memory pool.

pub mod config;
mod hankel;
mod trig;

use std::sync::Arc;

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, FftDesc, FftKind, Result};

use crate::exec::current_stream;
use crate::layout::{normalize_axis, SliceArg};
use crate::{concatenate, Array};

pub use config::{get_plan_cache, PlanCache, PlanCacheStats};
pub use hankel::{fht, fhtoffset, ifht};
pub use trig::{dct, dctn, dst, dstn, idct, idctn, idst, idstn};

/// The most earlier-axis iterations run as separate executions of one strided plan before
/// the axis is moved last by a copy instead.
const MAX_LOOPED: usize = 16;

// ---- norms and dtypes -------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Norm {
    Backward,
    Ortho,
    Forward,
}

impl Norm {
    fn parse(op: &str, norm: Option<&str>) -> Result<Norm> {
        match norm {
            None | Some("backward") => Ok(Norm::Backward),
            Some("ortho") => Ok(Norm::Ortho),
            Some("forward") => Ok(Norm::Forward),
            Some(other) => Err(Error::value(
                op,
                format!("Invalid norm value {other:?}; should be \"backward\", \"ortho\" or \"forward\""),
            )),
        }
    }

    /// NumPy's name of the convention.
    fn name(self) -> &'static str {
        match self {
            Norm::Backward => "backward",
            Norm::Ortho => "ortho",
            Norm::Forward => "forward",
        }
    }

    /// `hfft`/`ihfft` run the opposite transform with the opposite convention.
    fn swapped(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Forward => Norm::Backward,
            Norm::Ortho => Norm::Ortho,
        }
    }

    /// The factor for a transform of `n` points in direction `forward`, if not 1.
    fn scale(self, forward: bool, n: usize) -> Option<f64> {
        match (self, forward) {
            (Norm::Ortho, _) => Some(1.0 / (n as f64).sqrt()),
            (Norm::Backward, false) | (Norm::Forward, true) => Some(1.0 / n as f64),
            _ => None,
        }
    }
}

fn apply_norm(a: Array, norm: Norm, forward: bool, n: usize) -> Result<Array> {
    match norm.scale(forward, n) {
        Some(f) if f != 1.0 => a.mul_scalar(f),
        _ => Ok(a),
    }
}

/// Whether `dtype` computes in single precision.
fn single(dtype: DType) -> bool {
    matches!(dtype, DType::F16 | DType::BF16 | DType::F32 | DType::C64)
}

fn complex_of(a: &Array) -> DType {
    if single(a.dtype()) {
        DType::C64
    } else {
        DType::C128
    }
}

fn real_input(op: &str, a: &Array) -> Result<DType> {
    if a.dtype().kind() == DTypeKind::Complex {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("{op} takes real input, not {} (take .real, or use fft)", a.dtype()),
        });
    }
    Ok(if single(a.dtype()) { DType::F32 } else { DType::F64 })
}

/// `a` as `dtype`: itself when it already is (`astype` always copies).
fn to(a: &Array, dtype: DType) -> Result<Array> {
    if a.dtype() == dtype {
        Ok(a.clone())
    } else {
        a.astype(dtype)
    }
}

fn real_of_complex(dtype: DType) -> DType {
    if dtype == DType::C64 {
        DType::F32
    } else {
        DType::F64
    }
}

// ---- shapes -----------------------------------------------------------------------------------

fn check_n(op: &str, n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::value(op, "Invalid number of FFT data points (0) specified"));
    }
    Ok(())
}

/// `a` with axis `axis` cut or zero-padded to `m` elements.
fn resize_axis(a: &Array, axis: usize, m: usize) -> Result<Array> {
    let len = a.shape()[axis];
    if len == m {
        return Ok(a.clone());
    }
    let range = |stop: usize| {
        let mut s = vec![SliceArg::Range { start: None, stop: None, step: None }; a.ndim()];
        s[axis] = SliceArg::Range { start: None, stop: Some(stop as isize), step: None };
        s
    };
    if m < len {
        return a.slice(&range(m));
    }
    let mut shape = a.shape().to_vec();
    shape[axis] = m;
    let out = Array::full_on(&a.device_arc(), &shape, 0, a.dtype())?;
    if len > 0 {
        a.copy_into(&out.slice(&range(len))?)?;
    }
    Ok(out)
}

/// Axes and lengths of an N-d transform from NumPy's `s` and `axes` (`op` names the caller):
/// the last `s.len()` axes when only `s` is given, every axis when neither is.
fn nd_axes(op: &str, a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>) -> Result<(Vec<usize>, Vec<usize>)> {
    let nd = a.ndim();
    let axes: Vec<usize> = match (axes, s) {
        (Some(ax), _) => ax.iter().map(|&x| normalize_axis(op, x, nd)).collect::<Result<_>>()?,
        (None, Some(s)) => {
            if s.len() > nd {
                return Err(Error::value(op, format!("s {s:?} has more entries than the array has dimensions ({nd})")));
            }
            (nd - s.len()..nd).collect()
        }
        (None, None) => (0..nd).collect(),
    };
    let lens = match s {
        Some(s) => {
            if s.len() != axes.len() {
                return Err(Error::value(op, format!("shape s {s:?} and axes {axes:?} have different lengths")));
            }
            s.to_vec()
        }
        None => axes.iter().map(|&x| a.shape()[x]).collect(),
    };
    for &m in &lens {
        check_n(op, m)?;
    }
    Ok((axes, lens))
}

fn shape_len(op: &str, a: &Array, axis: isize, n: Option<usize>) -> Result<(usize, usize)> {
    if a.ndim() == 0 {
        return Err(Error::Axis { op: op.into(), reason: "a 0-d array has no axis to transform".into() });
    }
    let ax = normalize_axis(op, axis, a.ndim())?;
    let m = n.unwrap_or(a.shape()[ax]);
    check_n(op, m)?;
    Ok((ax, m))
}

// ---- execution --------------------------------------------------------------------------------

/// Run the plan of `desc` from `x` to `out`, `shift` elements (of each) further, once per
/// entry of `shifts`.
fn execute(x: &Array, out: &Array, desc: &FftDesc, shifts: &[(usize, usize)], forward: bool) -> Result<()> {
    let device = x.device_arc();
    let lib = device.fft()?;
    let plan = config::plan_cache_of(&device).get_or_make(desc, || lib.plan(desc))?;
    let stream = current_stream(&device);
    let work = match plan.work_size() {
        0 => None,
        w => Some(device.alloc(w, &stream)?),
    };
    let (xo, oo) = (x.layout().offset() * x.itemsize(), out.layout().offset() * out.itemsize());
    for &(si, so) in shifts {
        plan.execute(
            &stream,
            (x.storage.buffer()?, xo + si * x.itemsize()),
            (out.storage.buffer_for_write()?, oo + so * out.itemsize()),
            work.as_ref(),
            forward,
        )?;
    }
    Ok(())
}

/// A plan description over dims `dims` (extents `n` of the real signal) of contiguous arrays
/// whose per-transform extents are `ie` / `oe`, batched `batch` times at distance
/// `prod(ie)` / `prod(oe)`, or strided by `inner` with the batch running along it.
fn desc(kind: FftKind, double: bool, n: Vec<usize>, ie: &[usize], oe: &[usize], batch: usize, inner: usize) -> FftDesc {
    let (ip, op): (usize, usize) = (ie.iter().product(), oe.iter().product());
    let (istride, idist, ostride, odist) = if inner == 1 { (1, ip, 1, op) } else { (inner, 1, inner, 1) };
    FftDesc { kind, double, n, batch, inembed: ie.to_vec(), istride, idist, onembed: oe.to_vec(), ostride, odist }
}

/// A 1-d transform of kind `kind` along `axis` of the C-contiguous `x`, into a new array of
/// dtype `out_dtype` whose axis has `out_len` elements; `n` is the signal length.
fn along_axis(
    x: &Array,
    axis: usize,
    kind: FftKind,
    n: usize,
    out_dtype: DType,
    out_len: usize,
    forward: bool,
) -> Result<Array> {
    let shape = x.shape().to_vec();
    let (outer, inner): (usize, usize) = (shape[..axis].iter().product(), shape[axis + 1..].iter().product());
    let mut oshape = shape.clone();
    oshape[axis] = out_len;
    let out = Array::empty_on(&x.device_arc(), &oshape, out_dtype)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let double = out_dtype.size() == 16 || out_dtype == DType::F64;
    let (il, ol) = (shape[axis], out_len);
    if inner == 1 {
        let d = desc(kind, double, vec![n], &[il], &[ol], outer, 1);
        execute(x, &out, &d, &[(0, 0)], forward)?;
    } else if outer <= MAX_LOOPED {
        let d = desc(kind, double, vec![n], &[il], &[ol], inner, inner);
        let shifts: Vec<_> = (0..outer).map(|o| (o * il * inner, o * ol * inner)).collect();
        execute(x, &out, &d, &shifts, forward)?;
    } else {
        // Move the axis last with one copy, transform, and hand back the view in the
        // original axis order.
        let nd = shape.len() as isize;
        let mut perm: Vec<isize> = (0..nd).filter(|&d| d != axis as isize).collect();
        perm.push(axis as isize);
        let moved = x.permute(&perm)?.ascontiguous()?;
        let r = along_axis(&moved, shape.len() - 1, kind, n, out_dtype, out_len, forward)?;
        let mut back = vec![0isize; shape.len()];
        for (i, &p) in perm.iter().enumerate() {
            back[p as usize] = i as isize;
        }
        return r.permute(&back);
    }
    Ok(out)
}

/// How many of `axes` (from the end) are the array's trailing axes in order: the rank of
/// the one plan that can do them (at most 3). The axes it counts are distinct.
fn trailing_rank(axes: &[usize], ndim: usize) -> usize {
    let mut k = 0;
    while k < axes.len().min(3) && axes[axes.len() - 1 - k] == ndim - 1 - k {
        k += 1;
    }
    k
}

/// Complex transforms of the complex `x` along `axes` (in order; an axis may repeat).
fn c2c(x: &Array, axes: &[usize], forward: bool) -> Result<Array> {
    let mut x = x.ascontiguous()?;
    let nd = x.ndim();
    let mut rest = axes.to_vec();
    // The trailing axes at the end of the list (distinct by construction): one plan.
    let k = trailing_rank(axes, nd);
    if k >= 2 {
        let shape = x.shape().to_vec();
        let dims = shape[nd - k..].to_vec();
        let batch: usize = shape[..nd - k].iter().product();
        let out = Array::empty_on(&x.device_arc(), &shape, x.dtype())?;
        if out.size() > 0 {
            let d = desc(FftKind::C2C, x.dtype() == DType::C128, dims.clone(), &dims, &dims, batch, 1);
            execute(&x, &out, &d, &[(0, 0)], forward)?;
        }
        x = out;
        rest.truncate(axes.len() - k);
    }
    for &ax in rest.iter().rev() {
        let n = x.shape()[ax];
        x = along_axis(&x.ascontiguous()?, ax, FftKind::C2C, n, x.dtype(), n, forward)?;
    }
    Ok(x)
}

// ---- 1-d transforms ---------------------------------------------------------------------------

fn complex_1d(op: &str, a: &Array, n: Option<usize>, axis: isize, norm: Option<&str>, forward: bool) -> Result<Array> {
    let norm = Norm::parse(op, norm)?;
    let (ax, m) = shape_len(op, a, axis, n)?;
    let x = resize_axis(&to(a, complex_of(a))?, ax, m)?;
    apply_norm(c2c(&x, &[ax], forward)?, norm, forward, m)
}

/// NumPy's `fft.fft`: the 1-d discrete Fourier transform along `axis` (-1 in NumPy),
/// zero-padded or cut to `n` points.
pub fn fft(a: &Array, n: Option<usize>, axis: isize, norm: Option<&str>) -> Result<Array> {
    complex_1d("fft", a, n, axis, norm, true)
}

/// NumPy's `fft.ifft`: the inverse of [`fft`].
pub fn ifft(a: &Array, n: Option<usize>, axis: isize, norm: Option<&str>) -> Result<Array> {
    complex_1d("ifft", a, n, axis, norm, false)
}

/// The half spectrum of real input along `ax` over `m` points.
fn r2c_axis(op: &str, a: &Array, ax: usize, m: usize) -> Result<Array> {
    let real = real_input(op, a)?;
    let x = resize_axis(&to(a, real)?, ax, m)?.ascontiguous()?;
    let cdt = if real == DType::F32 { DType::C64 } else { DType::C128 };
    along_axis(&x, ax, FftKind::R2C, m, cdt, m / 2 + 1, true)
}

/// NumPy's `fft.rfft`: the non-negative frequency terms (`n/2 + 1` of them) of the transform
/// of real input.
pub fn rfft(a: &Array, n: Option<usize>, axis: isize, norm: Option<&str>) -> Result<Array> {
    let norm = Norm::parse("rfft", norm)?;
    let (ax, m) = shape_len("rfft", a, axis, n)?;
    apply_norm(r2c_axis("rfft", a, ax, m)?, norm, true, m)
}

/// A fresh contiguous copy of `x` (the library may overwrite a C2R input).
fn fresh(x: Array, original: &Array) -> Result<Array> {
    if x.shares_buffer(original) {
        x.copy()
    } else {
        x.ascontiguous()
    }
}

/// The real signal of `m` points along `ax` from its half spectrum in `a`.
fn c2r_axis(a: &Array, ax: usize, m: usize) -> Result<Array> {
    let cdt = complex_of(a);
    let x = fresh(resize_axis(&to(a, cdt)?, ax, m / 2 + 1)?, a)?;
    along_axis(&x, ax, FftKind::C2R, m, real_of_complex(cdt), m, false)
}

/// NumPy's `fft.irfft`: the inverse of [`rfft`]; `n` (the output length) defaults to
/// `2 * (len - 1)`.
pub fn irfft(a: &Array, n: Option<usize>, axis: isize, norm: Option<&str>) -> Result<Array> {
    let norm = Norm::parse("irfft", norm)?;
    let (ax, _) = shape_len("irfft", a, axis, Some(1))?;
    let m = n.unwrap_or(2 * a.shape()[ax].saturating_sub(1));
    check_n("irfft", m)?;
    apply_norm(c2r_axis(a, ax, m)?, norm, false, m)
}

/// NumPy's `fft.hfft`: the transform of a signal with Hermitian symmetry given by its first
/// half; `n` defaults to `2 * (len - 1)`.
pub fn hfft(a: &Array, n: Option<usize>, axis: isize, norm: Option<&str>) -> Result<Array> {
    let norm = Norm::parse("hfft", norm)?.swapped();
    let (ax, _) = shape_len("hfft", a, axis, Some(1))?;
    let m = n.unwrap_or(2 * a.shape()[ax].saturating_sub(1));
    check_n("hfft", m)?;
    let conj = to(a, complex_of(a))?.conj()?;
    apply_norm(c2r_axis(&conj, ax, m)?, norm, false, m)
}

/// NumPy's `fft.ihfft`: the inverse of [`hfft`].
pub fn ihfft(a: &Array, n: Option<usize>, axis: isize, norm: Option<&str>) -> Result<Array> {
    let norm = Norm::parse("ihfft", norm)?.swapped();
    let (ax, m) = shape_len("ihfft", a, axis, n)?;
    apply_norm(r2c_axis("ihfft", a, ax, m)?, norm, true, m)?.conj()
}

// ---- N-d transforms ---------------------------------------------------------------------------

fn complex_nd(
    op: &str,
    a: &Array,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    forward: bool,
) -> Result<Array> {
    let norm = Norm::parse(op, norm)?;
    let (axes, lens) = nd_axes(op, a, s, axes)?;
    let mut x = to(a, complex_of(a))?;
    for (&ax, &m) in axes.iter().zip(&lens) {
        x = resize_axis(&x, ax, m)?;
    }
    let total: usize = lens.iter().product();
    apply_norm(c2c(&x, &axes, forward)?, norm, forward, total)
}

/// NumPy's `fft.fftn`: the N-d transform over `axes` (all when `None`; the last `len(s)`
/// when only `s` is given), each axis padded or cut to `s`.
pub fn fftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    complex_nd("fftn", a, s, axes, norm, true)
}

/// NumPy's `fft.ifftn`: the inverse of [`fftn`].
pub fn ifftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    complex_nd("ifftn", a, s, axes, norm, false)
}

const LAST_TWO: [isize; 2] = [-2, -1];

/// NumPy's `fft.fft2`: [`fftn`] over the last two axes by default.
pub fn fft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    complex_nd("fft2", a, s, Some(axes.unwrap_or(&LAST_TWO)), norm, true)
}

/// NumPy's `fft.ifft2`: [`ifftn`] over the last two axes by default.
pub fn ifft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    complex_nd("ifft2", a, s, Some(axes.unwrap_or(&LAST_TWO)), norm, false)
}

/// NumPy's `fft.rfftn`: [`rfft`] over the last of `axes`, then [`fftn`] over the others.
pub fn rfftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    rfftn_as("rfftn", a, s, axes, norm)
}

fn rfftn_as(op: &str, a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    let norm = Norm::parse(op, norm)?;
    let real = real_input(op, a)?;
    let (axes, lens) = nd_axes(op, a, s, axes)?;
    if axes.is_empty() {
        return a.astype(if real == DType::F32 { DType::C64 } else { DType::C128 });
    }
    let total: usize = lens.iter().product();
    let mut x = to(a, real)?;
    for (&ax, &m) in axes.iter().zip(&lens) {
        x = resize_axis(&x, ax, m)?;
    }
    let nd = x.ndim();
    let k = trailing_rank(&axes, nd);
    let last = axes.len() - 1;
    let y = if k >= 2 {
        // One real plan over the trailing k axes.
        let x = x.ascontiguous()?;
        let shape = x.shape().to_vec();
        let dims = shape[nd - k..].to_vec();
        let mut half = dims.clone();
        half[k - 1] = dims[k - 1] / 2 + 1;
        let mut oshape = shape[..nd - k].to_vec();
        oshape.extend_from_slice(&half);
        let cdt = if real == DType::F32 { DType::C64 } else { DType::C128 };
        let out = Array::empty_on(&x.device_arc(), &oshape, cdt)?;
        if out.size() > 0 {
            let batch: usize = shape[..nd - k].iter().product();
            let d = desc(FftKind::R2C, real == DType::F64, dims.clone(), &dims, &half, batch, 1);
            execute(&x, &out, &d, &[(0, 0)], true)?;
        }
        c2c(&out, &axes[..axes.len() - k], true)?
    } else {
        let h = r2c_axis(op, &x, axes[last], lens[last])?;
        c2c(&h, &axes[..last], true)?
    };
    apply_norm(y, norm, true, total)
}

/// NumPy's `fft.rfft2`: [`rfftn`] over the last two axes by default.
pub fn rfft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    rfftn_as("rfft2", a, s, Some(axes.unwrap_or(&LAST_TWO)), norm)
}

/// NumPy's `fft.irfftn`: [`ifftn`] over all but the last of `axes`, then [`irfft`] over the
/// last; the last output length defaults to `2 * (len - 1)`.
pub fn irfftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    irfftn_as("irfftn", a, s, axes, norm)
}

fn irfftn_as(op: &str, a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    let norm = Norm::parse(op, norm)?;
    let (axes, mut lens) = nd_axes(op, a, s, axes)?;
    if axes.is_empty() {
        return Err(Error::value(op, "no axes to transform"));
    }
    let last = axes.len() - 1;
    if s.is_none() {
        lens[last] = 2 * a.shape()[axes[last]].saturating_sub(1);
        check_n(op, lens[last])?;
    }
    let total: usize = lens.iter().product();
    let cdt = complex_of(a);
    let mut x = to(a, cdt)?;
    for (i, (&ax, &m)) in axes.iter().zip(&lens).enumerate() {
        x = resize_axis(&x, ax, if i == last { m / 2 + 1 } else { m })?;
    }
    let nd = x.ndim();
    let k = trailing_rank(&axes, nd);
    let y = if k >= 2 {
        // The earlier axes first, then one real plan over the trailing k.
        let x = fresh(c2c(&x, &axes[..axes.len() - k], false)?, a)?;
        let shape = x.shape().to_vec();
        let dims = lens[axes.len() - k..].to_vec();
        let half = shape[nd - k..].to_vec();
        let mut oshape = shape[..nd - k].to_vec();
        oshape.extend_from_slice(&dims);
        let out = Array::empty_on(&x.device_arc(), &oshape, real_of_complex(cdt))?;
        if out.size() > 0 {
            let batch: usize = shape[..nd - k].iter().product();
            let d = desc(FftKind::C2R, cdt == DType::C128, dims.clone(), &half, &dims, batch, 1);
            execute(&x, &out, &d, &[(0, 0)], false)?;
        }
        out
    } else {
        let h = c2c(&x, &axes[..last], false)?;
        c2r_axis(&h, axes[last], lens[last])?
    };
    apply_norm(y, norm, false, total)
}

/// NumPy's `fft.irfft2`: [`irfftn`] over the last two axes by default.
pub fn irfft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    irfftn_as("irfft2", a, s, Some(axes.unwrap_or(&LAST_TWO)), norm)
}

/// SciPy's `fft.hfftn`: the N-d transform of a signal with Hermitian symmetry given by the
/// half spectrum along the last of `axes` ([`irfftn`] of the conjugate with the opposite
/// normalisation); the last output length defaults to `2 * (len - 1)`.
pub fn hfftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    hfftn_as("hfftn", a, s, axes, norm)
}

fn hfftn_as(op: &str, a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    let norm = Norm::parse(op, norm)?.swapped();
    let conj = to(a, complex_of(a))?.conj()?;
    irfftn_as(op, &conj, s, axes, Some(norm.name()))
}

/// SciPy's `fft.hfft2`: [`hfftn`] over the last two axes by default.
pub fn hfft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    hfftn_as("hfft2", a, s, Some(axes.unwrap_or(&LAST_TWO)), norm)
}

/// SciPy's `fft.ihfftn`: the inverse of [`hfftn`] (the conjugate of [`rfftn`] with the
/// opposite normalisation); float32 gives complex64.
pub fn ihfftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    ihfftn_as("ihfftn", a, s, axes, norm)
}

fn ihfftn_as(op: &str, a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    let norm = Norm::parse(op, norm)?.swapped();
    rfftn_as(op, a, s, axes, Some(norm.name()))?.conj()
}

/// SciPy's `fft.ihfft2`: [`ihfftn`] over the last two axes by default.
pub fn ihfft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Option<&str>) -> Result<Array> {
    ihfftn_as("ihfft2", a, s, Some(axes.unwrap_or(&LAST_TWO)), norm)
}

// ---- fast lengths -----------------------------------------------------------------------------

/// The lengths whose factors are all in `primes`, searched by `keep` (SciPy's pocketfft
/// backend: 2, 3, 5 for real transforms, also 7 and 11 for complex ones).
fn smooth_primes(real: bool) -> &'static [u128] {
    if real {
        &[2, 3, 5]
    } else {
        &[2, 3, 5, 7, 11]
    }
}

/// Every product of `primes` up to `limit`, calling `f` on each.
fn each_smooth(primes: &[u128], limit: u128, acc: u128, f: &mut impl FnMut(u128)) {
    match primes.split_first() {
        None => f(acc),
        Some((&p, rest)) => {
            let mut v = acc;
            while v <= limit {
                each_smooth(rest, limit, v, f);
                v *= p;
            }
        }
    }
}

/// The largest length SciPy's pocketfft backend takes in `next_fast_len`.
const MAX_FAST_TARGET: usize = usize::MAX / 11;

/// SciPy's `fft.next_fast_len`: the smallest length `≥ target` that the FFTs handle fastest,
/// SciPy's pocketfft choice: a product of 2, 3 and 5 when `real`, of 2, 3, 5, 7 and 11
/// otherwise (`0` gives `0`). A target beyond `usize::MAX / 11` is a `Value` error.
pub fn next_fast_len(target: usize, real: bool) -> Result<usize> {
    if target > MAX_FAST_TARGET {
        return Err(Error::value("next_fast_len", format!("Target length is too large to perform an FFT: {target}")));
    }
    if target <= 1 {
        return Ok(target);
    }
    let t = target as u128;
    let mut best = t.next_power_of_two();
    each_smooth(smooth_primes(real), best, 1, &mut |v| {
        if v >= t && v < best {
            best = v;
        }
    });
    Ok(best as usize)
}

/// SciPy's `fft.prev_fast_len`: the largest length `≤ target` of the kind
/// [`next_fast_len`] picks (`0` gives `0`).
pub fn prev_fast_len(target: usize, real: bool) -> Result<usize> {
    if target <= 1 {
        return Ok(target);
    }
    let t = target as u128;
    let mut best = 1u128;
    each_smooth(smooth_primes(real), t, 1, &mut |v| {
        if v <= t && v > best {
            best = v;
        }
    });
    Ok(best as usize)
}

// ---- helpers ----------------------------------------------------------------------------------

fn freq(device: &Arc<dyn DynDevice>, k: impl Iterator<Item = i64>, val: f64) -> Result<Array> {
    let v: Vec<f64> = k.map(|k| k as f64 * val).collect();
    let len = v.len();
    Array::from_slice_on(device, &v, &[len])
}

/// NumPy's `fft.fftfreq`: the sample frequencies `[0, 1, …, n/2 - 1, -n/2, …, -1] / (d n)`
/// (float64) on the current device.
pub fn fftfreq(n: usize, d: f64) -> Result<Array> {
    check_n("fftfreq", n)?;
    let half = (n as i64 - 1) / 2 + 1;
    let k = (0..half).chain(-(n as i64 / 2)..0);
    freq(&crate::current_device()?, k, 1.0 / (n as f64 * d))
}

/// NumPy's `fft.rfftfreq`: `[0, 1, …, n/2] / (d n)` (float64) on the current device.
pub fn rfftfreq(n: usize, d: f64) -> Result<Array> {
    check_n("rfftfreq", n)?;
    freq(&crate::current_device()?, 0..(n as i64 / 2 + 1), 1.0 / (n as f64 * d))
}

/// `x` rolled by `shift` along each of `axes` (every axis when `None`).
fn roll_axes(op: &str, x: &Array, axes: Option<&[isize]>, shift: impl Fn(usize) -> usize) -> Result<Array> {
    let axes: Vec<usize> = match axes {
        Some(ax) => ax.iter().map(|&a| normalize_axis(op, a, x.ndim())).collect::<Result<_>>()?,
        None => (0..x.ndim()).collect(),
    };
    let mut y = x.clone();
    for ax in axes {
        let n = y.shape()[ax];
        let s = shift(n) % n.max(1);
        if s == 0 {
            continue;
        }
        let part = |start: usize, stop: usize| {
            let mut args = vec![SliceArg::Range { start: None, stop: None, step: None }; y.ndim()];
            args[ax] = SliceArg::Range { start: Some(start as isize), stop: Some(stop as isize), step: None };
            y.slice(&args)
        };
        let (head, tail) = (part(n - s, n)?, part(0, n - s)?);
        y = concatenate(&[&head, &tail], ax as isize)?;
    }
    if y.shares_buffer(x) {
        y = y.copy()?;
    }
    Ok(y)
}

/// NumPy's `fft.fftshift`: the zero frequency moved to the centre (each axis rolled by
/// `n/2`).
pub fn fftshift(x: &Array, axes: Option<&[isize]>) -> Result<Array> {
    roll_axes("fftshift", x, axes, |n| n / 2)
}

/// NumPy's `fft.ifftshift`: the inverse of [`fftshift`] (each axis rolled by `-(n/2)`).
pub fn ifftshift(x: &Array, axes: Option<&[isize]>) -> Result<Array> {
    roll_axes("ifftshift", x, axes, |n| n - n / 2)
}
