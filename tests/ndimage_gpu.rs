//! `ndimage::label` and `ndimage::distance_transform_edt` on every GPU found, against the CPU
//! device's answers on the same random images (several shapes and densities, 2-d and 3-d,
//! every connectivity): the same labels in the same order, the same distances. Without a GPU
//! each test prints a `SKIPPED` line and passes, unless `XP_REQUIRE_GPU` asks for one.

use std::sync::Arc;

use xp::ndimage as nd;
use xp::{Array, DType, DynDevice};

/// A deterministic random mask of `shape` with about `p` of its pixels set, on `d`.
fn mask(d: &Arc<dyn DynDevice>, shape: &[usize], p: f64, seed: u64) -> Array {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let v: Vec<bool> = (0..shape.iter().product::<usize>())
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) < p
        })
        .collect();
    Array::from_slice_on(d, &v, shape).unwrap()
}

fn cpu() -> Arc<dyn DynDevice> {
    xp::device("cpu").unwrap()
}

fn shapes() -> Vec<Vec<usize>> {
    vec![vec![1000], vec![1, 1], vec![33, 17], vec![301, 257], vec![1024, 1024], vec![17, 31, 45]]
}

fn label_matches_the_cpu(g: &Arc<dyn DynDevice>) {
    let c = cpu();
    for (k, shape) in shapes().into_iter().enumerate() {
        for p in [0.3, 0.5, 0.6, 0.95] {
            let host = mask(&c, &shape, p, 7 + k as u64);
            let dev = host.to_device(g).unwrap();
            for conn in 1..=shape.len() {
                let st = nd::generate_binary_structure(shape.len(), conn).unwrap();
                let (a, n) = nd::label(&host, Some(&st)).unwrap();
                let std = st.to_device(g).unwrap();
                let (b, m) = nd::label(&dev, Some(&std)).unwrap();
                assert_eq!(b.dtype(), DType::I32);
                assert_eq!(n, m, "count, shape {shape:?} p {p} connectivity {conn}");
                assert!(
                    a.to_vec::<i32>().unwrap() == b.to_vec::<i32>().unwrap(),
                    "labels, shape {shape:?} p {p} connectivity {conn}"
                );
            }
        }
    }
}

fn distance_transform_edt_matches_the_cpu(g: &Arc<dyn DynDevice>) {
    let c = cpu();
    for (k, shape) in shapes().into_iter().enumerate() {
        // Dense zeros (short searches), sparse zeros (the per-line envelope), none at all.
        for p in [0.5, 0.9, 0.9995, 1.0] {
            let host = mask(&c, &shape, p, 19 + k as u64);
            let dev = host.to_device(g).unwrap();
            let unit = vec![1.0; shape.len()];
            let aniso: Vec<f64> = [1.5, 0.5, 2.25][..shape.len()].to_vec();
            for samp in [unit, aniso] {
                let a = nd::distance_transform_edt(&host, Some(&samp)).unwrap().to_vec::<f64>().unwrap();
                let b = nd::distance_transform_edt(&dev, Some(&samp)).unwrap().to_vec::<f64>().unwrap();
                for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                    // Unit sampling: exact integers under the root. Otherwise a fused
                    // multiply-add may round the last bit differently.
                    let ok = x == y || (x - y).abs() <= 4.0 * f64::EPSILON * x.abs();
                    assert!(ok, "shape {shape:?} p {p} sampling {samp:?} pixel {i}: cpu {x} gpu {y}");
                }
            }
        }
    }
}

#[test]
fn ndimage_label_matches_the_cpu() {
    crate::gpus::on_every_gpu("ndimage_label_matches_the_cpu", label_matches_the_cpu);
}

#[test]
fn ndimage_distance_transform_edt_matches_the_cpu() {
    crate::gpus::on_every_gpu("ndimage_distance_transform_edt_matches_the_cpu", distance_transform_edt_matches_the_cpu);
}
