//! Memory order: NumPy's `order=` argument (`'C'`, `'F'`, `'A'`, `'K'`) and `a.flags`.
//!
//! An array's elements may lie in its buffer in C order (last index fastest), in Fortran
//! order (first index fastest), or any strided way a view makes. Results read the same
//! whatever the layout: [`Array::to_vec`] and printing give the elements in logical C order.
//!
//! # The Rust forms
//! - [`Order`] is NumPy's string choice as an enum (`Order::F`, or `"F".parse()`), as the
//!   crate's other choices are ([`crate::Side`], [`crate::BitOrder`]).
//! - Functions that already existed keep their signature and their default, and gain an
//!   `_order` variant taking the order: [`zeros_order`], [`ones_order`], [`full_order`],
//!   [`empty_order`], the `_like` ones ([`zeros_like_order`], …), [`Array::copy_order`],
//!   [`Array::astype_order`], [`Array::reshape_order`], [`Array::ravel_order`],
//!   [`Array::from_slice_order`]. New functions take it as an argument, as NumPy's do:
//!   [`Array::flatten`]. [`asfortranarray`] and [`ascontiguousarray`] are NumPy's.
//!
//! # NumPy's rules, as xp applies them
//! - New arrays (`zeros`, `empty`, … and `from_slice_order`) take `C` or `F`; `A` and `K`
//!   are a `Value` error, as NumPy's "only 'C' or 'F' order is permitted". Host data given
//!   to [`Array::from_slice_order`] is always the elements in logical C order (as a nested
//!   list is to `np.array(..., order='F')`); the order says how they are stored.
//! - `_like` functions and copies: `C`, `F`; `A` is `F` when the prototype is F-contiguous and
//!   not C-contiguous, else `C`; `K` keeps the prototype's layout as closely as a dense array
//!   can ([`Layout::dense_like`]: C, F, or the prototype's order of axes by stride).
//!   [`crate::zeros_like`], [`crate::ones_like`], [`crate::full_like`] and
//!   [`crate::empty_like`] use `K`, NumPy's default; [`Array::copy`] is `C` (NumPy's
//!   `a.copy()`); [`Array::astype`] is `K` (NumPy's default).
//! - [`Array::reshape_order`] with `F` reads and fills the elements in Fortran index order
//!   (NumPy's `reshape(..., order='F')`): a view when the layout allows, else a copy (laid
//!   out in F order); `A` is `F` for an F-contiguous, not C-contiguous array; `K` is an error,
//!   as in NumPy. [`Array::ravel_order`] and [`Array::flatten`] follow it, and `K` there reads
//!   the elements in the order they lie in memory (negative strides reversed).
//! - Elementwise results (ufuncs, operators, `where`, `clip`, `astype`), computed at the call
//!   or pending in lazy fusion: Fortran order when every array input that has the result's
//!   shape is F-contiguous and at least one of them is not C-contiguous (broadcast inputs and
//!   scalars do not count); C order otherwise, mixed inputs included. An `out=` array is
//!   written in its own layout. Reductions, sorts, products, FFTs and solvers accept any
//!   layout and return C-ordered results.
//! - [`Array::flags`]: a 1-d contiguous array is both C- and F-contiguous, so is any array of
//!   at most one element and any empty one (NumPy's rules). `owndata` is true for the array
//!   xp allocated (a fresh result) and false for every view of it that changes its layout or
//!   dtype (a slice, a transpose, a reshape to another shape, `real`) and for foreign memory
//!   (DLPack, shared host memory). A Rust `clone` of an array is NumPy's `b = a`: the same
//!   array, so it owns what the original owns. `writeable` is false for memory lent
//!   read-only ([`crate::interop`]).
//! - [`ascontiguousarray`] and [`asfortranarray`] return the array itself when it is already
//!   in that order, and at least one dimension (a 0-d array becomes shape `[1]`), as NumPy's.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use xp_backend_api::{DType, DynDevice, Error, Result};

use crate::array::resolve_shape;
use crate::element::scalar_bytes;
use crate::layout::{Layout, SliceArg};
use crate::promote::Scalar;
use crate::{current_device, Array, Element};

/// NumPy's memory order argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// C order: the last index varies fastest (row-major).
    #[default]
    C,
    /// Fortran order: the first index varies fastest (column-major).
    F,
    /// `F` when the source is F-contiguous and not C-contiguous, else `C`.
    A,
    /// Keep the source's layout as closely as possible.
    K,
}

impl FromStr for Order {
    type Err = Error;
    /// `"C"`, `"F"`, `"A"` or `"K"` (either case), as NumPy spells them.
    fn from_str(s: &str) -> Result<Order> {
        match s {
            "C" | "c" => Ok(Order::C),
            "F" | "f" => Ok(Order::F),
            "A" | "a" => Ok(Order::A),
            "K" | "k" => Ok(Order::K),
            _ => Err(Error::value("order", format!("order must be one of 'C', 'F', 'A', or 'K' (got {s:?})"))),
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Order::C => "C",
            Order::F => "F",
            Order::A => "A",
            Order::K => "K",
        })
    }
}

/// NumPy's `a.flags`: how an array lies in memory and whether it may be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    /// The elements are in C order without gaps.
    pub c_contiguous: bool,
    /// The elements are in Fortran order without gaps.
    pub f_contiguous: bool,
    /// The array owns its buffer (it is not a view of another array, nor foreign memory).
    pub owndata: bool,
    /// The elements may be written.
    pub writeable: bool,
}

impl fmt::Display for Flags {
    /// As NumPy prints `a.flags` (the four flags xp keeps).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = |v: bool| if v { "True" } else { "False" };
        writeln!(f, "  C_CONTIGUOUS : {}", b(self.c_contiguous))?;
        writeln!(f, "  F_CONTIGUOUS : {}", b(self.f_contiguous))?;
        writeln!(f, "  OWNDATA : {}", b(self.owndata))?;
        write!(f, "  WRITEABLE : {}", b(self.writeable))
    }
}

/// The layout of a new array of `shape` in `order` (`C` or `F`).
fn new_layout(op: &str, shape: &[usize], order: Order) -> Result<Layout> {
    match order {
        Order::C => Layout::contiguous(op, shape),
        Order::F => Layout::contiguous_f(op, shape),
        Order::A | Order::K => {
            Err(Error::value(op, format!("only 'C' or 'F' order is permitted for a new array (got '{order}')")))
        }
    }
}

/// Whether `l` is F-contiguous and not C-contiguous: the layouts `A` turns into `F` (never
/// one of at most one element, or an empty one, which NumPy counts as both).
pub(crate) fn fortran_only(l: &Layout) -> bool {
    l.size() > 1 && l.is_f_contiguous() && !l.is_c_contiguous()
}

/// The dense layout of a new array shaped like `proto` in `order`.
fn like_layout(op: &str, proto: &Layout, order: Order) -> Result<Layout> {
    match order {
        Order::C => Layout::contiguous(op, proto.shape()),
        Order::F => Layout::contiguous_f(op, proto.shape()),
        Order::A if fortran_only(proto) => Layout::contiguous_f(op, proto.shape()),
        Order::A => Layout::contiguous(op, proto.shape()),
        Order::K => Ok(proto.dense_like()),
    }
}

/// The layout of an elementwise result of `shape` over the array `inputs`: Fortran order when
/// every input of the result's shape is F-contiguous and one is not C-contiguous, else C.
pub(crate) fn elementwise_layout(op: &str, inputs: &[&Array], shape: &[usize]) -> Result<Layout> {
    let mut full = inputs.iter().filter(|a| a.shape() == shape).peekable();
    let fortran = full.peek().is_some() && {
        let (mut all_f, mut any_only_f) = (true, false);
        for a in full {
            all_f &= a.layout().is_f_contiguous();
            any_only_f |= fortran_only(a.layout());
        }
        all_f && any_only_f
    };
    if fortran {
        Layout::contiguous_f(op, shape)
    } else {
        Layout::contiguous(op, shape)
    }
}

impl Array {
    /// NumPy's `a.flags`: C- and F-contiguity, data ownership and writability (see the
    /// [module docs](self) for the rules).
    ///
    /// ```
    /// # xp_array::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
    /// # xp_array::with_device(&xp_array::device("cpu").unwrap(), || -> xp_array::Result<()> {
    /// use xp_array::{zeros, DType};
    /// let a = zeros(&[2, 3], DType::F32)?;
    /// let f = a.flags();
    /// assert!(f.c_contiguous && !f.f_contiguous && f.owndata && f.writeable);
    /// let t = a.t().flags(); // a.T of a C array is F-contiguous, and a view
    /// assert!(!t.c_contiguous && t.f_contiguous && !t.owndata);
    /// # Ok(()) }).unwrap();
    /// ```
    pub fn flags(&self) -> Flags {
        let tiny = self.size() <= 1;
        Flags {
            c_contiguous: tiny || self.layout.is_c_contiguous(),
            f_contiguous: tiny || self.layout.is_f_contiguous(),
            owndata: self.storage.base.get().is_some_and(|(l, d)| *l == self.layout && *d == self.dtype),
            writeable: !self.storage.read_only,
        }
    }

    /// Whether the elements are in Fortran order without gaps (NumPy's
    /// `a.flags.f_contiguous`).
    pub fn is_f_contiguous(&self) -> bool {
        self.size() <= 1 || self.layout.is_f_contiguous()
    }

    /// An uninitialised array on `device` stored in `order` (`C` or `F`).
    pub fn empty_order_on(device: &Arc<dyn DynDevice>, shape: &[usize], dtype: DType, order: Order) -> Result<Array> {
        Array::empty_laid_out(device, new_layout("empty", shape, order)?, dtype)
    }

    /// [`Array::full_on`] stored in `order` (`C` or `F`).
    pub fn full_order_on(
        device: &Arc<dyn DynDevice>,
        shape: &[usize],
        value: impl Into<Scalar>,
        dtype: DType,
        order: Order,
    ) -> Result<Array> {
        full_laid_out(device, new_layout("full", shape, order)?, value.into(), dtype)
    }

    /// An array of `shape` holding `data` — the elements in logical C order, as
    /// [`Array::from_slice`] takes them — stored in `order` (`C` or `F`), on the current
    /// device: NumPy's `np.array(data, order=...)`.
    ///
    /// ```
    /// # xp_array::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
    /// # xp_array::with_device(&xp_array::device("cpu").unwrap(), || -> xp_array::Result<()> {
    /// use xp_array::{Array, Order};
    /// let a = Array::from_slice_order(&[1, 2, 3, 4, 5, 6], &[2, 3], Order::F)?;
    /// assert_eq!(a.strides(), [1, 2]);
    /// assert_eq!(a.to_vec::<i32>()?, [1, 2, 3, 4, 5, 6]); // values in logical order
    /// # Ok(()) }).unwrap();
    /// ```
    pub fn from_slice_order<T: Element>(data: &[T], shape: &[usize], order: Order) -> Result<Array> {
        Array::from_slice_order_on(&current_device()?, data, shape, order)
    }

    /// [`Array::from_slice_order`] on `device`.
    pub fn from_slice_order_on<T: Element>(
        device: &Arc<dyn DynDevice>,
        data: &[T],
        shape: &[usize],
        order: Order,
    ) -> Result<Array> {
        new_layout("array", shape, order)?;
        let c = Array::from_slice_on(device, data, shape)?;
        match order {
            Order::F if !c.layout.is_f_contiguous() => c.copy_order(Order::F),
            _ => Ok(c),
        }
    }

    /// A copy stored in `order`: NumPy's `a.copy(order)` (`C`, `F`, `A` or `K`; see the
    /// [module docs](self)). [`Array::copy`] is `copy_order(Order::C)`.
    pub fn copy_order(&self, order: Order) -> Result<Array> {
        let layout = like_layout("copy", &self.layout, order)?;
        let out = Array::empty_laid_out(&self.storage.device, layout, self.dtype)?;
        if out.layout.is_c_contiguous() {
            self.copy_into(&out)?;
        } else if out.layout.is_f_contiguous() {
            // An F copy is the C copy of the transpose, which takes the tiled transpose kernel
            // from a C source.
            self.t().copy_into(&out.t())?;
        } else {
            self.copy_into(&out)?;
        }
        Ok(out)
    }

    /// A copy converted to `dtype` and stored in `order` (NumPy's `astype(dtype, order)`);
    /// [`Array::astype`] is `Order::K`. To another dtype the result is pending when lazy
    /// fusion is on ([`crate::lazy`]).
    pub fn astype_order(&self, dtype: DType, order: Order) -> Result<Array> {
        let layout = like_layout("astype", &self.layout, order)?;
        if dtype != self.dtype && crate::lazy::should_defer(&self.storage.device, self.size())? {
            return crate::lazy::defer(
                crate::lazy::Kind::Cast,
                vec![crate::lazy::Arg::Array(self.clone())],
                layout,
                dtype,
                self.device_arc(),
            );
        }
        let out = Array::empty_laid_out(&self.storage.device, layout, dtype)?;
        self.copy_into(&out)?;
        Ok(out)
    }

    /// The same elements with `shape` (one extent may be `-1`), read and placed in `order`:
    /// NumPy's `reshape(shape, order)`. `F` takes the elements in Fortran index order (the
    /// first index fastest), a view when the layout allows, else a copy stored in F order;
    /// `A` is `F` for an F-contiguous, not C-contiguous array, else `C`; `K` is an error, as
    /// in NumPy.
    ///
    /// ```
    /// # xp_array::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
    /// # xp_array::with_device(&xp_array::device("cpu").unwrap(), || -> xp_array::Result<()> {
    /// use xp_array::{arange, Order};
    /// let a = arange(0, 6, 1, None)?.reshape_order(&[2, 3], Order::F)?;
    /// assert_eq!(a.to_vec::<i64>()?, [0, 2, 4, 1, 3, 5]);
    /// # Ok(()) }).unwrap();
    /// ```
    pub fn reshape_order(&self, shape: &[isize], order: Order) -> Result<Array> {
        match self.index_order("reshape", order)? {
            Order::F => {
                let shape = resolve_shape("reshape", shape, self.size(), self.shape())?;
                let rev: Vec<isize> = shape.iter().rev().map(|&d| d as isize).collect();
                Ok(self.t().reshape(&rev)?.t())
            }
            _ => self.reshape(shape),
        }
    }

    /// The elements as 1-d, read in `order` (NumPy's `ravel(order)`): a view when the layout
    /// allows. `K` reads them in the order they lie in memory.
    pub fn ravel_order(&self, order: Order) -> Result<Array> {
        if order == Order::K {
            return self.memory_order_view().reshape(&[-1]);
        }
        self.reshape_order(&[-1], self.index_order("ravel", order)?)
    }

    /// A 1-d copy of the elements read in `order` (NumPy's `a.flatten(order)`); never a view.
    pub fn flatten(&self, order: Order) -> Result<Array> {
        let r = self.ravel_order(order)?;
        if r.shares_buffer(self) {
            r.copy()
        } else {
            Ok(r)
        }
    }

    /// The index order `order` means for reading this array (`A` resolved; `K` refused).
    fn index_order(&self, op: &str, order: Order) -> Result<Order> {
        match order {
            Order::A if fortran_only(&self.layout) => Ok(Order::F),
            Order::A | Order::C => Ok(Order::C),
            Order::F => Ok(Order::F),
            Order::K => Err(Error::value(op, "order 'K' is not permitted for reshaping")),
        }
    }

    /// A view whose C order is the order the elements lie in memory: axes by decreasing
    /// absolute stride, negative strides reversed.
    fn memory_order_view(&self) -> Array {
        let nd = self.ndim();
        let flip: Vec<SliceArg> = self
            .strides()
            .iter()
            .map(|&s| if s < 0 { SliceArg::Range { start: None, stop: None, step: Some(-1) } } else { SliceArg::ALL })
            .collect();
        let v = if flip.iter().any(|f| *f != SliceArg::ALL) {
            self.slice(&flip).expect("reversing every axis is a valid slice")
        } else {
            self.clone()
        };
        let dense = v.layout.dense_like();
        let mut perm: Vec<isize> = (0..nd as isize).collect();
        perm.sort_by_key(|&d| std::cmp::Reverse(dense.strides()[d as usize]));
        v.permute(&perm).expect("a permutation of the axes")
    }
}

/// Fill a new array laid out as `layout` with `value`, with [`Array::full_on`]'s checks.
fn full_laid_out(device: &Arc<dyn DynDevice>, layout: Layout, value: Scalar, dtype: DType) -> Result<Array> {
    if let Scalar::Int(i) = value {
        crate::promote::check_int_fits("full", i, dtype)?;
    }
    let out = Array::empty_laid_out(device, layout, dtype)?;
    if out.size() > 0 {
        out.fill_bytes(&scalar_bytes(value, dtype)?)?;
    }
    Ok(out)
}

/// Zeros of `shape` and `dtype` stored in `order` (`C` or `F`): NumPy's
/// `zeros(shape, dtype, order)`.
///
/// ```
/// # xp_array::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # xp_array::with_device(&xp_array::device("cpu").unwrap(), || -> xp_array::Result<()> {
/// use xp_array::{zeros_order, DType, Order};
/// let a = zeros_order(&[2, 3], DType::F64, Order::F)?;
/// assert!(a.flags().f_contiguous && !a.flags().c_contiguous);
/// # Ok(()) }).unwrap();
/// ```
pub fn zeros_order(shape: &[usize], dtype: DType, order: Order) -> Result<Array> {
    Array::full_order_on(&current_device()?, shape, 0, dtype, order)
}

/// Ones of `shape` and `dtype` stored in `order` (`C` or `F`).
pub fn ones_order(shape: &[usize], dtype: DType, order: Order) -> Result<Array> {
    Array::full_order_on(&current_device()?, shape, 1, dtype, order)
}

/// `value` converted to `dtype`, repeated to `shape`, stored in `order` (`C` or `F`).
pub fn full_order(shape: &[usize], value: impl Into<Scalar>, dtype: DType, order: Order) -> Result<Array> {
    Array::full_order_on(&current_device()?, shape, value, dtype, order)
}

/// An uninitialised array stored in `order` (`C` or `F`).
pub fn empty_order(shape: &[usize], dtype: DType, order: Order) -> Result<Array> {
    Array::empty_order_on(&current_device()?, shape, dtype, order)
}

/// Zeros shaped like `a` (its dtype and device), stored in `order`: `K` keeps `a`'s layout,
/// `A` is `F` when `a` is F-contiguous and not C-contiguous.
pub fn zeros_like_order(a: &Array, order: Order) -> Result<Array> {
    full_laid_out(&a.device_arc(), like_layout("zeros_like", a.layout(), order)?, Scalar::Int(0), a.dtype())
}

/// Ones shaped like `a`, stored in `order` (as [`zeros_like_order`]).
pub fn ones_like_order(a: &Array, order: Order) -> Result<Array> {
    full_laid_out(&a.device_arc(), like_layout("ones_like", a.layout(), order)?, Scalar::Int(1), a.dtype())
}

/// `value` shaped like `a`, stored in `order` (as [`zeros_like_order`]).
pub fn full_like_order(a: &Array, value: impl Into<Scalar>, order: Order) -> Result<Array> {
    full_laid_out(&a.device_arc(), like_layout("full_like", a.layout(), order)?, value.into(), a.dtype())
}

/// Uninitialised, shaped like `a`, stored in `order` (as [`zeros_like_order`]).
pub fn empty_like_order(a: &Array, order: Order) -> Result<Array> {
    Array::empty_laid_out(&a.device_arc(), like_layout("empty_like", a.layout(), order)?, a.dtype())
}

/// `a` itself when it is C-contiguous, else a C-ordered copy; at least 1-d (NumPy's
/// `ascontiguousarray`).
pub fn ascontiguousarray(a: &Array) -> Result<Array> {
    let a = if a.ndim() == 0 { a.reshape(&[1])? } else { a.clone() };
    a.ascontiguous()
}

/// `a` itself when it is F-contiguous, else an F-ordered copy; at least 1-d (NumPy's
/// `asfortranarray`).
///
/// ```
/// # xp_array::register_backend(std::sync::Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # xp_array::with_device(&xp_array::device("cpu").unwrap(), || -> xp_array::Result<()> {
/// use xp_array::{asfortranarray, Array};
/// let a = Array::from_slice(&[1f32, 2., 3., 4., 5., 6.], &[2, 3])?;
/// let f = asfortranarray(&a)?;
/// assert_eq!(f.strides(), [1, 2]);
/// assert_eq!(f.to_vec::<f32>()?, a.to_vec::<f32>()?);
/// # Ok(()) }).unwrap();
/// ```
pub fn asfortranarray(a: &Array) -> Result<Array> {
    let a = if a.ndim() == 0 { a.reshape(&[1])? } else { a.clone() };
    if a.is_f_contiguous() {
        Ok(a)
    } else {
        a.copy_order(Order::F)
    }
}
