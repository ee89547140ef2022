//! Ops as data: a name, type loops, a C expression and a preamble, from which
//! [`crate::elementwise`] writes kernels.
//!
//! Every NumPy ufunc xp implements is here, with NumPy 2's type loops in NumPy's order (the
//! array layer picks the first loop the operands cast to safely, as NumPy does). NumPy's `q`/`Q`
//! loops are `l`/`L` here; its `g`, `G`, `O`, `m` and `M` loops have no counterpart; every `e`
//! (float16) loop is followed by a bfloat16 `E` loop with the same body. A dtype combination
//! without a loop is an error, as NumPy raises `TypeError`. The semantics are NumPy's — integer
//! arithmetic wraps, `//` and `%` follow Python's signs, shifts past the width shift everything
//! out, NaN propagation as each ufunc documents — through helpers in the prelude (`xp::floor_divide`,
//! `xp::integer_power`, `xp::complex_lt`…). float16 and bfloat16 loops compute in float32 and round
//! once.
//!
//! A type loop is written as NumPy writes ufunc loops, `"ff->f"`: one character per input, an
//! arrow, one per output. Characters: `?` bool, `b` int8, `h` int16, `i` int32, `l` int64,
//! `B` uint8, `H` uint16, `I` uint32, `L` uint64, `e` float16, `E` bfloat16, `f` float32,
//! `d` float64, `F` complex64, `D` complex128. The body names inputs `in0, in1…` and outputs
//! `out0…`, all already of the loop's types.
//!
//! SciPy's elementwise special functions (`erf`, `expit`, `xlogy`, …) are ops of the same table,
//! defined in [`special`] with SciPy's loops.

use xp_backend_api::DType;

pub mod special;

/// One type loop of an op, with an optional expression that replaces the op's default.
#[derive(Debug, Clone, Copy)]
pub struct TypeLoop {
    /// `"ff->f"`.
    pub sig: &'static str,
    /// A body for this loop only.
    pub body: Option<&'static str>,
    /// A vectorisable form of the body for the CPU's row kernels.
    pub fast: Option<FastBody>,
}

/// A form of a loop's body that a host compiler vectorises, exact on the lanes it covers, for
/// the CPU backend's row kernels ([`crate::elementwise::Layout::Rows`]). The kernel runs it over a
/// block of elements, then the loop's own body on the lanes `exact_if` picks (`libm` for large
/// or special arguments): a call on some lanes only would keep the whole loop scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FastBody {
    /// Statements computing `out0…` from `in0…`.
    pub body: &'static str,
    /// A C condition on `in0…`, true where the result must come from the loop's body.
    pub exact_if: &'static str,
}

/// An elementwise op.
#[derive(Debug, Clone, Copy)]
pub struct ElementwiseOp {
    /// NumPy's name (`add`).
    pub name: &'static str,
    /// Inputs.
    pub nin: usize,
    /// Outputs.
    pub nout: usize,
    /// The loops, in NumPy's order of preference.
    pub loops: &'static [TypeLoop],
    /// The default body (`out0 = in0 + in1;`).
    pub body: &'static str,
    /// Code put before the kernel (helper functions).
    pub preamble: &'static str,
}

/// The dtype of a type-loop character.
pub fn dtype_of_char(c: char) -> Option<DType> {
    Some(match c {
        '?' => DType::Bool,
        'b' => DType::I8,
        'h' => DType::I16,
        'i' => DType::I32,
        'l' => DType::I64,
        'B' => DType::U8,
        'H' => DType::U16,
        'I' => DType::U32,
        'L' => DType::U64,
        'e' => DType::F16,
        'E' => DType::BF16,
        'f' => DType::F32,
        'd' => DType::F64,
        'F' => DType::C64,
        'D' => DType::C128,
        _ => return None,
    })
}

/// The type-loop character of a dtype.
pub fn char_of_dtype(d: DType) -> char {
    match d {
        DType::Bool => '?',
        DType::I8 => 'b',
        DType::I16 => 'h',
        DType::I32 => 'i',
        DType::I64 => 'l',
        DType::U8 => 'B',
        DType::U16 => 'H',
        DType::U32 => 'I',
        DType::U64 => 'L',
        DType::F16 => 'e',
        DType::BF16 => 'E',
        DType::F32 => 'f',
        DType::F64 => 'd',
        DType::C64 => 'F',
        DType::C128 => 'D',
    }
}

/// The input or the output dtypes of a loop, held in place (read at every elementwise call).
pub type LoopDTypes = smallvec::SmallVec<[DType; 4]>;

impl TypeLoop {
    /// Input and output dtypes of the loop.
    pub fn dtypes(&self) -> (LoopDTypes, LoopDTypes) {
        // Written `in->out` with one ASCII character a dtype (read at every call: no search).
        let sig = self.sig.as_bytes();
        let arrow = sig.iter().position(|&c| c == b'-').expect("type loops are written `in->out`");
        let conv = |s: &[u8]| s.iter().map(|&c| dtype_of_char(c as char).expect("known type character")).collect();
        (conv(&sig[..arrow]), conv(&sig[arrow + 2..]))
    }
}

const fn l(sig: &'static str) -> TypeLoop {
    TypeLoop { sig, body: None, fast: None }
}

const fn b(sig: &'static str, body: &'static str) -> TypeLoop {
    TypeLoop { sig, body: Some(body), fast: None }
}

const fn fast(sig: &'static str, body: &'static str, exact_if: &'static str) -> TypeLoop {
    TypeLoop { sig, body: None, fast: Some(FastBody { body, exact_if }) }
}

/// Every part's loops, in order, as one array of `N` loops (`N` must be their total).
const fn concat<const N: usize>(parts: &[&[TypeLoop]]) -> [TypeLoop; N] {
    let mut out = [l(""); N];
    let (mut p, mut k) = (0, 0);
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[k] = parts[p][i];
            k += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(k == N, "concat: the parts do not hold N loops");
    out
}

/// The number of loops in `parts`.
const fn total_len(parts: &[&[TypeLoop]]) -> usize {
    let (mut p, mut n) = (0, 0);
    while p < parts.len() {
        n += parts[p].len();
        p += 1;
    }
    n
}

/// `loops` with `body` as every loop's own expression.
const fn with_body<const N: usize>(loops: [TypeLoop; N], body: &'static str) -> [TypeLoop; N] {
    let mut out = loops;
    let mut i = 0;
    while i < N {
        out[i].body = Some(body);
        i += 1;
    }
    out
}

/// The loop lists given (named lists, `with_body(…)`, or `[l(…), b(…)]` written out), joined in
/// order into one `&'static [TypeLoop]`.
macro_rules! loops {
    ($($part:expr),+ $(,)?) => {{
        const PARTS: &[&[TypeLoop]] = &[$(&$part),+];
        const LOOPS: [TypeLoop; total_len(PARTS)] = concat(PARTS);
        &LOOPS
    }};
}

// The loop lists that many ops share, each in NumPy's order of preference (signed before
// unsigned of each width, float16 then bfloat16 then float32 then float64).

/// `b->b` … `L->L`: every integer dtype to itself.
const INT_UNARY: [TypeLoop; 8] =
    [l("b->b"), l("B->B"), l("h->h"), l("H->H"), l("i->i"), l("I->I"), l("l->l"), l("L->L")];
/// `e->e`, `E->E`, `f->f`, `d->d`: every real float dtype to itself.
const FLOAT_UNARY: [TypeLoop; 4] = [l("e->e"), l("E->E"), l("f->f"), l("d->d")];
/// `F->F`, `D->D`: every complex dtype to itself.
const COMPLEX_UNARY: [TypeLoop; 2] = [l("F->F"), l("D->D")];
/// [`FLOAT_UNARY`] then [`COMPLEX_UNARY`]: the loops of most math functions.
const INEXACT_UNARY: [TypeLoop; 6] = concat(&[&FLOAT_UNARY, &COMPLEX_UNARY]);
/// Every numeric dtype (all but bool) to itself.
const NUMERIC_UNARY: [TypeLoop; 14] = concat(&[&INT_UNARY, &INEXACT_UNARY]);
/// Booleans and integers returned unchanged (`floor`, `ceil`, `trunc` of an integer).
const BOOL_INT_UNCHANGED: [TypeLoop; 9] = with_body(concat(&[&[l("?->?")], &INT_UNARY]), "out0 = in0;");

/// `b->?` … `L->?`: a predicate on every integer dtype.
const INT_PREDICATE: [TypeLoop; 8] =
    [l("b->?"), l("B->?"), l("h->?"), l("H->?"), l("i->?"), l("I->?"), l("l->?"), l("L->?")];
/// `?->?` then [`INT_PREDICATE`].
const BOOL_INT_PREDICATE: [TypeLoop; 9] = concat(&[&[l("?->?")], &INT_PREDICATE]);
/// `e->?` … `D->?`: a predicate on every float and complex dtype.
const INEXACT_PREDICATE: [TypeLoop; 6] = [l("e->?"), l("E->?"), l("f->?"), l("d->?"), l("F->?"), l("D->?")];

/// `bb->b` … `LL->L`: every integer dtype, both operands and the result of one type.
const INT_BINARY: [TypeLoop; 8] =
    [l("bb->b"), l("BB->B"), l("hh->h"), l("HH->H"), l("ii->i"), l("II->I"), l("ll->l"), l("LL->L")];
/// `ee->e`, `EE->E`, `ff->f`, `dd->d`.
const FLOAT_BINARY: [TypeLoop; 4] = [l("ee->e"), l("EE->E"), l("ff->f"), l("dd->d")];
/// `FF->F`, `DD->D`.
const COMPLEX_BINARY: [TypeLoop; 2] = [l("FF->F"), l("DD->D")];
/// [`FLOAT_BINARY`] then [`COMPLEX_BINARY`].
const INEXACT_BINARY: [TypeLoop; 6] = concat(&[&FLOAT_BINARY, &COMPLEX_BINARY]);

/// `??->?` then `bb->?` … `LL->?`: comparisons of booleans and of integers of one type.
const BOOL_INT_COMPARE: [TypeLoop; 9] =
    [l("??->?"), l("bb->?"), l("BB->?"), l("hh->?"), l("HH->?"), l("ii->?"), l("II->?"), l("ll->?"), l("LL->?")];
/// `ee->?`, `EE->?`, `ff->?`, `dd->?`.
const FLOAT_COMPARE: [TypeLoop; 4] = [l("ee->?"), l("EE->?"), l("ff->?"), l("dd->?")];
/// `FF->?`, `DD->?`.
const COMPLEX_COMPARE: [TypeLoop; 2] = [l("FF->?"), l("DD->?")];
/// Every dtype, both operands of one type, to bool (the logical ops).
const ALL_TO_BOOL_BINARY: [TypeLoop; 15] = concat(&[&BOOL_INT_COMPARE, &FLOAT_COMPARE, &COMPLEX_COMPARE]);

/// `out0 = in0` for every dtype: copies and (with differing storage types) casts.
pub const COPY: ElementwiseOp = ElementwiseOp {
    name: "copy",
    nin: 1,
    nout: 1,
    loops: loops![[l("?->?")], NUMERIC_UNARY],
    body: "out0 = in0;",
    preamble: "",
};

/// Addition; integers wrap, booleans give `or`.
pub const ADD: ElementwiseOp = ElementwiseOp {
    name: "add",
    nin: 2,
    nout: 1,
    loops: loops![
        [
            b("??->?", "out0 = in0 || in1;"),
            l("bb->b"),
            l("BB->B"),
            l("hh->h"),
            l("HH->H"),
            b("ii->i", "out0 = xp::wrapping_add(in0, in1);"),
            l("II->I"),
            b("ll->l", "out0 = xp::wrapping_add(in0, in1);"),
            l("LL->L"),
        ],
        INEXACT_BINARY,
    ],
    body: "out0 = in0 + in1;",
    preamble: "",
};

/// Subtraction; integers wrap.
pub const SUBTRACT: ElementwiseOp = ElementwiseOp {
    name: "subtract",
    nin: 2,
    nout: 1,
    loops: loops![
        [
            l("bb->b"),
            l("BB->B"),
            l("hh->h"),
            l("HH->H"),
            b("ii->i", "out0 = xp::wrapping_sub(in0, in1);"),
            l("II->I"),
            b("ll->l", "out0 = xp::wrapping_sub(in0, in1);"),
            l("LL->L"),
        ],
        INEXACT_BINARY,
    ],
    body: "out0 = in0 - in1;",
    preamble: "",
};

/// Multiplication; integers wrap, booleans give `and`.
pub const MULTIPLY: ElementwiseOp = ElementwiseOp {
    name: "multiply",
    nin: 2,
    nout: 1,
    loops: loops![
        [
            b("??->?", "out0 = in0 && in1;"),
            l("bb->b"),
            l("BB->B"),
            l("hh->h"),
            b("HH->H", "out0 = xp::wrapping_mul(in0, in1);"),
            b("ii->i", "out0 = xp::wrapping_mul(in0, in1);"),
            l("II->I"),
            b("ll->l", "out0 = xp::wrapping_mul(in0, in1);"),
            l("LL->L"),
        ],
        INEXACT_BINARY,
    ],
    body: "out0 = in0 * in1;",
    preamble: "",
};

/// Division (`/`); integer operands are computed in float64 by type resolution.
pub const TRUE_DIVIDE: ElementwiseOp = ElementwiseOp {
    name: "true_divide",
    nin: 2,
    nout: 1,
    loops: &INEXACT_BINARY,
    body: "out0 = in0 / in1;",
    preamble: "",
};

/// Floor division (`//`), as Python: integers round toward minus infinity and give 0 for
/// a zero divisor; floats as NumPy's `npy_divmod`.
pub const FLOOR_DIVIDE: ElementwiseOp = ElementwiseOp {
    name: "floor_divide",
    nin: 2,
    nout: 1,
    loops: loops![INT_BINARY, FLOAT_BINARY],
    body: "out0 = xp::floor_divide(in0, in1);",
    preamble: "",
};

/// Remainder (`%`) with the sign of the divisor, as Python; integers give 0 for a zero divisor.
pub const REMAINDER: ElementwiseOp = ElementwiseOp {
    name: "remainder",
    nin: 2,
    nout: 1,
    loops: loops![INT_BINARY, FLOAT_BINARY],
    body: "out0 = xp::remainder(in0, in1);",
    preamble: "",
};

/// Power (`**`): integers by repeated squaring (wrapping), complex numbers as NumPy.
pub const POWER: ElementwiseOp = ElementwiseOp {
    name: "power",
    nin: 2,
    nout: 1,
    loops: loops![
        with_body(INT_BINARY, "out0 = xp::integer_power(in0, in1);"),
        FLOAT_BINARY,
        with_body(COMPLEX_BINARY, "out0 = xp::complex_power(in0, in1);"),
    ],
    body: "out0 = xp::pow(in0, in1);",
    preamble: "",
};

/// The larger element; NaN propagates. Ties return the second operand for float32 and float64 and
/// the first for float16 (as NumPy, which matters for signed zeros).
pub const MAXIMUM: ElementwiseOp = ElementwiseOp {
    name: "maximum",
    nin: 2,
    nout: 1,
    loops: loops![
        [b("??->?", "out0 = in0 || in1;")],
        INT_BINARY,
        [
            b("ee->e", "out0 = (in0 >= in1 || xp::isnan(in0)) ? in0 : in1;"),
            b("EE->E", "out0 = (in0 >= in1 || xp::isnan(in0)) ? in0 : in1;"),
            b("ff->f", "out0 = (in0 > in1 || xp::isnan(in0)) ? in0 : in1;"),
            b("dd->d", "out0 = (in0 > in1 || xp::isnan(in0)) ? in0 : in1;")
        ],
        with_body(COMPLEX_BINARY, "out0 = xp::maximum(in0, in1);"),
    ],
    body: "out0 = in0 > in1 ? in0 : in1;",
    preamble: "",
};

/// The smaller element; NaN propagates (ties as [`MAXIMUM`]).
pub const MINIMUM: ElementwiseOp = ElementwiseOp {
    name: "minimum",
    nin: 2,
    nout: 1,
    loops: loops![
        [b("??->?", "out0 = in0 && in1;")],
        INT_BINARY,
        [
            b("ee->e", "out0 = (in0 <= in1 || xp::isnan(in0)) ? in0 : in1;"),
            b("EE->E", "out0 = (in0 <= in1 || xp::isnan(in0)) ? in0 : in1;"),
            b("ff->f", "out0 = (in0 < in1 || xp::isnan(in0)) ? in0 : in1;"),
            b("dd->d", "out0 = (in0 < in1 || xp::isnan(in0)) ? in0 : in1;")
        ],
        with_body(COMPLEX_BINARY, "out0 = xp::minimum(in0, in1);"),
    ],
    body: "out0 = in0 < in1 ? in0 : in1;",
    preamble: "",
};

/// The larger element, ignoring NaN (NaN only when both are NaN).
pub const FMAX: ElementwiseOp = ElementwiseOp {
    name: "fmax",
    nin: 2,
    nout: 1,
    loops: loops![
        [b("??->?", "out0 = in0 || in1;")],
        INT_BINARY,
        with_body(FLOAT_BINARY, "out0 = (in0 >= in1 || xp::isnan(in1)) ? in0 : in1;"),
        with_body(COMPLEX_BINARY, "out0 = xp::fmax(in0, in1);"),
    ],
    body: "out0 = in0 > in1 ? in0 : in1;",
    preamble: "",
};

/// The smaller element, ignoring NaN (NaN only when both are NaN).
pub const FMIN: ElementwiseOp = ElementwiseOp {
    name: "fmin",
    nin: 2,
    nout: 1,
    loops: loops![
        [b("??->?", "out0 = in0 && in1;")],
        INT_BINARY,
        with_body(FLOAT_BINARY, "out0 = (in0 <= in1 || xp::isnan(in1)) ? in0 : in1;"),
        with_body(COMPLEX_BINARY, "out0 = xp::fmin(in0, in1);"),
    ],
    body: "out0 = in0 < in1 ? in0 : in1;",
    preamble: "",
};

/// `==`. int64 against uint64 compares exactly.
pub const EQUAL: ElementwiseOp = ElementwiseOp {
    name: "equal",
    nin: 2,
    nout: 1,
    loops: loops![
        BOOL_INT_COMPARE,
        [b("lL->?", "out0 = in0 >= 0 && (xp::u64)in0 == in1;"), b("Ll->?", "out0 = in1 >= 0 && in0 == (xp::u64)in1;")],
        FLOAT_COMPARE,
        COMPLEX_COMPARE,
    ],
    body: "out0 = in0 == in1;",
    preamble: "",
};

/// `!=`. int64 against uint64 compares exactly.
pub const NOT_EQUAL: ElementwiseOp = ElementwiseOp {
    name: "not_equal",
    nin: 2,
    nout: 1,
    loops: loops![
        BOOL_INT_COMPARE,
        [b("lL->?", "out0 = in0 < 0 || (xp::u64)in0 != in1;"), b("Ll->?", "out0 = in1 < 0 || in0 != (xp::u64)in1;")],
        FLOAT_COMPARE,
        COMPLEX_COMPARE,
    ],
    body: "out0 = in0 != in1;",
    preamble: "",
};

/// `<`; complex numbers compare lexicographically, as NumPy. int64 against uint64 compares exactly.
pub const LESS: ElementwiseOp = ElementwiseOp {
    name: "less",
    nin: 2,
    nout: 1,
    loops: loops![
        BOOL_INT_COMPARE,
        [b("lL->?", "out0 = in0 < 0 || (xp::u64)in0 < in1;"), b("Ll->?", "out0 = in1 >= 0 && in0 < (xp::u64)in1;")],
        FLOAT_COMPARE,
        with_body(COMPLEX_COMPARE, "out0 = xp::complex_lt(in0, in1);"),
    ],
    body: "out0 = in0 < in1;",
    preamble: "",
};

/// `<=`; complex numbers compare lexicographically. int64 against uint64 compares exactly.
pub const LESS_EQUAL: ElementwiseOp = ElementwiseOp {
    name: "less_equal",
    nin: 2,
    nout: 1,
    loops: loops![
        BOOL_INT_COMPARE,
        [b("lL->?", "out0 = in0 < 0 || (xp::u64)in0 <= in1;"), b("Ll->?", "out0 = in1 >= 0 && in0 <= (xp::u64)in1;")],
        FLOAT_COMPARE,
        with_body(COMPLEX_COMPARE, "out0 = xp::complex_le(in0, in1);"),
    ],
    body: "out0 = in0 <= in1;",
    preamble: "",
};

/// `>`; complex numbers compare lexicographically. int64 against uint64 compares exactly.
pub const GREATER: ElementwiseOp = ElementwiseOp {
    name: "greater",
    nin: 2,
    nout: 1,
    loops: loops![
        BOOL_INT_COMPARE,
        [b("lL->?", "out0 = in0 >= 0 && (xp::u64)in0 > in1;"), b("Ll->?", "out0 = in1 < 0 || in0 > (xp::u64)in1;")],
        FLOAT_COMPARE,
        with_body(COMPLEX_COMPARE, "out0 = xp::complex_gt(in0, in1);"),
    ],
    body: "out0 = in0 > in1;",
    preamble: "",
};

/// `>=`; complex numbers compare lexicographically. int64 against uint64 compares exactly.
pub const GREATER_EQUAL: ElementwiseOp = ElementwiseOp {
    name: "greater_equal",
    nin: 2,
    nout: 1,
    loops: loops![
        BOOL_INT_COMPARE,
        [b("lL->?", "out0 = in0 >= 0 && (xp::u64)in0 >= in1;"), b("Ll->?", "out0 = in1 < 0 || in0 >= (xp::u64)in1;")],
        FLOAT_COMPARE,
        with_body(COMPLEX_COMPARE, "out0 = xp::complex_ge(in0, in1);"),
    ],
    body: "out0 = in0 >= in1;",
    preamble: "",
};

/// Both nonzero.
pub const LOGICAL_AND: ElementwiseOp = ElementwiseOp {
    name: "logical_and",
    nin: 2,
    nout: 1,
    loops: &ALL_TO_BOOL_BINARY,
    body: "out0 = xp::cast<bool>(in0) && xp::cast<bool>(in1);",
    preamble: "",
};

/// Either nonzero.
pub const LOGICAL_OR: ElementwiseOp = ElementwiseOp {
    name: "logical_or",
    nin: 2,
    nout: 1,
    loops: &ALL_TO_BOOL_BINARY,
    body: "out0 = xp::cast<bool>(in0) || xp::cast<bool>(in1);",
    preamble: "",
};

/// Exactly one nonzero.
pub const LOGICAL_XOR: ElementwiseOp = ElementwiseOp {
    name: "logical_xor",
    nin: 2,
    nout: 1,
    loops: &ALL_TO_BOOL_BINARY,
    body: "out0 = xp::cast<bool>(in0) != xp::cast<bool>(in1);",
    preamble: "",
};

/// `&` on booleans and integers.
pub const BITWISE_AND: ElementwiseOp = ElementwiseOp {
    name: "bitwise_and",
    nin: 2,
    nout: 1,
    loops: loops![[l("??->?")], INT_BINARY],
    body: "out0 = in0 & in1;",
    preamble: "",
};

/// `|` on booleans and integers.
pub const BITWISE_OR: ElementwiseOp = ElementwiseOp {
    name: "bitwise_or",
    nin: 2,
    nout: 1,
    loops: loops![[l("??->?")], INT_BINARY],
    body: "out0 = in0 | in1;",
    preamble: "",
};

/// `^` on booleans and integers.
pub const BITWISE_XOR: ElementwiseOp = ElementwiseOp {
    name: "bitwise_xor",
    nin: 2,
    nout: 1,
    loops: loops![[l("??->?")], INT_BINARY],
    body: "out0 = in0 ^ in1;",
    preamble: "",
};

/// `<<`; a count of the bit width or more gives 0, as NumPy.
pub const LEFT_SHIFT: ElementwiseOp = ElementwiseOp {
    name: "left_shift",
    nin: 2,
    nout: 1,
    loops: &INT_BINARY,
    body: "out0 = xp::left_shift(in0, in1);",
    preamble: "",
};

/// `>>` (arithmetic for signed types); a count of the bit width or more gives 0, or -1 for a
/// negative signed operand, as NumPy.
pub const RIGHT_SHIFT: ElementwiseOp = ElementwiseOp {
    name: "right_shift",
    nin: 2,
    nout: 1,
    loops: &INT_BINARY,
    body: "out0 = xp::right_shift(in0, in1);",
    preamble: "",
};

/// atan2(in0, in1).
pub const ARCTAN2: ElementwiseOp = ElementwiseOp {
    name: "arctan2",
    nin: 2,
    nout: 1,
    loops: &FLOAT_BINARY,
    body: "out0 = xp::atan2(in0, in1);",
    preamble: "",
};

/// sqrt(in0² + in1²) without overflow.
pub const HYPOT: ElementwiseOp = ElementwiseOp {
    name: "hypot",
    nin: 2,
    nout: 1,
    loops: &FLOAT_BINARY,
    body: "out0 = xp::hypot(in0, in1);",
    preamble: "",
};

/// The magnitude of in0 with the sign of in1.
pub const COPYSIGN: ElementwiseOp = ElementwiseOp {
    name: "copysign",
    nin: 2,
    nout: 1,
    loops: &FLOAT_BINARY,
    body: "out0 = xp::copysign(in0, in1);",
    preamble: "",
};

/// `-x`; integers wrap.
pub const NEGATIVE: ElementwiseOp = ElementwiseOp {
    name: "negative",
    nin: 1,
    nout: 1,
    loops: loops![
        [
            l("b->b"),
            l("B->B"),
            l("h->h"),
            l("H->H"),
            b("i->i", "out0 = xp::wrapping_neg(in0);"),
            l("I->I"),
            b("l->l", "out0 = xp::wrapping_neg(in0);"),
            l("L->L"),
        ],
        INEXACT_UNARY,
    ],
    body: "out0 = -in0;",
    preamble: "",
};

/// `+x`.
pub const POSITIVE: ElementwiseOp =
    ElementwiseOp { name: "positive", nin: 1, nout: 1, loops: &NUMERIC_UNARY, body: "out0 = in0;", preamble: "" };

/// |x|; the most negative integer stays itself; complex gives its real dtype.
pub const ABSOLUTE: ElementwiseOp = ElementwiseOp {
    name: "absolute",
    nin: 1,
    nout: 1,
    loops: loops![
        [b("?->?", "out0 = in0;")],
        INT_UNARY,
        with_body(FLOAT_UNARY, "out0 = xp::fabs(in0);"),
        [b("F->f", "out0 = xp::abs(in0);"), b("D->d", "out0 = xp::abs(in0);")],
    ],
    body: "out0 = xp::wrapping_abs(in0);",
    preamble: "",
};

/// -1, 0 or 1 (NaN for NaN); for complex numbers NumPy 2's z/|z|.
pub const SIGN: ElementwiseOp =
    ElementwiseOp { name: "sign", nin: 1, nout: 1, loops: &NUMERIC_UNARY, body: "out0 = xp::sign(in0);", preamble: "" };

/// x²; integers wrap.
pub const SQUARE: ElementwiseOp = ElementwiseOp {
    name: "square",
    nin: 1,
    nout: 1,
    loops: loops![
        [
            l("b->b"),
            l("B->B"),
            l("h->h"),
            b("H->H", "out0 = xp::wrapping_mul(in0, in0);"),
            b("i->i", "out0 = xp::wrapping_mul(in0, in0);"),
            l("I->I"),
            b("l->l", "out0 = xp::wrapping_mul(in0, in0);"),
            l("L->L"),
        ],
        INEXACT_UNARY,
    ],
    body: "out0 = in0 * in0;",
    preamble: "",
};

/// floor(x); booleans and integers are returned unchanged.
pub const FLOOR: ElementwiseOp = ElementwiseOp {
    name: "floor",
    nin: 1,
    nout: 1,
    loops: loops![BOOL_INT_UNCHANGED, FLOAT_UNARY],
    body: "out0 = xp::floor(in0);",
    preamble: "",
};

/// ceil(x); booleans and integers are returned unchanged.
pub const CEIL: ElementwiseOp = ElementwiseOp {
    name: "ceil",
    nin: 1,
    nout: 1,
    loops: loops![BOOL_INT_UNCHANGED, FLOAT_UNARY],
    body: "out0 = xp::ceil(in0);",
    preamble: "",
};

/// trunc(x); booleans and integers are returned unchanged.
pub const TRUNC: ElementwiseOp = ElementwiseOp {
    name: "trunc",
    nin: 1,
    nout: 1,
    loops: loops![BOOL_INT_UNCHANGED, FLOAT_UNARY],
    body: "out0 = xp::trunc(in0);",
    preamble: "",
};

/// Round to the nearest integer, halves to even (complex: each part).
pub const RINT: ElementwiseOp =
    ElementwiseOp { name: "rint", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::rint(in0);", preamble: "" };

/// Zero.
pub const LOGICAL_NOT: ElementwiseOp = ElementwiseOp {
    name: "logical_not",
    nin: 1,
    nout: 1,
    loops: loops![BOOL_INT_PREDICATE, INEXACT_PREDICATE],
    body: "out0 = !xp::cast<bool>(in0);",
    preamble: "",
};

/// `~x` on integers, `!x` on booleans.
pub const INVERT: ElementwiseOp = ElementwiseOp {
    name: "invert",
    nin: 1,
    nout: 1,
    loops: loops![[b("?->?", "out0 = !in0;")], INT_UNARY],
    body: "out0 = ~in0;",
    preamble: "",
};

/// NumPy's `bitwise_count`: the number of 1 bits in the absolute value, as uint8 (booleans
/// take the int8 loop, as in NumPy; floats have no loop).
pub const BITWISE_COUNT: ElementwiseOp = ElementwiseOp {
    name: "bitwise_count",
    nin: 1,
    nout: 1,
    loops: &[l("b->B"), l("B->B"), l("h->B"), l("H->B"), l("i->B"), l("I->B"), l("l->B"), l("L->B")],
    body: "out0 = xp::bitwise_count(in0);",
    preamble: "",
};

/// Is NaN (for complex: either part).
pub const ISNAN: ElementwiseOp = ElementwiseOp {
    name: "isnan",
    nin: 1,
    nout: 1,
    loops: loops![with_body(BOOL_INT_PREDICATE, "(void)in0; out0 = false;"), INEXACT_PREDICATE],
    body: "out0 = xp::isnan(in0);",
    preamble: "",
};

/// Is infinite (for complex: either part).
pub const ISINF: ElementwiseOp = ElementwiseOp {
    name: "isinf",
    nin: 1,
    nout: 1,
    loops: loops![with_body(BOOL_INT_PREDICATE, "(void)in0; out0 = false;"), INEXACT_PREDICATE],
    body: "out0 = xp::isinf(in0);",
    preamble: "",
};

/// Is neither infinite nor NaN (for complex: both parts).
pub const ISFINITE: ElementwiseOp = ElementwiseOp {
    name: "isfinite",
    nin: 1,
    nout: 1,
    loops: loops![with_body(BOOL_INT_PREDICATE, "(void)in0; out0 = true;"), INEXACT_PREDICATE],
    body: "out0 = xp::isfinite(in0);",
    preamble: "",
};

/// The sign bit is set (also for -0.0 and negative NaN).
pub const SIGNBIT: ElementwiseOp = ElementwiseOp {
    name: "signbit",
    nin: 1,
    nout: 1,
    loops: &[l("e->?"), l("E->?"), l("f->?"), l("d->?")],
    body: "out0 = xp::signbit(in0);",
    preamble: "",
};

/// The complex conjugate; real numbers are returned unchanged.
pub const CONJUGATE: ElementwiseOp = ElementwiseOp {
    name: "conjugate",
    nin: 1,
    nout: 1,
    loops: loops![INT_UNARY, FLOAT_UNARY, with_body(COMPLEX_UNARY, "out0 = xp::conj(in0);")],
    body: "out0 = in0;",
    preamble: "",
};

/// The square root (complex: principal branch).
pub const SQRT: ElementwiseOp =
    ElementwiseOp { name: "sqrt", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::sqrt(in0);", preamble: "" };

/// The cube root.
pub const CBRT: ElementwiseOp =
    ElementwiseOp { name: "cbrt", nin: 1, nout: 1, loops: &FLOAT_UNARY, body: "out0 = xp::cbrt(in0);", preamble: "" };

/// e^x.
pub const EXP: ElementwiseOp =
    ElementwiseOp { name: "exp", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::exp(in0);", preamble: "" };

/// 2^x.
pub const EXP2: ElementwiseOp =
    ElementwiseOp { name: "exp2", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::exp2(in0);", preamble: "" };

/// e^x - 1, accurate near 0.
pub const EXPM1: ElementwiseOp = ElementwiseOp {
    name: "expm1",
    nin: 1,
    nout: 1,
    loops: &INEXACT_UNARY,
    body: "out0 = xp::expm1(in0);",
    preamble: "",
};

/// The natural logarithm (complex: principal branch).
pub const LOG: ElementwiseOp =
    ElementwiseOp { name: "log", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::log(in0);", preamble: "" };

/// The base-2 logarithm.
pub const LOG2: ElementwiseOp =
    ElementwiseOp { name: "log2", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::log2(in0);", preamble: "" };

/// The base-10 logarithm.
pub const LOG10: ElementwiseOp = ElementwiseOp {
    name: "log10",
    nin: 1,
    nout: 1,
    loops: &INEXACT_UNARY,
    body: "out0 = xp::log10(in0);",
    preamble: "",
};

/// log(1 + x), accurate near 0.
pub const LOG1P: ElementwiseOp = ElementwiseOp {
    name: "log1p",
    nin: 1,
    nout: 1,
    loops: &INEXACT_UNARY,
    body: "out0 = xp::log1p(in0);",
    preamble: "",
};

/// The sine.
pub const SIN: ElementwiseOp = ElementwiseOp {
    name: "sin",
    nin: 1,
    nout: 1,
    loops: &[
        l("e->e"),
        l("E->E"),
        fast("f->f", "out0 = xp::cpu::sin_fast(in0);", "xp::cpu::sincos_needs_exact(in0)"),
        l("d->d"),
        l("F->F"),
        l("D->D"),
    ],
    body: "out0 = xp::sin(in0);",
    preamble: "",
};

/// The cosine.
pub const COS: ElementwiseOp = ElementwiseOp {
    name: "cos",
    nin: 1,
    nout: 1,
    loops: &[
        l("e->e"),
        l("E->E"),
        fast("f->f", "out0 = xp::cpu::cos_fast(in0);", "xp::cpu::sincos_needs_exact(in0)"),
        l("d->d"),
        l("F->F"),
        l("D->D"),
    ],
    body: "out0 = xp::cos(in0);",
    preamble: "",
};

/// The tangent.
pub const TAN: ElementwiseOp =
    ElementwiseOp { name: "tan", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::tan(in0);", preamble: "" };

/// The inverse sine (complex: branch cuts as C99 `casin`).
pub const ARCSIN: ElementwiseOp = ElementwiseOp {
    name: "arcsin",
    nin: 1,
    nout: 1,
    loops: &INEXACT_UNARY,
    body: "out0 = xp::asin(in0);",
    preamble: "",
};

/// The inverse cosine (complex: branch cuts as C99 `cacos`).
pub const ARCCOS: ElementwiseOp = ElementwiseOp {
    name: "arccos",
    nin: 1,
    nout: 1,
    loops: &INEXACT_UNARY,
    body: "out0 = xp::acos(in0);",
    preamble: "",
};

/// The inverse tangent (complex: branch cuts as C99 `catan`).
pub const ARCTAN: ElementwiseOp = ElementwiseOp {
    name: "arctan",
    nin: 1,
    nout: 1,
    loops: &INEXACT_UNARY,
    body: "out0 = xp::atan(in0);",
    preamble: "",
};

/// The hyperbolic sine.
pub const SINH: ElementwiseOp =
    ElementwiseOp { name: "sinh", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::sinh(in0);", preamble: "" };

/// The hyperbolic cosine.
pub const COSH: ElementwiseOp =
    ElementwiseOp { name: "cosh", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::cosh(in0);", preamble: "" };

/// The hyperbolic tangent.
pub const TANH: ElementwiseOp =
    ElementwiseOp { name: "tanh", nin: 1, nout: 1, loops: &INEXACT_UNARY, body: "out0 = xp::tanh(in0);", preamble: "" };

/// The inverse hyperbolic sine.
pub const ARCSINH: ElementwiseOp = ElementwiseOp {
    name: "arcsinh",
    nin: 1,
    nout: 1,
    loops: &INEXACT_UNARY,
    body: "out0 = xp::asinh(in0);",
    preamble: "",
};

/// The inverse hyperbolic cosine.
pub const ARCCOSH: ElementwiseOp = ElementwiseOp {
    name: "arccosh",
    nin: 1,
    nout: 1,
    loops: &INEXACT_UNARY,
    body: "out0 = xp::acosh(in0);",
    preamble: "",
};

/// The inverse hyperbolic tangent.
pub const ARCTANH: ElementwiseOp = ElementwiseOp {
    name: "arctanh",
    nin: 1,
    nout: 1,
    loops: &INEXACT_UNARY,
    body: "out0 = xp::atanh(in0);",
    preamble: "",
};

/// 1/x; for integers C's integer division as NumPy computes it (0 for |x| > 1).
pub const RECIPROCAL: ElementwiseOp = ElementwiseOp {
    name: "reciprocal",
    nin: 1,
    nout: 1,
    loops: loops![
        with_body(INT_UNARY, "out0 = xp::integer_reciprocal(in0);"),
        FLOAT_UNARY,
        with_body(COMPLEX_UNARY, "out0 = xp::reciprocal(in0);"),
    ],
    body: "out0 = 1.0f / in0;",
    preamble: "",
};

/// `clip(x, lo, hi)`: min(max(x, lo), hi), where NaN in any operand gives NaN (as NumPy).
pub const CLIP: ElementwiseOp = ElementwiseOp {
    name: "clip",
    nin: 3,
    nout: 1,
    loops: &[
        l("???->?"),
        l("bbb->b"),
        l("BBB->B"),
        l("hhh->h"),
        l("HHH->H"),
        l("iii->i"),
        l("III->I"),
        l("lll->l"),
        l("LLL->L"),
        l("eee->e"),
        l("EEE->E"),
        l("fff->f"),
        l("ddd->d"),
        l("FFF->F"),
        l("DDD->D"),
    ],
    body: "out0 = xp::clip(in0, in1, in2);",
    preamble: "",
};

/// `where(cond, x, y)`: x where cond is true, else y.
pub const WHERE: ElementwiseOp = ElementwiseOp {
    name: "where",
    nin: 3,
    nout: 1,
    loops: &[
        l("???->?"),
        l("?bb->b"),
        l("?BB->B"),
        l("?hh->h"),
        l("?HH->H"),
        l("?ii->i"),
        l("?II->I"),
        l("?ll->l"),
        l("?LL->L"),
        l("?ee->e"),
        l("?EE->E"),
        l("?ff->f"),
        l("?dd->d"),
        l("?FF->F"),
        l("?DD->D"),
    ],
    body: "out0 = in0 ? in1 : in2;",
    preamble: "",
};

/// Every op, `copy` first; NumPy's ufuncs, then SciPy's special functions ([`special`]).
pub const ALL: &[&ElementwiseOp] = &[
    &COPY,
    &ADD,
    &SUBTRACT,
    &MULTIPLY,
    &TRUE_DIVIDE,
    &FLOOR_DIVIDE,
    &REMAINDER,
    &POWER,
    &MAXIMUM,
    &MINIMUM,
    &FMAX,
    &FMIN,
    &EQUAL,
    &NOT_EQUAL,
    &LESS,
    &LESS_EQUAL,
    &GREATER,
    &GREATER_EQUAL,
    &LOGICAL_AND,
    &LOGICAL_OR,
    &LOGICAL_XOR,
    &BITWISE_AND,
    &BITWISE_OR,
    &BITWISE_XOR,
    &LEFT_SHIFT,
    &RIGHT_SHIFT,
    &ARCTAN2,
    &HYPOT,
    &COPYSIGN,
    &NEGATIVE,
    &POSITIVE,
    &ABSOLUTE,
    &SIGN,
    &SQUARE,
    &FLOOR,
    &CEIL,
    &TRUNC,
    &RINT,
    &LOGICAL_NOT,
    &INVERT,
    &BITWISE_COUNT,
    &ISNAN,
    &ISINF,
    &ISFINITE,
    &SIGNBIT,
    &CONJUGATE,
    &SQRT,
    &CBRT,
    &EXP,
    &EXP2,
    &EXPM1,
    &LOG,
    &LOG2,
    &LOG10,
    &LOG1P,
    &SIN,
    &COS,
    &TAN,
    &ARCSIN,
    &ARCCOS,
    &ARCTAN,
    &SINH,
    &COSH,
    &TANH,
    &ARCSINH,
    &ARCCOSH,
    &ARCTANH,
    &RECIPROCAL,
    &CLIP,
    &WHERE,
    // SciPy's special functions (`special.rs`).
    &special::EXPIT,
    &special::LOGIT,
    &special::LOG_EXPIT,
    &special::XLOGY,
    &special::XLOG1PY,
    &special::ENTR,
    &special::REL_ENTR,
    &special::KL_DIV,
    &special::HUBER,
    &special::PSEUDO_HUBER,
    &special::BOXCOX,
    &special::BOXCOX1P,
    &special::INV_BOXCOX,
    &special::INV_BOXCOX1P,
    &special::ERF,
    &special::ERFC,
    &special::ERFCX,
    &special::ERFINV,
    &special::ERFCINV,
    &special::NDTR,
    &special::NDTRI,
    &special::LOG_NDTR,
    &special::GAMMA,
    &special::GAMMALN,
    &special::LOGGAMMA,
    &special::RGAMMA,
    &special::DIGAMMA,
    &special::POLYGAMMA,
    &special::RIEMANN_ZETA,
    &special::ZETA,
    &special::BETA,
    &special::BETALN,
    &special::GAMMAINC,
    &special::GAMMAINCC,
    &special::GAMMAINCINV,
    &special::GAMMAINCCINV,
    &special::BETAINC,
    &special::BETAINCINV,
    &special::BDTR,
    &special::BDTRC,
    &special::BDTRI,
    &special::CHDTR,
    &special::CHDTRC,
    &special::CHDTRI,
    &special::FDTR,
    &special::FDTRC,
    &special::FDTRI,
    &special::GDTR,
    &special::GDTRC,
    &special::NBDTR,
    &special::NBDTRC,
    &special::PDTR,
    &special::PDTRC,
    &special::PDTRI,
    &special::STDTR,
    &special::STDTRIT,
    &special::J0,
    &special::J1,
    &special::Y0,
    &special::Y1,
    &special::JN,
    &special::YN,
    &special::I0,
    &special::I0E,
    &special::I1,
    &special::I1E,
    &special::K0,
    &special::K0E,
    &special::K1,
    &special::K1E,
    &special::IV,
    &special::KV,
    &special::EXPN,
    &special::EXP1,
    &special::EXPI,
    &special::ELLIPK,
    &special::ELLIPKM1,
    &special::ELLIPJ_SN,
    &special::ELLIPJ_CN,
    &special::ELLIPJ_DN,
    &special::ELLIPJ_PH,
    &special::LAMBERTW,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn sigs(op: &ElementwiseOp) -> Vec<&'static str> {
        op.loops.iter().map(|lp| lp.sig).collect()
    }

    #[test]
    fn named_loop_lists_join_in_numpy_order() {
        let firsts: String = sigs(&COPY).iter().map(|s| s.chars().next().unwrap()).collect();
        assert_eq!(firsts, "?bBhHiIlLeEfdFD");
        assert_eq!(sigs(&FLOOR_DIVIDE)[7..9], ["LL->L", "ee->e"]);
        assert_eq!(sigs(&EQUAL)[8..12], ["LL->?", "lL->?", "Ll->?", "ee->?"]);
        assert_eq!(LOGICAL_AND.loops.len(), 15);
    }

    #[test]
    fn with_body_sets_every_loop_and_keeps_the_rest() {
        let isnan = ISNAN.loops;
        assert!(isnan[..9].iter().all(|lp| lp.body == Some("(void)in0; out0 = false;")));
        assert!(isnan[9..].iter().all(|lp| lp.body.is_none()));
        assert_eq!(POWER.loops.iter().filter(|lp| lp.body.is_some()).count(), 10);
        let maximum = MAXIMUM.loops.iter().find(|lp| lp.sig == "DD->D").unwrap();
        assert_eq!(maximum.body, Some("out0 = xp::maximum(in0, in1);"));
    }
}
