//! The `fft2` group: `scipy.fft`'s functions, by name.

use super::*;

/// Runs `fft.<f>` of one case.
pub(super) fn run(case: &Case, f: &str, arrays: &[Array]) -> Result<Array, Failure> {
    let _ = (f, arrays);
    Err(unsupported(&case.op))
}
