//! Tests of `xp_array::signal`: the blocked parallel IIR filter against the sequential one,
//! the analog and transform design functions, `iircomb`, `gammatone`, `minimum_phase`, and
//! complex input to the symmetric IIR and spline filters. Reference values are SciPy 1.17's,
//! pasted as printed.

use std::sync::Arc;

use num_complex::Complex64 as C;
use xp_array::signal::design::{BType, Filter, Output, PassZero, WorN};
use xp_array::signal::{self, IirMethod};
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn cvals(a: &Array) -> Vec<C> {
    a.astype(DType::C128).unwrap().ascontiguous().unwrap().to_vec::<C>().unwrap()
}

/// `got` and `want` agree to `rtol` times the largest magnitude of `want`.
fn agree(what: &str, got: &Array, want: &Array, rtol: f64) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    let (g, w) = (cvals(got), cvals(want));
    let scale = w.iter().fold(1e-300f64, |m, v| m.max(v.norm()));
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!((a - b).norm() <= rtol * scale, "{what}[{i}]: {a} vs {b} (scale {scale})");
    }
}

/// A deterministic pseudo-random signal of `n` values in [-1, 1).
fn noise(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn ba(order: usize, wn: f64) -> (Array, Array) {
    match signal::butter(order, &[wn], BType::Lowpass, false, Output::Ba, None).unwrap() {
        Filter::Ba(b, a) => (b, a),
        _ => unreachable!(),
    }
}

#[test]
fn blocked_lfilter_matches_the_sequential_recursion() {
    let d = cpu();
    with_device(&d, || {
        let (lines, n) = (3usize, 1000usize);
        for order in 1..=8usize {
            let (b, a) = ba(order, 0.05 + 0.04 * order as f64);
            let x = Array::from_slice(&noise(lines * n, order as u64), &[lines, n]).unwrap();
            let zi = Array::from_slice(&noise(lines * order, 99), &[lines, order]).unwrap();
            let (ys, zs) = signal::lfilter_with(&b, &a, &x, -1, Some(&zi), IirMethod::Sequential).unwrap();
            let (ys, zs) = (ys, zs.unwrap());
            for block in [Some(16), Some(48), Some(64), None] {
                let m = IirMethod::Blocked { block };
                let (yb, zb) = signal::lfilter_with(&b, &a, &x, -1, Some(&zi), m).unwrap();
                agree(&format!("order {order} block {block:?} y"), &yb, &ys, 1e-12);
                agree(&format!("order {order} block {block:?} zf"), &zb.unwrap(), &zs, 1e-12);
            }
            // Along axis 0: the lines are columns, zi (order, lines).
            let xt = x.t();
            let (yt, zt) =
                signal::lfilter_with(&b, &a, &xt, 0, Some(&zi.t()), IirMethod::Blocked { block: Some(32) }).unwrap();
            agree(&format!("order {order} axis 0 y"), &yt, &ys.t().ascontiguous().unwrap(), 1e-12);
            agree(&format!("order {order} axis 0 zf"), &zt.unwrap(), &zs.t().ascontiguous().unwrap(), 1e-12);
            // Without zi.
            let (y0, z0) = signal::lfilter_with(&b, &a, &x, -1, None, IirMethod::Blocked { block: Some(16) }).unwrap();
            assert!(z0.is_none());
            let (w0, _) = signal::lfilter_with(&b, &a, &x, -1, None, IirMethod::Sequential).unwrap();
            agree(&format!("order {order} no zi"), &y0, &w0, 1e-12);
        }
    });
}

#[test]
fn blocked_lfilter_scans_many_blocks_in_every_dtype() {
    let d = cpu();
    with_device(&d, || {
        // 16 · 33 · 33 + 5 samples in blocks of 16: 1090 blocks, three levels of the scan.
        let n = 16 * 33 * 33 + 5;
        let (b, a) = ba(4, 0.1);
        let x = Array::from_slice(&noise(2 * n, 7), &[2, n]).unwrap();
        let zi = Array::from_slice(&noise(8, 3), &[2, 4]).unwrap();
        let bc = b.mul(&Array::from_vec(vec![C::new(1.0, 0.5)]).unwrap()).unwrap();
        // Blocks of 16 are far shorter than this filter's impulse response: the companion
        // matrix's powers grow before they decay, and the corrections cancel more, so the
        // agreement is a few 1e-12 here (1e-12 at the block lengths the planner picks).
        for (dt, tol) in [(DType::F64, 4e-12), (DType::F32, 2e-5), (DType::C128, 4e-12), (DType::C64, 2e-5)] {
            let bb = if dt.is_complex() { bc.astype(dt).unwrap() } else { b.astype(dt).unwrap() };
            let (aa, xx, zz) = (a.astype(dt).unwrap(), x.astype(dt).unwrap(), zi.astype(dt).unwrap());
            let (ys, zs) = signal::lfilter_with(&bb, &aa, &xx, 1, Some(&zz), IirMethod::Sequential).unwrap();
            let m = IirMethod::Blocked { block: Some(16) };
            let (yb, zb) = signal::lfilter_with(&bb, &aa, &xx, 1, Some(&zz), m).unwrap();
            assert_eq!(yb.dtype(), dt);
            agree(&format!("{dt} y"), &yb, &ys, tol);
            agree(&format!("{dt} zf"), &zb.unwrap(), &zs.unwrap(), tol);
        }
        // A short signal (one block), a 3-d input along the middle axis, and a pure gain.
        let x3 = Array::from_slice(&noise(2 * 37 * 3, 5), &[2, 37, 3]).unwrap();
        let (ys, _) = signal::lfilter_with(&b, &a, &x3, 1, None, IirMethod::Sequential).unwrap();
        for block in [Some(16), Some(64)] {
            let (yb, _) = signal::lfilter_with(&b, &a, &x3, 1, None, IirMethod::Blocked { block }).unwrap();
            agree("3-d", &yb, &ys, 4e-12);
        }
        let g = Array::from_vec(vec![2.0]).unwrap();
        let (yg, _) = signal::lfilter_with(&g, &g, &x3, 1, None, IirMethod::Blocked { block: None }).unwrap();
        agree("gain", &yg, &x3, 1e-15);
    });
}

#[test]
fn blocked_sosfilt_matches_the_sequential_sections() {
    let d = cpu();
    with_device(&d, || {
        let sos = match signal::butter(6, &[0.1, 0.3], BType::Bandpass, false, Output::Sos, None).unwrap() {
            Filter::Sos(s) => s,
            _ => unreachable!(),
        };
        let n = 3001;
        let x = Array::from_slice(&noise(n * 2, 11), &[n, 2]).unwrap();
        let zi = Array::from_slice(&noise(6 * 2 * 2, 12), &[6, 2, 2]).unwrap();
        let (ys, zs) = signal::sosfilt_with(&sos, &x, 0, Some(&zi), IirMethod::Sequential).unwrap();
        let (yb, zb) = signal::sosfilt_with(&sos, &x, 0, Some(&zi), IirMethod::Blocked { block: Some(32) }).unwrap();
        agree("sosfilt y", &yb, &ys, 1e-12);
        agree("sosfilt zf", &zb.unwrap(), &zs.unwrap(), 1e-12);
    });
}

#[test]
fn blocked_lfilter_errors() {
    let d = cpu();
    with_device(&d, || {
        let (b, a) = ba(2, 0.2);
        let x = Array::from_slice(&noise(100, 1), &[100]).unwrap();
        let e = signal::lfilter_with(&b, &a, &x, 0, None, IirMethod::Blocked { block: Some(20) }).unwrap_err();
        assert!(e.to_string().contains("lfilter") && e.to_string().contains("multiple of 16"), "{e}");
        let e = signal::lfilter_with(&b, &a, &x, 0, None, IirMethod::Blocked { block: Some(0) }).unwrap_err();
        assert!(e.to_string().contains("block length"), "{e}");
        let e = signal::lfilter_with(&b, &a, &x, 1, None, IirMethod::Blocked { block: None }).unwrap_err();
        assert!(e.to_string().contains("lfilter") || e.to_string().contains("axis"), "{e}");
    });
}

/// `got` (any dtype) and `want` agree element by element to `rtol` (relative, with a tiny
/// absolute floor).
fn near(what: &str, got: &Array, want: &[C], rtol: f64) {
    let g = cvals(got);
    assert_eq!(g.len(), want.len(), "{what}: {g:?} vs {want:?}");
    for (i, (a, b)) in g.iter().zip(want).enumerate() {
        assert!((a - b).norm() <= rtol * b.norm() + 1e-300, "{what}[{i}]: got {a}, want {b}");
    }
}

fn re(v: &[f64]) -> Vec<C> {
    v.iter().map(|&x| C::new(x, 0.0)).collect()
}

fn cx(v: &[(f64, f64)]) -> Vec<C> {
    v.iter().map(|&(r, i)| C::new(r, i)).collect()
}

fn vec1(v: &[f64]) -> Array {
    Array::from_vec(v.to_vec()).unwrap()
}

#[test]
fn transfer_function_transforms_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let (b, a) = (vec1(&[1.0, 2.0]), vec1(&[1.0, 3.0, 5.0]));
        let check = |what: &str, (gb, ga): (Array, Array), wb: &[f64], wa: &[f64]| {
            assert_eq!(gb.dtype(), DType::F64, "{what}");
            near(&format!("{what} b"), &gb, &re(wb), 1e-12);
            near(&format!("{what} a"), &ga, &re(wa), 1e-12);
        };
        // SciPy: lp2lp(b, a, 2.5) and so on.
        check("lp2lp", signal::lp2lp(&b, &a, 2.5).unwrap(), &[2.5, 12.5], &[1.0, 7.5, 31.25]);
        check("lp2hp", signal::lp2hp(&b, &a, 2.5).unwrap(), &[0.4, 0.5, 0.0], &[1.0, 1.5, 1.25]);
        check(
            "lp2bp",
            signal::lp2bp(&b, &a, 2.5, 0.7).unwrap(),
            &[0.6999999999999998, 0.9799999999999998, 4.374999999999999, 0.0],
            &[1.0, 2.0999999999999996, 14.95, 13.124999999999998, 39.06249999999999],
        );
        check(
            "lp2bs",
            signal::lp2bs(&b, &a, 2.5, 0.7).unwrap(),
            &[0.4, 0.13999999999999999, 5.0, 0.875, 15.625],
            &[1.0, 0.41999999999999993, 12.598, 2.625, 39.0625],
        );
        check(
            "bilinear",
            signal::bilinear(&b, &a, 10.0).unwrap(),
            &[0.047311827956989246, 0.008602150537634407, -0.038709677419354833],
            &[1.0, -1.6989247311827957, 0.7419354838709677],
        );
        let (b3, a3) = (vec1(&[0.5, 0.0, 2.0]), vec1(&[1.0, 1.2, 0.9, 0.3]));
        check(
            "lp2hp3",
            signal::lp2hp(&b3, &a3, 1.5).unwrap(),
            &[6.666666666666667, 0.0, 3.75, 0.0],
            &[1.0, 4.500000000000001, 9.0, 11.25],
        );
        check(
            "lp2bp3",
            signal::lp2bp(&b3, &a3, 1.5, 0.4).unwrap(),
            &[0.2, 0.0, 1.028, 0.0, 1.0125, 0.0],
            &[1.0, 0.48, 6.894, 2.1792, 15.5115, 2.43, 11.390625],
        );
        check(
            "lp2bs3",
            signal::lp2bs(&b3, &a3, 1.5, 0.4).unwrap(),
            &[6.666666666666667, 0.0, 45.266666666666666, 0.0, 101.85000000000001, 0.0, 75.9375],
            &[1.0, 1.2000000000000002, 7.390000000000001, 5.613333333333334, 16.6275, 6.075000000000001, 11.390625],
        );
        check(
            "bilinear3",
            signal::bilinear(&b3, &a3, 3.0).unwrap(),
            &[0.07550018875047189, -0.045300113250283124, -0.045300113250283124, 0.07550018875047189],
            &[1.0, -2.5855039637599093, 2.266138165345413, -0.6715741789354474],
        );
        // Complex coefficients stay complex.
        let bc = Array::from_vec(vec![C::new(1.0, 1.0), C::new(2.0, 0.0)]).unwrap();
        let (gb, _) = signal::lp2lp(&bc, &a, 2.5).unwrap();
        assert_eq!(gb.dtype(), DType::C128);
        near("lp2lp complex", &gb, &[C::new(2.5, 2.5), C::new(12.5, 0.0)], 1e-12);
    });
}

#[test]
fn zpk_transforms_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let z = Array::from_vec(vec![C::new(-1.0, 0.5), C::new(-1.0, -0.5)]).unwrap();
        let p = Array::from_vec(vec![C::new(-0.5, 1.0), C::new(-0.5, -1.0), C::new(-2.0, 0.0)]).unwrap();
        let check = |what: &str, (gz, gp, gk): (Array, Array, f64), wz: &[(f64, f64)], wp: &[(f64, f64)], wk: f64| {
            near(&format!("{what} z"), &gz, &cx(wz), 1e-12);
            near(&format!("{what} p"), &gp, &cx(wp), 1e-12);
            assert!((gk - wk).abs() <= 1e-12 * wk.abs(), "{what} k: {gk} vs {wk}");
        };
        check(
            "lp2lp_zpk",
            signal::lp2lp_zpk(&z, &p, 3.0, 2.0).unwrap(),
            &[(-2.0, 1.0), (-2.0, -1.0)],
            &[(-1.0, 2.0), (-1.0, -2.0), (-4.0, 0.0)],
            6.0,
        );
        check(
            "lp2hp_zpk",
            signal::lp2hp_zpk(&z, &p, 3.0, 2.0).unwrap(),
            &[(-1.6, -0.8), (-1.6, 0.8), (0.0, 0.0)],
            &[(-0.8, -1.6), (-0.8, 1.6), (-1.0, -0.0)],
            1.5,
        );
        check(
            "lp2bp_zpk",
            signal::lp2bp_zpk(&z, &p, 3.0, 2.0, 0.5).unwrap(),
            &[
                (-0.2342831257083593, -1.8633088341949042),
                (-0.2342831257083593, 1.8633088341949042),
                (-0.2657168742916407, 2.1133088341949042),
                (-0.2657168742916407, -2.1133088341949042),
                (0.0, 0.0),
            ],
            &[
                (-0.1094662189505009, -1.7617445907355371),
                (-0.1094662189505009, 1.7617445907355371),
                (-0.5, -1.9364916731037085),
                (-0.1405337810494991, 2.261744590735537),
                (-0.1405337810494991, -2.261744590735537),
                (-0.5, 1.9364916731037085),
            ],
            1.5,
        );
        check(
            "lp2bs_zpk",
            signal::lp2bs_zpk(&z, &p, 3.0, 2.0, 0.5).unwrap(),
            &[
                (-0.18996241510463463, 1.892511167625048),
                (-0.18996241510463463, -1.892511167625048),
                (-0.2100375848953654, -2.092511167625048),
                (-0.2100375848953654, 2.092511167625048),
                (0.0, 2.0),
                (0.0, -2.0),
            ],
            &[
                (-0.09003741305364721, 1.8075107105912693),
                (-0.09003741305364721, -1.8075107105912693),
                (-0.125, 1.996089927833914),
                (-0.1099625869463528, -2.2075107105912695),
                (-0.1099625869463528, 2.2075107105912695),
                (-0.125, -1.996089927833914),
            ],
            1.5,
        );
        check(
            "bilinear_zpk",
            signal::bilinear_zpk(&z, &p, 3.0, 4.0).unwrap(),
            &[(0.7723076923076923, 0.09846153846153845), (0.7723076923076923, -0.09846153846153845), (-1.0, 0.0)],
            &[
                (0.8566552901023892, 0.21843003412969283),
                (0.8566552901023892, -0.21843003412969283),
                (0.6000000000000001, 0.0),
            ],
            0.33276450511945393,
        );
    });
}

#[test]
fn analog_responses_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let (b3, a3) = (vec1(&[0.5, 0.0, 2.0]), vec1(&[1.0, 1.2, 0.9, 0.3]));
        let (w, h) = signal::freqs(&b3, &a3, &WorN::N(8)).unwrap();
        #[rustfmt::skip]
        near("freqs w", &w, &re(&[0.01, 0.02682695795279726, 0.07196856730011521, 0.19306977288832497,
            0.517947467923121, 1.3894954943731375, 3.727593720314938, 10.0]), 1e-12);
        near(
            "freqs h",
            &h,
            &cx(&[
                (6.663167349717687, -0.19995279105011832),
                (6.641512956171463, -0.5356292801978091),
                (6.487179657431005, -1.4220198164371587),
                (5.4439737099379, -3.552256775962954),
                (-0.38037302845577686, -5.676980740344513),
                (-0.34104104203820923, 0.24217217891240742),
                (0.030984418129838112, -0.09166284703319666),
                (0.005766306286908723, -0.047739427989361274),
            ]),
            1e-11,
        );
        let (_, h3) = signal::freqs(&b3, &a3, &WorN::Freqs(vec1(&[0.1, 1.0, 3.0]))).unwrap();
        near(
            "freqs explicit",
            &h3,
            &cx(&[
                (6.323226764981017, -1.9540527155670508),
                (-1.6463414634146343, 0.18292682926829265),
                (0.037460399006764275, -0.08669406627279733),
            ]),
            1e-12,
        );
        let z = Array::from_vec(vec![C::new(-1.0, 0.5), C::new(-1.0, -0.5)]).unwrap();
        let p = Array::from_vec(vec![C::new(-0.5, 1.0), C::new(-0.5, -1.0), C::new(-2.0, 0.0)]).unwrap();
        let (w, h) = signal::freqs_zpk(&z, &p, 3.0, &WorN::N(8)).unwrap();
        #[rustfmt::skip]
        near("freqs_zpk w", &w, &re(&[0.1, 0.193069772888325, 0.372759372031494, 0.7196856730011519,
            1.3894954943731375, 2.6826957952797246, 5.17947467923121, 10.0]), 1e-12);
        near(
            "freqs_zpk h",
            &h,
            &cx(&[
                (1.5119219268963795, 0.04458999825326826),
                (1.5451626096266575, 0.08373990843318976),
                (1.6777844040144447, 0.13963200637636564),
                (2.2196503355930197, -0.0488341161632293),
                (1.5498824637143231, -1.669388758999309),
                (0.35705224118317724, -1.0411800595994385),
                (0.10424955301816885, -0.5617712534906135),
                (0.029363142804855726, -0.2971725736594888),
            ]),
            1e-11,
        );
    });
}

#[test]
fn transform_errors() {
    let d = cpu();
    with_device(&d, || {
        let z = Array::from_vec(vec![C::new(-1.0, 0.5), C::new(-1.0, -0.5)]).unwrap();
        let p = Array::from_vec(vec![C::new(-0.5, 1.0)]).unwrap();
        let e = signal::lp2hp_zpk(&z, &p, 1.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("lp2hp_zpk") && e.to_string().contains("Improper"), "{e}");
        let e = signal::bilinear_zpk(&p, &p, 1.0, 0.0).unwrap_err();
        assert!(e.to_string().contains("fs"), "{e}");
        let two = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let e = signal::bilinear(&two, &vec1(&[1.0, 1.0]), 1.0).unwrap_err();
        assert!(e.to_string().contains("bilinear") && e.to_string().contains("1d"), "{e}");
        let e = signal::lp2bp(&vec1(&[1.0]), &vec1(&[0.0, 0.0]), 1.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("Denominator"), "{e}");
        let e = signal::lp2lp(&vec1(&[1.0]), &vec1(&[1.0, 1.0]), f64::NAN).unwrap_err();
        assert!(e.to_string().contains("wo"), "{e}");
        let e = signal::freqs(&vec1(&[1.0]), &vec1(&[1.0, 1.0]), &WorN::Freqs(two)).unwrap_err();
        assert!(e.to_string().contains("worN"), "{e}");
    });
}

#[test]
fn iircomb_and_gammatone_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let comb = |w0, q, t: &str, fs, pz| signal::iircomb(w0, q, t.parse().unwrap(), fs, pz).unwrap();
        let tail = |n: usize, first: f64, last: f64| {
            let mut v = vec![0.0; n + 1];
            v[0] = first;
            v[n] = last;
            re(&v)
        };
        let (b, a) = comb(20.0, 30.0, "notch", 200.0, false);
        near("notch b", &b, &tail(10, 0.9502020221489199, -0.9502020221489199), 1e-13);
        near("notch a", &a, &tail(10, 1.0, -0.9004040442978398), 1e-13);
        let (b, a) = comb(250.0, 30.0, "peak", 1000.0, true);
        near("peak b", &b, &tail(4, 0.04979797785108001, 0.04979797785108001), 1e-13);
        near("peak a", &a, &tail(4, 1.0, -0.9004040442978398), 1e-13);
        let (b, a) = comb(0.25, 10.0, "notch", 2.0, true);
        near("notch pass_zero b", &b, &tail(8, 0.8632712640026805, 0.8632712640026805), 1e-13);
        near("notch pass_zero a", &a, &tail(8, 1.0, 0.726542528005361), 1e-13);
        let (b, a) = comb(0.1, 5.0, "peak", 2.0, false);
        near("peak b 2", &b, &tail(20, 0.24523727525278555, -0.24523727525278555), 1e-13);
        near("peak a 2", &a, &tail(20, 1.0, 0.5095254494944288), 1e-13);

        use signal::GammatoneType::{Fir, Iir};
        let (b, a) = signal::gammatone(440.0, Fir, None, None, Some(16000.0)).unwrap();
        assert_eq!(b.shape(), &[240]);
        near("gammatone a", &a, &re(&[1.0]), 0.0);
        let bv = cvals(&b);
        let first = Array::from_vec(bv[..6].to_vec()).unwrap();
        #[rustfmt::skip]
        near("gammatone fir head", &first, &re(&[0.0, 2.2219671850464346e-07, 1.6494210129699336e-06,
            4.992982270620149e-06, 1.019939692248868e-05, 1.631257700764109e-05]), 1e-12);
        assert!((bv[101].re - 0.002223003329814231).abs() < 1e-14 && (bv[102].re - 0.004382729503215556).abs() < 1e-14);
        let (b, a) = signal::gammatone(440.0, Iir, None, None, Some(16000.0)).unwrap();
        #[rustfmt::skip]
        near("gammatone iir b", &b, &re(&[1.3149446136746419e-06, -5.033911966453952e-06, 7.006494260008976e-06,
            -4.189519684198538e-06, 9.026149104120111e-07]), 1e-10);
        #[rustfmt::skip]
        near("gammatone iir a", &a, &re(&[1.0, -7.656462354542177, 25.758469932236604, -49.731921448323774,
            60.266736128918055, -46.93995909804863, 22.947479880846107, -6.4379938129903405, 0.7936515546253675]), 1e-12);
        // The defaults (fs = 2) and a short FIR of order 3.
        let (b, _) = signal::gammatone(0.3, Fir, Some(3), Some(20), None).unwrap();
        let bv = cvals(&b);
        assert_eq!(bv.len(), 20);
        assert!((bv[1].re - 1.2010764266531573e-29).abs() <= 1e-12 * 1.2010764266531573e-29, "{}", bv[1]);
        assert!((bv[2].re + 1.039863368513647e-63).abs() <= 1e-12 * 1.039863368513647e-63, "{}", bv[2]);
        let (b, a) = signal::gammatone(0.2, Iir, None, None, None).unwrap();
        #[rustfmt::skip]
        near("gammatone iir fs=2 b", &b, &re(&[1.0, -1.37913366265408e-34, 3.367526801213412e-69,
            9.567721493562745e-104, -2.6687785435072484e-138]), 1e-10);
        assert!((cvals(&a)[8].re - 1.0882026658004685e-275).abs() <= 1e-10 * 1.0882026658004685e-275);
    });
}

#[test]
fn iircomb_and_gammatone_errors() {
    let d = cpu();
    with_device(&d, || {
        let e = signal::iircomb(1.5, 30.0, signal::CombType::Notch, 2.0, false).unwrap_err();
        assert!(e.to_string().contains("iircomb") && e.to_string().contains("Nyquist"), "{e}");
        let e = signal::iircomb(0.3, 30.0, signal::CombType::Notch, 2.0, false).unwrap_err();
        assert!(e.to_string().contains("divisible"), "{e}");
        let e = "comb".parse::<signal::CombType>().unwrap_err();
        assert!(e.to_string().contains("notch or peak"), "{e}");
        let e = signal::gammatone(1.5, signal::GammatoneType::Fir, None, None, None).unwrap_err();
        assert!(e.to_string().contains("gammatone") && e.to_string().contains("Nyquist"), "{e}");
        let e = signal::gammatone(0.2, signal::GammatoneType::Fir, Some(25), None, None).unwrap_err();
        assert!(e.to_string().contains("order"), "{e}");
        let e = "fur".parse::<signal::GammatoneType>().unwrap_err();
        assert!(e.to_string().contains("fir or iir"), "{e}");
    });
}

#[test]
fn minimum_phase_matches_scipy() {
    let d = cpu();
    with_device(&d, || {
        use signal::MinimumPhaseMethod::{Hilbert, Homomorphic};
        let h = signal::firwin(31, &[0.3], None, None, PassZero::Bool(true), true, None).unwrap();
        #[rustfmt::skip]
        let homo = [0.11269144873744297, 0.2299285913854858, 0.3137692677017526, 0.29521067555246117,
            0.17239728674812577, 0.016455130442026296, -0.08381127599989183, -0.08906223446327696,
            -0.030422812524646542, 0.027269981436896375, 0.041299617991887194, 0.01726896993597437,
            -0.010139127407131094, -0.015951346823390285, -0.004398345467082205, 0.00508994625485382];
        let got = signal::minimum_phase(&h, Homomorphic, None, true).unwrap();
        assert_eq!(got.dtype(), DType::F64);
        agree("homomorphic", &got, &vec1(&homo), 1e-9);
        #[rustfmt::skip]
        let hil = [0.12707095657621426, 0.22329592286495187, 0.30982670884924035, 0.29783357660586907,
            0.17452956070860884, 0.010689241974273078, -0.09200165001633225, -0.08890721207827706,
            -0.023358240891515128, 0.029406823174635305, 0.03583595502721913, 0.015405474741204484,
            -0.003952512877250966, -0.015033799519105055, -0.013944394006041909, 0.013307132151413555];
        // The Hilbert method takes the log of a spectrum shifted to touch zero in the stop band,
        // so rounding in the FFT (SciPy's pocketfft against the device's) moves the result by
        // about 1e-3 there: compared loosely.
        agree("hilbert", &signal::minimum_phase(&h, Hilbert, None, true).unwrap(), &vec1(&hil), 2e-3);
        #[rustfmt::skip]
        let full = [0.012547688700579384, 0.05127570803892079, 0.12250720589763481, 0.2093525530959276,
            0.27205025065362587, 0.2687343661261724, 0.18593178137107846, 0.055962620750730906,
            -0.059436296555961, -0.1077622041189661, -0.07984326401235443, -0.012776223111272588,
            0.04085201951236331, 0.05088764648998456, 0.02451463855964218, -0.008359621079750178,
            -0.023011978164920628, -0.016272514559216574, -0.001123272946710838, 0.008450032177626937,
            0.007940286965763325, 0.0021050151355579572, -0.0023178928614899464, -0.002731467957085911,
            -0.0007064037126310255, 0.0006348193941111673, 0.0005536855791894873, 0.0002736803424791174,
            0.00012689628432001972, -0.0005647266444857506, 0.00019953329311542289];
        agree("half=false", &signal::minimum_phase(&h, Homomorphic, Some(256), false).unwrap(), &vec1(&full), 1e-9);
        let h2 = signal::firwin(30, &[0.4], None, None, PassZero::Bool(true), true, None).unwrap();
        #[rustfmt::skip]
        let odd = [0.1144986024367818, 0.3111842317634089, 0.4120865754114536, 0.28915006548887884,
            0.025525830172296416, -0.1373925567489019, -0.09365441957531632, 0.033900198895677074,
            0.07335450688844372, 0.011662381648266754, -0.039337436258988265, -0.0206333175542328,
            0.016089292961945712, 0.014794012294505113, -0.006652094590850446];
        agree("odd n_fft", &signal::minimum_phase(&h2, Homomorphic, Some(127), true).unwrap(), &vec1(&odd), 1e-9);
        #[rustfmt::skip]
        let hil2 = [0.1630972623865014, 0.3216838937745261, 0.3907311821121118, 0.2503948147694127,
            0.0004383520416071703, -0.13127907958521468, -0.06709933468110832, 0.044601651207958705,
            0.05743647079220718, -0.0013790653546589802, -0.03153649396952109, -0.011525122325511266,
            0.012555782956011136, 0.009752067589467082, -0.004554135731671443];
        agree("hilbert 512", &signal::minimum_phase(&h2, Hilbert, Some(512), true).unwrap(), &vec1(&hil2), 2e-3);
    });
}

#[test]
fn minimum_phase_errors() {
    let d = cpu();
    with_device(&d, || {
        use signal::MinimumPhaseMethod::{Hilbert, Homomorphic};
        let h = vec1(&[0.25, 0.5, 0.25]);
        let e = signal::minimum_phase(&h, Hilbert, None, false).unwrap_err();
        assert!(e.to_string().contains("half"), "{e}");
        let e = signal::minimum_phase(&vec1(&[0.5, 0.5]), Homomorphic, None, true).unwrap_err();
        assert!(e.to_string().contains("minimum_phase") && e.to_string().contains("[2]"), "{e}");
        let e = signal::minimum_phase(&h, Homomorphic, Some(2), true).unwrap_err();
        assert!(e.to_string().contains("n_fft"), "{e}");
        let hc = h.astype(DType::C128).unwrap();
        let e = signal::minimum_phase(&hc, Homomorphic, None, true).unwrap_err();
        assert!(e.to_string().contains("Complex") || e.to_string().contains("complex"), "{e}");
        let e = "cepstrum".parse::<signal::MinimumPhaseMethod>().unwrap_err();
        assert!(e.to_string().contains("homomorphic"), "{e}");
    });
}

fn wave() -> Vec<C> {
    (0..40).map(|i| C::new((i as f64 * 0.7).sin(), (i as f64 * 0.3).cos())).collect()
}

#[test]
fn symiirorder1_takes_complex_input_and_coefficients() {
    let d = cpu();
    with_device(&d, || {
        let x = Array::from_vec(wave()).unwrap();
        let pick = |a: &Array, at: &[usize]| {
            let v = cvals(a);
            Array::from_vec(at.iter().map(|&i| v[i]).collect::<Vec<_>>()).unwrap()
        };
        let idx = [0, 1, 2, 20, 38, 39];
        let y = signal::symiirorder1(&x, C::new(0.5, 0.2), C::new(0.3, -0.25), -1.0).unwrap();
        assert_eq!(y.dtype(), DType::C128);
        let want = cx(&[
            (0.40305984329179634, 0.6825824021403148),
            (0.7755355295928382, 0.769228547611246),
            (1.0230161737315415, 0.7309483494500949),
            (1.0917494080081405, 0.8891472557477074),
            (0.9110673390057934, 0.27713624973625306),
            (0.9094445130450882, 0.3487193653758527),
        ]);
        near("complex coefficients", &pick(&y, &idx), &want, 1e-12);
        let y = signal::symiirorder1(&x, 0.5, 0.3, -1.0).unwrap();
        let want_r = cx(&[
            (0.21874157709006095, 0.986015130273313),
            (0.576019486337255, 0.9298398430545766),
            (0.8004330778724802, 0.8001754842823053),
            (0.7848325894275925, 0.9289607242354371),
            (0.8447106120861785, 0.35628782218535365),
            (0.8444014353462581, 0.5451702733956254),
        ]);
        near("real coefficients", &pick(&y, &idx), &want_r, 1e-12);
        let y =
            signal::symiirorder1(&x.astype(DType::C64).unwrap(), C::new(0.5, 0.2), C::new(0.3, -0.25), -1.0).unwrap();
        assert_eq!(y.dtype(), DType::C64);
        near("complex64", &pick(&y, &idx), &want, 2e-6);
        // Two rows, each filtered alone: the second is 2 x - 1.
        let rows: Vec<C> = wave().into_iter().chain(wave().into_iter().map(|v| v * 2.0 - 1.0)).collect();
        let x2 = Array::from_slice(&rows, &[2, 40]).unwrap();
        let y2 = signal::symiirorder1(&x2, C::new(0.5, 0.2), C::new(0.3, -0.25), -1.0).unwrap();
        let r1 = cvals(&y2)[40..].to_vec();
        let got = Array::from_vec(vec![r1[0], r1[1], r1[39]]).unwrap();
        #[rustfmt::skip]
        near("2-d row 1", &got, &cx(&[(-0.12342721048854799, 1.6583610942810982), (0.6215241621116625, 1.8316533852236996),
            (0.889342129015997, 0.9906350207539574)]), 1e-12);
        // Complex coefficients need complex input; |z1| < 1.
        let e = signal::symiirorder1(&x.real(), C::new(0.5, 0.2), 0.3, -1.0).unwrap_err();
        assert!(e.to_string().contains("symiirorder1") && e.to_string().contains("complex"), "{e}");
        let e = signal::symiirorder1(&x, 0.5, C::new(0.9, 0.5), -1.0).unwrap_err();
        assert!(e.to_string().contains("|z1|"), "{e}");
    });
}

#[test]
fn spline_filter_takes_complex_input_as_scipy() {
    let d = cpu();
    with_device(&d, || {
        let (r, c) = (12usize, 14usize);
        let img: Vec<f64> = (0..r * c).map(|k| ((k / c) as f64 * 0.3).sin() + ((k % c) as f64 * 0.2).cos()).collect();
        let z: Vec<C> = (0..r * c).map(|k| C::new(img[k], 0.5 * img[(r - 1 - k / c) * c + k % c])).collect();
        let x = Array::from_slice(&z, &[r, c]).unwrap();
        let at = |a: &Array, ij: &[(usize, usize)]| {
            let v = cvals(a);
            Array::from_vec(ij.iter().map(|&(i, j)| v[i * c + j]).collect::<Vec<_>>()).unwrap()
        };
        let want = cx(&[
            (1.0002561807632446, 0.4212474822998047),
            (0.9802775382995605, 0.41126662492752075),
            (1.1674619913101196, 0.5719074010848999),
            (-1.014634609222412, -0.42844444513320923),
        ]);
        let pts = [(0, 0), (0, 1), (5, 7), (11, 13)];
        for dt in [DType::C128, DType::C64] {
            let y = signal::spline_filter(&x.astype(dt).unwrap(), 0.0).unwrap();
            assert_eq!(y.dtype(), dt);
            near(&format!("spline_filter {dt}"), &at(&y, &pts), &want, 2e-6);
        }
        let pts3 = [(0, 0), (3, 5), (11, 13)];
        #[rustfmt::skip]
        near("cspline2d complex", &at(&signal::cspline2d(&x, 0.0, -1.0).unwrap(), &pts3), &cx(&[
            (0.9390537161936074, 0.3906145693514247), (1.3403048742756514, 0.6153833062819026),
            (-1.101993273704359, -0.4720843480974343)]), 1e-12);
        #[rustfmt::skip]
        near("qspline2d complex", &at(&signal::qspline2d(&x, 0.0, -1.0).unwrap(), &pts3), &cx(&[
            (0.9583081461677807, 0.4001862951718542), (1.3354019602481646, 0.6131560995604733),
            (-1.075441895845191, -0.4587531742584118)]), 1e-12);
        // The smoothing spline (lmbda > 1/144) takes real input only, as SciPy's.
        let e = signal::spline_filter(&x, 5.0).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }) && e.to_string().contains("spline_filter"), "{e}");
        let e = signal::cspline2d(&x, 5.0, -1.0).unwrap_err();
        assert!(e.to_string().contains("cspline2d"), "{e}");
        let e = signal::spline_filter(&x.real().astype(DType::I32).unwrap(), 0.0).unwrap_err();
        assert!(e.to_string().contains("spline_filter"), "{e}");
    });
}
