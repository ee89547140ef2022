//! `PPoly`: piecewise polynomials in the local power basis, the evaluator of every 1-d
//! spline-like interpolator of this module.

use std::str::FromStr;
use std::sync::{Arc, OnceLock};

use xp_backend_api::{DType, DynDevice, Error, Result};

use super::{as_f64, dev_f64, host_f64};
use crate::{Array, SliceArg};

/// SciPy's `extrapolate` argument: extrapolate from the first and last pieces, answer NaN
/// outside the breakpoints, or wrap periodically. `None` in a constructor is the class's
/// default (`true` for most, `periodic` for a periodic `CubicSpline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extrapolate {
    /// `True`: the first and last pieces continue beyond the breakpoints.
    Yes,
    /// `False`: NaN outside the breakpoints.
    No,
    /// `"periodic"`: the query is wrapped into `[x[0], x[-1]]`.
    Periodic,
}

impl From<bool> for Extrapolate {
    fn from(b: bool) -> Self {
        if b {
            Extrapolate::Yes
        } else {
            Extrapolate::No
        }
    }
}

impl FromStr for Extrapolate {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "periodic" => Ok(Extrapolate::Periodic),
            "true" | "True" => Ok(Extrapolate::Yes),
            "false" | "False" => Ok(Extrapolate::No),
            _ => Err(Error::value("extrapolate", format!("extrapolate must be a bool or 'periodic', not {s:?}"))),
        }
    }
}

/// SciPy's `PPoly(c, x, extrapolate)`: on `[x[i], x[i+1]]` the value is
/// `sum_j c[j, i] * (x - x[i])^(k - j)`; `c` is `(k + 1, m, *trailing)`, `x` the `m + 1`
/// breakpoints, increasing or decreasing. Coefficients stay on the device as float64; the
/// breakpoints are read once to the host (their ends decide extrapolation).
#[derive(Debug, Clone)]
pub struct PPoly {
    c: Array,
    x: Array,
    xh: Vec<f64>,
    descending: bool,
    extrapolate: Extrapolate,
    trail: Vec<usize>,
    /// The coefficients laid out `(m, k + 1, t)` for the evaluation kernel, made once.
    table: OnceLock<Array>,
}

impl PPoly {
    /// SciPy's `PPoly(c, x, extrapolate=None)` (`None` is `True`).
    pub fn new(c: &Array, x: &Array, extrapolate: Option<Extrapolate>) -> Result<PPoly> {
        let op = "PPoly";
        if c.ndim() < 2 {
            return Err(Error::value(
                op,
                format!("Coefficients array must be at least 2-dimensional, not of shape {:?}", c.shape()),
            ));
        }
        if x.ndim() != 1 {
            return Err(Error::value(op, format!("x must be 1-dimensional, not of shape {:?}", x.shape())));
        }
        if x.size() < 2 {
            return Err(Error::value(op, "at least 2 breakpoints are needed"));
        }
        if c.shape()[0] == 0 {
            return Err(Error::value(op, "polynomial must be at least of order 0"));
        }
        if c.shape()[1] != x.size() - 1 {
            return Err(Error::value(
                op,
                format!("Number of coefficients != len(x)-1: c of shape {:?}, x of shape {:?}", c.shape(), x.shape()),
            ));
        }
        let xh = host_f64(x)?;
        if xh.iter().any(|v| v.is_nan()) {
            return Err(Error::value(op, "`x` must not contain NaN"));
        }
        let inc = xh.windows(2).all(|w| w[1] >= w[0]);
        let dec = xh.windows(2).all(|w| w[1] <= w[0]);
        if !inc && !dec {
            return Err(Error::value(op, "`x` must be strictly increasing or decreasing."));
        }
        let c = as_f64(c)?;
        let trail = c.shape()[2..].to_vec();
        Ok(PPoly {
            x: as_f64(x)?,
            c,
            descending: !inc,
            xh,
            extrapolate: extrapolate.unwrap_or(Extrapolate::Yes),
            trail,
            table: OnceLock::new(),
        })
    }

    /// A piecewise polynomial from host coefficients `c` (`(k + 1, m, *trail)`, C order) and
    /// increasing breakpoints `x`, on `dev`.
    pub(crate) fn from_host(
        dev: &Arc<dyn DynDevice>,
        c: &[f64],
        order: usize,
        trail: &[usize],
        x: Vec<f64>,
        extrapolate: Extrapolate,
    ) -> Result<PPoly> {
        let m = x.len() - 1;
        let mut shape = vec![order, m];
        shape.extend_from_slice(trail);
        Ok(PPoly {
            c: dev_f64(dev, c, &shape)?,
            x: dev_f64(dev, &x, &[m + 1])?,
            xh: x,
            descending: false,
            extrapolate,
            trail: trail.to_vec(),
            table: OnceLock::new(),
        })
    }

    /// The coefficients, `(k + 1, m, *trailing)` float64.
    pub fn c(&self) -> &Array {
        &self.c
    }

    /// The breakpoints, float64.
    pub fn x(&self) -> &Array {
        &self.x
    }

    /// The degree `k`.
    pub fn degree(&self) -> usize {
        self.c.shape()[0] - 1
    }

    /// How the polynomial extrapolates.
    pub fn extrapolate(&self) -> Extrapolate {
        self.extrapolate
    }

    fn m(&self) -> usize {
        self.xh.len() - 1
    }

    fn bounds(&self) -> (f64, f64) {
        let (a, b) = (self.xh[0], self.xh[self.m()]);
        if a <= b {
            (a, b)
        } else {
            (b, a)
        }
    }

    fn with_c(&self, c: Array, extrapolate: Extrapolate) -> PPoly {
        PPoly {
            c,
            x: self.x.clone(),
            xh: self.xh.clone(),
            descending: self.descending,
            extrapolate,
            trail: self.trail.clone(),
            table: OnceLock::new(),
        }
    }

    /// SciPy's `__call__(x, nu)`: the `nu`-th derivative at `x` (any shape), of shape
    /// `x.shape + trailing`, float64. A negative `nu` is an error, as in SciPy (use
    /// [`antiderivative`](Self::antiderivative)).
    pub fn call(&self, x: &Array, nu: i64) -> Result<Array> {
        self.call_ext(x, nu, None)
    }

    /// [`call`](Self::call) with SciPy's `extrapolate` argument of `__call__` overriding the
    /// instance's.
    pub fn call_ext(&self, x: &Array, nu: i64, extrapolate: Option<Extrapolate>) -> Result<Array> {
        if nu < 0 {
            return Err(Error::value("PPoly", format!("Order of derivative cannot be negative, nu={nu}")));
        }
        if nu > 0 {
            return self.derivative(nu as usize)?.call_ext(x, 0, extrapolate);
        }
        let ext = extrapolate.unwrap_or(self.extrapolate);
        let qshape = x.shape().to_vec();
        let xf = as_f64(x)?.reshape(&[-1])?;
        let nq = xf.size();
        let m = self.m();
        let k1 = self.c.shape()[0];
        let t: usize = self.trail.iter().product();
        let (lo, hi) = self.bounds();
        let xe =
            if ext == Extrapolate::Periodic { xf.add_scalar(-lo)?.rem(hi - lo)?.add_scalar(lo)? } else { xf.clone() };
        let cp = match self.table.get() {
            Some(cp) => cp.clone(),
            None => {
                let cp = self.c.reshape(&[k1 as isize, m as isize, t as isize])?.permute(&[1, 0, 2])?.ascontiguous()?;
                self.table.get_or_init(|| cp).clone()
            }
        };
        let xb = xe.reshape(&[nq as isize, 1])?.broadcast_to(&[nq, t])?;
        let r = super::kernels::ppoly_eval(
            &xb,
            &self.x.ascontiguous()?,
            &cp,
            k1,
            t,
            self.descending,
            ext == Extrapolate::No,
            (lo, hi),
        )?;
        let mut shape: Vec<isize> = qshape.iter().map(|&d| d as isize).collect();
        shape.extend(self.trail.iter().map(|&d| d as isize));
        r.reshape(&shape)
    }

    /// SciPy's `derivative(nu)`: the `nu`-th derivative as a piecewise polynomial of degree
    /// `k - nu` (a zero polynomial when `nu > k`).
    pub fn derivative(&self, nu: usize) -> Result<PPoly> {
        if nu == 0 {
            return Ok(self.clone());
        }
        let k = self.degree();
        let mut shape = self.c.shape().to_vec();
        if nu > k {
            shape[0] = 1;
            let z = Array::full_on(&self.c.device_arc(), &shape, 0.0, DType::F64)?;
            return Ok(self.with_c(z, self.extrapolate));
        }
        let rows = k + 1 - nu;
        let f: Vec<f64> = (0..rows).map(|j| (0..nu).map(|i| (k - j - i) as f64).product()).collect();
        let mut fshape = vec![1usize; self.c.ndim()];
        fshape[0] = rows;
        let fa = dev_f64(&self.c.device_arc(), &f, &fshape)?;
        let part = self.c.slice(&[SliceArg::Range { start: Some(0), stop: Some(rows as isize), step: None }])?;
        Ok(self.with_c(part.mul(&fa)?, self.extrapolate))
    }

    /// SciPy's `antiderivative(nu)`: the `nu`-th antiderivative, zero at `x[0]` and
    /// continuous. A periodic polynomial's antiderivative does not extrapolate.
    pub fn antiderivative(&self, nu: usize) -> Result<PPoly> {
        let mut p = self.clone();
        if p.extrapolate == Extrapolate::Periodic {
            p.extrapolate = Extrapolate::No;
        }
        for _ in 0..nu {
            p = p.antiderivative_once()?;
        }
        Ok(p)
    }

    fn antiderivative_once(&self) -> Result<PPoly> {
        let dev = self.c.device_arc();
        let k = self.degree();
        let m = self.m();
        let nd = self.c.ndim();
        let f: Vec<f64> = (0..=k).map(|j| 1.0 / (k + 1 - j) as f64).collect();
        let mut fshape = vec![1usize; nd];
        fshape[0] = k + 1;
        let top = self.c.mul(&dev_f64(&dev, &f, &fshape)?)?;
        // Each piece's integral over its whole interval, summed before it: the constants.
        let h: Vec<f64> = self.xh.windows(2).map(|w| w[1] - w[0]).collect();
        let mut hshape = vec![1usize; nd - 1];
        hshape[0] = m;
        let ha = dev_f64(&dev, &h, &hshape)?;
        let row = |j: usize| top.slice(&[SliceArg::Index(j as isize)]);
        let mut v = row(0)?;
        for j in 1..=k {
            v = v.mul(&ha)?.add(&row(j)?)?;
        }
        let v = v.mul(&ha)?;
        let cs = v.cumsum(Some(0))?;
        let mut zshape = v.shape().to_vec();
        zshape[0] = 1;
        let z = Array::full_on(&dev, &zshape, 0.0, DType::F64)?;
        let head = cs.slice(&[SliceArg::Range { start: Some(0), stop: Some(m as isize - 1), step: None }])?;
        let consts = crate::concatenate(&[&z, &head], 0)?.expand_dims(0)?;
        let c = crate::concatenate(&[&top, &consts], 0)?;
        Ok(self.with_c(c, self.extrapolate))
    }

    /// SciPy's `integrate(a, b, extrapolate=None)`: the definite integral over `[a, b]`, of
    /// shape `trailing`; periodic polynomials count whole periods.
    pub fn integrate(&self, a: f64, b: f64, extrapolate: Option<Extrapolate>) -> Result<Array> {
        let ext = extrapolate.unwrap_or(self.extrapolate);
        let anti = self.antiderivative(1)?;
        let dev = self.c.device_arc();
        let (a, b, sign) = if b < a { (b, a, -1.0) } else { (a, b, 1.0) };
        let ev = |pts: &[f64]| -> Result<Array> {
            let e = if ext == Extrapolate::No { Extrapolate::No } else { Extrapolate::Yes };
            anti.call_ext(&dev_f64(&dev, pts, &[pts.len()])?, 0, Some(e))
        };
        let first = |r: &Array, i: isize| r.slice(&[SliceArg::Index(i)]);
        let res = if ext == Extrapolate::Periodic {
            let (lo, hi) = self.bounds();
            let period = hi - lo;
            let n = ((b - a) / period).floor();
            let a2 = lo + (a - lo).rem_euclid(period);
            let b2 = a2 + (b - a) - n * period;
            let r = ev(&[lo, hi, a2, b2.min(hi), lo + (b2 - hi).max(0.0)])?;
            let whole = first(&r, 1)?.sub(&first(&r, 0)?)?;
            let part = first(&r, 3)?.sub(&first(&r, 2)?)?;
            let wrap = first(&r, 4)?.sub(&first(&r, 0)?)?;
            whole.mul_scalar(n)?.add(&part)?.add(&wrap)?
        } else {
            let r = ev(&[a, b])?;
            first(&r, 1)?.sub(&first(&r, 0)?)?
        };
        res.mul_scalar(sign)
    }
}
