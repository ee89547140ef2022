//! `sort`, `argsort`, `unique`, `searchsorted` and `lexsort` against host sorts with NumPy's
//! order (NaNs last, `-0.0 == 0.0`, equal elements in input order), at sizes that take many
//! tiles of the radix passes and with many rows sorted at once.

use std::cmp::Ordering;
use std::sync::Arc;

use num_complex::Complex;
use xp_array::*;
use xp_backend_api::DynDevice;

/// NumPy's order of floats: NaNs last and equal, -0.0 equal to 0.0.
fn np_cmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// A deterministic stream of pseudo-random u64 (splitmix64).
fn stream(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

/// Floats with NaNs, infinities, signed zeros and many ties.
fn special_floats(n: usize, seed: u64) -> Vec<f64> {
    stream(seed, n)
        .into_iter()
        .map(|r| match r % 23 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => 0.0,
            4 => -0.0,
            5 => ((r >> 8) % 7) as f64 - 3.0,
            _ => ((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e3,
        })
        .collect()
}

fn host_argsort(v: &[f64]) -> Vec<i64> {
    let mut idx: Vec<i64> = (0..v.len() as i64).collect();
    idx.sort_by(|&a, &b| np_cmp(v[a as usize], v[b as usize]));
    idx
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b
}

pub fn sort_and_argsort_match_host_sorts_for_every_dtype(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = 100_003;
        let base = special_floats(n, 1);
        for dt in DType::ALL.into_iter().filter(|d| !d.is_complex()) {
            // Values exactly representable in dt (integers in a range that fits).
            let vals: Vec<f64> = if dt.is_float() {
                base.clone()
            } else {
                let signed = matches!(dt, DType::I8 | DType::I16 | DType::I32 | DType::I64);
                let span = if dt == DType::Bool { 2 } else { 200 };
                stream(9, n).into_iter().map(|r| (r % span) as f64 - if signed { 100.0 } else { 0.0 }).collect()
            };
            let x = Array::from_vec(vals).unwrap().astype(dt).unwrap();
            let host: Vec<f64> = x.astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
            let want_idx = host_argsort(&host);
            let got_idx = x.argsort(Some(-1)).unwrap().to_vec::<i64>().unwrap();
            let bad = got_idx.iter().zip(&want_idx).position(|(g, w)| g != w);
            assert_eq!(bad, None, "argsort of {dt}");
            let got = x.sort(Some(-1)).unwrap().astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
            let bad = want_idx.iter().zip(&got).position(|(&i, &g)| !same(host[i as usize], g));
            assert_eq!(bad, None, "sort of {dt}");
        }
    });
}

pub fn sorts_along_every_axis_of_many_rows(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        // Few distinct values, so that stability decides the indices.
        let (r, c) = (3003usize, 37usize);
        let v: Vec<i16> = stream(2, r * c).into_iter().map(|x| (x % 5) as i16 - 2).collect();
        let x = Array::from_vec(v.clone()).unwrap().reshape(&[r as isize, c as isize]).unwrap();
        let hv: Vec<f64> = v.iter().map(|&x| x as f64).collect();
        // axis -1: each row.
        let got = x.argsort(Some(-1)).unwrap().to_vec::<i64>().unwrap();
        for i in 0..r {
            assert!(got[i * c..(i + 1) * c] == host_argsort(&hv[i * c..(i + 1) * c])[..], "row {i}");
        }
        // axis 0: each column.
        let got = x.argsort(Some(0)).unwrap().to_vec::<i64>().unwrap();
        for j in 0..c {
            let col: Vec<f64> = (0..r).map(|i| hv[i * c + j]).collect();
            let want = host_argsort(&col);
            assert!((0..r).all(|i| got[i * c + j] == want[i]), "column {j}");
        }
        let s = x.sort(Some(0)).unwrap().to_vec::<i16>().unwrap();
        assert!((0..c).all(|j| (1..r).all(|i| s[(i - 1) * c + j] <= s[i * c + j])));
        // None: the flattened array.
        assert!(
            x.argsort(None).unwrap().to_vec::<i64>().unwrap() == host_argsort(&hv),
            "argsort of the flattened array"
        );
        // A 3-d array along its middle axis.
        let y = Array::from_vec(hv.clone()).unwrap().reshape(&[c as isize, 7, -1]).unwrap();
        let sy = y.sort(Some(1)).unwrap();
        let ok = sy
            .slice(&[SliceArg::ALL, SliceArg::range(1, 7, 1)])
            .unwrap()
            .ge(&sy.slice(&[SliceArg::ALL, SliceArg::range(0, 6, 1)]).unwrap())
            .unwrap();
        assert!(ok.all(None, false).unwrap().item::<bool>().unwrap());
    });
}

pub fn complex_sorts_in_numpy_order_with_nans(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let nan = f64::NAN;
        let v = vec![
            Complex::new(nan, 1.0),
            Complex::new(1.0, nan),
            Complex::new(2.0, -1.0),
            Complex::new(nan, nan),
            Complex::new(1.0, 2.0),
            Complex::new(-0.0, 3.0),
            Complex::new(0.0, -3.0),
            Complex::new(nan, -1.0),
            Complex::new(0.5, nan),
            Complex::new(1.0, 2.0),
        ];
        let x = Array::from_vec(v).unwrap();
        // NumPy: argsort(kind='stable') of this array.
        assert_eq!(x.argsort(Some(-1)).unwrap().to_vec::<i64>().unwrap(), vec![6, 5, 4, 9, 2, 8, 1, 7, 0, 3]);
        let s = x.sort(Some(-1)).unwrap().to_vec::<Complex<f64>>().unwrap();
        assert_eq!((s[0], s[4]), (Complex::new(0.0, -3.0), Complex::new(2.0, -1.0)));
        assert!(s[9].re.is_nan() && s[9].im.is_nan());
        let u = unique(&x).unwrap().to_vec::<Complex<f64>>().unwrap();
        assert_eq!(u.len(), 9, "{u:?}");
        let f = sort_complex(&Array::from_vec(vec![3.0f32, 1.0, 2.0]).unwrap()).unwrap();
        assert_eq!(f.dtype(), DType::C64);
    });
}

pub fn unique_with_index_inverse_and_counts(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = 70_007;
        let v: Vec<f32> =
            stream(3, n).into_iter().map(|r| if r % 97 == 0 { f32::NAN } else { (r % 1000) as f32 - 500.0 }).collect();
        let x = Array::from_vec(v.clone()).unwrap().reshape(&[7, -1]).unwrap();
        let u = unique_all(&x, true, true, true).unwrap();
        let vals = u.values.to_vec::<f32>().unwrap();
        let mut host: Vec<f32> = v.clone();
        host.sort_by(|a, b| np_cmp(*a as f64, *b as f64));
        host.dedup_by(|a, b| same(*a as f64, *b as f64));
        assert_eq!(vals.len(), host.len());
        assert!(vals.iter().zip(&host).all(|(&a, &b)| same(a as f64, b as f64)));
        let index = u.index.unwrap().to_vec::<i64>().unwrap();
        let inverse = u.inverse.unwrap();
        assert_eq!(inverse.shape(), &[7, n / 7]);
        let inverse = inverse.to_vec::<i64>().unwrap();
        let counts = u.counts.unwrap().to_vec::<i64>().unwrap();
        for (k, &val) in vals.iter().enumerate() {
            let first = v.iter().position(|&y| same(y as f64, val as f64)).unwrap();
            assert_eq!(index[k] as usize, first, "first index of {val}");
            let c = v.iter().filter(|&&y| same(y as f64, val as f64)).count();
            assert_eq!(counts[k] as usize, c, "count of {val}");
        }
        assert!(inverse.iter().zip(&v).all(|(&i, &y)| same(vals[i as usize] as f64, y as f64)));
    });
}

pub fn searchsorted_sides_nans_and_sorter(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let a = Array::from_vec(vec![-1.0f64, 0.0, 0.0, 2.5, 7.0, f64::NAN, f64::NAN]).unwrap();
        let v = Array::from_vec(vec![-0.0f64, 2.5, 8.0, f64::NAN, -5.0, 0.0]).unwrap();
        // NumPy: searchsorted(a, v, 'left') / 'right'.
        let l = searchsorted(&a, &v, Side::Left, None).unwrap().to_vec::<i64>().unwrap();
        let r = searchsorted(&a, &v, Side::Right, None).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(l, vec![1, 3, 5, 5, 0, 1]);
        assert_eq!(r, vec![3, 4, 5, 7, 0, 3]);
        // With a sorter, and v of another dtype and shape.
        let b = Array::from_vec(vec![30i32, 10, 20, 10]).unwrap();
        let s = b.argsort(Some(-1)).unwrap();
        let q = Array::from_vec(vec![10i64, 25, 5, 40]).unwrap().reshape(&[2, 2]).unwrap();
        let got = searchsorted(&b, &q, Side::Right, Some(&s)).unwrap();
        assert_eq!(got.shape(), &[2, 2]);
        assert_eq!(got.to_vec::<i64>().unwrap(), vec![2, 3, 0, 4]);
        // Many queries into a long array, against a host binary search.
        let big: Vec<i64> = (0..300_000).map(|i| i / 3).collect();
        let qs: Vec<i64> = stream(4, 5000).into_iter().map(|r| (r % 110_000) as i64 - 5000).collect();
        let got = searchsorted(
            &Array::from_vec(big.clone()).unwrap(),
            &Array::from_vec(qs.clone()).unwrap(),
            Side::Left,
            None,
        )
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
        assert!(qs.iter().zip(&got).all(|(&q, &g)| g as usize == big.partition_point(|&x| x < q)));
    });
}

pub fn lexsort_sorts_by_the_last_key_first(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        // NumPy: lexsort((b, a)) sorts by a, then b.
        let a = Array::from_vec(vec![1i32, 5, 1, 4, 3, 4, 4]).unwrap();
        let b = Array::from_vec(vec![9.0f64, 4.0, 0.0, 4.0, 0.0, 2.0, 1.0]).unwrap();
        assert_eq!(lexsort(&[&b, &a]).unwrap().to_vec::<i64>().unwrap(), vec![2, 0, 4, 6, 5, 3, 1]);
    });
}

/// Millions of keys (hundreds of tiles whose offsets come from the tiles before them), with
/// few distinct values so that stability decides the indices: float32 and uint64 keys,
/// int64 argsort with a payload.
pub fn long_sorts_keep_order_across_many_tiles(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = (1usize << 22) + 17;
        let r = stream(11, n);
        let f: Vec<f32> = r.iter().map(|&x| ((x >> 40) % 5000) as f32 * 0.25 - 300.0).collect();
        let x = Array::from_vec(f.clone()).unwrap();
        let mut want_idx: Vec<usize> = (0..n).collect();
        want_idx.sort_by(|&a, &b| f[a].total_cmp(&f[b]));
        let got = x.argsort(Some(-1)).unwrap().to_vec::<i64>().unwrap();
        let bad = got.iter().zip(&want_idx).position(|(&g, &w)| g as usize != w);
        assert_eq!(bad, None, "argsort float32 of {n} on {}", d.label());
        let s = x.sort(Some(-1)).unwrap().to_vec::<f32>().unwrap();
        assert!(s.iter().zip(&want_idx).all(|(&g, &w)| g == f[w]), "sort float32 of {n} on {}", d.label());
        let u: Vec<u64> = r.clone();
        let mut want = u.clone();
        want.sort_unstable();
        let got = Array::from_vec(u).unwrap().sort(Some(-1)).unwrap().to_vec::<u64>().unwrap();
        assert!(got == want, "sort uint64 of {n} on {}", d.label());
    });
}
