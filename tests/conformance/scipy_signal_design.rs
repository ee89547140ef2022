//! The `signal2` group: SciPy's signal filter design, windows, waveforms and spectral analysis,
//! by name.

use super::*;
use xp::signal::design::{self, BType, Filter, Output, Pairing, PassZero, WorN};
use xp::signal::spectral::{self, BoundaryExt, Detrend, Scaling, SpectralOptions};
use xp::signal::waveforms::{self, ImpulseIndex};
use xp::signal::windows::{self, Window};

/// Runs `signal.<f>` of one case when it is one of this file's ops (`None` otherwise).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    if let Some(name) = f.strip_prefix("windows.") {
        return Some(run_window(case, name));
    }
    let out = match f {
        "get_window" => (|| {
            let w = window_kwarg(case, "window")?.ok_or_else(|| Failure::Case("no window".into()))?;
            let nx = count_kwarg(case, "Nx")?.ok_or_else(|| Failure::Case("no Nx".into()))?;
            Ok(windows::get_window(&w, nx, bool_kwarg(case, "fftbins", true)?)?)
        })(),
        _ => return run_design(case, f, arrays),
    };
    Some(out)
}

fn fail(case: &Case, what: &str) -> Failure {
    Failure::Case(format!("{}: {what}", case.op))
}

/// A window given as a name or `[name, param, ...]`.
fn window_kwarg(case: &Case, key: &str) -> Result<Option<Window>, Failure> {
    let Some(v) = case.kwarg(key) else { return Ok(None) };
    if let Some(s) = v.as_str() {
        return Ok(Some(s.parse()?));
    }
    let items = v.as_array().ok_or_else(|| fail(case, "window is not a name or list"))?;
    let name = items.first().and_then(Value::as_str).ok_or_else(|| fail(case, "window has no name"))?;
    let params: Vec<Option<f64>> = items[1..].iter().map(Value::as_f64).collect();
    Ok(Some(Window::with_params(name, &params)?))
}

fn f64_list(v: &Value) -> Option<Vec<f64>> {
    if let Some(x) = v.as_f64() {
        return Some(vec![x]);
    }
    v.as_array()?.iter().map(Value::as_f64).collect()
}

fn run_window(case: &Case, name: &str) -> Result<Array, Failure> {
    let m = count_kwarg(case, "M")?.ok_or_else(|| fail(case, "no M"))?;
    let sym = bool_kwarg(case, "sym", true)?;
    let params = case.kwarg("params").and_then(Value::as_array).cloned().unwrap_or_default();
    let p = |k: usize| params.get(k).and_then(Value::as_f64);
    let need = |k: usize| p(k).ok_or_else(|| fail(case, "missing parameter"));
    Ok(match name {
        "barthann" => windows::barthann(m, sym)?,
        "bartlett" => windows::bartlett(m, sym)?,
        "blackman" => windows::blackman(m, sym)?,
        "blackmanharris" => windows::blackmanharris(m, sym)?,
        "bohman" => windows::bohman(m, sym)?,
        "boxcar" => windows::boxcar(m, sym)?,
        "chebwin" => windows::chebwin(m, need(0)?, sym)?,
        "cosine" => windows::cosine(m, sym)?,
        "dpss" => windows::dpss(m, need(0)?, sym)?,
        "exponential" => windows::exponential(m, p(0), p(1).unwrap_or(1.0), sym)?,
        "flattop" => windows::flattop(m, sym)?,
        "gaussian" => windows::gaussian(m, need(0)?, sym)?,
        "general_cosine" => {
            let a = params.first().and_then(f64_list).ok_or_else(|| fail(case, "no coefficients"))?;
            windows::general_cosine(m, &a, sym)?
        }
        "general_gaussian" => windows::general_gaussian(m, need(0)?, need(1)?, sym)?,
        "general_hamming" => windows::general_hamming(m, need(0)?, sym)?,
        "hamming" => windows::hamming(m, sym)?,
        "hann" => windows::hann(m, sym)?,
        "kaiser" => windows::kaiser(m, need(0)?, sym)?,
        "kaiser_bessel_derived" => windows::kaiser_bessel_derived(m, need(0)?, sym)?,
        "lanczos" => windows::lanczos(m, sym)?,
        "nuttall" => windows::nuttall(m, sym)?,
        "parzen" => windows::parzen(m, sym)?,
        "taylor" => windows::taylor(m, p(0).unwrap_or(4.0) as usize, p(1).unwrap_or(30.0), true, sym)?,
        "triang" => windows::triang(m, sym)?,
        "tukey" => windows::tukey(m, p(0).unwrap_or(0.5), sym)?,
        _ => return Err(unsupported(&case.op)),
    })
}

fn f64_list_kwarg(case: &Case, key: &str) -> Result<Option<Vec<f64>>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(v) => f64_list(v).map(Some).ok_or_else(|| fail(case, &format!("{key} is not a number or list"))),
    }
}

fn opt_f64(case: &Case, key: &str) -> Result<Option<f64>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(v) => v.as_f64().map(Some).ok_or_else(|| fail(case, &format!("{key} is not a number"))),
    }
}

fn str_kwarg<'a>(case: &'a Case, key: &str) -> Option<&'a str> {
    case.kwarg(key).and_then(Value::as_str)
}

fn parse_or<T: std::str::FromStr<Err = Error> + Default>(case: &Case, key: &str) -> Result<T, Failure> {
    match str_kwarg(case, key) {
        Some(s) => Ok(s.parse()?),
        None => Ok(T::default()),
    }
}

/// The `k`-th part of a designed filter: `b`/`a`, `z`/`p`/`k`, or the sos array itself.
fn filter_part(filter: Filter, part: &str) -> Result<Array, Failure> {
    Ok(match (filter, part) {
        (Filter::Ba(b, _), "b") => b,
        (Filter::Ba(_, a), "a") => a,
        (Filter::Zpk(z, _, _), "z") => sort_complex(&z)?,
        (Filter::Zpk(_, p, _), "p") => sort_complex(&p)?,
        (Filter::Zpk(_, _, k), "k") => Array::from_slice(&[k], &[])?,
        (Filter::Sos(s), "") => s,
        _ => return Err(Failure::Case(format!("filter part {part} does not match the output form"))),
    })
}

/// `np.sort_complex`: by real part, then imaginary part (host; a handful of roots).
fn sort_complex(a: &Array) -> Result<Array, Failure> {
    let mut v = a.astype(DType::C128)?.to_vec::<num_complex::Complex<f64>>()?;
    v.sort_by(|x, y| x.re.total_cmp(&y.re).then(x.im.total_cmp(&y.im)));
    Ok(Array::from_vec(v)?)
}

fn worn_kwarg(case: &Case, key: &str, arrays: &[Array], k: usize) -> Result<WorN, Failure> {
    if let Some(a) = arrays.get(k) {
        return Ok(WorN::Freqs(a.clone()));
    }
    Ok(match count_kwarg(case, key)? {
        Some(n) => WorN::N(n),
        None => WorN::default(),
    })
}

fn run_design(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    let (base, part) = match f.rsplit_once('_') {
        Some((b, p)) if ["b", "a", "z", "p", "k", "w", "h", "gd"].contains(&p) => (b, p),
        _ => (f, ""),
    };
    let out = match base {
        "butter" | "cheby1" | "cheby2" | "ellip" | "bessel" => (|| {
            let n = count_kwarg(case, "N")?.ok_or_else(|| fail(case, "no N"))?;
            let wn = f64_list_kwarg(case, "Wn")?.ok_or_else(|| fail(case, "no Wn"))?;
            let btype: BType = parse_or(case, "btype")?;
            let output: Output = parse_or(case, "output")?;
            let fs = opt_f64(case, "fs")?;
            let analog = bool_kwarg(case, "analog", false)?;
            let filt = match base {
                "butter" => design::butter(n, &wn, btype, analog, output, fs)?,
                "cheby1" => design::cheby1(n, f64_kwarg(case, "rp")?, &wn, btype, analog, output, fs)?,
                "cheby2" => design::cheby2(n, f64_kwarg(case, "rs")?, &wn, btype, analog, output, fs)?,
                "ellip" => {
                    design::ellip(n, f64_kwarg(case, "rp")?, f64_kwarg(case, "rs")?, &wn, btype, analog, output, fs)?
                }
                _ => design::bessel(n, &wn, btype, analog, output, parse_or(case, "norm")?, fs)?,
            };
            filter_part(filt, part)
        })(),
        "iirnotch" | "iirpeak" => (|| {
            let (w0, q, fs) = (f64_kwarg(case, "w0")?, f64_kwarg(case, "Q")?, opt_f64(case, "fs")?);
            let (b, a) = if base == "iirnotch" { design::iirnotch(w0, q, fs)? } else { design::iirpeak(w0, q, fs)? };
            Ok(if part == "b" { b } else { a })
        })(),
        "zpk2tf" => (|| {
            let (b, a) = design::zpk2tf(nth(case, arrays, 0)?, nth(case, arrays, 1)?, f64_kwarg(case, "k")?)?;
            Ok(if part == "b" { b.real() } else { a.real() })
        })(),
        "tf2zpk" => (|| {
            let (z, p, k) = design::tf2zpk(nth(case, arrays, 0)?, nth(case, arrays, 1)?)?;
            filter_part(Filter::Zpk(z, p, k), part)
        })(),
        "zpk2sos" => (|| {
            let pairing = match str_kwarg(case, "pairing") {
                Some(s) => Some(s.parse::<Pairing>()?),
                None => None,
            };
            Ok(design::zpk2sos(nth(case, arrays, 0)?, nth(case, arrays, 1)?, f64_kwarg(case, "k")?, pairing)?)
        })(),
        "firwin" => (|| {
            let numtaps = count_kwarg(case, "numtaps")?.ok_or_else(|| fail(case, "no numtaps"))?;
            let cutoff = f64_list_kwarg(case, "cutoff")?.ok_or_else(|| fail(case, "no cutoff"))?;
            let window = window_kwarg(case, "window")?;
            let pass_zero = match case.kwarg("pass_zero") {
                None => PassZero::default(),
                Some(v) => match v.as_bool() {
                    Some(b) => PassZero::Bool(b),
                    None => PassZero::BType(v.as_str().ok_or_else(|| fail(case, "bad pass_zero"))?.parse()?),
                },
            };
            Ok(design::firwin(
                numtaps,
                &cutoff,
                opt_f64(case, "width")?,
                window.as_ref(),
                pass_zero,
                bool_kwarg(case, "scale", true)?,
                opt_f64(case, "fs")?,
            )?)
        })(),
        "firwin2" => (|| {
            let numtaps = count_kwarg(case, "numtaps")?.ok_or_else(|| fail(case, "no numtaps"))?;
            let freq = f64_list_kwarg(case, "freq")?.ok_or_else(|| fail(case, "no freq"))?;
            let gain = f64_list_kwarg(case, "gain")?.ok_or_else(|| fail(case, "no gain"))?;
            let window = window_kwarg(case, "window")?;
            Ok(design::firwin2(
                numtaps,
                &freq,
                &gain,
                count_kwarg(case, "nfreqs")?,
                window.as_ref(),
                bool_kwarg(case, "antisymmetric", false)?,
                opt_f64(case, "fs")?,
            )?)
        })(),
        "firls" => (|| {
            let numtaps = count_kwarg(case, "numtaps")?.ok_or_else(|| fail(case, "no numtaps"))?;
            let bands = f64_list_kwarg(case, "bands")?.ok_or_else(|| fail(case, "no bands"))?;
            let desired = f64_list_kwarg(case, "desired")?.ok_or_else(|| fail(case, "no desired"))?;
            let weight = f64_list_kwarg(case, "weight")?;
            Ok(design::firls(numtaps, &bands, &desired, weight.as_deref(), opt_f64(case, "fs")?)?)
        })(),
        "freqz" => (|| {
            let wor_n = worn_kwarg(case, "worN", arrays, 2)?;
            let (w, h) = design::freqz(
                nth(case, arrays, 0)?,
                arrays.get(1),
                &wor_n,
                bool_kwarg(case, "whole", false)?,
                opt_f64(case, "fs")?,
                bool_kwarg(case, "include_nyquist", false)?,
            )?;
            Ok(if part == "w" { w } else { h })
        })(),
        "sosfreqz" => (|| {
            let wor_n = worn_kwarg(case, "worN", arrays, 1)?;
            let (w, h) = design::sosfreqz(
                nth(case, arrays, 0)?,
                &wor_n,
                bool_kwarg(case, "whole", false)?,
                opt_f64(case, "fs")?,
            )?;
            Ok(if part == "w" { w } else { h })
        })(),
        "group_delay" => (|| {
            let w = worn_kwarg(case, "w", arrays, 2)?;
            let (w, gd) = design::group_delay(
                nth(case, arrays, 0)?,
                nth(case, arrays, 1)?,
                &w,
                bool_kwarg(case, "whole", false)?,
                opt_f64(case, "fs")?,
            )?;
            Ok(if part == "w" { w } else { gd })
        })(),
        "chirp" => (|| {
            Ok(waveforms::chirp(
                nth(case, arrays, 0)?,
                f64_kwarg(case, "f0")?,
                f64_kwarg(case, "t1")?,
                f64_kwarg(case, "f1")?,
                parse_or(case, "method")?,
                opt_f64(case, "phi")?.unwrap_or(0.0),
                bool_kwarg(case, "vertex_zero", true)?,
            )?)
        })(),
        "gausspulse" => (|| {
            Ok(waveforms::gausspulse(
                nth(case, arrays, 0)?,
                opt_f64(case, "fc")?.unwrap_or(1000.0),
                opt_f64(case, "bw")?.unwrap_or(0.5),
                opt_f64(case, "bwr")?.unwrap_or(-6.0),
            )?)
        })(),
        "sawtooth" => (|| Ok(waveforms::sawtooth(nth(case, arrays, 0)?, opt_f64(case, "width")?.unwrap_or(1.0))?))(),
        "square" => (|| Ok(waveforms::square(nth(case, arrays, 0)?, opt_f64(case, "duty")?.unwrap_or(0.5))?))(),
        "unit_impulse" => (|| {
            let shape: Vec<usize> = match case.kwarg("shape") {
                Some(v) => match v.as_u64() {
                    Some(n) => vec![n as usize],
                    None => usizes(v).ok_or_else(|| fail(case, "bad shape"))?,
                },
                None => return Err(fail(case, "no shape")),
            };
            let idx = match case.kwarg("idx") {
                None => ImpulseIndex::First,
                Some(Value::String(s)) if s == "mid" => ImpulseIndex::Mid,
                Some(v) => match v.as_u64() {
                    Some(i) => ImpulseIndex::All(i as usize),
                    None => ImpulseIndex::At(usizes(v).ok_or_else(|| fail(case, "bad idx"))?),
                },
            };
            Ok(waveforms::unit_impulse(&shape, &idx, dtype_kwarg(case)?)?)
        })(),
        "max_len_seq" => (|| {
            let nbits = count_kwarg(case, "nbits")?.ok_or_else(|| fail(case, "no nbits"))?;
            let state: Option<Vec<u8>> = match case.kwarg("state") {
                None => None,
                Some(v) => {
                    Some(usizes(v).ok_or_else(|| fail(case, "bad state"))?.into_iter().map(|x| x as u8).collect())
                }
            };
            Ok(waveforms::max_len_seq(nbits, state.as_deref(), count_kwarg(case, "length")?, None)?.0)
        })(),
        _ => return run_spectral(case, f, arrays),
    };
    Some(out)
}

/// The estimator options of a case, with `window` defaulting to `default_window`.
fn spectral_options(case: &Case, default_window: Window) -> Result<SpectralOptions, Failure> {
    let detrend = match case.kwargs.get("detrend") {
        None => Detrend::Constant,
        Some(Value::Bool(false)) | Some(Value::Null) => Detrend::None,
        Some(Value::String(s)) => s.parse()?,
        Some(v) => return Err(fail(case, &format!("detrend {v} not understood"))),
    };
    Ok(SpectralOptions {
        fs: opt_f64(case, "fs")?.unwrap_or(1.0),
        window: window_kwarg(case, "window")?.unwrap_or(default_window),
        nperseg: count_kwarg(case, "nperseg")?,
        noverlap: count_kwarg(case, "noverlap")?,
        nfft: count_kwarg(case, "nfft")?,
        detrend,
        return_onesided: bool_kwarg(case, "return_onesided", true)?,
        scaling: match str_kwarg(case, "scaling") {
            Some(s) => s.parse()?,
            None => Scaling::Density,
        },
        axis: axis_kwarg(case)?.unwrap_or(-1),
    })
}

fn complex_kwarg(case: &Case, key: &str) -> Result<Option<num_complex::Complex<f64>>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(v) => match f64_list(v).as_deref() {
            Some([re, im]) => Ok(Some(num_complex::Complex::new(*re, *im))),
            Some([re]) => Ok(Some(num_complex::Complex::new(*re, 0.0))),
            _ => Err(fail(case, &format!("{key} is not a complex number"))),
        },
    }
}

fn run_spectral(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    let out = match f {
        "periodogram" => {
            (|| Ok(spectral::periodogram(&first(case, arrays)?, &spectral_options(case, Window::Boxcar)?)?))()
        }
        "welch" => (|| {
            let o = spectral_options(case, Window::Hann)?;
            Ok(spectral::welch(&first(case, arrays)?, &o, parse_or(case, "average")?)?)
        })(),
        "csd" => (|| {
            let o = spectral_options(case, Window::Hann)?;
            Ok(spectral::csd(nth(case, arrays, 0)?, nth(case, arrays, 1)?, &o, parse_or(case, "average")?)?)
        })(),
        "coherence" => (|| {
            let o = spectral_options(case, Window::Hann)?;
            Ok(spectral::coherence(nth(case, arrays, 0)?, nth(case, arrays, 1)?, &o)?)
        })(),
        "spectrogram" => (|| {
            let o = spectral_options(case, Window::Tukey(0.25))?;
            Ok(spectral::spectrogram(&first(case, arrays)?, &o, parse_or(case, "mode")?)?)
        })(),
        "stft" => (|| {
            let mut o = spectral_options(case, Window::Hann)?;
            if case.kwarg("detrend").is_none() {
                o.detrend = Detrend::None;
            }
            if case.kwarg("scaling").is_none() {
                o.scaling = Scaling::Spectrum;
            }
            let boundary = match case.kwargs.get("boundary") {
                None => Some(BoundaryExt::Zeros),
                Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.parse()?),
                Some(v) => return Err(fail(case, &format!("boundary {v} not understood"))),
            };
            Ok(spectral::stft(&first(case, arrays)?, &o, boundary, bool_kwarg(case, "padded", true)?)?)
        })(),
        "istft" => (|| {
            let mut o = spectral_options(case, Window::Hann)?;
            if case.kwarg("scaling").is_none() {
                o.scaling = Scaling::Spectrum;
            }
            Ok(spectral::istft(
                &first(case, arrays)?,
                &o,
                bool_kwarg(case, "input_onesided", true)?,
                bool_kwarg(case, "boundary", true)?,
            )?)
        })(),
        "detrend" => (|| {
            let bp: Vec<usize> = match case.kwarg("bp") {
                None => vec![],
                Some(v) => match v.as_u64() {
                    Some(0) => vec![],
                    Some(i) => vec![i as usize],
                    None => usizes(v).ok_or_else(|| fail(case, "bad bp"))?,
                },
            };
            let kind: Detrend = match str_kwarg(case, "type") {
                Some(s) => s.parse()?,
                None => Detrend::Linear,
            };
            Ok(spectral::detrend(&first(case, arrays)?, axis_kwarg(case)?.unwrap_or(-1), kind, &bp)?)
        })(),
        "czt" => (|| {
            Ok(spectral::czt(
                &first(case, arrays)?,
                count_kwarg(case, "m")?,
                complex_kwarg(case, "w")?,
                complex_kwarg(case, "a")?.unwrap_or(num_complex::Complex::new(1.0, 0.0)),
                axis_kwarg(case)?.unwrap_or(-1),
            )?)
        })(),
        "zoom_fft" => (|| {
            let fn_ = f64_list_kwarg(case, "fn")?.ok_or_else(|| fail(case, "no fn"))?;
            Ok(spectral::zoom_fft(
                &first(case, arrays)?,
                &fn_,
                count_kwarg(case, "m")?,
                opt_f64(case, "fs")?.unwrap_or(2.0),
                bool_kwarg(case, "endpoint", false)?,
                axis_kwarg(case)?.unwrap_or(-1),
            )?)
        })(),
        "lombscargle" => (|| {
            let normalize = match case.kwarg("normalize") {
                None => spectral::LombNormalize::Power,
                Some(Value::Bool(b)) => {
                    if *b {
                        spectral::LombNormalize::Normalize
                    } else {
                        spectral::LombNormalize::Power
                    }
                }
                Some(Value::String(s)) => s.parse()?,
                Some(v) => return Err(fail(case, &format!("normalize {v} not understood"))),
            };
            let weights = if bool_kwarg(case, "weights", false)? { Some(nth(case, arrays, 3)?) } else { None };
            Ok(spectral::lombscargle(
                nth(case, arrays, 0)?,
                nth(case, arrays, 1)?,
                nth(case, arrays, 2)?,
                bool_kwarg(case, "precenter", false)?,
                normalize,
                weights,
                bool_kwarg(case, "floating_mean", false)?,
            )?)
        })(),
        _ => return None,
    };
    Some(out)
}
