//! Side-by-side benchmark: the workloads of the CuPy (GPU) or NumPy (CPU) anchor scripts, under
//! the same names, on the default device (`XP_DEVICE` to choose).
//!
//! Each workload is warmed up, then timed with the device's events around each repeat; the
//! median is reported, as a table and as JSON `{workload: ms}` (to the path given as the first
//! argument, else `$OUT/xp_bench.json` when `OUT` is set). Run it in the same session as the
//! anchor script so both columns come from one machine.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;

use xp::array::{call, current_stream, Operand};
use xp::prelude::*;
use xp::LaunchArg;

fn bench(d: &Arc<dyn DynDevice>, warm: usize, iters: usize, mut f: impl FnMut() -> xp::Result<()>) -> xp::Result<f64> {
    for _ in 0..warm {
        f()?;
    }
    let s = current_stream(d);
    s.synchronize()?;
    let mut ts = Vec::with_capacity(iters);
    for _ in 0..iters {
        let a = s.record_event()?;
        f()?;
        let b = s.record_event()?;
        b.synchronize()?;
        ts.push(a.elapsed_ms(&*b)? as f64);
    }
    Ok(median(&mut ts))
}

fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

struct Report(BTreeMap<String, f64>);

impl Report {
    fn rep(&mut self, name: &str, ms: f64, extra: String) {
        println!("{name:40} {ms:10.4} ms  {extra}");
        self.0.insert(name.to_string(), ms);
    }
}

/// `convolve2d(im, ones((3, 3)) / 9, mode="same", boundary="symm")` of float32 pictures
/// (`cupy_side_by_side.py` on GPUs: 1024² and 8192²; `numpy_side_by_side.py` on the CPU: 1024²,
/// named after SciPy's row).
fn signal_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    use xp::signal::{convolve2d, Boundary, Mode};
    xp::with_device(d, || -> xp::Result<()> {
        let k = Array::from_vec(vec![1.0f32 / 9.0; 9])?.reshape(&[3, 3])?;
        let sides: &[(usize, usize)] = if gpu { &[(1024, 10), (8192, 5)] } else { &[(1024, 10)] };
        for &(side, iters) in sides {
            let im = Array::from_vec(random(side * side, 21))?.reshape(&[side as isize, side as isize])?;
            let ms = bench(d, 2, iters, || convolve2d(&im, &k, Mode::Same, Boundary::Symm, 0).map(|_| ()))?;
            let name = format!("convolve2d {side}^2 3x3 symm{}", if gpu { "" } else { " (scipy)" });
            r.rep(&name, ms, format!("{:.1} GB/s", (8 * side * side) as f64 / ms / 1e6));
        }
        Ok(())
    })
}

/// `scipy.signal` beyond convolution (`scripts/bench/cupy_signal.py` on GPUs,
/// `scripts/bench/numpy_signal.py` on the CPU, `XP_BENCH_ONLY=scipy_signal`): IIR filtering
/// (Butterworth designs as float32 or float64 coefficients, along the last axis), spectral
/// estimates, polyphase resampling, peak finding and the 2-d median filter, all on float32
/// signals.
fn scipy_signal_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    use xp::signal::design::{BType, Filter, Output};
    use xp::signal::spectral::{Average, SpectralOptions};
    use xp::signal::{self, FindPeaksOptions, PadType, PolyPad};
    xp::with_device(d, || -> xp::Result<()> {
        let (warm, iters) = if gpu { (2, 10) } else { (1, 3) };
        let done = |a: Array| xp::eval(&[&a]);
        let ba = |order: usize, dt: DType| -> xp::Result<(Array, Array)> {
            match signal::butter(order, &[0.25], BType::Lowpass, false, Output::Ba, None)? {
                Filter::Ba(b, a) => Ok((b.astype(dt)?, a.astype(dt)?)),
                _ => Err(Error::value("bench", "butter gave no (b, a)")),
            }
        };
        let sos8 = match signal::butter(8, &[0.25], BType::Lowpass, false, Output::Sos, None)? {
            Filter::Sos(s) => s.astype(DType::F32)?,
            _ => return Err(Error::value("bench", "butter gave no sos")),
        };
        let signals = |lines: usize, n: usize, seed: u64| -> xp::Result<Array> {
            Array::from_vec(random(lines * n, seed))?.reshape(&[lines as isize, n as isize])
        };
        let sfx = if gpu { "" } else { " (scipy)" };
        if gpu {
            let x = Array::from_vec(random(1 << 24, 61))?;
            for dt in [DType::F32, DType::F64] {
                let (b, a) = ba(4, dt)?;
                let xd = x.astype(dt)?;
                let ms = bench(d, warm, iters, || done(signal::lfilter(&b, &a, &xd, -1, None)?.0))?;
                r.rep(&format!("lfilter butter4 {} 2^24", dt.short()), ms, String::new());
            }
            let (b, a) = ba(4, DType::F32)?;
            let xb = signals(1024, 16384, 62)?;
            let ms = bench(d, warm, iters, || done(signal::lfilter(&b, &a, &xb, -1, None)?.0))?;
            r.rep("lfilter butter4 f32 1024x16384", ms, String::new());
        }
        let (lines, tag) = if gpu { (64usize, "64x2^20") } else { (8, "8x2^20") };
        let x = signals(lines, 1 << 20, 63)?;
        let (b, a) = ba(8, DType::F32)?;
        let ms = bench(d, warm, iters, || done(signal::lfilter(&b, &a, &x, -1, None)?.0))?;
        r.rep(&format!("lfilter butter8 f32 {tag}{sfx}"), ms, String::new());
        let ms = bench(d, warm, iters, || done(signal::sosfilt(&sos8, &x, -1, None)?.0))?;
        r.rep(&format!("sosfilt butter8 f32 {tag}{sfx}"), ms, String::new());
        let ms = bench(d, warm, iters, || done(signal::sosfiltfilt(&sos8, &x, -1, Some(PadType::Odd), None)?))?;
        r.rep(&format!("sosfiltfilt butter8 f32 {tag}{sfx}"), ms, String::new());
        drop(x);
        let (p, ptag) = if gpu { (26, "2^26") } else { (24, "2^24") };
        let v = Array::from_vec(random(1 << p, 64))?;
        let o = SpectralOptions { nperseg: Some(1024), ..SpectralOptions::default() };
        let ms = bench(d, warm, iters, || done(signal::welch(&v, &o, Average::Mean)?))?;
        r.rep(&format!("welch f32 {ptag} nperseg=1024{sfx}"), ms, String::new());
        if !gpu {
            return Ok(());
        }
        let v24 = Array::from_vec(random(1 << 24, 65))?;
        let o = SpectralOptions { nperseg: Some(256), ..SpectralOptions::default() };
        let ms =
            bench(d, warm, iters, || done(signal::stft(&v24, &o, Some(signal::spectral::BoundaryExt::Zeros), true)?))?;
        r.rep("stft f32 2^24 nperseg=256", ms, String::new());
        let ms = bench(d, warm, iters, || done(signal::resample_poly(&v24, 3, 2, 0, None, PolyPad::Constant)?))?;
        r.rep("resample_poly 3/2 f32 2^24", ms, String::new());
        let fp = FindPeaksOptions::default();
        let ms = bench(d, warm, iters, || signal::find_peaks(&v24, &fp).map(|_| ()))?;
        r.rep("find_peaks f32 2^24", ms, String::new());
        let m = signals(4096, 4096, 66)?;
        let ms = bench(d, warm, iters, || done(signal::medfilt2d(&m, Some(&[5, 5]))?))?;
        r.rep("medfilt2d f32 4096^2 k=5", ms, String::new());
        Ok(())
    })
}

/// Sorting, searching, compaction and random numbers (`cupy_side_by_side.py` and `scripts/bench/cupy_sort.py`
/// on GPUs, `numpy_side_by_side.py` and `scripts/bench/numpy_sort.py` on the CPU).
fn sort_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    xp::with_device(d, || -> xp::Result<()> {
        let (warm, iters) = (2, 10);
        let gb = |bytes: usize, ms: f64| format!("{:.1} GB/s", bytes as f64 / ms / 1e6);
        let n = if gpu { 1usize << 26 } else { 1 << 22 };
        let tag = if gpu { "2^26" } else { "2^22" };
        let s = Array::from_vec(random(n, 11))?;
        let ms = bench(d, warm, iters, || s.sort(Some(-1)).map(|_| ()))?;
        r.rep(&format!("sort f32 {tag}"), ms, format!("{:.2} Gkeys/s", n as f64 / ms / 1e6));
        let ms = bench(d, warm, iters, || s.argsort(Some(-1)).map(|_| ()))?;
        r.rep(&format!("argsort f32 {tag}"), ms, format!("{:.2} Gkeys/s", n as f64 / ms / 1e6));
        if !gpu {
            return Ok(());
        }
        let mask = s.gt(0.5)?;
        let ms = bench(d, warm, iters, || s.compress_mask(&mask).map(|_| ()))?;
        r.rep("boolean mask select f32 2^26", ms, String::new());
        let u = s.slice(&[SliceArg::range(0, 1 << 24, 1)])?.mul_scalar(1e6)?.astype(DType::I32)?;
        let ms = bench(d, warm, iters, || xp::array::unique(&u).map(|_| ()))?;
        r.rep("unique int32 2^24", ms, String::new());
        let hay = s.slice(&[SliceArg::range(0, 1 << 20, 1)])?.sort(Some(-1))?;
        let needles = s.slice(&[SliceArg::range(0, 1 << 24, 1)])?;
        let ms =
            bench(d, warm, iters, || xp::array::searchsorted(&hay, &needles, xp::array::Side::Left, None).map(|_| ()))?;
        r.rep("searchsorted 2^24 into 2^20", ms, String::new());
        let rows = s.slice(&[SliceArg::range(0, 1 << 24, 1)])?.reshape(&[1 << 14, 1024])?;
        let ms = bench(d, warm, iters, || rows.sort(Some(-1)).map(|_| ()))?;
        r.rep("sort f32 axis -1 of 2^14 x 1024", ms, String::new());
        let bi = s.slice(&[SliceArg::range(0, 1 << 24, 1)])?.mul_scalar(1024.0)?.astype(DType::I32)?;
        let ms = bench(d, warm, iters, || xp::array::bincount(&bi, None, 1024).map(|_| ()))?;
        r.rep("bincount int32 2^24 into 1024 bins", ms, gb(4 << 24, ms));
        let ms = bench(d, warm, iters, || {
            xp::array::histogram(&s, xp::array::Bins::Count(256), Some((0.0, 1.0)), false, None).map(|_| ())
        })?;
        r.rep("histogram f32 2^26, 256 bins", ms, gb(4 << 26, ms));
        let mut g = xp::random::default_rng(0u64);
        let ms = bench(d, warm, iters, || g.uniform(0.0, 1.0, &[1 << 26], DType::F32).map(|_| ()))?;
        r.rep("rng uniform f32 2^26", ms, gb(4 << 26, ms));
        let ms = bench(d, warm, iters, || g.normal(0.0, 1.0, &[1 << 26], DType::F32).map(|_| ()))?;
        r.rep("rng normal f32 2^26", ms, gb(4 << 26, ms));
        Ok(())
    })
}

/// Sparse matrices (`scripts/bench/cupy_sparse.py` on GPUs, `scripts/bench/numpy_sparse.py`
/// on the CPU): COO to CSR, and products of a random and a banded matrix.
fn sparse_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    use xp::sparse;
    xp::with_device(d, || -> xp::Result<()> {
        let (m, nnz) = if gpu { (1usize << 20, 1usize << 24) } else { (1 << 18, 1 << 22) };
        let (tm, tn) = if gpu { ("2^20", "2^24") } else { ("2^18", "2^22") };
        let mut g = xp::random::default_rng(0u64);
        let rows = g.integers(0, m as i64, &[nnz], DType::I32, false)?;
        let cols = g.integers(0, m as i64, &[nnz], DType::I32, false)?;
        let vals = g.random(&[nnz], DType::F32)?;
        let coo = sparse::coo_matrix(&vals, &rows, &cols, Some((m, m)))?;
        let ms = bench(d, 1, if gpu { 10 } else { 5 }, || coo.tocsr().map(|_| ()))?;
        r.rep(&format!("coo->csr {tn}"), ms, format!("{:.2} Gnnz/s", nnz as f64 / ms / 1e6));
        let a = coo.tocsr()?;
        let x = g.random(&[m], DType::F32)?;
        let bytes = a.nnz() * 8 + m * 12;
        let ms = bench(d, 2, 20, || a.dot(&x).map(|_| ()))?;
        r.rep(&format!("spmv csr f32 random {tm} rows, {tn} nnz"), ms, format!("{:.1} GB/s", bytes as f64 / ms / 1e6));
        sparse_solver_workloads(d, gpu, r)?;
        if !gpu {
            return Ok(());
        }
        let xm = g.random(&[m, 64], DType::F32)?;
        let ms = bench(d, 1, 10, || a.dot(&xm).map(|_| ()))?;
        r.rep(
            "spmm csr f32 random 2^24 nnz, 64 columns",
            ms,
            format!("{:.0} GFLOP/s", 2.0 * 64.0 * a.nnz() as f64 / ms / 1e6),
        );
        let ms = bench(d, 2, 20, || a.T().dot(&x).map(|_| ()))?;
        r.rep("spmv csr^T f32 random 2^24 nnz", ms, String::new());
        let nb = 1usize << 22;
        let ones = xp::ones(&[nb], DType::F32)?;
        let band = sparse::diags(&[&ones, &ones, &ones, &ones], &[-1, 0, 1, 2], Some((nb, nb)), Some(DType::F32))?;
        let xb = g.random(&[nb], DType::F32)?;
        let ms = bench(d, 2, 20, || band.dot(&xb).map(|_| ()))?;
        r.rep(
            "spmv csr f32 banded 2^22 rows, 4 diagonals",
            ms,
            format!("{:.1} GB/s", (band.nnz() * 8 + nb * 12) as f64 / ms / 1e6),
        );
        let k = SliceArg::range(0, 1 << 20, 1);
        let small = sparse::coo_matrix(
            &vals.slice(&[k])?,
            &rows.slice(&[k])?.right_shift(6)?,
            &cols.slice(&[k])?.right_shift(6)?,
            Some((m >> 6, m >> 6)),
        )?
        .tocsr()?;
        let ms = bench(d, 1, 5, || small.dot_sparse(&small).map(|_| ()))?;
        r.rep("spgemm csr f32 2^14 rows, 2^20 nnz, A @ A", ms, String::new());
        // Row slicing A[::2] of the 2^24-nonzero matrix.
        let ms = bench(d, 2, 10, || a.slice_rows(None, None, Some(2)).map(|_| ()))?;
        r.rep("csr row slice A[::2] f32 2^24 nnz", ms, String::new());
        // kron of two random 1000 x 1000 matrices of density 0.01 (10^4 nonzeros each).
        let k1 = sparse::random(1000, 1000, 0.01, DType::F64, 1)?;
        let k2 = sparse::random(1000, 1000, 0.01, DType::F64, 2)?;
        let ms = bench(d, 1, 5, || sparse::kron(&k1, &k2).map(|_| ()))?;
        r.rep("kron csr f64 1000^2 x 1000^2 density 0.01", ms, String::new());
        // connected_components of a random graph of 2^22 nodes and 2^23 edges (weak).
        let nodes = 1usize << 22;
        let er = g.integers(0, nodes as i64, &[nodes * 2], DType::I32, false)?;
        let ec = g.integers(0, nodes as i64, &[nodes * 2], DType::I32, false)?;
        let ev = xp::ones(&[nodes * 2], DType::F32)?;
        let graph = sparse::coo_matrix(&ev, &er, &ec, Some((nodes, nodes)))?.tocsr()?;
        let ms = bench(d, 1, 5, || {
            sparse::csgraph::connected_components(&graph, true, sparse::csgraph::Connection::Weak).map(|_| ())
        })?;
        r.rep("connected_components 2^22 nodes, 2^23 edges, weak", ms, String::new());
        Ok(())
    })
}

/// The 5-point Laplacian of a `side × side` grid, float64 CSR.
fn poisson_2d(side: usize) -> xp::Result<xp::sparse::CsrMatrix> {
    use xp::sparse;
    let main = xp::full(&[side], 2.0, DType::F64)?;
    let off = xp::full(&[side - 1], -1.0, DType::F64)?;
    let t = sparse::diags(&[&main, &off, &off], &[0, 1, -1], Some((side, side)), None)?;
    let i = sparse::identity(side, DType::F64)?;
    sparse::kron(&t, &i)?.add(&sparse::kron(&i, &t)?)
}

/// The sparse solvers on the 2-d Poisson matrix of a 1024² grid (GPUs) or a 512² one (the
/// CPU): `cg` to 1e-8 and on GPUs `eigsh(k=6)`; `gmres` (restart 30) to 1e-8 and `spsolve` on
/// a 256² grid
/// (`scripts/bench/cupy_sparse.py`, `scripts/bench/numpy_sparse.py`).
fn sparse_solver_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    use xp::sparse::linalg as sla;
    let side = if gpu { 1024usize } else { 512 };
    let a = poisson_2d(side)?;
    let n = side * side;
    let b = xp::ones(&[n], DType::F64)?;
    let o = sla::SolverOptions { rtol: Some(1e-8), ..Default::default() };
    let resid = |x: &Array| -> xp::Result<String> {
        let res = xp::linalg::norm(&a.dot(x)?.sub(&b)?, None, None, false)?.item::<f64>()?;
        Ok(format!("residual {:.1e}", res / (n as f64).sqrt()))
    };
    let ms = bench(d, 1, 3, || sla::cg(&a, &b, &o).map(|_| ()))?;
    r.rep(&format!("cg f64 poisson {side}^2 rtol 1e-8"), ms, resid(&sla::cg(&a, &b, &o)?.0)?);
    // Restarted GMRES and the direct solve on a 256² grid: GMRES(30) needs tens of thousands of
    // iterations on the larger grid, and the sparse LU's fill grows as side³.
    let small = 256usize;
    let (a2, n2) = (poisson_2d(small)?, small * small);
    let b2 = xp::ones(&[n2], DType::F64)?;
    let resid2 = |x: &Array| -> xp::Result<String> {
        let res = xp::linalg::norm(&a2.dot(x)?.sub(&b2)?, None, None, false)?.item::<f64>()?;
        Ok(format!("residual {:.1e}", res / (n2 as f64).sqrt()))
    };
    let ms = bench(d, 1, 3, || sla::gmres(&a2, &b2, Some(30), &o).map(|_| ()))?;
    r.rep(&format!("gmres(30) f64 poisson {small}^2 rtol 1e-8"), ms, resid2(&sla::gmres(&a2, &b2, Some(30), &o)?.0)?);
    let ms = bench(d, 1, 3, || sla::spsolve(&a2, &b2).map(|_| ()))?;
    r.rep(&format!("spsolve f64 poisson {small}^2"), ms, resid2(&sla::spsolve(&a2, &b2)?)?);
    if gpu {
        let ms = bench(d, 1, 3, || sla::eigsh(&a, 6, &Default::default()).map(|_| ()))?;
        r.rep("eigsh k=6 f64 poisson 1024^2", ms, String::new());
    }
    Ok(())
}

/// The matrix products of the anchor scripts (`cupy_side_by_side.py` and
/// `scripts/bench/cupy_linalg.py` on GPUs, `numpy_side_by_side.py` on the CPU).
fn product_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    xp::with_device(d, || -> xp::Result<()> {
        let tflops = |n: usize, ms: f64| format!("{:.1} TFLOP/s", 2.0 * (n as f64).powi(3) / ms / 1e9);
        if gpu {
            for n in [4096usize, 8192] {
                let a = Array::from_slice(&random(n * n, 11), &[n, n])?;
                let b = Array::from_slice(&random(n * n, 12), &[n, n])?;
                for (name, dt) in [("f32", DType::F32), ("f64", DType::F64), ("f16", DType::F16)] {
                    let (x, y) = (a.astype(dt)?, b.astype(dt)?);
                    let ms = bench(d, 2, 10, || x.matmul(&y).map(|_| ()))?;
                    r.rep(&format!("matmul {name} {n}"), ms, tflops(n, ms));
                }
            }
            let a = Array::from_slice(&random(10000 * 32 * 32, 13), &[10000, 32, 32])?;
            let b = Array::from_slice(&random(10000 * 32 * 32, 14), &[10000, 32, 32])?;
            let ms = bench(d, 3, 20, || a.matmul(&b).map(|_| ()))?;
            r.rep("matmul f32 batched 10000x(32x32)", ms, String::new());
            let ms = bench(d, 3, 20, || xp::einsum("bij,bjk->bik", &[&a, &b]).map(|_| ()))?;
            r.rep("einsum bij,bjk->bik f32 10000x(32x32)", ms, String::new());
        } else {
            let a = Array::from_slice(&random(1024 * 1024, 11), &[1024, 1024])?;
            let b = Array::from_slice(&random(1024 * 1024, 12), &[1024, 1024])?;
            let ms = bench(d, 1, 7, || a.matmul(&b).map(|_| ()))?;
            r.rep("matmul f32 1024", ms, tflops(1024, ms));
        }
        solver_workloads(d, gpu, r)
    })
}

/// A well-conditioned `n × n` system of `dt`: `random + n I` and a random right-hand side.
fn system(n: usize, dt: DType) -> xp::Result<(Array, Array)> {
    let eye = xp::eye(n, None, 0, DType::F32)?.mul_scalar(n as f64)?;
    let a = Array::from_slice(&random(n * n, 21), &[n, n])?.add(&eye)?.astype(dt)?;
    let b = Array::from_slice(&random(n, 22), &[n])?.astype(dt)?;
    Ok((a, b))
}

/// The solver workloads: `cupy_side_by_side.py` and `scripts/bench/cupy_linalg.py` on GPUs,
/// `scripts/bench/numpy_linalg.py` on the CPU.
fn solver_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    use xp::linalg;
    let residual = |a: &Array, x: &Array, b: &Array| -> xp::Result<String> {
        let res = linalg::norm(&a.matmul(x)?.sub(b)?, None, None, false)?.item::<f64>()?;
        Ok(format!("residual {:.1e}", res / linalg::norm(b, None, None, false)?.item::<f64>()?))
    };
    if gpu {
        let (a, b) = system(1024, DType::F32)?;
        let ms = bench(d, 3, 10, || linalg::solve(&a, &b).map(|_| ()))?;
        r.rep("linalg.solve f32 1024", ms, residual(&a, &linalg::solve(&a, &b)?, &b)?);
        let m = Array::from_slice(&random(1024 * 1024, 23), &[1024, 1024])?;
        let ms = bench(d, 1, 3, || linalg::svd(&m, true).map(|_| ()))?;
        r.rep("svd f32 1024", ms, "Jacobi (gesvdj)".into());
        // The QR-iteration solver CuPy calls, for the choice of the default.
        std::env::set_var("XP_CUSOLVER_SVD", "gesvd");
        let ms = bench(d, 1, 3, || linalg::svd(&m, true).map(|_| ()));
        std::env::remove_var("XP_CUSOLVER_SVD");
        r.rep("svd f32 1024 [Xgesvd]", ms?, String::new());
        let s = Array::from_slice(&random(2048 * 2048, 24), &[2048, 2048])?;
        let s = s.add(&s.t())?;
        let ms = bench(d, 1, 3, || linalg::eigh(&s, "L").map(|_| ()))?;
        r.rep("eigh f32 2048", ms, String::new());
        let (c, _) = system(2048, DType::F32)?;
        let c = c.matmul(&c.t())?;
        let ms = bench(d, 2, 10, || linalg::cholesky(&c, false).map(|_| ()))?;
        r.rep("cholesky f32 2048", ms, String::new());
        let ms = bench(d, 2, 10, || linalg::inv(&a).map(|_| ()))?;
        r.rep("inv f32 1024", ms, String::new());
        let batch = Array::from_slice(&random(1000 * 32 * 32, 25), &[1000, 32, 32])?
            .add(&xp::eye(32, None, 0, DType::F32)?.mul_scalar(32.0)?)?;
        let ms = bench(d, 2, 10, || linalg::inv(&batch).map(|_| ()))?;
        r.rep("inv f32 batched 1000x(32x32)", ms, String::new());
        // solve_triangular of the upper triangle of a 4096 system, 4096 right-hand sides.
        let (t, _) = system(4096, DType::F32)?;
        let t = xp::array::triu(&t, 0)?;
        let rhs = Array::from_slice(&random(4096 * 4096, 26), &[4096, 4096])?;
        let ms = bench(d, 2, 10, || linalg::solve_triangular(&t, &rhs, linalg::Trans::N, false, false).map(|_| ()))?;
        r.rep("solve_triangular f32 4096, 4096 rhs", ms, String::new());
        let e =
            Array::from_slice(&random(1024 * 1024, 27), &[1024, 1024])?.astype(DType::F64)?.mul_scalar(1.0 / 1024.0)?;
        let ms = bench(d, 1, 5, || linalg::expm(&e).map(|_| ()))?;
        r.rep("expm f64 1024", ms, String::new());
    } else {
        let (a, b) = system(1024, DType::F64)?;
        let ms = bench(d, 1, 7, || linalg::solve(&a, &b).map(|_| ()))?;
        r.rep("linalg.solve f64 1024", ms, residual(&a, &linalg::solve(&a, &b)?, &b)?);
        let m = Array::from_slice(&random(512 * 512, 23), &[512, 512])?.astype(DType::F64)?;
        let ms = bench(d, 1, 7, || linalg::svd(&m, true).map(|_| ()))?;
        r.rep("svd f64 512", ms, String::new());
        let s = Array::from_slice(&random(512 * 512, 24), &[512, 512])?.astype(DType::F64)?;
        let s = s.add(&s.t())?;
        let ms = bench(d, 1, 7, || linalg::eigh(&s, "L").map(|_| ()))?;
        r.rep("eigh f64 512", ms, String::new());
    }
    Ok(())
}

/// The FFT workloads of the anchor scripts (`scripts/bench/cupy_fft.py` on GPUs,
/// `scripts/bench/numpy_fft.py` on the CPU), under their names.
fn fft_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    use xp::fft;
    xp::with_device(d, || -> xp::Result<()> {
        let (warm, iters) = if gpu { (3, 20) } else { (1, 7) };
        let cplx = |n: usize, dt: DType| -> xp::Result<Array> {
            let v = random(2 * n, 7);
            let z: Vec<num_complex::Complex<f32>> =
                v.chunks(2).map(|p| num_complex::Complex::new(p[0], p[1])).collect();
            Array::from_slice(&z, &[n])?.astype(dt)
        };
        if gpu {
            let x = cplx(1 << 24, DType::C64)?;
            r.rep("fft c64 2^24", bench(d, warm, iters, || fft::fft(&x, None, -1, None).map(|_| ()))?, String::new());
            let img = Array::from_slice(&random(4096 * 4096, 8), &[4096, 4096])?;
            let ms = bench(d, warm, iters, || fft::fft2(&img, None, None, None).map(|_| ()))?;
            r.rep("rfft? fft2 f32->c64 4096^2", ms, String::new());
            let xr = Array::from_slice(&random(1 << 24, 9), &[1 << 24])?;
            r.rep(
                "rfft f32 2^24",
                bench(d, warm, iters, || fft::rfft(&xr, None, -1, None).map(|_| ()))?,
                String::new(),
            );
            let h = fft::rfft(&xr, None, -1, None)?;
            r.rep(
                "irfft c64->f32 2^24",
                bench(d, warm, iters, || fft::irfft(&h, None, -1, None).map(|_| ()))?,
                String::new(),
            );
            let b = cplx(1024 * 16384, DType::C64)?.reshape(&[16384, 1024])?;
            let ms = bench(d, warm, iters, || fft::fft(&b, None, -1, None).map(|_| ()))?;
            r.rep("fft c64 batched 16384 x 1024", ms, String::new());
            let v = cplx(256 * 256 * 256, DType::C64)?.reshape(&[256, 256, 256])?;
            let ms = bench(d, warm, iters, || fft::fftn(&v, None, None, None).map(|_| ()))?;
            r.rep("fftn c64 256^3", ms, String::new());
        } else {
            let x = cplx(1 << 20, DType::C64)?;
            r.rep("fft c64 2^20", bench(d, warm, iters, || fft::fft(&x, None, -1, None).map(|_| ()))?, String::new());
            let xr = Array::from_slice(&random(1 << 20, 9), &[1 << 20])?.astype(DType::F64)?;
            r.rep(
                "rfft f64 2^20",
                bench(d, warm, iters, || fft::rfft(&xr, None, -1, None).map(|_| ()))?,
                String::new(),
            );
            let m = cplx(1024 * 1024, DType::C64)?.reshape(&[1024, 1024])?;
            let ms = bench(d, warm, iters, || fft::fft2(&m, None, None, None).map(|_| ()))?;
            r.rep("fft2 c64 1024^2", ms, String::new());
        }
        // Host time of a call whose plan is cached: a small transform, 2,000 calls.
        let small = cplx(1024, DType::C64)?;
        let s = current_stream(d);
        for _ in 0..100 {
            fft::fft(&small, None, -1, None)?;
        }
        s.synchronize()?;
        let mut us = Vec::new();
        for _ in 0..5 {
            let t0 = std::time::Instant::now();
            for _ in 0..2000 {
                fft::fft(&small, None, -1, None)?;
            }
            s.synchronize()?;
            us.push(t0.elapsed().as_secs_f64() / 2000.0 * 1e6);
        }
        let us = median(&mut us);
        println!("fft c64 1024, cached plan, host time per call: {us:.2} us");
        r.0.insert("fft c64 1024 cached plan (host-timed per call, us)".into(), us);
        Ok(())
    })
}

/// Several GPUs (the first two): `all_reduce f32 256 MiB` in one process (NCCL, the two ranks
/// grouped), its bus bandwidth as nccl-tests and `scripts/bench/torch_distributed.py` count it
/// (bytes × 2(n−1)/n per second), and a peer copy of 1 GiB. Each is timed as 20 (10) calls
/// back to back between synchronisations of both devices, the median of 5 such runs.
fn distributed_workloads(r: &mut Report) -> xp::Result<()> {
    use xp::distributed::{self, ReduceOp};
    let gpus: Vec<_> = xp::devices().into_iter().filter(|d| !d.properties().is_host).take(2).collect();
    if gpus.len() < 2 {
        println!("distributed workloads: skipped ({} GPU; they need two)", gpus.len());
        return Ok(());
    }
    let sync = || gpus.iter().try_for_each(|g| current_stream(g).synchronize());
    let timed = |reps: usize, f: &dyn Fn() -> xp::Result<()>| -> xp::Result<f64> {
        for _ in 0..3 {
            f()?;
        }
        sync()?;
        let mut ms = Vec::new();
        for _ in 0..5 {
            let t0 = std::time::Instant::now();
            for _ in 0..reps {
                f()?;
            }
            sync()?;
            ms.push(t0.elapsed().as_secs_f64() * 1e3 / reps as f64);
        }
        Ok(median(&mut ms))
    };
    let comms = distributed::init_all(&gpus)?;
    println!("{} ranks on {} and {}, {}", comms.len(), gpus[0].label(), gpus[1].label(), comms[0].library());
    let n = (256usize << 20) / 4;
    let xs = gpus.iter().map(|g| xp::with_device(g, || xp::ones(&[n], DType::F32))).collect::<xp::Result<Vec<_>>>()?;
    let ms = timed(20, &|| {
        distributed::group(&comms, || comms.iter().zip(&xs).try_for_each(|(c, x)| c.all_reduce_(x, ReduceOp::Sum)))
    })?;
    let w = comms.len() as f64;
    let busbw = (n * 4) as f64 / (ms * 1e-3) * 2.0 * (w - 1.0) / w / 1e9;
    r.rep("all_reduce f32 256MiB (2 GPUs)", ms, format!("bus bandwidth {busbw:.1} GB/s"));
    r.0.insert("all_reduce f32 256MiB busbw (GB/s)".into(), busbw);
    drop(xs);
    let big = xp::with_device(&gpus[0], || xp::ones(&[1usize << 28], DType::F32))?;
    let ms = timed(10, &|| big.to_device(&gpus[1]).map(|_| ()))?;
    let gbs = (1usize << 30) as f64 / (ms * 1e-3) / 1e9;
    r.rep("peer copy 1GiB cuda:0->cuda:1", ms, format!("{gbs:.1} GB/s"));
    r.0.insert("peer copy 1GiB (GB/s)".into(), gbs);
    Ok(())
}

/// `cupyx`-style Black-Scholes in plain array ops (CuPy's `examples/finance/black_scholes.py`).
fn black_scholes(s: &Array, x: &Array, t: &Array, r: f64, v: f64) -> xp::Result<(Array, Array)> {
    let sqrt_t = t.sqrt()?;
    let d1 = s.div(x)?.log()?.add(&t.mul(r + v * v / 2.0)?)?.div(&sqrt_t.mul(v)?)?;
    let d2 = d1.sub(&sqrt_t.mul(v)?)?;
    let cdf = |d: &Array| -> xp::Result<Array> {
        let k = d.abs()?.mul(0.2316419)?.add(1.0)?.reciprocal()?;
        let poly = k
            .mul(1.330274429)?
            .add(-1.821255978)?
            .mul(&k)?
            .add(1.781477937)?
            .mul(&k)?
            .add(-0.356563782)?
            .mul(&k)?
            .add(0.31938153)?
            .mul(&k)?;
        let cnd = d.mul(d)?.mul(-0.5)?.exp()?.mul(0.398_942_280_401_432_7)?.mul(&poly)?;
        let one_minus = cnd.negative()?.add(1.0)?;
        xp::where_(&d.gt(0.0)?, Operand::Array(&one_minus), Operand::Array(&cnd))
    };
    let (c1, c2) = (cdf(&d1)?, cdf(&d2)?);
    let exp_rt = t.mul(-r)?.exp()?;
    let call = s.mul(&c1)?.sub(&x.mul(&exp_rt)?.mul(&c2)?)?;
    let put = x.mul(&exp_rt)?.mul(&c2.negative()?.add(1.0)?)?.sub(&s.mul(&c1.negative()?.add(1.0)?)?)?;
    Ok((call, put))
}

const BLACK_SCHOLES_KERNEL: &str = "
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;
    const T k1 = 1 / (1 + (T)0.2316419 * fabs(d1));
    const T k2 = 1 / (1 + (T)0.2316419 * fabs(d2));
    T c1 = (T)0.3989422804014327 * exp((T)-0.5 * d1 * d1) * (k1 * ((T)0.31938153 + k1 * ((T)-0.356563782 + k1 * ((T)1.781477937 + k1 * ((T)-1.821255978 + k1 * (T)1.330274429)))));
    T c2 = (T)0.3989422804014327 * exp((T)-0.5 * d2 * d2) * (k2 * ((T)0.31938153 + k2 * ((T)-0.356563782 + k2 * ((T)1.781477937 + k2 * ((T)-1.821255978 + k2 * (T)1.330274429)))));
    if (d1 > 0) c1 = 1 - c1;
    if (d2 > 0) c2 = 1 - c2;
    const T exp_rt = exp(-r * t);
    call = s * c1 - x * exp_rt * c2;
    put = x * exp_rt * (1 - c2) - s * (1 - c1);
";

/// Chains of elementwise ops and the maps around reductions, which lazy fusion runs as one
/// kernel (`scripts/bench/cupy_fusion.py` on GPUs, `scripts/bench/numpy_fusion.py` on the CPU).
fn fusion_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    xp::with_device(d, || -> xp::Result<()> {
        let done = |a: Array| xp::eval(&[&a]);
        let (warm, iters) = if gpu { (3, 20) } else { (1, 7) };
        let gb = |bytes: usize, ms: f64| format!("{:.1} GB/s", bytes as f64 / ms / 1e6);
        let n = 1usize << 24;
        let x = Array::from_vec(random(n, 31))?;
        let ms = bench(d, warm, iters, || done(x.sin()?.add(&x.mul(0.1)?)?.tanh()?))?;
        r.rep("tanh(sin(x)+0.1*x) f32 2^24", ms, gb(2 * n * 4, ms));
        if !gpu {
            // The main table's CPU row, here too so that the fusion group stands alone.
            let y = Array::from_vec(random(n, 38))?;
            let ms = bench(d, warm, iters, || done(x.pow(2)?.add(&y.mul_scalar(2)?)?))?;
            r.rep("x**2+2*y f32 2^24", ms, gb(3 * n * 4, ms));
        }
        let side = if gpu { 4096usize } else { 1024 };
        let m = Array::from_vec(random(side * side, 32))?.reshape(&[side as isize, side as isize])?;
        let softmax = || -> xp::Result<()> {
            let e = m.sub(&m.max(Some(&[1]), true)?)?.exp()?;
            done(e.div(&e.sum(Some(&[1]), true)?)?)
        };
        let ms = bench(d, warm, iters, softmax)?;
        r.rep(&format!("softmax rows {side}^2 f32"), ms, gb(2 * side * side * 4, ms));
        if gpu {
            let ms = bench(d, warm, iters, || {
                done(m.sub(&m.mean(Some(&[0]), true)?)?.div(&m.std(Some(&[0]), 0, true)?)?)
            })?;
            r.rep("(x-mean0)/std0 4096^2 f32", ms, gb(2 * side * side * 4, ms));
            let big = 1usize << 28;
            let a = Array::from_vec(random(big, 33))?;
            let b = Array::from_vec(random(big, 34))?;
            let f = || a.mul(&a)?.add(&b.mul(2.0)?)?.sum(None, false).map(|_| ());
            let ms = bench(d, warm, iters, f)?;
            r.rep("sum(x*x+2*y) f32 N=2^28", ms, gb(2 * big * 4, ms));
            let ms = xp::lazy::disabled(|| bench(d, warm, iters, f))?;
            r.rep("sum(x*x+2*y) f32 N=2^28 (xp unfused)", ms, gb(2 * big * 4, ms));
        }
        // Black-Scholes over 2^22 options, plain ops against one ElementwiseKernel.
        let nb = 1usize << 22;
        let s = Array::from_vec(random(nb, 35))?.mul(25.0)?.add(5.0)?;
        let k = Array::from_vec(random(nb, 36))?.mul(99.0)?.add(1.0)?;
        let t = Array::from_vec(random(nb, 37))?.mul(9.75)?.add(0.25)?;
        xp::eval(&[&s, &k, &t])?;
        let ms = bench(d, warm, iters, || {
            let (c, p) = black_scholes(&s, &k, &t, 0.02, 0.3)?;
            xp::eval(&[&c, &p])
        })?;
        r.rep("black-scholes f32 2^22 (plain ops)", ms, gb(5 * nb * 4, ms));
        let ek = xp::array::user::ElementwiseKernel::new(
            "T s, T x, T t, T r, T v",
            "T call, T put",
            BLACK_SCHOLES_KERNEL,
            "black_scholes",
        )?;
        let (call_o, put_o) = (xp::empty(&[nb], DType::F32)?, xp::empty(&[nb], DType::F32)?);
        let ms = bench(d, warm, iters, || {
            ek.call(&[
                (&s).into(),
                (&k).into(),
                (&t).into(),
                0.02f32.into(),
                0.3f32.into(),
                (&call_o).into(),
                (&put_o).into(),
            ])
            .map(|_| ())
        })?;
        r.rep("black-scholes f32 2^22 (ElementwiseKernel)", ms, gb(5 * nb * 4, ms));
        if gpu {
            // The masked Mandelbrot of the seeds (2048^2, 100 iterations at most, smooth
            // colouring of the points that escape, stopping when none is left).
            let side = 2048usize;
            let xs = xp::linspace(-2.0, 1.0, side, true, Some(DType::F64))?.reshape(&[side as isize, 1])?;
            let ys = xp::linspace(-1.5, 1.5, side, true, Some(DType::F64))?.reshape(&[1, side as isize])?;
            let cc = xs.astype(DType::C128)?.add(&ys.astype(DType::C128)?.mul(Scalar::Complex(0.0, 1.0))?)?;
            xp::eval(&[&cc])?;
            let mandelbrot = || -> xp::Result<()> {
                let z = xp::zeros(&[side, side], DType::C128)?;
                let mat = xp::zeros(&[side, side], DType::F64)?;
                let mask = xp::ones(&[side, side], DType::Bool)?;
                for it in 0..100 {
                    let zm = z.at(s![&mask])?;
                    z.set(s![&mask], &zm.mul(&zm)?.add(&cc.at(s![&mask])?)?)?;
                    let newly = z.abs()?.gt(2.0)?.logical_and(&mask)?;
                    if newly.any(None, false)?.item::<bool>()? {
                        let zn = z.at(s![&newly])?;
                        let nu =
                            zn.abs()?.log()?.log()?.div(std::f64::consts::LN_2)?.negative()?.add((it + 1) as f64)?;
                        mat.set(s![&newly], &nu)?;
                        mask.set(s![&newly], false)?;
                    }
                    if !mask.any(None, false)?.item::<bool>()? {
                        break;
                    }
                }
                done(mat)
            };
            let ms = bench(d, 1, 3, mandelbrot)?;
            r.rep("mandelbrot masked 2048^2 100 iters (seed)", ms, String::new());
        }
        // Host time per op of a chain of 10 ops on 1,000 elements, read at the end.
        let sm = xp::arange(0, 1000, 1, Some(DType::F32))?;
        let chain = || -> xp::Result<()> {
            let mut v = sm.clone();
            for j in 0..5 {
                v = v.mul(1.0001)?.add(j as f64)?;
            }
            done(v)
        };
        for _ in 0..50 {
            chain()?;
        }
        let st = current_stream(d);
        st.synchronize()?;
        let mut us = Vec::new();
        for _ in 0..7 {
            let reps = 500;
            let t0 = std::time::Instant::now();
            for _ in 0..reps {
                chain()?;
            }
            st.synchronize()?;
            us.push(t0.elapsed().as_secs_f64() / (reps * 10) as f64 * 1e6);
        }
        let per_op = median(&mut us);
        println!("chain of 10 ops on 1000 elements: {per_op:.2} us per op (host)");
        r.0.insert("chain of 10 ops 1000 (host-timed per op, us)".into(), per_op);
        // The same chains built and dropped without being computed: the host cost of making
        // pending arrays, apart from the evaluation and its launch.
        let mut us = Vec::new();
        for _ in 0..7 {
            let reps = 500;
            let t0 = std::time::Instant::now();
            for _ in 0..reps {
                let mut v = sm.clone();
                for j in 0..5 {
                    v = v.mul(1.0001)?.add(j as f64)?;
                }
                drop(v);
            }
            us.push(t0.elapsed().as_secs_f64() / (reps * 10) as f64 * 1e6);
        }
        let build = median(&mut us);
        println!("chain of 10 ops on 1000 elements, made and dropped unevaluated: {build:.2} us per op (host)");
        r.0.insert("chain of 10 ops 1000, unevaluated (host-timed per op, us)".into(), build);
        Ok(())
    })
}

/// Graph replay against issuing the same ops one by one (`scripts/bench/cupy_graphs.py`): a
/// chain of 20 small ops (1,000 float32 elements each: multiply, add a scalar, sine, subtract,
/// five times), host time per op, the stream synchronised after each round of repeats. Lazy
/// fusion is off for both rows, so that each op is one kernel as in CuPy (fused, the chain is
/// one kernel and the comparison says nothing about issuing ops).
fn graph_workloads(d: &Arc<dyn DynDevice>, r: &mut Report) -> xp::Result<()> {
    xp::with_device(d, || {
        xp::array::lazy::disabled(|| -> xp::Result<()> {
            let x = xp::arange(0, 1000, 1, Some(DType::F32))?.mul_scalar(0.001)?;
            let c = x.add_scalar(0.5)?;
            let chain = || -> xp::Result<Array> {
                let mut y = x.clone();
                for k in 0..20 {
                    y = match k % 4 {
                        0 => y.mul(&c)?,
                        1 => y.add_scalar(0.125)?,
                        2 => y.sin()?,
                        _ => y.sub(&x)?,
                    };
                }
                Ok(y)
            };
            let s = xp::Stream::new(d, true)?;
            let _current = s.use_();
            chain()?; // compiles the kernels before the capture
            s.begin_capture()?;
            let captured = chain();
            let g = s.end_capture()?;
            let y = captured?;
            g.upload(&s)?;
            let per_op = |mut round: Box<dyn FnMut() -> xp::Result<()> + '_>| -> xp::Result<f64> {
                for _ in 0..50 {
                    round()?;
                }
                s.synchronize()?;
                let mut us = Vec::new();
                for _ in 0..7 {
                    let reps = 500;
                    let t0 = std::time::Instant::now();
                    for _ in 0..reps {
                        round()?;
                    }
                    s.synchronize()?;
                    us.push(t0.elapsed().as_secs_f64() / (reps * 20) as f64 * 1e6);
                }
                Ok(median(&mut us))
            };
            let eager = per_op(Box::new(|| chain().map(|_| ())))?;
            let replay = per_op(Box::new(|| g.launch(&s)))?;
            let same = y.to_vec::<f32>()? == chain()?.to_vec::<f32>()?;
            println!(
                "chain of 20 ops on 1000 elements: one by one {eager:.2} us per op, graph replay {replay:.2} us per op \
                 ({:.1}x; replay {})",
                eager / replay,
                if same { "matches" } else { "MISMATCH" }
            );
            r.0.insert("chain of 20 ops 1000, one by one (host-timed per op, us)".into(), eager);
            r.0.insert("chain of 20 ops 1000, graph replay (host-timed per op, us)".into(), replay);
            Ok(())
        })
    })
}

/// SciPy's modules (`scripts/bench/cupy_scipy.py` on GPUs, `scripts/bench/numpy_scipy.py` on
/// the CPU): distances, interpolation at many points, DCTs, nearest neighbours.
fn scipy_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    use xp::interpolate::{
        BcType, CubicSpline, FillValue, GridMethod, Interp1d, Interp1dKind, RegularGridInterpolator,
    };
    use xp::spatial::distance::{cdist, pdist, Metric, MetricArgs};
    xp::with_device(d, || -> xp::Result<()> {
        let eu = MetricArgs::default();
        let (side, tag, sfx) = if gpu { (8192usize, "8192x8192x64", "") } else { (2048, "2048x2048x64", " (scipy)") };
        let xa = Array::from_vec(random(side * 64, 31))?.reshape(&[side as isize, 64])?;
        let xb = Array::from_vec(random(side * 64, 32))?.reshape(&[side as isize, 64])?;
        let ms = bench(d, 1, if gpu { 10 } else { 5 }, || cdist(&xa, &xb, Metric::Euclidean, &eu).map(|_| ()))?;
        r.rep(
            &format!("cdist {tag} euclidean f32{sfx}"),
            ms,
            format!("{:.2} Gpairs/s", (side * side) as f64 / ms / 1e6),
        );
        if gpu {
            let ms = bench(d, 1, 10, || pdist(&xa, Metric::Euclidean, &eu).map(|_| ()))?;
            r.rep("pdist 8192x64 euclidean f32", ms, String::new());
        }
        let x = xp::linspace(0.0, 10.0, 1000, true, Some(DType::F64))?;
        let y = x.sin()?;
        let nq = if gpu { 1usize << 24 } else { 1 << 22 };
        let qtag = if gpu { "2^24" } else { "2^22" };
        let xq = Array::from_vec(random(nq, 33))?.astype(DType::F64)?.mul_scalar(10.0)?;
        let cs = CubicSpline::new(&x, &y, 0, BcType::default(), None)?;
        let ms = bench(d, 2, 10, || cs.call(&xq, 0).map(|_| ()))?;
        r.rep(&format!("CubicSpline eval {qtag} points{sfx}"), ms, String::new());
        if !gpu {
            let v = Array::from_vec(random(1 << 22, 34))?;
            let ms = bench(d, 1, 7, || xp::fft::dct(&v, 2, None, -1, None, None).map(|_| ()))?;
            r.rep("dct f32 2^22 (scipy)", ms, String::new());
            return Ok(());
        }
        let f = Interp1d::new(&x, &y, Interp1dKind::Linear, 0, None, FillValue::Value(f64::NAN), false)?;
        let ms = bench(d, 2, 10, || f.call(&xq).map(|_| ()))?;
        r.rep("interp1d linear 2^24 points", ms, String::new());
        drop(xq);
        let g = xp::linspace(0.0, 1.0, 512, true, Some(DType::F64))?;
        let vals = Array::from_vec(random(512 * 512 * 512, 35))?.astype(DType::F64)?.reshape(&[512, 512, 512])?;
        let pts = Array::from_vec(random(3 << 22, 36))?.astype(DType::F64)?.reshape(&[1 << 22, 3])?;
        let rgi = RegularGridInterpolator::new(&[&g, &g, &g], &vals, GridMethod::Linear, true, None)?;
        let ms = bench(d, 1, 10, || rgi.call(&pts).map(|_| ()))?;
        r.rep("RegularGridInterpolator linear 512^3 2^22 points", ms, String::new());
        drop((vals, pts, rgi));
        let data = Array::from_vec(random(3 << 20, 37))?.astype(DType::F64)?.reshape(&[1 << 20, 3])?;
        let q = Array::from_vec(random(3 << 20, 38))?.astype(DType::F64)?.reshape(&[1 << 20, 3])?;
        let tree = xp::spatial::KDTree::new(&data, 16)?;
        let ms = bench(d, 1, 3, || tree.query(&q, 8, 0.0, 2.0, f64::INFINITY).map(|_| ()))?;
        r.rep("KDTree query k=8 2^20 in 2^20", ms, String::new());
        let v = Array::from_vec(random(1 << 24, 39))?;
        let ms = bench(d, 2, 20, || xp::fft::dct(&v, 2, None, -1, None, None).map(|_| ()))?;
        r.rep("dct f32 2^24", ms, String::new());
        let m = Array::from_vec(random(1 << 24, 40))?.reshape(&[4096, 4096])?;
        let ms = bench(d, 2, 20, || xp::fft::dctn(&m, 2, None, None, None, None).map(|_| ()))?;
        r.rep("dctn f32 4096^2", ms, String::new());
        Ok(())
    })
}

/// `saxpy_jit` of the seeds, written in Rust: the same kernel as [`xp::kernels::seeds::SAXPY`]
/// (the RawKernel row) and as `scripts/bench/rust_kernels.py`'s `cupyx.jit.rawkernel`.
#[xp::rawkernel]
pub fn saxpy_jit(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        out[i] = a * x[i] + y[i];
    }
}

/// The seeds' `block_sum` written in Rust: each block's sum, a tree in dynamic shared memory.
#[xp::rawkernel]
pub fn block_sum_jit(x: &[f32], out: &mut [f32]) {
    // 32-bit thread and block arithmetic, as the RawKernel's `unsigned` (usize would be 64-bit).
    let sdata = shared_dyn::<f32>();
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    sdata[t as usize] = if (i as usize) < x.len() { x[i as usize] } else { 0.0 };
    sync_threads();
    let mut s = block_dim().x / 2;
    while s > 0 {
        if t < s {
            sdata[t as usize] += sdata[(t + s) as usize];
        }
        sync_threads();
        s >>= 1;
    }
    if t == 0 {
        out[block_idx().x as usize] = sdata[0];
    }
}

/// The seeds' 16×16 tiled matmul written in Rust (C = A·B, A m×k, B k×n, row-major).
#[xp::rawkernel]
pub fn matmul_tiled_jit(a: &[f32], b: &[f32], c: &mut [f32], m: i32, k: i32, n: i32) {
    let ta = shared_array::<[f32; 16], 16>();
    let tb = shared_array::<[f32; 16], 16>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * 16 + ty;
    let col = block_idx().x as usize * 16 + tx;
    let m = m as usize;
    let k = k as usize;
    let n = n as usize;
    let mut acc = 0.0f32;
    for t0 in (0..k).step_by(16) {
        ta[ty][tx] = if row < m && t0 + tx < k { a[row * k + t0 + tx] } else { 0.0 };
        tb[ty][tx] = if t0 + ty < k && col < n { b[(t0 + ty) * n + col] } else { 0.0 };
        sync_threads();
        for j in 0..16 {
            acc = ta[ty][j].mul_add(tb[j][tx], acc);
        }
        sync_threads();
    }
    if row < m && col < n {
        c[row * n + col] = acc;
    }
}

/// The seeds' `leaky_relu` written in Rust.
#[xp::kernel]
pub fn leaky_relu_jit<T: xp::Float>(x: T, alpha: T, y: &mut T) {
    *y = if x > T::from_f64(0.0) { x } else { alpha * x };
}

/// Kernels written in Rust against the same kernels as `RawKernel` sources (and, under the same
/// names, CuPy's `cupyx.jit` in `scripts/bench/rust_kernels.py`).
fn rust_kernel_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    xp::with_device(d, || {
        let (warm, iters) = if gpu { (3, 20) } else { (1, 5) };
        let raw = xp::RawKernel::new(xp::kernels::seeds::SAXPY, "saxpy");
        let sizes: &[usize] = if gpu { &[20, 26] } else { &[20, 24] };
        for &p in sizes {
            let n = 1usize << p;
            let x = Array::from_slice(&random(n, 41), &[n])?;
            let y = Array::from_slice(&random(n, 42), &[n])?;
            let mut out = xp::empty(&[n], DType::F32)?;
            let (threads, blocks) = (256u32, (n as u32).div_ceil(256));
            let ms = bench(d, warm, iters, || saxpy_jit.launch((blocks,), (threads,), (2.0f32, &x, &y, &mut out)))?;
            r.rep(&format!("saxpy jit f32 2^{p}"), ms, format!("{:.1} GB/s", (12 * n) as f64 / ms / 1e6));
            let args = [
                LaunchArg::F32(2.0),
                LaunchArg::Array(&x),
                LaunchArg::Array(&y),
                LaunchArg::Array(&out),
                LaunchArg::I32(n as i32),
            ];
            let ms = bench(d, warm, iters, || raw.launch((blocks,), (threads,), &args))?;
            r.rep(&format!("saxpy RawKernel f32 2^{p}"), ms, format!("{:.1} GB/s", (12 * n) as f64 / ms / 1e6));
        }
        // The block sums of 2^26 (CPU: 2^18) floats, 256 threads a block.
        let p = if gpu { 26 } else { 18 };
        let n = 1usize << p;
        let x = Array::from_slice(&random(n, 43), &[n])?;
        let (threads, blocks) = (256u32, (n as u32).div_ceil(256));
        let mut out = xp::empty(&[blocks as usize], DType::F32)?;
        let shared = threads * 4;
        let ms =
            bench(d, warm, iters, || block_sum_jit.launch_with((blocks,), (threads,), shared, None, (&x, &mut out)))?;
        r.rep(&format!("block_sum jit f32 2^{p}"), ms, format!("{:.1} GB/s", (4 * n) as f64 / ms / 1e6));
        let bs = xp::RawKernel::new(xp::kernels::seeds::BLOCK_SUM, "block_sum");
        let args = [LaunchArg::Array(&x), LaunchArg::Array(&out), LaunchArg::I32(n as i32)];
        let ms = bench(d, warm, iters, || bs.launch_with((blocks,), (threads,), shared, None, &args))?;
        r.rep(&format!("block_sum RawKernel f32 2^{p}"), ms, format!("{:.1} GB/s", (4 * n) as f64 / ms / 1e6));
        // The 16x16 tiled matmul.
        let side = if gpu { 2048usize } else { 256 };
        let a = Array::from_slice(&random(side * side, 44), &[side, side])?;
        let b = Array::from_slice(&random(side * side, 45), &[side, side])?;
        let mut c = xp::empty(&[side, side], DType::F32)?;
        let grid = ((side as u32).div_ceil(16), (side as u32).div_ceil(16));
        let sz = side as i32;
        let ms = bench(d, warm, iters, || matmul_tiled_jit.launch(grid, (16u32, 16u32), (&a, &b, &mut c, sz, sz, sz)))?;
        let tf = |ms: f64| format!("{:.2} TFLOP/s", 2.0 * (side as f64).powi(3) / ms / 1e9);
        r.rep(&format!("matmul tiled jit f32 {side}"), ms, tf(ms));
        let mm = xp::RawKernel::new(xp::kernels::seeds::TILED_MATMUL, "matmul_tiled");
        let args = [
            LaunchArg::Array(&a),
            LaunchArg::Array(&b),
            LaunchArg::Array(&c),
            LaunchArg::I32(sz),
            LaunchArg::I32(sz),
            LaunchArg::I32(sz),
        ];
        let ms = bench(d, warm, iters, || mm.launch(grid, (16u32, 16u32), &args))?;
        r.rep(&format!("matmul tiled RawKernel f32 {side}"), ms, tf(ms));
        // leaky_relu: #[xp::kernel] against the seeds' ElementwiseKernel.
        let p = if gpu { 26 } else { 22 };
        let n = 1usize << p;
        let x = Array::from_slice(&random(n, 46), &[n])?;
        let mut y = xp::empty(&[n], DType::F32)?;
        let ms = bench(d, warm, iters, || leaky_relu_jit.call((&x, 0.1f32, &mut y)).map(|_| ()))?;
        r.rep(&format!("leaky_relu jit f32 2^{p}"), ms, format!("{:.1} GB/s", (8 * n) as f64 / ms / 1e6));
        let s = xp::kernels::seeds::LEAKY_RELU;
        let ek = xp::ElementwiseKernel::new(s.in_params, s.out_params, s.operation, s.name)?;
        let ms = bench(d, warm, iters, || ek.call(&[(&x).into(), 0.1f32.into(), (&y).into()]).map(|_| ()))?;
        r.rep(&format!("leaky_relu ElementwiseKernel f32 2^{p}"), ms, format!("{:.1} GB/s", (8 * n) as f64 / ms / 1e6));
        Ok(())
    })
}

/// SciPy's special functions and NumPy's distributions beside `scripts/bench/cupy_special.py`:
/// float32 maps of 2^26 elements (2^22 on the CPU), `logsumexp` over the rows of 4096^2, and
/// draws of 2^26 values.
fn special_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    xp::with_device(d, || -> xp::Result<()> {
        let (warm, iters) = if gpu { (3, 20) } else { (1, 5) };
        let done = |a: Array| xp::eval(&[&a]);
        let p = if gpu { 26 } else { 22 };
        let n = 1usize << p;
        let gb = |ms: f64| format!("{:.1} GB/s", (8 * n) as f64 / ms / 1e6);
        // Arguments in [-4, 4) for erf, (0, 20] for gammaln and i0e.
        let x = Array::from_vec(random(n, 51))?.mul(8.0)?.sub(4.0)?;
        let pos = Array::from_vec(random(n, 52))?.mul(20.0)?.add(0.01)?;
        xp::eval(&[&x, &pos])?;
        let ms = bench(d, warm, iters, || done(xp::special::erf(&x)?))?;
        r.rep(&format!("special.erf f32 2^{p}"), ms, gb(ms));
        let ms = bench(d, warm, iters, || done(xp::special::gammaln(&pos)?))?;
        r.rep(&format!("special.gammaln f32 2^{p}"), ms, gb(ms));
        let ms = bench(d, warm, iters, || done(xp::special::i0e(&pos)?))?;
        r.rep(&format!("special.i0e f32 2^{p}"), ms, gb(ms));
        let side = if gpu { 4096usize } else { 1024 };
        let m = Array::from_vec(random(side * side, 53))?.reshape(&[side as isize, side as isize])?;
        let ms = bench(d, warm, iters, || done(xp::special::logsumexp(&m, Some(&[1]), None, false)?))?;
        r.rep(&format!("special.logsumexp axis=1 f32 {side}^2"), ms, String::new());
        let mut g = xp::random::default_rng(1234u64);
        let ms = bench(d, warm, iters, || done(g.lognormal(0.0, 1.0, &[n], DType::F32)?))?;
        r.rep(&format!("random.lognormal f32 2^{p}"), ms, String::new());
        let ms = bench(d, warm, iters, || done(g.standard_gamma(2.0, &[n], DType::F32)?))?;
        r.rep(&format!("random.standard_gamma f32 2^{p}"), ms, String::new());
        let ms = bench(d, warm, iters, || done(g.standard_t(5.0, &[n], DType::F32)?))?;
        r.rep(&format!("random.standard_t f32 2^{p}"), ms, String::new());
        let ms = bench(d, warm, iters, || done(g.binomial(100, 0.3, &[n])?))?;
        r.rep(&format!("random.binomial int64 2^{p}"), ms, String::new());
        Ok(())
    })
}

/// `xp::ndimage` beside `cupyx.scipy.ndimage` (`scripts/bench/cupy_ndimage.py`, the sizes
/// on GPUs) or `scipy.ndimage` (`scripts/bench/numpy_ndimage.py`, 2048² float32 on the CPU): the
/// common filters, spline interpolation, labelling and morphology, under the scripts' names.
fn ndimage_workloads(d: &Arc<dyn DynDevice>, gpu: bool, r: &mut Report) -> xp::Result<()> {
    use xp::ndimage::{self, Mode};
    xp::with_device(d, || -> xp::Result<()> {
        let (big, iters) = if gpu { (4096usize, 10) } else { (2048, 5) };
        let img = |side: usize| -> xp::Result<Array> {
            Array::from_vec(random(side * side, 61))?.reshape(&[side as isize, side as isize])
        };
        let a = img(big)?;
        let ms = bench(d, 1, iters, || {
            ndimage::gaussian_filter(&a, &[4.0], &[0], Mode::Reflect, 0.0, 4.0, None).map(|_| ())
        })?;
        r.rep(&format!("ndimage.gaussian_filter {big}^2 sigma=4"), ms, String::new());
        let ms = bench(d, 1, iters, || ndimage::uniform_filter(&a, &[9], Mode::Reflect, 0.0, &[]).map(|_| ()))?;
        r.rep(&format!("ndimage.uniform_filter {big}^2 size=9"), ms, String::new());
        let ms = bench(d, 1, iters, || ndimage::sobel(&a, 0, Mode::Reflect, 0.0).map(|_| ()))?;
        r.rep(&format!("ndimage.sobel {big}^2 axis=0"), ms, String::new());
        let b = img(2048)?;
        for size in [3usize, 5] {
            let ms = bench(d, 1, iters, || {
                ndimage::median_filter(&b, Some(&[size]), None, Mode::Reflect, 0.0, &[]).map(|_| ())
            })?;
            r.rep(&format!("ndimage.median_filter 2048^2 size={size}"), ms, String::new());
        }
        let ms = bench(d, 1, iters, || ndimage::zoom(&b, &[2.0], 3, Mode::Constant, 0.0, true, false).map(|_| ()))?;
        r.rep("ndimage.zoom 2048^2->4096^2 order=3", ms, String::new());
        // Points spread over the 2048² image.
        let (np, ptag) = if gpu { (1usize << 24, "2^24") } else { (1 << 22, "2^22") };
        let coords = Array::from_vec(random(2 * np, 62))?.mul_scalar(2047.0)?.reshape(&[2, np as isize])?;
        for order in [1i64, 3] {
            let ms = bench(d, 1, iters, || {
                ndimage::map_coordinates(&b, &coords, order, Mode::Constant, 0.0, true).map(|_| ())
            })?;
            r.rep(&format!("ndimage.map_coordinates order={order} {ptag} points"), ms, String::new());
        }
        drop(coords);
        let mask = a.gt(0.5)?;
        let ms = bench(d, 1, iters, || ndimage::label(&mask, None).map(|_| ()))?;
        r.rep(&format!("ndimage.label {big}^2 random"), ms, String::new());
        let ms = bench(d, 1, iters, || ndimage::binary_erosion(&mask, None, 1, None, false, None, false).map(|_| ()))?;
        r.rep(&format!("ndimage.binary_erosion {big}^2 3x3"), ms, String::new());
        let bmask = b.gt(0.1)?;
        let ms = bench(d, 1, iters, || ndimage::distance_transform_edt(&bmask, None).map(|_| ()))?;
        r.rep("ndimage.distance_transform_edt 2048^2", ms, String::new());
        Ok(())
    })
}

fn run() -> xp::Result<()> {
    let d = default_device()?;
    let gpu = !d.properties().is_host;
    println!("xp bench on {} ({})", d.label(), d.properties().name);
    let mut r = Report(BTreeMap::new());
    // `XP_BENCH_ONLY=fft|sort|sparse|signal|products|fusion|scipy|graphs|distributed|rust_kernels|special|scipy_signal|ndimage`
    // runs that group of workloads alone (several, comma-separated, run in turn).
    if let Ok(only) = std::env::var("XP_BENCH_ONLY") {
        for group in only.split(',') {
            match group.trim() {
                "fft" => fft_workloads(&d, gpu, &mut r)?,
                "sort" => sort_workloads(&d, gpu, &mut r)?,
                "sparse" => sparse_workloads(&d, gpu, &mut r)?,
                "signal" => signal_workloads(&d, gpu, &mut r)?,
                "products" => product_workloads(&d, gpu, &mut r)?,
                "fusion" => fusion_workloads(&d, gpu, &mut r)?,
                // `XP_BENCH_NDIMAGE_KERNELS=1` also times the device kernels in place of the
                // CPU device's native distances and IIR filters.
                "scipy" if std::env::var_os("XP_BENCH_NDIMAGE_KERNELS").is_some() => {
                    xp::ndimage::with_device_kernels(|| scipy_workloads(&d, gpu, &mut r))?
                }
                "scipy" => scipy_workloads(&d, gpu, &mut r)?,
                "graphs" => graph_workloads(&d, &mut r)?,
                "distributed" => distributed_workloads(&mut r)?,
                "rust_kernels" => rust_kernel_workloads(&d, gpu, &mut r)?,
                "special" => special_workloads(&d, gpu, &mut r)?,
                "scipy_signal" if std::env::var_os("XP_BENCH_NDIMAGE_KERNELS").is_some() => {
                    xp::ndimage::with_device_kernels(|| scipy_signal_workloads(&d, gpu, &mut r))?
                }
                "scipy_signal" => scipy_signal_workloads(&d, gpu, &mut r)?,
                // `XP_BENCH_NDIMAGE_KERNELS=1` times the device kernels in place of the CPU
                // device's native forms (the same answers), for comparison.
                "ndimage" if std::env::var_os("XP_BENCH_NDIMAGE_KERNELS").is_some() => {
                    xp::ndimage::with_device_kernels(|| ndimage_workloads(&d, gpu, &mut r))?
                }
                "ndimage" => ndimage_workloads(&d, gpu, &mut r)?,
                other => return Err(Error::value("bench", format!("no workload group {other}"))),
            }
        }
        return Ok(());
    }
    xp::with_device(&d, || -> xp::Result<()> {
        let (n, warm, iters) = if gpu { (1usize << 28, 3, 20) } else { (1usize << 24, 1, 7) };
        let a = Array::from_slice(&random(n, 1), &[n])?;
        let b = Array::from_slice(&random(n, 2), &[n])?;
        let out = xp::empty(&[n], DType::F32)?;
        let gb = |bytes: usize, ms: f64| format!("{:.1} GB/s", bytes as f64 / ms / 1e6);
        let nb = n * 4;
        let (copy, add, sq, sin, sum) = if gpu {
            ("copy 1GiB f32 (d2d)", "add f32 N=2^28", "x**2+2*y f32 N=2^28 (3 kernels)", "", "sum f32 N=2^28")
        } else {
            ("copy f32 2^24", "add f32 2^24", "x**2+2*y f32 2^24", "sin f32 2^24", "sum f32 2^24")
        };
        let ms = bench(&d, warm, iters, || a.copy_into(&out))?;
        r.rep(copy, ms, gb(2 * nb, ms));
        let ms =
            bench(&d, warm, iters, || call("add", &[Operand::Array(&a), Operand::Array(&b)], Some(&out)).map(|_| ()))?;
        r.rep(add, ms, gb(3 * nb, ms));
        // Elementwise results are pending (lazy fusion) until something needs them: `eval`.
        let ms = bench(&d, warm, iters, || xp::eval(&[&a.pow(2)?.add(&b.mul_scalar(2)?)?]))?;
        r.rep(sq, ms, gb(3 * nb, ms));
        if !gpu {
            let ms = bench(&d, warm, iters, || xp::eval(&[&a.sin()?]))?;
            r.rep(sin, ms, gb(2 * nb, ms));
        }
        let ms = bench(&d, warm, iters, || a.sum(None, false).map(|_| ()))?;
        r.rep(sum, ms, gb(nb, ms));
        if gpu {
            let ms = bench(&d, warm, iters, || a.max(None, false).map(|_| ()))?;
            r.rep("max f32 N=2^28", ms, gb(nb, ms));
        }
        if gpu {
            // User kernels against the same workloads as built-ins.
            use xp::array::user::{fuse, ElementwiseKernel, ReductionKernel};
            let ek = ElementwiseKernel::new("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "sqdiff")?;
            let ms = bench(&d, warm, iters, || ek.call(&[(&a).into(), (&b).into(), (&out).into()]).map(|_| ()))?;
            r.rep("ElementwiseKernel sqdiff N=2^28", ms, gb(3 * nb, ms));
            let l2 = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")?;
            let ms = bench(&d, warm, iters, || l2.call(&a, None, false).map(|_| ()))?;
            r.rep("ReductionKernel l2norm N=2^28", ms, gb(nb, ms));
            let f = fuse("fused_sq2", |[x, y]| x * x + y * 2.0);
            let ms = bench(&d, warm, iters, || f.call(&[(&a).into(), (&b).into()]).map(|_| ()))?;
            r.rep("fuse x*x+2*y f32 N=2^28", ms, gb(3 * nb, ms));
        }
        let side = if gpu { 16384 } else { 4096 };
        let m = a.slice(&[SliceArg::range(0, (side * side) as isize, 1)])?.reshape(&[side as isize, side as isize])?;
        let mb = side * side * 4;
        let names = if gpu {
            ["mean axis0 16384^2 f32", "mean axis1 16384^2 f32", "std axis1 16384^2 f32", "transpose copy 16384^2 f32"]
        } else {
            ["mean axis0 4096^2", "", "std axis1 4096^2", "transpose copy 4096^2"]
        };
        let ms = bench(&d, warm, iters, || m.mean(Some(&[0]), false).map(|_| ()))?;
        r.rep(names[0], ms, gb(mb, ms));
        if gpu {
            let ms = bench(&d, warm, iters, || m.mean(Some(&[1]), false).map(|_| ()))?;
            r.rep(names[1], ms, gb(mb, ms));
        }
        let ms = bench(&d, warm, iters, || m.std(Some(&[1]), 0, false).map(|_| ()))?;
        r.rep(names[2], ms, gb(mb, ms));
        let ms = bench(&d, warm, iters, || m.t().copy().map(|_| ()))?;
        r.rep(names[3], ms, gb(2 * mb, ms));
        let cn = if gpu { 1usize << 26 } else { 1 << 24 };
        let c = a.slice(&[SliceArg::range(0, cn as isize, 1)])?;
        let ms = bench(&d, warm, iters, || c.cumsum(None).map(|_| ()))?;
        r.rep(if gpu { "cumsum f32 2^26" } else { "cumsum f32 2^24" }, ms, gb(2 * cn * 4, ms));
        Ok(())
    })?;
    fft_workloads(&d, gpu, &mut r)?;
    sort_workloads(&d, gpu, &mut r)?;
    sparse_workloads(&d, gpu, &mut r)?;
    signal_workloads(&d, gpu, &mut r)?;
    product_workloads(&d, gpu, &mut r)?;
    fusion_workloads(&d, gpu, &mut r)?;
    scipy_workloads(&d, gpu, &mut r)?;
    scipy_signal_workloads(&d, gpu, &mut r)?;
    rust_kernel_workloads(&d, gpu, &mut r)?;
    graph_workloads(&d, &mut r)?;
    // Host time per op on 1,000 elements, allocation included.
    xp::with_device(&d, || -> xp::Result<()> {
        let sm = xp::arange(0, 1000, 1, Some(DType::F32))?;
        let s = current_stream(&d);
        for _ in 0..100 {
            xp::eval(&[&sm.add(&sm)?])?;
        }
        s.synchronize()?;
        // Rounds of 2,000 ops, xp's and the bare launch's interleaved so that both see the
        // same machine; the median round of each.
        let mut bare = if d.backend_name() == "cuda" {
            BareLaunch::new(d.ordinal()).map_err(|e| println!("bare cudarc launch: not measured ({e})")).ok()
        } else {
            None
        };
        let (mut xs, mut bs) = (Vec::new(), Vec::new());
        for _ in 0..9 {
            let reps = 2000;
            let t0 = std::time::Instant::now();
            for _ in 0..reps {
                xp::eval(&[&sm.add(&sm)?])?;
            }
            s.synchronize()?;
            xs.push(t0.elapsed().as_secs_f64() / reps as f64 * 1e6);
            if let Some(b) = bare.as_mut() {
                match b.round(reps) {
                    Ok(us) => bs.push(us),
                    Err(e) => println!("bare cudarc launch failed: {e}"),
                }
            }
        }
        let us = median(&mut xs);
        println!("per-op overhead small add: {us:.2} us");
        r.0.insert("small add 1000 (host-timed per op, us)".into(), us);
        if !bs.is_empty() {
            let bare = median(&mut bs);
            println!("bare cudarc launch of the same add kernel: {bare:.2} us (xp per op / bare = {:.2})", us / bare);
            r.0.insert("bare cudarc launch, add 1000 (host-timed, us)".into(), bare);
        }
        if d.backend_name() == "cuda" {
            small_matmul_host_cost(&d, &mut r)?;
        }
        Ok(())
    })?;
    // First call of a never-seen kernel (compile, load, launch, sync), then the same kernel in
    // a new process, found in the disk cache.
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|t| t.as_nanos()).unwrap_or(0);
    let tags: Vec<u128> = (0..5).map(|k| stamp * 8 + k).collect();
    let mut firsts = tags.iter().map(|&t| first_call_ms(&d, t, 1000)).collect::<xp::Result<Vec<f64>>>()?;
    let first = median(&mut firsts);
    println!("first call of a new ElementwiseKernel: {first:.2} ms (compile; median of {})", firsts.len());
    r.0.insert("first call of a new ElementwiseKernel (ms)".into(), first);
    if gpu {
        // The same on an array large enough for the vector form (VECTOR_MIN), a bigger kernel.
        let big = xp::kernels::elementwise::VECTOR_MIN * 4;
        let mut fs = (0..3).map(|k| first_call_ms(&d, stamp * 8 + 5 + k, big)).collect::<xp::Result<Vec<f64>>>()?;
        let ms = median(&mut fs);
        println!("first call of a new ElementwiseKernel on {big} elements (vector form): {ms:.2} ms (median of 3)");
        r.0.insert("first call of a new ElementwiseKernel, vector form (ms)".into(), ms);
    }
    if xp::backend::compile::default_cache_dir().is_some() {
        let exe = std::env::current_exe().map_err(|e| Error::io("finding the benchmark binary", e))?;
        let mut loads = Vec::new();
        for t in &tags[..3] {
            let child = std::process::Command::new(&exe)
                .args(["--first-call", &t.to_string()])
                .output()
                .map_err(|e| Error::io("running the benchmark binary again", e))?;
            let text = String::from_utf8_lossy(&child.stdout);
            match text.lines().find_map(|l| l.strip_prefix("first-call-ms ")).and_then(|v| v.trim().parse::<f64>().ok())
            {
                Some(ms) => loads.push(ms),
                None => println!("disk-cache row not measured: {}", String::from_utf8_lossy(&child.stderr).trim()),
            }
        }
        if !loads.is_empty() {
            let ms = median(&mut loads);
            println!("same kernel in a new process (disk cache): {ms:.3} ms (median of {})", loads.len());
            r.0.insert("same kernel, new process, disk cache (ms)".into(), ms);
        }
    }
    let json =
        format!("{{\n{}\n}}\n", r.0.iter().map(|(k, v)| format!(" \"{k}\": {v}")).collect::<Vec<_>>().join(",\n"));
    let path = std::env::args().nth(1).or_else(|| std::env::var("OUT").ok().map(|o| format!("{o}/xp_bench.json")));
    if let Some(p) = path {
        std::fs::write(&p, json).map_err(|e| Error::io(format!("writing {p}"), e))?;
        println!("wrote {p}");
    }
    Ok(())
}

/// The median of `v` (not empty; sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The first call of an ElementwiseKernel whose source no earlier process compiled (`tag`
/// makes it unique): compile (or disk-cache load), launch on `n` elements, synchronise.
fn first_call_ms(d: &Arc<dyn DynDevice>, tag: u128, n: usize) -> xp::Result<f64> {
    use xp::array::user::ElementwiseKernel;
    xp::with_device(d, || -> xp::Result<f64> {
        let x = xp::arange(0, n as i64, 1, Some(DType::F32))?;
        current_stream(d).synchronize()?;
        let body = format!("y = x * 2.0f + {}.0f", tag % 1_000_003);
        let t0 = std::time::Instant::now();
        let k = ElementwiseKernel::new("float32 x", "float32 y", &body, &format!("first_call_{tag}"))?;
        k.call(&[(&x).into()])?;
        current_stream(d).synchronize()?;
        Ok(t0.elapsed().as_secs_f64() * 1e3)
    })
}

/// Host time per call of a 64×64 float32 matmul (output allocation included) beside a bare
/// `cublasSgemm` on cudarc's own handle and buffers, in interleaved rounds; the median round.
fn small_matmul_host_cost(d: &Arc<dyn DynDevice>, r: &mut Report) -> xp::Result<()> {
    let a = Array::from_slice(&random(64 * 64, 31), &[64, 64])?;
    let b = Array::from_slice(&random(64 * 64, 32), &[64, 64])?;
    let s = current_stream(d);
    for _ in 0..100 {
        let _ = a.matmul(&b)?; // also opens cuBLAS, which the bare call then finds loaded
    }
    s.synchronize()?;
    let mut bare = match BareGemm::new(d.ordinal()) {
        Ok(g) => g,
        Err(e) => {
            println!("bare cuBLAS sgemm: not measured ({e})");
            return Ok(());
        }
    };
    let (mut xs, mut bs) = (Vec::new(), Vec::new());
    for _ in 0..9 {
        let reps = 2000;
        let t0 = std::time::Instant::now();
        for _ in 0..reps {
            let _ = a.matmul(&b)?;
        }
        s.synchronize()?;
        xs.push(t0.elapsed().as_secs_f64() / reps as f64 * 1e6);
        match bare.round(reps) {
            Ok(us) => bs.push(us),
            Err(e) => println!("bare cuBLAS sgemm failed: {e}"),
        }
    }
    let us = median(&mut xs);
    r.0.insert("matmul f32 64x64 (host-timed per call, us)".into(), us);
    if !bs.is_empty() {
        let bare = median(&mut bs);
        println!(
            "matmul f32 64x64 host time per call: {us:.2} us; bare cublasSgemm {bare:.2} us (xp / bare = {:.2})",
            us / bare
        );
        r.0.insert("bare cublasSgemm 64x64 (host-timed per call, us)".into(), bare);
    }
    Ok(())
}

/// `cublasSgemm` of 64×64 float32 matrices through cudarc alone.
struct BareGemm {
    stream: std::sync::Arc<cudarc::driver::CudaStream>,
    blas: cudarc::cublas::CudaBlas,
    a: cudarc::driver::CudaSlice<f32>,
    c: cudarc::driver::CudaSlice<f32>,
}

impl BareGemm {
    fn new(ordinal: usize) -> Result<Self, String> {
        let ctx = cudarc::driver::CudaContext::new(ordinal).map_err(|e| e.to_string())?;
        let stream = ctx.new_stream().map_err(|e| e.to_string())?;
        let blas = cudarc::cublas::CudaBlas::new(stream.clone()).map_err(|e| e.to_string())?;
        let a = stream.clone_htod(&random(64 * 64, 33)).map_err(|e| e.to_string())?;
        let c = stream.alloc_zeros::<f32>(64 * 64).map_err(|e| e.to_string())?;
        let mut g = BareGemm { stream, blas, a, c };
        g.round(100)?;
        Ok(g)
    }

    /// Host time per call over `reps` calls, in microseconds.
    fn round(&mut self, reps: usize) -> Result<f64, String> {
        use cudarc::cublas::{sys::cublasOperation_t::CUBLAS_OP_N, Gemm, GemmConfig};
        let cfg = GemmConfig {
            transa: CUBLAS_OP_N,
            transb: CUBLAS_OP_N,
            m: 64,
            n: 64,
            k: 64,
            alpha: 1.0f32,
            lda: 64,
            ldb: 64,
            beta: 0.0,
            ldc: 64,
        };
        self.stream.synchronize().map_err(|e| e.to_string())?;
        let t0 = std::time::Instant::now();
        for _ in 0..reps {
            // SAFETY: both operands and the output hold 64×64 floats on this stream's device.
            unsafe { self.blas.gemm(cfg, &self.a, &self.a, &mut self.c) }.map_err(|e| e.to_string())?;
        }
        self.stream.synchronize().map_err(|e| e.to_string())?;
        Ok(t0.elapsed().as_secs_f64() / reps as f64 * 1e6)
    }
}

/// xp's own contiguous float32 add kernel on 1,000 elements through cudarc alone: compiled by
/// NVRTC, loaded, and launched back to back.
struct BareLaunch {
    stream: std::sync::Arc<cudarc::driver::CudaStream>,
    f: cudarc::driver::CudaFunction,
    a: cudarc::driver::CudaSlice<f32>,
    out: cudarc::driver::CudaSlice<f32>,
}

impl BareLaunch {
    fn new(ordinal: usize) -> Result<Self, String> {
        use cudarc::driver::CudaContext;
        use xp::kernels::elementwise::{gpu_layout, loop_spec, IndexWidth};
        let op = xp::kernels::ops::ALL.iter().find(|o| o.name == "add").ok_or("no add op")?;
        let lp = op.loops.iter().find(|l| l.sig == "ff->f").ok_or("no ff->f loop")?;
        let k = loop_spec(op, lp, gpu_layout(1000, true), IndexWidth::I32).render();
        let ctx = CudaContext::new(ordinal).map_err(|e| e.to_string())?;
        let (major, minor) = ctx.compute_capability().map_err(|e| e.to_string())?;
        let arch: &'static str = Box::leak(format!("sm_{major}{minor}").into_boxed_str());
        let opts = cudarc::nvrtc::CompileOptions {
            arch: Some(arch),
            options: vec!["-std=c++17".into()],
            ..Default::default()
        };
        let ptx = cudarc::nvrtc::compile_ptx_with_opts(xp::kernels::with_prelude(&k.code), opts)
            .map_err(|e| e.to_string())?;
        let module = ctx.load_module(ptx).map_err(|e| e.to_string())?;
        let f = module.load_function(&k.name).map_err(|e| e.to_string())?;
        let stream = ctx.new_stream().map_err(|e| e.to_string())?;
        let a = stream.clone_htod(&vec![1.0f32; 1000]).map_err(|e| e.to_string())?;
        let out = stream.alloc_zeros::<f32>(1000).map_err(|e| e.to_string())?;
        let mut b = BareLaunch { stream, f, a, out };
        b.round(100)?;
        Ok(b)
    }

    /// Host time per launch over `reps` launches, in microseconds.
    fn round(&mut self, reps: usize) -> Result<f64, String> {
        use cudarc::driver::{LaunchConfig as CuConfig, PushKernelArg};
        let n = 1000i32;
        let cfg = CuConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        self.stream.synchronize().map_err(|e| e.to_string())?;
        let t0 = std::time::Instant::now();
        for _ in 0..reps {
            let mut b = self.stream.launch_builder(&self.f);
            b.arg(&self.a).arg(&self.a).arg(&mut self.out).arg(&n);
            // SAFETY: the kernel takes (const float*, const float*, float*, int) and reads and
            // writes the first `n` elements of buffers of 1,000 floats.
            unsafe { b.launch(cfg) }.map_err(|e| e.to_string())?;
        }
        self.stream.synchronize().map_err(|e| e.to_string())?;
        Ok(t0.elapsed().as_secs_f64() / reps as f64 * 1e6)
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && args[1] == "--first-call" {
        let tag: u128 = args[2].parse().unwrap_or(0);
        return match default_device().and_then(|d| first_call_ms(&d, tag, 1000)) {
            Ok(ms) => {
                println!("first-call-ms {ms}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.to_string().lines().next().unwrap_or("unknown error"));
            ExitCode::FAILURE
        }
    }
}
