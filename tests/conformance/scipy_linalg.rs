//! The `scipy_linalg` group: `scipy.linalg`'s functions that `numpy.linalg` does not have, by
//! name (`linalg.solve` with SciPy's keywords too).

use super::*;

/// A required non-negative int kwarg.
fn size_kwarg(case: &Case, key: &str) -> Result<usize, Failure> {
    let v = int_kwarg(case, key)?.ok_or_else(|| Failure::Case(format!("{}: no {key}", case.op)))?;
    usize::try_from(v).map_err(|_| Failure::Case(format!("{}: {key} {v} is negative", case.op)))
}

/// `trans`: 0, 1, 2 or "N", "T", "C" (default 0).
fn trans_kwarg(case: &Case) -> Result<xp::linalg::Trans, Failure> {
    Ok(match case.kwarg("trans") {
        None => xp::linalg::Trans::N,
        Some(v) => match (v.as_i64(), v.as_str()) {
            (Some(t), _) => xp::linalg::Trans::from_int("solve_triangular", t)?,
            (_, Some(s)) => s.parse()?,
            _ => return Err(Failure::Case(format!("{}: trans {v} is not understood", case.op))),
        },
    })
}

/// Whether a `linalg.solve` case carries SciPy's keywords.
fn scipy_solve(case: &Case) -> bool {
    ["assume_a", "lower", "transposed"].iter().any(|k| case.kwargs.contains_key(*k))
}

/// Runs `linalg.<f>` of one case when it is one of SciPy's, else `None` (NumPy's `linalg`).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    let known = matches!(
        f,
        "solve_triangular"
            | "lu_p"
            | "lu_l"
            | "lu_u"
            | "lu_solve"
            | "cho_solve"
            | "expm"
            | "block_diag"
            | "toeplitz"
            | "circulant"
            | "hankel"
            | "hadamard"
            | "helmert"
            | "hilbert"
            | "invhilbert"
            | "leslie"
            | "companion"
            | "convolution_matrix"
            | "dft"
            | "fiedler"
            | "fiedler_companion"
            | "khatri_rao"
            | "bandwidth"
    ) || (f == "solve" && scipy_solve(case));
    if !known {
        return None;
    }
    Some(dispatch(case, f, arrays))
}

fn dispatch(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::linalg;
    let x = || first(case, arrays);
    let y = || nth(case, arrays, 1);
    Ok(match f {
        "solve_triangular" => linalg::solve_triangular(
            &x()?,
            y()?,
            trans_kwarg(case)?,
            bool_kwarg(case, "lower", false)?,
            bool_kwarg(case, "unit_diagonal", false)?,
        )?,
        "lu_p" => linalg::lu(&x()?, false)?.0.ok_or_else(|| Failure::Case("lu: no P".into()))?,
        "lu_l" => linalg::lu(&x()?, false)?.1,
        "lu_u" => linalg::lu(&x()?, false)?.2,
        "lu_solve" => {
            let (lu, piv) = linalg::lu_factor(&x()?)?;
            linalg::lu_solve((&lu, &piv), y()?, trans_kwarg(case)?)?
        }
        "cho_solve" => {
            let (c, lower) = linalg::cho_factor(&x()?, bool_kwarg(case, "lower", false)?)?;
            linalg::cho_solve((&c, lower), y()?)?
        }
        "solve" => {
            let assume_a = match case.kwarg("assume_a") {
                None => None,
                Some(v) => Some(
                    v.as_str().ok_or_else(|| Failure::Case(format!("solve: assume_a {v} is not a string")))?.parse()?,
                ),
            };
            let opts = linalg::SolveOptions {
                assume_a,
                lower: bool_kwarg(case, "lower", false)?,
                transposed: bool_kwarg(case, "transposed", false)?,
            };
            linalg::solve_with(&x()?, y()?, &opts)?
        }
        "expm" => linalg::expm(&x()?)?,
        "block_diag" => linalg::block_diag(&arrays.iter().collect::<Vec<_>>())?,
        "toeplitz" => linalg::toeplitz(&x()?, arrays.get(1))?,
        "circulant" => linalg::circulant(&x()?)?,
        "hankel" => linalg::hankel(&x()?, arrays.get(1))?,
        "hadamard" => linalg::hadamard(size_kwarg(case, "n")?, dtype_kwarg(case)?)?,
        "helmert" => linalg::helmert(size_kwarg(case, "n")?, bool_kwarg(case, "full", false)?)?,
        "hilbert" => linalg::hilbert(size_kwarg(case, "n")?)?,
        "invhilbert" => linalg::invhilbert(size_kwarg(case, "n")?)?,
        "leslie" => linalg::leslie(&x()?, y()?)?,
        "companion" => linalg::companion(&x()?)?,
        "fiedler_companion" => linalg::fiedler_companion(&x()?)?,
        "convolution_matrix" => {
            linalg::convolution_matrix(&x()?, size_kwarg(case, "n")?, parsed_kwarg(case, "mode", "full")?)?
        }
        "dft" => {
            let scale = match case.kwarg("scale") {
                None => None,
                Some(v) => {
                    Some(v.as_str().ok_or_else(|| Failure::Case(format!("dft: scale {v} is not a string")))?.parse()?)
                }
            };
            linalg::dft(size_kwarg(case, "n")?, scale)?
        }
        "fiedler" => linalg::fiedler(&x()?)?,
        "khatri_rao" => linalg::khatri_rao(&x()?, y()?)?,
        "bandwidth" => {
            let (lower, upper) = linalg::bandwidth(&x()?)?;
            xp::stack(&[&lower, &upper], -1)?
        }
        _ => return Err(unsupported(&case.op)),
    })
}
