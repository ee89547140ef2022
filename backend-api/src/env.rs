//! Every environment variable xp reads, in one table ([`VARIABLES`]), read through one set of
//! parsers.
//!
//! A variable that is unset, or set to the empty string, takes its default. A value that does
//! not parse is an [`Error::Value`] whose op is `environment` and whose message names the
//! variable, the value and what was expected — returned by the first call that needs the
//! variable (opening a device, compiling a kernel, creating a communicator), never replaced by
//! a default in silence. Sizes are bytes (`1000000`, `512MB`, `2GiB`); limits also take a
//! percentage of the device's memory (`50%`), and `0` means no limit, as CuPy's
//! `set_limit(size=0)`. Switches are `1`/`0`, `true`/`false`, `yes`/`no` or `on`/`off`, in any
//! case.
//!
//! Each parser has a form over a lookup function (`*_in`), which the tests use instead of the
//! process's environment.

use std::ffi::OsString;
use std::time::Duration;

use crate::{Error, Result};

/// One environment variable: its name, the values it takes, its default and what it does.
#[derive(Debug, Clone, Copy)]
pub struct Variable {
    /// The name, `XP_DEVICE`.
    pub name: &'static str,
    /// The values it takes.
    pub values: &'static str,
    /// What holds when it is unset.
    pub default: &'static str,
    /// What it does.
    pub meaning: &'static str,
}

const fn var(name: &'static str, values: &'static str, default: &'static str, meaning: &'static str) -> Variable {
    Variable { name, values, default, meaning }
}

/// A size in bytes or a percentage of the device's memory; `0` for no limit.
const LIMIT: &str = "bytes (`1000000`, `512MB`, `2GiB`) or a percentage (`50%`); `0` for none";

/// Every variable xp reads at run time. The libraries' path variables are read by the library
/// loader (`crate::library`), as a file or a folder to look in alone.
pub const VARIABLES: &[Variable] = &[
    var("XP_DEVICE", "`cpu`, `cuda:N`, `hip:N`", "the first GPU, else the CPU", "the default device"),
    var("XP_GPU_MEMORY_LIMIT", LIMIT, "none", "the limit of each GPU's memory pool"),
    var("XP_CPU_MEMORY_LIMIT", LIMIT, "none", "the limit of the CPU device's memory pool"),
    var("XP_NULL_MEMORY_LIMIT", LIMIT, "none", "the limit of the null test backend's pool"),
    var(
        "XP_MEMORY_POOL",
        "a switch",
        "on",
        "`off`: every buffer is allocated and freed by the device (for memory checkers)",
    ),
    var("XP_CACHE_DIR", "a folder, or `off`", "`~/.cache/xp/kernels`", "the disk cache of compiled kernels"),
    var("XP_CACHE_MAX_BYTES", "bytes; `0` for no bound", "1 GiB", "the bound of the disk cache"),
    var("XP_FAST_COMPILE", "a switch", "on", "NVRTC's fast-compile options for generated kernels"),
    var("XP_LAZY", "a switch", "on", "lazy fusion: elementwise ops pending until needed, chains run as one kernel"),
    var("XP_TRACE_FUSION", "a switch", "off", "one line on stderr per lazy evaluation: why, ops, outputs, new kernel"),
    var("XP_DUMP_SOURCE", "a switch", "off", "print the C++ of each kernel written in Rust when it is first built"),
    var(
        "XP_SPARSE_OWN_KERNELS",
        "a switch",
        "off",
        "sparse products by xp's own kernels even where cuSPARSE/rocSPARSE is found",
    ),
    var("XP_ALLOW_TF32", "a switch", "off", "float32 products on TF32 tensor cores (cuBLAS)"),
    var("XP_CUSOLVER_SVD", "`gesvdj`, `gesvd`", "`gesvdj`", "cuSOLVER's SVD: Jacobi or QR iteration"),
    var("XP_REQUIRE_NVRTC", "a switch", "off", "xp's own tests: NVRTC must be found (a GPU machine)"),
    var(
        "XP_NCCL_TIMEOUT",
        "seconds, more than 0",
        "300",
        "how long a collective or a communicator's creation may wait",
    ),
    var("XP_NVRTC_PATH", "a file or a folder", "searched", "NVRTC"),
    var("XP_CUBLAS_PATH", "a file or a folder", "searched", "cuBLAS"),
    var("XP_CUFFT_PATH", "a file or a folder", "searched", "cuFFT"),
    var("XP_CUSOLVER_PATH", "a file or a folder", "searched", "cuSOLVER"),
    var("XP_CUSPARSE_PATH", "a file or a folder", "searched", "cuSPARSE"),
    var("XP_NCCL_PATH", "a file or a folder", "searched", "NCCL"),
    var("XP_NVTX_PATH", "a file or a folder", "searched", "NVTX (profile ranges)"),
    var("XP_HIPFFT_PATH", "a file or a folder", "searched", "hipFFT"),
    var("XP_ROCBLAS_PATH", "a file or a folder", "searched", "rocBLAS"),
    var("XP_ROCSOLVER_PATH", "a file or a folder", "searched", "rocSOLVER"),
    var("XP_ROCSPARSE_PATH", "a file or a folder", "searched", "rocSPARSE"),
    var("XP_RCCL_PATH", "a file or a folder", "searched", "RCCL"),
];

/// The process's environment, as the parsers' lookup function.
pub fn process_env(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

fn bad(name: &str, value: &str, expected: &str) -> Error {
    Error::value("environment", format!("{name}={value:?} is not {expected}"))
}

/// The text of `name`, trimmed; `None` when unset or empty; an error when it is not UTF-8.
pub fn text_in(env: &dyn Fn(&str) -> Option<OsString>, name: &str) -> Result<Option<String>> {
    match env(name) {
        None => Ok(None),
        Some(v) => match v.into_string() {
            Ok(s) if s.trim().is_empty() => Ok(None),
            Ok(s) => Ok(Some(s.trim().to_string())),
            Err(v) => Err(bad(name, &v.to_string_lossy(), "UTF-8 text")),
        },
    }
}

/// [`text_in`] over the process's environment.
pub fn text(name: &str) -> Result<Option<String>> {
    text_in(&process_env, name)
}

/// A switch: `1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off` (any case); `None` when unset.
pub fn switch_in(env: &dyn Fn(&str) -> Option<OsString>, name: &str) -> Result<Option<bool>> {
    let Some(v) = text_in(env, name)? else { return Ok(None) };
    match v.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(Some(true)),
        "0" | "false" | "no" | "off" => Ok(Some(false)),
        _ => Err(bad(name, &v, "a switch (1, 0, true, false, yes, no, on or off)")),
    }
}

/// [`switch_in`] over the process's environment, `default` when unset.
pub fn switch(name: &str, default: bool) -> Result<bool> {
    Ok(switch_in(&process_env, name)?.unwrap_or(default))
}

/// Parse a limit given as bytes (`1000000`, `512MiB`, `2GB`) or a percentage of `total` (`50%`).
pub fn parse_limit(text: &str, total: usize) -> Option<usize> {
    let t = text.trim();
    if let Some(p) = t.strip_suffix('%') {
        let pct: f64 = p.trim().parse().ok()?;
        if !(0.0..=100.0).contains(&pct) {
            return None;
        }
        return Some((total as f64 * pct / 100.0) as usize);
    }
    parse_bytes(t).map(|b| usize::try_from(b).unwrap_or(usize::MAX))
}

/// Bytes given as `1000000`, `1.5GB`, `512MiB`, …; `None` when `text` is not one.
pub fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let (num, mult) = [
        ("GiB", 1u64 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
        ("GB", 1_000_000_000),
        ("MB", 1_000_000),
        ("KB", 1_000),
        ("B", 1),
    ]
    .iter()
    .find_map(|(suf, m)| t.strip_suffix(suf).map(|n| (n.trim(), *m)))
    .unwrap_or((t, 1));
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    let bytes = v * mult as f64;
    (bytes.is_finite() && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// A limit on a memory of `total` bytes: bytes or a percentage (`50%`); `None` when unset or
/// `0` (no limit).
pub fn limit_in(env: &dyn Fn(&str) -> Option<OsString>, name: &str, total: usize) -> Result<Option<usize>> {
    let Some(v) = text_in(env, name)? else { return Ok(None) };
    let expected = if v.ends_with('%') { "a percentage between 0% and 100%" } else { LIMIT_EXPECTED };
    let bytes = parse_limit(&v, total).ok_or_else(|| bad(name, &v, expected))?;
    Ok((bytes != 0).then_some(bytes))
}

const LIMIT_EXPECTED: &str = "a size in bytes (such as 1000000, 512MB or 2GiB), a percentage (50%) or 0 for none";

/// [`limit_in`] over the process's environment.
pub fn limit(name: &str, total: usize) -> Result<Option<usize>> {
    limit_in(&process_env, name, total)
}

/// A size in bytes; `None` when unset.
pub fn bytes_in(env: &dyn Fn(&str) -> Option<OsString>, name: &str) -> Result<Option<u64>> {
    let Some(v) = text_in(env, name)? else { return Ok(None) };
    parse_bytes(&v).map(Some).ok_or_else(|| bad(name, &v, "a size in bytes (such as 1000000, 512MB or 1GiB)"))
}

/// [`bytes_in`] over the process's environment.
pub fn bytes(name: &str) -> Result<Option<u64>> {
    bytes_in(&process_env, name)
}

/// A positive number of seconds; `None` when unset.
pub fn seconds_in(env: &dyn Fn(&str) -> Option<OsString>, name: &str) -> Result<Option<Duration>> {
    let Some(v) = text_in(env, name)? else { return Ok(None) };
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e12 => Ok(Some(Duration::from_secs_f64(s))),
        _ => Err(bad(name, &v, "a number of seconds greater than 0")),
    }
}

/// [`seconds_in`] over the process's environment.
pub fn seconds(name: &str) -> Result<Option<Duration>> {
    seconds_in(&process_env, name)
}

/// One of `allowed` (any case); `None` when unset.
pub fn choice_in(
    env: &dyn Fn(&str) -> Option<OsString>,
    name: &str,
    allowed: &[&'static str],
) -> Result<Option<&'static str>> {
    let Some(v) = text_in(env, name)? else { return Ok(None) };
    allowed
        .iter()
        .find(|a| a.eq_ignore_ascii_case(&v))
        .copied()
        .map(Some)
        .ok_or_else(|| bad(name, &v, &format!("one of {}", allowed.join(", "))))
}

/// [`choice_in`] over the process's environment.
pub fn choice(name: &str, allowed: &[&'static str]) -> Result<Option<&'static str>> {
    choice_in(&process_env, name, allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn unset_and_empty_take_the_default() {
        let env = with(&[("XP_A", ""), ("XP_B", "  ")]);
        for name in ["XP_A", "XP_B", "XP_UNSET"] {
            assert_eq!(switch_in(&env, name).unwrap(), None);
            assert_eq!(limit_in(&env, name, 100).unwrap(), None);
            assert_eq!(seconds_in(&env, name).unwrap(), None);
        }
    }

    #[test]
    fn switches_take_the_usual_words_and_refuse_others() {
        let env = with(&[("XP_ON", "Yes"), ("XP_OFF", "off"), ("XP_ONE", "1"), ("XP_BAD", "maybe")]);
        assert_eq!(switch_in(&env, "XP_ON").unwrap(), Some(true));
        assert_eq!(switch_in(&env, "XP_OFF").unwrap(), Some(false));
        assert_eq!(switch_in(&env, "XP_ONE").unwrap(), Some(true));
        let e = switch_in(&env, "XP_BAD").unwrap_err();
        assert!(
            matches!(&e, Error::Value { op, reason } if op == "environment" && reason.contains("XP_BAD=\"maybe\"")),
            "{e}"
        );
    }

    #[test]
    fn a_memory_limit_of_abc_is_an_error_and_zero_is_no_limit() {
        let env = with(&[
            ("XP_GPU_MEMORY_LIMIT", "abc"),
            ("XP_ZERO", "0"),
            ("XP_HALF", "50%"),
            ("XP_MIB", "512MiB"),
            ("XP_NEG", "-5"),
            ("XP_PCT", "150%"),
        ]);
        let e = limit_in(&env, "XP_GPU_MEMORY_LIMIT", 1000).unwrap_err();
        assert!(e.to_string().contains("XP_GPU_MEMORY_LIMIT=\"abc\" is not a size in bytes"), "{e}");
        assert_eq!(limit_in(&env, "XP_ZERO", 1000).unwrap(), None);
        assert_eq!(limit_in(&env, "XP_HALF", 1000).unwrap(), Some(500));
        assert_eq!(limit_in(&env, "XP_MIB", 1000).unwrap(), Some(512 << 20));
        assert!(limit_in(&env, "XP_NEG", 1000).is_err());
        assert!(limit_in(&env, "XP_PCT", 1000).is_err());
    }

    #[test]
    fn sizes_seconds_and_choices_refuse_what_they_cannot_read() {
        let env = with(&[("XP_S", "1.5GB"), ("XP_X", "12 apples"), ("XP_T", "2.5"), ("XP_T0", "0"), ("XP_C", "GESVD")]);
        assert_eq!(bytes_in(&env, "XP_S").unwrap(), Some(1_500_000_000));
        assert!(bytes_in(&env, "XP_X").is_err());
        assert_eq!(seconds_in(&env, "XP_T").unwrap(), Some(Duration::from_millis(2500)));
        let e = seconds_in(&env, "XP_T0").unwrap_err();
        assert!(e.to_string().contains("XP_T0=\"0\""), "{e}");
        assert_eq!(choice_in(&env, "XP_C", &["gesvdj", "gesvd"]).unwrap(), Some("gesvd"));
        assert!(choice_in(&env, "XP_S", &["gesvdj", "gesvd"]).is_err());
    }

    #[test]
    fn text_that_is_not_utf8_is_refused() {
        use std::os::unix::ffi::OsStringExt;
        let env = |_: &str| Some(OsString::from_vec(vec![0xff, b'x']));
        assert!(text_in(&env, "XP_DEVICE").is_err());
    }

    /// Every `XP_` variable the sources read at run time is in [`VARIABLES`]: a grep of the
    /// workspace's library sources for the names they pass to the environment.
    #[test]
    fn every_variable_read_is_in_the_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut missing = Vec::new();
        let mut stack: Vec<std::path::PathBuf> =
            ["backend-api/src", "backend-cpu/src", "backend-cuda/src", "backend-hip/src", "array/src", "src"]
                .iter()
                .map(|d| root.join(d))
                .collect();
        while let Some(p) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&p) else { continue };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|x| x != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let code = text.split("#[cfg(test)]").next().unwrap_or("");
                for (i, _) in code.match_indices("\"XP_") {
                    let name: String = code[i + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                        .collect();
                    let known = VARIABLES.iter().any(|v| v.name == name);
                    // Names set by build scripts for `env!`, not read at run time.
                    let build_time = name.starts_with("XP_BUILD_") || name == "XP_CPU_TARGET" || name == "XP_CPU_HOST";
                    if !known && !build_time && name.len() > 3 {
                        missing.push(format!("{name} ({})", path.display()));
                    }
                }
            }
        }
        assert!(missing.is_empty(), "variables read but not in env::VARIABLES: {missing:?}");
    }
}
