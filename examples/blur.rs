//! Image blur and edge detection with `convolve2d`, as SciPy and CuPy users write them: a 3×3
//! box blur and a 3×3 Sobel-like edge kernel over a 1024×1024 grayscale picture (`mode="same"`,
//! `boundary="symm"`), on the CPU backend (the reference) and on the best device present
//! (`XP_DEVICE=cpu|cuda:0|hip:0` to choose).
//!
//! ```text
//! cargo run --release --example blur -- [IMAGE.png] [SIZE]
//! ```
//!
//! `IMAGE.png` is converted to grayscale and resized to `SIZE`×`SIZE` (default 1024,
//! bilinear); without it a test picture (discs, stripes, a gradient) is drawn. The program
//! prints each time (the device's measured with its events, after a warm-up), checks the
//! device's results against the CPU's, and writes the blurred and edge pictures as PNGs beside
//! the input (`NAME_blur.png`, `NAME_edges.png`), or `blur_input.png`, `blur.png` and
//! `edges.png` in the working directory for the test picture.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use xp::prelude::*;
use xp::signal::{convolve2d, Boundary, Mode};

/// The test picture: discs, stripes and a gradient, values in `[0, 255]`.
fn test_picture(size: usize) -> Vec<f32> {
    let mut v = Vec::with_capacity(size * size);
    let s = size as f32;
    for r in 0..size {
        for c in 0..size {
            let (y, x) = (r as f32 / s, c as f32 / s);
            let mut p = 60.0 + 80.0 * x;
            if ((x - 0.3).powi(2) + (y - 0.35).powi(2)).sqrt() < 0.2 {
                p = 230.0;
            }
            if ((x - 0.7).powi(2) + (y - 0.7).powi(2)).sqrt() < 0.15 {
                p = 20.0;
            }
            if y > 0.75 && ((x * 40.0) as usize).is_multiple_of(2) {
                p = 200.0 - 100.0 * y;
            }
            v.push(p);
        }
    }
    v
}

/// The input picture as `size`×`size` float32 grayscale, and where to write the results.
fn load(arg: Option<&String>, size: usize) -> xp::Result<(Vec<f32>, PathBuf, PathBuf)> {
    let err = |e: String| Error::value("blur", e);
    match arg {
        None => {
            let v = test_picture(size);
            save(&v, size, Path::new("blur_input.png"), |p| p)?;
            println!("test picture {size}x{size} written to blur_input.png");
            Ok((v, "blur.png".into(), "edges.png".into()))
        }
        Some(path) => {
            let img = image::open(path).map_err(|e| err(format!("reading {path}: {e}")))?.to_luma8();
            let img = image::imageops::resize(&img, size as u32, size as u32, image::imageops::FilterType::Triangle);
            let p = Path::new(path);
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("image");
            let dir = p.parent().unwrap_or(Path::new("."));
            println!("{path}: {size}x{size} grayscale");
            Ok((
                img.pixels().map(|px| px.0[0] as f32).collect(),
                dir.join(format!("{stem}_blur.png")),
                dir.join(format!("{stem}_edges.png")),
            ))
        }
    }
}

/// Write `v` (`size`×`size`) as an 8-bit grayscale PNG, each value through `map` and clamped.
fn save(v: &[f32], size: usize, path: &Path, map: impl Fn(f32) -> f32) -> xp::Result<()> {
    let img = image::GrayImage::from_fn(size as u32, size as u32, |c, r| {
        image::Luma([map(v[r as usize * size + c as usize]).clamp(0.0, 255.0) as u8])
    });
    img.save(path).map_err(|e| Error::value("blur", format!("writing {}: {e}", path.display())))
}

/// `convolve2d(img, kernel, mode="same", boundary="symm")` on `dev`: the result on the host
/// and the time of one call in seconds (device events, median of `repeat` after a warm-up).
fn run_on(
    dev: &std::sync::Arc<dyn DynDevice>,
    img: &[f32],
    size: usize,
    kernel: &[f32],
) -> xp::Result<(Vec<f32>, f64)> {
    xp::with_device(dev, || {
        let im = Array::from_slice_on(dev, img, &[size, size])?;
        let k = Array::from_slice_on(dev, kernel, &[3, 3])?;
        let f = || convolve2d(&im, &k, Mode::Same, Boundary::Symm, 0);
        let r = xp::benchmark_named("convolve2d", f, 5, 1)?;
        let mut t = r.gpu_times.clone();
        t.sort_by(f64::total_cmp);
        Ok((f()?.to_vec::<f32>()?, t[t.len() / 2]))
    })
}

fn run() -> xp::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size = match args.get(1) {
        Some(s) => s.parse().map_err(|_| Error::value("blur", format!("bad size {s}")))?,
        None => 1024usize,
    };
    let (img, blur_path, edge_path) = load(args.first(), size.max(3))?;
    let size = size.max(3);
    let mut boxk = [1.0f32; 9];
    let sum: f32 = boxk.iter().sum();
    boxk.iter_mut().for_each(|v| *v /= sum);
    let edge = [-1.0f32, 0.0, 1.0, -2.0, 0.0, 2.0, -1.0, 0.0, 1.0];

    let cpu = xp::device("cpu")?;
    let dev = default_device()?;
    let t0 = Instant::now();
    let _ = run_on(&cpu, &img[..9], 3, &boxk)?;
    let warm = t0.elapsed().as_secs_f64();
    println!("(first call on the CPU, with set-up: {warm:.3} s)");
    let mut worst = 0.0f32;
    let mut results = Vec::new();
    for (what, kernel) in [("blur", &boxk), ("edge", &edge)] {
        let (ref_v, t_cpu) = run_on(&cpu, &img, size, kernel)?;
        println!("CPU (xp, cpu) {what} time: {t_cpu:.6} s");
        let (dev_v, t_dev) = run_on(&dev, &img, size, kernel)?;
        println!(
            "{} (xp, {}) {what} time: {t_dev:.6} s",
            if dev.properties().is_host { "CPU" } else { "GPU" },
            dev.label()
        );
        let scale = ref_v.iter().fold(1.0f32, |m, v| m.max(v.abs()));
        let diff = ref_v.iter().zip(&dev_v).fold(0.0f32, |m, (a, b)| m.max((a - b).abs())) / scale;
        println!("  device vs CPU: largest difference {diff:.2e} of the largest value");
        worst = worst.max(diff);
        results.push(dev_v);
    }
    save(&results[0], size, &blur_path, |p| p)?;
    let emax = results[1].iter().fold(1e-6f32, |m, v| m.max(v.abs()));
    save(&results[1], size, &edge_path, |p| p.abs() / emax * 255.0)?;
    println!("wrote {} and {}", blur_path.display(), edge_path.display());
    if worst > 1e-5 {
        return Err(Error::value("blur", "the device's results differ from the CPU's"));
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
