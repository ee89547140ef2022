//! FFTs on AMD GPUs: the contract's [`FftLib`] and [`FftPlan`] over hipFFT (rocFFT underneath).
//!
//! # The library
//! hipFFT has cuFFT's API under `hipfft` names, so this file has the CUDA backend's shape
//! (`backend-cuda/src/fft.rs`), and what the two would otherwise both write — the transform
//! codes, the plan-many arguments, the status names, the checks before an execution, the retry
//! after running out of memory — is theirs in common, in `xp_backend_api::fft`. Like the HIP
//! runtime, hipFFT is opened with `libloading` and called through a table of function pointers
//! ([`sys::HipFft`], declared from ROCm's `hipfft/hipfft.h`): no crate binds it, and nothing is
//! linked at build time. It is looked for as `libhipfft.so.0`, `.so.1`, `.so` in
//! `XP_HIPFFT_PATH` (the file, or a folder holding it), `$ROCM_PATH/lib`, `/opt/rocm/lib`, then
//! on the loader path (see the `sys` module), once per process, when a device's FFTs are
//! first asked for; a missing library is [`Error::BackendUnavailable`](xp_backend_api::Error::BackendUnavailable) naming `libhipfft`, the
//! places tried and how to install it, and nothing panics.
//!
//! # Plans
//! As on CUDA: `hipfftMakePlanMany64` with auto-allocation off, on the plan's device
//! (`hipSetDevice`); the work area comes from xp's pool at each execution; the plan's lock
//! holds the handle while it is bound to the stream and the work area and executed; every
//! status other than success is [`Error::Driver`](xp_backend_api::Error::Driver) with hipFFT's name of the code
//! (`HIPFFT_INVALID_SIZE`); dropping a plan destroys its handle and keeps an error for the
//! device's next synchronising call.
//!
//! # Not run here
//! This code was built and its loader's failure paths tested on machines without hipFFT and
//! without an AMD GPU: planning and executing have not run against a real hipFFT.

use std::sync::Arc;

use parking_lot::Mutex;
use xp_backend_api::gpu::fft::{fft_check, fft_direction, open_gpu_execute, plan_retrying, FftTransform, PlanMany64};
use xp_backend_api::gpu::GpuTarget;
use xp_backend_api::library::VendorHandle;
use xp_backend_api::{Buffer, DeviceProperties, FftDesc, FftLib, FftPlan, MemoryPool, Result, Stream};

use crate::blas::device_handle;
use crate::stream::HipStream;
use crate::{result, sys};

/// `Ok` for `HIPFFT_SUCCESS`, else the [`xp_backend_api::Error::Driver`] of `api`.
fn check(api: &str, r: sys::hipfftResult, detail: impl FnOnce() -> String) -> Result<()> {
    fft_check("HIPFFT", api, r as i64, detail)
}

/// hipFFT's version: rocFFT's, as `hipfftGetVersion` encodes it (two decimal digits each for
/// minor and patch: `10027` is `1.0.27`).
fn version_text(v: i32) -> String {
    format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
}

/// hipFFT's version, after loading it.
pub(crate) fn hipfft_version() -> Result<String> {
    let lib = sys::hipfft()?;
    let mut v = 0;
    // SAFETY: hipfftGetVersion writes one int through a valid pointer; `lib` keeps hipFFT open.
    check("hipfftGetVersion", unsafe { (lib.api.hipfftGetVersion)(&mut v) }, String::new)?;
    Ok(version_text(v))
}

/// hipFFT on one device.
pub struct HipFftLib {
    fft: &'static sys::HipFft,
    ordinal: usize,
    label: String,
    props: Arc<DeviceProperties>,
    pool: Arc<MemoryPool>,
    version: String,
}

impl HipFftLib {
    /// hipFFT for device `ordinal`, or [`xp_backend_api::Error::BackendUnavailable`] naming
    /// `libhipfft`.
    pub(crate) fn open(ordinal: usize, props: Arc<DeviceProperties>, pool: Arc<MemoryPool>) -> Result<Self> {
        let lib = sys::hipfft()?;
        let version = hipfft_version()?;
        Ok(HipFftLib { fft: &lib.api, ordinal, label: format!("hip:{ordinal}"), props, pool, version })
    }

    fn try_plan(&self, desc: &FftDesc, args: &PlanMany64) -> Result<HipFftPlan> {
        result::set_device(self.ordinal)?;
        let mut handle: sys::hipfftHandle = std::ptr::null_mut();
        // SAFETY: hipFFT is loaded (`open`); `handle` is a valid out-pointer.
        check("hipfftCreate", unsafe { (self.fft.hipfftCreate)(&mut handle) }, String::new)?;
        let fft = self.fft;
        let destroy = move |h| {
            // SAFETY: the handle is live and destroyed once, here. hipFFT releases the plan's
            // device memory with hipFree, which waits for the work queued on the device, so a
            // transform still queued with this plan completes first.
            check("hipfftDestroy", unsafe { (fft.hipfftDestroy)(h) }, String::new)
        };
        // SAFETY: `handle` was created just above, on this device, and only the plan destroys
        // it, with `destroy`; a hipFFT plan may be used from any host thread, and the plan keeps
        // it behind a lock, so one thread at a time binds and executes it.
        let owned = unsafe { device_handle(handle, self.ordinal, &self.pool, destroy) };
        // From here the plan owns the handle: an early return destroys it.
        let mut plan = HipFftPlan {
            desc: desc.clone(),
            work_size: 0,
            handle: Mutex::new(owned),
            fft: self.fft,
            ordinal: self.ordinal,
            label: self.label.clone(),
            props: Arc::clone(&self.props),
            pool: Arc::clone(&self.pool),
        };
        // SAFETY: `handle` was created just above and not yet made into a plan.
        check("hipfftSetAutoAllocation", unsafe { (self.fft.hipfftSetAutoAllocation)(handle, 0) }, String::new)?;
        let (mut n, mut inembed, mut onembed) = (args.n.clone(), args.inembed.clone(), args.onembed.clone());
        let mut work = 0usize;
        // SAFETY: the plan's device is current (`set_device`); the three arrays hold `rank`
        // elements each and outlive the call; `work` is a valid out-pointer; the sizes were
        // checked by `PlanMany64::new` (rank 1..=3, positive extents, embeds at least the
        // extents).
        let r = unsafe {
            (self.fft.hipfftMakePlanMany64)(
                handle,
                args.rank,
                n.as_mut_ptr(),
                inembed.as_mut_ptr(),
                args.istride,
                args.idist,
                onembed.as_mut_ptr(),
                args.ostride,
                args.odist,
                FftTransform::of(desc).type_code(),
                args.batch,
                &mut work,
            )
        };
        check("hipfftMakePlanMany64", r, || format!("planning {desc:?} on {}", self.label))?;
        plan.work_size = work;
        Ok(plan)
    }
}

impl FftLib for HipFftLib {
    fn name(&self) -> String {
        format!("hipFFT (rocFFT {})", self.version)
    }

    fn plan(&self, desc: &FftDesc) -> Result<Arc<dyn FftPlan>> {
        let args = PlanMany64::new("hipFFT", desc)?;
        Ok(Arc::new(plan_retrying(&self.pool, || self.try_plan(desc, &args))?))
    }
}

/// A hipFFT plan of one [`FftDesc`] on one device.
pub struct HipFftPlan {
    desc: FftDesc,
    work_size: usize,
    /// The handle; its lock is held while the plan is bound to a stream and a work area and
    /// executed, which hipFFT does not allow two threads to do at once on one handle.
    handle: Mutex<VendorHandle<sys::hipfftHandle>>,
    fft: &'static sys::HipFft,
    ordinal: usize,
    label: String,
    props: Arc<DeviceProperties>,
    pool: Arc<MemoryPool>,
}

impl FftPlan for HipFftPlan {
    fn desc(&self) -> &FftDesc {
        &self.desc
    }

    fn work_size(&self) -> usize {
        self.work_size
    }

    fn execute(
        &self,
        stream: &Arc<dyn Stream>,
        input: (&Buffer, usize),
        output: (&Buffer, usize),
        work: Option<&Buffer>,
        forward: bool,
    ) -> Result<()> {
        let target = GpuTarget::new("hip", "HIP", self.ordinal, &self.label, &self.props, &self.pool);
        let (s, at) = open_gpu_execute::<HipStream>(
            &target,
            "hipFFT",
            &self.desc,
            self.work_size,
            stream,
            |s| s.ordinal(),
            input,
            output,
            work,
        )?;
        result::set_device(self.ordinal)?;
        let guard = self.handle.lock();
        let h = guard.raw();
        // SAFETY: `h` is a live plan of this device; the stream is a live stream of the same
        // device (checked by `open_gpu_execute`), kept alive by the caller's `Arc` for the call.
        check("hipfftSetStream", unsafe { (self.fft.hipfftSetStream)(h, s.handle().raw()) }, String::new)?;
        let work_ptr = at.work as usize as *mut std::ffi::c_void;
        // SAFETY: `work_ptr` is null when the plan needs no work area, else the start of a
        // buffer of this device holding at least `work_size` bytes (checked), noted as used by
        // the stream so the pool keeps it until the transform has run.
        check("hipfftSetWorkArea", unsafe { (self.fft.hipfftSetWorkArea)(h, work_ptr) }, String::new)?;
        let (i, o, dir) =
            (at.input as usize as sys::hipfftData, at.output as usize as sys::hipfftData, fft_direction(forward));
        let f = self.fft;
        // SAFETY: the device is current and the plan bound to a stream and work area of this
        // device; `i` and `o` point into buffers of this device that hold the plan's whole input
        // and output spans past their offsets, aligned to their elements and not overlapping
        // (checked by `open_gpu_execute`), and stay allocated until the stream's work on them
        // ends (stream-ordered pool).
        let r = unsafe {
            match FftTransform::of(&self.desc) {
                FftTransform::C2C => (f.hipfftExecC2C)(h, i, o, dir),
                FftTransform::Z2Z => (f.hipfftExecZ2Z)(h, i, o, dir),
                FftTransform::R2C => (f.hipfftExecR2C)(h, i, o),
                FftTransform::D2Z => (f.hipfftExecD2Z)(h, i, o),
                FftTransform::C2R => (f.hipfftExecC2R)(h, i, o),
                FftTransform::Z2D => (f.hipfftExecZ2D)(h, i, o),
            }
        };
        check("hipfftExec", r, || format!("{:?} of {:?} on {}", FftTransform::of(&self.desc), self.desc, self.label))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocfft_versions_read_as_three_numbers() {
        assert_eq!(version_text(10027), "1.0.27");
        assert_eq!(version_text(10300), "1.3.0");
    }
}
