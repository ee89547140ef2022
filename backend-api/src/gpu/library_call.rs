//! The checks before a GPU vendor library (cuFFT, cuBLAS, hipFFT, rocBLAS, …) is handed device
//! buffers: written once here, so that every library call of every GPU backend refuses the
//! same things with the same errors before anything is queued. The FFT execution
//! ([`crate::gpu::fft::open_gpu_execute`]) and the matrix product ([`crate::gpu::blas::open_gpu_gemm`])
//! are both built on [`GpuTarget::open_library_call`].

use std::any::Any;
use std::sync::Arc;

use crate::gpu::GpuTarget;
use crate::{Buffer, Error, Result, Stream};

/// One buffer a library call reads or writes: `span` elements of `elem` bytes from `offset`
/// bytes into `buffer`.
#[derive(Clone, Copy)]
pub struct LibraryOperand<'b> {
    /// The operand in messages: `input`, `A`.
    pub what: &'static str,
    /// The buffer.
    pub buffer: &'b Buffer,
    /// Bytes from the buffer's start to the operand's first element.
    pub offset: usize,
    /// Bytes of one element (the offset must be a multiple of it).
    pub elem: usize,
    /// Elements from the first to one past the last the call touches (0: none).
    pub span: usize,
    /// Whether the call writes the operand: then it must not overlap any other operand.
    pub written: bool,
}

impl<'b> LibraryOperand<'b> {
    /// An operand the call only reads.
    pub fn read(what: &'static str, (buffer, offset): (&'b Buffer, usize), elem: usize, span: usize) -> Self {
        LibraryOperand { what, buffer, offset, elem, span, written: false }
    }

    /// An operand the call writes.
    pub fn written(what: &'static str, (buffer, offset): (&'b Buffer, usize), elem: usize, span: usize) -> Self {
        LibraryOperand { what, buffer, offset, elem, span, written: true }
    }
}

impl GpuTarget<'_> {
    /// Check a call of a vendor library named by `op` (`cuBLAS gemm`) on `stream` with
    /// `operands`, before anything is queued, and return the stream as the backend's type `S`
    /// and each operand's device address:
    /// - the stream belongs to the backend (`Value`) and to this device (`DeviceMismatch`;
    ///   `stream_ordinal` reads its device);
    /// - every buffer comes from the device's pool (`DeviceMismatch`);
    /// - each offset is a multiple of its element's size (`Value`: the libraries need aligned
    ///   data);
    /// - each span fits its buffer past the offset (`Index`);
    /// - no written operand overlaps another operand (`Value`: the libraries do not work in
    ///   place). Operands that are only read may alias each other.
    ///
    /// When everything holds, every buffer is noted as used by the stream
    /// ([`Buffer::note_use`]), so the pool does not reuse it before the call has run.
    pub fn open_library_call<'s, S: Any, const N: usize>(
        &self,
        op: &str,
        stream: &'s Arc<dyn Stream>,
        stream_ordinal: impl FnOnce(&S) -> usize,
        operands: [LibraryOperand<'_>; N],
    ) -> Result<(&'s S, [u64; N])> {
        let (s, ptrs) = self.open_library_call_slice(op, stream, stream_ordinal, &operands)?;
        Ok((s, ptrs.try_into().expect("one address per operand")))
    }

    /// [`GpuTarget::open_library_call`] for a number of operands known at run time (the
    /// solvers'): one address per operand, in order.
    pub fn open_library_call_slice<'s, S: Any>(
        &self,
        op: &str,
        stream: &'s Arc<dyn Stream>,
        stream_ordinal: impl FnOnce(&S) -> usize,
        operands: &[LibraryOperand<'_>],
    ) -> Result<(&'s S, Vec<u64>)> {
        let s = stream
            .as_any()
            .downcast_ref::<S>()
            .ok_or_else(|| Error::value(op, format!("the stream does not belong to the {} backend", self.vendor)))?;
        let ordinal = stream_ordinal(s);
        if ordinal != self.ordinal {
            return Err(Error::DeviceMismatch {
                op: op.to_string(),
                lhs: self.label.to_string(),
                rhs: format!("a stream of {}:{ordinal}", self.backend),
            });
        }
        let mut ranges = vec![(0u64, 0u64); operands.len()];
        for (o, range) in operands.iter().zip(&mut ranges) {
            o.buffer.check_pool(op, self.pool, self.label)?;
            if o.offset % o.elem.max(1) != 0 {
                return Err(Error::value(
                    op,
                    format!(
                        "the {} offset {} is not a multiple of its element size {} bytes",
                        o.what, o.offset, o.elem
                    ),
                ));
            }
            let bytes = o.span.checked_mul(o.elem).ok_or_else(|| {
                Error::value(op, format!("the {} span of {} elements overflows the address space", o.what, o.span))
            })?;
            let what = format!("{op} ({} of {} elements of {} bytes)", o.what, o.span, o.elem);
            o.buffer.check_range(&what, o.offset, bytes)?;
            *range = (o.buffer.device_ptr() + o.offset as u64, bytes as u64);
        }
        for (i, w) in operands.iter().enumerate().filter(|(_, o)| o.written) {
            for (j, other) in operands.iter().enumerate().filter(|&(j, _)| j != i) {
                let ((w0, wlen), (o0, olen)) = (ranges[i], ranges[j]);
                if wlen > 0 && olen > 0 && w0 < o0 + olen && o0 < w0 + wlen {
                    return Err(Error::value(
                        op,
                        format!("the {} overlaps the {}: the library does not work in place", w.what, other.what),
                    ));
                }
            }
        }
        for o in operands {
            o.buffer.note_use(stream);
        }
        Ok((s, ranges.into_iter().map(|(start, _)| start).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::null::{NullDevice, NullStream};
    use crate::Device;

    #[test]
    fn operands_are_checked_then_noted_as_used() {
        let dev = NullDevice::new(1 << 20, None).unwrap();
        let pool = Device::memory_pool(&dev);
        let stream: Arc<dyn Stream> = NullStream::new();
        let target = dev.gpu_target();
        let (a, c) = (pool.alloc(64, &stream).unwrap(), pool.alloc(64, &stream).unwrap());
        let open = |ops: [LibraryOperand<'_>; 3]| {
            target.open_library_call::<NullStream, 3>("t", &stream, |_| 0, ops).map(|(_, p)| p)
        };
        let (ra, rb) = (LibraryOperand::read("A", (&a, 0), 4, 16), LibraryOperand::read("B", (&a, 32), 4, 8));
        // The two read operands alias; the written one is apart.
        let p = open([ra, rb, LibraryOperand::written("C", (&c, 8), 4, 14)]).unwrap();
        assert_eq!(p, [a.device_ptr(), a.device_ptr() + 32, c.device_ptr() + 8]);
        // Too long, misaligned, overlapping; an empty operand overlaps nothing.
        let e = open([ra, rb, LibraryOperand::written("C", (&c, 8), 4, 15)]).unwrap_err();
        assert!(matches!(&e, Error::Index { op, .. } if op.contains("C of 15 elements")), "{e}");
        assert!(matches!(open([ra, rb, LibraryOperand::written("C", (&c, 2), 4, 1)]), Err(Error::Value { .. })));
        let e = open([ra, rb, LibraryOperand::written("C", (&a, 60), 4, 1)]).unwrap_err();
        assert!(matches!(&e, Error::Value { reason, .. } if reason.contains("the C overlaps the A")), "{e}");
        assert!(open([ra, rb, LibraryOperand::written("C", (&a, 64), 4, 0)]).is_ok());
        // A stream of another device; a buffer of another pool.
        let r = target.open_library_call::<NullStream, 1>("t", &stream, |_| 1, [ra]);
        assert!(matches!(r, Err(Error::DeviceMismatch { .. })));
        let other = NullDevice::new(1 << 20, None).unwrap();
        let foreign = Device::memory_pool(&other).alloc(64, &stream).unwrap();
        let r = target.open_library_call::<NullStream, 1>(
            "t",
            &stream,
            |_| 0,
            [LibraryOperand::read("A", (&foreign, 0), 4, 1)],
        );
        assert!(matches!(r, Err(Error::DeviceMismatch { .. })));
        // A stream of another backend.
        let r = target.open_library_call::<u8, 1>("t", &stream, |_| 0, [ra]);
        assert!(
            matches!(&r, Err(Error::Value { reason, .. }) if reason.contains("does not belong to the null backend"))
        );
    }
}
