//! [`VendorHandle`]: a handle of a vendor library (a rocBLAS handle, a hipFFT plan, …) that its
//! Rust owner destroys exactly once, in `Drop`.
//!
//! Every library wrapper of a GPU backend holds one such handle and destroys it the same way:
//! with its device current, unless the context is lost, and keeping any failure for the
//! device's next synchronising call, because `Drop` may neither fail nor panic
//! (ARCHITECTURE §2.2). The wrapper says how to destroy its handle once, when it creates it;
//! this type does the rest.

use std::sync::Arc;

use crate::{MemoryPool, Result};

/// A vendor library's handle, destroyed when dropped. `H` is the raw handle (a pointer, for
/// most libraries).
///
/// The destroy function runs once, at drop; its error, if any, is kept by the device's pool
/// ([`MemoryPool::record_deferred`]) and returned by the device's next synchronising call.
pub struct VendorHandle<H: Copy> {
    raw: H,
    owner: Option<Owner<H>>,
}

/// What dropping an owned handle needs.
struct Owner<H> {
    /// The device's pool, which keeps the destroy's error.
    pool: Arc<MemoryPool>,
    /// Destroys the handle (and says how that went).
    destroy: Box<dyn FnOnce(H) -> Result<()> + Send>,
}

// SAFETY: `VendorHandle` is built only by `new`, whose caller vouches that the raw handle may be
// used from any host thread (one at a time: `&self` gives the raw handle out, so a handle used
// from several threads is kept behind a lock by its owner), or by `null`, whose pointer is
// never dereferenced. The destroy function is `Send`.
unsafe impl<H: Copy> Send for VendorHandle<H> {}

impl<H: Copy> VendorHandle<H> {
    /// Own `raw`: `destroy` is called with it once, when this is dropped, and its error is kept
    /// by `pool` for the device's next synchronising call.
    ///
    /// # Safety
    /// `raw` is a live handle that nothing else destroys; the vendor allows it to be used from
    /// any host thread (so this is `Send`); `destroy` destroys it.
    pub unsafe fn new(raw: H, pool: Arc<MemoryPool>, destroy: impl FnOnce(H) -> Result<()> + Send + 'static) -> Self {
        VendorHandle { raw, owner: Some(Owner { pool, destroy: Box::new(destroy) }) }
    }

    /// The raw handle, for a vendor call. It stays owned by `self`: the caller must not
    /// destroy it.
    pub fn raw(&self) -> H {
        self.raw
    }
}

impl<T> VendorHandle<*mut T> {
    /// A null handle, which nothing destroys: for a wrapper built without a device, in tests
    /// of the checks made before any vendor call.
    pub fn null() -> Self {
        VendorHandle { raw: std::ptr::null_mut(), owner: None }
    }
}

impl<H: Copy> Drop for VendorHandle<H> {
    fn drop(&mut self) {
        if let Some(Owner { pool, destroy }) = self.owner.take() {
            pool.defer(destroy(self.raw));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::null::NullDevice;
    use crate::{Device, Error};
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn dropping_destroys_once_and_keeps_the_error_for_the_next_sync() {
        let dev = NullDevice::new(1 << 20, None).unwrap();
        let pool = Arc::clone(Device::memory_pool(&dev));
        static DESTROYED: AtomicUsize = AtomicUsize::new(0);
        let fail = |h: usize| {
            DESTROYED.fetch_add(h, Ordering::SeqCst);
            Err(Error::value("destroy", "the vendor said no"))
        };
        // SAFETY: a plain number stands for the handle; `fail` only counts it.
        let h = unsafe { VendorHandle::new(7usize, Arc::clone(&pool), fail) };
        assert_eq!(h.raw(), 7);
        drop(h);
        assert_eq!(DESTROYED.load(Ordering::SeqCst), 7);
        let e = pool.take_deferred_error().expect("the destroy's error is kept");
        assert!(e.to_string().contains("the vendor said no"), "{e}");
        assert!(pool.take_deferred_error().is_none());
        drop(VendorHandle::<*mut u8>::null());
        assert!(pool.take_deferred_error().is_none());
    }
}
