// Written by hand from ROCm's rocsparse/rocsparse-types.h, rocsparse-auxiliary.h and
// rocsparse-functions.h (rocSPARSE of ROCm 5.3, whose generic API is unchanged in the
// signatures used here through ROCm 6 and 7), in the shape bindgen gives hip.rs: a struct of
// function pointers filled from a `libloading::Library`, every symbol required. Only the
// functions xp calls are declared. The enums are C enums, passed as ints; sizes of the generic
// API are `int64_t`.

/// `rocsparse_status`.
pub type rocsparse_status = ::core::ffi::c_int;
pub const rocsparse_status_success: rocsparse_status = 0;
pub const rocsparse_status_invalid_handle: rocsparse_status = 1;
pub const rocsparse_status_not_implemented: rocsparse_status = 2;
pub const rocsparse_status_invalid_pointer: rocsparse_status = 3;
pub const rocsparse_status_invalid_size: rocsparse_status = 4;
pub const rocsparse_status_memory_error: rocsparse_status = 5;
pub const rocsparse_status_internal_error: rocsparse_status = 6;
pub const rocsparse_status_invalid_value: rocsparse_status = 7;
pub const rocsparse_status_arch_mismatch: rocsparse_status = 8;
pub const rocsparse_status_zero_pivot: rocsparse_status = 9;
pub const rocsparse_status_not_initialized: rocsparse_status = 10;
pub const rocsparse_status_type_mismatch: rocsparse_status = 11;
pub const rocsparse_status_requires_sorted_storage: rocsparse_status = 12;

/// `rocsparse_operation`.
pub type rocsparse_operation = ::core::ffi::c_int;
pub const rocsparse_operation_none: rocsparse_operation = 111;
pub const rocsparse_operation_transpose: rocsparse_operation = 112;
pub const rocsparse_operation_conjugate_transpose: rocsparse_operation = 113;

/// `rocsparse_index_base`.
pub type rocsparse_index_base = ::core::ffi::c_int;
pub const rocsparse_index_base_zero: rocsparse_index_base = 0;
pub const rocsparse_index_base_one: rocsparse_index_base = 1;

/// `rocsparse_pointer_mode`.
pub type rocsparse_pointer_mode = ::core::ffi::c_int;
pub const rocsparse_pointer_mode_host: rocsparse_pointer_mode = 0;
pub const rocsparse_pointer_mode_device: rocsparse_pointer_mode = 1;

/// `rocsparse_indextype`.
pub type rocsparse_indextype = ::core::ffi::c_int;
pub const rocsparse_indextype_u16: rocsparse_indextype = 1;
pub const rocsparse_indextype_i32: rocsparse_indextype = 2;
pub const rocsparse_indextype_i64: rocsparse_indextype = 3;

/// `rocsparse_datatype`.
pub type rocsparse_datatype = ::core::ffi::c_int;
pub const rocsparse_datatype_f32_r: rocsparse_datatype = 151;
pub const rocsparse_datatype_f64_r: rocsparse_datatype = 152;
pub const rocsparse_datatype_f32_c: rocsparse_datatype = 154;
pub const rocsparse_datatype_f64_c: rocsparse_datatype = 155;

/// `rocsparse_spgemm_stage`.
pub type rocsparse_spgemm_stage = ::core::ffi::c_int;
pub const rocsparse_spgemm_stage_auto: rocsparse_spgemm_stage = 0;
pub const rocsparse_spgemm_stage_buffer_size: rocsparse_spgemm_stage = 1;
pub const rocsparse_spgemm_stage_nnz: rocsparse_spgemm_stage = 2;
pub const rocsparse_spgemm_stage_compute: rocsparse_spgemm_stage = 3;
pub const rocsparse_spgemm_stage_symbolic: rocsparse_spgemm_stage = 4;
pub const rocsparse_spgemm_stage_numeric: rocsparse_spgemm_stage = 5;

/// `rocsparse_spgemm_alg`.
pub type rocsparse_spgemm_alg = ::core::ffi::c_int;
pub const rocsparse_spgemm_alg_default: rocsparse_spgemm_alg = 0;

#[repr(C)]
#[derive(Debug)]
pub struct _rocsparse_handle {
    _unused: [u8; 0],
}
/// `rocsparse_handle`.
pub type rocsparse_handle = *mut _rocsparse_handle;

#[repr(C)]
#[derive(Debug)]
pub struct _rocsparse_spmat_descr {
    _unused: [u8; 0],
}
/// `rocsparse_spmat_descr` (a `const rocsparse_spmat_descr` parameter is the same pointer).
pub type rocsparse_spmat_descr = *mut _rocsparse_spmat_descr;

pub struct RocSparse {
    __library: ::libloading::Library,
    pub rocsparse_create_handle: unsafe extern "C" fn(handle: *mut rocsparse_handle) -> rocsparse_status,
    pub rocsparse_destroy_handle: unsafe extern "C" fn(handle: rocsparse_handle) -> rocsparse_status,
    pub rocsparse_set_stream:
        unsafe extern "C" fn(handle: rocsparse_handle, stream: super::hipStream_t) -> rocsparse_status,
    pub rocsparse_set_pointer_mode:
        unsafe extern "C" fn(handle: rocsparse_handle, pointer_mode: rocsparse_pointer_mode) -> rocsparse_status,
    pub rocsparse_get_version:
        unsafe extern "C" fn(handle: rocsparse_handle, version: *mut ::core::ffi::c_int) -> rocsparse_status,
    pub rocsparse_create_csr_descr: unsafe extern "C" fn(
        descr: *mut rocsparse_spmat_descr,
        rows: i64,
        cols: i64,
        nnz: i64,
        csr_row_ptr: *mut ::core::ffi::c_void,
        csr_col_ind: *mut ::core::ffi::c_void,
        csr_val: *mut ::core::ffi::c_void,
        row_ptr_type: rocsparse_indextype,
        col_ind_type: rocsparse_indextype,
        idx_base: rocsparse_index_base,
        data_type: rocsparse_datatype,
    ) -> rocsparse_status,
    pub rocsparse_destroy_spmat_descr: unsafe extern "C" fn(descr: rocsparse_spmat_descr) -> rocsparse_status,
    pub rocsparse_csr_set_pointers: unsafe extern "C" fn(
        descr: rocsparse_spmat_descr,
        csr_row_ptr: *mut ::core::ffi::c_void,
        csr_col_ind: *mut ::core::ffi::c_void,
        csr_val: *mut ::core::ffi::c_void,
    ) -> rocsparse_status,
    pub rocsparse_spmat_get_size: unsafe extern "C" fn(
        descr: rocsparse_spmat_descr,
        rows: *mut i64,
        cols: *mut i64,
        nnz: *mut i64,
    ) -> rocsparse_status,
    pub rocsparse_spgemm: unsafe extern "C" fn(
        handle: rocsparse_handle,
        trans_A: rocsparse_operation,
        trans_B: rocsparse_operation,
        alpha: *const ::core::ffi::c_void,
        A: rocsparse_spmat_descr,
        B: rocsparse_spmat_descr,
        beta: *const ::core::ffi::c_void,
        D: rocsparse_spmat_descr,
        C: rocsparse_spmat_descr,
        compute_type: rocsparse_datatype,
        alg: rocsparse_spgemm_alg,
        stage: rocsparse_spgemm_stage,
        buffer_size: *mut usize,
        temp_buffer: *mut ::core::ffi::c_void,
    ) -> rocsparse_status,
}

/// Every symbol [`RocSparse`] resolves, in the order it resolves them.
pub const ROCSPARSE_SYMBOLS: [&str; 10] = [
    "rocsparse_create_handle",
    "rocsparse_destroy_handle",
    "rocsparse_set_stream",
    "rocsparse_set_pointer_mode",
    "rocsparse_get_version",
    "rocsparse_create_csr_descr",
    "rocsparse_destroy_spmat_descr",
    "rocsparse_csr_set_pointers",
    "rocsparse_spmat_get_size",
    "rocsparse_spgemm",
];

impl RocSparse {
    pub unsafe fn from_library<L>(library: L) -> Result<Self, ::libloading::Error>
    where
        L: Into<::libloading::Library>,
    {
        let __library = library.into();
        // SAFETY (each `get` below): the caller vouches that `__library` is rocSPARSE, whose
        // exports of these names have the signatures declared above; the pointers are stored
        // beside the library, which stays open as long as they do.
        let rocsparse_create_handle = unsafe { __library.get(b"rocsparse_create_handle\0") }.map(|sym| *sym)?;
        let rocsparse_destroy_handle = unsafe { __library.get(b"rocsparse_destroy_handle\0") }.map(|sym| *sym)?;
        let rocsparse_set_stream = unsafe { __library.get(b"rocsparse_set_stream\0") }.map(|sym| *sym)?;
        let rocsparse_set_pointer_mode = unsafe { __library.get(b"rocsparse_set_pointer_mode\0") }.map(|sym| *sym)?;
        let rocsparse_get_version = unsafe { __library.get(b"rocsparse_get_version\0") }.map(|sym| *sym)?;
        let rocsparse_create_csr_descr = unsafe { __library.get(b"rocsparse_create_csr_descr\0") }.map(|sym| *sym)?;
        let rocsparse_destroy_spmat_descr =
            unsafe { __library.get(b"rocsparse_destroy_spmat_descr\0") }.map(|sym| *sym)?;
        let rocsparse_csr_set_pointers = unsafe { __library.get(b"rocsparse_csr_set_pointers\0") }.map(|sym| *sym)?;
        let rocsparse_spmat_get_size = unsafe { __library.get(b"rocsparse_spmat_get_size\0") }.map(|sym| *sym)?;
        let rocsparse_spgemm = unsafe { __library.get(b"rocsparse_spgemm\0") }.map(|sym| *sym)?;
        Ok(RocSparse {
            __library,
            rocsparse_create_handle,
            rocsparse_destroy_handle,
            rocsparse_set_stream,
            rocsparse_set_pointer_mode,
            rocsparse_get_version,
            rocsparse_create_csr_descr,
            rocsparse_destroy_spmat_descr,
            rocsparse_csr_set_pointers,
            rocsparse_spmat_get_size,
            rocsparse_spgemm,
        })
    }
}
