//! NumPy's later callables (index helpers, bit packing, polynomial arithmetic, `finfo`/`iinfo`) on the CPU backend.
//!
//! Expected values are NumPy 2.4's, printed by NumPy and pasted here.

use std::sync::Arc;

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

fn i64s(a: &Array) -> Vec<i64> {
    a.astype(DType::I64).unwrap().to_vec::<i64>().unwrap()
}

fn kind<T: std::fmt::Debug>(r: Result<T>) -> &'static str {
    r.expect_err("an error").kind()
}

#[test]
fn mgrid_and_ogrid_follow_numpys_slices() {
    let d = cpu();
    with_device(&d, || {
        // np.mgrid[0:1:3j, 1:3]
        let g = mgrid(&[GridAxis::points(0, 1, 3), GridAxis::range(1, 3, 1)]).unwrap();
        assert_eq!((g.shape(), g.dtype()), (&[2, 3, 2][..], DType::F64));
        assert_eq!(f64s(&g), [0.0, 0.0, 0.5, 0.5, 1.0, 1.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
        // np.mgrid[(slice(-1, 1, 0.5),)]
        let g = mgrid(&[GridAxis::range(-1, 1, 0.5)]).unwrap();
        assert_eq!((g.shape(), f64s(&g)), (&[1, 4][..], vec![-1.0, -0.5, 0.0, 0.5]));
        // Integers stay int64.
        let g = mgrid(&[GridAxis::range(0, 3, 1), GridAxis::range(1, 7, 2)]).unwrap();
        assert_eq!((g.shape(), g.dtype()), (&[2, 3, 3][..], DType::I64));
        assert_eq!(i64s(&g)[9..], [1, 3, 5, 1, 3, 5, 1, 3, 5]);
        // np.ogrid[0:3, 0:1:3j]: one dtype for every axis.
        let o = ogrid(&[GridAxis::range(0, 3, 1), GridAxis::points(0, 1, 3)]).unwrap();
        assert_eq!((o[0].shape(), o[0].dtype(), f64s(&o[0])), (&[3, 1][..], DType::F64, vec![0.0, 1.0, 2.0]));
        assert_eq!((o[1].shape(), f64s(&o[1])), (&[1, 3][..], vec![0.0, 0.5, 1.0]));
        // Errors: a zero step, a negative length, no axes.
        assert_eq!(kind(mgrid(&[GridAxis::range(0, 1, 0)])), "Value");
        assert_eq!(kind(mgrid(&[GridAxis::range(5, 0, 1), GridAxis::range(0, 2, 1)])), "Value");
        assert_eq!(kind(mgrid(&[])), "Value");
    });
}

#[test]
fn packbits_and_unpackbits_match_numpy() {
    let d = cpu();
    let bits: Vec<bool> = [1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0].iter().map(|&b| b == 1).collect();
    let a = Array::from_slice_on(&d, &bits, &[2, 9]).unwrap();
    let p = packbits(&a, Some(1), BitOrder::Big).unwrap();
    assert_eq!((p.shape(), p.dtype(), i64s(&p)), (&[2, 2][..], DType::U8, vec![178, 128, 116, 0]));
    let p = packbits(&a, Some(0), "little".parse().unwrap()).unwrap();
    assert_eq!((p.shape(), i64s(&p)), (&[1, 9][..], vec![1, 2, 3, 3, 0, 2, 1, 0, 1]));
    assert_eq!(i64s(&packbits(&a, None, BitOrder::Big).unwrap()), [178, 186, 0]);
    // Integers count as bits where nonzero: np.packbits(np.array([-1, 2, 0, 300], np.int32)) == [208].
    let ints = Array::from_slice_on(&d, &[-1i32, 2, 0, 300], &[4]).unwrap();
    assert_eq!(i64s(&packbits(&ints, None, BitOrder::Big).unwrap()), [208]);

    let u = Array::from_slice_on(&d, &[3u8, 200, 17, 255], &[2, 2]).unwrap();
    let b = unpackbits(&u, Some(1), Some(11), BitOrder::Big).unwrap();
    assert_eq!((b.shape(), b.dtype()), (&[2, 11][..], DType::U8));
    assert_eq!(i64s(&b), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1]);
    let b = unpackbits(&u, Some(0), Some(-3), BitOrder::Little).unwrap();
    assert_eq!(b.shape(), [13, 2]);
    assert_eq!(i64s(&b)[..8], [1, 0, 1, 0, 0, 0, 0, 1]);
    // Past the end: zeros appended.
    let b = unpackbits(&u, None, Some(40), BitOrder::Big).unwrap();
    assert_eq!((b.shape(), i64s(&b)[32..].iter().sum::<i64>()), (&[40][..], 0));
    // Round trip.
    let back = packbits(&unpackbits(&u, Some(1), None, BitOrder::Little).unwrap(), Some(1), BitOrder::Little).unwrap();
    assert_eq!(i64s(&back), [3, 200, 17, 255]);

    let f = Array::from_slice_on(&d, &[1.0f64], &[1]).unwrap();
    assert_eq!(kind(packbits(&f, None, BitOrder::Big)), "DType");
    assert_eq!(kind(unpackbits(&ints, None, None, BitOrder::Big)), "DType");
    assert_eq!(kind(unpackbits(&u, None, Some(-33), BitOrder::Big)), "Value");
    assert_eq!(kind("middle".parse::<BitOrder>()), "Value");
}

#[test]
fn bitwise_count_counts_the_magnitudes_bits_as_uint8() {
    let d = cpu();
    let a = Array::from_slice_on(&d, &[0i16, 1, -1, -128, 127, 255], &[6]).unwrap();
    let c = bitwise_count(&a).unwrap();
    assert_eq!((c.dtype(), i64s(&c)), (DType::U8, vec![0, 1, 1, 1, 7, 8]));
    let u = Array::from_slice_on(&d, &[u64::MAX, 1 << 63], &[2]).unwrap();
    assert_eq!(i64s(&u.bitwise_count().unwrap()), [64, 1]);
    let m = Array::from_slice_on(&d, &[i64::MIN, -3], &[2]).unwrap();
    assert_eq!(i64s(&bitwise_count(&m).unwrap()), [1, 2]);
    let b = Array::from_slice_on(&d, &[true, false], &[2]).unwrap();
    let c = bitwise_count(&b).unwrap();
    assert_eq!((c.dtype(), i64s(&c)), (DType::U8, vec![1, 0]));
    let f = Array::from_slice_on(&d, &[1.0f32], &[1]).unwrap();
    assert_eq!(kind(bitwise_count(&f)), "DType");
}

#[test]
fn axis_views_match_numpy() {
    let d = cpu();
    let x = Array::full_on(&d, &[3, 4, 5, 6], 0, DType::F32).unwrap();
    for (axis, start, want) in [(3, 1, [3, 6, 4, 5]), (1, 4, [3, 5, 6, 4]), (-1, 0, [6, 3, 4, 5]), (2, 2, [3, 4, 5, 6])]
    {
        assert_eq!(rollaxis(&x, axis, start).unwrap().shape(), want, "rollaxis({axis}, {start})");
    }
    assert_eq!(kind(rollaxis(&x, 0, 5)), "Value");
    assert_eq!(kind(rollaxis(&x, 4, 0)), "Value");

    let m = Array::from_slice_on(&d, &(0..12).collect::<Vec<i64>>(), &[3, 4]).unwrap();
    let t = matrix_transpose(&m).unwrap();
    assert_eq!((t.shape(), i64s(&t)[..4].to_vec()), (&[4, 3][..], vec![0, 4, 8, 1]));
    assert_eq!(kind(matrix_transpose(&Array::full_on(&d, &[3], 0, DType::F64).unwrap())), "Value");

    let v = Array::from_slice_on(&d, &[0i64, 1, 2, 3, 4], &[5]).unwrap();
    let w = sliding_window_view(&v, &[3], None).unwrap();
    assert_eq!((w.shape(), i64s(&w)), (&[3, 3][..], vec![0, 1, 2, 1, 2, 3, 2, 3, 4]));
    assert!(w.shares_buffer(&v));
    let w = sliding_window_view(&m, &[2], Some(&[0])).unwrap();
    assert_eq!(w.shape(), [2, 4, 2]);
    assert_eq!(i64s(&w)[..4], [0, 4, 1, 5]);
    // A repeated axis windows it twice, as NumPy.
    assert_eq!(sliding_window_view(&m, &[2, 2], Some(&[1, 1])).unwrap().shape(), [3, 2, 2, 2]);
    assert_eq!(sliding_window_view(&m, &[0, 0], None).unwrap().shape(), [4, 5, 0, 0]);
    assert_eq!(kind(sliding_window_view(&v, &[6], None)), "Value");
    assert_eq!(kind(sliding_window_view(&m, &[2], None)), "Value");
    assert_eq!(kind(sliding_window_view(&m, &[2], Some(&[0, 1]))), "Value");
}

#[test]
fn index_helpers_from_arrays() {
    let d = cpu();
    let a = Array::full_on(&d, &[3, 4], 0, DType::F64).unwrap();
    let (r, c) = tril_indices_from(&a, 1).unwrap();
    assert_eq!((r.dtype(), i64s(&r)), (DType::I64, vec![0, 0, 1, 1, 1, 2, 2, 2, 2]));
    assert_eq!(i64s(&c), [0, 1, 0, 1, 2, 0, 1, 2, 3]);
    let (r, c) = triu_indices_from(&Array::full_on(&d, &[3, 2], 0, DType::F64).unwrap(), -1).unwrap();
    assert_eq!((i64s(&r), i64s(&c)), (vec![0, 0, 1, 1, 2], vec![0, 1, 0, 1, 1]));
    let cube = Array::full_on(&d, &[3, 3, 3], 0, DType::F32).unwrap();
    let di = diag_indices_from(&cube).unwrap();
    assert_eq!(di.len(), 3);
    assert_eq!(i64s(&di[2]), [0, 1, 2]);
    assert_eq!(kind(diag_indices_from(&a)), "Value");
    assert_eq!(kind(tril_indices_from(&cube, 0)), "Value");
}

#[test]
fn polynomial_arithmetic_matches_numpy() {
    let d = cpu();
    let i = |v: &[i64]| Array::from_slice_on(&d, v, &[v.len()]).unwrap();
    let f = |v: &[f64]| Array::from_slice_on(&d, v, &[v.len()]).unwrap();
    let s = polyadd(&i(&[1, 2]), &i(&[1, 2, 3])).unwrap();
    assert_eq!((s.dtype(), i64s(&s)), (DType::I64, vec![1, 3, 5]));
    assert_eq!(f64s(&polysub(&f(&[1.5, 2.0, 3.0]), &i(&[1, 1])).unwrap()), [1.5, 1.0, 2.0]);
    assert_eq!(i64s(&polymul(&i(&[1, 2]), &i(&[1, -2, 3])).unwrap()), [1, 0, -1, 6]);

    assert_eq!(i64s(&polyder(&i(&[1, 2, 3, 4]), 2).unwrap()), [6, 4]);
    assert_eq!(polyder(&i(&[1, 2]), 3).unwrap().size(), 0);
    let f32s = Array::from_slice_on(&d, &[1.0f32, 2.0, 3.0], &[3]).unwrap();
    assert_eq!(polyder(&f32s, 1).unwrap().dtype(), DType::F64);
    assert_eq!(polyder(&f32s, 0).unwrap().dtype(), DType::F32);

    let p = i(&[3, 2, 1]);
    let y = polyint(&p, 1, None).unwrap();
    assert_eq!((y.dtype(), f64s(&y)), (DType::F64, vec![1.0, 1.0, 1.0, 0.0]));
    let y = polyint(&p, 2, Some(&[1.into(), 2.into()])).unwrap();
    assert_eq!(f64s(&y), [0.25, 1.0 / 3.0, 0.5, 1.0, 2.0]);
    let y = polyint(&p, 2, Some(&[Scalar::Float(3.0)])).unwrap();
    assert_eq!(f64s(&y)[3..], [3.0, 3.0]);
    assert_eq!(kind(polyint(&p, 3, Some(&[1.into(), 2.into()]))), "Value");

    // np.polydiv([1, -3, 0, 2], [1, -1]) == ([1, -2, -2], [0])
    let (q, r) = polydiv(&i(&[1, -3, 0, 2]), &i(&[1, -1])).unwrap();
    assert_eq!((q.dtype(), f64s(&q), f64s(&r)), (DType::F64, vec![1.0, -2.0, -2.0], vec![0.0]));
    let (q, r) = polydiv(&f(&[1.0, 0.0, 1.0]), &f(&[2.0, 0.0])).unwrap();
    assert_eq!((f64s(&q), f64s(&r)), (vec![0.5, 0.0], vec![1.0]));

    assert_eq!(f64s(&poly(&i(&[1, 2, 3])).unwrap()), [1.0, -6.0, 11.0, -6.0]);
    let c = Array::from_slice_on(
        &d,
        &[num_complex::Complex64::new(0.0, 1.0), num_complex::Complex64::new(0.0, -1.0)],
        &[2],
    )
    .unwrap();
    let pc = poly(&c).unwrap();
    assert_eq!((pc.dtype(), f64s(&pc)), (DType::F64, vec![1.0, 0.0, 1.0]));
    // The characteristic polynomial of [[1, 2], [3, 4]]: [1, -5, -2].
    let m = Array::from_slice_on(&d, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let cp = f64s(&poly(&m).unwrap());
    for (g, w) in cp.iter().zip([1.0, -5.0, -2.0]) {
        assert!((g - w).abs() < 1e-12, "{cp:?}");
    }
}

#[test]
fn vecdot_conjugates_the_first_operand() {
    let d = cpu();
    use num_complex::Complex64 as C;
    let a: Vec<C> = (0..6).map(|k| C::new(k as f64, 1.0)).collect();
    let a = Array::from_slice_on(&d, &a, &[2, 3]).unwrap();
    let b = Array::from_slice_on(&d, &[C::new(2.0, -1.0); 6], &[2, 3]).unwrap();
    let r = vecdot(&a, &b, -1).unwrap();
    assert_eq!(r.to_vec::<C>().unwrap(), [C::new(3.0, -9.0), C::new(21.0, -18.0)]);
    let r = linalg::vecdot(&a, &b, 0).unwrap();
    assert_eq!(r.to_vec::<C>().unwrap(), [C::new(4.0, -7.0), C::new(8.0, -9.0), C::new(12.0, -11.0)]);
    // Integers keep their dtype; the other axes broadcast.
    let x = Array::from_slice_on(&d, &[1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let y = Array::from_slice_on(&d, &[1i32, 1, 1], &[3]).unwrap();
    let r = vecdot(&x, &y, -1).unwrap();
    assert_eq!((r.dtype(), i64s(&r)), (DType::I32, vec![6, 15]));
    assert_eq!(kind(vecdot(&x, &y, 0)), "Value");
}

#[test]
fn finfo_and_iinfo_give_numpys_limits() {
    let f = finfo(DType::F64).unwrap();
    assert_eq!((f.eps, f.epsneg, f.max, f.min), (f64::EPSILON, f64::EPSILON / 2.0, f64::MAX, f64::MIN));
    assert_eq!((f.smallest_normal, f.smallest_subnormal, f.resolution), (f64::MIN_POSITIVE, 5e-324, 1e-15));
    assert_eq!((f.bits, f.precision, f.nmant, f.iexp, f.minexp, f.maxexp), (64, 15, 52, 11, -1022, 1024));
    let f = finfo(DType::C64).unwrap();
    assert_eq!((f.dtype, f.eps, f.max, f.precision), (DType::F32, f32::EPSILON as f64, f32::MAX as f64, 6));
    assert_eq!(f.smallest_subnormal, 2f64.powi(-149));
    // np.finfo(np.float16): eps 2**-10, max 65504, tiny 2**-14, subnormal 2**-24, resolution 1e-3.
    let h = finfo(DType::F16).unwrap();
    assert_eq!(
        (h.eps, h.max, h.tiny, h.smallest_subnormal, h.resolution),
        (2f64.powi(-10), 65504.0, 2f64.powi(-14), 2f64.powi(-24), 1e-3)
    );
    assert_eq!((h.bits, h.precision, h.machep, h.negep, h.maxexp), (16, 3, -10, -11, 16));
    assert_eq!(kind(finfo(DType::I32)), "Value");

    let i = iinfo(DType::I8).unwrap();
    assert_eq!((i.min, i.max, i.bits), (-128, 127, 8));
    assert_eq!(iinfo(DType::U64).unwrap().max, u64::MAX as i128);
    assert_eq!(kind(iinfo(DType::F32)), "Value");
    assert_eq!(kind(iinfo(DType::Bool)), "Value");
}

#[test]
fn real_if_close_reads_tol_in_epsilons() {
    let d = cpu();
    use num_complex::Complex64 as C;
    let a = Array::from_slice_on(&d, &[C::new(1.0, 1e-20), C::new(2.0, 0.0)], &[2]).unwrap();
    let r = real_if_close(&a, 100.0).unwrap();
    assert_eq!((r.dtype(), f64s(&r)), (DType::F64, vec![1.0, 2.0]));
    let b = Array::from_slice_on(&d, &[C::new(1.0, 1e-9), C::new(2.0, 0.0)], &[2]).unwrap();
    assert_eq!(real_if_close(&b, 100.0).unwrap().dtype(), DType::C128);
    // complex64: 100 epsilons of float32 is about 1.2e-5.
    let c = b.astype(DType::C64).unwrap();
    assert_eq!(real_if_close(&c, 100.0).unwrap().dtype(), DType::F32);
    assert_eq!(real_if_close(&b, 1e-8).unwrap().dtype(), DType::F64);
    let x = Array::from_slice_on(&d, &[1.0f32], &[1]).unwrap();
    assert_eq!(real_if_close(&x, 100.0).unwrap().dtype(), DType::F32);
}

#[test]
fn apply_along_axis_places_the_answers_axes_at_axis() {
    let d = cpu();
    let x = Array::from_slice_on(&d, &(0..24).collect::<Vec<i64>>(), &[2, 3, 4]).unwrap();
    let s = apply_along_axis(|v| v.sum(None, false), 1, &x).unwrap();
    assert_eq!((s.shape(), i64s(&s)), (&[2, 4][..], i64s(&x.sum(Some(&[1]), false).unwrap())));
    let c = apply_along_axis(|v| v.cumsum(None), 0, &x).unwrap();
    assert_eq!((c.shape(), i64s(&c)), (&[2, 3, 4][..], i64s(&x.cumsum(Some(0)).unwrap())));
    // Each answer 2-d: the answer's axes replace the axis.
    let o = apply_along_axis(|v| linalg::outer(v, v), 2, &x).unwrap();
    assert_eq!(o.shape(), [2, 3, 4, 4]);
    assert_eq!(i64s(&o)[4..8], [0, 1, 2, 3]);
    let m = apply_along_axis(|v| v.mean(None, false), -1, &x).unwrap();
    assert_eq!((m.dtype(), f64s(&m)[..2].to_vec()), (DType::F64, vec![1.5, 5.5]));
    let empty = Array::full_on(&d, &[0, 3], 0, DType::F64).unwrap();
    assert_eq!(kind(apply_along_axis(|v| v.sum(None, false), 1, &empty)), "Value");
    assert_eq!(kind(apply_along_axis(|v| v.sum(None, false), 3, &x)), "Value");
}

#[test]
fn tensorsolve_and_tensorinv_invert_tensordot() {
    let d = cpu();
    with_device(&d, || {
        // a of shape (2, 3, 6) = the identity reshaped, scaled: x = b / 2.
        let a = eye(6, None, 0, DType::F64).unwrap().mul_scalar(2.0).unwrap().reshape(&[2, 3, 6]).unwrap();
        let b = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let x = linalg::tensorsolve(&a, &b, None).unwrap();
        assert_eq!((x.shape(), f64s(&x)), (&[6][..], vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0]));
        // axes moves axis 0 last first.
        let a4 = eye(6, None, 0, DType::F64).unwrap().reshape(&[6, 2, 3]).unwrap();
        let x = linalg::tensorsolve(&a4, &b, Some(&[0])).unwrap();
        assert_eq!(x.shape(), [6]);
        assert_eq!(kind(linalg::tensorsolve(&a, &b, Some(&[3]))), "Value");
        let bad = Array::full_on(&d, &[2, 3, 5], 1, DType::F64).unwrap();
        assert_eq!(kind(linalg::tensorsolve(&bad, &b, None)), "LinAlg");
        let zero = Array::full_on(&d, &[2, 3, 6], 0, DType::F64).unwrap();
        assert_eq!(kind(linalg::tensorsolve(&zero, &b, None)), "LinAlg");

        let t = eye(24, None, 0, DType::F32).unwrap().mul_scalar(4.0).unwrap().reshape(&[4, 6, 8, 3]).unwrap();
        let ti = linalg::tensorinv(&t, 2).unwrap();
        assert_eq!((ti.shape(), ti.dtype()), (&[8, 3, 4, 6][..], DType::F32));
        let back = linalg::tensordot(&ti, &t, linalg::TensorAxes::Count(2)).unwrap();
        assert_eq!(back.shape(), [8, 3, 8, 3]);
        let want = eye(24, None, 0, DType::F64).unwrap();
        assert_eq!(f64s(&back), f64s(&want));
        assert_eq!(kind(linalg::tensorinv(&t, 0)), "Value");
        assert_eq!(kind(linalg::tensorinv(&t, 1)), "LinAlg");
    });
}
