//! SciPy's elementwise special functions (`scipy.special`): ops of the same table as NumPy's
//! ufuncs, so every backend runs them and lazy fusion fuses them.
//!
//! Each op keeps SciPy's name and SciPy's type loops in SciPy's order (NumPy's resolution picks
//! a loop of the inputs' exact dtypes first, else the first loop they cast to safely): so float32
//! stays float32 and integers go to float64 where SciPy's first loop is `d->d` (`erf`, `expit`,
//! `xlogy`), or to float32 when they fit and SciPy lists `f->f` first (`entr`, `erfinv`,
//! `boxcox`). SciPy's complex loops are absent: a complex argument is a `DType` error.
//!
//! The numerics are in `kernels/include/xp_special*.h`, one double-precision function per SciPy
//! function; the float32 loops compute in double and round once. Each family has its own header
//! (the op's preamble is only what it needs, so a kernel parses only its family): the base
//! `xp_special.h` (logistic, entropy, Huber, Box-Cox, error functions), `xp_special_gamma.h`
//! (gamma family, zeta, beta), `xp_special_incomplete.h` (incomplete gamma and beta, their
//! inverses, the distributions), `xp_special_bessel.h` and `xp_special_expint.h` (exponential
//! integrals, Lambert W, elliptic functions). Each header's opening comment names the
//! algorithm of each function.
//!
//! Integer arguments follow SciPy's loops: `yn`, `expn`, `pdtri` list `ld->d` first, `bdtr`…
//! `dld->d` after `fff->f`, `nbdtr`… `lld->d` first, so int64 orders beside float64 take the
//! integer loop, float32 beside float32 the float32 loop. SciPy's Python-level functions are
//! ops under SciPy's internal ufunc names where the public name takes other arguments
//! (`_riemann_zeta` and `_zeta` behind `zeta(x[, q])`), and `ellipj`'s four outputs are four
//! ops (`ellipj_sn`, `ellipj_cn`, `ellipj_dn`, `ellipj_ph`).

use super::{ElementwiseOp, TypeLoop};

/// The helpers of every op here, emitted once per kernel (include guard).
pub const PREAMBLE: &str = concat!("\n", include_str!("../../include/xp_special.h"));

/// The gamma family, zeta and beta (`xp_special_gamma.h` after the base header).
pub const PREAMBLE_GAMMA: &str =
    concat!("\n", include_str!("../../include/xp_special.h"), "\n", include_str!("../../include/xp_special_gamma.h"));
/// Incomplete gamma and beta functions and the distributions.
pub const PREAMBLE_INCOMPLETE: &str = concat!(
    "\n",
    include_str!("../../include/xp_special.h"),
    "\n",
    include_str!("../../include/xp_special_gamma.h"),
    "\n",
    include_str!("../../include/xp_special_incomplete.h")
);
/// Bessel functions.
pub const PREAMBLE_BESSEL: &str = concat!(
    "\n",
    include_str!("../../include/xp_special.h"),
    "\n",
    include_str!("../../include/xp_special_gamma.h"),
    "\n",
    include_str!("../../include/xp_special_bessel.h")
);
/// Exponential integrals, Lambert W, elliptic functions.
pub const PREAMBLE_EXPINT: &str = concat!(
    "\n",
    include_str!("../../include/xp_special.h"),
    "\n",
    include_str!("../../include/xp_special_gamma.h"),
    "\n",
    include_str!("../../include/xp_special_expint.h")
);

/// `d->d` then `f->f`, each calling `xp::sp::NAME` (float32 through double).
macro_rules! unary_df {
    ($name:literal) => {
        &[
            TypeLoop { sig: "d->d", body: Some(concat!("out0 = xp::sp::", $name, "(in0);")), fast: None },
            TypeLoop {
                sig: "f->f",
                body: Some(concat!("out0 = (float)xp::sp::", $name, "((double)in0);")),
                fast: None,
            },
        ]
    };
}
/// `f->f` then `d->d`.
macro_rules! unary_fd {
    ($name:literal) => {
        &[
            TypeLoop {
                sig: "f->f",
                body: Some(concat!("out0 = (float)xp::sp::", $name, "((double)in0);")),
                fast: None,
            },
            TypeLoop { sig: "d->d", body: Some(concat!("out0 = xp::sp::", $name, "(in0);")), fast: None },
        ]
    };
}
/// `dd->d` then `ff->f`.
macro_rules! binary_df {
    ($name:literal) => {
        &[
            TypeLoop { sig: "dd->d", body: Some(concat!("out0 = xp::sp::", $name, "(in0, in1);")), fast: None },
            TypeLoop {
                sig: "ff->f",
                body: Some(concat!("out0 = (float)xp::sp::", $name, "((double)in0, (double)in1);")),
                fast: None,
            },
        ]
    };
}
/// `ff->f` then `dd->d`.
macro_rules! binary_fd {
    ($name:literal) => {
        &[
            TypeLoop {
                sig: "ff->f",
                body: Some(concat!("out0 = (float)xp::sp::", $name, "((double)in0, (double)in1);")),
                fast: None,
            },
            TypeLoop { sig: "dd->d", body: Some(concat!("out0 = xp::sp::", $name, "(in0, in1);")), fast: None },
        ]
    };
}

/// `fff->f` then `ddd->d`.
macro_rules! ternary_fd {
    ($name:literal) => {
        &[
            TypeLoop {
                sig: "fff->f",
                body: Some(concat!("out0 = (float)xp::sp::", $name, "((double)in0, (double)in1, (double)in2);")),
                fast: None,
            },
            TypeLoop { sig: "ddd->d", body: Some(concat!("out0 = xp::sp::", $name, "(in0, in1, in2);")), fast: None },
        ]
    };
}
/// `ld->d` (an int64 first argument), `ff->f`, `dd->d`.
macro_rules! int_first_2 {
    ($name:literal) => {
        &[
            TypeLoop { sig: "ld->d", body: Some(concat!("out0 = xp::sp::", $name, "((double)in0, in1);")), fast: None },
            TypeLoop {
                sig: "ff->f",
                body: Some(concat!("out0 = (float)xp::sp::", $name, "((double)in0, (double)in1);")),
                fast: None,
            },
            TypeLoop { sig: "dd->d", body: Some(concat!("out0 = xp::sp::", $name, "(in0, in1);")), fast: None },
        ]
    };
}
/// `fff->f`, `dld->d` (an int64 second argument), `ddd->d`.
macro_rules! int_second_3 {
    ($name:literal) => {
        &[
            TypeLoop {
                sig: "fff->f",
                body: Some(concat!("out0 = (float)xp::sp::", $name, "((double)in0, (double)in1, (double)in2);")),
                fast: None,
            },
            TypeLoop {
                sig: "dld->d",
                body: Some(concat!("out0 = xp::sp::", $name, "(in0, (double)in1, in2);")),
                fast: None,
            },
            TypeLoop { sig: "ddd->d", body: Some(concat!("out0 = xp::sp::", $name, "(in0, in1, in2);")), fast: None },
        ]
    };
}
/// `lld->d` (two int64 arguments), `fff->f`, `ddd->d`.
macro_rules! int_two_3 {
    ($name:literal) => {
        &[
            TypeLoop {
                sig: "lld->d",
                body: Some(concat!("out0 = xp::sp::", $name, "((double)in0, (double)in1, in2);")),
                fast: None,
            },
            TypeLoop {
                sig: "fff->f",
                body: Some(concat!("out0 = (float)xp::sp::", $name, "((double)in0, (double)in1, (double)in2);")),
                fast: None,
            },
            TypeLoop { sig: "ddd->d", body: Some(concat!("out0 = xp::sp::", $name, "(in0, in1, in2);")), fast: None },
        ]
    };
}

/// An op whose C++ helper (`xp::sp::FUNC`, in the loops) and preamble are named: SciPy's name,
/// the input count, the preamble, the loops.
macro_rules! sp_op {
    ($(#[$doc:meta])* $konst:ident, $name:literal, $nin:literal, $pre:ident, $loops:expr) => {
        $(#[$doc])*
        pub const $konst: ElementwiseOp =
            ElementwiseOp { name: $name, nin: $nin, nout: 1, loops: $loops, body: "", preamble: $pre };
    };
}

/// One op: SciPy's name, its loops (a macro above), the helper of the same name.
macro_rules! special_op {
    ($(#[$doc:meta])* $konst:ident, $name:literal, 1, $loops:ident) => {
        $(#[$doc])*
        pub const $konst: ElementwiseOp =
            ElementwiseOp { name: $name, nin: 1, nout: 1, loops: $loops!($name), body: "", preamble: PREAMBLE };
    };
    ($(#[$doc:meta])* $konst:ident, $name:literal, 2, $loops:ident) => {
        $(#[$doc])*
        pub const $konst: ElementwiseOp =
            ElementwiseOp { name: $name, nin: 2, nout: 1, loops: $loops!($name), body: "", preamble: PREAMBLE };
    };
}

special_op!(
    /// `expit(x) = 1 / (1 + exp(-x))`, the logistic sigmoid.
    EXPIT, "expit", 1, unary_df
);
special_op!(
    /// `logit(p) = log(p / (1 - p))` on `[0, 1]` (±inf at the ends, NaN outside).
    LOGIT, "logit", 1, unary_df
);
special_op!(
    /// `log_expit(x) = log(expit(x))`, without underflow for large negative `x`.
    LOG_EXPIT, "log_expit", 1, unary_df
);
special_op!(
    /// `xlogy(x, y) = x log(y)`, 0 where `x = 0` and `y` is not NaN.
    XLOGY, "xlogy", 2, binary_df
);
special_op!(
    /// `xlog1py(x, y) = x log1p(y)`, 0 where `x = 0` and `y` is not NaN.
    XLOG1PY, "xlog1py", 2, binary_df
);
special_op!(
    /// `entr(x) = -x log(x)` for `x > 0`, 0 at 0, -inf below.
    ENTR, "entr", 1, unary_fd
);
special_op!(
    /// `rel_entr(x, y) = x log(x / y)` for `x, y > 0`; 0 where `x = 0 <= y`; inf elsewhere.
    REL_ENTR, "rel_entr", 2, binary_fd
);
special_op!(
    /// `kl_div(x, y) = x log(x / y) - x + y` for `x, y > 0`; `y` where `x = 0 <= y`; inf elsewhere.
    KL_DIV, "kl_div", 2, binary_fd
);
special_op!(
    /// `huber(delta, r)`: `r²/2` where `|r| <= delta`, else `delta (|r| - delta/2)`; inf for
    /// `delta < 0`.
    HUBER, "huber", 2, binary_fd
);
special_op!(
    /// `pseudo_huber(delta, r) = delta² (sqrt(1 + (r/delta)²) - 1)`; 0 where `delta` or `r` is
    /// 0; inf for `delta < 0`.
    PSEUDO_HUBER, "pseudo_huber", 2, binary_fd
);
special_op!(
    /// `boxcox(x, lmbda) = (x^lmbda - 1) / lmbda`, `log(x)` for `lmbda = 0`.
    BOXCOX, "boxcox", 2, binary_fd
);
special_op!(
    /// `boxcox1p(x, lmbda) = ((1 + x)^lmbda - 1) / lmbda`, `log1p(x)` for `lmbda = 0`.
    BOXCOX1P, "boxcox1p", 2, binary_fd
);
special_op!(
    /// `inv_boxcox(y, lmbda) = (1 + lmbda y)^(1/lmbda)`, `exp(y)` for `lmbda = 0`.
    INV_BOXCOX, "inv_boxcox", 2, binary_fd
);
special_op!(
    /// `inv_boxcox1p(y, lmbda) = (1 + lmbda y)^(1/lmbda) - 1`, `expm1(y)` for `lmbda = 0`.
    INV_BOXCOX1P, "inv_boxcox1p", 2, binary_fd
);
/// The error function `erf(x) = 2/sqrt(pi) ∫₀ˣ exp(-t²) dt`. Its float32 loop is the
/// platform's single-precision `erff` (within 2 ulp on CUDA, HIP and glibc), not a rounded
/// float64 `erf`: SciPy's tolerance allows it, and it keeps the op at the memory's speed.
pub const ERF: ElementwiseOp = ElementwiseOp {
    name: "erf",
    nin: 1,
    nout: 1,
    loops: &[
        TypeLoop { sig: "d->d", body: Some("out0 = xp::sp::erf(in0);"), fast: None },
        TypeLoop { sig: "f->f", body: Some("out0 = xp::erf(in0);"), fast: None },
    ],
    body: "",
    preamble: PREAMBLE,
};
special_op!(
    /// The complementary error function `erfc(x) = 1 - erf(x)`.
    ERFC, "erfc", 1, unary_df
);
special_op!(
    /// The scaled complementary error function `erfcx(x) = exp(x²) erfc(x)`.
    ERFCX, "erfcx", 1, unary_df
);
special_op!(
    /// The inverse of `erf` on `[-1, 1]` (±inf at ±1, NaN outside).
    ERFINV, "erfinv", 1, unary_fd
);
special_op!(
    /// The inverse of `erfc` on `[0, 2]` (inf at 0, -inf at 2, NaN outside).
    ERFCINV, "erfcinv", 1, unary_fd
);
special_op!(
    /// The standard normal CDF `ndtr(x) = erfc(-x / sqrt(2)) / 2`.
    NDTR, "ndtr", 1, unary_df
);
special_op!(
    /// The inverse of `ndtr` on `[0, 1]` (∓inf at 0 and 1, NaN outside).
    NDTRI, "ndtri", 1, unary_fd
);
special_op!(
    /// `log_ndtr(x) = log(ndtr(x))`, accurate in both tails.
    LOG_NDTR, "log_ndtr", 1, unary_df
);

sp_op!(
    /// The gamma function (±inf at ±0, NaN at the negative integers and -inf).
    GAMMA, "gamma", 1, PREAMBLE_GAMMA, unary_df!("gamma")
);
sp_op!(
    /// `log|gamma(x)|` (inf at the poles).
    GAMMALN, "gammaln", 1, PREAMBLE_GAMMA, &[
        TypeLoop { sig: "d->d", body: Some("out0 = xp::sp::gammaln(in0);"), fast: None },
        TypeLoop { sig: "f->f", body: Some("out0 = xp::sp::gammaln_f32(in0);"), fast: None },
    ]
);
sp_op!(
    /// The real `log(gamma(x))`: NaN for `x < 0`.
    LOGGAMMA, "loggamma", 1, PREAMBLE_GAMMA, unary_df!("loggamma")
);
sp_op!(
    /// `1 / gamma(x)`, 0 at the poles.
    RGAMMA, "rgamma", 1, PREAMBLE_GAMMA, unary_df!("rgamma")
);
sp_op!(
    /// The digamma function `psi(x) = gamma'(x) / gamma(x)`.
    DIGAMMA, "digamma", 1, PREAMBLE_GAMMA, unary_df!("digamma")
);
sp_op!(
    /// `polygamma(n, x)`, the n-th derivative of `digamma` (loops `ff->f`, `dd->d`).
    POLYGAMMA, "polygamma", 2, PREAMBLE_GAMMA, binary_fd!("polygamma")
);
sp_op!(
    /// The Riemann zeta function (SciPy's `zeta(x)`).
    RIEMANN_ZETA, "_riemann_zeta", 1, PREAMBLE_GAMMA, unary_df!("zeta1")
);
sp_op!(
    /// The Hurwitz zeta function `zeta(x, q)`.
    ZETA, "_zeta", 2, PREAMBLE_GAMMA, binary_fd!("zeta2")
);
sp_op!(
    /// The beta function `gamma(a) gamma(b) / gamma(a + b)`.
    BETA, "beta", 2, PREAMBLE_GAMMA, binary_df!("beta")
);
sp_op!(
    /// `log|beta(a, b)|`.
    BETALN, "betaln", 2, PREAMBLE_GAMMA, binary_df!("betaln")
);
sp_op!(
    /// The regularised lower incomplete gamma function `P(a, x)`.
    GAMMAINC, "gammainc", 2, PREAMBLE_INCOMPLETE, binary_df!("gammainc")
);
sp_op!(
    /// The regularised upper incomplete gamma function `Q(a, x)`.
    GAMMAINCC, "gammaincc", 2, PREAMBLE_INCOMPLETE, binary_df!("gammaincc")
);
sp_op!(
    /// The inverse of `gammainc` in `x`.
    GAMMAINCINV, "gammaincinv", 2, PREAMBLE_INCOMPLETE, binary_df!("gammaincinv")
);
sp_op!(
    /// The inverse of `gammaincc` in `x`.
    GAMMAINCCINV, "gammainccinv", 2, PREAMBLE_INCOMPLETE, binary_df!("gammainccinv")
);
sp_op!(
    /// The regularised incomplete beta function `I_x(a, b)`.
    BETAINC, "betainc", 3, PREAMBLE_INCOMPLETE, ternary_fd!("betainc")
);
sp_op!(
    /// The inverse of `betainc` in `x`.
    BETAINCINV, "betaincinv", 3, PREAMBLE_INCOMPLETE, ternary_fd!("betaincinv")
);
sp_op!(
    /// The binomial CDF `bdtr(k, n, p)`.
    BDTR, "bdtr", 3, PREAMBLE_INCOMPLETE, int_second_3!("bdtr")
);
sp_op!(
    /// The binomial survival function `bdtrc(k, n, p)`.
    BDTRC, "bdtrc", 3, PREAMBLE_INCOMPLETE, int_second_3!("bdtrc")
);
sp_op!(
    /// The inverse of `bdtr` in `p`.
    BDTRI, "bdtri", 3, PREAMBLE_INCOMPLETE, int_second_3!("bdtri")
);
sp_op!(
    /// The chi-square CDF `chdtr(v, x)`.
    CHDTR, "chdtr", 2, PREAMBLE_INCOMPLETE, binary_fd!("chdtr")
);
sp_op!(
    /// The chi-square survival function.
    CHDTRC, "chdtrc", 2, PREAMBLE_INCOMPLETE, binary_fd!("chdtrc")
);
sp_op!(
    /// The inverse of `chdtrc` in `x`.
    CHDTRI, "chdtri", 2, PREAMBLE_INCOMPLETE, binary_fd!("chdtri")
);
sp_op!(
    /// The F distribution CDF `fdtr(dfn, dfd, x)`.
    FDTR, "fdtr", 3, PREAMBLE_INCOMPLETE, ternary_fd!("fdtr")
);
sp_op!(
    /// The F distribution survival function.
    FDTRC, "fdtrc", 3, PREAMBLE_INCOMPLETE, ternary_fd!("fdtrc")
);
sp_op!(
    /// The inverse of `fdtr` in `x`.
    FDTRI, "fdtri", 3, PREAMBLE_INCOMPLETE, ternary_fd!("fdtri")
);
sp_op!(
    /// The gamma distribution CDF `gdtr(a, b, x) = P(b, a x)`.
    GDTR, "gdtr", 3, PREAMBLE_INCOMPLETE, ternary_fd!("gdtr")
);
sp_op!(
    /// The gamma distribution survival function.
    GDTRC, "gdtrc", 3, PREAMBLE_INCOMPLETE, ternary_fd!("gdtrc")
);
sp_op!(
    /// The negative binomial CDF `nbdtr(k, n, p)`.
    NBDTR, "nbdtr", 3, PREAMBLE_INCOMPLETE, int_two_3!("nbdtr")
);
sp_op!(
    /// The negative binomial survival function.
    NBDTRC, "nbdtrc", 3, PREAMBLE_INCOMPLETE, int_two_3!("nbdtrc")
);
sp_op!(
    /// The Poisson CDF `pdtr(k, m)`.
    PDTR, "pdtr", 2, PREAMBLE_INCOMPLETE, binary_fd!("pdtr")
);
sp_op!(
    /// The Poisson survival function.
    PDTRC, "pdtrc", 2, PREAMBLE_INCOMPLETE, binary_fd!("pdtrc")
);
sp_op!(
    /// The inverse of `pdtr` in `m`.
    PDTRI, "pdtri", 2, PREAMBLE_INCOMPLETE, int_first_2!("pdtri")
);
sp_op!(
    /// Student's t CDF `stdtr(df, t)`.
    STDTR, "stdtr", 2, PREAMBLE_INCOMPLETE, binary_fd!("stdtr")
);
sp_op!(
    /// The inverse of `stdtr` in `t`.
    STDTRIT, "stdtrit", 2, PREAMBLE_INCOMPLETE, binary_fd!("stdtrit")
);
sp_op!(
    /// The Bessel function of the first kind of order 0.
    J0, "j0", 1, PREAMBLE_BESSEL, unary_df!("j0")
);
sp_op!(
    /// The Bessel function of the first kind of order 1.
    J1, "j1", 1, PREAMBLE_BESSEL, unary_df!("j1")
);
sp_op!(
    /// The Bessel function of the second kind of order 0.
    Y0, "y0", 1, PREAMBLE_BESSEL, unary_df!("y0")
);
sp_op!(
    /// The Bessel function of the second kind of order 1.
    Y1, "y1", 1, PREAMBLE_BESSEL, unary_df!("y1")
);
sp_op!(
    /// `jn(n, x)`, the Bessel function of the first kind of integer order.
    JN, "jn", 2, PREAMBLE_BESSEL, binary_fd!("jn_int")
);
sp_op!(
    /// `yn(n, x)`, the Bessel function of the second kind of integer order.
    YN, "yn", 2, PREAMBLE_BESSEL, int_first_2!("yn_int")
);
sp_op!(
    /// The modified Bessel function of the first kind of order 0.
    I0, "i0", 1, PREAMBLE_BESSEL, unary_df!("i0")
);
sp_op!(
    /// `exp(-|x|) i0(x)`.
    I0E, "i0e", 1, PREAMBLE_BESSEL, &[
        TypeLoop { sig: "d->d", body: Some("out0 = xp::sp::i0e(in0);"), fast: None },
        TypeLoop { sig: "f->f", body: Some("out0 = xp::sp::i0e_f32(in0);"), fast: None },
    ]
);
sp_op!(
    /// The modified Bessel function of the first kind of order 1.
    I1, "i1", 1, PREAMBLE_BESSEL, unary_df!("i1")
);
sp_op!(
    /// `exp(-|x|) i1(x)`.
    I1E, "i1e", 1, PREAMBLE_BESSEL, unary_df!("i1e")
);
sp_op!(
    /// The modified Bessel function of the second kind of order 0.
    K0, "k0", 1, PREAMBLE_BESSEL, unary_df!("k0")
);
sp_op!(
    /// `exp(x) k0(x)`.
    K0E, "k0e", 1, PREAMBLE_BESSEL, unary_df!("k0e")
);
sp_op!(
    /// The modified Bessel function of the second kind of order 1.
    K1, "k1", 1, PREAMBLE_BESSEL, unary_df!("k1")
);
sp_op!(
    /// `exp(x) k1(x)`.
    K1E, "k1e", 1, PREAMBLE_BESSEL, unary_df!("k1e")
);
sp_op!(
    /// `iv(v, x)`, the modified Bessel function of the first kind of real order.
    IV, "iv", 2, PREAMBLE_BESSEL, binary_fd!("iv")
);
sp_op!(
    /// `kv(v, x)`, the modified Bessel function of the second kind of real order.
    KV, "kv", 2, PREAMBLE_BESSEL, binary_fd!("kv")
);
sp_op!(
    /// The generalised exponential integral `E_n(x)`.
    EXPN, "expn", 2, PREAMBLE_EXPINT, int_first_2!("expn")
);
sp_op!(
    /// The exponential integral `E_1(x)`.
    EXP1, "exp1", 1, PREAMBLE_EXPINT, unary_fd!("exp1")
);
sp_op!(
    /// The exponential integral `Ei(x)`.
    EXPI, "expi", 1, PREAMBLE_EXPINT, unary_fd!("expi")
);
sp_op!(
    /// The complete elliptic integral of the first kind `K(m)`.
    ELLIPK, "ellipk", 1, PREAMBLE_EXPINT, unary_df!("ellipk")
);
sp_op!(
    /// `K(1 - p)`, accurate near `m = 1`.
    ELLIPKM1, "ellipkm1", 1, PREAMBLE_EXPINT, unary_df!("ellipkm1")
);
sp_op!(
    /// `sn(u | m)`, the first output of SciPy's `ellipj`.
    ELLIPJ_SN, "ellipj_sn", 2, PREAMBLE_EXPINT, binary_df!("ellipj_sn")
);
sp_op!(
    /// `cn(u | m)`, the second output of SciPy's `ellipj`.
    ELLIPJ_CN, "ellipj_cn", 2, PREAMBLE_EXPINT, binary_df!("ellipj_cn")
);
sp_op!(
    /// `dn(u | m)`, the third output of SciPy's `ellipj`.
    ELLIPJ_DN, "ellipj_dn", 2, PREAMBLE_EXPINT, binary_df!("ellipj_dn")
);
sp_op!(
    /// The amplitude `ph`, the fourth output of SciPy's `ellipj`.
    ELLIPJ_PH, "ellipj_ph", 2, PREAMBLE_EXPINT, binary_df!("ellipj_ph")
);
sp_op!(
    /// The principal branch of the Lambert W function of a real argument, complex128.
    LAMBERTW, "lambertw", 1, PREAMBLE_EXPINT, &[TypeLoop { sig: "d->D", body: Some("out0 = xp::sp::lambertw(in0);"), fast: None }]
);

/// Every op of this module, in the order above.
pub const ALL: [&ElementwiseOp; 82] = [
    &EXPIT,
    &LOGIT,
    &LOG_EXPIT,
    &XLOGY,
    &XLOG1PY,
    &ENTR,
    &REL_ENTR,
    &KL_DIV,
    &HUBER,
    &PSEUDO_HUBER,
    &BOXCOX,
    &BOXCOX1P,
    &INV_BOXCOX,
    &INV_BOXCOX1P,
    &ERF,
    &ERFC,
    &ERFCX,
    &ERFINV,
    &ERFCINV,
    &NDTR,
    &NDTRI,
    &LOG_NDTR,
    &GAMMA,
    &GAMMALN,
    &LOGGAMMA,
    &RGAMMA,
    &DIGAMMA,
    &POLYGAMMA,
    &RIEMANN_ZETA,
    &ZETA,
    &BETA,
    &BETALN,
    &GAMMAINC,
    &GAMMAINCC,
    &GAMMAINCINV,
    &GAMMAINCCINV,
    &BETAINC,
    &BETAINCINV,
    &BDTR,
    &BDTRC,
    &BDTRI,
    &CHDTR,
    &CHDTRC,
    &CHDTRI,
    &FDTR,
    &FDTRC,
    &FDTRI,
    &GDTR,
    &GDTRC,
    &NBDTR,
    &NBDTRC,
    &PDTR,
    &PDTRC,
    &PDTRI,
    &STDTR,
    &STDTRIT,
    &J0,
    &J1,
    &Y0,
    &Y1,
    &JN,
    &YN,
    &I0,
    &I0E,
    &I1,
    &I1E,
    &K0,
    &K0E,
    &K1,
    &K1E,
    &IV,
    &KV,
    &EXPN,
    &EXP1,
    &EXPI,
    &ELLIPK,
    &ELLIPKM1,
    &ELLIPJ_SN,
    &ELLIPJ_CN,
    &ELLIPJ_DN,
    &ELLIPJ_PH,
    &LAMBERTW,
];
