//! Stream capture and graphs of the HIP runtime, declared by hand from ROCm's
//! `hip/hip_runtime_api.h` (present since ROCm 4.3; `hipGraphUpload` since ROCm 5.3). They
//! live apart from the generated runtime table so that a runtime without them still loads:
//! they are looked up in the same library on first use of a capture, and a missing symbol is
//! an `Unsupported` error of that capture.

use std::ffi::{c_char, c_uint, c_void};

use super::{hipError_t, hipStream_t};

/// `hipGraph_t`: a graph template.
pub type hipGraph_t = *mut c_void;
/// `hipGraphExec_t`: an executable graph.
pub type hipGraphExec_t = *mut c_void;
/// `hipGraphNode_t`.
pub type hipGraphNode_t = *mut c_void;
/// `hipStreamCaptureMode`.
pub type hipStreamCaptureMode = c_uint;
/// `hipStreamCaptureModeRelaxed`: other threads' unsafe calls are not refused.
pub const hipStreamCaptureModeRelaxed: hipStreamCaptureMode = 2;
/// `hipEventWaitExternal` (a wait inside a capture on an event recorded outside it).
pub const hipEventWaitExternal: c_uint = 1;

/// The capture and graph entry points xp calls.
pub struct HipGraphApi {
    /// `hipStreamBeginCapture(stream, mode)`.
    pub hipStreamBeginCapture: unsafe extern "C" fn(hipStream_t, hipStreamCaptureMode) -> hipError_t,
    /// `hipStreamEndCapture(stream, &graph)`.
    pub hipStreamEndCapture: unsafe extern "C" fn(hipStream_t, *mut hipGraph_t) -> hipError_t,
    /// `hipGraphInstantiate(&exec, graph, &error_node, log, log_size)`.
    pub hipGraphInstantiate:
        unsafe extern "C" fn(*mut hipGraphExec_t, hipGraph_t, *mut hipGraphNode_t, *mut c_char, usize) -> hipError_t,
    /// `hipGraphLaunch(exec, stream)`.
    pub hipGraphLaunch: unsafe extern "C" fn(hipGraphExec_t, hipStream_t) -> hipError_t,
    /// `hipGraphUpload(exec, stream)`, where the runtime has it.
    pub hipGraphUpload: Option<unsafe extern "C" fn(hipGraphExec_t, hipStream_t) -> hipError_t>,
    /// `hipGraphDestroy(graph)`.
    pub hipGraphDestroy: unsafe extern "C" fn(hipGraph_t) -> hipError_t,
    /// `hipGraphExecDestroy(exec)`.
    pub hipGraphExecDestroy: unsafe extern "C" fn(hipGraphExec_t) -> hipError_t,
    _lib: libloading::Library,
}

impl HipGraphApi {
    /// Look the entry points up in the runtime at `path`; the name of the first one missing
    /// otherwise.
    ///
    /// # Safety
    /// `path` is a HIP runtime whose exports have the signatures declared here.
    pub unsafe fn load(path: &std::path::Path) -> Result<Self, String> {
        // SAFETY: the caller names a HIP runtime, already opened by the backend (opening it
        // again returns the same handle and runs no new initialisers).
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the declared signature is the header's (caller's contract).
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|_| $name.to_string())?
            };
        }
        // SAFETY: as for `sym!`.
        let upload = unsafe { lib.get(b"hipGraphUpload\0") }.ok().map(|s| *s);
        Ok(HipGraphApi {
            hipStreamBeginCapture: sym!("hipStreamBeginCapture"),
            hipStreamEndCapture: sym!("hipStreamEndCapture"),
            hipGraphInstantiate: sym!("hipGraphInstantiate"),
            hipGraphLaunch: sym!("hipGraphLaunch"),
            hipGraphUpload: upload,
            hipGraphDestroy: sym!("hipGraphDestroy"),
            hipGraphExecDestroy: sym!("hipGraphExecDestroy"),
            _lib: lib,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library without the graph API (the C library here) is refused naming the first
    /// missing entry point, never at a later call.
    #[test]
    fn a_runtime_without_graphs_is_refused_by_name() {
        let libc = ["/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6"]
            .into_iter()
            .map(std::path::Path::new)
            .find(|p| p.exists());
        let Some(libc) = libc else {
            eprintln!("skipped: no libc.so.6 at the usual places");
            return;
        };
        // SAFETY: no symbol is called; the lookups fail before any would be.
        let e = unsafe { HipGraphApi::load(libc) }.err().expect("libc has no HIP graphs");
        assert_eq!(e, "hipStreamBeginCapture");
        // SAFETY: as above.
        let e = unsafe { HipGraphApi::load(std::path::Path::new("/nonexistent/libamdhip64.so")) }.err();
        assert!(e.is_some_and(|m| m.contains("libamdhip64")));
    }

    /// Without a HIP runtime the capture's error is the backend's, with its reason; with one,
    /// the entry points resolve.
    #[test]
    fn the_graph_api_is_found_or_its_absence_explained() {
        match crate::sys::graph_api() {
            Ok(_) => assert!(crate::sys::library().is_ok(), "graphs were found in a runtime that loads"),
            Err(e) => {
                let m = e.to_string();
                assert!(m.contains("HIP") || m.contains("hip"), "{m}");
            }
        }
    }
}
