//! What cuFFT and hipFFT share. They have the same API (hipFFT's names carry the `hipfft`
//! prefix), so the type codes, directions, layout arguments, status names and the checks before
//! an execution are written once, here.

use std::sync::Arc;

use crate::fft::{check_desc, FftDesc, FftKind};
use crate::gpu::{GpuTarget, LibraryOperand};
use crate::{Buffer, Error, MemoryPool, Result, Stream};

/// `direction` of a forward complex transform (`CUFFT_FORWARD`, `HIPFFT_FORWARD`).
pub const FFT_FORWARD: i32 = -1;
/// `direction` of an inverse complex transform (`CUFFT_INVERSE`, `HIPFFT_BACKWARD`).
pub const FFT_INVERSE: i32 = 1;

/// The `direction` argument of a complex execution.
pub fn fft_direction(forward: bool) -> i32 {
    if forward {
        FFT_FORWARD
    } else {
        FFT_INVERSE
    }
}

/// The six transforms of cuFFT's API (hipFFT has the same): a [`FftKind`] in one precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FftTransform {
    /// Single complex to single complex.
    C2C,
    /// Double complex to double complex.
    Z2Z,
    /// Single real to single complex.
    R2C,
    /// Double real to double complex.
    D2Z,
    /// Single complex to single real.
    C2R,
    /// Double complex to double real.
    Z2D,
}

impl FftTransform {
    /// The transform `desc` describes.
    pub fn of(desc: &FftDesc) -> Self {
        match (desc.kind, desc.double) {
            (FftKind::C2C, false) => FftTransform::C2C,
            (FftKind::C2C, true) => FftTransform::Z2Z,
            (FftKind::R2C, false) => FftTransform::R2C,
            (FftKind::R2C, true) => FftTransform::D2Z,
            (FftKind::C2R, false) => FftTransform::C2R,
            (FftKind::C2R, true) => FftTransform::Z2D,
        }
    }

    /// The `cufftType` / `hipfftType` value (`CUFFT_C2C` is `0x29`, …).
    pub fn type_code(self) -> i32 {
        match self {
            FftTransform::R2C => 0x2a,
            FftTransform::C2R => 0x2c,
            FftTransform::C2C => 0x29,
            FftTransform::D2Z => 0x6a,
            FftTransform::Z2D => 0x6c,
            FftTransform::Z2Z => 0x69,
        }
    }
}

/// The arguments of `cufftMakePlanMany64` / `hipfftMakePlanMany64` for one description: the
/// arrays are the ones the call reads, outermost dimension first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanMany64 {
    /// `rank`: 1 to 3.
    pub rank: i32,
    /// `n`.
    pub n: Vec<i64>,
    /// `inembed`.
    pub inembed: Vec<i64>,
    /// `istride`.
    pub istride: i64,
    /// `idist`.
    pub idist: i64,
    /// `onembed`.
    pub onembed: Vec<i64>,
    /// `ostride`.
    pub ostride: i64,
    /// `odist`.
    pub odist: i64,
    /// `batch`.
    pub batch: i64,
}

impl PlanMany64 {
    /// The arguments for `desc`, after [`check_desc`] for `lib`; a size past `i64` is a
    /// `Value` error.
    pub fn new(lib: &str, desc: &FftDesc) -> Result<Self> {
        check_desc(lib, desc)?;
        let big = || Error::Value {
            op: format!("{lib} plan"),
            reason: format!("a size of {desc:?} does not fit a 64-bit integer"),
        };
        let one = |v: usize| i64::try_from(v).map_err(|_| big());
        let all = |v: &[usize]| v.iter().map(|&x| one(x)).collect::<Result<Vec<i64>>>();
        Ok(PlanMany64 {
            rank: desc.n.len() as i32,
            n: all(&desc.n)?,
            inembed: all(&desc.inembed)?,
            istride: one(desc.istride)?,
            idist: one(desc.idist)?,
            onembed: all(&desc.onembed)?,
            ostride: one(desc.ostride)?,
            odist: one(desc.odist)?,
            batch: one(desc.batch)?,
        })
    }
}

/// The symbolic name of a status code of cuFFT (`prefix` `CUFFT`) or hipFFT (`HIPFFT`):
/// `CUFFT_INVALID_SIZE`. Both libraries number their codes alike.
pub fn fft_status_name(prefix: &str, code: i64) -> String {
    let suffix = match code {
        0 => "SUCCESS",
        1 => "INVALID_PLAN",
        2 => "ALLOC_FAILED",
        3 => "INVALID_TYPE",
        4 => "INVALID_VALUE",
        5 => "INTERNAL_ERROR",
        6 => "EXEC_FAILED",
        7 => "SETUP_FAILED",
        8 => "INVALID_SIZE",
        9 => "UNALIGNED_DATA",
        10 => "INCOMPLETE_PARAMETER_LIST",
        11 => "INVALID_DEVICE",
        12 => "PARSE_ERROR",
        13 => "NO_WORKSPACE",
        14 => "NOT_IMPLEMENTED",
        15 => "LICENSE_ERROR",
        16 => "NOT_SUPPORTED",
        // cuFFT 12 (CUDA 13) and later.
        17 => "MISSING_DEPENDENCY",
        18 => "NVRTC_FAILURE",
        19 => "NVJITLINK_FAILURE",
        20 => "NVSHMEM_FAILURE",
        _ => return format!("{prefix} status {code}"),
    };
    format!("{prefix}_{suffix}")
}

/// The status code both libraries return when they cannot allocate memory.
pub const FFT_ALLOC_FAILED: i64 = 2;

/// `Ok` for status 0, else the [`Error::Driver`] of `api` with the code's name (see
/// [`fft_status_name`]); `detail` says what xp was doing.
pub fn fft_check(prefix: &str, api: &str, code: i64, detail: impl FnOnce() -> String) -> Result<()> {
    if code == 0 {
        return Ok(());
    }
    let mut detail = detail();
    if code == FFT_ALLOC_FAILED {
        if !detail.is_empty() {
            detail.push_str("; ");
        }
        detail.push_str("the FFT library could not allocate device or host memory");
    }
    Err(Error::Driver { api: api.to_string(), code, name: fft_status_name(prefix, code), detail })
}

/// Make a plan with `make`; when the library runs out of memory ([`FFT_ALLOC_FAILED`]), give
/// back the blocks `pool` caches and try once more, as the pool does for its own allocations.
pub fn plan_retrying<P>(pool: &MemoryPool, mut make: impl FnMut() -> Result<P>) -> Result<P> {
    match make() {
        Err(Error::Driver { code: FFT_ALLOC_FAILED, .. }) => {
            pool.free_all_cached()?;
            make()
        }
        r => r,
    }
}

/// Device addresses of one execution, checked by [`open_gpu_execute`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FftPointers {
    /// The first input element.
    pub input: u64,
    /// The first output element.
    pub output: u64,
    /// The work area, or 0 when the plan needs none.
    pub work: u64,
}

/// Check an execution of a plan of `desc` needing `work_size` bytes of work area on the GPU
/// `target`, before anything is queued, and return the stream as the backend's type `S` and
/// the addresses to pass: the checks of
/// [`GpuTarget::open_library_call`] on the input and
/// the output (the stream's backend and device, the buffers' pool, aligned offsets, spans
/// inside the buffers, an output not overlapping the input), and a work area of at least
/// `work_size` bytes from the device's pool for a plan that needs one (`Value`).
///
/// When everything holds, every buffer is noted as used by the stream
/// ([`Buffer::note_use`]), so the pool does not reuse it before the transform has run.
#[allow(clippy::too_many_arguments)]
pub fn open_gpu_execute<'s, S: std::any::Any>(
    target: &GpuTarget<'_>,
    lib: &str,
    desc: &FftDesc,
    work_size: usize,
    stream: &'s Arc<dyn Stream>,
    stream_ordinal: impl FnOnce(&S) -> usize,
    input: (&Buffer, usize),
    output: (&Buffer, usize),
    work: Option<&Buffer>,
) -> Result<(&'s S, FftPointers)> {
    let op = format!("{lib} execute");
    let work_ptr = match (work_size, work) {
        (0, _) => None,
        (_, Some(w)) if w.len() >= work_size => {
            w.check_pool(&op, target.pool, target.label)?;
            Some(w)
        }
        (_, Some(w)) => {
            return Err(Error::value(&op, format!("the work area has {} bytes; the plan needs {work_size}", w.len())))
        }
        (_, None) => {
            return Err(Error::value(&op, format!("the plan needs a work area of {work_size} bytes")));
        }
    };
    let (ie, oe) = desc.element_bytes();
    let (ispan, ospan) = desc.spans();
    let (s, [i0, o0]) = target.open_library_call(
        &op,
        stream,
        stream_ordinal,
        [LibraryOperand::read("input", input, ie, ispan), LibraryOperand::written("output", output, oe, ospan)],
    )?;
    let work_ptr = work_ptr.map_or(0, |w| {
        w.note_use(stream);
        w.device_ptr()
    });
    Ok((s, FftPointers { input: i0, output: o0, work: work_ptr }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::null::{NullDevice, NullStream};
    use crate::Device;

    fn c2c(n: usize, batch: usize) -> FftDesc {
        FftDesc {
            kind: FftKind::C2C,
            double: false,
            n: vec![n],
            batch,
            inembed: vec![n],
            istride: 1,
            idist: n,
            onembed: vec![n],
            ostride: 1,
            odist: n,
        }
    }

    #[test]
    fn transforms_carry_the_vendor_type_codes() {
        let mut d = c2c(8, 1);
        assert_eq!(FftTransform::of(&d), FftTransform::C2C);
        assert_eq!(FftTransform::C2C.type_code(), 0x29);
        d.double = true;
        assert_eq!(FftTransform::of(&d).type_code(), 0x69);
        d.kind = FftKind::R2C;
        assert_eq!(FftTransform::of(&d), FftTransform::D2Z);
        assert_eq!(FftTransform::D2Z.type_code(), 0x6a);
        d.kind = FftKind::C2R;
        d.double = false;
        assert_eq!(FftTransform::of(&d).type_code(), 0x2c);
        assert_eq!((fft_direction(true), fft_direction(false)), (-1, 1));
    }

    #[test]
    fn status_names_and_errors() {
        assert_eq!(fft_status_name("CUFFT", 8), "CUFFT_INVALID_SIZE");
        assert_eq!(fft_status_name("HIPFFT", 16), "HIPFFT_NOT_SUPPORTED");
        assert_eq!(fft_status_name("HIPFFT", 99), "HIPFFT status 99");
        assert!(fft_check("CUFFT", "cufftCreate", 0, String::new).is_ok());
        match fft_check("CUFFT", "cufftMakePlanMany64", 2, || "planning".into()) {
            Err(Error::Driver { api, code, name, detail }) => {
                assert_eq!((api.as_str(), code, name.as_str()), ("cufftMakePlanMany64", 2, "CUFFT_ALLOC_FAILED"));
                assert!(detail.starts_with("planning; ") && detail.contains("memory"), "{detail}");
            }
            other => panic!("expected Error::Driver, got {other:?}"),
        }
    }

    #[test]
    fn plan_many_arguments_follow_the_description() {
        let mut d = c2c(16, 3);
        d.n = vec![4, 16];
        d.inembed = vec![4, 20];
        d.onembed = vec![4, 16];
        let p = PlanMany64::new("cuFFT", &d).unwrap();
        assert_eq!((p.rank, p.n.clone(), p.inembed.clone(), p.batch), (2, vec![4, 16], vec![4, 20], 3));
        d.n = vec![];
        assert!(matches!(PlanMany64::new("cuFFT", &d), Err(Error::Value { .. })));
    }

    #[test]
    fn executions_are_checked_before_anything_runs() {
        let dev = NullDevice::new(1 << 20, None).unwrap();
        let pool = Device::memory_pool(&dev);
        let stream: Arc<dyn Stream> = NullStream::new();
        let target = dev.gpu_target();
        let d = c2c(8, 2); // 16 complex64 elements: 128 bytes each way
        let open = |input: (&Buffer, usize), output: (&Buffer, usize), work: Option<&Buffer>, work_size: usize| {
            open_gpu_execute::<NullStream>(&target, "test", &d, work_size, &stream, |_| 0, input, output, work)
                .map(|(_, p)| p)
        };
        let (a, b, w) =
            (pool.alloc(128, &stream).unwrap(), pool.alloc(136, &stream).unwrap(), pool.alloc(64, &stream).unwrap());
        let p = open((&a, 0), (&b, 8), Some(&w), 64).unwrap();
        assert_eq!((p.input, p.output, p.work), (a.device_ptr(), b.device_ptr() + 8, w.device_ptr()));
        assert_eq!(open((&a, 0), (&b, 0), None, 0).unwrap().work, 0);
        // Too small, misaligned, overlapping, without the work area it needs.
        assert!(matches!(open((&a, 8), (&b, 0), None, 0), Err(Error::Index { .. })));
        assert!(matches!(open((&b, 16), (&a, 0), None, 0), Err(Error::Index { .. })));
        assert!(matches!(open((&a, 0), (&b, 4), None, 0), Err(Error::Value { .. })));
        assert!(matches!(open((&b, 0), (&b, 8), None, 0), Err(Error::Value { .. })));
        assert!(matches!(open((&a, 0), (&b, 0), None, 64), Err(Error::Value { .. })));
        assert!(matches!(open((&a, 0), (&b, 0), Some(&w), 65), Err(Error::Value { .. })));
        // A stream of another device.
        let r = open_gpu_execute::<NullStream>(&target, "test", &d, 0, &stream, |_| 1, (&a, 0), (&b, 0), None);
        assert!(matches!(r, Err(Error::DeviceMismatch { .. })));
        // A buffer of another pool.
        let other = NullDevice::new(1 << 20, None).unwrap();
        let foreign = Device::memory_pool(&other).alloc(128, &stream).unwrap();
        assert!(matches!(open((&foreign, 0), (&b, 0), None, 0), Err(Error::DeviceMismatch { .. })));
    }
}
