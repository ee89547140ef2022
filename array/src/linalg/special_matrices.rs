//! SciPy's special matrices: `block_diag`, `toeplitz`, `circulant`, `hankel`, `hadamard`,
//! `helmert`, `hilbert`, `invhilbert`, `leslie`, `companion`, `convolution_matrix`, `dft`,
//! `fiedler`, `fiedler_companion`, `khatri_rao`.
//!
//! - **On the device.** Each matrix is built from index grids (`arange` rows and columns),
//!   `take` of its defining vector at computed positions, broadcasting and `where`; nothing is
//!   computed by the host but `invhilbert`'s exact integer entries (its size is small by
//!   nature: `hilbert(n)` is hopelessly ill conditioned beyond `n` of about 15).
//! - **Exactly as SciPy.** Every element is computed by SciPy's formula with the same
//!   roundings: `hilbert` is `1 / (i + j + 1)`, `helmert` an integer divided by a square root,
//!   `companion` `-a[k] / a[0]`, `dft` `exp(-2πi (jk mod n) / n)` (SciPy raises a root of unity
//!   to powers; the difference is a few ulps).
//! - **dtypes.** As SciPy: the vectors' promoted dtype (integers stay integers) for
//!   `toeplitz`, `circulant`, `hankel`, `block_diag`, `leslie`, `fiedler`, `khatri_rao`,
//!   `convolution_matrix`; a float dtype for `companion` and `fiedler_companion` (integers
//!   become float64); float64 for `helmert`, `hilbert`, `invhilbert`; complex128 for `dft`;
//!   the `dtype` argument for `hadamard`.
//! - **Stacks.** `toeplitz`, `circulant`, `hankel`, `leslie`, `companion`, `fiedler`,
//!   `fiedler_companion` and `convolution_matrix` take stacks of vectors (`(..., N)`) and
//!   answer stacks of matrices; `block_diag` and `khatri_rao` take stacks of matrices, their
//!   batch axes broadcast; as SciPy 1.17 does for most of them (`hankel` of a multidimensional input is raveled by
//!   SciPy 1.17 with a warning that 1.19 will batch it; xp batches it).

use std::str::FromStr;
use xp_backend_api::{DType, DTypeKind, Error, Result};

use crate::promote::{promote_types, Scalar};
use crate::signal::Mode;
use crate::{Array, SliceArg};

use super::triangular::grid;

/// `x` as at least 1-d.
fn vector(x: &Array) -> Result<Array> {
    crate::atleast_1d(x)
}

/// `x[..., start..]` along the last axis.
fn tail(x: &Array, start: usize) -> Result<Array> {
    let mut sl = vec![SliceArg::ALL; x.ndim()];
    sl[x.ndim() - 1] = SliceArg::range(start as isize, isize::MAX, 1);
    x.slice(&sl)
}

/// `x` and `y` with their batch axes (all but the last) broadcast.
fn broadcast_batches(op: &str, x: &Array, y: &Array) -> Result<(Array, Array)> {
    let (xb, yb) = (&x.shape()[..x.ndim() - 1], &y.shape()[..y.ndim() - 1]);
    let batch = crate::layout::broadcast_shapes(op, &[xb, yb])?;
    let with = |a: &Array| -> Result<Array> {
        let mut s = batch.clone();
        s.push(a.shape()[a.ndim() - 1]);
        a.broadcast_to(&s)
    };
    Ok((with(x)?, with(y)?))
}

/// `vals[..., idx]` for the int64 index matrix `idx`: a stack of matrices.
fn gather(vals: &Array, idx: &Array) -> Result<Array> {
    if idx.size() == 0 {
        let mut shape = vals.shape()[..vals.ndim() - 1].to_vec();
        shape.extend_from_slice(idx.shape());
        return Array::full_on(&vals.device_arc(), &shape, 0, vals.dtype());
    }
    vals.take(idx, Some(-1))
}

/// SciPy's `linalg.toeplitz(c, r=None)`: `T[i, j] = c[i - j]` on and below the diagonal,
/// `r[j - i]` above it (`r[0]` is not read); `r` defaults to `conj(c)` (a Hermitian matrix).
/// Stacks of vectors give stacks of matrices.
pub fn toeplitz(c: &Array, r: Option<&Array>) -> Result<Array> {
    let op = "toeplitz";
    let c = vector(c)?;
    let r = match r {
        Some(r) => vector(r)?,
        None => c.conj()?,
    };
    crate::exec::same_device(op, &[&c, &r])?;
    let (c, r) = broadcast_batches(op, &c, &r)?;
    let (m, n) = (c.shape()[c.ndim() - 1], r.shape()[r.ndim() - 1]);
    let vals = crate::concatenate(&[&crate::flip(&c, Some(&[-1]))?, &tail(&r, 1)?], -1)?;
    let (i, j) = grid(&c.device_arc(), m, n)?;
    gather(&vals, &j.sub(&i)?.add_scalar(m as i64 - 1)?)
}

/// SciPy's `linalg.circulant(c)`: `C[i, j] = c[(i - j) mod n]`, `c` its first column.
pub fn circulant(c: &Array) -> Result<Array> {
    let c = vector(c)?;
    let n = c.shape()[c.ndim() - 1];
    let (i, j) = grid(&c.device_arc(), n, n)?;
    gather(&c, &i.sub(&j)?.add_scalar(n as i64)?.rem(n.max(1) as i64)?)
}

/// SciPy's `linalg.hankel(c, r=None)`: `H[i, j] = c[i + j]` while `i + j < len(c)`, then
/// `r[i + j - len(c) + 1]` (`r[0]` is not read); `r` defaults to zeros.
pub fn hankel(c: &Array, r: Option<&Array>) -> Result<Array> {
    let op = "hankel";
    let c = vector(c)?;
    let r = match r {
        Some(r) => vector(r)?,
        None => Array::full_on(&c.device_arc(), c.shape(), 0, c.dtype())?,
    };
    crate::exec::same_device(op, &[&c, &r])?;
    let (c, r) = broadcast_batches(op, &c, &r)?;
    let (m, n) = (c.shape()[c.ndim() - 1], r.shape()[r.ndim() - 1]);
    let vals = crate::concatenate(&[&c, &tail(&r, 1)?], -1)?;
    let (i, j) = grid(&c.device_arc(), m, n)?;
    gather(&vals, &i.add(&j)?)
}

/// SciPy's `linalg.block_diag(*arrays)`: the arrays on the diagonal of a matrix of zeros, in
/// their promoted dtype. A 0-d array counts as `(1, 1)`, a 1-d one as a row; arrays of more
/// than two dimensions are stacks of matrices whose batch axes broadcast (SciPy 1.17), giving a
/// stack of block-diagonal matrices. No arrays give a `(1, 0)` float64 matrix (SciPy's).
pub fn block_diag(arrays: &[&Array]) -> Result<Array> {
    let op = "block_diag";
    if arrays.is_empty() {
        let dev = crate::current_device()?;
        return Array::empty_on(&dev, &[1, 0], DType::F64);
    }
    crate::exec::same_device(op, arrays)?;
    let dtype = arrays.iter().skip(1).fold(arrays[0].dtype(), |d, a| promote_types(d, a.dtype()));
    let blocks: Vec<Array> = arrays
        .iter()
        .map(|a| match a.ndim() {
            0 => a.reshape(&[1, 1]),
            1 => a.reshape(&[1, -1]),
            _ => Ok((*a).clone()),
        })
        .collect::<Result<_>>()?;
    let batches: Vec<&[usize]> = blocks.iter().map(|b| &b.shape()[..b.ndim() - 2]).collect();
    let batch = crate::layout::broadcast_shapes(op, &batches)?;
    let core = |b: &Array| (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
    let with = |r: usize, c: usize| {
        let mut s = batch.clone();
        s.extend([r, c]);
        s
    };
    let dev = arrays[0].device_arc();
    let total: usize = blocks.iter().map(|b| core(b).1).sum();
    let mut rows = Vec::with_capacity(blocks.len());
    let mut before = 0;
    for b in &blocks {
        let (h, w) = core(b);
        let left = Array::full_on(&dev, &with(h, before), 0, dtype)?;
        let right = Array::full_on(&dev, &with(h, total - before - w), 0, dtype)?;
        let mid = b.astype_if(dtype)?.broadcast_to(&with(h, w))?;
        rows.push(crate::concatenate(&[&left, &mid, &right], -1)?);
        before += w;
    }
    let refs: Vec<&Array> = rows.iter().collect();
    crate::concatenate(&refs, -2)
}

/// SciPy's `linalg.hadamard(n, dtype=int)`: Sylvester's Hadamard matrix of order `n` (entries
/// ±1) in `dtype` (int64 by default). `n` that is not a positive power of 2 is `Value`.
pub fn hadamard(n: usize, dtype: Option<DType>) -> Result<Array> {
    let op = "hadamard";
    if n == 0 || !n.is_power_of_two() {
        return Err(Error::value(op, "n must be an positive integer, and n must be a power of 2"));
    }
    let dev = crate::current_device()?;
    let dtype = dtype.unwrap_or(DType::I64);
    // H_2k = [[H, H], [H, -H]], built in int64 (exact) and cast once.
    let mut h = Array::full_on(&dev, &[1, 1], 1, DType::I64)?;
    while h.shape()[0] < n {
        let neg = h.negative()?;
        let top = crate::concatenate(&[&h, &h], 1)?;
        let bottom = crate::concatenate(&[&h, &neg], 1)?;
        h = crate::concatenate(&[&top, &bottom], 0)?;
    }
    h.astype(dtype)
}

/// SciPy's `linalg.helmert(n, full=False)`: the Helmert matrix of order `n` (float64): row 0
/// is `1 / sqrt(n)`, row `i > 0` has `1 / sqrt(i (i + 1))` in its first `i` columns and
/// `-i / sqrt(i (i + 1))` in column `i`; without `full`, row 0 is left out (`(n - 1, n)`).
/// `n = 0` is `Value`.
pub fn helmert(n: usize, full: bool) -> Result<Array> {
    if n == 0 {
        return Err(Error::value("helmert", "n must be at least 1"));
    }
    let dev = crate::current_device()?;
    let (i, j) = grid(&dev, n, n)?;
    let one = Array::scalar_on(&dev, 1, DType::F64)?;
    let zero = Array::scalar_on(&dev, 0, DType::F64)?;
    let minus_i = i.negative()?.astype(DType::F64)?;
    let below = crate::where_(&j.lt(&i)?, (&one).into(), (&zero).into())?;
    let body = crate::where_(&j.eq(&i)?, (&minus_i).into(), (&below).into())?;
    let body = crate::where_(&i.eq(0)?, (&one).into(), (&body).into())?;
    let d = crate::where_(&i.eq(0)?, (n as i64).into(), (&i.mul(&i.add_scalar(1)?)?).into())?.astype(DType::F64)?;
    let h = body.div(&d.sqrt()?)?;
    if full {
        Ok(h)
    } else {
        h.slice(&[SliceArg::range(1, isize::MAX, 1), SliceArg::ALL])
    }
}

/// SciPy's `linalg.hilbert(n)`: `H[i, j] = 1 / (i + j + 1)`, float64, one rounding each.
pub fn hilbert(n: usize) -> Result<Array> {
    let dev = crate::current_device()?;
    let (i, j) = grid(&dev, n, n)?;
    i.add(&j)?.add_scalar(1)?.astype(DType::F64)?.reciprocal()
}

/// SciPy's `linalg.invhilbert(n)` (`exact=False`): the inverse of `hilbert(n)`, float64, by its
/// closed form `(-1)^(i+j) (i+j+1) C(n+i, n-j-1) C(n+j, n-i-1) C(i+j, i)^2`. The integers are
/// computed exactly on the host (128-bit, then one rounding; float64 products once they would
/// overflow, beyond `n` of about 30) and the `n × n` result copied to the device.
pub fn invhilbert(n: usize) -> Result<Array> {
    let dev = crate::current_device()?;
    let binom = |a: usize, b: usize| -> Option<u128> {
        let mut r: u128 = 1;
        for k in 0..b {
            r = r.checked_mul((a - k) as u128)? / (k as u128 + 1);
        }
        Some(r)
    };
    let fbinom = |a: usize, b: usize| -> f64 { (0..b).fold(1.0, |r, k| r * (a - k) as f64 / (k + 1) as f64) };
    let mut out = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            let sign = if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
            let exact = (|| {
                let b1 = binom(n + i, n - j - 1)?;
                let b2 = binom(n + j, n - i - 1)?;
                let b3 = binom(i + j, i)?;
                ((i + j + 1) as u128).checked_mul(b1)?.checked_mul(b2)?.checked_mul(b3)?.checked_mul(b3)
            })();
            let v = match exact {
                Some(v) => v as f64,
                None => {
                    (i + j + 1) as f64 * fbinom(n + i, n - j - 1) * fbinom(n + j, n - i - 1) * fbinom(i + j, i).powi(2)
                }
            };
            out.push(sign * v);
        }
    }
    Array::from_slice_on(&dev, &out, &[n, n])
}

/// SciPy's `linalg.leslie(f, s)`: the Leslie matrix with fecundities `f` (`(..., N)`) in its
/// first row and survival rates `s` (`(..., N - 1)`) on its subdiagonal, in their promoted
/// dtype. `s` of the wrong length or empty is `Value`.
pub fn leslie(f: &Array, s: &Array) -> Result<Array> {
    let op = "leslie";
    let (f, s) = (vector(f)?, vector(s)?);
    crate::exec::same_device(op, &[&f, &s])?;
    let n = f.shape()[f.ndim() - 1];
    if s.shape()[s.ndim() - 1] == 0 {
        return Err(Error::value(op, "The length of s must be at least 1."));
    }
    if s.shape()[s.ndim() - 1] + 1 != n {
        return Err(Error::value(
            op,
            "Incorrect lengths for f and s. The length of s along the last axis must be one less than the length of f.",
        ));
    }
    let (f, s) = broadcast_batches(op, &f, &s)?;
    let dtype = promote_types(f.dtype(), s.dtype());
    let dev = f.device_arc();
    let mut zshape = s.shape().to_vec();
    *zshape.last_mut().expect("1-d at least") = 1;
    let s_pad = crate::concatenate(&[&s.astype_if(dtype)?, &Array::full_on(&dev, &zshape, 0, dtype)?], -1)?;
    let (i, j) = grid(&dev, n, n)?;
    let zero = Array::scalar_on(&dev, 0, dtype)?;
    let sub = crate::where_(&i.eq(&j.add_scalar(1)?)?, (&s_pad.expand_dims(-2)?).into(), (&zero).into())?;
    crate::where_(&i.eq(0)?, (&f.astype_if(dtype)?.expand_dims(-2)?).into(), (&sub).into())
}

/// The float dtype SciPy's `companion` computes in: float64 for integers and bool.
fn float_dtype(op: &str, d: DType) -> Result<DType> {
    match d.kind() {
        DTypeKind::Bool | DTypeKind::Signed | DTypeKind::Unsigned => Ok(DType::F64),
        DTypeKind::Float | DTypeKind::Complex => Ok(d),
        #[allow(unreachable_patterns)]
        _ => Err(Error::UnsupportedDType { op: op.into(), dtypes: vec![d], detail: "a numeric dtype".into() }),
    }
}

/// `Err(Value)` when any of `a[..., 0]` is zero (one synchronisation).
fn check_leading(op: &str, a: &Array, msg: &str) -> Result<()> {
    let mut sl = vec![SliceArg::ALL; a.ndim()];
    sl[a.ndim() - 1] = SliceArg::range(0, 1, 1);
    if a.slice(&sl)?.eq(0)?.any(None, false)?.item::<bool>()? {
        return Err(Error::value(op, msg));
    }
    Ok(())
}

/// SciPy's `linalg.companion(a)`: the companion matrix (`(..., N - 1, N - 1)`) of the
/// polynomial with coefficients `a` (`(..., N)`, highest degree first): first row
/// `-a[1:] / a[0]`, ones on the subdiagonal. `N < 2` or a zero `a[..., 0]` is `Value`.
pub fn companion(a: &Array) -> Result<Array> {
    let op = "companion";
    let a = vector(a)?;
    let n = a.shape()[a.ndim() - 1];
    if n < 2 {
        return Err(Error::value(op, "The length of `a` along the last axis must be at least 2."));
    }
    check_leading(op, &a, "The first coefficient(s) of `a` (i.e. elements of `a[..., 0]`) must not be zero.")?;
    let dtype = float_dtype(op, a.dtype())?;
    let a = a.astype_if(dtype)?;
    let mut sl = vec![SliceArg::ALL; a.ndim()];
    sl[a.ndim() - 1] = SliceArg::range(0, 1, 1);
    let first = tail(&a, 1)?.negative()?.div(&a.slice(&sl)?)?;
    let dev = a.device_arc();
    let (i, j) = grid(&dev, n - 1, n - 1)?;
    let one = Array::scalar_on(&dev, 1, dtype)?;
    let zero = Array::scalar_on(&dev, 0, dtype)?;
    let sub = crate::where_(&i.eq(&j.add_scalar(1)?)?, (&one).into(), (&zero).into())?;
    crate::where_(&i.eq(0)?, (&first.expand_dims(-2)?).into(), (&sub).into())
}

/// SciPy's `linalg.fiedler_companion(a)`: Fiedler's pentadiagonal companion matrix
/// (`(..., N - 1, N - 1)`) of the polynomial with coefficients `a` (`(..., N)`, highest degree
/// first), with `c = a[1:] / a[0]`: row 0 is `(-c1, -c2, 1)`, each even row `r >= 2` has `-c(r+1)`
/// in column `r - 1`, `-c(r+2)` in column `r + 1` and 1 in column `r + 2`, each odd row `r` a 1
/// in column `max(r - 2, 0)` (M. Fiedler, "A note on companion matrices", Linear Algebra Appl.
/// 372, 2003). Float dtype as `companion`. An empty `a` or a zero `a[..., 0]` is `Value`; one
/// coefficient gives an empty 1-d array, as SciPy.
pub fn fiedler_companion(a: &Array) -> Result<Array> {
    let op = "fiedler_companion";
    let a = vector(a)?;
    let len = a.shape()[a.ndim() - 1];
    if len == 0 {
        return Err(Error::value(op, "a must have at least one coefficient"));
    }
    check_leading(op, &a, "Leading coefficient is zero.")?;
    let dtype = float_dtype(op, a.dtype())?;
    let dev = a.device_arc();
    if len == 1 {
        return Array::empty_on(&dev, &[0], dtype);
    }
    let n = len - 1;
    let a = a.astype_if(dtype)?;
    let mut sl = vec![SliceArg::ALL; a.ndim()];
    sl[a.ndim() - 1] = SliceArg::range(0, 1, 1);
    let negc = tail(&a, 1)?.div(&a.slice(&sl)?)?.negative()?;
    let (i, j) = grid(&dev, n, n)?;
    let even = i.rem(2)?.eq(0)?;
    let first_row = i.eq(0)?.logical_and(&j.le(1)?)?;
    let later = i.ge(2)?.logical_and(&j.eq(&i.sub(1)?)?.logical_or(&j.eq(&i.add_scalar(1)?)?)?)?;
    let coef = even.logical_and(&first_row.logical_or(&later)?)?;
    // 1-based coefficient index: j + 1 in row 0, r + 1 or r + 2 in the later even rows.
    let later_k = i.add(&j.sub(&i)?.add_scalar(1)?.floor_divide(2)?)?.add_scalar(1)?;
    let k = crate::where_(&i.eq(0)?, (&j.add_scalar(1)?).into(), (&later_k).into())?;
    let idx = k.sub(1)?.clip(0, n as i64 - 1)?;
    let vals = negc.take(&idx, Some(-1))?;
    let ones_even = even.logical_and(&j.eq(&i.add_scalar(2)?)?)?;
    let ones_odd = even.logical_not()?.logical_and(&j.eq(&i.sub(2)?.maximum(0)?)?)?;
    let ones = ones_even.logical_or(&ones_odd)?;
    let one = Array::scalar_on(&dev, 1, dtype)?;
    let zero = Array::scalar_on(&dev, 0, dtype)?;
    let unit = crate::where_(&ones, (&one).into(), (&zero).into())?;
    crate::where_(&coef, (&vals).into(), (&unit).into())
}

/// SciPy's `linalg.convolution_matrix(a, n, mode='full')`: the matrix `A` with `A @ v` the
/// convolution of `a` (length `m`) with a vector `v` of length `n`, cut by `mode` as
/// `numpy.convolve`: `(m + n - 1, n)` (full), `(max(m, n), n)` (same) or
/// `(max(m, n) - min(m, n) + 1, n)` (valid). A stack of vectors `(..., m)` gives a stack of
/// matrices (SciPy 1.17). `n = 0`, an empty or 0-d `a` is `Value`.
pub fn convolution_matrix(a: &Array, n: usize, mode: Mode) -> Result<Array> {
    let op = "convolution_matrix";
    if n == 0 {
        return Err(Error::value(op, "n must be a positive integer."));
    }
    if a.ndim() == 0 {
        return Err(Error::value(op, "convolution_matrix expects a one-dimensional array (or a stack of them)"));
    }
    let m = a.shape()[a.ndim() - 1];
    if m == 0 {
        return Err(Error::value(op, "len(a) must be at least 1."));
    }
    let (lo, hi) = (m.min(n), m.max(n));
    let (start, rows) = match mode {
        Mode::Full => (0, m + n - 1),
        Mode::Same => ((lo - 1) / 2, hi),
        Mode::Valid => (lo - 1, hi - lo + 1),
    };
    let dev = a.device_arc();
    let mut pshape = a.shape().to_vec();
    *pshape.last_mut().expect("1-d at least") = n - 1;
    let pad = Array::full_on(&dev, &pshape, 0, a.dtype())?;
    let vals = crate::concatenate(&[&pad, a, &pad], -1)?;
    let (i, j) = grid(&dev, rows, n)?;
    // A[i, j] = a[i + start - j], at i + start - j + n - 1 in vals.
    gather(&vals, &i.sub(&j)?.add_scalar((start + n - 1) as i64)?)
}

/// SciPy's `scale` of `linalg.dft`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DftScale {
    /// `"n"`: divided by `n`.
    N,
    /// `"sqrtn"`: divided by `sqrt(n)` (a unitary matrix).
    SqrtN,
}

impl FromStr for DftScale {
    type Err = Error;
    /// `"n"` or `"sqrtn"`; others are a `Value` error.
    fn from_str(s: &str) -> Result<DftScale> {
        match s {
            "n" => Ok(DftScale::N),
            "sqrtn" => Ok(DftScale::SqrtN),
            other => Err(Error::value("dft", format!("scale must be None, 'sqrtn', or 'n'; '{other}' is not valid."))),
        }
    }
}

/// SciPy's `linalg.dft(n, scale=None)`: the `n × n` discrete Fourier transform matrix
/// `m[j, k] = exp(-2πi jk / n)` (complex128), divided by `n` or `sqrt(n)` by `scale`.
pub fn dft(n: usize, scale: Option<DftScale>) -> Result<Array> {
    let dev = crate::current_device()?;
    if n == 0 {
        return Array::empty_on(&dev, &[0, 0], DType::C128);
    }
    let (j, k) = grid(&dev, n, n)?;
    let theta = j.mul(&k)?.rem(n as i64)?.astype(DType::F64)?.mul_scalar(-2.0 * std::f64::consts::PI)?.div(n as f64)?;
    let re = theta.cos()?.astype(DType::C128)?;
    let im = theta.sin()?.astype(DType::C128)?.mul(Scalar::Complex(0.0, 1.0))?;
    let m = re.add(&im)?;
    match scale {
        None => Ok(m),
        Some(DftScale::N) => m.div(n as f64),
        Some(DftScale::SqrtN) => m.div((n as f64).sqrt()),
    }
}

/// SciPy's `linalg.fiedler(a)`: the symmetric Fiedler matrix `F[i, j] = |a[i] - a[j]|` of
/// each vector of the stack `a` (`(..., N)`), in `abs`'s dtype (integers stay integers). An
/// empty vector gives an empty 1-d array, as SciPy.
pub fn fiedler(a: &Array) -> Result<Array> {
    let a = vector(a)?;
    if a.ndim() == 1 && a.size() == 0 {
        return a.abs();
    }
    a.expand_dims(-1)?.sub(&a.expand_dims(-2)?)?.abs()
}

/// SciPy's `linalg.khatri_rao(a, b)`: the column-wise Kronecker product of `a` (`(N, K)`) and
/// `b` (`(M, K)`), `(N M, K)`; stacks `(..., N, K)` and `(..., M, K)` broadcast (SciPy 1.17).
/// Arrays of fewer than two dimensions or with different numbers of columns are `Value`.
pub fn khatri_rao(a: &Array, b: &Array) -> Result<Array> {
    let op = "khatri_rao";
    crate::exec::same_device(op, &[a, b])?;
    if a.ndim() < 2 || b.ndim() < 2 {
        return Err(Error::value(op, "The both arrays should be 2-dimensional."));
    }
    let k = a.shape()[a.ndim() - 1];
    if b.shape()[b.ndim() - 1] != k {
        return Err(Error::value(op, "The number of columns for both arrays should be equal."));
    }
    let (n, m) = (a.shape()[a.ndim() - 2], b.shape()[b.ndim() - 2]);
    let prod = a.expand_dims(-2)?.mul(&b.expand_dims(-3)?)?;
    let mut shape: Vec<isize> = prod.shape()[..prod.ndim() - 3].iter().map(|&d| d as isize).collect();
    shape.extend([(n * m) as isize, k as isize]);
    prod.reshape(&shape)
}
