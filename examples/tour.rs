//! A tour of xp on the best device present (`XP_DEVICE=cpu|cuda:0|hip:0` to choose).
//!
//! The seeds' raw CUDA kernels, unchanged, through the backend contract: `my_add` on a 5×5
//! grid, `saxpy` over a million floats, and a 16×16 tiled matrix multiply with `__shared__`
//! memory and `__syncthreads()`. Each result is checked against a plain Rust computation and
//! timed with the device's events.

use std::process::ExitCode;
use std::sync::Arc;

use xp::backend::{scalar_bytes, Buffer};
use xp::prelude::*;

fn upload(d: &dyn DynDevice, v: &[f32]) -> xp::Result<Buffer> {
    let s = d.default_stream();
    let b = d.alloc(v.len() * 4, &s)?;
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
    s.copy_from_host(&b, 0, &bytes)?;
    Ok(b)
}

fn download(d: &dyn DynDevice, b: &Buffer, n: usize) -> xp::Result<Vec<f32>> {
    let mut bytes = vec![0u8; n * 4];
    d.default_stream().copy_to_host(b, 0, &mut bytes)?;
    Ok(bytes.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().expect("4 bytes"))).collect())
}

/// Launch and time with events; returns milliseconds.
fn timed(d: &dyn DynDevice, source: &str, name: &str, cfg: LaunchConfig, args: &[KernelArg<'_>]) -> xp::Result<f32> {
    let k = d.compile(&KernelSource::new(name, source), &Default::default())?.function(name)?;
    let s = d.default_stream();
    let start = s.record_event()?;
    s.launch(&*k, &cfg, args)?;
    let end = s.record_event()?;
    end.synchronize()?;
    start.elapsed_ms(&*end)
}

const MY_ADD: &str = r#"
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}"#;

const SAXPY: &str = r#"
extern "C" __global__
void saxpy(const float a, const float* __restrict__ x,
           const float* __restrict__ y, float* __restrict__ out, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}"#;

const MATMUL: &str = r#"
#define TILE 16
extern "C" __global__
void matmul_tiled(const float* A, const float* B, float* C, int M, int K, int N) {
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
}"#;

fn check(name: &str, ok: bool, ms: f32) -> xp::Result<()> {
    println!("  {name:<34} {:>9.3} ms   {}", ms, if ok { "matches the host" } else { "MISMATCH" });
    if ok {
        Ok(())
    } else {
        Err(Error::value(name, "the device result differs from the host computation"))
    }
}

fn run() -> xp::Result<()> {
    let d: Arc<dyn DynDevice> = default_device()?;
    let p = d.properties();
    println!("xp tour on {} ({}, {}, {} units)", d.label(), p.name, p.arch, p.multiprocessor_count);

    // my_add on a 5×5 grid.
    let x: Vec<f32> = (0..25).map(|i| i as f32).collect();
    let (a, b, y) = (upload(&*d, &x)?, upload(&*d, &x)?, upload(&*d, &[0.0; 25])?);
    let ms = timed(
        &*d,
        MY_ADD,
        "my_add",
        LaunchConfig::new(5, 5),
        &[KernelArg::buffer(&a), KernelArg::buffer(&b), KernelArg::buffer(&y)],
    )?;
    let got = download(&*d, &y, 25)?;
    for row in got.chunks(5) {
        println!("    {row:?}");
    }
    check("my_add 5x5", got.iter().zip(&x).all(|(g, v)| *g == v + v), ms)?;

    // saxpy over a million floats.
    let n = 1_000_000usize;
    let xs: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
    let ys: Vec<f32> = (0..n).map(|i| ((i * 104729) % 1000) as f32 / 1000.0).collect();
    let (bx, by, bo) = (upload(&*d, &xs)?, upload(&*d, &ys)?, upload(&*d, &vec![0.0; n])?);
    let (alpha, nn) = (2.0f32, n as i32);
    let ms = timed(
        &*d,
        SAXPY,
        "saxpy",
        LaunchConfig::for_num_elements(n as u64, 256),
        &[
            KernelArg::Value(scalar_bytes(&alpha)),
            KernelArg::buffer(&bx),
            KernelArg::buffer(&by),
            KernelArg::buffer(&bo),
            KernelArg::Value(scalar_bytes(&nn)),
        ],
    )?;
    let got = download(&*d, &bo, n)?;
    println!("    out[0:5] = {:?}", &got[..5]);
    check("saxpy, 1,000,000 floats", got.iter().enumerate().all(|(i, g)| *g == alpha * xs[i] + ys[i]), ms)?;

    // 16×16 tiled matmul.
    let (m, k, nc) = (256usize, 192usize, 320usize);
    let am: Vec<f32> = (0..m * k).map(|i| ((i % 17) as f32 - 8.0) / 8.0).collect();
    let bm: Vec<f32> = (0..k * nc).map(|i| ((i % 13) as f32 - 6.0) / 6.0).collect();
    let (ba, bb, bc) = (upload(&*d, &am)?, upload(&*d, &bm)?, upload(&*d, &vec![0.0; m * nc])?);
    let (mi, ki, ni) = (m as i32, k as i32, nc as i32);
    let ms = timed(
        &*d,
        MATMUL,
        "matmul_tiled",
        LaunchConfig::new(((nc as u32).div_ceil(16), (m as u32).div_ceil(16)), (16, 16)),
        &[
            KernelArg::buffer(&ba),
            KernelArg::buffer(&bb),
            KernelArg::buffer(&bc),
            KernelArg::Value(scalar_bytes(&mi)),
            KernelArg::Value(scalar_bytes(&ki)),
            KernelArg::Value(scalar_bytes(&ni)),
        ],
    )?;
    let got = download(&*d, &bc, m * nc)?;
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..nc {
            let want: f64 = (0..k).map(|p| am[i * k + p] as f64 * bm[p * nc + j] as f64).sum();
            worst = worst.max((got[i * nc + j] as f64 - want).abs() / (1.0 + want.abs()));
        }
    }
    check("tiled matmul 256x192 @ 192x320", worst < 1e-4, ms)?;
    let stats = d.memory_pool().stats();
    println!("  memory pool: {} bytes in use, {} cached, peak {}", stats.in_use, stats.cached, stats.peak);
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.to_string().lines().next().unwrap_or("unknown error"));
            ExitCode::FAILURE
        }
    }
}
