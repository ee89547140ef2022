//! Reductions (`sum`, `prod`, `mean`, `var`, `std`, `min`, `max`, `argmin`, `argmax`, `any`,
//! `all`) and scans (`cumsum`, `cumprod`) along axes.
//!
//! The kernels and their launch plans come from `xp_kernels::reduce` and `xp_kernels::scan`
//! (one pass; pairwise/tree order so that float error grows like log n; Welford/Chan merging
//! for `var` and `std`); this module resolves axes and dtypes as NumPy does and runs the plans.

use std::sync::Arc;

use xp_backend_api::{DynDevice, Error, Result};
use xp_kernels::plan::MAX_RANK;
use xp_kernels::reduce::{builtin_reduce, plan_reduce, ReduceOp};

use crate::exec::{current_stream, run_launches, target_of, Bindings};
use crate::layout::{normalize_axes, normalize_axis};
use crate::Array;

/// Run `op` over `axes` of `x` into a fresh array of the `kept` extents (the extents of the
/// axes not reduced): plan, allocate the output and the plan's scratch memory, run.
pub(crate) fn run_reduce_op(
    dev: &Arc<dyn DynDevice>,
    op: &ReduceOp,
    x: &Array,
    axes: &[usize],
    kept: &[usize],
) -> Result<Array> {
    let out = Array::empty_on(dev, kept, op.out_type)?;
    if out.size() == 0 {
        return Ok(out);
    }
    // A pending map is computed inside the reduction's kernel.
    if crate::lazy::reduce_pending(dev, op, x, axes, &out)? {
        return Ok(out);
    }
    // Kernels address up to MAX_RANK dimensions; merge first when a view has more.
    let x = if x.ndim() > MAX_RANK { x.copy()? } else { x.clone() };
    let plan = plan_reduce(op, x.shape(), x.strides(), axes, target_of(dev))?;
    let scratch =
        if plan.scratch_bytes > 0 { Some(dev.alloc(plan.scratch_bytes, &current_stream(dev))?) } else { None };
    run_launches(
        dev,
        &plan.launches,
        Bindings { input: Some(&x), output: Some(&out), scratch: scratch.as_ref(), operands: &[] },
    )?;
    Ok(out)
}

fn op_label(name: &str) -> &str {
    match name {
        "min" => "minimum",
        "max" => "maximum",
        other => other,
    }
}

impl Array {
    fn reduce(&self, name: &str, axis: Option<&[isize]>, keepdims: bool, ddof: i64) -> Result<Array> {
        let dev = self.device_arc();
        let axes: Vec<usize> = match axis {
            None => (0..self.ndim()).collect(),
            Some(ax) => normalize_axes(name, ax, self.ndim())?,
        };
        let op = builtin_reduce(name, self.dtype(), ddof)?;
        let kept: Vec<usize> = (0..self.ndim()).filter(|d| !axes.contains(d)).map(|d| self.shape()[d]).collect();
        let n_out: usize = kept.iter().product();
        let n_red: usize = axes.iter().map(|&d| self.shape()[d]).product();
        if n_red == 0 && n_out > 0 && matches!(name, "min" | "max" | "argmin" | "argmax") {
            return Err(Error::value(
                name,
                format!("zero-size array to reduction operation {} which has no identity", op_label(name)),
            ));
        }
        let out = run_reduce_op(&dev, &op, self, &axes, &kept)?;
        if keepdims {
            let shape: Vec<isize> =
                (0..self.ndim()).map(|d| if axes.contains(&d) { 1 } else { self.shape()[d] as isize }).collect();
            return out.reshape(&shape);
        }
        Ok(out)
    }

    /// Sum over `axis` (all axes when `None`): integers and bool sum as int64 (uint64 for
    /// unsigned), as NumPy.
    pub fn sum(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.reduce("sum", axis, keepdims, 0)
    }
    /// Product over `axis`.
    pub fn prod(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.reduce("prod", axis, keepdims, 0)
    }
    /// Mean over `axis` (integers give float64).
    pub fn mean(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.reduce("mean", axis, keepdims, 0)
    }
    /// Smallest element over `axis` (NaN wins, as NumPy).
    pub fn min(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.reduce("min", axis, keepdims, 0)
    }
    /// Largest element over `axis` (NaN wins).
    pub fn max(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.reduce("max", axis, keepdims, 0)
    }
    /// Whether any element over `axis` is non-zero.
    pub fn any(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.reduce("any", axis, keepdims, 0)
    }
    /// Whether every element over `axis` is non-zero.
    pub fn all(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        self.reduce("all", axis, keepdims, 0)
    }
    /// Variance with `ddof` delta degrees of freedom, in one pass.
    pub fn var(&self, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Result<Array> {
        self.reduce("var", axis, keepdims, ddof as i64)
    }
    /// Standard deviation with `ddof` delta degrees of freedom, in one pass.
    pub fn std(&self, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Result<Array> {
        self.reduce("std", axis, keepdims, ddof as i64)
    }
    /// Index of the smallest element along `axis` (of the flattened array when `None`); the
    /// first on ties, the first NaN when there is one.
    pub fn argmin(&self, axis: Option<isize>) -> Result<Array> {
        self.arg_reduce("argmin", axis)
    }
    /// Index of the largest element along `axis`.
    pub fn argmax(&self, axis: Option<isize>) -> Result<Array> {
        self.arg_reduce("argmax", axis)
    }

    fn arg_reduce(&self, name: &str, axis: Option<isize>) -> Result<Array> {
        match axis {
            None => self.reduce(name, None, false, 0),
            Some(a) => {
                let a = normalize_axis(name, a, self.ndim())? as isize;
                self.reduce(name, Some(&[a]), false, 0)
            }
        }
    }
}

impl Array {
    /// Running sum along `axis` (of the flattened array when `None`); integers and bool
    /// accumulate as int64 (uint64 for unsigned), as NumPy.
    pub fn cumsum(&self, axis: Option<isize>) -> Result<Array> {
        self.scan("cumsum", axis)
    }
    /// Running product along `axis`.
    pub fn cumprod(&self, axis: Option<isize>) -> Result<Array> {
        self.scan("cumprod", axis)
    }

    fn scan(&self, name: &str, axis: Option<isize>) -> Result<Array> {
        let dev = self.device_arc();
        let op = xp_kernels::scan::builtin_scan(name, self.dtype())?;
        let (x, ax) = match axis {
            None => (self.ravel()?, 0usize),
            Some(a) => (self.clone(), normalize_axis(name, a, self.ndim())?),
        };
        let x = if x.ndim() > MAX_RANK { x.copy()? } else { x };
        let out = Array::empty_on(&dev, x.shape(), op.out_type)?;
        let plan = xp_kernels::scan::plan_scan(&op, x.shape(), x.strides(), ax, target_of(&dev))?;
        let scratch =
            if plan.scratch_bytes > 0 { Some(dev.alloc(plan.scratch_bytes, &current_stream(&dev))?) } else { None };
        run_launches(
            &dev,
            &plan.launches,
            Bindings { input: Some(&x), output: Some(&out), scratch: scratch.as_ref(), operands: &[] },
        )?;
        Ok(out)
    }
}
