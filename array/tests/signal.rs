//! `xp::signal` and NumPy's 1-d `convolve`/`correlate` on the CPU backend, against naive host
//! sums written here (their conventions checked against SciPy 1.17 and NumPy 2.4: the
//! centring of `'same'`, the swaps of `'valid'`, the boundary rules), and every error path.

use std::sync::Arc;

use num_complex::Complex64 as C;
use xp_array::signal::{self, Boundary, Method, Mode};
use xp_array::*;
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// A deterministic pseudo-random sequence in `[-1, 1)`.
fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

/// A host N-d array (row-major) of complex values.
#[derive(Clone, Debug)]
struct Host {
    shape: Vec<usize>,
    v: Vec<C>,
}

impl Host {
    fn real(shape: &[usize], seed: u64) -> Host {
        let n = shape.iter().product();
        Host { shape: shape.to_vec(), v: uniform(n, seed).into_iter().map(|x| C::new(x, 0.0)).collect() }
    }
    fn complex(shape: &[usize], seed: u64) -> Host {
        let n = shape.iter().product();
        let (re, im) = (uniform(n, seed), uniform(n, seed + 99));
        Host { shape: shape.to_vec(), v: re.into_iter().zip(im).map(|(a, b)| C::new(a, b)).collect() }
    }
    fn to_array(&self, dev: &Arc<dyn DynDevice>, dtype: DType) -> Array {
        let a = if dtype.is_complex() {
            Array::from_slice_on(dev, &self.v, &self.shape).unwrap()
        } else {
            let re: Vec<f64> = self.v.iter().map(|c| c.re).collect();
            Array::from_slice_on(dev, &re, &self.shape).unwrap()
        };
        a.astype(dtype).unwrap()
    }
    fn flip(&self) -> Host {
        let mut v = self.v.clone();
        v.reverse();
        Host { shape: self.shape.clone(), v }
    }
    fn conj(&self) -> Host {
        Host { shape: self.shape.clone(), v: self.v.iter().map(|c| c.conj()).collect() }
    }
}

fn bidx(i: i64, n: usize, b: Boundary) -> Option<usize> {
    let n = n as i64;
    if (0..n).contains(&i) {
        return Some(i as usize);
    }
    match b {
        Boundary::Fill => None,
        Boundary::Wrap => Some(i.rem_euclid(n) as usize),
        Boundary::Symm => {
            let p = i.rem_euclid(2 * n);
            Some(if p < n { p } else { 2 * n - 1 - p } as usize)
        }
    }
}

/// `out[o] = Σ_k x̃[o + off + k] · w[k]`.
fn corr_core(x: &Host, w: &Host, oshape: &[usize], off: &[i64], b: Boundary, fill: C) -> Host {
    let r = x.shape.len();
    let n_out: usize = oshape.iter().product();
    let n_k: usize = w.shape.iter().product();
    let unravel = |mut i: usize, s: &[usize]| {
        let mut c = vec![0usize; s.len()];
        for d in (0..s.len()).rev() {
            c[d] = i % s[d];
            i /= s[d];
        }
        c
    };
    let mut v = Vec::with_capacity(n_out);
    for o in 0..n_out {
        let oc = unravel(o, oshape);
        let mut acc = C::new(0.0, 0.0);
        for k in 0..n_k {
            let kc = unravel(k, &w.shape);
            let mut idx = Some(0usize);
            for d in 0..r {
                idx = match (idx, bidx(oc[d] as i64 + off[d] + kc[d] as i64, x.shape[d], b)) {
                    (Some(acc), Some(i)) => Some(acc * x.shape[d] + i),
                    _ => None,
                };
            }
            acc += idx.map_or(fill, |i| x.v[i]) * w.v[k];
        }
        v.push(acc);
    }
    Host { shape: oshape.to_vec(), v }
}

/// The geometry of a mode; `back` centres `'same'` as `correlate2d`.
fn geom(mode: Mode, n: &[usize], m: &[usize], back: bool) -> (Vec<usize>, Vec<i64>) {
    n.iter()
        .zip(m)
        .map(|(&n, &m)| match mode {
            Mode::Full => (n + m - 1, -(m as i64 - 1)),
            Mode::Same if back => (n, -(((m - 1) / 2) as i64)),
            Mode::Same => (n, -((m / 2) as i64)),
            Mode::Valid => (n - m + 1, 0),
        })
        .unzip()
}

fn swap_needed(mode: Mode, a: &[usize], b: &[usize]) -> bool {
    mode == Mode::Valid && !a.iter().zip(b).all(|(x, y)| x >= y)
}

fn ref_convolve2d(x: &Host, w: &Host, mode: Mode, b: Boundary, fill: f64) -> Host {
    let (x, w) = if swap_needed(mode, &x.shape, &w.shape) { (w, x) } else { (x, w) };
    let (os, off) = geom(mode, &x.shape, &w.shape, false);
    corr_core(x, &w.flip(), &os, &off, b, C::new(fill, 0.0))
}

fn ref_correlate2d(x: &Host, w: &Host, mode: Mode, b: Boundary, fill: f64) -> Host {
    let swap = swap_needed(mode, &x.shape, &w.shape);
    let (x, w) = if swap { (w, x) } else { (x, w) };
    let (os, off) = geom(mode, &x.shape, &w.shape, true);
    let r = corr_core(x, &w.conj(), &os, &off, b, C::new(fill, 0.0));
    if swap {
        r.flip()
    } else {
        r
    }
}

fn values(a: &Array) -> Vec<C> {
    if a.dtype().is_complex() {
        a.astype(DType::C128).unwrap().to_vec::<C>().unwrap()
    } else {
        a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap().into_iter().map(|x| C::new(x, 0.0)).collect()
    }
}

fn close(got: &Array, want: &Host, tol: f64, what: &str) {
    assert_eq!(got.shape(), &want.shape[..], "{what}: shape");
    let g = values(got);
    let scale = want.v.iter().map(|c| c.norm()).fold(1.0, f64::max);
    for (i, (a, b)) in g.iter().zip(&want.v).enumerate() {
        assert!((a - b).norm() <= tol * scale, "{what}: element {i}: {a} != {b}");
    }
}

const MODES: [Mode; 3] = [Mode::Full, Mode::Same, Mode::Valid];
const BOUNDARIES: [Boundary; 3] = [Boundary::Fill, Boundary::Wrap, Boundary::Symm];

#[test]
fn convolve2d_and_correlate2d_match_host_sums_in_every_mode_and_boundary() {
    let dev = cpu();
    // Odd and even kernels, a kernel larger than the input (reflections past one period), and
    // a 'valid' that swaps.
    for (xs, ks) in [([7, 9], [3, 3]), ([6, 5], [2, 4]), ([3, 2], [7, 6]), ([2, 3], [5, 5]), ([40, 70], [5, 3])] {
        for mode in MODES {
            for b in BOUNDARIES {
                let (x, w) = (Host::real(&xs, 1), Host::real(&ks, 2));
                let (xa, wa) = (x.to_array(&dev, DType::F64), w.to_array(&dev, DType::F64));
                let what = format!("{xs:?} {ks:?} {mode:?} {b:?}");
                let got = signal::convolve2d(&xa, &wa, mode, b, 0.5).unwrap();
                close(&got, &ref_convolve2d(&x, &w, mode, b, 0.5), 1e-12, &format!("convolve2d {what}"));
                let got = signal::correlate2d(&xa, &wa, mode, b, -0.25).unwrap();
                close(&got, &ref_correlate2d(&x, &w, mode, b, -0.25), 1e-12, &format!("correlate2d {what}"));
                // float32 computes in float32.
                let got =
                    signal::convolve2d(&xa.astype(DType::F32).unwrap(), &wa.astype(DType::F32).unwrap(), mode, b, 0)
                        .unwrap();
                assert_eq!(got.dtype(), DType::F32);
                close(&got, &ref_convolve2d(&x, &w, mode, b, 0.0), 1e-5, &format!("convolve2d f32 {what}"));
            }
        }
    }
}

#[test]
fn complex_inputs_conjugate_the_correlation_kernel() {
    let dev = cpu();
    let (x, w) = (Host::complex(&[9, 8], 3), Host::complex(&[3, 2], 4));
    for dt in [DType::C128, DType::C64] {
        let tol = if dt == DType::C64 { 1e-5 } else { 1e-12 };
        let (xa, wa) = (x.to_array(&dev, dt), w.to_array(&dev, dt));
        for mode in MODES {
            for b in BOUNDARIES {
                let got = signal::correlate2d(&xa, &wa, mode, b, 0).unwrap();
                assert_eq!(got.dtype(), dt);
                close(&got, &ref_correlate2d(&x, &w, mode, b, 0.0), tol, &format!("{dt} {mode:?} {b:?}"));
                let got = signal::convolve2d(&xa, &wa, mode, b, 0).unwrap();
                close(&got, &ref_convolve2d(&x, &w, mode, b, 0.0), tol, &format!("{dt} {mode:?} {b:?}"));
            }
        }
    }
}

#[test]
fn numpy_convolve_and_correlate_swap_conjugate_and_reverse_as_numpy() {
    let dev = cpu();
    for (la, lv) in [(7, 3), (7, 4), (3, 7), (4, 7), (5, 5), (1, 4), (6, 1), (101, 7)] {
        for mode in MODES {
            let (a, v) = (Host::complex(&[la], 5), Host::complex(&[lv], 6));
            let (aa, va) = (a.to_array(&dev, DType::C128), v.to_array(&dev, DType::C128));
            // np.convolve: the longer first, then the other flipped.
            let (l, s) = if lv > la { (&v, &a) } else { (&a, &v) };
            let (os, off) = geom(mode, &l.shape, &s.shape, false);
            let want = corr_core(l, &s.flip(), &os, &off, Boundary::Fill, C::new(0.0, 0.0));
            close(&convolve(&aa, &va, mode).unwrap(), &want, 1e-12, &format!("convolve {la} {lv} {mode:?}"));
            // np.correlate: conj(v); when v is longer, the swapped correlation reversed.
            let vc = v.conj();
            let want = if lv > la {
                let (os, off) = geom(mode, &vc.shape, &a.shape, false);
                corr_core(&vc, &a, &os, &off, Boundary::Fill, C::new(0.0, 0.0)).flip()
            } else {
                let (os, off) = geom(mode, &a.shape, &vc.shape, false);
                corr_core(&a, &vc, &os, &off, Boundary::Fill, C::new(0.0, 0.0))
            };
            close(&correlate(&aa, &va, mode).unwrap(), &want, 1e-12, &format!("correlate {la} {lv} {mode:?}"));
        }
    }
    // A long 1-d input, cut into column chunks across the CPU's workers.
    let (a, v) = (Host::real(&[50_000], 7), Host::real(&[31], 8));
    let (aa, va) = (a.to_array(&dev, DType::F64), v.to_array(&dev, DType::F64));
    for mode in MODES {
        let (os, off) = geom(mode, &a.shape, &v.shape, false);
        let want = corr_core(&a, &v.flip(), &os, &off, Boundary::Fill, C::new(0.0, 0.0));
        close(&convolve(&aa, &va, mode).unwrap(), &want, 1e-12, &format!("long convolve {mode:?}"));
    }
    // np.convolve([1, 2, 3], [0, 1, 0.5]) and np.correlate(...) in NumPy's documentation.
    let a = Array::from_slice_on(&dev, &[1.0, 2.0, 3.0], &[3]).unwrap();
    let v = Array::from_slice_on(&dev, &[0.0, 1.0, 0.5], &[3]).unwrap();
    assert_eq!(convolve(&a, &v, Mode::Full).unwrap().to_vec::<f64>().unwrap(), [0.0, 1.0, 2.5, 4.0, 1.5]);
    assert_eq!(convolve(&a, &v, Mode::Same).unwrap().to_vec::<f64>().unwrap(), [1.0, 2.5, 4.0]);
    assert_eq!(correlate(&a, &v, Mode::Valid).unwrap().to_vec::<f64>().unwrap(), [3.5]);
    assert_eq!(correlate(&a, &v, Mode::Full).unwrap().to_vec::<f64>().unwrap(), [0.5, 2.0, 3.5, 3.0, 0.0]);
}

#[test]
fn integers_stay_integers_and_wrap_as_numpy() {
    let dev = cpu();
    // np.convolve(np.array([100, 100], np.int8), np.array([2, 2], np.int8)) == [-56, -112, -56]
    let a = Array::from_slice_on(&dev, &[100i8, 100], &[2]).unwrap();
    let v = Array::from_slice_on(&dev, &[2i8, 2], &[2]).unwrap();
    let c = convolve(&a, &v, Mode::Full).unwrap();
    assert_eq!(c.dtype(), DType::I8);
    assert_eq!(c.to_vec::<i8>().unwrap(), [-56, -112, -56]);
    // Mixed int32 and uint8 promote to int32; exact sums.
    let x: Vec<i32> = (0..30).map(|i| (i * 7919) % 201 - 100).collect();
    let k: Vec<u8> = vec![1, 2, 3, 4, 5, 6];
    let xa = Array::from_slice_on(&dev, &x, &[5, 6]).unwrap();
    let ka = Array::from_slice_on(&dev, &k, &[2, 3]).unwrap();
    for mode in MODES {
        for b in BOUNDARIES {
            let got = signal::convolve2d(&xa, &ka, mode, b, 3).unwrap();
            assert_eq!(got.dtype(), DType::I32);
            let xh = Host { shape: vec![5, 6], v: x.iter().map(|&v| C::new(v as f64, 0.0)).collect() };
            let kh = Host { shape: vec![2, 3], v: k.iter().map(|&v| C::new(v as f64, 0.0)).collect() };
            close(&got, &ref_convolve2d(&xh, &kh, mode, b, 3.0), 0.0, &format!("int {mode:?} {b:?}"));
        }
    }
    // signal.convolve with the FFT rounds back to the integer dtype.
    let got = signal::convolve(&xa, &ka, Mode::Full, Method::Fft).unwrap();
    assert_eq!(got.dtype(), DType::I32);
    assert_eq!(
        got.to_vec::<i32>().unwrap(),
        signal::convolve(&xa, &ka, Mode::Full, Method::Direct).unwrap().to_vec::<i32>().unwrap()
    );
    // float16 computes in float32 and gives float16.
    let h = signal::convolve2d(
        &xa.astype(DType::F16).unwrap(),
        &ka.astype(DType::F16).unwrap(),
        Mode::Same,
        Boundary::Fill,
        0,
    );
    assert_eq!(h.unwrap().dtype(), DType::F16);
}

#[test]
fn nd_direct_fft_and_host_agree() {
    let dev = cpu();
    for (xs, ks) in [
        (vec![6, 5, 7], vec![3, 2, 4]),
        (vec![50], vec![9]),
        (vec![12, 10], vec![5, 4]),
        (vec![4, 3, 2, 5], vec![2, 3, 2, 2]),
    ] {
        for mode in MODES {
            let (x, w) = (Host::real(&xs, 7), Host::real(&ks, 8));
            let (xa, wa) = (x.to_array(&dev, DType::F64), w.to_array(&dev, DType::F64));
            let (os, off) = geom(mode, &xs, &ks, false);
            let want_conv = corr_core(&x, &w.flip(), &os, &off, Boundary::Fill, C::new(0.0, 0.0));
            let want_corr = corr_core(&x, &w, &os, &off, Boundary::Fill, C::new(0.0, 0.0));
            let what = format!("{xs:?} {ks:?} {mode:?}");
            for method in [Method::Direct, Method::Fft, Method::Auto] {
                close(
                    &signal::convolve(&xa, &wa, mode, method).unwrap(),
                    &want_conv,
                    1e-12,
                    &format!("conv {what} {method:?}"),
                );
                close(
                    &signal::correlate(&xa, &wa, mode, method).unwrap(),
                    &want_corr,
                    1e-12,
                    &format!("corr {what} {method:?}"),
                );
            }
            close(
                &signal::fftconvolve(&xa, &wa, mode, None).unwrap(),
                &want_conv,
                1e-12,
                &format!("fftconvolve {what}"),
            );
            close(&signal::oaconvolve(&xa, &wa, mode, None).unwrap(), &want_conv, 1e-12, &format!("oaconvolve {what}"));
        }
    }
    // 'valid' with the second input larger: convolve swaps, correlate reverses and conjugates.
    let (x, w) = (Host::complex(&[3, 4], 9), Host::complex(&[5, 6], 10));
    let (xa, wa) = (x.to_array(&dev, DType::C128), w.to_array(&dev, DType::C128));
    let (os, off) = geom(Mode::Valid, &w.shape, &x.shape, false);
    let want = corr_core(&w, &x.flip(), &os, &off, Boundary::Fill, C::new(0.0, 0.0));
    for method in [Method::Direct, Method::Fft] {
        close(&signal::convolve(&xa, &wa, Mode::Valid, method).unwrap(), &want, 1e-12, "valid swap conv");
        let want = corr_core(&w, &x.conj(), &os, &off, Boundary::Fill, C::new(0.0, 0.0)).flip().conj();
        close(&signal::correlate(&xa, &wa, Mode::Valid, method).unwrap(), &want, 1e-12, "valid swap corr");
    }
    // fftconvolve of integers gives float64; of float32, float32.
    let i = Array::from_slice_on(&dev, &[1i32, 2, 3], &[3]).unwrap();
    let r = signal::fftconvolve(&i, &i, Mode::Full, None).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    close(&r, &Host { shape: vec![5], v: [1.0, 4.0, 10.0, 12.0, 9.0].map(|v| C::new(v, 0.0)).to_vec() }, 1e-12, "ints");
    assert_eq!(signal::fftconvolve(&i.astype(DType::F32).unwrap(), &i, Mode::Full, None).unwrap().dtype(), DType::F64);
    let f = i.astype(DType::F32).unwrap();
    assert_eq!(signal::fftconvolve(&f, &f, Mode::Same, None).unwrap().dtype(), DType::F32);
}

#[test]
fn fftconvolve_over_axes_broadcasts_the_others() {
    let dev = cpu();
    // Three 1-d signals (rows) convolved with one kernel along axis 1.
    let (x, w) = (Host::real(&[3, 20], 11), Host::real(&[1, 5], 12));
    let (xa, wa) = (x.to_array(&dev, DType::F64), w.to_array(&dev, DType::F64));
    let got = signal::fftconvolve(&xa, &wa, Mode::Same, Some(&[1])).unwrap();
    let want = ref_convolve2d(&x, &w, Mode::Same, Boundary::Fill, 0.0);
    close(&got, &want, 1e-12, "axes=[1]");
    let bad = Host::real(&[2, 5], 13).to_array(&dev, DType::F64);
    let e = signal::fftconvolve(&xa, &bad, Mode::Full, Some(&[1])).unwrap_err().to_string();
    assert!(e.contains("incompatible shapes"), "{e}");
    assert!(signal::fftconvolve(&xa, &wa, Mode::Full, Some(&[2])).is_err());
}

#[test]
fn auto_picks_direct_for_small_or_integer_inputs_and_fft_for_large_ones() {
    let dev = cpu();
    let small = Host::real(&[100], 1).to_array(&dev, DType::F64);
    let k3 = Host::real(&[3], 2).to_array(&dev, DType::F64);
    assert_eq!(signal::choose_conv_method(&small, &k3, Mode::Full).unwrap(), Method::Direct);
    let big = Host::real(&[20000], 3).to_array(&dev, DType::F64);
    let kbig = Host::real(&[5000], 4).to_array(&dev, DType::F64);
    assert_eq!(signal::choose_conv_method(&big, &kbig, Mode::Full).unwrap(), Method::Fft);
    // SciPy 1.17's choices (`choose_conv_method(np.ones(a, np.float32), np.ones(b, np.float32), mode)`).
    for (a, b, mode, want) in [
        (&[16usize, 16][..], &[3usize, 3][..], Mode::Same, Method::Direct),
        (&[64, 64], &[3, 3], Mode::Same, Method::Fft),
        (&[64, 64], &[3, 3], Mode::Full, Method::Fft),
        (&[1000], &[10], Mode::Same, Method::Direct),
        (&[1000], &[10], Mode::Valid, Method::Direct),
        (&[300], &[300], Mode::Full, Method::Direct),
    ] {
        let (x, k) = (Host::real(a, 5).to_array(&dev, DType::F32), Host::real(b, 6).to_array(&dev, DType::F32));
        assert_eq!(signal::choose_conv_method(&x, &k, mode).unwrap(), want, "{a:?} {b:?} {mode:?}");
    }
    let ints = big.astype(DType::I64).unwrap();
    assert_eq!(
        signal::choose_conv_method(&ints, &kbig.astype(DType::I64).unwrap(), Mode::Full).unwrap(),
        Method::Direct
    );
}

#[test]
fn bad_inputs_are_errors_naming_the_op() {
    let dev = cpu();
    let a2 = Host::real(&[4, 4], 1).to_array(&dev, DType::F64);
    let a1 = Host::real(&[4], 1).to_array(&dev, DType::F64);
    let a3 = Host::real(&[2, 2, 2], 1).to_array(&dev, DType::F64);
    let empty = Array::empty_on(&dev, &[0], DType::F64).unwrap();
    let empty2 = Array::empty_on(&dev, &[0, 3], DType::F64).unwrap();
    let err = |r: Result<Array>| r.unwrap_err().to_string();

    let e = err(signal::convolve2d(&a1, &a2, Mode::Full, Boundary::Fill, 0));
    assert!(e.contains("convolve2d") && e.contains("must both be 2-D"), "{e}");
    let e = err(signal::correlate2d(&a2, &a3, Mode::Full, Boundary::Fill, 0));
    assert!(e.contains("correlate2d") && e.contains("must both be 2-D"), "{e}");
    let e = err(signal::convolve(&a2, &a3, Mode::Full, Method::Auto));
    assert!(e.contains("convolve") && e.contains("same dimensionality"), "{e}");
    let e = err(signal::correlate(&a2, &a1, Mode::Full, Method::Direct));
    assert!(e.contains("correlate") && e.contains("same dimensionality"), "{e}");
    let e = err(signal::fftconvolve(&a2, &a1, Mode::Full, None));
    assert!(e.contains("fftconvolve") && e.contains("same dimensionality"), "{e}");
    let e = err(convolve(&a2, &a1, Mode::Full));
    assert!(e.contains("convolve") && e.contains("too deep"), "{e}");

    assert!(err(convolve(&empty, &a1, Mode::Full)).contains("cannot be empty"));
    assert!(err(correlate(&a1, &empty, Mode::Valid)).contains("cannot be empty"));
    assert!(err(signal::convolve2d(&a2, &empty2, Mode::Full, Boundary::Fill, 0)).contains("cannot be empty"));
    assert!(err(signal::convolve(&empty2, &a2, Mode::Same, Method::Direct)).contains("cannot be empty"));
    assert_eq!(signal::fftconvolve(&empty2, &a2, Mode::Full, None).unwrap().size(), 0);

    let e = "middle".parse::<Mode>().unwrap_err().to_string();
    assert!(e.contains("Acceptable mode flags"), "{e}");
    let e = "reflect".parse::<Boundary>().unwrap_err().to_string();
    assert!(e.contains("Acceptable boundary flags"), "{e}");
    assert!("ffts".parse::<Method>().is_err());
    assert_eq!("symmetric".parse::<Boundary>().unwrap(), Boundary::Symm);
    assert_eq!("circular".parse::<Boundary>().unwrap(), Boundary::Wrap);

    // 'valid' where neither input is at least as large as the other in every dimension.
    let wide = Host::real(&[2, 6], 1).to_array(&dev, DType::F64);
    for r in [
        signal::convolve2d(&a2, &wide, Mode::Valid, Boundary::Fill, 0),
        signal::correlate2d(&a2, &wide, Mode::Valid, Boundary::Fill, 0),
        signal::convolve(&a2, &wide, Mode::Valid, Method::Direct),
        signal::correlate(&a2, &wide, Mode::Valid, Method::Direct),
        signal::fftconvolve(&a2, &wide, Mode::Valid, None),
    ] {
        let e = err(r);
        assert!(e.contains("one must be at least as large as the other in every dimension"), "{e}");
    }

    // Booleans are refused with the dtypes named.
    let b = a2.gt(&a2).unwrap();
    let e = err(signal::convolve2d(&b, &b, Mode::Full, Boundary::Fill, 0));
    assert!(e.contains("convolve2d") && e.contains("bool"), "{e}");

    // A complex fill value into a real convolution is an error, not a panic.
    assert!(signal::convolve2d(&a2, &a2, Mode::Full, Boundary::Fill, Scalar::Complex(1.0, 1.0)).is_err());

    // Arrays on two devices.
    let null: Arc<dyn DynDevice> = Arc::new(xp_backend_api::null::NullDevice::new(1 << 20, None).unwrap());
    let other = Array::empty_on(&null, &[4, 4], DType::F64).unwrap();
    for r in [
        signal::convolve2d(&a2, &other, Mode::Full, Boundary::Fill, 0),
        signal::correlate2d(&other, &a2, Mode::Full, Boundary::Fill, 0),
        signal::convolve(&a2, &other, Mode::Full, Method::Auto),
        signal::fftconvolve(&a2, &other, Mode::Full, None),
        convolve(&a1, &other.ravel().unwrap(), Mode::Full),
    ] {
        let e = r.unwrap_err();
        assert!(matches!(e, xp_backend_api::Error::DeviceMismatch { .. }), "{e}");
    }
}

#[test]
fn oaconvolve_blocks_long_inputs_and_matches_direct_sums() {
    let dev = cpu();
    // Long inputs against short kernels (blocked along the long axis), complex, and a kernel
    // as long as the input (one transform).
    for (xs, ks, dt) in [
        (vec![5000], vec![20], DType::F64),
        (vec![3, 4000], vec![2, 15], DType::F64),
        (vec![2000, 3], vec![31, 3], DType::C128),
        (vec![100], vec![60], DType::F64),
    ] {
        let (x, w) = if dt.is_complex() {
            (Host::complex(&xs, 21), Host::complex(&ks, 22))
        } else {
            (Host::real(&xs, 21), Host::real(&ks, 22))
        };
        let (xa, wa) = (x.to_array(&dev, dt), w.to_array(&dev, dt));
        for mode in MODES {
            let direct = signal::convolve(&xa, &wa, mode, Method::Direct).unwrap();
            let (os, off) = geom(mode, &xs, &ks, false);
            if xs.len() == 1 && xs[0] <= 100 {
                close(&direct, &corr_core(&x, &w.flip(), &os, &off, Boundary::Fill, C::new(0.0, 0.0)), 1e-12, "host");
            }
            let want = Host { shape: direct.shape().to_vec(), v: values(&direct) };
            let got = signal::oaconvolve(&xa, &wa, mode, None).unwrap();
            assert_eq!(got.dtype(), dt);
            close(&got, &want, 1e-11, &format!("oaconvolve {xs:?} {ks:?} {mode:?}"));
        }
    }
    // Along one axis only: rows of a long signal with one short kernel.
    let (x, w) = (Host::real(&[4, 3000], 23), Host::real(&[1, 9], 24));
    let (xa, wa) = (x.to_array(&dev, DType::F32), w.to_array(&dev, DType::F32));
    let got = signal::oaconvolve(&xa, &wa, Mode::Same, Some(&[-1])).unwrap();
    assert_eq!(got.dtype(), DType::F32);
    close(&got, &ref_convolve2d(&x, &w, Mode::Same, Boundary::Fill, 0.0), 1e-5, "oaconvolve axes=[-1]");
}
