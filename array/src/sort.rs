//! Sorting and searching: `sort`, `argsort`, `unique`, `searchsorted`, `lexsort`,
//! `sort_complex`, `partition` and `argpartition`, on every device from one set of kernels
//! (`xp_kernels::sort`: an LSB radix sort over keys whose unsigned order is NumPy's order).
//!
//! NumPy's orders are kept: NaNs last (complex: `[R + Rj, R + nanj, nan + Rj, nan + nanj]`),
//! `-0.0` equal to `0.0`. Every sort is stable, so `argsort` is NumPy's `kind="stable"`
//! whatever kind is asked for, and `sort` of equal keys keeps their order. `partition` and
//! `argpartition` return a full sort, which satisfies their contract (every element before
//! `kth` is no larger, every one after no smaller).

use std::sync::Arc;

use xp_backend_api::{DType, DynDevice, Error, Result};
use xp_kernels::plan::{plan_flat, PlanArg, PlannedLaunch};
use xp_kernels::render::Rendered;
use xp_kernels::sort::{self as ks, key_format, KeyFormat, KeyKind, OnesweepPlan, PassIo, RadixPlan};

use crate::exec::{run_launches, target_of, Bindings};
use crate::layout::{normalize_axis, SliceArg};
use crate::Array;

/// The unsigned dtype of a key of `bytes` bytes.
fn key_dtype(bytes: usize) -> DType {
    match bytes {
        1 => DType::U8,
        2 => DType::U16,
        4 => DType::U32,
        _ => DType::U64,
    }
}

fn launch_flat(
    dev: &Arc<dyn DynDevice>,
    kernel: Rendered,
    n: usize,
    args: Vec<PlanArg>,
    operands: &[&Array],
) -> Result<()> {
    let plan = PlannedLaunch { kernel, config: plan_flat(n, target_of(dev)), args };
    run_launches(dev, &[plan], Bindings { operands, ..Default::default() })
}

/// The keys of a contiguous array (one key array, or imaginary, real and class keys for
/// complex), least significant first, with the bits each can differ in.
fn make_keys(x: &Array, canon: bool) -> Result<Vec<(Array, u32)>> {
    let dev = x.device_arc();
    let f = key_format(x.dtype());
    let n = x.size();
    let kd = key_dtype(f.bytes);
    let canon = PlanArg::I32(canon as i32);
    if f.complex {
        let im = Array::empty_on(&dev, &[n], kd)?;
        let re = Array::empty_on(&dev, &[n], kd)?;
        let cls = Array::empty_on(&dev, &[n], DType::U8)?;
        let args = vec![
            PlanArg::Operand(0),
            PlanArg::Operand(1),
            PlanArg::Operand(2),
            PlanArg::Operand(3),
            PlanArg::I64(n as i64),
            PlanArg::I64(f.inf_bits as i64),
            canon,
        ];
        launch_flat(&dev, ks::complex_key_kernel(f.bytes), n, args, &[x, &im, &re, &cls])?;
        let bits = 8 * f.bytes as u32;
        return Ok(vec![(im, bits), (re, bits), (cls, 2)]);
    }
    let keys = Array::empty_on(&dev, &[n], kd)?;
    let args =
        vec![PlanArg::Operand(0), PlanArg::Operand(1), PlanArg::I64(n as i64), PlanArg::I64(f.inf_bits as i64), canon];
    launch_flat(&dev, ks::key_kernel(f.bytes, f.kind), n, args, &[x, &keys])?;
    Ok(vec![(keys, f.bits)])
}

/// Values of `dtype` from sorted keys (not complex).
fn values_of(keys: &Array, dtype: DType) -> Result<Array> {
    let dev = keys.device_arc();
    let f: KeyFormat = key_format(dtype);
    let n = keys.size();
    let out = Array::empty_on(&dev, &[n], dtype)?;
    let args = vec![PlanArg::Operand(0), PlanArg::Operand(1), PlanArg::I64(n as i64), PlanArg::I64(f.nan_bits as i64)];
    launch_flat(&dev, ks::unkey_kernel(f.bytes, f.kind), n, args, &[keys, &out])?;
    Ok(out)
}

/// The passes of an onesweep sort (GPUs) of `x` (keys, or values when `io.key_in` is set)
/// with the payload `vals` (unbound when `io.iota`): the sorted keys or values (of
/// `keys_out`'s dtype, none when `keys_out` is `None`) and the sorted payload (int64 when
/// `io.pos_len > 0`). `x` and `vals` are never written.
fn onesweep(
    x: &Array,
    vals: Option<&Array>,
    plan: &OnesweepPlan,
    vbytes: usize,
    io: &PassIo,
    keys_out: Option<DType>,
) -> Result<(Option<Array>, Option<Array>)> {
    let dev = x.device_arc();
    let (n, bytes) = (plan.n, x.itemsize());
    let zeros = |len: usize| crate::with_device(&dev, || crate::zeros(&[len], DType::U32));
    let hist = zeros(plan.hist_len())?;
    run_launches(&dev, &plan.hist(bytes, io), Bindings { operands: &[x, &hist], ..Default::default() })?;
    let look = zeros(plan.look_len())?;
    let mut k = x.clone();
    let mut v = vals.cloned();
    let (mut k_spare, mut v_spare): (Option<Array>, Option<Array>) = (None, None);
    let passes = plan.passes();
    for p in 0..passes {
        let last = p + 1 == passes;
        let k_out = match (last, keys_out) {
            (true, None) => None,
            (true, Some(dt)) => Some(Array::empty_on(&dev, &[n], dt)?),
            (false, _) => Some(match k_spare.take() {
                Some(a) => a,
                None => Array::empty_on(&dev, &[n], key_dtype(bytes))?,
            }),
        };
        let v_out = match (vbytes, last && io.pos_len > 0) {
            (0, _) => None,
            (_, true) => Some(Array::empty_on(&dev, &[n], DType::I64)?),
            _ => Some(match v_spare.take() {
                Some(a) => a,
                None => Array::empty_on(&dev, &[n], key_dtype(vbytes))?,
            }),
        };
        {
            // Unbound operands (null in the launch) take any array.
            let operands = [
                &k,
                v.as_ref().unwrap_or(&hist),
                k_out.as_ref().unwrap_or(&hist),
                v_out.as_ref().unwrap_or(&hist),
                &hist,
                &look,
            ];
            let launch = plan.pass(bytes, vbytes, p, io, keys_out.is_some());
            run_launches(&dev, &[launch], Bindings { operands: &operands, ..Default::default() })?;
        }
        // The arrays just read become the next pass's outputs (never the caller's).
        let old_k = std::mem::replace(&mut k, k_out.unwrap_or_else(|| hist.clone()));
        if p > 0 {
            k_spare = Some(old_k);
        }
        if let Some(vo) = v_out {
            let old_v = v.replace(vo);
            if p > 0 {
                v_spare = old_v;
            }
        }
    }
    Ok((keys_out.map(|_| k), v))
}

/// `sort` (values) or `argsort` (int64 positions) of `nrows` contiguous rows of `len` values
/// on a GPU in one onesweep sort, keys made and unmade inside its passes; `None` where it
/// does not apply (the CPU, complex values, too many elements).
fn gpu_sort(x: &Array, nrows: usize, len: usize, positions: bool) -> Result<Option<Array>> {
    let f = key_format(x.dtype());
    let n = nrows * len;
    let vbytes = if positions || nrows > 1 { 4 } else { 0 };
    let target = target_of(&x.device_arc());
    let Some(plan) = (if f.complex { None } else { OnesweepPlan::new(n, f.bytes, vbytes, f.bits, nrows, len, target) })
    else {
        return Ok(None);
    };
    // Sorted values come back from their keys, which then keep the zero's sign; an argsort
    // treats -0.0 and 0.0 as equal, as NumPy's.
    let io = PassIo {
        key_in: Some(f.kind),
        inf_bits: f.inf_bits,
        canon: positions,
        iota: vbytes > 0,
        key_out: (!positions).then_some(f.kind),
        nan_bits: f.nan_bits,
        pos_len: if positions { len } else { 0 },
    };
    let keys_out = (!positions).then_some(x.dtype());
    let (sorted, perm) = onesweep(x, None, &plan, vbytes, &io, keys_out)?;
    Ok(if positions { perm } else { sorted })
}

/// A stable LSB radix sort of `nrows` rows of `len` elements at once, by `keys` (flat,
/// contiguous unsigned arrays, least significant first, each with its significant bits).
/// Returns the last key array in sorted order and, when a payload was carried (`payload`,
/// several rows or several keys), the flat positions of the sorted elements (u32 or u64).
fn radix_sort(keys: &[(Array, u32)], nrows: usize, len: usize, payload: bool) -> Result<(Array, Option<Array>)> {
    let (first, _) = &keys[0];
    let dev = first.device_arc();
    let n = nrows * len;
    let target = target_of(&dev);
    let vbytes = if payload || nrows > 1 || keys.len() > 1 {
        if n <= u32::MAX as usize {
            4
        } else {
            8
        }
    } else {
        0
    };
    let mut vals = None;
    if vbytes > 0 {
        let v = Array::empty_on(&dev, &[n], key_dtype(vbytes))?;
        launch_flat(&dev, ks::iota_kernel(vbytes), n, vec![PlanArg::Operand(0), PlanArg::I64(n as i64)], &[&v])?;
        vals = Some(v);
    }
    let mut sorted = first.clone();
    for (s, (key, bits)) in keys.iter().enumerate() {
        let bytes = key.itemsize();
        let mut k = if s == 0 {
            key.clone()
        } else {
            let v = vals.as_ref().expect("a payload is carried for several keys");
            let out = Array::empty_on(&dev, &[n], key.dtype())?;
            let args = vec![PlanArg::Operand(0), PlanArg::Operand(1), PlanArg::Operand(2), PlanArg::I64(n as i64)];
            launch_flat(&dev, ks::gather_kernel(bytes, vbytes), n, args, &[key, v, &out])?;
            out
        };
        let rows_here = if s + 1 == keys.len() { nrows } else { 1 };
        if let Some(plan) = OnesweepPlan::new(n, bytes, vbytes, *bits, rows_here, len, target) {
            let (keys_out, vals_out) = onesweep(&k, vals.as_ref(), &plan, vbytes, &PassIo::default(), Some(k.dtype()))?;
            sorted = keys_out.expect("keys were asked for");
            if vals_out.is_some() {
                vals = vals_out;
            }
            continue;
        }
        let plan = RadixPlan::new(n, bytes, vbytes, target);
        let db = plan.digit_bits;
        let key_passes = bits.div_ceil(db);
        let row_bits = if rows_here > 1 { usize::BITS - (nrows - 1).leading_zeros() } else { 0 };
        let row_passes = row_bits.div_ceil(db);
        let counts = Array::empty_on(&dev, &[plan.count_len()], DType::U32)?;
        let mut k_spare: Option<Array> = None;
        let mut v_spare: Option<Array> = None;
        for p in 0..key_passes + row_passes {
            let (shift, row_len) = if p < key_passes { (p * db, 0) } else { ((p - key_passes) * db, len) };
            let hist = plan.hist(bytes, vbytes, shift, row_len);
            let placeholder = &counts;
            let v_in = vals.as_ref().unwrap_or(placeholder);
            run_launches(&dev, &[hist], Bindings { operands: &[&k, v_in, &counts], ..Default::default() })?;
            let incl = counts.cumsum(None)?;
            let k_out = match k_spare.take() {
                Some(a) => a,
                None => Array::empty_on(&dev, &[n], k.dtype())?,
            };
            let v_out = match (vbytes, v_spare.take()) {
                (0, _) => None,
                (_, Some(a)) => Some(a),
                (_, None) => Some(Array::empty_on(&dev, &[n], key_dtype(vbytes))?),
            };
            let scatter = plan.scatter(bytes, vbytes, shift, row_len);
            let v_out_ref = v_out.as_ref().unwrap_or(placeholder);
            run_launches(
                &dev,
                &[scatter],
                Bindings { operands: &[&k, v_in, &k_out, v_out_ref, &counts, &incl], ..Default::default() },
            )?;
            // The arrays just read become the next pass's outputs (never the caller's keys).
            let old_k = std::mem::replace(&mut k, k_out);
            if p > 0 || s > 0 {
                k_spare = Some(old_k);
            }
            if let Some(vo) = v_out {
                v_spare = vals.replace(vo);
            }
        }
        sorted = k;
    }
    Ok((sorted, vals))
}

/// A stable sort of the non-negative integer `keys` (1-d) whose values fit in `bits` bits:
/// the sorted keys (as unsigned integers of the keys' width) and the positions they came from
/// (int64). Only `bits` bits are sorted, so small keys in wide types cost fewer passes.
pub(crate) fn sort_small_keys(keys: &Array, bits: u32) -> Result<(Array, Array)> {
    let n = keys.size();
    let u = key_dtype(keys.itemsize());
    let k = if keys.dtype() == u { keys.ascontiguous()? } else { keys.astype(u)?.ascontiguous()? };
    if n < 2 {
        let dev = keys.device_arc();
        let pos = crate::with_device(&dev, || crate::arange(0, n as i64, 1, Some(DType::I64)))?;
        return Ok((k, pos));
    }
    let (sorted, pos) = radix_sort(&[(k, bits.max(1))], 1, n, true)?;
    let pos = pos.expect("a payload was asked for");
    Ok((sorted, pos.astype(DType::I64)?))
}

/// `x` with `axis` moved last and made contiguous, and (rows, length).
fn rows_along(op: &str, x: &Array, axis: Option<isize>) -> Result<(Array, usize, usize, Option<usize>)> {
    match axis {
        None => {
            let flat = x.ravel()?.ascontiguous()?;
            let n = flat.size();
            Ok((flat, 1, n, None))
        }
        Some(a) => {
            if x.ndim() == 0 {
                return Err(Error::Axis {
                    op: op.into(),
                    reason: format!("axis {a} is out of bounds for array of dimension 0"),
                });
            }
            let ax = normalize_axis(op, a, x.ndim())?;
            let moved = crate::routines::moveaxis(x, &[ax as isize], &[-1])?.ascontiguous()?;
            let len = x.shape()[ax];
            let nrows = x.size().checked_div(len).unwrap_or(0);
            Ok((moved, nrows, len, Some(ax)))
        }
    }
}

/// Undo [`rows_along`] on a result of the moved shape.
fn restore(out: Array, moved_shape: &[usize], ax: Option<usize>) -> Result<Array> {
    let shape: Vec<isize> = moved_shape.iter().map(|&d| d as isize).collect();
    let out = out.reshape(&shape)?;
    match ax {
        None => Ok(out),
        Some(a) => crate::routines::moveaxis(&out, &[-1], &[a as isize]),
    }
}

impl Array {
    /// NumPy's `sort(a, axis)`: a sorted copy along `axis` (of the flattened array when
    /// `None`; NumPy's default is `Some(-1)`). Stable; NaNs last.
    pub fn sort(&self, axis: Option<isize>) -> Result<Array> {
        let (x, nrows, len, ax) = rows_along("sort", self, axis)?;
        let n = x.size();
        if n <= 1 || len <= 1 {
            return restore(x.copy()?, x.shape(), ax);
        }
        if let Some(out) = gpu_sort(&x, nrows, len, false)? {
            return restore(out, x.shape(), ax);
        }
        let complex = key_format(x.dtype()).complex;
        // Complex values are gathered, so their keys may equate signed zeros as NumPy does;
        // other values come back from their keys, which must then keep the zero's sign.
        let keys = make_keys(&x, complex)?;
        let out = if complex {
            let (_, perm) = radix_sort(&keys, nrows, len, true)?;
            let perm = perm.expect("complex sorts carry a payload").astype(DType::I64)?;
            x.ravel()?.take(&perm, None)?
        } else {
            let (sorted, _) = radix_sort(&keys, nrows, len, false)?;
            values_of(&sorted, x.dtype())?
        };
        restore(out, x.shape(), ax)
    }

    /// NumPy's `argsort(a, axis, kind="stable")`: int64 indices that sort along `axis` (of
    /// the flattened array when `None`), equal elements keeping their order.
    pub fn argsort(&self, axis: Option<isize>) -> Result<Array> {
        let (x, nrows, len, ax) = rows_along("argsort", self, axis)?;
        let dev = x.device_arc();
        let n = x.size();
        if n == 0 || len <= 1 {
            let z = Array::full_on(&dev, x.shape(), 0, DType::I64)?;
            return restore(z, x.shape(), ax);
        }
        if let Some(out) = gpu_sort(&x, nrows, len, true)? {
            return restore(out, x.shape(), ax);
        }
        let keys = make_keys(&x, true)?;
        let (_, perm) = radix_sort(&keys, nrows, len, true)?;
        let perm = perm.expect("argsort carries a payload");
        let out = Array::empty_on(&dev, &[n], DType::I64)?;
        let args = vec![PlanArg::Operand(0), PlanArg::Operand(1), PlanArg::I64(n as i64), PlanArg::I64(len as i64)];
        launch_flat(&dev, ks::position_kernel(perm.itemsize()), n, args, &[&perm, &out])?;
        restore(out, x.shape(), ax)
    }
}

/// NumPy's `sort(a, axis)`; see [`Array::sort`].
pub fn sort(a: &Array, axis: Option<isize>) -> Result<Array> {
    a.sort(axis)
}

/// NumPy's `argsort(a, axis)` (always stable); see [`Array::argsort`].
pub fn argsort(a: &Array, axis: Option<isize>) -> Result<Array> {
    a.argsort(axis)
}

/// NumPy's `sort_complex(a)`: sorted along the last axis, as complex (real inputs become
/// complex128, float32 and smaller complex64, as NumPy).
pub fn sort_complex(a: &Array) -> Result<Array> {
    let t = match a.dtype() {
        DType::C64 | DType::C128 => a.dtype(),
        DType::F16 | DType::BF16 | DType::F32 | DType::I8 | DType::U8 | DType::I16 | DType::U16 | DType::Bool => {
            DType::C64
        }
        _ => DType::C128,
    };
    a.astype(t)?.sort(Some(-1))
}

/// NumPy's `lexsort(keys)`: indices that sort by the last key, then the one before, …
/// (each 1-d and of one length), stable.
pub fn lexsort(keys: &[&Array]) -> Result<Array> {
    let Some(last) = keys.last() else {
        return Err(Error::value("lexsort", "need at least one key"));
    };
    let n = last.size();
    for k in keys {
        if k.ndim() != 1 || k.size() != n {
            return Err(Error::ShapeMismatch {
                op: "lexsort".into(),
                lhs: last.shape().to_vec(),
                rhs: k.shape().to_vec(),
                reason: "all keys must be 1-d and of one length".into(),
            });
        }
    }
    let dev = crate::ufunc::common_device("lexsort", keys)?;
    if n <= 1 {
        return Array::full_on(&dev, &[n], 0, DType::I64);
    }
    let mut all = Vec::new();
    for k in keys {
        all.extend(make_keys(&k.ascontiguous()?, true)?);
    }
    let (_, perm) = radix_sort(&all, 1, n, true)?;
    perm.expect("lexsort carries a payload").astype(DType::I64)
}

/// Which insertion point [`searchsorted`] returns among equal elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Side {
    /// The first (`a[i-1] < v <= a[i]`).
    #[default]
    Left,
    /// The last (`a[i-1] <= v < a[i]`).
    Right,
}

/// NumPy's `searchsorted(a, v, side, sorter)`: int64 insertion points of `v` (any shape) in
/// the 1-d `a`, sorted ascending (or `a[sorter]` sorted), in NumPy's order (NaNs last).
pub fn searchsorted(a: &Array, v: &Array, side: Side, sorter: Option<&Array>) -> Result<Array> {
    if a.ndim() != 1 {
        return Err(Error::value("searchsorted", format!("a must be 1-d, not of shape {:?}", a.shape())));
    }
    let dev = crate::ufunc::common_device("searchsorted", &[a, v])?;
    let sorted = match sorter {
        None => a.clone(),
        Some(s) => {
            if s.shape() != a.shape() {
                return Err(Error::ShapeMismatch {
                    op: "searchsorted".into(),
                    lhs: a.shape().to_vec(),
                    rhs: s.shape().to_vec(),
                    reason: "sorter must have a's shape".into(),
                });
            }
            a.take(s, None)?
        }
    };
    let t = crate::promote_types(a.dtype(), v.dtype());
    let a = sorted.astype(t)?.ascontiguous()?;
    let vv = v.astype(t)?.ascontiguous()?;
    let nv = vv.size();
    let out = Array::empty_on(&dev, v.shape(), DType::I64)?;
    if nv == 0 {
        return Ok(out);
    }
    let f = key_format(t);
    let args = vec![
        PlanArg::Operand(0),
        PlanArg::I64(a.size() as i64),
        PlanArg::Operand(1),
        PlanArg::I64(nv as i64),
        PlanArg::Operand(2),
        PlanArg::I32((side == Side::Right) as i32),
        PlanArg::I64(f.inf_bits as i64),
    ];
    let kind = if f.complex { KeyKind::Float } else { f.kind };
    launch_flat(&dev, ks::searchsorted_kernel(f.bytes, kind, f.complex), nv, args, &[&a, &vv, &out])?;
    Ok(out)
}

/// What [`unique_all`] returns beside the unique values (each when asked for).
#[derive(Debug, Clone)]
pub struct Unique {
    /// The sorted unique values.
    pub values: Array,
    /// The index of each value's first occurrence (`return_index`).
    pub index: Option<Array>,
    /// The index into `values` of each input element (`return_inverse`), of the input's
    /// shape (NumPy 2).
    pub inverse: Option<Array>,
    /// How often each value occurs (`return_counts`).
    pub counts: Option<Array>,
}

/// NumPy's `unique(a)`: the sorted unique elements of the flattened array (NaNs collapse into
/// one, `-0.0` equals `0.0`).
pub fn unique(a: &Array) -> Result<Array> {
    Ok(unique_all(a, false, false, false)?.values)
}

/// NumPy's `unique(a, return_index, return_inverse, return_counts)` over the flattened array.
pub fn unique_all(a: &Array, return_index: bool, return_inverse: bool, return_counts: bool) -> Result<Unique> {
    let dev = a.device_arc();
    let x = a.ravel()?.ascontiguous()?;
    let n = x.size();
    if n == 0 {
        let e = |d| Array::empty_on(&dev, &[0], d);
        return Ok(Unique {
            values: e(a.dtype())?,
            index: if return_index { Some(e(DType::I64)?) } else { None },
            inverse: if return_inverse { Some(Array::empty_on(&dev, a.shape(), DType::I64)?) } else { None },
            counts: if return_counts { Some(e(DType::I64)?) } else { None },
        });
    }
    let complex = key_format(x.dtype()).complex;
    let want_perm = complex || return_index || return_inverse;
    // Integers and bool on a GPU: their sorted values compare as their keys do (no NaN, no
    // signed zero), so one onesweep sort gives them directly.
    let plain = !want_perm && !x.dtype().is_float() && !complex;
    let direct = if plain { gpu_sort(&x, 1, n, false)? } else { None };
    let (sorted_keys, perm) = match &direct {
        Some(v) => (v.clone(), None),
        None => radix_sort(&make_keys(&x, true)?, 1, n, want_perm)?,
    };
    let perm = match perm {
        Some(p) => Some(p.astype(DType::I64)?),
        None => None,
    };
    let (sorted_vals, flags) = if let Some(v) = direct {
        (v, vec![(sorted_keys, 0)])
    } else if complex {
        let vals = x.take(perm.as_ref().expect("complex carries a payload"), None)?;
        let ks = make_keys(&vals, true)?;
        (vals, ks)
    } else {
        (values_of(&sorted_keys, x.dtype())?, vec![(sorted_keys, 0)])
    };
    // New value where any key differs from the previous one.
    let mask = Array::full_on(&dev, &[n], true, DType::Bool)?;
    if n > 1 {
        let mut diff: Option<Array> = None;
        for (k, _) in &flags {
            let d = k.slice(&[SliceArg::range(1, n as isize, 1)])?.ne(&k.slice(&[SliceArg::range(
                0,
                n as isize - 1,
                1,
            )])?)?;
            diff = Some(match diff {
                None => d,
                Some(prev) => prev.logical_or(&d)?,
            });
        }
        diff.expect("at least one key").copy_into(&mask.slice(&[SliceArg::range(1, n as isize, 1)])?)?;
    }
    let values = sorted_vals.compress_mask(&mask)?;
    let starts = if return_index || return_counts { Some(mask.nonzero()?.remove(0)) } else { None };
    let index = match (return_index, &starts, &perm) {
        (true, Some(s), Some(p)) => Some(p.take(s, None)?),
        _ => None,
    };
    let inverse = if return_inverse {
        let p = perm.as_ref().expect("inverse carries a payload");
        let group = mask.cumsum(None)?.sub(1)?;
        let inv = Array::full_on(&dev, &[n], 0, DType::I64)?;
        inv.put(p, &group)?;
        Some(inv.reshape(&a.shape().iter().map(|&d| d as isize).collect::<Vec<_>>())?)
    } else {
        None
    };
    let counts = match (return_counts, &starts) {
        (true, Some(s)) => {
            let ends = crate::concatenate(
                &[
                    &s.slice(&[SliceArg::range(1, s.size() as isize, 1)])?,
                    &Array::full_on(&dev, &[1], n as i64, DType::I64)?,
                ],
                0,
            )?;
            Some(ends.sub(s)?)
        }
        _ => None,
    };
    Ok(Unique { values, index, inverse, counts })
}

/// NumPy's `partition(a, kth, axis)`: here a full stable sort along `axis`, which satisfies
/// partition's contract for every `kth` (checked against the axis length).
pub fn partition(a: &Array, kth: isize, axis: Option<isize>) -> Result<Array> {
    check_kth("partition", a, kth, axis)?;
    a.sort(axis)
}

/// NumPy's `argpartition(a, kth, axis)`: here the stable `argsort` along `axis`.
pub fn argpartition(a: &Array, kth: isize, axis: Option<isize>) -> Result<Array> {
    check_kth("argpartition", a, kth, axis)?;
    a.argsort(axis)
}

fn check_kth(op: &str, a: &Array, kth: isize, axis: Option<isize>) -> Result<()> {
    let len = match axis {
        None => a.size(),
        Some(ax) => a.shape()[normalize_axis(op, ax, a.ndim().max(1))?.min(a.ndim().saturating_sub(1))],
    };
    let k = if kth < 0 { kth + len as isize } else { kth };
    if k < 0 || k >= len as isize {
        return Err(Error::value(op, format!("kth(={kth}) out of bounds ({len})")));
    }
    Ok(())
}
