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
