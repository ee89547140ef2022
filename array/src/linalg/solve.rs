//! `numpy.linalg`'s solvers and decompositions on the device's dense solvers
//! (`Device::solver`: cuSOLVER, rocSOLVER, or faer on the CPU): `solve`, `inv`, `det`,
//! `slogdet`, `cholesky`, `qr`, `svd`, `svdvals`, `eigh`, `eigvalsh`, `eig`, `eigvals`,
//! `lstsq`, `pinv`, `matrix_rank`, `cond`.
//!
//! - **Stacks.** Every function takes stacks of matrices (`(..., M, N)`), as NumPy's do; the
//!   whole stack is one batched call on the device, never a host round trip per matrix.
//! - **Layout.** The solvers work on column-major copies: the C-ordered copy of each matrix's
//!   transpose, made on the device. The factorisations overwrite it; results come back as
//!   views of the solver's output with the last two axes swapped. `inv` of a stack of real
//!   matrices of up to 32 rows on GPUs is the exception: one Gauss–Jordan kernel for the whole
//!   stack, C-ordered in and out (`small_inv.rs`), since the library's batched path costs
//!   more host work per call than the arithmetic of such a stack.
//! - **dtypes.** float32, float64, complex64 and complex128 are computed in their own
//!   precision; integers and bool in float64; float16 and bfloat16 are an `UnsupportedDType`
//!   error, as NumPy's "array type float16 is unsupported in linalg". Two operands (`solve`,
//!   `lstsq`) are computed in the promotion of their own solver dtypes, as NumPy's
//!   `_commonType`: float32 with int8 in float64, complex64 with int32 in complex128.
//! - **Failures.** A singular matrix (`solve`, `inv`), a matrix that is not positive
//!   definite (`cholesky`) or a decomposition that did not converge is `Error::LinAlg` with
//!   NumPy's message, naming the first failing matrix of a stack. The statuses of a call are
//!   read with **one synchronisation per call** (the only host wait of these functions); `det`
//!   and `slogdet` never fail on a singular matrix and do not wait.
//! - `eig` and `eigvals` of a real matrix return real arrays when every eigenvalue is real,
//!   as NumPy's do (this costs a second read of the device).

use std::sync::Arc;

use xp_backend_api::solver::{complex_of, real_of};
use xp_backend_api::{DType, DTypeKind, DynDevice, Error, Result, SolverCall, SolverDesc, SvdJob};

use crate::exec::current_stream;
use crate::layout::broadcast_shapes;
use crate::promote::promote_types;
use crate::Array;

use super::products::matmul;

/// The dtype a solver computes `dtype` in (see the module docs).
pub(super) fn solver_dtype(op: &str, dtype: DType) -> Result<DType> {
    match dtype.kind() {
        _ if matches!(dtype, DType::F32 | DType::F64 | DType::C64 | DType::C128) => Ok(dtype),
        DTypeKind::Bool | DTypeKind::Signed | DTypeKind::Unsigned => Ok(DType::F64),
        _ => Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![dtype],
            detail: format!("array type {dtype} is unsupported in linalg"),
        }),
    }
}

/// The dtype a solver computes two operands in, as NumPy's linalg `_commonType`: each
/// operand's own solver dtype, promoted. Integers and bool count as float64 whatever the other
/// operand (float32 with int8 is float64, where `promote_types` gives float32), and a float16
/// or bfloat16 operand is an `UnsupportedDType` error even beside a float32 one.
pub(super) fn common_solver_dtype(op: &str, a: DType, b: DType) -> Result<DType> {
    Ok(promote_types(solver_dtype(op, a)?, solver_dtype(op, b)?))
}

/// `Err` unless `a` is a stack of matrices (at least 2-d) and, with `square`, square ones.
pub(super) fn check_matrices(op: &str, a: &Array, square: bool) -> Result<(usize, usize)> {
    let nd = a.ndim();
    if nd < 2 {
        return Err(Error::LinAlg {
            op: op.into(),
            reason: format!("{nd}-dimensional array given. Array must be at least two-dimensional"),
        });
    }
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    if square && m != n {
        return Err(Error::LinAlg {
            op: op.into(),
            reason: format!("Last 2 dimensions of the array must be square, not {:?}", a.shape()),
        });
    }
    Ok((m, n))
}

/// `x` with its last two axes swapped (a view).
pub(crate) fn swap_last(x: &Array) -> Result<Array> {
    let nd = x.ndim() as isize;
    let mut axes: Vec<isize> = (0..nd).collect();
    axes.swap((nd - 2) as usize, (nd - 1) as usize);
    x.permute(&axes)
}

/// The conjugate transpose of a stack (`x^H`, a view for real dtypes).
pub(super) fn adjoint(x: &Array) -> Result<Array> {
    let t = swap_last(x)?;
    if x.dtype().is_complex() {
        t.conj()
    } else {
        Ok(t)
    }
}

/// A new C-ordered array of `x`'s matrices transposed, in `dtype`: each matrix column-major,
/// ready for the solvers (which write to it).
pub(super) fn column_major(x: &Array, dtype: DType) -> Result<Array> {
    let t = swap_last(x)?;
    if t.dtype() == dtype {
        t.copy()
    } else {
        t.astype_order(dtype, crate::Order::C)
    }
}

/// The solver and stream of `dev`, and the batch of the stack `shape` (all but the last two
/// axes).
pub(super) fn batch_of(shape: &[usize]) -> usize {
    shape[..shape.len() - 2].iter().product()
}

/// Queue `call` on the batch with `operands` (each an array whose buffer holds the operand,
/// in the order of [`SolverDesc::operands`]).
pub(super) fn run(
    dev: &Arc<dyn DynDevice>,
    dtype: DType,
    batch: usize,
    call: SolverCall,
    operands: &[&Array],
) -> Result<()> {
    let solver = dev.solver()?;
    let desc = SolverDesc { dtype, batch, call };
    let bytes = |x: &Array| x.layout().offset() * x.itemsize();
    let ops: Vec<_> = operands.iter().map(|x| Ok((x.storage.buffer_for_write()?, bytes(x)))).collect::<Result<_>>()?;
    solver.run(&current_stream(dev), &desc, &ops)
}

/// An empty array of statuses (one int32 per matrix).
pub(super) fn statuses(dev: &Arc<dyn DynDevice>, batch: usize) -> Result<Array> {
    Array::empty_on(dev, &[batch.max(1)], DType::I32)
}

/// Read the statuses (one synchronisation) and turn the first failure into NumPy's
/// `LinAlgError` message `what`, naming the input's `shape` (a stack of matrices) and, in a
/// stack, the failing matrix.
fn check_statuses(op: &str, info: &Array, shape: &[usize], what: &str) -> Result<()> {
    let codes: Vec<i32> = info.to_vec()?;
    if let Some(b) = codes.iter().position(|&c| c != 0) {
        let batch_shape = &shape[..shape.len() - 2];
        let reason = if batch_shape.is_empty() {
            format!("{what} (input of shape {shape:?})")
        } else {
            format!("{what} (matrix {:?} of the stack of shape {shape:?})", unravel(b, batch_shape))
        };
        return Err(Error::LinAlg { op: op.into(), reason });
    }
    Ok(())
}

/// The multi-index of flat position `i` in `shape` (C order).
pub(super) fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut out = vec![0; shape.len()];
    for (o, &s) in out.iter_mut().zip(shape).rev() {
        *o = i % s.max(1);
        i /= s.max(1);
    }
    out
}

/// The lower (`lower`) or upper triangle of each matrix, the rest zero (NumPy's `tril(x, k)`
/// and `triu(x, k)` of a stack).
pub(super) fn triangle(x: &Array, k: isize, lower: bool) -> Result<Array> {
    let nd = x.ndim();
    let (m, n) = (x.shape()[nd - 2], x.shape()[nd - 1]);
    let dev = x.device_arc();
    let rows =
        crate::with_device(&dev, || crate::arange(0.0, m as f64, 1.0, Some(DType::I64)))?.reshape(&[m as isize, 1])?;
    let cols =
        crate::with_device(&dev, || crate::arange(0.0, n as f64, 1.0, Some(DType::I64)))?.reshape(&[1, n as isize])?;
    // Lower keeps j - i <= k; upper keeps j - i >= k.
    let diff = cols.sub(&rows)?;
    let keep = if lower { diff.le(k)? } else { diff.ge(k)? };
    let zero = Array::scalar_on(&dev, 0, x.dtype())?;
    crate::where_(&keep, x.into(), (&zero).into())
}

/// NumPy's `linalg.solve(a, b)`: `b` is one right-hand side when it is 1-d, else a stack of
/// `(..., M, K)` matrices; the stacks broadcast.
pub fn solve(a: &Array, b: &Array) -> Result<Array> {
    crate::exec::same_device("solve", &[a, b])?;
    let op = "solve";
    let (n, _) = check_matrices(op, a, true)?;
    let vector = b.ndim() == 1;
    let bm = if vector { b.reshape(&[b.size() as isize, 1])? } else { b.clone() };
    if bm.ndim() < 2 || bm.shape()[bm.ndim() - 2] != n {
        return Err(Error::value(
            op,
            format!(
                "a of shape {:?} and b of shape {:?}: b must have {n} rows (its core dimension 0 does not match)",
                a.shape(),
                b.shape()
            ),
        ));
    }
    let dtype = common_solver_dtype(op, a.dtype(), b.dtype())?;
    let k = bm.shape()[bm.ndim() - 1];
    let batch_shape = broadcast_shapes(op, &[&a.shape()[..a.ndim() - 2], &bm.shape()[..bm.ndim() - 2]])?;
    let full = |rows: usize, cols: usize| {
        let mut s = batch_shape.clone();
        s.extend([rows, cols]);
        s
    };
    let dev = a.device_arc();
    let x_cm = column_major(&bm.broadcast_to(&full(n, k))?, dtype)?;
    let batch = batch_of(&full(n, k));
    if batch > 0 && n > 0 && k > 0 {
        let lu = column_major(&a.broadcast_to(&full(n, n))?, dtype)?;
        let ipiv = Array::empty_on(&dev, &[batch, n], DType::I32)?;
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Getrf { n }, &[&lu, &ipiv, &info])?;
        let rs_info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Getrs { n, nrhs: k }, &[&lu, &ipiv, &x_cm, &rs_info])?;
        check_statuses(op, &info, &full(n, n), "Singular matrix")?;
    }
    let x = swap_last(&x_cm)?;
    if vector {
        x.squeeze(Some(&[-1]))
    } else {
        Ok(x)
    }
}

/// NumPy's `linalg.inv(a)`: the inverse of each matrix of the stack.
pub fn inv(a: &Array) -> Result<Array> {
    let op = "inv";
    let (n, _) = check_matrices(op, a, true)?;
    let dtype = solver_dtype(op, a.dtype())?;
    let dev = a.device_arc();
    let batch = batch_of(a.shape());
    // A stack of small real matrices on a GPU: one kernel for the whole stack (see
    // `small_inv`), without the library path's copies and address uploads.
    if batch >= 2
        && (1..=super::small_inv::MAX_N).contains(&n)
        && matches!(dtype, DType::F32 | DType::F64)
        && !crate::ndimage::native(&*dev)
    {
        let a = if a.dtype() == dtype { a.clone() } else { a.astype(dtype)? };
        let (c, info) = super::small_inv::inv_small(&a, n, batch)?;
        check_statuses(op, &info, a.shape(), "Singular matrix")?;
        return Ok(c);
    }
    // A stack of small matrices: the inverse straight from the LU factors, where the library
    // has it (one batched call instead of a solve against a stack of identities).
    if batch >= 2 && (1..=128).contains(&n) && dev.solver()?.supports(dtype, &SolverCall::Getri { n }) {
        let lu = column_major(a, dtype)?;
        let ipiv = Array::empty_on(&dev, &[batch, n], DType::I32)?;
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Getrf { n }, &[&lu, &ipiv, &info])?;
        let c = Array::empty_on(&dev, a.shape(), dtype)?;
        let ri_info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Getri { n }, &[&lu, &ipiv, &c, &ri_info])?;
        check_statuses(op, &info, a.shape(), "Singular matrix")?;
        return swap_last(&c);
    }
    let eye = crate::with_device(&dev, || crate::eye(n, None, 0, dtype))?;
    solve(a, &eye.broadcast_to(a.shape())?).map_err(|e| match e {
        Error::LinAlg { reason, .. } => Error::LinAlg { op: op.into(), reason },
        other => other,
    })
}

/// The LU factors (column-major) and pivots of a stack of square matrices, queued.
fn lu_factors(op: &str, a: &Array) -> Result<(Array, Array, DType, usize)> {
    let (n, _) = check_matrices(op, a, true)?;
    let dtype = solver_dtype(op, a.dtype())?;
    let dev = a.device_arc();
    let batch = batch_of(a.shape());
    let lu = column_major(a, dtype)?;
    let ipiv = Array::empty_on(&dev, &[batch, n], DType::I32)?;
    if batch > 0 && n > 0 {
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Getrf { n }, &[&lu, &ipiv, &info])?;
    }
    Ok((lu, ipiv, dtype, n))
}

/// `(-1)^(row swaps)` of each matrix's pivots, shaped as the stack, in `dtype`.
fn pivot_sign(ipiv: &Array, n: usize, batch_shape: &[usize], dtype: DType) -> Result<Array> {
    let dev = ipiv.device_arc();
    let pos = crate::with_device(&dev, || crate::arange(1.0, n as f64 + 1.0, 1.0, Some(DType::I32)))?;
    let swaps = ipiv.ne(&pos)?.astype(DType::I64)?.sum(Some(&[-1]), false)?;
    // 1 - 2 * (swaps % 2)
    let sign = swaps.rem(2)?.mul_scalar(-2)?.add_scalar(1)?.astype(dtype)?;
    sign.reshape(&batch_shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
}

/// NumPy's `linalg.det(a)` of each matrix of the stack (0 for a singular matrix).
pub fn det(a: &Array) -> Result<Array> {
    let op = "det";
    let (lu, ipiv, dtype, n) = lu_factors(op, a)?;
    let batch_shape = &a.shape()[..a.ndim() - 2];
    if n == 0 {
        return Array::full_on(&a.device_arc(), batch_shape, 1, dtype);
    }
    let d = lu.diagonal(0, -2, -1)?.prod(Some(&[-1]), false)?;
    d.mul(&pivot_sign(&ipiv, n, batch_shape, dtype)?)
}

/// NumPy's `linalg.slogdet(a)`: `(sign, logabsdet)` of each matrix; a singular matrix gives
/// `(0, -inf)`.
pub fn slogdet(a: &Array) -> Result<(Array, Array)> {
    let op = "slogdet";
    let (lu, ipiv, dtype, n) = lu_factors(op, a)?;
    let batch_shape = &a.shape()[..a.ndim() - 2];
    let dev = a.device_arc();
    if n == 0 {
        return Ok((
            Array::full_on(&dev, batch_shape, 1, dtype)?,
            Array::full_on(&dev, batch_shape, 0, real_of(dtype))?,
        ));
    }
    let diag = lu.diagonal(0, -2, -1)?;
    let mag = diag.abs()?;
    let logdet = mag.log()?.sum(Some(&[-1]), false)?;
    let zero = Array::scalar_on(&dev, 0, dtype)?;
    let unit = crate::where_(&mag.eq(0)?, (&zero).into(), (&diag.div(&mag)?).into())?;
    let sign = unit.prod(Some(&[-1]), false)?.mul(&pivot_sign(&ipiv, n, batch_shape, dtype)?)?;
    Ok((sign.astype_if(dtype)?, logdet.astype_if(real_of(dtype))?))
}

/// NumPy's `linalg.cholesky(a, upper=False)`: `L` with `a = L L^H`, read from the lower
/// triangle of Hermitian positive-definite matrices; with `upper`, `U` with `a = U^H U`, read
/// from the upper triangle.
pub fn cholesky(a: &Array, upper: bool) -> Result<Array> {
    let op = "cholesky";
    let (n, _) = check_matrices(op, a, true)?;
    let dtype = solver_dtype(op, a.dtype())?;
    let dev = a.device_arc();
    let batch = batch_of(a.shape());
    let f = column_major(a, dtype)?;
    if batch > 0 && n > 0 {
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Potrf { n, lower: !upper }, &[&f, &info])?;
        check_statuses(op, &info, a.shape(), "Matrix is not positive definite")?;
    }
    triangle(&swap_last(&f)?, 0, !upper)
}

/// NumPy's `mode` of `linalg.qr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QrMode {
    /// `Q` as `(M, K)`, `R` as `(K, N)`, `K = min(M, N)` (the default).
    Reduced,
    /// `Q` as `(M, M)`, `R` as `(M, N)`.
    Complete,
    /// `R` only, as `(K, N)`.
    R,
}

impl QrMode {
    /// NumPy's name (`reduced`, `complete`, `r`); `raw` and others are a `Value` error.
    pub fn from_name(name: &str) -> Result<QrMode> {
        match name {
            "reduced" => Ok(QrMode::Reduced),
            "complete" => Ok(QrMode::Complete),
            "r" => Ok(QrMode::R),
            other => Err(Error::value("qr", format!("Unrecognized mode '{other}' (xp has reduced, complete and r)"))),
        }
    }
}

/// NumPy's `linalg.qr(a, mode)`: `(Some(Q), R)`, or `(None, R)` for `QrMode::R`.
pub fn qr(a: &Array, mode: QrMode) -> Result<(Option<Array>, Array)> {
    let op = "qr";
    let (m, n) = check_matrices(op, a, false)?;
    let dtype = solver_dtype(op, a.dtype())?;
    let dev = a.device_arc();
    let k = m.min(n);
    let batch = batch_of(a.shape());
    let stack = &a.shape()[..a.ndim() - 2];
    let qcols = match mode {
        QrMode::Reduced => k,
        QrMode::Complete => m,
        QrMode::R => 0,
    };
    let f = column_major(a, dtype)?;
    let mut qshape = stack.to_vec();
    qshape.extend([qcols, m]);
    let q = Array::empty_on(&dev, &qshape, dtype)?;
    if batch > 0 && m > 0 && n > 0 {
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Qr { m, n, qcols }, &[&f, &q, &info])?;
    } else if qcols > 0 && batch > 0 && m > 0 {
        // An empty matrix's Q is the identity.
        let eye = crate::with_device(&dev, || crate::eye(m, Some(qcols), 0, dtype))?;
        return Ok((
            Some(eye.broadcast_to(&[stack, &[m, qcols]].concat())?.copy()?),
            Array::full_on(&dev, &[stack, &[if mode == QrMode::Complete { m } else { k }, n]].concat(), 0, dtype)?,
        ));
    }
    let rrows = if mode == QrMode::Complete { m } else { k };
    let r = swap_last(&f)?;
    let nd = r.ndim();
    let mut sl = vec![crate::SliceArg::range(0, isize::MAX, 1); nd];
    sl[nd - 2] = crate::SliceArg::range(0, rrows as isize, 1);
    let r = triangle(&r.slice(&sl)?, 0, false)?;
    let q = if mode == QrMode::R { None } else { Some(swap_last(&q)?) };
    Ok((q, r))
}

/// The singular value decomposition by the device's solver, with `m >= n` arranged by
/// working on the adjoint when needed (cuSOLVER's `gesvd` takes only tall matrices):
/// `(U, S, V^H)`, `U`/`V^H` `None` for `SvdJob::ValuesOnly`.
fn svd_impl(op: &str, a: &Array, job: SvdJob) -> Result<(Option<Array>, Array, Option<Array>)> {
    let (m, n) = check_matrices(op, a, false)?;
    if m < n {
        let (u, s, vt) = svd_impl(op, &adjoint(a)?, job)?;
        // a^H = U S V^H, so a = V S U^H.
        let flip = |x: Option<Array>| x.map(|x| adjoint(&x)).transpose();
        return Ok((flip(vt)?, s, flip(u)?));
    }
    let dtype = solver_dtype(op, a.dtype())?;
    let dev = a.device_arc();
    let k = n;
    let batch = batch_of(a.shape());
    let stack = &a.shape()[..a.ndim() - 2];
    let (uc, vr) = match job {
        SvdJob::ValuesOnly => (0, 0),
        SvdJob::Reduced => (k, k),
        SvdJob::Full => (m, n),
    };
    let with = |tail: &[usize]| [stack, tail].concat();
    let s = Array::empty_on(&dev, &with(&[k]), real_of(dtype))?;
    let u = Array::empty_on(&dev, &with(&[uc, m]), dtype)?;
    let vt = Array::empty_on(&dev, &with(&[n, vr]), dtype)?;
    if batch > 0 && m > 0 && n > 0 {
        let f = column_major(a, dtype)?;
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Gesvd { m, n, job }, &[&f, &s, &u, &vt, &info])?;
        check_statuses(op, &info, a.shape(), "SVD did not converge")?;
        // An input with NaNs can end the iterations without a status saying so (cuSOLVER's
        // Jacobi SVD; faer returns NaNs): a NaN singular value is NumPy's non-convergence.
        if s.isnan()?.any(None, false)?.item::<bool>()? {
            return Err(Error::LinAlg {
                op: op.into(),
                reason: format!("SVD did not converge (input of shape {:?})", a.shape()),
            });
        }
    } else if job != SvdJob::ValuesOnly && batch > 0 {
        let eye = |r: usize, c: usize| -> Result<Array> {
            let e = crate::with_device(&dev, || crate::eye(r, Some(c), 0, dtype))?;
            e.broadcast_to(&with(&[r, c]))?.copy()
        };
        return Ok((Some(eye(m, uc)?), s, Some(eye(vr, n)?)));
    }
    if job == SvdJob::ValuesOnly {
        return Ok((None, s, None));
    }
    Ok((Some(swap_last(&u)?), s, Some(swap_last(&vt)?)))
}

/// NumPy's `linalg.svd(a, full_matrices=True, compute_uv=True)` with `compute_uv`:
/// `(U, S, Vh)` with `a = U @ diag(S) @ Vh`, `S` nonincreasing.
pub fn svd(a: &Array, full_matrices: bool) -> Result<(Array, Array, Array)> {
    let job = if full_matrices { SvdJob::Full } else { SvdJob::Reduced };
    let (u, s, vt) = svd_impl("svd", a, job)?;
    Ok((u.expect("vectors were asked for"), s, vt.expect("vectors were asked for")))
}

/// NumPy's `linalg.svd(a, compute_uv=False)` (`linalg.svdvals`): the singular values of each
/// matrix, nonincreasing.
pub fn svdvals(a: &Array) -> Result<Array> {
    Ok(svd_impl("svd", a, SvdJob::ValuesOnly)?.1)
}

/// The Hermitian eigensolver: `(w, Some(v))` or `(w, None)`.
fn eigh_impl(op: &str, a: &Array, uplo: &str, vectors: bool) -> Result<(Array, Option<Array>)> {
    let (n, _) = check_matrices(op, a, true)?;
    let lower = match uplo {
        "L" | "l" => true,
        "U" | "u" => false,
        other => return Err(Error::value(op, format!("UPLO argument must be 'L' or 'U', not '{other}'"))),
    };
    let dtype = solver_dtype(op, a.dtype())?;
    let dev = a.device_arc();
    let batch = batch_of(a.shape());
    let stack = &a.shape()[..a.ndim() - 2];
    let f = column_major(a, dtype)?;
    let w = Array::empty_on(&dev, &[stack, &[n]].concat(), real_of(dtype))?;
    if batch > 0 && n > 0 {
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Syevd { n, lower, vectors }, &[&f, &w, &info])?;
        check_statuses(op, &info, a.shape(), "Eigenvalues did not converge")?;
    }
    Ok((w, if vectors { Some(swap_last(&f)?) } else { None }))
}

/// NumPy's `linalg.eigh(a, UPLO='L')`: eigenvalues (ascending, real) and orthonormal
/// eigenvectors (columns) of Hermitian matrices, read from the `UPLO` triangle.
pub fn eigh(a: &Array, uplo: &str) -> Result<(Array, Array)> {
    let (w, v) = eigh_impl("eigh", a, uplo, true)?;
    Ok((w, v.expect("vectors were asked for")))
}

/// NumPy's `linalg.eigvalsh(a, UPLO='L')`.
pub fn eigvalsh(a: &Array, uplo: &str) -> Result<Array> {
    Ok(eigh_impl("eigvalsh", a, uplo, false)?.0)
}

/// The general eigensolver: `(w, Some(v))` or `(w, None)`, real when `a` is real and every
/// eigenvalue is.
fn eig_impl(op: &str, a: &Array, vectors: bool) -> Result<(Array, Option<Array>)> {
    let (n, _) = check_matrices(op, a, true)?;
    let input = solver_dtype(op, a.dtype())?;
    let cdtype = complex_of(input);
    let dev = a.device_arc();
    let solver = dev.solver()?;
    let call = SolverCall::Geev { n, vectors };
    // A library without a real general eigensolver computes a real matrix as complex.
    let dtype = if solver.supports(input, &call) { input } else { cdtype };
    if !solver.supports(dtype, &call) {
        return Err(Error::Unsupported(format!(
            "{op}: {} has no general (non-symmetric) eigensolver; compute it on the CPU (xp::Device::cpu()) \
             or, for Hermitian matrices, use eigh",
            solver.name()
        )));
    }
    let batch = batch_of(a.shape());
    let stack = &a.shape()[..a.ndim() - 2];
    let f = column_major(a, dtype)?;
    let w = Array::empty_on(&dev, &[stack, &[n]].concat(), cdtype)?;
    let v = Array::empty_on(&dev, &[stack, &[if vectors { n } else { 0 }, n]].concat(), cdtype)?;
    if batch > 0 && n > 0 {
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, call, &[&f, &w, &v, &info])?;
        check_statuses(op, &info, a.shape(), "Eigenvalues did not converge")?;
    }
    let v = if vectors { Some(swap_last(&v)?) } else { None };
    if !input.is_complex() {
        let all_real = w.imag()?.eq(0)?.all(None, false)?.item::<bool>()?;
        if all_real {
            let real = |x: &Array| real_part(x, input);
            return Ok((real(&w)?, v.as_ref().map(real).transpose()?));
        }
    }
    Ok((w, v))
}

/// The real parts of a complex array, as a new array of `dtype`.
fn real_part(x: &Array, dtype: DType) -> Result<Array> {
    x.real().astype(dtype)
}

/// NumPy's `linalg.eig(a)`: eigenvalues and right eigenvectors (columns, unit norm) of
/// general square matrices; complex unless `a` is real with only real eigenvalues.
pub fn eig(a: &Array) -> Result<(Array, Array)> {
    let (w, v) = eig_impl("eig", a, true)?;
    Ok((w, v.expect("vectors were asked for")))
}

/// NumPy's `linalg.eigvals(a)`.
pub fn eigvals(a: &Array) -> Result<Array> {
    Ok(eig_impl("eigvals", a, false)?.0)
}

/// The machine epsilon of a solver dtype's real type.
fn eps(dtype: DType) -> f64 {
    if real_of(dtype) == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// `1/s` where `s > cutoff`, else 0 (the pseudo-inverse of the singular values).
fn inverse_values(s: &Array, cutoff: &Array) -> Result<Array> {
    let zero = Array::scalar_on(&s.device_arc(), 0, s.dtype())?;
    crate::where_(&s.gt(cutoff)?, (&s.reciprocal()?).into(), (&zero).into())
}

/// NumPy's `linalg.pinv(a, rcond=1e-15)`: the pseudo-inverse of each matrix by its SVD,
/// singular values at most `rcond` times the largest set to zero.
pub fn pinv(a: &Array, rcond: Option<f64>) -> Result<Array> {
    let op = "pinv";
    let (m, n) = check_matrices(op, a, false)?;
    let dtype = solver_dtype(op, a.dtype())?;
    if m == 0 || n == 0 {
        let mut shape = a.shape().to_vec();
        let nd = shape.len();
        shape.swap(nd - 2, nd - 1);
        return Array::full_on(&a.device_arc(), &shape, 0, dtype);
    }
    let (u, s, vt) = svd(a, false)?;
    let cutoff = s.max(Some(&[-1]), true)?.mul_scalar(rcond.unwrap_or(1e-15))?;
    let sinv = inverse_values(&s, &cutoff)?.astype_if(dtype)?;
    // V diag(1/s) U^H
    let scaled = adjoint(&u)?.mul(&sinv.expand_dims(-1)?)?;
    matmul(&adjoint(&vt)?, &scaled)
}

/// NumPy's `linalg.lstsq(a, b, rcond=None)`: `(x, residuals, rank, s)` minimising
/// `|b - a x|` by the SVD of `a` (`M × N`); `b` is `(M,)` or `(M, K)`. Singular values at most
/// `rcond` (default `eps * max(M, N)`) times the largest count as zero. `residuals` holds the
/// squared residual norms when `a` has full rank `N < M`, else it is empty.
pub fn lstsq(a: &Array, b: &Array, rcond: Option<f64>) -> Result<(Array, Array, Array, Array)> {
    crate::exec::same_device("lstsq", &[a, b])?;
    let op = "lstsq";
    if a.ndim() != 2 {
        return Err(Error::LinAlg {
            op: op.into(),
            reason: format!("{}-dimensional array given. Array must be two-dimensional", a.ndim()),
        });
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    if b.ndim() == 0 || b.ndim() > 2 || b.shape()[0] != m {
        return Err(Error::LinAlg {
            op: op.into(),
            reason: format!("Incompatible dimensions: a of shape {:?}, b of shape {:?}", a.shape(), b.shape()),
        });
    }
    let dtype = common_solver_dtype(op, a.dtype(), b.dtype())?;
    let vector = b.ndim() == 1;
    let bm = if vector { b.reshape(&[m as isize, 1])? } else { b.clone() }.astype_if(dtype)?;
    let a = a.astype_if(dtype)?;
    let dev = a.device_arc();
    let rdt = real_of(dtype);
    let (u, s, vt) = svd(&a, false)?;
    let rcond = rcond.unwrap_or(eps(dtype) * m.max(n) as f64);
    let cutoff = if s.size() > 0 { s.max(None, true)?.mul_scalar(rcond)? } else { Array::scalar_on(&dev, 0, rdt)? };
    let sinv = inverse_values(&s, &cutoff)?;
    let rank = s.gt(&cutoff)?.astype(DType::I64)?.sum(None, false)?;
    let utb = matmul(&adjoint(&u)?, &bm)?;
    let x = matmul(&adjoint(&vt)?, &utb.mul(&sinv.astype_if(dtype)?.expand_dims(-1)?)?)?;
    let full_rank = m > n && rank.item::<i64>()? == n as i64;
    let residuals = if full_rank {
        let r = matmul(&a, &x)?.sub(&bm)?;
        let r2 = r.abs()?.square()?.sum(Some(&[0]), false)?;
        r2.astype_if(rdt)?
    } else {
        Array::empty_on(&dev, &[0], rdt)?
    };
    let x = if vector { x.squeeze(Some(&[-1]))? } else { x };
    Ok((x, residuals, rank, s))
}

/// NumPy's `linalg.matrix_rank(A, tol=None)`: the number of singular values above `tol`
/// (default `S.max() * max(M, N) * eps`) of each matrix; a 1-d or 0-d `A` has rank 1 unless
/// all zero.
pub fn matrix_rank(a: &Array, tol: Option<f64>) -> Result<Array> {
    let op = "matrix_rank";
    if a.ndim() < 2 {
        return a.ne(0)?.any(None, false)?.astype(DType::I64);
    }
    let (m, n) = check_matrices(op, a, false)?;
    let dtype = solver_dtype(op, a.dtype())?;
    let s = svdvals(a)?;
    let tol = match tol {
        Some(t) => Array::scalar_on(&a.device_arc(), t, real_of(dtype))?,
        None if s.shape()[s.ndim() - 1] == 0 => Array::scalar_on(&a.device_arc(), 0, real_of(dtype))?,
        None => s.max(Some(&[-1]), true)?.mul_scalar(m.max(n) as f64 * eps(dtype))?,
    };
    s.gt(&tol)?.astype(DType::I64)?.sum(Some(&[-1]), false)
}
