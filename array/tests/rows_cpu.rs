//! The CPU backend's row kernels past their plain loop: streamed stores for large outputs
//! (unaligned heads, odd tails, views, every element size, an output that is an input) and the
//! vectorised float32 sine and cosine with their exact fallback lanes.

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

/// Distance in units in the last place between two float32 values of the same sign.
fn ulps(a: f32, b: f32) -> u32 {
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0x8000_0000 {
            b
        } else {
            0x8000_0000 - b
        }
    };
    (key(a) - key(b)).unsigned_abs() as u32
}

/// Arguments of every kind the fast path leaves to libm, among ordinary ones.
fn sincos_arguments(n: usize) -> Vec<f32> {
    let special = [
        1e6,
        -1e6,
        1e30,
        -1e30,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -0.0,
        0.0,
        1e-40,
        -1e-45,
        f32::MIN_POSITIVE,
        1048576.0,
        1048576.1,
        -1048577.0,
        3.0e5,
        std::f32::consts::PI,
        std::f32::consts::FRAC_PI_2,
        -std::f32::consts::FRAC_PI_4,
        102.101_77,
        8_388_607.5,
    ];
    let mut s = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|i| {
            if i % 97 < special.len() && i % 3 == 0 {
                return special[i % 97];
            }
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 40) as f32 / (1u64 << 24) as f32;
            match i % 5 {
                0 => u * 2.0e3 - 1.0e3,
                1 => u * 20.0 - 10.0,
                2 => (u - 0.5) * 4.0e6,
                _ => u,
            }
        })
        .collect()
}

fn check_sincos(x: &[f32], got: &[f32], f: fn(f32) -> f32, what: &str) {
    for (i, (&x, &g)) in x.iter().zip(got).enumerate() {
        let want = f(x);
        if want.is_nan() {
            assert!(g.is_nan(), "{what}({x:e}) at {i}: {g:e}, want NaN");
        } else {
            assert!(
                g.to_bits() == want.to_bits()
                    || (g.is_sign_negative() == want.is_sign_negative() && ulps(g, want) <= 2),
                "{what}({x:e}) at {i}: {g:e}, want {want:e}"
            );
        }
    }
}

#[test]
fn float32_sin_and_cos_take_libm_on_large_and_special_lanes() {
    let d = cpu();
    with_device(&d, || {
        // A short array (one partial block), one of many blocks, and one past the streaming
        // threshold.
        for n in [37, 5000, streamed_len(4)] {
            let x = sincos_arguments(n);
            let a = Array::from_slice(&x, &[n]).unwrap();
            check_sincos(&x, &a.sin().unwrap().to_vec::<f32>().unwrap(), f32::sin, "sin");
            check_sincos(&x, &a.cos().unwrap().to_vec::<f32>().unwrap(), f32::cos, "cos");
            // A view that starts one element in, and a strided one (the plain loop).
            let v = a.slice(&[SliceArg::range(1, n as isize, 1)]).unwrap();
            check_sincos(&x[1..], &v.sin().unwrap().to_vec::<f32>().unwrap(), f32::sin, "sin of a[1:]");
            let s = a.slice(&[SliceArg::Range { start: None, stop: None, step: Some(3) }]).unwrap();
            let xs: Vec<f32> = x.iter().step_by(3).copied().collect();
            check_sincos(&xs, &s.cos().unwrap().to_vec::<f32>().unwrap(), f32::cos, "cos of a[::3]");
        }
    });
}

#[test]
fn sin_in_place_keeps_the_inputs_of_its_exact_lanes() {
    let d = cpu();
    with_device(&d, || {
        for n in [300, streamed_len(4)] {
            let x = sincos_arguments(n);
            let a = Array::from_slice(&x, &[n]).unwrap();
            call("sin", &[Operand::Array(&a)], Some(&a)).unwrap();
            check_sincos(&x, &a.to_vec::<f32>().unwrap(), f32::sin, "sin in place");
        }
    });
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
