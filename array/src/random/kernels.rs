//! The kernels of the distributions drawn one element at a time (`dist.h`): each element `i`
//! of a draw takes the Philox blocks `(base + i, j = 0, 1, …)` of its generator as its own
//! stream of words, as the engine's draws by rejection do, so that its value depends only on
//! the key, the counter and its index.

use xp_backend_api::DType;
use xp_kernels::plan::{plan_flat, PlanArg, PlannedLaunch, Target};
use xp_kernels::random::{self as kr, engine_source, Draw};
use xp_kernels::render::Rendered;

/// The device code of the distributions (after the engine's header).
const DIST: &str = include_str!("dist.h");

/// A distribution of `dist.h` with up to three scalar parameters `a`, `b`, `c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dist {
    StandardCauchy,
    StandardT,
    Chisquare,
    NoncentralChisquare,
    F,
    NoncentralF,
    Lognormal,
    Laplace,
    Logistic,
    Gumbel,
    Weibull,
    Pareto,
    Power,
    Rayleigh,
    Vonmises,
    Wald,
    Triangular,
    Geometric,
    NegativeBinomial,
    Logseries,
    Zipf,
    Hypergeometric,
}

impl Dist {
    fn tag_expr(self) -> (&'static str, &'static str) {
        use Dist::*;
        match self {
            StandardCauchy => ("cauchy", "xp::rng::cauchy(s)"),
            StandardT => ("t", "xp::rng::student_t_dc(s, a, b, c)"),
            Chisquare => ("chisquare", "xp::rng::M(2.0, xp::rng::gamma_dc(s, xp::rng::M(0.5, a), b, c))"),
            NoncentralChisquare => ("ncchisquare", "xp::rng::ncchisq(s, a, b)"),
            F => ("f", "[&]() { const double x = xp::rng::chisq(s, a) / a; return x / (xp::rng::chisq(s, b) / b); }()"),
            NoncentralF => (
                "ncf",
                "[&]() { const double t = xp::rng::M(xp::rng::ncchisq(s, a, c), b); return t / xp::rng::M(xp::rng::chisq(s, b), a); }()",
            ),
            Lognormal => ("lognormal", "xp::rng::exs(xp::rng::F(b, s.normal(), a))"),
            Laplace => ("laplace", "xp::rng::laplace(s, a, b)"),
            Logistic => ("logistic", "xp::rng::logistic(s, a, b)"),
            Gumbel => ("gumbel", "xp::rng::gumbel(s, a, b)"),
            Weibull => ("weibull", "xp::rng::weibull(s, a)"),
            Pareto => ("pareto", "xp::rng::pareto(s, a)"),
            Power => ("power", "xp::rng::power(s, a)"),
            Rayleigh => ("rayleigh", "xp::rng::rayleigh(s, a)"),
            Vonmises => ("vonmises", "xp::rng::vonmises(s, a, b)"),
            Wald => ("wald", "xp::rng::wald(s, a, b)"),
            Triangular => ("triangular", "xp::rng::triangular(s, a, b, c)"),
            Geometric => ("geometric", "xp::rng::geometric(s, a, b)"),
            NegativeBinomial => ("negative_binomial", "xp::rng::negative_binomial(s, a, b)"),
            Logseries => ("logseries", "xp::rng::logseries(s, a, b)"),
            Zipf => ("zipf", "xp::rng::zipf(s, a)"),
            Hypergeometric => ("hypergeometric", "xp::rng::hypergeometric(s, (xp::i64)a, (xp::i64)b, (xp::i64)c)"),
        }
    }
}

fn ctype(dtype: DType) -> (&'static str, &'static str) {
    match dtype {
        DType::F32 => ("float", "f32"),
        DType::I64 => ("xp::i64", "i64"),
        _ => ("double", "f64"),
    }
}

fn code(body: String) -> String {
    format!("\n{}\n{DIST}\n{body}", engine_source())
}

/// The kernel of `dist` into `dtype` (float32, float64 or int64).
///
/// Parameters: `T* out, xp::i64 n, xp::u64 base, xp::i32 stream`, the 20 round keys
/// (`xp_kernels::random::key_params`), `double a, double b, double c`.
pub(crate) fn dist_kernel(dist: Dist, dtype: DType) -> Rendered {
    let (tag, expr) = dist.tag_expr();
    // Float32 Student's t and chi-square draw their gamma variates in float (`gamma_dc_f`).
    let expr = match (dist, dtype) {
        (Dist::StandardT, DType::F32) => "xp::rng::student_t_dc_f(s, a, (float)b, (float)c)",
        (Dist::Chisquare, DType::F32) => {
            "xp::rng::Mf(2.0f, xp::rng::gamma_dc_f(s, xp::rng::M(0.5, a), (float)b, (float)c))"
        }
        _ => expr,
    };
    let (t, suffix) = ctype(dtype);
    let name = format!("xp_rngd_{tag}_{suffix}");
    let (keys, key_array) = (kr::key_params(), kr::key_array());
    let body = format!(
        "extern \"C\" __global__ void {name}({t}* __restrict__ out, xp::i64 n, xp::u64 base, xp::i32 stream, {keys}, double a, double b, double c) {{
  (void)a; (void)b; (void)c;
  {key_array}
  XP_FOR_EACH(xp::i64, i, n) {{
    xp::rng::Stream s = xp::rng::stream_of(base + (xp::u64)i, (xp::u32)stream, ks, 0u);
    out[i] = ({t})({expr});
  }}
}}
"
    );
    Rendered { name, code: code(body) }
}

fn head(n: usize, draw: Draw) -> Vec<PlanArg> {
    vec![PlanArg::Output, PlanArg::I64(n as i64), PlanArg::I64(draw.base as i64), PlanArg::I32(draw.stream as i32)]
        .into_iter()
        .chain(kr::key_schedule(draw.key).into_iter().map(|k| PlanArg::I32(k as i32)))
        .collect()
}

/// Doubles as kernel arguments (bit patterns).
fn f64_arg(x: f64) -> PlanArg {
    PlanArg::I64(x.to_bits() as i64)
}

/// The launch of `n` draws of `dist` (one stream per element, `n` blocks of the generator).
pub(crate) fn plan_dist(dist: Dist, dtype: DType, n: usize, draw: Draw, p: [f64; 3], target: Target) -> PlannedLaunch {
    let mut args = head(n, draw);
    args.extend(p.iter().map(|&x| f64_arg(x)));
    PlannedLaunch { kernel: dist_kernel(dist, dtype), config: plan_flat(n, target), args }
}

/// The vector distributions: `n` rows of `k` values each, from a row of `k` parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vector {
    /// Multinomial counts (int64) of `trials` trials with probabilities `p` (conditional
    /// binomials: category `j` a binomial of the trials left and `p_j` over the probability
    /// left; the last category takes the rest).
    Multinomial,
    /// Dirichlet (float64) of concentrations `p`: independent gammas, normalised by their sum.
    Dirichlet,
}

/// The kernel of a vector distribution.
///
/// Parameters: `T* out, xp::i64 n, xp::u64 base, xp::i32 stream`, the 20 round keys,
/// `const double* p, xp::i64 k, xp::i64 trials`.
pub(crate) fn vector_kernel(kind: Vector) -> Rendered {
    let (name, t, body) = match kind {
        Vector::Multinomial => (
            "xp_rngd_multinomial",
            "xp::i64",
            "xp::i64 left = trials;
    double rest = 1.0;
    for (xp::i64 j = 0; j + 1 < k; ++j) {
      xp::i64 x = 0;
      if (left > 0 && rest > 0.0) {
        const double q = p[j] / rest;
        x = xp::rng::binomial(s, left, q > 1.0 ? 1.0 : q);
      }
      o[j] = x;
      left -= x;
      rest -= p[j];
    }
    o[k - 1] = left;",
        ),
        Vector::Dirichlet => (
            "xp_rngd_dirichlet",
            "double",
            "double sum = 0.0;
    for (xp::i64 j = 0; j < k; ++j) {
      o[j] = xp::rng::gamma1(s, p[j]);
      sum += o[j];
    }
    for (xp::i64 j = 0; j < k; ++j) o[j] = o[j] / sum;
    (void)trials;",
        ),
    };
    let (keys, key_array) = (kr::key_params(), kr::key_array());
    let body = format!(
        "extern \"C\" __global__ void {name}({t}* __restrict__ out, xp::i64 n, xp::u64 base, xp::i32 stream, {keys}, const double* __restrict__ p, xp::i64 k, xp::i64 trials) {{
  {key_array}
  XP_FOR_EACH(xp::i64, i, n) {{
    xp::rng::Stream s = xp::rng::stream_of(base + (xp::u64)i, (xp::u32)stream, ks, 0u);
    {t}* o = out + i * k;
    {body}
  }}
}}
"
    );
    Rendered { name: name.to_string(), code: code(body) }
}

/// The launch of `n` rows of a vector distribution over the `k` parameters bound as operand 0.
pub(crate) fn plan_vector(kind: Vector, n: usize, k: usize, trials: i64, draw: Draw, target: Target) -> PlannedLaunch {
    let mut args = head(n, draw);
    args.extend([PlanArg::Operand(0), PlanArg::I64(k as i64), PlanArg::I64(trials)]);
    PlannedLaunch { kernel: vector_kernel(kind), config: plan_flat(n, target), args }
}

/// Every kernel of this file, in each dtype it is launched with.
pub(crate) fn all() -> Vec<Rendered> {
    use Dist::*;
    let mut v = Vec::new();
    for d in [
        StandardCauchy,
        StandardT,
        Chisquare,
        NoncentralChisquare,
        F,
        NoncentralF,
        Lognormal,
        Laplace,
        Logistic,
        Gumbel,
        Weibull,
        Pareto,
        Power,
        Rayleigh,
        Vonmises,
        Wald,
        Triangular,
    ] {
        v.push(dist_kernel(d, DType::F32));
        v.push(dist_kernel(d, DType::F64));
    }
    for d in [Geometric, NegativeBinomial, Logseries, Zipf, Hypergeometric] {
        v.push(dist_kernel(d, DType::I64));
    }
    v.push(vector_kernel(Vector::Multinomial));
    v.push(vector_kernel(Vector::Dirichlet));
    v
}
