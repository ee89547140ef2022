//! [`ReductionKernel`]: a user map, combine and post-map on the built-in reductions' engine.
//!
//! # Arguments
//! A kernel has any number of input parameters and one output parameter (`"T x, S mask"`,
//! `"T y"`). The arguments bind the type placeholders as for an
//! [`ElementwiseKernel`](super::ElementwiseKernel): the output array when it is given, then the
//! input arrays, then scalars (a placeholder that only a scalar binds takes the scalar's
//! default dtype: `int64`, `float64`, `complex128` or `bool`). Input arrays are converted to
//! their parameter's dtype as they are read when NumPy's `can_cast` allows it.
//!
//! Input arrays are broadcast together (NumPy's rules) and `axis` counts axes of the broadcast
//! shape, as in CuPy. Two kernels do the work:
//! - one array argument of a one-input kernel is read by the plain reduction kernel
//!   (`xp_kernels::reduce::render_reduce`), the map applied as each element is loaded;
//! - otherwise (several inputs, or a scalar) the fused reduction kernel
//!   (`xp_kernels::reduce::render_reduce_fused`) reads every array through its own strides
//!   and computes the map of each element of the broadcast as it reads it: the broadcast is
//!   never stored. Its values are combined in the order the plain kernel would combine them
//!   had the map been written out first.
//!
//! Both are planned by the same planner and launched by the same code as the built-in
//! reductions, so they run on the CPU, CUDA and HIP from one source.
//!
//! Choices where CuPy is silent or strict: `raw` parameters are refused (a reduction reads its
//! inputs element by element), and a kernel has exactly one output parameter (CuPy's
//! reduction writes one output too). Bad calls are errors naming the kernel: the wrong number
//! of arguments ([`Error::Value`]), a placeholder bound to two dtypes or an input that does not
//! convert safely ([`Error::DType`], with the dtypes), input shapes that do not broadcast or an
//! output of the wrong shape ([`Error::ShapeMismatch`], with the shapes).
//!
//! # Compile errors
//! The user's pieces — `map_expr`, `reduce_expr`, `post_map_expr`, `identity` and the
//! preamble — keep their own line numbers in the generated code (`#line 1 "<map_expr>"`, …),
//! so a compile error names the piece and the line and quotes the user's text (see
//! `source_lines`).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, KernelArg, Result};
use xp_kernels::elementwise::{IndexWidth, Rendered};
use xp_kernels::plan::{PlanArg, MAX_RANK};
use xp_kernels::reduce::{collapse_joint, plan_reduce, render_reduce_fused, FusedSource, ReduceOp};

use super::params::{check_name, parse_params, typedefs, Bindings, Param, ParamType};
use super::source_lines::{explain, mark};
use super::{fnv64, next_id};
use crate::element::scalar_bytes;
use crate::exec::{
    current_stream, kernel, launch_planned, run_launches, target_of, Bindings as ExecBindings, KernelKey,
};
use crate::layout::{broadcast_shapes, c_strides, normalize_axes};
use crate::promote::{can_cast_safe, check_int_fits, Scalar};
use crate::reduce::run_reduce_op;
use crate::ufunc::{common_device, Operand};
use crate::Array;

/// Kernel-parameter bytes one array of a fused reduction takes (its pointer, its kept and
/// reduced strides).
const ARRAY_PARAM_BYTES: usize = 8 + 2 * 8 * (MAX_RANK + 1);
/// Kernel-parameter bytes one scalar takes at most (a complex128).
const SCALAR_PARAM_BYTES: usize = 16;

/// A user-defined reduction, as CuPy's `ReductionKernel`: each element is mapped with
/// `map_expr` (an expression of the input parameters), the mapped values are folded with
/// `reduce_expr` (an expression of accumulators `a` and `b`) starting from `identity`, and
/// `post_map_expr` sets the output from the final accumulator `a`. The accumulator has the
/// output's dtype, as in CuPy.
///
/// It runs on the same engine as the built-in reductions (one pass, pairwise order). With
/// several inputs the arrays are broadcast together, as CuPy's k-means sums the samples of
/// each cluster:
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::{user::ReductionKernel, Array};
/// let sum_kernel = ReductionKernel::new("T x, S mask", "T out", "mask ? x : 0", "a + b", "out = a", "0", "sum_kernel")
///     .unwrap();
/// let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
/// let mask = Array::from_vec(vec![true, false, true, true]).unwrap();
/// let s = sum_kernel.call_args(&[(&x).into(), (&mask).into()], None, false).unwrap();
/// assert_eq!(s.item::<f64>().unwrap(), 8.0);
/// # });
/// ```
#[derive(Debug)]
pub struct ReductionKernel {
    name: String,
    in_params: Vec<Param>,
    out_param: Param,
    map_expr: String,
    reduce_expr: String,
    post_map_expr: String,
    identity: String,
    preamble: String,
    id: u64,
}

/// How an input parameter reaches a fused kernel: array `k` or scalar `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Array(usize),
    Scalar(usize),
}

impl ReductionKernel {
    /// A reduction from CuPy's seven strings: input parameters, the output parameter, the map,
    /// reduce and post-map expressions (an empty post-map is `out = a`), the identity and the
    /// kernel's name.
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: &str,
        name: &str,
    ) -> Result<ReductionKernel> {
        let ins = parse_params(name, in_params)?;
        let outs = parse_params(name, out_params)?;
        for p in ins.iter().chain(&outs) {
            check_name(name, &p.name, &["a", "b"])?;
        }
        if ins.is_empty() {
            return Err(Error::value(name, "a ReductionKernel needs at least one input parameter"));
        }
        if outs.len() != 1 {
            return Err(Error::Unsupported(format!(
                "{name}: a ReductionKernel has exactly one output parameter, {} given",
                outs.len()
            )));
        }
        if let Some(p) = ins.iter().chain(&outs).find(|p| p.raw) {
            return Err(Error::Unsupported(format!(
                "{name}: raw parameter `{}`: a ReductionKernel reads its arguments element by element, \
                 raw parameters are not supported",
                p.name
            )));
        }
        if ins.iter().any(|p| p.name == outs[0].name) {
            return Err(Error::value(name, format!("`{}` is both an input and an output", outs[0].name)));
        }
        if identity.trim().is_empty() {
            return Err(Error::value(name, "the identity must be given"));
        }
        // Only trailing text is trimmed, so that line numbers stay the user's.
        let expr = |s: &str| s.trim_end().trim_end_matches(';').to_string();
        Ok(ReductionKernel {
            name: name.to_string(),
            in_params: ins,
            out_param: outs[0].clone(),
            map_expr: expr(map_expr),
            reduce_expr: expr(reduce_expr),
            post_map_expr: if post_map_expr.trim().is_empty() {
                format!("{} = a", outs[0].name)
            } else {
                expr(post_map_expr)
            },
            identity: identity.trim_end().to_string(),
            preamble: String::new(),
            id: next_id(),
        })
    }

    /// The same kernel with `preamble` put before it; the type placeholders are typedefs
    /// there, as in CuPy.
    pub fn with_preamble(mut self, preamble: &str) -> ReductionKernel {
        self.preamble = preamble.to_string();
        self.id = next_id();
        self
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reduce `x` (the kernel's one input) over `axis` (every axis when `None`), keeping
    /// reduced axes as length 1 when `keepdims`. A kernel of several inputs takes them with
    /// [`ReductionKernel::call_args`].
    pub fn call(&self, x: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.run(&[Operand::Array(x)], None, axis, keepdims)
    }

    /// As [`ReductionKernel::call`], writing into `out` (which must have the result's shape).
    pub fn call_into(&self, x: &Array, out: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.run(&[Operand::Array(x)], Some(out), axis, keepdims)
    }

    /// Reduce the map of `args` (one per input parameter: arrays, broadcast together, and
    /// scalars) over `axis` of their broadcast shape (every axis when `None`), as CuPy's
    /// `kernel(x, mask, axis=1)`.
    pub fn call_args(&self, args: &[Operand<'_>], axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.run(args, None, axis, keepdims)
    }

    /// As [`ReductionKernel::call_args`], writing into `out` (which must have the result's
    /// shape), as CuPy's `out=` argument.
    pub fn call_args_into(
        &self,
        args: &[Operand<'_>],
        out: &Array,
        axis: Option<&[isize]>,
        keepdims: bool,
    ) -> Result<Array> {
        self.run(args, Some(out), axis, keepdims)
    }

    /// The reduction of the map. `in_dt` is the dtype of each input parameter; `fused` when
    /// the values come from a fused kernel's source (the op's input is then the mapped
    /// value), else the op reads one array of `storage` dtype. Returns the op and the name of
    /// the map's function.
    fn reduce_op(&self, storage: DType, in_dt: &[DType], out_dt: DType, fused: bool) -> (ReduceOp, String) {
        let acc = out_dt.c_name();
        let mut tag = format!("{}|", self.id);
        for d in in_dt {
            let _ = write!(tag, "{}|", d.short());
        }
        tag.push_str(out_dt.short());
        let hash = fnv64(&tag);
        let map_fn = format!("xp_user_map_{hash:016x}");
        let params = self.in_params.iter().zip(in_dt).chain(std::iter::once((&self.out_param, &out_dt)));
        let td = typedefs(params).replace('\n', " ");
        // The placeholders are typedefs ahead of the user's preamble too, as in CuPy.
        let mut preamble = super::cuda_math_for_cpu(&[
            &self.map_expr,
            &self.reduce_expr,
            &self.post_map_expr,
            &self.identity,
            &self.preamble,
        ]);
        if !self.preamble.is_empty() {
            let _ = write!(preamble, "{td}{}", mark("preamble", &self.preamble));
        }
        let args: Vec<String> =
            self.in_params.iter().zip(in_dt).map(|(p, d)| format!("const {} {}", d.c_name(), p.name)).collect();
        let _ = write!(
            preamble,
            "\n#ifndef XP_USER_MAP_{hash:016x}\n#define XP_USER_MAP_{hash:016x} 1\n\
             XP_DEVICE {acc} {map_fn}({}) {{ {td}return ({acc})({}); }}\n#endif\n",
            args.join(", "),
            mark("map_expr", &self.map_expr)
        );
        let op = ReduceOp {
            name: self.name.clone(),
            in_type: if fused { out_dt } else { storage },
            acc_type: acc.to_string(),
            acc_size: out_dt.size(),
            out_type: out_dt,
            preamble,
            map: if fused { "in0".to_string() } else { format!("{map_fn}(xp::cast<{}>(in0))", in_dt[0].c_name()) },
            combine: format!("{td}a = ({acc})({});", mark("reduce_expr", &self.reduce_expr)),
            post: format!("{td}{acc}& {} = out0; {};", self.out_param.name, mark("post_map_expr", &self.post_map_expr)),
            identity: format!("({acc})({})", mark("identity", &self.identity)),
            ddof: 0,
            in_order: false,
        };
        (op, map_fn)
    }

    /// The map of a fused kernel: the parameters from the arrays' elements (converted to the
    /// parameters' dtypes) and the scalars.
    fn fused_source(
        &self,
        slots: &[Slot],
        arrays: &[DType],
        scalars: &[DType],
        in_dt: &[DType],
        out_dt: DType,
        map_fn: &str,
    ) -> FusedSource {
        let args: Vec<String> = slots
            .iter()
            .zip(in_dt)
            .map(|(s, d)| match s {
                Slot::Array(k) => format!("xp::cast<{}>(l{k})", d.c_name()),
                Slot::Scalar(k) => format!("s{k}"),
            })
            .collect();
        FusedSource {
            arrays: arrays.to_vec(),
            scalars: scalars.to_vec(),
            body: format!("const {} v0 = {map_fn}({});", out_dt.c_name(), args.join(", ")),
            result: "v0".into(),
            preamble: String::new(),
        }
    }

    /// The dtypes of the input parameters and of the output for arguments of `dtypes` (one
    /// array per input parameter), the output allocated.
    fn bind_dtypes(&self, dtypes: &[DType]) -> Result<(Vec<DType>, DType)> {
        if dtypes.len() != self.in_params.len() {
            return Err(self.count_error(dtypes.len(), "dtypes"));
        }
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        for (p, &d) in self.in_params.iter().zip(dtypes) {
            b.bind(p, d)?;
        }
        let in_dt: Vec<DType> = self.in_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        Ok((in_dt, b.dtype_of(&self.out_param)?))
    }

    /// The code of this reduction for an input of `dtype` (the output dtype bound from it)
    /// with `index`-wide indices: for inspection, or to check it with another vendor's compiler.
    pub fn render(&self, dtype: DType, index: IndexWidth) -> Result<Rendered> {
        self.render_for(&[dtype], index)
    }

    /// The code a call with one array of each of `dtypes` (one per input parameter) runs, with
    /// `index`-wide indices: the plain reduction kernel for one input, the fused one for
    /// several (see the module docs).
    pub fn render_for(&self, dtypes: &[DType], index: IndexWidth) -> Result<Rendered> {
        let (in_dt, out_dt) = self.bind_dtypes(dtypes)?;
        if dtypes.len() == 1 {
            let (op, _) = self.reduce_op(dtypes[0], &in_dt, out_dt, false);
            return Ok(xp_kernels::reduce::render_reduce(&op, index));
        }
        let (op, map_fn) = self.reduce_op(out_dt, &in_dt, out_dt, true);
        let slots: Vec<Slot> = (0..dtypes.len()).map(Slot::Array).collect();
        let src = self.fused_source(&slots, dtypes, &[], &in_dt, out_dt, &map_fn);
        Ok(render_reduce_fused(&op, &src, index))
    }

    fn count_error(&self, given: usize, what: &str) -> Error {
        let names: Vec<&str> = self.in_params.iter().map(|p| p.name.as_str()).collect();
        let n = names.len();
        Error::value(
            &self.name,
            format!("takes {n} input{} ({}), {given} {what} given", if n == 1 { "" } else { "s" }, names.join(", ")),
        )
    }

    fn run(&self, args: &[Operand<'_>], out: Option<&Array>, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        if args.len() != self.in_params.len() {
            return Err(self.count_error(args.len(), if args.len() == 1 { "argument" } else { "arguments" }));
        }
        let inputs: Vec<&Array> = args
            .iter()
            .filter_map(|a| match a {
                Operand::Array(a) => Some(*a),
                Operand::Scalar(_) => None,
            })
            .collect();
        if inputs.is_empty() {
            return Err(Error::value(&self.name, "needs at least one array argument (every argument is a scalar)"));
        }
        let device = common_device(&self.name, &inputs.iter().copied().chain(out).collect::<Vec<_>>())?;
        // Types: the output first, then input arrays, then scalars.
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        if let Some(o) = out {
            b.bind(&self.out_param, o.dtype())?;
        }
        for (p, a) in self.in_params.iter().zip(args) {
            if let Operand::Array(a) = a {
                b.bind(p, a.dtype())?;
            }
        }
        for (p, a) in self.in_params.iter().zip(args) {
            if let (Operand::Scalar(s), ParamType::Placeholder(c)) = (a, p.ty) {
                b.map.entry(c).or_insert(s.default_dtype());
            }
        }
        let in_dt: Vec<DType> = self.in_params.iter().map(|p| b.dtype_of(p)).collect::<Result<_>>()?;
        let out_dt = b.dtype_of(&self.out_param)?;
        for ((p, a), &d) in self.in_params.iter().zip(args).zip(&in_dt) {
            if let Operand::Array(a) = a {
                if !can_cast_safe(a.dtype(), d) {
                    return Err(Error::DType {
                        op: self.name.clone(),
                        reason: format!("argument `{}` of dtype {} does not convert safely to {d}", p.name, a.dtype()),
                    });
                }
            }
        }
        // Shape: the broadcast of the input arrays; axes count its dimensions.
        let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape()).collect();
        let shape = broadcast_shapes(&self.name, &shapes)?;
        let nd = shape.len();
        let axes: Vec<usize> = match axis {
            None => (0..nd).collect(),
            Some(ax) => normalize_axes(&self.name, ax, nd)?,
        };
        let kept: Vec<usize> = (0..nd).filter(|d| !axes.contains(d)).map(|d| shape[d]).collect();
        let shape_kd: Vec<usize> = (0..nd).map(|d| if axes.contains(&d) { 1 } else { shape[d] }).collect();
        let want = if keepdims { &shape_kd } else { &kept };
        if let Some(o) = out {
            if o.shape() != want.as_slice() {
                return Err(Error::ShapeMismatch {
                    op: self.name.clone(),
                    lhs: o.shape().to_vec(),
                    rhs: want.clone(),
                    reason: "differ: the output must have the reduction's shape".into(),
                });
            }
            if o.dtype() != out_dt {
                return Err(Error::DType {
                    op: self.name.clone(),
                    reason: format!("output of dtype {} for parameter of dtype {out_dt}", o.dtype()),
                });
            }
        }
        let res = match args {
            [Operand::Array(x)] => {
                let (op, _) = self.reduce_op(x.dtype(), &in_dt, out_dt, false);
                run_reduce_op(&device, &op, x, &axes, &kept)
            }
            _ => self.run_fused(&device, args, &in_dt, out_dt, &shape, &axes, &kept),
        }
        .map_err(|e| {
            explain(
                e,
                &self.name,
                &[
                    ("map_expr", &self.map_expr),
                    ("reduce_expr", &self.reduce_expr),
                    ("post_map_expr", &self.post_map_expr),
                    ("identity", &self.identity),
                    ("preamble", &self.preamble),
                ],
            )
        })?;
        let res = if keepdims { res.reshape(&shape_kd.iter().map(|&d| d as isize).collect::<Vec<_>>())? } else { res };
        match out {
            Some(o) => {
                res.copy_into(o)?;
                Ok(o.clone())
            }
            None => Ok(res),
        }
    }

    /// Reduce the map of several arguments with the fused kernel: plan the reduction of the
    /// C-contiguous array of `shape` the map would be written to, and read each array through
    /// its own (broadcast) strides.
    #[allow(clippy::too_many_arguments)]
    fn run_fused(
        &self,
        device: &Arc<dyn DynDevice>,
        args: &[Operand<'_>],
        in_dt: &[DType],
        out_dt: DType,
        shape: &[usize],
        axes: &[usize],
        kept: &[usize],
    ) -> Result<Array> {
        let out = Array::empty_on(device, kept, out_dt)?;
        if out.size() == 0 {
            return Ok(out);
        }
        let mut leaves: Vec<Array> = Vec::new();
        let mut scalars: Vec<(Vec<u8>, DType)> = Vec::new();
        let mut slots: Vec<Slot> = Vec::new();
        for (a, &d) in args.iter().zip(in_dt) {
            match a {
                Operand::Array(a) => {
                    leaves.push(a.broadcast_to(shape)?);
                    slots.push(Slot::Array(leaves.len() - 1));
                }
                Operand::Scalar(s) => {
                    if let (Scalar::Int(v), true) = (s, d.kind() != DTypeKind::Bool) {
                        check_int_fits(&self.name, *v, d)?;
                    }
                    scalars.push((scalar_bytes(*s, d)?.to_vec(), d));
                    slots.push(Slot::Scalar(scalars.len() - 1));
                }
            }
        }
        if leaves.len() * ARRAY_PARAM_BYTES + scalars.len() * SCALAR_PARAM_BYTES > crate::lazy::MAX_PARAM_BYTES {
            return Err(Error::Unsupported(format!(
                "{}: {} array and {} scalar arguments take more kernel-parameter space than a GPU kernel has",
                self.name,
                leaves.len(),
                scalars.len()
            )));
        }
        let (op, map_fn) = self.reduce_op(out_dt, in_dt, out_dt, true);
        let plan = plan_reduce(&op, shape, &c_strides(shape), axes, target_of(device))?;
        let Some(first) = plan.launches.first() else { return Ok(out) };
        let span = |l: &Array| -> usize {
            l.shape().iter().zip(l.strides()).map(|(&n, &s)| n.saturating_sub(1) * s.unsigned_abs()).sum()
        };
        let strides: Vec<&[isize]> = leaves.iter().map(|l| l.strides()).collect();
        let mut joint = collapse_joint(shape, &strides, axes);
        // The kernels address MAX_RANK dimensions, and 32-bit plans 2^31 elements from each
        // array's start: past either, the arrays are written out C-contiguous (as the plan's
        // own array), which the plan addresses.
        if joint.kshape.len() > MAX_RANK
            || joint.rshape.len() > MAX_RANK
            || (plan.index == IndexWidth::I32 && leaves.iter().any(|l| span(l) >= i32::MAX as usize))
        {
            leaves = leaves.iter().map(|l| l.ascontiguous()).collect::<Result<_>>()?;
            let strides: Vec<&[isize]> = leaves.iter().map(|l| l.strides()).collect();
            joint = collapse_joint(shape, &strides, axes);
        }
        let array_dt: Vec<DType> = leaves.iter().map(|l| l.dtype()).collect();
        let scalar_dt: Vec<DType> = scalars.iter().map(|(_, d)| *d).collect();
        let key = KernelKey::Named(format!("user_red|{}|{array_dt:?}|{scalar_dt:?}|{slots:?}", first.kernel.name));
        let f = kernel(device, key, || {
            let src = self.fused_source(&slots, &array_dt, &scalar_dt, in_dt, out_dt, &map_fn);
            let r = render_reduce_fused(&op, &src, plan.index);
            (r.name, r.code)
        })?;
        let value = |a: PlanArg| a.value_bytes().expect("a by-value argument");
        let mut values: Vec<Vec<u8>> = Vec::with_capacity(2 * leaves.len() + 2);
        for k in 0..leaves.len() {
            values.push(value(PlanArg::strides(&joint.kstrides[k])));
            values.push(value(PlanArg::strides(&joint.rstrides[k])));
        }
        values.push(value(PlanArg::shape(&joint.kshape)));
        values.push(value(PlanArg::shape(&joint.rshape)));
        let mut lead: Vec<KernelArg<'_>> = Vec::with_capacity(3 * leaves.len() + scalars.len() + 2);
        for (k, l) in leaves.iter().enumerate() {
            lead.push(l.kernel_arg()?);
            lead.push(KernelArg::Value(&values[2 * k]));
            lead.push(KernelArg::Value(&values[2 * k + 1]));
        }
        for (b, _) in &scalars {
            lead.push(KernelArg::Value(b));
        }
        let n = values.len();
        lead.push(KernelArg::Value(&values[n - 2]));
        lead.push(KernelArg::Value(&values[n - 1]));
        let scratch = if plan.scratch_bytes > 0 {
            Some(device.alloc(plan.scratch_bytes, &current_stream(device))?)
        } else {
            None
        };
        let bind = ExecBindings { input: None, output: Some(&out), scratch: scratch.as_ref(), operands: &[] };
        let plan_args: Vec<PlanArg> = first
            .args
            .iter()
            .map(|a| if matches!(a, PlanArg::Input { .. }) { PlanArg::Null } else { a.clone() })
            .collect();
        launch_planned(device, &*f, &first.config, &lead, &plan_args, bind)?;
        run_launches(device, &plan.launches[1..], bind)?;
        Ok(out)
    }
}
