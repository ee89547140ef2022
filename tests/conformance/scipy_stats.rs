//! The `stats` group: `scipy.stats`'s functions, by name.

use super::*;

/// Runs `stats.<f>` of one case.
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    let _ = (f, arrays);
    Err(unsupported(&case.op))
}
