//! What every kernel generator of this crate shares: a rendered kernel ([`Rendered`]), the
//! index width kernels are written for ([`IndexWidth`]) with its C type, and the stem of a
//! kernel name made from an op's name ([`sanitize`]).

/// A rendered kernel: its name and its code (without the prelude).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The `extern "C"` name.
    pub name: String,
    /// The code.
    pub code: String,
}

/// The integer type of indices and offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexWidth {
    /// `xp::i32`: faster on GPUs; needs every offset below 2^31.
    I32,
    /// `xp::i64`.
    I64,
}

impl IndexWidth {
    /// The C type of the kernel dialect (`xp::i32`, `xp::i64`).
    pub fn c_name(self) -> &'static str {
        match self {
            IndexWidth::I32 => "xp::i32",
            IndexWidth::I64 => "xp::i64",
        }
    }

    /// The tag kernel names carry (`i32`, `i64`).
    pub fn short(self) -> &'static str {
        match self {
            IndexWidth::I32 => "i32",
            IndexWidth::I64 => "i64",
        }
    }
}

/// `s` with every character that may not stand in a C identifier replaced by `_`: the stem
/// of a kernel name made from an op's name.
pub fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_c_identifiers() {
        assert_eq!(sanitize("my-op.2"), "my_op_2");
        assert_eq!((IndexWidth::I32.c_name(), IndexWidth::I64.short()), ("xp::i32", "i64"));
    }
}
