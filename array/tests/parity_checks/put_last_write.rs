//! `put` with repeated indices stores the last value, as NumPy's `a[i] = v`, on the CPU
//! backend, whose launches run blocks on several workers at once.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::DynDevice;

pub fn put_with_repeated_indices_keeps_the_last_value(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        // NumPy: a = zeros(2); a[arange(10000) % 2] = arange(10000) gives [9998, 9999].
        let i: Vec<i64> = (0..10_000).map(|i| i % 2).collect();
        let v: Vec<i64> = (0..10_000).collect();
        let a = zeros(&[2], DType::I64).unwrap();
        a.put(&Array::from_vec(i).unwrap(), &Array::from_vec(v).unwrap()).unwrap();
        assert_eq!(a.to_vec::<i64>().unwrap(), vec![9998, 9999]);
    });
}

pub fn put_keeps_the_last_value_when_an_earlier_write_runs_later(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        // Each target is written twice: from the first half of the indices in reverse order
        // (target t at position h - 1 - t) and from the second half in order (at h + t). Run
        // in parallel, the second half's early writes land before the first half's late ones,
        // so a scatter in which threads race keeps the wrong value for about half the targets.
        let h = 1usize << 20;
        let idx: Vec<i64> = (0..2 * h).map(|i| if i < h { (h - 1 - i) as i64 } else { (i - h) as i64 }).collect();
        let vals: Vec<i32> = (0..2 * h as i32).collect();
        let (idx, vals) = (Array::from_vec(idx).unwrap(), Array::from_vec(vals).unwrap());
        for _ in 0..3 {
            let a = zeros(&[h], DType::I32).unwrap();
            a.put(&idx, &vals).unwrap();
            let got = a.to_vec::<i32>().unwrap();
            let wrong = (0..h).filter(|&t| got[t] != (h + t) as i32).count();
            assert_eq!(wrong, 0, "{wrong} of {h} targets kept an earlier write");
        }
    });
}

pub fn put_with_unique_negative_and_short_value_lists(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        // a.put([4, -1, 0, -5, 2], [10, 20]): values repeat; 4 and -1, 0 and -5 name one element.
        let a = Array::from_vec((0..5).map(|x| x as f32).collect()).unwrap();
        let i = Array::from_vec(vec![4i64, -1, 0, -5, 2]).unwrap();
        a.put(&i, &Array::from_vec(vec![10.0f32, 20.0]).unwrap()).unwrap();
        assert_eq!(a.to_vec::<f32>().unwrap(), vec![20.0, 1.0, 10.0, 3.0, 20.0]);
        let perm: Vec<i64> = (0..100_000).map(|x| (x * 7919) % 100_000).collect();
        let b = zeros(&[100_000], DType::C128).unwrap();
        let v = Array::from_vec((0..100_000).map(|x| num_complex::Complex::new(x as f64, 1.0)).collect()).unwrap();
        b.put(&Array::from_vec(perm.clone()).unwrap(), &v).unwrap();
        let got = b.to_vec::<num_complex::Complex<f64>>().unwrap();
        assert!(perm.iter().enumerate().all(|(j, &k)| got[k as usize] == num_complex::Complex::new(j as f64, 1.0)));
        assert_eq!(a.put(&Array::from_vec(vec![5i64]).unwrap(), &a).unwrap_err().kind(), "Index");
    });
}

pub fn masked_assignment_reads_values_in_order(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        // NumPy: a = arange(12.).reshape(3, 4); m = a % 3 == 1; a[m] = -arange(m.sum()); a[a > 8] = 0.
        let a = arange(0, 12, 1, Some(DType::F64)).unwrap().reshape(&[3, 4]).unwrap();
        let m = a.rem(3.0).unwrap().eq(1.0).unwrap();
        let v = arange(0, 4, 1, Some(DType::F64)).unwrap().negative().unwrap();
        a.setitem(&[IndexItem::Mask(&m)], &v).unwrap();
        a.setitem(&[IndexItem::Mask(&a.gt(8.0).unwrap())], &Array::from_vec(vec![0i32]).unwrap()).unwrap();
        let want = vec![0.0, -0.0, 2.0, 3.0, -1.0, 5.0, 6.0, -2.0, 8.0, 0.0, -3.0, 0.0];
        assert_eq!(a.to_vec::<f64>().unwrap(), want);
        assert_eq!(a.getitem(&[IndexItem::Mask(&m)]).unwrap().to_vec::<f64>().unwrap(), vec![-0.0, -1.0, -2.0, -3.0]);
        let e = a.setitem(&[IndexItem::Mask(&m)], &arange(0, 3, 1, Some(DType::F64)).unwrap()).unwrap_err();
        assert!(e.to_string().contains("cannot assign 3 input values to the 4 output values"), "{e}");
        // Many elements, so that the mask's running count spans blocks.
        let n = 1 << 20;
        let big = arange(0, n as i64, 1, Some(DType::I32)).unwrap();
        let odd = big.rem(2).unwrap().eq(1).unwrap();
        big.setitem(
            &[IndexItem::Mask(&odd)],
            &arange(0, (n / 2) as i64, 1, Some(DType::I32)).unwrap().negative().unwrap(),
        )
        .unwrap();
        let got = big.to_vec::<i32>().unwrap();
        assert!(got.iter().enumerate().all(|(i, &x)| x == if i % 2 == 1 { -((i / 2) as i32) } else { i as i32 }));
    });
}
