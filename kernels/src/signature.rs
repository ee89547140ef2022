//! The parameters of a `__global__` function, read from its source: what a raw kernel's launch
//! checks its arguments against where the driver cannot tell (HIP, CUDA before 12.4, the CPU).
//!
//! This is a light scan, not a C++ parser, as [`crate::kernel_names`] is: it finds the
//! definition of the kernel outside comments, splits its parameter list at the top-level commas
//! and reads each parameter's type. A template kernel, or a parameter list it cannot read,
//! gives `None`: the launch then checks only what the driver reports.

use crate::{strip_comments, trailing_ident};

/// The kind of a scalar parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    /// `float`, `double`, `half`, `xp::f16`, `xp::bf16`.
    Float,
    /// `int`, `long long`, `xp::i64`, `int32_t`, …
    Signed,
    /// `unsigned int`, `size_t`, `xp::u8`, …
    Unsigned,
    /// `bool`.
    Bool,
}

/// One parameter of a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    /// A pointer (`const float* x`, `float x[]`): an array's address.
    Pointer {
        /// The parameter as written.
        text: String,
    },
    /// A value of a type this scan knows: its kind and size in bytes.
    Scalar {
        /// The parameter as written.
        text: String,
        /// Its kind.
        kind: ScalarKind,
        /// Its size in bytes.
        bytes: usize,
    },
    /// A value of another type (a struct, a template parameter, a complex number).
    Other {
        /// The parameter as written.
        text: String,
    },
}

impl Param {
    /// The parameter as written in the source.
    pub fn text(&self) -> &str {
        match self {
            Param::Pointer { text } | Param::Scalar { text, .. } | Param::Other { text } => text,
        }
    }
}

/// The parameters of the `__global__` function `name` defined in `code`, or `None` when it is
/// not found, is a template, or its list cannot be read.
pub fn kernel_params(code: &str, name: &str) -> Option<Vec<Param>> {
    let clean = strip_comments(code);
    let mut search = 0;
    while let Some(p) = clean[search..].find("__global__").map(|p| p + search) {
        search = p + "__global__".len();
        // The declaration starts after the previous `;`, `}` or `{` (or the file's start).
        let decl_start = clean[..p].rfind([';', '}', '{']).map_or(0, |i| i + 1);
        let after = &clean[search..];
        let Some(open) = find_name_paren(after, name) else { continue };
        if clean[decl_start..p].contains("template") {
            return None;
        }
        let list = balanced(&after[open..])?;
        return parse_list(list);
    }
    None
}

/// The offset of the `(` that opens the parameters of `name` in `after` (the text following
/// `__global__`), past a `__launch_bounds__(…)`; `None` when the function is another.
fn find_name_paren(after: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    loop {
        let paren = after[from..].find('(')? + from;
        let ident = trailing_ident(after[..paren].trim_end());
        if ident == "__launch_bounds__" {
            from = paren + balanced(&after[paren..])?.len() + 2;
            continue;
        }
        return (ident == name).then_some(paren);
    }
}

/// The text between the `(` that starts `s` and its matching `)`.
fn balanced(s: &str) -> Option<&str> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&s[1..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The parameters of a list, split at commas outside `<>`, `()` and `[]`.
fn parse_list(list: &str) -> Option<Vec<Param>> {
    if list.trim().is_empty() || list.trim() == "void" {
        return Some(Vec::new());
    }
    let mut params = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                params.push(classify(&list[start..i])?);
                start = i + 1;
            }
            _ => {}
        }
    }
    params.push(classify(&list[start..])?);
    Some(params)
}

/// One parameter from its text.
fn classify(raw: &str) -> Option<Param> {
    let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() || text.contains('=') {
        return None;
    }
    if text.contains('*') || text.contains('[') {
        return Some(Param::Pointer { text });
    }
    if text.contains('&') {
        return Some(Param::Other { text });
    }
    let qualifiers = ["const", "volatile", "__restrict__", "__restrict", "register", "signed"];
    let mut words: Vec<&str> = text.split(' ').filter(|w| !qualifiers.contains(w)).collect();
    // The last word is the parameter's name when another word is left for the type.
    if words.len() > 1 {
        words.pop();
    }
    let ty = words.join(" ");
    let ty = ty.strip_prefix("::").unwrap_or(&ty);
    let (kind, bytes) = match ty {
        "float" | "float32_t" => (ScalarKind::Float, 4),
        "double" => (ScalarKind::Float, 8),
        "half" | "__half" | "xp::f16" | "xp::bf16" | "__nv_bfloat16" => (ScalarKind::Float, 2),
        "bool" => (ScalarKind::Bool, 1),
        "char" | "int8_t" | "xp::i8" => (ScalarKind::Signed, 1),
        "unsigned char" | "uint8_t" | "xp::u8" => (ScalarKind::Unsigned, 1),
        "short" | "short int" | "int16_t" | "xp::i16" => (ScalarKind::Signed, 2),
        "unsigned short" | "unsigned short int" | "uint16_t" | "xp::u16" => (ScalarKind::Unsigned, 2),
        "int" | "int32_t" | "xp::i32" => (ScalarKind::Signed, 4),
        "unsigned" | "unsigned int" | "uint32_t" | "xp::u32" => (ScalarKind::Unsigned, 4),
        "long" | "long int" | "long long" | "long long int" | "int64_t" | "xp::i64" | "ptrdiff_t" => {
            (ScalarKind::Signed, 8)
        }
        "unsigned long"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "uint64_t"
        | "xp::u64"
        | "size_t" => (ScalarKind::Unsigned, 8),
        _ => return Some(Param::Other { text }),
    };
    Some(Param::Scalar { text, kind, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(code: &str, name: &str) -> Option<Vec<(char, usize)>> {
        kernel_params(code, name).map(|ps| {
            ps.iter()
                .map(|p| match p {
                    Param::Pointer { .. } => ('p', 8),
                    Param::Scalar { kind, bytes, .. } => (format!("{kind:?}").chars().next().unwrap(), *bytes),
                    Param::Other { .. } => ('o', 0),
                })
                .collect()
        })
    }

    #[test]
    fn reads_pointers_scalars_and_others() {
        let code = r#"
            // a comment with __global__ void saxpy(int nope)
            extern "C" __global__ void saxpy(const float a, const float* __restrict__ x,
                                             float *y, unsigned long long n, xp::i64 m, bool flag) { }
            extern "C" __global__ void __launch_bounds__(256, 2) tiled(float x[], double d, S s) { }
            extern "C" __global__ void none() { }
        "#;
        assert_eq!(kinds(code, "saxpy").unwrap(), [('F', 4), ('p', 8), ('p', 8), ('U', 8), ('S', 8), ('B', 1)]);
        assert_eq!(kinds(code, "tiled").unwrap(), [('p', 8), ('F', 8), ('o', 0)]);
        assert_eq!(kinds(code, "none").unwrap(), []);
        assert_eq!(kinds(code, "missing"), None);
    }

    #[test]
    fn templates_and_unreadable_lists_give_none() {
        let t = "template <typename T> __global__ void k(T* x, int n) {}";
        assert_eq!(kernel_params(t, "k"), None);
        let bad = "extern \"C\" __global__ void k(float x = 1) {}";
        assert_eq!(kernel_params(bad, "k"), None);
        let unclosed = "extern \"C\" __global__ void k(float x";
        assert_eq!(kernel_params(unclosed, "k"), None);
    }

    #[test]
    fn unnamed_and_template_typed_parameters() {
        let code = "extern \"C\" __global__ void k(int, unsigned, xp::complex<float> z, const int* __restrict__) {}";
        assert_eq!(kinds(code, "k").unwrap(), [('S', 4), ('U', 4), ('o', 0), ('p', 8)]);
    }
}
