//! Kernels written in Rust, as CuPy's `cupyx.jit`: the runtime of `#[xp::rawkernel]`,
//! `#[xp::kernel]` and `#[xp::device]` (the `xp-macros` crate, re-exported by `xp`).
//!
//! The macros translate a Rust function into xp's kernel dialect at cargo time; this module
//! holds what they expand to — [`RustKernel`] (a raw kernel: explicit grid, shared memory,
//! barriers), [`RustElementwiseKernel`] (an elementwise kernel), [`DeviceFn`] (a helper) — the
//! typed launch arguments ([`KernelArgs`]) and the [`builtins`] that kernel bodies call.
//!
//! ```text
//! #[xp::rawkernel]
//! fn saxpy(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
//!     let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
//!     if i < x.len() {
//!         out[i] = a * x[i] + y[i];
//!     }
//! }
//!
//! saxpy.launch((blocks,), (threads,), (2.0f32, &x, &y, &mut out))?;
//! ```
//!
//! (The `xp` crate's documentation runs this kernel beside the three other ways of writing
//! it: `RawKernel`, `ElementwiseKernel` and `#[xp::kernel]`.)
//!
//! # Running
//! - A [`RustKernel`] is launched with a grid, a block and a tuple of arguments:
//!   `k.launch((blocks,), (threads,), (2.0f32, &x, &y, &mut out))`. Scalars are Rust values of
//!   the parameter's exact type (no conversion: `2.0` is an `f64`, write `2.0f32`); `&Array`
//!   goes to a `&[T]` parameter and `&mut Array` to a `&mut [T]` (or a `&[T]`). Before
//!   anything runs, the arguments are checked — their count, each array's dtype against its
//!   parameter, C-contiguity, one device — and a mistake is an error naming the kernel and the
//!   parameter. [`RustKernel::launch_with`] adds dynamic shared memory and a stream.
//! - A slice parameter arrives with its length (`x.len()` is the array's size); indexing is
//!   not bounds-checked, as in CUDA C++.
//! - A generic kernel (`T: xp::Float` or `xp::Int`) is compiled once per dtype of `T`, bound by
//!   the arguments (`using T = float;` before the kernel, its name suffixed `_f32`).
//! - A [`RustElementwiseKernel`] is an [`ElementwiseKernel`] whose operation is the translated
//!   body: it broadcasts its inputs and allocates its outputs as that does
//!   (`k.call((&x, 0.1f32))`, or with the outputs after the inputs, `(&x, 0.1f32, &mut y)`).
//!
//! Kernels compile through [`RawKernel`] (the same compile cache, keyed by the generated
//! source, and the same launch path), with contraction off: Rust never fuses `a * b + c`, so
//! neither does the kernel, and the CPU and every GPU give the same bits for the arithmetic
//! (call `a.mul_add(b, c)` for a fused multiply-add). `XP_DUMP_SOURCE=1` prints each source
//! when it is first built; [`RustKernel::source`] returns it.
//!
//! # The Rust subset
//! `let` (typed or inferred), `let mut`, assignments and compound assignments, arithmetic,
//! comparisons, `&&`/`||`, `if`/`else` (also as a value), `while`, `loop`, `for i in a..b` (and
//! `a..=b`, `(a..b).step_by(s)`), `break`, `continue`, `return`, `as` casts, `const` items,
//! slice indexing and `.len()`, arrays `[v; N]`, the math methods (`x.sqrt()`, `x.exp()`,
//! `a.max(b)`, `x.mul_add(y, z)`, `x.powi(n)` …), constants (`f32::MAX`, `f32::consts::PI`),
//! constants of the enclosing module (by value: `TILE`), calls of `#[xp::device]` functions and
//! the [`builtins`]. Anything else is a compile error at its span saying what is supported.
//!
//! # Where Rust and C++ differ, the kernel follows Rust
//! - integer `+`, `-`, `*` and negation wrap (as Rust in release builds) instead of being
//!   undefined in C++;
//! - `as` from float to integer saturates (NaN is 0), integer to integer wraps;
//! - an untyped literal takes the type Rust infers: `x * 2.0` with `x: f32` is float
//!   arithmetic, not double; otherwise `i32` and `f64`, Rust's defaults;
//! - shift amounts are taken modulo the width (`1u32 << 33` is 2);
//! - integer division and remainder by zero give 0 and `MIN / -1` gives `MIN` (Rust panics; a
//!   kernel cannot, so xp defines them);
//! - `f32::max`/`min` return the non-NaN operand.
//!
//! Warp operations see a warp of one lane on the CPU backend ([`builtins::warp_size`] is 1
//! there): write warp code for `warp_size()`, not for 32.

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use xp_backend_api::{CompileOptions, DType, Dim3, Error, Result, Stream};

use super::raw::{LaunchArg, RawKernel};
use super::ElementwiseKernel;
use crate::promote::Scalar;
use crate::ufunc::{common_device, Operand};
use crate::Array;

pub mod builtins;

pub use builtins::{Float, Int};

/// The bound of a kernel's type parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// `T: xp::Float`: `f32` or `f64`.
    Float,
    /// `T: xp::Int`: an integer dtype.
    Int,
}

/// A type parameter of a kernel.
#[derive(Debug, Clone, Copy)]
pub struct GenericDesc {
    /// Its name (`T`).
    pub name: &'static str,
    /// Its bound.
    pub bound: Bound,
}

/// The element type of a parameter: fixed, or the kernel's `k`-th type parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElemTy {
    /// A dtype.
    Fixed(DType),
    /// A type parameter, by position.
    Generic(usize),
}

/// What a parameter is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A value.
    Scalar,
    /// `&[T]` (`mutable: false`) or `&mut [T]`.
    Slice {
        /// Whether the kernel writes it.
        mutable: bool,
    },
    /// `&mut T`: an output of an elementwise kernel.
    Output {
        /// Always true for elementwise outputs.
        mutable: bool,
    },
}

/// A parameter of a kernel written in Rust.
#[derive(Debug, Clone, Copy)]
pub struct ParamDesc {
    /// Its Rust name.
    pub name: &'static str,
    /// What it is.
    pub kind: ParamKind,
    /// Its element type.
    pub elem: ElemTy,
}

/// The value of a constant of the enclosing scope that a kernel reads (written into the source
/// as a `constexpr`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConstValue {
    /// `bool`.
    Bool(bool),
    /// Signed integers (with their C++ type).
    Int(i64, &'static str),
    /// Unsigned integers (with their C++ type).
    UInt(u64, &'static str),
    /// `f32`.
    F32(f32),
    /// `f64`.
    F64(f64),
}

macro_rules! const_from {
    ($($t:ty => $v:ident, $w:ty, $c:literal);*) => {
        $(impl From<$t> for ConstValue { fn from(v: $t) -> Self { ConstValue::$v(v as $w, $c) } })*
    };
}
const_from!(i8 => Int, i64, "xp::i8"; i16 => Int, i64, "xp::i16"; i32 => Int, i64, "xp::i32";
    i64 => Int, i64, "xp::i64"; isize => Int, i64, "xp::i64"; u8 => UInt, u64, "xp::u8"; u16 => UInt, u64, "xp::u16";
    u32 => UInt, u64, "xp::u32"; u64 => UInt, u64, "xp::u64"; usize => UInt, u64, "xp::u64");
impl From<bool> for ConstValue {
    fn from(v: bool) -> Self {
        ConstValue::Bool(v)
    }
}
impl From<f32> for ConstValue {
    fn from(v: f32) -> Self {
        ConstValue::F32(v)
    }
}
impl From<f64> for ConstValue {
    fn from(v: f64) -> Self {
        ConstValue::F64(v)
    }
}

/// A constant a kernel reads from its enclosing scope, by value.
#[derive(Debug, Clone, Copy)]
pub struct ConstArg {
    name: &'static str,
    value: ConstValue,
}

impl ConstArg {
    /// Constant `name` (its C++ name) of value `v`.
    pub fn new(name: &'static str, v: impl Into<ConstValue>) -> ConstArg {
        ConstArg { name, value: v.into() }
    }

    fn declaration(&self) -> String {
        let n = self.name;
        match self.value {
            ConstValue::Bool(b) => format!("constexpr bool {n} = {b};\n"),
            ConstValue::Int(v, t) if v == i64::MIN => {
                format!("constexpr {t} {n} = ({t})(-9223372036854775807ll - 1);\n")
            }
            ConstValue::Int(v, t) => format!("constexpr {t} {n} = ({t})({v}ll);\n"),
            ConstValue::UInt(v, t) => format!("constexpr {t} {n} = ({t})({v}ull);\n"),
            ConstValue::F32(v) if v.is_finite() => format!("constexpr float {n} = {v:?}f;\n"),
            ConstValue::F64(v) if v.is_finite() => format!("constexpr double {n} = {v:?};\n"),
            ConstValue::F32(v) => format!("const float {n} = xp::bits_to_f32({}u);\n", v.to_bits()),
            ConstValue::F64(v) => format!("const double {n} = xp::bits_to_f64({}ull);\n", v.to_bits()),
        }
    }
}

/// A function marked `#[xp::device]`: its C++ and what it calls.
#[derive(Debug)]
pub struct DeviceFn {
    /// Its Rust name.
    pub name: &'static str,
    /// Its C++ declaration.
    pub prototype: &'static str,
    /// Its C++ definition.
    pub code: &'static str,
    /// The device functions it calls.
    pub devices: &'static [&'static DeviceFn],
    /// The constants of its scope it reads.
    pub consts: fn() -> Vec<ConstArg>,
    /// Whether it calls `sync_threads()`.
    pub uses_sync: bool,
}

/// What `#[xp::rawkernel]` writes: the kernel's C++ (named by the placeholder `__xp_rust_kernel_name__`) and its
/// parameters.
#[derive(Debug)]
pub struct KernelDef {
    /// The Rust name.
    pub name: &'static str,
    /// The C++ name (the Rust name unless C++ reserves it), before an instance's suffix.
    pub cpp_name: &'static str,
    /// The parameters, in order.
    pub params: &'static [ParamDesc],
    /// The type parameters.
    pub generics: &'static [GenericDesc],
    /// The kernel's C++.
    pub code: &'static str,
    /// The device functions it calls.
    pub devices: &'static [&'static DeviceFn],
    /// The constants of its scope it reads.
    pub consts: fn() -> Vec<ConstArg>,
    /// Whether it calls `sync_threads()`.
    pub uses_sync: bool,
}

/// The device functions `devices` call, each once, callees first.
fn collect_devices(devices: &'static [&'static DeviceFn], out: &mut Vec<&'static DeviceFn>) {
    for d in devices {
        if out.iter().any(|o| std::ptr::eq(*o, *d)) {
            continue;
        }
        out.push(d);
        collect_devices(d.devices, out);
    }
}

/// The part of a generated source before the kernel: the Rust-semantics header, the
/// constants, the device functions (declared, then defined).
fn preamble(kind: &str, name: &str, devices: &'static [&'static DeviceFn], consts: fn() -> Vec<ConstArg>) -> String {
    let mut fns = Vec::new();
    collect_devices(devices, &mut fns);
    let mut s = format!("// `{name}`: generated from Rust by #[xp::{kind}]\n");
    s.push_str(xp_kernels::RUST_HEADER);
    s.push('\n');
    let mut seen: Vec<&str> = Vec::new();
    for c in consts().into_iter().chain(fns.iter().flat_map(|d| (d.consts)())) {
        if !seen.contains(&c.name) {
            seen.push(c.name);
            s.push_str(&c.declaration());
        }
    }
    for d in &fns {
        s.push_str(d.prototype);
    }
    for d in &fns {
        s.push_str(d.code);
    }
    s
}

fn dtype_suffix(d: DType) -> &'static str {
    d.short()
}

/// A kernel written in Rust with `#[xp::rawkernel]`: launched with an explicit grid, as
/// CuPy's `@jit.rawkernel()`. See the [module docs](self).
pub struct RustKernel {
    def: KernelDef,
    instances: Mutex<Vec<(Vec<DType>, RawKernel)>>,
}

impl std::fmt::Debug for RustKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RustKernel").field("name", &self.def.name).finish()
    }
}

impl RustKernel {
    /// The kernel of `def` (what the macro writes).
    pub const fn new(def: KernelDef) -> RustKernel {
        RustKernel { def, instances: Mutex::new(Vec::new()) }
    }

    /// The kernel's (Rust) name.
    pub fn name(&self) -> &'static str {
        self.def.name
    }

    /// The parameters.
    pub fn params(&self) -> &'static [ParamDesc] {
        self.def.params
    }

    /// The type parameters (one dtype each in [`RustKernel::source_for`]).
    pub fn generics(&self) -> &'static [GenericDesc] {
        self.def.generics
    }

    /// The C++ name of the instance for `dtypes` (one per type parameter).
    pub fn instance_name(&self, dtypes: &[DType]) -> String {
        let mut n = self.def.cpp_name.to_string();
        for d in dtypes {
            n.push('_');
            n.push_str(dtype_suffix(*d));
        }
        n
    }

    /// The generated source (without the prelude) of a kernel without type parameters.
    pub fn source(&self) -> Result<String> {
        self.source_for(&[])
    }

    /// The generated source for `dtypes`, one per type parameter in order (`T = f32`: `&[DType::F32]`).
    pub fn source_for(&self, dtypes: &[DType]) -> Result<String> {
        let g = self.def.generics;
        if dtypes.len() != g.len() {
            return Err(Error::value(
                self.def.name,
                format!(
                    "the kernel has {} type parameter(s) ({}); {} dtype(s) given",
                    g.len(),
                    g.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
                    dtypes.len()
                ),
            ));
        }
        for (gd, d) in g.iter().zip(dtypes) {
            check_bound(self.def.name, gd, *d)?;
        }
        let mut s = preamble("rawkernel", self.def.name, self.def.devices, self.def.consts);
        for (gd, d) in g.iter().zip(dtypes) {
            let _ = writeln!(s, "using {} = {};", gd.name, d.c_name());
        }
        s.push_str(&self.def.code.replace("__xp_rust_kernel_name__", &self.instance_name(dtypes)));
        Ok(s)
    }

    fn instance(&self, dtypes: &[DType]) -> Result<RawKernel> {
        let mut inst = self.instances.lock();
        if let Some((_, k)) = inst.iter().find(|(d, _)| d == dtypes) {
            return Ok(k.clone());
        }
        let src = self.source_for(dtypes)?;
        if dump_source()? {
            eprintln!("// ---- XP_DUMP_SOURCE: {} ----\n{src}", self.instance_name(dtypes));
        }
        let k = RawKernel::with_compile_options(
            &src,
            &self.instance_name(dtypes),
            CompileOptions::default().with_no_contraction(true),
        );
        inst.push((dtypes.to_vec(), k.clone()));
        Ok(k)
    }

    /// Launch `grid` blocks of `block` threads with `args` (a tuple) on the current stream of
    /// the arrays' device.
    pub fn launch<'a>(&self, grid: impl Into<Dim3>, block: impl Into<Dim3>, args: impl KernelArgs<'a>) -> Result<()> {
        self.launch_with(grid, block, 0, None, args)
    }

    /// Launch with `shared_mem_bytes` of dynamic shared memory (what `shared_dyn::<T>()`
    /// returns) on `stream` (the current stream of the arrays' device when `None`).
    pub fn launch_with<'a>(
        &self,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        shared_mem_bytes: u32,
        stream: Option<&Arc<dyn Stream>>,
        args: impl KernelArgs<'a>,
    ) -> Result<()> {
        let args = args.into_args();
        let dtypes = check_args(self.def.name, self.def.params, self.def.generics, &args)?;
        let arrays: Vec<&Array> = args.iter().filter_map(Arg::array).collect();
        common_device(self.def.name, &arrays)?;
        let k = self.instance(&dtypes)?;
        let mut launch: Vec<LaunchArg<'_>> = Vec::with_capacity(args.len() * 2);
        for a in &args {
            match a {
                Arg::Value(v) => launch.push(*v),
                Arg::Read(x) | Arg::Write(x) => {
                    launch.push(LaunchArg::Array(x));
                    launch.push(LaunchArg::U64(x.size() as u64));
                }
            }
        }
        k.launch_with(grid, block, shared_mem_bytes, stream, &launch)
    }
}

fn check_bound(kernel: &str, g: &GenericDesc, d: DType) -> Result<()> {
    let ok = match g.bound {
        Bound::Float => matches!(d, DType::F32 | DType::F64),
        Bound::Int => matches!(
            d,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 | DType::U16 | DType::U32 | DType::U64
        ),
    };
    if ok {
        Ok(())
    } else {
        Err(Error::DType {
            op: kernel.to_string(),
            reason: format!(
                "type parameter `{}: xp::{:?}` cannot be {d} ({})",
                g.name,
                g.bound,
                if g.bound == Bound::Float { "float32 or float64" } else { "an integer dtype" }
            ),
        })
    }
}

/// The dtype a parameter takes, with the type parameters bound so far.
fn param_dtype(p: &ParamDesc, bound: &[Option<DType>]) -> Option<DType> {
    match p.elem {
        ElemTy::Fixed(d) => Some(d),
        ElemTy::Generic(k) => bound.get(k).copied().flatten(),
    }
}

fn describe(p: &ParamDesc, generics: &[GenericDesc]) -> String {
    let t = match p.elem {
        ElemTy::Fixed(d) => rust_name(d).to_string(),
        ElemTy::Generic(k) => generics.get(k).map_or("T", |g| g.name).to_string(),
    };
    match p.kind {
        ParamKind::Scalar => format!("`{}: {t}`", p.name),
        ParamKind::Slice { mutable: false } => format!("`{}: &[{t}]`", p.name),
        ParamKind::Slice { mutable: true } => format!("`{}: &mut [{t}]`", p.name),
        ParamKind::Output { .. } => format!("`{}: &mut {t}`", p.name),
    }
}

fn rust_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::I8 => "i8",
        DType::I16 => "i16",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::U8 => "u8",
        DType::U16 => "u16",
        DType::U32 => "u32",
        DType::U64 => "u64",
        DType::F32 => "f32",
        DType::F64 => "f64",
        _ => "?",
    }
}

/// `args` checked against `params` (module docs); the dtypes bound to the type parameters.
fn check_args(kernel: &str, params: &[ParamDesc], generics: &[GenericDesc], args: &[Arg<'_>]) -> Result<Vec<DType>> {
    let names = || params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ");
    if args.len() != params.len() {
        return Err(Error::value(
            kernel,
            format!("the kernel takes {} argument(s) ({}); {} given", params.len(), names(), args.len()),
        ));
    }
    // Bind the type parameters from the arguments, in order.
    let mut bound: Vec<Option<DType>> = vec![None; generics.len()];
    let mut bound_by: Vec<&str> = vec![""; generics.len()];
    for (p, a) in params.iter().zip(args) {
        if let ElemTy::Generic(k) = p.elem {
            let d = a.dtype();
            match bound[k] {
                None => {
                    check_bound(kernel, &generics[k], d)?;
                    bound[k] = Some(d);
                    bound_by[k] = p.name;
                }
                Some(b) if b != d => {
                    return Err(Error::DType {
                        op: kernel.to_string(),
                        reason: format!(
                            "parameter {} takes {} = {b} (bound by `{}`); {} was given",
                            describe(p, generics),
                            generics[k].name,
                            bound_by[k],
                            a.what()
                        ),
                    })
                }
                Some(_) => {}
            }
        }
    }
    for (p, a) in params.iter().zip(args) {
        let want = param_dtype(p, &bound).expect("every type parameter is bound by a parameter");
        let kind_ok = matches!(
            (p.kind, a),
            (ParamKind::Scalar, Arg::Value(_))
                | (ParamKind::Slice { mutable: false }, Arg::Read(_) | Arg::Write(_))
                | (ParamKind::Slice { mutable: true } | ParamKind::Output { .. }, Arg::Write(_))
        );
        if !kind_ok {
            let hint = match p.kind {
                ParamKind::Scalar => "pass a Rust value of that type",
                ParamKind::Slice { mutable: false } => "pass `&array`",
                _ => "pass `&mut array`",
            };
            return Err(Error::value(
                kernel,
                format!("parameter {} was given {}: {hint}", describe(p, generics), a.what()),
            ));
        }
        if a.dtype() != want {
            return Err(Error::DType {
                op: kernel.to_string(),
                reason: format!(
                    "parameter {} takes {want}; {} was given (kernels written in Rust convert nothing: cast with \
                     `astype` or pass a value of the parameter's type)",
                    describe(p, generics),
                    a.what()
                ),
            });
        }
        if let Some(x) = a.array() {
            if !x.is_contiguous() {
                return Err(Error::value(
                    kernel,
                    format!(
                        "parameter {} was given a view with strides {:?} (elements), not a C-contiguous array: pass \
                         `a.ascontiguous()?`",
                        describe(p, generics),
                        x.strides()
                    ),
                ));
            }
        }
    }
    Ok(bound.into_iter().map(|b| b.expect("bound")).collect())
}

// ---- arguments ----------------------------------------------------------------------------

/// One argument of a kernel written in Rust.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// A scalar (a [`LaunchArg`] of a scalar variant).
    Value(LaunchArg<'a>),
    /// `&array`: read.
    Read(&'a Array),
    /// `&mut array`: written (or read).
    Write(&'a Array),
}

impl<'a> Arg<'a> {
    fn array(&self) -> Option<&'a Array> {
        match *self {
            Arg::Read(a) | Arg::Write(a) => Some(a),
            Arg::Value(_) => None,
        }
    }

    fn dtype(&self) -> DType {
        match self {
            Arg::Read(a) | Arg::Write(a) => a.dtype(),
            Arg::Value(v) => match v {
                LaunchArg::Bool(_) => DType::Bool,
                LaunchArg::I8(_) => DType::I8,
                LaunchArg::I16(_) => DType::I16,
                LaunchArg::I32(_) => DType::I32,
                LaunchArg::I64(_) => DType::I64,
                LaunchArg::U8(_) => DType::U8,
                LaunchArg::U16(_) => DType::U16,
                LaunchArg::U32(_) => DType::U32,
                LaunchArg::U64(_) => DType::U64,
                LaunchArg::F32(_) => DType::F32,
                LaunchArg::F64(_) => DType::F64,
                LaunchArg::Array(a) | LaunchArg::View(a) => a.dtype(),
            },
        }
    }

    fn what(&self) -> String {
        match self {
            Arg::Read(a) => format!("`&` an array of {}", a.dtype()),
            Arg::Write(a) => format!("`&mut` an array of {}", a.dtype()),
            Arg::Value(_) => format!("a scalar {}", rust_name(self.dtype())),
        }
    }

    fn operand(&self) -> Operand<'a> {
        match *self {
            Arg::Read(a) | Arg::Write(a) => Operand::Array(a),
            Arg::Value(v) => Operand::Scalar(match v {
                LaunchArg::Bool(b) => Scalar::Bool(b),
                LaunchArg::I8(x) => Scalar::Int(x as i128),
                LaunchArg::I16(x) => Scalar::Int(x as i128),
                LaunchArg::I32(x) => Scalar::Int(x as i128),
                LaunchArg::I64(x) => Scalar::Int(x as i128),
                LaunchArg::U8(x) => Scalar::Int(x as i128),
                LaunchArg::U16(x) => Scalar::Int(x as i128),
                LaunchArg::U32(x) => Scalar::Int(x as i128),
                LaunchArg::U64(x) => Scalar::Int(x as i128),
                LaunchArg::F32(x) => Scalar::Float(x as f64),
                LaunchArg::F64(x) => Scalar::Float(x),
                LaunchArg::Array(_) | LaunchArg::View(_) => Scalar::Int(0),
            }),
        }
    }
}

/// A value that can be an [`Arg`]: Rust scalars, `&Array`, `&mut Array`.
pub trait IntoArg<'a> {
    /// The argument.
    fn into_arg(self) -> Arg<'a>;
}

impl<'a> IntoArg<'a> for &'a Array {
    fn into_arg(self) -> Arg<'a> {
        Arg::Read(self)
    }
}

impl<'a> IntoArg<'a> for &'a mut Array {
    fn into_arg(self) -> Arg<'a> {
        Arg::Write(self)
    }
}

impl<'a> IntoArg<'a> for Arg<'a> {
    fn into_arg(self) -> Arg<'a> {
        self
    }
}

macro_rules! scalar_into_arg {
    ($($t:ty => $v:ident as $w:ty),*) => {
        $(impl<'a> IntoArg<'a> for $t { fn into_arg(self) -> Arg<'a> { Arg::Value(LaunchArg::$v(self as $w)) } })*
    };
}
scalar_into_arg!(bool => Bool as bool, i8 => I8 as i8, i16 => I16 as i16, i32 => I32 as i32, i64 => I64 as i64,
    isize => I64 as i64, u8 => U8 as u8, u16 => U16 as u16, u32 => U32 as u32, u64 => U64 as u64,
    usize => U64 as u64, f32 => F32 as f32, f64 => F64 as f64);

/// The arguments of a launch: a tuple of [`IntoArg`] values (`(2.0f32, &x, &mut out)`), or
/// a `Vec<Arg>`.
pub trait KernelArgs<'a> {
    /// The arguments, in order.
    fn into_args(self) -> Vec<Arg<'a>>;
}

impl<'a> KernelArgs<'a> for Vec<Arg<'a>> {
    fn into_args(self) -> Vec<Arg<'a>> {
        self
    }
}

impl<'a> KernelArgs<'a> for () {
    fn into_args(self) -> Vec<Arg<'a>> {
        Vec::new()
    }
}

macro_rules! tuple_args {
    ($($n:ident),+) => {
        impl<'a, $($n: IntoArg<'a>),+> KernelArgs<'a> for ($($n,)+) {
            #[allow(non_snake_case)]
            fn into_args(self) -> Vec<Arg<'a>> {
                let ($($n,)+) = self;
                vec![$($n.into_arg()),+]
            }
        }
    };
}
tuple_args!(A);
tuple_args!(A, B);
tuple_args!(A, B, C);
tuple_args!(A, B, C, D);
tuple_args!(A, B, C, D, E);
tuple_args!(A, B, C, D, E, F);
tuple_args!(A, B, C, D, E, F, G);
tuple_args!(A, B, C, D, E, F, G, H);
tuple_args!(A, B, C, D, E, F, G, H, I);
tuple_args!(A, B, C, D, E, F, G, H, I, J);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

// ---- elementwise ----------------------------------------------------------------------------

/// What `#[xp::kernel]` writes: ElementwiseKernel's parameter strings and operation.
#[derive(Debug)]
pub struct ElementwiseDef {
    /// The Rust name.
    pub name: &'static str,
    /// The inputs, as ElementwiseKernel's parameter string.
    pub in_params: &'static str,
    /// The outputs, likewise.
    pub out_params: &'static str,
    /// The translated body.
    pub operation: &'static str,
    /// The parameters in the function's order.
    pub params: &'static [ParamDesc],
    /// The device functions it calls.
    pub devices: &'static [&'static DeviceFn],
    /// The constants of its scope it reads.
    pub consts: fn() -> Vec<ConstArg>,
}

/// An elementwise kernel written in Rust with `#[xp::kernel]`, as CuPy's `@jit.kernel()`: an
/// [`ElementwiseKernel`] whose operation is the translated body. See the [module docs](self).
pub struct RustElementwiseKernel {
    def: ElementwiseDef,
    kernel: OnceLock<ElementwiseKernel>,
}

impl std::fmt::Debug for RustElementwiseKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RustElementwiseKernel").field("name", &self.def.name).finish()
    }
}

impl RustElementwiseKernel {
    /// The kernel of `def` (what the macro writes).
    pub const fn new(def: ElementwiseDef) -> RustElementwiseKernel {
        RustElementwiseKernel { def, kernel: OnceLock::new() }
    }

    /// The kernel's (Rust) name.
    pub fn name(&self) -> &'static str {
        self.def.name
    }

    /// ElementwiseKernel's input parameter string (`"T x, float32 alpha"`).
    pub fn in_params(&self) -> &'static str {
        self.def.in_params
    }

    /// ElementwiseKernel's output parameter string.
    pub fn out_params(&self) -> &'static str {
        self.def.out_params
    }

    /// The translated body: ElementwiseKernel's operation.
    pub fn operation(&self) -> &'static str {
        self.def.operation
    }

    /// The [`ElementwiseKernel`] this kernel runs as.
    pub fn elementwise(&self) -> Result<&ElementwiseKernel> {
        if let Some(k) = self.kernel.get() {
            return Ok(k);
        }
        let k = ElementwiseKernel::new(self.def.in_params, self.def.out_params, self.def.operation, self.def.name)?
            .with_preamble(&preamble("kernel", self.def.name, self.def.devices, self.def.consts));
        if dump_source()? {
            eprintln!(
                "// ---- XP_DUMP_SOURCE: {} ----\n// in: {}\n// out: {}\n{}",
                self.def.name, self.def.in_params, self.def.out_params, self.def.operation
            );
        }
        Ok(self.kernel.get_or_init(|| k))
    }

    fn operands<'a>(&self, args: &[Arg<'a>]) -> Result<Vec<Operand<'a>>> {
        let ins: Vec<&ParamDesc> = self.def.params.iter().filter(|p| p.kind == ParamKind::Scalar).collect();
        let outs: Vec<&ParamDesc> = self.def.params.iter().filter(|p| p.kind != ParamKind::Scalar).collect();
        let name = self.def.name;
        if args.len() != ins.len() && args.len() != ins.len() + outs.len() {
            let n = |v: &[&ParamDesc]| v.iter().map(|p| p.name).collect::<Vec<_>>().join(", ");
            return Err(Error::value(
                name,
                format!(
                    "takes {} input(s) ({}), optionally followed by {} output(s) ({}); {} argument(s) given",
                    ins.len(),
                    n(&ins),
                    outs.len(),
                    n(&outs),
                    args.len()
                ),
            ));
        }
        for (p, a) in ins.iter().zip(args) {
            if let (Arg::Value(_), ElemTy::Fixed(d)) = (a, p.elem) {
                if a.dtype() != d {
                    return Err(Error::DType {
                        op: name.to_string(),
                        reason: format!(
                            "parameter `{}: {}` was given {} (kernels written in Rust convert no scalar: pass a \
                             value of the parameter's type)",
                            p.name,
                            rust_name(d),
                            a.what()
                        ),
                    });
                }
            }
        }
        for (p, a) in outs.iter().zip(args.iter().skip(ins.len())) {
            if !matches!(a, Arg::Write(_)) {
                return Err(Error::value(
                    name,
                    format!("output `{}` was given {}: pass `&mut array`", p.name, a.what()),
                ));
            }
        }
        Ok(args.iter().map(Arg::operand).collect())
    }

    /// Run the kernel over the broadcast of its inputs and return its first output; the
    /// outputs may follow the inputs (`&mut y`), then they are written in place.
    pub fn call<'a>(&self, args: impl KernelArgs<'a>) -> Result<Array> {
        let args = args.into_args();
        let ops = self.operands(&args)?;
        self.elementwise()?.call(&ops)
    }

    /// As [`RustElementwiseKernel::call`], returning every output.
    pub fn call_all<'a>(&self, args: impl KernelArgs<'a>) -> Result<Vec<Array>> {
        let args = args.into_args();
        let ops = self.operands(&args)?;
        self.elementwise()?.call_all(&ops)
    }
}

/// `XP_DUMP_SOURCE`: whether the source of each kernel written in Rust is printed (to stderr)
/// when it is first built. A value that is not a switch is the error of that build.
fn dump_source() -> Result<bool> {
    static V: std::sync::OnceLock<Result<bool>> = std::sync::OnceLock::new();
    V.get_or_init(|| xp_backend_api::env::switch("XP_DUMP_SOURCE", false)).clone()
}
