//! User-defined kernels, as CuPy's: [`ElementwiseKernel`], [`ReductionKernel`],
//! [`RawKernel`] / [`RawModule`], and [`fuse`].
//!
//! All of them run on every backend: on GPUs through NVRTC or hiprtc, on the CPU compiled as
//! C++ at run time (a C++ compiler is then needed; built-in ops are not affected). Kernels are
//! compiled on first use per device and per dtype combination, and cached.
//!
//! # Parameter strings
//! `"float32 x, T y, raw T z"`: comma-separated `[raw] type name`. A type is a NumPy dtype
//! name (`float32`, `int64`, `complex64`, also `float`, `double`, `int`) or a one-letter
//! *placeholder*: every parameter with the same letter has the same dtype, taken from the
//! arguments — from the output arrays first when they are given, then from the inputs (an
//! array binds a placeholder; two arrays that bind one placeholder to two dtypes are an
//! [`Error::DType`]). A scalar argument binds a placeholder only when no array does.
//!
//! Choices where CuPy is silent or strict:
//! - an input array whose dtype differs from a parameter of fixed type is converted as it is
//!   loaded when the conversion is safe (NumPy's `can_cast`), else it is a `DType` error;
//! - an output array of another dtype than its parameter's is written with conversion when
//!   NumPy's `same_kind` rule allows;
//! - outputs start undefined unless given: an operation that reads an output (`z += x`) needs
//!   the output array passed in, which is then loaded first.
//!
//! # Names in an operation
//! Non-raw parameters are values (`const` for inputs, references for outputs) of their
//! element; `raw` parameters are pointers to the first element of a C-contiguous array,
//! indexed by hand with `i`, the flat (C-order) index of the element being computed; `n` is
//! the number of elements. Reserved, so not allowed as parameter names: `i`, `n`, names of the
//! form `inK`/`outK`, names starting or ending with `_`, and C++ keywords.

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use xp_backend_api::{
    CompileOptions, DType, DTypeKind, Dim3, DynDevice, Error, Kernel, KernelArg, KernelSource, LaunchConfig, Module,
    Result, Stream,
};
use xp_kernels::elementwise::{
    collapse, gpu_layout, index_width_for, ElementwiseSpec, IndexWidth, Layout as KLayout, Operand as KOp, Rendered,
};
use xp_kernels::ops::{ElementwiseOp, TypeLoop};
use xp_kernels::reduce::{builtin_reduce, plan_reduce, ReduceOp};

use crate::element::scalar_bytes;
use crate::exec::{current_stream, elementwise_kernel, flat_config, is_cpu, shape_arg_bytes, takes_strides, KernelKey};
use crate::layout::{broadcast_shapes, normalize_axes};
use crate::promote::{can_cast_safe, can_cast_same_kind, check_int_fits, promote_types, weak_dtype, Scalar};
use crate::reduce::{run_launches, target_of};
use crate::ufunc::{find_op, Operand};
use crate::Array;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

fn device_id(d: &Arc<dyn DynDevice>) -> usize {
    Arc::as_ptr(d) as *const () as usize
}

// ---- parameter strings -----------------------------------------------------------------------

/// The type of a kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A fixed dtype.
    Fixed(DType),
    /// A one-letter placeholder, bound from the arguments.
    Placeholder(char),
}

/// One parameter of an [`ElementwiseKernel`] or [`ReductionKernel`].
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

fn check_name(kernel: &str, name: &str, extra_reserved: &[&str]) -> Result<()> {
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
struct Bindings<'k> {
    kernel: &'k str,
    map: HashMap<char, DType>,
}

impl<'k> Bindings<'k> {
    fn bind(&mut self, p: &Param, d: DType) -> Result<()> {
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

    fn dtype_of(&self, p: &Param) -> Result<DType> {
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

// ---- the elementwise launcher ----------------------------------------------------------------

/// One input of a user elementwise launch.
enum UserIn<'a> {
    /// An array broadcast to the launch's shape.
    Array(&'a Array),
    /// A value by copy.
    Value(Vec<u8>),
    /// A raw array: a pointer to its first element.
    Raw(&'a Array),
}

fn strides_bytes(strides: &[isize]) -> Vec<u8> {
    let mut v = Vec::with_capacity(64);
    for d in 0..8 {
        v.extend((*strides.get(d).unwrap_or(&0) as i64).to_ne_bytes());
    }
    v
}

/// Whether `code` may read variable `name`: true unless every use of it is the target of a
/// plain assignment (`name = …`), so an output that is only written is not loaded first.
fn reads_variable(code: &str, name: &str) -> bool {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while let Some(pos) = code[i..].find(name) {
        let at = i + pos;
        let end = at + name.len();
        i = end;
        if (at > 0 && ident(b[at - 1])) || (end < b.len() && ident(b[end])) {
            continue;
        }
        let rest = code[end..].trim_start();
        let plain_store = rest.starts_with('=') && !rest.starts_with("==");
        if !plain_store {
            return true;
        }
    }
    false
}

/// Launch a user elementwise kernel over `shape` (every array input and every output has that
/// shape). `key` identifies the kernel's code apart from layout and index width.
fn launch_user(
    op: &str,
    device: &Arc<dyn DynDevice>,
    shape: &[usize],
    key: &str,
    spec: impl Fn(KLayout, IndexWidth) -> ElementwiseSpec,
    inputs: &[UserIn<'_>],
    outputs: &[&Array],
) -> Result<()> {
    let n: usize = shape.iter().product();
    if n == 0 {
        return Ok(());
    }
    let arrays: Vec<&Array> = inputs
        .iter()
        .filter_map(|i| match i {
            UserIn::Array(a) => Some(*a),
            _ => None,
        })
        .chain(outputs.iter().copied())
        .collect();
    for a in &arrays {
        if a.shape() != shape {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: a.shape().to_vec(),
                rhs: shape.to_vec(),
                reason: "differ inside an elementwise launch".into(),
            });
        }
    }
    let mut raw_reach = 0usize;
    for i in inputs {
        if let UserIn::Raw(a) = i {
            raw_reach = raw_reach.max(a.size());
        }
    }
    let strides: Vec<Vec<isize>> = arrays.iter().map(|a| a.strides().to_vec()).collect();
    let (cshape, cstrides) = if arrays.is_empty() { (vec![n], Vec::new()) } else { collapse(shape, &strides) };
    if cshape.len() > 8 {
        return Err(Error::Unsupported(format!(
            "{op}: operands whose layouts need {} dimensions after merging (kernels take 8)",
            cshape.len()
        )));
    }
    let reach = cstrides
        .iter()
        .map(|st| st.iter().zip(&cshape).map(|(s, d)| s.unsigned_abs() * (d - 1)).sum::<usize>())
        .max()
        .unwrap_or(0)
        .max(raw_reach);
    let (layout, index) = if is_cpu(device) {
        (KLayout::Rows, IndexWidth::I64)
    } else {
        (gpu_layout(n, cshape.len() == 1 && cstrides.iter().all(|s| s[0] == 1)), index_width_for(n, reach))
    };
    let f = elementwise_kernel(device, KernelKey::Named(format!("{key}|{layout:?}|{index:?}")), || {
        let r = spec(layout, index).render();
        (r.name, r.code)
    })?;
    let shape_bytes = shape_arg_bytes(&cshape);
    let stride_bytes: Vec<Vec<u8>> = cstrides.iter().map(|s| strides_bytes(s)).collect();
    let n_bytes: Vec<u8> =
        if index == IndexWidth::I32 { (n as i32).to_ne_bytes().to_vec() } else { (n as i64).to_ne_bytes().to_vec() };
    let mut args: Vec<KernelArg<'_>> = Vec::with_capacity(inputs.len() + outputs.len() * 2 + 3);
    for i in inputs {
        args.push(match i {
            UserIn::Array(a) | UserIn::Raw(a) => a.kernel_arg(),
            UserIn::Value(v) => KernelArg::Value(v),
        });
    }
    for o in outputs {
        args.push(o.kernel_arg());
    }
    if takes_strides(layout) {
        args.push(KernelArg::Value(&shape_bytes));
        for s in &stride_bytes {
            args.push(KernelArg::Value(s));
        }
    }
    args.push(KernelArg::Value(&n_bytes));
    // The contiguous layout takes four elements per thread.
    let work = if layout == KLayout::Contiguous { n.div_ceil(4) } else { n };
    current_stream(device).launch(&*f, &flat_config(device, work), &args)
}

/// `const idx i = …;` where a layout does not name the flat index `i` itself.
fn flat_index_decl(layout: KLayout, index: IndexWidth) -> String {
    match xp_kernels::elementwise::flat_index_expr(layout) {
        Some(e) => {
            format!("const {} i = {e}; (void)i;\n", if index == IndexWidth::I32 { "xp::i32" } else { "xp::i64" })
        }
        None => String::new(),
    }
}

// ---- ElementwiseKernel -----------------------------------------------------------------------

/// A user-defined elementwise kernel, as CuPy's `ElementwiseKernel`.
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::{arange, user::ElementwiseKernel, DType};
/// let k = ElementwiseKernel::new("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "my_kernel").unwrap();
/// let x = arange(0.0, 10.0, 1.0, Some(DType::F32)).unwrap().reshape(&[2, 5]).unwrap();
/// let z = k.call(&[(&x).into(), 5.0.into()]).unwrap();
/// assert_eq!(z.to_vec::<f32>().unwrap()[..3], [25.0, 16.0, 9.0]);
/// # });
/// ```
#[derive(Debug)]
pub struct ElementwiseKernel {
    name: String,
    in_params: Vec<Param>,
    out_params: Vec<Param>,
    operation: String,
    preamble: String,
    id: u64,
}

impl ElementwiseKernel {
    /// A kernel from CuPy's four strings: input parameters, output parameters, the operation
    /// (statements; a missing final `;` is added) and the kernel's name.
    pub fn new(in_params: &str, out_params: &str, operation: &str, name: &str) -> Result<ElementwiseKernel> {
        let ins = parse_params(name, in_params)?;
        let outs = parse_params(name, out_params)?;
        if outs.is_empty() {
            return Err(Error::value(name, "an elementwise kernel needs at least one output parameter"));
        }
        for p in ins.iter().chain(&outs) {
            check_name(name, &p.name, &[])?;
        }
        for p in &outs {
            if ins.iter().any(|q| q.name == p.name) {
                return Err(Error::value(name, format!("`{}` is both an input and an output", p.name)));
            }
        }
        Ok(ElementwiseKernel {
            name: name.to_string(),
            in_params: ins,
            out_params: outs,
            operation: operation.to_string(),
            preamble: String::new(),
            id: next_id(),
        })
    }

    /// The same kernel with `preamble` (helper functions, `#define`s) put before it.
    pub fn with_preamble(mut self, preamble: &str) -> ElementwiseKernel {
        self.preamble = preamble.to_string();
        self.id = next_id();
        self
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Run the kernel and return its first output. `args` are the inputs, optionally followed
    /// by every output array (then written in place).
    pub fn call(&self, args: &[Operand<'_>]) -> Result<Array> {
        Ok(self.call_all(args)?.swap_remove(0))
    }

    /// Run the kernel and return every output.
    pub fn call_all(&self, args: &[Operand<'_>]) -> Result<Vec<Array>> {
        let (nin, nout) = (self.in_params.len(), self.out_params.len());
        if args.len() != nin && args.len() != nin + nout {
            return Err(Error::value(
                &self.name,
                format!("takes {nin} inputs (and optionally {nout} outputs), {} arguments given", args.len()),
            ));
        }
        let (inputs, given) = args.split_at(nin);
        let mut outs_given: Vec<&Array> = Vec::new();
        for (p, o) in self.out_params.iter().zip(given) {
            match o {
                Operand::Array(a) => outs_given.push(a),
                Operand::Scalar(_) => {
                    return Err(Error::value(&self.name, format!("output `{}` must be an array", p.name)))
                }
            }
        }
        for (p, a) in self.in_params.iter().zip(inputs) {
            if p.raw && matches!(a, Operand::Scalar(_)) {
                return Err(Error::value(&self.name, format!("raw parameter `{}` needs an array", p.name)));
            }
        }
        // Device.
        let arrays: Vec<&Array> = inputs
            .iter()
            .filter_map(|a| match a {
                Operand::Array(a) => Some(*a),
                _ => None,
            })
            .chain(outs_given.iter().copied())
            .collect();
        let device = common_device(&self.name, &arrays)?;
        // Types: outputs first, then input arrays, then scalars.
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        for (p, o) in self.out_params.iter().zip(&outs_given) {
            b.bind(p, o.dtype())?;
        }
        for (p, a) in self.in_params.iter().zip(inputs) {
            if let Operand::Array(a) = a {
                b.bind(p, a.dtype())?;
            }
        }
        for (p, a) in self.in_params.iter().zip(inputs) {
            if let (Operand::Scalar(s), ParamType::Placeholder(c)) = (a, p.ty) {
                b.map.entry(c).or_insert(s.default_dtype());
            }
        }
        let in_dt: Vec<DType> = self.in_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        let out_dt: Vec<DType> = self.out_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        for ((p, a), &d) in self.in_params.iter().zip(inputs).zip(&in_dt) {
            if let Operand::Array(a) = a {
                let ok = if p.raw { a.dtype() == d } else { can_cast_safe(a.dtype(), d) };
                if !ok {
                    return Err(Error::DType {
                        op: self.name.clone(),
                        reason: format!("argument `{}` of dtype {} does not convert safely to {d}", p.name, a.dtype()),
                    });
                }
            }
        }
        for ((p, o), &d) in self.out_params.iter().zip(&outs_given).zip(&out_dt) {
            let ok = if p.raw { o.dtype() == d } else { can_cast_same_kind(d, o.dtype()) };
            if !ok {
                return Err(Error::DType {
                    op: self.name.clone(),
                    reason: format!("output `{}` of dtype {} cannot hold values of {d}", p.name, o.dtype()),
                });
            }
        }
        // Shape: the broadcast of non-raw inputs and outputs; every output must have it.
        let shapes: Vec<&[usize]> = self
            .in_params
            .iter()
            .zip(inputs)
            .filter_map(|(p, a)| match a {
                Operand::Array(a) if !p.raw => Some(a.shape()),
                _ => None,
            })
            .chain(self.out_params.iter().zip(&outs_given).filter(|(p, _)| !p.raw).map(|(_, o)| o.shape()))
            .collect();
        let shape = broadcast_shapes(&self.name, &shapes)?;
        for (p, o) in self.out_params.iter().zip(&outs_given) {
            if !p.raw && o.shape() != shape.as_slice() {
                return Err(Error::ShapeMismatch {
                    op: self.name.clone(),
                    lhs: o.shape().to_vec(),
                    rhs: shape.clone(),
                    reason: format!("differ: output `{}` must have the broadcast shape of the arguments", p.name),
                });
            }
            if p.raw && !o.is_contiguous() {
                return Err(Error::value(&self.name, format!("raw output `{}` must be C-contiguous", p.name)));
            }
        }
        let outs: Vec<Array> = if outs_given.is_empty() {
            out_dt.iter().map(|&d| Array::empty_on(&device, &shape, d)).collect::<Result<_>>()?
        } else {
            outs_given.iter().map(|a| (*a).clone()).collect()
        };
        if shape.iter().product::<usize>() == 0 {
            return Ok(outs);
        }
        // Operands as the kernel sees them: inputs (raw ones as pointers), raw outputs as
        // pointers, given non-raw outputs loaded first; then the non-raw outputs.
        let mut holders: Vec<Array> = Vec::new();
        enum Src {
            Array(usize),
            Value(Vec<u8>),
            Raw(usize),
        }
        let mut srcs: Vec<Src> = Vec::new();
        let mut ops: Vec<KOp> = Vec::new();
        for ((p, a), &d) in self.in_params.iter().zip(inputs).zip(&in_dt) {
            match a {
                Operand::Array(a) if p.raw => {
                    holders.push(if a.is_contiguous() { (*a).clone() } else { a.ascontiguous()? });
                    srcs.push(Src::Raw(holders.len() - 1));
                    ops.push(KOp::scalar(DType::U64, DType::U64));
                }
                Operand::Array(a) => {
                    holders.push(a.broadcast_to(&shape)?);
                    srcs.push(Src::Array(holders.len() - 1));
                    ops.push(KOp::array(a.dtype(), d));
                }
                Operand::Scalar(s) => {
                    if let (Scalar::Int(v), true) = (s, d.kind() != DTypeKind::Bool) {
                        check_int_fits(&self.name, *v, d)?;
                    }
                    srcs.push(Src::Value(scalar_bytes(*s, d)?));
                    ops.push(KOp::scalar(d, d));
                }
            }
        }
        let mut raw_out_at = Vec::new();
        let mut load_out_at = Vec::new();
        for (k, (p, o)) in self.out_params.iter().zip(&outs).enumerate() {
            if p.raw {
                raw_out_at.push((k, ops.len()));
                holders.push(o.clone());
                srcs.push(Src::Raw(holders.len() - 1));
                ops.push(KOp::scalar(DType::U64, DType::U64));
            } else if !outs_given.is_empty() && reads_variable(&self.operation, &p.name) {
                load_out_at.push((k, ops.len()));
                holders.push(o.clone());
                srcs.push(Src::Array(holders.len() - 1));
                ops.push(KOp::array(o.dtype(), out_dt[k]));
            }
        }
        let user_in: Vec<UserIn<'_>> = srcs
            .into_iter()
            .map(|s| match s {
                Src::Array(h) => UserIn::Array(&holders[h]),
                Src::Raw(h) => UserIn::Raw(&holders[h]),
                Src::Value(v) => UserIn::Value(v),
            })
            .collect();
        let non_raw_outs: Vec<(usize, &Array)> = self
            .out_params
            .iter()
            .zip(&outs)
            .enumerate()
            .filter(|(_, (p, _))| !p.raw)
            .map(|(k, (_, o))| (k, o))
            .collect();
        let out_ops: Vec<KOp> = non_raw_outs.iter().map(|(k, o)| KOp::array(o.dtype(), out_dt[*k])).collect();
        let mut key = format!("user_ew|{}|", self.id);
        for (o, s) in ops.iter().chain(&out_ops).zip(0..) {
            let _ = write!(key, "{s}:{}{}{}|", o.storage.short(), o.compute.short(), o.scalar);
        }
        let parts = SpecParts {
            in_dt: &in_dt,
            out_dt: &out_dt,
            ops: &ops,
            out_ops: &out_ops,
            raw_out_at: &raw_out_at,
            load_out_at: &load_out_at,
        };
        let outs_ref: Vec<&Array> = non_raw_outs.iter().map(|(_, o)| *o).collect();
        launch_user(
            &self.name,
            &device,
            &shape,
            &key,
            |layout, index| self.spec(&parts, layout, index),
            &user_in,
            &outs_ref,
        )?;
        Ok(outs)
    }
}

/// What decides a user elementwise kernel's code, apart from layout and index width.
struct SpecParts<'p> {
    /// The dtype of each input parameter.
    in_dt: &'p [DType],
    /// The dtype of each output parameter.
    out_dt: &'p [DType],
    /// The kernel's inputs: the input parameters, then raw outputs, then outputs loaded first.
    ops: &'p [KOp],
    /// The kernel's outputs: the non-raw output parameters.
    out_ops: &'p [KOp],
    /// (output parameter, kernel input) of each raw output.
    raw_out_at: &'p [(usize, usize)],
    /// (output parameter, kernel input) of each output loaded before the operation.
    load_out_at: &'p [(usize, usize)],
}

impl ElementwiseKernel {
    fn spec(&self, parts: &SpecParts<'_>, layout: KLayout, index: IndexWidth) -> ElementwiseSpec {
        let mut body = String::from("{\n");
        let params = self.in_params.iter().zip(parts.in_dt).chain(self.out_params.iter().zip(parts.out_dt));
        body.push_str(&typedefs(params));
        for (slot, (p, &d)) in self.in_params.iter().zip(parts.in_dt).enumerate() {
            let c = d.c_name();
            if p.raw {
                let _ = writeln!(body, "const {c}* {} = (const {c}*)in{slot}; (void){};", p.name, p.name);
            } else {
                let _ = writeln!(body, "const {c} {} = in{slot}; (void){};", p.name, p.name);
            }
        }
        for (k, s) in parts.raw_out_at {
            let p = &self.out_params[*k];
            let c = parts.out_dt[*k].c_name();
            let _ = writeln!(body, "{c}* {} = ({c}*)in{s}; (void){};", p.name, p.name);
        }
        let non_raw = self.out_params.iter().enumerate().filter(|(_, p)| !p.raw);
        for (j, (k, p)) in non_raw.enumerate() {
            let _ = writeln!(body, "{}& {} = out{j};", parts.out_dt[k].c_name(), p.name);
            if let Some((_, s)) = parts.load_out_at.iter().find(|(kk, _)| *kk == k) {
                let _ = writeln!(body, "{} = in{s};", p.name);
            }
        }
        body.push_str(&flat_index_decl(layout, index));
        let _ = writeln!(body, "{{ {}; }}\n}}", self.operation.trim());
        ElementwiseSpec {
            op: self.name.clone(),
            inputs: parts.ops.to_vec(),
            outputs: parts.out_ops.to_vec(),
            body,
            preamble: self.preamble.clone(),
            layout,
            index,
            fast: None,
        }
    }

    /// The code this kernel compiles to for array arguments of `dtypes` (one per input
    /// parameter; outputs allocated, so every placeholder must be bound by an input), in
    /// `layout` with `index`-wide indices: for inspection, or to check it with another
    /// vendor's compiler.
    pub fn render(&self, dtypes: &[DType], layout: KLayout, index: IndexWidth) -> Result<Rendered> {
        if dtypes.len() != self.in_params.len() {
            return Err(Error::value(
                &self.name,
                format!("takes {} inputs, {} dtypes given", self.in_params.len(), dtypes.len()),
            ));
        }
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        for (p, &d) in self.in_params.iter().zip(dtypes) {
            b.bind(p, d)?;
        }
        let in_dt: Vec<DType> = self.in_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        let out_dt: Vec<DType> = self.out_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        let mut ops: Vec<KOp> = self
            .in_params
            .iter()
            .zip(dtypes)
            .zip(&in_dt)
            .map(|((p, &a), &d)| if p.raw { KOp::scalar(DType::U64, DType::U64) } else { KOp::array(a, d) })
            .collect();
        let mut raw_out_at = Vec::new();
        for (k, p) in self.out_params.iter().enumerate() {
            if p.raw {
                raw_out_at.push((k, ops.len()));
                ops.push(KOp::scalar(DType::U64, DType::U64));
            }
        }
        let out_ops: Vec<KOp> =
            self.out_params.iter().zip(&out_dt).filter(|(p, _)| !p.raw).map(|(_, &d)| KOp::array(d, d)).collect();
        let parts = SpecParts {
            in_dt: &in_dt,
            out_dt: &out_dt,
            ops: &ops,
            out_ops: &out_ops,
            raw_out_at: &raw_out_at,
            load_out_at: &[],
        };
        Ok(self.spec(&parts, layout, index).render())
    }
}

/// `typedef float T;` for each placeholder of `params` (with their dtypes), as CuPy declares
/// them for the operation.
fn typedefs<'p>(params: impl Iterator<Item = (&'p Param, &'p DType)>) -> String {
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

fn common_device(op: &str, arrays: &[&Array]) -> Result<Arc<dyn DynDevice>> {
    let Some(first) = arrays.first() else { return crate::current_device() };
    let d = first.device_arc();
    for a in &arrays[1..] {
        if !Arc::ptr_eq(&a.device_arc(), &d) {
            return Err(Error::DeviceMismatch { op: op.into(), lhs: d.label(), rhs: a.device().label() });
        }
    }
    Ok(d)
}

// ---- ReductionKernel -------------------------------------------------------------------------

/// A user-defined reduction, as CuPy's `ReductionKernel`: each element is mapped with
/// `map_expr` (an expression of the input parameter), the mapped values are folded with
/// `reduce_expr` (an expression of accumulators `a` and `b`) starting from `identity`, and
/// `post_map_expr` sets the output from the final accumulator `a`. The accumulator has the
/// output's dtype, as in CuPy.
///
/// It runs on the same engine as the built-in reductions (one pass, pairwise order). Its
/// input is one non-raw array parameter.
#[derive(Debug)]
pub struct ReductionKernel {
    name: String,
    in_param: Param,
    out_param: Param,
    map_expr: String,
    reduce_expr: String,
    post_map_expr: String,
    identity: String,
    preamble: String,
    id: u64,
}

impl ReductionKernel {
    /// A reduction from CuPy's seven strings.
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: &str,
        name: &str,
    ) -> Result<ReductionKernel> {
        let ins = parse_params(name, in_params)?;
        let outs = parse_params(name, out_params)?;
        for p in ins.iter().chain(&outs) {
            check_name(name, &p.name, &["a", "b"])?;
        }
        if ins.len() != 1 || ins[0].raw || outs.len() != 1 || outs[0].raw {
            return Err(Error::Unsupported(format!(
                "{name}: a ReductionKernel takes one non-raw input parameter and one non-raw output parameter"
            )));
        }
        if identity.trim().is_empty() {
            return Err(Error::value(name, "the identity must be given"));
        }
        Ok(ReductionKernel {
            name: name.to_string(),
            in_param: ins[0].clone(),
            out_param: outs[0].clone(),
            map_expr: map_expr.trim().trim_end_matches(';').to_string(),
            reduce_expr: reduce_expr.trim().trim_end_matches(';').to_string(),
            post_map_expr: if post_map_expr.trim().is_empty() {
                format!("{} = a", outs[0].name)
            } else {
                post_map_expr.to_string()
            },
            identity: identity.to_string(),
            preamble: String::new(),
            id: next_id(),
        })
    }

    /// The same kernel with `preamble` put before it.
    pub fn with_preamble(mut self, preamble: &str) -> ReductionKernel {
        self.preamble = preamble.to_string();
        self.id = next_id();
        self
    }

    /// Reduce `x` over `axis` (every axis when `None`), keeping reduced axes as length 1 when
    /// `keepdims`.
    pub fn call(&self, x: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.run(x, None, axis, keepdims)
    }

    /// As [`ReductionKernel::call`], writing into `out` (which must have the result's shape).
    pub fn call_into(&self, x: &Array, out: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.run(x, Some(out), axis, keepdims)
    }

    fn reduce_op(&self, storage: DType, in_dt: DType, out_dt: DType) -> ReduceOp {
        let acc = out_dt.c_name();
        let inp = in_dt.c_name();
        let tag = format!("{}|{}|{}|{}", self.id, storage.short(), in_dt.short(), out_dt.short());
        let hash = fnv64(&tag);
        let map_fn = format!("xp_user_map_{hash:016x}");
        let td = typedefs([(&self.in_param, &in_dt), (&self.out_param, &out_dt)].into_iter()).replace('\n', " ");
        let mut preamble = self.preamble.clone();
        let _ = write!(
            preamble,
            "\n#ifndef XP_USER_MAP_{hash:016x}\n#define XP_USER_MAP_{hash:016x} 1\n\
             XP_DEVICE {acc} {map_fn}(const {inp} {}) {{ {td}return ({acc})({}); }}\n#endif\n",
            self.in_param.name, self.map_expr
        );
        ReduceOp {
            name: self.name.clone(),
            in_type: storage,
            acc_type: acc.to_string(),
            acc_size: out_dt.size(),
            out_type: out_dt,
            preamble,
            map: format!("{map_fn}(xp::cast<{inp}>(in0))"),
            combine: format!("{td}a = ({acc})({});", self.reduce_expr),
            post: format!(
                "{td}{acc}& {} = out0; {};",
                self.out_param.name,
                self.post_map_expr.trim().trim_end_matches(';')
            ),
            identity: format!("({acc})({})", self.identity),
            ddof: 0,
            in_order: false,
        }
    }

    /// The code of this reduction for an input of `dtype` (the output dtype bound from it)
    /// with `index`-wide indices: for inspection, or to check it with another vendor's compiler.
    pub fn render(&self, dtype: DType, index: IndexWidth) -> Result<Rendered> {
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        b.bind(&self.in_param, dtype)?;
        let (in_dt, out_dt) = (b.dtype_of(&self.in_param)?, b.dtype_of(&self.out_param)?);
        Ok(xp_kernels::reduce::render_reduce(&self.reduce_op(dtype, in_dt, out_dt), index))
    }

    fn run(&self, x: &Array, out: Option<&Array>, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        let dev = x.device_arc();
        if let Some(o) = out {
            common_device(&self.name, &[x, o])?;
        }
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        if let Some(o) = out {
            b.bind(&self.out_param, o.dtype())?;
        }
        b.bind(&self.in_param, x.dtype())?;
        let in_dt = b.dtype_of(&self.in_param)?;
        let out_dt = b.dtype_of(&self.out_param)?;
        if !can_cast_safe(x.dtype(), in_dt) {
            return Err(Error::DType {
                op: self.name.clone(),
                reason: format!(
                    "argument `{}` of dtype {} does not convert safely to {in_dt}",
                    self.in_param.name,
                    x.dtype()
                ),
            });
        }
        let axes: Vec<usize> = match axis {
            None => (0..x.ndim()).collect(),
            Some(ax) => normalize_axes(&self.name, ax, x.ndim())?,
        };
        let kept: Vec<usize> = (0..x.ndim()).filter(|d| !axes.contains(d)).map(|d| x.shape()[d]).collect();
        let shape_kd: Vec<usize> = (0..x.ndim()).map(|d| if axes.contains(&d) { 1 } else { x.shape()[d] }).collect();
        let want = if keepdims { &shape_kd } else { &kept };
        if let Some(o) = out {
            if o.shape() != want.as_slice() {
                return Err(Error::ShapeMismatch {
                    op: self.name.clone(),
                    lhs: o.shape().to_vec(),
                    rhs: want.clone(),
                    reason: "differ: the output must have the reduction's shape".into(),
                });
            }
            if o.dtype() != out_dt {
                return Err(Error::DType {
                    op: self.name.clone(),
                    reason: format!("output of dtype {} for parameter of dtype {out_dt}", o.dtype()),
                });
            }
        }
        let op = self.reduce_op(x.dtype(), in_dt, out_dt);
        let res = run_reduce_op(&dev, &op, x, &axes, &kept)?;
        let res = if keepdims { res.reshape(&shape_kd.iter().map(|&d| d as isize).collect::<Vec<_>>())? } else { res };
        match out {
            Some(o) => {
                res.copy_into(o)?;
                Ok(o.clone())
            }
            None => Ok(res),
        }
    }
}

/// FNV-1a of `s`: enough to keep the names of generated helpers apart.
fn fnv64(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Run `op` over `axes` of `x` into a fresh array of the kept extents.
fn run_reduce_op(dev: &Arc<dyn DynDevice>, op: &ReduceOp, x: &Array, axes: &[usize], kept: &[usize]) -> Result<Array> {
    let out = Array::empty_on(dev, kept, op.out_type)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let x = if x.ndim() > 8 { x.copy()? } else { x.clone() };
    let plan = plan_reduce(op, x.shape(), x.strides(), axes, target_of(dev))?;
    let scratch =
        if plan.scratch_bytes > 0 { Some(dev.alloc(plan.scratch_bytes, &current_stream(dev))?) } else { None };
    run_launches(dev, &plan.launches, &x, &out, scratch.as_ref())?;
    Ok(out)
}

// ---- RawKernel / RawModule -------------------------------------------------------------------

/// An argument of a [`RawKernel`] launch: an array (a pointer to its first element) or a
/// typed scalar, passed as the C type of its Rust type (`f32` as `float`, `i32` as `int`…).
#[derive(Debug, Clone, Copy)]
pub enum LaunchArg<'a> {
    /// An array.
    Array(&'a Array),
    /// `bool`.
    Bool(bool),
    /// `xp::i8`.
    I8(i8),
    /// `xp::i16`.
    I16(i16),
    /// `int`.
    I32(i32),
    /// `long long`.
    I64(i64),
    /// `xp::u8`.
    U8(u8),
    /// `xp::u16`.
    U16(u16),
    /// `unsigned int`.
    U32(u32),
    /// `unsigned long long`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
}

impl<'a> From<&'a Array> for LaunchArg<'a> {
    fn from(a: &'a Array) -> Self {
        LaunchArg::Array(a)
    }
}
macro_rules! raw_arg_from {
    ($($t:ty => $v:ident),*) => { $(impl From<$t> for LaunchArg<'_> { fn from(x: $t) -> Self { LaunchArg::$v(x) } })* };
}
raw_arg_from!(bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32,
    u64 => U64, f32 => F32, f64 => F64);

impl LaunchArg<'_> {
    fn value_bytes(&self) -> Option<Vec<u8>> {
        Some(match *self {
            LaunchArg::Array(_) => return None,
            LaunchArg::Bool(v) => vec![v as u8],
            LaunchArg::I8(v) => v.to_ne_bytes().to_vec(),
            LaunchArg::I16(v) => v.to_ne_bytes().to_vec(),
            LaunchArg::I32(v) => v.to_ne_bytes().to_vec(),
            LaunchArg::I64(v) => v.to_ne_bytes().to_vec(),
            LaunchArg::U8(v) => v.to_ne_bytes().to_vec(),
            LaunchArg::U16(v) => v.to_ne_bytes().to_vec(),
            LaunchArg::U32(v) => v.to_ne_bytes().to_vec(),
            LaunchArg::U64(v) => v.to_ne_bytes().to_vec(),
            LaunchArg::F32(v) => v.to_ne_bytes().to_vec(),
            LaunchArg::F64(v) => v.to_ne_bytes().to_vec(),
        })
    }
}

/// The source of a [`RawModule`], compiled once per device.
struct ModuleSource {
    code: String,
    options: CompileOptions,
    names: Vec<String>,
    compiled: Mutex<HashMap<usize, Arc<dyn Module>>>,
}

impl ModuleSource {
    fn module(&self, device: &Arc<dyn DynDevice>) -> Result<Arc<dyn Module>> {
        let id = device_id(device);
        if let Some(m) = self.compiled.lock().get(&id) {
            return Ok(Arc::clone(m));
        }
        let name = self.names.first().cloned().unwrap_or_else(|| "module".into());
        let m = device.compile(&KernelSource::new(name, self.code.clone()), &self.options)?;
        self.compiled.lock().insert(id, Arc::clone(&m));
        Ok(m)
    }
}

/// Several kernels in one source, as CuPy's `RawModule`: compiled on first use per device,
/// kernels taken with [`RawModule::get_function`].
#[derive(Clone)]
pub struct RawModule {
    source: Arc<ModuleSource>,
}

impl std::fmt::Debug for RawModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawModule").field("kernels", &self.source.names).finish()
    }
}

impl RawModule {
    /// A module from CUDA C++ source (kernels declared `extern "C" __global__`) and compiler
    /// flags (`-DTILE=16`, `-I…`).
    pub fn new(code: &str, options: &[&str]) -> RawModule {
        RawModule {
            source: Arc::new(ModuleSource {
                code: code.to_string(),
                options: CompileOptions::new(options.iter().copied()),
                names: xp_kernels::kernel_names(code),
                compiled: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The names of the kernels the source defines.
    pub fn kernel_names(&self) -> &[String] {
        &self.source.names
    }

    /// Compile the module for `device` now (launches compile on first use otherwise); compile
    /// errors carry the compiler's log.
    pub fn compile(&self, device: &Arc<dyn DynDevice>) -> Result<()> {
        self.source.module(device).map(|_| ())
    }

    /// The kernel `name` of this module.
    pub fn get_function(&self, name: &str) -> Result<RawKernel> {
        if !self.source.names.iter().any(|n| n == name) {
            return Err(Error::value(
                "get_function",
                format!("the module defines no kernel `{name}` (it has: {})", self.source.names.join(", ")),
            ));
        }
        Ok(RawKernel { source: Arc::clone(&self.source), name: name.to_string() })
    }
}

/// One kernel from CUDA C++ source, as CuPy's `RawKernel`, launched with an explicit grid,
/// block, dynamic shared memory and stream. It runs on the CPU too, barriers and shared memory
/// included.
#[derive(Clone)]
pub struct RawKernel {
    source: Arc<ModuleSource>,
    name: String,
}

impl std::fmt::Debug for RawKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawKernel").field("name", &self.name).finish()
    }
}

impl RawKernel {
    /// The kernel `name` of `code`.
    pub fn new(code: &str, name: &str) -> RawKernel {
        RawKernel::with_options(code, name, &[])
    }

    /// As [`RawKernel::new`], with compiler flags.
    pub fn with_options(code: &str, name: &str, options: &[&str]) -> RawKernel {
        let m = RawModule::new(code, options);
        RawKernel { source: m.source, name: name.to_string() }
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The compiled kernel on `device`.
    pub fn kernel(&self, device: &Arc<dyn DynDevice>) -> Result<Arc<dyn Kernel>> {
        self.source.module(device)?.function(&self.name)
    }

    /// Launch `grid` blocks of `block` threads on the current stream of the arrays' device
    /// (the current device when no array is passed).
    pub fn launch(&self, grid: impl Into<Dim3>, block: impl Into<Dim3>, args: &[LaunchArg<'_>]) -> Result<()> {
        self.launch_with(grid, block, 0, None, args)
    }

    /// Launch with `shared_mem_bytes` of dynamic shared memory on `stream` (the current
    /// stream of the arrays' device when `None`).
    pub fn launch_with(
        &self,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        shared_mem_bytes: u32,
        stream: Option<&Arc<dyn Stream>>,
        args: &[LaunchArg<'_>],
    ) -> Result<()> {
        let arrays: Vec<&Array> = args
            .iter()
            .filter_map(|a| match a {
                LaunchArg::Array(a) => Some(*a),
                _ => None,
            })
            .collect();
        let device = common_device(&self.name, &arrays)?;
        let f = self.kernel(&device)?;
        if let Some(n) = f.num_params() {
            if n != args.len() {
                return Err(Error::value(&self.name, format!("the kernel takes {n} arguments, {} given", args.len())));
            }
        }
        let values: Vec<Option<Vec<u8>>> = args.iter().map(|a| a.value_bytes()).collect();
        let kargs: Vec<KernelArg<'_>> = args
            .iter()
            .zip(&values)
            .map(|(a, v)| match a {
                LaunchArg::Array(a) => a.kernel_arg(),
                _ => KernelArg::Value(v.as_deref().expect("scalars have bytes")),
            })
            .collect();
        let config = LaunchConfig::new(grid, block).with_shared_mem(shared_mem_bytes);
        let stream = match stream {
            Some(s) => Arc::clone(s),
            None => current_stream(&device),
        };
        stream.launch(&*f, &config, &kargs)
    }
}

// ---- fuse ------------------------------------------------------------------------------------

/// A value inside a function traced by [`fuse`]: arithmetic on it records an expression.
#[derive(Debug, Clone, Copy)]
pub struct FuseVar {
    trace: u64,
    node: u32,
}

#[derive(Debug, Clone)]
enum Node {
    Input(usize),
    Const(Scalar),
    Op(&'static str, Vec<u32>),
    Reduce(&'static str, Option<Vec<isize>>, bool, u32),
    Error(String),
}

struct TraceState {
    id: u64,
    nodes: Vec<Node>,
}

thread_local! {
    static TRACE: std::cell::RefCell<Option<TraceState>> = const { std::cell::RefCell::new(None) };
}

fn push_node(trace: u64, node: Node) -> FuseVar {
    TRACE.with(|t| {
        let mut t = t.borrow_mut();
        match t.as_mut() {
            Some(s) if s.id == trace => {
                s.nodes.push(node);
                FuseVar { trace, node: (s.nodes.len() - 1) as u32 }
            }
            Some(s) => {
                s.nodes.push(Node::Error("a value of another fused function was used".into()));
                FuseVar { trace: s.id, node: (s.nodes.len() - 1) as u32 }
            }
            None => panic!("a FuseVar was used outside the function fuse traces"),
        }
    })
}

impl FuseVar {
    fn op(self, name: &'static str, others: &[FuseVar]) -> FuseVar {
        let mut args = vec![self.node];
        let mut trace_ok = true;
        for o in others {
            trace_ok &= o.trace == self.trace;
            args.push(o.node);
        }
        if !trace_ok {
            return push_node(self.trace, Node::Error("values of two fused functions were mixed".into()));
        }
        push_node(self.trace, Node::Op(name, args))
    }

    fn constant(self, s: Scalar) -> FuseVar {
        push_node(self.trace, Node::Const(s))
    }

    /// Apply the elementwise op `name` (NumPy's name: `"arctan2"`, `"hypot"`…) to this value
    /// and `others`.
    pub fn ufunc(self, name: &str, others: &[FuseVar]) -> FuseVar {
        match find_op(name) {
            Some(op) if op.nin == others.len() + 1 && op.nout == 1 => self.op(op.name, others),
            _ => {
                push_node(self.trace, Node::Error(format!("no elementwise op `{name}` of {} inputs", others.len() + 1)))
            }
        }
    }

    fn reduce(self, kind: &'static str, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        push_node(self.trace, Node::Reduce(kind, axis.map(|a| a.to_vec()), keepdims, self.node))
    }

    /// Sum over `axis` (every axis when `None`); only as the function's last step.
    pub fn sum(self, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        self.reduce("sum", axis, keepdims)
    }
    /// Product over `axis`; only as the function's last step.
    pub fn prod(self, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        self.reduce("prod", axis, keepdims)
    }
    /// Largest element over `axis`; only as the function's last step.
    pub fn max(self, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        self.reduce("max", axis, keepdims)
    }
    /// Smallest element over `axis`; only as the function's last step.
    pub fn min(self, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        self.reduce("min", axis, keepdims)
    }
    /// Elementwise maximum (NaN propagates).
    pub fn maximum(self, other: FuseVar) -> FuseVar {
        self.op("maximum", &[other])
    }
    /// Elementwise minimum (NaN propagates).
    pub fn minimum(self, other: FuseVar) -> FuseVar {
        self.op("minimum", &[other])
    }
    /// `self ** other`.
    pub fn pow(self, other: FuseVar) -> FuseVar {
        self.op("power", &[other])
    }
    /// `where(self, x, y)`.
    pub fn where_(self, x: FuseVar, y: FuseVar) -> FuseVar {
        self.op("where", &[x, y])
    }
}

macro_rules! fuse_unary {
    ($($m:ident => $op:literal),* $(,)?) => {
        impl FuseVar {
            $(
                #[doc = concat!("Elementwise `", $op, "`.")]
                pub fn $m(self) -> FuseVar {
                    self.op($op, &[])
                }
            )*
        }
    };
}
fuse_unary!(sqrt => "sqrt", exp => "exp", log => "log", sin => "sin", cos => "cos", tan => "tan", tanh => "tanh",
    abs => "absolute", square => "square", floor => "floor", ceil => "ceil", reciprocal => "reciprocal");

macro_rules! fuse_binary {
    ($($tr:ident :: $m:ident => $op:literal),* $(,)?) => {
        $(
            impl std::ops::$tr for FuseVar {
                type Output = FuseVar;
                fn $m(self, o: FuseVar) -> FuseVar {
                    self.op($op, &[o])
                }
            }
            impl std::ops::$tr<f64> for FuseVar {
                type Output = FuseVar;
                fn $m(self, o: f64) -> FuseVar {
                    let c = self.constant(Scalar::Float(o));
                    self.op($op, &[c])
                }
            }
            impl std::ops::$tr<i64> for FuseVar {
                type Output = FuseVar;
                fn $m(self, o: i64) -> FuseVar {
                    let c = self.constant(Scalar::Int(o as i128));
                    self.op($op, &[c])
                }
            }
            impl std::ops::$tr<FuseVar> for f64 {
                type Output = FuseVar;
                fn $m(self, o: FuseVar) -> FuseVar {
                    o.constant(Scalar::Float(self)).op($op, &[o])
                }
            }
            impl std::ops::$tr<FuseVar> for i64 {
                type Output = FuseVar;
                fn $m(self, o: FuseVar) -> FuseVar {
                    o.constant(Scalar::Int(self as i128)).op($op, &[o])
                }
            }
        )*
    };
}
fuse_binary!(Add::add => "add", Sub::sub => "subtract", Mul::mul => "multiply", Div::div => "true_divide",
    Rem::rem => "remainder");

impl std::ops::Neg for FuseVar {
    type Output = FuseVar;
    fn neg(self) -> FuseVar {
        self.op("negative", &[])
    }
}

/// The dtype of each argument of a fused call, and whether it is a scalar.
type PlanKey = Vec<(DType, bool)>;

/// A traced function: its nodes and the result's node.
type Trace = Arc<(Vec<Node>, u32)>;

/// A function of `N` arguments fused into one kernel; see [`fuse`].
pub struct Fused<const N: usize, F> {
    name: String,
    f: F,
    id: u64,
    trace: Mutex<Option<Trace>>,
    plans: Mutex<HashMap<PlanKey, Arc<FusedPlan>>>,
}

impl<const N: usize, F> std::fmt::Debug for Fused<N, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fused").field("name", &self.name).field("arity", &N).finish()
    }
}

/// What one dtype combination of a fused function compiles to.
struct FusedPlan {
    /// The elementwise part: body over `in0…`, setting `out0`.
    body: String,
    preamble: String,
    out_dtype: DType,
    /// Per input: by-value (weak scalar) and its carrier dtype.
    inputs: Vec<(bool, DType)>,
    /// The final reduction: kind, axis, keepdims.
    reduce: Option<(&'static str, Option<Vec<isize>>, bool)>,
}

/// Fuse `f` — a function of `N` arrays or scalars written with [`FuseVar`] arithmetic, elementwise
/// ops and at most one reduction as its last step — into one kernel, as `cupy.fuse`.
///
/// The function is traced once, at its first call; each combination of argument dtypes is
/// compiled once. Dtypes follow NumPy's rules for each op (the same loops as the unfused ops),
/// with scalars weak.
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::{arange, user::fuse, DType};
/// let squared_diff = fuse("squared_diff", |[x, y]| (x - y) * (x - y));
/// let x = arange(0.0, 4.0, 1.0, Some(DType::F32)).unwrap();
/// let z = squared_diff.call(&[(&x).into(), 1.0.into()]).unwrap();
/// assert_eq!(z.to_vec::<f32>().unwrap(), [1.0, 0.0, 1.0, 4.0]);
/// # });
/// ```
pub fn fuse<const N: usize, F: Fn([FuseVar; N]) -> FuseVar>(name: &str, f: F) -> Fused<N, F> {
    Fused { name: name.to_string(), f, id: next_id(), trace: Mutex::new(None), plans: Mutex::new(HashMap::new()) }
}

impl<const N: usize, F: Fn([FuseVar; N]) -> FuseVar> Fused<N, F> {
    fn traced(&self) -> Result<Trace> {
        if let Some(t) = self.trace.lock().as_ref() {
            return Ok(Arc::clone(t));
        }
        let id = next_id();
        let busy = TRACE.with(|t| {
            let mut t = t.borrow_mut();
            if t.is_some() {
                return true;
            }
            *t = Some(TraceState { id, nodes: (0..N).map(Node::Input).collect() });
            false
        });
        if busy {
            return Err(Error::Unsupported(format!("{}: a fused function cannot call another one", self.name)));
        }
        struct Clear;
        impl Drop for Clear {
            fn drop(&mut self) {
                TRACE.with(|t| *t.borrow_mut() = None);
            }
        }
        let clear = Clear;
        let vars: [FuseVar; N] = std::array::from_fn(|k| FuseVar { trace: id, node: k as u32 });
        let root = (self.f)(vars);
        let nodes = TRACE.with(|t| t.borrow_mut().take().map(|s| s.nodes).unwrap_or_default());
        drop(clear);
        if root.trace != id {
            return Err(Error::value(&self.name, "the fused function returned a value it did not compute"));
        }
        let traced = Arc::new((nodes, root.node));
        *self.trace.lock() = Some(Arc::clone(&traced));
        Ok(traced)
    }

    /// The identity of the function's closure type (two `fuse` calls on one closure type
    /// trace the same code).
    pub fn type_id(&self) -> TypeId
    where
        F: 'static,
    {
        TypeId::of::<F>()
    }

    /// Run the fused function on `args` (arrays or scalars).
    pub fn call(&self, args: &[Operand<'_>]) -> Result<Array> {
        if args.len() != N {
            return Err(Error::value(&self.name, format!("takes {N} arguments, {} given", args.len())));
        }
        let traced = self.traced()?;
        let key: Vec<(DType, bool)> = args
            .iter()
            .map(|a| match a {
                Operand::Array(a) => (a.dtype(), false),
                Operand::Scalar(s) => (s.default_dtype(), true),
            })
            .collect();
        let plan = {
            let cached = self.plans.lock().get(&key).cloned();
            match cached {
                Some(p) => p,
                None => {
                    let p = Arc::new(self.plan(&traced, args)?);
                    self.plans.lock().insert(key.clone(), Arc::clone(&p));
                    p
                }
            }
        };
        let arrays: Vec<&Array> = args
            .iter()
            .filter_map(|a| match a {
                Operand::Array(a) => Some(*a),
                _ => None,
            })
            .collect();
        let device = common_device(&self.name, &arrays)?;
        let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
        let shape = broadcast_shapes(&self.name, &shapes)?;
        let mut holders = Vec::new();
        let mut values = Vec::new();
        for (a, (by_value, carrier)) in args.iter().zip(&plan.inputs) {
            match a {
                Operand::Array(a) => {
                    holders.push(a.broadcast_to(&shape)?);
                    values.push(None);
                }
                Operand::Scalar(s) => {
                    debug_assert!(*by_value);
                    values.push(Some(scalar_bytes(*s, *carrier)?));
                }
            }
        }
        let mut h = holders.iter();
        let user_in: Vec<UserIn<'_>> = values
            .into_iter()
            .map(|v| match v {
                Some(b) => UserIn::Value(b),
                None => UserIn::Array(h.next().expect("one holder per array")),
            })
            .collect();
        let ins: Vec<KOp> = plan
            .inputs
            .iter()
            .zip(args)
            .map(|((by_value, carrier), a)| match a {
                Operand::Array(a) if !by_value => KOp::array(a.dtype(), a.dtype()),
                _ => KOp::scalar(*carrier, *carrier),
            })
            .collect();
        let mut key_s = format!("fuse|{}|", self.id);
        for (d, s) in &key {
            let _ = write!(key_s, "{}{}|", d.short(), s);
        }
        // A reduction of one array input: the expression is the reduction's map, one kernel.
        if let Some((kind, axis, keepdims)) = &plan.reduce {
            let single = args.len() == 1 && matches!(args[0], Operand::Array(_));
            if single {
                let x = &holders[0];
                let axes: Vec<usize> = match axis {
                    None => (0..x.ndim()).collect(),
                    Some(ax) => normalize_axes(&self.name, ax, x.ndim())?,
                };
                let mut op = builtin_reduce(kind, plan.out_dtype, 0)?;
                let hash = fnv64(&key_s);
                let f = format!("xp_fuse_map_{hash:016x}");
                let (inc, exc) = (x.dtype().c_name(), plan.out_dtype.c_name());
                let _ = write!(
                    op.preamble,
                    "\n{}\n#ifndef XP_FUSE_MAP_{hash:016x}\n#define XP_FUSE_MAP_{hash:016x} 1\n\
                     XP_DEVICE {exc} {f}(const {inc} in0) {{ {exc} out0;\n{}\nreturn out0; }}\n#endif\n",
                    plan.preamble, plan.body
                );
                op.map = op.map.replace("in0", &format!("{f}(in0)"));
                op.in_type = x.dtype();
                op.name = self.name.clone();
                let kept: Vec<usize> = (0..x.ndim()).filter(|d| !axes.contains(d)).map(|d| x.shape()[d]).collect();
                let res = run_reduce_op(&device, &op, x, &axes, &kept)?;
                if *keepdims {
                    let kd: Vec<isize> =
                        (0..x.ndim()).map(|d| if axes.contains(&d) { 1 } else { x.shape()[d] as isize }).collect();
                    return res.reshape(&kd);
                }
                return Ok(res);
            }
        }
        let out = Array::empty_on(&device, &shape, plan.out_dtype)?;
        launch_user(
            &self.name,
            &device,
            &shape,
            &key_s,
            |layout, index| ElementwiseSpec {
                op: self.name.clone(),
                inputs: ins.clone(),
                outputs: vec![KOp::array(plan.out_dtype, plan.out_dtype)],
                body: format!("{{\n{}\n}}", plan.body),
                preamble: plan.preamble.clone(),
                layout,
                index,
                fast: None,
            },
            &user_in,
            &[&out],
        )?;
        match &plan.reduce {
            None => Ok(out),
            Some((kind, axis, keepdims)) => match *kind {
                "sum" => out.sum(axis.as_deref(), *keepdims),
                "prod" => out.prod(axis.as_deref(), *keepdims),
                "max" => out.max(axis.as_deref(), *keepdims),
                _ => out.min(axis.as_deref(), *keepdims),
            },
        }
    }

    /// Resolve dtypes and write the code for arguments like `args`.
    fn plan(&self, traced: &(Vec<Node>, u32), args: &[Operand<'_>]) -> Result<FusedPlan> {
        let (nodes, root) = (&traced.0, traced.1 as usize);
        let (expr_root, reduce) = match &nodes[root] {
            Node::Reduce(kind, axis, keepdims, src) => (*src as usize, Some((*kind, axis.clone(), *keepdims))),
            _ => (root, None),
        };
        // Which nodes the result needs.
        let mut need = vec![false; nodes.len()];
        need[expr_root] = true;
        for k in (0..=expr_root).rev() {
            if !need[k] {
                continue;
            }
            match &nodes[k] {
                Node::Op(_, a) => a.iter().for_each(|&s| need[s as usize] = true),
                Node::Reduce(..) => {
                    return Err(Error::value(&self.name, "a fused function may reduce only as its last step"))
                }
                Node::Error(e) => return Err(Error::value(&self.name, e.clone())),
                _ => {}
            }
        }
        #[derive(Clone, Copy)]
        enum Ty {
            Strong(DType),
            Weak(Scalar),
        }
        let carrier = |s: &Scalar| s.default_dtype();
        let mut tys: Vec<Option<Ty>> = vec![None; nodes.len()];
        let mut body = String::new();
        let mut preambles: Vec<&'static str> = Vec::new();
        let mut inputs = Vec::new();
        for a in args {
            inputs.push(match a {
                Operand::Array(a) => (false, a.dtype()),
                Operand::Scalar(s) => (true, carrier(s)),
            });
        }
        for k in 0..=expr_root {
            if !need[k] {
                continue;
            }
            let ty = match &nodes[k] {
                Node::Input(j) => {
                    let t = match args[*j] {
                        Operand::Array(a) => Ty::Strong(a.dtype()),
                        Operand::Scalar(s) => Ty::Weak(s),
                    };
                    let c = inputs[*j].1.c_name();
                    let _ = writeln!(body, "const {c} v{k} = in{j};");
                    t
                }
                Node::Const(s) => {
                    let lit = match *s {
                        Scalar::Bool(b) => format!("const bool v{k} = {b};"),
                        Scalar::Int(i) => format!("const xp::i64 v{k} = (xp::i64)({i}LL);"),
                        Scalar::Float(f) => format!("const double v{k} = xp::bits_to_f64({}ull);", f.to_bits()),
                        Scalar::Complex(re, im) => format!(
                            "const xp::c128 v{k} = xp::c128(xp::bits_to_f64({}ull), xp::bits_to_f64({}ull));",
                            re.to_bits(),
                            im.to_bits()
                        ),
                    };
                    body.push_str(&lit);
                    body.push('\n');
                    Ty::Weak(*s)
                }
                Node::Op(name, srcs) => {
                    let op = find_op(name).ok_or_else(|| Error::Unsupported(format!("{name}: no such op")))?;
                    let src_tys: Vec<Ty> =
                        srcs.iter().map(|&s| tys[s as usize].expect("operands come first")).collect();
                    let strong = src_tys
                        .iter()
                        .filter_map(|t| match t {
                            Ty::Strong(d) => Some(*d),
                            Ty::Weak(_) => None,
                        })
                        .reduce(promote_types);
                    let dts: Vec<DType> = src_tys
                        .iter()
                        .map(|t| match t {
                            Ty::Strong(d) => Ok(*d),
                            Ty::Weak(s) => match strong {
                                Some(st) => weak_dtype(name, st, s),
                                None => Ok(s.default_dtype()),
                            },
                        })
                        .collect::<Result<_>>()?;
                    let lp = resolve_loop(op, &dts)?;
                    let (lin, lout) = lp.dtypes();
                    if !preambles.contains(&op.preamble) {
                        preambles.push(op.preamble);
                    }
                    let oc = lout[0].c_name();
                    let _ = writeln!(body, "{oc} v{k};");
                    body.push_str("{\n");
                    for (j, (&s, d)) in srcs.iter().zip(&lin).enumerate() {
                        let _ = writeln!(body, "  const {c} in{j} = xp::cast<{c}>(v{s});", c = d.c_name());
                    }
                    let _ = writeln!(body, "  {oc} out0;\n  {}\n  v{k} = out0;\n}}", lp.body.unwrap_or(op.body));
                    Ty::Strong(lout[0])
                }
                _ => unreachable!("checked above"),
            };
            tys[k] = Some(ty);
        }
        let out_dtype = match tys[expr_root].expect("computed") {
            Ty::Strong(d) => d,
            Ty::Weak(s) => s.default_dtype(),
        };
        let _ = writeln!(body, "out0 = xp::cast<{}>(v{expr_root});", out_dtype.c_name());
        let preamble = preambles.iter().filter(|p| !p.is_empty()).copied().collect::<Vec<_>>().join("\n");
        Ok(FusedPlan { body, preamble, out_dtype, inputs, reduce })
    }
}

/// The loop of `op` for input dtypes `dts` (NumPy's choice: the first loop every input casts
/// to safely; integer division in float64).
fn resolve_loop(op: &'static ElementwiseOp, dts: &[DType]) -> Result<&'static TypeLoop> {
    if op.name == "true_divide"
        && dts.iter().all(|d| matches!(d.kind(), DTypeKind::Bool | DTypeKind::Signed | DTypeKind::Unsigned))
    {
        if let Some(lp) = op.loops.iter().find(|l| l.sig == "dd->d") {
            return Ok(lp);
        }
    }
    for lp in op.loops {
        let (ins, _) = lp.dtypes();
        if ins.len() == dts.len() && ins.iter().zip(dts).all(|(l, d)| can_cast_safe(*d, *l)) {
            return Ok(lp);
        }
    }
    let names: Vec<&str> = dts.iter().map(|d| d.name()).collect();
    Err(Error::DType {
        op: op.name.into(),
        reason: format!("the op is not supported for input dtypes ({})", names.join(", ")),
    })
}

#[cfg(test)]
mod reads_tests {
    #[test]
    fn outputs_only_assigned_are_not_read() {
        assert!(!super::reads_variable("z = (x - y) * (x - y)", "z"));
        assert!(super::reads_variable("z += x", "z"));
        assert!(super::reads_variable("z = z * 2", "z"));
        assert!(super::reads_variable("if (z == 0) z = 1", "z"));
        assert!(!super::reads_variable("zz = 1; z = 2", "z"));
    }
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
