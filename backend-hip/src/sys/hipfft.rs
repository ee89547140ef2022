// Written by hand from ROCm's hipfft/hipfft.h (hipFFT 1.0, ROCm 5.2 to 7), in the shape
// bindgen gives hip.rs and hiprtc.rs: a struct of function pointers filled from a
// `libloading::Library`, every symbol required. The header is not among the HIP 5.2 packages
// the other bindings are generated from, so generate.sh does not cover this file.

/// `hipfftResult` (an enum in C, an int in the ABI).
pub type hipfftResult = ::core::ffi::c_int;
pub const HIPFFT_SUCCESS: hipfftResult = 0;
pub const HIPFFT_INVALID_PLAN: hipfftResult = 1;
pub const HIPFFT_ALLOC_FAILED: hipfftResult = 2;
pub const HIPFFT_INVALID_TYPE: hipfftResult = 3;
pub const HIPFFT_INVALID_VALUE: hipfftResult = 4;
pub const HIPFFT_INTERNAL_ERROR: hipfftResult = 5;
pub const HIPFFT_EXEC_FAILED: hipfftResult = 6;
pub const HIPFFT_SETUP_FAILED: hipfftResult = 7;
pub const HIPFFT_INVALID_SIZE: hipfftResult = 8;
pub const HIPFFT_UNALIGNED_DATA: hipfftResult = 9;
pub const HIPFFT_INCOMPLETE_PARAMETER_LIST: hipfftResult = 10;
pub const HIPFFT_INVALID_DEVICE: hipfftResult = 11;
pub const HIPFFT_PARSE_ERROR: hipfftResult = 12;
pub const HIPFFT_NO_WORKSPACE: hipfftResult = 13;
pub const HIPFFT_NOT_IMPLEMENTED: hipfftResult = 14;
pub const HIPFFT_NOT_SUPPORTED: hipfftResult = 16;

/// `hipfftType` (an enum in C, an int in the ABI); the values are cuFFT's.
pub type hipfftType = ::core::ffi::c_int;
pub const HIPFFT_R2C: hipfftType = 0x2a;
pub const HIPFFT_C2R: hipfftType = 0x2c;
pub const HIPFFT_C2C: hipfftType = 0x29;
pub const HIPFFT_D2Z: hipfftType = 0x6a;
pub const HIPFFT_Z2D: hipfftType = 0x6c;
pub const HIPFFT_Z2Z: hipfftType = 0x69;

pub const HIPFFT_FORWARD: ::core::ffi::c_int = -1;
pub const HIPFFT_BACKWARD: ::core::ffi::c_int = 1;

#[repr(C)]
#[derive(Debug)]
pub struct hipfftHandle_t {
    _unused: [u8; 0],
}
/// On AMD platforms a plan handle is a pointer (cuFFT's is an int).
pub type hipfftHandle = *mut hipfftHandle_t;

/// The data pointers of the executions: device addresses of interleaved complex or real
/// values. Declared as untyped pointers, as the ABI passes them.
pub type hipfftData = *mut ::core::ffi::c_void;

pub struct HipFft {
    __library: ::libloading::Library,
    pub hipfftCreate: unsafe extern "C" fn(plan: *mut hipfftHandle) -> hipfftResult,
    pub hipfftDestroy: unsafe extern "C" fn(plan: hipfftHandle) -> hipfftResult,
    pub hipfftSetAutoAllocation:
        unsafe extern "C" fn(plan: hipfftHandle, autoAllocate: ::core::ffi::c_int) -> hipfftResult,
    pub hipfftMakePlanMany64: unsafe extern "C" fn(
        plan: hipfftHandle,
        rank: ::core::ffi::c_int,
        n: *mut ::core::ffi::c_longlong,
        inembed: *mut ::core::ffi::c_longlong,
        istride: ::core::ffi::c_longlong,
        idist: ::core::ffi::c_longlong,
        onembed: *mut ::core::ffi::c_longlong,
        ostride: ::core::ffi::c_longlong,
        odist: ::core::ffi::c_longlong,
        type_: hipfftType,
        batch: ::core::ffi::c_longlong,
        workSize: *mut usize,
    ) -> hipfftResult,
    pub hipfftSetStream: unsafe extern "C" fn(plan: hipfftHandle, stream: super::hipStream_t) -> hipfftResult,
    pub hipfftSetWorkArea: unsafe extern "C" fn(plan: hipfftHandle, workArea: *mut ::core::ffi::c_void) -> hipfftResult,
    pub hipfftExecC2C: unsafe extern "C" fn(
        plan: hipfftHandle,
        idata: hipfftData,
        odata: hipfftData,
        direction: ::core::ffi::c_int,
    ) -> hipfftResult,
    pub hipfftExecZ2Z: unsafe extern "C" fn(
        plan: hipfftHandle,
        idata: hipfftData,
        odata: hipfftData,
        direction: ::core::ffi::c_int,
    ) -> hipfftResult,
    pub hipfftExecR2C: unsafe extern "C" fn(plan: hipfftHandle, idata: hipfftData, odata: hipfftData) -> hipfftResult,
    pub hipfftExecD2Z: unsafe extern "C" fn(plan: hipfftHandle, idata: hipfftData, odata: hipfftData) -> hipfftResult,
    pub hipfftExecC2R: unsafe extern "C" fn(plan: hipfftHandle, idata: hipfftData, odata: hipfftData) -> hipfftResult,
    pub hipfftExecZ2D: unsafe extern "C" fn(plan: hipfftHandle, idata: hipfftData, odata: hipfftData) -> hipfftResult,
    pub hipfftGetVersion: unsafe extern "C" fn(version: *mut ::core::ffi::c_int) -> hipfftResult,
}

impl HipFft {
    pub unsafe fn from_library<L>(library: L) -> Result<Self, ::libloading::Error>
    where
        L: Into<::libloading::Library>,
    {
        let __library = library.into();
        let hipfftCreate = unsafe { __library.get(b"hipfftCreate\0") }.map(|sym| *sym)?;
        let hipfftDestroy = unsafe { __library.get(b"hipfftDestroy\0") }.map(|sym| *sym)?;
        let hipfftSetAutoAllocation = unsafe { __library.get(b"hipfftSetAutoAllocation\0") }.map(|sym| *sym)?;
        let hipfftMakePlanMany64 = unsafe { __library.get(b"hipfftMakePlanMany64\0") }.map(|sym| *sym)?;
        let hipfftSetStream = unsafe { __library.get(b"hipfftSetStream\0") }.map(|sym| *sym)?;
        let hipfftSetWorkArea = unsafe { __library.get(b"hipfftSetWorkArea\0") }.map(|sym| *sym)?;
        let hipfftExecC2C = unsafe { __library.get(b"hipfftExecC2C\0") }.map(|sym| *sym)?;
        let hipfftExecZ2Z = unsafe { __library.get(b"hipfftExecZ2Z\0") }.map(|sym| *sym)?;
        let hipfftExecR2C = unsafe { __library.get(b"hipfftExecR2C\0") }.map(|sym| *sym)?;
        let hipfftExecD2Z = unsafe { __library.get(b"hipfftExecD2Z\0") }.map(|sym| *sym)?;
        let hipfftExecC2R = unsafe { __library.get(b"hipfftExecC2R\0") }.map(|sym| *sym)?;
        let hipfftExecZ2D = unsafe { __library.get(b"hipfftExecZ2D\0") }.map(|sym| *sym)?;
        let hipfftGetVersion = unsafe { __library.get(b"hipfftGetVersion\0") }.map(|sym| *sym)?;
        Ok(HipFft {
            __library,
            hipfftCreate,
            hipfftDestroy,
            hipfftSetAutoAllocation,
            hipfftMakePlanMany64,
            hipfftSetStream,
            hipfftSetWorkArea,
            hipfftExecC2C,
            hipfftExecZ2Z,
            hipfftExecR2C,
            hipfftExecD2Z,
            hipfftExecC2R,
            hipfftExecZ2D,
            hipfftGetVersion,
        })
    }
}
