use std::ffi::{c_char, CString};

use xp_backend_api::gpu::log_text;
use xp_backend_api::{Error, Result};

use crate::result::{self, c_strings, rtc_check};
use crate::sys::{self, hiprtcProgram, Hiprtc};

/// An owned hiprtc program, destroyed on drop.
pub struct Program {
    raw: hiprtcProgram,
    rtc: &'static Hiprtc,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program").field("raw", &self.raw).finish()
    }
}

impl Program {
    /// A program of `source`, named `name` in diagnostics.
    pub fn new(source: &str, name: &str) -> Result<Self> {
        let rtc = result::rtc()?;
        let src =
            CString::new(source).map_err(|_| Error::value("hiprtcCreateProgram", "the source contains a NUL byte"))?;
        let cname = CString::new(name)
            .map_err(|_| Error::value("hiprtcCreateProgram", format!("the name {name:?} contains a NUL byte")))?;
        let mut raw: hiprtcProgram = std::ptr::null_mut();
        // SAFETY: `raw` is a valid, writable handle slot; `src` and `cname` are NUL-terminated and
        // outlive the call (hiprtc copies them); no headers are passed, so both arrays are null.
        let code = unsafe {
            (rtc.hiprtcCreateProgram)(
                &mut raw,
                src.as_ptr(),
                cname.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        rtc_check("hiprtcCreateProgram", code)?;
        Ok(Program { raw, rtc })
    }

    /// Compile with `options`; returns hiprtc's result code (the log tells the rest).
    pub fn compile(&mut self, options: &[String]) -> Result<sys::hiprtcResult> {
        let (_owned, ptrs) = c_strings("hiprtcCompileProgram", options)?;
        let n = i32::try_from(ptrs.len()).map_err(|_| Error::value("hiprtcCompileProgram", "too many options"))?;
        // The header declares the array mutable; hiprtc only reads it.
        let p: *mut *const c_char = if ptrs.is_empty() { std::ptr::null_mut() } else { ptrs.as_ptr().cast_mut() };
        // SAFETY: `self.raw` is live; `p` points to `n` NUL-terminated strings kept alive by
        // `_owned` until the call returns, which hiprtc reads and does not write.
        Ok(unsafe { (self.rtc.hiprtcCompileProgram)(self.raw, n, p) })
    }

    /// The compiler's log (empty when there is none).
    pub fn log(&self) -> Result<String> {
        let mut size = 0usize;
        // SAFETY: `self.raw` is live; `size` is a valid, writable size_t.
        rtc_check("hiprtcGetProgramLogSize", unsafe { (self.rtc.hiprtcGetProgramLogSize)(self.raw, &mut size) })?;
        if size == 0 {
            return Ok(String::new());
        }
        let mut buf = vec![0u8; size];
        // SAFETY: `buf` has the `size` bytes hiprtc said the log needs.
        rtc_check("hiprtcGetProgramLog", unsafe { (self.rtc.hiprtcGetProgramLog)(self.raw, buf.as_mut_ptr().cast()) })?;
        Ok(log_text(&buf))
    }

    /// The compiled code object.
    pub fn code(&self) -> Result<Vec<u8>> {
        let mut size = 0usize;
        // SAFETY: `self.raw` is live; `size` is a valid, writable size_t.
        rtc_check("hiprtcGetCodeSize", unsafe { (self.rtc.hiprtcGetCodeSize)(self.raw, &mut size) })?;
        let mut buf = vec![0u8; size];
        if size > 0 {
            // SAFETY: `buf` has the `size` bytes hiprtc said the code needs.
            rtc_check("hiprtcGetCode", unsafe { (self.rtc.hiprtcGetCode)(self.raw, buf.as_mut_ptr().cast()) })?;
        }
        Ok(buf)
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: `self.raw` is live and this is its last use. A failure to free a program
        // concerns no device, so there is nowhere to report it; it is ignored.
        let _ = unsafe { (self.rtc.hiprtcDestroyProgram)(&mut self.raw) };
    }
}
