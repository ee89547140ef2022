//! Sparse products on AMD GPUs: the contract's [`SparseLib`] over rocSPARSE's generic API.
//!
//! # The library
//! rocSPARSE is ROCm's sparse matrix library. Like rocBLAS, it is opened with `libloading` and
//! called through a table of function pointers ([`sys::RocSparse`], declared from ROCm 5.3's
//! `rocsparse/rocsparse-types.h`, `rocsparse-auxiliary.h` and `rocsparse-functions.h`): no
//! crate binds it, and nothing is linked at build time. It is looked for as
//! `librocsparse.so.0` (ROCm 5, Debian's `librocsparse0`), `.so.1` (ROCm 6 and 7), `.so` in
//! `XP_ROCSPARSE_PATH` (the file, or a folder holding it), `$ROCM_PATH/lib`, `/opt/rocm/lib`,
//! then on the loader path (see the `sys` module), once per process, when a device's sparse
//! library is first asked for. A library that lacks one of the ten functions called here is
//! refused when it is opened, naming the function. A missing library is
//! [`Error::BackendUnavailable`] naming `librocsparse`, the places tried and how to install
//! it, and nothing panics; `xp::sparse` then uses its own kernels.
//!
//! # SpGEMM
//! One rocSPARSE handle per device, created on first use with the device current
//! (`hipSetDevice`), its version read from it (`rocsparse_get_version`, which needs a handle),
//! kept under a lock while it is bound to the caller's stream (`rocsparse_set_stream`) and the
//! product is queued, in host pointer mode (`rocsparse_set_pointer_mode`). `C = A · B` is
//! `rocsparse_spgemm` with `rocsparse_operation_none` on both sides and
//! `rocsparse_spgemm_alg_default`, in three stages:
//! 1. `rocsparse_spgemm_stage_buffer_size`: the size of the work buffer, which then comes from
//!    xp's pool on the caller's stream;
//! 2. `rocsparse_spgemm_stage_nnz`: fills C's row pointers and C's number of entries, read with
//!    `rocsparse_spmat_get_size` (rocSPARSE waits for the stream to read it);
//! 3. C's column indices and values come from the pool, are attached with
//!    `rocsparse_csr_set_pointers`, and `rocsparse_spgemm_stage_compute` fills them.
//!
//! `alpha` is 1 in the value type (a complex one is two floats or two doubles), a host value;
//! `beta` is a null pointer, which rocSPARSE reads as "no `D` term" (`C = alpha · A · B`). The
//! API still requires a `D` descriptor of the same format and types: an `m × n` CSR matrix with
//! no entries, over C's row pointers, which rocSPARSE does not read without `beta`.
//!
//! | xp            | rocSPARSE                                         |
//! |---------------|---------------------------------------------------|
//! | `int32` index | `rocsparse_indextype_i32` (row pointers and columns) |
//! | `int64` index | `rocsparse_indextype_i64` (row pointers and columns) |
//! | float32       | `rocsparse_datatype_f32_r`                        |
//! | float64       | `rocsparse_datatype_f64_r`                        |
//! | complex64     | `rocsparse_datatype_f32_c`                        |
//! | complex128    | `rocsparse_datatype_f64_c`                        |
//!
//! Values are computed in their own type; the index base is zero. C's column indices are
//! sorted; entries that cancel stay (the caller removes them). A product with nothing to
//! multiply (`A` or `B` without entries, or a dimension 0) is not handed to rocSPARSE: C's
//! row pointers are written with zeros from the host on the caller's stream and its indices
//! and values are empty buffers (1 byte from the pool). Every status other than success is
//! [`Error::Driver`] with rocSPARSE's name of the code (`rocsparse_status_invalid_size`);
//! `rocsparse_status_memory_error` says that memory ran out.
//!
//! # Not run here
//! There was no AMD GPU where this was written: rocSPARSE's kernels never executed, and no
//! product has run. The declarations and enum values were checked against ROCm 5.3's headers
//! (Debian's `librocsparse-dev` 5.3.0), and a test opens Debian's `librocsparse.so.0` and
//! resolves every declared symbol (no function of it is called: even `rocsparse_get_version`
//! needs a handle, and a handle needs a GPU).

use std::ffi::c_void;
use std::sync::Arc;

use parking_lot::Mutex;
use xp_backend_api::gpu::GpuTarget;
use xp_backend_api::gpu::LibraryOperand;
use xp_backend_api::library::VendorHandle;
use xp_backend_api::sparse::{check_spgemm, CsrBuffers, CsrDesc, CsrProduct, SparseLib};
use xp_backend_api::{Buffer, DType, DeviceProperties, Error, MemoryPool, Result, Stream};

use crate::blas::device_handle;
use crate::stream::HipStream;
use crate::{result, sys};

/// rocSPARSE's name of a status code.
fn status_name(code: i64) -> String {
    let suffix = match code {
        0 => "success",
        1 => "invalid_handle",
        2 => "not_implemented",
        3 => "invalid_pointer",
        4 => "invalid_size",
        5 => "memory_error",
        6 => "internal_error",
        7 => "invalid_value",
        8 => "arch_mismatch",
        9 => "zero_pivot",
        10 => "not_initialized",
        11 => "type_mismatch",
        12 => "requires_sorted_storage",
        _ => return format!("rocsparse_status {code}"),
    };
    format!("rocsparse_status_{suffix}")
}

/// `Ok` for `rocsparse_status_success`, else the [`Error::Driver`] of `api`.
fn check(api: &str, r: sys::rocsparse_status, detail: impl FnOnce() -> String) -> Result<()> {
    if r == sys::rocsparse_status_success {
        return Ok(());
    }
    let mut detail = detail();
    if r == sys::rocsparse_status_memory_error {
        if !detail.is_empty() {
            detail.push_str("; ");
        }
        detail.push_str("rocSPARSE could not allocate device memory");
    }
    Err(Error::Driver { api: api.to_string(), code: r as i64, name: status_name(r as i64), detail })
}

/// `major.minor.patch` of the number `rocsparse_get_version` writes
/// (`major * 100000 + minor * 100 + patch`).
fn version_string(v: i32) -> String {
    format!("{}.{}.{}", v / 100_000, v / 100 % 1000, v % 100)
}

/// rocSPARSE's version read through `h`, a live handle.
fn handle_version(lib: &sys::RocSparse, h: sys::rocsparse_handle) -> Result<String> {
    let mut v = 0;
    // SAFETY: `h` is a live handle of the loaded rocSPARSE; the call writes one int through a
    // valid pointer.
    check("rocsparse_get_version", unsafe { (lib.rocsparse_get_version)(h, &mut v) }, String::new)?;
    Ok(version_string(v))
}

/// rocSPARSE's version (`2.2.0`), read through a handle made for it on device `ordinal`
/// (rocSPARSE gives its version only through a handle, so this needs a GPU).
pub(crate) fn rocsparse_version(ordinal: usize) -> Result<String> {
    let lib = &sys::rocsparse()?.api;
    result::set_device(ordinal)?;
    let mut h: sys::rocsparse_handle = std::ptr::null_mut();
    // SAFETY: rocSPARSE is loaded; the device is current; `h` is a valid out-pointer.
    check("rocsparse_create_handle", unsafe { (lib.rocsparse_create_handle)(&mut h) }, || format!("on hip:{ordinal}"))?;
    let v = handle_version(lib, h);
    // SAFETY: `h` was created just above, has queued nothing, and is destroyed once, here.
    let destroyed = check("rocsparse_destroy_handle", unsafe { (lib.rocsparse_destroy_handle)(h) }, String::new);
    let v = v?;
    destroyed.map(|_| v)
}

/// rocSPARSE's index type and value type for matrices of `index` indices and `dtype` values,
/// when SpGEMM takes them.
fn spgemm_types(index: DType, dtype: DType) -> Option<(sys::rocsparse_indextype, sys::rocsparse_datatype)> {
    let i = match index {
        DType::I32 => sys::rocsparse_indextype_i32,
        DType::I64 => sys::rocsparse_indextype_i64,
        _ => return None,
    };
    let v = match dtype {
        DType::F32 => sys::rocsparse_datatype_f32_r,
        DType::F64 => sys::rocsparse_datatype_f64_r,
        DType::C64 => sys::rocsparse_datatype_f32_c,
        DType::C128 => sys::rocsparse_datatype_f64_c,
        _ => return None,
    };
    Some((i, v))
}

/// The scalar 1 of `dtype` as host bytes: a complex one is (1, 0) of its real type.
fn one(dtype: DType) -> Vec<u8> {
    match dtype {
        DType::F32 => 1f32.to_le_bytes().to_vec(),
        DType::F64 => 1f64.to_le_bytes().to_vec(),
        DType::C64 => [1f32.to_le_bytes(), 0f32.to_le_bytes()].concat(),
        DType::C128 => [1f64.to_le_bytes(), 0f64.to_le_bytes()].concat(),
        _ => Vec::new(),
    }
}

/// Whether `A · B` has no entry whatever the values: rocSPARSE is not called then.
fn product_is_empty(a: &CsrDesc, b: &CsrDesc) -> bool {
    a.nnz == 0 || b.nnz == 0 || a.rows == 0 || b.cols == 0 || a.cols == 0
}

/// Sparse matrix descriptors, destroyed when dropped.
struct Descriptors<'l> {
    lib: &'l sys::RocSparse,
    mats: Vec<sys::rocsparse_spmat_descr>,
}

impl Descriptors<'_> {
    /// A new CSR descriptor over device addresses (or null for arrays not yet allocated).
    fn csr(
        &mut self,
        (rows, cols, nnz): (usize, usize, usize),
        indptr: *mut c_void,
        indices: *mut c_void,
        data: *mut c_void,
        index: sys::rocsparse_indextype,
        value: sys::rocsparse_datatype,
    ) -> Result<sys::rocsparse_spmat_descr> {
        let mut m: sys::rocsparse_spmat_descr = std::ptr::null_mut();
        // SAFETY: `m` is a valid out-pointer; the descriptor only records the addresses, which
        // are device addresses of the matrix's arrays (spans checked by the caller) or null for
        // arrays attached later.
        let r = unsafe {
            (self.lib.rocsparse_create_csr_descr)(
                &mut m,
                rows as i64,
                cols as i64,
                nnz as i64,
                indptr,
                indices,
                data,
                index,
                index,
                sys::rocsparse_index_base_zero,
                value,
            )
        };
        check("rocsparse_create_csr_descr", r, || format!("{rows}×{cols} with {nnz} entries"))?;
        self.mats.push(m);
        Ok(m)
    }
}

impl Drop for Descriptors<'_> {
    fn drop(&mut self) {
        for m in &self.mats {
            // SAFETY: each descriptor was created by rocsparse_create_csr_descr and is destroyed
            // once, here; destroying one frees host memory only.
            unsafe { (self.lib.rocsparse_destroy_spmat_descr)(*m) };
        }
    }
}

/// rocSPARSE on one device.
pub struct RocSparseLib {
    sparse: &'static sys::RocSparse,
    /// The handle; its lock is held while it is bound to a stream and a product is queued.
    handle: Mutex<VendorHandle<sys::rocsparse_handle>>,
    ordinal: usize,
    label: String,
    props: Arc<DeviceProperties>,
    pool: Arc<MemoryPool>,
    version: String,
}

impl RocSparseLib {
    /// rocSPARSE for device `ordinal`, or [`Error::BackendUnavailable`] naming `librocsparse`.
    pub(crate) fn open(ordinal: usize, props: Arc<DeviceProperties>, pool: Arc<MemoryPool>) -> Result<Self> {
        let lib = sys::rocsparse()?;
        result::set_device(ordinal)?;
        let mut h: sys::rocsparse_handle = std::ptr::null_mut();
        // SAFETY: rocSPARSE is loaded; the device is current, so the handle belongs to it; `h`
        // is a valid out-pointer.
        check("rocsparse_create_handle", unsafe { (lib.api.rocsparse_create_handle)(&mut h) }, || {
            format!("on hip:{ordinal}")
        })?;
        let sparse = &lib.api;
        let destroy = move |h| {
            // SAFETY: the handle is live and destroyed once, here; rocSPARSE waits for the work
            // queued with it before releasing its memory.
            check("rocsparse_destroy_handle", unsafe { (sparse.rocsparse_destroy_handle)(h) }, String::new)
        };
        // SAFETY: `h` was created just above, on device `ordinal`, and only the library value
        // destroys it, with `destroy`; a rocSPARSE handle may be used from any host thread with
        // its device current, and the value keeps it behind a lock, so one thread at a time
        // binds it to a stream and queues.
        let handle = unsafe { device_handle(h, ordinal, &pool, destroy) };
        let mut lib = RocSparseLib {
            sparse,
            handle: Mutex::new(handle),
            ordinal,
            label: format!("hip:{ordinal}"),
            props,
            pool,
            version: String::new(),
        };
        // On error the handle is destroyed by `Drop`.
        lib.version = handle_version(lib.sparse, h)?;
        Ok(lib)
    }

    fn target(&self) -> GpuTarget<'_> {
        GpuTarget::new("hip", "HIP", self.ordinal, &self.label, &self.props, &self.pool)
    }
}

impl SparseLib for RocSparseLib {
    fn name(&self) -> String {
        format!("rocSPARSE {}", self.version)
    }

    fn supports_spgemm(&self, index: DType, dtype: DType) -> bool {
        spgemm_types(index, dtype).is_some()
    }

    fn spgemm(
        &self,
        (ad, ab): (&CsrDesc, CsrBuffers<'_>),
        (bd, bb): (&CsrDesc, CsrBuffers<'_>),
        stream: &Arc<dyn Stream>,
    ) -> Result<CsrProduct> {
        check_spgemm(self, ad, bd)?;
        let (it, vt) = spgemm_types(ad.index, ad.dtype).expect("checked by check_spgemm");
        let (isz, vsz) = (ad.index.size(), ad.dtype.size());
        let ops = [
            LibraryOperand::read("A indptr", ab.indptr, isz, ad.rows + 1),
            LibraryOperand::read("A indices", ab.indices, isz, ad.nnz),
            LibraryOperand::read("A data", ab.data, vsz, ad.nnz),
            LibraryOperand::read("B indptr", bb.indptr, isz, bd.rows + 1),
            LibraryOperand::read("B indices", bb.indices, isz, bd.nnz),
            LibraryOperand::read("B data", bb.data, vsz, bd.nnz),
        ];
        let (s, p) =
            self.target().open_library_call::<HipStream, 6>("rocSPARSE SpGEMM", stream, |s| s.ordinal(), ops)?;
        let (m, n) = (ad.rows, bd.cols);
        let indptr = self.pool.alloc((m + 1) * isz, stream)?;
        let empty = |indptr: Buffer| -> Result<CsrProduct> {
            stream.copy_from_host(&indptr, 0, &vec![0u8; (m + 1) * isz])?;
            Ok(CsrProduct { nnz: 0, indptr, indices: self.pool.alloc(1, stream)?, data: self.pool.alloc(1, stream)? })
        };
        if product_is_empty(ad, bd) {
            return empty(indptr);
        }
        let ptr = |a: u64| a as usize as *mut c_void;
        let label = || format!("on {}", self.label);
        let f = self.sparse;
        result::set_device(self.ordinal)?;
        let guard = self.handle.lock();
        let h = guard.raw();
        // SAFETY: `h` is a live handle of this device, which is current; the stream is a live
        // stream of the same device (checked by `open_library_call`), kept alive by the
        // caller's `Arc` for the call.
        check("rocsparse_set_stream", unsafe { (f.rocsparse_set_stream)(h, s.handle().raw()) }, label)?;
        // SAFETY: a live handle; host pointer mode: `alpha` below is a host value.
        let r = unsafe { (f.rocsparse_set_pointer_mode)(h, sys::rocsparse_pointer_mode_host) };
        check("rocsparse_set_pointer_mode", r, label)?;
        let mut d = Descriptors { lib: f, mats: Vec::new() };
        let ma = d.csr((ad.rows, ad.cols, ad.nnz), ptr(p[0]), ptr(p[1]), ptr(p[2]), it, vt)?;
        let mb = d.csr((bd.rows, bd.cols, bd.nnz), ptr(p[3]), ptr(p[4]), ptr(p[5]), it, vt)?;
        let null = std::ptr::null_mut();
        let mc = d.csr((m, n, 0), ptr(indptr.device_ptr()), null, null, it, vt)?;
        // `D`: required by the API, unread without `beta`.
        let md = d.csr((m, n, 0), ptr(indptr.device_ptr()), null, null, it, vt)?;
        let alpha = one(ad.dtype);
        let (op, alg) = (sys::rocsparse_operation_none, sys::rocsparse_spgemm_alg_default);
        let spgemm = |stage: sys::rocsparse_spgemm_stage, size: &mut usize, buffer: *mut c_void| {
            // SAFETY: the handle is bound to the stream, in host pointer mode; the descriptors
            // are live, of one format, index type and value type `vt`, over device arrays of
            // this device whose spans were checked (A, B) or were allocated for them (C);
            // `alpha` is a host value of `vt`, read before the call returns; a null `beta`
            // leaves `D` unread; `size` is a valid pointer; `buffer` is null or a pool buffer
            // of at least the size rocSPARSE asked for, allocated on this stream, which keeps
            // it until its work on it ends (stream-ordered pool).
            let r = unsafe {
                (f.rocsparse_spgemm)(
                    h,
                    op,
                    op,
                    alpha.as_ptr().cast(),
                    ma,
                    mb,
                    std::ptr::null(),
                    md,
                    mc,
                    vt,
                    alg,
                    stage,
                    size,
                    buffer,
                )
            };
            check("rocsparse_spgemm", r, || format!("{ad:?} · {bd:?} (stage {stage}) on {}", self.label))
        };
        let mut size = 0usize;
        spgemm(sys::rocsparse_spgemm_stage_buffer_size, &mut size, null)?;
        let work = self.pool.alloc(size.max(1), stream)?;
        spgemm(sys::rocsparse_spgemm_stage_nnz, &mut size, ptr(work.device_ptr()))?;
        let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
        // SAFETY: `mc` is a live descriptor; the call writes three integers through valid
        // pointers.
        let r = unsafe { (f.rocsparse_spmat_get_size)(mc, &mut rows, &mut cols, &mut nnz) };
        check("rocsparse_spmat_get_size", r, label)?;
        let nnz = usize::try_from(nnz).unwrap_or(0);
        if nnz == 0 {
            work.note_use(stream);
            drop(d);
            return empty(indptr);
        }
        let indices = self.pool.alloc(nnz * isz, stream)?;
        let data = self.pool.alloc(nnz * vsz, stream)?;
        // SAFETY: `mc` is live; the three addresses are C's arrays in this device's pool, of
        // `m + 1` and `nnz` entries of the index type and `nnz` values.
        let r = unsafe {
            (f.rocsparse_csr_set_pointers)(
                mc,
                ptr(indptr.device_ptr()),
                ptr(indices.device_ptr()),
                ptr(data.device_ptr()),
            )
        };
        check("rocsparse_csr_set_pointers", r, label)?;
        spgemm(sys::rocsparse_spgemm_stage_compute, &mut size, ptr(work.device_ptr()))?;
        for b in [&work, &indptr, &indices, &data] {
            b.note_use(stream);
        }
        drop(d);
        Ok(CsrProduct { nnz, indptr, indices, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xp_backend_api::null::NullDevice;
    use xp_backend_api::Device;

    #[test]
    fn statuses_carry_rocsparse_names_and_out_of_memory_says_so() {
        assert_eq!(status_name(4), "rocsparse_status_invalid_size");
        assert_eq!(status_name(12), "rocsparse_status_requires_sorted_storage");
        assert_eq!(status_name(99), "rocsparse_status 99");
        match check("rocsparse_spgemm", sys::rocsparse_status_memory_error, || "A · B".into()) {
            Err(Error::Driver { api, name, detail, code }) => {
                assert_eq!(
                    (api.as_str(), name.as_str(), code),
                    ("rocsparse_spgemm", "rocsparse_status_memory_error", 5)
                );
                assert!(detail.starts_with("A · B; ") && detail.contains("memory"), "{detail}");
            }
            other => panic!("expected Error::Driver, got {other:?}"),
        }
        match check("rocsparse_spgemm", sys::rocsparse_status_type_mismatch, String::new) {
            Err(Error::Driver { name, code, .. }) => {
                assert_eq!((name.as_str(), code), ("rocsparse_status_type_mismatch", 11))
            }
            other => panic!("expected Error::Driver, got {other:?}"),
        }
        assert!(check("rocsparse_spgemm", sys::rocsparse_status_success, String::new).is_ok());
    }

    #[test]
    fn versions_decode_as_the_header_says() {
        // rocSPARSE 2.2.0 (ROCm 5.3): 2 * 100000 + 2 * 100 + 0.
        assert_eq!(version_string(200_200), "2.2.0");
        assert_eq!(version_string(300_412), "3.4.12");
    }

    #[test]
    fn spgemm_takes_32_and_64_bit_indices_and_four_value_types() {
        let want = [
            (DType::F32, sys::rocsparse_datatype_f32_r),
            (DType::F64, sys::rocsparse_datatype_f64_r),
            (DType::C64, sys::rocsparse_datatype_f32_c),
            (DType::C128, sys::rocsparse_datatype_f64_c),
        ];
        for (index, it) in [(DType::I32, 2), (DType::I64, 3)] {
            for (dtype, vt) in want {
                assert_eq!(spgemm_types(index, dtype), Some((it, vt)), "{index:?} {dtype:?}");
                assert_eq!(one(dtype).len(), dtype.size(), "{dtype:?}");
            }
        }
        for dtype in DType::ALL {
            let supported = want.iter().any(|(d, _)| *d == dtype);
            assert_eq!(spgemm_types(DType::I32, dtype).is_some(), supported, "{dtype:?}");
            if !matches!(dtype, DType::I32 | DType::I64) {
                assert_eq!(spgemm_types(dtype, DType::F32), None, "{dtype:?} indices");
            }
        }
        assert_eq!(one(DType::C128), [1f64.to_le_bytes(), 0f64.to_le_bytes()].concat());
    }

    #[test]
    fn products_without_entries_are_not_handed_to_rocsparse() {
        let d = |rows, cols, nnz| CsrDesc { rows, cols, nnz, index: DType::I32, dtype: DType::F32 };
        assert!(!product_is_empty(&d(3, 4, 2), &d(4, 5, 1)));
        assert!(product_is_empty(&d(3, 4, 0), &d(4, 5, 1)));
        assert!(product_is_empty(&d(3, 4, 2), &d(4, 5, 0)));
        assert!(product_is_empty(&d(0, 4, 0), &d(4, 5, 1)));
        assert!(product_is_empty(&d(3, 0, 0), &d(0, 5, 0)));
        assert!(product_is_empty(&d(3, 4, 2), &d(4, 0, 0)));
    }

    #[test]
    fn without_rocsparse_or_a_gpu_opening_is_an_error_and_never_panics() {
        let dev = NullDevice::new(1 << 20, None).unwrap();
        let (props, pool) = (Arc::new(Device::properties(&dev).clone()), Arc::clone(Device::memory_pool(&dev)));
        let opened =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| RocSparseLib::open(0, props, pool).map(|_| ())));
        match (sys::rocsparse(), opened.expect("opening rocSPARSE must not panic")) {
            (Err(_), Err(Error::BackendUnavailable { backend, reason })) => {
                assert_eq!(backend, "hip");
                assert!(reason.contains("librocsparse") && reason.contains("XP_ROCSPARSE_PATH"), "{reason}");
            }
            (Err(_), other) => panic!("expected BackendUnavailable, got {:?}", other.err()),
            // rocSPARSE is installed: opening then needs an AMD GPU, and fails or not without
            // panicking (checked by `expect` above).
            (Ok(_), _) => {}
        }
    }

    #[test]
    fn arguments_are_checked_before_rocsparse_is_called() {
        // A library value with no handle: every call below must be refused before the handle
        // is used, so no rocSPARSE function runs (there is no AMD GPU here).
        let Ok(lib) = sys::rocsparse() else {
            eprintln!("SKIPPED arguments_are_checked_before_rocsparse_is_called: rocSPARSE could not be loaded");
            return;
        };
        let dev = NullDevice::new(1 << 20, None).unwrap();
        let pool = Arc::clone(Device::memory_pool(&dev));
        let sparse = RocSparseLib {
            sparse: &lib.api,
            handle: Mutex::new(VendorHandle::null()),
            ordinal: 0,
            label: "hip:0".into(),
            props: Arc::new(Device::properties(&dev).clone()),
            pool: Arc::clone(&pool),
            version: "2.2.0".into(),
        };
        assert_eq!(sparse.name(), "rocSPARSE 2.2.0");
        assert!(sparse.supports_spgemm(DType::I64, DType::C64) && !sparse.supports_spgemm(DType::I32, DType::F16));
        let stream: Arc<dyn Stream> = Device::default_stream(&dev);
        let buf = pool.alloc(64, &stream).unwrap();
        let bufs = CsrBuffers { indptr: (&buf, 0), indices: (&buf, 0), data: (&buf, 0) };
        let d = |rows, cols, index, dtype| CsrDesc { rows, cols, nnz: 1, index, dtype };
        let f32d = |rows, cols| d(rows, cols, DType::I32, DType::F32);
        let e = sparse.spgemm((&f32d(2, 3), bufs), (&f32d(4, 2), bufs), &stream).err().unwrap();
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
        let a = d(2, 3, DType::I32, DType::F16);
        let e = sparse.spgemm((&a, bufs), (&d(3, 2, DType::I32, DType::F16), bufs), &stream).err().unwrap();
        assert!(matches!(&e, Error::UnsupportedDType { detail, .. } if detail.contains("rocSPARSE 2.2.0")), "{e}");
        let e = sparse.spgemm((&f32d(2, 3), bufs), (&d(3, 2, DType::I64, DType::F32), bufs), &stream).err().unwrap();
        assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
        // A stream of another backend.
        let e = sparse.spgemm((&f32d(2, 3), bufs), (&f32d(3, 2), bufs), &stream).err().unwrap();
        assert!(matches!(&e, Error::Value { reason, .. } if reason.contains("HIP")), "{e}");
    }
}
