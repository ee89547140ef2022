//! `scipy.special` ops that are not one op of the kernels' table called with the case's
//! operands: `zeta` (one argument: Riemann; two: Hurwitz), `ellipj` (its four outputs stacked
//! on a new leading axis, as the case stores them) and `multigammaln` (kwarg `d`).

use super::*;

/// The case's answer for `special.<f>`, or `unsupported`.
pub(crate) fn run(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    use xp::special;
    Ok(match f {
        "zeta" => {
            let x = first(case, arrays)?;
            special::zeta(&x, arrays.get(1).map(Operand::Array))?
        }
        "ellipj" => {
            let (sn, cn, dn, ph) = special::ellipj(nth(case, arrays, 0)?, nth(case, arrays, 1)?)?;
            xp::stack(&[&sn, &cn, &dn, &ph], 0)?
        }
        "multigammaln" => {
            let d = int_kwarg(case, "d")?.ok_or_else(|| Failure::Case(format!("{}: no d", case.op)))?;
            special::multigammaln(&first(case, arrays)?, d)?
        }
        _ => return Err(unsupported(&case.op)),
    })
}
