//! [`RawKernel`] and [`RawModule`]: CUDA C++ source launched as written, with [`LaunchArg`]s.
//!
//! # Arguments are checked against the kernel's signature
//! Before a launch, the arguments are held against the parameters read from the source
//! ([`xp_kernels::signature`]) on every backend, so that a mistake is an error naming the
//! kernel and the parameter rather than an illegal address that kills a GPU context or a
//! garbage value:
//! - the count must match;
//! - an array goes to a pointer parameter, a scalar to a value parameter;
//! - a scalar is converted to the parameter's declared type, as a C call would convert it
//!   (`2.0` for `const float a` arrives as the float 2.0, not as the low half of a double);
//!   an integer that the type cannot hold, or a float for an integer parameter, is an error;
//! - an array must be C-contiguous: a view with other strides would hand the kernel the
//!   address of its first element, past which it reads memory that is not the view's.
//!   [`LaunchArg::View`] passes that address on purpose.
//!
//! A template kernel (or a list the scan cannot read) is checked by what the driver reports:
//! CUDA 12.4 and later give each parameter's size, which the launch also checks.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use xp_backend_api::{
    CompileOptions, Dim3, DynDevice, Error, Kernel, KernelArg, KernelSource, LaunchConfig, Module, Result, Stream,
};

use crate::exec::{current_stream, device_id};
use crate::ufunc::common_device;
use crate::Array;

/// An argument of a [`RawKernel`] launch: an array (a pointer to its first element) or a
/// typed scalar, passed as the C type of its Rust type (`f32` as `float`, `i32` as `int`…).
#[derive(Debug, Clone, Copy)]
pub enum LaunchArg<'a> {
    /// A C-contiguous array: the address of its first element.
    Array(&'a Array),
    /// Any array, strided views included: the address of its first element, which the kernel
    /// must index with the view's strides itself.
    View(&'a Array),
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
            LaunchArg::Array(_) | LaunchArg::View(_) => return None,
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

/// `a` as the scalar type of `kind` and `bytes`, as a C call converts an argument, or why it
/// cannot be.
fn convert_scalar<'a>(
    a: LaunchArg<'a>,
    kind: xp_kernels::signature::ScalarKind,
    bytes: usize,
) -> std::result::Result<LaunchArg<'a>, String> {
    use xp_kernels::signature::ScalarKind;
    let int = match a {
        LaunchArg::I8(v) => Some(v as i128),
        LaunchArg::I16(v) => Some(v as i128),
        LaunchArg::I32(v) => Some(v as i128),
        LaunchArg::I64(v) => Some(v as i128),
        LaunchArg::U8(v) => Some(v as i128),
        LaunchArg::U16(v) => Some(v as i128),
        LaunchArg::U32(v) => Some(v as i128),
        LaunchArg::U64(v) => Some(v as i128),
        _ => None,
    };
    let float = match a {
        LaunchArg::F32(v) => Some(v as f64),
        LaunchArg::F64(v) => Some(v),
        _ => int.map(|i| i as f64),
    };
    match (kind, bytes) {
        (ScalarKind::Bool, _) => match a {
            LaunchArg::Bool(_) => Ok(a),
            _ => Err(format!("a bool parameter takes a bool, not {a:?}")),
        },
        (ScalarKind::Float, 4) => Ok(LaunchArg::F32(float.ok_or_else(|| format!("{a:?} is not a number"))? as f32)),
        (ScalarKind::Float, 8) => Ok(LaunchArg::F64(float.ok_or_else(|| format!("{a:?} is not a number"))?)),
        (ScalarKind::Float, _) => match a {
            LaunchArg::U16(_) | LaunchArg::I16(_) => Ok(a),
            _ => Err(format!("pass a 16-bit float parameter its bits as a u16, not {a:?}")),
        },
        (ScalarKind::Signed | ScalarKind::Unsigned, _) => {
            let Some(v) = int else {
                return Err(format!("an integer parameter takes an integer, not {a:?}"));
            };
            let signed = kind == ScalarKind::Signed;
            let fits = |lo: i128, hi: i128| (lo..=hi).contains(&v);
            let out = match (signed, bytes) {
                (true, 1) if fits(i8::MIN as i128, i8::MAX as i128) => LaunchArg::I8(v as i8),
                (true, 2) if fits(i16::MIN as i128, i16::MAX as i128) => LaunchArg::I16(v as i16),
                (true, 4) if fits(i32::MIN as i128, i32::MAX as i128) => LaunchArg::I32(v as i32),
                (true, 8) if fits(i64::MIN as i128, i64::MAX as i128) => LaunchArg::I64(v as i64),
                (false, 1) if fits(0, u8::MAX as i128) => LaunchArg::U8(v as u8),
                (false, 2) if fits(0, u16::MAX as i128) => LaunchArg::U16(v as u16),
                (false, 4) if fits(0, u32::MAX as i128) => LaunchArg::U32(v as u32),
                (false, 8) if fits(0, u64::MAX as i128) => LaunchArg::U64(v as u64),
                _ => {
                    let t = format!("{}{}", if signed { "int" } else { "uint" }, bytes * 8);
                    return Err(format!("{v} does not fit the parameter's type ({t})"));
                }
            };
            Ok(out)
        }
    }
}

/// The source of a [`RawModule`], compiled once per device.
struct ModuleSource {
    code: String,
    options: CompileOptions,
    names: Vec<String>,
    compiled: Mutex<HashMap<usize, Arc<dyn Module>>>,
    params: Mutex<HashMap<String, Option<Arc<[xp_kernels::signature::Param]>>>>,
}

impl ModuleSource {
    /// The parameters of kernel `name`, read from the source once and shared by every launch.
    fn params(&self, name: &str) -> Option<Arc<[xp_kernels::signature::Param]>> {
        let mut cache = self.params.lock();
        if let Some(p) = cache.get(name) {
            return p.clone();
        }
        let p: Option<Arc<[_]>> = xp_kernels::signature::kernel_params(&self.code, name).map(Arc::from);
        cache.insert(name.to_string(), p.clone());
        p
    }

    fn module(&self, device: &Arc<dyn DynDevice>) -> Result<Arc<dyn Module>> {
        let id = device_id(device);
        if let Some(m) = self.compiled.lock().get(&id) {
            return Ok(Arc::clone(m));
        }
        let name = self.names.first().cloned().unwrap_or_else(|| "module".into());
        // The functions CUDA has built in and the host compiler lacks, ahead of the source;
        // `#line 1 "<source>"` makes the compiler's line numbers those of the user's source,
        // and a compile error quotes the user's lines (see `source_lines`).
        let math = super::cuda_math_for_cpu(&[&self.code]);
        let code = format!("{math}{}", super::source_lines::mark("source", &self.code));
        let m = device
            .compile(&KernelSource::new(&name, code), &self.options)
            .map_err(|e| super::source_lines::explain(e, &name, &[("source", &self.code)]))?;
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
                params: Mutex::new(HashMap::new()),
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
        Ok(RawKernel { source: Arc::clone(&self.source), name: name.to_string(), stack_bytes: 0 })
    }
}

/// One kernel from CUDA C++ source, as CuPy's `RawKernel`, launched with an explicit grid,
/// block, dynamic shared memory and stream. It runs on the CPU too, barriers and shared memory
/// included.
#[derive(Clone)]
pub struct RawKernel {
    source: Arc<ModuleSource>,
    name: String,
    /// Each thread's stack on backends that give threads stacks of their own (0: theirs).
    stack_bytes: u32,
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
        RawKernel { source: m.source, name: name.to_string(), stack_bytes: 0 }
    }

    /// As [`RawKernel::new`], with compile options (flags and the contraction setting).
    pub fn with_compile_options(code: &str, name: &str, options: CompileOptions) -> RawKernel {
        let source = ModuleSource {
            code: code.to_string(),
            options,
            names: xp_kernels::kernel_names(code),
            compiled: Mutex::new(HashMap::new()),
            params: Mutex::new(HashMap::new()),
        };
        RawKernel { source: Arc::new(source), name: name.to_string(), stack_bytes: 0 }
    }

    /// The same kernel with `bytes` of stack for each thread where the backend runs threads on
    /// stacks of its own: the CPU backend's fibers, which run kernels that call
    /// `__syncthreads()` (128 KiB each unless set; 16 KiB at least). A kernel with large local
    /// arrays needs more; a thread that overflows its stack meets a guard page, and the launch
    /// fails with `CPU_FIBER_FAULT` (on x86-64 Linux; elsewhere the process ends). GPU backends keep the
    /// driver's per-thread stack (CUDA's `cudaLimitStackSize`) and ignore this.
    pub fn with_stack_size(mut self, bytes: usize) -> Result<RawKernel> {
        self.stack_bytes = u32::try_from(bytes).map_err(|_| {
            Error::value(&self.name, format!("a stack of {bytes} bytes is more than the 4 GiB a launch can ask for"))
        })?;
        Ok(self)
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The compiled kernel on `device`.
    pub fn kernel(&self, device: &Arc<dyn DynDevice>) -> Result<Arc<dyn Kernel>> {
        self.source.module(device)?.function(&self.name)
    }

    /// `args` checked against the parameters read from the source (module docs), scalars
    /// converted to their parameters' types.
    fn check_args<'a>(&self, args: &[LaunchArg<'a>]) -> Result<Vec<LaunchArg<'a>>> {
        use xp_kernels::signature::Param;
        let err = |reason: String| Error::value(&self.name, reason);
        for (i, a) in args.iter().enumerate() {
            if let LaunchArg::Array(x) = a {
                if !x.is_contiguous() {
                    return Err(err(format!(
                        "argument {i} is a view with strides {:?} (elements), not a C-contiguous array: pass \
                         `a.ascontiguous()?`, or `LaunchArg::View(&a)` to pass its first element's address",
                        x.strides()
                    )));
                }
            }
        }
        let Some(params) = self.source.params(&self.name) else { return Ok(args.to_vec()) };
        if params.len() != args.len() {
            return Err(err(format!(
                "the kernel takes {} parameters; {} arguments were given",
                params.len(),
                args.len()
            )));
        }
        params
            .iter()
            .zip(args)
            .enumerate()
            .map(|(i, (p, a))| match (p, a) {
                (Param::Pointer { .. }, LaunchArg::Array(_) | LaunchArg::View(_)) => Ok(*a),
                (Param::Pointer { text }, _) => {
                    Err(err(format!("parameter {i} (`{text}`) is a pointer; a scalar ({a:?}) was given")))
                }
                (_, LaunchArg::Array(_) | LaunchArg::View(_)) => {
                    Err(err(format!("parameter {i} (`{}`) is a value; an array was given", p.text())))
                }
                (Param::Other { .. }, _) => Ok(*a),
                (Param::Scalar { text, kind, bytes }, _) => {
                    convert_scalar(*a, *kind, *bytes).map_err(|why| err(format!("parameter {i} (`{text}`): {why}")))
                }
            })
            .collect()
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
                LaunchArg::Array(a) | LaunchArg::View(a) => Some(*a),
                _ => None,
            })
            .collect();
        let checked = self.check_args(args)?;
        let args = checked.as_slice();
        let device = common_device(&self.name, &arrays)?;
        let f = self.kernel(&device)?;
        if let Some(n) = f.num_params() {
            if n != args.len() {
                return Err(Error::value(&self.name, format!("the kernel takes {n} arguments, {} given", args.len())));
            }
        }
        let values: Vec<Option<Vec<u8>>> = args.iter().map(|a| a.value_bytes()).collect();
        // A raw kernel may write any array it is given.
        let kargs: Vec<KernelArg<'_>> = args
            .iter()
            .zip(&values)
            .map(|(a, v)| match a {
                LaunchArg::Array(a) | LaunchArg::View(a) => a.kernel_arg_mut(),
                _ => Ok(KernelArg::Value(v.as_deref().expect("scalars have bytes"))),
            })
            .collect::<Result<_>>()?;
        let config = LaunchConfig::new(grid, block).with_shared_mem(shared_mem_bytes).with_stack(self.stack_bytes);
        let stream = match stream {
            Some(s) => Arc::clone(s),
            None => current_stream(&device),
        };
        stream.launch(&*f, &config, &kargs)
    }
}
