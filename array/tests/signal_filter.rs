//! Tests of `xp_array::signal`'s filtering half (`lfilter` and its relatives, Savitzky–Golay,
//! median and Wiener filters, the analytic signal, resampling, peaks and B-splines) on the CPU
//! backend. Reference values are SciPy 1.17's, pasted as printed.

use std::sync::Arc;

use xp_array::signal::{self, FiltfiltMethod, FindPeaksOptions, PadType, SavgolMode, SavgolUse};
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn arr(dev: &Arc<dyn xp_backend_api::DynDevice>, v: &[f64]) -> Array {
    Array::from_slice_on(dev, v, &[v.len()]).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().ascontiguous().unwrap().to_vec::<f64>().unwrap()
}

fn close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol * (1.0 + w.abs()), "{what}[{i}]: got {g}, want {w}");
    }
}

const X: [f64; 8] = [1., -2., 3., 0.5, 4., -1., 2., 0.];

#[test]
fn lfilter_with_state_and_steady_state() {
    let d = cpu();
    let (b, a, x) = (arr(&d, &[0.5, 0.25]), arr(&d, &[1., -0.3, 0.1]), arr(&d, &X));
    let (y, zf) = signal::lfilter(&b, &a, &x, -1, Some(&arr(&d, &[0.2, -0.1]))).unwrap();
    // SciPy: lfilter(b, a, x, zi=[0.2, -0.1])
    close("y", &f64s(&y), &[0.7, -0.64, 0.738, 1.2854, 2.43682, 1.102506, 0.8370698, 0.64087034], 1e-12);
    close("zf", &f64s(&zf.unwrap()), &[0.108554122, -0.064087034], 1e-12);
    close("zi", &f64s(&signal::lfilter_zi(&b, &a).unwrap()), &[0.4375, -0.09375], 1e-14);
    let ff = signal::filtfilt(&b, &a, &x, -1, Some(PadType::Odd), Some(3), FiltfiltMethod::Pad).unwrap();
    #[rustfmt::skip]
    let want = [0.8557658512208345, 0.14703370422439893, 0.9865676004648515, 1.6468657591505647,
        1.7118587728031787, 0.9547499769038883, 0.6433178276798762, -0.00203272349925626];
    close("filtfilt", &f64s(&ff), &want, 1e-12);
    // Along axis 0 of a 2-d array, each column is filtered alone.
    let x2 = Array::from_slice_on(&d, &[1.0f32, 10., 2., 20., 3., 30.], &[3, 2]).unwrap();
    let (y2, _) = signal::lfilter(&b, &a, &x2, 0, None).unwrap();
    assert_eq!(y2.dtype(), DType::F64); // float64 coefficients promote
    let (c0, _) = signal::lfilter(&b, &a, &arr(&d, &[1., 2., 3.]), 0, None).unwrap();
    let col0: Vec<f64> = f64s(&y2).chunks(2).map(|r| r[0]).collect();
    close("column", &col0, &f64s(&c0), 1e-12);
    // float32 stays float32.
    let b32 = b.astype(DType::F32).unwrap();
    let a32 = a.astype(DType::F32).unwrap();
    let (y32, _) = signal::lfilter(&b32, &a32, &x.astype(DType::F32).unwrap(), -1, None).unwrap();
    assert_eq!(y32.dtype(), DType::F32);
}

#[test]
fn lfilter_errors() {
    let d = cpu();
    let x = arr(&d, &X);
    let e = signal::lfilter(&arr(&d, &[1.]), &arr(&d, &[0., 1.]), &x, -1, None).unwrap_err();
    assert!(matches!(e, Error::Value { .. }), "{e}");
    let e = signal::lfilter(&arr(&d, &[1., 2., 3.]), &arr(&d, &[1.]), &x, -1, Some(&arr(&d, &[0.]))).unwrap_err();
    assert!(e.to_string().contains("zi"), "{e}");
    let e = signal::filtfilt(
        &arr(&d, &[1., 2., 3.]),
        &arr(&d, &[1.]),
        &x,
        -1,
        Some(PadType::Odd),
        None,
        FiltfiltMethod::Pad,
    )
    .unwrap_err();
    assert!(e.to_string().contains("padlen"), "{e}");
    assert!("nope".parse::<PadType>().is_err());
    let bad_sos = Array::from_slice_on(&d, &[1., 0., 0., 2., 0., 0.], &[1, 6]).unwrap();
    assert!(signal::sosfilt(&bad_sos, &x, -1, None).is_err());
    assert!(signal::sosfilt(&arr(&d, &[1., 0., 0., 1., 0., 0.]), &x, -1, None).is_err());
}

#[test]
fn second_order_sections() {
    let d = cpu();
    let sos = Array::from_slice_on(&d, &[0.5, 0.25, 0., 1., -0.3, 0.1, 1., 0., -0.5, 1., 0.2, 0.], &[2, 6]).unwrap();
    let x = arr(&d, &X);
    let (y, _) = signal::sosfilt(&sos, &x, -1, None).unwrap();
    // SciPy: sosfilt(sos, x)
    close("sosfilt", &f64s(&y), &[0.5, -0.7, 0.66, 1.459, 1.7585, 0.10429, -0.401591, 0.1704993], 1e-12);
    let zi = signal::sosfilt_zi(&sos).unwrap();
    assert_eq!(zi.shape(), &[2, 2]);
    close("sosfilt_zi", &f64s(&zi), &[0.4375, -0.09375, -0.546875, -0.46875], 1e-14);
    let y = signal::sosfiltfilt(&sos, &x, -1, Some(PadType::Odd), Some(2)).unwrap();
    #[rustfmt::skip]
    let want = [0.3516491906102658, -1.3987174011120205, -0.04739355713394389, 1.2538968281944973,
        1.0140773635423121, 0.13100727058506223, 0.23853399181656254, -0.16190887032343731];
    close("sosfiltfilt", &f64s(&y), &want, 1e-12);
    // The final state continues a split signal.
    let z0 = Array::full_on(&d, &[2, 2], 0.0, DType::F64).unwrap();
    let (ya, za) = signal::sosfilt(&sos, &arr(&d, &X[..3]), -1, Some(&z0)).unwrap();
    let (yb, _) = signal::sosfilt(&sos, &arr(&d, &X[3..]), -1, za.as_ref()).unwrap();
    let joined: Vec<f64> = f64s(&ya).into_iter().chain(f64s(&yb)).collect();
    close("split", &joined, &f64s(&signal::sosfilt(&sos, &x, -1, None).unwrap().0), 1e-12);
}

#[test]
fn savitzky_golay() {
    let d = cpu();
    with_device(&d, || {
        let c = signal::savgol_coeffs(5, 2, 0, 1.0, None, SavgolUse::Conv).unwrap();
        #[rustfmt::skip]
        let want = [-0.08571428571428569, 0.34285714285714275, 0.4857142857142855, 0.34285714285714275, -0.08571428571428578];
        close("coeffs", &f64s(&c), &want, 1e-13);
        let y = signal::savgol_filter(&arr(&d, &X), 5, 2, 0, 1.0, -1, SavgolMode::Interp, 0.0).unwrap();
        #[rustfmt::skip]
        let want = [0.385714285714286, 0.05714285714285749, 0.5142857142857135, 2.8999999999999995,
            1.3428571428571416, 1.528571428571428, 1.014285714285712, 0.07142857142857029];
        close("filter", &f64s(&y), &want, 1e-12);
        let e = signal::savgol_filter(&arr(&d, &X), 5, 5, 0, 1.0, -1, SavgolMode::Interp, 0.0).unwrap_err();
        assert!(e.to_string().contains("polyorder must be less than window_length"), "{e}");
        assert!(signal::savgol_coeffs(5, 2, 0, 1.0, Some(5), SavgolUse::Dot).is_err());
        assert!("nope".parse::<SavgolMode>().is_err());
    });
}

#[test]
#[allow(clippy::approx_constant)] // SciPy's values, kept as printed
fn median_hilbert_resample_upfirdn() {
    let d = cpu();
    let x = arr(&d, &X);
    close("medfilt", &f64s(&signal::medfilt(&x, Some(&[3])).unwrap()), &[0., 1., 0.5, 3., 0.5, 2., 0., 0.], 0.0);
    assert!(signal::medfilt(&x, Some(&[4])).is_err());
    let ints = Array::from_slice_on(&d, &[3i64, 1, 2, 5, 4], &[5]).unwrap();
    assert_eq!(signal::medfilt(&ints, None).unwrap().dtype(), DType::I64);
    assert!(signal::medfilt2d(&x, None).is_err());
    let h = signal::hilbert(&x, None, -1).unwrap();
    assert_eq!(h.dtype(), DType::C128);
    #[rustfmt::skip]
    let want_im = [1.051776695296637, -1.4142135623730951, -1.4053300858899105, -0.7071067811865475,
        0.698223304703363, 1.4142135623730951, -0.3446699141100895, 0.7071067811865475];
    close("hilbert", &f64s(&h.imag().unwrap()), &want_im, 1e-12);
    let r = signal::resample(&x, 5, 0, None).unwrap();
    #[rustfmt::skip]
    let want = [-0.07766504294495534, 0.26318646895701514, 2.6859531694470387, 0.8316183742286465, 0.9844070303122557];
    close("resample", &f64s(&r), &want, 1e-12);
    let u = signal::upfirdn(&arr(&d, &[1., 2., 3.]), &x, 2, 3, -1).unwrap();
    close("upfirdn", &f64s(&u), &[1., -4., 9.5, 8., -1., 0.], 1e-14);
    assert!(signal::upfirdn(&arr(&d, &[1.]), &x, 0, 1, -1).is_err());
    let w = signal::wiener(&Array::full_on(&d, &[4, 4], 2.0f32, DType::F32).unwrap(), None, Some(0.5)).unwrap();
    assert_eq!(w.dtype(), DType::F64);
}

#[test]
fn peaks_and_extrema() {
    let d = cpu();
    let x = arr(&d, &[0., 1., 0., 2., 2., 2., 0., 3., 1., 0.]);
    let p = signal::find_peaks(&x, &FindPeaksOptions::default()).unwrap();
    assert_eq!(p.peaks.to_vec::<i64>().unwrap(), [1, 4, 7]);
    let opts = FindPeaksOptions { height: Some((Some(1.5), None)), ..Default::default() };
    assert_eq!(signal::find_peaks(&x, &opts).unwrap().peaks.to_vec::<i64>().unwrap(), [4, 7]);
    let opts = FindPeaksOptions { distance: Some(4.0), ..Default::default() };
    assert_eq!(signal::find_peaks(&x, &opts).unwrap().peaks.to_vec::<i64>().unwrap(), [1, 7]);
    let peaks = Array::from_slice_on(&d, &[1i64, 4, 7], &[3]).unwrap();
    let (pr, lb, rb) = signal::peak_prominences(&x, &peaks, None).unwrap();
    // SciPy: peak_prominences(x, [1, 4, 7])
    close("prominences", &f64s(&pr), &[1., 2., 3.], 0.0);
    assert_eq!(lb.to_vec::<i64>().unwrap(), [0, 2, 6]);
    assert_eq!(rb.to_vec::<i64>().unwrap(), [2, 6, 9]);
    let (w, wh, li, ri) = signal::peak_widths(&x, &peaks, 0.5, None).unwrap();
    close("widths", &f64s(&w), &[1., 3., 1.25], 1e-14);
    close("heights", &f64s(&wh), &[0.5, 1., 1.5], 1e-14);
    close("left", &f64s(&li), &[0.5, 2.5, 6.5], 1e-14);
    close("right", &f64s(&ri), &[1.5, 5.5, 7.75], 1e-14);
    let m = signal::argrelmax(&x, 0, 1, signal::ExtremaMode::Clip).unwrap();
    assert_eq!(m[0].to_vec::<i64>().unwrap(), [1, 7]);
    assert!(signal::argrelmax(&x, 0, 0, signal::ExtremaMode::Clip).is_err());
    let x2 = Array::full_on(&d, &[2, 3], 0.0, DType::F64).unwrap();
    assert!(signal::find_peaks(&x2, &FindPeaksOptions::default()).is_err());
    let bad = Array::from_slice_on(&d, &[20i64], &[1]).unwrap();
    assert!(signal::peak_prominences(&x, &bad, None).is_err());
    with_device(&d, || {
        let lags = signal::correlation_lags(5, 3, signal::Mode::Same).unwrap();
        assert_eq!(lags.to_vec::<i64>().unwrap(), [-1, 0, 1, 2, 3]);
    });
}

#[test]
fn b_splines() {
    let d = cpu();
    let c = signal::cspline1d(&arr(&d, &X), 0.0).unwrap();
    #[rustfmt::skip]
    let want = [2.237150953490745, -5.185794858027904, 6.506028478620864, -2.838319056455542,
        7.8472477472012985, -4.550671932349646, 4.355439982197277, -0.8710879964394556];
    close("cspline1d", &f64s(&c), &want, 1e-12);
    let e = signal::cspline1d_eval(&c, &arr(&d, &[-1., 0.5, 7.5, 9.]), 1.0, 0.0).unwrap();
    close("eval", &f64s(&e), &[-2.0, -1.2307422994217303, 1.556631994659183, -1.0], 1e-12);
    assert!(signal::qspline1d(&arr(&d, &X), 1.0).is_err());
    let s: Vec<f64> = (0..40).map(|v| (v % 7) as f64).collect();
    let y = signal::symiirorder1(&arr(&d, &s), 0.5, 0.3, -1.0).unwrap();
    close(
        "symiirorder1",
        &f64s(&y)[..4],
        &[0.435755299682989, 1.1474889558343255, 2.06678790651506, 3.0285071045037264],
        1e-10,
    );
    assert!(signal::symiirorder1(&arr(&d, &X), 0.5, 0.3, -1.0).is_err()); // start sum does not converge
    assert!(signal::symiirorder1(&arr(&d, &s), 0.5, 1.2, -1.0).is_err());
}

/// Every `k`-th element.
fn every(v: &[f64], k: usize) -> Vec<f64> {
    v.iter().step_by(k).copied().collect()
}

#[test]
fn polyphase_resampling_and_decimation() {
    let d = cpu();
    let xs: Vec<f64> = (0..64).map(|i| (i as f64 * 0.3).sin() + 0.05 * i as f64).collect();
    let x = arr(&d, &xs);
    // SciPy 1.17: resample_poly(x, 3, 2)[::9], resample_poly(x, 1, 4, padtype='line')[::3],
    // decimate(x, 2)[::5], decimate(x, 3, ftype='fir')[::4], decimate(x, 2, zero_phase=False)[::5].
    let rp = signal::resample_poly(&x, 3, 2, 0, None, signal::PolyPad::Constant).unwrap();
    assert_eq!(rp.shape(), [96]);
    close(
        "resample_poly 3/2",
        &every(&f64s(&rp), 9),
        &[
            3.3763381252569618e-18,
            1.2746198036235756,
            0.15757501664768325,
            0.12731263924675718,
            1.994876372583234,
            1.9132775608991988,
            0.8195602647296996,
            2.1349163930860917,
            3.367697949284487,
            2.228928312482355,
            2.2503760452814383,
        ],
        1e-12,
    );
    let rl = signal::resample_poly(&x, 1, 4, 0, None, signal::PolyPad::Line).unwrap();
    close(
        "resample_poly line",
        &every(&f64s(&rl), 3),
        &[
            0.12235023366626865,
            0.1535312248592989,
            1.99501431763199,
            0.8201563408265862,
            3.3580376915704506,
            2.292501900099051,
        ],
        1e-12,
    );
    let di = signal::decimate(&x, 2, None, signal::DecimateFilter::Iir, -1, true).unwrap();
    close(
        "decimate iir",
        &every(&f64s(&di), 5),
        &[
            -0.00026529283826867006,
            0.6353990164752465,
            0.7094696271775418,
            1.895521376512601,
            1.4415818926279327,
            3.122656934195791,
            2.2142031067430095,
        ],
        1e-9,
    );
    let df = signal::decimate(&x, 3, None, signal::DecimateFilter::Fir, -1, true).unwrap();
    close(
        "decimate fir",
        &every(&f64s(&df), 4),
        &[
            0.09847697458528618,
            0.15801674644996733,
            1.9952243057940073,
            0.8225734455546474,
            3.4026587730942452,
            2.5152679865719976,
        ],
        1e-9,
    );
    let dn = signal::decimate(&x, 2, None, signal::DecimateFilter::Iir, -1, false).unwrap();
    close(
        "decimate forwards",
        &every(&f64s(&dn), 5),
        &[
            0.0,
            1.298394612362314,
            -0.20982631118362677,
            2.270108107036053,
            0.8189895606670219,
            3.1824065241655024,
            1.9320419230420736,
        ],
        1e-9,
    );
    // float32 stays float32; bad factors and pad types are errors.
    let x32 = x.astype(DType::F32).unwrap();
    assert_eq!(signal::resample_poly(&x32, 3, 2, 0, None, signal::PolyPad::Mean).unwrap().dtype(), DType::F32);
    assert_eq!(signal::decimate(&x32, 2, None, signal::DecimateFilter::Iir, -1, true).unwrap().dtype(), DType::F32);
    assert!(signal::resample_poly(&x, 0, 2, 0, None, signal::PolyPad::Constant).is_err());
    assert!(signal::decimate(&x, 0, None, signal::DecimateFilter::Iir, -1, true).is_err());
    assert!("bogus".parse::<signal::PolyPad>().is_err());
    assert!("cheby".parse::<signal::DecimateFilter>().is_err());
}
