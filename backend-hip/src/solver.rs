//! Dense solvers on AMD GPUs: the contract's [`Solver`] over rocSOLVER.
//!
//! # The library
//! rocSOLVER is ROCm's LAPACK: column-major, with strided batched versions of the
//! factorisations xp asks for, queued on a rocBLAS handle. Like rocBLAS, it is opened with
//! `libloading` and called through a table of function pointers ([`sys::RocSolver`], declared
//! from ROCm's `rocsolver/rocsolver-functions.h`, one [`sys::RocSolverFns`] per precision): no
//! crate binds it, and nothing is linked at build time. It is looked for as
//! `librocsolver.so.0` (ROCm 5 and 6), `.so.1`, `.so` in `XP_ROCSOLVER_PATH` (the file, or a
//! folder holding it), `$ROCM_PATH/lib`, `/opt/rocm/lib`, then on the loader path (see the
//! `sys` module), once per process, when a device's solvers are first asked for; rocBLAS is
//! opened with it, for the handle. A missing library is [`Error::BackendUnavailable`]
//! naming `librocsolver` (or `librocblas`), the places tried and how to install it, and
//! nothing panics.
//!
//! # Calls
//! One rocBLAS handle per device, created on first use with the device current
//! (`hipSetDevice`), kept under a lock while it is bound to the caller's stream
//! (`rocblas_set_stream`) and a call is queued. The operands are checked by
//! [`open_gpu_solver`] before anything is queued; every matrix is column-major and dense, so
//! its leading dimension is its row count and the batch stride its size. For float32,
//! float64, complex64 and complex128 (`s`, `d`, `c`, `z`):
//! - `Getrf`: `rocsolver_?getrf_strided_batched` (`ipiv` 1-based, stride `n`).
//! - `Getrs`: `rocsolver_?getrs_strided_batched` with `rocblas_operation_none`. It has no
//!   status, so the `info` operand is written with zeros (LAPACK's `getrs` fails only on bad
//!   arguments, refused before the call), copied from the host on the caller's stream
//!   ([`Stream::copy_from_host`]: `hipMemsetAsync` is not among the generated runtime
//!   bindings).
//! - `Potrf`: `rocsolver_?potrf_strided_batched`, `rocblas_fill_lower` or `_upper`.
//! - `Qr`: `rocsolver_?geqrf_strided_batched` in place in `a`, the Householder scalars in a
//!   `tau` workspace from the device's pool; then, for `qcols > 0`, the first `min(qcols, n)`
//!   columns of each matrix of `a` (a contiguous prefix, column-major) are copied to `q`
//!   (`hipMemcpyDtoDAsync`, one copy for the batch when `qcols = n`, else one per matrix) and
//!   `rocsolver_?orgqr` (real) or `rocsolver_?ungqr` (complex) makes them `Q`, one matrix at a
//!   time (rocSOLVER has no batched `orgqr`), with `k = min(m, n)` reflectors (`orgqr` sets
//!   the columns past `k` to the identity's first, so `n = 0` gives them alone). `geqrf` has
//!   no status either: `info` is written with zeros.
//! - `Gesvd`: `rocsolver_?gesvd_strided_batched`, both sides `rocblas_svect_none`
//!   (`ValuesOnly`), `_singular` (`Reduced`) or `_all` (`Full`); `ldu = m`, `ldv = n` (`Full`)
//!   or `min(m, n)`; `rocblas_outofplace` (the faster algorithm, with more of rocBLAS's
//!   workspace); the bidiagonal's off-diagonal `E` (`min(m, n) - 1` reals per matrix) in a
//!   workspace from the pool.
//! - `Syevd`: `rocsolver_?syevd_strided_batched` (real) or `rocsolver_?heevd_strided_batched`
//!   (complex), `rocblas_evect_original` or `_none`, the tridiagonal's `E` (`n` reals per
//!   matrix) from the pool.
//! - `Geev`: rocSOLVER has no general (non-symmetric) eigensolver; [`Solver::supports`] says
//!   so and the call is [`Error::Unsupported`] (the CPU backend computes `eig`).
//!
//! The workspaces are allocated on the caller's stream, which keeps them until the call has
//! run (stream-ordered pool); rocSOLVER's other scratch memory is rocBLAS's handle workspace,
//! outside xp's pool. Matrices with no element are not handed to rocSOLVER: the statuses are
//! written with zeros and nothing else (a full `U` of an empty SVD, an identity, is the array
//! layer's, as LAPACK returns at once there too). `rocblas_int` is 32-bit, so sizes and batch
//! counts above `i32::MAX` are a `Value` error (the strides are 64-bit). Every status other
//! than success is [`Error::Driver`] with rocBLAS's name of the code
//! (`rocblas_status_invalid_size`) and the rocSOLVER function that returned it.
//!
//! # Not run here
//! This code was built, its loader's failure paths and the argument mapping tested, on
//! machines without rocSOLVER or rocBLAS and without an AMD GPU: no call has run against a
//! real rocSOLVER. The declarations and enum values were compared with the text of the
//! headers (rocSOLVER's rocm-5.0.0 and rocm-5.2.0 tags and its development branch after
//! rocm-6.2.2), not checked against a compiled library.

use std::sync::Arc;

use parking_lot::Mutex;
use xp_backend_api::gpu::solver::open_gpu_solver;
use xp_backend_api::gpu::GpuTarget;
use xp_backend_api::library::VendorHandle;
use xp_backend_api::solver::{real_of, solver_supports};
use xp_backend_api::{
    Buffer, DType, DeviceProperties, Error, MemoryPool, Result, Solver, SolverCall, SolverDesc, Stream, SvdJob,
};

use crate::blas::{check, rocblas_handle};
use crate::stream::HipStream;
use crate::{result, sys};

/// rocSOLVER's version string (`3.25.0.abcdef`), after loading it.
pub(crate) fn rocsolver_version() -> Result<String> {
    let lib = sys::rocsolver()?;
    let mut len = 0usize;
    // SAFETY: the call writes one size through a valid pointer; `lib` keeps rocSOLVER open.
    check(
        "rocsolver_get_version_string_size",
        unsafe { (lib.api.rocsolver_get_version_string_size)(&mut len) },
        String::new,
    )?;
    let mut buf = vec![0u8; len.max(1)];
    // SAFETY: `buf` holds `buf.len()` bytes, at least the size rocSOLVER asked for (NUL included).
    let r = unsafe { (lib.api.rocsolver_get_version_string)(buf.as_mut_ptr().cast(), buf.len()) };
    check("rocsolver_get_version_string", r, String::new)?;
    Ok(xp_backend_api::gpu::log_text(&buf))
}

/// Whether rocSOLVER has `call` for `dtype`: every call but `Geev`, in the four precisions.
fn rocsolver_supports(dtype: DType, call: &SolverCall) -> bool {
    solver_supports(dtype) && !matches!(call, SolverCall::Geev { .. } | SolverCall::Getri { .. })
}

/// `Getri` is not declared here: on AMD GPUs `linalg.inv` solves against the identity
/// (`getrs`), which [`Solver::supports`] tells the array layer.
fn no_getri(desc: &SolverDesc) -> Error {
    Error::Unsupported(format!(
        "rocSOLVER {}: xp does not call rocSOLVER's inverse; linalg.inv solves against the identity",
        desc.lapack_name()
    ))
}

/// The error of a call rocSOLVER does not have (`Geev`).
fn no_general_eigensolver(desc: &SolverDesc) -> Error {
    Error::Unsupported(format!(
        "rocSOLVER has no general (non-symmetric) eigensolver ({}): compute eig on the CPU backend",
        desc.lapack_name()
    ))
}

/// The symbols of `dtype`'s precision, in the order of [`sys::RocSolverFns`]' fields.
fn symbols(dtype: DType) -> &'static [&'static str; 7] {
    match dtype {
        DType::F32 => &sys::SYMBOLS_S,
        DType::F64 => &sys::SYMBOLS_D,
        DType::C64 => &sys::SYMBOLS_C,
        _ => &sys::SYMBOLS_Z,
    }
}

// Indices in the `SYMBOLS_*` tables.
const GETRF: usize = 0;
const GETRS: usize = 1;
const POTRF: usize = 2;
const GEQRF: usize = 3;
const ORGQR: usize = 4;
const GESVD: usize = 5;
const SYEVD: usize = 6;

/// The rocSOLVER functions `call` queues for `dtype`, in order (none for `Geev`).
fn entry_points(dtype: DType, call: &SolverCall) -> Vec<&'static str> {
    let s = symbols(dtype);
    match call {
        SolverCall::Getrf { .. } => vec![s[GETRF]],
        SolverCall::Getrs { .. } => vec![s[GETRS]],
        SolverCall::Potrf { .. } => vec![s[POTRF]],
        SolverCall::Qr { .. } => vec![s[GEQRF], s[ORGQR]],
        SolverCall::Gesvd { .. } => vec![s[GESVD]],
        SolverCall::Syevd { .. } => vec![s[SYEVD]],
        SolverCall::Geev { .. } | SolverCall::Getri { .. } => vec![],
    }
}

/// `rocblas_fill_lower` for the lower triangle, else `rocblas_fill_upper`.
fn fill(lower: bool) -> sys::rocblas_fill {
    if lower {
        sys::rocblas_fill_lower
    } else {
        sys::rocblas_fill_upper
    }
}

/// `rocblas_evect_original` with eigenvectors, else `rocblas_evect_none`.
fn evect(vectors: bool) -> sys::rocblas_evect {
    if vectors {
        sys::rocblas_evect_original
    } else {
        sys::rocblas_evect_none
    }
}

/// The `rocblas_svect` of both sides of `gesvd` for `job`.
fn svect(job: SvdJob) -> sys::rocblas_svect {
    match job {
        SvdJob::ValuesOnly => sys::rocblas_svect_none,
        SvdJob::Reduced => sys::rocblas_svect_singular,
        SvdJob::Full => sys::rocblas_svect_all,
    }
}

/// The leading dimensions `(ldu, ldv)` of `gesvd` on `m × n` matrices for `job`: `U` has `m`
/// rows; `V^H` has `n` rows (`Full`) or `min(m, n)`; at least 1, as rocSOLVER requires even
/// when the side is not computed.
fn svd_leading_dims(m: usize, n: usize, job: SvdJob) -> (usize, usize) {
    let ldv = if job == SvdJob::Full { n } else { m.min(n) };
    (m.max(1), ldv.max(1))
}

/// The arguments of one rocSOLVER call, in the widths rocSOLVER takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Args {
    Getrf {
        n: sys::rocblas_int,
        lda: sys::rocblas_int,
        stride_a: sys::rocblas_stride,
        stride_p: sys::rocblas_stride,
    },
    Getrs {
        trans: sys::rocblas_operation,
        n: sys::rocblas_int,
        nrhs: sys::rocblas_int,
        lda: sys::rocblas_int,
        stride_a: sys::rocblas_stride,
        stride_p: sys::rocblas_stride,
        ldb: sys::rocblas_int,
        stride_b: sys::rocblas_stride,
    },
    Potrf {
        uplo: sys::rocblas_fill,
        n: sys::rocblas_int,
        lda: sys::rocblas_int,
        stride_a: sys::rocblas_stride,
    },
    Qr {
        m: sys::rocblas_int,
        n: sys::rocblas_int,
        lda: sys::rocblas_int,
        stride_a: sys::rocblas_stride,
        /// Householder reflectors, `min(m, n)`.
        k: sys::rocblas_int,
        stride_tau: sys::rocblas_stride,
        qcols: sys::rocblas_int,
        ldq: sys::rocblas_int,
        stride_q: sys::rocblas_stride,
        /// Elements copied from each matrix of `a` to `q`: its first `min(qcols, n)` columns.
        copy: usize,
    },
    Gesvd {
        left: sys::rocblas_svect,
        right: sys::rocblas_svect,
        m: sys::rocblas_int,
        n: sys::rocblas_int,
        lda: sys::rocblas_int,
        stride_a: sys::rocblas_stride,
        stride_s: sys::rocblas_stride,
        ldu: sys::rocblas_int,
        stride_u: sys::rocblas_stride,
        ldv: sys::rocblas_int,
        stride_v: sys::rocblas_stride,
        stride_e: sys::rocblas_stride,
        fast_alg: sys::rocblas_workmode,
    },
    Syevd {
        evect: sys::rocblas_evect,
        uplo: sys::rocblas_fill,
        n: sys::rocblas_int,
        lda: sys::rocblas_int,
        stride_a: sys::rocblas_stride,
        stride_w: sys::rocblas_stride,
        stride_e: sys::rocblas_stride,
    },
}

/// One call as rocSOLVER takes it: what the tests check and `run` queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RocsolverCall {
    args: Args,
    batch: sys::rocblas_int,
    /// The matrices have no element: only the statuses are written (zeros).
    empty: bool,
    /// rocSOLVER writes the statuses (`getrs` and `geqrf` have none: xp writes zeros).
    writes_info: bool,
    /// Elements per matrix of the pooled workspace: `tau` (of the dtype) for QR, `E` (real)
    /// for `gesvd` and `syevd`; 0 for none.
    workspace: usize,
}

impl RocsolverCall {
    /// The call for `desc` (already checked by [`SolverDesc::check`]); a `Value` error when a
    /// size does not fit `rocblas_int`. Not for `Geev`.
    fn new(desc: &SolverDesc) -> Result<Self> {
        let op = format!("rocSOLVER {}", desc.lapack_name());
        let int = |what: &str, v: usize| {
            sys::rocblas_int::try_from(v)
                .map_err(|_| Error::value(&op, format!("{what} = {v} does not fit rocSOLVER's 32-bit rocblas_int")))
        };
        // In range: `SolverDesc::check` keeps every operand's span within i64.
        let stride = |v: usize| v as sys::rocblas_stride;
        let batch = int("the batch", desc.batch)?;
        let (args, empty, writes_info, workspace) = match desc.call {
            SolverCall::Getrf { n } => {
                let args = Args::Getrf {
                    n: int("n", n)?,
                    lda: int("n", n.max(1))?,
                    stride_a: stride(n * n),
                    stride_p: stride(n),
                };
                (args, n == 0, true, 0)
            }
            SolverCall::Getrs { n, nrhs } => {
                let args = Args::Getrs {
                    trans: sys::rocblas_operation_none,
                    n: int("n", n)?,
                    nrhs: int("nrhs", nrhs)?,
                    lda: int("n", n.max(1))?,
                    stride_a: stride(n * n),
                    stride_p: stride(n),
                    ldb: int("n", n.max(1))?,
                    stride_b: stride(n * nrhs),
                };
                (args, n == 0 || nrhs == 0, false, 0)
            }
            SolverCall::Potrf { n, lower } => {
                let args = Args::Potrf {
                    uplo: fill(lower),
                    n: int("n", n)?,
                    lda: int("n", n.max(1))?,
                    stride_a: stride(n * n),
                };
                (args, n == 0, true, 0)
            }
            SolverCall::Qr { m, n, qcols } => {
                let k = m.min(n);
                let args = Args::Qr {
                    m: int("m", m)?,
                    n: int("n", n)?,
                    lda: int("m", m.max(1))?,
                    stride_a: stride(m * n),
                    k: int("k", k)?,
                    stride_tau: stride(k.max(1)),
                    qcols: int("qcols", qcols)?,
                    ldq: int("m", m.max(1))?,
                    stride_q: stride(m * qcols),
                    copy: m * qcols.min(n),
                };
                // Nothing to factor (`m = 0`) nor to build (no Q, or an empty one).
                (args, m == 0 || (n == 0 && qcols == 0), false, k.max(1))
            }
            SolverCall::Gesvd { m, n, job } => {
                let k = m.min(n);
                let (ldu, ldv) = svd_leading_dims(m, n, job);
                let (ucols, vrows) = match job {
                    SvdJob::ValuesOnly => (0, 0),
                    SvdJob::Reduced => (k, k),
                    SvdJob::Full => (m, n),
                };
                let e = k.saturating_sub(1).max(1);
                let args = Args::Gesvd {
                    left: svect(job),
                    right: svect(job),
                    m: int("m", m)?,
                    n: int("n", n)?,
                    lda: int("m", m.max(1))?,
                    stride_a: stride(m * n),
                    stride_s: stride(k),
                    ldu: int("ldu", ldu)?,
                    stride_u: stride(m * ucols),
                    ldv: int("ldv", ldv)?,
                    stride_v: stride(vrows * n),
                    stride_e: stride(e),
                    fast_alg: sys::rocblas_outofplace,
                };
                (args, k == 0, true, e)
            }
            SolverCall::Syevd { n, lower, vectors } => {
                let args = Args::Syevd {
                    evect: evect(vectors),
                    uplo: fill(lower),
                    n: int("n", n)?,
                    lda: int("n", n.max(1))?,
                    stride_a: stride(n * n),
                    stride_w: stride(n),
                    stride_e: stride(n.max(1)),
                };
                (args, n == 0, true, n.max(1))
            }
            SolverCall::Geev { .. } => return Err(no_general_eigensolver(desc)),
            SolverCall::Getri { .. } => return Err(no_getri(desc)),
        };
        Ok(RocsolverCall { args, batch, empty, writes_info, workspace })
    }

    /// Bytes of the pooled workspace for the batch, given the call's dtype.
    fn workspace_bytes(&self, dtype: DType) -> Option<usize> {
        let elem = match self.args {
            Args::Qr { .. } => dtype.size(),
            _ => real_of(dtype).size(),
        };
        (self.workspace).checked_mul(self.batch as usize)?.checked_mul(elem)
    }
}

/// A checked call, ready to queue: the description, its rocSOLVER arguments, the operands'
/// device addresses in order, and the workspace's (0 for none).
#[derive(Clone, Copy)]
struct Queued<'a> {
    desc: &'a SolverDesc,
    call: RocsolverCall,
    at: &'a [u64],
    work: u64,
}

/// `addr` as a pointer to `T` (a device address).
fn ptr<T>(addr: u64) -> *mut T {
    addr as usize as *mut T
}

/// rocSOLVER on one device.
pub struct HipSolver {
    solver: &'static sys::RocSolver,
    blas: &'static sys::RocBlas,
    /// The rocBLAS handle rocSOLVER queues its calls on; its lock is held while it is bound to
    /// a stream and a call is queued.
    handle: Mutex<VendorHandle<sys::rocblas_handle>>,
    ordinal: usize,
    label: String,
    props: Arc<DeviceProperties>,
    pool: Arc<MemoryPool>,
    version: String,
}

impl HipSolver {
    /// rocSOLVER for device `ordinal`, or [`Error::BackendUnavailable`] naming `librocsolver`
    /// (or `librocblas`, whose handle it runs on).
    pub(crate) fn open(ordinal: usize, props: Arc<DeviceProperties>, pool: Arc<MemoryPool>) -> Result<Self> {
        let lib = sys::rocsolver()?;
        let version = rocsolver_version()?;
        let blas = sys::rocblas()?;
        let handle = rocblas_handle(&blas.api, ordinal, &pool)?;
        Ok(HipSolver {
            solver: &lib.api,
            blas: &blas.api,
            handle: Mutex::new(handle),
            ordinal,
            label: format!("hip:{ordinal}"),
            props,
            pool,
            version,
        })
    }

    /// Queue `q` with the precision's functions `f`, the handle `h` bound to `s`.
    ///
    /// # Safety
    /// `T` and `R` are the element and real types of `q.desc.dtype`; the device is current and
    /// `h` a live handle of it bound to `s`; `q.at` holds the operands' device addresses
    /// checked by [`open_gpu_solver`] (each operand's whole span lies in a buffer of this
    /// device, aligned, no written operand overlapping another, kept until the stream's work on
    /// it ends); `q.work` is the start of a buffer of this device of at least
    /// [`RocsolverCall::workspace_bytes`] bytes, kept likewise.
    unsafe fn queue<T, R>(
        &self,
        f: &sys::RocSolverFns<T, R>,
        h: sys::rocblas_handle,
        s: &HipStream,
        q: &Queued<'_>,
    ) -> Result<()> {
        let Queued { desc, call, at, work } = *q;
        // The functions the call queues, in order: their names in the errors.
        let names = entry_points(desc.dtype, &desc.call);
        let detail = || format!("{desc:?} on {}", self.label);
        let batch = call.batch;
        // SAFETY (every call below): the caller's guarantees; the sizes, leading dimensions and
        // strides are those of the column-major operands whose spans were checked, in rocSOLVER's
        // widths (`RocsolverCall::new`), and the workspace holds `workspace` elements per matrix.
        match call.args {
            Args::Getrf { n, lda, stride_a, stride_p } => {
                let r = unsafe {
                    (f.getrf_strided_batched)(
                        h,
                        n,
                        n,
                        ptr(at[0]),
                        lda,
                        stride_a,
                        ptr(at[1]),
                        stride_p,
                        ptr(at[2]),
                        batch,
                    )
                };
                check(names[0], r, detail)
            }
            Args::Getrs { trans, n, nrhs, lda, stride_a, stride_p, ldb, stride_b } => {
                let r = unsafe {
                    (f.getrs_strided_batched)(
                        h,
                        trans,
                        n,
                        nrhs,
                        ptr(at[0]),
                        lda,
                        stride_a,
                        ptr(at[1]),
                        stride_p,
                        ptr(at[2]),
                        ldb,
                        stride_b,
                        batch,
                    )
                };
                check(names[0], r, detail)
            }
            Args::Potrf { uplo, n, lda, stride_a } => {
                let r = unsafe { (f.potrf_strided_batched)(h, uplo, n, ptr(at[0]), lda, stride_a, ptr(at[1]), batch) };
                check(names[0], r, detail)
            }
            Args::Qr { m, n, lda, stride_a, k, stride_tau, qcols, ldq, stride_q, copy } => {
                let elem = desc.dtype.size() as u64;
                if m > 0 && n > 0 {
                    let r = unsafe {
                        (f.geqrf_strided_batched)(h, m, n, ptr(at[0]), lda, stride_a, ptr(work), stride_tau, batch)
                    };
                    check(names[0], r, detail)?;
                }
                let raw = s.handle().raw();
                if copy > 0 {
                    let bytes = copy * elem as usize;
                    if stride_q == stride_a {
                        // `qcols = n`: the matrices of `q` are those of `a`, one after another.
                        unsafe { result::memcpy_dtod_async(at[1], at[0], bytes * batch as usize, raw) }?;
                    } else {
                        for b in 0..batch as u64 {
                            let (dst, src) = (at[1] + b * stride_q as u64 * elem, at[0] + b * stride_a as u64 * elem);
                            unsafe { result::memcpy_dtod_async(dst, src, bytes, raw) }?;
                        }
                    }
                }
                if qcols > 0 {
                    for b in 0..batch as u64 {
                        let (q, tau) = (at[1] + b * stride_q as u64 * elem, work + b * stride_tau as u64 * elem);
                        let r = unsafe { (f.orgqr)(h, m, qcols, k, ptr(q), ldq, ptr(tau)) };
                        check(names[1], r, || format!("matrix {b} of {desc:?} on {}", self.label))?;
                    }
                }
                Ok(())
            }
            Args::Gesvd {
                left,
                right,
                m,
                n,
                lda,
                stride_a,
                stride_s,
                ldu,
                stride_u,
                ldv,
                stride_v,
                stride_e,
                fast_alg,
            } => {
                // The vectors not computed are not referenced: null, as rocSOLVER allows.
                let (u, v) = if left == sys::rocblas_svect_none {
                    (std::ptr::null_mut(), std::ptr::null_mut())
                } else {
                    (ptr(at[2]), ptr(at[3]))
                };
                let r = unsafe {
                    (f.gesvd_strided_batched)(
                        h,
                        left,
                        right,
                        m,
                        n,
                        ptr(at[0]),
                        lda,
                        stride_a,
                        ptr(at[1]),
                        stride_s,
                        u,
                        ldu,
                        stride_u,
                        v,
                        ldv,
                        stride_v,
                        ptr(work),
                        stride_e,
                        fast_alg,
                        ptr(at[4]),
                        batch,
                    )
                };
                check(names[0], r, detail)
            }
            Args::Syevd { evect, uplo, n, lda, stride_a, stride_w, stride_e } => {
                let r = unsafe {
                    (f.syevd_strided_batched)(
                        h,
                        evect,
                        uplo,
                        n,
                        ptr(at[0]),
                        lda,
                        stride_a,
                        ptr(at[1]),
                        stride_w,
                        ptr(work),
                        stride_e,
                        ptr(at[2]),
                        batch,
                    )
                };
                check(names[0], r, detail)
            }
        }
    }
}

impl Solver for HipSolver {
    fn name(&self) -> String {
        format!("rocSOLVER {}", self.version)
    }

    fn supports(&self, dtype: DType, call: &SolverCall) -> bool {
        rocsolver_supports(dtype, call)
    }

    fn run(&self, stream: &Arc<dyn Stream>, desc: &SolverDesc, operands: &[(&Buffer, usize)]) -> Result<()> {
        if let SolverCall::Getri { .. } = desc.call {
            desc.check(&format!("rocSOLVER {}", desc.lapack_name()))?;
            return Err(no_getri(desc));
        }
        if let SolverCall::Geev { .. } = desc.call {
            desc.check(&format!("rocSOLVER {}", desc.lapack_name()))?;
            return Err(no_general_eigensolver(desc));
        }
        let target = GpuTarget::new("hip", "HIP", self.ordinal, &self.label, &self.props, &self.pool);
        let (s, at) = open_gpu_solver::<HipStream>(&target, "rocSOLVER", desc, stream, |s| s.ordinal(), operands)?;
        let call = RocsolverCall::new(desc)?;
        if desc.batch == 0 {
            return Ok(());
        }
        if call.empty || !call.writes_info {
            let (info, offset) = operands[operands.len() - 1];
            stream.copy_from_host(info, offset, &vec![0u8; desc.batch * DType::I32.size()])?;
        }
        if call.empty {
            return Ok(());
        }
        let work = match call.workspace_bytes(desc.dtype) {
            Some(0) => None,
            Some(bytes) => Some(self.pool.alloc(bytes, stream)?),
            None => {
                return Err(Error::value(
                    format!("rocSOLVER {}", desc.lapack_name()),
                    "the workspace's size overflows the address space",
                ))
            }
        };
        let work_ptr = work.as_ref().map_or(0, |w| w.device_ptr());
        result::set_device(self.ordinal)?;
        let guard = self.handle.lock();
        let h = guard.raw();
        // SAFETY: `h` is a live handle of this device; the stream is a live stream of the same
        // device (checked by `open_gpu_solver`), kept alive by the caller's `Arc` for the call.
        check("rocblas_set_stream", unsafe { (self.blas.rocblas_set_stream)(h, s.handle().raw()) }, || {
            format!("on {}", self.label)
        })?;
        let (f, q) = (self.solver, Queued { desc, call, at: &at, work: work_ptr });
        // SAFETY: each table is used with its precision's element and real types; the device is
        // current and the handle bound to `s`; the operands were checked by `open_gpu_solver`
        // and are noted as used by the stream; the workspace was allocated on the stream for
        // the call's size and is released in stream order when `work` drops, after the queue.
        let r = unsafe {
            match desc.dtype {
                DType::F32 => self.queue(&f.s, h, s, &q),
                DType::F64 => self.queue(&f.d, h, s, &q),
                DType::C64 => self.queue(&f.c, h, s, &q),
                _ => self.queue(&f.z, h, s, &q),
            }
        };
        drop(work);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(dtype: DType, batch: usize, call: SolverCall) -> RocsolverCall {
        let d = SolverDesc { dtype, batch, call };
        d.check("t").unwrap();
        RocsolverCall::new(&d).unwrap()
    }

    #[test]
    fn enums_are_rocsolver_s() {
        assert_eq!((fill(true), fill(false)), (122, 121));
        assert_eq!((evect(true), evect(false)), (211, 213));
        assert_eq!((svect(SvdJob::ValuesOnly), svect(SvdJob::Reduced), svect(SvdJob::Full)), (194, 192, 191));
        assert_eq!(sys::rocblas_outofplace, 201);
    }

    #[test]
    fn lu_and_cholesky_are_square_strided_batches() {
        let c = call(DType::F32, 3, SolverCall::Getrf { n: 4 });
        assert_eq!(c.args, Args::Getrf { n: 4, lda: 4, stride_a: 16, stride_p: 4 });
        assert_eq!((c.batch, c.empty, c.writes_info, c.workspace), (3, false, true, 0));
        let c = call(DType::C128, 2, SolverCall::Getrs { n: 3, nrhs: 5 });
        assert_eq!(
            c.args,
            Args::Getrs { trans: 111, n: 3, nrhs: 5, lda: 3, stride_a: 9, stride_p: 3, ldb: 3, stride_b: 15 }
        );
        assert!(!c.writes_info && !c.empty, "getrs has no status: xp writes zeros");
        assert!(call(DType::F64, 2, SolverCall::Getrs { n: 3, nrhs: 0 }).empty);
        let c = call(DType::F64, 1, SolverCall::Potrf { n: 5, lower: true });
        assert_eq!(c.args, Args::Potrf { uplo: 122, n: 5, lda: 5, stride_a: 25 });
        let c = call(DType::F64, 1, SolverCall::Potrf { n: 5, lower: false });
        assert!(matches!(c.args, Args::Potrf { uplo: 121, .. }));
        let c = call(DType::F32, 4, SolverCall::Getrf { n: 0 });
        assert!(c.empty && c.writes_info);
        assert_eq!(c.args, Args::Getrf { n: 0, lda: 1, stride_a: 0, stride_p: 0 });
    }

    #[test]
    fn qr_copies_the_first_columns_then_builds_q() {
        // Tall, complete Q: 5 × 3, Q 5 × 5: the 3 columns of `a` are copied, k = 3.
        let c = call(DType::F32, 2, SolverCall::Qr { m: 5, n: 3, qcols: 5 });
        assert_eq!(
            c.args,
            Args::Qr {
                m: 5,
                n: 3,
                lda: 5,
                stride_a: 15,
                k: 3,
                stride_tau: 3,
                qcols: 5,
                ldq: 5,
                stride_q: 25,
                copy: 15
            }
        );
        assert_eq!((c.empty, c.writes_info, c.workspace), (false, false, 3));
        assert_eq!(c.workspace_bytes(DType::F32), Some(2 * 3 * 4));
        assert_eq!(c.workspace_bytes(DType::C128), Some(2 * 3 * 16), "tau has the dtype of a");
        // Reduced Q of a tall matrix: qcols = n, one copy for the batch (equal strides).
        let c = call(DType::F64, 2, SolverCall::Qr { m: 5, n: 3, qcols: 3 });
        assert!(matches!(c.args, Args::Qr { stride_a: 15, stride_q: 15, copy: 15, k: 3, qcols: 3, .. }));
        // Wide: 3 × 5, Q 3 × 3 from the first 3 columns.
        let c = call(DType::C64, 1, SolverCall::Qr { m: 3, n: 5, qcols: 3 });
        assert!(matches!(c.args, Args::Qr { k: 3, stride_a: 15, stride_q: 9, copy: 9, ldq: 3, .. }));
        // R only; an empty R with a Q of identity columns; nothing at all.
        let c = call(DType::F32, 1, SolverCall::Qr { m: 4, n: 2, qcols: 0 });
        assert!(matches!(c.args, Args::Qr { qcols: 0, copy: 0, stride_q: 0, .. }) && !c.empty);
        let c = call(DType::F32, 1, SolverCall::Qr { m: 4, n: 0, qcols: 4 });
        assert!(matches!(c.args, Args::Qr { k: 0, copy: 0, qcols: 4, stride_tau: 1, .. }) && !c.empty);
        assert!(call(DType::F32, 1, SolverCall::Qr { m: 4, n: 0, qcols: 0 }).empty);
        assert!(call(DType::F32, 1, SolverCall::Qr { m: 0, n: 3, qcols: 0 }).empty);
    }

    #[test]
    fn svd_jobs_set_the_vectors_and_their_leading_dimensions() {
        // Tall 5 × 3 (k = 3) and wide 3 × 5, each job.
        assert_eq!(svd_leading_dims(5, 3, SvdJob::ValuesOnly), (5, 3));
        assert_eq!(svd_leading_dims(5, 3, SvdJob::Reduced), (5, 3));
        assert_eq!(svd_leading_dims(5, 3, SvdJob::Full), (5, 3));
        assert_eq!(svd_leading_dims(3, 5, SvdJob::Reduced), (3, 3));
        assert_eq!(svd_leading_dims(3, 5, SvdJob::Full), (3, 5));
        assert_eq!(svd_leading_dims(0, 0, SvdJob::Full), (1, 1), "rocSOLVER wants ldu, ldv >= 1");
        let args = |m, n, job| call(DType::F64, 2, SolverCall::Gesvd { m, n, job }).args;
        assert_eq!(
            args(3, 5, SvdJob::Full),
            Args::Gesvd {
                left: 191,
                right: 191,
                m: 3,
                n: 5,
                lda: 3,
                stride_a: 15,
                stride_s: 3,
                ldu: 3,
                stride_u: 9,
                ldv: 5,
                stride_v: 25,
                stride_e: 2,
                fast_alg: 201,
            }
        );
        assert_eq!(
            args(5, 3, SvdJob::Reduced),
            Args::Gesvd {
                left: 192,
                right: 192,
                m: 5,
                n: 3,
                lda: 5,
                stride_a: 15,
                stride_s: 3,
                ldu: 5,
                stride_u: 15,
                ldv: 3,
                stride_v: 9,
                stride_e: 2,
                fast_alg: 201,
            }
        );
        assert!(matches!(
            args(3, 5, SvdJob::ValuesOnly),
            Args::Gesvd { left: 194, right: 194, stride_u: 0, stride_v: 0, ldu: 3, ldv: 3, .. }
        ));
        // The strides of U and V^H are the contract's operand sizes.
        for job in [SvdJob::ValuesOnly, SvdJob::Reduced, SvdJob::Full] {
            let d = SolverDesc { dtype: DType::C64, batch: 1, call: SolverCall::Gesvd { m: 4, n: 7, job } };
            let Args::Gesvd { stride_s, stride_u, stride_v, .. } = RocsolverCall::new(&d).unwrap().args else {
                unreachable!()
            };
            let spans = d.spans();
            assert_eq!([stride_s as usize, stride_u as usize, stride_v as usize], [spans[1], spans[2], spans[3]]);
        }
        let c = call(DType::C64, 3, SolverCall::Gesvd { m: 4, n: 7, job: SvdJob::Full });
        assert_eq!(c.workspace_bytes(DType::C64), Some(3 * 3 * 4), "E is real, min(m, n) - 1 per matrix");
        assert!(c.writes_info && !c.empty);
        let c = call(DType::F32, 1, SolverCall::Gesvd { m: 1, n: 4, job: SvdJob::Reduced });
        assert_eq!(c.workspace, 1, "E of at least one element");
        assert!(call(DType::F32, 1, SolverCall::Gesvd { m: 0, n: 4, job: SvdJob::Full }).empty);
    }

    #[test]
    fn syevd_takes_its_triangle_and_computes_vectors_on_request() {
        let c = call(DType::C128, 2, SolverCall::Syevd { n: 4, lower: true, vectors: true });
        assert_eq!(c.args, Args::Syevd { evect: 211, uplo: 122, n: 4, lda: 4, stride_a: 16, stride_w: 4, stride_e: 4 });
        assert_eq!(c.workspace_bytes(DType::C128), Some(2 * 4 * 8), "E is real, n per matrix");
        let c = call(DType::F32, 1, SolverCall::Syevd { n: 4, lower: false, vectors: false });
        assert!(matches!(c.args, Args::Syevd { evect: 213, uplo: 121, .. }));
        assert!(call(DType::F32, 1, SolverCall::Syevd { n: 0, lower: false, vectors: false }).empty);
    }

    #[test]
    fn sizes_past_32_bits_are_refused_and_geev_is_unsupported() {
        let d = SolverDesc { dtype: DType::F32, batch: 1, call: SolverCall::Getrs { n: 2, nrhs: 1 << 31 } };
        let e = RocsolverCall::new(&d).unwrap_err();
        assert!(
            matches!(&e, Error::Value { op, reason } if op == "rocSOLVER sgetrs" && reason.contains("nrhs")),
            "{e}"
        );
        let d = SolverDesc { dtype: DType::F64, batch: 1 << 31, call: SolverCall::Potrf { n: 1, lower: true } };
        assert!(matches!(RocsolverCall::new(&d), Err(Error::Value { .. })));
        let g = SolverDesc { dtype: DType::F32, batch: 1, call: SolverCall::Geev { n: 3, vectors: true } };
        let e = RocsolverCall::new(&g).unwrap_err();
        assert!(matches!(&e, Error::Unsupported(m) if m.contains("no general") && m.contains("sgeev")), "{e}");
        let i = SolverDesc { dtype: DType::F32, batch: 2, call: SolverCall::Getri { n: 3 } };
        let e = RocsolverCall::new(&i).unwrap_err();
        assert!(matches!(&e, Error::Unsupported(m) if m.contains("sgetri")), "{e}");
        for dtype in DType::ALL {
            assert!(!rocsolver_supports(dtype, &g.call) && !rocsolver_supports(dtype, &i.call));
            let lu = SolverCall::Getrf { n: 2 };
            assert_eq!(rocsolver_supports(dtype, &lu), solver_supports(dtype), "{dtype:?}");
        }
    }

    #[test]
    fn every_call_names_its_rocsolver_functions_in_each_precision() {
        let calls = [
            SolverCall::Getrf { n: 2 },
            SolverCall::Getrs { n: 2, nrhs: 1 },
            SolverCall::Potrf { n: 2, lower: true },
            SolverCall::Qr { m: 2, n: 2, qcols: 2 },
            SolverCall::Gesvd { m: 2, n: 2, job: SvdJob::Full },
            SolverCall::Syevd { n: 2, lower: true, vectors: true },
            SolverCall::Geev { n: 2, vectors: true },
        ];
        let want: [(DType, [&[&str]; 7]); 4] = [
            (
                DType::F32,
                [
                    &["rocsolver_sgetrf_strided_batched"],
                    &["rocsolver_sgetrs_strided_batched"],
                    &["rocsolver_spotrf_strided_batched"],
                    &["rocsolver_sgeqrf_strided_batched", "rocsolver_sorgqr"],
                    &["rocsolver_sgesvd_strided_batched"],
                    &["rocsolver_ssyevd_strided_batched"],
                    &[],
                ],
            ),
            (
                DType::F64,
                [
                    &["rocsolver_dgetrf_strided_batched"],
                    &["rocsolver_dgetrs_strided_batched"],
                    &["rocsolver_dpotrf_strided_batched"],
                    &["rocsolver_dgeqrf_strided_batched", "rocsolver_dorgqr"],
                    &["rocsolver_dgesvd_strided_batched"],
                    &["rocsolver_dsyevd_strided_batched"],
                    &[],
                ],
            ),
            (
                DType::C64,
                [
                    &["rocsolver_cgetrf_strided_batched"],
                    &["rocsolver_cgetrs_strided_batched"],
                    &["rocsolver_cpotrf_strided_batched"],
                    &["rocsolver_cgeqrf_strided_batched", "rocsolver_cungqr"],
                    &["rocsolver_cgesvd_strided_batched"],
                    &["rocsolver_cheevd_strided_batched"],
                    &[],
                ],
            ),
            (
                DType::C128,
                [
                    &["rocsolver_zgetrf_strided_batched"],
                    &["rocsolver_zgetrs_strided_batched"],
                    &["rocsolver_zpotrf_strided_batched"],
                    &["rocsolver_zgeqrf_strided_batched", "rocsolver_zungqr"],
                    &["rocsolver_zgesvd_strided_batched"],
                    &["rocsolver_zheevd_strided_batched"],
                    &[],
                ],
            ),
        ];
        for (dtype, names) in want {
            for (c, n) in calls.iter().zip(names) {
                assert_eq!(entry_points(dtype, c), n, "{dtype:?} {c:?}");
            }
        }
    }

    #[test]
    fn without_rocsolver_opening_is_backend_unavailable_and_never_panics() {
        use xp_backend_api::null::NullDevice;
        use xp_backend_api::Device;
        let dev = NullDevice::new(1 << 20, None).unwrap();
        let (props, pool) = (Arc::new(Device::properties(&dev).clone()), Arc::clone(Device::memory_pool(&dev)));
        let opened =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| HipSolver::open(0, props, pool).map(|_| ())));
        match (sys::rocsolver(), opened.expect("opening rocSOLVER must not panic")) {
            (Err(_), Err(Error::BackendUnavailable { backend, reason })) => {
                assert_eq!(backend, "hip");
                assert!(reason.contains("librocsolver") && reason.contains("XP_ROCSOLVER_PATH"), "{reason}");
            }
            (Err(_), other) => panic!("expected BackendUnavailable, got {:?}", other.err()),
            // rocSOLVER is installed: opening then needs rocBLAS and an AMD GPU, and fails or
            // not without panicking (checked by `expect` above).
            (Ok(_), _) => {}
        }
    }
}
