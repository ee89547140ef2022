//! The CPU device's native host forms of the IIR filters (`lfilter`, `sosfilt` and their
//! forward–backward forms) and of the distances (`cdist`, `pdist`, `distance_matrix`) against
//! the device kernels (`ndimage::with_device_kernels`), on random data of odd sizes: every
//! dtype, orders 0 to 17, initial states, both axes, every metric with a native form.

use std::sync::Arc;

use xp_array::ndimage::with_device_kernels;
use xp_array::signal::{self, PadType};
use xp_array::spatial::distance::{cdist, pdist, Metric, MetricArgs};
use xp_array::*;
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// A deterministic stream of uniform values in [-1, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        2.0 * ((self.0 >> 11) as f64 / (1u64 << 53) as f64) - 1.0
    }
    fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.next()).collect()
    }
}

fn arr(d: &Arc<dyn DynDevice>, v: &[f64], shape: &[usize], dt: DType) -> Array {
    Array::from_slice_on(d, v, shape).unwrap().astype(dt).unwrap()
}

/// An array's values as (re, im) pairs in float64.
fn parts(a: &Array) -> Vec<(f64, f64)> {
    if a.dtype().is_complex() {
        let re = a.real().astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
        let im = a.imag().unwrap().astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
        re.into_iter().zip(im).collect()
    } else {
        a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap().into_iter().map(|v| (v, 0.0)).collect()
    }
}

/// Same dtype and shape, every value within `tol` of the other's, relative to the largest
/// finite magnitude (NaN where the other is NaN, infinities equal).
fn agree(what: &str, got: &Array, want: &Array, tol: f64) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (parts(got), parts(want));
    let scale = w.iter().map(|&(r, i)| r.hypot(i)).filter(|v| v.is_finite()).fold(1e-300, f64::max);
    for (q, (a, b)) in g.iter().zip(&w).enumerate() {
        let nan = |v: &(f64, f64)| (v.0.is_nan(), v.1.is_nan());
        if nan(a) != (false, false) || nan(b) != (false, false) {
            assert_eq!(nan(a), nan(b), "{what}: element {q}: {a:?} vs {b:?}");
            continue;
        }
        let inf = |v: &(f64, f64)| v.0.is_infinite() || v.1.is_infinite();
        if inf(a) || inf(b) {
            assert_eq!(a, b, "{what}: element {q}");
            continue;
        }
        let err = (a.0 - b.0).hypot(a.1 - b.1);
        assert!(err <= tol * scale, "{what}: element {q}: {a:?} vs {b:?} (scale {scale})");
    }
}

fn tol(dt: DType) -> f64 {
    match dt {
        DType::F32 | DType::C64 => 2e-5,
        _ => 1e-12,
    }
}

/// The denominator with real poles inside radius 0.8 (a stable filter of order `k`).
fn denominator(k: usize, g: &mut Lcg) -> Vec<f64> {
    let mut a = vec![1.0];
    for _ in 0..k {
        let p = 0.8 * g.next();
        let mut next = a.clone();
        next.push(0.0);
        for j in 0..a.len() {
            next[j + 1] -= p * a[j];
        }
        a = next;
    }
    a
}

const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C64, DType::C128];

#[test]
fn lfilter_native_matches_the_kernel_every_dtype_order_axis_and_state() {
    let d = cpu();
    let mut g = Lcg(7);
    for dt in DTYPES {
        for k in [0usize, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17] {
            for (shape, axis) in
                [(vec![5usize, 1037], -1isize), (vec![1037, 6], 0), (vec![2, 700], 1), (vec![3, 2, 600], -1)]
            {
                let a = denominator(k, &mut g);
                let b = g.vec(k + 1);
                let (ad, bd) = (arr(&d, &a, &[k + 1], dt), arr(&d, &b, &[k + 1], dt));
                let n: usize = shape.iter().product();
                let x = arr(&d, &g.vec(n), &shape, dt);
                let what = format!("lfilter {dt} order {k} shape {shape:?} axis {axis}");
                let (y, _) = signal::lfilter(&bd, &ad, &x, axis, None).unwrap();
                let (yk, _) = with_device_kernels(|| signal::lfilter(&bd, &ad, &x, axis, None)).unwrap();
                agree(&what, &y, &yk, tol(dt));
                if k > 0 {
                    let ax = if axis < 0 { shape.len() - 1 } else { axis as usize };
                    let mut zs = shape.clone();
                    zs[ax] = k;
                    let zi = arr(&d, &g.vec(zs.iter().product()), &zs, dt);
                    let (y, zf) = signal::lfilter(&bd, &ad, &x, axis, Some(&zi)).unwrap();
                    let (yk, zk) = with_device_kernels(|| signal::lfilter(&bd, &ad, &x, axis, Some(&zi))).unwrap();
                    agree(&format!("{what} with zi"), &y, &yk, tol(dt));
                    agree(&format!("{what} zf"), &zf.unwrap(), &zk.unwrap(), tol(dt));
                }
            }
        }
    }
}

#[test]
fn lfilter_native_continues_across_calls_through_its_state() {
    // Filtering two halves with the state handed on gives the whole signal's answer.
    let d = cpu();
    let mut g = Lcg(11);
    let a = arr(&d, &denominator(8, &mut g), &[9], DType::F64);
    let b = arr(&d, &g.vec(9), &[9], DType::F64);
    let x = arr(&d, &g.vec(6 * 1500), &[6, 1500], DType::F64);
    let zi = Array::full_on(&d, &[6, 8], 0.0, DType::F64).unwrap();
    let (whole, _) = signal::lfilter(&b, &a, &x, -1, None).unwrap();
    let half = |lo: isize, hi: isize| x.slice(&[SliceArg::ALL, SliceArg::range(lo, hi, 1)]).unwrap();
    let (y1, z1) = signal::lfilter(&b, &a, &half(0, 700), -1, Some(&zi)).unwrap();
    let (y2, _) = signal::lfilter(&b, &a, &half(700, 1500), -1, Some(&z1.unwrap())).unwrap();
    let joined = routines::concatenate(&[&y1, &y2], 1).unwrap();
    agree("halves", &joined, &whole, 1e-13);
}

#[test]
fn sosfilt_native_matches_the_kernel_every_dtype_sections_axis_and_state() {
    let d = cpu();
    let mut g = Lcg(13);
    for dt in DTYPES {
        for ns in [1usize, 2, 3, 4, 5, 9] {
            for (shape, axis) in [(vec![6usize, 1100], -1isize), (vec![900, 3], 0), (vec![1, 800], -1)] {
                let mut sos = Vec::new();
                for _ in 0..ns {
                    let a = denominator(2, &mut g);
                    sos.extend(g.vec(3));
                    sos.extend(a);
                }
                let s = arr(&d, &sos, &[ns, 6], dt);
                let n: usize = shape.iter().product();
                let x = arr(&d, &g.vec(n), &shape, dt);
                let what = format!("sosfilt {dt} {ns} sections shape {shape:?} axis {axis}");
                let (y, _) = signal::sosfilt(&s, &x, axis, None).unwrap();
                let (yk, _) = with_device_kernels(|| signal::sosfilt(&s, &x, axis, None)).unwrap();
                agree(&what, &y, &yk, tol(dt));
                let ax = if axis < 0 { shape.len() - 1 } else { axis as usize };
                let mut zs = vec![ns];
                zs.extend(&shape);
                zs[ax + 1] = 2;
                let zi = arr(&d, &g.vec(zs.iter().product()), &zs, dt);
                let (y, zf) = signal::sosfilt(&s, &x, axis, Some(&zi)).unwrap();
                let (yk, zk) = with_device_kernels(|| signal::sosfilt(&s, &x, axis, Some(&zi))).unwrap();
                agree(&format!("{what} with zi"), &y, &yk, tol(dt));
                agree(&format!("{what} zf"), &zf.unwrap(), &zk.unwrap(), tol(dt));
            }
        }
    }
}

#[test]
fn forward_backward_filters_native_match_the_kernel() {
    let d = cpu();
    let mut g = Lcg(17);
    for dt in [DType::F32, DType::F64] {
        let a = arr(&d, &denominator(6, &mut g), &[7], dt);
        let b = arr(&d, &g.vec(7), &[7], dt);
        let x = arr(&d, &g.vec(5 * 900), &[5, 900], dt);
        let y = signal::filtfilt(&b, &a, &x, -1, Some(PadType::Odd), None, Default::default()).unwrap();
        let yk = with_device_kernels(|| signal::filtfilt(&b, &a, &x, -1, Some(PadType::Odd), None, Default::default()))
            .unwrap();
        agree(&format!("filtfilt {dt}"), &y, &yk, tol(dt));
        let mut sos = Vec::new();
        for _ in 0..4 {
            let a = denominator(2, &mut g);
            sos.extend(g.vec(3));
            sos.extend(a);
        }
        let s = arr(&d, &sos, &[4, 6], dt);
        let y = signal::sosfiltfilt(&s, &x, 0, Some(PadType::Even), Some(3)).unwrap();
        let yk = with_device_kernels(|| signal::sosfiltfilt(&s, &x, 0, Some(PadType::Even), Some(3))).unwrap();
        agree(&format!("sosfiltfilt {dt}"), &y, &yk, tol(dt));
    }
}

/// Every metric the native loop covers, with its arguments.
fn native_metrics(d: &Arc<dyn DynDevice>, dim: usize) -> Vec<(Metric, Option<f64>, Option<Array>)> {
    let var = arr(d, &(0..dim).map(|i| 0.5 + i as f64 * 0.25).collect::<Vec<_>>(), &[dim], DType::F64);
    vec![
        (Metric::Euclidean, None, None),
        (Metric::SqEuclidean, None, None),
        (Metric::Cityblock, None, None),
        (Metric::Chebyshev, None, None),
        (Metric::Minkowski, Some(3.0), None),
        (Metric::Minkowski, Some(0.5), None),
        (Metric::SEuclidean, None, Some(var)),
        (Metric::SEuclidean, None, None),
        (Metric::Cosine, None, None),
        (Metric::Correlation, None, None),
        (Metric::Hamming, None, None),
        (Metric::Canberra, None, None),
        (Metric::Braycurtis, None, None),
    ]
}

/// Points with repeated values and zeros (so `hamming` and `canberra` meet ties and skips).
fn points(d: &Arc<dyn DynDevice>, g: &mut Lcg, rows: usize, cols: usize, dt: DType) -> Array {
    let v: Vec<f64> = (0..rows * cols)
        .map(|i| {
            if i % 5 == 0 {
                0.0
            } else if i % 3 == 0 {
                (g.next() * 3.0).round()
            } else {
                g.next()
            }
        })
        .collect();
    arr(d, &v, &[rows, cols], dt)
}

#[test]
fn cdist_and_pdist_native_match_the_kernels_for_every_metric() {
    let d = cpu();
    let mut g = Lcg(19);
    for (ma, mb, dim, dt) in [
        (13usize, 21usize, 7usize, DType::F64),
        (1, 9, 3, DType::F32),
        (70, 33, 64, DType::F32),
        (300, 257, 20, DType::F64),
    ] {
        let xa = points(&d, &mut g, ma, dim, dt);
        let xb = points(&d, &mut g, mb, dim, dt);
        for (m, p, v) in native_metrics(&d, dim) {
            let args = MetricArgs { p, v: v.as_ref(), vi: None };
            let what = format!("{m} {p:?} {ma}x{mb}x{dim} {dt}");
            let got = cdist(&xa, &xb, m, &args).unwrap();
            let want = with_device_kernels(|| cdist(&xa, &xb, m, &args)).unwrap();
            agree(&format!("cdist {what}"), &got, &want, 1e-12);
            let got = pdist(&xa, m, &args).unwrap();
            let want = with_device_kernels(|| pdist(&xa, m, &args)).unwrap();
            agree(&format!("pdist {what}"), &got, &want, 1e-12);
        }
    }
}

#[test]
fn euclidean_native_is_the_sequential_float64_sum() {
    // Each pair's sum runs over the coordinates in order, as SciPy's loop: the same bits.
    let d = cpu();
    let mut g = Lcg(23);
    let (ma, mb, dim) = (37, 45, 19);
    let a = g.vec(ma * dim);
    let b = g.vec(mb * dim);
    let got = cdist(
        &arr(&d, &a, &[ma, dim], DType::F64),
        &arr(&d, &b, &[mb, dim], DType::F64),
        Metric::Euclidean,
        &MetricArgs::default(),
    )
    .unwrap()
    .to_vec::<f64>()
    .unwrap();
    for i in 0..ma {
        for j in 0..mb {
            let mut s = 0.0f64;
            for k in 0..dim {
                let t = a[i * dim + k] - b[j * dim + k];
                s += t * t;
            }
            assert_eq!(got[i * mb + j], s.sqrt(), "pair ({i}, {j})");
        }
    }
    // The triangle holds the same values in condensed order.
    let x = arr(&d, &a, &[ma, dim], DType::F64);
    let full = cdist(&x, &x, Metric::Euclidean, &MetricArgs::default()).unwrap().to_vec::<f64>().unwrap();
    let cond = pdist(&x, Metric::Euclidean, &MetricArgs::default()).unwrap().to_vec::<f64>().unwrap();
    let want: Vec<f64> =
        (0..ma).flat_map(|i| ((i + 1)..ma).map(move |j| (i, j))).map(|(i, j)| full[i * ma + j]).collect();
    assert_eq!(cond, want);
}

#[test]
fn distances_native_keep_nan_and_zero_rows_as_the_kernels() {
    let d = cpu();
    let xa = Array::from_slice_on(&d, &[0.0f64, 0.0, f64::NAN, 1.0, 2.0, -1.0], &[3, 2]).unwrap();
    let xb = Array::from_slice_on(&d, &[0.0f64, 0.0, 1.0, 1.0], &[2, 2]).unwrap();
    for m in [Metric::Chebyshev, Metric::Cosine, Metric::Canberra, Metric::Braycurtis, Metric::Euclidean] {
        let got = parts(&cdist(&xa, &xb, m, &MetricArgs::default()).unwrap());
        let want = parts(&with_device_kernels(|| cdist(&xa, &xb, m, &MetricArgs::default())).unwrap());
        for (q, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!(a.0 == b.0 || (a.0.is_nan() && b.0.is_nan()), "{m}: element {q}: {a:?} vs {b:?}");
        }
    }
}
