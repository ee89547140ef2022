//! Collectives between devices through NCCL's API: NCCL on NVIDIA GPUs, RCCL (the same API,
//! the same binary interface) on AMD GPUs.
//!
//! # Why xp declares NCCL itself
//! The API is one header of plain C functions, and RCCL exports it unchanged, so one table
//! ([`NcclApi`]) serves both backends; each backend only finds its library (the search of
//! [`crate::LibrarySearch`]) and says how to make its device current and what its raw stream
//! is ([`NcclDevice`]); [`NcclCollectives`] makes that the contract's
//! [`CollectiveLib`] and [`Comm`] its [`Communicator`]. cudarc's `nccl` bindings are not used: their loader opens
//! `libnccl.so` by bare name only (the library's soname is `libnccl.so.2`, and NVIDIA's pip
//! wheel ships nothing else) and panics when it fails, and the HIP backend would need the same
//! declarations anyway. Only the functions xp calls are declared, from `nccl.h` of NCCL 2.18
//! (RCCL 2.18 and later export the same): the library is opened by its full path and refused
//! when one of them is missing.
//!
//! # Never hanging
//! Communicators are created non-blocking (`ncclConfig_t::blocking = 0`): every call that
//! answers `ncclInProgress` is polled with `ncclCommGetAsyncError` until it settles or the
//! communicator's timeout passes; then the communicator is aborted (`ncclCommAbort`) and the
//! call returns an error naming the timeout. [`Communicator::wait`] waits for queued collectives the
//! same way, so a rank that died does not hang the others forever.
//!
//! # NVLink multicast
//! NCCL's NVLink SHARP (multicast) path is turned off: [`disable_nvls`] sets
//! `NCCL_NVLS_ENABLE=0` before the library is first opened, unless the user set the variable.

use std::any::Any;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use libloading::Library;

use crate::collective::{check_rank, CollectiveLib, Communicator, Operand, ReduceOp, UniqueId, UNIQUE_ID_BYTES};
use crate::{DType, DynDevice, Error, Result, Stream};

/// `ncclResult_t` codes.
pub mod code {
    /// `ncclSuccess`.
    pub const SUCCESS: i32 = 0;
    /// `ncclInProgress`: a non-blocking call has not settled yet.
    pub const IN_PROGRESS: i32 = 7;
}

/// The name of an `ncclResult_t`.
pub fn result_name(code: i32) -> &'static str {
    match code {
        0 => "ncclSuccess",
        1 => "ncclUnhandledCudaError",
        2 => "ncclSystemError",
        3 => "ncclInternalError",
        4 => "ncclInvalidArgument",
        5 => "ncclInvalidUsage",
        6 => "ncclRemoteError",
        7 => "ncclInProgress",
        _ => "ncclUnknownError",
    }
}

/// NCCL's `ncclRedOp_t` of `op`.
fn nccl_op(op: ReduceOp) -> c_int {
    match op {
        ReduceOp::Sum => 0,
        ReduceOp::Prod => 1,
        ReduceOp::Max => 2,
        ReduceOp::Min => 3,
        ReduceOp::Avg => 4,
    }
}

/// How elements of `dtype` travel through NCCL: the `ncclDataType_t` and how many NCCL
/// elements make one xp element. Complex numbers travel as pairs of floats (so only `sum` and
/// `avg` reduce them, component-wise as they should); `bool` travels as `uint8` (so `max` and
/// `min` are logical or and and). `int16`/`uint16` have no NCCL type.
pub fn nccl_type(op: &str, dtype: DType, reduce: Option<ReduceOp>) -> Result<(c_int, usize)> {
    let t = match dtype {
        DType::I8 => (0, 1),
        DType::U8 | DType::Bool => (1, 1),
        DType::I32 => (2, 1),
        DType::U32 => (3, 1),
        DType::I64 => (4, 1),
        DType::U64 => (5, 1),
        DType::F16 => (6, 1),
        DType::F32 => (7, 1),
        DType::F64 => (8, 1),
        DType::BF16 => (9, 1),
        DType::C64 => (7, 2),
        DType::C128 => (8, 2),
        DType::I16 | DType::U16 => {
            return Err(Error::UnsupportedDType {
                op: op.into(),
                dtypes: vec![dtype],
                detail: "NCCL has no 16-bit integer type; cast to int32 first".into(),
            })
        }
    };
    match (dtype, reduce) {
        (DType::C64 | DType::C128, Some(r @ (ReduceOp::Prod | ReduceOp::Max | ReduceOp::Min))) => {
            Err(Error::UnsupportedDType {
                op: op.into(),
                dtypes: vec![dtype],
                detail: format!("the reduction `{}` is not defined component-wise on complex numbers", r.name()),
            })
        }
        (DType::Bool, Some(r @ (ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Avg))) => Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![dtype],
            detail: format!("the reduction `{}` of booleans overflows; cast to an integer type first", r.name()),
        }),
        _ => Ok(t),
    }
}

/// `ncclConfig_t` as NCCL 2.17 defines it (later versions read it by its `size` and `version`).
#[repr(C)]
struct NcclConfig {
    size: usize,
    magic: u32,
    version: u32,
    blocking: c_int,
    cga_cluster_size: c_int,
    min_ctas: c_int,
    max_ctas: c_int,
    net_name: *const c_char,
    split_share: c_int,
}

impl NcclConfig {
    /// `NCCL_CONFIG_INITIALIZER` with `blocking = 0`.
    fn non_blocking() -> Self {
        const UNDEF: c_int = c_int::MIN;
        NcclConfig {
            size: std::mem::size_of::<NcclConfig>(),
            magic: 0xcafe_beef,
            version: 21700,
            blocking: 0,
            cga_cluster_size: UNDEF,
            min_ctas: UNDEF,
            max_ctas: UNDEF,
            net_name: std::ptr::null(),
            split_share: UNDEF,
        }
    }
}

type RawComm = *mut c_void;
type RawStream = *mut c_void;

/// The entry points of NCCL (or RCCL) that xp calls, from one library opened by path.
pub struct NcclApi {
    /// Where the library was opened from.
    pub path: PathBuf,
    /// `NCCL` or `RCCL`.
    pub vendor: &'static str,
    get_version: unsafe extern "C" fn(*mut c_int) -> c_int,
    get_unique_id: unsafe extern "C" fn(*mut UniqueId) -> c_int,
    init_rank_config: unsafe extern "C" fn(*mut RawComm, c_int, UniqueId, c_int, *mut NcclConfig) -> c_int,
    async_error: unsafe extern "C" fn(RawComm, *mut c_int) -> c_int,
    abort: unsafe extern "C" fn(RawComm) -> c_int,
    destroy: unsafe extern "C" fn(RawComm) -> c_int,
    error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    last_error: unsafe extern "C" fn(RawComm) -> *const c_char,
    group_start: unsafe extern "C" fn() -> c_int,
    group_end: unsafe extern "C" fn() -> c_int,
    all_reduce: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, RawComm, RawStream) -> c_int,
    broadcast: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, RawComm, RawStream) -> c_int,
    reduce: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, c_int, RawComm, RawStream) -> c_int,
    all_gather: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, RawComm, RawStream) -> c_int,
    reduce_scatter: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, RawComm, RawStream) -> c_int,
    send: unsafe extern "C" fn(*const c_void, usize, c_int, c_int, RawComm, RawStream) -> c_int,
    recv: unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, RawComm, RawStream) -> c_int,
    _lib: Library,
}

impl std::fmt::Debug for NcclApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NcclApi").field("vendor", &self.vendor).field("path", &self.path).finish()
    }
}

/// The functions [`NcclApi::from_library`] requires.
pub const NCCL_FUNCTIONS: [&str; 17] = [
    "ncclGetVersion",
    "ncclGetUniqueId",
    "ncclCommInitRankConfig",
    "ncclCommGetAsyncError",
    "ncclCommAbort",
    "ncclCommDestroy",
    "ncclGetErrorString",
    "ncclGetLastError",
    "ncclGroupStart",
    "ncclGroupEnd",
    "ncclAllReduce",
    "ncclBroadcast",
    "ncclReduce",
    "ncclAllGather",
    "ncclReduceScatter",
    "ncclSend",
    "ncclRecv",
];

impl NcclApi {
    /// The table over `lib`, opened from `path`; an error naming the first missing function.
    ///
    /// # Safety
    /// `lib` must be NCCL or RCCL (2.18 or later), whose exports have the signatures of `nccl.h`.
    pub unsafe fn from_library(lib: Library, path: PathBuf, vendor: &'static str) -> std::result::Result<Self, String> {
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the caller vouches that the library's export has the declared type.
                *unsafe { lib.get($name.as_bytes()) }
                    .map_err(|e| format!("{} lacks {} ({e}); xp needs NCCL 2.18 or later", path.display(), $name))?
            };
        }
        Ok(NcclApi {
            get_version: sym!("ncclGetVersion"),
            get_unique_id: sym!("ncclGetUniqueId"),
            init_rank_config: sym!("ncclCommInitRankConfig"),
            async_error: sym!("ncclCommGetAsyncError"),
            abort: sym!("ncclCommAbort"),
            destroy: sym!("ncclCommDestroy"),
            error_string: sym!("ncclGetErrorString"),
            last_error: sym!("ncclGetLastError"),
            group_start: sym!("ncclGroupStart"),
            group_end: sym!("ncclGroupEnd"),
            all_reduce: sym!("ncclAllReduce"),
            broadcast: sym!("ncclBroadcast"),
            reduce: sym!("ncclReduce"),
            all_gather: sym!("ncclAllGather"),
            reduce_scatter: sym!("ncclReduceScatter"),
            send: sym!("ncclSend"),
            recv: sym!("ncclRecv"),
            path,
            vendor,
            _lib: lib,
        })
    }

    /// The library's version as `major.minor.patch`.
    pub fn version(&self) -> Result<String> {
        let mut v: c_int = 0;
        // SAFETY: `v` is a valid out-pointer.
        self.check(std::ptr::null_mut(), "ncclGetVersion", unsafe { (self.get_version)(&mut v) })?;
        let v = v.max(0);
        Ok(if v >= 10000 {
            format!("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100)
        } else {
            format!("{}.{}.{}", v / 1000, (v % 1000) / 100, v % 100)
        })
    }

    /// A new unique id (rank 0 makes it, and it must reach every other rank).
    pub fn unique_id(&self) -> Result<UniqueId> {
        let mut id = UniqueId([0; UNIQUE_ID_BYTES]);
        // SAFETY: `id` is a valid out-pointer of `ncclUniqueId`'s layout.
        self.check(std::ptr::null_mut(), "ncclGetUniqueId", unsafe { (self.get_unique_id)(&mut id) })?;
        Ok(id)
    }

    /// `ncclGroupStart`: calls until [`NcclApi::group_end`] are issued together.
    pub fn group_start(&self) -> Result<()> {
        // SAFETY: no arguments.
        self.check(std::ptr::null_mut(), "ncclGroupStart", unsafe { (self.group_start)() })
    }

    /// `ncclGroupEnd`. On non-blocking communicators it may answer `ncclInProgress`: the
    /// communicators' next call (or `Comm::wait`) settles it.
    pub fn group_end(&self) -> Result<()> {
        // SAFETY: no arguments.
        let r = unsafe { (self.group_end)() };
        if r == code::IN_PROGRESS {
            return Ok(());
        }
        self.check(std::ptr::null_mut(), "ncclGroupEnd", r)
    }

    fn error(&self, comm: RawComm, api: &str, r: c_int, extra: &str) -> Error {
        // SAFETY: ncclGetErrorString returns a static string for any code.
        let text = unsafe { CStr::from_ptr((self.error_string)(r)) }.to_string_lossy().into_owned();
        // SAFETY: ncclGetLastError accepts a communicator or null and returns a string it owns.
        let last = unsafe { (self.last_error)(comm) };
        let last = if last.is_null() {
            String::new()
        } else {
            // SAFETY: a non-null answer is a NUL-terminated string owned by the library.
            unsafe { CStr::from_ptr(last) }.to_string_lossy().into_owned()
        };
        let mut detail = text;
        if !last.is_empty() {
            detail.push_str(": ");
            detail.push_str(&last);
        }
        if !extra.is_empty() {
            detail.push_str(" (");
            detail.push_str(extra);
            detail.push(')');
        }
        Error::Driver { api: api.into(), code: r as i64, name: result_name(r).into(), detail }
    }

    fn check(&self, comm: RawComm, api: &str, r: c_int) -> Result<()> {
        if r == code::SUCCESS {
            Ok(())
        } else {
            Err(self.error(comm, api, r, ""))
        }
    }
}

/// Turn NCCL's NVLink multicast (NVLS) off unless the user chose: `NCCL_NVLS_ENABLE=0`. Called
/// by the backends before they first open the library (NCCL reads the variable when a
/// communicator is created).
pub fn disable_nvls() {
    if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
        // The variable is set once, before any communicator exists; xp's own threads do not
        // read the environment concurrently.
        std::env::set_var("NCCL_NVLS_ENABLE", "0");
    }
}

/// What a GPU backend gives the collectives: the library, and how to reach its device.
pub trait NcclDevice: Send + Sync {
    /// The NCCL-API library of the backend.
    fn api(&self) -> &NcclApi;
    /// Make the device current on the calling thread (NCCL creates a communicator on the
    /// current device).
    fn enter(&self) -> Result<()>;
    /// The raw stream handle (`cudaStream_t` / `hipStream_t`) of `stream`, which must belong
    /// to this device (`DeviceMismatch` otherwise).
    fn raw_stream(&self, op: &str, stream: &Arc<dyn Stream>) -> Result<*mut c_void>;
}

/// One rank's communicator on one device.
pub struct Comm {
    lib: Arc<dyn NcclDevice>,
    device: Arc<dyn DynDevice>,
    raw: Mutex<RawComm>,
    rank: usize,
    world: usize,
    timeout: Duration,
}

// SAFETY: an ncclComm_t may be used from any thread (NCCL requires only that calls on one
// communicator are not concurrent, which the mutex around the handle arranges).
unsafe impl Send for Comm {}
// SAFETY: as for `Send`.
unsafe impl Sync for Comm {}

impl std::fmt::Debug for Comm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Comm")
            .field("device", &self.device.label())
            .field("rank", &self.rank)
            .field("world", &self.world)
            .finish()
    }
}

fn world_int(op: &str, v: usize) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| Error::value(op, format!("{v} does not fit NCCL's int")))
}

impl Comm {
    /// Start creating the communicator of `rank` among `world` ranks meeting through `id`, on
    /// `device` (whose NCCL is `lib`). Creation is non-blocking: settle it with
    /// [`Comm::settle`] (alone) or after a group of such calls (one process, several devices).
    fn start(
        lib: Arc<dyn NcclDevice>,
        device: Arc<dyn DynDevice>,
        id: &UniqueId,
        rank: usize,
        world: usize,
        timeout: Duration,
    ) -> Result<Comm> {
        let op = "init_process_group";
        check_rank(op, rank, world)?;
        let (r_int, w_int) = (world_int(op, rank)?, world_int(op, world)?);
        lib.enter()?;
        let mut raw: RawComm = std::ptr::null_mut();
        let mut config = NcclConfig::non_blocking();
        let api = lib.api();
        // SAFETY: `raw` and `config` are valid for the call; the id is passed by value.
        let r = unsafe { (api.init_rank_config)(&mut raw, w_int, *id, r_int, &mut config) };
        if r != code::SUCCESS && r != code::IN_PROGRESS {
            let e =
                api.error(raw, "ncclCommInitRankConfig", r, &format!("rank {rank} of {world} on {}", device.label()));
            if !raw.is_null() {
                // SAFETY: a handle NCCL returned, aborted once.
                unsafe { (api.abort)(raw) };
            }
            return Err(e);
        }
        Ok(Comm { lib, device, raw: Mutex::new(raw), rank, world, timeout })
    }

    /// Wait until the communicator's last call has settled (`ncclCommGetAsyncError` no longer
    /// answers `ncclInProgress`); abort it and fail after the timeout.
    fn settle(&self, api_name: &str) -> Result<()> {
        let raw = *self.raw.lock().unwrap_or_else(|p| p.into_inner());
        self.settle_raw(raw, api_name)
    }

    fn settle_raw(&self, raw: RawComm, api_name: &str) -> Result<()> {
        if raw.is_null() {
            return Err(self.aborted(api_name));
        }
        let api = self.lib.api();
        let start = Instant::now();
        let mut pause = Duration::from_micros(5);
        loop {
            let mut state: c_int = 0;
            // SAFETY: `raw` is a live communicator; `state` is a valid out-pointer.
            let r = unsafe { (api.async_error)(raw, &mut state) };
            if r != code::SUCCESS {
                return Err(api.error(raw, "ncclCommGetAsyncError", r, ""));
            }
            if state == code::SUCCESS {
                return Ok(());
            }
            if state != code::IN_PROGRESS {
                let e = api.error(raw, api_name, state, &format!("rank {} of {}", self.rank, self.world));
                self.abort();
                return Err(e);
            }
            if start.elapsed() > self.timeout {
                self.abort();
                return Err(self.timed_out(api_name));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(2));
        }
    }

    fn timed_out(&self, api_name: &str) -> Error {
        Error::Driver {
            api: api_name.into(),
            code: code::IN_PROGRESS as i64,
            name: "timeout".into(),
            detail: format!(
                "rank {} of {} on {} waited {:.1} s (the communicator's timeout; XP_NCCL_TIMEOUT sets it) for \
                 the other ranks; the communicator was aborted",
                self.rank,
                self.world,
                self.device.label(),
                self.timeout.as_secs_f64()
            ),
        }
    }

    fn aborted(&self, api_name: &str) -> Error {
        Error::value(
            api_name,
            format!("the communicator of rank {} on {} was aborted; create a new one", self.rank, self.device.label()),
        )
    }

    /// Abort the communicator (`ncclCommAbort`): queued collectives are cancelled and every
    /// later call fails.
    fn abort(&self) {
        let mut g = self.raw.lock().unwrap_or_else(|p| p.into_inner());
        if !g.is_null() {
            // SAFETY: a live communicator, aborted once (the handle is cleared below).
            unsafe { (self.lib.api().abort)(*g) };
            *g = std::ptr::null_mut();
        }
    }

    fn operand(&self, op: &str, what: &str, o: &Operand<'_>, bytes: usize, stream: &Arc<dyn Stream>) -> Result<u64> {
        o.buffer.check_pool(op, self.device.memory_pool(), &self.device.label())?;
        o.buffer.check_range(&format!("{op} ({what} of {bytes} bytes)"), o.offset, bytes)?;
        o.buffer.note_use(stream);
        Ok(o.buffer.device_ptr() + o.offset as u64)
    }

    /// Run one NCCL call on `stream` under the communicator's lock, then settle it.
    fn call(
        &self,
        api_name: &str,
        stream: &Arc<dyn Stream>,
        f: impl FnOnce(&NcclApi, RawComm, RawStream) -> c_int,
    ) -> Result<()> {
        let s = self.lib.raw_stream(api_name, stream)?;
        self.lib.enter()?;
        let g = self.raw.lock().unwrap_or_else(|p| p.into_inner());
        let raw = *g;
        if raw.is_null() {
            return Err(self.aborted(api_name));
        }
        let api = self.lib.api();
        let r = f(api, raw, s);
        drop(g);
        match r {
            code::SUCCESS => Ok(()),
            code::IN_PROGRESS => self.settle_raw(raw, api_name),
            r => Err(api.error(raw, api_name, r, &format!("rank {} of {}", self.rank, self.world))),
        }
    }

    /// `ncclAllReduce` of `count` elements of `nccl_type` from `send` into `recv` (may be the
    /// same place), on `stream`.
    #[allow(clippy::too_many_arguments)]
    fn nccl_all_reduce(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        (dtype, elem): (c_int, usize),
        op: ReduceOp,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let n = "all_reduce";
        let (s, r) = (
            self.operand(n, "send", &send, count * elem, stream)?,
            self.operand(n, "recv", &recv, count * elem, stream)?,
        );
        self.call("ncclAllReduce", stream, |api, c, st| {
            // SAFETY: both ranges were checked against their buffers, which the stream keeps.
            unsafe { (api.all_reduce)(s as *const c_void, r as *mut c_void, count, dtype, nccl_op(op), c, st) }
        })
    }

    /// `ncclBroadcast` from `root`'s `send` into every rank's `recv`.
    fn nccl_broadcast(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        (dtype, elem): (c_int, usize),
        root: usize,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let n = "broadcast";
        let root = self.root(n, root)?;
        let (s, r) = (
            self.operand(n, "send", &send, count * elem, stream)?,
            self.operand(n, "recv", &recv, count * elem, stream)?,
        );
        self.call("ncclBroadcast", stream, |api, c, st| {
            // SAFETY: as in `all_reduce`.
            unsafe { (api.broadcast)(s as *const c_void, r as *mut c_void, count, dtype, root, c, st) }
        })
    }

    /// `ncclReduce` onto `root`'s `recv`.
    #[allow(clippy::too_many_arguments)]
    fn nccl_reduce(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        (dtype, elem): (c_int, usize),
        op: ReduceOp,
        root: usize,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let n = "reduce";
        let root = self.root(n, root)?;
        let (s, r) = (
            self.operand(n, "send", &send, count * elem, stream)?,
            self.operand(n, "recv", &recv, count * elem, stream)?,
        );
        self.call("ncclReduce", stream, |api, c, st| {
            // SAFETY: as in `all_reduce`.
            unsafe { (api.reduce)(s as *const c_void, r as *mut c_void, count, dtype, nccl_op(op), root, c, st) }
        })
    }

    /// `ncclAllGather`: `count` elements from every rank, placed rank after rank in `recv`.
    fn nccl_all_gather(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        (dtype, elem): (c_int, usize),
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let n = "all_gather";
        let s = self.operand(n, "send", &send, count * elem, stream)?;
        let r = self.operand(n, "recv", &recv, count * elem * self.world, stream)?;
        self.call("ncclAllGather", stream, |api, c, st| {
            // SAFETY: as in `all_reduce`.
            unsafe { (api.all_gather)(s as *const c_void, r as *mut c_void, count, dtype, c, st) }
        })
    }

    /// `ncclReduceScatter`: `recv` gets the reduction of this rank's block of `count` elements.
    #[allow(clippy::too_many_arguments)]
    fn nccl_reduce_scatter(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        (dtype, elem): (c_int, usize),
        op: ReduceOp,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let n = "reduce_scatter";
        let s = self.operand(n, "send", &send, count * elem * self.world, stream)?;
        let r = self.operand(n, "recv", &recv, count * elem, stream)?;
        self.call("ncclReduceScatter", stream, |api, c, st| {
            // SAFETY: as in `all_reduce`.
            unsafe { (api.reduce_scatter)(s as *const c_void, r as *mut c_void, count, dtype, nccl_op(op), c, st) }
        })
    }

    /// `ncclSend` of `count` elements to `peer` (match it with the peer's [`Comm::recv`]).
    fn nccl_send(
        &self,
        send: Operand<'_>,
        count: usize,
        (dtype, elem): (c_int, usize),
        peer: usize,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let n = "send";
        let peer = self.peer(n, peer)?;
        let s = self.operand(n, "send", &send, count * elem, stream)?;
        self.call("ncclSend", stream, |api, c, st| {
            // SAFETY: as in `all_reduce`.
            unsafe { (api.send)(s as *const c_void, count, dtype, peer, c, st) }
        })
    }

    /// `ncclRecv` of `count` elements from `peer`.
    fn nccl_recv(
        &self,
        recv: Operand<'_>,
        count: usize,
        (dtype, elem): (c_int, usize),
        peer: usize,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let n = "recv";
        let peer = self.peer(n, peer)?;
        let r = self.operand(n, "recv", &recv, count * elem, stream)?;
        self.call("ncclRecv", stream, |api, c, st| {
            // SAFETY: as in `all_reduce`.
            unsafe { (api.recv)(r as *mut c_void, count, dtype, peer, c, st) }
        })
    }

    fn root(&self, op: &str, root: usize) -> Result<c_int> {
        if root >= self.world {
            return Err(Error::value(op, format!("root {root} is not among the {} ranks", self.world)));
        }
        world_int(op, root)
    }

    fn peer(&self, op: &str, peer: usize) -> Result<c_int> {
        if peer >= self.world {
            return Err(Error::value(op, format!("peer {peer} is not among the {} ranks", self.world)));
        }
        world_int(op, peer)
    }

    /// Wait until the work queued on `stream` so far has finished, watching the communicator:
    /// an NCCL error, or the timeout passing, aborts it and fails.
    fn wait(&self, stream: &Arc<dyn Stream>) -> Result<()> {
        let event = stream.record_event()?;
        let start = Instant::now();
        let mut pause = Duration::from_micros(2);
        loop {
            if event.query()? {
                return self.settle("wait");
            }
            let raw = *self.raw.lock().unwrap_or_else(|p| p.into_inner());
            if raw.is_null() {
                return Err(self.aborted("wait"));
            }
            let mut state: c_int = 0;
            // SAFETY: a live communicator; `state` is a valid out-pointer.
            let r = unsafe { (self.lib.api().async_error)(raw, &mut state) };
            if r == code::SUCCESS && state != code::SUCCESS && state != code::IN_PROGRESS {
                let e = self.lib.api().error(raw, "wait", state, &format!("rank {} of {}", self.rank, self.world));
                self.abort();
                return Err(e);
            }
            if start.elapsed() > self.timeout {
                self.abort();
                return Err(self.timed_out("wait"));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_micros(500));
        }
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        let g = self.raw.get_mut().unwrap_or_else(|p| p.into_inner());
        if g.is_null() {
            return;
        }
        if self.lib.enter().is_err() {
            return;
        }
        // SAFETY: a live communicator, destroyed once; its queued work completes first
        // (ncclCommDestroy waits for it).
        let r = unsafe { (self.lib.api().destroy)(*g) };
        if r != code::SUCCESS && r != code::IN_PROGRESS {
            self.device.memory_pool().record_deferred(self.lib.api().error(*g, "ncclCommDestroy", r, ""));
        }
        *g = std::ptr::null_mut();
    }
}

/// The contract's [`CollectiveLib`] over NCCL (or RCCL) on one GPU: what
/// `Device::collectives` of a GPU backend hands out.
pub struct NcclCollectives {
    device: Arc<dyn NcclDevice>,
}

impl NcclCollectives {
    /// The collectives of the device that `device` reaches.
    pub fn new(device: Arc<dyn NcclDevice>) -> Self {
        NcclCollectives { device }
    }

    fn api(&self) -> &NcclApi {
        self.device.api()
    }
}

/// The NCCL device of `device`'s collective library, when it is one of these.
fn nccl_device_of(op: &str, device: &Arc<dyn DynDevice>) -> Result<Arc<dyn NcclDevice>> {
    let lib = device.collectives()?;
    match lib.as_any().downcast_ref::<NcclCollectives>() {
        Some(n) => Ok(Arc::clone(&n.device)),
        None => Err(Error::value(op, format!("{} has no NCCL-API collective library", device.label()))),
    }
}

impl CollectiveLib for NcclCollectives {
    fn name(&self) -> String {
        let api = self.api();
        format!("{} {}", api.vendor, api.version().unwrap_or_else(|_| "?".into()))
    }

    fn unique_id(&self) -> Result<UniqueId> {
        self.api().unique_id()
    }

    fn check_dtype(&self, op: &str, dtype: DType, reduce: Option<ReduceOp>) -> Result<()> {
        nccl_type(op, dtype, reduce).map(|_| ())
    }

    fn init_rank(
        &self,
        device: &Arc<dyn DynDevice>,
        id: &UniqueId,
        rank: usize,
        world: usize,
        timeout: Duration,
    ) -> Result<Box<dyn Communicator>> {
        let comm = Comm::start(Arc::clone(&self.device), Arc::clone(device), id, rank, world, timeout)?;
        comm.settle("ncclCommInitRankConfig")?;
        Ok(Box::new(comm))
    }

    fn init_all(&self, devices: &[Arc<dyn DynDevice>], timeout: Duration) -> Result<Vec<Box<dyn Communicator>>> {
        let nccl = devices.iter().map(|d| nccl_device_of("init_all", d)).collect::<Result<Vec<_>>>()?;
        let api = self.api();
        let id = api.unique_id()?;
        let n = devices.len();
        api.group_start()?;
        let started: Result<Vec<Comm>> = nccl
            .into_iter()
            .zip(devices)
            .enumerate()
            .map(|(rank, (lib, d))| Comm::start(lib, Arc::clone(d), &id, rank, n, timeout))
            .collect();
        let end = api.group_end();
        let comms = started?;
        end?;
        for c in &comms {
            c.settle("ncclCommInitRankConfig")?;
        }
        Ok(comms.into_iter().map(|c| Box::new(c) as Box<dyn Communicator>).collect())
    }

    fn group(&self, comms: &[&dyn Communicator], issue: &mut dyn FnMut() -> Result<()>) -> Result<()> {
        let api = self.api();
        api.group_start()?;
        let r = issue();
        let end = api.group_end();
        r?;
        end?;
        for c in comms {
            c.settle("ncclGroupEnd")?;
        }
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Comm {
    /// `dtype` as NCCL's type and the NCCL elements of `count` xp elements.
    fn nccl_count(
        &self,
        op: &str,
        dtype: DType,
        reduce: Option<ReduceOp>,
        count: usize,
    ) -> Result<(usize, (c_int, usize))> {
        let (t, k) = nccl_type(op, dtype, reduce)?;
        let n = count.checked_mul(k).ok_or_else(|| Error::value(op, format!("{count} elements overflow")))?;
        Ok((n, (t, dtype.size() / k)))
    }
}

impl Communicator for Comm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn world_size(&self) -> usize {
        self.world
    }

    fn device(&self) -> &Arc<dyn DynDevice> {
        &self.device
    }

    fn library(&self) -> String {
        let api = self.lib.api();
        format!("{} {}", api.vendor, api.version().unwrap_or_else(|_| "?".into()))
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn all_reduce(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        op: ReduceOp,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let (n, ty) = self.nccl_count("all_reduce", dtype, Some(op), count)?;
        self.nccl_all_reduce(send, recv, n, ty, op, stream)
    }

    fn broadcast(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        root: usize,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let (n, ty) = self.nccl_count("broadcast", dtype, None, count)?;
        self.nccl_broadcast(send, recv, n, ty, root, stream)
    }

    fn reduce(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        op: ReduceOp,
        root: usize,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let (n, ty) = self.nccl_count("reduce", dtype, Some(op), count)?;
        self.nccl_reduce(send, recv, n, ty, op, root, stream)
    }

    fn all_gather(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let (n, ty) = self.nccl_count("all_gather", dtype, None, count)?;
        self.nccl_all_gather(send, recv, n, ty, stream)
    }

    fn reduce_scatter(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        op: ReduceOp,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let (n, ty) = self.nccl_count("reduce_scatter", dtype, Some(op), count)?;
        self.nccl_reduce_scatter(send, recv, n, ty, op, stream)
    }

    fn all_to_all(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        stream: &Arc<dyn Stream>,
    ) -> Result<()> {
        let (n, ty) = self.nccl_count("all_to_all", dtype, None, count)?;
        let bytes = n * ty.1;
        let api = self.lib.api();
        api.group_start()?;
        let mut r = Ok(());
        for peer in 0..self.world {
            let s = Operand { buffer: send.buffer, offset: send.offset + peer * bytes };
            let d = Operand { buffer: recv.buffer, offset: recv.offset + peer * bytes };
            r = self.nccl_send(s, n, ty, peer, stream).and_then(|_| self.nccl_recv(d, n, ty, peer, stream));
            if r.is_err() {
                break;
            }
        }
        let end = api.group_end();
        r?;
        end?;
        Comm::settle(self, "all_to_all")
    }

    fn send(&self, send: Operand<'_>, count: usize, dtype: DType, peer: usize, stream: &Arc<dyn Stream>) -> Result<()> {
        let (n, ty) = self.nccl_count("send", dtype, None, count)?;
        self.nccl_send(send, n, ty, peer, stream)
    }

    fn recv(&self, recv: Operand<'_>, count: usize, dtype: DType, peer: usize, stream: &Arc<dyn Stream>) -> Result<()> {
        let (n, ty) = self.nccl_count("recv", dtype, None, count)?;
        self.nccl_recv(recv, n, ty, peer, stream)
    }

    fn wait(&self, stream: &Arc<dyn Stream>) -> Result<()> {
        Comm::wait(self, stream)
    }

    fn settle(&self, what: &str) -> Result<()> {
        Comm::settle(self, what)
    }

    fn abort(&self) {
        Comm::abort(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Open NCCL (or RCCL) from the first candidate of `search` that loads and exports every
/// function xp calls. NVLink multicast is turned off first ([`disable_nvls`]).
pub fn load_nccl(
    search: &crate::LibrarySearch,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    vendor: &'static str,
) -> std::result::Result<NcclApi, String> {
    disable_nvls();
    let open = |p: &Path| {
        // SAFETY: the candidates are files named like the collective library where its
        // vendor installs it; their initialisers are the library's and its dependencies'.
        let lib = unsafe { Library::new(p) }.map_err(|e| format!("{}: {e}", p.display()))?;
        // SAFETY: a library of that name exports `nccl.h`'s functions with its signatures.
        unsafe { NcclApi::from_library(lib, p.to_path_buf(), vendor) }
    };
    search.open_first(env, open).map(|(api, _)| api)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_has_the_layout_of_nccl_2_17() {
        assert_eq!(std::mem::size_of::<NcclConfig>(), 48);
        assert_eq!(std::mem::offset_of!(NcclConfig, net_name), 32);
        assert_eq!(std::mem::offset_of!(NcclConfig, split_share), 40);
        let c = NcclConfig::non_blocking();
        assert_eq!((c.magic, c.version, c.blocking), (0xcafe_beef, 21700, 0));
    }

    #[test]
    fn dtypes_map_to_nccl_types_and_refuse_what_nccl_cannot_reduce() {
        assert_eq!(nccl_type("t", DType::F32, Some(ReduceOp::Sum)).unwrap(), (7, 1));
        assert_eq!(nccl_type("t", DType::C128, Some(ReduceOp::Avg)).unwrap(), (8, 2));
        assert_eq!(nccl_type("t", DType::Bool, Some(ReduceOp::Max)).unwrap(), (1, 1));
        assert_eq!(nccl_type("t", DType::BF16, None).unwrap(), (9, 1));
        let e = nccl_type("all_reduce", DType::I16, None).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }) && e.to_string().contains("int16"), "{e}");
        let e = nccl_type("all_reduce", DType::C64, Some(ReduceOp::Max)).unwrap_err();
        assert!(e.to_string().contains("`max`"), "{e}");
        let e = nccl_type("all_reduce", DType::Bool, Some(ReduceOp::Sum)).unwrap_err();
        assert!(e.to_string().contains("bool"), "{e}");
    }

    #[test]
    fn a_library_without_nccl_is_refused_naming_the_missing_function() {
        // The C library is no NCCL: the first function is missing.
        let lib = unsafe { Library::new("libc.so.6") }.unwrap();
        let e = unsafe { NcclApi::from_library(lib, "libc.so.6".into(), "NCCL") }.unwrap_err();
        assert!(e.contains("lacks ncclGetVersion") && e.contains("2.18"), "{e}");
    }
}
