//! k-means clustering on the best device present, written once for any module (as NumPy/CuPy
//! code that takes `xp = get_array_module(X)`), and again with user kernels for the distances
//! and the cluster sizes. Both must converge to the same labels, with centres near the two
//! blobs the data is drawn from.
//!
//! A port of CuPy's `examples/kmeans/kmeans.py`; `cargo run --release --example kmeans`.

use xp::prelude::*;
use xp::{ElementwiseKernel, ReductionKernel};

/// `(centers, labels, iterations)` of k-means on the rows of `x`, from `init` (row indices).
fn fit_xp(x: &Array, init: &Array, n_clusters: usize, max_iter: usize) -> xp::Result<(Array, Array, usize)> {
    let xp = get_array_module(&[x])?;
    let mut pred = xp.zeros(&[x.shape()[0]], DType::I64)?;
    let mut centers = x.at(s![init])?;
    for it in 0..max_iter {
        // The distance of each sample to each centre, and the nearest centre.
        let diff = x.at(s![.., NewAxis, ..])? - centers.at(s![NewAxis, .., ..])?;
        let distances = xp.linalg().norm(&diff, None, Some(&[2]), false)?;
        let new_pred = xp.argmin(&distances, Some(1))?;
        // Converged when no label changes.
        if xp.all(&new_pred.eq(&pred)?, None, false)?.item::<bool>()? {
            return Ok((centers, pred, it));
        }
        pred = new_pred;
        // Each centre is the mean of its samples.
        let i = xp.arange(0, n_clusters as i64, 1, Some(DType::I64))?;
        let mask = pred.eq(&i.at(s![.., NewAxis])?)?;
        let sums = xp.sum(&xp.where_(&mask.at(s![.., .., NewAxis])?, x, 0.0)?, Some(&[1]), false)?;
        let counts = xp.count_nonzero(&mask, Some(&[1]))?.reshape(&[n_clusters as isize, 1])?;
        centers = sums / counts;
    }
    Ok((centers, pred, max_iter))
}

/// The same with user kernels: squared distances in one elementwise kernel, the sums of each
/// cluster's samples and the cluster sizes in reduction kernels (the first of two inputs, the
/// mask broadcast over the coordinates).
fn fit_custom(x: &Array, init: &Array, n_clusters: usize, max_iter: usize) -> xp::Result<(Array, Array, usize)> {
    let var_kernel = ElementwiseKernel::new(
        "T x0, T x1, T c0, T c1",
        "T out",
        "out = (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1)",
        "var_kernel",
    )?;
    let sum_kernel =
        ReductionKernel::new("T x, S mask", "T out", "mask ? x : 0", "a + b", "out = a", "0", "sum_kernel")?;
    let count_kernel = ReductionKernel::new(
        "T mask",
        "float32 out",
        "mask ? 1.0f : 0.0f",
        "a + b",
        "out = a",
        "0.0f",
        "count_kernel",
    )?;
    let xp = get_array_module(&[x])?;
    let mut pred = xp.zeros(&[x.shape()[0]], DType::I64)?;
    let mut centers = x.at(s![init])?;
    let (x0, x1) = (x.at(s![.., 0..1])?, x.at(s![.., 1..2])?);
    for it in 0..max_iter {
        let (c0, c1) = (centers.at(s![NewAxis, .., 0])?, centers.at(s![NewAxis, .., 1])?);
        let distances = var_kernel.call(&[(&x0).into(), (&x1).into(), (&c0).into(), (&c1).into()])?;
        let new_pred = distances.argmin(Some(1))?;
        if new_pred.eq(&pred)?.all(None, false)?.item::<bool>()? {
            return Ok((centers, pred, it));
        }
        pred = new_pred;
        let i = xp.arange(0, n_clusters as i64, 1, Some(DType::I64))?;
        let mask = pred.eq(&i.at(s![.., NewAxis])?)?;
        let mask3 = mask.at(s![.., .., NewAxis])?;
        let sums = sum_kernel.call_args(&[x.into(), (&mask3).into()], Some(&[1]), false)?;
        let counts = count_kernel.call(&mask, Some(&[1]), false)?.reshape(&[n_clusters as isize, 1])?;
        centers = sums / counts;
    }
    Ok((centers, pred, max_iter))
}

/// Run `f` between two events and print the time between them, as the Python's `timer`.
fn timer<R>(message: &str, f: impl FnOnce() -> xp::Result<R>) -> xp::Result<R> {
    let (start, end) = (Event::new(), Event::new());
    start.record(None)?;
    let r = f()?;
    end.record(None)?;
    end.synchronize()?;
    println!("{message}:  {:.6} sec", get_elapsed_time(&start, &end)? / 1e3);
    Ok(r)
}

fn main() -> xp::Result<()> {
    let d = default_device()?;
    let (num, n_clusters, max_iter) = (if d.label() == "cpu" { 100_000 } else { 5_000_000 }, 2, 100);
    xp::with_device(&d, || {
        // Two blobs, around (1, 1) and (-1, -1).
        xp::random::seed(1u64);
        let samples = xp::random::randn(&[num, 2], DType::F64)?;
        let x = xp::concatenate(&[&(&samples + 1.0), &(&samples - 1.0)], 0)?;
        let init = xp::random::permutation(2 * num)?.at(s![..n_clusters as isize])?;
        println!("{} samples, {n_clusters} clusters on {}", 2 * num, d.label());

        let (centers, pred, iters) = timer(" array code    ", || fit_xp(&x, &init, n_clusters, max_iter))?;
        let (centers2, pred2, _) = timer(" custom kernels", || fit_custom(&x, &init, n_clusters, max_iter))?;
        println!("converged after {iters} iterations; centres:\n{centers:.4}");

        // The blobs overlap: each cluster is a half-plane x + y ≷ 0, whose mean is at ±1.05
        // in each coordinate (√2 (2Φ(√2) - 1) + 2φ(√2), over √2).
        let c = centers.to_vec::<f64>()?;
        let sign = c[0].signum();
        let near = c.iter().enumerate().all(|(k, v)| (v - if k < 2 { sign } else { -sign } * 1.05).abs() < 0.02);
        if iters == max_iter || !near {
            return Err(Error::value("kmeans", "no convergence to the two clusters' centres"));
        }
        if !(xp::array_equal(&pred, &pred2, false)? && xp::allclose(&centers, &centers2, 1e-12, 0.0, false)?) {
            return Err(Error::value("kmeans", "the array code and the custom kernels disagree"));
        }
        Ok(())
    })
}
