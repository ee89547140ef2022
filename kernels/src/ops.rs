//! Ops as data: a name, type loops, a C expression and a preamble, from which
//! [`crate::elementwise`] writes kernels.
//!
//! A type loop is written as NumPy writes ufunc loops, `"ff->f"`: one character per input, an
//! arrow, one per output. Characters: `?` bool, `b` int8, `h` int16, `i` int32, `l` int64,
//! `B` uint8, `H` uint16, `I` uint32, `L` uint64, `e` float16, `E` bfloat16, `f` float32,
//! `d` float64, `F` complex64, `D` complex128. The body names inputs `in0, in1…` and outputs
//! `out0…`, all already of the loop's types.

use xp_backend_api::DType;

/// One type loop of an op, with an optional expression that replaces the op's default.
#[derive(Debug, Clone, Copy)]
pub struct TypeLoop {
    /// `"ff->f"`.
    pub sig: &'static str,
    /// A body for this loop only.
    pub body: Option<&'static str>,
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

impl TypeLoop {
    /// Input and output dtypes of the loop.
    pub fn dtypes(&self) -> (Vec<DType>, Vec<DType>) {
        let (i, o) = self.sig.split_once("->").expect("type loops are written `in->out`");
        let conv = |s: &str| s.chars().map(|c| dtype_of_char(c).expect("known type character")).collect();
        (conv(i), conv(o))
    }
}

const fn l(sig: &'static str) -> TypeLoop {
    TypeLoop { sig, body: None }
}

/// `out0 = in0` for every dtype: copies and (with differing storage types) casts.
pub const COPY: ElementwiseOp = ElementwiseOp {
    name: "copy",
    nin: 1,
    nout: 1,
    loops: &[
        l("?->?"),
        l("b->b"),
        l("B->B"),
        l("h->h"),
        l("H->H"),
        l("i->i"),
        l("I->I"),
        l("l->l"),
        l("L->L"),
        l("e->e"),
        l("E->E"),
        l("f->f"),
        l("d->d"),
        l("F->F"),
        l("D->D"),
    ],
    body: "out0 = in0;",
    preamble: "",
};

/// Addition.
pub const ADD: ElementwiseOp = ElementwiseOp {
    name: "add",
    nin: 2,
    nout: 1,
    loops: &[
        TypeLoop { sig: "??->?", body: Some("out0 = in0 || in1;") },
        l("bb->b"),
        l("BB->B"),
        l("hh->h"),
        l("HH->H"),
        l("ii->i"),
        l("II->I"),
        l("ll->l"),
        l("LL->L"),
        l("ee->e"),
        l("EE->E"),
        l("ff->f"),
        l("dd->d"),
        l("FF->F"),
        l("DD->D"),
    ],
    body: "out0 = in0 + in1;",
    preamble: "",
};

/// Multiplication.
pub const MULTIPLY: ElementwiseOp = ElementwiseOp {
    name: "multiply",
    nin: 2,
    nout: 1,
    loops: &[
        TypeLoop { sig: "??->?", body: Some("out0 = in0 && in1;") },
        l("bb->b"),
        l("BB->B"),
        l("hh->h"),
        l("HH->H"),
        l("ii->i"),
        l("II->I"),
        l("ll->l"),
        l("LL->L"),
        l("ee->e"),
        l("EE->E"),
        l("ff->f"),
        l("dd->d"),
        l("FF->F"),
        l("DD->D"),
    ],
    body: "out0 = in0 * in1;",
    preamble: "",
};

/// The ops of the foundation; the array crate adds the rest of NumPy's ufuncs.
pub const ALL: &[&ElementwiseOp] = &[&COPY, &ADD, &MULTIPLY];
