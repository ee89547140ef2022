//! Finding and opening a vendor library at run time: one search and one loader, whatever the
//! library (NVRTC, cuFFT, hipFFT, NVTX, …), so every backend looks in the same kind of places, in
//! the same order, opens the file the same way, and says the same things when it is missing.
//!
//! A library is declared as data, a [`VendorLibrary`] (its name in prose, the environment
//! variable that overrides the search, its file names newest first, the [`Folders`] families to
//! look in, how to install it, and how to open it); each backend keeps a short table of them.
//! [`VendorLibrary::search`] turns an entry into a [`LibrarySearch`]: the library's name, the
//! variable (`XP_CUFFT_PATH`), its file names and the folders to look in before the loader's own
//! path. The candidates are, in order:
//! 1. when the variable is set: the file it names, or each file name in the folder it names,
//!    and nothing else;
//! 2. each file name in each folder, in the order given;
//! 3. each bare file name, which the dynamic loader looks up (`LD_LIBRARY_PATH`, the `ldconfig`
//!    cache).
//!
//! [`LibrarySearch::load`] opens the first candidate that loads (with `libloading`, after the
//! libraries it needs beside it, `RTLD_GLOBAL` where others will look it up by name) and that
//! the caller accepts, turning it into the table of entry points xp calls: a [`LoadedLibrary`].
//! [`LibrarySearch::open_first`] is the same walk with the opening left to the caller.
//!
//! A library's handles (a rocBLAS handle, a hipFFT plan) are owned by a [`VendorHandle`], which
//! destroys them once when dropped.

mod folders;
mod handle;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use libloading::Library;

pub use folders::{library_dirs, sorted_entries, Folders};
pub use handle::VendorHandle;

/// Where to look for one library, and what to say when it is not found.
#[derive(Debug, Clone)]
pub struct LibrarySearch {
    /// The library in prose: `cuFFT (libcufft)`.
    pub what: String,
    /// The variable naming the library file or its folder: `XP_CUFFT_PATH`.
    pub env_var: String,
    /// File names, newest first: `libcufft.so.12`, `libcufft.so.11`, `libcufft.so`.
    pub files: Vec<String>,
    /// Folders searched before the loader path, in order.
    pub dirs: Vec<PathBuf>,
    /// How to install the library, appended to the error: `pip install nvidia-cufft`.
    pub hint: String,
}

/// The outcome of a search that found nothing: the reason, naming every place tried.
pub type NotFound = String;

impl LibrarySearch {
    /// The candidates in order, given the environment as a lookup function (for tests). The
    /// first element tells whether they come from the variable alone.
    pub fn candidates(&self, env: &dyn Fn(&str) -> Option<OsString>) -> (bool, Vec<PathBuf>) {
        if let Some(p) = env(&self.env_var).filter(|v| !v.is_empty()) {
            let p = PathBuf::from(p);
            if p.is_dir() {
                return (true, self.files.iter().map(|f| p.join(f)).collect());
            }
            return (true, vec![p]);
        }
        let mut out: Vec<PathBuf> = Vec::new();
        for d in &self.dirs {
            for f in &self.files {
                let p = d.join(f);
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out.extend(self.files.iter().map(PathBuf::from));
        (false, out)
    }

    /// Open the first candidate that `open` accepts, and return it with its path. Paths of
    /// folders that do not exist are skipped; a bare name the loader does not find is not a
    /// failure worth reporting. Every other failure is kept for the error, which names the
    /// library, the places tried, the failures and the hint.
    pub fn open_first<L>(
        &self,
        env: &dyn Fn(&str) -> Option<OsString>,
        mut open: impl FnMut(&Path) -> std::result::Result<L, String>,
    ) -> std::result::Result<(L, PathBuf), NotFound> {
        let (explicit, candidates) = self.candidates(env);
        let mut failures = Vec::new();
        for c in &candidates {
            let by_name = is_bare_name(c);
            if !by_name && !c.exists() {
                continue;
            }
            match open(c) {
                Ok(l) => return Ok((l, c.clone())),
                Err(e) if by_name && e.contains("cannot open shared object file") => {}
                Err(e) => failures.push(e),
            }
        }
        let mut reason = if explicit {
            let value = env(&self.env_var).unwrap_or_default();
            format!("{} not found at {}={}", self.what, self.env_var, Path::new(&value).display())
        } else {
            let dirs: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
            format!(
                "{} not found: tried {} in {}, then on the loader path (LD_LIBRARY_PATH, ldconfig)",
                self.what,
                self.files.join(", "),
                if dirs.is_empty() { "no folder".to_string() } else { dirs.join(", ") }
            )
        };
        if !failures.is_empty() {
            reason.push_str(&format!(" ({})", failures.join("; ")));
        }
        reason.push_str(&format!("; {}, or set {} to the library or its folder", self.hint, self.env_var));
        Err(reason)
    }

    /// Open the first candidate that opens (its companions first, then the file itself, as
    /// `opening` says) and that `accept` turns into a table of entry points, or says why it is
    /// no usable library (a missing function). Failures are reported as by
    /// [`open_first`](Self::open_first): a file that does not open as `{path}: {loader's
    /// message}`, a refused one with `accept`'s reason.
    ///
    /// # Safety
    /// The candidates of this search (and their companions) must be files of the library it
    /// names, whose initialisers are sound to run: a search built from a [`VendorLibrary`]
    /// entry, whose variable names such a file or folder.
    pub unsafe fn load<T>(
        &self,
        env: &dyn Fn(&str) -> Option<OsString>,
        opening: Opening,
        mut accept: impl FnMut(OpenedFile<'_>) -> std::result::Result<T, String>,
    ) -> std::result::Result<LoadedLibrary<T>, NotFound> {
        let open = |path: &Path| {
            // SAFETY: the caller vouches for the candidates and their companions.
            let open_one =
                |p: &Path| unsafe { open_library(p, opening.global) }.map_err(|e| format!("{}: {e}", p.display()));
            let mut companions = Vec::new();
            for c in opening.companions.map_or_else(Vec::new, |f| f(path)).into_iter().filter(|c| c.exists()) {
                companions.push(open_one(&c)?);
            }
            let library = open_one(path)?;
            accept(OpenedFile { path, library, companions })
        };
        let (api, path) = self.open_first(env, open)?;
        Ok(LoadedLibrary { api, path })
    }
}

/// Whether `path` is a bare file name, for the dynamic loader to look up.
pub fn is_bare_name(path: &Path) -> bool {
    path.parent().is_none_or(|p| p.as_os_str().is_empty())
}

/// One vendor library, as data: what to call it, where to look for it, how to open it and
/// what to say when it is missing. Each backend keeps a table of these (a `const` each).
#[derive(Debug, Clone, Copy)]
pub struct VendorLibrary {
    /// The library in prose, for messages: `cuFFT (libcufft, the CUDA FFT library)`.
    pub what: &'static str,
    /// The variable naming the library file or its folder: `XP_CUFFT_PATH`.
    pub env_var: &'static str,
    /// File names, newest first: `libcufft.so.12`, `libcufft.so.11`, `libcufft.so`.
    pub files: &'static [&'static str],
    /// The folders searched before the loader path, family by family.
    pub folders: &'static [Folders],
    /// How to install the library, appended to the error: ``install it with `pip install
    /// nvidia-cufft` (or the CUDA toolkit)``.
    pub hint: &'static str,
    /// How a candidate is opened.
    pub opening: Opening,
}

impl VendorLibrary {
    /// The search for this library, its folders read from the environment given as a lookup
    /// function (for tests).
    pub fn search(&self, env: &dyn Fn(&str) -> Option<OsString>) -> LibrarySearch {
        LibrarySearch {
            what: self.what.into(),
            env_var: self.env_var.into(),
            files: self.files.iter().map(|f| f.to_string()).collect(),
            dirs: library_dirs(self.folders, env),
            hint: self.hint.into(),
        }
    }

    /// Search for the library and open it: [`LibrarySearch::load`] with this entry's
    /// [`Opening`].
    ///
    /// # Safety
    /// As [`LibrarySearch::load`]: the entry names a vendor library (and its companions) whose
    /// initialisers are sound to run.
    pub unsafe fn open<T>(
        &self,
        env: &dyn Fn(&str) -> Option<OsString>,
        accept: impl FnMut(OpenedFile<'_>) -> std::result::Result<T, String>,
    ) -> std::result::Result<LoadedLibrary<T>, NotFound> {
        // SAFETY: the caller vouches for the library this entry names.
        unsafe { self.search(env).load(env, self.opening, accept) }
    }
}

/// How a candidate file is opened.
#[derive(Debug, Clone, Copy)]
pub struct Opening {
    /// Open with `RTLD_NOW | RTLD_GLOBAL` (else `libloading`'s default, `RTLD_LAZY |
    /// RTLD_LOCAL`), so that a later `dlopen` of one of its names is answered with the file
    /// found (glibc matches loaded libraries by their `SONAME`): for libraries that another
    /// loader opens by name (cudarc's), or that open each other by name.
    pub global: bool,
    /// The libraries to open first, the same way, given the candidate's path: those it opens by
    /// name from its own folder (cuBLASLt beside cuBLAS). Those that do not exist are skipped.
    pub companions: Option<fn(&Path) -> Vec<PathBuf>>,
}

impl Opening {
    /// `libloading`'s default, no companions.
    pub const LOCAL: Opening = Opening { global: false, companions: None };
    /// `RTLD_GLOBAL`, no companions.
    pub const GLOBAL: Opening = Opening { global: true, companions: None };

    /// `RTLD_GLOBAL`, after the companions `companions` names.
    pub const fn global_after(companions: fn(&Path) -> Vec<PathBuf>) -> Opening {
        Opening { global: true, companions: Some(companions) }
    }
}

/// A candidate that opened, before the caller accepts it.
pub struct OpenedFile<'p> {
    /// Where it was found.
    pub path: &'p Path,
    /// The library.
    pub library: Library,
    /// The companions opened before it, in order; to be kept open as long as the library is.
    pub companions: Vec<Library>,
}

/// A vendor library opened from where its search found it: the table of entry points xp calls,
/// which keeps the library open, and the path.
pub struct LoadedLibrary<T> {
    /// The entry points (and whatever keeps them valid).
    pub api: T,
    /// Where the library was found.
    pub path: PathBuf,
}

impl<T> std::fmt::Debug for LoadedLibrary<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedLibrary").field("path", &self.path).finish()
    }
}

/// Open `path` with `libloading`: with `RTLD_NOW | RTLD_GLOBAL` when `global` (on Unix), else
/// with `libloading`'s default.
///
/// # Safety
/// Opening a library runs its initialisers: `path` must name a library whose initialisers are
/// sound to run (a vendor library found by a search, its companions, a driver).
pub unsafe fn open_library(path: &Path, global: bool) -> std::result::Result<Library, libloading::Error> {
    #[cfg(unix)]
    if global {
        use libloading::os::unix::{Library as UnixLibrary, RTLD_GLOBAL, RTLD_NOW};
        // SAFETY: the caller vouches for the library's initialisers.
        return unsafe { UnixLibrary::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }.map(Library::from);
    }
    #[cfg(not(unix))]
    let _ = global;
    // SAFETY: the caller vouches for the library's initialisers.
    unsafe { Library::new(path) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(dirs: &[&str]) -> LibrarySearch {
        LibrarySearch {
            what: "libfoo".into(),
            env_var: "XP_FOO_PATH".into(),
            files: vec!["libfoo.so.2".into(), "libfoo.so".into()],
            dirs: dirs.iter().map(PathBuf::from).collect(),
            hint: "install foo".into(),
        }
    }

    #[test]
    fn folders_in_order_then_bare_names() {
        let (explicit, c) = search(&["/a", "/b"]).candidates(&|_| None);
        assert!(!explicit);
        let want: Vec<PathBuf> =
            ["/a/libfoo.so.2", "/a/libfoo.so", "/b/libfoo.so.2", "/b/libfoo.so", "libfoo.so.2", "libfoo.so"]
                .iter()
                .map(PathBuf::from)
                .collect();
        assert_eq!(c, want);
    }

    #[test]
    fn the_variable_alone_when_set() {
        let env = |k: &str| (k == "XP_FOO_PATH").then(|| OsString::from("/opt/foo/libfoo.so.2"));
        let (explicit, c) = search(&["/a"]).candidates(&env);
        assert!(explicit);
        assert_eq!(c, vec![PathBuf::from("/opt/foo/libfoo.so.2")]);
        let dir = std::env::temp_dir();
        let d = dir.clone().into_os_string();
        let env = move |k: &str| (k == "XP_FOO_PATH").then(|| d.clone());
        let (_, c) = search(&["/a"]).candidates(&env);
        assert_eq!(c, vec![dir.join("libfoo.so.2"), dir.join("libfoo.so")]);
    }

    #[test]
    fn not_found_names_the_library_the_places_and_the_hint() {
        let env = |k: &str| (k == "XP_FOO_PATH").then(|| OsString::from("/nonexistent/libfoo.so.2"));
        let r = search(&[]).open_first(&env, |_| -> std::result::Result<(), String> { unreachable!() });
        let reason = r.unwrap_err();
        assert!(reason.contains("libfoo not found at XP_FOO_PATH=/nonexistent/libfoo.so.2"), "{reason}");
        assert!(reason.contains("install foo"), "{reason}");
        let r = search(&["/nonexistent"]).open_first(&|_| None, |p| -> std::result::Result<(), String> {
            Err(format!("{}: cannot open shared object file", p.display()))
        });
        let reason = r.unwrap_err();
        assert!(reason.contains("libfoo.so.2, libfoo.so in /nonexistent"), "{reason}");
        assert!(reason.contains("loader path"), "{reason}");
    }

    #[test]
    fn the_first_that_opens_wins() {
        let r = search(&[]).open_first(&|_| None, |p| {
            if p == Path::new("libfoo.so") {
                Ok(7)
            } else {
                Err("libfoo.so.2: cannot open shared object file".to_string())
            }
        });
        assert_eq!(r.unwrap(), (7, PathBuf::from("libfoo.so")));
    }

    #[test]
    fn an_entry_is_searched_in_its_folders_and_loaded_through_accept() {
        const LIBC: VendorLibrary = VendorLibrary {
            what: "the C library (libc)",
            env_var: "XP_TEST_LIBC_PATH",
            files: &["libc.so.6"],
            folders: &[Folders::Var("XP_TEST_LIBC_HOME", &["lib"])],
            hint: "install a C library",
            opening: Opening::global_after(|_| vec![PathBuf::from("/nonexistent/libcompanion.so")]),
        };
        let env = |k: &str| (k == "XP_TEST_LIBC_HOME").then(|| OsString::from("/nonexistent-home"));
        let (explicit, c) = LIBC.search(&env).candidates(&env);
        assert!(!explicit);
        assert_eq!(c, [PathBuf::from("/nonexistent-home/lib/libc.so.6"), "libc.so.6".into()]);
        let accept = |f: OpenedFile<'_>| {
            assert!(f.companions.is_empty(), "a companion that does not exist is skipped");
            // SAFETY: only looked up, never called.
            let getpid = unsafe { f.library.get::<unsafe extern "C" fn() -> i32>(b"getpid\0") }.map(|s| *s);
            getpid.map(|_| f.library).map_err(|e| e.to_string())
        };
        // SAFETY: the C library is already loaded in every test process; opening it again runs
        // no initialiser.
        let found = unsafe { LIBC.open(&env, accept) };
        let found = found.unwrap();
        assert_eq!(found.path, PathBuf::from("libc.so.6"));
        assert!(format!("{found:?}").contains("libc.so.6"));
        // SAFETY: as above.
        let refused =
            unsafe { LIBC.open(&env, |f| Err::<(), _>(format!("{} is not a usable libfoo", f.path.display()))) };
        let reason = refused.unwrap_err();
        assert!(reason.contains("(libc.so.6 is not a usable libfoo)"), "{reason}");
        assert!(
            reason.ends_with("install a C library, or set XP_TEST_LIBC_PATH to the library or its folder"),
            "{reason}"
        );
    }
}
