//! NumPy's polynomial functions on coefficient arrays, highest power first: `polyval` (Horner's
//! rule), `polyfit` (least squares through `linalg::lstsq`), `roots` (eigenvalues of the
//! companion matrix), and `vander`, the Vandermonde matrix `polyfit` solves with.

use xp_backend_api::{DType, Error, Result};

use crate::indexing::flatnonzero;
use crate::layout::SliceArg;
use crate::promote::Scalar;
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
