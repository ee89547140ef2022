//! Integer indices beyond int64's range (uint64 values of 2^63 and up) are out of bounds for
//! every axis, on any device: they never wrap to negative indices that count from the end.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::DynDevice;

pub fn uint64_indices_beyond_int64_are_out_of_bounds(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let before: Vec<f64> = (0..10).map(f64::from).collect();
        let a = Array::from_vec(before.clone()).unwrap();
        let m = Array::from_vec(before.clone()).unwrap().reshape(&[2, 5]).unwrap();
        // In range, uint64 indices work as any others.
        let ok = Array::from_vec(vec![9u64, 0, 3]).unwrap();
        assert_eq!(a.take(&ok, None).unwrap().to_vec::<f64>().unwrap(), [9.0, 0.0, 3.0]);
        assert_eq!(a.at(s![&ok]).unwrap().to_vec::<f64>().unwrap(), [9.0, 0.0, 3.0]);
        // 2^64 - 1 and 2^64 - 10 read as int64 are -1 and -10: the last and the first element.
        for bad in [u64::MAX, u64::MAX - 9, 1 << 63, (1 << 63) + 5, 10] {
            let idx = Array::from_vec(vec![1u64, bad]).unwrap();
            let kind = |r: Result<Array>| r.map(|_| ()).unwrap_err().kind();
            assert_eq!(kind(a.take(&idx, None)), "Index", "take {bad}");
            assert_eq!(kind(m.take(&idx, Some(1))), "Index", "take along an axis {bad}");
            assert_eq!(kind(a.at(s![&idx])), "Index", "a[idx] {bad}");
            assert_eq!(kind(m.at(s![.., &idx])), "Index", "m[:, idx] {bad}");
            let col = idx.reshape(&[1, 2]).unwrap();
            assert_eq!(kind(take_along_axis(&m, &col, 1)), "Index", "take_along_axis {bad}");
            // Writes are refused before anything is written.
            let v = Array::from_vec(vec![-1.0, -2.0]).unwrap();
            assert_eq!(a.put(&idx, &v).unwrap_err().kind(), "Index", "put {bad}");
            assert_eq!(a.set(s![&idx], -1.0).unwrap_err().kind(), "Index", "a[idx] = v {bad}");
            assert_eq!(put_along_axis(&m, &col, &v, Some(1)).unwrap_err().kind(), "Index", "put_along_axis {bad}");
            assert_eq!(a.to_vec::<f64>().unwrap(), before, "{bad}: nothing written");
            assert_eq!(m.to_vec::<f64>().unwrap(), before, "{bad}: nothing written");
        }
    });
}
