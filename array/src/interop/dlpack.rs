//! DLPack: the tensor exchange format of PyTorch, CuPy, NumPy, JAX and the Array API standard.
//!
//! [`Array::to_dlpack`] gives a versioned managed tensor (DLPack ≥ 1.0,
//! `DLManagedTensorVersioned`) and [`Array::to_dlpack_legacy`] the unversioned
//! `DLManagedTensor` that consumers older than DLPack 1.0 take; both share xp's buffer, whose
//! lifetime the tensor's deleter ends. [`Array::from_dlpack`] and
//! [`Array::from_dlpack_legacy`] borrow a tensor's memory without a copy: strides, byte offset
//! and the read-only flag are honoured, and the tensor's deleter runs exactly once, when the
//! last xp array over it goes (or at once when the import fails).
//!
//! # Why the C structs are declared here
//! The structs of `dlpack.h` (v1.1) are declared in [`ffi`] rather than taken from the
//! `dlpark` crate: dlpark 0.10 needs Rust 1.88 (xp builds with 1.85), and its `cudarc`
//! feature selects cudarc's CUDA version from the build system, where xp pins its own; the
//! ABI is a handful of `repr(C)` structs, stable across the 1.x series.
//!
//! # Export
//! - `data` is the address of the array's first element and `byte_offset` is 0, as PyTorch
//!   and CuPy export (some consumers ignore `byte_offset`).
//! - Strides are in elements, as xp's (never null); a 0-d array has `ndim = 0`.
//! - Pending (lazily fused) elements are computed first, and so are the pending arrays that
//!   read this one, since the consumer may write the memory.
//! - The stream rule is [`ConsumerStream`]'s: an event wait on the device, never a host wait,
//!   except for a consumer that reads on the host.
//! - The read-only flag is set when xp's array is read-only; `IS_COPIED` is never set.
//!
//! # Import
//! Devices: `kDLCPU` on the CPU device, `kDLCUDA` on `cuda:N`, `kDLROCM` on `hip:N`; others
//! (pinned host memory `kDLCUDAHost`, managed memory, OpenCL, …) are an error naming the device
//! type. Dtypes: `bool` (`kDLBool`, 8 bits), signed and unsigned integers of 8–64 bits, floats
//! of 16, 32 and 64 bits, `bfloat16`, complex of 64 and 128 bits, one lane; others (float8,
//! vectors, sub-byte types) are an error naming the code, bits and lanes. A tensor of a major
//! version other than 1 is refused (and its deleter run), as the standard asks.

use std::ffi::c_void;
use std::ptr::NonNull;

use xp_backend_api::{DType, DynDevice, Error, Result};

use super::{order_for_consumer, ConsumerStream};
use crate::Array;

/// The C declarations of `dlpack.h` (v1.1), field for field.
#[allow(non_camel_case_types, non_upper_case_globals)]
pub mod ffi {
    use std::ffi::c_void;

    /// The DLPack version this module implements (major).
    pub const DLPACK_MAJOR_VERSION: u32 = 1;
    /// The DLPack version this module implements (minor).
    pub const DLPACK_MINOR_VERSION: u32 = 1;
    /// Flag: the consumer must not write the memory.
    pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1 << 0;
    /// Flag: the producer copied the data for this export.
    pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 1 << 1;

    /// `DLDeviceType`: host memory.
    pub const kDLCPU: i32 = 1;
    /// `DLDeviceType`: CUDA device memory.
    pub const kDLCUDA: i32 = 2;
    /// `DLDeviceType`: page-locked host memory allocated by CUDA.
    pub const kDLCUDAHost: i32 = 3;
    /// `DLDeviceType`: ROCm (HIP) device memory.
    pub const kDLROCM: i32 = 10;
    /// `DLDeviceType`: CUDA managed (unified) memory.
    pub const kDLCUDAManaged: i32 = 13;

    /// `DLDataTypeCode`: signed integer.
    pub const kDLInt: u8 = 0;
    /// `DLDataTypeCode`: unsigned integer.
    pub const kDLUInt: u8 = 1;
    /// `DLDataTypeCode`: IEEE float.
    pub const kDLFloat: u8 = 2;
    /// `DLDataTypeCode`: opaque handle.
    pub const kDLOpaqueHandle: u8 = 3;
    /// `DLDataTypeCode`: bfloat16.
    pub const kDLBfloat: u8 = 4;
    /// `DLDataTypeCode`: complex (two floats).
    pub const kDLComplex: u8 = 5;
    /// `DLDataTypeCode`: boolean.
    pub const kDLBool: u8 = 6;

    /// `DLPackVersion`.
    #[repr(C)]
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct DLPackVersion {
        /// Major version; a change breaks the ABI.
        pub major: u32,
        /// Minor version.
        pub minor: u32,
    }

    /// `DLDevice`.
    #[repr(C)]
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct DLDevice {
        /// A `DLDeviceType` (`kDLCPU`, `kDLCUDA`, …).
        pub device_type: i32,
        /// The device's ordinal.
        pub device_id: i32,
    }

    /// `DLDataType`.
    #[repr(C)]
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct DLDataType {
        /// A `DLDataTypeCode`.
        pub code: u8,
        /// Bits per lane.
        pub bits: u8,
        /// Lanes (1 for scalars).
        pub lanes: u16,
    }

    /// `DLTensor`: a view of memory.
    #[repr(C)]
    #[derive(Debug, Clone, Copy)]
    pub struct DLTensor {
        /// The memory (a device address on a GPU).
        pub data: *mut c_void,
        /// Where the memory lives.
        pub device: DLDevice,
        /// Number of dimensions.
        pub ndim: i32,
        /// The element type.
        pub dtype: DLDataType,
        /// `ndim` extents.
        pub shape: *mut i64,
        /// `ndim` strides in elements, or null for C order.
        pub strides: *mut i64,
        /// Bytes from `data` to the first element.
        pub byte_offset: u64,
    }

    /// `DLManagedTensor`: the unversioned (pre-1.0) managed tensor.
    #[repr(C)]
    #[derive(Debug)]
    pub struct DLManagedTensor {
        /// The view.
        pub dl_tensor: DLTensor,
        /// The producer's context.
        pub manager_ctx: *mut c_void,
        /// Called by the consumer once, when it no longer needs the memory.
        pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
    }

    /// `DLManagedTensorVersioned` (DLPack ≥ 1.0).
    #[repr(C)]
    #[derive(Debug)]
    pub struct DLManagedTensorVersioned {
        /// The producer's DLPack version.
        pub version: DLPackVersion,
        /// The producer's context.
        pub manager_ctx: *mut c_void,
        /// Called by the consumer once, when it no longer needs the memory.
        pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
        /// `DLPACK_FLAG_BITMASK_*`.
        pub flags: u64,
        /// The view.
        pub dl_tensor: DLTensor,
    }
}

use ffi::{DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLPackVersion, DLTensor};

/// An owned `DLManagedTensorVersioned`: dropping it runs the tensor's deleter once, unless it
/// was handed on with [`DLPackTensor::into_raw`] or consumed by [`Array::from_dlpack`].
pub struct DLPackTensor(NonNull<DLManagedTensorVersioned>);

/// An owned unversioned `DLManagedTensor` (for consumers and producers older than DLPack 1.0):
/// as [`DLPackTensor`].
pub struct DLPackTensorLegacy(NonNull<DLManagedTensor>);

// SAFETY: DLPack lets a consumer keep a tensor on any thread and call its deleter from any
// thread (producers that need a lock, such as Python's, take it in the deleter); xp's own
// deleter drops an `Array`, which is `Send + Sync`. The handle gives only shared access to the
// tensor's description.
unsafe impl Send for DLPackTensor {}
// SAFETY: as for `Send`.
unsafe impl Sync for DLPackTensor {}
// SAFETY: as for `DLPackTensor`.
unsafe impl Send for DLPackTensorLegacy {}
// SAFETY: as for `DLPackTensor`.
unsafe impl Sync for DLPackTensorLegacy {}

impl DLPackTensor {
    /// Take ownership of a managed tensor made by a producer.
    ///
    /// # Safety
    /// `ptr` is null or points to a valid `DLManagedTensorVersioned` whose ownership passes to
    /// the handle: nothing else calls its deleter, and it (and the memory it describes) stays
    /// valid until the deleter runs. Errors: a null pointer.
    pub unsafe fn from_raw(ptr: *mut DLManagedTensorVersioned) -> Result<DLPackTensor> {
        NonNull::new(ptr).map(DLPackTensor).ok_or_else(|| Error::value("from_dlpack", "a null managed tensor"))
    }

    /// Hand the tensor on (to a C consumer, a Python capsule): the receiver calls the deleter.
    pub fn into_raw(self) -> *mut DLManagedTensorVersioned {
        let p = self.0.as_ptr();
        std::mem::forget(self);
        p
    }

    /// The managed tensor.
    pub fn managed(&self) -> &DLManagedTensorVersioned {
        // SAFETY: the handle owns a valid managed tensor (`from_raw`'s contract, or xp's own).
        unsafe { self.0.as_ref() }
    }

    /// The tensor's view of its memory.
    pub fn tensor(&self) -> &DLTensor {
        &self.managed().dl_tensor
    }

    /// The producer's DLPack version.
    pub fn version(&self) -> DLPackVersion {
        self.managed().version
    }

    /// Whether the consumer must not write the memory.
    pub fn is_read_only(&self) -> bool {
        self.managed().flags & ffi::DLPACK_FLAG_BITMASK_READ_ONLY != 0
    }
}

impl Drop for DLPackTensor {
    fn drop(&mut self) {
        let p = self.0.as_ptr();
        // SAFETY: the handle owns the tensor, and this drop is the one call of its deleter.
        if let Some(deleter) = unsafe { (*p).deleter } {
            // SAFETY: as above; the deleter is the producer's, called with its own tensor.
            unsafe { deleter(p) };
        }
    }
}

impl DLPackTensorLegacy {
    /// Take ownership of an unversioned managed tensor.
    ///
    /// # Safety
    /// As [`DLPackTensor::from_raw`], for a `DLManagedTensor`.
    pub unsafe fn from_raw(ptr: *mut DLManagedTensor) -> Result<DLPackTensorLegacy> {
        NonNull::new(ptr).map(DLPackTensorLegacy).ok_or_else(|| Error::value("from_dlpack", "a null managed tensor"))
    }

    /// Hand the tensor on: the receiver calls the deleter.
    pub fn into_raw(self) -> *mut DLManagedTensor {
        let p = self.0.as_ptr();
        std::mem::forget(self);
        p
    }

    /// The managed tensor.
    pub fn managed(&self) -> &DLManagedTensor {
        // SAFETY: the handle owns a valid managed tensor.
        unsafe { self.0.as_ref() }
    }

    /// The tensor's view of its memory.
    pub fn tensor(&self) -> &DLTensor {
        &self.managed().dl_tensor
    }
}

impl Drop for DLPackTensorLegacy {
    fn drop(&mut self) {
        let p = self.0.as_ptr();
        // SAFETY: the handle owns the tensor, and this drop is the one call of its deleter.
        if let Some(deleter) = unsafe { (*p).deleter } {
            // SAFETY: as above.
            unsafe { deleter(p) };
        }
    }
}

impl std::fmt::Debug for DLPackTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DLPackTensor").field("version", &self.version()).field("tensor", self.tensor()).finish()
    }
}

impl std::fmt::Debug for DLPackTensorLegacy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DLPackTensorLegacy").field("tensor", self.tensor()).finish()
    }
}

/// DLPack's code and bits of `dtype`.
pub fn dtype_to_dlpack(dtype: DType) -> DLDataType {
    let code = match dtype {
        DType::Bool => ffi::kDLBool,
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => ffi::kDLInt,
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => ffi::kDLUInt,
        DType::F16 | DType::F32 | DType::F64 => ffi::kDLFloat,
        DType::BF16 => ffi::kDLBfloat,
        DType::C64 | DType::C128 => ffi::kDLComplex,
    };
    DLDataType { code, bits: (dtype.size() * 8) as u8, lanes: 1 }
}

/// The xp dtype of a DLPack type; an error for the types xp has not.
pub fn dtype_from_dlpack(t: DLDataType) -> Result<DType> {
    let d = match (t.code, t.bits, t.lanes) {
        (ffi::kDLBool, 8, 1) => DType::Bool,
        (ffi::kDLInt, 8, 1) => DType::I8,
        (ffi::kDLInt, 16, 1) => DType::I16,
        (ffi::kDLInt, 32, 1) => DType::I32,
        (ffi::kDLInt, 64, 1) => DType::I64,
        (ffi::kDLUInt, 8, 1) => DType::U8,
        (ffi::kDLUInt, 16, 1) => DType::U16,
        (ffi::kDLUInt, 32, 1) => DType::U32,
        (ffi::kDLUInt, 64, 1) => DType::U64,
        (ffi::kDLFloat, 16, 1) => DType::F16,
        (ffi::kDLFloat, 32, 1) => DType::F32,
        (ffi::kDLFloat, 64, 1) => DType::F64,
        (ffi::kDLBfloat, 16, 1) => DType::BF16,
        (ffi::kDLComplex, 64, 1) => DType::C64,
        (ffi::kDLComplex, 128, 1) => DType::C128,
        _ => {
            return Err(Error::UnsupportedDType {
                op: "from_dlpack".into(),
                dtypes: Vec::new(),
                detail: format!(
                    "DLPack type code {} ({}), {} bits, {} lanes has no xp dtype",
                    t.code,
                    code_name(t.code),
                    t.bits,
                    t.lanes
                ),
            })
        }
    };
    Ok(d)
}

fn code_name(code: u8) -> &'static str {
    match code {
        ffi::kDLInt => "int",
        ffi::kDLUInt => "uint",
        ffi::kDLFloat => "float",
        ffi::kDLOpaqueHandle => "opaque handle",
        ffi::kDLBfloat => "bfloat",
        ffi::kDLComplex => "complex",
        ffi::kDLBool => "bool",
        _ => "float8 or later",
    }
}

/// DLPack's device of an xp device (`kDLCPU`, `kDLCUDA`, `kDLROCM` and the ordinal), as the
/// Array API's `__dlpack_device__` returns it.
pub fn device_to_dlpack(device: &dyn DynDevice) -> Result<DLDevice> {
    let device_type = match device.backend_name() {
        "cpu" => ffi::kDLCPU,
        "cuda" => ffi::kDLCUDA,
        "hip" => ffi::kDLROCM,
        other => return Err(Error::Unsupported(format!("to_dlpack: the `{other}` backend has no DLPack device type"))),
    };
    let device_id = i32::try_from(device.ordinal())
        .map_err(|_| Error::value("to_dlpack", format!("device ordinal {} out of range", device.ordinal())))?;
    Ok(DLDevice { device_type, device_id })
}

/// The xp device of a DLPack device; an error for the kinds of memory xp does not manage.
pub fn device_from_dlpack(d: DLDevice) -> Result<std::sync::Arc<dyn DynDevice>> {
    let label = match d.device_type {
        ffi::kDLCPU => "cpu".to_string(),
        ffi::kDLCUDA => format!("cuda:{}", d.device_id),
        ffi::kDLROCM => format!("hip:{}", d.device_id),
        t => {
            let what = match t {
                ffi::kDLCUDAHost => "pinned host memory (kDLCUDAHost)",
                ffi::kDLCUDAManaged => "CUDA managed memory (kDLCUDAManaged)",
                11 => "pinned host memory of ROCm (kDLROCMHost)",
                4 => "OpenCL",
                7 => "Vulkan",
                8 => "Metal",
                14 => "oneAPI",
                15 => "WebGPU",
                _ => "a device type xp does not know",
            };
            return Err(Error::Unsupported(format!(
                "from_dlpack: DLPack device type {t} ({what}) id {} is not a device xp manages; copy it to CPU or \
                 GPU memory first",
                d.device_id
            )));
        }
    };
    if d.device_id < 0 {
        return Err(Error::value("from_dlpack", format!("negative device id {}", d.device_id)));
    }
    crate::device::device(&label)
}

/// What a managed tensor exported by xp owns: the array (so its buffer lives) and the extents
/// and strides the tensor points at. `repr(C)` with the managed tensor first, so a pointer to
/// the one is a pointer to the other.
#[repr(C)]
struct Export<M> {
    managed: M,
    shape: Vec<i64>,
    strides: Vec<i64>,
    array: Array,
}

unsafe extern "C" fn delete_versioned(p: *mut DLManagedTensorVersioned) {
    if p.is_null() {
        return;
    }
    // SAFETY: xp's deleter is only set on tensors made by `Array::to_dlpack`, where `p` is the
    // first field of a boxed `Export` (also `manager_ctx`); DLPack calls the deleter once.
    drop(unsafe { Box::from_raw(p as *mut Export<DLManagedTensorVersioned>) });
}

unsafe extern "C" fn delete_legacy(p: *mut DLManagedTensor) {
    if p.is_null() {
        return;
    }
    // SAFETY: as `delete_versioned`, for `Array::to_dlpack_legacy`'s tensors.
    drop(unsafe { Box::from_raw(p as *mut Export<DLManagedTensor>) });
}

impl Array {
    /// The parts of an export: the array's device and dtype, the data address of the first
    /// element, extents and strides; the consumer's stream ordered after xp's work.
    fn dlpack_parts(&self, consumer: ConsumerStream<'_>) -> Result<(DLTensor, Vec<i64>, Vec<i64>)> {
        let device = device_to_dlpack(self.device())?;
        // The consumer may write the memory: the pending arrays that read it are computed first.
        self.storage.flush_readers()?;
        let buffer = self.storage.buffer()?;
        order_for_consumer(buffer, consumer)?;
        let data = buffer.device_ptr() + (self.layout.offset() * self.itemsize()) as u64;
        let mut shape: Vec<i64> = self.shape().iter().map(|&n| n as i64).collect();
        let mut strides: Vec<i64> = self.strides().iter().map(|&s| s as i64).collect();
        let tensor = DLTensor {
            data: data as *mut c_void,
            device,
            ndim: self.ndim() as i32,
            dtype: dtype_to_dlpack(self.dtype),
            shape: shape.as_mut_ptr(),
            strides: strides.as_mut_ptr(),
            byte_offset: 0,
        };
        Ok((tensor, shape, strides))
    }

    /// The array as a DLPack ≥ 1.0 managed tensor over xp's buffer (no copy). The tensor
    /// holds the buffer alive until its deleter runs (dropping the [`DLPackTensor`], or the
    /// consumer's call after [`DLPackTensor::into_raw`]). `consumer` is where it will be read:
    /// xp's work on the array is ordered before it there (see [`ConsumerStream`]).
    ///
    /// Errors: a backend without a DLPack device type; an error of a pending evaluation or of
    /// recording the events.
    pub fn to_dlpack(&self, consumer: ConsumerStream<'_>) -> Result<DLPackTensor> {
        let (dl_tensor, shape, strides) = self.dlpack_parts(consumer)?;
        let flags = if self.is_read_only() { ffi::DLPACK_FLAG_BITMASK_READ_ONLY } else { 0 };
        let export = Box::new(Export {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major: ffi::DLPACK_MAJOR_VERSION, minor: ffi::DLPACK_MINOR_VERSION },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_versioned),
                flags,
                dl_tensor,
            },
            shape,
            strides,
            array: self.clone(),
        });
        let p = Box::into_raw(export);
        // SAFETY: `p` is the live box just made; its `managed` is its first field.
        unsafe { (*p).managed.manager_ctx = p as *mut c_void };
        Ok(DLPackTensor(NonNull::new(p as *mut DLManagedTensorVersioned).expect("a box is not null")))
    }

    /// [`Array::to_dlpack`] as an unversioned `DLManagedTensor`, for consumers older than
    /// DLPack 1.0. It has no read-only flag: export a read-only array only to a consumer that
    /// will not write it.
    pub fn to_dlpack_legacy(&self, consumer: ConsumerStream<'_>) -> Result<DLPackTensorLegacy> {
        let (dl_tensor, shape, strides) = self.dlpack_parts(consumer)?;
        let export = Box::new(Export {
            managed: DLManagedTensor { dl_tensor, manager_ctx: std::ptr::null_mut(), deleter: Some(delete_legacy) },
            shape,
            strides,
            array: self.clone(),
        });
        let p = Box::into_raw(export);
        // SAFETY: `p` is the live box just made.
        unsafe { (*p).managed.manager_ctx = p as *mut c_void };
        Ok(DLPackTensorLegacy(NonNull::new(p as *mut DLManagedTensor).expect("a box is not null")))
    }

    /// An array over a DLPack tensor's memory, without a copy (see the [module docs](self)):
    /// shape, strides, byte offset and the read-only flag are the tensor's; it is used on its
    /// device's current stream (give that stream to the producer so that it orders its work
    /// before). The tensor's deleter runs once, when the last array over it is dropped — or
    /// before this returns an error.
    ///
    /// Errors: a major version other than 1, a device or dtype xp does not have (named), a
    /// negative extent, a misaligned address.
    pub fn from_dlpack(tensor: DLPackTensor) -> Result<Array> {
        let version = tensor.version();
        if version.major != ffi::DLPACK_MAJOR_VERSION {
            return Err(Error::Unsupported(format!(
                "from_dlpack: DLPack version {}.{} (xp reads major version {})",
                version.major,
                version.minor,
                ffi::DLPACK_MAJOR_VERSION
            )));
        }
        let read_only = tensor.is_read_only();
        // The description lives in the managed tensor, which the handle points to: moving the
        // handle into the owner moves no struct.
        let t = *tensor.tensor();
        // SAFETY: the handle's contract: the tensor describes valid memory until its deleter
        // runs, which the owner passed here ensures happens only when the array goes.
        unsafe { import(&t, read_only, Box::new(tensor)) }
    }

    /// [`Array::from_dlpack`] for an unversioned `DLManagedTensor` (writable: the legacy
    /// format has no read-only flag).
    pub fn from_dlpack_legacy(tensor: DLPackTensorLegacy) -> Result<Array> {
        let t = *tensor.tensor();
        // SAFETY: as `from_dlpack`.
        unsafe { import(&t, false, Box::new(tensor)) }
    }
}

/// The array over `t`'s memory, owning `owner` (which keeps `t` valid).
///
/// # Safety
/// `t` and the memory it describes stay valid until `owner` is dropped.
unsafe fn import(t: &DLTensor, read_only: bool, owner: Box<dyn std::any::Any + Send + Sync>) -> Result<Array> {
    let device = device_from_dlpack(t.device)?;
    let dtype = dtype_from_dlpack(t.dtype)?;
    let ndim = usize::try_from(t.ndim).map_err(|_| Error::value("from_dlpack", format!("ndim {}", t.ndim)))?;
    if ndim > crate::layout::MAX_DIMS {
        return Err(Error::value(
            "from_dlpack",
            format!("{ndim} dimensions is more than the {} supported", crate::layout::MAX_DIMS),
        ));
    }
    if ndim > 0 && t.shape.is_null() {
        return Err(Error::value("from_dlpack", format!("a null shape for {ndim} dimensions")));
    }
    let raw_shape: &[i64] = if ndim == 0 {
        &[]
    } else {
        // SAFETY: DLPack: `shape` points to `ndim` extents, valid while the tensor is.
        unsafe { std::slice::from_raw_parts(t.shape, ndim) }
    };
    let shape: Vec<usize> = raw_shape
        .iter()
        .map(|&n| usize::try_from(n).map_err(|_| Error::value("from_dlpack", format!("shape {raw_shape:?}"))))
        .collect::<Result<_>>()?;
    let strides: Option<Vec<isize>> = if t.strides.is_null() || ndim == 0 {
        None
    } else {
        // SAFETY: DLPack: non-null `strides` points to `ndim` strides.
        let s = unsafe { std::slice::from_raw_parts(t.strides, ndim) };
        Some(
            s.iter()
                .map(|&v| isize::try_from(v).map_err(|_| Error::value("from_dlpack", format!("strides {s:?}"))))
                .collect::<Result<_>>()?,
        )
    };
    let ptr = (t.data as u64)
        .checked_add(t.byte_offset)
        .ok_or_else(|| Error::value("from_dlpack", format!("byte offset {} overflows", t.byte_offset)))?;
    // SAFETY: DLPack: the elements the shape and strides reach from `data + byte_offset` are
    // memory of the tensor's device holding values of its dtype, valid until `owner` (the
    // managed tensor) is dropped; the producer orders its writes before the stream it was given.
    unsafe { Array::from_foreign("from_dlpack", ptr, &shape, strides.as_deref(), dtype, &device, owner, read_only) }
}
