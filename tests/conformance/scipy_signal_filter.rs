//! The `signal2` group: SciPy's signal filtering, resampling, spectral analysis and peaks, by name.

use super::*;

/// `padtype`: absent is SciPy's default `"odd"`, JSON null is `None`.
fn padtype_kwarg(case: &Case) -> Result<Option<xp::signal::PadType>, Failure> {
    match case.kwargs.get("padtype") {
        None => Ok(Some(xp::signal::PadType::Odd)),
        Some(serde_json::Value::Null) => Ok(None),
        Some(v) => {
            let s = v.as_str().ok_or_else(|| Failure::Case(format!("{}: padtype {v}", case.op)))?;
            Ok(Some(s.parse()?))
        }
    }
}

/// A window given as a name or `[name, param, ...]` (kwarg `window`).
fn window_kwarg(case: &Case) -> Result<Option<xp::signal::windows::Window>, Failure> {
    let Some(v) = case.kwarg("window") else { return Ok(None) };
    if v.is_null() {
        return Ok(None);
    }
    if let Some(s) = v.as_str() {
        return Ok(Some(s.parse()?));
    }
    let items = v.as_array().ok_or_else(|| Failure::Case(format!("{}: window is not a name or list", case.op)))?;
    let name = items
        .first()
        .and_then(Value::as_str)
        .ok_or_else(|| Failure::Case(format!("{}: window has no name", case.op)))?;
    let params: Vec<Option<f64>> = items[1..].iter().map(Value::as_f64).collect();
    Ok(Some(xp::signal::windows::Window::with_params(name, &params)?))
}

fn usize_kwarg(case: &Case, key: &str) -> Result<Option<usize>, Failure> {
    match int_kwarg(case, key)? {
        None => Ok(None),
        Some(v) => usize::try_from(v).map(Some).map_err(|_| Failure::Case(format!("{}: {key} {v} < 0", case.op))),
    }
}

/// A peak condition: a number (the minimum) or `[min, max]` with nulls.
fn interval_kwarg(case: &Case, key: &str) -> Result<Option<xp::signal::Interval>, Failure> {
    let Some(v) = case.kwarg(key) else { return Ok(None) };
    if let Some(x) = v.as_f64() {
        return Ok(Some((Some(x), None)));
    }
    match v.as_array().map(Vec::as_slice) {
        Some([a, b]) => Ok(Some((a.as_f64(), b.as_f64()))),
        _ => Err(Failure::Case(format!("{}: {key} {v}", case.op))),
    }
}

fn opt_f64(case: &Case, key: &str) -> Result<Option<f64>, Failure> {
    if case.kwarg(key).is_some() {
        Ok(Some(f64_kwarg(case, key)?))
    } else {
        Ok(None)
    }
}

/// Equal-length 1-d arrays stacked as float64 rows.
fn stack_f64(rows: &[&Array]) -> Result<Array, Failure> {
    let rows: Vec<Array> = rows.iter().map(|r| r.astype(DType::F64)).collect::<Result<_, _>>()?;
    let refs: Vec<&Array> = rows.iter().collect();
    Ok(xp::stack(&refs, 0)?)
}

/// A size: one number or a list; absent/null is `None`.
fn sizes_kwarg(case: &Case, key: &str) -> Result<Option<Vec<usize>>, Failure> {
    let Some(v) = case.kwarg(key) else { return Ok(None) };
    if let Some(k) = v.as_u64() {
        return Ok(Some(vec![k as usize]));
    }
    usizes(v).map(Some).ok_or_else(|| Failure::Case(format!("{}: {key} {v}", case.op)))
}

fn axis_or(case: &Case, default: isize) -> Result<isize, Failure> {
    Ok(axis_kwarg(case)?.unwrap_or(default))
}

/// Runs `signal.<f>` of one case when it is one of this file's ops (`None` otherwise).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    let known = matches!(
        f,
        "lfilter"
            | "lfilter_zf"
            | "lfilter_zi"
            | "filtfilt"
            | "sosfilt"
            | "sosfilt_zi"
            | "sosfiltfilt"
            | "savgol_coeffs"
            | "savgol_filter"
            | "argrelmax"
            | "argrelmin"
            | "find_peaks"
            | "peak_prominences"
            | "peak_widths"
            | "correlation_lags"
            | "medfilt"
            | "medfilt2d"
            | "wiener"
            | "hilbert"
            | "resample"
            | "resample_poly"
            | "decimate"
            | "upfirdn"
            | "cspline1d"
            | "qspline1d"
            | "cspline1d_eval"
            | "qspline1d_eval"
            | "gauss_spline"
            | "symiirorder1"
            | "symiirorder2"
            | "cspline2d"
            | "qspline2d"
            | "spline_filter"
            | "sepfir2d"
    );
    if !known {
        return None;
    }
    Some(run_known(case, f, arrays))
}

fn run_known(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::signal;
    let arg = |k: usize| nth(case, arrays, k);
    Ok(match f {
        "lfilter" | "lfilter_zf" => {
            let zi = arrays.get(3);
            let (y, zf) = signal::lfilter(arg(0)?, arg(1)?, arg(2)?, axis_or(case, -1)?, zi)?;
            if f == "lfilter" {
                y
            } else {
                zf.ok_or_else(|| Failure::Case("lfilter_zf: no zi".into()))?
            }
        }
        "lfilter_zi" => signal::lfilter_zi(arg(0)?, arg(1)?)?,
        "filtfilt" => {
            let method = match case.kwarg("method").and_then(|v| v.as_str()) {
                None => signal::FiltfiltMethod::Pad,
                Some(s) => match s.parse()? {
                    signal::FiltfiltMethod::Gust { .. } => {
                        signal::FiltfiltMethod::Gust { irlen: usize_kwarg(case, "irlen")? }
                    }
                    m => m,
                },
            };
            signal::filtfilt(
                arg(0)?,
                arg(1)?,
                arg(2)?,
                axis_or(case, -1)?,
                padtype_kwarg(case)?,
                usize_kwarg(case, "padlen")?,
                method,
            )?
        }
        "sosfilt" => signal::sosfilt(arg(0)?, arg(1)?, axis_or(case, -1)?, arrays.get(2))?.0,
        "sosfilt_zi" => signal::sosfilt_zi(arg(0)?)?,
        "sosfiltfilt" => signal::sosfiltfilt(
            arg(0)?,
            arg(1)?,
            axis_or(case, -1)?,
            padtype_kwarg(case)?,
            usize_kwarg(case, "padlen")?,
        )?,
        "savgol_coeffs" | "savgol_filter" => {
            let wl = usize_kwarg(case, "window_length")?.ok_or_else(|| Failure::Case("no window_length".into()))?;
            let po = usize_kwarg(case, "polyorder")?.ok_or_else(|| Failure::Case("no polyorder".into()))?;
            let deriv = usize_kwarg(case, "deriv")?.unwrap_or(0);
            let delta = if case.kwarg("delta").is_some() { f64_kwarg(case, "delta")? } else { 1.0 };
            if f == "savgol_coeffs" {
                let use_ = match case.kwarg("use").and_then(|v| v.as_str()) {
                    None => signal::SavgolUse::Conv,
                    Some(s) => s.parse()?,
                };
                signal::savgol_coeffs(wl, po, deriv, delta, usize_kwarg(case, "pos")?, use_)?
            } else {
                let mode = match case.kwarg("mode").and_then(|v| v.as_str()) {
                    None => signal::SavgolMode::Interp,
                    Some(s) => s.parse()?,
                };
                let cval = if case.kwarg("cval").is_some() { f64_kwarg(case, "cval")? } else { 0.0 };
                signal::savgol_filter(&first(case, arrays)?, wl, po, deriv, delta, axis_or(case, -1)?, mode, cval)?
            }
        }
        "argrelmax" | "argrelmin" => {
            let order = usize_kwarg(case, "order")?.unwrap_or(1);
            let mode = match case.kwarg("mode").and_then(|v| v.as_str()) {
                None => signal::ExtremaMode::Clip,
                Some(s) => s.parse()?,
            };
            let x = first(case, arrays)?;
            let idx = if f == "argrelmax" {
                signal::argrelmax(&x, axis_or(case, 0)?, order, mode)?
            } else {
                signal::argrelmin(&x, axis_or(case, 0)?, order, mode)?
            };
            let refs: Vec<&Array> = idx.iter().collect();
            xp::stack(&refs, 0)?
        }
        "find_peaks" => {
            let opts = signal::FindPeaksOptions {
                height: interval_kwarg(case, "height")?,
                threshold: interval_kwarg(case, "threshold")?,
                distance: opt_f64(case, "distance")?,
                prominence: interval_kwarg(case, "prominence")?,
                width: interval_kwarg(case, "width")?,
                wlen: opt_f64(case, "wlen")?,
                rel_height: opt_f64(case, "rel_height")?.unwrap_or(0.5),
                plateau_size: interval_kwarg(case, "plateau_size")?,
            };
            signal::find_peaks(&first(case, arrays)?, &opts)?.peaks
        }
        "peak_prominences" => {
            let (p, l, r) = signal::peak_prominences(arg(0)?, arg(1)?, opt_f64(case, "wlen")?)?;
            stack_f64(&[&p, &l, &r])?
        }
        "peak_widths" => {
            let rel = opt_f64(case, "rel_height")?.unwrap_or(0.5);
            let (w, h, l, r) = signal::peak_widths(arg(0)?, arg(1)?, rel, opt_f64(case, "wlen")?)?;
            stack_f64(&[&w, &h, &l, &r])?
        }
        "correlation_lags" => {
            let a = usize_kwarg(case, "in1_len")?.ok_or_else(|| Failure::Case("no in1_len".into()))?;
            let b = usize_kwarg(case, "in2_len")?.ok_or_else(|| Failure::Case("no in2_len".into()))?;
            signal::correlation_lags(a, b, parsed_kwarg(case, "mode", "full")?)?
        }
        "medfilt" => signal::medfilt(&first(case, arrays)?, sizes_kwarg(case, "kernel_size")?.as_deref())?,
        "medfilt2d" => signal::medfilt2d(&first(case, arrays)?, sizes_kwarg(case, "kernel_size")?.as_deref())?,
        "wiener" => {
            signal::wiener(&first(case, arrays)?, sizes_kwarg(case, "mysize")?.as_deref(), opt_f64(case, "noise")?)?
        }
        "hilbert" => signal::hilbert(&first(case, arrays)?, usize_kwarg(case, "N")?, axis_or(case, -1)?)?,
        "resample" => {
            let num = usize_kwarg(case, "num")?.ok_or_else(|| Failure::Case("no num".into()))?;
            match window_kwarg(case)? {
                Some(w) => signal::resample_windowed(&first(case, arrays)?, num, axis_or(case, 0)?, &w)?,
                None => signal::resample(&first(case, arrays)?, num, axis_or(case, 0)?, None)?,
            }
        }
        "resample_poly" => {
            let up = usize_kwarg(case, "up")?.ok_or_else(|| Failure::Case("no up".into()))?;
            let down = usize_kwarg(case, "down")?.ok_or_else(|| Failure::Case("no down".into()))?;
            let pad: signal::PolyPad = parsed_kwarg(case, "padtype", "constant")?;
            let w = window_kwarg(case)?;
            signal::resample_poly(&first(case, arrays)?, up, down, axis_or(case, 0)?, w.as_ref(), pad)?
        }
        "decimate" => {
            let q = usize_kwarg(case, "q")?.ok_or_else(|| Failure::Case("no q".into()))?;
            let ftype: signal::DecimateFilter = parsed_kwarg(case, "ftype", "iir")?;
            let zero_phase = bool_kwarg(case, "zero_phase", true)?;
            signal::decimate(&first(case, arrays)?, q, usize_kwarg(case, "n")?, ftype, axis_or(case, -1)?, zero_phase)?
        }
        "upfirdn" => {
            let up = usize_kwarg(case, "up")?.unwrap_or(1);
            let down = usize_kwarg(case, "down")?.unwrap_or(1);
            signal::upfirdn(arg(0)?, arg(1)?, up, down, axis_or(case, -1)?)?
        }
        "cspline1d" => signal::cspline1d(&first(case, arrays)?, opt_f64(case, "lamb")?.unwrap_or(0.0))?,
        "qspline1d" => signal::qspline1d(&first(case, arrays)?, opt_f64(case, "lamb")?.unwrap_or(0.0))?,
        "cspline1d_eval" | "qspline1d_eval" => {
            let dx = opt_f64(case, "dx")?.unwrap_or(1.0);
            let x0 = opt_f64(case, "x0")?.unwrap_or(0.0);
            let f = if f == "cspline1d_eval" { signal::cspline1d_eval } else { signal::qspline1d_eval };
            f(arg(0)?, arg(1)?, dx, x0)?
        }
        "gauss_spline" => signal::gauss_spline(&first(case, arrays)?, usize_kwarg(case, "n")?.unwrap_or(0))?,
        "symiirorder1" => signal::symiirorder1(
            &first(case, arrays)?,
            f64_kwarg(case, "c0")?,
            f64_kwarg(case, "z1")?,
            opt_f64(case, "precision")?.unwrap_or(-1.0),
        )?,
        "symiirorder2" => signal::symiirorder2(
            &first(case, arrays)?,
            f64_kwarg(case, "r")?,
            f64_kwarg(case, "omega")?,
            opt_f64(case, "precision")?.unwrap_or(-1.0),
        )?,
        "cspline2d" | "qspline2d" => {
            let f = if f == "cspline2d" { signal::cspline2d } else { signal::qspline2d };
            f(
                &first(case, arrays)?,
                opt_f64(case, "lamb")?.unwrap_or(0.0),
                opt_f64(case, "precision")?.unwrap_or(-1.0),
            )?
        }
        "spline_filter" => signal::spline_filter(&first(case, arrays)?, opt_f64(case, "lmbda")?.unwrap_or(5.0))?,
        "sepfir2d" => signal::sepfir2d(arg(0)?, arg(1)?, arg(2)?)?,
        _ => return Err(unsupported(&case.op)),
    })
}
