//! Arrays on the CPU backend: creation, views, ufuncs with promotion, casts, errors.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

#[test]
fn elementwise_with_broadcast_and_promotion() {
    let d = cpu();
    with_device(&d, || {
        let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let b = Array::from_slice(&[10i8, 20, 30], &[3]).unwrap();
        let c = a.add(&b).unwrap();
        assert_eq!(c.dtype(), DType::F32);
        assert_eq!(c.to_vec::<f32>().unwrap(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
        let t = c.t();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.copy().unwrap().to_vec::<f32>().unwrap(), vec![11.0, 14.0, 22.0, 25.0, 33.0, 36.0]);
        let s = (&a * 2.0).to_vec::<f32>().unwrap();
        assert_eq!(s, vec![2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
        let u = Array::from_slice(&[1u8, 2, 3], &[3]).unwrap();
        assert_eq!(u.add_scalar(300).unwrap_err().kind(), "Overflow");
        assert_eq!(u.add_scalar(2).unwrap().to_vec::<u8>().unwrap(), vec![3, 4, 5]);
        let e = a.add(&Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap()).unwrap_err();
        assert_eq!(e.kind(), "ShapeMismatch");
        assert!(e.to_string().contains("[2, 3]") && e.to_string().contains("[2]"), "{e}");
        let r = a.slice(&[SliceArg::ALL, SliceArg::Range { start: None, stop: None, step: Some(-1) }]).unwrap();
        assert_eq!(r.to_vec::<f32>().unwrap(), vec![3.0, 2.0, 1.0, 6.0, 5.0, 4.0]);
        assert_eq!(a.astype(DType::I32).unwrap().to_vec::<i32>().unwrap(), vec![1, 2, 3, 4, 5, 6]);
        let z = zeros(&[3, 2], DType::F64).unwrap();
        assert_eq!(z.to_vec::<f64>().unwrap(), vec![0.0; 6]);
    });
}

#[test]
fn reductions_match_host_sums() {
    let d = cpu();
    with_device(&d, || {
        let v: Vec<f32> = (0..33 * 65).map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0).collect();
        let a = Array::from_slice(&v, &[33, 65]).unwrap();
        let s0 = a.sum(Some(&[0]), false).unwrap().to_vec::<f32>().unwrap();
        for j in 0..65 {
            let want: f64 = (0..33).map(|i| v[i * 65 + j] as f64).sum();
            assert!((s0[j] as f64 - want).abs() < 1e-3, "column {j}: {} vs {want}", s0[j]);
        }
        let total = a.sum(None, false).unwrap().item::<f32>().unwrap() as f64;
        let want: f64 = v.iter().map(|&x| x as f64).sum();
        assert!((total - want).abs() < 1e-2);
        let m = a.max(Some(&[1]), true).unwrap();
        assert_eq!(m.shape(), &[33, 1]);
        let am = a.argmax(None).unwrap().item::<i64>().unwrap() as usize;
        assert_eq!(v[am], v.iter().cloned().fold(f32::MIN, f32::max));
        let sd = a.std(Some(&[1]), 1, false).unwrap().to_vec::<f32>().unwrap();
        let row: Vec<f64> = v[..65].iter().map(|&x| x as f64).collect();
        let mean = row.iter().sum::<f64>() / 65.0;
        let var = row.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 64.0;
        assert!((sd[0] as f64 - var.sqrt()).abs() < 1e-4);
        assert!(matches!(a.sum(Some(&[0, 0]), false), Err(Error::Axis { .. })));
        assert!(matches!(a.sum(Some(&[2]), false), Err(Error::Axis { .. })));
        let e = zeros(&[4, 0], DType::F32).unwrap();
        assert_eq!(e.max(Some(&[1]), false).unwrap_err().kind(), "Value");
        assert_eq!(e.sum(Some(&[1]), false).unwrap().to_vec::<f32>().unwrap(), vec![0.0; 4]);
    });
}

#[test]
fn transposed_copies_are_tiled_and_exact() {
    let d = cpu();
    with_device(&d, || {
        let (r, c) = (130usize, 301usize);
        let v: Vec<i32> = (0..(r * c) as i32).collect();
        let a = Array::from_slice(&v, &[r, c]).unwrap();
        let t = a.t().copy().unwrap().to_vec::<i32>().unwrap();
        for i in 0..c {
            for j in 0..r {
                assert_eq!(t[i * r + j], v[j * c + i]);
            }
        }
        let rev = a.slice(&[SliceArg::Range { start: None, stop: None, step: Some(-1) }, SliceArg::ALL]).unwrap();
        let t2 = rev.t().copy().unwrap().to_vec::<i32>().unwrap();
        assert_eq!(t2[0], v[(r - 1) * c]);
    });
}

#[test]
fn ndarray_round_trip_keeps_shape_order_and_dtype() {
    let d = cpu();
    with_device(&d, || {
        let h = ndarray::Array::from_shape_fn((3, 4), |(i, j)| (10 * i + j) as f32);
        let a = Array::from_ndarray(&h).unwrap();
        assert_eq!((a.shape(), a.dtype()), (&[3usize, 4][..], DType::F32));
        assert_eq!(a.to_ndarray::<f32>().unwrap(), h.clone().into_dyn());
        // A transposed (non-standard) view is read in logical order.
        let t = Array::from_ndarray(&h.t()).unwrap();
        assert_eq!(t.shape(), &[4, 3]);
        assert_eq!(t.to_ndarray::<f32>().unwrap(), h.t().to_owned().into_dyn());
        assert_eq!(t.to_vec::<f32>().unwrap()[..4], [0.0, 10.0, 20.0, 1.0]);
        // Device results come back as standard ndarray arrays, converted on request.
        let s = a.sum(Some(&[1]), false).unwrap().to_ndarray::<f64>().unwrap();
        assert_eq!(s, ndarray::arr1(&[6.0, 46.0, 86.0]).into_dyn());
        let z = Array::from_ndarray(&ndarray::Array2::<i16>::zeros((0, 5))).unwrap();
        assert_eq!((z.shape(), z.to_ndarray::<i16>().unwrap().len()), (&[0usize, 5][..], 0));
        let c = ndarray::arr0(num_complex::Complex::new(1.5f64, -2.0));
        let a0 = Array::from_ndarray(&c).unwrap();
        assert_eq!((a0.ndim(), a0.dtype()), (0, DType::C128));
        assert_eq!(a0.to_ndarray::<num_complex::Complex<f64>>().unwrap(), c.into_dyn());
    });
}

/// The seed's two-stream demo, with the arrays computed on s1 and s2 and then read from the
/// default stream. The read waits for the streams that wrote each array; before, it waited for
/// the current stream alone and returned memory s1 and s2 had not written yet (here both first
/// wait for a long product on s0, so that they are still working when the read comes).
#[test]
fn a_host_read_waits_for_the_streams_that_wrote_the_array() {
    let d = cpu();
    let x = with_device(&d, || xp_array::ones(&[512, 512], DType::F32)).unwrap();
    let ones = with_device(&d, || xp_array::ones(&[1 << 20], DType::F32)).unwrap();
    d.default_stream().synchronize().unwrap();
    let (s0, s1, s2) = (d.new_stream().unwrap(), d.new_stream().unwrap(), d.new_stream().unwrap());
    let product = xp_array::with_stream_on(&d, &s0, || x.matmul(&x)).unwrap();
    let busy = s0.record_event().unwrap();
    for s in [&s1, &s2] {
        s.wait_event(&*busy).unwrap();
    }
    let a = xp_array::with_stream_on(&d, &s1, || ones.add(&ones)).unwrap();
    let b = xp_array::with_stream_on(&d, &s2, || ones.mul_scalar(3.0)).unwrap();
    assert!(a.to_vec::<f32>().unwrap().iter().all(|&v| v == 2.0));
    assert!(b.to_vec::<f32>().unwrap().iter().all(|&v| v == 3.0));
    assert_eq!(product.shape(), &[512, 512]);
}

/// `get_array_module`'s namespace: `xp.sum(data**2)`, `xp.mean(data)`, ufuncs, reductions,
/// manipulation, creation and the sub-namespaces give what the `Array` methods and free
/// functions give.
#[test]
fn array_module_namespace_forwards_to_the_functions() {
    let d = cpu();
    with_device(&d, || {
        let data = Array::from_slice(&[1.0f64, -2.0, 3.0, 4.0, -5.0, 6.0], &[2, 3]).unwrap();
        let xp = get_array_module(&[&data]).unwrap();
        assert_eq!(xp.sum(&data.pow(2).unwrap(), None, false).unwrap().item::<f64>().unwrap(), 91.0);
        assert_eq!(xp.mean(&data, None, false).unwrap().item::<f64>().unwrap(), 7.0 / 6.0);
        assert_eq!(xp.sum(&data, Some(&[1]), true).unwrap().to_vec::<f64>().unwrap(), [2.0, 5.0]);
        assert_eq!(xp.max(&data, Some(&[0]), false).unwrap().to_vec::<f64>().unwrap(), [4.0, -2.0, 6.0]);
        assert_eq!(xp.argmax(&data, Some(1)).unwrap().to_vec::<i64>().unwrap(), [2, 2]);
        assert_eq!(xp.argmin(&data, None).unwrap().item::<i64>().unwrap(), 4);
        assert_eq!(xp.prod(&data, None, false).unwrap().item::<f64>().unwrap(), 720.0);
        assert_eq!(
            xp.var(&data, None, 0, false).unwrap().item::<f64>().unwrap(),
            data.var(None, 0, false).unwrap().item::<f64>().unwrap()
        );
        assert!(xp.any(&data.lt(0.0).unwrap(), None, false).unwrap().item::<bool>().unwrap());
        assert!(!xp.all(&data.lt(0.0).unwrap(), None, false).unwrap().item::<bool>().unwrap());
        assert_eq!(xp.abs(&data).unwrap().to_vec::<f64>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(xp.sqrt(&xp.abs(&data).unwrap()).unwrap().to_vec::<f64>().unwrap()[3], 2.0);
        assert_eq!(xp.maximum(&data, 0.0).unwrap().to_vec::<f64>().unwrap(), [1.0, 0.0, 3.0, 4.0, 0.0, 6.0]);
        assert_eq!(xp.minimum(2.0, &data).unwrap().to_vec::<f64>().unwrap(), [1.0, -2.0, 2.0, 2.0, -5.0, 2.0]);
        let w = xp.where_(&data.gt(0.0).unwrap(), &data, -1.0).unwrap();
        assert_eq!(w.to_vec::<f64>().unwrap(), [1.0, -1.0, 3.0, 4.0, -1.0, 6.0]);
        assert_eq!(xp.clip(&data, -1.0, 1.0).unwrap().to_vec::<f64>().unwrap(), [1.0, -1.0, 1.0, 1.0, -1.0, 1.0]);
        // Manipulation.
        assert_eq!(xp.reshape(&data, &[3, -1]).unwrap().shape(), [3, 2]);
        assert_eq!(
            xp.transpose(&data, None).unwrap().copy().unwrap().to_vec::<f64>().unwrap(),
            [1.0, 4.0, -2.0, -5.0, 3.0, 6.0]
        );
        assert_eq!(xp.concatenate(&[&data, &data], 0).unwrap().shape(), [4, 3]);
        assert_eq!(xp.stack(&[&data, &data], 1).unwrap().shape(), [2, 2, 3]);
        assert_eq!(xp.vstack(&[&data, &data]).unwrap().shape(), [4, 3]);
        assert_eq!(xp.expand_dims(&data, 1).unwrap().shape(), [2, 1, 3]);
        assert_eq!(xp.broadcast_to(&data, &[4, 2, 3]).unwrap().shape(), [4, 2, 3]);
        assert_eq!(xp.repeat(&data, 2, Some(0)).unwrap().shape(), [4, 3]);
        // Creation on the module's device.
        let z = xp.zeros_like(&data).unwrap();
        assert_eq!((z.shape(), z.dtype()), (&[2usize, 3][..], DType::F64));
        assert_eq!(xp.ones_like(&data).unwrap().to_vec::<f64>().unwrap(), [1.0; 6]);
        assert_eq!(xp.full_like(&data, 7).unwrap().to_vec::<f64>().unwrap(), [7.0; 6]);
        assert_eq!(xp.eye(2, None, 0, DType::F32).unwrap().to_vec::<f32>().unwrap(), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(xp.count_nonzero(&data.gt(0.0).unwrap(), None).unwrap().item::<i64>().unwrap(), 4);
        // Products and sub-namespaces.
        let a = xp.asarray(&[4.0f64, 1.0, 2.0, 3.0], &[2, 2]).unwrap();
        assert_eq!(xp.dot(&a, &a).unwrap().to_vec::<f64>().unwrap(), [18.0, 7.0, 14.0, 11.0]);
        let x = xp.linalg().solve(&a, &xp.asarray(&[9.0f64, 13.0], &[2]).unwrap()).unwrap().to_vec::<f64>().unwrap();
        assert!((x[0] - 1.4).abs() < 1e-12 && (x[1] - 3.4).abs() < 1e-12, "{x:?}");
        assert!((xp.linalg().det(&a).unwrap().item::<f64>().unwrap() - 10.0).abs() < 1e-12);
        let n = xp.linalg().norm(&data, None, Some(&[1]), false).unwrap().to_vec::<f64>().unwrap();
        assert!((n[0] - 14f64.sqrt()).abs() < 1e-12 && (n[1] - 77f64.sqrt()).abs() < 1e-12);
        let f = xp.fft().fft(&xp.asarray(&[1.0f64, 0.0, 0.0, 0.0], &[4]).unwrap(), None, -1, None).unwrap();
        assert_eq!(f.real().copy().unwrap().to_vec::<f64>().unwrap(), [1.0; 4]);
        assert_eq!(xp.fft().fftfreq(4, 1.0).unwrap().to_vec::<f64>().unwrap(), [0.0, 0.25, -0.5, -0.25]);
        xp.random().seed(5u64);
        let r = xp.random().uniform(2.0, 3.0, &[100], DType::F32).unwrap();
        assert_eq!(r.device().label(), "cpu");
        assert!(r.to_vec::<f32>().unwrap().iter().all(|v| (2.0..3.0).contains(v)));
        let p = xp.random().permutation(10).unwrap();
        assert_eq!(xp.sort(&p, None).unwrap().to_vec::<i64>().unwrap(), (0..10).collect::<Vec<i64>>());
    });
}
