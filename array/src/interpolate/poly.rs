//! Polynomial interpolation through all the points: `BarycentricInterpolator` and
//! `KroghInterpolator`.

use xp_backend_api::{DType, Error, Result};

use super::{as_f64, dev_f64, host_f64, norm_axis, place_axes};
use crate::{where_, Array, Operand, SliceArg};

/// The nodes and values of a global polynomial interpolant: `xi` (1-d) and `yi` with the
/// interpolation axis moved first and flattened to `(n, t)`.
struct Nodes {
    x: Vec<f64>,
    y: Vec<f64>,
    t: usize,
    trail: Vec<usize>,
    axis: usize,
}

fn nodes(op: &str, xi: &Array, yi: &Array, axis: isize) -> Result<Nodes> {
    if xi.ndim() != 1 {
        return Err(Error::value(op, format!("xi must be 1-dimensional, not of shape {:?}", xi.shape())));
    }
    if yi.ndim() == 0 {
        return Err(Error::value(op, "yi must be at least 1-dimensional"));
    }
    let axis = norm_axis(op, axis, yi.ndim())?;
    if yi.shape()[axis] != xi.size() {
        return Err(Error::value(
            op,
            format!(
                "x and y arrays must be equal in length along interpolation axis: {:?} and {:?}",
                xi.shape(),
                yi.shape()
            ),
        ));
    }
    if xi.size() == 0 {
        return Err(Error::value(op, "at least one node is needed"));
    }
    let ym = crate::moveaxis(yi, &[axis as isize], &[0])?;
    let trail = ym.shape()[1..].to_vec();
    Ok(Nodes { x: host_f64(xi)?, y: host_f64(&ym)?, t: trail.iter().product(), trail, axis })
}

/// SciPy's `BarycentricInterpolator(xi, yi, axis=0)`: the polynomial through the points,
/// evaluated by the second barycentric formula (Berrut & Trefethen 2004). The weights
/// (`O(n²)`, n the number of nodes) are computed on the host; evaluation is a
/// `(queries × nodes)` product on the device. Float64.
#[derive(Debug, Clone)]
pub struct BarycentricInterpolator {
    x: Array,
    w: Array,
    y: Array,
    trail: Vec<usize>,
    axis: usize,
}

impl BarycentricInterpolator {
    /// Builds the weights; the nodes must be distinct.
    pub fn new(xi: &Array, yi: &Array, axis: isize) -> Result<Self> {
        let op = "BarycentricInterpolator";
        let nd = nodes(op, xi, yi, axis)?;
        let n = nd.x.len();
        let mut w = vec![1.0; n];
        for (j, wj) in w.iter_mut().enumerate() {
            for (k, xk) in nd.x.iter().enumerate() {
                if k != j {
                    let d = nd.x[j] - xk;
                    if d == 0.0 {
                        return Err(Error::value(op, "Interpolation points xi must be distinct."));
                    }
                    *wj /= d;
                }
            }
        }
        let dev = xi.device_arc();
        Ok(BarycentricInterpolator {
            x: dev_f64(&dev, &nd.x, &[1, n])?,
            w: dev_f64(&dev, &w, &[1, n])?,
            y: dev_f64(&dev, &nd.y, &[n, nd.t])?,
            trail: nd.trail,
            axis: nd.axis,
        })
    }

    /// SciPy's `__call__(x)`: float64, of shape `yi.shape[:axis] + x.shape + yi.shape[axis+1:]`.
    pub fn call(&self, x: &Array) -> Result<Array> {
        let qshape = x.shape().to_vec();
        let nq = x.size();
        let xq = as_f64(x)?.reshape(&[nq as isize, 1])?;
        let diff = xq.sub(&self.x)?;
        let c = self.w.div(&diff)?;
        let num = c.matmul(&self.y)?;
        let den = c.sum(Some(&[1]), true)?;
        let p = num.div(&den)?;
        // At a node the formula is 0/0: the node's value.
        let hit = diff.eq(0.0)?;
        let yhit = hit.astype(DType::F64)?.matmul(&self.y)?;
        let any = hit.any(Some(&[1]), true)?;
        let r = where_(&any, Operand::Array(&yhit), Operand::Array(&p))?;
        let mut shape: Vec<isize> = qshape.iter().map(|&d| d as isize).collect();
        shape.extend(self.trail.iter().map(|&d| d as isize));
        place_axes(r.reshape(&shape)?, qshape.len(), self.axis)
    }
}

/// SciPy's `KroghInterpolator(xi, yi, axis=0)`: the polynomial through the points in Newton's
/// form (Krogh 1970). A node repeated `r` times carries the value and the first `r - 1`
/// derivatives there, in `yi`'s order. The divided differences are computed on the host;
/// evaluation is nested multiplication on the device. Float64.
#[derive(Debug, Clone)]
pub struct KroghInterpolator {
    x: Vec<f64>,
    c: Array,
    trail: Vec<usize>,
    axis: usize,
}

impl KroghInterpolator {
    /// Builds the Newton coefficients from Hermite divided differences.
    pub fn new(xi: &Array, yi: &Array, axis: isize) -> Result<Self> {
        let op = "KroghInterpolator";
        let nd = nodes(op, xi, yi, axis)?;
        let (n, t) = (nd.x.len(), nd.t);
        let x = &nd.x;
        let mut group = vec![0usize; n];
        for i in 1..n {
            group[i] = if x[i] == x[i - 1] { group[i - 1] } else { i };
        }
        for i in 0..n {
            if x[..group[i]].contains(&x[i]) {
                return Err(Error::value(op, "repeated nodes of xi must be adjacent"));
            }
        }
        let mut c = vec![0.0; n * t];
        let mut d: Vec<f64> = vec![0.0; n];
        for col in 0..t {
            for i in 0..n {
                d[i] = nd.y[group[i] * t + col];
            }
            c[col] = d[0];
            let mut fact = 1.0;
            for j in 1..n {
                fact *= j as f64;
                for i in (j..n).rev() {
                    d[i] = if x[i] == x[i - j] {
                        nd.y[(group[i] + j) * t + col] / fact
                    } else {
                        (d[i] - d[i - 1]) / (x[i] - x[i - j])
                    };
                }
                c[j * t + col] = d[j];
            }
        }
        let c = dev_f64(&xi.device_arc(), &c, &[n, t])?;
        Ok(KroghInterpolator { x: nd.x, c, trail: nd.trail, axis: nd.axis })
    }

    /// SciPy's `__call__(x)`: float64, of shape `yi.shape[:axis] + x.shape + yi.shape[axis+1:]`.
    pub fn call(&self, x: &Array) -> Result<Array> {
        let qshape = x.shape().to_vec();
        let nq = x.size();
        let xq = as_f64(x)?.reshape(&[nq as isize, 1])?;
        let n = self.x.len();
        let row = |k: usize| {
            self.c.slice(&[SliceArg::Range { start: Some(k as isize), stop: Some(k as isize + 1), step: None }])
        };
        let mut p = row(n - 1)?.broadcast_to(&[nq, self.c.shape()[1]])?;
        for k in (0..n - 1).rev() {
            p = p.mul(&xq.add_scalar(-self.x[k])?)?.add(&row(k)?)?;
        }
        let mut shape: Vec<isize> = qshape.iter().map(|&d| d as isize).collect();
        shape.extend(self.trail.iter().map(|&d| d as isize));
        place_axes(p.reshape(&shape)?, qshape.len(), self.axis)
    }
}
