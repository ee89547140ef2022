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

fn usize_kwarg(case: &Case, key: &str) -> Result<Option<usize>, Failure> {
    match int_kwarg(case, key)? {
        None => Ok(None),
        Some(v) => usize::try_from(v).map(Some).map_err(|_| Failure::Case(format!("{}: {key} {v} < 0", case.op))),
    }
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
                Some(s) => s.parse()?,
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
        _ => return Err(unsupported(&case.op)),
    })
}
