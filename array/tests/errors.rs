//! Bad input gets a clear error naming the op and the shapes or dtypes, and changes nothing.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

#[test]
fn each_kind_of_bad_input_is_refused_with_a_clear_error() {
    let d = cpu();
    with_device(&d, || {
        let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let before = a.to_vec::<f32>().unwrap();

        // Broadcast mismatch: both shapes named.
        let b = Array::from_slice(&[1.0f32; 4], &[4]).unwrap();
        let e = a.add(&b).unwrap_err();
        assert_eq!(e.kind(), "ShapeMismatch");
        assert!(
            e.to_string().contains("add") && e.to_string().contains("[2, 3]") && e.to_string().contains("[4]"),
            "{e}"
        );

        // NumPy refuses `-` on booleans (xor is meant); a bool operand with a number is fine.
        let t = Array::from_slice(&[true, false], &[2]).unwrap();
        let e = t.sub(&t).unwrap_err();
        assert!(e.kind() == "DType" && e.to_string().contains("logical_xor"), "{e}");
        assert_eq!(t.sub(&Array::from_slice(&[1i64, 1], &[2]).unwrap()).unwrap().to_vec::<i64>().unwrap(), vec![0, -1]);

        // Bad axis and duplicate axis.
        let e = a.sum(Some(&[2]), false).unwrap_err();
        assert!(matches!(e, Error::Axis { .. }) && e.to_string().contains("axis 2"), "{e}");
        let e = a.mean(Some(&[1, -1]), false).unwrap_err();
        assert!(matches!(e, Error::Axis { .. }) && e.to_string().contains("repeated"), "{e}");

        // Index out of range: never wraps, never reads outside the array.
        let idx = Array::from_slice(&[0i64, 6], &[2]).unwrap();
        let e = a.take(&idx, None).unwrap_err();
        assert_eq!(e.kind(), "Index");
        let e = a.slice(&[SliceArg::Index(2)]).unwrap_err();
        assert!(e.to_string().contains("out of bounds"), "{e}");
        let e = a.put(&idx, &Array::from_slice(&[9.0f32], &[1]).unwrap()).unwrap_err();
        assert_eq!(e.kind(), "Index");

        // Slice step 0.
        let e = a.slice(&[SliceArg::Range { start: None, stop: None, step: Some(0) }]).unwrap_err();
        assert!(e.to_string().contains("step"), "{e}");

        // Reshape to a different size.
        let e = a.reshape(&[4, 2]).unwrap_err();
        assert_eq!(e.kind(), "Value");
        assert!(e.to_string().contains("[2, 3]") && e.to_string().contains("[4, 2]"), "{e}");

        // A shape whose element count overflows.
        let e = zeros(&[1 << 33, 1 << 33], DType::F32).unwrap_err();
        assert_eq!(e.kind(), "Overflow");

        // Bitwise ops on floats.
        let e = a.bitwise_and(&a).unwrap_err();
        assert_eq!(e.kind(), "DType");
        assert!(e.to_string().contains("bitwise_and") && e.to_string().contains("float32"), "{e}");

        // Weak-scalar overflow.
        let u = Array::from_slice(&[1u8, 2], &[2]).unwrap();
        let e = u.add_scalar(300).unwrap_err();
        assert_eq!(e.kind(), "Overflow");
        assert!(e.to_string().contains("300") && e.to_string().contains("uint8"), "{e}");
        // An integer fill value the dtype cannot hold (NumPy 2's OverflowError; it once wrapped
        // to 44); a float converts as astype does; a bool array takes any integer.
        for (v, d) in [(300i64, DType::U8), (-1, DType::U16), (1 << 40, DType::I32)] {
            let e = full(&[2], v, d).unwrap_err();
            assert_eq!(e.kind(), "Overflow", "full({v}, {d}): {e}");
            assert!(e.to_string().contains(&v.to_string()), "{e}");
        }
        assert_eq!(full(&[2], 255i64, DType::U8).unwrap().to_vec::<u8>().unwrap(), vec![255, 255]);
        assert_eq!(full(&[1], 300.0, DType::U8).unwrap().to_vec::<u8>().unwrap(), vec![44]);
        assert_eq!(full(&[1], 7i64, DType::Bool).unwrap().to_vec::<bool>().unwrap(), vec![true]);
        let small = full(&[3], 1i64, DType::U8).unwrap();
        assert_eq!(small.set(xp_array::s![1], 300i64).unwrap_err().kind(), "Overflow");
        assert_eq!(small.set(xp_array::s![..], -1i64).unwrap_err().kind(), "Overflow");
        small.set(xp_array::s![2], 255i64).unwrap();
        assert_eq!(small.to_vec::<u8>().unwrap(), vec![1, 1, 255], "a refused store changed the array");

        // Arrays on two devices are refused by get_array_module (one device here: the same
        // array twice is fine).
        assert!(get_array_module(&[&a, &a]).is_ok());

        assert_eq!(a.to_vec::<f32>().unwrap(), before, "a failed op changed its input");
    });
}

/// Sizes no memory holds are `OutOfMemory` (or `Overflow` past the address space), never the
/// abort of a failed host allocation, and the next ordinary op works. Before, `arange` and
/// `linspace` built their values in a host vector of the full size first and aborted.
#[test]
fn huge_creations_are_out_of_memory_and_the_next_op_works() {
    let d = cpu();
    with_device(&d, || {
        let oom = |r: Result<Array>, what: &str| match r {
            Err(Error::OutOfMemory { .. }) | Err(Error::Overflow { .. }) => {}
            other => panic!("{what}: {:?}", other.map(|a| a.shape().to_vec())),
        };
        oom(zeros(&[1 << 50], DType::F32), "zeros");
        oom(arange(0i64, 1i64 << 50, 1i64, Some(DType::I64)), "arange i64");
        oom(arange(0i64, 1i64 << 50, 1i64, Some(DType::I32)), "arange i32");
        oom(arange(0.0, 1e15, 1.0, Some(DType::F64)), "arange f64");
        oom(arange(0i64, 1i64 << 50, 1i64, Some(DType::I16)), "arange i16");
        oom(linspace(0.0, 1.0, 1 << 50, true, None), "linspace");
        oom(eye(1 << 26, None, 0, DType::F32), "eye");
        oom(full(&[1 << 25, 1 << 25], 1.5, DType::F64), "full");
        let a = arange(0i64, 10i64, 1i64, None).unwrap();
        assert_eq!(a.sum(None, false).unwrap().item::<i64>().unwrap(), 45);
    });
}

#[test]
fn ufunc_out_of_the_wrong_shape_dtype_or_device_is_refused() {
    let d = cpu();
    with_device(&d, || {
        let a = Array::from_slice(&[1.5f64, -2.5, 3.5, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let b = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3]).unwrap();
        let add = |out: &Array| call("add", &[Operand::Array(&a), Operand::Array(&b)], Some(out));

        // Not the broadcast shape (NumPy's ValueError): both shapes named.
        for shape in [&[3][..], &[3, 2], &[1, 3], &[2, 3, 1], &[]] {
            let out = zeros(shape, DType::F64).unwrap();
            let e = add(&out).unwrap_err();
            assert_eq!(e.kind(), "ShapeMismatch", "{shape:?}: {e}");
            assert!(e.to_string().contains("add") && e.to_string().contains("[2, 3]"), "{e}");
            assert!(out.to_vec::<f64>().unwrap().iter().all(|&x| x == 0.0), "{shape:?}: `out` written");
        }

        // A float64 result does not go into integers or bool under same_kind (NumPy's
        // UFuncTypeError), and neither does complex into float.
        for dt in [DType::I64, DType::I32, DType::U8, DType::Bool] {
            let out = zeros(&[2, 3], dt).unwrap();
            let e = add(&out).unwrap_err();
            assert_eq!(e.kind(), "DType", "{dt}: {e}");
            assert!(e.to_string().contains("float64") && e.to_string().contains(dt.name()), "{e}");
            assert!(out.astype(DType::F64).unwrap().to_vec::<f64>().unwrap().iter().all(|&x| x == 0.0));
        }
        let z = a.astype(DType::C128).unwrap();
        let e = call("negative", &[Operand::Array(&z)], Some(&zeros(&[2, 3], DType::F64).unwrap())).unwrap_err();
        assert!(e.kind() == "DType" && e.to_string().contains("complex128"), "{e}");
        // Within the kind, narrower is allowed (float64 into float32), and so is a safe cast
        // (an int64 result into float64).
        let out = zeros(&[2, 3], DType::F32).unwrap();
        add(&out).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), [2.5, -0.5, 6.5, 5.0, 7.0, 9.0]);
        let i = Array::from_slice(&[1i64, 2, 3], &[3]).unwrap();
        let out = zeros(&[3], DType::F64).unwrap();
        call("add", &[Operand::Array(&i), Operand::Array(&i)], Some(&out)).unwrap();
        assert_eq!(out.to_vec::<f64>().unwrap(), [2.0, 4.0, 6.0]);

        // `out` on another device: DeviceMismatch, both devices named.
        let null: Arc<dyn xp_backend_api::DynDevice> =
            Arc::new(xp_backend_api::null::NullDevice::new(1 << 20, None).unwrap());
        let other = Array::empty_on(&null, &[2, 3], DType::F64).unwrap();
        let e = add(&other).unwrap_err();
        assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
        assert!(e.to_string().contains("cpu") && e.to_string().contains(&null.label()), "{e}");
    });
}
