//! Binning (`bincount`, `histogram`, `histogram2d`, `histogramdd`, `digitize`, `interp`), the
//! float-bit functions (`nextafter`, `spacing`, `i0`, `kaiser`) and `put_along_axis` on the
//! CPU backend: expected values made by NumPy 2.4 (the call is in each comment), and each bad
//! input's error.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn arr<T: Element>(dev: &Arc<dyn xp_backend_api::DynDevice>, v: &[T]) -> Array {
    Array::from_slice_on(dev, v, &[v.len()]).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn i64s(a: &Array) -> Vec<i64> {
    assert_eq!(a.dtype(), DType::I64);
    a.to_vec::<i64>().unwrap()
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * w.abs().max(1e-300);
        assert!(ok, "element {i}: {g} != {w}");
    }
}

/// A deterministic pseudo-random sequence in `[0, 1)`.
fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

#[test]
fn bincount_counts_and_sums_weights() {
    let dev = cpu();
    let x = arr(&dev, &[0i64, 1, 1, 3, 2, 1, 7]);
    // np.bincount(x)
    assert_eq!(i64s(&bincount(&x, None, 0).unwrap()), [1, 3, 1, 1, 0, 0, 0, 1]);
    // np.bincount(x, minlength=10)
    assert_eq!(i64s(&bincount(&x, None, 10).unwrap()), [1, 3, 1, 1, 0, 0, 0, 1, 0, 0]);
    // np.bincount(x, weights=w)
    let w = arr(&dev, &[0.3, 0.5, 0.2, 0.7, 1.0, -0.6, 0.25]);
    let s = bincount(&x, Some(&w), 0).unwrap();
    assert_eq!(s.dtype(), DType::F64);
    close(&f64s(&s), &[0.3, 0.09999999999999998, 1.0, 0.7, 0.0, 0.0, 0.0, 0.25], 1e-15);
    // Other integer dtypes and bool are counted too; an empty x gives minlength zeros.
    assert_eq!(i64s(&bincount(&arr(&dev, &[2u8, 0, 2]), None, 0).unwrap()), [1, 0, 2]);
    assert_eq!(i64s(&bincount(&arr(&dev, &[true, false, true]), None, 0).unwrap()), [1, 2]);
    assert_eq!(i64s(&bincount(&arr::<i32>(&dev, &[]), None, 3).unwrap()), [0, 0, 0]);
}

#[test]
fn bincount_with_many_bins_uses_global_atomics_and_agrees_with_the_host() {
    let dev = cpu();
    for nb in [300usize, 20_000] {
        let v: Vec<i64> = uniform(50_000, nb as u64).iter().map(|u| (u * nb as f64) as i64).collect();
        let w: Vec<f64> = uniform(50_000, 7).iter().map(|u| u - 0.5).collect();
        let (mut counts, mut sums) = (vec![0i64; nb], vec![0f64; nb]);
        for (&k, &wk) in v.iter().zip(&w) {
            counts[k as usize] += 1;
            sums[k as usize] += wk;
        }
        let x = arr(&dev, &v);
        let got = i64s(&bincount(&x, None, nb).unwrap());
        assert_eq!(got, counts, "{nb} bins");
        let got = f64s(&bincount(&x, Some(&arr(&dev, &w)), nb).unwrap());
        for (g, s) in got.iter().zip(&sums) {
            assert!((g - s).abs() <= 1e-9, "{nb} bins: {g} vs {s}");
        }
    }
}

#[test]
fn bincount_refuses_what_numpy_refuses() {
    let dev = cpu();
    // np.bincount([1, -1]): ValueError
    assert!(matches!(bincount(&arr(&dev, &[1i64, -1]), None, 0), Err(Error::Value { .. })));
    // float input: TypeError (cannot cast safely)
    assert!(matches!(bincount(&arr(&dev, &[1.0f64]), None, 0), Err(Error::DType { .. })));
    // 2-d input: ValueError (object too deep)
    let m = Array::from_slice_on(&dev, &[0i64, 1, 2, 3], &[2, 2]).unwrap();
    assert!(matches!(bincount(&m, None, 0), Err(Error::Value { .. })));
    // weights of another length
    let e = bincount(&arr(&dev, &[0i64, 1]), Some(&arr(&dev, &[1.0])), 0).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    assert!(e.to_string().contains("bincount"), "{e}");
}

#[test]
fn histogram_matches_numpy() {
    let dev = cpu();
    let a = arr(&dev, &[0.5, 2.25, -1.0, 3.0, 3.0, 1.0, 7.5, 2.0, f64::NAN]);
    // np.histogram(a, bins=4, range=(0, 3)): outside values and NaN ignored, 3.0 in the last bin
    let (h, e) = histogram(&a, Bins::Count(4), Some((0.0, 3.0)), false, None).unwrap();
    assert_eq!(i64s(&h), [1, 1, 1, 3]);
    assert_eq!(f64s(&e), [0.0, 0.75, 1.5, 2.25, 3.0]);
    // np.histogram(b, bins=5)
    let b = arr(&dev, &[0.5, 2.25, -1.0, 3.0, 3.0, 1.0, 7.5, 2.0]);
    let (h, e) = histogram(&b, Bins::Count(5), None, false, None).unwrap();
    assert_eq!(i64s(&h), [2, 3, 2, 0, 1]);
    close(&f64s(&e), &[-1.0, 0.7, 2.4, 4.1, 5.8, 7.5], 1e-15);
    // np.histogram(b, bins=5, density=True)
    let (h, _) = histogram(&b, Bins::Count(5), None, true, None).unwrap();
    assert_eq!(h.dtype(), DType::F64);
    close(&f64s(&h), &[0.14705882352941177, 0.22058823529411764, 0.1470588235294118, 0.0, 0.07352941176470587], 1e-14);
    // np.histogram(b, bins=3, weights=float32 1..8): float32 sums
    let w = arr(&dev, &[1f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let (h, _) = histogram(&b, Bins::Count(3), None, false, Some(&w)).unwrap();
    assert_eq!(h.dtype(), DType::F32);
    assert_eq!(f64s(&h), [10.0, 19.0, 7.0]);
    // np.histogram(b, bins=[-1, 0, 1, 1, 2.5, 3]): repeated edges allowed
    let edges = arr(&dev, &[-1.0, 0.0, 1.0, 1.0, 2.5, 3.0]);
    let (h, e) = histogram(&b, Bins::Edges(&edges), None, false, None).unwrap();
    assert_eq!(i64s(&h), [1, 1, 0, 3, 2]);
    assert_eq!(f64s(&e), f64s(&edges));
    // np.histogram(b, bins=[-1, 0, 1, 2.5, 3], density=True)
    let edges = arr(&dev, &[-1.0, 0.0, 1.0, 2.5, 3.0]);
    let (h, _) = histogram(&b, Bins::Edges(&edges), None, true, None).unwrap();
    close(&f64s(&h), &[0.14285714285714285, 0.14285714285714285, 0.2857142857142857, 0.5714285714285714], 1e-14);
    // np.histogram(int32 [3 1 4 1 5 9 2 6], bins=4): float64 edges
    let xi = arr(&dev, &[3i32, 1, 4, 1, 5, 9, 2, 6]);
    let (h, e) = histogram(&xi, Bins::Count(4), None, false, None).unwrap();
    assert_eq!(i64s(&h), [3, 2, 2, 1]);
    assert_eq!(e.dtype(), DType::F64);
    assert_eq!(f64s(&e), [1.0, 3.0, 5.0, 7.0, 9.0]);
    assert_eq!(f64s(&histogram_bin_edges(&xi, Bins::Count(4), None, None).unwrap()), [1.0, 3.0, 5.0, 7.0, 9.0]);
}

#[test]
fn histogram_of_many_bins_agrees_with_the_host() {
    let dev = cpu();
    let v = uniform(40_000, 3);
    let a = arr(&dev, &v);
    for nb in [37usize, 9000] {
        // Equal bins over [0, 1]: the host bins by the edges themselves.
        let (h, e) = histogram(&a, Bins::Count(nb), Some((0.0, 1.0)), false, None).unwrap();
        let e = f64s(&e);
        let mut want = vec![0i64; nb];
        for &x in &v {
            let k = e.partition_point(|&b| b <= x).saturating_sub(1).min(nb - 1);
            want[k] += 1;
        }
        assert_eq!(i64s(&h), want, "{nb} equal bins");
        // The same edges given as an array.
        let (h2, _) = histogram(&a, Bins::Edges(&arr(&dev, &e)), None, false, None).unwrap();
        assert_eq!(i64s(&h2), want, "{nb} edges");
    }
}

#[test]
fn histogram_refuses_what_numpy_refuses() {
    let dev = cpu();
    let a = arr(&dev, &[1.0, 2.0, 3.0]);
    let e = histogram(&a, Bins::Edges(&arr(&dev, &[0.0, 2.0, 1.0])), None, false, None).unwrap_err();
    assert!(matches!(e, Error::Value { .. }) && e.to_string().contains("monotonically"), "{e}");
    assert!(matches!(histogram(&a, Bins::Count(0), None, false, None), Err(Error::Value { .. })));
    assert!(matches!(histogram(&a, Bins::Count(3), Some((2.0, 1.0)), false, None), Err(Error::Value { .. })));
    let nan = arr(&dev, &[1.0, f64::NAN]);
    assert!(matches!(histogram(&nan, Bins::Count(3), None, false, None), Err(Error::Value { .. })));
    let w = arr(&dev, &[1.0, 2.0]);
    assert!(matches!(histogram(&a, Bins::Count(3), None, false, Some(&w)), Err(Error::ShapeMismatch { .. })));
    let m = Array::from_slice_on(&dev, &[0.0, 1.0, 2.0, 3.0], &[2, 2]).unwrap();
    assert!(matches!(histogram(&a, Bins::Edges(&m), None, false, None), Err(Error::Value { .. })));
}

#[test]
fn histogram2d_and_histogramdd_match_numpy() {
    let dev = cpu();
    let x = arr(&dev, &[0.1, 0.5, 0.9, 0.5, 0.2, 1.0]);
    let y = arr(&dev, &[0.3, 0.3, 0.8, 0.9, 0.1, 1.0]);
    // np.histogram2d(x, y, bins=2)
    let (h, ex, ey) = histogram2d(&x, &y, [Bins::Count(2), Bins::Count(2)], None, false, None).unwrap();
    assert_eq!(h.dtype(), DType::F64);
    assert_eq!(h.shape(), [2, 2]);
    assert_eq!(f64s(&h), [3.0, 1.0, 0.0, 2.0]);
    close(&f64s(&ex), &[0.1, 0.55, 1.0], 1e-15);
    close(&f64s(&ey), &[0.1, 0.55, 1.0], 1e-15);
    // np.histogram2d(x, y, bins=[2, 3], range=[[0, 1], [0, 0.9]])
    let (h, _, _) =
        histogram2d(&x, &y, [Bins::Count(2), Bins::Count(3)], Some([(0.0, 1.0), (0.0, 0.9)]), false, None).unwrap();
    assert_eq!(f64s(&h), [1.0, 1.0, 0.0, 0.0, 1.0, 2.0]);
    // np.histogramdd(np.stack([x, y, x*y], 1), bins=(2, 2, 2))
    let xy = x.mul(&y).unwrap();
    let s = stack(&[&x, &y, &xy], 1).unwrap();
    let (h, e) = histogramdd(&s, &[Bins::Count(2); 3], None, false, None).unwrap();
    assert_eq!(h.shape(), [2, 2, 2]);
    assert_eq!(e.len(), 3);
    assert_eq!(f64s(&h), [3.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
    let bad = arr(&dev, &[1.0]);
    assert!(histogram2d(&x, &bad, [Bins::Count(2), Bins::Count(2)], None, false, None).is_err());
}

#[test]
fn digitize_handles_increasing_and_decreasing_bins() {
    let dev = cpu();
    let x = arr(&dev, &[0.2, 6.4, 3.0, 1.6, -1.0, 10.0, 1.0, f64::NAN]);
    let inc = arr(&dev, &[0.0, 1.0, 2.5, 4.0, 10.0]);
    let dec = arr(&dev, &[10.0, 4.0, 2.5, 1.0, 0.0]);
    // np.digitize(x, inc), right=True, and the same for bins[::-1]
    assert_eq!(i64s(&digitize(&x, &inc, false).unwrap()), [1, 4, 3, 2, 0, 5, 2, 5]);
    assert_eq!(i64s(&digitize(&x, &inc, true).unwrap()), [1, 4, 3, 2, 0, 4, 1, 5]);
    assert_eq!(i64s(&digitize(&x, &dec, false).unwrap()), [4, 1, 2, 3, 5, 0, 3, 0]);
    assert_eq!(i64s(&digitize(&x, &dec, true).unwrap()), [4, 1, 2, 3, 5, 1, 4, 0]);
    // Integer input, 2-d shape kept.
    let xi = Array::from_slice_on(&dev, &[0i32, 1, 3, 11], &[2, 2]).unwrap();
    let d = digitize(&xi, &inc, false).unwrap();
    assert_eq!(d.shape(), [2, 2]);
    assert_eq!(i64s(&d), [1, 2, 3, 5]);
    let e = digitize(&x, &arr(&dev, &[0.0, 2.0, 1.0]), false).unwrap_err();
    assert!(matches!(e, Error::Value { .. }) && e.to_string().contains("monoton"), "{e}");
    let z = arr(&dev, &[1.0, 0.0]).astype(DType::C128).unwrap();
    assert!(digitize(&z, &inc, false).is_err());
}

#[test]
fn interp_matches_numpy() {
    let dev = cpu();
    let (xp, fp) = (arr(&dev, &[1.0, 2.0, 3.0]), arr(&dev, &[3.0, 2.0, 0.0]));
    let q = arr(&dev, &[0.0, 1.0, 1.5, 2.72, 3.0, 3.25, f64::NAN]);
    // np.interp(q, xp, fp); with left=-99, right=99
    let want = [3.0, 3.0, 2.5, 0.5599999999999996, 0.0, 0.0, f64::NAN];
    close(&f64s(&interp(&q, &xp, &fp, None, None).unwrap()), &want, 0.0);
    let want = [-99.0, 3.0, 2.5, 0.5599999999999996, 0.0, 99.0, f64::NAN];
    close(&f64s(&interp(&q, &xp, &fp, Some(-99.0), Some(99.0)).unwrap()), &want, 0.0);
    // One sample point: np.interp(q, [2.0], [5.0]) (NaN stays NaN here)
    let one = interp(&q, &arr(&dev, &[2.0]), &arr(&dev, &[5.0]), None, None).unwrap();
    close(&f64s(&one)[..6], &[5.0; 6], 0.0);
    // float32 input answers float64
    let q32 = arr(&dev, &[1.5f32]);
    assert_eq!(interp(&q32, &xp, &fp, None, None).unwrap().dtype(), DType::F64);
    assert!(matches!(interp(&q, &xp, &arr(&dev, &[1.0, 2.0]), None, None), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(interp(&q, &arr::<f64>(&dev, &[]), &arr::<f64>(&dev, &[]), None, None), Err(Error::Value { .. })));
    // np.interp(x, xp, fp, period=360) with xp out of order and beyond one period.
    let x = arr(&dev, &[-180.0, -170.0, -185.0, 185.0, -10.0, -5.0, 0.0, 365.0]);
    let (xp, fp) = (arr(&dev, &[190.0, -190.0, 350.0, -350.0]), arr(&dev, &[5.0, 10.0, 3.0, 4.0]));
    let want = [7.5, 5.0, 8.75, 6.25, 3.0, 3.25, 3.5, 3.75];
    close(&f64s(&interp_periodic(&x, &xp, &fp, 360.0).unwrap()), &want, 1e-15);
    close(&f64s(&interp_periodic(&x, &xp, &fp, -360.0).unwrap()), &want, 1e-15);
    assert!(matches!(interp_periodic(&x, &xp, &fp, 0.0), Err(Error::Value { .. })));
}

#[test]
fn nextafter_and_spacing_match_numpy_bit_for_bit() {
    let dev = cpu();
    let big = f64::MAX;
    let v = arr(&dev, &[0.0, -0.0, 1.0, -1.0, 1e300, big, 5e-324]);
    let t = arr(&dev, &[1.0, -1.0, 2.0, 0.0, f64::INFINITY, f64::INFINITY, 0.0]);
    // np.nextafter(v, t)
    let want = [5e-324, -5e-324, 1.0000000000000002, -0.9999999999999999, 1.0000000000000002e+300, f64::INFINITY, 0.0];
    assert_eq!(f64s(&nextafter(&v, &t).unwrap()), want);
    // float16: np.nextafter([0, 1, -2, 65504], [1, 0, -3, inf])
    let h = arr(&dev, &[0.0f32, 1.0, -2.0, 65504.0]).astype(DType::F16).unwrap();
    let ht = arr(&dev, &[1.0f32, 0.0, -3.0, f32::INFINITY]).astype(DType::F16).unwrap();
    let r = nextafter(&h, &ht).unwrap();
    assert_eq!(r.dtype(), DType::F16);
    assert_eq!(f64s(&r), [5.960464477539063e-08, 0.99951171875, -2.001953125, f64::INFINITY]);
    // float32, broadcast against a scalar array
    let r = nextafter(&arr(&dev, &[1.0f32, 0.0]), &Array::scalar_on(&dev, -1.0, DType::F32).unwrap()).unwrap();
    assert_eq!(f64s(&r), [0.9999999403953552, -1.401298464324817e-45]);
    assert!(nextafter(&v, &arr(&dev, &[1.0, 2.0])).is_err());
    // np.spacing
    let s = spacing(&arr(&dev, &[0.0, 1.0, -1.0, 1e10, big])).unwrap();
    assert_eq!(f64s(&s), [5e-324, 2.220446049250313e-16, -2.220446049250313e-16, 1.9073486328125e-06, f64::INFINITY]);
    // float16, as NumPy's `npy_half_spacing`: towards +inf, never negative
    let h = arr(&dev, &[0.0f32, 1.0, -2.0, -3.0, -0.0, 1000.0, -65504.0, 65504.0]).astype(DType::F16).unwrap();
    let want = [5.960464477539063e-08, 0.0009765625, 0.0009765625, 0.001953125, 5.960464477539063e-08, 0.5, 32.0];
    let got = f64s(&spacing(&h).unwrap());
    assert_eq!(got[..7], want);
    assert_eq!(got[7], f64::INFINITY);
    let s = spacing(&arr(&dev, &[1.0f32, -3.5])).unwrap();
    assert_eq!(f64s(&s), [1.1920928955078125e-07, -2.384185791015625e-07]);
    let s = spacing(&arr(&dev, &[f64::NAN, f64::INFINITY])).unwrap();
    assert!(f64s(&s).iter().all(|v| v.is_nan()));
    let z = arr(&dev, &[1.0]).astype(DType::C128).unwrap();
    assert!(matches!(spacing(&z), Err(Error::UnsupportedDType { .. })));
}

#[test]
fn i0_and_kaiser_match_numpy() {
    let dev = cpu();
    // np.i0([0, 1, -2.5, 8, 9, 30])
    let r = i0(&arr(&dev, &[0.0, 1.0, -2.5, 8.0, 9.0, 30.0])).unwrap();
    let want = [1.0, 1.2660658777520082, 3.289839144050123, 427.56411572180474, 1093.5883545113745, 781672297823.9775];
    close(&f64s(&r), &want, 4.0 * f64::EPSILON);
    // float32 stays float32; integers become float64
    let r = i0(&arr(&dev, &[0.5f32, 12.0])).unwrap();
    assert_eq!(r.dtype(), DType::F32);
    close(&f64s(&r), &[1.063483476638794, 18948.921875], 4.0 * f32::EPSILON as f64);
    assert_eq!(i0(&arr(&dev, &[1i32])).unwrap().dtype(), DType::F64);
    // np.kaiser(7, 14.0), np.kaiser(4, 0.0)
    let want = [
        7.726866835270368e-06,
        0.0328855259778678,
        0.46271649780079116,
        1.0,
        0.46271649780079116,
        0.0328855259778678,
        7.726866835270368e-06,
    ];
    close(&f64s(&with_device(&dev, || kaiser(7, 14.0)).unwrap()), &want, 16.0 * f64::EPSILON);
    close(&f64s(&with_device(&dev, || kaiser(4, 0.0)).unwrap()), &[1.0; 4], 0.0);
    assert_eq!(with_device(&dev, || kaiser(0, 1.0)).unwrap().size(), 0);
}

#[test]
fn put_along_axis_writes_in_place_as_numpy() {
    let dev = cpu();
    let base: Vec<f64> = (0..12).map(|i| i as f64).collect();
    let a = Array::from_slice_on(&dev, &base, &[3, 4]).unwrap();
    // np.put_along_axis(a, [[1], [0], [3]], [[10], [20], [30]], axis=1)
    let idx = Array::from_slice_on(&dev, &[1i64, 0, 3], &[3, 1]).unwrap();
    let v = Array::from_slice_on(&dev, &[10.0, 20.0, 30.0], &[3, 1]).unwrap();
    put_along_axis(&a, &idx, &v, Some(1)).unwrap();
    assert_eq!(f64s(&a), [0.0, 10.0, 2.0, 3.0, 20.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 30.0]);
    // np.put_along_axis(a, [[0, 2, 2, 1]], -1.0, axis=0)
    let a = Array::from_slice_on(&dev, &base, &[3, 4]).unwrap();
    let idx = Array::from_slice_on(&dev, &[0i32, 2, 2, 1], &[1, 4]).unwrap();
    put_along_axis(&a, &idx, &Array::scalar_on(&dev, -1.0, DType::F64).unwrap(), Some(0)).unwrap();
    assert_eq!(f64s(&a), [-1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -1.0, 8.0, -1.0, -1.0, 11.0]);
    // np.put_along_axis(a, [11, -12], [5, 6], axis=None)
    let a = Array::from_slice_on(&dev, &base, &[3, 4]).unwrap();
    put_along_axis(&a, &arr(&dev, &[11i64, -12]), &arr(&dev, &[5.0, 6.0]), None).unwrap();
    assert_eq!(f64s(&a), [6.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 5.0]);
    // Bad inputs: float indices, out of bounds (nothing written), wrong rank.
    let a = Array::from_slice_on(&dev, &base, &[3, 4]).unwrap();
    let fidx = Array::from_slice_on(&dev, &[1.0, 0.0, 3.0], &[3, 1]).unwrap();
    assert!(matches!(put_along_axis(&a, &fidx, &v, Some(1)), Err(Error::DType { .. })));
    let oob = Array::from_slice_on(&dev, &[1i64, 4, 0], &[3, 1]).unwrap();
    let e = put_along_axis(&a, &oob, &v, Some(1)).unwrap_err();
    assert!(matches!(e, Error::Index { .. }) && e.to_string().contains("put_along_axis"), "{e}");
    assert_eq!(f64s(&a), base);
    assert!(matches!(put_along_axis(&a, &arr(&dev, &[0i64]), &v, Some(1)), Err(Error::ShapeMismatch { .. })));
}
