//! Zero-copy exchange with other libraries: DLPack ([`dlpack`]), `ndarray` views of the CPU
//! device's memory ([`host`]), and raw device pointers ([`Array::from_raw_device_ptr`]).
//!
//! # Ownership
//! An array exported to another library shares xp's buffer: the export holds a clone of the
//! [`Array`], so the buffer lives until the other library lets go of it (DLPack's deleter, a
//! dropped view). Memory imported from another library becomes a *foreign* buffer
//! ([`xp_backend_api::Buffer::foreign`]): it never enters xp's memory pool, and the value that
//! owns it (a DLPack managed tensor, a `cudarc` allocation, an owned `ndarray`) is dropped when
//! the last xp array over it goes — after the streams that used it have finished, since the
//! foreign allocator does not follow xp's stream order.
//!
//! # Read-only memory
//! Memory lent without write access (a DLPack tensor flagged read-only, a shared `ndarray`, an
//! `ndarray` view) makes a read-only array: reads, views and copies work; a write into it
//! (in-place ops, `out=`, [`Array::set`]) is an error. While an [`Array::as_ndarray_view`] is
//! alive the array refuses writes too, so the host reader never sees the elements change.
//!
//! # Streams
//! Exports follow the Array API standard's rule for `__dlpack__(stream=…)`: the producer makes
//! its data ready *on the consumer's stream*, by an event recorded on each stream that used the
//! buffer and waited for on the consumer's stream, on the device; the host does not wait
//! ([`ConsumerStream`]). Only a consumer that reads on the host ([`ConsumerStream::Host`], the
//! CPU device's case) makes the host wait. Imports are used on the device's current stream
//! ([`crate::current_stream`]): a caller that takes a tensor from a GPU library names that
//! stream to the producer, so that the producer orders its work before it.

use std::any::Any;
use std::sync::Arc;

use xp_backend_api::{Buffer, DType, DynDevice, Error, Event, Result, Stream};

use crate::exec::current_stream;
use crate::layout::{Layout, MAX_DIMS};
use crate::Array;

pub mod dlpack;
pub mod host;

pub use dlpack::{DLPackTensor, DLPackTensorLegacy};
pub use host::HostView;

/// Where the consumer of an exported array will use it, and so how xp makes its pending work
/// on the array visible there.
#[derive(Clone, Copy)]
pub enum ConsumerStream<'a> {
    /// An xp stream (of any device of the backend): it waits, on the device, for the events
    /// recorded on every stream that used the buffer.
    Stream(&'a Arc<dyn Stream>),
    /// A stream xp does not own (another library's): the function is given each event to wait
    /// for and makes that stream wait for it on the device (`cuStreamWaitEvent`). The facade
    /// builds these from raw CUDA stream handles (`xp::interop`).
    Wait(&'a dyn Fn(&dyn Event) -> Result<()>),
    /// The consumer reads on the host (the CPU device, where a DLPack consumer has no stream):
    /// the host waits until the work on the array has finished.
    Host,
    /// The consumer orders itself (DLPack's `stream=-1`): xp does nothing.
    Unordered,
}

impl std::fmt::Debug for ConsumerStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConsumerStream::Stream(s) => write!(f, "ConsumerStream::Stream({})", s.id()),
            ConsumerStream::Wait(_) => f.write_str("ConsumerStream::Wait(..)"),
            ConsumerStream::Host => f.write_str("ConsumerStream::Host"),
            ConsumerStream::Unordered => f.write_str("ConsumerStream::Unordered"),
        }
    }
}

/// Make the work queued on `buffer` so far visible to `consumer` (see [`ConsumerStream`]).
pub(crate) fn order_for_consumer(buffer: &Buffer, consumer: ConsumerStream<'_>) -> Result<()> {
    match consumer {
        ConsumerStream::Stream(s) => buffer.order_after_users(s),
        ConsumerStream::Wait(wait) => {
            for ev in buffer.record_user_events()? {
                wait(&*ev)?;
            }
            Ok(())
        }
        ConsumerStream::Host => buffer.synchronize_users(),
        ConsumerStream::Unordered => Ok(()),
    }
}

impl Array {
    /// The device address of the first element (a host address on the CPU device); pending
    /// elements are computed first. Two arrays with equal `data_ptr` and layouts view the same
    /// memory: this is how a zero-copy exchange is checked.
    pub fn data_ptr(&self) -> Result<u64> {
        let buffer = self.storage.buffer()?;
        Ok(buffer.device_ptr() + (self.layout.offset() * self.itemsize()) as u64)
    }

    /// Whether writes into the array are refused (foreign memory lent read-only, see the
    /// [module docs](crate::interop)).
    pub fn is_read_only(&self) -> bool {
        self.storage.read_only
    }

    /// Wrap memory that another allocator owns as an array of `device`, without a copy.
    /// `ptr` is the address of the element at index `[0, 0, …]`; `strides` are in elements
    /// (C order when `None`) and may be negative or zero; `owner` is dropped when the last
    /// array over the memory goes, after xp's streams that used it have finished (put the
    /// foreign deleter in its `Drop`; pass `Box::new(())` for memory that outlives every use).
    /// The array is used on the device's current stream.
    ///
    /// Errors (nothing is wrapped, `owner` is dropped at once): a shape and strides of
    /// different lengths or more than 32 dimensions, a null or misaligned `ptr` (it must be a
    /// multiple of the dtype's size) for a non-empty array, an extent that overflows the address
    /// space.
    ///
    /// # Safety
    /// For as long as `owner` is alive:
    /// - every element the shape and strides reach, from `ptr`, lies in one allocation of
    ///   `device`'s memory (device memory of that GPU; host memory for the CPU device) that
    ///   stays allocated;
    /// - that memory holds valid values of `dtype` (for `bool`, bytes 0 or 1);
    /// - nothing outside xp writes it except in order with xp's streams (a write queued on a
    ///   stream that xp's current stream waits for, or finished before xp reads it), and
    ///   nothing outside xp reads it while xp writes it unless so ordered;
    /// - dropping `owner` from any thread, after the streams finished, is sound (it is `Send`).
    ///
    /// ```
    /// # xp_array::register_backend(std::sync::Arc::new(
    /// #     xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
    /// let cpu = xp_array::device("cpu").unwrap();
    /// let data: Box<[f32]> = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0].into_boxed_slice();
    /// let ptr = data.as_ptr() as u64;
    /// // SAFETY: `data` is host memory of the CPU device holding 6 f32, kept alive (and not
    /// // touched elsewhere) by the array, which owns it.
    /// let a = unsafe {
    ///     xp_array::Array::from_raw_device_ptr(ptr, &[2, 3], Some(&[1, 2]), xp_array::DType::F32, &cpu, Box::new(data))
    /// }
    /// .unwrap();
    /// assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0]);
    /// ```
    pub unsafe fn from_raw_device_ptr(
        ptr: u64,
        shape: &[usize],
        strides: Option<&[isize]>,
        dtype: DType,
        device: &Arc<dyn DynDevice>,
        owner: Box<dyn Any + Send + Sync>,
    ) -> Result<Array> {
        // SAFETY: the caller's contract is this function's.
        unsafe { Array::from_foreign("from_raw_device_ptr", ptr, shape, strides, dtype, device, owner, false) }
    }

    /// [`Array::from_raw_device_ptr`] with a read-only flag; `op` names the caller in errors.
    ///
    /// # Safety
    /// As [`Array::from_raw_device_ptr`]; with `read_only`, xp never writes the memory.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn from_foreign(
        op: &str,
        ptr: u64,
        shape: &[usize],
        strides: Option<&[isize]>,
        dtype: DType,
        device: &Arc<dyn DynDevice>,
        owner: Box<dyn Any + Send + Sync>,
        read_only: bool,
    ) -> Result<Array> {
        if shape.len() > MAX_DIMS {
            return Err(Error::value(op, format!("{} dimensions is more than the {MAX_DIMS} supported", shape.len())));
        }
        let strides: Vec<isize> = match strides {
            Some(s) => s.to_vec(),
            None => crate::layout::c_strides(shape),
        };
        if strides.len() != shape.len() {
            return Err(Error::value(op, format!("shape {shape:?} and strides {strides:?} have different lengths")));
        }
        let size = crate::layout::checked_size(op, shape)?;
        let item = dtype.size();
        let overflow = || Error::Overflow {
            op: op.to_string(),
            reason: format!("shape {shape:?} with strides {strides:?} of {dtype} reaches past the address space"),
        };
        // The lowest and highest element offsets reached, relative to `ptr`.
        let (mut lo, mut hi) = (0i128, 0i128);
        if size > 0 {
            for (&n, &s) in shape.iter().zip(&strides) {
                let span = (n as i128 - 1) * s as i128;
                if span < 0 {
                    lo += span;
                } else {
                    hi += span;
                }
            }
            if ptr == 0 {
                return Err(Error::value(op, format!("a null pointer for {size} elements of {dtype}")));
            }
            if !ptr.is_multiple_of(item as u64) {
                return Err(Error::value(
                    op,
                    format!("address {ptr:#x} is not aligned to the {item} bytes of an element of {dtype}"),
                ));
            }
        }
        let start = ptr as i128 + lo * item as i128;
        let bytes = if size > 0 { (hi - lo + 1) * item as i128 } else { 0 };
        if start < 0 || start + bytes > u64::MAX as i128 || bytes > isize::MAX as i128 {
            return Err(overflow());
        }
        let offset = usize::try_from(-lo).map_err(|_| overflow())?;
        let layout = Layout::from_parts(op, shape.to_vec(), strides, offset)?;
        let stream = current_stream(device);
        // SAFETY: the caller guarantees that the reached elements, `start..start + bytes`, are
        // memory of `device` valid until `owner` drops, written only in order with xp's streams.
        let buffer = unsafe { Buffer::foreign(device.memory_pool(), start as u64, bytes as usize, &stream, owner) };
        let mut storage = crate::array::Storage::ready(buffer, device);
        storage.read_only = read_only;
        Ok(Array { storage: Arc::new(storage), layout, dtype })
    }
}
