//! The `spatial` group: `scipy.spatial`'s functions, by name.

use super::*;

/// Runs `spatial.<f>` of one case.
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    let _ = (f, arrays);
    Err(unsupported(&case.op))
}
