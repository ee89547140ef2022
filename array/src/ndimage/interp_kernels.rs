//! The device kernels of the spline interpolation: the chunked B-spline prefilter and the
//! resampling kernels specialised by rank, order, coordinate source and dtypes.
//!
//! # The prefilter of long lines
//! Each pole's causal recursion `c⁺[k] = c[k] + z·c⁺[k-1]` and anticausal recursion
//! `c⁻[k] = z·(c⁻[k+1] - c⁺[k])` is one launch over (line, chunk of [`CHUNK`] samples) pairs, so
//! a 2048² image is 65 536 threads rather than 2048. A chunk starts its recursion `W` samples
//! early with a zero history, `W` the smallest count with `|z|^W ≤ 10⁻¹⁸`: the history left out
//! weighs less than 10⁻¹⁸ of the line's largest coefficient, far below the float64 rounding
//! SciPy's own recursion makes. Chunks within `W` of a line's end start at the end with SciPy's
//! boundary value (the mirror, half-sample mirror or periodic sum, the last two kept to the
//! terms above that bound: on lines of [`LONG`] samples or more, `|z|^(n-1)` is below 10⁻⁹⁰),
//! so the samples near the edges follow SciPy's recursion operation for operation. Adjacent
//! threads take adjacent lines, which are adjacent in memory for every axis but the last; the
//! last axis is filtered on a transposed copy. Lines shorter than [`LONG`] keep the exact
//! one-thread-per-line recursion of SciPy.
//!
//! # The resampling kernels
//! One kernel per (coordinate source, rank, per-axis order and padding, coefficient, coordinate
//! and output dtype, index width), compiled on first use: the loops over axes and taps are
//! unrolled at compile time, indices are 32-bit when the coefficients, coordinates and output
//! fit, and a point whose taps all lie inside the image reads them without any boundary logic.
//! Zoom and shift read each axis' taps and weights from tables computed once per output index
//! (on the host, by the same code as the CPU device's native form); `map_coordinates` reads the
//! coordinates in their own dtype (float32 or float64), and the input itself is read in its own
//! float dtype when it is not prefiltered. Every value is computed with the operations, in the
//! order, of the CPU device's native form (compiled without contraction), so the two give the
//! same bits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use xp_backend_api::{CompileOptions, DType, DynDevice, Error, Result};

use crate::user::{LaunchArg, RawKernel};
use crate::Array;

/// Samples per chunk of the chunked prefilter (at least the largest warm-up length, 50).
pub(super) const CHUNK: usize = 64;

/// The shortest line the chunked prefilter takes.
pub(super) const LONG: usize = 256;

/// Threads per block.
const BLOCK: usize = 256;

fn compiled(name: &str, code: impl FnOnce() -> String) -> RawKernel {
    static CACHE: OnceLock<Mutex<HashMap<String, RawKernel>>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(|| Mutex::new(HashMap::new())).lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(name.to_string())
        .or_insert_with(|| {
            RawKernel::with_compile_options(&code(), name, CompileOptions::default().with_no_contraction(true))
        })
        .clone()
}

fn blocks(n: usize) -> u32 {
    n.div_ceil(BLOCK).max(1) as u32
}

// ---- the chunked prefilter ---------------------------------------------------------------------

const PREFILTER_NAME: &str = "xp_ndi_spline_chunks";

/// The causal and anticausal passes of one pole over chunks of long lines (module docs).
/// `bc`: 0 the whole-sample mirror, 1 the half-sample mirror, 2 periodic.
fn prefilter_source() -> String {
    r#"
// SciPy's causal boundary value at sample 0 of the line (gain applied on load).
XP_HD double xp_ndi_causal0(const double* __restrict__ x, long long base, long long n, long long st,
                            long long w, double z, double g, int bc) {
    if (bc == 2) {
        double v = 0.0;
        for (long long k = n - w; k < n; ++k) v = g * x[base + k * st] + z * v;
        return g * x[base] + z * v;
    }
    double acc = g * x[base];
    double zi = z;
    const long long m = w < n ? w : n;
    for (long long k = 1; k < m; ++k) { acc += zi * (g * x[base + k * st]); zi *= z; }
    if (bc == 0) return acc;
    return g * x[base] + acc * z;
}

extern "C" __global__ void xp_ndi_spline_causal(const double* __restrict__ x, double* __restrict__ y,
        long long lines, long long n, long long st, long long chunks, long long w, double z, double g, int bc) {
    const long long tid = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;
    if (tid >= lines * chunks) return;
    const long long j = tid / lines;
    const long long line = tid - j * lines;
    const long long outer = line / st;
    const long long base = outer * n * st + (line - outer * st);
    const long long s = j * NDI_CHUNK_LEN;
    const long long e = s + NDI_CHUNK_LEN < n ? s + NDI_CHUNK_LEN : n;
    double v;
    if (s <= w) {
        v = xp_ndi_causal0(x, base, n, st, w, z, g, bc);
        for (long long k = 1; k < s; ++k) v = g * x[base + k * st] + z * v;
        if (s == 0) { y[base] = v; } else { v = g * x[base + s * st] + z * v; y[base + s * st] = v; }
    } else {
        v = 0.0;
        for (long long k = s - w; k < s; ++k) v = g * x[base + k * st] + z * v;
        v = g * x[base + s * st] + z * v;
        y[base + s * st] = v;
    }
    for (long long k = s + 1; k < e; ++k) {
        v = g * x[base + k * st] + z * v;
        y[base + k * st] = v;
    }
}

// SciPy's anticausal boundary value at the line's last sample.
XP_HD double xp_ndi_anticausal_last(const double* __restrict__ x, long long base, long long n, long long st,
                                    long long w, double z, int bc) {
    if (bc == 0) return (z * x[base + (n - 2) * st] + x[base + (n - 1) * st]) * z / (z * z - 1.0);
    if (bc == 1) return x[base + (n - 1) * st] * (z / (z - 1.0));
    double u = 0.0;
    for (long long k = (w < n ? w : n) - 1; k >= 0; --k) u = z * (u - x[base + k * st]);
    return z * (u - x[base + (n - 1) * st]);
}

extern "C" __global__ void xp_ndi_spline_anticausal(const double* __restrict__ x, double* __restrict__ y,
        long long lines, long long n, long long st, long long chunks, long long w, double z, int bc) {
    const long long tid = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;
    if (tid >= lines * chunks) return;
    const long long j = tid / lines;
    const long long line = tid - j * lines;
    const long long outer = line / st;
    const long long base = outer * n * st + (line - outer * st);
    const long long s = j * NDI_CHUNK_LEN;
    const long long e = s + NDI_CHUNK_LEN < n ? s + NDI_CHUNK_LEN : n;
    double v;
    if (e + w >= n) {
        v = xp_ndi_anticausal_last(x, base, n, st, w, z, bc);
        for (long long k = n - 2; k >= e; --k) v = z * (v - x[base + k * st]);
        if (e == n) { y[base + (n - 1) * st] = v; } else { v = z * (v - x[base + (e - 1) * st]); y[base + (e - 1) * st] = v; }
    } else {
        v = 0.0;
        for (long long k = e + w - 1; k >= e; --k) v = z * (v - x[base + k * st]);
        v = z * (v - x[base + (e - 1) * st]);
        y[base + (e - 1) * st] = v;
    }
    for (long long k = e - 2; k >= s; --k) {
        v = z * (v - x[base + k * st]);
        y[base + k * st] = v;
    }
}
"#
    .replace("NDI_CHUNK_LEN", &format!("{CHUNK}LL"))
}

/// The warm-up length of pole `z`: the smallest `w` with `|z|^w ≤ 10⁻¹⁸`.
fn warmup(z: f64) -> usize {
    ((-18.0 * std::f64::consts::LN_10) / z.abs().ln()).ceil().max(1.0) as usize
}

/// The poles of the order's B-spline (as SciPy computes them).
pub(super) fn poles(order: usize) -> Vec<f64> {
    match order {
        2 => vec![8f64.sqrt() - 3.0],
        3 => vec![3f64.sqrt() - 2.0],
        4 => vec![
            (664.0 - 438976f64.sqrt()).sqrt() + 304f64.sqrt() - 19.0,
            (664.0 + 438976f64.sqrt()).sqrt() - 304f64.sqrt() - 19.0,
        ],
        5 => vec![
            (67.5 - 4436.25f64.sqrt()).sqrt() + 26.25f64.sqrt() - 6.5,
            (67.5 + 4436.25f64.sqrt()).sqrt() - 26.25f64.sqrt() - 6.5,
        ],
        _ => Vec::new(),
    }
}

/// The chunked prefilter of `buf` (float64, C-contiguous) along `axis`, whose lines are at
/// least [`LONG`] long: the filtered coefficients, a new array.
pub(super) fn prefilter_long_lines(buf: &Array, order: usize, axis: usize, bc: i32) -> Result<Array> {
    let shape = buf.shape().to_vec();
    let n = shape[axis];
    let st: usize = shape[axis + 1..].iter().product();
    let lines = buf.size() / n.max(1);
    let chunks = n.div_ceil(CHUNK);
    let threads = lines * chunks;
    let dev: Arc<dyn DynDevice> = buf.device_arc();
    let causal = compiled("xp_ndi_spline_causal", prefilter_source);
    let anti = compiled("xp_ndi_spline_anticausal", prefilter_source);
    let zs = poles(order);
    // SciPy's gain, computed in SciPy's order.
    let mut g = 1.0f64;
    for &z in &zs {
        g *= (1.0 - z) * (1.0 - 1.0 / z);
    }
    let mut cur = buf.clone();
    for (p, &z) in zs.iter().enumerate() {
        let w = warmup(z).min(CHUNK) as i64;
        let mid = Array::empty_on(&dev, &shape, DType::F64)?;
        causal.launch(
            blocks(threads),
            BLOCK as u32,
            &[
                LaunchArg::Array(&cur),
                LaunchArg::Array(&mid),
                LaunchArg::I64(lines as i64),
                LaunchArg::I64(n as i64),
                LaunchArg::I64(st as i64),
                LaunchArg::I64(chunks as i64),
                LaunchArg::I64(w),
                LaunchArg::F64(z),
                LaunchArg::F64(if p == 0 { g } else { 1.0 }),
                LaunchArg::I32(bc),
            ],
        )?;
        let out = Array::empty_on(&dev, &shape, DType::F64)?;
        anti.launch(
            blocks(threads),
            BLOCK as u32,
            &[
                LaunchArg::Array(&mid),
                LaunchArg::Array(&out),
                LaunchArg::I64(lines as i64),
                LaunchArg::I64(n as i64),
                LaunchArg::I64(st as i64),
                LaunchArg::I64(chunks as i64),
                LaunchArg::I64(w),
                LaunchArg::F64(z),
                LaunchArg::I32(bc),
            ],
        )?;
        cur = out;
    }
    Ok(cur)
}

// ---- the resampling kernels --------------------------------------------------------------------

/// Where a resampling kernel finds each output point's input coordinate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Source {
    /// An `(ndim, npts)` coordinate array (`map_coordinates`).
    Coordinates,
    /// `matrix · o + offset` (`affine_transform`, `rotate`).
    Affine,
    /// Per-axis tables of taps and weights (`zoom`, `shift`).
    Tables,
}

/// What a resampling kernel is specialised on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct InterpSpec {
    pub source: Source,
    /// Spline order per input axis.
    pub ords: Vec<usize>,
    /// Padding added to the coordinate per input axis (0 or SciPy's 12).
    pub pads: Vec<usize>,
    /// Output rank.
    pub ndo: usize,
    /// Coefficients' C type: `float` or `double`.
    pub ct: &'static str,
    /// Coordinates' C type (`Source::Coordinates`): `float` or `double`.
    pub crd: &'static str,
    /// Output C type: `float` or `double`.
    pub ot: &'static str,
    /// 64-bit indices.
    pub wide: bool,
}

impl InterpSpec {
    pub fn name(&self) -> String {
        let k = match self.source {
            Source::Coordinates => "c",
            Source::Affine => "a",
            Source::Tables => "t",
        };
        let ords: String = self.ords.iter().map(|o| o.to_string()).collect();
        let pads: String = self.pads.iter().map(|&p| if p > 0 { 'p' } else { 'z' }).collect();
        let short = |t: &str| if t == "float" { "f" } else { "d" };
        format!(
            "xp_ndi_interp_{k}_{ords}_{pads}_o{}_{}{}{}_{}",
            self.ndo,
            short(self.ct),
            short(self.crd),
            short(self.ot),
            if self.wide { "i64" } else { "i32" }
        )
    }

    /// The kernel's source.
    pub fn source(&self) -> String {
        let nd = self.ords.len();
        let ndo = self.ndo;
        let name = self.name();
        let mut s = String::new();
        let mut params = String::from(
            "const CT* __restrict__ cf, OT* __restrict__ y, const CR* __restrict__ crd, \
             const double* __restrict__ par, const I* __restrict__ ttab, const double* __restrict__ wtab, \
             long long total, long long mode, double cval, int rnd, double lo, double hi",
        );
        for d in 0..nd {
            params.push_str(&format!(", long long n{d}"));
        }
        for d in 0..ndo {
            params.push_str(&format!(", long long o{d}"));
        }
        s.push_str(&format!("extern \"C\" __global__ void {name}({params}) {{\n"));
        s.push_str(
            "    const long long gi = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;\n",
        );
        s.push_str("    if (gi >= total) return;\n    const I i = (I)gi;\n");
        // Strides of the coefficients.
        s.push_str(&format!("    const I st{} = 1;\n", nd - 1));
        for d in (0..nd - 1).rev() {
            s.push_str(&format!("    const I st{d} = st{} * (I)n{};\n", d + 1, d + 1));
        }
        s.push_str("    double acc = 0.0;\n    bool inside = true;\n");
        if self.source != Source::Coordinates {
            s.push_str("    I r = i;\n");
            for d in (0..ndo).rev() {
                s.push_str(&format!("    const I q{d} = r % (I)o{d};\n"));
                if d > 0 {
                    s.push_str("    r /= (I)o".to_string().as_str());
                    s.push_str(&format!("{d};\n"));
                }
            }
        }
        for d in 0..nd {
            let od = self.ords[d];
            let pad = format!("{}.0", self.pads[d]);
            match self.source {
                Source::Tables => {
                    // Table rows: [inside, taps…] and [weights…] per output index of the axis.
                    let toff: String = (0..d).map(|e| format!(" + (I)o{e} * {}", self.ords[e] + 2)).collect();
                    let woff: String = (0..d).map(|e| format!(" + (I)o{e} * {}", self.ords[e] + 1)).collect();
                    s.push_str(&format!(
                        "    const I* __restrict__ t{d} = ttab + (I)0{toff} + q{d} * {} + 1;\n",
                        od + 2
                    ));
                    s.push_str(&format!(
                        "    const double* __restrict__ w{d} = wtab + (I)0{woff} + q{d} * {};\n",
                        od + 1
                    ));
                    s.push_str(&format!("    if (t{d}[-1] == 0) inside = false;\n"));
                }
                Source::Coordinates | Source::Affine => {
                    s.push_str(&format!("    I t{d}[{}];\n    double w{d}[{}];\n", od + 1, od + 1));
                    if self.source == Source::Coordinates {
                        s.push_str(&format!(
                            "    if (inside) {{\n        double cc = (double)crd[(I){d} * (I)total + i] + {pad};\n"
                        ));
                    } else {
                        s.push_str("    if (inside) {\n        double t = 0.0;\n");
                        for j in 0..ndo {
                            s.push_str(&format!("        t += par[{}] * (double)q{j};\n", d * ndo + j));
                        }
                        s.push_str(&format!("        double cc = t + par[{}];\n        cc += {pad};\n", nd * ndo + d));
                    }
                    s.push_str(&format!(
                        "        if (!xp_ndi_axis<{od}>(cc, n{d}, st{d}, mode, t{d}, w{d})) inside = false;\n    }}\n"
                    ));
                }
            }
        }
        s.push_str("    if (!inside) {\n        acc = cval;\n    } else {\n");
        // The sum over the taps, axis 0 outermost, as the native form.
        for d in 0..nd {
            let ind = "    ".repeat(d + 2);
            let od = self.ords[d];
            s.push_str(&format!("{ind}for (int l{d} = 0; l{d} <= {od}; ++l{d}) {{\n"));
            let prev_w = if d == 0 { "1.0".to_string() } else { format!("wt{}", d - 1) };
            s.push_str(&format!("{ind}    const double wt{d} = {prev_w} * w{d}[l{d}];\n"));
            s.push_str(&format!("{ind}    const I tap{d} = t{d}[l{d}];\n"));
            if d == 0 {
                s.push_str(&format!("{ind}    const bool out{d} = tap{d} < 0;\n"));
                s.push_str(&format!("{ind}    const I flat{d} = tap{d};\n"));
            } else {
                s.push_str(&format!("{ind}    const bool out{d} = out{} || tap{d} < 0;\n", d - 1));
                s.push_str(&format!("{ind}    const I flat{d} = flat{} + tap{d};\n", d - 1));
            }
        }
        let ind = "    ".repeat(nd + 2);
        let last = nd - 1;
        s.push_str(&format!("{ind}acc += wt{last} * (out{last} ? cval : (double)cf[flat{last}]);\n"));
        for d in (0..nd).rev() {
            s.push_str(&format!("{}}}\n", "    ".repeat(d + 2)));
        }
        s.push_str("    }\n");
        s.push_str(
            "    if (rnd != 0) {\n        acc = acc > 0.0 ? floor(acc + 0.5) : ceil(acc - 0.5);\n        \
             acc = acc < lo ? lo : (acc > hi ? hi : acc);\n    }\n    y[i] = (OT)acc;\n}\n",
        );
        // The element types written out (no typedefs, so that several kernels share a unit).
        let mut body = String::new();
        let mut word = String::new();
        let typed = |w: &str| -> String {
            match w {
                "I" => if self.wide { "long long" } else { "int" }.to_string(),
                "CT" => self.ct.to_string(),
                "CR" => self.crd.to_string(),
                "OT" => self.ot.to_string(),
                _ => w.to_string(),
            }
        };
        for ch in s.chars() {
            if ch.is_ascii_alphanumeric() || ch == '_' {
                word.push(ch);
            } else {
                body.push_str(&typed(&word));
                word.clear();
                body.push(ch);
            }
        }
        body.push_str(&typed(&word));
        format!("{HELPERS}{body}")
    }
}

/// The helpers of the resampling kernels: the B-spline, the mode's mapping of coordinates and
/// sample indices (the native form's operations in its order), one axis' taps and weights.
const HELPERS: &str = r#"
#ifndef XP_NDI_INTERP_HELPERS
#define XP_NDI_INTERP_HELPERS
XP_HD double xp_ndi_bspline(int order, double x) {
    x = fabs(x);
    if (order == 1) return x < 1.0 ? 1.0 - x : 0.0;
    if (order == 2) {
        if (x < 0.5) return 0.75 - x * x;
        if (x < 1.5) { const double t = 1.5 - x; return 0.5 * t * t; }
        return 0.0;
    }
    if (order == 3) {
        if (x < 1.0) return (4.0 - 6.0 * x * x + 3.0 * x * x * x) / 6.0;
        if (x < 2.0) { const double t = 2.0 - x; return t * t * t / 6.0; }
        return 0.0;
    }
    if (order == 4) {
        const double a = 2.5 - x, b = 1.5 - x, c = 0.5 - x;
        if (x < 0.5) return (a * a * a * a - 5.0 * b * b * b * b + 10.0 * c * c * c * c) / 24.0;
        if (x < 1.5) return (a * a * a * a - 5.0 * b * b * b * b) / 24.0;
        if (x < 2.5) return a * a * a * a / 24.0;
        return 0.0;
    }
    {
        const double a = 3.0 - x, b = 2.0 - x, c = 1.0 - x;
        const double a5 = a * a * a * a * a, b5 = b * b * b * b * b, c5 = c * c * c * c * c;
        if (x < 1.0) return (a5 - 6.0 * b5 + 15.0 * c5) / 120.0;
        if (x < 2.0) return (a5 - 6.0 * b5) / 120.0;
        if (x < 3.0) return a5 / 120.0;
        return 0.0;
    }
}

// modes: 0 reflect, 1 constant, 2 nearest, 3 mirror, 4 wrap, 5 grid-constant, 6 grid-wrap
XP_HD bool xp_ndi_map(double* pc, long long n, long long mode) {
    double cc = *pc;
    const double last = (double)(n - 1);
    if (cc < 0.0 || cc > last) {
        if (mode == 1) return false;
        if (mode != 5 && mode != 2) {
            if (n <= 1) {
                cc = 0.0;
            } else if (mode == 3) {
                const double p = 2.0 * last;
                if (cc < 0.0) { cc = p * trunc(-cc / p) + cc; cc = cc <= -last ? cc + p : -cc; }
                else { cc -= p * trunc(cc / p); if (cc >= (double)n) cc = p - cc; }
            } else if (mode == 0) {
                const double p = 2.0 * (double)n;
                if (cc < 0.0) { if (cc < -p) cc = p * trunc(-cc / p) + cc; cc = cc < -(double)n ? cc + p : -cc - 1.0; }
                else { cc -= p * trunc(cc / p); if (cc >= (double)n) cc = p - cc - 1.0; }
            } else if (mode == 4) {
                const double p = last;
                if (cc < 0.0) cc += p * (trunc(-cc / p) + 1.0); else cc -= p * trunc(cc / p);
            } else {
                const double p = (double)n;
                if (cc < 0.0) cc += p * (trunc((-1.0 - cc) / p) + 1.0); else cc -= p * trunc(cc / p);
            }
        }
    }
    *pc = cc;
    return cc > -1.0 || mode == 5 || mode == 2;
}

XP_HD long long xp_ndi_tap(long long i, long long n, long long mode) {
    if (i >= 0 && i < n) return i;
    if (mode == 5) return -1;
    if (mode == 2) return i < 0 ? 0 : n - 1;
    if (n <= 1) return 0;
    if (mode == 0) {
        const long long p = 2 * n;
        if (i < 0) { if (i < -p) i = p * ((-i) / p) + i; i = i < -n ? i + p : -i - 1; }
        else { i -= p * (i / p); if (i >= n) i = p - i - 1; }
        return i;
    }
    if (mode == 6) {
        if (i < 0) i += n * ((-1 - i) / n + 1); else i -= n * (i / n);
        return i;
    }
    const long long p = 2 * n - 2;
    if (i < 0) { i = p * ((-i) / p) + i; i = i <= 1 - n ? i + p : -i; }
    else { i -= p * (i / p); if (i >= n) i = p - i; }
    return i;
}

// One axis of one point: false when the point takes cval; else its taps (offsets times the
// axis' stride, -1 for cval) and weights.
template <int OD, typename I>
XP_HD bool xp_ndi_axis(double cc, long long n, I stride, long long mode, I* t, double* w) {
    if (!xp_ndi_map(&cc, n, mode)) return false;
    const long long s0 = (OD & 1) ? (long long)floor(cc) - OD / 2 : (long long)floor(cc + 0.5) - OD / 2;
    if (s0 >= 0 && s0 + OD < n) {
        for (int l = 0; l <= OD; ++l) t[l] = (I)(s0 + l) * stride;
    } else {
        for (int l = 0; l <= OD; ++l) {
            const long long q = xp_ndi_tap(s0 + l, n, mode);
            t[l] = q < 0 ? (I)-1 : (I)q * stride;
        }
    }
    for (int l = 0; l <= OD; ++l) w[l] = OD == 0 ? 1.0 : xp_ndi_bspline(OD, cc - (double)(s0 + l));
    return true;
}
#endif
"#;

/// The arguments of one resampling launch beyond the spec.
pub(super) struct InterpLaunch<'a> {
    pub cf: &'a Array,
    pub out: &'a Array,
    pub crd: &'a Array,
    pub par: &'a Array,
    pub ttab: &'a Array,
    pub wtab: &'a Array,
    pub mode: i64,
    pub cval: f64,
    pub rnd: Option<(f64, f64)>,
    pub ishape: &'a [usize],
    pub oshape: &'a [usize],
}

/// Launches the kernel of `spec` over every output point.
pub(super) fn interpolate(spec: &InterpSpec, l: &InterpLaunch<'_>) -> Result<()> {
    let total: usize = l.oshape.iter().product();
    if total == 0 {
        return Ok(());
    }
    if spec.ords.len() != l.ishape.len() || spec.ndo != l.oshape.len() {
        return Err(Error::value("ndimage", "interpolation kernel spec does not match the shapes"));
    }
    let name = spec.name();
    let k = compiled(&name, || spec.source());
    let (lo, hi) = l.rnd.unwrap_or((0.0, 0.0));
    let mut args = vec![
        LaunchArg::Array(l.cf),
        LaunchArg::Array(l.out),
        LaunchArg::Array(l.crd),
        LaunchArg::Array(l.par),
        LaunchArg::Array(l.ttab),
        LaunchArg::Array(l.wtab),
        LaunchArg::I64(total as i64),
        LaunchArg::I64(l.mode),
        LaunchArg::F64(l.cval),
        LaunchArg::I32(l.rnd.is_some() as i32),
        LaunchArg::F64(lo),
        LaunchArg::F64(hi),
    ];
    args.extend(l.ishape.iter().map(|&n| LaunchArg::I64(n as i64)));
    args.extend(l.oshape.iter().map(|&n| LaunchArg::I64(n as i64)));
    k.launch(blocks(total), BLOCK as u32, &args)
}

/// A sample of the kernels, with their names, for compile checks: the prefilter and the
/// resampling kernels of every source at orders 0–5 in two and three dimensions.
pub fn interpolation_kernels() -> Vec<xp_kernels::render::Rendered> {
    let mut out = vec![xp_kernels::render::Rendered { name: PREFILTER_NAME.to_string(), code: prefilter_source() }];
    for source in [Source::Coordinates, Source::Affine, Source::Tables] {
        for order in 0..=5usize {
            for (nd, wide) in [(2usize, false), (3, true)] {
                let pads = if order > 1 && nd == 2 { vec![12; nd] } else { vec![0; nd] };
                let mut ords = vec![order; nd];
                if nd == 3 && source == Source::Affine {
                    ords[2] = 0;
                }
                let spec = InterpSpec {
                    source,
                    ords,
                    pads,
                    ndo: nd,
                    ct: if order < 2 { "float" } else { "double" },
                    crd: if wide { "double" } else { "float" },
                    ot: if nd == 2 { "float" } else { "double" },
                    wide,
                };
                out.push(xp_kernels::render::Rendered { name: spec.name(), code: spec.source() });
            }
        }
    }
    out
}
