//! Rust element types of arrays, and conversion of scalars to element bytes.

use half::{bf16, f16};
use num_complex::Complex;
use xp_backend_api::{DType, Error, Result};

use crate::promote::{float_to_int, Scalar};

/// A Rust type that arrays hold: `bool`, `i8`…`u64`, `half::f16`, `half::bf16`, `f32`, `f64`,
/// `Complex<f32>`, `Complex<f64>`.
///
/// # Safety
/// The type is plain data with the same size and layout as its dtype's C type, and every bit
/// pattern a kernel writes for that dtype is a valid value (for `bool`: 0 or 1).
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// The dtype.
    const DTYPE: DType;
    /// The value as a weak scalar.
    fn to_scalar(self) -> Scalar;
}

macro_rules! element {
    ($t:ty, $d:expr, $v:ident => $s:expr) => {
        // SAFETY: a primitive of the dtype's size and layout; every bit pattern is valid.
        unsafe impl Element for $t {
            const DTYPE: DType = $d;
            fn to_scalar(self) -> Scalar {
                let $v = self;
                $s
            }
        }
    };
}
element!(i8, DType::I8, v => Scalar::Int(v as i128));
element!(i16, DType::I16, v => Scalar::Int(v as i128));
element!(i32, DType::I32, v => Scalar::Int(v as i128));
element!(i64, DType::I64, v => Scalar::Int(v as i128));
element!(u8, DType::U8, v => Scalar::Int(v as i128));
element!(u16, DType::U16, v => Scalar::Int(v as i128));
element!(u32, DType::U32, v => Scalar::Int(v as i128));
element!(u64, DType::U64, v => Scalar::Int(v as i128));
element!(f16, DType::F16, v => Scalar::Float(v.to_f64()));
element!(bf16, DType::BF16, v => Scalar::Float(v.to_f64()));
element!(f32, DType::F32, v => Scalar::Float(v as f64));
element!(f64, DType::F64, v => Scalar::Float(v));
element!(Complex<f32>, DType::C64, v => Scalar::Complex(v.re as f64, v.im as f64));
element!(Complex<f64>, DType::C128, v => Scalar::Complex(v.re, v.im));
// SAFETY: one byte; kernels write bool as 0 or 1, and bytes read from files are normalised
// to 0/1 before they become an array.
unsafe impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_scalar(self) -> Scalar {
        Scalar::Bool(self)
    }
}

/// The bytes of a slice of elements.
pub(crate) fn as_bytes<T: Element>(data: &[T]) -> &[u8] {
    // SAFETY: `Element` types are plain data without padding, so every byte is initialised.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) }
}

/// Elements from their bytes (length a multiple of the element size).
pub(crate) fn from_bytes<T: Element>(bytes: &[u8]) -> Vec<T> {
    let n = bytes.len() / std::mem::size_of::<T>();
    let mut out: Vec<T> = Vec::with_capacity(n);
    // SAFETY: the destination has room for `n` elements; `Element` guarantees that the bytes
    // (written by kernels of this dtype, or normalised when loaded) are valid values; the
    // copy is bytewise, so the source's alignment does not matter.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>());
        out.set_len(n);
    }
    out
}

/// A scalar's bytes in a dtype, held in place (a complex128 is the largest, 16 bytes).
pub type ScalarBytes = smallvec::SmallVec<[u8; 16]>;

/// Bytes of `s` converted to `dtype` (NumPy's rules: complex to real keeps the real part,
/// anything to bool tests against zero; floats to integers as [`float_to_int`]).
pub fn scalar_bytes(s: Scalar, dtype: DType) -> Result<ScalarBytes> {
    let (re, im) = s.as_complex();
    // Integers wrap to the width (as NumPy's integer casts); floats, and the real part of a
    // complex, follow the library's float → integer rule (`promote::float_to_int`), the same
    // as `astype` on every device.
    let i = match s {
        Scalar::Bool(b) => b as i128,
        Scalar::Int(i) => i,
        Scalar::Float(f) | Scalar::Complex(f, _) => float_to_int(f, dtype).unwrap_or(0),
    };
    Ok(match dtype {
        DType::Bool => smallvec::smallvec![(re != 0.0 || im != 0.0 || matches!(s, Scalar::Int(v) if v != 0)) as u8],
        DType::I8 => (i as i8).to_le_bytes().as_slice().into(),
        DType::I16 => (i as i16).to_le_bytes().as_slice().into(),
        DType::I32 => (i as i32).to_le_bytes().as_slice().into(),
        DType::I64 => (i as i64).to_le_bytes().as_slice().into(),
        DType::U8 => (i as u8).to_le_bytes().as_slice().into(),
        DType::U16 => (i as u16).to_le_bytes().as_slice().into(),
        DType::U32 => (i as u32).to_le_bytes().as_slice().into(),
        DType::U64 => (i as u64).to_le_bytes().as_slice().into(),
        DType::F16 => f16::from_f64(exact_f64(s)).to_le_bytes().as_slice().into(),
        DType::BF16 => bf16::from_f64(exact_f64(s)).to_le_bytes().as_slice().into(),
        DType::F32 => (exact_f64_f32(s)).to_le_bytes().as_slice().into(),
        DType::F64 => exact_f64(s).to_le_bytes().as_slice().into(),
        DType::C64 => {
            let mut v: ScalarBytes = (re as f32).to_le_bytes().as_slice().into();
            v.extend((im as f32).to_le_bytes());
            v
        }
        DType::C128 => {
            let mut v: ScalarBytes = re.to_le_bytes().as_slice().into();
            v.extend(im.to_le_bytes());
            v
        }
    })
}

fn exact_f64(s: Scalar) -> f64 {
    s.as_complex().0
}

fn exact_f64_f32(s: Scalar) -> f32 {
    match s {
        // Integers round once, straight to f32.
        Scalar::Int(i) => i as f32,
        _ => s.as_complex().0 as f32,
    }
}

/// A value read back from the device, as a scalar.
pub(crate) fn scalar_from_bytes(bytes: &[u8], dtype: DType) -> Result<Scalar> {
    let b = |n: usize| -> Result<&[u8]> {
        bytes.get(..n).ok_or_else(|| Error::value("item", "fewer bytes than the dtype needs"))
    };
    Ok(match dtype {
        DType::Bool => Scalar::Bool(b(1)?[0] != 0),
        DType::I8 => Scalar::Int(b(1)?[0] as i8 as i128),
        DType::U8 => Scalar::Int(b(1)?[0] as i128),
        DType::I16 => Scalar::Int(i16::from_le_bytes(b(2)?.try_into().expect("2 bytes")) as i128),
        DType::U16 => Scalar::Int(u16::from_le_bytes(b(2)?.try_into().expect("2 bytes")) as i128),
        DType::I32 => Scalar::Int(i32::from_le_bytes(b(4)?.try_into().expect("4 bytes")) as i128),
        DType::U32 => Scalar::Int(u32::from_le_bytes(b(4)?.try_into().expect("4 bytes")) as i128),
        DType::I64 => Scalar::Int(i64::from_le_bytes(b(8)?.try_into().expect("8 bytes")) as i128),
        DType::U64 => Scalar::Int(u64::from_le_bytes(b(8)?.try_into().expect("8 bytes")) as i128),
        DType::F16 => Scalar::Float(f16::from_le_bytes(b(2)?.try_into().expect("2 bytes")).to_f64()),
        DType::BF16 => Scalar::Float(bf16::from_le_bytes(b(2)?.try_into().expect("2 bytes")).to_f64()),
        DType::F32 => Scalar::Float(f32::from_le_bytes(b(4)?.try_into().expect("4 bytes")) as f64),
        DType::F64 => Scalar::Float(f64::from_le_bytes(b(8)?.try_into().expect("8 bytes"))),
        DType::C64 => {
            let v = b(8)?;
            Scalar::Complex(
                f32::from_le_bytes(v[..4].try_into().expect("4 bytes")) as f64,
                f32::from_le_bytes(v[4..].try_into().expect("4 bytes")) as f64,
            )
        }
        DType::C128 => {
            let v = b(16)?;
            Scalar::Complex(
                f64::from_le_bytes(v[..8].try_into().expect("8 bytes")),
                f64::from_le_bytes(v[8..].try_into().expect("8 bytes")),
            )
        }
    })
}
