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
