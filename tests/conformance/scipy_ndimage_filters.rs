//! The `ndimage` group: SciPy's ndimage filters and Fourier filters, by name.

use super::*;
use xp::ndimage::{self, Mode};

/// A kwarg that is a number or a list of numbers, as a list (`None` when absent).
fn f64_list_kwarg(case: &Case, key: &str) -> Result<Option<Vec<f64>>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) => Ok(Some(vec![x])),
            None => v
                .as_array()
                .and_then(|a| a.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>())
                .map(Some)
                .ok_or_else(|| Failure::Case(format!("{}: {key} {v} is not a number or a list", case.op))),
        },
    }
}

/// A kwarg that is a count or a list of counts, as a list (`None` when absent).
fn usize_list_kwarg(case: &Case, key: &str) -> Result<Option<Vec<usize>>, Failure> {
    match int_list_kwarg(case, key)? {
        None => Ok(None),
        Some(v) => v
            .into_iter()
            .map(|i| {
                usize::try_from(i)
                    .map_err(|_| Failure::Lib(Error::value(case.op.as_str(), format!("{key} {i} is negative"))))
            })
            .collect::<Result<Vec<usize>, Failure>>()
            .map(Some),
    }
}

fn cval(case: &Case) -> Result<f64, Failure> {
    if case.kwarg("cval").is_some() {
        f64_kwarg(case, "cval")
    } else {
        Ok(0.0)
    }
}

/// `origin` of a 1-d filter: one int.
fn origin1(case: &Case) -> Result<isize, Failure> {
    Ok(int_kwarg(case, "origin")?.unwrap_or(0) as isize)
}

fn f64_or(case: &Case, key: &str, default: f64) -> Result<f64, Failure> {
    if case.kwarg(key).is_some() {
        f64_kwarg(case, key)
    } else {
        Ok(default)
    }
}

/// Runs `ndimage.<f>` of one case when it is one of this file's ops (`None` otherwise).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    const OPS: &[&str] = &[
        "correlate",
        "convolve",
        "correlate1d",
        "convolve1d",
        "gaussian_filter",
        "gaussian_filter1d",
        "gaussian_gradient_magnitude",
        "gaussian_laplace",
        "uniform_filter",
        "uniform_filter1d",
        "minimum_filter",
        "maximum_filter",
        "minimum_filter1d",
        "maximum_filter1d",
        "median_filter",
        "rank_filter",
        "percentile_filter",
        "prewitt",
        "sobel",
        "laplace",
        "fourier_gaussian",
        "fourier_uniform",
        "fourier_shift",
    ];
    if !OPS.contains(&f) {
        return None;
    }
    Some(run_filter(case, f, arrays))
}

fn run_filter(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    let x = first(case, arrays)?;
    let mode: Mode = parsed_kwarg(case, "mode", "reflect")?;
    let cv = cval(case)?;
    let origin = int_list_kwarg(case, "origin")?.unwrap_or_default();
    let axis = axis_kwarg(case)?.unwrap_or(-1);
    let truncate = f64_or(case, "truncate", 4.0)?;
    let second = arrays.get(1);
    Ok(match f {
        "correlate" => ndimage::correlate(&x, nth(case, arrays, 1)?, mode, cv, &origin)?,
        "convolve" => ndimage::convolve(&x, nth(case, arrays, 1)?, mode, cv, &origin)?,
        "correlate1d" => ndimage::correlate1d(&x, nth(case, arrays, 1)?, axis, mode, cv, origin1(case)?)?,
        "convolve1d" => ndimage::convolve1d(&x, nth(case, arrays, 1)?, axis, mode, cv, origin1(case)?)?,
        "gaussian_filter" => {
            let sigma = f64_list_kwarg(case, "sigma")?.ok_or_else(|| Failure::Case("no sigma".into()))?;
            let order = usize_list_kwarg(case, "order")?.unwrap_or_default();
            let radius = usize_list_kwarg(case, "radius")?;
            ndimage::gaussian_filter(&x, &sigma, &order, mode, cv, truncate, radius.as_deref())?
        }
        "gaussian_filter1d" => {
            let sigma = f64_kwarg(case, "sigma")?;
            let order = count_kwarg(case, "order")?.unwrap_or(0);
            let radius = count_kwarg(case, "radius")?;
            ndimage::gaussian_filter1d(&x, sigma, axis, order, mode, cv, truncate, radius)?
        }
        "gaussian_gradient_magnitude" | "gaussian_laplace" => {
            let sigma = f64_list_kwarg(case, "sigma")?.ok_or_else(|| Failure::Case("no sigma".into()))?;
            if f == "gaussian_laplace" {
                ndimage::gaussian_laplace(&x, &sigma, mode, cv, truncate)?
            } else {
                ndimage::gaussian_gradient_magnitude(&x, &sigma, mode, cv, truncate)?
            }
        }
        "uniform_filter" => {
            let size = usize_list_kwarg(case, "size")?.unwrap_or_default();
            ndimage::uniform_filter(&x, &size, mode, cv, &origin)?
        }
        "uniform_filter1d" => {
            let size = count_kwarg(case, "size")?.ok_or_else(|| Failure::Case("no size".into()))?;
            ndimage::uniform_filter1d(&x, size, axis, mode, cv, origin1(case)?)?
        }
        "minimum_filter1d" | "maximum_filter1d" => {
            let size = count_kwarg(case, "size")?.ok_or_else(|| Failure::Case("no size".into()))?;
            if f == "minimum_filter1d" {
                ndimage::minimum_filter1d(&x, size, axis, mode, cv, origin1(case)?)?
            } else {
                ndimage::maximum_filter1d(&x, size, axis, mode, cv, origin1(case)?)?
            }
        }
        "minimum_filter" | "maximum_filter" | "median_filter" | "rank_filter" | "percentile_filter" => {
            let size = usize_list_kwarg(case, "size")?;
            let size = size.as_deref();
            match f {
                "minimum_filter" => ndimage::minimum_filter(&x, size, second, mode, cv, &origin)?,
                "maximum_filter" => ndimage::maximum_filter(&x, size, second, mode, cv, &origin)?,
                "median_filter" => ndimage::median_filter(&x, size, second, mode, cv, &origin)?,
                "rank_filter" => {
                    let rank = int_kwarg(case, "rank")?.ok_or_else(|| Failure::Case("no rank".into()))?;
                    ndimage::rank_filter(&x, rank as isize, size, second, mode, cv, &origin)?
                }
                _ => {
                    let p = f64_kwarg(case, "percentile")?;
                    ndimage::percentile_filter(&x, p, size, second, mode, cv, &origin)?
                }
            }
        }
        "prewitt" => ndimage::prewitt(&x, axis, mode, cv)?,
        "sobel" => ndimage::sobel(&x, axis, mode, cv)?,
        "laplace" => ndimage::laplace(&x, mode, cv)?,
        "fourier_gaussian" | "fourier_uniform" | "fourier_shift" => {
            let key = match f {
                "fourier_gaussian" => "sigma",
                "fourier_uniform" => "size",
                _ => "shift",
            };
            let p = f64_list_kwarg(case, key)?.ok_or_else(|| Failure::Case(format!("no {key}")))?;
            let n = int_kwarg(case, "n")?.unwrap_or(-1) as isize;
            match f {
                "fourier_gaussian" => ndimage::fourier_gaussian(&x, &p, n, axis)?,
                "fourier_uniform" => ndimage::fourier_uniform(&x, &p, n, axis)?,
                _ => ndimage::fourier_shift(&x, &p, n, axis)?,
            }
        }
        other => return Err(unsupported(other)),
    })
}
