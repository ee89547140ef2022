//! Conversions to and from [`ndarray`] arrays: `from_ndarray` is the Rust `cupy.asarray` of a
//! host array, `to_ndarray` the Rust `cupy.asnumpy`.
//!
//! `ndarray` is the N-d array crate Rust numerical code already holds its host data in, so
//! these are the ways in and out of a device that such code expects. Any memory layout is
//! accepted (a transposed or sliced `ndarray` view is read in logical, C order); the result of
//! `to_ndarray` is always a standard (C-order) `ArrayD`.

use std::sync::Arc;

use ndarray::{ArrayBase, ArrayD, Data, Dimension, IxDyn};
use xp_backend_api::{DynDevice, Error, Result};

use crate::element::Element;
use crate::Array;

impl Array {
    /// A copy of `a` on the current device, with `a`'s shape and the dtype of `T`.
    pub fn from_ndarray<T: Element, S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> Result<Array> {
        Array::from_ndarray_on(&crate::current_device()?, a)
    }

    /// A copy of `a` on `device`.
    pub fn from_ndarray_on<T: Element, S: Data<Elem = T>, D: Dimension>(
        device: &Arc<dyn DynDevice>,
        a: &ArrayBase<S, D>,
    ) -> Result<Array> {
        let shape = a.shape().to_vec();
        match a.as_slice() {
            Some(data) => Array::from_slice_on(device, data, &shape),
            None => {
                let data: Vec<T> = a.iter().copied().collect();
                Array::from_slice_on(device, &data, &shape)
            }
        }
    }

    /// The array on the host as an `ndarray` of element type `T` (converted as
    /// [`Array::astype`] does when `T` is not the array's dtype), in C order.
    pub fn to_ndarray<T: Element>(&self) -> Result<ArrayD<T>> {
        let data = self.to_vec::<T>()?;
        ArrayD::from_shape_vec(IxDyn(self.shape()), data)
            .map_err(|e| Error::value("to_ndarray", format!("shape {:?}: {e}", self.shape())))
    }
}
