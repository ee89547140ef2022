//! The CPU backend's row kernels past their plain loop: streamed stores for large outputs
//! (unaligned heads, odd tails, views, every element size, an output that is an input).

use std::sync::Arc;

use num_complex::Complex;
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;
use xp_kernels::elementwise::STREAM_MIN_BYTES;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// Elements of `size` bytes that make an output of about twice the streaming threshold, odd.
fn streamed_len(size: usize) -> usize {
    2 * STREAM_MIN_BYTES / size + 3
}

#[test]
fn add_in_place_on_a_streamed_output() {
    let d = cpu();
    with_device(&d, || {
        let n = streamed_len(4);
        let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
        let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
        let a = Array::from_slice(&x, &[n]).unwrap();
        let b = Array::from_slice(&y, &[n]).unwrap();
        call("add", &[Operand::Array(&a), Operand::Array(&b)], Some(&a)).unwrap();
        let got = a.to_vec::<f32>().unwrap();
        for (i, g) in got.iter().enumerate() {
            assert_eq!(*g, x[i] + y[i], "element {i}");
        }
        // Both inputs the output.
        call("add", &[Operand::Array(&b), Operand::Array(&b)], Some(&b)).unwrap();
        let got = b.to_vec::<f32>().unwrap();
        for (i, g) in got.iter().enumerate() {
            assert_eq!(*g, 2.0 * y[i], "element {i}");
        }
    });
}

/// `out[off..] = a[off..] + b[..n-off]` for each element size, through views whose starts are
/// not 16-byte aligned, with odd lengths; also copies into such views.
#[test]
fn streamed_outputs_through_unaligned_views_of_every_size() {
    let d = cpu();
    with_device(&d, || {
        fn run<T: Element + Copy + PartialEq + std::fmt::Debug>(
            name: &str,
            gen: impl Fn(usize) -> T,
            sum: impl Fn(T, T) -> T,
        ) {
            let n = streamed_len(std::mem::size_of::<T>());
            let xs: Vec<T> = (0..n).map(&gen).collect();
            let ys: Vec<T> = (0..n).map(|i| gen(i * 7 + 3)).collect();
            let a = Array::from_slice(&xs, &[n]).unwrap();
            let b = Array::from_slice(&ys, &[n]).unwrap();
            for off in [0usize, 1, 3] {
                let av = a.slice(&[SliceArg::range(off as isize, n as isize, 1)]).unwrap();
                let bv = b.slice(&[SliceArg::range(0, (n - off) as isize, 1)]).unwrap();
                let out = zeros(&[n], av.dtype()).unwrap();
                let ov = out.slice(&[SliceArg::range(off as isize, n as isize, 1)]).unwrap();
                call("add", &[Operand::Array(&av), Operand::Array(&bv)], Some(&ov)).unwrap();
                let got = out.to_vec::<T>().unwrap();
                for (i, g) in got.iter().enumerate().skip(off) {
                    assert_eq!(*g, sum(xs[i], ys[i - off]), "{name} add, offset {off}, element {i} of {n}");
                }
                let cp = zeros(&[n], av.dtype()).unwrap();
                let cv = cp.slice(&[SliceArg::range(off as isize, n as isize, 1)]).unwrap();
                av.copy_into(&cv).unwrap();
                let got = cp.to_vec::<T>().unwrap();
                for (i, g) in got.iter().enumerate().skip(off) {
                    assert_eq!(*g, xs[i], "{name} copy, offset {off}, element {i} of {n}");
                }
            }
        }
        run("bool", |i| i % 3 == 0, |a, b| a || b);
        run("uint8", |i| (i % 251) as u8, |a, b| a.wrapping_add(b));
        run("int16", |i| (i % 30011) as i16 - 15000, |a, b| a.wrapping_add(b));
        run("float16", |i| half::f16::from_f32((i % 2048) as f32), |a, b| half::f16::from_f32(a.to_f32() + b.to_f32()));
        run("float32", |i| (i % 100_003) as f32 * 0.25, |a, b| a + b);
        run("int64", |i| i as i64 * 1_000_003, |a, b| a + b);
        run("complex128", |i| Complex::new(i as f64, -(i as f64) * 0.5), |a, b| a + b);
    });
}
