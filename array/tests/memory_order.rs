//! Memory order on the CPU backend: creation in Fortran order, `flags`, copies, `reshape`
//! and `ravel` in F index order against a host reference, elementwise results keeping an F
//! layout (with lazy fusion on and off), and libraries given F-ordered inputs.

use std::sync::Arc;

use ndarray::ShapeBuilder;
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn on_cpu<R>(f: impl FnOnce() -> R) -> R {
    with_device(&cpu(), f)
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tol * w.abs().max(1.0), "{got:?} vs {want:?}");
    }
}

/// `0, 1, …` as float64 of `shape`, C order.
fn seq(shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    let shape: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    arange(0, n as i64, 1, Some(DType::F64)).unwrap().reshape(&shape).unwrap()
}

/// Unit of `shape`'s dimension `d` (C strides of `shape`).
fn c_index(shape: &[usize], mut flat: usize) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = flat % shape[d];
        flat /= shape[d];
    }
    idx
}

/// Host reference of NumPy's `reshape(new, order='F')` of values given in C order over
/// `old`: the values read in Fortran index order and placed in Fortran index order; returned
/// in the C order of `new`.
fn f_reshape_ref(vals: &[f64], old: &[usize], new: &[usize]) -> Vec<f64> {
    let f_flat = |shape: &[usize], idx: &[usize]| {
        let (mut f, mut m) = (0, 1);
        for d in 0..shape.len() {
            f += idx[d] * m;
            m *= shape[d];
        }
        f
    };
    let n = vals.len();
    // F-ravel of the old array.
    let mut ravel = vec![0.0; n];
    for (c, &v) in vals.iter().enumerate() {
        ravel[f_flat(old, &c_index(old, c))] = v;
    }
    (0..n).map(|c| ravel[f_flat(new, &c_index(new, c))]).collect()
}

#[test]
fn order_parses_and_prints_as_numpy_spells_it() {
    assert_eq!("F".parse::<Order>().unwrap(), Order::F);
    assert_eq!("k".parse::<Order>().unwrap(), Order::K);
    assert_eq!(Order::A.to_string(), "A");
    assert_eq!(Order::default(), Order::C);
    assert_eq!("Z".parse::<Order>().unwrap_err().kind(), "Value");
}

#[test]
fn creation_in_fortran_order() {
    on_cpu(|| {
        let z = zeros_order(&[2, 3], DType::F32, Order::F).unwrap();
        assert_eq!(z.strides(), [1, 2]);
        assert_eq!(z.to_vec::<f32>().unwrap(), [0.0; 6]);
        let f = z.flags();
        assert!(f.f_contiguous && !f.c_contiguous && f.owndata && f.writeable, "{f:?}");
        let o = ones_order(&[3, 2, 4], DType::I32, Order::F).unwrap();
        assert_eq!(o.strides(), [1, 3, 6]);
        assert_eq!(o.to_vec::<i32>().unwrap(), vec![1; 24]);
        let v = full_order(&[2, 2], 7.5, DType::F64, Order::F).unwrap();
        assert_eq!(v.to_vec::<f64>().unwrap(), [7.5; 4]);
        assert_eq!(full_order(&[2], 300, DType::U8, Order::F).unwrap_err().kind(), "Overflow");
        let e = empty_order(&[4, 5], DType::C64, Order::F).unwrap();
        assert_eq!(e.strides(), [1, 4]);
        assert_eq!(zeros_order(&[2, 3], DType::F32, Order::C).unwrap().strides(), [3, 1]);
        for bad in [Order::A, Order::K] {
            let err = empty_order(&[2, 3], DType::F32, bad).unwrap_err();
            assert_eq!(err.kind(), "Value");
            assert!(err.to_string().contains("only 'C' or 'F'"), "{err}");
        }
        // Host data is the logical C order; the order says how it is stored.
        let h = Array::from_slice_order(&[1i64, 2, 3, 4, 5, 6], &[2, 3], Order::F).unwrap();
        assert_eq!(h.strides(), [1, 2]);
        assert!(h.flags().owndata);
        assert_eq!(h.to_vec::<i64>().unwrap(), [1, 2, 3, 4, 5, 6]);
        assert_eq!(h.slice(&[SliceArg::ALL, SliceArg::Index(1)]).unwrap().to_vec::<i64>().unwrap(), [2, 5]);
        assert_eq!(Array::from_slice_order(&[1u8, 2], &[3], Order::F).unwrap_err().kind(), "ShapeMismatch");
    })
}

#[test]
fn like_functions_keep_the_prototypes_order() {
    on_cpu(|| {
        let c = seq(&[3, 4]);
        let f = asfortranarray(&c).unwrap();
        // NumPy's default order='K'.
        assert_eq!(zeros_like(&f).unwrap().strides(), [1, 3]);
        assert_eq!(ones_like(&f).unwrap().to_vec::<f64>().unwrap(), vec![1.0; 12]);
        assert_eq!(full_like(&f, 2).unwrap().strides(), [1, 3]);
        assert_eq!(empty_like(&f).unwrap().strides(), [1, 3]);
        assert_eq!(zeros_like(&c).unwrap().strides(), [4, 1]);
        assert_eq!(zeros_like_order(&f, Order::C).unwrap().strides(), [4, 1]);
        assert_eq!(zeros_like_order(&c, Order::F).unwrap().strides(), [1, 3]);
        assert_eq!(zeros_like_order(&f, Order::A).unwrap().strides(), [1, 3]);
        assert_eq!(zeros_like_order(&c, Order::A).unwrap().strides(), [4, 1]);
        // K of a permuted 3-d view: the same order of axes by stride.
        let p = seq(&[2, 3, 4]).permute(&[2, 0, 1]).unwrap();
        assert_eq!(p.strides(), [1, 12, 4]);
        let k = empty_like_order(&p, Order::K).unwrap();
        assert_eq!(k.strides(), [1, 12, 4]);
        assert!(k.flags().owndata);
        let v = full_like_order(&p, 3.0, Order::K).unwrap();
        assert_eq!(v.to_vec::<f64>().unwrap(), vec![3.0; 24]);
        // A strided C view: K is C.
        let s = c.slice(&[SliceArg::range(0, 3, 2)]).unwrap();
        assert_eq!(zeros_like(&s).unwrap().strides(), [4, 1]);
    })
}

#[test]
fn flags_follow_numpys_rules() {
    on_cpu(|| {
        // np.arange(6).reshape(2, 3) is a view of the arange; its copy owns its data.
        assert!(!seq(&[2, 3]).flags().owndata);
        let a = seq(&[2, 3]).copy().unwrap();
        let fl = a.flags();
        assert!(fl.c_contiguous && !fl.f_contiguous && fl.owndata && fl.writeable, "{fl:?}");
        // a.T of a C array is F-contiguous, and a view.
        let t = a.t().flags();
        assert!(!t.c_contiguous && t.f_contiguous && !t.owndata, "{t:?}");
        // 1-d contiguous: both.
        let v = Array::from_vec(vec![1.0f32, 2.0, 3.0]).unwrap().flags();
        assert!(v.c_contiguous && v.f_contiguous && v.owndata);
        // 0-d, one element, empty: both.
        for x in [Array::from_slice(&[5i32], &[]).unwrap(), seq(&[1, 1]), zeros(&[0, 3], DType::F32).unwrap()] {
            let fl = x.flags();
            assert!(fl.c_contiguous && fl.f_contiguous, "{:?}: {fl:?}", x.shape());
        }
        // A strided slice: neither, and a view.
        let s = seq(&[4, 6]).slice(&[SliceArg::ALL, SliceArg::range(0, 6, 2)]).unwrap().flags();
        assert!(!s.c_contiguous && !s.f_contiguous && !s.owndata);
        // A column of a C array is 1-d but strided: neither.
        let col = a.slice(&[SliceArg::ALL, SliceArg::Index(1)]).unwrap().flags();
        assert!(!col.c_contiguous && !col.f_contiguous && !col.owndata);
        // A row of a C array: contiguous 1-d view.
        let row = a.slice(&[SliceArg::Index(1)]).unwrap().flags();
        assert!(row.c_contiguous && row.f_contiguous && !row.owndata);
        // Views that change the shape or the dtype do not own; a Rust clone is the same array.
        assert!(!a.reshape(&[3, 2]).unwrap().flags().owndata);
        assert!(a.clone().flags().owndata);
        let z = zeros(&[3], DType::C64).unwrap();
        assert!(z.flags().owndata && !z.real().flags().owndata);
        // Results own their data, whatever their order.
        assert!(a.t().copy().unwrap().flags().owndata);
        assert!(a.t().exp().unwrap().flags().owndata);
        assert!(a.flags().to_string().contains("F_CONTIGUOUS : False"));
    })
}

#[test]
fn read_only_imports_are_not_writeable() {
    on_cpu(|| {
        let host = ndarray::Array2::<f64>::zeros((2, 3)).into_shared();
        let a = Array::from_ndarray_shared(&host).unwrap();
        let fl = a.flags();
        assert!(!fl.writeable && !fl.owndata && fl.c_contiguous, "{fl:?}");
        // Foreign memory lent writable: writeable, still not owned by xp.
        let f = ndarray::Array2::<f32>::zeros((3, 2).f());
        let b = Array::from_ndarray_owned(f).unwrap();
        let fl = b.flags();
        assert!(fl.writeable && !fl.owndata && fl.f_contiguous && !fl.c_contiguous, "{fl:?}");
    })
}

#[test]
fn copies_in_every_order() {
    on_cpu(|| {
        // Large enough for the tiled transpose path, and a small one.
        for shape in [[3usize, 4], [80, 70]] {
            let c = seq(&shape);
            let want = f64s(&c);
            let f = c.copy_order(Order::F).unwrap();
            assert_eq!(f.strides(), [1, shape[0] as isize]);
            assert!(f.flags().owndata && !f.shares_buffer(&c));
            assert_eq!(f64s(&f), want);
            let back = f.copy_order(Order::C).unwrap();
            assert_eq!(back.strides(), [shape[1] as isize, 1]);
            assert_eq!(f64s(&back), want);
            assert!(f.copy_order(Order::A).unwrap().is_f_contiguous());
            assert!(!c.copy_order(Order::A).unwrap().is_f_contiguous());
            assert_eq!(f.copy_order(Order::K).unwrap().strides(), f.strides());
            assert_eq!(f.copy().unwrap().strides(), [shape[1] as isize, 1]);
            assert_eq!(f64s(&f.copy().unwrap()), want);
        }
        // K of a permuted view keeps its order of axes; values stay.
        let p = seq(&[2, 3, 4]).permute(&[1, 2, 0]).unwrap();
        let k = p.copy_order(Order::K).unwrap();
        assert_eq!(k.strides(), [4, 1, 12]);
        assert_eq!(f64s(&k), f64s(&p));
        // asfortranarray / ascontiguousarray: the array itself when already in order.
        let c = seq(&[3, 5]);
        let f = asfortranarray(&c).unwrap();
        assert!(f.is_f_contiguous() && !f.is_contiguous());
        assert!(asfortranarray(&f).unwrap().shares_buffer(&f));
        assert!(ascontiguousarray(&c).unwrap().shares_buffer(&c));
        let cc = ascontiguousarray(&f).unwrap();
        assert!(cc.is_contiguous() && !cc.shares_buffer(&f));
        assert_eq!(f64s(&cc), f64s(&c));
        let s = Array::from_slice(&[2.5f32], &[]).unwrap();
        assert_eq!(asfortranarray(&s).unwrap().shape(), [1]);
        assert_eq!(ascontiguousarray(&s).unwrap().shape(), [1]);
    })
}

#[test]
fn reshape_in_fortran_order_matches_numpy() {
    on_cpu(|| {
        // np.arange(6).reshape((2, 3), order='F') is [[0, 2, 4], [1, 3, 5]].
        let a = arange(0, 6, 1, None).unwrap().reshape_order(&[2, 3], Order::F).unwrap();
        assert_eq!(a.to_vec::<i64>().unwrap(), [0, 2, 4, 1, 3, 5]);
        // np.arange(12).reshape(3, 4).reshape((2, 6), order='F').
        let c = seq(&[3, 4]);
        let r = c.reshape_order(&[2, -1], Order::F).unwrap();
        assert_eq!(r.shape(), [2, 6]);
        assert_eq!(f64s(&r), [0., 8., 5., 2., 10., 7., 4., 1., 9., 6., 3., 11.]);
        // Against the host reference: C and F sources, views, 3-d.
        let cases: Vec<(Array, Vec<usize>)> = vec![
            (seq(&[2, 3, 4]), vec![4, 6]),
            (seq(&[2, 3, 4]), vec![3, 2, 2, 2]),
            (asfortranarray(&seq(&[4, 6])).unwrap(), vec![2, 12]),
            (seq(&[4, 6]).slice(&[SliceArg::ALL, SliceArg::range(0, 6, 2)]).unwrap(), vec![3, 4]),
            (seq(&[5, 4]).t(), vec![10, 2]),
        ];
        for (x, new) in cases {
            let want = f_reshape_ref(&f64s(&x), x.shape(), &new);
            let shape: Vec<isize> = new.iter().map(|&d| d as isize).collect();
            let got = x.reshape_order(&shape, Order::F).unwrap();
            assert_eq!(got.shape(), new.as_slice());
            assert_eq!(f64s(&got), want, "{:?} -> {new:?}", x.shape());
        }
        // An F-contiguous array reshapes in F order as a view, as NumPy.
        let f = asfortranarray(&seq(&[4, 6])).unwrap();
        let v = f.reshape_order(&[8, 3], Order::F).unwrap();
        assert!(v.shares_buffer(&f) && v.is_f_contiguous());
        // A: F for an F-contiguous array, C otherwise; K refused.
        assert_eq!(f64s(&f.reshape_order(&[24], Order::A).unwrap()), f64s(&f.reshape_order(&[24], Order::F).unwrap()));
        assert_eq!(f64s(&c.reshape_order(&[12], Order::A).unwrap()), f64s(&c.reshape(&[12]).unwrap()));
        assert_eq!(c.reshape_order(&[12], Order::K).unwrap_err().kind(), "Value");
        assert_eq!(c.reshape_order(&[5, -1], Order::F).unwrap_err().kind(), "Value");
    })
}

#[test]
fn ravel_and_flatten_in_each_order() {
    on_cpu(|| {
        let c = seq(&[2, 3]);
        assert_eq!(f64s(&c.ravel_order(Order::C).unwrap()), [0., 1., 2., 3., 4., 5.]);
        assert_eq!(f64s(&c.ravel_order(Order::F).unwrap()), [0., 3., 1., 4., 2., 5.]);
        assert_eq!(f64s(&c.ravel_order(Order::A).unwrap()), [0., 1., 2., 3., 4., 5.]);
        // K: memory order. The transpose of a C array lies in memory as the array does.
        let t = c.t();
        assert_eq!(f64s(&t.ravel_order(Order::K).unwrap()), [0., 1., 2., 3., 4., 5.]);
        assert!(t.ravel_order(Order::K).unwrap().shares_buffer(&c));
        assert_eq!(f64s(&t.ravel_order(Order::A).unwrap()), [0., 1., 2., 3., 4., 5.]);
        assert_eq!(f64s(&t.ravel_order(Order::C).unwrap()), [0., 3., 1., 4., 2., 5.]);
        // Negative strides are read in memory order too (NumPy: a[:, ::-1].ravel('K')).
        let rev = c.slice(&[SliceArg::ALL, SliceArg::Range { start: None, stop: None, step: Some(-1) }]).unwrap();
        assert_eq!(f64s(&rev.ravel_order(Order::K).unwrap()), [0., 1., 2., 3., 4., 5.]);
        // flatten always copies.
        for o in [Order::C, Order::F, Order::A, Order::K] {
            let fl = c.flatten(o).unwrap();
            assert!(!fl.shares_buffer(&c), "{o}");
            assert_eq!(fl.shape(), [6]);
        }
        assert_eq!(f64s(&c.flatten(Order::F).unwrap()), [0., 3., 1., 4., 2., 5.]);
    })
}

/// The elementwise checks, run with lazy fusion as the process has it and with it off.
fn elementwise_checks() {
    let c = seq(&[5, 7]);
    let f = asfortranarray(&c).unwrap();
    let fl = |x: &Array| (x.flags().c_contiguous, x.flags().f_contiguous);
    let add = &f + &f;
    assert_eq!(fl(&add), (false, true));
    assert_eq!(f64s(&add), f64s(&(&c + &c)));
    let scaled = &f * 2.0;
    assert_eq!(fl(&scaled), (false, true));
    let e = f.exp().unwrap();
    assert_eq!(fl(&e), (false, true));
    close(&f64s(&e), &f64s(&c.exp().unwrap()), 0.0);
    // A broadcast input does not count; a C input of the full shape makes it C.
    let row = seq(&[7]);
    assert_eq!(fl(&(&f + &row)), (false, true));
    assert_eq!(f64s(&(&f + &row)), f64s(&(&c + &row)));
    let mixed = &f + &c;
    assert_eq!(fl(&mixed), (true, false));
    assert_eq!(f64s(&mixed), f64s(&(&c * 2.0)));
    // A chain (one fused kernel when lazy), read back and reduced.
    let chain = &(&(&f * 3.0) + &f).sqrt().unwrap() - 1.0;
    assert_eq!(fl(&chain), (false, true));
    let want_chain = &(&(&c * 3.0) + &c).sqrt().unwrap() - 1.0;
    close(&f64s(&chain), &f64s(&want_chain), 1e-15);
    let s = (&(&f * &f) + 1.0).sum(Some(&[0]), false).unwrap();
    close(&f64s(&s), &f64s(&(&(&c * &c) + 1.0).sum(Some(&[0]), false).unwrap()), 1e-12);
    let s_all = (&f * 2.0).sum(None, false).unwrap().item::<f64>().unwrap();
    assert_eq!(s_all, 2.0 * (0..35).sum::<i32>() as f64);
    // A transposed view of a pending F result, mixed with C: values stay right.
    let pt = (&f + 1.0).t();
    assert_eq!(fl(&pt), (true, false));
    assert_eq!(f64s(&(&pt + &c.t().copy().unwrap())), f64s(&(&(&c + 1.0) + &c).t()));
    // where and comparisons.
    let w = where_(&f.gt(10.0).unwrap(), (&f).into(), 0.0.into()).unwrap();
    assert_eq!(fl(&w), (false, true));
    assert_eq!(f64s(&w), f64s(&where_(&c.gt(10.0).unwrap(), (&c).into(), 0.0.into()).unwrap()));
    // astype keeps the order (K); astype_order chooses it.
    let i = f.astype(DType::I32).unwrap();
    assert_eq!(fl(&i), (false, true));
    assert_eq!(i.to_vec::<i32>().unwrap(), (0..35).collect::<Vec<i32>>());
    let ic = f.astype_order(DType::I32, Order::C).unwrap();
    assert_eq!(fl(&ic), (true, false));
    assert_eq!(ic.to_vec::<i32>().unwrap(), (0..35).collect::<Vec<i32>>());
    // An F result computed together with a C one (one evaluation).
    let (p, q) = (&f + 2.0, &c + 2.0);
    eval(&[&p, &q]).unwrap();
    assert_eq!((fl(&p), fl(&q)), ((false, true), (true, false)));
    assert_eq!(f64s(&p), f64s(&q));
    // out= keeps its own layout.
    let out = zeros(&[5, 7], DType::F64).unwrap();
    call("add", &[Operand::Array(&f), Operand::Array(&f)], Some(&out)).unwrap();
    assert_eq!(fl(&out), (true, false));
    assert_eq!(f64s(&out), f64s(&(&c + &c)));
}

#[test]
fn elementwise_results_keep_fortran_order() {
    on_cpu(|| {
        elementwise_checks();
        lazy::disabled(elementwise_checks);
        // Lazy on: the F result of an op is pending until read, and keeps its layout.
        if lazy::enabled().unwrap() {
            let f = asfortranarray(&seq(&[4, 3])).unwrap();
            let p = &(&f * 2.0) + &f;
            assert!(p.is_pending());
            assert!(p.is_f_contiguous() && !p.is_contiguous());
            assert_eq!(f64s(&p), f64s(&(&seq(&[4, 3]) * 3.0)));
        }
    })
}

#[test]
fn reductions_and_scans_of_fortran_arrays() {
    on_cpu(|| {
        let c = seq(&[6, 9, 4]);
        let f = asfortranarray(&c).unwrap();
        for axes in [vec![0isize], vec![1], vec![2], vec![0, 2], vec![-1, 1]] {
            close(&f64s(&f.sum(Some(&axes), false).unwrap()), &f64s(&c.sum(Some(&axes), false).unwrap()), 1e-12);
            assert_eq!(f64s(&f.max(Some(&axes), true).unwrap()), f64s(&c.max(Some(&axes), true).unwrap()));
        }
        assert_eq!(f.sum(None, false).unwrap().item::<f64>().unwrap(), (0..216).sum::<i32>() as f64);
        assert_eq!(f64s(&f.cumsum(Some(1)).unwrap()), f64s(&c.cumsum(Some(1)).unwrap()));
        assert_eq!(f64s(&f.cumsum(None).unwrap()), f64s(&c.cumsum(None).unwrap()));
        assert_eq!(f64s(&f.argmax(Some(0)).unwrap()), f64s(&c.argmax(Some(0)).unwrap()));
    })
}

#[test]
fn libraries_take_fortran_inputs() {
    on_cpu(|| {
        // Values that are not symmetric in any way, so a layout mix-up shows.
        let a = (&(&seq(&[4, 4]) * 0.37).sin().unwrap() + &identity(4, DType::F64).unwrap().mul_scalar(3.0).unwrap())
            .copy()
            .unwrap();
        let b = (&seq(&[4, 3]) * 0.11).cos().unwrap().copy().unwrap();
        let (fa, fb) = (asfortranarray(&a).unwrap(), asfortranarray(&b).unwrap());
        assert!(fa.is_f_contiguous() && !fa.is_contiguous());
        let want = f64s(&linalg::matmul(&a, &b).unwrap());
        close(&f64s(&linalg::matmul(&fa, &fb).unwrap()), &want, 1e-12);
        close(&f64s(&linalg::dot(&fa, &b).unwrap()), &want, 1e-12);
        close(&f64s(&linalg::dot(&a, &fb).unwrap()), &want, 1e-12);
        // solve
        let want = f64s(&linalg::solve(&a, &b).unwrap());
        close(&f64s(&linalg::solve(&fa, &fb).unwrap()), &want, 1e-12);
        close(&f64s(&linalg::solve(&fa, &b).unwrap()), &want, 1e-12);
        // An F float32 matrix solved in float64 goes through the cast.
        let a32 = fa.astype(DType::F32).unwrap();
        assert!(a32.is_f_contiguous() && !a32.is_contiguous());
        close(&f64s(&linalg::solve(&a32, &b).unwrap()), &want, 1e-5);
        close(&f64s(&linalg::inv(&fa).unwrap()), &f64s(&linalg::inv(&a).unwrap()), 1e-12);
        // fft along each axis
        for axis in [0isize, 1, -1] {
            let want = fft::fft(&b, None, axis, None).unwrap();
            let got = fft::fft(&fb, None, axis, None).unwrap();
            close(&f64s(&got.real()), &f64s(&want.real()), 1e-12);
            close(&f64s(&got.imag().unwrap()), &f64s(&want.imag().unwrap()), 1e-12);
        }
        // sort and argsort along each axis
        let r = (&seq(&[5, 6]) * 1.7).sin().unwrap();
        let fr = asfortranarray(&r).unwrap();
        for axis in [Some(0isize), Some(1), None] {
            assert_eq!(f64s(&sort(&fr, axis).unwrap()), f64s(&sort(&r, axis).unwrap()));
            assert_eq!(f64s(&argsort(&fr, axis).unwrap()), f64s(&argsort(&r, axis).unwrap()));
        }
        close(&f64s(&fr.sum(Some(&[1]), false).unwrap()), &f64s(&r.sum(Some(&[1]), false).unwrap()), 1e-12);
    })
}

#[test]
fn host_round_trips_read_logical_order() {
    on_cpu(|| {
        let vals: Vec<i16> = (0..24).map(|v| v * 3 - 20).collect();
        let f = Array::from_slice_order(&vals, &[2, 3, 4], Order::F).unwrap();
        assert_eq!(f.strides(), [1, 2, 6]);
        assert_eq!(f.to_vec::<i16>().unwrap(), vals);
        assert_eq!(f.to_vec::<f64>().unwrap(), vals.iter().map(|&v| v as f64).collect::<Vec<_>>());
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(f.to_bytes().unwrap(), bytes);
        assert_eq!(f.item_scalar().unwrap_err().kind(), "Value");
        let cplx = Array::from_slice_order(
            &[num_complex::Complex::new(1.0f32, -1.0), num_complex::Complex::new(2.0, 0.5)],
            &[1, 2],
            Order::F,
        )
        .unwrap();
        assert_eq!(f64s(&cplx.real()), [1.0, 2.0]);
        // A transposed F array reads as the C array it is.
        let t = f.t();
        assert!(t.is_contiguous());
        assert_eq!(t.to_vec::<i16>().unwrap(), f.copy().unwrap().t().copy().unwrap().to_vec::<i16>().unwrap());
        let b = Array::from_slice_order(&[true, false, true, true], &[2, 2], Order::F).unwrap();
        assert_eq!(b.to_vec::<bool>().unwrap(), [true, false, true, true]);
    })
}
