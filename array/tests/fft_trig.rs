//! `scipy.fft`'s transforms in `xp_array::fft` (DCT, DST, Hankel, Hermitian N-d) on the CPU backend:
//! values against SciPy's (pasted, marked as such) and against the O(N²) definitions written
//! here, round trips, dtypes, shapes and SciPy's errors.

use std::f64::consts::PI;
use std::sync::Arc;

use num_complex::Complex;
use xp_array::fft;
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn arr(dev: &Arc<dyn xp_backend_api::DynDevice>, v: &[f64], shape: &[usize]) -> Array {
    Array::from_slice_on(dev, v, shape).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// Norm-wise relative error of `got` against `want` at most `tol`.
fn close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    let num: f64 = got.iter().zip(want).map(|(g, w)| (g - w).powi(2)).sum::<f64>().sqrt();
    let den: f64 = want.iter().map(|w| w * w).sum::<f64>().sqrt().max(f64::MIN_POSITIVE);
    assert!(num / den <= tol, "{what}: relative error {:e}\n got {got:?}\nwant {want:?}", num / den);
}

/// The unnormalised transform of SciPy's definition, summed directly.
fn direct(sine: bool, t: usize, x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let nf = n as f64;
    (0..n)
        .map(|k| {
            let kf = k as f64;
            let mut s = 0.0;
            for (j, &xj) in x.iter().enumerate() {
                let jf = j as f64;
                s += match (sine, t) {
                    (false, 1) => {
                        if j == 0 || j == n - 1 {
                            xj * (PI * kf * jf / (nf - 1.0)).cos()
                        } else {
                            2.0 * xj * (PI * kf * jf / (nf - 1.0)).cos()
                        }
                    }
                    (false, 2) => 2.0 * xj * (PI * kf * (2.0 * jf + 1.0) / (2.0 * nf)).cos(),
                    (false, 3) => {
                        if j == 0 {
                            xj
                        } else {
                            2.0 * xj * (PI * (2.0 * kf + 1.0) * jf / (2.0 * nf)).cos()
                        }
                    }
                    (false, _) => 2.0 * xj * (PI * (2.0 * kf + 1.0) * (2.0 * jf + 1.0) / (4.0 * nf)).cos(),
                    (true, 1) => 2.0 * xj * (PI * (kf + 1.0) * (jf + 1.0) / (nf + 1.0)).sin(),
                    (true, 2) => 2.0 * xj * (PI * (kf + 1.0) * (2.0 * jf + 1.0) / (2.0 * nf)).sin(),
                    (true, 3) => {
                        if j == n - 1 {
                            xj * if k % 2 == 0 { 1.0 } else { -1.0 }
                        } else {
                            2.0 * xj * (PI * (2.0 * kf + 1.0) * (jf + 1.0) / (2.0 * nf)).sin()
                        }
                    }
                    (true, _) => 2.0 * xj * (PI * (2.0 * kf + 1.0) * (2.0 * jf + 1.0) / (4.0 * nf)).sin(),
                };
            }
            s
        })
        .collect()
}

fn signal(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 7 + 3) % 11) as f64 * 0.37 - 1.4 + (i as f64 * 0.9).sin()).collect()
}

#[test]
fn every_type_matches_its_definition_for_small_lengths() {
    let d = cpu();
    for n in 1..=12 {
        let x = signal(n);
        let a = arr(&d, &x, &[n]);
        for t in 1..=4 {
            for sine in [false, true] {
                if !sine && t == 1 && n == 1 {
                    continue;
                }
                let f = if sine { fft::dst } else { fft::dct };
                let got = f(&a, t, None, -1, None, None).unwrap();
                close(
                    &format!("{} type {t} n {n}", if sine { "dst" } else { "dct" }),
                    &f64s(&got),
                    &direct(sine, t, &x),
                    1e-13,
                );
            }
        }
    }
}

#[test]
fn values_match_scipy() {
    let d = cpu();
    let x = arr(&d, &[1.0, 2.0, -1.5, 0.5, 3.0], &[5]);
    // scipy.fft.dct / dst (x, type) as printed by SciPy 1.17.
    let dct: [[f64; 5]; 4] = [
        [6.0, 0.12132034355964283, 7.0, -4.121320343559643, -4.0],
        [10.0, -2.0408703083031954, 7.9270509831248415, -5.204310558055353, -4.572949016875157],
        [4.819062300597929, -1.5269664902501034, 10.0, -4.32713547599958, -3.9649603343482456],
        [4.810679724365037, 0.8174399130648835, 5.656854249492381, -10.353697386551076, 1.4107101069450911],
    ];
    let dst: [[f64; 5]; 4] = [
        [5.330127018922193, -0.8660254037844384, 11.0, -6.06217782649107, -3.3301270189221928],
        [3.517220926874317, 0.5020285397155693, 11.017220926874318, -5.567581822058034, 0.0],
        [4.493180531090099, 0.9074238185131942, 8.0, -5.525457807263088, -2.111214519839993],
        [6.824647153238201, -2.765059591870436, 9.899494936611665, 1.5413408739333123, -3.225353468621],
    ];
    for t in 1..=4 {
        close(&format!("dct {t}"), &f64s(&fft::dct(&x, t, None, -1, None, None).unwrap()), &dct[t - 1], 1e-14);
        close(&format!("dst {t}"), &f64s(&fft::dst(&x, t, None, -1, None, None).unwrap()), &dst[t - 1], 1e-14);
    }
    // scipy.fft.dctn(arange(6.).reshape(2, 3)**2, type=2, norm="ortho")
    let m = arr(&d, &[0.0, 1.0, 4.0, 9.0, 16.0, 25.0], &[2, 3]);
    let want = [22.453655975512472, -10.000000000000002, 1.1547005383792506, -18.371173070873837, 6.0, 0.0];
    let got = fft::dctn(&m, 2, None, None, Some("ortho"), None).unwrap();
    assert_eq!(got.shape(), &[2, 3]);
    close("dctn ortho", &f64s(&got), &want, 1e-14);
}

#[test]
fn inverses_undo_the_transforms_for_every_norm() {
    let d = cpu();
    for n in [2usize, 5, 8, 13] {
        let x = signal(n);
        let a = arr(&d, &x, &[n]);
        for t in 1..=4 {
            for norm in [None, Some("backward"), Some("ortho"), Some("forward")] {
                for orth in [None, Some(true), Some(false)] {
                    let y = fft::dct(&a, t, None, -1, norm, orth).unwrap();
                    let back = fft::idct(&y, t, None, -1, norm, orth).unwrap();
                    close(&format!("idct(dct) t{t} {norm:?} {orth:?} n{n}"), &f64s(&back), &x, 1e-13);
                    let y = fft::dst(&a, t, None, -1, norm, orth).unwrap();
                    let back = fft::idst(&y, t, None, -1, norm, orth).unwrap();
                    close(&format!("idst(dst) t{t} {norm:?} {orth:?} n{n}"), &f64s(&back), &x, 1e-13);
                }
            }
        }
    }
}

#[test]
fn ortho_is_orthogonal_and_the_norms_scale_as_scipy() {
    let d = cpu();
    let n = 9;
    let x = signal(n);
    let a = arr(&d, &x, &[n]);
    let energy: f64 = x.iter().map(|v| v * v).sum();
    for t in 1..=4 {
        for sine in [false, true] {
            let f = if sine { fft::dst } else { fft::dct };
            let y = f64s(&f(&a, t, None, -1, Some("ortho"), None).unwrap());
            let e: f64 = y.iter().map(|v| v * v).sum();
            assert!((e - energy).abs() <= 1e-12 * energy, "type {t}: {e} vs {energy}");
            // "forward" is the unnormalised transform over L.
            let l = match t {
                1 if !sine => 2.0 * (n as f64 - 1.0),
                1 => 2.0 * (n as f64 + 1.0),
                _ => 2.0 * n as f64,
            };
            let plain = f64s(&f(&a, t, None, -1, None, None).unwrap());
            let fwd = f64s(&f(&a, t, None, -1, Some("forward"), None).unwrap());
            close("forward", &fwd, &plain.iter().map(|v| v / l).collect::<Vec<_>>(), 1e-14);
        }
    }
}

#[test]
fn n_and_axis_pad_cut_and_pick_the_axis() {
    let d = cpu();
    let x: Vec<f64> = (0..24).map(|i| (i as f64 * 0.7).cos() + i as f64 * 0.1).collect();
    let a = arr(&d, &x, &[2, 3, 4]);
    for (axis, n) in [(0isize, Some(3usize)), (1, Some(2)), (1, Some(5)), (-1, None), (2, Some(6))] {
        for t in 1..=4 {
            let got = fft::dct(&a, t, n, axis, None, None).unwrap();
            let ax = axis.rem_euclid(3) as usize;
            let m = n.unwrap_or(a.shape()[ax]);
            let mut shape = vec![2, 3, 4];
            shape[ax] = m;
            assert_eq!(got.shape(), shape.as_slice());
            let g = f64s(&got.ascontiguous().unwrap());
            // Each line along the axis against the definition of the padded or cut line.
            let strides = [12, 4, 1];
            let ostr: Vec<usize> = (0..3).map(|i| shape[i + 1..].iter().product()).collect();
            for i0 in 0..shape[0].min(2) {
                for i1 in 0..shape[1].min(3) {
                    for i2 in 0..shape[2].min(4) {
                        let mut idx = [i0, i1, i2];
                        if idx[ax] != 0 {
                            continue;
                        }
                        let line: Vec<f64> = (0..m)
                            .map(|k| {
                                idx[ax] = k;
                                if k < a.shape()[ax] {
                                    x[(0..3).map(|j| idx[j] * strides[j]).sum::<usize>()]
                                } else {
                                    0.0
                                }
                            })
                            .collect();
                        let got_line: Vec<f64> = (0..m)
                            .map(|k| {
                                idx[ax] = k;
                                g[(0..3).map(|j| idx[j] * ostr[j]).sum::<usize>()]
                            })
                            .collect();
                        close(&format!("axis {axis} n {n:?} t {t}"), &got_line, &direct(false, t, &line), 1e-13);
                    }
                }
            }
        }
    }
}

#[test]
fn n_d_forms_are_the_1_d_transforms_in_turn() {
    let d = cpu();
    let x: Vec<f64> = (0..60).map(|i| ((i * 13) % 7) as f64 - 2.5).collect();
    let a = arr(&d, &x, &[3, 4, 5]);
    for t in 1..=4 {
        let want =
            fft::dst(&fft::dst(&a, t, Some(6), 0, Some("ortho"), None).unwrap(), t, None, 2, Some("ortho"), None)
                .unwrap();
        let got = fft::dstn(&a, t, Some(&[6, 5]), Some(&[0, 2]), Some("ortho"), None).unwrap();
        assert_eq!(got.shape(), &[6, 4, 5]);
        close("dstn", &f64s(&got), &f64s(&want), 1e-14);
        let plain = fft::dstn(&a, t, None, Some(&[0, 2]), Some("ortho"), None).unwrap();
        let back = fft::idstn(&plain, t, None, Some(&[0, 2]), Some("ortho"), None).unwrap();
        close("idstn", &f64s(&back), &x, 1e-13);
        let all = fft::idctn(&fft::dctn(&a, t, None, None, None, None).unwrap(), t, None, None, None, None).unwrap();
        close("idctn(dctn)", &f64s(&all), &x, 1e-13);
    }
}

#[test]
fn dtypes_follow_scipy() {
    let d = cpu();
    let x = arr(&d, &signal(6), &[6]);
    let x32 = x.astype(DType::F32).unwrap();
    for t in 1..=4 {
        let y = fft::dct(&x32, t, None, -1, None, None).unwrap();
        assert_eq!(y.dtype(), DType::F32);
        close("float32", &f64s(&y), &f64s(&fft::dct(&x, t, None, -1, None, None).unwrap()), 2e-6);
        assert_eq!(fft::idstn(&x32, t, None, None, None, None).unwrap().dtype(), DType::F32);
    }
    let ints = Array::from_slice_on(&d, &[1i64, 2, 3, 4], &[4]).unwrap();
    assert_eq!(fft::dct(&ints, 2, None, -1, None, None).unwrap().dtype(), DType::F64);
    // Complex input: the real and imaginary parts transformed apart.
    let z: Vec<Complex<f64>> = (0..6).map(|i| Complex::new(i as f64, 1.0 - 0.5 * i as f64)).collect();
    let za = Array::from_slice_on(&d, &z, &[6]).unwrap();
    let re = arr(&d, &z.iter().map(|c| c.re).collect::<Vec<_>>(), &[6]);
    let im = arr(&d, &z.iter().map(|c| c.im).collect::<Vec<_>>(), &[6]);
    for t in 1..=4 {
        let y = fft::dst(&za, t, None, -1, Some("ortho"), None).unwrap();
        assert_eq!(y.dtype(), DType::C128);
        let yc = y.to_vec::<Complex<f64>>().unwrap();
        close(
            "complex re",
            &yc.iter().map(|c| c.re).collect::<Vec<_>>(),
            &f64s(&fft::dst(&re, t, None, -1, Some("ortho"), None).unwrap()),
            1e-15,
        );
        close(
            "complex im",
            &yc.iter().map(|c| c.im).collect::<Vec<_>>(),
            &f64s(&fft::dst(&im, t, None, -1, Some("ortho"), None).unwrap()),
            1e-15,
        );
        let y64 = fft::dct(&za.astype(DType::C64).unwrap(), t, None, -1, None, None).unwrap();
        assert_eq!(y64.dtype(), DType::C64);
    }
}

#[test]
fn scipy_errors_are_value_errors() {
    let d = cpu();
    let x = arr(&d, &signal(4), &[4]);
    let one = arr(&d, &[2.0], &[1]);
    let value = |r: Result<Array>| matches!(r, Err(Error::Value { .. }));
    assert!(value(fft::dct(&x, 5, None, -1, None, None)));
    assert!(value(fft::dst(&x, 0, None, -1, None, None)));
    assert!(value(fft::dct(&one, 1, None, -1, None, None)));
    assert!(value(fft::idct(&one, 1, None, -1, None, None)));
    assert!(value(fft::dct(&x, 1, Some(1), -1, None, None)));
    assert!(value(fft::dct(&x, 2, Some(0), -1, None, None)));
    assert!(value(fft::dct(&x, 2, None, -1, Some("unitary"), None)));
    assert!(value(fft::dctn(&x.reshape(&[2, 2]).unwrap(), 2, None, Some(&[0, 0]), None, None)));
    assert!(value(fft::dctn(&x, 2, Some(&[2, 2]), None, None, None)));
    assert!(fft::dct(&x, 2, None, 1, None, None).is_err());
    // A DST-I of one point is fine: 2 x_0 sin(π/2).
    close("dst1 n=1", &f64s(&fft::dst(&one, 1, None, -1, None, None).unwrap()), &[4.0], 0.0);
}

#[test]
fn hermitian_n_d_transforms_match_scipy() {
    let d = cpu();
    let h: Vec<Complex<f64>> = [(1.0, 2.0), (0.5, -1.0), (2.0, 0.0), (-1.0, 0.5), (3.0, -2.0), (0.25, 1.0)]
        .iter()
        .map(|&(r, i)| Complex::new(r, i))
        .collect();
    let ha = Array::from_slice_on(&d, &h, &[2, 3]).unwrap();
    // scipy.fft.hfft2(H)
    let got = fft::hfft2(&ha, None, None, None).unwrap();
    assert_eq!((got.shape(), got.dtype()), (&[2usize, 4][..], DType::F64));
    close("hfft2", &f64s(&got), &[9.25, -8.25, -4.75, 3.75, -1.25, 2.25, 8.75, -1.75], 1e-15);
    let got32 = fft::hfftn(&ha.astype(DType::C64).unwrap(), None, Some(&[-2, -1]), None).unwrap();
    assert_eq!(got32.dtype(), DType::F32);
    // scipy.fft.ihfft2(R)
    let r = arr(&d, &[1.0, 2.0, 3.0, 4.0, 0.5, -1.0, 2.0, -2.0, 3.0, 1.0, 0.0, 1.0], &[3, 4]);
    let got = fft::ihfft2(&r, None, None, None).unwrap();
    assert_eq!((got.shape(), got.dtype()), (&[3usize, 3][..], DType::C128));
    let want = [
        (1.2083333333333333, 0.0),
        (-0.04166666666666666, -0.08333333333333333),
        (0.375, 0.0),
        (0.6458333333333333, -0.39692831006786766),
        (-0.3013354503153699, -0.5330928597524978),
        (-0.4375, 0.3247595264191645),
        (0.6458333333333333, 0.39692831006786766),
        (-0.15699788301796344, 0.11642619308583119),
        (-0.4375, -0.3247595264191645),
    ];
    let g = got.to_vec::<Complex<f64>>().unwrap();
    let flat = |v: &[(f64, f64)]| v.iter().flat_map(|&(a, b)| [a, b]).collect::<Vec<_>>();
    close("ihfft2", &flat(&g.iter().map(|c| (c.re, c.im)).collect::<Vec<_>>()), &flat(&want), 1e-15);
    assert_eq!(fft::ihfftn(&r.astype(DType::F32).unwrap(), None, None, None).unwrap().dtype(), DType::C64);
    // hfftn undoes ihfftn along the chosen axes.
    let back =
        fft::hfftn(&fft::ihfftn(&r, None, None, Some("ortho")).unwrap(), Some(&[3, 4]), None, Some("ortho")).unwrap();
    close("hfftn(ihfftn)", &f64s(&back), &f64s(&r), 1e-14);
}

#[test]
fn fast_hankel_transform_matches_scipy_and_inverts() {
    let d = cpu();
    let dln = 1.3157629102823116;
    let a = [
        0.0009999500012499792,
        0.007191858466478727,
        0.05129715241735864,
        0.3259677031954722,
        0.416039663861229,
        1.0930195350632661e-10,
        7.329914321314981e-155,
        0.0,
    ];
    let x = arr(&d, &a, &[8]);
    // scipy.fft.fht(a, dln, 0.5, offset=0.1, bias=0.3)
    let want = [
        -0.015395133150866486,
        0.02315043863151299,
        0.0656307206449073,
        0.45667837627984476,
        0.26471341293292705,
        -0.003653597894080804,
        -0.0007197096077104371,
        0.0007084743413027203,
    ];
    let got = fft::fht(&x, dln, 0.5, 0.1, 0.3).unwrap();
    close("fht", &f64s(&got), &want, 1e-12);
    let back = fft::ifht(&got, dln, 0.5, 0.1, 0.3).unwrap();
    close("ifht(fht)", &f64s(&back), &a, 1e-12);
    for mu in [0.0, 1.5, -0.5] {
        let y = fft::fht(&x, dln, mu, 0.0, 0.0).unwrap();
        close("ifht(fht) mu", &f64s(&fft::ifht(&y, dln, mu, 0.0, 0.0).unwrap()), &a, 1e-11);
    }
    // An odd length, a negative bias and a pole of Γ at m = 0 (mu = -1): SciPy's values of
    // fht(b, dln, 1, offset=-0.2, bias=-0.5), ifht(b, dln, 1) and fht(b, dln, -1).
    let dln7 = 0.7675283643313484;
    let b = [
        0.009950124791926826,
        0.04535107484980104,
        0.1934418239449506,
        0.6065306597126334,
        0.4557833517654917,
        0.0004518953222776246,
        1.9287498479639178e-20,
    ];
    let bx = arr(&d, &b, &[7]);
    let want_fht = [
        0.0056258544263607805,
        0.03593217019745704,
        0.1361317866370684,
        0.5282471366167178,
        0.5633645106498303,
        0.052733072207719764,
        0.02388199364509056,
    ];
    close("fht odd", &f64s(&fft::fht(&bx, dln7, 1.0, -0.2, -0.5).unwrap()), &want_fht, 1e-12);
    let want_ifht = [
        0.00921747248800561,
        0.04568611770335993,
        0.2109565325176499,
        0.6197206350983465,
        0.4293775043128196,
        -0.008583086563707662,
        0.0051337548306073745,
    ];
    close("ifht odd", &f64s(&fft::ifht(&bx, dln7, 1.0, 0.0, 0.0).unwrap()), &want_ifht, 1e-12);
    let want_pole = [
        0.3654993647654461,
        0.32903071955009194,
        0.1637603047358019,
        -0.24500379784489468,
        -0.05466066705936785,
        0.3832999238171593,
        0.3695830824228443,
    ];
    close("fht mu=-1", &f64s(&fft::fht(&bx, dln7, -1.0, 0.0, 0.0).unwrap()), &want_pole, 1e-12);
    // scipy.fft.fhtoffset(dln, 0.5) and fhtoffset(dln, 1.5, initial=0.3, bias=0.4)
    assert!((fft::fhtoffset(dln, 0.5, 0.0, 0.0) - 0.2064110641900131).abs() < 1e-13);
    assert!((fft::fhtoffset(dln, 1.5, 0.3, 0.4) - 0.6819115526894866).abs() < 1e-13);
    // Batched along the last axis, float32 kept.
    let two = arr(&d, &[a, a].concat(), &[2, 8]);
    let y = fft::fht(&two.astype(DType::F32).unwrap(), dln, 0.5, 0.1, 0.3).unwrap();
    assert_eq!((y.shape(), y.dtype()), (&[2usize, 8][..], DType::F32));
    close("fht float32", &f64s(&y), &[want, want].concat(), 1e-5);
    let z = Array::from_slice_on(&d, &[Complex::new(1.0, 0.0); 4], &[4]).unwrap();
    assert!(matches!(fft::fht(&z, dln, 0.5, 0.0, 0.0), Err(Error::DType { .. })));
}

#[test]
fn fast_lengths_are_scipys() {
    let t = [1usize, 2, 7, 11, 13, 97, 100, 101, 257, 1000, 1021, 4097, 65537, 123457];
    // scipy.fft.next_fast_len / prev_fast_len, complex and real.
    let next = [1usize, 2, 7, 11, 14, 98, 100, 105, 264, 1000, 1024, 4116, 65610, 123480];
    let next_real = [1usize, 2, 8, 12, 15, 100, 100, 108, 270, 1000, 1024, 4320, 65610, 124416];
    let prev = [1usize, 2, 7, 11, 12, 96, 100, 100, 256, 1000, 1008, 4096, 65536, 123200];
    let prev_real = [1usize, 2, 6, 10, 12, 96, 100, 100, 256, 1000, 1000, 4096, 65536, 122880];
    for i in 0..t.len() {
        assert_eq!(fft::next_fast_len(t[i], false).unwrap(), next[i], "next {}", t[i]);
        assert_eq!(fft::next_fast_len(t[i], true).unwrap(), next_real[i], "next real {}", t[i]);
        assert_eq!(fft::prev_fast_len(t[i], false).unwrap(), prev[i], "prev {}", t[i]);
        assert_eq!(fft::prev_fast_len(t[i], true).unwrap(), prev_real[i], "prev real {}", t[i]);
    }
    assert_eq!(fft::next_fast_len(0, false).unwrap(), 0);
    assert_eq!(fft::prev_fast_len(0, true).unwrap(), 0);
    assert!(matches!(fft::next_fast_len(1 << 62, false), Err(Error::Value { .. })));
    assert_eq!(fft::next_fast_len((1 << 40) + 1, true).unwrap() % 2, 0);
}
