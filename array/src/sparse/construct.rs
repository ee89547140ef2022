//! Building sparse matrices from others, as `scipy.sparse`'s constructors: [`kron`],
//! [`hstack`], [`vstack`], [`block_diag`], [`tril`] and [`triu`].
//!
//! Each works on the coordinates of its operands on their device: the entries of every block
//! are shifted by the block's offsets, concatenated and sorted into CSR form by the radix sort
//! of `tocsr`. `kron` writes its CSR rows directly, one entry per pair of stored entries, a
//! group of lanes per row (see `gather.rs`), without a sort. Stored zeros are kept, as SciPy keeps them. The value dtype is the promotion of the
//! operands' (NumPy's rules, as SciPy's): integer and bool matrices stay integer and bool,
//! `hstack` of int32 and float32 blocks is float64.

use xp_backend_api::{DType, Error, Result};

use super::{common_device, contig, from_coords, index_dtype_for, product_dtype, value_dtype, CsrMatrix};
use crate::layout::SliceArg;
use crate::Array;

/// The common value dtype of `blocks`.
fn common_dtype(op: &str, blocks: &[&CsrMatrix]) -> Result<DType> {
    value_dtype(op, blocks.iter().skip(1).fold(blocks[0].dtype(), |a, b| product_dtype(a, b.dtype())))
}

fn nonempty(op: &str, blocks: &[&CsrMatrix]) -> Result<()> {
    if blocks.is_empty() {
        return Err(Error::value(op, "blocks must not be empty"));
    }
    let data: Vec<&Array> = blocks.iter().map(|b| &b.data).collect();
    common_device(op, &data)?;
    Ok(())
}

/// The entries of `blocks`, each shifted by its `(row, col)` offset, as one CSR matrix of
/// `shape`.
fn place(op: &str, blocks: &[&CsrMatrix], offsets: &[(usize, usize)], shape: (usize, usize)) -> Result<CsrMatrix> {
    let t = common_dtype(op, blocks)?;
    let (mut rows, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
    for (b, &(r0, c0)) in blocks.iter().zip(offsets) {
        let coo = b.tocoo()?;
        rows.push(coo.row.add_scalar(r0 as i64)?);
        cols.push(coo.col.add_scalar(c0 as i64)?);
        vals.push(coo.data.astype(t)?);
    }
    let cat = |v: &[Array]| crate::concatenate(&v.iter().collect::<Vec<_>>(), 0);
    from_coords(&cat(&rows)?, &cat(&cols)?, &cat(&vals)?, shape, false)
}

/// `scipy.sparse.kron(a, b)`: the Kronecker product, of shape `(ma mb, na nb)`, one entry per
/// pair of stored entries.
pub fn kron(a: &CsrMatrix, b: &CsrMatrix) -> Result<CsrMatrix> {
    let op = "kron";
    nonempty(op, &[a, b])?;
    let ((ma, na), (mb, nb)) = (a.shape, b.shape);
    let too_big = || Error::Overflow {
        op: op.into(),
        reason: format!("the product of shapes ({ma}, {na}) and ({mb}, {nb}) is too large"),
    };
    let shape = (ma.checked_mul(mb).ok_or_else(too_big)?, na.checked_mul(nb).ok_or_else(too_big)?);
    let t = common_dtype(op, &[a, b])?;
    let (m, n) = shape;
    let total = a.nnz().checked_mul(b.nnz()).ok_or_else(too_big)?;
    let idx = index_dtype_for(m.max(n).max(total));
    let dev = a.device_arc();
    // Row lengths of the product: the outer product of the two matrices' row lengths.
    let lengths = |x: &CsrMatrix| -> Result<Array> {
        let p = x.indptr.astype(DType::I64)?;
        let k = x.shape.0 as isize;
        p.slice(&[SliceArg::range(1, k + 1, 1)])?.sub(&p.slice(&[SliceArg::range(0, k, 1)])?)
    };
    let counts = lengths(a)?.reshape(&[ma as isize, 1])?.mul(&lengths(b)?.reshape(&[1, mb as isize])?)?;
    let zero = Array::full_on(&dev, &[1], 0, DType::I64)?;
    let optr = contig(&crate::concatenate(&[&zero, &counts.reshape(&[m as isize])?.cumsum(Some(0))?], 0)?, idx)?;
    let od = Array::empty_on(&dev, &[total], t)?;
    let oi = Array::empty_on(&dev, &[total], idx)?;
    let parts = |x: &CsrMatrix| -> Result<(Array, Array, Array)> {
        Ok((contig(&x.data, t)?, contig(&x.indices, idx)?, contig(&x.indptr, idx)?))
    };
    let (pa, pb) = (parts(a)?, parts(b)?);
    super::gather::kron_rows((&pa.0, &pa.1, &pa.2), (&pb.0, &pb.1, &pb.2), &optr, &od, &oi, (m, mb, nb), total)?;
    // Columns are sorted when both operands' rows are sorted and hold no duplicates, which
    // is not known here: the answer is not marked sorted.
    Ok(CsrMatrix { data: od, indices: oi, indptr: optr, shape, sorted: false })
}

/// `scipy.sparse.hstack(blocks)`: side by side; every block must have the same rows.
pub fn hstack(blocks: &[&CsrMatrix]) -> Result<CsrMatrix> {
    let op = "hstack";
    nonempty(op, blocks)?;
    let m = blocks[0].shape.0;
    let mut offsets = Vec::with_capacity(blocks.len());
    let mut n = 0;
    for (j, b) in blocks.iter().enumerate() {
        if b.shape.0 != m {
            return Err(Error::value(
                op,
                format!(
                    "blocks[0,:] has incompatible row dimensions. Got blocks[0,{j}].shape[0] == {}, expected {m}.",
                    b.shape.0
                ),
            ));
        }
        offsets.push((0, n));
        n += b.shape.1;
    }
    place(op, blocks, &offsets, (m, n))
}

/// `scipy.sparse.vstack(blocks)`: one above the other; every block must have the same columns.
pub fn vstack(blocks: &[&CsrMatrix]) -> Result<CsrMatrix> {
    let op = "vstack";
    nonempty(op, blocks)?;
    let n = blocks[0].shape.1;
    let mut offsets = Vec::with_capacity(blocks.len());
    let mut m = 0;
    for (i, b) in blocks.iter().enumerate() {
        if b.shape.1 != n {
            return Err(Error::value(
                op,
                format!(
                    "blocks[:,0] has incompatible column dimensions. Got blocks[{i},0].shape[1] == {}, expected {n}.",
                    b.shape.1
                ),
            ));
        }
        offsets.push((m, 0));
        m += b.shape.0;
    }
    place(op, blocks, &offsets, (m, n))
}

/// `scipy.sparse.block_diag(mats)`: the blocks along the diagonal, zeros elsewhere.
pub fn block_diag(mats: &[&CsrMatrix]) -> Result<CsrMatrix> {
    let op = "block_diag";
    nonempty(op, mats)?;
    let mut offsets = Vec::with_capacity(mats.len());
    let (mut m, mut n) = (0, 0);
    for b in mats {
        offsets.push((m, n));
        m += b.shape.0;
        n += b.shape.1;
    }
    place(op, mats, &offsets, (m, n))
}

/// The entries of `a` whose `col - row` passes `keep`.
fn band(a: &CsrMatrix, keep: impl Fn(&Array) -> Result<Array>) -> Result<CsrMatrix> {
    let coo = a.tocoo()?;
    let mask = keep(&coo.col.sub(&coo.row)?)?;
    let rows = coo.row.compress_mask(&mask)?;
    let cols = coo.col.compress_mask(&mask)?;
    let vals = coo.data.compress_mask(&mask)?;
    from_coords(&rows, &cols, &vals, a.shape, false)
}

/// `scipy.sparse.tril(a, k)`: the entries on and below the `k`-th diagonal (`col - row <= k`).
pub fn tril(a: &CsrMatrix, k: isize) -> Result<CsrMatrix> {
    band(a, |d| d.le(k as i64))
}

/// `scipy.sparse.triu(a, k)`: the entries on and above the `k`-th diagonal (`col - row >= k`).
pub fn triu(a: &CsrMatrix, k: isize) -> Result<CsrMatrix> {
    band(a, |d| d.ge(k as i64))
}
