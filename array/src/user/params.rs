//! Parameter strings (`"float32 x, T y, raw T z"`), the placeholder bindings of one call and
//! the checks on parameter names.

use std::collections::HashMap;
use std::fmt::Write as _;

use xp_backend_api::{DType, Error, Result};

/// The type of a kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A fixed dtype.
    Fixed(DType),
    /// A one-letter placeholder, bound from the arguments.
    Placeholder(char),
}

/// One parameter of an [`ElementwiseKernel`](super::ElementwiseKernel) or
/// [`ReductionKernel`](super::ReductionKernel).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    /// Its name in the operation.
    pub name: String,
    /// Its type.
    pub ty: ParamType,
    /// Whether it is `raw` (a pointer indexed by hand).
    pub raw: bool,
}

const CPP_KEYWORDS: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "false",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "new",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "this",
    "true",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "namespace",
    "template",
    "typename",
    "class",
    "using",
    "xp",
];

pub(super) fn check_name(kernel: &str, name: &str, extra_reserved: &[&str]) -> Result<()> {
    let ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident {
        return Err(Error::value(kernel, format!("`{name}` is not a valid parameter name")));
    }
    let numbered =
        |p: &str| name.strip_prefix(p).is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()));
    if name == "i"
        || name == "n"
        || name.starts_with('_')
        || name.ends_with('_')
        || numbered("in")
        || numbered("out")
        || CPP_KEYWORDS.contains(&name)
        || extra_reserved.contains(&name)
    {
        return Err(Error::value(kernel, format!("`{name}` is a reserved name and cannot name a parameter")));
    }
    Ok(())
}

/// Parse a parameter string (`"float32 x, T y, raw T z"`); `kernel` names the kernel in errors.
pub fn parse_params(kernel: &str, params: &str) -> Result<Vec<Param>> {
    let mut out: Vec<Param> = Vec::new();
    if params.trim().is_empty() {
        return Ok(out);
    }
    for part in params.split(',') {
        let mut words: Vec<&str> = part.split_whitespace().collect();
        let raw = words.first() == Some(&"raw");
        if raw {
            words.remove(0);
        }
        if words.len() < 2 {
            return Err(Error::value(kernel, format!("parameter `{}` needs a type and a name", part.trim())));
        }
        let name = words.pop().expect("two words or more");
        let ty_name = words.join(" ");
        let ty = if ty_name.chars().count() == 1 && ty_name.chars().all(|c| c.is_ascii_alphabetic()) {
            ParamType::Placeholder(ty_name.chars().next().expect("one letter"))
        } else {
            ParamType::Fixed(DType::from_name(&ty_name).ok_or_else(|| Error::DType {
                op: kernel.into(),
                reason: format!("unknown dtype name `{ty_name}` in parameter `{}`", part.trim()),
            })?)
        };
        if out.iter().any(|p| p.name == name) {
            return Err(Error::value(kernel, format!("parameter `{name}` is declared twice")));
        }
        out.push(Param { name: name.to_string(), ty, raw });
    }
    Ok(out)
}

/// Placeholder bindings of one call.
pub(super) struct Bindings<'k> {
    pub(super) kernel: &'k str,
    pub(super) map: HashMap<char, DType>,
}

impl<'k> Bindings<'k> {
    pub(super) fn bind(&mut self, p: &Param, d: DType) -> Result<()> {
        if let ParamType::Placeholder(c) = p.ty {
            match self.map.get(&c) {
                Some(&t) if t != d => {
                    return Err(Error::DType {
                        op: self.kernel.into(),
                        reason: format!(
                            "type placeholder {c} is bound to {t} and to {d} (parameter `{}`): type is mismatched",
                            p.name
                        ),
                    })
                }
                Some(_) => {}
                None => {
                    self.map.insert(c, d);
                }
            }
        }
        Ok(())
    }

    pub(super) fn dtype_of(&self, p: &Param) -> Result<DType> {
        match p.ty {
            ParamType::Fixed(d) => Ok(d),
            ParamType::Placeholder(c) => self.map.get(&c).copied().ok_or_else(|| Error::DType {
                op: self.kernel.into(),
                reason: format!(
                    "the dtype of type placeholder {c} (parameter `{}`) cannot be decided from the inputs; \
                     pass the output array explicitly",
                    p.name
                ),
            }),
        }
    }
}

/// `typedef float T;` for each placeholder of `params` (with their dtypes), as CuPy declares
/// them for the operation.
pub(super) fn typedefs<'p>(params: impl Iterator<Item = (&'p Param, &'p DType)>) -> String {
    let mut seen = Vec::new();
    let mut s = String::new();
    for (p, d) in params {
        if let ParamType::Placeholder(c) = p.ty {
            if !seen.contains(&c) {
                seen.push(c);
                let _ = writeln!(s, "typedef {} {c};", d.c_name());
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cupy_parameter_strings() {
        let p = parse_params("k", "float32 x, T y, raw T z, unsigned int w").unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(p[0].ty, ParamType::Fixed(DType::F32));
        assert_eq!(p[1].ty, ParamType::Placeholder('T'));
        assert!(p[2].raw && p[2].name == "z");
        assert_eq!(p[3].ty, ParamType::Fixed(DType::U32));
        assert_eq!(parse_params("k", "floot32 x").unwrap_err().kind(), "DType");
        assert_eq!(parse_params("k", "float32").unwrap_err().kind(), "Value");
        assert_eq!(parse_params("k", "float32 x, float32 x").unwrap_err().kind(), "Value");
        for bad in ["i", "n", "in0", "out1", "_x", "x_", "float", "2x"] {
            assert_eq!(check_name("k", bad, &[]).unwrap_err().kind(), "Value", "{bad}");
        }
        assert!(check_name("k", "input", &[]).is_ok());
        assert!(check_name("k", "a", &["a", "b"]).is_err());
    }
}
