//! NumPy's machine limits of a dtype, `finfo` and `iinfo`, and `real_if_close`, which reads
//! the tolerance in units of a float type's epsilon.
//!
//! `finfo(dtype)` and `iinfo(dtype)` are what a CuPy user writes (`cupy.finfo(cupy.float32)`
//! is `xp::finfo(DType::F32)`); they are host values, computed from the IEEE 754 binary
//! format of the type (significand bits and exponent range), not measured: float16 (binary16),
//! bfloat16 (8 exponent bits, 7 significand bits, as `ml_dtypes` describes it), float32
//! (binary32) and float64 (binary64). A complex type gives its real type's limits, as NumPy.

use xp_backend_api::{DType, Error, Result};

use crate::Array;

/// NumPy's `finfo`: the limits of a float type (the real type of a complex one). The values
/// are `f64`; each is exactly representable in [`FInfo::dtype`] except `resolution`, which
/// NumPy also rounds to the type (`10**-precision`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FInfo {
    /// The float type described (a complex type's real type).
    pub dtype: DType,
    /// Bits of the type.
    pub bits: u32,
    /// The difference between 1.0 and the next larger value, `2**machep`.
    pub eps: f64,
    /// The difference between 1.0 and the next smaller value, `2**negep`.
    pub epsneg: f64,
    /// The largest finite value.
    pub max: f64,
    /// The most negative finite value, `-max`.
    pub min: f64,
    /// The smallest positive normal value, `2**minexp`.
    pub smallest_normal: f64,
    /// The same as `smallest_normal` (NumPy's older name).
    pub tiny: f64,
    /// The smallest positive subnormal value, `2**(minexp - nmant)`.
    pub smallest_subnormal: f64,
    /// `10**-precision`.
    pub resolution: f64,
    /// Decimal digits of precision, `floor(-log10(eps))`.
    pub precision: u32,
    /// Exponent bits.
    pub iexp: u32,
    /// Significand bits after the binary point (the implicit leading bit excluded).
    pub nmant: u32,
    /// Exponent bits (NumPy's second name for `iexp`).
    pub nexp: u32,
    /// `eps == 2**machep`.
    pub machep: i32,
    /// `epsneg == 2**negep`.
    pub negep: i32,
    /// The exponent of `smallest_normal`.
    pub minexp: i32,
    /// The smallest power of 2 that overflows.
    pub maxexp: i32,
}

/// NumPy's `finfo(dtype)`: the machine limits of a float or complex type.
///
/// Errors: a boolean or integer type (`Value`: "not inexact", as NumPy).
pub fn finfo(dtype: DType) -> Result<FInfo> {
    // (the real type, significand bits, exponent bits, minimum normal exponent)
    let (real, nmant, iexp, minexp) = match dtype {
        DType::F16 => (DType::F16, 10, 5, -14),
        DType::BF16 => (DType::BF16, 7, 8, -126),
        DType::F32 | DType::C64 => (DType::F32, 23, 8, -126),
        DType::F64 | DType::C128 => (DType::F64, 52, 11, -1022),
        _ => return Err(Error::value("finfo", format!("data type {dtype} not inexact"))),
    };
    let maxexp = 1 - minexp + 1;
    let eps = 2f64.powi(-nmant);
    let max = (2.0 - eps) * 2f64.powi(maxexp - 1);
    let precision = (-eps.log10()).floor() as u32;
    Ok(FInfo {
        dtype: real,
        bits: 8 * real.size() as u32,
        eps,
        epsneg: 2f64.powi(-nmant - 1),
        max,
        min: -max,
        smallest_normal: 2f64.powi(minexp),
        tiny: 2f64.powi(minexp),
        smallest_subnormal: 2f64.powi(minexp) * 2f64.powi(-nmant),
        // `1e-N` parsed: the double nearest 10**-N, as Python's literal.
        resolution: format!("1e-{precision}").parse().expect("a float literal"),
        precision,
        iexp: iexp as u32,
        nmant: nmant as u32,
        nexp: iexp as u32,
        machep: -nmant,
        negep: -nmant - 1,
        minexp,
        maxexp,
    })
}

/// NumPy's `iinfo`: the limits of an integer type. `min` and `max` are `i128`, which holds
/// every integer type's range (uint64's maximum included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IInfo {
    /// The integer type described.
    pub dtype: DType,
    /// Bits of the type.
    pub bits: u32,
    /// The smallest value.
    pub min: i128,
    /// The largest value.
    pub max: i128,
}

/// NumPy's `iinfo(dtype)`: the range of an integer type.
///
/// Errors: a boolean, float or complex type (`Value`: "Invalid integer data type", as NumPy).
pub fn iinfo(dtype: DType) -> Result<IInfo> {
    let (min, max) = crate::promote::int_range(dtype)
        .ok_or_else(|| Error::value("iinfo", format!("Invalid integer data type '{}'.", dtype.name())))?;
    Ok(IInfo { dtype, bits: 8 * dtype.size() as u32, min, max })
}

/// NumPy's `real_if_close(a, tol)`: the real part of a complex `a` (a view) when every
/// imaginary part is below `tol` in magnitude, else `a`; a non-complex `a` is returned as is.
/// A `tol` above 1 counts machine epsilons of `a`'s real type (NumPy's default is 100).
///
/// The answer's dtype depends on the data, so this reads one boolean (whether all parts are
/// small) back to the host, which waits for the work queued before it.
pub fn real_if_close(a: &Array, tol: f64) -> Result<Array> {
    if !a.dtype().is_complex() {
        return Ok(a.clone());
    }
    let tol = if tol > 1.0 { tol * finfo(a.dtype())?.eps } else { tol };
    let small = a.imag()?.abs()?.lt(tol)?.all(None, false)?.item::<bool>()?;
    Ok(if small { a.real() } else { a.clone() })
}
