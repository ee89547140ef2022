//! Device selection through the facade, and what happens when a GPU backend cannot run.

use std::process::Command;

use xp::Error;

fn tour_binary() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("XP_TOUR_BIN") {
        return p.into();
    }
    // target/<profile>/deps/<this test> -> target/<profile>/examples/tour
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().join("examples").join("tour")
}

#[test]
fn the_cpu_is_always_a_device() {
    let d = xp::device("cpu").unwrap();
    assert_eq!(d.label(), "cpu");
    assert!(xp::devices().iter().any(|d| d.label() == "cpu"));
}

#[test]
fn bad_labels_are_value_errors() {
    assert!(matches!(xp::device("tpu:0"), Err(Error::Value { .. })));
}

/// `XP_DEVICE=<label>` for a GPU backend: with the device present the tour runs on it;
/// without it the tour exits with a one-line error naming what is missing, never a panic.
fn gpu_label_behaviour(label: &str, backend: &str) {
    let direct = xp::device(label);
    let tour = tour_binary();
    let required = std::env::var("XP_REQUIRE_GPU").is_ok_and(|v| v == backend);
    if !tour.exists() {
        panic!("the tour example is not built at {}", tour.display());
    }
    let out = Command::new(&tour).env("XP_DEVICE", label).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    match direct {
        Ok(d) => {
            assert_eq!(d.label(), label);
            assert!(out.status.success(), "the tour failed on {label}: {stderr}");
        }
        Err(e) => {
            assert!(!required, "XP_REQUIRE_GPU={backend} but {label} is unavailable: {e}");
            assert!(matches!(e, Error::BackendUnavailable { .. }), "{e}");
            assert!(!out.status.success());
            assert!(!stderr.contains("panicked"), "the tour panicked: {stderr}");
            let lines: Vec<_> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            assert_eq!(lines.len(), 1, "one line expected, got: {stderr}");
            assert!(lines[0].starts_with("error: backend"), "{stderr}");
            eprintln!("{label} unavailable here (expected without a GPU): {}", lines[0]);
        }
    }
}

#[test]
fn xp_device_cuda_without_a_gpu_is_a_one_line_error() {
    gpu_label_behaviour("cuda:0", "cuda");
}

#[test]
fn xp_device_hip_without_a_gpu_is_a_one_line_error() {
    gpu_label_behaviour("hip:0", "hip");
}
