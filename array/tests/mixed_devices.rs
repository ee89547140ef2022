//! Every public function that takes several arrays refuses arrays of two devices with
//! `DeviceMismatch` before anything is launched, in either order. A second device stands in for
//! a GPU: the null backend's, whose addresses a CPU task must never dereference (before these
//! checks, `linalg::solve(a_on_cpu, b_on_gpu)` handed a GPU address to a CPU task).

use std::sync::Arc;

use xp_array::{device, register_backend, Array, DType, Error, Operand};
use xp_backend_api::null::NullDevice;
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

fn devices() -> (Arc<dyn DynDevice>, Arc<dyn DynDevice>) {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    let cpu = device("cpu").unwrap();
    let other: Arc<dyn DynDevice> = Arc::new(NullDevice::new(64 << 20, None).unwrap());
    (cpu, other)
}

fn f32s(d: &Arc<dyn DynDevice>, shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n).map(|i| 1.0 + i as f32).collect();
    Array::from_slice_on(d, &v, shape).unwrap()
}

fn zeros_i64(d: &Arc<dyn DynDevice>, shape: &[usize]) -> Array {
    Array::from_slice_on(d, &vec![0i64; shape.iter().product()], shape).unwrap()
}

fn i64s(d: &Arc<dyn DynDevice>, v: &[i64]) -> Array {
    Array::from_slice_on(d, v, &[v.len()]).unwrap()
}

/// `f` on (cpu, other) and on (other, cpu) is `DeviceMismatch`.
fn refused(
    what: &str,
    f: impl Fn(&Array, &Array) -> xp_array::Result<Array>,
    make: impl Fn(&Arc<dyn DynDevice>) -> Array,
) {
    let (cpu, other) = devices();
    let (a, b) = (make(&cpu), make(&other));
    for (x, y) in [(&a, &b), (&b, &a)] {
        match f(x, y) {
            Err(Error::DeviceMismatch { .. }) => {}
            r => panic!(
                "{what} on {} and {}: {:?}",
                x.device().label(),
                y.device().label(),
                r.map(|a| a.shape().to_vec())
            ),
        }
    }
}

fn square(d: &Arc<dyn DynDevice>) -> Array {
    f32s(d, &[4, 4])
}

#[test]
fn products_refuse_two_devices() {
    refused("matmul", |a, b| a.matmul(b), square);
    refused("dot", xp_array::linalg::dot, square);
    refused("inner", xp_array::linalg::inner, square);
    refused("outer", xp_array::linalg::outer, square);
    refused("kron", xp_array::linalg::kron, square);
    refused("vdot", xp_array::linalg::vdot, square);
    refused("einsum", |a, b| xp_array::linalg::einsum("ij,jk->ik", &[a, b]), square);
}

#[test]
fn linalg_refuses_two_devices() {
    refused("solve", xp_array::linalg::solve, square);
    refused("lstsq", |a, b| xp_array::linalg::lstsq(a, b, None).map(|r| r.0), square);
}

#[test]
fn elementwise_and_where_refuse_two_devices() {
    refused("add", |a, b| a.add(b), square);
    refused("where", |a, b| xp_array::where_(&a.gt(b)?, Operand::Array(a), Operand::Array(b)), square);
    refused("where (condition)", |a, b| xp_array::where_(&a.gt(a)?, Operand::Array(b), Operand::Array(b)), square);
}

#[test]
fn joining_and_indexing_refuse_two_devices() {
    refused("concatenate", |a, b| xp_array::concatenate(&[a, b], 0), square);
    refused("stack", |a, b| xp_array::stack(&[a, b], 0), square);
    let (cpu, other) = devices();
    let (x, idx) = (f32s(&cpu, &[8]), i64s(&other, &[0, 3, 1]));
    assert!(matches!(x.take(&idx, None), Err(Error::DeviceMismatch { .. })));
    let (x, idx) = (f32s(&other, &[8]), i64s(&cpu, &[0, 3, 1]));
    assert!(matches!(x.take(&idx, None), Err(Error::DeviceMismatch { .. })));
    let (x, idx, v) = (f32s(&cpu, &[8]), i64s(&other, &[0, 3]), f32s(&cpu, &[2]));
    assert!(matches!(x.put(&idx, &v), Err(Error::DeviceMismatch { .. })));
    let (x, mask) = (f32s(&cpu, &[8]), {
        let o = f32s(&other, &[8]);
        o.gt(&o).unwrap()
    });
    assert!(matches!(x.compress_mask(&mask), Err(Error::DeviceMismatch { .. })));
    refused("take_along_axis", |a, b| xp_array::take_along_axis(a, &b.astype(DType::I64)?, 0), square);
}

#[test]
fn sorting_and_searching_refuse_two_devices() {
    let sorted = |d: &Arc<dyn DynDevice>| f32s(d, &[16]);
    refused("searchsorted", |a, b| xp_array::searchsorted(a, b, xp_array::Side::Left, None), sorted);
    refused("isin", |a, b| xp_array::isin(a, b, false), sorted);
    refused("intersect1d", xp_array::intersect1d, sorted);
}

#[test]
fn signal_fft_and_binning_refuse_two_devices() {
    refused("convolve", |a, b| xp_array::convolve(a, b, xp_array::signal::Mode::Full), |d| f32s(d, &[16]));
    refused(
        "convolve2d",
        |a, b| xp_array::signal::convolve2d(a, b, xp_array::signal::Mode::Same, xp_array::signal::Boundary::Fill, 0.0),
        square,
    );
    refused("fftconvolve", |a, b| xp_array::signal::fftconvolve(a, b, xp_array::signal::Mode::Full, None), square);
    refused("interp", |a, b| xp_array::interp(a, b, b, None, None), |d| f32s(d, &[16]));
    refused("polyfit", |a, b| xp_array::polyfit(a, b, 2), |d| f32s(d, &[16]));
}

#[test]
fn gathers_and_masks_refuse_two_devices() {
    refused(
        "put_along_axis",
        |a, b| {
            let idx = zeros_i64(&b.device_arc(), &[1, 4]);
            xp_array::put_along_axis(a, &idx, a, Some(0)).map(|_| a.clone())
        },
        square,
    );
    refused("choose", |a, b| xp_array::choose(&zeros_i64(&a.device_arc(), &[4, 4]), &[a, b]), square);
    refused("copyto", |a, b| xp_array::copyto(a, b, &a.gt(a)?), square);
    refused("putmask", |a, b| xp_array::putmask(a, &a.gt(a)?, b), square);
    refused("bincount", |a, b| xp_array::bincount(&zeros_i64(&a.device_arc(), &[16]), Some(b), 0), |d| f32s(d, &[16]));
    refused("digitize", |a, b| xp_array::digitize(a, b, false), |d| f32s(d, &[16]));
}

#[test]
fn user_kernels_and_sparse_refuse_two_devices() {
    let k = xp_array::ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "mixed_add").unwrap();
    refused("ElementwiseKernel", |a, b| k.call(&[Operand::Array(a), Operand::Array(b)]), square);
    let raw = xp_array::RawKernel::new(
        "extern \"C\" __global__ void mixed_copy(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x]; }",
        "mixed_copy",
    );
    let (cpu, other) = devices();
    let (x, y) = (f32s(&cpu, &[16]), f32s(&other, &[16]));
    for (s, d) in [(&x, &y), (&y, &x)] {
        let r = raw.launch(1u32, 16u32, &[xp_array::LaunchArg::Array(s), xp_array::LaunchArg::Array(d)]);
        assert!(matches!(r, Err(Error::DeviceMismatch { .. })), "{r:?}");
    }
    let dense = f32s(&cpu, &[4, 4]);
    let m = xp_array::sparse::CsrMatrix::from_dense(&dense).unwrap();
    assert!(matches!(m.dot(&f32s(&other, &[4])), Err(Error::DeviceMismatch { .. })));
    let (data, indices, indptr) = (f32s(&cpu, &[2]), i64s(&other, &[0, 1]), i64s(&cpu, &[0, 1, 2]));
    assert!(matches!(
        xp_array::sparse::csr_matrix(&data, &indices, &indptr, Some((2, 2))),
        Err(Error::DeviceMismatch { .. })
    ));
}

/// An `ArrayModule` takes only arrays of its own device: another device's is a
/// `DeviceMismatch` naming the op and both devices (as CuPy, nothing is moved); creation and
/// random draws land on the module's device whatever device is current.
#[test]
fn array_module_refuses_arrays_of_another_device() {
    let (cpu, other) = devices();
    let xp = xp_array::ArrayModule::of(cpu.clone());
    let (here, there) = (f32s(&cpu, &[2, 2]), f32s(&other, &[2, 2]));
    let named = |r: xp_array::Result<Array>, op: &str| match r {
        Err(e @ Error::DeviceMismatch { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains(op) && msg.contains("cpu") && msg.contains(&other.label()), "{msg}");
        }
        r => panic!("{op}: {:?}", r.map(|a| a.shape().to_vec())),
    };
    named(xp.sum(&there, None, false), "sum");
    named(xp.sin(&there), "sin");
    named(xp.maximum(&here, &there), "maximum");
    named(xp.maximum(&there, 1.0), "maximum");
    named(xp.where_(&here.gt(1.0).unwrap(), &there, 0.0), "where");
    named(xp.concatenate(&[&here, &there], 0), "concatenate");
    named(xp.dot(&here, &there), "dot");
    named(xp.zeros_like(&there), "zeros_like");
    named(xp.argmax(&there, None), "argmax");
    named(xp.reshape(&there, &[4]), "reshape");
    named(xp.linalg().inv(&there), "linalg.inv");
    named(xp.linalg().solve(&here, &there), "linalg.solve");
    named(xp.fft().fft(&there, None, -1, None), "fft.fft");
    // Its own arrays work, and what it creates is on its device even with another current.
    assert_eq!(xp.sum(&here, None, false).unwrap().item::<f32>().unwrap(), 10.0);
    xp_array::with_device(&other, || {
        assert_eq!(xp.zeros(&[2], DType::F32).unwrap().device().label(), "cpu");
        assert_eq!(xp.eye(2, None, 0, DType::F32).unwrap().device().label(), "cpu");
        assert_eq!(xp.random().rand(&[3]).unwrap().device().label(), "cpu");
    });
}
