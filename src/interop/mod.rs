//! Zero-copy exchange with other libraries: DLPack (PyTorch, CuPy, NumPy, JAX), `ndarray` on
//! the CPU device, raw device pointers, and — with the `cudarc` feature — cudarc's device
//! slices. The array-level API is [`xp_array::interop`] (re-exported here); this module adds
//! what needs a vendor's API: ordering a *foreign* stream, named by its raw handle, after xp's
//! work, which is how the Array API's `__dlpack__(stream=…)` is answered.
//!
//! # The Array API's stream argument
//! [`to_dlpack_for`] and [`to_dlpack_legacy_for`] take the integer a consumer passes to
//! `__dlpack__(stream=…)`, with the standard's meaning for CUDA: `None` or `1` the legacy
//! default stream, `2` the per-thread default stream, `-1` no ordering (the consumer orders
//! itself), `0` refused (ambiguous), any other value a `CUstream` handle. xp records an event
//! on each stream that used the array's buffer and makes that stream wait for it
//! (`cuStreamWaitEvent`): a wait on the GPU, never on the host, as CuPy does. On the CPU
//! device the stream must be `None` (or `-1`), and the host waits for the array's work (a CPU
//! consumer has no stream). ROCm consumers may pass `-1` and order themselves; raw HIP stream
//! handles are not read yet.
//!
//! Going the other way, [`dlpack_stream_argument`] is what xp, as the consumer, passes to a
//! producer's `__dlpack__`: the raw handle of the device's current stream, so that the
//! producer orders its work before xp's.
//!
//! # Raw handles and contexts
//! The raw stream handle must belong to the primary context of the array's device (PyTorch,
//! CuPy and cudarc use the primary context, as xp does); the wait is issued with that context
//! current on the calling thread.
//!
//! # No candle bridge
//! A `candle` feature is left out: candle-core 0.11 would add about 70 crates that xp does not
//! build (tokenizers, regex, serde, safetensors, a second `zip`), and building them took 314 s
//! of CPU time with xp's test profile (304 s user, 11 s system), that is at least 157 s of wall
//! time on a two-core builder — over the 90 s a feature that the `--all-features` CI builds may
//! add. Its CUDA side also needs `nvcc` at build time. Candle's CUDA storage is a cudarc
//! allocation: its device pointer goes to `Array::from_raw_device_ptr`, and the `cudarc`
//! feature's `CudarcView` hands xp's memory the other way.

use std::sync::Arc;

use crate::{Array, DynDevice, Error, Result};

pub use xp_array::interop::dlpack::{self, ffi};
pub use xp_array::interop::{host, ConsumerStream, DLPackTensor, DLPackTensorLegacy, HostView};

#[cfg(feature = "cudarc")]
mod cudarc_bridge;
#[cfg(feature = "cudarc")]
pub use cudarc_bridge::{CudarcArray, CudarcView};

/// The Array API's stream argument, decided for `a`'s device, given to `f`.
fn with_consumer<R>(a: &Array, stream: Option<i64>, f: impl FnOnce(ConsumerStream<'_>) -> Result<R>) -> Result<R> {
    if stream == Some(-1) {
        return f(ConsumerStream::Unordered);
    }
    if stream == Some(0) {
        return Err(Error::value(
            "__dlpack__",
            "stream 0 is ambiguous (the Array API standard disallows it); pass 1 for the legacy default stream",
        ));
    }
    match a.device().backend_name() {
        _ if a.device().properties().is_host => match stream {
            None => f(ConsumerStream::Host),
            Some(s) => Err(Error::value("__dlpack__", format!("stream {s} for an array on the CPU (pass None)"))),
        },
        #[cfg(feature = "cuda")]
        "cuda" => {
            let raw = match stream {
                None | Some(1) => 0x1, // CU_STREAM_LEGACY
                Some(s) => s as u64,
            };
            let wait = move |ev: &dyn crate::backend::Event| cuda::wait_raw(raw, ev);
            f(ConsumerStream::Wait(&wait))
        }
        other => Err(Error::Unsupported(format!(
            "__dlpack__: a raw stream handle for an array on {} ({other}); pass stream=-1 and order the consumer \
             yourself",
            a.device().label()
        ))),
    }
}

/// [`Array::to_dlpack`] with the Array API's `stream` argument (see the module docs): the
/// body of a `__dlpack__` method.
pub fn to_dlpack_for(a: &Array, stream: Option<i64>) -> Result<DLPackTensor> {
    with_consumer(a, stream, |c| a.to_dlpack(c))
}

/// [`Array::to_dlpack_legacy`] with the Array API's `stream` argument, for consumers that do
/// not ask for DLPack ≥ 1.0 (`max_version` absent or below `(1, 0)`).
pub fn to_dlpack_legacy_for(a: &Array, stream: Option<i64>) -> Result<DLPackTensorLegacy> {
    with_consumer(a, stream, |c| a.to_dlpack_legacy(c))
}

/// What xp, consuming a tensor on `device`, passes as `stream=` to a producer's `__dlpack__`:
/// the raw handle of the device's current stream on a GPU, `None` on the CPU.
pub fn dlpack_stream_argument(device: &Arc<dyn DynDevice>) -> Option<i64> {
    raw_stream_handle(&crate::current_stream(device)).map(|h| h as i64)
}

/// The raw handle of an xp stream (`CUstream` as an integer), for another library to queue
/// work on it or wait for it; `None` for a stream of a backend without handles (the CPU) or
/// one this build cannot read.
pub fn raw_stream_handle(stream: &Arc<dyn crate::backend::Stream>) -> Option<u64> {
    #[cfg(feature = "cuda")]
    if let Some(s) = stream.as_any().downcast_ref::<xp_backend_cuda::CudaStream>() {
        return Some(s.cu_stream() as u64);
    }
    let _ = stream;
    None
}

#[cfg(feature = "cuda")]
pub(crate) mod cuda {
    use cudarc::driver::sys;

    use crate::backend::Event;
    use crate::{Error, Result};

    /// Make the raw CUDA stream `raw` wait, on the device, for `ev` (an xp CUDA event).
    pub(crate) fn wait_raw(raw: u64, ev: &dyn Event) -> Result<()> {
        let ev = ev.as_any().downcast_ref::<xp_backend_cuda::CudaEvent>().ok_or_else(|| {
            Error::Unsupported("__dlpack__: a CUDA stream cannot wait for an event of another backend".into())
        })?;
        // SAFETY: `raw` is a stream of the primary context (the caller's contract: a handle
        // the consumer gave, or CU_STREAM_LEGACY / CU_STREAM_PER_THREAD), which recording `ev`
        // made current on this thread; the event is live for the call, and the wait keeps what
        // it needs after the event is destroyed (CUDA's rule for cuEventDestroy).
        let r = unsafe { sys::cuStreamWaitEvent(raw as sys::CUstream, ev.cu_event(), 0) };
        match r {
            sys::CUresult::CUDA_SUCCESS => Ok(()),
            e => Err(Error::Driver {
                api: "cuStreamWaitEvent".into(),
                code: e as i64,
                name: format!("{e:?}"),
                detail: "ordering a DLPack consumer's stream after xp's work".into(),
            }),
        }
    }
}
