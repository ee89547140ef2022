//! Finding a vendor library at run time: one search, whatever the library (NVRTC, cuFFT,
//! hipFFT, …), so every backend looks in the same kind of places, in the same order, and says
//! the same things when the library is missing.
//!
//! A [`LibrarySearch`] names the library, the environment variable that overrides the search
//! (`XP_CUFFT_PATH`), its file names (newest first) and the folders to look in before the
//! loader's own path. The candidates are, in order:
//! 1. when the variable is set: the file it names, or each file name in the folder it names,
//!    and nothing else;
//! 2. each file name in each folder, in the order given;
//! 3. each bare file name, which the dynamic loader looks up (`LD_LIBRARY_PATH`, the `ldconfig`
//!    cache).
//!
//! Nothing here opens a library: [`LibrarySearch::open_first`] takes the opening function, so
//! each backend keeps its own way of opening (with `RTLD_GLOBAL`, through `libloading`, …).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

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
}

/// Whether `path` is a bare file name, for the dynamic loader to look up.
pub fn is_bare_name(path: &Path) -> bool {
    path.parent().is_none_or(|p| p.as_os_str().is_empty())
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
}
