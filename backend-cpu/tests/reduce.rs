//! Reduction and scan plans executed on the CPU backend: the kernels of `xp_kernels::reduce`
//! and `xp_kernels::scan`, compiled at run time, launched with raw arguments, compared with a
//! reference computed in f64 (integers exactly, with NumPy's wrapping) within the accuracy
//! contract: |got - exact| <= 4 (ceil(log2 n) + 2) eps sum|x| for sums, means and cumsums.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use xp_backend_api::{Backend, Buffer, DType, DynDevice, KernelArg, KernelSource};
use xp_backend_cpu::CpuBackend;
use xp_kernels::reduce::{builtin_reduce, plan_reduce, PlanArg, PlannedLaunch, Target};
use xp_kernels::scan::{builtin_scan, plan_scan};

fn dev() -> Arc<dyn DynDevice> {
    CpuBackend::device(0).expect("the CPU device opens")
}

fn target(d: &dyn DynDevice) -> Target {
    Target::Cpu { workers: d.properties().multiprocessor_count as usize }
}

// ---------------------------------------------------------------------------------------------
// Element encoding
// ---------------------------------------------------------------------------------------------

fn f16_bits(x: f32) -> u16 {
    // Round to nearest even (test values are mostly exactly representable anyway).
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 6.103_515_6e-5 {
        // Subnormal: units of 2^-24.
        let m = (a * 16_777_216.0).round_ties_even() as u16;
        return sign | m;
    }
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let m = b & 0x7f_ffff;
    let mut h = ((e as u32) << 10) | (m >> 13);
    let rest = m & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && (h & 1) == 1) {
        h += 1;
    }
    sign | h as u16
}

fn f16_value(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f32;
    if e == 0 {
        sign * m * 2f32.powi(-24)
    } else if e == 31 {
        if m == 0.0 {
            sign * f32::INFINITY
        } else {
            f32::NAN
        }
    } else {
        sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15)
    }
}

/// A value: real and imaginary parts (imaginary 0 for real dtypes).
type V = (f64, f64);

fn encode(d: DType, v: V, out: &mut Vec<u8>) {
    match d {
        DType::Bool => out.push((v.0 != 0.0 || v.1 != 0.0) as u8),
        DType::I8 => out.extend((v.0 as i8).to_ne_bytes()),
        DType::I16 => out.extend((v.0 as i16).to_ne_bytes()),
        DType::I32 => out.extend((v.0 as i32).to_ne_bytes()),
        DType::I64 => out.extend((v.0 as i64).to_ne_bytes()),
        DType::U8 => out.extend((v.0 as u8).to_ne_bytes()),
        DType::U16 => out.extend((v.0 as u16).to_ne_bytes()),
        DType::U32 => out.extend((v.0 as u32).to_ne_bytes()),
        DType::U64 => out.extend((v.0 as u64).to_ne_bytes()),
        DType::F16 => out.extend(f16_bits(v.0 as f32).to_ne_bytes()),
        DType::BF16 => out.extend(((((v.0 as f32).to_bits()) >> 16) as u16).to_ne_bytes()),
        DType::F32 => out.extend((v.0 as f32).to_ne_bytes()),
        DType::F64 => out.extend(v.0.to_ne_bytes()),
        DType::C64 => {
            out.extend((v.0 as f32).to_ne_bytes());
            out.extend((v.1 as f32).to_ne_bytes());
        }
        DType::C128 => {
            out.extend(v.0.to_ne_bytes());
            out.extend(v.1.to_ne_bytes());
        }
    }
}

/// What an output element holds: a float (pair) or an exact integer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Got {
    F(f64, f64),
    I(i128),
}

fn decode(d: DType, b: &[u8]) -> Got {
    let a8 = |b: &[u8]| -> [u8; 8] { b[..8].try_into().unwrap() };
    let a4 = |b: &[u8]| -> [u8; 4] { b[..4].try_into().unwrap() };
    match d {
        DType::Bool | DType::U8 => Got::I(b[0] as i128),
        DType::I8 => Got::I(b[0] as i8 as i128),
        DType::I16 => Got::I(i16::from_ne_bytes([b[0], b[1]]) as i128),
        DType::U16 => Got::I(u16::from_ne_bytes([b[0], b[1]]) as i128),
        DType::I32 => Got::I(i32::from_ne_bytes(a4(b)) as i128),
        DType::U32 => Got::I(u32::from_ne_bytes(a4(b)) as i128),
        DType::I64 => Got::I(i64::from_ne_bytes(a8(b)) as i128),
        DType::U64 => Got::I(u64::from_ne_bytes(a8(b)) as i128),
        DType::F16 => Got::F(f16_value(u16::from_ne_bytes([b[0], b[1]])) as f64, 0.0),
        DType::F32 => Got::F(f32::from_ne_bytes(a4(b)) as f64, 0.0),
        DType::F64 => Got::F(f64::from_ne_bytes(a8(b)), 0.0),
        DType::C64 => Got::F(f32::from_ne_bytes(a4(b)) as f64, f32::from_ne_bytes(a4(&b[4..])) as f64),
        DType::C128 => Got::F(f64::from_ne_bytes(a8(b)), f64::from_ne_bytes(a8(&b[8..]))),
        other => panic!("no decoder for {other}"),
    }
}

fn eps(d: DType) -> f64 {
    match d {
        DType::F16 => 2f64.powi(-10),
        DType::BF16 => 2f64.powi(-7),
        DType::F32 | DType::C64 => 2f64.powi(-23),
        _ => 2f64.powi(-52),
    }
}

// ---------------------------------------------------------------------------------------------
// Arrays: a backing buffer of values and a strided view of it
// ---------------------------------------------------------------------------------------------

struct View {
    backing: Vec<V>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
}

impl View {
    fn contiguous(values: Vec<V>, shape: &[usize]) -> View {
        let mut strides = vec![1isize; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1] as isize;
        }
        View { backing: values, shape: shape.to_vec(), strides, offset: 0 }
    }

    fn at(&self, idx: &[usize]) -> V {
        let off = self.offset as isize + idx.iter().zip(&self.strides).map(|(&i, &s)| i as isize * s).sum::<isize>();
        self.backing[off as usize]
    }
}

fn gen_values(d: DType, n: usize, rng: &mut impl Rng) -> Vec<V> {
    (0..n)
        .map(|_| match d {
            DType::Bool => ((rng.random_range(0..3) != 0) as u8 as f64, 0.0),
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => (rng.random_range(-100..100) as f64, 0.0),
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => (rng.random_range(0..200) as f64, 0.0),
            // Multiples of 1/64 in [-2, 2): exact in float16, with ties for argmin/argmax.
            DType::F16 | DType::BF16 => (rng.random_range(-128..128) as f64 / 64.0, 0.0),
            DType::F32 => ((rng.random::<f32>() * 2.0 - 0.5) as f64, 0.0),
            DType::F64 => (rng.random::<f64>() * 2.0 - 0.5, 0.0),
            DType::C64 => ((rng.random::<f32>() - 0.3) as f64, (rng.random::<f32>() - 0.6) as f64),
            DType::C128 => (rng.random::<f64>() - 0.3, rng.random::<f64>() - 0.6),
        })
        .collect()
}

/// Every index of `shape` in C order.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    (0..n)
        .map(|mut f| {
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = f % shape[d];
                f /= shape[d];
            }
            idx
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Running plans
// ---------------------------------------------------------------------------------------------

fn upload(d: &dyn DynDevice, bytes: &[u8]) -> Buffer {
    let s = d.default_stream();
    let b = d.alloc(bytes.len().max(16), &s).unwrap();
    if !bytes.is_empty() {
        s.copy_from_host(&b, 0, bytes).unwrap();
    }
    b
}

/// Run `launches` with the input `view` (of dtype `dt`), an output of `out_bytes` bytes and
/// `scratch` bytes of scratch; returns the output bytes.
fn run_launches(launches: &[PlannedLaunch], scratch: usize, view: &View, dt: DType, out_bytes: usize) -> Vec<u8> {
    let d = dev();
    let mut bytes = Vec::new();
    for v in &view.backing {
        encode(dt, *v, &mut bytes);
    }
    let input = upload(&*d, &bytes);
    let out = upload(&*d, &vec![0xa5u8; out_bytes]);
    let scratch_buf = upload(&*d, &vec![0x5au8; scratch]);
    for l in launches {
        let module = d.compile(&KernelSource::new(&l.kernel.name, &l.kernel.code), &Default::default()).unwrap();
        let k = module.function(&l.kernel.name).unwrap();
        let values: Vec<Option<Vec<u8>>> = l.args.iter().map(|a| a.value_bytes()).collect();
        let args: Vec<KernelArg<'_>> = l
            .args
            .iter()
            .zip(&values)
            .map(|(a, v)| match a {
                PlanArg::Input { offset_elems } => KernelArg::Buffer {
                    buffer: &input,
                    offset_bytes: ((view.offset as isize + offset_elems) * dt.size() as isize) as usize,
                },
                PlanArg::Output => KernelArg::buffer(&out),
                PlanArg::Scratch { offset_bytes } => {
                    KernelArg::Buffer { buffer: &scratch_buf, offset_bytes: *offset_bytes }
                }
                _ => KernelArg::Value(v.as_ref().expect("by-value argument")),
            })
            .collect();
        d.default_stream().launch(&*k, &l.config, &args).unwrap();
    }
    let mut got = vec![0u8; out_bytes];
    if out_bytes > 0 {
        d.default_stream().copy_to_host(&out, 0, &mut got).unwrap();
    }
    got
}

// ---------------------------------------------------------------------------------------------
// Reductions: reference and check
// ---------------------------------------------------------------------------------------------

/// Neumaier's compensated sum: the reference's own error stays near one rounding.
#[derive(Clone, Copy, Default)]
struct Exact {
    s: f64,
    c: f64,
}

impl Exact {
    fn add(&mut self, x: f64) {
        let t = self.s + x;
        if self.s.abs() >= x.abs() {
            self.c += (self.s - t) + x;
        } else {
            self.c += (x - t) + self.s;
        }
        self.s = t;
    }
    fn get(&self) -> f64 {
        self.s + self.c
    }
}

fn exact_sum(xs: impl Iterator<Item = f64>) -> f64 {
    let mut e = Exact::default();
    for x in xs {
        e.add(x);
    }
    e.get()
}

fn lg(n: usize) -> f64 {
    (n.max(1) as f64).log2().ceil()
}

/// Check one reduction of `view` over `axes` against the reference.
fn check_reduce(name: &str, dt: DType, view: &View, axes: &[usize], ddof: i64) {
    check_reduce_planned_for(name, dt, view, axes, ddof, target(&*dev()));
}

/// As [`check_reduce`], with the plan made for `target` (any worker count runs correctly).
fn check_reduce_planned_for(name: &str, dt: DType, view: &View, axes: &[usize], ddof: i64, target: Target) {
    let op = builtin_reduce(name, dt, ddof).unwrap();
    let plan = plan_reduce(&op, &view.shape, &view.strides, axes, target).unwrap();
    let kept: Vec<usize> = (0..view.shape.len()).filter(|a| !axes.contains(a)).collect();
    let kshape: Vec<usize> = kept.iter().map(|&a| view.shape[a]).collect();
    let rshape: Vec<usize> = axes.iter().map(|&a| view.shape[a]).collect();
    let n_out: usize = kshape.iter().product();
    assert_eq!(plan.n_out, n_out);
    let osz = op.out_type.size();
    let got = run_launches(&plan.launches, plan.scratch_bytes, view, dt, n_out * osz);
    let ctx = format!(
        "{name}({dt}) shape {:?} strides {:?} axes {axes:?} ddof {ddof} for {target:?}",
        view.shape, view.strides
    );
    let ridx = indices(&rshape);
    for (o, kidx) in indices(&kshape).iter().enumerate() {
        let xs: Vec<V> = ridx
            .iter()
            .map(|r| {
                let mut full = vec![0; view.shape.len()];
                for (i, &a) in kept.iter().enumerate() {
                    full[a] = kidx[i];
                }
                for (i, &a) in axes.iter().enumerate() {
                    full[a] = r[i];
                }
                view.at(&full)
            })
            .collect();
        let g = decode(op.out_type, &got[o * osz..(o + 1) * osz]);
        check_one(name, dt, op.out_type, &xs, ddof, g, &format!("{ctx}, output {o}"));
    }
}

fn close(got: f64, want: f64, tol: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= tol
}

fn check_one(name: &str, dt: DType, out: DType, xs: &[V], ddof: i64, g: Got, ctx: &str) {
    let n = xs.len();
    let int_in = dt == DType::Bool || dt.is_integer();
    let as_int = |v: V| -> i128 {
        if dt == DType::Bool {
            (v.0 != 0.0) as i128
        } else {
            v.0 as i128
        }
    };
    let truthy = |v: V| v.0 != 0.0 || v.1 != 0.0 || v.0.is_nan();
    let e = eps(out);
    let sum_abs: f64 = xs.iter().filter(|v| !v.0.is_nan()).map(|v| v.0.abs() + v.1.abs()).sum();
    let complex = out.is_complex();
    let bound = 4.0 * (lg(n) + 2.0) * e * sum_abs;
    match name {
        "sum" | "prod" if int_in => {
            let want: i128 = if dt.is_unsigned_integer() {
                let mut acc: u64 = if name == "sum" { 0 } else { 1 };
                for v in xs {
                    let x = as_int(*v) as u64;
                    acc = if name == "sum" { acc.wrapping_add(x) } else { acc.wrapping_mul(x) };
                }
                acc as i128
            } else {
                let mut acc: i64 = if name == "sum" { 0 } else { 1 };
                for v in xs {
                    let x = as_int(*v) as i64;
                    acc = if name == "sum" { acc.wrapping_add(x) } else { acc.wrapping_mul(x) };
                }
                acc as i128
            };
            assert_eq!(g, Got::I(want), "{ctx}");
        }
        "sum" | "mean" => {
            let (sr, si) = (exact_sum(xs.iter().map(|v| v.0)), exact_sum(xs.iter().map(|v| v.1)));
            let (want, tol) =
                if name == "mean" { (((sr / n as f64), (si / n as f64)), bound / n as f64) } else { ((sr, si), bound) };
            let Got::F(gr, gi) = g else { panic!("{ctx}: {g:?}") };
            assert!(
                close(gr, want.0, tol) && (!complex || close(gi, want.1, tol)),
                "{ctx}: got ({gr}, {gi}), want {want:?}, tol {tol}"
            );
        }
        "prod" => {
            let mut p = (1.0f64, 0.0f64);
            for v in xs {
                p = (p.0 * v.0 - p.1 * v.1, p.0 * v.1 + p.1 * v.0);
            }
            let Got::F(gr, gi) = g else { panic!("{ctx}: {g:?}") };
            let tol = 4.0 * (n as f64 + 2.0) * e * (p.0.abs() + p.1.abs()) + f64::MIN_POSITIVE;
            assert!(close(gr, p.0, tol) && close(gi, p.1, tol), "{ctx}: got ({gr}, {gi}), want {p:?}");
        }
        "var" | "std" => {
            let mr = exact_sum(xs.iter().map(|v| v.0)) / n as f64;
            let mi = exact_sum(xs.iter().map(|v| v.1)) / n as f64;
            let m2 = exact_sum(xs.iter().map(|v| (v.0 - mr).powi(2) + (v.1 - mi).powi(2)));
            let sq: f64 = xs.iter().map(|v| v.0 * v.0 + v.1 * v.1).sum();
            let dd = (n as i64 - ddof).max(0) as f64;
            let var = m2 / dd;
            let Got::F(gv, _) = g else { panic!("{ctx}: {g:?}") };
            let tol = 8.0 * (lg(n) + 2.0) * e * sq / dd.max(1.0) + 2.0 * e * var.abs();
            let gvar = if name == "std" { gv * gv } else { gv };
            if var.is_nan() || var.is_infinite() {
                assert!(close(gv, if name == "std" { var.sqrt() } else { var }, 0.0), "{ctx}: got {gv}, want {var}");
            } else {
                assert!((gvar - var).abs() <= tol, "{ctx}: got {gv} (variance {gvar}), want variance {var}, tol {tol}");
            }
        }
        "min" | "max" => {
            let mut want = xs[0].0;
            if xs.iter().any(|v| v.0.is_nan()) {
                want = f64::NAN;
            } else {
                for v in xs {
                    if (name == "min" && v.0 < want) || (name == "max" && v.0 > want) {
                        want = v.0;
                    }
                }
            }
            match g {
                Got::I(i) => {
                    let want = if dt == DType::Bool { (want != 0.0) as i128 } else { want as i128 };
                    assert_eq!(i, want, "{ctx}");
                }
                Got::F(f, _) => assert!(close(f, want, 0.0), "{ctx}: got {f}, want {want}"),
            }
        }
        "argmin" | "argmax" => {
            let nan = |v: &V| v.0.is_nan() || v.1.is_nan();
            let mut best = 0usize;
            if let Some(i) = xs.iter().position(nan) {
                best = i;
            } else {
                for (i, v) in xs.iter().enumerate() {
                    let b = xs[best];
                    let better = if name == "argmin" {
                        v.0 < b.0 || (v.0 == b.0 && v.1 < b.1)
                    } else {
                        v.0 > b.0 || (v.0 == b.0 && v.1 > b.1)
                    };
                    if better {
                        best = i;
                    }
                }
            }
            assert_eq!(g, Got::I(best as i128), "{ctx}");
        }
        "any" => assert_eq!(g, Got::I(xs.iter().any(|v| truthy(*v)) as i128), "{ctx}"),
        "all" => assert_eq!(g, Got::I(xs.iter().all(|v| truthy(*v)) as i128), "{ctx}"),
        _ => unreachable!(),
    }
}

fn ops_dtypes() -> Vec<(&'static str, Vec<DType>)> {
    use DType::*;
    vec![
        ("sum", vec![F32, F64, F16, Bool, U8, I64, I8, C64]),
        ("prod", vec![F64, I64, U8, C64]),
        ("mean", vec![F32, F16, I64, U8, Bool, C64]),
        ("var", vec![F32, F64, F16, I64, C64, Bool]),
        ("std", vec![F32, F16, I64, C64]),
        ("min", vec![F32, F16, I64, U8, Bool]),
        ("max", vec![F32, F64, I8, U8, Bool]),
        ("argmin", vec![F32, F16, I64, U8, Bool, C64]),
        ("argmax", vec![F32, F64, I64, U8, Bool, C64]),
        ("any", vec![F32, Bool, U8, C64]),
        ("all", vec![F32, Bool, U8, C64]),
    ]
}

fn prod_values(dt: DType, n: usize, rng: &mut impl Rng) -> Vec<V> {
    // Values near 1 (floats) or mostly 1 and -1 with a few 2s and 3s (integers, wrapping).
    (0..n)
        .map(|_| match dt {
            d if d.is_float() => (1.0 + (rng.random::<f64>() - 0.5) / 64.0, 0.0),
            d if d.is_complex() => (1.0 + (rng.random::<f64>() - 0.5) / 64.0, (rng.random::<f64>() - 0.5) / 64.0),
            DType::U8 => ([1.0, 1.0, 1.0, 3.0, 2.0][rng.random_range(0..5)], 0.0),
            _ => ([1.0, -1.0, 1.0, 3.0, 2.0, -7.0][rng.random_range(0..6)], 0.0),
        })
        .collect()
}

fn views(dt: DType, name: &str, rng: &mut rand::rngs::StdRng) -> Vec<(View, Vec<usize>)> {
    let gen = |n: usize, rng: &mut rand::rngs::StdRng| {
        if name == "prod" {
            prod_values(dt, n, rng)
        } else {
            gen_values(dt, n, rng)
        }
    };
    let mut v = Vec::new();
    v.push((View::contiguous(gen(257, rng), &[257]), vec![0]));
    v.push((View::contiguous(gen(4099, rng), &[4099]), vec![0]));
    for axes in [vec![0], vec![1], vec![0, 1]] {
        v.push((View::contiguous(gen(33 * 65, rng), &[33, 65]), axes));
    }
    v.push((View::contiguous(gen(3 * 1025, rng), &[3, 1025]), vec![1]));
    v.push((View::contiguous(gen(3 * 1025, rng), &[3, 1025]), vec![0]));
    v.push((View::contiguous(gen(210, rng), &[2, 3, 5, 7]), vec![0, 3]));
    // A transposed (65, 33) view of a C-contiguous (33, 65).
    let t = View { backing: gen(33 * 65, rng), shape: vec![65, 33], strides: vec![1, 65], offset: 0 };
    v.push((t, vec![0]));
    let t = View { backing: gen(33 * 65, rng), shape: vec![65, 33], strides: vec![1, 65], offset: 0 };
    v.push((t, vec![0, 1]));
    // Reversed and stepped: a[::-1, ::2] of a (33, 65).
    let r = View { backing: gen(33 * 65, rng), shape: vec![33, 33], strides: vec![-65, 2], offset: 32 * 65 };
    v.push((r, vec![1]));
    let r = View { backing: gen(33 * 65, rng), shape: vec![33, 33], strides: vec![-65, 2], offset: 32 * 65 };
    v.push((r, vec![0, 1]));
    // A broadcast (zero-stride) dimension.
    let b = View { backing: gen(40, rng), shape: vec![7, 40], strides: vec![0, 1], offset: 0 };
    v.push((b, vec![0]));
    v
}

fn rng() -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(0x5eed)
}

#[test]
fn every_op_on_every_layout() {
    let mut rng = rng();
    for (name, dts) in ops_dtypes() {
        for dt in dts {
            for (view, axes) in views(dt, name, &mut rng) {
                check_reduce(name, dt, &view, &axes, 0);
                if name == "var" || name == "std" {
                    check_reduce(name, dt, &view, &axes, 1);
                }
            }
        }
    }
}

#[test]
fn a_million_elements() {
    let mut rng = rng();
    let n = 1 << 20;
    for (name, dt) in [("sum", DType::F32), ("mean", DType::F64), ("var", DType::F32), ("argmax", DType::F32)] {
        check_reduce(name, dt, &View::contiguous(gen_values(dt, n, &mut rng), &[n]), &[0], 0);
    }
    check_reduce("sum", DType::I64, &View::contiguous(gen_values(DType::I64, n, &mut rng), &[n]), &[0], 0);
    check_reduce("sum", DType::F16, &View::contiguous(gen_values(DType::F16, n, &mut rng), &[n]), &[0], 0);
    // Few long columns and many short rows.
    check_reduce("sum", DType::F32, &View::contiguous(gen_values(DType::F32, n, &mut rng), &[1 << 14, 64]), &[0], 0);
    check_reduce("std", DType::F32, &View::contiguous(gen_values(DType::F32, n, &mut rng), &[1 << 14, 64]), &[1], 1);
}

#[test]
fn positive_float_sums_stay_within_the_log_bound() {
    // All-positive data is where sequential summation drifts most.
    let n = 1 << 20;
    let xs: Vec<V> = (0..n).map(|i| (1.0 + (i % 7) as f64 / 8.0, 0.0)).collect();
    check_reduce("sum", DType::F32, &View::contiguous(xs.clone(), &[n]), &[0], 0);
    check_reduce("mean", DType::F16, &View::contiguous(xs, &[n]), &[0], 0);
}

#[test]
fn zero_size() {
    // Empty reduced range: identities through post (sum 0, prod 1, mean NaN, var NaN).
    for (name, dt) in [
        ("sum", DType::F32),
        ("prod", DType::I64),
        ("mean", DType::F64),
        ("var", DType::F32),
        ("any", DType::U8),
        ("all", DType::F32),
    ] {
        let view = View { backing: vec![], shape: vec![3, 0], strides: vec![0, 1], offset: 0 };
        check_reduce(name, dt, &view, &[1], 0);
        let view = View { backing: vec![], shape: vec![0], strides: vec![1], offset: 0 };
        check_reduce(name, dt, &view, &[0], 0);
    }
    // Empty output: no launch.
    let op = builtin_reduce("sum", DType::F32, 0).unwrap();
    assert!(plan_reduce(&op, &[0, 4], &[4, 1], &[1], Target::Cpu { workers: 2 }).unwrap().launches.is_empty());
}

#[test]
fn nan_propagates_and_the_first_nan_wins() {
    let mut rng = rng();
    for dt in [DType::F32, DType::F16, DType::F64] {
        let mut xs = gen_values(dt, 3000, &mut rng);
        xs[1700] = (f64::NAN, 0.0);
        xs[2900] = (f64::NAN, 0.0);
        let view = View::contiguous(xs, &[3000]);
        for name in ["min", "max", "argmin", "argmax", "sum", "any", "all"] {
            if name == "sum" && dt != DType::F32 {
                continue;
            }
            check_reduce(name, dt, &view, &[0], 0);
        }
        let mut xs = gen_values(dt, 40 * 50, &mut rng);
        xs[7 * 50 + 3] = (f64::NAN, 0.0);
        xs[30 * 50 + 3] = (f64::NAN, 0.0);
        let view = View::contiguous(xs, &[40, 50]);
        check_reduce("argmax", dt, &view, &[0], 0);
        check_reduce("min", dt, &view, &[0], 0);
    }
}

#[test]
fn argmin_ties_pick_the_first_index_across_split_segments() {
    // A constant vector long enough to be split across work items: every element ties.
    let n = 1 << 18;
    let view = View::contiguous(vec![(3.0, 0.0); n], &[n]);
    for name in ["argmin", "argmax"] {
        check_reduce(name, DType::F32, &view, &[0], 0);
        check_reduce(name, DType::I64, &view, &[0], 0);
    }
    // Two equal minima, the second in a later segment.
    let mut xs = vec![(5.0, 0.0); n];
    xs[100_000] = (1.0, 0.0);
    xs[200_000] = (1.0, 0.0);
    check_reduce("argmin", DType::U8, &View::contiguous(xs, &[n]), &[0], 0);
}

#[test]
fn column_reductions_in_tiles_on_every_layout() {
    // Outputs contiguous, the reduced axis strided: work items read rows along tiles of
    // outputs, rows split into segments when the tiles are too few. Wide rows (several tiles,
    // widths no multiple of a tile), narrow ones, one or many segments, and views: row-stepped,
    // reversed, transposed, a reduced range of two dimensions that do not merge.
    use DType::*;
    let mut rng = rng();
    let ops = [("mean", F32), ("sum", F64), ("sum", I8), ("var", F32), ("std", F16), ("argmax", F32), ("min", U8)];
    let targets = [Target::Cpu { workers: 1 }, Target::Cpu { workers: 8 }];
    for (name, dt) in ops {
        let mut cases: Vec<(View, Vec<usize>)> = Vec::new();
        for shape in [[70, 4099], [40, 9000], [700, 24], [3000, 9]] {
            let n = shape[0] * shape[1];
            cases.push((View::contiguous(gen_values(dt, n, &mut rng), &shape), vec![0]));
        }
        // Every other row of a (200, 1000), then the rows of a (130, 1000) reversed.
        let stepped = View {
            backing: gen_values(dt, 200_000, &mut rng),
            shape: vec![100, 1000],
            strides: vec![2000, 1],
            offset: 0,
        };
        cases.push((stepped, vec![0]));
        let reversed = View {
            backing: gen_values(dt, 130_000, &mut rng),
            shape: vec![130, 1000],
            strides: vec![-1000, 1],
            offset: 129_000,
        };
        cases.push((reversed, vec![0]));
        // The transpose of a C-contiguous (3000, 40), reduced along its rows.
        let t =
            View { backing: gen_values(dt, 120_000, &mut rng), shape: vec![40, 3000], strides: vec![1, 40], offset: 0 };
        cases.push((t, vec![1]));
        // a[:, :99, :] of a C-contiguous (10, 100, 100), reduced over its first two axes.
        let sub = View {
            backing: gen_values(dt, 100_000, &mut rng),
            shape: vec![10, 99, 100],
            strides: vec![10000, 100, 1],
            offset: 0,
        };
        cases.push((sub, vec![0, 1]));
        for (view, axes) in &cases {
            for t in targets {
                check_reduce_planned_for(name, dt, view, axes, 0, t);
            }
        }
    }
}

#[test]
fn column_argmax_ties_and_nans_across_segments() {
    // Constant columns tie everywhere: the first row wins, whichever segment holds it.
    let view = View::contiguous(vec![(2.0, 0.0); 2000 * 40], &[2000, 40]);
    for t in [Target::Cpu { workers: 1 }, Target::Cpu { workers: 8 }] {
        for name in ["argmax", "argmin"] {
            check_reduce_planned_for(name, DType::F32, &view, &[0], 0, t);
        }
    }
    // Two NaNs in one column, in different segments: the first one wins.
    let mut rng = rng();
    let mut xs = gen_values(DType::F32, 2000 * 40, &mut rng);
    xs[300 * 40 + 7] = (f64::NAN, 0.0);
    xs[1900 * 40 + 7] = (f64::NAN, 0.0);
    let view = View::contiguous(xs, &[2000, 40]);
    for name in ["argmax", "max", "sum"] {
        check_reduce_planned_for(name, DType::F32, &view, &[0], 0, Target::Cpu { workers: 8 });
    }
}

#[test]
fn long_column_sums_stay_within_the_log_bound() {
    // 2^20 rows of 0.1f: a sequential float32 sum drifts by about 4%; blocks of rows combined
    // in a cascade stay within a few ulps per level.
    let (rows, cols) = (1usize << 20, 8usize);
    let x = 0.1f32;
    let view = View::contiguous(vec![(x as f64, 0.0); rows * cols], &[rows, cols]);
    for name in ["sum", "mean"] {
        let op = builtin_reduce(name, DType::F32, 0).unwrap();
        for t in [Target::Cpu { workers: 1 }, Target::Cpu { workers: 2 }] {
            let plan = plan_reduce(&op, &view.shape, &view.strides, &[0], t).unwrap();
            assert_ne!(plan.launches[0].args[11], PlanArg::I64(0), "tile mode");
            let got = run_launches(&plan.launches, plan.scratch_bytes, &view, DType::F32, cols * 4);
            let want = if name == "sum" { rows as f64 * x as f64 } else { x as f64 };
            let tol = 4.0 * (lg(rows) + 2.0) * eps(DType::F32) * want;
            for c in 0..cols {
                let Got::F(g, _) = decode(DType::F32, &got[c * 4..c * 4 + 4]) else { unreachable!() };
                assert!((g - want).abs() <= tol, "{name} column {c} for {t:?}: got {g}, want {want}, tol {tol}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scans
// ---------------------------------------------------------------------------------------------

fn check_scan(name: &str, dt: DType, view: &View, axis: usize) {
    let d = dev();
    let op = builtin_scan(name, dt).unwrap();
    let plan = plan_scan(&op, &view.shape, &view.strides, axis, target(&*d)).unwrap();
    let n: usize = view.shape.iter().product();
    let osz = op.out_type.size();
    let got = run_launches(&plan.launches, plan.scratch_bytes, view, dt, n * osz);
    let ctx = format!("{name}({dt}) shape {:?} strides {:?} axis {axis}", view.shape, view.strides);
    let e = eps(op.out_type);
    let int_in = dt == DType::Bool || dt.is_integer();
    let mut run = std::collections::HashMap::<Vec<usize>, (V, f64, i128, Exact, Exact)>::new();
    for (f, idx) in indices(&view.shape).iter().enumerate() {
        let mut key = idx.clone();
        key[axis] = 0;
        let x = view.at(idx);
        let k = idx[axis] + 1;
        let entry = run.entry(key).or_insert((
            (if name == "cumsum" { 0.0 } else { 1.0 }, 0.0),
            0.0,
            if name == "cumsum" { 0 } else { 1 },
            Exact::default(),
            Exact::default(),
        ));
        let xi: i128 = if dt == DType::Bool { (x.0 != 0.0) as i128 } else { x.0 as i128 };
        if name == "cumsum" {
            entry.3.add(x.0);
            entry.4.add(x.1);
            entry.0 = (entry.3.get(), entry.4.get());
            entry.1 += x.0.abs() + x.1.abs();
            entry.2 = if dt.is_unsigned_integer() {
                (entry.2 as u64).wrapping_add(xi as u64) as i128
            } else {
                (entry.2 as i64).wrapping_add(xi as i64) as i128
            };
        } else {
            let p = entry.0;
            entry.0 = (p.0 * x.0 - p.1 * x.1, p.0 * x.1 + p.1 * x.0);
            entry.2 = if dt.is_unsigned_integer() {
                (entry.2 as u64).wrapping_mul(xi as u64) as i128
            } else {
                (entry.2 as i64).wrapping_mul(xi as i64) as i128
            };
        }
        let g = decode(op.out_type, &got[f * osz..(f + 1) * osz]);
        if int_in {
            assert_eq!(g, Got::I(entry.2), "{ctx}, element {idx:?}");
        } else {
            let Got::F(gr, gi) = g else { panic!() };
            let want = entry.0;
            let tol = if name == "cumsum" {
                4.0 * (lg(k) + 2.0) * e * entry.1
            } else {
                4.0 * (k as f64 + 2.0) * e * (want.0.abs() + want.1.abs())
            };
            assert!(
                close(gr, want.0, tol) && close(gi, want.1, tol),
                "{ctx}, element {idx:?}: got ({gr}, {gi}), want {want:?}, tol {tol}"
            );
        }
    }
}

#[test]
fn scans_on_every_layout() {
    let mut rng = rng();
    use DType::*;
    for (name, dts) in [("cumsum", vec![F32, F64, F16, Bool, U8, I64, I8, C64]), ("cumprod", vec![F64, I64, U8, C64])] {
        for dt in dts {
            let gen = |n: usize, rng: &mut rand::rngs::StdRng| {
                if name == "cumprod" {
                    prod_values(dt, n, rng)
                } else {
                    gen_values(dt, n, rng)
                }
            };
            check_scan(name, dt, &View::contiguous(gen(257, &mut rng), &[257]), 0);
            check_scan(name, dt, &View::contiguous(gen(4099, &mut rng), &[4099]), 0);
            check_scan(name, dt, &View::contiguous(gen(33 * 65, &mut rng), &[33, 65]), 0);
            check_scan(name, dt, &View::contiguous(gen(33 * 65, &mut rng), &[33, 65]), 1);
            check_scan(name, dt, &View::contiguous(gen(210, &mut rng), &[2, 3, 5, 7]), 2);
            let t = View { backing: gen(33 * 65, &mut rng), shape: vec![65, 33], strides: vec![1, 65], offset: 0 };
            check_scan(name, dt, &t, 0);
            let r =
                View { backing: gen(33 * 65, &mut rng), shape: vec![33, 33], strides: vec![-65, 2], offset: 32 * 65 };
            check_scan(name, dt, &r, 1);
            check_scan(name, dt, &View { backing: vec![], shape: vec![3, 0], strides: vec![0, 1], offset: 0 }, 1);
        }
    }
}

#[test]
fn long_scans_use_the_chunked_passes() {
    let mut rng = rng();
    let n = 1 << 20;
    check_scan("cumsum", DType::F32, &View::contiguous(gen_values(DType::F32, n, &mut rng), &[n]), 0);
    check_scan("cumsum", DType::I64, &View::contiguous(gen_values(DType::I64, n, &mut rng), &[n]), 0);
    check_scan("cumsum", DType::U8, &View::contiguous(gen_values(DType::U8, n, &mut rng), &[2, n / 2]), 1);
    check_scan("cumsum", DType::F64, &View::contiguous(gen_values(DType::F64, n, &mut rng), &[n / 4, 4]), 0);
    let xs: Vec<V> = (0..n).map(|i| (1.0 + (i % 5) as f64 / 4.0, 0.0)).collect();
    check_scan("cumsum", DType::F32, &View::contiguous(xs, &[n]), 0);
}
