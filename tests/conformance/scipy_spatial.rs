//! The `spatial` group: `scipy.spatial`'s functions, by name.

use super::*;
use xp::spatial::distance::{self, Force, Metric, MetricArgs};

/// A float kwarg that may be a number or `"inf"`, `"-inf"`, `"nan"` (`default` when absent).
fn float_kwarg(case: &Case, key: &str, default: f64) -> Result<f64, Failure> {
    match case.kwarg(key) {
        None => Ok(default),
        Some(v) => match (v.as_f64(), v.as_str()) {
            (Some(x), _) => Ok(x),
            (None, Some("inf")) => Ok(f64::INFINITY),
            (None, Some("-inf")) => Ok(f64::NEG_INFINITY),
            (None, Some("nan")) => Ok(f64::NAN),
            _ => Err(Failure::Case(format!("{}: {key} {v} is not a number", case.op))),
        },
    }
}

/// `metric` and its arguments: `p` from the kwargs, `V` or `VI` the input after the points.
fn metric_args<'a>(case: &Case, metric: Metric, extra: Option<&'a Array>) -> Result<MetricArgs<'a>, Failure> {
    let p = case.kwarg("p").map(|_| float_kwarg(case, "p", 2.0)).transpose()?;
    let mut args = MetricArgs { p, ..Default::default() };
    match (metric, extra) {
        (_, None) => {}
        (Metric::Mahalanobis, Some(a)) => args.vi = Some(a),
        (_, Some(a)) => args.v = Some(a),
    }
    Ok(args)
}

/// Runs `spatial.<f>` of one case.
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    Ok(match f {
        "distance.cdist" => {
            let metric: Metric = parsed_kwarg(case, "metric", "euclidean")?;
            let args = metric_args(case, metric, arrays.get(2))?;
            distance::cdist(nth(case, arrays, 0)?, nth(case, arrays, 1)?, metric, &args)?
        }
        "distance.pdist" => {
            let metric: Metric = parsed_kwarg(case, "metric", "euclidean")?;
            let args = metric_args(case, metric, arrays.get(1))?;
            distance::pdist(nth(case, arrays, 0)?, metric, &args)?
        }
        "distance.squareform" => {
            let force: Force = parsed_kwarg(case, "force", "no")?;
            distance::squareform(nth(case, arrays, 0)?, force, bool_kwarg(case, "checks", true)?)?
        }
        "distance_matrix" => {
            xp::spatial::distance_matrix(nth(case, arrays, 0)?, nth(case, arrays, 1)?, float_kwarg(case, "p", 2.0)?)?
        }
        "minkowski_distance" => {
            xp::spatial::minkowski_distance(nth(case, arrays, 0)?, nth(case, arrays, 1)?, float_kwarg(case, "p", 2.0)?)?
        }
        "KDTree.query_d" | "KDTree.query_i" => {
            let leafsize = int_kwarg(case, "leafsize")?.unwrap_or(10);
            let leafsize = usize::try_from(leafsize).map_err(|_| Failure::Case(format!("leafsize {leafsize}")))?;
            let tree = xp::spatial::KDTree::new(nth(case, arrays, 0)?, leafsize)?;
            let k = int_kwarg(case, "k")?.unwrap_or(1);
            let k = usize::try_from(k).map_err(|_| Failure::Case(format!("k {k}")))?;
            let (d, i) = tree.query(
                nth(case, arrays, 1)?,
                k,
                float_kwarg(case, "eps", 0.0)?,
                float_kwarg(case, "p", 2.0)?,
                float_kwarg(case, "distance_upper_bound", f64::INFINITY)?,
            )?;
            if f.ends_with("_d") {
                d
            } else {
                i
            }
        }
        _ => return Err(unsupported(&case.op)),
    })
}
