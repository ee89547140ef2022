//! The `cudarc` bridge (feature `cudarc`): an xp array lent to cudarc, and a cudarc
//! allocation taken by xp, without a copy.
//!
//! - [`CudarcArray::as_cudarc_view`] lends a C-contiguous array on `cuda:N` as a [`CudarcView`],
//!   which implements cudarc's `DeviceSlice`, `DevicePtr` and `DevicePtrMut`: it goes wherever
//!   cudarc takes a `CudaSlice` by reference (kernel arguments, `memcpy_dtoh`, cuBLAS through
//!   cudarc). It is a *borrowed* view: it never frees the memory, and the array outlives it (a
//!   Rust borrow). The cudarc stream it is made on waits for xp's work on the array first, and
//!   when the view is dropped xp's current stream waits for the work queued through it — both
//!   on the GPU.
//! - [`CudarcArray::from_cudarc_slice`] takes a `CudaSlice` by value: an *owned* import, whose
//!   slice is dropped (cudarc frees it, in its own stream order) when the last xp array over it
//!   goes, after xp's streams finished with it. xp's current stream waits for the slice's
//!   stream first.
//!
//! Both sides must use the device's primary context (cudarc's `CudaContext::new(ordinal)`
//! does, as xp does); the element type is any [`crate::Element`] that is also cudarc's
//! `DeviceRepr`.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice, SyncOnDrop};
use xp_array::interop::ConsumerStream;

use crate::{Array, Element, Error, Result};

fn driver_error(api: &str, e: cudarc::driver::DriverError) -> Error {
    Error::Driver {
        api: api.into(),
        code: e.0 as i64,
        name: format!("{:?}", e.0),
        detail: "exchanging memory with cudarc".into(),
    }
}

/// An xp array lent to cudarc ([`CudarcArray::as_cudarc_view`]): a borrowed device slice of `len`
/// elements of `T` that never frees its memory.
pub struct CudarcView<'a, T> {
    array: &'a Array,
    ptr: u64,
    len: usize,
    stream: Arc<CudaStream>,
    _t: PhantomData<*const T>,
}

impl<T> std::fmt::Debug for CudarcView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CudarcView({:#x}, {} elements of {})", self.ptr, self.len, self.array.dtype())
    }
}

/// The cudarc bridge's methods on [`Array`] (bring the trait into scope:
/// `use xp::interop::CudarcArray;`).
pub trait CudarcArray: Sized {
    /// Lend the array to cudarc as a device slice used on `stream` (see the
    /// [module docs](crate::interop)). Pending elements are computed first.
    ///
    /// Errors: an array that is not on the CUDA device of `stream`'s context, not C-contiguous
    /// (a `CudaSlice` is a run of elements: copy with `ascontiguousarray` first), or of a dtype
    /// other than `T`'s; a driver error.
    fn as_cudarc_view<T: Element + DeviceRepr>(&self, stream: &Arc<CudaStream>) -> Result<CudarcView<'_, T>>;

    /// Take a cudarc allocation as a C-contiguous array of `shape` on its device, without a
    /// copy (an owned import: see the [module docs](crate::interop)).
    ///
    /// Errors: a shape whose size is not the slice's length; no xp CUDA device for the slice's
    /// context; a driver error.
    fn from_cudarc_slice<T: Element + DeviceRepr>(slice: CudaSlice<T>, shape: &[usize]) -> Result<Self>;
}

impl CudarcArray for Array {
    fn as_cudarc_view<T: Element + DeviceRepr>(&self, stream: &Arc<CudaStream>) -> Result<CudarcView<'_, T>> {
        const OP: &str = "as_cudarc_view";
        let ordinal = stream.context().ordinal();
        if self.device().backend_name() != "cuda" || self.device().ordinal() != ordinal {
            return Err(Error::DeviceMismatch {
                op: OP.into(),
                lhs: self.device().label(),
                rhs: format!("cudarc stream of cuda:{ordinal}"),
            });
        }
        if T::DTYPE != self.dtype() {
            return Err(Error::DType {
                op: OP.into(),
                reason: format!("the array is {}, the slice's element type is {}", self.dtype(), T::DTYPE),
            });
        }
        if !self.is_contiguous() {
            return Err(Error::value(
                OP,
                format!("the array (shape {:?}, strides {:?}) is not C-contiguous", self.shape(), self.strides()),
            ));
        }
        stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        let raw = stream.cu_stream() as u64;
        let wait = move |ev: &dyn crate::backend::Event| super::cuda::wait_raw(raw, ev);
        // Exporting computes pending values (and their readers) and orders `stream`.
        drop(self.to_dlpack(ConsumerStream::Wait(&wait))?);
        Ok(CudarcView {
            array: self,
            ptr: self.data_ptr()?,
            len: self.size(),
            stream: Arc::clone(stream),
            _t: PhantomData,
        })
    }

    fn from_cudarc_slice<T: Element + DeviceRepr>(slice: CudaSlice<T>, shape: &[usize]) -> Result<Array> {
        const OP: &str = "from_cudarc_slice";
        let n: Option<usize> = shape.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
        if n != Some(slice.len()) {
            return Err(Error::ShapeMismatch {
                op: OP.into(),
                lhs: shape.to_vec(),
                rhs: vec![slice.len()],
                reason: "do not match: the shape's size must be the slice's length".into(),
            });
        }
        let ordinal = slice.stream().context().ordinal();
        let device = xp_array::device(&format!("cuda:{ordinal}"))?;
        let ptr = {
            let (p, record) = slice.device_ptr(slice.stream());
            drop::<SyncOnDrop<'_>>(record);
            p
        };
        // xp's stream waits for the work queued on the slice's stream (its writes).
        let ev = slice.stream().record_event(None).map_err(|e| driver_error("cuEventRecord", e))?;
        let xp_stream = crate::current_stream(&device);
        let xp_raw = super::raw_stream_handle(&xp_stream).ok_or_else(|| {
            Error::Unsupported(format!("{OP}: the current stream of {} has no handle", device.label()))
        })?;
        wait_cudarc_event(xp_raw, &ev)?;
        // SAFETY: `ptr` is the slice's allocation on `cuda:ordinal` (primary context, as xp's
        // device), `slice.len()` elements of `T` (xp's dtype `T::DTYPE`), C-contiguous; the
        // slice, moved into the owner, keeps it allocated until the last array goes, and
        // nothing else reaches it; its pending writes are ordered before xp's stream above.
        unsafe { Array::from_raw_device_ptr(ptr, shape, None, T::DTYPE, &device, Box::new(slice)) }
    }
}

/// Make the raw CUDA stream `raw` wait for a cudarc event.
fn wait_cudarc_event(raw: u64, ev: &CudaEvent) -> Result<()> {
    ev.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
    // SAFETY: `raw` is a live stream of the event's (primary) context, now current; the event
    // is live for the call.
    let r = unsafe { cudarc::driver::sys::cuStreamWaitEvent(raw as cudarc::driver::sys::CUstream, ev.cu_event(), 0) };
    match r {
        cudarc::driver::sys::CUresult::CUDA_SUCCESS => Ok(()),
        e => Err(driver_error("cuStreamWaitEvent", cudarc::driver::DriverError(e))),
    }
}

impl<T> CudarcView<'_, T> {
    /// The device address of the first element.
    pub fn device_address(&self) -> u64 {
        self.ptr
    }

    /// Order work on `stream`, another cudarc stream, after this view's stream (so after
    /// xp's work on the array).
    fn order(&self, stream: &CudaStream) {
        if stream.cu_stream() != self.stream.cu_stream() {
            let ctx = self.stream.context();
            match self.stream.record_event(None) {
                Ok(ev) => ctx.record_err(stream.wait(&ev)),
                Err(e) => ctx.record_err::<()>(Err(e)),
            }
        }
    }
}

impl<T> DeviceSlice<T> for CudarcView<'_, T> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl<T> DevicePtr<T> for CudarcView<'_, T> {
    fn device_ptr<'b>(&'b self, stream: &'b CudaStream) -> (cudarc::driver::sys::CUdeviceptr, SyncOnDrop<'b>) {
        self.order(stream);
        // Work on the view's own stream is covered when the view drops; other streams are
        // synchronised with the host, as cudarc does for memory it does not track.
        let sync = if stream.cu_stream() == self.stream.cu_stream() {
            SyncOnDrop::Record(None)
        } else {
            SyncOnDrop::sync_stream(stream)
        };
        (self.ptr, sync)
    }
}

impl<T> DevicePtrMut<T> for CudarcView<'_, T> {
    fn device_ptr_mut<'b>(&'b mut self, stream: &'b CudaStream) -> (cudarc::driver::sys::CUdeviceptr, SyncOnDrop<'b>) {
        self.order(stream);
        if stream.cu_stream() != self.stream.cu_stream() {
            return (self.ptr, SyncOnDrop::sync_stream(stream));
        }
        (self.ptr, SyncOnDrop::Record(None))
    }
}

impl<T> Drop for CudarcView<'_, T> {
    fn drop(&mut self) {
        // xp's later work on the array waits, on the GPU, for what cudarc queued on the view's
        // stream.
        let device = self.array.device_arc();
        let pool = Arc::clone(device.memory_pool());
        let xp_stream = crate::current_stream(&device);
        let Some(xp_raw) = super::raw_stream_handle(&xp_stream) else {
            return;
        };
        let r = self
            .stream
            .record_event(None)
            .map_err(|e| driver_error("cuEventRecord", e))
            .and_then(|ev| wait_cudarc_event(xp_raw, &ev));
        pool.defer(r);
    }
}
