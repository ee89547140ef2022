//! NumPy's order of complex numbers on any device: lexicographic (real part, then
//! imaginary part), and a value with a NaN in either part is "NaN": `max`, `min`, `maximum` and
//! `minimum` return the first NaN, `argmax`/`argmin` its index, `fmax`/`fmin` the other operand,
//! and every comparison with a NaN is false. Expected values are NumPy 2's.

use std::sync::Arc;

use num_complex::Complex;
use xp_array::*;
use xp_backend_api::DynDevice;

type C = Complex<f64>;
const NAN: f64 = f64::NAN;

fn c(re: f64, im: f64) -> C {
    C::new(re, im)
}

/// Equal, with NaN equal to NaN in each part (so that which NaN came back is checked).
fn same(a: C, b: C) -> bool {
    let eq = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    eq(a.re, b.re) && eq(a.im, b.im)
}

fn assert_same(got: &[C], want: &[C]) {
    assert!(got.len() == want.len() && got.iter().zip(want).all(|(g, w)| same(*g, *w)), "{got:?} != {want:?}");
}

/// `want` as `a`'s dtype holds it (complex64 rounds each part).
fn as_dtype_of(a: &Array, want: &[C]) -> Vec<C> {
    let round = |x: f64| if a.dtype() == DType::C64 { x as f32 as f64 } else { x };
    want.iter().map(|w| c(round(w.re), round(w.im))).collect()
}

/// The array of `v` as complex128 and as complex64.
fn both(v: &[C]) -> [Array; 2] {
    let a = Array::from_slice(v, &[v.len()]).unwrap();
    let b = a.astype(DType::C64).unwrap();
    [a, b]
}

fn values(a: &Array) -> Vec<C> {
    a.astype(DType::C128).unwrap().to_vec::<C>().unwrap()
}

pub fn complex_max_and_min_return_the_first_nan(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        // Seed 003: NumPy prints (0.7+nanj) for both, and 1 for both arg-reductions.
        for a in both(&[c(0.5, 3.7), c(0.7, NAN), c(NAN, -3.9), c(NAN, NAN)]) {
            let want = as_dtype_of(&a, &[c(0.7, NAN)]);
            assert_same(&values(&a.max(None, false).unwrap()), &want);
            assert_same(&values(&a.min(None, false).unwrap()), &want);
            assert_eq!(a.argmax(None).unwrap().item::<i64>().unwrap(), 1);
            assert_eq!(a.argmin(None).unwrap().item::<i64>().unwrap(), 1);
        }
        for a in both(&[c(1.0, 2.0), c(1.0, 3.0), c(0.0, 9.0), c(1.0, 3.0), c(-1.0, 5.0)]) {
            assert_same(&values(&a.max(None, false).unwrap()), &[c(1.0, 3.0)]);
            assert_same(&values(&a.min(None, false).unwrap()), &[c(-1.0, 5.0)]);
            assert_eq!(a.argmax(None).unwrap().item::<i64>().unwrap(), 1);
            assert_eq!(a.argmin(None).unwrap().item::<i64>().unwrap(), 4);
        }
    });
}

pub fn complex_max_along_an_axis(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let z = Array::from_slice(&[c(1.0, 2.0), c(NAN, 0.0), c(3.0, NAN), c(1.0, 1.0)], &[2, 2]).unwrap();
        assert_same(&values(&z.max(Some(&[0]), false).unwrap()), &[c(3.0, NAN), c(NAN, 0.0)]);
        assert_same(&values(&z.max(Some(&[1]), false).unwrap()), &[c(NAN, 0.0), c(3.0, NAN)]);
        assert_same(&values(&z.min(Some(&[1]), true).unwrap()), &[c(NAN, 0.0), c(3.0, NAN)]);
        assert_eq!(z.argmax(Some(0)).unwrap().to_vec::<i64>().unwrap(), vec![1, 0]);
        assert_eq!(z.argmin(Some(1)).unwrap().to_vec::<i64>().unwrap(), vec![1, 0]);
    });
}

pub fn complex_max_of_many_elements_keeps_the_first_nan_across_blocks(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = 300_000;
        let mut v: Vec<C> = (0..n).map(|i| c((i % 1000) as f64, (i % 7) as f64)).collect();
        v[250_000] = c(NAN, 1.0);
        v[40_000] = c(2.0, NAN);
        v[260_000] = c(NAN, NAN);
        for a in both(&v) {
            assert_same(&values(&a.max(None, false).unwrap()), &[c(2.0, NAN)]);
            assert_same(&values(&a.min(None, false).unwrap()), &[c(2.0, NAN)]);
            assert_eq!(a.argmax(None).unwrap().item::<i64>().unwrap(), 40_000);
        }
        v[40_000] = c(2.0, 0.0);
        v[250_000] = c(5.0, 0.0);
        v[260_000] = c(5.0, 0.0);
        // No NaN left: the largest is (999, 6), first at i = 6999 (i % 1000 == 999, i % 7 == 6).
        assert_eq!(v[6999], c(999.0, 6.0));
        for a in both(&v) {
            assert_same(&values(&a.max(None, false).unwrap()), &[c(999.0, 6.0)]);
            assert_same(&values(&a.min(None, false).unwrap()), &[c(0.0, 0.0)]);
            assert_eq!(a.argmax(None).unwrap().item::<i64>().unwrap(), 6999);
            assert_eq!(a.argmin(None).unwrap().item::<i64>().unwrap(), 0);
        }
    });
}

pub fn complex_maximum_minimum_fmax_fmin_follow_numpy_with_nans(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = [c(1.0, NAN), c(NAN, 2.0), c(1.0, 1.0), c(0.0, NAN), c(2.0, 0.0), c(2.0, 1.0)];
        let y = [c(NAN, 1.0), c(3.0, NAN), c(0.0, NAN), c(1.0, 1.0), c(2.0, 1.0), c(2.0, 0.0)];
        let [xd, xf] = both(&x);
        let [yd, yf] = both(&y);
        for (a, b) in [(&xd, &yd), (&xf, &yf)] {
            // maximum/minimum: the first NaN operand; fmax/fmin: the other one (the first when both).
            let nan_first = [c(1.0, NAN), c(NAN, 2.0), c(0.0, NAN), c(0.0, NAN)];
            assert_same(&values(&a.maximum(b).unwrap())[..4], &nan_first);
            assert_same(&values(&a.minimum(b).unwrap())[..4], &nan_first);
            assert_same(&values(&a.maximum(b).unwrap())[4..], &[c(2.0, 1.0), c(2.0, 1.0)]);
            assert_same(&values(&a.minimum(b).unwrap())[4..], &[c(2.0, 0.0), c(2.0, 0.0)]);
            let f = [c(1.0, NAN), c(NAN, 2.0), c(1.0, 1.0), c(1.0, 1.0), c(2.0, 1.0), c(2.0, 1.0)];
            assert_same(&values(&a.fmax(b).unwrap()), &f);
            let f = [c(1.0, NAN), c(NAN, 2.0), c(1.0, 1.0), c(1.0, 1.0), c(2.0, 0.0), c(2.0, 0.0)];
            assert_same(&values(&a.fmin(b).unwrap()), &f);
        }
    });
}

pub fn complex_comparisons_are_lexicographic_and_false_with_nan(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let p = [c(1.0, 2.0), c(1.0, 2.0), c(1.0, NAN), c(NAN, 0.0), c(1.0, 0.0), c(2.0, 0.0), c(1.0, 2.0)];
        let q = [c(1.0, 3.0), c(1.0, NAN), c(1.0, 2.0), c(1.0, 0.0), c(2.0, NAN), c(1.0, NAN), c(1.0, 2.0)];
        let [pd, pf] = both(&p);
        let [qd, qf] = both(&q);
        for (a, b) in [(&pd, &qd), (&pf, &qf)] {
            let get = |r: Result<Array>| r.unwrap().to_vec::<bool>().unwrap();
            assert_eq!(get(a.lt(b)), [true, false, false, false, false, false, false]);
            assert_eq!(get(a.le(b)), [true, false, false, false, false, false, true]);
            assert_eq!(get(a.gt(b)), [false; 7]);
            assert_eq!(get(a.ge(b)), [false, false, false, false, false, false, true]);
            assert_eq!(get(a.eq(b)), [false, false, false, false, false, false, true]);
            assert_eq!(get(a.ne(b)), [true, true, true, true, true, true, false]);
            assert_eq!(get(b.gt(a)), [true, false, false, false, false, false, false]);
        }
    });
}

pub fn complex_clip_orders_lexicographically_and_propagates_nan(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for x in both(&[c(0.0, 0.0), c(3.0, 1.0), c(1.0, 5.0), c(NAN, 0.0), c(1.0, 0.0)]) {
            let got = values(&x.clip(c(1.0, 1.0), c(2.0, 2.0)).unwrap());
            assert_same(&got, &[c(1.0, 1.0), c(2.0, 2.0), c(1.0, 5.0), c(NAN, 0.0), c(1.0, 1.0)]);
        }
        for x in both(&[c(0.0, 0.0), c(3.0, 1.0)]) {
            assert_same(&values(&x.clip(c(NAN, 0.0), c(2.0, 2.0)).unwrap()), &[c(NAN, 0.0); 2]);
            assert_same(&values(&x.clip(c(1.0, 0.0), c(0.0, NAN)).unwrap()), &[c(0.0, NAN); 2]);
        }
    });
}
