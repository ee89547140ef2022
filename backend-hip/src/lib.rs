//! The HIP backend of xp: AMD GPUs through the HIP runtime and hiprtc.
//!
//! Nothing is linked at build time: `libamdhip64` (and hiprtc, a separate `libhiprtc` from
//! ROCm 6, inside `libamdhip64` in ROCm 5) are opened with `libloading` the first time the
//! backend is used, so the crate builds on any machine, with no ROCm and no libclang.
//!
//! # Layers
//! - [`sys`]: raw declarations and the loader (one process-wide [`sys::HipLibrary`]).
//! - [`result`]: one function per runtime or hiprtc call, returning [`Result`]; a failing call is
//!   [`Error::Driver`] with the API, the vendor's code and its name (`hipErrorNoDevice`).
//! - [`safe`]: owning handles (stream, event, module, hiprtc program) released in `Drop`.
//! - [`HipBackend`], [`HipDevice`], [`HipStream`], [`HipEvent`], [`HipModule`], [`HipKernel`]:
//!   the `xp-backend-api` contract.
//!
//! # Contract, as this backend keeps it
//! 1. [`HipBackend::probe`] never panics. A runtime that cannot be opened is
//!    [`Error::BackendUnavailable`] naming every path tried; a machine without an AMD GPU is
//!    `BackendUnavailable` whose reason contains `hipErrorNoDevice`.
//! 2. Streams are non-blocking HIP streams; launches and device copies are asynchronous, copies
//!    to and from the host wait for their stream.
//! 3. Memory comes from the shared stream-ordered [`MemoryPool`](xp_backend_api::MemoryPool)
//!    over `hipMalloc`/`hipFree`, limited by `XP_GPU_MEMORY_LIMIT`; `hipErrorOutOfMemory` is
//!    [`Error::OutOfMemory`].
//! 4. Kernels are compiled by hiprtc for the device's `gcnArchName` (target features stripped)
//!    through the shared compile cache; [`compile_for_arch`] compiles without any GPU.
//! 5. Errors met in destructors are returned by the next `synchronize` of a stream or the
//!    device. After a sticky error (illegal address, kernel assert, ...) every runtime call
//!    fails with an error saying the process must be restarted (see [`result`]).
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use xp_backend_api::{Backend, Error, Result};

pub mod compile;
pub mod device;
pub mod event;
pub mod memory;
pub mod result;
pub mod safe;
pub mod stream;
pub mod sys;

pub use compile::{compile_for_arch, HipCompiler, HipKernel, HipModule};
pub use device::HipDevice;
pub use event::HipEvent;
pub use memory::HipMemory;
pub use stream::HipStream;

/// The HIP backend (`hip`).
#[derive(Debug, Clone, Copy, Default)]
pub struct HipBackend;

fn unavailable(reason: String) -> Error {
    Error::BackendUnavailable { backend: "hip".into(), reason }
}

/// Load the runtime, `hipInit(0)`, count the devices. Run once per process.
fn initialise() -> Result<usize> {
    let lib = sys::library()?;
    let where_ = format!("HIP runtime {}", lib.hip_path.display());
    // Without a device, ROCm 5 answers hipInit with hipErrorInvalidDevice and then
    // hipGetDeviceCount with hipErrorNoDevice; the count says what is wrong, so ask it too.
    let init = result::init();
    let init_note = match &init {
        Ok(()) => String::new(),
        Err(Error::Driver { name, .. }) => format!("; hipInit returned {name}"),
        Err(e) => format!("; hipInit failed: {e}"),
    };
    match result::device_count() {
        Ok(0) => Err(unavailable(format!(
            "no AMD GPU: hipGetDeviceCount found 0 devices (hipErrorNoDevice){init_note}; {where_}"
        ))),
        Ok(n) => match init {
            Ok(()) => Ok(n),
            Err(e) => Err(unavailable(format!("{e}; {where_}"))),
        },
        Err(Error::Driver { code, name, .. }) if code == sys::hipErrorNoDevice as i64 => {
            Err(unavailable(format!("no AMD GPU: hipGetDeviceCount returned {name}{init_note}; {where_}")))
        }
        Err(e) => Err(unavailable(format!("{e}{init_note}; {where_}"))),
    }
}

fn initialised() -> Result<usize> {
    static INIT: OnceLock<Result<usize>> = OnceLock::new();
    INIT.get_or_init(initialise).clone()
}

impl Backend for HipBackend {
    type Device = HipDevice;
    const NAME: &'static str = "hip";

    fn probe() -> Result<()> {
        initialised().map(|_| ())
    }

    fn device_count() -> Result<usize> {
        initialised()
    }

    fn device(ordinal: usize) -> Result<Arc<HipDevice>> {
        static DEVICES: OnceLock<Mutex<HashMap<usize, Arc<HipDevice>>>> = OnceLock::new();
        let n = initialised()?;
        if ordinal >= n {
            return Err(Error::Index {
                op: "hip device".into(),
                reason: format!("ordinal {ordinal} is out of range: this machine has {n} HIP device(s)"),
            });
        }
        let mut devices = DEVICES.get_or_init(Default::default).lock();
        if let Some(d) = devices.get(&ordinal) {
            return Ok(Arc::clone(d));
        }
        let d = Arc::new(HipDevice::open(ordinal)?);
        devices.insert(ordinal, Arc::clone(&d));
        Ok(d)
    }
}
