//! Direct factorisations of sparse matrices, as `scipy.sparse.linalg`'s [`splu`] (a
//! [`SuperLu`] object with `solve`, `L`, `U`, `perm_r`, `perm_c`), [`factorized`] and
//! [`spilu`].
//!
//! **How.** As [`super::linalg::spsolve`], the factorisation is xp's dense LU with partial
//! pivoting ([`crate::linalg::lu_factor`]: cuSOLVER or rocSOLVER on GPUs, faer on the CPU) of
//! the matrix formed on its device, so it is for matrices whose dense form fits in memory; every
//! `solve` is two triangular solves there. No column ordering is applied: `perm_c` is the
//! identity, and `L`, `U` and `perm_r` are those SciPy's `splu(A, permc_spec="NATURAL")` gives
//! (SuperLU's default threshold 1.0 is partial pivoting). The default `COLAMD` ordering of
//! SciPy gives other factors of the same solutions.
//!
//! **Incomplete LU.** [`spilu`] is ILU(0), as CuPy's `spilu` (SciPy's threshold ILUTP, with
//! `drop_tol` and `fill_factor`, is not taken): the factors keep the pattern of `A`, no
//! pivoting, so `(L U)[i, j] = A[i, j]` wherever `A` stores an entry. It is computed by one
//! work item walking the rows in order on the matrix's device (each row needs the rows above
//! it; level scheduling for more parallelism is left for later), and answered as a
//! [`SuperLu`] whose solves are the dense triangular solves above.
//!
//! **Dtypes and errors.** float32, float64, complex64 and complex128 matrices are factored in
//! their dtype, integer and bool ones in float64 (as SciPy's). A non-square matrix is a `Value`
//! error, and an exactly singular one a `LinAlg` error ("Factor is exactly singular"), as
//! SciPy's `RuntimeError`; both are found when factoring (one host read of `U`'s diagonal).

use std::sync::OnceLock;

use xp_backend_api::{DType, Error, Result};

use super::{float_dtype, CscMatrix, CsrMatrix};
use crate::linalg::Trans;
use crate::user::ElementwiseKernel;
use crate::{Array, Operand};

/// ILU(0) in place on a canonical CSR matrix of `n` rows (one work item): for each
/// row `r` and each stored `k < r` in order, `a[r, k] /= a[k, k]`, then every stored `a[r, j]`,
/// `j > k`, loses `a[r, k] a[k, j]` where row `k` stores `(k, j)`. `bad` is the first row
/// with a missing or zero pivot plus one (0 when none).
const ILU0: &str = r#"
long long bad_row = 0;
for (long long r = 0; r < nrow && bad_row == 0; ++r) {
    const long long s = (long long)ptr[r], e = (long long)ptr[r + 1];
    for (long long p = s; p < e; ++p) {
        const long long k = (long long)ind[p];
        if (k >= r) break;
        long long dk = -1;
        const long long ks = (long long)ptr[k], ke = (long long)ptr[k + 1];
        for (long long q = ks; q < ke; ++q) { if ((long long)ind[q] == k) { dk = q; break; } }
        if (dk < 0 || val[dk] == T(0)) { bad_row = k + 1; break; }
        val[p] = val[p] / val[dk];
        const T lik = val[p];
        long long q = dk + 1;
        for (long long pp = p + 1; pp < e; ++pp) {
            const long long j = (long long)ind[pp];
            while (q < ke && (long long)ind[q] < j) ++q;
            if (q < ke && (long long)ind[q] == j) val[pp] = val[pp] - lik * val[q];
        }
    }
}
for (long long r = 0; r < nrow && bad_row == 0; ++r) {
    long long d = -1;
    for (long long q = (long long)ptr[r]; q < (long long)ptr[r + 1]; ++q) { if ((long long)ind[q] == r) { d = q; break; } }
    if (d < 0 || val[d] == T(0)) bad_row = r + 1;
}
bad = bad_row;
"#;

/// The LU factorisation of a square sparse matrix (SciPy's `SuperLU` object), from [`splu`]:
/// `Pr A Pc = L U` with `L` unit lower triangular and `U` upper triangular.
#[derive(Debug, Clone)]
pub struct SuperLu {
    lu: Array,
    piv: Array,
    n: usize,
}

/// SciPy's `splu(A)`: the LU factorisation of the square matrix `a` (see the module docs).
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
    let op = "splu";
    let (m, n) = a.shape();
    if m != n {
        return Err(Error::value(op, format!("can only factor square matrices, got shape ({m}, {n})")));
    }
    let t = float_dtype(a.dtype());
    let dense = a.toarray()?.astype(t)?;
    let (lu, piv) = crate::linalg::lu_factor(&dense)?;
    if n > 0 {
        let zero = crate::linalg::diag(&lu, 0)?.eq(0.0)?.any(None, false)?.item::<bool>()?;
        if zero {
            return Err(Error::LinAlg { op: op.into(), reason: "Factor is exactly singular".into() });
        }
    }
    Ok(SuperLu { lu, piv, n })
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
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    let op = "spilu";
    let (m, n) = a.shape();
    if m != n {
        return Err(Error::value(op, format!("can only factor square matrices, got shape ({m}, {n})")));
    }
    let t = float_dtype(a.dtype());
    let c = a.canonical()?.astype(t)?;
    let dev = c.device_arc();
    let val = c.data.copy()?;
    let bad = Array::full_on(&dev, &[1], 0i64, DType::I64)?;
    if n > 0 {
        let kern = crate::user::cached_kernel(
            &K,
            "int64 item, raw I ind, raw I ptr, int64 nrow",
            "raw T val, int64 bad",
            ILU0,
            "xp_sparse_ilu0",
            "",
        )?;
        let one = Array::full_on(&dev, &[1], 0i64, DType::I64)?;
        kern.call_all(&[
            Operand::Array(&one),
            Operand::Array(&c.indices),
            Operand::Array(&c.indptr),
            Operand::Scalar((n as i64).into()),
            Operand::Array(&val),
            Operand::Array(&bad),
        ])?;
    }
    let row = bad.item::<i64>()?;
    if row > 0 {
        return Err(Error::LinAlg {
            op: op.into(),
            reason: format!("Factor is exactly singular (zero or missing pivot in row {})", row - 1),
        });
    }
    let lu = CsrMatrix { data: val, ..c }.toarray()?;
    let piv = crate::with_device(&dev, || crate::arange(0i64, n as i64, 1i64, Some(DType::I32)))?;
    Ok(SuperLu { lu, piv, n })
}

impl SuperLu {
    /// `(n, n)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.n, self.n)
    }

    /// The dtype of the factors (float32, float64, complex64 or complex128).
    pub fn dtype(&self) -> DType {
        self.lu.dtype()
    }

    /// SciPy's `solve(rhs, trans)`: `x` with `A x = b` (`Trans::N`), `Aᵀ x = b` (`T`) or
    /// `Aᴴ x = b` (`C`, SciPy's `'H'`), for a vector `b` of length `n` or an `n`-row matrix.
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
        crate::linalg::lu_solve((&self.lu, &self.piv), &b.astype(t)?, trans)
    }

    /// SciPy's `L`: the unit lower triangular factor, CSC.
    #[allow(non_snake_case)]
    pub fn L(&self) -> Result<CscMatrix> {
        let dev = self.lu.device_arc();
        let eye = crate::with_device(&dev, || crate::eye(self.n, None, 0, self.dtype()))?;
        let l = crate::routines::tril(&self.lu, -1)?.add(&eye)?;
        CsrMatrix::from_dense(&l)?.tocsc()
    }

    /// SciPy's `U`: the upper triangular factor, CSC.
    #[allow(non_snake_case)]
    pub fn U(&self) -> Result<CscMatrix> {
        CsrMatrix::from_dense(&crate::routines::triu(&self.lu, 0)?)?.tocsc()
    }

    /// SciPy's `perm_r` (int32): row `i` of `A` is row `perm_r[i]` of `L U` (read from the
    /// pivots on the host: `n` integers).
    pub fn perm_r(&self) -> Result<Array> {
        let piv = self.piv.astype(DType::I64)?.to_vec::<i64>()?;
        // `rows[k]` is the row of `A` that the swaps bring to position `k`.
        let mut rows: Vec<i32> = (0..self.n as i32).collect();
        for (i, &p) in piv.iter().enumerate() {
            if p < 0 || p as usize >= self.n {
                return Err(Error::value("SuperLU.perm_r", format!("pivot {p} out of range for {} rows", self.n)));
            }
            rows.swap(i, p as usize);
        }
        let mut perm = vec![0i32; self.n];
        for (k, &r) in rows.iter().enumerate() {
            perm[r as usize] = k as i32;
        }
        Array::from_slice_on(&self.lu.device_arc(), &perm, &[self.n])
    }

    /// SciPy's `perm_c` (int32): the identity, as no column ordering is applied (see the module
    /// docs).
    pub fn perm_c(&self) -> Result<Array> {
        let dev = self.lu.device_arc();
        crate::with_device(&dev, || crate::arange(0i64, self.n as i64, 1i64, Some(DType::I32)))
    }

    /// The stored nonzeros of `L` and `U` together (SciPy's `nnz` counts SuperLU's
    /// supernodal storage, which can hold a few more).
    pub fn nnz(&self) -> Result<usize> {
        Ok(self.L()?.nnz() + self.U()?.nnz())
    }
}
