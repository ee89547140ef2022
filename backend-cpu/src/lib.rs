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

pub mod blas;
mod compile;
mod device;
mod event;
pub mod fft;
mod launch;
mod memory;
mod pinned;
pub mod solver;
mod stream;
mod trap;

use std::sync::Arc;

pub use compile::{builtin_count, CpuCompiler, CpuModule};
pub use device::CpuDevice;
pub use event::CpuEvent;
pub use launch::CpuKernel;
pub use stream::{CpuGraph, CpuStream};
use xp_backend_api::{Backend, BackendInfo, Error, Result};

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
    fn info() -> BackendInfo {
        let (compiler, version) = cxx_compiler();
        BackendInfo {
            versions: vec![("C++ compiler".into(), version)],
            libraries: vec![("C++ compiler".into(), compiler)],
        }
    }
}

/// The C++ compiler run-time kernels are compiled with (found as `compile` finds it: `CXX`,
/// then the platform's default) and the first line of its `--version`; `none` and the reason
/// when there is none.
fn cxx_compiler() -> (String, String) {
    let tool = compile::cxx_build().try_get_compiler();
    let tool = match tool {
        Ok(t) => t,
        Err(e) => return ("none".into(), format!("none ({e})")),
    };
    let path = tool.path().display().to_string();
    match std::process::Command::new(tool.path()).arg("--version").output() {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout);
            let first = text.lines().next().unwrap_or("").trim().to_string();
            (path, if first.is_empty() { "unknown version".into() } else { first })
        }
        Ok(o) => (path, format!("none (`--version` exited with {})", o.status)),
        Err(e) => (path, format!("none (cannot run it: {e})")),
    }
}

use device::device;
