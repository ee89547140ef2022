//! Kernels written in Rust (`#[xp::rawkernel]`, `#[xp::kernel]`, `#[xp::device]`): each check
//! runs on the CPU backend (`…_cpu`) and on every GPU found (`…_gpu`, skipped visibly without
//! one), against values computed on the host in Rust; one check per place where Rust and C++
//! differ; and the launch-time errors.

use std::sync::Arc;

use xp::{with_device, Array, DType, DynDevice};

use crate::rust_kernel_defs::*;

/// A test on the CPU and one on every GPU for each check.
macro_rules! on_every_device {
    ($($check:ident),* $(,)?) => {
        mod cpu {
            $(#[test] fn $check() { super::$check(&xp::device("cpu").unwrap()); })*
        }
        mod gpu {
            $(#[test] fn $check() { crate::gpus::on_every_gpu(stringify!($check), super::$check); })*
        }
    };
}

on_every_device!(
    saxpy_jit,
    generic_scale,
    block_reduction_with_shared_memory,
    tiled_matmul_matches_matmul,
    elementwise_leaky_relu,
    elementwise_two_outputs_and_device_functions,
    integer_overflow_wraps,
    float_to_int_casts_saturate,
    shifts_are_masked,
    integer_division_by_zero_is_defined,
    untyped_float_literals_are_f32,
    dynamic_shared_memory,
    warp_shuffles,
    atomic_operations,
    cpp_keywords_as_names,
    ranges_end_without_overflow,
    launch_errors_name_the_kernel_and_parameter,
);

/// Deterministic values in [-0.5, 0.5): the user-kernel checks' noise, centred.
fn noise(n: usize, seed: u64) -> Vec<f32> {
    crate::user_kernel_checks::noise(n, seed).into_iter().map(|v| v - 0.5).collect()
}

fn saxpy_jit(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = 1000;
        let (hx, hy) = (noise(n, 1), noise(n, 2));
        let x = Array::from_slice(&hx, &[n]).unwrap();
        let y = Array::from_slice(&hy, &[n]).unwrap();
        let mut out = xp::zeros(&[n], DType::F32).unwrap();
        let threads = 128u32;
        let blocks = (n as u32).div_ceil(threads);
        saxpy.launch((blocks,), (threads,), (2.0f32, &x, &y, &mut out)).unwrap();
        let want: Vec<f32> = hx.iter().zip(&hy).map(|(x, y)| 2.0f32 * x + y).collect();
        assert_eq!(out.to_vec::<f32>().unwrap(), want);
        // The generated source is visible.
        let src = saxpy.source().unwrap();
        assert!(src.contains("extern \"C\" __global__ void saxpy(float a, const float* x"), "{src}");
    });
}

fn generic_scale(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let h: Vec<f64> = (0..777).map(|k| k as f64 * 0.25 - 50.0).collect();
        let x = Array::from_slice(&h, &[777]).unwrap();
        let mut out = xp::zeros(&[777], DType::F64).unwrap();
        scale.launch((3u32,), (64u32,), (1.5f64, &x, &mut out)).unwrap();
        assert_eq!(out.to_vec::<f64>().unwrap(), h.iter().map(|v| 1.5 * v).collect::<Vec<_>>());
        let x32 = x.astype(DType::F32).unwrap();
        let mut out32 = xp::zeros(&[777], DType::F32).unwrap();
        scale.launch((2u32,), (32u32,), (-2.0f32, &x32, &mut out32)).unwrap();
        assert_eq!(out32.to_vec::<f32>().unwrap(), h.iter().map(|&v| -2.0 * v as f32).collect::<Vec<_>>());
        assert!(scale.source_for(&[DType::F64]).unwrap().contains("using T = double;"));
    });
}

fn block_reduction_with_shared_memory(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = 1000;
        let h = noise(n, 3);
        let x = Array::from_slice(&h, &[n]).unwrap();
        let blocks = n.div_ceil(BLOCK);
        let mut partial = xp::zeros(&[blocks], DType::F32).unwrap();
        let mut total = xp::zeros(&[1], DType::F32).unwrap();
        block_sum_squares.launch((blocks as u32,), (BLOCK as u32,), (&x, &mut partial, &mut total)).unwrap();
        let p = partial.to_vec::<f32>().unwrap();
        for (b, got) in p.iter().enumerate() {
            // The same tree as the kernel's, in f32.
            let mut buf: Vec<f32> = (0..BLOCK).map(|t| h.get(b * BLOCK + t).map_or(0.0, |v| v * v)).collect();
            let mut s = BLOCK / 2;
            while s > 0 {
                for t in 0..s {
                    buf[t] += buf[t + s];
                }
                s /= 2;
            }
            assert_eq!(*got, buf[0], "block {b}");
        }
        let want: f64 = h.iter().map(|v| (v * v) as f64).sum();
        let got = total.to_vec::<f32>().unwrap()[0] as f64;
        assert!((got - want).abs() < 1e-4 * want, "{got} vs {want}");
    });
}

fn tiled_matmul_matches_matmul(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let (m, k, n) = (37usize, 50usize, 29usize);
        let a = Array::from_slice(&noise(m * k, 4), &[m, k]).unwrap();
        let b = Array::from_slice(&noise(k * n, 5), &[k, n]).unwrap();
        let mut c = xp::zeros(&[m, n], DType::F32).unwrap();
        let grid = ((n as u32).div_ceil(TILE as u32), (m as u32).div_ceil(TILE as u32));
        matmul_tiled.launch(grid, (TILE as u32, TILE as u32), (&a, &b, &mut c, m as u32, n as u32, k as u32)).unwrap();
        let want = xp::matmul(&a, &b).unwrap().to_vec::<f32>().unwrap();
        let got = c.to_vec::<f32>().unwrap();
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-5 * (1.0 + w.abs()), "{g} vs {w}");
        }
    });
}

fn elementwise_leaky_relu(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let host: Vec<f32> = (0..1000).map(|k| (k as f32 - 500.0) / 37.0).collect();
        let x = Array::from_slice(&host, &[10, 100]).unwrap();
        let y = leaky_relu.call((&x, 0.1f32)).unwrap();
        assert_eq!(y.shape(), &[10, 100]);
        let want: Vec<f32> = host.iter().map(|&v| if v > 0.0 { v } else { 0.1f32 * v }).collect();
        assert_eq!(y.to_vec::<f32>().unwrap(), want);
        // Broadcasting, float64, and an output given.
        let xd = x.astype(DType::F64).unwrap();
        let alpha = Array::from_slice(&[0.5f64], &[1]).unwrap();
        let mut out = xp::zeros(&[10, 100], DType::F64).unwrap();
        leaky_relu.call((&xd, &alpha, &mut out)).unwrap();
        let got = out.to_vec::<f64>().unwrap();
        assert_eq!(got[0], host[0] as f64 * 0.5);
        assert_eq!(got[999], host[999] as f64);
    });
}

fn elementwise_two_outputs_and_device_functions(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let h = [-1.5f32, 0.25, 0.5, 3.0];
        let x = Array::from_slice(&h, &[4]).unwrap();
        let outs = clamp_and_square.call_all((&x,)).unwrap();
        assert_eq!(outs[0].to_vec::<f32>().unwrap(), [0.0, 0.25, 0.5, 1.0]);
        assert_eq!(outs[1].to_vec::<f32>().unwrap(), [2.25, 0.0625, 0.25, 9.0]);
    });
}

fn integer_overflow_wraps(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let h = [1i32, -5, i32::MIN, 70000];
        let x = Array::from_slice(&h, &[4]).unwrap();
        let mut out = xp::zeros(&[12], DType::I32).unwrap();
        wrapping_ops.launch((1u32,), (4u32,), (&x, &mut out)).unwrap();
        let want: Vec<i32> = h
            .iter()
            .flat_map(|&v| [v.wrapping_add(2147483647), v.wrapping_mul(65536).wrapping_mul(65536), v.wrapping_neg()])
            .collect();
        assert_eq!(out.to_vec::<i32>().unwrap(), want);
    });
}

fn float_to_int_casts_saturate(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let h = [300.0f32, -1.0, f32::NAN, 1e10, -1e10, 2.9, -2.9, f32::INFINITY];
        let wide_h = [70000i64, -70000, 1 << 40, -1, 32767, 32768, i64::MIN, 5];
        let x = Array::from_slice(&h, &[8]).unwrap();
        let wide = Array::from_slice(&wide_h, &[8]).unwrap();
        let mut u = xp::zeros(&[8], DType::U8).unwrap();
        let mut i = xp::zeros(&[8], DType::I32).unwrap();
        let mut narrow = xp::zeros(&[8], DType::I16).unwrap();
        saturating_casts.launch((1u32,), (8u32,), (&x, &mut u, &mut i, &wide, &mut narrow)).unwrap();
        assert_eq!(u.to_vec::<u8>().unwrap(), h.iter().map(|&v| v as u8).collect::<Vec<_>>());
        assert_eq!(i.to_vec::<i32>().unwrap(), h.iter().map(|&v| v as i32).collect::<Vec<_>>());
        assert_eq!(narrow.to_vec::<i16>().unwrap(), wide_h.iter().map(|&v| v as i16).collect::<Vec<_>>());
    });
}

fn shifts_are_masked(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let hx = [1u32, 0x8000_0001, 0xffff_fff0, 12345];
        let hs = [33u32, 31, 68, 0];
        let x = Array::from_slice(&hx, &[4]).unwrap();
        let s = Array::from_slice(&hs, &[4]).unwrap();
        let mut l = xp::zeros(&[4], DType::U32).unwrap();
        let mut r = xp::zeros(&[4], DType::I32).unwrap();
        masked_shifts.launch((1u32,), (4u32,), (&x, &s, &mut l, &mut r)).unwrap();
        let wl: Vec<u32> = hx.iter().zip(&hs).map(|(x, s)| x.wrapping_shl(*s)).collect();
        let wr: Vec<i32> = hx.iter().zip(&hs).map(|(x, s)| (*x as i32).wrapping_shr(*s)).collect();
        assert_eq!(l.to_vec::<u32>().unwrap(), wl);
        assert_eq!(r.to_vec::<i32>().unwrap(), wr);
    });
}

fn integer_division_by_zero_is_defined(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let ha = [7i32, -7, 5, i32::MIN, i32::MIN, 9];
        let hb = [2i32, 2, 0, -1, 1, -4];
        let a = Array::from_slice(&ha, &[6]).unwrap();
        let b = Array::from_slice(&hb, &[6]).unwrap();
        let mut q = xp::zeros(&[6], DType::I32).unwrap();
        let mut r = xp::zeros(&[6], DType::I32).unwrap();
        defined_division.launch((1u32,), (6u32,), (&a, &b, &mut q, &mut r)).unwrap();
        // Rust's truncating division; by zero 0 (Rust panics), MIN / -1 = MIN (wrapping_div).
        let wq: Vec<i32> = ha.iter().zip(&hb).map(|(a, b)| if *b == 0 { 0 } else { a.wrapping_div(*b) }).collect();
        let wr: Vec<i32> = ha.iter().zip(&hb).map(|(a, b)| if *b == 0 { 0 } else { a.wrapping_rem(*b) }).collect();
        assert_eq!(q.to_vec::<i32>().unwrap(), wq);
        assert_eq!(r.to_vec::<i32>().unwrap(), wr);
    });
}

fn untyped_float_literals_are_f32(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = 4096;
        let h: Vec<f32> = noise(n, 6).iter().map(|v| v * 1000.0).collect();
        let x = Array::from_slice(&h, &[n]).unwrap();
        let mut out = xp::zeros(&[n], DType::F32).unwrap();
        f32_literals.launch(((n / 256) as u32,), (256u32,), (&x, &mut out)).unwrap();
        // Rust's f32 arithmetic, operation by operation: double arithmetic rounded once at the
        // end would differ on some of these inputs.
        let want: Vec<f32> = h.iter().map(|v| (v / 3.0f32) * 0.1f32 + 1.0e-3f32).collect();
        let in_double: Vec<f32> = h.iter().map(|&v| ((v as f64 / 3.0) * 0.1 + 1.0e-3) as f32).collect();
        assert_ne!(want, in_double, "the inputs must tell float from double arithmetic");
        assert_eq!(out.to_vec::<f32>().unwrap(), want);
    });
}

fn dynamic_shared_memory(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let (blocks, threads) = (4usize, 64usize);
        let h: Vec<f32> = (0..blocks * threads).map(|v| v as f32).collect();
        let x = Array::from_slice(&h, &[h.len()]).unwrap();
        let mut out = xp::zeros(&[h.len()], DType::F32).unwrap();
        reverse_blocks
            .launch_with((blocks as u32,), (threads as u32,), (threads * 4) as u32, None, (&x, &mut out))
            .unwrap();
        let want: Vec<f32> = h.chunks(threads).flat_map(|c| c.iter().rev().copied()).collect();
        assert_eq!(out.to_vec::<f32>().unwrap(), want);
    });
}

fn warp_shuffles(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = 1000usize;
        let h: Vec<i64> = (0..n as i64).map(|v| v * v - 300).collect();
        let x = Array::from_slice(&h, &[n]).unwrap();
        let mut total = xp::zeros(&[1], DType::I64).unwrap();
        warp_sum.launch((8u32,), (128u32,), (&x, &mut total)).unwrap();
        assert_eq!(total.to_vec::<i64>().unwrap()[0], h.iter().sum::<i64>());
    });
}

fn atomic_operations(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = 1000usize;
        let h = noise(n, 7);
        let x = Array::from_slice(&h, &[n]).unwrap();
        let mut fmax = Array::from_slice(&[f32::MIN], &[1]).unwrap();
        let mut imin = Array::from_slice(&[i64::MAX], &[1]).unwrap();
        let mut bits = xp::zeros(&[1], DType::U32).unwrap();
        let mut count = xp::zeros(&[1], DType::U64).unwrap();
        let mut sum = xp::zeros(&[1], DType::F64).unwrap();
        atomics.launch((8u32,), (128u32,), (&x, &mut fmax, &mut imin, &mut bits, &mut count, &mut sum)).unwrap();
        let want_max = h.iter().copied().fold(f32::MIN, f32::max);
        let want_min = h.iter().map(|&v| (v * 1000.0) as i64).min().unwrap();
        assert_eq!(fmax.to_vec::<f32>().unwrap(), [want_max]);
        assert_eq!(imin.to_vec::<i64>().unwrap(), [want_min]);
        assert_eq!(bits.to_vec::<u32>().unwrap(), [u32::MAX]);
        assert_eq!(count.to_vec::<u64>().unwrap(), [n as u64]);
        let want_sum: f64 = h.iter().map(|&v| v as f64 - 0.5).sum();
        let got = sum.to_vec::<f64>().unwrap()[0];
        assert!((got - want_sum).abs() < 1e-9 * n as f64, "{got} vs {want_sum}");
    });
}

fn cpp_keywords_as_names(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let mut v = Array::from_slice(&[1.0f32, -2.0, 3.5], &[3]).unwrap();
        double.launch((1u32,), (4u32,), (&mut v,)).unwrap();
        assert_eq!(v.to_vec::<f32>().unwrap(), [2.0, -4.0, 7.0]);
        let src = double.source().unwrap();
        assert!(src.contains("void rs_double(float* rs_new, xp::u64 rs_new_len)"), "{src}");
    });
}

fn ranges_end_without_overflow(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let mut c = xp::zeros(&[4], DType::U32).unwrap();
        range_ends.launch((1u32,), (1u32,), (&mut c,)).unwrap();
        assert_eq!(c.to_vec::<u32>().unwrap(), [6, 3, 4294967294, 0]);
    });
}

fn launch_errors_name_the_kernel_and_parameter(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = xp::zeros(&[8], DType::F32).unwrap();
        let y = xp::zeros(&[8], DType::F32).unwrap();
        let mut out = xp::zeros(&[8], DType::F32).unwrap();
        // Count.
        let e = saxpy.launch((1u32,), (8u32,), (2.0f32, &x, &mut out)).unwrap_err().to_string();
        assert!(e.contains("saxpy") && e.contains("takes 4 argument(s) (a, x, y, out); 3 given"), "{e}");
        // A scalar of another type (no conversion).
        let e = saxpy.launch((1u32,), (8u32,), (2.0f64, &x, &y, &mut out)).unwrap_err();
        assert_eq!(e.kind(), "DType");
        assert!(e.to_string().contains("`a: f32`") && e.to_string().contains("a scalar f64"), "{e}");
        // An array of another dtype.
        let xi = xp::zeros(&[8], DType::I32).unwrap();
        let e = saxpy.launch((1u32,), (8u32,), (2.0f32, &xi, &y, &mut out)).unwrap_err().to_string();
        assert!(e.contains("`x: &[f32]` takes float32") && e.contains("int32"), "{e}");
        // A read-only array for a written parameter.
        let e = saxpy.launch((1u32,), (8u32,), (2.0f32, &x, &y, &out)).unwrap_err().to_string();
        assert!(e.contains("`out: &mut [f32]`") && e.contains("pass `&mut array`"), "{e}");
        // A non-contiguous view.
        let m = xp::zeros(&[4, 4], DType::F32).unwrap();
        let col = m.t();
        let e = scale.launch((1u32,), (8u32,), (1.0f32, &col, &mut out)).unwrap_err().to_string();
        assert!(e.contains("scale") && e.contains("`x: &[T]`") && e.contains("C-contiguous"), "{e}");
        // A type parameter bound twice differently, and out of its bound.
        let xd = xp::zeros(&[8], DType::F64).unwrap();
        let e = scale.launch((1u32,), (8u32,), (1.0f32, &xd, &mut out)).unwrap_err().to_string();
        assert!(e.contains("T = float32 (bound by `a`)"), "{e}");
        let mut oi = xp::zeros(&[8], DType::I32).unwrap();
        let e = scale.launch((1u32,), (8u32,), (1i32, &xi, &mut oi)).unwrap_err().to_string();
        assert!(e.contains("`T: xp::Float` cannot be int32"), "{e}");
        // Elementwise: a scalar of another type, and an output not passed as `&mut`.
        let e = leaky_relu.call((&x, 0.1f32, &y)).unwrap_err().to_string();
        assert!(e.contains("output `y`") && e.contains("pass `&mut array`"), "{e}");
        let e = clamp_and_square.call((&x, 1.0f32)).unwrap_err().to_string();
        assert!(e.contains("takes 1 input(s) (x)"), "{e}");
        // Arrays on two devices.
        if let Some(other) = xp::devices().into_iter().find(|o| !Arc::ptr_eq(o, d)) {
            let far = with_device(&other, || xp::zeros(&[8], DType::F32).unwrap());
            let e = saxpy.launch((1u32,), (8u32,), (2.0f32, &x, &far, &mut out)).unwrap_err();
            assert_eq!(e.kind(), "DeviceMismatch", "{e}");
        } else {
            eprintln!("SKIPPED the two-device launch error on {}: one device only", d.label());
        }
    });
}
