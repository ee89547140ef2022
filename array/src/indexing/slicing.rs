//! The `s![..]` index macro (as ndarray's) and `Array::at` / `Array::set`, NumPy's `a[...]`
//! and `a[...] = v` written in Rust.
//!
//! | NumPy            | `s![..]`                  |
//! | ---------------- | ------------------------- |
//! | `a[:, 1:]`       | `s![.., 1..]`             |
//! | `a[::2, :-1]`    | `s![..;2, ..-1]`          |
//! | `a[1:7:3, -1]`   | `s![1..7;3, -1]`          |
//! | `a[::-1]`        | `s![..;-1]`               |
//! | `a[idx]`         | `s![&idx]` (integer array)|
//! | `a[mask]`        | `s![&mask]` (bool array)  |
//! | `a[None, ...]`   | `s![NewAxis, Ellipsis]`   |
//!
//! Each item is one of: a range (`..`, `a..b`, `a..`, `..b`, `a..=b`, `..=b`) optionally
//! followed by `;step` (Python's `start:stop:step`; negative bounds count from the end); an
//! integer (negative counts from the end); `&Array` — integer arrays index, bool arrays mask
//! (the dtype decides at run time); [`NewAxis`] (`None` / `np.newaxis`); [`Ellipsis`]
//! (`...`). The macro builds a `Vec<IndexItem>` for [`Array::getitem`] and
//! [`Array::setitem`]; `at` and `set` take it directly:
//!
//! ```
//! use xp_array::{s, Array, NewAxis};
//! # use std::sync::Arc;
//! # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
//! # let dev = xp_array::device("cpu").unwrap();
//! let a = Array::from_slice_on(&dev, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3]).unwrap();
//! let col = a.at(s![.., -1]).unwrap(); // [2, 5]
//! assert_eq!(col.to_vec::<f64>().unwrap(), [2.0, 5.0]);
//! let big = a.gt(2.5).unwrap();
//! a.set(s![&big], 0.0).unwrap(); // a[a > 2.5] = 0
//! assert_eq!(a.to_vec::<f64>().unwrap(), [0.0, 1.0, 2.0, 0.0, 0.0, 0.0]);
//! assert_eq!(a.at(s![NewAxis, 1..;2]).unwrap().shape(), [1, 1, 3]);
//! ```

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use xp_backend_api::{DType, Result};

use super::IndexItem;
use crate::{Array, Operand};

/// A new axis of length 1 in `s![..]` (NumPy's `None` / `np.newaxis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewAxis;

/// As many full slices as the other items leave axes, in `s![..]` (NumPy's `...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ellipsis;

/// What `s![..]` accepts as an item (without a step).
pub trait IntoIndexItem<'a> {
    /// The item.
    fn into_index_item(self) -> IndexItem<'a>;
}

/// A range that takes a `;step` in `s![..]`.
pub trait SteppedRange {
    /// The slice `start:stop:step`.
    fn with_step(self, step: isize) -> IndexItem<'static>;
}

/// The integer types of `s![..]` items and steps.
pub trait IndexInt: Copy {
    /// The value as an index: values beyond `isize` saturate to its ends, which lie beyond
    /// every axis (a bound clamps to the axis as Python's do, an index is out of bounds, a step
    /// takes one element), never wrap to a negative value that would count from the end.
    fn to_isize(self) -> isize;
}

macro_rules! index_ints {
    ($($t:ty),*) => {$(
        impl IndexInt for $t {
            fn to_isize(self) -> isize {
                isize::try_from(self).unwrap_or(if self > 0 { isize::MAX } else { isize::MIN })
            }
        }
        impl<'a> IntoIndexItem<'a> for $t {
            fn into_index_item(self) -> IndexItem<'a> {
                IndexItem::Int(self.to_isize())
            }
        }
    )*};
}
index_ints!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// The exclusive stop of an inclusive range ending at `end` walked with `step` (`..=-1` is
/// the rest of the axis going up, `..=0` going down, and so is an end at `isize`'s extreme).
fn inclusive_stop(end: isize, step: isize) -> Option<isize> {
    match (step > 0, end) {
        (true, -1) | (false, 0) => None,
        (true, e) => e.checked_add(1),
        (false, e) => e.checked_sub(1),
    }
}

impl<'a> IntoIndexItem<'a> for &'a Array {
    fn into_index_item(self) -> IndexItem<'a> {
        if self.dtype() == DType::Bool {
            IndexItem::Mask(self)
        } else {
            IndexItem::Array(self)
        }
    }
}

impl<'a> IntoIndexItem<'a> for NewAxis {
    fn into_index_item(self) -> IndexItem<'a> {
        IndexItem::NewAxis
    }
}

impl<'a> IntoIndexItem<'a> for Ellipsis {
    fn into_index_item(self) -> IndexItem<'a> {
        IndexItem::Ellipsis
    }
}

impl<'a> IntoIndexItem<'a> for IndexItem<'a> {
    fn into_index_item(self) -> IndexItem<'a> {
        self
    }
}

impl<'a, R: SteppedRange> IntoIndexItem<'a> for R {
    fn into_index_item(self) -> IndexItem<'a> {
        match self.with_step(1) {
            IndexItem::Slice(a, b, _) => IndexItem::Slice(a, b, None),
            other => other,
        }
    }
}

impl SteppedRange for RangeFull {
    fn with_step(self, step: isize) -> IndexItem<'static> {
        IndexItem::Slice(None, None, Some(step))
    }
}

impl<T: IndexInt> SteppedRange for Range<T> {
    fn with_step(self, step: isize) -> IndexItem<'static> {
        IndexItem::Slice(Some(self.start.to_isize()), Some(self.end.to_isize()), Some(step))
    }
}

impl<T: IndexInt> SteppedRange for RangeFrom<T> {
    fn with_step(self, step: isize) -> IndexItem<'static> {
        IndexItem::Slice(Some(self.start.to_isize()), None, Some(step))
    }
}

impl<T: IndexInt> SteppedRange for RangeTo<T> {
    fn with_step(self, step: isize) -> IndexItem<'static> {
        IndexItem::Slice(None, Some(self.end.to_isize()), Some(step))
    }
}

impl<T: IndexInt> SteppedRange for RangeInclusive<T> {
    fn with_step(self, step: isize) -> IndexItem<'static> {
        IndexItem::Slice(Some(self.start().to_isize()), inclusive_stop(self.end().to_isize(), step), Some(step))
    }
}

impl<T: IndexInt> SteppedRange for RangeToInclusive<T> {
    fn with_step(self, step: isize) -> IndexItem<'static> {
        IndexItem::Slice(None, inclusive_stop(self.end.to_isize(), step), Some(step))
    }
}

/// An index expression, NumPy's `a[...]` written in Rust: a `Vec<IndexItem>` for
/// [`Array::at`], [`Array::set`], [`Array::getitem`] and [`Array::setitem`]. See the
/// [module docs](crate::indexing::slicing) for the items.
#[macro_export]
macro_rules! s {
    (@items [$($done:expr,)*]) => {
        ::std::vec![$($done),*]
    };
    (@items [$($done:expr,)*] $r:expr ; $step:expr , $($rest:tt)*) => {
        $crate::s!(@items [$($done,)* $crate::indexing::SteppedRange::with_step($r, $crate::indexing::IndexInt::to_isize($step)),] $($rest)*)
    };
    (@items [$($done:expr,)*] $r:expr ; $step:expr) => {
        $crate::s!(@items [$($done,)* $crate::indexing::SteppedRange::with_step($r, $crate::indexing::IndexInt::to_isize($step)),])
    };
    (@items [$($done:expr,)*] $e:expr , $($rest:tt)*) => {
        $crate::s!(@items [$($done,)* $crate::indexing::IntoIndexItem::into_index_item($e),] $($rest)*)
    };
    (@items [$($done:expr,)*] $e:expr) => {
        $crate::s!(@items [$($done,)* $crate::indexing::IntoIndexItem::into_index_item($e),])
    };
    ($($t:tt)*) => {
        $crate::s!(@items [] $($t)*)
    };
}

impl Array {
    /// NumPy's `a[index]` with an index from [`s!`](crate::s): `a.at(s![.., 1..;2, -1])`.
    /// A view for slices, integers, new axes and the ellipsis; a new array with any integer
    /// array or mask (see [`Array::getitem`]).
    pub fn at<'i>(&self, index: impl AsRef<[IndexItem<'i>]>) -> Result<Array> {
        self.getitem(index.as_ref())
    }

    /// NumPy's `a[index] = value` in place, with an index from [`s!`](crate::s) and an array
    /// or a scalar value (broadcast to the selection, cast to `a`'s dtype; an integer the dtype
    /// cannot hold is `Overflow`, as in NumPy 2):
    /// `a.set(s![0..5], &b)`, `a.set(s![&mask], 0.0)`. `a` must be C-contiguous.
    pub fn set<'i, 'v>(&self, index: impl AsRef<[IndexItem<'i>]>, value: impl Into<Operand<'v>>) -> Result<()> {
        match value.into() {
            Operand::Array(v) => self.setitem(index.as_ref(), v),
            Operand::Scalar(s) => {
                // NumPy 2: `a[i] = 300` into uint8 is an OverflowError, not 44.
                if let crate::Scalar::Int(i) = s {
                    crate::promote::check_int_fits("set", i, self.dtype())?;
                }
                let v = Array::scalar_on(&self.device_arc(), s, self.dtype())?;
                self.setitem(index.as_ref(), &v)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(item: &IndexItem<'_>) -> (Option<isize>, Option<isize>, Option<isize>) {
        match *item {
            IndexItem::Slice(a, b, c) => (a, b, c),
            ref other => panic!("not a slice: {other:?}"),
        }
    }

    #[test]
    fn the_macro_reads_every_item_kind() {
        let idx = crate::s![.., 1.., ..3, 1..7, ..;2, 1..;-1, 2..9;3, ..=-1, 0..=4;2, -1, NewAxis, Ellipsis];
        assert_eq!(idx.len(), 12);
        assert_eq!(slice(&idx[0]), (None, None, None));
        assert_eq!(slice(&idx[1]), (Some(1), None, None));
        assert_eq!(slice(&idx[2]), (None, Some(3), None));
        assert_eq!(slice(&idx[3]), (Some(1), Some(7), None));
        assert_eq!(slice(&idx[4]), (None, None, Some(2)));
        assert_eq!(slice(&idx[5]), (Some(1), None, Some(-1)));
        assert_eq!(slice(&idx[6]), (Some(2), Some(9), Some(3)));
        assert_eq!(slice(&idx[7]), (None, None, None));
        assert_eq!(slice(&idx[8]), (Some(0), Some(5), Some(2)));
        assert!(matches!(idx[9], IndexItem::Int(-1)));
        assert!(matches!(idx[10], IndexItem::NewAxis));
        assert!(matches!(idx[11], IndexItem::Ellipsis));
        let k = 3i64;
        let one = crate::s![k];
        assert!(matches!(one[0], IndexItem::Int(3)));
        let n = 4usize;
        let r = crate::s![..n; 2];
        assert_eq!(slice(&r[0]), (None, Some(4), Some(2)));
    }
}
