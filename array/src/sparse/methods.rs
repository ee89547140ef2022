//! Indexing and reductions of CSR (and CSC) matrices, as SciPy's `csr_array` methods:
//! row slices and fancy rows (`A[start:stop:step]`, `A[rows]`), fancy columns (`A[:, cols]`,
//! repeats and negative indices allowed), and `max`, `min`, `argmax`, `argmin`, `mean` along
//! an axis or over every element.
//!
//! **Semantics.** These follow `csr_array`: a reduction along an axis is 1-d (`max(Some(0))`
//! has one element per column), over every element 0-d. The implicit zeros take part as SciPy
//! counts them: a row with fewer stored entries than columns has a zero in it, so its `max` is
//! at least zero and its `argmax` is the first unstored column when no stored value is larger
//! than zero. `argmax`/`argmin` are int64; along no axis they are the flat (row-major) index.
//! `max`/`min` keep the value dtype (integers and bool included, as SciPy's). `mean` is
//! float64 for integer and bool data (summed in float64, as SciPy's), else the value dtype.
//! `max`, `min` and the arg forms of complex matrices are a `DType` error (SciPy orders
//! complex values, CuPy refuses them; xp follows CuPy).
//!
//! **How it runs.** A row gather is one user elementwise kernel with a thread per output row
//! copying its entries (offsets by an exclusive scan of the row lengths); columns are gathered
//! as rows of the transpose. Reductions are a kernel with a thread per row (per column, on the
//! transpose) walking the row's sorted entries; over every element, the row results are
//! reduced once more with xp's reductions. Every pass runs on the matrix's device.

use std::sync::OnceLock;

use xp_backend_api::{DType, Error, Result};

use super::{common_device, contig, CsrMatrix};
use crate::layout::SliceArg;
use crate::user::ElementwiseKernel;
use crate::{Array, Operand};

fn kernel(
    cell: &'static OnceLock<ElementwiseKernel>,
    ins: &str,
    outs: &str,
    op: &str,
    name: &str,
) -> Result<&'static ElementwiseKernel> {
    crate::user::cached_kernel(cell, ins, outs, op, name, "")
}

const EXTREME: &str = r#"
const long long s = (long long)ptr[r], e = (long long)ptr[r + 1];
long long bq = -1;
for (long long q = s; q < e; ++q) {
    if (bq < 0 || (mx ? data[q] > data[bq] : data[q] < data[bq])) bq = q;
}
const T zero = (T)0;
if (bq >= 0 && (e - s == ncol || (mx ? data[bq] > zero : data[bq] < zero))) {
    val = data[bq];
    arg = (long long)ind[bq];
} else {
    long long c = 0;
    for (long long q = s; q < e; ++q) { if ((long long)ind[q] != c) break; ++c; }
    val = zero;
    arg = (bq >= 0 && data[bq] == zero && (long long)ind[bq] < c) ? (long long)ind[bq] : c;
}
"#;

/// Python's `range(*slice(start, stop, step).indices(len))` as `(first, step, count)`.
pub(super) fn slice_indices(
    op: &str,
    len: usize,
    start: Option<isize>,
    stop: Option<isize>,
    step: Option<isize>,
) -> Result<(i64, i64, usize)> {
    let step = step.unwrap_or(1) as i64;
    if step == 0 {
        return Err(Error::value(op, "slice step cannot be zero"));
    }
    let len = len as i64;
    let clamp = |v: isize, lo: i64, hi: i64| {
        let v = v as i64;
        let v = if v < 0 { v + len } else { v };
        v.clamp(lo, hi)
    };
    let (first, last) = if step > 0 {
        (start.map_or(0, |v| clamp(v, 0, len)), stop.map_or(len, |v| clamp(v, 0, len)))
    } else {
        (start.map_or(len - 1, |v| clamp(v, -1, len - 1)), stop.map_or(-1, |v| clamp(v, -1, len - 1)))
    };
    let count = if step > 0 {
        if last > first {
            (last - first + step - 1) / step
        } else {
            0
        }
    } else if first > last {
        (first - last + (-step) - 1) / (-step)
    } else {
        0
    };
    Ok((first, step, count as usize))
}

/// `idx` (integers, negative ones counting from the end) as int64 within `0..len`, or an
/// `Index` error naming the first one out of range.
fn normalize_indices(op: &str, idx: &Array, len: usize, what: &str) -> Result<Array> {
    let idx = super::index_array(op, what, idx)?;
    if idx.size() == 0 {
        return Ok(idx);
    }
    let fixed = crate::where_(&idx.lt(0i64)?, Operand::Array(&idx.add_scalar(len as i64)?), Operand::Array(&idx))?;
    let (lo, hi) = super::min_max(&fixed)?;
    if lo < 0 || hi >= len as i64 {
        let bad = if lo < 0 { lo - len as i64 } else { hi };
        return Err(Error::Index {
            op: op.into(),
            reason: format!("index ({bad}) out of range for {what} of length {len}"),
        });
    }
    Ok(fixed)
}

impl CsrMatrix {
    /// The rows `rows` (int64, in range, any order, repeats allowed), in that order.
    fn gather_rows(&self, rows: &Array) -> Result<CsrMatrix> {
        let dev = self.device_arc();
        let idx = self.indices.dtype();
        let ptr64 = self.indptr.astype(DType::I64)?;
        let k = rows.size();
        let counts = ptr64.take(&rows.add_scalar(1i64)?, None)?.sub(&ptr64.take(rows, None)?)?;
        let ends = counts.cumsum(Some(0))?;
        let total =
            if k == 0 { 0 } else { ends.slice(&[SliceArg::range(k as isize - 1, k as isize, 1)])?.item::<i64>()? };
        let zero = Array::full_on(&dev, &[1], 0, DType::I64)?;
        let indptr = crate::concatenate(&[&zero, &ends], 0)?;
        let starts = ends.sub(&counts)?;
        let od = Array::empty_on(&dev, &[total as usize], self.dtype())?;
        let oi = Array::empty_on(&dev, &[total as usize], idx)?;
        let rows = contig(rows, DType::I64)?;
        let starts = contig(&starts, DType::I64)?;
        super::gather::gather_rows(&rows, &starts, &self.data, &self.indices, &self.indptr, &od, &oi, total as usize)?;
        Ok(CsrMatrix {
            data: od,
            indices: oi,
            indptr: contig(&indptr, idx)?,
            shape: (k, self.shape.1),
            sorted: self.sorted,
        })
    }

    /// SciPy's `A[start:stop:step]`: a slice of the rows, with Python's slice rules (negative
    /// bounds count from the end, a negative step walks backwards, a zero step is an error).
    pub fn slice_rows(&self, start: Option<isize>, stop: Option<isize>, step: Option<isize>) -> Result<CsrMatrix> {
        let (first, step, count) = slice_indices("csr_matrix.slice_rows", self.shape.0, start, stop, step)?;
        let dev = self.device_arc();
        let rows = crate::with_device(&dev, || {
            crate::arange(0i64, count as i64, 1i64, Some(DType::I64))?.mul_scalar(step)?.add_scalar(first)
        })?;
        self.gather_rows(&rows)
    }

    /// SciPy's `A[rows]` for an integer array: those rows in that order (repeats allowed,
    /// negative indices count from the end; out of range is an `Index` error).
    pub fn take_rows(&self, rows: &Array) -> Result<CsrMatrix> {
        let op = "csr_matrix.take_rows";
        common_device(op, &[&self.data, rows])?;
        let rows = normalize_indices(op, rows, self.shape.0, "rows")?;
        self.gather_rows(&rows)
    }

    /// SciPy's `A[:, cols]` for an integer array: those columns in that order (repeats
    /// allowed, negative indices count from the end; out of range is an `Index` error). The
    /// columns are gathered as rows of the transpose.
    pub fn take_cols(&self, cols: &Array) -> Result<CsrMatrix> {
        let op = "csr_matrix.take_cols";
        common_device(op, &[&self.data, cols])?;
        let cols = normalize_indices(op, cols, self.shape.1, "columns")?;
        let t = self.tocsc()?.t;
        let picked = t.gather_rows(&cols)?;
        picked.tocsc()?.transpose().tocsr()
    }

    /// The extreme of every row (`mx`: largest, else smallest) and its column, implicit zeros
    /// included (see the module docs). `self` must be canonical.
    fn row_extremes(&self, op: &str, mx: bool) -> Result<(Array, Array)> {
        static K: OnceLock<ElementwiseKernel> = OnceLock::new();
        if self.dtype().is_complex() {
            return Err(Error::DType { op: op.into(), reason: format!("not defined for {} matrices", self.dtype()) });
        }
        let kern = kernel(
            &K,
            "int64 r, raw T data, raw I ind, raw I ptr, int64 ncol, bool mx",
            "T val, int64 arg",
            EXTREME,
            "xp_sparse_row_extremes",
        )?;
        let dev = self.device_arc();
        let m = self.shape.0;
        let rows = crate::with_device(&dev, || crate::arange(0i64, m as i64, 1i64, Some(DType::I64)))?;
        let val = Array::empty_on(&dev, &[m], self.dtype())?;
        let arg = Array::empty_on(&dev, &[m], DType::I64)?;
        if m > 0 {
            kern.call_all(&[
                Operand::Array(&rows),
                Operand::Array(&self.data),
                Operand::Array(&self.indices),
                Operand::Array(&self.indptr),
                Operand::Scalar((self.shape.1 as i64).into()),
                Operand::Scalar(mx.into()),
                Operand::Array(&val),
                Operand::Array(&arg),
            ])?;
        }
        Ok((val, arg))
    }

    /// The canonical form: duplicates summed, columns sorted.
    pub(super) fn canonical(&self) -> Result<CsrMatrix> {
        let mut c = self.clone();
        c.sum_duplicates()?;
        Ok(c)
    }

    /// `max`/`min`/`argmax`/`argmin` along `axis` (`arg`: the index, else the value).
    fn extreme(&self, op: &str, axis: Option<isize>, mx: bool, arg: bool) -> Result<Array> {
        let (m, n) = self.shape;
        let axis = match axis {
            None => None,
            Some(0) | Some(-2) => Some(0),
            Some(1) | Some(-1) => Some(1),
            Some(a) => {
                return Err(Error::Axis { op: op.into(), reason: format!("axis {a} out of range for a 2-d matrix") })
            }
        };
        let empty = match axis {
            None => m == 0 || n == 0,
            Some(0) => m == 0,
            _ => n == 0,
        };
        if empty {
            return Err(Error::value(op, "zero-size array to reduction operation, which has no identity"));
        }
        let c = self.canonical()?;
        match axis {
            Some(1) => {
                let (v, a) = c.row_extremes(op, mx)?;
                Ok(if arg { a } else { v })
            }
            Some(_) => {
                let (v, a) = c.tocsc()?.t.row_extremes(op, mx)?;
                Ok(if arg { a } else { v })
            }
            None => {
                let (v, a) = c.row_extremes(op, mx)?;
                let best = if mx { v.max(None, false)? } else { v.min(None, false)? };
                if !arg {
                    return Ok(best);
                }
                let r = v.eq(&best)?.argmax(None)?;
                let col = a.take(&r.reshape(&[1])?, None)?.reshape(&[])?;
                r.mul_scalar(n as i64)?.add(&col)
            }
        }
    }

    /// SciPy's `max(axis)`: the largest element of each column (`Some(0)`), row (`Some(1)`)
    /// or of the matrix (`None`), implicit zeros included.
    pub fn max(&self, axis: Option<isize>) -> Result<Array> {
        self.extreme("csr_matrix.max", axis, true, false)
    }
    /// SciPy's `min(axis)` (see [`CsrMatrix::max`]).
    pub fn min(&self, axis: Option<isize>) -> Result<Array> {
        self.extreme("csr_matrix.min", axis, false, false)
    }
    /// SciPy's `argmax(axis)`: int64 indices of the first largest element along `axis` (the
    /// flat index for `None`), implicit zeros included.
    pub fn argmax(&self, axis: Option<isize>) -> Result<Array> {
        self.extreme("csr_matrix.argmax", axis, true, true)
    }
    /// SciPy's `argmin(axis)` (see [`CsrMatrix::argmax`]).
    pub fn argmin(&self, axis: Option<isize>) -> Result<Array> {
        self.extreme("csr_matrix.argmin", axis, false, true)
    }

    /// SciPy's `mean(axis)`: the mean of each column (`Some(0)`, 1-d), row (`Some(1)`) or of
    /// every element (`None`, 0-d), implicit zeros included.
    pub fn mean(&self, axis: Option<isize>) -> Result<Array> {
        let ft = super::float_dtype(self.dtype());
        if ft != self.dtype() {
            return CsrMatrix { data: contig(&self.data, ft)?, ..self.clone() }.mean(axis);
        }
        let (m, n) = self.shape;
        let (s, count) = match axis {
            None => (self.sum(None)?, m * n),
            Some(0) | Some(-2) => (self.sum(Some(0))?.reshape(&[n as isize])?, m),
            Some(1) | Some(-1) => (self.sum(Some(1))?.reshape(&[m as isize])?, n),
            Some(a) => {
                return Err(Error::Axis {
                    op: "csr_matrix.mean".into(),
                    reason: format!("axis {a} out of range for a 2-d matrix"),
                })
            }
        };
        s.div(count as f64)
    }
}
