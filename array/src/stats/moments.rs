//! Moments and the statistics built on them: `moment`, `skew`, `kurtosis`, `zscore`, `zmap`,
//! `sem`, `variation`, `kstat` and `describe`, all two-pass (centred) in float64.

use xp_backend_api::{Error, Result};

use super::{as_f64, broadcast_pair, reduce_axes, resolution, result_dtype};
use crate::lazy::eval;
use crate::promote::{promote_types, Scalar};
use crate::ufunc::{where_, Operand};
use crate::Array;

/// `x^k` for `k >= 1` by repeated squaring (exact for the small integer orders of moments up
/// to the rounding of each product).
fn powi(x: &Array, k: usize) -> Result<Array> {
    debug_assert!(k >= 1);
    let (mut k, mut base, mut acc): (usize, Array, Option<Array>) = (k, x.clone(), None);
    loop {
        if k & 1 == 1 {
            acc = Some(match acc {
                None => base.clone(),
                Some(r) => r.mul(&base)?,
            });
        }
        k >>= 1;
        if k == 0 {
            break;
        }
        base = base.mul(&base)?;
    }
    Ok(acc.expect("k >= 1 sets a factor"))
}

/// The extents left after reducing `axes` of `shape` (all of them when `None`).
fn reduced_shape(shape: &[usize], axes: &Option<Vec<isize>>) -> Vec<usize> {
    match axes {
        None => Vec::new(),
        Some(ax) => {
            let d = ax[0] as usize;
            shape.iter().enumerate().filter(|&(i, _)| i != d).map(|(_, &e)| e).collect()
        }
    }
}

/// A float64 sample along some axes with its deviations from a centre, ready for moments.
struct Centred {
    /// The deviations `x - centre` (computed, not pending).
    dev: Array,
    /// The mean over the axes, kept as reduced extents of 1 (the centre when none is given).
    mean: Array,
    /// The reduced axes (every axis when `None`).
    axes: Option<Vec<isize>>,
    /// The number of values in each slice.
    n: usize,
}

impl Centred {
    fn new(op: &str, a: &Array, axis: Option<isize>, center: Option<f64>) -> Result<Centred> {
        let x = as_f64(op, a)?;
        let (axes, n) = reduce_axes(op, &x, axis)?;
        let mean = x.mean(axes.as_deref(), true)?;
        let dev = match center {
            None => x.sub(&mean)?,
            Some(c) => x.sub(c)?,
        };
        eval(&[&dev])?;
        Ok(Centred { dev, mean, axes, n })
    }

    /// The mean of the `k`-th powers of the deviations over the axes (`k >= 1`).
    fn moment(&self, k: usize) -> Result<Array> {
        powi(&self.dev, k)?.mean(self.axes.as_deref(), false)
    }

    /// The sum of the `k`-th powers of the deviations over the axes (`k >= 1`).
    fn power_sum(&self, k: usize) -> Result<Array> {
        powi(&self.dev, k)?.sum(self.axes.as_deref(), false)
    }

    /// The variance with `ddof` delta degrees of freedom, keeping reduced extents of 1 when
    /// `keepdims`; NaN where there are `ddof` values or fewer.
    fn var(&self, ddof: usize, keepdims: bool) -> Result<Array> {
        let ss = self.dev.mul(&self.dev)?.sum(self.axes.as_deref(), keepdims)?;
        let dof = self.n as f64 - ddof as f64;
        ss.div(if dof > 0.0 { dof } else { f64::NAN })
    }

    /// The mean without the kept extents.
    fn mean(&self) -> Result<Array> {
        let shape: Vec<isize> = reduced_shape(self.dev.shape(), &self.axes).iter().map(|&d| d as isize).collect();
        self.mean.reshape(&shape)
    }

    /// Where the second moment `m2` vanishes relative to the mean: `m2 <= (res · mean)²`.
    fn vanishing(&self, m2: &Array, res: f64) -> Result<Array> {
        let scaled = self.mean()?.mul(res)?;
        m2.le(&scaled.mul(&scaled)?)
    }
}

/// The order(s) of [`moment`]: one order (a result of the reduced shape) or several (their
/// results stacked on a new leading axis), as SciPy's `order` is an int or a list of ints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MomentOrder {
    /// One order.
    One(usize),
    /// Several orders, stacked in this order.
    Many(Vec<usize>),
}

impl From<usize> for MomentOrder {
    fn from(k: usize) -> Self {
        MomentOrder::One(k)
    }
}

impl From<Vec<usize>> for MomentOrder {
    fn from(k: Vec<usize>) -> Self {
        MomentOrder::Many(k)
    }
}

impl From<&[usize]> for MomentOrder {
    fn from(k: &[usize]) -> Self {
        MomentOrder::Many(k.to_vec())
    }
}

impl<const N: usize> From<[usize; N]> for MomentOrder {
    fn from(k: [usize; N]) -> Self {
        MomentOrder::Many(k.to_vec())
    }
}

/// SciPy's `moment(a, order, axis, center)`: the `order`-th moment about `center` (about the
/// mean when `None`, the central moment) over `axis` (`None`: the flattened array; SciPy's
/// default is `Some(0)`), `mean((a - center)**order)`.
///
/// As SciPy: order 0 gives ones and order 1 about the mean gives zeros (without looking at
/// the data); several orders ([`MomentOrder::Many`], `[1, 2]` or a `Vec`) are stacked on a
/// new leading axis. Floats keep their dtype, integers give float64. The deviations are taken
/// from the mean first and then raised to the power (the two-pass formula), in float64.
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::{stats, Array};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5]).unwrap();
/// assert_eq!(stats::moment(&a, 2, Some(0), None).unwrap().item::<f64>().unwrap(), 2.0);
/// let m = stats::moment(&a, [1, 3], Some(0), Some(1.0)).unwrap();
/// assert_eq!(m.to_vec::<f64>().unwrap(), vec![2.0, 20.0]);
/// # });
/// ```
pub fn moment(a: &Array, order: impl Into<MomentOrder>, axis: Option<isize>, center: Option<f64>) -> Result<Array> {
    let op = "moment";
    let out = result_dtype(op, a.dtype())?;
    let c = Centred::new(op, a, axis, center)?;
    let one = |k: usize| -> Result<Array> {
        let shape = reduced_shape(a.shape(), &c.axes);
        if k == 0 || (k == 1 && center.is_none()) {
            return Array::full_on(&a.device_arc(), &shape, if k == 0 { 1.0 } else { 0.0 }, out);
        }
        c.moment(k)?.astype(out)
    };
    match order.into() {
        MomentOrder::One(k) => one(k),
        MomentOrder::Many(ks) => {
            if ks.is_empty() {
                let mut shape = vec![0];
                shape.extend(reduced_shape(a.shape(), &c.axes));
                return Array::empty_on(&a.device_arc(), &shape, out);
            }
            let parts = ks.iter().map(|&k| one(k)).collect::<Result<Vec<_>>>()?;
            crate::stack(&parts.iter().collect::<Vec<_>>(), 0)
        }
    }
}

/// SciPy's `skew(a, axis, bias)`: the sample skewness `m3 / m2**1.5` over `axis` (`None`:
/// the flattened array; SciPy's default is `Some(0)`), with `m2`, `m3` the central moments.
///
/// With `bias` false the result is the adjusted Fisher–Pearson coefficient `G1 = g1 ·
/// sqrt(n (n - 1)) / (n - 2)`, for slices of more than two values (others keep `g1`). A slice
/// whose second moment vanishes (`m2 <= (resolution · mean)²`, the dtype's resolution: 1e-15
/// for float64, 1e-6 for float32) gives NaN, as SciPy. Floats keep their dtype, integers give
/// float64.
pub fn skew(a: &Array, axis: Option<isize>, bias: bool) -> Result<Array> {
    let op = "skew";
    let out = result_dtype(op, a.dtype())?;
    let c = Centred::new(op, a, axis, None)?;
    let (m2, m3) = (c.moment(2)?, c.moment(3)?);
    eval(&[&m2, &m3])?;
    let zero = c.vanishing(&m2, resolution(out))?;
    let mut vals = m3.div(&m2.pow(1.5)?)?;
    if !bias && c.n > 2 {
        let n = c.n as f64;
        vals = vals.mul(((n - 1.0) * n).sqrt() / (n - 2.0))?;
    }
    where_(&zero, Operand::Scalar(Scalar::Float(f64::NAN)), (&vals).into())?.astype(out)
}

/// SciPy's `kurtosis(a, axis, fisher, bias)`: the sample kurtosis `m4 / m2**2` over `axis`
/// (`None`: the flattened array; SciPy's default is `Some(0)`), minus 3 when `fisher` (the
/// excess kurtosis, 0 for a normal distribution; Pearson's definition otherwise).
///
/// With `bias` false the result is the unbiased estimator `G2 = ((n² - 1) m4/m2² - 3 (n -
/// 1)²) / ((n - 2)(n - 3)) + 3` (before Fisher's shift), for slices of more than three values
/// (others keep the biased value). A vanishing second moment gives NaN, as [`skew`]. Floats
/// keep their dtype, integers give float64.
pub fn kurtosis(a: &Array, axis: Option<isize>, fisher: bool, bias: bool) -> Result<Array> {
    let op = "kurtosis";
    let out = result_dtype(op, a.dtype())?;
    let c = Centred::new(op, a, axis, None)?;
    let (m2, m4) = (c.moment(2)?, c.moment(4)?);
    eval(&[&m2, &m4])?;
    let zero = c.vanishing(&m2, resolution(out))?;
    let mut vals = m4.div(&m2.mul(&m2)?)?;
    if !bias && c.n > 3 {
        let n = c.n as f64;
        vals = vals.mul(n * n - 1.0)?.sub(3.0 * (n - 1.0) * (n - 1.0))?.div((n - 2.0) * (n - 3.0))?.add(3.0)?;
    }
    let vals = where_(&zero, Operand::Scalar(Scalar::Float(f64::NAN)), (&vals).into())?;
    let vals = if fisher { vals.sub(3.0)? } else { vals };
    vals.astype(out)
}

/// SciPy's `zmap(scores, compare, axis, ddof)`: `scores` standardised by the mean and the
/// standard deviation (with `ddof` delta degrees of freedom) of `compare` over `axis`
/// (`None`: every value of `compare`; SciPy's default is `Some(0)`). The result has the
/// shape `scores` and the statistics broadcast to (a `Value` error when they do not) and the
/// float dtype of the two operands promoted (integers give float64). A slice with no spread,
/// or `ddof` values or fewer, gives NaN or ±inf, as SciPy.
pub fn zmap(scores: &Array, compare: &Array, axis: Option<isize>, ddof: usize) -> Result<Array> {
    let op = "zmap";
    let out = result_dtype(op, promote_types(scores.dtype(), compare.dtype()))?;
    let c = Centred::new(op, compare, axis, None)?;
    let std = c.var(ddof, true)?.sqrt()?;
    broadcast_pair(op, scores, &std)?;
    as_f64(op, scores)?.sub(&c.mean)?.div(&std)?.astype(out)
}

/// SciPy's `zscore(a, axis, ddof)`: each value's distance from the mean over `axis` (`None`:
/// the whole array; SciPy's default is `Some(0)`) in standard deviations (with `ddof` delta
/// degrees of freedom); `a`'s shape, its float dtype (integers give float64). As [`zmap`]
/// with `compare = a`.
pub fn zscore(a: &Array, axis: Option<isize>, ddof: usize) -> Result<Array> {
    let op = "zscore";
    let out = result_dtype(op, a.dtype())?;
    let c = Centred::new(op, a, axis, None)?;
    let std = c.var(ddof, true)?.sqrt()?;
    c.dev.div(&std)?.astype(out)
}

/// SciPy's `sem(a, axis, ddof)`: the standard error of the mean, `std(a, ddof) / sqrt(n)`
/// over `axis` (`None`: the flattened array; SciPy's defaults are `Some(0)` and `ddof = 1`).
pub fn sem(a: &Array, axis: Option<isize>, ddof: usize) -> Result<Array> {
    let op = "sem";
    let out = result_dtype(op, a.dtype())?;
    let c = Centred::new(op, a, axis, None)?;
    c.var(ddof, false)?.sqrt()?.div((c.n as f64).sqrt())?.astype(out)
}

/// SciPy's `variation(a, axis, ddof)`: the coefficient of variation `std(a, ddof) / mean(a)`
/// over `axis` (`None`: the flattened array; SciPy's defaults are `Some(0)` and `ddof = 0`);
/// a zero mean gives ±inf or NaN.
pub fn variation(a: &Array, axis: Option<isize>, ddof: usize) -> Result<Array> {
    let op = "variation";
    let out = result_dtype(op, a.dtype())?;
    let c = Centred::new(op, a, axis, None)?;
    c.var(ddof, false)?.sqrt()?.div(&c.mean()?)?.astype(out)
}

/// SciPy's `kstat(data, n, axis)`: the `n`-th k-statistic (`1 <= n <= 4`), the unique
/// symmetric unbiased estimator of the `n`-th cumulant, over `axis` (`None`: the flattened
/// array, SciPy's default).
///
/// Computed from the power sums of the deviations from the mean (k-statistics of order 2 and
/// more do not depend on the origin, and centring first avoids the cancellation of raw power
/// sums): `k2 = S2/(N-1)`, `k3 = N S3/((N-1)(N-2))`, `k4 = N ((N+1) S4 - 3 (N-1) S2²/N) /
/// ((N-1)(N-2)(N-3))`. Another `n` is a `Value` error.
pub fn kstat(data: &Array, n: usize, axis: Option<isize>) -> Result<Array> {
    let op = "kstat";
    if !(1..=4).contains(&n) {
        return Err(Error::value(op, format!("'n' must be an integer between 1 and 4, got {n}")));
    }
    let out = result_dtype(op, data.dtype())?;
    let c = Centred::new(op, data, axis, None)?;
    let big = c.n as f64;
    let r = match n {
        1 => c.mean()?,
        2 => c.power_sum(2)?.div(big - 1.0)?,
        3 => c.power_sum(3)?.mul(big / ((big - 1.0) * (big - 2.0)))?,
        _ => {
            let s2 = c.power_sum(2)?;
            let s4 = c.power_sum(4)?;
            s4.mul(big + 1.0)?
                .sub(&s2.mul(&s2)?.mul(3.0 * (big - 1.0) / big)?)?
                .mul(big / ((big - 1.0) * (big - 2.0) * (big - 3.0)))?
        }
    };
    r.astype(out)
}

/// What [`describe`] answers: SciPy's `DescribeResult`.
#[derive(Debug, Clone)]
pub struct DescribeResult {
    /// The number of values in each slice.
    pub nobs: usize,
    /// The smallest and the largest value of each slice (the input's dtype).
    pub minmax: (Array, Array),
    /// The mean.
    pub mean: Array,
    /// The variance with `ddof` delta degrees of freedom.
    pub variance: Array,
    /// The skewness ([`skew`] with `bias`).
    pub skewness: Array,
    /// The kurtosis ([`kurtosis`], Fisher's, with `bias`).
    pub kurtosis: Array,
}

/// SciPy's `describe(a, axis, ddof, bias)`: the number of values, the minimum and maximum,
/// the mean, the variance (`ddof`; SciPy's default 1), the skewness and the (Fisher)
/// kurtosis (biased or not as `bias`) over `axis` (`None`: the flattened array; SciPy's
/// default is `Some(0)`). An empty slice is a `Value` error, as SciPy.
pub fn describe(a: &Array, axis: Option<isize>, ddof: usize, bias: bool) -> Result<DescribeResult> {
    let op = "describe";
    let out = result_dtype(op, a.dtype())?;
    let (axes, n) = reduce_axes(op, a, axis)?;
    if n == 0 {
        return Err(Error::value(op, "the input must not be empty"));
    }
    let c = Centred::new(op, a, axis, None)?;
    Ok(DescribeResult {
        nobs: n,
        minmax: (a.min(axes.as_deref(), false)?, a.max(axes.as_deref(), false)?),
        mean: c.mean()?.astype(out)?,
        variance: c.var(ddof, false)?.astype(out)?,
        skewness: skew(a, axis, bias)?,
        kurtosis: kurtosis(a, axis, true, bias)?,
    })
}

#[cfg(test)]
mod tests {
    use super::reduced_shape;

    #[test]
    fn reduced_shapes() {
        assert_eq!(reduced_shape(&[3, 4, 5], &Some(vec![1])), vec![3, 5]);
        assert_eq!(reduced_shape(&[3, 4, 5], &None), Vec::<usize>::new());
    }
}
