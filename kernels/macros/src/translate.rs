//! The translation of a function body (a Rust subset) into xp's C++ dialect.
//!
//! One walk over syn's tree writes an output tree ([`Out`]) whose holes depend on types, and
//! records typing constraints between type variables (Rust's rules for the subset: both sides
//! of an arithmetic operator or a comparison share a type, an index is a `usize`, a literal
//! without a suffix takes the type its neighbours give it, else `i32` or `f64`). The
//! constraints are then solved by union–find and the holes filled: a literal is written in
//! its type (a float literal next to an `f32` is a `float`), and an operator whose C++ meaning
//! differs from Rust's becomes a call of the helpers of `xp_rust.h` (wrapping integer
//! arithmetic, masked shifts, defined division by zero, saturating casts).
//!
//! Types the walk cannot know — the result of a device function, a constant captured from
//! the enclosing module — are opaque: values of them are declared `auto` and go through the
//! helpers, which choose by their C++ type; a literal whose type only such a value decides is
//! an error asking for a suffix.

use std::collections::HashSet;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, Pat, Stmt, UnOp};

use crate::types::{local_type, scalar_type, Bound, Prim, Ty};

/// Which macro a body belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `#[xp::rawkernel]`: explicit grid, barriers and shared memory.
    Raw,
    /// `#[xp::kernel]`: one element per call, no indices of its own.
    Elementwise,
    /// `#[xp::device]`: a helper called from kernels.
    Device,
}

/// How a name in the body is bound.
#[derive(Clone, Debug, PartialEq)]
pub enum BindKind {
    /// A scalar value (parameter or local).
    Value,
    /// A slice parameter (pointer, and its length in `len`).
    Slice,
    /// A `[T; N]` (local or shared).
    Array,
    /// Dynamic shared memory: a slice of unknown length.
    DynShared,
    /// `&T` / `&mut T`: read and written through `*name`.
    Ref,
    /// A `dim3` (`let t = thread_idx();`).
    Dim3,
}

/// A parameter of the function, as the translation sees it.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub cpp: String,
    pub ty: Ty,
    pub kind: BindKind,
}

#[derive(Clone, Debug)]
struct Bind {
    cpp: String,
    var: usize,
    kind: BindKind,
    len: Option<String>,
}

#[derive(Clone, Debug, Default)]
struct Slot {
    known: Option<Ty>,
    int_lit: bool,
    float_lit: bool,
    opaque: bool,
}

/// The output tree: text with holes that the solved types fill.
#[derive(Clone)]
pub enum Out {
    S(String),
    Seq(Vec<Out>),
    /// A literal without a suffix.
    Lit {
        var: usize,
        digits: String,
        float: bool,
        span: Span,
    },
    /// The type of a `let` (or `auto`).
    Ty {
        var: usize,
    },
    /// A binary operator (also the compound assignments).
    Bin {
        var: usize,
        op: BinOp,
        l: Box<Out>,
        r: Box<Out>,
    },
    /// `-e` or `!e`.
    Un {
        var: usize,
        neg: bool,
        e: Box<Out>,
    },
    /// `e as To`.
    Cast {
        from: usize,
        to: Ty,
        e: Box<Out>,
    },
}

fn s(t: impl Into<String>) -> Out {
    Out::S(t.into())
}

fn seq(v: Vec<Out>) -> Out {
    Out::Seq(v)
}

/// Where the value of a block's tail expression goes.
#[derive(Clone)]
enum Sink {
    Discard,
    Return,
    Assign(String, usize),
}

/// What a translated body needs besides its text.
#[derive(Default)]
pub struct Translation {
    /// The C++ statements of the body.
    pub body: String,
    /// The device functions it calls (paths as written).
    pub devices: Vec<syn::Path>,
    /// The constants of the enclosing scope it reads.
    pub consts: Vec<syn::Ident>,
    /// Whether it calls `sync_threads()` (directly).
    pub uses_sync: bool,
}

/// What the body may call, in one sentence for errors.
#[allow(dead_code)]
pub const SUPPORTED_BUILTINS: &str = "thread_idx(), block_idx(), block_dim(), grid_dim() (with .x/.y/.z), \
     sync_threads(), sync_warp(), shared_array::<T, N>(), shared_dyn::<T>(), atomic_add/sub/min/max/and/or/xor/exch/cas, \
     shfl/shfl_down/shfl_up/shfl_xor, ballot, warp_any, warp_all, lane_id(), warp_size(), \
     T::from_f64/from_i64/from_usize, and functions marked #[xp::device]";

const SUPPORTED_SYNTAX: &str = "`let`, assignments (also `+=` …), arithmetic, comparisons, `if`/`else`, `while`, \
     `loop`, `for i in a..b` (and `..=`, `.step_by(s)`), `break`, `continue`, `return`, `as` casts, method calls of \
     the math functions, slice indexing and `.len()`";

/// C++ keywords and names the dialect defines, which a Rust name must not become.
const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "dim3",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "xp",
    "std",
    "min",
    "max",
    "abs",
    "sqrt",
    "exp",
    "log",
    "sin",
    "cos",
    "tan",
    "pow",
    "fma",
    "floor",
    "ceil",
    "round",
    "trunc",
    "NULL",
    "assert",
    "printf",
    "main",
    "isnan",
    "isinf",
    "fmax",
    "fmin",
    "signbit",
];

/// The C++ name of a Rust identifier: itself, unless C++ or the dialect reserve it (then
/// `rs_` before it).
pub fn cpp_ident(name: &str) -> String {
    let name = name.strip_prefix("r#").unwrap_or(name);
    let risky = RESERVED.contains(&name)
        || name.starts_with('_')
        || name.starts_with("xp_")
        || name.contains("__")
        || name.ends_with('_')
        || ["in", "out"]
            .iter()
            .any(|p| name.strip_prefix(p).is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit())));
    if risky {
        format!("rs_{name}")
    } else {
        name.to_string()
    }
}

fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

type R<T> = syn::Result<T>;

/// The translator of one function.
pub struct Cx<'g> {
    mode: Mode,
    generics: &'g [(String, Bound)],
    parent: Vec<usize>,
    slots: Vec<Slot>,
    scopes: Vec<Vec<(String, usize)>>,
    binds: Vec<Bind>,
    used: HashSet<String>,
    devices: Vec<syn::Path>,
    consts: Vec<syn::Ident>,
    uses_sync: bool,
    ret: Option<usize>,
    tmp: usize,
    loops: usize,
    /// (array variable, element variable) of arrays made by `[v; N]`.
    array_elems: Vec<(usize, usize)>,
}

impl<'g> Cx<'g> {
    /// A translator for a function with `params` and `generics`; `ret` is its return type
    /// (device functions).
    pub fn new(mode: Mode, generics: &'g [(String, Bound)], params: &[Param], ret: Option<Ty>) -> Cx<'g> {
        let mut cx = Cx {
            mode,
            generics,
            parent: Vec::new(),
            slots: Vec::new(),
            scopes: vec![Vec::new()],
            binds: Vec::new(),
            used: HashSet::new(),
            devices: Vec::new(),
            consts: Vec::new(),
            uses_sync: false,
            ret: None,
            tmp: 0,
            loops: 0,
            array_elems: Vec::new(),
        };
        for p in params {
            let var = cx.known(p.ty.clone());
            let len = if p.kind == BindKind::Slice { Some(format!("{}_len", p.cpp)) } else { None };
            cx.used.insert(p.cpp.clone());
            if let Some(l) = &len {
                cx.used.insert(l.clone());
            }
            cx.binds.push(Bind { cpp: p.cpp.clone(), var, kind: p.kind.clone(), len });
            let b = cx.binds.len() - 1;
            cx.scopes[0].push((p.name.clone(), b));
        }
        if let Some(t) = ret {
            cx.ret = Some(cx.known(t));
        }
        cx
    }

    // ---- type variables ----------------------------------------------------------------------

    fn var(&mut self, slot: Slot) -> usize {
        self.parent.push(self.parent.len());
        self.slots.push(slot);
        self.slots.len() - 1
    }

    fn known(&mut self, t: Ty) -> usize {
        self.var(Slot { known: Some(t), ..Slot::default() })
    }

    fn find(&mut self, v: usize) -> usize {
        let mut r = v;
        while self.parent[r] != r {
            r = self.parent[r];
        }
        let mut v = v;
        while self.parent[v] != r {
            let next = self.parent[v];
            self.parent[v] = r;
            v = next;
        }
        r
    }

    fn unify(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        let sb = self.slots[b].clone();
        let sa = &mut self.slots[a];
        if sa.known.is_none() {
            sa.known = sb.known;
        }
        sa.int_lit |= sb.int_lit;
        sa.float_lit |= sb.float_lit;
        sa.opaque |= sb.opaque;
        self.parent[b] = a;
    }

    fn ty_of(&mut self, v: usize) -> Option<Ty> {
        let r = self.find(v);
        let s = &self.slots[r];
        if let Some(t) = &s.known {
            return Some(t.clone());
        }
        if s.opaque {
            return None;
        }
        if s.float_lit {
            return Some(Ty::Prim(Prim::F64));
        }
        if s.int_lit {
            return Some(Ty::Prim(Prim::I32));
        }
        None
    }

    fn opaque(&mut self) -> usize {
        self.var(Slot { opaque: true, ..Slot::default() })
    }

    // ---- names -------------------------------------------------------------------------------

    fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes.iter().rev().find_map(|s| s.iter().rev().find(|(n, _)| n == name).map(|(_, b)| *b))
    }

    /// A new binding of `name`, with a C++ name unique in the function.
    fn bind(&mut self, name: &str, var: usize, kind: BindKind, len: Option<String>) -> String {
        let base = cpp_ident(name);
        let mut cpp = base.clone();
        let mut k = 1;
        while self.used.contains(&cpp) {
            cpp = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(cpp.clone());
        self.binds.push(Bind { cpp: cpp.clone(), var, kind, len });
        let b = self.binds.len() - 1;
        self.scopes.last_mut().expect("a scope").push((name.to_string(), b));
        cpp
    }

    fn temp(&mut self, what: &str) -> String {
        self.tmp += 1;
        format!("xp_{what}{}", self.tmp)
    }

    // ---- the body ----------------------------------------------------------------------------

    /// Translate `body`; the text is final once the types are solved.
    pub fn translate(mut self, body: &syn::Block) -> R<Translation> {
        let sink = if self.ret.is_some() { Sink::Return } else { Sink::Discard };
        let out = self.block_stmts(&body.stmts, sink, 1)?;
        let mut text = String::new();
        self.render(&out, &mut text)?;
        Ok(Translation { body: text, devices: self.devices, consts: self.consts, uses_sync: self.uses_sync })
    }

    fn render(&mut self, o: &Out, t: &mut String) -> R<()> {
        match o {
            Out::S(x) => t.push_str(x),
            Out::Seq(v) => {
                for x in v {
                    self.render(x, t)?;
                }
            }
            Out::Lit { var, digits, float, span } => {
                let ty = self.ty_of(*var);
                t.push_str(&literal(ty.as_ref(), digits, *float, *span)?);
            }
            Out::Ty { var } => match self.ty_of(*var) {
                Some(ty) if ty.is_scalar() => t.push_str(&ty.cpp()),
                _ => t.push_str("auto"),
            },
            Out::Un { var, neg, e } => {
                let ty = self.ty_of(*var);
                let plain = match (&ty, neg) {
                    (Some(ty), true) => ty.is_float(),
                    (Some(ty), false) => *ty == Ty::Prim(Prim::Bool),
                    _ => false,
                };
                match (plain, neg) {
                    (true, true) => t.push_str("(-"),
                    (true, false) => t.push_str("(!"),
                    (false, true) => t.push_str("xp::rs::neg("),
                    (false, false) => t.push_str("xp::rs::bnot("),
                }
                self.render(e, t)?;
                t.push(')');
            }
            Out::Cast { from, to, e } => {
                let from = self.ty_of(*from);
                let plain = match (&from, to) {
                    (Some(f), Ty::Prim(p)) => {
                        (f.is_scalar() && !matches!(f, Ty::Generic(..)))
                            && (p.is_float() || !f.is_float())
                            && !(*p == Prim::Bool)
                    }
                    _ => false,
                };
                if plain {
                    t.push_str(&format!("(({})(", to.cpp()));
                    self.render(e, t)?;
                    t.push_str("))");
                } else {
                    t.push_str(&format!("xp::rs::as_<{}>(", to.cpp()));
                    self.render(e, t)?;
                    t.push(')');
                }
            }
            Out::Bin { var, op, l, r } => {
                let ty = self.ty_of(*var);
                let (sym, helper, assign) = bin_parts(op);
                let plain = match (&ty, helper) {
                    (_, None) => true,
                    (Some(ty), Some(h)) => match h {
                        "add" | "sub" | "mul" => matches!(ty, Ty::Prim(p) if p.plain_arith()) || ty.is_float(),
                        "div" => ty.is_float(),
                        "band" | "bor" | "bxor" => {
                            matches!(ty, Ty::Prim(Prim::U32 | Prim::U64 | Prim::Usize))
                        }
                        _ => false,
                    },
                    (None, Some(_)) => false,
                };
                if plain {
                    if assign {
                        self.render(l, t)?;
                        t.push_str(&format!(" {sym} "));
                        self.render(r, t)?;
                    } else {
                        t.push('(');
                        self.render(l, t)?;
                        t.push_str(&format!(" {sym} "));
                        self.render(r, t)?;
                        t.push(')');
                    }
                } else {
                    let h = helper.expect("a helper");
                    t.push_str(&format!("xp::rs::{h}{}(", if assign { "_assign" } else { "" }));
                    self.render(l, t)?;
                    t.push_str(", ");
                    self.render(r, t)?;
                    t.push(')');
                }
            }
        }
        Ok(())
    }

    fn block_stmts(&mut self, stmts: &[Stmt], sink: Sink, ind: usize) -> R<Out> {
        let mut out = Vec::new();
        for (k, st) in stmts.iter().enumerate() {
            let last = k + 1 == stmts.len();
            out.push(self.stmt(st, if last { Some(sink.clone()) } else { None }, ind)?);
        }
        if stmts.is_empty() {
            if let Sink::Assign(..) | Sink::Return = sink {
                if self.ret.is_some() || matches!(sink, Sink::Assign(..)) {
                    // An empty block has no value: rustc reports the mismatch.
                }
            }
        }
        Ok(seq(out))
    }

    fn block(&mut self, b: &syn::Block, sink: Sink, ind: usize) -> R<Out> {
        self.scopes.push(Vec::new());
        let r = self.block_stmts(&b.stmts, sink, ind + 1);
        self.scopes.pop();
        Ok(seq(vec![s("{\n"), r?, s(format!("{}}}", pad(ind)))]))
    }

    fn stmt(&mut self, st: &Stmt, tail: Option<Sink>, ind: usize) -> R<Out> {
        let p = pad(ind);
        match st {
            Stmt::Local(l) => self.local(l, ind),
            Stmt::Item(syn::Item::Const(c)) => {
                let ty = local_type(&c.ty, self.generics)?;
                if !ty.is_scalar() {
                    return Err(err(c.ty.span(), "a constant in a kernel has a scalar type"));
                }
                let var = self.known(ty.clone());
                let (e, ev) = self.expr(&c.expr)?;
                self.unify(var, ev);
                let cpp = self.bind(&c.ident.to_string(), var, BindKind::Value, None);
                Ok(seq(vec![s(format!("{p}constexpr {} {cpp} = ", ty.cpp())), e, s(";\n")]))
            }
            Stmt::Item(i) => Err(err(i.span(), "a kernel body holds no items other than `const`s")),
            Stmt::Macro(m) => {
                Err(err(m.span(), format!("macros are not supported in kernels; the body may use {SUPPORTED_SYNTAX}")))
            }
            Stmt::Expr(e, semi) => {
                let sink = match (semi, tail) {
                    (None, Some(sink)) => sink,
                    _ => Sink::Discard,
                };
                self.stmt_expr(e, sink, ind)
            }
        }
    }

    /// An expression in statement position, its value going to `sink`.
    fn stmt_expr(&mut self, e: &Expr, sink: Sink, ind: usize) -> R<Out> {
        let p = pad(ind);
        match e {
            Expr::If(i) => {
                let (c, cv) = self.expr(&i.cond)?;
                let b = self.known(Ty::Prim(Prim::Bool));
                self.unify(cv, b);
                let then = self.block(&i.then_branch, sink.clone(), ind)?;
                let mut v = vec![s(format!("{p}if (")), c, s(") "), then];
                match &i.else_branch {
                    Some((_, e)) => {
                        v.push(s(" else "));
                        match &**e {
                            Expr::If(_) => {
                                let inner = self.stmt_expr(e, sink, ind)?;
                                v.push(Out::S(String::new()));
                                // `else if`: drop the inner statement's indentation.
                                v.push(trim_start(inner));
                            }
                            Expr::Block(b) => v.push(self.block(&b.block, sink, ind)?),
                            other => return Err(err(other.span(), "an `else` takes a block")),
                        }
                        v.push(s("\n"));
                    }
                    None => v.push(s("\n")),
                }
                Ok(seq(v))
            }
            Expr::While(w) => {
                if let Some(l) = &w.label {
                    return Err(err(l.span(), "loop labels are not supported in kernels"));
                }
                let (c, cv) = self.expr(&w.cond)?;
                let b = self.known(Ty::Prim(Prim::Bool));
                self.unify(cv, b);
                self.loops += 1;
                let body = self.block(&w.body, Sink::Discard, ind);
                self.loops -= 1;
                Ok(seq(vec![s(format!("{p}while (")), c, s(") "), body?, s("\n")]))
            }
            Expr::Loop(l) => {
                if let Some(l) = &l.label {
                    return Err(err(l.span(), "loop labels are not supported in kernels"));
                }
                self.loops += 1;
                let body = self.block(&l.body, Sink::Discard, ind);
                self.loops -= 1;
                Ok(seq(vec![s(format!("{p}for (;;) ")), body?, s("\n")]))
            }
            Expr::ForLoop(f) => self.for_loop(f, ind),
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                let inner = self.block(&b.block, sink, ind)?;
                Ok(seq(vec![s(p), inner, s("\n")]))
            }
            Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    return Err(err(b.span(), "`break` takes no label and no value in kernels"));
                }
                if self.loops == 0 {
                    return Err(err(b.span(), "`break` outside a loop"));
                }
                Ok(s(format!("{p}break;\n")))
            }
            Expr::Continue(c) => {
                if c.label.is_some() {
                    return Err(err(c.span(), "`continue` takes no label in kernels"));
                }
                Ok(s(format!("{p}continue;\n")))
            }
            Expr::Return(r) => {
                if self.mode == Mode::Elementwise {
                    return Err(err(
                        r.span(),
                        "`return` is not supported in #[xp::kernel] (its body runs once per element inside a loop): \
                         use `if`/`else`",
                    ));
                }
                match (&r.expr, self.ret) {
                    (Some(e), Some(rv)) => {
                        let (o, v) = self.expr(e)?;
                        self.unify(v, rv);
                        Ok(seq(vec![s(format!("{p}return ")), o, s(";\n")]))
                    }
                    (None, None) => Ok(s(format!("{p}return;\n"))),
                    (Some(e), None) => Err(err(e.span(), "this function returns nothing")),
                    (None, Some(_)) => Err(err(r.span(), "this function returns a value")),
                }
            }
            Expr::Assign(a) => {
                let (l, lv) = self.place(&a.left)?;
                let (r, rv) = self.expr(&a.right)?;
                self.unify(lv, rv);
                Ok(seq(vec![s(p), l, s(" = "), r, s(";\n")]))
            }
            Expr::Binary(b) if is_assign_op(&b.op) => {
                let (l, lv) = self.place(&b.left)?;
                let (r, rv) = self.expr(&b.right)?;
                if !matches!(b.op, BinOp::ShlAssign(_) | BinOp::ShrAssign(_)) {
                    self.unify(lv, rv);
                }
                let var = lv;
                Ok(seq(vec![s(p), Out::Bin { var, op: b.op, l: Box::new(l), r: Box::new(r) }, s(";\n")]))
            }
            _ => {
                let (o, v) = self.expr(e)?;
                match sink {
                    Sink::Discard => Ok(seq(vec![s(p), o, s(";\n")])),
                    Sink::Return => {
                        let rv = self.ret.expect("a return type");
                        self.unify(v, rv);
                        Ok(seq(vec![s(format!("{p}return ")), o, s(";\n")]))
                    }
                    Sink::Assign(name, var) => {
                        self.unify(v, var);
                        Ok(seq(vec![s(format!("{p}{name} = ")), o, s(";\n")]))
                    }
                }
            }
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop, ind: usize) -> R<Out> {
        let p = pad(ind);
        if let Some(l) = &f.label {
            return Err(err(l.span(), "loop labels are not supported in kernels"));
        }
        let name = match &*f.pat {
            Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() => Some(i.ident.to_string()),
            Pat::Wild(_) => None,
            other => return Err(err(other.span(), "a `for` loop binds one name (or `_`)")),
        };
        let bad = || err(f.expr.span(), "`for` loops iterate over a range: `a..b`, `a..=b` or `(a..b).step_by(s)`");
        let (range, step) = match strip_paren(&f.expr) {
            Expr::Range(r) => (r, None),
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => match strip_paren(&m.receiver) {
                Expr::Range(r) => (r, Some(&m.args[0])),
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        };
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            return Err(err(range.span(), "a `for` range needs both ends (`a..b`)"));
        };
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        let (a, av) = self.expr(start)?;
        let (b, bv) = self.expr(end)?;
        self.unify(av, bv);
        let (st, stv) = match step {
            Some(e) => {
                let (o, v) = self.expr(e)?;
                let u = self.known(Ty::Prim(Prim::Usize));
                self.unify(v, u);
                (Some(o), Some(v))
            }
            None => (None, None),
        };
        let _ = stv;
        self.scopes.push(Vec::new());
        let var = av;
        let ty = Out::Ty { var };
        let i = match &name {
            Some(n) => self.bind(n, var, BindKind::Value, None),
            None => self.temp("i"),
        };
        let e = self.temp("end");
        self.loops += 1;
        let body = self.block(&f.body, Sink::Discard, ind);
        self.loops -= 1;
        self.scopes.pop();
        let body = body?;
        // Each end is evaluated once, as Rust's range is, and no step goes past the end (so
        // nothing overflows); a step of 0 runs no iteration (Rust panics).
        Ok(match (inclusive, st) {
            (false, None) => seq(vec![
                s(format!("{p}for (")),
                ty,
                s(format!(" {i} = ")),
                a,
                s(format!(", {e} = ")),
                b,
                s(format!("; {i} < {e}; ++{i}) ")),
                body,
                s("\n"),
            ]),
            (false, Some(st)) => {
                let k = self.temp("step");
                seq(vec![
                    s(format!("{p}for (")),
                    ty.clone(),
                    s(format!(" {i} = ")),
                    a,
                    s(format!(", {e} = ")),
                    b,
                    s(format!(", {k} = (")),
                    ty,
                    s(")("),
                    st,
                    s(format!("); {k} != 0 && {i} < {e}; {i} = ({e} - {i} > {k}) ? ({i} + {k}) : {e}) ")),
                    body,
                    s("\n"),
                ])
            }
            (true, st) => {
                if st.is_some() {
                    return Err(err(f.expr.span(), "`.step_by` takes a half-open range `a..b` in kernels"));
                }
                let more = self.temp("more");
                let first = self.temp("first");
                seq(vec![
                    s(format!("{p}{{\n{p}  ")),
                    ty.clone(),
                    s(format!(" {first} = ")),
                    a,
                    s(format!(", {e} = ")),
                    b,
                    s(format!(";\n{p}  bool {more} = {first} <= {e};\n{p}  for (")),
                    ty,
                    s(format!(" {i} = {first}; {more}; {more} = ({i} < {e}), {i} = {more} ? ({i} + 1) : {i}) ")),
                    body,
                    s(format!("\n{p}}}\n")),
                ])
            }
        })
    }

    fn local(&mut self, l: &syn::Local, ind: usize) -> R<Out> {
        let p = pad(ind);
        let (pat, ann) = match &l.pat {
            Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            other => (other, None),
        };
        let name = match pat {
            Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() => Some(i.ident.to_string()),
            Pat::Wild(_) => None,
            other => {
                return Err(err(
                    other.span(),
                    "`let` binds one name (patterns and tuples are not supported in kernels)",
                ))
            }
        };
        let ann_ty = match ann {
            Some(t) => Some(local_type(t, self.generics)?),
            None => None,
        };
        if let Some(init) = &l.init {
            if let Some((_, d)) = &init.diverge {
                return Err(err(d.span(), "`let … else` is not supported in kernels"));
            }
        }
        let init = l.init.as_ref().map(|i| &*i.expr);
        let Some(name) = name else {
            // `let _ = e;`: evaluated for its effects.
            return match init {
                Some(e) => {
                    let (o, _) = self.expr(e)?;
                    Ok(seq(vec![s(format!("{p}(void)(")), o, s(");\n")]))
                }
                None => Ok(s(String::new())),
            };
        };
        // Shared memory and arrays.
        if let Some(e) = init {
            if let Some(o) = self.array_local(&name, e, ann_ty.as_ref(), ind)? {
                return Ok(o);
            }
        }
        let var = match &ann_ty {
            Some(t) if t.is_scalar() => self.known(t.clone()),
            Some(t) => {
                return Err(err(
                    ann.map_or(l.span(), |a| a.span()),
                    format!("an array local is declared `let a = [v; N];` (type `{}`)", t.cpp()),
                ))
            }
            None => self.var(Slot::default()),
        };
        match init {
            None => {
                let cpp = self.bind(&name, var, BindKind::Value, None);
                Ok(seq(vec![s(p), Out::Ty { var }, s(format!(" {cpp};\n"))]))
            }
            Some(Expr::If(i)) if !is_simple_if(i) => {
                // `let x = if c { …; a } else { …; b };`: declared, then assigned in each branch.
                if ann_ty.is_none() {
                    // The branches decide the type; they are walked before the name exists.
                }
                let tmp_name = self.temp("v");
                let decl_pos = Out::Ty { var };
                let body = self.stmt_expr(init.expect("an initialiser"), Sink::Assign(tmp_name.clone(), var), ind)?;
                let cpp = self.bind(&name, var, BindKind::Value, None);
                Ok(seq(vec![
                    s(p.clone()),
                    decl_pos.clone(),
                    s(format!(" {tmp_name};\n")),
                    body,
                    s(p),
                    decl_pos,
                    s(format!(" {cpp} = {tmp_name};\n")),
                ]))
            }
            Some(e) => {
                let (o, v) = self.expr(e)?;
                self.unify(var, v);
                let kind = if let Some(Ty::Dim3) = self.ty_of(var) { BindKind::Dim3 } else { BindKind::Value };
                let cpp = self.bind(&name, var, kind, None);
                Ok(seq(vec![s(p), Out::Ty { var }, s(format!(" {cpp} = ")), o, s(";\n")]))
            }
        }
    }

    /// `let a = shared_array::<T, N>();`, `let a = shared_dyn::<T>();`, `let a = [v; N];`.
    fn array_local(&mut self, name: &str, e: &Expr, ann: Option<&Ty>, ind: usize) -> R<Option<Out>> {
        let p = pad(ind);
        match e {
            Expr::Call(c) => {
                let Expr::Path(f) = &*c.func else { return Ok(None) };
                let Some(last) = f.path.segments.last() else { return Ok(None) };
                let which = last.ident.to_string();
                if f.path.segments.len() != 1 || !matches!(which.as_str(), "shared_array" | "shared_dyn") {
                    return Ok(None);
                }
                if self.mode != Mode::Raw {
                    return Err(err(c.span(), "shared memory is for #[xp::rawkernel] bodies"));
                }
                let generic_args: Vec<&syn::GenericArgument> = match &last.arguments {
                    syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
                    _ => Vec::new(),
                };
                if !c.args.is_empty() {
                    return Err(err(c.args.span(), format!("`{which}` takes no arguments")));
                }
                if which == "shared_array" {
                    let [syn::GenericArgument::Type(t), n] = generic_args.as_slice() else {
                        return Err(err(last.span(), "write `shared_array::<T, N>()`: an element type and a length"));
                    };
                    let n = match n {
                        syn::GenericArgument::Const(e) => self.len_of(e)?,
                        syn::GenericArgument::Type(syn::Type::Path(tp))
                            if tp.path.segments.len() == 1 && tp.qself.is_none() =>
                        {
                            self.len_name(&tp.path.segments[0].ident)
                        }
                        other => {
                            return Err(err(other.span(), "the length is an integer literal or a constant's name"))
                        }
                    };
                    let elem = local_type(t, self.generics)?;
                    let ty = Ty::Array(Box::new(elem.clone()), n.clone());
                    let var = self.known(ty);
                    let cpp = self.bind(name, var, BindKind::Array, Some(n.clone()));
                    let (base, dims) = array_decl(&elem);
                    return Ok(Some(s(format!("{p}__shared__ {base} {cpp}[{n}]{dims};\n"))));
                }
                let [syn::GenericArgument::Type(t)] = generic_args.as_slice() else {
                    return Err(err(last.span(), "write `shared_dyn::<T>()`: an element type"));
                };
                let elem = scalar_type(t, self.generics)?;
                let var = self.known(Ty::Slice(Box::new(elem.clone()), true));
                let cpp = self.bind(name, var, BindKind::DynShared, None);
                // Own line: the CPU backend rewrites this declaration into its block scratch.
                Ok(Some(s(format!("{p}extern __shared__ {} {cpp}[];\n", elem.cpp()))))
            }
            Expr::Repeat(r) => {
                let n = self.len_of(&r.len)?;
                let (v, vv) = self.expr(&r.expr)?;
                if let Some(Ty::Array(e, _)) = ann {
                    let ev = self.known((**e).clone());
                    self.unify(vv, ev);
                }
                let var = self.known(Ty::Array(Box::new(Ty::Unit), n.clone()));
                let cpp = self.bind(name, var, BindKind::Array, Some(n.clone()));
                // The element type is the value's: remember it for indexing.
                let elem_var = vv;
                self.array_elems.push((var, elem_var));
                let k = self.temp("k");
                Ok(Some(seq(vec![
                    s(p.clone()),
                    Out::Ty { var: elem_var },
                    s(format!(" {cpp}[{n}];\n{p}for (xp::u64 {k} = 0; {k} < {n}; ++{k}) {cpp}[{k}] = ")),
                    v,
                    s(";\n"),
                ])))
            }
            _ => Ok(None),
        }
    }
}

/// Float methods written as a function of the same name in `xp::` (their Rust name, C++ name).
const FLOAT_UNARY: &[(&str, &str)] = &[
    ("sqrt", "xp::sqrt"),
    ("cbrt", "xp::cbrt"),
    ("exp", "xp::exp"),
    ("exp2", "xp::exp2"),
    ("exp_m1", "xp::expm1"),
    ("ln", "xp::log"),
    ("log2", "xp::log2"),
    ("log10", "xp::log10"),
    ("ln_1p", "xp::log1p"),
    ("sin", "xp::sin"),
    ("cos", "xp::cos"),
    ("tan", "xp::tan"),
    ("asin", "xp::asin"),
    ("acos", "xp::acos"),
    ("atan", "xp::atan"),
    ("sinh", "xp::sinh"),
    ("cosh", "xp::cosh"),
    ("tanh", "xp::tanh"),
    ("asinh", "xp::asinh"),
    ("acosh", "xp::acosh"),
    ("atanh", "xp::atanh"),
    ("floor", "xp::floor"),
    ("ceil", "xp::ceil"),
    ("trunc", "xp::trunc"),
    ("round", "xp::rs::round"),
    ("fract", "xp::rs::fract"),
    ("recip", "xp::rs::recip"),
    ("to_degrees", "xp::rs::to_degrees"),
    ("to_radians", "xp::rs::to_radians"),
    ("signum", "xp::rs::signum"),
    ("abs", "xp::rs::abs"),
];

/// Methods whose arguments have the receiver's type, and so does their result.
const SAME_TYPE: &[(&str, &str, usize)] = &[
    ("max", "xp::rs::max", 1),
    ("min", "xp::rs::min", 1),
    ("clamp", "xp::rs::clamp", 2),
    ("powf", "xp::pow", 1),
    ("atan2", "xp::atan2", 1),
    ("hypot", "xp::hypot", 1),
    ("copysign", "xp::copysign", 1),
    ("mul_add", "xp::rs::mul_add", 2),
    ("log", "xp::rs::log_base", 1),
    ("wrapping_add", "xp::rs::add", 1),
    ("wrapping_sub", "xp::rs::sub", 1),
    ("wrapping_mul", "xp::rs::mul", 1),
    ("saturating_add", "xp::rs::saturating_add", 1),
    ("saturating_sub", "xp::rs::saturating_sub", 1),
];

const PREDICATES: &[(&str, &str)] = &[
    ("is_nan", "xp::rs::is_nan"),
    ("is_infinite", "xp::rs::is_infinite"),
    ("is_finite", "xp::rs::is_finite"),
    ("is_sign_negative", "xp::rs::is_sign_negative"),
    ("is_sign_positive", "xp::rs::is_sign_positive"),
];

const BIT_COUNTS: &[(&str, &str)] = &[
    ("count_ones", "xp::rs::count_ones"),
    ("leading_zeros", "xp::rs::leading_zeros"),
    ("trailing_zeros", "xp::rs::trailing_zeros"),
];

const ATOMICS: &[(&str, usize)] = &[
    ("atomic_add", 2),
    ("atomic_sub", 2),
    ("atomic_min", 2),
    ("atomic_max", 2),
    ("atomic_and", 2),
    ("atomic_or", 2),
    ("atomic_xor", 2),
    ("atomic_exch", 2),
    ("atomic_cas", 3),
];

impl Cx<'_> {
    fn len_of(&mut self, e: &Expr) -> R<String> {
        match e {
            Expr::Path(p) if p.path.segments.len() == 1 && p.qself.is_none() => {
                Ok(self.len_name(&p.path.segments[0].ident))
            }
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                Stmt::Expr(e, None) => self.len_of(e),
                _ => crate::types::array_len(e),
            },
            _ => crate::types::array_len(e),
        }
    }

    /// The C++ name of constant `id` used as a length: a local `const`, or one captured.
    fn len_name(&mut self, id: &syn::Ident) -> String {
        let name = id.to_string();
        if let Some(b) = self.lookup(&name) {
            return self.binds[b].cpp.clone();
        }
        self.capture(id)
    }

    fn capture(&mut self, id: &syn::Ident) -> String {
        if !self.consts.iter().any(|c| c == id) {
            self.consts.push(id.clone());
        }
        cpp_ident(&id.to_string())
    }

    /// An expression that can be assigned to.
    fn place(&mut self, e: &Expr) -> R<(Out, usize)> {
        match e {
            Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                match self.lookup(&name) {
                    Some(b) if self.binds[b].kind == BindKind::Value => {
                        let b = &self.binds[b];
                        Ok((s(b.cpp.clone()), b.var))
                    }
                    Some(_) => {
                        Err(err(e.span(), "assign to an element (`x[i] = v`) or through a reference (`*y = v`)"))
                    }
                    None => Err(err(e.span(), format!("`{name}` is not a local variable of the kernel"))),
                }
            }
            Expr::Index(_) | Expr::Unary(syn::ExprUnary { op: UnOp::Deref(_), .. }) => self.expr(e),
            Expr::Paren(p) => self.place(&p.expr),
            _ => Err(err(e.span(), "this cannot be assigned to in a kernel: assign to a local, `x[i]` or `*y`")),
        }
    }

    /// An expression: its output and its type variable.
    pub fn expr(&mut self, e: &Expr) -> R<(Out, usize)> {
        match e {
            Expr::Lit(l) => self.lit(&l.lit),
            Expr::Paren(p) => {
                let (o, v) = self.expr(&p.expr)?;
                Ok((seq(vec![s("("), o, s(")")]), v))
            }
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Path(p) => self.path(p),
            Expr::Binary(b) => {
                if is_assign_op(&b.op) {
                    return Err(err(b.span(), "a compound assignment is a statement in kernels"));
                }
                let (l, lv) = self.expr(&b.left)?;
                let (r, rv) = self.expr(&b.right)?;
                match b.op {
                    BinOp::And(_) | BinOp::Or(_) => {
                        let bl = self.known(Ty::Prim(Prim::Bool));
                        self.unify(lv, bl);
                        self.unify(rv, bl);
                        let sym = if matches!(b.op, BinOp::And(_)) { "&&" } else { "||" };
                        Ok((seq(vec![s("("), l, s(format!(" {sym} ")), r, s(")")]), bl))
                    }
                    BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_) => {
                        self.unify(lv, rv);
                        let bl = self.known(Ty::Prim(Prim::Bool));
                        Ok((Out::Bin { var: lv, op: b.op, l: Box::new(l), r: Box::new(r) }, bl))
                    }
                    BinOp::Shl(_) | BinOp::Shr(_) => {
                        Ok((Out::Bin { var: lv, op: b.op, l: Box::new(l), r: Box::new(r) }, lv))
                    }
                    _ => {
                        self.unify(lv, rv);
                        Ok((Out::Bin { var: lv, op: b.op, l: Box::new(l), r: Box::new(r) }, lv))
                    }
                }
            }
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => {
                    let (o, v) = self.expr(&u.expr)?;
                    Ok((Out::Un { var: v, neg: true, e: Box::new(o) }, v))
                }
                UnOp::Not(_) => {
                    let (o, v) = self.expr(&u.expr)?;
                    Ok((Out::Un { var: v, neg: false, e: Box::new(o) }, v))
                }
                UnOp::Deref(_) => {
                    if let Expr::Path(p) = strip_paren(&u.expr) {
                        if p.path.segments.len() == 1 {
                            if let Some(b) = self.lookup(&p.path.segments[0].ident.to_string()) {
                                if self.binds[b].kind == BindKind::Ref {
                                    let b = self.binds[b].clone();
                                    let inner = match self.ty_of(b.var) {
                                        Some(Ty::Ref(t, _)) => self.known(*t),
                                        _ => self.opaque(),
                                    };
                                    return Ok((s(b.cpp), inner));
                                }
                            }
                        }
                    }
                    Err(err(u.span(), "`*` dereferences a `&T` / `&mut T` parameter only"))
                }
                _ => Err(err(u.span(), "unsupported operator in a kernel")),
            },
            Expr::Cast(c) => {
                let to = scalar_type(&c.ty, self.generics)?;
                let (o, v) = self.expr(&c.expr)?;
                let out = self.known(to.clone());
                Ok((Out::Cast { from: v, to, e: Box::new(o) }, out))
            }
            Expr::Index(i) => {
                if let Expr::Range(r) = &*i.index {
                    return Err(err(
                        r.span(),
                        "sub-slices (`&x[a..b]`) are only passed to device functions; index one element: `x[i]`",
                    ));
                }
                let (b, bv) = self.expr(&i.expr)?;
                let (k, kv) = self.expr(&i.index)?;
                let u = self.known(Ty::Prim(Prim::Usize));
                self.unify(kv, u);
                let root = self.find(bv);
                let elems = self.array_elems.clone();
                let found = elems.into_iter().find(|(a, _)| self.find(*a) == root);
                let ev = match found {
                    Some((_, ev)) => ev,
                    None => match self.ty_of(bv).as_ref().and_then(|t| t.elem().cloned()) {
                        Some(t) => self.known(t),
                        None => return Err(err(i.expr.span(), "only slices and arrays can be indexed in kernels")),
                    },
                };
                Ok((seq(vec![b, s("["), k, s("]")]), ev))
            }
            Expr::Field(f) => {
                let syn::Member::Named(m) = &f.member else {
                    return Err(err(f.member.span(), "tuples are not supported in kernels"));
                };
                let (b, bv) = self.expr(&f.base)?;
                if self.ty_of(bv) != Some(Ty::Dim3) || !matches!(m.to_string().as_str(), "x" | "y" | "z") {
                    return Err(err(
                        f.span(),
                        "fields are read only of thread_idx(), block_idx(), block_dim() and grid_dim(): `.x`, `.y`, `.z`",
                    ));
                }
                let u = self.known(Ty::Prim(Prim::U32));
                // As a `u32` value: HIP's `blockDim.x` (and the others) is a coordinate type of
                // its own, which template arguments would not deduce as `unsigned int`.
                Ok((seq(vec![s("((xp::u32)"), b, s(format!(".{m})"))]), u))
            }
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) => self.call(c),
            Expr::If(i) if is_simple_if(i) => {
                let (c, cv) = self.expr(&i.cond)?;
                let bl = self.known(Ty::Prim(Prim::Bool));
                self.unify(cv, bl);
                let (a, av) = self.expr(single_expr(&i.then_branch).expect("simple"))?;
                let Some((_, else_e)) = &i.else_branch else { unreachable!("simple ifs have an else") };
                let (b, bv) = match &**else_e {
                    Expr::Block(b) => self.expr(single_expr(&b.block).expect("simple"))?,
                    other => self.expr(other)?,
                };
                self.unify(av, bv);
                Ok((seq(vec![s("("), c, s(" ? "), a, s(" : "), b, s(")")]), av))
            }
            Expr::If(i) => Err(err(
                i.span(),
                "an `if` with statements in its branches gives a value only as a `let` initialiser, a tail \
                 expression or a statement; write it as a statement",
            )),
            Expr::Block(b) if b.block.stmts.len() == 1 && b.label.is_none() => match single_expr(&b.block) {
                Some(e) => {
                    let (o, v) = self.expr(e)?;
                    Ok((seq(vec![s("("), o, s(")")]), v))
                }
                None => Err(err(b.span(), "a block gives a value in kernels only as a statement")),
            },
            Expr::Reference(r) => Err(err(
                r.span(),
                "references (`&x`, `&mut x`) are taken only as arguments of device functions and atomics",
            )),
            Expr::Repeat(r) => Err(err(r.span(), "an array `[v; N]` is only a `let` initialiser")),
            Expr::Assign(a) => Err(err(a.span(), "an assignment is a statement in kernels")),
            other => {
                Err(err(other.span(), format!("unsupported syntax in a kernel: the body may use {SUPPORTED_SYNTAX}")))
            }
        }
    }

    fn lit(&mut self, l: &Lit) -> R<(Out, usize)> {
        match l {
            Lit::Bool(b) => Ok((s(if b.value { "true" } else { "false" }), self.known(Ty::Prim(Prim::Bool)))),
            Lit::Int(i) => {
                let digits = i.base10_digits().to_string();
                let var = if i.suffix().is_empty() {
                    self.var(Slot { int_lit: true, ..Slot::default() })
                } else {
                    match Prim::from_name(i.suffix()) {
                        Some(p) => self.known(Ty::Prim(p)),
                        None => return Err(err(i.span(), "unsupported literal suffix in a kernel")),
                    }
                };
                Ok((Out::Lit { var, digits, float: false, span: i.span() }, var))
            }
            Lit::Float(f) => {
                let digits = f.base10_digits().to_string();
                let var = if f.suffix().is_empty() {
                    self.var(Slot { float_lit: true, ..Slot::default() })
                } else {
                    match Prim::from_name(f.suffix()) {
                        Some(p) => self.known(Ty::Prim(p)),
                        None => return Err(err(f.span(), "unsupported literal suffix in a kernel")),
                    }
                };
                Ok((Out::Lit { var, digits, float: true, span: f.span() }, var))
            }
            other => Err(err(other.span(), "kernels take numeric and boolean literals only")),
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> R<(Out, usize)> {
        if p.qself.is_some() {
            return Err(err(p.span(), "qualified paths are not supported in kernels"));
        }
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() == 1 {
            let id = &p.path.segments[0].ident;
            if let Some(b) = self.lookup(&segs[0]) {
                let b = &self.binds[b];
                return Ok((s(b.cpp.clone()), b.var));
            }
            if self.generics.iter().any(|(g, _)| *g == segs[0]) {
                return Err(err(p.span(), "a type parameter is not a value"));
            }
            // A constant of the enclosing scope, passed by value when the source is built.
            let cpp = self.capture(id);
            let v = self.opaque();
            return Ok((s(cpp), v));
        }
        let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
        let tail = match segs.as_slice() {
            ["std" | "core", rest @ ..] => rest,
            rest => rest,
        };
        match tail {
            [t, "consts", c] => match Prim::from_name(t).filter(|p| p.is_float()) {
                Some(pr) => {
                    let v =
                        float_const(c).ok_or_else(|| err(p.span(), format!("unknown constant `{t}::consts::{c}`")))?;
                    let var = self.known(Ty::Prim(pr));
                    Ok((s(float_text(pr, v)), var))
                }
                None => Err(err(p.span(), "unsupported path in a kernel")),
            },
            [t, c] if Prim::from_name(t).is_some() => {
                let pr = Prim::from_name(t).expect("a primitive");
                let text =
                    prim_const(pr, c).ok_or_else(|| err(p.span(), format!("unsupported constant `{t}::{c}`")))?;
                let var = self.known(Ty::Prim(pr));
                Ok((s(text), var))
            }
            _ => Err(err(
                p.span(),
                "unsupported path in a kernel: name locals, parameters, constants in scope (`TILE`), or `f32::MAX`, \
                 `f32::consts::PI` and their like",
            )),
        }
    }

    fn args(&mut self, args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) -> R<Vec<(Out, usize)>> {
        args.iter().map(|a| self.expr(a)).collect()
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> R<(Out, usize)> {
        let name = m.method.to_string();
        if let Some(t) = &m.turbofish {
            return Err(err(t.span(), "method calls take no type arguments in kernels"));
        }
        if name == "len" {
            if !m.args.is_empty() {
                return Err(err(m.args.span(), "`len` takes no arguments"));
            }
            if let Expr::Path(p) = strip_paren(&m.receiver) {
                if p.path.segments.len() == 1 {
                    if let Some(b) = self.lookup(&p.path.segments[0].ident.to_string()) {
                        if let Some(len) = self.binds[b].len.clone() {
                            let u = self.known(Ty::Prim(Prim::Usize));
                            return Ok((s(format!("((xp::u64){len})")), u));
                        }
                    }
                }
            }
            return Err(err(
                m.span(),
                "`.len()` is known for slice parameters and fixed-size arrays (not for `shared_dyn`)",
            ));
        }
        let (r, rv) = self.expr(&m.receiver)?;
        let args = self.args(&m.args)?;
        let want = |n: usize| -> R<()> {
            if m.args.len() != n {
                Err(err(m.span(), format!("`{name}` takes {n} argument(s)")))
            } else {
                Ok(())
            }
        };
        let call = |f: &str, r: Out, args: Vec<Out>| {
            let mut v = vec![s(format!("{f}(")), r];
            for a in args {
                v.push(s(", "));
                v.push(a);
            }
            v.push(s(")"));
            seq(v)
        };
        if let Some((_, f)) = FLOAT_UNARY.iter().find(|(n, _)| *n == name) {
            want(0)?;
            return Ok((call(f, r, vec![]), rv));
        }
        if let Some((_, f, n)) = SAME_TYPE.iter().find(|(k, _, _)| *k == name) {
            want(*n)?;
            let mut outs = Vec::new();
            for (o, v) in args {
                self.unify(v, rv);
                outs.push(o);
            }
            return Ok((call(f, r, outs), rv));
        }
        if let Some((_, f)) = PREDICATES.iter().find(|(n, _)| *n == name) {
            want(0)?;
            let bl = self.known(Ty::Prim(Prim::Bool));
            return Ok((call(f, r, vec![]), bl));
        }
        if let Some((_, f)) = BIT_COUNTS.iter().find(|(n, _)| *n == name) {
            want(0)?;
            let u = self.known(Ty::Prim(Prim::U32));
            return Ok((call(f, r, vec![]), u));
        }
        match name.as_str() {
            "powi" | "pow" => {
                want(1)?;
                let (o, v) = args.into_iter().next().expect("one argument");
                let t = self.known(Ty::Prim(if name == "powi" { Prim::I32 } else { Prim::U32 }));
                self.unify(v, t);
                Ok((call(&format!("xp::rs::{name}"), r, vec![o]), rv))
            }
            _ => Err(err(
                m.method.span(),
                format!(
                    "unknown method `{name}` in a kernel: the math methods are {}, {}, {}, powi, pow, {}, {} and `len`",
                    FLOAT_UNARY.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
                    SAME_TYPE.iter().map(|(n, _, _)| *n).collect::<Vec<_>>().join(", "),
                    PREDICATES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
                    BIT_COUNTS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
                    "is_nan…"
                ),
            )),
        }
    }

    fn call(&mut self, c: &syn::ExprCall) -> R<(Out, usize)> {
        let Expr::Path(f) = &*c.func else {
            return Err(err(c.func.span(), "kernels call functions by name"));
        };
        if f.qself.is_some() {
            return Err(err(f.span(), "qualified paths are not supported in kernels"));
        }
        let segs: Vec<String> = f.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let fspan = f.span();
        let nargs = |n: usize| -> R<()> {
            if c.args.len() != n {
                Err(err(c.span(), format!("`{}` takes {n} argument(s)", segs.join("::"))))
            } else {
                Ok(())
            }
        };
        if segs.len() == 2 {
            if let Some((g, b)) = self.generics.iter().find(|(g, _)| *g == segs[0]).cloned() {
                let from = match segs[1].as_str() {
                    "from_f64" => Prim::F64,
                    "from_f32" => Prim::F32,
                    "from_i64" => Prim::I64,
                    "from_i32" => Prim::I32,
                    "from_usize" => Prim::Usize,
                    _ => {
                        return Err(err(
                            fspan,
                            format!("`{g}::{}` is not supported: convert with `{g}::from_f64`, `from_f32`, `from_i64`, `from_i32` or `from_usize`", segs[1]),
                        ))
                    }
                };
                nargs(1)?;
                let (o, v) = self.expr(&c.args[0])?;
                let t = self.known(Ty::Prim(from));
                self.unify(v, t);
                let out = self.known(Ty::Generic(g.clone(), b));
                return Ok((seq(vec![s(format!("xp::rs::as_<{g}>(")), o, s(")")]), out));
            }
        }
        if segs.len() == 1 {
            let name = segs[0].as_str();
            match name {
                "thread_idx" | "block_idx" | "block_dim" | "grid_dim" => {
                    self.need_raw(c.span(), name)?;
                    nargs(0)?;
                    let text = match name {
                        "thread_idx" => "threadIdx",
                        "block_idx" => "blockIdx",
                        "block_dim" => "blockDim",
                        _ => "gridDim",
                    };
                    let d = self.known(Ty::Dim3);
                    return Ok((s(text), d));
                }
                "sync_threads" => {
                    self.need_raw(c.span(), name)?;
                    nargs(0)?;
                    self.uses_sync = true;
                    let u = self.known(Ty::Unit);
                    return Ok((s("__syncthreads()"), u));
                }
                "sync_warp" | "lane_id" | "warp_size" => {
                    self.need_raw(c.span(), name)?;
                    nargs(0)?;
                    let t = if name == "sync_warp" { Ty::Unit } else { Ty::Prim(Prim::U32) };
                    let v = self.known(t);
                    return Ok((s(format!("xp::rs::{name}()")), v));
                }
                "shared_array" | "shared_dyn" => {
                    return Err(err(
                        c.span(),
                        format!("`{name}` is called only as a `let` initialiser: `let tile = {name}::<…>();`"),
                    ));
                }
                "shfl" | "shfl_down" | "shfl_up" | "shfl_xor" => {
                    self.need_raw(c.span(), name)?;
                    nargs(2)?;
                    let (v, vv) = self.expr(&c.args[0])?;
                    let (l, lv) = self.expr(&c.args[1])?;
                    let u = self.known(Ty::Prim(Prim::U32));
                    self.unify(lv, u);
                    return Ok((seq(vec![s(format!("xp::rs::{name}(")), v, s(", "), l, s(")")]), vv));
                }
                "ballot" | "warp_any" | "warp_all" => {
                    self.need_raw(c.span(), name)?;
                    nargs(1)?;
                    let (v, vv) = self.expr(&c.args[0])?;
                    let bl = self.known(Ty::Prim(Prim::Bool));
                    self.unify(vv, bl);
                    let out = if name == "ballot" { self.known(Ty::Prim(Prim::U64)) } else { bl };
                    return Ok((seq(vec![s(format!("xp::rs::{name}(")), v, s(")")]), out));
                }
                _ => {}
            }
            if let Some((_, n)) = ATOMICS.iter().find(|(a, _)| *a == name) {
                nargs(*n)?;
                let Expr::Reference(r) = strip_paren(&c.args[0]) else {
                    return Err(err(
                        c.args[0].span(),
                        format!("`{name}` takes `&mut` of an element first: `{name}(&mut x[i], v)`"),
                    ));
                };
                if r.mutability.is_none() {
                    return Err(err(
                        r.span(),
                        format!("`{name}` takes `&mut` of an element first: `{name}(&mut x[i], v)`"),
                    ));
                }
                let (pl, pv) = self.place(&r.expr)?;
                let mut v = vec![s(format!("xp::rs::{name}(&(")), pl, s(")")];
                for a in c.args.iter().skip(1) {
                    let (o, av) = self.expr(a)?;
                    self.unify(av, pv);
                    v.push(s(", "));
                    v.push(o);
                }
                v.push(s(")"));
                return Ok((seq(v), pv));
            }
        }
        // A device function.
        self.device_call(c, f)
    }

    fn need_raw(&self, span: Span, name: &str) -> R<()> {
        if self.mode == Mode::Elementwise {
            return Err(err(
                span,
                format!(
                    "`{name}` is for #[xp::rawkernel] and #[xp::device] bodies: an elementwise kernel sees one element"
                ),
            ));
        }
        Ok(())
    }

    fn device_call(&mut self, c: &syn::ExprCall, f: &syn::ExprPath) -> R<(Out, usize)> {
        let last = f.path.segments.last().expect("a path has a segment");
        let mut name = format!("xp_user::{}", cpp_ident(&last.ident.to_string()));
        if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
            let mut tys = Vec::new();
            for g in &a.args {
                match g {
                    syn::GenericArgument::Type(t) => tys.push(scalar_type(t, self.generics)?.cpp()),
                    other => return Err(err(other.span(), "a device function takes type arguments only")),
                }
            }
            name = format!("{name}<{}>", tys.join(", "));
        }
        let mut path = f.path.clone();
        if let Some(l) = path.segments.last_mut() {
            l.arguments = syn::PathArguments::None;
        }
        let key = |p: &syn::Path| quote::ToTokens::to_token_stream(p).to_string();
        if !self.devices.iter().any(|d| key(d) == key(&path)) {
            self.devices.push(path);
        }
        let mut v = vec![s(format!("{name}("))];
        for (k, a) in c.args.iter().enumerate() {
            if k > 0 {
                v.push(s(", "));
            }
            v.push(self.device_arg(a)?);
        }
        v.push(s(")"));
        let out = self.opaque();
        Ok((seq(v), out))
    }

    /// An argument of a device function: slices travel with their length, `&x` / `&mut x`
    /// as C++ references, `&x[a..b]` as a pointer and a length.
    fn device_arg(&mut self, a: &Expr) -> R<Out> {
        match strip_paren(a) {
            Expr::Reference(r) => {
                if let Expr::Index(i) = strip_paren(&r.expr) {
                    if let Expr::Range(rg) = &*i.index {
                        let (b, bv) = self.expr(&i.expr)?;
                        if !matches!(self.ty_of(bv), Some(Ty::Slice(..) | Ty::Array(..))) {
                            return Err(err(i.expr.span(), "only slices and arrays are sliced"));
                        }
                        if matches!(rg.limits, syn::RangeLimits::Closed(_)) {
                            return Err(err(rg.span(), "sub-slices take a half-open range `a..b`"));
                        }
                        let (Some(lo), Some(hi)) = (&rg.start, &rg.end) else {
                            return Err(err(rg.span(), "sub-slices name both ends: `&x[a..b]`"));
                        };
                        let (lo, lv) = self.expr(lo)?;
                        let (hi, hv) = self.expr(hi)?;
                        let u = self.known(Ty::Prim(Prim::Usize));
                        self.unify(lv, u);
                        self.unify(hv, u);
                        return Ok(seq(vec![
                            s("("),
                            b,
                            s(" + "),
                            lo.clone(),
                            s("), (xp::u64)("),
                            hi,
                            s(" - "),
                            lo,
                            s(")"),
                        ]));
                    }
                }
                if let Some(o) = self.slice_arg(&r.expr)? {
                    return Ok(o);
                }
                let (o, v) = self.place(&r.expr)?;
                let op = self.opaque();
                self.unify(v, op);
                Ok(o)
            }
            other => {
                if let Some(o) = self.slice_arg(other)? {
                    return Ok(o);
                }
                let (o, v) = self.expr(other)?;
                let op = self.opaque();
                self.unify(v, op);
                Ok(o)
            }
        }
    }

    fn slice_arg(&mut self, e: &Expr) -> R<Option<Out>> {
        if let Expr::Path(p) = strip_paren(e) {
            if p.path.segments.len() == 1 {
                if let Some(b) = self.lookup(&p.path.segments[0].ident.to_string()) {
                    let b = self.binds[b].clone();
                    match b.kind {
                        BindKind::Slice | BindKind::Array => {
                            let len = b.len.unwrap_or_default();
                            return Ok(Some(s(format!("{}, (xp::u64){len}", b.cpp))));
                        }
                        BindKind::DynShared => {
                            return Err(err(e.span(), "pass dynamic shared memory with its length: `&tile[0..n]`"))
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(None)
    }
}

fn pad(ind: usize) -> String {
    "  ".repeat(ind)
}

fn trim_start(o: Out) -> Out {
    match o {
        Out::Seq(mut v) => {
            if let Some(Out::S(t)) = v.first_mut() {
                *t = t.trim_start().to_string();
            }
            Out::Seq(v)
        }
        Out::S(t) => Out::S(t.trim_start().to_string()),
        other => other,
    }
}

fn strip_paren(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_paren(&p.expr),
        Expr::Group(g) => strip_paren(&g.expr),
        other => other,
    }
}

fn single_expr(b: &syn::Block) -> Option<&Expr> {
    match b.stmts.as_slice() {
        [Stmt::Expr(e, None)] => Some(e),
        _ => None,
    }
}

/// An `if` whose branches are single expressions: a C++ conditional expression.
fn is_simple_if(i: &syn::ExprIf) -> bool {
    let Some((_, e)) = &i.else_branch else { return false };
    let else_ok = match &**e {
        Expr::Block(b) => single_expr(&b.block)
            .is_some_and(|e| !matches!(e, Expr::If(_)) || matches!(e, Expr::If(i) if is_simple_if(i))),
        Expr::If(inner) => is_simple_if(inner),
        _ => false,
    };
    else_ok
        && single_expr(&i.then_branch)
            .is_some_and(|e| !matches!(e, Expr::If(_)) || matches!(e, Expr::If(i) if is_simple_if(i)))
}

fn is_assign_op(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

/// (C++ symbol, helper of `xp_rust.h` where plain C++ differs from Rust, is an assignment).
fn bin_parts(op: &BinOp) -> (&'static str, Option<&'static str>, bool) {
    match op {
        BinOp::Add(_) => ("+", Some("add"), false),
        BinOp::Sub(_) => ("-", Some("sub"), false),
        BinOp::Mul(_) => ("*", Some("mul"), false),
        BinOp::Div(_) => ("/", Some("div"), false),
        BinOp::Rem(_) => ("%", Some("rem"), false),
        BinOp::BitAnd(_) => ("&", Some("band"), false),
        BinOp::BitOr(_) => ("|", Some("bor"), false),
        BinOp::BitXor(_) => ("^", Some("bxor"), false),
        BinOp::Shl(_) => ("<<", Some("shl"), false),
        BinOp::Shr(_) => (">>", Some("shr"), false),
        BinOp::AddAssign(_) => ("+=", Some("add"), true),
        BinOp::SubAssign(_) => ("-=", Some("sub"), true),
        BinOp::MulAssign(_) => ("*=", Some("mul"), true),
        BinOp::DivAssign(_) => ("/=", Some("div"), true),
        BinOp::RemAssign(_) => ("%=", Some("rem"), true),
        BinOp::BitAndAssign(_) => ("&=", Some("band"), true),
        BinOp::BitOrAssign(_) => ("|=", Some("bor"), true),
        BinOp::BitXorAssign(_) => ("^=", Some("bxor"), true),
        BinOp::ShlAssign(_) => ("<<=", Some("shl"), true),
        BinOp::ShrAssign(_) => (">>=", Some("shr"), true),
        BinOp::Eq(_) => ("==", None, false),
        BinOp::Ne(_) => ("!=", None, false),
        BinOp::Lt(_) => ("<", None, false),
        BinOp::Le(_) => ("<=", None, false),
        BinOp::Gt(_) => (">", None, false),
        BinOp::Ge(_) => (">=", None, false),
        BinOp::And(_) => ("&&", None, false),
        BinOp::Or(_) => ("||", None, false),
        _ => ("?", None, false),
    }
}

/// A literal's C++ text in its (solved) type.
fn literal(ty: Option<&Ty>, digits: &str, float: bool, span: Span) -> R<String> {
    let Some(ty) = ty else {
        return Err(err(
            span,
            "the type of this literal depends on a device function's signature or a captured constant, which a \
             kernel cannot see: give it a suffix (`2.0f32`, `1u32`) or annotate the `let`",
        ));
    };
    match ty {
        Ty::Prim(p) if p.is_float() => {
            let v: f64 = digits.parse().map_err(|_| err(span, "unreadable float literal"))?;
            if float {
                if *p == Prim::F32 {
                    let v32: f32 = digits.parse().map_err(|_| err(span, "unreadable float literal"))?;
                    return Ok(float_text(Prim::F32, v32 as f64));
                }
                Ok(float_text(Prim::F64, v))
            } else {
                Ok(format!("(({})({}))", p.cpp(), float_text(Prim::F64, v)))
            }
        }
        Ty::Prim(Prim::Bool) => Err(err(span, "a number is not a bool")),
        Ty::Prim(p) => {
            if float {
                return Err(err(span, format!("a float literal where a `{}` is expected", p.rust())));
            }
            let v: u128 = digits.parse().map_err(|_| err(span, "unreadable integer literal"))?;
            Ok(match p {
                Prim::I32 if v <= i32::MAX as u128 => format!("{v}"),
                Prim::U32 if v <= u32::MAX as u128 => format!("{v}u"),
                Prim::I64 | Prim::Isize if v <= i64::MAX as u128 => format!("{v}ll"),
                Prim::U64 | Prim::Usize if v <= u64::MAX as u128 => format!("{v}ull"),
                _ => format!("(({}){v}ull)", p.cpp()),
            })
        }
        Ty::Generic(g, _) => {
            let text = if float { float_text(Prim::F64, digits.parse().unwrap_or(0.0)) } else { format!("{digits}ll") };
            Ok(format!("(({g}){text})"))
        }
        _ => Err(err(span, "a literal where no number is expected")),
    }
}

/// `v` as a C++ literal of float type `p` (read back exactly).
fn float_text(p: Prim, v: f64) -> String {
    if p == Prim::F32 {
        let v = v as f32;
        if v.is_infinite() {
            return if v > 0.0 { "xp::inf_f32()".into() } else { "(-xp::inf_f32())".into() };
        }
        if v.is_nan() {
            return "xp::nan_f32()".into();
        }
        format!("{v:?}f")
    } else {
        if v.is_infinite() {
            return if v > 0.0 { "xp::inf_f64()".into() } else { "(-xp::inf_f64())".into() };
        }
        if v.is_nan() {
            return "xp::nan_f64()".into();
        }
        format!("{v:?}")
    }
}

fn float_const(c: &str) -> Option<f64> {
    use std::f64::consts as k;
    Some(match c {
        "PI" => k::PI,
        "E" => k::E,
        "TAU" => k::TAU,
        "SQRT_2" => k::SQRT_2,
        "LN_2" => k::LN_2,
        "LN_10" => k::LN_10,
        "LOG2_E" => k::LOG2_E,
        "LOG10_E" => k::LOG10_E,
        "FRAC_1_SQRT_2" => k::FRAC_1_SQRT_2,
        "FRAC_PI_2" => k::FRAC_PI_2,
        "FRAC_PI_4" => k::FRAC_PI_4,
        "FRAC_1_PI" => k::FRAC_1_PI,
        "FRAC_2_PI" => k::FRAC_2_PI,
        _ => return None,
    })
}

fn prim_const(p: Prim, c: &str) -> Option<String> {
    let t = p.cpp();
    Some(match (p, c) {
        (Prim::F32, "MAX") => float_text(p, f32::MAX as f64),
        (Prim::F32, "MIN") => float_text(p, f32::MIN as f64),
        (Prim::F32, "EPSILON") => float_text(p, f32::EPSILON as f64),
        (Prim::F32, "MIN_POSITIVE") => float_text(p, f32::MIN_POSITIVE as f64),
        (Prim::F64, "MAX") => float_text(p, f64::MAX),
        (Prim::F64, "MIN") => float_text(p, f64::MIN),
        (Prim::F64, "EPSILON") => float_text(p, f64::EPSILON),
        (Prim::F64, "MIN_POSITIVE") => float_text(p, f64::MIN_POSITIVE),
        (_, "INFINITY") if p.is_float() => float_text(p, f64::INFINITY),
        (_, "NEG_INFINITY") if p.is_float() => float_text(p, f64::NEG_INFINITY),
        (_, "NAN") if p.is_float() => float_text(p, f64::NAN),
        (_, "MAX") if p.is_int() => format!("xp::int_traits<{t}>::highest"),
        (_, "MIN") if p.is_int() => format!("xp::int_traits<{t}>::lowest"),
        (_, "BITS") if p.is_int() => format!("((xp::u32)(sizeof({t}) * 8))"),
        _ => return None,
    })
}

/// The C++ declaration parts of an array element type: `float` and `[16]` for `[f32; 16]`.
fn array_decl(elem: &Ty) -> (String, String) {
    match elem {
        Ty::Array(e, n) => {
            let (b, d) = array_decl(e);
            (b, format!("[{n}]{d}"))
        }
        other => (other.cpp(), String::new()),
    }
}
