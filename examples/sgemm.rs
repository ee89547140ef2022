//! A hand-written single-precision matrix multiply (SGEMM) as a raw kernel on the best device
//! present, checked against the library's `matmul`, and both timed with events.
//!
//! Each block computes a `BLK_M × BLK_N` tile of `C = A B` from `BLK_K`-wide slices of `A` and
//! `B` staged in shared memory; each of its `DIM_X × DIM_Y` threads keeps a `THR_M × THR_N`
//! grid of outputs in registers (rows `ty + i·DIM_Y`, columns `tx + j·DIM_X`, so neighbouring
//! threads touch neighbouring columns). The tile sizes are `#define`s put ahead of the source,
//! so one source serves every configuration. A port of CuPy's `examples/gemm/sgemm.py` (with
//! its `utils.py` and `sgemm.cu`); `cargo run --release --example sgemm`.

use xp::prelude::*;
use xp::{LaunchArg, RawKernel};

const SGEMM: &str = r#"
extern "C" __global__ void sgemm(int M, int N, int K, const float* A, const float* B, float* C) {
    // A column of padding keeps the threads of a warp on distinct shared-memory banks.
    __shared__ float As[BLK_K][BLK_M + 1];
    __shared__ float Bs[BLK_K][BLK_N + 1];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * DIM_X + tx;
    const int row0 = blockIdx.y * BLK_M, col0 = blockIdx.x * BLK_N;
    float acc[THR_M][THR_N];
    for (int i = 0; i < THR_M; ++i)
        for (int j = 0; j < THR_N; ++j) acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BLK_K) {
        // Stage A[row0 .. row0 + BLK_M, k0 .. k0 + BLK_K] transposed, and B's matching rows;
        // outside the matrices, zeros.
        for (int e = tid; e < BLK_M * BLK_K; e += DIM_X * DIM_Y) {
            const int r = e / BLK_K, c = e % BLK_K;
            As[c][r] = (row0 + r < M && k0 + c < K) ? A[(size_t)(row0 + r) * K + k0 + c] : 0.0f;
        }
        for (int e = tid; e < BLK_K * BLK_N; e += DIM_X * DIM_Y) {
            const int r = e / BLK_N, c = e % BLK_N;
            Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(size_t)(k0 + r) * N + col0 + c] : 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < BLK_K; ++kk) {
            float a[THR_M], b[THR_N];
            for (int i = 0; i < THR_M; ++i) a[i] = As[kk][ty + i * DIM_Y];
            for (int j = 0; j < THR_N; ++j) b[j] = Bs[kk][tx + j * DIM_X];
            for (int i = 0; i < THR_M; ++i)
                for (int j = 0; j < THR_N; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < THR_M; ++i) {
        const int r = row0 + ty + i * DIM_Y;
        for (int j = 0; j < THR_N; ++j) {
            const int c = col0 + tx + j * DIM_X;
            if (r < M && c < N) C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
"#;

/// The tile configuration: threads per block, and the block's tile of `C` and of `K`.
struct Config {
    dim_x: u32,
    dim_y: u32,
    blk_m: u32,
    blk_n: u32,
    blk_k: u32,
}

/// `C = A B` for float32 `A` (m × k) and `B` (k × n) by the hand-written kernel.
fn sgemm(kernel: &RawKernel, cfg: &Config, a: &Array, b: &Array) -> xp::Result<Array> {
    if a.dtype() != DType::F32
        || b.dtype() != DType::F32
        || a.ndim() != 2
        || b.ndim() != 2
        || a.shape()[1] != b.shape()[0]
    {
        return Err(Error::value("sgemm", "takes float32 matrices of shapes (m, k) and (k, n)"));
    }
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let c = xp::empty(&[m, n], DType::F32)?;
    let grid = ((n as u32).div_ceil(cfg.blk_n), (m as u32).div_ceil(cfg.blk_m));
    let [mi, ni, ki] = [m, n, k].map(|v| LaunchArg::I32(v as i32));
    kernel.launch(grid, (cfg.dim_x, cfg.dim_y), &[mi, ni, ki, a.into(), b.into(), (&c).into()])?;
    Ok(c)
}

/// The kernel's source for `cfg`: its sizes as `#define`s ahead of the code.
fn load_kernel(cfg: &Config) -> RawKernel {
    let defines = [
        ("DIM_X", cfg.dim_x),
        ("DIM_Y", cfg.dim_y),
        ("BLK_M", cfg.blk_m),
        ("BLK_N", cfg.blk_n),
        ("BLK_K", cfg.blk_k),
        ("THR_M", cfg.blk_m / cfg.dim_y),
        ("THR_N", cfg.blk_n / cfg.dim_x),
    ];
    let head: String = defines.iter().map(|(k, v)| format!("#define {k} {v}\n")).collect();
    RawKernel::new(&(head + SGEMM), "sgemm")
}

/// Milliseconds of each of `n_run` calls of `f`, between two events.
fn benchmark(mut f: impl FnMut() -> xp::Result<Array>, n_run: usize) -> xp::Result<Vec<f32>> {
    (0..n_run)
        .map(|_| {
            let (start, end) = (Event::new(), Event::new());
            start.record(None)?;
            f()?;
            end.record(None)?;
            end.synchronize()?;
            get_elapsed_time(&start, &end)
        })
        .collect()
}

fn main() -> xp::Result<()> {
    let d = default_device()?;
    let (m, n, k) = if d.label() == "cpu" { (200, 180, 150) } else { (1234, 1111, 2345) };
    let cfg = Config { dim_x: 16, dim_y: 16, blk_m: 64, blk_n: 64, blk_k: 4 };
    println!("m={m} n={n} k={k} on {}\nstart benchmarking\n", d.label());
    xp::with_device(&d, || {
        let a = xp::random::uniform(-1.0, 1.0, &[m, k], DType::F32)?;
        let b = xp::random::uniform(-1.0, 1.0, &[k, n], DType::F32)?;
        let kernel = load_kernel(&cfg);

        // Check correctness: the sums run in another order than the library's, so to rounding.
        let (c, want) = (sgemm(&kernel, &cfg, &a, &b)?, xp::dot(&a, &b)?);
        if !xp::allclose(&c, &want, 1e-4, 1e-4, false)? {
            return Err(Error::value("sgemm", "the hand-written kernel's product differs from dot's"));
        }
        // Dry runs, then five timed runs of each.
        for _ in 0..3 {
            sgemm(&kernel, &cfg, &a, &b)?;
        }
        let kernel_times = benchmark(|| sgemm(&kernel, &cfg, &a, &b), 5)?;
        for _ in 0..3 {
            xp::dot(&a, &b)?;
        }
        let library_times = benchmark(|| xp::dot(&a, &b), 5)?;
        let mean = |t: &[f32]| t.iter().sum::<f32>() / t.len() as f32;
        println!("=============================Result===============================");
        println!("hand written kernel time {} ms", mean(&kernel_times));
        println!("library dot         time {} ms", mean(&library_times));
        Ok(())
    })
}
