//! The FFT library family of the contract (ARCHITECTURE.md §2.5): a device hands out its [`FftLib`]
//! (cuFFT on CUDA, hipFFT on HIP, `rustfft`/`realfft` on the CPU), which makes [`FftPlan`]s
//! from an [`FftDesc`] — cuFFT's "advanced data layout", the common ground of the three
//! libraries. Plans are made by the array layer's plan cache and executed on a stream with a
//! work area from xp's memory pool.
//!
//! Transforms are unnormalised in both directions (as cuFFT, hipFFT and rustfft); the array
//! layer applies NumPy's `norm`.

use std::sync::Arc;

use crate::{Buffer, Result, Stream};

/// What a transform maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FftKind {
    /// Complex to complex, either direction.
    C2C,
    /// Real to the non-redundant half of the complex spectrum (`n/2 + 1` along the last
    /// transformed dimension), forward.
    R2C,
    /// The inverse of [`FftKind::R2C`]: a half spectrum to real values.
    C2R,
}

/// One plan's shape, in elements of the input and output types (a complex element counts
/// once): `n.len()` (1 to 3) dimensions, the last one contiguous inside each transform at
/// `istride` / `ostride`, `batch` transforms `idist` / `odist` apart. The dimensions of one
/// transform are laid out as a C-order array of extents `inembed` (`onembed`) whose innermost
/// step is the stride: element `(i0, .., ik)` of transform `b` is at
/// `b * idist + ((i0 * inembed[1] + i1) * .. + ik) * istride`. For a 1-d transform the embed
/// holds just `n[0]`'s slot, which is not read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FftDesc {
    /// What is transformed.
    pub kind: FftKind,
    /// Double precision (f64 / complex128) instead of single.
    pub double: bool,
    /// The logical sizes (of the real signal for `R2C`/`C2R`), outermost first.
    pub n: Vec<usize>,
    /// How many transforms.
    pub batch: usize,
    /// Input extents (`inembed[0]` is not read).
    pub inembed: Vec<usize>,
    /// Input step between neighbours of the last dimension.
    pub istride: usize,
    /// Input step between transforms.
    pub idist: usize,
    /// Output extents (`onembed[0]` is not read).
    pub onembed: Vec<usize>,
    /// Output step between neighbours of the last dimension.
    pub ostride: usize,
    /// Output step between transforms.
    pub odist: usize,
}

impl FftDesc {
    /// Bytes of one input element and one output element.
    pub fn element_bytes(&self) -> (usize, usize) {
        let real = if self.double { 8 } else { 4 };
        match self.kind {
            FftKind::C2C => (2 * real, 2 * real),
            FftKind::R2C => (real, 2 * real),
            FftKind::C2R => (2 * real, real),
        }
    }

    /// The extents of one transform's input and output (the half spectrum's last
    /// dimension is `n/2 + 1`).
    pub fn logical_extents(&self) -> (Vec<usize>, Vec<usize>) {
        let mut half = self.n.clone();
        if let Some(last) = half.last_mut() {
            *last = *last / 2 + 1;
        }
        match self.kind {
            FftKind::C2C => (self.n.clone(), self.n.clone()),
            FftKind::R2C => (self.n.clone(), half),
            FftKind::C2R => (half, self.n.clone()),
        }
    }

    /// Elements (of the input, then of the output type) from the start of the buffer
    /// to one past the last element the plan touches.
    pub fn spans(&self) -> (usize, usize) {
        let (ie, oe) = self.logical_extents();
        let span = |ext: &[usize], embed: &[usize], stride: usize, dist: usize| {
            if self.batch == 0 || ext.contains(&0) {
                return 0;
            }
            // The offset of the last element of the last transform, plus one.
            let mut off = 0usize;
            let mut step = stride;
            for d in (0..ext.len()).rev() {
                off += (ext[d] - 1) * step;
                step *= embed[d].max(1);
            }
            (self.batch - 1) * dist + off + 1
        };
        (span(&ie, &self.inembed, self.istride, self.idist), span(&oe, &self.onembed, self.ostride, self.odist))
    }
}

/// A plan of one [`FftDesc`] on one device.
pub trait FftPlan: Send + Sync {
    /// The plan's description.
    fn desc(&self) -> &FftDesc;
    /// Bytes of work area [`FftPlan::execute`] needs (0: none).
    fn work_size(&self) -> usize;
    /// Queue the transform on `stream`: input at `input.1` bytes into `input.0`, output at
    /// `output.1` bytes into `output.0` (not overlapping the input), with `work` holding at
    /// least [`FftPlan::work_size`] bytes. `forward` picks the sign of C2C transforms
    /// (`exp(-2πi…)` when true); R2C is always forward and C2R always inverse. The input may
    /// be overwritten (cuFFT's C2R does).
    fn execute(
        &self,
        stream: &Arc<dyn Stream>,
        input: (&Buffer, usize),
        output: (&Buffer, usize),
        work: Option<&Buffer>,
        forward: bool,
    ) -> Result<()>;
}

/// A device's FFT library.
pub trait FftLib: Send + Sync {
    /// The library and its version, e.g. `cuFFT 12.0.0` or `rustfft`.
    fn name(&self) -> String;
    /// A plan for `desc`. An invalid description is a `Value` error; a description the
    /// library refuses is the library's error.
    fn plan(&self, desc: &FftDesc) -> Result<Arc<dyn FftPlan>>;
}

/// Check `desc` before planning: what every library needs. `lib` names the library.
pub fn check_desc(lib: &str, desc: &FftDesc) -> Result<()> {
    let bad = |why: String| Err(crate::Error::Value { op: format!("{lib} plan"), reason: why });
    let rank = desc.n.len();
    if !(1..=3).contains(&rank) {
        return bad(format!("a plan has 1 to 3 dimensions, not {rank}"));
    }
    if desc.inembed.len() != rank || desc.onembed.len() != rank {
        return bad(format!(
            "inembed {:?} and onembed {:?} must have the rank {rank} of n {:?}",
            desc.inembed, desc.onembed, desc.n
        ));
    }
    if desc.n.contains(&0) || desc.batch == 0 {
        return bad(format!("empty transform: n {:?}, batch {}", desc.n, desc.batch));
    }
    if desc.istride == 0 || desc.ostride == 0 {
        return bad("strides must be positive".into());
    }
    let (ie, oe) = desc.logical_extents();
    for d in 1..rank {
        if desc.inembed[d] < ie[d] || desc.onembed[d] < oe[d] {
            return bad(format!(
                "dimension {d}: inembed {:?} / onembed {:?} smaller than the extents {ie:?} / {oe:?}",
                desc.inembed, desc.onembed
            ));
        }
    }
    Ok(())
}
