//! Running generated kernels: the per-device kernel cache, the current stream, and the
//! elementwise launcher every ufunc, cast and copy goes through.
//!
//! Kernels are compiled once per device and kept by a key made of what decides their code
//! (op, loop, layout, index width, dtypes), so a repeated op neither renders nor hashes its
//! source again.

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;
use xp_backend_api::{
    Buffer, CompileOptions, DType, DynDevice, Error, Kernel, KernelArg, KernelSource, LaunchConfig, Result, Stream,
};
use xp_kernels::elementwise::{ElementwiseSpec, IndexWidth, Layout as KLayout};
use xp_kernels::plan::{plan_elementwise, PlanArg, PlannedLaunch, Target};

use crate::Array;

/// What decides a cached kernel's code on one device.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum KernelKey {
    /// A ufunc loop: op name, loop signature, storage dtypes of the operands (inputs then
    /// outputs), which inputs are by-value scalars, layout, index width.
    Ufunc { op: &'static str, sig: &'static str, storage: DTypes, scalars: u8, layout: KLayout, index: IndexWidth },
    /// `astype`.
    Cast { from: DType, to: DType, layout: KLayout, index: IndexWidth },
    /// A fused kernel of lazy evaluation: the expression's signature, layout, index width.
    Lazy { sig: String, layout: KLayout, index: IndexWidth },
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

/// Kernels by device and key. Looked up at every launch, with keys that are xp's own (never
/// from outside), so hashed with Fx rather than SipHash.
type Cache = RwLock<rustc_hash::FxHashMap<(usize, KernelKey), Arc<dyn Kernel>>>;

fn cache() -> &'static Cache {
    static C: OnceLock<Cache> = OnceLock::new();
    C.get_or_init(Default::default)
}

pub(crate) fn device_id(d: &Arc<dyn DynDevice>) -> usize {
    Arc::as_ptr(d) as *const () as usize
}

/// How xp's elementwise kernels are compiled: without floating-point contraction, as every
/// kernel of xp's own (see [`CompileOptions::no_contraction`]: a fused chain of ops gives the
/// bits of the ops run one by one), and with the compiler's quicker optimisation level
/// ([`CompileOptions::fast_compile`]) unless `XP_FAST_COMPILE=0`. Their loops lose nothing by
/// it on an H100, where reductions, scans and the tiled transpose lost 10–25% and keep the
/// full level. A bad value of the variable is the error of every such compile.
fn elementwise_options() -> Result<CompileOptions> {
    static FAST: OnceLock<Result<bool>> = OnceLock::new();
    let fast = FAST.get_or_init(|| xp_backend_api::env::switch("XP_FAST_COMPILE", true)).clone()?;
    Ok(CompileOptions::default().with_fast_compile(fast).with_no_contraction(true))
}

/// The kernel for `key` on `device`, compiled from `render()` the first time.
pub(crate) fn kernel(
    device: &Arc<dyn DynDevice>,
    key: KernelKey,
    render: impl FnOnce() -> (String, String),
) -> Result<Arc<dyn Kernel>> {
    kernel_with(device, key, &CompileOptions::default().with_no_contraction(true), render)
}

/// [`kernel`] for an elementwise kernel (see [`elementwise_options`]).
pub(crate) fn elementwise_kernel(
    device: &Arc<dyn DynDevice>,
    key: KernelKey,
    render: impl FnOnce() -> (String, String),
) -> Result<Arc<dyn Kernel>> {
    kernel_with(device, key, &elementwise_options()?, render)
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

/// A current stream of this thread: (device, stream, the token of its scope).
type CurrentStream = (usize, Arc<dyn Stream>, u64);

thread_local! {
    /// The current streams of this thread, innermost last.
    static STREAMS: RefCell<Vec<CurrentStream>> = const { RefCell::new(Vec::new()) };
    static NEXT_TOKEN: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

/// Make `stream` (of `device`) the current stream of that device on this thread until
/// [`pop_stream`] with the returned token (entries are removed by token, so scopes that end
/// out of order remove their own entry).
pub(crate) fn push_stream(device: &Arc<dyn DynDevice>, stream: &Arc<dyn Stream>) -> u64 {
    let token = NEXT_TOKEN.with(|t| {
        let v = t.get();
        t.set(v + 1);
        v
    });
    STREAMS.with(|s| s.borrow_mut().push((device_id(device), Arc::clone(stream), token)));
    token
}

/// End the scope that [`push_stream`] began.
pub(crate) fn pop_stream(token: u64) {
    STREAMS.with(|s| {
        let mut s = s.borrow_mut();
        if let Some(i) = s.iter().rposition(|e| e.2 == token) {
            s.remove(i);
        }
    });
}

/// Run `f` with `stream` (of `device`) as the current stream of that device on this thread:
/// ops on arrays of that device are queued on it. (`xp::with_stream(&stream, f)` is the
/// form with a [`crate::Stream`].)
pub fn with_stream<R>(device: &Arc<dyn DynDevice>, stream: &Arc<dyn Stream>, f: impl FnOnce() -> R) -> R {
    struct Pop(u64);
    impl Drop for Pop {
        fn drop(&mut self) {
            pop_stream(self.0);
        }
    }
    let _pop = Pop(push_stream(device, stream));
    f()
}

/// The stream ops on `device` use on this thread: the innermost [`with_stream`], else the
/// device's default stream.
pub fn current_stream(device: &Arc<dyn DynDevice>) -> Arc<dyn Stream> {
    let id = device_id(device);
    STREAMS
        .with(|s| s.borrow().iter().rev().find(|(d, _, _)| *d == id).map(|(_, s, _)| Arc::clone(s)))
        .unwrap_or_else(|| device.default_stream())
}

/// The device of `arrays`, all of which must live on it: `DeviceMismatch` for `op` naming the
/// first two devices otherwise. Every entry point that takes several arrays calls it (or a
/// check of its own, as the elementwise launches do) before anything is allocated or queued,
/// so that no array's buffer reaches another device's kernels or libraries.
pub(crate) fn same_device(op: &str, arrays: &[&Array]) -> Result<Arc<dyn DynDevice>> {
    let Some(first) = arrays.first() else {
        return Err(Error::value(op, "no arrays were given"));
    };
    let d = &first.storage.device;
    for a in &arrays[1..] {
        if !Arc::ptr_eq(&a.storage.device, d) {
            return Err(Error::DeviceMismatch { op: op.into(), lhs: first.device().label(), rhs: a.device().label() });
        }
    }
    Ok(Arc::clone(d))
}

/// The plan target of `device` (planners know devices only through it).
pub(crate) fn target_of(device: &Arc<dyn DynDevice>) -> Target {
    Target::from_properties(device.properties())
}

/// What the symbolic pointer arguments of a plan ([`PlanArg::Input`], [`PlanArg::Output`],
/// [`PlanArg::Scratch`], [`PlanArg::Operand`]) point at.
#[derive(Default, Clone, Copy)]
pub(crate) struct Bindings<'a> {
    /// Read from its first element (its offset), plus the argument's element offset.
    pub input: Option<&'a Array>,
    /// Written from its first element.
    pub output: Option<&'a Array>,
    /// The plan's scratch buffer.
    pub scratch: Option<&'a Buffer>,
    /// The arrays of [`PlanArg::Operand`], by position (each from its first element).
    pub operands: &'a [&'a Array],
}

/// Launch `f` on the current stream of `device` with `lead` (operand pointers and by-value
/// operands, in the kernel's parameter order) followed by the planned arguments `args`,
/// resolved against `bind`. Every generated kernel of the array layer is launched here.
pub(crate) fn launch_planned(
    device: &Arc<dyn DynDevice>,
    f: &dyn Kernel,
    config: &LaunchConfig,
    lead: &[KernelArg<'_>],
    args: &[PlanArg],
    bind: Bindings<'_>,
) -> Result<()> {
    let mut bytes = Vec::with_capacity(args.len() * 16);
    let mut spans = Vec::with_capacity(args.len());
    for a in args {
        let start = bytes.len();
        spans.push(a.write_value(&mut bytes).then_some(start..bytes.len()));
    }
    let missing = |what: &str| Error::Launch { kernel: f.name().to_string(), reason: format!("the plan needs {what}") };
    let mut kargs: Vec<KernelArg<'_>> = Vec::with_capacity(lead.len() + args.len());
    kargs.extend_from_slice(lead);
    for (a, span) in args.iter().zip(spans) {
        kargs.push(match (a, span) {
            (_, Some(r)) => KernelArg::Value(&bytes[r]),
            (PlanArg::Input { offset_elems }, None) => {
                let input = bind.input.ok_or_else(|| missing("an input"))?;
                let off = input.layout.offset() as isize + offset_elems;
                debug_assert!(off >= 0, "plans address inside the input");
                KernelArg::Buffer { buffer: input.storage.buffer()?, offset_bytes: off as usize * input.itemsize() }
            }
            (PlanArg::Output, None) => bind.output.ok_or_else(|| missing("an output"))?.kernel_arg_mut()?,
            // Operands may be read or written (scatters, in-place updates).
            (PlanArg::Operand(k), None) => {
                bind.operands.get(*k).ok_or_else(|| missing(&format!("operand {k}")))?.kernel_arg_mut()?
            }
            (PlanArg::Scratch { offset_bytes }, None) => KernelArg::Buffer {
                buffer: bind.scratch.ok_or_else(|| missing("scratch memory"))?,
                offset_bytes: *offset_bytes,
            },
            (other, None) => unreachable!("by-value plan argument {other:?} wrote no bytes"),
        });
    }
    current_stream(device).launch(f, config, &kargs)
}

/// Run planned launches (reductions, scans, copies) in order, each kernel compiled once.
pub(crate) fn run_launches(device: &Arc<dyn DynDevice>, launches: &[PlannedLaunch], bind: Bindings<'_>) -> Result<()> {
    for l in launches {
        let r = &l.kernel;
        let f = kernel(device, KernelKey::Named(r.name.clone()), || (r.name.clone(), r.code.clone()))?;
        launch_planned(device, &*f, &l.config, &[], &l.args, bind)?;
    }
    Ok(())
}

/// Whether `a` is F-contiguous and not C-contiguous (a launch writing it runs over the
/// transposes, see [`launch_elementwise`]).
pub(crate) fn fortran_only(a: &Array) -> bool {
    crate::memory_order::fortran_only(a.layout())
}

/// An input of an elementwise launch.
pub(crate) enum EwIn<'a> {
    /// An array already broadcast to the output shape.
    Array(&'a Array),
    /// A value passed by copy (its bytes in the loop's dtype).
    Value(&'a [u8]),
}

/// The strides and contiguity of an elementwise launch's array operands, as
/// [`plan_elementwise`] takes them; each must have the launch's `shape` and live on `device`.
pub(crate) fn elementwise_operands<'a>(
    op: &str,
    shape: &[usize],
    device: &Arc<dyn DynDevice>,
    arrays: impl Iterator<Item = &'a Array>,
) -> Result<Vec<(&'a [isize], bool)>> {
    let mut operands = Vec::with_capacity(arrays.size_hint().0);
    for a in arrays {
        if a.shape() != shape {
            return Err(Error::ShapeMismatch {
                op: op.into(),
                lhs: a.shape().to_vec(),
                rhs: shape.to_vec(),
                reason: "differ inside an elementwise launch".into(),
            });
        }
        if !Arc::ptr_eq(&a.storage.device, device) {
            return Err(Error::DeviceMismatch { op: op.into(), lhs: a.device().label(), rhs: device.label() });
        }
        operands.push((a.strides(), a.is_contiguous()));
    }
    Ok(operands)
}

/// Launch an elementwise kernel over `outputs[0]`'s shape, planned by
/// [`plan_elementwise`]. `spec(layout, index)` gives the kernel; `key(layout, index)` its cache
/// key.
pub(crate) fn launch_elementwise(
    op: &str,
    key: impl Fn(KLayout, IndexWidth) -> KernelKey,
    spec: impl Fn(KLayout, IndexWidth) -> ElementwiseSpec,
    inputs: &[EwIn<'_>],
    outputs: &[&Array],
) -> Result<()> {
    let out0 = outputs[0];
    if fortran_only(out0) {
        // A Fortran-ordered result: the same kernel over every operand's transpose (a view),
        // so the planner sees C order and merges dimensions. Elementwise kernels compute each
        // element from the same index of each operand, so the order of the axes is free.
        let held: Vec<Array> = inputs
            .iter()
            .filter_map(|i| match i {
                EwIn::Array(a) => Some(a.t()),
                EwIn::Value(_) => None,
            })
            .collect();
        let mut held_iter = held.iter();
        let t_inputs: Vec<EwIn<'_>> = inputs
            .iter()
            .map(|i| match i {
                EwIn::Array(_) => EwIn::Array(held_iter.next().expect("one view per array")),
                EwIn::Value(v) => EwIn::Value(v),
            })
            .collect();
        let t_outputs: Vec<Array> = outputs.iter().map(|o| o.t()).collect();
        let t_refs: Vec<&Array> = t_outputs.iter().collect();
        return launch_elementwise(op, key, spec, &t_inputs, &t_refs);
    }
    let device = out0.device_arc();
    let shape = out0.shape();
    let arrays = inputs
        .iter()
        .filter_map(|i| match i {
            EwIn::Array(a) => Some(*a),
            EwIn::Value(_) => None,
        })
        .chain(outputs.iter().copied());
    let operands = elementwise_operands(op, shape, &device, arrays)?;
    let Some(plan) = plan_elementwise(op, shape, &operands, 0, target_of(&device))? else {
        return Ok(());
    };
    let (layout, index) = (plan.layout, plan.index);
    let f = elementwise_kernel(&device, key(layout, index), || {
        let r = spec(layout, index).render();
        (r.name, r.code)
    })?;
    let mut lead: Vec<KernelArg<'_>> = Vec::with_capacity(inputs.len() + outputs.len());
    for i in inputs {
        lead.push(match i {
            EwIn::Array(a) => a.kernel_arg()?,
            EwIn::Value(v) => KernelArg::Value(v),
        });
    }
    for o in outputs {
        lead.push(o.kernel_arg_mut()?);
    }
    launch_planned(&device, &*f, &plan.config, &lead, &plan.tail, Bindings::default())
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
