//! Float kernels NumPy computes bit by bit or by series: `nextafter` and `spacing` (on the
//! bits of float16, float32 and float64, as NumPy's `npy_nextafter` and `npy_spacing`) and
//! `i0` (the modified Bessel function of order 0, by NumPy's Chebyshev series, in the data's
//! float type as NumPy evaluates it). Flat loops over contiguous arrays.

use crate::plan::{plan_flat, PlanArg, PlannedLaunch, Target};
use crate::render::Rendered;

/// The float formats of the bit kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatFormat {
    /// IEEE binary16.
    F16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
}

impl FloatFormat {
    const ALL: [FloatFormat; 3] = [FloatFormat::F16, FloatFormat::F32, FloatFormat::F64];

    fn tag(self) -> &'static str {
        match self {
            FloatFormat::F16 => "f16",
            FloatFormat::F32 => "f32",
            FloatFormat::F64 => "f64",
        }
    }

    /// (bits type, compute type, storage type, value of bits `b`, sign bit).
    fn types(self) -> (&'static str, &'static str, &'static str, &'static str, &'static str) {
        match self {
            FloatFormat::F16 => ("xp::u16", "float", "xp::f16", "(float)xp::f16::from_bits(b)", "(xp::u16)0x8000u"),
            FloatFormat::F32 => ("xp::u32", "float", "float", "__uint_as_float(b)", "0x80000000u"),
            FloatFormat::F64 => {
                ("xp::u64", "double", "double", "__longlong_as_double((long long)b)", "0x8000000000000000ull")
            }
        }
    }
}

/// NumPy's `nextafter(x1, x2)` elementwise over contiguous arrays of one format, read and
/// written as their bits: the next representable value after `x1` towards `x2` (`x2` when
/// equal, NaN when either is NaN).
///
/// Parameters: `const U* a, const U* b, U* out, xp::i64 n` (`U` the format's bits type).
pub fn nextafter(f: FloatFormat) -> Rendered {
    let (u, c, _, val, sign) = f.types();
    let name = format!("xp_nextafter_{}", f.tag());
    let code = format!(
        "extern \"C\" __global__ void {name}(const {u}* __restrict__ a, const {u}* __restrict__ y, {u}* __restrict__ out, xp::i64 n) {{
  XP_FOR_EACH(xp::i64, i, n) {{
    const {u} bx = a[i], by = y[i];
    {u} b = bx;
    const {c} x = {val};
    b = by;
    const {c} t = {val};
    if (x != x) {{ out[i] = bx; continue; }}
    if (t != t) {{ out[i] = by; continue; }}
    if (x == t) {{ out[i] = by; continue; }}
    if (x == ({c})0) {{ out[i] = ({u})((by & {sign}) | ({u})1); continue; }}
    // Sign and magnitude: a step away from zero is one more in the bits.
    const bool away = (x < t) == (x > ({c})0);
    out[i] = away ? ({u})(bx + 1) : ({u})(bx - 1);
  }}
}}
"
    );
    Rendered { name, code }
}

/// NumPy's `spacing(x)` elementwise over a contiguous array of one format: the distance from
/// `x` to the next representable value away from zero (negative for negative `x`; NaN for
/// NaN and infinities; infinity at the largest finite value). For float16, as NumPy's
/// `npy_half_spacing`, the distance to the next value towards +inf (never negative).
///
/// Parameters: `const U* a, S* out, xp::i64 n` (`U` the bits type, `S` the float type).
pub fn spacing(f: FloatFormat) -> Rendered {
    let (u, c, s, val, _) = f.types();
    let name = format!("xp_spacing_{}", f.tag());
    // NumPy's float16 spacing (`npy_half_spacing`) steps towards +inf and is never negative;
    // float32 and float64 step away from zero.
    let step = match f {
        FloatFormat::F16 => "(xp::u16)(bx == 0x8000u ? 1u : ((bx & 0x8000u) ? bx - 1u : bx + 1u))",
        _ => "bx + 1",
    };
    let step = format!("({u})({step})");
    let code = format!(
        "extern \"C\" __global__ void {name}(const {u}* __restrict__ a, {s}* __restrict__ out, xp::i64 n) {{
  XP_FOR_EACH(xp::i64, i, n) {{
    const {u} bx = a[i];
    {u} b = bx;
    const {c} x = {val};
    if (x != x || x - x != x - x) {{ out[i] = ({s})(x - x); continue; }}
    b = {step};
    const {c} next = {val};
    out[i] = ({s})(next - x);
  }}
}}
"
    );
    Rendered { name, code }
}

/// The Chebyshev coefficients of NumPy's `i0` on `[0, 8]` (NumPy's digits, kept verbatim).
#[allow(clippy::excessive_precision)]
const I0_A: [f64; 30] = [
    -4.41534164647933937950E-18,
    3.33079451882223809783E-17,
    -2.43127984654795469359E-16,
    1.71539128555513303061E-15,
    -1.16853328779934516808E-14,
    7.67618549860493561688E-14,
    -4.85644678311192946090E-13,
    2.95505266312963983461E-12,
    -1.72682629144155570723E-11,
    9.67580903537323691224E-11,
    -5.18979560163526290666E-10,
    2.65982372468238665035E-9,
    -1.30002500998624804212E-8,
    6.04699502254191894932E-8,
    -2.67079385394061173391E-7,
    1.11738753912010371815E-6,
    -4.41673835845875056359E-6,
    1.64484480707288970893E-5,
    -5.75419501008210370398E-5,
    1.88502885095841655729E-4,
    -5.76375574538582365885E-4,
    1.63947561694133579842E-3,
    -4.32430999505057594430E-3,
    1.05464603945949983183E-2,
    -2.37374148058994688156E-2,
    4.93052842396707084878E-2,
    -9.49010970480476444210E-2,
    1.71620901522208775349E-1,
    -3.04682672343198398683E-1,
    6.76795274409476084995E-1,
];

/// The Chebyshev coefficients of NumPy's `i0` above 8 (NumPy's digits, kept verbatim).
#[allow(clippy::excessive_precision)]
const I0_B: [f64; 25] = [
    -7.23318048787475395456E-18,
    -4.83050448594418207126E-18,
    4.46562142029675999901E-17,
    3.46122286769746109310E-17,
    -2.82762398051658348494E-16,
    -3.42548561967721913462E-16,
    1.77256013305652638360E-15,
    3.81168066935262242075E-15,
    -9.55484669882830764870E-15,
    -4.15056934728722208663E-14,
    1.54008621752140982691E-14,
    3.85277838274214270114E-13,
    7.18012445138366623367E-13,
    -1.79417853150680611778E-12,
    -1.32158118404477131188E-11,
    -3.14991652796324136454E-11,
    1.18891471078464383424E-11,
    4.94060238822496958910E-10,
    3.39623202570838634515E-9,
    2.26666899049817806459E-8,
    2.04891858946906374183E-7,
    2.89137052083475648297E-6,
    6.88975834691682398426E-5,
    3.36911647825569408990E-3,
    8.04490411014108831608E-1,
];

/// NumPy's `i0(x)` in float64, on the host (what `kaiser` divides by).
pub fn i0_host(x: f64) -> f64 {
    fn chbevl(x: f64, vals: &[f64]) -> f64 {
        let (mut b0, mut b1, mut b2) = (vals[0], 0.0, 0.0);
        for &v in &vals[1..] {
            b2 = b1;
            b1 = b0;
            b0 = x * b1 - b2 + v;
        }
        0.5 * (b0 - b2)
    }
    let x = x.abs();
    if x <= 8.0 {
        x.exp() * chbevl(x / 2.0 - 2.0, &I0_A)
    } else {
        x.exp() * chbevl(32.0 / x - 2.0, &I0_B) / x.sqrt()
    }
}

fn c_array(name: &str, vals: &[f64]) -> String {
    let body: Vec<String> = vals.iter().map(|v| format!("{v:e}")).collect();
    format!("{name}[{}] = {{{}}}", vals.len(), body.join(", "))
}

/// NumPy's `i0(x)` over a contiguous array of `float` or `double` (`double_precision`), each
/// step in that type as NumPy's Python code evaluates it.
///
/// Parameters: `const F* a, F* out, xp::i64 n`.
pub fn i0(double_precision: bool) -> Rendered {
    let f = if double_precision { "double" } else { "float" };
    let name = format!("xp_i0_{}", if double_precision { "f64" } else { "f32" });
    let code = format!(
        "extern \"C\" __global__ void {name}(const {f}* __restrict__ a, {f}* __restrict__ out, xp::i64 n) {{
  const {f} {}, {};
  XP_FOR_EACH(xp::i64, i, n) {{
    const {f} x = a[i] < ({f})0 ? -a[i] : a[i];
    const bool small = x <= ({f})8;
    const {f}* c = small ? A : B;
    const int len = small ? 30 : 25;
    const {f} t = small ? x / ({f})2 - ({f})2 : ({f})32 / x - ({f})2;
    {f} b0 = c[0], b1 = 0, b2 = 0;
    for (int k = 1; k < len; ++k) {{ b2 = b1; b1 = b0; b0 = t * b1 - b2 + c[k]; }}
    const {f} s = ({f})0.5 * (b0 - b2);
    out[i] = small ? xp::exp(x) * s : xp::exp(x) * s / xp::sqrt(x);
  }}
}}
",
        c_array("A", &I0_A),
        c_array("B", &I0_B),
    );
    Rendered { name, code }
}

/// The flat launch of one of this module's kernels over `n` elements: operands 0 (and 1 for
/// `nextafter`) the contiguous inputs; the output is bound as the plan's output.
pub fn plan_special(kernel: Rendered, inputs: usize, n: usize, target: Target) -> PlannedLaunch {
    let mut args: Vec<PlanArg> = (0..inputs).map(PlanArg::Operand).collect();
    args.push(PlanArg::Output);
    args.push(PlanArg::I64(n as i64));
    PlannedLaunch { kernel, config: plan_flat(n, target), args }
}

/// Every kernel of this module (built ahead of time on the CPU; compiled by the cross-vendor
/// check).
pub fn builtin_kernels() -> Vec<Rendered> {
    let mut v: Vec<Rendered> = FloatFormat::ALL.iter().flat_map(|&f| [nextafter(f), spacing(f)]).collect();
    v.push(i0(false));
    v.push(i0(true));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i0_host_matches_numpy() {
        // numpy.i0([0.0, 1.0, 5.0, 10.0])
        let want = [1.0, 1.2660658777520082, 27.239871823604442, 2815.716628466254];
        for (x, w) in [0.0, 1.0, 5.0, 10.0].into_iter().zip(want) {
            assert!((i0_host(x) - w).abs() <= 4.0 * f64::EPSILON * w, "i0({x}) = {}, want {w}", i0_host(x));
        }
    }
}
