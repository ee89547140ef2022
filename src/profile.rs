//! Profiling helpers, as `cupyx.profiler`: [`benchmark`] times a function on the host and on
//! the device; [`range`] and [`mark`] annotate the timeline of NVIDIA's profilers (Nsight
//! Systems) through NVTX.
//!
//! # NVTX
//! NVTX 3 is a header-only API whose calls do nothing until a profiler injects itself; xp has
//! no C headers to compile, so it calls the NVTX entry points (`nvtxRangePushA`,
//! `nvtxRangePop`, `nvtxMarkA`) of a shared library opened at run time. CUDA 13 no longer
//! ships `libnvToolsExt` (NVTX 2, which cudarc's `nvtx` feature wants); it ships
//! `libnvtx3interop`, which exports the same entry points. The library is looked for, once
//! per process, by the search every backend shares (`xp_backend_api::library`, two entries of
//! its table: [`nvtx_candidates`] lists the order):
//! 1. `XP_NVTX_PATH`: the library file or its folder (when set, nothing else is tried);
//! 2. `libnvtx3interop.so.1`, `libnvtx3interop.so` on the loader path;
//! 3. `$CUDA_HOME/lib64`, `$CUDA_PATH/lib64` (and their `lib`), `/usr/local/cuda/lib64`;
//! 4. the pip wheels' `nvidia/*/lib` (`nvidia/nvtx/lib`, `nvidia/cu13/lib`, …) in the
//!    site-packages of `$VIRTUAL_ENV`, `$CONDA_PREFIX`, `/usr/local/lib/python3*`,
//!    `/usr/lib/python3*`, `~/.local/lib/python3*` and `~/.pyenv/versions/*/lib/python3*`;
//! 5. the same places for `libnvToolsExt.so.1` (toolkits before CUDA 12.9).
//!
//! A library that lacks one of the three entry points is passed over. When none is found,
//! [`range`] and [`mark`] do nothing and never fail: profiling annotations must not change
//! what a program does. [`nvtx_library`] says which library is in use.

use std::ffi::{c_char, c_int, CString, OsString};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;
use xp_backend_api::library::{is_bare_name, Folders, Opening, VendorLibrary};

pub use crate::benchmark::{benchmark, benchmark_named, BenchmarkResult};

type RangePush = unsafe extern "C" fn(*const c_char) -> c_int;
type RangePop = unsafe extern "C" fn() -> c_int;
type Mark = unsafe extern "C" fn(*const c_char);

/// The NVTX entry points, from one library kept open for the life of the process.
struct Nvtx {
    push: RangePush,
    pop: RangePop,
    mark: Mark,
    path: PathBuf,
    _lib: Library,
}

/// NVTX 3's interop library, looked for in the toolkit and in every wheel of the `nvidia`
/// namespace (`nvidia/nvtx/lib`, `nvidia/cu13/lib`, …). Opened by [`load`], which passes over a
/// library lacking an entry point; none found is no error, so the hint is never shown.
const NVTX3: VendorLibrary = VendorLibrary {
    what: "NVTX 3 (libnvtx3interop)",
    env_var: "XP_NVTX_PATH",
    files: &["libnvtx3interop.so.1", "libnvtx3interop.so"],
    folders: &[Folders::CudaToolkit, Folders::PipWheels(&["nvidia/*/lib"])],
    hint: "install it with `pip install nvidia-nvtx` (or the CUDA toolkit)",
    opening: Opening::LOCAL,
};

/// NVTX 2 (toolkits before CUDA 12.9), in the same places.
const NVTX2: VendorLibrary =
    VendorLibrary { what: "NVTX 2 (libnvToolsExt)", files: &["libnvToolsExt.so.1", "libnvToolsExt.so"], ..NVTX3 };

/// Where NVTX is looked for, in order, given the environment as a lookup function: for NVTX 3,
/// then NVTX 2, the loader path first, then the folders (or what `XP_NVTX_PATH` names alone).
///
/// Bare file names are opened through the loader path; the others are full paths.
pub fn nvtx_candidates(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for library in [NVTX3, NVTX2] {
        let (explicit, candidates) = library.search(env).candidates(env);
        let (names, paths): (Vec<PathBuf>, Vec<PathBuf>) =
            candidates.into_iter().partition(|p| !explicit && is_bare_name(p));
        out.extend(names);
        out.extend(paths);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

fn load(path: &Path) -> Option<Nvtx> {
    if !is_bare_name(path) && !path.exists() {
        return None;
    }
    // SAFETY: a file named like NVTX's library, in a folder where NVIDIA installs it or found
    // by the loader under that name; its initialisers are NVTX's, which only set up its state.
    let lib = unsafe { Library::new(path) }.ok()?;
    // SAFETY: the types are the C signatures of these NVTX functions (nvToolsExt.h:
    // `int nvtxRangePushA(const char*)`, `int nvtxRangePop(void)`, `void nvtxMarkA(const
    // char*)`); the pointers are kept beside `lib`, which stays open as long as they do.
    let (push, pop, mark) = unsafe {
        let push = *lib.get::<RangePush>(b"nvtxRangePushA\0").ok()?;
        let pop = *lib.get::<RangePop>(b"nvtxRangePop\0").ok()?;
        let mark = *lib.get::<Mark>(b"nvtxMarkA\0").ok()?;
        (push, pop, mark)
    };
    Some(Nvtx { push, pop, mark, path: path.to_path_buf(), _lib: lib })
}

fn nvtx() -> Option<&'static Nvtx> {
    static NVTX: OnceLock<Option<Nvtx>> = OnceLock::new();
    NVTX.get_or_init(|| nvtx_candidates(&|k| std::env::var_os(k)).iter().find_map(|p| load(p))).as_ref()
}

/// The NVTX library in use, or `None` when none was found (ranges and marks are no-ops).
pub fn nvtx_library() -> Option<&'static Path> {
    nvtx().map(|n| n.path.as_path())
}

/// `name` as a C string: cut at an interior NUL rather than fail.
fn c_name(name: &str) -> CString {
    let end = name.find('\0').unwrap_or(name.len());
    CString::new(&name[..end]).unwrap_or_default()
}

/// An open NVTX range; the range ends when this is dropped. Ranges nest per thread, so the
/// guard stays on the thread that opened it (it is not `Send`).
#[must_use = "the range ends when the guard is dropped"]
pub struct RangeGuard {
    pushed: bool,
    _not_send: PhantomData<*const ()>,
}

impl RangeGuard {
    /// Whether the range reached an NVTX library (false when none was found).
    pub fn is_recorded(&self) -> bool {
        self.pushed
    }
}

impl Drop for RangeGuard {
    fn drop(&mut self) {
        if let (true, Some(n)) = (self.pushed, nvtx()) {
            // SAFETY: pops the range this guard pushed on this thread (the guard is not Send).
            unsafe { (n.pop)() };
        }
    }
}

/// Open an NVTX range called `name` on this thread, as `cupyx.profiler.time_range`; it ends
/// when the returned guard is dropped. A no-op when no NVTX library is found.
///
/// ```
/// {
///     let _r = xp::profile::range("normalise");
///     // … work shown as one range in Nsight Systems …
/// }
/// ```
pub fn range(name: &str) -> RangeGuard {
    let pushed = match nvtx() {
        Some(n) => {
            let c = c_name(name);
            // SAFETY: `c` is a NUL-terminated string that outlives the call (NVTX copies it).
            unsafe { (n.push)(c.as_ptr()) };
            true
        }
        None => false,
    };
    RangeGuard { pushed, _not_send: PhantomData }
}

/// Put an instant marker called `name` on the timeline. A no-op when no NVTX library is found.
pub fn mark(name: &str) {
    if let Some(n) = nvtx() {
        let c = c_name(name);
        // SAFETY: `c` is a NUL-terminated string that outlives the call (NVTX copies it).
        unsafe { (n.mark)(c.as_ptr()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: Vec<(&'static str, OsString)>) -> impl Fn(&str) -> Option<OsString> {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_nvtx3_interop_library_comes_first_and_nvtoolsext_last() {
        let c = nvtx_candidates(&env_of(vec![]));
        assert_eq!(c[0], PathBuf::from("libnvtx3interop.so.1"));
        assert_eq!(c[1], PathBuf::from("libnvtx3interop.so"));
        assert!(c.contains(&PathBuf::from("/usr/local/cuda/lib64/libnvtx3interop.so.1")), "{c:?}");
        let first_v2 = c.iter().position(|p| p.to_string_lossy().contains("nvToolsExt")).unwrap();
        assert!(c[first_v2..].iter().all(|p| p.to_string_lossy().contains("nvToolsExt")), "{c:?}");
        assert!(c.contains(&PathBuf::from("/usr/local/cuda/lib64/libnvToolsExt.so.1")), "{c:?}");
    }

    #[test]
    fn cuda_home_comes_before_usr_local_cuda() {
        let c = nvtx_candidates(&env_of(vec![("CUDA_HOME", "/opt/cuda-13".into())]));
        let home = c.iter().position(|p| p == Path::new("/opt/cuda-13/lib64/libnvtx3interop.so.1")).unwrap();
        let usr = c.iter().position(|p| p == Path::new("/usr/local/cuda/lib64/libnvtx3interop.so.1")).unwrap();
        assert!(home < usr, "{c:?}");
    }

    #[test]
    fn xp_nvtx_path_is_the_only_candidate() {
        let c = nvtx_candidates(&env_of(vec![("XP_NVTX_PATH", "/opt/x/libnvtx3interop.so.1".into())]));
        assert_eq!(c, vec![PathBuf::from("/opt/x/libnvtx3interop.so.1")]);
    }

    #[test]
    fn every_nvidia_wheel_folder_of_a_virtual_env_is_searched() {
        let root = std::env::temp_dir().join(format!("xp-nvtx-venv-{}", std::process::id()));
        let site = root.join("lib/python3.12/site-packages/nvidia");
        std::fs::create_dir_all(site.join("nvtx/lib")).unwrap();
        std::fs::create_dir_all(site.join("cu13/lib")).unwrap();
        let c = nvtx_candidates(&env_of(vec![("VIRTUAL_ENV", root.clone().into_os_string())]));
        std::fs::remove_dir_all(&root).unwrap();
        assert!(c.contains(&site.join("nvtx/lib/libnvtx3interop.so.1")), "{c:?}");
        assert!(c.contains(&site.join("cu13/lib/libnvtx3interop.so.1")), "{c:?}");
    }

    #[test]
    fn a_library_without_the_entry_points_is_passed_over() {
        assert!(load(Path::new("/nonexistent/libnvtx3interop.so.1")).is_none());
        // libc opens but exports no NVTX function.
        assert!(load(Path::new("libc.so.6")).is_none());
    }

    #[test]
    fn names_with_a_nul_are_cut_not_refused() {
        assert_eq!(c_name("a\0b").as_bytes(), b"a");
        assert_eq!(c_name("plain").as_bytes(), b"plain");
    }
}
