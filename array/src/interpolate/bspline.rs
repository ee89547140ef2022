//! B-splines: `BSpline` (evaluated through its piecewise-polynomial form) and
//! `make_interp_spline` (the banded collocation system, solved on the host).

use std::str::FromStr;

use xp_backend_api::{Error, Result};

use super::{host_f64, place_axes, solve_banded, Data1d, Extrapolate, PPoly};
use crate::Array;

/// de Boor's recurrence: the degree-`q` spline with coefficients `a` (`a[j]` of `B_{l-q+j}`)
/// at `x` in knot interval `l`.
fn deboor(t: &[f64], a: &[f64], q: usize, l: usize, x: f64) -> f64 {
    let mut d = a.to_vec();
    for r in 1..=q {
        for j in (r..=q).rev() {
            let i = l + j - q;
            let den = t[i + q + 1 - r] - t[i];
            let alpha = if den == 0.0 { 0.0 } else { (x - t[i]) / den };
            d[j] = (1.0 - alpha) * d[j - 1] + alpha * d[j];
        }
    }
    d[q]
}

/// The derivatives `0..=maxd` at `x` (in knot interval `l`) of the degree-`k` spline whose
/// coefficients on that interval are `a` (`a[j]` of `B_{l-k+j}`): differencing the
/// coefficients gives each derivative's spline, evaluated by de Boor's recurrence.
fn local_derivs(t: &[f64], a: &[f64], k: usize, l: usize, x: f64, maxd: usize) -> Vec<f64> {
    let mut out = vec![0.0; maxd + 1];
    let mut cur = a.to_vec();
    for (r, o) in out.iter_mut().enumerate().take(maxd.min(k) + 1) {
        let q = k - r;
        *o = deboor(t, &cur, q, l, x);
        if q == 0 {
            break;
        }
        cur = (1..=q)
            .map(|jj| {
                let j = l + jj - q;
                let den = t[j + q] - t[j];
                if den == 0.0 {
                    0.0
                } else {
                    q as f64 * (cur[jj] - cur[jj - 1]) / den
                }
            })
            .collect();
    }
    out
}

/// The knot interval `l` (`t[l] <= x < t[l+1]`, `k <= l < nc`) holding `x`; the last non-empty
/// one for `x == t[nc]`.
fn interval(t: &[f64], k: usize, nc: usize, x: f64) -> usize {
    let mut l = k;
    while l + 1 < nc && t[l + 1] <= x {
        l += 1;
    }
    while l > k && t[l] == t[l + 1] {
        l -= 1;
    }
    l
}

/// SciPy's `BSpline(t, c, k, extrapolate=True, axis=0)`: `sum_j c[j] B_{j,k}(x)` on the knots
/// `t`. It is converted once (on the host, in float64) to its piecewise-polynomial form on
/// the distinct knots of `[t[k], t[n]]`, which is evaluated on the device.
#[derive(Debug, Clone)]
pub struct BSpline {
    t: Vec<f64>,
    k: usize,
    c: Array,
    pp: PPoly,
    axis: usize,
}

impl BSpline {
    /// Checks the knots and coefficients as SciPy does and builds the evaluator.
    pub fn new(t: &Array, c: &Array, k: usize, extrapolate: Option<Extrapolate>, axis: isize) -> Result<BSpline> {
        let op = "BSpline";
        if t.ndim() != 1 {
            return Err(Error::value(op, format!("Knot vector must be one-dimensional, not of shape {:?}", t.shape())));
        }
        if c.ndim() == 0 {
            return Err(Error::value(op, "Coefficients must be at least 1-dimensional."));
        }
        let th = host_f64(t)?;
        if th.len() < 2 * k + 2 {
            return Err(Error::value(
                op,
                format!("Need at least {} knots for degree {k}, got {}", 2 * k + 2, th.len()),
            ));
        }
        let n = th.len() - k - 1;
        if th.iter().any(|v| !v.is_finite()) {
            return Err(Error::value(op, "Knots should not have nans or infs."));
        }
        if th.windows(2).any(|w| w[1] < w[0]) {
            return Err(Error::value(op, "Knots must be in a non-decreasing order."));
        }
        if th[k] == th[n] {
            return Err(Error::value(op, "Need at least two internal knots."));
        }
        let axis = super::norm_axis(op, axis, c.ndim())?;
        if c.shape()[axis] < n {
            return Err(Error::value(
                op,
                format!(
                    "Knots, coefficients and degree are inconsistent: {} knots, degree {k}, c of shape {:?}",
                    th.len(),
                    c.shape()
                ),
            ));
        }
        let cm = crate::moveaxis(c, &[axis as isize], &[0])?;
        let trail = cm.shape()[1..].to_vec();
        let tt: usize = trail.iter().product();
        let ch = host_f64(&cm)?;
        let pp = to_ppoly(&c.device_arc(), &th, &ch, tt, &trail, k, extrapolate.unwrap_or(Extrapolate::Yes))?;
        Ok(BSpline { t: th, k, c: cm, pp, axis })
    }

    /// The knots.
    pub fn t(&self) -> &[f64] {
        &self.t
    }

    /// The coefficients, the spline's axis first.
    pub fn c(&self) -> &Array {
        &self.c
    }

    /// The degree.
    pub fn k(&self) -> usize {
        self.k
    }

    /// SciPy's `__call__(x, nu=0)`: the `nu`-th derivative at `x`, float64 (a negative `nu`
    /// is an error, as in SciPy).
    pub fn call(&self, x: &Array, nu: i64) -> Result<Array> {
        if nu < 0 {
            return Err(Error::value("BSpline", format!("Cannot do derivative order nu={nu}")));
        }
        place_axes(self.pp.call(x, nu)?, x.ndim(), self.axis)
    }

    /// The piecewise polynomial the spline evaluates through.
    pub fn ppoly(&self) -> &PPoly {
        &self.pp
    }
}

/// The piecewise-polynomial form of a B-spline: on each non-empty knot interval of
/// `[t[k], t[n]]` the Taylor coefficients at its left end.
fn to_ppoly(
    dev: &std::sync::Arc<dyn xp_backend_api::DynDevice>,
    t: &[f64],
    c: &[f64],
    tt: usize,
    trail: &[usize],
    k: usize,
    ext: Extrapolate,
) -> Result<PPoly> {
    let n = t.len() - k - 1;
    // The non-empty intervals; at and beyond `t[n]` the last interval `n - 1` counts even when
    // empty (SciPy's rule: a degree-0 spline's last coefficient is its value at `t[n]`).
    let mut ls: Vec<usize> = (k..n).filter(|&l| t[l] < t[l + 1]).collect();
    if t[n - 1] == t[n] {
        ls.push(n - 1);
    }
    let m = ls.len();
    let mut bp: Vec<f64> = ls.iter().map(|&l| t[l]).collect();
    bp.push(t[n]);
    let mut pc = vec![0.0; (k + 1) * m * tt];
    let mut fact = vec![1.0; k + 1];
    for r in 1..=k {
        fact[r] = fact[r - 1] * r as f64;
    }
    for (i, &l) in ls.iter().enumerate() {
        for col in 0..tt {
            let a: Vec<f64> = (0..=k).map(|j| c[(l - k + j) * tt + col]).collect();
            let d = local_derivs(t, &a, k, l, t[l], k);
            for r in 0..=k {
                pc[((k - r) * m + i) * tt + col] = d[r] / fact[r];
            }
        }
    }
    PPoly::from_host(dev, &pc, k + 1, trail, bp, ext)
}

/// SciPy's default knots of an interpolating spline of degree `k` (no derivative
/// conditions): the data points without the `(k - 1) / 2` next to each end for odd `k`
/// (not-a-knot), the midpoints without the `k / 2` next to each end for even `k`; the ends
/// repeated `k + 1` times.
pub(crate) fn not_a_knot_knots(op: &str, xs: &[f64], k: usize) -> Result<Vec<f64>> {
    let n = xs.len();
    if n < k + 1 {
        return Err(Error::value(op, format!("at least {} points are needed for k={k}, got {n}", k + 1)));
    }
    if k == 0 {
        return Ok(xs.iter().copied().chain([xs[n - 1]]).collect());
    }
    let inner: Vec<f64> = if k % 2 == 1 {
        let k2 = k.div_ceil(2);
        xs[k2..n - k2].to_vec()
    } else {
        let mids: Vec<f64> = xs.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
        let k2 = k / 2;
        mids[k2..mids.len() - k2].to_vec()
    };
    let mut v = vec![xs[0]; k + 1];
    v.extend(inner);
    v.extend(std::iter::repeat_n(xs[n - 1], k + 1));
    Ok(v)
}

/// The `k + 1` B-splines `B_{l-k}, ..., B_l` of degree `k` at `x`, for the knot interval `l`
/// (`x` may lie outside it: the interval's polynomials continue), by the Cox–de Boor
/// recurrence (Piegl & Tiller, *The NURBS Book*, A2.2).
pub(crate) fn basis_funs(t: &[f64], k: usize, l: usize, x: f64) -> Vec<f64> {
    let mut nv = vec![0.0; k + 1];
    let mut left = vec![0.0; k + 1];
    let mut right = vec![0.0; k + 1];
    nv[0] = 1.0;
    for j in 1..=k {
        left[j] = x - t[l + 1 - j];
        right[j] = t[l + j] - x;
        let mut saved = 0.0;
        for r in 0..j {
            let den = right[r + 1] + left[j - r];
            let temp = if den == 0.0 { 0.0 } else { nv[r] / den };
            nv[r] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        nv[j] = saved;
    }
    nv
}

/// The collocation matrix of the degree-`k` spline on knots `t` at the points `x`: for each
/// point, the first column and the `k + 1` entries from it.
pub(crate) fn collocation_rows(t: &[f64], k: usize, x: &[f64]) -> Vec<(usize, Vec<f64>)> {
    let nc = t.len() - k - 1;
    x.iter()
        .map(|&xv| {
            let l = interval(t, k, nc, xv);
            (l - k, basis_funs(t, k, l, xv))
        })
        .collect()
}

/// `bc_type` of [`make_interp_spline`].
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SplineBc {
    /// `None`: SciPy's default knots (not-a-knot for odd `k`), no derivative conditions.
    #[default]
    NotAKnot,
    /// `"natural"`: zero second derivatives at both ends (`k = 3`).
    Natural,
    /// `"clamped"`: zero first derivatives at both ends (`k = 3`).
    Clamped,
    /// `((order, value), ...)` at the left and at the right end: `k - 1` conditions in all.
    Derivs(Vec<(usize, f64)>, Vec<(usize, f64)>),
}

impl FromStr for SplineBc {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "not-a-knot" => Ok(SplineBc::NotAKnot),
            "natural" => Ok(SplineBc::Natural),
            "clamped" => Ok(SplineBc::Clamped),
            "periodic" => Err(Error::Unsupported("make_interp_spline: bc_type='periodic'".into())),
            _ => Err(Error::value("make_interp_spline", format!("Unknown boundary condition: {s:?}"))),
        }
    }
}

/// SciPy's `make_interp_spline(x, y, k=3, t=None, bc_type=None, axis=0)`: the B-spline of
/// degree `k` through the data. Its coefficients solve the banded collocation system on the
/// host (Gaussian elimination with partial pivoting, float64).
pub fn make_interp_spline(
    x: &Array,
    y: &Array,
    k: usize,
    t: Option<&Array>,
    bc_type: SplineBc,
    axis: isize,
) -> Result<BSpline> {
    let op = "make_interp_spline";
    let d = Data1d::new(op, x, y, axis, 1)?;
    let (n, tt) = (d.n(), d.t);
    let (left, right) = match &bc_type {
        SplineBc::NotAKnot => (vec![], vec![]),
        SplineBc::Natural => (vec![(2, 0.0)], vec![(2, 0.0)]),
        SplineBc::Clamped => (vec![(1, 0.0)], vec![(1, 0.0)]),
        SplineBc::Derivs(l, r) => (l.clone(), r.clone()),
    };
    let xs = &d.x;
    let knots: Vec<f64> = match t {
        Some(t) => host_f64(t)?,
        None if k == 0 => xs.iter().copied().chain([xs[n - 1]]).collect(),
        None if left.is_empty() && right.is_empty() => not_a_knot_knots(op, xs, k)?,
        None => {
            let mut v = vec![xs[0]; k];
            v.extend_from_slice(xs);
            v.extend(std::iter::repeat_n(xs[n - 1], k));
            v
        }
    };
    let (nl, nr) = (left.len(), right.len());
    if knots.len() < k + 1 || knots.len() - k - 1 != n + nl + nr {
        return Err(Error::value(
            op,
            format!(
                "The number of derivatives at boundaries does not match: expected {}, got {nl}+{nr}",
                (knots.len() as isize - k as isize - 1 - n as isize)
            ),
        ));
    }
    if knots.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::value(op, "Knots must be in a non-decreasing order."));
    }
    let nc = n + nl + nr;
    if nc < k + 1 {
        return Err(Error::value(op, format!("Need at least {} points for degree {k}", k + 1)));
    }
    // Rows: nl derivative conditions at x[0], the n points, nr conditions at x[-1]; each row
    // has k + 1 consecutive entries from column `start`.
    let mut rows: Vec<(usize, Vec<f64>)> = Vec::with_capacity(nc);
    let mut rhs = vec![0.0; nc * tt];
    let basis_row = |xv: f64, order: usize| -> Result<(usize, Vec<f64>)> {
        let l = interval(&knots, k, nc, xv);
        if !(knots[l] <= xv && xv <= knots[l + 1]) {
            return Err(Error::value(op, "Out of bounds: the data lie outside the base interval of the knots"));
        }
        let vals = (0..=k)
            .map(|j| {
                let mut a = vec![0.0; k + 1];
                a[j] = 1.0;
                local_derivs(&knots, &a, k, l, xv, order)[order]
            })
            .collect();
        Ok((l - k, vals))
    };
    for (o, v) in &left {
        rows.push(basis_row(xs[0], *o)?);
        let r = rows.len() - 1;
        rhs[r * tt..(r + 1) * tt].fill(*v);
    }
    for (i, &xv) in xs.iter().enumerate() {
        rows.push(basis_row(xv, 0)?);
        let r = rows.len() - 1;
        rhs[r * tt..(r + 1) * tt].copy_from_slice(&d.y[i * tt..(i + 1) * tt]);
    }
    for (o, v) in &right {
        rows.push(basis_row(xs[n - 1], *o)?);
        let r = rows.len() - 1;
        rhs[r * tt..(r + 1) * tt].fill(*v);
    }
    let (mut kl, mut ku) = (0usize, 0usize);
    for (r, (s, _)) in rows.iter().enumerate() {
        kl = kl.max(r.saturating_sub(*s));
        ku = ku.max((s + k).saturating_sub(r));
    }
    let a = |i: usize, j: usize| {
        let (s, v) = &rows[i];
        if j >= *s && j <= s + k {
            v[j - s]
        } else {
            0.0
        }
    };
    if k > 0 {
        solve_banded(op, nc, kl, ku, a, &mut rhs, tt)?;
    }
    // k = 0: the coefficients are the data (the last point shares the last piece's knot).
    let mut cshape = vec![nc];
    cshape.extend_from_slice(&d.trail);
    let c = Array::from_slice_on(&d.dev, &rhs, &cshape)?;
    let tk = Array::from_slice_on(&d.dev, &knots, &[knots.len()])?;
    let b = BSpline::new(&tk, &c, k, Some(Extrapolate::Yes), 0)?;
    Ok(BSpline { axis: d.axis, ..b })
}
