//! FFTs on CUDA devices: the contract's [`FftLib`] and [`FftPlan`] over cuFFT.
//!
//! # The library
//! cuFFT is called through cudarc's `cufft` bindings, like the driver: cudarc declares every
//! function and loads the library at run time, so nothing is linked. Its loader panics when the
//! library is missing, so cuFFT is found first by xp's own search (the `library` module:
//! `XP_CUFFT_PATH`, the CUDA toolkit, the `nvidia-cufft` / `nvidia/cu13` pip wheels, then the
//! loader path; file names `libcufft.so.12` (CUDA 13), `libcufft.so.11`, `libcufft.so`), opened
//! by its full path with `RTLD_GLOBAL`, and only then, once `is_culib_present` agrees, is any
//! cuFFT function called. A missing cuFFT is [`Error::BackendUnavailable`] from
//! [`Device::fft`](xp_backend_api::Device::fft), which probes the library once per device.
//!
//! # Plans
//! A plan is made with `cufftMakePlanMany64` (cuFFT's advanced layout, which is what
//! [`FftDesc`] describes) on the device's primary context, with auto-allocation off: the plan
//! reports its work area size and the caller passes a work buffer from xp's pool at each
//! execution. When planning runs out of memory (`CUFFT_ALLOC_FAILED`), the pool's cached blocks
//! are freed and planning is tried once more. The shared checks of every GPU backend
//! (`xp_backend_api::gpu::fft::open_gpu_execute`) run before anything is queued; then, under the
//! plan's lock (a cuFFT handle holds one stream and one work area at a time), the plan is bound
//! to the stream and the work area and executed. Every cuFFT status other than success is
//! [`Error::Driver`] with cuFFT's name of the code (`CUFFT_INVALID_SIZE`).
//!
//! Dropping a plan destroys its handle (`cufftDestroy`); an error there is kept by the pool
//! and returned by the device's next synchronising call.

use std::sync::Arc;

use cudarc::cufft::sys;
use parking_lot::Mutex;
use xp_backend_api::gpu::fft::{fft_check, fft_direction, open_gpu_execute, plan_retrying, FftTransform, PlanMany64};
use xp_backend_api::gpu::GpuTarget;
use xp_backend_api::{Buffer, FftDesc, FftLib, FftPlan, MemoryPool, Result, Stream};

use crate::context::Context;
use crate::library;
use crate::stream::CudaStream;

/// `Ok` for `CUFFT_SUCCESS`, else the [`Error::Driver`] of `api`.
fn check(api: &str, r: sys::cufftResult, detail: impl FnOnce() -> String) -> Result<()> {
    fft_check("CUFFT", api, r as i64, detail)
}

/// cuFFT's type for a transform.
fn cufft_type(t: FftTransform) -> sys::cufftType {
    use sys::cufftType::*;
    match t {
        FftTransform::C2C => CUFFT_C2C,
        FftTransform::Z2Z => CUFFT_Z2Z,
        FftTransform::R2C => CUFFT_R2C,
        FftTransform::D2Z => CUFFT_D2Z,
        FftTransform::C2R => CUFFT_C2R,
        FftTransform::Z2D => CUFFT_Z2D,
    }
}

/// cuFFT's version number (`cufftGetVersion`: major * 1000 + minor * 100 + patch), after
/// finding the library.
pub(crate) fn cufft_version() -> Result<i32> {
    library::cufft()?;
    let mut v = 0;
    // SAFETY: cuFFT is loaded where cudarc finds it (`library::cufft`); the call writes one int
    // through a valid pointer and needs no context.
    check("cufftGetVersion", unsafe { sys::cufftGetVersion(&mut v) }, String::new)?;
    Ok(v)
}

/// `12000` as `12.0.0`.
pub(crate) fn version_text(v: i32) -> String {
    format!("{}.{}.{}", v / 1000, (v % 1000) / 100, v % 100)
}

/// cuFFT on one device.
pub struct CufftLib {
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
    version: i32,
}

impl CufftLib {
    /// cuFFT for the device of `ctx`, or [`Error::BackendUnavailable`] naming `libcufft`.
    pub(crate) fn open(ctx: Arc<Context>, pool: Arc<MemoryPool>) -> Result<Self> {
        let version = cufft_version()?;
        Ok(CufftLib { ctx, pool, version })
    }

    fn try_plan(&self, desc: &FftDesc, args: &PlanMany64) -> Result<CufftPlan> {
        self.ctx.enter("cufftCreate")?;
        let mut handle: sys::cufftHandle = 0;
        // SAFETY: cuFFT is loaded (`open`); `handle` is a valid out-pointer.
        check("cufftCreate", unsafe { sys::cufftCreate(&mut handle) }, String::new)?;
        // From here the plan owns the handle: an early return destroys it.
        let mut plan = CufftPlan {
            desc: desc.clone(),
            work_size: 0,
            handle: Mutex::new(handle),
            ctx: Arc::clone(&self.ctx),
            pool: Arc::clone(&self.pool),
        };
        // SAFETY: `handle` was created just above and not yet made into a plan.
        check("cufftSetAutoAllocation", unsafe { sys::cufftSetAutoAllocation(handle, 0) }, String::new)?;
        let (mut n, mut inembed, mut onembed) = (args.n.clone(), args.inembed.clone(), args.onembed.clone());
        let mut work = 0usize;
        // SAFETY: the device's context is current (`enter`); the three arrays hold `rank`
        // elements each and outlive the call (cuFFT copies them); `work` is a valid out-pointer;
        // the sizes were checked by `PlanMany64::new` (rank 1..=3, positive extents, embeds at
        // least the extents).
        let r = unsafe {
            sys::cufftMakePlanMany64(
                handle,
                args.rank,
                n.as_mut_ptr(),
                inembed.as_mut_ptr(),
                args.istride,
                args.idist,
                onembed.as_mut_ptr(),
                args.ostride,
                args.odist,
                cufft_type(FftTransform::of(desc)),
                args.batch,
                &mut work,
            )
        };
        check("cufftMakePlanMany64", r, || format!("planning {desc:?} on {}", self.ctx.label))?;
        plan.work_size = work;
        Ok(plan)
    }
}

impl FftLib for CufftLib {
    fn name(&self) -> String {
        format!("cuFFT {}", version_text(self.version))
    }

    fn plan(&self, desc: &FftDesc) -> Result<Arc<dyn FftPlan>> {
        let args = PlanMany64::new("cuFFT", desc)?;
        Ok(Arc::new(plan_retrying(&self.pool, || self.try_plan(desc, &args))?))
    }
}

/// A cuFFT plan of one [`FftDesc`] on one device.
pub struct CufftPlan {
    desc: FftDesc,
    work_size: usize,
    /// The handle; its lock is held while the plan is bound to a stream and a work area and
    /// executed, which cuFFT does not allow two threads to do at once on one handle.
    handle: Mutex<sys::cufftHandle>,
    ctx: Arc<Context>,
    pool: Arc<MemoryPool>,
}

impl FftPlan for CufftPlan {
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
        let target = GpuTarget::new("cuda", "CUDA", self.ctx.ordinal, &self.ctx.label, &self.ctx.props, &self.pool);
        let (s, at) = open_gpu_execute::<CudaStream>(
            &target,
            "cuFFT",
            &self.desc,
            self.work_size,
            stream,
            |s| s.device_ordinal(),
            input,
            output,
            work,
        )?;
        self.ctx.enter("cufftExec")?;
        let h = self.handle.lock();
        // SAFETY: the context is current; `*h` is a live plan of this context; the stream is a
        // live stream of the same context (checked by `open_gpu_execute`), kept alive by the
        // caller's `Arc` for the call (cuFFT only records it).
        check("cufftSetStream", unsafe { sys::cufftSetStream(*h, s.cu_stream() as sys::cudaStream_t) }, String::new)?;
        let work_ptr = at.work as usize as *mut std::ffi::c_void;
        // SAFETY: `work_ptr` is null when the plan needs no work area, else the start of a
        // buffer of this device holding at least `work_size` bytes (checked), noted as used by
        // the stream so the pool keeps it until the transform has run.
        check("cufftSetWorkArea", unsafe { sys::cufftSetWorkArea(*h, work_ptr) }, String::new)?;
        let (i, o, dir) = (at.input as usize, at.output as usize, fft_direction(forward));
        // SAFETY: the context is current and the plan bound to a stream and work area of this
        // device; `i` and `o` point into buffers of this device that hold the plan's whole input
        // and output spans past their offsets, aligned to their elements and not overlapping
        // (checked by `open_gpu_execute`), and stay allocated until the stream's work on them
        // ends (stream-ordered pool).
        let r = unsafe {
            match FftTransform::of(&self.desc) {
                FftTransform::C2C => sys::cufftExecC2C(*h, i as *mut _, o as *mut _, dir),
                FftTransform::Z2Z => sys::cufftExecZ2Z(*h, i as *mut _, o as *mut _, dir),
                FftTransform::R2C => sys::cufftExecR2C(*h, i as *mut _, o as *mut _),
                FftTransform::D2Z => sys::cufftExecD2Z(*h, i as *mut _, o as *mut _),
                FftTransform::C2R => sys::cufftExecC2R(*h, i as *mut _, o as *mut _),
                FftTransform::Z2D => sys::cufftExecZ2D(*h, i as *mut _, o as *mut _),
            }
        };
        check("cufftExec", r, || format!("{:?} of {:?} on {}", FftTransform::of(&self.desc), self.desc, self.ctx.label))
    }
}

impl Drop for CufftPlan {
    fn drop(&mut self) {
        if self.ctx.is_corrupted() {
            return;
        }
        let h = *self.handle.get_mut();
        let r = self.ctx.enter("cufftDestroy").and_then(|_| {
            // SAFETY: the context is current and the handle is destroyed once, here. cuFFT
            // releases the plan's device memory with cudaFree, which waits for the work queued
            // on the device, so a transform still queued with this plan completes first.
            check("cufftDestroy", unsafe { sys::cufftDestroy(h) }, String::new)
        });
        self.pool.defer(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cufft_types_are_the_shared_codes() {
        use FftTransform::*;
        for t in [C2C, Z2Z, R2C, D2Z, C2R, Z2D] {
            assert_eq!(cufft_type(t) as i32, t.type_code(), "{t:?}");
        }
        assert_eq!(version_text(12000), "12.0.0");
        assert_eq!(version_text(11203), "11.2.3");
    }
}
