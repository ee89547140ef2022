//! `xp_array::stats`: SciPy's statistics on the CPU backend. The reference values are SciPy
//! 1.17's, printed by `scipy.stats` on the same inputs; dtypes, shapes and errors as SciPy's.

use std::sync::Arc;

use xp_array::stats::{self, Alternative, RankMethod};
use xp_array::*;
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// The 3×8 sample of most tests.
const X: [f64; 24] = [
    2.0, 8.0, 0.0, 4.0, 1.0, 9.0, 9.0, 0.0, //
    1.0, 3.0, 7.0, 2.0, 5.0, 5.0, 1.0, 8.0, //
    4.5, -2.0, 3.0, 3.0, 0.5, 6.0, 2.0, 1.0,
];

/// The 2×6 integer sample of the order statistics.
const XI: [i64; 12] = [3, 1, 3, 2, 2, 5, 0, 0, 7, 7, 1, 1];

fn x(d: &Arc<dyn DynDevice>) -> Array {
    Array::from_slice_on(d, &X, &[3, 8]).unwrap()
}

fn xi(d: &Arc<dyn DynDevice>) -> Array {
    Array::from_slice_on(d, &XI, &[2, 6]).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// Each value within `rel` of the reference, relative to the reference's size (NaN for NaN,
/// infinities equal).
fn close(what: &str, got: &Array, want: &[f64], rel: f64) {
    let g = f64s(got);
    assert_eq!(g.len(), want.len(), "{what}: {g:?} vs {want:?}");
    for (i, (g, w)) in g.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= rel * w.abs().max(1e-300);
        assert!(ok, "{what}[{i}]: got {g:e}, want {w:e}");
    }
}

fn is_value(e: Error) -> bool {
    matches!(e, Error::Value { .. })
}

fn is_axis(e: Error) -> bool {
    matches!(e, Error::Axis { .. })
}

#[test]
fn moments_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let a = x(&d);
        let m = stats::moment(&a, 2, Some(1), None).unwrap();
        assert_eq!(m.shape(), &[3]);
        close("moment 2", &m, &[13.859375, 6.25, 5.375], 1e-15);
        let m = stats::moment(&a, [0, 1, 3], Some(0), Some(0.5)).unwrap();
        assert_eq!(m.shape(), &[3, 8]);
        let want = [
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0, //
            2.0,
            2.5,
            2.8333333333333335,
            2.5,
            1.6666666666666667,
            6.166666666666667,
            3.5,
            2.5, //
            22.5,
            140.625,
            96.70833333333333,
            20.625,
            30.416666666666668,
            290.5416666666667,
            205.875,
            140.625,
        ];
        close("moments about 0.5", &m, &want, 1e-14);
        // Order 1 about the mean is zero without looking at the data, order 0 is one.
        let z = stats::moment(&a, 1, None, None).unwrap();
        assert_eq!((z.shape(), f64s(&z)), (&[][..], vec![0.0]));
        assert!(is_value(stats::kstat(&a, 5, None).unwrap_err()));
        assert!(is_axis(stats::moment(&a, 2, Some(2), None).unwrap_err()));
    });
}

#[test]
fn skew_and_kurtosis_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let a = x(&d);
        close(
            "skew",
            &stats::skew(&a, Some(1), true).unwrap(),
            &[0.2650554122698573, 0.24, -0.19184202674565207],
            1e-13,
        );
        close(
            "skew unbiased",
            &stats::skew(&a, Some(-1), false).unwrap(),
            &[0.3305821804079746, 0.2993325909419153, -0.239269045488851],
            1e-13,
        );
        close("skew flat", &stats::skew(&a, None, true).unwrap(), &[0.38193477738612935], 1e-13);
        close(
            "kurtosis",
            &stats::kurtosis(&a, Some(1), true, true).unwrap(),
            &[-1.6660010752838508, -1.3424, -0.5680097349918873],
            1e-13,
        );
        close(
            "kurtosis Pearson unbiased",
            &stats::kurtosis(&a, Some(1), false, false).unwrap(),
            &[0.9013977419039132, 1.58096, 3.207179556517036],
            1e-13,
        );
        // A constant slice has no skewness or kurtosis: NaN, as SciPy.
        let c = Array::from_slice_on(&d, &[2.5f64; 6], &[6]).unwrap();
        assert!(f64s(&stats::skew(&c, Some(0), true).unwrap())[0].is_nan());
        assert!(f64s(&stats::kurtosis(&c, Some(0), true, false).unwrap())[0].is_nan());
        // float32 stays float32, integers give float64.
        assert_eq!(stats::skew(&a.astype(DType::F32).unwrap(), Some(0), true).unwrap().dtype(), DType::F32);
        assert_eq!(stats::kurtosis(&xi(&d), Some(0), true, true).unwrap().dtype(), DType::F64);
        assert!(matches!(stats::skew(&a.astype(DType::C128).unwrap(), Some(0), true), Err(Error::DType { .. })));
    });
}

#[test]
fn standard_scores_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let a = x(&d);
        let z = stats::zscore(&a, Some(0), 1).unwrap();
        assert_eq!(z.shape(), &[3, 8]);
        let col0 = z.slice(&[SliceArg::ALL, SliceArg::range(0, 1, 1)]).unwrap();
        close("zscore", &col0, &[-0.2773500981126146, -0.8320502943378437, 1.1094003924504583], 1e-14);
        let s = Array::from_slice_on(&d, &[1.0f64, 2.0, 3.0], &[3]).unwrap();
        let c = Array::from_slice_on(&d, &[0.5f64, 2.0, 4.0, 7.5], &[4]).unwrap();
        close(
            "zmap",
            &stats::zmap(&s, &c, Some(0), 0).unwrap(),
            &[-0.9534625892455924, -0.5720775535473553, -0.19069251784911848],
            1e-14,
        );
        // Too few values for ddof: NaN.
        assert!(f64s(&stats::zscore(&s, Some(0), 3).unwrap()).iter().all(|v| v.is_nan()));
        // Statistics of shape (1, 4) do not broadcast with scores of shape (3,).
        let c2 = Array::from_slice_on(&d, &[1.0f64, 2.0, 4.0, 8.0, 0.0, 1.0, 1.0, 2.0], &[2, 4]).unwrap();
        assert!(is_value(stats::zmap(&s, &c2, Some(0), 0).unwrap_err()));
        close(
            "sem",
            &stats::sem(&a, Some(1), 1).unwrap(),
            &[1.407093001292279, 0.9449111825230679, 0.876274581884664],
            1e-14,
        );
        close(
            "variation",
            &stats::variation(&a, Some(1), 0).unwrap(),
            &[0.9025013704142686, 0.625, 1.0304020550550783],
            1e-14,
        );
    });
}

#[test]
fn entropy_trim_mean_and_boxcox_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let p = Array::from_slice_on(&d, &[1i64, 2, 3, 4], &[4]).unwrap();
        let q = Array::from_slice_on(&d, &[4i64, 3, 2, 1], &[4]).unwrap();
        let e = stats::entropy(&p, None, None, Some(0)).unwrap();
        assert_eq!((e.dtype(), e.shape()), (DType::F64, &[][..]));
        close("entropy", &e, &[1.2798542258336676], 1e-14);
        close(
            "relative entropy",
            &stats::entropy(&p, Some(&q), Some(2.0), Some(0)).unwrap(),
            &[0.6584962500721155],
            1e-14,
        );
        let a1 = x(&d).add(1.0).unwrap();
        close(
            "entropy rows",
            &stats::entropy(&a1, None, None, Some(1)).unwrap(),
            &[1.7975709973091465, 1.9507476992908113, f64::NEG_INFINITY],
            1e-14,
        );
        assert!(is_value(stats::entropy(&p, None, Some(-1.0), Some(0)).unwrap_err()));
        let q3 = Array::from_slice_on(&d, &[1.0f64, 2.0, 3.0], &[3]).unwrap();
        assert!(is_value(stats::entropy(&p, Some(&q3), None, Some(0)).unwrap_err()));

        let a = x(&d);
        close("trim_mean", &stats::trim_mean(&a, 0.25, Some(1)).unwrap(), &[3.75, 3.75, 2.25], 1e-15);
        close("trim_mean flat", &stats::trim_mean(&a, 0.1, None).unwrap(), &[3.35], 1e-15);
        assert!(is_value(stats::trim_mean(&a, 0.7, Some(1)).unwrap_err()));
        assert!(f64s(&stats::trim_mean(&a, 0.6, Some(1)).unwrap()).iter().all(|v| v.is_nan()));
        let f32m = stats::trim_mean(&a.astype(DType::F32).unwrap(), 0.1, Some(0)).unwrap();
        assert_eq!(f32m.dtype(), DType::F32);

        let t = a.t().add(1.0).unwrap();
        close(
            "boxcox_llf",
            &stats::boxcox_llf(0.5, &t, Some(0)).unwrap(),
            &[-9.568906624340709, -6.97793325770254, f64::NAN],
            1e-13,
        );
        let row = |i: isize| a.slice(&[SliceArg::range(i, i + 1, 1), SliceArg::ALL]).unwrap().reshape(&[8]).unwrap();
        close(
            "boxcox_llf 0",
            &stats::boxcox_llf(0.0, &row(0).add(1.0).unwrap(), Some(0)).unwrap(),
            &[-9.491343292382515],
            1e-13,
        );
        close("boxcox_llf -1.5", &stats::boxcox_llf(-1.5, &row(1), Some(0)).unwrap(), &[-11.713133323241873], 1e-13);
    });
}

#[test]
fn mode_takes_the_smallest_most_frequent_value() {
    let d = cpu();
    with_device(&d, || {
        let a = xi(&d);
        let m = stats::mode(&a, Some(1), false).unwrap();
        assert_eq!((m.mode.dtype(), m.mode.shape()), (DType::I64, &[2][..]));
        assert_eq!(m.mode.to_vec::<i64>().unwrap(), vec![2, 0]);
        assert_eq!(m.count.to_vec::<i64>().unwrap(), vec![2, 2]);
        let m = stats::mode(&a, None, false).unwrap();
        assert_eq!((m.mode.item::<i64>().unwrap(), m.count.item::<i64>().unwrap()), (1, 3));
        let m = stats::mode(&a, Some(0), true).unwrap();
        assert_eq!(m.mode.shape(), &[1, 6]);
        assert_eq!(m.mode.to_vec::<i64>().unwrap(), vec![0, 0, 3, 2, 1, 1]);
        // NaNs count as equal to one another.
        let f = Array::from_slice_on(&d, &[f64::NAN, 1.0, f64::NAN], &[3]).unwrap();
        let m = stats::mode(&f, Some(0), false).unwrap();
        assert!(m.mode.item::<f64>().unwrap().is_nan());
        assert_eq!(m.count.item::<i64>().unwrap(), 2);
        assert!(is_axis(stats::mode(&a, Some(2), false).unwrap_err()));
        assert!(matches!(stats::mode(&a.gt(1).unwrap(), None, false), Err(Error::DType { .. })));
    });
}

#[test]
fn rankdata_matches_scipy_for_every_method() {
    let d = cpu();
    with_device(&d, || {
        let a = xi(&d);
        let rows: [(&str, [f64; 12], [f64; 12]); 5] = [
            (
                "average",
                [4.5, 1.0, 4.5, 2.5, 2.5, 6.0, 1.5, 1.5, 5.5, 5.5, 3.5, 3.5],
                [8.5, 4.0, 8.5, 6.5, 6.5, 10.0, 1.5, 1.5, 11.5, 11.5, 4.0, 4.0],
            ),
            (
                "min",
                [4., 1., 4., 2., 2., 6., 1., 1., 5., 5., 3., 3.],
                [8., 3., 8., 6., 6., 10., 1., 1., 11., 11., 3., 3.],
            ),
            (
                "max",
                [5., 1., 5., 3., 3., 6., 2., 2., 6., 6., 4., 4.],
                [9., 5., 9., 7., 7., 10., 2., 2., 12., 12., 5., 5.],
            ),
            (
                "dense",
                [3., 1., 3., 2., 2., 4., 1., 1., 3., 3., 2., 2.],
                [4., 2., 4., 3., 3., 5., 1., 1., 6., 6., 2., 2.],
            ),
            (
                "ordinal",
                [4., 1., 5., 2., 3., 6., 1., 2., 5., 6., 3., 4.],
                [8., 3., 9., 6., 7., 10., 1., 2., 11., 12., 4., 5.],
            ),
        ];
        for (name, by_row, flat) in rows {
            let m: RankMethod = name.parse().unwrap();
            let want = if m == RankMethod::Average { DType::F64 } else { DType::I64 };
            let r = stats::rankdata(&a, m, Some(1)).unwrap();
            assert_eq!((r.dtype(), r.shape()), (want, &[2, 6][..]), "{name}");
            assert_eq!(f64s(&r), by_row.to_vec(), "{name} along axis 1");
            let r = stats::rankdata(&a.t(), m, Some(0)).unwrap();
            assert_eq!(f64s(&r.t()), by_row.to_vec(), "{name} along axis 0");
            let r = stats::rankdata(&a, m, None).unwrap();
            assert_eq!(r.shape(), &[12]);
            assert_eq!(f64s(&r), flat.to_vec(), "{name} flattened");
        }
        // A NaN makes the answer float64 and its slice NaN, as SciPy.
        let f = Array::from_slice_on(&d, &[1.0f64, 2.0, f64::NAN, 1.0], &[2, 2]).unwrap();
        let r = stats::rankdata(&f, RankMethod::Min, Some(1)).unwrap();
        assert_eq!(r.dtype(), DType::F64);
        let v = f64s(&r);
        assert_eq!(&v[..2], &[1.0, 2.0]);
        assert!(v[2].is_nan() && v[3].is_nan());
        assert!(is_value("foo".parse::<RankMethod>().unwrap_err()));
        assert!(is_axis(stats::rankdata(&a, RankMethod::Min, Some(-3)).unwrap_err()));
    });
}

#[test]
fn correlations_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let a = Array::from_slice_on(&d, &[1.0f64, 2.0, 4.0, 3.0, 7.0], &[5]).unwrap();
        let b = Array::from_slice_on(&d, &[1.0f64, 3.0, 2.0, 2.0, 9.0], &[5]).unwrap();
        let r = stats::pearsonr(&a, &b, Alternative::Less, Some(0)).unwrap();
        close("pearsonr", &r.statistic, &[0.8865122738709028], 1e-14);
        close("pearsonr p less", &r.pvalue, &[0.977447611715805], 1e-12);
        let r = stats::pearsonr(&a, &b, "greater".parse().unwrap(), Some(0)).unwrap();
        close("pearsonr p greater", &r.pvalue, &[0.022552388284195195], 1e-12);
        let r32 = stats::pearsonr(
            &a.astype(DType::F32).unwrap(),
            &b.astype(DType::F32).unwrap(),
            Alternative::TwoSided,
            Some(0),
        )
        .unwrap();
        assert_eq!((r32.statistic.dtype(), r32.pvalue.dtype()), (DType::F32, DType::F32));
        let one = Array::from_slice_on(&d, &[1.0f64], &[1]).unwrap();
        assert!(is_value(stats::pearsonr(&one, &one, Alternative::TwoSided, Some(0)).unwrap_err()));
        let short = Array::from_slice_on(&d, &[1.0f64, 2.0], &[2]).unwrap();
        assert!(is_value(stats::pearsonr(&a, &short, Alternative::TwoSided, Some(0)).unwrap_err()));
        let c = Array::from_slice_on(&d, &[3.0f64; 5], &[5]).unwrap();
        assert!(f64s(&stats::pearsonr(&a, &c, Alternative::TwoSided, Some(0)).unwrap().statistic)[0].is_nan());

        let s1 = Array::from_slice_on(&d, &[1i64, 5, 2, 8, 3], &[5]).unwrap();
        let s2 = Array::from_slice_on(&d, &[2i64, 4, 1, 9, 5], &[5]).unwrap();
        let r = stats::spearmanr(&s1, &s2, Alternative::TwoSided).unwrap();
        close("spearmanr", &r.statistic, &[0.7999999999999999], 1e-14);
        close("spearmanr p", &r.pvalue, &[0.10408803866182788], 1e-12);
    });
}

#[test]
fn descriptive_statistics_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let v = Array::from_slice_on(&d, &[1.0f64, 2.0, 4.0, 8.0], &[4]).unwrap();
        close("gmean", &stats::gmean(&v, Some(0)).unwrap(), &[2.82842712474619], 1e-14);
        let w = Array::from_slice_on(&d, &[1.0f64, 2.0, 4.0], &[3]).unwrap();
        close("hmean", &stats::hmean(&w, Some(0)).unwrap(), &[1.7142857142857142], 1e-14);
        close("pmean", &stats::pmean(&w, 2.5, Some(0)).unwrap(), &[2.7799827561573864], 1e-14);
        let neg = Array::from_slice_on(&d, &[1.0f64, -2.0, 3.0], &[3]).unwrap();
        assert!(f64s(&stats::hmean(&neg, Some(0)).unwrap())[0].is_nan());

        let a = x(&d);
        close(
            "iqr",
            &stats::iqr(&a, Some(1), (25.0, 75.0), 1.0, QuantileMethod::Linear).unwrap(),
            &[7.5, 3.75, 2.5],
            1e-15,
        );
        assert!(is_value(stats::iqr(&a, None, (-1.0, 75.0), 1.0, QuantileMethod::Linear).unwrap_err()));
        let ks: Vec<f64> = (1..=4).map(|n| f64s(&stats::kstat(&a, n, None).unwrap())[0]).collect();
        let want = [3.4583333333333335, 9.628623188405797, 12.18659420289855, -72.34025032938077];
        for (g, w) in ks.iter().zip(want) {
            assert!((g - w).abs() <= 1e-13 * w.abs(), "kstat {g} vs {w}");
        }
        close(
            "tmean",
            &stats::tmean(&a, (Some(1.0), Some(5.0)), (true, true), None).unwrap(),
            &[2.6785714285714284],
            1e-14,
        );
        close(
            "tvar",
            &stats::tvar(&a, (Some(1.0), Some(5.0)), (true, true), None, 1).unwrap(),
            &[2.2156593406593403],
            1e-14,
        );
        close("tmin", &stats::tmin(&a, Some(2.0), Some(1), true).unwrap(), &[2.0, 2.0, 2.0], 0.0);
        close("tmax", &stats::tmax(&a, Some(5.0), Some(1), false).unwrap(), &[4.0, 3.0, 4.5], 0.0);
        assert!(is_value(stats::tmean(&a, (Some(20.0), None), (true, true), None).unwrap_err()));
        let ti = stats::tmin(&xi(&d), Some(2.0), Some(0), true).unwrap();
        assert_eq!(ti.dtype(), DType::I64);

        let r = stats::describe(&a, Some(1), 1, true).unwrap();
        assert_eq!(r.nobs, 8);
        close("describe min", &r.minmax.0, &[0.0, 1.0, -2.0], 0.0);
        close("describe max", &r.minmax.1, &[9.0, 8.0, 6.0], 0.0);
        close("describe mean", &r.mean, &[4.125, 4.0, 2.25], 1e-15);
        close("describe variance", &r.variance, &[15.839285714285714, 7.142857142857142, 6.142857142857142], 1e-14);
        close("describe kurtosis", &r.kurtosis, &[-1.6660010752838508, -1.3424, -0.5680097349918873], 1e-13);
    });
}
