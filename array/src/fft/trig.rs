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
//! Every transform is one FFT of the contract (so it runs on any device) plus strided copies
//! for the reorderings (Makhoul's shuffle is the even elements, then the odd ones backwards:
//! two strided views, no index arrays) and elementwise products with twiddles. The twiddles
//! are computed in float64 on the host, rounded once to the array's precision, and kept in a
//! small per-thread cache (by device, length, dtype and factors; the 32 most recent, 512 MiB at
//! most), so repeated transforms of one length upload them once; the scale and the orthogonalising factors are folded into them.
//! Each transform reads and writes the data about three times besides its FFT, and a strided
//! axis is transformed in place by a strided plan (no transposes here).
//! - DCT-II: J. Makhoul, "A fast cosine transform in one and two dimensions", IEEE Trans.
//!   ASSP 28 (1980) 27-34: `v = [x_0, x_2, …, …, x_3, x_1]`, `V = rfft(v)`, `y_k = 2 Re(e^{-iπk/2N}
//!   V_k)` for `k ≤ N/2` and `y_{N-k} = -2 Im(e^{-iπk/2N} V_k)` for the rest, so one real FFT of
//!   length N.
//! - DCT-III: the inverse of Makhoul's steps: `U_k = e^{iπk/2N} (X_k - i X_{N-k})`, `v =
//!   irfft(U)` (unnormalised), `x` = `v` unshuffled.
//! - DCT-IV: with `φ_n = π(2n+1)/4N`, `a_n = x_n cos φ_n` and `b_n = -(-1)^n x_n sin φ_n`,
//!   `DCT-IV(x)_k = DCT-II(a)_k + DCT-II(b)_{N-k}` (the second term 0 for `k = 0`). Both
//!   DCT-IIs come from one complex FFT `V` of length N of the shuffled `a + i b`: with Makhoul's
//!   relations for each part the sum collapses to `y_k = 2 Re(e^{-iπk/2N} V_k)`, for any N,
//!   odd included.
//! - DCT-I: the real FFT of the even extension `[x_0 … x_{N-1} x_{N-2} … x_1]` (length 2(N-1));
//!   DST-I: minus the imaginary part of the real FFT of the odd extension `[0, x, 0, -x
//!   reversed]` (length 2(N+1)).
//! - DST-II/III/IV from the DCTs: `DST-II(x)_k = DCT-II((-1)^n x_n)_{N-1-k}`, `DST-III(x)_k =
//!   (-1)^k DCT-III(x reversed)_k`, `DST-IV(x)_k = (-1)^k DCT-IV(x reversed)_k` (the
//!   reversals are reversed views, the signs negated copies or, for DST-IV, part of the last
//!   twiddles: no extra pass).
//!
//! The N-d forms apply the 1-d transform along each axis in turn (SciPy's definition).

use std::cell::RefCell;

use num_complex::Complex;
use xp_backend_api::{DType, Error, FftKind, Result};

use super::{along_axis, nd_axes, resize_axis, shape_len, single, Norm};
use crate::layout::SliceArg;
use crate::promote::Scalar;
use crate::{call, Array, Operand};

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

/// What a cached vector holds: its device, kind, the transform's length, the vector's length,
/// its dtype and the bits of its two parameters.
type TwiddleKey = (String, &'static str, usize, usize, DType, u64, u64);

/// How many vectors the per-thread cache keeps (the most recently used)…
const TWIDDLE_CACHE: usize = 32;
/// … and how many bytes of them at most (a larger vector is made for each call).
const TWIDDLE_CACHE_BYTES: usize = 512 << 20;

thread_local! {
    /// Twiddle vectors by device and parameters, most recently used last: repeated transforms
    /// of one length upload them once.
    static TWIDDLES: RefCell<Vec<(TwiddleKey, Array)>> = const { RefCell::new(Vec::new()) };
}

/// The vector `make()` (computed in float64, rounded once to `dt`: real, or the complex dtype
/// of the precision of `dt` when `complex`) for the transform of the length of axis `ax` of
/// `like`, on its device, shaped to broadcast along `ax`, from the cache when it was made
/// before.
#[allow(clippy::too_many_arguments)]
fn twiddle(
    like: &Array,
    ax: usize,
    tag: &'static str,
    len: usize,
    params: (f64, f64),
    dt: DType,
    complex: bool,
    make: impl FnOnce() -> Vec<Complex<f64>>,
) -> Result<Array> {
    let stored = match (complex, dt) {
        (false, d) => d,
        (true, DType::F32) => DType::C64,
        (true, _) => DType::C128,
    };
    let n = like.shape()[ax];
    let key: TwiddleKey = (like.device().label(), tag, n, len, stored, params.0.to_bits(), params.1.to_bits());
    let hit = TWIDDLES.with(|c| {
        let mut c = c.borrow_mut();
        let pos = c.iter().position(|(k, _)| *k == key)?;
        let entry = c.remove(pos);
        let a = entry.1.clone();
        c.push(entry);
        Some(a)
    });
    let flat = match hit {
        Some(a) => a,
        None => {
            let v = make();
            let dev = like.device_arc();
            let a = match stored {
                DType::F32 => Array::from_slice_on(&dev, &v.iter().map(|z| z.re as f32).collect::<Vec<_>>(), &[len])?,
                DType::F64 => Array::from_slice_on(&dev, &v.iter().map(|z| z.re).collect::<Vec<_>>(), &[len])?,
                DType::C64 => Array::from_slice_on(
                    &dev,
                    &v.iter().map(|z| Complex::new(z.re as f32, z.im as f32)).collect::<Vec<_>>(),
                    &[len],
                )?,
                _ => Array::from_slice_on(&dev, &v, &[len])?,
            };
            if a.nbytes() <= TWIDDLE_CACHE_BYTES {
                TWIDDLES.with(|c| {
                    let mut c = c.borrow_mut();
                    while !c.is_empty()
                        && (c.len() >= TWIDDLE_CACHE
                            || c.iter().map(|(_, v)| v.nbytes()).sum::<usize>() + a.nbytes() > TWIDDLE_CACHE_BYTES)
                    {
                        c.remove(0);
                    }
                    c.push((key, a.clone()));
                });
            }
            a
        }
    };
    let mut shape = vec![1isize; like.ndim()];
    shape[ax] = len as isize;
    flat.reshape(&shape)
}

/// `a[start:stop:step]` along `ax` (`stop` `None` runs to the end in the step's direction).
fn along(a: &Array, ax: usize, start: isize, stop: Option<isize>, step: isize) -> Result<Array> {
    let mut s = vec![SliceArg::ALL; a.ndim()];
    s[ax] = SliceArg::Range { start: Some(start), stop, step: Some(step) };
    a.slice(&s)
}

/// `a` reversed along `ax` (a view).
fn reversed(a: &Array, ax: usize) -> Result<Array> {
    along(a, ax, a.shape()[ax] as isize - 1, None, -1)
}

/// The odd-indexed elements of `a` along `ax` (of length `n`), last first: the second half of
/// Makhoul's shuffle (a view; empty for `n = 1`).
fn odds_descending(a: &Array, ax: usize, n: usize) -> Result<Array> {
    if n < 2 {
        return along(a, ax, 0, Some(0), 1);
    }
    let last_odd = if n.is_multiple_of(2) { n - 1 } else { n - 2 };
    along(a, ax, last_odd as isize, Some(0), -2)
}

/// The elementwise `op` of `inputs` written into `out` (one kernel, no temporary).
fn into(op: &str, inputs: &[Operand<'_>], out: &Array) -> Result<()> {
    if out.size() > 0 {
        call(op, inputs, Some(out))?;
    }
    Ok(())
}

/// `src` copied into `out` (nothing for an empty part).
fn copy(src: &Array, out: &Array) -> Result<()> {
    if out.size() > 0 {
        src.copy_into(out)?;
    }
    Ok(())
}

fn complex_dtype(real: DType) -> DType {
    if real == DType::F32 {
        DType::C64
    } else {
        DType::C128
    }
}

/// `shape` with axis `ax` of length `len`.
fn with_len(shape: &[usize], ax: usize, len: usize) -> Vec<usize> {
    let mut s = shape.to_vec();
    s[ax] = len;
    s
}

/// `e^{iθ}`.
fn cis(theta: f64) -> Complex<f64> {
    Complex::new(theta.cos(), theta.sin())
}

// ---- the 1-d kernels (real input, along `ax`, length N ≥ 1) ---------------------------------
//
// Makhoul's shuffle `v = [x_0, x_2, …, x_3, x_1]` and its inverse are two strided copies (the
// evens, then the odds backwards), and the twiddles are applied in place or fused into the
// copies that assemble the result, so that each kernel reads and writes the data about three
// times besides its FFT.

/// `scale · DCT-II(x)`, `y_0` further times `f0`; with `sign_in` of `(-1)^n x_n` and with
/// `rev_out` reversed (DST-II).
fn dct2(x: &Array, ax: usize, scale: f64, f0: f64, sign_in: bool, rev_out: bool) -> Result<Array> {
    use std::f64::consts::PI;
    let n = x.shape()[ax];
    let rdt = x.dtype();
    let (h, c) = (n / 2 + 1, n.div_ceil(2));
    let dev = x.device_arc();
    let v = Array::empty_on(&dev, x.shape(), rdt)?;
    copy(&along(x, ax, 0, None, 2)?, &along(&v, ax, 0, Some(c as isize), 1)?)?;
    let odd = odds_descending(x, ax, n)?;
    let vo = along(&v, ax, c as isize, None, 1)?;
    if sign_in {
        into("negative", &[Operand::Array(&odd)], &vo)?;
    } else {
        copy(&odd, &vo)?;
    }
    let spec = along_axis(&v, ax, FftKind::R2C, n, complex_dtype(rdt), h, true)?;
    let w = twiddle(x, ax, "dct2", h, (scale, f0), rdt, true, || {
        (0..h).map(|k| cis(-PI * k as f64 / (2 * n) as f64) * (2.0 * scale * if k == 0 { f0 } else { 1.0 })).collect()
    })?;
    into("multiply", &[Operand::Array(&spec), Operand::Array(&w)], &spec)?;
    // y_k = Re Z_k for k < h; y_{N-j} = -Im Z_j for 1 ≤ j ≤ N-h.
    let y = Array::empty_on(&dev, x.shape(), rdt)?;
    let target = if rev_out { reversed(&y, ax)? } else { y.clone() };
    copy(&spec.real(), &along(&target, ax, 0, Some(h as isize), 1)?)?;
    if n > h {
        let im = along(&spec.imag()?, ax, (n - h) as isize, Some(0), -1)?;
        into("negative", &[Operand::Array(&im)], &along(&target, ax, h as isize, None, 1)?)?;
    }
    Ok(y)
}

/// `scale · DCT-III(x)` with `x_0` first times `f0`; with `rev_in` of `x` reversed and with
/// `sign_out` times `(-1)^k` (DST-III).
fn dct3(x: &Array, ax: usize, scale: f64, f0: f64, rev_in: bool, sign_out: bool) -> Result<Array> {
    use std::f64::consts::PI;
    let n = x.shape()[ax];
    let rdt = x.dtype();
    let (h, c) = (n / 2 + 1, n.div_ceil(2));
    let dev = x.device_arc();
    let xr = if rev_in { reversed(x, ax)? } else { x.clone() };
    // U_k = T_k (X_k - i X_{N-k}), X_N = 0.
    let u = Array::empty_on(&dev, &with_len(x.shape(), ax, h), complex_dtype(rdt))?;
    copy(&along(&xr, ax, 0, Some(h as isize), 1)?, &u.real())?;
    let ui = u.imag()?;
    along(&ui, ax, 0, Some(1), 1)?.fill(0)?;
    if h > 1 {
        let back = along(&xr, ax, n as isize - 1, Some((n - h) as isize), -1)?;
        into("negative", &[Operand::Array(&back)], &along(&ui, ax, 1, None, 1)?)?;
    }
    let t = twiddle(x, ax, "dct3", h, (scale, f0), rdt, true, || {
        (0..h).map(|k| cis(PI * k as f64 / (2 * n) as f64) * (scale * if k == 0 { f0 } else { 1.0 })).collect()
    })?;
    into("multiply", &[Operand::Array(&u), Operand::Array(&t)], &u)?;
    let v = along_axis(&u, ax, FftKind::C2R, n, rdt, n, false)?;
    // x_{2j} = v_j, x_{2j+1} = v_{N-1-j}.
    let y = Array::empty_on(&dev, x.shape(), rdt)?;
    copy(&along(&v, ax, 0, Some(c as isize), 1)?, &along(&y, ax, 0, None, 2)?)?;
    if n > 1 {
        let back = along(&v, ax, n as isize - 1, Some(c as isize - 1), -1)?;
        let odd = along(&y, ax, 1, None, 2)?;
        if sign_out {
            into("negative", &[Operand::Array(&back)], &odd)?;
        } else {
            copy(&back, &odd)?;
        }
    }
    Ok(y)
}

/// `scale · DCT-IV(x)`; with `rev_in` and `sign_out`, `scale · DST-IV(x)`.
fn dct4(x: &Array, ax: usize, scale: f64, rev_in: bool, sign_out: bool) -> Result<Array> {
    use std::f64::consts::PI;
    let n = x.shape()[ax];
    let rdt = x.dtype();
    let cdt = complex_dtype(rdt);
    let c = n.div_ceil(2);
    let dev = x.device_arc();
    let xr = if rev_in { reversed(x, ax)? } else { x.clone() };
    // c_n = x_n (cos φ_n - i (-1)^n sin φ_n) · scale, in Makhoul's order.
    let pre = twiddle(x, ax, "dct4-pre", n, (scale, 0.0), rdt, true, || {
        let p = |j: usize| {
            let phi = PI * (2 * j + 1) as f64 / (4 * n) as f64;
            let sg = if j.is_multiple_of(2) { 1.0 } else { -1.0 };
            Complex::new(phi.cos(), -sg * phi.sin()) * scale
        };
        let mut v: Vec<Complex<f64>> = (0..n).step_by(2).map(p).collect();
        v.extend((1..n).step_by(2).rev().map(p));
        v
    })?;
    let v = Array::empty_on(&dev, x.shape(), cdt)?;
    let (vs, ps) = (|a: &Array| along(a, ax, 0, Some(c as isize), 1), |a: &Array| along(a, ax, c as isize, None, 1));
    into("multiply", &[Operand::Array(&along(&xr, ax, 0, None, 2)?), Operand::Array(&vs(&pre)?)], &vs(&v)?)?;
    into("multiply", &[Operand::Array(&odds_descending(&xr, ax, n)?), Operand::Array(&ps(&pre)?)], &ps(&v)?)?;
    let spec = along_axis(&v, ax, FftKind::C2C, n, cdt, n, true)?;
    // y_k = 2 Re(e^{-iπk/2N} V_k) (the separation of V_a and V_b and the reversed term of
    // DCT-II(b) cancel to this), times (-1)^k for DST-IV: one fused pass.
    let sign = |k: usize| if sign_out && k % 2 == 1 { -2.0 } else { 2.0 };
    let w = |k: usize| cis(-PI * k as f64 / (2 * n) as f64) * sign(k);
    let wr = twiddle(x, ax, "dct4-re", n, (sign(1), 0.0), rdt, false, || (0..n).map(w).collect())?;
    let wi = twiddle(x, ax, "dct4-im", n, (sign(1), 0.0), rdt, false, || {
        (0..n).map(|k| Complex::new(w(k).im, 0.0)).collect()
    })?;
    wr.mul(&spec.real())?.sub(&wi.mul(&spec.imag()?)?)
}

/// `DCT-I(x)` (N ≥ 2) times `post` along `ax`: the real FFT of the even extension.
fn dct1(x: &Array, ax: usize, post: &Array) -> Result<Array> {
    let n = x.shape()[ax];
    let ext = Array::empty_on(&x.device_arc(), &with_len(x.shape(), ax, 2 * (n - 1)), x.dtype())?;
    copy(x, &along(&ext, ax, 0, Some(n as isize), 1)?)?;
    copy(&along(x, ax, n as isize - 2, Some(0), -1)?, &along(&ext, ax, n as isize, None, 1)?)?;
    let spec = along_axis(&ext, ax, FftKind::R2C, 2 * (n - 1), complex_dtype(x.dtype()), n, true)?;
    spec.real().mul(post)
}

/// `scale · DST-I(x)`: minus the imaginary part of the real FFT of the odd extension.
fn dst1(x: &Array, ax: usize, scale: f64) -> Result<Array> {
    let n = x.shape()[ax];
    let rdt = x.dtype();
    let ext = Array::empty_on(&x.device_arc(), &with_len(x.shape(), ax, 2 * (n + 1)), rdt)?;
    along(&ext, ax, 0, Some(1), 1)?.fill(0)?;
    along(&ext, ax, n as isize + 1, Some(n as isize + 2), 1)?.fill(0)?;
    copy(x, &along(&ext, ax, 1, Some(n as isize + 1), 1)?)?;
    into("negative", &[Operand::Array(&reversed(x, ax)?)], &along(&ext, ax, n as isize + 2, None, 1)?)?;
    let spec = along_axis(&ext, ax, FftKind::R2C, 2 * (n + 1), complex_dtype(rdt), n + 2, true)?;
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
            let rdt = x.dtype();
            let ends = move |inside: f64, end: f64| -> Vec<Complex<f64>> {
                (0..n).map(|k| Complex::new(if k == 0 || k == n - 1 { end } else { inside }, 0.0)).collect()
            };
            let xin = if o {
                x.mul(&twiddle(x, ax, "dct1-pre", n, (r2, 0.0), rdt, false, || ends(1.0, r2))?)?
            } else {
                x.clone()
            };
            let end = if o { fct * h2 } else { fct };
            let post = twiddle(x, ax, "dct1-post", n, (fct, end), rdt, false, || ends(fct, end))?;
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
