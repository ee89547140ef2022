//! An image pipeline with `xp::ndimage`, as SciPy and CuPy users write it: a synthetic
//! picture of bright discs on a noisy gradient is blurred (`gaussian_filter`), its edges found
//! (the `sobel` magnitude), thresholded, the discs labelled (`label`) and measured
//! (`center_of_mass`, `sum_labels`), a local-contrast map made with a user function
//! (`generic_filter`), and the edges enlarged (`zoom`, cubic splines) — on the default device
//! (`XP_DEVICE=cpu|cuda:0|hip:0` to choose).
//!
//! ```text
//! cargo run --release --example ndimage -- [SIZE]
//! ```
//!
//! The program checks its own result (one label per disc, each centre of mass within half a
//! pixel of the disc's centre, the edges strongest on the discs' rims), prints the time of each
//! step and of the whole pipeline (after a warm-up), and writes `ndimage_input.png`,
//! `ndimage_blur.png`, `ndimage_edges.png`, `ndimage_labels.png`, `ndimage_contrast.png` and
//! `ndimage_zoom.png` in the working directory.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use xp::array::current_stream;
use xp::ndimage::{self, FilterFunction, Mode};
use xp::prelude::*;

/// The discs: (row, column, radius) as fractions of the side.
const DISCS: [(f64, f64, f64); 7] = [
    (0.20, 0.22, 0.09),
    (0.25, 0.62, 0.06),
    (0.55, 0.40, 0.12),
    (0.72, 0.80, 0.08),
    (0.85, 0.18, 0.05),
    (0.48, 0.85, 0.04),
    (0.88, 0.55, 0.07),
];

/// The picture: a gradient from 30 to 70 with uniform noise of ±15, discs at 200.
fn picture(size: usize) -> Vec<f32> {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut noise = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 30.0
    };
    let n = size as f64;
    let mut v = Vec::with_capacity(size * size);
    for r in 0..size {
        for c in 0..size {
            let mut p = 30.0 + 40.0 * c as f32 / size as f32 + noise();
            for &(dr, dc, dr_) in &DISCS {
                let (y, x) = (r as f64 - dr * n, c as f64 - dc * n);
                if (y * y + x * x).sqrt() < dr_ * n {
                    p = 200.0 + noise();
                }
            }
            v.push(p);
        }
    }
    v
}

/// Write `v` (`rows`×`cols`) as an 8-bit grayscale PNG, scaled so that `hi` is white.
fn save(v: &[f32], rows: usize, cols: usize, hi: f32, path: &str) -> xp::Result<()> {
    let img = image::GrayImage::from_fn(cols as u32, rows as u32, |c, r| {
        image::Luma([(v[r as usize * cols + c as usize] / hi * 255.0).clamp(0.0, 255.0) as u8])
    });
    img.save(Path::new(path)).map_err(|e| Error::value("ndimage example", format!("writing {path}: {e}")))
}

struct Results {
    blur: Array,
    edges: Array,
    labels: Array,
    count: usize,
    centres: Vec<f64>,
    areas: Vec<f64>,
    contrast: Array,
    zoomed: Array,
    times: Vec<(&'static str, f64)>,
}

/// The pipeline on the current device; each step's time in seconds (host clock, the device
/// synchronised after the step).
fn pipeline(img: &Array, range: &FilterFunction) -> xp::Result<Results> {
    let stream = current_stream(&img.device_arc());
    let mut times = Vec::new();
    let mut t = Instant::now();
    let mut lap = |name: &'static str, times: &mut Vec<(&'static str, f64)>| -> xp::Result<()> {
        stream.synchronize()?;
        times.push((name, t.elapsed().as_secs_f64()));
        t = Instant::now();
        Ok(())
    };
    let blur = ndimage::gaussian_filter(img, &[2.0], &[0], Mode::Reflect, 0.0, 4.0, None)?;
    xp::eval(&[&blur])?;
    lap("gaussian_filter sigma=2", &mut times)?;
    let gy = ndimage::sobel(&blur, 0, Mode::Reflect, 0.0)?;
    let gx = ndimage::sobel(&blur, 1, Mode::Reflect, 0.0)?;
    let edges = gy.hypot(&gx)?;
    xp::eval(&[&edges])?;
    lap("sobel magnitude", &mut times)?;
    let mask = blur.gt(120.0)?;
    let (labels, count) = ndimage::label(&mask, None)?;
    lap("threshold + label", &mut times)?;
    let index = xp::arange(1.0, count as f64 + 1.0, 1.0, Some(DType::I64))?;
    let weights = mask.astype(DType::F64)?;
    let centres =
        ndimage::center_of_mass(&weights, Some(&labels), Some(&index))?.astype(DType::F64)?.to_vec::<f64>()?;
    let areas = ndimage::sum_labels(&weights, Some(&labels), Some(&index))?.astype(DType::F64)?.to_vec::<f64>()?;
    lap("center_of_mass + sum_labels", &mut times)?;
    let contrast = ndimage::generic_filter(&blur, range, Some(&[5]), None, None, Mode::Reflect, 0.0, &[], &[])?;
    xp::eval(&[&contrast])?;
    lap("generic_filter 5x5 range", &mut times)?;
    let zoomed = ndimage::zoom(&edges, &[2.0], 3, Mode::Nearest, 0.0, true, false)?;
    xp::eval(&[&zoomed])?;
    lap("zoom x2 order=3", &mut times)?;
    Ok(Results { blur, edges, labels, count, centres, areas, contrast, zoomed, times })
}

fn check(r: &Results, size: usize) -> xp::Result<()> {
    let fail = |m: String| Err(Error::value("ndimage example", m));
    if r.count != DISCS.len() {
        return fail(format!("found {} blobs, drew {}", r.count, DISCS.len()));
    }
    let n = size as f64;
    for &(dr, dc, rad) in &DISCS {
        let (y, x) = (dr * n, dc * n);
        let hit = r.centres.chunks(2).zip(&r.areas).any(|(c, &a)| {
            let area = std::f64::consts::PI * (rad * n).powi(2);
            (c[0] - y).abs() < 0.5 && (c[1] - x).abs() < 0.5 && (a / area - 1.0).abs() < 0.1
        });
        if !hit {
            return fail(format!("no blob centred at ({y:.1}, {x:.1}); centres {:?}", r.centres));
        }
    }
    // The strongest edge lies on a rim: within 3 pixels of a disc's circle.
    let e = r.edges.to_vec::<f32>()?;
    let (at, _) = e.iter().enumerate().fold((0, f32::MIN), |b, (k, &v)| if v > b.1 { (k, v) } else { b });
    let (row, col) = ((at / size) as f64, (at % size) as f64);
    let on_rim = DISCS.iter().any(|&(dr, dc, rad)| ((row - dr * n).hypot(col - dc * n) - rad * n).abs() < 3.0);
    if !on_rim {
        return fail(format!("the strongest edge at ({row}, {col}) is on no disc's rim"));
    }
    // The local range of the blurred picture: maximum minus minimum.
    let hi = ndimage::maximum_filter(&r.blur, Some(&[5]), None, Mode::Reflect, 0.0, &[])?;
    let lo = ndimage::minimum_filter(&r.blur, Some(&[5]), None, Mode::Reflect, 0.0, &[])?;
    let want = hi.sub(&lo)?.to_vec::<f32>()?;
    let got = r.contrast.to_vec::<f32>()?;
    if got.iter().zip(&want).any(|(g, w)| (g - w).abs() > 1e-3) {
        return fail("the generic filter's range differs from maximum - minimum".into());
    }
    if r.zoomed.shape() != [2 * size, 2 * size] {
        return fail(format!("zoom gave shape {:?}", r.zoomed.shape()));
    }
    Ok(())
}

fn run() -> xp::Result<()> {
    let size = match std::env::args().nth(1) {
        Some(s) => s.parse().map_err(|_| Error::value("ndimage example", format!("bad size {s}")))?,
        None => 1024usize,
    };
    if size < 64 {
        return Err(Error::value("ndimage example", "the picture needs a side of 64 or more"));
    }
    let dev = default_device()?;
    println!("xp::ndimage pipeline on {} ({}), {size}x{size} float32", dev.label(), dev.properties().name);
    xp::with_device(&dev, || -> xp::Result<()> {
        let v = picture(size);
        save(&v, size, size, 255.0, "ndimage_input.png")?;
        let img = Array::from_slice(&v, &[size, size])?;
        let range = FilterFunction::new(
            "double lo = buffer[0], hi = buffer[0];
             for (long long k = 1; k < filter_size; ++k) { lo = fmin(lo, buffer[k]); hi = fmax(hi, buffer[k]); }
             *return_value = hi - lo;",
        )?;
        // The first run compiles the kernels; the second is timed.
        let t0 = Instant::now();
        pipeline(&img, &range)?;
        println!("(first run, with kernel compilation: {:.3} s)", t0.elapsed().as_secs_f64());
        let t0 = Instant::now();
        let r = pipeline(&img, &range)?;
        current_stream(&dev).synchronize()?;
        let total = t0.elapsed().as_secs_f64();
        for (name, s) in &r.times {
            println!("  {name:32} {:9.3} ms", s * 1e3);
        }
        println!("  {:32} {:9.3} ms", "pipeline", total * 1e3);
        check(&r, size)?;
        println!("{} blobs found:", r.count);
        for (c, a) in r.centres.chunks(2).zip(&r.areas) {
            println!("  centre ({:7.1}, {:7.1})  area {a:8.0} px", c[0], c[1]);
        }
        save(&r.blur.to_vec::<f32>()?, size, size, 255.0, "ndimage_blur.png")?;
        let e = r.edges.to_vec::<f32>()?;
        let emax = e.iter().fold(1e-6f32, |m, &v| m.max(v));
        save(&e, size, size, emax, "ndimage_edges.png")?;
        let l = r.labels.astype(DType::F32)?.to_vec::<f32>()?;
        save(&l, size, size, r.count as f32, "ndimage_labels.png")?;
        let c = r.contrast.to_vec::<f32>()?;
        let cmax = c.iter().fold(1e-6f32, |m, &v| m.max(v));
        save(&c, size, size, cmax, "ndimage_contrast.png")?;
        let z = r.zoomed.to_vec::<f32>()?;
        save(&z, 2 * size, 2 * size, emax, "ndimage_zoom.png")?;
        println!("checked; wrote ndimage_input.png, ndimage_blur.png, ndimage_edges.png, ndimage_labels.png, ndimage_contrast.png, ndimage_zoom.png");
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
