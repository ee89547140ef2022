//! Sparse matrices, as `scipy.sparse` / `cupyx.scipy.sparse`: [`CooMatrix`], [`CsrMatrix`] and
//! [`CscMatrix`], their conversions, products with dense vectors and matrices and with each
//! other, sums, elementwise products, and the constructors `eye`, `identity`, `diags` and
//! `random`.
//!
//! **Storage.** A matrix keeps its arrays on one device: CSR as `data`, `indices` (columns)
//! and `indptr` (`m + 1` row offsets); CSC as the CSR of its transpose; COO as `data`, `row`
//! and `col`.
//!
//! **Value dtypes.** A matrix keeps the dtype of its data when SciPy does: bool, every signed
//! and unsigned integer, float32, float64, complex64 and complex128. float16 and bfloat16 are
//! a `DType` error naming the op (SciPy stores float16 but refuses it in nearly every
//! operation). The dtype of each operation's result is SciPy's:
//! - constructors, conversions, indexing, `kron`, `hstack`, `vstack`, `block_diag`, `tril`,
//!   `triu`, `transpose`, `max`/`min` keep the dtype; blocks of several dtypes promote;
//! - products and sums with a dense array or another matrix (`dot`, `add`, `sub`, `multiply`)
//!   promote by NumPy's rules, float16 operands counting as float32 (`int8 @ float32` is
//!   float32, `int32 @ float32` float64); integer arithmetic wraps, bool sums are a logical
//!   or, bool products a logical and, and the difference of bool matrices is their exclusive
//!   or; `mul_scalar` follows NumPy's rules for a Python scalar (`int8 * 2` stays int8);
//! - `sum` is int64 for bool and signed integers, uint64 for unsigned ones; `mean` and
//!   `linalg.norm` are float64 for them; the solvers (`spsolve`, the Krylov solvers,
//!   eigensolvers) work in float64 for integer matrices;
//! - `diags` without a dtype takes NumPy's `common_type` (integers give float64; bool needs a
//!   dtype), as SciPy's.
//!
//! **Indices** are int32 when every index and offset fits, else int64, as SciPy chooses; a
//! CSR given by its arrays keeps their integer type (int32 or int64; other integers become
//! int64).
//!
//! **How it runs.** Every operation is xp's own kernels (`xp_kernels::sparse`) and array
//! primitives, so it runs on the CPU, CUDA and HIP alike:
//! - `A @ x` gives each row to a group of lanes of a warp sized by the mean row length, which
//!   add their sums with shuffles; `A @ X` a thread per output element; `A.T @ x` (and a CSC
//!   matrix's products) adds into its result with atomics, without forming the transpose,
//!   for floating values; integer and bool values (which GPUs do not all add atomically)
//!   form the transpose and take the row-wise product.
//! - COO to CSR (`tocsr`, `sum_duplicates`, `sort_indices`, `tocsc`, sums of matrices) is a
//!   stable radix sort of the keys `row * n + col` (32-bit when they fit), a sum of each run of
//!   equal keys in order, and a binary search of the row offsets: no host round trip but the
//!   number of distinct entries.
//! - `A @ B` of two sparse matrices expands every product (a count and an exclusive scan of
//!   their number per row, then one thread per row writing them) and sorts and sums them as
//!   above; explicit zeros are dropped, as SciPy's product drops them.
//!
//! **More.** [`construct`] builds matrices from others (`kron`, `hstack`, `vstack`,
//! `block_diag`, `tril`, `triu`); `methods` adds indexing (`slice_rows`, `take_rows`,
//! `take_cols`) and the reductions `max`, `min`, `argmax`, `argmin`, `mean`; [`linalg`] is
//! `scipy.sparse.linalg` and [`csgraph`] is `scipy.sparse.csgraph`. [`CsrArray`],
//! [`CscArray`] and [`CooArray`] are SciPy's sparse arrays (NumPy's `*` and axis reductions)
//! over the same storage.
//!
//! **Checks.** The constructors check what SciPy's `check_format` checks: lengths, the first
//! and last offsets, offsets that never decrease, and indices within the shape (a few
//! reductions, each read on the host). Bad input is an error naming the op, the shapes and the
//! dtypes.

use std::sync::Arc;

pub mod construct;
pub mod csgraph;
mod expm_multiply;
mod factor;
mod gather;
mod host_cg;
mod host_lu;
pub mod linalg;
mod lobpcg;
mod methods;
mod sparray;

pub use construct::{block_diag, hstack, kron, tril, triu, vstack};
pub use gather::raw_kernels;
pub use sparray::{coo_array, csc_array, csr_array, CooArray, CscArray, CsrArray};

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, Result};
use xp_kernels::plan::{plan_flat, PlanArg, PlannedLaunch};
use xp_kernels::render::{IndexWidth, Rendered};
use xp_kernels::sparse as ks;

use crate::exec::{run_launches, target_of, Bindings};
use crate::layout::SliceArg;
use crate::Array;

/// `dt` when sparse matrices can hold it (SciPy's value dtypes: bool, the integers, float32,
/// float64, complex64, complex128), else a `DType` error naming `op`.
fn value_dtype(op: &str, dt: DType) -> Result<DType> {
    if ks::VALUE_DTYPES.contains(&dt) {
        Ok(dt)
    } else {
        Err(Error::DType {
            op: op.into(),
            reason: format!(
                "sparse matrices do not support dtype {dt}; the supported value dtypes are bool, \
                 int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64, \
                 complex64 and complex128"
            ),
        })
    }
}

/// The dtype of a product or sum of values of dtypes `a` and `b`: NumPy's promotion, with
/// float16 raised to float32 (SciPy's `upcast`).
fn product_dtype(a: DType, b: DType) -> DType {
    match crate::promote_types(a, b) {
        DType::F16 | DType::BF16 => DType::F32,
        t => t,
    }
}

/// The dtype SciPy sums values of `dt` in (`get_sum_dtype`): bool and signed integers in
/// int64, unsigned integers in uint64, floats and complex in their own dtype.
fn sum_dtype(dt: DType) -> DType {
    match dt.kind() {
        DTypeKind::Bool | DTypeKind::Signed => DType::I64,
        DTypeKind::Unsigned => DType::U64,
        _ => dt,
    }
}

/// The floating dtype of computations that need one (solvers, means, norms): bool and
/// integers become float64, as SciPy's `upcast` to `'fdFD'`.
pub(crate) fn float_dtype(dt: DType) -> DType {
    match dt.kind() {
        DTypeKind::Bool | DTypeKind::Signed | DTypeKind::Unsigned => DType::F64,
        _ => product_dtype(dt, dt),
    }
}

fn width(dt: DType) -> IndexWidth {
    if dt == DType::I32 {
        IndexWidth::I32
    } else {
        IndexWidth::I64
    }
}

/// SciPy's choice of index dtype: int32 when every value up to `max` fits.
fn index_dtype_for(max: usize) -> DType {
    if max <= i32::MAX as usize {
        DType::I32
    } else {
        DType::I64
    }
}

fn shape_str(s: (usize, usize)) -> String {
    format!("({}, {})", s.0, s.1)
}

fn contig(a: &Array, dtype: DType) -> Result<Array> {
    if a.dtype() == dtype {
        a.ascontiguous()
    } else {
        a.astype(dtype)?.ascontiguous()
    }
}

fn common_device(op: &str, arrays: &[&Array]) -> Result<Arc<dyn DynDevice>> {
    crate::ufunc::common_device(op, arrays)
}

/// Runs `kernel` over `n` items with operands `ops`, writing `out`.
fn launch(
    dev: &Arc<dyn DynDevice>,
    kernel: Rendered,
    n: usize,
    args: Vec<PlanArg>,
    out: Option<&Array>,
    ops: &[&Array],
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let plan = PlannedLaunch { kernel, config: plan_flat(n, target_of(dev)), args };
    run_launches(dev, &[plan], Bindings { output: out, operands: ops, ..Default::default() })
}

fn operands(k: usize) -> impl Iterator<Item = PlanArg> {
    (0..k).map(PlanArg::Operand)
}

/// An integer array as int64 (a clear error for other dtypes).
fn index_array(op: &str, what: &str, a: &Array) -> Result<Array> {
    if !matches!(a.dtype().kind(), DTypeKind::Signed | DTypeKind::Unsigned) {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("{what} must be an integer array, got {}", a.dtype()),
        });
    }
    if a.ndim() != 1 {
        return Err(Error::value(op, format!("{what} must be 1-d, got shape {:?}", a.shape())));
    }
    contig(a, DType::I64)
}

/// The smallest and largest values of a non-empty integer array, read on the host.
fn min_max(a: &Array) -> Result<(i64, i64)> {
    let lo = a.min(None, false)?.astype(DType::I64)?.item::<i64>()?;
    let hi = a.max(None, false)?.astype(DType::I64)?.item::<i64>()?;
    Ok((lo, hi))
}

fn range_i64(dev: &Arc<dyn DynDevice>, start: i64, stop: i64) -> Result<Array> {
    crate::with_device(dev, || crate::arange(start, stop.max(start), 1, Some(DType::I64)))
}

/// The row offsets of `rows` (sorted, int64, each below `m`) for `m` rows, in `idx` dtype.
fn offsets_of(rows: &Array, m: usize, idx: DType) -> Result<Array> {
    let dev = rows.device_arc();
    let rows = contig(rows, DType::I64)?;
    let nnz = rows.size();
    let out = Array::empty_on(&dev, &[m + 1], idx)?;
    let args = vec![PlanArg::Operand(0), PlanArg::Output, PlanArg::I64(nnz as i64), PlanArg::I64(m as i64)];
    launch(&dev, ks::offsets(width(idx)), nnz + 1, args, Some(&out), &[&rows])?;
    Ok(out)
}

/// A sparse matrix in compressed sparse row form (SciPy's `csr_matrix`).
#[derive(Debug, Clone)]
pub struct CsrMatrix {
    data: Array,
    indices: Array,
    indptr: Array,
    shape: (usize, usize),
    sorted: bool,
}

/// A sparse matrix in compressed sparse column form (SciPy's `csc_matrix`), kept as the CSR
/// form of its transpose.
#[derive(Debug, Clone)]
pub struct CscMatrix {
    t: CsrMatrix,
}

/// A sparse matrix of coordinates (SciPy's `coo_matrix`); duplicates add.
#[derive(Debug, Clone)]
pub struct CooMatrix {
    data: Array,
    row: Array,
    col: Array,
    shape: (usize, usize),
}

/// `scipy.sparse.coo_matrix((data, (row, col)), shape)`: `shape` `None` takes the largest
/// indices plus one.
pub fn coo_matrix(data: &Array, row: &Array, col: &Array, shape: Option<(usize, usize)>) -> Result<CooMatrix> {
    CooMatrix::new(data, row, col, shape)
}

/// `scipy.sparse.csr_matrix((data, indices, indptr), shape)`: `shape` `None` takes
/// `len(indptr) - 1` rows and the largest column plus one.
pub fn csr_matrix(data: &Array, indices: &Array, indptr: &Array, shape: Option<(usize, usize)>) -> Result<CsrMatrix> {
    CsrMatrix::new(data, indices, indptr, shape)
}

/// `scipy.sparse.csc_matrix((data, indices, indptr), shape)`: `indices` are rows and `indptr`
/// the offsets of columns.
pub fn csc_matrix(data: &Array, indices: &Array, indptr: &Array, shape: Option<(usize, usize)>) -> Result<CscMatrix> {
    let t = CsrMatrix::new(data, indices, indptr, shape.map(|(m, n)| (n, m)))?;
    Ok(CscMatrix { t })
}

impl CooMatrix {
    /// Checks and stores the triplets (see [`coo_matrix`]).
    pub fn new(data: &Array, row: &Array, col: &Array, shape: Option<(usize, usize)>) -> Result<CooMatrix> {
        let op = "coo_matrix";
        common_device(op, &[data, row, col])?;
        let r = index_array(op, "row", row)?;
        let c = index_array(op, "col", col)?;
        if data.ndim() != 1 || r.size() != data.size() || c.size() != data.size() {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: data.shape().to_vec(),
                rhs: vec![r.size(), c.size()],
                reason: format!(
                    "row, column, and data array must all be the same length (data {:?}, row {:?}, col {:?})",
                    data.shape(),
                    row.shape(),
                    col.shape()
                ),
            });
        }
        let nnz = data.size();
        let (rr, cr) = if nnz > 0 { (Some(min_max(&r)?), Some(min_max(&c)?)) } else { (None, None) };
        let shape = match shape {
            Some(s) => s,
            None => match (rr, cr) {
                (Some(a), Some(b)) => ((a.1.max(-1) + 1) as usize, (b.1.max(-1) + 1) as usize),
                _ => return Err(Error::value(op, "cannot infer dimensions from zero sized index arrays")),
            },
        };
        if let (Some((rlo, rhi)), Some((clo, chi))) = (rr, cr) {
            if rhi >= shape.0 as i64 {
                return Err(Error::Index {
                    op: op.into(),
                    reason: format!("row index {rhi} exceeds matrix dimensions {}", shape_str(shape)),
                });
            }
            if chi >= shape.1 as i64 {
                return Err(Error::Index {
                    op: op.into(),
                    reason: format!("column index {chi} exceeds matrix dimensions {}", shape_str(shape)),
                });
            }
            if rlo < 0 {
                return Err(Error::Index { op: op.into(), reason: format!("negative row index found: {rlo}") });
            }
            if clo < 0 {
                return Err(Error::Index { op: op.into(), reason: format!("negative column index found: {clo}") });
            }
        }
        Ok(CooMatrix { data: contig(data, value_dtype(op, data.dtype())?)?, row: r, col: c, shape })
    }

    /// The shape `(rows, columns)`.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }
    /// Stored entries (duplicates counted).
    pub fn nnz(&self) -> usize {
        self.data.size()
    }
    /// The value dtype.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }
    /// The values.
    pub fn data(&self) -> &Array {
        &self.data
    }
    /// The row of each value (int64).
    pub fn row(&self) -> &Array {
        &self.row
    }
    /// The column of each value (int64).
    pub fn col(&self) -> &Array {
        &self.col
    }

    /// CSR, duplicates summed, columns sorted in each row.
    pub fn tocsr(&self) -> Result<CsrMatrix> {
        from_coords(&self.row, &self.col, &self.data, self.shape, true)
    }
    /// CSC, duplicates summed.
    pub fn tocsc(&self) -> Result<CscMatrix> {
        Ok(CscMatrix { t: from_coords(&self.col, &self.row, &self.data, (self.shape.1, self.shape.0), true)? })
    }
    /// The dense matrix (duplicates add).
    pub fn toarray(&self) -> Result<Array> {
        self.tocsr()?.toarray()
    }
    /// As [`CooMatrix::toarray`] (CuPy's `todense` returns an array too).
    pub fn todense(&self) -> Result<Array> {
        self.toarray()
    }
    /// Sums duplicates and sorts by row, then column (SciPy's canonical format).
    pub fn sum_duplicates(&mut self) -> Result<()> {
        *self = self.tocsr()?.tocoo()?;
        Ok(())
    }
    /// The transpose (rows and columns swapped; no copy of the values).
    pub fn transpose(&self) -> CooMatrix {
        CooMatrix {
            data: self.data.clone(),
            row: self.col.clone(),
            col: self.row.clone(),
            shape: (self.shape.1, self.shape.0),
        }
    }
    /// SciPy's `.T`.
    #[allow(non_snake_case)]
    pub fn T(&self) -> CooMatrix {
        self.transpose()
    }
    /// `self @ x` for a dense vector or matrix.
    pub fn dot(&self, x: &Array) -> Result<Array> {
        self.tocsr()?.dot(x)
    }
}

/// The CSR matrix of the coordinates, sorted by (row, column); with `sum`, equal coordinates
/// become one entry holding their sum (in their order).
fn from_coords(row: &Array, col: &Array, data: &Array, shape: (usize, usize), sum: bool) -> Result<CsrMatrix> {
    let (m, n) = shape;
    let cells = (m as u128) * (n as u128);
    if cells > i64::MAX as u128 {
        return Err(Error::Overflow {
            op: "tocsr".into(),
            reason: format!("a matrix of shape {} has more cells than int64 counts", shape_str(shape)),
        });
    }
    let kt = if cells <= i32::MAX as u128 { DType::I32 } else { DType::I64 };
    let keys = row.astype(kt)?.mul_scalar(n as i64)?.add(&col.astype(kt)?)?;
    from_keys(&keys, data, shape, sum)
}

/// The CSR matrix of entries keyed `row * n + col` (any order).
fn from_keys(keys: &Array, data: &Array, shape: (usize, usize), sum: bool) -> Result<CsrMatrix> {
    let (m, n) = shape;
    let dev = keys.device_arc();
    let nnz = keys.size();
    let idx = index_dtype_for(m.max(n).max(nnz));
    if nnz == 0 {
        return Ok(CsrMatrix {
            data: Array::empty_on(&dev, &[0], data.dtype())?,
            indices: Array::empty_on(&dev, &[0], idx)?,
            indptr: Array::full_on(&dev, &[m + 1], 0, idx)?,
            shape,
            sorted: true,
        });
    }
    let cells = (m as u64).saturating_mul(n as u64).max(1);
    // 32-bit keys when every cell fits: half the bytes each radix pass moves.
    let narrow;
    let keys = if keys.itemsize() == 8 && cells <= u32::MAX as u64 {
        narrow = keys.astype(DType::U32)?;
        &narrow
    } else {
        keys
    };
    let (mut k, perm) = crate::sort::sort_small_keys(keys, 64 - (cells - 1).leading_zeros())?;
    let mut v = data.take(&perm, None)?;
    if sum && nnz > 1 {
        let a = k.slice(&[SliceArg::range(1, nnz as isize, 1)])?;
        let b = k.slice(&[SliceArg::range(0, nnz as isize - 1, 1)])?;
        let head = Array::full_on(&dev, &[1], true, DType::Bool)?;
        let starts = crate::concatenate(&[&head, &a.ne(&b)?], 0)?.nonzero()?.remove(0);
        if starts.size() < nnz {
            let end = Array::full_on(&dev, &[1], nnz as i64, DType::I64)?;
            let bounds = crate::concatenate(&[&starts, &end], 0)?;
            let out = Array::empty_on(&dev, &[starts.size()], v.dtype())?;
            launch(
                &dev,
                ks::segsum(v.dtype(), IndexWidth::I64),
                starts.size(),
                vec![PlanArg::Operand(0), PlanArg::Operand(1), PlanArg::Output, PlanArg::I64(starts.size() as i64)],
                Some(&out),
                &[&v, &bounds],
            )?;
            k = k.take(&starts, None)?;
            v = out;
        }
    }
    let k64 = k.astype(DType::I64)?;
    let rows = k64.floor_divide(n.max(1) as i64)?;
    let cols = k64.sub(&rows.mul_scalar(n as i64)?)?;
    Ok(CsrMatrix { data: v, indices: cols.astype(idx)?, indptr: offsets_of(&rows, m, idx)?, shape, sorted: true })
}

/// `a · b` by the device's sparse library when it has one that takes these types (cuSPARSE on
/// CUDA, rocSPARSE on HIP: faster than xp's own kernels there), else `None`. Column indices are
/// sorted first where they may not be (the libraries need them sorted); entries that cancel are
/// removed afterwards, as SciPy's product does.
fn spgemm_by_library(dev: &Arc<dyn DynDevice>, a: &mut CsrMatrix, b: &mut CsrMatrix) -> Result<Option<CsrMatrix>> {
    // `XP_SPARSE_OWN_KERNELS` (read once) keeps products on xp's kernels, for comparisons.
    static OWN: std::sync::OnceLock<Result<bool>> = std::sync::OnceLock::new();
    if dev.properties().is_host
        || OWN.get_or_init(|| xp_backend_api::env::switch("XP_SPARSE_OWN_KERNELS", false)).clone()?
    {
        return Ok(None);
    }
    let Ok(lib) = dev.sparse() else { return Ok(None) };
    let (idx, t) = (a.indices.dtype(), a.data.dtype());
    if !lib.supports_spgemm(idx, t) {
        return Ok(None);
    }
    for x in [&mut *a, &mut *b] {
        if !x.sorted {
            x.sort_indices()?;
        }
    }
    let desc = |x: &CsrMatrix| xp_backend_api::sparse::CsrDesc {
        rows: x.shape.0,
        cols: x.shape.1,
        nnz: x.data.size(),
        index: idx,
        dtype: t,
    };
    fn bufs(x: &CsrMatrix) -> Result<xp_backend_api::sparse::CsrBuffers<'_>> {
        Ok(xp_backend_api::sparse::CsrBuffers {
            indptr: x.indptr.buffer_at()?,
            indices: x.indices.buffer_at()?,
            data: x.data.buffer_at()?,
        })
    }
    let (da, db) = (desc(a), desc(b));
    let p = lib.spgemm((&da, bufs(a)?), (&db, bufs(b)?), &crate::current_stream(dev))?;
    let (m, n) = (a.shape.0, b.shape.1);
    let mut c = CsrMatrix {
        data: Array::from_buffer(dev, p.data, &[p.nnz], t),
        indices: Array::from_buffer(dev, p.indices, &[p.nnz], idx),
        indptr: Array::from_buffer(dev, p.indptr, &[m + 1], idx),
        shape: (m, n),
        sorted: true,
    };
    c.eliminate_zeros()?;
    Ok(Some(c))
}

impl CsrMatrix {
    /// Checks and stores the arrays (see [`csr_matrix`]).
    pub fn new(data: &Array, indices: &Array, indptr: &Array, shape: Option<(usize, usize)>) -> Result<CsrMatrix> {
        let op = "csr_matrix";
        common_device(op, &[data, indices, indptr])?;
        for (what, a) in [("indices", indices), ("indptr", indptr)] {
            if !matches!(a.dtype().kind(), DTypeKind::Signed | DTypeKind::Unsigned) {
                return Err(Error::DType {
                    op: op.into(),
                    reason: format!("{what} must be an integer array, got {}", a.dtype()),
                });
            }
            if a.ndim() != 1 {
                return Err(Error::value(op, format!("{what} must be 1-d, got shape {:?}", a.shape())));
            }
        }
        if data.ndim() != 1 {
            return Err(Error::value(op, format!("data must be 1-d, got shape {:?}", data.shape())));
        }
        let idx = if indices.dtype() == DType::I32 && indptr.dtype() == DType::I32 { DType::I32 } else { DType::I64 };
        let ind = contig(indices, idx)?;
        let ptr = contig(indptr, idx)?;
        if ptr.size() == 0 {
            return Err(Error::value(op, "index pointer should have at least one entry"));
        }
        let nnz = data.size();
        if ind.size() != nnz {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: data.shape().to_vec(),
                rhs: ind.shape().to_vec(),
                reason: format!("indices and data should have the same size ({} and {nnz})", ind.size()),
            });
        }
        let m_ptr = ptr.size() - 1;
        let cols = if nnz > 0 { Some(min_max(&ind)?) } else { None };
        let shape = match shape {
            Some(s) => s,
            None => (m_ptr, cols.map_or(0, |c| (c.1.max(-1) + 1) as usize)),
        };
        if m_ptr != shape.0 {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: vec![shape.0, shape.1],
                rhs: ptr.shape().to_vec(),
                reason: format!("index pointer size ({}) should be ({})", ptr.size(), shape.0 + 1),
            });
        }
        let first = ptr.slice(&[SliceArg::range(0, 1, 1)])?.astype(DType::I64)?.to_vec::<i64>()?[0];
        let last =
            ptr.slice(&[SliceArg::range(m_ptr as isize, m_ptr as isize + 1, 1)])?.astype(DType::I64)?.item::<i64>()?;
        if first != 0 {
            return Err(Error::value(op, format!("index pointer should start with 0, got {first}")));
        }
        if last != nnz as i64 {
            return Err(Error::value(
                op,
                format!("last value of index pointer ({last}) should equal the size of indices and data ({nnz})"),
            ));
        }
        if m_ptr > 0 {
            let a = ptr.slice(&[SliceArg::range(1, m_ptr as isize + 1, 1)])?;
            let b = ptr.slice(&[SliceArg::range(0, m_ptr as isize, 1)])?;
            if !a.ge(&b)?.all(None, false)?.item::<bool>()? {
                return Err(Error::value(op, "index pointer values must form a non-decreasing sequence"));
            }
        }
        if let Some((lo, hi)) = cols {
            if hi >= shape.1 as i64 {
                return Err(Error::Index {
                    op: op.into(),
                    reason: format!(
                        "column index values must be < {} (found {hi}) for shape {}",
                        shape.1,
                        shape_str(shape)
                    ),
                });
            }
            if lo < 0 {
                return Err(Error::Index {
                    op: op.into(),
                    reason: format!("column index values must be >= 0 (found {lo})"),
                });
            }
        }
        Ok(CsrMatrix {
            data: contig(data, value_dtype(op, data.dtype())?)?,
            indices: ind,
            indptr: ptr,
            shape,
            sorted: false,
        })
    }

    /// The CSR matrix of the nonzero elements of a 2-d dense array.
    pub fn from_dense(a: &Array) -> Result<CsrMatrix> {
        let op = "csr_matrix";
        if a.ndim() != 2 {
            return Err(Error::value(op, format!("expected a dense 2-d array, got shape {:?}", a.shape())));
        }
        let (m, n) = (a.shape()[0], a.shape()[1]);
        let flat = a.ravel()?;
        let pos = flat.nonzero()?.remove(0);
        let data = contig(&flat.take(&pos, None)?, value_dtype(op, a.dtype())?)?;
        let idx = index_dtype_for(m.max(n).max(pos.size()));
        let rows = pos.floor_divide(n.max(1) as i64)?;
        let cols = pos.sub(&rows.mul_scalar(n as i64)?)?;
        Ok(CsrMatrix {
            data,
            indices: cols.astype(idx)?,
            indptr: offsets_of(&rows, m, idx)?,
            shape: (m, n),
            sorted: true,
        })
    }

    /// The shape `(rows, columns)`.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }
    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.data.size()
    }
    /// The value dtype.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }
    /// The values.
    pub fn data(&self) -> &Array {
        &self.data
    }
    /// The column of each value.
    pub fn indices(&self) -> &Array {
        &self.indices
    }
    /// The `rows + 1` offsets of the rows in `data` and `indices`.
    pub fn indptr(&self) -> &Array {
        &self.indptr
    }
    /// Whether the columns of each row are known to be sorted (SciPy's `has_sorted_indices`).
    pub fn has_sorted_indices(&self) -> bool {
        self.sorted
    }
    /// The device the arrays are on.
    pub fn device_arc(&self) -> Arc<dyn DynDevice> {
        self.data.device_arc()
    }

    fn w(&self) -> IndexWidth {
        width(self.indices.dtype())
    }

    /// The row of each stored entry (the index dtype).
    fn rows(&self) -> Result<Array> {
        let dev = self.device_arc();
        let out = Array::empty_on(&dev, &[self.nnz()], self.indices.dtype())?;
        if self.nnz() > 0 {
            launch(
                &dev,
                ks::rows(self.w()),
                self.shape.0,
                vec![PlanArg::Operand(0), PlanArg::Output, PlanArg::I64(self.shape.0 as i64)],
                Some(&out),
                &[&self.indptr],
            )?;
        }
        Ok(out)
    }

    /// COO form (rows expanded; duplicates kept).
    pub fn tocoo(&self) -> Result<CooMatrix> {
        Ok(CooMatrix {
            data: self.data.clone(),
            row: self.rows()?.astype(DType::I64)?,
            col: self.indices.astype(DType::I64)?,
            shape: self.shape,
        })
    }
    /// Itself (SciPy's `tocsr` of a CSR matrix).
    pub fn tocsr(&self) -> Result<CsrMatrix> {
        Ok(self.clone())
    }
    /// CSC form (duplicates kept).
    pub fn tocsc(&self) -> Result<CscMatrix> {
        let rows = self.rows()?;
        Ok(CscMatrix { t: from_coords(&self.indices, &rows, &self.data, (self.shape.1, self.shape.0), false)? })
    }
    /// The transpose, as CSC, sharing the arrays.
    pub fn transpose(&self) -> CscMatrix {
        CscMatrix { t: self.clone() }
    }
    /// SciPy's `.T`.
    #[allow(non_snake_case)]
    pub fn T(&self) -> CscMatrix {
        self.transpose()
    }

    /// The dense matrix (duplicates add).
    pub fn toarray(&self) -> Result<Array> {
        let dev = self.device_arc();
        let (m, n) = self.shape;
        let out = Array::full_on(&dev, &[m, n], 0, self.dtype())?;
        if self.nnz() > 0 {
            launch(
                &dev,
                ks::todense(self.dtype(), self.w()),
                m,
                operands(3).chain([PlanArg::Output, PlanArg::I64(m as i64), PlanArg::I64(n as i64)]).collect(),
                Some(&out),
                &[&self.data, &self.indices, &self.indptr],
            )?;
        }
        Ok(out)
    }
    /// As [`CsrMatrix::toarray`].
    pub fn todense(&self) -> Result<Array> {
        self.toarray()
    }

    /// Sums duplicate entries and sorts the columns of every row.
    pub fn sum_duplicates(&mut self) -> Result<()> {
        let rows = self.rows()?;
        *self = from_coords(&rows, &self.indices, &self.data, self.shape, true)?;
        Ok(())
    }
    /// Sorts the columns of every row (duplicates kept).
    pub fn sort_indices(&mut self) -> Result<()> {
        if !self.sorted {
            let rows = self.rows()?;
            *self = from_coords(&rows, &self.indices, &self.data, self.shape, false)?;
        }
        Ok(())
    }
    /// Removes stored zeros.
    pub fn eliminate_zeros(&mut self) -> Result<()> {
        let keep = self.data.ne(0)?;
        let kept = keep.count_nonzero_all()?;
        if kept == self.nnz() {
            return Ok(());
        }
        let rows = self.rows()?.compress_mask(&keep)?;
        let idx = self.indices.dtype();
        self.indptr = offsets_of(&rows.astype(DType::I64)?, self.shape.0, idx)?;
        self.indices = self.indices.compress_mask(&keep)?;
        self.data = self.data.compress_mask(&keep)?;
        Ok(())
    }

    /// The operands of a product with a dense `x`: the common value dtype, the matrix's values
    /// in it, and `x` contiguous in it.
    fn operand(&self, op: &str, x: &Array, inner: usize, transposed: bool) -> Result<(Array, Array)> {
        common_device(op, &[&self.data, x])?;
        let ok = matches!(x.ndim(), 1 | 2) && x.shape()[0] == inner;
        if !ok {
            let s = if transposed { (self.shape.1, self.shape.0) } else { self.shape };
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: vec![s.0, s.1],
                rhs: x.shape().to_vec(),
                reason: format!(
                    "dimension mismatch: a sparse matrix of shape {} times an array of shape {:?}",
                    shape_str(s),
                    x.shape()
                ),
            });
        }
        let t = value_dtype(op, product_dtype(self.dtype(), x.dtype()))?;
        Ok((contig(&self.data, t)?, contig(x, t)?))
    }

    /// `self @ x` for a dense vector (`n`) or matrix (`n` by `k`): SciPy's `A @ x`, `A.dot(x)`.
    pub fn dot(&self, x: &Array) -> Result<Array> {
        let op = "csr_matrix.dot";
        let (m, n) = self.shape;
        let (data, x) = self.operand(op, x, n, false)?;
        let dev = self.device_arc();
        let t = data.dtype();
        if x.ndim() == 1 {
            let y = Array::empty_on(&dev, &[m], t)?;
            if m == 0 {
                return Ok(y);
            }
            let plan = ks::plan_spmv(t, self.w(), m, self.nnz(), target_of(&dev));
            run_launches(
                &dev,
                &[plan],
                Bindings {
                    output: Some(&y),
                    operands: &[&data, &self.indices, &self.indptr, &x],
                    ..Default::default()
                },
            )?;
            return Ok(y);
        }
        let k = x.shape()[1];
        let y = Array::empty_on(&dev, &[m, k], t)?;
        launch(
            &dev,
            ks::spmm(t, self.w()),
            m * k,
            operands(4).chain([PlanArg::Output, PlanArg::I64(m as i64), PlanArg::I64(k as i64)]).collect(),
            Some(&y),
            &[&data, &self.indices, &self.indptr, &x],
        )?;
        Ok(y)
    }
    /// `self @ x` (SciPy's `@`).
    pub fn matmul(&self, x: &Array) -> Result<Array> {
        self.dot(x)
    }

    /// `self.T @ x` for a dense vector (`m`) or matrix (`m` by `k`), without forming the
    /// transpose.
    pub fn rdot(&self, x: &Array) -> Result<Array> {
        let op = "csr_matrix.T.dot";
        let (m, n) = self.shape;
        let (data, x) = self.operand(op, x, m, true)?;
        let dev = self.device_arc();
        let t = data.dtype();
        if !ks::ATOMIC_DTYPES.contains(&t) {
            // No atomic adds for integers and bool: the product of the formed transpose.
            return CsrMatrix { data, ..self.clone() }.tocsc()?.t.dot(&x);
        }
        let k = if x.ndim() == 1 { 1 } else { x.shape()[1] };
        let shape: Vec<usize> = if x.ndim() == 1 { vec![n] } else { vec![n, k] };
        let y = Array::full_on(&dev, &shape, 0, t)?;
        launch(
            &dev,
            ks::rmm(t, self.w()),
            m * k,
            operands(4).chain([PlanArg::Output, PlanArg::I64(m as i64), PlanArg::I64(k as i64)]).collect(),
            Some(&y),
            &[&data, &self.indices, &self.indptr, &x],
        )?;
        Ok(y)
    }

    /// `self @ other` of two sparse matrices (SpGEMM), as CSR; explicit zeros are dropped.
    pub fn dot_sparse(&self, other: &CsrMatrix) -> Result<CsrMatrix> {
        let op = "csr_matrix.dot";
        let dev = common_device(op, &[&self.data, &other.data])?;
        let (m, k1) = self.shape;
        let (k2, n) = other.shape;
        if k1 != k2 {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: vec![m, k1],
                rhs: vec![k2, n],
                reason: format!("dimension mismatch: {} @ {}", shape_str(self.shape), shape_str(other.shape)),
            });
        }
        let t = value_dtype(op, product_dtype(self.dtype(), other.dtype()))?;
        let idx = if self.indices.dtype() == other.indices.dtype() { self.indices.dtype() } else { DType::I64 };
        let (mut a, mut b) = (self.with_types(t, idx)?, other.with_types(t, idx)?);
        if let Some(c) = spgemm_by_library(&dev, &mut a, &mut b)? {
            return Ok(c);
        }
        let w = width(idx);
        let counts = Array::empty_on(&dev, &[m], DType::I64)?;
        launch(
            &dev,
            ks::spgemm_count(w),
            m,
            vec![
                PlanArg::Operand(0),
                PlanArg::Operand(1),
                PlanArg::Operand(2),
                PlanArg::Output,
                PlanArg::I64(m as i64),
            ],
            Some(&counts),
            &[&a.indices, &a.indptr, &b.indptr],
        )?;
        let total = if m == 0 { 0 } else { counts.sum(None, false)?.item::<i64>()? as usize };
        let keys = Array::empty_on(&dev, &[total], DType::I64)?;
        let vals = Array::empty_on(&dev, &[total], t)?;
        if total > 0 {
            let offs = counts.cumsum(Some(0))?.sub(&counts)?;
            let plan = PlannedLaunch {
                kernel: ks::spgemm_expand(t, w),
                config: plan_flat(m, target_of(&dev)),
                args: operands(9).chain([PlanArg::I64(m as i64), PlanArg::I64(n as i64)]).collect(),
            };
            run_launches(
                &dev,
                &[plan],
                Bindings {
                    operands: &[&a.data, &a.indices, &a.indptr, &b.data, &b.indices, &b.indptr, &offs, &keys, &vals],
                    ..Default::default()
                },
            )?;
        }
        let mut c = from_keys(&keys, &vals, (m, n), true)?;
        c.eliminate_zeros()?;
        Ok(c)
    }

    fn with_types(&self, t: DType, idx: DType) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            data: contig(&self.data, t)?,
            indices: contig(&self.indices, idx)?,
            indptr: contig(&self.indptr, idx)?,
            shape: self.shape,
            sorted: self.sorted,
        })
    }

    fn same_shape(&self, op: &str, other: &CsrMatrix) -> Result<()> {
        if self.shape != other.shape {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: vec![self.shape.0, self.shape.1],
                rhs: vec![other.shape.0, other.shape.1],
                reason: format!("inconsistent shapes {} and {}", shape_str(self.shape), shape_str(other.shape)),
            });
        }
        common_device(op, &[&self.data, &other.data])?;
        Ok(())
    }

    /// `self + other` (SciPy's `+` of two sparse matrices): duplicates summed, columns sorted.
    pub fn add(&self, other: &CsrMatrix) -> Result<CsrMatrix> {
        self.combine("csr_matrix.add", other, false)
    }
    /// `self - other`.
    pub fn sub(&self, other: &CsrMatrix) -> Result<CsrMatrix> {
        self.combine("csr_matrix.sub", other, true)
    }

    fn combine(&self, op: &str, other: &CsrMatrix, negate: bool) -> Result<CsrMatrix> {
        self.same_shape(op, other)?;
        let t = value_dtype(op, product_dtype(self.dtype(), other.dtype()))?;
        if t == DType::Bool && negate {
            // SciPy's difference of bool matrices is their exclusive or: the difference of the
            // canonical 0/1 values in int8, nonzero where they differ.
            let (a, b) = (self.canonical()?.astype(DType::I8)?, other.canonical()?.astype(DType::I8)?);
            let mut c = a.combine(op, &b, true)?.astype(DType::Bool)?;
            c.eliminate_zeros()?;
            return Ok(c);
        }
        let (a, b) = (self.tocoo()?, other.tocoo()?);
        let bd = if negate { b.data.astype(t)?.negative()? } else { b.data.astype(t)? };
        let rows = crate::concatenate(&[&a.row, &b.row], 0)?;
        let cols = crate::concatenate(&[&a.col, &b.col], 0)?;
        let data = crate::concatenate(&[&a.data.astype(t)?, &bd], 0)?;
        from_coords(&rows, &cols, &data, self.shape, true)
    }

    /// `self * s` for a scalar (the structure is kept).
    pub fn mul_scalar(&self, s: impl Into<crate::Scalar>) -> Result<CsrMatrix> {
        let data = self.data.mul_scalar(s)?;
        let data = contig(&data, value_dtype("csr_matrix.mul_scalar", data.dtype())?)?;
        Ok(CsrMatrix { data, ..self.clone() })
    }

    /// The elementwise product with another sparse matrix of the same shape (SciPy's
    /// `multiply`): entries stored in both, zeros dropped.
    pub fn multiply(&self, other: &CsrMatrix) -> Result<CsrMatrix> {
        let op = "csr_matrix.multiply";
        self.same_shape(op, other)?;
        let t = value_dtype(op, product_dtype(self.dtype(), other.dtype()))?;
        let mut a = self.clone();
        a.sum_duplicates()?;
        let a = a.with_types(t, a.indices.dtype())?;
        let b = other.with_types(t, other.indices.dtype())?;
        let rows = a.rows()?.astype(DType::I64)?;
        let cols = a.indices.astype(DType::I64)?;
        let bv = b.get(&rows, &cols)?;
        let mut c = CsrMatrix { data: a.data.mul(&bv)?, ..a };
        c.eliminate_zeros()?;
        Ok(c)
    }

    /// The sums of stored entries at (`rows[q]`, `cols[q]`) (int64, in range).
    fn get(&self, rows: &Array, cols: &Array) -> Result<Array> {
        let dev = self.device_arc();
        let nq = rows.size();
        let out = Array::empty_on(&dev, &[nq], self.dtype())?;
        launch(
            &dev,
            ks::get(self.dtype(), self.w()),
            nq,
            operands(5).chain([PlanArg::Output, PlanArg::I64(nq as i64)]).collect(),
            Some(&out),
            &[&self.data, &self.indices, &self.indptr, rows, cols],
        )?;
        Ok(out)
    }

    /// The `k`-th diagonal (SciPy's `diagonal(k)`), dense.
    pub fn diagonal(&self, k: isize) -> Result<Array> {
        let (m, n) = (self.shape.0 as i64, self.shape.1 as i64);
        let k = k as i64;
        let (r0, c0) = if k >= 0 { (0, k) } else { (-k, 0) };
        let len = (m - r0).min(n - c0).max(0);
        let dev = self.device_arc();
        let rows = range_i64(&dev, r0, r0 + len)?;
        let cols = rows.add_scalar(c0 - r0)?;
        self.get(&rows, &cols)
    }

    /// SciPy's `sum(axis)`: every entry (`None`, a 0-d array), the columns' sums (`Some(0)`,
    /// shape `(1, n)`) or the rows' sums (`Some(1)`, shape `(m, 1)`); negative axes count from
    /// the end. Bool and signed integer values sum in int64, unsigned in uint64 (SciPy's
    /// `get_sum_dtype`), floats and complex in their own dtype.
    pub fn sum(&self, axis: Option<isize>) -> Result<Array> {
        let (m, n) = self.shape;
        let dev = self.device_arc();
        let st = sum_dtype(self.dtype());
        let data = contig(&self.data, st)?;
        match axis {
            None if self.nnz() == 0 => Array::full_on(&dev, &[], 0, st),
            None => data.sum(None, false)?.astype(st),
            Some(0) | Some(-2) => {
                let ones = Array::full_on(&dev, &[m], 1, st)?;
                CsrMatrix { data, ..self.clone() }.rdot(&ones)?.reshape(&[1, n as isize])
            }
            Some(1) | Some(-1) => {
                let out = Array::empty_on(&dev, &[m], st)?;
                launch(
                    &dev,
                    ks::segsum(st, self.w()),
                    m,
                    vec![PlanArg::Operand(0), PlanArg::Operand(1), PlanArg::Output, PlanArg::I64(m as i64)],
                    Some(&out),
                    &[&data, &self.indptr],
                )?;
                out.reshape(&[m as isize, 1])
            }
            Some(a) => Err(Error::Axis {
                op: "csr_matrix.sum".into(),
                reason: format!("axis {a} out of range for a 2-d matrix"),
            }),
        }
    }

    /// The same matrix with values of `dtype` (a value dtype, see the module docs).
    pub fn astype(&self, dtype: DType) -> Result<CsrMatrix> {
        Ok(CsrMatrix { data: contig(&self.data, value_dtype("csr_matrix.astype", dtype)?)?, ..self.clone() })
    }
}

impl CscMatrix {
    /// The shape `(rows, columns)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.t.shape.1, self.t.shape.0)
    }
    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.t.nnz()
    }
    /// The value dtype.
    pub fn dtype(&self) -> DType {
        self.t.dtype()
    }
    /// The values.
    pub fn data(&self) -> &Array {
        &self.t.data
    }
    /// The row of each value.
    pub fn indices(&self) -> &Array {
        &self.t.indices
    }
    /// The `columns + 1` offsets of the columns.
    pub fn indptr(&self) -> &Array {
        &self.t.indptr
    }
    /// The transpose, as CSR, sharing the arrays.
    pub fn transpose(&self) -> CsrMatrix {
        self.t.clone()
    }
    /// SciPy's `.T`.
    #[allow(non_snake_case)]
    pub fn T(&self) -> CsrMatrix {
        self.transpose()
    }
    /// CSR form (duplicates kept).
    pub fn tocsr(&self) -> Result<CsrMatrix> {
        Ok(self.t.tocsc()?.t)
    }
    /// COO form.
    pub fn tocoo(&self) -> Result<CooMatrix> {
        Ok(self.t.tocoo()?.transpose())
    }
    /// The dense matrix.
    pub fn toarray(&self) -> Result<Array> {
        self.t.toarray()?.transpose_2d()
    }
    /// `self @ x` for a dense vector or matrix.
    pub fn dot(&self, x: &Array) -> Result<Array> {
        self.t.rdot(x)
    }
    /// `self.T @ x`.
    pub fn rdot(&self, x: &Array) -> Result<Array> {
        self.t.dot(x)
    }
    /// SciPy's `sum(axis)` (see [`CsrMatrix::sum`]).
    pub fn sum(&self, axis: Option<isize>) -> Result<Array> {
        match axis {
            None => self.t.sum(None),
            Some(0) | Some(-2) => self.t.sum(Some(1))?.reshape(&[1, self.shape().1 as isize]),
            Some(1) | Some(-1) => self.t.sum(Some(0))?.reshape(&[self.shape().0 as isize, 1]),
            Some(a) => Err(Error::Axis {
                op: "csc_matrix.sum".into(),
                reason: format!("axis {a} out of range for a 2-d matrix"),
            }),
        }
    }
}

impl Array {
    /// The transpose of a 2-d array, contiguous.
    fn transpose_2d(&self) -> Result<Array> {
        self.permute(&[1, 0])?.ascontiguous()
    }
    /// The number of nonzero elements, read on the host.
    fn count_nonzero_all(&self) -> Result<usize> {
        Ok(crate::count_nonzero(self, None)?.astype(DType::I64)?.item::<i64>()? as usize)
    }
}

/// `scipy.sparse.eye(m, n, k, dtype)` as CSR: ones on the `k`-th diagonal (`n` `None`: square).
pub fn eye(m: usize, n: Option<usize>, k: isize, dtype: DType) -> Result<CsrMatrix> {
    let n = n.unwrap_or(m);
    let dev = crate::current_device()?;
    let (r0, c0) = if k >= 0 { (0i64, k as i64) } else { (-(k as i64), 0) };
    let len = (m as i64 - r0).min(n as i64 - c0).max(0);
    let rows = range_i64(&dev, r0, r0 + len)?;
    let cols = rows.add_scalar(c0 - r0)?;
    let data = Array::full_on(&dev, &[len as usize], 1, value_dtype("eye", dtype)?)?;
    from_keys(&rows.mul_scalar(n as i64)?.add(&cols)?, &data, (m, n), false)
}

/// `scipy.sparse.identity(n, dtype)` as CSR.
pub fn identity(n: usize, dtype: DType) -> Result<CsrMatrix> {
    eye(n, None, 0, dtype)
}

/// `scipy.sparse.diags(diagonals, offsets, shape, dtype)` as CSR: `diagonals[i]` on the
/// `offsets[i]`-th diagonal, a one-element diagonal broadcast along it. `shape` `None` is
/// square, sized by the first diagonal; `dtype` `None` is NumPy's `common_type` of the
/// diagonals, as SciPy's (integer diagonals give float64; bool ones need a `dtype`).
pub fn diags(
    diagonals: &[&Array],
    offsets: &[isize],
    shape: Option<(usize, usize)>,
    dtype: Option<DType>,
) -> Result<CsrMatrix> {
    let op = "diags";
    if diagonals.is_empty() || diagonals.len() != offsets.len() {
        return Err(Error::value(
            op,
            format!("different number of diagonals ({}) and offsets ({})", diagonals.len(), offsets.len()),
        ));
    }
    let dev = common_device(op, diagonals)?;
    let shape = shape.unwrap_or_else(|| {
        let m = diagonals[0].size() + offsets[0].unsigned_abs();
        (m, m)
    });
    let (m, n) = (shape.0 as i64, shape.1 as i64);
    let t = match dtype {
        Some(t) => value_dtype(op, t)?,
        None => {
            // NumPy's `common_type`, as SciPy's: integers count as float64, bool has none.
            let mut t: Option<DType> = None;
            for d in diagonals {
                let dt = match d.dtype().kind() {
                    DTypeKind::Bool => {
                        return Err(Error::DType {
                            op: op.into(),
                            reason: "can't get common type for non-numeric array (bool diagonals need a dtype)".into(),
                        })
                    }
                    DTypeKind::Signed | DTypeKind::Unsigned => DType::F64,
                    _ => d.dtype(),
                };
                t = Some(t.map_or(dt, |a| crate::promote_types(a, dt)));
            }
            value_dtype(op, t.unwrap_or(DType::F64))?
        }
    };
    let mut seen = std::collections::HashSet::new();
    let (mut keys, mut vals) = (Vec::new(), Vec::new());
    for (d, &k) in diagonals.iter().zip(offsets) {
        if !seen.insert(k) {
            return Err(Error::value(op, format!("repeated diagonal offset {k}")));
        }
        if d.ndim() > 1 {
            return Err(Error::value(op, format!("a diagonal must be 1-d, got shape {:?}", d.shape())));
        }
        let k = k as i64;
        let (r0, c0) = if k >= 0 { (0, k) } else { (-k, 0) };
        let len = (m - r0).min(n - c0).max(0);
        if len == 0 {
            return Err(Error::value(op, format!("offset {k} out of bounds for shape {}", shape_str(shape))));
        }
        // A longer diagonal is cut to the matrix, as SciPy cuts it.
        let v = match d.size() {
            1 => d.reshape(&[1])?.broadcast_to(&[len as usize])?,
            s if s as i64 >= len => d.reshape(&[s as isize])?.slice(&[SliceArg::range(0, len as isize, 1)])?,
            s => {
                return Err(Error::ShapeMismatch {
                    op: op.into(),
                    lhs: vec![len as usize],
                    rhs: vec![s],
                    reason: format!(
                        "diagonal length ({s}) for offset {k} is shorter than the matrix's diagonal ({len})"
                    ),
                })
            }
        };
        let rows = range_i64(&dev, r0, r0 + len)?;
        keys.push(rows.mul_scalar(n)?.add(&rows.add_scalar(c0 - r0)?)?);
        vals.push(v.astype(t)?);
    }
    let keys = crate::concatenate(&keys.iter().collect::<Vec<_>>(), 0)?;
    let vals = crate::concatenate(&vals.iter().collect::<Vec<_>>(), 0)?;
    from_keys(&keys, &vals, shape, false)
}

/// `scipy.sparse.random(m, n, density, dtype, random_state=seed)` as CSR: `round(density * m *
/// n)` distinct positions drawn uniformly, from `xp::random::default_rng(seed)`. Values are as
/// SciPy draws them: uniform in [0, 1) for floats, real and imaginary parts so for complex,
/// integers uniform over the dtype's range without its largest value (`[min, max)`; uint64
/// draws below `i64::MAX`), `true` for bool. Positions are drawn with replacement and the
/// repeats drawn again until enough are distinct, so a density near 1 costs a few rounds.
pub fn random(m: usize, n: usize, density: f64, dtype: DType, seed: u64) -> Result<CsrMatrix> {
    let op = "random";
    if !(0.0..=1.0).contains(&density) {
        return Err(Error::value(op, format!("density expected to be 0 <= density <= 1, got {density}")));
    }
    let cells = m as u128 * n as u128;
    if cells > i64::MAX as u128 {
        return Err(Error::Overflow { op: op.into(), reason: format!("shape ({m}, {n}) has too many cells") });
    }
    let k = (density * cells as f64).round() as usize;
    let t = value_dtype(op, dtype)?;
    let mut rng = crate::random::default_rng(seed);
    let dev = crate::current_device()?;
    let mut keys = Array::empty_on(&dev, &[0], DType::I64)?;
    while keys.size() < k {
        let more = rng.integers(0, cells as i64, &[k - keys.size()], DType::I64, false)?;
        keys = crate::sort::unique(&crate::concatenate(&[&keys, &more], 0)?)?;
    }
    let vals = match t.kind() {
        DTypeKind::Float => rng.random(&[k], t)?,
        DTypeKind::Complex => {
            let ft = if t == DType::C64 { DType::F32 } else { DType::F64 };
            let re = rng.random(&[k], ft)?.astype(t)?;
            let im = rng.random(&[k], ft)?.astype(t)?;
            re.add(&im.mul_scalar(crate::Scalar::Complex(0.0, 1.0))?)?.astype(t)?
        }
        DTypeKind::Bool => Array::full_on(&dev, &[k], true, t)?,
        DTypeKind::Signed | DTypeKind::Unsigned => {
            let (lo, hi) = match t {
                DType::I8 => (i8::MIN as i64, i8::MAX as i64),
                DType::I16 => (i16::MIN as i64, i16::MAX as i64),
                DType::I32 => (i32::MIN as i64, i32::MAX as i64),
                DType::U8 => (0, u8::MAX as i64),
                DType::U16 => (0, u16::MAX as i64),
                DType::U32 => (0, u32::MAX as i64),
                DType::U64 => (0, i64::MAX),
                _ => (i64::MIN, i64::MAX),
            };
            rng.integers(lo, hi, &[k], t, false)?
        }
    };
    from_keys(&keys, &vals, (m, n), false)
}
