//! `xp_dlpack`: xp arrays in Python, exchanged with PyTorch, CuPy and NumPy through DLPack
//! without a copy.
//!
//! - `xp_dlpack.Array` has `__dlpack__(stream=None, max_version=None, dl_device=None,
//!   copy=None)` and `__dlpack_device__()`, so `torch.from_dlpack(a)`, `cupy.from_dlpack(a)`
//!   and `numpy.from_dlpack(a)` view xp's memory. A consumer that asks for DLPack ≥ 1.0
//!   (`max_version=(1, x)`) gets a `dltensor_versioned` capsule, others the legacy `dltensor`.
//!   The `stream` argument follows the Array API standard (see `xp::interop`): the consumer's
//!   stream waits for xp's work on the GPU; the host does not wait.
//! - `xp_dlpack.from_dlpack(obj)` takes any object with `__dlpack__` (a torch tensor, a CuPy
//!   or NumPy array) as an xp array over the same memory, passing xp's current stream so that
//!   the producer orders its work before xp's.
//! - `xp_dlpack.scale_(obj, factor, stream=None)` multiplies a foreign tensor in place with xp
//!   and makes `stream` (the caller's, e.g. `torch.cuda.current_stream().cuda_stream`) wait
//!   for it; `xp_dlpack.scale(obj, factor)` returns a new xp array; `xp_dlpack.arange(n,
//!   dtype, device)` makes one.
//!
//! Capsules follow the DLPack Python specification: a consumer renames the capsule to
//! `used_dltensor[_versioned]` when it takes the tensor; the capsule's destructor runs the
//! tensor's deleter only if nobody took it.

use std::ffi::{c_void, CStr};

use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use xp::interop::ffi::{DLManagedTensor, DLManagedTensorVersioned};
use xp::interop::{DLPackTensor, DLPackTensorLegacy};

const VERSIONED: &CStr = c"dltensor_versioned";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";
const LEGACY: &CStr = c"dltensor";
const USED_LEGACY: &CStr = c"used_dltensor";

fn err(e: xp::Error) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// An xp array, held by Python.
#[pyclass(name = "Array", module = "xp_dlpack", frozen)]
struct PyArray {
    inner: xp::Array,
}

unsafe extern "C" fn destroy_versioned(capsule: *mut ffi::PyObject) {
    // SAFETY: called by Python with the dying capsule; a capsule still named
    // `dltensor_versioned` was not consumed, so its tensor's deleter is ours to call, once.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, VERSIONED.as_ptr()) == 1 {
            let p = ffi::PyCapsule_GetPointer(capsule, VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
            if let Ok(t) = DLPackTensor::from_raw(p) {
                drop(t);
            }
        }
    }
}

unsafe extern "C" fn destroy_legacy(capsule: *mut ffi::PyObject) {
    // SAFETY: as `destroy_versioned`, for a `dltensor` capsule.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, LEGACY.as_ptr()) == 1 {
            let p = ffi::PyCapsule_GetPointer(capsule, LEGACY.as_ptr()) as *mut DLManagedTensor;
            if let Ok(t) = DLPackTensorLegacy::from_raw(p) {
                drop(t);
            }
        }
    }
}

#[pymethods]
impl PyArray {
    /// The Array API's DLPack export.
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__(
        &self,
        py: Python<'_>,
        stream: Option<i64>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        if copy == Some(true) {
            return Err(PyBufferError::new_err("xp_dlpack exports without copying (copy=True is not supported)"));
        }
        if let Some(want) = dl_device {
            if want != self.__dlpack_device__()? {
                return Err(PyBufferError::new_err(format!(
                    "the array is on {:?}, not {want:?}",
                    self.__dlpack_device__()?
                )));
            }
        }
        let capsule = if max_version.is_some_and(|(major, _)| major >= 1) {
            let p = xp::interop::to_dlpack_for(&self.inner, stream).map_err(err)?.into_raw();
            // SAFETY: `p` is a managed tensor whose ownership passes to the capsule (its
            // destructor, or the consumer that renames it, runs the deleter once).
            let cap = unsafe { ffi::PyCapsule_New(p as *mut c_void, VERSIONED.as_ptr(), Some(destroy_versioned)) };
            if cap.is_null() {
                // SAFETY: the capsule was not made: the tensor is still ours.
                drop(unsafe { DLPackTensor::from_raw(p) });
            }
            cap
        } else {
            let p = xp::interop::to_dlpack_legacy_for(&self.inner, stream).map_err(err)?.into_raw();
            // SAFETY: as above, for a legacy tensor.
            let cap = unsafe { ffi::PyCapsule_New(p as *mut c_void, LEGACY.as_ptr(), Some(destroy_legacy)) };
            if cap.is_null() {
                // SAFETY: as above.
                drop(unsafe { DLPackTensorLegacy::from_raw(p) });
            }
            cap
        };
        // SAFETY: a new reference, or null with the Python error set.
        unsafe { Bound::from_owned_ptr_or_err(py, capsule) }.map(Bound::unbind)
    }

    /// `(device_type, device_id)` as DLPack numbers them.
    fn __dlpack_device__(&self) -> PyResult<(i32, i32)> {
        let d = xp::interop::dlpack::device_to_dlpack(self.inner.device()).map_err(err)?;
        Ok((d.device_type, d.device_id))
    }

    /// The extents.
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.inner.shape().to_vec()
    }

    /// The dtype's NumPy name.
    #[getter]
    fn dtype(&self) -> String {
        self.inner.dtype().to_string()
    }

    /// The device (`cpu`, `cuda:0`).
    #[getter]
    fn device(&self) -> String {
        self.inner.device().label()
    }

    /// The address of the first element (for pointer-equality checks).
    #[getter]
    fn data_ptr(&self) -> PyResult<u64> {
        self.inner.data_ptr().map_err(err)
    }

    /// The sum of the elements, as a float (a host read).
    fn sum(&self) -> PyResult<f64> {
        self.inner.sum(None, false).and_then(|s| s.astype(xp::DType::F64)).and_then(|s| s.item::<f64>()).map_err(err)
    }

    fn __repr__(&self) -> String {
        format!(
            "xp_dlpack.Array(shape={:?}, dtype={}, device={})",
            self.inner.shape(),
            self.inner.dtype(),
            self.inner.device().label()
        )
    }
}

/// An xp array over the memory of `obj` (anything with `__dlpack__`), without a copy.
fn import(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<xp::Array> {
    if let Ok(a) = obj.downcast::<PyArray>() {
        return Ok(a.get().inner.clone());
    }
    let (device_type, device_id): (i32, i32) = obj.call_method0("__dlpack_device__")?.extract()?;
    let device =
        xp::interop::dlpack::device_from_dlpack(xp::interop::ffi::DLDevice { device_type, device_id }).map_err(err)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("stream", xp::interop::dlpack_stream_argument(&device))?;
    kwargs.set_item("max_version", (1u32, 1u32))?;
    let capsule = match obj.call_method("__dlpack__", (), Some(&kwargs)) {
        Ok(c) => c,
        // A producer older than DLPack 1.0 does not know `max_version`.
        Err(e) if e.is_instance_of::<PyTypeError>(py) => {
            kwargs.del_item("max_version")?;
            obj.call_method("__dlpack__", (), Some(&kwargs))?
        }
        Err(e) => return Err(e),
    };
    let cap = capsule.as_ptr();
    // SAFETY: `cap` is a live object (held by `capsule`); the capsule calls only read its name
    // and pointer, and renaming it marks the tensor as taken, after which its destructor does
    // not run the deleter: ownership passes to the handle made here, exactly once.
    unsafe {
        if ffi::PyCapsule_IsValid(cap, VERSIONED.as_ptr()) == 1 {
            let p = ffi::PyCapsule_GetPointer(cap, VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
            if ffi::PyCapsule_SetName(cap, USED_VERSIONED.as_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
            let t = DLPackTensor::from_raw(p).map_err(err)?;
            xp::Array::from_dlpack(t).map_err(err)
        } else if ffi::PyCapsule_IsValid(cap, LEGACY.as_ptr()) == 1 {
            let p = ffi::PyCapsule_GetPointer(cap, LEGACY.as_ptr()) as *mut DLManagedTensor;
            if ffi::PyCapsule_SetName(cap, USED_LEGACY.as_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
            let t = DLPackTensorLegacy::from_raw(p).map_err(err)?;
            xp::Array::from_dlpack_legacy(t).map_err(err)
        } else {
            Err(PyTypeError::new_err("__dlpack__ did not return a DLPack capsule"))
        }
    }
}

/// `from_dlpack(obj)`: an xp array over `obj`'s memory (no copy).
#[pyfunction]
fn from_dlpack(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<PyArray> {
    Ok(PyArray { inner: import(py, obj)? })
}

/// `scale_(obj, factor, stream=None)`: multiply `obj` in place with xp; `stream` (an Array API
/// stream number, the caller's CUDA stream) then waits for xp's kernel on the GPU.
#[pyfunction]
#[pyo3(signature = (obj, factor, stream=None))]
fn scale_(py: Python<'_>, obj: &Bound<'_, PyAny>, factor: f64, stream: Option<i64>) -> PyResult<()> {
    let a = import(py, obj)?;
    a.mul_assign(factor).map_err(err)?;
    // Order the caller's stream after the kernel (an event wait on the device; on the CPU the
    // host waits), by the export's own rule.
    drop(xp::interop::to_dlpack_for(&a, stream).map_err(err)?);
    Ok(())
}

/// `scale(obj, factor)`: a new xp array, `obj * factor`.
#[pyfunction]
fn scale(py: Python<'_>, obj: &Bound<'_, PyAny>, factor: f64) -> PyResult<PyArray> {
    let a = import(py, obj)?;
    let out = (&a * factor).copy().map_err(err)?;
    Ok(PyArray { inner: out })
}

/// `arange(n, dtype="float32", device=None)`: `0, 1, …, n-1` on `device` (`cpu`, `cuda:0`;
/// xp's default device when `None`).
#[pyfunction]
#[pyo3(signature = (n, dtype="float32", device=None))]
fn arange(n: usize, dtype: &str, device: Option<&str>) -> PyResult<PyArray> {
    let dt = xp::DType::ALL
        .into_iter()
        .find(|d| d.to_string() == dtype)
        .ok_or_else(|| PyValueError::new_err(format!("unknown dtype {dtype}")))?;
    let dev = match device {
        Some(label) => xp::device(label),
        None => xp::default_device(),
    }
    .map_err(err)?;
    let a = xp::with_device(&dev, || xp::arange(0, n as i64, 1, Some(dt))).map_err(err)?;
    Ok(PyArray { inner: a })
}

/// The module.
#[pymodule]
fn xp_dlpack(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyArray>()?;
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(scale_, m)?)?;
    m.add_function(wrap_pyfunction!(scale, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    Ok(())
}
