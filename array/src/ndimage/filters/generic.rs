//! [`generic_filter`] and [`generic_filter1d`]: SciPy's filters with a user function, given as
//! the body of a C function compiled at run time (NVRTC, hiprtc or the CPU backend's C++
//! compiler, from one source), as CuPy's take a `RawKernel`.
//!
//! # The user function
//! [`FilterFunction`] is the body of
//!
//! ```c
//! void f(const double* buffer, long long filter_size, double* return_value,
//!        const double* extra_arguments, long long n_extra);
//! ```
//!
//! SciPy's `LowLevelCallable` signature, with the `user_data` replaced by the float64
//! `extra_arguments`: `buffer` holds the `filter_size` values under the footprint (in C order of
//! the footprint, its zero elements left out; outside the image they follow `mode`, and in
//! constant mode they are `cval` itself, not cast to the input's dtype, as SciPy) and the body
//! stores one value in `*return_value` (0 if it stores nothing).
//!
//! [`FilterFunction1d`] is the body of
//!
//! ```c
//! void f(const double* input_line, long long input_length, double* output_line,
//!        long long output_length, long long filter_size,
//!        const double* extra_arguments, long long n_extra);
//! ```
//!
//! `input_line` is one line along `axis` extended by `filter_size / 2 + origin` values before
//! and `filter_size - 1 - filter_size / 2 - origin` after by `mode` (`input_length` is the
//! line's length plus `filter_size - 1`), and the body writes the `output_length` values of
//! `output_line` (SciPy's `generic_filter1d` callback, with `filter_size` passed too).
//!
//! Helper functions a body calls go in [`FilterFunction::with_preamble`]; they are compiled for
//! the device, so mark them `XP_DEVICE` (`__device__` on GPUs, nothing on the CPU). A body
//! that does not compile is an [`Error::Compile`] naming the function and holding the
//! compiler's log.
//!
//! # Choices
//! - **Values** are float64 in the function, as SciPy's; the result is cast to `output`
//!   (default the input's dtype): float types round, integers are truncated toward zero and
//!   wrap to their width (SciPy's C cast), bool is `value != 0`.
//! - **Kernels**: one thread per output element gathers the footprint into a buffer and calls
//!   the function; where the whole footprint lies inside the image the taps are read at flat
//!   offsets made once on the host, so the boundary rule runs only near the edges. Footprints
//!   of up to 1,024 elements use a per-thread buffer; larger ones a device scratch array, the
//!   output then made in chunks of elements so that the scratch stays under 256 MiB.
//!   `generic_filter1d` runs one thread per line, with the extended input line and the output
//!   line in device scratch arrays (16 bytes per element plus the extension).
//! - Kernels are compiled once per function, output dtype and buffer size, and cached by the
//!   compile cache per input dtype and device.
//! - The Rust-closure form of SciPy (a Python callable) has no counterpart: the function runs
//!   on the device, so it is device code.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use xp_backend_api::{DType, Error, Result};

use super::kernels::{mode_code, HELPERS, MAX_NDIM};
use super::{check_input, check_origin, window, Mode};
use crate::layout::{normalize_axis, SliceArg};
use crate::user::ElementwiseKernel;
use crate::{Array, Operand, Scalar};

/// Footprints up to this size gather into a per-thread buffer.
const LOCAL: usize = 1024;

/// The most bytes of device scratch a chunk of a large-footprint [`generic_filter`] takes.
const SCRATCH_BYTES: usize = 256 << 20;

/// The body of a C function run once per output element by [`generic_filter`] (see the
/// [module docs](self) for the names in scope).
///
/// ```
/// # use xp_array::ndimage::FilterFunction;
/// // The range (maximum minus minimum) of the footprint's values.
/// let range = FilterFunction::new(
///     "double lo = buffer[0], hi = buffer[0];
///      for (long long k = 1; k < filter_size; ++k) { lo = fmin(lo, buffer[k]); hi = fmax(hi, buffer[k]); }
///      *return_value = hi - lo;",
/// ).unwrap();
/// # let _ = range;
/// ```
#[derive(Debug)]
pub struct FilterFunction {
    body: String,
    preamble: String,
    kernels: Mutex<HashMap<(usize, DType), Arc<ElementwiseKernel>>>,
}

/// The body of a C function run once per line by [`generic_filter1d`] (see the
/// [module docs](self) for the names in scope).
///
/// ```
/// # use xp_array::ndimage::FilterFunction1d;
/// // A running sum over `filter_size` values.
/// let run = FilterFunction1d::new(
///     "for (long long j = 0; j < output_length; ++j) {
///          double s = 0.0;
///          for (long long k = 0; k < filter_size; ++k) s += input_line[j + k];
///          output_line[j] = s;
///      }",
/// ).unwrap();
/// # let _ = run;
/// ```
#[derive(Debug)]
pub struct FilterFunction1d {
    body: String,
    preamble: String,
    kernels: Mutex<HashMap<DType, Arc<ElementwiseKernel>>>,
}

fn check_body(op: &str, body: &str) -> Result<()> {
    if body.trim().is_empty() {
        return Err(Error::value(op, "the filter function's body is empty"));
    }
    Ok(())
}

impl FilterFunction {
    /// A function from the statements of its body.
    pub fn new(body: &str) -> Result<FilterFunction> {
        check_body("FilterFunction", body)?;
        Ok(FilterFunction { body: body.to_string(), preamble: String::new(), kernels: Mutex::default() })
    }

    /// The same function with `preamble` (helper functions marked `XP_DEVICE`, `#define`s)
    /// compiled before it.
    pub fn with_preamble(mut self, preamble: &str) -> FilterFunction {
        self.preamble = preamble.to_string();
        self.kernels = Mutex::default();
        self
    }

    /// The function's body.
    pub fn body(&self) -> &str {
        &self.body
    }

    fn kernel(&self, buf: usize, out: DType) -> Result<Arc<ElementwiseKernel>> {
        let mut map = self.kernels.lock().map_err(|_| Error::value("generic_filter", "kernel cache poisoned"))?;
        if let Some(k) = map.get(&(buf, out)) {
            return Ok(k.clone());
        }
        let user = user_name(&self.body, &self.preamble);
        let preamble = format!(
            "{HELPERS}{}\nstatic XP_DEVICE void {user}(const double* buffer, long long filter_size, \
             double* return_value, const double* extra_arguments, long long n_extra) {{\n\
             (void)buffer; (void)filter_size; (void)return_value; (void)extra_arguments; (void)n_extra;\n{}\n}}\n",
            self.preamble,
            terminated(&self.body)
        );
        let buffer = if buf == 0 {
            "double* buf = (double*)scr + (long long)i * nw;".to_string()
        } else {
            format!("double buf[{buf}];")
        };
        let op = format!(
            r#"const long long e = (long long)i + first;
long long rem = e, c[{MAX_NDIM}];
int inner = 1;
for (long long d = nd - 1; d >= 0; --d) {{
    const long long n = shp[d];
    c[d] = rem % n; rem /= n;
    if (c[d] + olo[d] < 0 || c[d] + ohi[d] >= n) inner = 0;
}}
{buffer}
if (inner) {{
    for (long long k = 0; k < nw; ++k) buf[k] = (double)x[e + fofs[k]];
}} else {{
    for (long long k = 0; k < nw; ++k) {{
        long long flat = 0; int outside = 0;
        for (long long d = 0; d < nd; ++d) {{
            const long long n = shp[d];
            long long j = c[d] + offs[k * nd + d];
            if (j < 0 || j >= n) {{
                if (mode == 1) {{ outside = 1; break; }}
                j = xp_nd_extend(j, n, mode);
            }}
            flat = flat * n + j;
        }}
        buf[k] = outside ? cval : (double)x[flat];
    }}
}}
double rv = 0.0;
{user}(buf, nw, &rv, extra, nextra);
{}"#,
            store("y", "rv", out)
        );
        let scr = if buf == 0 { "raw float64 scr, " } else { "" };
        let k = ElementwiseKernel::new(
            &format!(
                "raw X x, raw int64 shp, raw int64 offs, raw int64 fofs, raw int64 olo, raw int64 ohi, \
                 raw float64 extra, {scr}int64 nd, int64 nw, int64 mode, float64 cval, int64 nextra, int64 first"
            ),
            &format!("{} y", out.name()),
            &op,
            "xp_ndimage_generic_filter",
        )?
        .with_preamble(&preamble);
        let k = Arc::new(k);
        map.insert((buf, out), k.clone());
        Ok(k)
    }
}

impl FilterFunction1d {
    /// A function from the statements of its body.
    pub fn new(body: &str) -> Result<FilterFunction1d> {
        check_body("FilterFunction1d", body)?;
        Ok(FilterFunction1d { body: body.to_string(), preamble: String::new(), kernels: Mutex::default() })
    }

    /// The same function with `preamble` (helper functions marked `XP_DEVICE`, `#define`s)
    /// compiled before it.
    pub fn with_preamble(mut self, preamble: &str) -> FilterFunction1d {
        self.preamble = preamble.to_string();
        self.kernels = Mutex::default();
        self
    }

    /// The function's body.
    pub fn body(&self) -> &str {
        &self.body
    }

    fn kernel(&self, out: DType) -> Result<Arc<ElementwiseKernel>> {
        let mut map = self.kernels.lock().map_err(|_| Error::value("generic_filter1d", "kernel cache poisoned"))?;
        if let Some(k) = map.get(&out) {
            return Ok(k.clone());
        }
        let user = user_name(&self.body, &self.preamble);
        let preamble = format!(
            "{HELPERS}{}\nstatic XP_DEVICE void {user}(const double* input_line, long long input_length, \
             double* output_line, long long output_length, long long filter_size, \
             const double* extra_arguments, long long n_extra) {{\n\
             (void)input_line; (void)input_length; (void)output_line; (void)output_length; (void)filter_size; \
             (void)extra_arguments; (void)n_extra;\n{}\n}}\n",
            self.preamble,
            terminated(&self.body)
        );
        let op = format!(
            r#"const long long n = len, s = stride, line = (long long)i;
const long long base = (line / s) * n * s + line % s;
const long long m = n + fs - 1;
double* il = (double*)iscr + line * m;
double* ol = (double*)oscr + line * n;
for (long long j = 0; j < m; ++j) {{
    long long q = j - before;
    if (q < 0 || q >= n) {{
        if (mode == 1) {{ il[j] = cval; continue; }}
        q = xp_nd_extend(q, n, mode);
    }}
    il[j] = (double)x[base + q * s];
}}
for (long long j = 0; j < n; ++j) ol[j] = 0.0;
{user}(il, m, ol, n, fs, extra, nextra);
for (long long j = 0; j < n; ++j) {{
    {}
}}
done = 1;"#,
            store("out[base + j * s]", "ol[j]", out)
        );
        let k = ElementwiseKernel::new(
            "raw X x, raw float64 iscr, raw float64 oscr, raw float64 extra, int64 len, int64 stride, int64 fs, \
             int64 before, int64 mode, float64 cval, int64 nextra",
            &format!("raw {} out, int8 done", out.name()),
            &op,
            "xp_ndimage_generic_filter1d",
        )?
        .with_preamble(&preamble);
        let k = Arc::new(k);
        map.insert(out, k.clone());
        Ok(k)
    }
}

/// The statements of `body` with a final `;` where it ends in an expression.
fn terminated(body: &str) -> String {
    let t = body.trim_end();
    if t.ends_with(';') || t.ends_with('}') {
        t.to_string()
    } else {
        format!("{t};")
    }
}

fn user_name(body: &str, preamble: &str) -> String {
    format!("xp_ndimage_user_{:016x}", crate::user::fnv64(&format!("{preamble}\u{0}{body}")))
}

/// The statement storing the float64 `v` in `dst` of dtype `out`.
fn store(dst: &str, v: &str, out: DType) -> String {
    if out == DType::Bool {
        format!("{dst} = ({v}) != 0.0;")
    } else if out.is_integer() {
        // Truncation toward zero, then wrap-around to the width (unsigned from signed).
        format!("{dst} = ({})(long long)({v});", out.c_name())
    } else {
        format!("{dst} = ({})({v});", out.c_name())
    }
}

fn check_output(op: &str, out: DType) -> Result<()> {
    if out == DType::Bool || out == DType::F32 || out == DType::F64 || out.is_integer() {
        Ok(())
    } else {
        Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![out],
            detail: "the output of a generic filter is bool, an integer or a real float type".into(),
        })
    }
}

/// A compile error of the user's function, named as theirs.
fn user_error(op: &str, body: &str, e: Error) -> Error {
    match e {
        Error::Compile { log, options, .. } => {
            let first = body.trim().lines().next().unwrap_or("").trim();
            Error::Compile { kernel: format!("{op}: the user function `{first}`…"), log, options }
        }
        other => other,
    }
}

fn extra_array(dev: &Arc<dyn xp_backend_api::DynDevice>, extra: &[f64]) -> Result<Array> {
    let v = if extra.is_empty() { vec![0.0] } else { extra.to_vec() };
    Array::from_slice_on(dev, &v, &[v.len()])
}

/// SciPy's `ndimage.generic_filter`: `function` applied at every element to the values under
/// the footprint (given by `size`, a box of one length for every axis or one per axis, or by
/// `footprint`, whose nonzero elements are taken; it wins over `size`), the image extended by
/// `mode` (`cval` in constant mode). `output` is the result's dtype (default the input's);
/// `extra_arguments` reach the function as float64 values.
///
/// Errors: a footprint of another rank than the input, a size below 1, a bad origin, a footprint
/// without a nonzero element (`Value`); a complex or bool image, or a complex or float16
/// output (`UnsupportedDType`); a function that does not compile (`Compile`).
///
/// ```
/// # use std::sync::Arc;
/// # use xp_array::*;
/// # use xp_array::ndimage::{self, FilterFunction, Mode};
/// # register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = device("cpu").unwrap();
/// let img = Array::from_slice_on(&d, &[1.0f64, 5.0, 2.0, 8.0], &[4]).unwrap();
/// let mean = FilterFunction::new(
///     "double s = 0; for (long long k = 0; k < filter_size; ++k) s += buffer[k]; *return_value = s / filter_size;",
/// ).unwrap();
/// let y = ndimage::generic_filter(&img, &mean, Some(&[3]), None, None, Mode::Nearest, 0.0, &[], &[]).unwrap();
/// assert_eq!(y.to_vec::<f64>().unwrap(), vec![7.0 / 3.0, 8.0 / 3.0, 5.0, 6.0]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn generic_filter(
    input: &Array,
    function: &FilterFunction,
    size: Option<&[usize]>,
    footprint: Option<&Array>,
    output: Option<DType>,
    mode: Mode,
    cval: f64,
    origin: &[isize],
    extra_arguments: &[f64],
) -> Result<Array> {
    let op = "generic_filter";
    check_input(op, input)?;
    let out_dt = output.unwrap_or(input.dtype());
    check_output(op, out_dt)?;
    let w = window(op, input, size, footprint, origin)?;
    let dev = input.device_arc();
    let out = Array::empty_on(&dev, input.shape(), out_dt)?;
    if input.size() == 0 {
        return Ok(out);
    }
    let nd = input.ndim().max(1);
    if nd > MAX_NDIM {
        return Err(Error::value(op, format!("at most {MAX_NDIM} dimensions are supported, got {nd}")));
    }
    let shape: Vec<i64> = if input.ndim() == 0 { vec![1] } else { input.shape().iter().map(|&n| n as i64).collect() };
    let nw = w.taps.len();
    let mut offs = Vec::with_capacity(nw * nd);
    let mut fofs = Vec::with_capacity(nw);
    let mut lo = vec![0i64; nd];
    let mut hi = vec![0i64; nd];
    for t in &w.taps {
        let t: Vec<i64> = if t.is_empty() { vec![0; nd] } else { t.clone() };
        let mut flat = 0i64;
        for d in 0..nd {
            flat = flat * shape[d] + t[d];
            lo[d] = lo[d].min(t[d]);
            hi[d] = hi[d].max(t[d]);
        }
        // `flat` above is the row-major offset with negative digits: the flat offset itself.
        fofs.push(flat);
        offs.extend_from_slice(&t);
    }
    let buf = if nw <= LOCAL { nw.next_power_of_two().max(8) } else { 0 };
    let k = function.kernel(buf, out_dt)?;
    let x = input.ascontiguous()?;
    let arr = |v: &[i64]| Array::from_slice_on(&dev, v, &[v.len()]);
    let (shp, offs, fofs, olo, ohi) = (arr(&shape)?, arr(&offs)?, arr(&fofs)?, arr(&lo)?, arr(&hi)?);
    let extra = extra_array(&dev, extra_arguments)?;
    let i = |v: i64| Operand::Scalar(Scalar::Int(v as i128));
    let total = input.size();
    let chunk = if buf == 0 { (SCRATCH_BYTES / (8 * nw)).max(1) } else { total };
    let scr = if buf == 0 { Some(Array::empty_on(&dev, &[chunk.min(total) * nw], DType::F64)?) } else { None };
    let flat_out = out.reshape(&[-1])?;
    let mut first = 0usize;
    while first < total {
        let len = chunk.min(total - first);
        let part = if len == total {
            flat_out.clone()
        } else {
            flat_out.slice(&[SliceArg::Range {
                start: Some(first as isize),
                stop: Some((first + len) as isize),
                step: None,
            }])?
        };
        let mut args = vec![
            Operand::Array(&x),
            Operand::Array(&shp),
            Operand::Array(&offs),
            Operand::Array(&fofs),
            Operand::Array(&olo),
            Operand::Array(&ohi),
            Operand::Array(&extra),
        ];
        if let Some(s) = &scr {
            args.push(Operand::Array(s));
        }
        args.extend([
            i(nd as i64),
            i(nw as i64),
            i(mode_code(mode)),
            Operand::Scalar(Scalar::Float(cval)),
            i(extra_arguments.len() as i64),
            i(first as i64),
            Operand::Array(&part),
        ]);
        k.call(&args).map_err(|e| user_error(op, &function.body, e))?;
        first += len;
    }
    Ok(out)
}

/// SciPy's `ndimage.generic_filter1d`: `function` applied to every line along `axis`, each
/// extended by `filter_size / 2 + origin` values before and the rest of `filter_size - 1` after
/// by `mode` (`cval` in constant mode). `output` is the result's dtype (default the input's);
/// `extra_arguments` reach the function as float64 values.
///
/// Errors: a `filter_size` below 1 or a bad origin (`Value`), an axis out of range (`Axis`), a
/// complex or bool image or a complex or float16 output (`UnsupportedDType`), a function that
/// does not compile (`Compile`).
///
/// ```
/// # use std::sync::Arc;
/// # use xp_array::*;
/// # use xp_array::ndimage::{self, FilterFunction1d, Mode};
/// # register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = device("cpu").unwrap();
/// let img = Array::from_slice_on(&d, &[1.0f64, 2.0, 3.0, 4.0], &[4]).unwrap();
/// // The difference of each element and the one before it.
/// let diff = FilterFunction1d::new(
///     "for (long long j = 0; j < output_length; ++j) output_line[j] = input_line[j + 1] - input_line[j];",
/// ).unwrap();
/// let y = ndimage::generic_filter1d(&img, &diff, 2, -1, None, Mode::Nearest, 0.0, 0, &[]).unwrap();
/// assert_eq!(y.to_vec::<f64>().unwrap(), vec![0.0, 1.0, 1.0, 1.0]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn generic_filter1d(
    input: &Array,
    function: &FilterFunction1d,
    filter_size: usize,
    axis: isize,
    output: Option<DType>,
    mode: Mode,
    cval: f64,
    origin: isize,
    extra_arguments: &[f64],
) -> Result<Array> {
    let op = "generic_filter1d";
    check_input(op, input)?;
    let out_dt = output.unwrap_or(input.dtype());
    check_output(op, out_dt)?;
    if filter_size < 1 {
        return Err(Error::value(op, format!("invalid filter size {filter_size}")));
    }
    let ax = normalize_axis(op, axis, input.ndim().max(1))?;
    check_origin(op, filter_size, origin)?;
    let dev = input.device_arc();
    let out = Array::empty_on(&dev, input.shape(), out_dt)?;
    if input.size() == 0 {
        return Ok(out);
    }
    let shape = input.shape();
    let (n, s) = if shape.is_empty() { (1, 1) } else { (shape[ax], shape[ax + 1..].iter().product::<usize>()) };
    let lines = input.size() / n;
    let k = function.kernel(out_dt)?;
    let x = input.ascontiguous()?;
    let iscr = Array::empty_on(&dev, &[lines * (n + filter_size - 1)], DType::F64)?;
    let oscr = Array::empty_on(&dev, &[lines * n], DType::F64)?;
    let done = Array::empty_on(&dev, &[lines], DType::I8)?;
    let extra = extra_array(&dev, extra_arguments)?;
    let i = |v: i64| Operand::Scalar(Scalar::Int(v as i128));
    let before = (filter_size / 2) as i64 + origin as i64;
    k.call(&[
        Operand::Array(&x),
        Operand::Array(&iscr),
        Operand::Array(&oscr),
        Operand::Array(&extra),
        i(n as i64),
        i(s as i64),
        i(filter_size as i64),
        i(before),
        i(mode_code(mode)),
        Operand::Scalar(Scalar::Float(cval)),
        i(extra_arguments.len() as i64),
        Operand::Array(&out),
        Operand::Array(&done),
    ])
    .map_err(|e| user_error(op, &function.body, e))?;
    Ok(out)
}

/// The kernels [`generic_filter`] and [`generic_filter1d`] launch for a sample function (a
/// footprint's range, a line's running sum), in every buffer form, for a cross-vendor compile
/// check.
pub fn builtin_kernels() -> Result<Vec<xp_kernels::render::Rendered>> {
    use xp_kernels::elementwise::{IndexWidth, Layout};
    let mut out = Vec::new();
    let f = FilterFunction::new(
        "double lo = buffer[0], hi = buffer[0];\n\
         for (long long k = 1; k < filter_size; ++k) { lo = fmin(lo, buffer[k]); hi = fmax(hi, buffer[k]); }\n\
         *return_value = hi - lo + (n_extra > 0 ? extra_arguments[0] : 0.0);",
    )?;
    let scalars = |k: usize| vec![DType::I64; k];
    for (buf, dt, out_dt) in [(16, DType::F32, DType::F32), (0, DType::F64, DType::U8), (1024, DType::I32, DType::F64)]
    {
        let k = f.kernel(buf, out_dt)?;
        {
            let mut dts = vec![dt, DType::I64, DType::I64, DType::I64, DType::I64, DType::I64, DType::F64];
            if buf == 0 {
                dts.push(DType::F64);
            }
            dts.extend(scalars(3));
            dts.push(DType::F64);
            dts.extend(scalars(2));
            out.push(k.render(&dts, Layout::Contiguous, IndexWidth::I64)?);
        }
    }
    let g = FilterFunction1d::new(
        "for (long long j = 0; j < output_length; ++j) {\n\
           double s = 0.0; for (long long k = 0; k < filter_size; ++k) s += input_line[j + k];\n\
           output_line[j] = s; }",
    )?;
    for (dt, out_dt) in [(DType::F32, DType::F32), (DType::U16, DType::I64)] {
        let k = g.kernel(out_dt)?;
        {
            let mut dts = vec![dt, DType::F64, DType::F64, DType::F64];
            dts.extend(scalars(5));
            dts.push(DType::F64);
            dts.push(DType::I64);
            out.push(k.render(&dts, Layout::Contiguous, IndexWidth::I64)?);
        }
    }
    // The tiled kernels: the 1-d correlation for each dtype family, register rank kernels
    // and the binary erosion.
    for t in [DType::F32, DType::F64, DType::U8, DType::I64] {
        let tag = t.short();
        out.push(xp_kernels::render::Rendered {
            name: format!("xp_ndimage_corr1_row_{tag}"),
            code: super::tiled::corr1_source(t),
        });
    }
    for (name, code) in super::tiled::sample_rank_sources() {
        out.push(xp_kernels::render::Rendered { name, code });
    }
    let (name, code) = crate::ndimage::morphology::erosion_2d_source();
    out.push(xp_kernels::render::Rendered { name, code });
    Ok(out)
}
