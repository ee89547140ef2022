//! `xp_array::interpolate`: interpolators on the CPU backend. The reference values are
//! SciPy 1.17's (`scipy.interpolate`), printed with `repr` and pasted here.

use std::sync::Arc;

use xp_array::interpolate::*;
use xp_array::*;
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn arr(dev: &Arc<dyn DynDevice>, v: &[f64]) -> Array {
    Array::from_slice_on(dev, v, &[v.len()]).unwrap()
}

fn arr2(dev: &Arc<dyn DynDevice>, v: &[f64], shape: &[usize]) -> Array {
    Array::from_slice_on(dev, v, shape).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// Each element within `rel` of the reference (relative to `max(1, |want|)`), NaN for NaN.
fn close(what: &str, got: &Array, want: &[f64], rel: f64) {
    let g = f64s(got);
    assert_eq!(g.len(), want.len(), "{what}: {g:?} vs {want:?}");
    for (i, (g, w)) in g.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || (g - w).abs() <= rel * w.abs().max(1.0);
        assert!(ok, "{what}[{i}]: got {g:e}, want {w:e}");
    }
}

fn is_value_error<T>(r: Result<T>) -> bool {
    matches!(r, Err(Error::Value { .. }))
}

const X: [f64; 7] = [0.0, 0.7, 1.5, 2.0, 3.2, 4.0, 5.1];
const Y: [f64; 7] = [
    0.0,
    0.714217687237691,
    1.1474949866040545,
    1.1092974268256817,
    0.26162585657242,
    -0.3568024953079282,
    -0.41581468232773244,
];
const XQ: [f64; 9] = [-0.5, 0.0, 0.3, 1.5, 1.9, 2.5, 3.9, 5.1, 5.5];
const XIN: [f64; 7] = [0.0, 0.3, 1.5, 1.9, 2.5, 3.9, 5.1];

#[test]
fn interp1d_kinds_match_scipy() {
    let d = cpu();
    let (x, y, xq) = (arr(&d, &X), arr(&d, &Y), arr(&d, &XQ));
    let cases: [(&str, [f64; 9]); 9] = [
        (
            "linear",
            [
                -7.0,
                0.0,
                0.306093294530439,
                1.1474949866040545,
                1.1169369387813561,
                0.7561009392201561,
                -0.2794989513228846,
                -0.41581468232773244,
                7.0,
            ],
        ),
        (
            "nearest",
            [
                -7.0,
                0.0,
                0.0,
                1.1474949866040545,
                1.1092974268256817,
                1.1092974268256817,
                -0.3568024953079282,
                -0.41581468232773244,
                7.0,
            ],
        ),
        (
            "nearest-up",
            [
                -7.0,
                0.0,
                0.0,
                1.1474949866040545,
                1.1092974268256817,
                1.1092974268256817,
                -0.3568024953079282,
                -0.41581468232773244,
                7.0,
            ],
        ),
        (
            "zero",
            [
                -7.0,
                0.0,
                0.0,
                1.1474949866040545,
                1.1474949866040545,
                1.1092974268256817,
                0.26162585657242,
                -0.41581468232773244,
                7.0,
            ],
        ),
        (
            "slinear",
            [
                -7.0,
                0.0,
                0.306093294530439,
                1.1474949866040545,
                1.1169369387813561,
                0.7561009392201561,
                -0.27949895132288455,
                -0.41581468232773244,
                7.0,
            ],
        ),
        (
            "quadratic",
            [
                -7.0,
                0.0,
                0.34071531546266126,
                1.1474949866040545,
                1.135521492632064,
                0.8461018267822535,
                -0.3004738258836007,
                -0.41581468232773244,
                7.0,
            ],
        ),
        (
            "cubic",
            [
                -7.0,
                0.0,
                0.33159233321316406,
                1.1474949866040545,
                1.1370509261726598,
                0.8416815314723328,
                -0.2951186706573635,
                -0.41581468232773244,
                7.0,
            ],
        ),
        (
            "previous",
            [
                -7.0,
                0.0,
                0.0,
                1.1474949866040545,
                1.1474949866040545,
                1.1092974268256817,
                0.26162585657242,
                -0.41581468232773244,
                7.0,
            ],
        ),
        (
            "next",
            [
                -7.0,
                0.0,
                0.714217687237691,
                1.1474949866040545,
                1.1092974268256817,
                0.26162585657242,
                -0.3568024953079282,
                -0.41581468232773244,
                7.0,
            ],
        ),
    ];
    for (kind, want) in cases {
        let f =
            Interp1d::new(&x, &y, kind.parse().unwrap(), -1, Some(false), FillValue::Pair(-7.0, 7.0), false).unwrap();
        close(kind, &f.call(&xq).unwrap(), &want, 1e-13);
    }
    // fill_value="extrapolate"
    let f = Interp1d::new(&x, &y, Interp1dKind::Linear, -1, None, FillValue::Extrapolate, false).unwrap();
    let r = f.call(&xq).unwrap();
    close(
        "extrapolate",
        &r,
        &[
            -0.510155490884065,
            0.0,
            0.306093294530439,
            1.1474949866040545,
            1.1169369387813561,
            0.7561009392201561,
            -0.2794989513228846,
            -0.41581468232773244,
            -0.4372736594258431,
        ],
        1e-13,
    );
    // previous/next extrapolate with NaN beyond their side.
    let f = Interp1d::new(&x, &y, Interp1dKind::Previous, -1, None, FillValue::Extrapolate, false).unwrap();
    let r = f64s(&f.call(&xq).unwrap());
    assert!(r[0].is_nan() && r[8] == Y[6]);
}

#[test]
fn interp1d_dtypes_shapes_and_errors() {
    let d = cpu();
    let x32 = arr(&d, &X).astype(DType::F32).unwrap();
    let y32 = arr(&d, &Y).astype(DType::F32).unwrap();
    let q32 = arr(&d, &XIN).astype(DType::F32).unwrap();
    let lin = Interp1d::new(&x32, &y32, Interp1dKind::Linear, -1, None, FillValue::default(), false).unwrap();
    assert_eq!(lin.call(&q32).unwrap().dtype(), DType::F32);
    let cub = Interp1d::new(&x32, &y32, Interp1dKind::Cubic, -1, None, FillValue::default(), false).unwrap();
    assert_eq!(cub.call(&q32).unwrap().dtype(), DType::F64);
    // y of shape (2, 7) along axis 1, queries of shape (3, 2): the answer is (2, 3, 2).
    let mut yy = Y.to_vec();
    yy.extend(X.iter().map(|v| v * 2.0));
    let y2 = arr2(&d, &yy, &[2, 7]);
    let q = arr2(&d, &[0.5, 1.0, 2.0, 3.0, 4.0, 5.0], &[3, 2]);
    let f = Interp1d::new(&arr(&d, &X), &y2, Interp1dKind::Linear, 1, None, FillValue::default(), false).unwrap();
    let r = f.call(&q).unwrap();
    assert_eq!(r.shape(), &[2, 3, 2]);
    close("second row", &r.slice(&[SliceArg::Index(1)]).unwrap(), &[1.0, 2.0, 4.0, 6.0, 8.0, 10.0], 1e-13);
    // unsorted x is sorted first
    let xs = arr(&d, &[2.0, 0.0, 1.0]);
    let ys = arr(&d, &[4.0, 0.0, 1.0]);
    let f = Interp1d::new(&xs, &ys, Interp1dKind::Linear, -1, None, FillValue::default(), false).unwrap();
    close("sorted", &f.call(&arr(&d, &[1.5])).unwrap(), &[2.5], 1e-15);
    // errors: out of bounds with bounds_error, mismatched lengths, too few points, raise and extrapolate
    assert!(is_value_error(lin.call(&arr(&d, &[6.0]).astype(DType::F32).unwrap())));
    assert!(is_value_error(Interp1d::new(
        &arr(&d, &X[..5]),
        &arr(&d, &Y),
        Interp1dKind::Linear,
        -1,
        None,
        FillValue::default(),
        false
    )));
    assert!(is_value_error(Interp1d::new(
        &arr(&d, &X[..3]),
        &arr(&d, &Y[..3]),
        Interp1dKind::Cubic,
        -1,
        None,
        FillValue::default(),
        false
    )));
    assert!(is_value_error(Interp1d::new(
        &arr(&d, &X),
        &arr(&d, &Y),
        Interp1dKind::Linear,
        -1,
        Some(true),
        FillValue::Extrapolate,
        false
    )));
    assert!("bogus".parse::<Interp1dKind>().is_err());
}

#[test]
fn cubic_spline_end_conditions_and_derivatives() {
    let d = cpu();
    let (x, y, xq) = (arr(&d, &X), arr(&d, &Y), arr(&d, &XQ));
    let nak = CubicSpline::new(&x, &y, 0, BcType::default(), None).unwrap();
    close(
        "not-a-knot",
        &nak.call(&xq, 0).unwrap(),
        &[
            -0.5949903178907289,
            0.0,
            0.33159233321316417,
            1.1474949866040545,
            1.13705092617266,
            0.8416815314723328,
            -0.29511867065736364,
            -0.41581468232773255,
            -0.03128912634655384,
        ],
        1e-12,
    );
    close(
        "not-a-knot'",
        &nak.call(&xq, 1).unwrap(),
        &[
            1.2073508669449746,
            1.1503914637809811,
            1.0522252722721415,
            0.17963138415845237,
            -0.2281703572563036,
            -0.7078339284805163,
            -0.6482221720857886,
            0.6336458494338302,
            1.3097134523385792,
        ],
        1e-12,
    );
    let nat = CubicSpline::new(&x, &y, 0, "natural".parse().unwrap(), None).unwrap();
    close(
        "natural''",
        &nat.call(&xq, 2).unwrap(),
        &[
            0.486721226695602,
            -6.38378239159465e-16,
            -0.29203273601736224,
            -1.0350712415494066,
            -0.9616341853669519,
            -0.5694509196105655,
            0.9966207582040965,
            2.220446049250313e-16,
            -0.4165747211869226,
        ],
        1e-12,
    );
    let cl = CubicSpline::new(&x, &y, 0, "clamped".parse().unwrap(), None).unwrap();
    close(
        "clamped",
        &cl.call(&xq, 0).unwrap(),
        &[
            0.8972161745770093,
            0.0,
            0.19512116795793796,
            1.1474949866040545,
            1.1337757448870391,
            0.853514257397819,
            -0.3070224292917104,
            -0.41581468232773233,
            -0.47320445626783836,
        ],
        1e-12,
    );
    let bc = BcType::ends(EndCondition::Deriv(1, 0.5), EndCondition::Deriv(2, -1.0));
    let cu = CubicSpline::new(&x, &y, 0, bc, None).unwrap();
    close(
        "custom'",
        &cu.call(&xq, 1).unwrap(),
        &[
            -1.7541542517687057,
            0.5,
            1.1022759638510027,
            0.1370365362271003,
            -0.20862046229203432,
            -0.6926305158202009,
            -0.5358145738955207,
            -0.15506470004557804,
            -0.7330148789677735,
        ],
        1e-12,
    );
    // periodic: extrapolation wraps
    let mut yp = Y;
    yp[6] = yp[0];
    let per = CubicSpline::new(&x, &arr(&d, &yp), 0, "periodic".parse().unwrap(), None).unwrap();
    close(
        "periodic",
        &per.call(&arr(&d, &[-1.0, 0.3, 6.0, 12.0]), 0).unwrap(),
        &[-0.38817959714734535, 0.30437538374292544, 0.8783988329640785, 1.152969282396839],
        1e-12,
    );
    assert_eq!(nak.call(&xq, 0).unwrap().dtype(), DType::F64);
}

#[test]
fn cubic_spline_errors() {
    let d = cpu();
    let (x, y) = (arr(&d, &X), arr(&d, &Y));
    // periodic data whose ends differ
    assert!(is_value_error(CubicSpline::new(&x, &y, 0, "periodic".parse().unwrap(), None)));
    // non-increasing x
    let bad = arr(&d, &[0.0, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    assert!(is_value_error(CubicSpline::new(&bad, &y, 0, BcType::default(), None)));
    // shape mismatch, too few points, a bad derivative order, unknown names
    assert!(is_value_error(CubicSpline::new(&arr(&d, &X[..4]), &y, 0, BcType::default(), None)));
    assert!(is_value_error(CubicSpline::new(&arr(&d, &[1.0]), &arr(&d, &[1.0]), 0, BcType::default(), None)));
    let b3 = BcType::both(EndCondition::Deriv(3, 0.0));
    assert!(is_value_error(CubicSpline::new(&x, &y, 0, b3, None)));
    assert!("not-a-bc".parse::<BcType>().is_err());
    // axis: y of shape (2, 7) along axis 1 evaluated at 3 points gives (2, 3)
    let mut yy = Y.to_vec();
    yy.extend(Y.iter().map(|v| 2.0 * v));
    let cs = CubicSpline::new(&x, &arr2(&d, &yy, &[2, 7]), 1, BcType::default(), None).unwrap();
    let r = cs.call(&arr(&d, &[0.3, 1.9, 2.5]), 0).unwrap();
    assert_eq!(r.shape(), &[2, 3]);
    close(
        "axis 1",
        &r,
        &[
            0.33159233321316417,
            1.13705092617266,
            0.8416815314723328,
            0.6631846664263283,
            2.27410185234532,
            1.6833630629446656,
        ],
        1e-12,
    );
}

#[test]
fn pchip_and_akima_match_scipy() {
    let d = cpu();
    let (x, y, xq) = (arr(&d, &X), arr(&d, &Y), arr(&d, &XQ));
    let p = PchipInterpolator::new(&x, &y, 0, None).unwrap();
    close(
        "pchip",
        &p.call(&xq, 0).unwrap(),
        &[
            -0.6499272938365878,
            0.0,
            0.3505961159438387,
            1.1474949866040545,
            1.1212164214079774,
            0.8592981273682702,
            -0.3302775488232571,
            -0.41581468232773244,
            -0.40758555574778876,
        ],
        1e-12,
    );
    close(
        "pchip'",
        &p.call(&xq, 1).unwrap(),
        &[
            1.3129032099905158,
            1.243711015296212,
            1.0780822423079155,
            0.0,
            -0.11307155660120048,
            -0.7806627801590471,
            -0.41440600174543896,
            0.0,
            0.04142954102013887,
        ],
        1e-12,
    );
    let xin = arr(&d, &XIN);
    let a = Akima1DInterpolator::new(&x, &y, 0, AkimaMethod::Akima, None).unwrap();
    close(
        "akima",
        &a.call(&xin, 0).unwrap(),
        &[
            0.0,
            0.344892673494371,
            1.1474949866040545,
            1.1589505885174214,
            0.7703157606187683,
            -0.28378007862338434,
            -0.41581468232773217,
        ],
        1e-12,
    );
    let m = Akima1DInterpolator::new(&x, &y, 0, "makima".parse().unwrap(), None).unwrap();
    close(
        "makima",
        &m.call(&xin, 0).unwrap(),
        &[
            0.0,
            0.34669932311320023,
            1.1474949866040545,
            1.1420625806277531,
            0.8121038670620893,
            -0.3033611275710109,
            -0.4158146823277324,
        ],
        1e-12,
    );
    // Akima does not extrapolate by default
    let r = f64s(&a.call(&arr(&d, &[-1.0, 6.0]), 0).unwrap());
    assert!(r.iter().all(|v| v.is_nan()));
    assert!("spline".parse::<AkimaMethod>().is_err());
}

#[test]
fn ppoly_evaluation_calculus_and_errors() {
    let d = cpu();
    let c = arr2(&d, &[1.0, -2.0, 0.5, 0.0, 1.0, 2.0, 3.0, -1.0, 0.25], &[3, 3]);
    let bp = arr(&d, &[0.0, 1.0, 2.5, 4.0]);
    let q = arr(&d, &[-1.0, 0.5, 1.0, 2.0, 3.0, 4.5]);
    let pp = PPoly::new(&c, &bp, None).unwrap();
    close("pp", &pp.call(&q, 0).unwrap(), &[4.0, 3.25, -1.0, -2.0, 1.375, 6.25], 1e-14);
    close("pp'", &pp.call(&q, 1).unwrap(), &[-2.0, 1.0, 1.0, -3.0, 2.5, 4.0], 1e-14);
    close(
        "antiderivative",
        &pp.antiderivative(1).unwrap().call(&q, 0).unwrap(),
        &[
            -3.3333333333333335,
            1.5416666666666667,
            3.3333333333333335,
            2.166666666666667,
            1.1041666666666667,
            6.541666666666667,
        ],
        1e-14,
    );
    close("integrate", &pp.integrate(0.2, 3.7, None).unwrap(), &[2.133666666666667], 1e-14);
    // decreasing breakpoints
    let desc = PPoly::new(&c, &arr(&d, &[4.0, 2.5, 1.0, 0.0]), None).unwrap();
    close("descending", &desc.call(&q, 0).unwrap(), &[-1.75, -0.625, 0.25, -2.0, 4.0, 3.25], 1e-14);
    // no extrapolation: NaN outside; derivative beyond the degree: zeros
    let ne = PPoly::new(&c, &bp, Some(Extrapolate::No)).unwrap();
    let r = f64s(&ne.call(&q, 3).unwrap());
    assert!(r[0].is_nan() && r[5].is_nan() && r[1..5].iter().all(|v| *v == 0.0));
    assert!(is_value_error(pp.call(&q, -1)));
    assert!(is_value_error(PPoly::new(&c, &arr(&d, &[0.0, 1.0, 2.0]), None)));
    assert!(is_value_error(PPoly::new(&c, &arr(&d, &[0.0, 2.0, 1.0, 3.0]), None)));
}

#[test]
fn bspline_and_make_interp_spline_match_scipy() {
    let d = cpu();
    let t = arr(&d, &[0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 4.0, 4.0]);
    let c = arr(&d, &[1.0, -1.0, 2.0, 0.5, 3.0, -2.0]);
    let q = arr(&d, &[-0.5, 0.0, 0.7, 1.0, 2.2, 3.9, 4.0, 4.6]);
    let b = BSpline::new(&t, &c, 2, None, 0).unwrap();
    close(
        "bspline",
        &b.call(&q, 0).unwrap(),
        &[3.875, 1.0, -0.08500000000000002, 0.5, 1.0299999999999998, -1.0624999999999991, -2.0, -10.249999999999993],
        1e-13,
    );
    close(
        "bspline'",
        &b.call(&q, 1).unwrap(),
        &[-7.5, -4.0, 0.8999999999999997, 3.0, -0.6999999999999993, -8.75, -10.0, -17.499999999999996],
        1e-13,
    );
    let r = f64s(&BSpline::new(&t, &c, 2, Some(Extrapolate::No), 0).unwrap().call(&q, 0).unwrap());
    assert!(r[0].is_nan() && r[7].is_nan() && (r[6] + 2.0).abs() < 1e-14);
    assert!(is_value_error(b.call(&q, -1)));
    // too few knots, decreasing knots, too few coefficients
    assert!(is_value_error(BSpline::new(&arr(&d, &[0.0, 1.0, 2.0]), &c, 2, None, 0)));
    assert!(is_value_error(BSpline::new(&arr(&d, &[0.0, 0.0, 0.0, 2.0, 1.0, 3.0, 4.0, 4.0, 4.0]), &c, 2, None, 0)));
    assert!(is_value_error(BSpline::new(&t, &arr(&d, &[1.0, 2.0]), 2, None, 0)));

    let (x, y, xin) = (arr(&d, &X), arr(&d, &Y), arr(&d, &XIN));
    let want: [(usize, [f64; 7]); 4] = [
        (
            1,
            [
                0.0,
                0.306093294530439,
                1.1474949866040545,
                1.1169369387813561,
                0.7561009392201561,
                -0.27949895132288455,
                -0.41581468232773244,
            ],
        ),
        (
            2,
            [
                0.0,
                0.34071531546266126,
                1.1474949866040545,
                1.135521492632064,
                0.8461018267822535,
                -0.3004738258836007,
                -0.41581468232773244,
            ],
        ),
        (
            3,
            [
                0.0,
                0.33159233321316406,
                1.1474949866040545,
                1.1370509261726598,
                0.8416815314723328,
                -0.2951186706573635,
                -0.41581468232773244,
            ],
        ),
        (
            5,
            [
                0.0,
                0.3245044862250742,
                1.1474949866040542,
                1.1363062932296741,
                0.8482505980057371,
                -0.2977314891256075,
                -0.41581468232773244,
            ],
        ),
    ];
    for (k, w) in want {
        let s = make_interp_spline(&x, &y, k, None, SplineBc::NotAKnot, 0).unwrap();
        close(&format!("k={k}"), &s.call(&xin, 0).unwrap(), &w, 1e-12);
    }
    let s = make_interp_spline(&x, &y, 3, None, SplineBc::Natural, 0).unwrap();
    close(
        "natural",
        &s.call(&xin, 0).unwrap(),
        &[
            0.0,
            0.3255621435982631,
            1.1474949866040545,
            1.1365368077696079,
            0.8470322901120872,
            -0.30395349710583225,
            -0.41581468232773244,
        ],
        1e-12,
    );
    // too few points for the degree; natural needs k - 1 = 2 conditions only for k = 3
    assert!(is_value_error(make_interp_spline(&arr(&d, &X[..3]), &arr(&d, &Y[..3]), 3, None, SplineBc::NotAKnot, 0)));
    assert!(is_value_error(make_interp_spline(&x, &y, 5, None, SplineBc::Natural, 0)));
}

#[test]
fn barycentric_and_krogh_match_scipy() {
    let d = cpu();
    let xc = [0.0, 0.5, 1.3, 2.0, 3.1];
    let yc: Vec<f64> = xc.iter().map(|v: &f64| (-v).exp()).collect();
    let b = BarycentricInterpolator::new(&arr(&d, &xc), &arr(&d, &yc), 0).unwrap();
    close(
        "barycentric",
        &b.call(&arr(&d, &[0.0, 0.2, 1.3, 2.9, 3.5])).unwrap(),
        &[1.0, 0.8196840943349546, 0.2725317930340126, 0.05143713845288703, 0.0530858117948258],
        1e-13,
    );
    assert!(is_value_error(BarycentricInterpolator::new(&arr(&d, &[0.0, 1.0, 1.0]), &arr(&d, &[1.0, 2.0, 3.0]), 0)));
    // repeated nodes carry derivatives: f(0)=1, f'(0)=0.5, f(1)=2, f'(1)=-1, f(2)=0.3
    let k =
        KroghInterpolator::new(&arr(&d, &[0.0, 0.0, 1.0, 1.0, 2.0]), &arr(&d, &[1.0, 0.5, 2.0, -1.0, 0.3]), 0).unwrap();
    close(
        "krogh",
        &k.call(&arr(&d, &[-0.2, 0.0, 0.4, 1.0, 1.7, 2.2])).unwrap(),
        &[1.13072, 1.0, 1.61072, 2.0, 0.46785750000000004, 0.9771200000000011],
        1e-12,
    );
    assert!(is_value_error(KroghInterpolator::new(&arr(&d, &[0.0, 1.0]), &arr(&d, &[1.0, 2.0, 3.0]), 0)));
}

/// `cumsum((0.02 + 0.98 frac(i phi))^p)`: an unevenly spaced grid of `n` points.
fn uneven_grid(n: usize, phi: f64, p: i32) -> Vec<f64> {
    let mut acc = 0.0;
    (0..n)
        .map(|i| {
            acc += (0.02 + 0.98 * ((i as f64 * phi) % 1.0)).powi(p);
            acc
        })
        .collect()
}

#[test]
fn regular_grid_cubic_follows_scipys_solver_through_restarts() {
    // An uneven 17 × 12 grid whose collocation system takes SciPy's gcrotmk four cycles (the
    // later ones recycling outer vectors); SciPy's answer is that inexact solve, which differs
    // from the exact interpolating spline by up to 8e-3 here.
    let d = cpu();
    let (g0, g1) = (uneven_grid(17, 0.6180339887, 3), uneven_grid(12, 0.41421356, 2));
    let v: Vec<f64> =
        g0.iter().flat_map(|&a| g1.iter().map(move |&b| (3.0 * a).sin() * (2.0 * b).cos() + a * b * 0.1)).collect();
    let (a0, a1, vals) = (arr(&d, &g0), arr(&d, &g1), arr2(&d, &v, &[17, 12]));
    let (e0, e1) = (g0[16], g1[11]);
    let p = [0.3 * e0, 0.2 * e1, 0.55 * e0, 0.9 * e1, 0.01, 0.5 * e1, 0.97 * e0, 0.33 * e1];
    let pts = arr2(&d, &p, &[4, 2]);
    let rgi = RegularGridInterpolator::new(&[&a0, &a1], &vals, GridMethod::Cubic, true, None).unwrap();
    // SciPy: RegularGridInterpolator((g0, g1), V, method="cubic")(pts)
    let want = [-0.00803220955187938, 1.091766931592454, -0.02444851054996499, 0.9304974048845975];
    close("cubic, four cycles", &rgi.call(&pts).unwrap(), &want, 1e-11);
}

#[test]
fn regular_grid_methods_match_scipy() {
    let d = cpu();
    let g0 = [0.0, 1.0, 2.5, 3.0, 4.0];
    let g1 = [-1.0, 0.0, 0.5, 1.0];
    let v: Vec<f64> =
        g0.iter().flat_map(|a: &f64| g1.iter().map(move |b: &f64| a.sin() * (2.0 * b).cos() + a * b)).collect();
    let (a0, a1, vals) = (arr(&d, &g0), arr(&d, &g1), arr2(&d, &v, &[5, 4]));
    let pts = arr2(&d, &[0.0, -1.0, 0.3, 0.2, 1.7, 0.9, 2.6, -0.4, 4.0, 1.0, 3.3, 0.75], &[6, 2]);
    let cases: [(&str, [f64; 6], f64); 5] = [
        (
            "linear",
            [0.0, 0.26602262287496226, 1.3662880150490968, -0.8201938341068696, 4.314940964313378, 2.4670381119427005],
            1e-13,
        ),
        ("nearest", [-0.0, 0.0, 0.6498245116259853, 0.5984721441039565, 4.314940964313378, 1.5762474657588768], 0.0),
        (
            "slinear",
            [0.0, 0.26602262287496237, 1.366288015049097, -0.8201938341068699, 4.3149409643133785, 2.4670381119427014],
            1e-13,
        ),
        // SciPy's cubic is a GCROT(m, k) solve to relative residual 1e-5, reproduced step for step
        (
            "cubic",
            [0.0, 0.3593240619292655, 1.3438927050117555, -0.5902074835695343, 4.314940729081836, 2.4566499461841635],
            1e-12,
        ),
        (
            "pchip",
            [0.0, 0.367649959370552, 1.3617189084853167, -0.608061943153791, 4.314940964313378, 2.4592165927990735],
            1e-12,
        ),
    ];
    for (m, want, tol) in cases {
        let rgi = RegularGridInterpolator::new(&[&a0, &a1], &vals, m.parse().unwrap(), true, Some(f64::NAN)).unwrap();
        close(m, &rgi.call(&pts).unwrap(), &want, tol);
        close(m, &interpn(&[&a0, &a1], &vals, &pts, m.parse().unwrap(), true, Some(f64::NAN)).unwrap(), &want, tol);
    }
    // fill_value None extrapolates; a number fills; bounds_error raises
    let out = arr2(&d, &[5.0, 0.0, -1.0, 0.2], &[2, 2]);
    let ex = RegularGridInterpolator::new(&[&a0, &a1], &vals, GridMethod::Linear, false, None).unwrap();
    close("extrapolate", &ex.call(&out).unwrap(), &[-1.6547249986757235, -0.8867420762498743], 1e-13);
    let fl = RegularGridInterpolator::new(&[&a0, &a1], &vals, GridMethod::Linear, false, Some(-1.0)).unwrap();
    close("fill", &fl.call(&out).unwrap(), &[-1.0, -1.0], 0.0);
    assert!(is_value_error(interpn(&[&a0, &a1], &vals, &out, GridMethod::Linear, true, Some(f64::NAN))));
    // dtypes: linear answers float64, nearest keeps float32
    let v32 = vals.astype(DType::F32).unwrap();
    let p32 = pts.astype(DType::F32).unwrap();
    assert_eq!(interpn(&[&a0, &a1], &v32, &p32, GridMethod::Linear, true, None).unwrap().dtype(), DType::F64);
    assert_eq!(interpn(&[&a0, &a1], &v32, &p32, GridMethod::Nearest, true, None).unwrap().dtype(), DType::F32);
    // errors: a grid that is not monotonic, mismatched lengths, too few points for cubic, wrong xi width
    let bad = arr(&d, &[0.0, 2.0, 1.0, 3.0, 4.0]);
    assert!(is_value_error(RegularGridInterpolator::new(&[&bad, &a1], &vals, GridMethod::Linear, true, None)));
    assert!(is_value_error(RegularGridInterpolator::new(&[&a1, &a1], &vals, GridMethod::Linear, true, None)));
    let small = arr2(&d, &[0.0; 15], &[5, 3]);
    let a3 = arr(&d, &[0.0, 1.0, 2.0]);
    assert!(is_value_error(RegularGridInterpolator::new(&[&a0, &a3], &small, GridMethod::Cubic, true, None)));
    assert!(is_value_error(ex.call(&arr2(&d, &[1.0, 2.0, 3.0], &[1, 3]))));
}

#[test]
fn rbf_kernels_match_scipy() {
    let d = cpu();
    let yv = [
        0.6369616873214543,
        0.2697867137638703,
        0.04097352393619469,
        0.016527635528529094,
        0.8132702392002724,
        0.9127555772777217,
        0.6066357757671799,
        0.7294965609839984,
        0.5436249914654229,
        0.9350724237877682,
        0.8158535541215322,
        0.002738500170148095,
        0.8574042765875693,
        0.033585575305464355,
        0.7296554464299441,
        0.17565562060255901,
        0.8631789223498866,
        0.5414612202490917,
        0.2997118905373848,
        0.42268722119765845,
        0.028319671145462966,
        0.12428327649956394,
        0.6706244146936303,
        0.6471895115742501,
    ];
    let dv = [
        1.0155099407066652,
        0.12288442425956397,
        1.478702307396809,
        1.5012972132881308,
        1.8725562585511049,
        0.6396491562739074,
        0.5402378089350617,
        0.8457952774223333,
        0.8176190698069683,
        0.9614538289189565,
        0.10030317695980934,
        1.3231467009844258,
    ];
    let (y, dd) = (arr2(&d, &yv, &[12, 2]), arr(&d, &dv));
    let q = arr2(&d, &[0.1, 0.2, 0.5, 0.5, 0.9, 0.3], &[3, 2]);
    let cases: [(RbfKernel, Option<f64>, f64, [f64; 3]); 6] = [
        (RbfKernel::ThinPlateSpline, None, 0.0, [0.29440582009365557, 1.2318610959278598, 0.6128810581127961]),
        (RbfKernel::Gaussian, Some(2.0), 0.0, [0.2628757088589624, 1.2405667902856128, 0.4966617867729277]),
        (RbfKernel::Multiquadric, Some(1.5), 0.0, [0.30082902937598743, 1.2523057432523619, 0.4964878769094103]),
        (RbfKernel::Linear, None, 0.0, [0.3325857137792485, 1.1755862862116517, 0.7683758218062998]),
        (RbfKernel::Quintic, None, 0.0, [0.3587525783563851, 1.2361280748579144, 0.510673862242051]),
        (RbfKernel::ThinPlateSpline, None, 0.1, [0.39745544591581194, 1.1760873545063728, 0.7897272962423284]),
    ];
    for (k, eps, sm, want) in cases {
        let r = RBFInterpolator::new(&y, &dd, sm, k, eps, None).unwrap();
        close(&format!("{k:?}"), &r.call(&q).unwrap(), &want, 1e-9);
    }
    // epsilon is needed for gaussian; too few points for the degree; a bad query width
    assert!(is_value_error(RBFInterpolator::new(&y, &dd, 0.0, RbfKernel::Gaussian, None, None)));
    let two = arr2(&d, &yv[..4], &[2, 2]);
    assert!(is_value_error(RBFInterpolator::new(
        &two,
        &arr(&d, &dv[..2]),
        0.0,
        RbfKernel::ThinPlateSpline,
        None,
        None
    )));
    let r = RBFInterpolator::new(&y, &dd, 0.0, RbfKernel::Cubic, None, None).unwrap();
    assert!(is_value_error(r.call(&arr2(&d, &[0.1, 0.2, 0.3], &[1, 3]))));
    assert!("bogus".parse::<RbfKernel>().is_err());
}

#[test]
fn scalar_and_empty_queries_keep_their_shapes() {
    let d = cpu();
    let (x, y) = (arr(&d, &X), arr(&d, &Y));
    let scalar = Array::from_slice_on(&d, &[1.5], &[]).unwrap();
    let empty = Array::from_slice_on::<f64>(&d, &[], &[0]).unwrap();
    let cs = CubicSpline::new(&x, &y, 0, BcType::default(), None).unwrap();
    let r = cs.call(&scalar, 0).unwrap();
    assert_eq!(r.shape(), &[] as &[usize]);
    close("scalar", &r, &[1.1474949866040545], 1e-14);
    assert_eq!(cs.call(&empty, 0).unwrap().shape(), &[0]);
    let f = Interp1d::new(&x, &y, Interp1dKind::Linear, -1, None, FillValue::default(), false).unwrap();
    assert_eq!(f.call(&scalar).unwrap().shape(), &[] as &[usize]);
    assert_eq!(f.call(&empty).unwrap().shape(), &[0]);
    let g = arr(&d, &[0.0, 1.0, 2.0]);
    let v = arr2(&d, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], &[3, 3]);
    let rgi = RegularGridInterpolator::new(&[&g, &g], &v, GridMethod::Linear, true, None).unwrap();
    let none = Array::from_slice_on::<f64>(&d, &[], &[0, 2]).unwrap();
    assert_eq!(rgi.call(&none).unwrap().shape(), &[0]);
    close("one point", &rgi.call(&arr(&d, &[0.5, 1.5])).unwrap(), &[3.0], 1e-14);
}
