//! Building sparse matrices from others, as `scipy.sparse`'s constructors: [`kron`],
//! [`hstack`], [`vstack`], [`block_diag`], [`tril`] and [`triu`].
//!
//! Each works on the coordinates of its operands on their device: the entries of every block
//! are shifted by the block's offsets (or, for `kron`, multiplied out by broadcasting, one entry
//! per pair of stored entries), concatenated and sorted into CSR form by the radix sort of
//! `tocsr`. Stored zeros are kept, as SciPy keeps them. The value dtype is the promotion of the
//! operands' (NumPy's rules, as SciPy's): integer and bool matrices stay integer and bool,
//! `hstack` of int32 and float32 blocks is float64.

use xp_backend_api::{DType, Error, Result};

use super::{common_device, from_coords, product_dtype, value_dtype, CsrMatrix};
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
    let shape = (ma * mb, na * nb);
    let t = common_dtype(op, &[a, b])?;
    let (ca, cb) = (a.tocoo()?, b.tocoo()?);
    let (ka, kb) = (ca.data.size(), cb.data.size());
    let col = |x: &Array| x.reshape(&[x.size() as isize, 1]);
    let row = |x: &Array| x.reshape(&[1, x.size() as isize]);
    let flat = |x: Array| x.reshape(&[(ka * kb) as isize]);
    let rows = flat(col(&ca.row.mul_scalar(mb as i64)?)?.add(&row(&cb.row)?)?)?;
    let cols = flat(col(&ca.col.mul_scalar(nb as i64)?)?.add(&row(&cb.col)?)?)?;
    let vals = flat(col(&ca.data.astype(t)?)?.mul(&row(&cb.data.astype(t)?)?)?)?;
    from_coords(&rows, &cols, &vals, shape, false)
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
