//! `interp1d`: SciPy's legacy 1-d interpolator (linear, nearest, previous/next and spline kinds).

use std::str::FromStr;

use xp_backend_api::{DType, DTypeKind, Error, Result};

use super::{host_f64, make_interp_spline, norm_axis, place_axes, PPoly, SplineBc};
use crate::{promote_types, searchsorted, where_, Array, Operand, Scalar, Side};

/// `kind` of [`Interp1d`] (SciPy's strings; an integer is a spline of that order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interp1dKind {
    /// `"linear"`.
    Linear,
    /// `"nearest"`: rounds half down.
    Nearest,
    /// `"nearest-up"`: rounds half up.
    NearestUp,
    /// `"zero"`: a spline of order 0.
    Zero,
    /// `"slinear"`: a spline of order 1.
    Slinear,
    /// `"quadratic"`: a spline of order 2.
    Quadratic,
    /// `"cubic"`: a spline of order 3.
    Cubic,
    /// `"previous"`: the previous point's value.
    Previous,
    /// `"next"`: the next point's value.
    Next,
    /// An integer `kind`: a spline of that order.
    Spline(usize),
}

impl FromStr for Interp1dKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "linear" => Interp1dKind::Linear,
            "nearest" => Interp1dKind::Nearest,
            "nearest-up" => Interp1dKind::NearestUp,
            "zero" => Interp1dKind::Zero,
            "slinear" => Interp1dKind::Slinear,
            "quadratic" => Interp1dKind::Quadratic,
            "cubic" => Interp1dKind::Cubic,
            "previous" => Interp1dKind::Previous,
            "next" => Interp1dKind::Next,
            _ => match s.parse::<usize>() {
                Ok(k) => Interp1dKind::Spline(k),
                Err(_) => return Err(Error::Unsupported(format!("interp1d: kind {s:?}"))),
            },
        })
    }
}

impl Interp1dKind {
    fn spline_order(self) -> Option<usize> {
        match self {
            Interp1dKind::Zero => Some(0),
            Interp1dKind::Slinear => Some(1),
            Interp1dKind::Quadratic => Some(2),
            Interp1dKind::Cubic => Some(3),
            Interp1dKind::Spline(k) => Some(k),
            _ => None,
        }
    }
}

/// `fill_value` of [`Interp1d`]: one value for both sides (`"nan"` is NaN), a
/// `(below, above)` pair, or `"extrapolate"`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FillValue {
    /// The same value below and above the data.
    Value(f64),
    /// `(below, above)`.
    Pair(f64, f64),
    /// `"extrapolate"`.
    Extrapolate,
}

impl Default for FillValue {
    fn default() -> Self {
        FillValue::Value(f64::NAN)
    }
}

impl FromStr for FillValue {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "extrapolate" => Ok(FillValue::Extrapolate),
            "nan" | "NaN" => Ok(FillValue::Value(f64::NAN)),
            _ => s
                .parse::<f64>()
                .map(FillValue::Value)
                .map_err(|_| Error::value("interp1d", format!("fill_value {s:?} is not a number or 'extrapolate'"))),
        }
    }
}

enum Method {
    /// Linear, nearest, previous, next: gathers of the data on the device.
    Direct,
    /// A B-spline's piecewise polynomial.
    Spline(Box<PPoly>),
}

/// SciPy's `interp1d(x, y, kind='linear', axis=-1, bounds_error=None, fill_value=nan,
/// assume_sorted=False)`. Linear, nearest and previous/next kinds work in the data's float
/// dtype on the device; the spline kinds build a [`make_interp_spline`] spline (float64).
pub struct Interp1d {
    x: Array,
    y: Array,
    trail: Vec<usize>,
    axis: usize,
    kind: Interp1dKind,
    bounds_error: bool,
    fill: FillValue,
    lo: f64,
    hi: f64,
    method: Method,
}

impl Interp1d {
    /// Builds the interpolator. `x` is sorted on the device unless `assume_sorted`.
    pub fn new(
        x: &Array,
        y: &Array,
        kind: Interp1dKind,
        axis: isize,
        bounds_error: Option<bool>,
        fill_value: FillValue,
        assume_sorted: bool,
    ) -> Result<Interp1d> {
        let op = "interp1d";
        if x.ndim() != 1 {
            return Err(Error::value(
                op,
                format!("the x array must have exactly one dimension, not shape {:?}", x.shape()),
            ));
        }
        if y.ndim() == 0 {
            return Err(Error::value(op, "the y array must have at least one dimension"));
        }
        if matches!(x.dtype().kind(), DTypeKind::Complex) || matches!(y.dtype().kind(), DTypeKind::Complex) {
            return Err(Error::DType { op: op.into(), reason: "complex data is not supported".into() });
        }
        let axis = norm_axis(op, axis, y.ndim())?;
        let n = x.size();
        if y.shape()[axis] != n {
            return Err(Error::value(
                op,
                format!(
                    "x and y arrays must be equal in length along interpolation axis: x {:?}, y {:?}, axis {axis}",
                    x.shape(),
                    y.shape()
                ),
            ));
        }
        let fill_extrap = fill_value == FillValue::Extrapolate;
        let bounds_error = match bounds_error {
            Some(true) if fill_extrap => {
                return Err(Error::value(op, "Cannot extrapolate and raise at the same time."));
            }
            Some(b) => b,
            None => !fill_extrap,
        };
        let minval = kind.spline_order().map_or(1, |k| k + 1);
        if n < minval {
            return Err(Error::value(op, format!("x and y arrays must have at least {minval} entries")));
        }
        let float = |a: &Array| -> Result<Array> {
            if matches!(a.dtype().kind(), DTypeKind::Float) {
                Ok(a.clone())
            } else {
                a.astype(DType::F64)
            }
        };
        let (mut xs, mut ym) = (float(x)?, crate::moveaxis(&float(y)?, &[axis as isize], &[0])?);
        if !assume_sorted {
            let ord = xs.argsort(None)?;
            xs = xs.take(&ord, None)?;
            ym = ym.take(&ord, Some(0))?;
        }
        let trail = ym.shape()[1..].to_vec();
        let t: usize = trail.iter().product();
        let y2 = ym.reshape(&[n as isize, t as isize])?.ascontiguous()?;
        let xh = host_f64(&xs.slice(&[crate::SliceArg::Index(0)])?.expand_dims(0)?)?[0];
        let xe = host_f64(&xs.slice(&[crate::SliceArg::Index(-1)])?.expand_dims(0)?)?[0];
        let method = match kind.spline_order() {
            Some(k) => {
                let b = make_interp_spline(&xs, &ym, k, None, SplineBc::NotAKnot, 0)?;
                Method::Spline(Box::new(b.ppoly().clone()))
            }
            None => Method::Direct,
        };
        Ok(Interp1d { x: xs, y: y2, trail, axis, kind, bounds_error, fill: fill_value, lo: xh, hi: xe, method })
    }

    /// SciPy's `__call__(x_new)`: of shape `y.shape[:axis] + x_new.shape + y.shape[axis+1:]`.
    pub fn call(&self, x_new: &Array) -> Result<Array> {
        let op = "interp1d";
        let qshape = x_new.shape().to_vec();
        let xq = x_new.reshape(&[-1])?;
        let nq = xq.size();
        let n = self.x.size();
        let xd = self.x.dtype();
        let extrap = self.fill == FillValue::Extrapolate;
        // Out of range: an error (one reduction over the queries), or the fill values.
        if !extrap
            && self.bounds_error
            && xq.lt(self.lo)?.logical_or(&xq.gt(self.hi)?)?.any(None, false)?.item::<bool>()?
        {
            return Err(if xq.lt(self.lo)?.any(None, false)?.item::<bool>()? {
                Error::value(
                    op,
                    format!("A value in x_new is below the interpolation range's minimum value ({}).", self.lo),
                )
            } else {
                Error::value(
                    op,
                    format!("A value in x_new is above the interpolation range's maximum value ({}).", self.hi),
                )
            });
        }
        let fills = match self.fill {
            _ if extrap || self.bounds_error => None,
            FillValue::Value(v) => Some((v, v)),
            FillValue::Pair(b, a) => Some((b, a)),
            FillValue::Extrapolate => None,
        };
        let mut filled = false;
        let mut r = match &self.method {
            Method::Spline(pp) => {
                let v = pp.call(&xq, 0)?;
                v.reshape(&[nq as isize, -1])?
            }
            Method::Direct => {
                let xqf = if matches!(xq.dtype().kind(), DTypeKind::Float) { xq.clone() } else { xq.astype(xd)? };
                let gather = |idx: &Array| self.y.take(idx, Some(0));
                match self.kind {
                    _ if n == 1 => gather(&Array::full_on(&self.x.device_arc(), &[nq], 0i64, DType::I64)?)?,
                    Interp1dKind::Linear => {
                        let ft = promote_types(promote_types(xd, self.y.dtype()), xqf.dtype());
                        let cast = |a: &Array| if a.dtype() == ft { Ok(a.clone()) } else { a.astype(ft) };
                        let t = self.y.shape()[1];
                        let xb = cast(&xqf)?.reshape(&[nq as isize, 1])?.broadcast_to(&[nq, t])?;
                        filled = fills.is_some();
                        let fill = fills.map(|(b, a)| (b, a, self.lo, self.hi));
                        super::kernels::linear_eval(&xb, &cast(&self.x)?.ascontiguous()?, &cast(&self.y)?, t, fill)?
                    }
                    Interp1dKind::Nearest | Interp1dKind::NearestUp => {
                        let a = self.x.slice(&[crate::SliceArg::Range { start: Some(1), stop: None, step: None }])?;
                        let b = self.x.slice(&[crate::SliceArg::Range { start: None, stop: Some(-1), step: None }])?;
                        let bds = a.add(&b)?.div(2.0)?;
                        let side = if self.kind == Interp1dKind::Nearest { Side::Left } else { Side::Right };
                        gather(&searchsorted(&bds, &xqf, side, None)?)?
                    }
                    Interp1dKind::Previous => {
                        let i = searchsorted(&self.x, &xqf, Side::Right, None)?.add_scalar(-1i64)?;
                        let v = gather(&i.clip(0i64, (n - 1) as i64)?)?;
                        if extrap {
                            let below = i.lt(0i64)?.reshape(&[nq as isize, 1])?;
                            where_(&below, Operand::Scalar(Scalar::Float(f64::NAN)), Operand::Array(&v))?
                        } else {
                            v
                        }
                    }
                    Interp1dKind::Next => {
                        let i = searchsorted(&self.x, &xqf, Side::Left, None)?;
                        let v = gather(&i.clip(0i64, (n - 1) as i64)?)?;
                        if extrap {
                            let above = i.ge(n as i64)?.reshape(&[nq as isize, 1])?;
                            where_(&above, Operand::Scalar(Scalar::Float(f64::NAN)), Operand::Array(&v))?
                        } else {
                            v
                        }
                    }
                    _ => unreachable!(),
                }
            }
        };
        if let Some((fb, fa)) = fills {
            if !filled {
                let col = |a: Array| a.reshape(&[nq as isize, 1]);
                r = where_(&col(xq.lt(self.lo)?)?, Operand::Scalar(Scalar::Float(fb)), Operand::Array(&r))?;
                r = where_(&col(xq.gt(self.hi)?)?, Operand::Scalar(Scalar::Float(fa)), Operand::Array(&r))?;
            }
        }
        let mut shape: Vec<isize> = qshape.iter().map(|&d| d as isize).collect();
        shape.extend(self.trail.iter().map(|&d| d as isize));
        place_axes(r.reshape(&shape)?, qshape.len(), self.axis)
    }
}
