//! What cuSOLVER and rocSOLVER share: the checks before a factorisation is queued.

use std::sync::Arc;

use crate::gpu::{GpuTarget, LibraryOperand};
use crate::solver::{check_operand_count, SolverDesc};
use crate::{Buffer, Result, Stream};

/// Check `desc` on the GPU `target` for the library `lib` (`cuSOLVER`) before anything is
/// queued, as [`open_gpu_gemm`](crate::gpu::blas::open_gpu_gemm) does for products: the
/// description ([`SolverDesc::check`]), then the checks of
/// [`GpuTarget::open_library_call`] on every operand
/// (the stream's backend and device, the pool, alignment, each operand's span, no written
/// operand overlapping another). Returns the stream as the backend's type `S` and the
/// operands' device addresses, in order.
pub fn open_gpu_solver<'s, S: std::any::Any>(
    target: &GpuTarget<'_>,
    lib: &str,
    desc: &SolverDesc,
    stream: &'s Arc<dyn Stream>,
    stream_ordinal: impl FnOnce(&S) -> usize,
    operands: &[(&Buffer, usize)],
) -> Result<(&'s S, Vec<u64>)> {
    let op = format!("{lib} {}", desc.lapack_name());
    desc.check(&op)?;
    check_operand_count(&op, desc, operands)?;
    let specs = desc.operands();
    let ops: Vec<LibraryOperand<'_>> = specs
        .iter()
        .zip(operands)
        .map(|(s, &o)| {
            let span = s.per_matrix * desc.batch;
            if s.written {
                LibraryOperand::written(s.name, o, s.dtype.size(), span)
            } else {
                LibraryOperand::read(s.name, o, s.dtype.size(), span)
            }
        })
        .collect();
    target.open_library_call_slice(&op, stream, stream_ordinal, &ops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::SolverCall;
    use crate::{DType, Error};

    #[test]
    fn gpu_calls_check_every_operand() {
        use crate::null::{NullDevice, NullStream};
        use crate::Device;
        let dev = NullDevice::new(1 << 20, None).unwrap();
        let pool = Device::memory_pool(&dev);
        let stream: Arc<dyn Stream> = NullStream::new();
        let target = dev.gpu_target();
        let d = SolverDesc { dtype: DType::F32, batch: 2, call: SolverCall::Getrf { n: 3 } };
        let (a, p, i) =
            (pool.alloc(72, &stream).unwrap(), pool.alloc(24, &stream).unwrap(), pool.alloc(8, &stream).unwrap());
        let open = |ops: &[(&Buffer, usize)]| {
            open_gpu_solver::<NullStream>(&target, "lib", &d, &stream, |_| 0, ops).map(|(_, p)| p)
        };
        let ptrs = open(&[(&a, 0), (&p, 0), (&i, 0)]).unwrap();
        assert_eq!(ptrs, [a.device_ptr(), p.device_ptr(), i.device_ptr()]);
        assert!(matches!(open(&[(&a, 0), (&p, 0)]), Err(Error::Value { .. })));
        let e = open(&[(&a, 4), (&p, 0), (&i, 0)]).unwrap_err();
        assert!(e.to_string().contains("lib sgetrf"), "{e}");
        assert!(matches!(open(&[(&a, 0), (&a, 0), (&i, 0)]), Err(Error::Value { .. })));
    }
}
