//! Interpolation on a regular (rectilinear) grid: `RegularGridInterpolator` and `interpn`.

use std::str::FromStr;

use xp_backend_api::{DType, DTypeKind, Error, Result};

use super::bspline::{collocation_rows, not_a_knot_knots};
use super::cubic::pchip_slopes;
use super::kernels::{grid_linear, GRID_MAX_NDIM};
use super::{as_f64, host_f64, Array};
use crate::{searchsorted, where_, Operand, Scalar, Side, SliceArg};

/// `method` of [`RegularGridInterpolator`] and [`interpn`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GridMethod {
    /// Multilinear interpolation in each point's cell (device).
    #[default]
    Linear,
    /// The nearest grid point's value, ties to the lower point (device).
    Nearest,
    /// Tensor-product linear spline: the same values as `Linear` (device).
    Slinear,
    /// Not-a-knot cubic splines, one axis after another (host).
    Cubic,
    /// PCHIP, one axis after another, last axis first (host).
    Pchip,
}

impl FromStr for GridMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "linear" => Ok(GridMethod::Linear),
            "nearest" => Ok(GridMethod::Nearest),
            "slinear" => Ok(GridMethod::Slinear),
            "cubic" => Ok(GridMethod::Cubic),
            "pchip" => Ok(GridMethod::Pchip),
            "quintic" => Err(Error::Unsupported("RegularGridInterpolator: method 'quintic'".into())),
            _ => Err(Error::value("RegularGridInterpolator", format!("Method '{s}' is not defined"))),
        }
    }
}

/// SciPy's `RegularGridInterpolator(points, values, method='linear', bounds_error=True,
/// fill_value=nan)`: `points` one 1-d array per axis (strictly ascending or descending),
/// `values` of shape `(len(p0), len(p1), ..., *trailing)`. `fill_value` `None` extrapolates.
/// Linear, slinear and nearest evaluate on the device; cubic and pchip fit 1-d splines along
/// each axis per query point on the host, as SciPy's own sequence of 1-d fits.
#[derive(Debug, Clone)]
pub struct RegularGridInterpolator {
    grid: Vec<Array>,
    gridh: Vec<Vec<f64>>,
    values: Array,
    trail: Vec<usize>,
    method: GridMethod,
    bounds_error: bool,
    fill_value: Option<f64>,
    spline: Option<TensorSpline>,
    /// The grids' points concatenated, each axis's offset and length (the linear kernel's).
    packed: (Array, Array, Array),
}

/// A tensor-product cubic B-spline: per axis the knots (host and device), and the
/// coefficients `(N, t)` on the device.
#[derive(Debug, Clone)]
struct TensorSpline {
    knots: Vec<Vec<f64>>,
    knots_dev: Vec<Array>,
    coeffs: Array,
}

impl RegularGridInterpolator {
    /// Checks the grid and values as SciPy does.
    pub fn new(
        points: &[&Array],
        values: &Array,
        method: GridMethod,
        bounds_error: bool,
        fill_value: Option<f64>,
    ) -> Result<Self> {
        let op = "RegularGridInterpolator";
        let nd = points.len();
        if nd == 0 {
            return Err(Error::value(op, "at least one grid axis is needed"));
        }
        if values.ndim() < nd {
            return Err(Error::value(
                op,
                format!("There are {nd} point arrays, but values has {} dimensions", values.ndim()),
            ));
        }
        if matches!(values.dtype().kind(), DTypeKind::Complex) {
            return Err(Error::DType { op: op.into(), reason: "complex values are not supported".into() });
        }
        let need = match method {
            GridMethod::Linear | GridMethod::Nearest => 1,
            GridMethod::Slinear => 2,
            GridMethod::Cubic | GridMethod::Pchip => 4,
        };
        let mut values = if matches!(values.dtype().kind(), DTypeKind::Float) {
            values.clone()
        } else {
            values.astype(DType::F64)?
        };
        let mut grid = Vec::with_capacity(nd);
        let mut gridh = Vec::with_capacity(nd);
        for (i, p) in points.iter().enumerate() {
            if p.ndim() != 1 {
                return Err(Error::value(op, format!("The points in dimension {i} must be 1-dimensional")));
            }
            let mut g = host_f64(p)?;
            if g.len() != values.shape()[i] {
                return Err(Error::value(
                    op,
                    format!("There are {} points and {} values in dimension {i}", g.len(), values.shape()[i]),
                ));
            }
            if g.iter().any(|v| !v.is_finite()) {
                return Err(Error::value(op, format!("The points in dimension {i} must be finite")));
            }
            let asc = g.windows(2).all(|w| w[1] > w[0]);
            let desc = g.windows(2).all(|w| w[1] < w[0]);
            if !asc && !desc {
                return Err(Error::value(
                    op,
                    format!("The points in dimension {i} must be strictly ascending or descending"),
                ));
            }
            if !asc {
                g.reverse();
                let rev: Vec<i64> = (0..g.len() as i64).rev().collect();
                let ri = Array::from_slice_on(&values.device_arc(), &rev, &[g.len()])?;
                values = values.take(&ri, Some(i as isize))?;
            }
            if g.len() < need {
                let name = format!("{method:?}").to_lowercase();
                return Err(Error::value(
                    op,
                    format!(
                        "There are {} points in dimension {i}, but method {name} requires at least {need} points per dimension.",
                        g.len()
                    ),
                ));
            }
            grid.push(Array::from_slice_on(&values.device_arc(), &g, &[g.len()])?);
            gridh.push(g);
        }
        let trail = values.shape()[nd..].to_vec();
        let spline = if method == GridMethod::Cubic { Some(fit_tensor_spline(&gridh, &values, 3)?) } else { None };
        let dev = values.device_arc();
        let flat: Vec<f64> = gridh.iter().flatten().copied().collect();
        let mut off = Vec::with_capacity(nd);
        let mut acc = 0i64;
        for g in &gridh {
            off.push(acc);
            acc += g.len() as i64;
        }
        let lens: Vec<i64> = gridh.iter().map(|g| g.len() as i64).collect();
        let packed = (
            Array::from_slice_on(&dev, &flat, &[flat.len()])?,
            Array::from_slice_on(&dev, &off, &[nd])?,
            Array::from_slice_on(&dev, &lens, &[nd])?,
        );
        let values = values.ascontiguous()?;
        Ok(RegularGridInterpolator { grid, gridh, values, trail, method, bounds_error, fill_value, spline, packed })
    }

    /// SciPy's `__call__(xi)`: `xi` of shape `(..., ndim)`; the answer has shape
    /// `xi.shape[:-1] + values.shape[ndim:]`.
    pub fn call(&self, xi: &Array) -> Result<Array> {
        let op = "RegularGridInterpolator";
        let nd = self.grid.len();
        if xi.ndim() == 0 || xi.shape()[xi.ndim() - 1] != nd {
            return Err(Error::value(
                op,
                format!(
                    "The requested sample points xi have dimension {} but this RegularGridInterpolator has dimension {nd}",
                    xi.shape().last().copied().unwrap_or(0)
                ),
            ));
        }
        let lead = xi.shape()[..xi.ndim() - 1].to_vec();
        let m: usize = lead.iter().product();
        let pts = as_f64(xi)?.reshape(&[m as isize, nd as isize])?;
        let cols: Vec<Array> =
            (0..nd).map(|j| pts.slice(&[SliceArg::ALL, SliceArg::Index(j as isize)])).collect::<Result<_>>()?;
        // Out of bounds anywhere: one reduction; the axis is looked for only to name it.
        let mut oob: Option<Array> = None;
        let mut per_axis = Vec::with_capacity(nd);
        for (j, x) in cols.iter().enumerate() {
            let g = &self.gridh[j];
            let o = x.lt(g[0])?.logical_or(&x.gt(g[g.len() - 1])?)?;
            oob = Some(match oob {
                None => o.clone(),
                Some(a) => a.logical_or(&o)?,
            });
            per_axis.push(o);
        }
        let oob = oob.expect("ndim >= 1");
        if self.bounds_error && m > 0 && oob.any(None, false)?.item::<bool>()? {
            for (j, o) in per_axis.iter().enumerate() {
                if o.any(None, false)?.item::<bool>()? {
                    return Err(Error::value(op, format!("One of the requested xi is out of bounds in dimension {j}")));
                }
            }
        }
        let oob = Some(oob);
        let t: usize = self.trail.iter().product();
        let n_all: usize = self.values.shape()[..nd].iter().product();
        let vals = self.values.reshape(&[n_all as isize, t as isize])?;
        let mut r = match self.method {
            GridMethod::Linear | GridMethod::Slinear if nd <= GRID_MAX_NDIM => {
                let (gr, go, gn) = &self.packed;
                grid_linear(&pts.ascontiguous()?, gr, go, gn, &vals, m, t)?
            }
            GridMethod::Linear | GridMethod::Slinear | GridMethod::Nearest => {
                let strides: Vec<i64> =
                    (0..nd).map(|j| self.gridh[j + 1..].iter().map(|g| g.len() as i64).product()).collect();
                let mut idx = Vec::with_capacity(nd);
                let mut w = Vec::with_capacity(nd);
                for (j, x) in cols.iter().enumerate() {
                    let n = self.gridh[j].len();
                    let i = searchsorted(&self.grid[j], x, Side::Left, None)?
                        .add_scalar(-1i64)?
                        .clip(0i64, (n as i64 - 2).max(0))?;
                    let i1 = i.add_scalar(1i64)?.clip(0i64, n as i64 - 1)?;
                    let g0 = self.grid[j].take(&i, None)?;
                    let g1 = self.grid[j].take(&i1, None)?;
                    let den = g1.sub(&g0)?;
                    let wj = if n == 1 { x.mul_scalar(0.0)? } else { x.sub(&g0)?.div(&den)? };
                    idx.push((i, i1));
                    w.push(wj);
                }
                if self.method == GridMethod::Nearest {
                    let mut flat: Option<Array> = None;
                    for j in 0..nd {
                        let pick = where_(&w[j].le(0.5)?, Operand::Array(&idx[j].0), Operand::Array(&idx[j].1))?;
                        let term = pick.mul_scalar(strides[j])?;
                        flat = Some(match flat {
                            None => term,
                            Some(f) => f.add(&term)?,
                        });
                    }
                    vals.take(&flat.expect("ndim >= 1"), Some(0))?
                } else {
                    let mut acc: Option<Array> = None;
                    for corner in 0..(1usize << nd) {
                        let mut flat: Option<Array> = None;
                        let mut weight: Option<Array> = None;
                        for j in 0..nd {
                            let up = corner >> (nd - 1 - j) & 1 == 1;
                            let (ij, wj) = if up {
                                (&idx[j].1, w[j].clone())
                            } else {
                                (&idx[j].0, w[j].mul_scalar(-1.0)?.add_scalar(1.0)?)
                            };
                            let term = ij.mul_scalar(strides[j])?;
                            flat = Some(match flat {
                                None => term,
                                Some(f) => f.add(&term)?,
                            });
                            weight = Some(match weight {
                                None => wj,
                                Some(a) => a.mul(&wj)?,
                            });
                        }
                        let v = as_f64(&vals.take(&flat.expect("ndim >= 1"), Some(0))?)?;
                        let wv = weight.expect("ndim >= 1").reshape(&[m as isize, 1])?;
                        let term = v.mul(&wv)?;
                        acc = Some(match acc {
                            None => term,
                            Some(a) => a.add(&term)?,
                        });
                    }
                    acc.expect("at least one corner")
                }
            }
            GridMethod::Cubic => {
                let sp = self.spline.as_ref().expect("fitted for cubic");
                eval_tensor_spline(sp, &cols, 3)?
            }
            GridMethod::Pchip => {
                let ph = host_f64(&pts)?;
                let vh = host_f64(&vals)?;
                let out = self.spline_host(&ph, m, &vh, t)?;
                let r = Array::from_slice_on(&self.values.device_arc(), &out, &[m, t])?;
                if self.method == GridMethod::Pchip {
                    r.astype(self.values.dtype())?
                } else {
                    r
                }
            }
        };
        if let (Some(f), Some(o)) = (self.fill_value, oob) {
            if !self.bounds_error {
                r = where_(&o.reshape(&[m as isize, 1])?, Operand::Scalar(Scalar::Float(f)), Operand::Array(&r))?;
            }
        }
        let mut shape: Vec<isize> = lead.iter().map(|&d| d as isize).collect();
        shape.extend(self.trail.iter().map(|&d| d as isize));
        r.reshape(&shape)
    }

    /// PCHIP interpolation, one axis after another from the last, per query point.
    fn spline_host(&self, pts: &[f64], m: usize, vals: &[f64], t: usize) -> Result<Vec<f64>> {
        let nd = self.gridh.len();
        let mut out = vec![0.0; m * t];
        for p in 0..m {
            let mut cur = vals.to_vec(); // (n0..n_j, t)
            for j in (0..nd).rev() {
                let g = &self.gridh[j];
                let n = g.len();
                let outer = cur.len() / (n * t);
                let xq = pts[p * nd + j];
                let mut next = vec![0.0; outer * t];
                for o in 0..outer {
                    let block = &cur[o * n * t..(o + 1) * n * t];
                    let mut s = vec![0.0; n * t];
                    for col in 0..t {
                        pchip_slopes(g, block, t, col, &mut s);
                    }
                    let i = g.partition_point(|&v| v < xq).saturating_sub(1).min(n - 2);
                    let h = g[i + 1] - g[i];
                    let dx = xq - g[i];
                    for col in 0..t {
                        let (y0, y1) = (block[i * t + col], block[(i + 1) * t + col]);
                        let (s0, s1) = (s[i * t + col], s[(i + 1) * t + col]);
                        let sl = (y1 - y0) / h;
                        let c3 = (s0 + s1 - 2.0 * sl) / (h * h);
                        let c2 = (3.0 * sl - 2.0 * s0 - s1) / h;
                        next[o * t + col] = ((c3 * dx + c2) * dx + s0) * dx + y0;
                    }
                }
                cur = next;
            }
            out[p * t..(p + 1) * t].copy_from_slice(&cur);
        }
        Ok(out)
    }
}

/// SciPy's `interpn(points, values, xi, method='linear', bounds_error=True, fill_value=nan)`:
/// [`RegularGridInterpolator`] built and called once.
pub fn interpn(
    points: &[&Array],
    values: &Array,
    xi: &Array,
    method: GridMethod,
    bounds_error: bool,
    fill_value: Option<f64>,
) -> Result<Array> {
    RegularGridInterpolator::new(points, values, method, bounds_error, fill_value)?.call(xi)
}

fn dot(a: &[f64], c: &[f64]) -> f64 {
    a.iter().zip(c).map(|(x, y)| x * y).sum::<f64>()
}

fn nrm2(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// `y += alpha * x`.
fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yv, xv) in y.iter_mut().zip(x) {
        *yv += alpha * xv;
    }
}

/// One FGMRES cycle of GCROT(m, k) without preconditioner (Hicken & Zingg's Algorithm 2
/// inner loop): Arnoldi from `v0` (unit norm) with each new vector first orthogonalised
/// against the outer vectors `cs` (projections kept in `bmat`), then against the Krylov
/// basis by modified Gram–Schmidt; the Hessenberg least-squares problem by Givens rotations;
/// stopped after `ml` steps, at a relative residual below `atol`, or at a breakdown.
/// Returns the basis `vs`, the Hessenberg columns `h`, the projections `bmat` (one row per
/// outer vector) and the least-squares solution `y`.
#[allow(clippy::type_complexity)]
fn fgmres(
    apply: &dyn Fn(&[f64]) -> Vec<f64>,
    v0: Vec<f64>,
    ml: usize,
    atol: f64,
    cs: &[&[f64]],
) -> Result<(Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<f64>)> {
    let mut vs = vec![v0];
    let mut h: Vec<Vec<f64>> = Vec::new(); // Hessenberg columns, column j of length j + 2
    let mut r: Vec<Vec<f64>> = Vec::new(); // the rotated columns (upper triangular)
    let mut bmat = vec![Vec::new(); cs.len()];
    let (mut cosines, mut sines): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    let mut g = vec![1.0];
    for j in 0..ml {
        let mut w = apply(&vs[j]);
        let w_norm = nrm2(&w);
        for (i, c) in cs.iter().enumerate() {
            let alpha = dot(c, &w);
            bmat[i].push(alpha);
            axpy(-alpha, c, &mut w);
        }
        let mut hcur = vec![0.0; j + 2];
        for (i, v) in vs.iter().enumerate() {
            let alpha = dot(v, &w);
            hcur[i] = alpha;
            axpy(-alpha, v, &mut w);
        }
        hcur[j + 1] = nrm2(&w);
        let inv = 1.0 / hcur[j + 1];
        if inv.is_finite() {
            w.iter_mut().for_each(|v| *v *= inv);
        }
        // not (h > eps |w|): NaN counts as a breakdown too
        let breakdown = hcur[j + 1].partial_cmp(&(f64::EPSILON * w_norm)) != Some(std::cmp::Ordering::Greater);
        vs.push(w);
        h.push(hcur.clone());
        // Rotate the new column by the previous rotations, then zero its last entry.
        for i in 0..j {
            let (a, c) = (hcur[i], hcur[i + 1]);
            hcur[i] = cosines[i] * a + sines[i] * c;
            hcur[i + 1] = -sines[i] * a + cosines[i] * c;
        }
        let rr = hcur[j].hypot(hcur[j + 1]);
        let (cj, sj) = if rr == 0.0 { (1.0, 0.0) } else { (hcur[j] / rr, hcur[j + 1] / rr) };
        cosines.push(cj);
        sines.push(sj);
        hcur[j] = rr;
        hcur[j + 1] = 0.0;
        g.push(-sj * g[j]);
        g[j] *= cj;
        r.push(hcur);
        if g[j + 1].abs() < atol || breakdown {
            break;
        }
    }
    let nj = r.len();
    if !r[nj - 1][nj - 1].is_finite() {
        return Err(Error::LinAlg {
            op: "RegularGridInterpolator".into(),
            reason: "the spline solver met a non-finite value".into(),
        });
    }
    // y = R⁻¹ g[..nj] by back substitution (a zero pivot contributes nothing).
    let mut y = vec![0.0; nj];
    for i in (0..nj).rev() {
        let s: f64 = (i + 1..nj).map(|c| r[c][i] * y[c]).sum();
        y[i] = if r[i][i] != 0.0 { (g[i] - s) / r[i][i] } else { 0.0 };
    }
    Ok((vs, h, bmat, y))
}

/// SciPy's `sparse.linalg.gcrotmk` (GCROT(m, k), Hicken & Zingg, "A simplified and flexible
/// variant of GCROT for solving nonsymmetric linear systems", SIAM J. Sci. Comput. 32
/// (2010), with the oldest outer vectors dropped), from zero, without preconditioner, stopped
/// when `|b − A x| ≤ max(atol, rtol |b|)`. The first cycle runs `m + k` Arnoldi steps, later
/// ones `m` plus the room left among the `k` outer vectors, exactly as SciPy's, so an inexact
/// solve (SciPy's defaults stop at relative residual 1e-5) stops at the same iterate and the
/// answer agrees with SciPy's to rounding. Not converging in `maxiter` cycles is an error
/// (SciPy's `make_ndbspl` raises it too).
fn gcrotmk(
    apply: &dyn Fn(&[f64]) -> Vec<f64>,
    b: &[f64],
    rtol: f64,
    atol: f64,
    m: usize,
    k: usize,
    maxiter: usize,
) -> Result<Vec<f64>> {
    let n = b.len();
    let mut x = vec![0.0; n];
    let b_norm = nrm2(b);
    if b_norm == 0.0 {
        return Ok(x);
    }
    let mut r = b.to_vec();
    let mut cu: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    let beta_tol = atol.max(rtol * b_norm);
    for j_outer in 0..maxiter {
        let mut beta = nrm2(&r);
        if beta <= beta_tol && (j_outer > 0 || !cu.is_empty()) {
            // recompute the residual to avoid rounding drift
            let ax = apply(&x);
            r = b.iter().zip(&ax).map(|(p, q)| p - q).collect();
            beta = nrm2(&r);
        }
        if beta <= beta_tol {
            return Ok(x);
        }
        let ml = m + k.saturating_sub(cu.len());
        let cs: Vec<&[f64]> = cu.iter().map(|(c, _)| c.as_slice()).collect();
        let v0: Vec<f64> = r.iter().map(|v| v / beta).collect();
        let (vs, h, bmat, mut y) = fgmres(apply, v0, ml, beta_tol / beta, &cs)?;
        y.iter_mut().for_each(|v| *v *= beta);
        // ux = (Z − U B) y, cx = V H y (Z = V without preconditioner)
        let mut ux: Vec<f64> = vs[0].iter().map(|v| v * y[0]).collect();
        for (z, &yc) in vs[1..y.len()].iter().zip(&y[1..]) {
            axpy(yc, z, &mut ux);
        }
        for ((_, u), brow) in cu.iter().zip(&bmat) {
            let byc = dot(brow, &y);
            axpy(-byc, u, &mut ux);
        }
        let mut hy = vec![0.0; y.len() + 1];
        for (col, &yc) in h.iter().zip(&y) {
            for (hv, cv) in hy.iter_mut().zip(col) {
                *hv += cv * yc;
            }
        }
        let mut cx: Vec<f64> = vs[0].iter().map(|v| v * hy[0]).collect();
        for (v, &hyc) in vs[1..].iter().zip(&hy[1..]) {
            axpy(hyc, v, &mut cx);
        }
        let alpha = 1.0 / nrm2(&cx);
        if !alpha.is_finite() {
            continue;
        }
        cx.iter_mut().for_each(|v| *v *= alpha);
        ux.iter_mut().for_each(|v| *v *= alpha);
        let gamma = dot(&cx, &r);
        axpy(-gamma, &cx, &mut r);
        axpy(gamma, &ux, &mut x);
        while cu.len() >= k && !cu.is_empty() {
            cu.remove(0);
        }
        cu.push((cx, ux));
    }
    Err(Error::value(
        "RegularGridInterpolator",
        format!("the spline coefficients' iterative solver (gcrotmk) did not converge in {maxiter} cycles"),
    ))
}

/// The tensor-product spline of degree `k` (not-a-knot knots per axis) through the gridded
/// values: the Kronecker collocation system solved, as SciPy's default (`make_ndbspl` with
/// `gcrotmk`, `atol = 1e-6`, `rtol = 1e-5`), by [`gcrotmk`], one right-hand side per trailing
/// value.
fn fit_tensor_spline(grid: &[Vec<f64>], values: &Array, k: usize) -> Result<TensorSpline> {
    let op = "RegularGridInterpolator";
    let nd = grid.len();
    let dims: Vec<usize> = grid.iter().map(Vec::len).collect();
    let n_all: usize = dims.iter().product();
    let t: usize = values.shape()[nd..].iter().product();
    let vh = host_f64(values)?;
    let knots: Vec<Vec<f64>> = grid.iter().map(|g| not_a_knot_knots(op, g, k)).collect::<Result<_>>()?;
    let rows: Vec<Vec<(usize, Vec<f64>)>> = grid.iter().zip(&knots).map(|(g, kn)| collocation_rows(kn, k, g)).collect();
    let strides: Vec<usize> = (0..nd).map(|j| dims[j + 1..].iter().product()).collect();
    // (A x)[i] = sum over the (k+1)^nd neighbours c of prod_j B_j[i_j, c_j] x[c], columns in
    // increasing order.
    let apply = |x: &[f64]| -> Vec<f64> {
        let mut y = vec![0.0; n_all];
        let mut ii = vec![0usize; nd];
        for (flat, yv) in y.iter_mut().enumerate() {
            let mut rem = flat;
            for j in 0..nd {
                ii[j] = rem / strides[j];
                rem %= strides[j];
            }
            let combos = (k + 1).pow(nd as u32);
            let mut acc = 0.0;
            for cmb in 0..combos {
                let mut w = 1.0;
                let mut col = 0;
                let mut rest = cmb;
                for j in (0..nd).rev() {
                    let a = rest % (k + 1);
                    rest /= k + 1;
                    let (s, v) = &rows[j][ii[j]];
                    col += (s + a) * strides[j];
                    w *= v[a];
                }
                acc += w * x[col];
            }
            *yv = acc;
        }
        y
    };
    let mut coeffs = vec![0.0; n_all * t];
    for c in 0..t {
        let b: Vec<f64> = (0..n_all).map(|i| vh[i * t + c]).collect();
        let x = gcrotmk(&apply, &b, 1e-5, 1e-6, 20, 20, 1000)?;
        for i in 0..n_all {
            coeffs[i * t + c] = x[i];
        }
    }
    let dev = values.device_arc();
    Ok(TensorSpline {
        knots_dev: knots.iter().map(|kn| Array::from_slice_on(&dev, kn, &[kn.len()])).collect::<Result<_>>()?,
        knots,
        coeffs: Array::from_slice_on(&dev, &coeffs, &[n_all, t])?,
    })
}

/// Evaluates the tensor-product spline at the query columns on the device: per axis the knot
/// interval (`searchsorted`) and the `k + 1` B-spline values by the Cox–de Boor recurrence in
/// elementwise ops, then the `(k+1)^nd` gathered coefficients weighted by their products.
fn eval_tensor_spline(sp: &TensorSpline, cols: &[Array], k: usize) -> Result<Array> {
    let nd = cols.len();
    let m = cols[0].size();
    let dims: Vec<usize> = sp.knots.iter().map(|kn| kn.len() - k - 1).collect();
    let strides: Vec<i64> = (0..nd).map(|j| dims[j + 1..].iter().product::<usize>() as i64).collect();
    let mut starts = Vec::with_capacity(nd);
    let mut basis: Vec<Vec<Array>> = Vec::with_capacity(nd);
    for (j, x) in cols.iter().enumerate() {
        let kn = &sp.knots_dev[j];
        let nc = dims[j];
        let inner =
            kn.slice(&[SliceArg::Range { start: Some(k as isize), stop: Some(nc as isize + 1), step: None }])?;
        let l = searchsorted(&inner, x, Side::Right, None)?
            .add_scalar(-1i64)?
            .clip(0i64, (nc - k - 1) as i64)?
            .add_scalar(k as i64)?;
        let tk = |off: i64| -> Result<Array> { kn.take(&l.add_scalar(off)?, None) };
        let mut nv: Vec<Array> = vec![x.mul_scalar(0.0)?.add_scalar(1.0)?];
        let mut left = vec![x.clone(); k + 1];
        let mut right = vec![x.clone(); k + 1];
        for jj in 1..=k {
            left[jj] = x.sub(&tk(1 - jj as i64)?)?;
            right[jj] = tk(jj as i64)?.sub(x)?;
            let mut saved = x.mul_scalar(0.0)?;
            let mut next = Vec::with_capacity(jj + 1);
            for r in 0..jj {
                let temp = nv[r].div(&right[r + 1].add(&left[jj - r])?)?;
                next.push(saved.add(&right[r + 1].mul(&temp)?)?);
                saved = left[jj - r].mul(&temp)?;
            }
            next.push(saved);
            nv = next;
        }
        starts.push(l.add_scalar(-(k as i64))?);
        basis.push(nv);
    }
    let mut acc: Option<Array> = None;
    for cmb in 0..(k + 1).pow(nd as u32) {
        let mut rest = cmb;
        let mut flat: Option<Array> = None;
        let mut w: Option<Array> = None;
        for j in (0..nd).rev() {
            let a = rest % (k + 1);
            rest /= k + 1;
            let term = starts[j].add_scalar(a as i64)?.mul_scalar(strides[j])?;
            flat = Some(match flat {
                None => term,
                Some(f) => f.add(&term)?,
            });
            w = Some(match w {
                None => basis[j][a].clone(),
                Some(v) => basis[j][a].mul(&v)?,
            });
        }
        let v = sp.coeffs.take(&flat.expect("ndim >= 1"), Some(0))?;
        let term = v.mul(&w.expect("ndim >= 1").reshape(&[m as isize, 1])?)?;
        acc = Some(match acc {
            None => term,
            Some(a) => a.add(&term)?,
        });
    }
    Ok(acc.expect("at least one term"))
}
