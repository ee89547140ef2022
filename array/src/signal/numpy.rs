//! NumPy's 1-d `convolve(a, v, mode)` and `correlate(a, v, mode)` (also at `xp::convolve` and
//! `xp::correlate`). NumPy's defaults are `Mode::Full` for `convolve` and `Mode::Valid` for
//! `correlate`.

use xp_backend_api::{Error, Result};

use super::{conj, correlate_1d, Mode};
use crate::routines::flip;
use crate::Array;

/// `a` as NumPy's `array(a, ndmin=1)` for a 1-d op: 0-d becomes 1-d, more than 1-d is an error.
fn one_d(op: &str, a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape(&[1]),
        1 => Ok(a.clone()),
        _ => Err(Error::value(
            op,
            format!("object too deep for desired array: inputs must be 1-d, got shape {:?}", a.shape()),
        )),
    }
}

/// NumPy's `convolve(a, v, mode)`: the discrete linear convolution of two 1-d arrays, the
/// longer taken first. An empty input is a `Value` error, as NumPy's.
pub fn convolve(a: &Array, v: &Array, mode: Mode) -> Result<Array> {
    let op = "convolve";
    crate::ufunc::common_device(op, &[a, v])?;
    let (mut a, mut v) = (one_d(op, a)?, one_d(op, v)?);
    if v.size() > a.size() {
        std::mem::swap(&mut a, &mut v);
    }
    if a.size() == 0 {
        return Err(Error::value(op, "a cannot be empty"));
    }
    if v.size() == 0 {
        return Err(Error::value(op, "v cannot be empty"));
    }
    correlate_1d(op, &a, &flip(&v, None)?, mode)
}

/// NumPy's `correlate(a, v, mode)`: `c[k] = Σ_n a[n + k] · conj(v[n])`. When `v` is the longer,
/// NumPy correlates the other way round and reverses the result; so does this.
pub fn correlate(a: &Array, v: &Array, mode: Mode) -> Result<Array> {
    let op = "correlate";
    crate::ufunc::common_device(op, &[a, v])?;
    let (a, v) = (one_d(op, a)?, conj(&one_d(op, v)?)?);
    if a.size() == 0 {
        return Err(Error::value(op, "first array argument cannot be empty"));
    }
    if v.size() == 0 {
        return Err(Error::value(op, "second array argument cannot be empty"));
    }
    if v.size() > a.size() {
        let out = correlate_1d(op, &v, &a, mode)?;
        return flip(&out, None)?.ascontiguous();
    }
    correlate_1d(op, &a, &v, mode)
}
