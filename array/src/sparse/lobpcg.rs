//! `scipy.sparse.linalg.lobpcg`: the locally optimal block preconditioned conjugate gradient
//! method (Knyazev, 2001) for a few extreme eigenpairs of a symmetric operator.
//!
//! **Iteration.** Each step forms the residuals `R = A X − X Λ` of the current block, reads
//! their column norms (the step's one read of data-sized work: `k` numbers), and for the
//! columns not yet converged applies the preconditioner, orthogonalises the result against `X`
//! and orthonormalises it (`W`); the search directions `P` of the last step are orthonormalised
//! too. The Rayleigh–Ritz projection on `S = [X, W, P]` is then solved on the host: the Gram
//! matrices `Sᵀ A S` and `Sᵀ S` (at most `3k × 3k`) come back, `Sᵀ S = L Lᵀ` by Cholesky and the
//! standard problem `L⁻¹ (Sᵀ A S) L⁻ᵀ` by cyclic Jacobi; the new block `X = S C` and directions
//! `P` are formed on the device. Orthonormalising a block is a Cholesky of its small Gram
//! matrix (on the host) and a product on the device. When `Sᵀ S` is too ill-conditioned for
//! Cholesky the step is redone without `P`, as SciPy restarts.
//!
//! **Conventions.** SciPy's: `largest` (default `true`) picks the largest eigenvalues, else the
//! smallest; the eigenvalues come most wanted first (descending for `largest`, ascending
//! otherwise); `tol` defaults to `sqrt(eps) n` and `maxiter` to 20, and a block that does not
//! converge in time is answered as it stands (SciPy warns). Generalized problems (`B`) and
//! constraints (`Y`) are not taken. The operator, the block and the preconditioner work in
//! float64 (float32 when all are float32); complex operators are a `DType` error.

use xp_backend_api::{DType, Error, Result};

use super::linalg::{jacobi_eigh, LinearOperator};
use crate::layout::SliceArg;
use crate::Array;

/// Options of [`lobpcg`] (SciPy's keyword arguments; `None` takes SciPy's default).
#[derive(Clone, Copy)]
pub struct LobpcgOptions<'a> {
    /// A preconditioner approximating `A⁻¹` (SciPy's `M`).
    pub m: Option<&'a dyn LinearOperator>,
    /// The residual norm under which an eigenpair has converged (default `sqrt(eps) n`).
    pub tol: Option<f64>,
    /// Iteration limit (default 20).
    pub maxiter: Option<usize>,
    /// The largest eigenvalues (`true`, the default) or the smallest.
    pub largest: bool,
}

impl Default for LobpcgOptions<'_> {
    fn default() -> Self {
        LobpcgOptions { m: None, tol: None, maxiter: None, largest: true }
    }
}

impl std::fmt::Debug for LobpcgOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LobpcgOptions")
            .field("m", &self.m.map(|m| m.shape()))
            .field("tol", &self.tol)
            .field("maxiter", &self.maxiter)
            .field("largest", &self.largest)
            .finish()
    }
}

/// A row-major host matrix as an `r × c` device array of dtype `t` on `like`'s device.
fn upload(like: &Array, v: &[f64], r: usize, c: usize, t: DType) -> Result<Array> {
    Array::from_slice_on(&like.device_arc(), v, &[r, c])?.astype(t)
}

/// `aᵀ b` read to the host (row-major, `a.cols × b.cols`).
fn gram(a: &Array, b: &Array) -> Result<Vec<f64>> {
    let g = crate::linalg::matmul(&a.permute(&[1, 0])?, b)?;
    g.astype(DType::F64)?.ascontiguous()?.to_vec::<f64>()
}

/// The lower Cholesky factor of the symmetric positive definite `g` (`n × n`, row-major),
/// `None` when it is not numerically so.
fn cholesky(g: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    let scale = (0..n).map(|i| g[i * n + i].abs()).fold(0.0, f64::max);
    for j in 0..n {
        let mut d = g[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        if d.is_nan() || d <= 1e-14 * scale {
            return None;
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = (g[i * n + j] + g[j * n + i]) * 0.5;
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    Some(l)
}

/// `L⁻ᵀ` of a lower triangular `l` (`n × n`, row-major): the upper triangular inverse of `Lᵀ`.
fn inv_lt(l: &[f64], n: usize) -> Vec<f64> {
    // Solve Lᵀ Z = I column by column (back substitution).
    let mut z = vec![0.0; n * n];
    for c in 0..n {
        for i in (0..n).rev() {
            let mut s = if i == c { 1.0 } else { 0.0 };
            for k in i + 1..n {
                s -= l[k * n + i] * z[k * n + c];
            }
            z[i * n + c] = s / l[i * n + i];
        }
    }
    z
}

/// `v` (`n × k`) with orthonormal columns spanning the same space, and the `k × k` matrix `U`
/// with `v U` the result (`None` when `v`'s columns are numerically dependent).
fn orthonormalize(v: &Array, t: DType) -> Result<Option<(Array, Array)>> {
    let k = v.shape()[1];
    let g = gram(v, v)?;
    let Some(l) = cholesky(&g, k) else { return Ok(None) };
    let u = upload(v, &inv_lt(&l, k), k, k, t)?;
    Ok(Some((crate::linalg::matmul(v, &u)?, u)))
}

/// Columns `cols` of a 2-d array.
fn columns(a: &Array, cols: &[usize]) -> Result<Array> {
    let idx: Vec<i64> = cols.iter().map(|&c| c as i64).collect();
    let idx = Array::from_slice_on(&a.device_arc(), &idx, &[idx.len()])?;
    a.take(&idx, Some(1))
}

/// Rows `r0..r1` of a 2-d array.
fn rows(a: &Array, r0: usize, r1: usize) -> Result<Array> {
    a.slice(&[SliceArg::range(r0 as isize, r1 as isize, 1), SliceArg::ALL])
}

/// `A X` for a block `X` in dtype `t`.
fn apply(a: &dyn LinearOperator, x: &Array, t: DType) -> Result<Array> {
    let y = a.matmat(x)?;
    let y = if y.ndim() == 1 { y.reshape(&[y.size() as isize, 1])? } else { y };
    y.astype(t)
}

/// SciPy's `lobpcg(A, X, M=m, tol, maxiter, largest)`: the `k` extreme eigenvalues of the
/// symmetric operator `a` and their eigenvectors (`n × k`), from the starting block `x`
/// (`n × k`, `k` independent columns; `n ≥ 5k`, else SciPy solves densely and so does this:
/// the block is then the whole space). See the module docs.
pub fn lobpcg(a: &dyn LinearOperator, x: &Array, o: &LobpcgOptions<'_>) -> Result<(Array, Array)> {
    let op = "lobpcg";
    let (n, n2) = a.shape();
    if n != n2 {
        return Err(Error::value(op, format!("the operator must be square, got shape ({n}, {n2})")));
    }
    let x = if x.ndim() == 1 { x.reshape(&[x.size() as isize, 1])? } else { x.clone() };
    if x.ndim() != 2 || x.shape()[0] != n || x.shape()[1] == 0 || x.shape()[1] > n {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: vec![n, n],
            rhs: x.shape().to_vec(),
            reason: format!("the block X {:?} must have {n} rows and between 1 and {n} columns", x.shape()),
        });
    }
    let k = x.shape()[1];
    if let Some(m) = o.m {
        if m.shape() != (n, n) {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: vec![n, n],
                rhs: vec![m.shape().0, m.shape().1],
                reason: format!("the preconditioner's shape {:?} does not match A's ({n}, {n})", m.shape()),
            });
        }
    }
    let mut t = if a.dtype() == DType::F32 && x.dtype() == DType::F32 { DType::F32 } else { DType::F64 };
    for d in [a.dtype(), x.dtype()] {
        if d.is_complex() {
            return Err(Error::DType {
                op: op.into(),
                reason: format!("complex operators are not supported (got {d})"),
            });
        }
    }
    if n < 5 * k {
        // SciPy's choice for small problems: the Rayleigh–Ritz of the whole space.
        t = DType::F64;
    }
    let x = x.astype(t)?;
    let tol = o.tol.unwrap_or_else(|| {
        let eps = if t == DType::F32 { f32::EPSILON as f64 } else { f64::EPSILON };
        eps.sqrt() * n as f64
    });
    let maxiter = o.maxiter.unwrap_or(20);
    let order = |theta: &[f64]| -> Vec<usize> {
        let mut idx: Vec<usize> = (0..theta.len()).collect();
        idx.sort_by(|&i, &j| {
            let c = theta[i].partial_cmp(&theta[j]).unwrap_or(std::cmp::Ordering::Equal);
            if o.largest {
                c.reverse()
            } else {
                c
            }
        });
        idx
    };
    // The Rayleigh–Ritz of `s` (orthonormal or not): the `k` wanted values and their
    // coefficients (`cols(s) × k`, row-major), `None` when `sᵀ s` is not positive definite.
    let ritz = |s: &Array, as_: &Array| -> Result<Option<(Vec<f64>, Vec<f64>)>> {
        let m = s.shape()[1];
        let gb = gram(s, s)?;
        let ga = gram(s, as_)?;
        let Some(l) = cholesky(&gb, m) else { return Ok(None) };
        let z = inv_lt(&l, m);
        // C = Zᵀ GA Z, symmetrised.
        let mut za = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                za[i * m + j] = (0..m).map(|q| z[q * m + i] * ga[q * m + j]).sum();
            }
        }
        let mut c = vec![vec![0.0; m]; m];
        for i in 0..m {
            for j in 0..m {
                c[i][j] = (0..m).map(|q| za[i * m + q] * z[q * m + j]).sum();
            }
        }
        let sym: Vec<Vec<f64>> = (0..m).map(|i| (0..m).map(|j| 0.5 * (c[i][j] + c[j][i])).collect()).collect();
        let c = sym;
        let (theta, vecs) = jacobi_eigh(&c);
        let pick: Vec<usize> = order(&theta).into_iter().take(k.min(m)).collect();
        let vals: Vec<f64> = pick.iter().map(|&j| theta[j]).collect();
        let mut coef = vec![0.0; m * pick.len()];
        for (jj, &j) in pick.iter().enumerate() {
            for i in 0..m {
                coef[i * pick.len() + jj] = (0..m).map(|q| z[i * m + q] * vecs[q][j]).sum();
            }
        }
        Ok(Some((vals, coef)))
    };
    let dense_fallback = n < 5 * k;
    let start =
        if dense_fallback { crate::with_device(&x.device_arc(), || crate::eye(n, None, 0, t))? } else { x.clone() };
    let Some((mut xb, _)) = orthonormalize(&start, t)? else {
        return Err(Error::LinAlg { op: op.into(), reason: "the columns of X are linearly dependent".into() });
    };
    let mut ax = apply(a, &xb, t)?;
    let Some((mut lambda, c)) = ritz(&xb, &ax)? else {
        return Err(Error::LinAlg { op: op.into(), reason: "the columns of X are linearly dependent".into() });
    };
    let cols = xb.shape()[1];
    let cd = upload(&xb, &c, cols, lambda.len(), t)?;
    xb = crate::linalg::matmul(&xb, &cd)?;
    ax = crate::linalg::matmul(&ax, &cd)?;
    if dense_fallback {
        return Ok((Array::from_slice_on(&xb.device_arc(), &lambda, &[k])?.astype(t)?, xb));
    }
    let mut p: Option<(Array, Array)> = None;
    for _ in 0..maxiter {
        let lam = upload(&xb, &lambda, 1, k, t)?;
        let r = ax.sub(&xb.mul(&lam)?)?;
        let norms = r.mul(&r)?.sum(Some(&[0]), false)?.sqrt()?.astype(DType::F64)?.to_vec::<f64>()?;
        // NaN norms stay active.
        let active: Vec<usize> = (0..k).filter(|&j| norms[j].is_nan() || norms[j] > tol).collect();
        if active.is_empty() {
            break;
        }
        let r = columns(&r, &active)?;
        let w = match o.m {
            Some(m) => apply(m, &r, t)?,
            None => r,
        };
        // W against X, then orthonormal.
        let xw = upload(&xb, &gram(&xb, &w)?, k, active.len(), t)?;
        let w = w.sub(&crate::linalg::matmul(&xb, &xw)?)?;
        let Some((w, _)) = orthonormalize(&w, t)? else { break };
        let aw = apply(a, &w, t)?;
        // The previous directions of the active columns, orthonormal.
        let pa = match &p {
            Some((pp, app)) => {
                let (pp, app) = (columns(pp, &active)?, columns(app, &active)?);
                orthonormalize(&pp, t)?
                    .map(|(q, u)| Ok::<_, Error>((q, crate::linalg::matmul(&app, &u)?)))
                    .transpose()?
            }
            None => None,
        };
        let mut step = None;
        if let Some((pp, app)) = &pa {
            let s = crate::concatenate(&[&xb, &w, pp], 1)?;
            let as_ = crate::concatenate(&[&ax, &aw, app], 1)?;
            if let Some(rr) = ritz(&s, &as_)? {
                step = Some((s, as_, rr));
            }
        }
        let (s, as_, (vals, coef)) = match step {
            Some(v) => v,
            None => {
                // No directions yet, or `[X, W, P]` too ill-conditioned: restart without `P`.
                let s = crate::concatenate(&[&xb, &w], 1)?;
                let as_ = crate::concatenate(&[&ax, &aw], 1)?;
                match ritz(&s, &as_)? {
                    Some(rr) => (s, as_, rr),
                    None => break,
                }
            }
        };
        let m = s.shape()[1];
        let cd = upload(&xb, &coef, m, k, t)?;
        let tail = rows(&cd, k, m)?;
        let (s_tail, as_tail) = (
            s.slice(&[SliceArg::ALL, SliceArg::range(k as isize, m as isize, 1)])?,
            as_.slice(&[SliceArg::ALL, SliceArg::range(k as isize, m as isize, 1)])?,
        );
        p = Some((crate::linalg::matmul(&s_tail, &tail)?, crate::linalg::matmul(&as_tail, &tail)?));
        xb = crate::linalg::matmul(&s, &cd)?;
        ax = crate::linalg::matmul(&as_, &cd)?;
        crate::lazy::eval(&[&xb, &ax])?;
        lambda = vals;
    }
    Ok((Array::from_slice_on(&xb.device_arc(), &lambda, &[k])?.astype(t)?, xb))
}
