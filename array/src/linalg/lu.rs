//! SciPy's LU and Cholesky factorisations and their solves: `lu`, `lu_factor`, `lu_solve`,
//! `cho_factor`, `cho_solve`, on the device's `getrf`, `getrs` and `potrf`.
//!
//! - **Rectangular LU.** The solver contract's `getrf` takes square matrices. A wide `a`
//!   (`M < N`) is factored as the square `[a; 0 I]` (identity rows below): the added rows are
//!   zero in the first `M` columns, so they are never pivots there, and the first `M` steps are
//!   exactly those of `a`. A tall `a` (`M > N`) is factored as `[a, [0; I]]`: its first `N`
//!   steps are `a`'s; the later steps only swap rows `>= N` of `L`'s first `N` columns, which
//!   are put back by the permutation of those swaps. Either way `L`, `U` and `P` are those of
//!   LAPACK's `getrf` on `a`.
//! - **Permutations on the device.** The pivots (`ipiv`, LAPACK's row swaps in order) become a
//!   permutation by `getrs` with an identity factor applied to the column `0, 1, ..., M-1`; no
//!   pivot list is read by the host.
//! - **Transposed solves.** `lu_solve` with `trans` 1 or 2 solves `U^T L^T w = b` (`U^H L^H`)
//!   by one `getrs` call with identity pivots on the packed product (see `triangular.rs`), then
//!   undoes the row permutation; `cho_solve` solves `L L^H x = b` the same way.
//! - **Failures.** `lu` and `lu_factor` never fail on a singular matrix (SciPy warns);
//!   `cho_factor` of a matrix that is not positive definite is `LinAlg` naming the leading
//!   minor, as SciPy's "k-th leading minor of the array is not positive definite" (one
//!   synchronisation to read the statuses).

use xp_backend_api::solver::real_of;
use xp_backend_api::{DType, Error, Result, SolverCall};

use crate::layout::broadcast_shapes;
use crate::{Array, SliceArg};

use super::solve::{
    adjoint, batch_of, column_major, common_solver_dtype, run, solver_dtype, statuses, swap_last, triangle, unravel,
};
use super::triangular::{getrs, grid, pack_lower_upper, perm_from_ipiv, rhs_matrix, with_core, Trans};

/// `getrf` of a stack of `(..., M, N)` matrices: the packed factors (`(..., M, N)`, `L` strictly
/// below the diagonal, `U` on and above it), LAPACK's pivots (`(..., K)` int32, 1-based) and
/// the permutation (`(..., M)` int64: row `i` of `P^T a` is row `perm[i]` of `a`).
struct Factors {
    packed: Array,
    ipiv: Array,
    perm: Array,
    dtype: DType,
}

/// `x[..., r0..r1, c0..c1]`.
fn core_slice(x: &Array, rows: (usize, usize), cols: (usize, usize)) -> Result<Array> {
    let nd = x.ndim();
    let mut sl = vec![SliceArg::ALL; nd];
    sl[nd - 2] = SliceArg::range(rows.0 as isize, rows.1 as isize, 1);
    sl[nd - 1] = SliceArg::range(cols.0 as isize, cols.1 as isize, 1);
    x.slice(&sl)
}

/// The `(..., rows, cols)` block that is zero but for an identity in its last rows and
/// columns: `[0 I]` (wide `a`) or `[0; I]` (tall `a`).
fn identity_block(like: &Array, batch: &[usize], rows: usize, cols: usize, dtype: DType) -> Result<Array> {
    let dev = like.device_arc();
    let k = (cols as isize) - (rows as isize);
    let e = crate::with_device(&dev, || crate::eye(rows, Some(cols), k, dtype))?;
    e.broadcast_to(&with_core(batch, rows, cols))
}

fn factor(op: &str, a: &Array) -> Result<Factors> {
    let nd = a.ndim();
    if nd < 2 {
        return Err(Error::value(op, format!("expected a matrix (at least 2-d), got a of shape {:?}", a.shape())));
    }
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let dtype = solver_dtype(op, a.dtype())?;
    let dev = a.device_arc();
    let batch_shape = a.shape()[..nd - 2].to_vec();
    let batch = batch_of(a.shape());
    let k = m.min(n);
    let s = m.max(n);
    let a = a.astype_if(dtype)?;
    // The square matrix getrf factors (module docs).
    let square = if m < n {
        let pad = identity_block(&a, &batch_shape, n - m, n, dtype)?;
        crate::concatenate(&[&a, &pad], -2)?
    } else if m > n {
        let pad = identity_block(&a, &batch_shape, m, m - n, dtype)?;
        crate::concatenate(&[&a, &pad], -1)?
    } else {
        a.clone()
    };
    let lu = column_major(&square, dtype)?;
    let ipiv = Array::empty_on(&dev, &[batch, s], DType::I32)?;
    if batch > 0 && s > 0 {
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Getrf { n: s }, &[&lu, &ipiv, &info])?;
    } else {
        let mut shape = batch_shape.clone();
        shape.push(k);
        return Ok(Factors {
            packed: Array::full_on(&dev, a.shape(), 0, dtype)?,
            ipiv: Array::full_on(&dev, &shape, 1, DType::I32)?,
            perm: {
                let (r, _) = grid(&dev, m, 1)?;
                let mut pshape = batch_shape.clone();
                pshape.push(m);
                r.reshape(&[m as isize])?.broadcast_to(&pshape)?.copy()?
            },
            dtype,
        });
    }
    let mut ishape = batch_shape.clone();
    ishape.push(s);
    let ipiv = ipiv.reshape(&ishape.iter().map(|&d| d as isize).collect::<Vec<_>>())?;
    let ipiv_k =
        ipiv.slice(&[vec![SliceArg::ALL; ishape.len() - 1], vec![SliceArg::range(0, k as isize, 1)]].concat())?;
    let full = swap_last(&lu)?;
    let perm = perm_from_ipiv(&ipiv_k, m)?;
    let packed = if m > n {
        // Put back the rows that the swaps of the added columns moved.
        let perm_all = perm_from_ipiv(&ipiv, m)?;
        let inv_all = perm_all.argsort(Some(-1))?;
        let idx = crate::take_along_axis(&inv_all, &perm, -1)?;
        let cols = core_slice(&full, (0, m), (0, n))?;
        let idx = idx.expand_dims(-1)?.broadcast_to(&with_core(&batch_shape, m, n))?;
        crate::take_along_axis(&cols, &idx, -2)?
    } else {
        core_slice(&full, (0, m), (0, n))?
    };
    Ok(Factors { packed, ipiv: ipiv_k, perm, dtype })
}

/// The permutation matrices (`(..., M, M)`, `dtype`) of `perm`: `P[perm[i], i] = 1`.
fn permutation_matrix(perm: &Array, m: usize, dtype: DType) -> Result<Array> {
    let (r, _) = grid(&perm.device_arc(), m, 1)?;
    r.eq(&perm.expand_dims(-2)?)?.astype(dtype)
}

/// SciPy's `linalg.lu(a, permute_l=False)`: `a = P @ L @ U` with partial pivoting for a stack
/// of `(..., M, N)` matrices, `K = min(M, N)`: `(Some(P), L, U)` with `P` `(..., M, M)` a
/// permutation matrix in the factors' real dtype (float64 for complex128, as SciPy), `L`
/// `(..., M, K)` unit lower triangular, `U` `(..., K, N)` upper triangular; with `permute_l`,
/// `(None, P @ L, U)`. The factors are LAPACK's `getrf`'s (module docs for rectangular `a`);
/// float32 and complex64 stay in their precision, integers and bool become float64. An empty
/// `a` keeps `P` `(M, M)`, so that `P @ L @ U` holds (SciPy answers `(0, 0)` there).
pub fn lu(a: &Array, permute_l: bool) -> Result<(Option<Array>, Array, Array)> {
    let op = "lu";
    let f = factor(op, a)?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let k = m.min(n);
    let dev = a.device_arc();
    let eye = crate::with_device(&dev, || crate::eye(m, Some(k), 0, f.dtype))?;
    let l = triangle(&core_slice(&f.packed, (0, m), (0, k))?, -1, true)?.add(&eye)?;
    let u = triangle(&core_slice(&f.packed, (0, k), (0, n))?, 0, false)?;
    let p = permutation_matrix(&f.perm, m, real_of(f.dtype))?;
    if permute_l {
        let pl = super::products::matmul(&p.astype(f.dtype)?, &l)?;
        return Ok((None, pl, u));
    }
    Ok((Some(p), l, u))
}

/// SciPy's `linalg.lu_factor(a)`: `(lu, piv)` of a stack of `(..., M, N)` matrices: `lu`
/// holds `U` on and above the diagonal and `L`'s entries below it (its unit diagonal not
/// stored), `piv` (`(..., K)` int32) the 0-based row swaps: row `i` was interchanged with row
/// `piv[i]`, in order. A singular matrix is not an error (SciPy warns).
pub fn lu_factor(a: &Array) -> Result<(Array, Array)> {
    let f = factor("lu_factor", a)?;
    let piv = f.ipiv.sub(1)?.astype(DType::I32)?;
    Ok((f.packed, piv))
}

/// SciPy's `linalg.lu_solve((lu, piv), b, trans=0)`: `x` with `a x = b` (`a^T x = b`,
/// `a^H x = b` by `trans`) from `lu_factor(a)`'s square factors. `b` is `(M,)` or `(..., M, K)`;
/// mismatched shapes are `Value`.
pub fn lu_solve(lu_piv: (&Array, &Array), b: &Array, trans: Trans) -> Result<Array> {
    let op = "lu_solve";
    let (lu, piv) = lu_piv;
    crate::exec::same_device(op, &[lu, piv, b])?;
    let nd = lu.ndim();
    if nd < 2 || lu.shape()[nd - 1] != lu.shape()[nd - 2] {
        return Err(Error::value(op, format!("expected square matrix, got lu of shape {:?}", lu.shape())));
    }
    let n = lu.shape()[nd - 1];
    if piv.ndim() == 0 || piv.shape()[piv.ndim() - 1] != n {
        return Err(Error::value(
            op,
            format!("Shapes of lu {:?} and piv {:?} are incompatible", lu.shape(), piv.shape()),
        ));
    }
    let vector = b.ndim() == 1;
    let bm = rhs_matrix(op, lu, b, vector, n).map_err(|_| {
        Error::value(op, format!("Shapes of lu {:?} and b {:?} are incompatible", lu.shape(), b.shape()))
    })?;
    let dtype = common_solver_dtype(op, lu.dtype(), b.dtype())?;
    let kk = bm.shape()[bm.ndim() - 1];
    let batch_shape =
        broadcast_shapes(op, &[&lu.shape()[..nd - 2], &piv.shape()[..piv.ndim() - 1], &bm.shape()[..bm.ndim() - 2]])?;
    let lu = lu.astype_if(dtype)?.broadcast_to(&with_core(&batch_shape, n, n))?;
    let mut pshape = batch_shape.clone();
    pshape.push(n);
    let ipiv = piv.add(1)?.astype(DType::I32)?.broadcast_to(&pshape)?;
    let bm = bm.broadcast_to(&with_core(&batch_shape, n, kk))?;
    let x = match trans {
        Trans::N => getrs(&lu, Some(&ipiv), &bm, dtype)?,
        Trans::T | Trans::C => {
            let dev = lu.device_arc();
            let eye = crate::with_device(&dev, || crate::eye(n, None, 0, dtype))?;
            let l = triangle(&lu, -1, true)?.add(&eye)?;
            let u = triangle(&lu, 0, false)?;
            let (ut, lt) =
                if trans == Trans::T { (swap_last(&u)?, swap_last(&l)?) } else { (adjoint(&u)?, adjoint(&l)?) };
            let w = getrs(&pack_lower_upper(&ut, &lt)?, None, &bm, dtype)?;
            // w = P^T x: x[perm[i]] = w[i].
            let inv = perm_from_ipiv(&ipiv, n)?.argsort(Some(-1))?;
            let idx = inv.expand_dims(-1)?.broadcast_to(&with_core(&batch_shape, n, kk))?;
            crate::take_along_axis(&w, &idx, -2)?
        }
    };
    if vector {
        x.squeeze(Some(&[-1]))
    } else {
        Ok(x)
    }
}

/// SciPy's `linalg.cho_factor(a, lower=False)`: `(c, lower)` with the Cholesky factor of the
/// Hermitian positive-definite stack `a` in the `lower` (`a = L L^H`) or upper (`a = U^H U`)
/// triangle of `c`, read from that triangle of `a`; the other triangle of `c` holds `a`'s
/// entries (SciPy: arbitrary). Not positive definite is `LinAlg`.
pub fn cho_factor(a: &Array, lower: bool) -> Result<(Array, bool)> {
    let op = "cho_factor";
    let nd = a.ndim();
    if nd < 2 || a.shape()[nd - 1] != a.shape()[nd - 2] {
        return Err(Error::value(op, format!("expected square matrix, got a of shape {:?}", a.shape())));
    }
    let n = a.shape()[nd - 1];
    let dtype = solver_dtype(op, a.dtype())?;
    let dev = a.device_arc();
    let batch = batch_of(a.shape());
    let f = column_major(a, dtype)?;
    if batch > 0 && n > 0 {
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Potrf { n, lower }, &[&f, &info])?;
        let codes: Vec<i32> = info.to_vec()?;
        if let Some(b) = codes.iter().position(|&c| c != 0) {
            let minor = codes[b];
            let reason = if nd == 2 {
                format!("{minor}-th leading minor of the array is not positive definite")
            } else {
                format!(
                    "{minor}-th leading minor of matrix {:?} of the stack of shape {:?} is not positive definite",
                    unravel(b, &a.shape()[..nd - 2]),
                    a.shape()
                )
            };
            return Err(Error::LinAlg { op: op.into(), reason });
        }
    }
    Ok((swap_last(&f)?, lower))
}

/// SciPy's `linalg.cho_solve((c, lower), b)`: `x` with `a x = b` from `cho_factor(a, lower)`'s
/// `(c, lower)`. `b` is `(M,)` or `(..., M, K)`; mismatched shapes are `Value`.
pub fn cho_solve(c_lower: (&Array, bool), b: &Array) -> Result<Array> {
    let op = "cho_solve";
    let (c, lower) = c_lower;
    crate::exec::same_device(op, &[c, b])?;
    let nd = c.ndim();
    if nd < 2 || c.shape()[nd - 1] != c.shape()[nd - 2] {
        return Err(Error::value(op, format!("The factored matrix c is not square: {:?}", c.shape())));
    }
    let n = c.shape()[nd - 1];
    let vector = b.ndim() == 1;
    let bm = rhs_matrix(op, c, b, vector, n)
        .map_err(|_| Error::value(op, format!("incompatible dimensions ({:?} and {:?})", c.shape(), b.shape())))?;
    let dtype = common_solver_dtype(op, c.dtype(), b.dtype())?;
    let c = c.astype_if(dtype)?;
    let l = if lower { triangle(&c, 0, true)? } else { adjoint(&triangle(&c, 0, false)?)? };
    let kk = bm.shape()[bm.ndim() - 1];
    let batch_shape = broadcast_shapes(op, &[&c.shape()[..nd - 2], &bm.shape()[..bm.ndim() - 2]])?;
    let packed = pack_lower_upper(&l, &adjoint(&l)?)?.broadcast_to(&with_core(&batch_shape, n, n))?;
    let x = getrs(&packed, None, &bm.broadcast_to(&with_core(&batch_shape, n, kk))?, dtype)?;
    if vector {
        x.squeeze(Some(&[-1]))
    } else {
        Ok(x)
    }
}
