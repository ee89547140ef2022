//! Dense solvers on CUDA devices: the contract's [`Solver`] over cuSOLVER.
//!
//! # The library
//! cuSOLVER is called through cudarc's `cusolver` bindings and found like cuBLAS (the
//! `library` module: `XP_CUSOLVER_PATH`, the CUDA toolkit, the `nvidia/cu13` /
//! `nvidia-cusolver` pip wheels, then the loader path; `libcusolver.so.12` (CUDA 13),
//! `.so.11`, `.so`), opened by full path after cuBLAS and the cuSPARSE and nvJitLink of its
//! folder, which it opens by name. A missing cuSOLVER is
//! [`Error::BackendUnavailable`](xp_backend_api::Error::BackendUnavailable) from
//! [`Device::solver`](xp_backend_api::Device::solver) naming `libcusolver` and
//! `pip install nvidia-cusolver`; nothing panics, and every other array operation keeps
//! working.
//!
//! # Calls
//! One cuSOLVER handle per device, created on first use, kept under a lock while it is bound
//! to the caller's stream (`cusolverDnSetStream`) and a call is queued. Workspaces come from
//! xp's memory pool on the caller's stream. A batch is one call per matrix on that stream
//! (cuSOLVER's batched routines cover only tiny matrices), never a host wait per matrix.
//!
//! | call | cuSOLVER |
//! | --- | --- |
//! | `getrf`, `getrs` | `cusolverDn?getrf`, `cusolverDn?getrs` (32-bit pivots, as LAPACK's) |
//! | `getri` | `cublas?getriBatched` (the inverse of a stack of LU factors, out of place) |
//! | `potrf` | `cusolverDnXpotrf` |
//! | QR | `cusolverDnXgeqrf`, then `cusolverDn?orgqr` / `?ungqr` on a copy of the reflectors |
//! | SVD | `cusolverDn?gesvdj` (Jacobi; `V` turned into `V^H` by `cublas?geam`), or `cusolverDnXgesvd` with `XP_CUSOLVER_SVD=gesvd` |
//! | `syevd` | `cusolverDnXsyevd` (`heevd` for complex) |
//! | `geev` | `cusolverDnXgeev` (cuSOLVER 11.7 and later; complex matrices) |
//!
//! The SVD defaults to the one-sided Jacobi solver, which is several times faster than the
//! QR-iteration `gesvd` on the GPU for square and tall matrices at the same accuracy
//! (tolerance: machine epsilon, up to 100 sweeps); a matrix it does not converge on is status
//! `n + 1`, as LAPACK's `gesvd` reports non-convergence. `XP_CUSOLVER_SVD=gesvd` (read at each
//! call) selects `Xgesvd`.
//!
//! `geev` of real matrices returns LAPACK's packed real eigenvectors, so only complex
//! matrices are taken ([`Solver::supports`]); the array layer computes a real matrix as
//! complex.
//!
//! Every status other than success is [`Error::Driver`](xp_backend_api::Error::Driver) with
//! cuSOLVER's name of the code; `CUSOLVER_STATUS_ALLOC_FAILED` says that memory ran out.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::cublas::sys as cb;
use cudarc::cusolver::sys;
use parking_lot::Mutex;
use xp_backend_api::gpu::blas::{blas_check, GemmScalar};
use xp_backend_api::gpu::solver::open_gpu_solver;
use xp_backend_api::gpu::GpuTarget;
use xp_backend_api::solver::{real_of, solver_supports};
use xp_backend_api::{Buffer, DType, Error, MemoryPool, Result, Solver, SolverCall, SolverDesc, Stream, SvdJob};

use crate::blas::CublasLib;
use crate::context::Context;
use crate::library;
use crate::stream::CudaStream;

/// `CUSOLVER_STATUS_ALLOC_FAILED`.
const ALLOC_FAILED: i64 = 2;

/// cuSOLVER's name of a status code.
fn status_name(code: i64) -> String {
    let suffix = match code {
        0 => "SUCCESS",
        1 => "NOT_INITIALIZED",
        2 => "ALLOC_FAILED",
        3 => "INVALID_VALUE",
        4 => "ARCH_MISMATCH",
        5 => "MAPPING_ERROR",
        6 => "EXECUTION_FAILED",
        7 => "INTERNAL_ERROR",
        8 => "MATRIX_TYPE_NOT_SUPPORTED",
        9 => "NOT_SUPPORTED",
        _ => return format!("cusolverStatus {code}"),
    };
    format!("CUSOLVER_STATUS_{suffix}")
}

/// `Ok` for `CUSOLVER_STATUS_SUCCESS`, else the [`Error::Driver`] of `api`.
fn check(api: &str, r: sys::cusolverStatus_t, detail: impl FnOnce() -> String) -> Result<()> {
    blas_check(api, r as i64, status_name, ALLOC_FAILED, detail)
}

/// cuSOLVER's version (major, minor, patch), after finding the library.
pub(crate) fn cusolver_version() -> Result<(i32, i32, i32)> {
    library::cusolver()?;
    let get = |t: sys::libraryPropertyType| {
        let mut v = 0;
        // SAFETY: cuSOLVER is loaded where cudarc finds it and exports cusolverGetProperty
        // (`library::cusolver`); the call writes one int and needs no handle.
        check("cusolverGetProperty", unsafe { sys::cusolverGetProperty(t, &mut v) }, String::new)?;
        Ok(v)
    };
    use sys::libraryPropertyType::*;
    Ok((get(MAJOR_VERSION)?, get(MINOR_VERSION)?, get(PATCH_LEVEL)?))
}

/// cuSOLVER's data type of `dtype`.
fn data_type(dtype: DType) -> sys::cudaDataType {
    use sys::cudaDataType::*;
    match dtype {
        DType::F32 => CUDA_R_32F,
        DType::F64 => CUDA_R_64F,
        DType::C64 => CUDA_C_32F,
        _ => CUDA_C_64F,
    }
}

/// `CUBLAS_FILL_MODE_LOWER` or `_UPPER`.
fn fill(lower: bool) -> sys::cublasFillMode_t {
    if lower {
        sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
    } else {
        sys::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
    }
}

/// `CUSOLVER_EIG_MODE_VECTOR` or `_NOVECTOR`.
fn eig_mode(vectors: bool) -> sys::cusolverEigMode_t {
    if vectors {
        sys::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
    } else {
        sys::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
    }
}

/// Whether the SVD uses `Xgesvd` rather than the Jacobi solver (`XP_CUSOLVER_SVD=gesvd`).
fn use_gesvd() -> Result<bool> {
    Ok(xp_backend_api::env::choice("XP_CUSOLVER_SVD", &["gesvdj", "gesvd"])? == Some("gesvd"))
}

/// A size as cuSOLVER's 32-bit `int`, or a `Value` error naming `op`.
fn int(op: &str, what: &str, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| Error::value(op, format!("{what} = {v} exceeds cuSOLVER's 32-bit limit")))
}

/// Call the cuSOLVER (or cuBLAS) function of `dtype`'s precision: `$s`, `$d`, `$c` or `$z`,
/// each with the same arguments (pointers cast with `as _`).
macro_rules! typed {
    ($dtype:expr, $m:ident :: { $s:ident, $d:ident, $c:ident, $z:ident } ( $($arg:expr),* $(,)? )) => {
        match $dtype {
            DType::F32 => (stringify!($s), $m::$s($($arg),*)),
            DType::F64 => (stringify!($d), $m::$d($($arg),*)),
            DType::C64 => (stringify!($c), $m::$c($($arg),*)),
            _ => (stringify!($z), $m::$z($($arg),*)),
        }
    };
}

/// The handle and the `X` API's parameters of one device.
struct Handles {
    dn: sys::cusolverDnHandle_t,
    params: sys::cusolverDnParams_t,
    gesvdj: sys::gesvdjInfo_t,
}

// SAFETY: cuSOLVER handles may be used from any host thread with the device's context
// current; `CusolverLib` keeps them behind a lock, so one thread at a time binds and queues.
unsafe impl Send for Handles {}

/// cuSOLVER on one device.
pub struct CusolverLib {
    handles: Mutex<Handles>,
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
    blas: Arc<CublasLib>,
    version: (i32, i32, i32),
    has_geev: bool,
}

impl CusolverLib {
    /// cuSOLVER for the device of `ctx`, or `BackendUnavailable` naming `libcusolver`.
    pub(crate) fn open(ctx: Arc<Context>, pool: Arc<MemoryPool>, blas: Arc<CublasLib>) -> Result<Self> {
        let version = cusolver_version()?;
        // SAFETY: cuSOLVER is present (`cusolver_version`); lookups only.
        let has_geev = ["cusolverDnXgeev", "cusolverDnXgeev_bufferSize"]
            .iter()
            .all(|s| unsafe { library::cusolver_symbol(format!("{s}\0").as_bytes()) }.is_ok());
        ctx.enter("cusolverDnCreate")?;
        let mut h = Handles { dn: std::ptr::null_mut(), params: std::ptr::null_mut(), gesvdj: std::ptr::null_mut() };
        let on = || format!("on {}", ctx.label);
        // SAFETY: the library is loaded; the device's context is current, so the handle belongs
        // to it; the out-pointers are valid. A failure part way leaks what was created (once).
        unsafe {
            check("cusolverDnCreate", sys::cusolverDnCreate(&mut h.dn), on)?;
            check("cusolverDnCreateParams", sys::cusolverDnCreateParams(&mut h.params), on)?;
            check("cusolverDnCreateGesvdjInfo", sys::cusolverDnCreateGesvdjInfo(&mut h.gesvdj), on)?;
        }
        Ok(CusolverLib { handles: Mutex::new(h), ctx, pool, blas, version, has_geev })
    }

    fn target(&self) -> GpuTarget<'_> {
        GpuTarget::new("cuda", "CUDA", self.ctx.ordinal, &self.ctx.label, &self.ctx.props, &self.pool)
    }
}

/// A device work area from the pool on `stream` (at least one byte) and its address.
fn work(pool: &Arc<MemoryPool>, stream: &Arc<dyn Stream>, bytes: usize) -> Result<(Buffer, *mut c_void)> {
    let b = pool.alloc(bytes.max(1), stream)?;
    let p = b.device_ptr() as usize as *mut c_void;
    Ok((b, p))
}

impl Solver for CusolverLib {
    fn name(&self) -> String {
        let (major, minor, patch) = self.version;
        format!("cuSOLVER {major}.{minor}.{patch}")
    }

    fn supports(&self, dtype: DType, call: &SolverCall) -> bool {
        match call {
            SolverCall::Geev { .. } => self.has_geev && dtype.is_complex(),
            _ => solver_supports(dtype),
        }
    }

    fn run(&self, stream: &Arc<dyn Stream>, desc: &SolverDesc, operands: &[(&Buffer, usize)]) -> Result<()> {
        let (s, ptrs) =
            open_gpu_solver::<CudaStream>(&self.target(), "cuSOLVER", desc, stream, |s| s.device_ordinal(), operands)?;
        if !self.supports(desc.dtype, &desc.call) {
            return Err(Error::Unsupported(format!(
                "cuSOLVER {}: this cuSOLVER has no {} for {} (a general eigensolver needs cuSOLVER 11.7 or later \
                 and complex input)",
                self.version.0,
                desc.lapack_name(),
                desc.dtype
            )));
        }
        if desc.batch == 0 {
            return Ok(());
        }
        let op = format!("cuSOLVER {}", desc.lapack_name());
        let specs = desc.operands();
        let elem = desc.dtype.size();
        // Operand `k` of matrix `b`.
        let at = |k: usize, b: usize| -> *mut c_void {
            (ptrs[k] as usize + b * specs[k].per_matrix * specs[k].dtype.size()) as *mut c_void
        };
        let info = |b: usize| at(specs.len() - 1, b) as *mut i32;
        let detail = || format!("{desc:?} on {}", self.ctx.label);
        let t = data_type(desc.dtype);
        self.ctx.enter("cusolverDnSetStream")?;
        let h = self.handles.lock();
        // SAFETY (every call below): the context is current; the handles are live handles of
        // this context, bound to a live stream of this device; every operand pointer was
        // checked by `open_gpu_solver` to hold the whole batch's span in a buffer of this
        // device, aligned, written operands overlapping nothing, and stays allocated until the
        // stream's work on it ends (the buffers are noted as used by the stream; work areas
        // are pool buffers of the same stream); sizes fit cuSOLVER's integers (`int`).
        unsafe {
            check("cusolverDnSetStream", sys::cusolverDnSetStream(h.dn, s.cu_stream() as sys::cudaStream_t), detail)?;
            match desc.call {
                SolverCall::Getrf { n } if batched(desc.batch, n) => {
                    let (ni, bi) = (int(&op, "n", n)?, int(&op, "batch", desc.batch)?);
                    let (_pa, [pa]) = self.pointers(stream, [(at(0, 0), n * n * elem)], desc.batch)?;
                    self.blas.with_handle(s, |bh| {
                        let (api, r) = typed!(desc.dtype, cb::{
                            cublasSgetrfBatched, cublasDgetrfBatched, cublasCgetrfBatched, cublasZgetrfBatched
                        }(bh, ni, pa as _, ni.max(1), at(1, 0) as _, info(0), bi));
                        crate::blas::check(api, r, detail)
                    })?;
                }
                SolverCall::Getrs { n, nrhs } if batched(desc.batch, n) => {
                    let (ni, ki, bi) = (int(&op, "n", n)?, int(&op, "nrhs", nrhs)?, int(&op, "batch", desc.batch)?);
                    let (_p, [pa, pb]) =
                        self.pointers(stream, [(at(0, 0), n * n * elem), (at(2, 0), n * nrhs * elem)], desc.batch)?;
                    let mut bad = 0i32;
                    self.blas.with_handle(s, |bh| {
                        let no = cb::cublasOperation_t::CUBLAS_OP_N;
                        let (api, r) = typed!(desc.dtype, cb::{
                            cublasSgetrsBatched, cublasDgetrsBatched, cublasCgetrsBatched, cublasZgetrsBatched
                        }(bh, no, ni, ki, pa as _, ni.max(1), at(1, 0) as _, pb as _, ni.max(1), &mut bad, bi));
                        crate::blas::check(api, r, detail)
                    })?;
                    if bad != 0 {
                        return Err(Error::value(
                            op.as_str(),
                            format!("cuBLAS getrsBatched refused argument {}", -bad),
                        ));
                    }
                    // cuBLAS reports argument errors on the host only: the statuses are zeros.
                    self.zero_statuses(s, info(0), desc.batch)?;
                }
                SolverCall::Getri { n } => {
                    let (ni, bi) = (int(&op, "n", n)?, int(&op, "batch", desc.batch)?);
                    let (_p, [pa, pc]) =
                        self.pointers(stream, [(at(0, 0), n * n * elem), (at(2, 0), n * n * elem)], desc.batch)?;
                    self.blas.with_handle(s, |bh| {
                        let (api, r) = typed!(desc.dtype, cb::{
                            cublasSgetriBatched, cublasDgetriBatched, cublasCgetriBatched, cublasZgetriBatched
                        }(bh, ni, pa as _, ni.max(1), at(1, 0) as _, pc as _, ni.max(1), info(0), bi));
                        crate::blas::check(api, r, detail)
                    })?;
                }
                SolverCall::Potrf { n, lower } if batched(desc.batch, n) => {
                    let (ni, bi) = (int(&op, "n", n)?, int(&op, "batch", desc.batch)?);
                    let (_pa, [pa]) = self.pointers(stream, [(at(0, 0), n * n * elem)], desc.batch)?;
                    let (api, r) = typed!(desc.dtype, sys::{
                        cusolverDnSpotrfBatched, cusolverDnDpotrfBatched, cusolverDnCpotrfBatched, cusolverDnZpotrfBatched
                    }(h.dn, fill(lower), ni, pa as _, ni.max(1), info(0), bi));
                    check(api, r, detail)?;
                }
                SolverCall::Getrf { n } => {
                    let ni = int(&op, "n", n)?;
                    let mut lwork = 0;
                    let (api, r) = typed!(desc.dtype, sys::{
                        cusolverDnSgetrf_bufferSize, cusolverDnDgetrf_bufferSize,
                        cusolverDnCgetrf_bufferSize, cusolverDnZgetrf_bufferSize
                    }(h.dn, ni, ni, at(0, 0) as _, ni.max(1), &mut lwork));
                    check(api, r, detail)?;
                    let (_w, wp) = work(&self.pool, stream, lwork.max(0) as usize * elem)?;
                    for b in 0..desc.batch {
                        let (api, r) = typed!(desc.dtype, sys::{
                            cusolverDnSgetrf, cusolverDnDgetrf, cusolverDnCgetrf, cusolverDnZgetrf
                        }(h.dn, ni, ni, at(0, b) as _, ni.max(1), wp as _, at(1, b) as _, info(b)));
                        check(api, r, detail)?;
                    }
                }
                SolverCall::Getrs { n, nrhs } => {
                    let (ni, ki) = (int(&op, "n", n)?, int(&op, "nrhs", nrhs)?);
                    let no = sys::cublasOperation_t::CUBLAS_OP_N;
                    for b in 0..desc.batch {
                        let (api, r) = typed!(desc.dtype, sys::{
                            cusolverDnSgetrs, cusolverDnDgetrs, cusolverDnCgetrs, cusolverDnZgetrs
                        }(h.dn, no, ni, ki, at(0, b) as _, ni.max(1), at(1, b) as _, at(2, b) as _, ni.max(1), info(b)));
                        check(api, r, detail)?;
                    }
                }
                SolverCall::Potrf { n, lower } => {
                    let n = n as i64;
                    self.x_each(
                        s,
                        stream,
                        "cusolverDnXpotrf",
                        desc.batch,
                        &detail,
                        |dw, hw| {
                            sys::cusolverDnXpotrf_bufferSize(
                                h.dn,
                                h.params,
                                fill(lower),
                                n,
                                t,
                                at(0, 0),
                                n.max(1),
                                t,
                                dw,
                                hw,
                            )
                        },
                        |b, wp, dw, hp, hw| {
                            sys::cusolverDnXpotrf(
                                h.dn,
                                h.params,
                                fill(lower),
                                n,
                                t,
                                at(0, b),
                                n.max(1),
                                t,
                                wp,
                                dw,
                                hp,
                                hw,
                                info(b),
                            )
                        },
                    )?;
                }
                SolverCall::Qr { m, n, qcols } => self.qr(&h, s, stream, desc, (m, n, qcols), operands, &at, &info)?,
                SolverCall::Gesvd { m, n, job } => self.svd(&h, s, stream, desc, (m, n, job), &at, &info)?,
                SolverCall::Syevd { n, lower, vectors } => {
                    let (n, rt, mode) = (n as i64, data_type(real_of(desc.dtype)), eig_mode(vectors));
                    self.x_each(
                        s,
                        stream,
                        "cusolverDnXsyevd",
                        desc.batch,
                        &detail,
                        |dw, hw| {
                            sys::cusolverDnXsyevd_bufferSize(
                                h.dn,
                                h.params,
                                mode,
                                fill(lower),
                                n,
                                t,
                                at(0, 0),
                                n.max(1),
                                rt,
                                at(1, 0),
                                t,
                                dw,
                                hw,
                            )
                        },
                        |b, wp, dw, hp, hw| {
                            sys::cusolverDnXsyevd(
                                h.dn,
                                h.params,
                                mode,
                                fill(lower),
                                n,
                                t,
                                at(0, b),
                                n.max(1),
                                rt,
                                at(1, b),
                                t,
                                wp,
                                dw,
                                hp,
                                hw,
                                info(b),
                            )
                        },
                    )?;
                }
                SolverCall::Geev { n, vectors } => {
                    let (n, mode) = (n as i64, eig_mode(vectors));
                    let none = sys::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR;
                    let vr = |b: usize| if vectors { at(2, b) } else { std::ptr::null_mut() };
                    self.x_each(
                        s,
                        stream,
                        "cusolverDnXgeev",
                        desc.batch,
                        &detail,
                        |dw, hw| {
                            sys::cusolverDnXgeev_bufferSize(
                                h.dn,
                                h.params,
                                none,
                                mode,
                                n,
                                t,
                                at(0, 0),
                                n.max(1),
                                t,
                                at(1, 0),
                                t,
                                std::ptr::null(),
                                1,
                                t,
                                vr(0),
                                n.max(1),
                                t,
                                dw,
                                hw,
                            )
                        },
                        |b, wp, dw, hp, hw| {
                            sys::cusolverDnXgeev(
                                h.dn,
                                h.params,
                                none,
                                mode,
                                n,
                                t,
                                at(0, b),
                                n.max(1),
                                t,
                                at(1, b),
                                t,
                                std::ptr::null_mut(),
                                1,
                                t,
                                vr(b),
                                n.max(1),
                                t,
                                wp,
                                dw,
                                hp,
                                hw,
                                info(b),
                            )
                        },
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// Whether a batch goes to the batched routines (`cublas?getrfBatched`, `getrsBatched`,
/// `cusolverDn?potrfBatched`: one launch for the batch) rather than one call per matrix: many
/// small matrices, where a call's launch costs more than its arithmetic.
fn batched(batch: usize, n: usize) -> bool {
    batch >= 2 && n <= 128
}

impl CusolverLib {
    /// Device arrays of the `batch` addresses `first + b * stride` bytes for each
    /// `(first, stride)` of `arrays`, as the batched routines take their matrices, in one
    /// buffer filled by one copy; the buffer must live until the call is queued (the pool keeps
    /// it for the stream's work after).
    fn pointers<const N: usize>(
        &self,
        stream: &Arc<dyn Stream>,
        arrays: [(*mut c_void, usize); N],
        batch: usize,
    ) -> Result<(Buffer, [*mut c_void; N])> {
        let bytes: Vec<u8> = arrays
            .iter()
            .flat_map(|&(first, stride)| (0..batch).map(move |b| first as u64 + (b * stride) as u64))
            .flat_map(u64::to_ne_bytes)
            .collect();
        let (buf, p) = work(&self.pool, stream, bytes.len())?;
        stream.copy_from_host(&buf, 0, &bytes)?;
        let at = std::array::from_fn(|k| (p as usize + k * batch * 8) as *mut c_void);
        Ok((buf, at))
    }

    /// Queue zeros into `n` statuses at `p` on `s` (for routines that report no status).
    fn zero_statuses(&self, s: &CudaStream, p: *mut i32, n: usize) -> Result<()> {
        self.ctx.enter("cuMemsetD32Async")?;
        // SAFETY: the context is current; `p` addresses `n` int32 statuses of a checked operand
        // of this device, kept allocated for the stream's work (the caller's).
        let r = unsafe { cudarc::driver::sys::cuMemsetD32Async(p as u64, 0, n, s.cu_stream()) };
        self.ctx.check("cuMemsetD32Async", r)
    }

    /// A routine of cuSOLVER's 64-bit `X` API (`api`) on every matrix of a batch: `query`
    /// gives its device and host work area sizes, then
    /// `call(b, device_area, device_bytes, host_area, host_bytes)` is queued for each matrix
    /// `b`, the areas shared (the calls run in stream order).
    ///
    /// # Safety
    /// `query` and `call` must be valid calls of `api` on the checked operands (see `run`).
    #[allow(clippy::too_many_arguments)]
    unsafe fn x_each(
        &self,
        s: &CudaStream,
        stream: &Arc<dyn Stream>,
        api: &str,
        batch: usize,
        detail: &dyn Fn() -> String,
        query: impl FnOnce(&mut usize, &mut usize) -> sys::cusolverStatus_t,
        mut call: impl FnMut(usize, *mut c_void, usize, *mut c_void, usize) -> sys::cusolverStatus_t,
    ) -> Result<()> {
        let (mut dw, mut hw) = (0usize, 0usize);
        check(&format!("{api}_bufferSize"), query(&mut dw, &mut hw), detail)?;
        let (_w, wp) = work(&self.pool, stream, dw)?;
        let mut host = vec![0u8; hw.max(1)];
        for b in 0..batch {
            check(api, call(b, wp, dw, host.as_mut_ptr().cast(), hw), detail)?;
        }
        self.host_workspace_done(s, hw)
    }

    /// A call that took a host work area may read it after returning: wait for the stream
    /// before the area is freed (only the general eigensolver has one).
    fn host_workspace_done(&self, s: &CudaStream, host_bytes: usize) -> Result<()> {
        if host_bytes > 0 {
            xp_backend_api::Stream::synchronize(s)?;
        }
        Ok(())
    }

    /// QR: `Xgeqrf` in place, then `?orgqr`/`?ungqr` on `Q`'s columns copied from it.
    #[allow(clippy::too_many_arguments)]
    unsafe fn qr(
        &self,
        h: &Handles,
        s: &CudaStream,
        stream: &Arc<dyn Stream>,
        desc: &SolverDesc,
        (m, n, qcols): (usize, usize, usize),
        operands: &[(&Buffer, usize)],
        at: &dyn Fn(usize, usize) -> *mut c_void,
        info: &dyn Fn(usize) -> *mut i32,
    ) -> Result<()> {
        let op = format!("cuSOLVER {}", desc.lapack_name());
        let detail = || format!("{desc:?} on {}", self.ctx.label);
        let t = data_type(desc.dtype);
        let elem = desc.dtype.size();
        let k = m.min(n);
        let (mi, ni) = (m as i64, n as i64);
        let (tau, taup) = work(&self.pool, stream, k * desc.batch * elem)?;
        let _tau = tau;
        let tau_of = |b: usize| (taup as usize + b * k * elem) as *mut c_void;
        // SAFETY: as in `run` (the caller's).
        unsafe {
            self.x_each(
                s,
                stream,
                "cusolverDnXgeqrf",
                desc.batch,
                &detail,
                |dw, hw| {
                    sys::cusolverDnXgeqrf_bufferSize(
                        h.dn,
                        h.params,
                        mi,
                        ni,
                        t,
                        at(0, 0),
                        mi.max(1),
                        t,
                        tau_of(0),
                        t,
                        dw,
                        hw,
                    )
                },
                |b, wp, dw, hp, hw| {
                    sys::cusolverDnXgeqrf(
                        h.dn,
                        h.params,
                        mi,
                        ni,
                        t,
                        at(0, b),
                        mi.max(1),
                        t,
                        tau_of(b),
                        t,
                        wp,
                        dw,
                        hp,
                        hw,
                        info(b),
                    )
                },
            )?;
            if qcols == 0 || k == 0 {
                return Ok(());
            }
            // The reflectors are the first k columns (column-major: a prefix of each matrix).
            let cols = qcols.min(n);
            let ((abuf, aoff), (qbuf, qoff)) = (operands[0], operands[1]);
            for b in 0..desc.batch {
                stream.copy_device(
                    abuf,
                    aoff + b * m * n * elem,
                    qbuf,
                    qoff + b * m * qcols * elem,
                    m * cols * elem,
                )?;
            }
            let (mq, nq, kq) = (int(&op, "m", m)?, int(&op, "qcols", qcols)?, int(&op, "k", k)?);
            let mut lwork = 0;
            let (api, r) = typed!(desc.dtype, sys::{
                cusolverDnSorgqr_bufferSize, cusolverDnDorgqr_bufferSize,
                cusolverDnCungqr_bufferSize, cusolverDnZungqr_bufferSize
            }(h.dn, mq, nq, kq, at(1, 0) as _, mq.max(1), tau_of(0) as _, &mut lwork));
            check(api, r, detail)?;
            let (_w2, wp2) = work(&self.pool, stream, lwork.max(0) as usize * elem)?;
            for b in 0..desc.batch {
                let (api, r) = typed!(desc.dtype, sys::{
                    cusolverDnSorgqr, cusolverDnDorgqr, cusolverDnCungqr, cusolverDnZungqr
                }(h.dn, mq, nq, kq, at(1, b) as _, mq.max(1), tau_of(b) as _, wp2 as _, lwork, info(b)));
                check(api, r, detail)?;
            }
        }
        Ok(())
    }

    /// SVD of tall matrices: the Jacobi solver (`V^H` by `geam`), or `Xgesvd` (module docs).
    #[allow(clippy::too_many_arguments)]
    unsafe fn svd(
        &self,
        h: &Handles,
        s: &CudaStream,
        stream: &Arc<dyn Stream>,
        desc: &SolverDesc,
        (m, n, job): (usize, usize, SvdJob),
        at: &dyn Fn(usize, usize) -> *mut c_void,
        info: &dyn Fn(usize) -> *mut i32,
    ) -> Result<()> {
        let op = format!("cuSOLVER {}", desc.lapack_name());
        let detail = || format!("{desc:?} on {}", self.ctx.label);
        if m < n {
            return Err(Error::value(op.as_str(), format!("cuSOLVER's SVD takes m >= n, not {m} x {n}")));
        }
        let t = data_type(desc.dtype);
        let rt = data_type(real_of(desc.dtype));
        let elem = desc.dtype.size();
        let k = n;
        let vectors = job != SvdJob::ValuesOnly;
        let (uc, vr) = match job {
            SvdJob::ValuesOnly => (0, 0),
            SvdJob::Reduced => (k, k),
            SvdJob::Full => (m, n),
        };
        // SAFETY: as in `run` (the caller's).
        unsafe {
            if use_gesvd()? {
                let jobc = |c: u8| c as std::ffi::c_char;
                let (ju, jv) = match job {
                    SvdJob::ValuesOnly => (jobc(b'N'), jobc(b'N')),
                    SvdJob::Reduced => (jobc(b'S'), jobc(b'S')),
                    SvdJob::Full => (jobc(b'A'), jobc(b'A')),
                };
                let (mi, ni) = (m as i64, n as i64);
                let (ldu, ldvt) = (mi.max(1), (vr as i64).max(1));
                return self.x_each(
                    s,
                    stream,
                    "cusolverDnXgesvd",
                    desc.batch,
                    &detail,
                    |dw, hw| {
                        sys::cusolverDnXgesvd_bufferSize(
                            h.dn,
                            h.params,
                            ju,
                            jv,
                            mi,
                            ni,
                            t,
                            at(0, 0),
                            mi.max(1),
                            rt,
                            at(1, 0),
                            t,
                            at(2, 0),
                            ldu,
                            t,
                            at(3, 0),
                            ldvt,
                            t,
                            dw,
                            hw,
                        )
                    },
                    |b, wp, dw, hp, hw| {
                        sys::cusolverDnXgesvd(
                            h.dn,
                            h.params,
                            ju,
                            jv,
                            mi,
                            ni,
                            t,
                            at(0, b),
                            mi.max(1),
                            rt,
                            at(1, b),
                            t,
                            at(2, b),
                            ldu,
                            t,
                            at(3, b),
                            ldvt,
                            t,
                            wp,
                            dw,
                            hp,
                            hw,
                            info(b),
                        )
                    },
                );
            }
            let (mi, ni) = (int(&op, "m", m)?, int(&op, "n", n)?);
            let econ = i32::from(job != SvdJob::Full);
            let mode = eig_mode(vectors);
            // gesvdj writes V (n × vr); with vectors, it goes to a work area and `V^H` to `vt`.
            // Without, U and V are not referenced but must be valid: the work area stands in.
            let (vbuf, vp) = work(&self.pool, stream, n * vr.max(1) * elem * desc.batch.max(1))?;
            let _vbuf = vbuf;
            let v_of = |b: usize| (vp as usize + b * n * vr.max(1) * elem) as *mut c_void;
            let u_of = |b: usize| if vectors { at(2, b) } else { v_of(0) };
            let (ldu, ldv) = (mi.max(1), ni.max(1));
            let mut lwork = 0;
            let (api, r) = typed!(desc.dtype, sys::{
                cusolverDnSgesvdj_bufferSize, cusolverDnDgesvdj_bufferSize,
                cusolverDnCgesvdj_bufferSize, cusolverDnZgesvdj_bufferSize
            }(h.dn, mode, econ, mi, ni, at(0, 0) as _, mi.max(1), at(1, 0) as _, u_of(0) as _, ldu, v_of(0) as _, ldv,
              &mut lwork, h.gesvdj));
            check(api, r, detail)?;
            let (_w, wp) = work(&self.pool, stream, lwork.max(0) as usize * elem)?;
            for b in 0..desc.batch {
                let (api, r) = typed!(desc.dtype, sys::{
                    cusolverDnSgesvdj, cusolverDnDgesvdj, cusolverDnCgesvdj, cusolverDnZgesvdj
                }(h.dn, mode, econ, mi, ni, at(0, b) as _, mi.max(1), at(1, b) as _, u_of(b) as _, ldu,
                  v_of(b) as _, ldv, wp as _, lwork, info(b), h.gesvdj));
                check(api, r, detail)?;
            }
            let _ = uc;
            if !vectors {
                return Ok(());
            }
            // vt (vr × n) = V^H, V being n × vr with leading dimension n.
            let (one, zero) = (GemmScalar::new(desc.dtype, 1.0), GemmScalar::new(desc.dtype, 0.0));
            let (vri, nn) = (vr as i64, n as i64);
            self.blas.with_handle(s, |bh| {

                let (ct, nt) = (cb::cublasOperation_t::CUBLAS_OP_C, cb::cublasOperation_t::CUBLAS_OP_N);
                for b in 0..desc.batch {
                    let (vt, v) = (at(3, b), v_of(b));
                    let (api, r) = typed!(desc.dtype, cb::{ cublasSgeam_64, cublasDgeam_64, cublasCgeam_64, cublasZgeam_64 }(
                        bh, ct, nt, vri, nn, one.as_ptr() as _, v as _, nn.max(1), zero.as_ptr() as _, vt as _,
                        vri.max(1), vt as _, vri.max(1)
                    ));
                    crate::blas::check(api, r, detail)?;
                }
                Ok(())
            })
        }
    }
}

impl Drop for CusolverLib {
    fn drop(&mut self) {
        if self.ctx.is_corrupted() {
            return;
        }
        let h = self.handles.get_mut();
        let (dn, params, gesvdj) = (h.dn, h.params, h.gesvdj);
        let r = self.ctx.enter("cusolverDnDestroy").and_then(|_| {
            // SAFETY: the context is current and each handle is destroyed once, here.
            unsafe {
                check("cusolverDnDestroyGesvdjInfo", sys::cusolverDnDestroyGesvdjInfo(gesvdj), String::new)?;
                check("cusolverDnDestroyParams", sys::cusolverDnDestroyParams(params), String::new)?;
                check("cusolverDnDestroy", sys::cusolverDnDestroy(dn), String::new)
            }
        });
        self.pool.defer(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_modes_and_statuses_follow_cusolver() {
        use sys::cudaDataType::*;
        assert_eq!(
            [DType::F32, DType::F64, DType::C64, DType::C128].map(data_type),
            [CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F]
        );
        assert_eq!((fill(true) as u32, fill(false) as u32), (0, 1));
        assert_eq!((eig_mode(false) as u32, eig_mode(true) as u32), (0, 1));
        assert_eq!(status_name(3), "CUSOLVER_STATUS_INVALID_VALUE");
        assert_eq!(status_name(42), "cusolverStatus 42");
        assert_eq!(sys::cusolverStatus_t::CUSOLVER_STATUS_ALLOC_FAILED as i64, ALLOC_FAILED);
        let e =
            check("cusolverDnXpotrf", sys::cusolverStatus_t::CUSOLVER_STATUS_ALLOC_FAILED, String::new).unwrap_err();
        assert!(
            matches!(&e, Error::Driver { name, detail, .. } if name == "CUSOLVER_STATUS_ALLOC_FAILED" && detail.contains("memory"))
        );
        assert!(int("t", "n", 1 << 31).is_err() && int("t", "n", 5).unwrap() == 5);
    }
}
