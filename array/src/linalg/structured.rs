//! SciPy's `linalg.solve` with its `assume_a`, `lower` and `transposed` arguments, as
//! [`solve_with`] beside NumPy's [`solve`](super::solve()) (which keeps NumPy's signature), and
//! SciPy's `linalg.bandwidth`.
//!
//! - **Structures.** `General` (and `Banded`, `Tridiagonal`: the band of `a`) are solved by LU
//!   with partial pivoting (`getrf`, `getrs`; LAPACK's `gbsv`/`gtsv` pivot the same way),
//!   `Symmetric` and `Hermitian` by LU of the full matrix built from the `lower` (else upper)
//!   triangle (the contract has no `sytrf`; the answer is the same up to rounding),
//!   `PositiveDefinite` by Cholesky (`potrf`) on that triangle, `Diagonal` by a division,
//!   `UpperTriangular` and `LowerTriangular` by one triangular sweep (see
//!   [`solve_triangular`](super::solve_triangular)).
//! - **Detection** (`assume_a: None`, SciPy 1.17's default): the bandwidth of the stack (the
//!   largest over its matrices) picks `Diagonal`, `UpperTriangular`, `LowerTriangular` or
//!   `Tridiagonal`; otherwise a Hermitian (real: symmetric) stack is tried with Cholesky and,
//!   when that fails, everything is solved as `General`. The checks read a few scalars (one
//!   synchronisation each); SciPy checks each matrix of a stack on its own, xp the stack as one.
//! - **`transposed`** solves `a^T x = b`. SciPy raises `NotImplementedError` for complex `a`;
//!   xp solves it.
//! - **Failures.** An exactly singular matrix (a zero pivot, a zero on a triangular or
//!   diagonal matrix's diagonal) or, with `PositiveDefinite`, one that is not positive definite
//!   is `LinAlg`; mismatched shapes, a non-square `a` and an unknown structure name are
//!   `Value`. SciPy's warning for an ill-conditioned `a` has no counterpart.

use std::str::FromStr;

use xp_backend_api::{DType, Error, Result};

use crate::Array;

use super::solve::{adjoint, common_solver_dtype, swap_last, triangle};
use super::triangular::{check_diagonal, grid, rhs_matrix, triangular_sweeps, Trans};

/// SciPy's `assume_a` of `linalg.solve`: the structure of `a` that picks the solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssumeA {
    /// `"general"` / `"gen"`: LU with partial pivoting.
    General,
    /// `"symmetric"` / `"sym"`: read from one triangle (`lower`).
    Symmetric,
    /// `"hermitian"` / `"her"`: read from one triangle (`lower`), its diagonal real.
    Hermitian,
    /// `"positive definite"` / `"pos"`: Hermitian positive definite, read from one triangle.
    PositiveDefinite,
    /// `"diagonal"`: only the diagonal is read.
    Diagonal,
    /// `"tridiagonal"`: only the three middle diagonals are read.
    Tridiagonal,
    /// `"banded"`: the whole band (solved as general).
    Banded,
    /// `"upper triangular"`: only the upper triangle is read.
    UpperTriangular,
    /// `"lower triangular"`: only the lower triangle is read.
    LowerTriangular,
}

impl FromStr for AssumeA {
    type Err = Error;
    /// SciPy's names (`"gen"`, `"general"`, `"sym"`, `"symmetric"`, `"her"`, `"hermitian"`,
    /// `"pos"`, `"positive definite"`, `"diagonal"`, `"tridiagonal"`, `"banded"`,
    /// `"upper triangular"`, `"lower triangular"`); others are a `Value` error.
    fn from_str(s: &str) -> Result<AssumeA> {
        Ok(match s {
            "gen" | "general" => AssumeA::General,
            "sym" | "symmetric" => AssumeA::Symmetric,
            "her" | "hermitian" => AssumeA::Hermitian,
            "pos" | "positive definite" => AssumeA::PositiveDefinite,
            "diagonal" => AssumeA::Diagonal,
            "tridiagonal" => AssumeA::Tridiagonal,
            "banded" => AssumeA::Banded,
            "upper triangular" => AssumeA::UpperTriangular,
            "lower triangular" => AssumeA::LowerTriangular,
            other => return Err(Error::value("solve", format!("{other} is not a recognized matrix structure"))),
        })
    }
}

/// SciPy's keyword arguments of `linalg.solve`; `SolveOptions::default()` is SciPy's default
/// (structure detected, upper triangle, not transposed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SolveOptions {
    /// `assume_a`; `None` detects the structure (module docs).
    pub assume_a: Option<AssumeA>,
    /// Read `Symmetric`, `Hermitian` and `PositiveDefinite` matrices from the lower triangle
    /// (else the upper one).
    pub lower: bool,
    /// Solve `a^T x = b`.
    pub transposed: bool,
}

/// SciPy's `linalg.solve(a, b, lower=False, assume_a=None, transposed=False)`: `x` with
/// `a x = b` (`a^T x = b` with `transposed`) for a stack of square `(..., N, N)` matrices, the
/// solver chosen by `opts.assume_a` (module docs). `b` is `(N,)` (the answer is then 1-d) or
/// `(..., N, K)`, the batch axes broadcast. float32 and complex64 stay in their precision,
/// integers and bool become float64.
pub fn solve_with(a: &Array, b: &Array, opts: &SolveOptions) -> Result<Array> {
    let op = "solve";
    crate::exec::same_device(op, &[a, b])?;
    let nd = a.ndim();
    if nd < 2 {
        return Err(Error::value(op, format!("Expected at least ndim=2, got a of shape {:?}", a.shape())));
    }
    let n = a.shape()[nd - 1];
    if a.shape()[nd - 2] != n {
        return Err(Error::value(op, format!("Expected square matrix, got a of shape {:?}", a.shape())));
    }
    let vector = b.ndim() == 1;
    let bm = rhs_matrix(op, a, b, vector, n).map_err(|_| {
        Error::value(op, format!("incompatible shapes: a of shape {:?} and b of shape {:?}", a.shape(), b.shape()))
    })?;
    let dtype = common_solver_dtype(op, a.dtype(), b.dtype())?;
    let a = a.astype_if(dtype)?;
    let bm = bm.astype_if(dtype)?;
    let structure = match opts.assume_a {
        Some(s) => s,
        None => detect(&a)?,
    };
    let x = solve_structured(op, &a, &bm, structure, opts, dtype)?;
    if vector {
        x.squeeze(Some(&[-1]))
    } else {
        Ok(x)
    }
}

/// The structure SciPy's `assume_a=None` would pick (module docs).
fn detect(a: &Array) -> Result<AssumeA> {
    let (lo, up) = bandwidth(a)?;
    let bands: Vec<i64> = crate::stack(&[&lo.max(None, false)?, &up.max(None, false)?], 0)?.to_vec()?;
    Ok(match (bands[0], bands[1]) {
        (0, 0) => AssumeA::Diagonal,
        (0, _) => AssumeA::UpperTriangular,
        (_, 0) => AssumeA::LowerTriangular,
        (1, 1) => AssumeA::Tridiagonal,
        _ if a.eq(&adjoint(a)?)?.all(None, false)?.item::<bool>()? => AssumeA::PositiveDefinite,
        _ => AssumeA::General,
    })
}

/// LU solve of `m x = bm` with SciPy's singular-matrix error.
fn lu_solve_full(op: &str, m: &Array, bm: &Array) -> Result<Array> {
    super::solve::solve(m, bm).map_err(|e| match e {
        Error::LinAlg { reason, .. } => {
            Error::LinAlg { op: op.into(), reason: format!("A singular matrix detected: {reason}") }
        }
        other => other,
    })
}

fn solve_structured(op: &str, a: &Array, bm: &Array, s: AssumeA, opts: &SolveOptions, dtype: DType) -> Result<Array> {
    let t = |m: &Array| if opts.transposed { swap_last(m) } else { Ok(m.clone()) };
    let lower = opts.lower;
    match s {
        AssumeA::General | AssumeA::Banded => lu_solve_full(op, &t(a)?, bm),
        AssumeA::Tridiagonal => {
            let band = triangle(&triangle(a, 1, true)?, -1, false)?;
            lu_solve_full(op, &t(&band)?, bm)
        }
        AssumeA::Symmetric | AssumeA::Hermitian => {
            let tri = triangle(a, 0, lower)?;
            let strict = triangle(a, if lower { -1 } else { 1 }, lower)?;
            let full = if s == AssumeA::Hermitian && dtype.is_complex() {
                // The diagonal's imaginary parts are not read (LAPACK's hetrf).
                let d = a.diagonal(0, -2, -1)?.real().astype(dtype)?;
                let nn = a.shape()[a.ndim() - 1];
                let (r, c) = grid(&a.device_arc(), nn, nn)?;
                let diag = crate::where_(
                    &r.eq(&c)?,
                    (&d.expand_dims(-2)?).into(),
                    (&Array::scalar_on(&a.device_arc(), 0, dtype)?).into(),
                )?;
                strict.add(&adjoint(&strict)?)?.add(&diag)?
            } else {
                tri.add(&swap_last(&strict)?)?
            };
            lu_solve_full(op, &t(&full)?, bm)
        }
        AssumeA::PositiveDefinite => {
            let chol = super::lu::cho_factor(a, lower);
            match chol {
                Ok((c, low)) => {
                    // a^T = conj(a) for a Hermitian a.
                    let x = if opts.transposed && dtype.is_complex() {
                        super::lu::cho_solve((&c, low), &bm.conj()?)?.conj()?
                    } else {
                        super::lu::cho_solve((&c, low), bm)?
                    };
                    Ok(x)
                }
                Err(Error::LinAlg { reason, .. }) if opts.assume_a.is_some() => Err(Error::LinAlg {
                    op: op.into(),
                    reason: format!("A singular matrix detected (the matrix is not positive definite: {reason})"),
                }),
                // Detected as Hermitian but not positive definite: solve it as general.
                Err(Error::LinAlg { .. }) => lu_solve_full(op, &t(a)?, bm),
                Err(e) => Err(e),
            }
        }
        AssumeA::Diagonal => {
            let rename = |e: Error| match e {
                Error::LinAlg { reason, .. } => {
                    Error::LinAlg { op: op.into(), reason: format!("A singular matrix detected: {reason}") }
                }
                other => other,
            };
            check_diagonal(op, a).map_err(rename)?;
            bm.div(&a.diagonal(0, -2, -1)?.expand_dims(-1)?)
        }
        AssumeA::UpperTriangular | AssumeA::LowerTriangular => {
            let low = s == AssumeA::LowerTriangular;
            check_diagonal(op, a).map_err(|e| match e {
                Error::LinAlg { reason, .. } => {
                    Error::LinAlg { op: op.into(), reason: format!("A singular matrix detected: {reason}") }
                }
                other => other,
            })?;
            let tri = triangle(a, 0, low)?;
            let trans = if opts.transposed { Trans::T } else { Trans::N };
            triangular_sweeps(&tri, bm, trans, low, dtype)
        }
    }
}

/// SciPy's `linalg.bandwidth(a)`: `(lower, upper)`, the lower and upper bandwidths of each
/// matrix of the stack `a` (`(..., M, N)`): the largest `i - j` (`j - i`) over its nonzero
/// entries, 0 when there is none. int64 arrays of the batch shape (0-d for one matrix), so that
/// nothing is read by the host; `.item::<i64>()` gives SciPy's ints. `a` of fewer than two
/// dimensions is `Value`.
pub fn bandwidth(a: &Array) -> Result<(Array, Array)> {
    let op = "bandwidth";
    let nd = a.ndim();
    if nd < 2 {
        return Err(Error::value(op, format!("Input array must be at least 2-D, got shape {:?}", a.shape())));
    }
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let dev = a.device_arc();
    if m == 0 || n == 0 {
        let batch = &a.shape()[..nd - 2];
        return Ok((Array::full_on(&dev, batch, 0, DType::I64)?, Array::full_on(&dev, batch, 0, DType::I64)?));
    }
    let (r, c) = grid(&dev, m, n)?;
    let diff = r.sub(&c)?;
    let nz = a.ne(0)?;
    let zero = Array::scalar_on(&dev, 0, DType::I64)?;
    let lower = crate::where_(&nz, (&diff).into(), (&zero).into())?.max(Some(&[-2, -1]), false)?.maximum(0)?;
    let upper =
        crate::where_(&nz, (&diff.negative()?).into(), (&zero).into())?.max(Some(&[-2, -1]), false)?.maximum(0)?;
    Ok((lower, upper))
}
