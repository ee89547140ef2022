//! Driver status codes to [`Error`]s.
//!
//! Every function here calls into the driver library, so it may only run once
//! [`crate::library::driver`] has found it (cudarc's loader panics otherwise); the types that
//! call them ([`crate::context::Context`] and everything holding one) exist only after that.

use std::ffi::CStr;

use cudarc::driver::sys::{self, CUresult};
use xp_backend_api::Error;

/// The driver's symbolic name of `code`, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
pub(crate) fn error_name(code: CUresult) -> String {
    let mut p = std::ptr::null();
    // SAFETY: the driver library is loaded (module docs); `p` is a valid out-pointer, and the
    // string it receives is static, NUL-terminated storage owned by the driver.
    let r = unsafe { sys::cuGetErrorName(code, &mut p) };
    if r == CUresult::CUDA_SUCCESS && !p.is_null() {
        // SAFETY: non-null `p` points at the driver's static NUL-terminated name.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    } else {
        format!("{code:?}")
    }
}

/// The driver's description of `code`, e.g. `an illegal memory access was encountered`.
pub(crate) fn error_string(code: CUresult) -> String {
    let mut p = std::ptr::null();
    // SAFETY: as in `error_name`: the library is loaded and `p` is a valid out-pointer to
    // static driver storage.
    let r = unsafe { sys::cuGetErrorString(code, &mut p) };
    if r == CUresult::CUDA_SUCCESS && !p.is_null() {
        // SAFETY: non-null `p` points at the driver's static NUL-terminated description.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    } else {
        String::new()
    }
}

/// An [`Error::Driver`] for `api` failing with `code`; `detail` is appended to the driver's
/// own description.
pub(crate) fn driver_error(api: &str, code: CUresult, detail: &str) -> Error {
    let mut text = error_string(code);
    if !detail.is_empty() {
        if !text.is_empty() {
            text.push_str("; ");
        }
        text.push_str(detail);
    }
    Error::Driver { api: api.to_string(), code: code as i64, name: error_name(code), detail: text }
}

/// `Ok` for `CUDA_SUCCESS`, else the [`Error::Driver`] of `api`.
pub(crate) fn check(api: &str, code: CUresult) -> Result<(), Error> {
    if code == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(driver_error(api, code, ""))
    }
}

/// Whether `code` leaves the context unusable: every later call in the process fails, and
/// the only way out is a new process.
pub(crate) fn is_sticky(code: CUresult) -> bool {
    use CUresult::*;
    matches!(
        code,
        CUDA_ERROR_ECC_UNCORRECTABLE
            | CUDA_ERROR_CONTAINED
            | CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_CONTEXT_IS_DESTROYED
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_TENSOR_MEMORY_LEAK
            | CUDA_ERROR_MPS_CLIENT_TERMINATED
            | CUDA_ERROR_EXTERNAL_DEVICE
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_in_kernels_are_sticky_and_ordinary_failures_are_not() {
        assert!(is_sticky(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
        assert!(is_sticky(CUresult::CUDA_ERROR_LAUNCH_FAILED));
        assert!(is_sticky(CUresult::CUDA_ERROR_MISALIGNED_ADDRESS));
        assert!(!is_sticky(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        assert!(!is_sticky(CUresult::CUDA_ERROR_INVALID_VALUE));
        assert!(!is_sticky(CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
        assert!(!is_sticky(CUresult::CUDA_ERROR_NOT_READY));
    }
}
