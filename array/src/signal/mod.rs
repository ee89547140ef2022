//! Convolution and correlation: SciPy's `scipy.signal` (`convolve2d`, `correlate2d`,
//! `convolve`, `correlate`, `fftconvolve`, `oaconvolve`, `choose_conv_method`) and NumPy's 1-d
//! `convolve` and `correlate` ([`numpy`], also at `xp::convolve` and `xp::correlate`).
//!
//! Filtering: [`lfilter`], [`lfilter_zi`], [`filtfilt`], [`sosfilt`], [`sosfilt_zi`],
//! [`sosfiltfilt`] (recursions along lines: on GPUs a blocked parallel scan, on the CPU one
//! thread per line; [`lfilter_with`] and [`sosfilt_with`] choose); [`savgol_coeffs`],
//! [`savgol_filter`]; [`medfilt`], [`medfilt2d`], [`wiener`]; [`hilbert`], [`resample`],
//! [`upfirdn`]; peaks and extrema ([`find_peaks`], [`peak_prominences`], [`peak_widths`],
//! [`argrelextrema`], [`argrelmax`], [`argrelmin`], [`correlation_lags`]); B-splines
//! ([`cspline1d`], [`qspline1d`], [`cspline1d_eval`], [`qspline1d_eval`], [`cspline2d`],
//! [`qspline2d`], [`spline_filter`], [`sepfir2d`], [`gauss_spline`], [`symiirorder1`],
//! [`symiirorder2`]); filter order selection ([`buttord`], [`cheb1ord`], [`cheb2ord`],
//! [`ellipord`], [`kaiserord`], [`iirdesign`]); analog transforms and responses ([`lp2lp`],
//! [`lp2hp`], [`lp2bp`], [`lp2bs`], their `_zpk` forms, [`bilinear`], [`bilinear_zpk`],
//! [`freqs`], [`freqs_zpk`]); [`iircomb`], [`gammatone`], [`minimum_phase`]. Each file's docs give its algorithms and
//! where host work is used.
//!
//! **Direct methods** run one kernel family (`xp_kernels::signal`): every direct convolution
//! is a correlation with the taps flipped (convolution) or conjugated (correlation) on the
//! device beforehand, an output start per dimension that the mode gives, and a boundary rule.
//! On GPUs 2-d inputs run a kernel tiled through shared memory (each input element read once
//! per block); on the CPU a barrier-free kernel builds each output row by one vectorisable
//! pass per tap; other ranks, and 2-d kernels whose taps and halo do not fit a GPU block's
//! 48 KiB of shared memory, run a generic N-d kernel that reads the input once per tap.
//!
//! **FFT methods**: `fftconvolve` multiplies `rfftn`/`fftn` spectra of 5-smooth lengths and
//! crops as SciPy's `_centered`; `oaconvolve` cuts the longest axis (relative to the kernel)
//! into blocks that one batched FFT convolves, and adds each block's tail to the next, when
//! its cost model says blocks are cheaper than one transform of everything.
//!
//! **Modes** ([`Mode`]) follow the function they mirror, including where SciPy and NumPy
//! differ: `'same'` keeps the first input's shape, centred as `scipy.signal.convolve` (output
//! `i` is full output `i + (m - 1) / 2`) except in `correlate2d`, whose even kernels centre one
//! step the other way, as SciPy's `correlate2d` does; `'valid'` swaps the inputs when the
//! second is the larger in every dimension (SciPy's rule, and its error when neither is),
//! with `correlate` and `correlate2d` reversing (and `correlate`, conjugating) the result as
//! SciPy does. NumPy's 1-d functions swap so the longer input comes first.
//!
//! **Boundaries** ([`Boundary`], `convolve2d` and `correlate2d` only): `fill` pads with
//! `fillvalue`; `wrap` is periodic; `symm` reflects including the edge (`x[-1] = x[0]`), with
//! period `2n` when the kernel is wider than the input — SciPy's results in every case.
//!
//! **dtypes**: the result dtype is NumPy's promotion of the two inputs. Direct methods keep
//! integers as integers, computing with wrap-around as NumPy's integer loops do; float16 and
//! bfloat16 compute in float32 and round back; bool is `UnsupportedDType`. FFT methods give
//! float64 for integer inputs (float32 stays float32, complex stays complex), as SciPy.
//!
//! **`Method::Auto`** ([`choose_conv_method`]) follows SciPy's `choose_conv_method`: integers
//! always go direct (exact); otherwise SciPy's operation-count model (`3 N log N` for the
//! three FFTs of the full size `N` against the direct multiply-adds, with SciPy's measured
//! constants) picks the FFT when it predicts it is faster.

mod bsplines;
pub mod design;
mod fftconv;
mod filtering;
mod host;
mod iir_scan;
mod lines;
mod multirate;
mod nonlinear;
pub mod numpy;
mod order;
mod peaks;
mod resample;
mod savgol;
mod special_designs;
pub mod spectral;
mod transforms;
pub mod waveforms;
pub mod windows;

use std::str::FromStr;
use std::sync::Arc;

use xp_backend_api::{DType, DynDevice, Error, Result};
pub use xp_kernels::signal::Boundary;
use xp_kernels::signal::{plan_direct, DirectGeometry};

pub use self::bsplines::{
    cspline1d, cspline1d_eval, cspline2d, gauss_spline, qspline1d, qspline1d_eval, qspline2d, sepfir2d, spline_filter,
    symiirorder1, symiirorder2,
};
pub use self::design::{
    bessel, butter, cheby1, cheby2, ellip, firls, firwin, firwin2, freqz, group_delay, iirfilter, iirnotch, iirpeak,
    kaiser_atten, kaiser_beta, sos2tf, sos2zpk, sosfreqz, tf2sos, tf2zpk, zpk2sos, zpk2tf,
};
pub use self::fftconv::{choose_conv_method, fftconvolve, oaconvolve};
pub use self::filtering::{
    filtfilt, lfilter, lfilter_with, lfilter_zi, sosfilt, sosfilt_with, sosfilt_zi, sosfiltfilt, FiltfiltMethod,
    IirMethod, PadType,
};
pub use self::multirate::{decimate, resample_poly, resample_windowed, DecimateFilter, PolyPad};
pub use self::nonlinear::{medfilt, medfilt2d, wiener, MEDFILT_MAX_WINDOW};
pub use self::order::{buttord, cheb1ord, cheb2ord, ellipord, iirdesign, kaiserord, DesignFamily};
pub use self::peaks::{
    argrelextrema, argrelmax, argrelmin, correlation_lags, find_peaks, peak_prominences, peak_widths, Comparator,
    ExtremaMode, FindPeaksOptions, Interval, Peaks,
};
pub use self::resample::{hilbert, resample, upfirdn};
pub use self::savgol::{savgol_coeffs, savgol_filter, SavgolMode, SavgolUse};
pub use self::special_designs::{gammatone, iircomb, minimum_phase, CombType, GammatoneType, MinimumPhaseMethod};
pub use self::spectral::{
    coherence, csd, czt, detrend, istft, lombscargle, periodogram, spectrogram, stft, welch, zoom_fft,
};
pub use self::transforms::{
    bilinear, bilinear_zpk, freqs, freqs_zpk, lp2bp, lp2bp_zpk, lp2bs, lp2bs_zpk, lp2hp, lp2hp_zpk, lp2lp, lp2lp_zpk,
};
pub use self::waveforms::{chirp, gausspulse, max_len_seq, sawtooth, square, unit_impulse};
pub use self::windows::get_window;
use crate::exec::{run_launches, target_of, Bindings};
use crate::promote::{promote_types, Scalar};
use crate::routines::flip;
use crate::Array;

/// Which part of the full convolution to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Every output where the inputs overlap at all (`n + m - 1` per dimension).
    Full,
    /// The first input's size, centred on the full output.
    Same,
    /// Only outputs where the inputs overlap completely (`|n - m| + 1`).
    Valid,
}

impl FromStr for Mode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Mode> {
        match s {
            "full" => Ok(Mode::Full),
            "same" => Ok(Mode::Same),
            "valid" => Ok(Mode::Valid),
            _ => {
                Err(Error::value("signal", format!("Acceptable mode flags are 'valid', 'same', or 'full'; got '{s}'")))
            }
        }
    }
}

/// How `signal::convolve` and `signal::correlate` compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// Chosen by [`choose_conv_method`].
    #[default]
    Auto,
    /// Sums of products.
    Direct,
    /// Through FFTs ([`fftconvolve`]).
    Fft,
}

impl FromStr for Method {
    type Err = Error;
    fn from_str(s: &str) -> Result<Method> {
        match s {
            "auto" => Ok(Method::Auto),
            "direct" => Ok(Method::Direct),
            "fft" => Ok(Method::Fft),
            _ => Err(Error::value(
                "signal",
                format!("Acceptable method flags are 'auto', 'direct', or 'fft'; got '{s}'"),
            )),
        }
    }
}

/// The dtype the direct kernels compute in for inputs of `a` and `b`, and the result dtype.
fn direct_dtypes(op: &str, a: &Array, b: &Array) -> Result<(DType, DType)> {
    let dt = promote_types(a.dtype(), b.dtype());
    match dt {
        DType::Bool => Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![a.dtype(), b.dtype()],
            detail: "convolution of booleans is not supported; convert to an integer dtype".into(),
        }),
        DType::F16 | DType::BF16 => Ok((DType::F32, dt)),
        _ => Ok((dt, dt)),
    }
}

/// `a` as a C-contiguous array of `dtype`.
fn contiguous_as(a: &Array, dtype: DType) -> Result<Array> {
    if a.dtype() == dtype {
        a.ascontiguous()
    } else {
        a.astype(dtype)?.ascontiguous()
    }
}

fn check_nonempty(op: &str, a: &Array, b: &Array) -> Result<()> {
    if a.size() == 0 || b.size() == 0 {
        return Err(Error::value(op, format!("inputs cannot be empty (shapes {:?} and {:?})", a.shape(), b.shape())));
    }
    Ok(())
}

/// SciPy's `_inputs_swap_needed`: whether `'valid'` must swap the inputs, or its error.
fn valid_swap(op: &str, mode: Mode, s1: &[usize], s2: &[usize]) -> Result<bool> {
    if mode != Mode::Valid {
        return Ok(false);
    }
    let ok1 = s1.iter().zip(s2).all(|(a, b)| a >= b);
    let ok2 = s1.iter().zip(s2).all(|(a, b)| b >= a);
    if !(ok1 || ok2) {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: s1.to_vec(),
            rhs: s2.to_vec(),
            reason: "For 'valid' mode, one must be at least as large as the other in every dimension".into(),
        });
    }
    Ok(!ok1)
}

/// The output shape and per-dimension start of a correlation of an input of shape `n` with
/// taps of shape `m`. `same_back` centres even taps of `'same'` as `correlate2d` does.
fn geometry(mode: Mode, n: &[usize], m: &[usize], same_back: bool) -> (Vec<usize>, Vec<i64>) {
    let (mut oshape, mut off) = (Vec::with_capacity(n.len()), Vec::with_capacity(n.len()));
    for (&n, &m) in n.iter().zip(m) {
        let (o, s) = match mode {
            Mode::Full => (n + m - 1, -(m as i64 - 1)),
            Mode::Same if same_back => (n, -(((m - 1) / 2) as i64)),
            Mode::Same => (n, -((m / 2) as i64)),
            Mode::Valid => (n - m + 1, 0),
        };
        oshape.push(o);
        off.push(s);
    }
    (oshape, off)
}

/// The direct correlation `out[o] = Σ_k x̃[o + off + k] · taps[k]` (taps already flipped or
/// conjugated), in `dtype` and cast to `result`.
#[allow(clippy::too_many_arguments)]
fn correlate_direct(
    op: &str,
    dev: &Arc<dyn DynDevice>,
    x: &Array,
    taps: &Array,
    mode: Mode,
    same_back: bool,
    boundary: Boundary,
    fill: Scalar,
    (dtype, result): (DType, DType),
) -> Result<Array> {
    if matches!(fill, Scalar::Complex(..)) && !dtype.is_complex() {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("could not cast the complex `fillvalue` {fill:?} to the output type {result}"),
        });
    }
    let (oshape, off) = geometry(mode, x.shape(), taps.shape(), same_back);
    let out = Array::empty_on(dev, &oshape, dtype)?;
    if out.size() > 0 {
        let (xc, tc) = (contiguous_as(x, dtype)?, contiguous_as(taps, dtype)?);
        let fill = Array::full_on(dev, &[1], fill, dtype)?;
        let g = DirectGeometry { xshape: x.shape().to_vec(), kshape: taps.shape().to_vec(), oshape, off };
        let plan = plan_direct(dtype, &g, boundary, target_of(dev)).map_err(|e| match e {
            Error::Value { reason, .. } => Error::value(op, reason),
            other => other,
        })?;
        run_launches(
            dev,
            &[plan],
            Bindings { output: Some(&out), operands: &[&xc, &tc, &fill], ..Default::default() },
        )?;
    }
    if result != dtype {
        out.astype(result)
    } else {
        Ok(out)
    }
}

/// Reverse every axis and conjugate (SciPy's `_reverse_and_conj`).
fn reverse_and_conj(a: &Array) -> Result<Array> {
    let f = flip(a, None)?;
    if f.dtype().is_complex() {
        f.conj()
    } else {
        Ok(f)
    }
}

fn conj(a: &Array) -> Result<Array> {
    if a.dtype().is_complex() {
        a.conj()
    } else {
        Ok(a.clone())
    }
}

fn check_2d(op: &str, in1: &Array, in2: &Array) -> Result<()> {
    if in1.ndim() != 2 || in2.ndim() != 2 {
        return Err(Error::value(
            op,
            format!("{op} inputs must both be 2-D arrays, got shapes {:?} and {:?}", in1.shape(), in2.shape()),
        ));
    }
    Ok(())
}

/// SciPy's `convolve2d(in1, in2, mode, boundary, fillvalue)`: the 2-d convolution of `in1`
/// with `in2`, the boundary of `in1` extended by `boundary` (`fillvalue` for
/// [`Boundary::Fill`]). SciPy's defaults are `Mode::Full`, `Boundary::Fill`, `0`.
pub fn convolve2d(
    in1: &Array,
    in2: &Array,
    mode: Mode,
    boundary: Boundary,
    fillvalue: impl Into<Scalar>,
) -> Result<Array> {
    let op = "convolve2d";
    let dev = crate::ufunc::common_device(op, &[in1, in2])?;
    check_2d(op, in1, in2)?;
    let dts = direct_dtypes(op, in1, in2)?;
    check_nonempty(op, in1, in2)?;
    let (a, b) = if valid_swap(op, mode, in1.shape(), in2.shape())? { (in2, in1) } else { (in1, in2) };
    correlate_direct(op, &dev, a, &flip(b, None)?, mode, false, boundary, fillvalue.into(), dts)
}

/// SciPy's `correlate2d(in1, in2, mode, boundary, fillvalue)`: the 2-d cross-correlation,
/// `out[i, j] = Σ in1[i + k, j + l] · conj(in2[k, l])` shifted by the mode. With `'valid'` and
/// `in2` the larger, the inputs swap and the result is reversed, as SciPy's.
pub fn correlate2d(
    in1: &Array,
    in2: &Array,
    mode: Mode,
    boundary: Boundary,
    fillvalue: impl Into<Scalar>,
) -> Result<Array> {
    let op = "correlate2d";
    let dev = crate::ufunc::common_device(op, &[in1, in2])?;
    check_2d(op, in1, in2)?;
    let dts = direct_dtypes(op, in1, in2)?;
    check_nonempty(op, in1, in2)?;
    let swapped = valid_swap(op, mode, in1.shape(), in2.shape())?;
    let (a, b) = if swapped { (in2, in1) } else { (in1, in2) };
    let out = correlate_direct(op, &dev, a, &conj(b)?, mode, true, boundary, fillvalue.into(), dts)?;
    if swapped {
        flip(&out, None)?.ascontiguous()
    } else {
        Ok(out)
    }
}

fn check_same_rank(op: &str, in1: &Array, in2: &Array) -> Result<()> {
    if in1.ndim() != in2.ndim() {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: in1.shape().to_vec(),
            rhs: in2.shape().to_vec(),
            reason: "volume and kernel should have the same dimensionality".into(),
        });
    }
    Ok(())
}

/// SciPy's `signal.convolve(in1, in2, mode, method)`: the N-d convolution (inputs of one
/// rank; 0-d inputs multiply). `Method::Fft` rounds integer results and returns the inputs'
/// dtype, as SciPy.
pub fn convolve(in1: &Array, in2: &Array, mode: Mode, method: Method) -> Result<Array> {
    let op = "convolve";
    let dev = crate::ufunc::common_device(op, &[in1, in2])?;
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return in1.mul(in2);
    }
    check_same_rank(op, in1, in2)?;
    let dts = direct_dtypes(op, in1, in2)?;
    check_nonempty(op, in1, in2)?;
    let (a, b) = if valid_swap(op, mode, in1.shape(), in2.shape())? { (in2, in1) } else { (in1, in2) };
    let method = if method == Method::Auto { choose_conv_method(a, b, mode)? } else { method };
    match method {
        Method::Fft => fft_result(fftconvolve(a, b, mode, None)?, dts.1),
        _ => correlate_direct(op, &dev, a, &flip(b, None)?, mode, false, Boundary::Fill, Scalar::Int(0), dts),
    }
}

/// SciPy's `signal.correlate(in1, in2, mode, method)`: the N-d cross-correlation
/// `out[o] = Σ in1[o + k] · conj(in2[k])` shifted by the mode. With `'valid'` and `in2` the
/// larger, the result is the swapped correlation reversed and conjugated, as SciPy's.
pub fn correlate(in1: &Array, in2: &Array, mode: Mode, method: Method) -> Result<Array> {
    let op = "correlate";
    let dev = crate::ufunc::common_device(op, &[in1, in2])?;
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return in1.mul(&conj(in2)?);
    }
    check_same_rank(op, in1, in2)?;
    let dts = direct_dtypes(op, in1, in2)?;
    check_nonempty(op, in1, in2)?;
    let method = if method == Method::Auto { choose_conv_method(in1, in2, mode)? } else { method };
    match method {
        Method::Fft => convolve(in1, &reverse_and_conj(in2)?, mode, Method::Fft),
        _ => {
            let swapped = valid_swap(op, mode, in1.shape(), in2.shape())?;
            let (a, b) = if swapped { (in2, in1) } else { (in1, in2) };
            let out = correlate_direct(op, &dev, a, &conj(b)?, mode, false, Boundary::Fill, Scalar::Int(0), dts)?;
            if swapped {
                reverse_and_conj(&out)?.ascontiguous()
            } else {
                Ok(out)
            }
        }
    }
}

/// An FFT result as `signal.convolve` returns it: rounded for integer `result` dtypes, cast.
fn fft_result(out: Array, result: DType) -> Result<Array> {
    if out.dtype() == result {
        return Ok(out);
    }
    if result.is_integer() {
        return out.rint()?.astype(result);
    }
    out.astype(result)
}

/// The direct 1-d correlation NumPy's functions share (`a` the longer input, taps prepared).
pub(crate) fn correlate_1d(op: &str, a: &Array, taps: &Array, mode: Mode) -> Result<Array> {
    let dev = crate::ufunc::common_device(op, &[a, taps])?;
    let dts = direct_dtypes(op, a, taps)?;
    correlate_direct(op, &dev, a, taps, mode, false, Boundary::Fill, Scalar::Int(0), dts)
}
