//! Collectives on CUDA devices: NCCL (found by [`crate::library`]'s search, opened by its full
//! path, declared in `xp_backend_api::collective`), and peer access between devices for copies.

use std::collections::HashSet;
use std::ffi::{c_int, c_void};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{self, CUresult};
use xp_backend_api::collective::{CollectiveLib, NcclApi};
use xp_backend_api::{Error, Result, Stream};

use crate::context::Context;
use crate::stream::CudaStream;

/// NCCL on one CUDA device.
pub(crate) struct CudaCollectives {
    pub(crate) ctx: Arc<Context>,
    pub(crate) api: &'static NcclApi,
}

impl CollectiveLib for CudaCollectives {
    fn api(&self) -> &NcclApi {
        self.api
    }

    fn enter(&self) -> Result<()> {
        // NCCL asks the CUDA runtime for the current device, which the runtime reads from the
        // current driver context: making the primary context current is enough.
        self.ctx.enter("ncclCommInitRankConfig")
    }

    fn raw_stream(&self, op: &str, stream: &Arc<dyn Stream>) -> Result<*mut c_void> {
        let s = stream
            .as_any()
            .downcast_ref::<CudaStream>()
            .ok_or_else(|| Error::value(op, "the stream does not belong to the CUDA backend"))?;
        if s.device_ordinal() != self.ctx.ordinal {
            return Err(Error::DeviceMismatch {
                op: op.into(),
                lhs: self.ctx.label.clone(),
                rhs: format!("a stream of cuda:{}", s.device_ordinal()),
            });
        }
        Ok(s.cu_stream() as *mut c_void)
    }
}

/// Let `a` and `b` reach each other's memory when the hardware allows (`cuCtxEnablePeerAccess`
/// both ways, once per pair and process). Answers whether the copies between them are direct;
/// when not, `cuMemcpyPeerAsync` stages them through the host itself.
pub(crate) fn enable_peer_access(a: &Context, b: &Context) -> Result<bool> {
    static PAIRS: Mutex<Option<HashSet<(usize, usize, bool)>>> = Mutex::new(None);
    let key = (a.ordinal.min(b.ordinal), a.ordinal.max(b.ordinal));
    let mut g = PAIRS.lock().unwrap_or_else(|p| p.into_inner());
    let set = g.get_or_insert_with(HashSet::new);
    if let Some(&(_, _, direct)) = set.iter().find(|(x, y, _)| (*x, *y) == key) {
        return Ok(direct);
    }
    let can = |from: usize, to: usize| -> Result<bool> {
        let (mut df, mut dt): (sys::CUdevice, sys::CUdevice) = (0, 0);
        let (f, t) = (from as c_int, to as c_int);
        // SAFETY: the driver is initialised (a context exists); valid out-pointers.
        crate::result::check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut df, f) })?;
        // SAFETY: as above.
        crate::result::check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut dt, t) })?;
        let mut v: c_int = 0;
        // SAFETY: both are devices from cuDeviceGet; `v` is a valid out-pointer.
        crate::result::check("cuDeviceCanAccessPeer", unsafe { sys::cuDeviceCanAccessPeer(&mut v, df, dt) })?;
        Ok(v != 0)
    };
    let enable = |from: &Context, to: &Context| -> Result<()> {
        from.enter("cuCtxEnablePeerAccess")?;
        // SAFETY: `from` is current; `to` is a live primary context; flags must be 0.
        let r = unsafe { sys::cuCtxEnablePeerAccess(to.raw, 0) };
        if r == CUresult::CUDA_SUCCESS || r == CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
            Ok(())
        } else {
            from.check("cuCtxEnablePeerAccess", r)
        }
    };
    let direct = can(a.ordinal, b.ordinal)? && can(b.ordinal, a.ordinal)? && {
        enable(a, b)?;
        enable(b, a)?;
        true
    };
    set.insert((key.0, key.1, direct));
    Ok(direct)
}
