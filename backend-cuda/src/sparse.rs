//! Sparse products on CUDA devices: the contract's [`SparseLib`] over cuSPARSE's generic API.
//!
//! # What goes to cuSPARSE
//! Only the product of two sparse matrices (SpGEMM): there cuSPARSE's `cusparseSpGEMM` is about
//! three times as fast as xp's own sort-based kernels on an H100. Sparse × dense products stay
//! xp's own kernels, which are faster than cuSPARSE's SpMV and SpMM (the bench's
//! `spmv`/`spmm` rows beside CuPy, which calls cuSPARSE).
//!
//! # The library
//! cuSPARSE is called through cudarc's `cusparse` bindings and found like cuBLAS (the `library`
//! module: `XP_CUSPARSE_PATH`, the CUDA toolkit, the `nvidia/cu13` / `nvidia-cusparse` pip
//! wheels, then the loader path; `libcusparse.so.12`, `.so.11`, `.so`), opened by its full path
//! with `RTLD_GLOBAL` after the nvJitLink of its folder, and used only once every function
//! called here is exported. A missing cuSPARSE is `BackendUnavailable` naming `libcusparse`;
//! `xp::sparse` then uses its own kernels.
//!
//! # SpGEMM
//! One handle per device, created on first use, held under a lock while bound to the caller's
//! stream. `C = A · B` with `CUSPARSE_SPGEMM_DEFAULT`: work estimation and compute, each asked
//! for its buffer size first, both buffers from xp's pool; then `cusparseSpMatGetSize` reads
//! C's number of entries, C's arrays come from the pool and `cusparseSpGEMM_copy` fills them.
//! 32-bit indices (cuSPARSE's SpGEMM takes no others); float32, float64, complex64, complex128
//! values, computed in their own type. C's column indices are sorted; entries that cancel stay
//! (the caller removes them).

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::cusparse::sys;
use parking_lot::Mutex;
use xp_backend_api::gpu::blas::blas_check;
use xp_backend_api::gpu::GpuTarget;
use xp_backend_api::gpu::LibraryOperand;
use xp_backend_api::sparse::{check_spgemm, CsrBuffers, CsrDesc, CsrProduct, SparseLib};
use xp_backend_api::{DType, MemoryPool, Result, Stream};

use crate::context::Context;
use crate::library;
use crate::stream::CudaStream;

/// cuSPARSE's name of a status code.
fn status_name(code: i64) -> String {
    let suffix = match code {
        0 => "SUCCESS",
        1 => "NOT_INITIALIZED",
        2 => "ALLOC_FAILED",
        3 => "INVALID_VALUE",
        4 => "ARCH_MISMATCH",
        5 => "MAPPING_ERROR",
        6 => "EXECUTION_FAILED",
        7 => "INTERNAL_ERROR",
        8 => "MATRIX_TYPE_NOT_SUPPORTED",
        9 => "ZERO_PIVOT",
        10 => "NOT_SUPPORTED",
        11 => "INSUFFICIENT_RESOURCES",
        _ => return format!("cusparseStatus {code}"),
    };
    format!("CUSPARSE_STATUS_{suffix}")
}

fn check(api: &str, r: sys::cusparseStatus_t) -> Result<()> {
    blas_check(api, r as i64, status_name, 2, String::new)
}

/// cuSPARSE's version (major, minor, patch), after finding the library.
pub(crate) fn cusparse_version() -> Result<(i32, i32, i32)> {
    library::cusparse()?;
    let get = |t: sys::libraryPropertyType| {
        let mut v = 0;
        // SAFETY: cuSPARSE is loaded where cudarc finds it and exports cusparseGetProperty
        // (`library::cusparse`); the call writes one int and needs no handle.
        check("cusparseGetProperty", unsafe { sys::cusparseGetProperty(t, &mut v) })?;
        Ok(v)
    };
    use sys::libraryPropertyType::*;
    Ok((get(MAJOR_VERSION)?, get(MINOR_VERSION)?, get(PATCH_LEVEL)?))
}

struct Handle(sys::cusparseHandle_t);

// SAFETY: a cuSPARSE handle may be used from any host thread with its device's context
// current; `CusparseLib` keeps it behind a lock.
unsafe impl Send for Handle {}

/// cuSPARSE on one device.
pub struct CusparseLib {
    handle: Mutex<Handle>,
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
    version: (i32, i32, i32),
}

impl CusparseLib {
    /// cuSPARSE for the device of `ctx`, or `BackendUnavailable` naming `libcusparse`.
    pub(crate) fn open(ctx: Arc<Context>, pool: Arc<MemoryPool>) -> Result<Self> {
        let version = cusparse_version()?;
        ctx.enter("cusparseCreate")?;
        let mut h: sys::cusparseHandle_t = std::ptr::null_mut();
        // SAFETY: cuSPARSE is loaded; the device's context is current; `h` is a valid out-pointer.
        check("cusparseCreate", unsafe { sys::cusparseCreate(&mut h) })?;
        Ok(CusparseLib { handle: Mutex::new(Handle(h)), ctx, pool, version })
    }
}

/// The value type of `dtype` and the scalars 1 and 0 in it (host bytes).
fn value_type(dtype: DType) -> Option<(sys::cudaDataType, Vec<u8>, Vec<u8>)> {
    use sys::cudaDataType::*;
    let (t, one): (_, Vec<u8>) = match dtype {
        DType::F32 => (CUDA_R_32F, 1f32.to_le_bytes().to_vec()),
        DType::F64 => (CUDA_R_64F, 1f64.to_le_bytes().to_vec()),
        DType::C64 => (CUDA_C_32F, [1f32.to_le_bytes(), 0f32.to_le_bytes()].concat()),
        DType::C128 => (CUDA_C_64F, [1f64.to_le_bytes(), 0f64.to_le_bytes()].concat()),
        _ => return None,
    };
    let zero = vec![0u8; one.len()];
    Some((t, one, zero))
}

/// Descriptors destroyed when dropped.
struct Descriptors {
    mats: Vec<sys::cusparseSpMatDescr_t>,
    spgemm: sys::cusparseSpGEMMDescr_t,
}

impl Drop for Descriptors {
    fn drop(&mut self) {
        for m in &self.mats {
            // SAFETY: each descriptor was created by cusparseCreateCsr and is destroyed once.
            unsafe { sys::cusparseDestroySpMat(*m as _) };
        }
        if !self.spgemm.is_null() {
            // SAFETY: created by cusparseSpGEMM_createDescr, destroyed once.
            unsafe { sys::cusparseSpGEMM_destroyDescr(self.spgemm) };
        }
    }
}

impl SparseLib for CusparseLib {
    fn name(&self) -> String {
        let (major, minor, patch) = self.version;
        format!("cuSPARSE {major}.{minor}.{patch}")
    }

    fn supports_spgemm(&self, index: DType, dtype: DType) -> bool {
        index == DType::I32 && value_type(dtype).is_some()
    }

    fn spgemm(
        &self,
        (ad, ab): (&CsrDesc, CsrBuffers<'_>),
        (bd, bb): (&CsrDesc, CsrBuffers<'_>),
        stream: &Arc<dyn Stream>,
    ) -> Result<CsrProduct> {
        check_spgemm(self, ad, bd)?;
        let (vt, one, zero) = value_type(ad.dtype).expect("checked by check_spgemm");
        let (isz, vsz) = (4usize, ad.dtype.size());
        let target = GpuTarget::new("cuda", "CUDA", self.ctx.ordinal, &self.ctx.label, &self.ctx.props, &self.pool);
        let ops = [
            LibraryOperand::read("A indptr", ab.indptr, isz, ad.rows + 1),
            LibraryOperand::read("A indices", ab.indices, isz, ad.nnz),
            LibraryOperand::read("A data", ab.data, vsz, ad.nnz),
            LibraryOperand::read("B indptr", bb.indptr, isz, bd.rows + 1),
            LibraryOperand::read("B indices", bb.indices, isz, bd.nnz),
            LibraryOperand::read("B data", bb.data, vsz, bd.nnz),
        ];
        let (s, p) =
            target.open_library_call::<CudaStream, 6>("cuSPARSE SpGEMM", stream, |s| s.device_ordinal(), ops)?;
        let (m, n) = (ad.rows, bd.cols);
        let indptr = self.pool.alloc((m + 1) * isz, stream)?;
        let empty = |indptr: xp_backend_api::Buffer| -> Result<CsrProduct> {
            stream.copy_from_host(&indptr, 0, &vec![0u8; (m + 1) * isz])?;
            Ok(CsrProduct { nnz: 0, indptr, indices: self.pool.alloc(1, stream)?, data: self.pool.alloc(1, stream)? })
        };
        if ad.nnz == 0 || bd.nnz == 0 || m == 0 || n == 0 || ad.cols == 0 {
            return empty(indptr);
        }
        let i32i = sys::cusparseIndexType_t::CUSPARSE_INDEX_32I;
        let base = sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO;
        let op = sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
        let alg = sys::cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_DEFAULT;
        let ptr = |a: u64| a as usize as *mut c_void;
        self.ctx.enter("cusparseSpGEMM")?;
        let h = self.handle.lock();
        // SAFETY: the context is current; the handle is live; the stream is a live stream of
        // this device (checked by `open_library_call`), which cuSPARSE only records.
        check("cusparseSetStream", unsafe { sys::cusparseSetStream(h.0, s.cu_stream() as sys::cudaStream_t) })?;
        let mut d = Descriptors { mats: Vec::new(), spgemm: std::ptr::null_mut() };
        let csr = |d: &mut Descriptors,
                   rows: usize,
                   cols: usize,
                   nnz: usize,
                   ip: *mut c_void,
                   ix: *mut c_void,
                   dv: *mut c_void| {
            let mut mat: sys::cusparseSpMatDescr_t = std::ptr::null_mut();
            // SAFETY: the pointers are device addresses of the matrix's arrays (checked spans)
            // or null for a product not yet sized; `mat` is a valid out-pointer.
            check("cusparseCreateCsr", unsafe {
                sys::cusparseCreateCsr(&mut mat, rows as i64, cols as i64, nnz as i64, ip, ix, dv, i32i, i32i, base, vt)
            })?;
            d.mats.push(mat);
            Ok::<_, xp_backend_api::Error>(mat)
        };
        let ma = csr(&mut d, ad.rows, ad.cols, ad.nnz, ptr(p[0]), ptr(p[1]), ptr(p[2]))?;
        let mb = csr(&mut d, bd.rows, bd.cols, bd.nnz, ptr(p[3]), ptr(p[4]), ptr(p[5]))?;
        let mc = csr(&mut d, m, n, 0, ptr(indptr.device_ptr()), std::ptr::null_mut(), std::ptr::null_mut())?;
        // SAFETY: a valid out-pointer.
        check("cusparseSpGEMM_createDescr", unsafe { sys::cusparseSpGEMM_createDescr(&mut d.spgemm) })?;
        let (alpha, beta) = (one.as_ptr() as *const c_void, zero.as_ptr() as *const c_void);
        let mut size1 = 0usize;
        // SAFETY (this and the calls below): the handle is bound to the stream; the descriptors
        // are live; alpha and beta are host scalars of the value type (host pointer mode, the
        // default), read before each call returns; the buffers come from this device's pool
        // for this stream and stay allocated until its work on them ends (stream-ordered pool).
        check("cusparseSpGEMM_workEstimation", unsafe {
            sys::cusparseSpGEMM_workEstimation(
                h.0,
                op,
                op,
                alpha,
                ma as _,
                mb as _,
                beta,
                mc,
                vt,
                alg,
                d.spgemm,
                &mut size1,
                std::ptr::null_mut(),
            )
        })?;
        let buf1 = self.pool.alloc(size1.max(1), stream)?;
        check("cusparseSpGEMM_workEstimation", unsafe {
            sys::cusparseSpGEMM_workEstimation(
                h.0,
                op,
                op,
                alpha,
                ma as _,
                mb as _,
                beta,
                mc,
                vt,
                alg,
                d.spgemm,
                &mut size1,
                ptr(buf1.device_ptr()),
            )
        })?;
        let mut size2 = 0usize;
        check("cusparseSpGEMM_compute", unsafe {
            sys::cusparseSpGEMM_compute(
                h.0,
                op,
                op,
                alpha,
                ma as _,
                mb as _,
                beta,
                mc,
                vt,
                alg,
                d.spgemm,
                &mut size2,
                std::ptr::null_mut(),
            )
        })?;
        let buf2 = self.pool.alloc(size2.max(1), stream)?;
        check("cusparseSpGEMM_compute", unsafe {
            sys::cusparseSpGEMM_compute(
                h.0,
                op,
                op,
                alpha,
                ma as _,
                mb as _,
                beta,
                mc,
                vt,
                alg,
                d.spgemm,
                &mut size2,
                ptr(buf2.device_ptr()),
            )
        })?;
        let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
        check("cusparseSpMatGetSize", unsafe { sys::cusparseSpMatGetSize(mc as _, &mut rows, &mut cols, &mut nnz) })?;
        let nnz = nnz.max(0) as usize;
        if nnz == 0 {
            drop(d);
            return empty(indptr);
        }
        let indices = self.pool.alloc(nnz * isz, stream)?;
        let data = self.pool.alloc(nnz * vsz, stream)?;
        check("cusparseCsrSetPointers", unsafe {
            sys::cusparseCsrSetPointers(mc, ptr(indptr.device_ptr()), ptr(indices.device_ptr()), ptr(data.device_ptr()))
        })?;
        check("cusparseSpGEMM_copy", unsafe {
            sys::cusparseSpGEMM_copy(h.0, op, op, alpha, ma as _, mb as _, beta, mc, vt, alg, d.spgemm)
        })?;
        for b in [&buf1, &buf2, &indptr, &indices, &data] {
            b.note_use(stream);
        }
        drop(d);
        Ok(CsrProduct { nnz, indptr, indices, data })
    }
}
