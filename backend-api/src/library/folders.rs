//! The folders vendors install their libraries in, as families a library's entry names
//! ([`Folders`]), and the one function that turns a list of families into folders
//! ([`library_dirs`]), reading the environment through a lookup function so tests can supply
//! their own.
//!
//! Every CUDA library is looked for in the same toolkit folders and in NVIDIA's pip wheels under
//! the same Python installations; every ROCm library in the same two folders. Written once here,
//! a folder added for one library is added for all.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// One family of folders, expanded by [`library_dirs`] in the order written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Folders {
    /// `$VAR/<sub>` for each sub-folder, in order, when the variable is set and not empty:
    /// `Var("NCCL_HOME", &["lib", "lib64"])`.
    Var(&'static str, &'static [&'static str]),
    /// The CUDA toolkit: `$CUDA_HOME` and `$CUDA_PATH` (`lib64`, then `lib`), then
    /// `/usr/local/cuda/lib64`. Its `stubs/` folder is not searched: a stub runs nothing.
    CudaToolkit,
    /// NVIDIA's pip wheels: each of these folders (`nvidia/cu13/lib`, …) under every Python
    /// site-packages and dist-packages found, site by site. The site-packages are those of
    /// `$VIRTUAL_ENV`, `$CONDA_PREFIX`, `/usr/local/lib/python3*`, `/usr/lib/python3*`,
    /// `~/.local/lib/python3*` and `~/.pyenv/versions/*/lib/python3*`. A `*` component matches
    /// every entry of its folder (`nvidia/*/lib`: every wheel of the `nvidia` namespace).
    /// Where a glob matches several entries, the newest-looking (reverse name order) comes first.
    PipWheels(&'static [&'static str]),
    /// ROCm: `$ROCM_PATH/lib`, then `/opt/rocm/lib`.
    Rocm,
}

/// The folders of `families`, in order, given the environment as a lookup function (a variable
/// set to the empty string counts as unset). Folders that do not exist are listed too: the
/// search skips them when it opens.
pub fn library_dirs(families: &[Folders], env: &dyn Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut dirs = Vec::new();
    let mut sites = None;
    for family in families {
        match *family {
            Folders::Var(var, subs) => {
                if let Some(root) = set(var) {
                    dirs.extend(subs.iter().map(|s| root.join(s)));
                }
            }
            Folders::CudaToolkit => {
                for var in ["CUDA_HOME", "CUDA_PATH"] {
                    if let Some(root) = set(var) {
                        dirs.push(root.join("lib64"));
                        dirs.push(root.join("lib"));
                    }
                }
                dirs.push("/usr/local/cuda/lib64".into());
            }
            Folders::PipWheels(wheels) => {
                for site in sites.get_or_insert_with(|| python_site_packages(&set)).iter() {
                    for wheel in wheels {
                        dirs.extend(glob(site, wheel));
                    }
                }
            }
            Folders::Rocm => {
                if let Some(root) = set("ROCM_PATH") {
                    dirs.push(root.join("lib"));
                }
                dirs.push("/opt/rocm/lib".into());
            }
        }
    }
    dirs
}

/// The site-packages and dist-packages folders of every Python installation named in
/// [`Folders::PipWheels`], in that order.
fn python_site_packages(set: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
    let mut libs: Vec<PathBuf> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        libs.extend(set(var).map(|v| v.join("lib")));
    }
    libs.push("/usr/local/lib".into());
    libs.push("/usr/lib".into());
    if let Some(home) = set("HOME") {
        libs.push(home.join(".local/lib"));
        libs.extend(sorted_entries(&home.join(".pyenv/versions"), |_| true).into_iter().map(|v| v.join("lib")));
    }
    let mut sites = Vec::new();
    for lib in libs {
        for py in sorted_entries(&lib, |n| n.to_string_lossy().starts_with("python3")) {
            sites.push(py.join("site-packages"));
            sites.push(py.join("dist-packages"));
        }
    }
    sites
}

/// `pattern` (`nvidia/*/lib`) under `root`: a `*` component stands for every entry of its folder.
fn glob(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    for part in pattern.split('/') {
        out = if part == "*" {
            out.iter().flat_map(|p| sorted_entries(p, |_| true)).collect()
        } else {
            out.into_iter().map(|p| p.join(part)).collect()
        };
    }
    out
}

/// Entries of `dir` whose names pass `keep`, newest-looking first (reverse name order); none when
/// `dir` cannot be read.
pub fn sorted_entries(dir: &Path, keep: impl Fn(&OsStr) -> bool) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut v: Vec<PathBuf> = rd.flatten().filter(|e| keep(&e.file_name())).map(|e| e.path()).collect();
    v.sort();
    v.reverse();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: Vec<(&'static str, OsString)>) -> impl Fn(&str) -> Option<OsString> {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_toolkit_then_conda_as_a_variable() {
        let env =
            env_of(vec![("CUDA_PATH", "/opt/cuda".into()), ("CONDA_PREFIX", "/c".into()), ("CUDA_HOME", "".into())]);
        let d = library_dirs(&[Folders::CudaToolkit, Folders::Var("CONDA_PREFIX", &["lib"])], &env);
        let want: Vec<PathBuf> =
            ["/opt/cuda/lib64", "/opt/cuda/lib", "/usr/local/cuda/lib64", "/c/lib"].iter().map(PathBuf::from).collect();
        assert_eq!(d, want, "an empty CUDA_HOME counts as unset");
    }

    #[test]
    fn rocm_path_then_opt_rocm() {
        let env = env_of(vec![("ROCM_PATH", "/opt/rocm-6.2".into())]);
        assert_eq!(library_dirs(&[Folders::Rocm], &env), [PathBuf::from("/opt/rocm-6.2/lib"), "/opt/rocm/lib".into()]);
        assert_eq!(library_dirs(&[Folders::Rocm], &|_| None), [PathBuf::from("/opt/rocm/lib")]);
    }

    #[test]
    fn wheels_site_by_site_and_globs_newest_first() {
        let root = std::env::temp_dir().join(format!("xp-folders-{}", std::process::id()));
        let venv = root.join("venv");
        let site = venv.join("lib/python3.12/site-packages");
        for pkg in ["nvidia/cu13/lib", "nvidia/nvtx/lib"] {
            std::fs::create_dir_all(site.join(pkg)).unwrap();
        }
        let pyenv = root.join("home/.pyenv/versions/3.11.7/lib/python3.11");
        std::fs::create_dir_all(&pyenv).unwrap();
        let env = env_of(vec![("VIRTUAL_ENV", venv.into_os_string()), ("HOME", root.join("home").into_os_string())]);
        let fixed = library_dirs(&[Folders::PipWheels(&["nvidia/cu13/lib", "nvidia/nccl/lib"])], &env);
        let any = library_dirs(&[Folders::PipWheels(&["nvidia/*/lib"])], &env);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(fixed[..2], [site.join("nvidia/cu13/lib"), site.join("nvidia/nccl/lib")]);
        assert!(fixed.contains(&pyenv.join("site-packages/nvidia/cu13/lib")), "{fixed:?}");
        assert_eq!(any[..2], [site.join("nvidia/nvtx/lib"), site.join("nvidia/cu13/lib")]);
    }
}
