//! The `routines` group's later NumPy callables (`mgrid`, `apply_along_axis`, bit packing,
//! index helpers, polynomial arithmetic, `finfo`/`iinfo`, `tensorsolve`/`tensorinv`), by name.

use super::*;
use xp::array::routines as r;

/// Runs one of the later callables, or `None` when `case.op` is not one of them.
pub(super) fn run(case: &Case, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    const OPS: &[&str] = &[
        "mgrid",
        "apply_along_axis",
        "packbits",
        "unpackbits",
        "bitwise_count",
        "rollaxis",
        "matrix_transpose",
        "sliding_window_view",
        "diag_indices_from",
        "tril_indices_from",
        "triu_indices_from",
        "real_if_close",
        "polyadd",
        "polysub",
        "polymul",
        "polyder",
        "polyint",
        "vecdot",
        "finfo",
        "iinfo",
        "linalg.tensorsolve",
        "linalg.tensorinv",
    ];
    if !OPS.contains(&case.op.as_str()) {
        return None;
    }
    Some(compute_extra(case, arrays))
}

/// A kwarg that is a count or a list of counts (`window_shape`), as a list.
fn counts_kwarg(case: &Case, key: &str) -> Result<Vec<usize>, Failure> {
    let v = case.kwarg(key).ok_or_else(|| Failure::Case(format!("{}: no {key}", case.op)))?;
    let list = match v.as_i64() {
        Some(i) => vec![i],
        None => v
            .as_array()
            .and_then(|l| l.iter().map(Value::as_i64).collect::<Option<Vec<_>>>())
            .ok_or_else(|| Failure::Case(format!("{}: {key} {v}", case.op)))?,
    };
    list.into_iter()
        .map(|i| {
            usize::try_from(i).map_err(|_| {
                Failure::Lib(Error::value(case.op.as_str(), format!("{key} cannot contain negative values ({i})")))
            })
        })
        .collect()
}

/// `slices` of `mgrid`: `[start, stop, step]` per axis, a step `{"imag": n}` meaning `n*1j`.
fn grid_axes(case: &Case) -> Result<Vec<r::GridAxis>, Failure> {
    let bad = |v: &Value| Failure::Case(format!("{}: slice {v}", case.op));
    let list =
        case.kwarg("slices").and_then(Value::as_array).ok_or_else(|| Failure::Case("mgrid: no slices".into()))?;
    list.iter()
        .map(|s| {
            let parts = s.as_array().filter(|p| p.len() == 3).ok_or_else(|| bad(s))?;
            let (start, stop) =
                (number_scalar(&parts[0]).ok_or_else(|| bad(s))?, number_scalar(&parts[1]).ok_or_else(|| bad(s))?);
            let step = match parts[2].get("imag") {
                Some(n) => r::GridStep::Points(n.as_f64().ok_or_else(|| bad(s))?.abs() as usize),
                None => r::GridStep::Step(number_scalar(&parts[2]).ok_or_else(|| bad(s))?),
            };
            Ok(r::GridAxis { start, stop, step })
        })
        .collect()
}

/// NumPy's function of the name `func` for `apply_along_axis`, on one 1-d slice.
fn along(case: &Case) -> Result<fn(&Array) -> xp::Result<Array>, Failure> {
    let name =
        case.kwarg("func").and_then(Value::as_str).ok_or_else(|| Failure::Case(format!("{}: no func", case.op)))?;
    Ok(match name {
        "sum" => |s| s.sum(None, false),
        "cumsum" => |s| s.cumsum(None),
        "sort" => |s| xp::sort(s, Some(-1)),
        "max" => |s| s.max(None, false),
        "mean" => |s| s.mean(None, false),
        "diff" => |s| r::diff(s, 1, -1),
        other => return Err(unsupported(&format!("apply_along_axis of {other}"))),
    })
}

fn compute_extra(case: &Case, arrays: &[Array]) -> Result<Array, Failure> {
    let op = case.op.as_str();
    let x = || first(case, arrays);
    let y = || nth(case, arrays, 1);
    let k = || -> Result<isize, Failure> { Ok(int_kwarg(case, "k")?.unwrap_or(0) as isize) };
    let pair = |(a, b): (Array, Array)| stacked(&[a, b]);
    Ok(match op {
        "mgrid" => r::mgrid(&grid_axes(case)?)?,
        "apply_along_axis" => {
            let axis = axis_kwarg(case)?.ok_or_else(|| Failure::Case("apply_along_axis: no axis".into()))?;
            r::apply_along_axis(along(case)?, axis, &x()?)?
        }
        "packbits" => r::packbits(&x()?, axis_kwarg(case)?, parsed_kwarg(case, "bitorder", "big")?)?,
        "unpackbits" => {
            let count = int_kwarg(case, "count")?.map(|c| c as isize);
            r::unpackbits(&x()?, axis_kwarg(case)?, count, parsed_kwarg(case, "bitorder", "big")?)?
        }
        "bitwise_count" => r::bitwise_count(&x()?)?,
        "rollaxis" => {
            let axis = int_kwarg(case, "axis")?.ok_or_else(|| Failure::Case("rollaxis: no axis".into()))?;
            r::rollaxis(&x()?, axis as isize, int_kwarg(case, "start")?.unwrap_or(0) as isize)?
        }
        "matrix_transpose" => r::matrix_transpose(&x()?)?,
        // NumPy's view, answered as a copy (the case's `.copy()`).
        "sliding_window_view" => {
            let window = counts_kwarg(case, "window_shape")?;
            let axis = int_list_kwarg(case, "axis")?;
            r::sliding_window_view(&x()?, &window, axis.as_deref())?.copy()?
        }
        "diag_indices_from" => stacked(&r::diag_indices_from(&x()?)?)?,
        "tril_indices_from" => pair(r::tril_indices_from(&x()?, k()?)?)?,
        "triu_indices_from" => pair(r::triu_indices_from(&x()?, k()?)?)?,
        "real_if_close" => {
            let tol = if case.kwarg("tol").is_some() { f64_kwarg(case, "tol")? } else { 100.0 };
            r::real_if_close(&x()?, tol)?
        }
        "polyadd" => r::polyadd(&x()?, y()?)?,
        "polysub" => r::polysub(&x()?, y()?)?,
        "polymul" => r::polymul(&x()?, y()?)?,
        "polyder" => r::polyder(&x()?, count_kwarg(case, "m")?.unwrap_or(1))?,
        "polyint" => {
            let k = match case.kwarg("k") {
                None => None,
                Some(v) => Some(
                    match v.as_array() {
                        Some(list) => list.iter().map(number_scalar).collect::<Option<Vec<_>>>(),
                        None => number_scalar(v).map(|s| vec![s]),
                    }
                    .ok_or_else(|| Failure::Case(format!("polyint: k {v}")))?,
                ),
            };
            r::polyint(&x()?, count_kwarg(case, "m")?.unwrap_or(1), k.as_deref())?
        }
        "vecdot" => r::vecdot(&x()?, y()?, int_kwarg(case, "axis")?.unwrap_or(-1) as isize)?,
        "finfo" => {
            let dtype = dtype_kwarg(case)?.ok_or_else(|| Failure::Case("finfo: no dtype".into()))?;
            let f = xp::finfo(dtype)?;
            let v = [f.eps, f.epsneg, f.max, f.min, f.smallest_normal, f.smallest_subnormal, f.resolution];
            Array::from_slice(&v, &[v.len()])?.astype(f.dtype)?
        }
        "iinfo" => {
            let dtype = dtype_kwarg(case)?.ok_or_else(|| Failure::Case("iinfo: no dtype".into()))?;
            let i = xp::iinfo(dtype)?;
            if dtype == DType::U64 {
                Array::from_slice(&[i.min as u64, i.max as u64], &[2])?
            } else {
                Array::from_slice(&[i.min as i64, i.max as i64], &[2])?.astype(dtype)?
            }
        }
        "linalg.tensorsolve" => {
            let axes = match int_list_kwarg(case, "axes")? {
                None => None,
                Some(list) => Some(
                    list.iter()
                        .map(|&a| {
                            usize::try_from(a).map_err(|_| {
                                Failure::Lib(Error::value(
                                    "tensorsolve",
                                    format!("axes {list:?}: {a} is not in the list of axes"),
                                ))
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
            };
            xp::linalg::tensorsolve(&x()?, y()?, axes.as_deref())?
        }
        "linalg.tensorinv" => {
            let ind = int_kwarg(case, "ind")?.unwrap_or(2);
            let ind = usize::try_from(ind)
                .map_err(|_| Failure::Lib(Error::value("tensorinv", format!("Invalid ind argument {ind}."))))?;
            xp::linalg::tensorinv(&x()?, ind)?
        }
        _ => return Err(unsupported(op)),
    })
}
