//! `s![..]` with `Array::at` and `Array::set` on the CPU backend: NumPy's answers for the same
//! index written in Python (in each comment), and the errors of bad indices.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// `np.arange(n).reshape(shape)` as float64.
fn iota(dev: &Arc<dyn xp_backend_api::DynDevice>, shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
    Array::from_slice_on(dev, &v, shape).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

#[test]
fn at_reads_as_numpy_indexing() {
    let dev = cpu();
    let a = iota(&dev, &[3, 4]);
    // a[:, 1::2]
    let r = a.at(s![.., 1..;2]).unwrap();
    assert_eq!(r.shape(), [3, 2]);
    assert_eq!(f64s(&r), [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]);
    // a[-1]
    assert_eq!(f64s(&a.at(s![-1]).unwrap()), [8.0, 9.0, 10.0, 11.0]);
    // a[::-1, -1]
    assert_eq!(f64s(&a.at(s![..;-1, -1]).unwrap()), [11.0, 7.0, 3.0]);
    // a[1:, :-2]
    assert_eq!(f64s(&a.at(s![1.., ..-2]).unwrap()), [4.0, 5.0, 8.0, 9.0]);
    // a[0:3:2, 1:=2] i.e. a[0:3:2, 1:3]
    assert_eq!(f64s(&a.at(s![0..3;2, 1..=2]).unwrap()), [1.0, 2.0, 9.0, 10.0]);
    // a[None, ..., 0]
    let r = a.at(s![NewAxis, Ellipsis, 0]).unwrap();
    assert_eq!(r.shape(), [1, 3]);
    assert_eq!(f64s(&r), [0.0, 4.0, 8.0]);
    // a[[2, 0], 1:3]
    let idx = Array::from_slice_on(&dev, &[2i64, 0], &[2]).unwrap();
    assert_eq!(f64s(&a.at(s![&idx, 1..3]).unwrap()), [9.0, 10.0, 1.0, 2.0]);
    // a[a % 3 == 0]
    let mask = a.rem(Operand::Scalar(Scalar::Int(3))).unwrap().eq(0).unwrap();
    assert_eq!(f64s(&a.at(s![&mask]).unwrap()), [0.0, 3.0, 6.0, 9.0]);
}

#[test]
fn set_writes_as_numpy_assignment() {
    let dev = cpu();
    let a = iota(&dev, &[3, 4]);
    // a[0:2, ::3] = -1
    a.set(s![0..2, ..;3], -1.0).unwrap();
    assert_eq!(f64s(&a), [-1.0, 1.0, 2.0, -1.0, -1.0, 5.0, 6.0, -1.0, 8.0, 9.0, 10.0, 11.0]);
    // a[2] = [20, 21, 22, 23]
    let row = Array::from_slice_on(&dev, &[20.0, 21.0, 22.0, 23.0], &[4]).unwrap();
    a.set(s![2], &row).unwrap();
    assert_eq!(f64s(&a.at(s![2]).unwrap()), [20.0, 21.0, 22.0, 23.0]);
    // a[a > 20] = 0 (a scalar of another type is cast)
    let m = a.gt(20).unwrap();
    a.set(s![&m], 0i64).unwrap();
    assert_eq!(f64s(&a.at(s![2]).unwrap()), [20.0, 0.0, 0.0, 0.0]);
}

#[test]
fn bad_indices_are_errors() {
    let dev = cpu();
    let a = iota(&dev, &[3, 4]);
    let f = Array::from_slice_on(&dev, &[1.0, 0.0], &[2]).unwrap();
    assert!(matches!(a.at(s![&f]), Err(Error::Index { .. })));
    assert!(matches!(a.at(s![0, 0, 0]), Err(Error::Index { .. })));
    let oob = Array::from_slice_on(&dev, &[3i64], &[1]).unwrap();
    assert!(matches!(a.at(s![&oob]), Err(Error::Index { .. })));
    assert!(a.set(s![&oob], 1.0).is_err());
    let wrong = Array::from_slice_on(&dev, &[1.0, 2.0, 3.0], &[3]).unwrap();
    assert!(matches!(a.set(s![0], &wrong), Err(Error::Value { .. })));
    assert!(matches!(a.at(s![Ellipsis, Ellipsis]), Err(Error::Index { .. })));
}
