//! `ndarray` over the CPU device's memory, both ways, without a copy.
//!
//! On the CPU device a buffer is host memory and xp's strides are in elements, as
//! `ndarray`'s, so an array and an `ndarray` can view the same elements:
//! - [`Array::as_ndarray_view`] borrows an array as an `ArrayViewD` (any strides, negative and
//!   zero included). The host waits for the work queued on the array first, and the array
//!   refuses writes while the view lives ([`HostView`]), so the view never sees the elements
//!   change under it.
//! - [`Array::from_ndarray_owned`] takes an owned `ndarray` (its `Vec` becomes the buffer's
//!   owner): a writable array. [`Array::from_ndarray_shared`] takes an `ArcArray` (a shared,
//!   copy-on-write array): a read-only array, since other holders read the elements (their own
//!   writes copy first, as `ArcArray`'s do). [`Array::from_ndarray_view`] wraps a borrowed view
//!   (unsafe: the caller keeps the data alive), read-only.
//!
//! Errors, where no view can be made: an array on a GPU (its memory is not host memory — copy
//! with [`Array::to_ndarray`]), an element type that is not the array's dtype, no CPU device
//! (built without the `cpu` backend). The copying conversions, `from_ndarray` and `to_ndarray`,
//! stay where they were ([`crate::ndarray_interop`]).

use std::ops::Deref;
use std::sync::atomic::Ordering;

use ndarray::{ArcArray, ArrayBase, ArrayView, ArrayViewD, Axis, Dimension, IxDyn, OwnedRepr, ShapeBuilder};
use xp_backend_api::{Error, Result};

use crate::array::Storage;
use crate::element::Element;
use crate::Array;

/// An `ndarray` view of an array on the CPU device ([`Array::as_ndarray_view`]); it derefs to
/// the `ArrayViewD`. While it lives, writes into the array are refused.
pub struct HostView<'a, T> {
    view: ArrayViewD<'a, T>,
    storage: &'a Storage,
}

impl<'a, T> Deref for HostView<'a, T> {
    type Target = ArrayViewD<'a, T>;
    fn deref(&self) -> &ArrayViewD<'a, T> {
        &self.view
    }
}

impl<T> Drop for HostView<'_, T> {
    fn drop(&mut self) {
        self.storage.host_views.fetch_sub(1, Ordering::AcqRel);
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for HostView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.view.fmt(f)
    }
}

impl Array {
    /// The array as an `ndarray` view of its memory, without a copy (CPU device only): the
    /// shape and strides are the array's. Pending elements are computed and the host waits for
    /// the work queued on the array; writes into the array are refused while the view lives.
    ///
    /// ```
    /// # xp_array::register_backend(std::sync::Arc::new(
    /// #     xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
    /// let cpu = xp_array::device("cpu").unwrap();
    /// let a = xp_array::with_device(&cpu, || xp_array::arange(0, 6, 1, Some(xp_array::DType::F64))).unwrap();
    /// let t = a.reshape(&[2, 3]).unwrap().t();
    /// let v = t.as_ndarray_view::<f64>().unwrap();
    /// assert_eq!(v[[2, 1]], 5.0);
    /// assert_eq!(v.as_ptr() as u64, t.data_ptr().unwrap());
    /// ```
    pub fn as_ndarray_view<T: Element>(&self) -> Result<HostView<'_, T>> {
        const OP: &str = "as_ndarray_view";
        if !self.device().properties().is_host {
            return Err(Error::Unsupported(format!(
                "{OP}: the array is on {}, whose memory the host cannot read; copy it with to_ndarray",
                self.device().label()
            )));
        }
        if T::DTYPE != self.dtype {
            return Err(Error::DType {
                op: OP.into(),
                reason: format!("the array is {}, the view's element type is {}", self.dtype, T::DTYPE),
            });
        }
        let buffer = self.storage.buffer()?;
        // Count the view before waiting, so that no write is queued between the wait and the view.
        self.storage.host_views.fetch_add(1, Ordering::AcqRel);
        let guard = ViewCount(&self.storage);
        buffer.synchronize_users()?;
        let view = if self.size() == 0 {
            ArrayViewD::from_shape(IxDyn(self.shape()), &[])
                .map_err(|e| Error::value(OP, format!("shape {:?}: {e}", self.shape())))?
        } else {
            let base = buffer.device_ptr() as usize + self.layout.offset() * self.itemsize();
            // Start from the lowest element with every stride non-negative, as ndarray asks,
            // then turn the axes of negative stride around.
            let mut low = base as isize;
            let mut abs = Vec::with_capacity(self.ndim());
            for (&n, &s) in self.shape().iter().zip(self.strides()) {
                if s < 0 {
                    low += (n as isize - 1) * s * self.itemsize() as isize;
                }
                abs.push(s.unsigned_abs());
            }
            // SAFETY: the CPU device's buffers are host memory; every element the layout reaches
            // lies in the buffer (layout invariant 4), which `self` keeps alive for `'_`; the
            // elements are valid `T` (the dtype matched); the queued work on the buffer finished
            // and no write may be queued while the view (counted above) lives. `low` is the
            // lowest reached address, aligned for `T` as every buffer and element offset is.
            let mut v = unsafe {
                ArrayView::from_shape_ptr(IxDyn(self.shape()).strides(IxDyn(&abs)), low as usize as *const T)
            };
            for (d, &s) in self.strides().iter().enumerate() {
                if s < 0 {
                    v.invert_axis(Axis(d));
                }
            }
            v
        };
        std::mem::forget(guard);
        Ok(HostView { view, storage: &self.storage })
    }

    /// An array on the CPU device over an owned `ndarray`'s elements, without a copy: the
    /// `ndarray`'s memory becomes the buffer (any strides, negative ones included) and is
    /// freed when the last array over it goes. The array is writable.
    pub fn from_ndarray_owned<T: Element, D: Dimension>(a: ArrayBase<OwnedRepr<T>, D>) -> Result<Array> {
        let shape = a.shape().to_vec();
        let strides = a.strides().to_vec();
        let ptr = a.as_ptr() as u64;
        let (data, _) = a.into_raw_vec_and_offset();
        let cpu = crate::device::device("cpu")?;
        // SAFETY: `ptr`, the first element's address, and the strides describe elements inside
        // `data`'s allocation (ndarray's invariants), host memory of the CPU device that moving
        // the `Vec` into the owner does not move; only the array reaches it from now on.
        unsafe {
            Array::from_foreign(
                "from_ndarray_owned",
                ptr,
                &shape,
                Some(&strides),
                T::DTYPE,
                &cpu,
                Box::new(data),
                false,
            )
        }
    }

    /// A read-only array on the CPU device over a shared `ArcArray`'s elements, without a copy;
    /// the array holds a clone of the `ArcArray`, so the elements live as long as either.
    pub fn from_ndarray_shared<T: Element, D: Dimension + Send + Sync + 'static>(a: &ArcArray<T, D>) -> Result<Array> {
        let shape = a.shape().to_vec();
        let strides = a.strides().to_vec();
        let ptr = a.as_ptr() as u64;
        let cpu = crate::device::device("cpu")?;
        // SAFETY: the elements lie in the `ArcArray`'s allocation, which the clone held by the
        // owner keeps alive; `ArcArray` copies before any holder writes shared data, and the
        // array is read-only, so nobody writes these elements while the array reads them.
        unsafe {
            Array::from_foreign(
                "from_ndarray_shared",
                ptr,
                &shape,
                Some(&strides),
                T::DTYPE,
                &cpu,
                Box::new(a.clone()),
                true,
            )
        }
    }

    /// A read-only array on the CPU device over a borrowed `ndarray` view's elements, without a
    /// copy.
    ///
    /// # Safety
    /// The viewed elements stay allocated, and nothing writes them, until the last array over
    /// them (this one and its views and clones) is dropped — which the borrow checker does not
    /// see, since an [`Array`] has no lifetime. Prefer [`Array::from_ndarray_owned`] or
    /// [`Array::from_ndarray_shared`].
    pub unsafe fn from_ndarray_view<T: Element, D: Dimension>(v: ArrayView<'_, T, D>) -> Result<Array> {
        let shape = v.shape().to_vec();
        let strides = v.strides().to_vec();
        let cpu = crate::device::device("cpu")?;
        // SAFETY: the caller keeps the elements (host memory, in one allocation) alive and
        // unwritten while the array lives; xp never writes them (read-only).
        unsafe {
            Array::from_foreign(
                "from_ndarray_view",
                v.as_ptr() as u64,
                &shape,
                Some(&strides),
                T::DTYPE,
                &cpu,
                Box::new(()),
                true,
            )
        }
    }
}

/// Undoes a view's count if making the view fails.
struct ViewCount<'a>(&'a Storage);

impl Drop for ViewCount<'_> {
    fn drop(&mut self) {
        self.0.host_views.fetch_sub(1, Ordering::AcqRel);
    }
}
