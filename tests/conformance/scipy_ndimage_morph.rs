//! The `ndimage` group: SciPy's ndimage morphology and measurements, by name.

use super::*;

/// Runs `ndimage.<f>` of one case when it is one of this file's ops (`None` otherwise).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    const OPS: &[&str] = &[
        "label",
        "label_num_features",
        "find_objects",
        "sum_labels",
        "sum",
        "mean",
        "variance",
        "standard_deviation",
        "minimum",
        "maximum",
        "median",
        "center_of_mass",
        "extrema",
        "minimum_position",
        "maximum_position",
        "histogram",
        "binary_erosion",
        "binary_dilation",
        "binary_opening",
        "binary_closing",
        "binary_fill_holes",
        "binary_hit_or_miss",
        "binary_propagation",
        "grey_erosion",
        "grey_dilation",
        "grey_opening",
        "grey_closing",
        "morphological_gradient",
        "morphological_laplace",
        "white_tophat",
        "black_tophat",
        "distance_transform_edt",
        "generate_binary_structure",
        "iterate_structure",
    ];
    if !OPS.contains(&f) {
        return None;
    }
    Some(dispatch(case, f, arrays))
}

/// A kwarg that is a float or a list of floats, as a list.
fn f64_list_kwarg(case: &Case, key: &str) -> Result<Option<Vec<f64>>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) => Ok(Some(vec![x])),
            None => v
                .as_array()
                .and_then(|l| l.iter().map(|e| e.as_f64()).collect::<Option<Vec<_>>>())
                .map(Some)
                .ok_or_else(|| Failure::Case(format!("{}: {key} {v}", case.op))),
        },
    }
}

fn dispatch(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::ndimage as nd;
    let a = |k: usize| arrays.get(k);
    let x = || first(case, arrays);
    Ok(match f {
        "label" => nd::label(&x()?, a(1))?.0,
        "label_num_features" => {
            let n = nd::label(&x()?, a(1))?.1;
            Array::from_slice(&[n as i64], &[])?
        }
        "find_objects" => nd::find_objects_table(&x()?, 0)?,
        "sum_labels" | "sum" => nd::sum_labels(&x()?, a(1), a(2))?,
        "mean" => nd::mean(&x()?, a(1), a(2))?,
        "variance" => nd::variance(&x()?, a(1), a(2))?,
        "standard_deviation" => nd::standard_deviation(&x()?, a(1), a(2))?,
        "minimum" => nd::minimum(&x()?, a(1), a(2))?,
        "maximum" => nd::maximum(&x()?, a(1), a(2))?,
        "median" => nd::median(&x()?, a(1), a(2))?,
        "center_of_mass" => nd::center_of_mass(&x()?, a(1), a(2))?,
        "minimum_position" => nd::minimum_position(&x()?, a(1), a(2))?,
        "maximum_position" => nd::maximum_position(&x()?, a(1), a(2))?,
        "extrema" => {
            let (lo, hi, _, _) = nd::extrema(&x()?, a(1), a(2))?;
            stacked(&[lo, hi])?
        }
        "histogram" => {
            let bins = count_kwarg(case, "bins")?.ok_or_else(|| Failure::Case("histogram: no bins".into()))?;
            nd::histogram(&x()?, f64_kwarg(case, "min")?, f64_kwarg(case, "max")?, bins, a(1), a(2))?
        }
        "binary_erosion" | "binary_dilation" => {
            let it = int_kwarg(case, "iterations")?.unwrap_or(1);
            let border = int_kwarg(case, "border_value")?.unwrap_or(0) != 0;
            let origin = int_list_kwarg(case, "origin")?;
            let g = if f == "binary_erosion" { nd::binary_erosion } else { nd::binary_dilation };
            g(&x()?, a(1), it, a(2), border, origin.as_deref(), false)?
        }
        "binary_opening" | "binary_closing" => {
            let it = int_kwarg(case, "iterations")?.unwrap_or(1);
            let g = if f == "binary_opening" { nd::binary_opening } else { nd::binary_closing };
            g(&x()?, a(1), it, None, None, false, false)?
        }
        "binary_fill_holes" => nd::binary_fill_holes(&x()?, a(1), None)?,
        "binary_hit_or_miss" => nd::binary_hit_or_miss(&x()?, a(1), a(2), None, None)?,
        "binary_propagation" => {
            let (st, mask) = if arrays.len() >= 3 { (a(1), a(2)) } else { (None, a(1)) };
            nd::binary_propagation(&x()?, st, mask, false, None)?
        }
        "grey_erosion"
        | "grey_dilation"
        | "grey_opening"
        | "grey_closing"
        | "morphological_gradient"
        | "morphological_laplace"
        | "white_tophat"
        | "black_tophat" => {
            let size = int_list_kwarg(case, "size")?.map(|v| v.iter().map(|&s| s.max(0) as usize).collect::<Vec<_>>());
            let mode: nd::Mode = parsed_kwarg(case, "mode", "reflect")?;
            let cval = if case.kwarg("cval").is_some() { f64_kwarg(case, "cval")? } else { 0.0 };
            let is_structure = bool_kwarg(case, "structure", false)?;
            let (fp, st) = if is_structure { (None, a(1)) } else { (a(1), None) };
            let g = match f {
                "grey_erosion" => nd::grey_erosion,
                "grey_dilation" => nd::grey_dilation,
                "grey_opening" => nd::grey_opening,
                "grey_closing" => nd::grey_closing,
                "morphological_gradient" => nd::morphological_gradient,
                "morphological_laplace" => nd::morphological_laplace,
                "white_tophat" => nd::white_tophat,
                _ => nd::black_tophat,
            };
            g(&x()?, size.as_deref(), fp, st, mode, cval, None)?
        }
        "distance_transform_edt" => {
            let samp = f64_list_kwarg(case, "sampling")?;
            nd::distance_transform_edt(&x()?, samp.as_deref())?
        }
        "generate_binary_structure" => {
            let rank = count_kwarg(case, "rank")?.unwrap_or(1);
            let conn = int_kwarg(case, "connectivity")?.unwrap_or(1).max(0) as usize;
            nd::generate_binary_structure(rank, conn)?
        }
        "iterate_structure" => {
            let it = int_kwarg(case, "iterations")?.unwrap_or(1).max(0) as usize;
            nd::iterate_structure(&x()?, it)?
        }
        other => return Err(unsupported(other)),
    })
}
