//! Sparse linear algebra, as `scipy.sparse.linalg` / `cupyx.scipy.sparse.linalg`: [`norm`],
//! [`matrix_power`], the direct solvers [`spsolve`] and [`spsolve_triangular`], the Krylov
//! solvers [`cg`], [`cgs`], [`bicgstab`], [`gmres`], [`minres`], [`lsqr`] and [`lsmr`], the
//! eigensolvers [`eigsh`], [`svds`] and [`lobpcg`], the factorisations [`splu`] and
//! [`factorized`], [`expm_multiply`], and [`LinearOperator`] with [`aslinearoperator`].
//!
//! **Where the work runs.** Every data-sized step of the iterative solvers and eigensolvers
//! is an xp op on the operator's device: sparse mat-vecs, dot products (reduced on the device),
//! `axpy` updates, and for GMRES and Lanczos the Gram–Schmidt projections against the stacked
//! basis as two dense mat-vecs. Only scalars (and the small Hessenberg or tridiagonal
//! projections, of the restart length) come to the host each iteration, where the Givens
//! rotations, the convergence tests and the small symmetric eigenproblems (cyclic Jacobi) are
//! done in float64.
//!
//! **The CPU device.** [`cg`] of a CSR matrix without a preconditioner on the CPU device runs
//! the same iteration as native host loops (`host_cg.rs`): the matrix and the vectors are read
//! in place, each iteration is two fused passes over blocks of rows on rayon's threads (the new
//! search direction with the mat-vec and its dot product; the updates of `x` and `r` with
//! `‖r‖²`), and the dot products add in a fixed order, so the answer does not depend on the
//! number of threads. The per-step kernel launches, temporaries and scalar reads of the
//! device form cost more than the arithmetic there. `ndimage::with_device_kernels` runs the
//! device form on the CPU (for comparisons).
//!
//! **Direct solvers.** [`spsolve`] is a sparse LU with partial pivoting and a COLAMD column
//! ordering, by faer on the host (the factorisation of [`splu`]: see its docs), with the
//! right-hand side copied there and the answer copied back; no dense `n × n` matrix is formed.
//! [`spsolve_triangular`] is a level-scheduled sparse triangular solve on the matrix's device
//! (the rows of one dependency level in parallel, one launch per level). [`splu`] (a
//! [`SuperLu`] object) and [`factorized`] keep the factorisation for many right-hand sides. A
//! singular system gives NaNs in `spsolve`, as SciPy's (which also warns).
//!
//! **Algorithms.** CG: Hestenes & Stiefel (1952), preconditioned. CGS: Sonneveld (1989).
//! BiCGSTAB: van der Vorst (1992). GMRES: Saad & Schultz (1986), restarted, right
//! preconditioned, classical Gram–Schmidt applied twice. MINRES: Paige & Saunders (1975).
//! LSQR: Paige & Saunders (1982). LSMR: Fong & Saunders (2011). `eigsh`: thick-restart
//! Lanczos (Wu & Simon, 2000) with full reorthogonalisation, which is the symmetric
//! Krylov–Schur method; `svds` applies it to `AᴴA` (or `AAᴴ`, the smaller).
//!
//! **Conventions.** Arguments and defaults are SciPy 1.14's: `rtol` (default 1e-5) and `atol`
//! (default 0) stop a solver when `‖b − Ax‖ ≤ max(rtol‖b‖, atol)`; `maxiter` defaults to
//! `10 n` (GMRES: restart cycles). The solvers answer `(x, info)`: `info` 0 on convergence,
//! the iteration count when `maxiter` ran out, negative on a breakdown. The iterative solvers
//! and eigensolvers take real float32/float64 operators (integer data works in float64);
//! complex operators are a `DType` error for now. Float32 stays float32.

use std::str::FromStr;

use std::sync::Arc;

use xp_backend_api::{DType, DynDevice, Error, Result};

pub use super::expm_multiply::{expm_multiply, ExpmMultiplyOptions};
pub use super::factor::{factorized, level_scheduled_kernels, spilu, splu, splu_with, ColumnOrdering, SuperLu};
pub use super::lobpcg::{lobpcg, LobpcgOptions};
use super::{CscMatrix, CsrMatrix};
use crate::linalg::Trans;
use crate::{Array, Element};

/// A linear map `x ↦ A x` given by its products (SciPy's `LinearOperator`): sparse and dense
/// matrices are operators, and [`FunctionOperator`] wraps closures.
pub trait LinearOperator {
    /// `(rows, columns)`.
    fn shape(&self) -> (usize, usize);
    /// The dtype of `A x` for a vector `x` of the same dtype.
    fn dtype(&self) -> DType;
    /// `A x` for a vector `x` of length `columns`.
    fn matvec(&self, x: &Array) -> Result<Array>;
    /// `Aᴴ x` for a vector `x` of length `rows`.
    fn rmatvec(&self, x: &Array) -> Result<Array>;
    /// The device the operator works on (by default the current device).
    fn device(&self) -> Result<Arc<dyn DynDevice>> {
        crate::current_device()
    }
    /// The trace of `A`, when the operator knows it (matrices do; by default `None`), for
    /// [`expm_multiply`]'s shift.
    fn trace(&self) -> Option<Result<f64>> {
        None
    }
    /// `‖A − μI‖₁` exactly, when the operator can compute it (matrices can; by default
    /// `None`, and [`expm_multiply`] estimates it).
    fn shifted_one_norm(&self, mu: f64) -> Option<Result<f64>> {
        let _ = mu;
        None
    }
    /// The operator as a CSR matrix when it is one (by default `None`), so that a solver can
    /// take a form of its iteration that reads the matrix itself (see [`cg`]).
    fn as_csr(&self) -> Option<&CsrMatrix> {
        None
    }
    /// `A X` for a matrix `X` of `columns` rows (by default, column by column).
    fn matmat(&self, x: &Array) -> Result<Array> {
        let k = x.shape().get(1).copied().unwrap_or(1);
        let cols: Vec<Array> = (0..k)
            .map(|j| {
                self.matvec(&x.slice(&[crate::layout::SliceArg::ALL, crate::layout::SliceArg::Index(j as isize)])?)
            })
            .collect::<Result<_>>()?;
        crate::stack(&cols.iter().collect::<Vec<_>>(), 1)
    }
}

/// The conjugate of `x` (itself when real).
fn conj(x: &Array) -> Result<Array> {
    if x.dtype().is_complex() {
        x.conj()
    } else {
        Ok(x.clone())
    }
}

impl LinearOperator for CsrMatrix {
    fn device(&self) -> Result<Arc<dyn DynDevice>> {
        Ok(self.data().device_arc())
    }
    fn shape(&self) -> (usize, usize) {
        CsrMatrix::shape(self)
    }
    fn dtype(&self) -> DType {
        CsrMatrix::dtype(self)
    }
    fn matvec(&self, x: &Array) -> Result<Array> {
        self.dot(x)
    }
    fn rmatvec(&self, x: &Array) -> Result<Array> {
        conj(&self.rdot(&conj(x)?)?)
    }
    fn matmat(&self, x: &Array) -> Result<Array> {
        self.dot(x)
    }
    fn as_csr(&self) -> Option<&CsrMatrix> {
        Some(self)
    }
    fn trace(&self) -> Option<Result<f64>> {
        Some(self.diagonal(0).and_then(|d| scalar_f64(&d.sum(None, false)?)))
    }
    fn shifted_one_norm(&self, mu: f64) -> Option<Result<f64>> {
        Some(sparse_shifted_one_norm(self, mu))
    }
}

/// A real scalar array's value as `f64`.
fn scalar_f64(a: &Array) -> Result<f64> {
    a.astype(DType::F64)?.item::<f64>()
}

/// `‖A − μI‖₁`: the largest column sum of `|A − μI|`.
fn sparse_shifted_one_norm(a: &CsrMatrix, mu: f64) -> Result<f64> {
    let (m, n) = a.shape;
    if m == 0 || n == 0 {
        return Ok(0.0);
    }
    let dev = a.device_arc();
    let eye = crate::with_device(&dev, || super::eye(m, Some(n), 0, a.dtype()))?;
    let mut s = a.sub(&eye.mul_scalar(mu)?)?;
    s.data = s.data.abs()?;
    scalar_f64(&s.sum(Some(0))?.max(None, false)?)
}

impl LinearOperator for CscMatrix {
    fn device(&self) -> Result<Arc<dyn DynDevice>> {
        Ok(self.data().device_arc())
    }
    fn shape(&self) -> (usize, usize) {
        CscMatrix::shape(self)
    }
    fn dtype(&self) -> DType {
        CscMatrix::dtype(self)
    }
    fn matvec(&self, x: &Array) -> Result<Array> {
        self.dot(x)
    }
    fn rmatvec(&self, x: &Array) -> Result<Array> {
        conj(&self.rdot(&conj(x)?)?)
    }
    fn matmat(&self, x: &Array) -> Result<Array> {
        self.dot(x)
    }
    fn trace(&self) -> Option<Result<f64>> {
        Some(self.tocsr().and_then(|c| scalar_f64(&c.diagonal(0)?.sum(None, false)?)))
    }
    fn shifted_one_norm(&self, mu: f64) -> Option<Result<f64>> {
        Some(self.tocsr().and_then(|c| sparse_shifted_one_norm(&c, mu)))
    }
}

impl LinearOperator for Array {
    fn device(&self) -> Result<Arc<dyn DynDevice>> {
        Ok(self.device_arc())
    }
    fn shape(&self) -> (usize, usize) {
        let s = Array::shape(self);
        (s.first().copied().unwrap_or(0), s.get(1).copied().unwrap_or(0))
    }
    fn dtype(&self) -> DType {
        Array::dtype(self)
    }
    fn matvec(&self, x: &Array) -> Result<Array> {
        self.matmul(x)
    }
    fn rmatvec(&self, x: &Array) -> Result<Array> {
        conj(self)?.permute(&[1, 0])?.matmul(x)
    }
    fn matmat(&self, x: &Array) -> Result<Array> {
        self.matmul(x)
    }
    fn trace(&self) -> Option<Result<f64>> {
        Some(crate::linalg::trace(self, 0).and_then(|t| scalar_f64(&t)))
    }
    fn shifted_one_norm(&self, mu: f64) -> Option<Result<f64>> {
        let (m, n) = LinearOperator::shape(self);
        if m == 0 || n == 0 {
            return Some(Ok(0.0));
        }
        let go = || -> Result<f64> {
            let eye = crate::with_device(&self.device_arc(), || crate::eye(m, Some(n), 0, self.dtype()))?;
            let d = self.sub(&eye.mul_scalar(mu)?)?.abs()?;
            scalar_f64(&d.sum(Some(&[0]), false)?.max(None, false)?)
        };
        Some(go())
    }
}

/// The product closure of a [`FunctionOperator`].
pub type MatVec = Box<dyn Fn(&Array) -> Result<Array> + Send + Sync>;

/// SciPy's `LinearOperator(shape, matvec, rmatvec, dtype=...)`: an operator given by
/// closures. Without `rmatvec`, [`LinearOperator::rmatvec`] is an `Unsupported` error.
pub struct FunctionOperator {
    shape: (usize, usize),
    dtype: DType,
    matvec: MatVec,
    rmatvec: Option<MatVec>,
}

impl FunctionOperator {
    /// An operator of `shape` and `dtype` with these products.
    pub fn new(shape: (usize, usize), dtype: DType, matvec: MatVec, rmatvec: Option<MatVec>) -> FunctionOperator {
        FunctionOperator { shape, dtype, matvec, rmatvec }
    }
}

impl std::fmt::Debug for FunctionOperator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FunctionOperator {{ shape: {:?}, dtype: {} }}", self.shape, self.dtype)
    }
}

impl LinearOperator for FunctionOperator {
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn matvec(&self, x: &Array) -> Result<Array> {
        (self.matvec)(x)
    }
    fn rmatvec(&self, x: &Array) -> Result<Array> {
        match &self.rmatvec {
            Some(f) => f(x),
            None => Err(Error::Unsupported("LinearOperator.rmatvec: no rmatvec was given".into())),
        }
    }
}

/// SciPy's `aslinearoperator(A)`: any operator (a sparse or dense matrix, a
/// [`FunctionOperator`]) as a trait object.
pub fn aslinearoperator<A: LinearOperator>(a: &A) -> &dyn LinearOperator {
    a
}

// ---- helpers ---------------------------------------------------------------------------------

fn to_f64(a: &Array) -> Result<f64> {
    a.astype(DType::F64)?.item::<f64>()
}

/// `x · y` (real), reduced on the device, read as one scalar.
fn dot(x: &Array, y: &Array) -> Result<f64> {
    to_f64(&x.mul(y)?.sum(None, false)?)
}

fn nrm2(x: &Array) -> Result<f64> {
    Ok(dot(x, x)?.sqrt())
}

/// `y + a x`, computed now: an iterate updated by pending ops each step would otherwise grow
/// one lazy expression across the iterations, a new fused kernel each time (see
/// [`crate::lazy`]).
fn axpy(a: f64, x: &Array, y: &Array) -> Result<Array> {
    settle(y.add(&x.mul(a)?)?)
}

/// `v` computed now (the iterations' recurrences stay one small kernel each).
fn settle(v: Array) -> Result<Array> {
    crate::lazy::eval(&[&v])?;
    Ok(v)
}

/// The working dtype of a solver: float32 when both are float32, else float64; complex is a
/// `DType` error (see the module docs).
fn work_dtype(op: &str, a: DType, b: DType) -> Result<DType> {
    for d in [a, b] {
        if d.is_complex() {
            return Err(Error::DType {
                op: op.into(),
                reason: format!("complex operators are not supported yet (got {d})"),
            });
        }
    }
    Ok(if a == DType::F32 && b == DType::F32 { DType::F32 } else { DType::F64 })
}

/// A vector on `b`'s device from host values.
fn upload(like: &Array, v: &[f64], t: DType) -> Result<Array> {
    Array::from_slice_on(&like.device_arc(), v, &[v.len()])?.astype(t)
}

/// Options of the Krylov solvers [`cg`], [`cgs`], [`bicgstab`], [`gmres`] and [`minres`]
/// (SciPy's keyword arguments; `None` takes SciPy's default).
#[derive(Default, Clone, Copy)]
pub struct SolverOptions<'a> {
    /// The starting guess (zeros when `None`).
    pub x0: Option<&'a Array>,
    /// Relative tolerance (default 1e-5).
    pub rtol: Option<f64>,
    /// Absolute tolerance (default 0).
    pub atol: Option<f64>,
    /// Iteration limit (default `10 n`; restart cycles for GMRES).
    pub maxiter: Option<usize>,
    /// A preconditioner approximating `A⁻¹` (SciPy's `M`).
    pub m: Option<&'a dyn LinearOperator>,
}

impl std::fmt::Debug for SolverOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolverOptions")
            .field("x0", &self.x0.map(|x| x.shape().to_vec()))
            .field("rtol", &self.rtol)
            .field("atol", &self.atol)
            .field("maxiter", &self.maxiter)
            .field("m", &self.m.map(|m| m.shape()))
            .finish()
    }
}

/// The checked system of a square solver.
struct System {
    b: Array,
    x: Array,
    t: DType,
    n: usize,
    bnrm: f64,
    tol: f64,
    maxiter: usize,
}

fn check_vector(op: &str, what: &str, a: (usize, usize), v: &Array, len: usize) -> Result<Array> {
    let ok = match v.shape() {
        [k] => *k == len,
        [k, 1] => *k == len,
        _ => false,
    };
    if !ok {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: vec![a.0, a.1],
            rhs: v.shape().to_vec(),
            reason: format!("shapes of A ({}, {}) and {what} {:?} are incompatible", a.0, a.1, v.shape()),
        });
    }
    v.reshape(&[len as isize])
}

fn system(op: &str, a: &dyn LinearOperator, b: &Array, o: &SolverOptions<'_>) -> Result<System> {
    let (m, n) = a.shape();
    if m != n {
        return Err(Error::value(op, format!("expected square matrix, but got shape=({m}, {n})")));
    }
    let t = work_dtype(op, a.dtype(), b.dtype())?;
    let b = check_vector(op, "b", (m, n), b, n)?.astype(t)?;
    let x = match o.x0 {
        Some(x0) => check_vector(op, "x0", (m, n), x0, n)?.astype(t)?,
        None => Array::full_on(&b.device_arc(), &[n], 0, t)?,
    };
    if let Some(p) = o.m {
        if p.shape() != (n, n) {
            return Err(Error::value(
                op,
                format!("matrix and preconditioner have different shapes: ({m}, {n}) and {:?}", p.shape()),
            ));
        }
    }
    let bnrm = nrm2(&b)?;
    let rtol = o.rtol.unwrap_or(1e-5);
    let atol = o.atol.unwrap_or(0.0);
    if rtol < 0.0 || atol < 0.0 {
        return Err(Error::value(op, format!("rtol ({rtol}) and atol ({atol}) must not be negative")));
    }
    Ok(System { b, x, t, n, bnrm, tol: (rtol * bnrm).max(atol), maxiter: o.maxiter.unwrap_or(10 * n) })
}

fn apply(m: Option<&dyn LinearOperator>, x: &Array, t: DType) -> Result<Array> {
    match m {
        Some(m) => m.matvec(x)?.astype(t),
        None => Ok(x.clone()),
    }
}

fn mv(a: &dyn LinearOperator, x: &Array, t: DType) -> Result<Array> {
    a.matvec(x)?.astype(t)
}

/// Zeros for `b = 0` (SciPy answers them with info 0).
fn zero_solution(s: &System) -> Result<Array> {
    Array::full_on(&s.b.device_arc(), &[s.n], 0, s.t)
}

// ---- Krylov solvers --------------------------------------------------------------------------

/// SciPy's `cg(A, b, x0, rtol, atol, maxiter, M)`: conjugate gradients for a symmetric (or
/// Hermitian) positive definite `A`. Answers `(x, info)`.
pub fn cg(a: &dyn LinearOperator, b: &Array, o: &SolverOptions<'_>) -> Result<(Array, i64)> {
    let s = system("cg", a, b, o)?;
    if s.bnrm == 0.0 {
        return Ok((zero_solution(&s)?, 0));
    }
    if o.m.is_none() {
        if let Some(out) = a.as_csr().map(|c| native_cg(c, &s)).transpose()?.flatten() {
            return Ok(out);
        }
    }
    let mut x = s.x.clone();
    let mut r = s.b.sub(&mv(a, &x, s.t)?)?;
    if nrm2(&r)? <= s.tol {
        return Ok((x, 0));
    }
    let mut p: Option<Array> = None;
    let mut rho_prev = 0.0;
    for _ in 0..s.maxiter {
        let z = apply(o.m, &r, s.t)?;
        let rho = dot(&r, &z)?;
        let pk = match &p {
            None => z,
            Some(p) => axpy(rho / rho_prev, p, &z)?,
        };
        let q = mv(a, &pk, s.t)?;
        let pq = dot(&pk, &q)?;
        if pq == 0.0 || !pq.is_finite() {
            return Ok((x, -10));
        }
        let alpha = rho / pq;
        x = axpy(alpha, &pk, &x)?;
        r = axpy(-alpha, &q, &r)?;
        if nrm2(&r)? <= s.tol {
            return Ok((x, 0));
        }
        rho_prev = rho;
        p = Some(pk);
    }
    Ok((x, s.maxiter as i64))
}

/// [`cg`] of a CSR matrix on the CPU device by the native host iteration of
/// `super::host_cg` (the same steps; see its docs), or `None` on other devices.
fn native_cg(a: &CsrMatrix, s: &System) -> Result<Option<(Array, i64)>> {
    let dev = a.device_arc();
    if !crate::ndimage::native(&*dev) || !s.b.device().properties().is_host || !s.x.device().properties().is_host {
        return Ok(None);
    }
    let data = if a.dtype() == s.t { a.data().ascontiguous()? } else { a.data().astype(s.t)?.ascontiguous()? };
    let (indices, indptr) = (a.indices().ascontiguous()?, a.indptr().ascontiguous()?);
    let (b, x0) = (s.b.ascontiguous()?, s.x.ascontiguous()?);
    let missing = || Error::value("cg", "the matrix's arrays are not contiguous host memory");
    fn go<T: Element + super::host_cg::Real, I: Element + super::host_cg::Index>(
        data: &Array,
        indices: &Array,
        indptr: &Array,
        b: &Array,
        x0: &Array,
        s: &System,
        missing: impl Fn() -> Error,
    ) -> Result<(Array, i64)> {
        let (dv, iv, pv) =
            (data.as_ndarray_view::<T>()?, indices.as_ndarray_view::<I>()?, indptr.as_ndarray_view::<I>()?);
        let (bv, xv) = (b.as_ndarray_view::<T>()?, x0.as_ndarray_view::<T>()?);
        let a = super::host_cg::HostCsr {
            indptr: pv.as_slice().ok_or_else(&missing)?,
            indices: iv.as_slice().ok_or_else(&missing)?,
            data: dv.as_slice().ok_or_else(&missing)?,
        };
        let (bs, xs) = (bv.as_slice().ok_or_else(&missing)?, xv.as_slice().ok_or_else(&missing)?);
        let (x, info) = super::host_cg::cg(a, bs, xs, s.tol, s.maxiter);
        Ok((Array::from_ndarray_owned(ndarray::Array1::from_vec(x))?, info))
    }
    let out = match (s.t, indices.dtype()) {
        (DType::F64, DType::I32) => go::<f64, i32>(&data, &indices, &indptr, &b, &x0, s, missing)?,
        (DType::F64, DType::I64) => go::<f64, i64>(&data, &indices, &indptr, &b, &x0, s, missing)?,
        (DType::F32, DType::I32) => go::<f32, i32>(&data, &indices, &indptr, &b, &x0, s, missing)?,
        (DType::F32, DType::I64) => go::<f32, i64>(&data, &indices, &indptr, &b, &x0, s, missing)?,
        _ => return Ok(None),
    };
    Ok(Some(out))
}

/// SciPy's `cgs(A, b, x0, rtol, atol, maxiter, M)`: conjugate gradients squared, for
/// nonsymmetric `A`. Answers `(x, info)`.
pub fn cgs(a: &dyn LinearOperator, b: &Array, o: &SolverOptions<'_>) -> Result<(Array, i64)> {
    let s = system("cgs", a, b, o)?;
    if s.bnrm == 0.0 {
        return Ok((zero_solution(&s)?, 0));
    }
    let mut x = s.x.clone();
    let mut r = s.b.sub(&mv(a, &x, s.t)?)?;
    if nrm2(&r)? <= s.tol {
        return Ok((x, 0));
    }
    let rt = r.clone();
    let (mut p, mut q): (Option<Array>, Option<Array>) = (None, None);
    let mut rho_prev = 0.0;
    for _ in 0..s.maxiter {
        let rho = dot(&rt, &r)?;
        if rho == 0.0 || !rho.is_finite() {
            return Ok((x, -10));
        }
        let (u, pk) = match (&p, &q) {
            (Some(p), Some(q)) => {
                let beta = rho / rho_prev;
                let u = axpy(beta, q, &r)?;
                let pk = axpy(beta, &axpy(beta, p, q)?, &u)?;
                (u, pk)
            }
            _ => (r.clone(), r.clone()),
        };
        let ph = apply(o.m, &pk, s.t)?;
        let vh = mv(a, &ph, s.t)?;
        let rv = dot(&rt, &vh)?;
        if rv == 0.0 || !rv.is_finite() {
            return Ok((x, -11));
        }
        let alpha = rho / rv;
        let qk = axpy(-alpha, &vh, &u)?;
        let uh = apply(o.m, &u.add(&qk)?, s.t)?;
        x = axpy(alpha, &uh, &x)?;
        r = axpy(-alpha, &mv(a, &uh, s.t)?, &r)?;
        if nrm2(&r)? <= s.tol {
            return Ok((x, 0));
        }
        rho_prev = rho;
        p = Some(pk);
        q = Some(qk);
    }
    Ok((x, s.maxiter as i64))
}

/// SciPy's `bicgstab(A, b, x0, rtol, atol, maxiter, M)`: biconjugate gradients stabilised,
/// for nonsymmetric `A`. Answers `(x, info)`.
pub fn bicgstab(a: &dyn LinearOperator, b: &Array, o: &SolverOptions<'_>) -> Result<(Array, i64)> {
    let s = system("bicgstab", a, b, o)?;
    if s.bnrm == 0.0 {
        return Ok((zero_solution(&s)?, 0));
    }
    let mut x = s.x.clone();
    let mut r = s.b.sub(&mv(a, &x, s.t)?)?;
    if nrm2(&r)? <= s.tol {
        return Ok((x, 0));
    }
    let rh = r.clone();
    let (mut p, mut v): (Option<Array>, Option<Array>) = (None, None);
    let (mut rho_prev, mut alpha, mut omega) = (1.0, 1.0, 1.0);
    for _ in 0..s.maxiter {
        let rho = dot(&rh, &r)?;
        if rho == 0.0 || !rho.is_finite() {
            return Ok((x, -10));
        }
        let pk = match (&p, &v) {
            (Some(p), Some(v)) => {
                let beta = (rho / rho_prev) * (alpha / omega);
                axpy(beta, &axpy(-omega, v, p)?, &r)?
            }
            _ => r.clone(),
        };
        let ph = apply(o.m, &pk, s.t)?;
        let vk = mv(a, &ph, s.t)?;
        let rv = dot(&rh, &vk)?;
        if rv == 0.0 || !rv.is_finite() {
            return Ok((x, -11));
        }
        alpha = rho / rv;
        let sv = axpy(-alpha, &vk, &r)?;
        if nrm2(&sv)? <= s.tol {
            return Ok((axpy(alpha, &ph, &x)?, 0));
        }
        let sh = apply(o.m, &sv, s.t)?;
        let tv = mv(a, &sh, s.t)?;
        let tt = dot(&tv, &tv)?;
        if tt == 0.0 {
            return Ok((x, -11));
        }
        omega = dot(&tv, &sv)? / tt;
        x = axpy(omega, &sh, &axpy(alpha, &ph, &x)?)?;
        r = axpy(-omega, &tv, &sv)?;
        if nrm2(&r)? <= s.tol {
            return Ok((x, 0));
        }
        if omega == 0.0 {
            return Ok((x, -11));
        }
        rho_prev = rho;
        p = Some(pk);
        v = Some(vk);
    }
    Ok((x, s.maxiter as i64))
}

/// `V[:k]ᵀ c` for basis rows `vs` and host coefficients `c`.
fn combine(vs: &[Array], c: &[f64], t: DType) -> Result<Array> {
    let vm = crate::stack(&vs[..c.len()].iter().collect::<Vec<_>>(), 0)?;
    upload(&vs[0], c, t)?.matmul(&vm)
}

/// Projects `w` off the basis `vs` (classical Gram–Schmidt, twice): the coefficients and the
/// remainder.
fn orthogonalize(vs: &[Array], w: &Array, t: DType) -> Result<(Vec<f64>, Array)> {
    let vm = crate::stack(&vs.iter().collect::<Vec<_>>(), 0)?;
    let mut w = w.clone();
    let mut h = vec![0.0; vs.len()];
    for _ in 0..2 {
        let c = vm.matmul(&w)?.astype(DType::F64)?.to_vec::<f64>()?;
        w = w.sub(&upload(&w, &c, t)?.matmul(&vm)?)?;
        for (hi, ci) in h.iter_mut().zip(&c) {
            *hi += ci;
        }
    }
    Ok((h, w))
}

/// SciPy's `gmres(A, b, x0, rtol, atol, restart, maxiter, M)`: restarted GMRES (`restart`
/// default 20, `maxiter` counts restart cycles), `M` applied on the right. Answers
/// `(x, info)`.
pub fn gmres(a: &dyn LinearOperator, b: &Array, restart: Option<usize>, o: &SolverOptions<'_>) -> Result<(Array, i64)> {
    let op = "gmres";
    let s = system(op, a, b, o)?;
    if s.bnrm == 0.0 {
        return Ok((zero_solution(&s)?, 0));
    }
    let restart = restart.unwrap_or(20).clamp(1, s.n.max(1));
    let mut x = s.x.clone();
    for _ in 0..s.maxiter {
        let r = s.b.sub(&mv(a, &x, s.t)?)?;
        let beta = nrm2(&r)?;
        if beta <= s.tol {
            return Ok((x, 0));
        }
        let mut vs = vec![r.mul(1.0 / beta)?];
        let mut hcols: Vec<Vec<f64>> = Vec::new();
        let (mut cs, mut sn): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
        let mut g = vec![beta];
        let mut done = false;
        for j in 0..restart {
            let w = mv(a, &apply(o.m, &vs[j], s.t)?, s.t)?;
            let (mut h, w) = orthogonalize(&vs, &w, s.t)?;
            let hn = nrm2(&w)?;
            for i in 0..j {
                let (a0, a1) = (h[i], h[i + 1]);
                h[i] = cs[i] * a0 + sn[i] * a1;
                h[i + 1] = -sn[i] * a0 + cs[i] * a1;
            }
            let d = h[j].hypot(hn);
            let (c, sv) = if d == 0.0 { (1.0, 0.0) } else { (h[j] / d, hn / d) };
            h[j] = d;
            cs.push(c);
            sn.push(sv);
            g.push(-sv * g[j]);
            g[j] *= c;
            hcols.push(h);
            if g[j + 1].abs() <= s.tol || hn == 0.0 {
                done = true;
                break;
            }
            vs.push(w.mul(1.0 / hn)?);
        }
        // Back substitution of the triangular system (host, restart-sized).
        let k = hcols.len();
        let mut y = vec![0.0; k];
        for i in (0..k).rev() {
            let mut acc = g[i];
            for (jj, col) in hcols.iter().enumerate().skip(i + 1) {
                acc -= col[i] * y[jj];
            }
            y[i] = if hcols[i][i] == 0.0 { 0.0 } else { acc / hcols[i][i] };
        }
        let dx = apply(o.m, &combine(&vs, &y, s.t)?, s.t)?;
        x = x.add(&dx)?;
        if done && nrm2(&s.b.sub(&mv(a, &x, s.t)?)?)? <= s.tol {
            return Ok((x, 0));
        }
    }
    Ok((x, s.maxiter as i64))
}

/// SciPy's `minres(A, b, x0, rtol, maxiter, M)`: minimum residual for symmetric (possibly
/// indefinite) `A`, `M` symmetric positive definite. Stops when the recurred residual norm
/// is at most `max(rtol‖b‖, atol)`. Answers `(x, info)`.
pub fn minres(a: &dyn LinearOperator, b: &Array, o: &SolverOptions<'_>) -> Result<(Array, i64)> {
    let s = system("minres", a, b, o)?;
    if s.bnrm == 0.0 {
        return Ok((zero_solution(&s)?, 0));
    }
    let mut x = s.x.clone();
    let mut r1 = s.b.sub(&mv(a, &x, s.t)?)?;
    let mut y = apply(o.m, &r1, s.t)?;
    let beta1 = dot(&r1, &y)?;
    if beta1 < 0.0 {
        return Err(Error::value("minres", "indefinite preconditioner"));
    }
    let beta1 = beta1.sqrt();
    if beta1 == 0.0 {
        return Ok((x, 0));
    }
    let mut r2 = r1.clone();
    let (mut oldb, mut beta, mut dbar, mut epsln, mut phibar) = (0.0, beta1, 0.0, 0.0, beta1);
    let (mut cs, mut sn) = (-1.0f64, 0.0f64);
    let zero = Array::full_on(&s.b.device_arc(), &[s.n], 0, s.t)?;
    let (mut w, mut w2) = (zero.clone(), zero);
    for itn in 0..s.maxiter {
        let v = y.mul(1.0 / beta)?;
        y = mv(a, &v, s.t)?;
        if itn >= 1 {
            y = axpy(-beta / oldb, &r1, &y)?;
        }
        let alfa = dot(&v, &y)?;
        y = axpy(-alfa / beta, &r2, &y)?;
        r1 = r2;
        r2 = y.clone();
        y = apply(o.m, &r2, s.t)?;
        oldb = beta;
        let bb = dot(&r2, &y)?;
        if bb < 0.0 {
            return Err(Error::value("minres", "indefinite preconditioner"));
        }
        beta = bb.sqrt();
        let oldeps = epsln;
        let delta = cs * dbar + sn * alfa;
        let gbar = sn * dbar - cs * alfa;
        epsln = sn * beta;
        dbar = -cs * beta;
        let gamma = gbar.hypot(beta).max(f64::EPSILON);
        cs = gbar / gamma;
        sn = beta / gamma;
        let phi = cs * phibar;
        phibar *= sn;
        let w1 = w2;
        w2 = w;
        w = settle(v.sub(&w1.mul(oldeps)?)?.sub(&w2.mul(delta)?)?.mul(1.0 / gamma)?)?;
        x = axpy(phi, &w, &x)?;
        if phibar <= s.tol {
            return Ok((x, 0));
        }
        if beta == 0.0 {
            return Ok((x, 0));
        }
    }
    Ok((x, s.maxiter as i64))
}

// ---- least squares ---------------------------------------------------------------------------

/// Options of [`lsqr`] and [`lsmr`] (SciPy's keyword arguments; `None` takes SciPy's
/// default).
#[derive(Debug, Default, Clone, Copy)]
pub struct LeastSquaresOptions<'a> {
    /// Stopping tolerance on `‖Aᴴr‖ / (‖A‖ ‖r‖)` and the relative part of the residual test
    /// (default 1e-6).
    pub atol: Option<f64>,
    /// Stopping tolerance on `‖r‖ / ‖b‖` (default 1e-6).
    pub btol: Option<f64>,
    /// Stop when the estimated condition number exceeds this (default 1e8).
    pub conlim: Option<f64>,
    /// Iteration limit (SciPy's `iter_lim` of `lsqr`, default `2 n`; `maxiter` of `lsmr`,
    /// default `min(m, n)`).
    pub maxiter: Option<usize>,
    /// The starting guess (zeros when `None`).
    pub x0: Option<&'a Array>,
}

/// What [`lsqr`] and [`lsmr`] answer (SciPy's tuple, by name).
#[derive(Debug, Clone)]
pub struct LeastSquaresResult {
    /// The solution.
    pub x: Array,
    /// Why it stopped: 0 `x = 0` is exact, 1 `Ax = b` within `atol`/`btol`, 2 least squares
    /// within `atol`, 3 `conlim` reached, 7 the iteration limit.
    pub istop: i64,
    /// Iterations done.
    pub itn: usize,
    /// `‖b − Ax‖`.
    pub normr: f64,
    /// `‖Aᴴ(b − Ax)‖` (estimated).
    pub normar: f64,
    /// The Frobenius norm of `A` (estimated).
    pub norma: f64,
    /// `‖x‖`.
    pub normx: f64,
}

struct LsSetup {
    x: Array,
    u: Array,
    t: DType,
    bnrm: f64,
    atol: f64,
    btol: f64,
    ctol: f64,
}

fn ls_setup(op: &str, a: &dyn LinearOperator, b: &Array, o: &LeastSquaresOptions<'_>) -> Result<LsSetup> {
    let (m, n) = a.shape();
    let t = work_dtype(op, a.dtype(), b.dtype())?;
    let b = check_vector(op, "b", (m, n), b, m)?.astype(t)?;
    let x = match o.x0 {
        Some(x0) => check_vector(op, "x0", (m, n), x0, n)?.astype(t)?,
        None => Array::full_on(&b.device_arc(), &[n], 0, t)?,
    };
    let u = if o.x0.is_some() { b.sub(&mv(a, &x, t)?)? } else { b.clone() };
    let conlim = o.conlim.unwrap_or(1e8);
    Ok(LsSetup {
        x,
        u,
        t,
        bnrm: nrm2(&b)?,
        atol: o.atol.unwrap_or(1e-6),
        btol: o.btol.unwrap_or(1e-6),
        ctol: if conlim > 0.0 { 1.0 / conlim } else { 0.0 },
    })
}

fn rmv(a: &dyn LinearOperator, x: &Array, t: DType) -> Result<Array> {
    a.rmatvec(x)?.astype(t)
}

/// SciPy's `lsqr(A, b, atol, btol, conlim, iter_lim, x0)`: the least-squares solution of
/// `Ax = b` by Golub–Kahan bidiagonalisation (Paige & Saunders, 1982), `damp` 0.
pub fn lsqr(a: &dyn LinearOperator, b: &Array, o: &LeastSquaresOptions<'_>) -> Result<LeastSquaresResult> {
    let op = "lsqr";
    let st = ls_setup(op, a, b, o)?;
    let t = st.t;
    let (_, n) = a.shape();
    let maxiter = o.maxiter.unwrap_or(2 * n);
    let mut x = st.x.clone();
    let mut u = st.u.clone();
    let mut beta = nrm2(&u)?;
    let done = |x: Array, istop, itn, normr, normar, norma| -> Result<LeastSquaresResult> {
        let normx = nrm2(&x)?;
        Ok(LeastSquaresResult { x, istop, itn, normr, normar, norma, normx })
    };
    if beta == 0.0 {
        return done(x, 0, 0, 0.0, 0.0, 0.0);
    }
    u = u.mul(1.0 / beta)?;
    let mut v = rmv(a, &u, t)?;
    let mut alfa = nrm2(&v)?;
    if alfa == 0.0 {
        return done(x, 0, 0, beta, 0.0, 0.0);
    }
    v = v.mul(1.0 / alfa)?;
    let mut w = v.clone();
    let (mut rhobar, mut phibar) = (alfa, beta);
    let (mut anorm, mut ddnorm) = (0.0f64, 0.0f64);
    let mut normr = beta;
    let mut normar = alfa * beta;
    for itn in 1..=maxiter {
        u = axpy(-alfa, &u, &mv(a, &v, t)?)?;
        beta = nrm2(&u)?;
        if beta > 0.0 {
            u = u.mul(1.0 / beta)?;
        }
        anorm = (anorm * anorm + alfa * alfa + beta * beta).sqrt();
        if beta > 0.0 {
            v = axpy(-beta, &v, &rmv(a, &u, t)?)?;
            alfa = nrm2(&v)?;
            if alfa > 0.0 {
                v = v.mul(1.0 / alfa)?;
            }
        }
        let rho = rhobar.hypot(beta);
        let (c, s) = (rhobar / rho, beta / rho);
        let theta = s * alfa;
        rhobar = -c * alfa;
        let phi = c * phibar;
        phibar *= s;
        let dk = w.mul(1.0 / rho)?;
        ddnorm += dot(&dk, &dk)?;
        x = axpy(phi / rho, &w, &x)?;
        w = axpy(-theta / rho, &w, &v)?;
        normr = phibar;
        normar = alfa * (s * phi).abs();
        let xnorm = nrm2(&x)?;
        let acond = anorm * ddnorm.sqrt();
        let test1 = normr / st.bnrm.max(f64::MIN_POSITIVE);
        let test2 = if normr > 0.0 { normar / (anorm * normr) } else { 0.0 };
        let test3 = 1.0 / acond.max(f64::MIN_POSITIVE);
        let rtol = st.btol + st.atol * anorm * xnorm / st.bnrm.max(f64::MIN_POSITIVE);
        let istop = if test1 <= rtol || normr == 0.0 {
            1
        } else if test2 <= st.atol {
            2
        } else if test3 <= st.ctol {
            3
        } else if itn >= maxiter {
            7
        } else {
            continue;
        };
        return done(x, istop, itn, normr, normar, anorm);
    }
    done(x, 7, maxiter, normr, normar, anorm)
}

/// SciPy's `lsmr(A, b, atol, btol, conlim, maxiter, x0)`: the least-squares solution of
/// `Ax = b` by LSMR (Fong & Saunders, 2011), `damp` 0; `‖r‖` for the stopping tests is the
/// true residual (one more product per iteration).
pub fn lsmr(a: &dyn LinearOperator, b: &Array, o: &LeastSquaresOptions<'_>) -> Result<LeastSquaresResult> {
    let op = "lsmr";
    let st = ls_setup(op, a, b, o)?;
    let t = st.t;
    let (m, n) = a.shape();
    let maxiter = o.maxiter.unwrap_or(m.min(n));
    let x0 = st.x.clone();
    let mut u = st.u.clone();
    let mut beta = nrm2(&u)?;
    let done = |x: Array, istop, itn, normr, normar, norma| -> Result<LeastSquaresResult> {
        let normx = nrm2(&x)?;
        Ok(LeastSquaresResult { x, istop, itn, normr, normar, norma, normx })
    };
    if beta == 0.0 {
        return done(x0, 0, 0, 0.0, 0.0, 0.0);
    }
    u = u.mul(1.0 / beta)?;
    let mut v = rmv(a, &u, t)?;
    let mut alpha = nrm2(&v)?;
    if alpha == 0.0 {
        return done(x0, 0, 0, beta, 0.0, 0.0);
    }
    v = v.mul(1.0 / alpha)?;
    // The correction to x0 (the iteration solves for b - A x0).
    let mut x = Array::full_on(&u.device_arc(), &[n], 0, t)?;
    let mut h = v.clone();
    let mut hbar = Array::full_on(&u.device_arc(), &[n], 0, t)?;
    let (mut alphabar, mut zetabar) = (alpha, alpha * beta);
    let (mut rho, mut rhobar, mut cbar, mut sbar) = (1.0f64, 1.0f64, 1.0f64, 0.0f64);
    let mut anorm2 = alpha * alpha;
    let (mut normr, mut normar) = (beta, alpha * beta);
    for itn in 1..=maxiter {
        u = axpy(-alpha, &u, &mv(a, &v, t)?)?;
        beta = nrm2(&u)?;
        if beta > 0.0 {
            u = u.mul(1.0 / beta)?;
            v = axpy(-beta, &v, &rmv(a, &u, t)?)?;
            alpha = nrm2(&v)?;
            if alpha > 0.0 {
                v = v.mul(1.0 / alpha)?;
            }
        }
        let rhoold = rho;
        rho = alphabar.hypot(beta);
        let (c, s) = (alphabar / rho, beta / rho);
        let thetanew = s * alpha;
        alphabar = c * alpha;
        let rhobarold = rhobar;
        let thetabar = sbar * rho;
        let rhotemp = cbar * rho;
        rhobar = rhotemp.hypot(thetanew);
        cbar = rhotemp / rhobar;
        sbar = thetanew / rhobar;
        let zeta = cbar * zetabar;
        zetabar *= -sbar;
        hbar = axpy(-(thetabar * rho / (rhoold * rhobarold)), &hbar, &h)?;
        x = axpy(zeta / (rho * rhobar), &hbar, &x)?;
        h = axpy(-(thetanew / rho), &h, &v)?;
        anorm2 += beta * beta + alpha * alpha;
        let anorm = anorm2.sqrt();
        let xt = x0.add(&x)?;
        normr = nrm2(&st.u.sub(&mv(a, &x, t)?)?)?;
        normar = zetabar.abs();
        let xnorm = nrm2(&xt)?;
        let bn = st.bnrm.max(f64::MIN_POSITIVE);
        let test1 = normr / bn;
        let test2 = if normr > 0.0 { normar / (anorm * normr) } else { 0.0 };
        let rtol = st.btol + st.atol * anorm * xnorm / bn;
        let istop = if test1 <= rtol || normr == 0.0 {
            1
        } else if test2 <= st.atol {
            2
        } else if itn >= maxiter {
            7
        } else {
            continue;
        };
        return done(xt, istop, itn, normr, normar, anorm);
    }
    let xt = x0.add(&x)?;
    done(xt, 7, maxiter, normr, normar, anorm2.sqrt())
}

// ---- eigensolvers ----------------------------------------------------------------------------

/// Which eigenvalues [`eigsh`] finds (SciPy's `which`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Which {
    /// Largest magnitude (`"LM"`, the default).
    #[default]
    LM,
    /// Smallest magnitude (`"SM"`).
    SM,
    /// Largest algebraic (`"LA"`).
    LA,
    /// Smallest algebraic (`"SA"`).
    SA,
}

impl FromStr for Which {
    type Err = Error;
    fn from_str(s: &str) -> Result<Which> {
        Ok(match s {
            "LM" => Which::LM,
            "SM" => Which::SM,
            "LA" => Which::LA,
            "SA" => Which::SA,
            _ => return Err(Error::value("eigsh", format!("which must be one of LM, SM, LA, SA, got {s:?}"))),
        })
    }
}

/// The eigenvalues and eigenvectors of a small symmetric matrix (row-major `n × n`) by cyclic
/// Jacobi rotations: values, and `vecs[i][j]` the `i`-th component of the `j`-th vector.
#[allow(clippy::needless_range_loop)]
pub(super) fn jacobi_eigh(a: &[Vec<f64>]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = a.len();
    let mut a: Vec<Vec<f64>> = a.to_vec();
    let mut v = vec![vec![0.0; n]; n];
    for (i, row) in v.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        let total: f64 = a.iter().flatten().map(|x| x * x).sum();
        if off <= 1e-30 * total.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                if a[p][q] == 0.0 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let tt = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let tt = if theta == 0.0 { 1.0 } else { tt };
                let c = 1.0 / (tt * tt + 1.0).sqrt();
                let s = tt * c;
                for row in a.iter_mut() {
                    let (akp, akq) = (row[p], row[q]);
                    row[p] = c * akp - s * akq;
                    row[q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p][k], a[q][k]);
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for row in v.iter_mut() {
                    let (vp, vq) = (row[p], row[q]);
                    row[p] = c * vp - s * vq;
                    row[q] = s * vp + c * vq;
                }
            }
        }
    }
    ((0..n).map(|i| a[i][i]).collect(), v)
}

/// The order in which `which` wants the Ritz values `theta` (most wanted first).
fn wanted_order(theta: &[f64], which: Which) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..theta.len()).collect();
    let key = |i: usize| -> f64 {
        match which {
            Which::LM => -theta[i].abs(),
            Which::SM => theta[i].abs(),
            Which::LA => -theta[i],
            Which::SA => theta[i],
        }
    };
    idx.sort_by(|&a, &b| key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal));
    idx
}

/// Options of [`eigsh`] and [`svds`] (SciPy's keyword arguments; `None` takes the default).
#[derive(Debug, Default, Clone, Copy)]
pub struct EigshOptions<'a> {
    /// Which eigenvalues (default largest magnitude).
    pub which: Which,
    /// Lanczos vectors kept between restarts (default `min(n, max(2k + 1, 20))`).
    pub ncv: Option<usize>,
    /// Restart limit (default `10 n`).
    pub maxiter: Option<usize>,
    /// Relative accuracy of the Ritz values (0, the default: machine precision).
    pub tol: Option<f64>,
    /// The starting vector (a fixed pseudo-random one when `None`).
    pub v0: Option<&'a Array>,
}

/// Thick-restart Lanczos on the symmetric operator `op` of order `n`: the `k` wanted
/// eigenvalues (ascending) and their eigenvectors (`n × k`).
fn lanczos(
    name: &str,
    op: &dyn Fn(&Array) -> Result<Array>,
    n: usize,
    like: &Array,
    t: DType,
    k: usize,
    o: &EigshOptions<'_>,
) -> Result<(Vec<f64>, Array)> {
    let ncv = o.ncv.unwrap_or((2 * k + 1).max(20)).min(n).max(k + 1);
    if ncv > n || ncv <= k {
        return Err(Error::value(name, format!("ncv must be k < ncv <= n, got k={k}, ncv={ncv}, n={n}")));
    }
    let maxiter = o.maxiter.unwrap_or(10 * n).max(1);
    let eps = if t == DType::F32 { f32::EPSILON as f64 } else { f64::EPSILON };
    let tol = o.tol.unwrap_or(0.0).max(eps);
    let dev = like.device_arc();
    let mut rng = crate::random::default_rng(0x5eed_u64);
    let random_vec = |rng: &mut crate::random::Generator| -> Result<Array> {
        crate::with_device(&dev, || rng.random(&[n], DType::F64))?.sub(0.5)?.astype(t)
    };
    let v0 = match o.v0 {
        Some(v) => check_vector(name, "v0", (n, n), v, n)?.astype(t)?,
        None => random_vec(&mut rng)?,
    };
    let nv = nrm2(&v0)?;
    if nv == 0.0 {
        return Err(Error::value(name, "the starting vector v0 is zero"));
    }
    let mut vs = vec![v0.mul(1.0 / nv)?];
    let mut tm = vec![vec![0.0f64; ncv]; ncv];
    let mut p = 0usize;
    for _restart in 0..maxiter {
        let mut beta = 0.0;
        let mut f = vs[0].clone();
        for j in p..ncv {
            let w = op(&vs[j])?.astype(t)?;
            let (h, w) = orthogonalize(&vs, &w, t)?;
            for (i, &hi) in h.iter().enumerate() {
                tm[i][j] = hi;
                tm[j][i] = hi;
            }
            beta = nrm2(&w)?;
            let scale = h.iter().fold(0.0f64, |acc, x| acc.max(x.abs())).max(beta);
            let (next, b) = if beta <= eps * scale.max(f64::MIN_POSITIVE) * 10.0 {
                // An invariant subspace: go on with a fresh direction, uncoupled.
                let (_, r) = orthogonalize(&vs, &random_vec(&mut rng)?, t)?;
                let rn = nrm2(&r)?;
                (r.mul(1.0 / rn)?, 0.0)
            } else {
                (w.mul(1.0 / beta)?, beta)
            };
            beta = b;
            if j + 1 < ncv {
                tm[j + 1][j] = b;
                tm[j][j + 1] = b;
                vs.push(next);
            } else {
                f = next;
            }
        }
        let (theta, s) = jacobi_eigh(&tm);
        let order = wanted_order(&theta, which_of(o));
        let anorm = theta.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let converged = order[..k].iter().all(|&i| {
            (beta * s[ncv - 1][i]).abs() <= tol * theta[i].abs().max(anorm * eps.sqrt()).max(f64::MIN_POSITIVE)
        });
        if converged || _restart + 1 == maxiter {
            let mut sel: Vec<usize> = order[..k].to_vec();
            sel.sort_by(|&a, &b| theta[a].partial_cmp(&theta[b]).unwrap_or(std::cmp::Ordering::Equal));
            let vm = crate::stack(&vs.iter().collect::<Vec<_>>(), 0)?;
            let coef: Vec<f64> =
                (0..ncv).flat_map(|r| sel.iter().map(move |&c| (r, c))).map(|(r, c)| s[r][c]).collect();
            let y = vm.permute(&[1, 0])?.matmul(&upload(like, &coef, t)?.reshape(&[ncv as isize, k as isize])?)?;
            if !converged {
                return Err(Error::LinAlg {
                    op: name.into(),
                    reason: format!("ARPACK-style error -1: no convergence ({maxiter} restarts)"),
                });
            }
            return Ok((sel.iter().map(|&i| theta[i]).collect(), y));
        }
        // Thick restart: keep the most wanted Ritz vectors, and the residual direction.
        p = (k + (ncv - k) / 2).min(ncv - 1);
        let keep = &order[..p];
        let vm = crate::stack(&vs.iter().collect::<Vec<_>>(), 0)?;
        let coef: Vec<f64> = keep.iter().flat_map(|&c| (0..ncv).map(move |r| (r, c))).map(|(r, c)| s[r][c]).collect();
        let kept = upload(like, &coef, t)?.reshape(&[p as isize, ncv as isize])?.matmul(&vm)?;
        vs = (0..p).map(|i| kept.slice(&[crate::layout::SliceArg::Index(i as isize)])).collect::<Result<_>>()?;
        vs.push(f);
        tm = vec![vec![0.0f64; ncv]; ncv];
        for (i, &c) in keep.iter().enumerate() {
            tm[i][i] = theta[c];
            tm[i][p] = beta * s[ncv - 1][c];
            tm[p][i] = tm[i][p];
        }
    }
    unreachable!("the last restart returns")
}

fn which_of(o: &EigshOptions<'_>) -> Which {
    o.which
}

/// SciPy's `eigsh(A, k, which=..., ncv, maxiter, tol, v0)` with `sigma=None`: `k` eigenvalues
/// (ascending) and eigenvectors (`n × k`) of a real symmetric operator, by thick-restart
/// Lanczos. `k` must be in `1..n`.
pub fn eigsh(a: &dyn LinearOperator, k: usize, o: &EigshOptions<'_>) -> Result<(Array, Array)> {
    let op = "eigsh";
    let (m, n) = a.shape();
    if m != n {
        return Err(Error::value(op, format!("expected square matrix (shape=({m}, {n}))")));
    }
    if k == 0 || k >= n {
        return Err(Error::value(op, format!("k={k} must be between 1 and ndim(A)-1={}", n.saturating_sub(1))));
    }
    let t = work_dtype(op, a.dtype(), a.dtype())?;
    let dev = a.device()?;
    let like = Array::full_on(&dev, &[1], 0, t)?;
    let like = match o.v0 {
        Some(v) => v.clone(),
        None => like,
    };
    let f = |x: &Array| a.matvec(x);
    let (vals, vecs) = lanczos(op, &f, n, &like, t, k, o)?;
    Ok((upload(&like, &vals, t)?, vecs))
}

/// SciPy's `svds(A, k, which=...)`: the `k` largest (`LM`) or smallest (`SM`) singular
/// values, ascending, with `U` (`m × k`) and `Vᴴ` (`k × n`), from the eigenpairs of `AᴴA`
/// (or `AAᴴ` when `A` is wide) by [`eigsh`]'s Lanczos. `k` must be in `1..min(m, n)`.
pub fn svds(a: &dyn LinearOperator, k: usize, o: &EigshOptions<'_>) -> Result<(Array, Array, Array)> {
    let op = "svds";
    let (m, n) = a.shape();
    if k == 0 || k >= m.min(n) {
        return Err(Error::value(op, format!("k must be between 1 and min(A.shape)={}", m.min(n).saturating_sub(1))));
    }
    let which = match o.which {
        Which::LM | Which::LA => Which::LA,
        Which::SM | Which::SA => Which::SA,
    };
    let t = work_dtype(op, a.dtype(), a.dtype())?;
    let dev = a.device()?;
    let like = Array::full_on(&dev, &[1], 0, t)?;
    let tall = m >= n;
    let f = |x: &Array| -> Result<Array> {
        if tall {
            a.rmatvec(&a.matvec(x)?)
        } else {
            a.matvec(&a.rmatvec(x)?)
        }
    };
    let oo = EigshOptions { which, ..*o };
    let (lam, y) = lanczos(op, &f, m.min(n), &like, t, k, &oo)?;
    let sv: Vec<f64> = lam.iter().map(|&l| l.max(0.0).sqrt()).collect();
    let s = upload(&like, &sv, t)?;
    let inv: Vec<f64> = sv.iter().map(|&x| if x > 0.0 { 1.0 / x } else { 0.0 }).collect();
    let inv = upload(&like, &inv, t)?;
    let (u, v) = if tall {
        (a.matmat(&y)?.astype(t)?.mul(&inv)?, y)
    } else {
        let ah_y = FunctionAdjoint(a).matmat(&y)?.astype(t)?;
        (y, ah_y.mul(&inv)?)
    };
    Ok((u, s, v.permute(&[1, 0])?.ascontiguous()?))
}

/// `Aᴴ` of an operator, column by column.
struct FunctionAdjoint<'a>(&'a dyn LinearOperator);

impl FunctionAdjoint<'_> {
    fn matmat(&self, x: &Array) -> Result<Array> {
        let k = x.shape()[1];
        let cols: Vec<Array> = (0..k)
            .map(|j| {
                self.0.rmatvec(&x.slice(&[crate::layout::SliceArg::ALL, crate::layout::SliceArg::Index(j as isize)])?)
            })
            .collect::<Result<_>>()?;
        crate::stack(&cols.iter().collect::<Vec<_>>(), 1)
    }
}

// ---- norms, powers, direct solvers -----------------------------------------------------------

/// The order of a sparse [`norm`] (SciPy's `ord`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum SparseNormOrd {
    /// Frobenius (`None` or `"fro"`; for a vector norm along an axis, the 2-norm).
    #[default]
    Fro,
    /// Largest column sum of magnitudes (`1`), smallest (`-1`); along an axis, `p`-norms.
    P(f64),
}

impl FromStr for SparseNormOrd {
    type Err = Error;
    fn from_str(s: &str) -> Result<SparseNormOrd> {
        Ok(match s {
            "fro" => SparseNormOrd::Fro,
            "inf" => SparseNormOrd::P(f64::INFINITY),
            "-inf" => SparseNormOrd::P(f64::NEG_INFINITY),
            _ => SparseNormOrd::P(
                s.parse::<f64>().map_err(|_| Error::value("norm", format!("Invalid norm order {s:?}")))?,
            ),
        })
    }
}

/// SciPy's `norm(x, ord, axis)`: a matrix norm (`axis` `None`: Frobenius, `1`/`-1` the
/// largest/smallest column sum of magnitudes, `inf`/`-inf` the row sums) as a 0-d array, or
/// the vector norms of the rows (`axis` 1) or columns (`axis` 0): Frobenius is the 2-norm
/// there, `P(p)` the `p`-norm (`inf`/`-inf` the largest/smallest magnitude, `0` the count of
/// nonzeros). The result is of the real dtype of the matrix (float64 for integers and bool).
pub fn norm(x: &CsrMatrix, ord: Option<SparseNormOrd>, axis: Option<isize>) -> Result<Array> {
    let op = "norm";
    // Integer and bool matrices have float64 norms, as SciPy's.
    let mut c = x.astype(super::float_dtype(x.dtype()))?;
    c.sum_duplicates()?;
    let absd = c.data.abs()?;
    let rt = absd.dtype();
    let abs_m = CsrMatrix { data: absd.clone(), ..c.clone() };
    let ord = ord.unwrap_or_default();
    match axis {
        None => match ord {
            SparseNormOrd::Fro => absd.square()?.sum(None, false)?.sqrt()?.astype(rt),
            SparseNormOrd::P(p) if p == 1.0 || p == -1.0 => {
                let s = abs_m.sum(Some(0))?;
                if p > 0.0 {
                    s.max(None, false)
                } else {
                    s.min(None, false)
                }
            }
            SparseNormOrd::P(p) if p.is_infinite() => {
                let s = abs_m.sum(Some(1))?;
                if p > 0.0 {
                    s.max(None, false)
                } else {
                    s.min(None, false)
                }
            }
            SparseNormOrd::P(p) if p == 2.0 || p == -2.0 => {
                Err(Error::Unsupported(format!("{op}: the matrix 2-norm of a sparse matrix (use svds)")))
            }
            SparseNormOrd::P(p) => Err(Error::value(op, format!("Invalid norm order {p} for matrices."))),
        },
        Some(ax) => {
            let (m, n) = x.shape;
            let ax = match ax {
                0 | -2 => 0,
                1 | -1 => 1,
                _ => {
                    return Err(Error::Axis {
                        op: op.into(),
                        reason: format!("Invalid axis {ax} for an array of shape ({m}, {n})"),
                    })
                }
            };
            let len = if ax == 0 { n } else { m };
            let sum = |d: Array| -> Result<Array> {
                CsrMatrix { data: d, ..c.clone() }.sum(Some(ax))?.reshape(&[len as isize])
            };
            match ord {
                SparseNormOrd::Fro => sum(absd.square()?)?.sqrt(),
                SparseNormOrd::P(p) if p == f64::INFINITY => abs_m.max(Some(ax)),
                SparseNormOrd::P(p) if p == f64::NEG_INFINITY => abs_m.min(Some(ax)),
                SparseNormOrd::P(0.0) => sum(absd.ne(0.0)?.astype(rt)?),
                SparseNormOrd::P(1.0) => sum(absd),
                SparseNormOrd::P(p) => sum(absd.pow(p)?)?.pow(1.0 / p),
            }
        }
    }
}

/// SciPy's `matrix_power(A, power)`: `A` times itself `power` times (the identity for 0), by
/// repeated squaring with sparse products.
pub fn matrix_power(a: &CsrMatrix, power: i64) -> Result<CsrMatrix> {
    let op = "matrix_power";
    let (m, n) = a.shape;
    if m != n {
        return Err(Error::LinAlg { op: op.into(), reason: "sparse matrix is not square".into() });
    }
    if power < 0 {
        return Err(Error::value(op, "exponent must be >= 0"));
    }
    let dev = a.device_arc();
    let mut result = crate::with_device(&dev, || super::eye(n, None, 0, a.dtype()))?;
    if power == 0 {
        return Ok(result);
    }
    let mut base = a.clone();
    let mut e = power;
    let mut first = true;
    while e > 0 {
        if e & 1 == 1 {
            result = if first { base.clone() } else { result.dot_sparse(&base)? };
            first = false;
        }
        e >>= 1;
        if e > 0 {
            base = base.dot_sparse(&base)?;
        }
    }
    Ok(result)
}

fn square_check(op: &str, a: &CsrMatrix) -> Result<()> {
    let (m, n) = a.shape;
    if m != n {
        return Err(Error::value(op, format!("matrix must be square (has shape ({m}, {n}))")));
    }
    Ok(())
}

fn rhs_check(op: &str, a: &CsrMatrix, b: &Array) -> Result<()> {
    let n = a.shape.0;
    if !matches!(b.ndim(), 1 | 2) || b.shape()[0] != n {
        return Err(Error::ShapeMismatch {
            op: op.into(),
            lhs: vec![n, n],
            rhs: b.shape().to_vec(),
            reason: format!("matrix - rhs dimension mismatch (({n}, {n}) - {:?})", b.shape()),
        });
    }
    Ok(())
}

/// SciPy's `spsolve(A, b)`: `A⁻¹ b` for a square `A` and a vector or matrix `b`, by the
/// sparse LU of [`splu`] (COLAMD ordering; see the module docs). A singular `A` gives NaNs,
/// as SciPy's.
pub fn spsolve(a: &CsrMatrix, b: &Array) -> Result<Array> {
    let op = "spsolve";
    square_check(op, a)?;
    rhs_check(op, a, b)?;
    let t = super::float_dtype(crate::promote_types(a.dtype(), b.dtype()));
    let b = b.astype(t)?;
    match splu(&a.astype(t)?) {
        Ok(lu) => lu.solve(&b, Trans::N),
        Err(Error::LinAlg { .. }) => Array::full_on(&b.device_arc(), b.shape(), f64::NAN, t),
        Err(e) => Err(e),
    }
}

/// SciPy's `spsolve_triangular(A, b, lower, unit_diagonal)`: `A⁻¹ b` for a triangular `A`
/// (only its `lower` or upper triangle is read; with `unit_diagonal` the stored diagonal is
/// taken as ones), by a level-scheduled sparse triangular solve on the device (see the module
/// docs). A zero on the diagonal is a `LinAlg` error.
pub fn spsolve_triangular(a: &CsrMatrix, b: &Array, lower: bool, unit_diagonal: bool) -> Result<Array> {
    let op = "spsolve_triangular";
    let (m, n) = a.shape;
    if m != n {
        return Err(Error::value(op, format!("A must be a square matrix but its shape is ({m}, {n}).")));
    }
    rhs_check(op, a, b)?;
    if !unit_diagonal && a.diagonal(0)?.eq(0.0)?.any(None, false)?.item::<bool>()? {
        return Err(Error::LinAlg { op: op.into(), reason: "A is singular: zero entry on diagonal.".into() });
    }
    let t = super::float_dtype(crate::promote_types(a.dtype(), b.dtype()));
    super::factor::triangular_solve(&a.astype(t)?, &b.astype(t)?, lower, unit_diagonal)
}
