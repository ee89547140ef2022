//! Float → integer conversion on any device: NumPy's answer on x86-64 wherever NumPy defines
//! it (truncation toward zero, then, within the int64 range, a wrap to the target's width), and
//! one answer where NumPy's is undefined (NaN → 0, beyond the int64 range → the target's
//! minimum or maximum; to uint64, exact below 2^64), for every float or complex dtype into
//! every integer dtype, by `astype` on the device and by the host's conversions (`full`,
//! `arange`, `linspace`), which must agree with it.

use std::sync::Arc;

use num_complex::Complex;
use xp_array::*;
use xp_backend_api::DynDevice;

const P31: f64 = 2147483648.0;
const P32: f64 = 4294967296.0;
const P63: f64 = 9223372036854775808.0;
const P64: f64 = 18446744073709551616.0;

/// The edge values, as float64: fractions on either side of zero, the extremes of every width
/// and one past them, the largest float64 below 2^63 and 2^64, infinities and NaN.
const EDGES: [f64; 44] = [
    0.0,
    -0.0,
    0.5,
    -0.5,
    0.99,
    -0.99,
    1.5,
    -1.0,
    -1.5,
    127.5,
    128.0,
    -128.5,
    -129.0,
    255.9,
    256.0,
    300.0,
    -300.0,
    32767.5,
    32768.0,
    -32768.9,
    -32769.0,
    65535.9,
    65536.0,
    P31 - 1.0,
    P31 - 0.5,
    P31,
    -P31,
    -P31 - 1.0,
    P32 - 1.0,
    P32,
    9007199254740992.0,
    P63 - 1024.0,
    P63,
    -P63,
    -P63 - 2048.0,
    P64 - 2048.0,
    P64,
    -P64,
    1e300,
    f64::MAX,
    f64::MIN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

const FLOATS: [DType; 4] = [DType::F16, DType::BF16, DType::F32, DType::F64];
const INTS: [DType; 8] = [DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64];

/// The smallest and largest value of an integer dtype.
fn range(d: DType) -> (i128, i128) {
    match d {
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        DType::I64 => (i64::MIN.into(), i64::MAX.into()),
        DType::U8 => (0, u8::MAX.into()),
        DType::U16 => (0, u16::MAX.into()),
        DType::U32 => (0, u32::MAX.into()),
        DType::U64 => (0, u64::MAX.into()),
        _ => unreachable!("{d} is not an integer dtype"),
    }
}

/// The rule, on the host: NaN → 0; beyond the int64 range the range of `d` (uint64 exact
/// below 2^64); within it, truncate and wrap to `d`'s width.
fn model(x: f64, d: DType) -> i128 {
    let (lo, hi) = range(d);
    let width = hi - lo + 1;
    if x.is_nan() {
        0
    } else if d == DType::U64 && (P63..P64).contains(&x) {
        x as i128
    } else if x >= P63 {
        hi
    } else if x < -P63 {
        lo
    } else {
        let w = (x.trunc() as i128).rem_euclid(width);
        if w > hi {
            w - width
        } else {
            w
        }
    }
}

/// The elements of an integer array, widened exactly.
fn ints(a: &Array) -> Vec<i128> {
    fn wide<T: Element + Into<i128>>(a: &Array) -> Vec<i128> {
        a.to_vec::<T>().unwrap().into_iter().map(Into::into).collect()
    }
    match a.dtype() {
        DType::I8 => wide::<i8>(a),
        DType::I16 => wide::<i16>(a),
        DType::I32 => wide::<i32>(a),
        DType::I64 => wide::<i64>(a),
        DType::U8 => wide::<u8>(a),
        DType::U16 => wide::<u16>(a),
        DType::U32 => wide::<u32>(a),
        DType::U64 => wide::<u64>(a),
        d => unreachable!("{d} is not an integer dtype"),
    }
}

/// `x` (any float or complex dtype) cast to every integer dtype and to bool, against the rule
/// applied on the host to the values `x` holds (the real parts, for complex).
fn check_casts_of(x: &Array, what: &str) {
    let held = x.real().astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
    for to in INTS {
        let got = ints(&x.astype(to).unwrap());
        for (k, (&v, &g)) in held.iter().zip(&got).enumerate() {
            assert_eq!(g, model(v, to), "{what} element {k} ({v:e}, from {}) to {to}", x.dtype());
        }
    }
    if !x.dtype().is_complex() {
        let got = x.astype(DType::Bool).unwrap().to_vec::<bool>().unwrap();
        let want: Vec<bool> = held.iter().map(|&v| v != 0.0).collect();
        assert_eq!(got, want, "{what} from {} to bool (NaN is true)", x.dtype());
    }
}

pub fn float_to_integer_casts_follow_numpy_and_saturate_where_it_is_undefined(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        // NumPy's answers where it defines them (its conformance cases check these), and the
        // cases that were wrong: beyond int64 through int64 (+inf to int32 gave -1).
        let one = |v: f64, to: DType| ints(&Array::from_slice(&[v], &[1]).unwrap().astype(to).unwrap())[0];
        assert_eq!(one(-1.0, DType::U32), u32::MAX.into());
        assert_eq!(one(300.0, DType::U8), 44);
        assert_eq!(one(-4.7, DType::U8), 252);
        assert_eq!(one(f64::INFINITY, DType::I32), i32::MAX.into());
        assert_eq!(one(f64::NEG_INFINITY, DType::U16), 0);
        assert_eq!(one(1e20, DType::I32), i32::MAX.into());
        assert_eq!(one(-P63 - 2048.0, DType::I64), i64::MIN.into());
        assert_eq!(one(P64, DType::U64), u64::MAX.into());
        assert_eq!(one(f64::NAN, DType::I16), 0);

        let src = Array::from_slice(&EDGES, &[EDGES.len()]).unwrap();
        // Long enough for every GPU layout (vector loads included), and a strided view of it.
        let tiled: Vec<f64> = EDGES.iter().cycle().take(EDGES.len() * 200 + 3).copied().collect();
        let long = Array::from_vec(tiled).unwrap();
        let strided = long.slice(&[SliceArg::Range { start: None, stop: None, step: Some(-3) }]).unwrap();
        for from in FLOATS {
            check_casts_of(&src.astype(from).unwrap(), "edges");
            check_casts_of(&long.astype(from).unwrap(), "long");
            check_casts_of(&strided.astype(from).unwrap(), "strided");
            check_casts_of(&long.astype(from).unwrap().slice(&[SliceArg::range(1, isize::MAX, 7)]).unwrap(), "view");
        }
        // Complex to integer takes the real part, as NumPy (which warns that it drops the
        // imaginary part); a NaN imaginary part does not matter.
        let z: Vec<Complex<f64>> =
            EDGES.iter().enumerate().map(|(k, &re)| Complex::new(re, [7.0, -1e300, f64::NAN][k % 3])).collect();
        let z = Array::from_vec(z).unwrap();
        for from in [DType::C64, DType::C128] {
            check_casts_of(&z.astype(from).unwrap(), "complex");
        }
    });
}

pub fn host_float_to_integer_conversions_match_the_device_cast(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let src = Array::from_slice(&EDGES, &[EDGES.len()]).unwrap();
        for to in INTS {
            let device = ints(&src.astype(to).unwrap());
            // `full` converts its value on the host.
            let host: Vec<i128> = EDGES.iter().map(|&v| ints(&full(&[2], v, to).unwrap())[1]).collect();
            assert_eq!(host, device, "full(.., value, {to}) against astype");
            let host: Vec<i128> =
                EDGES.iter().map(|&v| ints(&full(&[1], Scalar::Complex(v, 3.0), to).unwrap())[0]).collect();
            assert_eq!(host, device, "full(.., complex value, {to}) against astype");
            // `arange` and `linspace` of floats into an integer dtype.
            for (start, stop, step) in [(-3.5, 4.0, 0.75), (250.5, 260.0, 1.0), (-129.5, -126.0, 0.5), (-2.5, 3.0, 1.0)]
            {
                let host = ints(&arange(start, stop, step, Some(to)).unwrap());
                let device = ints(&arange(start, stop, step, Some(DType::F64)).unwrap().astype(to).unwrap());
                assert_eq!(host, device, "arange({start}, {stop}, {step}, {to}) against astype");
            }
            for (start, stop) in [(-1e10, 1e10), (-P64, P64), (-300.0, 300.0)] {
                let host = ints(&linspace(start, stop, 41, true, Some(to)).unwrap());
                let device = ints(&linspace(start, stop, 41, true, None).unwrap().astype(to).unwrap());
                assert_eq!(host, device, "linspace({start}, {stop}, {to}) against astype");
            }
        }
        assert_eq!(full(&[2], f64::INFINITY, DType::I64).unwrap().to_vec::<i64>().unwrap(), [i64::MAX; 2]);
        assert_eq!(full(&[2], -1.0, DType::U32).unwrap().to_vec::<u32>().unwrap(), [u32::MAX; 2]);
        assert_eq!(arange(-2.5, 3.0, 1.0, Some(DType::U8)).unwrap().to_vec::<u8>().unwrap(), [254, 255, 0, 0, 1, 2]);
    });
}
