//! `xp::fft` on the CPU backend beyond the NumPy conformance cases: every layout path of a
//! 1-d transform against a naive DFT, the N-d plans, the plan cache, and each bad input's
//! error. Serial: the tests share the CPU device's plan cache, whose counts one of them checks.

use std::sync::Arc;

use num_complex::Complex;
use serial_test::serial;
use xp_array::fft;
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

type C = Complex<f64>;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn signal(n: usize, seed: u64) -> Vec<C> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            C::new((s >> 40) as f64 / (1u64 << 24) as f64 - 0.5, (s >> 20 & 0xfffff) as f64 / (1u64 << 20) as f64 - 0.5)
        })
        .collect()
}

/// The DFT of `x` (sign -1 forward).
fn dft(x: &[C], forward: bool) -> Vec<C> {
    let n = x.len();
    let sign = if forward { -1.0 } else { 1.0 };
    (0..n)
        .map(|k| {
            x.iter().enumerate().fold(C::new(0.0, 0.0), |acc, (j, &v)| {
                let t = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                acc + v * C::new(t.cos(), t.sin())
            })
        })
        .collect()
}

fn assert_close(got: &[C], want: &[C], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).norm() <= tol * (1.0 + w.norm()), "element {i}: {g} != {w}");
    }
}

/// `fft` along axis 1 of a (outer, n, inner) array, against the DFT of each column.
fn check_middle_axis(outer: usize, n: usize, inner: usize) {
    let v = signal(outer * n * inner, 3);
    let a = Array::from_slice(&v, &[outer, n, inner]).unwrap();
    let got = fft::fft(&a, None, 1, None).unwrap();
    assert_eq!(got.shape(), &[outer, n, inner]);
    let got = got.ascontiguous().unwrap().to_vec::<C>().unwrap();
    for o in 0..outer {
        for j in 0..inner {
            let col: Vec<C> = (0..n).map(|k| v[(o * n + k) * inner + j]).collect();
            let want = dft(&col, true);
            let g: Vec<C> = (0..n).map(|k| got[(o * n + k) * inner + j]).collect();
            assert_close(&g, &want, 1e-10);
        }
    }
}

#[test]
#[serial]
fn a_middle_axis_is_transformed_by_every_layout_path() {
    with_device(&cpu(), || {
        check_middle_axis(3, 12, 5); // looped strided plan
        check_middle_axis(20, 7, 3); // moved last by a copy
        check_middle_axis(1, 9, 4); // one strided plan
    });
}

#[test]
#[serial]
fn a_strided_view_and_padding_and_truncation_follow_numpy() {
    with_device(&cpu(), || {
        let v = signal(40, 5);
        let a = Array::from_slice(&v, &[40]).unwrap();
        let every_other = a.slice(&[SliceArg::range(0, 40, 2)]).unwrap();
        let want: Vec<C> = v.iter().step_by(2).cloned().collect();
        let got = fft::fft(&every_other, None, -1, None).unwrap().to_vec::<C>().unwrap();
        assert_close(&got, &dft(&want, true), 1e-10);
        // n = 25 pads with zeros; n = 8 keeps the first 8.
        let mut padded = v.clone();
        padded.resize(48, C::new(0.0, 0.0));
        let got = fft::fft(&a, Some(48), 0, None).unwrap().to_vec::<C>().unwrap();
        assert_close(&got, &dft(&padded, true), 1e-10);
        let got = fft::ifft(&a, Some(8), 0, Some("ortho")).unwrap().to_vec::<C>().unwrap();
        let want: Vec<C> = dft(&v[..8], false).iter().map(|z| z / 8f64.sqrt()).collect();
        assert_close(&got, &want, 1e-10);
    });
}

#[test]
#[serial]
fn real_transforms_round_trip_and_keep_single_precision() {
    with_device(&cpu(), || {
        let v: Vec<f32> = signal(30, 7).iter().map(|z| z.re as f32).collect();
        let a = Array::from_slice(&v, &[5, 6]).unwrap();
        let h = fft::rfft2(&a, None, None, None).unwrap();
        assert_eq!((h.dtype(), h.shape()), (DType::C64, &[5usize, 4][..]));
        let back = fft::irfft2(&h, Some(&[5, 6]), None, None).unwrap();
        assert_eq!(back.dtype(), DType::F32);
        let got = back.to_vec::<f32>().unwrap();
        assert!(got.iter().zip(&v).all(|(g, w)| (g - w).abs() < 1e-5), "{got:?} != {v:?}");
        // An axis other than the last as the real one, and ihfft/hfft as inverses.
        let r = fft::rfftn(&a, None, Some(&[1, 0]), None).unwrap();
        assert_eq!(r.shape(), &[3, 6]);
        let b = fft::irfftn(&r, Some(&[6, 5]), Some(&[1, 0]), None).unwrap();
        assert!(b.to_vec::<f32>().unwrap().iter().zip(&v).all(|(g, w)| (g - w).abs() < 1e-5));
        let x = Array::from_slice(&v[..6], &[6]).unwrap().astype(DType::F64).unwrap();
        let round = fft::hfft(&fft::ihfft(&x, None, -1, None).unwrap(), Some(6), -1, None).unwrap();
        let got = round.to_vec::<f64>().unwrap();
        assert!(got.iter().zip(&v[..6]).all(|(g, &w)| (g - w as f64).abs() < 1e-6), "{got:?}");
    });
}

#[test]
#[serial]
fn bad_input_is_a_clear_error() {
    with_device(&cpu(), || {
        let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let kind = |r: Result<Array>| r.unwrap_err().kind();
        // NumPy's AxisError is a ValueError: xp's `Axis` errors have the kind `Value`.
        let axis_error = |r: Result<Array>| matches!(r, Err(Error::Axis { .. }));
        assert_eq!(kind(fft::fft(&a, Some(0), -1, None)), "Value");
        assert!(axis_error(fft::fft(&a, None, 2, None)));
        assert!(axis_error(fft::fft(&a, None, -3, None)));
        assert_eq!(kind(fft::fft(&a, None, -1, Some("sideways"))), "Value");
        assert_eq!(kind(fft::fftn(&a, Some(&[2, 0]), None, None)), "Value");
        assert_eq!(kind(fft::fftn(&a, Some(&[2, 2]), Some(&[0]), None)), "Value");
        let c = a.astype(DType::C64).unwrap();
        assert_eq!(kind(fft::rfft(&c, None, -1, None)), "DType");
        let empty = zeros(&[0], DType::F32).unwrap();
        assert_eq!(kind(fft::fft(&empty, None, -1, None)), "Value");
        assert_eq!(kind(fft::irfft(&Array::from_slice(&[1.0f32], &[1]).unwrap(), None, -1, None)), "Value");
        let scalar = Array::from_slice(&[1.0f32], &[]).unwrap();
        assert!(axis_error(fft::fft(&scalar, None, -1, None)));
        let msg = fft::fft(&a, None, 5, None).unwrap_err().to_string();
        assert!(msg.contains("fft"), "{msg}");
        // An empty transform length with n given is fine (NumPy pads).
        let padded = fft::fft(&empty, Some(4), -1, None).unwrap();
        assert_eq!(padded.to_vec::<Complex<f32>>().unwrap(), vec![Complex::new(0.0, 0.0); 4]);
    });
}

#[test]
#[serial]
fn the_plan_cache_keeps_reuses_and_evicts_plans() {
    with_device(&cpu(), || {
        let cache = fft::get_plan_cache().unwrap();
        cache.clear();
        cache.set_size(2);
        let before = cache.stats();
        let x = Array::from_slice(&signal(64, 9), &[64]).unwrap();
        for n in [8, 16, 8, 32] {
            fft::fft(&x, Some(n), -1, None).unwrap();
        }
        let s = cache.stats();
        assert_eq!(s.plans, 2);
        assert_eq!(s.hits - before.hits, 1, "{s:?}");
        assert_eq!(s.misses - before.misses, 3, "{s:?}");
        assert_eq!(s.evictions - before.evictions, 1, "{s:?}");
        assert!(cache.show_info().contains("n=[32]"), "{}", cache.show_info());
        cache.set_size(0);
        assert_eq!(cache.get_curr_size(), 0);
        fft::fft(&x, Some(8), -1, None).unwrap();
        assert_eq!(cache.get_curr_size(), 0);
        cache.set_size(16);
        fft::fft(&x, Some(8), -1, None).unwrap();
        assert_eq!(cache.get_curr_size(), 1);
        cache.clear();
        assert_eq!(cache.get_curr_size(), 0);
    });
}

#[test]
#[serial]
fn frequencies_and_shifts_follow_numpy() {
    with_device(&cpu(), || {
        assert_eq!(fft::fftfreq(5, 0.5).unwrap().to_vec::<f64>().unwrap(), vec![0.0, 0.4, 0.8, -0.8, -0.4]);
        assert_eq!(fft::rfftfreq(4, 1.0).unwrap().to_vec::<f64>().unwrap(), vec![0.0, 0.25, 0.5]);
        let a = arange(0, 5, 1, Some(DType::I64)).unwrap();
        assert_eq!(fft::fftshift(&a, None).unwrap().to_vec::<i64>().unwrap(), vec![3, 4, 0, 1, 2]);
        assert_eq!(fft::ifftshift(&a, None).unwrap().to_vec::<i64>().unwrap(), vec![2, 3, 4, 0, 1]);
        let m = arange(0, 6, 1, Some(DType::I64)).unwrap().reshape(&[2, 3]).unwrap();
        assert_eq!(fft::fftshift(&m, Some(&[1])).unwrap().to_vec::<i64>().unwrap(), vec![2, 0, 1, 5, 3, 4]);
    });
}
