//! `out=` that overlaps an input, on any device: the result is NumPy's, computed as if every
//! input were read before anything is written, whatever order threads run in.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::DynDevice;

fn values(n: usize) -> Vec<i64> {
    (0..n as i64).map(|i| (i * 7919) % 1009 - 500).collect()
}

pub fn out_overlapping_an_input_gives_numpy_values(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let view = |a: &Array, start: usize, stop: usize| a.slice(&[SliceArg::range(start as isize, stop as isize, 1)]);
        for n in [8usize, 1000, 300_001] {
            let host = values(n);
            // np.add(a[1:], a[:-1], out=a[1:])
            let a = Array::from_vec(host.clone()).unwrap();
            let (hi, lo) = (view(&a, 1, n).unwrap(), view(&a, 0, n - 1).unwrap());
            let r = call("add", &[Operand::Array(&hi), Operand::Array(&lo)], Some(&hi)).unwrap();
            assert!(r.shares_buffer(&a));
            let mut want = host.clone();
            for i in 1..n {
                want[i] = host[i] + host[i - 1];
            }
            assert_eq!(a.to_vec::<i64>().unwrap(), want, "add(a[1:], a[:-1], out=a[1:]), n = {n}");
            // np.subtract(a[:-1], a[1:], out=a[:-1])
            let a = Array::from_vec(host.clone()).unwrap();
            let (hi, lo) = (view(&a, 1, n).unwrap(), view(&a, 0, n - 1).unwrap());
            call("subtract", &[Operand::Array(&lo), Operand::Array(&hi)], Some(&lo)).unwrap();
            let mut want = host.clone();
            for i in 0..n - 1 {
                want[i] = host[i] - host[i + 1];
            }
            assert_eq!(a.to_vec::<i64>().unwrap(), want, "subtract(a[:-1], a[1:], out=a[:-1]), n = {n}");
            // np.negative(a[::-1], out=a)
            let a = Array::from_vec(host.clone()).unwrap();
            let rev = a.slice(&[SliceArg::Range { start: None, stop: None, step: Some(-1) }]).unwrap();
            call("negative", &[Operand::Array(&rev)], Some(&a)).unwrap();
            let want: Vec<i64> = host.iter().rev().map(|v| -v).collect();
            assert_eq!(a.to_vec::<i64>().unwrap(), want, "negative(a[::-1], out=a), n = {n}");
            // np.multiply(f[1:], 0.5, out=f[:-1]): with a scalar operand.
            let f = Array::from_vec(host.iter().map(|&v| v as f64).collect::<Vec<_>>()).unwrap();
            let (fhi, flo) = (view(&f, 1, n).unwrap(), view(&f, 0, n - 1).unwrap());
            call("multiply", &[Operand::Array(&fhi), Operand::Scalar(Scalar::Float(0.5))], Some(&flo)).unwrap();
            let mut want: Vec<f64> = host.iter().map(|&v| v as f64).collect();
            for i in 0..n - 1 {
                want[i] = host[i + 1] as f64 * 0.5;
            }
            assert_eq!(f.to_vec::<f64>().unwrap(), want, "multiply(f[1:], 0.5, out=f[:-1]), n = {n}");
        }
        // np.add(m, m.T, out=m) and np.add(m[:1], m, out=m) (a broadcast row of `out` itself).
        let k = 301;
        let host = values(k * k);
        let m = Array::from_vec(host.clone()).unwrap().reshape(&[k as isize; 2]).unwrap();
        call("add", &[Operand::Array(&m), Operand::Array(&m.t())], Some(&m)).unwrap();
        let want: Vec<i64> = (0..k * k).map(|p| host[p] + host[(p % k) * k + p / k]).collect();
        assert_eq!(m.to_vec::<i64>().unwrap(), want, "add(m, m.T, out=m)");
        let m = Array::from_vec(host.clone()).unwrap().reshape(&[k as isize; 2]).unwrap();
        let row = m.slice(&[SliceArg::range(0, 1, 1)]).unwrap();
        call("add", &[Operand::Array(&row), Operand::Array(&m)], Some(&m)).unwrap();
        let want: Vec<i64> = (0..k * k).map(|p| host[p] + host[p % k]).collect();
        assert_eq!(m.to_vec::<i64>().unwrap(), want, "add(m[:1], m, out=m)");
        // The same view as input and `out` is computed in place, as NumPy: `out` is returned.
        let a = Array::from_vec(values(1000)).unwrap();
        let r = call("multiply", &[Operand::Array(&a), Operand::Array(&a)], Some(&a)).unwrap();
        let want: Vec<i64> = values(1000).iter().map(|v| v * v).collect();
        assert_eq!(a.to_vec::<i64>().unwrap(), want, "multiply(a, a, out=a)");
        assert!(r.shares_buffer(&a) && r.layout() == a.layout());
    });
}
