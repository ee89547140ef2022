//! NumPy's `pad` with each of its modes: the new elements are gathered from the array by
//! index (`edge`, `reflect`, `symmetric`, `wrap`), filled (`constant`, `empty`) or computed
//! from the values near each edge (`linear_ramp`, `maximum`, `minimum`, `mean`, `median`).

use xp_backend_api::{DType, Error, Result};

use super::manip::index_i64;
use crate::{Array, Scalar, SliceArg};

/// How [`pad`] fills the new elements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PadMode {
    /// A constant (NumPy's `constant_values`).
    Constant(Scalar),
    /// The edge value repeated.
    Edge,
    /// The mirror image without repeating the edge (`reflect`).
    Reflect,
    /// The mirror image repeating the edge (`symmetric`).
    Symmetric,
    /// The other end's values (`wrap`).
    Wrap,
    /// A linear ramp from this end value to the edge value (`linear_ramp`, `end_values`).
    LinearRamp(Scalar),
    /// The largest of the `stat_length` elements nearest the edge (`None`: the whole axis).
    Maximum(Option<usize>),
    /// The smallest of them (`minimum`).
    Minimum(Option<usize>),
    /// Their mean, rounded for integer arrays (`mean`).
    Mean(Option<usize>),
    /// Their median, rounded for integer arrays (`median`).
    Median(Option<usize>),
    /// Unspecified values (`empty`; xp writes zeros).
    Empty,
}

impl PadMode {
    /// The mode named as NumPy names it (`constant` pads with 0).
    pub fn from_name(name: &str) -> Result<PadMode> {
        Ok(match name {
            "constant" => PadMode::Constant(Scalar::Int(0)),
            "edge" => PadMode::Edge,
            "reflect" => PadMode::Reflect,
            "symmetric" => PadMode::Symmetric,
            "wrap" => PadMode::Wrap,
            "linear_ramp" => PadMode::LinearRamp(Scalar::Int(0)),
            "maximum" => PadMode::Maximum(None),
            "minimum" => PadMode::Minimum(None),
            "mean" => PadMode::Mean(None),
            "median" => PadMode::Median(None),
            "empty" => PadMode::Empty,
            _ => return Err(Error::value("pad", format!("mode {name:?} is not supported"))),
        })
    }

    /// The source index of padded position `p` (from `-before`) on an axis of `n > 0`.
    fn source(self, p: i64, n: i64) -> i64 {
        match self {
            PadMode::Constant(_)
            | PadMode::Edge
            | PadMode::LinearRamp(_)
            | PadMode::Maximum(_)
            | PadMode::Minimum(_)
            | PadMode::Mean(_)
            | PadMode::Median(_)
            | PadMode::Empty => p.clamp(0, n - 1),
            PadMode::Wrap => p.rem_euclid(n),
            PadMode::Reflect if n == 1 => 0,
            PadMode::Reflect => {
                let q = p.rem_euclid(2 * n - 2);
                if q >= n {
                    2 * n - 2 - q
                } else {
                    q
                }
            }
            PadMode::Symmetric => {
                let q = p.rem_euclid(2 * n);
                if q >= n {
                    2 * n - 1 - q
                } else {
                    q
                }
            }
        }
    }
}

/// NumPy's `pad(array, pad_width, mode)`: `pad_width[i] = (before, after)` elements added on
/// axis `i` (one pair applies to every axis).
pub fn pad(array: &Array, pad_width: &[(usize, usize)], mode: PadMode) -> Result<Array> {
    let op = "pad";
    let nd = array.ndim();
    let widths: Vec<(usize, usize)> = match pad_width.len() {
        1 => vec![pad_width[0]; nd],
        k if k == nd => pad_width.to_vec(),
        k => {
            return Err(Error::value(op, format!("pad_width has {k} pairs for an array of dimension {nd}")));
        }
    };
    let dev = array.device_arc();
    let mut out = array.clone();
    for (ax, &(before, after)) in widths.iter().enumerate() {
        if before == 0 && after == 0 {
            continue;
        }
        let n = out.shape()[ax];
        let mode = if mode == PadMode::Empty { PadMode::Constant(Scalar::Int(0)) } else { mode };
        if let Some(parts) = pad_computed(&out, ax, before, after, mode)? {
            out = crate::concatenate(&[&parts.0, &out, &parts.1], ax as isize)?;
            continue;
        }
        if let PadMode::Constant(v) = mode {
            let mut parts = Vec::with_capacity(3);
            for w in [before, after] {
                let mut shape = out.shape().to_vec();
                shape[ax] = w;
                parts.push(Array::full_on(&dev, &shape, v, out.dtype())?);
            }
            out = crate::concatenate(&[&parts[0], &out, &parts[1]], ax as isize)?;
            continue;
        }
        if n == 0 {
            return Err(Error::value(op, format!("can't extend empty axis {ax} using modes other than 'constant'")));
        }
        let idx: Vec<i64> = (-(before as i64)..(n + after) as i64).map(|p| mode.source(p, n as i64)).collect();
        out = out.take(&index_i64(&dev, &idx)?, Some(ax as isize))?;
    }
    if out.shares_buffer(array) {
        out.copy()
    } else {
        Ok(out)
    }
}

/// The blocks before and after `x` along `ax` of the modes computed from the values
/// (`linear_ramp` and the statistics), as NumPy's `pad` computes them; `None` for the others.
fn pad_computed(x: &Array, ax: usize, before: usize, after: usize, mode: PadMode) -> Result<Option<(Array, Array)>> {
    let op = "pad";
    let n = x.shape()[ax];
    let dt = x.dtype();
    let int = !(dt.is_float() || dt.is_complex());
    let fit = |a: Array| -> Result<Array> {
        let a = if int && (a.dtype().is_float() || a.dtype().is_complex()) { a.rint()? } else { a };
        a.astype(dt)
    };
    let along = |lo: usize, hi: usize| -> Result<Array> {
        let mut args = vec![SliceArg::ALL; x.ndim()];
        args[ax] = SliceArg::range(lo as isize, hi as isize, 1);
        x.slice(&args)
    };
    let block = |v: &Array, w: usize| -> Result<Array> {
        let mut shape = x.shape().to_vec();
        shape[ax] = w;
        v.broadcast_to(&shape)?.copy()
    };
    let stat = |len: Option<usize>, f: &dyn Fn(&Array) -> Result<Array>| -> Result<Option<(Array, Array)>> {
        if n == 0 {
            return Err(Error::value(
                op,
                format!("can't extend empty axis {ax} using modes other than 'constant' or 'empty'"),
            ));
        }
        let k = len.unwrap_or(n).min(n);
        if k == 0 {
            return Err(Error::value(op, "stat_length of 0 yields no value for padding"));
        }
        let lo = fit(f(&along(0, k)?)?)?;
        let hi = fit(f(&along(n - k, n)?)?)?;
        Ok(Some((block(&lo, before)?, block(&hi, after)?)))
    };
    let axes = [ax as isize];
    match mode {
        PadMode::Maximum(k) => stat(k, &|a| a.max(Some(&axes), true)),
        PadMode::Minimum(k) => stat(k, &|a| a.min(Some(&axes), true)),
        PadMode::Mean(k) => stat(k, &|a| a.mean(Some(&axes), true)),
        PadMode::Median(k) => stat(k, &|a| crate::routines::median(a, Some(ax as isize), true)),
        PadMode::LinearRamp(end) => {
            if n == 0 {
                return Err(Error::value(
                    op,
                    format!("can't extend empty axis {ax} using modes other than 'constant' or 'empty'"),
                ));
            }
            // linspace(end, edge, w, endpoint=False) before, its mirror after: end + k (edge -
            // end) / w, in the array's float type (float64 for integers), floored for integers.
            let ft = if dt.is_float() || dt.is_complex() { dt } else { DType::F64 };
            let ramp = |edge: Array, w: usize, rev: bool| -> Result<Array> {
                let mut shape = vec![1isize; x.ndim()];
                shape[ax] = w as isize;
                let e = edge.astype(ft)?;
                let end_a = Array::full_on(&x.device_arc(), &[], end, ft)?;
                let step = e.sub(&end_a)?.div(w.max(1) as f64)?;
                let k = crate::arange(0, w as i64, 1, Some(ft))?.reshape(&shape)?;
                let k = if rev { crate::flip(&k, Some(&axes))? } else { k };
                let v = k.mul(&step)?.add(&end_a)?;
                let v = if int { v.floor()? } else { v };
                v.astype(dt)
            };
            Ok(Some((ramp(along(0, 1)?, before, false)?, ramp(along(n - 1, n)?, after, true)?)))
        }
        _ => Ok(None),
    }
}
