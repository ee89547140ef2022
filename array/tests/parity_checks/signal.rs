//! `convolve2d` and `correlate2d` on any device against a naive host sum: every boundary, tiles
//! cut by the picture's edges, kernels larger than a GPU's shared-memory tile, complex and
//! integer dtypes; the symmetric IIR and 2-d B-spline filters and Gustafsson's `filtfilt`
//! against the CPU's values.

use std::sync::Arc;

use num_complex::Complex64 as C;
use xp_array::signal::{self, convolve2d, correlate2d, Boundary, Mode};
use xp_array::*;
use xp_backend_api::DynDevice;

fn bidx(i: i64, n: usize, b: Boundary) -> Option<usize> {
    let n = n as i64;
    match b {
        _ if (0..n).contains(&i) => Some(i as usize),
        Boundary::Fill => None,
        Boundary::Wrap => Some(i.rem_euclid(n) as usize),
        Boundary::Symm => {
            let p = i.rem_euclid(2 * n);
            Some(if p < n { p } else { 2 * n - 1 - p } as usize)
        }
    }
}

/// SciPy's `convolve2d(x, w, "same", b, fill)` on the host (`x` is `r × c`, `w` `kh × kw`).
fn host_same(x: &[C], (r, c): (usize, usize), w: &[C], (kh, kw): (usize, usize), b: Boundary, fill: C) -> Vec<C> {
    let mut out = vec![C::new(0.0, 0.0); r * c];
    for i in 0..r {
        for j in 0..c {
            let mut acc = C::new(0.0, 0.0);
            for ky in 0..kh {
                for kx in 0..kw {
                    let (y, xx) = (i as i64 - (kh / 2) as i64 + ky as i64, j as i64 - (kw / 2) as i64 + kx as i64);
                    let v = match (bidx(y, r, b), bidx(xx, c, b)) {
                        (Some(y), Some(xx)) => x[y * c + xx],
                        _ => fill,
                    };
                    acc += v * w[(kh - 1 - ky) * kw + (kw - 1 - kx)];
                }
            }
            out[i * c + j] = acc;
        }
    }
    out
}

fn values(a: &Array) -> Vec<C> {
    a.astype(DType::C128).unwrap().to_vec::<C>().unwrap()
}

pub fn convolve2d_matches_host_sums_on_every_boundary_and_tile(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for ((r, c), (kh, kw)) in [((70, 45), (3, 3)), ((33, 97), (5, 4)), ((40, 40), (60, 60))] {
            let x: Vec<C> =
                (0..r * c).map(|i| C::new(((i * 37) % 101) as f64 / 50.0 - 1.0, ((i * 11) % 7) as f64)).collect();
            let w: Vec<C> =
                (0..kh * kw).map(|i| C::new(((i * 13) % 17) as f64 / 8.0 - 1.0, ((i * 5) % 3) as f64)).collect();
            for dt in [DType::F32, DType::F64, DType::C64, DType::I32] {
                let keep = |v: &C| match dt {
                    DType::C64 => *v,
                    DType::I32 => C::new((v.re * 8.0).round(), 0.0),
                    _ => C::new(v.re, 0.0),
                };
                let (xh, wh): (Vec<C>, Vec<C>) = (x.iter().map(keep).collect(), w.iter().map(keep).collect());
                let xa = Array::from_slice(&xh, &[r, c]).unwrap().astype(dt).unwrap();
                let wa = Array::from_slice(&wh, &[kh, kw]).unwrap().astype(dt).unwrap();
                for b in [Boundary::Fill, Boundary::Wrap, Boundary::Symm] {
                    let got = values(&convolve2d(&xa, &wa, Mode::Same, b, 2).unwrap());
                    let want = host_same(&xh, (r, c), &wh, (kh, kw), b, C::new(2.0, 0.0));
                    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.norm()));
                    let tol = if matches!(dt, DType::F32 | DType::C64) { 1e-5 } else { 1e-12 };
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert!(
                            (g - w).norm() <= tol * scale,
                            "{dt} {b:?} {r}x{c} * {kh}x{kw}: element {i}: {g} != {w}"
                        );
                    }
                }
            }
        }
        // correlate2d is convolve2d with the kernel reversed and conjugated ('full' avoids the
        // centring difference).
        let x =
            Array::from_slice(&(0..120).map(|i| C::new(i as f64, -(i as f64) / 3.0)).collect::<Vec<_>>(), &[10, 12])
                .unwrap();
        let w = Array::from_slice(&[C::new(1.0, 2.0), C::new(0.5, -1.0), C::new(-2.0, 0.0), C::new(0.0, 1.0)], &[2, 2])
            .unwrap();
        let rw = w.slice(&[SliceArg::Range { start: None, stop: None, step: Some(-1) }; 2]).unwrap().conj().unwrap();
        let a = values(&correlate2d(&x, &w, Mode::Full, Boundary::Symm, 0).unwrap());
        let b = values(&convolve2d(&x, &rw, Mode::Full, Boundary::Symm, 0).unwrap());
        for (p, q) in a.iter().zip(&b) {
            assert!((p - q).norm() <= 1e-12 * q.norm().max(1.0), "{p} != {q}");
        }
    });
}

/// `f` run on `d` and on the CPU, the two results' values (float64) and dtypes.
fn on_both(d: &Arc<dyn DynDevice>, f: impl Fn() -> Array) -> ((Vec<f64>, DType), (Vec<f64>, DType)) {
    let cpu = device("cpu").unwrap();
    let run = |dev: &Arc<dyn DynDevice>| {
        with_device(dev, || {
            let a = f();
            (a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap(), a.dtype())
        })
    };
    (run(d), run(&cpu))
}

fn agree(what: &str, (here, there): ((Vec<f64>, DType), (Vec<f64>, DType)), rtol: f64) {
    assert_eq!(here.1, there.1, "{what}: dtype");
    assert_eq!(here.0.len(), there.0.len(), "{what}: size");
    let scale = there.0.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (h, t)) in here.0.iter().zip(&there.0).enumerate() {
        assert!((h - t).abs() <= rtol * scale, "{what}[{i}]: {h} here, {t} on the CPU");
    }
}

/// The symmetric IIR filters, the 2-d B-spline functions and Gustafsson's `filtfilt` give the
/// CPU's values on any device (float64 and float32, lines along either axis).
pub fn spline_filters_and_gustafsson_filtfilt_match_the_cpu(d: &Arc<dyn DynDevice>) {
    let sig: Vec<f64> = (0..300).map(|i| (i as f64 * 0.21).sin() + 0.01 * i as f64).collect();
    let img: Vec<f64> = (0..40 * 44).map(|k| ((k / 44) as f64 * 0.3).sin() + ((k % 44) as f64 * 0.2).cos()).collect();
    for dt in [DType::F64, DType::F32] {
        let tol = if dt == DType::F64 { 1e-12 } else { 1e-5 };
        let x = || Array::from_slice(&sig, &[300]).unwrap().astype(dt).unwrap();
        let rows = || Array::from_slice(&sig, &[3, 100]).unwrap().astype(dt).unwrap();
        let im = || Array::from_slice(&img, &[40, 44]).unwrap().astype(dt).unwrap();
        agree("symiirorder1", on_both(d, || signal::symiirorder1(&rows(), 0.5, 0.3, -1.0).unwrap()), tol);
        agree("symiirorder2", on_both(d, || signal::symiirorder2(&x(), 0.5, 0.4, -1.0).unwrap()), tol);
        agree("cspline2d", on_both(d, || signal::cspline2d(&im(), 0.0, -1.0).unwrap()), tol);
        agree("cspline2d smoothing", on_both(d, || signal::cspline2d(&im(), 5.0, -1.0).unwrap()), tol);
        agree("qspline2d", on_both(d, || signal::qspline2d(&im(), 0.0, -1.0).unwrap()), tol);
        agree("spline_filter", on_both(d, || signal::spline_filter(&im(), 5.0).unwrap()), tol);
        let (b, a) = (
            || Array::from_slice(&[0.0317, 0.0951, 0.0951, 0.0317], &[4]).unwrap().astype(dt).unwrap(),
            || Array::from_slice(&[1.0, -1.459, 0.9104, -0.1978], &[4]).unwrap().astype(dt).unwrap(),
        );
        for irlen in [None, Some(40)] {
            let m = signal::FiltfiltMethod::Gust { irlen };
            agree("filtfilt gust", on_both(d, || signal::filtfilt(&b(), &a(), &x(), -1, None, None, m).unwrap()), tol);
            agree(
                "filtfilt gust axis 0",
                on_both(d, || signal::filtfilt(&b(), &a(), &rows().t(), 0, None, None, m).unwrap()),
                tol,
            );
        }
    }
}

/// `lfilter` (with `zi`, along either axis, orders 1 to 8), `sosfilt`, `filtfilt` and
/// `sosfiltfilt` give the CPU's sequential values on any device (GPUs run the blocked scan),
/// float64 to 1e-12 and float32 to 1e-4 of the largest output; the blocked scan forced on the
/// device itself agrees too. The lengths give several levels of the block scan.
pub fn iir_filters_match_the_cpu(d: &Arc<dyn DynDevice>) {
    use signal::design::{BType, Filter, Output};
    let noise = |n: usize, seed: u64| -> Vec<f64> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
            })
            .collect()
    };
    for (lines, n) in [(3usize, 5000usize), (1, 200_003)] {
        let sig = noise(lines * n, n as u64);
        for dt in [DType::F64, DType::F32] {
            let tol = if dt == DType::F64 { 1e-12 } else { 1e-4 };
            let x = || Array::from_slice(&sig, &[lines, n]).unwrap().astype(dt).unwrap();
            for order in [1usize, 2, 5, 8] {
                let Filter::Ba(b, a) =
                    signal::butter(order, &[0.1 + 0.03 * order as f64], BType::Lowpass, false, Output::Ba, None)
                        .unwrap()
                else {
                    unreachable!()
                };
                let zi = noise(lines * order, 5);
                // The designs are made on the CPU: each call moves them to the device it runs on.
                let here = |c: &Array| c.astype(dt).unwrap().to_device(&current_device().unwrap()).unwrap();
                let (b, a) = (|| here(&b), || here(&a));
                let z = || Array::from_slice(&zi, &[lines, order]).unwrap().astype(dt).unwrap();
                let what = format!("lfilter {lines}x{n} order {order} {dt}");
                agree(&what, on_both(d, || signal::lfilter(&b(), &a(), &x(), -1, Some(&z())).unwrap().0), tol);
                agree(
                    &format!("{what} zf"),
                    on_both(d, || signal::lfilter(&b(), &a(), &x(), -1, Some(&z())).unwrap().1.unwrap()),
                    tol,
                );
                agree(
                    &format!("{what} axis 0"),
                    on_both(d, || signal::lfilter(&b(), &a(), &x().t(), 0, None).unwrap().0),
                    tol,
                );
                let forced = with_device(d, || {
                    let m = signal::IirMethod::Blocked { block: Some(32) };
                    let y = signal::lfilter_with(&b(), &a(), &x(), -1, Some(&z()), m).unwrap().0;
                    (y.astype(DType::F64).unwrap().to_vec::<f64>().unwrap(), y.dtype())
                });
                let seq = with_device(d, || {
                    let y = signal::lfilter_with(&b(), &a(), &x(), -1, Some(&z()), signal::IirMethod::Sequential)
                        .unwrap()
                        .0;
                    (y.astype(DType::F64).unwrap().to_vec::<f64>().unwrap(), y.dtype())
                });
                agree(&format!("{what} blocked here"), (forced, seq), tol);
            }
            let Filter::Sos(sos) = signal::butter(6, &[0.1, 0.3], BType::Bandpass, false, Output::Sos, None).unwrap()
            else {
                unreachable!()
            };
            let here = |c: &Array| c.astype(dt).unwrap().to_device(&current_device().unwrap()).unwrap();
            let s = || here(&sos);
            agree("sosfilt", on_both(d, || signal::sosfilt(&s(), &x(), -1, None).unwrap().0), tol);
            let pad = Some(signal::PadType::Odd);
            agree("sosfiltfilt", on_both(d, || signal::sosfiltfilt(&s(), &x(), -1, pad, None).unwrap()), tol);
            let Filter::Ba(b4, a4) = signal::butter(4, &[0.2], BType::Lowpass, false, Output::Ba, None).unwrap() else {
                unreachable!()
            };
            let m = signal::FiltfiltMethod::Pad;
            agree(
                "filtfilt",
                on_both(d, || signal::filtfilt(&here(&b4), &here(&a4), &x(), -1, pad, None, m).unwrap()),
                tol,
            );
        }
    }
}
