//! Zero-copy exchange on the CPU device: DLPack export and import (pointer equality, strides,
//! byte offsets, read-only, dtype/device/version errors, the deleter run exactly once), the
//! `ndarray` views both ways, and `from_raw_device_ptr`.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ndarray::{ArcArray, Array2, ArrayD, IxDyn};
use xp_array::interop::dlpack::ffi::{self, DLDataType, DLDevice, DLManagedTensorVersioned, DLPackVersion, DLTensor};
use xp_array::interop::{ConsumerStream, DLPackTensor};
use xp_array::*;
use xp_backend_api::{BackendHandle, Error};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn f64s(v: &[f64], shape: &[usize]) -> Array {
    Array::from_slice_on(&cpu(), v, shape).unwrap()
}

fn range(n: usize, shape: &[usize]) -> Array {
    let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
    f64s(&v, shape)
}

// ---- a foreign producer: a managed tensor over a Vec, whose deleter counts its calls ----------

struct Spec {
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    byte_offset: u64,
    dtype: DLDataType,
    device: DLDevice,
    flags: u64,
    major: u32,
}

fn f64_spec(shape: &[i64], strides: Option<&[i64]>, byte_offset: u64) -> Spec {
    Spec {
        shape: shape.to_vec(),
        strides: strides.map(|s| s.to_vec()),
        byte_offset,
        dtype: DLDataType { code: ffi::kDLFloat, bits: 64, lanes: 1 },
        device: DLDevice { device_type: ffi::kDLCPU, device_id: 0 },
        flags: 0,
        major: 1,
    }
}

/// A float64 managed tensor over `values`, the address of its data, and its deleter's counter.
fn foreign_f64(
    values: &[f64],
    shape: &[i64],
    strides: Option<&[i64]>,
    byte_offset: u64,
) -> (DLPackTensor, u64, Arc<AtomicUsize>) {
    foreign_with_f64s(f64_spec(shape, strides, byte_offset), values.to_vec())
}

#[repr(C)]
struct ForeignF64 {
    managed: DLManagedTensorVersioned,
    _data: Vec<f64>,
    _shape: Vec<i64>,
    _strides: Vec<i64>,
    deleted: Arc<AtomicUsize>,
}

unsafe extern "C" fn count_delete_f64(p: *mut DLManagedTensorVersioned) {
    // SAFETY: `p` is the first field of a boxed `ForeignF64`.
    let f = unsafe { Box::from_raw(p as *mut ForeignF64) };
    f.deleted.fetch_add(1, Ordering::SeqCst);
}

fn foreign_with_f64s(spec: Spec, mut data: Vec<f64>) -> (DLPackTensor, u64, Arc<AtomicUsize>) {
    cpu();
    let deleted = Arc::new(AtomicUsize::new(0));
    let ptr = data.as_mut_ptr();
    let mut f = Box::new(ForeignF64 {
        managed: DLManagedTensorVersioned {
            version: DLPackVersion { major: spec.major, minor: 0 },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(count_delete_f64),
            flags: spec.flags,
            dl_tensor: DLTensor {
                data: ptr as *mut c_void,
                device: spec.device,
                ndim: spec.shape.len() as i32,
                dtype: spec.dtype,
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset: spec.byte_offset,
            },
        },
        _data: data,
        _shape: spec.shape,
        _strides: spec.strides.clone().unwrap_or_default(),
        deleted: Arc::clone(&deleted),
    });
    f.managed.dl_tensor.shape = f._shape.as_mut_ptr();
    if spec.strides.is_some() {
        f.managed.dl_tensor.strides = f._strides.as_mut_ptr();
    }
    let p = Box::into_raw(f);
    // SAFETY: a boxed `ForeignF64`, whose first field is the managed tensor.
    let t = unsafe { DLPackTensor::from_raw(p as *mut DLManagedTensorVersioned) }.unwrap();
    (t, ptr as u64, deleted)
}

// ---- export -------------------------------------------------------------------------------------

#[test]
fn export_describes_the_array_in_place() {
    let a = range(12, &[3, 4]);
    let v = a.t().slice(&[SliceArg::range(1, 4, 1), SliceArg::range(0, 3, 2)]).unwrap(); // shape [3, 2]
    let t = v.to_dlpack(ConsumerStream::Host).unwrap();
    let m = t.managed();
    assert_eq!(m.version.major, 1);
    assert_eq!(m.flags, 0);
    let dl = t.tensor();
    assert_eq!(dl.data as u64, v.data_ptr().unwrap());
    assert_eq!(dl.byte_offset, 0);
    assert_eq!((dl.device.device_type, dl.device.device_id), (ffi::kDLCPU, 0));
    assert_eq!((dl.dtype.code, dl.dtype.bits, dl.dtype.lanes), (ffi::kDLFloat, 64, 1));
    assert_eq!(dl.ndim, 2);
    // SAFETY: the tensor's shape and strides hold `ndim` values while it lives.
    let (shape, strides) = unsafe {
        (std::slice::from_raw_parts(dl.shape, 2).to_vec(), std::slice::from_raw_parts(dl.strides, 2).to_vec())
    };
    assert_eq!(shape, vec![3, 2]);
    assert_eq!(strides, vec![1, 8]);
    // The element [i, j] is at data + strides · (i, j): element [2, 1] of v is a[2, 3] = 11.
    // SAFETY: the CPU device's memory is host memory, kept alive by the tensor.
    let x = unsafe { *(dl.data as *const f64).offset(2 + 8) };
    assert_eq!(x, 11.0);
}

#[test]
fn round_trip_through_dlpack_shares_the_buffer() {
    let a = range(12, &[3, 4]);
    let v = a.slice(&[SliceArg::range(2, -4, -1), SliceArg::range(1, 4, 2)]).unwrap(); // negative stride
    let b = Array::from_dlpack(v.to_dlpack(ConsumerStream::Host).unwrap()).unwrap();
    assert_eq!(b.data_ptr().unwrap(), v.data_ptr().unwrap());
    assert_eq!(b.shape(), v.shape());
    assert_eq!(b.strides(), v.strides());
    assert_eq!(b.to_vec::<f64>().unwrap(), vec![9.0, 11.0, 5.0, 7.0, 1.0, 3.0]);
    // A write through the import is seen by the original: one buffer.
    b.mul_assign(10.0).unwrap();
    assert_eq!(a.to_vec::<f64>().unwrap()[9], 90.0);
    assert_eq!(a.to_vec::<f64>().unwrap()[8], 8.0);
}

#[test]
fn legacy_round_trip_and_zero_dimensional() {
    let a = f64s(&[2.5], &[]);
    let t = a.to_dlpack_legacy(ConsumerStream::Host).unwrap();
    assert_eq!(t.tensor().ndim, 0);
    let b = Array::from_dlpack_legacy(t).unwrap();
    assert_eq!(b.shape(), &[] as &[usize]);
    assert_eq!(b.item::<f64>().unwrap(), 2.5);
    assert_eq!(b.data_ptr().unwrap(), a.data_ptr().unwrap());
}

#[test]
fn an_export_keeps_the_buffer_alive_after_the_array_goes() {
    let a = range(1000, &[1000]);
    let ptr = a.data_ptr().unwrap();
    let t = a.to_dlpack(ConsumerStream::Host).unwrap();
    drop(a);
    // Fill the pool with new arrays: none may take the exported memory.
    let others: Vec<Array> =
        (0..8).map(|_| xp_array::with_device(&cpu(), || zeros(&[1000], DType::F64)).unwrap()).collect();
    assert!(others.iter().all(|o| o.data_ptr().unwrap() != ptr));
    let b = Array::from_dlpack(t).unwrap();
    assert_eq!(b.data_ptr().unwrap(), ptr);
    assert_eq!(b.to_vec::<f64>().unwrap()[999], 999.0);
}

#[test]
fn pending_values_are_computed_before_export() {
    let x = range(6, &[6]);
    let y = &(&x * 2.0) + 1.0; // pending under lazy fusion
    let t = y.to_dlpack(ConsumerStream::Host).unwrap();
    assert!(!y.is_pending());
    // SAFETY: host memory of 6 f64, kept alive by the tensor, finished (host wait).
    let vals = unsafe { std::slice::from_raw_parts(t.tensor().data as *const f64, 6) }.to_vec();
    assert_eq!(vals, vec![1.0, 3.0, 5.0, 7.0, 9.0, 11.0]);
}

#[test]
fn export_to_another_stream_orders_it_on_the_device() {
    let d = cpu();
    let s = d.new_stream().unwrap();
    let a = range(4096, &[4096]);
    let y = a.sqrt().unwrap();
    let t = y.to_dlpack(ConsumerStream::Stream(&s)).unwrap();
    let b = xp_array::with_stream_on(&d, &s, || Array::from_dlpack(t).unwrap());
    let got = xp_array::with_stream_on(&d, &s, || b.to_vec::<f64>().unwrap());
    assert_eq!(got[4095], 4095f64.sqrt());
}

// ---- import -------------------------------------------------------------------------------------

#[test]
fn import_honours_strides_and_byte_offset_and_runs_the_deleter_once() {
    let vals: Vec<f64> = (0..10).map(|i| i as f64).collect();
    // Skip two elements, then a 2x3 array in Fortran order.
    let (t, data, deleted) = foreign_f64(&vals, &[2, 3], Some(&[1, 2]), 16);
    let a = Array::from_dlpack(t).unwrap();
    assert_eq!(a.data_ptr().unwrap(), data + 16);
    assert_eq!(a.strides(), &[1, 2]);
    assert_eq!(a.to_vec::<f64>().unwrap(), vec![2.0, 4.0, 6.0, 3.0, 5.0, 7.0]);
    assert!(!a.is_read_only());
    let view = a.t();
    let copy = a.copy().unwrap();
    drop(a);
    assert_eq!(deleted.load(Ordering::SeqCst), 0, "a view still holds the memory");
    assert_eq!(view.to_vec::<f64>().unwrap(), vec![2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    drop(view);
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    // The copy has its own buffer.
    assert_eq!(copy.to_vec::<f64>().unwrap()[0], 2.0);
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
}

#[test]
fn import_without_strides_is_c_order_and_negative_strides_work() {
    let vals = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let (t, _, deleted) = foreign_f64(&vals, &[2, 3], None, 0);
    let a = Array::from_dlpack(t).unwrap();
    assert_eq!(a.strides(), &[3, 1]);
    assert_eq!(a.to_vec::<f64>().unwrap(), vals.to_vec());
    drop(a);
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    // Reversed: the first element is the last of the memory (byte offset 40), stride -1.
    let (t, data, deleted) = foreign_f64(&vals, &[6], Some(&[-1]), 40);
    let a = Array::from_dlpack(t).unwrap();
    assert_eq!(a.data_ptr().unwrap(), data + 40);
    assert_eq!(a.to_vec::<f64>().unwrap(), vec![6.0, 5.0, 4.0, 3.0, 2.0, 1.0]);
    assert_eq!(a.sum(None, false).unwrap().item::<f64>().unwrap(), 21.0);
    drop(a);
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
}

#[test]
fn a_read_only_tensor_refuses_writes() {
    let mut spec = f64_spec(&[3], None, 0);
    spec.flags = ffi::DLPACK_FLAG_BITMASK_READ_ONLY;
    let (t, _, deleted) = foreign_with_f64s(spec, vec![1.0, 2.0, 3.0]);
    assert!(t.is_read_only());
    let a = Array::from_dlpack(t).unwrap();
    assert!(a.is_read_only());
    let before = a.to_vec::<f64>().unwrap();
    let e = a.add_assign(1.0).unwrap_err();
    assert!(e.to_string().contains("read-only"), "{e}");
    assert_eq!(a.to_vec::<f64>().unwrap(), before);
    // Reads, views and copies work; a copy is writable.
    assert_eq!((&a * 2.0).to_vec::<f64>().unwrap(), vec![2.0, 4.0, 6.0]);
    let c = a.copy().unwrap();
    c.add_assign(1.0).unwrap();
    assert_eq!(c.to_vec::<f64>().unwrap(), vec![2.0, 3.0, 4.0]);
    // The flag travels on: a re-export is read-only too.
    assert!(a.to_dlpack(ConsumerStream::Host).unwrap().is_read_only());
    drop(a);
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
}

#[test]
fn unsupported_dtypes_devices_and_versions_are_errors_that_still_delete() {
    // float8 (code 7), two lanes of float32, a 1-bit bool.
    for dtype in [
        DLDataType { code: 7, bits: 8, lanes: 1 },
        DLDataType { code: ffi::kDLFloat, bits: 32, lanes: 2 },
        DLDataType { code: ffi::kDLBool, bits: 1, lanes: 1 },
    ] {
        let (mut spec, v) = (f64_spec(&[4], None, 0), vec![0.0; 4]);
        spec.dtype = dtype;
        let (t, _, deleted) = foreign_with_f64s(spec, v);
        let e = Array::from_dlpack(t).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
        assert!(e.to_string().contains(&format!("{} bits", dtype.bits)), "{e}");
        assert_eq!(deleted.load(Ordering::SeqCst), 1);
    }
    for (device_type, what) in [(ffi::kDLCUDAHost, "kDLCUDAHost"), (ffi::kDLCUDAManaged, "managed"), (4, "OpenCL")] {
        let (mut spec, v) = (f64_spec(&[4], None, 0), vec![0.0; 4]);
        spec.device = DLDevice { device_type, device_id: 0 };
        let (t, _, deleted) = foreign_with_f64s(spec, v);
        let e = Array::from_dlpack(t).unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
        assert_eq!(deleted.load(Ordering::SeqCst), 1);
    }
    // A GPU tensor in a build (this test binary) without that GPU backend.
    let (mut spec, v) = (f64_spec(&[4], None, 0), vec![0.0; 4]);
    spec.device = DLDevice { device_type: ffi::kDLCUDA, device_id: 0 };
    let (t, _, deleted) = foreign_with_f64s(spec, v);
    assert!(Array::from_dlpack(t).is_err());
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    // DLPack 2.x.
    let (mut spec, v) = (f64_spec(&[4], None, 0), vec![0.0; 4]);
    spec.major = 2;
    let (t, _, deleted) = foreign_with_f64s(spec, v);
    let e = Array::from_dlpack(t).unwrap_err();
    assert!(e.to_string().contains("version 2.0"), "{e}");
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    // A misaligned first element (byte offset 4 into f64 data).
    let (t, _, deleted) = foreign_f64(&[0.0; 4], &[2], None, 4);
    let e = Array::from_dlpack(t).unwrap_err();
    assert!(e.to_string().contains("aligned"), "{e}");
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
}

#[test]
fn dtypes_map_both_ways() {
    for dt in DType::ALL {
        let a = Array::full_on(&cpu(), &[3], 1, dt).unwrap();
        let t = a.to_dlpack(ConsumerStream::Host).unwrap();
        assert_eq!(t.tensor().dtype.bits as usize, dt.size() * 8);
        let b = Array::from_dlpack(t).unwrap();
        assert_eq!(b.dtype(), dt);
        assert_eq!(b.data_ptr().unwrap(), a.data_ptr().unwrap());
    }
}

// ---- from_raw_device_ptr ------------------------------------------------------------------------

struct CountDrop(Arc<AtomicUsize>, #[allow(dead_code)] Vec<i32>);
impl Drop for CountDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn from_raw_device_ptr_wraps_and_drops_the_owner_once() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let data: Vec<i32> = (0..12).collect();
    let ptr = data.as_ptr() as u64;
    let owner = CountDrop(Arc::clone(&dropped), data);
    // SAFETY: 12 i32 of host memory owned by `owner`, which the array keeps; the element
    // [0, 0] is data[11] and the strides (-4, -1) reach data[0..12].
    let a = unsafe {
        Array::from_raw_device_ptr(ptr + 11 * 4, &[3, 4], Some(&[-4, -1]), DType::I32, &cpu(), Box::new(owner))
    }
    .unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), (0..12).rev().collect::<Vec<i32>>());
    assert_eq!(a.data_ptr().unwrap(), ptr + 44);
    a.add_assign(100i64).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap()[0], 111);
    let b = a.clone();
    drop(a);
    assert_eq!(dropped.load(Ordering::SeqCst), 0);
    drop(b);
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
}

#[test]
fn from_raw_device_ptr_refuses_bad_descriptions() {
    let d = cpu();
    let data = [0f64; 4];
    let p = data.as_ptr() as u64;
    // SAFETY (each call): `data` outlives the arrays, which are errors or dropped at once.
    let e = unsafe { Array::from_raw_device_ptr(0, &[4], None, DType::F64, &d, Box::new(())) }.unwrap_err();
    assert!(e.to_string().contains("null"), "{e}");
    let e = unsafe { Array::from_raw_device_ptr(p + 1, &[2], None, DType::F64, &d, Box::new(())) }.unwrap_err();
    assert!(e.to_string().contains("aligned"), "{e}");
    let e = unsafe { Array::from_raw_device_ptr(p, &[2, 2], Some(&[1]), DType::F64, &d, Box::new(())) }.unwrap_err();
    assert!(e.to_string().contains("strides"), "{e}");
    // An empty array needs no memory.
    let a = unsafe { Array::from_raw_device_ptr(0, &[0, 3], None, DType::F64, &d, Box::new(())) }.unwrap();
    assert_eq!(a.size(), 0);
    assert_eq!(a.to_vec::<f64>().unwrap(), Vec::<f64>::new());
}

// ---- ndarray ------------------------------------------------------------------------------------

#[test]
fn ndarray_view_shares_memory_and_blocks_writes_while_alive() {
    let a = range(12, &[3, 4]);
    let t = a.t();
    {
        let v = t.as_ndarray_view::<f64>().unwrap();
        assert_eq!(v.shape(), &[4, 3]);
        assert_eq!(v.as_ptr() as u64, t.data_ptr().unwrap());
        assert_eq!(v[[3, 2]], 11.0);
        assert_eq!(v.strides(), &[1, 4]);
        let e = a.add_assign(1.0).unwrap_err();
        assert!(e.to_string().contains("host view"), "{e}");
        // Reading is fine.
        assert_eq!(a.sum(None, false).unwrap().item::<f64>().unwrap(), 66.0);
    }
    a.add_assign(1.0).unwrap();
    assert_eq!(t.as_ndarray_view::<f64>().unwrap()[[3, 2]], 12.0);
    // Negative and zero strides.
    let r = a.slice(&[SliceArg::range(2, -4, -1), SliceArg::range(3, -5, -1)]).unwrap();
    let v = r.as_ndarray_view::<f64>().unwrap();
    assert_eq!(v[[0, 0]], 12.0);
    assert_eq!(v.as_ptr() as u64, r.data_ptr().unwrap());
    assert_eq!(v.iter().copied().collect::<Vec<f64>>(), r.to_vec::<f64>().unwrap());
    drop(v);
    let bc = f64s(&[1.0, 2.0], &[2]).broadcast_to(&[3, 2]).unwrap();
    let v = bc.as_ndarray_view::<f64>().unwrap();
    assert_eq!(v.iter().copied().collect::<Vec<f64>>(), vec![1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
}

#[test]
fn ndarray_view_of_the_wrong_type_is_an_error() {
    let a = range(4, &[4]);
    let e = a.as_ndarray_view::<f32>().unwrap_err();
    assert!(e.to_string().contains("float64") && e.to_string().contains("float32"), "{e}");
    // The failed view left no count behind.
    a.add_assign(1.0).unwrap();
}

#[test]
fn owned_ndarray_becomes_a_writable_array_without_a_copy() {
    cpu();
    let m = Array2::from_shape_fn((3, 4), |(i, j)| (10 * i + j) as f32);
    let ptr = m.as_ptr() as u64;
    let a = Array::from_ndarray_owned(m).unwrap();
    assert_eq!(a.data_ptr().unwrap(), ptr);
    assert_eq!(a.shape(), &[3, 4]);
    a.mul_assign(2.0).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap()[5], 22.0);
    // A transposed (Fortran-order) ndarray keeps its strides.
    let f = Array2::from_shape_fn((2, 3), |(i, j)| (i * 3 + j) as f64).reversed_axes();
    let fptr = f.as_ptr() as u64;
    let b = Array::from_ndarray_owned(f).unwrap();
    assert_eq!(b.data_ptr().unwrap(), fptr);
    assert_eq!(b.strides(), &[1, 3]);
    assert_eq!(b.to_vec::<f64>().unwrap(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
}

#[test]
fn shared_and_borrowed_ndarrays_are_read_only() {
    cpu();
    let mut s: ArcArray<f64, IxDyn> =
        ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1.0, 2.0, 3.0, 4.0]).unwrap().into_shared();
    let a = Array::from_ndarray_shared(&s).unwrap();
    assert_eq!(a.data_ptr().unwrap(), s.as_ptr() as u64);
    assert!(a.is_read_only());
    assert!(a.add_assign(1.0).is_err());
    // The ndarray's own write copies first (copy on write): the array keeps its values.
    s[[0, 0]] = 100.0;
    assert_eq!(a.to_vec::<f64>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    assert_ne!(a.data_ptr().unwrap(), s.as_ptr() as u64);

    let owned = Array2::from_shape_vec((2, 2), vec![5.0f64, 6.0, 7.0, 8.0]).unwrap();
    // SAFETY: `owned` outlives `b` (dropped below first) and is not written meanwhile.
    let b = unsafe { Array::from_ndarray_view(owned.view()) }.unwrap();
    assert_eq!(b.data_ptr().unwrap(), owned.as_ptr() as u64);
    assert!(b.is_read_only());
    assert_eq!(b.to_vec::<f64>().unwrap(), vec![5.0, 6.0, 7.0, 8.0]);
    drop(b);
}
