//! SciPy's spline interpolation of N-d images (`scipy.ndimage`'s `spline_filter1d`,
//! `spline_filter`, `map_coordinates`, `affine_transform`, `shift`, `zoom`, `rotate`).
//!
//! # Contract
//! - Orders 0–5 (an order outside is an `Error::Value` naming the function); `mode` is
//!   [`Mode`], `cval` the value outside for the constant modes; `prefilter` (default `true` in
//!   SciPy) runs [`spline_filter`] on the input first when the order is above 1.
//! - The answer has the input's dtype: float32 stays float32 (computed in float64, rounded
//!   once), integers are rounded half away from zero and clipped to the dtype's range as
//!   SciPy stores them. `spline_filter(1d)` answers float64 unless `output` names another
//!   dtype (each pass then stores in it, as SciPy's). Complex inputs are interpolated (and
//!   filtered) as their real and imaginary parts apart, as SciPy's (`cval` is real: it applies
//!   to the real part; complex128 is `spline_filter`'s default output for them); bool inputs
//!   are a `DType` error.
//!
//! # Algorithms
//! - **Prefilter**: the interpolating B-spline coefficients by M. Unser's recursive filtering
//!   ("B-spline signal processing", IEEE Trans. Signal Process. 41, 1993; "Splines: a perfect
//!   fit", 1999): the gain `Π (1 - z)(1 - 1/z)` over the order's poles `z`, then per pole one
//!   causal and one anticausal first-order recursion along each line. The first value of each
//!   recursion is the boundary's exact sum, chosen by mode as SciPy's: the whole-sample mirror
//!   for `mirror`, `constant`, `grid-constant` and `wrap`; the half-sample mirror for
//!   `reflect` and `nearest` (SciPy's causal sum accumulates in the first element, so short
//!   lines match it bit for bit); the periodic sum for `grid-wrap`. Like SciPy, `nearest` and
//!   `grid-constant` first pad 12 samples on each side (edge values or `cval`), so the
//!   coefficients see the boundary the interpolation uses. Lines shorter than 256 samples are
//!   filtered by one device thread per line, exactly as SciPy's recursion; longer lines by
//!   chunks of 64 samples in parallel, each recursion warmed up over the samples before the
//!   chunk (the truncated history weighs below 10⁻¹⁸; see the `interp_kernels` module), with
//!   adjacent threads on adjacent lines (the last axis on a transposed copy).
//! - **Interpolation**: one device thread per output point computes its input coordinate
//!   (from the coordinate array, the affine matrix, or the zoom and shift), maps it into the
//!   image by the mode (mirror about the edge samples, reflect about the half-sample edges,
//!   periodic with period `n - 1` for `wrap` and `n` for `grid-wrap`; `constant` answers `cval`
//!   for any coordinate outside `[0, n - 1]`; `nearest` and `grid-constant` keep it), then sums
//!   `(order + 1)^ndim` coefficients weighted by the centred B-spline of the order. Samples
//!   needed beyond the edge follow the mode, except that `constant` and `wrap` read them
//!   mirrored (as SciPy does, matching their prefilter) and `grid-constant` reads `cval`.
//! - The device kernels are specialised by rank, per-axis order, coordinate source and dtypes
//!   (loops unrolled at compile time, 32-bit indices where they fit, no boundary logic for a
//!   point whose taps lie inside); zoom and shift read per-axis tables of taps and weights
//!   computed once per output index on the host. float32 images and coordinates are read in
//!   place and float32 answers written directly (each value converted as `astype` would).
//! - On the CPU device `zoom` and `shift` interpolate in native host code from the same tables
//!   with the kernel's operations in the kernel's order (the same bits); `map_coordinates`,
//!   `affine_transform` and `rotate` run the kernel.
//! - `rotate` of an image of more than two dimensions is one pass over the whole output: the
//!   axes outside the rotation plane are read exactly (order 0 along them) and are neither
//!   prefiltered nor padded, so the answer is SciPy's plane-by-plane one.
//!
//! # Choices and limits
//! - Coordinates are computed in float64 as SciPy orders the operations (`matrix · o` summed
//!   over the output axes, then the offset; `(o + shift) · zoom`, with `shift = offset / zoom`
//!   for a diagonal matrix as SciPy). Device compilers may fuse a product and a sum, so a
//!   coordinate that falls exactly on a half sample (order 0) or exactly on the edge (the
//!   `constant` cut-off) may land on the other side of it than in SciPy.
//! - At most 16 dimensions. `output` arrays of the caller are not taken (the answer is new).
//! - `rotate` computes the cosine and sine of the angle in degrees exactly at multiples of 90°.

use std::sync::{Arc, OnceLock};

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, Result};

use super::{host, interp_kernels, Mode};
use crate::promote::Scalar;
use crate::user::ElementwiseKernel;
use crate::{pad, PadMode};
use crate::{Array, Operand};

/// The most dimensions an image may have here.
const MAX_NDIM: usize = 16;

/// How many samples SciPy pads on each side before prefiltering for `nearest` and
/// `grid-constant`.
const NPAD: usize = 12;

fn kernel(
    cell: &'static OnceLock<ElementwiseKernel>,
    ins: &str,
    outs: &str,
    op: &str,
    name: &str,
    preamble: &str,
) -> Result<&'static ElementwiseKernel> {
    crate::user::cached_kernel(cell, ins, outs, op, name, preamble)
}

/// The kernels' code of a mode.
fn mode_code(mode: Mode) -> i64 {
    match mode {
        Mode::Reflect => 0,
        Mode::Constant => 1,
        Mode::Nearest => 2,
        Mode::Mirror => 3,
        Mode::Wrap => 4,
        Mode::GridConstant => 5,
        Mode::GridWrap => 6,
    }
}

fn int(v: i64) -> Operand<'static> {
    Operand::Scalar(Scalar::Int(v as i128))
}

fn check_order(op: &str, order: i64, lowest: i64) -> Result<usize> {
    if order < lowest || order > 5 {
        return Err(Error::value(op, format!("spline order not supported: {order} (expected {lowest} to 5)")));
    }
    Ok(order as usize)
}

fn check_input(op: &str, input: &Array) -> Result<()> {
    if input.dtype().kind() == DTypeKind::Bool {
        return Err(Error::DType {
            op: op.to_string(),
            reason: format!(
                "input of dtype {} is not supported (integer, float or complex images only)",
                input.dtype()
            ),
        });
    }
    if input.ndim() < 1 {
        return Err(Error::value(op, "input and output rank must be > 0"));
    }
    if input.ndim() > MAX_NDIM {
        return Err(Error::value(
            op,
            format!("input has {} dimensions; at most {MAX_NDIM} are supported", input.ndim()),
        ));
    }
    Ok(())
}

// ---- the prefilter -----------------------------------------------------------------------------

const SPLINE_PREAMBLE: &str = r#"
XP_HD void xp_ndi_poles(long long order, double* z, long long* np) {
    if (order == 2) { z[0] = sqrt(8.0) - 3.0; *np = 1; }
    else if (order == 3) { z[0] = sqrt(3.0) - 2.0; *np = 1; }
    else if (order == 4) {
        z[0] = sqrt(664.0 - sqrt(438976.0)) + sqrt(304.0) - 19.0;
        z[1] = sqrt(664.0 + sqrt(438976.0)) - sqrt(304.0) - 19.0;
        *np = 2;
    } else {
        z[0] = sqrt(67.5 - sqrt(4436.25)) + sqrt(26.25) - 6.5;
        z[1] = sqrt(67.5 + sqrt(4436.25)) - sqrt(26.25) - 6.5;
        *np = 2;
    }
}
"#;

const SPLINE_LINE: &str = r#"
const long long L = (long long)i + 0 * ln;
const long long outer = L / st;
const long long inner = L - outer * st;
double* c = buf + outer * len * st + inner;
if (len > 1) {
    double z[2];
    long long np = 0;
    xp_ndi_poles(order, z, &np);
    double g = 1.0;
    for (long long p = 0; p < np; ++p) g *= (1.0 - z[p]) * (1.0 - 1.0 / z[p]);
    for (long long k = 0; k < len; ++k) c[k * st] *= g;
    for (long long p = 0; p < np; ++p) {
        const double zp = z[p];
        // causal initial value
        if (bc == 0) {
            const double zn1 = pow(zp, (double)(len - 1));
            double s = c[0] + zn1 * c[(len - 1) * st];
            double zi = zp;
            for (long long k = 1; k < len - 1; ++k) { s += zi * (c[k * st] + zn1 * c[(len - 1 - k) * st]); zi *= zp; }
            c[0] = s / (1.0 - zn1 * zn1);
        } else if (bc == 1) {
            const double zn = pow(zp, (double)len);
            const double c0 = c[0];
            c[0] = c[0] + zn * c[(len - 1) * st];
            double zi = zp;
            for (long long k = 1; k < len; ++k) { c[0] += zi * (c[k * st] + zn * c[(len - 1 - k) * st]); zi *= zp; }
            c[0] *= zp / (1.0 - zn * zn);
            c[0] += c0;
        } else {
            double s = c[0];
            double zi = zp;
            for (long long k = 1; k < len; ++k) { s += zi * c[(len - k) * st]; zi *= zp; }
            c[0] = s / (1.0 - zi);
        }
        for (long long k = 1; k < len; ++k) c[k * st] += zp * c[(k - 1) * st];
        // anticausal initial value
        if (bc == 0) {
            c[(len - 1) * st] = (zp * c[(len - 2) * st] + c[(len - 1) * st]) * zp / (zp * zp - 1.0);
        } else if (bc == 1) {
            c[(len - 1) * st] *= zp / (zp - 1.0);
        } else {
            double s = c[(len - 1) * st];
            double zi = zp;
            for (long long k = 0; k < len - 1; ++k) { s += zi * c[k * st]; zi *= zp; }
            c[(len - 1) * st] = s * zp / (zi - 1.0);
        }
        for (long long k = len - 2; k >= 0; --k) c[k * st] = zp * (c[(k + 1) * st] - c[k * st]);
    }
}
done = 1;
"#;

/// The boundary code of the prefilter kernels: the whole-sample mirror, the half-sample
/// mirror or the periodic sum.
fn boundary_code(mode: Mode) -> i64 {
    match mode {
        Mode::Mirror | Mode::Constant | Mode::GridConstant | Mode::Wrap => 0,
        Mode::Reflect | Mode::Nearest => 1,
        Mode::GridWrap => 2,
    }
}

/// `buf` (float64, C-contiguous, owned) filtered along `axis`: lines shorter than
/// [`interp_kernels::LONG`] in place by the exact one-thread-per-line recursion, longer ones
/// by the chunked kernels (on a copy with `axis` first when it is the last axis, so that
/// adjacent threads read adjacent samples).
fn prefilter_axis(buf: Array, order: usize, axis: usize, mode: Mode) -> Result<Array> {
    let shape = buf.shape().to_vec();
    let n = shape[axis];
    if n == 0 || buf.size() == 0 {
        return Ok(buf);
    }
    if n < interp_kernels::LONG {
        prefilter_axis_lines(&buf, order, axis, mode)?;
        return Ok(buf);
    }
    let bc = boundary_code(mode) as i32;
    let st: usize = shape[axis + 1..].iter().product();
    if axis == 0 || st >= 32 {
        return interp_kernels::prefilter_long_lines(&buf, order, axis, bc);
    }
    // `axis` moved to the front, filtered, moved back.
    let nd = shape.len() as isize;
    let ax = axis as isize;
    let perm: Vec<isize> = std::iter::once(ax).chain((0..nd).filter(|&d| d != ax)).collect();
    let mut inv = vec![0isize; perm.len()];
    for (k, &p) in perm.iter().enumerate() {
        inv[p as usize] = k as isize;
    }
    let front = buf.transpose(Some(&perm))?.ascontiguous()?;
    drop(buf);
    let f = interp_kernels::prefilter_long_lines(&front, order, 0, bc)?;
    drop(front);
    f.transpose(Some(&inv))?.ascontiguous()
}

/// Filters `buf` (float64, C-contiguous, owned) in place along `axis`, one thread per line.
fn prefilter_axis_lines(buf: &Array, order: usize, axis: usize, mode: Mode) -> Result<()> {
    static K: OnceLock<ElementwiseKernel> = OnceLock::new();
    let k = kernel(
        &K,
        "int64 ln, int64 len, int64 st, int64 order, int64 bc",
        "raw float64 buf, int8 done",
        SPLINE_LINE,
        "xp_ndi_spline_line",
        SPLINE_PREAMBLE,
    )?;
    let shape = buf.shape();
    let n = shape[axis];
    if n == 0 || buf.size() == 0 {
        return Ok(());
    }
    let st: usize = shape[axis + 1..].iter().product();
    let lines = buf.size() / n;
    let bc = boundary_code(mode);
    let dev = buf.device_arc();
    let ln = Array::full_on(&dev, &[1], 0i64, DType::I64)?.broadcast_to(&[lines])?;
    // The launch's (unused) elementwise output: one byte per line.
    let done = Array::empty_on(&dev, &[lines], DType::I8)?;
    k.call(&[
        Operand::Array(&ln),
        int(n as i64),
        int(st as i64),
        int(order as i64),
        int(bc),
        Operand::Array(buf),
        Operand::Array(&done),
    ])?;
    Ok(())
}

/// A float64, C-contiguous copy of `a` that nothing else holds.
fn owned_f64(a: &Array) -> Result<Array> {
    if a.dtype() == DType::F64 {
        a.copy()?.ascontiguous()
    } else {
        a.astype(DType::F64)?.ascontiguous()
    }
}

/// The prefiltered coefficients along `axes` (float64).
fn coefficients(input: &Array, order: usize, mode: Mode, axes: &[usize]) -> Result<Array> {
    let mut buf = owned_f64(input)?;
    for &ax in axes {
        buf = prefilter_axis(buf, order, ax, mode)?;
    }
    Ok(buf)
}

/// SciPy's `spline_filter1d`: the B-spline coefficients of `order` (0–5; 0 and 1 copy the
/// input) along `axis`, with `mode`'s boundary (SciPy's default is [`Mode::Mirror`]). The
/// answer is float64 unless `output` names a dtype.
pub fn spline_filter1d(input: &Array, order: i64, axis: isize, output: Option<DType>, mode: Mode) -> Result<Array> {
    let op = "spline_filter1d";
    let order = check_order(op, order, 0)?;
    check_input(op, input)?;
    let nd = input.ndim() as isize;
    if axis < -nd || axis >= nd {
        return Err(Error::Axis {
            op: op.to_string(),
            reason: format!("axis {axis} is out of bounds for an array of {nd} dimensions"),
        });
    }
    let ax = if axis < 0 { axis + nd } else { axis } as usize;
    if input.dtype().kind() == DTypeKind::Complex {
        let out = complex_of(output);
        let re = spline_filter1d(&input.real(), order as i64, axis, Some(real_of(out)), mode)?;
        let im = spline_filter1d(&input.imag()?, order as i64, axis, Some(real_of(out)), mode)?;
        return combine(&re, &im, out);
    }
    let out = output.unwrap_or(DType::F64);
    if order < 2 {
        return input.astype(out)?.copy();
    }
    let c = coefficients(input, order, mode, &[ax])?;
    if out == DType::F64 {
        Ok(c)
    } else {
        store(&c, out)
    }
}

/// SciPy's `spline_filter`: [`spline_filter1d`] along every axis in turn (order 2–5; SciPy's
/// default mode is [`Mode::Mirror`]), each pass stored in `output` (float64 by default).
pub fn spline_filter(input: &Array, order: i64, output: Option<DType>, mode: Mode) -> Result<Array> {
    let op = "spline_filter";
    let order = check_order(op, order, 2)?;
    check_input(op, input)?;
    if input.dtype().kind() == DTypeKind::Complex {
        let out = complex_of(output);
        let re = spline_filter(&input.real(), order as i64, Some(real_of(out)), mode)?;
        let im = spline_filter(&input.imag()?, order as i64, Some(real_of(out)), mode)?;
        return combine(&re, &im, out);
    }
    let out = output.unwrap_or(DType::F64);
    if out == DType::F64 {
        let axes: Vec<usize> = (0..input.ndim()).collect();
        return coefficients(input, order, mode, &axes);
    }
    let mut cur = input.clone();
    for ax in 0..input.ndim() {
        let c = coefficients(&cur, order, mode, &[ax])?;
        cur = store(&c, out)?;
    }
    Ok(cur)
}

/// The complex output of a complex input: `output` promoted to complex (complex128 by
/// default), as SciPy promotes it.
fn complex_of(output: Option<DType>) -> DType {
    match output {
        Some(DType::F32) | Some(DType::C64) | Some(DType::F16) => DType::C64,
        _ => DType::C128,
    }
}

/// The real dtype of a complex one.
fn real_of(dtype: DType) -> DType {
    if dtype == DType::C64 {
        DType::F32
    } else {
        DType::F64
    }
}

/// `v` (float64) stored as `dtype`: integers rounded half away from zero, as SciPy stores.
fn store(v: &Array, dtype: DType) -> Result<Array> {
    match dtype.kind() {
        DTypeKind::Float => v.astype(dtype),
        DTypeKind::Complex | DTypeKind::Bool => {
            Err(Error::DType { op: "ndimage".into(), reason: format!("output dtype {dtype} is not supported") })
        }
        _ => {
            static K: OnceLock<ElementwiseKernel> = OnceLock::new();
            let k = kernel(
                &K,
                "float64 x",
                "float64 y",
                "y = x > 0.0 ? floor(x + 0.5) : ceil(x - 0.5)",
                "xp_ndi_round",
                "",
            )?;
            k.call(&[Operand::Array(v)])?.astype(dtype)
        }
    }
}

// ---- the interpolation -------------------------------------------------------------------------

/// How the kernel finds each output point's input coordinate.
#[derive(Clone)]
enum Coords<'a> {
    /// `map_coordinates`: an `(ndim, m)` float64 array.
    Array(&'a Array),
    /// `(matrix (nd × ndo), offset (nd))`.
    Affine(Vec<f64>, Vec<f64>),
    /// `(shift, zoom, grid_mode)`, per axis: `(o + shift) * zoom` (or SciPy's grid form).
    ZoomShift(Option<Vec<f64>>, Option<Vec<f64>>, bool),
}

/// The shared driver: prefilters (with SciPy's padding) along the `active` axes, then
/// interpolates into `out_shape`, answering `input`'s dtype.
#[allow(clippy::too_many_arguments)]
fn transform(
    op: &str,
    input: &Array,
    coords: Coords<'_>,
    out_shape: &[usize],
    order: usize,
    mode: Mode,
    cval: f64,
    prefilter: bool,
    active: &[bool],
) -> Result<Array> {
    if input.dtype().kind() == DTypeKind::Complex {
        // SciPy's rule: the real and imaginary parts interpolated apart (`cval` real).
        let re = transform(op, &input.real(), coords.clone(), out_shape, order, mode, cval, prefilter, active)?;
        let im = transform(op, &input.imag()?, coords, out_shape, order, mode, 0.0, prefilter, active)?;
        return combine(&re, &im, input.dtype());
    }
    let nd = input.ndim();
    let dev: Arc<dyn DynDevice> = input.device_arc();
    if out_shape.len() > MAX_NDIM {
        return Err(Error::value(
            op,
            format!("output has {} dimensions; at most {MAX_NDIM} are supported", out_shape.len()),
        ));
    }
    let filter = prefilter && order > 1;
    let padded = filter && matches!(mode, Mode::Nearest | Mode::GridConstant);
    let npad: Vec<usize> = active.iter().map(|&a| if padded && a { NPAD } else { 0 }).collect();
    // On the CPU device zoom and shift take the native form (the same arithmetic), each axis'
    // taps and weights computed once per output index. Scattered coordinates stay on the
    // kernel, whose compiled loop is as fast there.
    let native_zoom = super::native(&*dev) && matches!(coords, Coords::ZoomShift(..));
    let cf = if filter {
        let src = if padded {
            let widths: Vec<(usize, usize)> = npad.iter().map(|&p| (p, p)).collect();
            // SciPy pads the input itself: `cval` as the input's dtype holds it.
            let fill = Array::from_slice_on(&dev, &[cval], &[1])?.astype(input.dtype())?.astype(DType::F64)?;
            let fill: f64 = fill.item()?;
            let pm = if mode == Mode::Nearest { PadMode::Edge } else { PadMode::Constant(Scalar::Float(fill)) };
            pad(&owned_f64(input)?, &widths, pm)?
        } else {
            input.clone()
        };
        let axes: Vec<usize> = (0..nd).filter(|&d| active[d]).collect();
        coefficients(&src, order, mode, &axes)?
    } else if matches!(input.dtype(), DType::F32 | DType::F64) && !native_zoom {
        // Read in place: the kernel converts each sample to float64 as it loads it.
        input.ascontiguous()?
    } else {
        owned_f64(input)?
    };
    let rnd = !matches!(input.dtype().kind(), DTypeKind::Float);
    let ords: Vec<usize> = active.iter().map(|&a| if a { order } else { 0 }).collect();
    let pd: Vec<f64> = npad.iter().map(|&p| p as f64).collect();
    let mc = mode_code(mode);
    let rnd = rnd.then(|| int_range(input.dtype()));
    let (sv, zv, hs, hz, grid) = match &coords {
        Coords::ZoomShift(s, z, g) => (
            s.clone().unwrap_or_else(|| vec![0.0; nd]),
            z.clone().unwrap_or_else(|| vec![1.0; nd]),
            s.is_some(),
            z.is_some(),
            *g,
        ),
        _ => (Vec::new(), Vec::new(), false, false, false),
    };
    if native_zoom {
        let cf = cf.ascontiguous()?;
        let view = cf.as_ndarray_view::<f64>()?;
        let contiguous = || Error::value(op, "the coefficients are not contiguous");
        let cfs = view.as_slice().ok_or_else(contiguous)?;
        let hc = host::HostCoords::ZoomShift { shift: &sv, zoom: &zv, hs, hz, grid };
        let shaped = |e: ndarray::ShapeError| Error::value(op, format!("output shape {out_shape:?}: {e}"));
        let dim = ndarray::IxDyn(out_shape);
        return if input.dtype() == DType::F32 {
            let y = host::interpolate(cfs, cf.shape(), out_shape, &ords, &pd, &hc, mc, cval, rnd, |v| v as f32);
            Array::from_ndarray_owned(ndarray::ArrayD::from_shape_vec(dim, y).map_err(shaped)?)
        } else {
            let y = host::interpolate(cfs, cf.shape(), out_shape, &ords, &pd, &hc, mc, cval, rnd, |v| v);
            let y = Array::from_ndarray_owned(ndarray::ArrayD::from_shape_vec(dim, y).map_err(shaped)?)?;
            if input.dtype() == DType::F64 {
                Ok(y)
            } else {
                y.astype(input.dtype())
            }
        };
    }
    let out_dtype = if input.dtype() == DType::F32 { DType::F32 } else { DType::F64 };
    let total: usize = out_shape.iter().product();
    // 32-bit indices when every index the kernel forms fits.
    let limit = i32::MAX as usize;
    let mut wide = cf.size() > limit || total.saturating_mul(nd.max(1)) > limit;
    // Arguments a source does not read are given the coefficients' address.
    let (source, crd, par, ttab, wtab) = match &coords {
        Coords::Array(c) => {
            let c = if matches!(c.dtype(), DType::F32 | DType::F64) {
                c.ascontiguous()?
            } else {
                c.astype(DType::F64)?.ascontiguous()?
            };
            wide |= c.size() > limit;
            (interp_kernels::Source::Coordinates, c, cf.clone(), cf.clone(), cf.clone())
        }
        Coords::Affine(m, off) => {
            let mut p = m.clone();
            p.extend(off);
            let n = p.len();
            let par = Array::from_slice_on(&dev, &p, &[n])?;
            (interp_kernels::Source::Affine, cf.clone(), par, cf.clone(), cf.clone())
        }
        Coords::ZoomShift(..) => {
            let hc = host::HostCoords::ZoomShift { shift: &sv, zoom: &zv, hs, hz, grid };
            let (t, w) = host::zoom_table_rows(cf.shape(), out_shape, &ords, &pd, &hc, mc);
            wide |= t.len() > limit;
            let ttab = if wide {
                Array::from_slice_on(&dev, &t, &[t.len()])?
            } else {
                let t32: Vec<i32> = t.iter().map(|&v| v as i32).collect();
                Array::from_slice_on(&dev, &t32, &[t32.len()])?
            };
            (interp_kernels::Source::Tables, cf.clone(), cf.clone(), ttab, Array::from_slice_on(&dev, &w, &[w.len()])?)
        }
    };
    let ctype = |dt: DType| if dt == DType::F32 { "float" } else { "double" };
    let spec = interp_kernels::InterpSpec {
        source,
        ords: ords.clone(),
        pads: npad.clone(),
        ndo: out_shape.len(),
        ct: ctype(cf.dtype()),
        crd: ctype(crd.dtype()),
        ot: ctype(out_dtype),
        wide,
    };
    let y = Array::empty_on(&dev, out_shape, out_dtype)?;
    interp_kernels::interpolate(
        &spec,
        &interp_kernels::InterpLaunch {
            cf: &cf,
            out: &y,
            crd: &crd,
            par: &par,
            ttab: &ttab,
            wtab: &wtab,
            mode: mc,
            cval,
            rnd,
            ishape: cf.shape(),
            oshape: out_shape,
        },
    )?;
    if input.dtype() == out_dtype {
        Ok(y)
    } else {
        y.astype(input.dtype())
    }
}

/// `re + i·im` as `dtype` (complex).
fn combine(re: &Array, im: &Array, dtype: DType) -> Result<Array> {
    re.astype(dtype)?.add(&im.astype(dtype)?.mul_scalar(Scalar::Complex(0.0, 1.0))?)?.astype(dtype)
}

/// The range an integer dtype holds (SciPy clips integer answers to it).
fn int_range(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::I8 => (i8::MIN as f64, i8::MAX as f64),
        DType::U8 => (0.0, u8::MAX as f64),
        DType::I16 => (i16::MIN as f64, i16::MAX as f64),
        DType::U16 => (0.0, u16::MAX as f64),
        DType::I32 => (i32::MIN as f64, i32::MAX as f64),
        DType::U32 => (0.0, u32::MAX as f64),
        DType::I64 => (i64::MIN as f64, i64::MAX as f64),
        DType::U64 => (0.0, u64::MAX as f64),
        _ => (f64::NEG_INFINITY, f64::INFINITY),
    }
}

/// A sequence of one value per axis, or one value for every axis (SciPy's
/// `_normalize_sequence`).
fn per_axis(op: &str, what: &str, v: &[f64], nd: usize) -> Result<Vec<f64>> {
    match v.len() {
        1 => Ok(vec![v[0]; nd]),
        k if k == nd => Ok(v.to_vec()),
        k => Err(Error::value(op, format!("{what} has {k} values; the input has {nd} dimensions"))),
    }
}

/// SciPy's `map_coordinates`: the input's spline of `order` (0–5) at `coordinates`, an
/// `(ndim, ...)` array whose row `d` holds the points' coordinates along axis `d`; the answer
/// has shape `coordinates.shape[1:]` and the input's dtype. SciPy's defaults: `order` 3,
/// [`Mode::Constant`], `cval` 0, `prefilter` true.
pub fn map_coordinates(
    input: &Array,
    coordinates: &Array,
    order: i64,
    mode: Mode,
    cval: f64,
    prefilter: bool,
) -> Result<Array> {
    let op = "map_coordinates";
    let order = check_order(op, order, 0)?;
    check_input(op, input)?;
    if coordinates.dtype().kind() == DTypeKind::Complex {
        return Err(Error::DType { op: op.into(), reason: "complex coordinates are not supported".into() });
    }
    if coordinates.ndim() < 1 || coordinates.shape()[0] != input.ndim() {
        return Err(Error::value(
            op,
            format!(
                "invalid shape for coordinate array: {:?} for an input of shape {:?} (expected ({}, ...))",
                coordinates.shape(),
                input.shape(),
                input.ndim()
            ),
        ));
    }
    let out_shape = coordinates.shape()[1..].to_vec();
    // float32 and float64 coordinates are read in place by the kernel; others converted there.
    let crd = coordinates.clone();
    let active = vec![true; input.ndim()];
    transform(op, input, Coords::Array(&crd), &out_shape, order, mode, cval, prefilter, &active)
}

/// SciPy's `affine_transform`: the output point `o` takes the input's spline at
/// `matrix · o + offset`. `matrix` is `(ndim,)` (a diagonal), `(ndim, ndim)`, `(ndim, ndim + 1)`
/// (the last column the offset) or `(ndim + 1, ndim + 1)` (homogeneous, last row
/// `[0, …, 0, 1]`); `offset` one value or one per axis; `output_shape` the input's by default.
/// SciPy's defaults: `offset` 0, `order` 3, [`Mode::Constant`], `cval` 0, `prefilter` true.
#[allow(clippy::too_many_arguments)]
pub fn affine_transform(
    input: &Array,
    matrix: &Array,
    offset: &[f64],
    output_shape: Option<&[usize]>,
    order: i64,
    mode: Mode,
    cval: f64,
    prefilter: bool,
) -> Result<Array> {
    let op = "affine_transform";
    let order = check_order(op, order, 0)?;
    check_input(op, input)?;
    let nd = input.ndim();
    let out_shape = output_shape.map(<[usize]>::to_vec).unwrap_or_else(|| input.shape().to_vec());
    if out_shape.is_empty() {
        return Err(Error::value(op, "input and output rank must be > 0"));
    }
    if matrix.dtype().kind() == DTypeKind::Complex {
        return Err(Error::DType { op: op.into(), reason: "a complex matrix is not supported".into() });
    }
    let m: Vec<f64> = matrix.astype(DType::F64)?.to_vec()?;
    let ms = matrix.shape().to_vec();
    if !(ms.len() == 1 || ms.len() == 2) || ms[0] < 1 {
        return Err(Error::value(op, format!("no proper affine matrix provided: shape {ms:?}")));
    }
    let mut offset = per_axis(op, "offset", if offset.is_empty() { &[0.0] } else { offset }, nd)?;
    let mut mat = m.clone();
    let mut rows = ms[0];
    let mut cols = if ms.len() == 2 { ms[1] } else { 0 };
    if ms.len() == 2 && ms[1] == nd + 1 && (ms[0] == nd || ms[0] == nd + 1) {
        if ms[0] == nd + 1 {
            let last = &m[nd * (nd + 1)..];
            if last[..nd].iter().any(|&v| v != 0.0) || last[nd] != 1.0 {
                return Err(Error::value(
                    op,
                    format!(
                        "expected homogeneous transformation matrix with shape {ms:?} for image shape {:?}, but \
                         bottom row was not equal to [0, …, 0, 1]",
                        input.shape()
                    ),
                ));
            }
        }
        offset = (0..nd).map(|r| m[r * (nd + 1) + nd]).collect();
        mat = (0..nd).flat_map(|r| m[r * (nd + 1)..r * (nd + 1) + nd].to_vec()).collect();
        rows = nd;
        cols = nd;
    }
    if rows != nd {
        return Err(Error::value(
            op,
            format!("affine matrix has wrong number of rows: shape {ms:?} for {nd} dimensions"),
        ));
    }
    let active = vec![true; nd];
    if ms.len() == 1 {
        if out_shape.len() != nd {
            return Err(Error::value(op, "a diagonal matrix needs an output of the input's rank"));
        }
        let shift: Vec<f64> = offset.iter().zip(&mat).map(|(o, z)| o / z).collect();
        return transform(
            op,
            input,
            Coords::ZoomShift(Some(shift), Some(mat), false),
            &out_shape,
            order,
            mode,
            cval,
            prefilter,
            &active,
        );
    }
    if cols != out_shape.len() {
        return Err(Error::value(
            op,
            format!("affine matrix has wrong number of columns: {cols} for an output of rank {}", out_shape.len()),
        ));
    }
    transform(op, input, Coords::Affine(mat, offset), &out_shape, order, mode, cval, prefilter, &active)
}

/// SciPy's `shift`: the output point `o` takes the input's spline at `o - shift` (`shift`
/// one value or one per axis). SciPy's defaults: `order` 3, [`Mode::Constant`], `cval` 0,
/// `prefilter` true.
pub fn shift(input: &Array, shift: &[f64], order: i64, mode: Mode, cval: f64, prefilter: bool) -> Result<Array> {
    let op = "shift";
    let order = check_order(op, order, 0)?;
    check_input(op, input)?;
    let nd = input.ndim();
    let s: Vec<f64> = per_axis(op, "shift", shift, nd)?.iter().map(|v| -v).collect();
    let active = vec![true; nd];
    transform(op, input, Coords::ZoomShift(Some(s), None, false), input.shape(), order, mode, cval, prefilter, &active)
}

/// SciPy's `zoom`: the input resampled to `round(shape × zoom)` (halves to even, as Python's
/// `round`). Without `grid_mode` the first and last samples' centres stay aligned; with it
/// the pixels' outer edges do (SciPy recommends [`Mode::GridConstant`] then; [`Mode::Constant`]
/// still answers `cval` outside the input's first and last samples). SciPy's defaults: `order` 3, [`Mode::Constant`], `cval` 0, `prefilter` true,
/// `grid_mode` false.
#[allow(clippy::too_many_arguments)]
pub fn zoom(
    input: &Array,
    zoom: &[f64],
    order: i64,
    mode: Mode,
    cval: f64,
    prefilter: bool,
    grid_mode: bool,
) -> Result<Array> {
    let op = "zoom";
    let order = check_order(op, order, 0)?;
    check_input(op, input)?;
    let nd = input.ndim();
    let z = per_axis(op, "zoom", zoom, nd)?;
    let mut out_shape = Vec::with_capacity(nd);
    for (&n, &f) in input.shape().iter().zip(&z) {
        let v = (n as f64 * f).round_ties_even();
        if v.is_nan() || v < 0.0 || !v.is_finite() {
            return Err(Error::value(op, format!("zoom factor {f} gives no valid output length for an axis of {n}")));
        }
        out_shape.push(v as usize);
    }
    let factors: Vec<f64> = input
        .shape()
        .iter()
        .zip(&out_shape)
        .map(|(&i, &o)| {
            let (num, den) = if grid_mode { (i as f64, o as f64) } else { (i as f64 - 1.0, o as f64 - 1.0) };
            if den != 0.0 {
                num / den
            } else {
                1.0
            }
        })
        .collect();
    let active = vec![true; nd];
    transform(
        op,
        input,
        Coords::ZoomShift(None, Some(factors), grid_mode),
        &out_shape,
        order,
        mode,
        cval,
        prefilter,
        &active,
    )
}

/// `(cos, sin)` of `angle` degrees, exact at multiples of 90° (as SciPy's `cosdg`/`sindg`).
fn cos_sin_deg(angle: f64) -> (f64, f64) {
    let a = angle.rem_euclid(360.0);
    if a % 90.0 == 0.0 {
        return match (a / 90.0) as i64 {
            0 => (1.0, 0.0),
            1 => (0.0, 1.0),
            2 => (-1.0, 0.0),
            _ => (0.0, -1.0),
        };
    }
    let r = a.to_radians();
    (r.cos(), r.sin())
}

/// SciPy's `rotate`: the input rotated by `angle` degrees in the plane of `axes` (SciPy's
/// default `(1, 0)`); with `reshape` the output grows to hold the whole rotated input. Each
/// plane parallel to `axes` is rotated alike. SciPy's defaults: `reshape` true, `order` 3,
/// [`Mode::Constant`], `cval` 0, `prefilter` true.
#[allow(clippy::too_many_arguments)]
pub fn rotate(
    input: &Array,
    angle: f64,
    axes: (isize, isize),
    reshape: bool,
    order: i64,
    mode: Mode,
    cval: f64,
    prefilter: bool,
) -> Result<Array> {
    let op = "rotate";
    let order = check_order(op, order, 0)?;
    check_input(op, input)?;
    let nd = input.ndim();
    if nd < 2 {
        return Err(Error::value(op, "input array should be at least 2D"));
    }
    let norm = |a: isize| if a < 0 { a + nd as isize } else { a };
    let (a0, a1) = (norm(axes.0), norm(axes.1));
    if a0 < 0 || a1 < 0 || a0 >= nd as isize || a1 >= nd as isize {
        return Err(Error::value(op, format!("invalid rotation plane specified: axes {axes:?} for {nd} dimensions")));
    }
    let (a0, a1) = if a0 <= a1 { (a0 as usize, a1 as usize) } else { (a1 as usize, a0 as usize) };
    let (c, s) = cos_sin_deg(angle);
    let rot = [[c, s], [-s, c]];
    let shape = input.shape();
    let (iy, ix) = (shape[a0] as f64, shape[a1] as f64);
    let out_plane = if reshape {
        let xs = [0.0, 0.0, iy, iy];
        let ys = [0.0, ix, 0.0, ix];
        let mut ext = [0usize; 2];
        for (r, e) in ext.iter_mut().enumerate() {
            let v: Vec<f64> = (0..4).map(|k| rot[r][0] * xs[k] + rot[r][1] * ys[k]).collect();
            let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
            *e = ((hi - lo) + 0.5) as usize;
        }
        ext
    } else {
        [shape[a0], shape[a1]]
    };
    let oc = [(out_plane[0] as f64 - 1.0) / 2.0, (out_plane[1] as f64 - 1.0) / 2.0];
    let out_center = [rot[0][0] * oc[0] + rot[0][1] * oc[1], rot[1][0] * oc[0] + rot[1][1] * oc[1]];
    let in_center = [(iy - 1.0) / 2.0, (ix - 1.0) / 2.0];
    let off2 = [in_center[0] - out_center[0], in_center[1] - out_center[1]];
    let mut out_shape = shape.to_vec();
    out_shape[a0] = out_plane[0];
    out_shape[a1] = out_plane[1];
    let mut mat = vec![0.0; nd * nd];
    let mut offset = vec![0.0; nd];
    for d in 0..nd {
        mat[d * nd + d] = 1.0;
    }
    let ax = [a0, a1];
    for r in 0..2 {
        for q in 0..2 {
            mat[ax[r] * nd + ax[q]] = rot[r][q];
        }
        offset[ax[r]] = off2[r];
    }
    let active: Vec<bool> = (0..nd).map(|d| d == a0 || d == a1).collect();
    transform(op, input, Coords::Affine(mat, offset), &out_shape, order, mode, cval, prefilter, &active)
}
