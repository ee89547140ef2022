//! Tests of `xp_array::ndimage`'s spline interpolation (see the module): values against
//! SciPy 1.17's answers (pasted, computed with `scipy.ndimage`), dtypes, shapes and errors.

use std::sync::Arc;

use xp_array::ndimage::{self, Mode};
use xp_array::*;
use xp_backend_api::{BackendHandle, DynDevice, Error};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// The 3×4 float64 image of every test.
fn image(d: &Arc<dyn DynDevice>) -> Array {
    let v = [1.0, 2.0, 4.0, 7.0, 0.0, -1.0, 3.0, 5.0, 2.0, 2.0, -3.0, 1.0];
    Array::from_slice_on(d, &v, &[3, 4]).unwrap()
}

/// Five points of the image: row 0 the first axis' coordinates, row 1 the second's.
fn points(d: &Arc<dyn DynDevice>) -> Array {
    let v = [-0.6, 0.3, 1.7, 2.2, 3.4, 0.5, -1.2, 2.9, 3.6, 1.1];
    Array::from_slice_on(d, &v, &[2, 5]).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn close(what: &str, got: &Array, want: &[f64], tol: f64) {
    let g = f64s(got);
    assert_eq!(g.len(), want.len(), "{what}: {g:?} vs {want:?}");
    for (i, (a, b)) in g.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{what}[{i}]: got {a}, want {b}");
    }
}

fn is_value(r: Result<Array>, op: &str) {
    match r {
        Err(Error::Value { op: o, .. }) => assert_eq!(o, op),
        other => panic!("{op}: expected a Value error, got {other:?}"),
    }
}

#[test]
fn spline_filter_matches_scipy() {
    let d = cpu();
    let a = image(&d);
    // SciPy: nd.spline_filter(a, 3)
    let sf = ndimage::spline_filter(&a, 3, None, Mode::Mirror).unwrap();
    assert_eq!(sf.dtype(), DType::F64);
    assert_eq!(sf.shape(), &[3, 4]);
    let want = [-0.4, 7.55, 0.2, 11.15, 2.2, -8.9, 9.4, 4.3, 0.0, 11.25, -15.0, 5.25];
    close("spline_filter mirror", &sf, &want, 1e-12);
    // SciPy: nd.spline_filter1d(a, 2, axis=0, mode='reflect') (short lines: SciPy's causal sum)
    let s1 = ndimage::spline_filter1d(&a, 2, 0, None, Mode::Reflect).unwrap();
    let want = [
        1.2285710642127137,
        2.6000057931195424,
        3.9999820741033,
        7.228540459000784,
        -0.5999999377924146,
        -2.2000009890691903,
        4.0000030605189485,
        5.400005287487671,
        2.3714285625417735,
        2.600000141295599,
        -4.000000437216992,
        0.3714278160731898,
    ];
    close("spline_filter1d reflect", &s1, &want, 1e-12);
    // SciPy: nd.spline_filter(a, 5, mode='grid-wrap')
    let s5 = ndimage::spline_filter(&a, 5, None, Mode::GridWrap).unwrap();
    let want = [
        -12.610576923076923,
        10.250000000000004,
        3.3990384615384657,
        26.115384615384606,
        -0.6875000000000024,
        -15.326923076923075,
        15.32211538461538,
        6.307692307692311,
        1.2355769230769236,
        18.32692307692308,
        -28.908653846153847,
        -0.4230769230769244,
    ];
    close("spline_filter grid-wrap", &s5, &want, 1e-12);
    // float32 output stays float32; orders 0 and 1 of spline_filter1d copy.
    let s32 = ndimage::spline_filter(&a, 3, Some(DType::F32), Mode::Mirror).unwrap();
    assert_eq!(s32.dtype(), DType::F32);
    let c = ndimage::spline_filter1d(&a, 1, -1, None, Mode::Mirror).unwrap();
    close("spline_filter1d order 1", &c, &f64s(&a), 0.0);
}

#[test]
fn map_coordinates_every_mode_matches_scipy() {
    let d = cpu();
    let (a, c) = (image(&d), points(&d));
    // SciPy: nd.map_coordinates(a, c, order=3, mode=m, cval=1.5)
    let cases: [(Mode, [f64; 5]); 7] = [
        (Mode::Constant, [1.5, 1.5, 1.4874882000000016, 1.5, 1.5]),
        (
            Mode::GridConstant,
            [1.7399736719287333, 1.5807886392282862, 1.482209083601684, 1.6559601427612494, 1.4033118623657816],
        ),
        (
            Mode::Nearest,
            [1.6489618288479382, 0.5950434886495695, 1.6514984200906884, 1.1921125581771608, 1.4634159723501352],
        ),
        (
            Mode::Mirror,
            [-0.07899999999999986, 1.7252779999999999, 1.4874882000000016, -1.1231232000000004, 0.27947200000000033],
        ),
        (
            Mode::Reflect,
            [2.0036764587020306, 0.5113759896171164, 1.707030645760927, 1.7010978318056889, 0.3419119831779561],
        ),
        (
            Mode::Wrap,
            [0.5741999999999995, 3.402032000000002, 1.4874882000000016, 1.1841919999999992, -0.05473920000000031],
        ),
        (
            Mode::GridWrap,
            [2.6010000000000018, 7.889824000000004, 0.8669527500000007, 2.209632000000001, 0.8948880000000013],
        ),
    ];
    for (mode, want) in cases {
        let y = ndimage::map_coordinates(&a, &c, 3, mode, 1.5, true).unwrap();
        assert_eq!(y.shape(), &[5]);
        close(&format!("map_coordinates {mode:?}"), &y, &want, 1e-12);
    }
    // SciPy: order=1, mode='nearest'; order=5, mode='mirror'
    let y = ndimage::map_coordinates(&a, &c, 1, Mode::Nearest, 0.0, true).unwrap();
    close("order 1", &y, &[1.5, 0.7, 1.86, 1.0, 1.5], 1e-12);
    let y = ndimage::map_coordinates(&a, &c, 5, Mode::Mirror, 0.0, true).unwrap();
    let want = [-0.07781251373625944, 1.7188717764472525, 1.4577353612929902, -1.1216740975120862, 0.24802516515603998];
    close("order 5", &y, &want, 1e-12);
}

#[test]
fn map_coordinates_keeps_the_input_dtype() {
    let d = cpu();
    let c = points(&d);
    let a32 = image(&d).astype(DType::F32).unwrap();
    let y = ndimage::map_coordinates(&a32, &c, 3, Mode::Reflect, 0.0, true).unwrap();
    assert_eq!(y.dtype(), DType::F32);
    // SciPy (float32 input, order 3, reflect)
    let want = [2.003676414489746, 0.5113759636878967, 1.7070306539535522, 1.701097846031189, 0.3419119715690613];
    close("float32", &y, &want, 1e-7);
    // uint8: rounded half away from zero and clipped to 0..255, as SciPy.
    let u: Vec<u8> = vec![10, 250, 30, 0, 40, 0, 250, 255, 3, 9, 100, 7];
    let au = Array::from_slice_on(&d, &u, &[3, 4]).unwrap();
    let y = ndimage::map_coordinates(&au, &c, 3, Mode::Mirror, 0.0, true).unwrap();
    assert_eq!(y.dtype(), DType::U8);
    assert_eq!(y.to_vec::<u8>().unwrap(), vec![60, 208, 63, 88, 123]);
}

#[test]
fn zoom_shift_affine_and_rotate_match_scipy() {
    let d = cpu();
    let a = image(&d);
    // SciPy: nd.zoom(a, 1.5, order=1)
    let z = ndimage::zoom(&a, &[1.5], 1, Mode::Constant, 0.0, true, false).unwrap();
    assert_eq!(z.shape(), &[4, 6]);
    let want = [
        1.0,
        1.6,
        2.4,
        3.6,
        5.2,
        7.0,
        1.0 / 3.0,
        0.13333333333333347,
        2.0 / 3.0,
        2.666666666666666,
        4.266666666666667,
        5.666666666666666,
        0.6666666666666665,
        0.2666666666666665,
        0.2,
        0.8,
        2.0666666666666664,
        3.666666666666667,
        2.0,
        2.0,
        1.0,
        -2.0,
        -1.4,
        1.0,
    ];
    close("zoom", &z, &want, 1e-12);
    // SciPy: nd.zoom(a, [0.7, 1.3], order=3, mode='grid-constant', grid_mode=True)
    let z = ndimage::zoom(&a, &[0.7, 1.3], 3, Mode::GridConstant, 0.0, true, true).unwrap();
    assert_eq!(z.shape(), &[2, 5]);
    let want = [
        0.6846453733066367,
        1.0474241235796422,
        2.495962531538801,
        6.123691502331411,
        7.0103894550621675,
        1.5223543961923185,
        2.0390931500748923,
        -0.8899233685038224,
        -1.2932033767297497,
        1.873309066378898,
    ];
    close("zoom grid", &z, &want, 1e-12);
    // SciPy: nd.shift(a, [0.4, -1.3], order=3, mode='nearest')
    let s = ndimage::shift(&a, &[0.4, -1.3], 3, Mode::Nearest, 0.0, true).unwrap();
    let want = [
        2.743779714353813,
        4.910713457835931,
        7.39555035485259,
        7.020648780179474,
        0.7800232985822588,
        5.057840403052292,
        6.300850666103798,
        6.166969796679266,
        -0.03876815906182292,
        -0.07139521711528099,
        2.7208308193920665,
        2.26214482553436,
    ];
    close("shift", &s, &want, 1e-12);
    // SciPy: nd.affine_transform(a, m, offset=[0.3, -0.4], order=3, mode='reflect'), and the
    // same as one homogeneous matrix.
    let want = [
        0.6353001309246512,
        -0.20231355597557707,
        2.9407191861137743,
        5.272670458788627,
        0.548907551499041,
        0.03938877149958839,
        -0.6555302189223042,
        0.8345309328618418,
        1.7953022710168227,
        3.3347192471550273,
        -1.9306470576028893,
        -1.3677407102588643,
    ];
    let m = Array::from_slice_on(&d, &[0.9, 0.2, -0.1, 1.1], &[2, 2]).unwrap();
    let t = ndimage::affine_transform(&a, &m, &[0.3, -0.4], None, 3, Mode::Reflect, 0.0, true).unwrap();
    close("affine", &t, &want, 1e-12);
    let h = Array::from_slice_on(&d, &[0.9, 0.2, 0.3, -0.1, 1.1, -0.4, 0.0, 0.0, 1.0], &[3, 3]).unwrap();
    let t = ndimage::affine_transform(&a, &h, &[], None, 3, Mode::Reflect, 0.0, true).unwrap();
    close("affine homogeneous", &t, &want, 1e-12);
    // SciPy: nd.affine_transform(a, [1.2, 0.7], offset=0.5, order=2, mode='wrap', output_shape=(2, 3))
    let diag = Array::from_slice_on(&d, &[1.2, 0.7], &[2]).unwrap();
    let t = ndimage::affine_transform(&a, &diag, &[0.5], Some(&[2, 3]), 2, Mode::Wrap, 0.0, true).unwrap();
    assert_eq!(t.shape(), &[2, 3]);
    let want = [
        0.22976190476190483,
        0.9687619047619048,
        3.7067142857142854,
        1.8918571428571425,
        0.7969371428571429,
        -2.1128514285714277,
    ];
    close("affine diagonal", &t, &want, 1e-12);
    // SciPy: nd.rotate(a, 30, order=1); nd.rotate(a, 90, order=3)
    let r = ndimage::rotate(&a, 30.0, (1, 0), true, 1, Mode::Constant, 0.0, true).unwrap();
    assert_eq!(r.shape(), &[5, 5]);
    let mut want = [0.0; 25];
    for (k, v) in [
        (7, 3.8660254037844384),
        (8, 5.4150635094610955),
        (11, 0.49999999999999944),
        (12, 1.0),
        (13, 1.0980762113533151),
        (16, 0.6471143170299742),
        (17, 1.5980762113533165),
    ] {
        want[k] = v;
    }
    close("rotate 30", &r, &want, 1e-12);
    let r = ndimage::rotate(&a, 90.0, (1, 0), true, 3, Mode::Constant, 0.0, true).unwrap();
    assert_eq!(r.shape(), &[4, 3]);
    close("rotate 90", &r, &[7.0, 5.0, 1.0, 4.0, 3.0, -3.0, 2.0, -1.0, 2.0, 1.0, 0.0, 2.0], 1e-12);
}

#[test]
fn rotate_of_a_volume_rotates_each_plane() {
    let d = cpu();
    let v: Vec<f64> = (0..24).map(|k| (k as f64).powf(1.5)).collect();
    let b = Array::from_slice_on(&d, &v, &[2, 3, 4]).unwrap();
    // SciPy: nd.rotate(b, 20, axes=(2, 0), order=3, reshape=True)
    let r = ndimage::rotate(&b, 20.0, (2, 0), true, 3, Mode::Constant, 0.0, true).unwrap();
    assert_eq!(r.shape(), &[3, 3, 4]);
    let mut want = [0.0; 36];
    for (k, x) in [
        (13, 12.708224296384788),
        (14, 39.64964028434663),
        (17, 26.255636442485944),
        (18, 60.529858805776065),
        (21, 44.729216793304275),
        (22, 84.81583667406859),
    ] {
        want[k] = x;
    }
    close("rotate 3-d", &r, &want, 1e-12);
}

#[test]
fn bad_input_is_a_value_error_naming_the_function() {
    let d = cpu();
    let (a, c) = (image(&d), points(&d));
    is_value(ndimage::map_coordinates(&a, &c, 6, Mode::Constant, 0.0, true), "map_coordinates");
    is_value(ndimage::map_coordinates(&a, &c, -1, Mode::Constant, 0.0, true), "map_coordinates");
    let c3 = Array::from_slice_on(&d, &[0.0; 6], &[3, 2]).unwrap();
    is_value(ndimage::map_coordinates(&a, &c3, 1, Mode::Constant, 0.0, true), "map_coordinates");
    is_value(ndimage::zoom(&a, &[2.0], 6, Mode::Constant, 0.0, true, false), "zoom");
    is_value(ndimage::zoom(&a, &[2.0, 1.0, 1.0], 1, Mode::Constant, 0.0, true, false), "zoom");
    is_value(ndimage::shift(&a, &[1.0], 7, Mode::Constant, 0.0, true), "shift");
    is_value(ndimage::spline_filter(&a, 1, None, Mode::Mirror), "spline_filter");
    is_value(ndimage::spline_filter1d(&a, 6, 0, None, Mode::Mirror), "spline_filter1d");
    is_value(ndimage::rotate(&a, 10.0, (0, 2), true, 1, Mode::Constant, 0.0, true), "rotate");
    let v = Array::from_slice_on(&d, &[1.0, 2.0, 3.0], &[3]).unwrap();
    is_value(ndimage::rotate(&v, 10.0, (1, 0), true, 1, Mode::Constant, 0.0, true), "rotate");
    let m = Array::from_slice_on(&d, &[1.0; 9], &[3, 3]).unwrap();
    is_value(ndimage::affine_transform(&a, &m, &[], None, 1, Mode::Constant, 0.0, true), "affine_transform");
    let m = Array::from_slice_on(&d, &[1.0; 6], &[3, 2]).unwrap();
    is_value(ndimage::affine_transform(&a, &m, &[], None, 1, Mode::Constant, 0.0, true), "affine_transform");
    assert!(matches!("foo".parse::<Mode>(), Err(Error::Value { .. })));
}

#[test]
fn complex_images_interpolate_each_part() {
    let d = cpu();
    let a = image(&d);
    let flipped = [2.0, 2.0, -3.0, 1.0, 0.0, -1.0, 3.0, 5.0, 1.0, 2.0, 4.0, 7.0];
    let b = Array::from_slice_on(&d, &flipped, &[3, 4]).unwrap();
    let z = a.astype(DType::C128).unwrap().add(&b.mul_scalar(Scalar::Complex(0.0, 1.0)).unwrap()).unwrap();
    // SciPy: nd.map_coordinates(a + 1j * a[::-1], c, order=3, mode='nearest')
    let y = ndimage::map_coordinates(&z, &points(&d), 3, Mode::Nearest, 0.0, true).unwrap();
    assert_eq!(y.dtype(), DType::C128);
    let re = [1.6489618288479382, 0.5950434886495695, 1.6514984200906884, 1.1921125581771608, 1.4634159723501352];
    let im = [2.956097379436323, 1.4081906377162192, 6.588307835525352, 7.3180217732315755, 2.038877860114759];
    close("complex real part", &y.real(), &re, 1e-12);
    close("complex imaginary part", &y.imag().unwrap(), &im, 1e-12);
    // spline_filter of complex64 answers complex128, as SciPy promotes float64 to it.
    let s = ndimage::spline_filter(&z.astype(DType::C64).unwrap(), 3, None, Mode::Mirror).unwrap();
    assert_eq!(s.dtype(), DType::C128);
}
