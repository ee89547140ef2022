//! The `interpolate` group: `scipy.interpolate`'s functions, by name.

use super::*;
use xp::interpolate::{self as ip, Extrapolate};

/// A number kwarg that may also be the string "nan"; absent or null is `None`.
fn number_or_nan(case: &Case, key: &str) -> Result<Option<f64>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(v) => match (v.as_f64(), v.as_str()) {
            (Some(f), _) => Ok(Some(f)),
            (_, Some("nan")) => Ok(Some(f64::NAN)),
            _ => Err(Failure::Case(format!("{}: {key} {v} is not a number", case.op))),
        },
    }
}

/// `extrapolate`: null (the class's default), a bool or "periodic".
fn extrapolate_kwarg(case: &Case) -> Result<Option<Extrapolate>, Failure> {
    match case.kwarg("extrapolate") {
        None => Ok(None),
        Some(v) => match (v.as_bool(), v.as_str()) {
            (Some(b), _) => Ok(Some(b.into())),
            (_, Some(s)) => Ok(Some(s.parse()?)),
            _ => Err(Failure::Case(format!("{}: extrapolate {v} is not understood", case.op))),
        },
    }
}

/// `[[order, value], [order, value]]` as (order, value) pairs.
fn deriv_pairs(case: &Case, v: &Value) -> Result<Vec<(usize, f64)>, Failure> {
    let bad = || Failure::Case(format!("{}: bc_type {v} is not understood", case.op));
    v.as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|p| match p.as_array().map(Vec::as_slice) {
            Some([o, val]) => Ok((o.as_u64().ok_or_else(bad)? as usize, val.as_f64().ok_or_else(bad)?)),
            _ => Err(bad()),
        })
        .collect()
}

fn cubic_bc(case: &Case) -> Result<ip::BcType, Failure> {
    match case.kwarg("bc_type") {
        None => Ok(ip::BcType::default()),
        Some(v) => {
            if let Some(s) = v.as_str() {
                return Ok(s.parse()?);
            }
            let pairs = deriv_pairs(case, v)?;
            match pairs.as_slice() {
                [(o1, v1), (o2, v2)] => Ok(ip::BcType::ends(
                    ip::EndCondition::Deriv(*o1 as u32, *v1),
                    ip::EndCondition::Deriv(*o2 as u32, *v2),
                )),
                _ => Err(Failure::Case(format!("{}: bc_type {v} is not two pairs", case.op))),
            }
        }
    }
}

fn nu(case: &Case) -> Result<i64, Failure> {
    Ok(int_kwarg(case, "nu")?.unwrap_or(0))
}

/// Runs `interpolate.<f>` of one case.
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    let a0 = || first(case, arrays);
    let a = |k: usize| nth(case, arrays, k);
    let axis = || -> Result<isize, Failure> { Ok(axis_kwarg(case)?.unwrap_or(0)) };
    Ok(match f {
        "interp1d" => {
            let kind: ip::Interp1dKind = parsed_kwarg(case, "kind", "linear")?;
            let fill = match case.kwarg("fill_value") {
                None => ip::FillValue::default(),
                Some(v) => {
                    if let Some(s) = v.as_str() {
                        s.parse()?
                    } else if let Some(x) = v.as_f64() {
                        ip::FillValue::Value(x)
                    } else {
                        match v.as_array().map(Vec::as_slice) {
                            Some([b, c]) => ip::FillValue::Pair(
                                b.as_f64().ok_or_else(|| Failure::Case(format!("fill_value {v}")))?,
                                c.as_f64().ok_or_else(|| Failure::Case(format!("fill_value {v}")))?,
                            ),
                            _ => return Err(Failure::Case(format!("{}: fill_value {v} is not understood", case.op))),
                        }
                    }
                }
            };
            let bounds_error = case.kwarg("bounds_error").and_then(Value::as_bool);
            let axis = axis_kwarg(case)?.unwrap_or(-1);
            let assume_sorted = bool_kwarg(case, "assume_sorted", false)?;
            ip::Interp1d::new(&a0()?, a(1)?, kind, axis, bounds_error, fill, assume_sorted)?.call(a(2)?)?
        }
        "CubicSpline" => ip::CubicSpline::new(&a0()?, a(1)?, axis()?, cubic_bc(case)?, extrapolate_kwarg(case)?)?
            .call(a(2)?, nu(case)?)?,
        "PchipInterpolator" => {
            ip::PchipInterpolator::new(&a0()?, a(1)?, axis()?, extrapolate_kwarg(case)?)?.call(a(2)?, nu(case)?)?
        }
        "Akima1DInterpolator" => {
            let method: ip::AkimaMethod = parsed_kwarg(case, "method", "akima")?;
            ip::Akima1DInterpolator::new(&a0()?, a(1)?, axis()?, method, extrapolate_kwarg(case)?)?
                .call(a(2)?, nu(case)?)?
        }
        "make_interp_spline" => {
            let k = int_kwarg(case, "k")?.unwrap_or(3) as usize;
            let bc = match case.kwarg("bc_type") {
                None => ip::SplineBc::NotAKnot,
                Some(v) => match v.as_str() {
                    Some(s) => s.parse()?,
                    None => {
                        let pairs = v.as_array().ok_or_else(|| Failure::Case(format!("bc_type {v}")))?;
                        match pairs.as_slice() {
                            [l, r] => ip::SplineBc::Derivs(deriv_pairs(case, l)?, deriv_pairs(case, r)?),
                            _ => return Err(Failure::Case(format!("{}: bc_type {v} is not understood", case.op))),
                        }
                    }
                },
            };
            ip::make_interp_spline(&a0()?, a(1)?, k, None, bc, axis()?)?.call(a(2)?, nu(case)?)?
        }
        "BSpline" => {
            let k = int_kwarg(case, "k")?.ok_or_else(|| Failure::Case("BSpline: no k".into()))? as usize;
            ip::BSpline::new(&a0()?, a(1)?, k, extrapolate_kwarg(case)?, axis()?)?.call(a(2)?, nu(case)?)?
        }
        "PPoly" => ip::PPoly::new(&a0()?, a(1)?, extrapolate_kwarg(case)?)?.call(a(2)?, nu(case)?)?,
        "BarycentricInterpolator" => ip::BarycentricInterpolator::new(&a0()?, a(1)?, axis()?)?.call(a(2)?)?,
        "KroghInterpolator" => ip::KroghInterpolator::new(&a0()?, a(1)?, axis()?)?.call(a(2)?)?,
        "RegularGridInterpolator" | "interpn" => {
            if arrays.len() < 3 {
                return Err(Failure::Case(format!("{}: needs grids, values and xi", case.op)));
            }
            let ng = arrays.len() - 2;
            let grids: Vec<&Array> = arrays[..ng].iter().collect();
            let (values, xi) = (&arrays[ng], &arrays[ng + 1]);
            let method: ip::GridMethod = parsed_kwarg(case, "method", "linear")?;
            let bounds_error = bool_kwarg(case, "bounds_error", true)?;
            let fill = if case.kwargs.contains_key("fill_value") {
                number_or_nan(case, "fill_value")?
            } else {
                Some(f64::NAN)
            };
            if f == "interpn" {
                ip::interpn(&grids, values, xi, method, bounds_error, fill)?
            } else {
                ip::RegularGridInterpolator::new(&grids, values, method, bounds_error, fill)?.call(xi)?
            }
        }
        "RBFInterpolator" => {
            let kernel: ip::RbfKernel = parsed_kwarg(case, "kernel", "thin_plate_spline")?;
            let eps = number_or_nan(case, "epsilon")?;
            let smoothing = number_or_nan(case, "smoothing")?.unwrap_or(0.0);
            let degree = int_kwarg(case, "degree")?;
            ip::RBFInterpolator::new(&a0()?, a(1)?, smoothing, kernel, eps, degree)?.call(a(2)?)?
        }
        _ => return Err(unsupported(&case.op)),
    })
}
