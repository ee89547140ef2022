//! The types a kernel written in Rust may name, and their C++ spelling in xp's dialect.

use syn::spanned::Spanned;

/// A primitive scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prim {
    Bool,
    I8,
    I16,
    I32,
    I64,
    Isize,
    U8,
    U16,
    U32,
    U64,
    Usize,
    F32,
    F64,
}

impl Prim {
    pub const ALL: [Prim; 13] = [
        Prim::Bool,
        Prim::I8,
        Prim::I16,
        Prim::I32,
        Prim::I64,
        Prim::Isize,
        Prim::U8,
        Prim::U16,
        Prim::U32,
        Prim::U64,
        Prim::Usize,
        Prim::F32,
        Prim::F64,
    ];

    /// The Rust name.
    pub fn rust(self) -> &'static str {
        match self {
            Prim::Bool => "bool",
            Prim::I8 => "i8",
            Prim::I16 => "i16",
            Prim::I32 => "i32",
            Prim::I64 => "i64",
            Prim::Isize => "isize",
            Prim::U8 => "u8",
            Prim::U16 => "u16",
            Prim::U32 => "u32",
            Prim::U64 => "u64",
            Prim::Usize => "usize",
            Prim::F32 => "f32",
            Prim::F64 => "f64",
        }
    }

    pub fn from_name(s: &str) -> Option<Prim> {
        Prim::ALL.into_iter().find(|p| p.rust() == s)
    }

    /// The C++ type (`usize` is 64 bits wide on every backend).
    pub fn cpp(self) -> &'static str {
        match self {
            Prim::Bool => "bool",
            Prim::I8 => "xp::i8",
            Prim::I16 => "xp::i16",
            Prim::I32 => "xp::i32",
            Prim::I64 | Prim::Isize => "xp::i64",
            Prim::U8 => "xp::u8",
            Prim::U16 => "xp::u16",
            Prim::U32 => "xp::u32",
            Prim::U64 | Prim::Usize => "xp::u64",
            Prim::F32 => "float",
            Prim::F64 => "double",
        }
    }

    /// The `DType` variant of the runtime (`usize` as `U64`, `isize` as `I64`).
    pub fn dtype(self) -> &'static str {
        match self {
            Prim::Bool => "Bool",
            Prim::I8 => "I8",
            Prim::I16 => "I16",
            Prim::I32 => "I32",
            Prim::I64 | Prim::Isize => "I64",
            Prim::U8 => "U8",
            Prim::U16 => "U16",
            Prim::U32 => "U32",
            Prim::U64 | Prim::Usize => "U64",
            Prim::F32 => "F32",
            Prim::F64 => "F64",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Prim::F32 | Prim::F64)
    }

    pub fn is_int(self) -> bool {
        !self.is_float() && self != Prim::Bool
    }

    /// Whether plain C++ arithmetic already has Rust's (wrapping) meaning: floats, and unsigned
    /// types at least as wide as `int` (no promotion to a signed type, no undefined overflow).
    pub fn plain_arith(self) -> bool {
        matches!(self, Prim::F32 | Prim::F64 | Prim::U32 | Prim::U64 | Prim::Usize)
    }
}

/// The bound of a generic type parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Float,
    Int,
}

/// A type in a kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Prim(Prim),
    /// A type parameter (`T: xp::Float`), instantiated per dtype at launch.
    Generic(String, Bound),
    /// `&[T]` or `&mut [T]`: a pointer and a length.
    Slice(Box<Ty>, bool),
    /// `[T; N]` (shared or local arrays): the length as C++ text.
    Array(Box<Ty>, String),
    /// `&T` / `&mut T` (device function parameters, elementwise outputs).
    Ref(Box<Ty>, bool),
    /// What `thread_idx()` and friends return.
    Dim3,
    Unit,
}

impl Ty {
    /// The C++ spelling of a value of this type (arrays and slices have none of their own).
    pub fn cpp(&self) -> String {
        match self {
            Ty::Prim(p) => p.cpp().to_string(),
            Ty::Generic(n, _) => n.clone(),
            Ty::Slice(e, _) => format!("{}*", e.cpp()),
            Ty::Array(e, _) => format!("{}*", e.cpp()),
            Ty::Ref(e, _) => format!("{}&", e.cpp()),
            Ty::Dim3 => "dim3".to_string(),
            Ty::Unit => "void".to_string(),
        }
    }

    /// The element type of a slice or an array.
    pub fn elem(&self) -> Option<&Ty> {
        match self {
            Ty::Slice(e, _) | Ty::Array(e, _) => Some(e),
            Ty::Ref(e, _) => e.elem(),
            _ => None,
        }
    }

    pub fn is_float(&self) -> bool {
        match self {
            Ty::Prim(p) => p.is_float(),
            Ty::Generic(_, b) => *b == Bound::Float,
            _ => false,
        }
    }

    pub fn is_scalar(&self) -> bool {
        matches!(self, Ty::Prim(_) | Ty::Generic(..))
    }
}

/// What the parameter list of a kernel may name, in one sentence for errors.
pub const SUPPORTED_TYPES: &str =
    "a primitive scalar (`f32`, `f64`, `i8`…`i64`, `u8`…`u64`, `usize`, `isize`, `bool`) \
     or a type parameter bounded by `xp::Float` or `xp::Int`";

/// The scalar type `ty` names, with `generics` in scope.
pub fn scalar_type(ty: &syn::Type, generics: &[(String, Bound)]) -> syn::Result<Ty> {
    let err = || syn::Error::new(ty.span(), format!("unsupported type in a kernel: use {SUPPORTED_TYPES}"));
    let syn::Type::Path(p) = ty else { return Err(err()) };
    if p.qself.is_some() || p.path.segments.len() != 1 {
        return Err(err());
    }
    let seg = &p.path.segments[0];
    if !seg.arguments.is_none() {
        return Err(err());
    }
    let name = seg.ident.to_string();
    if let Some(p) = Prim::from_name(&name) {
        return Ok(Ty::Prim(p));
    }
    if let Some((n, b)) = generics.iter().find(|(n, _)| *n == name) {
        return Ok(Ty::Generic(n.clone(), *b));
    }
    Err(err())
}

/// A local's type: scalars, and arrays `[T; N]` of them (N a literal or a constant's name).
pub fn local_type(ty: &syn::Type, generics: &[(String, Bound)]) -> syn::Result<Ty> {
    match ty {
        syn::Type::Array(a) => {
            let e = local_type(&a.elem, generics)?;
            Ok(Ty::Array(Box::new(e), array_len(&a.len)?))
        }
        syn::Type::Paren(p) => local_type(&p.elem, generics),
        _ => scalar_type(ty, generics),
    }
}

/// The length of an array type or a `shared_array::<T, N>()`: an integer literal or a
/// constant's name, as C++ text.
pub fn array_len(e: &syn::Expr) -> syn::Result<String> {
    match e {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
            let v: u64 = i.base10_parse()?;
            Ok(format!("{v}"))
        }
        syn::Expr::Path(p) if p.path.segments.len() == 1 && p.qself.is_none() => {
            Ok(crate::translate::cpp_ident(&p.path.segments[0].ident.to_string()))
        }
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => array_len(e),
            _ => Err(syn::Error::new(e.span(), "an array length must be an integer literal or a constant's name")),
        },
        _ => Err(syn::Error::new(e.span(), "an array length must be an integer literal or a constant's name")),
    }
}

/// The generic parameters of a kernel: `T: xp::Float` or `T: xp::Int` (also `Float`, `Int`).
pub fn generics(g: &syn::Generics) -> syn::Result<Vec<(String, Bound)>> {
    let mut out = Vec::new();
    if let Some(w) = &g.where_clause {
        return Err(syn::Error::new(
            w.span(),
            "kernels take no `where` clause: bound type parameters in place (`T: xp::Float`)",
        ));
    }
    for p in &g.params {
        let syn::GenericParam::Type(t) = p else {
            return Err(syn::Error::new(
                p.span(),
                "kernels take only type parameters bounded by `xp::Float` or `xp::Int` (no lifetimes or const parameters)",
            ));
        };
        let bound = t.bounds.iter().find_map(|b| match b {
            syn::TypeParamBound::Trait(tb) => {
                let last = tb.path.segments.last()?.ident.to_string();
                match last.as_str() {
                    "Float" => Some(Bound::Float),
                    "Int" => Some(Bound::Int),
                    _ => None,
                }
            }
            _ => None,
        });
        let Some(bound) = bound else {
            return Err(syn::Error::new(t.span(), "bound each type parameter by `xp::Float` or `xp::Int`"));
        };
        if t.bounds.len() != 1 {
            return Err(syn::Error::new(
                t.bounds.span(),
                "a kernel's type parameter takes one bound: `xp::Float` or `xp::Int`",
            ));
        }
        out.push((t.ident.to_string(), bound));
    }
    Ok(out)
}
