//! Running generated kernels: the per-device kernel cache, the current stream, and the
//! elementwise launcher every ufunc, cast and copy goes through.
//!
//! Kernels are compiled once per device and kept by a key made of what decides their code
//! (op, loop, layout, index width, dtypes), so a repeated op neither renders nor hashes its
//! source again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;
use xp_backend_api::{
    CompileOptions, DType, DynDevice, Error, Kernel, KernelArg, KernelSource, LaunchConfig, Result, Stream,
};
use xp_kernels::elementwise::{collapse, gpu_layout, index_width_for, ElementwiseSpec, IndexWidth, Layout as KLayout};

use crate::Array;

/// What decides a cached kernel's code on one device.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum KernelKey {
    /// A ufunc loop: op name, loop signature, storage dtypes of the operands (inputs then
    /// outputs), which inputs are by-value scalars, layout, index width.
    Ufunc { op: &'static str, sig: &'static str, storage: DTypes, scalars: u8, layout: KLayout, index: IndexWidth },
    /// `astype`.
    Cast { from: DType, to: DType, layout: KLayout, index: IndexWidth },
    /// Any other kernel, by its unique name.
    Named(String),
}

/// The storage dtypes of a ufunc call's operands, inline (a key is built for every launch):
/// up to [`DTypes::MAX`], unused places `Bool`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DTypes([DType; DTypes::MAX], u8);

impl DTypes {
    /// More operands than any ufunc has (`where`: three inputs and an output; `divmod`: two
    /// and two).
    pub(crate) const MAX: usize = 8;

    pub(crate) fn new(op: &str, dts: &[DType]) -> Result<Self> {
        if dts.len() > Self::MAX {
            return Err(Error::Unsupported(format!(
                "{op}: {} operands (elementwise kernels take {})",
                dts.len(),
                Self::MAX
            )));
        }
        let mut a = [DType::Bool; Self::MAX];
        a[..dts.len()].copy_from_slice(dts);
        Ok(DTypes(a, dts.len() as u8))
    }
}

type Cache = RwLock<HashMap<(usize, KernelKey), Arc<dyn Kernel>>>;

fn cache() -> &'static Cache {
    static C: OnceLock<Cache> = OnceLock::new();
    C.get_or_init(Default::default)
}

pub(crate) fn device_id(d: &Arc<dyn DynDevice>) -> usize {
    Arc::as_ptr(d) as *const () as usize
}

/// How xp's elementwise kernels are compiled: with the compiler's quicker optimisation level
/// ([`CompileOptions::fast_compile`]) unless `XP_FAST_COMPILE=0`. Their loops lose nothing by
/// it on an H100, where reductions, scans and the tiled transpose lost 10–25% and keep the
/// full level.
fn elementwise_options() -> CompileOptions {
    static FAST: OnceLock<bool> = OnceLock::new();
    let fast = *FAST.get_or_init(|| std::env::var("XP_FAST_COMPILE").map(|v| v.trim() != "0").unwrap_or(true));
    CompileOptions::default().with_fast_compile(fast)
}

/// The kernel for `key` on `device`, compiled from `render()` the first time.
pub(crate) fn kernel(
    device: &Arc<dyn DynDevice>,
    key: KernelKey,
    render: impl FnOnce() -> (String, String),
) -> Result<Arc<dyn Kernel>> {
    kernel_with(device, key, &CompileOptions::default(), render)
}

/// [`kernel`] for an elementwise kernel (see [`elementwise_options`]).
pub(crate) fn elementwise_kernel(
    device: &Arc<dyn DynDevice>,
    key: KernelKey,
    render: impl FnOnce() -> (String, String),
) -> Result<Arc<dyn Kernel>> {
    kernel_with(device, key, &elementwise_options(), render)
}

fn kernel_with(
    device: &Arc<dyn DynDevice>,
    key: KernelKey,
    options: &CompileOptions,
    render: impl FnOnce() -> (String, String),
) -> Result<Arc<dyn Kernel>> {
    let k = (device_id(device), key);
    if let Some(f) = cache().read().get(&k) {
        return Ok(Arc::clone(f));
    }
    let (name, code) = render();
    let module = device.compile(&KernelSource::new(&name, &code), options)?;
    let f = module.function(&name)?;
    cache().write().insert(k, Arc::clone(&f));
    Ok(f)
}

thread_local! {
    static STREAMS: RefCell<Vec<(usize, Arc<dyn Stream>)>> = const { RefCell::new(Vec::new()) };
}

/// Run `f` with `stream` (of `device`) as the current stream of that device on this thread:
/// ops on arrays of that device are queued on it.
pub fn with_stream<R>(device: &Arc<dyn DynDevice>, stream: &Arc<dyn Stream>, f: impl FnOnce() -> R) -> R {
    STREAMS.with(|s| s.borrow_mut().push((device_id(device), Arc::clone(stream))));
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            STREAMS.with(|s| s.borrow_mut().pop());
        }
    }
    let _pop = Pop;
    f()
}

/// The stream ops on `device` use on this thread: the innermost [`with_stream`], else the
/// device's default stream.
pub fn current_stream(device: &Arc<dyn DynDevice>) -> Arc<dyn Stream> {
    let id = device_id(device);
    STREAMS
        .with(|s| s.borrow().iter().rev().find(|(d, _)| *d == id).map(|(_, s)| Arc::clone(s)))
        .unwrap_or_else(|| device.default_stream())
}

/// Whether `device` is the CPU backend (which has only ahead-of-time built-in kernels for
/// operands of a loop's own dtypes, and passes scalars as one-element arrays).
pub(crate) fn is_cpu(device: &Arc<dyn DynDevice>) -> bool {
    device.properties().is_host
}

/// A launch configuration of `n` independent work items (grid-stride kernels).
pub(crate) fn flat_config(device: &Arc<dyn DynDevice>, n: usize) -> LaunchConfig {
    if is_cpu(device) {
        let workers = device.properties().multiprocessor_count.max(1) as usize;
        LaunchConfig::new((n / 16384).clamp(1, workers * 4) as u32, 1)
    } else {
        let max_grid = device.properties().max_grid_dim[0].max(1) as u64;
        LaunchConfig::new((n as u64).div_ceil(256).clamp(1, max_grid.min(65535 * 64)) as u32, 256)
    }
}

/// A kernel that does not depend on the call (its name says everything), compiled once.
pub(crate) fn named_kernel(
    device: &Arc<dyn DynDevice>,
    render: impl FnOnce() -> xp_kernels::elementwise::Rendered,
) -> Result<Arc<dyn Kernel>> {
    let r = render();
    let name = r.name.clone();
    kernel(device, KernelKey::Named(name), || (r.name, r.code))
}

/// The shape argument of a kernel (`xp::Shape`).
pub(crate) fn shape_arg_bytes(shape: &[usize]) -> Vec<u8> {
    shape_arg(shape)
}

/// An input of an elementwise launch.
pub(crate) enum EwIn<'a> {
    /// An array already broadcast to the output shape.
    Array(&'a Array),
    /// A value passed by copy (its bytes in the loop's dtype).
    Value(&'a [u8]),
}

fn shape_arg(shape: &[usize]) -> Vec<u8> {
    let mut v = Vec::with_capacity(72);
    v.extend((shape.len() as i64).to_ne_bytes());
    for d in 0..8 {
        v.extend((*shape.get(d).unwrap_or(&0) as i64).to_ne_bytes());
    }
    v
}

fn strides_arg(strides: &[isize]) -> Vec<u8> {
    let mut v = Vec::with_capacity(64);
    for d in 0..8 {
        v.extend((*strides.get(d).unwrap_or(&0) as i64).to_ne_bytes());
    }
    v
}

/// Whether kernels of `layout` take the (merged) shape and each operand's strides after their
/// pointers; the contiguous layouts take only the element count.
pub(crate) fn takes_strides(layout: KLayout) -> bool {
    matches!(layout, KLayout::Strided | KLayout::Rows)
}

/// Launch an elementwise kernel over `outputs[0]`'s shape. `spec(layout, index)` gives the
/// kernel; `key(layout, index)` its cache key.
pub(crate) fn launch_elementwise(
    op: &str,
    key: impl Fn(KLayout, IndexWidth) -> KernelKey,
    spec: impl Fn(KLayout, IndexWidth) -> ElementwiseSpec,
    inputs: &[EwIn<'_>],
    outputs: &[&Array],
) -> Result<()> {
    let out0 = outputs[0];
    let device = out0.device_arc();
    let n = out0.size();
    if n == 0 {
        return Ok(());
    }
    let shape = out0.shape();
    let arrays: Vec<&Array> = inputs
        .iter()
        .filter_map(|i| match i {
            EwIn::Array(a) => Some(*a),
            EwIn::Value(_) => None,
        })
        .chain(outputs.iter().copied())
        .collect();
    for a in &arrays {
        if a.shape() != shape {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: a.shape().to_vec(),
                rhs: shape.to_vec(),
                reason: "differ inside an elementwise launch".into(),
            });
        }
        if !Arc::ptr_eq(&a.device_arc(), &device) {
            return Err(Error::DeviceMismatch { op: op.into(), lhs: a.device().label(), rhs: device.label() });
        }
    }
    let cpu = is_cpu(&device);
    // On GPUs, C-contiguous operands need neither merged dimensions nor strides.
    let flat = !cpu && arrays.iter().all(|a| a.is_contiguous());
    let (cshape, cstrides) = if flat {
        (Vec::new(), Vec::new())
    } else {
        let strides: Vec<Vec<isize>> = arrays.iter().map(|a| a.strides().to_vec()).collect();
        collapse(shape, &strides)
    };
    if cshape.len() > 8 {
        return Err(Error::Unsupported(format!(
            "{op}: operands whose layouts need {} dimensions after merging (kernels take 8)",
            cshape.len()
        )));
    }
    let reach = if flat {
        n - 1
    } else {
        cstrides
            .iter()
            .map(|st| st.iter().zip(&cshape).map(|(s, d)| s.unsigned_abs() * (d - 1)).sum::<usize>())
            .max()
            .unwrap_or(0)
    };
    let (layout, index) = if cpu {
        (KLayout::Rows, IndexWidth::I64)
    } else {
        let contiguous = flat || (cshape.len() == 1 && cstrides.iter().all(|s| s[0] == 1));
        (gpu_layout(n, contiguous), index_width_for(n, reach))
    };
    let f = elementwise_kernel(&device, key(layout, index), || {
        let r = spec(layout, index).render();
        (r.name, r.code)
    })?;
    let stream = current_stream(&device);
    let strided = takes_strides(layout);
    let shape_bytes = if strided { shape_arg(&cshape) } else { Vec::new() };
    let stride_bytes: Vec<Vec<u8>> =
        if strided { cstrides.iter().map(|s| strides_arg(s)).collect() } else { Vec::new() };
    let n_bytes: Vec<u8> =
        if index == IndexWidth::I32 { (n as i32).to_ne_bytes().to_vec() } else { (n as i64).to_ne_bytes().to_vec() };
    let mut args: Vec<KernelArg<'_>> = Vec::with_capacity(arrays.len() * 2 + 3);
    for i in inputs {
        match i {
            EwIn::Array(a) => args.push(a.kernel_arg()),
            EwIn::Value(v) => args.push(KernelArg::Value(v)),
        }
    }
    for o in outputs {
        args.push(o.kernel_arg());
    }
    if strided {
        args.push(KernelArg::Value(&shape_bytes));
        for s in &stride_bytes {
            args.push(KernelArg::Value(s));
        }
    }
    args.push(KernelArg::Value(&n_bytes));
    let config = if cpu {
        let workers = device.properties().multiprocessor_count.max(1) as usize;
        let g = (n / 16384).clamp(1, workers * 4);
        LaunchConfig::new(g as u32, 1)
    } else {
        let block = 256u32;
        let max_grid = device.properties().max_grid_dim[0].max(1) as u64;
        // The contiguous layout takes four elements per thread.
        let work = if layout == KLayout::Contiguous { (n as u64).div_ceil(4) } else { n as u64 };
        let blocks = work.div_ceil(block as u64).min(max_grid).min(65535 * 64);
        LaunchConfig::new(blocks as u32, block)
    };
    stream.launch(&*f, &config, &args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_keys_hold_up_to_their_capacity_and_refuse_more() {
        let a = DTypes::new("add", &[DType::F32, DType::F32, DType::F32]).unwrap();
        let b = DTypes::new("add", &[DType::F32, DType::F32, DType::F64]).unwrap();
        assert_ne!(a, b);
        // Unused places do not alias a shorter list.
        assert_ne!(DTypes::new("x", &[DType::Bool]).unwrap(), DTypes::new("x", &[DType::Bool, DType::Bool]).unwrap());
        assert!(DTypes::new("x", &[DType::I8; DTypes::MAX]).is_ok());
        let e = DTypes::new("my_op", &[DType::I8; DTypes::MAX + 1]).unwrap_err().to_string();
        assert!(e.contains("my_op") && e.contains("9 operands"), "{e}");
    }
}
