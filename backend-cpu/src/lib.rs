//! The CPU backend of xp.
//!
//! The CPU is one device (`cpu`). Memory is host memory under the shared stream-ordered pool
//! (`XP_CPU_MEMORY_LIMIT` caps it). A stream is a worker thread draining an in-order queue;
//! a kernel launch spreads the grid's blocks over the rayon pool (`RAYON_NUM_THREADS` sets its
//! size). Kernels are the same CUDA-dialect sources the GPU backends compile: the built-in ones
//! are compiled into this crate by `build.rs`, the rest (users' kernels, fused kernels) by the
//! system C++ compiler at run time, behind the compile cache. Kernels that call
//! `__syncthreads()` run their threads as fibers; see [`launch`](crate) for how.
//!
//! Dependencies: `cc` finds the C++ compiler the same way at build and run time, `libloading`
//! opens compiled kernels, `corosensei` gives stackful fibers with reusable stacks, `rayon`
//! schedules blocks over cores.
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

mod compile;
mod device;
mod event;
mod launch;
mod memory;
mod pinned;
mod stream;

use std::sync::Arc;

pub use compile::{builtin_count, CpuCompiler, CpuModule};
pub use device::CpuDevice;
pub use event::CpuEvent;
pub use launch::CpuKernel;
pub use stream::CpuStream;
use xp_backend_api::{Backend, Error, Result};

/// The CPU backend.
pub struct CpuBackend;

impl Backend for CpuBackend {
    type Device = CpuDevice;
    const NAME: &'static str = "cpu";

    fn probe() -> Result<()> {
        device().map(|_| ())
    }
    fn device_count() -> Result<usize> {
        Ok(1)
    }
    fn device(ordinal: usize) -> Result<Arc<CpuDevice>> {
        if ordinal != 0 {
            return Err(Error::BackendUnavailable {
                backend: "cpu".into(),
                reason: format!("there is one CPU device (cpu:0); cpu:{ordinal} does not exist"),
            });
        }
        device()
    }
}

use device::device;
