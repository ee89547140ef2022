//! SciPy's `linalg.solve_triangular`, and the triangular sweeps that `lu_solve`, `cho_solve`
//! and `solve_with` share.
//!
//! - **On the device's LU solve.** The solver contract has no triangular solve; `getrs` with
//!   identity pivots is one: it solves `L' U' x = b` by a forward sweep with the unit lower
//!   triangle `L'` and a back sweep with the upper triangle `U'` of one packed matrix. An
//!   upper triangular `U` is packed as itself (`L' = I`), exactly as LAPACK's `trtrs` would
//!   sweep it. A lower triangular `L` is turned upper by reversing the order of the rows and
//!   the columns (`J L J` is upper, `J` the exchange matrix), so that `x = J (J L J)^-1 J b`
//!   is one back sweep too, with no rounding beyond `trtrs`'s. A product `L U` (a lower times
//!   an upper triangle, as `U^T L^T` in `lu_solve(trans=1)` or `L L^H` in `cho_solve`) is
//!   packed as `L' = L D^-1` below the diagonal and `D U` on and above it (`D = diag(L)`),
//!   so that one `getrs` call does both sweeps (one rounding per element of the packing).
//! - **Singular matrices.** A zero on the diagonal is `Error::LinAlg` naming its position, as
//!   SciPy's "singular matrix: resolution failed at diagonal i"; finding it reads one boolean
//!   (one synchronisation), and the position only when there is one.
//! - **Stacks.** `a` is `(..., M, M)`; `b` is one vector per matrix when it is 1-d or has one
//!   axis fewer than `a` (SciPy 1.17's batching rule), else `(..., M, K)` matrices; the batch
//!   axes broadcast. float32, float64, complex64 and complex128 are computed in their own
//!   precision, integers and bool in float64 (SciPy's LAPACK types).

use std::str::FromStr;
use std::sync::Arc;

use xp_backend_api::{DType, DynDevice, Error, Result, SolverCall};

use crate::layout::broadcast_shapes;
use crate::Array;

use super::solve::{adjoint, batch_of, column_major, common_solver_dtype, run, statuses, swap_last, triangle};

/// SciPy's `trans` of `solve_triangular` and `lu_solve`: which system is solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Trans {
    /// `a x = b` (`0`, `"N"`; the default).
    #[default]
    N,
    /// `a^T x = b` (`1`, `"T"`).
    T,
    /// `a^H x = b` (`2`, `"C"`; `a^T` for real `a`).
    C,
}

impl Trans {
    /// SciPy's integer form: 0, 1 or 2; anything else is a `Value` error.
    pub fn from_int(op: &str, t: i64) -> Result<Trans> {
        match t {
            0 => Ok(Trans::N),
            1 => Ok(Trans::T),
            2 => Ok(Trans::C),
            other => Err(Error::value(op, format!("Invalid value for trans: {other} (0, 1, 2, 'N', 'T' or 'C')"))),
        }
    }
}

impl FromStr for Trans {
    type Err = Error;
    /// `"N"`, `"T"`, `"C"` (either case) or `"0"`, `"1"`, `"2"`.
    fn from_str(s: &str) -> Result<Trans> {
        match s {
            "N" | "n" | "0" => Ok(Trans::N),
            "T" | "t" | "1" => Ok(Trans::T),
            "C" | "c" | "2" => Ok(Trans::C),
            other => Err(Error::value("solve_triangular", format!("Invalid value for trans: '{other}'"))),
        }
    }
}

/// `(rows (m, 1), cols (1, n))`, int64 index grids on `dev`.
pub(super) fn grid(dev: &Arc<dyn DynDevice>, m: usize, n: usize) -> Result<(Array, Array)> {
    let r = crate::with_device(dev, || crate::arange(0.0, m as f64, 1.0, Some(DType::I64)))?;
    let c = crate::with_device(dev, || crate::arange(0.0, n as f64, 1.0, Some(DType::I64)))?;
    Ok((r.reshape(&[m as isize, 1])?, c.reshape(&[1, n as isize])?))
}

/// `x` with every diagonal element of its matrices set to one.
pub(super) fn with_unit_diagonal(x: &Array) -> Result<Array> {
    let nd = x.ndim();
    let (r, c) = grid(&x.device_arc(), x.shape()[nd - 2], x.shape()[nd - 1])?;
    let one = Array::scalar_on(&x.device_arc(), 1, x.dtype())?;
    crate::where_(&r.eq(&c)?, (&one).into(), x.into())
}

/// `shape` with its last two axes replaced by `(rows, cols)`.
pub(super) fn with_core(batch: &[usize], rows: usize, cols: usize) -> Vec<usize> {
    let mut s = batch.to_vec();
    s.extend([rows, cols]);
    s
}

/// `b` as a stack of `(..., M, K)` matrices and whether it was vectors; `Value` unless its
/// rows match `n`.
pub(super) fn rhs_matrix(op: &str, a: &Array, b: &Array, vector: bool, n: usize) -> Result<Array> {
    let bm = if vector { b.expand_dims(-1)? } else { b.clone() };
    if bm.ndim() < 2 || bm.shape()[bm.ndim() - 2] != n {
        return Err(Error::value(op, format!("shapes of a {:?} and b {:?} are incompatible", a.shape(), b.shape())));
    }
    Ok(bm)
}

/// Pivots `1..=n` (no row swaps) for each of `batch` matrices, int32.
fn identity_pivots(dev: &Arc<dyn DynDevice>, batch: usize, n: usize) -> Result<Array> {
    let p = crate::with_device(dev, || crate::arange(1.0, n as f64 + 1.0, 1.0, Some(DType::I32)))?;
    p.broadcast_to(&[batch, n])?.copy()
}

/// `getrs` of the stack `packed` (`(..., N, N)`: a unit lower triangle below the diagonal, an
/// upper one on and above it) against `b` (`(..., N, K)`, the same batch axes), with the
/// given `ipiv` (`(batch, N)` int32, 1-based) or none: `U'^-1 L'^-1 P^T b` in `dtype`.
pub(super) fn getrs(packed: &Array, ipiv: Option<&Array>, b: &Array, dtype: DType) -> Result<Array> {
    let dev = packed.device_arc();
    let nd = b.ndim();
    let (n, k) = (b.shape()[nd - 2], b.shape()[nd - 1]);
    let batch = batch_of(b.shape());
    let x = column_major(b, dtype)?;
    if batch > 0 && n > 0 && k > 0 {
        let lu = column_major(packed, dtype)?;
        let ipiv = match ipiv {
            Some(p) => p.reshape(&[batch as isize, n as isize])?.astype(DType::I32)?.copy()?,
            None => identity_pivots(&dev, batch, n)?,
        };
        let info = statuses(&dev, batch)?;
        run(&dev, dtype, batch, SolverCall::Getrs { n, nrhs: k }, &[&lu, &ipiv, &x, &info])?;
    }
    swap_last(&x)
}

/// The packed matrix whose `getrs` sweeps solve `l u x = b` (module docs): `l` lower
/// triangular with a nonzero diagonal, `u` upper triangular; both `(..., N, N)`.
pub(super) fn pack_lower_upper(l: &Array, u: &Array) -> Result<Array> {
    let d = l.diagonal(0, -2, -1)?;
    let below = triangle(&l.div(&d.expand_dims(-2)?)?, -1, true)?;
    let above = triangle(&u.mul(&d.expand_dims(-1)?)?, 0, false)?;
    below.add(&above)
}

/// The permutation of a stack of LAPACK pivot lists: `ipiv` (`(..., K)` int32, 1-based, row
/// `i` swapped with row `ipiv[i] - 1` in turn) on matrices of `m >= K` rows, as `perm`
/// (`(..., M)` int64) with row `i` of `P^T A` being row `perm[i]` of `A`. Computed on the
/// device by `getrs` with an identity factor on the column `0, 1, ..., M-1`.
pub(super) fn perm_from_ipiv(ipiv: &Array, m: usize) -> Result<Array> {
    let dev = ipiv.device_arc();
    let k = ipiv.shape()[ipiv.ndim() - 1];
    let batch_shape = ipiv.shape()[..ipiv.ndim() - 1].to_vec();
    let batch: usize = batch_shape.iter().product();
    let mut full = ipiv.astype(DType::I32)?;
    if k < m {
        let tail = crate::with_device(&dev, || crate::arange(k as f64 + 1.0, m as f64 + 1.0, 1.0, Some(DType::I32)))?;
        let mut tshape = batch_shape.clone();
        tshape.push(m - k);
        full = crate::concatenate(&[&full, &tail.broadcast_to(&tshape)?], -1)?;
    }
    let eye = crate::with_device(&dev, || crate::eye(m, None, 0, DType::F64))?;
    let packed = eye.broadcast_to(&with_core(&batch_shape, m, m))?;
    let col = crate::with_device(&dev, || crate::arange(0.0, m as f64, 1.0, Some(DType::F64)))?
        .reshape(&[m as isize, 1])?
        .broadcast_to(&with_core(&batch_shape, m, 1))?;
    if batch == 0 || m == 0 {
        let mut shape = batch_shape;
        shape.push(m);
        return Array::empty_on(&dev, &shape, DType::I64);
    }
    let p = getrs(&packed, Some(&full), &col, DType::F64)?;
    p.squeeze(Some(&[-1]))?.rint()?.astype(DType::I64)
}

/// `Err(LinAlg)` naming the first zero on the diagonals of the stack `a` (one
/// synchronisation; the position is read only when there is one).
pub(super) fn check_diagonal(op: &str, a: &Array) -> Result<()> {
    let zero = a.diagonal(0, -2, -1)?.eq(0)?;
    if zero.size() == 0 || !zero.any(None, false)?.item::<bool>()? {
        return Ok(());
    }
    let n = zero.shape()[zero.ndim() - 1];
    let flags: Vec<bool> = zero.to_vec()?;
    let first = flags.iter().position(|&z| z).unwrap_or(0);
    let reason = if a.ndim() == 2 {
        format!("singular matrix: resolution failed at diagonal {}", first % n)
    } else {
        let batch_shape = &a.shape()[..a.ndim() - 2];
        format!(
            "singular matrix: resolution failed at diagonal {} of matrix {:?} of the stack of shape {:?}",
            first % n,
            super::solve::unravel(first / n, batch_shape),
            a.shape()
        )
    };
    Err(Error::LinAlg { op: op.into(), reason })
}

/// SciPy's `linalg.solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False)`: `x`
/// with `op(a) x = b`, `op` chosen by `trans`, reading only the `lower` (else upper) triangle
/// of `a`; with `unit_diagonal` the diagonal is taken to be ones and not read. `a` is
/// `(..., M, M)`, `b` `(M,)`, `(..., M)` (one axis fewer than `a`) or `(..., M, K)`; the answer
/// has `b`'s shape with the batch axes broadcast. A zero on the diagonal is `LinAlg`
/// ("singular matrix: resolution failed at diagonal i"), mismatched shapes `Value`.
pub fn solve_triangular(a: &Array, b: &Array, trans: Trans, lower: bool, unit_diagonal: bool) -> Result<Array> {
    let op = "solve_triangular";
    crate::exec::same_device(op, &[a, b])?;
    if a.ndim() < 2 || a.shape()[a.ndim() - 1] != a.shape()[a.ndim() - 2] {
        return Err(Error::value(op, format!("expected square matrix, got a of shape {:?}", a.shape())));
    }
    let n = a.shape()[a.ndim() - 1];
    let vector = b.ndim() == 1 || b.ndim() + 1 == a.ndim();
    let bm = rhs_matrix(op, a, b, vector, n)?;
    let dtype = common_solver_dtype(op, a.dtype(), b.dtype())?;
    let a = a.astype_if(dtype)?;
    let mut t = triangle(&a, 0, lower)?;
    if unit_diagonal {
        t = with_unit_diagonal(&t)?;
    } else {
        check_diagonal(op, &a)?;
    }
    let x = triangular_sweeps(&t, &bm, trans, lower, dtype)?;
    if vector {
        x.squeeze(Some(&[-1]))
    } else {
        Ok(x)
    }
}

/// `op(t)^-1 bm` for the triangular stack `t` (`lower` or upper, zeros elsewhere) and the
/// matrices `bm`, the batch axes broadcast; one `getrs` call (module docs).
pub(super) fn triangular_sweeps(t: &Array, bm: &Array, trans: Trans, lower: bool, dtype: DType) -> Result<Array> {
    let n = t.shape()[t.ndim() - 1];
    let k = bm.shape()[bm.ndim() - 1];
    let batch_shape =
        broadcast_shapes("solve_triangular", &[&t.shape()[..t.ndim() - 2], &bm.shape()[..bm.ndim() - 2]])?;
    let m = match trans {
        Trans::N => t.clone(),
        Trans::T => swap_last(t)?,
        Trans::C => adjoint(t)?,
    };
    let m = m.broadcast_to(&with_core(&batch_shape, n, n))?;
    let bm = bm.broadcast_to(&with_core(&batch_shape, n, k))?;
    if lower == (trans == Trans::N) {
        // Lower: reverse rows and columns to make it upper, and the rows of b and x.
        let flipped = crate::flip(&m, Some(&[-2, -1]))?;
        let x = getrs(&flipped, None, &crate::flip(&bm, Some(&[-2]))?, dtype)?;
        crate::flip(&x, Some(&[-2]))
    } else {
        getrs(&m, None, &bm, dtype)
    }
}
