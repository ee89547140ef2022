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
//! # NVRTC (`libnvrtc.so.13`) and cuFFT (`libcufft.so.12`)
//! Both are found by one search (`xp_backend_api::LibrarySearch`), in this order:
//! 1. `XP_NVRTC_PATH` / `XP_CUFFT_PATH`: the library file, or a folder holding it (when set,
//!    nothing else is tried);
//! 2. `$CUDA_HOME/lib64`, `$CUDA_PATH/lib64`, `/usr/local/cuda/lib64`;
//! 3. NVIDIA's pip wheels (`nvidia/cu13/lib`, then `nvidia/cuda_nvrtc/lib` or
//!    `nvidia/cufft/lib`) in the site-packages of `$VIRTUAL_ENV`, `$CONDA_PREFIX`,
//!    `/usr/local/lib/python3*`, `/usr/lib/python3*`, `~/.local/lib/python3*` and
//!    `~/.pyenv/versions/*/lib/python3*`, and `$CONDA_PREFIX/lib`;
//! 4. the loader path (`LD_LIBRARY_PATH`, the `ldconfig` cache).
//!
//! File names, newest first: `libnvrtc.so.13`, `.so.12`, `.so`; `libcufft.so.12` (CUDA 13's
//! cuFFT is version 12), `.so.11`, `.so`.
//!
//! NVRTC is opened by its full path and called through the table in [`Nvrtc`], so the library
//! used is the one found. cuFFT is called through cudarc's `cufft` bindings, whose loader opens
//! it by bare name and panics when none opens: xp opens the file found by its full path with
//! `RTLD_GLOBAL` first, so that cudarc's `dlopen("libcufft.so.12")` is answered with it (glibc
//! matches loaded libraries by their `SONAME`), and checks `is_culib_present` before any call.
//!
//! In a folder, `libnvrtc-builtins.so.*` of the same version is opened first (by full path,
//! `RTLD_GLOBAL`), because `libnvrtc` opens it by name when it compiles.

use std::ffi::{c_char, c_int, c_void, OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;
use xp_backend_api::library::is_bare_name;
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

/// NVRTC's file names, newest first.
const NVRTC_FILES: &[&str] = &["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"];

fn unavailable(reason: impl Into<String>) -> Error {
    Error::BackendUnavailable { backend: "cuda".into(), reason: reason.into() }
}

/// Open `path` with `RTLD_NOW | RTLD_GLOBAL`, so that later `dlopen`s by name find it.
///
/// # Safety
/// Opening a library runs its initialisers; `path` must be a library whose initialisers are
/// sound to run (a vendor library found by the searches of this module).
unsafe fn open_global(path: &Path) -> std::result::Result<Library, libloading::Error> {
    #[cfg(unix)]
    {
        use libloading::os::unix::{Library as UnixLibrary, RTLD_GLOBAL, RTLD_NOW};
        // SAFETY: the caller vouches for the library's initialisers.
        unsafe { UnixLibrary::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }.map(Library::from)
    }
    #[cfg(not(unix))]
    {
        // SAFETY: the caller vouches for the library's initialisers.
        unsafe { Library::new(path) }
    }
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
            match unsafe { open_global(&path) } {
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
    // Keep the libraries open for as long as the table exists (forever: it is a static).
    _builtins: Option<Library>,
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

/// The folders of a CUDA library from the toolkit or NVIDIA's pip wheels, given the
/// environment as a lookup function (for tests): `$CUDA_HOME` and `$CUDA_PATH` (`lib64`, `lib`),
/// `/usr/local/cuda/lib64`, the `wheel_dirs` (`nvidia/cu13/lib`, …) under every Python
/// site-packages found, then `$CONDA_PREFIX/lib`.
fn cuda_library_dirs(env: &dyn Fn(&str) -> Option<OsString>, wheel_dirs: &[&str]) -> Vec<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty());
    let mut dirs: Vec<PathBuf> = Vec::new();
    for k in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(v) = set(k) {
            dirs.push(Path::new(&v).join("lib64"));
            dirs.push(Path::new(&v).join("lib"));
        }
    }
    dirs.push("/usr/local/cuda/lib64".into());
    let mut site: Vec<PathBuf> = Vec::new();
    for k in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(v) = set(k) {
            site.extend(python_site_dirs(&Path::new(&v).join("lib")));
        }
    }
    site.extend(python_site_dirs(Path::new("/usr/local/lib")));
    site.extend(python_site_dirs(Path::new("/usr/lib")));
    if let Some(home) = set("HOME") {
        let home = PathBuf::from(home);
        site.extend(python_site_dirs(&home.join(".local/lib")));
        for version in sorted_entries(&home.join(".pyenv/versions"), |_| true) {
            site.extend(python_site_dirs(&version.join("lib")));
        }
    }
    for s in site {
        dirs.extend(wheel_dirs.iter().map(|w| s.join(w)));
    }
    if let Some(v) = set("CONDA_PREFIX") {
        dirs.push(Path::new(&v).join("lib"));
    }
    dirs
}

/// Where NVRTC is looked for.
fn nvrtc_search(env: &dyn Fn(&str) -> Option<OsString>) -> LibrarySearch {
    LibrarySearch {
        what: "NVRTC (libnvrtc.so.13, the CUDA runtime compiler)".into(),
        env_var: "XP_NVRTC_PATH".into(),
        files: NVRTC_FILES.iter().map(|f| f.to_string()).collect(),
        dirs: cuda_library_dirs(env, &["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"]),
        hint: "install it with `pip install nvidia-cuda-nvrtc` (or the CUDA toolkit)".into(),
    }
}

/// Where to look for NVRTC, given the environment as a lookup function (for tests).
/// The first element tells whether the list came from `XP_NVRTC_PATH` alone.
#[cfg(test)]
fn nvrtc_candidates(env: &dyn Fn(&str) -> Option<OsString>) -> (bool, Vec<PathBuf>) {
    nvrtc_search(env).candidates(env)
}

/// Entries of `dir` whose names pass `keep`, newest-looking first (reverse name order).
fn sorted_entries(dir: &Path, keep: impl Fn(&OsStr) -> bool) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut v: Vec<PathBuf> = rd.flatten().filter(|e| keep(&e.file_name())).map(|e| e.path()).collect();
    v.sort();
    v.reverse();
    v
}

/// `lib/python3*/{site,dist}-packages` under `lib`.
fn python_site_dirs(lib: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for py in sorted_entries(lib, |n| n.to_string_lossy().starts_with("python3")) {
        out.push(py.join("site-packages"));
        out.push(py.join("dist-packages"));
    }
    out
}

fn load_nvrtc_at(path: &Path) -> std::result::Result<Nvrtc, String> {
    let by_name = is_bare_name(path);
    let mut builtins = None;
    if !by_name {
        let dir = path.parent().expect("checked above");
        let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        // libnvrtc.so.13 goes with libnvrtc-builtins.so.13.*; a bare libnvrtc.so with any.
        let prefix = match file.strip_prefix("libnvrtc.so.") {
            Some(major) => format!("libnvrtc-builtins.so.{major}."),
            None => "libnvrtc-builtins.so.".to_string(),
        };
        let found = sorted_entries(dir, |n| {
            let n = n.to_string_lossy();
            n.starts_with(&prefix) && !n.contains(".alt.")
        });
        if let Some(b) = found.first() {
            // SAFETY: NVRTC's builtins library, beside NVRTC itself.
            builtins = Some(unsafe { open_global(b) }.map_err(|e| format!("{}: {e}", b.display()))?);
        }
    }
    // SAFETY: a file named like NVRTC, in a folder where NVRTC is installed (or found by the
    // loader under NVRTC's name); its initialisers are NVRTC's.
    let lib = unsafe { open_global(path) }.map_err(|e| format!("{}: {e}", path.display()))?;
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
        _builtins: builtins,
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
    nvrtc_search(&env).open_first(&env, load_nvrtc_at).map(|(n, _)| n)
}

/// NVRTC, found once per process.
pub(crate) fn nvrtc() -> Result<&'static Nvrtc> {
    static NVRTC: OnceLock<std::result::Result<Nvrtc, String>> = OnceLock::new();
    NVRTC.get_or_init(find_nvrtc).as_ref().map_err(|r| unavailable(r.clone()))
}

/// cuFFT's file names, newest first (CUDA 13 ships cuFFT 12 as `libcufft.so.12`).
const CUFFT_FILES: &[&str] = &["libcufft.so.12", "libcufft.so.11", "libcufft.so"];

/// Where cuFFT is looked for.
fn cufft_search(env: &dyn Fn(&str) -> Option<OsString>) -> LibrarySearch {
    LibrarySearch {
        what: "cuFFT (libcufft, the CUDA FFT library)".into(),
        env_var: "XP_CUFFT_PATH".into(),
        files: CUFFT_FILES.iter().map(|f| f.to_string()).collect(),
        dirs: cuda_library_dirs(env, &["nvidia/cu13/lib", "nvidia/cufft/lib"]),
        hint: "install it with `pip install nvidia-cufft` (or the CUDA toolkit)".into(),
    }
}

/// Where to look for cuFFT, given the environment as a lookup function (for tests).
#[cfg(test)]
fn cufft_candidates(env: &dyn Fn(&str) -> Option<OsString>) -> (bool, Vec<PathBuf>) {
    cufft_search(env).candidates(env)
}

/// cuFFT, opened so that cudarc's `cufft` bindings find it.
pub(crate) struct CufftLibrary {
    /// Where it was found; when another copy on the loader path answers cudarc's names first,
    /// that is said too.
    pub(crate) path: String,
    // Keeps the library loaded for the process (a static), under its soname.
    _lib: Library,
}

/// Find cuFFT and open it by its full path with `RTLD_GLOBAL`; then cudarc's loader, which
/// opens `libcufft.so.12` and its other candidate names by bare name, is answered with the
/// library already loaded (glibc matches loaded libraries by their `SONAME`).
fn find_cufft(env: &dyn Fn(&str) -> Option<OsString>) -> std::result::Result<CufftLibrary, String> {
    let search = cufft_search(env);
    // SAFETY: the candidates are files named like cuFFT in the folders where cuFFT is
    // installed (or found by the loader under cuFFT's names); their initialisers are cuFFT's.
    let (lib, path) =
        search.open_first(env, |p| unsafe { open_global(p) }.map_err(|e| format!("{}: {e}", p.display())))?;
    // SAFETY: `is_culib_present` only tries to open cudarc's candidate names.
    if !unsafe { cudarc::cufft::sys::is_culib_present() } {
        return Err(format!(
            "cuFFT was opened from {} but cudarc's loader does not find it by name ({}); set LD_LIBRARY_PATH \
             to its folder",
            path.display(),
            cudarc::get_lib_name_candidates("cufft").join(", ")
        ));
    }
    let mut shown = path.display().to_string();
    // SAFETY: cuFFT is present by cudarc's names (checked just above), so `culib` does not
    // panic; the symbols are only compared, never called through these types.
    let same = unsafe {
        let ours = lib.get::<*const c_void>(b"cufftGetVersion\0").map(|s| *s);
        let theirs = cudarc::cufft::sys::culib().get::<*const c_void>(b"cufftGetVersion\0").map(|s| *s);
        matches!((ours, theirs), (Ok(a), Ok(b)) if a == b)
    };
    if !same {
        shown.push_str(" (found, but another cuFFT on the loader path answers first and is the one used)");
    }
    Ok(CufftLibrary { path: shown, _lib: lib })
}

/// cuFFT, found once per process. Until this returns `Ok`, no function of `cudarc::cufft`
/// may be called (its loader would panic).
pub(crate) fn cufft() -> Result<&'static CufftLibrary> {
    static CUFFT: OnceLock<std::result::Result<CufftLibrary, String>> = OnceLock::new();
    CUFFT.get_or_init(|| find_cufft(&|k| std::env::var_os(k))).as_ref().map_err(|r| unavailable(r.clone()))
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
}
