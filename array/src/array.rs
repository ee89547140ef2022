//! The [`Array`] type: a shared device buffer, a [`Layout`] and a dtype.

use std::fmt;
use std::sync::{Arc, OnceLock, Weak};

use parking_lot::{Mutex, RwLock};
use smallvec::SmallVec;
use xp_backend_api::{Buffer, DType, DynDevice, Error, KernelArg, Result};
use xp_kernels::elementwise::cast_spec;

use crate::element::{as_bytes, from_bytes, scalar_bytes, scalar_from_bytes, Element};
use crate::exec::{current_stream, launch_elementwise, DTypes, EwIn, KernelKey};
use crate::layout::{checked_size, Layout, SliceArg};
use crate::lazy::{Expr, Reason};
use crate::promote::{check_int_fits, int_range, Scalar};

/// What an [`Array`] views: a device buffer, or the pending expression that will fill one
/// (lazy fusion, [`crate::lazy`]).
///
/// A pending storage gets its buffer once, from the first thread that needs it; the
/// expression is dropped then, releasing the arrays it read. `readers` are the pending
/// storages whose expressions read this one: each is computed before anything writes here
/// (see [`Storage::buffer_for_write`]), so a pending value never sees a later write.
pub(crate) struct Storage {
    buffer: OnceLock<Buffer>,
    pending: RwLock<Option<Arc<Expr>>>,
    readers: Mutex<SmallVec<[Weak<Storage>; 2]>>,
    pub(crate) device: Arc<dyn DynDevice>,
    /// Writes are refused: foreign memory lent read-only (a DLPack tensor flagged so, a
    /// shared ndarray), see [`crate::interop`].
    pub(crate) read_only: bool,
    /// Host views ([`Array::as_ndarray_view`]) alive over the buffer: writes are refused
    /// while any is.
    pub(crate) host_views: std::sync::atomic::AtomicUsize,
    /// The layout and dtype of the array the storage was made for, when xp made it: the array
    /// with exactly these owns its data (`flags().owndata`); other views of it do not.
    pub(crate) base: OnceLock<(Layout, DType)>,
}

impl Storage {
    /// A storage over `buffer`.
    pub(crate) fn ready(buffer: Buffer, device: &Arc<dyn DynDevice>) -> Storage {
        Storage {
            buffer: OnceLock::from(buffer),
            pending: RwLock::new(None),
            readers: Mutex::new(SmallVec::new()),
            device: Arc::clone(device),
            read_only: false,
            host_views: Default::default(),
            base: OnceLock::new(),
        }
    }

    /// A storage whose elements `expr` will compute, registered as a reader of every array
    /// the expression reads.
    pub(crate) fn pending(expr: Arc<Expr>, device: &Arc<dyn DynDevice>) -> Arc<Storage> {
        let s = Arc::new(Storage {
            buffer: OnceLock::new(),
            pending: RwLock::new(Some(Arc::clone(&expr))),
            readers: Mutex::new(SmallVec::new()),
            device: Arc::clone(device),
            read_only: false,
            host_views: Default::default(),
            base: OnceLock::new(),
        });
        for a in expr.arrays() {
            a.storage.add_reader(&s);
        }
        s
    }

    fn add_reader(&self, reader: &Arc<Storage>) {
        let mut r = self.readers.lock();
        // Readers computed or dropped are cleared out at 16, 32, 64, … registered ones, so
        // that an array read by many live pending arrays costs O(1) a reader.
        if r.len() >= 16 && r.len().is_power_of_two() {
            r.retain(|w| w.upgrade().is_some_and(|s| s.is_pending()));
        }
        r.push(Arc::downgrade(reader));
    }

    /// Whether the elements are still to be computed.
    pub(crate) fn is_pending(&self) -> bool {
        self.buffer.get().is_none()
    }

    /// `f` of the expression that will compute the elements, while they are pending (no
    /// reference to it is taken).
    pub(crate) fn with_expr<R>(&self, f: impl FnOnce(&Expr) -> R) -> Option<R> {
        if self.buffer.get().is_some() {
            return None;
        }
        self.pending.read().as_deref().map(f)
    }

    /// The expression that will compute the elements, while they are pending.
    pub(crate) fn expr(&self) -> Option<Arc<Expr>> {
        if self.buffer.get().is_some() {
            return None;
        }
        self.pending.read().clone()
    }

    /// The buffer, computing the elements first when they are pending (`why` says for whom,
    /// for `XP_TRACE_FUSION`).
    pub(crate) fn buffer_because(&self, why: Reason) -> Result<&Buffer> {
        if let Some(b) = self.buffer.get() {
            return Ok(b);
        }
        crate::lazy::evaluate(&[self], why)?;
        Ok(self.buffer.get().expect("an evaluation fills the buffer"))
    }

    /// The buffer, to be read by a kernel, a library or a copy.
    pub(crate) fn buffer(&self) -> Result<&Buffer> {
        self.buffer_because(Reason::Consumer)
    }

    /// The buffer, about to be written: the pending arrays that read it are computed first.
    pub(crate) fn buffer_for_write(&self) -> Result<&Buffer> {
        self.check_writable()?;
        self.flush_readers()?;
        self.buffer_because(Reason::Consumer)
    }

    /// An error unless the elements may be written: foreign memory lent read-only, or a host
    /// view alive over the buffer, refuse writes.
    pub(crate) fn check_writable(&self) -> Result<()> {
        if self.read_only {
            return Err(Error::value(
                "write",
                "the array is read-only (foreign memory lent without write access: a DLPack tensor flagged \
                 read-only or a shared ndarray)",
            ));
        }
        if self.host_views.load(std::sync::atomic::Ordering::Acquire) > 0 {
            return Err(Error::value("write", "the array is borrowed by a host view (as_ndarray_view); drop it first"));
        }
        Ok(())
    }

    /// Compute every pending array that reads this storage.
    pub(crate) fn flush_readers(&self) -> Result<()> {
        // The readers stay registered until they are computed: if their evaluation fails, the
        // write fails with it and a later write still computes them first.
        let readers: Vec<Arc<Storage>> = {
            let r = self.readers.lock();
            if r.is_empty() {
                return Ok(());
            }
            r.iter().filter_map(|w| w.upgrade()).filter(|s| s.is_pending()).collect()
        };
        let refs: Vec<&Storage> = readers.iter().map(|s| &**s).collect();
        crate::lazy::evaluate(&refs, Reason::Overwrite)?;
        self.readers.lock().retain(|w| w.upgrade().is_some_and(|s| s.is_pending()));
        Ok(())
    }

    /// Fill a pending storage with `buffer` (computed by `expr`'s evaluation). Another thread
    /// may have filled it first: its buffer holds the same values and stays.
    pub(crate) fn fulfil(&self, buffer: Buffer) {
        let _ = self.buffer.set(buffer);
        *self.pending.write() = None;
    }
}

/// An N-d array on a device, NumPy style: run-time dtype and rank, views that share the
/// buffer. Cloning an `Array` makes another view of the same buffer (cheap); [`Array::copy`]
/// copies the elements.
///
/// Ops are queued on the device's current stream and return at once; reading to the host
/// ([`Array::to_vec`], [`Array::item`]) waits for them.
#[derive(Clone)]
pub struct Array {
    pub(crate) storage: Arc<Storage>,
    pub(crate) layout: Layout,
    pub(crate) dtype: DType,
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Array(shape={:?}, dtype={}, device={})", self.shape(), self.dtype, self.storage.device.label())
    }
}

impl Array {
    // ---- properties ------------------------------------------------------------------------

    /// Extents.
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }
    /// Strides in elements (NumPy's are in bytes: multiply by [`Array::itemsize`]).
    pub fn strides(&self) -> &[isize] {
        self.layout.strides()
    }
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    /// Number of elements.
    pub fn size(&self) -> usize {
        self.layout.size()
    }
    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Bytes per element.
    pub fn itemsize(&self) -> usize {
        self.dtype.size()
    }
    /// Bytes of the elements (not of the buffer).
    pub fn nbytes(&self) -> usize {
        self.size() * self.itemsize()
    }
    /// The layout in the buffer.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The device the array lives on.
    pub fn device(&self) -> &dyn DynDevice {
        &*self.storage.device
    }
    /// The device, shared.
    pub fn device_arc(&self) -> Arc<dyn DynDevice> {
        Arc::clone(&self.storage.device)
    }
    /// Whether the elements are in C order without gaps.
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_c_contiguous()
    }
    /// Whether two arrays share a buffer.
    pub fn shares_buffer(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// Whether `self` and `other` may hold a common element other than as the very same view
    /// (same dtype size, shape, strides and offset): they share a buffer and the byte ranges
    /// they reach meet. An elementwise kernel reading one while writing the other must then go
    /// through a temporary; the same view it reads and writes in step.
    pub(crate) fn overlaps_unlike(&self, other: &Array) -> bool {
        if !self.shares_buffer(other) || self.size() == 0 || other.size() == 0 {
            return false;
        }
        let bytes = |a: &Array| {
            let (lo, hi) = a.layout.extent();
            (lo * a.itemsize(), hi * a.itemsize())
        };
        let ((a0, a1), (b0, b1)) = (bytes(self), bytes(other));
        a0 < b1 && b0 < a1 && !(self.itemsize() == other.itemsize() && self.layout == other.layout)
    }

    /// The array as a kernel argument read by the kernel (pending values are computed first).
    pub(crate) fn kernel_arg(&self) -> Result<KernelArg<'_>> {
        Ok(KernelArg::Buffer { buffer: self.storage.buffer()?, offset_bytes: self.layout.offset() * self.itemsize() })
    }

    /// The array as a kernel argument the kernel may write: the pending arrays that read it
    /// are computed first.
    pub(crate) fn kernel_arg_mut(&self) -> Result<KernelArg<'_>> {
        Ok(KernelArg::Buffer {
            buffer: self.storage.buffer_for_write()?,
            offset_bytes: self.layout.offset() * self.itemsize(),
        })
    }

    /// Bytes of the buffer this array views (of its whole result when pending).
    pub(crate) fn storage_bytes(&self) -> usize {
        match self.storage.buffer.get() {
            Some(b) => b.len(),
            None => self.storage.expr().map_or(0, |e| e.shape.iter().product::<usize>() * e.dtype.size()),
        }
    }

    /// Whether the elements are pending (an expression of lazy fusion not computed yet).
    pub fn is_pending(&self) -> bool {
        self.storage.is_pending()
    }

    /// A pending array computed by `expr`, laid out as `expr.layout` says.
    pub(crate) fn pending(expr: Arc<Expr>) -> Array {
        let layout = expr.layout.clone();
        let dtype = expr.dtype;
        let device = Arc::clone(&expr.device);
        let storage = Storage::pending(expr, &device);
        let _ = storage.base.set((layout.clone(), dtype));
        Array { storage, layout, dtype }
    }

    /// The buffer of a freshly made array that nothing else views (for moving the result of
    /// an evaluation into a pending storage).
    pub(crate) fn into_buffer(self) -> Option<Buffer> {
        Arc::try_unwrap(self.storage).ok().and_then(|s| s.buffer.into_inner())
    }

    /// NumPy's `a.real`: a view of the real parts of a complex array (float32 for complex64),
    /// the array itself otherwise.
    pub fn real(&self) -> Array {
        self.component(0).unwrap_or_else(|| self.clone())
    }

    /// NumPy's `a.imag`: a view of the imaginary parts of a complex array; zeros (a new
    /// array) for a real one.
    pub fn imag(&self) -> Result<Array> {
        match self.component(1) {
            Some(v) => Ok(v),
            None => Array::full_on(&self.storage.device, self.shape(), 0, self.dtype),
        }
    }

    /// Component `part` of a complex array as a view of its real dtype.
    fn component(&self, part: usize) -> Option<Array> {
        let real = match self.dtype {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            _ => return None,
        };
        Some(Array { storage: Arc::clone(&self.storage), layout: self.layout.component(part), dtype: real })
    }

    pub(crate) fn with_layout(&self, layout: Layout) -> Array {
        Array { storage: Arc::clone(&self.storage), layout, dtype: self.dtype }
    }

    // ---- creation --------------------------------------------------------------------------
    /// A C-contiguous array of `shape` over a whole `buffer` of `device` (which a library
    /// filled).
    pub(crate) fn from_buffer(device: &Arc<dyn DynDevice>, buffer: Buffer, shape: &[usize], dtype: DType) -> Array {
        let layout = Layout::contiguous("from_buffer", shape).expect("a shape whose buffer exists");
        let storage = Storage::ready(buffer, device);
        let _ = storage.base.set((layout.clone(), dtype));
        Array { storage: Arc::new(storage), layout, dtype }
    }

    /// The buffer and the byte offset of the first element, to be read by a library call.
    pub(crate) fn buffer_at(&self) -> Result<(&Buffer, usize)> {
        Ok((self.storage.buffer()?, self.layout.offset() * self.itemsize()))
    }

    /// An uninitialised array (its elements are whatever the memory held) on `device`.
    pub fn empty_on(device: &Arc<dyn DynDevice>, shape: &[usize], dtype: DType) -> Result<Array> {
        Array::empty_laid_out(device, Layout::contiguous("empty", shape)?, dtype)
    }

    /// An uninitialised array on `device` laid out as `layout`, which must be dense (offset 0,
    /// its elements filling `[0, size)` once each: a C, F or permuted contiguous layout).
    pub(crate) fn empty_laid_out(device: &Arc<dyn DynDevice>, layout: Layout, dtype: DType) -> Result<Array> {
        let bytes = layout.size().checked_mul(dtype.size()).ok_or_else(|| Error::Overflow {
            op: "empty".into(),
            reason: format!("{:?} elements of {dtype} do not fit in memory addresses", layout.shape()),
        })?;
        let stream = current_stream(device);
        let buffer = device.alloc(bytes.max(1), &stream)?;
        let storage = Storage::ready(buffer, device);
        let _ = storage.base.set((layout.clone(), dtype));
        Ok(Array { storage: Arc::new(storage), layout, dtype })
    }

    /// An array of `shape` and `dtype` from its bytes in C order (little-endian).
    pub fn from_bytes_on(device: &Arc<dyn DynDevice>, shape: &[usize], dtype: DType, bytes: &[u8]) -> Result<Array> {
        let n = checked_size("from_bytes", shape)?;
        if n * dtype.size() != bytes.len() {
            return Err(Error::value(
                "from_bytes",
                format!(
                    "{} bytes do not make {shape:?} elements of {dtype} ({} bytes each)",
                    bytes.len(),
                    dtype.size()
                ),
            ));
        }
        let a = Array::empty_on(device, shape, dtype)?;
        if !bytes.is_empty() {
            let stream = current_stream(device);
            if dtype == DType::Bool && bytes.iter().any(|&b| b > 1) {
                let norm: Vec<u8> = bytes.iter().map(|&b| (b != 0) as u8).collect();
                stream.copy_from_host(a.storage.buffer_for_write()?, 0, &norm)?;
            } else {
                stream.copy_from_host(a.storage.buffer_for_write()?, 0, bytes)?;
            }
        }
        Ok(a)
    }

    /// Write `bytes` (this array's elements in C order) into this freshly made contiguous
    /// array, on its device's current stream.
    pub(crate) fn copy_from_bytes(&self, bytes: &[u8]) -> Result<()> {
        if bytes.len() != self.nbytes() || !self.is_contiguous() {
            return Err(Error::value("copy_from_bytes", "the bytes do not fill the array"));
        }
        if !bytes.is_empty() {
            let stream = current_stream(&self.storage.device);
            stream.copy_from_host(self.storage.buffer_for_write()?, self.layout.offset() * self.itemsize(), bytes)?;
        }
        Ok(())
    }

    /// [`Array::copy_from_bytes`] of `data`, whose type is the array's dtype.
    pub(crate) fn copy_from_slice<T: Element>(&self, data: &[T]) -> Result<()> {
        if T::DTYPE != self.dtype {
            return Err(Error::value("copy_from_slice", "the data's dtype is not the array's"));
        }
        self.copy_from_bytes(as_bytes(data))
    }

    /// An array of `shape` holding `data` (C order), on the current device.
    pub fn from_slice<T: Element>(data: &[T], shape: &[usize]) -> Result<Array> {
        Array::from_slice_on(&crate::current_device()?, data, shape)
    }

    /// An array of `shape` holding `data` (C order), on `device`.
    pub fn from_slice_on<T: Element>(device: &Arc<dyn DynDevice>, data: &[T], shape: &[usize]) -> Result<Array> {
        let n = checked_size("from_slice", shape)?;
        if n != data.len() {
            return Err(Error::ShapeMismatch {
                op: "from_slice".into(),
                lhs: vec![data.len()],
                rhs: shape.to_vec(),
                reason: "differ in element count".into(),
            });
        }
        Array::from_bytes_on(device, shape, T::DTYPE, as_bytes(data))
    }

    /// A 1-d array of `data`, on the current device.
    pub fn from_vec<T: Element>(data: Vec<T>) -> Result<Array> {
        let n = data.len();
        Array::from_slice(&data, &[n])
    }

    /// A 0-d array holding `value` converted to `dtype`, on `device`.
    pub fn scalar_on(device: &Arc<dyn DynDevice>, value: impl Into<Scalar>, dtype: DType) -> Result<Array> {
        Array::from_bytes_on(device, &[], dtype, &scalar_bytes(value.into(), dtype)?)
    }

    /// An array of `shape` filled with `value` converted to `dtype`, on `device`. An integer
    /// `value` that `dtype` cannot hold is `Overflow`, as in NumPy 2.
    pub fn full_on(
        device: &Arc<dyn DynDevice>,
        shape: &[usize],
        value: impl Into<Scalar>,
        dtype: DType,
    ) -> Result<Array> {
        let value = value.into();
        // NumPy 2: an integer the dtype cannot hold is an OverflowError (`full(2, 300, uint8)`),
        // not its wrapped value; a float converts as `astype` does.
        if let Scalar::Int(i) = value {
            crate::promote::check_int_fits("full", i, dtype)?;
        }
        let out = Array::empty_on(device, shape, dtype)?;
        if out.size() == 0 {
            return Ok(out);
        }
        out.fill_bytes(&scalar_bytes(value, dtype)?)?;
        Ok(out)
    }

    /// Set every element to `value`, in place, on the current stream: NumPy's `a.fill(value)`.
    /// Any layout works; a strided view fills only the elements it sees.
    ///
    /// `value` converts as NumPy 2 stores a Python scalar into the array: a float into an
    /// integer array truncates toward zero (`fill(1.5)` stores 1, `fill(-2.7)` stores -2); an
    /// integer outside the dtype's range, or a float whose truncation is (infinity included), is
    /// an `Overflow` error and NaN a `Value` error; a float too large for a float dtype becomes
    /// infinity; a complex value into a real array is a `DType` error (NumPy raises
    /// `TypeError`: the imaginary part is never dropped silently), and into a bool array tests
    /// against zero.
    pub fn fill(&self, value: impl Into<Scalar>) -> Result<()> {
        let bytes = fill_value_bytes(value.into(), self.dtype)?;
        if self.size() == 0 {
            return Ok(());
        }
        self.fill_bytes(&bytes)
    }

    /// Write `v` (one element of this array's dtype) to every element.
    pub(crate) fn fill_bytes(&self, v: &[u8]) -> Result<()> {
        let (device, shape, dtype) = (&self.storage.device, self.shape(), self.dtype);
        let src = if crate::exec::target_of(device).prebuilt_loops() {
            Some(Array::from_bytes_on(device, &[], dtype, v)?.broadcast_to(shape)?)
        } else {
            None
        };
        let lp = copy_loop(dtype);
        let input = match &src {
            Some(a) => EwIn::Array(a),
            None => EwIn::Value(v),
        };
        let scalars = src.is_none() as u8;
        launch_elementwise(
            "full",
            |layout, index| KernelKey::Ufunc {
                op: "copy",
                sig: lp.sig,
                storage: DTypes::new("full", &[dtype, dtype]).expect("two operands"),
                scalars,
                layout,
                index,
            },
            |layout, index| {
                let mut s = xp_kernels::elementwise::loop_spec(&xp_kernels::ops::COPY, lp, layout, index);
                s.inputs[0].scalar = scalars == 1;
                s
            },
            &[input],
            &[self],
        )
    }

    // ---- to the host -----------------------------------------------------------------------

    /// The elements in C order as bytes. Waits for the work queued on the array on every
    /// stream, not only the current one: a host read is always of finished work, whichever
    /// stream wrote the array (a stricter rule than CUDA's and CuPy's, which read after the
    /// current stream alone).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.storage.buffer_because(Reason::HostRead)?.order_after_users(&current_stream(&self.storage.device))?;
        let a = self.ascontiguous()?;
        let mut out = crate::creation::host_vec::<u8>(a.nbytes())?;
        out.resize(a.nbytes(), 0);
        if !out.is_empty() {
            let stream = current_stream(&a.storage.device);
            stream.copy_to_host(a.storage.buffer()?, a.layout.offset() * a.itemsize(), &mut out)?;
            stream.synchronize()?;
        }
        Ok(out)
    }

    /// The elements in C order, converted to `T`'s dtype first when it differs (NumPy's
    /// `astype` rules).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let a = if self.dtype == T::DTYPE { self.clone() } else { self.astype(T::DTYPE)? };
        Ok(from_bytes(&a.to_bytes()?))
    }

    /// The single element of a one-element array, converted to `T`.
    pub fn item<T: Element>(&self) -> Result<T> {
        if self.size() != 1 {
            return Err(Error::value(
                "item",
                format!("can only convert an array of size 1 to a Rust scalar (shape {:?})", self.shape()),
            ));
        }
        Ok(self.to_vec::<T>()?[0])
    }

    /// The single element as a [`Scalar`].
    pub fn item_scalar(&self) -> Result<Scalar> {
        if self.size() != 1 {
            return Err(Error::value("item", format!("the array has {} elements, not one", self.size())));
        }
        scalar_from_bytes(&self.to_bytes()?, self.dtype)
    }

    /// The same elements on `device`. Between two GPUs of one backend the copy goes from
    /// device to device (directly when they can reach each other's memory, else staged by the
    /// driver), asynchronously: it is queued on the current stream of this array's device after
    /// the work queued there, and the current stream of `device` waits for it. Other pairs
    /// (the CPU and a GPU, two backends) copy through the host.
    pub fn to_device(&self, device: &Arc<dyn DynDevice>) -> Result<Array> {
        if Arc::ptr_eq(device, &self.storage.device) {
            return Ok(self.clone());
        }
        let (from, to) = (&self.storage.device, device);
        if !from.properties().is_host && !to.properties().is_host && from.backend_name() == to.backend_name() {
            let src = self.ascontiguous()?;
            let out = Array::empty_on(device, self.shape(), self.dtype)?;
            let bytes = self.nbytes();
            let offset = src.layout.offset() * self.itemsize();
            let (src_stream, dst_stream) = (current_stream(from), current_stream(to));
            let (from_buf, to_buf) = (src.storage.buffer()?, out.storage.buffer_for_write()?);
            if src_stream.copy_peer(from_buf, offset, &dst_stream, to_buf, 0, bytes)? {
                return Ok(out);
            }
        }
        Array::from_bytes_on(device, self.shape(), self.dtype, &self.to_bytes()?)
    }

    // ---- views -----------------------------------------------------------------------------

    /// Basic indexing: integers, ranges with steps (negative too), new axes, an ellipsis.
    pub fn slice(&self, args: &[SliceArg]) -> Result<Array> {
        Ok(self.with_layout(self.layout.slice("slice", args)?))
    }

    /// Dimensions reordered (`axes` as NumPy's `transpose(axes)`).
    pub fn permute(&self, axes: &[isize]) -> Result<Array> {
        Ok(self.with_layout(self.layout.permute("transpose", axes)?))
    }

    /// Dimensions reversed (`a.T`).
    pub fn t(&self) -> Array {
        self.with_layout(self.layout.transposed())
    }

    /// `transpose` with optional axes (reversed when `None`).
    pub fn transpose(&self, axes: Option<&[isize]>) -> Result<Array> {
        match axes {
            Some(ax) => self.permute(ax),
            None => Ok(self.t()),
        }
    }

    /// A read-only-in-spirit view repeating elements to `shape` (zero strides).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        Ok(self.with_layout(self.layout.broadcast_to("broadcast_to", shape)?))
    }

    /// The same elements with `shape` (one extent may be `-1`): a view when the layout allows,
    /// else a copy.
    pub fn reshape(&self, shape: &[isize]) -> Result<Array> {
        let shape = resolve_shape("reshape", shape, self.size(), self.shape())?;
        match self.layout.reshaped(&shape) {
            Some(l) => Ok(self.with_layout(l)),
            None => {
                let c = self.copy()?;
                Ok(c.with_layout(c.layout.reshaped(&shape).expect("a contiguous copy reshapes")))
            }
        }
    }

    /// Remove extent-1 dimensions (`axes`: which; all when `None`).
    pub fn squeeze(&self, axes: Option<&[isize]>) -> Result<Array> {
        Ok(self.with_layout(self.layout.squeeze("squeeze", axes)?))
    }

    /// Insert an extent-1 dimension at `axis`.
    pub fn expand_dims(&self, axis: isize) -> Result<Array> {
        Ok(self.with_layout(self.layout.expand_dims("expand_dims", axis)?))
    }

    /// The elements as 1-d (a view when contiguous).
    pub fn ravel(&self) -> Result<Array> {
        self.reshape(&[-1])
    }

    // ---- copies and casts ------------------------------------------------------------------

    /// A C-contiguous copy.
    pub fn copy(&self) -> Result<Array> {
        let out = Array::empty_on(&self.storage.device, self.shape(), self.dtype)?;
        self.copy_into(&out)?;
        Ok(out)
    }

    /// `self` when C-contiguous, else a contiguous copy.
    pub fn ascontiguous(&self) -> Result<Array> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.copy()
        }
    }

    /// Copy (with conversion) the elements into `out`, broadcasting `self` to `out`'s shape.
    pub fn copy_into(&self, out: &Array) -> Result<()> {
        let src = if self.shape() == out.shape() { self.clone() } else { self.broadcast_to(out.shape())? };
        if self.dtype == out.dtype && self.transpose_copy_into(&src, out)? {
            return Ok(());
        }
        if self.dtype == out.dtype {
            let lp = copy_loop(self.dtype);
            let d = self.dtype;
            launch_elementwise(
                "copy",
                |layout, index| KernelKey::Ufunc {
                    op: "copy",
                    sig: lp.sig,
                    storage: DTypes::new("copy", &[d, d]).expect("two operands"),
                    scalars: 0,
                    layout,
                    index,
                },
                |layout, index| xp_kernels::elementwise::loop_spec(&xp_kernels::ops::COPY, lp, layout, index),
                &[EwIn::Array(&src)],
                &[out],
            )
        } else {
            let (from, to) = (self.dtype, out.dtype);
            launch_elementwise(
                "astype",
                |layout, index| KernelKey::Cast { from, to, layout, index },
                |layout, index| cast_spec(from, to, layout, index),
                &[EwIn::Array(&src)],
                &[out],
            )
        }
    }

    /// Copy `src` (of `out`'s shape and dtype) into a C-contiguous `out` with the tiled
    /// transpose kernel when `src` is, after merging dimensions, a 2-d view whose rows are
    /// strided and columns contiguous. Returns whether it did.
    fn transpose_copy_into(&self, src: &Array, out: &Array) -> Result<bool> {
        if !out.is_contiguous() || src.size() < 4096 || !Arc::ptr_eq(&src.storage.device, &out.storage.device) {
            return Ok(false);
        }
        let (shape, st) =
            xp_kernels::elementwise::collapse(src.shape(), &[src.strides().to_vec(), out.strides().to_vec()]);
        if shape.len() != 2 || st[0][0] != 1 || st[0][1] == 0 || st[1] != [shape[1] as isize, 1] {
            return Ok(false);
        }
        let dev = out.device_arc();
        let Some(launch) = xp_kernels::transpose::plan_transpose_copy(
            self.itemsize(),
            shape[0],
            shape[1],
            st[0][0],
            st[0][1],
            crate::exec::target_of(&dev),
        ) else {
            return Ok(false);
        };
        crate::exec::run_launches(
            &dev,
            std::slice::from_ref(&launch),
            crate::exec::Bindings { input: Some(src), output: Some(out), scratch: None, operands: &[] },
        )?;
        Ok(true)
    }

    /// A copy converted to `dtype` (NumPy's `astype`). Float → integer is NumPy's on x86-64
    /// where NumPy defines it (truncation, and within the int64 range a wrap to the target's
    /// width: -1.0 to uint32 is 4294967295), and where NumPy's result is undefined (NaN,
    /// infinities, beyond int64) one answer on every backend: NaN gives 0, the others
    /// saturate to the target's range ([`crate::promote::float_to_int`]).
    ///
    /// The result keeps `self`'s memory order (NumPy's default `order='K'`: an F-ordered
    /// array gives an F-ordered copy); [`Array::astype_order`] chooses it.
    ///
    /// To another dtype the result is pending when lazy fusion is on ([`crate::lazy`]).
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        self.astype_order(dtype, crate::Order::K)
    }
}

/// The bytes of `value` stored into an array of `dtype` by [`Array::fill`], with NumPy's checks.
fn fill_value_bytes(value: Scalar, dtype: DType) -> Result<Vec<u8>> {
    let op = "fill";
    match value {
        Scalar::Complex(..) if dtype != DType::Bool && !dtype.is_complex() => {
            return Err(Error::DType {
                op: op.into(),
                reason: format!("a complex value cannot be stored in a {dtype} array"),
            });
        }
        Scalar::Int(i) => check_int_fits(op, i, dtype)?,
        Scalar::Float(f) => {
            if let Some((lo, hi)) = int_range(dtype) {
                if f.is_nan() {
                    return Err(Error::value(op, format!("cannot convert float NaN to {dtype}")));
                }
                // `hi as f64 + 1.0` is exact or rounds to `hi as f64` itself (a power of two
                // above the int64 and uint64 maxima), so `<` accepts exactly the values that fit.
                let t = f.trunc();
                if !(t >= lo as f64 && t < hi as f64 + 1.0) {
                    return Err(Error::Overflow { op: op.into(), reason: format!("{f} is out of bounds for {dtype}") });
                }
            }
        }
        _ => {}
    }
    scalar_bytes(value, dtype).map(|b| b.to_vec())
}

fn copy_loop(d: DType) -> &'static xp_kernels::ops::TypeLoop {
    let c = xp_kernels::ops::char_of_dtype(d);
    xp_kernels::ops::COPY.loops.iter().find(|l| l.sig.starts_with(c)).expect("copy has a loop for every dtype")
}

/// A shape with at most one `-1`, resolved for `size` elements.
pub(crate) fn resolve_shape(op: &str, shape: &[isize], size: usize, from: &[usize]) -> Result<Vec<usize>> {
    let unknown = shape.iter().filter(|&&d| d == -1).count();
    if unknown > 1 || shape.iter().any(|&d| d < -1) {
        return Err(Error::value(
            op,
            format!("can only specify one unknown dimension and no negative ones: {shape:?}"),
        ));
    }
    let known: Vec<usize> = shape.iter().filter(|&&d| d >= 0).map(|&d| d as usize).collect();
    let k = checked_size(op, &known)?;
    let mismatch =
        || Error::value(op, format!("cannot reshape an array of shape {from:?} (size {size}) into shape {shape:?}"));
    if unknown == 1 {
        if k == 0 || !size.is_multiple_of(k) {
            return Err(mismatch());
        }
        Ok(shape.iter().map(|&d| if d == -1 { size / k } else { d as usize }).collect())
    } else {
        if k != size {
            return Err(mismatch());
        }
        Ok(known)
    }
}
