//! NumPy's `a[index]` and `a[index] = value` with every kind of index item: slices, integers,
//! integer arrays (advanced indexing, broadcast together), boolean masks, new axes and an
//! ellipsis.
//!
//! Basic items (slices, integers, new axes, the ellipsis) alone give a view, as NumPy's. With
//! any array or mask, integers count as advanced indices too (NumPy's rule), masks become the
//! integer arrays of their `nonzero`, and the selection is one `take` of the flat positions
//! over the advanced axes: the broadcast shape of the index arrays replaces those axes where
//! they stand when they are adjacent in the index, else it comes first. Negative indices
//! count from the end; an index out of range is an `Index` error and nothing is read.
//!
//! Assignment finds the flat positions the index selects (the same selection applied to the
//! positions themselves) and `put`s the value there, broadcast to the selection's shape and
//! cast to the array's dtype: where an index repeats, the last value is stored, as NumPy's.

use xp_backend_api::{DType, Error, Result};

use crate::layout::{broadcast_shapes, SliceArg};
use crate::Array;

/// One item of an index expression, as in `a[1:, idx, None, ...]`.
#[derive(Debug, Clone, Copy)]
pub enum IndexItem<'a> {
    /// `start:stop:step`, each optional (Python's `None`).
    Slice(Option<isize>, Option<isize>, Option<isize>),
    /// An integer (negative counts from the end).
    Int(isize),
    /// An integer array: advanced indexing along one axis.
    Array(&'a Array),
    /// A boolean array: selects where it is true, over as many axes as it has.
    Mask(&'a Array),
    /// `None` / `np.newaxis`.
    NewAxis,
    /// `...`.
    Ellipsis,
}

/// An item once masks are integer arrays and integers are advanced (with arrays present).
enum Item {
    Basic(SliceArg),
    Advanced(Array),
}

impl Array {
    /// NumPy's `a[index]` (see the module docs).
    pub fn getitem(&self, index: &[IndexItem<'_>]) -> Result<Array> {
        let op = "getitem";
        let advanced = index.iter().any(|i| matches!(i, IndexItem::Array(_) | IndexItem::Mask(_)));
        if !advanced {
            let args: Vec<SliceArg> = index.iter().filter_map(basic_arg).collect();
            return self.slice(&args);
        }
        // A mask of the whole array: one compaction.
        if let [IndexItem::Mask(m)] = index {
            if m.dtype() == DType::Bool && m.shape() == self.shape() && self.ndim() > 0 {
                return self.compress_mask(m);
            }
        }
        // Masks become one integer array per axis they cover; integers become 0-d arrays.
        let dev = self.device_arc();
        let mut items = Vec::new();
        let mut dim = 0usize;
        for it in index {
            match *it {
                IndexItem::Mask(m) => {
                    if m.dtype() != DType::Bool {
                        return Err(Error::Index {
                            op: op.into(),
                            reason: format!("a mask must be bool, not {}", m.dtype()),
                        });
                    }
                    let covered = self.shape().get(dim..dim + m.ndim());
                    if covered != Some(m.shape()) {
                        return Err(Error::Index {
                            op: op.into(),
                            reason: format!(
                                "boolean index of shape {:?} did not match the array of shape {:?} at axis {dim}",
                                m.shape(),
                                self.shape()
                            ),
                        });
                    }
                    for a in m.nonzero()? {
                        items.push(Item::Advanced(a));
                    }
                    dim += m.ndim();
                }
                IndexItem::Array(a) => {
                    if !a.dtype().is_integer() {
                        return Err(Error::Index {
                            op: op.into(),
                            reason: format!(
                                "arrays used as indices must be of integer (or boolean) type, not {}",
                                a.dtype()
                            ),
                        });
                    }
                    items.push(Item::Advanced(a.clone()));
                    dim += 1;
                }
                IndexItem::Int(k) => {
                    items.push(Item::Advanced(Array::scalar_on(&dev, k as i64, DType::I64)?));
                    dim += 1;
                }
                IndexItem::Slice(..) => {
                    items.extend(basic_arg(it).map(Item::Basic));
                    dim += 1;
                }
                IndexItem::NewAxis | IndexItem::Ellipsis => items.extend(basic_arg(it).map(Item::Basic)),
            }
        }
        // Expand the ellipsis (or pad at the end) with full slices.
        let consumed =
            items.iter().filter(|i| !matches!(i, Item::Basic(SliceArg::NewAxis | SliceArg::Ellipsis))).count();
        if consumed > self.ndim() {
            return Err(Error::Index {
                op: op.into(),
                reason: format!("too many indices: the array is {}-dimensional, {consumed} were indexed", self.ndim()),
            });
        }
        let fill = self.ndim() - consumed;
        let full = || Item::Basic(SliceArg::range(0, isize::MAX, 1));
        let mut expanded = Vec::with_capacity(items.len() + fill);
        let mut seen_ellipsis = false;
        for it in items {
            if matches!(it, Item::Basic(SliceArg::Ellipsis)) {
                if seen_ellipsis {
                    return Err(Error::Index {
                        op: op.into(),
                        reason: "an index can only have a single ellipsis ('...')".into(),
                    });
                }
                seen_ellipsis = true;
                expanded.extend((0..fill).map(|_| full()));
            } else {
                expanded.push(it);
            }
        }
        if !seen_ellipsis {
            expanded.extend((0..fill).map(|_| full()));
        }
        // The basic view: advanced axes kept whole; where each item's axis lands in it.
        let mut args = Vec::with_capacity(expanded.len());
        let (mut adv, mut adv_items) = (Vec::new(), Vec::new());
        for (k, it) in expanded.iter().enumerate() {
            match it {
                Item::Basic(a) => args.push(*a),
                Item::Advanced(a) => {
                    adv.push((args.len(), a));
                    adv_items.push(k);
                    args.push(SliceArg::range(0, isize::MAX, 1));
                }
            }
        }
        let v = self.slice(&args)?;
        // `args` holds no integer, so each item's axis in `v` is its position in `args`.
        let shapes: Vec<&[usize]> = adv.iter().map(|(_, a)| a.shape()).collect();
        let b = broadcast_shapes(op, &shapes)?;
        let bi: Vec<isize> = b.iter().map(|&d| d as isize).collect();
        let mut flat: Option<Array> = None;
        for &(ax, a) in &adv {
            let size = v.shape()[ax] as i64;
            let i = super::indices_as_i64(a)?.broadcast_to(&b)?;
            let i = crate::where_(&i.lt(0)?, (&i.add_scalar(size)?).into(), (&i).into())?;
            if i.size() > 0 && i.lt(0)?.logical_or(&i.ge(size)?)?.any(None, false)?.item::<bool>()? {
                return Err(Error::Index {
                    op: op.into(),
                    reason: format!("an index is out of bounds for axis {ax} with size {size}"),
                });
            }
            flat = Some(match flat {
                None => i,
                Some(f) => f.mul_scalar(size)?.add(&i)?,
            });
        }
        let flat = flat.expect("at least one advanced index").reshape(&bi)?;
        // Advanced axes first, flattened into one, then `take` along it.
        let axes: Vec<usize> = adv.iter().map(|(ax, _)| *ax).collect();
        let rest: Vec<usize> = (0..v.ndim()).filter(|d| !axes.contains(d)).collect();
        let perm: Vec<isize> = axes.iter().chain(&rest).map(|&d| d as isize).collect();
        let mut shape: Vec<isize> = vec![axes.iter().map(|&d| v.shape()[d]).product::<usize>() as isize];
        shape.extend(rest.iter().map(|&d| v.shape()[d] as isize));
        let t = v.permute(&perm)?.reshape(&shape)?;
        let r = t.take(&flat, Some(0))?;
        // Adjacent advanced items put their result where the first stood.
        let adjacent = adv_items.windows(2).all(|w| w[1] == w[0] + 1);
        if !adjacent || axes[0] == 0 {
            return Ok(r);
        }
        let before = rest.iter().filter(|&&d| d < axes[0]).count();
        let nb = b.len();
        let mut order: Vec<isize> = (nb..nb + before).map(|d| d as isize).collect();
        order.extend((0..nb).map(|d| d as isize));
        order.extend((nb + before..r.ndim()).map(|d| d as isize));
        r.permute(&order)
    }

    /// NumPy's `a[index] = value` in place (see the module docs): `value` broadcast to the
    /// selection and cast to the array's dtype. The array must be C-contiguous.
    pub fn setitem(&self, index: &[IndexItem<'_>], value: &Array) -> Result<()> {
        let op = "setitem";
        if !self.is_contiguous() {
            return Err(Error::value(op, "the target must be C-contiguous"));
        }
        // A mask of the whole array: one pass that reads each value where the mask is set.
        if let [IndexItem::Mask(m)] = index {
            if m.dtype() == DType::Bool && m.shape() == self.shape() && self.ndim() > 0 && value.ndim() <= 1 {
                let v = if value.dtype() == self.dtype() { value.clone() } else { value.astype(self.dtype())? };
                return self.expand_mask(m, &v);
            }
        }
        let dev = self.device_arc();
        let n = self.size();
        let dims: Vec<isize> = self.shape().iter().map(|&d| d as isize).collect();
        let positions = crate::with_device(&dev, || crate::arange(0, n as i64, 1, Some(DType::I64)))?.reshape(&dims)?;
        let sel = positions.getitem(index)?;
        let target = sel.shape().to_vec();
        let v = if value.dtype() == self.dtype() { value.clone() } else { value.astype(self.dtype())? };
        let v = v.broadcast_to(&target).map_err(|_| {
            Error::value(
                op,
                format!("could not broadcast input array from shape {:?} into shape {target:?}", value.shape()),
            )
        })?;
        if sel.size() == 0 {
            return Ok(());
        }
        self.put(&sel.ravel()?, &v.ravel()?)
    }
}

/// The basic slicing argument of a basic item (`None` for arrays and masks).
fn basic_arg(item: &IndexItem<'_>) -> Option<SliceArg> {
    Some(match *item {
        IndexItem::Slice(start, stop, step) => SliceArg::Range { start, stop, step },
        IndexItem::Int(k) => SliceArg::Index(k),
        IndexItem::NewAxis => SliceArg::NewAxis,
        IndexItem::Ellipsis => SliceArg::Ellipsis,
        IndexItem::Array(_) | IndexItem::Mask(_) => return None,
    })
}
