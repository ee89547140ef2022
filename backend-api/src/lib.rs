//! The backend contract of xp.
//!
//! A backend (CPU, CUDA, HIP) implements a static trait family — [`Backend`] opens
//! [`Device`]s, whose associated types are its [`Stream`] and [`Module`] — and every
//! [`Device`] is also a [`DynDevice`] through a blanket impl, so that the array layer holds
//! `Arc<dyn DynDevice>` and picks the backend at run time.
//!
//! # The contract
//! 1. `probe()` never panics: a missing driver, library or device is
//!    [`Error::BackendUnavailable`] naming what is missing.
//! 2. Streams are in-order queues. Launches and device-to-device copies are asynchronous;
//!    copies to the host return when the bytes are there; copies from the host return when the
//!    source slice may be reused.
//! 3. Memory comes from the device's [`MemoryPool`], which is stream-ordered: a [`Buffer`]
//!    dropped while queued work still uses it is not reused by another stream before that work
//!    ends. Backends call [`Buffer::note_use`] for every buffer a launch or copy touches.
//! 4. Kernels are compiled from one source dialect (CUDA C++ plus `xp_prelude.h`, see the
//!    `xp-kernels` crate) through the shared [`CompileCache`]: memory, then disk, then the
//!    compiler. A compile error is [`Error::Compile`] with the compiler's full log and is
//!    never cached.
//! 5. `Drop` never panics: an error met in a destructor is kept by the pool
//!    ([`MemoryPool::record_deferred`]) and returned by the device's next synchronising call.
//!
//! The crate root holds the contract alone: the traits, descriptors, errors, dtypes, the pool
//! and the compile cache. What the GPU backends share beyond it — launch argument checks and
//! packing, sticky-error state, pinned staging, the device registry, the checks before a vendor
//! library is handed device buffers, the column-major BLAS call, cuFFT/hipFFT codes and the
//! NCCL table — is the [`gpu`] module, so that each backend keeps only its vendor calls.
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod blas;
pub mod capture;
pub mod collective;
pub mod compile;
pub mod device;
pub mod dtype;
pub mod env;
pub mod error;
pub mod fft;
pub mod gpu;
pub mod launch;
pub mod library;
pub mod memory;
pub mod null;
pub mod solver;
pub mod sparse;

pub use blas::{Blas, GemmDesc, MatrixLayout};
pub use capture::{CaptureMemory, CaptureState, Graph};
pub use compile::{CacheStats, CompileCache, CompileOptions, KernelCompiler, KernelSource};
pub use device::{
    Backend, BackendHandle, BackendInfo, Device, DeviceProperties, DynBackend, DynDevice, Event, Kernel, Module, Stream,
};
pub use dtype::{DType, DTypeKind};
pub use error::{Error, Result};
pub use fft::{FftDesc, FftKind, FftLib, FftPlan};
pub use launch::{resolve_args, scalar_bytes, Dim3, KernelArg, KernelScalar, LaunchConfig, RawArg};
pub use library::LibrarySearch;
pub use memory::{Buffer, MemoryPool, PinnedBuffer, PinnedMemoryPool, PoolStats, RawHostMemory, RawMemory};
pub use solver::{Solver, SolverCall, SolverDesc, SvdJob};

/// Check a launch configuration against a device's limits, before launching.
pub fn check_launch(kernel: &str, props: &DeviceProperties, cfg: &LaunchConfig) -> Result<()> {
    let err = |reason: String| Err(Error::Launch { kernel: kernel.to_string(), reason });
    let b = cfg.block;
    let g = cfg.grid;
    if b.volume() == 0 || g.volume() == 0 {
        return err(format!("empty grid {g:?} or block {b:?}"));
    }
    if b.volume() > props.max_threads_per_block as u64 {
        return err(format!(
            "block {}x{}x{} has {} threads; {} allows at most {}",
            b.x,
            b.y,
            b.z,
            b.volume(),
            props.name,
            props.max_threads_per_block
        ));
    }
    for (i, (v, m)) in [(b.x, props.max_block_dim[0]), (b.y, props.max_block_dim[1]), (b.z, props.max_block_dim[2])]
        .into_iter()
        .enumerate()
    {
        if v > m {
            return err(format!("block dimension {} is {v}; the device allows at most {m}", ["x", "y", "z"][i]));
        }
    }
    for (i, (v, m)) in [(g.x, props.max_grid_dim[0]), (g.y, props.max_grid_dim[1]), (g.z, props.max_grid_dim[2])]
        .into_iter()
        .enumerate()
    {
        if v > m {
            return err(format!("grid dimension {} is {v}; the device allows at most {m}", ["x", "y", "z"][i]));
        }
    }
    if cfg.shared_mem_bytes as usize > props.max_shared_memory_per_block {
        return err(format!(
            "{} bytes of dynamic shared memory; the device allows at most {}",
            cfg.shared_mem_bytes, props.max_shared_memory_per_block
        ));
    }
    Ok(())
}
