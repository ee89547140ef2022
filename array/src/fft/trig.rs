//! SciPy's real trigonometric transforms: `dct`, `idct`, `dst`, `idst` (types 1-4) and their
//! N-d forms `dctn`, `idctn`, `dstn`, `idstn`, built on the FFTs of [`super`].
//!
//! # Definitions and SciPy's rules
//! The transforms are SciPy's (`scipy.fft.dct` …), unnormalised ("backward"):
//! - DCT-I `y_k = x_0 + (-1)^k x_{N-1} + 2 Σ_{n=1}^{N-2} x_n cos(π k n / (N-1))`
//! - DCT-II `y_k = 2 Σ x_n cos(π k (2n+1) / 2N)`, DCT-III `y_k = x_0 + 2 Σ_{n≥1} x_n cos(π (2k+1) n / 2N)`
//! - DCT-IV `y_k = 2 Σ x_n cos(π (2k+1)(2n+1) / 4N)`
//! - DST-I `y_k = 2 Σ x_n sin(π (k+1)(n+1) / (N+1))`, DST-II `y_k = 2 Σ x_n sin(π (k+1)(2n+1) / 2N)`,
//!   DST-III `y_k = (-1)^k x_{N-1} + 2 Σ_{n<N-1} x_n sin(π (2k+1)(n+1) / 2N)`,
//!   DST-IV `y_k = 2 Σ x_n sin(π (2k+1)(2n+1) / 4N)`.
//!
//! The inverse of type 1 is type 1, of 2 is 3, of 3 is 2, of 4 is 4. `norm` scales by `1/L`
//! ("forward" on the forward transform, "backward" on the inverse) or `1/√L` ("ortho"), with
//! `L = 2(N-1)` (DCT-I), `2(N+1)` (DST-I) or `2N`. `orthogonalize` (default: `norm ==
//! "ortho"`) applies SciPy's extra factors that make the matrices orthogonal: DCT-I scales
//! `x_0, x_{N-1}` by √2 and `y_0, y_{N-1}` by 1/√2, DCT-II `y_0` by 1/√2, DCT-III `x_0` by √2,
//! DST-II `y_{N-1}` by 1/√2, DST-III `x_{N-1}` by √2 (for the transform actually computed, so
//! `idct` type 2 takes DCT-III's).
//!
//! Dtypes: float32 (and float16) give float32, other real inputs float64; complex input is
//! transformed as its real and imaginary parts, complex64 staying complex64. Errors (`Value`):
//! a type outside 1-4, `n` (or an entry of `s`) of 0, a DCT-I of one point, a bad `norm`,
//! repeated axes in the N-d forms.
//!
//! # Algorithms
//! Every transform is one FFT of the contract (so any device) plus gathers (`take` with an
//! index array made on the host) and elementwise twiddles, computed in float64 on the host
//! and rounded once to the array's precision; the scale and the orthogonalising factors are
//! folded into the twiddles wherever they touch them.
//! - DCT-II: J. Makhoul, "A fast cosine transform in one and two dimensions", IEEE Trans.
//!   ASSP 28 (1980) 27-34: `v = [x_0, x_2, …, …, x_3, x_1]`, `V = rfft(v)`, `y_k = 2 Re(e^{-iπk/2N}
//!   V_k)` for `k ≤ N/2` and `y_{N-k} = -2 Im(e^{-iπk/2N} V_k)` for the rest, so one real FFT of
//!   length N.
//! - DCT-III: the inverse of Makhoul's steps: `U_k = e^{iπk/2N} (X_k - i X_{N-k})`, `v =
//!   irfft(U)` (unnormalised), `x` = `v` unshuffled.
//! - DCT-IV: with `φ_n = π(2n+1)/4N`, `a_n = x_n cos φ_n` and `b_n = -(-1)^n x_n sin φ_n`,
//!   `DCT-IV(x)_k = DCT-II(a)_k + DCT-II(b)_{N-k}` (the second term 0 for `k = 0`). Both
//!   DCT-IIs come from one complex FFT of length N of the shuffled `a + i b`, separated by the
//!   symmetry of real transforms (`V_a = (V_k + conj V_{N-k}) / 2`, …): any N, odd included.
//! - DCT-I: the real FFT of the even extension `[x_0 … x_{N-1} x_{N-2} … x_1]` (length 2(N-1));
//!   DST-I: minus the imaginary part of the real FFT of the odd extension `[0, x, 0, -x
//!   reversed]` (length 2(N+1)).
//! - DST-II/III/IV from the DCTs: `DST-II(x)_k = DCT-II((-1)^n x_n)_{N-1-k}`, `DST-III(x)_k =
//!   (-1)^k DCT-III(x reversed)_k`, `DST-IV(x)_k = (-1)^k DCT-IV(x reversed)_k` (the
//!   reversals are in the gathers' indices, the DST-IV signs in its last twiddles).
//!
//! The N-d forms apply the 1-d transform along each axis in turn (SciPy's definition).

use num_complex::Complex;
use xp_backend_api::{DType, Error, FftKind, Result};

use super::{along_axis, nd_axes, resize_axis, shape_len, single, Norm};
use crate::layout::SliceArg;
use crate::promote::Scalar;
use crate::{concatenate, Array};

/// Cosine or sine.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Cos,
    Sin,
}

/// The transform type as a number 1-4, or SciPy's error.
fn check_type(op: &str, t: usize) -> Result<usize> {
    if (1..=4).contains(&t) {
        Ok(t)
    } else {
        Err(Error::value(op, format!("invalid DCT type {t}; the types are 1, 2, 3 and 4")))
    }
}

/// The normalisation length `L` of the transform actually computed.
fn norm_len(op: &str, family: Family, t: usize, n: usize) -> Result<usize> {
    match (family, t) {
        (Family::Cos, 1) if n < 2 => {
            Err(Error::value(op, format!("a type-1 DCT needs at least 2 points, not {n} (zero-length FFT requested)")))
        }
        (Family::Cos, 1) => Ok(2 * (n - 1)),
        (Family::Sin, 1) => Ok(2 * (n + 1)),
        _ => Ok(2 * n),
    }
}

/// The overall factor of `norm` for a transform (`inverse` or not) of normalisation length `l`.
fn norm_factor(norm: Norm, inverse: bool, l: usize) -> f64 {
    match (norm, inverse) {
        (Norm::Ortho, _) => 1.0 / (l as f64).sqrt(),
        (Norm::Backward, true) | (Norm::Forward, false) => 1.0 / l as f64,
        _ => 1.0,
    }
}

/// Which transform runs: the family, the type actually computed, and its factors.
#[derive(Clone, Copy)]
struct Spec {
    family: Family,
    t: usize,
    norm: Norm,
    inverse: bool,
    orth: bool,
}

impl Spec {
    fn new(op: &str, family: Family, t: usize, inverse: bool, norm: Option<&str>, orth: Option<bool>) -> Result<Spec> {
        let t = check_type(op, t)?;
        let norm = Norm::parse(op, norm)?;
        let computed = if inverse {
            match t {
                2 => 3,
                3 => 2,
                t => t,
            }
        } else {
            t
        };
        Ok(Spec { family, t: computed, norm, inverse, orth: orth.unwrap_or(norm == Norm::Ortho) })
    }
}

// ---- small arrays along one axis ------------------------------------------------------------

/// The shape `[1, …, len, …, 1]` (`len` at `ax`) that broadcasts a vector along axis `ax` of
/// an `ndim`-d array (and slices along `ax` as the array does).
fn vec_shape(len: usize, ax: usize, ndim: usize) -> Vec<usize> {
    let mut s = vec![1; ndim];
    s[ax] = len;
    s
}

/// Real values (computed in float64) as a vector of dtype `dt` along axis `ax` of `like`.
fn real_vec(like: &Array, ax: usize, v: &[f64], dt: DType) -> Result<Array> {
    let shape = vec_shape(v.len(), ax, like.ndim());
    let dev = like.device_arc();
    if dt == DType::F32 {
        let f: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        Array::from_slice_on(&dev, &f, &shape)
    } else {
        Array::from_slice_on(&dev, v, &shape)
    }
}

/// Complex values (computed in float64) as a vector of the complex dtype of `real` along `ax`.
fn complex_vec(like: &Array, ax: usize, v: &[Complex<f64>], real: DType) -> Result<Array> {
    let shape = vec_shape(v.len(), ax, like.ndim());
    let dev = like.device_arc();
    if real == DType::F32 {
        let f: Vec<Complex<f32>> = v.iter().map(|z| Complex::new(z.re as f32, z.im as f32)).collect();
        Array::from_slice_on(&dev, &f, &shape)
    } else {
        Array::from_slice_on(&dev, v, &shape)
    }
}

/// `a` gathered along `ax` at `idx`.
fn gather(a: &Array, ax: usize, idx: &[i64]) -> Result<Array> {
    let i = Array::from_slice_on(&a.device_arc(), idx, &[idx.len()])?;
    a.take(&i, Some(ax as isize))
}

/// `a[start:stop:step]` along `ax` (`stop` `None` runs to the end in the step's direction).
fn along(a: &Array, ax: usize, start: isize, stop: Option<isize>, step: isize) -> Result<Array> {
    let mut s = vec![SliceArg::ALL; a.ndim()];
    s[ax] = SliceArg::Range { start: Some(start), stop, step: Some(step) };
    a.slice(&s)
}

/// Concatenation along `ax`, skipping empty parts.
fn join(parts: &[Array], ax: usize) -> Result<Array> {
    let kept: Vec<&Array> = parts.iter().filter(|p| p.shape()[ax] > 0).collect();
    if kept.len() == 1 {
        return kept[0].ascontiguous();
    }
    concatenate(&kept, ax as isize)
}

/// Makhoul's shuffle: `v_m = x_{perm[m]}` (evens ascending, then odds descending).
fn makhoul_perm(n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).step_by(2).collect();
    let mut odd: Vec<usize> = (1..n).step_by(2).collect();
    odd.reverse();
    p.extend(odd);
    p
}

fn real_dtype(x: &Array) -> DType {
    x.dtype()
}

/// `e^{iθ}`.
fn cis(theta: f64) -> Complex<f64> {
    Complex::new(theta.cos(), theta.sin())
}

// ---- the 1-d kernels (real input, along `ax`, length N ≥ 1) ---------------------------------

/// `scale · DCT-II(x)`, `y_0` further times `f0`; with `sign_in` of `(-1)^n x_n` and with
/// `rev_out` reversed (DST-II).
fn dct2(x: &Array, ax: usize, scale: f64, f0: f64, sign_in: bool, rev_out: bool) -> Result<Array> {
    let n = x.shape()[ax];
    let rdt = real_dtype(x);
    let h = n / 2 + 1;
    let perm = makhoul_perm(n);
    let idx: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
    let mut v = gather(x, ax, &idx)?;
    if sign_in {
        let s: Vec<f64> = (0..n).map(|m| if m < n.div_ceil(2) { 1.0 } else { -1.0 }).collect();
        v = v.mul(&real_vec(x, ax, &s, rdt)?)?.ascontiguous()?;
    }
    let cdt = if rdt == DType::F32 { DType::C64 } else { DType::C128 };
    let spec = along_axis(&v, ax, FftKind::R2C, n, cdt, h, true)?;
    let (vre, vim) = (spec.real(), spec.imag()?);
    let w: Vec<Complex<f64>> = (0..h)
        .map(|k| {
            let f = if k == 0 { 2.0 * scale * f0 } else { 2.0 * scale };
            cis(-std::f64::consts::PI * k as f64 / (2 * n) as f64) * f
        })
        .collect();
    let wr = real_vec(x, ax, &w.iter().map(|z| z.re).collect::<Vec<_>>(), rdt)?;
    let wi = real_vec(x, ax, &w.iter().map(|z| z.im).collect::<Vec<_>>(), rdt)?;
    let nwr = real_vec(x, ax, &w.iter().map(|z| -z.re).collect::<Vec<_>>(), rdt)?;
    // y_k, k ≤ N/2: Re(W V); y_{N-j}, 1 ≤ j ≤ N-h: -Im(W_j V_j), read with j descending.
    let lo = wr.mul(&vre)?.sub(&wi.mul(&vim)?)?;
    let top = (n - h) as isize;
    let r = |a: &Array| along(a, ax, top, Some(0), -1);
    let hi = r(&nwr)?.mul(&r(&vim)?)?.sub(&r(&wi)?.mul(&r(&vre)?)?)?;
    if rev_out {
        let rev = |a: &Array| along(a, ax, a.shape()[ax] as isize - 1, None, -1);
        join(&[rev(&hi)?, rev(&lo)?], ax)
    } else {
        join(&[lo, hi], ax)
    }
}

/// `scale · DCT-III(x)` with `x_0` first times `f0`; with `rev_in` of `x` reversed and with
/// `sign_out` times `(-1)^k` (DST-III).
fn dct3(x: &Array, ax: usize, scale: f64, f0: f64, rev_in: bool, sign_out: bool) -> Result<Array> {
    let n = x.shape()[ax];
    let rdt = real_dtype(x);
    let h = n / 2 + 1;
    let g = |j: usize| if rev_in { (n - 1 - j) as i64 } else { j as i64 };
    let a =
        if rev_in { gather(x, ax, &(0..h).map(g).collect::<Vec<_>>())? } else { along(x, ax, 0, Some(h as isize), 1)? };
    let b = gather(x, ax, &(0..h).map(|k| g((n - k) % n)).collect::<Vec<_>>())?;
    let base = |k: usize| cis(std::f64::consts::PI * k as f64 / (2 * n) as f64) * scale;
    let t: Vec<Complex<f64>> = (0..h).map(|k| if k == 0 { base(0) * f0 } else { base(k) }).collect();
    let s: Vec<Complex<f64>> =
        (0..h).map(|k| if k == 0 { Complex::new(0.0, 0.0) } else { base(k) * Complex::new(0.0, -1.0) }).collect();
    let u = a.mul(&complex_vec(x, ax, &t, rdt)?)?.add(&b.mul(&complex_vec(x, ax, &s, rdt)?)?)?.ascontiguous()?;
    let v = along_axis(&u, ax, FftKind::C2R, n, rdt, n, false)?;
    let perm = makhoul_perm(n);
    let mut inv = vec![0i64; n];
    for (m, &p) in perm.iter().enumerate() {
        inv[p] = m as i64;
    }
    let y = gather(&v, ax, &inv)?;
    if sign_out {
        let s: Vec<f64> = (0..n).map(|k| if k % 2 == 0 { 1.0 } else { -1.0 }).collect();
        return y.mul(&real_vec(x, ax, &s, rdt)?);
    }
    Ok(y)
}

/// `scale · DCT-IV(x)`; with `rev_in` and `sign_out`, `scale · DST-IV(x)`.
fn dct4(x: &Array, ax: usize, scale: f64, rev_in: bool, sign_out: bool) -> Result<Array> {
    use std::f64::consts::PI;
    let n = x.shape()[ax];
    let rdt = real_dtype(x);
    let cdt = if rdt == DType::F32 { DType::C64 } else { DType::C128 };
    let perm = makhoul_perm(n);
    let idx: Vec<i64> = perm.iter().map(|&p| if rev_in { (n - 1 - p) as i64 } else { p as i64 }).collect();
    // c_n = x_n (cos φ_n - i (-1)^n sin φ_n), shuffled as Makhoul's v.
    let pre: Vec<Complex<f64>> = perm
        .iter()
        .map(|&p| {
            let phi = PI * (2 * p + 1) as f64 / (4 * n) as f64;
            let sg = if p % 2 == 0 { 1.0 } else { -1.0 };
            Complex::new(phi.cos(), -sg * phi.sin()) * scale
        })
        .collect();
    let c = gather(x, ax, &idx)?.mul(&complex_vec(x, ax, &pre, rdt)?)?.ascontiguous()?;
    let spec = along_axis(&c, ax, FftKind::C2C, n, cdt, n, true)?;
    let rev = gather(&spec, ax, &(0..n).map(|k| ((n - k) % n) as i64).collect::<Vec<_>>())?;
    let w = |k: usize| cis(-PI * k as f64 / (2 * n) as f64);
    let i = Complex::new(0.0, 1.0);
    let (mut ca, mut cb) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for k in 0..n {
        let sg = if sign_out && k % 2 == 1 { -1.0 } else { 1.0 };
        if k == 0 {
            ca.push(Complex::new(2.0 * sg, 0.0));
            cb.push(Complex::new(0.0, 0.0));
        } else {
            ca.push((w(k) - i * w(n - k).conj()) * sg);
            cb.push((w(k).conj() - i * w(n - k)) * sg);
        }
    }
    let part =
        |v: &[Complex<f64>], f: fn(&Complex<f64>) -> f64| real_vec(x, ax, &v.iter().map(f).collect::<Vec<_>>(), rdt);
    let (ar, ai) = (part(&ca, |z| z.re)?, part(&ca, |z| z.im)?);
    let (br, bi) = (part(&cb, |z| z.re)?, part(&cb, |z| z.im)?);
    // Re(A V + B V_rev)
    let y1 = ar.mul(&spec.real())?.sub(&ai.mul(&spec.imag()?)?)?;
    let y2 = br.mul(&rev.real())?.sub(&bi.mul(&rev.imag()?)?)?;
    y1.add(&y2)
}

/// `DCT-I(x)` (N ≥ 2) times `post` along `ax`: the real FFT of the even extension.
fn dct1(x: &Array, ax: usize, post: &Array) -> Result<Array> {
    let n = x.shape()[ax];
    let rdt = real_dtype(x);
    let cdt = if rdt == DType::F32 { DType::C64 } else { DType::C128 };
    let inner = along(x, ax, n as isize - 2, Some(0), -1)?;
    let ext = join(&[x.clone(), inner], ax)?;
    let spec = along_axis(&ext, ax, FftKind::R2C, 2 * (n - 1), cdt, n, true)?;
    spec.real().mul(post)
}

/// `scale · DST-I(x)`: minus the imaginary part of the real FFT of the odd extension.
fn dst1(x: &Array, ax: usize, scale: f64) -> Result<Array> {
    let n = x.shape()[ax];
    let rdt = real_dtype(x);
    let cdt = if rdt == DType::F32 { DType::C64 } else { DType::C128 };
    let mut shape = x.shape().to_vec();
    shape[ax] = 2 * (n + 1);
    let ext = Array::full_on(&x.device_arc(), &shape, 0, rdt)?;
    x.copy_into(&along(&ext, ax, 1, Some(n as isize + 1), 1)?)?;
    along(x, ax, n as isize - 1, None, -1)?.negative()?.copy_into(&along(&ext, ax, n as isize + 2, None, 1)?)?;
    let spec = along_axis(&ext, ax, FftKind::R2C, 2 * (n + 1), cdt, n + 2, true)?;
    along(&spec.imag()?, ax, 1, Some(n as isize + 1), 1)?.mul_scalar(-scale)
}

/// The transform of `spec` of the real `x` along `ax` (already `n` long).
fn transform(op: &str, spec: Spec, x: &Array, ax: usize) -> Result<Array> {
    let n = x.shape()[ax];
    let l = norm_len(op, spec.family, spec.t, n)?;
    let fct = norm_factor(spec.norm, spec.inverse, l);
    let (r2, h2) = (std::f64::consts::SQRT_2, std::f64::consts::FRAC_1_SQRT_2);
    let o = spec.orth;
    match (spec.family, spec.t) {
        (Family::Cos, 1) => {
            let rdt = real_dtype(x);
            let ends = |inside: f64, end: f64| -> Vec<f64> {
                (0..n).map(|k| if k == 0 || k == n - 1 { end } else { inside }).collect()
            };
            let xin = if o { x.mul(&real_vec(x, ax, &ends(1.0, r2), rdt)?)? } else { x.clone() };
            let post = real_vec(x, ax, &ends(fct, if o { fct * h2 } else { fct }), rdt)?;
            dct1(&xin, ax, &post)
        }
        (Family::Cos, 2) => dct2(x, ax, fct, if o { h2 } else { 1.0 }, false, false),
        (Family::Cos, 3) => dct3(x, ax, fct, if o { r2 } else { 1.0 }, false, false),
        (Family::Cos, _) => dct4(x, ax, fct, false, false),
        (Family::Sin, 1) => dst1(x, ax, fct),
        (Family::Sin, 2) => dct2(x, ax, fct, if o { h2 } else { 1.0 }, true, true),
        (Family::Sin, 3) => dct3(x, ax, fct, if o { r2 } else { 1.0 }, true, true),
        (Family::Sin, _) => dct4(x, ax, fct, true, true),
    }
}

/// `f` of the real working array of `x` (float32 or float64), or of its real and imaginary
/// parts recombined for complex `x`.
fn by_parts(x: &Array, f: impl Fn(&Array) -> Result<Array>) -> Result<Array> {
    if x.dtype().is_complex() {
        let c = if single(x.dtype()) { DType::C64 } else { DType::C128 };
        let x = super::to(x, c)?;
        let re = f(&x.real())?;
        let im = f(&x.imag()?)?;
        return re.add(&im.mul_scalar(Scalar::Complex(0.0, 1.0))?);
    }
    let r = if single(x.dtype()) { DType::F32 } else { DType::F64 };
    f(&super::to(x, r)?)
}

// ---- the public functions -----------------------------------------------------------------

#[allow(clippy::too_many_arguments)]
fn one_d(
    op: &str,
    family: Family,
    inverse: bool,
    x: &Array,
    type_: usize,
    n: Option<usize>,
    axis: isize,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    let spec = Spec::new(op, family, type_, inverse, norm, orthogonalize)?;
    let (ax, m) = shape_len(op, x, axis, n)?;
    norm_len(op, family, spec.t, m)?;
    by_parts(x, |re| transform(op, spec, &resize_axis(re, ax, m)?, ax))
}

#[allow(clippy::too_many_arguments)]
fn n_d(
    op: &str,
    family: Family,
    inverse: bool,
    x: &Array,
    type_: usize,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    let spec = Spec::new(op, family, type_, inverse, norm, orthogonalize)?;
    let (axes, lens) = nd_axes(op, x, s, axes)?;
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].contains(a) {
            return Err(Error::value(op, format!("all axes must be unique (axes {axes:?})")));
        }
    }
    for &m in &lens {
        norm_len(op, family, spec.t, m)?;
    }
    by_parts(x, |re| {
        let mut y = re.clone();
        for (&ax, &m) in axes.iter().zip(&lens) {
            y = transform(op, spec, &resize_axis(&y, ax, m)?, ax)?;
        }
        if y.shares_buffer(re) {
            y = y.copy()?;
        }
        Ok(y)
    })
}

/// SciPy's `fft.dct`: the discrete cosine transform of type `type_` (1-4; SciPy's default
/// is 2) along `axis` (-1 in SciPy), `x` cut or zero-padded to `n` points; `orthogonalize`
/// defaults to `norm == "ortho"`.
pub fn dct(
    x: &Array,
    type_: usize,
    n: Option<usize>,
    axis: isize,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    one_d("dct", Family::Cos, false, x, type_, n, axis, norm, orthogonalize)
}

/// SciPy's `fft.idct`: the inverse of [`dct`] of the same type (a DCT of the inverse type,
/// normalised by `norm`).
pub fn idct(
    x: &Array,
    type_: usize,
    n: Option<usize>,
    axis: isize,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    one_d("idct", Family::Cos, true, x, type_, n, axis, norm, orthogonalize)
}

/// SciPy's `fft.dst`: the discrete sine transform of type `type_` (1-4) along `axis`.
pub fn dst(
    x: &Array,
    type_: usize,
    n: Option<usize>,
    axis: isize,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    one_d("dst", Family::Sin, false, x, type_, n, axis, norm, orthogonalize)
}

/// SciPy's `fft.idst`: the inverse of [`dst`] of the same type.
pub fn idst(
    x: &Array,
    type_: usize,
    n: Option<usize>,
    axis: isize,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    one_d("idst", Family::Sin, true, x, type_, n, axis, norm, orthogonalize)
}

/// SciPy's `fft.dctn`: [`dct`] along each of `axes` (every axis when `None`; the last
/// `len(s)` when only `s` is given), each cut or padded to `s`.
pub fn dctn(
    x: &Array,
    type_: usize,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    n_d("dctn", Family::Cos, false, x, type_, s, axes, norm, orthogonalize)
}

/// SciPy's `fft.idctn`: [`idct`] along each of `axes`.
pub fn idctn(
    x: &Array,
    type_: usize,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    n_d("idctn", Family::Cos, true, x, type_, s, axes, norm, orthogonalize)
}

/// SciPy's `fft.dstn`: [`dst`] along each of `axes`.
pub fn dstn(
    x: &Array,
    type_: usize,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    n_d("dstn", Family::Sin, false, x, type_, s, axes, norm, orthogonalize)
}

/// SciPy's `fft.idstn`: [`idst`] along each of `axes`.
pub fn idstn(
    x: &Array,
    type_: usize,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    orthogonalize: Option<bool>,
) -> Result<Array> {
    n_d("idstn", Family::Sin, true, x, type_, s, axes, norm, orthogonalize)
}
