//! Savitzky–Golay smoothing: SciPy's `savgol_coeffs` and `savgol_filter`.
//!
//! **Coefficients** (Savitzky & Golay, *Anal. Chem.* 36 (1964) 1627): the taps that evaluate
//! the `deriv`-th derivative, at position `pos` of a window of `window_length` samples, of the
//! least-squares polynomial of degree `polyorder`. They are the minimum-norm solution `c` of
//! `A c = e_deriv · deriv! / delta^deriv` with `A[i][j] = x_j^i`; here computed on the host in
//! float64 through a twice-orthogonalised Gram–Schmidt QR of `Aᵀ` (`c = Q R⁻ᵀ e`), whose size
//! is the window's only.
//!
//! **Filter.** One user kernel computes every output: the window's dot product with the taps
//! (the taps on the device), indices beyond the ends resolved by `mode` as
//! `scipy.ndimage.convolve1d` does (`mirror`, `nearest`, `wrap`, `constant` with `cval`). For
//! `interp` (the default) the first and last `window_length / 2` outputs are the fitted
//! polynomial of the first or last window evaluated at their position — the same least
//! squares, so they use the taps of that position, from a small table.
//!
//! **dtypes**: float32 stays float32, every other input is filtered as float64 (SciPy's rule).

use std::str::FromStr;
use std::sync::OnceLock;

use xp_backend_api::{DType, Error, Result};

use super::lines::{cast, kernel, Lines};
use crate::{Array, Operand, Scalar};

/// How `savgol_filter` extends the signal beyond its ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SavgolMode {
    /// Reflect about the end samples without repeating them (`d c b | a b c d | c b a`).
    Mirror,
    /// `cval` beyond the ends.
    Constant,
    /// The end sample repeated.
    Nearest,
    /// Periodic.
    Wrap,
    /// Fit a polynomial to the first and last windows (SciPy's default).
    #[default]
    Interp,
}

impl FromStr for SavgolMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<SavgolMode> {
        match s {
            "mirror" => Ok(SavgolMode::Mirror),
            "constant" => Ok(SavgolMode::Constant),
            "nearest" => Ok(SavgolMode::Nearest),
            "wrap" => Ok(SavgolMode::Wrap),
            "interp" => Ok(SavgolMode::Interp),
            _ => Err(Error::value(
                "savgol_filter",
                format!("mode must be 'mirror', 'constant', 'nearest' 'wrap' or 'interp'; got '{s}'"),
            )),
        }
    }
}

/// The order in which `savgol_coeffs` returns the taps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SavgolUse {
    /// Reversed, for a convolution (SciPy's default).
    #[default]
    Conv,
    /// In window order, for a dot product.
    Dot,
}

impl FromStr for SavgolUse {
    type Err = Error;
    fn from_str(s: &str) -> Result<SavgolUse> {
        match s {
            "conv" => Ok(SavgolUse::Conv),
            "dot" => Ok(SavgolUse::Dot),
            _ => Err(Error::value("savgol_coeffs", "`use` must be 'conv' or 'dot'")),
        }
    }
}

fn check(op: &str, window_length: usize, polyorder: usize) -> Result<()> {
    if polyorder >= window_length {
        return Err(Error::value(op, "polyorder must be less than window_length."));
    }
    Ok(())
}

/// The dot-ordered taps at `pos` (host f64).
fn taps_dot(window_length: usize, polyorder: usize, deriv: usize, delta: f64, pos: f64) -> Vec<f64> {
    let m = window_length;
    if deriv > polyorder {
        return vec![0.0; m];
    }
    let x: Vec<f64> = (0..m).map(|j| j as f64 - pos).collect();
    let k = polyorder + 1;
    // Columns v_i = x^i; Gram–Schmidt (twice) into q_i, with R upper triangular.
    let mut q: Vec<Vec<f64>> = Vec::with_capacity(k);
    let mut r = vec![vec![0.0; k]; k];
    #[allow(clippy::needless_range_loop)] // i is the column of R being filled
    for i in 0..k {
        let mut v: Vec<f64> = x.iter().map(|&t| t.powi(i as i32)).collect();
        for _pass in 0..2 {
            for (kk, qk) in q.iter().enumerate() {
                let d: f64 = qk.iter().zip(&v).map(|(a, b)| a * b).sum();
                r[kk][i] += d;
                for (vj, qj) in v.iter_mut().zip(qk) {
                    *vj -= d * qj;
                }
            }
        }
        let nrm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        r[i][i] = nrm;
        q.push(v.iter().map(|a| a / nrm).collect());
    }
    // Rᵀ w = e: forward substitution.
    let mut e = vec![0.0; k];
    let fact: f64 = (1..=deriv).map(|v| v as f64).product();
    e[deriv] = fact / delta.powi(deriv as i32);
    let mut w = vec![0.0; k];
    for i in 0..k {
        let s: f64 = (0..i).map(|kk| r[kk][i] * w[kk]).sum();
        w[i] = (e[i] - s) / r[i][i];
    }
    (0..m).map(|j| (0..k).map(|kk| w[kk] * q[kk][j]).sum()).collect()
}

fn centre(window_length: usize) -> f64 {
    let (half, rem) = (window_length / 2, window_length % 2);
    if rem == 0 {
        half as f64 - 0.5
    } else {
        half as f64
    }
}

/// SciPy's `savgol_coeffs(window_length, polyorder, deriv, delta, pos, use)`: the
/// Savitzky–Golay taps (float64). `pos` `None` is the window's middle (`window_length / 2 −
/// 0.5` for even lengths). SciPy's defaults: `deriv = 0`, `delta = 1.0`, `None`, `Conv`.
pub fn savgol_coeffs(
    window_length: usize,
    polyorder: usize,
    deriv: usize,
    delta: f64,
    pos: Option<usize>,
    use_: SavgolUse,
) -> Result<Array> {
    let op = "savgol_coeffs";
    check(op, window_length, polyorder)?;
    let pos = match pos {
        None => centre(window_length),
        Some(p) if p < window_length => p as f64,
        Some(_) => return Err(Error::value(op, "pos must be nonnegative and less than window_length.")),
    };
    let mut c = taps_dot(window_length, polyorder, deriv, delta, pos);
    if use_ == SavgolUse::Conv {
        c.reverse();
    }
    Array::from_vec(c)
}

const SAVGOL: &str = r#"
const long long l = i / len, t = i % len;
const T* xs = x + l * len;
double acc = 0.0;
if (mode == 4 && (t < h || t >= len - h)) {
    const long long p = t < h ? t : t - (len - m);
    const long long base = t < h ? 0 : len - m;
    for (long long j = 0; j < m; ++j) acc += e[p * m + j] * (double)xs[base + j];
} else {
    for (long long j = 0; j < m; ++j) {
        long long p = t + s + j;
        double v;
        if (p >= 0 && p < len) {
            v = (double)xs[p];
        } else if (mode == 1 || mode == 4) {
            v = cval;
        } else if (mode == 2) {
            v = (double)xs[p < 0 ? 0 : len - 1];
        } else if (mode == 3) {
            long long q = p % len;
            if (q < 0) q += len;
            v = (double)xs[q];
        } else {
            if (len == 1) {
                p = 0;
            } else {
                const long long period = 2 * (len - 1);
                p = p % period;
                if (p < 0) p += period;
                if (p >= len) p = period - p;
            }
            v = (double)xs[p];
        }
        acc += w[j] * v;
    }
}
y = (T)acc;
"#;

/// SciPy's `savgol_filter(x, window_length, polyorder, deriv, delta, axis, mode, cval)`: `x`
/// smoothed (or differentiated) along `axis` by a Savitzky–Golay filter. SciPy's defaults:
/// `deriv = 0`, `delta = 1.0`, `axis = -1`, `SavgolMode::Interp`, `cval = 0.0`.
#[allow(clippy::too_many_arguments)]
pub fn savgol_filter(
    x: &Array,
    window_length: usize,
    polyorder: usize,
    deriv: usize,
    delta: f64,
    axis: isize,
    mode: SavgolMode,
    cval: f64,
) -> Result<Array> {
    let op = "savgol_filter";
    check(op, window_length, polyorder)?;
    if x.dtype().is_complex() {
        return Err(Error::unsupported_dtype(op, x.dtype()));
    }
    let dtype = if x.dtype() == DType::F32 { DType::F32 } else { DType::F64 };
    let lx = Lines::new(op, x, axis, dtype)?;
    let n = lx.len();
    let m = window_length;
    if mode == SavgolMode::Interp && m > n {
        return Err(Error::value(
            op,
            "If mode is 'interp', window_length must be less than or equal to the size of x.",
        ));
    }
    let dev = x.device_arc();
    let w = Array::from_slice_on(&dev, &taps_dot(m, polyorder, deriv, delta, centre(m)), &[m])?;
    let table: Vec<f64> = if mode == SavgolMode::Interp {
        (0..m).flat_map(|p| taps_dot(m, polyorder, deriv, delta, p as f64)).collect()
    } else {
        vec![0.0]
    };
    let e = Array::from_slice_on(&dev, &table, &[table.len()])?;
    let mode_id = match mode {
        SavgolMode::Mirror => 0,
        SavgolMode::Constant => 1,
        SavgolMode::Nearest => 2,
        SavgolMode::Wrap => 3,
        SavgolMode::Interp => 4,
    };
    let cval = if mode == SavgolMode::Interp { 0.0 } else { cval };
    static K: OnceLock<crate::ElementwiseKernel> = OnceLock::new();
    let kern = kernel(
        &K,
        "raw T x, raw float64 w, raw float64 e, int64 len, int64 m, int64 s, int64 h, int64 mode, float64 cval",
        "T y",
        SAVGOL,
        "xp_signal_savgol",
    )?;
    let out = Array::empty_on(&dev, lx.data.shape(), dtype)?;
    if out.size() == 0 {
        return lx.restore(&out);
    }
    let i = |v: i64| Operand::Scalar(Scalar::Int(v as i128));
    let s = (m / 2) as i64 - (m as i64 - 1);
    kern.call_all(&[
        Operand::Array(&cast(&lx.data, dtype)?),
        Operand::Array(&w),
        Operand::Array(&e),
        i(n as i64),
        i(m as i64),
        i(s),
        i((m / 2) as i64),
        i(mode_id),
        Operand::Scalar(Scalar::Float(cval)),
        Operand::Array(&out),
    ])?;
    lx.restore(&out)
}
