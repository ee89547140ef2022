//! NumPy's routines (`flip`, `roll`, `tile`, `logaddexp`, `isclose`, windows…) on the CPU
//! backend: values checked against answers computed here on the host, and each bad input's
//! error.

use std::f64::consts::PI;
use std::sync::Arc;

use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// `0, 1, …, n-1` as float64 of `shape`.
fn iota(dev: &Arc<dyn xp_backend_api::DynDevice>, shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
    Array::from_slice_on(dev, &v, shape).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * (1.0 + w.abs());
        assert!(ok, "element {i}: {g} != {w}");
    }
}

#[test]
fn flips_rolls_and_rotations_move_elements_as_numpy() {
    let dev = cpu();
    let a = iota(&dev, &[2, 3]);
    assert_eq!(f64s(&flip(&a, Some(&[1])).unwrap()), [2.0, 1.0, 0.0, 5.0, 4.0, 3.0]);
    assert_eq!(f64s(&flip(&a, None).unwrap()), [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]);
    assert_eq!(f64s(&flipud(&a).unwrap()), [3.0, 4.0, 5.0, 0.0, 1.0, 2.0]);
    assert_eq!(f64s(&fliplr(&a).unwrap()), [2.0, 1.0, 0.0, 5.0, 4.0, 3.0]);
    assert_eq!(f64s(&roll(&a, 1, Some(1)).unwrap()), [2.0, 0.0, 1.0, 5.0, 3.0, 4.0]);
    let r = roll(&a, -7, None).unwrap();
    assert_eq!(r.shape(), [2, 3]);
    assert_eq!(f64s(&r), [1.0, 2.0, 3.0, 4.0, 5.0, 0.0]);
    // rot90 of [[0 1 2] [3 4 5]] is [[2 5] [1 4] [0 3]].
    let r = rot90(&a, 1, [0, 1]).unwrap();
    assert_eq!(r.shape(), [3, 2]);
    assert_eq!(f64s(&r), [2.0, 5.0, 1.0, 4.0, 0.0, 3.0]);
    assert_eq!(f64s(&rot90(&a, -1, [0, 1]).unwrap()), [3.0, 0.0, 4.0, 1.0, 5.0, 2.0]);
    assert_eq!(f64s(&rot90(&a, 2, [0, 1]).unwrap()), [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]);
    assert!(matches!(rot90(&a, 1, [1, 1]), Err(Error::Value { .. })));
    assert!(matches!(rot90(&a, 1, [0, 3]), Err(Error::Axis { .. })));
    assert!(matches!(flip(&a, Some(&[2])), Err(Error::Axis { .. })));
    assert!(matches!(roll(&a, 1, Some(-3)), Err(Error::Axis { .. })));
    let v = iota(&dev, &[3]);
    assert!(matches!(fliplr(&v), Err(Error::Value { .. })));
}

#[test]
fn repeats_tiles_and_axis_moves_have_numpys_shapes() {
    let dev = cpu();
    let a = iota(&dev, &[2, 2]);
    assert_eq!(f64s(&repeat(&a, 2, Some(1)).unwrap()), [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]);
    let r = repeat(&a, 2, None).unwrap();
    assert_eq!(r.shape(), [8]);
    assert_eq!(f64s(&r), [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]);
    let t = tile(&a, &[2]).unwrap();
    assert_eq!(t.shape(), [2, 4]);
    assert_eq!(f64s(&t), [0.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0, 3.0]);
    assert_eq!(tile(&a, &[2, 1, 1]).unwrap().shape(), [2, 2, 2]);
    let b = iota(&dev, &[2, 3, 4]);
    assert_eq!(moveaxis(&b, &[0], &[-1]).unwrap().shape(), [3, 4, 2]);
    assert_eq!(moveaxis(&b, &[0, 1], &[-1, -2]).unwrap().shape(), [4, 3, 2]);
    assert_eq!(swapaxes(&b, 0, 2).unwrap().shape(), [4, 3, 2]);
    assert!(matches!(moveaxis(&b, &[0], &[1, 2]), Err(Error::Value { .. })));
    assert!(matches!(moveaxis(&b, &[0, 0], &[1, 2]), Err(Error::Axis { .. })));
    assert!(matches!(swapaxes(&b, 0, 3), Err(Error::Axis { .. })));
    assert!(matches!(repeat(&b, 2, Some(3)), Err(Error::Axis { .. })));
    let s = Array::from_slice_on(&dev, &[1.0f64], &[]).unwrap();
    assert_eq!(atleast_1d(&s).unwrap().shape(), [1]);
    assert_eq!(atleast_2d(&iota(&dev, &[3])).unwrap().shape(), [1, 3]);
    assert_eq!(atleast_3d(&iota(&dev, &[3])).unwrap().shape(), [1, 3, 1]);
    assert_eq!(atleast_3d(&a).unwrap().shape(), [2, 2, 1]);
}

#[test]
fn joins_differences_and_triangles() {
    let dev = cpu();
    let a = iota(&dev, &[2, 2]);
    let v = iota(&dev, &[2]);
    assert_eq!(f64s(&append(&a, &v, None).unwrap()), [0.0, 1.0, 2.0, 3.0, 0.0, 1.0]);
    assert!(matches!(append(&a, &v, Some(0)), Err(Error::ShapeMismatch { .. })));
    assert_eq!(hstack(&[&v, &v]).unwrap().shape(), [4]);
    assert_eq!(hstack(&[&a, &a]).unwrap().shape(), [2, 4]);
    assert_eq!(vstack(&[&v, &v]).unwrap().shape(), [2, 2]);
    assert_eq!(dstack(&[&a, &a]).unwrap().shape(), [2, 2, 2]);
    let c = column_stack(&[&v, &a]).unwrap();
    assert_eq!(c.shape(), [2, 3]);
    assert_eq!(f64s(&c), [0.0, 0.0, 1.0, 1.0, 2.0, 3.0]);
    assert!(matches!(vstack(&[]), Err(Error::Value { .. })));
    let sq: Vec<f64> = (0..5).map(|i| (i * i) as f64).collect();
    let sq = Array::from_slice_on(&dev, &sq, &[5]).unwrap();
    assert_eq!(f64s(&diff(&sq, 1, 0).unwrap()), [1.0, 3.0, 5.0, 7.0]);
    assert_eq!(f64s(&diff(&sq, 2, -1).unwrap()), [2.0, 2.0, 2.0]);
    let flags = Array::from_slice_on(&dev, &[true, true, false], &[3]).unwrap();
    let d = diff(&flags, 1, 0).unwrap();
    assert_eq!(d.dtype(), DType::Bool);
    assert_eq!(d.to_vec::<bool>().unwrap(), [false, true]);
    let s = Array::from_slice_on(&dev, &[1.0f64], &[]).unwrap();
    assert!(matches!(diff(&s, 1, 0), Err(Error::Value { .. })));
    let m = iota(&dev, &[3, 3]).add_scalar(1).unwrap();
    assert_eq!(f64s(&tril(&m, 0).unwrap()), [1.0, 0.0, 0.0, 4.0, 5.0, 0.0, 7.0, 8.0, 9.0]);
    assert_eq!(f64s(&triu(&m, 1).unwrap()), [0.0, 2.0, 3.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0]);
    assert_eq!(f64s(&tril(&m, -1).unwrap()), [0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 7.0, 8.0, 0.0]);
    assert!(matches!(tril(&s, 0), Err(Error::Value { .. })));
    let t = with_device(&dev, || tri(2, Some(3), 0, DType::I32)).unwrap();
    assert_eq!(t.dtype(), DType::I32);
    assert_eq!(t.to_vec::<i32>().unwrap(), [1, 0, 0, 1, 1, 0]);
}

#[test]
fn elementwise_math_matches_host_formulas() {
    let dev = cpu();
    let xs = [-3.5f64, -1.0, -0.25, 0.0, 0.5, 2.0, 7.25];
    let ys = [2.0f64, -0.75, 1.5, 3.0, -2.0, 0.3, 2.5];
    let x = Array::from_slice_on(&dev, &xs, &[7]).unwrap();
    let y = Array::from_slice_on(&dev, &ys, &[7]).unwrap();
    let host = |f: &dyn Fn(f64, f64) -> f64| -> Vec<f64> { xs.iter().zip(&ys).map(|(&a, &b)| f(a, b)).collect() };
    close(&f64s(&fmod(&x, &y).unwrap()), &host(&|a, b| a % b), 1e-15);
    close(&f64s(&logaddexp(&x, &y).unwrap()), &host(&|a, b| (a.exp() + b.exp()).ln()), 1e-14);
    close(&f64s(&logaddexp2(&x, &y).unwrap()), &host(&|a, b| (a.exp2() + b.exp2()).log2()), 1e-14);
    close(&f64s(&float_power(&x.abs().unwrap(), &y).unwrap()), &host(&|a, b| a.abs().powf(b)), 1e-14);
    let h = heaviside(&x, &Array::from_slice_on(&dev, &[0.5f64], &[1]).unwrap()).unwrap();
    assert_eq!(f64s(&h), [0.0, 0.0, 0.0, 0.5, 1.0, 1.0, 1.0]);
    let sinc_host: Vec<f64> = xs.iter().map(|&a| if a == 0.0 { 1.0 } else { (PI * a).sin() / (PI * a) }).collect();
    close(&f64s(&sinc(&x).unwrap()), &sinc_host, 1e-14);
    close(&f64s(&deg2rad(&x).unwrap()), &xs.map(|a| a.to_radians()), 1e-15);
    close(&f64s(&rad2deg(&x).unwrap()), &xs.map(|a| a.to_degrees()), 1e-15);
    assert_eq!(f64s(&fix(&x).unwrap()), xs.map(f64::trunc));
    // Round half to even: 0.125 → 0.12, 0.135 → 0.14 (0.135 is just above in binary), 2.5 → 2.
    let r = Array::from_slice_on(&dev, &[0.125f64, -0.375, 1.0 / 3.0], &[3]).unwrap();
    close(&f64s(&around(&r, 2).unwrap()), &[0.12, -0.38, 0.33], 1e-15);
    let big = Array::from_slice_on(&dev, &[1250i64, 1350, -1449], &[3]).unwrap();
    let b = around(&big, -2).unwrap();
    assert_eq!(b.dtype(), DType::I64);
    assert_eq!(b.to_vec::<i64>().unwrap(), [1200, 1400, -1400]);
    let odd = Array::from_slice_on(&dev, &[f64::NAN, f64::INFINITY, -f64::INFINITY, 1.5f64], &[4]).unwrap();
    assert_eq!(f64s(&nan_to_num(&odd, 0.0, None, None).unwrap()), [0.0, f64::MAX, -f64::MAX, 1.5]);
    assert_eq!(f64s(&nan_to_num(&odd, -1.0, Some(9.0), Some(-9.0)).unwrap()), [-1.0, 9.0, -9.0, 1.5]);
    // Complex parts are replaced separately: inf + NaN·i → max + 0i.
    let bytes: Vec<u8> = [f64::INFINITY, f64::NAN].iter().flat_map(|v| v.to_le_bytes()).collect();
    let zc = Array::from_bytes_on(&dev, &[1], DType::C128, &bytes).unwrap();
    let fixed = nan_to_num(&zc, 0.0, None, None).unwrap();
    assert_eq!((f64s(&fixed.real()), f64s(&fixed.imag().unwrap())), (vec![f64::MAX], vec![0.0]));
    let i = Array::from_slice_on(&dev, &[-7i32, 7, -8], &[3]).unwrap();
    let j = Array::from_slice_on(&dev, &[3i32, -3, 3], &[3]).unwrap();
    assert_eq!(fmod(&i, &j).unwrap().to_vec::<i32>().unwrap(), [-1, 1, -2]);
    let g1 = Array::from_slice_on(&dev, &[12i32, -18, 0, 7, 0], &[5]).unwrap();
    let g2 = Array::from_slice_on(&dev, &[18i32, 24, 5, 13, 0], &[5]).unwrap();
    assert_eq!(gcd(&g1, &g2).unwrap().to_vec::<i32>().unwrap(), [6, 6, 5, 1, 0]);
    assert_eq!(lcm(&g1, &g2).unwrap().to_vec::<i32>().unwrap(), [36, 72, 0, 91, 0]);
    assert!(matches!(gcd(&x, &g1), Err(Error::DType { .. })));
    let z = Array::from_slice_on(&dev, &[1.0f64, 1.0, -1.0, 0.0], &[2, 2]).unwrap().astype(DType::C128).unwrap();
    let zz = z.add(&z.mul(Operand::Scalar(Scalar::Complex(0.0, 1.0))).unwrap()).unwrap();
    close(&f64s(&angle(&zz, false).unwrap()), &[PI / 4.0, PI / 4.0, -3.0 * PI / 4.0, 0.0], 1e-15);
    close(&f64s(&angle(&x, true).unwrap()), &xs.map(|a| if a < 0.0 { 180.0 } else { 0.0 }), 1e-15);
    let c = Array::from_slice_on(&dev, &[1.0f64], &[1]).unwrap();
    assert!(matches!(fmod(&zz, &c), Err(Error::UnsupportedDType { .. })));
    assert!(matches!(logaddexp(&x, &iota(&dev, &[3])), Err(Error::ShapeMismatch { .. })));
}

#[test]
fn cross_trapezoid_polyval_and_counts() {
    let dev = cpu();
    let u = Array::from_slice_on(&dev, &[1.0f64, 0.0, 0.0, 1.0, 2.0, 3.0], &[2, 3]).unwrap();
    let w = Array::from_slice_on(&dev, &[0.0f64, 1.0, 0.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    assert_eq!(f64s(&cross(&u, &w, -1).unwrap()), [0.0, 0.0, 1.0, -3.0, 6.0, -3.0]);
    let p2 = Array::from_slice_on(&dev, &[1.0f64, 2.0], &[2]).unwrap();
    let q2 = Array::from_slice_on(&dev, &[3.0f64, 4.0], &[2]).unwrap();
    let z = cross(&p2, &q2, -1).unwrap();
    assert_eq!(z.ndim(), 0);
    assert_eq!(f64s(&z), [-2.0]);
    assert!(matches!(cross(&iota(&dev, &[4]), &iota(&dev, &[4]), -1), Err(Error::ShapeMismatch { .. })));
    let y = Array::from_slice_on(&dev, &[1.0f64, 2.0, 4.0], &[3]).unwrap();
    let x = Array::from_slice_on(&dev, &[0.0f64, 1.0, 3.0], &[3]).unwrap();
    assert_eq!(f64s(&trapezoid(&y, Spacing::X(&x), -1).unwrap()), [1.5 + 6.0]);
    assert_eq!(f64s(&trapezoid(&y, Spacing::Dx(0.5), 0).unwrap()), [0.75 + 1.5]);
    let m = iota(&dev, &[2, 3]);
    assert_eq!(f64s(&trapezoid(&m, Spacing::Dx(1.0), 0).unwrap()), [1.5, 2.5, 3.5]);
    assert!(matches!(trapezoid(&m, Spacing::Dx(1.0), 2), Err(Error::Axis { .. })));
    // 2x² - 3x + 1.
    let p = Array::from_slice_on(&dev, &[2.0f64, -3.0, 1.0], &[3]).unwrap();
    assert_eq!(f64s(&polyval(&p, &x).unwrap()), [1.0, 0.0, 10.0]);
    assert!(matches!(polyval(&m, &x), Err(Error::Value { .. })));
    let k = Array::from_slice_on(&dev, &[3i32, 0, -2, 0, 5, 0], &[2, 3]).unwrap();
    assert_eq!(ptp(&k, None, false).unwrap().to_vec::<i32>().unwrap(), [7]);
    assert_eq!(ptp(&k, Some(&[1]), false).unwrap().to_vec::<i32>().unwrap(), [5, 5]);
    let n = count_nonzero(&k, None).unwrap();
    assert_eq!((n.dtype(), n.ndim()), (DType::I64, 0));
    assert_eq!(n.to_vec::<i64>().unwrap(), [3]);
    assert_eq!(count_nonzero(&k, Some(&[0])).unwrap().to_vec::<i64>().unwrap(), [1, 1, 1]);
    assert!(matches!(count_nonzero(&k, Some(&[2])), Err(Error::Axis { .. })));
}

#[test]
fn closeness_and_equality() {
    let dev = cpu();
    let a = Array::from_slice_on(&dev, &[1.0f64, f64::NAN, f64::INFINITY, 1e10, 0.0], &[5]).unwrap();
    let b = Array::from_slice_on(&dev, &[1.0f64 + 1e-9, f64::NAN, f64::INFINITY, 1.000001e10, 1e-7], &[5]).unwrap();
    let c = isclose(&a, &b, 1e-5, 1e-8, false).unwrap();
    assert_eq!(c.to_vec::<bool>().unwrap(), [true, false, true, true, false]);
    let c = isclose(&a, &b, 1e-5, 1e-8, true).unwrap();
    assert_eq!(c.to_vec::<bool>().unwrap(), [true, true, true, true, false]);
    assert!(!allclose(&a, &b, 1e-5, 1e-8, true).unwrap());
    assert!(allclose(&a, &b, 1e-5, 1e-6, true).unwrap());
    assert!(array_equal(&a, &a, true).unwrap());
    assert!(!array_equal(&a, &a, false).unwrap());
    assert!(!array_equal(&a, &iota(&dev, &[4]), false).unwrap());
    let i = Array::from_slice_on(&dev, &[1i32, 2], &[2]).unwrap();
    assert_eq!(isclose(&i, &i, 1e-5, 1e-8, false).unwrap().to_vec::<bool>().unwrap(), [true, true]);
    assert!(matches!(isclose(&a, &i, 1e-5, 1e-8, false), Err(Error::ShapeMismatch { .. })));
}

#[test]
fn sequences_windows_and_indices() {
    let dev = cpu();
    with_device(&dev, || {
        close(&f64s(&logspace(0.0, 3.0, 4, true, 10.0, None).unwrap()), &[1.0, 10.0, 100.0, 1000.0], 1e-15);
        close(&f64s(&logspace(0.0, 2.0, 2, false, 2.0, None).unwrap()), &[1.0, 2.0], 1e-15);
        let g = geomspace(1.0, 1000.0, 4, true, None).unwrap();
        assert_eq!(f64s(&g), [1.0, 10.0, 100.0, 1000.0]);
        close(&f64s(&geomspace(-2.0, -8.0, 3, true, None).unwrap()), &[-2.0, -4.0, -8.0], 1e-15);
        assert!(matches!(geomspace(0.0, 1.0, 3, true, None), Err(Error::Value { .. })));
        let m = 6usize;
        let host =
            |f: &dyn Fn(f64) -> f64| -> Vec<f64> { (0..m).map(|i| f((1 - m as i64 + 2 * i as i64) as f64)).collect() };
        let d = (m - 1) as f64;
        close(&f64s(&hanning(m).unwrap()), &host(&|n| 0.5 + 0.5 * (PI * n / d).cos()), 1e-15);
        close(&f64s(&hamming(m).unwrap()), &host(&|n| 0.54 + 0.46 * (PI * n / d).cos()), 1e-15);
        let bl = |n: f64| 0.42 + 0.5 * (PI * n / d).cos() + 0.08 * (2.0 * PI * n / d).cos();
        close(&f64s(&blackman(m).unwrap()), &host(&bl), 1e-14);
        close(&f64s(&bartlett(m).unwrap()), &host(&|n| 1.0 - n.abs() / d), 1e-15);
        assert_eq!(f64s(&hanning(1).unwrap()), [1.0]);
        assert_eq!(hamming(0).unwrap().shape(), [0]);
        let ix = indices(&[2, 3], DType::I64).unwrap();
        assert_eq!(ix.shape(), [2, 2, 3]);
        assert_eq!(ix.to_vec::<i64>().unwrap(), [0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2]);
    });
}

#[test]
fn nan_reductions_skip_nans() {
    let dev = cpu();
    let v = [1.0f64, f64::NAN, 3.0, -2.0, f64::NAN, 4.0];
    let a = Array::from_slice_on(&dev, &v, &[2, 3]).unwrap();
    assert_eq!(f64s(&nansum(&a, None, false).unwrap()), [6.0]);
    assert_eq!(f64s(&nansum(&a, Some(&[1]), false).unwrap()), [4.0, 2.0]);
    assert_eq!(f64s(&nanprod(&a, None, false).unwrap()), [-24.0]);
    assert_eq!(f64s(&nanmean(&a, None, false).unwrap()), [1.5]);
    assert_eq!(f64s(&nanmax(&a, Some(&[0]), false).unwrap())[0], 1.0);
    assert_eq!(f64s(&nanmin(&a, None, false).unwrap()), [-2.0]);
    // The values 1, 3, -2, 4 have mean 1.5 and variance (0.25 + 2.25 + 12.25 + 6.25) / 4.
    close(&f64s(&nanvar(&a, None, 0, false).unwrap()), &[21.0 / 4.0], 1e-15);
    close(&f64s(&nanstd(&a, None, 1, false).unwrap()), &[(21.0f64 / 3.0).sqrt()], 1e-15);
    assert_eq!(f64s(&nancumsum(&a, None).unwrap()), [1.0, 1.0, 4.0, 2.0, 2.0, 6.0]);
    assert_eq!(nanargmax(&a, Some(1)).unwrap().to_vec::<i64>().unwrap(), [2, 2]);
    assert_eq!(nanargmin(&a, None).unwrap().to_vec::<i64>().unwrap(), [3]);
    let all_nan = Array::from_slice_on(&dev, &[f64::NAN, f64::NAN], &[2]).unwrap();
    assert!(f64s(&nanmax(&all_nan, None, false).unwrap())[0].is_nan());
    assert!(matches!(nanargmax(&all_nan, None), Err(Error::Value { .. })));
}

#[test]
fn weighted_statistics_and_calculus() {
    let dev = cpu();
    let a = iota(&dev, &[2, 3]);
    let w = Array::from_slice_on(&dev, &[1.0f64, 0.0, 3.0], &[3]).unwrap();
    assert_eq!(f64s(&average(&a, Some(1), Some(&w)).unwrap()), [1.5, 4.5]);
    assert!(matches!(average(&a, Some(0), Some(&w)), Err(Error::ShapeMismatch { .. })));
    let zero = Array::from_slice_on(&dev, &[0.0f64, 0.0, 0.0], &[3]).unwrap();
    assert!(matches!(average(&a, Some(1), Some(&zero)), Err(Error::Value { .. })));
    // Rows 0,1,2 and 0,2,4: variances 1 and 4, covariance 2.
    let m = Array::from_slice_on(&dev, &[0.0f64, 1.0, 2.0, 0.0, 2.0, 4.0], &[2, 3]).unwrap();
    close(&f64s(&cov(&m).unwrap()), &[1.0, 2.0, 2.0, 4.0], 1e-15);
    close(&f64s(&corrcoef(&m).unwrap()), &[1.0, 1.0, 1.0, 1.0], 1e-15);
    let sq = Array::from_slice_on(&dev, &[0.0f64, 1.0, 4.0, 9.0], &[4]).unwrap();
    assert_eq!(f64s(&gradient(&sq, 0).unwrap()), [1.0, 2.0, 4.0, 5.0]);
    assert!(matches!(gradient(&iota(&dev, &[1]), 0), Err(Error::Value { .. })));
    let ph = Array::from_slice_on(&dev, &[0.0f64, 3.0, 6.5, 0.2], &[4]).unwrap();
    let tau = 2.0 * PI;
    close(&f64s(&unwrap(&ph, -1).unwrap()), &[0.0, 3.0, 6.5 - tau, 0.2], 1e-15);
    let e = Array::from_slice_on(&dev, &[-2i32, 0, 3], &[3]).unwrap();
    let x = Array::from_slice_on(&dev, &[3.0f32, -1.5, 0.75], &[3]).unwrap();
    let l = ldexp(&x, &e).unwrap();
    assert_eq!(l.dtype(), DType::F32);
    assert_eq!(l.to_vec::<f32>().unwrap(), [0.75, -1.5, 6.0]);
    assert!(matches!(ldexp(&x, &x), Err(Error::DType { .. })));
}

#[test]
fn gathering_and_assembling_by_index() {
    let dev = cpu();
    let a = iota(&dev, &[2, 3]);
    let ix = Array::from_slice_on(&dev, &[2i64, -3, 1, 1], &[2, 2]).unwrap();
    assert_eq!(f64s(&take_along_axis(&a, &ix, 1).unwrap()), [2.0, 0.0, 4.0, 4.0]);
    let far = Array::from_slice_on(&dev, &[3i64], &[1, 1]).unwrap();
    assert!(matches!(take_along_axis(&a, &far, 1), Err(Error::Index { .. })));
    let b = iota(&dev, &[2, 3]).mul_scalar(10).unwrap();
    let sel = Array::from_slice_on(&dev, &[0i64, 1, 0, 1, 1, 0], &[2, 3]).unwrap();
    assert_eq!(f64s(&choose(&sel, &[&a, &b]).unwrap()), [0.0, 10.0, 2.0, 30.0, 40.0, 5.0]);
    let bad = Array::from_slice_on(&dev, &[2i64], &[1]).unwrap();
    assert!(matches!(choose(&bad, &[&a, &b]), Err(Error::Index { .. })));
    let c1 = a.lt(2).unwrap();
    let c2 = a.gt(3).unwrap();
    let s = select(&[&c1, &c2], &[&a, &b], Scalar::Int(-1)).unwrap();
    assert_eq!(f64s(&s), [0.0, 1.0, -1.0, -1.0, 40.0, 50.0]);
    assert!(matches!(select(&[&c1], &[&a, &b], Scalar::Int(0)), Err(Error::Value { .. })));
    let keep = Array::from_slice_on(&dev, &[false, true], &[2]).unwrap();
    assert_eq!(f64s(&compress(&keep, &a, Some(0)).unwrap()), [3.0, 4.0, 5.0]);
    assert!(matches!(compress(&keep, &a, Some(2)), Err(Error::Axis { .. })));
    let vals = Array::from_slice_on(&dev, &[-1.0f64, -2.0], &[2]).unwrap();
    let mask = a.ge(3).unwrap();
    assert_eq!(f64s(&putmask(&a, &mask, &vals).unwrap()), [0.0, 1.0, 2.0, -2.0, -1.0, -2.0]);
    assert_eq!(
        f64s(&copyto(&a, &vals.slice(&[SliceArg::Index(0)]).unwrap(), &mask).unwrap()),
        [0.0, 1.0, 2.0, -1.0, -1.0, -1.0]
    );
    assert_eq!(f64s(&delete(&a, &[0, -1], Some(1)).unwrap()), [1.0, 4.0]);
    assert!(matches!(delete(&a, &[3], Some(1)), Err(Error::Index { .. })));
    let ins = insert(&a, 1, Scalar::Int(9), Some(1)).unwrap();
    assert_eq!(ins.shape(), [2, 4]);
    assert_eq!(f64s(&ins), [0.0, 9.0, 1.0, 2.0, 3.0, 9.0, 4.0, 5.0]);
    assert_eq!(f64s(&resize(&a, &[4, 2]).unwrap()), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 1.0]);
    let v = Array::from_slice_on(&dev, &[2i32, 3], &[2]).unwrap();
    let vd = vander(&v, Some(3)).unwrap();
    assert_eq!(vd.dtype(), DType::I64);
    assert_eq!(vd.to_vec::<i64>().unwrap(), [4, 2, 1, 9, 3, 1]);
    assert!(matches!(vander(&a, None), Err(Error::Value { .. })));
}

#[test]
fn pad_modes_fill_as_numpy() {
    let dev = cpu();
    let v = iota(&dev, &[3]).add_scalar(1).unwrap();
    let p = |mode: PadMode| f64s(&pad(&v, &[(2, 3)], mode).unwrap());
    assert_eq!(p(PadMode::Constant(Scalar::Int(0))), [0.0, 0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0]);
    assert_eq!(p(PadMode::Edge), [1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 3.0]);
    assert_eq!(p(PadMode::Reflect), [3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0, 2.0]);
    assert_eq!(p(PadMode::Symmetric), [2.0, 1.0, 1.0, 2.0, 3.0, 3.0, 2.0, 1.0]);
    assert_eq!(p(PadMode::Wrap), [2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    let m = iota(&dev, &[2, 2]);
    let q = pad(&m, &[(1, 0), (0, 1)], PadMode::Constant(Scalar::Float(-1.0))).unwrap();
    assert_eq!(q.shape(), [3, 3]);
    assert_eq!(f64s(&q), [-1.0, -1.0, -1.0, 0.0, 1.0, -1.0, 2.0, 3.0, -1.0]);
    assert!(matches!(pad(&m, &[(1, 0), (0, 1), (1, 1)], PadMode::Edge), Err(Error::Value { .. })));
    assert!(matches!(PadMode::from_name("medial"), Err(Error::Value { .. })));
    let empty = iota(&dev, &[0]);
    assert!(matches!(pad(&empty, &[(1, 1)], PadMode::Wrap), Err(Error::Value { .. })));
    assert!(matches!(pad(&empty, &[(1, 1)], PadMode::Mean(None)), Err(Error::Value { .. })));
    assert!(matches!(pad(&v, &[(1, 1)], PadMode::Maximum(Some(0))), Err(Error::Value { .. })));
}

#[test]
fn pad_modes_computed_from_values_match_numpy() {
    let dev = cpu();
    with_device(&dev, || {
        let a = Array::from_vec(vec![1i64, 2, 3, 4, 5, 7, 6, 9, 2, 0, 1, 8]).unwrap().reshape(&[3, 4]).unwrap();
        let w = [(1, 2), (2, 1)];
        // numpy.pad(a, ((1, 2), (2, 1)), mode=...).ravel()
        let cases: [(PadMode, [i64; 42]); 7] = [
            (
                PadMode::LinearRamp(Scalar::Int(0)),
                [
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 2, 5, 7, 6, 9, 0, 0, 1, 2, 0, 1, 8, 0, 0, 0, 1, 0, 0,
                    4, 0, 0, 0, 0, 0, 0, 0, 0,
                ],
            ),
            (
                PadMode::Maximum(None),
                [
                    9, 9, 5, 7, 6, 9, 9, 4, 4, 1, 2, 3, 4, 4, 9, 9, 5, 7, 6, 9, 9, 8, 8, 2, 0, 1, 8, 8, 9, 9, 5, 7, 6,
                    9, 9, 9, 9, 5, 7, 6, 9, 9,
                ],
            ),
            (
                PadMode::Minimum(None),
                [
                    0, 0, 1, 0, 1, 4, 0, 1, 1, 1, 2, 3, 4, 1, 5, 5, 5, 7, 6, 9, 5, 0, 0, 2, 0, 1, 8, 0, 0, 0, 1, 0, 1,
                    4, 0, 0, 0, 1, 0, 1, 4, 0,
                ],
            ),
            (
                PadMode::Mean(None),
                [
                    4, 4, 3, 3, 3, 7, 4, 2, 2, 1, 2, 3, 4, 2, 7, 7, 5, 7, 6, 9, 7, 3, 3, 2, 0, 1, 8, 3, 4, 4, 3, 3, 3,
                    7, 4, 4, 4, 3, 3, 3, 7, 4,
                ],
            ),
            (
                PadMode::Median(None),
                [
                    2, 2, 2, 2, 3, 8, 2, 2, 2, 1, 2, 3, 4, 2, 6, 6, 5, 7, 6, 9, 6, 2, 2, 2, 0, 1, 8, 2, 2, 2, 2, 2, 3,
                    8, 2, 2, 2, 2, 2, 3, 8, 2,
                ],
            ),
            (
                PadMode::Mean(Some(2)),
                [
                    4, 4, 3, 4, 4, 6, 5, 2, 2, 1, 2, 3, 4, 4, 6, 6, 5, 7, 6, 9, 8, 1, 1, 2, 0, 1, 8, 4, 4, 4, 4, 4, 4,
                    8, 6, 4, 4, 4, 4, 4, 8, 6,
                ],
            ),
            (
                PadMode::Maximum(Some(1)),
                [
                    1, 1, 1, 2, 3, 4, 4, 1, 1, 1, 2, 3, 4, 4, 5, 5, 5, 7, 6, 9, 9, 2, 2, 2, 0, 1, 8, 8, 2, 2, 2, 0, 1,
                    8, 8, 2, 2, 2, 0, 1, 8, 8,
                ],
            ),
        ];
        for (mode, want) in cases {
            let got = pad(&a, &w, mode).unwrap();
            assert_eq!((got.shape(), got.dtype()), (&[6usize, 7][..], DType::I64), "{mode:?}");
            assert_eq!(got.to_vec::<i64>().unwrap(), want, "{mode:?}");
        }
        // float32: numpy.pad(a / 3, ((1, 1), (2, 0)), mode=...) in float32.
        let f = a.astype(DType::F32).unwrap().div(3.0).unwrap();
        let ramp = [
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            0.6666666865348816,
            0.3333333432674408,
            0.6666666865348816,
            1.0,
            1.3333333730697632,
            1.0,
            1.3333332538604736,
            1.6666666269302368,
            2.3333332538604736,
            2.0,
            3.0,
            1.0,
            0.8333333730697632,
            0.6666666865348816,
            0.0,
            0.3333333432674408,
            2.6666667461395264,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
        ];
        let mean = [
            1.3333332538604736,
            1.3333332538604736,
            0.8888888955116272,
            1.0,
            1.111111044883728,
            2.3333332538604736,
            0.8333333730697632,
            0.8333333730697632,
            0.3333333432674408,
            0.6666666865348816,
            1.0,
            1.3333333730697632,
            2.25,
            2.25,
            1.6666666269302368,
            2.3333332538604736,
            2.0,
            3.0,
            0.9166666865348816,
            0.9166666865348816,
            0.6666666865348816,
            0.0,
            0.3333333432674408,
            2.6666667461395264,
            1.3333332538604736,
            1.3333332538604736,
            0.8888888955116272,
            1.0,
            1.111111044883728,
            2.3333332538604736,
        ];
        for (mode, want) in [(PadMode::LinearRamp(Scalar::Int(1)), ramp), (PadMode::Mean(None), mean)] {
            let got = pad(&f, &[(1, 1), (2, 0)], mode).unwrap();
            assert_eq!(got.dtype(), DType::F32);
            for (g, w) in f64s(&got).iter().zip(want) {
                assert!((g - w).abs() <= 2e-7 * w.abs().max(1.0), "{mode:?}: {g} vs {w}");
            }
        }
        let e = pad(&a, &[(1, 1)], PadMode::Empty).unwrap();
        assert_eq!(e.shape(), [5, 6]);
    });
}

/// Element `(i, j, k)` of `iota(d, [6, 7, 5])` is `i * 35 + j * 5 + k`.
fn at3(i: usize, j: usize, k: usize) -> f64 {
    (i * 35 + j * 5 + k) as f64
}

#[test]
fn getitem_follows_numpys_basic_and_advanced_rules() {
    let d = cpu();
    with_device(&d, || {
        let x = iota(&d, &[6, 7, 5]);
        let ints = |v: &[i64], shape: &[usize]| Array::from_slice_on(&d, v, shape).unwrap();
        // Basic items only: a view, NumPy's shape.
        let v = x.getitem(&[IndexItem::Slice(Some(1), None, Some(2)), IndexItem::Int(-1), IndexItem::NewAxis]).unwrap();
        assert!(v.shares_buffer(&x));
        assert_eq!(v.shape(), &[3, 1, 5]);
        assert_eq!(f64s(&v)[..5], [at3(1, 6, 0), at3(1, 6, 1), at3(1, 6, 2), at3(1, 6, 3), at3(1, 6, 4)]);
        // Two adjacent arrays (one negative): paired, their axes replaced where they stand.
        let (i0, i1) = (ints(&[0, -1, 2], &[3]), ints(&[1, 1, 6], &[3]));
        let r = x.getitem(&[
            IndexItem::Slice(None, None, None),
            IndexItem::Array(&i1),
            IndexItem::Array(&ints(&[4, 0, 2], &[3])),
        ]);
        let r = r.unwrap();
        assert_eq!(r.shape(), &[6, 3]);
        assert_eq!(f64s(&r)[3..6], [at3(1, 1, 4), at3(1, 1, 0), at3(1, 6, 2)]);
        // Separated by a slice: the broadcast shape (3, 1) x (3,) = (3, 3) comes first.
        let col = ints(&[0, 5, 3], &[3, 1]);
        let r = x
            .getitem(&[IndexItem::Array(&col), IndexItem::Slice(Some(1), Some(3), None), IndexItem::Array(&i0)])
            .unwrap();
        assert_eq!(r.shape(), &[3, 3, 2]);
        // r[p, q, s] = x[col[p], 1 + s, i0[q]]; i0[1] = -1 is axis 2's last.
        assert_eq!(f64s(&r)[(3 + 1) * 2 + 1], at3(5, 2, 4));
        // A mask over the first two axes.
        let m: Vec<bool> = (0..42).map(|t| t % 5 == 0).collect();
        let mask = Array::from_slice_on(&d, &m, &[6, 7]).unwrap();
        let r = x.getitem(&[IndexItem::Mask(&mask)]).unwrap();
        assert_eq!(r.shape(), &[9, 5]);
        assert_eq!(f64s(&r)[5..7], [at3(0, 5, 0), at3(0, 5, 1)]);
        // Bad input: out of range, a float index, a mask of the wrong shape, too many indices.
        let e = x.getitem(&[IndexItem::Array(&ints(&[0, 6], &[2]))]).unwrap_err();
        assert!(e.kind() == "Index" && e.to_string().contains("size 6"), "{e}");
        let f = Array::from_slice_on(&d, &[0.0f64], &[1]).unwrap();
        assert_eq!(x.getitem(&[IndexItem::Array(&f)]).unwrap_err().kind(), "Index");
        let small = Array::from_slice_on(&d, &[true, false], &[2]).unwrap();
        assert_eq!(x.getitem(&[IndexItem::Mask(&small)]).unwrap_err().kind(), "Index");
        let many = [IndexItem::Array(&i0), IndexItem::Int(0), IndexItem::Int(0), IndexItem::Int(0)];
        assert_eq!(x.getitem(&many).unwrap_err().kind(), "Index");
    });
}

#[test]
fn setitem_broadcasts_casts_and_keeps_the_last_of_repeated_indices() {
    let d = cpu();
    with_device(&d, || {
        let y = iota(&d, &[2, 3]);
        let idx = Array::from_slice_on(&d, &[2i64, 0, 2], &[3]).unwrap();
        let vals = Array::from_slice_on(&d, &[10i32, 20, 30], &[3]).unwrap();
        y.setitem(
            &[IndexItem::Slice(None, None, None), IndexItem::Array(&idx)],
            &vals.getitem(&[IndexItem::Slice(None, None, None)]).unwrap().reshape(&[1, 3]).unwrap(),
        )
        .unwrap();
        // Row-wise: y[:, [2, 0, 2]] = [10, 20, 30] stores 30 (the last) at column 2, 20 at 0.
        assert_eq!(f64s(&y), [20.0, 1.0, 30.0, 20.0, 4.0, 30.0]);
        let scalar = Array::from_slice_on(&d, &[-1.0f64], &[]).unwrap();
        let mask = y.gt(10.0).unwrap();
        y.setitem(&[IndexItem::Mask(&mask)], &scalar).unwrap();
        assert_eq!(f64s(&y), [-1.0, 1.0, -1.0, -1.0, 4.0, -1.0]);
        let wrong = Array::from_slice_on(&d, &[1.0f64, 2.0], &[2]).unwrap();
        let e = y.setitem(&[IndexItem::Int(0)], &wrong).unwrap_err();
        assert!(e.kind() == "Value" && e.to_string().contains("broadcast"), "{e}");
        assert_eq!(f64s(&y), [-1.0, 1.0, -1.0, -1.0, 4.0, -1.0], "a refused assignment changes nothing");
    });
}
