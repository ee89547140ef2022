//! Calling elementwise ops (NumPy's ufuncs) on arrays and weak scalars.
//!
//! A call resolves like NumPy: the dtypes of the array operands and the weak scalars give each
//! input's dtype ([`crate::promote`]); the first type loop of the op to which every input
//! converts safely is chosen (an op with no such loop is a `DType` error, NumPy's
//! `TypeError`); inputs broadcast together; the result goes to a new array or to `out=`
//! (converted when its dtype differs, if NumPy's `same_kind` rule allows).
//!
//! On GPUs inputs of other dtypes are converted as they are loaded and scalars are passed by
//! value, all in one kernel. On the CPU, whose kernels are compiled ahead of time for each
//! loop's own dtypes, inputs are converted first and scalars are one-element arrays.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::{Arc, OnceLock};

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, Result};
use xp_kernels::elementwise::{ElementwiseSpec, Operand as KOperand};
use xp_kernels::ops::{ElementwiseOp, TypeLoop};

use crate::element::scalar_bytes;
use crate::exec::{launch_elementwise, target_of, DTypes, EwIn, KernelKey};
use crate::layout::broadcast_shapes;
use crate::promote::{can_cast_safe, can_cast_same_kind, check_int_fits, int_range, promote_types, weak_dtype, Scalar};
use crate::Array;

/// One operand of an op: an array or a weak scalar.
#[derive(Debug, Clone, Copy)]
pub enum Operand<'a> {
    /// An array.
    Array(&'a Array),
    /// A Rust scalar (weak in promotion, as Python scalars in NumPy 2).
    Scalar(Scalar),
}

impl<'a> From<&'a Array> for Operand<'a> {
    fn from(a: &'a Array) -> Self {
        Operand::Array(a)
    }
}
impl From<Scalar> for Operand<'_> {
    fn from(s: Scalar) -> Self {
        Operand::Scalar(s)
    }
}
macro_rules! operand_from_scalar {
    ($($t:ty),*) => { $(impl From<$t> for Operand<'_> { fn from(v: $t) -> Self { Operand::Scalar(v.into()) } })* };
}
operand_from_scalar!(bool);

/// The op named `name` (NumPy's name), if xp has it.
pub fn find_op(name: &str) -> Option<&'static ElementwiseOp> {
    static BY_NAME: OnceLock<FxHashMap<&'static str, &'static ElementwiseOp>> = OnceLock::new();
    BY_NAME.get_or_init(|| xp_kernels::ops::ALL.iter().map(|op| (op.name, *op)).collect()).get(name).copied()
}

fn op_named(name: &str) -> Result<&'static ElementwiseOp> {
    find_op(name).ok_or_else(|| Error::Unsupported(format!("{name}: no such elementwise op")))
}

/// The dtypes of the inputs of a call after weak scalars take theirs.
fn input_dtypes(op: &str, inputs: &[Operand<'_>]) -> Result<SmallVec<[DType; 4]>> {
    let strong = inputs
        .iter()
        .filter_map(|i| match i {
            Operand::Array(a) => Some(a.dtype()),
            Operand::Scalar(_) => None,
        })
        .reduce(promote_types);
    inputs
        .iter()
        .map(|i| match i {
            Operand::Array(a) => Ok(a.dtype()),
            Operand::Scalar(s) => match strong {
                Some(st) => weak_dtype(op, st, s),
                None => Ok(s.default_dtype()),
            },
        })
        .collect()
}

/// The loop of `op` for input dtypes `dts`.
pub(crate) fn resolve_loop(op: &'static ElementwiseOp, dts: &[DType]) -> Result<&'static TypeLoop> {
    // NumPy refuses `-` and `sign` on booleans (use `~` / logical_not).
    if matches!(op.name, "negative" | "sign") && dts.iter().all(|d| *d == DType::Bool) {
        return Err(Error::DType {
            op: op.name.into(),
            reason: "not supported for bool; use logical_not (the `~` operator) instead".into(),
        });
    }
    if op.name == "subtract" && dts.iter().all(|d| *d == DType::Bool) {
        return Err(Error::DType {
            op: op.name.into(),
            reason: "not supported for bool; use logical_xor (the `^` operator) instead".into(),
        });
    }
    // NumPy divides integers in float64.
    if op.name == "true_divide"
        && dts.iter().all(|d| matches!(d.kind(), DTypeKind::Bool | DTypeKind::Signed | DTypeKind::Unsigned))
    {
        if let Some(lp) = op.loops.iter().find(|l| l.sig == "dd->d") {
            return Ok(lp);
        }
    }
    // The search is NumPy's linear one; its answer is kept per (op, input dtypes), so a
    // repeated call does not parse the loops' signatures again.
    // The key is the op's address and the dtypes packed a byte each (no allocation per call);
    // an op of more than eight inputs is searched every time.
    type Memo = parking_lot::RwLock<FxHashMap<(usize, u64), Option<&'static TypeLoop>>>;
    static MEMO: OnceLock<Memo> = OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    let key = (dts.len() <= 8).then(|| {
        let packed = dts.iter().fold(0u64, |k, d| (k << 8) | (*d as u64 + 1));
        (op as *const ElementwiseOp as usize, packed)
    });
    let cached = key.and_then(|k| memo.read().get(&k).copied());
    let found = match cached {
        Some(f) => f,
        None => {
            // As NumPy's dispatch: a loop of exactly the inputs' dtypes first (SciPy lists
            // `d->d` before `f->f`, yet float32 stays float32), then the first loop every
            // input casts to safely.
            let exact = op.loops.iter().find(|lp| {
                let (ins, _) = lp.dtypes();
                ins.as_slice() == dts
            });
            let f = exact.or_else(|| {
                op.loops.iter().find(|lp| {
                    let (ins, _) = lp.dtypes();
                    ins.len() == dts.len() && ins.iter().zip(dts).all(|(l, d)| can_cast_safe(*d, *l))
                })
            });
            if let Some(k) = key {
                memo.write().insert(k, f);
            }
            f
        }
    };
    if let Some(lp) = found {
        return Ok(lp);
    }
    let names: Vec<&str> = dts.iter().map(|d| d.name()).collect();
    Err(Error::DType {
        op: op.name.into(),
        reason: format!("the op is not supported for input dtypes ({})", names.join(", ")),
    })
}

/// Call op `name` on `inputs`, writing to `out` when given (which is also returned). `out` must
/// have the inputs' broadcast shape, their device and a dtype that the result casts to under
/// `same_kind` (else `ShapeMismatch`, `DeviceMismatch`, `DType`); where it overlaps an input
/// other than as the same view, the result is NumPy's, as if every input were read first.
pub fn call(name: &str, inputs: &[Operand<'_>], out: Option<&Array>) -> Result<Array> {
    // `x ** 2` on a float array is `square(x)`, as NumPy's fast scalar power (the same
    // correctly rounded result, without a pow call per element).
    if let ("power", [Operand::Array(x), Operand::Scalar(Scalar::Int(2) | Scalar::Float(2.0))], None) =
        (name, inputs, out)
    {
        if matches!(x.dtype().kind(), DTypeKind::Float | DTypeKind::Complex) {
            return call("square", &[Operand::Array(x)], None);
        }
    }
    let op = op_named(name)?;
    call_op(op, inputs, out)
}

/// The device of a call: the arrays' (all the same), else the current device.
pub(crate) fn common_device(op: &str, arrays: &[&Array]) -> Result<Arc<dyn DynDevice>> {
    let Some(first) = arrays.first() else { return crate::current_device() };
    let d = first.device_arc();
    for a in &arrays[1..] {
        if !Arc::ptr_eq(&a.device_arc(), &d) {
            return Err(Error::DeviceMismatch { op: op.into(), lhs: d.label(), rhs: a.device().label() });
        }
    }
    Ok(d)
}

/// Call `op` (one output) on `inputs`. Without `out`, the result is pending when lazy fusion
/// is on ([`crate::lazy`]): checked now, computed when needed.
pub fn call_op(op: &'static ElementwiseOp, inputs: &[Operand<'_>], out: Option<&Array>) -> Result<Array> {
    call_op_impl(op, inputs, out, true)
}

/// [`call_op`] computed at the call (one kernel), whatever lazy fusion's setting.
pub(crate) fn call_op_now(op: &'static ElementwiseOp, inputs: &[Operand<'_>], out: Option<&Array>) -> Result<Array> {
    call_op_impl(op, inputs, out, false)
}

fn call_op_impl(
    op: &'static ElementwiseOp,
    inputs: &[Operand<'_>],
    out: Option<&Array>,
    allow_lazy: bool,
) -> Result<Array> {
    if inputs.len() != op.nin || op.nout != 1 {
        return Err(Error::value(op.name, format!("takes {} inputs, {} given", op.nin, inputs.len())));
    }
    let arrays: SmallVec<[&Array; 4]> = inputs
        .iter()
        .filter_map(|i| match i {
            Operand::Array(a) => Some(*a),
            _ => None,
        })
        .chain(out)
        .collect();
    let device = common_device(op.name, &arrays)?;
    let dts = input_dtypes(op.name, inputs)?;
    let lp = resolve_loop(op, &dts)?;
    let (loop_in, loop_out) = lp.dtypes();
    let out_dt = loop_out[0];
    let shapes: SmallVec<[&[usize]; 4]> = inputs
        .iter()
        .filter_map(|i| match i {
            Operand::Array(a) => Some(a.shape()),
            _ => None,
        })
        .collect();
    let shape = broadcast_shapes(op.name, &shapes)?;
    if let Some(o) = out {
        if o.shape() != shape.as_slice() {
            return Err(Error::ShapeMismatch {
                op: op.name.into(),
                lhs: o.shape().to_vec(),
                rhs: shape,
                reason: "differ: `out` must have the broadcast shape of the inputs".into(),
            });
        }
        if !can_cast_same_kind(out_dt, o.dtype()) {
            return Err(Error::DType {
                op: op.name.into(),
                reason: format!("cannot cast the result of dtype {out_dt} to `out` of dtype {} (same_kind)", o.dtype()),
            });
        }
    }
    // NumPy's order='K' for a new result: Fortran order when the inputs of the result's shape
    // all are ([`crate::memory_order`]).
    let layout =
        crate::memory_order::elementwise_layout(op.name, &arrays[..arrays.len() - out.is_some() as usize], &shape)?;
    if allow_lazy && out.is_none() && crate::lazy::should_defer(&device, shape.iter().product())? {
        // Every error of the call is raised here, as without fusion: a scalar the loop's
        // dtype cannot hold, or cannot take at all.
        let mut args = Vec::with_capacity(inputs.len());
        for (k, i) in inputs.iter().enumerate() {
            args.push(match i {
                Operand::Array(a) => crate::lazy::Arg::Array((*a).clone()),
                Operand::Scalar(s) => {
                    if let (Scalar::Int(v), true) = (s, loop_in[k].kind() != DTypeKind::Bool) {
                        check_int_fits(op.name, *v, loop_in[k])?;
                    }
                    scalar_bytes(*s, loop_in[k])?;
                    crate::lazy::Arg::Scalar(*s)
                }
            });
        }
        return crate::lazy::defer(crate::lazy::Kind::Op { op, lp }, args, layout, out_dt, device);
    }
    // The kernel writes `out` itself when it has the loop's dtype; otherwise, or when an input
    // overlaps it (below), a temporary that is then copied into it.
    let mut result = match out {
        Some(o) if o.dtype() == out_dt => o.clone(),
        _ => Array::empty_laid_out(&device, layout, out_dt)?,
    };
    let cpu = target_of(&device).prebuilt_loops();
    // Inputs as the kernel sees them: arrays as given where they have the result's shape (and,
    // on the CPU, the loop's dtype), else converted or broadcast copies held here; scalars by
    // value on GPUs, as 0-d arrays on the CPU.
    enum Src<'a> {
        Given(&'a Array),
        Held(Array),
        Value(crate::element::ScalarBytes),
    }
    let mut srcs: Vec<Src<'_>> = Vec::with_capacity(inputs.len());
    let mut storage: Vec<DType> = Vec::with_capacity(inputs.len() + 1);
    let mut scalars = 0u8;
    for (k, i) in inputs.iter().enumerate() {
        match i {
            Operand::Array(a) => {
                let convert = cpu && a.dtype() != loop_in[k];
                srcs.push(if convert || a.shape() != shape.as_slice() {
                    let c = if convert { a.astype(loop_in[k])? } else { (*a).clone() };
                    Src::Held(c.broadcast_to(&shape)?)
                } else {
                    Src::Given(a)
                });
                storage.push(if convert { loop_in[k] } else { a.dtype() });
            }
            Operand::Scalar(s) => {
                if let (Scalar::Int(v), true) = (s, loop_in[k].kind() != DTypeKind::Bool) {
                    check_int_fits(op.name, *v, loop_in[k])?;
                }
                let bytes = scalar_bytes(*s, loop_in[k])?;
                storage.push(loop_in[k]);
                srcs.push(if cpu {
                    Src::Held(Array::from_bytes_on(&device, &[], loop_in[k], &bytes)?.broadcast_to(&shape)?)
                } else {
                    scalars |= 1 << k;
                    Src::Value(bytes)
                });
            }
        }
    }
    storage.push(out_dt);
    // An input that overlaps `out` other than as the very same view (np.add(a[1:], a[:-1],
    // out=a[1:])) would be read after some of its elements were written, in whatever order
    // threads run: NumPy computes as if every input were read first, so the result goes to a
    // temporary first. The same view is read and written in step, elementwise, in place.
    let reads_out = |a: &Array| a.overlaps_unlike(&result);
    if out.is_some_and(|o| o.dtype() == out_dt)
        && srcs.iter().any(|s| match s {
            Src::Given(a) => reads_out(a),
            Src::Held(a) => reads_out(a),
            Src::Value(_) => false,
        })
    {
        result = Array::empty_on(&device, &shape, out_dt)?;
    }
    let ew: Vec<EwIn<'_>> = srcs
        .iter()
        .map(|s| match s {
            Src::Given(a) => EwIn::Array(a),
            Src::Held(a) => EwIn::Array(a),
            Src::Value(b) => EwIn::Value(b),
        })
        .collect();
    let st = DTypes::new(op.name, &storage)?;
    launch_elementwise(
        op.name,
        |layout, index| KernelKey::Ufunc { op: op.name, sig: lp.sig, storage: st, scalars, layout, index },
        |layout, index| ElementwiseSpec {
            op: op.name.to_string(),
            inputs: (0..op.nin)
                .map(|k| {
                    if scalars & (1 << k) != 0 {
                        KOperand::scalar(storage[k], loop_in[k])
                    } else {
                        KOperand::array(storage[k], loop_in[k])
                    }
                })
                .collect(),
            outputs: vec![KOperand::array(out_dt, out_dt)],
            body: lp.body.unwrap_or(op.body).to_string(),
            preamble: op.preamble.to_string(),
            layout,
            index,
            fast: lp.fast,
        },
        &ew,
        &[&result],
    )?;
    match out {
        Some(o) if !result.shares_buffer(o) => {
            result.copy_into(o)?;
            Ok(o.clone())
        }
        _ => Ok(result),
    }
}

/// `clip(x, lo, hi)`: integer bounds beyond `x`'s integer range clamp to it (as NumPy), so
/// they never overflow.
pub fn clip(x: &Array, lo: impl Into<Scalar>, hi: impl Into<Scalar>) -> Result<Array> {
    let fit = |s: Scalar| -> Scalar {
        match (s, x.dtype().kind()) {
            (Scalar::Int(v), DTypeKind::Signed | DTypeKind::Unsigned) => {
                let (lo, hi) = int_range(x.dtype()).expect("an integer dtype has a range");
                Scalar::Int(v.clamp(lo, hi))
            }
            _ => s,
        }
    };
    call("clip", &[Operand::Array(x), Operand::Scalar(fit(lo.into())), Operand::Scalar(fit(hi.into()))], None)
}

/// The result dtype of `where(cond, x, y)` and similar: NumPy's promotion of `x` and `y`.
pub fn where_(cond: &Array, x: Operand<'_>, y: Operand<'_>) -> Result<Array> {
    let c = if cond.dtype() == DType::Bool { cond.clone() } else { cond.astype(DType::Bool)? };
    let dts = input_dtypes("where", &[x, y])?;
    let t = promote_types(dts[0], dts[1]);
    let conv = |o: Operand<'_>| -> Result<Option<Array>> {
        match o {
            Operand::Array(a) if a.dtype() != t => Ok(Some(a.astype(t)?)),
            _ => Ok(None),
        }
    };
    let (xc, yc) = (conv(x)?, conv(y)?);
    let xo = xc.as_ref().map(Operand::Array).unwrap_or(x);
    let yo = yc.as_ref().map(Operand::Array).unwrap_or(y);
    call("where", &[Operand::Array(&c), xo, yo], None)
}

macro_rules! unary_methods {
    ($($name:ident => $op:literal),* $(,)?) => {
        impl Array {
            $(
                #[doc = concat!("NumPy's `", $op, "`, elementwise.")]
                pub fn $name(&self) -> Result<Array> {
                    call($op, &[Operand::Array(self)], None)
                }
            )*
        }
    };
}
unary_methods!(
    negative => "negative", positive => "positive", abs => "absolute", sign => "sign", square => "square",
    floor => "floor", ceil => "ceil", trunc => "trunc", rint => "rint", logical_not => "logical_not",
    invert => "invert", isnan => "isnan", isinf => "isinf", isfinite => "isfinite", signbit => "signbit",
    conj => "conjugate", sqrt => "sqrt", cbrt => "cbrt", exp => "exp", exp2 => "exp2", expm1 => "expm1",
    log => "log", log2 => "log2", log10 => "log10", log1p => "log1p", sin => "sin", cos => "cos",
    tan => "tan", arcsin => "arcsin", arccos => "arccos", arctan => "arctan", sinh => "sinh",
    cosh => "cosh", tanh => "tanh", arcsinh => "arcsinh", arccosh => "arccosh", arctanh => "arctanh",
    reciprocal => "reciprocal", bitwise_count => "bitwise_count",
);

macro_rules! binary_methods {
    ($($name:ident => $op:literal),* $(,)?) => {
        impl Array {
            $(
                #[doc = concat!("NumPy's `", $op, "`, elementwise with broadcasting; `other` is an array or a scalar.")]
                pub fn $name<'a>(&self, other: impl Into<Operand<'a>>) -> Result<Array> {
                    call($op, &[Operand::Array(self), other.into()], None)
                }
            )*
        }
    };
}
binary_methods!(
    add => "add", sub => "subtract", mul => "multiply", div => "true_divide", floor_divide => "floor_divide",
    rem => "remainder", pow => "power", maximum => "maximum", minimum => "minimum", fmax => "fmax",
    fmin => "fmin", eq => "equal", ne => "not_equal", lt => "less", le => "less_equal", gt => "greater",
    ge => "greater_equal", logical_and => "logical_and", logical_or => "logical_or",
    logical_xor => "logical_xor", bitwise_and => "bitwise_and", bitwise_or => "bitwise_or",
    bitwise_xor => "bitwise_xor", left_shift => "left_shift", right_shift => "right_shift",
    arctan2 => "arctan2", hypot => "hypot", copysign => "copysign",
);

impl Array {
    /// `self + s` with a weak scalar (`a.add_scalar(300)` on uint8 is an `Overflow` error).
    pub fn add_scalar(&self, s: impl Into<Scalar>) -> Result<Array> {
        call("add", &[Operand::Array(self), Operand::Scalar(s.into())], None)
    }
    /// `self * s` with a weak scalar.
    pub fn mul_scalar(&self, s: impl Into<Scalar>) -> Result<Array> {
        call("multiply", &[Operand::Array(self), Operand::Scalar(s.into())], None)
    }
    /// `clip(self, lo, hi)`.
    pub fn clip(&self, lo: impl Into<Scalar>, hi: impl Into<Scalar>) -> Result<Array> {
        clip(self, lo, hi)
    }
}

/// A Rust number (`i8` … `u64`, `isize`, `usize`, `f32`, `f64`) or `num_complex::Complex` of
/// `f32`/`f64`: the scalar operands of the operators (`&a * 2.0f32`, `&a + 1u8`,
/// `&x + &y * xp::J`, `x += 1`). Sealed.
///
/// Scalars are weak, as Python's scalars in NumPy: the array's dtype stays unless the scalar's
/// kind is higher (a float scalar with an integer array gives float64, a complex one with a
/// float32 array complex64), and an integer scalar out of the array's range is an error. An
/// array on the right takes any of them through one generic impl, so an untyped literal
/// (`&a * 2.0`) infers; a scalar on the left (`2.0 * &a`) is `f64` or `i64`, for the same reason.
pub trait ScalarOperand: Copy + Into<Scalar> + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

// Every scalar operand of the operators is an `Operand` too.
macro_rules! scalar_operand {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl ScalarOperand for $t {}
        operand_from_scalar!($t);
    )*};
}
scalar_operand!(
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    f32,
    f64,
    num_complex::Complex<f32>,
    num_complex::Complex<f64>
);

macro_rules! operators {
    ($($tr:ident $m:ident => $op:literal),*) => {$(
        impl std::ops::$tr<&Array> for &Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, rhs: &Array) -> Array {
                call($op, &[Operand::Array(self), Operand::Array(rhs)], None).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl std::ops::$tr<Array> for Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, rhs: Array) -> Array {
                std::ops::$tr::$m(&self, &rhs)
            }
        }
        impl std::ops::$tr<&Array> for Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, rhs: &Array) -> Array {
                std::ops::$tr::$m(&self, rhs)
            }
        }
        impl std::ops::$tr<Array> for &Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, rhs: Array) -> Array {
                std::ops::$tr::$m(self, &rhs)
            }
        }
        impl<T: ScalarOperand> std::ops::$tr<T> for &Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, rhs: T) -> Array {
                call($op, &[Operand::Array(self), Operand::Scalar(rhs.into())], None).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<T: ScalarOperand> std::ops::$tr<T> for Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, rhs: T) -> Array {
                std::ops::$tr::$m(&self, rhs)
            }
        }
        operators!(@left $tr $m $op: i64, f64);
    )*};
    (@left $tr:ident $m:ident $op:literal: $($t:ty),*) => {$(
        impl std::ops::$tr<&Array> for $t {
            type Output = Array;
            #[track_caller]
            fn $m(self, rhs: &Array) -> Array {
                call($op, &[Operand::Scalar(self.into()), Operand::Array(rhs)], None).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl std::ops::$tr<Array> for $t {
            type Output = Array;
            #[track_caller]
            fn $m(self, rhs: Array) -> Array {
                std::ops::$tr::$m(self, &rhs)
            }
        }
    )*};
}
operators!(Add add => "add", Sub sub => "subtract", Mul mul => "multiply", Div div => "true_divide",
    Rem rem => "remainder", BitAnd bitand => "bitwise_and", BitOr bitor => "bitwise_or",
    BitXor bitxor => "bitwise_xor", Shl shl => "left_shift", Shr shr => "right_shift");

// In-place operators: NumPy's `x += y` (the op written into `x`'s own buffer, seen by every
// view of it; the result cast to `x`'s dtype under `same_kind`, else a `DType` error), and
// their fallible forms (`x.add_assign(&y)?`).
macro_rules! assign_operators {
    ($($tr:ident $m:ident => $op:literal),*) => {
        impl Array {$(
            #[doc = concat!("NumPy's in-place `", $op, "` (`x op= y`): the result written into `self`, cast to its dtype under `same_kind`; errors as [`call`]'s with `out`.")]
            pub fn $m<'a>(&self, rhs: impl Into<Operand<'a>>) -> Result<()> {
                call($op, &[Operand::Array(self), rhs.into()], Some(self)).map(|_| ())
            }
        )*}
        $(
        impl std::ops::$tr<&Array> for Array {
            #[track_caller]
            fn $m(&mut self, rhs: &Array) {
                Array::$m(self, rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl std::ops::$tr<Array> for Array {
            #[track_caller]
            fn $m(&mut self, rhs: Array) {
                Array::$m(self, &rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        impl<T: ScalarOperand> std::ops::$tr<T> for Array {
            #[track_caller]
            fn $m(&mut self, rhs: T) {
                Array::$m(self, Operand::Scalar(rhs.into())).unwrap_or_else(|e| panic!("{e}"))
            }
        }
        )*
    };
}
assign_operators!(AddAssign add_assign => "add", SubAssign sub_assign => "subtract", MulAssign mul_assign => "multiply",
    DivAssign div_assign => "true_divide", RemAssign rem_assign => "remainder", BitAndAssign bitand_assign => "bitwise_and",
    BitOrAssign bitor_assign => "bitwise_or", BitXorAssign bitxor_assign => "bitwise_xor", ShlAssign shl_assign => "left_shift",
    ShrAssign shr_assign => "right_shift");

impl std::ops::Neg for &Array {
    type Output = Array;
    #[track_caller]
    fn neg(self) -> Array {
        self.negative().unwrap_or_else(|e| panic!("{e}"))
    }
}
impl std::ops::Neg for Array {
    type Output = Array;
    fn neg(self) -> Array {
        -&self
    }
}
impl std::ops::Not for &Array {
    type Output = Array;
    #[track_caller]
    fn not(self) -> Array {
        self.invert().unwrap_or_else(|e| panic!("{e}"))
    }
}
