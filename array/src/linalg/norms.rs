//! `numpy.linalg`'s norms and products of several matrices: `norm`, `matrix_power`,
//! `multi_dot`. The spectral norms (`ord` 2, -2 and `nuc` of a matrix) come from the singular
//! values of the device's solver.

use xp_backend_api::{DType, Error, Result};

use crate::layout::normalize_axis;
use crate::Array;

use super::products::matmul;

/// NumPy's `ord` of `linalg.norm`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormOrd {
    /// A number: `p` for vectors (`inf`, `-inf` and 0 included); 1, -1, 2, -2, `inf`, `-inf`
    /// for matrices.
    P(f64),
    /// `'fro'`: the Frobenius norm (matrices).
    Fro,
    /// `'nuc'`: the nuclear norm (matrices).
    Nuc,
}

/// The real dtype a norm of `x` has (NumPy: complex64 → float32, integers → float64).
fn norm_dtype(x: &Array) -> DType {
    match x.dtype() {
        DType::C64 => DType::F32,
        d @ (DType::F16 | DType::BF16 | DType::F32) => d,
        _ => DType::F64,
    }
}

/// `|x|` in the norm's dtype.
fn magnitude(x: &Array) -> Result<Array> {
    let a = x.abs()?;
    let want = norm_dtype(x);
    if a.dtype() == want {
        Ok(a)
    } else {
        a.astype(want)
    }
}

/// NumPy's `linalg.norm(x, ord, axis, keepdims)`.
pub fn norm(x: &Array, ord: Option<NormOrd>, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    let op = "norm";
    let nd = x.ndim();
    let axes: Vec<usize> = match axis {
        Some(ax) => ax.iter().map(|&a| normalize_axis(op, a, nd)).collect::<Result<_>>()?,
        None if ord.is_none() => {
            // The 2-norm of the flattened array, whatever its rank.
            let r = magnitude(x)?.square()?.sum(None, keepdims)?.sqrt()?;
            return Ok(r);
        }
        None if nd == 1 || nd == 2 => (0..nd).collect(),
        None => return Err(Error::value(op, format!("Improper number of dimensions to norm ({nd}) with an ord"))),
    };
    let ax: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
    match axes.len() {
        1 => vector_norm(x, ord.unwrap_or(NormOrd::P(2.0)), ax[0], keepdims),
        2 => {
            if axes[0] == axes[1] {
                return Err(Error::value(op, "Duplicate axes given"));
            }
            matrix_norm(x, ord.unwrap_or(NormOrd::Fro), ax[0], ax[1], keepdims)
        }
        n => Err(Error::value(op, format!("Improper number of dimensions to norm: {n} axes"))),
    }
}

fn vector_norm(x: &Array, ord: NormOrd, axis: isize, keepdims: bool) -> Result<Array> {
    let p = match ord {
        NormOrd::P(p) => p,
        _ => return Err(Error::value("norm", "Invalid norm order for vectors ('fro' and 'nuc' are matrix norms)")),
    };
    let ax = [axis];
    let m = magnitude(x)?;
    if p == f64::INFINITY {
        m.max(Some(&ax), keepdims)
    } else if p == f64::NEG_INFINITY {
        m.min(Some(&ax), keepdims)
    } else if p == 0.0 {
        m.ne(0.0)?.astype(norm_dtype(x))?.sum(Some(&ax), keepdims)
    } else if p == 1.0 {
        m.sum(Some(&ax), keepdims)
    } else if p == 2.0 {
        m.square()?.sum(Some(&ax), keepdims)?.sqrt()
    } else {
        m.pow(p)?.sum(Some(&ax), keepdims)?.pow(1.0 / p)
    }
}

fn matrix_norm(x: &Array, ord: NormOrd, row: isize, col: isize, keepdims: bool) -> Result<Array> {
    let m = magnitude(x)?;
    let both = [row, col];
    // Sum along one axis, then the extreme along the other (whose index shifts when the
    // summed axis came before it and is not kept).
    let extreme = |sum_axis: isize, other: isize, max: bool| -> Result<Array> {
        let s = m.sum(Some(&[sum_axis]), true)?;
        let r = if max { s.max(Some(&[other]), true)? } else { s.min(Some(&[other]), true)? };
        if keepdims {
            Ok(r)
        } else {
            r.squeeze(Some(&both))
        }
    };
    match ord {
        NormOrd::Fro => m.square()?.sum(Some(&both), keepdims)?.sqrt(),
        NormOrd::P(1.0) => extreme(row, col, true),
        NormOrd::P(-1.0) => extreme(row, col, false),
        NormOrd::P(p) if p == f64::INFINITY => extreme(col, row, true),
        NormOrd::P(p) if p == f64::NEG_INFINITY => extreme(col, row, false),
        NormOrd::P(p) if p == 2.0 || p == -2.0 => singular_norm(x, ord, row, col, keepdims),
        NormOrd::Nuc => singular_norm(x, ord, row, col, keepdims),
        NormOrd::P(p) => Err(Error::value("norm", format!("Invalid norm order {p} for matrices"))),
    }
}

/// The norms from singular values (`ord` 2: the largest, -2: the smallest, `nuc`: their
/// sum) over the axes `row` and `col`.
fn singular_norm(x: &Array, ord: NormOrd, row: isize, col: isize, keepdims: bool) -> Result<Array> {
    let nd = x.ndim();
    let (r, c) = (normalize_axis("norm", row, nd)?, normalize_axis("norm", col, nd)?);
    let mut axes: Vec<isize> = (0..nd).filter(|&d| d != r && d != c).map(|d| d as isize).collect();
    axes.extend([r as isize, c as isize]);
    let s = super::solve::svdvals(&x.permute(&axes)?)?;
    let s = if s.dtype() == norm_dtype(x) { s } else { s.astype(norm_dtype(x))? };
    let out = match ord {
        NormOrd::Nuc => s.sum(Some(&[-1]), false)?,
        NormOrd::P(p) if p > 0.0 => s.max(Some(&[-1]), false)?,
        _ => s.min(Some(&[-1]), false)?,
    };
    if !keepdims {
        return Ok(out);
    }
    let (lo, hi) = (r.min(c), r.max(c));
    out.expand_dims(lo as isize)?.expand_dims(hi as isize)
}

/// NumPy's `p` of `linalg.cond`.
pub use NormOrd as CondOrd;

/// NumPy's `linalg.cond(x, p=None)`: the condition number of each matrix; `None`, 2 and -2
/// from the singular values, the other orders as `norm(x, p) * norm(inv(x), p)`.
pub fn cond(x: &Array, p: Option<CondOrd>) -> Result<Array> {
    let op = "cond";
    super::solve::check_matrices(op, x, false)?;
    match p {
        None | Some(CondOrd::P(2.0)) | Some(CondOrd::P(-2.0)) => {
            let s = super::solve::svdvals(x)?;
            let nd = s.ndim();
            let k = s.shape()[nd - 1] as isize;
            let pick = |i: isize| -> Result<Array> {
                let mut sl = vec![crate::SliceArg::range(0, isize::MAX, 1); nd];
                sl[nd - 1] = crate::SliceArg::Index(i);
                s.slice(&sl)
            };
            let (first, last) = (pick(0)?, pick(k - 1)?);
            if p == Some(CondOrd::P(-2.0)) {
                last.div(&first)
            } else {
                first.div(&last)
            }
        }
        Some(ord) => {
            super::solve::check_matrices(op, x, true)?;
            let axes = [-2isize, -1];
            let a = norm(x, Some(ord), Some(&axes), false)?;
            let b = norm(&super::solve::inv(x)?, Some(ord), Some(&axes), false)?;
            a.mul(&b)
        }
    }
}

/// NumPy's `linalg.matrix_power(a, n)` (repeated squaring; `n = 0` gives the identity, a
/// negative `n` the power of the inverse).
pub fn matrix_power(a: &Array, n: i64) -> Result<Array> {
    let op = "matrix_power";
    let nd = a.ndim();
    if nd < 2 || a.shape()[nd - 1] != a.shape()[nd - 2] {
        return Err(Error::LinAlg {
            op: op.into(),
            reason: format!("Last 2 dimensions of the array must be square, not {:?}", a.shape()),
        });
    }
    if n < 0 {
        let m = n.checked_neg().ok_or_else(|| Error::value(op, format!("power {n} is out of range")))?;
        return matrix_power(&super::solve::inv(a)?, m);
    }
    if n == 0 {
        let k = a.shape()[nd - 1];
        let eye = crate::with_device(&a.device_arc(), || crate::creation::eye(k, None, 0, a.dtype()))?;
        return eye.broadcast_to(a.shape())?.copy();
    }
    let (mut result, mut base, mut e) = (None::<Array>, a.clone(), n);
    while e > 0 {
        if e & 1 == 1 {
            result = Some(match result {
                None => base.clone(),
                Some(r) => matmul(&r, &base)?,
            });
        }
        e >>= 1;
        if e > 0 {
            base = matmul(&base, &base)?;
        }
    }
    let r = result.expect("n > 0 sets the result");
    if r.shares_buffer(a) {
        r.copy()
    } else {
        Ok(r)
    }
}

/// NumPy's `linalg.multi_dot`: the product of a chain of matrices (the first may be 1-d, a
/// row vector; the last 1-d, a column vector), multiplied in the order that costs the fewest
/// scalar products.
pub fn multi_dot(arrays: &[&Array]) -> Result<Array> {
    let op = "multi_dot";
    if arrays.len() < 2 {
        return Err(Error::value(op, "Expecting at least two arrays"));
    }
    for (i, a) in arrays.iter().enumerate() {
        let edge = i == 0 || i == arrays.len() - 1;
        if a.ndim() != 2 && !(edge && a.ndim() == 1) {
            return Err(Error::value(op, format!("array {i} has {} dimensions; 2 are needed", a.ndim())));
        }
    }
    // Dimensions p0 × p1, p1 × p2, … (1-d ends as 1 × n and n × 1).
    let n = arrays.len();
    let mut p = Vec::with_capacity(n + 1);
    p.push(if arrays[0].ndim() == 1 { 1 } else { arrays[0].shape()[0] });
    for a in arrays {
        p.push(*a.shape().last().expect("checked rank"));
    }
    if arrays[n - 1].ndim() == 1 {
        p[n] = 1;
    }
    // The classic chain-order dynamic programme.
    let mut cost = vec![vec![0u128; n]; n];
    let mut split = vec![vec![0usize; n]; n];
    for len in 1..n {
        for i in 0..n - len {
            let j = i + len;
            cost[i][j] = u128::MAX;
            for k in i..j {
                let c = cost[i][k] + cost[k + 1][j] + (p[i] * p[k + 1] * p[j + 1]) as u128;
                if c < cost[i][j] {
                    cost[i][j] = c;
                    split[i][j] = k;
                }
            }
        }
    }
    fn chain(arrays: &[&Array], split: &[Vec<usize>], i: usize, j: usize) -> Result<Array> {
        if i == j {
            return Ok(arrays[i].clone());
        }
        let k = split[i][j];
        matmul(&chain(arrays, split, i, k)?, &chain(arrays, split, k + 1, j)?)
    }
    chain(arrays, &split, 0, n - 1)
}
