//! `RBFInterpolator`: radial basis function interpolation in any dimension.

use std::str::FromStr;

use xp_backend_api::{DType, Error, Result};

use super::{as_f64, dev_f64, host_f64, solve_dense};
use crate::{where_, Array, Operand, Scalar};

/// `kernel` of [`RBFInterpolator`], as `φ(r)` with `r = ε‖x − y‖`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RbfKernel {
    /// `-r`.
    Linear,
    /// `r² log r`.
    #[default]
    ThinPlateSpline,
    /// `r³`.
    Cubic,
    /// `-r⁵`.
    Quintic,
    /// `-sqrt(1 + r²)`.
    Multiquadric,
    /// `1 / sqrt(1 + r²)`.
    InverseMultiquadric,
    /// `1 / (1 + r²)`.
    InverseQuadratic,
    /// `exp(-r²)`.
    Gaussian,
}

impl FromStr for RbfKernel {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "linear" => RbfKernel::Linear,
            "thin_plate_spline" => RbfKernel::ThinPlateSpline,
            "cubic" => RbfKernel::Cubic,
            "quintic" => RbfKernel::Quintic,
            "multiquadric" => RbfKernel::Multiquadric,
            "inverse_multiquadric" => RbfKernel::InverseMultiquadric,
            "inverse_quadratic" => RbfKernel::InverseQuadratic,
            "gaussian" => RbfKernel::Gaussian,
            _ => {
                return Err(Error::value(
                    "RBFInterpolator",
                    format!("`kernel` must be one of the RBF kernels, not {s:?}"),
                ))
            }
        })
    }
}

impl RbfKernel {
    fn scale_invariant(self) -> bool {
        matches!(self, RbfKernel::Linear | RbfKernel::ThinPlateSpline | RbfKernel::Cubic | RbfKernel::Quintic)
    }

    /// The smallest polynomial degree that makes the system well posed (`-1`: none).
    fn min_degree(self) -> i64 {
        match self {
            RbfKernel::Multiquadric | RbfKernel::Linear => 0,
            RbfKernel::ThinPlateSpline | RbfKernel::Cubic => 1,
            RbfKernel::Quintic => 2,
            _ => -1,
        }
    }

    fn eval(self, r: f64) -> f64 {
        match self {
            RbfKernel::Linear => -r,
            RbfKernel::ThinPlateSpline => {
                if r == 0.0 {
                    0.0
                } else {
                    r * r * r.ln()
                }
            }
            RbfKernel::Cubic => r * r * r,
            RbfKernel::Quintic => -(r * r * r * r * r),
            RbfKernel::Multiquadric => -(r * r + 1.0).sqrt(),
            RbfKernel::InverseMultiquadric => 1.0 / (r * r + 1.0).sqrt(),
            RbfKernel::InverseQuadratic => 1.0 / (r * r + 1.0),
            RbfKernel::Gaussian => (-r * r).exp(),
        }
    }

    /// The kernel elementwise on the device.
    fn eval_array(self, r: &Array) -> Result<Array> {
        let r2 = || r.mul(r);
        match self {
            RbfKernel::Linear => r.negative(),
            RbfKernel::ThinPlateSpline => {
                let v = r2()?.mul(&r.log()?)?;
                where_(&r.eq(0.0)?, Operand::Scalar(Scalar::Float(0.0)), Operand::Array(&v))
            }
            RbfKernel::Cubic => r2()?.mul(r),
            RbfKernel::Quintic => r2()?.mul(&r2()?)?.mul(r)?.negative(),
            RbfKernel::Multiquadric => r2()?.add_scalar(1.0)?.sqrt()?.negative(),
            RbfKernel::InverseMultiquadric => r2()?.add_scalar(1.0)?.sqrt()?.reciprocal(),
            RbfKernel::InverseQuadratic => r2()?.add_scalar(1.0)?.reciprocal(),
            RbfKernel::Gaussian => r2()?.negative()?.exp(),
        }
    }
}

/// The exponents of the monomials of degree at most `degree` in `ndim` variables.
fn monomial_powers(ndim: usize, degree: i64) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    if degree < 0 {
        return out;
    }
    fn rec(d: usize, ndim: usize, left: u32, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if d == ndim {
            out.push(cur.clone());
            return;
        }
        for p in 0..=left {
            cur.push(p);
            rec(d + 1, ndim, left - p, cur, out);
            cur.pop();
        }
    }
    rec(0, ndim, degree as u32, &mut Vec::new(), &mut out);
    out
}

/// SciPy's `RBFInterpolator(y, d, neighbors=None, smoothing=0.0, kernel='thin_plate_spline',
/// epsilon=None, degree=None)` without `neighbors` (the global interpolant only). The
/// `(p + m) × (p + m)` system (p data points, m monomials) is solved on the host in float64
/// by Gaussian elimination with partial pivoting; evaluation builds the `(queries × p)` kernel
/// matrix on the device and multiplies. Float64.
#[derive(Debug, Clone)]
pub struct RBFInterpolator {
    y: Array,
    coeffs: Array,
    poly: Array,
    powers: Vec<Vec<u32>>,
    shift: Vec<f64>,
    scale: Vec<f64>,
    epsilon: f64,
    kernel: RbfKernel,
    trail: Vec<usize>,
}

impl RBFInterpolator {
    /// Fits the interpolant: `y` the `(p, ndim)` data points, `d` the `(p, ...)` values.
    pub fn new(
        y: &Array,
        d: &Array,
        smoothing: f64,
        kernel: RbfKernel,
        epsilon: Option<f64>,
        degree: Option<i64>,
    ) -> Result<Self> {
        let op = "RBFInterpolator";
        if y.ndim() != 2 {
            return Err(Error::value(op, format!("`y` must be a 2-dimensional array, not of shape {:?}", y.shape())));
        }
        let (p, nd) = (y.shape()[0], y.shape()[1]);
        if d.ndim() == 0 || d.shape()[0] != p {
            return Err(Error::value(
                op,
                format!("Expected the first axis of `d` to have length {p}, d of shape {:?}", d.shape()),
            ));
        }
        let trail = d.shape()[1..].to_vec();
        let t: usize = trail.iter().product();
        let epsilon =
            match epsilon {
                Some(e) => e,
                None if kernel.scale_invariant() => 1.0,
                None => return Err(Error::value(
                    op,
                    "`epsilon` must be specified if `kernel` is not one of linear, thin_plate_spline, cubic, quintic",
                )),
            };
        let degree = degree.unwrap_or(kernel.min_degree().max(0)).max(-1);
        let powers = monomial_powers(nd, degree);
        let nm = powers.len();
        if p < nm {
            return Err(Error::value(
                op,
                format!(
                    "At least {nm} data points are required when the polynomial degree is {degree} and the number of dimensions is {nd}."
                ),
            ));
        }
        let yh = host_f64(y)?;
        let dh = host_f64(d)?;
        if yh.iter().chain(&dh).any(|v| !v.is_finite()) {
            return Err(Error::value(op, "`y` and `d` must contain only finite values"));
        }
        let mut shift = vec![0.0; nd];
        let mut scale = vec![1.0; nd];
        for k in 0..nd {
            let (lo, hi) = (0..p)
                .map(|i| yh[i * nd + k])
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
            shift[k] = (lo + hi) / 2.0;
            let s = (hi - lo) / 2.0;
            scale[k] = if s == 0.0 { 1.0 } else { s };
        }
        let sz = p + nm;
        let mut a = vec![0.0; sz * sz];
        for i in 0..p {
            for j in 0..p {
                let r2: f64 = (0..nd).map(|k| (epsilon * (yh[i * nd + k] - yh[j * nd + k])).powi(2)).sum();
                a[i * sz + j] = kernel.eval(r2.sqrt());
            }
            a[i * sz + i] += smoothing;
            for (q, pw) in powers.iter().enumerate() {
                let v: f64 = (0..nd).map(|k| ((yh[i * nd + k] - shift[k]) / scale[k]).powi(pw[k] as i32)).product();
                a[i * sz + p + q] = v;
                a[(p + q) * sz + i] = v;
            }
        }
        let mut b = vec![0.0; sz * t];
        b[..p * t].copy_from_slice(&dh);
        solve_dense(op, sz, &a, &mut b, t).map_err(|_| {
            Error::value(op, "Singular matrix. The data points may be collinear or the polynomial degree too high.")
        })?;
        let dev = y.device_arc();
        Ok(RBFInterpolator {
            y: dev_f64(&dev, &yh, &[1, p, nd])?,
            coeffs: dev_f64(&dev, &b[..p * t], &[p, t])?,
            poly: dev_f64(&dev, &b[p * t..], &[nm, t])?,
            powers,
            shift,
            scale,
            epsilon,
            kernel,
            trail,
        })
    }

    /// SciPy's `__call__(x)`: `x` of shape `(q, ndim)`; the answer is `(q, *d.shape[1:])`,
    /// float64.
    pub fn call(&self, x: &Array) -> Result<Array> {
        let op = "RBFInterpolator";
        let nd = self.shift.len();
        if x.ndim() != 2 || x.shape()[1] != nd {
            return Err(Error::value(
                op,
                format!("Expected the second axis of `x` to have length {nd}, x of shape {:?}", x.shape()),
            ));
        }
        let q = x.shape()[0];
        let xf = as_f64(x)?;
        let diff = xf.reshape(&[q as isize, 1, nd as isize])?.sub(&self.y)?.mul_scalar(self.epsilon)?;
        let r = diff.mul(&diff)?.sum(Some(&[2]), false)?.sqrt()?;
        let k = self.kernel.eval_array(&r)?;
        let mut out = k.matmul(&self.coeffs)?;
        if !self.powers.is_empty() {
            let cols: Vec<Array> = (0..nd)
                .map(|j| {
                    xf.slice(&[crate::SliceArg::ALL, crate::SliceArg::Index(j as isize)])?
                        .add_scalar(-self.shift[j])?
                        .mul_scalar(1.0 / self.scale[j])
                })
                .collect::<Result<_>>()?;
            let mut terms = Vec::with_capacity(self.powers.len());
            for pw in &self.powers {
                let mut v = Array::full_on(&x.device_arc(), &[q], 1.0, DType::F64)?;
                for (j, &e) in pw.iter().enumerate() {
                    for _ in 0..e {
                        v = v.mul(&cols[j])?;
                    }
                }
                terms.push(v);
            }
            let refs: Vec<&Array> = terms.iter().collect();
            let pm = crate::stack(&refs, 1)?;
            out = out.add(&pm.matmul(&self.poly)?)?;
        }
        let mut shape = vec![q as isize];
        shape.extend(self.trail.iter().map(|&d| d as isize));
        out.reshape(&shape)
    }
}
