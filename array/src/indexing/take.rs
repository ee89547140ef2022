//! The indexing kernels: [`Array::take`], [`Array::put`], boolean masks
//! ([`Array::compress_mask`], and the expansion behind `a[mask] = v`) and [`Array::nonzero`].
//!
//! Indices out of range are `Index` errors, as NumPy (never CuPy's wrap-around): the kernels
//! set a flag that is read back before the result is returned, so a bad index costs a
//! synchronisation but never touches memory outside an array.

use xp_backend_api::{DType, DTypeKind, Error, Result};

use crate::exec::{run_launches, target_of, Bindings};
use crate::layout::{normalize_axis, SliceArg};
use crate::Array;
use xp_kernels::index::{
    plan_compact, plan_compact_tiles, plan_expand, plan_nonzero, plan_put, plan_take, COMPACT_TILE,
};
use xp_kernels::plan::Target;

fn check_index_dtype(op: &str, idx: &Array) -> Result<()> {
    match idx.dtype().kind() {
        DTypeKind::Signed | DTypeKind::Unsigned => Ok(()),
        _ => Err(Error::DType { op: op.into(), reason: format!("indices must be integers, not {}", idx.dtype()) }),
    }
}

fn error_flag(a: &Array) -> Result<Array> {
    Array::full_on(&a.device_arc(), &[], 0, DType::I32)
}

impl Array {
    /// Elements at `indices` (of the flattened array when `axis` is `None`); negative
    /// indices count from the end; an index out of range is an `Index` error.
    pub fn take(&self, indices: &Array, axis: Option<isize>) -> Result<Array> {
        check_index_dtype("take", indices)?;
        let dev = self.device_arc();
        crate::ufunc::common_device("take", &[self, indices])?;
        let idx = super::indices_as_i64(indices)?;
        let (x, ax) = match axis {
            None => (self.ravel()?.ascontiguous()?, 0usize),
            Some(a) => (self.ascontiguous()?, normalize_axis("take", a, self.ndim())?),
        };
        let axis_len = x.shape()[ax];
        let inner: usize = x.shape()[ax + 1..].iter().product();
        let mut shape = x.shape()[..ax].to_vec();
        shape.extend_from_slice(idx.shape());
        shape.extend_from_slice(&x.shape()[ax + 1..]);
        let out = Array::empty_on(&dev, &shape, self.dtype())?;
        let n = out.size();
        if n == 0 {
            return Ok(out);
        }
        if axis_len == 0 {
            return Err(Error::Index { op: "take".into(), reason: "cannot take from an empty axis".into() });
        }
        let err = error_flag(self)?;
        let plan = plan_take(self.itemsize(), n, idx.size(), axis_len, inner, target_of(&dev));
        let bind = Bindings { output: Some(&out), operands: &[&x, &idx, &err], ..Default::default() };
        run_launches(&dev, &[plan], bind)?;
        if err.item::<i32>()? != 0 {
            return Err(Error::Index {
                op: "take".into(),
                reason: format!("an index is out of bounds for axis {ax} with size {axis_len}"),
            });
        }
        Ok(out)
    }

    /// `a.flat[indices] = values` (values repeat when shorter), on a C-contiguous array. Where
    /// indices repeat, the last value (in index order) is stored, as NumPy's `a[i] = v`, on
    /// every backend.
    pub fn put(&self, indices: &Array, values: &Array) -> Result<()> {
        check_index_dtype("put", indices)?;
        let dev = self.device_arc();
        crate::ufunc::common_device("put", &[self, indices, values])?;
        if !self.is_contiguous() {
            return Err(Error::value("put", "the target must be C-contiguous (put writes its flat elements)"));
        }
        let idx = super::indices_as_i64(indices)?;
        if idx.size() == 0 {
            return Ok(());
        }
        if values.size() == 0 {
            return Err(Error::value("put", "no values to put"));
        }
        if self.size() == 0 {
            return Err(Error::Index { op: "put".into(), reason: "cannot replace elements of an empty array".into() });
        }
        // Every index is checked before anything is written, so a bad one changes nothing.
        let (lo, hi) = (idx.min(None, false)?.item::<i64>()?, idx.max(None, false)?.item::<i64>()?);
        let len = self.size() as i64;
        if lo < -len || hi >= len {
            let bad = match (lo < -len, indices.dtype()) {
                (true, _) => i128::from(lo),
                // `indices_as_i64` held uint64 indices beyond int64 at int64's maximum.
                (false, DType::U64) => i128::from(indices.max(None, false)?.item::<u64>()?),
                (false, _) => i128::from(hi),
            };
            return Err(Error::Index {
                op: "put".into(),
                reason: format!("index {bad} is out of bounds for size {len}"),
            });
        }
        let v = if values.dtype() == self.dtype() {
            values.ravel()?.ascontiguous()?
        } else {
            values.ravel()?.astype(self.dtype())?
        };
        // Two passes make the last write win where indices repeat, as NumPy, whatever order
        // threads run in: each index claims its target in a hash table (the largest index
        // claiming a target wins), then only the winners write. No sort, and O(indices) memory.
        let err = error_flag(self)?;
        let plan = plan_put(self.itemsize(), idx.size(), v.size(), self.size(), target_of(&dev));
        let table = Array::full_on(&dev, &[plan.table_words], 0, DType::U64)?;
        run_launches(
            &dev,
            &plan.launches,
            Bindings { operands: &[self, &idx, &v, &table, &err], ..Default::default() },
        )?;
        if err.item::<i32>()? != 0 {
            return Err(Error::Index {
                op: "put".into(),
                reason: format!("an index is out of bounds for size {}", self.size()),
            });
        }
        Ok(())
    }
}

impl Array {
    /// `x[mask]`: the elements where `mask` (a bool array of `x`'s shape) is true, in C
    /// order, as a 1-d array.
    pub fn compress_mask(&self, mask: &Array) -> Result<Array> {
        let dev = crate::ufunc::common_device("compress_mask", &[self, mask])?;
        if mask.dtype() != DType::Bool {
            return Err(Error::Index {
                op: "compress_mask".into(),
                reason: format!("a boolean mask is needed, not {}", mask.dtype()),
            });
        }
        if mask.shape() != self.shape() {
            return Err(Error::Index {
                op: "compress_mask".into(),
                reason: format!("the mask's shape {:?} does not match the array's {:?}", mask.shape(), self.shape()),
            });
        }
        let m = mask.ravel()?.ascontiguous()?;
        let x = self.ravel()?.ascontiguous()?;
        let n = x.size();
        if n == 0 {
            return Array::empty_on(&dev, &[0], self.dtype());
        }
        let target = target_of(&dev);
        if let Target::Gpu { .. } = target {
            // GPUs: per-tile counts, their scan, then each tile places its own elements.
            let (count_launch, tiles_launch) = plan_compact_tiles(self.itemsize(), n);
            let counts = Array::empty_on(&dev, &[n.div_ceil(COMPACT_TILE)], DType::U32)?;
            run_launches(&dev, &[count_launch], Bindings { operands: &[&m, &counts], ..Default::default() })?;
            let incl = counts.cumsum(None)?;
            let count = incl.slice(&[SliceArg::Index(-1)])?.item::<u64>()? as usize;
            let out = Array::empty_on(&dev, &[count], self.dtype())?;
            if count > 0 {
                let operands = [&x, &m, &counts, &incl];
                run_launches(
                    &dev,
                    &[tiles_launch],
                    Bindings { output: Some(&out), operands: &operands, ..Default::default() },
                )?;
            }
            return Ok(out);
        }
        let pos = m.cumsum(None)?;
        let count = pos.slice(&[SliceArg::Index(-1)])?.item::<i64>()? as usize;
        let out = Array::empty_on(&dev, &[count], self.dtype())?;
        if count == 0 {
            return Ok(out);
        }
        let plan = plan_compact(self.itemsize(), n, target_of(&dev));
        run_launches(&dev, &[plan], Bindings { output: Some(&out), operands: &[&x, &m, &pos], ..Default::default() })?;
        Ok(out)
    }

    /// `x[mask] = values` in place for a C-contiguous `x` and a bool `mask` of its shape:
    /// `values` holds one value or one per set element (C order), already of `x`'s dtype.
    pub(crate) fn expand_mask(&self, mask: &Array, values: &Array) -> Result<()> {
        let dev = crate::ufunc::common_device("setitem", &[self, mask, values])?;
        let n = self.size();
        let m = mask.ravel()?.ascontiguous()?;
        let pos = m.cumsum(None)?;
        let count = if n == 0 { 0 } else { pos.slice(&[SliceArg::Index(-1)])?.item::<i64>()? as usize };
        let nv = values.size();
        if nv != 1 && nv != count {
            return Err(Error::value(
                "setitem",
                format!("NumPy boolean array indexing assignment cannot assign {nv} input values to the {count} output values where the mask is true"),
            ));
        }
        if count == 0 {
            return Ok(());
        }
        let v = values.ravel()?.ascontiguous()?;
        let plan = plan_expand(self.itemsize(), n, nv, target_of(&dev));
        run_launches(&dev, &[plan], Bindings { operands: &[self, &m, &pos, &v], ..Default::default() })
    }

    /// Indices of the non-zero elements: one int64 array per dimension (C order).
    pub fn nonzero(&self) -> Result<Vec<Array>> {
        let dev = self.device_arc();
        let m = if self.dtype() == DType::Bool { self.ascontiguous()? } else { self.astype(DType::Bool)? };
        let n = m.size();
        let nd = m.ndim().max(1);
        let count = if n == 0 {
            0
        } else {
            let pos = m.ravel()?.cumsum(None)?;
            let count = pos.slice(&[SliceArg::Index(-1)])?.item::<i64>()? as usize;
            if count > 0 {
                let out = Array::empty_on(&dev, &[nd, count], DType::I64)?;
                let plan = plan_nonzero(m.shape(), count, target_of(&dev));
                run_launches(
                    &dev,
                    &[plan],
                    Bindings { output: Some(&out), operands: &[&m, &pos], ..Default::default() },
                )?;
                return (0..nd).map(|d| out.slice(&[SliceArg::Index(d as isize)])).collect();
            }
            0
        };
        (0..nd).map(|_| Array::empty_on(&dev, &[count], DType::I64)).collect()
    }
}
