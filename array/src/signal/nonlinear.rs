//! Median and Wiener filters: SciPy's `medfilt`, `medfilt2d` and `wiener`.
//!
//! - `medfilt`/`medfilt2d`: `ndimage`'s median filter in constant mode with zero outside (the
//!   same window, centred, as SciPy's): windows over the last two axes of up to 49 elements
//!   run its tiled kernel (the window in registers, a selection network), larger ones its
//!   general kernel. Windows are limited to [`MEDFILT_MAX_WINDOW`] elements. The dtype is
//!   kept.
//! - `wiener`: the local mean and variance are `correlate`s with a box of `mysize` ('same',
//!   zero padded) on the device, and the noise power, when not given, is the mean local
//!   variance (Lim, *Two-Dimensional Signal and Image Processing*, 1990, eq. 9.44). The
//!   result is float64, as SciPy's.

use xp_backend_api::{DType, Error, Result};

use super::lines::cast;
use crate::{Array, Operand};

/// The most window elements `medfilt` and `medfilt2d` accept.
pub const MEDFILT_MAX_WINDOW: usize = 1024;

fn kernel_sizes(op: &str, ndim: usize, kernel_size: Option<&[usize]>) -> Result<Vec<usize>> {
    let ks = match kernel_size {
        None => vec![3; ndim],
        Some([k]) => vec![*k; ndim],
        Some(k) => k.to_vec(),
    };
    if ks.len() != ndim {
        return Err(Error::value(
            op,
            format!("kernel_size {ks:?} must have one entry per dimension of the input ({ndim})"),
        ));
    }
    if ks.iter().any(|k| k % 2 == 0) {
        return Err(Error::value(op, "Each element of kernel_size should be odd."));
    }
    Ok(ks)
}

/// SciPy's `medfilt(volume, kernel_size)`: the N-d median filter with a window of
/// `kernel_size` (one odd size for every dimension, or one per dimension; default 3), zero
/// beyond the edges. The dtype is kept.
pub fn medfilt(volume: &Array, kernel_size: Option<&[usize]>) -> Result<Array> {
    median_filter("medfilt", volume, kernel_size)
}

/// SciPy's `medfilt2d(input, kernel_size)`: [`medfilt`] of a 2-d array.
pub fn medfilt2d(input: &Array, kernel_size: Option<&[usize]>) -> Result<Array> {
    if input.ndim() != 2 {
        return Err(Error::value("medfilt2d", format!("input must be 2-d, got shape {:?}", input.shape())));
    }
    median_filter("medfilt2d", input, kernel_size)
}

fn median_filter(op: &str, x: &Array, kernel_size: Option<&[usize]>) -> Result<Array> {
    if x.dtype().is_complex() || x.dtype() == DType::Bool {
        return Err(Error::unsupported_dtype(op, x.dtype()));
    }
    if x.ndim() == 0 || x.ndim() > 8 {
        return Err(Error::value(op, format!("the input must have 1 to 8 dimensions, got {}", x.ndim())));
    }
    let ks = kernel_sizes(op, x.ndim(), kernel_size)?;
    let win: usize = ks.iter().product();
    if win > MEDFILT_MAX_WINDOW {
        return Err(Error::value(
            op,
            format!("windows of more than {MEDFILT_MAX_WINDOW} elements are not supported (got {win})"),
        ));
    }
    let dt = match x.dtype() {
        DType::F16 | DType::BF16 => DType::F32,
        d => d,
    };
    let xc = cast(x, dt)?;
    let out = crate::ndimage::filters::median_zero_padded(op, &xc, &ks)?;
    cast(&out, x.dtype())
}

/// SciPy's `wiener(im, mysize, noise)`: the adaptive Wiener filter of the N-d `im` with local
/// windows of `mysize` (one size or one per dimension; default 3) and noise power `noise`
/// (default: the mean local variance). float64 result.
pub fn wiener(im: &Array, mysize: Option<&[usize]>, noise: Option<f64>) -> Result<Array> {
    let op = "wiener";
    if im.dtype().is_complex() {
        return Err(Error::unsupported_dtype(op, im.dtype()));
    }
    let ks = match mysize {
        None => vec![3; im.ndim()],
        Some([k]) => vec![*k; im.ndim()],
        Some(k) => k.to_vec(),
    };
    if ks.len() != im.ndim() {
        return Err(Error::value(op, format!("mysize {ks:?} must have one entry per dimension ({})", im.ndim())));
    }
    let x = cast(im, DType::F64)?;
    let dev = x.device_arc();
    let count: usize = ks.iter().product();
    let ones = Array::full_on(&dev, &ks, 1.0, DType::F64)?;
    let m = super::Mode::Same;
    let meth = super::Method::Direct;
    let lmean = super::correlate(&x, &ones, m, meth)?.mul_scalar(1.0 / count as f64)?;
    let lvar = super::correlate(&x.square()?, &ones, m, meth)?.mul_scalar(1.0 / count as f64)?.sub(&lmean.square()?)?;
    let noise = match noise {
        Some(v) => Array::full_on(&dev, &[], v, DType::F64)?,
        None => lvar.mean(None, false)?,
    };
    let res = x.sub(&lmean)?.mul(&noise.div(&lvar)?.negative()?.add_scalar(1.0)?)?.add(&lmean)?;
    crate::where_(&lvar.lt(&noise)?, Operand::Array(&lmean), Operand::Array(&res))
}
