//! The `sparse_linalg` group: SciPy's sparse.linalg, csgraph and sparse construction, by name.

use super::*;
use xp::sparse::{self, CsrMatrix};

/// The ops of this file (`sparse.` stripped); the others go on to `run_sparse`.
const OPS: &[&str] = &[
    "linalg.spsolve",
    "linalg.spsolve_triangular",
    "linalg.cg",
    "linalg.cgs",
    "linalg.bicgstab",
    "linalg.gmres",
    "linalg.minres",
    "linalg.lsqr",
    "linalg.lsmr",
    "linalg.eigsh",
    "linalg.svds",
    "linalg.norm",
    "linalg.matrix_power",
    "csgraph.connected_components_n",
    "csgraph.connected_components_labels",
    "kron",
    "hstack",
    "vstack",
    "block_diag",
    "tril",
    "triu",
    "diags",
    "csr_getrow_slice",
    "csr_column_index",
    "max",
    "min",
    "argmax",
    "argmin",
    "mean",
];

/// Runs `sparse.<f>` of one case when it is one of this file's ops (`None` otherwise).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    OPS.contains(&f).then(|| answer(case, f, arrays))
}

fn pair(v: &Value) -> Option<(usize, usize)> {
    usizes(v).filter(|s| s.len() == 2).map(|s| (s[0], s[1]))
}

/// `shape` of the case's one sparse operand.
fn shape_kwarg(case: &Case) -> Result<(usize, usize), Failure> {
    case.kwarg("shape").and_then(pair).ok_or_else(|| Failure::Case(format!("{}: no shape", case.op)))
}

/// The CSR operand made of inputs `k`, `k + 1`, `k + 2` (data, indices, indptr).
fn csr_at(case: &Case, arrays: &[Array], k: usize, shape: (usize, usize)) -> Result<CsrMatrix, Failure> {
    Ok(sparse::csr_matrix(nth(case, arrays, k)?, nth(case, arrays, k + 1)?, nth(case, arrays, k + 2)?, Some(shape))?)
}

/// Every sparse operand of a case with kwarg `shapes`.
fn csr_list(case: &Case, arrays: &[Array]) -> Result<Vec<CsrMatrix>, Failure> {
    let shapes = case
        .kwarg("shapes")
        .and_then(Value::as_array)
        .ok_or_else(|| Failure::Case(format!("{}: no shapes", case.op)))?;
    shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let s = pair(s).ok_or_else(|| Failure::Case(format!("{}: shape {s} is not a pair", case.op)))?;
            csr_at(case, arrays, 3 * i, s)
        })
        .collect()
}

fn refs(v: &[CsrMatrix]) -> Vec<&CsrMatrix> {
    v.iter().collect()
}

fn opt_f64(case: &Case, key: &str) -> Result<Option<f64>, Failure> {
    case.kwarg(key).map(|_| f64_kwarg(case, key)).transpose()
}

fn opt_isize(case: &Case, key: &str) -> Result<Option<isize>, Failure> {
    Ok(int_kwarg(case, key)?.map(|v| v as isize))
}

fn str_kwarg<'a>(case: &'a Case, key: &str) -> Option<&'a str> {
    case.kwarg(key).and_then(Value::as_str)
}

fn answer(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use sparse::linalg as sla;
    let one = || -> Result<CsrMatrix, Failure> { csr_at(case, arrays, 0, shape_kwarg(case)?) };
    let rhs = || nth(case, arrays, 3);
    let solver = || sla::SolverOptions { rtol: opt_f64(case, "rtol").ok().flatten(), ..Default::default() };
    let lsq = || -> Result<sla::LeastSquaresOptions<'static>, Failure> {
        Ok(sla::LeastSquaresOptions {
            atol: opt_f64(case, "atol")?,
            btol: opt_f64(case, "btol")?,
            ..Default::default()
        })
    };
    let k = || -> Result<usize, Failure> {
        int_kwarg(case, "k")?.map(|v| v as usize).ok_or_else(|| Failure::Case(format!("{}: no k", case.op)))
    };
    let eig = || -> Result<sla::EigshOptions<'static>, Failure> {
        let which = str_kwarg(case, "which").unwrap_or("LM").parse()?;
        Ok(sla::EigshOptions { which, ..Default::default() })
    };
    Ok(match f {
        "linalg.spsolve" => sla::spsolve(&one()?, rhs()?)?,
        "linalg.spsolve_triangular" => sla::spsolve_triangular(
            &one()?,
            rhs()?,
            bool_kwarg(case, "lower", true)?,
            bool_kwarg(case, "unit_diagonal", false)?,
        )?,
        "linalg.cg" => sla::cg(&one()?, rhs()?, &solver())?.0,
        "linalg.cgs" => sla::cgs(&one()?, rhs()?, &solver())?.0,
        "linalg.bicgstab" => sla::bicgstab(&one()?, rhs()?, &solver())?.0,
        "linalg.gmres" => {
            let restart = int_kwarg(case, "restart")?.map(|v| v as usize);
            sla::gmres(&one()?, rhs()?, restart, &solver())?.0
        }
        "linalg.minres" => sla::minres(&one()?, rhs()?, &solver())?.0,
        "linalg.lsqr" => sla::lsqr(&one()?, rhs()?, &lsq()?)?.x,
        "linalg.lsmr" => sla::lsmr(&one()?, rhs()?, &lsq()?)?.x,
        "linalg.eigsh" => sla::eigsh(&one()?, k()?, &eig()?)?.0,
        "linalg.svds" => sla::svds(&one()?, k()?, &eig()?)?.1,
        "linalg.norm" => {
            let ord = match case.kwarg("ord") {
                None => None,
                Some(v) => Some(match v.as_str() {
                    Some(s) => s.parse()?,
                    None => sla::SparseNormOrd::P(
                        v.as_f64().ok_or_else(|| Failure::Case(format!("norm: ord {v} is not understood")))?,
                    ),
                }),
            };
            sla::norm(&one()?, ord, axis_kwarg(case)?)?
        }
        "linalg.matrix_power" => {
            let p = int_kwarg(case, "power")?.ok_or_else(|| Failure::Case("matrix_power: no power".into()))?;
            sla::matrix_power(&one()?, p)?.toarray()?
        }
        "csgraph.connected_components_n" | "csgraph.connected_components_labels" => {
            let directed = bool_kwarg(case, "directed", true)?;
            let connection = str_kwarg(case, "connection").unwrap_or("weak").parse()?;
            let (n, labels) = sparse::csgraph::connected_components(&one()?, directed, connection)?;
            if f.ends_with("_n") {
                Array::from_slice(&[n as i64], &[])?
            } else {
                labels
            }
        }
        "kron" => {
            let m = csr_list(case, arrays)?;
            let [a, b] = m.as_slice() else { return Err(Failure::Case("kron: needs two operands".into())) };
            sparse::kron(a, b)?.toarray()?
        }
        "hstack" => sparse::hstack(&refs(&csr_list(case, arrays)?))?.toarray()?,
        "vstack" => sparse::vstack(&refs(&csr_list(case, arrays)?))?.toarray()?,
        "block_diag" => sparse::block_diag(&refs(&csr_list(case, arrays)?))?.toarray()?,
        "tril" => sparse::tril(&one()?, opt_isize(case, "k")?.unwrap_or(0))?.toarray()?,
        "triu" => sparse::triu(&one()?, opt_isize(case, "k")?.unwrap_or(0))?.toarray()?,
        "diags" => {
            let offsets =
                case.kwarg("offsets").and_then(isizes).ok_or_else(|| Failure::Case("diags: no offsets".into()))?;
            let shape = case.kwarg("shape").and_then(pair);
            sparse::diags(&arrays.iter().collect::<Vec<_>>(), &offsets, shape, None)?.toarray()?
        }
        "csr_getrow_slice" => one()?
            .slice_rows(opt_isize(case, "start")?, opt_isize(case, "stop")?, opt_isize(case, "step")?)?
            .toarray()?,
        "csr_column_index" => one()?.take_cols(rhs()?)?.toarray()?,
        "max" => one()?.max(axis_kwarg(case)?)?,
        "min" => one()?.min(axis_kwarg(case)?)?,
        "argmax" => one()?.argmax(axis_kwarg(case)?)?,
        "argmin" => one()?.argmin(axis_kwarg(case)?)?,
        "mean" => one()?.mean(axis_kwarg(case)?)?,
        _ => return Err(unsupported(&case.op)),
    })
}
