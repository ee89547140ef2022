//! `get_array_module`: write code once, run it where the arrays live.

use std::sync::Arc;

use xp_backend_api::{DType, DynDevice, Error, Result};

use crate::promote::Scalar;
use crate::{device, Array};

/// The array namespace of one device, as CuPy's `get_array_module` hands back `cupy` or
/// `numpy`: its constructors create arrays on that device.
#[derive(Clone)]
pub struct ArrayModule {
    device: Arc<dyn DynDevice>,
}

impl std::fmt::Debug for ArrayModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ArrayModule({})", self.device.label())
    }
}

/// The module of the device `arrays` live on; the current device when `arrays` is empty.
/// Arrays on two different devices are refused with `DeviceMismatch` (never copied silently).
pub fn get_array_module(arrays: &[&Array]) -> Result<ArrayModule> {
    let d = crate::ufunc::common_device("get_array_module", arrays)?;
    Ok(ArrayModule { device: d })
}

impl ArrayModule {
    /// The module of `device`.
    pub fn of(device: Arc<dyn DynDevice>) -> Self {
        ArrayModule { device }
    }
    /// The device.
    pub fn device(&self) -> &Arc<dyn DynDevice> {
        &self.device
    }
    /// Its label (`cpu`, `cuda:0`).
    pub fn name(&self) -> String {
        self.device.label()
    }
    /// Run `f` with this module's device current.
    pub fn with<R>(&self, f: impl FnOnce() -> R) -> R {
        device::with_device(&self.device, f)
    }
    /// Zeros.
    pub fn zeros(&self, shape: &[usize], dtype: DType) -> Result<Array> {
        Array::full_on(&self.device, shape, 0, dtype)
    }
    /// Ones.
    pub fn ones(&self, shape: &[usize], dtype: DType) -> Result<Array> {
        Array::full_on(&self.device, shape, 1, dtype)
    }
    /// `value` repeated.
    pub fn full(&self, shape: &[usize], value: impl Into<Scalar>, dtype: DType) -> Result<Array> {
        Array::full_on(&self.device, shape, value, dtype)
    }
    /// Uninitialised.
    pub fn empty(&self, shape: &[usize], dtype: DType) -> Result<Array> {
        Array::empty_on(&self.device, shape, dtype)
    }
    /// An array of `data` with `shape`.
    pub fn asarray<T: crate::Element>(&self, data: &[T], shape: &[usize]) -> Result<Array> {
        Array::from_slice_on(&self.device, data, shape)
    }
    /// `a` on this module's device (the same array when already there).
    pub fn to_here(&self, a: &Array) -> Result<Array> {
        a.to_device(&self.device)
    }
    /// `arange` on this device.
    pub fn arange(
        &self,
        start: impl Into<Scalar>,
        stop: impl Into<Scalar>,
        step: impl Into<Scalar>,
        dtype: Option<DType>,
    ) -> Result<Array> {
        self.with(|| crate::arange(start, stop, step, dtype))
    }
    /// `linspace` on this device.
    pub fn linspace(&self, start: f64, stop: f64, num: usize, dtype: Option<DType>) -> Result<Array> {
        self.with(|| crate::linspace(start, stop, num, true, dtype))
    }
    /// Check that `a` lives on this module's device.
    pub fn check(&self, a: &Array) -> Result<()> {
        if Arc::ptr_eq(&a.device_arc(), &self.device) {
            Ok(())
        } else {
            Err(Error::DeviceMismatch { op: "get_array_module".into(), lhs: self.name(), rhs: a.device().label() })
        }
    }
}
