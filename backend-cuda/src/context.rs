//! The primary context of a CUDA device: what its streams, events, modules and memory share,
//! and the entry check every driver call makes (current context, sticky errors).

use std::collections::HashSet;
use std::ffi::c_int;
use std::sync::Mutex;

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

/// Let `a` and `b` reach each other's memory when the hardware allows (`cuCtxEnablePeerAccess`
/// both ways, once per pair and process). Answers whether the copies between them are direct;
/// when not, `cuMemcpyPeerAsync` stages them through the host itself.
pub(crate) fn enable_peer_access(a: &Context, b: &Context) -> Result<bool> {
    static PAIRS: Mutex<Option<HashSet<(usize, usize, bool)>>> = Mutex::new(None);
    let key = (a.ordinal.min(b.ordinal), a.ordinal.max(b.ordinal));
    let mut g = PAIRS.lock().unwrap_or_else(|p| p.into_inner());
    let set = g.get_or_insert_with(HashSet::new);
    if let Some(&(_, _, direct)) = set.iter().find(|(x, y, _)| (*x, *y) == key) {
        return Ok(direct);
    }
    let can = |from: usize, to: usize| -> Result<bool> {
        let (mut df, mut dt): (sys::CUdevice, sys::CUdevice) = (0, 0);
        let (f, t) = (from as c_int, to as c_int);
        // SAFETY: the driver is initialised (a context exists); valid out-pointers.
        crate::result::check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut df, f) })?;
        // SAFETY: as above.
        crate::result::check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut dt, t) })?;
        let mut v: c_int = 0;
        // SAFETY: both are devices from cuDeviceGet; `v` is a valid out-pointer.
        crate::result::check("cuDeviceCanAccessPeer", unsafe { sys::cuDeviceCanAccessPeer(&mut v, df, dt) })?;
        Ok(v != 0)
    };
    let enable = |from: &Context, to: &Context| -> Result<()> {
        from.enter("cuCtxEnablePeerAccess")?;
        // SAFETY: `from` is current; `to` is a live primary context; flags must be 0.
        let r = unsafe { sys::cuCtxEnablePeerAccess(to.raw, 0) };
        if r == CUresult::CUDA_SUCCESS || r == CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
            Ok(())
        } else {
            from.check("cuCtxEnablePeerAccess", r)
        }
    };
    let direct = can(a.ordinal, b.ordinal)? && can(b.ordinal, a.ordinal)? && {
        enable(a, b)?;
        enable(b, a)?;
        true
    };
    set.insert((key.0, key.1, direct));
    Ok(direct)
}
