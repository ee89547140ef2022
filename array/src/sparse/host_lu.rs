//! The sparse LU factorisation behind [`super::factor::splu`]: faer's sparse LU with partial
//! pivoting, on the host, in the matrix's dtype.
//!
//! **Orderings.** With [`ColumnOrdering::Colamd`] (SciPy's default `permc_spec`), faer orders
//! the columns by COLAMD (Davis, Gilbert, Larimore & Ng, 2004) and then chooses, from the flop
//! count its symbolic analysis predicts, a supernodal factorisation (dense partial-pivoting
//! panels, for matrices with much fill, such as 2-d and 3-d grids) or a simplicial one (the
//! left-looking sparse LU of Gilbert & Peierls, 1988, one column at a time). With
//! [`ColumnOrdering::Natural`] the columns keep their order and the factorisation is the
//! simplicial one, which is SciPy's `permc_spec="NATURAL"` factorisation (the largest
//! magnitude in each column is the pivot, SuperLU's threshold 1.0).
//!
//! **Factors.** A simplicial factorisation keeps `L` and `U` as compressed columns, which are
//! answered as they are. faer's supernodal storage does not expose its factors, so when a
//! supernodal factorisation is asked for `L`, `U`, `perm_r` or `nnz`, a simplicial one of the
//! same column ordering is computed once (and kept) and those come from it: both satisfy
//! `Pr A Pc = L U` with the same `Pc`, and they differ only where ties or rounding choose
//! another pivot. Solves always use the first factorisation.
//!
//! **Singularity.** A column without any candidate pivot is reported by faer; an exactly zero
//! pivot is found by looking at `U`'s diagonal (simplicial) or by solving for a right-hand
//! side of ones once and finding a value that is not finite (supernodal), which also catches
//! matrices holding infinities or NaNs. Both are SciPy's "Factor is exactly singular".

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::perm::PermRef;
use faer::sparse::linalg::lu::{self as flu, simplicial::SimplicialLu, LuRef, LuSymbolicParams, NumericLu, SymbolicLu};
use faer::sparse::linalg::LuError;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Conj, MatMut, Par};

use crate::linalg::Trans;

/// The fill-reducing column ordering of [`super::factor::splu`] (SciPy's `permc_spec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColumnOrdering {
    /// `"NATURAL"`: the columns in their order.
    Natural,
    /// `"COLAMD"` (SciPy's default): approximate minimum degree of the columns.
    #[default]
    Colamd,
}

impl std::str::FromStr for ColumnOrdering {
    type Err = xp_backend_api::Error;

    /// SciPy's names; `"MMD_ATA"` and `"MMD_AT_PLUS_A"` are not offered (a `Value` error).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "NATURAL" => Ok(ColumnOrdering::Natural),
            "COLAMD" => Ok(ColumnOrdering::Colamd),
            _ => Err(xp_backend_api::Error::value(
                "splu",
                format!("permc_spec must be 'NATURAL' or 'COLAMD', got '{s}'"),
            )),
        }
    }
}

/// Why a factorisation failed.
pub(crate) enum LuFailure {
    /// A zero or missing pivot.
    Singular,
    /// Memory, or an internal failure of the library, described.
    Other(String),
}

/// The value types factored here (faer's `ComplexField` for xp's four floating dtypes).
pub(crate) trait LuScalar: faer::traits::ComplexField + Copy + Send + Sync + std::fmt::Debug + 'static {
    /// `true` when the value is finite (both parts for complex values).
    fn finite(self) -> bool;
    /// `true` when the value is exactly zero.
    fn is_zero(self) -> bool;
    /// One.
    fn one() -> Self;
}

macro_rules! lu_scalar {
    ($t:ty, $fin:expr, $zero:expr, $one:expr) => {
        impl LuScalar for $t {
            fn finite(self) -> bool {
                #[allow(clippy::redundant_closure_call)]
                ($fin)(self)
            }
            fn is_zero(self) -> bool {
                #[allow(clippy::redundant_closure_call)]
                ($zero)(self)
            }
            fn one() -> Self {
                $one
            }
        }
    };
}
lu_scalar!(f32, |v: f32| v.is_finite(), |v: f32| v == 0.0, 1.0);
lu_scalar!(f64, |v: f64| v.is_finite(), |v: f64| v == 0.0, 1.0);
lu_scalar!(
    faer::c32,
    |v: faer::c32| v.re.is_finite() && v.im.is_finite(),
    |v: faer::c32| v.re == 0.0 && v.im == 0.0,
    faer::c32::new(1.0, 0.0)
);
lu_scalar!(
    faer::c64,
    |v: faer::c64| v.re.is_finite() && v.im.is_finite(),
    |v: faer::c64| v.re == 0.0 && v.im == 0.0,
    faer::c64::new(1.0, 0.0)
);

/// A simplicial factorisation with its permutations (faer's conventions: `(P A Q)[i, j] =
/// A[row_fwd[i], col_fwd[j]]`).
#[derive(Debug, Clone)]
pub(crate) struct Simplicial<T> {
    lu: SimplicialLu<usize, T>,
    row_fwd: Vec<usize>,
    row_inv: Vec<usize>,
    col_fwd: Vec<usize>,
    col_inv: Vec<usize>,
}

/// Compressed columns of a factor: `(col_ptr, row_idx, values)`, rows sorted in each column.
pub(crate) type Csc<T> = (Vec<usize>, Vec<usize>, Vec<T>);

#[derive(Debug, Clone)]
enum Kind<T> {
    /// The simplicial factorisation, which is also the one `L`, `U` come from.
    Simplicial,
    /// faer's choice after COLAMD (supernodal or simplicial), kept opaque.
    General { symbolic: Box<SymbolicLu<usize>>, numeric: Box<NumericLu<usize, T>> },
}

/// The sparse LU of an `n × n` matrix, on the host.
#[derive(Debug, Clone)]
pub(crate) struct HostLu<T> {
    n: usize,
    a: SparseColMat<usize, T>,
    kind: Kind<T>,
    simplicial: OnceLock<Result<Simplicial<T>, String>>,
}

fn par() -> Par {
    faer::get_global_parallelism()
}

fn buffer(req: faer::dyn_stack::StackReq) -> Result<MemBuffer, LuFailure> {
    MemBuffer::try_new(req).map_err(|_| LuFailure::Other("out of host memory for the LU workspace".into()))
}

/// Runs `f`, turning a panic inside the library into an error (no safe function of xp panics).
fn guarded<R>(what: &str, f: impl FnOnce() -> Result<R, LuFailure>) -> Result<R, LuFailure> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => Err(LuFailure::Other(format!("the sparse LU failed in {what}"))),
    }
}

fn map_lu_error(e: LuError) -> LuFailure {
    match e {
        LuError::SymbolicSingular { .. } => LuFailure::Singular,
        LuError::Generic(g) => LuFailure::Other(format!("{g:?}")),
    }
}

fn simplicial_factor<T: LuScalar>(a: &SparseColMat<usize, T>, col_fwd: Vec<usize>) -> Result<Simplicial<T>, LuFailure> {
    let n = a.nrows();
    let mut col_inv = vec![0usize; n];
    for (j, &c) in col_fwd.iter().enumerate() {
        col_inv[c] = j;
    }
    let mut row_fwd = vec![0usize; n];
    let mut row_inv = vec![0usize; n];
    let mut lu = SimplicialLu::<usize, T>::new();
    let mut mem = buffer(flu::simplicial::factorize_simplicial_numeric_lu_scratch::<usize, T>(n, n))?;
    let stack = MemStack::new(&mut mem);
    let col_perm = PermRef::new_checked(&col_fwd, &col_inv, n);
    flu::simplicial::factorize_simplicial_numeric_lu(&mut row_fwd, &mut row_inv, &mut lu, a.as_ref(), col_perm, stack)
        .map_err(map_lu_error)?;
    // The pivot is the last entry of each column of U.
    let u = lu.u_factor_unsorted();
    for j in 0..n {
        let range = u.col_range(j);
        if range.is_empty() || u.val()[range.end - 1].is_zero() {
            return Err(LuFailure::Singular);
        }
    }
    Ok(Simplicial { lu, row_fwd, row_inv, col_fwd, col_inv })
}

/// `(col_ptr, row_idx, values)` of a column-compressed factor, each column's rows sorted.
fn sorted_columns<T: LuScalar>(m: faer::sparse::SparseColMatRef<'_, usize, T>) -> Csc<T> {
    let n = m.ncols();
    let mut ptr = Vec::with_capacity(n + 1);
    ptr.push(0usize);
    let mut rows = Vec::with_capacity(m.compute_nnz());
    let mut vals = Vec::with_capacity(m.compute_nnz());
    let mut col: Vec<(usize, T)> = Vec::new();
    for j in 0..n {
        col.clear();
        col.extend(m.row_idx_of_col_raw(j).iter().copied().zip(m.val_of_col(j).iter().copied()));
        col.sort_unstable_by_key(|&(r, _)| r);
        for &(r, v) in &col {
            rows.push(r);
            vals.push(v);
        }
        ptr.push(rows.len());
    }
    (ptr, rows, vals)
}

impl<T: LuScalar> HostLu<T> {
    /// Factors the `n × n` matrix given by its CSR arrays (duplicates add).
    pub(crate) fn factor(
        n: usize,
        indptr: &[i64],
        indices: &[i64],
        data: &[T],
        ordering: ColumnOrdering,
    ) -> Result<Self, LuFailure> {
        guarded("the factorisation", || {
            let mut triplets = Vec::with_capacity(data.len());
            for r in 0..n {
                for p in indptr[r] as usize..indptr[r + 1] as usize {
                    triplets.push(Triplet::new(r, indices[p] as usize, data[p]));
                }
            }
            let a = SparseColMat::<usize, T>::try_new_from_triplets(n, n, &triplets)
                .map_err(|e| LuFailure::Other(format!("{e:?}")))?;
            drop(triplets);
            match ordering {
                ColumnOrdering::Natural => {
                    let s = simplicial_factor(&a, (0..n).collect())?;
                    let simplicial = OnceLock::new();
                    let _ = simplicial.set(Ok(s));
                    Ok(HostLu { n, a, kind: Kind::Simplicial, simplicial })
                }
                ColumnOrdering::Colamd => {
                    let symbolic = flu::factorize_symbolic_lu(a.symbolic(), LuSymbolicParams::default())
                        .map_err(|e| LuFailure::Other(format!("{e:?}")))?;
                    let mut numeric = NumericLu::<usize, T>::new();
                    let mut mem = buffer(symbolic.factorize_numeric_lu_scratch::<T>(par(), Default::default()))?;
                    symbolic
                        .factorize_numeric_lu(
                            &mut numeric,
                            a.as_ref(),
                            par(),
                            MemStack::new(&mut mem),
                            Default::default(),
                        )
                        .map_err(map_lu_error)?;
                    let kind = Kind::General { symbolic: Box::new(symbolic), numeric: Box::new(numeric) };
                    let lu = HostLu { n, a, kind, simplicial: OnceLock::new() };
                    // An exactly zero pivot makes the solve of any right-hand side non-finite.
                    let mut ones = vec![T::one(); n];
                    lu.solve_in_place(&mut ones, 1, Trans::N)?;
                    if ones.iter().any(|v| !v.finite()) {
                        return Err(LuFailure::Singular);
                    }
                    Ok(lu)
                }
            }
        })
    }

    /// The simplicial factorisation `L`, `U` and the permutations come from (see the module
    /// docs).
    fn simplicial(&self) -> Result<&Simplicial<T>, String> {
        let s = self.simplicial.get_or_init(|| {
            let col_fwd = match &self.kind {
                Kind::General { symbolic, .. } => symbolic.col_perm().arrays().0.to_vec(),
                Kind::Simplicial => (0..self.n).collect(),
            };
            guarded("the factorisation", || simplicial_factor(&self.a, col_fwd)).map_err(|e| match e {
                LuFailure::Singular => "Factor is exactly singular".to_string(),
                LuFailure::Other(s) => s,
            })
        });
        s.as_ref().map_err(|e| e.clone())
    }

    /// Solves `op(A) X = B` in place for `B` of `k` columns stored row-major (`n × k`).
    pub(crate) fn solve_in_place(&self, b: &mut [T], k: usize, trans: Trans) -> Result<(), LuFailure> {
        let n = self.n;
        if n == 0 || k == 0 {
            return Ok(());
        }
        guarded("a solve", || {
            let rhs = MatMut::from_row_major_slice_mut(b, n, k);
            let conj = if trans == Trans::C { Conj::Yes } else { Conj::No };
            match &self.kind {
                Kind::General { symbolic, numeric } => {
                    let req = symbolic.solve_in_place_scratch::<T>(k, par());
                    let mut mem = buffer(req)?;
                    let stack = MemStack::new(&mut mem);
                    let lu = LuRef::new_unchecked(symbolic, numeric);
                    match trans {
                        Trans::N => lu.solve_in_place_with_conj(conj, rhs, par(), stack),
                        _ => lu.solve_transpose_in_place_with_conj(conj, rhs, par(), stack),
                    }
                }
                Kind::Simplicial => {
                    let s = self.simplicial().map_err(LuFailure::Other)?;
                    let req = flu::simplicial::solve_in_place_scratch::<usize, T>(n, k, par());
                    let mut mem = buffer(req)?;
                    let stack = MemStack::new(&mut mem);
                    let rp = PermRef::new_checked(&s.row_fwd, &s.row_inv, n);
                    let cp = PermRef::new_checked(&s.col_fwd, &s.col_inv, n);
                    match trans {
                        Trans::N => s.lu.solve_in_place_with_conj(rp, cp, conj, rhs, par(), stack),
                        _ => s.lu.solve_transpose_in_place_with_conj(rp, cp, conj, rhs, par(), stack),
                    }
                }
            }
            Ok(())
        })
    }

    /// `L` (unit lower triangular, its ones stored) and `U`, as sorted compressed columns.
    pub(crate) fn factors(&self) -> Result<(Csc<T>, Csc<T>), String> {
        let s = self.simplicial()?;
        Ok((sorted_columns(s.lu.l_factor_unsorted()), sorted_columns(s.lu.u_factor_unsorted())))
    }

    /// SciPy's `perm_r` and `perm_c`: row `i` of `A` is row `perm_r[i]` of `Pr A`, and column
    /// `j` of `A` is column `perm_c[j]` of `A Pc`.
    pub(crate) fn perms(&self) -> Result<(Vec<usize>, Vec<usize>), String> {
        let s = self.simplicial()?;
        Ok((s.row_inv.clone(), s.col_inv.clone()))
    }

    /// The stored entries of `L` and `U` together.
    pub(crate) fn nnz(&self) -> Result<usize, String> {
        let s = self.simplicial()?;
        Ok(s.lu.l_factor_unsorted().compute_nnz() + s.lu.u_factor_unsorted().compute_nnz())
    }
}
