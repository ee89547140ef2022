//! Counting and binning: `bincount`, `histogram`, `histogram_bin_edges`, `histogram2d`,
//! `histogramdd`, `digitize`, `interp`.
//!
//! They run the binning kernels of `xp_kernels::binning`: atomic counts (privatised per block
//! in shared memory when the bins are few), a bin found arithmetically for equal bins (NumPy's
//! formula and its correction at the edges) or by a binary search over edges. Names,
//! arguments, result dtypes and errors follow NumPy's.

use std::sync::Arc;

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, Result};
use xp_kernels::binning::{plan_digitize, plan_histogram, plan_interp, BinSource};

use crate::exec::{run_launches, target_of, Bindings};
use crate::promote::promote_types;
use crate::{Array, SliceArg};

/// `a` as a C-contiguous array of `dtype`.
fn contiguous_as(a: &Array, dtype: DType) -> Result<Array> {
    if a.dtype() == dtype {
        a.ascontiguous()
    } else {
        a.astype(dtype)?.ascontiguous()
    }
}

fn refuse_complex(op: &str, a: &Array) -> Result<()> {
    if a.dtype().is_complex() {
        return Err(Error::unsupported_dtype(op, a.dtype()));
    }
    Ok(())
}

/// Runs a histogram kernel over the contiguous `x` (of the source's type) into `nb` zeroed
/// bins: int64 counts, or float64 sums of `weights`.
fn run_histogram(
    dev: &Arc<dyn DynDevice>,
    source: BinSource,
    x: &Array,
    weights: Option<&Array>,
    edges: Option<&Array>,
    nb: usize,
    denom: f64,
) -> Result<Array> {
    let out_dtype = if weights.is_some() { DType::F64 } else { DType::I64 };
    let out = Array::full_on(dev, &[nb], 0, out_dtype)?;
    if x.size() == 0 || nb == 0 {
        return Ok(out);
    }
    let plan = plan_histogram(source, weights.is_some(), x.size(), nb, denom, target_of(dev));
    // Unused operand slots are bound to `x`; the plan passes null for them.
    let w = weights.unwrap_or(x);
    let e = edges.unwrap_or(x);
    run_launches(dev, &[plan], Bindings { output: Some(&out), operands: &[x, w, e], ..Default::default() })?;
    Ok(out)
}

/// Weights as contiguous float64 of `a`'s shape (NumPy's "weights should have the same
/// shape as a").
fn check_weights(op: &str, a: &Array, weights: Option<&Array>) -> Result<Option<Array>> {
    let Some(w) = weights else { return Ok(None) };
    refuse_complex(op, w)?;
    if w.shape() != a.shape() {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: a.shape().to_vec(),
            rhs: w.shape().to_vec(),
            reason: "weights should have the same shape as a".into(),
        });
    }
    Ok(Some(contiguous_as(&w.ravel()?, DType::F64)?))
}

/// NumPy's `bincount(x, weights, minlength)`: the number of occurrences of each value in the
/// non-negative 1-d integer array `x` (int64), or the sum of `weights` at each value
/// (float64); `max(x.max() + 1, minlength)` bins.
pub fn bincount(x: &Array, weights: Option<&Array>, minlength: usize) -> Result<Array> {
    if let Some(w) = weights {
        crate::exec::same_device("bincount", &[x, w])?;
    }
    let op = "bincount";
    let dev = crate::ufunc::common_device(op, &[x].into_iter().chain(weights).collect::<Vec<_>>())?;
    if !matches!(x.dtype().kind(), DTypeKind::Signed | DTypeKind::Unsigned | DTypeKind::Bool) {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("cannot cast array data from {} to int64 according to the rule 'safe'", x.dtype()),
        });
    }
    if x.ndim() != 1 {
        let why = if x.ndim() == 0 { "object of too small depth" } else { "object too deep" };
        return Err(Error::value(op, format!("{why} for desired array: x must be 1-d, got shape {:?}", x.shape())));
    }
    let w = match weights {
        None => None,
        Some(w) => {
            refuse_complex(op, w)?;
            if w.shape() != x.shape() {
                return Err(Error::ShapeMismatch {
                    op: op.into(),
                    lhs: x.shape().to_vec(),
                    rhs: w.shape().to_vec(),
                    reason: "the weights and list don't have the same length".into(),
                });
            }
            Some(contiguous_as(w, DType::F64)?)
        }
    };
    let mut nb = minlength;
    if x.size() > 0 {
        // The range from the input as it is: reading it in its own (often narrower) dtype
        // costs less than reading the int64 copy the kernel takes.
        let bad = x.dtype() == DType::U64 && x.max(None, false)?.item::<u64>()? > i64::MAX as u64;
        let lo = x.min(None, false)?.astype(DType::I64)?.item::<i64>()?;
        if bad || lo < 0 {
            return Err(Error::value(op, "'list' argument must have no negative elements"));
        }
        let hi = x.max(None, false)?.astype(DType::I64)?.item::<i64>()?;
        nb = nb.max(hi as usize + 1);
    }
    let idx = contiguous_as(x, DType::I64)?;
    run_histogram(&dev, BinSource::Index, &idx, w.as_ref(), None, nb, 0.0)
}

/// The bins of [`histogram`]: a number of equal bins over the range, or their edges.
#[derive(Debug, Clone, Copy)]
pub enum Bins<'a> {
    /// This many equal-width bins over the range (NumPy's `bins=int`).
    Count(usize),
    /// A 1-d array of monotonically increasing edges (NumPy's `bins=array`): the last bin
    /// includes its right edge.
    Edges(&'a Array),
}

/// NumPy's `_get_outer_edges`: the range of equal bins, from `range` or the data.
fn outer_edges(op: &str, a: &Array, range: Option<(f64, f64)>) -> Result<(f64, f64)> {
    let (first, last) = match range {
        Some((first, last)) => {
            if first > last {
                return Err(Error::value(op, "max must be larger than min in range parameter."));
            }
            if !(first.is_finite() && last.is_finite()) {
                return Err(Error::value(op, format!("supplied range of [{first}, {last}] is not finite")));
            }
            (first, last)
        }
        None if a.size() == 0 => (0.0, 1.0),
        None => {
            let f = a.min(None, false)?.astype(DType::F64)?.item::<f64>()?;
            let l = a.max(None, false)?.astype(DType::F64)?.item::<f64>()?;
            if !(f.is_finite() && l.is_finite()) {
                return Err(Error::value(op, format!("autodetected range of [{f}, {l}] is not finite")));
            }
            (f, l)
        }
    };
    Ok(if first == last { (first - 0.5, last + 0.5) } else { (first, last) })
}

/// The dtype NumPy computes equal bins in: the data's float type, float64 for integers.
fn bin_dtype(a: DType) -> DType {
    match a {
        DType::F16 | DType::F32 | DType::F64 => a,
        DType::BF16 => DType::F32,
        _ => DType::F64,
    }
}

/// NumPy's `linspace(first, last, num)` computed in float32, step for step.
fn linspace_f32(first: f32, last: f32, num: usize) -> Vec<f32> {
    let div = num.saturating_sub(1) as f32;
    let delta = last - first;
    let step = delta / div;
    let mut v: Vec<f32> =
        (0..num).map(|i| if step == 0.0 { i as f32 / div * delta + first } else { i as f32 * step + first }).collect();
    if num > 1 {
        v[num - 1] = last;
    }
    v
}

/// Whether `e` never decreases (`strict`: always increases).
fn increasing(e: &Array, strict: bool) -> Result<bool> {
    let n = e.shape()[0] as isize;
    if n < 2 {
        return Ok(true);
    }
    let lo = e.slice(&[SliceArg::range(0, n - 1, 1)])?;
    let hi = e.slice(&[SliceArg::range(1, n, 1)])?;
    let ok = if strict { lo.lt(&hi)? } else { lo.le(&hi)? };
    ok.all(None, false)?.item::<bool>()
}

/// The edges of [`histogram`], and the equal-bin range when the bins are a count.
fn bin_edges(op: &str, a: &Array, bins: Bins<'_>, range: Option<(f64, f64)>) -> Result<(Array, Option<(f64, f64)>)> {
    refuse_complex(op, a)?;
    match bins {
        Bins::Count(0) => Err(Error::value(op, "`bins` must be positive, when an integer")),
        Bins::Count(n) => {
            let (first, last) = outer_edges(op, a, range)?;
            let dev = a.device_arc();
            let edges = if range.is_none() && a.dtype() == DType::F32 {
                // NumPy's `linspace` of two float32 scalars (the data's min and max) computes
                // in float32.
                Array::from_slice_on(&dev, &linspace_f32(first as f32, last as f32, n + 1), &[n + 1])?
            } else {
                crate::with_device(&dev, || crate::linspace(first, last, n + 1, true, Some(bin_dtype(a.dtype()))))?
            };
            if !increasing(&edges, true)? {
                return Err(Error::value(
                    op,
                    format!("Too many bins for data range. Cannot create {n} finite-sized bins."),
                ));
            }
            Ok((edges, Some((first, last))))
        }
        Bins::Edges(e) => {
            refuse_complex(op, e)?;
            if e.ndim() != 1 {
                return Err(Error::value(op, format!("`bins` must be 1d, when an array (got shape {:?})", e.shape())));
            }
            if !increasing(e, false)? {
                return Err(Error::value(op, "`bins` must increase monotonically, when an array"));
            }
            Ok((e.clone(), None))
        }
    }
}

/// NumPy's `histogram_bin_edges(a, bins, range, weights)`: the edges [`histogram`] uses
/// (`weights` only checked: no estimator here uses them).
pub fn histogram_bin_edges(
    a: &Array,
    bins: Bins<'_>,
    range: Option<(f64, f64)>,
    weights: Option<&Array>,
) -> Result<Array> {
    let op = "histogram_bin_edges";
    check_weights(op, a, weights)?;
    Ok(bin_edges(op, a, bins, range)?.0)
}

/// NumPy's `histogram(a, bins, range, density, weights)` of the flattened `a`: `(hist,
/// bin_edges)`. Values outside the range (and NaN) are ignored; every bin is half-open but
/// the last, which includes its right edge. `hist` is int64 counts, or sums of `weights` in
/// their dtype, or with `density` float64 values of the probability density.
pub fn histogram(
    a: &Array,
    bins: Bins<'_>,
    range: Option<(f64, f64)>,
    density: bool,
    weights: Option<&Array>,
) -> Result<(Array, Array)> {
    let op = "histogram";
    let dev = crate::ufunc::common_device(op, &[a].into_iter().chain(weights).collect::<Vec<_>>())?;
    let w = check_weights(op, a, weights)?;
    let (edges, uniform) = bin_edges(op, a, bins, range)?;
    let nb = edges.size().saturating_sub(1);
    let flat = a.ravel()?;
    let hist = match uniform {
        Some((first, last)) => {
            let (source, t) = match edges.dtype() {
                DType::F64 => (BinSource::UniformF64, DType::F64),
                _ => (BinSource::UniformF32, DType::F32),
            };
            let (x, e) = (contiguous_as(&flat, t)?, contiguous_as(&edges, t)?);
            run_histogram(&dev, source, &x, w.as_ref(), Some(&e), nb, last - first)?
        }
        None => {
            let (x, e) = (contiguous_as(&flat, DType::F64)?, contiguous_as(&edges, DType::F64)?);
            if nb == 0 {
                Array::full_on(&dev, &[0], 0, if w.is_some() { DType::F64 } else { DType::I64 })?
            } else {
                run_histogram(&dev, BinSource::EdgesF64, &x, w.as_ref(), Some(&e), nb, 0.0)?
            }
        }
    };
    let hist = match weights {
        Some(w) if w.dtype() != DType::F64 && !density => hist.astype(w.dtype())?,
        _ => hist,
    };
    if density {
        let n = nb as isize;
        let widths = edges
            .slice(&[SliceArg::range(1, n + 1, 1)])?
            .astype(DType::F64)?
            .sub(&edges.slice(&[SliceArg::range(0, n, 1)])?.astype(DType::F64)?)?;
        let h = hist.astype(DType::F64)?;
        let total = h.sum(None, false)?;
        return Ok((h.div(&widths)?.div(&total)?, edges));
    }
    Ok((hist, edges))
}

/// NumPy's `histogramdd(sample, bins, range, density, weights)` of an `(N, D)` sample: the
/// `D`-dimensional histogram (float64 counts, sums or densities, as NumPy's) and each
/// dimension's edges. `bins` and `range` give one entry per dimension.
pub fn histogramdd(
    sample: &Array,
    bins: &[Bins<'_>],
    range: Option<&[(f64, f64)]>,
    density: bool,
    weights: Option<&Array>,
) -> Result<(Array, Vec<Array>)> {
    let op = "histogramdd";
    refuse_complex(op, sample)?;
    let sample = match sample.ndim() {
        1 => sample.reshape(&[-1, 1])?,
        2 => sample.clone(),
        _ => {
            return Err(Error::value(op, format!("sample must be (N, D), got shape {:?}", sample.shape())));
        }
    };
    let (n, d) = (sample.shape()[0], sample.shape()[1]);
    if bins.len() != d {
        return Err(Error::value(op, "The dimension of bins must be equal to the dimension of the sample x."));
    }
    if range.is_some_and(|r| r.len() != d) {
        return Err(Error::value(op, format!("range must have one (min, max) per dimension ({d})")));
    }
    let dev = sample.device_arc();
    let w = match weights {
        None => None,
        Some(w) => {
            refuse_complex(op, w)?;
            if w.shape() != [n] {
                return Err(Error::ShapeMismatch {
                    op: op.into(),
                    lhs: vec![n],
                    rhs: w.shape().to_vec(),
                    reason: "weights must have one value per sample".into(),
                });
            }
            Some(contiguous_as(w, DType::F64)?)
        }
    };
    // Each sample's bin along each dimension (digitize, as NumPy), then one flat index.
    let mut edges = Vec::with_capacity(d);
    let mut flat: Option<Array> = None;
    let mut keep: Option<Array> = None;
    let mut dims = Vec::with_capacity(d);
    for (k, b) in bins.iter().enumerate() {
        // NumPy's edges here are float64 whatever the sample's dtype.
        let col =
            sample.slice(&[SliceArg::range(0, isize::MAX, 1), SliceArg::Index(k as isize)])?.astype(DType::F64)?;
        let (e, _) = bin_edges(op, &col, *b, range.map(|r| r[k]))?;
        let nbk = e.size().saturating_sub(1);
        // digitize(right=False) - 1, with values on the last edge in the last bin.
        let ef = contiguous_as(&e, DType::F64)?;
        let colf = contiguous_as(&col, DType::F64)?;
        let mut i = digitize(&colf, &ef, false)?.add_scalar(-1)?;
        if nbk > 0 {
            let last = ef.slice(&[SliceArg::Index(nbk as isize)])?;
            i = crate::where_(
                &colf.eq(&last)?,
                (&Array::scalar_on(&dev, nbk as i64 - 1, DType::I64)?).into(),
                (&i).into(),
            )?;
        }
        let inside = i.ge(0)?.logical_and(&i.lt(nbk as i64)?)?;
        keep = Some(match keep {
            None => inside,
            Some(k) => k.logical_and(&inside)?,
        });
        flat = Some(match flat {
            None => i,
            Some(f) => f.mul_scalar(nbk as i64)?.add(&i)?,
        });
        dims.push(nbk);
        edges.push(e);
    }
    let total: usize = dims.iter().product();
    let (Some(flat), Some(keep)) = (flat, keep) else {
        return Err(Error::value(op, "the sample must have at least one dimension"));
    };
    // Samples outside any dimension's bins go nowhere: drop them before counting.
    let idx = contiguous_as(&flat.getitem(&[crate::IndexItem::Mask(&keep)])?, DType::I64)?;
    let wk = match &w {
        Some(w) => Some(contiguous_as(&w.getitem(&[crate::IndexItem::Mask(&keep)])?, DType::F64)?),
        None => None,
    };
    let hist = run_histogram(&dev, BinSource::Index, &idx, wk.as_ref(), None, total, 0.0)?;
    let shape: Vec<isize> = dims.iter().map(|&x| x as isize).collect();
    // NumPy's `histogramdd` answers float64 counts.
    let mut hist = hist.reshape(&shape)?.astype(DType::F64)?;
    if density {
        let mut h = hist.astype(DType::F64)?;
        h = h.div(&h.sum(None, false)?)?;
        for (k, e) in edges.iter().enumerate() {
            let m = dims[k] as isize;
            let width = e
                .slice(&[SliceArg::range(1, m + 1, 1)])?
                .astype(DType::F64)?
                .sub(&e.slice(&[SliceArg::range(0, m, 1)])?.astype(DType::F64)?)?;
            let mut s = vec![1isize; d];
            s[k] = m;
            h = h.div(&width.reshape(&s)?)?;
        }
        hist = h;
    }
    Ok((hist, edges))
}

/// NumPy's `histogram2d(x, y, bins, range, density, weights)`: the 2-d histogram of the
/// points `(x[i], y[i])` (rows follow `x`), and the edges along `x` and along `y`.
pub fn histogram2d(
    x: &Array,
    y: &Array,
    bins: [Bins<'_>; 2],
    range: Option<[(f64, f64); 2]>,
    density: bool,
    weights: Option<&Array>,
) -> Result<(Array, Array, Array)> {
    let op = "histogram2d";
    if x.ndim() != 1 || x.shape() != y.shape() {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: x.shape().to_vec(),
            rhs: y.shape().to_vec(),
            reason: "x and y must be 1-d arrays of the same length".into(),
        });
    }
    let t = promote_types(x.dtype(), y.dtype());
    let sample = crate::stack(&[&x.astype(t)?, &y.astype(t)?], 1)?;
    let (h, mut e) = histogramdd(&sample, &bins, range.as_ref().map(|r| &r[..]), density, weights)?;
    let ey = e.pop().expect("two dimensions");
    let ex = e.pop().expect("two dimensions");
    Ok((h, ex, ey))
}

/// Whether the 1-d `bins` increase (`Some(false)`), decrease (`Some(true)`) or neither
/// (`None`); equal bins count as increasing, as NumPy's `_monotonicity`.
fn monotonic_decreasing(bins: &Array) -> Result<Option<bool>> {
    if increasing(bins, false)? {
        return Ok(Some(false));
    }
    let n = bins.shape()[0] as isize;
    let rev = bins.slice(&[SliceArg::Range { start: Some(n - 1), stop: None, step: Some(-1) }])?;
    Ok(if increasing(&rev, false)? { Some(true) } else { None })
}

/// NumPy's `digitize(x, bins, right)`: for each element of `x`, the index `i` of its bin
/// (int64, `x`'s shape): `bins[i-1] <= x < bins[i]` for increasing bins
/// (`bins[i-1] < x <= bins[i]` with `right`), `bins[i-1] > x >= bins[i]` for decreasing ones
/// (`bins[i-1] >= x > bins[i]` with `right`); 0 or `len(bins)` beyond the ends.
pub fn digitize(x: &Array, bins: &Array, right: bool) -> Result<Array> {
    crate::exec::same_device("digitize", &[x, bins])?;
    let op = "digitize";
    let dev = crate::ufunc::common_device(op, &[x, bins])?;
    if x.dtype().is_complex() {
        return Err(Error::DType { op: op.into(), reason: "x may not be complex".into() });
    }
    refuse_complex(op, bins)?;
    if bins.ndim() != 1 {
        return Err(Error::value(op, format!("bins must be 1-d, got shape {:?}", bins.shape())));
    }
    let Some(decreasing) = monotonic_decreasing(bins)? else {
        return Err(Error::value(op, "bins must be monotonically increasing or decreasing"));
    };
    let out = Array::empty_on(&dev, x.shape(), DType::I64)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let (xf, bf) = (contiguous_as(x, DType::F64)?, contiguous_as(bins, DType::F64)?);
    let plan = plan_digitize(out.size(), bins.size(), right, decreasing, target_of(&dev));
    run_launches(&dev, &[plan], Bindings { output: Some(&out), operands: &[&xf, &bf], ..Default::default() })?;
    Ok(out)
}

/// NumPy's `interp(x, xp, fp, left, right)`: the piecewise-linear interpolant through
/// `(xp, fp)` at `x` (float64, `x`'s shape). `xp` must increase (not checked, as NumPy);
/// `left` and `right` (default `fp[0]` and `fp[-1]`) are the values beyond the ends.
pub fn interp(x: &Array, xp: &Array, fp: &Array, left: Option<f64>, right: Option<f64>) -> Result<Array> {
    crate::exec::same_device("interp", &[x, xp, fp])?;
    let op = "interp";
    let dev = crate::ufunc::common_device(op, &[x, xp, fp])?;
    for a in [x, xp, fp] {
        refuse_complex(op, a)?;
    }
    if xp.ndim() != 1 || fp.ndim() != 1 {
        return Err(Error::value(
            op,
            format!("xp and fp must be 1-d, got shapes {:?} and {:?}", xp.shape(), fp.shape()),
        ));
    }
    if xp.size() != fp.size() {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: xp.shape().to_vec(),
            rhs: fp.shape().to_vec(),
            reason: "fp and xp are not of the same length.".into(),
        });
    }
    if xp.size() == 0 {
        return Err(Error::value(op, "array of sample points is empty"));
    }
    let (xpf, fpf) = (contiguous_as(xp, DType::F64)?, contiguous_as(fp, DType::F64)?);
    let nxp = xp.size();
    let left = match left {
        Some(v) => v,
        None => fpf.slice(&[SliceArg::Index(0)])?.item::<f64>()?,
    };
    let right = match right {
        Some(v) => v,
        None => fpf.slice(&[SliceArg::Index(nxp as isize - 1)])?.item::<f64>()?,
    };
    let out = Array::empty_on(&dev, x.shape(), DType::F64)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let xf = contiguous_as(x, DType::F64)?;
    let plan = plan_interp(out.size(), nxp, left, right, target_of(&dev));
    run_launches(&dev, &[plan], Bindings { output: Some(&out), operands: &[&xf, &xpf, &fpf], ..Default::default() })?;
    Ok(out)
}

/// NumPy's `interp(x, xp, fp, period=period)`: the interpolant of a periodic function, with
/// `x` and `xp` taken modulo `|period|` and `xp` in any order (`left` and `right` do not apply).
pub fn interp_periodic(x: &Array, xp: &Array, fp: &Array, period: f64) -> Result<Array> {
    crate::exec::same_device("interp", &[x, xp, fp])?;
    let op = "interp";
    if period == 0.0 || !period.is_finite() {
        return Err(Error::value(op, format!("period must be a non-zero finite value, got {period}")));
    }
    let p = period.abs();
    crate::ufunc::common_device(op, &[x, xp, fp])?;
    for a in [x, xp, fp] {
        refuse_complex(op, a)?;
    }
    if xp.ndim() != 1 || fp.ndim() != 1 || xp.size() != fp.size() || xp.size() == 0 {
        // The checks and messages of the plain form.
        return interp(x, xp, fp, None, None);
    }
    let xm = contiguous_as(x, DType::F64)?.rem(p)?;
    let xpm = contiguous_as(xp, DType::F64)?.rem(p)?;
    let order = xpm.argsort(Some(0))?;
    let xs = xpm.take(&order, None)?;
    let fs = contiguous_as(fp, DType::F64)?.take(&order, None)?;
    let n = xs.size() as isize;
    let first = SliceArg::range(0, 1, 1);
    let last = SliceArg::range(n - 1, n, 1);
    let xw = crate::concatenate(&[&xs.slice(&[last])?.sub(p)?, &xs, &xs.slice(&[first])?.add(p)?], 0)?;
    let fw = crate::concatenate(&[&fs.slice(&[last])?, &fs, &fs.slice(&[first])?], 0)?;
    interp(&xm, &xw, &fw, None, None)
}
