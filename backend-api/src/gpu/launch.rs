//! The checks that open every launch and copy of a GPU backend ([`GpuTarget`]), and the
//! packing of kernel arguments the way the vendor launch calls take them ([`PackedArgs`]).

use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

use crate::device::{DeviceProperties, Kernel, Stream};
use crate::launch::{resolve_args, KernelArg, LaunchConfig, RawArg};
use crate::memory::{Buffer, MemoryPool};
use crate::{check_launch, Error, Result};

/// What the shared checks ask of a GPU backend's kernel type.
pub trait GpuKernel: Kernel + Any {
    /// The ordinal of the device the kernel's module is loaded on.
    fn device_ordinal(&self) -> usize;
    /// The byte size of each parameter, where the vendor reports them.
    fn param_sizes(&self) -> Option<&[usize]>;
}

/// The device a GPU stream queues work on, as the checks that open every launch and copy see
/// it. Each backend's stream builds one and calls [`GpuTarget::open_launch`] and the copy
/// checks before its vendor calls, so every GPU backend refuses the same things with the same
/// errors.
pub struct GpuTarget<'a> {
    /// The backend's name in labels: `cuda`, `hip`.
    pub backend: &'a str,
    /// The backend's name in prose: `CUDA`, `HIP`.
    pub vendor: &'a str,
    /// The device's ordinal.
    pub ordinal: usize,
    /// The device's label, `cuda:0`.
    pub label: &'a str,
    /// The device's limits.
    pub props: &'a DeviceProperties,
    /// The device's pool, which every buffer used must come from.
    pub pool: &'a MemoryPool,
}

impl<'a> GpuTarget<'a> {
    /// The device `label` (`cuda:0`), ordinal `ordinal` of the backend `backend` (`cuda`), called
    /// `vendor` in prose (`CUDA`), with its limits and its pool.
    pub fn new(
        backend: &'a str,
        vendor: &'a str,
        ordinal: usize,
        label: &'a str,
        props: &'a DeviceProperties,
        pool: &'a MemoryPool,
    ) -> Self {
        GpuTarget { backend, vendor, ordinal, label, props, pool }
    }

    /// Check a launch before anything is queued, and return the kernel as the backend's type
    /// `K`: the kernel was compiled by this backend ([`Error::Launch`]) for this device
    /// ([`Error::DeviceMismatch`]), the geometry and dynamic shared memory fit the device
    /// ([`check_launch`]), and the arguments fit the kernel and the device
    /// ([`check_launch_args`]).
    pub fn open_launch<'k, K: GpuKernel>(
        &self,
        kernel: &'k dyn Kernel,
        config: &LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<&'k K> {
        let name = kernel.name();
        let k = kernel.as_any().downcast_ref::<K>().ok_or_else(|| Error::Launch {
            kernel: name.to_string(),
            reason: format!("the kernel was not compiled by the {} backend", self.vendor),
        })?;
        if k.device_ordinal() != self.ordinal {
            return Err(Error::DeviceMismatch {
                op: format!("launch of `{name}`"),
                lhs: self.label.to_string(),
                rhs: format!("{}:{}", self.backend, k.device_ordinal()),
            });
        }
        check_launch(name, self.props, config)?;
        check_launch_args(name, k.param_sizes(), self.pool, self.label, args)?;
        Ok(k)
    }

    /// Check one side of a copy by `op` (`copy_from_host`, `copy_to_host`): `bytes` at
    /// `offset` lie inside `buffer` ([`Error::Index`]), which belongs to this device
    /// ([`Error::DeviceMismatch`]). Returns whether there is anything to copy.
    pub fn open_host_copy(&self, op: &str, buffer: &Buffer, offset: usize, bytes: usize) -> Result<bool> {
        buffer.check_range(op, offset, bytes)?;
        buffer.check_pool(op, self.pool, self.label)?;
        Ok(bytes != 0)
    }

    /// Check a device-to-device copy (`copy_device`): both ranges lie inside their buffers,
    /// and both buffers belong to this device. Returns whether there is anything to copy.
    pub fn open_device_copy(
        &self,
        src: &Buffer,
        src_offset: usize,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<bool> {
        const OP: &str = "copy_device";
        src.check_range(OP, src_offset, bytes)?;
        dst.check_range(OP, dst_offset, bytes)?;
        src.check_pool(OP, self.pool, self.label)?;
        dst.check_pool(OP, self.pool, self.label)?;
        Ok(bytes != 0)
    }

    /// A copy from a buffer of this device to a buffer of the device `dst_target`
    /// (`Stream::copy_peer`): both ranges are checked against their buffers and pools; then,
    /// when there is anything to copy, `copy` queues it on `stream` (of this device) after the
    /// work `dst_stream` has queued so far (the destination may reuse memory that work still
    /// touches), the source is noted as used by `stream`, and `dst_stream` waits for the copy.
    #[allow(clippy::too_many_arguments)]
    pub fn peer_copy(
        &self,
        dst_target: &GpuTarget<'_>,
        stream: &Arc<dyn Stream>,
        dst_stream: &Arc<dyn Stream>,
        (src, src_offset): (&Buffer, usize),
        (dst, dst_offset): (&Buffer, usize),
        bytes: usize,
        copy: impl FnOnce(u64, u64) -> Result<()>,
    ) -> Result<()> {
        const OP: &str = "to_device (peer copy)";
        src.check_pool(OP, self.pool, self.label)?;
        src.check_range(OP, src_offset, bytes)?;
        dst.check_pool(OP, dst_target.pool, dst_target.label)?;
        dst.check_range(OP, dst_offset, bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        let before = dst_stream.record_event()?;
        stream.wait_event(&*before)?;
        src.note_use(stream);
        copy(src.device_ptr() + src_offset as u64, dst.device_ptr() + dst_offset as u64)?;
        let done = stream.record_event()?;
        dst_stream.wait_event(&*done)
    }
}

/// Check the arguments of a launch before anything is queued: their number and sizes against
/// the kernel's parameters (`param_sizes`, where the vendor reports them), then that every
/// buffer belongs to the device of `pool` (named `device_label`) and that its offset lies
/// inside it. Every failure is [`Error::Launch`] or [`Error::DeviceMismatch`] /
/// [`Error::Index`] naming the kernel.
pub fn check_launch_args(
    kernel: &str,
    param_sizes: Option<&[usize]>,
    pool: &MemoryPool,
    device_label: &str,
    args: &[KernelArg<'_>],
) -> Result<()> {
    if let Some(params) = param_sizes {
        check_param_sizes(kernel, params, args)?;
    }
    for a in args {
        if let KernelArg::Buffer { buffer, offset_bytes } = a {
            // The message is only written when a check fails: launches are on the hot path.
            if buffer.is_from(pool) && buffer.check_range("launch", *offset_bytes, 0).is_ok() {
                continue;
            }
            let op = format!("launch of `{kernel}`");
            buffer.check_pool(&op, pool, device_label)?;
            buffer.check_range(&op, *offset_bytes, 0)?;
        }
    }
    Ok(())
}

/// Check the argument count and sizes against a kernel's parameter sizes in bytes (a buffer
/// is passed as an 8-byte device address).
pub fn check_param_sizes(kernel: &str, params: &[usize], args: &[KernelArg<'_>]) -> Result<()> {
    let err = |reason: String| Err(Error::Launch { kernel: kernel.to_string(), reason });
    if params.len() != args.len() {
        return err(format!("the kernel takes {} parameters; {} arguments were given", params.len(), args.len()));
    }
    for (i, (size, arg)) in params.iter().zip(args).enumerate() {
        let given = match arg {
            KernelArg::Buffer { .. } => std::mem::size_of::<u64>(),
            KernelArg::Value(v) => v.len(),
        };
        if given != *size {
            return err(format!("parameter {i} is {size} bytes; the argument given is {given} bytes"));
        }
    }
    Ok(())
}

/// Kernel arguments packed the way `cuLaunchKernel` and `hipModuleLaunchKernel` take them
/// (`kernelParams`): one pointer per parameter, to bytes of the parameter's size. The bytes
/// are owned here, so the pointers stay valid for as long as this value lives.
pub struct PackedArgs {
    // The pointers point into the vector's heap storage, which does not move when
    // `PackedArgs` does.
    values: Vec<RawArg>,
    pointers: Vec<*mut c_void>,
}

impl PackedArgs {
    /// Resolve buffers to device addresses and point at every argument's bytes.
    pub fn new(args: &[KernelArg<'_>]) -> Self {
        let values = resolve_args(args);
        let pointers = values.iter().map(|a| a.bytes().as_ptr() as *mut c_void).collect();
        PackedArgs { values, pointers }
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the kernel takes no parameters.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The pointer array, or null when there are no parameters (as the vendor APIs accept).
    pub fn kernel_params(&mut self) -> *mut *mut c_void {
        if self.pointers.is_empty() {
            std::ptr::null_mut()
        } else {
            self.pointers.as_mut_ptr()
        }
    }

    /// The pointers as a slice.
    pub fn pointers_mut(&mut self) -> &mut [*mut c_void] {
        &mut self.pointers
    }
}

/// Record that work on `stream` uses every buffer among `args` (see [`crate::Buffer::note_use`]).
pub fn note_buffer_uses(args: &[KernelArg<'_>], stream: &Arc<dyn Stream>) {
    for a in args {
        if let KernelArg::Buffer { buffer, .. } = a {
            buffer.note_use(stream);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::scalar_bytes;
    use crate::null::NullDevice;
    use crate::Device;

    #[test]
    fn packed_args_point_at_each_parameter_s_bytes() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let s: Arc<dyn Stream> = d.default_stream();
        let buf = d.memory_pool().alloc(64, &s).unwrap();
        let n = 42u32;
        let args = [KernelArg::Buffer { buffer: &buf, offset_bytes: 16 }, KernelArg::Value(scalar_bytes(&n))];
        let mut packed = Box::new(PackedArgs::new(&args)); // moving it keeps the pointers valid
        assert_eq!(packed.len(), 2);
        let p = packed.pointers_mut().to_vec();
        // SAFETY: the pointers point at 8 and 4 bytes owned by `packed`, which is alive.
        let (addr, value) = unsafe { (*(p[0] as *const u64), *(p[1] as *const u32)) };
        assert_eq!((addr, value), (buf.device_ptr() + 16, 42));
        assert!(PackedArgs::new(&[]).kernel_params().is_null());
    }

    #[test]
    fn launch_arguments_are_checked_against_sizes_device_and_range() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let other = NullDevice::new(1 << 20, None).unwrap();
        let s: Arc<dyn Stream> = d.default_stream();
        let ours = d.memory_pool().alloc(64, &s).unwrap();
        let theirs = other.memory_pool().alloc(64, &s).unwrap();
        let n = 1u32;
        let pool = d.memory_pool();
        let ok = [KernelArg::buffer(&ours), KernelArg::Value(scalar_bytes(&n))];
        assert!(check_launch_args("k", Some(&[8, 4]), pool, "null:0", &ok).is_ok());
        let e = check_launch_args("k", Some(&[8, 8]), pool, "null:0", &ok).unwrap_err();
        assert!(matches!(&e, Error::Launch { reason, .. } if reason.contains("parameter 1 is 8 bytes")), "{e}");
        let e = check_launch_args("k", Some(&[8]), pool, "null:0", &ok).unwrap_err();
        assert!(matches!(&e, Error::Launch { reason, .. } if reason.contains("takes 1 parameters")), "{e}");
        let e = check_launch_args("k", None, pool, "null:0", &[KernelArg::buffer(&theirs)]).unwrap_err();
        assert!(matches!(&e, Error::DeviceMismatch { op, lhs, .. } if op == "launch of `k`" && lhs == "null:0"), "{e}");
        let past_end = [KernelArg::Buffer { buffer: &ours, offset_bytes: 65 }];
        assert!(matches!(check_launch_args("k", None, pool, "null:0", &past_end), Err(Error::Index { .. })));
    }

    /// A kernel of a made-up GPU backend, loaded on device `ordinal`.
    #[derive(Debug)]
    struct FakeKernel {
        ordinal: usize,
        params: Vec<usize>,
    }

    impl Kernel for FakeKernel {
        fn name(&self) -> &str {
            "k"
        }
        fn num_params(&self) -> Option<usize> {
            Some(self.params.len())
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    impl GpuKernel for FakeKernel {
        fn device_ordinal(&self) -> usize {
            self.ordinal
        }
        fn param_sizes(&self) -> Option<&[usize]> {
            Some(&self.params)
        }
    }

    /// A kernel of another backend still.
    struct OtherKernel;

    impl Kernel for OtherKernel {
        fn name(&self) -> &str {
            "other"
        }
        fn num_params(&self) -> Option<usize> {
            None
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    #[test]
    fn launches_open_with_the_backend_s_kernel_of_this_device() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let s: Arc<dyn Stream> = d.default_stream();
        let buf = d.memory_pool().alloc(64, &s).unwrap();
        let target = GpuTarget {
            backend: "gpu",
            vendor: "GPU",
            ordinal: 0,
            label: "gpu:0",
            props: d.properties(),
            pool: d.memory_pool(),
        };
        let cfg = LaunchConfig::new(1, 32);
        let args = [KernelArg::buffer(&buf)];
        let ours = FakeKernel { ordinal: 0, params: vec![8] };
        let k: &FakeKernel = target.open_launch(&ours, &cfg, &args).unwrap();
        assert!(std::ptr::eq(k, &ours));
        let e = target.open_launch::<FakeKernel>(&OtherKernel, &cfg, &args).unwrap_err();
        assert_eq!(e.to_string(), "launch of kernel `other` rejected: the kernel was not compiled by the GPU backend");
        let elsewhere = FakeKernel { ordinal: 1, params: vec![8] };
        let e = target.open_launch::<FakeKernel>(&elsewhere, &cfg, &args).unwrap_err();
        assert!(
            matches!(&e, Error::DeviceMismatch { op, lhs, rhs } if op == "launch of `k`" && lhs == "gpu:0" && rhs == "gpu:1"),
            "{e}"
        );
        let too_big = LaunchConfig::new(1, d.properties().max_threads_per_block + 1);
        assert!(matches!(target.open_launch::<FakeKernel>(&ours, &too_big, &args), Err(Error::Launch { .. })));
        let e = target.open_launch::<FakeKernel>(&ours, &cfg, &[]).unwrap_err();
        assert!(matches!(&e, Error::Launch { reason, .. } if reason.contains("takes 1 parameters")), "{e}");
    }

    #[test]
    fn copies_open_with_ranges_inside_buffers_of_this_device() {
        let d = NullDevice::new(1 << 20, None).unwrap();
        let other = NullDevice::new(1 << 20, None).unwrap();
        let s: Arc<dyn Stream> = d.default_stream();
        let (a, b) = (d.memory_pool().alloc(64, &s).unwrap(), d.memory_pool().alloc(64, &s).unwrap());
        let theirs = other.memory_pool().alloc(64, &s).unwrap();
        let target = GpuTarget {
            backend: "gpu",
            vendor: "GPU",
            ordinal: 0,
            label: "gpu:0",
            props: d.properties(),
            pool: d.memory_pool(),
        };
        assert!(target.open_host_copy("copy_to_host", &a, 32, 32).unwrap());
        assert!(!target.open_host_copy("copy_to_host", &a, 64, 0).unwrap());
        let e = target.open_host_copy("copy_from_host", &a, 33, 32).unwrap_err();
        assert!(matches!(&e, Error::Index { op, .. } if op == "copy_from_host"), "{e}");
        let e = target.open_host_copy("copy_from_host", &theirs, 0, 8).unwrap_err();
        assert!(matches!(&e, Error::DeviceMismatch { op, lhs, .. } if op == "copy_from_host" && lhs == "gpu:0"), "{e}");
        assert!(target.open_device_copy(&a, 0, &b, 32, 32).unwrap());
        assert!(!target.open_device_copy(&a, 0, &b, 0, 0).unwrap());
        assert!(matches!(target.open_device_copy(&a, 0, &b, 40, 32), Err(Error::Index { .. })));
        let e = target.open_device_copy(&a, 0, &theirs, 0, 8).unwrap_err();
        assert!(matches!(&e, Error::DeviceMismatch { op, .. } if op == "copy_device"), "{e}");
    }
}
