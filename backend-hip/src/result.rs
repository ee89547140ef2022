//! Every HIP runtime and hiprtc call xp makes, one function each, returning [`Result`].
//!
//! A non-zero `hipError_t` becomes [`Error::Driver`] with the API's name, the numeric code and
//! the symbolic name from `hipGetErrorName` (e.g. `hipErrorNoDevice`).
//!
//! # Sticky errors
//! Some errors leave the GPU context unusable until the process ends: a kernel that touched an
//! illegal address, failed an `assert`, timed out, or hit an uncorrectable ECC error. The first
//! one is remembered process-wide (in the [`StickyError`] shared with the CUDA backend, which
//! keeps one per context); from then on every runtime call returns an error naming it, whose
//! detail says that the process must be restarted, without calling into HIP again. hiprtc
//! calls are not affected (they do not touch the device).
//!
//! Functions taking raw handles are `unsafe`: the caller vouches that the handle is live.

use std::ffi::{c_char, c_int, c_void, CStr, CString};

use xp_backend_api::gpu::StickyError;
use xp_backend_api::{Error, Result};

use crate::sys::{self, hipError_t, hipEvent_t, hipFunction_t, hipModule_t, hipStream_t, HipRuntime, Hiprtc};

/// The loaded HIP runtime.
pub fn hip() -> Result<&'static HipRuntime> {
    Ok(&sys::library()?.hip)
}

/// The loaded hiprtc; [`Error::BackendUnavailable`] when it is missing.
pub fn rtc() -> Result<&'static Hiprtc> {
    sys::library()?
        .rtc
        .as_ref()
        .map_err(|reason| Error::BackendUnavailable { backend: "hip".into(), reason: reason.clone() })
}

/// The symbolic name of a HIP error code, as `hipGetErrorName` gives it.
pub fn error_name(code: hipError_t) -> String {
    let Ok(hip) = hip() else {
        return format!("hipError({code})");
    };
    // SAFETY: hipGetErrorName takes any integer and returns a pointer to a static string (or null).
    let p = unsafe { (hip.hipGetErrorName)(code) };
    if p.is_null() {
        return format!("hipError({code})");
    }
    // SAFETY: `p` is non-null and points to a NUL-terminated static string owned by the runtime.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Whether `code` leaves the context unusable for the rest of the process.
pub fn is_sticky(code: hipError_t) -> bool {
    matches!(
        code,
        sys::hipErrorPriorLaunchFailure
            | sys::hipErrorECCNotCorrectable
            | sys::hipErrorIllegalAddress
            | sys::hipErrorLaunchTimeOut
            | sys::hipErrorContextIsDestroyed
            | sys::hipErrorAssert
            | sys::hipErrorLaunchFailure
    )
}

static STICKY: StickyError = StickyError::new();

const RESTART: &str = "the GPU context is unusable and the process must be restarted";

/// The first sticky error met, as (API, code, name).
pub fn sticky_error() -> Option<(String, i64, String)> {
    STICKY.get().map(|s| (s.api.clone(), s.code, s.name.clone()))
}

/// Map a return code to a result.
pub fn check(api: &'static str, code: hipError_t) -> Result<()> {
    if code == sys::hipSuccess {
        return Ok(());
    }
    let name = error_name(code);
    let detail = if is_sticky(code) {
        STICKY.record(api, code as i64, &name);
        format!("{name} is a sticky error: {RESTART}")
    } else {
        String::new()
    };
    Err(Error::Driver { api: api.into(), code: code as i64, name, detail })
}

/// Run one runtime call: fail at once after a sticky error, else call `f` and check its code.
fn call(api: &'static str, f: impl FnOnce(&HipRuntime) -> hipError_t) -> Result<()> {
    let hip = hip()?;
    STICKY.refuse(api, |s| format!("not called: {} failed earlier with {}; {RESTART}", s.api, s.name))?;
    check(api, f(hip))
}

/// `hipInit(0)`.
pub fn init() -> Result<()> {
    // SAFETY: hipInit takes a flags word that must be 0; it has no other preconditions.
    call("hipInit", |h| unsafe { (h.hipInit)(0) })
}

/// `hipGetDeviceCount`.
pub fn device_count() -> Result<usize> {
    let mut n: c_int = 0;
    // SAFETY: `n` is a valid, writable int for the duration of the call.
    call("hipGetDeviceCount", |h| unsafe { (h.hipGetDeviceCount)(&mut n) })?;
    Ok(n.max(0) as usize)
}

/// `hipRuntimeGetVersion`.
pub fn runtime_version() -> Result<i32> {
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid, writable int for the duration of the call.
    call("hipRuntimeGetVersion", |h| unsafe { (h.hipRuntimeGetVersion)(&mut v) })?;
    Ok(v)
}

/// `hipDriverGetVersion`.
pub fn driver_version() -> Result<i32> {
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid, writable int for the duration of the call.
    call("hipDriverGetVersion", |h| unsafe { (h.hipDriverGetVersion)(&mut v) })?;
    Ok(v)
}

fn ordinal_int(ordinal: usize) -> Result<c_int> {
    c_int::try_from(ordinal).map_err(|_| Error::value("hip device", format!("ordinal {ordinal} is out of range")))
}

/// `hipSetDevice`: make `ordinal` current on the calling thread.
pub fn set_device(ordinal: usize) -> Result<()> {
    let d = ordinal_int(ordinal)?;
    // SAFETY: hipSetDevice takes a plain integer and validates it.
    call("hipSetDevice", |h| unsafe { (h.hipSetDevice)(d) })
}

/// `hipDeviceGetAttribute`.
pub fn device_attribute(attr: sys::hipDeviceAttribute_t, ordinal: usize) -> Result<i32> {
    let d = ordinal_int(ordinal)?;
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid, writable int; `attr` is one of the declared attribute values and
    // the runtime validates the ordinal.
    call("hipDeviceGetAttribute", |h| unsafe { (h.hipDeviceGetAttribute)(&mut v, attr, d) })?;
    Ok(v)
}

/// `hipDeviceGetName`.
pub fn device_name(ordinal: usize) -> Result<String> {
    let d = ordinal_int(ordinal)?;
    let mut buf = [0u8; 256];
    // SAFETY: `buf` has room for the 256 bytes we tell the runtime it may write.
    call("hipDeviceGetName", |h| unsafe { (h.hipDeviceGetName)(buf.as_mut_ptr().cast(), buf.len() as c_int, d) })?;
    Ok(c_string_in(&buf))
}

/// `hipDeviceTotalMem`.
pub fn device_total_mem(ordinal: usize) -> Result<usize> {
    let d = ordinal_int(ordinal)?;
    let mut bytes = 0usize;
    // SAFETY: `bytes` is a valid, writable size_t for the duration of the call.
    call("hipDeviceTotalMem", |h| unsafe { (h.hipDeviceTotalMem)(&mut bytes, d) })?;
    Ok(bytes)
}

/// The device's `gcnArchName` (e.g. `gfx90a:sramecc+:xnack-`), from `hipGetDeviceProperties`
/// of whichever struct layout the runtime exports; `None` if it exports neither.
pub fn gcn_arch_name(ordinal: usize) -> Result<Option<String>> {
    let d = ordinal_int(ordinal)?;
    let Some((get, offset)) = sys::library()?.device_properties else {
        return Ok(None);
    };
    // u64 words, so the struct's 8-byte fields are aligned.
    let mut words = vec![0u64; sys::DEVICE_PROP_BUFFER_BYTES / 8];
    // SAFETY: `words` is larger than either layout of hipDeviceProp_t (792 or 1472 bytes) and
    // 8-byte aligned, so the runtime writes inside it at proper alignment.
    call("hipGetDeviceProperties", |_| unsafe { get(words.as_mut_ptr().cast::<c_void>(), d) })?;
    let buf: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
    let at = c_string_in(&buf[offset..offset + 256]);
    if at.starts_with("gfx") {
        return Ok(Some(at));
    }
    // An unknown layout: look for the name anywhere in the struct.
    Ok(find_gfx_name(&buf))
}

/// The first NUL-terminated string in `buf` that starts with `gfx` at a string boundary.
fn find_gfx_name(buf: &[u8]) -> Option<String> {
    (0..buf.len().saturating_sub(3))
        .filter(|&i| (i == 0 || buf[i - 1] == 0) && &buf[i..i + 3] == b"gfx")
        .map(|i| c_string_in(&buf[i..]))
        .find(|s| s.len() > 3 && s[3..].chars().next().is_some_and(|c| c.is_ascii_hexdigit()))
}

/// The NUL-terminated string at the start of `buf` (all of it when there is no NUL).
fn c_string_in(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// `hipDeviceSynchronize` on the current device.
pub fn device_synchronize() -> Result<()> {
    // SAFETY: no arguments; waits for the current device.
    call("hipDeviceSynchronize", |h| unsafe { (h.hipDeviceSynchronize)() })
}

/// `hipMalloc` on the current device.
pub fn malloc(bytes: usize) -> Result<u64> {
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: `p` is a valid, writable pointer slot for the duration of the call.
    call("hipMalloc", |h| unsafe { (h.hipMalloc)(&mut p, bytes) })?;
    Ok(p as u64)
}

/// `hipFree`.
///
/// # Safety
/// `ptr` came from [`malloc`], is freed once, and no queued work uses it.
pub unsafe fn free(ptr: u64) -> Result<()> {
    // SAFETY: the caller guarantees `ptr` is a live allocation of hipMalloc that nothing uses.
    call("hipFree", |h| unsafe { (h.hipFree)(ptr as *mut c_void) })
}

/// `hipHostMalloc(hipHostMallocDefault)`: `bytes` of page-locked host memory.
pub fn host_malloc(bytes: usize) -> Result<*mut u8> {
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: `p` is a valid, writable pointer slot; the flag is a documented value.
    call("hipHostMalloc", |h| unsafe { (h.hipHostMalloc)(&mut p, bytes, sys::hipHostMallocDefault) })?;
    Ok(p.cast())
}

/// `hipHostFree`.
///
/// # Safety
/// `ptr` came from [`host_malloc`], is freed once, and no queued work uses it.
pub unsafe fn host_free(ptr: *mut u8) -> Result<()> {
    // SAFETY: the caller guarantees `ptr` is a live allocation of hipHostMalloc that nothing uses.
    call("hipHostFree", |h| unsafe { (h.hipHostFree)(ptr.cast()) })
}

/// `hipMemGetInfo` on the current device: (free, total) bytes.
pub fn mem_get_info() -> Result<(usize, usize)> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: both out-parameters are valid, writable size_t values.
    call("hipMemGetInfo", |h| unsafe { (h.hipMemGetInfo)(&mut free, &mut total) })?;
    Ok((free, total))
}

/// `hipStreamCreateWithFlags(hipStreamNonBlocking)` on the current device.
pub fn stream_create_non_blocking() -> Result<hipStream_t> {
    let mut s: hipStream_t = std::ptr::null_mut();
    // SAFETY: `s` is a valid, writable handle slot; the flag is a documented value.
    call("hipStreamCreateWithFlags", |h| unsafe { (h.hipStreamCreateWithFlags)(&mut s, sys::hipStreamNonBlocking) })?;
    Ok(s)
}

/// `hipStreamSynchronize`.
///
/// # Safety
/// `stream` is a live stream.
pub unsafe fn stream_synchronize(stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller guarantees `stream` is live.
    call("hipStreamSynchronize", |h| unsafe { (h.hipStreamSynchronize)(stream) })
}

/// `hipStreamDestroy`.
///
/// # Safety
/// `stream` is a live stream, destroyed once and not used afterwards.
pub unsafe fn stream_destroy(stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller guarantees `stream` is live and that this is its last use.
    call("hipStreamDestroy", |h| unsafe { (h.hipStreamDestroy)(stream) })
}

/// `hipStreamWaitEvent`.
///
/// # Safety
/// `stream` and `event` are live.
pub unsafe fn stream_wait_event(stream: hipStream_t, event: hipEvent_t) -> Result<()> {
    // SAFETY: the caller guarantees both handles are live; flags must be 0.
    call("hipStreamWaitEvent", |h| unsafe { (h.hipStreamWaitEvent)(stream, event, 0) })
}

/// `hipEventCreate` (with timing) on the current device.
pub fn event_create() -> Result<hipEvent_t> {
    let mut e: hipEvent_t = std::ptr::null_mut();
    // SAFETY: `e` is a valid, writable handle slot.
    call("hipEventCreate", |h| unsafe { (h.hipEventCreate)(&mut e) })?;
    Ok(e)
}

/// `hipEventCreateWithFlags(hipEventDisableTiming)` on the current device: a lighter event
/// for ordering only.
pub fn event_create_without_timing() -> Result<hipEvent_t> {
    let mut e: hipEvent_t = std::ptr::null_mut();
    // SAFETY: `e` is a valid, writable handle slot; the flag is a documented value.
    call("hipEventCreateWithFlags", |h| unsafe { (h.hipEventCreateWithFlags)(&mut e, sys::hipEventDisableTiming) })?;
    Ok(e)
}

/// `hipEventRecord`.
///
/// # Safety
/// `event` and `stream` are live and belong to the same device.
pub unsafe fn event_record(event: hipEvent_t, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller guarantees both handles are live and of one device.
    call("hipEventRecord", |h| unsafe { (h.hipEventRecord)(event, stream) })
}

/// `hipEventSynchronize`.
///
/// # Safety
/// `event` is live.
pub unsafe fn event_synchronize(event: hipEvent_t) -> Result<()> {
    // SAFETY: the caller guarantees `event` is live.
    call("hipEventSynchronize", |h| unsafe { (h.hipEventSynchronize)(event) })
}

/// `hipEventQuery`: whether the event has completed.
///
/// # Safety
/// `event` is live.
pub unsafe fn event_query(event: hipEvent_t) -> Result<bool> {
    let mut code = sys::hipSuccess;
    let r = call("hipEventQuery", |h| {
        // SAFETY: the caller guarantees `event` is live.
        code = unsafe { (h.hipEventQuery)(event) };
        if code == sys::hipErrorNotReady {
            sys::hipSuccess
        } else {
            code
        }
    });
    r.map(|()| code == sys::hipSuccess)
}

/// `hipEventElapsedTime` from `start` to `end`, in milliseconds.
///
/// # Safety
/// Both events are live.
pub unsafe fn event_elapsed_ms(start: hipEvent_t, end: hipEvent_t) -> Result<f32> {
    let mut ms = 0f32;
    // SAFETY: the caller guarantees both events are live; `ms` is a valid, writable float.
    call("hipEventElapsedTime", |h| unsafe { (h.hipEventElapsedTime)(&mut ms, start, end) })?;
    Ok(ms)
}

/// `hipEventDestroy`.
///
/// # Safety
/// `event` is live, destroyed once and not used afterwards.
pub unsafe fn event_destroy(event: hipEvent_t) -> Result<()> {
    // SAFETY: the caller guarantees `event` is live and that this is its last use.
    call("hipEventDestroy", |h| unsafe { (h.hipEventDestroy)(event) })
}

/// `hipMemcpyHtoDAsync`.
///
/// # Safety
/// `dst..dst+bytes` is device memory that stays allocated until the copy ends; `src` points to
/// `bytes` readable bytes that stay valid and unchanged until the copy ends; `stream` is live.
pub unsafe fn memcpy_htod_async(dst: u64, src: *const u8, bytes: usize, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller guarantees both ranges and the stream; HIP only reads from `src`
    // (the header declares it `void*` for historical reasons).
    call("hipMemcpyHtoDAsync", |h| unsafe {
        (h.hipMemcpyHtoDAsync)(dst as *mut c_void, src as *mut c_void, bytes, stream)
    })
}

/// `hipMemcpyDtoHAsync`.
///
/// # Safety
/// `src..src+bytes` is device memory; `dst` points to `bytes` writable bytes that stay valid
/// until the copy ends; `stream` is live.
pub unsafe fn memcpy_dtoh_async(dst: *mut u8, src: u64, bytes: usize, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller guarantees both ranges and the stream.
    call("hipMemcpyDtoHAsync", |h| unsafe { (h.hipMemcpyDtoHAsync)(dst.cast(), src as *mut c_void, bytes, stream) })
}

/// `hipMemcpyDtoDAsync`.
///
/// # Safety
/// Both ranges are device memory that stays allocated until the copy ends; `stream` is live.
pub unsafe fn memcpy_dtod_async(dst: u64, src: u64, bytes: usize, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller guarantees both ranges and the stream.
    call("hipMemcpyDtoDAsync", |h| unsafe {
        (h.hipMemcpyDtoDAsync)(dst as *mut c_void, src as *mut c_void, bytes, stream)
    })
}

/// `hipMemcpyPeerAsync` from device `src_dev` to device `dst_dev`.
///
/// # Safety
/// Both ranges are device memory of their devices that stays allocated until the copy ends;
/// `stream` is live.
pub unsafe fn memcpy_peer_async(
    dst: u64,
    dst_dev: usize,
    src: u64,
    src_dev: usize,
    bytes: usize,
    stream: hipStream_t,
) -> Result<()> {
    let (d, s) = (ordinal_int(dst_dev)?, ordinal_int(src_dev)?);
    // SAFETY: the caller guarantees both ranges and the stream.
    call("hipMemcpyPeerAsync", |h| unsafe {
        (h.hipMemcpyPeerAsync)(dst as *mut c_void, d, src as *const c_void, s, bytes, stream)
    })
}

/// Let devices `a` and `b` reach each other's memory where the hardware allows
/// (`hipDeviceEnablePeerAccess` both ways, once per pair and process); whether they can.
pub fn enable_peer_access(a: usize, b: usize) -> Result<bool> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static PAIRS: Mutex<Option<HashMap<(usize, usize), bool>>> = Mutex::new(None);
    let key = (a.min(b), a.max(b));
    let mut g = PAIRS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&direct) = g.get_or_insert_with(HashMap::new).get(&key) {
        return Ok(direct);
    }
    let can = |from: usize, to: usize| -> Result<bool> {
        let (f, t) = (ordinal_int(from)?, ordinal_int(to)?);
        let mut v: c_int = 0;
        // SAFETY: `v` is a valid, writable int; the runtime validates both ordinals.
        call("hipDeviceCanAccessPeer", |h| unsafe { (h.hipDeviceCanAccessPeer)(&mut v, f, t) })?;
        Ok(v != 0)
    };
    let enable = |from: usize, to: usize| -> Result<()> {
        set_device(from)?;
        let t = ordinal_int(to)?;
        let hip = hip()?;
        // SAFETY: a plain ordinal and flags 0; "already enabled" is not a failure.
        let r = unsafe { (hip.hipDeviceEnablePeerAccess)(t, 0) };
        if r == sys::hipErrorPeerAccessAlreadyEnabled {
            return Ok(());
        }
        check("hipDeviceEnablePeerAccess", r)
    };
    let direct = can(a, b)? && can(b, a)? && {
        enable(a, b)?;
        enable(b, a)?;
        true
    };
    g.get_or_insert_with(HashMap::new).insert(key, direct);
    Ok(direct)
}

/// `hipModuleLoadData` on the current device.
///
/// # Safety
/// `image` is a complete code object (the runtime reads its size from the ELF header).
pub unsafe fn module_load_data(image: &[u8]) -> Result<hipModule_t> {
    let mut m: hipModule_t = std::ptr::null_mut();
    // SAFETY: the caller guarantees `image` is a whole code object, so the runtime reads
    // inside the slice; `m` is a valid, writable handle slot.
    call("hipModuleLoadData", |h| unsafe { (h.hipModuleLoadData)(&mut m, image.as_ptr().cast()) })?;
    Ok(m)
}

/// `hipModuleGetFunction`.
///
/// # Safety
/// `module` is live.
pub unsafe fn module_get_function(module: hipModule_t, name: &str) -> Result<hipFunction_t> {
    let cname = CString::new(name)
        .map_err(|_| Error::value("hipModuleGetFunction", format!("kernel name {name:?} contains a NUL byte")))?;
    let mut f: hipFunction_t = std::ptr::null_mut();
    // SAFETY: the caller guarantees `module` is live; `cname` is NUL-terminated and outlives the
    // call; `f` is a valid, writable handle slot.
    call("hipModuleGetFunction", |h| unsafe { (h.hipModuleGetFunction)(&mut f, module, cname.as_ptr()) })?;
    Ok(f)
}

/// `hipModuleUnload`.
///
/// # Safety
/// `module` is live, unloaded once, and none of its functions is used afterwards.
pub unsafe fn module_unload(module: hipModule_t) -> Result<()> {
    // SAFETY: the caller guarantees `module` is live and that this is its last use.
    call("hipModuleUnload", |h| unsafe { (h.hipModuleUnload)(module) })
}

/// `hipModuleLaunchKernel` with `kernelParams`.
///
/// # Safety
/// `function` and `stream` are live and of one device; `params` holds one pointer per kernel
/// parameter, each to bytes of that parameter's size and layout, valid for the call; every
/// device address passed stays allocated until the kernel ends.
#[allow(clippy::too_many_arguments)]
pub unsafe fn module_launch_kernel(
    function: hipFunction_t,
    grid: [u32; 3],
    block: [u32; 3],
    shared_mem_bytes: u32,
    stream: hipStream_t,
    params: &mut [*mut c_void],
) -> Result<()> {
    let p = if params.is_empty() { std::ptr::null_mut() } else { params.as_mut_ptr() };
    // SAFETY: the caller guarantees the handles and the parameter pointers; `extra` is null, as
    // allowed when `kernelParams` is given.
    call("hipModuleLaunchKernel", |h| unsafe {
        (h.hipModuleLaunchKernel)(
            function,
            grid[0],
            grid[1],
            grid[2],
            block[0],
            block[1],
            block[2],
            shared_mem_bytes,
            stream,
            p,
            std::ptr::null_mut(),
        )
    })
}

/// The symbolic name of a hiprtc result code (`HIPRTC_ERROR_COMPILATION`).
pub fn rtc_error_name(code: sys::hiprtcResult) -> String {
    let Ok(rtc) = rtc() else {
        return format!("hiprtcResult({code})");
    };
    // SAFETY: hiprtcGetErrorString takes any integer and returns a static string (or null).
    let p = unsafe { (rtc.hiprtcGetErrorString)(code) };
    if p.is_null() {
        return format!("hiprtcResult({code})");
    }
    // SAFETY: `p` is non-null and points to a NUL-terminated static string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Map a hiprtc result code to a result.
pub fn rtc_check(api: &'static str, code: sys::hiprtcResult) -> Result<()> {
    if code == sys::HIPRTC_SUCCESS {
        return Ok(());
    }
    Err(Error::Driver { api: api.into(), code: code as i64, name: rtc_error_name(code), detail: String::new() })
}

/// `hiprtcVersion`: (major, minor).
pub fn rtc_version() -> Result<(i32, i32)> {
    let rtc = rtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: both out-parameters are valid, writable ints.
    rtc_check("hiprtcVersion", unsafe { (rtc.hiprtcVersion)(&mut major, &mut minor) })?;
    Ok((major, minor))
}

/// Pointers to NUL-terminated copies of `strings`, kept alive by the returned owner.
pub(crate) fn c_strings(what: &str, strings: &[String]) -> Result<(Vec<CString>, Vec<*const c_char>)> {
    let owned = strings
        .iter()
        .map(|s| CString::new(s.as_str()).map_err(|_| Error::value(what, format!("{s:?} contains a NUL byte"))))
        .collect::<Result<Vec<_>>>()?;
    let ptrs = owned.iter().map(|c| c.as_ptr()).collect();
    Ok((owned, ptrs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_gfx_name_at_a_string_boundary() {
        let mut buf = vec![0u8; 64];
        buf[..12].copy_from_slice(b"AMD gfx card");
        buf[20..38].copy_from_slice(b"gfx90a:sramecc+:xn");
        assert_eq!(find_gfx_name(&buf).as_deref(), Some("gfx90a:sramecc+:xn"));
        assert_eq!(find_gfx_name(&[0u8; 16]), None);
    }

    #[test]
    fn sticky_codes_are_the_fatal_ones() {
        assert!(is_sticky(sys::hipErrorIllegalAddress));
        assert!(is_sticky(sys::hipErrorLaunchFailure));
        assert!(!is_sticky(sys::hipErrorOutOfMemory));
        assert!(!is_sticky(sys::hipErrorNoDevice));
    }
}
