//! Scans of long rows (the single-pass scan on GPUs) against host sums: integers exactly,
//! floats within the rounding of a sum, complex, a strided row, and the compaction that
//! scans a mask.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::DynDevice;

pub fn long_scans_match_host_sums(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for n in [(1usize << 16) + 1, 1_000_003, (1 << 22) + 4095] {
            let v: Vec<i32> = (0..n).map(|i| ((i * 7919) % 201) as i32 - 100).collect();
            let got = Array::from_vec(v.clone()).unwrap().cumsum(None).unwrap();
            assert_eq!(got.dtype(), DType::I64);
            let mut acc = 0i64;
            let want: Vec<i64> = v
                .iter()
                .map(|&x| {
                    acc += x as i64;
                    acc
                })
                .collect();
            assert_eq!(got.to_vec::<i64>().unwrap(), want, "cumsum int32 of {n} on {}", d.label());
            // float64 of small integers: exact in any order.
            let f = Array::from_vec(v.iter().map(|&x| x as f64).collect::<Vec<_>>()).unwrap();
            let got = f.cumsum(None).unwrap().to_vec::<f64>().unwrap();
            assert!(got.iter().zip(&want).all(|(g, w)| *g == *w as f64), "cumsum float64 of {n} on {}", d.label());
            // float32: within a sum's rounding.
            let g = Array::from_vec(v.iter().map(|&x| x as f32 * 0.37).collect::<Vec<_>>()).unwrap();
            let got = g.cumsum(None).unwrap().to_vec::<f32>().unwrap();
            let mut s = 0f64;
            let mut scale = 0f64;
            for (i, &x) in v.iter().enumerate() {
                s += (x as f32 * 0.37) as f64;
                scale += ((x as f32 * 0.37) as f64).abs();
                let tol = 64.0 * f32::EPSILON as f64 * scale.max(1.0);
                assert!(
                    (got[i] as f64 - s).abs() <= tol,
                    "cumsum float32 at {i} of {n} on {}: {} vs {s}",
                    d.label(),
                    got[i]
                );
            }
            // float32 from its second element: a contiguous row that is not 16-byte aligned.
            let got = g.slice(&[SliceArg::range(1, n as isize, 1)]).unwrap().cumsum(None).unwrap();
            let got = got.to_vec::<f32>().unwrap();
            let (mut s, mut scale) = (0f64, 0f64);
            for (i, &x) in v[1..].iter().enumerate() {
                s += (x as f32 * 0.37) as f64;
                scale += ((x as f32 * 0.37) as f64).abs();
                let tol = 64.0 * f32::EPSILON as f64 * scale.max(1.0);
                assert!((got[i] as f64 - s).abs() <= tol, "cumsum float32 [1:] at {i} of {n} on {}", d.label());
            }
            // Contiguous complex128 (one element a vector) and the product of signs in int64.
            let z =
                Array::from_vec(v.iter().map(|&x| num_complex::Complex::new(x as f64, -x as f64)).collect::<Vec<_>>())
                    .unwrap();
            let zc = z.cumsum(None).unwrap().to_vec::<num_complex::Complex<f64>>().unwrap();
            assert!(
                zc.iter().zip(&want).all(|(g, &w)| g.re == w as f64 && g.im == -w as f64),
                "complex128 cumsum of {n} on {}",
                d.label()
            );
            let signs: Vec<i32> = v.iter().map(|&x| if x % 3 == 0 { -1 } else { 1 }).collect();
            let got = Array::from_vec(signs.clone()).unwrap().cumprod(None).unwrap().to_vec::<i64>().unwrap();
            let mut p = 1i64;
            assert!(
                signs.iter().zip(&got).all(|(&x, &g)| {
                    p *= x as i64;
                    g == p
                }),
                "cumprod int32 of {n} on {}",
                d.label()
            );
            // A strided row of complex64.
            let z =
                Array::from_vec(v.iter().map(|&x| num_complex::Complex::new(x as f32, -x as f32)).collect::<Vec<_>>())
                    .unwrap();
            let zs = z.slice(&[SliceArg::range(0, n as isize, 2)]).unwrap().cumsum(None).unwrap();
            let zs = zs.to_vec::<num_complex::Complex<f32>>().unwrap();
            let mut acc = 0i64;
            for (k, i) in (0..n).step_by(2).enumerate() {
                acc += v[i] as i64;
                assert_eq!((zs[k].re as i64, zs[k].im as i64), (acc, -acc), "complex cumsum at {k} on {}", d.label());
            }
            // Compaction of a long mask.
            let x = Array::from_vec(v.clone()).unwrap();
            let picked = x.compress_mask(&x.gt(30).unwrap()).unwrap().to_vec::<i32>().unwrap();
            let want: Vec<i32> = v.iter().copied().filter(|&a| a > 30).collect();
            assert_eq!(picked, want, "x[x > 30] of {n} on {}", d.label());
        }
    });
}

/// `x[mask]` for every element size (1 to 16 bytes), masks all false, all true and mixed, and
/// lengths that end inside a tile, against the host's filter.
pub fn mask_selection_matches_host_filters_for_every_width(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for n in [1usize, 4095, 4097, 300_001] {
            let v: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1009 - 500).collect();
            for (name, keep) in [("none", i64::MAX), ("all", i64::MIN), ("some", 123)] {
                let want: Vec<i64> = v.iter().copied().filter(|&a| a > keep).collect();
                let mask: Vec<bool> = v.iter().map(|&a| a > keep).collect();
                let m = Array::from_vec(mask).unwrap();
                let x = Array::from_vec(v.clone()).unwrap();
                for dt in [DType::I8, DType::I16, DType::I32, DType::F64, DType::C128] {
                    let got = x.astype(dt).unwrap().compress_mask(&m).unwrap();
                    assert_eq!(got.shape(), &[want.len()], "{dt} x[mask] of {n} ({name}) on {}", d.label());
                    let got = got.astype(DType::C128).unwrap().to_vec::<num_complex::Complex<f64>>().unwrap();
                    let host = Array::from_vec(want.clone()).unwrap().astype(dt).unwrap();
                    let host = host.astype(DType::C128).unwrap().to_vec::<num_complex::Complex<f64>>().unwrap();
                    assert!(got == host, "{dt} x[mask] of {n} ({name}) on {}", d.label());
                }
            }
        }
    });
}
