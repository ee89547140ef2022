//! Bad values of xp's environment variables are errors naming the variable and the value at
//! first use, never a silent fallback (a default, or another device); `0` as a memory limit is
//! no limit, as in CuPy. Each case runs the tour in a child process with the variable set.

use std::process::Command;

fn tour_binary() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("XP_TOUR_BIN") {
        return p.into();
    }
    // target/<profile>/deps/<this test> -> target/<profile>/examples/tour
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().join("examples").join("tour")
}

/// The tour with `var=value` (and `XP_DEVICE=device` when given): its success and stderr.
fn tour_with(var: &str, value: &str, device: Option<&str>) -> (bool, String) {
    let tour = tour_binary();
    assert!(tour.exists(), "the tour example is not built at {}", tour.display());
    let mut cmd = Command::new(&tour);
    cmd.env(var, value).env("XP_CACHE_DIR", "off");
    if let Some(d) = device {
        cmd.env("XP_DEVICE", d);
    }
    let out = cmd.output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The tour fails with one line naming `var="value"`, and does not panic.
fn refused(var: &str, value: &str, device: Option<&str>) {
    let (ok, stderr) = tour_with(var, value, device);
    assert!(!ok, "the tour ran with {var}={value:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "the tour panicked with {var}={value:?}: {stderr}");
    let needle = format!("{var}={value:?}");
    assert!(stderr.contains(&needle), "the error does not name {needle}: {stderr}");
}

#[test]
fn a_memory_limit_that_is_not_a_size_is_an_error_not_another_device() {
    // The default device (no XP_DEVICE) is the one whose pool reads the limit: a GPU where
    // there is one (XP_GPU_MEMORY_LIMIT), else the CPU.
    let gpu = xp::devices().iter().any(|d| !d.properties().is_host);
    let var = if gpu { "XP_GPU_MEMORY_LIMIT" } else { "XP_CPU_MEMORY_LIMIT" };
    refused(var, "abc", None);
    refused("XP_CPU_MEMORY_LIMIT", "12 apples", Some("cpu"));
    refused("XP_CPU_MEMORY_LIMIT", "150%", Some("cpu"));
}

#[test]
fn a_memory_limit_of_zero_is_no_limit() {
    let (ok, stderr) = tour_with("XP_CPU_MEMORY_LIMIT", "0", Some("cpu"));
    assert!(ok, "the tour failed with XP_CPU_MEMORY_LIMIT=0: {stderr}");
}

#[test]
fn switches_sizes_and_choices_that_do_not_parse_are_errors() {
    refused("XP_MEMORY_POOL", "sometimes", Some("cpu"));
    refused("XP_FAST_COMPILE", "perhaps", Some("cpu"));
    refused("XP_DEVICE", "tpu:0", None);
}

#[test]
fn every_variable_is_in_the_table_and_documented() {
    for v in xp::backend::env::VARIABLES {
        assert!(v.name.starts_with("XP_"), "{}", v.name);
        assert!(!v.values.is_empty() && !v.default.is_empty() && !v.meaning.is_empty(), "{}", v.name);
    }
    let names: Vec<_> = xp::backend::env::VARIABLES.iter().map(|v| v.name).collect();
    for expected in ["XP_DEVICE", "XP_GPU_MEMORY_LIMIT", "XP_MEMORY_POOL", "XP_CACHE_DIR", "XP_NCCL_TIMEOUT"] {
        assert!(names.contains(&expected), "{expected} is not in the table");
    }
}
