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

/// `(rows, cols)` samples of `f(i, j)` as a float64 array.
fn grid(d: &Arc<dyn xp_backend_api::DynDevice>, rows: usize, cols: usize, f: impl Fn(f64, f64) -> f64) -> Array {
    let v: Vec<f64> = (0..rows * cols).map(|k| f((k / cols) as f64, (k % cols) as f64)).collect();
    Array::from_slice_on(d, &v, &[rows, cols]).unwrap()
}

/// The `(r, c)` top-left block of a 2-d array, row by row.
fn block(a: &Array, r: usize, c: usize) -> Vec<f64> {
    let cols = a.shape()[1];
    let v = f64s(a);
    (0..r).flat_map(|i| v[i * cols..i * cols + c].to_vec()).collect()
}

#[test]
fn symiirorder2_matches_scipy() {
    let d = cpu();
    let s: Vec<f64> = (0..40).map(|i| (i as f64 * 0.3).sin() + 0.1 * i as f64).collect();
    // SciPy: symiirorder2(s, 0.5, 0.4)
    let y = signal::symiirorder2(&arr(&d, &s), 0.5, 0.4, -1.0).unwrap();
    let y = f64s(&y);
    close(
        "symiirorder2 head",
        &y[..4],
        &[0.36276403350432584, 0.5122855767952991, 0.7448292610178567, 0.9936129399566471],
        1e-12,
    );
    close("symiirorder2 tail", &y[37..], &[2.788437293784977, 2.869434693104752, 2.934330460746303], 1e-12);
    // SciPy: symiirorder2(s, 0.3, 1.2, 1e-4): the start sums stop early (SciPy's truncation)
    let y = f64s(&signal::symiirorder2(&arr(&d, &s), 0.3, 1.2, 1e-4).unwrap());
    close("precision 1e-4", &y[..2], &[-0.01924286926010435, 0.3612278929194403], 1e-12);
    close("precision 1e-4 tail", &y[38..], &[2.8938875708538965, 3.1369410645416917], 1e-12);
    // 2-d input: each row filtered. SciPy: symiirorder2(np.stack([s, 2 s[::-1]]), 0.3, 1.2)[:, :4]
    let rev: Vec<f64> = s.iter().rev().map(|v| 2.0 * v).collect();
    let rows = Array::from_slice_on(&d, &[s.clone(), rev].concat(), &[2, 40]).unwrap();
    let y = signal::symiirorder2(&rows, 0.3, 1.2, -1.0).unwrap();
    assert_eq!(y.shape(), &[2, 40]);
    #[rustfmt::skip]
    let want = [-0.01935175230414017, 0.3611348360055317, 0.7657503970980112, 1.0960584370797197,
        6.28737439124061, 5.799430797611123, 5.3945473547438185, 5.2079702312046745];
    close("rows", &block(&y, 2, 4), &want, 1e-12);
    // float32 stays float32
    let y32 = signal::symiirorder2(&arr(&d, &s).astype(DType::F32).unwrap(), 0.5, 0.4, -1.0).unwrap();
    assert_eq!(y32.dtype(), DType::F32);
    close("f32", &f64s(&y32)[..2], &[0.36276403350432584, 0.5122855767952991], 1e-5);
}

#[test]
fn symiirorder2_errors() {
    let d = cpu();
    let s: Vec<f64> = (0..40).map(|i| i as f64).collect();
    let x = arr(&d, &s);
    // SciPy: ValueError('r must be less than 1.0')
    let e = signal::symiirorder2(&x, 1.0, 0.3, -1.0).unwrap_err();
    assert!(matches!(e, Error::Value { .. }) && e.to_string().contains("r must be less than 1.0"), "{e}");
    // SciPy: ValueError('Input must be 1D or 2D')
    let e = signal::symiirorder2(&x.reshape(&[2, 2, 10]).unwrap(), 0.5, 0.3, -1.0).unwrap_err();
    assert!(e.to_string().contains("Input must be 1D or 2D"), "{e}");
    // SciPy: ValueError('Sum to find symmetric boundary conditions did not converge.')
    let e = signal::symiirorder2(&arr(&d, &s[..3]), 0.9, 0.3, -1.0).unwrap_err();
    assert!(e.to_string().contains("did not converge"), "{e}");
    let e = signal::symiirorder2(&x.reshape(&[2, 20]).unwrap(), 0.5, 0.3, -1.0).unwrap_err();
    assert!(e.to_string().contains("did not converge"), "{e}");
    // SciPy: TypeError for complex input
    let e = signal::symiirorder2(&x.astype(DType::C128).unwrap(), 0.5, 0.3, -1.0).unwrap_err();
    assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
    // symiirorder1 takes 2-d rows too (SciPy 1.17), and refuses 3-d input
    let y = signal::symiirorder1(&x.reshape(&[2, 20]).unwrap(), 0.5, 0.2, -1.0).unwrap();
    assert_eq!(y.shape(), &[2, 20]);
    let row1 = signal::symiirorder1(&arr(&d, &s[20..]), 0.5, 0.2, -1.0).unwrap();
    close("symiirorder1 rows", &f64s(&y)[20..], &f64s(&row1), 1e-14);
    assert!(signal::symiirorder1(&x.reshape(&[2, 2, 10]).unwrap(), 0.5, 0.3, -1.0).is_err());
}

#[test]
fn two_d_splines_match_scipy() {
    let d = cpu();
    // im = np.add.outer(sin(0.5 i), cos(0.4 j)) + 0.05 j, 12 × 14
    let im = grid(&d, 12, 14, |i, j| (0.5 * i).sin() + (0.4 * j).cos() + 0.05 * j);
    // SciPy: cspline2d(im)[:3, :4] and its sum
    let c = signal::cspline2d(&im, 0.0, -1.0).unwrap();
    #[rustfmt::skip]
    let want = [0.8937005246980763, 0.8977489933665583, 0.7079211568709178, 0.41705852198729787,
        1.5274485018683126, 1.5314971218483464, 1.341669200031266, 1.0508065069377643,
        1.8690095315559039, 1.8730582323109506, 1.683230300848403, 1.39236763206249];
    close("cspline2d", &block(&c, 3, 4), &want, 1e-12);
    close("cspline2d sum", &[f64s(&c).iter().sum::<f64>()], &[40.309597980202504], 1e-12);
    // SciPy: qspline2d(im)[:3, :4]
    let q = signal::qspline2d(&im, 0.0, -1.0).unwrap();
    #[rustfmt::skip]
    let want = [0.9285897539546306, 0.9204567685205773, 0.7377433296462198, 0.44732245415748073,
        1.5080043629155155, 1.4998712733929078, 1.3171578859222786, 1.0267370602410357,
        1.8669213156406421, 1.8587881604684924, 1.6760747785061405, 1.385653941821026];
    close("qspline2d", &block(&q, 3, 4), &want, 1e-12);
    // smoothing (lamb > 1/144: the second-order pair). im2 is 30 × 34.
    let im2 = grid(&d, 30, 34, |i, j| (0.5 * i).sin() + (0.4 * j).cos());
    // SciPy: cspline2d(im2, 0.05)[:2, :4]
    let c = signal::cspline2d(&im2, 0.05, -1.0).unwrap();
    #[rustfmt::skip]
    let want = [0.9609128296918, 0.8853021458328664, 0.6595596387590481, 0.31648009111000663,
        1.4897760850284252, 1.4141654004015856, 1.1884228650660218, 0.8453433171022229];
    close("cspline2d smoothing", &block(&c, 2, 4), &want, 1e-12);
    // SciPy: spline_filter(im2, 0.05)[:3, :4]
    let f = signal::spline_filter(&im2, 0.05).unwrap();
    #[rustfmt::skip]
    let want = [1.0364549866942798, 0.9484241068252672, 0.7281473805582757, 0.39482781935650796,
        1.4562218972199563, 1.3681910139816842, 1.1479142745579671, 0.8145947126710362,
        1.8400397464883882, 1.7520088625802135, 1.531732117159013, 1.1984125637738792];
    close("spline_filter", &block(&f, 3, 4), &want, 1e-12);
    // float32 stays float32. SciPy: spline_filter(im2.astype(float32), 0.05)[:2, :4]
    let f = signal::spline_filter(&im2.astype(DType::F32).unwrap(), 0.05).unwrap();
    assert_eq!(f.dtype(), DType::F32);
    #[rustfmt::skip]
    let want = [1.0366442, 0.9486377, 0.7283409, 0.3949726, 1.4564505, 1.368435, 1.1481038, 0.8147336];
    close("spline_filter f32", &block(&f, 2, 4), &want, 1e-6);
    // SciPy: sepfir2d(im[:4, :5], [1, 2, 3, -1, 0.5], [0.25, 0.5, 0.25])
    let small = grid(&d, 4, 5, |i, j| (0.5 * i).sin() + (0.4 * j).cos() + 0.05 * j);
    let s = signal::sepfir2d(&small, &arr(&d, &[1., 2., 3., -1., 0.5]), &arr(&d, &[0.25, 0.5, 0.25])).unwrap();
    #[rustfmt::skip]
    let want = [5.883569309935157, 5.17816427076044, 3.773785236271449, 2.3975085997612107, 1.9115658587479176,
        7.6998020296267935, 6.994396990452075, 5.590017955963086, 4.213741319452847, 3.7277985784395544,
        9.569170124737447, 8.86376508556273, 7.459386051073739, 6.0831094145635, 5.597166673550208,
        10.49604861820696, 9.790643579032242, 8.386264544543252, 7.009987908033013, 6.524045167019722];
    close("sepfir2d", &f64s(&s), &want, 1e-12);
}

#[test]
fn two_d_spline_errors() {
    let d = cpu();
    let im = grid(&d, 12, 14, |i, j| i + j);
    let small = grid(&d, 3, 4, |i, j| i + j);
    // SciPy: ValueError('lambda must be negative or zero')
    let e = signal::qspline2d(&im, 1.0, -1.0).unwrap_err();
    assert!(e.to_string().contains("lambda must be negative or zero"), "{e}");
    // SciPy: the start sums of a 3 × 4 image do not converge at precision 1e-6
    let e = signal::cspline2d(&small, 0.0, -1.0).unwrap_err();
    assert!(e.to_string().contains("did not converge"), "{e}");
    assert!(signal::cspline2d(&arr(&d, &X), 0.0, -1.0).is_err()); // 1-d
                                                                  // SciPy: TypeError('Invalid data type for Iin') for integers
    let e = signal::spline_filter(&im.astype(DType::I64).unwrap(), 5.0).unwrap_err();
    assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
    // SciPy: ValueError('hrow and hcol must be odd length')
    let e = signal::sepfir2d(&im, &arr(&d, &[1., 2.]), &arr(&d, &[1.])).unwrap_err();
    assert!(e.to_string().contains("odd length"), "{e}");
    let h3 = arr(&d, &[1., 2., 1.]);
    assert!(signal::sepfir2d(&arr(&d, &X), &h3, &h3).is_err());
    assert!(signal::sepfir2d(&im, &h3.astype(DType::C128).unwrap(), &h3).is_err());
    // integers give float64
    assert_eq!(signal::sepfir2d(&im.astype(DType::I32).unwrap(), &h3, &h3).unwrap().dtype(), DType::F64);
}

const GUST_B: [f64; 4] = [0.03168934384971104, 0.09506803154913313, 0.09506803154913313, 0.03168934384971104];
const GUST_A: [f64; 4] = [1., -1.459029062228061, 0.9103690002900687, -0.19782518726431944];

#[test]
fn filtfilt_gustafsson_matches_scipy() {
    let d = cpu();
    let (b, a) = (arr(&d, &GUST_B), arr(&d, &GUST_A)); // butter(3, 0.25)
    let xs: Vec<f64> = (0..30).map(|i| (0.7 * i as f64).cos() + 0.05 * i as f64).collect();
    let x = arr(&d, &xs);
    let gust = |irlen| FiltfiltMethod::Gust { irlen };
    // SciPy: filtfilt(b, a, x, method='gust')
    let y = f64s(&signal::filtfilt(&b, &a, &x, -1, Some(PadType::Odd), None, gust(None)).unwrap());
    close(
        "gust head",
        &y[..4],
        &[0.638743934610098, 0.4057202247061662, 0.06677069728223514, -0.26917811662524516],
        1e-12,
    );
    close("gust tail", &y[27..], &[2.0331018587397907, 2.1633337846658, 2.1773063809604647], 1e-12);
    // SciPy: filtfilt(b, a, x, method='gust', irlen=8)
    let y = f64s(&signal::filtfilt(&b, &a, &x, -1, None, None, gust(Some(8))).unwrap());
    close("irlen head", &y[..3], &[0.6380012420348784, 0.40478939493480565, 0.06586413054292486], 1e-12);
    close("irlen middle", &y[12..14], &[0.24721379094833523, 0.01073743121141344], 1e-12);
    close("irlen tail", &y[28..], &[2.1726098828902325, 2.182549501268071], 1e-12);
    // along axis 0 of a 2-d array. SciPy: filtfilt(b, a, np.stack([x, 2 x[::-1]], 1), axis=0, method='gust')[:3]
    let cols: Vec<f64> = (0..30).flat_map(|i| [xs[i], 2.0 * xs[29 - i]]).collect();
    let x2 = Array::from_slice_on(&d, &cols, &[30, 2]).unwrap();
    let y = signal::filtfilt(&b, &a, &x2, 0, Some(PadType::Odd), None, gust(None)).unwrap();
    assert_eq!(y.shape(), &[30, 2]);
    #[rustfmt::skip]
    let want = [0.638743934610098, 4.354612761920926, 0.40572022470616614, 4.326667569331596,
        0.06677069728223509, 4.066203717479578];
    close("axis 0", &f64s(&y)[..6], &want, 1e-12);
    // FIR and pure gain. SciPy: filtfilt([0.5, 0.3, 0.2], [1], x[:8], method='gust'), filtfilt([2], [4], x[:4], ...)
    let y =
        signal::filtfilt(&arr(&d, &[0.5, 0.3, 0.2]), &arr(&d, &[1.]), &arr(&d, &xs[..8]), -1, None, None, gust(None))
            .unwrap();
    #[rustfmt::skip]
    let want = [0.8681165298464912, 0.6334422082085499, 0.22496445759899839, -0.22117656127994406,
        -0.4927474435951732, -0.43850837871019605, -0.1534293436169319, 0.18310158908851626];
    close("fir", &f64s(&y), &want, 1e-12);
    let y = signal::filtfilt(&arr(&d, &[2.]), &arr(&d, &[4.]), &arr(&d, &xs[..4]), -1, None, None, gust(None)).unwrap();
    close("gain", &f64s(&y), &[0.25, 0.20371054682112213, 0.06749178572506026, -0.08871152614996428], 1e-14);
    // float32 stays float32 (float64 coefficients would promote, as in SciPy)
    let f32s = |v: &Array| v.astype(DType::F32).unwrap();
    let y = signal::filtfilt(&f32s(&b), &f32s(&a), &f32s(&x), -1, None, None, gust(None)).unwrap();
    assert_eq!(y.dtype(), DType::F32);
    close("f32", &f64s(&y)[..2], &[0.638743934610098, 0.4057202247061662], 1e-5);
    assert_eq!("gust".parse::<FiltfiltMethod>().unwrap(), gust(None));
    // bad coefficients are SciPy's errors in this method too
    assert!(signal::filtfilt(&b, &arr(&d, &[0., 1.]), &x, -1, None, None, gust(None)).is_err());
}
