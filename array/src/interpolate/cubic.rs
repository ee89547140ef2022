//! Piecewise cubic Hermite interpolators: `CubicSpline`, `PchipInterpolator`,
//! `Akima1DInterpolator`. Their slopes are fitted on the host (float64); evaluation is a
//! [`PPoly`] on the device.

use std::str::FromStr;

use xp_backend_api::{Error, Result};

use super::{place_axes, solve_banded, solve_dense, Data1d, Extrapolate, PPoly};
use crate::Array;

/// One end's condition of a [`CubicSpline`] (SciPy's `bc_type` entries).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EndCondition {
    /// `"not-a-knot"`: the third derivative is continuous at the second (second to last) point.
    NotAKnot,
    /// `"natural"`: zero second derivative, `(2, 0.0)`.
    Natural,
    /// `"clamped"`: zero first derivative, `(1, 0.0)`.
    Clamped,
    /// `"periodic"` (both ends only): `y[0] == y[-1]` and the first two derivatives wrap.
    Periodic,
    /// `(order, value)`: the derivative of `order` (1 or 2) at the end is `value`.
    Deriv(u32, f64),
}

impl FromStr for EndCondition {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "not-a-knot" => Ok(EndCondition::NotAKnot),
            "natural" => Ok(EndCondition::Natural),
            "clamped" => Ok(EndCondition::Clamped),
            "periodic" => Ok(EndCondition::Periodic),
            _ => Err(Error::value("CubicSpline", format!("bc_type {s:?} is not allowed"))),
        }
    }
}

/// SciPy's `bc_type` of [`CubicSpline`]: one condition for both ends (a string) or a pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BcType {
    /// At `x[0]`.
    pub left: EndCondition,
    /// At `x[-1]`.
    pub right: EndCondition,
}

impl BcType {
    /// The same condition at both ends.
    pub fn both(c: EndCondition) -> BcType {
        BcType { left: c, right: c }
    }
    /// Different conditions at the two ends.
    pub fn ends(left: EndCondition, right: EndCondition) -> BcType {
        BcType { left, right }
    }
}

impl Default for BcType {
    fn default() -> Self {
        BcType::both(EndCondition::NotAKnot)
    }
}

impl FromStr for BcType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(BcType::both(s.parse()?))
    }
}

fn normalise(c: EndCondition) -> Result<EndCondition> {
    Ok(match c {
        EndCondition::Natural => EndCondition::Deriv(2, 0.0),
        EndCondition::Clamped => EndCondition::Deriv(1, 0.0),
        EndCondition::Deriv(o, _) if o != 1 && o != 2 => {
            return Err(Error::value("CubicSpline", format!("The specified derivative order must be 1 or 2, not {o}")))
        }
        other => other,
    })
}

/// The Hermite cubic through `(x_i, y_i)` with slopes `s_i`, as `PPoly` coefficients
/// `(4, n - 1, t)`.
pub(crate) fn hermite_coeffs(x: &[f64], y: &[f64], s: &[f64], t: usize) -> Vec<f64> {
    let m = x.len() - 1;
    let mut c = vec![0.0; 4 * m * t];
    for i in 0..m {
        let h = x[i + 1] - x[i];
        for col in 0..t {
            let (y0, y1) = (y[i * t + col], y[(i + 1) * t + col]);
            let (s0, s1) = (s[i * t + col], s[(i + 1) * t + col]);
            let sl = (y1 - y0) / h;
            let at = |r: usize| (r * m + i) * t + col;
            c[at(0)] = (s0 + s1 - 2.0 * sl) / (h * h);
            c[at(1)] = (3.0 * sl - 2.0 * s0 - s1) / h;
            c[at(2)] = s0;
            c[at(3)] = y0;
        }
    }
    c
}

/// SciPy's `CubicSpline(x, y, axis=0, bc_type='not-a-knot', extrapolate=None)`: the twice
/// continuously differentiable piecewise cubic through the data.
#[derive(Debug, Clone)]
pub struct CubicSpline {
    pp: PPoly,
    axis: usize,
}

impl CubicSpline {
    /// Fits the spline (slopes from a banded system on the host). `extrapolate` `None` is
    /// `periodic` for periodic end conditions, else `true`.
    pub fn new(x: &Array, y: &Array, axis: isize, bc_type: BcType, extrapolate: Option<Extrapolate>) -> Result<Self> {
        let op = "CubicSpline";
        let d = Data1d::new(op, x, y, axis, 2)?;
        let s = spline_slopes(op, &d.x, &d.y, d.t, d.axis, bc_type)?;
        let periodic = bc_type.left == EndCondition::Periodic;
        let t = d.t;
        let c = hermite_coeffs(&d.x, &d.y, &s, t);
        let ext = extrapolate.unwrap_or(if periodic { Extrapolate::Periodic } else { Extrapolate::Yes });
        Ok(CubicSpline { pp: PPoly::from_host(&d.dev, &c, 4, &d.trail, d.x, ext)?, axis: d.axis })
    }

    /// SciPy's `__call__(x, nu=0, extrapolate=None)`: the `nu`-th derivative at `x`, of shape
    /// `y.shape[:axis] + x.shape + y.shape[axis+1:]`, float64.
    pub fn call(&self, x: &Array, nu: i64) -> Result<Array> {
        place_axes(self.pp.call(x, nu)?, x.ndim(), self.axis)
    }

    /// The piecewise polynomial (`c`, `x`, derivatives, integrals).
    pub fn ppoly(&self) -> &PPoly {
        &self.pp
    }
}

/// The slopes at the data points of the cubic spline with end conditions `bc_type`
/// (`y` is `(n, t)` row-major), solved on the host.
pub(crate) fn spline_slopes(
    op: &str,
    x: &[f64],
    y: &[f64],
    t: usize,
    axis: usize,
    bc_type: BcType,
) -> Result<Vec<f64>> {
    let n = x.len();
    let (mut l, mut r) = (normalise(bc_type.left)?, normalise(bc_type.right)?);
    let periodic = l == EndCondition::Periodic || r == EndCondition::Periodic;
    if periodic && l != r {
        return Err(Error::value(op, "if bc_type is 'periodic' at one end, it must be 'periodic' at both ends"));
    }
    if periodic {
        for col in 0..t {
            let (a, b) = (y[col], y[(n - 1) * t + col]);
            if (a - b).abs() > 1e-15 + 1e-15 * b.abs() {
                return Err(Error::value(
                        op,
                        format!(
                            "The first and last `y` point along axis {} must be identical (within machine precision) when bc_type='periodic' ({a} vs {b})",
                            axis
                        ),
                    ));
            }
        }
    }
    let h: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
    let mut m = vec![0.0; (n - 1) * t];
    for i in 0..n - 1 {
        for col in 0..t {
            m[i * t + col] = (y[(i + 1) * t + col] - y[i * t + col]) / h[i];
        }
    }
    if n == 2 {
        if l == EndCondition::NotAKnot {
            l = EndCondition::Deriv(1, f64::NAN);
        }
        if r == EndCondition::NotAKnot {
            r = EndCondition::Deriv(1, f64::NAN);
        }
    }
    let mut s = vec![0.0; n * t];
    if periodic {
        periodic_slopes(op, &h, &m, t, &mut s)?;
    } else if n == 3 && l == EndCondition::NotAKnot && r == EndCondition::NotAKnot {
        // One parabola through the three points: its end slopes average to the chords.
        let rows = [[1.0, 1.0, 0.0], [h[1], 2.0 * (h[0] + h[1]), h[0]], [0.0, 1.0, 1.0]];
        let a: Vec<f64> = rows.iter().flatten().copied().collect();
        for col in 0..t {
            let (m0, m1) = (m[col], m[t + col]);
            s[col] = 2.0 * m0;
            s[t + col] = 3.0 * (h[1] * m0 + h[0] * m1);
            s[2 * t + col] = 2.0 * m1;
        }
        solve_dense(op, 3, &a, &mut s, t)?;
    } else {
        // Rows of the slope system; each row has at most three entries (columns i-2..i+2).
        let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        for col in 0..t {
            let mi = |i: usize| m[i * t + col];
            let mut rhs = |i: usize, v: f64| s[i * t + col] = v;
            match l {
                EndCondition::NotAKnot => {
                    let (a, b) = (h[1] / h[0], h[0] / h[1]);
                    rows[0] = vec![(0, a), (1, a - b), (2, -b)];
                    rhs(0, 2.0 * (mi(0) * a - mi(1) * b));
                }
                EndCondition::Deriv(1, v) => {
                    rows[0] = vec![(0, 1.0)];
                    rhs(0, if v.is_nan() { mi(0) } else { v });
                }
                EndCondition::Deriv(_, v) => {
                    rows[0] = vec![(0, 2.0), (1, 1.0)];
                    rhs(0, 3.0 * mi(0) - v * h[0] / 2.0);
                }
                _ => unreachable!(),
            }
            for i in 1..n - 1 {
                rows[i] = vec![(i - 1, h[i]), (i, 2.0 * (h[i - 1] + h[i])), (i + 1, h[i - 1])];
                rhs(i, 3.0 * (h[i] * mi(i - 1) + h[i - 1] * mi(i)));
            }
            let e = n - 1;
            match r {
                EndCondition::NotAKnot => {
                    let (a, b) = (h[e - 1] / h[e - 2], h[e - 2] / h[e - 1]);
                    rows[e] = vec![(e - 2, a), (e - 1, a - b), (e, -b)];
                    rhs(e, 2.0 * (mi(e - 2) * a - mi(e - 1) * b));
                }
                EndCondition::Deriv(1, v) => {
                    rows[e] = vec![(e, 1.0)];
                    rhs(e, if v.is_nan() { mi(e - 1) } else { v });
                }
                EndCondition::Deriv(_, v) => {
                    rows[e] = vec![(e - 1, 1.0), (e, 2.0)];
                    rhs(e, 3.0 * mi(e - 1) + v * h[e - 1] / 2.0);
                }
                _ => unreachable!(),
            }
        }
        let a = |i: usize, j: usize| rows[i].iter().find(|(c, _)| *c == j).map_or(0.0, |e| e.1);
        solve_banded(op, n, 2, 2, a, &mut s, t)?;
    }
    Ok(s)
}

/// Slopes of a periodic cubic spline: a cyclic tridiagonal system of `n - 1` unknowns, by
/// Sherman–Morrison on its tridiagonal part (densely for up to three unknowns).
fn periodic_slopes(op: &str, h: &[f64], m: &[f64], t: usize, s: &mut [f64]) -> Result<()> {
    let nn = h.len();
    let mut b = vec![0.0; nn * t];
    for i in 0..nn {
        let p = (i + nn - 1) % nn;
        for col in 0..t {
            b[i * t + col] = 3.0 * (h[i] * m[p * t + col] + h[p] * m[i * t + col]);
        }
    }
    let coef = |i: usize| {
        let p = (i + nn - 1) % nn;
        (h[i], 2.0 * (h[p] + h[i]), h[p]) // (prev, diag, next)
    };
    if nn <= 3 {
        let mut a = vec![0.0; nn * nn];
        for i in 0..nn {
            let (lo, dg, up) = coef(i);
            a[i * nn + (i + nn - 1) % nn] += lo;
            a[i * nn + i] += dg;
            a[i * nn + (i + 1) % nn] += up;
        }
        solve_dense(op, nn, &a, &mut b, t)?;
    } else {
        let gamma = -coef(0).1;
        let alpha = coef(nn - 1).2; // A[n-1][0]
        let beta = coef(0).0; // A[0][n-1]
        let tri = |i: usize, j: usize| {
            let (lo, dg, up) = coef(i);
            if i == j {
                dg - if i == 0 {
                    gamma
                } else if i == nn - 1 {
                    alpha * beta / gamma
                } else {
                    0.0
                }
            } else if j + 1 == i {
                lo
            } else if j == i + 1 {
                up
            } else {
                0.0
            }
        };
        solve_banded(op, nn, 1, 1, tri, &mut b, t)?;
        let mut u = vec![0.0; nn];
        u[0] = gamma;
        u[nn - 1] = alpha;
        solve_banded(op, nn, 1, 1, tri, &mut u, 1)?;
        let vz = u[0] + beta / gamma * u[nn - 1];
        for col in 0..t {
            let vy = b[col] + beta / gamma * b[(nn - 1) * t + col];
            let f = vy / (1.0 + vz);
            for i in 0..nn {
                b[i * t + col] -= f * u[i];
            }
        }
    }
    s[..nn * t].copy_from_slice(&b);
    s[nn * t..].copy_from_slice(&b[..t]);
    Ok(())
}

/// SciPy's `PchipInterpolator(x, y, axis=0, extrapolate=None)`: the shape-preserving piecewise
/// cubic Hermite interpolant of Fritsch and Carlson.
#[derive(Debug, Clone)]
pub struct PchipInterpolator {
    pp: PPoly,
    axis: usize,
}

/// PCHIP slopes of one column (`y` strided by `t`).
pub(crate) fn pchip_slopes(x: &[f64], y: &[f64], t: usize, col: usize, s: &mut [f64]) {
    let n = x.len();
    let h: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
    let m: Vec<f64> = (0..n - 1).map(|i| (y[(i + 1) * t + col] - y[i * t + col]) / h[i]).collect();
    if n == 2 {
        s[col] = m[0];
        s[t + col] = m[0];
        return;
    }
    for k in 1..n - 1 {
        let (a, b) = (m[k - 1], m[k]);
        s[k * t + col] = if a == 0.0 || b == 0.0 || (a > 0.0) != (b > 0.0) {
            0.0
        } else {
            let w1 = 2.0 * h[k] + h[k - 1];
            let w2 = h[k] + 2.0 * h[k - 1];
            (w1 + w2) / (w1 / a + w2 / b)
        };
    }
    let edge = |h0: f64, h1: f64, m0: f64, m1: f64| {
        let d = ((2.0 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
        let sg = |v: f64| {
            if v > 0.0 {
                1
            } else if v < 0.0 {
                -1
            } else {
                0
            }
        };
        if sg(d) != sg(m0) {
            0.0
        } else if sg(m0) != sg(m1) && d.abs() > 3.0 * m0.abs() {
            3.0 * m0
        } else {
            d
        }
    };
    s[col] = edge(h[0], h[1], m[0], m[1]);
    s[(n - 1) * t + col] = edge(h[n - 2], h[n - 3], m[n - 2], m[n - 3]);
}

impl PchipInterpolator {
    /// Fits the slopes on the host; `extrapolate` `None` is `true`.
    pub fn new(x: &Array, y: &Array, axis: isize, extrapolate: Option<Extrapolate>) -> Result<Self> {
        let d = Data1d::new("PchipInterpolator", x, y, axis, 2)?;
        let mut s = vec![0.0; d.n() * d.t];
        for col in 0..d.t {
            pchip_slopes(&d.x, &d.y, d.t, col, &mut s);
        }
        let c = hermite_coeffs(&d.x, &d.y, &s, d.t);
        let pp = PPoly::from_host(&d.dev, &c, 4, &d.trail, d.x, extrapolate.unwrap_or(Extrapolate::Yes))?;
        Ok(PchipInterpolator { pp, axis: d.axis })
    }

    /// SciPy's `__call__(x, nu=0)`, float64.
    pub fn call(&self, x: &Array, nu: i64) -> Result<Array> {
        place_axes(self.pp.call(x, nu)?, x.ndim(), self.axis)
    }

    /// The piecewise polynomial.
    pub fn ppoly(&self) -> &PPoly {
        &self.pp
    }
}

/// `method` of [`Akima1DInterpolator`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AkimaMethod {
    /// Akima's weights (1970).
    #[default]
    Akima,
    /// The modified weights ("makima"), which avoid overshoot where slopes repeat.
    Makima,
}

impl FromStr for AkimaMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "akima" => Ok(AkimaMethod::Akima),
            "makima" => Ok(AkimaMethod::Makima),
            _ => Err(Error::value("Akima1DInterpolator", format!("`method`={s:?} is unsupported"))),
        }
    }
}

/// SciPy's `Akima1DInterpolator(x, y, axis=0, *, method='akima', extrapolate=None)`
/// (`extrapolate` `None` is `false`, as SciPy).
#[derive(Debug, Clone)]
pub struct Akima1DInterpolator {
    pp: PPoly,
    axis: usize,
}

impl Akima1DInterpolator {
    /// Fits the slopes on the host.
    pub fn new(
        x: &Array,
        y: &Array,
        axis: isize,
        method: AkimaMethod,
        extrapolate: Option<Extrapolate>,
    ) -> Result<Self> {
        let d = Data1d::new("Akima1DInterpolator", x, y, axis, 2)?;
        let (n, t) = (d.n(), d.t);
        // Chord slopes with two extra on each side: mm[j + 2] = m[j].
        let mut mm = vec![0.0; (n + 3) * t];
        for col in 0..t {
            let at = |j: usize| j * t + col;
            for i in 0..n - 1 {
                mm[at(i + 2)] = (d.y[(i + 1) * t + col] - d.y[i * t + col]) / (d.x[i + 1] - d.x[i]);
            }
            if n == 2 {
                let v = mm[at(2)];
                for j in [0, 1, 3, 4] {
                    mm[at(j)] = v;
                }
            } else {
                mm[at(1)] = 2.0 * mm[at(2)] - mm[at(3)];
                mm[at(0)] = 2.0 * mm[at(1)] - mm[at(2)];
                mm[at(n + 1)] = 2.0 * mm[at(n)] - mm[at(n - 1)];
                mm[at(n + 2)] = 2.0 * mm[at(n + 1)] - mm[at(n)];
            }
        }
        let mut f1 = vec![0.0; n * t];
        let mut f2 = vec![0.0; n * t];
        for i in 0..n {
            for col in 0..t {
                let g = |j: usize| mm[j * t + col];
                let (a, b) = ((g(i + 3) - g(i + 2)).abs(), (g(i + 1) - g(i)).abs());
                let (a, b) = match method {
                    AkimaMethod::Akima => (a, b),
                    AkimaMethod::Makima => (a + (g(i + 3) + g(i + 2)).abs() / 2.0, b + (g(i + 1) + g(i)).abs() / 2.0),
                };
                f1[i * t + col] = a;
                f2[i * t + col] = b;
            }
        }
        let fmax = f1.iter().zip(&f2).map(|(a, b)| a + b).fold(f64::NEG_INFINITY, f64::max);
        let mut s = vec![0.0; n * t];
        for i in 0..n {
            for col in 0..t {
                let g = |j: usize| mm[j * t + col];
                let (a, b) = (f1[i * t + col], f2[i * t + col]);
                s[i * t + col] = if a + b > 1e-9 * fmax {
                    (a * g(i + 1) + b * g(i + 2)) / (a + b)
                } else {
                    0.5 * (g(i + 1) + g(i + 2))
                };
            }
        }
        let c = hermite_coeffs(&d.x, &d.y, &s, t);
        let pp = PPoly::from_host(&d.dev, &c, 4, &d.trail, d.x, extrapolate.unwrap_or(Extrapolate::No))?;
        Ok(Akima1DInterpolator { pp, axis: d.axis })
    }

    /// SciPy's `__call__(x, nu=0, extrapolate=None)`, float64.
    pub fn call(&self, x: &Array, nu: i64) -> Result<Array> {
        place_axes(self.pp.call(x, nu)?, x.ndim(), self.axis)
    }

    /// The piecewise polynomial.
    pub fn ppoly(&self) -> &PPoly {
        &self.pp
    }
}
