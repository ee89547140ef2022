// Written by hand from ROCm's rocblas/rocblas.h and rocblas/internal/rocblas-types.h
// (rocBLAS 2 to 4, ROCm 5 to 7), in the shape bindgen gives hip.rs and hiprtc.rs: a struct of
// function pointers filled from a `libloading::Library`, every symbol required. rocBLAS is not
// among the HIP 5.2 packages the other bindings are generated from, so generate.sh does not
// cover this file. Only the functions xp calls are declared. The enums are C enums, passed as
// ints; `rocblas_int` is 32-bit (the default, non-ILP64 build) and `rocblas_stride` 64-bit.

/// `rocblas_status`.
pub type rocblas_status = ::core::ffi::c_int;
pub const rocblas_status_success: rocblas_status = 0;
pub const rocblas_status_invalid_handle: rocblas_status = 1;
pub const rocblas_status_not_implemented: rocblas_status = 2;
pub const rocblas_status_invalid_pointer: rocblas_status = 3;
pub const rocblas_status_invalid_size: rocblas_status = 4;
pub const rocblas_status_memory_error: rocblas_status = 5;
pub const rocblas_status_internal_error: rocblas_status = 6;
pub const rocblas_status_perf_degraded: rocblas_status = 7;
pub const rocblas_status_size_query_mismatch: rocblas_status = 8;
pub const rocblas_status_size_increased: rocblas_status = 9;
pub const rocblas_status_size_unchanged: rocblas_status = 10;
pub const rocblas_status_invalid_value: rocblas_status = 11;
pub const rocblas_status_continue: rocblas_status = 12;
pub const rocblas_status_check_numerics_fail: rocblas_status = 13;
pub const rocblas_status_excluded_from_build: rocblas_status = 14;
pub const rocblas_status_arch_mismatch: rocblas_status = 15;

/// `rocblas_operation`.
pub type rocblas_operation = ::core::ffi::c_int;
pub const rocblas_operation_none: rocblas_operation = 111;
pub const rocblas_operation_transpose: rocblas_operation = 112;
pub const rocblas_operation_conjugate_transpose: rocblas_operation = 113;

/// `rocblas_datatype`.
pub type rocblas_datatype = ::core::ffi::c_int;
pub const rocblas_datatype_f16_r: rocblas_datatype = 150;
pub const rocblas_datatype_f32_r: rocblas_datatype = 151;
pub const rocblas_datatype_f64_r: rocblas_datatype = 152;
pub const rocblas_datatype_f16_c: rocblas_datatype = 153;
pub const rocblas_datatype_f32_c: rocblas_datatype = 154;
pub const rocblas_datatype_f64_c: rocblas_datatype = 155;
pub const rocblas_datatype_bf16_r: rocblas_datatype = 168;

/// `rocblas_gemm_algo`.
pub type rocblas_gemm_algo = ::core::ffi::c_int;
pub const rocblas_gemm_algo_standard: rocblas_gemm_algo = 0;

/// `rocblas_gemm_flags`, passed as `uint32_t`.
pub const rocblas_gemm_flags_none: u32 = 0;

/// `rocblas_int` (32-bit in the default build).
pub type rocblas_int = i32;
/// `rocblas_stride`.
pub type rocblas_stride = i64;

#[repr(C)]
#[derive(Debug)]
pub struct _rocblas_handle {
    _unused: [u8; 0],
}
/// `rocblas_handle`.
pub type rocblas_handle = *mut _rocblas_handle;

pub struct RocBlas {
    __library: ::libloading::Library,
    pub rocblas_create_handle: unsafe extern "C" fn(handle: *mut rocblas_handle) -> rocblas_status,
    pub rocblas_destroy_handle: unsafe extern "C" fn(handle: rocblas_handle) -> rocblas_status,
    pub rocblas_set_stream: unsafe extern "C" fn(handle: rocblas_handle, stream: super::hipStream_t) -> rocblas_status,
    pub rocblas_gemm_ex: unsafe extern "C" fn(
        handle: rocblas_handle,
        transA: rocblas_operation,
        transB: rocblas_operation,
        m: rocblas_int,
        n: rocblas_int,
        k: rocblas_int,
        alpha: *const ::core::ffi::c_void,
        a: *const ::core::ffi::c_void,
        a_type: rocblas_datatype,
        lda: rocblas_int,
        b: *const ::core::ffi::c_void,
        b_type: rocblas_datatype,
        ldb: rocblas_int,
        beta: *const ::core::ffi::c_void,
        c: *const ::core::ffi::c_void,
        c_type: rocblas_datatype,
        ldc: rocblas_int,
        d: *mut ::core::ffi::c_void,
        d_type: rocblas_datatype,
        ldd: rocblas_int,
        compute_type: rocblas_datatype,
        algo: rocblas_gemm_algo,
        solution_index: i32,
        flags: u32,
    ) -> rocblas_status,
    pub rocblas_gemm_strided_batched_ex: unsafe extern "C" fn(
        handle: rocblas_handle,
        transA: rocblas_operation,
        transB: rocblas_operation,
        m: rocblas_int,
        n: rocblas_int,
        k: rocblas_int,
        alpha: *const ::core::ffi::c_void,
        a: *const ::core::ffi::c_void,
        a_type: rocblas_datatype,
        lda: rocblas_int,
        stride_a: rocblas_stride,
        b: *const ::core::ffi::c_void,
        b_type: rocblas_datatype,
        ldb: rocblas_int,
        stride_b: rocblas_stride,
        beta: *const ::core::ffi::c_void,
        c: *const ::core::ffi::c_void,
        c_type: rocblas_datatype,
        ldc: rocblas_int,
        stride_c: rocblas_stride,
        d: *mut ::core::ffi::c_void,
        d_type: rocblas_datatype,
        ldd: rocblas_int,
        stride_d: rocblas_stride,
        batch_count: rocblas_int,
        compute_type: rocblas_datatype,
        algo: rocblas_gemm_algo,
        solution_index: i32,
        flags: u32,
    ) -> rocblas_status,
    pub rocblas_get_version_string: unsafe extern "C" fn(buf: *mut ::core::ffi::c_char, len: usize) -> rocblas_status,
    pub rocblas_get_version_string_size: unsafe extern "C" fn(len: *mut usize) -> rocblas_status,
}

impl RocBlas {
    pub unsafe fn from_library<L>(library: L) -> Result<Self, ::libloading::Error>
    where
        L: Into<::libloading::Library>,
    {
        let __library = library.into();
        let rocblas_create_handle = unsafe { __library.get(b"rocblas_create_handle\0") }.map(|sym| *sym)?;
        let rocblas_destroy_handle = unsafe { __library.get(b"rocblas_destroy_handle\0") }.map(|sym| *sym)?;
        let rocblas_set_stream = unsafe { __library.get(b"rocblas_set_stream\0") }.map(|sym| *sym)?;
        let rocblas_gemm_ex = unsafe { __library.get(b"rocblas_gemm_ex\0") }.map(|sym| *sym)?;
        let rocblas_gemm_strided_batched_ex =
            unsafe { __library.get(b"rocblas_gemm_strided_batched_ex\0") }.map(|sym| *sym)?;
        let rocblas_get_version_string = unsafe { __library.get(b"rocblas_get_version_string\0") }.map(|sym| *sym)?;
        let rocblas_get_version_string_size =
            unsafe { __library.get(b"rocblas_get_version_string_size\0") }.map(|sym| *sym)?;
        Ok(RocBlas {
            __library,
            rocblas_create_handle,
            rocblas_destroy_handle,
            rocblas_set_stream,
            rocblas_gemm_ex,
            rocblas_gemm_strided_batched_ex,
            rocblas_get_version_string,
            rocblas_get_version_string_size,
        })
    }
}
