//! Raw declarations of the HIP runtime and hiprtc, and the loader that opens them at run time.
//!
//! Only the functions, types and constants xp uses are declared. They are written by hand to
//! match `hip/hip_runtime_api.h` and `hip/hiprtc.h` of ROCm 5.2, and checked against ROCm 6.3:
//! every declaration here has the same ABI in both (the values of the device attributes used
//! and of the error codes did not change). `backend-hip/sys/generate.sh` runs bindgen on the
//! installed headers with an allowlist of exactly these names; diff its output against this file
//! when moving to a new ROCm. A normal build needs neither libclang nor ROCm: nothing is linked,
//! the libraries are opened with `libloading` when the backend is first used.
//!
//! # Where the libraries are looked for
//! `libamdhip64` as `libamdhip64.so`, `.so.7`, `.so.6`, `.so.5`, first under `$ROCM_PATH/lib`,
//! then under `/opt/rocm/lib`, then by bare name through the dynamic loader's search path.
//! hiprtc from `libhiprtc.so`, `.so.7`, `.so.6`, `.so.5` in the same places, else from inside
//! `libamdhip64` itself (ROCm 5 ships hiprtc there).
//!
//! # `hipDeviceProp_t`
//! The properties struct changed layout in ROCm 6 (`hipDeviceProp_tR0600`, 1472 bytes, exported
//! as `hipGetDevicePropertiesR0600`) from ROCm 5 (792 bytes, `hipGetDeviceProperties`). xp
//! reads everything it can through `hipDeviceGetAttribute`; only the `gcnArchName` string
//! needs the struct, and [`GCN_ARCH_NAME_OFFSET_R0600`] / [`GCN_ARCH_NAME_OFFSET_R0000`] give its
//! offset in each layout (computed with `offsetof` against both headers).
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, missing_docs)]

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::path::PathBuf;
use std::sync::OnceLock;

use libloading::Library;
use xp_backend_api::{Error, Result};

/// `hipError_t`.
pub type hipError_t = c_int;
pub const hipSuccess: hipError_t = 0;
pub const hipErrorInvalidValue: hipError_t = 1;
pub const hipErrorOutOfMemory: hipError_t = 2;
pub const hipErrorPriorLaunchFailure: hipError_t = 53;
pub const hipErrorNoDevice: hipError_t = 100;
pub const hipErrorInvalidDevice: hipError_t = 101;
pub const hipErrorECCNotCorrectable: hipError_t = 214;
pub const hipErrorNotFound: hipError_t = 500;
pub const hipErrorNotReady: hipError_t = 600;
pub const hipErrorIllegalAddress: hipError_t = 700;
pub const hipErrorLaunchTimeOut: hipError_t = 702;
pub const hipErrorContextIsDestroyed: hipError_t = 709;
pub const hipErrorAssert: hipError_t = 710;
pub const hipErrorLaunchFailure: hipError_t = 719;

/// `hipDeviceAttribute_t` (a C enum, passed as `int`).
pub type hipDeviceAttribute_t = c_int;
pub const hipDeviceAttributeMaxBlockDimX: hipDeviceAttribute_t = 26;
pub const hipDeviceAttributeMaxBlockDimY: hipDeviceAttribute_t = 27;
pub const hipDeviceAttributeMaxBlockDimZ: hipDeviceAttribute_t = 28;
pub const hipDeviceAttributeMaxGridDimX: hipDeviceAttribute_t = 29;
pub const hipDeviceAttributeMaxGridDimY: hipDeviceAttribute_t = 30;
pub const hipDeviceAttributeMaxGridDimZ: hipDeviceAttribute_t = 31;
pub const hipDeviceAttributeMaxThreadsPerBlock: hipDeviceAttribute_t = 56;
pub const hipDeviceAttributeMultiprocessorCount: hipDeviceAttribute_t = 63;
pub const hipDeviceAttributeMaxSharedMemoryPerBlock: hipDeviceAttribute_t = 74;
pub const hipDeviceAttributeWarpSize: hipDeviceAttribute_t = 87;

/// `hipDevice_t`.
pub type hipDevice_t = c_int;
/// `hipDeviceptr_t`.
pub type hipDeviceptr_t = *mut c_void;

#[repr(C)]
pub struct ihipStream_t {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct ihipEvent_t {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct ihipModule_t {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct ihipModuleSymbol_t {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct _hiprtcProgram {
    _opaque: [u8; 0],
}

pub type hipStream_t = *mut ihipStream_t;
pub type hipEvent_t = *mut ihipEvent_t;
pub type hipModule_t = *mut ihipModule_t;
pub type hipFunction_t = *mut ihipModuleSymbol_t;
pub type hiprtcProgram = *mut _hiprtcProgram;

/// `hipStreamNonBlocking`: the stream does not synchronise with the null stream.
pub const hipStreamNonBlocking: c_uint = 0x01;

/// `hiprtcResult`.
pub type hiprtcResult = c_int;
pub const HIPRTC_SUCCESS: hiprtcResult = 0;
pub const HIPRTC_ERROR_COMPILATION: hiprtcResult = 6;

/// Offset of `gcnArchName` (`char[256]`) in `hipDeviceProp_tR0600` (ROCm 6 and later).
pub const GCN_ARCH_NAME_OFFSET_R0600: usize = 1160;
/// Offset of `gcnArchName` (`char[256]`) in the ROCm 5 `hipDeviceProp_t`.
pub const GCN_ARCH_NAME_OFFSET_R0000: usize = 396;
/// Bytes reserved for a `hipDeviceProp_t` of either layout (792 and 1472 bytes), with room to spare.
pub const DEVICE_PROP_BUFFER_BYTES: usize = 8192;

/// Declares a struct of function pointers and its loader; every symbol is required.
macro_rules! library {
    ($(#[$doc:meta])* pub struct $name:ident {
        $( pub $f:ident: fn($($arg:ty),* $(,)?) -> $ret:ty; )*
    }) => {
        $(#[$doc])*
        pub struct $name {
            $( pub $f: unsafe extern "C" fn($($arg),*) -> $ret, )*
        }

        impl $name {
            /// Resolve every symbol in `lib`; the error names the first one missing.
            ///
            /// # Safety
            /// `lib` must be the library these declarations describe, and must outlive the
            /// returned function pointers.
            unsafe fn resolve(lib: &Library) -> std::result::Result<Self, String> {
                Ok($name {
                    $(
                        // SAFETY: the caller guarantees `lib` exports this symbol with the
                        // signature declared here (it matches the vendor header).
                        $f: *unsafe {
                            lib.get::<unsafe extern "C" fn($($arg),*) -> $ret>(
                                concat!(stringify!($f), "\0").as_bytes(),
                            )
                        }
                        .map_err(|e| format!("symbol {} not found: {e}", stringify!($f)))?,
                    )*
                })
            }
        }
    };
}

library! {
    /// The HIP runtime functions xp calls.
    pub struct HipFunctions {
        pub hipInit: fn(c_uint) -> hipError_t;
        pub hipDriverGetVersion: fn(*mut c_int) -> hipError_t;
        pub hipRuntimeGetVersion: fn(*mut c_int) -> hipError_t;
        pub hipGetDeviceCount: fn(*mut c_int) -> hipError_t;
        pub hipDeviceGetAttribute: fn(*mut c_int, hipDeviceAttribute_t, c_int) -> hipError_t;
        pub hipDeviceGetName: fn(*mut c_char, c_int, hipDevice_t) -> hipError_t;
        pub hipDeviceTotalMem: fn(*mut usize, hipDevice_t) -> hipError_t;
        pub hipSetDevice: fn(c_int) -> hipError_t;
        pub hipDeviceSynchronize: fn() -> hipError_t;
        pub hipMalloc: fn(*mut *mut c_void, usize) -> hipError_t;
        pub hipFree: fn(*mut c_void) -> hipError_t;
        pub hipMemGetInfo: fn(*mut usize, *mut usize) -> hipError_t;
        pub hipStreamCreateWithFlags: fn(*mut hipStream_t, c_uint) -> hipError_t;
        pub hipStreamSynchronize: fn(hipStream_t) -> hipError_t;
        pub hipStreamDestroy: fn(hipStream_t) -> hipError_t;
        pub hipStreamWaitEvent: fn(hipStream_t, hipEvent_t, c_uint) -> hipError_t;
        pub hipEventCreate: fn(*mut hipEvent_t) -> hipError_t;
        pub hipEventRecord: fn(hipEvent_t, hipStream_t) -> hipError_t;
        pub hipEventSynchronize: fn(hipEvent_t) -> hipError_t;
        pub hipEventQuery: fn(hipEvent_t) -> hipError_t;
        pub hipEventElapsedTime: fn(*mut f32, hipEvent_t, hipEvent_t) -> hipError_t;
        pub hipEventDestroy: fn(hipEvent_t) -> hipError_t;
        pub hipMemcpyHtoDAsync: fn(hipDeviceptr_t, *mut c_void, usize, hipStream_t) -> hipError_t;
        pub hipMemcpyDtoHAsync: fn(*mut c_void, hipDeviceptr_t, usize, hipStream_t) -> hipError_t;
        pub hipMemcpyDtoDAsync: fn(hipDeviceptr_t, hipDeviceptr_t, usize, hipStream_t) -> hipError_t;
        pub hipModuleLoadData: fn(*mut hipModule_t, *const c_void) -> hipError_t;
        pub hipModuleGetFunction: fn(*mut hipFunction_t, hipModule_t, *const c_char) -> hipError_t;
        pub hipModuleLaunchKernel: fn(
            hipFunction_t,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            hipStream_t,
            *mut *mut c_void,
            *mut *mut c_void,
        ) -> hipError_t;
        pub hipModuleUnload: fn(hipModule_t) -> hipError_t;
        pub hipGetErrorName: fn(hipError_t) -> *const c_char;
    }
}

library! {
    /// The hiprtc functions xp calls.
    pub struct HiprtcFunctions {
        pub hiprtcVersion: fn(*mut c_int, *mut c_int) -> hiprtcResult;
        pub hiprtcCreateProgram: fn(
            *mut hiprtcProgram,
            *const c_char,
            *const c_char,
            c_int,
            *const *const c_char,
            *const *const c_char,
        ) -> hiprtcResult;
        pub hiprtcCompileProgram: fn(hiprtcProgram, c_int, *const *const c_char) -> hiprtcResult;
        pub hiprtcGetProgramLogSize: fn(hiprtcProgram, *mut usize) -> hiprtcResult;
        pub hiprtcGetProgramLog: fn(hiprtcProgram, *mut c_char) -> hiprtcResult;
        pub hiprtcGetCodeSize: fn(hiprtcProgram, *mut usize) -> hiprtcResult;
        pub hiprtcGetCode: fn(hiprtcProgram, *mut c_char) -> hiprtcResult;
        pub hiprtcDestroyProgram: fn(*mut hiprtcProgram) -> hiprtcResult;
        pub hiprtcGetErrorString: fn(hiprtcResult) -> *const c_char;
    }
}

/// `hipGetDeviceProperties` of either layout, writing into an opaque buffer.
pub type GetDevicePropertiesFn = unsafe extern "C" fn(*mut c_void, c_int) -> hipError_t;

/// The loaded HIP runtime (and hiprtc, when found). The libraries stay open for the life of
/// the process.
pub struct HipLibrary {
    /// The HIP runtime.
    pub hip: HipFunctions,
    /// hiprtc, or why it could not be loaded.
    pub rtc: std::result::Result<HiprtcFunctions, String>,
    /// The properties query and the offset of `gcnArchName` in the struct it fills, when the
    /// library exports one of the two known versions.
    pub device_properties: Option<(GetDevicePropertiesFn, usize)>,
    /// Where the HIP runtime was found.
    pub hip_path: PathBuf,
    /// Where hiprtc was found.
    pub rtc_path: Option<PathBuf>,
    _hip_lib: Library,
    _rtc_lib: Option<Library>,
}

impl std::fmt::Debug for HipLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HipLibrary").field("hip_path", &self.hip_path).field("rtc_path", &self.rtc_path).finish()
    }
}

const HIP_NAMES: [&str; 4] = ["libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"];
const HIPRTC_NAMES: [&str; 4] = ["libhiprtc.so", "libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5"];

fn candidates(names: &[&str]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(root) = std::env::var_os("ROCM_PATH").filter(|r| !r.is_empty()) {
        dirs.push(PathBuf::from(root).join("lib"));
    }
    dirs.push(PathBuf::from("/opt/rocm/lib"));
    let mut out: Vec<PathBuf> = dirs.iter().flat_map(|d| names.iter().map(move |n| d.join(n))).collect();
    out.extend(names.iter().map(PathBuf::from));
    out
}

/// Where `libamdhip64` is looked for, in order.
pub fn hip_candidates() -> Vec<PathBuf> {
    candidates(&HIP_NAMES)
}

/// Where a separate `libhiprtc` is looked for, in order.
pub fn hiprtc_candidates() -> Vec<PathBuf> {
    candidates(&HIPRTC_NAMES)
}

/// Open the first of `paths` that loads; the error lists every path tried with the loader's
/// message.
fn open_first(paths: &[PathBuf]) -> std::result::Result<(Library, PathBuf), String> {
    let mut tried = Vec::with_capacity(paths.len());
    for p in paths {
        // SAFETY: opening a shared library runs its initialisers; the candidates are the HIP
        // runtime or hiprtc, whose initialisers only set up their own state.
        match unsafe { Library::new(p) } {
            Ok(lib) => return Ok((lib, p.clone())),
            Err(e) => tried.push(format!("{} ({e})", p.display())),
        }
    }
    Err(format!("tried {}", tried.join("; ")))
}

fn unavailable(reason: String) -> Error {
    Error::BackendUnavailable { backend: "hip".into(), reason }
}

/// Load the HIP runtime from the first of `hip_paths` that opens, and hiprtc from the first of
/// `rtc_paths`, else from the runtime itself.
///
/// Failing to open the runtime is [`Error::BackendUnavailable`] whose reason names every path
/// tried. A missing hiprtc is not an error here; it is reported when something is compiled.
pub fn load_from(hip_paths: &[PathBuf], rtc_paths: &[PathBuf]) -> Result<HipLibrary> {
    let (hip_lib, hip_path) = open_first(hip_paths)
        .map_err(|tried| unavailable(format!("the HIP runtime (libamdhip64) could not be loaded: {tried}")))?;
    // SAFETY: `hip_lib` is libamdhip64, whose exports match the declarations of
    // `HipFunctions`; it is stored next to the pointers in `HipLibrary` and never unloaded first.
    let hip = unsafe { HipFunctions::resolve(&hip_lib) }
        .map_err(|e| unavailable(format!("{} is not a usable HIP runtime: {e}", hip_path.display())))?;
    let device_properties = properties_fn(&hip_lib);
    let (rtc, rtc_lib, rtc_path) = match open_first(rtc_paths) {
        Ok((lib, path)) => {
            // SAFETY: `lib` is libhiprtc, whose exports match `HiprtcFunctions`; it is kept
            // in `HipLibrary` as long as the pointers.
            let rtc = unsafe { HiprtcFunctions::resolve(&lib) }.map_err(|e| format!("{}: {e}", path.display()));
            (rtc, Some(lib), Some(path))
        }
        Err(tried) => {
            // ROCm 5: hiprtc lives inside libamdhip64.
            // SAFETY: `hip_lib` is libamdhip64; when it exports the hiprtc symbols they have the
            // hiprtc signatures, and the library lives as long as the pointers.
            match unsafe { HiprtcFunctions::resolve(&hip_lib) } {
                Ok(rtc) => (Ok(rtc), None, Some(hip_path.clone())),
                Err(e) => (Err(format!("hiprtc not found: {tried}; and {}: {e}", hip_path.display())), None, None),
            }
        }
    };
    Ok(HipLibrary { hip, rtc, device_properties, hip_path, rtc_path, _hip_lib: hip_lib, _rtc_lib: rtc_lib })
}

fn properties_fn(lib: &Library) -> Option<(GetDevicePropertiesFn, usize)> {
    for (sym, offset) in [
        (&b"hipGetDevicePropertiesR0600\0"[..], GCN_ARCH_NAME_OFFSET_R0600),
        (&b"hipGetDeviceProperties\0"[..], GCN_ARCH_NAME_OFFSET_R0000),
    ] {
        // SAFETY: both symbols take (a pointer to the properties struct, the device ordinal); the
        // struct's layout is told apart by the symbol name and recorded with the pointer.
        if let Ok(f) = unsafe { lib.get::<GetDevicePropertiesFn>(sym) } {
            return Some((*f, offset));
        }
    }
    None
}

/// The process-wide library, loaded on first use from the default places.
pub fn library() -> Result<&'static HipLibrary> {
    static LIBRARY: OnceLock<Result<HipLibrary>> = OnceLock::new();
    LIBRARY.get_or_init(|| load_from(&hip_candidates(), &hiprtc_candidates())).as_ref().map_err(Clone::clone)
}
