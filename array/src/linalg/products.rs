//! NumPy's products: `matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`, `einsum`, `kron`,
//! `trace`, `diagonal` and `diag`.
//!
//! Every contraction is lowered to transposes and one strided batched GEMM on the device's
//! BLAS (`Device::blas`): float16, float32, float64, complex64 and complex128 on the library
//! (bfloat16, which the CPU library lacks, in float32 there); float32 stays float32 arithmetic
//! (TF32 tensor cores only where a backend is asked for them). Integer and bool products are
//! exact, as NumPy's: the broadcast elementwise product summed over the contracted axis in
//! int64 (uint64), in row blocks that bound the temporary, then cast to the result dtype.
//! A transposed 2-d operand (`a.T`) is read in place, never copied.

use std::collections::HashMap;
use std::sync::Arc;

use xp_backend_api::{Blas, DType, DTypeKind, DynDevice, Error, GemmDesc, MatrixLayout, Result};

use crate::exec::current_stream;
use crate::layout::{broadcast_shapes, normalize_axis, Layout, SliceArg};
use crate::promote::promote_types;
use crate::Array;

/// NumPy raises `ValueError` for operands whose shapes do not multiply: a `Value` error
/// naming both shapes.
fn mismatch(op: &str, a: &Array, b: &Array, reason: impl Into<String>) -> Error {
    Error::value(op, format!("shapes {:?} and {:?} not aligned: {}", a.shape(), b.shape(), reason.into()))
}

/// Whether the BLAS of `a`'s device computes `dtype` directly.
fn float_like(dtype: DType) -> bool {
    matches!(dtype.kind(), DTypeKind::Float | DTypeKind::Complex)
}

/// How a 2-d matrix view is read by the BLAS: its leading dimension and whether it is stored
/// transposed, or `None` when it needs a copy first.
fn blas_view(m: &Array) -> Option<(usize, bool)> {
    let (s, sh) = (m.strides(), m.shape());
    let (rows, cols) = (sh[0], sh[1]);
    if (s[1] == 1 || cols <= 1) && s[0] >= cols.max(1) as isize {
        Some((s[0].max(1) as usize, false))
    } else if (s[0] == 1 || rows <= 1) && s[1] >= rows.max(1) as isize {
        Some((s[1].max(1) as usize, true))
    } else {
        None
    }
}

/// `a @ b` for stacked matrices `a: (.., m, k)`, `b: (.., k, n)` of one float or complex
/// dtype the BLAS takes, batch dims broadcast.
fn gemm_stacked(dev: &Arc<dyn DynDevice>, blas: &dyn Blas, a: &Array, b: &Array, dtype: DType) -> Result<Array> {
    let (na, nb) = (a.ndim(), b.ndim());
    let (m, k, n) = (a.shape()[na - 2], a.shape()[na - 1], b.shape()[nb - 1]);
    let batch_shape = broadcast_shapes("matmul", &[&a.shape()[..na - 2], &b.shape()[..nb - 2]])?;
    let batch: usize = batch_shape.iter().product();
    let mut out_shape = batch_shape.clone();
    out_shape.extend([m, n]);
    if k == 0 {
        return Array::full_on(dev, &out_shape, 0, dtype);
    }
    let out = Array::empty_on(dev, &out_shape, dtype)?;
    if out.size() == 0 {
        return Ok(out);
    }
    // Each operand: one matrix read by every product (stride 0), or the full batch,
    // contiguous.
    let operand = |x: &Array, rows: usize, cols: usize| -> Result<(Array, usize, bool, usize)> {
        let nd = x.ndim();
        let own: usize = x.shape()[..nd - 2].iter().product();
        if own == 1 {
            let idx: Vec<SliceArg> = (0..nd - 2).map(|_| SliceArg::Index(0)).collect();
            let mat = x.slice(&idx)?;
            if let Some((ld, t)) = blas_view(&mat) {
                return Ok((mat, ld, t, 0));
            }
            let mat = mat.ascontiguous()?;
            return Ok((mat, cols.max(1), false, 0));
        }
        let mut full = batch_shape.clone();
        full.extend([rows, cols]);
        let x = x.broadcast_to(&full)?.ascontiguous()?;
        Ok((x, cols.max(1), false, rows * cols))
    };
    let (ca, lda, ta, sa) = operand(&a.astype_if(dtype)?, m, k)?;
    let (cb, ldb, tb, sb) = operand(&b.astype_if(dtype)?, k, n)?;
    let desc = GemmDesc {
        dtype,
        m,
        n,
        k,
        batch,
        trans_a: ta,
        trans_b: tb,
        a: MatrixLayout { ld: lda, batch_stride: sa },
        b: MatrixLayout { ld: ldb, batch_stride: sb },
        c: MatrixLayout { ld: n, batch_stride: m * n },
        alpha: 1.0,
        beta: 0.0,
    };
    let bytes = |x: &Array| x.layout().offset() * x.itemsize();
    blas.gemm(
        &current_stream(dev),
        &desc,
        (ca.storage.buffer()?, bytes(&ca)),
        (cb.storage.buffer()?, bytes(&cb)),
        (out.storage.buffer_for_write()?, bytes(&out)),
    )?;
    Ok(out)
}

/// The exact product of integer or bool stacks, as NumPy's (see the module docs).
fn exact_stacked(a: &Array, b: &Array, dtype: DType) -> Result<Array> {
    let (na, nb) = (a.ndim(), b.ndim());
    let (m, k, n) = (a.shape()[na - 2], a.shape()[na - 1], b.shape()[nb - 1]);
    // (.., m, k, 1) * (.., 1, k, n) summed over k, `rows` rows of a at a time.
    let rows = ((1usize << 24) / (k * n).max(1)).clamp(1, m.max(1));
    let bb = b.expand_dims(-3)?;
    let mut parts = Vec::new();
    let mut r = 0;
    while r < m || (m == 0 && parts.is_empty()) {
        let stop = (r + rows).min(m);
        let mut sl = vec![SliceArg::range(0, isize::MAX, 1); na];
        sl[na - 2] = SliceArg::range(r as isize, stop as isize, 1);
        let part = a.slice(&sl)?.expand_dims(-1)?.mul(&bb)?.sum(Some(&[-2]), false)?;
        parts.push(part.astype_if(dtype)?);
        r = stop;
        if m == 0 {
            break;
        }
    }
    if parts.len() == 1 {
        return Ok(parts.pop().expect("one part"));
    }
    let refs: Vec<&Array> = parts.iter().collect();
    crate::concatenate(&refs, -2)
}

/// NumPy's `matmul` (`a @ b`): stacks of matrices broadcast over their leading axes; a 1-d
/// operand is a row (first) or column (second) vector whose added axis is removed.
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    let op = "matmul";
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(Error::value(op, "matmul: an operand is 0-d (use multiply for scalars)"));
    }
    let dtype = promote_types(a.dtype(), b.dtype());
    let a2 = if a.ndim() == 1 { a.expand_dims(0)? } else { a.clone() };
    let b2 = if b.ndim() == 1 { b.expand_dims(-1)? } else { b.clone() };
    let (ka, kb) = (a2.shape()[a2.ndim() - 1], b2.shape()[b2.ndim() - 2]);
    if ka != kb {
        return Err(mismatch(
            op,
            a,
            b,
            format!("the core dimension {ka} of the first does not match {kb} of the second"),
        ));
    }
    let out = if float_like(dtype) {
        let dev = crate::ufunc::common_device(op, &[a, b])?;
        let blas = dev.blas()?;
        if blas.supports(dtype) {
            gemm_stacked(&dev, &*blas, &a2, &b2, dtype)?
        } else {
            // bfloat16 on a BLAS without it: float32 arithmetic, rounded once at the end.
            gemm_stacked(&dev, &*blas, &a2, &b2, DType::F32)?.astype(dtype)?
        }
    } else {
        exact_stacked(&a2, &b2, dtype)?
    };
    let mut out = out;
    if b.ndim() == 1 {
        out = out.squeeze(Some(&[-1]))?;
    }
    if a.ndim() == 1 {
        out = out.squeeze(Some(&[if b.ndim() == 1 { -1 } else { -2 }]))?;
    }
    Ok(out)
}

impl Array {
    /// `self @ other` (see [`matmul`]).
    pub fn matmul(&self, other: &Array) -> Result<Array> {
        matmul(self, other)
    }

    /// `self` as `dtype`, not copied when it already is.
    pub(crate) fn astype_if(&self, dtype: DType) -> Result<Array> {
        if self.dtype() == dtype {
            Ok(self.clone())
        } else {
            self.astype(dtype)
        }
    }

    /// NumPy's `diagonal(offset, axis1, axis2)`: a view of the diagonal, its axis last.
    pub fn diagonal(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
        let op = "diagonal";
        let nd = self.ndim();
        if nd < 2 {
            return Err(Error::value(op, format!("diag requires an array of at least two dimensions, not {nd}")));
        }
        let (a1, a2) = (normalize_axis(op, axis1, nd)?, normalize_axis(op, axis2, nd)?);
        if a1 == a2 {
            return Err(Error::value(op, "axis1 and axis2 cannot be the same"));
        }
        let (sh, st) = (self.shape(), self.strides());
        let (n1, n2) = (sh[a1] as isize, sh[a2] as isize);
        let len = if offset >= 0 { n1.min(n2 - offset) } else { (n1 + offset).min(n2) }.max(0) as usize;
        let mut start = self.layout().offset() as isize;
        if len > 0 {
            start += if offset >= 0 { offset * st[a2] } else { -offset * st[a1] };
        }
        let mut shape: Vec<usize> = (0..nd).filter(|&d| d != a1 && d != a2).map(|d| sh[d]).collect();
        let mut strides: Vec<isize> = (0..nd).filter(|&d| d != a1 && d != a2).map(|d| st[d]).collect();
        shape.push(len);
        strides.push(st[a1] + st[a2]);
        Ok(self.with_layout(Layout::from_parts(op, shape, strides, start.max(0) as usize)?))
    }

    /// NumPy's `trace(offset)` over the first two axes: the sum of [`Array::diagonal`].
    pub fn trace(&self, offset: isize) -> Result<Array> {
        self.diagonal(offset, 0, 1)?.sum(Some(&[-1]), false)
    }
}

/// NumPy's `dot`: the product of scalars, the inner product of vectors, matrix products, and
/// the sum over the last axis of `a` and the second-to-last of `b` for stacks.
pub fn dot(a: &Array, b: &Array) -> Result<Array> {
    match (a.ndim(), b.ndim()) {
        (0, _) | (_, 0) => a.mul(b),
        (_, 1) | (1, 2) | (2, 2) => matmul(a, b),
        _ => tensordot_axes(a, b, &[-1], &[-2]),
    }
}

/// NumPy's `vdot`: the dot product of the flattened arrays, the first conjugated.
pub fn vdot(a: &Array, b: &Array) -> Result<Array> {
    if a.size() != b.size() {
        return Err(mismatch("vdot", a, b, "vdot needs arrays of the same size"));
    }
    let a = if a.dtype().is_complex() { a.conj()? } else { a.clone() };
    matmul(&a.ravel()?, &b.ravel()?)
}

/// NumPy's `inner`: the sum product over the last axes (scalars multiply).
pub fn inner(a: &Array, b: &Array) -> Result<Array> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return a.mul(b);
    }
    tensordot_axes(a, b, &[-1], &[-1])
}

/// NumPy's `outer`: `a.ravel()[:, None] * b.ravel()[None, :]`.
pub fn outer(a: &Array, b: &Array) -> Result<Array> {
    a.ravel()?.expand_dims(-1)?.mul(&b.ravel()?.expand_dims(0)?)
}

/// The axes of a `tensordot`: the last `n` of `a` with the first `n` of `b`, or two lists.
#[derive(Debug, Clone)]
pub enum TensorAxes {
    /// `axes=n`.
    Count(usize),
    /// `axes=(a_axes, b_axes)`.
    Lists(Vec<isize>, Vec<isize>),
}

/// NumPy's `tensordot`.
pub fn tensordot(a: &Array, b: &Array, axes: TensorAxes) -> Result<Array> {
    match axes {
        TensorAxes::Count(n) => {
            if n > a.ndim() || n > b.ndim() {
                return Err(mismatch("tensordot", a, b, format!("axes={n} exceeds an operand's dimensions")));
            }
            let aa: Vec<isize> = (a.ndim() - n..a.ndim()).map(|x| x as isize).collect();
            let bb: Vec<isize> = (0..n).map(|x| x as isize).collect();
            tensordot_axes(a, b, &aa, &bb)
        }
        TensorAxes::Lists(aa, bb) => tensordot_axes(a, b, &aa, &bb),
    }
}

fn tensordot_axes(a: &Array, b: &Array, aa: &[isize], bb: &[isize]) -> Result<Array> {
    let op = "tensordot";
    if aa.len() != bb.len() {
        return Err(mismatch(op, a, b, format!("axes lists {aa:?} and {bb:?} differ in length")));
    }
    let aa: Vec<usize> = aa.iter().map(|&x| normalize_axis(op, x, a.ndim())).collect::<Result<_>>()?;
    let bb: Vec<usize> = bb.iter().map(|&x| normalize_axis(op, x, b.ndim())).collect::<Result<_>>()?;
    for (&i, &j) in aa.iter().zip(&bb) {
        if a.shape()[i] != b.shape()[j] {
            return Err(mismatch(
                op,
                a,
                b,
                format!("shape-mismatch for sum: axis {i} of the first, {j} of the second"),
            ));
        }
    }
    let free_a: Vec<usize> = (0..a.ndim()).filter(|d| !aa.contains(d)).collect();
    let free_b: Vec<usize> = (0..b.ndim()).filter(|d| !bb.contains(d)).collect();
    let k: usize = aa.iter().map(|&d| a.shape()[d]).product();
    let m: usize = free_a.iter().map(|&d| a.shape()[d]).product();
    let n: usize = free_b.iter().map(|&d| b.shape()[d]).product();
    let pa: Vec<isize> = free_a.iter().chain(&aa).map(|&d| d as isize).collect();
    let pb: Vec<isize> = bb.iter().chain(&free_b).map(|&d| d as isize).collect();
    let am = a.permute(&pa)?.reshape(&[m as isize, k as isize])?;
    let bm = b.permute(&pb)?.reshape(&[k as isize, n as isize])?;
    let out: Vec<isize> =
        free_a.iter().map(|&d| a.shape()[d] as isize).chain(free_b.iter().map(|&d| b.shape()[d] as isize)).collect();
    matmul(&am, &bm)?.reshape(&out)
}

/// NumPy's `kron`: the Kronecker product (operands of different rank padded with leading 1s).
pub fn kron(a: &Array, b: &Array) -> Result<Array> {
    let nd = a.ndim().max(b.ndim());
    let pad = |x: &Array| -> Vec<usize> {
        let mut s = vec![1; nd - x.ndim()];
        s.extend_from_slice(x.shape());
        s
    };
    let (sa, sb) = (pad(a), pad(b));
    // a as (a0, 1, a1, 1, ..), b as (1, b0, 1, b1, ..): their product interleaves the axes.
    let ia: Vec<isize> = sa.iter().flat_map(|&x| [x as isize, 1]).collect();
    let ib: Vec<isize> = sb.iter().flat_map(|&x| [1, x as isize]).collect();
    let out: Vec<isize> = sa.iter().zip(&sb).map(|(x, y)| (x * y) as isize).collect();
    a.reshape(&ia)?.mul(&b.reshape(&ib)?)?.reshape(&out)
}

/// NumPy's `trace` over the first two axes.
pub fn trace(a: &Array, offset: isize) -> Result<Array> {
    a.trace(offset)
}

/// NumPy's `diag`: a 2-d array with `v` (1-d) on diagonal `k`, or the `k`-th diagonal of a 2-d
/// `v`, copied.
pub fn diag(v: &Array, k: isize) -> Result<Array> {
    match v.ndim() {
        1 => {
            let n = v.shape()[0] + k.unsigned_abs();
            let out = Array::full_on(&v.device_arc(), &[n, n], 0, v.dtype())?;
            out.diagonal(k, 0, 1)?.copy_from(v)?;
            Ok(out)
        }
        2 => v.diagonal(k, 0, 1)?.copy(),
        d => Err(Error::value("diag", format!("Input must be 1- or 2-d, not {d}-d"))),
    }
}

impl Array {
    /// Write `src` (broadcast) into this view.
    fn copy_from(&self, src: &Array) -> Result<()> {
        src.astype_if(self.dtype())?.copy_into(self)
    }
}

// ---- einsum -----------------------------------------------------------------------------------

/// The label of the broadcast axis `k` places from the right of `...`: a character of Unicode's
/// private use area, which no subscript letter can equal (digits would meet the capitals past
/// ten axes).
fn ellipsis_label(k: usize) -> char {
    char::from_u32(0xE000 + k as u32).expect("fewer broadcast axes than the private use area holds")
}

/// An operand's labels after `...` is expanded ([`ellipsis_label`] stands for the broadcast axes).
fn parse_operands(subscripts: &str, ops: &[&Array]) -> Result<(Vec<Vec<char>>, Vec<char>)> {
    let op = "einsum";
    let s: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match s.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (s.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if let Some(t) = terms.iter().copied().chain(rhs.as_deref()).find(|t| t.matches("...").count() > 1) {
        return Err(Error::value(op, format!("subscript term {t:?} holds more than one ellipsis, in {subscripts:?}")));
    }
    if terms.len() != ops.len() {
        return Err(Error::value(op, format!("{} operands for {} subscript terms", ops.len(), terms.len())));
    }
    let mut ell = 0usize;
    let mut labels = Vec::new();
    for (t, a) in terms.iter().zip(ops) {
        let explicit: Vec<char> = t.replace("...", "").chars().collect();
        if let Some(c) = explicit.iter().find(|c| !c.is_ascii_alphabetic()) {
            return Err(Error::value(op, format!("invalid subscript {c:?} in {subscripts:?}")));
        }
        let nd = a.ndim();
        let l = if t.contains("...") {
            if explicit.len() > nd {
                return Err(Error::value(op, format!("term {t:?} has more labels than operand dimensions ({nd})")));
            }
            let e = nd - explicit.len();
            ell = ell.max(e);
            let (pre, post) = t.split_once("...").expect("checked");
            let mut v: Vec<char> = pre.chars().collect();
            // Broadcast axes align from the right: the last is ellipsis_label(0).
            v.extend((0..e).map(|i| ellipsis_label(e - 1 - i)));
            v.extend(post.chars());
            v
        } else {
            if explicit.len() != nd {
                return Err(Error::value(
                    op,
                    format!("term {t:?} has {} labels for an operand of {nd} dimensions", explicit.len()),
                ));
            }
            explicit
        };
        labels.push(l);
    }
    let ell_labels: Vec<char> = (0..ell).rev().map(ellipsis_label).collect();
    let output = match rhs {
        Some(r) => {
            let explicit: Vec<char> = r.replace("...", "").chars().collect();
            if let Some(c) = explicit.iter().find(|c| !c.is_ascii_alphabetic()) {
                return Err(Error::value(op, format!("invalid output subscript {c:?}")));
            }
            for c in &explicit {
                if !labels.iter().any(|l| l.contains(c)) {
                    return Err(Error::value(op, format!("output subscript {c:?} appears in no operand")));
                }
                if explicit.iter().filter(|x| *x == c).count() > 1 {
                    return Err(Error::value(op, format!("output subscript {c:?} appears more than once")));
                }
            }
            match r.split_once("...") {
                Some((pre, post)) => pre.chars().chain(ell_labels.iter().copied()).chain(post.chars()).collect(),
                None => explicit,
            }
        }
        None => {
            // Implicit: broadcast axes, then the labels seen once, in alphabetical order.
            let mut once: Vec<char> = Vec::new();
            for c in labels.iter().flatten().filter(|c| c.is_ascii_alphabetic()) {
                if labels.iter().flatten().filter(|x| *x == c).count() == 1 {
                    once.push(*c);
                }
            }
            once.sort_unstable();
            ell_labels.iter().copied().chain(once).collect()
        }
    };
    Ok((labels, output))
}

/// One operand with distinct labels: repeated labels become diagonals; labels that no other
/// operand nor the output needs are summed out.
fn simplify(a: &Array, labels: &[char], keep: &dyn Fn(char) -> bool) -> Result<(Array, Vec<char>)> {
    let mut a = a.clone();
    let mut l = labels.to_vec();
    // Diagonals of repeated labels.
    while let Some((i, j)) = (0..l.len()).find_map(|i| (i + 1..l.len()).find(|&j| l[j] == l[i]).map(|j| (i, j))) {
        if a.shape()[i] != a.shape()[j] {
            return Err(Error::value(
                "einsum",
                format!("label {:?} has dimensions {} and {}", l[i], a.shape()[i], a.shape()[j]),
            ));
        }
        a = a.diagonal(0, i as isize, j as isize)?;
        let c = l[i];
        l.remove(j);
        l.remove(i);
        l.push(c);
    }
    let drop: Vec<isize> = (0..l.len()).filter(|&d| !keep(l[d])).map(|d| d as isize).collect();
    if !drop.is_empty() {
        a = a.sum_as_self(&drop)?;
        l.retain(|&c| keep(c));
    }
    Ok((a, l))
}

impl Array {
    /// Sum over `axes` keeping the dtype of NumPy's `einsum` (the operands' dtype).
    fn sum_as_self(&self, axes: &[isize]) -> Result<Array> {
        self.sum(Some(axes), false)?.astype_if(self.dtype())
    }
}

/// The product of two labelled operands keeping the labels `keep` says are needed: shared
/// kept labels are batch axes, shared dropped ones contracted, the rest free.
fn contract_pair(
    a: &Array,
    la: &[char],
    b: &Array,
    lb: &[char],
    keep: &dyn Fn(char) -> bool,
) -> Result<(Array, Vec<char>)> {
    let size_of = |c: char| -> Result<usize> {
        let da = la.iter().position(|&x| x == c).map(|i| a.shape()[i]);
        let db = lb.iter().position(|&x| x == c).map(|i| b.shape()[i]);
        match (da, db) {
            (Some(x), Some(y)) if x != y && x != 1 && y != 1 => {
                Err(Error::value("einsum", format!("label {c:?} has dimensions {x} and {y}")))
            }
            (Some(x), Some(y)) => Ok(x.max(y)),
            (Some(x), None) | (None, Some(x)) => Ok(x),
            (None, None) => Ok(1),
        }
    };
    let shared: Vec<char> = la.iter().copied().filter(|c| lb.contains(c)).collect();
    let batch: Vec<char> = shared.iter().copied().filter(|&c| keep(c)).collect();
    let contracted: Vec<char> = shared.iter().copied().filter(|&c| !keep(c)).collect();
    let free_a: Vec<char> = la.iter().copied().filter(|c| !lb.contains(c)).collect();
    let free_b: Vec<char> = lb.iter().copied().filter(|c| !la.contains(c)).collect();
    let prod = |cs: &[char]| -> Result<usize> { cs.iter().map(|&c| size_of(c)).product() };
    let (nb, nm, nk, nn) = (prod(&batch)?, prod(&free_a)?, prod(&contracted)?, prod(&free_b)?);
    let order = |l: &[char], first: &[char], second: &[char], third: &[char]| -> Vec<isize> {
        first
            .iter()
            .chain(second)
            .chain(third)
            .map(|c| l.iter().position(|x| x == c).expect("label") as isize)
            .collect()
    };
    // Broadcast (size-1) axes of one side expand to the other's.
    let sizes =
        |cs: [&[char]; 3]| -> Result<Vec<usize>> { cs.iter().flat_map(|l| l.iter()).map(|&c| size_of(c)).collect() };
    let (full_a, full_b) = (sizes([&batch, &free_a, &contracted])?, sizes([&batch, &contracted, &free_b])?);
    let pa = a.permute(&order(la, &batch, &free_a, &contracted))?;
    let pb = b.permute(&order(lb, &batch, &contracted, &free_b))?;
    let pa = if pa.shape() == full_a.as_slice() { pa } else { pa.broadcast_to(&full_a)? };
    let pb = if pb.shape() == full_b.as_slice() { pb } else { pb.broadcast_to(&full_b)? };
    let am = pa.reshape(&[nb as isize, nm as isize, nk as isize])?;
    let bm = pb.reshape(&[nb as isize, nk as isize, nn as isize])?;
    let r = matmul(&am, &bm)?;
    let shape: Vec<isize> =
        batch.iter().chain(&free_a).chain(&free_b).map(|&c| size_of(c).map(|x| x as isize)).collect::<Result<_>>()?;
    let labels: Vec<char> = batch.iter().chain(&free_a).chain(&free_b).copied().collect();
    Ok((r.reshape(&shape)?, labels))
}

/// NumPy's `einsum` for any subscripts: implicit and explicit output, repeated labels as
/// diagonals, `...`, and sums over dropped labels. Operands are contracted pairwise from the
/// left, each contraction one batched GEMM after transposes (never an elementwise loop over
/// the contracted axes).
pub fn einsum(subscripts: &str, operands: &[&Array]) -> Result<Array> {
    let op = "einsum";
    if operands.is_empty() {
        return Err(Error::value(op, "einsum needs at least one operand"));
    }
    let (labels, output) = parse_operands(subscripts, operands)?;
    let dtype = operands.iter().map(|a| a.dtype()).reduce(promote_types).expect("one operand");
    let counts = |c: char, from: usize| labels[from..].iter().flatten().filter(|&&x| x == c).count();
    let mut sizes: HashMap<char, usize> = HashMap::new();
    for (l, a) in labels.iter().zip(operands) {
        for (c, &s) in l.iter().zip(a.shape()) {
            let e = sizes.entry(*c).or_insert(s);
            if *e != s && *e != 1 && s != 1 {
                return Err(Error::value(op, format!("label {c:?} has dimensions {e} and {s}")));
            }
            *e = (*e).max(s);
        }
    }
    // The first operand, simplified against everything after it.
    let later = |c: char, from: usize| output.contains(&c) || counts(c, from) > 0;
    let (mut acc, mut lacc) = simplify(&operands[0].astype_if(dtype)?, &labels[0], &|c| later(c, 1))?;
    for i in 1..operands.len() {
        let (b, lb) = simplify(&operands[i].astype_if(dtype)?, &labels[i], &|c| later(c, i + 1) || lacc.contains(&c))?;
        // Labels the accumulator carries that only this operand shares and nothing later
        // needs are contracted now.
        let keep = |c: char| later(c, i + 1);
        let (r, lr) = contract_pair(&acc, &lacc, &b, &lb, &keep)?;
        acc = r;
        lacc = lr;
        let (r, lr) = simplify(&acc, &lacc, &|c| later(c, i + 1))?;
        acc = r;
        lacc = lr;
    }
    // Output order; broadcast labels missing from the result were size 1.
    let perm: Vec<isize> = output
        .iter()
        .map(|c| {
            lacc.iter()
                .position(|x| x == c)
                .map(|p| p as isize)
                .ok_or_else(|| Error::value(op, format!("output subscript {c:?} was contracted away")))
        })
        .collect::<Result<_>>()?;
    let r = acc.permute(&perm)?;
    let want: Vec<usize> = output.iter().map(|c| sizes[c]).collect();
    if r.shape() != want.as_slice() {
        return r.broadcast_to(&want)?.copy();
    }
    Ok(r)
}
