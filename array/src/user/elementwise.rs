//! [`ElementwiseKernel`], and the launch of user elementwise kernels (theirs and
//! [`fuse`](super::fuse)'s).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, KernelArg, Result};
use xp_kernels::elementwise::{ElementwiseSpec, IndexWidth, Layout as KLayout, Operand as KOp, Rendered};

use super::next_id;
use super::params::{check_name, parse_params, typedefs, Bindings, Param, ParamType};
use crate::element::scalar_bytes;
use crate::exec::{
    elementwise_kernel, elementwise_operands, launch_planned, target_of, Bindings as ExecBindings, KernelKey,
};
use crate::layout::broadcast_shapes;
use crate::promote::{can_cast_safe, can_cast_same_kind, check_int_fits, Scalar};
use crate::ufunc::{common_device, Operand};
use crate::Array;
use xp_kernels::plan::plan_elementwise;

// ---- the elementwise launcher ----------------------------------------------------------------

/// One input of a user elementwise launch.
pub(super) enum UserIn<'a> {
    /// An array broadcast to the launch's shape.
    Array(&'a Array),
    /// A value by copy.
    Value(Vec<u8>),
    /// A raw array: a pointer to its first element.
    Raw(&'a Array),
}

/// Whether `code` may read variable `name`: true unless every use of it is the target of a
/// plain assignment (`name = …`), so an output that is only written is not loaded first.
fn reads_variable(code: &str, name: &str) -> bool {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while let Some(pos) = code[i..].find(name) {
        let at = i + pos;
        let end = at + name.len();
        i = end;
        if (at > 0 && ident(b[at - 1])) || (end < b.len() && ident(b[end])) {
            continue;
        }
        let rest = code[end..].trim_start();
        let plain_store = rest.starts_with('=') && !rest.starts_with("==");
        if !plain_store {
            return true;
        }
    }
    false
}

/// Launch a user elementwise kernel over `shape` (every array input and every output has that
/// shape). `key` identifies the kernel's code apart from layout and index width.
pub(super) fn launch_user(
    op: &str,
    device: &Arc<dyn DynDevice>,
    shape: &[usize],
    key: &str,
    spec: impl Fn(KLayout, IndexWidth) -> ElementwiseSpec,
    inputs: &[UserIn<'_>],
    outputs: &[&Array],
) -> Result<()> {
    let arrays = inputs
        .iter()
        .filter_map(|i| match i {
            UserIn::Array(a) => Some(*a),
            _ => None,
        })
        .chain(outputs.iter().copied());
    let operands = elementwise_operands(op, shape, device, arrays)?;
    // Raw arrays are indexed by hand with `i`: the index width must reach their last element.
    let raw_reach = inputs
        .iter()
        .filter_map(|i| match i {
            UserIn::Raw(a) => Some(a.size()),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let Some(plan) = plan_elementwise(op, shape, &operands, raw_reach, target_of(device))? else {
        return Ok(());
    };
    let (layout, index) = (plan.layout, plan.index);
    let f = elementwise_kernel(device, KernelKey::Named(format!("{key}|{layout:?}|{index:?}")), || {
        let r = spec(layout, index).render();
        (r.name, r.code)
    })?;
    let mut lead: Vec<KernelArg<'_>> = Vec::with_capacity(inputs.len() + outputs.len());
    for i in inputs {
        lead.push(match i {
            UserIn::Array(a) | UserIn::Raw(a) => a.kernel_arg()?,
            UserIn::Value(v) => KernelArg::Value(v),
        });
    }
    for o in outputs {
        lead.push(o.kernel_arg_mut()?);
    }
    launch_planned(device, &*f, &plan.config, &lead, &plan.tail, ExecBindings::default())
}

/// `const idx i = …;` where a layout does not name the flat index `i` itself.
fn flat_index_decl(layout: KLayout, index: IndexWidth) -> String {
    match xp_kernels::elementwise::flat_index_expr(layout) {
        Some(e) => {
            format!("const {} i = {e}; (void)i;\n", if index == IndexWidth::I32 { "xp::i32" } else { "xp::i64" })
        }
        None => String::new(),
    }
}

// ---- ElementwiseKernel -----------------------------------------------------------------------

/// A user-defined elementwise kernel, as CuPy's `ElementwiseKernel`.
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::{arange, user::ElementwiseKernel, DType};
/// let k = ElementwiseKernel::new("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "my_kernel").unwrap();
/// let x = arange(0.0, 10.0, 1.0, Some(DType::F32)).unwrap().reshape(&[2, 5]).unwrap();
/// let z = k.call(&[(&x).into(), 5.0.into()]).unwrap();
/// assert_eq!(z.to_vec::<f32>().unwrap()[..3], [25.0, 16.0, 9.0]);
/// # });
/// ```
#[derive(Debug)]
pub struct ElementwiseKernel {
    name: String,
    in_params: Vec<Param>,
    out_params: Vec<Param>,
    operation: String,
    preamble: String,
    id: u64,
}

impl ElementwiseKernel {
    /// A kernel from CuPy's four strings: input parameters, output parameters, the operation
    /// (statements; a missing final `;` is added) and the kernel's name.
    pub fn new(in_params: &str, out_params: &str, operation: &str, name: &str) -> Result<ElementwiseKernel> {
        let ins = parse_params(name, in_params)?;
        let outs = parse_params(name, out_params)?;
        if outs.is_empty() {
            return Err(Error::value(name, "an elementwise kernel needs at least one output parameter"));
        }
        for p in ins.iter().chain(&outs) {
            check_name(name, &p.name, &[])?;
        }
        for p in &outs {
            if ins.iter().any(|q| q.name == p.name) {
                return Err(Error::value(name, format!("`{}` is both an input and an output", p.name)));
            }
        }
        Ok(ElementwiseKernel {
            name: name.to_string(),
            in_params: ins,
            out_params: outs,
            operation: operation.to_string(),
            preamble: String::new(),
            id: next_id(),
        })
    }

    /// The same kernel with `preamble` (helper functions, `#define`s) put before it. The
    /// parameters' type placeholders are typedefs there, as in CuPy: a helper may be written
    /// `__device__ T f(T x)` for the dtype bound at the call.
    pub fn with_preamble(mut self, preamble: &str) -> ElementwiseKernel {
        self.preamble = preamble.to_string();
        self.id = next_id();
        self
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Run the kernel and return its first output. `args` are the inputs, optionally followed
    /// by every output array (then written in place).
    pub fn call(&self, args: &[Operand<'_>]) -> Result<Array> {
        Ok(self.call_all(args)?.swap_remove(0))
    }

    /// Run the kernel and return every output.
    pub fn call_all(&self, args: &[Operand<'_>]) -> Result<Vec<Array>> {
        let (nin, nout) = (self.in_params.len(), self.out_params.len());
        if args.len() != nin && args.len() != nin + nout {
            return Err(Error::value(
                &self.name,
                format!("takes {nin} inputs (and optionally {nout} outputs), {} arguments given", args.len()),
            ));
        }
        let (inputs, given) = args.split_at(nin);
        let mut outs_given: Vec<&Array> = Vec::new();
        for (p, o) in self.out_params.iter().zip(given) {
            match o {
                Operand::Array(a) => outs_given.push(a),
                Operand::Scalar(_) => {
                    return Err(Error::value(&self.name, format!("output `{}` must be an array", p.name)))
                }
            }
        }
        for (p, a) in self.in_params.iter().zip(inputs) {
            if p.raw && matches!(a, Operand::Scalar(_)) {
                return Err(Error::value(&self.name, format!("raw parameter `{}` needs an array", p.name)));
            }
        }
        // Device.
        let arrays: Vec<&Array> = inputs
            .iter()
            .filter_map(|a| match a {
                Operand::Array(a) => Some(*a),
                _ => None,
            })
            .chain(outs_given.iter().copied())
            .collect();
        let device = common_device(&self.name, &arrays)?;
        // Types: outputs first, then input arrays, then scalars.
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        for (p, o) in self.out_params.iter().zip(&outs_given) {
            b.bind(p, o.dtype())?;
        }
        for (p, a) in self.in_params.iter().zip(inputs) {
            if let Operand::Array(a) = a {
                b.bind(p, a.dtype())?;
            }
        }
        for (p, a) in self.in_params.iter().zip(inputs) {
            if let (Operand::Scalar(s), ParamType::Placeholder(c)) = (a, p.ty) {
                b.map.entry(c).or_insert(s.default_dtype());
            }
        }
        let in_dt: Vec<DType> = self.in_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        let out_dt: Vec<DType> = self.out_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        for ((p, a), &d) in self.in_params.iter().zip(inputs).zip(&in_dt) {
            if let Operand::Array(a) = a {
                let ok = if p.raw { a.dtype() == d } else { can_cast_safe(a.dtype(), d) };
                if !ok {
                    return Err(Error::DType {
                        op: self.name.clone(),
                        reason: format!("argument `{}` of dtype {} does not convert safely to {d}", p.name, a.dtype()),
                    });
                }
            }
        }
        for ((p, o), &d) in self.out_params.iter().zip(&outs_given).zip(&out_dt) {
            let ok = if p.raw { o.dtype() == d } else { can_cast_same_kind(d, o.dtype()) };
            if !ok {
                return Err(Error::DType {
                    op: self.name.clone(),
                    reason: format!("output `{}` of dtype {} cannot hold values of {d}", p.name, o.dtype()),
                });
            }
        }
        // Shape: the broadcast of non-raw inputs and outputs; every output must have it.
        let shapes: Vec<&[usize]> = self
            .in_params
            .iter()
            .zip(inputs)
            .filter_map(|(p, a)| match a {
                Operand::Array(a) if !p.raw => Some(a.shape()),
                _ => None,
            })
            .chain(self.out_params.iter().zip(&outs_given).filter(|(p, _)| !p.raw).map(|(_, o)| o.shape()))
            .collect();
        let shape = broadcast_shapes(&self.name, &shapes)?;
        for (p, o) in self.out_params.iter().zip(&outs_given) {
            if !p.raw && o.shape() != shape.as_slice() {
                return Err(Error::ShapeMismatch {
                    op: self.name.clone(),
                    lhs: o.shape().to_vec(),
                    rhs: shape.clone(),
                    reason: format!("differ: output `{}` must have the broadcast shape of the arguments", p.name),
                });
            }
            if p.raw && !o.is_contiguous() {
                return Err(Error::value(&self.name, format!("raw output `{}` must be C-contiguous", p.name)));
            }
        }
        let outs: Vec<Array> = if outs_given.is_empty() {
            out_dt.iter().map(|&d| Array::empty_on(&device, &shape, d)).collect::<Result<_>>()?
        } else {
            outs_given.iter().map(|a| (*a).clone()).collect()
        };
        if shape.iter().product::<usize>() == 0 {
            return Ok(outs);
        }
        // Operands as the kernel sees them: inputs (raw ones as pointers), raw outputs as
        // pointers, given non-raw outputs loaded first; then the non-raw outputs.
        let mut holders: Vec<Array> = Vec::new();
        enum Src {
            Array(usize),
            Value(Vec<u8>),
            Raw(usize),
        }
        let mut srcs: Vec<Src> = Vec::new();
        let mut ops: Vec<KOp> = Vec::new();
        for ((p, a), &d) in self.in_params.iter().zip(inputs).zip(&in_dt) {
            match a {
                Operand::Array(a) if p.raw => {
                    holders.push(if a.is_contiguous() { (*a).clone() } else { a.ascontiguous()? });
                    srcs.push(Src::Raw(holders.len() - 1));
                    ops.push(KOp::scalar(DType::U64, DType::U64));
                }
                Operand::Array(a) => {
                    holders.push(a.broadcast_to(&shape)?);
                    srcs.push(Src::Array(holders.len() - 1));
                    ops.push(KOp::array(a.dtype(), d));
                }
                Operand::Scalar(s) => {
                    if let (Scalar::Int(v), true) = (s, d.kind() != DTypeKind::Bool) {
                        check_int_fits(&self.name, *v, d)?;
                    }
                    srcs.push(Src::Value(scalar_bytes(*s, d)?.to_vec()));
                    ops.push(KOp::scalar(d, d));
                }
            }
        }
        let mut raw_out_at = Vec::new();
        let mut load_out_at = Vec::new();
        for (k, (p, o)) in self.out_params.iter().zip(&outs).enumerate() {
            if p.raw {
                raw_out_at.push((k, ops.len()));
                holders.push(o.clone());
                srcs.push(Src::Raw(holders.len() - 1));
                ops.push(KOp::scalar(DType::U64, DType::U64));
            } else if !outs_given.is_empty() && reads_variable(&self.operation, &p.name) {
                load_out_at.push((k, ops.len()));
                holders.push(o.clone());
                srcs.push(Src::Array(holders.len() - 1));
                ops.push(KOp::array(o.dtype(), out_dt[k]));
            }
        }
        let user_in: Vec<UserIn<'_>> = srcs
            .into_iter()
            .map(|s| match s {
                Src::Array(h) => UserIn::Array(&holders[h]),
                Src::Raw(h) => UserIn::Raw(&holders[h]),
                Src::Value(v) => UserIn::Value(v),
            })
            .collect();
        let non_raw_outs: Vec<(usize, &Array)> = self
            .out_params
            .iter()
            .zip(&outs)
            .enumerate()
            .filter(|(_, (p, _))| !p.raw)
            .map(|(k, (_, o))| (k, o))
            .collect();
        let out_ops: Vec<KOp> = non_raw_outs.iter().map(|(k, o)| KOp::array(o.dtype(), out_dt[*k])).collect();
        let mut key = format!("user_ew|{}|", self.id);
        for (o, s) in ops.iter().chain(&out_ops).zip(0..) {
            let _ = write!(key, "{s}:{}{}{}|", o.storage.short(), o.compute.short(), o.scalar);
        }
        // Every parameter's bound type, raw ones included: a `raw T x` whose `T` no other
        // argument binds changes the kernel's text, not its operands' list above.
        for d in in_dt.iter().chain(&out_dt) {
            key.push_str(d.short());
        }
        let parts = SpecParts {
            in_dt: &in_dt,
            out_dt: &out_dt,
            ops: &ops,
            out_ops: &out_ops,
            raw_out_at: &raw_out_at,
            load_out_at: &load_out_at,
        };
        let outs_ref: Vec<&Array> = non_raw_outs.iter().map(|(_, o)| *o).collect();
        launch_user(
            &self.name,
            &device,
            &shape,
            &key,
            |layout, index| self.spec(&parts, layout, index),
            &user_in,
            &outs_ref,
        )
        .map_err(|e| {
            super::source_lines::explain(e, &self.name, &[("operation", &self.operation), ("preamble", &self.preamble)])
        })?;
        Ok(outs)
    }
}

/// What decides a user elementwise kernel's code, apart from layout and index width.
struct SpecParts<'p> {
    /// The dtype of each input parameter.
    in_dt: &'p [DType],
    /// The dtype of each output parameter.
    out_dt: &'p [DType],
    /// The kernel's inputs: the input parameters, then raw outputs, then outputs loaded first.
    ops: &'p [KOp],
    /// The kernel's outputs: the non-raw output parameters.
    out_ops: &'p [KOp],
    /// (output parameter, kernel input) of each raw output.
    raw_out_at: &'p [(usize, usize)],
    /// (output parameter, kernel input) of each output loaded before the operation.
    load_out_at: &'p [(usize, usize)],
}

impl ElementwiseKernel {
    fn spec(&self, parts: &SpecParts<'_>, layout: KLayout, index: IndexWidth) -> ElementwiseSpec {
        let mut body = String::from("{\n");
        let params = self.in_params.iter().zip(parts.in_dt).chain(self.out_params.iter().zip(parts.out_dt));
        let td = typedefs(params);
        body.push_str(&td);
        for (slot, (p, &d)) in self.in_params.iter().zip(parts.in_dt).enumerate() {
            let c = d.c_name();
            if p.raw {
                let _ = writeln!(body, "const {c}* {} = (const {c}*)in{slot}; (void){};", p.name, p.name);
            } else {
                let _ = writeln!(body, "const {c} {} = in{slot}; (void){};", p.name, p.name);
            }
        }
        for (k, s) in parts.raw_out_at {
            let p = &self.out_params[*k];
            let c = parts.out_dt[*k].c_name();
            let _ = writeln!(body, "{c}* {} = ({c}*)in{s}; (void){};", p.name, p.name);
        }
        let non_raw = self.out_params.iter().enumerate().filter(|(_, p)| !p.raw);
        for (j, (k, p)) in non_raw.enumerate() {
            let _ = writeln!(body, "{}& {} = out{j};", parts.out_dt[k].c_name(), p.name);
            if let Some((_, s)) = parts.load_out_at.iter().find(|(kk, _)| *kk == k) {
                let _ = writeln!(body, "{} = in{s};", p.name);
            }
        }
        body.push_str(&flat_index_decl(layout, index));
        // The operation keeps its own line numbers (`source_lines`): a compile error quotes it.
        let _ = writeln!(body, "{{ {}; }}\n}}", super::source_lines::mark("operation", self.operation.trim_end()));
        ElementwiseSpec {
            op: self.name.clone(),
            inputs: parts.ops.to_vec(),
            outputs: parts.out_ops.to_vec(),
            body,
            // The type placeholders are typedefs ahead of the preamble too, as in CuPy, so a
            // helper there can be written `T f(T x)`.
            preamble: {
                let math = super::cuda_math_for_cpu(&[&self.operation, &self.preamble]);
                if self.preamble.is_empty() {
                    math
                } else {
                    format!("{math}{td}{}", super::source_lines::mark("preamble", &self.preamble))
                }
            },
            layout,
            index,
            fast: None,
        }
    }

    /// The code this kernel compiles to for array arguments of `dtypes` (one per input
    /// parameter; outputs allocated, so every placeholder must be bound by an input), in
    /// `layout` with `index`-wide indices: for inspection, or to check it with another
    /// vendor's compiler.
    pub fn render(&self, dtypes: &[DType], layout: KLayout, index: IndexWidth) -> Result<Rendered> {
        if dtypes.len() != self.in_params.len() {
            return Err(Error::value(
                &self.name,
                format!("takes {} inputs, {} dtypes given", self.in_params.len(), dtypes.len()),
            ));
        }
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        for (p, &d) in self.in_params.iter().zip(dtypes) {
            b.bind(p, d)?;
        }
        let in_dt: Vec<DType> = self.in_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        let out_dt: Vec<DType> = self.out_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        let mut ops: Vec<KOp> = self
            .in_params
            .iter()
            .zip(dtypes)
            .zip(&in_dt)
            .map(|((p, &a), &d)| if p.raw { KOp::scalar(DType::U64, DType::U64) } else { KOp::array(a, d) })
            .collect();
        let mut raw_out_at = Vec::new();
        for (k, p) in self.out_params.iter().enumerate() {
            if p.raw {
                raw_out_at.push((k, ops.len()));
                ops.push(KOp::scalar(DType::U64, DType::U64));
            }
        }
        let out_ops: Vec<KOp> =
            self.out_params.iter().zip(&out_dt).filter(|(p, _)| !p.raw).map(|(_, &d)| KOp::array(d, d)).collect();
        let parts = SpecParts {
            in_dt: &in_dt,
            out_dt: &out_dt,
            ops: &ops,
            out_ops: &out_ops,
            raw_out_at: &raw_out_at,
            load_out_at: &[],
        };
        Ok(self.spec(&parts, layout, index).render())
    }
}

#[cfg(test)]
mod reads_tests {
    #[test]
    fn outputs_only_assigned_are_not_read() {
        assert!(!super::reads_variable("z = (x - y) * (x - y)", "z"));
        assert!(super::reads_variable("z += x", "z"));
        assert!(super::reads_variable("z = z * 2", "z"));
        assert!(super::reads_variable("if (z == 0) z = 1", "z"));
        assert!(!super::reads_variable("zz = 1; z = 2", "z"));
    }
}
