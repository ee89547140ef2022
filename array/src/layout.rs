//! Shapes, strides and offsets: where each element of an array lives in its buffer.
//!
//! The invariants every [`Layout`] keeps (the rest of the crate relies on them, and every
//! constructor and view method here checks them):
//!
//! 1. `shape.len() == strides.len()`, at most [`MAX_DIMS`] dimensions.
//! 2. The element count (the product of the extents) fits in `isize`, and so does every
//!    element's byte offset.
//! 3. Strides are in elements, signed; a zero stride repeats one element (broadcasting).
//! 4. When the array is not empty, every element's offset `offset + Σ iₖ·strideₖ` lies in
//!    `[0, n)` where `n` is the number of elements the buffer holds — so no view can reach
//!    outside its buffer. View methods derive new layouts from valid ones by operations that
//!    keep this true (index inside extents, steps applied within bounds), and
//!    [`Layout::extent`] reports the range for the checks made when a buffer is wrapped.

use smallvec::SmallVec;
use xp_backend_api::{Error, Result};

/// Extents or strides held in place up to four dimensions: making an array's layout allocates
/// nothing in the common case (a pending array is made at every elementwise op).
type Dims<T> = SmallVec<[T; 4]>;

/// The most dimensions an array may have (NumPy allows 64; kernels take up to 8 after
/// collapsing, which covers every array of up to 8 dimensions and most of more).
pub const MAX_DIMS: usize = 32;

/// Shape, strides (in elements) and offset (in elements) of an array in its buffer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: Dims<usize>,
    strides: Dims<isize>,
    offset: usize,
}

/// One entry of a slicing expression, as in `a[1, ::2, None, ...]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceArg {
    /// An integer index: removes the dimension. Negative counts from the end.
    Index(isize),
    /// `start:stop:step`, each optional as in Python (`None` = omitted).
    Range {
        /// First index.
        start: Option<isize>,
        /// One past the last (exclusive).
        stop: Option<isize>,
        /// Step; `None` is 1; 0 is an error.
        step: Option<isize>,
    },
    /// `None`/`np.newaxis`: a new dimension of extent 1.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
}

impl SliceArg {
    /// `:` — the whole dimension.
    pub const ALL: SliceArg = SliceArg::Range { start: None, stop: None, step: None };

    /// `start:stop:step` with every part given.
    pub fn range(start: isize, stop: isize, step: isize) -> Self {
        SliceArg::Range { start: Some(start), stop: Some(stop), step: Some(step) }
    }
}

/// The element count of `shape`, or an `Overflow` error naming `op`.
pub fn checked_size(op: &str, shape: &[usize]) -> Result<usize> {
    let mut n: usize = 1;
    for &d in shape {
        n = n.checked_mul(d).filter(|&v| v <= isize::MAX as usize).ok_or_else(|| Error::Overflow {
            op: op.into(),
            reason: format!("the shape {shape:?} has more elements than fit in memory addresses"),
        })?;
    }
    Ok(n)
}

/// `axis` (negative counts from the end) as an index into `ndim` dimensions.
pub fn normalize_axis(op: &str, axis: isize, ndim: usize) -> Result<usize> {
    let a = if axis < 0 { axis + ndim as isize } else { axis };
    if a < 0 || a >= ndim as isize {
        return Err(Error::Axis {
            op: op.into(),
            reason: format!("axis {axis} is out of bounds for an array of dimension {ndim}"),
        });
    }
    Ok(a as usize)
}

/// Several axes, normalized, refusing repeats.
pub fn normalize_axes(op: &str, axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(op, a, ndim)?;
        if out.contains(&n) {
            return Err(Error::Axis { op: op.into(), reason: format!("repeated axis {a} in {axes:?}") });
        }
        out.push(n);
    }
    Ok(out)
}

/// The shape two or more shapes broadcast to, as NumPy: align at the right; extents must be
/// equal or 1.
pub fn broadcast_shapes(op: &str, shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let nd = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; nd];
    for (k, s) in shapes.iter().enumerate() {
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[nd - s.len() + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                let first = shapes.iter().take(k).find(|p| {
                    let j = i as isize + p.len() as isize - s.len() as isize;
                    j >= 0 && p[j as usize] != 1
                });
                return Err(Error::ShapeMismatch {
                    op: op.into(),
                    lhs: first.map(|p| p.to_vec()).unwrap_or_else(|| shapes[0].to_vec()),
                    rhs: s.to_vec(),
                    reason: "cannot be broadcast together".into(),
                });
            }
        }
    }
    checked_size(op, &out)?;
    Ok(out)
}

/// C-order strides (in elements) of `shape`.
pub fn c_strides(shape: &[usize]) -> Vec<isize> {
    c_dims(shape).to_vec()
}

fn c_dims(shape: &[usize]) -> Dims<isize> {
    let mut st: Dims<isize> = smallvec::smallvec![0isize; shape.len()];
    let mut acc: isize = 1;
    for d in (0..shape.len()).rev() {
        st[d] = acc;
        acc = acc.saturating_mul(shape[d].max(1) as isize);
    }
    st
}

impl Layout {
    /// The layout of one component (`part` 0: real, 1: imaginary) of a complex array read as
    /// its real dtype: every stride doubled, the offset doubled plus `part`.
    pub(crate) fn component(&self, part: usize) -> Layout {
        Layout {
            shape: self.shape.clone(),
            strides: self.strides.iter().map(|s| s * 2).collect(),
            offset: self.offset * 2 + part,
        }
    }

    /// A C-contiguous layout of `shape` at offset 0.
    pub fn contiguous(op: &str, shape: &[usize]) -> Result<Layout> {
        if shape.len() > MAX_DIMS {
            return Err(Error::value(op, format!("{} dimensions is more than the {MAX_DIMS} supported", shape.len())));
        }
        checked_size(op, shape)?;
        Ok(Layout { shape: Dims::from_slice(shape), strides: c_dims(shape), offset: 0 })
    }

    /// A layout from its parts. The caller guarantees invariant 4 for its buffer; the other
    /// invariants are checked.
    pub fn from_parts(op: &str, shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Result<Layout> {
        if shape.len() != strides.len() || shape.len() > MAX_DIMS {
            return Err(Error::value(op, format!("shape {shape:?} and strides {strides:?} do not describe an array")));
        }
        checked_size(op, &shape)?;
        Ok(Layout { shape: shape.into(), strides: strides.into(), offset })
    }

    /// Extents.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Strides in elements.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    /// Offset of the first element, in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements.
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether elements are laid out in C order without gaps (extent-1 dimensions ignored).
    pub fn is_c_contiguous(&self) -> bool {
        let mut expect: isize = 1;
        for d in (0..self.ndim()).rev() {
            if self.shape[d] == 1 {
                continue;
            }
            if self.shape[d] == 0 {
                return true;
            }
            if self.strides[d] != expect {
                return false;
            }
            expect *= self.shape[d] as isize;
        }
        true
    }

    /// Whether elements are laid out in Fortran order (first index fastest) without gaps
    /// (extent-1 dimensions ignored; an empty layout is).
    pub fn is_f_contiguous(&self) -> bool {
        let mut expect: isize = 1;
        if self.size() == 0 {
            return true;
        }
        for d in 0..self.ndim() {
            if self.shape[d] == 1 {
                continue;
            }
            if self.strides[d] != expect {
                return false;
            }
            expect *= self.shape[d] as isize;
        }
        true
    }

    /// A Fortran-contiguous layout of `shape` at offset 0 (first index fastest).
    pub fn contiguous_f(op: &str, shape: &[usize]) -> Result<Layout> {
        let rev: Vec<usize> = shape.iter().rev().copied().collect();
        Ok(Layout::contiguous(op, &rev)?.transposed())
    }

    /// A dense layout at offset 0 of this layout's shape whose dimensions are in the order
    /// of this layout's strides (NumPy's `order='K'` for a new array): C when this layout is
    /// C-contiguous or holds at most one element, F when it is F-contiguous and not C, else the dimensions ordered by
    /// decreasing absolute stride (ties keep C order), each contiguous in that order.
    pub fn dense_like(&self) -> Layout {
        if self.size() <= 1 || self.is_c_contiguous() {
            return Layout { shape: self.shape.clone(), strides: c_dims(&self.shape), offset: 0 };
        }
        let perm: Vec<usize> = if self.is_f_contiguous() {
            // The Fortran layout itself (extent-1 dimensions in place).
            (0..self.ndim()).rev().collect()
        } else {
            let mut p: Vec<usize> = (0..self.ndim()).collect();
            // A stable sort: extent-1 dimensions (no stride that matters) last, ties in C order.
            p.sort_by_key(|&d| std::cmp::Reverse(if self.shape[d] <= 1 { 0 } else { self.strides[d].unsigned_abs() }));
            p
        };
        let shape: Dims<usize> = perm.iter().map(|&d| self.shape[d]).collect();
        let st = c_dims(&shape);
        let mut strides: Dims<isize> = smallvec::smallvec![0isize; self.ndim()];
        for (k, &d) in perm.iter().enumerate() {
            strides[d] = st[k];
        }
        Layout { shape: self.shape.clone(), strides, offset: 0 }
    }

    /// The lowest and one past the highest element offset this layout reaches (equal when
    /// the array is empty).
    pub fn extent(&self) -> (usize, usize) {
        if self.size() == 0 {
            return (self.offset, self.offset);
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            let span = (n as isize - 1) * s;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        (lo as usize, hi as usize + 1)
    }

    /// The same elements with dimensions in the order `axes` (NumPy's `transpose(axes)`).
    pub fn permute(&self, op: &str, axes: &[isize]) -> Result<Layout> {
        if axes.len() != self.ndim() {
            return Err(Error::value(op, format!("axes {axes:?} don't match an array of dimension {}", self.ndim())));
        }
        let ax = normalize_axes(op, axes, self.ndim())?;
        Ok(Layout {
            shape: ax.iter().map(|&a| self.shape[a]).collect(),
            strides: ax.iter().map(|&a| self.strides[a]).collect(),
            offset: self.offset,
        })
    }

    /// Reversed dimensions (`a.T`).
    pub fn transposed(&self) -> Layout {
        Layout {
            shape: self.shape.iter().rev().copied().collect(),
            strides: self.strides.iter().rev().copied().collect(),
            offset: self.offset,
        }
    }

    /// Apply a NumPy basic-indexing expression.
    pub fn slice(&self, op: &str, args: &[SliceArg]) -> Result<Layout> {
        let ellipses = args.iter().filter(|a| matches!(a, SliceArg::Ellipsis)).count();
        if ellipses > 1 {
            return Err(Error::Index {
                op: op.into(),
                reason: "an index can only have a single ellipsis ('...')".into(),
            });
        }
        let consuming = args.iter().filter(|a| matches!(a, SliceArg::Index(_) | SliceArg::Range { .. })).count();
        if consuming > self.ndim() {
            return Err(Error::Index {
                op: op.into(),
                reason: format!(
                    "too many indices: the array is {}-dimensional, but {consuming} were indexed",
                    self.ndim()
                ),
            });
        }
        let mut shape = Vec::new();
        let mut strides = Vec::new();
        let mut offset = self.offset as isize;
        let mut d = 0usize;
        let full = |d: &mut usize, shape: &mut Vec<usize>, strides: &mut Vec<isize>| {
            shape.push(self.shape[*d]);
            strides.push(self.strides[*d]);
            *d += 1;
        };
        for a in args {
            match *a {
                SliceArg::Ellipsis => {
                    for _ in 0..self.ndim() - consuming {
                        full(&mut d, &mut shape, &mut strides);
                    }
                }
                SliceArg::NewAxis => {
                    shape.push(1);
                    strides.push(0);
                }
                SliceArg::Index(i) => {
                    let n = self.shape[d] as isize;
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return Err(Error::Index {
                            op: op.into(),
                            reason: format!("index {i} is out of bounds for axis {d} with size {n}"),
                        });
                    }
                    offset += j * self.strides[d];
                    d += 1;
                }
                SliceArg::Range { start, stop, step } => {
                    let n = self.shape[d] as isize;
                    let step = step.unwrap_or(1);
                    if step == 0 {
                        return Err(Error::value(op, "slice step cannot be zero"));
                    }
                    let (len, first) = slice_indices(n, start, stop, step);
                    if len > 0 {
                        offset += first * self.strides[d];
                    }
                    shape.push(len as usize);
                    // With two or more elements |step| < n, so the product stays within the
                    // buffer's extent (invariant 2); with one or none the stride is never used,
                    // and a step of any size keeps the dimension's own.
                    strides.push(if len > 1 { self.strides[d] * step } else { self.strides[d] });
                    d += 1;
                }
            }
        }
        while d < self.ndim() {
            full(&mut d, &mut shape, &mut strides);
        }
        if shape.len() > MAX_DIMS {
            return Err(Error::Index { op: op.into(), reason: format!("more than {MAX_DIMS} dimensions") });
        }
        Ok(Layout { shape: shape.into(), strides: strides.into(), offset: offset as usize })
    }

    /// A view with `shape` whose extra leading dimensions and extent-1 dimensions repeat the
    /// elements (zero strides).
    pub fn broadcast_to(&self, op: &str, shape: &[usize]) -> Result<Layout> {
        let err = || Error::ShapeMismatch {
            op: op.into(),
            lhs: self.shape.to_vec(),
            rhs: shape.to_vec(),
            reason: "cannot be broadcast: the first does not fit the second".into(),
        };
        if shape.len() < self.ndim() || shape.len() > MAX_DIMS {
            return Err(err());
        }
        checked_size(op, shape)?;
        let lead = shape.len() - self.ndim();
        let mut strides = vec![0isize; shape.len()];
        for d in 0..self.ndim() {
            if self.shape[d] == shape[lead + d] {
                strides[lead + d] = if self.shape[d] == 1 { 0 } else { self.strides[d] };
            } else if self.shape[d] == 1 {
                strides[lead + d] = 0;
            } else {
                return Err(err());
            }
        }
        Ok(Layout { shape: Dims::from_slice(shape), strides: strides.into(), offset: self.offset })
    }

    /// The layout of the same elements in C order with `shape`, if one exists without
    /// copying (NumPy's rule: groups of dimensions that are contiguous among themselves may
    /// be split and merged). `None` too when `shape` has another element count (or too many
    /// dimensions): a layout never reaches past the elements it was made from.
    pub fn reshaped(&self, shape: &[usize]) -> Option<Layout> {
        let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if count != Some(self.size()) || shape.len() > MAX_DIMS {
            return None;
        }
        if self.size() == 0 || self.is_c_contiguous() {
            return Some(Layout { shape: Dims::from_slice(shape), strides: c_dims(shape), offset: self.offset });
        }
        // Drop extent-1 dimensions, then match groups of old and new dimensions of equal size.
        let old: Vec<(usize, isize)> =
            self.shape.iter().zip(&self.strides).filter(|(n, _)| **n != 1).map(|(n, s)| (*n, *s)).collect();
        let mut strides = vec![0isize; shape.len()];
        let (mut oi, mut ni) = (0usize, 0usize);
        while ni < shape.len() {
            if shape[ni] == 1 {
                strides[ni] = 0;
                ni += 1;
                continue;
            }
            if oi >= old.len() {
                return None;
            }
            let (oj0, nj0) = (oi, ni);
            let (mut op, mut np) = (old[oi].0, shape[ni]);
            while op != np {
                if np < op {
                    ni += 1;
                    np *= *shape.get(ni)?;
                } else {
                    oi += 1;
                    op *= old.get(oi)?.0;
                }
            }
            // Old dims oj0..=oi must be contiguous among themselves.
            for k in oj0..oi {
                if old[k].1 != old[k + 1].1 * old[k + 1].0 as isize {
                    return None;
                }
            }
            let mut st = old[oi].1;
            for k in (nj0..=ni).rev() {
                if shape[k] == 1 {
                    strides[k] = 0;
                    continue;
                }
                strides[k] = st;
                st *= shape[k] as isize;
            }
            oi += 1;
            ni += 1;
        }
        if oi != old.len() {
            return None;
        }
        Some(Layout { shape: Dims::from_slice(shape), strides: strides.into(), offset: self.offset })
    }

    /// Remove dimensions of extent 1 (`axes`: the ones to remove; all when `None`).
    pub fn squeeze(&self, op: &str, axes: Option<&[isize]>) -> Result<Layout> {
        let remove: Vec<usize> = match axes {
            None => (0..self.ndim()).filter(|&d| self.shape[d] == 1).collect(),
            Some(ax) => {
                let ax = normalize_axes(op, ax, self.ndim())?;
                for &a in &ax {
                    if self.shape[a] != 1 {
                        return Err(Error::value(
                            op,
                            format!("cannot select axis {a} to squeeze: its size is not one"),
                        ));
                    }
                }
                ax
            }
        };
        let keep = (0..self.ndim()).filter(|d| !remove.contains(d));
        let (shape, strides) = keep.map(|d| (self.shape[d], self.strides[d])).unzip();
        Ok(Layout { shape, strides, offset: self.offset })
    }

    /// Insert a dimension of extent 1 at `axis` (of the result).
    pub fn expand_dims(&self, op: &str, axis: isize) -> Result<Layout> {
        if self.ndim() + 1 > MAX_DIMS {
            return Err(Error::value(op, format!("more than {MAX_DIMS} dimensions")));
        }
        let a = normalize_axis(op, axis, self.ndim() + 1)?;
        let mut l = self.clone();
        l.shape.insert(a, 1);
        l.strides.insert(a, 0);
        Ok(l)
    }
}

/// Python's `slice.indices` for a dimension of `n`: the number of elements and the first index.
/// Computed in `i128`, so that no bound or step (`isize::MIN`, `isize::MAX`) overflows; both
/// results lie in `[-1, n]` and fit `isize`.
fn slice_indices(n: isize, start: Option<isize>, stop: Option<isize>, step: isize) -> (isize, isize) {
    let (n, step) = (n as i128, step as i128);
    let adj = |v: isize| if v < 0 { v as i128 + n } else { v as i128 };
    let (start, stop) = if step > 0 {
        (start.map(|s| adj(s).clamp(0, n)).unwrap_or(0), stop.map(|s| adj(s).clamp(0, n)).unwrap_or(n))
    } else {
        (start.map(|s| adj(s).clamp(-1, n - 1)).unwrap_or(n - 1), stop.map(|s| adj(s).clamp(-1, n - 1)).unwrap_or(-1))
    };
    let len = if step > 0 {
        if stop > start {
            (stop - start + step - 1) / step
        } else {
            0
        }
    } else if start > stop {
        (start - stop - step - 1) / -step
    } else {
        0
    };
    (len as isize, start as isize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reshaped_refuses_another_element_count() {
        // An empty layout once took any shape, [5, 2] included: a view of 10 elements in a
        // buffer of none (found by the `index` fuzz target).
        let empty = Layout::contiguous("t", &[3, 0]).unwrap();
        assert!(empty.reshaped(&[5, 2]).is_none());
        assert_eq!(empty.reshaped(&[0, 7]).unwrap().shape(), &[0, 7]);
        let l = Layout::contiguous("t", &[4, 6]).unwrap();
        assert!(l.reshaped(&[5, 5]).is_none());
        assert!(l.reshaped(&[usize::MAX, 2]).is_none());
        assert!(l.transposed().reshaped(&[25]).is_none());
        assert_eq!(l.reshaped(&[2, 12]).unwrap().strides(), &[12, 1]);
    }

    #[test]
    fn slicing_as_python() {
        let l = Layout::contiguous("t", &[6, 8]).unwrap();
        let v = l
            .slice("t", &[SliceArg::Range { start: None, stop: None, step: Some(-1) }, SliceArg::range(1, 8, 2)])
            .unwrap();
        assert_eq!(v.shape(), &[6, 4]);
        assert_eq!(v.strides(), &[-8, 2]);
        assert_eq!(v.offset(), 5 * 8 + 1);
        assert_eq!(v.extent(), (1, 48));
        assert_eq!(slice_indices(5, Some(10), None, 1), (0, 5));
        assert_eq!(slice_indices(5, None, None, -2), (3, 4));
        assert_eq!(slice_indices(0, None, None, -1).0, 0);
        // Steps and bounds at the ends of isize (NumPy: a[0:5:sys.maxsize] is one element).
        assert_eq!(slice_indices(10, Some(0), Some(5), isize::MAX), (1, 0));
        assert_eq!(slice_indices(10, None, None, isize::MIN), (1, 9));
        assert_eq!(slice_indices(10, Some(isize::MIN), Some(isize::MAX), isize::MAX - 1), (1, 0));
        assert_eq!(slice_indices(10, Some(isize::MAX), Some(isize::MIN), -3), (4, 9));
        let v = l.slice("t", &[SliceArg::range(1, 6, isize::MAX), SliceArg::range(0, 8, isize::MIN)]).unwrap();
        assert_eq!((v.shape(), v.offset()), (&[1usize, 0][..], 8));
        let e = l.slice("t", &[SliceArg::Range { start: None, stop: None, step: Some(0) }]).unwrap_err();
        assert_eq!(e.kind(), "Value");
        assert_eq!(l.slice("t", &[SliceArg::Index(6)]).unwrap_err().kind(), "Index");
        let v = l.slice("t", &[SliceArg::Ellipsis, SliceArg::Index(-1), SliceArg::NewAxis]).unwrap();
        assert_eq!((v.shape(), v.offset()), (&[6usize, 1][..], 7));
    }

    #[test]
    fn reshape_views_where_numpy_does() {
        let l = Layout::contiguous("t", &[2, 3, 4]).unwrap();
        let t = l.permute("t", &[1, 0, 2]).unwrap(); // (3,2,4), strides (4,12,1)
        assert!(t.reshaped(&[3, 8]).is_none());
        let r = t.reshaped(&[3, 2, 2, 2]).unwrap();
        assert_eq!(r.strides(), &[4, 12, 2, 1]);
        let s = l.slice("t", &[SliceArg::ALL, SliceArg::ALL, SliceArg::range(0, 4, 2)]).unwrap();
        assert!(s.reshaped(&[6, 2]).is_some());
        // Every other element of a contiguous array is one uniform stride: still a view.
        assert_eq!(s.reshaped(&[12]).unwrap().strides(), &[2]);
        let s3 = l.slice("t", &[SliceArg::ALL, SliceArg::ALL, SliceArg::range(0, 3, 1)]).unwrap();
        assert!(s3.reshaped(&[18]).is_none());
        assert_eq!(l.transposed().reshaped(&[24]), None);
    }

    #[test]
    fn broadcasting_rules() {
        assert_eq!(broadcast_shapes("add", &[&[3, 1], &[1, 4]]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast_shapes("add", &[&[2, 1, 5], &[4, 1]]).unwrap(), vec![2, 4, 5]);
        let e = broadcast_shapes("add", &[&[3, 4], &[5]]).unwrap_err();
        assert!(e.to_string().contains("[3, 4]") && e.to_string().contains("[5]"), "{e}");
        assert_eq!(broadcast_shapes("add", &[&[1], &[0]]).unwrap(), vec![0]);
        let l = Layout::contiguous("t", &[3, 1]).unwrap().broadcast_to("t", &[2, 3, 4]).unwrap();
        assert_eq!(l.strides(), &[0, 1, 0]);
        assert_eq!(checked_size("zeros", &[1 << 40, 1 << 40]).unwrap_err().kind(), "Overflow");
        assert!(matches!(normalize_axes("sum", &[0, -2], 2), Err(Error::Axis { .. })));
    }
}
