//! The `signal2` group: SciPy's signal filtering, resampling, spectral analysis and peaks, by name.

use super::*;

/// Runs `signal.<f>` of one case when it is one of this file's ops (`None` otherwise).
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Option<Result<Array, Failure>> {
    let _ = (case, f, arrays);
    None
}
