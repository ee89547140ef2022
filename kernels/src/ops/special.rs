//! SciPy's elementwise special functions (`scipy.special`): ops of the same table as NumPy's
//! ufuncs, so every backend runs them and lazy fusion fuses them.
//!
//! Each op keeps SciPy's name and SciPy's type loops in SciPy's order (NumPy's resolution picks
//! a loop of the inputs' exact dtypes first, else the first loop they cast to safely): so float32
//! stays float32 and integers go to float64 where SciPy's first loop is `d->d` (`erf`, `expit`,
//! `xlogy`), or to float32 when they fit and SciPy lists `f->f` first (`entr`, `erfinv`,
//! `boxcox`). SciPy's complex loops are absent: a complex argument is a `DType` error.
//!
//! The numerics are in `kernels/include/xp_special.h` (the shared preamble of these ops), one
//! double-precision function per SciPy function; the float32 loops compute in double and round
//! once. The header's opening comment names the algorithm of each family.

use super::{ElementwiseOp, TypeLoop};

/// The helpers of every op here, emitted once per kernel (include guard).
pub const PREAMBLE: &str = concat!("\n", include_str!("../../include/xp_special.h"));

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
special_op!(
    /// The error function `erf(x) = 2/sqrt(pi) ∫₀ˣ exp(-t²) dt`.
    ERF, "erf", 1, unary_df
);
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

/// Every op of this module, in the order above.
pub const ALL: [&ElementwiseOp; 22] = [
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
];
