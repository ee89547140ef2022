//! The Mandelbrot set in NumPy's masked style, on the best device present
//! (`XP_DEVICE=cpu|cuda:0|hip:0` to choose), written to a PNG coloured by the smooth
//! iteration count `nu = n + 1 - log2(log|z|)`.
//!
//! ```text
//! cargo run --release --example mandelbrot -- [SIZE] [MAX_ITER] [OUT]
//! ```
//!
//! `SIZE` is the picture's side in pixels (default 2048: a 2048×2048 picture, quick on a
//! GPU; on the CPU backend of a small machine pass e.g. 512), `MAX_ITER` the most iterations
//! (default 200), `OUT` the file (default `mandelbrot.png`).
//!
//! Each iteration updates only the points that have not escaped, as one writes it in NumPy:
//!
//! ```text
//! Z[mask] = Z[mask] * Z[mask] + C[mask]
//! escaped = mask & (abs(Z) > R);  N[escaped] = i + 1;  mask &= ~escaped
//! ```
//!
//! here with `s![&mask]`. The iteration counts are checked against a plain Rust computation
//! on a subsampled grid; the program prints the agreement and the time.

use std::process::ExitCode;
use std::time::Instant;

use xp::prelude::*;

/// The escape radius: large, so that the smooth count is smooth.
const RADIUS: f64 = 256.0;
/// The picture's window of the complex plane: real and imaginary extents.
const RE: (f64, f64) = (-2.25, 0.75);
const IM: (f64, f64) = (-1.5, 1.5);

/// The point of pixel (row, col) of a `size`×`size` picture, as NumPy's `linspace` spaces
/// them.
fn point(row: usize, col: usize, size: usize) -> (f64, f64) {
    let t = |k: usize, (lo, hi): (f64, f64)| {
        if k == size - 1 {
            hi
        } else {
            k as f64 * ((hi - lo) / (size - 1) as f64) + lo
        }
    };
    (t(col, RE), t(row, IM))
}

/// The iteration counts and the final `|z|` of every pixel, computed on the device.
fn mandelbrot(size: usize, max_iter: usize) -> xp::Result<(Vec<i64>, Vec<f64>)> {
    let re = xp::linspace(RE.0, RE.1, size, true, Some(DType::F64))?;
    let im = xp::linspace(IM.0, IM.1, size, true, Some(DType::F64))?;
    // C[r, c] = re[c] + i·im[r]
    let c = re
        .reshape(&[1, size as isize])?
        .astype(DType::C128)?
        .add(&im.reshape(&[size as isize, 1])?.astype(DType::C128)?.mul(Scalar::Complex(0.0, 1.0))?)?;
    let z = xp::zeros(&[size, size], DType::C128)?;
    let n = xp::zeros(&[size, size], DType::I64)?;
    let mut mask = xp::ones(&[size, size], DType::Bool)?;
    for i in 0..max_iter {
        let zm = z.at(s![&mask])?;
        if zm.size() == 0 {
            break;
        }
        let cm = c.at(s![&mask])?;
        z.set(s![&mask], &zm.mul(&zm)?.add(&cm)?)?;
        let escaped = mask.logical_and(&z.abs()?.gt(RADIUS)?)?;
        n.set(s![&escaped], (i + 1) as i64)?;
        mask = mask.logical_and(&escaped.logical_not()?)?;
    }
    Ok((n.to_vec::<i64>()?, z.abs()?.to_vec::<f64>()?))
}

/// The same iteration count, in plain Rust.
fn host_count(cr: f64, ci: f64, max_iter: usize) -> i64 {
    let (mut zr, mut zi) = (0.0f64, 0.0f64);
    for i in 0..max_iter {
        let (r, m) = (zr * zr - zi * zi + cr, zr * zi + zi * zr + ci);
        zr = r;
        zi = m;
        if zr.hypot(zi) > RADIUS {
            return i as i64 + 1;
        }
    }
    0
}

/// A colour for the smooth count `nu` (black inside the set).
fn colour(n: i64, abs_z: f64) -> [u8; 3] {
    if n == 0 {
        return [0, 0, 0];
    }
    let nu = n as f64 + 1.0 - abs_z.ln().log2();
    let t = nu * 0.08;
    let ch = |phase: f64| (255.0 * (0.5 + 0.5 * (t + phase).cos())) as u8;
    [ch(3.0), ch(3.6), ch(4.0)]
}

fn run() -> xp::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |k: usize, default: usize| -> xp::Result<usize> {
        args.get(k)
            .map_or(Ok(default), |s| s.parse().map_err(|_| Error::value("mandelbrot", format!("bad number {s}"))))
    };
    let (size, max_iter) = (arg(0, 2048)?.max(2), arg(1, 200)?);
    let out = args.get(2).cloned().unwrap_or_else(|| "mandelbrot.png".into());
    let d = default_device()?;
    println!("mandelbrot {size}x{size}, {max_iter} iterations at most, on {}", d.label());
    let (n, abs_z) = xp::with_device(&d, || -> xp::Result<_> {
        // A first small run compiles and warms what the timed one uses.
        mandelbrot(8, 4)?;
        let t0 = Instant::now();
        let r = mandelbrot(size, max_iter)?;
        println!("  device: {:.3} s", t0.elapsed().as_secs_f64());
        Ok(r)
    })?;
    // The host's counts on a subsampled grid.
    let step = (size / 128).max(1);
    let (mut same, mut total) = (0usize, 0usize);
    for row in (0..size).step_by(step) {
        for col in (0..size).step_by(step) {
            let (cr, ci) = point(row, col, size);
            same += (host_count(cr, ci, max_iter) == n[row * size + col]) as usize;
            total += 1;
        }
    }
    let agreement = same as f64 / total as f64;
    println!("  host check: {same} of {total} subsampled pixels agree ({:.2}%)", 100.0 * agreement);
    let mut img = image::RgbImage::new(size as u32, size as u32);
    for (k, px) in img.pixels_mut().enumerate() {
        *px = image::Rgb(colour(n[k], abs_z[k]));
    }
    img.save(&out).map_err(|e| Error::value("mandelbrot", format!("writing {out}: {e}")))?;
    println!("  wrote {out}");
    // Points on the set's boundary are chaotic: a last-bit difference (a fused multiply-add)
    // may change their count, so a few disagreements are expected, many are a bug.
    if agreement < 0.99 {
        return Err(Error::value("mandelbrot", "the device's counts differ from the host's"));
    }
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
