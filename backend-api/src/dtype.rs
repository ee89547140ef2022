//! Element types, as NumPy names them.

use std::fmt;

/// The element type of an array, chosen at run time as in NumPy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`, one byte holding 0 or 1.
    Bool,
    /// `int8`.
    I8,
    /// `int16`.
    I16,
    /// `int32`.
    I32,
    /// `int64`.
    I64,
    /// `uint8`.
    U8,
    /// `uint16`.
    U16,
    /// `uint32`.
    U32,
    /// `uint64`.
    U64,
    /// `float16` (IEEE half).
    F16,
    /// `bfloat16`.
    BF16,
    /// `float32`.
    F32,
    /// `float64`.
    F64,
    /// `complex64` (two `float32`).
    C64,
    /// `complex128` (two `float64`).
    C128,
}

/// The broad family of a dtype, as NumPy's `dtype.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DTypeKind {
    /// `b`
    Bool,
    /// `i`
    Signed,
    /// `u`
    Unsigned,
    /// `f`
    Float,
    /// `c`
    Complex,
}

impl DType {
    /// Every dtype, in NumPy's order of kinds.
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
    ];

    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// The kind of the dtype.
    pub const fn kind(self) -> DTypeKind {
        match self {
            DType::Bool => DTypeKind::Bool,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => DTypeKind::Signed,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => DTypeKind::Unsigned,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => DTypeKind::Float,
            DType::C64 | DType::C128 => DTypeKind::Complex,
        }
    }

    /// NumPy's name (`float32`, `complex64`, `bool`…).
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }

    /// The type's name in the kernel dialect (`xp_prelude.h`).
    pub const fn c_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "xp::i8",
            DType::I16 => "xp::i16",
            DType::I32 => "xp::i32",
            DType::I64 => "xp::i64",
            DType::U8 => "xp::u8",
            DType::U16 => "xp::u16",
            DType::U32 => "xp::u32",
            DType::U64 => "xp::u64",
            DType::F16 => "xp::f16",
            DType::BF16 => "xp::bf16",
            DType::F32 => "float",
            DType::F64 => "double",
            DType::C64 => "xp::c64",
            DType::C128 => "xp::c128",
        }
    }

    /// A short tag used in generated kernel names (`f32`, `c64`…).
    pub const fn short(self) -> &'static str {
        match self {
            DType::Bool => "b1",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C64 => "c64",
            DType::C128 => "c128",
        }
    }

    /// The dtype NumPy calls `name` (also accepts the short C-ish names CuPy's kernel
    /// parameter strings use: `float`, `double`, `int`, `float32`…).
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" | "bool_" => DType::Bool,
            "int8" | "i1" | "signed char" => DType::I8,
            "int16" | "i2" | "short" => DType::I16,
            "int32" | "i4" | "int" => DType::I32,
            "int64" | "i8" | "long" | "long long" => DType::I64,
            "uint8" | "u1" | "unsigned char" => DType::U8,
            "uint16" | "u2" | "unsigned short" => DType::U16,
            "uint32" | "u4" | "unsigned int" | "unsigned" => DType::U32,
            "uint64" | "u8" | "unsigned long" | "unsigned long long" => DType::U64,
            "float16" | "f2" | "half" => DType::F16,
            "bfloat16" => DType::BF16,
            "float32" | "f4" | "float" => DType::F32,
            "float64" | "f8" | "double" => DType::F64,
            "complex64" | "c8" => DType::C64,
            "complex128" | "c16" => DType::C128,
            _ => return None,
        })
    }

    /// True for float16, bfloat16, float32, float64.
    pub const fn is_float(self) -> bool {
        matches!(self.kind(), DTypeKind::Float)
    }

    /// True for complex64 and complex128.
    pub const fn is_complex(self) -> bool {
        matches!(self.kind(), DTypeKind::Complex)
    }

    /// True for signed and unsigned integers (not bool).
    pub const fn is_integer(self) -> bool {
        matches!(self.kind(), DTypeKind::Signed | DTypeKind::Unsigned)
    }

    /// True for signed integers.
    pub const fn is_signed_integer(self) -> bool {
        matches!(self.kind(), DTypeKind::Signed)
    }

    /// True for unsigned integers.
    pub const fn is_unsigned_integer(self) -> bool {
        matches!(self.kind(), DTypeKind::Unsigned)
    }

    /// NumPy's `.npy` type string without the byte-order mark (`f4`, `c8`, `b1`…).
    pub const fn npy_code(self) -> &'static str {
        match self {
            DType::Bool => "b1",
            DType::I8 => "i1",
            DType::I16 => "i2",
            DType::I32 => "i4",
            DType::I64 => "i8",
            DType::U8 => "u1",
            DType::U16 => "u2",
            DType::U32 => "u4",
            DType::U64 => "u8",
            DType::F16 => "f2",
            DType::BF16 => "V2",
            DType::F32 => "f4",
            DType::F64 => "f8",
            DType::C64 => "c8",
            DType::C128 => "c16",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_name(d.name()), Some(d));
        }
        assert_eq!(DType::from_name("float"), Some(DType::F32));
        assert_eq!(DType::from_name("flaot"), None);
    }

    #[test]
    fn sizes() {
        assert_eq!(DType::C128.size(), 16);
        assert_eq!(DType::BF16.size(), 2);
        assert!(DType::U8.is_unsigned_integer() && !DType::Bool.is_integer());
    }
}
