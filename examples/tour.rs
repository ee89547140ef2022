//! A tour of xp on the best device present (`XP_DEVICE=cpu|cuda:0|hip:0` to choose).
//!
//! It starts with `xp::show_config()` and the device's properties as CuPy's
//! `getDeviceProperties` shows them.
//!
//! The seeds' raw CUDA kernels, unchanged, through the backend contract: `my_add` on a 5×5
//! grid, `saxpy` over a million floats, and a 16×16 tiled matrix multiply with `__shared__`
//! memory and `__syncthreads()`. Each result is checked against a plain Rust computation and
//! timed with the device's events. Then `saxpy_jit` and `leaky_relu` written in Rust
//! (`#[xp::rawkernel]`, `#[xp::kernel]`).
//!
//! Then the seeds' array programs on the same device: `x**2 + 2*y` over ten million floats,
//! mean / standard deviation / normalisation along an axis, per-row L2 norms, and a softmax
//! over a 2-D batch, each checked against the host; and `xp::benchmark` of the elementwise
//! program, printed as `cupyx.profiler.benchmark` prints.

use std::process::ExitCode;
use std::sync::Arc;

use xp::backend::{scalar_bytes, Buffer};
use xp::kernels::seeds::{MY_ADD, SAXPY, TILED_MATMUL};
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

/// Launch and time with events, as `cp.cuda.Event()` / `get_elapsed_time`; returns
/// milliseconds.
fn timed(
    d: &Arc<dyn DynDevice>,
    source: &str,
    name: &str,
    cfg: LaunchConfig,
    args: &[KernelArg<'_>],
) -> xp::Result<f32> {
    let k = d.compile(&KernelSource::new(name, source), &Default::default())?.function(name)?;
    let s = xp::Stream::null(d);
    let (start, end) = (xp::Event::new(), xp::Event::new());
    start.record(Some(&s))?;
    s.raw().launch(&*k, &cfg, args)?;
    end.record(Some(&s))?;
    end.synchronize()?;
    xp::get_elapsed_time(&start, &end)
}

fn check(name: &str, ok: bool, ms: f32) -> xp::Result<()> {
    println!("  {name:<34} {:>9.3} ms   {}", ms, if ok { "matches the host" } else { "MISMATCH" });
    if ok {
        Ok(())
    } else {
        Err(Error::value(name, "the device result differs from the host computation"))
    }
}

fn run() -> xp::Result<()> {
    xp::show_config();
    println!();
    let d: Arc<dyn DynDevice> = default_device()?;
    let p = d.properties();
    println!("xp tour on {} ({}, {}, {} units)", d.label(), p.name, p.arch, p.multiprocessor_count);
    // As seed 002 section 3 prints cp.cuda.runtime.getDeviceProperties.
    let (major, minor) = p.compute_capability;
    println!("  Name: {}", p.name);
    println!("  Compute capability: {major}.{minor}");
    println!("  Total global memory (GB): {:.2}", p.total_memory as f64 / (1u64 << 30) as f64);
    println!("  MultiProcessor count: {}", p.multiprocessor_count);
    println!("  Max threads per block: {}", p.max_threads_per_block);
    println!("  Warp size: {}", p.warp_size);
    println!("  Clock rate (MHz): {}", p.clock_rate_khz / 1000);

    // my_add on a 5×5 grid.
    let x: Vec<f32> = (0..25).map(|i| i as f32).collect();
    let (a, b, y) = (upload(&*d, &x)?, upload(&*d, &x)?, upload(&*d, &[0.0; 25])?);
    let ms = timed(
        &d,
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
        &d,
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
        &d,
        TILED_MATMUL,
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
    rust_kernels(&d)?;
    let stats = d.memory_pool().stats();
    println!("  memory pool: {} bytes in use, {} cached, peak {}", stats.in_use, stats.cached, stats.peak);
    array_programs(&d)?;
    fft_round_trip(&d)?;
    products(&d)?;
    solvers(&d)?;
    random_and_sorting(&d)?;
    sparse_matrices(&d)?;
    Ok(())
}

/// The seed's `saxpy_jit`, written in Rust (as CuPy's `cupyx.jit.rawkernel`): translated into
/// the kernel dialect at cargo time, launched with a typed tuple of arguments.
#[xp::rawkernel]
fn saxpy_jit(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        out[i] = a * x[i] + y[i];
    }
}

/// `leaky_relu` as an elementwise kernel written in Rust (`#[xp::kernel]`).
#[xp::kernel]
fn leaky_relu(x: f32, alpha: f32, y: &mut f32) {
    *y = if x > 0.0 { x } else { alpha * x };
}

/// Kernels written in Rust: `saxpy_jit` over a million floats and an elementwise `leaky_relu`,
/// each against the host (`examples/rust_kernels.rs` has more).
fn rust_kernels(d: &Arc<dyn DynDevice>) -> xp::Result<()> {
    xp::with_device(d, || {
        let n = 1 << 20;
        let (hx, hy) = (noise(n, 11), noise(n, 12));
        let x = Array::from_slice(&hx, &[n])?;
        let y = Array::from_slice(&hy, &[n])?;
        let mut out = xp::empty(&[n], DType::F32)?;
        let blocks = (n as u32).div_ceil(256);
        saxpy_jit.launch((blocks,), (256u32,), (2.0f32, &x, &y, &mut out))?;
        let (_, ms) = time_ops(d, || saxpy_jit.launch((blocks,), (256u32,), (2.0f32, &x, &y, &mut out)))?;
        let got = out.to_vec::<f32>()?;
        check("saxpy_jit (Rust) 2^20", got.iter().zip(hx.iter().zip(&hy)).all(|(g, (x, y))| *g == 2.0 * x + y), ms)?;
        leaky_relu.call((&x, 0.1f32))?; // compiles on first use
        let (r, ms) = time_ops(d, || leaky_relu.call((&x, 0.1f32)))?;
        let got = r.to_vec::<f32>()?;
        check("leaky_relu (Rust) 2^20", got.iter().zip(&hx).all(|(g, &v)| *g == if v > 0.0 { v } else { 0.1 * v }), ms)
    })
}

/// The seeds' sparse example: COO triplets to CSR, times `[1, 2, 3]`.
fn sparse_matrices(d: &Arc<dyn DynDevice>) -> xp::Result<()> {
    println!("sparse");
    xp::with_device(d, || {
        let rows = Array::from_vec(vec![0i64, 0, 1, 2, 2, 2])?;
        let cols = Array::from_vec(vec![0i64, 2, 2, 0, 1, 2])?;
        let vals = Array::from_vec(vec![1f32, 2., 3., 4., 5., 6.])?;
        let x = Array::from_vec(vec![1f32, 2., 3.])?;
        let (y, ms) = time_ops(d, || xp::sparse::coo_matrix(&vals, &rows, &cols, Some((3, 3)))?.tocsr()?.dot(&x))?;
        let y = y.to_vec::<f32>()?;
        println!("    Sparse dot: {y:?}");
        check("coo_matrix((vals, (rows, cols)), shape=(3, 3)).tocsr().dot([1, 2, 3])", y == [7.0, 9.0, 32.0], ms)
    })
}

/// The seeds' random draws (`random((4096, 4096), float32)` broadcast against `linspace`,
/// `default_rng(123)`'s uniform and normal draws, `uniform(-1, 1, (64, 64))`) and a sort.
fn random_and_sorting(d: &Arc<dyn DynDevice>) -> xp::Result<()> {
    println!("random and sorting");
    xp::with_device(d, || {
        xp::random::seed(0u64);
        let (y, ms) = time_ops(d, || {
            let x = xp::random::random(&[4096, 4096], DType::F32)?;
            x.mul(&xp::linspace(0.0, 1.0, 4096, true, Some(DType::F32))?)
        })?;
        let mean = y.mean(None, false)?.item::<f32>()? as f64;
        check("random((4096, 4096)) * linspace(0, 1, 4096), mean 1/4", (mean - 0.25).abs() < 2e-3, ms)?;
        let mut rng = xp::random::default_rng(123u64);
        let u = rng.random(&[5], DType::F32)?;
        let n = rng.normal(0.0, 1.0, &[5], DType::F32)?;
        println!("    Uniform: {:?}", u.to_vec::<f32>()?);
        println!("    Normal : {:?}", n.to_vec::<f32>()?);
        let (a, ms) = time_ops(d, || xp::random::uniform(-1.0, 1.0, &[64, 64], DType::F32))?;
        let (lo, hi) = (a.min(None, false)?.item::<f32>()?, a.max(None, false)?.item::<f32>()?);
        check("uniform(-1, 1, (64, 64)) in [-1, 1)", (-1.0..1.0).contains(&lo) && (-1.0..1.0).contains(&hi), ms)?;
        let v = rng.standard_normal(&[1 << 20], DType::F32)?;
        let (s, ms) = time_ops(d, || v.sort(Some(-1)))?;
        let n = s.size() as isize;
        let ordered = s
            .slice(&[SliceArg::range(1, n, 1)])?
            .ge(&s.slice(&[SliceArg::range(0, n - 1, 1)])?)?
            .all(None, false)?
            .item::<bool>()?;
        check("sort of 2^20 normal float32", ordered, ms)
    })
}

/// Time `f` on the device's current stream with events (milliseconds).
fn time_ops<R>(d: &Arc<dyn DynDevice>, f: impl FnOnce() -> xp::Result<R>) -> xp::Result<(R, f32)> {
    let s = xp::Stream::current(d);
    let (start, end) = (xp::Event::new(), xp::Event::new());
    start.record(Some(&s))?;
    let r = f()?;
    end.record(Some(&s))?;
    end.synchronize()?;
    Ok((r, xp::get_elapsed_time(&start, &end)?))
}

/// Deterministic pseudo-random floats in [-1, 1).
fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn close(got: &[f32], want: &[f64], rel: f64) -> bool {
    got.len() == want.len() && got.iter().zip(want).all(|(g, w)| (*g as f64 - w).abs() <= rel * (1.0 + w.abs()))
}

fn array_programs(d: &Arc<dyn DynDevice>) -> xp::Result<()> {
    println!("array programs");
    xp::with_device(d, || {
        // Elementwise: x**2 + 2*y over ten million floats.
        let n = 10_000_000;
        let (xh, yh) = (noise(n, 1), noise(n, 2));
        let x = Array::from_slice(&xh, &[n])?;
        let y = Array::from_slice(&yh, &[n])?;
        let _ = x.pow(2)?.add(&y.mul_scalar(2)?)?; // warm-up: first use of each kernel
        let (z, ms) = time_ops(d, || x.pow(2)?.add(&y.mul_scalar(2)?))?;
        let want: Vec<f64> = xh.iter().zip(&yh).map(|(a, b)| (*a as f64).powi(2) + 2.0 * *b as f64).collect();
        check("x**2 + 2*y, 10M f32", close(&z.to_vec::<f32>()?, &want, 1e-6), ms)?;
        {
            // An NVTX range around the benchmark (shown in Nsight Systems; a no-op without NVTX).
            let _range = xp::profile::range("x**2 + 2*y benchmark");
            println!("  {}", xp::benchmark_named("x**2 + 2*y", || x.pow(2)?.add(&y.mul_scalar(2)?), 10, 1)?);
        }

        // Mean, standard deviation and normalisation along axis 0.
        let (rows, cols) = (2000, 512);
        let ah = noise(rows * cols, 3);
        let a = Array::from_slice(&ah, &[rows, cols])?;
        let _ = a.mean(Some(&[0]), true)?;
        let ((mean, std, norm), ms) = time_ops(d, || {
            let mean = a.mean(Some(&[0]), true)?;
            let std = a.std(Some(&[0]), 0, true)?;
            let norm = a.sub(&mean)?.div(&std)?;
            Ok((mean, std, norm))
        })?;
        let mut hm = vec![0f64; cols];
        let mut hs = vec![0f64; cols];
        for j in 0..cols {
            let col: Vec<f64> = (0..rows).map(|i| ah[i * cols + j] as f64).collect();
            hm[j] = col.iter().sum::<f64>() / rows as f64;
            hs[j] = (col.iter().map(|v| (v - hm[j]).powi(2)).sum::<f64>() / rows as f64).sqrt();
        }
        let hn: Vec<f64> = (0..rows * cols).map(|k| (ah[k] as f64 - hm[k % cols]) / hs[k % cols]).collect();
        let ok = close(&mean.to_vec::<f32>()?, &hm, 1e-5)
            && close(&std.to_vec::<f32>()?, &hs, 1e-5)
            && close(&norm.to_vec::<f32>()?, &hn, 1e-4);
        check("mean/std/normalise axis 0 2000x512", ok, ms)?;

        // L2 norm of each row.
        let (l2, ms) = time_ops(d, || a.square()?.sum(Some(&[1]), false)?.sqrt())?;
        let hl: Vec<f64> = (0..rows)
            .map(|i| ah[i * cols..(i + 1) * cols].iter().map(|v| (*v as f64).powi(2)).sum::<f64>().sqrt())
            .collect();
        check("L2 norm per row 2000x512", close(&l2.to_vec::<f32>()?, &hl, 1e-5), ms)?;

        // Softmax over a batch of 256 rows of 1000 logits.
        let (b, k) = (256, 1000);
        let lh: Vec<f32> = noise(b * k, 4).iter().map(|v| v * 8.0).collect();
        let logits = Array::from_slice(&lh, &[b, k])?;
        let softmax = |l: &Array| -> xp::Result<Array> {
            let e = l.sub(&l.max(Some(&[1]), true)?)?.exp()?;
            e.div(&e.sum(Some(&[1]), true)?)
        };
        let _ = softmax(&logits)?;
        let (p, ms) = time_ops(d, || softmax(&logits))?;
        let mut hp = vec![0f64; b * k];
        for i in 0..b {
            let row = &lh[i * k..(i + 1) * k];
            let m = row.iter().cloned().fold(f32::MIN, f32::max) as f64;
            let s: f64 = row.iter().map(|v| (*v as f64 - m).exp()).sum();
            for j in 0..k {
                hp[i * k + j] = (row[j] as f64 - m).exp() / s;
            }
        }
        check("softmax 256x1000", close(&p.to_vec::<f32>()?, &hp, 1e-5), ms)?;
        Ok(())
    })
}

/// The seeds' products: `dot(c, c.T)` of a 1000×1000 matrix and its mean, and a 64×64
/// float32 matrix product, each against the host.
fn products(d: &Arc<dyn DynDevice>) -> xp::Result<()> {
    println!("products");
    xp::with_device(d, || {
        let n = 1000;
        let ch = noise(n * n, 7);
        let c = Array::from_slice(&ch, &[n, n])?;
        let _ = xp::dot(&c, &c.t())?; // warm-up: the library's first call
        let (g, ms) = time_ops(d, || xp::dot(&c, &c.t()))?;
        let mean = g.mean(None, false)?.item::<f32>()? as f64;
        // The host mean of c c^T is the squared norm of the column sums over n^2.
        let colsum: Vec<f64> = (0..n).map(|j| (0..n).map(|i| ch[i * n + j] as f64).sum()).collect();
        let want = colsum.iter().map(|s| s * s).sum::<f64>() / (n * n) as f64;
        check("dot(c, c.T) 1000x1000, mean", (mean - want).abs() <= 1e-3 * want.abs().max(1.0), ms)?;
        println!("    mean = {mean:.6} (host {want:.6})");
        let (ah, bh) = (noise(64 * 64, 8), noise(64 * 64, 9));
        let (a, b) = (Array::from_slice(&ah, &[64, 64])?, Array::from_slice(&bh, &[64, 64])?);
        let (p, ms) = time_ops(d, || a.matmul(&b))?;
        let want: Vec<f64> = (0..64 * 64)
            .map(|t| (0..64).map(|k| ah[(t / 64) * 64 + k] as f64 * bh[k * 64 + t % 64] as f64).sum())
            .collect();
        check("matmul 64x64 float32", close(&p.to_vec::<f32>()?, &want, 1e-5), ms)
    })
}

/// The seeds' solvers: `linalg.solve` of a 1024×1024 float32 system with its relative
/// residual (computed on the host in float64), and a 64×64 SVD moved back to the host, whose
/// factors rebuild the matrix.
fn solvers(d: &Arc<dyn DynDevice>) -> xp::Result<()> {
    use xp::linalg;
    println!("linalg");
    xp::with_device(d, || {
        let n = 1024;
        let mut ah = noise(n * n, 10);
        for i in 0..n {
            ah[i * n + i] += n as f32;
        }
        let bh = noise(n, 11);
        let (a, b) = (Array::from_slice(&ah, &[n, n])?, Array::from_slice(&bh, &[n])?);
        let _ = linalg::solve(&a, &b)?; // warm-up: the library's first call
        let (x, ms) = time_ops(d, || linalg::solve(&a, &b))?;
        let xh = x.to_vec::<f32>()?;
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for i in 0..n {
            let ax: f64 = (0..n).map(|j| ah[i * n + j] as f64 * xh[j] as f64).sum();
            num += (ax - bh[i] as f64).powi(2);
            den += (bh[i] as f64).powi(2);
        }
        let rel = (num / den).sqrt();
        check("linalg.solve 1024x1024 float32", rel < 1e-5, ms)?;
        println!("    relative residual |Ax - b| / |b| = {rel:.3e} (host, float64)");
        let mh = noise(64 * 64, 12);
        let m = Array::from_slice(&mh, &[64, 64])?;
        // U and Vh come back to the host in one copy.
        let ((uv, s), ms) = time_ops(d, || {
            let (u, s, vt) = linalg::svd(&m, true)?;
            xp::stack(&[&u, &vt], 0).map(|uv| (uv, s))
        })?;
        let (uvh, sh) = (uv.to_vec::<f32>()?, s.to_vec::<f32>()?);
        let (uh, vth) = uvh.split_at(64 * 64);
        let mut worst = 0.0f64;
        for i in 0..64 {
            for j in 0..64 {
                let r: f64 = (0..64).map(|k| uh[i * 64 + k] as f64 * sh[k] as f64 * vth[k * 64 + j] as f64).sum();
                worst = worst.max((r - mh[i * 64 + j] as f64).abs());
            }
        }
        let sorted = sh.windows(2).all(|w| w[0] >= w[1]);
        check("svd 64x64 float32 on the host: U diag(S) Vh = A", worst < 1e-4 && sorted, ms)?;
        println!("    max |U S Vh - A| = {worst:.2e}, largest singular value {:.4}", sh[0]);
        Ok(())
    })
}

/// The seeds' FFT round trip: `ifft(fft(x))` of 2^20 complex64 values gives `x` back to
/// float32 precision.
fn fft_round_trip(d: &Arc<dyn DynDevice>) -> xp::Result<()> {
    println!("fft");
    xp::with_device(d, || {
        let n = 1 << 20;
        let (re, im) = (noise(n, 5), noise(n, 6));
        let z: Vec<num_complex::Complex<f32>> =
            re.iter().zip(&im).map(|(&a, &b)| num_complex::Complex::new(a, b)).collect();
        let x = Array::from_slice(&z, &[n])?;
        let _ = xp::fft::ifft(&xp::fft::fft(&x, None, -1, None)?, None, -1, None)?; // warm-up: plans
        let (y, ms) = time_ops(d, || xp::fft::ifft(&xp::fft::fft(&x, None, -1, None)?, None, -1, None))?;
        let err = y.sub(&x)?.abs()?.max(None, false)?.item::<f32>()?;
        check("ifft(fft(x)), 2^20 complex64", err < 1e-5, ms)?;
        println!("    max |ifft(fft(x)) - x| = {err:.3e} (float32 level)");
        Ok(())
    })
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
