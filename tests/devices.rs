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

/// The names CuPy has at its top level are at `xp::` too, not only under `xp::array::`.
#[test]
fn cupy_top_level_names_are_at_the_facade() {
    let d = xp::device("cpu").unwrap();
    let a = xp::Array::from_slice_on(&d, &[3.0f32, 1.0, 2.0, 1.0], &[4]).unwrap();
    assert_eq!(xp::sort(&a, None).unwrap().to_vec::<f32>().unwrap(), [1.0, 1.0, 2.0, 3.0]);
    assert_eq!(xp::argsort(&a, None).unwrap().to_vec::<i64>().unwrap(), [1, 3, 2, 0]);
    assert_eq!(xp::unique(&a).unwrap().to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0]);
    let sorted = xp::sort(&a, None).unwrap();
    let at = xp::searchsorted(&sorted, &a, xp::Side::Left, None).unwrap();
    assert_eq!(at.to_vec::<i64>().unwrap(), [3, 0, 2, 0]);
    let k = xp::ElementwiseKernel::new("T x", "T y", "y = x * x", "square").unwrap();
    assert_eq!(k.name(), "square");
    assert_eq!(xp::RawKernel::new("extern \"C\" __global__ void f() {}", "f").name(), "f");
    assert_eq!(xp::result_type("add", &[xp::DType::I8, xp::DType::U8], &[]).unwrap(), xp::DType::I16);
    assert_eq!(xp::promote_types(xp::DType::F16, xp::DType::I8), xp::DType::F16);
}
