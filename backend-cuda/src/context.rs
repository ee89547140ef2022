//! The primary context of a CUDA device: what its streams, events, modules and memory share,
//! and the entry check every driver call makes (current context, sticky errors).

use cudarc::driver::sys::{self, CUresult};
use xp_backend_api::gpu::{HostStaging, StickyError};
use xp_backend_api::{DeviceProperties, Error, Result};

use crate::result::{driver_error, error_name, is_sticky};

/// The primary context of one device, shared by its streams, events, modules and memory.
pub(crate) struct Context {
    pub(crate) ordinal: usize,
    pub(crate) label: String,
    pub(crate) raw: sys::CUcontext,
    pub(crate) props: DeviceProperties,
    sticky: StickyError,
    /// Pinned buffers for host-to-device copies (see the `memory` module).
    pub(crate) staging: HostStaging<sys::CUevent>,
}

// SAFETY: a CUcontext is a handle that the driver API accepts from any thread (the driver is
// thread-safe); xp makes it current on the calling thread before every use (`enter`), and
// never destroys it (the primary context is retained for the life of the process).
unsafe impl Send for Context {}
// SAFETY: as for `Send`; the only mutable state (`sticky`, `staging`) is thread-safe.
unsafe impl Sync for Context {}

impl Context {
    /// The context `raw` (a retained primary context, never released) of device `ordinal`.
    pub(crate) fn new(ordinal: usize, label: String, raw: sys::CUcontext, props: DeviceProperties) -> Self {
        Context { ordinal, label, raw, props, sticky: StickyError::new(), staging: HostStaging::new() }
    }

    /// Make the context current on this thread, or fail at once if a sticky error has
    /// corrupted it. Every entry point calls this before touching the driver.
    pub(crate) fn enter(&self, api: &str) -> Result<()> {
        if let Some(e) = self.corrupted(api) {
            return Err(e);
        }
        // Reading the thread's current context is cheaper than setting it; most calls find it set.
        let mut current: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: `current` is a valid out-pointer.
        if unsafe { sys::cuCtxGetCurrent(&mut current) } == sys::CUresult::CUDA_SUCCESS && current == self.raw {
            return Ok(());
        }
        // SAFETY: `raw` is the primary context retained in `CudaDevice::open`, never released.
        let r = unsafe { sys::cuCtxSetCurrent(self.raw) };
        self.check("cuCtxSetCurrent", r)
    }

    /// The error every call returns once the context is corrupted, or `None`.
    pub(crate) fn corrupted(&self, api: &str) -> Option<Error> {
        self.sticky
            .refuse(api, |p| {
                format!(
                    "the CUDA context of {} was corrupted by an earlier {} (reported by {}); every later \
                     call on this device fails: restart the process",
                    self.label, p.name, p.api
                )
            })
            .err()
    }

    /// Whether a sticky error has corrupted the context.
    pub(crate) fn is_corrupted(&self) -> bool {
        self.sticky.is_set()
    }

    /// `Ok` on success; otherwise the driver error, and a sticky one marks the context as
    /// corrupted.
    pub(crate) fn check(&self, api: &str, code: CUresult) -> Result<()> {
        if code == CUresult::CUDA_SUCCESS {
            return Ok(());
        }
        if is_sticky(code) {
            self.sticky.record(api, code as i64, &error_name(code));
            return Err(driver_error(
                api,
                code,
                &format!("the CUDA context of {} is now corrupted: restart the process", self.label),
            ));
        }
        Err(driver_error(api, code, ""))
    }
}
