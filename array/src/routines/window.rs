//! NumPy's window functions: `hanning`, `hamming`, `blackman`, `bartlett` and `kaiser`,
//! float64 arrays on the current device. (SciPy's `signal.windows` is another module, to come
//! in `signal/windows.rs`.)

use std::f64::consts::PI;

use xp_backend_api::{DType, Result};
use xp_kernels::special::i0_host;

use super::special::i0;
use crate::{Array, Operand, Scalar};

/// `n = arange(1-M, M, 2)` of the window functions, as float64.
fn window_n(m: usize) -> Result<Array> {
    let m = m as i64;
    crate::arange(1 - m, m, 2, Some(DType::F64))
}

/// The windows of length 0 and 1, or `None` for the others.
fn short_window(m: usize) -> Result<Option<Array>> {
    match m {
        0 => Ok(Some(crate::zeros(&[0], DType::F64)?)),
        1 => Ok(Some(crate::ones(&[1], DType::F64)?)),
        _ => Ok(None),
    }
}

/// `cos(c·π·n / (M-1))`, as NumPy orders the operations.
fn cos_term(n: &Array, m: usize, c: f64) -> Result<Array> {
    n.mul_scalar(c * PI)?.div(Operand::Scalar(Scalar::Int(m as i128 - 1)))?.cos()
}

/// NumPy's `hanning(M)`: `0.5 + 0.5·cos(πn/(M-1))`, on the current device.
pub fn hanning(m: usize) -> Result<Array> {
    if let Some(w) = short_window(m)? {
        return Ok(w);
    }
    cos_term(&window_n(m)?, m, 1.0)?.mul_scalar(0.5)?.add_scalar(0.5)
}

/// NumPy's `hamming(M)`: `0.54 + 0.46·cos(πn/(M-1))`.
pub fn hamming(m: usize) -> Result<Array> {
    if let Some(w) = short_window(m)? {
        return Ok(w);
    }
    cos_term(&window_n(m)?, m, 1.0)?.mul_scalar(0.46)?.add_scalar(0.54)
}

/// NumPy's `blackman(M)`: `0.42 + 0.5·cos(πn/(M-1)) + 0.08·cos(2πn/(M-1))`.
pub fn blackman(m: usize) -> Result<Array> {
    if let Some(w) = short_window(m)? {
        return Ok(w);
    }
    let n = window_n(m)?;
    let a = cos_term(&n, m, 1.0)?.mul_scalar(0.5)?.add_scalar(0.42)?;
    a.add(&cos_term(&n, m, 2.0)?.mul_scalar(0.08)?)
}

/// NumPy's `bartlett(M)`: the triangular window `1 - |n|/(M-1)`.
pub fn bartlett(m: usize) -> Result<Array> {
    if let Some(w) = short_window(m)? {
        return Ok(w);
    }
    let n = window_n(m)?;
    let r = n.div(Operand::Scalar(Scalar::Int(m as i128 - 1)))?;
    let up = r.add_scalar(1)?;
    let down = r.negative()?.add_scalar(1)?;
    crate::where_(&n.le(0)?, (&up).into(), (&down).into())
}

/// NumPy's `kaiser(M, beta)`: the Kaiser window `i0(β·sqrt(1 - ((n - α)/α)²)) / i0(β)`,
/// `α = (M-1)/2`, float64, on the current device.
pub fn kaiser(m: usize, beta: f64) -> Result<Array> {
    match m {
        0 => return crate::zeros(&[0], DType::F64),
        1 => return crate::ones(&[1], DType::F64),
        _ => {}
    }
    let alpha = (m as f64 - 1.0) / 2.0;
    let n = crate::arange(0, m as i64, 1, Some(DType::F64))?;
    let r = n.add_scalar(-alpha)?.div(Operand::Scalar(Scalar::Float(alpha)))?;
    let arg = r.mul(&r)?.negative()?.add_scalar(1.0)?.sqrt()?.mul_scalar(beta)?;
    i0(&arg)?.div(Operand::Scalar(Scalar::Float(i0_host(beta))))
}
