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
    refused("XP_LAZY", "maybe", Some("cpu"));
    refused("XP_TRACE_FUSION", "loud", Some("cpu"));
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

/// Runs this binary's ignored test `case` in a child process with `envs`: its success and
/// output.
fn child(case: &str, envs: &[(&str, &str)]) -> (bool, String) {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args([case, "--exact", "--ignored", "--nocapture", "--test-threads=1"]).env("XP_ENV_CHILD", case);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// cuSOLVER, cuSPARSE and NCCL looked for in a folder that holds none of them: on every GPU,
/// the SVD, a sparse product and a communicator are errors that name the library (no panic, no
/// fallback to another device), and the next dense operation works.
#[test]
fn missing_vendor_libraries_are_errors_naming_them() {
    let empty = std::env::temp_dir().join(format!("xp-no-libraries-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let dir = empty.to_str().unwrap();
    let (ok, out) = child(
        "child_without_vendor_libraries",
        &[("XP_CUSOLVER_PATH", dir), ("XP_CUSPARSE_PATH", dir), ("XP_NCCL_PATH", dir), ("XP_ROCSOLVER_PATH", dir)],
    );
    std::fs::remove_dir_all(&empty).unwrap();
    assert!(ok, "{out}");
    assert!(!out.contains("panicked"), "{out}");
    eprint!("{}", out.lines().filter(|l| l.starts_with("SKIPPED")).map(|l| format!("{l}\n")).collect::<String>());
}

#[test]
#[ignore = "entry point of a child process, run by its parent test"]
fn child_without_vendor_libraries() {
    if std::env::var_os("XP_ENV_CHILD").is_none() {
        return;
    }
    let gpus: Vec<_> = xp::devices().into_iter().filter(|d| !d.properties().is_host).collect();
    if gpus.is_empty() {
        println!("SKIPPED missing_vendor_libraries_are_errors_naming_them: no GPU");
        return;
    }
    for d in &gpus {
        xp::with_device(d, || {
            let a = xp::arange(0.0, 16.0, 1.0, Some(xp::DType::F64)).unwrap().reshape(&[4, 4]).unwrap();
            let e = xp::linalg::svd(&a, false).unwrap_err().to_string();
            assert!(e.contains("cuSOLVER") || e.contains("rocSOLVER"), "{}: svd: {e}", d.label());
            let m = xp::sparse::CsrMatrix::from_dense(&xp::eye(4, None, 0, xp::DType::F64).unwrap()).unwrap();
            let x = xp::ones(&[4], xp::DType::F64).unwrap();
            // Sparse products may run on xp's own kernels; when they reach for the library,
            // its absence is an error naming it.
            match m.dot(&x) {
                Ok(y) => assert_eq!(y.to_vec::<f64>().unwrap(), vec![1.0; 4]),
                Err(e) => assert!(e.to_string().to_lowercase().contains("sparse"), "{}: csr.dot: {e}", d.label()),
            }
            match xp::distributed::init_all(std::slice::from_ref(d)) {
                Ok(_) => panic!("{}: init_all found a collective library in an empty folder", d.label()),
                Err(e) => {
                    let e = e.to_string();
                    assert!(e.contains("NCCL") || e.contains("RCCL"), "{}: init_all: {e}", d.label());
                }
            }
            // The device works on.
            assert_eq!(a.sum(None, false).unwrap().item::<f64>().unwrap(), 120.0);
        });
    }
}

/// The CPU without a C++ compiler (`CXX` names none, the kernel cache is empty): built-in ops
/// still run, pending arrays are computed op by op with the built-in kernels and reductions of
/// pending maps read the computed map; the values are those of the fused kernels.
#[test]
fn cpu_without_a_compiler_computes_pending_arrays_op_by_op() {
    let cache = std::env::temp_dir().join(format!("xp-no-compiler-cache-{}", std::process::id()));
    std::fs::create_dir_all(&cache).unwrap();
    let (ok, out) = child(
        "child_without_a_compiler",
        &[("CXX", "/nonexistent/c++"), ("XP_CACHE_DIR", cache.to_str().unwrap()), ("XP_LAZY", "1")],
    );
    std::fs::remove_dir_all(&cache).unwrap();
    assert!(ok, "{out}");
    assert!(!out.contains("panicked"), "{out}");
}

#[test]
#[ignore = "entry point of a child process, run by its parent test"]
fn child_without_a_compiler() {
    if std::env::var_os("XP_ENV_CHILD").is_none() {
        return;
    }
    let cpu = xp::device("cpu").unwrap();
    xp::with_device(&cpu, || {
        let x = xp::arange(0.0, 64.0, 1.0, Some(xp::DType::F32)).unwrap().reshape(&[8, 8]).unwrap();
        let y = x.mul(0.5).unwrap().sin().unwrap().add(&x).unwrap();
        let s = y.mul(&y).unwrap().sum(Some(&[1]), false).unwrap();
        let host: Vec<f32> = (0..64).map(|k| (k as f32 * 0.5).sin() + k as f32).collect();
        assert_eq!(y.to_vec::<f32>().unwrap(), host);
        let want: Vec<f32> = host.chunks(8).map(|r| r.iter().map(|v| v * v).sum::<f32>()).collect();
        for (a, b) in s.to_vec::<f32>().unwrap().iter().zip(&want) {
            assert!((a - b).abs() <= 1e-4 * b.abs(), "{a} against {b}");
        }
        let stats = xp::lazy::stats();
        assert_eq!(stats.fused_kernels, 0, "{stats:?}");
        // A kernel that needs the compiler is an error that says so.
        let k = xp::array::user::RawKernel::new("extern \"C\" __global__ void k(float* a) { a[0] = 1; }", "k");
        let a = xp::zeros(&[1], xp::DType::F32).unwrap();
        let e = k.launch((1,), (1,), &[(&a).into()]).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("compiler"), "{e}");
    });
}
