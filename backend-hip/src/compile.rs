//! Run-time compilation with hiprtc, and loaded modules and kernels.
//!
//! A source is compiled as `xp_kernels::PRELUDE`, a newline, `#line 1 "<name>.hip"`, then the
//! user's code, so the compiler's diagnostics name the kernel's file and its own line numbers. The options are
//! `--offload-arch=<arch> -std=c++17 -O3` followed by the caller's flags, with the portable
//! spellings translated: `--std=X` becomes `-std=X` (and replaces the default), and
//! `--use_fast_math`/`-use_fast_math` become `-ffast-math`. The result is an AMD GPU code object,
//! which [`HipCompiler`] loads with `hipModuleLoadData`.
//!
//! hiprtc needs no GPU, only the library: [`compile_for_arch`] works on any machine where
//! hiprtc loads, for checks of the kernel sources. Compiles are serialised process-wide,
//! because older hiprtc releases are not safe to call from several threads at once.

use std::any::Any;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use xp_backend_api::compile::compiler_identity as identity_with_prelude;
use xp_backend_api::gpu::GpuKernel;
use xp_backend_api::{CompileOptions, Error, Kernel, KernelCompiler, KernelSource, MemoryPool, Module, Result};

use crate::result;
use crate::safe::{ModuleHandle, Program};
use crate::sys::{self, hipFunction_t};

/// The hiprtc options for compiling `options` for `arch` (e.g. `gfx90a`).
pub fn hiprtc_options(arch: &str, options: &CompileOptions) -> Vec<String> {
    let user_std = options.flags.iter().any(|f| f.starts_with("-std=") || f.starts_with("--std="));
    let mut out = vec![format!("--offload-arch={arch}")];
    if !user_std {
        out.push("-std=c++17".into());
    }
    out.push("-O3".into());
    if options.no_contraction && !options.flags.iter().any(|f| f.starts_with("-ffp-contract")) {
        out.push("-ffp-contract=off".into());
    }
    for f in &options.flags {
        out.push(match f.as_str() {
            "--use_fast_math" | "-use_fast_math" => "-ffast-math".into(),
            _ => match f.strip_prefix("--std=") {
                Some(v) => format!("-std={v}"),
                None => f.clone(),
            },
        });
    }
    out
}

/// The file name diagnostics give for `source`: its name with `.hip` appended.
pub fn source_file_name(source: &KernelSource) -> String {
    format!("{}.hip", source.name)
}

/// The text hiprtc compiles for `source`: the prelude, then `#line 1 "<name>.hip"` and the
/// user's code, so that diagnostics point at the user's file and line.
pub fn full_source(source: &KernelSource) -> String {
    let file: String = source_file_name(source)
        .chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            '\n' | '\r' => vec![' '],
            c => vec![c],
        })
        .collect();
    format!("{}\n#line 1 \"{file}\"\n{}", xp_kernels::PRELUDE, source.code)
}

static COMPILE_LOCK: Mutex<()> = Mutex::new(());

/// Compile `source` with hiprtc for the AMD GPU architecture `arch` (e.g. `gfx90a`, without
/// feature suffixes) and return the code object. Needs hiprtc but no GPU.
///
/// A source that does not compile is [`Error::Compile`] with the kernel's name, hiprtc's full
/// log and the options used; a missing hiprtc is [`Error::BackendUnavailable`].
pub fn compile_for_arch(source: &KernelSource, options: &CompileOptions, arch: &str) -> Result<Vec<u8>> {
    let opts = hiprtc_options(arch, options);
    let _serial = COMPILE_LOCK.lock();
    let mut program = Program::new(&full_source(source), &source_file_name(source))?;
    let code = program.compile(&opts)?;
    if code == sys::HIPRTC_ERROR_COMPILATION {
        return Err(Error::Compile { kernel: source.name.clone(), log: program.log()?, options: opts.join(" ") });
    }
    if code != sys::HIPRTC_SUCCESS {
        let log = program.log().unwrap_or_default();
        return Err(Error::Driver {
            api: "hiprtcCompileProgram".into(),
            code: code as i64,
            name: result::rtc_error_name(code),
            detail: format!("compiling `{}` with {}: {log}", source.name, opts.join(" ")),
        });
    }
    let image = program.code()?;
    if image.is_empty() {
        return Err(Error::Driver {
            api: "hiprtcGetCode".into(),
            code: 0,
            name: "HIPRTC_SUCCESS".into(),
            detail: format!("hiprtc produced an empty code object for `{}` ({})", source.name, opts.join(" ")),
        });
    }
    Ok(image)
}

/// The compiler's identity for the compile cache: hiprtc and runtime versions, the target
/// architecture and a hash of the prelude.
pub fn compiler_identity(arch: &str) -> Result<String> {
    let (major, minor) = result::rtc_version()?;
    let runtime = result::runtime_version().unwrap_or(0);
    Ok(identity_with_prelude(&format!("hiprtc {major}.{minor} hip-runtime {runtime} {arch}"), xp_kernels::PRELUDE))
}

/// The [`KernelCompiler`] of one HIP device: hiprtc for its architecture, loading with
/// `hipModuleLoadData` on it.
pub struct HipCompiler {
    ordinal: usize,
    arch: String,
    identity: String,
    sink: Weak<MemoryPool>,
}

impl HipCompiler {
    /// A compiler for device `ordinal` of architecture `arch`; errors of modules dropped
    /// later go to `sink`.
    ///
    /// A missing hiprtc does not stop the device from opening: compiling then fails with
    /// [`Error::BackendUnavailable`].
    pub fn new(ordinal: usize, arch: &str, sink: Weak<MemoryPool>) -> Self {
        let identity = compiler_identity(arch).unwrap_or_else(|e| format!("hiprtc unavailable ({e}) {arch}"));
        HipCompiler { ordinal, arch: arch.to_string(), identity, sink }
    }

    /// The target architecture.
    pub fn arch(&self) -> &str {
        &self.arch
    }
}

impl KernelCompiler for HipCompiler {
    type Module = HipModule;

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Vec<u8>> {
        compile_for_arch(source, options, &self.arch)
    }

    fn load(&self, image: &[u8], _path: Option<&Path>) -> Result<Arc<HipModule>> {
        let handle = ModuleHandle::load(self.ordinal, image.to_vec(), self.sink.clone())?;
        Ok(Arc::new(HipModule { handle: Arc::new(handle), kernels: Mutex::new(HashMap::new()) }))
    }
}

/// A code object loaded on a device; its kernels are looked up once and cached by name.
pub struct HipModule {
    handle: Arc<ModuleHandle>,
    kernels: Mutex<HashMap<String, Arc<HipKernel>>>,
}

impl HipModule {
    /// The kernel `name`, as the concrete type.
    pub fn kernel(&self, name: &str) -> Result<Arc<HipKernel>> {
        let mut kernels = self.kernels.lock();
        if let Some(k) = kernels.get(name) {
            return Ok(Arc::clone(k));
        }
        let function = self.handle.function(name).map_err(|e| match e {
            Error::Driver { api, code, name: vendor, .. } => Error::Driver {
                api,
                code,
                name: vendor,
                detail: format!("no kernel `{name}` in the module (is it declared extern \"C\"?)"),
            },
            other => other,
        })?;
        let k = Arc::new(HipKernel { name: name.to_string(), function, module: Arc::clone(&self.handle) });
        kernels.insert(name.to_string(), Arc::clone(&k));
        Ok(k)
    }

    /// The device the module is loaded on.
    pub fn ordinal(&self) -> usize {
        self.handle.ordinal()
    }
}

impl Module for HipModule {
    fn function(&self, name: &str) -> Result<Arc<dyn Kernel>> {
        Ok(self.kernel(name)?)
    }
}

/// One kernel of a [`HipModule`]; keeps its module loaded.
pub struct HipKernel {
    name: String,
    function: hipFunction_t,
    module: Arc<ModuleHandle>,
}

// SAFETY: a hipFunction_t is an opaque handle that the HIP runtime lets any host thread use
// concurrently; it stays valid because `module` keeps its module loaded.
unsafe impl Send for HipKernel {}
// SAFETY: as above; nothing is mutated after construction.
unsafe impl Sync for HipKernel {}

impl HipKernel {
    /// The raw function handle, valid while `self` lives.
    pub fn raw(&self) -> hipFunction_t {
        self.function
    }

    /// The device the kernel's module is loaded on.
    pub fn ordinal(&self) -> usize {
        self.module.ordinal()
    }
}

impl GpuKernel for HipKernel {
    fn device_ordinal(&self) -> usize {
        self.ordinal()
    }

    /// hiprtc code objects do not tell their parameters' sizes.
    fn param_sizes(&self) -> Option<&[usize]> {
        None
    }
}

impl Kernel for HipKernel {
    fn name(&self) -> &str {
        &self.name
    }
    fn num_params(&self) -> Option<usize> {
        None
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_translate_portable_spellings() {
        let o = hiprtc_options("gfx90a", &CompileOptions::new(["-DTILE=16", "--use_fast_math"]));
        assert_eq!(o, ["--offload-arch=gfx90a", "-std=c++17", "-O3", "-DTILE=16", "-ffast-math"]);
        let o = hiprtc_options("gfx90a", &CompileOptions::new(["--std=c++20"]));
        assert_eq!(o, ["--offload-arch=gfx90a", "-O3", "-std=c++20"]);
        let o = hiprtc_options("gfx90a", &CompileOptions::default().with_no_contraction(true));
        assert_eq!(o, ["--offload-arch=gfx90a", "-std=c++17", "-O3", "-ffp-contract=off"]);
    }

    #[test]
    fn user_code_starts_at_line_one() {
        let s = full_source(&KernelSource::new("k", "int x;"));
        assert!(s.starts_with(xp_kernels::PRELUDE));
        assert!(s.ends_with("\n#line 1 \"k.hip\"\nint x;"));
        let s = full_source(&KernelSource::new("a\"b\\c\nd", ""));
        assert!(s.ends_with("\n#line 1 \"a\\\"b\\\\c d.hip\"\n"), "{s}");
    }
}
