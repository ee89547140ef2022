//! The built-in reductions as data: one [`BuiltinReduction`] per reduction in [`BUILTINS`] —
//! its name, its result dtype rule ([`OutRule`]) and how it accumulates ([`Accumulation`]) —
//! and [`BuiltinReduction::instantiate`], which writes the [`ReduceOp`] of one input dtype.
//!
//! The C fragments of each accumulation are written per dtype family ([`DTypeKind`]): bool,
//! signed and unsigned integers, floats (float16 and bfloat16 compute in float32), complex.
//! A family without a loop is refused ([`Error::UnsupportedDType`]).

use xp_backend_api::{DType, DTypeKind, Error, Result};

use super::ReduceOp;

/// Which element an order-based reduction keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefer {
    /// The smallest (`min`, `argmin`).
    Smaller,
    /// The largest (`max`, `argmax`).
    Larger,
}

impl Prefer {
    /// The C operator that is true when `b OP a` means `b` is preferred.
    fn op(self) -> &'static str {
        match self {
            Prefer::Smaller => "<",
            Prefer::Larger => ">",
        }
    }
}

/// How a built-in reduction accumulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accumulation {
    /// `sum`, `prod`: a fold with C operator `op` from `unit`; integers in 64 bits (signed
    /// ones wrapping), floats in their compute type.
    Fold {
        /// `'+'` or `'*'`.
        op: char,
        /// The identity of `op`.
        unit: u8,
    },
    /// `mean`: a sum divided by the count.
    Mean,
    /// `var`, and `std` (`sqrt`): Chan et al.'s merge of Welford's running moments, `ddof`
    /// subtracted from the count.
    Moments {
        /// Take the square root of the variance.
        sqrt: bool,
    },
    /// `min`, `max`: NaN propagates.
    Extreme(Prefer),
    /// `argmin`, `argmax`: a value and its index; the first index among ties, and the first
    /// NaN.
    Arg(Prefer),
    /// `any` (`||` from false), `all` (`&&` from true) of the elements' truth values.
    Logical {
        /// `any` rather than `all`.
        any: bool,
    },
}

/// The result dtype of a built-in reduction, from the input's (NumPy 2's rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutRule {
    /// int64 for bool and signed integers, uint64 for unsigned ones, the input's otherwise
    /// (`sum`, `prod`).
    Widened,
    /// float64 for bool and integers, the input's otherwise (`mean`).
    Float,
    /// float64 for bool and integers, the real dtype of complex, the input's otherwise
    /// (`var`, `std`).
    Real,
    /// The input's (`min`, `max`).
    Input,
    /// int64 (`argmin`, `argmax`).
    Index,
    /// bool (`any`, `all`).
    Bool,
}

impl OutRule {
    /// The result dtype for input dtype `input`.
    pub fn dtype(self, input: DType) -> DType {
        let int = input == DType::Bool || input.is_integer();
        match self {
            OutRule::Widened if input == DType::Bool || input.is_signed_integer() => DType::I64,
            OutRule::Widened if input.is_unsigned_integer() => DType::U64,
            OutRule::Float | OutRule::Real if int => DType::F64,
            OutRule::Real if input == DType::C64 => DType::F32,
            OutRule::Real if input == DType::C128 => DType::F64,
            OutRule::Widened | OutRule::Float | OutRule::Real | OutRule::Input => input,
            OutRule::Index => DType::I64,
            OutRule::Bool => DType::Bool,
        }
    }
}

/// One built-in reduction, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinReduction {
    /// NumPy's name (`sum`).
    pub name: &'static str,
    /// The result dtype.
    pub out: OutRule,
    /// How elements are accumulated.
    pub accumulation: Accumulation,
    /// The input families whose GPU plans fold in order ([`ReduceOp::in_order`]).
    pub in_order: &'static [DTypeKind],
}

const fn reduction(name: &'static str, out: OutRule, accumulation: Accumulation) -> BuiltinReduction {
    BuiltinReduction { name, out, accumulation, in_order: &[] }
}

/// Every built-in reduction.
pub const BUILTINS: [BuiltinReduction; 11] = [
    reduction("sum", OutRule::Widened, Accumulation::Fold { op: '+', unit: 0 }),
    // Complex products: where infinities and NaNs appear after an overflow depends on the
    // order of the multiplications, and NumPy multiplies in order.
    BuiltinReduction {
        in_order: &[DTypeKind::Complex],
        ..reduction("prod", OutRule::Widened, Accumulation::Fold { op: '*', unit: 1 })
    },
    reduction("mean", OutRule::Float, Accumulation::Mean),
    reduction("var", OutRule::Real, Accumulation::Moments { sqrt: false }),
    reduction("std", OutRule::Real, Accumulation::Moments { sqrt: true }),
    reduction("min", OutRule::Input, Accumulation::Extreme(Prefer::Smaller)),
    reduction("max", OutRule::Input, Accumulation::Extreme(Prefer::Larger)),
    reduction("argmin", OutRule::Index, Accumulation::Arg(Prefer::Smaller)),
    reduction("argmax", OutRule::Index, Accumulation::Arg(Prefer::Larger)),
    reduction("any", OutRule::Bool, Accumulation::Logical { any: true }),
    reduction("all", OutRule::Bool, Accumulation::Logical { any: false }),
];

/// The names of the built-in reductions (of [`BUILTINS`], in order).
pub const BUILTIN_REDUCTIONS: [&str; BUILTINS.len()] = {
    let mut names = [""; BUILTINS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = BUILTINS[i].name;
        i += 1;
    }
    names
};

/// The C fragments of one reduction for one input dtype (see [`ReduceOp`]).
struct Fragments {
    acc_type: String,
    /// `sizeof(acc_type)`.
    acc_size: usize,
    preamble: String,
    map: String,
    combine: String,
    post: String,
    identity: String,
}

impl Fragments {
    /// An accumulator of C type `acc_type` (`acc_size` bytes), elements taken as they are and
    /// stored as they are.
    fn new(acc_type: impl Into<String>, acc_size: usize) -> Self {
        Fragments {
            acc_type: acc_type.into(),
            acc_size,
            preamble: String::new(),
            map: "in0".into(),
            combine: String::new(),
            post: "out0 = a;".into(),
            identity: String::new(),
        }
    }
}

impl BuiltinReduction {
    /// This reduction for input dtype `input` (`ddof` is `var`'s and `std`'s, ignored by the
    /// others); an error when it has no loop for `input`.
    pub fn instantiate(&self, input: DType, ddof: i64) -> Result<ReduceOp> {
        let out = self.out.dtype(input);
        let f = match self.accumulation {
            Accumulation::Fold { op, unit } => Some(fold(op, unit, input)),
            Accumulation::Mean => Some(mean(input)),
            Accumulation::Moments { sqrt } => Some(moments(sqrt, input, out)),
            Accumulation::Extreme(p) => extreme(p, input),
            Accumulation::Arg(p) => Some(arg(p, input)),
            Accumulation::Logical { any } => Some(logical(any)),
        };
        let f = f.ok_or_else(|| Error::UnsupportedDType {
            op: self.name.to_string(),
            dtypes: vec![input],
            detail: format!("no loop of `{}` takes {input} input", self.name),
        })?;
        Ok(ReduceOp {
            name: self.name.to_string(),
            in_type: input,
            acc_type: f.acc_type,
            acc_size: f.acc_size,
            out_type: out,
            preamble: f.preamble,
            map: f.map,
            combine: f.combine,
            post: f.post,
            identity: f.identity,
            ddof,
            in_order: self.in_order.contains(&input.kind()),
        })
    }
}

/// The built-in reduction `name` (one of [`BUILTIN_REDUCTIONS`]) for input dtype `input`,
/// with NumPy 2's result dtypes: `sum`/`prod` of bool and signed integers give int64, of
/// unsigned integers uint64, of floats and complex their own dtype (float16 and bfloat16
/// accumulate in float32); `mean` of bool and integers gives float64; `var`/`std` (`ddof`
/// subtracted from the count) of complex input give the real dtype; `min`/`max` propagate
/// NaN and have no complex loop; `argmin`/`argmax` give int64, the first index among ties
/// and the first NaN; `any`/`all` give bool.
pub fn builtin_reduce(name: &str, input: DType, ddof: i64) -> Result<ReduceOp> {
    let r = BUILTINS.iter().find(|r| r.name == name).ok_or_else(|| {
        Error::value("reduce", format!("no built-in reduction `{name}` (known: {})", BUILTIN_REDUCTIONS.join(", ")))
    })?;
    r.instantiate(input, ddof)
}

/// The dtype computations on `d` happen in: float32 for float16/bfloat16/float32, the dtype
/// itself otherwise.
fn compute(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 | DType::F32 => DType::F32,
        _ => d,
    }
}

fn int_limits(d: DType) -> (&'static str, &'static str) {
    match d {
        DType::I8 => ("(xp::i8)(-128)", "(xp::i8)127"),
        DType::I16 => ("(xp::i16)(-32768)", "(xp::i16)32767"),
        DType::I32 => ("(xp::i32)(-2147483647 - 1)", "(xp::i32)2147483647"),
        DType::I64 => ("(xp::i64)(-9223372036854775807LL - 1)", "(xp::i64)9223372036854775807LL"),
        DType::U8 => ("(xp::u8)0", "(xp::u8)255"),
        DType::U16 => ("(xp::u16)0", "(xp::u16)65535"),
        DType::U32 => ("(xp::u32)0", "(xp::u32)4294967295u"),
        DType::U64 => ("(xp::u64)0", "(xp::u64)18446744073709551615ull"),
        _ => unreachable!("integer dtypes only"),
    }
}

fn guarded(tag: &str, body: &str) -> String {
    format!("#ifndef XP_RED_{tag}\n#define XP_RED_{tag} 1\n{body}#endif\n")
}

/// `sum`, `prod`.
fn fold(op: char, unit: u8, input: DType) -> Fragments {
    let mut f = match input.kind() {
        DTypeKind::Bool | DTypeKind::Signed => {
            let mut f = Fragments::new("xp::i64", 8);
            f.map = "(xp::i64)in0".into();
            f.combine = format!("a = (xp::i64)((xp::u64)a {op} (xp::u64)b);");
            f
        }
        DTypeKind::Unsigned => {
            let mut f = Fragments::new("xp::u64", 8);
            f.map = "(xp::u64)in0".into();
            f.combine = format!("a = a {op} b;");
            f
        }
        DTypeKind::Float | DTypeKind::Complex => {
            let acc = compute(input);
            let mut f = Fragments::new(acc.c_name(), acc.size());
            f.map = format!("({})in0", f.acc_type);
            f.combine = format!("a = a {op} b;");
            f.post = format!("out0 = {}(a);", input.c_name());
            f
        }
    };
    f.identity =
        if input.is_complex() { format!("{}({unit}, 0)", f.acc_type) } else { format!("({})({unit})", f.acc_type) };
    f
}

/// `mean`.
fn mean(input: DType) -> Fragments {
    let c = input.c_name();
    let mut f = match input.kind() {
        DTypeKind::Bool | DTypeKind::Signed | DTypeKind::Unsigned => {
            let mut f = Fragments::new("double", 8);
            f.post = "out0 = a / (double)_n;".into();
            f
        }
        DTypeKind::Complex => {
            let r = if input == DType::C64 { "float" } else { "double" };
            let mut f = Fragments::new(c, input.size());
            f.post = format!("out0 = {c}(a.re / ({r})_n, a.im / ({r})_n);");
            f
        }
        DTypeKind::Float => {
            let acc = compute(input);
            let mut f = Fragments::new(acc.c_name(), acc.size());
            f.post = format!("out0 = {c}(a / ({})_n);", f.acc_type);
            f
        }
    };
    f.map = format!("({})in0", f.acc_type);
    f.combine = "a = a + b;".into();
    f.identity = if input.is_complex() { format!("{}(0, 0)", f.acc_type) } else { format!("({})0", f.acc_type) };
    f
}

/// `var`, `std`: moments in the real compute type of the result `out`.
fn moments(sqrt: bool, input: DType, out: DType) -> Fragments {
    let real = compute(out);
    let r = real.c_name();
    let complex = input.is_complex();
    let (ty, preamble) = welford_preamble(r, complex);
    let mut f = Fragments::new(ty.clone(), 4 * real.size());
    f.preamble = preamble;
    f.map = if complex {
        format!("{ty}{{({r})1, ({r})in0.re, ({r})in0.im, ({r})0}}")
    } else {
        format!("{ty}{{({r})1, ({r})in0, ({r})0, ({r})0}}")
    };
    f.identity = format!("{ty}{{({r})0, ({r})0, ({r})0, ({r})0}}");
    f.combine = "xp_merge(a, b);".into();
    let m2 = if complex { "a.m2" } else { "xp_m2(a)" };
    let value = if sqrt { format!("xp::sqrt({m2} / d_)") } else { format!("{m2} / d_") };
    f.post = format!("{r} d_ = ({r})(_n - _ddof); if (d_ < ({r})0) d_ = ({r})0; out0 = {}({value});", out.c_name());
    f
}

/// The accumulator of `var`/`std`: count, mean, sum of squared deviations (Chan et al.'s
/// merge of Welford's running moments), for real type `r`, or for complex values with real
/// parts of type `r` (`m2` sums |x - mean|^2).
fn welford_preamble(r: &str, complex: bool) -> (String, String) {
    let tag = if complex { format!("welford_c{r}") } else { format!("welford_{r}") };
    let ty = format!("xp_{tag}");
    let body = if complex {
        format!(
            "struct {ty} {{ {r} n, re, im, m2; }};\n\
             XP_DEVICE void xp_merge({ty}& a, const {ty}& b) {{\n\
             \x20 if (b.n == ({r})0) return;\n\
             \x20 if (a.n == ({r})0) {{ a = b; return; }}\n\
             \x20 const {r} n = a.n + b.n, f = b.n / n, dr = b.re - a.re, di = b.im - a.im;\n\
             \x20 a.re += dr * f; a.im += di * f; a.m2 += b.m2 + (dr * dr + di * di) * a.n * f; a.n = n;\n}}\n"
        )
    } else {
        // Sums relative to a shift `k` (the first element seen): one element joins with two
        // multiply-adds and no division; accumulators of several elements merge by Chan's rule.
        format!(
            "struct {ty} {{ {r} n, k, s1, s2; }};\n\
             XP_DEVICE {r} xp_m2(const {ty}& a) {{ return a.n > ({r})0 ? a.s2 - a.s1 * (a.s1 / a.n) : ({r})0; }}\n\
             XP_DEVICE void xp_merge({ty}& a, const {ty}& b) {{\n\
             \x20 if (b.n == ({r})0) return;\n\
             \x20 if (a.n == ({r})0) {{ a = b; return; }}\n\
             \x20 if (b.n == ({r})1) {{ const {r} d = b.k + b.s1 - a.k; a.s1 += d; a.s2 += d * d; a.n += ({r})1; return; }}\n\
             \x20 const {r} ma = a.k + a.s1 / a.n, mb = b.k + b.s1 / b.n;\n\
             \x20 const {r} n = a.n + b.n, f = b.n / n, d = mb - ma;\n\
             \x20 const {r} m2 = xp_m2(a) + xp_m2(b) + d * d * a.n * f;\n\
             \x20 a.n = n; a.k = ma + d * f; a.s1 = ({r})0; a.s2 = m2;\n}}\n"
        )
    };
    (ty, guarded(&tag, &body))
}

/// `min`, `max`, per dtype family; `None` for a family without a loop.
fn extreme(prefer: Prefer, input: DType) -> Option<Fragments> {
    let lt = prefer.op();
    let min = prefer == Prefer::Smaller;
    let f = match input.kind() {
        DTypeKind::Bool => {
            let mut f = Fragments::new("bool", 1);
            f.combine = if min { "a = a && b;" } else { "a = a || b;" }.into();
            f.identity = if min { "true" } else { "false" }.into();
            f
        }
        DTypeKind::Signed | DTypeKind::Unsigned => {
            let mut f = Fragments::new(input.c_name(), input.size());
            f.combine = format!("if (b {lt} a) a = b;");
            let (lo, hi) = int_limits(input);
            f.identity = if min { hi } else { lo }.into();
            f
        }
        DTypeKind::Float => {
            let acc = compute(input);
            let c = acc.c_name();
            let mut f = Fragments::new(c, acc.size());
            f.map = format!("({c})in0");
            // NaN propagates: once `a` is NaN it stays; a NaN `b` replaces `a`.
            f.combine = format!("if (!(a != a) && ((b != b) || b {lt} a)) a = b;");
            let inf = if acc == DType::F32 { "xp::inf_f32()" } else { "xp::inf_f64()" };
            f.identity = if min { inf.to_string() } else { format!("(-{inf})") };
            f.post = format!("out0 = {}(a);", input.c_name());
            f
        }
        // NumPy orders complex numbers lexicographically and returns the first NaN: the
        // argmin/argmax accumulator keeps that element (ties and NaNs go to the smaller index,
        // whatever order partial results meet in), and its value is the answer.
        DTypeKind::Complex => {
            let mut f = arg(prefer, input);
            f.post = "out0 = a.v;".into();
            f
        }
    };
    Some(f)
}

/// `argmin`, `argmax`: the accumulator is a value of the compute type and its index (-1:
/// none yet); the comparisons are per dtype family.
fn arg(prefer: Prefer, input: DType) -> Fragments {
    let lt = prefer.op();
    let value = compute(input);
    let v = value.c_name();
    let tag = format!("arg_{}", v.replace("xp::", ""));
    let ty = format!("xp_{tag}");
    // struct { V v; i64 i; }: the value padded to 8 bytes, then the index.
    let mut f = Fragments::new(ty.clone(), value.size().div_ceil(8) * 8 + 8);
    f.preamble = guarded(&tag, &format!("struct {ty} {{ {v} v; xp::i64 i; }};\n"));
    f.map = format!("{ty}{{({v})in0, _j}}");
    f.identity = format!("{ty}{{{v}(0), (xp::i64)-1}}");
    f.post = "out0 = a.i;".into();
    // Whether `x` is NaN; whether `b` is preferred to `a`; whether they are equal.
    let (nan, better, eq) = match input.kind() {
        DTypeKind::Complex => (
            "(x.v.re != x.v.re || x.v.im != x.v.im)".to_string(),
            format!("(b.v.re {lt} a.v.re || (b.v.re == a.v.re && b.v.im {lt} a.v.im))"),
            "(b.v.re == a.v.re && b.v.im == a.v.im)".to_string(),
        ),
        DTypeKind::Float => ("(x.v != x.v)".to_string(), format!("(b.v {lt} a.v)"), "(b.v == a.v)".to_string()),
        DTypeKind::Bool | DTypeKind::Signed | DTypeKind::Unsigned => {
            ("false".to_string(), format!("(b.v {lt} a.v)"), "(b.v == a.v)".to_string())
        }
    };
    let an = nan.replace("x.", "a.");
    let bn = nan.replace("x.", "b.");
    // The smaller index wins ties, whatever order accumulators meet in; so does the first NaN
    // (which beats every number).
    f.combine = format!(
        "if (b.i >= 0) {{ if (a.i < 0) {{ a = b; }} else {{ const bool an_ = {an}, bn_ = {bn}; \
         if (an_) {{ if (bn_ && b.i < a.i) a = b; }} \
         else if (bn_ || {better} || ({eq} && b.i < a.i)) {{ a = b; }} }} }}"
    );
    f
}

/// `any`, `all`.
fn logical(any: bool) -> Fragments {
    let mut f = Fragments::new("bool", 1);
    f.map = "xp::cast<bool>(in0)".into();
    f.combine = if any { "a = a || b;" } else { "a = a && b;" }.into();
    f.identity = if any { "false" } else { "true" }.into();
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(name: &str, d: DType) -> ReduceOp {
        builtin_reduce(name, d, 0).unwrap()
    }

    #[test]
    fn names_follow_the_table() {
        assert_eq!(
            BUILTIN_REDUCTIONS,
            ["sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "any", "all"]
        );
        let e = builtin_reduce("median", DType::F32, 0).unwrap_err().to_string();
        assert!(e.contains("median") && e.contains("sum, prod"), "{e}");
        assert!(op("prod", DType::C64).in_order && !op("prod", DType::F64).in_order && !op("sum", DType::C64).in_order);
    }

    #[test]
    fn accumulator_sizes_are_their_c_types() {
        assert_eq!(op("sum", DType::I8).acc_size, 8);
        assert_eq!(op("sum", DType::F16).acc_size, 4);
        assert_eq!(op("prod", DType::C128).acc_size, 16);
        assert_eq!(op("mean", DType::C64).acc_size, 8);
        assert_eq!(op("var", DType::I32).acc_size, 32);
        assert_eq!(op("std", DType::C64).acc_size, 16);
        assert_eq!(op("min", DType::U16).acc_size, 2);
        assert_eq!(op("max", DType::BF16).acc_size, 4);
        assert_eq!(op("argmax", DType::Bool).acc_size, 16);
        assert_eq!(op("argmin", DType::C128).acc_size, 24);
        assert_eq!(op("all", DType::F64).acc_size, 1);
    }

    #[test]
    fn result_dtypes_follow_numpy() {
        assert_eq!(op("sum", DType::I8).out_type, DType::I64);
        assert_eq!(op("sum", DType::Bool).out_type, DType::I64);
        assert_eq!(op("prod", DType::U16).out_type, DType::U64);
        assert_eq!(op("sum", DType::F16).out_type, DType::F16);
        assert_eq!(op("sum", DType::F16).acc_type, "float");
        assert_eq!(op("mean", DType::I32).out_type, DType::F64);
        assert_eq!(op("mean", DType::F16).out_type, DType::F16);
        assert_eq!(op("var", DType::C64).out_type, DType::F32);
        assert_eq!(op("std", DType::C128).out_type, DType::F64);
        assert_eq!(op("argmax", DType::F32).out_type, DType::I64);
        assert_eq!(op("any", DType::C64).out_type, DType::Bool);
        assert_eq!(op("max", DType::C64).out_type, DType::C64);
        assert!(op("min", DType::C128).uses_index());
        assert!(builtin_reduce("median", DType::F32, 0).is_err());
        assert!(op("argmin", DType::F32).uses_index());
        assert!(!op("sum", DType::F32).uses_index());
    }
}
