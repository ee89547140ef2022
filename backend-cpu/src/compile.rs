//! Kernels for the CPU: built-in ones compiled into this crate at build time, the rest
//! compiled at run time by the system C++ compiler and opened with `libloading`.
//!
//! The compiler is found the way the `cc` crate finds it (`CXX`, else `c++`); flags are
//! `-std=c++17 -O3 -march=native -fPIC -shared -fno-exceptions -fstack-clash-protection -ffp-contract=off` plus the
//! caller's options.
//! Without a compiler, built-in ops still run and a user kernel fails with an
//! [`Error::Compile`] that says a C++ compiler is needed.

use std::collections::HashMap;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use xp_backend_api::{CompileOptions, Error, Kernel, KernelCompiler, KernelSource, Module, Result};

use crate::launch::{BlocksFn, CpuKernel, Ctx, NParamsFn, ThreadFn};

/// A built-in kernel linked into this crate.
pub(crate) struct BuiltinKernel {
    pub(crate) key: u128,
    pub(crate) name: &'static str,
    pub(crate) blocks: unsafe extern "C" fn(*mut *mut c_void, *mut Ctx, u64, u64),
    pub(crate) thread: unsafe extern "C" fn(*mut *mut c_void, *mut Ctx),
    pub(crate) nparams: unsafe extern "C" fn() -> i32,
}

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

fn builtin_index() -> &'static HashMap<u128, &'static BuiltinKernel> {
    static INDEX: OnceLock<HashMap<u128, &'static BuiltinKernel>> = OnceLock::new();
    INDEX.get_or_init(|| BUILTINS.iter().map(|b| (b.key, b)).collect())
}

/// Number of kernels compiled into the crate.
pub fn builtin_count() -> usize {
    BUILTINS.len()
}

/// A module of the CPU backend.
pub struct CpuModule {
    kernels: HashMap<String, CpuKernel>,
}

impl Module for CpuModule {
    fn function(&self, name: &str) -> Result<Arc<dyn Kernel>> {
        self.kernels.get(name).map(|k| Arc::new(k.clone()) as Arc<dyn Kernel>).ok_or_else(|| {
            let mut known: Vec<_> = self.kernels.keys().cloned().collect();
            known.sort();
            Error::value("get_function", format!("no kernel `{name}` in the module (it has: {})", known.join(", ")))
        })
    }
}

/// The built-in module for `source`, if `source` is one of the kernels compiled in.
pub(crate) fn builtin_module(source: &KernelSource, options: &CompileOptions) -> Option<Arc<CpuModule>> {
    if !options.flags.is_empty() {
        return None;
    }
    let b = builtin_index().get(&xp_kernels::source_key(&source.code))?;
    let mut kernels = HashMap::new();
    // SAFETY: the function was compiled from the prelude's `param_count`, which has no
    // preconditions.
    let nparams = unsafe { (b.nparams)() } as usize;
    kernels.insert(
        b.name.to_string(),
        CpuKernel {
            name: b.name.to_string(),
            blocks: b.blocks,
            thread: b.thread,
            nparams,
            fibers: xp_kernels::cpu::uses_barrier(&source.code),
            _lib: None,
        },
    );
    Some(Arc::new(CpuModule { kernels }))
}

/// The run-time C++ compiler.
pub struct CpuCompiler {
    identity: String,
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.to_string()))
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// `-fstack-clash-protection` probes every page of a large stack frame as it is made, so a
/// kernel whose locals overflow a fiber's stack meets the guard page below it (and faults, an
/// error of the launch: the `trap` module) instead of writing past it into other memory.
///
/// `-ffp-contract=off` keeps `a * b + c` two roundings, as the built-in kernels (compiled with it
/// too) and the GPUs' xp kernels (`CompileOptions::no_contraction`) do: a fused chain of ops
/// gives the bits of the same ops run one by one.
const FLAGS: &[&str] = &[
    "-std=c++17",
    "-O3",
    "-march=native",
    "-fPIC",
    "-shared",
    "-fno-exceptions",
    "-fstack-clash-protection",
    "-ffp-contract=off",
    "-w",
];

impl CpuCompiler {
    /// The compiler as configured by the environment (`CXX`).
    pub fn new() -> Self {
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        CpuCompiler {
            identity: format!(
                "cpu|{cxx}|{}|{}|{}|prelude {:016x}",
                env!("XP_CPU_TARGET"),
                FLAGS.join(" "),
                cpu_model(),
                xp_kernels::prelude_hash()
            ),
        }
    }

    fn no_compiler(source: &KernelSource, options: &CompileOptions, why: String) -> Error {
        Error::Compile {
            kernel: source.name.clone(),
            log: format!(
                "a C++ compiler is needed to compile kernels at run time on the CPU backend, and none could be run: \
                 {why}. Install g++ or clang++, or point CXX at one. (Built-in ops need no compiler.)"
            ),
            options: options.display(),
        }
    }
}

impl Default for CpuCompiler {
    fn default() -> Self {
        Self::new()
    }
}

/// The C++ compiler settings of run-time CPU kernels (`CXX`, else the platform's default, for
/// the target this crate was built for, at `-O3`).
pub(crate) fn cxx_build() -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
        .target(env!("XP_CPU_TARGET"))
        .host(env!("XP_CPU_HOST"))
        .opt_level(3)
        .debug(false)
        .cargo_metadata(false)
        .cargo_warnings(false);
    b
}

fn scratch_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "xp-cpu-{}-{}",
        std::process::id(),
        TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    Ok(dir)
}

impl KernelCompiler for CpuCompiler {
    type Module = CpuModule;

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn compile(&self, source: &KernelSource, options: &CompileOptions) -> Result<Vec<u8>> {
        let names = xp_kernels::kernel_names(&source.code);
        if names.is_empty() {
            return Err(Error::Compile {
                kernel: source.name.clone(),
                log: "the source defines no __global__ function".into(),
                options: options.display(),
            });
        }
        let mut full = xp_kernels::with_prelude(&xp_kernels::cpu::cpu_dynamic_shared(&source.code));
        full.push_str("\n#line 1 \"<xp entry points>\"\n");
        full.push_str(&xp_kernels::cpu::cpu_entry_points(&names));
        // A small manifest lets `load` list the kernels without parsing the library.
        let fibers = if xp_kernels::cpu::uses_barrier(&source.code) { " !fibers" } else { "" };
        full.push_str(&format!(
            "extern \"C\" const char* xp_cpu_manifest() {{ return \"{}{fibers}\"; }}\n",
            names.join(" ")
        ));

        let tool = cxx_build().try_get_compiler().map_err(|e| Self::no_compiler(source, options, e.to_string()))?;
        let dir = scratch_dir()?;
        let src_path = dir.join(format!("{}.cpp", sanitize(&source.name)));
        let out_path = dir.join("kernel.so");
        std::fs::write(&src_path, &full).map_err(|e| Error::io(format!("writing {}", src_path.display()), e))?;
        let mut cmd = tool.to_command();
        cmd.args(FLAGS).args(&options.flags).arg("-o").arg(&out_path).arg(&src_path);
        let output = cmd.output();
        let result = match output {
            Err(e) => {
                Err(Self::no_compiler(source, options, format!("running `{}` failed: {e}", tool.path().display())))
            }
            Ok(o) if !o.status.success() => Err(Error::Compile {
                kernel: source.name.clone(),
                log: format!("{}{}", String::from_utf8_lossy(&o.stderr), String::from_utf8_lossy(&o.stdout)),
                options: options.display(),
            }),
            Ok(_) => std::fs::read(&out_path).map_err(|e| Error::io(format!("reading {}", out_path.display()), e)),
        };
        let _ = std::fs::remove_dir_all(&dir);
        result
    }

    fn load(&self, image: &[u8], path: Option<&Path>) -> Result<Arc<CpuModule>> {
        let (lib, tmp) = match path {
            Some(p) => (open(p)?, None),
            None => {
                let dir = scratch_dir()?;
                let p = dir.join("kernel.so");
                std::fs::write(&p, image).map_err(|e| Error::io(format!("writing {}", p.display()), e))?;
                (open(&p)?, Some(dir))
            }
        };
        if let Some(d) = tmp {
            // The mapping stays valid after the file is removed.
            let _ = std::fs::remove_dir_all(d);
        }
        let lib = Arc::new(lib);
        // SAFETY: `xp_cpu_manifest` is emitted by `compile` with this signature.
        let manifest: libloading::Symbol<unsafe extern "C" fn() -> *const std::os::raw::c_char> =
            unsafe { lib.get(b"xp_cpu_manifest\0") }
                .map_err(|e| Error::value("load kernel library", format!("not an xp CPU kernel library: {e}")))?;
        // SAFETY: the manifest function returns a static NUL-terminated string.
        let names = unsafe { std::ffi::CStr::from_ptr(manifest()) }.to_string_lossy().into_owned();
        let mut kernels = HashMap::new();
        let fibers = names.split_whitespace().any(|t| t == "!fibers");
        for name in names.split_whitespace().filter(|t| !t.starts_with('!')) {
            let sym = |prefix: &str| format!("xp_cpu_{prefix}_{name}\0");
            let missing = |e: libloading::Error| Error::value("load kernel library", format!("kernel `{name}`: {e}"));
            // SAFETY: the entry points are emitted by `cpu_entry_points` with exactly these
            // signatures; the library stays open as long as the kernel (`_lib`).
            let (blocks, thread, nparams) = unsafe {
                let b: libloading::Symbol<BlocksFn> = lib.get(sym("blocks").as_bytes()).map_err(missing)?;
                let t: libloading::Symbol<ThreadFn> = lib.get(sym("thread").as_bytes()).map_err(missing)?;
                let n: libloading::Symbol<NParamsFn> = lib.get(sym("nparams").as_bytes()).map_err(missing)?;
                (*b, *t, *n)
            };
            // SAFETY: `param_count` has no preconditions.
            let nparams = unsafe { nparams() } as usize;
            kernels.insert(
                name.to_string(),
                CpuKernel { name: name.to_string(), blocks, thread, nparams, fibers, _lib: Some(Arc::clone(&lib)) },
            );
        }
        Ok(Arc::new(CpuModule { kernels }))
    }
}

fn open(p: &Path) -> Result<libloading::Library> {
    // SAFETY: the library was produced by our compile step from the prelude and the user's
    // kernel; its initialisers only set up `thread_local` and static storage.
    unsafe { libloading::Library::new(p) }
        .map_err(|e| Error::value("load kernel library", format!("{}: {e}", p.display())))
}

fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).take(64).collect()
}
