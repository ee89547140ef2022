//! Tests of `xp::ndimage`'s morphology and measurements (`xp_array::ndimage`) on the CPU
//! backend: values against SciPy 1.17's (pasted as printed by SciPy), dtypes, shapes and the
//! errors for bad input.

use std::sync::Arc;

use xp_array::ndimage::{self as nd, Mode};
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn bools(d: &Arc<dyn xp_backend_api::DynDevice>, rows: &[&[u8]]) -> Array {
    let v: Vec<bool> = rows.iter().flat_map(|r| r.iter().map(|&x| x != 0)).collect();
    Array::from_slice_on(d, &v, &[rows.len(), rows[0].len()]).unwrap()
}

fn ints(a: &Array) -> Vec<i64> {
    a.astype(DType::I64).unwrap().to_vec::<i64>().unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn blobs(d: &Arc<dyn xp_backend_api::DynDevice>) -> Array {
    bools(d, &[&[1, 1, 0, 0, 1], &[0, 1, 0, 1, 1], &[0, 0, 0, 0, 0], &[1, 0, 1, 1, 0]])
}

#[test]
fn label_and_find_objects_match_scipy() {
    let d = cpu();
    let b = blobs(&d);
    let (l, n) = nd::label(&b, None).unwrap();
    assert_eq!(l.dtype(), DType::I32);
    assert_eq!(n, 4);
    // SciPy: label(b)
    assert_eq!(ints(&l), [1, 1, 0, 0, 2, 0, 1, 0, 2, 2, 0, 0, 0, 0, 0, 3, 0, 4, 4, 0]);
    let st = nd::generate_binary_structure(2, 2).unwrap();
    let (l8, n8) = nd::label(&b, Some(&st)).unwrap();
    assert_eq!((ints(&l8), n8), (ints(&l), 4));
    // A snake needs many passes; one component.
    let snake = bools(&d, &[&[1, 1, 1, 1, 1], &[0, 0, 0, 0, 1], &[1, 1, 1, 1, 1], &[1, 0, 0, 0, 0], &[1, 1, 1, 1, 1]]);
    let (ls, ns) = nd::label(&snake, None).unwrap();
    assert_eq!(ns, 1);
    assert!(ints(&ls).iter().all(|&v| v == 0 || v == 1));
    // SciPy: find_objects(l)
    let objs = nd::find_objects(&l, 0).unwrap();
    assert_eq!(
        objs,
        vec![Some(vec![0..2, 0..2]), Some(vec![0..2, 3..5]), Some(vec![3..4, 0..1]), Some(vec![3..4, 2..4])]
    );
    let t = nd::find_objects_table(&l, 6).unwrap();
    assert_eq!(t.shape(), &[6, 2, 2]);
    assert_eq!(ints(&t)[16..], [-1, -1, -1, -1, -1, -1, -1, -1]);
}

#[test]
fn label_refuses_bad_structures() {
    let d = cpu();
    let b = blobs(&d);
    let s3 = nd::generate_binary_structure(3, 1).unwrap();
    assert!(matches!(nd::label(&b, Some(&s3)), Err(Error::Value { .. })));
    let s5 = Array::full_on(&d, &[5, 5], true, DType::Bool).unwrap();
    assert!(matches!(nd::label(&b, Some(&s5)), Err(Error::Value { .. })));
}

#[test]
fn statistics_follow_scipys_labels_and_index() {
    let d = cpu();
    let (l, _) = nd::label(&blobs(&d), None).unwrap();
    let x = arange(0.0, 20.0, 1.0, Some(DType::F64)).unwrap().reshape(&[4, 5]).unwrap();
    let idx = Array::from_slice_on(&d, &[1i64, 2, 3, 4, 9], &[5]).unwrap();
    let i2 = Array::from_slice_on(&d, &[1i64, 2], &[2]).unwrap();
    // SciPy: sum_labels(x, l, [1, 2, 3, 4, 9]), mean, variance, minimum, ...
    assert_eq!(f64s(&nd::sum_labels(&x, Some(&l), Some(&idx)).unwrap()), [7.0, 21.0, 15.0, 35.0, 0.0]);
    assert_eq!(f64s(&nd::mean(&x, Some(&l), Some(&i2)).unwrap()), [2.3333333333333335, 7.0]);
    let v = f64s(&nd::variance(&x, Some(&l), Some(&i2)).unwrap());
    assert!((v[0] - 6.888888888888888).abs() < 1e-13 && (v[1] - 4.666666666666667).abs() < 1e-13, "{v:?}");
    let i4 = Array::from_slice_on(&d, &[1i64, 2, 3, 4], &[4]).unwrap();
    let mn = nd::minimum(&x, Some(&l), Some(&i4)).unwrap();
    assert_eq!((mn.dtype(), f64s(&mn)), (DType::F64, vec![0.0, 4.0, 15.0, 17.0]));
    let mp = nd::maximum_position(&x, Some(&l), Some(&i2)).unwrap();
    assert_eq!((mp.shape(), ints(&mp)), (&[2usize, 2][..], vec![1, 1, 1, 4]));
    let i13 = Array::from_slice_on(&d, &[1i64, 3], &[2]).unwrap();
    assert_eq!(f64s(&nd::median(&x, Some(&l), Some(&i13)).unwrap()), [1.0, 15.0]);
    let com = f64s(&nd::center_of_mass(&x, Some(&l), Some(&i2)).unwrap());
    let want = [0.8571428571428571, 1.0, 0.8095238095238095, 3.619047619047619];
    assert!(com.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-14), "{com:?}");
    // 0-d answers: no labels, labels without index, a 0-d index.
    let s = nd::sum_labels(&x, None, None).unwrap();
    assert_eq!((s.shape(), f64s(&s)), (&[][..], vec![190.0]));
    assert_eq!(f64s(&nd::sum_labels(&x, Some(&l), None).unwrap()), [78.0]);
    let two = Array::from_slice_on(&d, &[2i64], &[]).unwrap();
    assert_eq!(f64s(&nd::sum_labels(&x, Some(&l), Some(&two)).unwrap()), [21.0]);
    // NumPy's sum dtype for an int32 image; float64 for the mean; float64 median of ints.
    let xi = x.astype(DType::I32).unwrap();
    assert_eq!(nd::sum_labels(&xi, None, None).unwrap().dtype(), DType::I64);
    assert_eq!(nd::mean(&xi, None, None).unwrap().dtype(), DType::F64);
    assert_eq!(nd::median(&xi, None, None).unwrap().dtype(), DType::F64);
    assert_eq!(nd::median(&x.astype(DType::F32).unwrap(), None, None).unwrap().dtype(), DType::F32);
    // A label without pixels: NaN mean, 0 minimum.
    let nine = Array::from_slice_on(&d, &[9i64], &[1]).unwrap();
    assert!(f64s(&nd::mean(&x, Some(&l), Some(&nine)).unwrap())[0].is_nan());
    assert_eq!(f64s(&nd::minimum(&x, Some(&l), Some(&nine)).unwrap()), [0.0]);
    // SciPy: histogram(x, 0, 19, 4) and with labels [1, 2].
    assert_eq!(ints(&nd::histogram(&x, 0.0, 19.0, 4, None, None).unwrap()), [5, 5, 5, 5]);
    let h = nd::histogram(&x, 0.0, 19.0, 4, Some(&l), Some(&i2)).unwrap();
    assert_eq!((h.shape(), ints(&h)), (&[2usize, 4][..], vec![2, 1, 0, 0, 1, 2, 0, 0]));
    let (lo, hi, lp, hp) = nd::extrema(&x, None, None).unwrap();
    assert_eq!((f64s(&lo), f64s(&hi), ints(&lp), ints(&hp)), (vec![0.0], vec![19.0], vec![0, 0], vec![3, 4]));
}

#[test]
fn statistics_refuse_bad_labels() {
    let d = cpu();
    let x = Array::full_on(&d, &[4, 5], 1.0, DType::F64).unwrap();
    let fl = Array::full_on(&d, &[4, 5], 1.0, DType::F64).unwrap();
    assert!(matches!(nd::sum_labels(&x, Some(&fl), None), Err(Error::DType { .. })));
    let wrong = Array::full_on(&d, &[3, 2], 1i64, DType::I64).unwrap();
    assert!(matches!(nd::mean(&x, Some(&wrong), None), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(nd::histogram(&x, 1.0, 0.0, 3, None, None), Err(Error::Value { .. })));
}

#[test]
fn binary_morphology_matches_scipy() {
    let d = cpu();
    let b = blobs(&d);
    // SciPy: binary_erosion(b) is empty, binary_dilation(b) is full.
    let e = nd::binary_erosion(&b, None, 1, None, false, None, false).unwrap();
    assert_eq!((e.dtype(), ints(&e)), (DType::Bool, vec![0; 20]));
    assert_eq!(ints(&nd::binary_dilation(&b, None, 1, None, false, None, false).unwrap()), vec![1; 20]);
    // SciPy: binary_dilation(b, iterations=0, mask=eye(4, 5) | b)
    let eye = eye(4, Some(5), 0, DType::Bool).unwrap().logical_or(&b).unwrap();
    let p = nd::binary_dilation(&b, None, 0, Some(&eye), false, None, false).unwrap();
    assert_eq!(ints(&p), [1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0]);
    // SciPy: binary_fill_holes of a ring
    let ring = bools(&d, &[&[0, 0, 0, 0, 0], &[0, 1, 1, 1, 0], &[0, 1, 0, 1, 0], &[0, 1, 1, 1, 0], &[0, 0, 0, 0, 0]]);
    let f = nd::binary_fill_holes(&ring, None, None).unwrap();
    assert_eq!(ints(&f), [0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
    // SciPy: a ring open at the top, with the cross (the hole leaks) and with an asymmetric
    // element (propagated pass by pass; the leak is not followed).
    let open = bools(&d, &[&[0, 0, 0, 0, 0], &[0, 1, 0, 1, 0], &[0, 1, 0, 1, 0], &[0, 1, 1, 1, 0], &[0, 0, 0, 0, 0]]);
    let f = nd::binary_fill_holes(&open, None, None).unwrap();
    assert_eq!(ints(&f), [0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
    let asym = bools(&d, &[&[0, 1, 0], &[1, 1, 0], &[0, 0, 0]]);
    let f = nd::binary_fill_holes(&open, Some(&asym), None).unwrap();
    assert_eq!(ints(&f), [0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
    // SciPy: iterate_structure(generate_binary_structure(2, 1), 2)
    let it = nd::iterate_structure(&nd::generate_binary_structure(2, 1).unwrap(), 2).unwrap();
    assert_eq!(it.shape(), &[5, 5]);
    assert_eq!(ints(&it), [0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 0]);
    // 1-d: the border value counts as the outside; an origin moves the element.
    let z = Array::full_on(&d, &[5], false, DType::Bool).unwrap();
    assert_eq!(ints(&nd::binary_dilation(&z, None, 1, None, true, None, false).unwrap()), [1, 0, 0, 0, 1]);
    let one = Array::from_slice_on(&d, &[false, false, false, true, false, false, false], &[7]).unwrap();
    let st = Array::from_slice_on(&d, &[true, false, false], &[3]).unwrap();
    let got = nd::binary_dilation(&one, Some(&st), 1, None, false, Some(&[1]), false).unwrap();
    assert_eq!(ints(&got), [0, 1, 0, 0, 0, 0, 0]);
    // SciPy: binary_hit_or_miss([0,1,1,1,0], [0,1,0], [1,0,0])
    let x = Array::from_slice_on(&d, &[false, true, true, true, false], &[5]).unwrap();
    let s1 = Array::from_slice_on(&d, &[false, true, false], &[3]).unwrap();
    let s2 = Array::from_slice_on(&d, &[true, false, false], &[3]).unwrap();
    assert_eq!(ints(&nd::binary_hit_or_miss(&x, Some(&s1), Some(&s2), None, None).unwrap()), [0, 1, 0, 0, 0]);
}

#[test]
fn binary_morphology_refuses_bad_elements() {
    let d = cpu();
    let b = blobs(&d);
    let s3 = nd::generate_binary_structure(3, 1).unwrap();
    let r = nd::binary_erosion(&b, Some(&s3), 1, None, false, None, false);
    assert!(matches!(&r, Err(Error::Value { op, .. }) if op == "binary_erosion"), "{r:?}");
    let r = nd::binary_dilation(&b, None, 1, None, false, Some(&[2]), false);
    assert!(matches!(r, Err(Error::Value { .. })));
    let m = Array::full_on(&d, &[2, 2], true, DType::Bool).unwrap();
    assert!(matches!(nd::binary_erosion(&b, None, 1, Some(&m), false, None, false), Err(Error::ShapeMismatch { .. })));
}

#[test]
fn grey_morphology_matches_scipy() {
    let d = cpu();
    let g = Array::from_slice_on(&d, &[3f32, 1., 4., 1., 5., 9., 2., 6., 5., 3., 5., 8.], &[3, 4]).unwrap();
    // SciPy: grey_erosion(g, size=3), grey_dilation(g, size=(2, 2)), and a non-flat dilation.
    let e = nd::grey_erosion(&g, Some(&[3]), None, None, Mode::Reflect, 0.0, None).unwrap();
    assert_eq!(e.dtype(), DType::F32);
    assert_eq!(f64s(&e), [1., 1., 1., 1., 1., 1., 1., 1., 3., 2., 2., 2.]);
    let dl = nd::grey_dilation(&g, Some(&[2, 2]), None, None, Mode::Reflect, 0.0, None).unwrap();
    assert_eq!(f64s(&dl), [9., 9., 6., 6., 9., 9., 8., 8., 5., 5., 8., 8.]);
    let st = Array::full_on(&d, &[3, 3], 0.5, DType::F64).unwrap();
    let ns = nd::grey_dilation(&g, None, None, Some(&st), Mode::Constant, 0.0, None).unwrap();
    assert_eq!(f64s(&ns), [9.5, 9.5, 9.5, 6.5, 9.5, 9.5, 9.5, 8.5, 9.5, 9.5, 9.5, 8.5]);
    let th = nd::white_tophat(&g, Some(&[3]), None, None, Mode::Reflect, 0.0, None).unwrap();
    assert_eq!(f64s(&th), [2., 0., 3., 0., 2., 6., 0., 4., 2., 0., 3., 6.]);
    let r = nd::grey_erosion(&g, None, None, None, Mode::Reflect, 0.0, None);
    assert!(matches!(&r, Err(Error::Value { op, .. }) if op == "grey_erosion"), "{r:?}");
    let fp3 = nd::generate_binary_structure(3, 1).unwrap();
    assert!(matches!(
        nd::grey_dilation(&g, None, Some(&fp3), None, Mode::Reflect, 0.0, None),
        Err(Error::Value { .. })
    ));
}

#[test]
fn distance_transform_edt_matches_scipy() {
    let d = cpu();
    let e = bools(&d, &[&[0, 1, 1, 1], &[1, 1, 1, 1], &[1, 1, 1, 0]]);
    let r = nd::distance_transform_edt(&e, None).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    let s2 = std::f64::consts::SQRT_2;
    // SciPy: distance_transform_edt(e) and with sampling [2.0, 0.5]
    assert_eq!(f64s(&r), [0.0, 1.0, 2.0, 2.0, 1.0, s2, s2, 1.0, 2.0, 2.0, 1.0, 0.0]);
    let r = nd::distance_transform_edt(&e, Some(&[2.0, 0.5])).unwrap();
    let want = [0.0, 0.5, 1.0, 1.5, 2.0, 2.0615528128088303, 2.0615528128088303, 2.0, 1.5, 1.0, 0.5, 0.0];
    assert!(f64s(&r).iter().zip(want).all(|(g, w)| (g - w).abs() <= 4.0 * f64::EPSILON * w), "{r:?}");
    assert!(matches!(nd::distance_transform_edt(&e, Some(&[1.0, 2.0, 3.0])), Err(Error::Value { .. })));
}
