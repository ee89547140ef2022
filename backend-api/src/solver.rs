//! The dense solver family of the contract (ARCHITECTURE.md §2.5): a device hands out its [`Solver`]
//! (cuSOLVER on CUDA, rocSOLVER on HIP, `faer` on the CPU), whose calls are LAPACK's
//! factorisations, each on a batch of matrices, which `xp::linalg` composes into NumPy's
//! `solve`, `inv`, `det`, `cholesky`, `qr`, `svd`, `eigh`, `eig` …
//!
//! **Layout.** Every matrix is column-major (LAPACK's, and the vendor libraries') and dense:
//! element `(i, j)` of matrix `b` of an `m × n` operand is at `b * m * n + i + j * m` elements
//! from the operand's offset. The array layer makes these copies (a C-ordered copy of the
//! transposed matrix), which the factorisations overwrite anyway.
//!
//! **Status.** Every call writes one `int32` per matrix to its `info` operand, LAPACK's
//! convention: 0 for success, `i > 0` when matrix `b` is singular (`getrf`: `U[i-1, i-1]` is
//! exactly 0), not positive definite (`potrf`: the leading minor of order `i`) or did not
//! converge (`gesvd`, `syevd`, `geev`). The array layer reads the statuses of a call with one
//! synchronisation and names the first failing matrix; a bad argument is an `Err` before
//! anything is queued.

use std::sync::Arc;

use crate::{Buffer, DType, Error, Result, Stream};

/// What `gesvd` computes besides the singular values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvdJob {
    /// The singular values only (`u` and `vt` are empty).
    ValuesOnly,
    /// `U` as `m × k` and `V^H` as `k × n`, `k = min(m, n)` (NumPy's `full_matrices=False`).
    Reduced,
    /// `U` as `m × m` and `V^H` as `n × n`.
    Full,
}

/// One LAPACK call, on every matrix of a batch. The operands, in the order a backend takes
/// them, are those of [`SolverDesc::operands`]. The sizes (`m` rows, `n` columns, `nrhs`
/// right-hand sides, `qcols` columns of `Q`) are named as LAPACK names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // the fields are the LAPACK sizes named in each variant's text
pub enum SolverCall {
    /// LU with partial pivoting, in place: `a` (`n × n`) holds `L` (unit, strictly below the
    /// diagonal) and `U`; `ipiv` (`n` int32, 1-based) the row swaps in order, LAPACK's.
    /// Operands: `a`, `ipiv`, `info`.
    Getrf { n: usize },
    /// Solve `A X = B` with `getrf`'s factors: `b` (`n × nrhs`) becomes `X`.
    /// Operands: `a`, `ipiv` (read), `b`, `info`.
    Getrs { n: usize, nrhs: usize },
    /// The inverse from `getrf`'s factors, out of place: `c` (`n × n`) becomes `A^-1`.
    /// Operands: `a`, `ipiv` (read), `c`, `info`. Not every library has it
    /// ([`Solver::supports`]); the array layer otherwise solves against the identity.
    Getri { n: usize },
    /// Cholesky, in place: the `lower` (else upper) triangle of `a` (`n × n`) becomes `L`
    /// (`U`); the other triangle is left as it was. Operands: `a`, `info`.
    Potrf { n: usize, lower: bool },
    /// QR of `a` (`m × n`), `k = min(m, n)`: `a`'s upper triangle (its first `k` rows) becomes
    /// `R`; `q` (`m × qcols`, `k <= qcols <= m`) receives the first `qcols` columns of `Q`.
    /// `qcols = 0` computes `R` only. Operands: `a`, `q`, `info`.
    Qr { m: usize, n: usize, qcols: usize },
    /// SVD of `a` (`m × n`, destroyed): `s` (`min(m, n)`, real, nonincreasing), and by `job`
    /// `u` and `vt` (`V^H`). Operands: `a`, `s`, `u`, `vt`, `info`.
    Gesvd { m: usize, n: usize, job: SvdJob },
    /// Eigenvalues (`w`, `n`, real, ascending) of the Hermitian `a` (`n × n`) read from its
    /// `lower` (else upper) triangle; with `vectors`, `a` becomes the orthonormal eigenvectors
    /// (columns). Operands: `a`, `w`, `info`.
    Syevd { n: usize, lower: bool, vectors: bool },
    /// Eigenvalues (`w`, `n`, complex) of the general `a` (`n × n`, destroyed); with
    /// `vectors`, `v` (`n × n`, complex) the right eigenvectors as columns, each of unit norm.
    /// Operands: `a`, `w`, `v`, `info`.
    Geev { n: usize, vectors: bool },
}

/// A [`SolverCall`] of one dtype on `batch` matrices stored one after another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SolverDesc {
    /// float32, float64, complex64 or complex128.
    pub dtype: DType,
    /// Matrices in the batch.
    pub batch: usize,
    /// The call.
    pub call: SolverCall,
}

/// One operand of a call: its name, element dtype, elements per matrix, whether it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperandSpec {
    /// `a`, `ipiv`, `info` …
    pub name: &'static str,
    /// Its element dtype.
    pub dtype: DType,
    /// Elements per matrix of the batch.
    pub per_matrix: usize,
    /// Whether the call writes it.
    pub written: bool,
}

/// The real dtype of `dtype`'s components (float32 for complex64).
pub fn real_of(dtype: DType) -> DType {
    match dtype {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        d => d,
    }
}

/// The complex dtype with `dtype`'s precision (complex64 for float32).
pub fn complex_of(dtype: DType) -> DType {
    match dtype {
        DType::F32 | DType::C64 => DType::C64,
        _ => DType::C128,
    }
}

/// Whether the solvers take `dtype`: float32, float64, complex64, complex128 (the array
/// layer converts the others, as NumPy does).
pub fn solver_supports(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::F64 | DType::C64 | DType::C128)
}

impl SolverDesc {
    /// The operands the call takes, in order.
    pub fn operands(&self) -> Vec<OperandSpec> {
        let (t, r, c) = (self.dtype, real_of(self.dtype), complex_of(self.dtype));
        let spec = |name, dtype, per_matrix, written| OperandSpec { name, dtype, per_matrix, written };
        let info = spec("info", DType::I32, 1, true);
        match self.call {
            SolverCall::Getrf { n } => vec![spec("a", t, n * n, true), spec("ipiv", DType::I32, n, true), info],
            SolverCall::Getrs { n, nrhs } => {
                vec![spec("a", t, n * n, false), spec("ipiv", DType::I32, n, false), spec("b", t, n * nrhs, true), info]
            }
            SolverCall::Getri { n } => {
                vec![spec("a", t, n * n, false), spec("ipiv", DType::I32, n, false), spec("c", t, n * n, true), info]
            }
            SolverCall::Potrf { n, .. } => vec![spec("a", t, n * n, true), info],
            SolverCall::Qr { m, n, qcols } => vec![spec("a", t, m * n, true), spec("q", t, m * qcols, true), info],
            SolverCall::Gesvd { m, n, job } => {
                let k = m.min(n);
                let (uc, vr) = match job {
                    SvdJob::ValuesOnly => (0, 0),
                    SvdJob::Reduced => (k, k),
                    SvdJob::Full => (m, n),
                };
                vec![
                    spec("a", t, m * n, true),
                    spec("s", r, k, true),
                    spec("u", t, m * uc, true),
                    spec("vt", t, vr * n, true),
                    info,
                ]
            }
            SolverCall::Syevd { n, .. } => vec![spec("a", t, n * n, true), spec("w", r, n, true), info],
            SolverCall::Geev { n, vectors } => vec![
                spec("a", t, n * n, true),
                spec("w", c, n, true),
                spec("v", c, if vectors { n * n } else { 0 }, true),
                info,
            ],
        }
    }

    /// The LAPACK name of the call for `dtype`, as messages show it (`sgetrf`, `zheevd`).
    pub fn lapack_name(&self) -> String {
        let p = match self.dtype {
            DType::F32 => "s",
            DType::F64 => "d",
            DType::C64 => "c",
            _ => "z",
        };
        let cplx = self.dtype.is_complex();
        let name = match self.call {
            SolverCall::Getrf { .. } => "getrf",
            SolverCall::Getrs { .. } => "getrs",
            SolverCall::Getri { .. } => "getri",
            SolverCall::Potrf { .. } => "potrf",
            SolverCall::Qr { .. } => "geqrf",
            SolverCall::Gesvd { .. } => "gesvd",
            SolverCall::Syevd { .. } if cplx => "heevd",
            SolverCall::Syevd { .. } => "syevd",
            SolverCall::Geev { .. } => "geev",
        };
        format!("{p}{name}")
    }

    /// `Ok` when the dtype is one the solvers take and the sizes hold together (`op` names the
    /// caller in the error).
    pub fn check(&self, op: &str) -> Result<()> {
        if !solver_supports(self.dtype) {
            return Err(Error::UnsupportedDType {
                op: op.into(),
                dtypes: vec![self.dtype],
                detail: "the solvers take float32, float64, complex64 and complex128".into(),
            });
        }
        if let SolverCall::Qr { m, n, qcols } = self.call {
            if qcols != 0 && (qcols < m.min(n) || qcols > m) {
                return Err(Error::value(op, format!("Q of {qcols} columns for a {m} x {n} matrix")));
            }
        }
        let big = self.operands().iter().map(|o| o.per_matrix).max().unwrap_or(0);
        if big.checked_mul(self.batch).is_none_or(|v| v > i64::MAX as usize) {
            return Err(Error::value(op, format!("a batch of {} matrices of {big} elements is too large", self.batch)));
        }
        Ok(())
    }

    /// Elements of each operand for the whole batch, in order.
    pub fn spans(&self) -> Vec<usize> {
        self.operands().iter().map(|o| o.per_matrix * self.batch).collect()
    }
}

/// A device's dense solvers.
pub trait Solver: Send + Sync {
    /// The library and its version, e.g. `cuSOLVER 12.0.3` or `faer 0.24`.
    fn name(&self) -> String;
    /// Whether the library has `call` for `dtype` (a general eigensolver is not everywhere).
    fn supports(&self, dtype: DType, call: &SolverCall) -> bool;
    /// Queue `desc` on `stream`: one `(buffer, byte offset)` per operand of
    /// [`SolverDesc::operands`], in order. Statuses go to the `info` operand (module docs).
    fn run(&self, stream: &Arc<dyn Stream>, desc: &SolverDesc, operands: &[(&Buffer, usize)]) -> Result<()>;
}

/// `Err` unless `operands` has one entry per operand of `desc` (`op` names the library call).
pub fn check_operand_count(op: &str, desc: &SolverDesc, operands: &[(&Buffer, usize)]) -> Result<()> {
    let want = desc.operands().len();
    if operands.len() != want {
        return Err(Error::value(op, format!("{} operands given, the call takes {want}", operands.len())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_follow_the_call() {
        let d = SolverDesc { dtype: DType::C64, batch: 3, call: SolverCall::Gesvd { m: 5, n: 3, job: SvdJob::Full } };
        let ops = d.operands();
        let names: Vec<_> = ops.iter().map(|o| o.name).collect();
        assert_eq!(names, ["a", "s", "u", "vt", "info"]);
        assert_eq!(ops[1].dtype, DType::F32);
        assert_eq!(d.spans(), [45, 9, 75, 27, 3]);
        let r = SolverDesc { call: SolverCall::Gesvd { m: 5, n: 3, job: SvdJob::Reduced }, ..d };
        assert_eq!(r.spans(), [45, 9, 45, 27, 3]);
        let g = SolverDesc { dtype: DType::F64, batch: 2, call: SolverCall::Geev { n: 4, vectors: false } };
        assert_eq!(g.operands()[1].dtype, DType::C128);
        assert_eq!(g.spans(), [32, 8, 0, 2]);
        assert_eq!(g.lapack_name(), "dgeev");
        let h =
            SolverDesc { dtype: DType::C128, batch: 1, call: SolverCall::Syevd { n: 2, lower: true, vectors: true } };
        assert_eq!(h.lapack_name(), "zheevd");
        let i = SolverDesc { dtype: DType::F32, batch: 2, call: SolverCall::Getri { n: 3 } };
        assert_eq!((i.spans(), i.lapack_name()), (vec![18, 6, 18, 2], "sgetri".to_string()));
        assert!(!i.operands()[0].written && !i.operands()[1].written && i.operands()[2].written);
        let s = SolverDesc { dtype: DType::F32, batch: 1, call: SolverCall::Getrs { n: 4, nrhs: 2 } };
        assert!(!s.operands()[0].written && !s.operands()[1].written && s.operands()[2].written);
    }

    #[test]
    fn bad_descriptions_are_refused() {
        let d = SolverDesc { dtype: DType::F16, batch: 1, call: SolverCall::Getrf { n: 2 } };
        assert!(matches!(d.check("t"), Err(Error::UnsupportedDType { .. })));
        let q = SolverDesc { dtype: DType::F32, batch: 1, call: SolverCall::Qr { m: 4, n: 3, qcols: 2 } };
        assert!(matches!(q.check("t"), Err(Error::Value { .. })));
        assert!(SolverDesc { call: SolverCall::Qr { m: 4, n: 3, qcols: 4 }, ..q }.check("t").is_ok());
        assert!(SolverDesc { call: SolverCall::Qr { m: 4, n: 3, qcols: 0 }, ..q }.check("t").is_ok());
        let huge = SolverDesc { dtype: DType::F32, batch: usize::MAX / 2, call: SolverCall::Getrf { n: 4 } };
        assert!(matches!(huge.check("t"), Err(Error::Value { .. })));
    }
}
