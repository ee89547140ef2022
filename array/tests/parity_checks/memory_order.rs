//! Fortran order on any device: F-ordered arrays give the values of C-ordered ones through
//! elementwise ops (eager and fused, large enough for many blocks), copies, `reshape` in F
//! order, reductions and the libraries (BLAS, FFT, solvers, sort).

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::DynDevice;

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn close(what: &str, got: &Array, want: &Array, tol: f64) {
    let (g, w) = (f64s(got), f64s(want));
    assert_eq!(g.len(), w.len(), "{what}");
    for (k, (x, y)) in g.iter().zip(&w).enumerate() {
        assert!((x - y).abs() <= tol * y.abs().max(1.0), "{what}: element {k}: {x} vs {y}");
    }
}

pub fn fortran_arrays_give_the_values_of_c_arrays(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let (m, n) = (300usize, 257usize);
        let c = arange(0, (m * n) as i64, 1, Some(DType::F64))
            .unwrap()
            .reshape(&[m as isize, n as isize])
            .unwrap()
            .mul_scalar(0.001)
            .unwrap()
            .sin()
            .unwrap()
            .copy()
            .unwrap();
        let f = asfortranarray(&c).unwrap();
        assert!(f.flags().f_contiguous && !f.flags().c_contiguous && f.flags().owndata);
        close("asfortranarray", &f, &c, 0.0);
        for lazy_on in [true, false] {
            let run = || {
                let y = &(&(&f * 2.0) + &f).exp().unwrap() - 1.0;
                assert!(y.is_f_contiguous() && !y.is_contiguous(), "lazy {lazy_on}");
                close("chain", &y, &(&(&(&c * 2.0) + &c).exp().unwrap() - 1.0), 0.0);
                let s = y.astype(DType::F32).unwrap();
                assert!(s.is_f_contiguous());
                close("astype", &s, &y.astype_order(DType::F32, Order::C).unwrap(), 0.0);
                close(
                    "sum of a map",
                    &(&f * &f).sum(Some(&[0]), false).unwrap(),
                    &(&c * &c).sum(Some(&[0]), false).unwrap(),
                    1e-12,
                );
            };
            if lazy_on {
                run()
            } else {
                lazy::disabled(run)
            }
        }
        close("copy C", &f.copy().unwrap(), &c, 0.0);
        close("copy F", &c.copy_order(Order::F).unwrap(), &c, 0.0);
        close(
            "reshape F",
            &f.reshape_order(&[n as isize, m as isize], Order::F).unwrap(),
            &c.reshape_order(&[n as isize, m as isize], Order::F).unwrap(),
            0.0,
        );
        close("sum axis 1", &f.sum(Some(&[1]), false).unwrap(), &c.sum(Some(&[1]), false).unwrap(), 1e-12);
        let sq = c.slice(&[SliceArg::range(0, 64, 1), SliceArg::range(0, 64, 1)]).unwrap().copy().unwrap();
        let a = (&sq + &identity(64, DType::F64).unwrap().mul_scalar(64.0).unwrap()).copy().unwrap();
        let fa = asfortranarray(&a).unwrap();
        let b = c.slice(&[SliceArg::range(0, 64, 1), SliceArg::range(0, 5, 1)]).unwrap().copy().unwrap();
        let fb = asfortranarray(&b).unwrap();
        close("matmul", &linalg::matmul(&fa, &fb).unwrap(), &linalg::matmul(&a, &b).unwrap(), 1e-12);
        close("solve", &linalg::solve(&fa, &fb).unwrap(), &linalg::solve(&a, &b).unwrap(), 1e-10);
        for axis in [0isize, 1] {
            let (g, w) = (fft::fft(&f, None, axis, None).unwrap(), fft::fft(&c, None, axis, None).unwrap());
            close("fft real", &g.real(), &w.real(), 1e-9);
            close("fft imag", &g.imag().unwrap(), &w.imag().unwrap(), 1e-9);
            close("sort", &sort(&f, Some(axis)).unwrap(), &sort(&c, Some(axis)).unwrap(), 0.0);
        }
    })
}
