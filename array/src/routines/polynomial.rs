//! NumPy's polynomial functions on coefficient arrays, highest power first: `polyval` (Horner's
//! rule), `polyfit` (least squares through `linalg::lstsq`), `roots` (eigenvalues of the
//! companion matrix), `vander`, the Vandermonde matrix `polyfit` solves with, and the
//! arithmetic of NumPy's `poly*` family: `polyadd`, `polysub`, `polymul` (a full convolution),
//! `polyder`, `polyint`, `polydiv` (long division) and `poly` (coefficients from roots).
//!
//! Every one is a short sequence of array ops in NumPy's order of operations, so results round
//! as NumPy's do and dtypes promote as NumPy's (`polyder` multiplies by an int64 `arange`, so
//! integers stay int64 and float32 becomes float64; `polyint` divides by one, so the result is
//! float64 or complex128). `polydiv`'s long division and `poly`'s product of linear factors are
//! sequential: one step of device ops per quotient coefficient or per root (a host loop over
//! the degree, as in NumPy), and `polydiv` reads the remainder's magnitudes back to trim its
//! leading zeros (NumPy's `allclose(r[0], 0, rtol=1e-14)`, i.e. `|r[0]| <= 1e-8`).

use xp_backend_api::{DType, Error, Result};

use crate::indexing::flatnonzero;
use crate::layout::SliceArg;
use crate::promote::Scalar;
use crate::signal::Mode;
use crate::ufunc::{where_, Operand};
use crate::Array;

/// NumPy's `polyval(p, x)`: the polynomial with coefficients `p` (highest power first) at
/// `x`, by Horner's rule.
pub fn polyval(p: &Array, x: &Array) -> Result<Array> {
    if p.ndim() != 1 {
        return Err(Error::value("polyval", format!("p must be 1-d, got shape {:?}", p.shape())));
    }
    let mut y = crate::with_device(&x.device_arc(), || crate::zeros(x.shape(), x.dtype()))?;
    for i in 0..p.shape()[0] {
        y = y.mul(x)?.add(&p.slice(&[SliceArg::Index(i as isize)])?)?;
    }
    Ok(y)
}

/// NumPy's `vander(x, N)`: the columns `x**(N-1), …, x, 1` of the 1-d `x` (`N` defaults to
/// `len(x)`), powers by repeated multiplication (integers in int64).
pub fn vander(x: &Array, n: Option<usize>) -> Result<Array> {
    let op = "vander";
    if x.ndim() != 1 {
        return Err(Error::value(op, format!("x must be a one-dimensional array, got shape {:?}", x.shape())));
    }
    // NumPy computes in `promote_types(x.dtype, int)`: integers widen to int64.
    let x = &x.astype(crate::promote_types(x.dtype(), DType::I64))?;
    let (m, n) = (x.shape()[0], n.unwrap_or(x.shape()[0]));
    let ones = Array::full_on(&x.device_arc(), &[m, n.min(1)], 1, x.dtype())?;
    let inc = if n > 1 {
        let col = x.reshape(&[m as isize, 1])?.broadcast_to(&[m, n - 1])?;
        let mut acc = vec![col.slice(&[SliceArg::ALL, SliceArg::range(0, 1, 1)])?];
        for j in 1..n - 1 {
            let next =
                product(&acc[j - 1], &col.slice(&[SliceArg::ALL, SliceArg::range(j as isize, j as isize + 1, 1)])?)?;
            acc.push(next);
        }
        let mut parts = vec![ones];
        parts.extend(acc);
        crate::concatenate(&parts.iter().collect::<Vec<_>>(), 1)?
    } else {
        ones
    };
    crate::flip(&inc, Some(&[1]))?.copy()
}

/// `a · b` as NumPy's accumulating loops compute it: for complex numbers each part rounded
/// after each operation (`ar·br - ai·bi`), not with the fused multiply-add of `multiply`.
fn product(a: &Array, b: &Array) -> Result<Array> {
    if !a.dtype().is_complex() {
        return a.mul(b);
    }
    let (ar, ai, br, bi) = (a.real(), a.imag()?, b.real(), b.imag()?);
    let re = ar.mul(&br)?.sub(&ai.mul(&bi)?)?;
    let im = ar.mul(&bi)?.add(&ai.mul(&br)?)?;
    crate::routines::math::complex_from(&re, &im, a.dtype())
}

/// NumPy's `polyfit(x, y, deg)`: least-squares coefficients, highest power first (`y` 1-d or
/// 2-d with one fit per column), through `linalg.lstsq` on the scaled Vandermonde matrix.
pub fn polyfit(x: &Array, y: &Array, deg: usize) -> Result<Array> {
    crate::exec::same_device("polyfit", &[x, y])?;
    if x.ndim() != 1 || y.ndim() == 0 || y.ndim() > 2 || y.shape()[0] != x.size() {
        return Err(Error::ShapeMismatch {
            op: "polyfit".into(),
            lhs: x.shape().to_vec(),
            rhs: y.shape().to_vec(),
            reason: "x must be 1-d and y of x's length (1-d or 2-d)".into(),
        });
    }
    let x = x.astype(DType::F64)?;
    let v = crate::routines::vander(&x, Some(deg + 1))?;
    // Scale the columns to unit norm, as NumPy, for the conditioning.
    let scale = v.mul(&v)?.sum(Some(&[0]), false)?.sqrt()?;
    let scale = where_(&scale.eq(0.0)?, Operand::Scalar(Scalar::Float(1.0)), (&scale).into())?;
    let (c, _, _, _) = crate::linalg::lstsq(&v.div(&scale)?, &y.astype(DType::F64)?, None)?;
    if c.ndim() == 2 {
        c.div(&scale.expand_dims(-1)?)
    } else {
        c.div(&scale)
    }
}

/// NumPy's `roots(p)`: the roots of the polynomial with coefficients `p` (highest power
/// first): eigenvalues of its companion matrix, and zeros for trailing zero coefficients.
pub fn roots(p: &Array) -> Result<Array> {
    if p.ndim() != 1 {
        return Err(Error::value("roots", "input must be a rank-1 array"));
    }
    let dev = p.device_arc();
    let nz = flatnonzero(p)?.to_vec::<i64>()?;
    let (Some(&first), Some(&last)) = (nz.first(), nz.last()) else {
        return Array::empty_on(&dev, &[0], DType::F64);
    };
    let trailing = p.size() - 1 - last as usize;
    let core = p.slice(&[SliceArg::range(first as isize, last as isize + 1, 1)])?;
    let core = if core.dtype().is_complex() { core } else { core.astype(DType::F64)? };
    let n = core.size();
    let mut r = if n > 1 {
        let a = Array::full_on(&dev, &[n - 1, n - 1], 0, core.dtype())?;
        if n > 2 {
            let ones = Array::full_on(&dev, &[n - 2], 1, core.dtype())?;
            crate::linalg::diag(&ones, -1)?.copy_into(&a)?;
        }
        let lead = core.slice(&[SliceArg::Index(0)])?;
        let row = core.slice(&[SliceArg::range(1, n as isize, 1)])?.negative()?.div(&lead)?;
        row.copy_into(&a.slice(&[SliceArg::Index(0)])?)?;
        crate::linalg::eigvals(&a)?
    } else {
        Array::empty_on(&dev, &[0], core.dtype())?
    };
    if trailing > 0 {
        let z = Array::full_on(&dev, &[trailing], 0, r.dtype())?;
        r = crate::concatenate(&[&r, &z], 0)?;
    }
    Ok(r)
}

/// `a` as NumPy's `atleast_1d` for the `poly*` functions: 0-d becomes 1-d, more than 1-d is an
/// error naming `op`.
fn coefficients(op: &str, a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape(&[1]),
        1 => Ok(a.clone()),
        _ => Err(Error::value(op, format!("coefficients must be a 1-d array, got shape {:?}", a.shape()))),
    }
}

/// `a` with `n` zeros (of `a`'s dtype) in front.
fn zero_padded(a: &Array, n: usize) -> Result<Array> {
    if n == 0 {
        return Ok(a.clone());
    }
    let z = Array::full_on(&a.device_arc(), &[n], 0, a.dtype())?;
    crate::concatenate(&[&z, a], 0)
}

/// The two polynomials aligned at their constant terms (the shorter one padded with leading
/// zeros), for `polyadd`/`polysub`.
fn aligned(op: &str, a1: &Array, a2: &Array) -> Result<(Array, Array)> {
    crate::exec::same_device(op, &[a1, a2])?;
    let (a1, a2) = (coefficients(op, a1)?, coefficients(op, a2)?);
    let (n1, n2) = (a1.size(), a2.size());
    Ok((zero_padded(&a1, n2.saturating_sub(n1))?, zero_padded(&a2, n1.saturating_sub(n2))?))
}

/// NumPy's `polyadd(a1, a2)`: the sum of two polynomials (highest power first); the result
/// has the longer one's length and the promoted dtype.
pub fn polyadd(a1: &Array, a2: &Array) -> Result<Array> {
    let (a, b) = aligned("polyadd", a1, a2)?;
    a.add(&b)
}

/// NumPy's `polysub(a1, a2)`: `a1 - a2` as polynomials (highest power first).
pub fn polysub(a1: &Array, a2: &Array) -> Result<Array> {
    let (a, b) = aligned("polysub", a1, a2)?;
    a.sub(&b)
}

/// NumPy's `polymul(a1, a2)`: the product of two polynomials, the full convolution of their
/// coefficients (`xp::convolve`). Errors: an empty input (`Value`).
pub fn polymul(a1: &Array, a2: &Array) -> Result<Array> {
    let op = "polymul";
    crate::signal::numpy::convolve(&coefficients(op, a1)?, &coefficients(op, a2)?, Mode::Full)
}

/// NumPy's `polyder(p, m)`: the `m`-th derivative. Each step drops the constant term and
/// multiplies by the int64 powers `n-1, …, 1`; `m = 0` returns `p`.
pub fn polyder(p: &Array, m: usize) -> Result<Array> {
    let mut y = coefficients("polyder", p)?;
    for _ in 0..m {
        let n = y.size() as i64;
        let head = y.slice(&[SliceArg::range(0, (n - 1).max(0) as isize, 1)])?;
        let powers = crate::with_device(&p.device_arc(), || crate::arange(n - 1, 0, -1, None))?;
        y = head.mul(&powers)?;
    }
    Ok(y)
}

/// NumPy's `polyint(p, m, k)`: the `m`-th antiderivative. Step `i` divides by the powers
/// `n, …, 1` and appends the integration constant `k[i]`. `k` `None` is all zeros; one constant
/// serves every step; otherwise `k` needs at least `m` (later ones are ignored, as in NumPy).
///
/// Errors: `k` with fewer than `m` constants (but not one) (`Value`).
pub fn polyint(p: &Array, m: usize, k: Option<&[Scalar]>) -> Result<Array> {
    let op = "polyint";
    let mut y = coefficients(op, p)?;
    let dev = p.device_arc();
    let consts: Vec<Scalar> = match k {
        None => vec![Scalar::Float(0.0); m],
        Some([c]) if m > 1 => vec![*c; m],
        Some(k) if k.len() >= m => k.to_vec(),
        Some(k) => {
            return Err(Error::value(
                op,
                format!(
                    "k must be a scalar or a rank-1 array of length 1 or >m (got {} constants for m = {m})",
                    k.len()
                ),
            ))
        }
    };
    for c in consts.iter().take(m) {
        let n = y.size() as i64;
        let powers = crate::with_device(&dev, || crate::arange(n, 0, -1, None))?;
        let c = Array::full_on(&dev, &[1], *c, c.default_dtype())?;
        y = crate::concatenate(&[&y.div(&powers)?, &c], 0)?;
    }
    Ok(y)
}

/// NumPy's `polydiv(u, v)`: quotient and remainder of the long division of `u` by `v`, in
/// float64 (float32 and complex types kept). The remainder's leading coefficients of
/// magnitude at most 1e-8 are dropped (one is always kept), as NumPy's `allclose` test does.
///
/// Errors: an empty `u` or `v` (`Value`).
pub fn polydiv(u: &Array, v: &Array) -> Result<(Array, Array)> {
    let op = "polydiv";
    crate::exec::same_device(op, &[u, v])?;
    let (u, v) = (coefficients(op, u)?.add_scalar(0.0)?, coefficients(op, v)?.add_scalar(0.0)?);
    if u.size() == 0 || v.size() == 0 {
        return Err(Error::value(op, "u and v must not be empty"));
    }
    let dtype = crate::promote_types(u.dtype(), v.dtype());
    let (m, n) = (u.size() - 1, v.size() - 1);
    let dev = u.device_arc();
    let steps = (m + 1).saturating_sub(n);
    let q = Array::full_on(&dev, &[steps.max(1)], 0, dtype)?;
    let r = u.astype(dtype)?.copy()?;
    let scale = v.slice(&[SliceArg::Index(0)])?.reciprocal()?;
    for k in 0..steps {
        let d = scale.mul(&r.slice(&[SliceArg::Index(k as isize)])?)?;
        d.copy_into(&q.slice(&[SliceArg::Index(k as isize)])?)?;
        let part = r.slice(&[SliceArg::range(k as isize, (k + n + 1) as isize, 1)])?;
        part.sub(&d.mul(&v)?)?.copy_into(&part)?;
    }
    let small = r.abs()?.le(1e-8)?.to_vec::<bool>()?;
    let drop = small.iter().take(small.len() - 1).take_while(|&&s| s).count();
    Ok((q, r.slice(&[SliceArg::range(drop as isize, r.size() as isize, 1)])?))
}

/// NumPy's `poly(seq_of_zeros)`: the monic polynomial with the given roots (1-d), or the
/// characteristic polynomial of a square matrix (its eigenvalues as the roots). Integers become
/// float64; a complex answer whose roots come in conjugate pairs is returned real, as NumPy.
/// No roots give `[1.0]`.
///
/// Errors: an input neither 1-d nor a non-empty square matrix (`Value`).
pub fn poly(seq_of_zeros: &Array) -> Result<Array> {
    let op = "poly";
    let z = match *seq_of_zeros.shape() {
        [] => seq_of_zeros.reshape(&[1])?,
        [n, m] if n == m && n != 0 => crate::linalg::eigvals(seq_of_zeros)?,
        [_] => seq_of_zeros.clone(),
        _ => return Err(Error::value(op, "input must be 1d or non-empty square 2d array.")),
    };
    // NumPy's `mintypecode`: float32, complex64 and complex128 kept, everything else float64.
    let dtype = match z.dtype() {
        DType::F32 | DType::C64 | DType::C128 => z.dtype(),
        _ => DType::F64,
    };
    let z = z.astype(dtype)?;
    let dev = z.device_arc();
    let mut a = Array::full_on(&dev, &[1], 1, dtype)?;
    for i in 0..z.size() {
        // a * (x - z_i): a shifted up a power, minus z_i times a.
        let zi = z.slice(&[SliceArg::range(i as isize, i as isize + 1, 1)])?;
        let up = crate::concatenate(&[&a, &Array::full_on(&dev, &[1], 0, dtype)?], 0)?;
        let down = zero_padded(&product(&a, &zi.broadcast_to(a.shape())?)?, 1)?;
        a = up.sub(&down)?;
    }
    if dtype.is_complex() {
        let roots = crate::sort_complex(&z)?;
        let conj = crate::sort_complex(&z.conj()?)?;
        if crate::array_equal(&roots, &conj, false)? {
            return a.real().copy();
        }
    }
    Ok(a)
}
