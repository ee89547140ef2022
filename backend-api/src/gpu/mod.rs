//! What the GPU backends (CUDA, HIP) share beyond the contract, so that each keeps only its
//! vendor calls. Nothing here is part of the contract the array layer sees: these are helpers
//! that two implementations of it would otherwise each write (as wgpu-hal keeps its shared
//! helpers in `auxil/`).
//!
//! | module | what CUDA and HIP share |
//! | --- | --- |
//! | [`launch`] | the checks that open every launch and copy ([`GpuTarget`]), argument packing |
//! | [`sticky`] | the first vendor error that poisons a context, refusing later calls |
//! | [`staging`] | pinned staging of host-to-device copies |
//! | [`event`] | refusing another backend's event; the errors of timing |
//! | [`registry`] | the devices opened so far, by ordinal |
//! | [`library_call`] | the checks before a vendor library is handed device buffers |
//! | [`blas`] | cuBLAS / rocBLAS: the column-major call of a row-major product |
//! | [`fft`] | cuFFT / hipFFT: type codes, directions, layouts, statuses |
//! | [`solver`] | cuSOLVER / rocSOLVER: the checks before a factorisation |
//! | [`nccl`] | NCCL / RCCL: the function table and the contract's collectives over it |
//!
//! Nothing here calls a vendor library directly, but for [`nccl`], whose one table serves NCCL
//! and RCCL alike. Where a piece needs the vendor (pinned memory, events, the current device),
//! it asks through a small trait ([`PinnedMemory`], [`nccl::NcclDevice`]) or a closure.

pub mod blas;
pub mod event;
pub mod fft;
pub mod launch;
pub mod library_call;
pub mod nccl;
pub mod registry;
pub mod solver;
pub mod staging;
pub mod sticky;

pub use event::{downcast_event, incomplete_event_error, untimed_event_error};
pub use launch::{check_launch_args, check_param_sizes, note_buffer_uses, GpuKernel, GpuTarget, PackedArgs};
pub use library_call::LibraryOperand;
pub use registry::DeviceRegistry;
pub use staging::{HostStaging, PinnedMemory, StagingChunk, MAX_STAGING_CHUNKS, STAGING_CHUNK};
pub use sticky::{Poison, StickyError};

/// The text of a NUL-terminated log buffer written by a runtime compiler, without the NUL and
/// without trailing white space.
pub fn log_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_end_at_the_nul_without_trailing_space() {
        assert_eq!(log_text(b"line 1: error\n\n\0garbage"), "line 1: error");
        assert_eq!(log_text(b"no nul "), "no nul");
    }
}
