//! The tiled kernels of `xp::ndimage` (the shared-memory 1-d correlation, the register rank
//! filter and its use by `signal.medfilt`, the tiled binary erosion) run on the CPU device
//! through `ndimage::with_device_kernels`, against the general kernels or a host reference: odd
//! and non-square sizes, tiles cut by the edges, every mode, origins, 1-d and 3-d images.

use std::sync::Arc;

use xp_array::ndimage::{self as nd, Mode};
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

type Dev = Arc<dyn xp_backend_api::DynDevice>;

fn cpu() -> Dev {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

const MODES: [Mode; 5] = [Mode::Reflect, Mode::Constant, Mode::Nearest, Mode::Mirror, Mode::Wrap];

/// Deterministic values in [0, 1).
fn values(n: usize, seed: u64) -> Vec<f64> {
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

/// An image of `shape` and `dt`: values in [0, 1) for floats, in [0, 50) for integers (with
/// repeats, so that ranks meet ties).
fn image(d: &Dev, shape: &[usize], dt: DType, seed: u64) -> Array {
    let n: usize = shape.iter().product();
    let v = values(n, seed);
    let v: Vec<f64> = if dt.is_integer() { v.iter().map(|x| (x * 50.0).floor()).collect() } else { v };
    Array::from_slice_on(d, &v, shape).unwrap().astype(dt).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// The index `j` of an axis of `n` reads under `mode` (`None`: outside, constant mode).
fn extend(j: i64, n: i64, mode: Mode) -> Option<i64> {
    if (0..n).contains(&j) {
        return Some(j);
    }
    Some(match mode {
        Mode::Constant | Mode::GridConstant => return None,
        Mode::Nearest => j.clamp(0, n - 1),
        Mode::Wrap | Mode::GridWrap => j.rem_euclid(n),
        Mode::Mirror => {
            if n == 1 {
                0
            } else {
                let p = 2 * n - 2;
                let r = j.rem_euclid(p);
                if r < n {
                    r
                } else {
                    p - r
                }
            }
        }
        Mode::Reflect => {
            let p = 2 * n;
            let r = j.rem_euclid(p);
            if r < n {
                r
            } else {
                p - 1 - r
            }
        }
    })
}

/// The host's rank filter: the `rank`-th smallest of the window of `taps` (offsets per axis) at
/// every element, `cval` outside in constant mode.
fn host_rank(x: &[f64], shape: &[usize], taps: &[Vec<i64>], rank: usize, mode: Mode, cval: f64) -> Vec<f64> {
    let nd = shape.len();
    let total: usize = shape.iter().product();
    let mut out = Vec::with_capacity(total);
    let mut win = Vec::with_capacity(taps.len());
    for flat in 0..total {
        let mut idx = vec![0i64; nd];
        let mut r = flat;
        for a in (0..nd).rev() {
            idx[a] = (r % shape[a]) as i64;
            r /= shape[a];
        }
        win.clear();
        for t in taps {
            let mut off = 0usize;
            let mut inside = true;
            for a in 0..nd {
                match extend(idx[a] + t[a], shape[a] as i64, mode) {
                    Some(j) => off = off * shape[a] + j as usize,
                    None => inside = false,
                }
            }
            win.push(if inside { x[off] } else { cval });
        }
        win.sort_by(|a, b| a.partial_cmp(b).unwrap());
        out.push(win[rank]);
    }
    out
}

/// The taps of a box of `sizes` (centre `n / 2` moved by `origin`), in C order, where `keep`.
fn box_taps(sizes: &[usize], origin: &[isize], keep: impl Fn(&[usize]) -> bool) -> Vec<Vec<i64>> {
    let total: usize = sizes.iter().product();
    let mut out = Vec::new();
    for mut flat in 0..total {
        let mut idx = vec![0usize; sizes.len()];
        for a in (0..sizes.len()).rev() {
            idx[a] = flat % sizes[a];
            flat /= sizes[a];
        }
        if keep(&idx) {
            out.push(
                idx.iter().zip(sizes).zip(origin).map(|((&k, &n), &o)| k as i64 - (n / 2) as i64 - o as i64).collect(),
            );
        }
    }
    out
}

#[test]
fn tiled_correlate1d_equals_the_general_kernel() {
    let d = cpu();
    // (shape, axis): contiguous lines long enough for the row kernel, strided axes with lines
    // shorter and longer than a tile, a window wider than the line, 1-d and 3-d images.
    let cases: Vec<(Vec<usize>, usize)> = vec![
        (vec![1500], 0),
        (vec![7, 1301], 1),
        (vec![75, 9], 0),
        (vec![130, 37], 0),
        (vec![5, 67], 0),
        (vec![3, 70, 33], 1),
        (vec![3, 5, 200], 2),
        (vec![6, 4, 10], 0),
    ];
    let weights: [&[f64]; 3] = [&[0.25, -1.5, 2.0, 0.0, 0.75, 1.0, -0.5], &[1.0, 2.0, 1.0, -3.0], &[-1.0, 0.0, 1.0]];
    for (k, (shape, axis)) in cases.iter().enumerate() {
        for dt in [DType::F32, DType::F64, DType::I16, DType::U8] {
            let x = image(&d, shape, dt, 3 + k as u64);
            for (wi, w) in weights.iter().enumerate() {
                let wa = Array::from_slice_on(&d, w, &[w.len()]).unwrap();
                let mut wshape = vec![1usize; shape.len()];
                wshape[*axis] = w.len();
                let wn = wa.reshape(&wshape.iter().map(|&v| v as isize).collect::<Vec<_>>()).unwrap();
                for (mi, &mode) in MODES.iter().enumerate() {
                    let origin = [-1isize, 0, 1][(mi + wi) % 3];
                    let mut origins = vec![0isize; shape.len()];
                    origins[*axis] = origin;
                    let cval = 1.25;
                    let got = nd::with_device_kernels(|| nd::correlate1d(&x, &wa, *axis as isize, mode, cval, origin))
                        .unwrap();
                    let want = nd::correlate(&x, &wn, mode, cval, &origins).unwrap();
                    assert_eq!(got.dtype(), dt);
                    assert_eq!(got.shape(), &shape[..]);
                    assert_eq!(
                        f64s(&got),
                        f64s(&want),
                        "{dt:?} shape {shape:?} axis {axis} weights {w:?} mode {mode:?} origin {origin}"
                    );
                }
            }
        }
    }
}

#[test]
fn tiled_separable_filters_equal_the_cpu_forms() {
    let d = cpu();
    for (k, shape) in [vec![131usize, 257], vec![4, 33, 150], vec![600]].into_iter().enumerate() {
        let x = image(&d, &shape, DType::F64, 40 + k as u64);
        for mode in MODES {
            let a = nd::gaussian_filter(&x, &[2.5], &[0], mode, 0.5, 4.0, None).unwrap();
            let b = nd::with_device_kernels(|| nd::gaussian_filter(&x, &[2.5], &[0], mode, 0.5, 4.0, None)).unwrap();
            let (a, b) = (f64s(&a), f64s(&b));
            let err = a.iter().zip(&b).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
            assert!(err < 1e-14, "gaussian {shape:?} {mode:?}: {err:e}");
            let a = nd::uniform_filter(&x, &[5], mode, 0.5, &[]).unwrap();
            let b = nd::with_device_kernels(|| nd::uniform_filter(&x, &[5], mode, 0.5, &[])).unwrap();
            let err = f64s(&a).iter().zip(&f64s(&b)).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
            assert!(err < 1e-14, "uniform {shape:?} {mode:?}: {err:e}");
            if shape.len() == 2 {
                let a = nd::sobel(&x, 0, mode, 0.5).unwrap();
                let b = nd::with_device_kernels(|| nd::sobel(&x, 0, mode, 0.5)).unwrap();
                let err = f64s(&a).iter().zip(&f64s(&b)).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
                assert!(err < 1e-14, "sobel {mode:?}: {err:e}");
            }
        }
    }
    // float32 Gaussian (sigma 4, radius 16) on a strided and a contiguous pass.
    let x = image(&d, &[97, 300], DType::F32, 9);
    let a = nd::gaussian_filter(&x, &[4.0], &[0], Mode::Reflect, 0.0, 4.0, None).unwrap();
    let b = nd::with_device_kernels(|| nd::gaussian_filter(&x, &[4.0], &[0], Mode::Reflect, 0.0, 4.0, None)).unwrap();
    assert_eq!(b.dtype(), DType::F32);
    let err = f64s(&a).iter().zip(&f64s(&b)).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
    assert!(err < 1e-6, "float32 gaussian: {err:e}");
}

/// An image's shape, the window's sizes and origin, and whether the footprint is a cross.
type RankCase = (Vec<usize>, Vec<usize>, Vec<isize>, bool);

#[test]
fn tiled_rank_filters_equal_a_host_reference() {
    let d = cpu();
    // (shape, window sizes, origin, footprint kind): 2-d tiles cut by the edges, a window wider
    // than the image, a 1-d image, a 3-d image with a window in its last two axes.
    let cases: Vec<RankCase> = vec![
        (vec![37, 45], vec![3, 3], vec![0, 0], false),
        (vec![19, 70], vec![5, 5], vec![1, -2], false),
        (vec![9, 11], vec![3, 7], vec![0, 1], true),
        (vec![4, 3], vec![5, 5], vec![0, 0], false),
        (vec![100], vec![5], vec![-1], false),
        (vec![3, 17, 40], vec![1, 5, 3], vec![0, -1, 0], true),
        (vec![2, 20, 35], vec![1, 7, 7], vec![0, 0, 0], false),
    ];
    for (k, (shape, sizes, origin, cross)) in cases.into_iter().enumerate() {
        let nd_ = shape.len();
        let centre: Vec<usize> = sizes.iter().map(|&n| n / 2).collect();
        let keep = |idx: &[usize]| !cross || idx.iter().zip(&centre).filter(|(&i, &c)| i != c).count() <= 1;
        let taps = box_taps(&sizes, &origin, keep);
        let fp_vals: Vec<bool> = {
            let all = box_taps(&sizes, &vec![0; nd_], |_| true);
            let kept = box_taps(&sizes, &vec![0; nd_], keep);
            all.iter().map(|t| kept.contains(t)).collect()
        };
        let fp = Array::from_slice_on(&d, &fp_vals, &sizes).unwrap();
        for (di, dt) in [DType::F32, DType::F64, DType::I32, DType::U8].into_iter().enumerate() {
            let x = image(&d, &shape, dt, 11 + k as u64 * 7 + di as u64);
            let xv = f64s(&x);
            for (mi, &mode) in MODES.iter().enumerate() {
                let n = taps.len();
                let rank = [n / 2, 1, n - 2][(mi + di) % 3];
                let cval = if dt.is_integer() { 7.0 } else { 0.375 };
                let got = nd::with_device_kernels(|| {
                    nd::rank_filter(&x, rank as isize, None, Some(&fp), mode, cval, &origin)
                })
                .unwrap();
                assert_eq!(got.dtype(), dt);
                let want = host_rank(&xv, &shape, &taps, rank, mode, cval);
                assert_eq!(f64s(&got), want, "{dt:?} shape {shape:?} sizes {sizes:?} rank {rank} mode {mode:?}");
                if mi == 0 {
                    let med = nd::median_filter(&x, None, Some(&fp), mode, cval, &origin).unwrap();
                    let want = host_rank(&xv, &shape, &taps, n / 2, mode, cval);
                    assert_eq!(f64s(&med), want, "median {dt:?} shape {shape:?} sizes {sizes:?}");
                }
            }
        }
    }
    // A window in three axes takes the general kernel, with the same answers.
    let x = image(&d, &[6, 7, 8], DType::F32, 5);
    let taps = box_taps(&[3, 3, 3], &[0, 0, 0], |_| true);
    let got = nd::median_filter(&x, Some(&[3]), None, Mode::Mirror, 0.0, &[]).unwrap();
    assert_eq!(f64s(&got), host_rank(&f64s(&x), &[6, 7, 8], &taps, 13, Mode::Mirror, 0.0));
}

#[test]
fn medfilt_takes_the_rank_kernels() {
    let d = cpu();
    for (shape, ks) in [
        (vec![37usize, 41], vec![5usize, 5]),
        (vec![16, 9], vec![3, 3]),
        (vec![12, 30], vec![3, 7]),
        (vec![50], vec![5]),
        (vec![5, 6, 7], vec![3, 3, 3]),
    ] {
        for dt in [DType::F32, DType::F64, DType::I16] {
            let x = image(&d, &shape, dt, 77);
            let taps = box_taps(&ks, &vec![0; ks.len()], |_| true);
            let want = host_rank(&f64s(&x), &shape, &taps, taps.len() / 2, Mode::Constant, 0.0);
            let got = if shape.len() == 2 {
                xp_array::signal::medfilt2d(&x, Some(&ks)).unwrap()
            } else {
                xp_array::signal::medfilt(&x, Some(&ks)).unwrap()
            };
            assert_eq!(got.dtype(), dt);
            assert_eq!(f64s(&got), want, "{dt:?} shape {shape:?} kernel {ks:?}");
        }
    }
}

#[test]
fn tiled_binary_erosion_equals_the_native_pass() {
    let d = cpu();
    let mask_of = |shape: &[usize], p: f64, seed: u64| -> Array {
        let v: Vec<bool> = values(shape.iter().product(), seed).into_iter().map(|x| x < p).collect();
        Array::from_slice_on(&d, &v, shape).unwrap()
    };
    for (k, (shape, st_shape)) in [
        (vec![45usize, 70], vec![3usize, 3]),
        (vec![9, 33], vec![5, 2]),
        (vec![3, 20, 41], vec![1, 3, 3]),
        (vec![70], vec![4]),
        (vec![40, 50], vec![1, 35]),
    ]
    .into_iter()
    .enumerate()
    {
        let img = mask_of(&shape, 0.8, 3 + k as u64);
        let m = mask_of(&shape, 0.5, 30 + k as u64);
        let sv: Vec<bool> = values(st_shape.iter().product(), 50 + k as u64).into_iter().map(|x| x < 0.7).collect();
        let st = Array::from_slice_on(&d, &sv, &st_shape).unwrap();
        for (border, it, use_mask) in [(false, 1, false), (true, 2, true), (false, 0, false)] {
            let mk = use_mask.then_some(&m);
            let a = nd::binary_erosion(&img, Some(&st), it, mk, border, None, false).unwrap();
            let b =
                nd::with_device_kernels(|| nd::binary_erosion(&img, Some(&st), it, mk, border, None, false)).unwrap();
            assert_eq!(a.to_vec::<bool>().unwrap(), b.to_vec::<bool>().unwrap(), "erosion {shape:?} {st_shape:?}");
            let a = nd::binary_dilation(&img, Some(&st), it, mk, border, None, false).unwrap();
            let b =
                nd::with_device_kernels(|| nd::binary_dilation(&img, Some(&st), it, mk, border, None, false)).unwrap();
            assert_eq!(a.to_vec::<bool>().unwrap(), b.to_vec::<bool>().unwrap(), "dilation {shape:?} {st_shape:?}");
        }
        // The default element.
        let a = nd::binary_erosion(&img, None, 1, None, false, None, false).unwrap();
        let b = nd::with_device_kernels(|| nd::binary_erosion(&img, None, 1, None, false, None, false)).unwrap();
        assert_eq!(a.to_vec::<bool>().unwrap(), b.to_vec::<bool>().unwrap());
    }
}
