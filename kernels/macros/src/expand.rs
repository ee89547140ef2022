//! What each attribute expands to: the kernel's value (its generated source and parameter
//! descriptors, for the runtime of `xp::rust_kernel`) and a hidden copy of the function that
//! rustc type-checks against the builtins' stubs, so that type errors point at the user's
//! lines.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::translate::{cpp_ident, BindKind, Cx, Mode, Param, Translation};
use crate::types::{generics, scalar_type, Bound, Prim, Ty, SUPPORTED_TYPES};

fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

/// The C++ text of a kernel or device function and what the expansion needs.
pub struct Generated {
    pub code: String,
    pub params: Vec<Param>,
    pub generics: Vec<(String, Bound)>,
    pub translation: Translation,
    /// Device functions: their C++ prototype.
    pub prototype: String,
    /// Elementwise kernels: ElementwiseKernel's parameter strings.
    pub in_params: String,
    pub out_params: String,
}

fn check_signature(f: &syn::ItemFn, what: &str) -> syn::Result<()> {
    let sig = &f.sig;
    if let Some(c) = &sig.constness {
        return Err(err(c.span(), format!("{what} cannot be `const`")));
    }
    if let Some(a) = &sig.asyncness {
        return Err(err(a.span(), format!("{what} cannot be `async`")));
    }
    if let Some(u) = &sig.unsafety {
        return Err(err(u.span(), format!("{what} cannot be `unsafe`")));
    }
    if let Some(a) = &sig.abi {
        return Err(err(a.span(), format!("{what} takes no ABI")));
    }
    if let Some(v) = &sig.variadic {
        return Err(err(v.span(), format!("{what} cannot be variadic")));
    }
    Ok(())
}

fn numpy_name(p: Prim) -> &'static str {
    match p {
        Prim::Bool => "bool",
        Prim::I8 => "int8",
        Prim::I16 => "int16",
        Prim::I32 => "int32",
        Prim::I64 | Prim::Isize => "int64",
        Prim::U8 => "uint8",
        Prim::U16 => "uint16",
        Prim::U32 => "uint32",
        Prim::U64 | Prim::Usize => "uint64",
        Prim::F32 => "float32",
        Prim::F64 => "float64",
    }
}

/// The parameters of `f` in `mode`, checked.
fn params(f: &syn::ItemFn, mode: Mode, gens: &[(String, Bound)]) -> syn::Result<Vec<Param>> {
    let mut out = Vec::new();
    for input in &f.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return Err(err(input.span(), "kernels take no `self`"));
        };
        let name = match &*pt.pat {
            syn::Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() => i.ident.to_string(),
            other => return Err(err(other.span(), "a kernel parameter is a plain name")),
        };
        let mut cpp = cpp_ident(&name);
        if mode == Mode::Elementwise && (cpp == "i" || cpp == "n") {
            // ElementwiseKernel's flat index and size.
            cpp = format!("rs_{cpp}");
        }
        let ty = &*pt.ty;
        let (ty, kind) = match ty {
            syn::Type::Reference(r) => {
                if let Some(l) = &r.lifetime {
                    return Err(err(l.span(), "kernel parameters take no lifetimes"));
                }
                let mutable = r.mutability.is_some();
                match &*r.elem {
                    syn::Type::Slice(sl) => {
                        if mode == Mode::Elementwise {
                            return Err(err(
                                ty.span(),
                                "an elementwise kernel's parameters are values (inputs, one element each) and `&mut T` \
                                 (outputs); slices are for #[xp::rawkernel]",
                            ));
                        }
                        let e = scalar_type(&sl.elem, gens)
                            .map_err(|_| err(sl.elem.span(), format!("a slice's element type is {SUPPORTED_TYPES}")))?;
                        (Ty::Slice(Box::new(e), mutable), BindKind::Slice)
                    }
                    inner => {
                        let e = scalar_type(inner, gens)?;
                        match mode {
                            Mode::Raw => {
                                return Err(err(
                                    ty.span(),
                                    "a #[xp::rawkernel] takes scalars, `&[T]` (read) and `&mut [T]` (written); \
                                     write `&mut [T]` for an output array",
                                ))
                            }
                            Mode::Elementwise if !mutable => {
                                return Err(err(
                                    ty.span(),
                                    "an elementwise input is taken by value (`x: f32`); outputs are `&mut T`",
                                ))
                            }
                            _ => {}
                        }
                        (Ty::Ref(Box::new(e), mutable), BindKind::Ref)
                    }
                }
            }
            other => (scalar_type(other, gens)?, BindKind::Value),
        };
        out.push(Param { name, cpp, ty, kind });
    }
    Ok(out)
}

fn cpp_param(p: &Param) -> String {
    match &p.ty {
        Ty::Slice(e, m) => {
            format!("{}{}* {}, xp::u64 {}_len", if *m { "" } else { "const " }, e.cpp(), p.cpp, p.cpp)
        }
        Ty::Ref(e, m) => format!("{}{}& {}", if *m { "" } else { "const " }, e.cpp(), p.cpp),
        t => format!("{} {}", t.cpp(), p.cpp),
    }
}

/// Translate `f` for `mode`.
pub fn generate(f: &syn::ItemFn, mode: Mode) -> syn::Result<Generated> {
    let what = match mode {
        Mode::Raw => "a #[xp::rawkernel]",
        Mode::Elementwise => "an #[xp::kernel]",
        Mode::Device => "an #[xp::device] function",
    };
    check_signature(f, what)?;
    let gens = generics(&f.sig.generics)?;
    if mode == Mode::Elementwise {
        for (g, _) in &gens {
            if g.len() != 1 || !g.chars().all(|c| c.is_ascii_uppercase()) {
                return Err(err(
                    f.sig.generics.span(),
                    "an elementwise kernel names its type parameters with one capital letter (`T`), as \
                     ElementwiseKernel's placeholders",
                ));
            }
        }
    }
    let ps = params(f, mode, &gens)?;
    let ret = match &f.sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) => {
            if mode != Mode::Device {
                return Err(err(t.span(), format!("{what} returns nothing: write its results into `&mut` parameters")));
            }
            match &**t {
                syn::Type::Tuple(tt) if tt.elems.is_empty() => None,
                other => Some(scalar_type(other, &gens)?),
            }
        }
    };
    if mode == Mode::Elementwise && !ps.iter().any(|p| p.kind == BindKind::Ref) {
        return Err(err(
            f.sig.paren_token.span.join(),
            "an elementwise kernel needs at least one output: a `&mut T` parameter",
        ));
    }
    let cx = Cx::new(mode, &gens, &ps, ret.clone());
    let t = cx.translate(&f.block)?;
    let name = cpp_ident(&f.sig.ident.to_string());
    let mut g = Generated {
        code: String::new(),
        params: ps,
        generics: gens,
        translation: t,
        prototype: String::new(),
        in_params: String::new(),
        out_params: String::new(),
    };
    match mode {
        Mode::Raw => {
            let list: Vec<String> = g.params.iter().map(cpp_param).collect();
            g.code = format!(
                "extern \"C\" __global__ void __xp_rust_kernel_name__({}) {{\n{}}}\n",
                list.join(", "),
                g.translation.body
            );
        }
        Mode::Device => {
            let list: Vec<String> = g.params.iter().map(cpp_param).collect();
            let tmpl = if g.generics.is_empty() {
                String::new()
            } else {
                format!(
                    "template <{}> ",
                    g.generics.iter().map(|(n, _)| format!("class {n}")).collect::<Vec<_>>().join(", ")
                )
            };
            let rt = ret.as_ref().map_or("void".to_string(), Ty::cpp);
            let head = format!("{tmpl}XP_DEVICE {rt} {name}({})", list.join(", "));
            g.prototype = format!("namespace xp_user {{ {head}; }}\n");
            g.code = format!("namespace xp_user {{\n{head} {{\n{}}}\n}}\n", g.translation.body);
        }
        Mode::Elementwise => {
            let ty_name = |t: &Ty| match t {
                Ty::Prim(p) => numpy_name(*p).to_string(),
                Ty::Generic(n, _) => n.clone(),
                _ => String::new(),
            };
            let ins: Vec<String> = g
                .params
                .iter()
                .filter(|p| p.kind == BindKind::Value)
                .map(|p| format!("{} {}", ty_name(&p.ty), p.cpp))
                .collect();
            let outs: Vec<String> = g
                .params
                .iter()
                .filter(|p| p.kind == BindKind::Ref)
                .map(|p| match &p.ty {
                    Ty::Ref(e, _) => format!("{} {}", ty_name(e), p.cpp),
                    _ => String::new(),
                })
                .collect();
            g.in_params = ins.join(", ");
            g.out_params = outs.join(", ");
            g.code = g.translation.body.clone();
        }
    }
    Ok(g)
}

fn elem_tokens(t: &Ty, gens: &[(String, Bound)]) -> TokenStream {
    match t {
        Ty::Prim(p) => {
            let d = format_ident!("{}", p.dtype());
            quote!(::xp::rust_kernel::ElemTy::Fixed(::xp::DType::#d))
        }
        Ty::Generic(n, _) => {
            let k = gens.iter().position(|(g, _)| g == n).unwrap_or(0);
            quote!(::xp::rust_kernel::ElemTy::Generic(#k))
        }
        _ => quote!(::xp::rust_kernel::ElemTy::Fixed(::xp::DType::U64)),
    }
}

fn param_tokens(g: &Generated) -> Vec<TokenStream> {
    g.params
        .iter()
        .map(|p| {
            let name = &p.name;
            let (kind, elem) = match &p.ty {
                Ty::Slice(e, m) => {
                    (quote!(::xp::rust_kernel::ParamKind::Slice { mutable: #m }), elem_tokens(e, &g.generics))
                }
                Ty::Ref(e, m) => {
                    (quote!(::xp::rust_kernel::ParamKind::Output { mutable: #m }), elem_tokens(e, &g.generics))
                }
                t => (quote!(::xp::rust_kernel::ParamKind::Scalar), elem_tokens(t, &g.generics)),
            };
            quote!(::xp::rust_kernel::ParamDesc { name: #name, kind: #kind, elem: #elem })
        })
        .collect()
}

fn generic_tokens(g: &Generated) -> Vec<TokenStream> {
    g.generics
        .iter()
        .map(|(n, b)| {
            let b = match b {
                Bound::Float => quote!(::xp::rust_kernel::Bound::Float),
                Bound::Int => quote!(::xp::rust_kernel::Bound::Int),
            };
            quote!(::xp::rust_kernel::GenericDesc { name: #n, bound: #b })
        })
        .collect()
}

/// `helper` → `__xp_device_helper`, `m::helper` → `m::__xp_device_helper`, spanned at the call.
fn device_const_path(p: &syn::Path) -> TokenStream {
    let mut p = p.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = syn::Ident::new(&format!("__xp_device_{}", last.ident), last.ident.span());
    }
    let span = p.span();
    quote_spanned!(span=> &#p)
}

fn consts_tokens(t: &Translation) -> TokenStream {
    let items = t.consts.iter().map(|id| {
        let cpp = cpp_ident(&id.to_string());
        quote_spanned!(id.span()=> ::xp::rust_kernel::ConstArg::new(#cpp, #id))
    });
    quote!({
        fn __xp_consts() -> ::std::vec::Vec<::xp::rust_kernel::ConstArg> {
            ::std::vec![#(#items),*]
        }
        __xp_consts
    })
}

/// The hidden copy of `f`, type-checked by rustc against the builtins' stubs.
fn check_copy(f: &syn::ItemFn) -> TokenStream {
    let sig = &f.sig;
    let generics = &sig.generics;
    let inputs = &sig.inputs;
    let output = &sig.output;
    let stmts = &f.block.stmts;
    quote! {
        const _: () = {
            #[allow(unused, non_snake_case, clippy::all)]
            fn __xp_check #generics (#inputs) #output {
                #[allow(unused_imports)]
                use ::xp::rust_kernel::builtins::*;
                #(#stmts)*
            }
        };
    }
}

fn doc_attrs(f: &syn::ItemFn) -> Vec<&syn::Attribute> {
    f.attrs.iter().filter(|a| a.path().is_ident("doc") || a.path().is_ident("cfg")).collect()
}

/// `#[xp::rawkernel]`.
pub fn rawkernel(f: &syn::ItemFn) -> syn::Result<TokenStream> {
    let g = generate(f, Mode::Raw)?;
    let ident = &f.sig.ident;
    let vis = &f.vis;
    let name = ident.to_string();
    let cpp_name = cpp_ident(&name);
    let code = &g.code;
    let params = param_tokens(&g);
    let gens = generic_tokens(&g);
    let devices: Vec<TokenStream> = g.translation.devices.iter().map(device_const_path).collect();
    let consts = consts_tokens(&g.translation);
    let sync = g.translation.uses_sync;
    let docs = doc_attrs(f);
    let check = check_copy(f);
    Ok(quote! {
        #(#docs)*
        #[allow(non_upper_case_globals)]
        #vis static #ident: ::xp::rust_kernel::RustKernel = ::xp::rust_kernel::RustKernel::new(::xp::rust_kernel::KernelDef {
            name: #name,
            cpp_name: #cpp_name,
            params: &[#(#params),*],
            generics: &[#(#gens),*],
            code: #code,
            devices: &[#(#devices),*],
            consts: #consts,
            uses_sync: #sync,
        });
        #check
    })
}

/// `#[xp::kernel]`.
pub fn kernel(f: &syn::ItemFn) -> syn::Result<TokenStream> {
    let g = generate(f, Mode::Elementwise)?;
    let ident = &f.sig.ident;
    let vis = &f.vis;
    let name = ident.to_string();
    let (ins, outs, op) = (&g.in_params, &g.out_params, &g.code);
    let params = param_tokens(&g);
    let devices: Vec<TokenStream> = g.translation.devices.iter().map(device_const_path).collect();
    let consts = consts_tokens(&g.translation);
    let docs = doc_attrs(f);
    let check = check_copy(f);
    Ok(quote! {
        #(#docs)*
        #[allow(non_upper_case_globals)]
        #vis static #ident: ::xp::rust_kernel::RustElementwiseKernel =
            ::xp::rust_kernel::RustElementwiseKernel::new(::xp::rust_kernel::ElementwiseDef {
                name: #name,
                in_params: #ins,
                out_params: #outs,
                operation: #op,
                params: &[#(#params),*],
                devices: &[#(#devices),*],
                consts: #consts,
            });
        #check
    })
}

/// `#[xp::device]`.
pub fn device(f: &syn::ItemFn) -> syn::Result<TokenStream> {
    let g = generate(f, Mode::Device)?;
    let ident = &f.sig.ident;
    let vis = &f.vis;
    let name = ident.to_string();
    let (code, proto) = (&g.code, &g.prototype);
    let devices: Vec<TokenStream> = g.translation.devices.iter().map(device_const_path).collect();
    let consts = consts_tokens(&g.translation);
    let sync = g.translation.uses_sync;
    let def = format_ident!("__xp_device_{}", ident);
    let attrs = &f.attrs;
    let sig = &f.sig;
    let stmts = &f.block.stmts;
    Ok(quote! {
        #(#attrs)*
        #[allow(dead_code, clippy::all)]
        #vis #sig {
            #[allow(unused_imports)]
            use ::xp::rust_kernel::builtins::*;
            #(#stmts)*
        }
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #vis const #def: ::xp::rust_kernel::DeviceFn = ::xp::rust_kernel::DeviceFn {
            name: #name,
            prototype: #proto,
            code: #code,
            devices: &[#(#devices),*],
            consts: #consts,
            uses_sync: #sync,
        };
    })
}
