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

/// Python's `range(*slice(start, stop, step).indices(n))`, in i128 so that nothing overflows.
fn python_slice(n: i128, start: Option<isize>, stop: Option<isize>, step: isize) -> Vec<i128> {
    let step = step as i128;
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let fix = |v: isize| {
        let v = v as i128;
        (if v < 0 { v + n } else { v }).clamp(lo, hi)
    };
    let first = start.map(fix).unwrap_or(if step > 0 { 0 } else { n - 1 });
    let end = stop.map(fix).unwrap_or(if step > 0 { n } else { -1 });
    let mut out = Vec::new();
    let mut i = first;
    while (step > 0 && i < end) || (step < 0 && i > end) {
        out.push(i);
        i += step;
    }
    out
}

#[test]
fn extreme_slice_steps_and_bounds_do_not_overflow() {
    let dev = cpu();
    let (max, min) = (isize::MAX, isize::MIN);
    let bounds = [
        None,
        Some(0),
        Some(1),
        Some(-1),
        Some(3),
        Some(-3),
        Some(7),
        Some(-8),
        Some(max),
        Some(min),
        Some(max - 1),
        Some(min + 1),
    ];
    let steps = [1, 2, 3, -1, -2, -3, 6, -7, 100, max, min, max - 1, min + 1, 1 << 62, -(1 << 62)];
    for n in [0usize, 1, 2, 7] {
        // Rows of a 2-d array (stride n) and elements of a 1-d one: the strides times the step
        // overflow too.
        let m = iota(&dev, &[n, 3]);
        let a = iota(&dev, &[n]);
        for start in bounds {
            for stop in bounds {
                for step in steps {
                    let want = python_slice(n as i128, start, stop, step);
                    let arg = [SliceArg::Range { start, stop, step: Some(step) }];
                    let what = format!("a[{start:?}:{stop:?}:{step}] of {n}");
                    let v = a.slice(&arg).unwrap();
                    assert_eq!(v.shape(), [want.len()], "{what}");
                    assert_eq!(f64s(&v), want.iter().map(|&i| i as f64).collect::<Vec<_>>(), "{what}");
                    let r = m.slice(&arg).unwrap();
                    assert_eq!(r.shape(), [want.len(), 3], "rows {what}");
                    let rows: Vec<f64> = want.iter().flat_map(|&i| (0..3).map(move |j| (i * 3 + j) as f64)).collect();
                    assert_eq!(f64s(&r), rows, "rows {what}");
                }
            }
        }
    }
    // NumPy's a[0:5:sys.maxsize] is one element; so are the same steps through `s![..]`, with
    // bounds of any integer type beyond isize (they clamp as Python's do).
    let a = iota(&dev, &[10]);
    assert_eq!(f64s(&a.at(s![0..5;isize::MAX]).unwrap()), [0.0]);
    assert_eq!(f64s(&a.at(s![..;isize::MIN]).unwrap()), [9.0]);
    assert_eq!(f64s(&a.at(s![..=isize::MAX;3]).unwrap()), [0.0, 3.0, 6.0, 9.0]);
    // a[8::-4], its end written as isize::MIN (a bound, not a reversed Rust range).
    let bottom = isize::MIN;
    assert_eq!(f64s(&a.at(s![8..=bottom;-4]).unwrap()), [8.0, 4.0, 0.0]);
    assert_eq!(f64s(&a.at(s![7..u64::MAX]).unwrap()), [7.0, 8.0, 9.0]);
    assert_eq!(f64s(&a.at(s![usize::MAX..;-3]).unwrap()), [9.0, 6.0, 3.0, 0.0]);
    assert_eq!(f64s(&a.at(s![2..;u64::MAX]).unwrap()), [2.0]);
    // An integer index beyond isize is out of bounds (never a negative index from the end).
    assert_eq!(a.at(s![u64::MAX]).unwrap_err().kind(), "Index");
    assert_eq!(a.at(s![usize::MAX - 1]).unwrap_err().kind(), "Index");
}
