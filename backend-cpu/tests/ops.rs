//! Every type loop of every built-in op (`xp_kernels::ops::ALL`), rendered as a contiguous
//! kernel, compiled at run time on the CPU backend and run on sample inputs with edge values
//! (signed zeros, infinities, NaN, integer extremes, zero divisors, shift counts past the width),
//! against NumPy's results in `data/ops_cases.txt` (written by `data/make_ops_cases.py`) and,
//! for SciPy's special functions, SciPy's in `data/special_cases.txt` (`data/make_special_cases.py`),
//! within each family's ulp count (`SPECIAL_ULPS`).
//!
//! Exact ops must match bit for bit (any NaN matches any NaN). Transcendental functions may be
//! 4 ulp away; complex results of those and of complex multiplication and division may be 4
//! ulp of the result's larger part away in each part. Where NumPy itself returns either zero
//! for a tie of +0.0 and -0.0 (fmax and fmin, whose SIMD and scalar paths differ; maximum and
//! minimum on bfloat16, which NumPy lacks), the sign of a zero result is not compared.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use xp_backend_api::{Backend, DType, DynDevice, KernelArg, KernelSource, LaunchConfig, Module};
use xp_backend_cpu::CpuBackend;
use xp_kernels::elementwise::{ElementwiseSpec, IndexWidth, Layout, Operand, Rendered};
use xp_kernels::ops::{self, ElementwiseOp, TypeLoop};

const CASES: &str = include_str!("data/ops_cases.txt");
const SPECIAL_CASES: &str = include_str!("data/special_cases.txt");

/// SciPy's special functions and the ulps each may be from SciPy's float64 answer (rounded to
/// the loop's type): the conformance suite's counts per family.
const SPECIAL_ULPS: &[(&str, i128)] = &[
    ("expit", 4),
    ("logit", 4),
    ("log_expit", 4),
    ("xlogy", 4),
    ("xlog1py", 4),
    ("entr", 4),
    ("rel_entr", 4),
    ("huber", 4),
    ("kl_div", 8),
    ("pseudo_huber", 8),
    ("erf", 8),
    ("erfinv", 8),
    ("erfcinv", 8),
    ("ndtri", 8),
    ("erfc", 32),
    ("erfcx", 32),
    ("ndtr", 32),
    ("log_ndtr", 32),
    ("boxcox", 32),
    ("boxcox1p", 32),
    ("inv_boxcox", 32),
    ("inv_boxcox1p", 32),
    ("ellipk", 8),
    ("ellipkm1", 8),
    ("gamma", 32),
    ("gammaln", 32),
    ("loggamma", 32),
    ("rgamma", 32),
    ("digamma", 32),
    ("polygamma", 32),
    ("_riemann_zeta", 32),
    ("_zeta", 32),
    ("beta", 32),
    ("betaln", 32),
    ("expn", 32),
    ("exp1", 32),
    ("expi", 32),
    ("lambertw", 32),
    ("i0", 32),
    ("i0e", 32),
    ("i1", 32),
    ("i1e", 32),
    ("k0", 32),
    ("k0e", 32),
    ("k1", 32),
    ("k1e", 32),
    ("j0", 64),
    ("j1", 64),
    ("y0", 64),
    ("y1", 64),
    ("jn", 64),
    ("yn", 64),
    ("ellipj_sn", 64),
    ("ellipj_cn", 64),
    ("ellipj_dn", 64),
    ("ellipj_ph", 64),
    ("iv", 128),
    ("kv", 128),
    ("gammainc", 128),
    ("gammaincc", 128),
    ("betainc", 128),
    ("bdtr", 128),
    ("bdtrc", 128),
    ("chdtr", 128),
    ("chdtrc", 128),
    ("fdtr", 128),
    ("fdtrc", 128),
    ("gdtr", 128),
    ("gdtrc", 128),
    ("nbdtr", 128),
    ("nbdtrc", 128),
    ("pdtr", 128),
    ("pdtrc", 128),
    ("stdtr", 128),
    ("gammaincinv", 256),
    ("gammainccinv", 256),
    ("betaincinv", 256),
    ("bdtri", 256),
    ("chdtri", 256),
    ("fdtri", 256),
    ("pdtri", 256),
    ("stdtrit", 256),
];

/// Kernels per translation unit.
const BATCH: usize = 64;

const TRANSCENDENTAL: &[&str] = &[
    "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "arctan2", "hypot", "power",
];
/// Ops whose complex results are rounded differently by NumPy's SIMD loops (fused multiply-add)
/// or go through transcendental functions.
const COMPLEX_ROUNDED: &[&str] = &["multiply", "true_divide", "square", "reciprocal", "sign", "absolute", "sqrt"];

struct Case {
    op: String,
    sig: String,
    n: usize,
    inputs: Vec<Vec<u64>>,
    expected: Vec<u64>,
}

fn parse_cases() -> Vec<Case> {
    let mut lines = CASES.lines().chain(SPECIAL_CASES.lines());
    let mut out = Vec::new();
    while let Some(head) = lines.next() {
        let mut f = head.split_whitespace();
        let (op, sig, n) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap().parse::<usize>().unwrap());
        let nin = sig.split_once("->").unwrap().0.len();
        let mut row = || -> Vec<u64> {
            lines.next().unwrap().split_whitespace().map(|t| u64::from_str_radix(t, 16).unwrap()).collect()
        };
        let inputs = (0..nin).map(|_| row()).collect();
        let expected = row();
        out.push(Case { op: op.into(), sig: sig.into(), n, inputs, expected });
    }
    out
}

/// The bytes of `n` elements of `d` given as bit patterns (two per complex element).
fn encode(d: DType, bits: &[u64]) -> Vec<u8> {
    let w = if is_complex(d) { d.size() / 2 } else { d.size() };
    bits.iter().flat_map(|b| b.to_le_bytes()[..w].to_vec()).collect()
}

fn decode(d: DType, bytes: &[u8]) -> Vec<u64> {
    let w = if is_complex(d) { d.size() / 2 } else { d.size() };
    bytes
        .chunks_exact(w)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn is_complex(d: DType) -> bool {
    matches!(d, DType::C64 | DType::C128)
}

/// Float format of one part of an element of `d`: (bit width, mantissa bits).
fn float_format(d: DType) -> Option<(u32, u32)> {
    match d {
        DType::F16 => Some((16, 10)),
        DType::BF16 => Some((16, 7)),
        DType::F32 | DType::C64 => Some((32, 23)),
        DType::F64 | DType::C128 => Some((64, 52)),
        _ => None,
    }
}

fn to_f64(bits: u64, width: u32, mant: u32) -> f64 {
    match (width, mant) {
        (64, _) => f64::from_bits(bits),
        (32, _) => f32::from_bits(bits as u32) as f64,
        (16, 7) => f32::from_bits((bits as u32) << 16) as f64,
        _ => {
            // IEEE half.
            let (s, e, m) = ((bits >> 15) & 1, (bits >> 10) & 0x1f, bits & 0x3ff);
            let v = match e {
                0 => m as f64 * 2f64.powi(-24),
                31 if m == 0 => f64::INFINITY,
                31 => f64::NAN,
                _ => (1.0 + m as f64 / 1024.0) * 2f64.powi(e as i32 - 15),
            };
            if s == 1 {
                -v
            } else {
                v
            }
        }
    }
}

/// Bit patterns in an order where adjacent floats are adjacent integers.
fn ordered(bits: u64, width: u32) -> i128 {
    let sign = 1u64 << (width - 1);
    let mag = (bits & (sign - 1)) as i128;
    if bits & sign != 0 {
        -mag
    } else {
        mag
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Check {
    Exact,
    ExactButZeroSign,
    Ulp(i128),
    ComplexNorm(f64),
}

fn check_for(op: &str, out: DType) -> Check {
    if let Some((_, n)) = SPECIAL_ULPS.iter().find(|(name, _)| *name == op) {
        return Check::Ulp(*n);
    }
    let complex_out = is_complex(out);
    if complex_out && (TRANSCENDENTAL.contains(&op) || COMPLEX_ROUNDED.contains(&op)) {
        return Check::ComplexNorm(4.0);
    }
    if TRANSCENDENTAL.contains(&op) || (op == "absolute" && matches!(out, DType::F32 | DType::F64)) {
        return Check::Ulp(4);
    }
    let lenient = match op {
        "fmax" | "fmin" => true,
        "maximum" | "minimum" => out == DType::BF16,
        _ => false,
    };
    if lenient {
        Check::ExactButZeroSign
    } else {
        Check::Exact
    }
}

/// Whether one part (`got`, `want`: bit patterns of a float of `fmt`) passes `check`;
/// `scale` is the magnitude the complex norm check measures against.
fn part_ok(got: u64, want: u64, fmt: (u32, u32), check: Check, scale: f64) -> bool {
    let (w, m) = fmt;
    let (g, e) = (to_f64(got, w, m), to_f64(want, w, m));
    if e.is_nan() || g.is_nan() {
        return e.is_nan() && g.is_nan();
    }
    match check {
        Check::Exact => got == want,
        Check::ExactButZeroSign => g == e,
        Check::Ulp(n) => {
            if e.is_infinite() || g.is_infinite() {
                return g == e;
            }
            (ordered(got, w) - ordered(want, w)).abs() <= n
        }
        Check::ComplexNorm(n) => {
            if e.is_infinite() || g.is_infinite() {
                return g == e;
            }
            if e == 0.0 && g == 0.0 {
                // C99 leaves the sign of many zero parts unspecified.
                return true;
            }
            let eps = 2f64.powi(-(m as i32));
            (g - e).abs() <= n * eps * scale || (ordered(got, w) - ordered(want, w)).abs() <= n as i128
        }
    }
}

fn spec_for(op: &ElementwiseOp, lp: &TypeLoop) -> ElementwiseSpec {
    let (ins, outs) = lp.dtypes();
    ElementwiseSpec {
        op: op.name.to_string(),
        inputs: ins.iter().map(|d| Operand::array(*d, *d)).collect(),
        outputs: outs.iter().map(|d| Operand::array(*d, *d)).collect(),
        body: lp.body.unwrap_or(op.body).to_string(),
        preamble: op.preamble.to_string(),
        layout: Layout::Contiguous,
        index: IndexWidth::I64,
        fast: None,
    }
}

/// Compiles `kernels` in units of [`BATCH`], on two threads.
fn compile_all(d: &Arc<dyn DynDevice>, kernels: &[Rendered]) -> HashMap<String, Arc<dyn Module>> {
    let units: Vec<&[Rendered]> = kernels.chunks(BATCH).collect();
    let mut modules = HashMap::new();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let units = &units;
                s.spawn(move || {
                    let mut got = Vec::new();
                    for unit in units.iter().skip(w).step_by(2) {
                        let code: String = unit.iter().map(|r| r.code.as_str()).collect::<Vec<_>>().join("\n");
                        let m = d
                            .compile(&KernelSource::new(&unit[0].name, code), &Default::default())
                            .unwrap_or_else(|e| panic!("compiling {}…: {e}", unit[0].name));
                        for r in unit.iter() {
                            got.push((r.name.clone(), m.clone()));
                        }
                    }
                    got
                })
            })
            .collect();
        for w in workers {
            modules.extend(w.join().expect("compile worker"));
        }
    });
    modules
}

#[test]
fn every_op_loop_matches_numpy() {
    let d: Arc<dyn DynDevice> = CpuBackend::device(0).expect("the CPU device opens");
    let cases = parse_cases();
    let by_key: HashMap<(&str, &str), &Case> = cases.iter().map(|c| ((c.op.as_str(), c.sig.as_str()), c)).collect();

    // Every (op, loop) pair has cases, and every case names a loop that exists.
    let mut work = Vec::new();
    let mut missing = Vec::new();
    for op in ops::ALL {
        for lp in op.loops {
            match by_key.get(&(op.name, lp.sig)) {
                Some(c) => work.push((*op, lp, *c, spec_for(op, lp).render())),
                None => missing.push(format!("{} {}", op.name, lp.sig)),
            }
        }
    }
    assert!(missing.is_empty(), "loops without cases (rerun data/make_ops_cases.py): {missing:?}");
    assert_eq!(work.len(), cases.len(), "cases for loops that no longer exist");

    let rendered: Vec<Rendered> = work.iter().map(|w| w.3.clone()).collect();
    let modules = compile_all(&d, &rendered);

    let s = d.default_stream();
    let mut failures = Vec::new();
    let mut checked_ops = HashSet::new();
    for (op, lp, case, r) in &work {
        let (ins, outs) = lp.dtypes();
        let out_d = outs[0];
        let bufs: Vec<_> = ins
            .iter()
            .zip(&case.inputs)
            .map(|(dt, bits)| {
                let bytes = encode(*dt, bits);
                let b = d.alloc(bytes.len().max(1), &s).unwrap();
                s.copy_from_host(&b, 0, &bytes).unwrap();
                b
            })
            .collect();
        let out_bytes = case.n * out_d.size();
        let out = d.alloc(out_bytes.max(1), &s).unwrap();
        let n = (case.n as i64).to_ne_bytes();
        let mut args: Vec<KernelArg> = bufs.iter().map(KernelArg::buffer).collect();
        args.push(KernelArg::buffer(&out));
        args.push(KernelArg::Value(&n));
        let k = modules[&r.name].function(&r.name).unwrap();
        s.launch(&*k, &LaunchConfig::new(1, 1), &args).unwrap();
        let mut bytes = vec![0u8; out_bytes];
        s.copy_to_host(&out, 0, &mut bytes).unwrap();
        let got = decode(out_d, &bytes);
        assert_eq!(got.len(), case.expected.len(), "{} {}", op.name, lp.sig);

        let check = check_for(op.name, out_d);
        let parts = if is_complex(out_d) { 2 } else { 1 };
        for i in 0..case.n {
            let g = &got[i * parts..(i + 1) * parts];
            let e = &case.expected[i * parts..(i + 1) * parts];
            let ok = match float_format(out_d) {
                None => g == e,
                Some(fmt) => {
                    let scale =
                        e.iter().map(|b| to_f64(*b, fmt.0, fmt.1).abs()).filter(|v| v.is_finite()).fold(0.0, f64::max);
                    g.iter().zip(e).all(|(gp, ep)| part_ok(*gp, *ep, fmt, check, scale))
                }
            };
            if !ok {
                let show = |v: &[u64]| -> String {
                    match float_format(out_d) {
                        Some(f) => {
                            v.iter().map(|b| format!("{:e}", to_f64(*b, f.0, f.1))).collect::<Vec<_>>().join(",")
                        }
                        None => v.iter().map(|b| format!("{b:#x}")).collect::<Vec<_>>().join(","),
                    }
                };
                let inputs: Vec<String> = ins
                    .iter()
                    .zip(&case.inputs)
                    .map(|(dt, bits)| {
                        let p = if is_complex(*dt) { 2 } else { 1 };
                        let v = &bits[i * p..(i + 1) * p];
                        match float_format(*dt) {
                            Some(f) => {
                                v.iter().map(|b| format!("{:e}", to_f64(*b, f.0, f.1))).collect::<Vec<_>>().join(",")
                            }
                            None => v.iter().map(|b| format!("{b:#x}")).collect::<Vec<_>>().join(","),
                        }
                    })
                    .collect();
                failures.push(format!(
                    "{} {}: inputs ({}) gave {} (bits {:x?}), NumPy {} (bits {:x?})",
                    op.name,
                    lp.sig,
                    inputs.join("; "),
                    show(g),
                    g,
                    show(e),
                    e
                ));
            }
        }
        checked_ops.insert(op.name);
    }
    println!(
        "{} ops, {} loops, {} elements checked against NumPy; {} mismatches",
        checked_ops.len(),
        work.len(),
        cases.iter().map(|c| c.n).sum::<usize>(),
        failures.len()
    );
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// Runs a copy from float64 to `to` (the store converts with `xp::cast`) and returns the bits.
fn cast_f64_to(to: DType, values: &[f64]) -> Vec<u64> {
    let d: Arc<dyn DynDevice> = CpuBackend::device(0).expect("the CPU device opens");
    let spec = ElementwiseSpec {
        op: "copy".into(),
        inputs: vec![Operand::array(DType::F64, DType::F64)],
        outputs: vec![Operand::array(to, DType::F64)],
        body: "out0 = in0;".into(),
        preamble: String::new(),
        layout: Layout::Contiguous,
        index: IndexWidth::I64,
        fast: None,
    };
    let r = spec.render();
    let k = d.compile(&KernelSource::new(&r.name, &r.code), &Default::default()).unwrap().function(&r.name).unwrap();
    let s = d.default_stream();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let input = d.alloc(bytes.len(), &s).unwrap();
    s.copy_from_host(&input, 0, &bytes).unwrap();
    let out = d.alloc(values.len() * to.size(), &s).unwrap();
    let n = (values.len() as i64).to_ne_bytes();
    s.launch(
        &*k,
        &LaunchConfig::new(1, 1),
        &[KernelArg::buffer(&input), KernelArg::buffer(&out), KernelArg::Value(&n)],
    )
    .unwrap();
    let mut got = vec![0u8; values.len() * to.size()];
    s.copy_to_host(&out, 0, &mut got).unwrap();
    decode(to, &got)
}

#[test]
fn float_to_integer_casts_wrap_like_numpy_and_saturate_where_it_is_undefined() {
    let v = [-4.7, 300.7, f64::NAN, 1e20, -1e20, 1.8e19, 3e9, -0.5, -9.3e18, 2f64.powi(64)];
    // Truncate; within int64 wrap to the width as NumPy on x86-64 (-4.7 to uint8 is 252); NaN
    // to 0; beyond int64 saturate at the target's range (uint64: exact below 2^64).
    assert_eq!(cast_f64_to(DType::U8, &v), [252, 44, 0, 255, 0, 255, 0, 0, 0, 255]);
    let (lo, hi) = (i32::MIN, i32::MAX);
    assert_eq!(
        cast_f64_to(DType::I32, &v).iter().map(|b| *b as u32 as i32).collect::<Vec<_>>(),
        [-4, 300, 0, hi, lo, hi, -1294967296, 0, lo, hi]
    );
    assert_eq!(
        cast_f64_to(DType::I64, &v).iter().map(|b| *b as i64).collect::<Vec<_>>(),
        [-4, 300, 0, i64::MAX, i64::MIN, i64::MAX, 3_000_000_000, 0, i64::MIN, i64::MAX]
    );
    assert_eq!(
        cast_f64_to(DType::U64, &v),
        [(-4i64) as u64, 300, 0, u64::MAX, 0, 18_000_000_000_000_000_000, 3_000_000_000, 0, 0, u64::MAX]
    );
    // To bool: nonzero, NaN included.
    assert_eq!(cast_f64_to(DType::Bool, &[0.0, -0.0, f64::NAN, 0.25]), [0, 0, 1, 1]);
}
