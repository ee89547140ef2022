//! Type promotion as NumPy 2 (NEP 50), with weak Rust scalars.
//!
//! - [`promote_types`] is NumPy's table: the smallest dtype both operands convert to without
//!   loss (`int64` with `uint64` gives `float64`, as NumPy). `bfloat16` ranks with `float16`;
//!   the two together give `float32`.
//! - [`can_cast_safe`]: `from` converts to `to` without loss exactly when promoting them gives
//!   `to`.
//! - A Rust scalar in an op is *weak*: its kind matters, not its width. An integer scalar takes
//!   the array's integer dtype (and must fit: `uint8 + 300` is an `Overflow` error, as NumPy
//!   2), a float scalar takes the array's float dtype or `float64` next to integers, a complex
//!   scalar the complex dtype of matching precision.

use xp_backend_api::{DType, DTypeKind, Error, Result};

/// A Rust scalar operand (weak in promotion).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// `true`/`false`.
    Bool(bool),
    /// Any integer, kept exact.
    Int(i128),
    /// A float.
    Float(f64),
    /// A complex number (re, im).
    Complex(f64, f64),
}

macro_rules! scalar_from_int {
    ($($t:ty),*) => { $(impl From<$t> for Scalar { fn from(v: $t) -> Self { Scalar::Int(v as i128) } })* };
}
scalar_from_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
impl From<bool> for Scalar {
    fn from(v: bool) -> Self {
        Scalar::Bool(v)
    }
}
impl From<f32> for Scalar {
    fn from(v: f32) -> Self {
        Scalar::Float(v as f64)
    }
}
impl From<f64> for Scalar {
    fn from(v: f64) -> Self {
        Scalar::Float(v)
    }
}
impl From<num_complex::Complex<f64>> for Scalar {
    fn from(v: num_complex::Complex<f64>) -> Self {
        Scalar::Complex(v.re, v.im)
    }
}
impl From<num_complex::Complex<f32>> for Scalar {
    fn from(v: num_complex::Complex<f32>) -> Self {
        Scalar::Complex(v.re as f64, v.im as f64)
    }
}

impl Scalar {
    /// The dtype NumPy gives this scalar on its own (`int64`, `float64`, `complex128`, `bool`).
    pub fn default_dtype(&self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => DType::F64,
            Scalar::Complex(..) => DType::C128,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Scalar::Bool(_) => 0,
            Scalar::Int(_) => 1,
            Scalar::Float(_) => 2,
            Scalar::Complex(..) => 3,
        }
    }

    /// As (re, im) doubles.
    pub fn as_complex(&self) -> (f64, f64) {
        match *self {
            Scalar::Bool(b) => (b as u8 as f64, 0.0),
            Scalar::Int(i) => (i as f64, 0.0),
            Scalar::Float(f) => (f, 0.0),
            Scalar::Complex(r, i) => (r, i),
        }
    }
}

fn kind_rank(k: DTypeKind) -> u8 {
    match k {
        DTypeKind::Bool => 0,
        DTypeKind::Signed | DTypeKind::Unsigned => 1,
        DTypeKind::Float => 2,
        DTypeKind::Complex => 3,
    }
}

fn int_bits(d: DType) -> usize {
    d.size() * 8
}

fn signed_of_bits(bits: usize) -> Option<DType> {
    Some(match bits {
        8 => DType::I8,
        16 => DType::I16,
        32 => DType::I32,
        64 => DType::I64,
        _ => return None,
    })
}

/// The smallest float that holds every value of integer dtype `d` (NumPy's rule).
fn float_for_int(d: DType) -> DType {
    match int_bits(d) {
        8 => DType::F16,
        16 => DType::F32,
        _ => DType::F64,
    }
}

fn float_rank(d: DType) -> u8 {
    match d {
        DType::F16 | DType::BF16 => 1,
        DType::F32 => 2,
        _ => 3,
    }
}

fn promote_floats(a: DType, b: DType) -> DType {
    if a == b {
        return a;
    }
    if float_rank(a) == float_rank(b) {
        // float16 with bfloat16: neither holds the other.
        return DType::F32;
    }
    if float_rank(a) > float_rank(b) {
        a
    } else {
        b
    }
}

fn real_of(c: DType) -> DType {
    if c == DType::C64 {
        DType::F32
    } else {
        DType::F64
    }
}

fn complex_of(f: DType) -> DType {
    if f == DType::F64 {
        DType::C128
    } else {
        DType::C64
    }
}

/// NumPy's `promote_types(a, b)`.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DTypeKind::*;
    if a == b {
        return a;
    }
    let (ka, kb) = (a.kind(), b.kind());
    match (ka, kb) {
        (Bool, _) => b,
        (_, Bool) => a,
        (Signed, Signed) | (Unsigned, Unsigned) => {
            if a.size() >= b.size() {
                a
            } else {
                b
            }
        }
        (Signed, Unsigned) | (Unsigned, Signed) => {
            let (s, u) = if ka == Signed { (a, b) } else { (b, a) };
            if u.size() < s.size() {
                s
            } else {
                signed_of_bits(int_bits(u) * 2).unwrap_or(DType::F64)
            }
        }
        (Signed | Unsigned, Float) => promote_floats(float_for_int(a), b),
        (Float, Signed | Unsigned) => promote_floats(a, float_for_int(b)),
        (Float, Float) => promote_floats(a, b),
        (Complex, _) | (_, Complex) => {
            let ra = if ka == Complex { real_of(a) } else { a };
            let rb = if kb == Complex { real_of(b) } else { b };
            complex_of(promote_types(ra, rb))
        }
    }
}

/// NumPy's `can_cast(from, to, "safe")`.
pub fn can_cast_safe(from: DType, to: DType) -> bool {
    promote_types(from, to) == to
}

/// NumPy's `can_cast(from, to, "same_kind")`: safe, or within the same kind order
/// (bool < integers < floats < complex; a signed integer never goes to an unsigned one).
pub fn can_cast_same_kind(from: DType, to: DType) -> bool {
    if can_cast_safe(from, to) {
        return true;
    }
    let (kf, kt) = (from.kind(), to.kind());
    match (kf, kt) {
        (DTypeKind::Signed, DTypeKind::Unsigned) => false,
        _ => kind_rank(kf) <= kind_rank(kt),
    }
}

/// The dtype of an op's result from its array dtypes and weak scalars (NumPy's
/// `result_type`), checking that integer scalars fit when they take an integer dtype.
pub fn result_type(op: &str, arrays: &[DType], scalars: &[Scalar]) -> Result<DType> {
    let Some(mut strong) = arrays.iter().copied().reduce(promote_types) else {
        // Scalars only: each takes its default dtype.
        let d = scalars.iter().map(|s| s.default_dtype()).reduce(promote_types).unwrap_or(DType::F64);
        return Ok(d);
    };
    for s in scalars {
        strong = weak_dtype(op, strong, s)?;
    }
    Ok(strong)
}

/// The dtype weak scalar `s` takes next to arrays of dtype `strong` (the combined result).
pub fn weak_dtype(op: &str, strong: DType, s: &Scalar) -> Result<DType> {
    let k = kind_rank(strong.kind());
    let d = if s.rank() <= k {
        strong
    } else {
        match s {
            Scalar::Bool(_) => strong,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => DType::F64,
            Scalar::Complex(..) => match strong.kind() {
                DTypeKind::Float => complex_of(if strong == DType::F64 { DType::F64 } else { DType::F32 }),
                _ => DType::C128,
            },
        }
    };
    if let Scalar::Int(v) = *s {
        check_int_fits(op, v, d)?;
    }
    Ok(d)
}

/// The range of integer dtype `d`, `None` for other dtypes.
pub fn int_range(d: DType) -> Option<(i128, i128)> {
    Some(match d {
        DType::I8 => (i8::MIN as i128, i8::MAX as i128),
        DType::I16 => (i16::MIN as i128, i16::MAX as i128),
        DType::I32 => (i32::MIN as i128, i32::MAX as i128),
        DType::I64 => (i64::MIN as i128, i64::MAX as i128),
        DType::U8 => (0, u8::MAX as i128),
        DType::U16 => (0, u16::MAX as i128),
        DType::U32 => (0, u32::MAX as i128),
        DType::U64 => (0, u64::MAX as i128),
        _ => return None,
    })
}

/// Float `f` converted to integer dtype `d`: the rule of the whole library, on the host as
/// `xp::float_to_int` is on every device (`kernels/include/xp_prelude.h`). NumPy's result on
/// x86-64 wherever NumPy defines it: truncation toward zero, then, within the int64 range, a
/// wrap to `d`'s width (-1.0 to uint32 is 4294967295, 300.0 to uint8 is 44). Where NumPy's
/// result is undefined (NaN, infinities, beyond the int64 range) the value saturates: NaN gives
/// 0, values at or above 2^63 the maximum (to uint64: exact below 2^64), below -2^63 the
/// minimum. Every host path that stores a float into an integer (`full`, `arange`, `linspace`,
/// scalar operands) goes through here. `None` when `d` is not an integer dtype.
pub fn float_to_int(f: f64, d: DType) -> Option<i128> {
    let (lo, hi) = int_range(d)?;
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() {
        return Some(0);
    }
    if d == DType::U64 && f >= TWO_63 {
        return Some((f as i128).min(hi));
    }
    if f >= TWO_63 {
        return Some(hi);
    }
    if f < -TWO_63 {
        return Some(lo);
    }
    // Within int64: truncate, then keep the low bits of `d`'s width, read in its signedness.
    let t = f as i64;
    let bits = d.size() * 8;
    let low = (t as i128) & ((1i128 << bits) - 1);
    Some(if lo < 0 && low > hi { low - (1i128 << bits) } else { low })
}

/// `Overflow` when integer `v` does not fit integer dtype `d` (other dtypes always take it).
pub fn check_int_fits(op: &str, v: i128, d: DType) -> Result<()> {
    match int_range(d) {
        Some((lo, hi)) if v < lo || v > hi => {
            Err(Error::Overflow { op: op.into(), reason: format!("Rust integer {v} out of bounds for {d}") })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn floats_into_integers_truncate_and_saturate() {
        assert_eq!(float_to_int(-1.0, U32), Some(u32::MAX as i128));
        assert_eq!(float_to_int(f64::INFINITY, I32), Some(i32::MAX as i128));
        assert_eq!(float_to_int(300.0, U8), Some(44));
        assert_eq!(float_to_int(-2.9, I8), Some(-2));
        assert_eq!(float_to_int(-0.5, U64), Some(0));
        assert_eq!(float_to_int(f64::NAN, I64), Some(0));
        assert_eq!(float_to_int(-1e300, I64), Some(i64::MIN as i128));
        assert_eq!(float_to_int(18446744073709549568.0, U64), Some(18446744073709549568));
        assert_eq!(float_to_int(18446744073709551616.0, U64), Some(u64::MAX as i128));
        assert_eq!(float_to_int(1.0, F32), None);
    }

    #[test]
    fn numpy_table() {
        assert_eq!(promote_types(I8, U8), I16);
        assert_eq!(promote_types(I64, U64), F64);
        assert_eq!(promote_types(U32, I32), I64);
        assert_eq!(promote_types(I8, F16), F16);
        assert_eq!(promote_types(I16, F16), F32);
        assert_eq!(promote_types(I32, F32), F64);
        assert_eq!(promote_types(C64, F64), C128);
        assert_eq!(promote_types(C64, I16), C64);
        assert_eq!(promote_types(C64, I32), C128);
        assert_eq!(promote_types(Bool, U16), U16);
        assert_eq!(promote_types(F16, BF16), F32);
        assert!(can_cast_safe(U8, I16) && !can_cast_safe(I8, U64) && !can_cast_safe(F32, I64));
        assert!(can_cast_same_kind(F64, F32) && !can_cast_same_kind(F32, I32) && !can_cast_same_kind(I8, U8));
    }

    #[test]
    fn weak_scalars() {
        assert_eq!(result_type("add", &[U8], &[Scalar::Int(2)]).unwrap(), U8);
        assert_eq!(result_type("add", &[U8], &[Scalar::Int(300)]).unwrap_err().kind(), "Overflow");
        assert_eq!(result_type("add", &[U8], &[Scalar::Int(-1)]).unwrap_err().kind(), "Overflow");
        assert_eq!(result_type("add", &[F16], &[Scalar::Int(300)]).unwrap(), F16);
        assert_eq!(result_type("add", &[I32], &[Scalar::Float(2.5)]).unwrap(), F64);
        assert_eq!(result_type("add", &[F32], &[Scalar::Float(2.5)]).unwrap(), F32);
        assert_eq!(result_type("add", &[F32], &[Scalar::Complex(0.0, 1.0)]).unwrap(), C64);
        assert_eq!(result_type("add", &[F16], &[Scalar::Complex(0.0, 1.0)]).unwrap(), C64);
        assert_eq!(result_type("add", &[I8], &[Scalar::Complex(0.0, 1.0)]).unwrap(), C128);
        assert_eq!(result_type("add", &[Bool], &[Scalar::Int(300)]).unwrap(), I64);
        assert_eq!(result_type("add", &[Bool], &[Scalar::Float(1.0)]).unwrap(), F64);
    }
}
