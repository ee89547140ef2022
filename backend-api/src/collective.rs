//! Collectives between devices as operations of the contract (ARCHITECTURE.md §2.5): a device hands out
//! its [`CollectiveLib`] (NCCL on NVIDIA GPUs, RCCL on AMD GPUs, none on the CPU), which makes
//! unique ids and [`Communicator`]s; a communicator runs all-reduce, broadcast, reduce,
//! all-gather, reduce-scatter, all-to-all, send and receive over buffers of one [`DType`] on a
//! stream, as [`crate::Blas`] runs products. So the array layer names no vendor: the NCCL
//! table, its types and its non-blocking protocol live in [`crate::gpu::nccl`].
//!
//! # Never hanging
//! Every communicator has a timeout ([`default_timeout`]): a call or a wait that has not
//! settled when it passes aborts the communicator and fails, so a rank that died does not hang
//! the others forever.

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use crate::{Buffer, DType, DynDevice, Error, Result, Stream};

/// Bytes of an NCCL unique id (`NCCL_UNIQUE_ID_BYTES`).
pub const UNIQUE_ID_BYTES: usize = 128;

/// The element-wise reduction of a collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Element-wise sum.
    Sum,
    /// Element-wise product.
    Prod,
    /// Element-wise maximum.
    Max,
    /// Element-wise minimum.
    Min,
    /// Element-wise mean over the ranks (the sum divided by the number of ranks).
    Avg,
}

impl ReduceOp {
    /// `sum`, `prod`, `max`, `min`, `avg`.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Avg => "avg",
        }
    }
}

/// What ranks share to meet (NCCL's `ncclUniqueId`). It holds the address rank 0 listens on; it
/// is plain bytes, written as 256 hexadecimal digits to pass through files and environment
/// variables.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct UniqueId(pub [u8; UNIQUE_ID_BYTES]);

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UniqueId({}…)", &self.to_hex()[..16])
    }
}

impl UniqueId {
    /// The id as 256 lower-case hexadecimal digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The id from [`UniqueId::to_hex`]'s text (surrounding white space is ignored).
    pub fn from_hex(text: &str) -> Result<UniqueId> {
        let t = text.trim();
        if t.len() != 2 * UNIQUE_ID_BYTES || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::value(
                "UniqueId::from_hex",
                format!(
                    "a unique id is {} hexadecimal digits; got {} characters{}",
                    2 * UNIQUE_ID_BYTES,
                    t.len(),
                    if t.bytes().all(|b| b.is_ascii_hexdigit()) { "" } else { " that are not all hexadecimal" }
                ),
            ));
        }
        let mut out = [0u8; UNIQUE_ID_BYTES];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&t[2 * i..2 * i + 2], 16).expect("checked hexadecimal");
        }
        Ok(UniqueId(out))
    }
}

/// The default timeout of a communicator: `XP_NCCL_TIMEOUT` seconds, else 300 s.
pub fn default_timeout() -> Result<Duration> {
    Ok(crate::env::seconds("XP_NCCL_TIMEOUT")?.unwrap_or(Duration::from_secs(300)))
}

/// One operand of a collective: `count` elements of `dtype` from `offset` bytes into `buffer`.
#[derive(Clone, Copy)]
pub struct Operand<'b> {
    /// The buffer.
    pub buffer: &'b Buffer,
    /// Bytes from its start.
    pub offset: usize,
}

/// `Value` unless `rank` is one of `world` ranks (and `world` is not 0).
pub fn check_rank(op: &str, rank: usize, world: usize) -> Result<()> {
    if world == 0 || rank >= world {
        return Err(Error::value(op, format!("rank {rank} is not among the {world} ranks")));
    }
    Ok(())
}

/// A device's collective library: unique ids and communicators (NCCL's `ncclGetUniqueId`,
/// `ncclCommInitRankConfig`, `ncclCommInitAll`, `ncclGroupStart`/`ncclGroupEnd`) as
/// operations.
pub trait CollectiveLib: Send + Sync + Any {
    /// The library and its version: `NCCL 2.27.7`.
    fn name(&self) -> String;
    /// A new unique id (rank 0 makes it, and it must reach every other rank).
    fn unique_id(&self) -> Result<UniqueId>;
    /// `Ok` when the library moves `dtype` (and reduces it with `reduce`, when given);
    /// [`Error::UnsupportedDType`] for `op` otherwise, before anything is allocated.
    fn check_dtype(&self, op: &str, dtype: DType, reduce: Option<ReduceOp>) -> Result<()>;
    /// The communicator of `rank` among `world` ranks meeting through `id`, on `device` (this
    /// library's device). Returns when every rank has joined, or fails after `timeout`.
    fn init_rank(
        &self,
        device: &Arc<dyn DynDevice>,
        id: &UniqueId,
        rank: usize,
        world: usize,
        timeout: Duration,
    ) -> Result<Box<dyn Communicator>>;
    /// One communicator per device of `devices` (rank `i` on `devices[i]`, the first being this
    /// library's device), created together by this process.
    fn init_all(&self, devices: &[Arc<dyn DynDevice>], timeout: Duration) -> Result<Vec<Box<dyn Communicator>>>;
    /// Run `issue`, which issues one call on each of `comms` (one process driving several
    /// devices), as one group: the calls are launched together when `issue` returns, and this
    /// returns once every communicator has accepted its call.
    fn group(&self, comms: &[&dyn Communicator], issue: &mut dyn FnMut() -> Result<()>) -> Result<()>;
    /// The library as [`Any`], for implementations that meet their peers' libraries.
    fn as_any(&self) -> &dyn Any;
}

/// One rank's communicator on one device. Every call is queued on `stream` (of the
/// communicator's device) after the work queued there so far; `count` is in elements of
/// `dtype`; each operand's range is checked against its buffer, which must belong to the
/// device, before anything is queued.
pub trait Communicator: Send + Sync {
    /// This rank.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn world_size(&self) -> usize;
    /// The device of this rank.
    fn device(&self) -> &Arc<dyn DynDevice>;
    /// The library and its version: `NCCL 2.27.7`.
    fn library(&self) -> String;
    /// The communicator's timeout.
    fn timeout(&self) -> Duration;
    /// The element-wise reduction of every rank's `send` into every rank's `recv` (which may
    /// be the same place).
    fn all_reduce(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        op: ReduceOp,
        stream: &Arc<dyn Stream>,
    ) -> Result<()>;
    /// `root`'s `send` into every rank's `recv`.
    fn broadcast(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        root: usize,
        stream: &Arc<dyn Stream>,
    ) -> Result<()>;
    /// The element-wise reduction of every rank's `send` into `root`'s `recv`.
    #[allow(clippy::too_many_arguments)]
    fn reduce(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        op: ReduceOp,
        root: usize,
        stream: &Arc<dyn Stream>,
    ) -> Result<()>;
    /// `count` elements from every rank, placed rank after rank in `recv`.
    fn all_gather(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        stream: &Arc<dyn Stream>,
    ) -> Result<()>;
    /// `recv` gets the reduction over every rank of this rank's block of `count` elements of
    /// `send` (which holds `world_size` blocks, rank after rank).
    fn reduce_scatter(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        op: ReduceOp,
        stream: &Arc<dyn Stream>,
    ) -> Result<()>;
    /// Block `r` of `count` elements of `send` goes to rank `r`; block `r` of `recv` comes
    /// from rank `r`.
    fn all_to_all(
        &self,
        send: Operand<'_>,
        recv: Operand<'_>,
        count: usize,
        dtype: DType,
        stream: &Arc<dyn Stream>,
    ) -> Result<()>;
    /// Send `count` elements to `peer` (which receives them with [`Communicator::recv`]).
    fn send(&self, send: Operand<'_>, count: usize, dtype: DType, peer: usize, stream: &Arc<dyn Stream>) -> Result<()>;
    /// Receive `count` elements from `peer`.
    fn recv(&self, recv: Operand<'_>, count: usize, dtype: DType, peer: usize, stream: &Arc<dyn Stream>) -> Result<()>;
    /// Wait until the work queued on `stream` so far has finished, watching the communicator:
    /// an error, or the timeout passing, aborts it and fails.
    fn wait(&self, stream: &Arc<dyn Stream>) -> Result<()>;
    /// Wait until the communicator has accepted its last call (creation and grouped calls are
    /// non-blocking); abort it and fail after the timeout.
    fn settle(&self, what: &str) -> Result<()>;
    /// Abort the communicator: queued collectives are cancelled and every later call fails.
    fn abort(&self);
    /// The communicator as [`Any`], for the library that made it.
    fn as_any(&self) -> &dyn Any;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_ids_travel_as_hex() {
        let mut b = [0u8; UNIQUE_ID_BYTES];
        for (i, x) in b.iter_mut().enumerate() {
            *x = (i * 37 + 11) as u8;
        }
        let id = UniqueId(b);
        let hex = id.to_hex();
        assert_eq!(hex.len(), 256);
        assert_eq!(UniqueId::from_hex(&format!("  {hex}\n")).unwrap(), id);
        let e = UniqueId::from_hex(&hex[..200]).unwrap_err();
        assert!(e.to_string().contains("256 hexadecimal digits; got 200"), "{e}");
        let bad = format!("zz{}", &hex[2..]);
        let e = UniqueId::from_hex(&bad).unwrap_err();
        assert!(e.to_string().contains("not all hexadecimal"), "{e}");
    }

    #[test]
    fn the_default_timeout_is_five_minutes() {
        if std::env::var_os("XP_NCCL_TIMEOUT").is_none() {
            assert_eq!(default_timeout().unwrap(), Duration::from_secs(300));
        }
    }
}
