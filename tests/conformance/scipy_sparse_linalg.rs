//! The `sparse_linalg` group: SciPy's sparse.linalg, csgraph and sparse construction, by name.

use super::*;

/// Runs `sparse.<f>` of one case when it is one of this file's ops (`None` otherwise).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    let _ = (case, f, arrays);
    None
}
