//! Zero-copy exchange on every GPU found: DLPack round trips (pointer equality, strides, byte
//! offsets, read-only, device errors, the deleter run once), the Array API's stream argument,
//! and the cudarc bridge (`--features cudarc`). The CPU device's DLPack checks are
//! `array/tests/interop.rs`; the stream argument's CPU rules are checked here, without a GPU.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use xp::interop::ffi::{self, DLDataType, DLDevice, DLManagedTensorVersioned, DLPackVersion, DLTensor};
use xp::interop::{ConsumerStream, DLPackTensor};
use xp::{Array, DType, DynDevice, SliceArg};

use crate::gpus::on_every_gpu;

fn range_on(d: &Arc<dyn DynDevice>, n: usize, shape: &[usize]) -> Array {
    let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
    Array::from_slice_on(d, &v, shape).unwrap()
}

/// A managed tensor made by a "foreign" producer: it lends the memory of `backing` (an xp
/// array kept by the tensor) and counts its deleter's calls.
#[repr(C)]
struct Lent {
    managed: DLManagedTensorVersioned,
    shape: Vec<i64>,
    strides: Vec<i64>,
    _backing: Array,
    deleted: Arc<AtomicUsize>,
}

unsafe extern "C" fn lent_delete(p: *mut DLManagedTensorVersioned) {
    // SAFETY: `p` is the first field of a boxed `Lent` made by `lend`.
    let l = unsafe { Box::from_raw(p as *mut Lent) };
    l.deleted.fetch_add(1, Ordering::SeqCst);
}

fn lend(
    backing: &Array,
    shape: &[i64],
    strides: &[i64],
    byte_offset: u64,
    flags: u64,
) -> (DLPackTensor, Arc<AtomicUsize>) {
    lend_edited(backing, shape, strides, byte_offset, flags, |_| {})
}

/// [`lend`], with the tensor's description changed by `edit` before it is handed over.
fn lend_edited(
    backing: &Array,
    shape: &[i64],
    strides: &[i64],
    byte_offset: u64,
    flags: u64,
    edit: impl FnOnce(&mut DLTensor),
) -> (DLPackTensor, Arc<AtomicUsize>) {
    let deleted = Arc::new(AtomicUsize::new(0));
    let dev = xp::interop::dlpack::device_to_dlpack(backing.device()).unwrap();
    let mut l = Box::new(Lent {
        managed: DLManagedTensorVersioned {
            version: DLPackVersion { major: 1, minor: 0 },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(lent_delete),
            flags,
            dl_tensor: DLTensor {
                data: backing.data_ptr().unwrap() as *mut c_void,
                device: dev,
                ndim: shape.len() as i32,
                dtype: xp::interop::dlpack::dtype_to_dlpack(backing.dtype()),
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset,
            },
        },
        shape: shape.to_vec(),
        strides: strides.to_vec(),
        _backing: backing.clone(),
        deleted: Arc::clone(&deleted),
    });
    l.managed.dl_tensor.shape = l.shape.as_mut_ptr();
    l.managed.dl_tensor.strides = l.strides.as_mut_ptr();
    edit(&mut l.managed.dl_tensor);
    let p = Box::into_raw(l);
    // SAFETY: a boxed `Lent`, whose first field is the managed tensor; its deleter frees it once.
    let t = unsafe { DLPackTensor::from_raw(p as *mut DLManagedTensorVersioned) }.unwrap();
    (t, deleted)
}

#[test]
fn dlpack_round_trip_on_gpu() {
    on_every_gpu("dlpack_round_trip_on_gpu", |d| {
        let a = range_on(d, 12, &[3, 4]);
        let v = a.slice(&[SliceArg::range(2, -4, -1), SliceArg::range(1, 4, 2)]).unwrap();
        let other = d.new_stream().unwrap();
        let t = v.to_dlpack(ConsumerStream::Stream(&other)).unwrap();
        let dev = t.tensor().device;
        assert_eq!(dev.device_id as usize, d.ordinal());
        assert!(dev.device_type == ffi::kDLCUDA || dev.device_type == ffi::kDLROCM);
        assert_eq!(t.tensor().data as u64, v.data_ptr().unwrap());
        let b = xp::array::with_stream_on(d, &other, || Array::from_dlpack(t).unwrap());
        assert_eq!(b.data_ptr().unwrap(), v.data_ptr().unwrap());
        assert_eq!(b.strides(), v.strides());
        assert_eq!(b.to_vec::<f32>().unwrap(), vec![9.0, 11.0, 5.0, 7.0, 1.0, 3.0]);
        b.mul_assign(10.0).unwrap();
        assert_eq!(a.to_vec::<f32>().unwrap()[9], 90.0);
        let l = a.to_dlpack_legacy(ConsumerStream::Unordered).unwrap();
        let c = Array::from_dlpack_legacy(l).unwrap();
        assert_eq!(c.data_ptr().unwrap(), a.data_ptr().unwrap());
    });
}

#[test]
fn dlpack_import_on_gpu_honours_offsets_read_only_and_deletes_once() {
    on_every_gpu("dlpack_import_on_gpu_honours_offsets_read_only_and_deletes_once", |d| {
        let backing = range_on(d, 10, &[10]);
        // Skip two elements, then a 2x3 array in Fortran order.
        let (t, deleted) = lend(&backing, &[2, 3], &[1, 2], 8, 0);
        let a = Array::from_dlpack(t).unwrap();
        assert_eq!(a.data_ptr().unwrap(), backing.data_ptr().unwrap() + 8);
        assert_eq!(a.to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0, 3.0, 5.0, 7.0]);
        let view = a.t();
        drop(a);
        assert_eq!(deleted.load(Ordering::SeqCst), 0);
        assert_eq!(view.sum(None, false).unwrap().item::<f32>().unwrap(), 27.0);
        drop(view);
        assert_eq!(deleted.load(Ordering::SeqCst), 1);

        let (t, deleted) = lend(&backing, &[10], &[1], 0, ffi::DLPACK_FLAG_BITMASK_READ_ONLY);
        let r = Array::from_dlpack(t).unwrap();
        assert!(r.is_read_only());
        assert!(r.add_assign(1.0).is_err());
        assert_eq!(backing.to_vec::<f32>().unwrap()[3], 3.0);
        drop(r);
        assert_eq!(deleted.load(Ordering::SeqCst), 1);

        // A device that does not exist, and an unsupported dtype: errors, deleter run once.
        let (t, deleted) = lend_edited(&backing, &[10], &[1], 0, 0, |t| t.device.device_id = 999);
        assert!(Array::from_dlpack(t).is_err());
        assert_eq!(deleted.load(Ordering::SeqCst), 1);
        let (t, deleted) = lend_edited(&backing, &[10], &[1], 0, 0, |t| {
            t.dtype = DLDataType { code: ffi::kDLFloat, bits: 8, lanes: 1 }
        });
        assert!(matches!(Array::from_dlpack(t), Err(xp::Error::UnsupportedDType { .. })));
        assert_eq!(deleted.load(Ordering::SeqCst), 1);
        let (t, deleted) = lend_edited(&backing, &[10], &[1], 0, 0, |t| {
            t.device = DLDevice { device_type: ffi::kDLCUDAHost, device_id: 0 }
        });
        assert!(Array::from_dlpack(t).unwrap_err().to_string().contains("kDLCUDAHost"));
        assert_eq!(deleted.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn array_api_stream_argument_on_gpu() {
    on_every_gpu("array_api_stream_argument_on_gpu", |d| {
        let a = range_on(d, 1 << 20, &[1 << 20]);
        let y = a.sqrt().unwrap();
        if d.backend_name() == "cuda" {
            let s = d.new_stream().unwrap();
            let raw = xp::interop::raw_stream_handle(&s).expect("a CUDA stream has a handle") as i64;
            for stream in [None, Some(1), Some(2), Some(-1), Some(raw)] {
                let t = xp::interop::to_dlpack_for(&y, stream).unwrap();
                assert_eq!(t.tensor().data as u64, y.data_ptr().unwrap());
            }
            // The consumer on `s` reads finished values.
            let t = xp::interop::to_dlpack_for(&y, Some(raw)).unwrap();
            let b = xp::array::with_stream_on(d, &s, || Array::from_dlpack(t).unwrap());
            let got = xp::array::with_stream_on(d, &s, || b.to_vec::<f32>().unwrap());
            assert_eq!(got[4], 2.0);
            assert_eq!(
                xp::interop::dlpack_stream_argument(d),
                xp::interop::raw_stream_handle(&xp::current_stream(d)).map(|h| h as i64)
            );
        }
        assert!(xp::interop::to_dlpack_for(&y, Some(0)).is_err());
        assert!(xp::interop::to_dlpack_legacy_for(&y, Some(-1)).is_ok());
    });
}

#[test]
fn array_api_stream_argument_on_the_cpu() {
    let cpu = xp::device("cpu").unwrap();
    let a = range_on(&cpu, 8, &[8]);
    let t = xp::interop::to_dlpack_for(&a, None).unwrap();
    assert_eq!(t.tensor().device.device_type, ffi::kDLCPU);
    assert!(xp::interop::to_dlpack_for(&a, Some(-1)).is_ok());
    let e = xp::interop::to_dlpack_for(&a, Some(5)).unwrap_err();
    assert!(e.to_string().contains("CPU"), "{e}");
    assert!(xp::interop::to_dlpack_for(&a, Some(0)).is_err());
    assert_eq!(xp::interop::dlpack_stream_argument(&cpu), None);
    let b = Array::from_dlpack(t).unwrap();
    assert_eq!(b.data_ptr().unwrap(), a.data_ptr().unwrap());
    let _ = DType::F32;
}

#[test]
fn ndarray_view_of_a_gpu_array_is_an_error() {
    on_every_gpu("ndarray_view_of_a_gpu_array_is_an_error", |d| {
        let a = range_on(d, 4, &[4]);
        let e = a.as_ndarray_view::<f32>().unwrap_err();
        assert!(e.to_string().contains(&d.label()), "{e}");
    });
}

#[cfg(feature = "cudarc")]
#[test]
fn cudarc_bridge_both_ways() {
    use cudarc::driver::{CudaContext, DevicePtr, DeviceSlice};
    use xp::interop::CudarcArray;
    on_every_gpu("cudarc_bridge_both_ways", |d| {
        if d.backend_name() != "cuda" {
            return;
        }
        let ctx = CudaContext::new(d.ordinal()).unwrap();
        let stream = ctx.new_stream().unwrap();
        // xp → cudarc: a borrowed view, read and written by cudarc, seen by xp.
        let a = range_on(d, 1000, &[10, 100]);
        let y = &a * 2.0; // pending: computed when lent
        {
            let view = y.as_cudarc_view::<f32>(&stream).unwrap();
            assert_eq!(view.len(), 1000);
            assert_eq!(view.device_address(), y.data_ptr().unwrap());
            let host = stream.clone_dtoh(&view).unwrap();
            assert_eq!(host[999], 1998.0);
            let mut view = view;
            let ones = vec![1.0f32; 1000];
            stream.memcpy_htod(&ones, &mut view).unwrap();
        }
        assert_eq!(y.sum(None, false).unwrap().item::<f32>().unwrap(), 1000.0);
        assert!(a.t().as_cudarc_view::<f32>(&stream).is_err(), "not C-contiguous");
        assert!(a.as_cudarc_view::<f64>(&stream).is_err(), "wrong element type");

        // cudarc → xp: an owned import, freed by cudarc when the last array goes.
        let src: Vec<f64> = (0..256).map(|i| i as f64).collect();
        let slice = stream.clone_htod(&src).unwrap();
        let ptr = {
            let (p, _rec) = slice.device_ptr(&stream);
            p
        };
        let b = Array::from_cudarc_slice(slice, &[16, 16]).unwrap();
        assert_eq!(b.data_ptr().unwrap(), ptr);
        assert_eq!(b.sum(None, false).unwrap().item::<f64>().unwrap(), 255.0 * 256.0 / 2.0);
        b.add_assign(1.0).unwrap();
        assert_eq!(b.to_vec::<f64>().unwrap()[255], 256.0);
        let wrong = stream.clone_htod(&src).unwrap();
        assert!(Array::from_cudarc_slice(wrong, &[3, 3]).is_err());
    });
}
