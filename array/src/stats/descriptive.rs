//! Descriptive statistics that are not moments: `entropy`, `trim_mean`, `boxcox_llf`, the
//! generalised means (`gmean`, `hmean`, `pmean`), `iqr` and the trimmed statistics (`tmean`,
//! `tvar`, `tstd`, `tmin`, `tmax`).

use xp_backend_api::{DType, Error, Result};

use super::{along, as_f64, broadcast_pair, reduce_axes, result_dtype};
use crate::layout::SliceArg;
use crate::lazy::eval;
use crate::promote::{promote_types, Scalar};
use crate::routines::QuantileMethod;
use crate::ufunc::{where_, Operand};
use crate::Array;

/// SciPy's `entropy(pk, qk, base, axis)`: the Shannon entropy `-sum(pk log pk)` of the
/// distribution `pk` (normalised over `axis` to sum to 1), or with `qk` the relative entropy
/// (Kullback–Leibler divergence) `sum(pk log(pk / qk))`, `qk` normalised likewise; in units of
/// `log(base)` (nats when `None`). `axis` `None` treats the flattened array as one
/// distribution (SciPy's default is `Some(0)`).
///
/// `pk` and `qk` broadcast together (a `Value` error when they cannot); `base <= 0` is a
/// `Value` error. The terms are [`crate::special::entr`] and [`crate::special::rel_entr`], so
/// a zero probability contributes 0, and a zero of `qk` under a positive `pk` gives inf.
/// Floats keep their dtype (the operands' promoted), integers give float64.
pub fn entropy(pk: &Array, qk: Option<&Array>, base: Option<f64>, axis: Option<isize>) -> Result<Array> {
    let op = "entropy";
    if let Some(b) = base {
        if b.is_nan() || b <= 0.0 {
            return Err(Error::value(op, format!("`base` must be a positive number or `None`, got {b}")));
        }
    }
    let out = result_dtype(op, qk.map_or(pk.dtype(), |q| promote_types(pk.dtype(), q.dtype())))?;
    let (mut p, mut q) = (as_f64(op, pk)?, qk.map(|q| as_f64(op, q)).transpose()?);
    if let Some(qv) = &q {
        let shape = broadcast_pair(op, &p, qv)?;
        p = p.broadcast_to(&shape)?;
        q = Some(qv.broadcast_to(&shape)?);
    }
    let (axes, _) = reduce_axes(op, &p, axis)?;
    let axes = axes.as_deref();
    let p = p.div(&p.sum(axes, true)?)?;
    let terms = match &q {
        None => crate::special::entr(&p)?,
        Some(q) => crate::special::rel_entr(&p, &q.div(&q.sum(axes, true)?)?)?,
    };
    let s = terms.sum(axes, false)?;
    let s = match base {
        Some(b) => s.div(b.ln())?,
        None => s,
    };
    s.astype(out)
}

/// `a[.., start..stop, ..]` on axis `ax`.
fn part(a: &Array, ax: usize, start: usize, stop: usize) -> Result<Array> {
    let mut sl = vec![SliceArg::ALL; a.ndim()];
    sl[ax] = SliceArg::range(start as isize, stop as isize, 1);
    a.slice(&sl)
}

/// SciPy's `trim_mean(a, proportiontocut, axis)`: the mean after cutting
/// `floor(proportiontocut · n)` values from each end of each slice sorted along `axis`
/// (`None`: the flattened array; SciPy's default is `Some(0)`).
///
/// A `proportiontocut` that leaves the lower cut past the upper one (more than half) is a
/// `Value` error ("Proportion too big", as SciPy), and so is a negative or NaN one; a cut
/// leaving nothing gives NaN. The sort is xp's on the device (NaNs last). Floats keep their
/// dtype, integers give float64.
pub fn trim_mean(a: &Array, proportiontocut: f64, axis: Option<isize>) -> Result<Array> {
    let op = "trim_mean";
    let out = result_dtype(op, a.dtype())?;
    if proportiontocut.is_nan() || proportiontocut < 0.0 {
        return Err(Error::value(op, format!("proportiontocut must not be negative, got {proportiontocut}")));
    }
    let (x, ax) = along(op, a, axis)?;
    let n = x.shape()[ax];
    let low = (proportiontocut * n as f64).floor() as usize;
    if 2 * low > n {
        return Err(Error::value(op, format!("Proportion too big: cutting {low} of {n} values from each end")));
    }
    // Nothing cut: the mean of the values as they stand (no sort needed).
    let kept = if low == 0 { x } else { part(&x.sort(Some(ax as isize))?, ax, low, n - low)? };
    as_f64(op, &kept)?.mean(Some(&[ax as isize]), false)?.astype(out)
}

/// SciPy's `boxcox_llf(lmb, data, axis)`: the log-likelihood of the Box-Cox transform with
/// parameter `lmb` of positive `data` over `axis` (`None`: the flattened array; SciPy's
/// default is `Some(0)`):
/// `(lmb - 1) Σ log x - n/2 · log(var(y))`, `y = (x^lmb - 1) / lmb` (`log x` for `lmb = 0`).
///
/// The variance is the two-pass one of `x^lmb = exp(lmb log x)`, divided by `lmb²` in log
/// form, so the constant shift of the transform never enters. Non-positive data give NaN (or
/// ±inf); an empty slice gives NaN. Floats keep their dtype, integers give float64.
pub fn boxcox_llf(lmb: f64, data: &Array, axis: Option<isize>) -> Result<Array> {
    let op = "boxcox_llf";
    let out = result_dtype(op, data.dtype())?;
    let x = as_f64(op, data)?;
    let (axes, n) = reduce_axes(op, &x, axis)?;
    let axes = axes.as_deref();
    let logx = x.log()?;
    eval(&[&logx])?;
    let y = if lmb == 0.0 { logx.clone() } else { logx.mul(lmb)?.exp()? };
    eval(&[&y])?;
    let dev = y.sub(&y.mean(axes, true)?)?;
    let logvar = dev.mul(&dev)?.mean(axes, false)?.log()?;
    let logvar = if lmb == 0.0 { logvar } else { logvar.sub(2.0 * lmb.abs().ln())? };
    logx.sum(axes, false)?.mul(lmb - 1.0)?.sub(&logvar.mul(n as f64 / 2.0)?)?.astype(out)
}

/// SciPy's `pmean(a, p, axis)`: the power (Hölder) mean `mean(a**p) ** (1/p)` over `axis`
/// (`None`: the flattened array; SciPy's default is `Some(0)`); `p = 0` is the geometric
/// mean ([`gmean`]). Negative values give NaN, as SciPy. Floats keep their dtype, integers
/// give float64.
pub fn pmean(a: &Array, p: f64, axis: Option<isize>) -> Result<Array> {
    let op = "pmean";
    if p.is_nan() {
        return Err(Error::value(op, "power mean `p` must not be NaN"));
    }
    if p == 0.0 {
        return gmean(a, axis);
    }
    let out = result_dtype(op, a.dtype())?;
    let x = as_f64(op, a)?;
    let (axes, _) = reduce_axes(op, &x, axis)?;
    let neg = x.lt(0.0)?.any(axes.as_deref(), false)?;
    let m = x.pow(p)?.mean(axes.as_deref(), false)?.pow(1.0 / p)?;
    where_(&neg, Operand::Scalar(Scalar::Float(f64::NAN)), (&m).into())?.astype(out)
}

/// SciPy's `gmean(a, axis)`: the geometric mean `exp(mean(log a))` over `axis` (`None`: the
/// flattened array; SciPy's default is `Some(0)`); a zero gives 0, a negative value NaN.
/// Floats keep their dtype, integers give float64.
pub fn gmean(a: &Array, axis: Option<isize>) -> Result<Array> {
    let op = "gmean";
    let out = result_dtype(op, a.dtype())?;
    let x = as_f64(op, a)?;
    let (axes, _) = reduce_axes(op, &x, axis)?;
    x.log()?.mean(axes.as_deref(), false)?.exp()?.astype(out)
}

/// SciPy's `hmean(a, axis)`: the harmonic mean `n / sum(1/a)` over `axis` (`None`: the
/// flattened array; SciPy's default is `Some(0)`); a zero gives 0, a negative value NaN.
/// Floats keep their dtype, integers give float64.
pub fn hmean(a: &Array, axis: Option<isize>) -> Result<Array> {
    pmean(a, -1.0, axis)
}

/// SciPy's `iqr(x, axis, rng, scale, interpolation)`: the distance between the
/// `rng.1`-th and the `rng.0`-th percentiles (SciPy's default `(25, 75)`, the interquartile
/// range; given in either order) over `axis` (`None`: the flattened array, SciPy's default),
/// divided by `scale` (1 for the plain range). `interpolation` is NumPy's percentile method.
/// Percentiles outside `[0, 100]` are a `Value` error. Floats keep their dtype, integers give
/// float64.
pub fn iqr(
    x: &Array,
    axis: Option<isize>,
    rng: (f64, f64),
    scale: f64,
    interpolation: QuantileMethod,
) -> Result<Array> {
    let op = "iqr";
    let out = result_dtype(op, x.dtype())?;
    let ok = |q: f64| (0.0..=100.0).contains(&q);
    if !ok(rng.0) || !ok(rng.1) {
        return Err(Error::value(op, format!("range must be within [0, 100], got ({}, {})", rng.0, rng.1)));
    }
    let (lo, hi) = if rng.0 <= rng.1 { rng } else { (rng.1, rng.0) };
    let x = as_f64(op, x)?;
    let q = crate::percentile(&x, &[lo, hi][..], axis, interpolation, false)?;
    let d = q.at_index(1)?.sub(&q.at_index(0)?)?;
    d.div(scale)?.astype(out)
}

/// The mask of the values of `x` within `limits` (each end `None` for none; `inclusive` says
/// whether each end counts), or `None` when there are no limits.
fn within(x: &Array, limits: (Option<f64>, Option<f64>), inclusive: (bool, bool)) -> Result<Option<Array>> {
    let lower = match limits.0 {
        None => None,
        Some(l) => Some(if inclusive.0 { x.ge(l)? } else { x.gt(l)? }),
    };
    let upper = match limits.1 {
        None => None,
        Some(u) => Some(if inclusive.1 { x.le(u)? } else { x.lt(u)? }),
    };
    Ok(match (lower, upper) {
        (None, None) => None,
        (Some(m), None) | (None, Some(m)) => Some(m),
        (Some(l), Some(u)) => Some(l.logical_and(&u)?),
    })
}

/// SciPy's refusal of limits that leave no value at all.
fn check_some(op: &str, mask: &Option<Array>) -> Result<()> {
    if let Some(m) = mask {
        if m.size() > 0 && !m.any(None, false)?.item::<bool>()? {
            return Err(Error::value(op, "No array values within given limits"));
        }
    }
    Ok(())
}

/// The count, sum and masked float64 values of `a` within `limits` over `axis`.
struct Trimmed {
    x: Array,
    mask: Option<Array>,
    axes: Option<Vec<isize>>,
}

impl Trimmed {
    fn new(
        op: &str,
        a: &Array,
        limits: (Option<f64>, Option<f64>),
        inclusive: (bool, bool),
        axis: Option<isize>,
    ) -> Result<Trimmed> {
        let x = as_f64(op, a)?;
        let (axes, _) = reduce_axes(op, &x, axis)?;
        let mask = within(&x, limits, inclusive)?;
        check_some(op, &mask)?;
        Ok(Trimmed { x, mask, axes })
    }

    /// The values, with those outside the limits set to `fill`.
    fn filled(&self, fill: f64) -> Result<Array> {
        match &self.mask {
            None => Ok(self.x.clone()),
            Some(m) => where_(m, (&self.x).into(), Operand::Scalar(Scalar::Float(fill))),
        }
    }

    fn count(&self, keepdims: bool) -> Result<Array> {
        match &self.mask {
            None => {
                let ones = Array::full_on(&self.x.device_arc(), self.x.shape(), 1.0, DType::F64)?;
                ones.sum(self.axes.as_deref(), keepdims)
            }
            Some(m) => m.astype(DType::F64)?.sum(self.axes.as_deref(), keepdims),
        }
    }

    fn mean(&self, keepdims: bool) -> Result<Array> {
        self.filled(0.0)?.sum(self.axes.as_deref(), keepdims)?.div(&self.count(keepdims)?)
    }

    fn var(&self, ddof: usize) -> Result<Array> {
        let d = self.filled(0.0)?.sub(&self.mean(true)?)?;
        let d = match &self.mask {
            None => d,
            Some(m) => where_(m, (&d).into(), Operand::Scalar(Scalar::Float(0.0)))?,
        };
        let ss = d.mul(&d)?.sum(self.axes.as_deref(), false)?;
        let dof = self.count(false)?.sub(ddof as f64)?;
        let dof = where_(&dof.le(0.0)?, Operand::Scalar(Scalar::Float(f64::NAN)), (&dof).into())?;
        ss.div(&dof)
    }
}

/// SciPy's `tmean(a, limits, inclusive, axis)`: the mean of the values within `limits`
/// (`(lower, upper)`, either `None` for no limit; `inclusive` says whether each limit itself
/// counts) over `axis` (`None`: the flattened array, SciPy's default). No value within the
/// limits at all is a `Value` error, as SciPy; a slice with none gives NaN. Floats keep their
/// dtype, integers give float64.
pub fn tmean(
    a: &Array,
    limits: (Option<f64>, Option<f64>),
    inclusive: (bool, bool),
    axis: Option<isize>,
) -> Result<Array> {
    let op = "tmean";
    let out = result_dtype(op, a.dtype())?;
    Trimmed::new(op, a, limits, inclusive, axis)?.mean(false)?.astype(out)
}

/// SciPy's `tvar(a, limits, inclusive, axis, ddof)`: the variance (two-pass, `ddof` delta
/// degrees of freedom; SciPy's default 1) of the values within `limits` over `axis` (`None`:
/// the flattened array; SciPy's default is `Some(0)`). Limits as [`tmean`].
pub fn tvar(
    a: &Array,
    limits: (Option<f64>, Option<f64>),
    inclusive: (bool, bool),
    axis: Option<isize>,
    ddof: usize,
) -> Result<Array> {
    let op = "tvar";
    let out = result_dtype(op, a.dtype())?;
    Trimmed::new(op, a, limits, inclusive, axis)?.var(ddof)?.astype(out)
}

/// SciPy's `tstd(a, limits, inclusive, axis, ddof)`: the square root of [`tvar`].
pub fn tstd(
    a: &Array,
    limits: (Option<f64>, Option<f64>),
    inclusive: (bool, bool),
    axis: Option<isize>,
    ddof: usize,
) -> Result<Array> {
    let op = "tstd";
    let out = result_dtype(op, a.dtype())?;
    Trimmed::new(op, a, limits, inclusive, axis)?.var(ddof)?.sqrt()?.astype(out)
}

/// The smallest (`max` false) or largest value of `a` beyond `limit`, in `a`'s dtype.
fn trimmed_extreme(
    op: &str,
    a: &Array,
    limit: Option<f64>,
    axis: Option<isize>,
    inclusive: bool,
    max: bool,
) -> Result<Array> {
    result_dtype(op, a.dtype())?;
    let (axes, _) = reduce_axes(op, a, axis)?;
    let axes = axes.as_deref();
    let Some(l) = limit else {
        return if max { a.max(axes, false) } else { a.min(axes, false) };
    };
    let x = as_f64(op, a)?;
    let limits = if max { (None, Some(l)) } else { (Some(l), None) };
    let incl = if max { (true, inclusive) } else { (inclusive, true) };
    let mask = within(&x, limits, incl)?;
    check_some(op, &mask)?;
    let mask = mask.expect("a limit gives a mask");
    let fill = if max { f64::NEG_INFINITY } else { f64::INFINITY };
    let filled = where_(&mask, (&x).into(), Operand::Scalar(Scalar::Float(fill)))?;
    let r = if max { filled.max(axes, false)? } else { filled.min(axes, false)? };
    if a.dtype().is_float() {
        // A slice without a value within the limit has none to give: NaN.
        let none = mask.any(axes, false)?.logical_not()?;
        where_(&none, Operand::Scalar(Scalar::Float(f64::NAN)), (&r).into())?.astype(a.dtype())
    } else {
        r.astype(a.dtype())
    }
}

/// SciPy's `tmin(a, lowerlimit, axis, inclusive)`: the smallest value not below
/// `lowerlimit` (strictly above when `inclusive` is false) over `axis` (`None`: the
/// flattened array; SciPy's default is `Some(0)`), in `a`'s dtype. No value within the limit
/// at all is a `Value` error.
pub fn tmin(a: &Array, lowerlimit: Option<f64>, axis: Option<isize>, inclusive: bool) -> Result<Array> {
    trimmed_extreme("tmin", a, lowerlimit, axis, inclusive, false)
}

/// SciPy's `tmax(a, upperlimit, axis, inclusive)`: the largest value not above `upperlimit`
/// (strictly below when `inclusive` is false), as [`tmin`].
pub fn tmax(a: &Array, upperlimit: Option<f64>, axis: Option<isize>, inclusive: bool) -> Result<Array> {
    trimmed_extreme("tmax", a, upperlimit, axis, inclusive, true)
}

/// Leading-axis element `i` of a stacked result.
trait AtIndex {
    fn at_index(&self, i: isize) -> Result<Array>;
}

impl AtIndex for Array {
    fn at_index(&self, i: isize) -> Result<Array> {
        let mut sl = vec![SliceArg::ALL; self.ndim()];
        sl[0] = SliceArg::range(i, i + 1, 1);
        let shape: Vec<isize> = self.shape()[1..].iter().map(|&d| d as isize).collect();
        self.slice(&sl)?.reshape(&shape)
    }
}
