//! The `fft2` group: `scipy.fft`'s functions, by name.

use super::*;

/// A kwarg that is a length: a negative one is SciPy's `ValueError`.
fn len_kwarg(case: &Case, key: &str) -> Result<Option<usize>, Failure> {
    int_kwarg(case, key)?
        .map(|v| {
            usize::try_from(v).map_err(|_| {
                Failure::Lib(Error::value(case.op.as_str(), format!("invalid number of data points ({v}) specified")))
            })
        })
        .transpose()
}

/// A kwarg that is a list of ints (`axes`, `s`), or null/absent.
fn list_kwarg(case: &Case, key: &str) -> Result<Option<Vec<isize>>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(v) => isizes(v).map(Some).ok_or_else(|| Failure::Case(format!("{}: {key} {v} is not a list", case.op))),
    }
}

/// `s` as lengths (a negative entry is a `Value` error).
fn shape_kwarg(case: &Case) -> Result<Option<Vec<usize>>, Failure> {
    list_kwarg(case, "s")?
        .map(|v| {
            v.into_iter()
                .map(|i| {
                    usize::try_from(i).map_err(|_| {
                        Failure::Lib(Error::value(case.op.as_str(), format!("invalid number of data points ({i})")))
                    })
                })
                .collect()
        })
        .transpose()
}

/// `norm`: a string or null.
fn norm_kwarg(case: &Case) -> Result<Option<&str>, Failure> {
    match case.kwarg("norm") {
        None => Ok(None),
        Some(v) => v.as_str().map(Some).ok_or_else(|| Failure::Case(format!("{}: norm {v} is not a string", case.op))),
    }
}

/// A float kwarg with a default.
fn f64_or(case: &Case, key: &str, default: f64) -> Result<f64, Failure> {
    if case.kwarg(key).is_some() {
        f64_kwarg(case, key)
    } else {
        Ok(default)
    }
}

/// Runs `fft.<f>` of one case.
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::fft;
    let x = first(case, arrays)?;
    let norm = norm_kwarg(case)?;
    let out = match f {
        "dct" | "idct" | "dst" | "idst" => {
            let t = int_kwarg(case, "type")?.unwrap_or(2);
            let t = usize::try_from(t)
                .map_err(|_| Failure::Lib(Error::value(case.op.as_str(), format!("invalid DCT type {t}"))))?;
            let n = len_kwarg(case, "n")?;
            let axis = axis_kwarg(case)?.unwrap_or(-1);
            let orth = case.kwarg("orthogonalize").map(|_| bool_kwarg(case, "orthogonalize", false)).transpose()?;
            let g = match f {
                "dct" => fft::dct,
                "idct" => fft::idct,
                "dst" => fft::dst,
                _ => fft::idst,
            };
            g(&x, t, n, axis, norm, orth)?
        }
        "dctn" | "idctn" | "dstn" | "idstn" => {
            let t = int_kwarg(case, "type")?.unwrap_or(2);
            let t = usize::try_from(t)
                .map_err(|_| Failure::Lib(Error::value(case.op.as_str(), format!("invalid DCT type {t}"))))?;
            let s = shape_kwarg(case)?;
            let axes = list_kwarg(case, "axes")?;
            let orth = case.kwarg("orthogonalize").map(|_| bool_kwarg(case, "orthogonalize", false)).transpose()?;
            let g = match f {
                "dctn" => fft::dctn,
                "idctn" => fft::idctn,
                "dstn" => fft::dstn,
                _ => fft::idstn,
            };
            g(&x, t, s.as_deref(), axes.as_deref(), norm, orth)?
        }
        "fht" | "ifht" => {
            let dln = f64_kwarg(case, "dln")?;
            let mu = f64_kwarg(case, "mu")?;
            let (offset, bias) = (f64_or(case, "offset", 0.0)?, f64_or(case, "bias", 0.0)?);
            if f == "fht" {
                fft::fht(&x, dln, mu, offset, bias)?
            } else {
                fft::ifht(&x, dln, mu, offset, bias)?
            }
        }
        "hfft2" | "ihfft2" | "hfftn" | "ihfftn" => {
            let s = shape_kwarg(case)?;
            let axes = list_kwarg(case, "axes")?;
            let g = match f {
                "hfft2" => fft::hfft2,
                "ihfft2" => fft::ihfft2,
                "hfftn" => fft::hfftn,
                _ => fft::ihfftn,
            };
            g(&x, s.as_deref(), axes.as_deref(), norm)?
        }
        "next_fast_len" => {
            let real = bool_kwarg(case, "real", false)?;
            let targets = x.astype(DType::I64)?.to_vec::<i64>()?;
            let mut out = Vec::with_capacity(targets.len());
            for t in targets {
                let t = usize::try_from(t)
                    .map_err(|_| Failure::Lib(Error::value("next_fast_len", "Target length must be positive")))?;
                out.push(fft::next_fast_len(t, real)? as i64);
            }
            Array::from_slice(&out, &[out.len()])?
        }
        _ => return Err(unsupported(&case.op)),
    };
    Ok(out.ascontiguous()?)
}
