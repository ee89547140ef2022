//! Collectives on CUDA devices: NCCL, found by [`crate::library`]'s search, opened by its full
//! path, declared in `xp_backend_api::gpu::nccl`; this file says how to reach a CUDA device.

use std::ffi::c_void;
use std::sync::Arc;

use xp_backend_api::gpu::nccl::{NcclApi, NcclDevice};
use xp_backend_api::{Error, Result, Stream};

use crate::context::Context;
use crate::stream::CudaStream;

/// NCCL on one CUDA device.
pub(crate) struct CudaCollectives {
    pub(crate) ctx: Arc<Context>,
    pub(crate) api: &'static NcclApi,
}

impl NcclDevice for CudaCollectives {
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
