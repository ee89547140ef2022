//! Sparse matrices on the best device present (`XP_DEVICE=cpu|cuda:0|hip:0` to choose): the
//! COO → CSR → `dot` example of CuPy's SciPy-compatible libraries, then a larger random matrix
//! whose products on the device are checked against the CPU backend's.
//!
//! ```text
//! cargo run --release --example sparse -- [ROWS] [DENSITY]
//! ```

use std::process::ExitCode;
use std::time::Instant;

use xp::prelude::*;
use xp::sparse;

fn run() -> xp::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rows: usize =
        args.first().map_or(Ok(100_000), |s| s.parse()).map_err(|_| Error::value("sparse", "bad ROWS"))?;
    let density: f64 =
        args.get(1).map_or(Ok(1e-4), |s| s.parse()).map_err(|_| Error::value("sparse", "bad DENSITY"))?;
    let d = default_device()?;
    println!("sparse matrices on {}", d.label());
    xp::with_device(&d, || -> xp::Result<()> {
        // rows, cols, vals -> coo_matrix(shape=(3, 3)).tocsr() -> dot([1, 2, 3])
        let r = xp::Array::from_vec(vec![0i64, 0, 1, 2, 2, 2])?;
        let c = xp::Array::from_vec(vec![0i64, 2, 2, 0, 1, 2])?;
        let v = xp::Array::from_vec(vec![1f32, 2., 3., 4., 5., 6.])?;
        let s = sparse::coo_matrix(&v, &r, &c, Some((3, 3)))?.tocsr()?;
        let y = s.dot(&xp::Array::from_vec(vec![1f32, 2., 3.])?)?;
        println!("Sparse dot: {:?}", y.to_vec::<f32>()?);

        // A random matrix, its products timed on the device and checked on the CPU.
        let a = sparse::random(rows, rows, density, DType::F32, 2026)?;
        let x = xp::random::default_rng(1).random(&[rows], DType::F32)?;
        let t0 = Instant::now();
        let y = a.dot(&x)?;
        let yt = a.T().dot(&x)?;
        let a2 = a.dot_sparse(&a)?;
        let s = y.sum(None, false)?.item::<f32>()?;
        println!(
            "random {rows}x{rows}, density {density}: nnz {}, A @ x, A.T @ x and A @ A (nnz {}) in {:.3} s (first call: kernels compile), sum(A @ x) = {s}",
            a.nnz(),
            a2.nnz(),
            t0.elapsed().as_secs_f64()
        );
        let cpu = xp::device("cpu")?;
        let host = |z: &xp::Array| -> xp::Result<Vec<f32>> { z.to_vec::<f32>() };
        let (yc, ytc) = xp::with_device(&cpu, || -> xp::Result<_> {
            let ac = sparse::csr_matrix(
                &a.data().to_device(&cpu)?,
                &a.indices().to_device(&cpu)?,
                &a.indptr().to_device(&cpu)?,
                Some(a.shape()),
            )?;
            let xc = x.to_device(&cpu)?;
            Ok((ac.dot(&xc)?, ac.T().dot(&xc)?))
        })?;
        let worst =
            |p: &[f32], q: &[f32]| p.iter().zip(q).map(|(a, b)| (a - b).abs() / b.abs().max(1.0)).fold(0f32, f32::max);
        let (e1, e2) = (worst(&host(&y)?, &host(&yc)?), worst(&host(&yt)?, &host(&ytc)?));
        println!("largest relative difference from the CPU: A @ x {e1:.1e}, A.T @ x {e2:.1e}");
        if e1 > 1e-5 || e2 > 1e-5 {
            return Err(Error::value("sparse", "the device's products differ from the CPU's"));
        }
        Ok(())
    })
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
