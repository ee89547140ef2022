//! Finding the vendor libraries at run time, without panicking.
//!
//! # The driver (`libcuda.so.1`)
//! cudarc's loader opens the first of its candidate names (`libcuda.so`, …, `libcuda.so.1`)
//! that `dlopen` accepts and panics when none does. [`driver`] runs the same loop first. When no
//! name opens, it looks in the folders where drivers live off the loader path (`/usr/lib/wsl/lib`,
//! `/usr/local/nvidia/lib64`, …), opens the file found there by its full path with
//! `RTLD_GLOBAL`, and runs the loop again: `dlopen` by name now answers with the loaded library
//! (glibc matches loaded libraries by their `SONAME`), so what cudarc loads is exactly what was
//! found. Folders of the toolkit are not searched: they hold only the `stubs/` library, which
//! cannot run anything.
//!
//! # NVRTC, cuFFT, cuBLAS, cuSPARSE, cuSOLVER and NCCL
//! Each is an entry of this file's table ([`NVRTC`], [`CUFFT`], …: a
//! [`VendorLibrary`](xp_backend_api::library::VendorLibrary)), found by the search every backend
//! shares (`xp_backend_api::library`), in this order:
//! 1. `XP_NVRTC_PATH`, `XP_CUFFT_PATH`, `XP_CUBLAS_PATH`, `XP_CUSPARSE_PATH`,
//!    `XP_CUSOLVER_PATH`, `XP_NCCL_PATH`: the library file, or a folder holding it (when set,
//!    nothing else is tried);
//! 2. for NCCL, `$NCCL_HOME/lib` and `lib64`;
//! 3. the toolkit: `$CUDA_HOME/lib64`, `$CUDA_PATH/lib64` (and their `lib`),
//!    `/usr/local/cuda/lib64`;
//! 4. NVIDIA's pip wheels (`nvidia/cu13/lib`, then the library's own: `nvidia/cuda_nvrtc/lib`,
//!    `nvidia/cufft/lib`, …; NCCL's `nvidia/nccl/lib` first) in the site-packages of
//!    `$VIRTUAL_ENV`, `$CONDA_PREFIX`, `/usr/local/lib/python3*`, `/usr/lib/python3*`,
//!    `~/.local/lib/python3*` and `~/.pyenv/versions/*/lib/python3*`, then `$CONDA_PREFIX/lib`;
//! 5. the loader path (`LD_LIBRARY_PATH`, the `ldconfig` cache).
//!
//! File names, newest first: `libnvrtc.so.13`, `.so.12`, `.so`; `libcufft.so.12` (CUDA 13's
//! cuFFT is version 12), `.so.11`, `.so`; `libcublas.so.13`, `.so.12`, `.so`;
//! `libcusparse.so.12`, `.so.11`, `.so`; `libcusolver.so.12`, `.so.11`, `.so`; `libnccl.so.2`,
//! `.so`.
//!
//! NVRTC is opened by its full path and called through the table in [`Nvrtc`], so the library
//! used is the one found. cuFFT, cuBLAS, cuSPARSE and cuSOLVER are called through cudarc's
//! bindings, whose loader opens a library by bare name and panics when none opens, and whose
//! every function panics at its first call when the library lacks its symbol: xp opens the file
//! found by its full path with `RTLD_GLOBAL` first, so that cudarc's `dlopen("libcufft.so.12")`
//! is answered with it (glibc matches loaded libraries by their `SONAME`), checks
//! `is_culib_present`, and checks that every function xp calls is exported, before any call.
//! What a library opens by name is opened first from its folder, the same way (its
//! companions): cuBLASLt (`libcublasLt.so.13`) beside cuBLAS, nvJitLink beside cuSPARSE,
//! nvJitLink and cuSPARSE beside cuSOLVER, and `libnvrtc-builtins.so.*` of the same version
//! beside NVRTC, which opens it when it compiles. NCCL is opened by
//! `xp_backend_api::gpu::nccl::load_nccl`, whose table serves RCCL too.

use std::ffi::{c_char, c_int, c_void, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;
use xp_backend_api::library::{
    is_bare_name, open_library, sorted_entries, Folders, OpenedFile, Opening, VendorLibrary,
};
use xp_backend_api::{Error, LibrarySearch, Result};

/// Folders where NVIDIA drivers are installed off the default loader path.
const DRIVER_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/lib/wsl/lib",
    "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib",
    "/run/opengl-driver/lib",
];

/// The driver library's file names, in the order they are tried in a folder.
const DRIVER_FILES: &[&str] = &["libcuda.so.1", "libcuda.so"];

/// Where every CUDA library is looked for, after its variable: the toolkit, the wheels of CUDA
/// 13 (`nvidia/cu13/lib`) and of the library itself (`wheel`), then `$CONDA_PREFIX/lib`.
const fn cuda_folders(wheel: &'static [&'static str; 2]) -> [Folders; 3] {
    [Folders::CudaToolkit, Folders::PipWheels(wheel), Folders::Var("CONDA_PREFIX", &["lib"])]
}

/// NVRTC: opened by its path (the table in [`Nvrtc`]), after its builtins.
const NVRTC: VendorLibrary = VendorLibrary {
    what: "NVRTC (libnvrtc.so.13, the CUDA runtime compiler)",
    env_var: "XP_NVRTC_PATH",
    files: &["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"],
    folders: &cuda_folders(&["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"]),
    hint: "install it with `pip install nvidia-cuda-nvrtc` (or the CUDA toolkit)",
    opening: Opening::global_after(nvrtc_builtins),
};

/// cuFFT's file names, newest first (CUDA 13 ships cuFFT 12 as `libcufft.so.12`).
const CUFFT_FILES: &[&str] = &["libcufft.so.12", "libcufft.so.11", "libcufft.so"];

/// cuFFT, for cudarc's `cufft`.
const CUFFT: VendorLibrary = VendorLibrary {
    what: "cuFFT (libcufft, the CUDA FFT library)",
    env_var: "XP_CUFFT_PATH",
    files: CUFFT_FILES,
    folders: &cuda_folders(&["nvidia/cu13/lib", "nvidia/cufft/lib"]),
    hint: "install it with `pip install nvidia-cufft` (or the CUDA toolkit)",
    opening: Opening::GLOBAL,
};

/// cuBLAS's file names, newest first (CUDA 13 ships cuBLAS 13, CUDA 12 cuBLAS 12; the 64-bit
/// size API xp calls came with cuBLAS 12).
const CUBLAS_FILES: &[&str] = &["libcublas.so.13", "libcublas.so.12", "libcublas.so"];

/// cuBLAS, for cudarc's `cublas`, after the cuBLASLt beside it.
const CUBLAS: VendorLibrary = VendorLibrary {
    what: "cuBLAS (libcublas, the CUDA BLAS library)",
    env_var: "XP_CUBLAS_PATH",
    files: CUBLAS_FILES,
    folders: &cuda_folders(&["nvidia/cu13/lib", "nvidia/cublas/lib"]),
    hint: "install it with `pip install nvidia-cublas` (or the CUDA toolkit)",
    opening: Opening::global_after(cublaslt_beside),
};

/// cuSPARSE, for cudarc's `cusparse` (CUDA 13 and 12 ship cuSPARSE 12), after nvJitLink.
const CUSPARSE: VendorLibrary = VendorLibrary {
    what: "cuSPARSE (libcusparse, the CUDA sparse matrix library)",
    env_var: "XP_CUSPARSE_PATH",
    files: &["libcusparse.so.12", "libcusparse.so.11", "libcusparse.so"],
    folders: &cuda_folders(&["nvidia/cu13/lib", "nvidia/cusparse/lib"]),
    hint: "install it with `pip install nvidia-cusparse` (or the CUDA toolkit)",
    opening: Opening::global_after(cusparse_companions),
};

/// cuSOLVER's file names, newest first (CUDA 13 ships cuSOLVER 12, CUDA 12 cuSOLVER 11).
const CUSOLVER_FILES: &[&str] = &["libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"];

/// cuSOLVER, for cudarc's `cusolver`, after nvJitLink and cuSPARSE.
const CUSOLVER: VendorLibrary = VendorLibrary {
    what: "cuSOLVER (libcusolver, the CUDA dense solver library)",
    env_var: "XP_CUSOLVER_PATH",
    files: CUSOLVER_FILES,
    folders: &cuda_folders(&["nvidia/cu13/lib", "nvidia/cusolver/lib"]),
    hint: "install it with `pip install nvidia-cusolver` (or the CUDA toolkit)",
    opening: Opening::global_after(cusolver_companions),
};

/// NCCL: `$NCCL_HOME` before the toolkit, the `nvidia-nccl-cu13` wheel before CUDA 13's. The
/// soname is `libnccl.so.2`. Opened by `load_nccl` (`libloading`'s default).
const NCCL: VendorLibrary = VendorLibrary {
    what: "NCCL (libnccl.so.2, NVIDIA's collective communications library)",
    env_var: "XP_NCCL_PATH",
    files: &["libnccl.so.2", "libnccl.so"],
    folders: &[
        Folders::Var("NCCL_HOME", &["lib", "lib64"]),
        Folders::CudaToolkit,
        Folders::PipWheels(&["nvidia/nccl/lib", "nvidia/cu13/lib"]),
        Folders::Var("CONDA_PREFIX", &["lib"]),
    ],
    hint: "install it with `pip install nvidia-nccl-cu13` (or NVIDIA's libnccl2 package)",
    opening: Opening::LOCAL,
};

fn unavailable(reason: impl Into<String>) -> Error {
    Error::BackendUnavailable { backend: "cuda".into(), reason: reason.into() }
}

/// The driver library, opened the way cudarc opens it.
pub(crate) struct DriverLibrary {
    /// The handle (the same one cudarc's loader gets).
    pub(crate) lib: Library,
    /// The name or path it was opened by.
    pub(crate) name: String,
}

fn cudarc_driver_names() -> Vec<String> {
    ["cuda", "nvcuda"].iter().flat_map(|n| cudarc::get_lib_name_candidates(n)).collect()
}

/// The first of cudarc's candidate names that opens, as cudarc's `culib()` will pick it.
fn open_like_cudarc(names: &[String]) -> Option<DriverLibrary> {
    names.iter().find_map(|n| {
        // SAFETY: these are the driver library's names; opening the driver runs only its own
        // initialisers, as cudarc itself does with the same names.
        unsafe { Library::new(n) }.ok().map(|lib| DriverLibrary { lib, name: n.clone() })
    })
}

fn find_driver() -> std::result::Result<DriverLibrary, String> {
    let names = cudarc_driver_names();
    if let Some(d) = open_like_cudarc(&names) {
        return Ok(d);
    }
    let mut failures = Vec::new();
    for dir in DRIVER_DIRS {
        for file in DRIVER_FILES {
            let path = Path::new(dir).join(file);
            if !path.exists() {
                continue;
            }
            // SAFETY: `path` is a file named like the driver in a driver folder.
            match unsafe { open_library(&path, true) } {
                Ok(preloaded) => {
                    if let Some(d) = open_like_cudarc(&names) {
                        // `preloaded` may close: `d` holds its own reference to the same object.
                        drop(preloaded);
                        return Ok(DriverLibrary { name: path.display().to_string(), ..d });
                    }
                    failures.push(format!("{} opened but is not found by name afterwards", path.display()));
                }
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
    }
    let mut reason = format!(
        "libcuda.so.1 (the NVIDIA driver) not found; tried {} on the loader path (LD_LIBRARY_PATH, \
         ldconfig) and {} in {}",
        ["libcuda.so", "libcuda.so.1"].join(", "),
        DRIVER_FILES.join(", "),
        DRIVER_DIRS.join(", ")
    );
    if !failures.is_empty() {
        reason.push_str(&format!(" ({})", failures.join("; ")));
    }
    reason.push_str("; install the NVIDIA driver, or add its folder to LD_LIBRARY_PATH");
    Err(reason)
}

/// The driver library, found once per process. Until this returns `Ok`, no function of
/// `cudarc::driver` may be called (its loader would panic).
pub(crate) fn driver() -> Result<&'static DriverLibrary> {
    static DRIVER: OnceLock<std::result::Result<DriverLibrary, String>> = OnceLock::new();
    DRIVER.get_or_init(find_driver).as_ref().map_err(|r| unavailable(r.clone()))
}

/// Whether the driver exports `symbol` (for calls newer drivers added).
pub(crate) fn driver_has(symbol: &str) -> bool {
    let Ok(d) = driver() else { return false };
    let mut name = symbol.as_bytes().to_vec();
    name.push(0);
    // SAFETY: the symbol is only looked up, never called through this type.
    unsafe { d.lib.get::<*const c_void>(&name) }.is_ok()
}

/// A function of the driver, looked up by name (for versions cudarc's bindings lack).
pub(crate) fn driver_symbol<T: Copy>(symbol: &str) -> Result<T> {
    let d = driver()?;
    let mut name = symbol.as_bytes().to_vec();
    name.push(0);
    // SAFETY: callers name `T` as the C signature of `symbol` (from cuda.h); the library stays
    // open for the life of the process (a static), so the copied pointer stays valid.
    let f = unsafe { d.lib.get::<T>(&name) };
    f.map(|s| *s).map_err(|e| Error::Driver {
        api: symbol.to_string(),
        code: -1,
        name: "symbol not found".into(),
        detail: format!("the driver ({}) does not export {symbol}: {e}; update the NVIDIA driver", d.name),
    })
}

type CreateProgram = unsafe extern "C" fn(
    *mut *mut c_void,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type CompileProgram = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
type GetSize = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type GetBytes = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;
type DestroyProgram = unsafe extern "C" fn(*mut *mut c_void) -> c_int;
type Version = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
type GetErrorString = unsafe extern "C" fn(c_int) -> *const c_char;

/// The NVRTC entry points xp uses, from one library opened by its path.
///
/// Status codes are kept as `c_int` (not a Rust enum) so that a code newer than these
/// bindings is still a valid value.
pub(crate) struct Nvrtc {
    pub(crate) create_program: CreateProgram,
    pub(crate) compile_program: CompileProgram,
    pub(crate) get_program_log_size: GetSize,
    pub(crate) get_program_log: GetBytes,
    pub(crate) get_cubin_size: GetSize,
    pub(crate) get_cubin: GetBytes,
    pub(crate) destroy_program: DestroyProgram,
    get_error_string: GetErrorString,
    /// Where the library was found.
    pub(crate) path: String,
    /// `(major, minor)`.
    pub(crate) version: (i32, i32),
    // Keep the libraries open for as long as the table exists (forever: it is a static): the
    // builtins opened before NVRTC, and NVRTC.
    _builtins: Vec<Library>,
    _lib: Library,
}

impl Nvrtc {
    /// NVRTC's name of a status code, e.g. `NVRTC_ERROR_COMPILATION`.
    pub(crate) fn error_string(&self, code: c_int) -> String {
        // SAFETY: nvrtcGetErrorString accepts any code and returns static storage (a generic
        // text for unknown codes).
        let p = unsafe { (self.get_error_string)(code) };
        if p.is_null() {
            format!("NVRTC error {code}")
        } else {
            // SAFETY: non-null `p` points at NVRTC's static NUL-terminated text.
            unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    }
}

/// Where NCCL is looked for.
pub(crate) fn nccl_search(env: &dyn Fn(&str) -> Option<OsString>) -> LibrarySearch {
    NCCL.search(env)
}

/// NCCL, opened once per process on first use from the default places.
pub(crate) fn nccl() -> Result<&'static xp_backend_api::gpu::nccl::NcclApi> {
    static FOUND: OnceLock<std::result::Result<xp_backend_api::gpu::nccl::NcclApi, String>> = OnceLock::new();
    let env = |k: &str| std::env::var_os(k);
    FOUND
        .get_or_init(|| xp_backend_api::gpu::nccl::load_nccl(&nccl_search(&env), &env, "NCCL"))
        .as_ref()
        .map_err(|e| unavailable(e.clone()))
}

/// Where to look for NVRTC, given the environment as a lookup function (for tests).
/// The first element tells whether the list came from `XP_NVRTC_PATH` alone.
#[cfg(test)]
fn nvrtc_candidates(env: &dyn Fn(&str) -> Option<OsString>) -> (bool, Vec<PathBuf>) {
    NVRTC.search(env).candidates(env)
}

/// NVRTC's builtins beside an NVRTC file, opened first because NVRTC opens them by name when it
/// compiles: `libnvrtc.so.13` goes with the newest `libnvrtc-builtins.so.13.*`, a bare
/// `libnvrtc.so` with any. None for a bare name (the loader finds them).
fn nvrtc_builtins(nvrtc: &Path) -> Vec<PathBuf> {
    let Some(dir) = nvrtc.parent().filter(|_| !is_bare_name(nvrtc)) else { return Vec::new() };
    let file = nvrtc.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = match file.strip_prefix("libnvrtc.so.") {
        Some(major) => format!("libnvrtc-builtins.so.{major}."),
        None => "libnvrtc-builtins.so.".to_string(),
    };
    let found = sorted_entries(dir, |n| {
        let n = n.to_string_lossy();
        n.starts_with(&prefix) && !n.contains(".alt.")
    });
    found.into_iter().take(1).collect()
}

/// NVRTC's table from the file opened, or why it is no usable NVRTC.
fn nvrtc_table(opened: OpenedFile<'_>) -> std::result::Result<Nvrtc, String> {
    let OpenedFile { path, library: lib, companions } = opened;
    macro_rules! sym {
        ($name:literal, $ty:ty) => {{
            // SAFETY: `$ty` is the C signature of the NVRTC function `$name` (nvrtc.h), and
            // `lib` stays open for as long as the pointer is kept (both live in `Nvrtc`).
            let s = unsafe { lib.get::<$ty>(concat!($name, "\0").as_bytes()) };
            *s.map_err(|e| format!("{}: missing {}: {e}", path.display(), $name))?
        }};
    }
    let version: Version = sym!("nvrtcVersion", Version);
    let table = Nvrtc {
        create_program: sym!("nvrtcCreateProgram", CreateProgram),
        compile_program: sym!("nvrtcCompileProgram", CompileProgram),
        get_program_log_size: sym!("nvrtcGetProgramLogSize", GetSize),
        get_program_log: sym!("nvrtcGetProgramLog", GetBytes),
        get_cubin_size: sym!("nvrtcGetCUBINSize", GetSize),
        get_cubin: sym!("nvrtcGetCUBIN", GetBytes),
        destroy_program: sym!("nvrtcDestroyProgram", DestroyProgram),
        get_error_string: sym!("nvrtcGetErrorString", GetErrorString),
        path: path.display().to_string(),
        version: (0, 0),
        _builtins: companions,
        _lib: lib,
    };
    let (mut major, mut minor) = (0, 0);
    // SAFETY: nvrtcVersion writes two ints through valid pointers.
    let r = unsafe { version(&mut major, &mut minor) };
    if r != 0 {
        return Err(format!("{}: nvrtcVersion failed: {}", path.display(), table.error_string(r)));
    }
    Ok(Nvrtc { version: (major, minor), ..table })
}

fn find_nvrtc() -> std::result::Result<Nvrtc, String> {
    let env = |k: &str| std::env::var_os(k);
    // SAFETY: the candidates are files named like NVRTC (and its builtins beside them) in the
    // folders where NVIDIA installs it, or found by the loader under NVRTC's names; their
    // initialisers are NVRTC's.
    unsafe { NVRTC.open(&env, nvrtc_table) }.map(|found| found.api)
}

/// NVRTC, found once per process.
pub(crate) fn nvrtc() -> Result<&'static Nvrtc> {
    static FOUND: OnceLock<std::result::Result<Nvrtc, String>> = OnceLock::new();
    FOUND.get_or_init(find_nvrtc).as_ref().map_err(|r| unavailable(r.clone()))
}

/// Where to look for cuFFT, given the environment as a lookup function (for tests).
#[cfg(test)]
fn cufft_candidates(env: &dyn Fn(&str) -> Option<OsString>) -> (bool, Vec<PathBuf>) {
    CUFFT.search(env).candidates(env)
}

/// A vendor library opened so that one of cudarc's binding modules (`cufft`, `cublas`) finds
/// it.
pub(crate) struct CudarcLibrary {
    /// Where it was found; when another copy on the loader path answers cudarc's names first,
    /// that is said too.
    pub(crate) path: String,
    // Keep the library, and those opened before it for it, loaded for the process (a static),
    // under their sonames.
    _libs: Vec<Library>,
}

/// What xp knows of one of cudarc's binding modules.
struct CudarcModule {
    /// cudarc's name of the library (`cufft`, `cublas`), for its candidate names.
    name: &'static str,
    /// The library in prose, for messages: `cuFFT`.
    what: &'static str,
    /// The module's `is_culib_present`.
    present: unsafe fn() -> bool,
    /// The address of a symbol (NUL-terminated) in the module's `culib`, which panics unless
    /// `present` is true.
    symbol: unsafe fn(&[u8]) -> std::result::Result<*const c_void, String>,
    /// Every function xp calls through the module. cudarc's loader panics on a missing symbol
    /// at its first call, so a library lacking one is refused when it is found.
    symbols: &'static [&'static str],
}

/// Find `library` and open it by its full path with `RTLD_GLOBAL`, after the companions its
/// entry names (opened the same way, from the same folder, where they exist); then cudarc's
/// loader, which opens the library's candidate names (`libcufft.so.12`, …) by bare name, is
/// answered with the library already loaded (glibc matches loaded libraries by their
/// `SONAME`). The library must then be present by cudarc's names and export every symbol of
/// `module`.
fn find_for_cudarc(
    library: &VendorLibrary,
    env: &dyn Fn(&str) -> Option<OsString>,
    module: &CudarcModule,
) -> std::result::Result<CudarcLibrary, String> {
    let keep_all = |f: OpenedFile<'_>| {
        let mut libs = f.companions;
        libs.push(f.library);
        Ok(libs)
    };
    // SAFETY: the candidates are files named like the library in the folders where it is
    // installed (or found by the loader under its names), and its companions NVIDIA's libraries
    // beside it; their initialisers are their own.
    let found = unsafe { library.open(env, keep_all) }?;
    let (libs, path) = (found.api, found.path);
    // SAFETY: `is_culib_present` only tries to open cudarc's candidate names.
    if !unsafe { (module.present)() } {
        return Err(format!(
            "{} was opened from {} but cudarc's loader does not find it by name ({}); set LD_LIBRARY_PATH \
             to its folder",
            module.what,
            path.display(),
            cudarc::get_lib_name_candidates(module.name).join(", ")
        ));
    }
    for sym in module.symbols {
        // SAFETY: the library is present by cudarc's names (checked just above), so `culib`
        // does not panic; the symbol is only looked up, never called.
        if let Err(e) = unsafe { (module.symbol)(format!("{sym}\0").as_bytes()) } {
            return Err(format!("{} is not a usable {} (it lacks {sym}: {e})", path.display(), module.what));
        }
    }
    let mut shown = path.display().to_string();
    let probe = format!("{}\0", module.symbols[0]);
    // SAFETY: as above: lookups, no call.
    let same = unsafe {
        let ours = libs.last().map(|l| l.get::<*const c_void>(probe.as_bytes()).map(|s| *s));
        matches!((ours, (module.symbol)(probe.as_bytes())), (Some(Ok(a)), Ok(b)) if a == b)
    };
    if !same {
        shown.push_str(&format!(
            " (found, but another {} on the loader path answers first and is the one used)",
            module.what
        ));
    }
    Ok(CudarcLibrary { path: shown, _libs: libs })
}

/// The cuFFT functions xp calls (the first is the one compared to tell which copy cudarc uses).
const CUFFT_SYMBOLS: &[&str] = &[
    "cufftGetVersion",
    "cufftCreate",
    "cufftDestroy",
    "cufftSetAutoAllocation",
    "cufftMakePlanMany64",
    "cufftSetStream",
    "cufftSetWorkArea",
    "cufftExecC2C",
    "cufftExecZ2Z",
    "cufftExecR2C",
    "cufftExecD2Z",
    "cufftExecC2R",
    "cufftExecZ2D",
];

/// The address of `name` (NUL-terminated) in the cuFFT cudarc uses.
///
/// # Safety
/// `cudarc::cufft::sys::is_culib_present` must have returned true.
unsafe fn cufft_symbol(name: &[u8]) -> std::result::Result<*const c_void, String> {
    // SAFETY: cuFFT is present by cudarc's names (the caller's duty), so `culib` does not
    // panic; the symbol is looked up, not called.
    unsafe { cudarc::cufft::sys::culib().get::<*const c_void>(name) }.map(|s| *s).map_err(|e| e.to_string())
}

fn find_cufft(env: &dyn Fn(&str) -> Option<OsString>) -> std::result::Result<CudarcLibrary, String> {
    let module = CudarcModule {
        name: "cufft",
        what: "cuFFT",
        present: cudarc::cufft::sys::is_culib_present,
        symbol: cufft_symbol,
        symbols: CUFFT_SYMBOLS,
    };
    find_for_cudarc(&CUFFT, env, &module)
}

/// cuFFT, found once per process. Until this returns `Ok`, no function of `cudarc::cufft`
/// may be called (its loader would panic).
pub(crate) fn cufft() -> Result<&'static CudarcLibrary> {
    static FOUND: OnceLock<std::result::Result<CudarcLibrary, String>> = OnceLock::new();
    FOUND.get_or_init(|| find_cufft(&|k| std::env::var_os(k))).as_ref().map_err(|r| unavailable(r.clone()))
}

/// Where cuBLAS is looked for (for tests).
#[cfg(test)]
fn cublas_search(env: &dyn Fn(&str) -> Option<OsString>) -> LibrarySearch {
    CUBLAS.search(env)
}

/// cuBLASLt beside a cuBLAS file: `libcublas.so.13` opens `libcublasLt.so.13` by name, which
/// the loader finds only on its path; opened first from the same folder, it is found loaded.
fn cublaslt_beside(cublas: &Path) -> Vec<PathBuf> {
    if is_bare_name(cublas) {
        return Vec::new();
    }
    let name = cublas.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    match name.strip_prefix("libcublas.so") {
        Some(version) => vec![cublas.with_file_name(format!("libcublasLt.so{version}"))],
        None => Vec::new(),
    }
}

/// The cuBLAS functions xp calls (the first is the one compared to tell which copy cudarc uses).
const CUBLAS_SYMBOLS: &[&str] = &[
    "cublasCreate_v2",
    "cublasDestroy_v2",
    "cublasSetStream_v2",
    "cublasGetProperty",
    "cublasGemmEx_64",
    "cublasGemmStridedBatchedEx_64",
];

/// The address of `name` (NUL-terminated) in the cuBLAS cudarc uses.
///
/// # Safety
/// `cudarc::cublas::sys::is_culib_present` must have returned true.
unsafe fn cublas_symbol(name: &[u8]) -> std::result::Result<*const c_void, String> {
    // SAFETY: cuBLAS is present by cudarc's names (the caller's duty), so `culib` does not
    // panic; the symbol is looked up, not called.
    unsafe { cudarc::cublas::sys::culib().get::<*const c_void>(name) }.map(|s| *s).map_err(|e| e.to_string())
}

fn find_cublas(env: &dyn Fn(&str) -> Option<OsString>) -> std::result::Result<CudarcLibrary, String> {
    let module = CudarcModule {
        name: "cublas",
        what: "cuBLAS",
        present: cudarc::cublas::sys::is_culib_present,
        symbol: cublas_symbol,
        symbols: CUBLAS_SYMBOLS,
    };
    find_for_cudarc(&CUBLAS, env, &module)
}

/// cuBLAS (and cuBLASLt, which it needs), found once per process. Until this returns `Ok`, no
/// function of `cudarc::cublas` may be called (its loader would panic).
pub(crate) fn cublas() -> Result<&'static CudarcLibrary> {
    static FOUND: OnceLock<std::result::Result<CudarcLibrary, String>> = OnceLock::new();
    FOUND.get_or_init(|| find_cublas(&|k| std::env::var_os(k))).as_ref().map_err(|r| unavailable(r.clone()))
}

/// What cuSPARSE opens by name, from the folder it was found in: nvJitLink.
fn cusparse_companions(cusparse: &Path) -> Vec<PathBuf> {
    if is_bare_name(cusparse) {
        return Vec::new();
    }
    ["libnvJitLink.so.13", "libnvJitLink.so.12"].iter().map(|f| cusparse.with_file_name(f)).collect()
}

/// The cuSPARSE functions xp calls.
pub(crate) const CUSPARSE_SYMBOLS: &[&str] = &[
    "cusparseCreate",
    "cusparseDestroy",
    "cusparseSetStream",
    "cusparseGetProperty",
    "cusparseCreateCsr",
    "cusparseDestroySpMat",
    "cusparseCsrSetPointers",
    "cusparseSpMatGetSize",
    "cusparseSpGEMM_createDescr",
    "cusparseSpGEMM_destroyDescr",
    "cusparseSpGEMM_workEstimation",
    "cusparseSpGEMM_compute",
    "cusparseSpGEMM_copy",
];

/// The address of `name` (NUL-terminated) in the cuSPARSE cudarc uses.
///
/// # Safety
/// `cudarc::cusparse::sys::is_culib_present` must have returned true.
unsafe fn cusparse_symbol(name: &[u8]) -> std::result::Result<*const c_void, String> {
    // SAFETY: cuSPARSE is present by cudarc's names (the caller's duty), so `culib` does not
    // panic; the symbol is looked up, not called.
    unsafe { cudarc::cusparse::sys::culib().get::<*const c_void>(name) }.map(|s| *s).map_err(|e| e.to_string())
}

fn find_cusparse(env: &dyn Fn(&str) -> Option<OsString>) -> std::result::Result<CudarcLibrary, String> {
    let module = CudarcModule {
        name: "cusparse",
        what: "cuSPARSE",
        present: cudarc::cusparse::sys::is_culib_present,
        symbol: cusparse_symbol,
        symbols: CUSPARSE_SYMBOLS,
    };
    find_for_cudarc(&CUSPARSE, env, &module)
}

/// cuSPARSE, found once per process. Until this returns `Ok`, no function of
/// `cudarc::cusparse` may be called (its loader would panic).
pub(crate) fn cusparse() -> Result<&'static CudarcLibrary> {
    static FOUND: OnceLock<std::result::Result<CudarcLibrary, String>> = OnceLock::new();
    FOUND.get_or_init(|| find_cusparse(&|k| std::env::var_os(k))).as_ref().map_err(|r| unavailable(r.clone()))
}

/// Where cuSOLVER is looked for (for tests).
#[cfg(test)]
fn cusolver_search(env: &dyn Fn(&str) -> Option<OsString>) -> LibrarySearch {
    CUSOLVER.search(env)
}

/// What cuSOLVER opens by name, from the folder it was found in: cuSPARSE and nvJitLink (the
/// versions of CUDA 13, then 12); cuBLAS is opened before by [`cublas`].
fn cusolver_companions(cusolver: &Path) -> Vec<PathBuf> {
    if is_bare_name(cusolver) {
        return Vec::new();
    }
    ["libnvJitLink.so.13", "libnvJitLink.so.12", "libcusparse.so.12", "libcusparse.so.11"]
        .iter()
        .map(|f| cusolver.with_file_name(f))
        .collect()
}

/// The cuSOLVER functions xp calls (the first is the one compared to tell which copy cudarc
/// uses). The general eigensolver (`cusolverDnXgeev`, cuSOLVER 11.7 and later) is optional.
pub(crate) const CUSOLVER_SYMBOLS: &[&str] = &[
    "cusolverDnCreate",
    "cusolverDnDestroy",
    "cusolverDnSetStream",
    "cusolverGetProperty",
    "cusolverDnCreateParams",
    "cusolverDnDestroyParams",
    "cusolverDnCreateGesvdjInfo",
    "cusolverDnDestroyGesvdjInfo",
    "cusolverDnSgetrf_bufferSize",
    "cusolverDnSgetrf",
    "cusolverDnDgetrf",
    "cusolverDnCgetrf",
    "cusolverDnZgetrf",
    "cusolverDnSgetrs",
    "cusolverDnDgetrs",
    "cusolverDnCgetrs",
    "cusolverDnZgetrs",
    "cusolverDnXpotrf_bufferSize",
    "cusolverDnXpotrf",
    "cusolverDnXgeqrf_bufferSize",
    "cusolverDnXgeqrf",
    "cusolverDnSorgqr_bufferSize",
    "cusolverDnSorgqr",
    "cusolverDnDorgqr",
    "cusolverDnCungqr",
    "cusolverDnZungqr",
    "cusolverDnXgesvd_bufferSize",
    "cusolverDnXgesvd",
    "cusolverDnSgesvdj_bufferSize",
    "cusolverDnSgesvdj",
    "cusolverDnDgesvdj",
    "cusolverDnCgesvdj",
    "cusolverDnZgesvdj",
    "cusolverDnXsyevd_bufferSize",
    "cusolverDnXsyevd",
];

/// The address of `name` (NUL-terminated) in the cuSOLVER cudarc uses.
///
/// # Safety
/// `cudarc::cusolver::sys::is_culib_present` must have returned true.
pub(crate) unsafe fn cusolver_symbol(name: &[u8]) -> std::result::Result<*const c_void, String> {
    // SAFETY: cuSOLVER is present by cudarc's names (the caller's duty), so `culib` does not
    // panic; the symbol is looked up, not called.
    unsafe { cudarc::cusolver::sys::culib().get::<*const c_void>(name) }.map(|s| *s).map_err(|e| e.to_string())
}

fn find_cusolver(env: &dyn Fn(&str) -> Option<OsString>) -> std::result::Result<CudarcLibrary, String> {
    let module = CudarcModule {
        name: "cusolver",
        what: "cuSOLVER",
        present: cudarc::cusolver::sys::is_culib_present,
        symbol: cusolver_symbol,
        symbols: CUSOLVER_SYMBOLS,
    };
    find_for_cudarc(&CUSOLVER, env, &module)
}

/// cuSOLVER, found once per process after cuBLAS (which it needs). Until this returns `Ok`, no
/// function of `cudarc::cusolver` may be called (its loader would panic).
pub(crate) fn cusolver() -> Result<&'static CudarcLibrary> {
    cublas()?;
    static FOUND: OnceLock<std::result::Result<CudarcLibrary, String>> = OnceLock::new();
    FOUND.get_or_init(|| find_cusolver(&|k| std::env::var_os(k))).as_ref().map_err(|r| unavailable(r.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xp_nvrtc_path_naming_a_file_is_the_only_candidate() {
        let env = |k: &str| (k == "XP_NVRTC_PATH").then(|| OsString::from("/opt/x/libnvrtc.so.13"));
        let (explicit, c) = nvrtc_candidates(&env);
        assert!(explicit);
        assert_eq!(c, vec![PathBuf::from("/opt/x/libnvrtc.so.13")]);
    }

    #[test]
    fn cuda_home_comes_before_the_loader_path() {
        let env = |k: &str| (k == "CUDA_HOME").then(|| OsString::from("/opt/cuda-13"));
        let (explicit, c) = nvrtc_candidates(&env);
        assert!(!explicit);
        assert_eq!(c[0], PathBuf::from("/opt/cuda-13/lib64/libnvrtc.so.13"));
        assert_eq!(c.last().unwrap(), &PathBuf::from("libnvrtc.so"));
        assert!(c.iter().any(|p| p.starts_with("/usr/local/cuda/lib64")));
    }

    #[test]
    fn pip_wheel_folders_are_searched_under_home() {
        let home = std::env::temp_dir().join(format!("xp-cuda-home-{}", std::process::id()));
        let lib = home.join(".pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/lib");
        std::fs::create_dir_all(&lib).unwrap();
        let h = home.clone().into_os_string();
        let env = move |k: &str| (k == "HOME").then(|| h.clone());
        let (_, c) = nvrtc_candidates(&env);
        std::fs::remove_dir_all(&home).unwrap();
        assert!(c.contains(&lib.join("libnvrtc.so.13")), "{c:?}");
    }

    #[test]
    fn cufft_is_searched_in_the_toolkit_then_the_wheels_then_the_loader_path() {
        let env = |k: &str| (k == "CUDA_HOME").then(|| OsString::from("/opt/cuda-13"));
        let (explicit, c) = cufft_candidates(&env);
        assert!(!explicit);
        assert_eq!(c[0], PathBuf::from("/opt/cuda-13/lib64/libcufft.so.12"));
        assert_eq!(c[1], PathBuf::from("/opt/cuda-13/lib64/libcufft.so.11"));
        let tail: Vec<PathBuf> = CUFFT_FILES.iter().map(PathBuf::from).collect();
        assert_eq!(c[c.len() - 3..], tail[..]);
        assert!(c.contains(&PathBuf::from("/usr/local/cuda/lib64/libcufft.so.12")));
    }

    #[test]
    fn a_folder_without_cusparse_is_unavailable_naming_libcusparse() {
        let dir = std::env::temp_dir().join(format!("xp-no-cusparse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.clone().into_os_string();
        let env = move |k: &str| (k == "XP_CUSPARSE_PATH").then(|| d.clone());
        let e = find_cusparse(&env).err().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(e.contains("libcusparse") && e.contains("pip install nvidia-cusparse"), "{e}");
        let c = cusparse_companions(Path::new("/w/nvidia/cu13/lib/libcusparse.so.12"));
        assert_eq!(c[0], PathBuf::from("/w/nvidia/cu13/lib/libnvJitLink.so.13"));
    }

    #[test]
    fn nccl_is_searched_in_nccl_home_then_the_toolkit_then_the_wheel_then_the_loader_path() {
        let env = |k: &str| match k {
            "NCCL_HOME" => Some(OsString::from("/opt/nccl")),
            "CUDA_HOME" => Some(OsString::from("/opt/cuda")),
            _ => None,
        };
        let (explicit, c) = nccl_search(&env).candidates(&env);
        assert!(!explicit);
        let pos = |p: &str| c.iter().position(|x| x == Path::new(p)).unwrap_or_else(|| panic!("{p} not in {c:?}"));
        assert!(pos("/opt/nccl/lib/libnccl.so.2") < pos("/opt/cuda/lib64/libnccl.so.2"));
        assert!(pos("/opt/cuda/lib64/libnccl.so.2") < pos("libnccl.so.2"));
        assert!(pos("libnccl.so.2") < pos("libnccl.so"));
    }

    #[test]
    fn nccl_wheel_folders_are_searched_under_home() {
        let home = std::env::temp_dir().join(format!("xp-nccl-home-{}", std::process::id()));
        let lib = home.join(".local/lib/python3.12/site-packages/nvidia/nccl/lib");
        std::fs::create_dir_all(&lib).unwrap();
        let h = home.clone().into_os_string();
        let env = move |k: &str| (k == "HOME").then(|| h.clone());
        let (_, c) = nccl_search(&env).candidates(&env);
        std::fs::remove_dir_all(&home).unwrap();
        assert!(c.contains(&lib.join("libnccl.so.2")), "{c:?}");
    }

    #[test]
    fn a_bogus_xp_nccl_path_is_unavailable_naming_libnccl_and_the_wheel() {
        let env = |k: &str| (k == "XP_NCCL_PATH").then(|| OsString::from("/nonexistent/libnccl.so.2"));
        let e = xp_backend_api::gpu::nccl::load_nccl(&nccl_search(&env), &env, "NCCL").unwrap_err();
        assert!(e.contains("libnccl.so.2") && e.contains("nvidia-nccl-cu13"), "{e}");
        // A file that is no NCCL is refused too, naming what it lacks.
        let env = |k: &str| (k == "XP_NCCL_PATH").then(|| OsString::from("libc.so.6"));
        let e = xp_backend_api::gpu::nccl::load_nccl(&nccl_search(&env), &env, "NCCL").unwrap_err();
        assert!(e.contains("lacks ncclGetVersion"), "{e}");
    }

    #[test]
    fn cufft_wheel_folders_are_searched_under_home() {
        let home = std::env::temp_dir().join(format!("xp-cufft-home-{}", std::process::id()));
        let lib = home.join(".local/lib/python3.12/site-packages/nvidia/cufft/lib");
        std::fs::create_dir_all(&lib).unwrap();
        let h = home.clone().into_os_string();
        let env = move |k: &str| (k == "HOME").then(|| h.clone());
        let (_, c) = cufft_candidates(&env);
        std::fs::remove_dir_all(&home).unwrap();
        let cu13 = home.join(".local/lib/python3.12/site-packages/nvidia/cu13/lib/libcufft.so.12");
        let at = |p: &PathBuf| c.iter().position(|q| q == p);
        assert!(at(&cu13).unwrap() < at(&lib.join("libcufft.so.12")).unwrap(), "{c:?}");
    }

    #[test]
    fn a_bogus_xp_cufft_path_is_backend_unavailable_naming_libcufft() {
        let env = |k: &str| (k == "XP_CUFFT_PATH").then(|| OsString::from("/nonexistent/libcufft.so.12"));
        let reason = find_cufft(&env).err().expect("no cuFFT at a path that does not exist");
        assert!(
            reason.contains("libcufft") && reason.contains("XP_CUFFT_PATH=/nonexistent/libcufft.so.12"),
            "{reason}"
        );
        assert!(reason.contains("pip install nvidia-cufft"), "{reason}");
    }

    #[test]
    fn cublas_is_searched_in_the_toolkit_then_the_wheels_then_the_loader_path() {
        let env = |k: &str| (k == "CUDA_HOME").then(|| OsString::from("/opt/cuda-13"));
        let search = cublas_search(&env);
        let (explicit, c) = search.candidates(&env);
        assert!(!explicit);
        assert_eq!(c[0], PathBuf::from("/opt/cuda-13/lib64/libcublas.so.13"));
        let tail: Vec<PathBuf> = CUBLAS_FILES.iter().map(PathBuf::from).collect();
        assert_eq!(c[c.len() - 3..], tail[..]);
        assert!(c.contains(&PathBuf::from("/usr/local/cuda/lib64/libcublas.so.13")));
    }

    #[test]
    fn cublaslt_is_opened_from_the_folder_cublas_is_found_in() {
        let p = Path::new("/usr/local/cuda/lib64/libcublas.so.13");
        assert_eq!(cublaslt_beside(p), vec![PathBuf::from("/usr/local/cuda/lib64/libcublasLt.so.13")]);
        assert_eq!(cublaslt_beside(Path::new("/x/libcublas.so")), vec![PathBuf::from("/x/libcublasLt.so")]);
        assert!(cublaslt_beside(Path::new("libcublas.so.13")).is_empty(), "the loader finds it by name");
        assert!(cublaslt_beside(Path::new("/x/libfoo.so")).is_empty());
    }

    #[test]
    fn a_bogus_xp_cublas_path_is_backend_unavailable_naming_libcublas() {
        let env = |k: &str| (k == "XP_CUBLAS_PATH").then(|| OsString::from("/nonexistent/libcublas.so.13"));
        let reason = find_cublas(&env).err().expect("no cuBLAS at a path that does not exist");
        assert!(
            reason.contains("libcublas") && reason.contains("XP_CUBLAS_PATH=/nonexistent/libcublas.so.13"),
            "{reason}"
        );
        assert!(reason.contains("pip install nvidia-cublas"), "{reason}");
    }

    #[test]
    fn cusolver_is_searched_like_cublas_and_opens_its_companions_from_its_folder() {
        let env = |k: &str| (k == "CUDA_HOME").then(|| OsString::from("/opt/cuda-13"));
        let (explicit, c) = cusolver_search(&env).candidates(&env);
        assert!(!explicit);
        assert_eq!(c[0], PathBuf::from("/opt/cuda-13/lib64/libcusolver.so.12"));
        let tail: Vec<PathBuf> = CUSOLVER_FILES.iter().map(PathBuf::from).collect();
        assert_eq!(c[c.len() - 3..], tail[..]);
        let comp = cusolver_companions(Path::new("/w/nvidia/cu13/lib/libcusolver.so.12"));
        assert!(comp.contains(&PathBuf::from("/w/nvidia/cu13/lib/libnvJitLink.so.13")), "{comp:?}");
        assert!(comp.contains(&PathBuf::from("/w/nvidia/cu13/lib/libcusparse.so.12")), "{comp:?}");
        assert!(cusolver_companions(Path::new("libcusolver.so.12")).is_empty());
    }

    #[test]
    fn a_folder_without_cusolver_is_backend_unavailable_naming_libcusolver() {
        let dir = std::env::temp_dir().join(format!("xp-no-cusolver-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.clone().into_os_string();
        let env = move |k: &str| (k == "XP_CUSOLVER_PATH").then(|| d.clone());
        let reason = find_cusolver(&env).err().expect("no cuSOLVER in an empty folder");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(reason.contains("libcusolver") && reason.contains("XP_CUSOLVER_PATH"), "{reason}");
        assert!(reason.contains("pip install nvidia-cusolver"), "{reason}");
    }
}
