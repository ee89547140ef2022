//! The CPU device's native forms of `label`, the binary erosion and dilation and the spline
//! interpolation against the device kernels (`ndimage::with_device_kernels`) on random images
//! of odd sizes: the same labels, pixels and bits.

use std::sync::Arc;

use xp_array::ndimage::{self as nd, Mode};
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// A deterministic stream of uniform values in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn random_mask(d: &Arc<dyn xp_backend_api::DynDevice>, shape: &[usize], p: f64, seed: u64) -> Array {
    let mut g = Lcg(seed);
    let v: Vec<bool> = (0..shape.iter().product::<usize>()).map(|_| g.next() < p).collect();
    Array::from_slice_on(d, &v, shape).unwrap()
}

fn labels_both(img: &Array, st: Option<&Array>) -> ((Vec<i32>, usize), (Vec<i32>, usize)) {
    let (a, n) = nd::label(img, st).unwrap();
    let (b, m) = nd::with_device_kernels(|| nd::label(img, st)).unwrap();
    assert_eq!(a.dtype(), DType::I32);
    assert_eq!(a.shape(), img.shape());
    ((a.to_vec::<i32>().unwrap(), n), (b.to_vec::<i32>().unwrap(), m))
}

#[test]
fn native_label_equals_the_kernels() {
    let d = cpu();
    // Sizes above 2^16 pixels run on several host threads (strips merged at their borders).
    for (k, shape) in
        [vec![1usize], vec![37], vec![1, 1], vec![7, 1], vec![1, 9], vec![33, 17], vec![301, 257], vec![513, 131]]
            .into_iter()
            .enumerate()
    {
        for p in [0.3, 0.55, 0.8] {
            let img = random_mask(&d, &shape, p, 11 + k as u64);
            for conn in [1, 2] {
                let st = nd::generate_binary_structure(shape.len(), conn).unwrap();
                let (a, b) = labels_both(&img, Some(&st));
                assert_eq!(a.1, b.1, "count, shape {shape:?} p {p} connectivity {conn}");
                assert_eq!(first_difference(&a.0, &b.0), None, "labels, shape {shape:?} p {p} connectivity {conn}");
                assert!(a.1 > 0 || shape.iter().product::<usize>() < 10);
            }
        }
    }
    // 3-d, both connectivities and the full cube; an integer image (non-zero is set).
    for (k, shape) in [vec![5usize, 7, 9], vec![41, 43, 45]].into_iter().enumerate() {
        let img = random_mask(&d, &shape, 0.4, 5 + k as u64);
        for conn in [1, 2, 3] {
            let st = nd::generate_binary_structure(3, conn).unwrap();
            let (a, b) = labels_both(&img, Some(&st));
            assert_eq!(a.1, b.1, "count, shape {shape:?} connectivity {conn}");
            assert_eq!(first_difference(&a.0, &b.0), None, "labels, shape {shape:?} connectivity {conn}");
        }
        let ints = img.astype(DType::I16).unwrap();
        let (a, b) = (labels_both(&ints, None).0, labels_both(&img, None).1);
        assert_eq!((a.1, first_difference(&a.0, &b.0)), (b.1, None));
    }
    // An element with only some of its neighbours set, and a strided (transposed) input.
    let img = random_mask(&d, &[257, 301], 0.6, 3);
    let st = Array::from_slice_on(&d, &[false, true, false, true, true, false, true, false, false], &[3, 3]).unwrap();
    let (a, b) = labels_both(&img, Some(&st));
    assert_eq!((a.1, first_difference(&a.0, &b.0)), (b.1, None));
    let (a, b) = labels_both(&img.t(), None);
    assert_eq!((a.1, first_difference(&a.0, &b.0)), (b.1, None));
    // The first pixel's component is label 1, and every label up to the count appears.
    let (l, n) = nd::label(&img, None).unwrap();
    let l = l.to_vec::<i32>().unwrap();
    let mut seen = 0;
    for &v in &l {
        assert!(v as usize <= seen + 1, "labels out of raster order");
        seen = seen.max(v as usize);
    }
    assert_eq!(seen, n);
}

/// An erosion's element, iterations, border value, whether the mask is used, and origin.
type Case<'a> = (Option<&'a Array>, i64, bool, bool, Option<&'a [isize]>);

fn bools(a: &Array) -> Vec<bool> {
    a.to_vec::<bool>().unwrap()
}

#[test]
fn native_binary_erosion_equals_the_kernels() {
    let d = cpu();
    for (k, shape) in [vec![29usize], vec![31, 23], vec![301, 257], vec![13, 11, 9]].into_iter().enumerate() {
        let img = random_mask(&d, &shape, 0.75, 21 + k as u64);
        let mask = random_mask(&d, &shape, 0.5, 40 + k as u64);
        let nd_ = shape.len();
        let cross = nd::generate_binary_structure(nd_, 1).unwrap();
        let full = nd::generate_binary_structure(nd_, nd_).unwrap();
        let wide = Array::full_on(&d, &vec![4; nd_], 1, DType::Bool).unwrap();
        let o1 = vec![1isize; nd_];
        let cases: Vec<Case<'_>> = vec![
            (None, 1, false, false, None),
            (Some(&full), 1, true, false, None),
            (Some(&cross), 2, false, true, None),
            (Some(&full), 0, true, true, None),
            (Some(&wide), 3, false, false, Some(&o1[..])),
            (Some(&wide), 1, true, true, None),
        ];
        for (st, it, border, use_mask, origin) in cases {
            let m = use_mask.then_some(&mask);
            let a = nd::binary_erosion(&img, st, it, m, border, origin, false).unwrap();
            let b = nd::with_device_kernels(|| nd::binary_erosion(&img, st, it, m, border, origin, false)).unwrap();
            assert_eq!(a.dtype(), DType::Bool);
            assert_eq!(
                first_difference(&bools(&a), &bools(&b)),
                None,
                "erosion {shape:?} iterations {it} border {border} mask {use_mask}"
            );
            let a = nd::binary_dilation(&img, st, it, m, border, origin, false).unwrap();
            let b = nd::with_device_kernels(|| nd::binary_dilation(&img, st, it, m, border, origin, false)).unwrap();
            assert_eq!(
                first_difference(&bools(&a), &bools(&b)),
                None,
                "dilation {shape:?} iterations {it} border {border} mask {use_mask}"
            );
        }
    }
}

fn bits(a: &Array) -> Vec<u64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap().iter().map(|v| v.to_bits()).collect()
}

/// `None` when `a` and `b` are equal, else the first index where they differ and the values.
fn first_difference<T: PartialEq + Copy>(a: &[T], b: &[T]) -> Option<(usize, T, T)> {
    if a.len() != b.len() {
        return Some((usize::MAX, a[0], b[0]));
    }
    a.iter().zip(b).position(|(x, y)| x != y).map(|k| (k, a[k], b[k]))
}

#[test]
fn native_interpolation_equals_the_kernels() {
    let d = cpu();
    let mut g = Lcg(7);
    let (h, w) = (61usize, 47usize);
    let v: Vec<f32> = (0..h * w).map(|_| (g.next() * 200.0 - 50.0) as f32).collect();
    let img = Array::from_slice_on(&d, &v, &[h, w]).unwrap();
    let img64 = img.astype(DType::F64).unwrap();
    let img_u8 = img.astype(DType::U8).unwrap();
    let m = 3001usize;
    // Points inside and outside (the modes matter there).
    let c: Vec<f64> = (0..2 * m)
        .map(|i| g.next() * (if i < m { h } else { w }) as f64 * 1.4 - 0.2 * (if i < m { h } else { w }) as f64)
        .collect();
    let crd = Array::from_slice_on(&d, &c, &[2, m]).unwrap();
    let modes =
        [Mode::Constant, Mode::Reflect, Mode::Nearest, Mode::Mirror, Mode::Wrap, Mode::GridConstant, Mode::GridWrap];
    for x in [&img, &img64, &img_u8] {
        for order in 0..=5 {
            for mode in modes {
                let a = nd::map_coordinates(x, &crd, order, mode, 2.5, true).unwrap();
                let b = nd::with_device_kernels(|| nd::map_coordinates(x, &crd, order, mode, 2.5, true)).unwrap();
                assert_eq!(a.dtype(), x.dtype());
                assert_eq!(a.shape(), &[m]);
                assert_eq!(
                    first_difference(&bits(&a), &bits(&b)),
                    None,
                    "map_coordinates {} order {order} {mode:?}",
                    x.dtype()
                );
            }
        }
    }
    for order in [0, 1, 3, 5] {
        for mode in [Mode::Constant, Mode::Reflect, Mode::Nearest, Mode::GridConstant] {
            for grid in [false, true] {
                let a = nd::zoom(&img, &[1.7, 0.6], order, mode, 1.0, true, grid).unwrap();
                let b = nd::with_device_kernels(|| nd::zoom(&img, &[1.7, 0.6], order, mode, 1.0, true, grid)).unwrap();
                assert_eq!(a.shape(), b.shape());
                assert_eq!(first_difference(&bits(&a), &bits(&b)), None, "zoom order {order} {mode:?} grid {grid}");
            }
            let a = nd::shift(&img_u8, &[2.3, -4.6], order, mode, 3.0, true).unwrap();
            let b = nd::with_device_kernels(|| nd::shift(&img_u8, &[2.3, -4.6], order, mode, 3.0, true)).unwrap();
            assert_eq!(first_difference(&bits(&a), &bits(&b)), None, "shift order {order} {mode:?}");
        }
    }
    // 3-d and 1-d images.
    let v3: Vec<f64> = (0..9 * 8 * 7).map(|_| g.next()).collect();
    let img3 = Array::from_slice_on(&d, &v3, &[9, 8, 7]).unwrap();
    let a = nd::zoom(&img3, &[1.5], 3, Mode::Mirror, 0.0, true, false).unwrap();
    let b = nd::with_device_kernels(|| nd::zoom(&img3, &[1.5], 3, Mode::Mirror, 0.0, true, false)).unwrap();
    assert_eq!(first_difference(&bits(&a), &bits(&b)), None);
    let line = Array::from_slice_on(&d, &v3[..50], &[50]).unwrap();
    let c1 = Array::from_slice_on(&d, &c[..m], &[1, m]).unwrap();
    let a = nd::map_coordinates(&line, &c1, 2, Mode::Reflect, 0.0, true).unwrap();
    let b = nd::with_device_kernels(|| nd::map_coordinates(&line, &c1, 2, Mode::Reflect, 0.0, true)).unwrap();
    assert_eq!(first_difference(&bits(&a), &bits(&b)), None);
}

/// Zoom and shift of 2-d and 3-d images, every mode and order 0–5, with and without the
/// prefilter: the native form and the device kernels give the same bits.
#[test]
fn native_zoom_and_shift_equal_the_kernels_in_every_mode_and_order() {
    let d = cpu();
    let mut g = Lcg(11);
    let v2: Vec<f32> = (0..23 * 19).map(|_| (g.next() * 10.0 - 3.0) as f32).collect();
    let img2 = Array::from_slice_on(&d, &v2, &[23, 19]).unwrap();
    let v3: Vec<f64> = (0..7 * 9 * 6).map(|_| g.next() * 4.0 - 1.0).collect();
    let img3 = Array::from_slice_on(&d, &v3, &[7, 9, 6]).unwrap();
    let modes =
        [Mode::Constant, Mode::Reflect, Mode::Nearest, Mode::Mirror, Mode::Wrap, Mode::GridConstant, Mode::GridWrap];
    for (img, zoom, sh) in
        [(&img2, vec![1.6, 0.7], vec![1.3, -2.6]), (&img3, vec![1.4, 0.8, 1.9], vec![-0.4, 2.2, 7.5])]
    {
        for order in 0..=5 {
            for mode in modes {
                for prefilter in [true, false] {
                    let a = nd::zoom(img, &zoom, order, mode, 0.75, prefilter, false).unwrap();
                    let b =
                        nd::with_device_kernels(|| nd::zoom(img, &zoom, order, mode, 0.75, prefilter, false)).unwrap();
                    assert_eq!(a.dtype(), img.dtype());
                    assert_eq!(a.shape(), b.shape());
                    assert_eq!(
                        first_difference(&bits(&a), &bits(&b)),
                        None,
                        "zoom {:?} order {order} {mode:?} prefilter {prefilter}",
                        img.shape()
                    );
                    let a = nd::shift(img, &sh, order, mode, -1.5, prefilter).unwrap();
                    let b = nd::with_device_kernels(|| nd::shift(img, &sh, order, mode, -1.5, prefilter)).unwrap();
                    assert_eq!(
                        first_difference(&bits(&a), &bits(&b)),
                        None,
                        "shift {:?} order {order} {mode:?} prefilter {prefilter}",
                        img.shape()
                    );
                }
            }
        }
    }
}

/// map_coordinates reads float32 coordinates and float32 images in place: the same bits as
/// from their float64 copies.
#[test]
fn float32_coordinates_and_images_are_read_in_place() {
    let d = cpu();
    let mut g = Lcg(5);
    let v: Vec<f32> = (0..31 * 29).map(|_| g.next() as f32).collect();
    let img = Array::from_slice_on(&d, &v, &[31, 29]).unwrap();
    let c: Vec<f32> = (0..2 * 500).map(|_| (g.next() * 34.0 - 2.0) as f32).collect();
    let crd = Array::from_slice_on(&d, &c, &[2, 500]).unwrap();
    let crd64 = crd.astype(DType::F64).unwrap();
    for order in [0, 1, 3] {
        for mode in [Mode::Constant, Mode::Mirror, Mode::GridWrap] {
            let a = nd::map_coordinates(&img, &crd, order, mode, 0.5, false).unwrap();
            let b = nd::map_coordinates(&img.astype(DType::F64).unwrap(), &crd64, order, mode, 0.5, false)
                .unwrap()
                .astype(DType::F32)
                .unwrap();
            assert_eq!(a.dtype(), DType::F32);
            assert_eq!(first_difference(&bits(&a), &bits(&b)), None, "order {order} {mode:?}");
        }
    }
}

/// SciPy's spline prefilter of one line, sequentially (the reference of the chunked kernels).
fn spline_line_reference(x: &[f64], order: usize, mode: Mode) -> Vec<f64> {
    let zs: Vec<f64> = match order {
        2 => vec![8f64.sqrt() - 3.0],
        3 => vec![3f64.sqrt() - 2.0],
        4 => vec![
            (664.0 - 438976f64.sqrt()).sqrt() + 304f64.sqrt() - 19.0,
            (664.0 + 438976f64.sqrt()).sqrt() - 304f64.sqrt() - 19.0,
        ],
        _ => vec![
            (67.5 - 4436.25f64.sqrt()).sqrt() + 26.25f64.sqrt() - 6.5,
            (67.5 + 4436.25f64.sqrt()).sqrt() - 26.25f64.sqrt() - 6.5,
        ],
    };
    let n = x.len();
    let mut c = x.to_vec();
    let g: f64 = zs.iter().map(|z| (1.0 - z) * (1.0 - 1.0 / z)).product();
    c.iter_mut().for_each(|v| *v *= g);
    for &z in &zs {
        match mode {
            Mode::Reflect | Mode::Nearest => {
                let zn = z.powi(n as i32);
                // SciPy accumulates in c[0], which its last term reads.
                let c0 = c[0];
                c[0] += zn * c[n - 1];
                let mut zi = z;
                for k in 1..n {
                    c[0] += zi * (c[k] + zn * c[n - 1 - k]);
                    zi *= z;
                }
                c[0] = c[0] * (z / (1.0 - zn * zn)) + c0;
            }
            Mode::GridWrap => {
                let mut s = c[0];
                let mut zi = z;
                for k in 1..n {
                    s += zi * c[n - k];
                    zi *= z;
                }
                c[0] = s / (1.0 - zi);
            }
            _ => {
                let zn1 = z.powi(n as i32 - 1);
                let mut s = c[0] + zn1 * c[n - 1];
                let mut zi = z;
                for k in 1..n - 1 {
                    s += zi * (c[k] + zn1 * c[n - 1 - k]);
                    zi *= z;
                }
                c[0] = s / (1.0 - zn1 * zn1);
            }
        }
        for k in 1..n {
            c[k] += z * c[k - 1];
        }
        match mode {
            Mode::Reflect | Mode::Nearest => c[n - 1] *= z / (z - 1.0),
            Mode::GridWrap => {
                let mut s = c[n - 1];
                let mut zi = z;
                for v in &c[..n - 1] {
                    s += zi * v;
                    zi *= z;
                }
                c[n - 1] = s * z / (zi - 1.0);
            }
            _ => c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1.0),
        }
        for k in (0..n - 1).rev() {
            c[k] = z * (c[k + 1] - c[k]);
        }
    }
    c
}

/// The chunked prefilter of long lines (every axis of 2-d and 3-d arrays, the last one on a
/// transposed copy) against SciPy's sequential recursion: within 1e-13 of the largest value.
#[test]
fn chunked_prefilter_of_long_lines_matches_the_sequential_recursion() {
    let d = cpu();
    let mut g = Lcg(23);
    for shape in [vec![700usize], vec![3, 611], vec![300, 5], vec![4, 259, 3], vec![2, 3, 1000]] {
        let size: usize = shape.iter().product();
        let v: Vec<f64> = (0..size).map(|_| g.next() * 8.0 - 2.0).collect();
        let img = Array::from_slice_on(&d, &v, &shape).unwrap();
        let strides: Vec<usize> = (0..shape.len()).map(|a| shape[a + 1..].iter().product::<usize>()).collect();
        for axis in 0..shape.len() {
            let n = shape[axis];
            for order in 2..=5 {
                for mode in [Mode::Mirror, Mode::Reflect, Mode::GridWrap, Mode::Wrap] {
                    let got =
                        nd::spline_filter1d(&img, order, axis as isize, None, mode).unwrap().to_vec::<f64>().unwrap();
                    let mut worst = 0.0f64;
                    for start in 0..size {
                        // The first sample of each line.
                        if !(start / strides[axis]).is_multiple_of(n) {
                            continue;
                        }
                        let line: Vec<f64> = (0..n).map(|k| v[start + k * strides[axis]]).collect();
                        let want = spline_line_reference(&line, order as usize, mode);
                        for k in 0..n {
                            worst = worst.max((got[start + k * strides[axis]] - want[k]).abs());
                        }
                    }
                    assert!(worst < 1e-13 * 8.0, "{shape:?} axis {axis} order {order} {mode:?}: error {worst:e}");
                }
            }
        }
    }
    // A zoom through the chunked prefilter: the native form and the kernels agree.
    let v: Vec<f32> = (0..300 * 270).map(|_| g.next() as f32).collect();
    let img = Array::from_slice_on(&d, &v, &[300, 270]).unwrap();
    for mode in [Mode::Constant, Mode::Nearest, Mode::GridWrap] {
        let a = nd::zoom(&img, &[1.3], 3, mode, 0.0, true, false).unwrap();
        let b = nd::with_device_kernels(|| nd::zoom(&img, &[1.3], 3, mode, 0.0, true, false)).unwrap();
        assert_eq!(first_difference(&bits(&a), &bits(&b)), None, "zoom {mode:?}");
    }
}

#[test]
fn native_label_runs_across_words() {
    let d = cpu();
    // Long runs crossing the 64-pixel words of the run finder, lines of 64 and 128 pixels, and
    // strips (above 2^16 pixels) whose border lines hold long runs.
    for (k, shape) in
        [vec![5usize, 64], vec![9, 130], vec![3, 1000], vec![700, 129], vec![1, 200], vec![300]].into_iter().enumerate()
    {
        for p in [0.9, 0.97, 1.0] {
            let img = random_mask(&d, &shape, p, 101 + k as u64);
            for conn in [1, 2] {
                let st = nd::generate_binary_structure(shape.len(), conn).unwrap();
                let (a, b) = labels_both(&img, Some(&st));
                assert_eq!(a.1, b.1, "count, shape {shape:?} p {p} connectivity {conn}");
                assert_eq!(first_difference(&a.0, &b.0), None, "labels, shape {shape:?} p {p} connectivity {conn}");
            }
        }
    }
}

/// `distance_transform_edt` as one exact per-line envelope (Felzenszwalb and Huttenlocher) per
/// axis in float64, the arithmetic of the earlier one-thread-per-line kernel.
fn edt_reference(mask: &[bool], shape: &[usize], samp: &[f64]) -> Vec<f64> {
    let n = mask.len();
    let mut f: Vec<f64> = mask.iter().map(|&m| if m { f64::INFINITY } else { 0.0 }).collect();
    for (dim, &s) in samp.iter().enumerate() {
        let l = shape[dim];
        let inner: usize = shape[dim + 1..].iter().product();
        let mut out = vec![0.0; n];
        let s2 = s * s;
        for line in 0..n / l {
            let base = (line / inner) * l * inner + line % inner;
            let at = |q: usize| f[base + q * inner];
            let (mut v, mut z) = (vec![0usize; l], vec![0.0f64; l + 1]);
            let mut k: isize = -1;
            for q in 0..l {
                let fq = at(q);
                if fq == f64::INFINITY {
                    continue;
                }
                let mut sq = f64::NEG_INFINITY;
                while k >= 0 {
                    let p = v[k as usize];
                    let fp = at(p);
                    sq = ((fq + s2 * q as f64 * q as f64) - (fp + s2 * p as f64 * p as f64))
                        / (2.0 * s2 * (q as f64 - p as f64));
                    if sq <= z[k as usize] {
                        k -= 1;
                        sq = f64::NEG_INFINITY;
                    } else {
                        break;
                    }
                }
                k += 1;
                v[k as usize] = q;
                z[k as usize] = sq;
                z[k as usize + 1] = f64::INFINITY;
            }
            for q in 0..l {
                out[base + q * inner] = if k < 0 {
                    f64::INFINITY
                } else {
                    let mut j = 0;
                    while z[j + 1] < q as f64 {
                        j += 1;
                    }
                    let d = s * (q as f64 - v[j] as f64);
                    at(v[j]) + d * d
                };
            }
        }
        f = out;
    }
    f.iter().map(|v| v.sqrt()).collect()
}

#[test]
fn distance_transform_edt_equals_the_exact_envelope() {
    let d = cpu();
    // Dense zeros (short searches), sparse zeros (searches past the cap: the per-line envelope),
    // no zeros at all (infinite), only zeros; 1-d to 3-d; unit and anisotropic sampling.
    let shapes = [
        vec![1usize],
        vec![37],
        vec![64, 1],
        vec![1, 90],
        vec![33, 17],
        vec![301, 257],
        vec![5, 7, 9],
        vec![20, 30, 41],
    ];
    for (k, shape) in shapes.iter().enumerate() {
        let nd_ = shape.len();
        for p in [0.5, 0.9, 0.999, 1.0, 0.0] {
            let img = random_mask(&d, shape, p, 31 + k as u64);
            let mask = bools(&img);
            let unit = vec![1.0; nd_];
            let aniso: Vec<f64> = [2.0, 0.5, 1.3][..nd_].to_vec();
            for samp in [unit, aniso] {
                let want = edt_reference(&mask, shape, &samp);
                let got = nd::distance_transform_edt(&img, Some(&samp)).unwrap();
                assert_eq!(got.dtype(), DType::F64);
                assert_eq!(got.shape(), &shape[..]);
                let got = got.to_vec::<f64>().unwrap();
                for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                    // Unit sampling: exact integers under the root, the same bits. Otherwise
                    // the least of the candidates may differ from the envelope's pick by an ulp.
                    let ok = if samp.iter().all(|&s| s == 1.0) {
                        g.to_bits() == w.to_bits()
                    } else {
                        g == w || (g - w).abs() <= 4.0 * f64::EPSILON * w.abs()
                    };
                    assert!(ok, "shape {shape:?} p {p} sampling {samp:?} pixel {i}: {g} vs {w}");
                }
            }
        }
    }
    // An integer image: non-zero is set.
    let img = random_mask(&d, &[40, 50], 0.8, 7);
    let a = nd::distance_transform_edt(&img.astype(DType::I32).unwrap(), None).unwrap().to_vec::<f64>().unwrap();
    let b = nd::distance_transform_edt(&img, None).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(a, b);
}
