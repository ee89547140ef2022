//! Order statistics, sets and sorting errors on the CPU backend: values NumPy printed for the
//! same inputs, and each bad input's error.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-12 * w.abs().max(1.0), "{got:?} vs {want:?}");
    }
}

#[test]
fn quantile_methods_match_numpy() {
    let d = cpu();
    with_device(&d, || {
        let x = Array::from_vec(vec![3.0f64, 1., 4., 1., 5., 9., 2., 6., 5., 3., 5., 8., 9., 7., 9.])
            .unwrap()
            .reshape(&[3, 5])
            .unwrap();
        let q: &[f64] = &[0.1, 0.5, 0.77];
        // NumPy: quantile(x, [0.1, 0.5, 0.77], axis=1, method=m), shape (3 quantiles, 3 rows).
        let cases: [(&str, [f64; 9]); 6] = [
            ("linear", [1.0, 3.0, 4.08, 2.4, 5.0, 6.24, 5.8, 8.0, 9.0]),
            ("lower", [1.0, 3.0, 4.0, 2.0, 5.0, 6.0, 5.0, 8.0, 9.0]),
            ("higher", [1.0, 3.0, 5.0, 3.0, 5.0, 9.0, 7.0, 8.0, 9.0]),
            ("midpoint", [1.0, 3.0, 4.5, 2.5, 5.0, 7.5, 6.0, 8.0, 9.0]),
            ("weibull", [1.0, 3.0, 4.62, 2.0, 5.0, 7.86, 5.0, 8.0, 9.0]),
            ("interpolated_inverted_cdf", [1.0, 2.0, 3.85, 2.0, 4.0, 5.85, 5.0, 7.5, 8.85]),
        ];
        for (m, want) in cases {
            let method = QuantileMethod::from_name(m).unwrap();
            let got = quantile(&x, q, Some(1), method, false).unwrap();
            assert_eq!(got.shape(), &[3, 3], "{m}");
            // NumPy's rows are the quantiles: transpose its printout.
            let w: Vec<f64> = (0..9).map(|i| want[(i % 3) * 3 + i / 3]).collect();
            close(&f64s(&got), &w);
        }
        // The discontinuous methods (types 1 to 3), NumPy's values for the flat x.
        let flat = x.ravel().unwrap();
        let qs: &[f64] = &[0.0, 0.1, 0.2, 0.25, 1.0 / 3.0, 0.5, 0.6, 0.75, 0.9, 1.0];
        for (m, want) in [
            ("inverted_cdf", [1.0, 1.0, 2.0, 3.0, 3.0, 5.0, 5.0, 8.0, 9.0, 9.0]),
            ("averaged_inverted_cdf", [1.0, 1.0, 2.5, 3.0, 3.5, 5.0, 5.5, 8.0, 9.0, 9.0]),
            ("closest_observation", [1.0, 1.0, 2.0, 3.0, 3.0, 5.0, 5.0, 7.0, 9.0, 9.0]),
        ] {
            let got = quantile(&flat, qs, None, QuantileMethod::from_name(m).unwrap(), false).unwrap();
            close(&f64s(&got), &want);
            // Types 1 and 3 pick elements: an int64 input stays int64 (type 2: float64).
            let ints =
                quantile(&flat.astype(DType::I64).unwrap(), 0.3, None, QuantileMethod::from_name(m).unwrap(), false)
                    .unwrap();
            let dt = if m == "averaged_inverted_cdf" { DType::F64 } else { DType::I64 };
            assert_eq!((ints.dtype(), f64s(&ints)), (dt, vec![3.0]), "{m}");
        }
        close(&f64s(&median(&x, Some(0), false).unwrap()), &[5.0, 2.0, 6.0, 5.0, 5.0]);
        assert_eq!(f64s(&median(&x, None, false).unwrap()), vec![5.0]);
        let i = arange(0, 6, 1, Some(DType::I32)).unwrap().reshape(&[2, 3]).unwrap();
        let m = median(&i, Some(1), true).unwrap();
        assert_eq!((m.shape(), m.dtype()), (&[2usize, 1][..], DType::F64));
        assert_eq!(f64s(&m), vec![1.0, 4.0]);
        // Percent, NaN rows, and the NaN-skipping forms.
        let y = Array::from_vec(vec![1.0f32, f32::NAN, 3.0, 2.0, f32::NAN, 10.0]).unwrap();
        assert!(f64s(&median(&y, None, false).unwrap())[0].is_nan());
        let nm = nanmedian(&y, None, false).unwrap();
        assert_eq!((nm.dtype(), f64s(&nm)), (DType::F32, vec![2.5]));
        close(
            &f64s(&nanpercentile(&y, &[25.0, 75.0][..], None, QuantileMethod::Linear, false).unwrap()),
            &[1.75, 4.75],
        );
        let p =
            percentile(&x.astype(DType::F32).unwrap(), &[5.0, 50.0][..], None, QuantileMethod::Linear, false).unwrap();
        assert_eq!(p.dtype(), DType::F64);
        assert_eq!(
            quantile(&x.astype(DType::F32).unwrap(), 0.3, None, QuantileMethod::Linear, false).unwrap().dtype(),
            DType::F32
        );
    });
}

#[test]
fn set_routines_match_numpy() {
    let d = cpu();
    with_device(&d, || {
        let a = Array::from_vec(vec![5i32, 1, 3, 3, 9, -2, 1]).unwrap();
        let b = Array::from_vec(vec![3.0f64, 4.0, 1.0, 1.0, 10.0]).unwrap();
        // NumPy: intersect1d, union1d, setdiff1d, setxor1d, isin of these.
        assert_eq!(f64s(&intersect1d(&a, &b).unwrap()), vec![1.0, 3.0]);
        assert_eq!(intersect1d(&a, &b).unwrap().dtype(), DType::F64);
        assert_eq!(f64s(&union1d(&a, &b).unwrap()), vec![-2.0, 1.0, 3.0, 4.0, 5.0, 9.0, 10.0]);
        assert_eq!(f64s(&setdiff1d(&a, &b).unwrap()), vec![-2.0, 5.0, 9.0]);
        assert_eq!(f64s(&setxor1d(&a, &b).unwrap()), vec![-2.0, 4.0, 5.0, 9.0, 10.0]);
        let hit = isin(&a, &b, false).unwrap().to_vec::<bool>().unwrap();
        assert_eq!(hit, vec![false, true, true, true, false, false, true]);
        let nan = Array::from_vec(vec![f64::NAN, 1.0]).unwrap();
        assert_eq!(isin(&nan, &nan, false).unwrap().to_vec::<bool>().unwrap(), vec![false, true]);
    });
}

#[test]
fn sorting_errors_name_the_op() {
    let d = cpu();
    with_device(&d, || {
        let m = zeros(&[3, 4], DType::F32).unwrap();
        let e = m.sort(Some(2)).unwrap_err();
        assert!(e.to_string().contains("sort"), "{e}");
        let e = m.argsort(Some(-3)).unwrap_err();
        assert!(e.to_string().contains("argsort") && e.to_string().contains("axis"), "{e}");
        let e = searchsorted(&m, &m, Side::Left, None).unwrap_err();
        assert!(e.to_string().contains("searchsorted") && e.to_string().contains("1-d"), "{e}");
        let v = zeros(&[4], DType::F32).unwrap();
        let e = partition(&v, 4, Some(0)).unwrap_err();
        assert!(e.to_string().contains("kth"), "{e}");
        let e = quantile(&v, 1.5, None, QuantileMethod::Linear, false).unwrap_err();
        assert!(e.to_string().contains("[0, 1]"), "{e}");
        let e = lexsort(&[&v, &zeros(&[5], DType::F32).unwrap()]).unwrap_err();
        assert!(e.to_string().contains("lexsort"), "{e}");
        // Zero-size and one-element rows.
        assert_eq!(zeros(&[0], DType::F64).unwrap().sort(Some(-1)).unwrap().size(), 0);
        assert_eq!(unique(&zeros(&[0], DType::I8).unwrap()).unwrap().size(), 0);
        let one = Array::from_vec(vec![7i64]).unwrap();
        assert_eq!(one.argsort(Some(0)).unwrap().to_vec::<i64>().unwrap(), vec![0]);
    });
}
