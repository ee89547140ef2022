//! A two-component Gaussian mixture with diagonal covariances fitted by expectation
//! maximisation on the best device present, written once for any module (`xp` is the
//! arrays' namespace, as `cupy.get_array_module(X)` in Python). It must converge, and label
//! held-out samples of the two blobs with the accuracy of the Bayes classifier.
//!
//! The E-step computes each sample's responsibilities (`resp`) from the current weights,
//! means and covariances; the M-step computes weights, means and covariances from `resp`.
//! A port of CuPy's `examples/gmm/gmm.py`; `cargo run --release --example gmm`.

use std::f64::consts::PI;

use xp::prelude::*;

/// The log density of each sample under each component: `(n_samples, 2)`.
fn estimate_log_prob(x: &Array, inv_cov: &Array, means: &Array) -> xp::Result<Array> {
    let xp = get_array_module(&[x])?;
    let n_features = x.shape()[1] as f64;
    let log_det = xp.sum(&xp.log(inv_cov)?, Some(&[1]), false)?;
    let precisions = inv_cov.pow(2)?;
    let log_prob = xp.sum(&(means.pow(2)? * &precisions), Some(&[1]), false)?
        - 2.0 * xp.dot(x, &(means * &precisions).t())?
        + xp.dot(&x.pow(2)?, &precisions.t())?;
    Ok(-0.5 * (n_features * (2.0 * PI).ln() + log_prob) + log_det)
}

/// The M-step: weights, means and covariances from the responsibilities.
fn m_step(x: &Array, resp: &Array) -> xp::Result<(Array, Array, Array)> {
    let xp = get_array_module(&[x])?;
    let nk = xp.sum(resp, Some(&[0]), false)?;
    let means = xp.dot(&resp.t(), x)? / nk.at(s![.., NewAxis])?;
    let x2 = xp.dot(&resp.t(), &(x * x))? / nk.at(s![.., NewAxis])?;
    let covariances = x2 - means.pow(2)?;
    Ok((nk / x.shape()[0] as f64, means, covariances))
}

/// The E-step: the mean log likelihood and the log responsibilities.
fn e_step(x: &Array, inv_cov: &Array, means: &Array, weights: &Array) -> xp::Result<(f64, Array)> {
    let xp = get_array_module(&[x])?;
    let weighted_log_prob = estimate_log_prob(x, inv_cov, means)? + xp.log(weights)?;
    let log_prob_norm = xp.log(&xp.sum(&xp.exp(&weighted_log_prob)?, Some(&[1]), false)?)?;
    let log_resp = weighted_log_prob - log_prob_norm.at(s![.., NewAxis])?;
    Ok((xp.mean(&log_prob_norm, None, false)?.item::<f64>()?, log_resp))
}

/// EM from `means` and `covariances` until the likelihood changes by less than `tol`.
fn train_gmm(x: &Array, max_iter: usize, tol: f64, means: Array, cov: Array) -> xp::Result<[Array; 4]> {
    let xp = get_array_module(&[x])?;
    let (mut lower_bound, mut converged) = (f64::NEG_INFINITY, false);
    let (mut weights, mut means, mut cov) = (xp.asarray(&[0.5f32, 0.5], &[2])?, means, cov);
    let mut inv_cov = 1.0 / xp.sqrt(&cov)?;
    for _ in 0..max_iter {
        let prev_lower_bound = lower_bound;
        let (log_prob_norm, log_resp) = e_step(x, &inv_cov, &means, &weights)?;
        (weights, means, cov) = m_step(x, &xp.exp(&log_resp)?)?;
        inv_cov = 1.0 / xp.sqrt(&cov)?;
        lower_bound = log_prob_norm;
        if (lower_bound - prev_lower_bound).abs() < tol {
            converged = true;
            break;
        }
    }
    if !converged {
        return Err(Error::value("train_gmm", "failed to converge; increase max_iter or tol"));
    }
    Ok([inv_cov, means, weights, cov])
}

/// The most likely component of each sample.
fn predict(x: &Array, inv_cov: &Array, means: &Array, weights: &Array) -> xp::Result<Array> {
    let xp = get_array_module(&[x])?;
    let log_prob = estimate_log_prob(x, inv_cov, means)?;
    xp.argmax(&(log_prob + xp.log(weights)?), Some(1))
}

/// The percentage of `pred` equal to `y`.
fn accuracy(pred: &Array, y: &Array) -> xp::Result<f64> {
    let xp = get_array_module(&[pred, y])?;
    Ok(xp.mean(&pred.eq(y)?.astype(DType::F64)?, None, false)?.item::<f64>()? * 100.0)
}

/// Two blobs of `num` samples each, around +1 and -1 in every dimension, and their labels.
fn blobs(num: usize, dim: usize) -> xp::Result<(Array, Array)> {
    let one = xp::random::normal(1.0, 1.0, &[num, dim], DType::F32)?;
    let two = xp::random::normal(-1.0, 1.0, &[num, dim], DType::F32)?;
    let y = xp::concatenate(&[&xp::zeros(&[num], DType::I64)?, &xp::ones(&[num], DType::I64)?], 0)?;
    Ok((xp::concatenate(&[&one, &two], 0)?, y))
}

fn main() -> xp::Result<()> {
    let d = default_device()?;
    let (num, dim, max_iter, tol) = (if d.label() == "cpu" { 100_000 } else { 500_000 }, 2, 30, 1e-3);
    xp::with_device(&d, || {
        xp::random::seed(3u64);
        let (x_train, y_train) = blobs(num, dim)?;
        let (x_test, y_test) = blobs(100, dim)?;
        let mean1 = xp::random::normal(1.0, 1.0, &[dim], DType::F64)?;
        let mean2 = xp::random::normal(-1.0, 1.0, &[dim], DType::F64)?;
        let means = xp::stack(&[&mean1, &mean2], 0)?;
        let covariances = xp::random::rand(&[2, dim])?;
        println!("Running on {} ({} training samples)...", d.label(), 2 * num);

        let (start, end) = (Event::new(), Event::new());
        start.record(None)?;
        let [inv_cov, means, weights, _cov] = train_gmm(&x_train, max_iter, tol, means, covariances)?;
        let train_accuracy = accuracy(&predict(&x_train, &inv_cov, &means, &weights)?, &y_train)?;
        let test_accuracy = accuracy(&predict(&x_test, &inv_cov, &means, &weights)?, &y_test)?;
        end.record(None)?;
        end.synchronize()?;
        println!("train_accuracy : {train_accuracy:.6}\ntest_accuracy : {test_accuracy:.6}");
        println!("device:  {:.6} sec", get_elapsed_time(&start, &end)? / 1e3);
        println!("means:\n{means:.4}");

        // Blobs at distance 2√2 with unit variances: the Bayes classifier is right 92% of the
        // time. The components may come out in either order; `tol` stops EM near the means.
        let m = means.to_vec::<f64>()?;
        let sign = m[0].signum();
        let centred = m.iter().enumerate().all(|(k, v)| (v - if k < dim { sign } else { -sign }).abs() < 0.15);
        let (train, test) =
            if sign > 0.0 { (train_accuracy, test_accuracy) } else { (100.0 - train_accuracy, 100.0 - test_accuracy) };
        if !(centred && train > 90.0 && test > 80.0) {
            return Err(Error::value("gmm", "the fitted mixture does not recover the two blobs"));
        }
        Ok(())
    })
}
