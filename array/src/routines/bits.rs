//! NumPy's bit-level routines: `packbits`, `unpackbits` and `bitwise_count`.
//!
//! Packing and unpacking are array ops on the device: `packbits` turns the elements into bits
//! (`a != 0`), pads the axis to a multiple of 8 with zeros, and sums each group of eight times
//! the bit weights (128 … 1, or 1 … 128 for [`BitOrder::Little`]); `unpackbits` shifts each byte
//! right by the eight bit positions and masks with 1. `bitwise_count` is a ufunc of the op
//! table (`xp_kernels::ops::BITWISE_COUNT`: the parallel bit count of Hacker's Delight §5-1 on
//! the magnitude), so it fuses like any elementwise op.

use std::str::FromStr;

use xp_backend_api::{DType, Error, Result};

use crate::layout::{normalize_axis, SliceArg};
use crate::Array;

/// The order of bits in a byte for [`packbits`]/[`unpackbits`] (NumPy's `bitorder`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BitOrder {
    /// The first element is the most significant bit (NumPy's default, `"big"`).
    #[default]
    Big,
    /// The first element is the least significant bit (`"little"`).
    Little,
}

impl FromStr for BitOrder {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "big" => Ok(BitOrder::Big),
            "little" => Ok(BitOrder::Little),
            _ => Err(Error::value("packbits", format!("'order' must be either 'little' or 'big', got {s:?}"))),
        }
    }
}

/// The shifts of the eight bits of a byte, first element first.
fn shifts(order: BitOrder) -> [u8; 8] {
    match order {
        BitOrder::Big => [7, 6, 5, 4, 3, 2, 1, 0],
        BitOrder::Little => [0, 1, 2, 3, 4, 5, 6, 7],
    }
}

/// `a` (raveled when `axis` is `None`) with the axis moved last, and that axis's index.
fn axis_last(op: &str, a: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    match axis {
        None => Ok((a.ravel()?, 0)),
        Some(ax) => {
            let ax = normalize_axis(op, ax, a.ndim())?;
            Ok((crate::moveaxis(a, &[ax as isize], &[-1])?, ax))
        }
    }
}

/// `x`'s last axis extended with zeros (of `x`'s dtype) to `len`.
fn pad_last(x: &Array, len: usize) -> Result<Array> {
    let n = x.shape()[x.ndim() - 1];
    if len <= n {
        return Ok(x.clone());
    }
    let mut shape = x.shape().to_vec();
    *shape.last_mut().expect("at least 1-d") = len - n;
    let zeros = Array::full_on(&x.device_arc(), &shape, 0, x.dtype())?;
    crate::concatenate(&[x, &zeros], -1)
}

/// NumPy's `packbits(a, axis, bitorder)`: the elements of the boolean or integer `a` as bits
/// (nonzero is 1), eight to a uint8, along `axis` (`None`: of the raveled array); a last group
/// of fewer than eight is padded with zero bits.
///
/// Errors: `a` of a float or complex dtype (`DType`); `axis` out of range (`Axis`).
pub fn packbits(a: &Array, axis: Option<isize>, bitorder: BitOrder) -> Result<Array> {
    let op = "packbits";
    if !(a.dtype() == DType::Bool || a.dtype().is_integer()) {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("Expected an input array of integer or boolean data type, got {}", a.dtype()),
        });
    }
    let (x, ax) = axis_last(op, a, axis)?;
    let bits = x.ne(0)?;
    let n = bits.shape()[bits.ndim() - 1];
    let groups = n.div_ceil(8);
    let bits = pad_last(&bits, 8 * groups)?;
    let mut shape: Vec<isize> = bits.shape().iter().map(|&d| d as isize).collect();
    let last = shape.len() - 1;
    shape[last] = groups as isize;
    shape.push(8);
    let weights: Vec<u8> = shifts(bitorder).iter().map(|&s| 1u8 << s).collect();
    let weights = Array::from_slice_on(&a.device_arc(), &weights, &[8])?;
    let packed = bits.reshape(&shape)?.mul(&weights)?.sum(Some(&[-1]), false)?.astype(DType::U8)?;
    match axis {
        None => Ok(packed),
        Some(_) => crate::moveaxis(&packed, &[-1], &[ax as isize]),
    }
}

/// NumPy's `unpackbits(a, axis, count, bitorder)`: each uint8 of `a` as eight uint8 bits along
/// `axis` (`None`: of the raveled array). `count` keeps the first `count` bits (zeros appended
/// past the end), or drops the last `-count` when negative; `None` keeps all.
///
/// Errors: `a` not uint8 (`DType`); `-count` more than the bits (`Value`); `axis` out of range
/// (`Axis`).
pub fn unpackbits(a: &Array, axis: Option<isize>, count: Option<isize>, bitorder: BitOrder) -> Result<Array> {
    let op = "unpackbits";
    if a.dtype() != DType::U8 {
        return Err(Error::DType {
            op: op.into(),
            reason: format!("Expected an input array of unsigned byte data type, got {}", a.dtype()),
        });
    }
    let (x, ax) = axis_last(op, a, axis)?;
    let n = x.shape()[x.ndim() - 1] * 8;
    let keep = match count {
        None => n,
        Some(c) if c >= 0 => c as usize,
        Some(c) => n
            .checked_sub(c.unsigned_abs())
            .ok_or_else(|| Error::value(op, format!("-count larger than number of elements ({c} for {n} bits)")))?,
    };
    let sh = Array::from_slice_on(&a.device_arc(), &shifts(bitorder), &[8])?;
    let mut shape: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
    let last = shape.len() - 1;
    shape[last] = n as isize;
    let bits = x.expand_dims(-1)?.right_shift(&sh)?.bitwise_and(1)?.reshape(&shape)?;
    let mut sl = vec![SliceArg::ALL; bits.ndim()];
    sl[last] = SliceArg::range(0, keep.min(n) as isize, 1);
    let bits = pad_last(&bits.slice(&sl)?, keep)?;
    match axis {
        None => Ok(bits),
        Some(_) => crate::moveaxis(&bits, &[-1], &[ax as isize]),
    }
}

/// NumPy's `bitwise_count(x)`: the number of 1 bits in `|x|` of an integer (or boolean) array,
/// as uint8. Errors: a float or complex `x` (`DType`, no loop).
pub fn bitwise_count(x: &Array) -> Result<Array> {
    x.bitwise_count()
}
