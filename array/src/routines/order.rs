//! Order statistics and set routines, on top of the radix sort: `median`, `quantile`,
//! `percentile` (NumPy's methods) and their NaN-skipping forms, `isin`, `intersect1d`,
//! `union1d`, `setdiff1d`, `setxor1d`.
//!
//! A quantile sorts along the axis once (NaNs last), then reads each row at the virtual index
//! NumPy's method gives for the row's count of elements and interpolates as NumPy's `_lerp`.
//! The NaN-skipping forms count each row's non-NaN elements, so their indices differ by row and
//! are gathered with `take_along_axis`.

use xp_backend_api::{DType, Error, Result};

use crate::layout::{normalize_axis, SliceArg};
use crate::promote::Scalar;
use crate::sort::{searchsorted, unique, Side};
use crate::ufunc::{where_, Operand};
use crate::Array;

/// NumPy's `method` of `quantile` and `percentile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QuantileMethod {
    /// Interpolation between the neighbours of `(n - 1) q` (NumPy's default).
    #[default]
    Linear,
    /// The lower neighbour.
    Lower,
    /// The higher neighbour.
    Higher,
    /// The nearest neighbour (ties to the even index).
    Nearest,
    /// The mean of both neighbours.
    Midpoint,
    /// Hyndman and Fan's type 5 (`alpha = beta = 1/2`).
    Hazen,
    /// Type 6 (`alpha = beta = 0`).
    Weibull,
    /// Type 8 (`alpha = beta = 1/3`).
    MedianUnbiased,
    /// Type 9 (`alpha = beta = 3/8`).
    NormalUnbiased,
    /// Type 4 (`alpha = 0, beta = 1`).
    InterpolatedInvertedCdf,
    /// Type 1: the element where the empirical distribution first reaches `q` (discontinuous).
    InvertedCdf,
    /// Type 2: as `InvertedCdf`, averaging the two elements where the distribution is flat.
    AveragedInvertedCdf,
    /// Type 3: the nearest element, ties to the even order statistic (discontinuous).
    ClosestObservation,
}

impl QuantileMethod {
    /// The method NumPy calls `name`.
    pub fn from_name(name: &str) -> Option<QuantileMethod> {
        use QuantileMethod::*;
        Some(match name {
            "linear" => Linear,
            "lower" => Lower,
            "higher" => Higher,
            "nearest" => Nearest,
            "midpoint" => Midpoint,
            "hazen" => Hazen,
            "weibull" => Weibull,
            "median_unbiased" => MedianUnbiased,
            "normal_unbiased" => NormalUnbiased,
            "interpolated_inverted_cdf" => InterpolatedInvertedCdf,
            "inverted_cdf" => InvertedCdf,
            "averaged_inverted_cdf" => AveragedInvertedCdf,
            "closest_observation" => ClosestObservation,
            _ => return None,
        })
    }

    /// Whether the result is one of the elements (the input's dtype is kept).
    fn picks(self) -> bool {
        use QuantileMethod::*;
        matches!(self, Lower | Higher | Nearest | InvertedCdf | ClosestObservation)
    }

    fn alpha_beta(self) -> Option<(f64, f64)> {
        use QuantileMethod::*;
        match self {
            Linear => Some((1.0, 1.0)),
            Hazen => Some((0.5, 0.5)),
            Weibull => Some((0.0, 0.0)),
            MedianUnbiased => Some((1.0 / 3.0, 1.0 / 3.0)),
            NormalUnbiased => Some((3.0 / 8.0, 3.0 / 8.0)),
            InterpolatedInvertedCdf => Some((0.0, 1.0)),
            // n q - 1, as NumPy's virtual index for type 2 (type 4's).
            AveragedInvertedCdf => Some((0.0, 1.0)),
            _ => None,
        }
    }
}

/// The quantiles asked for: one (the result has no axis for it) or an array of them (the
/// result's leading axes are its shape), each in [0, 1].
#[derive(Debug, Clone)]
pub enum Quantiles {
    /// A single quantile (a Python float: weak, the input's float dtype is kept).
    One(f64),
    /// Several, of this shape (a list or float64 array: the result is at least float64).
    Many(Vec<f64>, Vec<usize>),
}

impl From<f64> for Quantiles {
    fn from(q: f64) -> Quantiles {
        Quantiles::One(q)
    }
}

impl From<&[f64]> for Quantiles {
    fn from(q: &[f64]) -> Quantiles {
        Quantiles::Many(q.to_vec(), vec![q.len()])
    }
}

impl Quantiles {
    fn values(&self) -> &[f64] {
        match self {
            Quantiles::One(q) => std::slice::from_ref(q),
            Quantiles::Many(v, _) => v,
        }
    }
    fn scaled(&self, by: f64) -> Quantiles {
        match self {
            Quantiles::One(q) => Quantiles::One(q * by),
            Quantiles::Many(v, s) => Quantiles::Many(v.iter().map(|q| q * by).collect(), s.clone()),
        }
    }
}

/// `a` sorted along `axis` moved last (flattened for `None`), and the shape the reduction
/// keeps (with `keepdims`, ones where the axes were).
fn sorted_rows(op: &str, a: &Array, axis: Option<isize>, keepdims: bool) -> Result<(Array, Vec<usize>)> {
    match axis {
        None => {
            let keep = if keepdims { vec![1; a.ndim()] } else { vec![] };
            Ok((a.ravel()?.sort(Some(-1))?, keep))
        }
        Some(ax) => {
            let ax = normalize_axis(op, ax, a.ndim())?;
            let moved = crate::routines::moveaxis(a, &[ax as isize], &[-1])?;
            let mut keep = a.shape().to_vec();
            if keepdims {
                keep[ax] = 1;
            } else {
                keep.remove(ax);
            }
            Ok((moved.sort(Some(-1))?, keep))
        }
    }
}

fn float_result(a: DType, many: bool, method: QuantileMethod) -> DType {
    if method.picks() {
        return a;
    }
    let f = if a.is_float() { a } else { DType::F64 };
    if many {
        crate::promote_types(f, DType::F64)
    } else {
        f
    }
}

/// The element of each row at index `idx` (int64, of the rows' shape) of the sorted `s`.
fn at_index(s: &Array, idx: &Array) -> Result<Array> {
    let taken = crate::routines::take_along_axis(s, &idx.expand_dims(-1)?, -1)?;
    let shape: Vec<isize> = idx.shape().iter().map(|&d| d as isize).collect();
    taken.reshape(&shape)
}

/// Quantile `q` of each row of the sorted `s` (last axis), whose first `count` elements
/// (float64, of the rows' shape) are the ones that count.
fn row_quantile(s: &Array, count: &Array, q: f64, method: QuantileMethod, rt: DType, mean: bool) -> Result<Array> {
    use QuantileMethod::*;
    let n1 = count.sub(1.0)?;
    if matches!(method, InvertedCdf | ClosestObservation) {
        // NumPy's discrete index: the next element unless the virtual index is whole (and,
        // for type 3, the order statistic there is even).
        let v = count.mul(q)?.sub(if method == InvertedCdf { 1.0 } else { 1.5 })?;
        let prev = v.floor()?;
        let whole = v.sub(&prev)?.eq(0.0)?;
        let take_prev = if method == InvertedCdf { whole } else { whole.logical_and(&prev.rem(2.0)?.eq(1.0)?)? };
        let idx = where_(&take_prev, (&prev).into(), (&prev.add(1.0)?).into())?
            .clip(0.0, f64::MAX)?
            .minimum(&n1.maximum(0.0)?)?;
        return at_index(s, &idx.astype(DType::I64)?)?.astype(rt);
    }
    let vi = match method.alpha_beta() {
        Some((alpha, beta)) => count.mul(q)?.add(alpha + q * (1.0 - alpha - beta))?.sub(1.0)?,
        None => {
            let x = n1.mul(q)?;
            match method {
                Lower => x.floor()?,
                Higher => x.ceil()?,
                Nearest => x.rint()?,
                _ => x.floor()?.add(&x.ceil()?)?.mul(0.5)?,
            }
        }
    };
    let last = n1.maximum(0.0)?;
    let prev = vi.floor()?.clip(0.0, f64::MAX)?.minimum(&last)?;
    let next = prev.add(1.0)?.minimum(&last)?;
    let gamma = vi.sub(&prev)?.clip(0.0, 1.0)?;
    // Type 2 takes the next element, or the mean of both where the virtual index is whole
    // (below the first element, the first).
    let gamma = if method == AveragedInvertedCdf {
        let frac = vi.sub(&vi.floor()?)?;
        let g = where_(&frac.eq(0.0)?, Operand::Scalar(Scalar::Float(0.5)), Operand::Scalar(Scalar::Float(1.0)))?;
        where_(&vi.lt(0.0)?, Operand::Scalar(Scalar::Float(0.0)), (&g).into())?
    } else {
        gamma
    };
    // Beyond the last element both neighbours are the last.
    let gamma = where_(&vi.ge(&last)?, Operand::Scalar(Scalar::Float(0.0)), (&gamma).into())?;
    let lo = at_index(s, &prev.astype(DType::I64)?)?.astype(rt)?;
    if method.picks() {
        return Ok(lo);
    }
    let hi = at_index(s, &next.astype(DType::I64)?)?.astype(rt)?;
    if mean {
        // NumPy's median: the mean of the middle element with itself or of the two middle
        // elements.
        let up = at_index(s, &vi.ceil()?.minimum(&last)?.astype(DType::I64)?)?.astype(rt)?;
        return lo.add(&up)?.mul(0.5);
    }
    let diff = hi.sub(&lo)?;
    let g = gamma.astype(rt)?;
    let up = lo.add(&diff.mul(&g)?)?;
    let down = hi.sub(&diff.mul(&g.neg_one_minus()?)?)?;
    where_(&gamma.ge(0.5)?, (&down).into(), (&up).into())
}

trait OneMinus {
    fn neg_one_minus(&self) -> Result<Array>;
}
impl OneMinus for Array {
    /// `1 - self`.
    fn neg_one_minus(&self) -> Result<Array> {
        self.negative()?.add(1.0)
    }
}

fn quantile_impl(
    op: &str,
    a: &Array,
    q: &Quantiles,
    axis: Option<isize>,
    method: QuantileMethod,
    keepdims: bool,
    skip_nan: bool,
) -> Result<Array> {
    let mean = op.contains("median");
    if a.dtype().is_complex() {
        return Err(Error::DType { op: op.into(), reason: format!("a must be real, not {}", a.dtype()) });
    }
    for &v in q.values() {
        if !(0.0..=1.0).contains(&v) {
            let what = if op.contains("percentile") {
                "Percentiles must be in the range [0, 100]"
            } else {
                "Quantiles must be in the range [0, 1]"
            };
            return Err(Error::value(op, what));
        }
    }
    if a.size() == 0 {
        return Err(Error::value(op, "cannot take a quantile of an empty array"));
    }
    let (s, keep) = sorted_rows(op, a, axis, keepdims)?;
    let rows: Vec<usize> = s.shape()[..s.ndim() - 1].to_vec();
    let n = *s.shape().last().expect("sorted rows have an axis");
    let dev = a.device_arc();
    let is_float = a.dtype().is_float();
    let count = if skip_nan && is_float {
        s.isnan()?.logical_not()?.sum(Some(&[-1]), false)?.astype(DType::F64)?
    } else {
        Array::full_on(&dev, &rows, n as f64, DType::F64)?
    };
    let many = matches!(q, Quantiles::Many(..));
    let rt = float_result(a.dtype(), many, method);
    let nan_row = if !is_float {
        None
    } else if skip_nan {
        Some(count.eq(0.0)?)
    } else {
        Some(s.slice(&[SliceArg::Ellipsis, SliceArg::Index(-1)])?.isnan()?)
    };
    let keep_isize: Vec<isize> = keep.iter().map(|&d| d as isize).collect();
    let mut outs = Vec::new();
    for &qv in q.values() {
        let mut r = row_quantile(&s, &count, qv, method, rt, mean)?;
        if let Some(m) = &nan_row {
            r = where_(m, Operand::Scalar(Scalar::Float(f64::NAN)), (&r).into())?;
        }
        outs.push(r.reshape(&keep_isize)?);
    }
    match q {
        Quantiles::One(_) => Ok(outs.pop().expect("one quantile")),
        Quantiles::Many(_, qshape) => {
            let refs: Vec<&Array> = outs.iter().collect();
            let st = crate::stack(&refs, 0)?;
            let mut shape: Vec<isize> = qshape.iter().map(|&d| d as isize).collect();
            shape.extend(&keep_isize);
            st.reshape(&shape)
        }
    }
}

macro_rules! quantile_fns {
    ($($(#[$doc:meta])* $name:ident, $scale:expr, $skip_nan:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name(
            a: &Array,
            q: impl Into<Quantiles>,
            axis: Option<isize>,
            method: QuantileMethod,
            keepdims: bool,
        ) -> Result<Array> {
            quantile_impl(stringify!($name), a, &q.into().scaled($scale), axis, method, keepdims, $skip_nan)
        }
    )*};
}

quantile_fns! {
    /// NumPy's `quantile(a, q, axis, method, keepdims)`.
    quantile, 1.0, false;
    /// NumPy's `percentile(a, q, axis, method, keepdims)` (`q` in percent).
    percentile, 0.01, false;
    /// NumPy's `nanquantile`: `quantile` of the elements that are not NaN (NaN for a row of NaNs).
    nanquantile, 1.0, true;
    /// NumPy's `nanpercentile`.
    nanpercentile, 0.01, true;
}

/// NumPy's `median(a, axis, keepdims)`: the middle element, or the mean of the two middle
/// ones (float64 for integer input); NaN where a row holds a NaN.
pub fn median(a: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    quantile_impl("median", a, &Quantiles::One(0.5), axis, QuantileMethod::Midpoint, keepdims, false)
}

/// NumPy's `nanmedian(a, axis, keepdims)`.
pub fn nanmedian(a: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    quantile_impl("nanmedian", a, &Quantiles::One(0.5), axis, QuantileMethod::Midpoint, keepdims, true)
}

fn flat_unique(a: &Array) -> Result<Array> {
    unique(a)
}

fn common(op: &str, a: &Array, b: &Array) -> Result<(Array, Array)> {
    crate::ufunc::common_device(op, &[a, b])?;
    let t = crate::promote_types(a.dtype(), b.dtype());
    Ok((a.astype(t)?, b.astype(t)?))
}

/// NumPy's `isin(element, test_elements, invert)`: whether each element is among the test
/// elements (a sort of the test elements and a binary search for each element).
pub fn isin(element: &Array, test_elements: &Array, invert: bool) -> Result<Array> {
    let (e, t) = common("isin", element, test_elements)?;
    let dev = e.device_arc();
    if t.size() == 0 || e.size() == 0 {
        return Array::full_on(&dev, element.shape(), invert, DType::Bool);
    }
    let u = flat_unique(&t)?;
    let pos = searchsorted(&u, &e, Side::Left, None)?;
    let last = u.size() as i64 - 1;
    let at = u.take(&pos.minimum(last)?, None)?.reshape(&e.shape().iter().map(|&d| d as isize).collect::<Vec<_>>())?;
    let hit = at.eq(&e)?;
    if invert {
        hit.logical_not()
    } else {
        Ok(hit)
    }
}

/// NumPy's `intersect1d(ar1, ar2)`: the sorted unique values in both.
pub fn intersect1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    let (a, b) = common("intersect1d", ar1, ar2)?;
    let a = flat_unique(&a)?;
    a.compress_mask(&isin(&a, &b, false)?)
}

/// NumPy's `union1d(ar1, ar2)`: the sorted unique values in either.
pub fn union1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    let (a, b) = common("union1d", ar1, ar2)?;
    unique(&crate::concatenate(&[&a.ravel()?, &b.ravel()?], 0)?)
}

/// NumPy's `setdiff1d(ar1, ar2)`: the sorted unique values of `ar1` not in `ar2`.
pub fn setdiff1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    let (a, b) = common("setdiff1d", ar1, ar2)?;
    let a = flat_unique(&a)?;
    a.compress_mask(&isin(&a, &b, true)?)
}

/// NumPy's `setxor1d(ar1, ar2)`: the sorted unique values in exactly one of them.
pub fn setxor1d(ar1: &Array, ar2: &Array) -> Result<Array> {
    let (a, b) = common("setxor1d", ar1, ar2)?;
    let (ua, ub) = (flat_unique(&a)?, flat_unique(&b)?);
    let in_a = ua.compress_mask(&isin(&ua, &ub, true)?)?;
    let in_b = ub.compress_mask(&isin(&ub, &ua, true)?)?;
    crate::concatenate(&[&in_a, &in_b], 0)?.sort(Some(-1))
}
