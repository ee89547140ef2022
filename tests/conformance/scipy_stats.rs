//! The `stats` group: `scipy.stats`'s functions, by name.

use super::*;

/// SciPy's `axis` of a `scipy.stats` function: absent is `default` (SciPy's `axis=0` for most),
/// null is `None` (the flattened array), an int is that axis.
fn stats_axis(case: &Case, default: Option<isize>) -> Result<Option<isize>, Failure> {
    match case.kwargs.get("axis") {
        None => Ok(default),
        Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(|i| Some(i as isize))
            .ok_or_else(|| Failure::Case(format!("{}: axis {v} is not an int or null", case.op))),
    }
}

/// A non-negative int kwarg (`ddof`, `order`), `default` when absent.
fn usize_kwarg(case: &Case, key: &str, default: usize) -> Result<usize, Failure> {
    match int_kwarg(case, key)? {
        None => Ok(default),
        Some(i) => {
            usize::try_from(i).map_err(|_| Failure::Case(format!("{}: {key} {i} is not a non-negative int", case.op)))
        }
    }
}

/// `order` of `moment`: an int or a list of ints.
fn order_kwarg(case: &Case) -> Result<xp::stats::MomentOrder, Failure> {
    let bad = |v: &Value| Failure::Case(format!("{}: order {v} is not a non-negative int or a list of them", case.op));
    match case.kwarg("order") {
        None => Ok(xp::stats::MomentOrder::One(1)),
        Some(v) => match v.as_u64() {
            Some(k) => Ok(xp::stats::MomentOrder::One(k as usize)),
            None => usizes(v).map(xp::stats::MomentOrder::Many).ok_or_else(|| bad(v)),
        },
    }
}

/// An optional float kwarg.
fn opt_f64_kwarg(case: &Case, key: &str) -> Result<Option<f64>, Failure> {
    match case.kwarg(key) {
        None => Ok(None),
        Some(_) => f64_kwarg(case, key).map(Some),
    }
}

/// Runs `stats.<f>` of one case.
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::stats;
    let a = || first(case, arrays);
    Ok(match f {
        "entropy" => stats::entropy(&a()?, arrays.get(1), opt_f64_kwarg(case, "base")?, stats_axis(case, Some(0))?)?,
        "zscore" => stats::zscore(&a()?, stats_axis(case, Some(0))?, usize_kwarg(case, "ddof", 0)?)?,
        "zmap" => stats::zmap(&a()?, nth(case, arrays, 1)?, stats_axis(case, Some(0))?, usize_kwarg(case, "ddof", 0)?)?,
        "trim_mean" => stats::trim_mean(&a()?, f64_kwarg(case, "proportiontocut")?, stats_axis(case, Some(0))?)?,
        "boxcox_llf" => stats::boxcox_llf(f64_kwarg(case, "lmb")?, &a()?, stats_axis(case, Some(0))?)?,
        "skew" => stats::skew(&a()?, stats_axis(case, Some(0))?, bool_kwarg(case, "bias", true)?)?,
        "kurtosis" => stats::kurtosis(
            &a()?,
            stats_axis(case, Some(0))?,
            bool_kwarg(case, "fisher", true)?,
            bool_kwarg(case, "bias", true)?,
        )?,
        "moment" => {
            stats::moment(&a()?, order_kwarg(case)?, stats_axis(case, Some(0))?, opt_f64_kwarg(case, "center")?)?
        }
        "mode" => stats::mode(&a()?, stats_axis(case, Some(0))?, bool_kwarg(case, "keepdims", false)?)?.mode,
        "rankdata" => stats::rankdata(&a()?, parsed_kwarg(case, "method", "average")?, stats_axis(case, None)?)?,
        "pearsonr" => {
            stats::pearsonr(
                &a()?,
                nth(case, arrays, 1)?,
                parsed_kwarg(case, "alternative", "two-sided")?,
                stats_axis(case, Some(0))?,
            )?
            .statistic
        }
        _ => return Err(unsupported(&case.op)),
    })
}
