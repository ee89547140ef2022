//! Matrix products on AMD GPUs: the contract's [`Blas`] over rocBLAS.
//!
//! # The library
//! rocBLAS is a column-major BLAS with cuBLAS's strided batched `gemm_ex` under other enum
//! values, so this file has the CUDA backend's shape (`backend-cuda/src/blas.rs`), and what the
//! two would otherwise both write — the row-major to column-major arguments, the scalars, the
//! dtypes, the status error, the checks before a call — is theirs in common, in
//! `xp_backend_api::blas`. Like hipFFT, rocBLAS is opened with `libloading` and called through
//! a table of function pointers ([`sys::RocBlas`], declared from ROCm's `rocblas/rocblas.h`):
//! no crate binds it, and nothing is linked at build time. It is looked for as
//! `librocblas.so.4` (ROCm 6 and 7), `.so.3`, `.so.0`, `.so` in `XP_ROCBLAS_PATH` (the file, or
//! a folder holding it), `$ROCM_PATH/lib`, `/opt/rocm/lib`, then on the loader path (see the
//! `sys` module), once per process, when a device's BLAS is first asked for; a missing library
//! is [`Error::BackendUnavailable`] naming
//! `librocblas`, the places tried and how to install it, and nothing panics.
//!
//! # Products
//! As on CUDA: one rocBLAS handle per device, created on first use with the device current
//! (`hipSetDevice`), kept under a lock while it is bound to the caller's stream
//! (`rocblas_set_stream`) and a product is queued: `rocblas_gemm_ex` for one product,
//! `rocblas_gemm_strided_batched_ex` for a batch, with `C` as both the input `C` and the output
//! `D` (rocBLAS computes in place when they are one matrix with one leading dimension),
//! `rocblas_gemm_algo_standard` and no flags. Types: float16 (`f16_r`), bfloat16 (`bf16_r`) and
//! float32 (`f32_r`) computed in `f32_r`, float64 in `f64_r`, complex64 in `f32_c`, complex128
//! in `f64_c`; `alpha` and `beta` in the compute type. `rocblas_int` is 32-bit, so sizes and
//! leading dimensions above `i32::MAX` are a `Value` error (the batch strides are 64-bit).
//! rocBLAS keeps its own default workspace (allocated by rocBLAS, outside xp's pool). Every
//! status other than success is [`Error::Driver`] with rocBLAS's
//! name of the code (`rocblas_status_invalid_size`); `rocblas_status_memory_error` says that
//! memory ran out.
//!
//! # Handles
//! Every HIP library's handle (this file's, rocSOLVER's, which is a rocBLAS handle too, hipFFT's
//! plans, rocSPARSE's) is owned by a `VendorHandle` made by `device_handle`, here: destroyed
//! once when dropped, with its device current, not at all after a sticky error, and a failure
//! kept for the device's next synchronising call.
//!
//! # Not run here
//! This code was built, its loader's failure paths and the argument mapping tested, on machines
//! without rocBLAS and without an AMD GPU: no product has run against a real rocBLAS.

use std::ffi::c_void;
use std::sync::Arc;

use parking_lot::Mutex;
use xp_backend_api::gpu::blas::{blas_check, gpu_blas_supports, open_gpu_gemm, ColumnMajorGemm, GemmScalar};
use xp_backend_api::gpu::GpuTarget;
use xp_backend_api::library::VendorHandle;
use xp_backend_api::{Blas, Buffer, DType, DeviceProperties, Error, GemmDesc, MemoryPool, Result, Stream};

use crate::stream::HipStream;
use crate::{result, sys};

/// rocBLAS's name of a status code.
fn status_name(code: i64) -> String {
    let suffix = match code {
        0 => "success",
        1 => "invalid_handle",
        2 => "not_implemented",
        3 => "invalid_pointer",
        4 => "invalid_size",
        5 => "memory_error",
        6 => "internal_error",
        7 => "perf_degraded",
        8 => "size_query_mismatch",
        9 => "size_increased",
        10 => "size_unchanged",
        11 => "invalid_value",
        12 => "continue",
        13 => "check_numerics_fail",
        14 => "excluded_from_build",
        15 => "arch_mismatch",
        _ => return format!("rocblas_status {code}"),
    };
    format!("rocblas_status_{suffix}")
}

/// `Ok` for `rocblas_status_success`, else the [`Error::Driver`] of `api` (rocSOLVER's
/// statuses are rocBLAS's, so the solvers use it too).
pub(crate) fn check(api: &str, r: sys::rocblas_status, detail: impl FnOnce() -> String) -> Result<()> {
    blas_check(api, r as i64, status_name, sys::rocblas_status_memory_error as i64, detail)
}

/// rocBLAS's version string (`4.2.0.abcdef`), after loading it.
pub(crate) fn rocblas_version() -> Result<String> {
    let lib = sys::rocblas()?;
    let mut len = 0usize;
    // SAFETY: the call writes one size through a valid pointer; `lib` keeps rocBLAS open.
    check(
        "rocblas_get_version_string_size",
        unsafe { (lib.api.rocblas_get_version_string_size)(&mut len) },
        String::new,
    )?;
    let mut buf = vec![0u8; len.max(1)];
    // SAFETY: `buf` holds `buf.len()` bytes, at least the size rocBLAS asked for (NUL included).
    let r = unsafe { (lib.api.rocblas_get_version_string)(buf.as_mut_ptr().cast(), buf.len()) };
    check("rocblas_get_version_string", r, String::new)?;
    Ok(xp_backend_api::gpu::log_text(&buf))
}

/// rocBLAS's data type and compute type for a product of `dtype`.
fn rocblas_types(dtype: DType) -> Option<(sys::rocblas_datatype, sys::rocblas_datatype)> {
    Some(match dtype {
        DType::F16 => (sys::rocblas_datatype_f16_r, sys::rocblas_datatype_f32_r),
        DType::BF16 => (sys::rocblas_datatype_bf16_r, sys::rocblas_datatype_f32_r),
        DType::F32 => (sys::rocblas_datatype_f32_r, sys::rocblas_datatype_f32_r),
        DType::F64 => (sys::rocblas_datatype_f64_r, sys::rocblas_datatype_f64_r),
        DType::C64 => (sys::rocblas_datatype_f32_c, sys::rocblas_datatype_f32_c),
        DType::C128 => (sys::rocblas_datatype_f64_c, sys::rocblas_datatype_f64_c),
        _ => return None,
    })
}

/// `rocblas_operation_transpose` for a transposed operand, else `rocblas_operation_none`.
fn operation(transposed: bool) -> sys::rocblas_operation {
    if transposed {
        sys::rocblas_operation_transpose
    } else {
        sys::rocblas_operation_none
    }
}

/// The arguments of one rocBLAS call, in the width rocBLAS takes them: what the tests check
/// and `gemm` passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RocblasGemm {
    trans_a: sys::rocblas_operation,
    trans_b: sys::rocblas_operation,
    m: sys::rocblas_int,
    n: sys::rocblas_int,
    k: sys::rocblas_int,
    lda: sys::rocblas_int,
    stride_a: sys::rocblas_stride,
    ldb: sys::rocblas_int,
    stride_b: sys::rocblas_stride,
    ldc: sys::rocblas_int,
    stride_c: sys::rocblas_stride,
    batch: sys::rocblas_int,
    data_type: sys::rocblas_datatype,
    compute_type: sys::rocblas_datatype,
}

impl RocblasGemm {
    /// The call for `desc`, whose column-major arguments are `g`.
    fn new(desc: &GemmDesc, g: &ColumnMajorGemm) -> Result<Self> {
        g.check_i32("rocBLAS gemm")?;
        let (data_type, compute_type) =
            rocblas_types(desc.dtype).ok_or_else(|| Error::unsupported_dtype("rocBLAS gemm", desc.dtype))?;
        // In range: checked by `check_i32` just above.
        let int = |v: i64| v as sys::rocblas_int;
        Ok(RocblasGemm {
            trans_a: operation(g.transa),
            trans_b: operation(g.transb),
            m: int(g.m),
            n: int(g.n),
            k: int(g.k),
            lda: int(g.lda),
            stride_a: g.stride_a,
            ldb: int(g.ldb),
            stride_b: g.stride_b,
            ldc: int(g.ldc),
            stride_c: g.stride_c,
            batch: int(g.batch),
            data_type,
            compute_type,
        })
    }
}

/// A handle of a HIP library (rocBLAS, hipFFT, rocSPARSE) made on device `ordinal`, which
/// `destroy` destroys when it is dropped: with the device current (`hipSetDevice`), and not at
/// all once a sticky error has made the context unusable (the handle went with it). A failure
/// is kept by `pool` for the device's next synchronising call.
///
/// # Safety
/// As [`VendorHandle::new`]: `raw` is a live handle of device `ordinal` that nothing else
/// destroys, usable from any host thread with its device current; `destroy` destroys it.
pub(crate) unsafe fn device_handle<H: Copy + 'static>(
    raw: H,
    ordinal: usize,
    pool: &Arc<MemoryPool>,
    destroy: impl FnOnce(H) -> Result<()> + Send + 'static,
) -> VendorHandle<H> {
    let on_device = move |h| {
        if result::sticky_error().is_some() {
            return Ok(());
        }
        result::set_device(ordinal).and_then(|_| destroy(h))
    };
    // SAFETY: the caller's contract is `new`'s.
    unsafe { VendorHandle::new(raw, Arc::clone(pool), on_device) }
}

/// A rocBLAS handle on device `ordinal` (rocSOLVER queues its calls on one too), destroyed when
/// dropped.
pub(crate) fn rocblas_handle(
    blas: &'static sys::RocBlas,
    ordinal: usize,
    pool: &Arc<MemoryPool>,
) -> Result<VendorHandle<sys::rocblas_handle>> {
    result::set_device(ordinal)?;
    let mut h: sys::rocblas_handle = std::ptr::null_mut();
    // SAFETY: rocBLAS is loaded; the device is current, so the handle belongs to it; `h` is a
    // valid out-pointer.
    check("rocblas_create_handle", unsafe { (blas.rocblas_create_handle)(&mut h) }, || format!("on hip:{ordinal}"))?;
    let destroy = move |h| {
        // SAFETY: the handle is live and destroyed once, here; rocBLAS waits for the work queued
        // with it before releasing its workspace.
        check("rocblas_destroy_handle", unsafe { (blas.rocblas_destroy_handle)(h) }, String::new)
    };
    // SAFETY: `h` was created just above, on device `ordinal`, and only the handle returned
    // destroys it, with `destroy`; a rocBLAS handle may be used from any host thread with its
    // device current, and its owners keep it behind a lock, so one thread at a time binds it to
    // a stream and queues.
    Ok(unsafe { device_handle(h, ordinal, pool, destroy) })
}

/// rocBLAS on one device.
pub struct RocBlasLib {
    blas: &'static sys::RocBlas,
    /// The handle; its lock is held while it is bound to a stream and a product is queued.
    handle: Mutex<VendorHandle<sys::rocblas_handle>>,
    ordinal: usize,
    label: String,
    props: Arc<DeviceProperties>,
    pool: Arc<MemoryPool>,
    version: String,
}

impl RocBlasLib {
    /// rocBLAS for device `ordinal`, or [`Error::BackendUnavailable`] naming `librocblas`.
    pub(crate) fn open(ordinal: usize, props: Arc<DeviceProperties>, pool: Arc<MemoryPool>) -> Result<Self> {
        let lib = sys::rocblas()?;
        let version = rocblas_version()?;
        let handle = rocblas_handle(&lib.api, ordinal, &pool)?;
        Ok(RocBlasLib {
            blas: &lib.api,
            handle: Mutex::new(handle),
            ordinal,
            label: format!("hip:{ordinal}"),
            props,
            pool,
            version,
        })
    }
}

impl Blas for RocBlasLib {
    fn name(&self) -> String {
        format!("rocBLAS {}", self.version)
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
        let target = GpuTarget::new("hip", "HIP", self.ordinal, &self.label, &self.props, &self.pool);
        let (s, at, g) = open_gpu_gemm::<HipStream>(&target, "rocBLAS", desc, stream, |s| s.ordinal(), a, b, c)?;
        if g.is_empty() {
            return Ok(());
        }
        let call = RocblasGemm::new(desc, &g)?;
        let (alpha, beta) = (GemmScalar::new(desc.dtype, desc.alpha), GemmScalar::new(desc.dtype, desc.beta));
        result::set_device(self.ordinal)?;
        let guard = self.handle.lock();
        let h = guard.raw();
        // SAFETY: `h` is a live handle of this device; the stream is a live stream of the same
        // device (checked by `open_gpu_gemm`), kept alive by the caller's `Arc` for the call.
        check("rocblas_set_stream", unsafe { (self.blas.rocblas_set_stream)(h, s.handle().raw()) }, || {
            format!("on {}", self.label)
        })?;
        // The call's A is the description's B, and its B the description's A.
        let (pa, pb, pc) =
            (at.b as usize as *const c_void, at.a as usize as *const c_void, at.c as usize as *mut c_void);
        let (ty, f) = (call.data_type, self.blas);
        let (algo, flags) = (sys::rocblas_gemm_algo_standard, sys::rocblas_gemm_flags_none);
        // SAFETY: the device is current and the handle bound to a stream of this device; `pa`,
        // `pb` and `pc` point into buffers of this device that hold each operand's whole span
        // past its offset, aligned to its element, `C` overlapping neither `A` nor `B` (checked
        // by `open_gpu_gemm`), and stay allocated until the stream's work on them ends (the
        // buffers are noted as used by the stream; stream-ordered pool); `C` is passed as both
        // `C` and `D` with one leading dimension and stride, which rocBLAS allows; the sizes fit
        // `rocblas_int` (`RocblasGemm::new`) and the leading dimensions meet rocBLAS's minimums
        // (`GemmDesc::check`); `alpha` and `beta` are host values of the compute type, alive
        // for the call (read before it returns, in the default host pointer mode).
        let (api, r) = unsafe {
            if call.batch == 1 {
                let r = (f.rocblas_gemm_ex)(
                    h,
                    call.trans_a,
                    call.trans_b,
                    call.m,
                    call.n,
                    call.k,
                    alpha.as_ptr(),
                    pa,
                    ty,
                    call.lda,
                    pb,
                    ty,
                    call.ldb,
                    beta.as_ptr(),
                    pc,
                    ty,
                    call.ldc,
                    pc,
                    ty,
                    call.ldc,
                    call.compute_type,
                    algo,
                    0,
                    flags,
                );
                ("rocblas_gemm_ex", r)
            } else {
                let r = (f.rocblas_gemm_strided_batched_ex)(
                    h,
                    call.trans_a,
                    call.trans_b,
                    call.m,
                    call.n,
                    call.k,
                    alpha.as_ptr(),
                    pa,
                    ty,
                    call.lda,
                    call.stride_a,
                    pb,
                    ty,
                    call.ldb,
                    call.stride_b,
                    beta.as_ptr(),
                    pc,
                    ty,
                    call.ldc,
                    call.stride_c,
                    pc,
                    ty,
                    call.ldc,
                    call.stride_c,
                    call.batch,
                    call.compute_type,
                    algo,
                    0,
                    flags,
                );
                ("rocblas_gemm_strided_batched_ex", r)
            }
        };
        check(api, r, || format!("{desc:?} on {}", self.label))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xp_backend_api::MatrixLayout;

    fn desc(trans_a: bool, trans_b: bool, a: MatrixLayout, b: MatrixLayout, batch: usize) -> GemmDesc {
        GemmDesc {
            dtype: DType::F32,
            m: 3,
            n: 5,
            k: 4,
            batch,
            trans_a,
            trans_b,
            a,
            b,
            c: MatrixLayout { ld: 7, batch_stride: 3 * 7 + 1 },
            alpha: 1.0,
            beta: 0.0,
        }
    }

    fn call(d: &GemmDesc) -> RocblasGemm {
        d.check("t").unwrap();
        RocblasGemm::new(d, &ColumnMajorGemm::new("t", d).unwrap()).unwrap()
    }

    #[test]
    fn row_major_products_become_column_major_calls_with_rocblas_enums() {
        // Plain: A 3×4 (ld 4), B 4×5 (ld 6, batch stride 30), C 3×5 (ld 7).
        let d =
            desc(false, false, MatrixLayout { ld: 4, batch_stride: 12 }, MatrixLayout { ld: 6, batch_stride: 30 }, 2);
        let c = call(&d);
        assert_eq!((c.trans_a, c.trans_b), (111, 111));
        assert_eq!((c.m, c.n, c.k), (5, 3, 4), "m and n swap");
        assert_eq!((c.lda, c.stride_a, c.ldb, c.stride_b), (6, 30, 4, 12), "the call's A is the description's B");
        assert_eq!((c.ldc, c.stride_c, c.batch), (7, 22, 2));
        assert_eq!((c.data_type, c.compute_type), (151, 151));
        // trans_a with B broadcast: the call's B is transposed, the call's A has stride 0.
        let d = desc(true, false, MatrixLayout { ld: 3, batch_stride: 12 }, MatrixLayout { ld: 5, batch_stride: 0 }, 4);
        let c = call(&d);
        assert_eq!((c.trans_a, c.trans_b, c.lda, c.stride_a, c.ldb, c.stride_b), (111, 112, 5, 0, 3, 12));
        // trans_b with A broadcast: the call's A is transposed.
        let d = desc(false, true, MatrixLayout { ld: 4, batch_stride: 0 }, MatrixLayout { ld: 4, batch_stride: 20 }, 3);
        let c = call(&d);
        assert_eq!((c.trans_a, c.trans_b, c.lda, c.stride_a, c.ldb, c.stride_b, c.batch), (112, 111, 4, 20, 4, 0, 3));
        // Both transposed.
        let d = desc(true, true, MatrixLayout { ld: 3, batch_stride: 12 }, MatrixLayout { ld: 4, batch_stride: 20 }, 1);
        let c = call(&d);
        assert_eq!((c.trans_a, c.trans_b, c.m, c.n, c.lda, c.ldb, c.ldc), (112, 112, 5, 3, 4, 3, 7));
    }

    #[test]
    fn each_dtype_has_its_rocblas_type_and_sizes_past_32_bits_are_refused() {
        let layout = MatrixLayout { ld: 5, batch_stride: 20 };
        let mut d = desc(false, false, MatrixLayout { ld: 4, batch_stride: 12 }, layout, 1);
        let want = [
            (DType::F16, (150, 151)),
            (DType::BF16, (168, 151)),
            (DType::F32, (151, 151)),
            (DType::F64, (152, 152)),
            (DType::C64, (154, 154)),
            (DType::C128, (155, 155)),
        ];
        for (dtype, types) in want {
            d.dtype = dtype;
            let c = call(&d);
            assert_eq!((c.data_type, c.compute_type), types, "{dtype:?}");
        }
        for dtype in DType::ALL {
            assert_eq!(rocblas_types(dtype).is_some(), gpu_blas_supports(dtype), "{dtype:?}");
        }
        d.dtype = DType::F32;
        d.c.ld = 1 << 31;
        d.c.batch_stride = 0;
        let e = RocblasGemm::new(&d, &ColumnMajorGemm::new("t", &d).unwrap()).unwrap_err();
        assert!(matches!(&e, Error::Value { op, .. } if op == "rocBLAS gemm"), "{e}");
    }

    #[test]
    fn statuses_carry_rocblas_names_and_out_of_memory_says_so() {
        assert_eq!(status_name(4), "rocblas_status_invalid_size");
        assert_eq!(status_name(99), "rocblas_status 99");
        match check("rocblas_gemm_ex", sys::rocblas_status_memory_error, String::new) {
            Err(Error::Driver { name, detail, code, .. }) => {
                assert_eq!((name.as_str(), code), ("rocblas_status_memory_error", 5));
                assert!(detail.contains("memory"), "{detail}");
            }
            other => panic!("expected Error::Driver, got {other:?}"),
        }
        assert!(check("rocblas_gemm_ex", sys::rocblas_status_success, String::new).is_ok());
    }

    #[test]
    fn without_rocblas_opening_is_backend_unavailable_and_never_panics() {
        use xp_backend_api::null::NullDevice;
        use xp_backend_api::Device;
        let dev = NullDevice::new(1 << 20, None).unwrap();
        let (props, pool) = (Arc::new(Device::properties(&dev).clone()), Arc::clone(Device::memory_pool(&dev)));
        let opened =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| RocBlasLib::open(0, props, pool).map(|_| ())));
        match (sys::rocblas(), opened.expect("opening rocBLAS must not panic")) {
            (Err(_), Err(Error::BackendUnavailable { backend, reason })) => {
                assert_eq!(backend, "hip");
                assert!(reason.contains("librocblas") && reason.contains("XP_ROCBLAS_PATH"), "{reason}");
            }
            (Err(_), other) => panic!("expected BackendUnavailable, got {:?}", other.err()),
            // rocBLAS is installed: opening then needs an AMD GPU, and fails or not without
            // panicking (checked by `expect` above).
            (Ok(_), _) => {}
        }
    }
}
