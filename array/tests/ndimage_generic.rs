//! Tests of `xp::ndimage`'s `generic_filter` and `generic_filter1d` (user functions compiled at
//! run time) on the CPU backend: values against SciPy 1.17's with Python callables of the same
//! arithmetic (computed with python3 and pasted below), every boundary mode, footprints,
//! origins, output dtypes, extra arguments, the large-footprint path, and the errors.

use std::sync::Arc;

use xp_array::ndimage::{self, FilterFunction, FilterFunction1d, Mode};
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

fn close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol * w.abs().max(1.0), "{what}[{k}]: got {g}, want {w}\n got {got:?}\nwant {want:?}");
    }
}

/// `np.arange(20.) ** 1.5 % 7` as 4 x 5.
fn image(d: &Arc<dyn xp_backend_api::DynDevice>) -> Array {
    let x: Vec<f64> = (0..20).map(|k| (k as f64).powf(1.5) % 7.0).collect();
    Array::from_slice_on(d, &x, &[4, 5]).unwrap()
}

const MODES: [(Mode, &str); 5] = [
    (Mode::Reflect, "reflect"),
    (Mode::Constant, "constant"),
    (Mode::Nearest, "nearest"),
    (Mode::Mirror, "mirror"),
    (Mode::Wrap, "wrap"),
];

const RANGE: &str = "double lo = buffer[0], hi = buffer[0];
for (long long k = 1; k < filter_size; ++k) { lo = fmin(lo, buffer[k]); hi = fmax(hi, buffer[k]); }
*return_value = hi - lo;";

#[test]
fn generic_filter_range_in_every_mode() {
    let d = cpu();
    let x = image(&d);
    let f = FilterFunction::new(RANGE).unwrap();
    let want = [GF_RANGE_REFLECT, GF_RANGE_CONSTANT, GF_RANGE_NEAREST, GF_RANGE_MIRROR, GF_RANGE_WRAP];
    for ((mode, name), w) in MODES.iter().zip(want) {
        let y = ndimage::generic_filter(&x, &f, Some(&[3]), None, None, *mode, 1.5, &[], &[]).unwrap();
        assert_eq!(y.dtype(), DType::F64);
        assert_eq!(y.shape(), &[4, 5]);
        close(name, &f64s(&y), w, 1e-12);
    }
}

#[test]
fn generic_filter_footprint_origin_output_and_extra_arguments() {
    let d = cpu();
    let x = image(&d);
    let fp = Array::from_slice_on(&d, &[0i32, 1, 0, 1, 1, 1, 0, 1, 0], &[3, 3]).unwrap();
    // The taps numbered in the footprint's C order, as SciPy passes them.
    let f = FilterFunction::new(
        "double s = 0.0;
         for (long long k = 0; k < filter_size; ++k) s += buffer[k] * (k + 1);
         *return_value = s * extra_arguments[0] + extra_arguments[1]",
    )
    .unwrap();
    let y =
        ndimage::generic_filter(&x, &f, None, Some(&fp), Some(DType::F32), Mode::Mirror, 0.0, &[0, -1], &[0.5, -2.0])
            .unwrap();
    assert_eq!(y.dtype(), DType::F32);
    close("footprint", &f64s(&y), GF_FP_ORIGIN, 1e-6);
}

#[test]
fn generic_filter_integer_image_with_cval_and_integer_output() {
    let d = cpu();
    let u: Vec<u8> = U8.iter().map(|&v| v as u8).collect();
    let x = Array::from_slice_on(&d, &u, &[4, 5]).unwrap();
    let f = FilterFunction::new(
        "double s = 0.0; for (long long k = 0; k < filter_size; ++k) s += buffer[k]; *return_value = s * 0.5 - 300.0;",
    )
    .unwrap();
    // cval reaches the function as given (300.7, not cast to uint8); the result truncates.
    let y = ndimage::generic_filter(&x, &f, Some(&[2, 3]), None, Some(DType::I32), Mode::Constant, 300.7, &[], &[])
        .unwrap();
    assert_eq!(y.dtype(), DType::I32);
    assert_eq!(f64s(&y), GF_U8_I32);
    // The default output keeps the image's dtype; bool is `value != 0`.
    let same = ndimage::generic_filter(&x, &f, Some(&[2, 3]), None, None, Mode::Constant, 300.7, &[], &[]).unwrap();
    assert_eq!(same.dtype(), DType::U8);
    let b = ndimage::generic_filter(&x, &f, Some(&[2, 3]), None, Some(DType::Bool), Mode::Constant, 300.7, &[], &[])
        .unwrap();
    let want: Vec<bool> = GF_U8_I32.iter().map(|&v| v != 0.0).collect();
    assert_eq!(b.to_vec::<bool>().unwrap(), want);
}

#[test]
fn generic_filter_three_dimensions_wrap() {
    let d = cpu();
    let v: Vec<f64> = (0..60).map(|k| (k as f64 * 0.7) % 5.0).collect();
    let x = Array::from_slice_on(&d, &v, &[3, 4, 5]).unwrap();
    let f = FilterFunction::new(
        "double m = 0.0; for (long long k = 0; k < filter_size; ++k) m += buffer[k];
         *return_value = buffer[0] - 2.0 * buffer[filter_size - 1] + m / filter_size;",
    )
    .unwrap();
    let y = ndimage::generic_filter(&x, &f, Some(&[2, 3, 2]), None, None, Mode::Wrap, 0.0, &[], &[]).unwrap();
    close("3-d", &f64s(&y), GF_3D_WRAP, 1e-12);
}

#[test]
fn generic_filter_large_footprint_uses_scratch() {
    // 33 x 33 = 1,089 taps: past the per-thread buffer. The range against maximum - minimum.
    let d = cpu();
    let v: Vec<f32> = (0..40 * 44).map(|k| ((k * 7919) % 1000) as f32 * 0.01).collect();
    let x = Array::from_slice_on(&d, &v, &[40, 44]).unwrap();
    let f = FilterFunction::new(RANGE).unwrap();
    for mode in [Mode::Reflect, Mode::Constant] {
        let y = ndimage::generic_filter(&x, &f, Some(&[33]), None, None, mode, 2.5, &[1, -2], &[]).unwrap();
        let hi = ndimage::maximum_filter(&x, Some(&[33]), None, mode, 2.5, &[1, -2]).unwrap();
        let lo = ndimage::minimum_filter(&x, Some(&[33]), None, mode, 2.5, &[1, -2]).unwrap();
        let want: Vec<f64> = f64s(&hi).iter().zip(f64s(&lo)).map(|(h, l)| ((h - l) as f32) as f64).collect();
        close("large footprint", &f64s(&y), &want, 1e-6);
    }
}

const RUN: &str = "for (long long j = 0; j < output_length; ++j)
    output_line[j] = input_line[j] + 2.0 * input_line[j + 1] - input_line[j + 2] * input_line[j];";

#[test]
fn generic_filter1d_in_every_mode() {
    let d = cpu();
    let x = image(&d);
    let f = FilterFunction1d::new(RUN).unwrap();
    let want = [G1_AX1_REFLECT, G1_AX1_CONSTANT, G1_AX1_NEAREST, G1_AX1_MIRROR, G1_AX1_WRAP];
    for ((mode, name), w) in MODES.iter().zip(want) {
        let y = ndimage::generic_filter1d(&x, &f, 3, 1, None, *mode, -1.25, 0, &[]).unwrap();
        close(name, &f64s(&y), w, 1e-12);
    }
}

#[test]
fn generic_filter1d_axis_origin_extra_and_output() {
    let d = cpu();
    let x = image(&d);
    let f = FilterFunction1d::new(
        "for (long long j = 0; j < output_length; ++j)
             output_line[j] = (input_line[j] - input_line[j + 3]) * extra_arguments[0] + input_line[j + 1];",
    )
    .unwrap();
    let y = ndimage::generic_filter1d(&x, &f, 4, 0, None, Mode::Reflect, 0.0, 1, &[3.0]).unwrap();
    close("axis 0", &f64s(&y), G1_AX0_ORIGIN, 1e-12);
    let u: Vec<u8> = U8.iter().map(|&v| v as u8).collect();
    let xu = Array::from_slice_on(&d, &u, &[4, 5]).unwrap();
    let g = FilterFunction1d::new(
        "for (long long j = 0; j < output_length; ++j) output_line[j] = input_line[j] - input_line[j + 1] * 1.5;",
    )
    .unwrap();
    let y = ndimage::generic_filter1d(&xu, &g, 2, -1, Some(DType::I16), Mode::Nearest, 0.0, 0, &[]).unwrap();
    assert_eq!(y.dtype(), DType::I16);
    assert_eq!(f64s(&y), G1_U8_I16);
}

#[test]
fn generic_filter_errors() {
    let d = cpu();
    let x = image(&d);
    let f = FilterFunction::new(RANGE).unwrap();
    let g = FilterFunction1d::new(RUN).unwrap();
    let fp1 = Array::from_slice_on(&d, &[1i32, 1, 1], &[3]).unwrap();
    let e = ndimage::generic_filter(&x, &f, None, Some(&fp1), None, Mode::Reflect, 0.0, &[], &[]).unwrap_err();
    assert!(e.to_string().contains("generic_filter") && e.to_string().contains("footprint"), "{e}");
    let e = ndimage::generic_filter(&x, &f, None, None, None, Mode::Reflect, 0.0, &[], &[]).unwrap_err();
    assert!(e.to_string().contains("footprint"), "{e}");
    let e = ndimage::generic_filter(&x, &f, Some(&[3]), None, None, Mode::Reflect, 0.0, &[2], &[]).unwrap_err();
    assert!(e.to_string().contains("origin"), "{e}");
    let e = ndimage::generic_filter(&x, &f, Some(&[0]), None, None, Mode::Reflect, 0.0, &[], &[]).unwrap_err();
    assert!(e.to_string().contains("generic_filter"), "{e}");
    let e =
        ndimage::generic_filter(&x, &f, Some(&[3]), None, Some(DType::C64), Mode::Reflect, 0.0, &[], &[]).unwrap_err();
    assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
    let c = x.astype(DType::C128).unwrap();
    assert!(ndimage::generic_filter(&c, &f, Some(&[3]), None, None, Mode::Reflect, 0.0, &[], &[]).is_err());
    assert!("grid-nowhere".parse::<Mode>().unwrap_err().to_string().contains("grid-nowhere"));
    assert!(FilterFunction::new("  ").is_err());
    assert!(FilterFunction1d::new("").is_err());
    // A body that does not compile: a Compile error naming the user's code, with the log.
    let bad = FilterFunction::new("*return_value = no_such_name_here;").unwrap();
    let e = ndimage::generic_filter(&x, &bad, Some(&[3]), None, None, Mode::Reflect, 0.0, &[], &[]).unwrap_err();
    match &e {
        Error::Compile { kernel, log, .. } => {
            assert!(kernel.contains("generic_filter") && kernel.contains("no_such_name_here"), "{kernel}");
            assert!(log.contains("no_such_name_here"), "{log}");
        }
        other => panic!("expected a compile error, got {other}"),
    }
    let bad1 = FilterFunction1d::new("output_line[0] = undefined_thing(1);").unwrap();
    let e = ndimage::generic_filter1d(&x, &bad1, 3, 0, None, Mode::Reflect, 0.0, 0, &[]).unwrap_err();
    assert!(matches!(&e, Error::Compile { kernel, .. } if kernel.contains("generic_filter1d")), "{e}");
    let e = ndimage::generic_filter1d(&x, &g, 0, 0, None, Mode::Reflect, 0.0, 0, &[]).unwrap_err();
    assert!(e.to_string().contains("generic_filter1d"), "{e}");
    let e = ndimage::generic_filter1d(&x, &g, 3, 2, None, Mode::Reflect, 0.0, 0, &[]).unwrap_err();
    assert!(e.to_string().contains("generic_filter1d"), "{e}");
    let e = ndimage::generic_filter1d(&x, &g, 3, 0, None, Mode::Reflect, 0.0, 2, &[]).unwrap_err();
    assert!(e.to_string().contains("origin"), "{e}");
}

#[test]
fn generic_filter_empty_and_zero_d() {
    let d = cpu();
    let f = FilterFunction::new(RANGE).unwrap();
    let e = Array::from_slice_on(&d, &[0.0f64; 0], &[0, 3]).unwrap();
    let y = ndimage::generic_filter(&e, &f, Some(&[3]), None, None, Mode::Reflect, 0.0, &[], &[]).unwrap();
    assert_eq!(y.shape(), &[0, 3]);
    let s = Array::from_slice_on(&d, &[4.0f64, 1.0, 9.0], &[3]).unwrap();
    let y = ndimage::generic_filter(&s, &f, Some(&[1]), None, None, Mode::Reflect, 0.0, &[], &[]).unwrap();
    assert_eq!(f64s(&y), vec![0.0, 0.0, 0.0]);
}

#[test]
fn tiled_1d_passes_match_the_n_d_correlation() {
    // Images large enough for the CPU's tiled 1-d kernel (16 outputs per thread, inside the
    // image): correlate1d against correlate with the same weights as an N-d array, which takes
    // the per-element path, along both axes, in every mode, symmetric weights or not.
    let d = cpu();
    let (r, c) = (37usize, 70usize);
    let v: Vec<f64> = (0..r * c).map(|k| ((k * 7919 % 1013) as f64) * 0.37 - 90.0).collect();
    let x64 = Array::from_slice_on(&d, &v, &[r, c]).unwrap();
    let x32 = x64.astype(DType::F32).unwrap();
    let u: Vec<u8> = (0..r * c).map(|k| (k * 31 % 251) as u8).collect();
    let xu = Array::from_slice_on(&d, &u, &[r, c]).unwrap();
    let sym = [0.05, 0.2, 0.5, 0.2, 0.05];
    let asym = [0.3, -1.0, 0.25, 2.0];
    let ints = [1.0, 2.0, 1.0];
    for (x, tol) in [(&x64, 1e-12), (&x32, 1e-6), (&xu, 0.0)] {
        for w in [&sym[..], &asym[..], &ints[..]] {
            if x.dtype() == DType::U8 && w != &ints[..] {
                continue;
            }
            let w1 = Array::from_slice_on(&d, w, &[w.len()]).unwrap();
            for (mode, name) in MODES {
                for axis in 0..2 {
                    let shape = if axis == 0 { [w.len(), 1] } else { [1, w.len()] };
                    let wn = Array::from_slice_on(&d, w, &shape).unwrap();
                    let origin = if w.len() == 4 { -1 } else { 1 };
                    let o2 = if axis == 0 { [origin, 0] } else { [0, origin] };
                    let got = ndimage::correlate1d(x, &w1, axis as isize, mode, 3.5, origin).unwrap();
                    let want = ndimage::correlate(x, &wn, mode, 3.5, &o2).unwrap();
                    close(&format!("{:?} {name} axis {axis} {w:?}", x.dtype()), &f64s(&got), &f64s(&want), tol);
                }
            }
        }
    }
}

#[test]
fn label_of_a_random_image_matches_a_flood_fill() {
    // Interior pixels take the flat-offset path of the union-find; the reference numbers the
    // components by a flood fill from each unlabelled pixel in raster order (SciPy's order).
    // The larger image has the CPU's threads take runs of pixels.
    let d = cpu();
    for (r, c, conn) in [(41usize, 67usize, 1usize), (41, 67, 2), (400, 410, 1), (400, 410, 2)] {
        let fg: Vec<bool> = (0..r * c).map(|k| ((k * 2654435761usize) >> 7) % 100 < 55).collect();
        let x = Array::from_slice_on(&d, &fg, &[r, c]).unwrap();
        let st = ndimage::generate_binary_structure(2, conn).unwrap();
        let (l, n) = ndimage::label(&x, Some(&st)).unwrap();
        let got = l.to_vec::<i32>().unwrap();
        let mut want = vec![0i32; r * c];
        let mut next = 0;
        for start in 0..r * c {
            if !fg[start] || want[start] != 0 {
                continue;
            }
            next += 1;
            want[start] = next;
            let mut stack = vec![start];
            while let Some(p) = stack.pop() {
                let (pr, pc) = ((p / c) as isize, (p % c) as isize);
                for dr in -1isize..=1 {
                    for dc in -1isize..=1 {
                        let diag = dr != 0 && dc != 0;
                        if (dr == 0 && dc == 0) || (diag && conn == 1) {
                            continue;
                        }
                        let (qr, qc) = (pr + dr, pc + dc);
                        if qr < 0 || qc < 0 || qr >= r as isize || qc >= c as isize {
                            continue;
                        }
                        let q = qr as usize * c + qc as usize;
                        if fg[q] && want[q] == 0 {
                            want[q] = next;
                            stack.push(q);
                        }
                    }
                }
            }
        }
        assert_eq!(n, next as usize, "connectivity {conn}");
        assert_eq!(got, want, "connectivity {conn}");
    }
}

// SciPy's answers.
const GF_RANGE_REFLECT: &[f64] = &[
    4.180339887498949,
    4.520259177452132,
    4.499213966007563,
    5.0,
    5.0,
    4.180339887498949,
    6.569219381653056,
    5.872280924953987,
    5.569219381653056,
    5.0,
    3.48340143079988,
    6.4764237461528325,
    6.4764237461528325,
    6.4764237461528325,
    4.740115370177616,
    2.6227766016837926,
    6.4764237461528325,
    6.4764237461528325,
    6.4764237461528325,
    2.984328953311959,
];
const GF_RANGE_CONSTANT: &[f64] = &[
    4.180339887498949,
    4.520259177452132,
    4.499213966007563,
    5.0,
    5.0,
    4.180339887498949,
    6.569219381653056,
    5.872280924953987,
    5.569219381653056,
    5.0,
    3.48340143079988,
    6.4764237461528325,
    6.4764237461528325,
    6.4764237461528325,
    4.867532368147138,
    2.6227766016837926,
    6.4764237461528325,
    6.4764237461528325,
    6.4764237461528325,
    4.867532368147138,
];
const GF_RANGE_NEAREST: &[f64] = &[
    4.180339887498949,
    4.520259177452132,
    4.499213966007563,
    5.0,
    5.0,
    4.180339887498949,
    6.569219381653056,
    5.872280924953987,
    5.569219381653056,
    5.0,
    3.48340143079988,
    6.4764237461528325,
    6.4764237461528325,
    6.4764237461528325,
    4.740115370177616,
    2.6227766016837926,
    6.4764237461528325,
    6.4764237461528325,
    6.4764237461528325,
    2.984328953311959,
];
const GF_RANGE_MIRROR: &[f64] = &[
    4.180339887498949,
    4.520259177452132,
    4.499213966007563,
    5.0,
    5.0,
    4.180339887498949,
    6.569219381653056,
    5.872280924953987,
    5.569219381653056,
    5.0,
    3.48340143079988,
    6.4764237461528325,
    6.4764237461528325,
    6.4764237461528325,
    4.740115370177616,
    2.6227766016837926,
    6.4764237461528325,
    6.4764237461528325,
    6.4764237461528325,
    2.984328953311959,
];
const GF_RANGE_WRAP: &[f64] = &[
    6.0,
    4.520259177452132,
    6.274736732646915,
    6.274736732646915,
    6.367532368147138,
    6.0,
    6.569219381653056,
    5.872280924953987,
    5.569219381653056,
    6.0,
    5.303061543300931,
    6.4764237461528325,
    6.4764237461528325,
    6.4764237461528325,
    4.740115370177616,
    5.819079927272796,
    6.569219381653056,
    6.4764237461528325,
    6.4764237461528325,
    6.367532368147138,
];
const GF_FP_ORIGIN: &[f64] = &[
    7.247669696807861,
    27.195722579956055,
    15.50490665435791,
    33.08845901489258,
    17.33333396911621,
    16.473447799682617,
    26.56942367553711,
    31.739877700805664,
    20.840259552001953,
    30.260135650634766,
    19.833993911743164,
    21.57315444946289,
    35.37641525268555,
    35.23900604248047,
    38.56243133544922,
    6.228959560394287,
    31.58191680908203,
    33.89875411987305,
    35.98082733154297,
    28.172470092773438,
];
const U8: &[f64] = &[
    0.0, 37.0, 74.0, 111.0, 148.0, 185.0, 222.0, 3.0, 40.0, 77.0, 114.0, 151.0, 188.0, 225.0, 6.0, 43.0, 80.0, 117.0,
    154.0, 191.0,
];
const GF_U8_I32: &[f64] = &[
    319.0, 206.0, 262.0, 317.0, 430.0, 222.0, -39.0, -56.0, -73.0, 188.0, 336.0, 131.0, 114.0, -30.0, 174.0, 194.0,
    46.0, 157.0, 140.0, 288.0,
];
const GF_3D_WRAP: &[f64] = &[
    -3.550000000000004,
    -2.55,
    -2.5500000000000047,
    6.1999999999999975,
    -0.050000000000007594,
    -0.9666666666666703,
    -0.3833333333333333,
    -0.38333333333333286,
    -1.216666666666669,
    -7.0500000000000025,
    5.699999999999996,
    1.2833333333333297,
    1.2833333333333297,
    0.4499999999999975,
    -0.3833333333333395,
    4.866666666666663,
    0.44999999999999907,
    0.4499999999999944,
    -0.38333333333333597,
    -1.2166666666666743,
    0.5333333333333314,
    -3.4666666666666655,
    -4.299999999999999,
    -5.133333333333331,
    4.033333333333337,
    3.116666666666666,
    -0.8833333333333324,
    -1.299999999999998,
    -2.1333333333333298,
    -2.966666666666663,
    -5.216666666666668,
    5.366666666666667,
    4.950000000000001,
    4.533333333333336,
    -1.2999999999999967,
    -0.6333333333333351,
    -5.466666666666666,
    3.700000000000001,
    3.283333333333335,
    3.2833333333333368,
    1.7833333333333359,
    3.200000000000007,
    -2.633333333333333,
    -3.8833333333333258,
    -5.133333333333333,
    3.9499999999999953,
    4.950000000000007,
    4.533333333333333,
    -1.2999999999999923,
    -2.133333333333333,
    -4.383333333333338,
    -3.799999999999993,
    -4.216666666666667,
    5.366666666666674,
    4.533333333333333,
    0.19999999999999574,
    -3.7999999999999994,
    -4.633333333333333,
    4.116666666666667,
    3.283333333333334,
];
const G1_AX1_REFLECT: &[f64] = &[
    0.0,
    2.0,
    1.4607018267857486,
    10.392304845413264,
    2.0,
    9.627580032825769,
    -13.322002940439251,
    8.603247320632622,
    -19.346461891321617,
    3.8629150101523884,
    5.496213306280592,
    -17.210292277677773,
    7.396508674025444,
    -5.911452901093284,
    -4.844957203890619,
    4.189500386222505,
    3.9003665177272775,
    -5.181941097146691,
    12.287875151916625,
    -19.047487567052094,
];
const G1_AX1_CONSTANT: &[f64] = &[
    0.0,
    2.0,
    1.4607018267857486,
    10.392304845413264,
    13.691342951089922,
    7.981852845871734,
    -13.322002940439251,
    8.603247320632622,
    -19.346461891321617,
    15.661688245431424,
    7.849144070754335,
    -17.210292277677773,
    7.396508674025444,
    -5.911452901093284,
    17.72878163699205,
    4.189500386222505,
    3.9003665177272775,
    -5.181941097146691,
    12.287875151916625,
    25.965107682876653,
];
const G1_AX1_NEAREST: &[f64] = &[
    0.0,
    2.0,
    1.4607018267857486,
    10.392304845413264,
    2.0,
    9.627580032825769,
    -13.322002940439251,
    8.603247320632622,
    -19.346461891321617,
    3.8629150101523884,
    5.496213306280592,
    -17.210292277677773,
    7.396508674025444,
    -5.911452901093284,
    -4.844957203890619,
    4.189500386222505,
    3.9003665177272775,
    -5.181941097146691,
    12.287875151916625,
    -19.047487567052094,
];
const G1_AX1_MIRROR: &[f64] = &[
    0.0,
    2.0,
    1.4607018267857486,
    10.392304845413264,
    -19.803847577293368,
    8.571895019270887,
    -13.322002940439251,
    8.603247320632622,
    -19.346461891321617,
    10.978930912689389,
    6.529514470934865,
    -17.210292277677773,
    7.396508674025444,
    -5.911452901093284,
    -12.099433782621489,
    4.189500386222505,
    3.9003665177272775,
    -5.181941097146691,
    12.287875151916625,
    -22.539776236708775,
];
const G1_AX1_WRAP: &[f64] = &[
    0.0,
    2.0,
    1.4607018267857486,
    10.392304845413264,
    7.196152422706632,
    10.179049034803484,
    -13.322002940439251,
    8.603247320632622,
    -19.346461891321617,
    6.824260807763732,
    5.611896656402641,
    -17.210292277677773,
    7.396508674025444,
    -5.911452901093284,
    -6.01219767856573,
    4.189500386222505,
    3.9003665177272775,
    -5.181941097146691,
    12.287875151916625,
    4.66730256487436,
];
const G1_AX0_ORIGIN: &[f64] = &[
    15.048669692550327,
    2.145556538427268,
    15.74263594817273,
    0.6554594729452141,
    13.149610244505539,
    0.0,
    1.0,
    2.8284271247461903,
    5.196152422706632,
    1.0,
    -10.868329805051378,
    -0.44861808172819906,
    -8.393949645974407,
    6.16810994773094,
    -6.1496102445055385,
    -2.103910691834809,
    0.6969384566990691,
    12.727153645190032,
    -1.8867228383519965,
    -8.457239781818387,
];
const G1_U8_I16: &[f64] = &[
    0.0, -55.0, -74.0, -92.0, -111.0, -92.0, -148.0, 217.0, -57.0, -75.0, -57.0, -112.0, -131.0, -149.0, 216.0, -21.0,
    -77.0, -95.0, -114.0, -132.0,
];
