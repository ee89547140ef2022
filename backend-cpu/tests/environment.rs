//! Behaviour that depends on the environment: no C++ compiler, and the disk cache seen from a
//! second process. Each case runs in a child process (this test binary again) so the
//! environment can be changed without touching other tests.

use std::process::Command;
use std::sync::Arc;

use xp_backend_api::{Backend, Buffer, DynDevice, Error, KernelArg, KernelSource, LaunchConfig};
use xp_backend_cpu::CpuBackend;

const CHILD: &str = "XP_TEST_CHILD";

const USER_KERNEL: &str = r#"
extern "C" __global__ void triple(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 3.0f * x[i];
}
"#;

fn dev() -> Arc<dyn DynDevice> {
    CpuBackend::device(0).unwrap()
}

fn upload(d: &dyn DynDevice, v: &[f32]) -> Buffer {
    let s = d.default_stream();
    let b = d.alloc(v.len() * 4, &s).unwrap();
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
    s.copy_from_host(&b, 0, &bytes).unwrap();
    b
}

fn download(d: &dyn DynDevice, b: &Buffer, n: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; n * 4];
    d.default_stream().copy_to_host(b, 0, &mut bytes).unwrap();
    bytes.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect()
}

fn run_child(case: &str, envs: &[(&str, &str)]) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args([case, "--exact", "--ignored", "--nocapture", "--test-threads=1"]).env(CHILD, case);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the test binary runs again");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "child {case} failed:\n{text}");
    assert!(text.contains("1 passed"), "child {case} ran no test:\n{text}");
    text
}

fn is_child(case: &str) -> bool {
    std::env::var(CHILD).as_deref() == Ok(case)
}

/// A built-in op (a kernel compiled into the crate) on four floats: `x + x`.
fn run_builtin_add(d: &dyn DynDevice) -> Vec<f32> {
    use xp_backend_api::DType;
    use xp_kernels::elementwise::{ElementwiseSpec, IndexWidth, Layout, Operand};
    let spec = ElementwiseSpec {
        op: "add".into(),
        inputs: vec![Operand::array(DType::F32, DType::F32); 2],
        outputs: vec![Operand::array(DType::F32, DType::F32)],
        body: "out0 = in0 + in1;".into(),
        preamble: String::new(),
        layout: Layout::Rows,
        index: IndexWidth::I64,
        fast: None,
    };
    let r = spec.render();
    let k = d.compile(&KernelSource::new(&r.name, &r.code), &Default::default()).unwrap().function(&r.name).unwrap();
    let x = upload(d, &[1.0, 2.0, 3.0, 4.0]);
    let y = upload(d, &[0.0; 4]);
    let n = 4i64;
    let mut shape = vec![1i64, 4];
    shape.resize(9, 0);
    let shape: Vec<u8> = shape.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let mut unit = vec![1i64];
    unit.resize(8, 0);
    let unit: Vec<u8> = unit.iter().flat_map(|v| v.to_ne_bytes()).collect();
    d.default_stream()
        .launch(
            &*k,
            &LaunchConfig::new(2, 1),
            &[
                KernelArg::buffer(&x),
                KernelArg::buffer(&x),
                KernelArg::buffer(&y),
                KernelArg::Value(&shape),
                KernelArg::Value(&unit),
                KernelArg::Value(&unit),
                KernelArg::Value(&unit),
                KernelArg::Value(&n.to_ne_bytes()),
            ],
        )
        .unwrap();
    download(d, &y, 4)
}

#[test]
fn without_a_compiler_builtins_run_and_user_kernels_say_a_compiler_is_needed() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().to_str().unwrap();
    run_child("child_no_compiler", &[("CXX", "/nonexistent/c++"), ("PATH", ""), ("XP_CACHE_DIR", dir)]);
}

#[test]
#[ignore = "entry point of a child process, run by its parent test"]
fn child_no_compiler() {
    assert!(is_child("child_no_compiler"), "run by its parent test");
    let d = dev();
    assert_eq!(run_builtin_add(&*d), vec![2.0, 4.0, 6.0, 8.0]);
    let e = d.compile(&KernelSource::new("triple", USER_KERNEL), &Default::default()).err().expect("no compiler");
    match e {
        Error::Compile { kernel, log, .. } => {
            assert_eq!(kernel, "triple");
            assert!(log.contains("a C++ compiler is needed"), "{log}");
        }
        other => panic!("expected Error::Compile, got {other}"),
    }
}

#[test]
fn a_second_process_finds_the_kernel_on_disk_and_runs_no_compiler() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().to_str().unwrap();
    // First process: compiles and stores.
    let out = run_child("child_compile_and_report", &[("XP_CACHE_DIR", dir)]);
    assert!(out.contains("compiles=1 disk_hits=0"), "{out}");
    // Second process: the same CXX setting, but no compiler can be run (empty PATH).
    let out = run_child("child_compile_and_report", &[("XP_CACHE_DIR", dir), ("PATH", "")]);
    assert!(out.contains("compiles=0 disk_hits=1"), "{out}");
    // A corrupt entry is compiled again and replaced.
    for shard in std::fs::read_dir(cache.path()).unwrap() {
        for entry in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            let p = entry.unwrap().path();
            let mut bytes = std::fs::read(&p).unwrap();
            let mid = bytes.len() / 2;
            bytes[mid] ^= 0xff;
            std::fs::write(&p, bytes).unwrap();
        }
    }
    let out = run_child("child_compile_and_report", &[("XP_CACHE_DIR", dir)]);
    assert!(out.contains("compiles=1 disk_hits=0"), "{out}");
    let out = run_child("child_compile_and_report", &[("XP_CACHE_DIR", dir), ("PATH", "")]);
    assert!(out.contains("compiles=0 disk_hits=1"), "{out}");
}

#[test]
#[ignore = "entry point of a child process, run by its parent test"]
fn child_compile_and_report() {
    assert!(is_child("child_compile_and_report"), "run by its parent test");
    let d = CpuBackend::device(0).unwrap();
    let m =
        xp_backend_api::Device::compile(&*d, &KernelSource::new("triple", USER_KERNEL), &Default::default()).unwrap();
    let k = xp_backend_api::Module::function(&*m, "triple").unwrap();
    let dd: Arc<dyn DynDevice> = d.clone();
    let x = upload(&*dd, &[1.0, 2.0]);
    let n = 2i32;
    dd.default_stream()
        .launch(&*k, &LaunchConfig::new(1, 32), &[KernelArg::buffer(&x), KernelArg::Value(&n.to_ne_bytes())])
        .unwrap();
    assert_eq!(download(&*dd, &x, 2), vec![3.0, 6.0]);
    let s = d.compile_cache().stats();
    println!("compiles={} disk_hits={}", s.compiles, s.disk_hits);
}
