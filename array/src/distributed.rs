//! Collectives between GPUs, as `cupyx.distributed` and `torch.distributed` users know them:
//! NCCL on NVIDIA GPUs, RCCL on AMD GPUs — never a collective of xp's own.
//!
//! # Two ways to start
//! - **One process, several GPUs**: [`init_all`] makes one [`Communicator`] per device. Calls
//!   on several of them that must run together (every rank of a collective) go inside
//!   [`group`], as NCCL requires of a single thread driving several ranks.
//! - **One process per GPU** (on one host or many): rank 0 makes a [`UniqueId`]
//!   ([`get_unique_id`]), every other rank receives it — through a file ([`share_unique_id`]),
//!   an environment variable ([`unique_id_from_env`]) or the user's own launcher — and each
//!   calls [`init_process`] on its device. `examples/distributed.rs --launch N` starts N such
//!   processes on one host.
//!
//! # Operations
//! Every method of [`Communicator`] takes xp arrays on the communicator's device and queues
//! the collective on that device's current stream ([`crate::with_stream`] chooses another):
//! [`all_reduce`](Communicator::all_reduce) (`sum`, `prod`, `max`, `min`, `avg`),
//! [`broadcast`](Communicator::broadcast), [`reduce`](Communicator::reduce),
//! [`all_gather`](Communicator::all_gather), [`reduce_scatter`](Communicator::reduce_scatter),
//! [`all_to_all`](Communicator::all_to_all), [`send`](Communicator::send) /
//! [`recv`](Communicator::recv) and [`barrier`](Communicator::barrier). They return new arrays
//! (and [`all_reduce_`](Communicator::all_reduce_) reduces in place, as `torch` does). Every
//! dtype NCCL has travels as itself; complex numbers travel as pairs of floats (so they reduce
//! with `sum` and `avg` only), booleans as bytes (`max` and `min` reduce them); `int16` and
//! `uint16` are refused with an error naming the dtype.
//!
//! # Never hanging forever
//! Communicators are created non-blocking, and every wait ([`Communicator::synchronize`],
//! [`Communicator::barrier`], creation) watches NCCL's error state with a timeout
//! (`XP_NCCL_TIMEOUT` seconds, 300 by default, or [`init_process_with_timeout`]): when a rank
//! dies or the group hangs, the communicator is aborted (`ncclCommAbort`) and the call
//! returns an error instead of waiting forever.
//!
//! # NVLink multicast
//! xp sets `NCCL_NVLS_ENABLE=0` before NCCL is first opened, unless the variable is already
//! set: NCCL's NVLink SHARP path is off by default.
//!
//! # Many hosts (the plan)
//! Nothing in the communicators is specific to one host: NCCL's bootstrap connects the ranks
//! over the network interface NCCL picks (`NCCL_SOCKET_IFNAME` chooses it), rank 0's
//! [`UniqueId`] carries its address, and the data moves over InfiniBand or RoCE (NCCL's IB
//! transport, `NCCL_IB_HCA`) or TCP sockets. What a multi-host job needs from the user is the
//! launcher's part: start one process per GPU (MPI's `mpirun`, SLURM's `srun`, a Kubernetes
//! job), give each its rank and the world size (`OMPI_COMM_WORLD_RANK`, `SLURM_PROCID`, …),
//! and pass rank 0's id to the others — a file on a shared file system ([`share_unique_id`]),
//! an environment variable set by the launcher ([`unique_id_from_env`]), or MPI's broadcast of
//! the 128 bytes. What xp would add: reading the rank and world size from the common
//! launchers' variables, a TCP rendezvous (`host:port`, as `torch.distributed`'s `env://`) so
//! that no shared file system is needed, and sub-communicators (`ncclCommSplit`) for model
//! parallelism.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use xp_backend_api::collective::{self, CollectiveLib, Operand};
pub use xp_backend_api::collective::{ReduceOp, UniqueId};
use xp_backend_api::{DType, DynDevice, Error, Result};

use crate::exec::current_stream;
use crate::Array;

/// The collective library of `device`: `BackendUnavailable` when it is missing, `Unsupported`
/// on the CPU.
fn library(device: &Arc<dyn DynDevice>) -> Result<Arc<dyn CollectiveLib>> {
    device.collectives()
}

/// A new unique id from `device`'s collective library (rank 0 makes it; it must reach every
/// other rank before they call [`init_process`]).
pub fn get_unique_id(device: &Arc<dyn DynDevice>) -> Result<UniqueId> {
    library(device)?.unique_id()
}

/// The id in the environment variable `var` (256 hexadecimal digits, as
/// [`UniqueId::to_hex`] writes it).
pub fn unique_id_from_env(var: &str) -> Result<UniqueId> {
    let v = std::env::var(var).map_err(|_| {
        Error::value("unique_id_from_env", format!("the environment variable {var} is not set (or not UTF-8)"))
    })?;
    UniqueId::from_hex(&v)
}

/// Share rank 0's unique id through the file `path` (on a file system every rank sees):
/// rank 0 makes the id with `device`'s library and writes it (atomically: a temporary file
/// renamed); every other rank waits up to `timeout` for the file and reads it. A file left by
/// an earlier run is overwritten by rank 0, so remove it between runs or use a new name.
pub fn share_unique_id(path: &Path, rank: usize, device: &Arc<dyn DynDevice>, timeout: Duration) -> Result<UniqueId> {
    let io = |what: &str, e: std::io::Error| Error::Io {
        context: format!("share_unique_id: {what} {}", path.display()),
        message: e.to_string(),
    };
    if rank == 0 {
        let id = get_unique_id(device)?;
        write_unique_id(path, &id).map_err(|e| io("writing", e))?;
        return Ok(id);
    }
    read_unique_id(path, timeout)
}

/// Write `id` to `path` atomically (a temporary file beside it, renamed).
pub fn write_unique_id(path: &Path, id: &UniqueId) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, id.to_hex())?;
    std::fs::rename(&tmp, path)
}

/// Wait up to `timeout` for `path` to hold a unique id, and read it.
pub fn read_unique_id(path: &Path, timeout: Duration) -> Result<UniqueId> {
    let start = Instant::now();
    loop {
        match std::fs::read_to_string(path) {
            Ok(text) => return UniqueId::from_hex(&text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && start.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Err(e) => {
                return Err(Error::Io {
                    context: format!(
                        "share_unique_id: waiting {:.1} s for rank 0's id in {}",
                        timeout.as_secs_f64(),
                        path.display()
                    ),
                    message: e.to_string(),
                })
            }
        }
    }
}

/// One rank's communicator: its device, its rank among `world_size`, and the library's
/// communicator.
pub struct Communicator {
    comm: Box<dyn collective::Communicator>,
    lib: Arc<dyn CollectiveLib>,
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Communicator(rank {} of {} on {})", self.rank(), self.world_size(), self.device().label())
    }
}

/// One communicator per device of `devices` (rank `i` on `devices[i]`), created together by
/// this process (NCCL's `ncclCommInitAll`, made non-blocking).
pub fn init_all(devices: &[Arc<dyn DynDevice>]) -> Result<Vec<Communicator>> {
    init_all_with_timeout(devices, collective::default_timeout()?)
}

/// [`init_all`] with a timeout for creation and every later wait.
pub fn init_all_with_timeout(devices: &[Arc<dyn DynDevice>], timeout: Duration) -> Result<Vec<Communicator>> {
    if devices.is_empty() {
        return Err(Error::value("init_all", "no devices were given"));
    }
    for (i, d) in devices.iter().enumerate() {
        if let Some(j) = devices[..i].iter().position(|e| e.label() == d.label()) {
            return Err(Error::value(
                "init_all",
                format!("{} is given twice (ranks {j} and {i}); NCCL needs one rank per device", d.label()),
            ));
        }
    }
    let lib = library(&devices[0])?;
    let comms = lib.init_all(devices, timeout)?;
    Ok(comms.into_iter().map(|comm| Communicator { comm, lib: Arc::clone(&lib) }).collect())
}

/// This process's communicator: rank `rank` of `world_size`, on the current device, meeting
/// the other ranks through `id` (see [`share_unique_id`]). Returns when every rank has joined,
/// or fails after the timeout (`XP_NCCL_TIMEOUT`, 300 s by default).
pub fn init_process(rank: usize, world_size: usize, id: &UniqueId) -> Result<Communicator> {
    init_process_with_timeout(&crate::current_device()?, rank, world_size, id, collective::default_timeout()?)
}

/// [`init_process`] on `device`, with a timeout for creation and every later wait.
pub fn init_process_with_timeout(
    device: &Arc<dyn DynDevice>,
    rank: usize,
    world_size: usize,
    id: &UniqueId,
    timeout: Duration,
) -> Result<Communicator> {
    collective::check_rank("init_process", rank, world_size)?;
    let lib = library(device)?;
    let comm = lib.init_rank(device, id, rank, world_size, timeout)?;
    Ok(Communicator { comm, lib })
}

/// Run `f`, which issues one collective on each of `comms` (one process driving several
/// GPUs), as one NCCL group: the calls are launched together when `f` returns.
pub fn group<R>(comms: &[Communicator], f: impl FnOnce() -> Result<R>) -> Result<R> {
    let Some(first) = comms.first() else { return f() };
    let members: Vec<&dyn collective::Communicator> = comms.iter().map(|c| &*c.comm).collect();
    let (mut f, mut out) = (Some(f), None);
    first.lib.group(&members, &mut || {
        let f = f.take().ok_or_else(|| Error::value("group", "the group's calls were issued twice"))?;
        out = Some(f()?);
        Ok(())
    })?;
    out.ok_or_else(|| Error::value("group", "the group's calls were not issued"))
}

impl Communicator {
    /// This rank.
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }

    /// The number of ranks.
    pub fn world_size(&self) -> usize {
        self.comm.world_size()
    }

    /// The device of this rank.
    pub fn device(&self) -> &Arc<dyn DynDevice> {
        self.comm.device()
    }

    /// The collective library and its version: `NCCL 2.27.7`.
    pub fn library(&self) -> String {
        self.comm.library()
    }

    /// `x` as a contiguous array on this rank's device, once the library has said it moves
    /// (and reduces with `reduce`) `x`'s dtype.
    fn operand(&self, op: &str, x: &Array, reduce: Option<ReduceOp>) -> Result<Array> {
        if x.device().label() != self.device().label() {
            return Err(Error::DeviceMismatch { op: op.into(), lhs: self.device().label(), rhs: x.device().label() });
        }
        self.lib.check_dtype(op, x.dtype(), reduce)?;
        x.ascontiguous()
    }

    fn empty(&self, shape: &[usize], dtype: DType) -> Result<Array> {
        Array::empty_on(self.device(), shape, dtype)
    }

    fn stream(&self) -> Arc<dyn xp_backend_api::Stream> {
        current_stream(self.device())
    }

    /// The element-wise reduction of `x` over every rank, on every rank (`x` has the same shape
    /// and dtype on all).
    pub fn all_reduce(&self, x: &Array, op: ReduceOp) -> Result<Array> {
        let x = self.operand("all_reduce", x, Some(op))?;
        let out = self.empty(x.shape(), x.dtype())?;
        self.comm.all_reduce(x.operand()?, out.operand()?, x.size(), x.dtype(), op, &self.stream())?;
        Ok(out)
    }

    /// [`Communicator::all_reduce`] in place (`torch.distributed.all_reduce(tensor)`): `x` must
    /// be C-contiguous.
    pub fn all_reduce_(&self, x: &Array, op: ReduceOp) -> Result<()> {
        if !x.is_contiguous() {
            return Err(Error::value("all_reduce_", "reducing in place needs a C-contiguous array"));
        }
        let x = self.operand("all_reduce_", x, Some(op))?;
        self.comm.all_reduce(x.operand()?, x.operand()?, x.size(), x.dtype(), op, &self.stream())
    }

    /// `root`'s `x` on every rank (the other ranks' `x` gives the shape and dtype).
    pub fn broadcast(&self, x: &Array, root: usize) -> Result<Array> {
        let x = self.operand("broadcast", x, None)?;
        let out = self.empty(x.shape(), x.dtype())?;
        self.comm.broadcast(x.operand()?, out.operand()?, x.size(), x.dtype(), root, &self.stream())?;
        Ok(out)
    }

    /// The reduction of `x` over every rank, on `root` (the other ranks get an array whose
    /// contents are unspecified).
    pub fn reduce(&self, x: &Array, op: ReduceOp, root: usize) -> Result<Array> {
        let x = self.operand("reduce", x, Some(op))?;
        let out = self.empty(x.shape(), x.dtype())?;
        self.comm.reduce(x.operand()?, out.operand()?, x.size(), x.dtype(), op, root, &self.stream())?;
        Ok(out)
    }

    /// Every rank's `x`, stacked along a new first axis in rank order: shape
    /// `(world_size, *x.shape)`.
    pub fn all_gather(&self, x: &Array) -> Result<Array> {
        let x = self.operand("all_gather", x, None)?;
        let mut shape = vec![self.world_size()];
        shape.extend_from_slice(x.shape());
        let out = self.empty(&shape, x.dtype())?;
        self.comm.all_gather(x.operand()?, out.operand()?, x.size(), x.dtype(), &self.stream())?;
        Ok(out)
    }

    fn split_first_axis(&self, op: &str, x: &Array) -> Result<Vec<usize>> {
        let w = self.world_size();
        match x.shape().first() {
            Some(&n) if n % w == 0 => {
                let mut s = x.shape().to_vec();
                s[0] = n / w;
                Ok(s)
            }
            _ => Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: x.shape().to_vec(),
                rhs: vec![w],
                reason: format!("do not split: the first axis must be a multiple of the {w} ranks"),
            }),
        }
    }

    /// The element-wise reduction over every rank of `x`'s block of this rank: `x`'s first
    /// axis is cut into `world_size` blocks, and rank `r` gets the reduction of block `r`.
    pub fn reduce_scatter(&self, x: &Array, op: ReduceOp) -> Result<Array> {
        let shape = self.split_first_axis("reduce_scatter", x)?;
        let x = self.operand("reduce_scatter", x, Some(op))?;
        let out = self.empty(&shape, x.dtype())?;
        self.comm.reduce_scatter(x.operand()?, out.operand()?, out.size(), x.dtype(), op, &self.stream())?;
        Ok(out)
    }

    /// Block `r` of `x`'s first axis goes to rank `r`; block `r` of the result came from rank
    /// `r` (NCCL's grouped sends and receives).
    pub fn all_to_all(&self, x: &Array) -> Result<Array> {
        let block = self.split_first_axis("all_to_all", x)?;
        let x = self.operand("all_to_all", x, None)?;
        let out = self.empty(x.shape(), x.dtype())?;
        let n: usize = block.iter().product();
        self.comm.all_to_all(x.operand()?, out.operand()?, n, x.dtype(), &self.stream())?;
        Ok(out)
    }

    /// Send `x` to rank `peer` (which calls [`Communicator::recv`] with the same shape and
    /// dtype).
    pub fn send(&self, x: &Array, peer: usize) -> Result<()> {
        let x = self.operand("send", x, None)?;
        self.comm.send(x.operand()?, x.size(), x.dtype(), peer, &self.stream())
    }

    /// Receive an array of `shape` and `dtype` from rank `peer`.
    pub fn recv(&self, shape: &[usize], dtype: DType, peer: usize) -> Result<Array> {
        self.lib.check_dtype("recv", dtype, None)?;
        let out = self.empty(shape, dtype)?;
        self.comm.recv(out.operand()?, out.size(), dtype, peer, &self.stream())?;
        Ok(out)
    }

    /// Wait until the collectives queued on the current stream have finished, watching for
    /// NCCL errors and the timeout (then the communicator is aborted and this fails).
    pub fn synchronize(&self) -> Result<()> {
        self.comm.wait(&self.stream())
    }

    /// Wait until every rank has reached the barrier (a one-element all-reduce, then
    /// [`Communicator::synchronize`]).
    pub fn barrier(&self) -> Result<()> {
        let one = Array::scalar_on(self.device(), 1i32, DType::I32)?;
        self.all_reduce_(&one, ReduceOp::Sum)?;
        self.synchronize()
    }

    /// Abort the communicator (`ncclCommAbort`): its queued collectives are cancelled and every
    /// later call fails.
    pub fn abort(&self) {
        self.comm.abort()
    }
}

impl Array {
    /// The array as a collective's operand, which may write it.
    fn operand(&self) -> Result<Operand<'_>> {
        Ok(Operand { buffer: self.storage.buffer_for_write()?, offset: self.layout.offset() * self.itemsize() })
    }
}
