//! Kernels written in Rust, as CuPy's `cupyx.jit`, on the default device
//! (`XP_DEVICE=cpu|cuda:0|hip:0` to choose): the seed's `saxpy_jit`, a 16×16 tiled matrix
//! multiply with shared memory compared against `xp::matmul`, a block reduction with shared
//! memory and `sync_threads()`, and an elementwise `leaky_relu`. Each is checked against the
//! host and timed with the device's events. `XP_DUMP_SOURCE=1` prints the C++ each kernel
//! becomes.

use std::process::ExitCode;

use xp::prelude::*;

/// Threads per block of the reduction.
pub const BLOCK: usize = 256;
/// The side of a matmul tile.
pub const TILE: usize = 16;

/// The seed's `saxpy_jit`: `out = a * x + y`.
#[xp::rawkernel]
pub fn saxpy_jit(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        out[i] = a * x[i] + y[i];
    }
}

/// C = A·B (row-major; A is m×k, B is k×n) with 16×16 tiles of A and B in shared memory.
#[xp::rawkernel]
pub fn matmul_tiled(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, k: u32) {
    let ta = shared_array::<[f32; TILE], TILE>();
    let tb = shared_array::<[f32; TILE], TILE>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * TILE + ty;
    let col = block_idx().x as usize * TILE + tx;
    let m = m as usize;
    let n = n as usize;
    let k = k as usize;
    let mut acc = 0.0f32;
    for t0 in (0..k).step_by(TILE) {
        ta[ty][tx] = if row < m && t0 + tx < k { a[row * k + t0 + tx] } else { 0.0 };
        tb[ty][tx] = if col < n && t0 + ty < k { b[(t0 + ty) * n + col] } else { 0.0 };
        sync_threads();
        for j in 0..TILE {
            acc = ta[ty][j].mul_add(tb[j][tx], acc);
        }
        sync_threads();
    }
    if row < m && col < n {
        c[row * n + col] = acc;
    }
}

/// Each block's sum in `partial`: a tree in shared memory, halving with a barrier per step.
#[xp::rawkernel]
pub fn block_sum(x: &[f32], partial: &mut [f32]) {
    let buf = shared_array::<f32, BLOCK>();
    let t = thread_idx().x as usize;
    let mut acc = 0.0f32;
    let start = block_idx().x as usize * BLOCK + t;
    let stride = grid_dim().x as usize * BLOCK;
    for i in (start..x.len()).step_by(stride) {
        acc += x[i];
    }
    buf[t] = acc;
    sync_threads();
    let mut s = BLOCK / 2;
    while s > 0 {
        if t < s {
            buf[t] += buf[t + s];
        }
        sync_threads();
        s /= 2;
    }
    if t == 0 {
        partial[block_idx().x as usize] = buf[0];
    }
}

/// `y = x` where positive, `alpha * x` elsewhere, for any float type.
#[xp::kernel]
pub fn leaky_relu<T: xp::Float>(x: T, alpha: T, y: &mut T) {
    *y = if x > T::from_f64(0.0) { x } else { alpha * x };
}

fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        })
        .collect()
}

/// Milliseconds `f` takes on the device's current stream, by its events.
fn timed(d: &std::sync::Arc<dyn DynDevice>, f: impl FnOnce() -> xp::Result<()>) -> xp::Result<f32> {
    let s = xp::current_stream(d);
    let e0 = s.record_event()?;
    f()?;
    let end = s.record_event()?;
    end.synchronize()?;
    e0.elapsed_ms(&*end)
}

fn report(name: &str, ok: bool, ms: f32) -> xp::Result<()> {
    println!("{name:<34} {:>9.3} ms  {}", ms, if ok { "ok" } else { "MISMATCH" });
    if ok {
        Ok(())
    } else {
        Err(xp::Error::value(name, "the result differs from the host's"))
    }
}

fn run() -> xp::Result<()> {
    let d = xp::default_device()?;
    println!("kernels written in Rust on {}", d.label());
    xp::with_device(&d, || {
        // saxpy_jit[(blocks,), (threads,)](2.0, x, y, out)
        let n = 1 << 20;
        let (hx, hy) = (noise(n, 1), noise(n, 2));
        let x = Array::from_slice(&hx, &[n])?;
        let y = Array::from_slice(&hy, &[n])?;
        let mut out = xp::zeros(&[n], DType::F32)?;
        let threads = 256u32;
        let blocks = (n as u32).div_ceil(threads);
        saxpy_jit.launch((blocks,), (threads,), (2.0f32, &x, &y, &mut out))?; // compile
        let ms = timed(&d, || saxpy_jit.launch((blocks,), (threads,), (2.0f32, &x, &y, &mut out)))?;
        let got = out.to_vec::<f32>()?;
        let ok = got.iter().zip(hx.iter().zip(&hy)).all(|(g, (x, y))| *g == 2.0f32 * x + y);
        report("saxpy_jit (2^20 floats)", ok, ms)?;

        // The 16×16 tiled matmul against xp::matmul.
        // Smaller on the CPU, whose threads of a block with barriers run as fibers.
        let (m, k, nn) = if d.properties().is_host { (128usize, 96usize, 160usize) } else { (512, 384, 640) };
        let a = Array::from_slice(&noise(m * k, 3), &[m, k])?;
        let b = Array::from_slice(&noise(k * nn, 4), &[k, nn])?;
        let mut c = xp::zeros(&[m, nn], DType::F32)?;
        let grid = ((nn as u32).div_ceil(TILE as u32), (m as u32).div_ceil(TILE as u32));
        let block = (TILE as u32, TILE as u32);
        matmul_tiled.launch(grid, block, (&a, &b, &mut c, m as u32, nn as u32, k as u32))?;
        let ms = timed(&d, || matmul_tiled.launch(grid, block, (&a, &b, &mut c, m as u32, nn as u32, k as u32)))?;
        let want = xp::matmul(&a, &b)?.to_vec::<f32>()?;
        let got = c.to_vec::<f32>()?;
        let ok = got.iter().zip(&want).all(|(g, w)| (g - w).abs() <= 1e-4 * (1.0 + w.abs()));
        report(&format!("matmul_tiled {m}x{k} . {k}x{nn}"), ok, ms)?;

        // A block reduction: partial sums per block, then their sum on the host.
        let blocks = 64usize;
        let mut partial = xp::zeros(&[blocks], DType::F32)?;
        let ms = timed(&d, || block_sum.launch((blocks as u32,), (BLOCK as u32,), (&x, &mut partial)))?;
        let total: f64 = partial.to_vec::<f32>()?.iter().map(|&v| v as f64).sum();
        let want: f64 = hx.iter().map(|&v| v as f64).sum();
        report("block_sum (2^20 floats)", (total - want).abs() < 1e-2, ms)?;

        // The elementwise leaky_relu, broadcasting a scalar.
        let mut yv = xp::empty(&[n], DType::F32)?;
        leaky_relu.call((&x, 0.1f32, &mut yv))?;
        let ms = timed(&d, || leaky_relu.call((&x, 0.1f32, &mut yv)).map(|_| ()))?;
        let got = yv.to_vec::<f32>()?;
        let ok = got.iter().zip(&hx).all(|(g, &v)| *g == if v > 0.0 { v } else { 0.1f32 * v });
        report("leaky_relu (2^20 floats)", ok, ms)?;
        let src = saxpy_jit.source()?;
        println!("\nthe C++ of saxpy_jit:\n{}", src.rsplit("#endif  // XP_RUST_H").next().unwrap_or("").trim());
        Ok(())
    })
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rust_kernels: {e}");
            ExitCode::FAILURE
        }
    }
}
