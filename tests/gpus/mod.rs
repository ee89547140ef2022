//! The GPUs a root-package test runs its checks on: every non-host device the enabled backends
//! found. Without one the test prints a `SKIPPED` line on the runner's stderr and passes,
//! unless `XP_REQUIRE_GPU=cuda` (or `hip`) asks for one, which makes it fail. [`on_every_gpu`]
//! is the runner of the checks written once for every device (`array/tests/device_tests/`).

use std::io::Write;
use std::sync::Arc;

use xp::DynDevice;

/// Every GPU device, or none after saying on stderr why `test` is skipped.
pub fn gpus_or_skip(test: &str) -> Vec<Arc<dyn DynDevice>> {
    let gpus: Vec<_> = xp::devices().into_iter().filter(|d| !d.properties().is_host).collect();
    if gpus.is_empty() {
        let required = std::env::var("XP_REQUIRE_GPU").unwrap_or_default();
        if required.split(',').any(|b| matches!(b.trim(), "cuda" | "hip")) {
            panic!("XP_REQUIRE_GPU={required} but no GPU device can be used");
        }
        let why = if cfg!(any(feature = "cuda", feature = "hip")) {
            "no device found by the enabled GPU backends"
        } else {
            "built without the cuda and hip features"
        };
        let _ = writeln!(std::io::stderr(), "SKIPPED {test}: no GPU ({why})");
    }
    gpus
}

/// Runs `check` on every GPU in turn, saying which on stdout (shown when the test fails), or
/// skips `test` visibly as [`gpus_or_skip`] does.
#[allow(dead_code)] // tests/distributed.rs mounts this module too and runs no checks
pub fn on_every_gpu(test: &str, check: fn(&Arc<dyn DynDevice>)) {
    for d in &gpus_or_skip(test) {
        println!("{test} on {}", d.label());
        check(d);
    }
}
