//! Direct factorisations of sparse matrices, as `scipy.sparse.linalg`'s [`splu`] (a
//! [`SuperLu`] object with `solve`, `L`, `U`, `perm_r`, `perm_c`), [`factorized`] and
//! [`spilu`].
//!
//! **`splu`** is a sparse LU with partial pivoting computed on the host by faer (see
//! `host_lu.rs` for the orderings and the supernodal/simplicial choice): the matrix's CSR
//! arrays are read once (`O(nnz)`), the factors stay on the host, and no dense `n × n` array is
//! ever formed. This is what CuPy does too (its `splu` calls SciPy's SuperLU on the host); GPU
//! vendors' sparse direct solvers are host-side or need a library xp does not load. Every
//! `solve` copies the right-hand side to the host, runs faer's permuted triangular solves
//! (supernodal ones use dense blocks) and copies the answer back: `O(nnz(L) + nnz(U))` per
//! right-hand side, on the CPU's threads. The default column ordering is COLAMD, as SciPy's;
//! [`splu_with`] takes `NATURAL`, with which `L`, `U` and `perm_r` are SciPy's
//! `splu(A, permc_spec="NATURAL")` factors (SuperLU's default threshold 1.0 is partial
//! pivoting).
//!
//! **Incomplete LU.** [`spilu`] is ILU(0), as CuPy's `spilu` (SciPy's threshold ILUTP, with
//! `drop_tol` and `fill_factor`, is not taken): the factors keep the pattern of `A`, no
//! pivoting, so `(L U)[i, j] = A[i, j]` wherever `A` stores an entry. It runs on the matrix's
//! device with level scheduling (Anderson & Saad, 1989): the levels of the rows (a row's level
//! is one more than the highest level of the rows above it that it reads) are computed on the
//! host once from the pattern, and each level is one launch with a work item per row. Each row
//! does the sequential algorithm's arithmetic in the same order, so the factors are the
//! sequential ones bit for bit. The triangular solves of `SuperLu::solve` are level-scheduled
//! the same way (forward over `L`'s levels, backward over `U`'s), all on the device; the
//! transposed solves use the transpose's CSR and levels, made at the first such solve. A 2-d
//! grid in natural order has about `2√n` levels, a tridiagonal matrix `n` (no parallelism
//! there: the dependency chain is the whole matrix).
//!
//! **Dtypes and errors.** float32, float64, complex64 and complex128 matrices are factored in
//! their dtype, integer and bool ones in float64 (as SciPy's). A non-square matrix is a `Value`
//! error, and an exactly singular one a `LinAlg` error ("Factor is exactly singular"), as
//! SciPy's `RuntimeError`; both are found when factoring.

use std::sync::{Arc, OnceLock};

use num_complex::Complex;
use xp_backend_api::{DType, DynDevice, Error, Result};

pub use super::host_lu::ColumnOrdering;
use super::host_lu::{Csc, HostLu, LuFailure, LuScalar};
use super::{float_dtype, CscMatrix, CsrMatrix};
use crate::layout::SliceArg;
use crate::linalg::Trans;
use crate::user::ElementwiseKernel;
use crate::{Array, Operand};

/// One level of ILU(0) (one work item per row `r` of the level; the rows arrive in the
/// non-raw output `r`, which the launcher loads first and stores back unchanged, as a kernel
/// needs one non-raw output to have a shape): the row's values are copied
/// from `a` into `val`, then for each stored `k < r` in order, `val[r, k] /= val[k, k]`, and
/// every stored `val[r, j]`, `j > k`, loses `val[r, k] val[k, j]` where row `k` stores
/// `(k, j)`. Rows `k < r` that row `r` reads belong to earlier levels, so they are final: the
/// arithmetic of each row is the sequential algorithm's. A missing pivot is skipped and a zero
/// one divides by zero; both are found afterwards on the diagonal.
const ILU0_LEVEL: &str = r#"
const long long s = (long long)ptr[r], e = (long long)ptr[r + 1];
for (long long p = s; p < e; ++p) val[p] = a[p];
for (long long p = s; p < e; ++p) {
    const long long k = (long long)ind[p];
    if (k >= r) break;
    long long dk = -1;
    const long long ks = (long long)ptr[k], ke = (long long)ptr[k + 1];
    for (long long q = ks; q < ke; ++q) { if ((long long)ind[q] == k) { dk = q; break; } }
    if (dk < 0) continue;
    val[p] = val[p] / val[dk];
    const T lik = val[p];
    long long q = dk + 1;
    for (long long pp = p + 1; pp < e; ++pp) {
        const long long j = (long long)ind[pp];
        while (q < ke && (long long)ind[q] < j) ++q;
        if (q < ke && (long long)ind[q] == j) val[pp] = val[pp] - lik * val[q];
    }
}
"#;

/// One level of a sparse triangular solve (one work item per row `r` of the level) with the
/// `lower` (`j < r`) or upper (`j > r`) entries of a canonical CSR matrix, for `ncol`
/// right-hand sides stored row-major: `x[r] = (b[r] - Σ val[r, j] x[j]) / val[r, r]` (no
/// division with `unit`), the sum in stored order. The `x[j]` it reads are of earlier levels.
/// The rows arrive in the output `r`, as in [`ILU0_LEVEL`].
const TRISOLVE_LEVEL: &str = r#"
const long long s = (long long)ptr[r], e = (long long)ptr[r + 1];
T d = T(1);
for (long long p = s; p < e; ++p) { if ((long long)ind[p] == r) d = val[p]; }
for (long long c = 0; c < ncol; ++c) {
    T acc = b[r * ncol + c];
    for (long long p = s; p < e; ++p) {
        const long long j = (long long)ind[p];
        if (lower ? (j < r) : (j > r)) acc = acc - val[p] * x[j * ncol + c];
    }
    x[r * ncol + c] = unit ? acc : acc / d;
}
"#;

static ILU_KERNEL: OnceLock<ElementwiseKernel> = OnceLock::new();
static TRISOLVE_KERNEL: OnceLock<ElementwiseKernel> = OnceLock::new();

fn ilu_kernel() -> Result<&'static ElementwiseKernel> {
    crate::user::cached_kernel(
        &ILU_KERNEL,
        "raw I ind, raw I ptr, raw T a",
        "raw T val, int64 r",
        ILU0_LEVEL,
        "xp_sparse_ilu0_level",
        "",
    )
}

fn trisolve_kernel() -> Result<&'static ElementwiseKernel> {
    crate::user::cached_kernel(
        &TRISOLVE_KERNEL,
        "raw I ind, raw I ptr, raw T val, raw T b, int64 ncol, bool lower, bool unit",
        "raw T x, int64 r",
        TRISOLVE_LEVEL,
        "xp_sparse_trisolve_level",
        "",
    )
}

/// The level-scheduled kernels of [`spilu`] rendered for every value and index dtype, for
/// checking them with each vendor's compiler.
pub fn level_scheduled_kernels() -> Result<Vec<xp_kernels::render::Rendered>> {
    use xp_kernels::elementwise::{IndexWidth, Layout};
    let mut v = Vec::new();
    for t in [DType::F32, DType::F64, DType::C64, DType::C128] {
        for i in [DType::I32, DType::I64] {
            // The level's rows are a slice of a contiguous array: one element per thread on GPUs.
            let l = Layout::Flat;
            v.push(ilu_kernel()?.render(&[i, i, t], l, IndexWidth::I32)?);
            let d = [i, i, t, t, DType::I64, DType::Bool, DType::Bool];
            v.push(trisolve_kernel()?.render(&d, l, IndexWidth::I32)?);
        }
    }
    Ok(v)
}

/// The rows of a triangular pattern grouped by dependency level (level scheduling, Anderson &
/// Saad 1989; Saltz 1990): a row's level is one more than the highest level of the rows it
/// reads, so the rows of one level are independent. `order` lists the rows level by level
/// (ascending within a level), on the device; `ptr[l]..ptr[l + 1]` are level `l`'s.
#[derive(Debug, Clone)]
struct Levels {
    order: Array,
    ptr: Vec<usize>,
}

impl Levels {
    /// The levels of the strictly `lower` (forward) or upper (backward) part of the pattern.
    fn of(dev: &Arc<dyn DynDevice>, indptr: &[i64], indices: &[i64], lower: bool) -> Result<Levels> {
        let n = indptr.len() - 1;
        let mut lev = vec![0usize; n];
        let mut visit = |r: usize| {
            let mut l = 0;
            for &j in &indices[indptr[r] as usize..indptr[r + 1] as usize] {
                let j = j as usize;
                if (lower && j < r) || (!lower && j > r) {
                    l = l.max(lev[j] + 1);
                }
            }
            lev[r] = l;
        };
        if lower {
            (0..n).for_each(&mut visit);
        } else {
            (0..n).rev().for_each(&mut visit);
        }
        let depth = lev.iter().max().map_or(0, |&m| m + 1);
        let mut ptr = vec![0usize; depth + 1];
        for &l in &lev {
            ptr[l + 1] += 1;
        }
        for l in 0..depth {
            ptr[l + 1] += ptr[l];
        }
        let mut next = ptr.clone();
        let mut order = vec![0i64; n];
        for (r, &l) in lev.iter().enumerate() {
            order[next[l]] = r as i64;
            next[l] += 1;
        }
        Ok(Levels { order: Array::from_slice_on(dev, &order, &[n])?, ptr })
    }

    /// The rows of level `l`.
    fn rows(&self, l: usize) -> Result<Array> {
        self.order.slice(&[SliceArg::range(self.ptr[l] as isize, self.ptr[l + 1] as isize, 1)])
    }

    fn depth(&self) -> usize {
        self.ptr.len() - 1
    }
}

/// A canonical CSR matrix with the levels of its lower and upper triangles.
#[derive(Debug, Clone)]
struct Scheduled {
    m: CsrMatrix,
    lower: Levels,
    upper: Levels,
}

impl Scheduled {
    fn new(m: CsrMatrix) -> Result<Scheduled> {
        let dev = m.device_arc();
        let indptr = m.indptr.astype(DType::I64)?.to_vec::<i64>()?;
        let indices = m.indices.astype(DType::I64)?.to_vec::<i64>()?;
        let lower = Levels::of(&dev, &indptr, &indices, true)?;
        let upper = Levels::of(&dev, &indptr, &indices, false)?;
        Ok(Scheduled { m, lower, upper })
    }

    /// `x` with `T x = b` for the lower or upper triangle `T` of `m` (unit diagonal or the
    /// stored one), `b` of `m`'s dtype, contiguous, `n × ncol`.
    fn solve(&self, b: &Array, ncol: usize, lower: bool, unit: bool) -> Result<Array> {
        let levels = if lower { &self.lower } else { &self.upper };
        let x = Array::empty_on(&b.device_arc(), b.shape(), b.dtype())?;
        let k = trisolve_kernel()?;
        for l in 0..levels.depth() {
            let rows = levels.rows(l)?;
            k.call_all(&[
                Operand::Array(&self.m.indices),
                Operand::Array(&self.m.indptr),
                Operand::Array(&self.m.data),
                Operand::Array(b),
                Operand::Scalar((ncol as i64).into()),
                Operand::Scalar(lower.into()),
                Operand::Scalar(unit.into()),
                Operand::Array(&x),
                Operand::Array(&rows),
            ])?;
        }
        Ok(x)
    }
}

/// `x` with `T x = b` for the `lower` or upper triangle `T` of `a` (its stored diagonal, or
/// ones with `unit`), level-scheduled on `a`'s device; `a` and `b` of dtype `t`.
pub(crate) fn triangular_solve(a: &CsrMatrix, b: &Array, lower: bool, unit: bool) -> Result<Array> {
    let ncol = if b.ndim() == 2 { b.shape()[1] } else { 1 };
    Scheduled::new(a.canonical()?)?.solve(&b.ascontiguous()?, ncol, lower, unit)
}

/// ILU(0) factors on the device: `L` (below the diagonal, unit diagonal implied) and `U` in
/// one canonical CSR matrix with `A`'s pattern, with their levels; the conjugate transpose's
/// (for `Aᵀ x = b` and `Aᴴ x = b`) made at the first such solve.
#[derive(Debug, Clone)]
struct IluFactors {
    lu: Scheduled,
    transposed: Arc<[OnceLock<Scheduled>; 2]>,
}

/// The LU factorisation of a square sparse matrix (SciPy's `SuperLU` object), from [`splu`]
/// or [`spilu`]: `Pr A Pc = L U` with `L` unit lower triangular and `U` upper triangular.
#[derive(Clone)]
pub struct SuperLu {
    inner: Inner,
    n: usize,
    dtype: DType,
    dev: Arc<dyn DynDevice>,
}

impl std::fmt::Debug for SuperLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.inner {
            Inner::Host(_) => "sparse LU",
            Inner::Ilu(_) => "ILU(0)",
        };
        write!(f, "SuperLu {{ {kind}, shape: ({}, {}), dtype: {} }}", self.n, self.n, self.dtype)
    }
}

/// The sparse LU on the host, in its dtype.
#[derive(Debug, Clone)]
enum HostAny {
    F32(Arc<HostLu<f32>>),
    F64(Arc<HostLu<f64>>),
    C64(Arc<HostLu<Complex<f32>>>),
    C128(Arc<HostLu<Complex<f64>>>),
}

#[derive(Debug, Clone)]
enum Inner {
    /// [`splu`]: faer's sparse LU, kept on the host.
    Host(HostAny),
    /// [`spilu`]: the incomplete factors on the device.
    Ilu(Box<IluFactors>),
}

/// Runs `$body` with `$h` bound to the `HostLu<T>` of each dtype and `$t` to `T`.
macro_rules! with_host {
    ($any:expr, |$h:ident: $t:ident| $body:expr) => {
        match $any {
            HostAny::F32($h) => {
                type $t = f32;
                $body
            }
            HostAny::F64($h) => {
                type $t = f64;
                $body
            }
            HostAny::C64($h) => {
                type $t = Complex<f32>;
                $body
            }
            HostAny::C128($h) => {
                type $t = Complex<f64>;
                $body
            }
        }
    };
}

fn lu_error(op: &str, f: LuFailure) -> Error {
    match f {
        LuFailure::Singular => Error::LinAlg { op: op.into(), reason: "Factor is exactly singular".into() },
        LuFailure::Other(reason) => Error::LinAlg { op: op.into(), reason },
    }
}

fn factor_host<T: LuScalar + crate::Element>(
    op: &str,
    c: &CsrMatrix,
    ordering: ColumnOrdering,
) -> Result<Arc<HostLu<T>>> {
    let n = c.shape.0;
    let indptr = c.indptr.astype(DType::I64)?.to_vec::<i64>()?;
    let indices = c.indices.astype(DType::I64)?.to_vec::<i64>()?;
    let data = c.data.to_vec::<T>()?;
    HostLu::factor(n, &indptr, &indices, &data, ordering).map(Arc::new).map_err(|e| lu_error(op, e))
}

/// SciPy's `splu(A)`: the sparse LU factorisation of the square matrix `a`, with SciPy's
/// default COLAMD column ordering (see the module docs; [`splu_with`] chooses the ordering).
///
/// ```
/// # use xp_array::{sparse, Array, linalg::Trans};
/// # xp_array::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # xp_array::with_device(&xp_array::device("cpu")?, || -> xp_array::Result<()> {
/// let a = sparse::CsrMatrix::from_dense(&Array::from_slice(&[4.0f64, 1., 2., 3.], &[2, 2])?)?;
/// let lu = sparse::linalg::splu(&a)?;
/// let x = lu.solve(&Array::from_vec(vec![6.0f64, 8.])?, Trans::N)?;
/// let x = x.to_vec::<f64>()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
/// # Ok(()) })?;
/// # Ok::<(), xp_array::Error>(())
/// ```
pub fn splu(a: &CsrMatrix) -> Result<SuperLu> {
    splu_with(a, ColumnOrdering::Colamd)
}

/// SciPy's `splu(A, permc_spec=...)`: [`splu`] with the column ordering `permc_spec`
/// (`"NATURAL"` or `"COLAMD"`, parsed by `str::parse`).
pub fn splu_with(a: &CsrMatrix, permc_spec: ColumnOrdering) -> Result<SuperLu> {
    let op = "splu";
    let (m, n) = a.shape();
    if m != n {
        return Err(Error::value(op, format!("can only factor square matrices, got shape ({m}, {n})")));
    }
    let t = float_dtype(a.dtype());
    let c = a.astype(t)?;
    let host = match t {
        DType::F32 => HostAny::F32(factor_host(op, &c, permc_spec)?),
        DType::F64 => HostAny::F64(factor_host(op, &c, permc_spec)?),
        DType::C64 => HostAny::C64(factor_host(op, &c, permc_spec)?),
        DType::C128 => HostAny::C128(factor_host(op, &c, permc_spec)?),
        other => {
            return Err(Error::DType { op: op.into(), reason: format!("cannot factor a matrix of dtype {other}") })
        }
    };
    Ok(SuperLu { inner: Inner::Host(host), n, dtype: t, dev: a.device_arc() })
}

/// SciPy's `factorized(A)`: a function solving `A x = b` for any `b` (a vector or a matrix of
/// right-hand sides), from one factorisation of `a` ([`splu`]).
pub fn factorized(a: &CsrMatrix) -> Result<impl Fn(&Array) -> Result<Array>> {
    let lu = splu(a)?;
    Ok(move |b: &Array| lu.solve(b, Trans::N))
}

/// CuPy's `spilu(A)`: the incomplete LU factorisation ILU(0) of the square matrix `a` (see
/// the module docs), as a [`SuperLu`] (identity permutations), for use as a preconditioner
/// (`solve` approximates `A⁻¹ b`). A missing or zero pivot is a `LinAlg` error.
pub fn spilu(a: &CsrMatrix) -> Result<SuperLu> {
    let op = "spilu";
    let (m, n) = a.shape();
    if m != n {
        return Err(Error::value(op, format!("can only factor square matrices, got shape ({m}, {n})")));
    }
    let t = float_dtype(a.dtype());
    let c = a.canonical()?.astype(t)?;
    let dev = c.device_arc();
    let pattern = Scheduled::new(c)?;
    let c = &pattern.m;
    let val = Array::empty_on(&dev, &[c.nnz()], t)?;
    let k = ilu_kernel()?;
    for l in 0..pattern.lower.depth() {
        let rows = pattern.lower.rows(l)?;
        k.call_all(&[
            Operand::Array(&c.indices),
            Operand::Array(&c.indptr),
            Operand::Array(&c.data),
            Operand::Array(&val),
            Operand::Array(&rows),
        ])?;
    }
    let lu = CsrMatrix { data: val, ..c.clone() };
    if n > 0 {
        // A missing diagonal reads as zero.
        let zero = lu.diagonal(0)?.eq(0.0)?;
        if zero.any(None, false)?.item::<bool>()? {
            let row = zero.argmax(None)?.item::<i64>()?;
            return Err(Error::LinAlg {
                op: op.into(),
                reason: format!("Factor is exactly singular (zero or missing pivot in row {row})"),
            });
        }
    }
    let ilu =
        IluFactors { lu: Scheduled { m: lu, ..pattern }, transposed: Arc::new([OnceLock::new(), OnceLock::new()]) };
    Ok(SuperLu { inner: Inner::Ilu(Box::new(ilu)), n, dtype: t, dev })
}

impl IluFactors {
    /// `op(A)⁻¹ b` for `b` of the factors' dtype.
    fn solve(&self, b: &Array, trans: Trans) -> Result<Array> {
        let ncol = if b.ndim() == 2 { b.shape()[1] } else { 1 };
        let b = b.ascontiguous()?;
        match trans {
            // L U x = b: forward with L, backward with U.
            Trans::N => {
                let y = self.lu.solve(&b, ncol, true, true)?;
                self.lu.solve(&y, ncol, false, false)
            }
            // Uᵀ Lᵀ x = b (conjugated for Aᴴ): the transpose's lower triangle is Uᵀ, its upper
            // one (unit diagonal) Lᵀ.
            Trans::T | Trans::C => {
                let slot = usize::from(trans == Trans::C);
                let t = match self.transposed[slot].get() {
                    Some(t) => t,
                    None => {
                        let mut m = self.lu.m.transpose().tocsr()?;
                        m.sum_duplicates()?;
                        if trans == Trans::C {
                            m.data = m.data.conj()?;
                        }
                        let s = Scheduled::new(m)?;
                        let _ = self.transposed[slot].set(s);
                        self.transposed[slot]
                            .get()
                            .ok_or_else(|| Error::value("SuperLU.solve", "lost the transposed factors"))?
                    }
                };
                let z = t.solve(&b, ncol, true, false)?;
                t.solve(&z, ncol, false, true)
            }
        }
    }
}

impl SuperLu {
    /// `(n, n)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.n, self.n)
    }

    /// The dtype of the factors (float32, float64, complex64 or complex128).
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// SciPy's `solve(rhs, trans)`: `x` with `A x = b` (`Trans::N`), `Aᵀ x = b` (`T`) or
    /// `Aᴴ x = b` (`C`, SciPy's `'H'`), for a vector `b` of length `n` or an `n`-row matrix.
    /// The answer is on `b`'s device, in the promoted dtype of `b` and the factors.
    pub fn solve(&self, b: &Array, trans: Trans) -> Result<Array> {
        let op = "SuperLU.solve";
        let ok = matches!(b.ndim(), 1 | 2) && b.shape()[0] == self.n;
        if !ok {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: vec![self.n, self.n],
                rhs: b.shape().to_vec(),
                reason: format!("the right-hand side {:?} does not have {} rows", b.shape(), self.n),
            });
        }
        let t = crate::promote_types(self.dtype(), float_dtype(b.dtype()));
        // A complex right-hand side for real factors is solved part by part.
        if t != self.dtype {
            return self.solve_promoted(b, trans, t);
        }
        match &self.inner {
            Inner::Ilu(f) => f.solve(&b.astype(t)?, trans),
            Inner::Host(h) => {
                let k = if b.ndim() == 2 { b.shape()[1] } else { 1 };
                let dev = b.device_arc();
                with_host!(h, |lu: T| {
                    let mut v = b.astype(t)?.to_vec::<T>()?;
                    lu.solve_in_place(&mut v, k, trans).map_err(|e| lu_error(op, e))?;
                    Array::from_slice_on(&dev, &v, b.shape())
                })
            }
        }
    }

    /// A complex right-hand side for real factors: the real and imaginary parts solved apart.
    fn solve_promoted(&self, b: &Array, trans: Trans, t: DType) -> Result<Array> {
        let re = self.solve(&b.real().astype(self.dtype)?, trans)?;
        let im = self.solve(&b.imag()?.astype(self.dtype)?, trans)?;
        re.astype(t)?.add(&im.astype(t)?.mul_scalar(crate::J)?)
    }

    /// The device of the factors' arrays (the matrix's device).
    fn device(&self) -> Arc<dyn DynDevice> {
        self.dev.clone()
    }

    /// A CSC matrix on the factors' device from sorted compressed columns.
    fn csc_of<T: crate::Element + Copy>(&self, (ptr, rows, vals): Csc<T>) -> Result<CscMatrix> {
        let dev = self.device();
        let idx = super::index_dtype_for(self.n.max(vals.len()));
        let to = |v: &[usize]| -> Result<Array> {
            let v: Vec<i64> = v.iter().map(|&x| x as i64).collect();
            Array::from_slice_on(&dev, &v, &[v.len()])?.astype(idx)
        };
        let t = CsrMatrix {
            data: Array::from_slice_on(&dev, &vals, &[vals.len()])?,
            indices: to(&rows)?,
            indptr: to(&ptr)?,
            shape: (self.n, self.n),
            sorted: true,
        };
        Ok(CscMatrix { t })
    }

    fn host_error(op: &str, reason: String) -> Error {
        Error::LinAlg { op: op.into(), reason }
    }

    /// SciPy's `L`: the unit lower triangular factor, CSC.
    #[allow(non_snake_case)]
    pub fn L(&self) -> Result<CscMatrix> {
        match &self.inner {
            Inner::Ilu(f) => {
                let eye = crate::with_device(&self.device(), || super::identity(self.n, self.dtype))?;
                super::tril(&f.lu.m, -1)?.add(&eye)?.tocsc()
            }
            Inner::Host(h) => with_host!(h, |lu: T| {
                let (l, _) = lu.factors().map_err(|e| Self::host_error("SuperLU.L", e))?;
                self.csc_of::<T>(l)
            }),
        }
    }

    /// SciPy's `U`: the upper triangular factor, CSC.
    #[allow(non_snake_case)]
    pub fn U(&self) -> Result<CscMatrix> {
        match &self.inner {
            Inner::Ilu(f) => super::triu(&f.lu.m, 0)?.tocsc(),
            Inner::Host(h) => with_host!(h, |lu: T| {
                let (_, u) = lu.factors().map_err(|e| Self::host_error("SuperLU.U", e))?;
                self.csc_of::<T>(u)
            }),
        }
    }

    fn perm_array(&self, p: &[usize]) -> Result<Array> {
        let v: Vec<i32> = p.iter().map(|&x| x as i32).collect();
        Array::from_slice_on(&self.device(), &v, &[self.n])
    }

    /// SciPy's `perm_r` (int32): row `i` of `A` is row `perm_r[i]` of `Pr A = L U Pcᵀ`.
    pub fn perm_r(&self) -> Result<Array> {
        match &self.inner {
            Inner::Ilu(_) => self.perm_array(&(0..self.n).collect::<Vec<_>>()),
            Inner::Host(h) => with_host!(h, |lu: _T| {
                let (r, _) = lu.perms().map_err(|e| Self::host_error("SuperLU.perm_r", e))?;
                self.perm_array(&r)
            }),
        }
    }

    /// SciPy's `perm_c` (int32): column `j` of `A` is column `perm_c[j]` of `A Pc` (the
    /// identity for [`spilu`] and for the `"NATURAL"` ordering).
    pub fn perm_c(&self) -> Result<Array> {
        match &self.inner {
            Inner::Ilu(_) => self.perm_array(&(0..self.n).collect::<Vec<_>>()),
            Inner::Host(h) => with_host!(h, |lu: _T| {
                let (_, c) = lu.perms().map_err(|e| Self::host_error("SuperLU.perm_c", e))?;
                self.perm_array(&c)
            }),
        }
    }

    /// The stored entries of `L` (with its unit diagonal) and `U` together (SciPy's `nnz`
    /// counts SuperLU's supernodal storage, which can hold a few more).
    pub fn nnz(&self) -> Result<usize> {
        match &self.inner {
            Inner::Ilu(_) => Ok(self.L()?.nnz() + self.U()?.nnz()),
            Inner::Host(h) => with_host!(h, |lu: _T| lu.nnz().map_err(|e| Self::host_error("SuperLU.nnz", e))),
        }
    }
}
