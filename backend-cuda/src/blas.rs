//! Matrix products on CUDA devices: the contract's [`Blas`] over cuBLAS.
//!
//! # The library
//! cuBLAS is called through cudarc's `cublas` bindings, like cuFFT: cudarc declares every
//! function and loads the library at run time, so nothing is linked. Its loader panics when the
//! library is missing, and each function panics at its first call when the library lacks its
//! symbol, so cuBLAS is found first by xp's own search (the `library` module: `XP_CUBLAS_PATH`,
//! the CUDA toolkit, the `nvidia/cu13` / `nvidia-cublas` pip wheels, then the loader path; file
//! names `libcublas.so.13` (CUDA 13), `libcublas.so.12`, `libcublas.so`), opened by its full path
//! with `RTLD_GLOBAL` after the cuBLASLt (`libcublasLt.so.13`) of the same folder, which cuBLAS
//! opens by name, and only then, once `is_culib_present` agrees and every function called here
//! is exported, is any cuBLAS function called. A missing cuBLAS is
//! [`Error::BackendUnavailable`](xp_backend_api::Error::BackendUnavailable) from
//! [`Device::blas`](xp_backend_api::Device::blas), naming `libcublas`, the places tried and
//! `pip install nvidia-cublas`.
//!
//! # Products
//! Each device has one cuBLAS handle, created on first use with the device's primary context
//! current and kept under a lock. [`Blas::gemm`] runs the checks every GPU BLAS shares
//! (`xp_backend_api::gpu::blas::open_gpu_gemm`: the description, the dtype, the stream's backend
//! and device, the buffers' pool, aligned offsets, spans inside the buffers, `C` overlapping
//! neither `A` nor `B`); then, holding the lock, binds the handle to the stream
//! (`cublasSetStream_v2`) and queues `cublasGemmEx_64` (one product) or
//! `cublasGemmStridedBatchedEx_64` with the column-major arguments of
//! `xp_backend_api::gpu::blas::ColumnMajorGemm` (the row-major product is computed as
//! `C^T = op(B)^T op(A)^T`). The 64-bit size API (cuBLAS 12 and later) takes every size xp can
//! describe. Types and compute types:
//!
//! | dtype | cuBLAS type | compute | `alpha`, `beta` |
//! | --- | --- | --- | --- |
//! | float16 | `CUDA_R_16F` | `CUBLAS_COMPUTE_32F` | f32 |
//! | bfloat16 | `CUDA_R_16BF` | `CUBLAS_COMPUTE_32F` | f32 |
//! | float32 | `CUDA_R_32F` | `CUBLAS_COMPUTE_32F` (`_FAST_TF32` with `XP_ALLOW_TF32=1`) | f32 |
//! | float64 | `CUDA_R_64F` | `CUBLAS_COMPUTE_64F` | f64 |
//! | complex64 | `CUDA_C_32F` | `CUBLAS_COMPUTE_32F` | complex f32 |
//! | complex128 | `CUDA_C_64F` | `CUBLAS_COMPUTE_64F` | complex f64 |
//!
//! float32 products are exact float32 unless the process sets `XP_ALLOW_TF32=1` (read once),
//! which lets cuBLAS use TF32 tensor cores (a 10-bit mantissa in the products), as CuPy's
//! `CUPY_TF32=1` does.
//!
//! # Workspace
//! cuBLAS keeps its own default workspace (allocated by cuBLAS with the CUDA runtime, outside
//! xp's pool); xp does not call `cublasSetWorkspace`.
//!
//! Every cuBLAS status other than success is [`Error::Driver`](xp_backend_api::Error::Driver)
//! with cuBLAS's name of the code (`CUBLAS_STATUS_INVALID_VALUE`); `CUBLAS_STATUS_ALLOC_FAILED`
//! says that memory ran out.

use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

use cudarc::cublas::sys;
use parking_lot::Mutex;
use xp_backend_api::gpu::blas::{blas_check, gpu_blas_supports, open_gpu_gemm, GemmScalar};
use xp_backend_api::gpu::GpuTarget;
use xp_backend_api::{Blas, Buffer, DType, Error, GemmDesc, MemoryPool, Result, Stream};

use crate::context::Context;
use crate::library;
use crate::stream::CudaStream;

/// `CUBLAS_STATUS_ALLOC_FAILED`.
const ALLOC_FAILED: i64 = 3;

/// cuBLAS's name of a status code.
fn status_name(code: i64) -> String {
    let suffix = match code {
        0 => "SUCCESS",
        1 => "NOT_INITIALIZED",
        3 => "ALLOC_FAILED",
        7 => "INVALID_VALUE",
        8 => "ARCH_MISMATCH",
        11 => "MAPPING_ERROR",
        13 => "EXECUTION_FAILED",
        14 => "INTERNAL_ERROR",
        15 => "NOT_SUPPORTED",
        16 => "LICENSE_ERROR",
        _ => return format!("cublasStatus {code}"),
    };
    format!("CUBLAS_STATUS_{suffix}")
}

/// `Ok` for `CUBLAS_STATUS_SUCCESS`, else the [`Error::Driver`] of `api`.
pub(crate) fn check(api: &str, r: sys::cublasStatus_t, detail: impl FnOnce() -> String) -> Result<()> {
    blas_check(api, r as i64, status_name, ALLOC_FAILED, detail)
}

/// cuBLAS's version (major, minor, patch), after finding the library.
pub(crate) fn cublas_version() -> Result<(i32, i32, i32)> {
    library::cublas()?;
    let get = |t: sys::libraryPropertyType| {
        let mut v = 0;
        // SAFETY: cuBLAS is loaded where cudarc finds it and exports cublasGetProperty
        // (`library::cublas`); the call writes one int through a valid pointer and needs no
        // handle or context.
        check("cublasGetProperty", unsafe { sys::cublasGetProperty(t, &mut v) }, String::new)?;
        Ok(v)
    };
    use sys::libraryPropertyType::*;
    Ok((get(MAJOR_VERSION)?, get(MINOR_VERSION)?, get(PATCH_LEVEL)?))
}

/// Whether float32 products may use TF32 tensor cores: `XP_ALLOW_TF32=1`, read once; a bad
/// value is the error of every product.
fn allow_tf32() -> Result<bool> {
    static TF32: OnceLock<Result<bool>> = OnceLock::new();
    TF32.get_or_init(|| xp_backend_api::env::switch("XP_ALLOW_TF32", false)).clone()
}

/// cuBLAS's data type and compute type for a product of `dtype` (see the module's table).
fn cublas_types(dtype: DType, tf32: bool) -> Option<(sys::cudaDataType, sys::cublasComputeType_t)> {
    use sys::cublasComputeType_t::*;
    use sys::cudaDataType::*;
    Some(match dtype {
        DType::F16 => (CUDA_R_16F, CUBLAS_COMPUTE_32F),
        DType::BF16 => (CUDA_R_16BF, CUBLAS_COMPUTE_32F),
        DType::F32 if tf32 => (CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32),
        DType::F32 => (CUDA_R_32F, CUBLAS_COMPUTE_32F),
        DType::F64 => (CUDA_R_64F, CUBLAS_COMPUTE_64F),
        DType::C64 => (CUDA_C_32F, CUBLAS_COMPUTE_32F),
        DType::C128 => (CUDA_C_64F, CUBLAS_COMPUTE_64F),
        _ => return None,
    })
}

/// `CUBLAS_OP_T` for a transposed operand, else `CUBLAS_OP_N`.
fn operation(transposed: bool) -> sys::cublasOperation_t {
    if transposed {
        sys::cublasOperation_t::CUBLAS_OP_T
    } else {
        sys::cublasOperation_t::CUBLAS_OP_N
    }
}

/// A cuBLAS handle.
struct Handle(sys::cublasHandle_t);

// SAFETY: a cuBLAS handle may be used from any host thread with its device's context current;
// `CublasLib` keeps it behind a lock, so one thread at a time binds it to a stream and queues.
unsafe impl Send for Handle {}

/// cuBLAS on one device.
pub struct CublasLib {
    /// The handle; its lock is held while it is bound to a stream and a product is queued.
    handle: Mutex<Handle>,
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
    version: (i32, i32, i32),
}

impl CublasLib {
    /// cuBLAS for the device of `ctx`, or `BackendUnavailable` naming `libcublas`.
    pub(crate) fn open(ctx: Arc<Context>, pool: Arc<MemoryPool>) -> Result<Self> {
        let version = cublas_version()?;
        ctx.enter("cublasCreate_v2")?;
        let mut h: sys::cublasHandle_t = std::ptr::null_mut();
        // SAFETY: cuBLAS is loaded (`cublas_version`); the device's context is current, so the
        // handle belongs to it; `h` is a valid out-pointer.
        check("cublasCreate_v2", unsafe { sys::cublasCreate_v2(&mut h) }, || format!("on {}", ctx.label))?;
        Ok(CublasLib { handle: Mutex::new(Handle(h)), ctx, pool, version })
    }
}

impl CublasLib {
    /// Run `f` with the handle bound to `stream`, holding its lock (for the solvers'
    /// transposes, `cublas?geam`).
    pub(crate) fn with_handle<R>(
        &self,
        stream: &CudaStream,
        f: impl FnOnce(sys::cublasHandle_t) -> Result<R>,
    ) -> Result<R> {
        self.ctx.enter("cublasSetStream_v2")?;
        let h = self.handle.lock();
        // SAFETY: the context is current; the handle is live and the stream is a live stream
        // of this device (the caller's), which cuBLAS only records.
        check(
            "cublasSetStream_v2",
            unsafe { sys::cublasSetStream_v2(h.0, stream.cu_stream() as sys::cudaStream_t) },
            || format!("on {}", self.ctx.label),
        )?;
        f(h.0)
    }
}

impl Blas for CublasLib {
    fn name(&self) -> String {
        let (major, minor, patch) = self.version;
        format!("cuBLAS {major}.{minor}.{patch}")
    }

    fn supports(&self, dtype: DType) -> bool {
        gpu_blas_supports(dtype)
    }

    fn gemm(
        &self,
        stream: &Arc<dyn Stream>,
        desc: &GemmDesc,
        a: (&Buffer, usize),
        b: (&Buffer, usize),
        c: (&Buffer, usize),
    ) -> Result<()> {
        let target = GpuTarget::new("cuda", "CUDA", self.ctx.ordinal, &self.ctx.label, &self.ctx.props, &self.pool);
        let (s, at, g) = open_gpu_gemm::<CudaStream>(&target, "cuBLAS", desc, stream, |s| s.device_ordinal(), a, b, c)?;
        if g.is_empty() {
            return Ok(());
        }
        let (ty, compute) = cublas_types(desc.dtype, allow_tf32()?)
            .ok_or_else(|| Error::unsupported_dtype("cuBLAS gemm", desc.dtype))?;
        let (alpha, beta) = (GemmScalar::new(desc.dtype, desc.alpha), GemmScalar::new(desc.dtype, desc.beta));
        self.ctx.enter("cublasGemmEx")?;
        let h = self.handle.lock();
        // SAFETY: the context is current; `h.0` is a live handle of this context; the stream is
        // a live stream of the same context (checked by `open_gpu_gemm`), kept alive by the
        // caller's `Arc` for the call (cuBLAS only records it).
        check(
            "cublasSetStream_v2",
            unsafe { sys::cublasSetStream_v2(h.0, s.cu_stream() as sys::cudaStream_t) },
            || format!("on {}", self.ctx.label),
        )?;
        // The call's A is the description's B, and its B the description's A.
        let (pa, pb, pc) =
            (at.b as usize as *const c_void, at.a as usize as *const c_void, at.c as usize as *mut c_void);
        let (ta, tb) = (operation(g.transa), operation(g.transb));
        let algo = sys::cublasGemmAlgo_t::CUBLAS_GEMM_DFALT;
        // SAFETY: the context is current and the handle bound to a stream of this device;
        // `pa`, `pb` and `pc` point into buffers of this device that hold each operand's whole
        // span past its offset, aligned to its element, `C` overlapping neither `A` nor `B`
        // (checked by `open_gpu_gemm`), and stay allocated until the stream's work on them ends
        // (the buffers are noted as used by the stream; stream-ordered pool); the leading
        // dimensions meet cuBLAS's minimums (`GemmDesc::check`); `alpha` and `beta` are host
        // values of the compute type's scale type, alive for the call (cuBLAS reads them before
        // returning, in the default host pointer mode).
        let (api, r) = unsafe {
            if g.batch == 1 {
                let r = sys::cublasGemmEx_64(
                    h.0,
                    ta,
                    tb,
                    g.m,
                    g.n,
                    g.k,
                    alpha.as_ptr(),
                    pa,
                    ty,
                    g.lda,
                    pb,
                    ty,
                    g.ldb,
                    beta.as_ptr(),
                    pc,
                    ty,
                    g.ldc,
                    compute,
                    algo,
                );
                ("cublasGemmEx_64", r)
            } else {
                let r = sys::cublasGemmStridedBatchedEx_64(
                    h.0,
                    ta,
                    tb,
                    g.m,
                    g.n,
                    g.k,
                    alpha.as_ptr(),
                    pa,
                    ty,
                    g.lda,
                    g.stride_a,
                    pb,
                    ty,
                    g.ldb,
                    g.stride_b,
                    beta.as_ptr(),
                    pc,
                    ty,
                    g.ldc,
                    g.stride_c,
                    g.batch,
                    compute,
                    algo,
                );
                ("cublasGemmStridedBatchedEx_64", r)
            }
        };
        check(api, r, || format!("{desc:?} on {}", self.ctx.label))
    }
}

impl Drop for CublasLib {
    fn drop(&mut self) {
        if self.ctx.is_corrupted() {
            return;
        }
        let h = self.handle.get_mut().0;
        let r = self.ctx.enter("cublasDestroy_v2").and_then(|_| {
            // SAFETY: the context is current and the handle is destroyed once, here. cuBLAS
            // synchronises the device before releasing its workspace, so a product still queued
            // with this handle completes first.
            check("cublasDestroy_v2", unsafe { sys::cublasDestroy_v2(h) }, String::new)
        });
        self.pool.defer(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_six_dtypes_have_cublas_types_and_tf32_only_when_allowed() {
        use sys::cublasComputeType_t::*;
        for d in DType::ALL {
            assert_eq!(cublas_types(d, false).is_some(), gpu_blas_supports(d), "{d:?}");
        }
        assert_eq!(cublas_types(DType::F32, false).unwrap().1, CUBLAS_COMPUTE_32F);
        assert_eq!(cublas_types(DType::F32, true).unwrap().1, CUBLAS_COMPUTE_32F_FAST_TF32);
        assert_eq!(cublas_types(DType::F16, true).unwrap().1, CUBLAS_COMPUTE_32F, "TF32 is for float32 only");
        assert_eq!(cublas_types(DType::C128, false).unwrap(), (sys::cudaDataType::CUDA_C_64F, CUBLAS_COMPUTE_64F));
        assert_eq!(sys::cudaDataType::CUDA_R_16BF as u32, 14);
        assert_eq!((operation(false) as u32, operation(true) as u32), (0, 1));
    }

    #[test]
    fn statuses_carry_cublas_names_and_out_of_memory_says_so() {
        assert_eq!(status_name(7), "CUBLAS_STATUS_INVALID_VALUE");
        assert_eq!(status_name(99), "cublasStatus 99");
        assert_eq!(sys::cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED as i64, ALLOC_FAILED);
        match check("cublasCreate_v2", sys::cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED, String::new) {
            Err(Error::Driver { name, detail, .. }) => {
                assert_eq!(name, "CUBLAS_STATUS_ALLOC_FAILED");
                assert!(detail.contains("memory"), "{detail}");
            }
            other => panic!("expected Error::Driver, got {other:?}"),
        }
    }
}
