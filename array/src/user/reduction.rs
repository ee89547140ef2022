//! [`ReductionKernel`]: a user map, combine and post-map on the built-in reductions' engine.

use std::collections::HashMap;
use std::fmt::Write as _;

use xp_backend_api::{DType, Error, Result};
use xp_kernels::elementwise::{IndexWidth, Rendered};
use xp_kernels::reduce::ReduceOp;

use super::params::{check_name, parse_params, typedefs, Bindings, Param};
use super::{fnv64, next_id};
use crate::layout::normalize_axes;
use crate::promote::can_cast_safe;
use crate::reduce::run_reduce_op;
use crate::ufunc::common_device;
use crate::Array;

/// A user-defined reduction, as CuPy's `ReductionKernel`: each element is mapped with
/// `map_expr` (an expression of the input parameter), the mapped values are folded with
/// `reduce_expr` (an expression of accumulators `a` and `b`) starting from `identity`, and
/// `post_map_expr` sets the output from the final accumulator `a`. The accumulator has the
/// output's dtype, as in CuPy.
///
/// It runs on the same engine as the built-in reductions (one pass, pairwise order). Its
/// input is one non-raw array parameter.
#[derive(Debug)]
pub struct ReductionKernel {
    name: String,
    in_param: Param,
    out_param: Param,
    map_expr: String,
    reduce_expr: String,
    post_map_expr: String,
    identity: String,
    preamble: String,
    id: u64,
}

impl ReductionKernel {
    /// A reduction from CuPy's seven strings.
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
        if ins.len() != 1 || ins[0].raw || outs.len() != 1 || outs[0].raw {
            return Err(Error::Unsupported(format!(
                "{name}: a ReductionKernel takes one non-raw input parameter and one non-raw output parameter"
            )));
        }
        if identity.trim().is_empty() {
            return Err(Error::value(name, "the identity must be given"));
        }
        Ok(ReductionKernel {
            name: name.to_string(),
            in_param: ins[0].clone(),
            out_param: outs[0].clone(),
            map_expr: map_expr.trim().trim_end_matches(';').to_string(),
            reduce_expr: reduce_expr.trim().trim_end_matches(';').to_string(),
            post_map_expr: if post_map_expr.trim().is_empty() {
                format!("{} = a", outs[0].name)
            } else {
                post_map_expr.to_string()
            },
            identity: identity.to_string(),
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

    /// Reduce `x` over `axis` (every axis when `None`), keeping reduced axes as length 1 when
    /// `keepdims`.
    pub fn call(&self, x: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.run(x, None, axis, keepdims)
    }

    /// As [`ReductionKernel::call`], writing into `out` (which must have the result's shape).
    pub fn call_into(&self, x: &Array, out: &Array, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.run(x, Some(out), axis, keepdims)
    }

    fn reduce_op(&self, storage: DType, in_dt: DType, out_dt: DType) -> ReduceOp {
        let acc = out_dt.c_name();
        let inp = in_dt.c_name();
        let tag = format!("{}|{}|{}|{}", self.id, storage.short(), in_dt.short(), out_dt.short());
        let hash = fnv64(&tag);
        let map_fn = format!("xp_user_map_{hash:016x}");
        let td = typedefs([(&self.in_param, &in_dt), (&self.out_param, &out_dt)].into_iter()).replace('\n', " ");
        // The placeholders are typedefs ahead of the user's preamble too, as in CuPy.
        let mut preamble =
            super::cuda_math_for_cpu(&[&self.map_expr, &self.reduce_expr, &self.post_map_expr, &self.preamble]);
        if !self.preamble.is_empty() {
            let _ = write!(preamble, "{td}\n{}", self.preamble);
        }
        let _ = write!(
            preamble,
            "\n#ifndef XP_USER_MAP_{hash:016x}\n#define XP_USER_MAP_{hash:016x} 1\n\
             XP_DEVICE {acc} {map_fn}(const {inp} {}) {{ {td}return ({acc})({}); }}\n#endif\n",
            self.in_param.name, self.map_expr
        );
        ReduceOp {
            name: self.name.clone(),
            in_type: storage,
            acc_type: acc.to_string(),
            acc_size: out_dt.size(),
            out_type: out_dt,
            preamble,
            map: format!("{map_fn}(xp::cast<{inp}>(in0))"),
            combine: format!("{td}a = ({acc})({});", self.reduce_expr),
            post: format!(
                "{td}{acc}& {} = out0; {};",
                self.out_param.name,
                self.post_map_expr.trim().trim_end_matches(';')
            ),
            identity: format!("({acc})({})", self.identity),
            ddof: 0,
            in_order: false,
        }
    }

    /// The code of this reduction for an input of `dtype` (the output dtype bound from it)
    /// with `index`-wide indices: for inspection, or to check it with another vendor's compiler.
    pub fn render(&self, dtype: DType, index: IndexWidth) -> Result<Rendered> {
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        b.bind(&self.in_param, dtype)?;
        let (in_dt, out_dt) = (b.dtype_of(&self.in_param)?, b.dtype_of(&self.out_param)?);
        Ok(xp_kernels::reduce::render_reduce(&self.reduce_op(dtype, in_dt, out_dt), index))
    }

    fn run(&self, x: &Array, out: Option<&Array>, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        let dev = x.device_arc();
        if let Some(o) = out {
            common_device(&self.name, &[x, o])?;
        }
        let mut b = Bindings { kernel: &self.name, map: HashMap::new() };
        if let Some(o) = out {
            b.bind(&self.out_param, o.dtype())?;
        }
        b.bind(&self.in_param, x.dtype())?;
        let in_dt = b.dtype_of(&self.in_param)?;
        let out_dt = b.dtype_of(&self.out_param)?;
        if !can_cast_safe(x.dtype(), in_dt) {
            return Err(Error::DType {
                op: self.name.clone(),
                reason: format!(
                    "argument `{}` of dtype {} does not convert safely to {in_dt}",
                    self.in_param.name,
                    x.dtype()
                ),
            });
        }
        let axes: Vec<usize> = match axis {
            None => (0..x.ndim()).collect(),
            Some(ax) => normalize_axes(&self.name, ax, x.ndim())?,
        };
        let kept: Vec<usize> = (0..x.ndim()).filter(|d| !axes.contains(d)).map(|d| x.shape()[d]).collect();
        let shape_kd: Vec<usize> = (0..x.ndim()).map(|d| if axes.contains(&d) { 1 } else { x.shape()[d] }).collect();
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
        let op = self.reduce_op(x.dtype(), in_dt, out_dt);
        let res = run_reduce_op(&dev, &op, x, &axes, &kept)?;
        let res = if keepdims { res.reshape(&shape_kd.iter().map(|&d| d as isize).collect::<Vec<_>>())? } else { res };
        match out {
            Some(o) => {
                res.copy_into(o)?;
                Ok(o.clone())
            }
            None => Ok(res),
        }
    }
}
