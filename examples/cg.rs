//! Conjugate gradients on a random symmetric positive definite system `A x = b`, written with
//! array operations only (the port of CuPy's `examples/cg/cg.py`). `A` and `x` are drawn at
//! random, `b = A x`; `x` is then found again on the best device present (`XP_DEVICE` to
//! choose) and, when that is not the CPU, on the CPU too, and each run prints its time, its
//! distance from the answer and its relative residual.
//!
//! ```text
//! cargo run --release --example cg -- [N] [TOL] [MAX_ITER]
//! ```

use std::process::ExitCode;
use std::time::Instant;

use xp::prelude::*;

/// Solves `A x = b` by conjugate gradients, stopping when `‖r‖ < tol`.
fn fit(a: &Array, b: &Array, tol: f64, max_iter: usize) -> xp::Result<Array> {
    let mut x = xp::zeros(b.shape(), DType::F64)?;
    let mut r0 = b.sub(&xp::linalg::dot(a, &x)?)?;
    let mut p = r0.clone();
    for _ in 0..max_iter {
        let ap = xp::linalg::dot(a, &p)?;
        let rr = xp::linalg::inner(&r0, &r0)?;
        let alpha = rr.div(&xp::linalg::inner(&p, &ap)?)?;
        x = x.add(&alpha.mul(&p)?)?;
        let r1 = r0.sub(&alpha.mul(&ap)?)?;
        // The one host read of an iteration: the convergence test.
        if xp::linalg::norm(&r1, None, None, false)?.item::<f64>()? < tol {
            return Ok(x);
        }
        let beta = xp::linalg::inner(&r1, &r1)?.div(&rr)?;
        p = r1.add(&beta.mul(&p)?)?;
        r0 = r1;
    }
    println!("  failed to converge: raise MAX_ITER or TOL");
    Ok(x)
}

fn run() -> xp::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: f64| -> xp::Result<f64> {
        args.get(i).map_or(Ok(default), |s| s.parse().map_err(|_| Error::value("cg", format!("bad argument {s}"))))
    };
    let (n, tol, max_iter) = (arg(0, 2000.0)? as usize, arg(1, 0.1)?, arg(2, 5000.0)? as usize);
    let best = default_device()?;
    let cpu = xp::device("cpu")?;
    let mut devices = vec![best.clone()];
    if best.label() != cpu.label() {
        devices.push(cpu);
    }
    for trial in 0..3u64 {
        println!("trial {trial}: n = {n}");
        // Integers in [-50, 50), symmetrised; a diagonal above every row's sum of magnitudes
        // makes A positive definite (Gershgorin).
        let mut rng = xp::random::default_rng(trial);
        let r = rng.integers(-50, 50, &[n, n], DType::I64, false)?.astype(DType::F64)?;
        let s = r.add(&r.permute(&[1, 0])?)?;
        let shift = s.abs()?.sum(Some(&[1]), false)?.add_scalar(1.0)?;
        let a = s.add(&xp::linalg::diag(&shift, 0)?)?;
        let x_ans = rng.integers(-50, 50, &[n], DType::I64, false)?.astype(DType::F64)?;
        let b = xp::linalg::dot(&a, &x_ans)?;
        for d in &devices {
            let (a, b, x_ans) = (a.to_device(d)?, b.to_device(d)?, x_ans.to_device(d)?);
            xp::with_device(d, || -> xp::Result<()> {
                let t0 = Instant::now();
                let x = fit(&a, &b, tol, max_iter)?;
                let secs = t0.elapsed().as_secs_f64();
                let dist = xp::linalg::norm(&x.sub(&x_ans)?, None, None, false)?.item::<f64>()?;
                let res = xp::linalg::norm(&xp::linalg::dot(&a, &x)?.sub(&b)?, None, None, false)?.item::<f64>()?
                    / xp::linalg::norm(&b, None, None, false)?.item::<f64>()?;
                println!("  {:>8}: {secs:.3} s, |x - x_ans| = {dist:.3e}, |A x - b| / |b| = {res:.3e}", d.label());
                if res > 1e-6 {
                    return Err(Error::value("cg", format!("the residual {res:.3e} is too large")));
                }
                Ok(())
            })?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
