//! The `ndimage` group: SciPy's ndimage spline interpolation, by name.

use super::*;

/// A kwarg that is a number or a list of numbers, as a list (`default` when absent).
fn f64_list_kwarg(case: &Case, key: &str, default: &[f64]) -> Result<Vec<f64>, Failure> {
    match case.kwarg(key) {
        None => Ok(default.to_vec()),
        Some(v) => match v.as_f64() {
            Some(x) => Ok(vec![x]),
            None => v
                .as_array()
                .and_then(|a| a.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>())
                .ok_or_else(|| Failure::Case(format!("{}: {key} {v} is not a number or a list", case.op))),
        },
    }
}

fn order_kwarg(case: &Case) -> Result<i64, Failure> {
    Ok(int_kwarg(case, "order")?.unwrap_or(3))
}

fn cval_kwarg(case: &Case) -> Result<f64, Failure> {
    Ok(if case.kwarg("cval").is_some() { f64_kwarg(case, "cval")? } else { 0.0 })
}

/// Runs `ndimage.<f>` of one case when it is one of this file's ops (`None` otherwise).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    use xp::ndimage::{self, Mode};
    let go = || -> Result<Array, Failure> {
        let input = first(case, arrays)?;
        let prefilter = bool_kwarg(case, "prefilter", true)?;
        Ok(match f {
            "spline_filter" => {
                ndimage::spline_filter(&input, order_kwarg(case)?, None, parsed_kwarg::<Mode>(case, "mode", "mirror")?)?
            }
            "spline_filter1d" => ndimage::spline_filter1d(
                &input,
                order_kwarg(case)?,
                axis_kwarg(case)?.unwrap_or(-1),
                None,
                parsed_kwarg::<Mode>(case, "mode", "mirror")?,
            )?,
            "map_coordinates" => ndimage::map_coordinates(
                &input,
                nth(case, arrays, 1)?,
                order_kwarg(case)?,
                parsed_kwarg::<Mode>(case, "mode", "constant")?,
                cval_kwarg(case)?,
                prefilter,
            )?,
            "affine_transform" => {
                let shape = match case.kwarg("output_shape") {
                    None => None,
                    Some(v) => Some(usizes(v).ok_or_else(|| Failure::Case(format!("output_shape {v}")))?),
                };
                ndimage::affine_transform(
                    &input,
                    nth(case, arrays, 1)?,
                    &f64_list_kwarg(case, "offset", &[0.0])?,
                    shape.as_deref(),
                    order_kwarg(case)?,
                    parsed_kwarg::<Mode>(case, "mode", "constant")?,
                    cval_kwarg(case)?,
                    prefilter,
                )?
            }
            "shift" => ndimage::shift(
                &input,
                &f64_list_kwarg(case, "shift", &[])?,
                order_kwarg(case)?,
                parsed_kwarg::<Mode>(case, "mode", "constant")?,
                cval_kwarg(case)?,
                prefilter,
            )?,
            "zoom" => ndimage::zoom(
                &input,
                &f64_list_kwarg(case, "zoom", &[])?,
                order_kwarg(case)?,
                parsed_kwarg::<Mode>(case, "mode", "constant")?,
                cval_kwarg(case)?,
                prefilter,
                bool_kwarg(case, "grid_mode", false)?,
            )?,
            "rotate" => {
                let axes = match case.kwarg("axes") {
                    None => (1, 0),
                    Some(v) => match isizes(v).as_deref() {
                        Some([a, b]) => (*a, *b),
                        _ => return Err(Failure::Case(format!("rotate: axes {v}"))),
                    },
                };
                ndimage::rotate(
                    &input,
                    f64_kwarg(case, "angle")?,
                    axes,
                    bool_kwarg(case, "reshape", true)?,
                    order_kwarg(case)?,
                    parsed_kwarg::<Mode>(case, "mode", "constant")?,
                    cval_kwarg(case)?,
                    prefilter,
                )?
            }
            _ => unreachable!(),
        })
    };
    match f {
        "spline_filter" | "spline_filter1d" | "map_coordinates" | "affine_transform" | "shift" | "zoom" | "rotate" => {
            Some(go())
        }
        _ => None,
    }
}
