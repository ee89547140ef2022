//! `spatial::KDTree`'s device search against its host search: the same neighbours, and the same
//! distances bit for bit for p = 1, 2 and inf (on the CPU backend for every p; a GPU's `pow`
//! may differ from the C library's by an ulp or two), for random points, many queries (sorted
//! by leaf first), k from 1 to 64, eps > 0, finite bounds, fewer points than k and duplicate
//! points whose ties go by index.

use std::sync::Arc;

use xp_array::spatial::{KDTree, KDTreeSearch};
use xp_array::*;
use xp_backend_api::DynDevice;

/// A deterministic pseudo-random sequence in [0, 1).
fn uniform(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

fn mat(dev: &Arc<dyn DynDevice>, v: &[f64], cols: usize) -> Array {
    Array::from_slice_on(dev, v, &[v.len() / cols, cols]).unwrap()
}

/// Queries `x` of `tree` by both searches and compares their answers.
#[allow(clippy::too_many_arguments)]
fn same_answers(what: &str, tree: &KDTree, x: &Array, k: usize, eps: f64, p: f64, dub: f64, search: KDTreeSearch) {
    let (hd, hi) = tree.query_with(x, k, eps, p, dub, KDTreeSearch::Host).unwrap();
    let (dd, di) = tree.query_with(x, k, eps, p, dub, search).unwrap();
    assert_eq!((dd.shape(), dd.dtype(), di.dtype()), (hd.shape(), DType::F64, DType::I64), "{what}");
    let (hd, hi) = (hd.to_vec::<f64>().unwrap(), hi.to_vec::<i64>().unwrap());
    let (dd, di) = (dd.to_vec::<f64>().unwrap(), di.to_vec::<i64>().unwrap());
    let exact = p == 1.0 || p == 2.0 || p.is_infinite() || x.device().properties().is_host;
    for (j, ((a, b), (ia, ib))) in dd.iter().zip(&hd).zip(di.iter().zip(&hi)).enumerate() {
        assert_eq!(ia, ib, "{what}: k {k} p {p} eps {eps} bound {dub}: index of answer {j}");
        if exact {
            assert_eq!(a.to_bits(), b.to_bits(), "{what}: k {k} p {p} eps {eps} bound {dub}: distance {j}");
        } else {
            assert!((a - b).abs() <= 8.0 * f64::EPSILON * b.abs() || a == b, "{what}: p {p}: distance {j}: {a} vs {b}");
        }
    }
}

/// Random points in 3, 2 and 5 dimensions, every norm, k up to 64, eps and finite bounds, a few
/// queries and many.
pub fn kdtree_device_search_matches_the_host_search(dev: &Arc<dyn DynDevice>) {
    with_device(dev, || {
        for (dim, n, leafsize, count) in [(3, 3000, 16, 5000), (2, 700, 4, 300), (5, 400, 10, 200)] {
            let data = uniform(40 + dim as u64, n * dim);
            let queries: Vec<f64> = uniform(50 + dim as u64, count * dim).iter().map(|v| 1.2 * v - 0.1).collect();
            let tree = KDTree::new(&mat(dev, &data, dim), leafsize).unwrap();
            let x = mat(dev, &queries, dim);
            let what = format!("{dim}-d, {n} points, {count} queries");
            let cases: &[(usize, f64, f64, f64)] = match dim {
                3 => &[
                    (1, 0.0, 2.0, f64::INFINITY),
                    (8, 0.0, 2.0, f64::INFINITY),
                    (8, 0.0, 1.0, f64::INFINITY),
                    (8, 0.0, f64::INFINITY, f64::INFINITY),
                    (8, 0.0, 3.0, f64::INFINITY),
                    (1, 0.0, 3.0, 0.05),
                    (8, 0.5, 2.0, f64::INFINITY),
                    (8, 1.0, 1.0, 0.08),
                    (17, 0.25, 2.0, 0.1),
                    (64, 0.0, 2.0, f64::INFINITY),
                ],
                2 => &[(4, 0.0, 2.0, f64::INFINITY), (4, 0.3, 2.0, 0.05)],
                _ => &[(3, 0.0, 1.0, f64::INFINITY), (3, 0.2, 3.5, 0.6)],
            };
            for &(k, eps, p, dub) in cases {
                same_answers(&what, &tree, &x, k, eps, p, dub, KDTreeSearch::Device);
            }
            // What `query` picks gives the same answers too.
            same_answers(&what, &tree, &x, 2, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Auto);
        }
        // A stack of queries, float32 queries and an empty stack.
        let data = uniform(61, 200 * 3);
        let tree = KDTree::new(&mat(dev, &data, 3), 5).unwrap();
        let q = Array::from_slice_on(dev, &uniform(62, 4 * 5 * 3), &[4, 5, 3]).unwrap();
        let (d, i) = tree.query_with(&q, 3, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Device).unwrap();
        assert_eq!((d.shape(), i.shape()), (&[4usize, 5, 3][..], &[4usize, 5, 3][..]));
        same_answers("a stack", &tree, &q, 3, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Device);
        same_answers("float32", &tree, &q.astype(DType::F32).unwrap(), 1, 0.0, 2.0, 0.3, KDTreeSearch::Device);
        let empty = Array::from_slice_on::<f64>(dev, &[], &[0, 3]).unwrap();
        let (d, i) = tree.query_with(&empty, 4, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Device).unwrap();
        assert_eq!((d.shape(), i.shape()), (&[0usize, 4][..], &[0usize, 4][..]));
    });
}

/// Fewer points than k, duplicate points (equal distances answered by index, as a sort of
/// (distance, index) pairs gives them), a bound that leaves some queries with none, and the
/// errors of the device search.
pub fn kdtree_device_search_ties_missing_neighbours_and_errors(dev: &Arc<dyn DynDevice>) {
    with_device(dev, || {
        // 5 points, k = 8: three answers missing (inf, index n).
        let few = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.5, 0.5];
        let tree = KDTree::new(&mat(dev, &few, 2), 2).unwrap();
        let x = mat(dev, &[0.1, 0.2, 0.9, 0.9, 5.0, 5.0], 2);
        let (d, i) = tree.query_with(&x, 8, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Device).unwrap();
        let (d, i) = (d.to_vec::<f64>().unwrap(), i.to_vec::<i64>().unwrap());
        for c in 0..3 {
            assert!(d[c * 8 + 5..c * 8 + 8].iter().all(|v| v.is_infinite()));
            assert!(i[c * 8 + 5..c * 8 + 8].iter().all(|&v| v == 5));
        }
        assert_eq!(i[..5], [0, 4, 2, 1, 3]);
        same_answers("few points", &tree, &x, 8, 0.0, 2.0, 1.0, KDTreeSearch::Device);
        // Points on a coarse grid, each repeated: many equal distances.
        let grid: Vec<f64> = uniform(70, 600 * 3).iter().map(|v| (v * 4.0).floor()).collect();
        let tree = KDTree::new(&mat(dev, &grid, 3), 3).unwrap();
        let qs: Vec<f64> = uniform(71, 50 * 3).iter().map(|v| (v * 8.0).floor() / 2.0).collect();
        let x = mat(dev, &qs, 3);
        for (k, p) in [(12, 2.0), (9, 1.0), (20, f64::INFINITY)] {
            let (d, i) = tree.query_with(&x, k, 0.0, p, f64::INFINITY, KDTreeSearch::Device).unwrap();
            let (d, i) = (d.to_vec::<f64>().unwrap(), i.to_vec::<i64>().unwrap());
            for (c, q) in qs.chunks(3).enumerate() {
                let mut all: Vec<(f64, i64)> = grid
                    .chunks(3)
                    .enumerate()
                    .map(|(r, g)| {
                        let t = g.iter().zip(q).map(|(a, b)| (a - b).abs());
                        let dd = if p == 1.0 {
                            t.sum()
                        } else if p == 2.0 {
                            t.map(|v| v * v).sum::<f64>().sqrt()
                        } else {
                            t.fold(0.0, f64::max)
                        };
                        (dd, r as i64)
                    })
                    .collect();
                all.sort_by(|a, b| a.partial_cmp(b).unwrap());
                let want: Vec<i64> = all[..k].iter().map(|a| a.1).collect();
                assert_eq!(i[c * k..(c + 1) * k], want[..], "ties, k {k} p {p}, query {c}");
                for j in 0..k {
                    assert!((d[c * k + j] - all[j].0).abs() <= 1e-15 * all[j].0, "ties: distance");
                }
            }
            same_answers("ties", &tree, &x, k, 0.0, p, f64::INFINITY, KDTreeSearch::Device);
            same_answers("ties, eps", &tree, &x, k, 0.7, p, 1.5, KDTreeSearch::Device);
        }
        // Errors: k above 64 on the device, a tree without points, bad input as `query`'s.
        let kind = |r: Result<(Array, Array)>| match r {
            Err(xp_backend_api::Error::Value { .. }) => "Value",
            Err(_) => "other",
            Ok(_) => "Ok",
        };
        assert_eq!(kind(tree.query_with(&x, 65, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Device)), "Value");
        assert_eq!(kind(tree.query_with(&x, 65, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Auto)), "Ok");
        assert_eq!(kind(tree.query_with(&x, 0, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Device)), "Value");
        assert_eq!(kind(tree.query_with(&x, 2, 0.0, 0.5, f64::INFINITY, KDTreeSearch::Device)), "Value");
        assert_eq!(kind(tree.query_with(&x, 2, f64::NAN, 2.0, f64::INFINITY, KDTreeSearch::Device)), "Value");
        let two = mat(dev, &[0.0, 1.0, 2.0, 3.0], 2);
        assert_eq!(kind(tree.query_with(&two, 2, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Device)), "Value");
        let empty = KDTree::new(&Array::from_slice_on::<f64>(dev, &[], &[0, 3]).unwrap(), 4).unwrap();
        assert_eq!(kind(empty.query_with(&x, 2, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Device)), "Value");
        assert_eq!(kind(empty.query_with(&x, 2, 0.0, 2.0, f64::INFINITY, KDTreeSearch::Auto)), "Ok");
    });
}
