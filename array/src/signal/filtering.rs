//! Linear recursive filtering: SciPy's `lfilter`, `lfilter_zi`, `filtfilt`, `sosfilt`,
//! `sosfilt_zi` and `sosfiltfilt`.
//!
//! **Algorithm.** `lfilter` runs the direct form II transposed recursion (Oppenheim & Schafer,
//! *Discrete-Time Signal Processing*, §6.3): with `b` and `a` divided by `a[0]` and padded to
//! one length `K + 1`, `y[t] = b[0] x[t] + z[0]`, `z[j] = z[j + 1] + b[j + 1] x[t] − a[j + 1]
//! y[t]`. `sosfilt` runs the same recursion per second-order section, the sections one after
//! the other over the whole line, their two states in registers.
//!
//! **Parallelism.** The filtered axis is moved last and the data viewed as independent lines.
//! On GPUs the recursion runs as a blocked parallel scan (`xp_kernels::iir`, orders 1 to 16):
//! each line is cut into blocks that threads filter from a zero state at once, the true state
//! at each block boundary comes from a hierarchical scan of the linear recurrence the DF2T
//! state obeys (`T[b] = e[b] + A^L T[b − 1]`, `A` the companion matrix of `a`, `L` the block
//! length), and every block then adds the zero-input response of its true initial state. Work
//! is about twice the sequential recursion's, spread over all lanes, so a single long channel
//! fills a GPU as well as many lines do; the block loads and stores go through shared memory
//! so that they are coalesced. `sosfilt` runs each section as such a scan of order 2 over the
//! previous section's output. On the CPU backend, where a thread per line already keeps every
//! core busy for a batch and the scan would double the arithmetic, each line runs from start
//! to end (`IirMethod::Sequential`; `lfilter_with` and `sosfilt_with` choose either way on any
//! device). Orders above 16 run sequentially everywhere. The two agree to rounding (a relative
//! 1e-12 in float64 on stable filters, tested).
//!
//! On the CPU device the sequential recursion runs as native host code (`signal::host`): the
//! same operations in the same order and dtype as the kernel, with lines taken four at a time
//! as vector lanes, the state of orders up to 16 in registers, each sample taken through
//! several sections at once, and groups of lines spread over the host threads.
//! `ndimage::with_device_kernels` runs the kernel instead (for comparison).
//!
//! **Initial conditions.** `lfilter_zi` and `sosfilt_zi` are the steady state of a unit step,
//! computed on the host in float64 from the coefficients alone (their size does not grow
//! with the data): with `y = Σb / Σa`, `zi[j] = Σ_{m > j} (b[m] − a[m] y)` (the solution of
//! SciPy's `(I − Aᵀ) zi = B`, in closed form).
//!
//! **Forward–backward.** `filtfilt` and `sosfiltfilt` extend each line by `padlen` samples
//! (odd, even or constant extension, or none), filter forwards from the steady state scaled by
//! the first sample, backwards from the steady state scaled by the last output, and cut the
//! extension off. Defaults are SciPy's (`padlen = 3 · max(len(a), len(b))`, and for sections
//! `3 · (2 · n_sections + 1 − trailing zeros)`). `filtfilt`'s `method='gust'` is Gustafsson's
//! method (IEEE Trans. Signal Process. 44(4), 1996): no extension; the two passes' initial
//! states are the least-squares solution that makes forward–backward and backward–forward
//! filtering agree, fitted on the device (see `filtfilt_gust`), with SciPy's `irlen`.
//!
//! **dtypes.** The result dtype is NumPy's result type of the coefficients, data and initial
//! conditions; integers and booleans give float64 (SciPy has no integer filters), float32
//! stays float32 and complex stays complex, computing in that dtype as SciPy does.

use std::str::FromStr;
use std::sync::OnceLock;

use xp_backend_api::{DType, Error, Result};

use super::iir_scan;
use super::lines::{cast, device_f64, float_type, host_f64, kernel, last, line_ids, Lines};
use crate::routines::{concatenate, flip};
use crate::{Array, Operand, Scalar};

/// The extension `filtfilt` and `sosfiltfilt` add at both ends of each line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PadType {
    /// Point reflection about the end sample (`2 x[0] − x[k]`).
    Odd,
    /// Mirror reflection about the end sample (`x[k]`).
    Even,
    /// The end sample repeated.
    Constant,
}

impl FromStr for PadType {
    type Err = Error;
    fn from_str(s: &str) -> Result<PadType> {
        match s {
            "odd" => Ok(PadType::Odd),
            "even" => Ok(PadType::Even),
            "constant" => Ok(PadType::Constant),
            _ => Err(Error::value(
                "filtfilt",
                format!("Unknown value '{s}' given to padtype.  padtype must be 'even', 'odd', 'constant', or None."),
            )),
        }
    }
}

/// How `filtfilt` treats the ends of the signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FiltfiltMethod {
    /// Extend the signal ([`PadType`]) and start from the steady state.
    #[default]
    Pad,
    /// Gustafsson's method: the initial states of the forward and backward passes chosen so
    /// that filtering forward–backward and backward–forward agree (least squares).
    /// `irlen` is SciPy's: the length of the impulse response's non-negligible part, so that
    /// only that many samples at each end enter the fit (`None`, or a signal of at most
    /// `2 · irlen` samples, uses the whole signal).
    Gust {
        /// SciPy's `irlen`.
        irlen: Option<usize>,
    },
}

impl FromStr for FiltfiltMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<FiltfiltMethod> {
        match s {
            "pad" => Ok(FiltfiltMethod::Pad),
            "gust" => Ok(FiltfiltMethod::Gust { irlen: None }),
            _ => Err(Error::value("filtfilt", format!("method must be 'pad' or 'gust'; got '{s}'"))),
        }
    }
}

const IIR: &str = r#"
const long long o = line * len;
T* zz = z + line * k;
for (long long t = 0; t < len; ++t) {
    const T xv = x[o + t];
    T yv = b[0] * xv;
    if (k > 0) yv = yv + zz[0];
    for (long long j = 0; j + 1 < k; ++j) zz[j] = zz[j + 1] + b[j + 1] * xv - a[j + 1] * yv;
    if (k > 0) zz[k - 1] = b[k] * xv - a[k] * yv;
    y[o + t] = yv;
}
done = 1;
"#;

const SOS: &str = r#"
const long long o = line * len;
for (long long q = 0; q < ns; ++q) {
    const long long c = 6 * q;
    const T b0 = s[c], b1 = s[c + 1], b2 = s[c + 2], a1 = s[c + 4], a2 = s[c + 5];
    T* zz = z + (line * ns + q) * 2;
    T z0 = zz[0], z1 = zz[1];
    for (long long t = 0; t < len; ++t) {
        const T xv = q == 0 ? x[o + t] : y[o + t];
        const T yv = b0 * xv + z0;
        z0 = b1 * xv - a1 * yv + z1;
        z1 = b2 * xv - a2 * yv;
        y[o + t] = yv;
    }
    zz[0] = z0;
    zz[1] = z1;
}
if (ns == 0) for (long long t = 0; t < len; ++t) y[o + t] = x[o + t];
done = 1;
"#;

/// How `lfilter` runs the IIR recursion (an xp extension; SciPy has one way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IirMethod {
    /// The blocked scan on GPUs, the sequential recursion on the CPU backend (see the module
    /// docs).
    #[default]
    Auto,
    /// One device thread per line, from the first sample to the last.
    Sequential,
    /// The blocked parallel scan on any device; `block` is the block length (a positive
    /// multiple of 16; `None` lets the planner choose). Filters of order 0 or above 16 run
    /// sequentially.
    Blocked {
        /// Samples per block.
        block: Option<usize>,
    },
}

/// The DF2T recursion over `(lines, n)` data `x` with normalised `b`, `a` of length `k + 1`
/// from the `(lines, k)` state `z`, by `method`: the output and the final state (`z` itself,
/// updated in place, on the device kernels; a new array on the native host path).
fn iir_run(x: &Array, b: &Array, a: &Array, z: &Array, method: IirMethod) -> Result<(Array, Array)> {
    let k = b.size() - 1;
    let block = match method {
        IirMethod::Sequential => None,
        IirMethod::Blocked { block } => Some(block),
        IirMethod::Auto => (!x.device().properties().is_host).then_some(None),
    };
    match block {
        Some(block) if iir_scan::supports(k) => Ok((
            iir_scan::iir_blocked(&x.ascontiguous()?, &b.ascontiguous()?, &a.ascontiguous()?, z, block)?,
            z.clone(),
        )),
        _ if crate::ndimage::native(&*x.device_arc()) => native_run(x, b, a, z, false),
        _ => Ok((iir_seq(x, b, a, z)?, z.clone())),
    }
}

/// [`iir_run`] with [`IirMethod::Auto`], the output only.
fn iir_lines(x: &Array, b: &Array, a: &Array, z: &Array) -> Result<Array> {
    Ok(iir_run(x, b, a, z, IirMethod::Auto)?.0)
}

/// The native host recursion ([`super::host`]) over `(lines, n)` data in host memory: `lfilter`'s
/// (`b`, `a` normalised, `z` `(lines, k)`) or, with `sos`, the sections' (`b` the `(ns, 6)`
/// sections, `a` unused, `z` `(lines, ns, 2)`). Returns the output and the final state.
fn native_run(x: &Array, b: &Array, a: &Array, z: &Array, sos: bool) -> Result<(Array, Array)> {
    fn go<T: super::host::Num>(x: &Array, b: &Array, a: &Array, z: &Array, sos: bool) -> Result<(Array, Array)> {
        let (lines, n) = (x.shape()[0], x.shape()[1]);
        let xc = x.ascontiguous()?;
        let view = xc.as_ndarray_view::<T>()?;
        let xs = view.as_slice().ok_or_else(|| Error::value("lfilter", "the lines are not contiguous"))?;
        let bv = b.ascontiguous()?.to_vec::<T>()?;
        let mut zv = z.ascontiguous()?.to_vec::<T>()?;
        let y = if sos {
            super::host::sosfilt(xs, lines, n, &bv, &mut zv)
        } else {
            let av = a.ascontiguous()?.to_vec::<T>()?;
            super::host::lfilter(xs, lines, n, &bv, &av, &mut zv)
        };
        let shaped = |v: Vec<T>, shape: &[usize]| -> Result<Array> {
            let arr = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), v)
                .map_err(|e| Error::value("lfilter", format!("shape {shape:?}: {e}")))?;
            Array::from_ndarray_owned(arr)
        };
        Ok((shaped(y, &[lines, n])?, shaped(zv, z.shape())?))
    }
    match x.dtype() {
        DType::F32 => go::<f32>(x, b, a, z, sos),
        DType::F64 => go::<f64>(x, b, a, z, sos),
        DType::C64 => go::<num_complex::Complex<f32>>(x, b, a, z, sos),
        DType::C128 => go::<num_complex::Complex<f64>>(x, b, a, z, sos),
        d => Err(Error::DType { op: "lfilter".into(), reason: format!("no recursion in {d}") }),
    }
}

/// The sequential recursion: one thread per line.
fn iir_seq(x: &Array, b: &Array, a: &Array, z: &Array) -> Result<Array> {
    static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern = kernel(
        &K,
        "int64 line, raw T x, raw T b, raw T a, int64 len, int64 k",
        "raw T y, raw T z, int8 done",
        IIR,
        "xp_signal_lfilter",
    )?;
    let dev = x.device_arc();
    let (lines, n) = (x.shape()[0], x.shape()[1]);
    let y = Array::empty_on(&dev, &[lines, n], x.dtype())?;
    if lines == 0 || n == 0 {
        return Ok(y);
    }
    let ids = line_ids(&dev, lines)?;
    let i = |v: usize| Operand::Scalar(Scalar::Int(v as i128));
    kern.call_all(&[
        Operand::Array(&ids),
        Operand::Array(x),
        Operand::Array(b),
        Operand::Array(a),
        i(n),
        i(b.size() - 1),
        Operand::Array(&y),
        Operand::Array(z),
        Operand::Array(&Array::empty_on(&dev, &[lines], DType::I8)?),
    ])?;
    Ok(y)
}

/// Cascaded sections over `(lines, n)` data: `sos` `(ns, 6)` normalised, `z` `(lines, ns, 2)`
/// the initial states; returns the output and the final states. On GPUs each section runs as
/// a blocked scan of order 2 over the previous section's output; on the CPU backend one thread
/// runs all sections of a line.
fn sos_run(x: &Array, sos: &Array, z: &Array, method: IirMethod) -> Result<(Array, Array)> {
    let ns = sos.shape()[0];
    let block = match method {
        IirMethod::Sequential => None,
        IirMethod::Blocked { block } => Some(block),
        IirMethod::Auto => (!x.device().properties().is_host).then_some(None),
    };
    let Some(block) = block.filter(|_| ns > 0) else {
        if crate::ndimage::native(&*x.device_arc()) {
            return native_run(x, sos, sos, z, true);
        }
        let z = z.ascontiguous()?.copy()?;
        let y = sos_lines(x, sos, &z)?;
        return Ok((y, z));
    };
    let mut y = x.ascontiguous()?;
    let mut finals = Vec::with_capacity(ns);
    for q in 0..ns {
        let row = sos.slice(&[crate::SliceArg::Index(q as isize)])?;
        let b = row.slice(&[crate::SliceArg::range(0, 3, 1)])?.ascontiguous()?;
        let a = row.slice(&[crate::SliceArg::range(3, 6, 1)])?.ascontiguous()?;
        let zq = z.slice(&[crate::SliceArg::ALL, crate::SliceArg::Index(q as isize)])?.ascontiguous()?.copy()?;
        y = iir_scan::iir_blocked(&y, &b, &a, &zq, block)?;
        finals.push(zq);
    }
    let refs: Vec<&Array> = finals.iter().collect();
    Ok((y, crate::routines::stack(&refs, 1)?))
}

/// [`sos_run`]'s sequential kernel: `z` `(lines, ns, 2)` updated in place.
fn sos_lines(x: &Array, sos: &Array, z: &Array) -> Result<Array> {
    static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern = kernel(
        &K,
        "int64 line, raw T x, raw T s, int64 len, int64 ns",
        "raw T y, raw T z, int8 done",
        SOS,
        "xp_signal_sosfilt",
    )?;
    let dev = x.device_arc();
    let (lines, n) = (x.shape()[0], x.shape()[1]);
    let y = Array::empty_on(&dev, &[lines, n], x.dtype())?;
    if lines == 0 || n == 0 {
        return Ok(y);
    }
    let ids = line_ids(&dev, lines)?;
    let i = |v: usize| Operand::Scalar(Scalar::Int(v as i128));
    kern.call_all(&[
        Operand::Array(&ids),
        Operand::Array(x),
        Operand::Array(&sos.ascontiguous()?),
        i(n),
        i(sos.shape()[0]),
        Operand::Array(&y),
        Operand::Array(z),
        Operand::Array(&Array::empty_on(&dev, &[lines], DType::I8)?),
    ])?;
    Ok(y)
}

/// `b` and `a` divided by `a[0]`, padded with zeros to one length, as `dtype` (checks SciPy's).
fn normalized(op: &str, b: &Array, a: &Array, dtype: DType) -> Result<(Array, Array)> {
    if b.ndim() != 1 || a.ndim() != 1 {
        return Err(Error::value(
            op,
            format!("b and a must be 1-d coefficient arrays, got shapes {:?} and {:?}", b.shape(), a.shape()),
        ));
    }
    if a.size() == 0 || b.size() == 0 {
        return Err(Error::value(op, "the coefficient arrays b and a must not be empty"));
    }
    let (b, a) = (cast(b, dtype)?, cast(a, dtype)?);
    let a0 = a.slice(&[crate::SliceArg::range(0, 1, 1)])?;
    if a0.abs()?.astype(DType::F64)?.item::<f64>()? == 0.0 {
        return Err(Error::value(op, "BUG: filter coefficient a[0] == 0 not supported yet"));
    }
    let (mut b, mut a) = (b.div(&a0)?, a.div(&a0)?);
    let len = a.size().max(b.size());
    let dev = a.device_arc();
    let pad = |v: Array| -> Result<Array> {
        if v.size() == len {
            return v.ascontiguous();
        }
        let z = Array::full_on(&dev, &[len - v.size()], 0, dtype)?;
        concatenate(&[&v, &z], 0)
    };
    b = pad(b)?;
    a = pad(a)?;
    Ok((b, a))
}

/// Checks `zi` against the expected shape (`x`'s with `axis` of extent `k`), allowing extent
/// 1 to broadcast as SciPy does, and returns it as `(lines, k)` of `dtype` (a fresh copy).
fn zi_lines(op: &str, zi: &Array, x: &Array, axis: usize, k: usize, dtype: DType) -> Result<Array> {
    let mut expected = x.shape().to_vec();
    expected[axis] = k;
    let ok = zi.ndim() == x.ndim()
        && zi.shape().iter().zip(&expected).enumerate().all(|(d, (&g, &e))| g == e || (d != axis && g == 1));
    if !ok {
        return Err(Error::value(
            op,
            format!("Unexpected shape for zi: expected {:?}, found {:?}.", expected, zi.shape()),
        ));
    }
    let zb = zi.broadcast_to(&expected)?;
    let l = Lines::new(op, &zb, axis as isize, dtype)?;
    l.data.copy()
}

/// SciPy's `lfilter(b, a, x, axis, zi)`: `x` filtered along `axis` by the rational transfer
/// function `B(z) / A(z)`. With `zi` (shape of `x` with `axis` of extent `max(len(a),
/// len(b)) − 1`) the filter starts from that state and the final state `zf` is returned too.
pub fn lfilter(b: &Array, a: &Array, x: &Array, axis: isize, zi: Option<&Array>) -> Result<(Array, Option<Array>)> {
    lfilter_with(b, a, x, axis, zi, IirMethod::Auto)
}

/// [`lfilter`] with the way the recursion runs chosen ([`IirMethod`]); the results agree to
/// rounding.
pub fn lfilter_with(
    b: &Array,
    a: &Array,
    x: &Array,
    axis: isize,
    zi: Option<&Array>,
    method: IirMethod,
) -> Result<(Array, Option<Array>)> {
    let op = "lfilter";
    let mut dts = vec![b.dtype(), a.dtype(), x.dtype()];
    if let Some(z) = zi {
        dts.push(z.dtype());
    }
    let dtype = float_type(&dts);
    let (bn, an) = normalized(op, b, a, dtype)?;
    let k = bn.size() - 1;
    let lx = Lines::new(op, x, axis, dtype)?;
    let z = match zi {
        Some(zi) => zi_lines(op, zi, x, lx.axis, k, dtype)?,
        None => Array::full_on(&x.device_arc(), &[lx.count(), k], 0, dtype)?,
    };
    let (y, z) = iir_run(&lx.data, &bn, &an, &z, method)?;
    let y = lx.restore(&y)?;
    match zi {
        Some(_) => Ok((y, Some(lx.restore(&z)?))),
        None => Ok((y, None)),
    }
}

/// The steady-state DF2T state of a unit step through `b / a` (host float64): SciPy's
/// `lfilter_zi` in closed form.
fn steady_state(op: &str, b: &[f64], a: &[f64]) -> Result<Vec<f64>> {
    let mut a = a.to_vec();
    while a.len() > 1 && a[0] == 0.0 {
        a.remove(0);
    }
    if a.is_empty() || a[0] == 0.0 {
        return Err(Error::value(op, "There must be at least one nonzero `a` coefficient."));
    }
    let a0 = a[0];
    let n = a.len().max(b.len());
    let mut bb: Vec<f64> = b.iter().map(|v| v / a0).collect();
    let mut aa: Vec<f64> = a.iter().map(|v| v / a0).collect();
    bb.resize(n, 0.0);
    aa.resize(n, 0.0);
    let sa: f64 = aa.iter().sum();
    if sa == 0.0 {
        return Err(Error::LinAlg {
            op: op.into(),
            reason: "Singular matrix: the filter has a pole at z = 1, so no steady state exists".into(),
        });
    }
    let y = bb.iter().sum::<f64>() / sa;
    let mut zi = vec![0.0; n - 1];
    let mut acc = 0.0;
    for j in (0..n - 1).rev() {
        acc += bb[j + 1] - aa[j + 1] * y;
        zi[j] = acc;
    }
    Ok(zi)
}

/// SciPy's `lfilter_zi(b, a)`: the initial state of `lfilter` for the steady state of a step
/// response (multiply by the first sample to start a signal without a transient). The result
/// dtype is that of `b` and `a` (integers give float64).
pub fn lfilter_zi(b: &Array, a: &Array) -> Result<Array> {
    let op = "lfilter_zi";
    let dtype = float_type(&[b.dtype(), a.dtype()]);
    let zi = steady_state(op, &host_f64(op, "b", b)?, &host_f64(op, "a", a)?)?;
    device_f64(&b.device_arc(), &zi, &[zi.len()], dtype)
}

/// The padded `(lines, n + 2 edge)` extension of `(lines, n)` data.
fn extend(x: &Array, edge: usize, padtype: Option<PadType>) -> Result<Array> {
    let Some(pt) = padtype else { return Ok(x.clone()) };
    if edge == 0 {
        return Ok(x.clone());
    }
    let e = edge as isize;
    let first = last(x, Some(0), Some(1), None)?;
    let lastv = last(x, Some(-1), None, None)?;
    let (left, right) = match pt {
        PadType::Constant => {
            let shape = [x.shape()[0], edge];
            (first.broadcast_to(&shape)?, lastv.broadcast_to(&shape)?)
        }
        _ => {
            // x[e:0:-1] and x[-2:-(e+2):-1]
            let l = last(x, Some(e), Some(0), Some(-1))?;
            let r = last(x, Some(-2), Some(-(e + 2)), Some(-1))?;
            if pt == PadType::Odd {
                (first.mul_scalar(2)?.sub(&l)?, lastv.mul_scalar(2)?.sub(&r)?)
            } else {
                (l, r)
            }
        }
    };
    concatenate(&[&left, x, &right], 1)?.ascontiguous()
}

fn check_padlen(op: &str, n: usize, edge: usize) -> Result<()> {
    if n <= edge {
        return Err(Error::value(
            op,
            format!("The length of the input vector x must be greater than padlen, which is {edge}."),
        ));
    }
    Ok(())
}

/// SciPy's `filtfilt(b, a, x, axis, padtype, padlen, method)`: `x` filtered forwards and
/// backwards along `axis` (zero phase, the magnitude response squared). `padtype` `None`
/// means no extension; `padlen` `None` is `3 · max(len(a), len(b))`. SciPy's defaults are
/// `axis = -1`, `Some(PadType::Odd)`, `None`, `FiltfiltMethod::Pad`. With
/// [`FiltfiltMethod::Gust`] (SciPy's `method='gust'`, its `irlen` in the variant) `padtype`
/// and `padlen` are ignored, as SciPy's.
pub fn filtfilt(
    b: &Array,
    a: &Array,
    x: &Array,
    axis: isize,
    padtype: Option<PadType>,
    padlen: Option<usize>,
    method: FiltfiltMethod,
) -> Result<Array> {
    let op = "filtfilt";
    let dtype = float_type(&[b.dtype(), a.dtype(), x.dtype()]);
    if let FiltfiltMethod::Gust { irlen } = method {
        let lx = Lines::new(op, x, axis, dtype)?;
        return lx.restore(&filtfilt_gust(op, b, a, &lx.data, irlen, dtype)?);
    }
    let (bn, an) = normalized(op, b, a, dtype)?;
    let lx = Lines::new(op, x, axis, dtype)?;
    let edge = if padtype.is_none() { 0 } else { padlen.unwrap_or(3 * a.size().max(b.size())) };
    check_padlen(op, lx.len(), edge)?;
    let zi = steady_state(op, &host_f64(op, "b", b)?, &host_f64(op, "a", a)?)?;
    let k = zi.len();
    let zi = device_f64(&x.device_arc(), &zi, &[1, k], dtype)?;
    let ext = extend(&lx.data, edge, padtype)?;
    let x0 = last(&ext, Some(0), Some(1), None)?;
    let y = iir_lines(&ext, &bn, &an, &zi.mul(&x0)?.ascontiguous()?.copy()?)?;
    let y0 = last(&y, Some(-1), None, None)?;
    let yr = flip(&y, Some(&[1]))?.ascontiguous()?;
    let y = iir_lines(&yr, &bn, &an, &zi.mul(&y0)?.ascontiguous()?.copy()?)?;
    let y = flip(&y, Some(&[1]))?;
    let n = ext.shape()[1] as isize;
    let y = last(&y, Some(edge as isize), Some(n - edge as isize), None)?;
    lx.restore(&y)
}

/// `(lines, n)` data filtered by `b / a` (normalised, length `k + 1`) from zero state.
fn iir_zero(x: &Array, b: &Array, a: &Array) -> Result<Array> {
    let k = b.size() - 1;
    iir_lines(x, b, a, &Array::full_on(&x.device_arc(), &[x.shape()[0], k], 0, x.dtype())?)
}

/// `x` reversed along its last axis, contiguous.
fn reversed(x: &Array) -> Result<Array> {
    flip(x, Some(&[-1]))?.ascontiguous()
}

/// Gustafsson's forward–backward filter of `(lines, n)` data (F. Gustafsson, "Determining the
/// initial states in forward-backward filtering", *IEEE Trans. Signal Process.* 44(4), 1996):
/// with `O` the observability matrix (the zero-input response to each initial state) and `S`
/// the filter run over `O` reversed, the initial states `[x_f; x_b]` minimise
/// `|[Sᴿ − O, Oᴿ − S] [x_f; x_b] − (y_bf − y_fb)|` (the paper's formula before its eq. 7), and
/// the answer is `y_fb + [Sᴿ, Oᴿ] [x_f; x_b]` (eq. 7), where `y_fb` and `y_bf` are the
/// zero-state forward–backward and backward–forward results. With `irlen = m < n / 2` only the
/// first and last `m` samples enter (the paper's §IV: the matrices become block diagonal).
/// `O`, `S` and the least-squares fit are made on the device in float64 (complex128 for
/// complex coefficients): `O` by one filter run from a unit state, `S` by `order` runs, the fit
/// by `linalg::lstsq` (singular values below machine epsilon times the largest ignored, as
/// SciPy's `lstsq`).
fn filtfilt_gust(op: &str, b: &Array, a: &Array, x: &Array, irlen: Option<usize>, dtype: DType) -> Result<Array> {
    let (bn, an) = normalized(op, b, a, dtype)?;
    let order = bn.size() - 1;
    let (lines, n) = (x.shape()[0], x.shape()[1]);
    if order == 0 {
        // A gain: (b0 / a0)², no state.
        return x.mul(&bn.square()?);
    }
    let dev = x.device_arc();
    let m = match irlen {
        Some(l) if n > 2 * l => l,
        _ => n,
    };
    let y_fb = reversed(&iir_zero(&reversed(&iir_zero(x, &bn, &an)?)?, &bn, &an)?)?;
    if m == 0 || lines == 0 {
        return Ok(y_fb);
    }
    let y_bf = iir_zero(&reversed(&iir_zero(&reversed(x)?, &bn, &an)?)?, &bn, &an)?;
    let wide = if b.dtype().is_complex() || a.dtype().is_complex() { DType::C128 } else { DType::F64 };
    let (bw, aw) = normalized(op, b, a, wide)?;
    // O[:, 0]: the zero-input response from the state e_0; O[i, k] = O[i − k, 0].
    let mut e0 = vec![0.0; order];
    e0[0] = 1.0;
    let z = device_f64(&dev, &e0, &[1, order], wide)?;
    let o0 = iir_lines(&Array::full_on(&dev, &[1, m], 0, wide)?, &bw, &aw, &z)?;
    let mut cols = Vec::with_capacity(order);
    for k in 0..order {
        let col = if k == 0 {
            o0.clone()
        } else if k >= m {
            Array::full_on(&dev, &[1, m], 0, wide)?
        } else {
            let zeros = Array::full_on(&dev, &[1, k], 0, wide)?;
            concatenate(&[&zeros, &last(&o0, Some(0), Some((m - k) as isize), None)?], 1)?
        };
        cols.push(col);
    }
    let refs: Vec<&Array> = cols.iter().collect();
    let obs_t = concatenate(&refs, 0)?.ascontiguous()?; // (order, m): Oᵀ
    let s_t = iir_zero(&reversed(&obs_t)?, &bw, &aw)?; // Sᵀ: the filter down O's columns reversed
    let obs = obs_t.t();
    let s = s_t.t();
    let (sr, obsr) = (flip(&s, Some(&[0]))?, flip(&obs, Some(&[0]))?);
    let (left, right) = (sr.sub(&obs)?, obsr.sub(&s)?);
    let zeros = Array::full_on(&dev, &[m, order], 0, wide)?;
    let block = |p: &Array, q: &Array| -> Result<Array> {
        if m == n {
            concatenate(&[p, q], 1)
        } else {
            let top = concatenate(&[p, &zeros], 1)?;
            let bottom = concatenate(&[&zeros, q], 1)?;
            concatenate(&[&top, &bottom], 0)
        }
    };
    let mm = block(&left, &right)?;
    let w = block(&sr, &obsr)?;
    let delta = y_bf.sub(&y_fb)?;
    let delta = if m == n {
        delta
    } else {
        concatenate(
            &[&last(&delta, Some(0), Some(m as isize), None)?, &last(&delta, Some((n - m) as isize), None, None)?],
            1,
        )?
    };
    let rhs = delta.t().astype(crate::promote_types(wide, delta.dtype()))?;
    let (ic, _, _, _) = crate::linalg::lstsq(&mm, &rhs, Some(f64::EPSILON))?; // (2 order, lines)
    let wic = crate::linalg::matmul(&w, &ic)?.t(); // (lines, rows)
    let wic = if dtype.is_complex() { wic.astype(dtype)? } else { cast(&real_part(&wic)?, dtype)? };
    if m == n {
        return y_fb.add(&wic);
    }
    let head = last(&y_fb, Some(0), Some(m as isize), None)?.add(&last(&wic, Some(0), Some(m as isize), None)?)?;
    let mid = last(&y_fb, Some(m as isize), Some((n - m) as isize), None)?;
    let tail = last(&y_fb, Some((n - m) as isize), None, None)?.add(&last(&wic, Some(m as isize), None, None)?)?;
    concatenate(&[&head, &mid, &tail], 1)?.ascontiguous()
}

/// The real part of `a` (itself when real).
fn real_part(a: &Array) -> Result<Array> {
    if a.dtype().is_complex() {
        Ok(a.real())
    } else {
        Ok(a.clone())
    }
}

/// Checks `sos` is `(n_sections, 6)` with `a0 = 1` per section and returns it host-side.
fn host_sos(op: &str, sos: &Array) -> Result<Vec<f64>> {
    if sos.ndim() != 2 || sos.shape()[1] != 6 {
        return Err(Error::value(op, format!("sos array must be shape (n_sections, 6), got {:?}", sos.shape())));
    }
    let flat = host_f64(op, "sos", &sos.reshape(&[-1])?)?;
    if flat.chunks(6).any(|c| c[3] != 1.0) {
        return Err(Error::value(op, "sos[:, 3] should be all ones"));
    }
    Ok(flat)
}

/// SciPy's `sosfilt(sos, x, axis, zi)`: `x` filtered along `axis` by cascaded second-order
/// sections (`sos` of shape `(n_sections, 6)`, each row `b0 b1 b2 1 a1 a2`). With `zi`
/// (shape `(n_sections, ..., 2, ...)`, the 2 at `axis`) the final states are returned too.
pub fn sosfilt(sos: &Array, x: &Array, axis: isize, zi: Option<&Array>) -> Result<(Array, Option<Array>)> {
    sosfilt_with(sos, x, axis, zi, IirMethod::Auto)
}

/// [`sosfilt`] with the way the sections run chosen ([`IirMethod`]): sequentially, one thread
/// running every section of a line, or each section as a blocked scan of order 2.
pub fn sosfilt_with(
    sos: &Array,
    x: &Array,
    axis: isize,
    zi: Option<&Array>,
    method: IirMethod,
) -> Result<(Array, Option<Array>)> {
    let op = "sosfilt";
    host_sos(op, sos)?;
    let ns = sos.shape()[0];
    let mut dts = vec![sos.dtype(), x.dtype()];
    if let Some(z) = zi {
        dts.push(z.dtype());
    }
    let dtype = float_type(&dts);
    let lx = Lines::new(op, x, axis, dtype)?;
    let z = match zi {
        Some(zi) => {
            // zi: (ns, ...x with axis → 2...): each section's lines, then (lines, ns, 2).
            let mut expected = vec![ns];
            let mut xs = x.shape().to_vec();
            xs[lx.axis] = 2;
            expected.extend(&xs);
            if zi.shape() != expected.as_slice() {
                return Err(Error::value(
                    op,
                    format!("Invalid zi shape. With axis={axis}, an input with shape {:?}, and an sos array with {ns} sections, zi must have shape {:?}, got {:?}.", x.shape(), expected, zi.shape()),
                ));
            }
            let moved = crate::routines::moveaxis(zi, &[lx.axis as isize + 1], &[-1])?;
            let moved = cast(&moved, dtype)?.ascontiguous()?.reshape(&[ns as isize, lx.count() as isize, 2])?;
            crate::routines::swapaxes(&moved, 0, 1)?.ascontiguous()?.copy()?
        }
        None => Array::full_on(&x.device_arc(), &[lx.count(), ns, 2], 0, dtype)?,
    };
    let s = cast(sos, dtype)?.ascontiguous()?;
    let (y, z) = sos_run(&lx.data, &s, &z, method)?;
    let y = lx.restore(&y)?;
    match zi {
        Some(_) => {
            // (lines, ns, 2) → (ns, lead..., 2) → axis in place.
            let zf = crate::routines::swapaxes(&z, 0, 1)?;
            let mut shape: Vec<isize> = vec![ns as isize];
            shape.extend(lx.lead.iter().map(|&v| v as isize));
            shape.push(2);
            let zf = zf.ascontiguous()?.reshape(&shape)?;
            let zf = crate::routines::moveaxis(&zf, &[-1], &[lx.axis as isize + 1])?.ascontiguous()?;
            Ok((y, Some(zf)))
        }
        None => Ok((y, None)),
    }
}

/// Each section's steady state, scaled by the DC gain of the sections before it (host f64).
fn sos_steady(op: &str, flat: &[f64]) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(flat.len() / 3);
    let mut scale = 1.0;
    for c in flat.chunks(6) {
        let zi = steady_state(op, &c[..3], &c[3..])?;
        out.extend(zi.iter().map(|v| v * scale));
        scale *= (c[0] + c[1] + c[2]) / (c[3] + c[4] + c[5]);
    }
    Ok(out)
}

/// SciPy's `sosfilt_zi(sos)`: the `(n_sections, 2)` initial states of `sosfilt` for the
/// steady state of a step response. float32 `sos` gives float32; integers float64.
pub fn sosfilt_zi(sos: &Array) -> Result<Array> {
    let op = "sosfilt_zi";
    let flat = host_sos(op, sos)?;
    let zi = sos_steady(op, &flat)?;
    device_f64(&sos.device_arc(), &zi, &[sos.shape()[0], 2], float_type(&[sos.dtype()]))
}

/// SciPy's `sosfiltfilt(sos, x, axis, padtype, padlen)`: forward–backward filtering by
/// second-order sections (see [`filtfilt`]). SciPy's defaults are `axis = -1`,
/// `Some(PadType::Odd)`, `None`.
pub fn sosfiltfilt(
    sos: &Array,
    x: &Array,
    axis: isize,
    padtype: Option<PadType>,
    padlen: Option<usize>,
) -> Result<Array> {
    let op = "sosfiltfilt";
    let flat = host_sos(op, sos)?;
    let ns = sos.shape()[0];
    let dtype = float_type(&[sos.dtype(), x.dtype()]);
    let lx = Lines::new(op, x, axis, dtype)?;
    let zeros2 = flat.chunks(6).filter(|c| c[2] == 0.0).count();
    let zeros5 = flat.chunks(6).filter(|c| c[5] == 0.0).count();
    let ntaps = 2 * ns + 1 - zeros2.min(zeros5);
    let edge = if padtype.is_none() { 0 } else { padlen.unwrap_or(3 * ntaps) };
    check_padlen(op, lx.len(), edge)?;
    let zi = device_f64(&x.device_arc(), &sos_steady(op, &flat)?, &[1, ns, 2], dtype)?;
    let s = cast(sos, dtype)?.ascontiguous()?;
    let ext = extend(&lx.data, edge, padtype)?;
    let lines = ext.shape()[0] as isize;
    let x0 = last(&ext, Some(0), Some(1), None)?.reshape(&[lines, 1, 1])?;
    let (y, _) = sos_run(&ext, &s, &zi.mul(&x0)?, IirMethod::Auto)?;
    let y0 = last(&y, Some(-1), None, None)?.reshape(&[lines, 1, 1])?;
    let yr = flip(&y, Some(&[1]))?.ascontiguous()?;
    let (y, _) = sos_run(&yr, &s, &zi.mul(&y0)?, IirMethod::Auto)?;
    let y = flip(&y, Some(&[1]))?;
    let n = ext.shape()[1] as isize;
    let y = last(&y, Some(edge as isize), Some(n - edge as isize), None)?;
    lx.restore(&y)
}
