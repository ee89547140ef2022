//! In-place operators (`x += y`, …) and their fallible forms, with NumPy's rules: the result is
//! written into the left operand's buffer (so every view of it sees the change), cast to its
//! dtype under `same_kind`; a result that cannot be cast, or a right operand that would grow the
//! left's shape, is an error that leaves the left operand unchanged.

use std::sync::Arc;

use xp_array::*;
use xp_backend_api::{BackendHandle, Error};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn f32s(v: &[f32], shape: &[usize]) -> Array {
    Array::from_slice_on(&cpu(), v, shape).unwrap()
}

fn i64s(v: &[i64], shape: &[usize]) -> Array {
    Array::from_slice_on(&cpu(), v, shape).unwrap()
}

#[test]
fn operators_write_into_the_left_operand() {
    let mut x = f32s(&[1.0, 2.0, 3.0], &[3]);
    let alias = x.clone();
    let p = f32s(&[0.5, 0.25, 2.0], &[3]);
    x += &(&p * 2.0);
    assert_eq!(x.to_vec::<f32>().unwrap(), [2.0, 2.5, 7.0]);
    assert_eq!(alias.to_vec::<f32>().unwrap(), [2.0, 2.5, 7.0], "the same buffer");
    x -= 1.0;
    x *= &p;
    x /= 2.0;
    assert_eq!(x.to_vec::<f32>().unwrap(), [0.25, 0.1875, 6.0]);
    assert_eq!(x.dtype(), DType::F32, "a float64 scalar is weak");

    let mut n = i64s(&[7, -8, 12], &[3]);
    n %= 5;
    assert_eq!(n.to_vec::<i64>().unwrap(), [2, 2, 2]);
    n <<= 3;
    n |= 1;
    n ^= &i64s(&[3, 3, 3], &[3]);
    n &= 0xff;
    n >>= 1;
    assert_eq!(n.to_vec::<i64>().unwrap(), [(((2 << 3) | 1) ^ 3) >> 1; 3]);
}

#[test]
fn a_view_updates_its_base_and_the_right_side_broadcasts() {
    let base = f32s(&[0.0; 6], &[2, 3]);
    let mut row = base.slice(&[SliceArg::Index(1), SliceArg::Range { start: None, stop: None, step: None }]).unwrap();
    row += &f32s(&[1.0, 2.0, 3.0], &[3]);
    assert_eq!(base.to_vec::<f32>().unwrap(), [0.0, 0.0, 0.0, 1.0, 2.0, 3.0]);
    let mut all = base.clone();
    all += &f32s(&[10.0, 20.0, 30.0], &[3]);
    assert_eq!(base.to_vec::<f32>().unwrap(), [10.0, 20.0, 30.0, 11.0, 22.0, 33.0]);
}

#[test]
fn results_that_do_not_cast_back_are_errors_and_change_nothing() {
    let x = i64s(&[1, 2, 3], &[3]);
    let err = x.add_assign(1.5).unwrap_err();
    assert!(matches!(err, Error::DType { .. }), "{err}");
    // True division of integers gives floats.
    assert!(matches!(x.div_assign(2), Err(Error::DType { .. })));
    assert_eq!(x.to_vec::<i64>().unwrap(), [1, 2, 3]);
    // A right operand that would broadcast the left to a larger shape.
    let err = x.add_assign(&i64s(&[1, 2, 3, 4, 5, 6], &[2, 3])).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    assert_eq!(x.to_vec::<i64>().unwrap(), [1, 2, 3]);
    // The fallible forms succeed where the cast is same-kind.
    let y = f32s(&[1.0, 2.0], &[2]);
    y.mul_assign(&Array::from_slice_on(&cpu(), &[2.0f64, 4.0], &[2]).unwrap()).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), [2.0, 8.0]);
}

#[test]
#[should_panic(expected = "same_kind")]
fn the_operator_form_panics_with_the_error() {
    let mut x = i64s(&[1, 2, 3], &[3]);
    x += 0.5;
}

#[test]
fn operators_take_every_rust_number_and_complex_scalars() {
    let d = cpu();
    // Typed scalars are weak: the array's dtype stays within a kind.
    let b = Array::from_slice_on(&d, &[1u8, 2, 250], &[3]).unwrap();
    let c = &b + 1u8;
    assert_eq!((c.dtype(), c.to_vec::<u8>().unwrap()), (DType::U8, vec![2, 3, 251]));
    let c = &b + 5u64;
    assert_eq!((c.dtype(), c.to_vec::<u8>().unwrap()), (DType::U8, vec![6, 7, 255]));
    assert_eq!((&b * 2i32).to_vec::<u8>().unwrap(), [2, 4, 244], "uint8 wraps as NumPy's");
    let e = b.add(300u16).unwrap_err().to_string();
    assert!(e.contains("300") && e.contains("uint8"), "{e}");
    let x = f32s(&[1.0, 2.0], &[2]);
    let y = &x * 2.5f32;
    assert_eq!((y.dtype(), y.to_vec::<f32>().unwrap()), (DType::F32, vec![2.5, 5.0]));
    let y = 1i64 - &x;
    assert_eq!((y.dtype(), y.to_vec::<f32>().unwrap()), (DType::F32, vec![0.0, -1.0]));
    // A float scalar with integers gives float64, as NumPy's weak Python float.
    let n = i64s(&[1, 2], &[2]);
    let y = &n * 0.5f32;
    assert_eq!((y.dtype(), y.to_vec::<f64>().unwrap()), (DType::F64, vec![0.5, 1.0]));
    // Complex scalars and the imaginary unit: `x + 1j * y`.
    let z = &x + &x * J;
    assert_eq!(z.dtype(), DType::C64, "a complex scalar with float32 gives complex64");
    assert_eq!(
        z.to_vec::<num_complex::Complex<f32>>().unwrap(),
        [num_complex::Complex::new(1.0, 1.0), num_complex::Complex::new(2.0, 2.0)]
    );
    let w = &n + num_complex::Complex::new(0.0f32, 2.0);
    assert_eq!(w.dtype(), DType::C128);
    // In place, with typed scalars.
    let mut m = Array::from_slice_on(&d, &[1i16, -2], &[2]).unwrap();
    m += 3i8;
    m *= 2u32;
    assert_eq!((m.dtype(), m.to_vec::<i16>().unwrap()), (DType::I16, vec![8, 2]));
    let mut f = f32s(&[1.0, 2.0], &[2]);
    f -= 0.5f32;
    assert_eq!(f.to_vec::<f32>().unwrap(), [0.5, 1.5]);
    let mut r = f32s(&[1.0], &[1]);
    assert!(r.add_assign(J).is_err(), "complex cannot be written into float32 (same_kind)");
    r += 1;
    assert_eq!(r.to_vec::<f32>().unwrap(), [2.0]);
}
