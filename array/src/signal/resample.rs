//! The analytic signal and rate changes: SciPy's `hilbert`, `resample` (Fourier method) and
//! `upfirdn`.
//!
//! - `hilbert`: the FFT of the signal (`N` points), its negative frequencies zeroed and its
//!   positive ones doubled (Marple, "Computing the discrete-time analytic signal via FFT",
//!   *IEEE Trans. Signal Process.* 47 (1999) 2600), transformed back — xp's FFTs on the device.
//! - `resample`: the spectrum (real FFT for real input) cut or zero-extended to `num` points,
//!   the Nyquist bin of an even length split or merged as SciPy does, transformed back and
//!   scaled by `num / n`. An optional window (an array of `n` frequency-domain weights, DC
//!   first) multiplies the spectrum first (folded onto the one-sided spectrum for real input).
//! - `upfirdn`: the polyphase form of upsample → FIR → downsample: one user kernel computes
//!   each output directly from the taps that meet non-zero upsampled samples
//!   (`y[k] = Σ_j h[j] x[(k·down − j) / up]` over `j ≡ k·down (mod up)`).
//!
//! **dtypes**: `hilbert` gives complex64 for float32 and complex128 otherwise; `resample`
//! keeps float32/complex64 and gives float64 for integers; `upfirdn` gives the result type of
//! `h` and `x` (integers → float64).

use std::sync::OnceLock;

use xp_backend_api::{DType, Error, Result};

use super::lines::{cast, float_type, kernel, last, Lines};
use crate::routines::concatenate;
use crate::{Array, Operand, Scalar};

fn ids(dev: &std::sync::Arc<dyn xp_backend_api::DynDevice>, n: usize) -> Result<Array> {
    crate::with_device(dev, || crate::arange(0i64, n as i64, 1i64, Some(DType::I64)))
}

/// SciPy's `hilbert(x, N, axis)`: the analytic signal `x + i·H(x)` of the real `x` along
/// `axis`, computed with `N` FFT points (default the axis length). SciPy's default axis is -1.
pub fn hilbert(x: &Array, n: Option<usize>, axis: isize) -> Result<Array> {
    let op = "hilbert";
    if x.dtype().is_complex() {
        return Err(Error::value(op, "x must be real."));
    }
    if x.ndim() == 0 {
        return Err(Error::value(op, "x must have at least one dimension"));
    }
    let ax = crate::layout::normalize_axis(op, axis, x.ndim())?;
    let n = n.unwrap_or(x.shape()[ax]);
    if n == 0 {
        return Err(Error::value(op, "N must be positive."));
    }
    let dt = if x.dtype() == DType::F32 { DType::F32 } else { DType::F64 };
    let xf = crate::fft::fft(&cast(x, dt)?, Some(n), ax as isize, None)?;
    let dev = x.device_arc();
    let idx = ids(&dev, n)?;
    let half = n.div_ceil(2) as i64;
    let nyq = if n.is_multiple_of(2) { (n / 2) as i64 } else { -1 };
    let h =
        idx.lt(half)?.astype(dt)?.mul_scalar(2.0)?.sub(&idx.eq(0i64)?.astype(dt)?)?.add(&idx.eq(nyq)?.astype(dt)?)?;
    let mut shape = vec![1isize; x.ndim()];
    shape[ax] = n as isize;
    crate::fft::ifft(&xf.mul(&h.reshape(&shape)?)?, None, ax as isize, None)
}

/// SciPy's `resample(x, num, axis, window)` (the Fourier method; `t` and `domain` are not
/// provided): `x` resampled to `num` samples along `axis`. `window`, when given, is an array
/// of `x.shape[axis]` frequency-domain weights (DC first). SciPy's default axis is 0.
pub fn resample(x: &Array, num: usize, axis: isize, window: Option<&Array>) -> Result<Array> {
    let op = "resample";
    if x.ndim() == 0 {
        return Err(Error::value(op, "x must have at least one dimension"));
    }
    let ax = crate::layout::normalize_axis(op, axis, x.ndim())?;
    let nx = x.shape()[ax];
    let complex = x.dtype().is_complex();
    let dt = match x.dtype() {
        DType::F32 | DType::C64 | DType::C128 | DType::F64 => x.dtype(),
        d if d.is_complex() => DType::C128,
        _ => DType::F64,
    };
    if nx == 0 {
        return Err(Error::value(op, "x must not be empty along axis"));
    }
    let lx = Lines::new(op, x, ax as isize, dt)?;
    let data = &lx.data;
    let mut xs = if complex { crate::fft::fft(data, None, -1, None)? } else { crate::fft::rfft(data, None, -1, None)? };
    let real_dt = if matches!(dt, DType::F32 | DType::C64) { DType::F32 } else { DType::F64 };
    if let Some(w) = window {
        if w.shape() != [nx] {
            return Err(Error::value(op, "window must have the same length as data"));
        }
        let w = cast(w, real_dt)?;
        let w = if complex {
            w
        } else {
            // Fold the two-sided weights onto the one-sided spectrum: W[k] = (W[k] + W[n−k]) / 2.
            let rest = last(&w, Some(1), None, None)?;
            let rev = crate::routines::flip(&rest, None)?;
            let folded = rest.add(&rev)?.mul_scalar(0.5)?;
            let w0 = last(&w, Some(0), Some(1), None)?;
            let full = concatenate(&[&w0, &folded], 0)?;
            last(&full, Some(0), Some(xs.shape()[1] as isize), None)?
        };
        xs = xs.mul(&w.reshape(&[1, -1])?)?;
    }
    let lines = data.shape()[0];
    let dev = x.device_arc();
    let n = num.min(nx);
    let nyq = n / 2 + 1;
    let cdt = xs.dtype();
    let width = if complex { num } else { num / 2 + 1 };
    let mut parts: Vec<Array> = vec![last(&xs, Some(0), Some(nyq.min(xs.shape()[1]) as isize), None)?];
    if complex && n > 2 {
        // the negative frequencies
        let neg = n - nyq;
        let used = nyq + neg;
        if width > used {
            parts.push(Array::full_on(&dev, &[lines, width - used], 0, cdt)?);
        }
        if neg > 0 {
            parts.push(last(&xs, Some(-(neg as isize)), None, None)?);
        }
    } else {
        let used = parts[0].shape()[1];
        if width > used {
            parts.push(Array::full_on(&dev, &[lines, width - used], 0, cdt)?);
        }
    }
    let refs: Vec<&Array> = parts.iter().collect();
    let mut y = concatenate(&refs, 1)?;
    if n.is_multiple_of(2) && num != nx && n > 0 {
        let k = n / 2;
        let idx = ids(&dev, width)?;
        if num < nx {
            if complex {
                // the Nyquist bin gathers both halves: Y[k] += X[nx − k]
                let other = last(&xs, Some((nx - k) as isize), Some((nx - k + 1) as isize), None)?;
                let sel = idx.eq(k as i64)?.astype(cdt)?;
                y = y.add(&sel.mul(&other)?)?;
            } else {
                let f = idx.eq(k as i64)?.astype(real_dt)?.add_scalar(1.0)?;
                y = y.mul(&f)?;
            }
        } else {
            let f = idx.eq(k as i64)?.astype(real_dt)?.mul_scalar(-0.5)?.add_scalar(1.0)?;
            y = y.mul(&f)?;
            if complex {
                // Y[num − k] = Y[k]
                let yk = last(&y, Some(k as isize), Some(k as isize + 1), None)?;
                let sel = idx.eq((num - k) as i64)?.astype(cdt)?;
                y = y.add(&sel.mul(&yk)?)?;
            }
        }
    }
    let out =
        if complex { crate::fft::ifft(&y, Some(num), -1, None)? } else { crate::fft::irfft(&y, Some(num), -1, None)? };
    let out = out.mul_scalar(num as f64 / nx as f64)?;
    let out = cast(&out, dt)?;
    lx.restore(&out)
}

const UPFIRDN: &str = r#"
const long long l = i / nout, k = i % nout;
const long long t = k * down;
T acc = T(0);
long long j = t % up;
long long s = (t - j) / up;
if (s > len - 1) { j += (s - (len - 1)) * up; s = len - 1; }
for (; j < nh && s >= 0; j += up, --s) acc += h[j] * x[l * len + s];
y = acc;
"#;

/// SciPy's `upfirdn(h, x, up, down, axis)`: `x` upsampled by `up` (zeros inserted), filtered
/// by the FIR taps `h`, and downsampled by `down`, along `axis`. The output has
/// `((n − 1)·up + len(h) − 1) / down + 1` samples. SciPy's defaults: `1`, `1`, `-1`.
pub fn upfirdn(h: &Array, x: &Array, up: usize, down: usize, axis: isize) -> Result<Array> {
    let op = "upfirdn";
    if up < 1 || down < 1 {
        return Err(Error::value(op, "Both up and down must be >= 1"));
    }
    if h.ndim() != 1 || h.size() == 0 {
        return Err(Error::value(op, "h must be 1-D with non-zero length"));
    }
    let dt = float_type(&[h.dtype(), x.dtype()]);
    let lx = Lines::new(op, x, axis, dt)?;
    let n = lx.len();
    let nh = h.size();
    let nout = if n == 0 { 0 } else { ((n - 1) * up + nh - 1) / down + 1 };
    let dev = x.device_arc();
    let out = Array::empty_on(&dev, &[lx.count(), nout], dt)?;
    if out.size() > 0 {
        static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
        let kern = kernel(
            &K,
            "raw T h, raw T x, int64 nh, int64 len, int64 nout, int64 up, int64 down",
            "T y",
            UPFIRDN,
            "xp_signal_upfirdn",
        )?;
        let i = |v: usize| Operand::Scalar(Scalar::Int(v as i128));
        kern.call_all(&[
            Operand::Array(&cast(h, dt)?.ascontiguous()?),
            Operand::Array(&lx.data),
            i(nh),
            i(n),
            i(nout),
            i(up),
            i(down),
            Operand::Array(&out),
        ])?;
    }
    lx.restore(&out)
}
