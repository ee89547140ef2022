//! `scipy.sparse.linalg.expm_multiply` / `cupyx.scipy.sparse.linalg.expm_multiply`: the
//! action `e^{tA} B` of the matrix exponential, without forming `e^{tA}`.
//!
//! **Algorithm.** Al-Mohy & Higham, "Computing the action of the matrix exponential, with an
//! application to exponential integrators", SIAM J. Sci. Comput. 33 (2011), algorithm 3.2:
//! `A` is shifted by `μ = trace(A)/n`, and `e^{tA} B = e^{tμ} (T_m(tA/s))^s B` with `T_m` the
//! truncated Taylor series of degree `m`, summed term by term until two successive terms are
//! below the unit roundoff relative to the sum. `m` and `s` minimise the number of products
//! `m s` subject to `t‖A − μI‖₁ / s ≤ θ_m` (the paper's table of `θ_m` for double precision,
//! `m ≤ 55`). The paper refines the bound with estimates of `‖Aᵖ‖₁^{1/p}` for non-normal
//! matrices; here `‖A − μI‖₁` bounds them (every `‖Aᵖ‖₁^{1/p} ≤ ‖A‖₁`), which keeps the
//! same accuracy at the cost of more products for strongly non-normal matrices.
//!
//! **Time points.** With `start`, `stop`, `num` and `endpoint` (NumPy's `linspace`, `num`
//! 50 and `endpoint` true by default, at least two points), the answer at `t₀` is computed as
//! above and each next one from the previous one with the step `h`: `X_{k+1} = e^{hA} X_k`.
//! The paper's algorithm 5.2 shares the Taylor terms between points; the step-by-step form
//! does the same work per point when `h‖A‖₁` is small, and each step meets the same
//! tolerance.
//!
//! **Operators.** Sparse matrices and dense arrays give their exact trace and 1-norm; other
//! [`LinearOperator`]s use `trace_a` when given (else no shift, which only costs products)
//! and Hager's 1-norm estimate (Hager, 1984; Higham, 1988), which needs `rmatvec`. Every
//! product and norm runs on the operator's device; each Taylor term reads two norms on the
//! host (the stopping test). Real float32 and float64 operators and right-hand sides are
//! taken (float32 stops at float32's unit roundoff); complex ones are a `DType` error.

use xp_backend_api::{DType, Error, Result};

use super::linalg::LinearOperator;
use crate::Array;

/// `θ_m` for the degrees `m` the algorithm may choose (Al-Mohy & Higham 2011, table 3.1, and
/// Higham, *Functions of Matrices*, table A.3): the largest `‖tA/s‖₁` for which the Taylor
/// polynomial of degree `m` meets double precision's unit roundoff.
const THETA: [(usize, f64); 35] = [
    (1, 2.29e-16),
    (2, 2.58e-8),
    (3, 1.39e-5),
    (4, 3.40e-4),
    (5, 2.40e-3),
    (6, 9.07e-3),
    (7, 2.38e-2),
    (8, 5.00e-2),
    (9, 8.96e-2),
    (10, 1.44e-1),
    (11, 2.14e-1),
    (12, 3.00e-1),
    (13, 4.00e-1),
    (14, 5.14e-1),
    (15, 6.41e-1),
    (16, 7.81e-1),
    (17, 9.31e-1),
    (18, 1.09),
    (19, 1.26),
    (20, 1.44),
    (21, 1.62),
    (22, 1.82),
    (23, 2.01),
    (24, 2.22),
    (25, 2.43),
    (26, 2.64),
    (27, 2.86),
    (28, 3.08),
    (29, 3.31),
    (30, 3.54),
    (35, 4.7),
    (40, 6.0),
    (45, 7.2),
    (50, 8.5),
    (55, 9.9),
];

/// The time points of [`expm_multiply`] (SciPy's `start`, `stop`, `num`, `endpoint`) and the
/// operator's trace (`traceA`). All `None`: the single time `t = 1`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExpmMultiplyOptions {
    /// The first time point.
    pub start: Option<f64>,
    /// The last time point (excluded when `endpoint` is false).
    pub stop: Option<f64>,
    /// The number of time points (50 when `start`/`stop` are given without it).
    pub num: Option<usize>,
    /// Whether `stop` is a time point (true by default).
    pub endpoint: Option<bool>,
    /// The trace of `A`, for operators that cannot give theirs.
    pub trace_a: Option<f64>,
}

/// `(m*, s)`: the degree and the number of steps for `‖tA‖₁ = norm`.
fn degree_and_steps(norm: f64) -> (usize, usize) {
    if norm == 0.0 || !norm.is_finite() {
        return (0, 1);
    }
    let mut best: Option<(usize, usize)> = None;
    for &(m, theta) in &THETA {
        let s = (norm / theta).ceil().max(1.0);
        if s > 1e15 {
            continue;
        }
        let s = s as usize;
        if best.is_none_or(|(bm, bs)| m.saturating_mul(s) < bm.saturating_mul(bs)) {
            best = Some((m, s));
        }
    }
    best.unwrap_or((55, (norm / 9.9).ceil() as usize))
}

/// The largest row sum of `|x|` (the ∞-norm of a vector or matrix), read on the host.
fn inf_norm(x: &Array) -> Result<f64> {
    let a = x.abs()?;
    let r = if a.ndim() == 2 { a.sum(Some(&[1]), false)? } else { a };
    if r.size() == 0 {
        return Ok(0.0);
    }
    r.max(None, false)?.astype(DType::F64)?.item::<f64>()
}

/// `A X − μ X`.
fn shifted(a: &dyn LinearOperator, x: &Array, mu: f64) -> Result<Array> {
    let ax = if x.ndim() == 2 { a.matmat(x)? } else { a.matvec(x)? };
    if mu == 0.0 {
        Ok(ax)
    } else {
        ax.sub(&x.mul_scalar(mu)?)
    }
}

/// Hager's estimate of `‖A − μI‖₁` (a lower bound, exact in most cases), by products with
/// `A` and `Aᵀ`.
fn hager_norm(a: &dyn LinearOperator, mu: f64, t: DType) -> Result<f64> {
    let n = a.shape().0;
    let dev = a.device()?;
    let mut x = Array::full_on(&dev, &[n], 1.0 / n as f64, t)?;
    let mut est = 0.0;
    let mut last: Option<usize> = None;
    for _ in 0..5 {
        let y = shifted(a, &x, mu)?;
        est = y.abs()?.sum(None, false)?.astype(DType::F64)?.item::<f64>()?;
        let xi = y.sign()?.add(&y.eq(0.0)?.astype(t)?)?;
        let z = a.rmatvec(&xi)?.sub(&xi.mul_scalar(mu)?)?;
        let j = z.abs()?.argmax(None)?.item::<i64>()? as usize;
        let zmax = z.abs()?.max(None, false)?.astype(DType::F64)?.item::<f64>()?;
        let ztx = z.mul(&x)?.sum(None, false)?.astype(DType::F64)?.item::<f64>()?;
        if zmax <= ztx || last == Some(j) {
            break;
        }
        last = Some(j);
        let mut e = vec![0.0f64; n];
        e[j] = 1.0;
        x = Array::from_slice_on(&dev, &e, &[n])?.astype(t)?;
    }
    Ok(est)
}

/// Algorithm 3.2's core: `e^{t(A−μI) + tμ} B` with degree `m` and `s` steps.
fn core(a: &dyn LinearOperator, b: &Array, t: f64, mu: f64, m: usize, s: usize, tol: f64) -> Result<Array> {
    let mut f = b.clone();
    let mut b = b.clone();
    let eta = (t * mu / s as f64).exp();
    for _ in 0..s {
        let mut c1 = inf_norm(&b)?;
        for j in 0..m {
            let coeff = t / (s * (j + 1)) as f64;
            b = shifted(a, &b, mu)?.mul_scalar(coeff)?;
            let c2 = inf_norm(&b)?;
            f = f.add(&b)?;
            if c1 + c2 <= tol * inf_norm(&f)? {
                break;
            }
            c1 = c2;
        }
        f = f.mul_scalar(eta)?;
        b = f.clone();
    }
    Ok(f)
}

/// SciPy's `expm_multiply(A, B, start, stop, num, endpoint, traceA)`: `e^{tA} B` for a square
/// operator `A` (a sparse matrix, a dense array or any [`LinearOperator`]) and a vector or
/// matrix `B`, at `t = 1`, or at each time of `linspace(start, stop, num, endpoint)` stacked
/// along a new first axis (see the module docs).
///
/// ```
/// # use xp_array::{sparse, Array};
/// # xp_array::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # xp_array::with_device(&xp_array::device("cpu")?, || -> xp_array::Result<()> {
/// // A diagonal matrix: e^A b is e^{a_ii} b_i.
/// let a = sparse::CsrMatrix::from_dense(&Array::from_slice(&[1.0f64, 0., 0., -2.], &[2, 2])?)?;
/// let b = Array::from_vec(vec![1.0f64, 1.])?;
/// let x = sparse::linalg::expm_multiply(&a, &b, &Default::default())?.to_vec::<f64>()?;
/// assert!((x[0] - 1f64.exp()).abs() < 1e-14 && (x[1] - (-2f64).exp()).abs() < 1e-15);
/// # Ok(()) })?;
/// # Ok::<(), xp_array::Error>(())
/// ```
pub fn expm_multiply(a: &dyn LinearOperator, b: &Array, o: &ExpmMultiplyOptions) -> Result<Array> {
    let op = "expm_multiply";
    let (m, n) = a.shape();
    if m != n {
        return Err(Error::value(op, format!("expected A to be like a square matrix, got shape ({m}, {n})")));
    }
    if !matches!(b.ndim(), 1 | 2) {
        return Err(Error::value(op, format!("expected B to be like a matrix or a vector, got shape {:?}", b.shape())));
    }
    if b.shape()[0] != n {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: vec![m, n],
            rhs: b.shape().to_vec(),
            reason: format!("shapes of matrices A ({m}, {n}) and B {:?} are incompatible", b.shape()),
        });
    }
    if a.dtype().is_complex() || b.dtype().is_complex() {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("complex operators are not supported (A {}, B {})", a.dtype(), b.dtype()),
        });
    }
    let t = if a.dtype() == DType::F32 && b.dtype() == DType::F32 { DType::F32 } else { DType::F64 };
    let tol = if t == DType::F32 { 2f64.powi(-24) } else { 2f64.powi(-53) };
    let b = b.astype(t)?;
    let trace = match (o.trace_a, a.trace()) {
        (Some(tr), _) => tr,
        (None, Some(tr)) => tr?,
        (None, None) => 0.0,
    };
    let mu = if n > 0 { trace / n as f64 } else { 0.0 };
    let norm = match a.shifted_one_norm(mu) {
        Some(v) => v?,
        None if n == 0 => 0.0,
        None => hager_norm(a, mu, t)?,
    };
    let single = o.start.is_none() && o.stop.is_none() && o.num.is_none() && o.endpoint.is_none();
    if single {
        let (ms, s) = degree_and_steps(norm);
        return core(a, &b, 1.0, mu, ms, s, tol);
    }
    let (Some(start), Some(stop)) = (o.start, o.stop) else {
        return Err(Error::value(op, "start and stop are needed with num or endpoint (numpy.linspace's arguments)"));
    };
    let num = o.num.unwrap_or(50);
    let endpoint = o.endpoint.unwrap_or(true);
    if num < 2 {
        return Err(Error::value(op, "at least two time points are required"));
    }
    let div = if endpoint { num - 1 } else { num };
    let h = (stop - start) / div as f64;
    let (m0, s0) = degree_and_steps(start.abs() * norm);
    let mut x = core(a, &b, start, mu, m0, s0, tol)?;
    let (mh, sh) = degree_and_steps(h.abs() * norm);
    let mut out = Vec::with_capacity(num);
    out.push(x.clone());
    for _ in 1..num {
        x = core(a, &x, h, mu, mh, sh, tol)?;
        out.push(x.clone());
    }
    crate::stack(&out.iter().collect::<Vec<_>>(), 0)
}
