//! Compiling with NVRTC straight to cubin, and loading cubins as modules.
//!
//! The source NVRTC sees is `xp_kernels::PRELUDE`, then `#line 1`, then the user's code, so
//! the line numbers of the compiler's log are those of the user's code. Options: `-arch=sm_XX`
//! (the device's own, unless the flags name an arch), `-std=c++17` (unless the flags name a
//! standard), then the flags as given; `--use_fast_math` is never added. A cubin for the
//! device's exact arch loads in a fraction of a millisecond, where PTX would make the driver
//! compile again at load.
//!
//! NVRTC first runs with `-minimal`, which leaves out the runtime headers (textures,
//! device-side runtime calls, the driver's types) that no generated kernel uses and that cost
//! more than half the compile time of a small kernel, and with `-pch`, which keeps the parsed
//! prelude (passed as the header `xp_prelude.h`) between the compiles of one process. A source
//! that does not compile that way (a raw kernel using textures, say) is compiled again with the
//! plain options, and a failure is reported with the log of that compile.
//!
//! xp's elementwise kernels ask for [`CompileOptions::fast_compile`], which that first try
//! turns into `-Ofc=min`: NVVM and ptxas skip their costliest passes, which cuts the compile of
//! a small elementwise kernel by about a third (47 to 34 ms on a 2-core x86-64), while those
//! short, memory-bound loops run as fast. The plain retry leaves it out, so an NVRTC without
//! the option still compiles.

use std::any::Any;
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CString};
use std::path::Path;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUresult};
use parking_lot::Mutex;
use xp_backend_api::compile::compiler_identity;
use xp_backend_api::gpu::{log_text, GpuKernel};
use xp_backend_api::{CompileOptions, Error, Kernel, KernelCompiler, KernelSource, MemoryPool, Module, Result};

use crate::context::Context;
use crate::library::{self, Nvrtc};

/// `NVRTC_ERROR_INVALID_OPTION`.
const NVRTC_ERROR_INVALID_OPTION: c_int = 5;
/// `NVRTC_ERROR_COMPILATION`.
const NVRTC_ERROR_COMPILATION: c_int = 6;
/// Shared memory (static and dynamic) a kernel may use without raising its own limit.
const DEFAULT_DYNAMIC_SHARED: u32 = 48 << 10;

/// The version of the NVRTC library found, as `(major, minor)`; needs no driver and no GPU.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    Ok(library::nvrtc()?.version)
}

/// Where the NVRTC library in use was found.
pub fn nvrtc_path() -> Result<String> {
    Ok(library::nvrtc()?.path.clone())
}

/// Compile `source` (the kernel dialect, without the prelude) for `arch` (`sm_90`) to a cubin.
///
/// Needs only NVRTC: no driver and no GPU, so it checks on any machine that kernels compile
/// for an NVIDIA target. A missing NVRTC is [`Error::BackendUnavailable`]; a compile error is
/// [`Error::Compile`] with NVRTC's log.
pub fn compile_for_arch(source: &KernelSource, options: &CompileOptions, arch: &str) -> Result<Vec<u8>> {
    compile_cubin(library::nvrtc()?, source, options, arch)
}

fn valid_arch(arch: &str) -> bool {
    arch.strip_prefix("sm_").is_some_and(|rest| {
        let digits = rest.trim_end_matches(['a', 'f']);
        !digits.is_empty() && digits.len() + 1 >= rest.len() && digits.bytes().all(|b| b.is_ascii_digit())
    })
}

/// The options NVRTC runs with for `arch` and the user's `options`.
fn nvrtc_options(options: &CompileOptions, arch: &str) -> Vec<String> {
    let names_arch = options
        .flags
        .iter()
        .any(|f| f.starts_with("-arch") || f.starts_with("--gpu-architecture") || f.starts_with("--gpu-name"));
    let names_std = options.flags.iter().any(|f| f.starts_with("-std") || f.starts_with("--std"));
    let mut out = Vec::new();
    if !names_arch {
        out.push(format!("-arch={arch}"));
    }
    if !names_std {
        out.push("-std=c++17".to_string());
    }
    if options.no_contraction && !options.flags.iter().any(|f| f.starts_with("-fmad") || f.starts_with("--fmad")) {
        out.push("-fmad=false".to_string());
    }
    out.extend(options.flags.iter().cloned());
    out
}

/// What the first try adds to [`nvrtc_options`]: `-minimal -pch`, and `-Ofc=min` for
/// [`CompileOptions::fast_compile`] unless the flags pick a level. Nothing when the flags
/// already name `-minimal` or `-pch` (the caller then means exactly its flags).
fn quick_options(options: &CompileOptions) -> Option<Vec<String>> {
    let f = &options.flags;
    if f.iter().any(|o| o == "-minimal" || o == "--minimal" || o == "-pch" || o == "--pch") {
        return None;
    }
    let mut out = vec!["-minimal".to_string(), "-pch".to_string()];
    if options.fast_compile && !f.iter().any(|o| o.starts_with("-Ofc") || o.starts_with("--Ofast-compile")) {
        out.push("-Ofc=min".to_string());
    }
    Some(out)
}

/// An nvrtcProgram, destroyed when dropped (on every path).
struct Program<'a> {
    nvrtc: &'a Nvrtc,
    raw: *mut c_void,
}

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` came from nvrtcCreateProgram and is destroyed once, here. The status is
        // ignored: it can only report an invalid handle, which this type rules out.
        unsafe { (self.nvrtc.destroy_program)(&mut self.raw) };
    }
}

impl Program<'_> {
    fn log(&self) -> String {
        let mut size = 0usize;
        // SAFETY: `raw` is a live program; `size` is a valid out-pointer.
        if unsafe { (self.nvrtc.get_program_log_size)(self.raw, &mut size) } != 0 || size == 0 {
            return String::new();
        }
        let mut buf = vec![0u8; size];
        // SAFETY: `buf` has the `size` bytes NVRTC said the log needs (with its NUL).
        if unsafe { (self.nvrtc.get_program_log)(self.raw, buf.as_mut_ptr().cast()) } != 0 {
            return String::new();
        }
        log_text(&buf)
    }
}

fn nul_free(what: &str, text: String) -> Result<CString> {
    CString::new(text).map_err(|_| Error::value("compile", format!("the {what} contains a NUL byte")))
}

pub(crate) fn compile_cubin(
    nvrtc: &Nvrtc,
    source: &KernelSource,
    options: &CompileOptions,
    arch: &str,
) -> Result<Vec<u8>> {
    if !valid_arch(arch) {
        return Err(Error::value("compile", format!("`{arch}` is not an NVIDIA GPU arch such as sm_90")));
    }
    let opts = nvrtc_options(options, arch);
    if let Some(extra) = quick_options(options) {
        let mut fast = opts.clone();
        fast.extend(extra);
        if let Ok(cubin) = compile_cubin_with(nvrtc, source, fast, arch) {
            return Ok(cubin);
        }
    }
    compile_cubin_with(nvrtc, source, opts, arch)
}

/// [`compile_cubin`] with NVRTC's options given in full.
fn compile_cubin_with(nvrtc: &Nvrtc, source: &KernelSource, opts: Vec<String>, arch: &str) -> Result<Vec<u8>> {
    let opts_line = opts.join(" ");
    // The prelude is a header (so that `-pch` can keep it parsed between compiles); the user's
    // code starts at line 1.
    let code = nul_free("kernel source", format!("#include \"xp_prelude.h\"\n#line 1\n{}", source.code))?;
    let header = nul_free("prelude", xp_kernels::PRELUDE.to_string())?;
    let header_name = nul_free("prelude name", "xp_prelude.h".to_string())?;
    let headers = [header.as_ptr()];
    let header_names = [header_name.as_ptr()];
    let name = nul_free("kernel name", format!("{}.cu", source.name))?;
    let c_opts = opts.iter().map(|o| nul_free("compile options", o.clone())).collect::<Result<Vec<_>>>()?;
    let opt_ptrs: Vec<*const std::ffi::c_char> = c_opts.iter().map(|o| o.as_ptr()).collect();
    let driver_err = |api: &str, code: c_int, detail: String| Error::Driver {
        api: api.to_string(),
        code: code as i64,
        name: nvrtc.error_string(code),
        detail,
    };

    let mut raw: *mut c_void = std::ptr::null_mut();
    // SAFETY: `code`, `name`, the header and its name are NUL-terminated strings that outlive
    // the call (one header: arrays of one pointer each); `raw` is a valid out-pointer.
    let r = unsafe {
        (nvrtc.create_program)(&mut raw, code.as_ptr(), name.as_ptr(), 1, headers.as_ptr(), header_names.as_ptr())
    };
    if r != 0 {
        return Err(driver_err("nvrtcCreateProgram", r, format!("kernel `{}`", source.name)));
    }
    let program = Program { nvrtc, raw };
    // SAFETY: `program.raw` is live; `opt_ptrs` holds `opts.len()` NUL-terminated strings owned
    // by `c_opts`, which outlives the call.
    let r = unsafe { (nvrtc.compile_program)(program.raw, opt_ptrs.len() as c_int, opt_ptrs.as_ptr()) };
    if r != 0 {
        let log = program.log();
        return Err(match r {
            NVRTC_ERROR_COMPILATION | NVRTC_ERROR_INVALID_OPTION => Error::Compile {
                kernel: source.name.clone(),
                log: if log.is_empty() { nvrtc.error_string(r) } else { log },
                options: opts_line,
            },
            _ => driver_err("nvrtcCompileProgram", r, log),
        });
    }
    let mut size = 0usize;
    // SAFETY: the program compiled; `size` is a valid out-pointer.
    let r = unsafe { (nvrtc.get_cubin_size)(program.raw, &mut size) };
    if r != 0 {
        return Err(driver_err("nvrtcGetCUBINSize", r, String::new()));
    }
    if size == 0 {
        return Err(Error::value("compile", format!("no cubin for `{arch}`: name a real GPU arch (sm_XX)")));
    }
    let mut cubin = vec![0u8; size];
    // SAFETY: `cubin` has the `size` bytes NVRTC reported.
    let r = unsafe { (nvrtc.get_cubin)(program.raw, cubin.as_mut_ptr().cast()) };
    if r != 0 {
        return Err(driver_err("nvrtcGetCUBIN", r, String::new()));
    }
    Ok(cubin)
}

/// The compiler of one device: NVRTC for the device's arch, loading into its context.
pub(crate) struct CudaCompiler {
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
}

impl CudaCompiler {
    pub(crate) fn new(ctx: Arc<Context>, pool: Arc<MemoryPool>) -> Self {
        CudaCompiler { ctx, pool }
    }
}

impl KernelCompiler for CudaCompiler {
    type Module = CudaModule;

    fn identity(&self) -> String {
        let version = match library::nvrtc() {
            Ok(n) => format!("{}.{}", n.version.0, n.version.1),
            Err(_) => "missing".to_string(),
        };
        compiler_identity(&format!("nvrtc {version} cubin {}", self.ctx.props.arch), xp_kernels::PRELUDE)
    }

    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Vec<u8>> {
        compile_cubin(library::nvrtc()?, source, options, &self.ctx.props.arch)
    }

    fn load(&self, image: &[u8], _path: Option<&Path>) -> Result<Arc<CudaModule>> {
        if image.len() < 4 || &image[..4] != b"\x7fELF" {
            return Err(Error::value("load module", "the image is not a cubin (ELF)"));
        }
        self.ctx.enter("cuModuleLoadData")?;
        let mut raw: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: the context is current; `image` is a whole cubin (an ELF image produced by
        // nvrtcGetCUBIN, or read back from the cache whose checksum covers every byte), which the
        // driver reads during the call only.
        let r = unsafe { sys::cuModuleLoadData(&mut raw, image.as_ptr().cast()) };
        self.ctx.check("cuModuleLoadData", r)?;
        Ok(Arc::new(CudaModule {
            handle: Arc::new(ModuleHandle { raw, ctx: Arc::clone(&self.ctx), pool: Arc::clone(&self.pool) }),
            kernels: Mutex::new(HashMap::new()),
        }))
    }
}

/// A loaded CUmodule, unloaded when the module and all its kernels are gone.
struct ModuleHandle {
    raw: sys::CUmodule,
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
}

// SAFETY: a CUmodule is a driver handle usable from any thread once its context is current,
// which every use arranges (`Context::enter`); the driver API is thread-safe.
unsafe impl Send for ModuleHandle {}
// SAFETY: as for `Send`; no Rust-side mutable state.
unsafe impl Sync for ModuleHandle {}

impl Drop for ModuleHandle {
    fn drop(&mut self) {
        if self.ctx.is_corrupted() {
            return;
        }
        let r = self.ctx.enter("cuModuleUnload").and_then(|_| {
            // SAFETY: the context is current; the module is unloaded once, here, after every
            // kernel handle of it (which hold this handle) is gone.
            self.ctx.check("cuModuleUnload", unsafe { sys::cuModuleUnload(self.raw) })
        });
        self.pool.defer(r);
    }
}

/// A compiled, loaded CUDA module; kernels are looked up once and cached by name.
pub struct CudaModule {
    handle: Arc<ModuleHandle>,
    kernels: Mutex<HashMap<String, Arc<CudaKernel>>>,
}

impl CudaModule {
    /// The kernel called `name`, with its concrete type.
    pub fn kernel(&self, name: &str) -> Result<Arc<CudaKernel>> {
        if let Some(k) = self.kernels.lock().get(name) {
            return Ok(Arc::clone(k));
        }
        let c_name = CString::new(name)
            .map_err(|_| Error::value("get_function", format!("kernel name {name:?} contains a NUL byte")))?;
        let ctx = &self.handle.ctx;
        ctx.enter("cuModuleGetFunction")?;
        let mut func: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: the context is current; the module is loaded; `c_name` is NUL-terminated.
        let r = unsafe { sys::cuModuleGetFunction(&mut func, self.handle.raw, c_name.as_ptr()) };
        if r == CUresult::CUDA_ERROR_NOT_FOUND {
            return Err(Error::value(
                "get_function",
                format!("no kernel `{name}` in the module (is it declared extern \"C\" __global__?)"),
            ));
        }
        ctx.check("cuModuleGetFunction", r)?;
        let params = param_sizes(ctx, func);
        // Without an opt-in, static and dynamic shared memory share the default 48 KB.
        let mut static_shared: c_int = 0;
        let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
        // SAFETY: the context is current (caller); `func` was just loaded.
        let r = unsafe { sys::cuFuncGetAttribute(&mut static_shared, attr, func) };
        let static_shared = if r == CUresult::CUDA_SUCCESS { static_shared.max(0) as u32 } else { 0 };
        let k = Arc::new(CudaKernel {
            name: name.to_string(),
            func,
            params,
            shared_limit: Mutex::new(DEFAULT_DYNAMIC_SHARED.saturating_sub(static_shared)),
            module: Arc::clone(&self.handle),
        });
        self.kernels.lock().insert(name.to_string(), Arc::clone(&k));
        Ok(k)
    }
}

impl Module for CudaModule {
    fn function(&self, name: &str) -> Result<Arc<dyn Kernel>> {
        Ok(self.kernel(name)?)
    }
}

/// The byte size of each parameter of `func`, where the driver can tell (CUDA 12.4 and newer).
fn param_sizes(ctx: &Context, func: sys::CUfunction) -> Option<Vec<usize>> {
    if !library::driver_has("cuFuncGetParamInfo") {
        return None;
    }
    let mut sizes = Vec::new();
    loop {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: the context is current (the caller entered it); `func` is live; the driver
        // exports the function (checked above); both are valid out-pointers. An index past the
        // last parameter returns CUDA_ERROR_INVALID_VALUE, which ends the loop.
        let r = unsafe { sys::cuFuncGetParamInfo(func, sizes.len(), &mut offset, &mut size) };
        match r {
            CUresult::CUDA_SUCCESS => sizes.push(size),
            CUresult::CUDA_ERROR_INVALID_VALUE => return Some(sizes),
            _ => {
                let _ = ctx.check("cuFuncGetParamInfo", r);
                return None;
            }
        }
    }
}

/// One kernel (`CUfunction`) of a [`CudaModule`].
pub struct CudaKernel {
    name: String,
    func: sys::CUfunction,
    params: Option<Vec<usize>>,
    /// The dynamic shared memory the kernel is allowed so far (at first 48 KB less its static
    /// shared memory).
    shared_limit: Mutex<u32>,
    module: Arc<ModuleHandle>,
}

// SAFETY: a CUfunction is a driver handle usable from any thread once its context is current,
// which every use arranges; the module it belongs to is kept loaded by `module`.
unsafe impl Send for CudaKernel {}
// SAFETY: as for `Send`; the only mutable state (`shared_limit`) sits behind a lock.
unsafe impl Sync for CudaKernel {}

impl CudaKernel {
    /// The raw handle, for calling other CUDA APIs.
    pub fn cu_function(&self) -> sys::CUfunction {
        self.func
    }

    /// Raise the kernel's dynamic shared memory limit to `bytes` when it is above the default.
    /// The context must be current.
    pub(crate) fn allow_shared_mem(&self, bytes: u32) -> Result<()> {
        let mut limit = self.shared_limit.lock();
        if bytes <= *limit {
            return Ok(());
        }
        let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        // SAFETY: the context is current (caller); `func` is live.
        let r = unsafe { sys::cuFuncSetAttribute(self.func, attr, bytes as c_int) };
        if r == CUresult::CUDA_ERROR_INVALID_VALUE {
            return Err(Error::Launch {
                kernel: self.name.clone(),
                reason: format!(
                    "{bytes} bytes of dynamic shared memory plus the kernel's static shared memory pass the \
                     device's limit of {} bytes",
                    self.module.ctx.props.max_shared_memory_per_block
                ),
            });
        }
        self.module.ctx.check("cuFuncSetAttribute", r)?;
        *limit = bytes;
        Ok(())
    }
}

impl GpuKernel for CudaKernel {
    /// The ordinal of the device the kernel was loaded on.
    fn device_ordinal(&self) -> usize {
        self.module.ctx.ordinal
    }

    /// The byte size of each parameter, where the driver reports them (CUDA 12.4 and newer).
    fn param_sizes(&self) -> Option<&[usize]> {
        self.params.as_deref()
    }
}

impl Kernel for CudaKernel {
    fn name(&self) -> &str {
        &self.name
    }
    fn num_params(&self) -> Option<usize> {
        self.params.as_ref().map(Vec::len)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_names_are_checked() {
        for ok in ["sm_90", "sm_80", "sm_90a", "sm_100", "sm_100f", "sm_75"] {
            assert!(valid_arch(ok), "{ok}");
        }
        for bad in ["gfx90a", "sm_", "compute_90", "sm_9x", "sm_90ab", "90"] {
            assert!(!valid_arch(bad), "{bad}");
        }
    }

    #[test]
    fn own_arch_and_standard_are_added_unless_the_flags_name_them() {
        let o = nvrtc_options(&CompileOptions::new(["-DTILE=16"]), "sm_90");
        assert_eq!(o, ["-arch=sm_90", "-std=c++17", "-DTILE=16"]);
        let o = nvrtc_options(&CompileOptions::new(["--gpu-architecture=sm_80", "-std=c++20"]), "sm_90");
        assert_eq!(o, ["--gpu-architecture=sm_80", "-std=c++20"]);
        assert!(!o.iter().any(|f| f.contains("fast_math")));
    }

    #[test]
    fn fast_compile_adds_the_quick_level_to_the_first_try_only() {
        let plain = CompileOptions::new(["-DTILE=16"]);
        assert_eq!(quick_options(&plain).unwrap(), ["-minimal", "-pch"]);
        let fast = plain.clone().with_fast_compile(true);
        assert_eq!(quick_options(&fast).unwrap(), ["-minimal", "-pch", "-Ofc=min"]);
        assert_eq!(nvrtc_options(&fast, "sm_90"), nvrtc_options(&plain, "sm_90"));
        let chosen = CompileOptions::new(["-Ofc=max"]).with_fast_compile(true);
        assert_eq!(quick_options(&chosen).unwrap(), ["-minimal", "-pch"]);
        assert!(quick_options(&CompileOptions::new(["-minimal"]).with_fast_compile(true)).is_none());
    }

    #[test]
    fn no_contraction_turns_fmad_off_unless_the_flags_choose() {
        let exact = CompileOptions::new(["-DTILE=16"]).with_no_contraction(true);
        assert_eq!(nvrtc_options(&exact, "sm_90"), ["-arch=sm_90", "-std=c++17", "-fmad=false", "-DTILE=16"]);
        let chosen = CompileOptions::new(["-fmad=true"]).with_no_contraction(true);
        assert_eq!(nvrtc_options(&chosen, "sm_90"), ["-arch=sm_90", "-std=c++17", "-fmad=true"]);
    }
}
