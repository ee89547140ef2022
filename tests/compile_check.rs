//! The cross-vendor compile check: every built-in kernel the generator emits, plus the seeds'
//! raw kernels, compiled with NVRTC for `sm_90` and with hiprtc for `gfx90a`. No GPU is needed,
//! only the compilers (CI installs both). In CI (`CI=true`) a missing compiler fails the test.
#![cfg(all(feature = "cuda", feature = "hip"))]

use xp::backend::{CompileOptions, Error, KernelSource};

const SEEDS: &[(&str, &str)] = &[
    (
        "my_add",
        r#"extern "C" __global__ void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}"#,
    ),
    (
        "saxpy",
        r#"extern "C" __global__ void saxpy(const float a, const float* __restrict__ x,
           const float* __restrict__ y, float* __restrict__ out, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}"#,
    ),
    (
        "matmul_tiled",
        r#"#define TILE 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int K, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = (row < M && t * TILE + threadIdx.x < K) ? A[row * K + t * TILE + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (t * TILE + threadIdx.y < K && col < N) ? B[(t * TILE + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}"#,
    ),
    (
        "block_sum",
        r#"extern "C" __global__ void block_sum(const float* x, float* out, int n) {
    extern __shared__ float sdata[];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sdata[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}"#,
    ),
];

/// (name, code) of every kernel to check, batched into translation units of `batch` kernels
/// (one compiler run per batch; a failing batch is retried kernel by kernel).
fn units(batch: usize) -> Vec<Vec<(String, String)>> {
    let all: Vec<(String, String)> = xp::kernels::cpu::cpu_builtin_kernels()
        .into_iter()
        .chain(xp::kernels::elementwise::gpu_kernels())
        .chain(xp::kernels::index::gpu_only_kernels())
        .map(|r| (r.name, r.code))
        .collect();
    let mut out: Vec<Vec<_>> = all.chunks(batch).map(|c| c.to_vec()).collect();
    for (n, c) in SEEDS {
        out.push(vec![(n.to_string(), c.to_string())]);
    }
    out
}

fn check(compiler: &str, compile: impl Fn(&KernelSource) -> xp::Result<Vec<u8>>) {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let mut ok = 0usize;
    let mut failed = Vec::new();
    let mut total = 0usize;
    for unit in units(64) {
        total += unit.len();
        let code: String = unit.iter().map(|(_, c)| c.as_str()).collect::<Vec<_>>().join("\n");
        match compile(&KernelSource::new(&unit[0].0, code)) {
            Ok(img) => {
                assert!(!img.is_empty());
                ok += unit.len();
            }
            Err(Error::BackendUnavailable { reason, .. }) => {
                assert!(!in_ci, "{compiler} must be installed in CI: {reason}");
                eprintln!("SKIPPED: the {compiler} compile check: {reason}");
                return;
            }
            Err(_) => {
                for (n, c) in &unit {
                    match compile(&KernelSource::new(n, c)) {
                        Ok(_) => ok += 1,
                        Err(e) => failed.push(format!("{n}: {e}")),
                    }
                }
            }
        }
    }
    let line = format!("compile check, {compiler}: {ok} of {total} kernels compiled, {} failed", failed.len());
    println!("{line}");
    record_count(&line);
    assert!(failed.is_empty(), "{compiler} failed on:\n{}", failed.join("\n\n"));
}

#[test]
fn every_kernel_compiles_with_nvrtc_for_sm_90() {
    // `-minimal` named: the first and only attempt, so a kernel that would need the full
    // runtime headers (and so compile twice at run time) fails here.
    check("NVRTC sm_90", |s| xp_backend_cuda::compile_for_arch(s, &CompileOptions::new(["-minimal"]), "sm_90"));
}

#[test]
fn every_kernel_compiles_with_hiprtc_for_gfx90a() {
    check("hiprtc gfx90a", |s| xp_backend_hip::compile_for_arch(s, &CompileOptions::default(), "gfx90a"));
}

/// Keep the count where CI prints it from (`target/tmp/compile-check-counts.txt`), so that
/// the counts show without running the check a second time.
fn record_count(line: &str) {
    use std::io::Write;
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("compile-check-counts.txt");
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{line}");
    }
}
