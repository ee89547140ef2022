//! `xp::random` on the CPU backend: Philox4x32-10 against its published known-answer vectors,
//! the moments and a Kolmogorov–Smirnov bound of each distribution on 10^6 draws,
//! reproducibility, and each bad argument's error. The same draws are compared bit for bit with
//! a GPU's in the root package's `tests/parity_gpu.rs` (`parity_checks::random`).

use std::sync::Arc;

use xp_array::random::{default_rng, Generator};
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

#[test]
fn philox_matches_the_known_answer_vectors() {
    with_device(&cpu(), || {
        // Random123's kat_vectors for philox4x32_10: (counter, key) -> output.
        let g = Generator::from_key([0, 0]);
        assert_eq!(
            g.philox_blocks(0, 1, 0).unwrap().to_vec::<u32>().unwrap(),
            vec![0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        let g = Generator::from_key([0xa4093822, 0x299f31d0]).jumped(0x03707344);
        let got = g.philox_blocks(0x85a308d3_243f6a88, 1, 0x13198a2e).unwrap().to_vec::<u32>().unwrap();
        assert_eq!(got, vec![0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]);
        // Bulk draws take the round keys as parameters: float32 uniforms are the top 24 bits
        // of the same words.
        let key = [0xa4093822, 0x299f31d0];
        let words = Generator::from_key(key).philox_blocks(0, 64, 0).unwrap().to_vec::<u32>().unwrap();
        let u = Generator::from_key(key).random(&[256], DType::F32).unwrap().to_vec::<f32>().unwrap();
        let want: Vec<f32> = words.iter().map(|&w| (w >> 8) as f32 / (1u32 << 24) as f32).collect();
        assert_eq!(u, want);
    });
}

#[test]
fn float32_normal_and_exponential_follow_their_words() {
    with_device(&cpu(), || {
        // Each pair of words: w0 -> u = ((float)w0 + 1) 2^-32 and w1 -> the angle 2 pi w1 /
        // 2^32 give two normals; float32 exponentials take -ln u of every word. Checked
        // against f64 arithmetic.
        let key = [0x1234_5678, 0x9abc_def0];
        let words = Generator::from_key(key).philox_blocks(0, 4096, 0).unwrap().to_vec::<u32>().unwrap();
        let u = |w: u32| ((w as f32) + 1.0) as f64 * 2f64.powi(-32);
        let z = Generator::from_key(key).standard_normal(&[4 * 4096], DType::F32).unwrap().to_vec::<f32>().unwrap();
        let e =
            Generator::from_key(key).standard_exponential(&[4 * 4096], DType::F32).unwrap().to_vec::<f32>().unwrap();
        for (i, pair) in words.chunks(2).enumerate() {
            let (w0, w1) = (pair[0], pair[1]);
            let r = (-2.0 * u(w0).ln()).sqrt();
            let t = std::f64::consts::TAU * w1 as f64 / 2f64.powi(32);
            for (got, want) in [(z[2 * i], r * t.cos()), (z[2 * i + 1], r * t.sin())] {
                assert!((got as f64 - want).abs() <= 1e-6 * r.max(1.0), "normal {i}: {got} against {want}");
            }
        }
        for (i, &w) in words.iter().enumerate() {
            let want = -u(w).ln();
            assert!((e[i] as f64 - want).abs() <= 4e-7 * want + 1e-12, "exponential {i}: {} against {want}", e[i]);
        }
    });
}

fn moments(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (m, v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n)
}

/// The Kolmogorov–Smirnov distance of the sample to the distribution function `cdf`.
fn ks(v: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len() as f64;
    v.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max)
}

/// erf by Numerical Recipes' erfc approximation (relative error below 1.2e-7, far inside the
/// KS bound).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let poly = -x * x - 1.26551223
        + t * (1.00002368
            + t * (0.37409196
                + t * (0.09678418
                    + t * (-0.18628806
                        + t * (0.27886807
                            + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let y = 1.0 - t * poly.exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

const N: usize = 1_000_000;
/// The KS distance 10^6 draws stay below with probability 1 - 1e-6 (sqrt(-ln(5e-7)/2) / sqrt(N)).
const KS_BOUND: f64 = 2.7 / 1000.0;

fn draws(a: Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

#[test]
fn continuous_distributions_have_their_moments_and_distribution_functions() {
    with_device(&cpu(), || {
        let mut g = default_rng(123u64);
        for dt in [DType::F32, DType::F64] {
            let mut u = draws(g.random(&[N], dt).unwrap());
            assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
            let (m, v) = moments(&u);
            assert!((m - 0.5).abs() < 2e-3 && (v - 1.0 / 12.0).abs() < 1e-3, "uniform {dt}: {m} {v}");
            assert!(ks(&mut u, |x| x) < KS_BOUND, "uniform {dt}");
            let mut z = draws(g.normal(2.0, 3.0, &[N], dt).unwrap());
            let (m, v) = moments(&z);
            assert!((m - 2.0).abs() < 0.02 && (v - 9.0).abs() < 0.05, "normal {dt}: {m} {v}");
            assert!(ks(&mut z, |x| 0.5 * (1.0 + erf((x - 2.0) / (3.0 * 2f64.sqrt())))) < KS_BOUND, "normal {dt}");
            let mut e = draws(g.exponential(2.0, &[N], dt).unwrap());
            let (m, v) = moments(&e);
            assert!((m - 2.0).abs() < 0.01 && (v - 4.0).abs() < 0.05, "exponential {dt}: {m} {v}");
            assert!(ks(&mut e, |x| 1.0 - (-x / 2.0).exp()) < KS_BOUND, "exponential {dt}");
            let mut w = draws(g.uniform(-1.0, 3.0, &[N], dt).unwrap());
            assert!(w.iter().all(|&x| (-1.0..3.0).contains(&x)));
            assert!(ks(&mut w, |x| (x + 1.0) / 4.0) < KS_BOUND, "uniform(-1, 3) {dt}");
        }
        for k in [0.3, 1.0, 4.5] {
            let mut x = draws(g.gamma(k, 2.0, &[N], DType::F64).unwrap());
            let (m, v) = moments(&x);
            assert!(
                (m - 2.0 * k).abs() < 0.02 * (2.0 * k) && (v - 4.0 * k).abs() < 0.03 * 4.0 * k,
                "gamma {k}: {m} {v}"
            );
            if k == 1.0 {
                assert!(ks(&mut x, |t| 1.0 - (-t / 2.0).exp()) < KS_BOUND, "gamma(1)");
            }
        }
        let b = draws(g.beta(2.0, 5.0, &[N], DType::F64).unwrap());
        let (m, v) = moments(&b);
        assert!((m - 2.0 / 7.0).abs() < 2e-3 && (v - 10.0 / (49.0 * 8.0)).abs() < 1e-3, "beta: {m} {v}");
        // Beta(1, 1) is uniform.
        let mut b11 = draws(g.beta(1.0, 1.0, &[N], DType::F64).unwrap());
        assert!(ks(&mut b11, |x| x) < KS_BOUND, "beta(1, 1)");
    });
}

#[test]
fn discrete_distributions_have_their_moments() {
    with_device(&cpu(), || {
        let mut g = default_rng(&[1u32, 2, 3][..]);
        for lam in [0.5, 4.0, 37.5, 1e4] {
            let x = draws(g.poisson(lam, &[N]).unwrap());
            let (m, v) = moments(&x);
            assert!(
                (m - lam).abs() < 0.01 * lam.max(1.0) && (v - lam).abs() < 0.02 * lam.max(1.0),
                "poisson {lam}: {m} {v}"
            );
            // The probability of 0 for small means.
            if lam < 1.0 {
                let p0 = x.iter().filter(|&&k| k == 0.0).count() as f64 / N as f64;
                assert!((p0 - (-lam).exp()).abs() < 3e-3);
            }
        }
        for (n, p) in [(10i64, 0.3), (1000, 0.5), (100_000, 0.01), (50, 0.9)] {
            let x = draws(g.binomial(n, p, &[N]).unwrap());
            let (m, v) = moments(&x);
            let (em, ev) = (n as f64 * p, n as f64 * p * (1.0 - p));
            assert!(
                (m - em).abs() < 0.01 * em.max(1.0) && (v - ev).abs() < 0.03 * ev.max(1.0),
                "binomial {n} {p}: {m} {v}"
            );
            assert!(x.iter().all(|&k| k >= 0.0 && k <= n as f64));
        }
        let i = g.integers(-3, 5, &[N], DType::I32, false).unwrap();
        assert_eq!(i.dtype(), DType::I32);
        let i = draws(i);
        for k in -3..5 {
            let f = i.iter().filter(|&&x| x == k as f64).count() as f64 / N as f64;
            assert!((f - 0.125).abs() < 3e-3, "integers: {k} {f}");
        }
        let full = draws(g.integers(0, 255, &[10_000], DType::U8, true).unwrap());
        assert!(full.contains(&255.0) && full.contains(&0.0));
    });
}

#[test]
fn permutations_choices_and_reproducibility() {
    with_device(&cpu(), || {
        let mut g = default_rng(7u64);
        let p = g.permutation(100_000).unwrap().to_vec::<i64>().unwrap();
        let mut s = p.clone();
        s.sort();
        assert_eq!(s, (0..100_000).collect::<Vec<i64>>());
        assert_ne!(p[..10], s[..10]);
        let a = arange(0, 50, 1, Some(DType::I64)).unwrap();
        let c = g.choice(&a, &[50], false, None).unwrap().to_vec::<i64>().unwrap();
        let mut cs = c.clone();
        cs.sort();
        assert_eq!(cs, (0..50).collect::<Vec<i64>>());
        let probs = Array::from_vec(vec![0.0, 0.25, 0.75]).unwrap();
        let small = arange(0, 3, 1, Some(DType::I64)).unwrap();
        let w = g.choice(&small, &[100_000], true, Some(&probs)).unwrap().to_vec::<i64>().unwrap();
        let f2 = w.iter().filter(|&&x| x == 2).count() as f64 / 1e5;
        assert!(w.iter().all(|&x| x != 0) && (f2 - 0.75).abs() < 0.01, "{f2}");
        let x = arange(0, 12, 1, Some(DType::F64)).unwrap().reshape(&[6, 2]).unwrap();
        g.shuffle(&x).unwrap();
        let rows = x.to_vec::<f64>().unwrap();
        assert!(rows.chunks(2).all(|r| r[1] == r[0] + 1.0 && r[0] % 2.0 == 0.0));
        // The same seed and calls give the same bits; other seeds, spawned and jumped
        // generators give others.
        let a1 = default_rng(99u64).normal(0.0, 1.0, &[1000], DType::F32).unwrap().to_vec::<f32>().unwrap();
        let a2 = default_rng(99u64).normal(0.0, 1.0, &[1000], DType::F32).unwrap().to_vec::<f32>().unwrap();
        let b = default_rng(100u64).normal(0.0, 1.0, &[1000], DType::F32).unwrap().to_vec::<f32>().unwrap();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        let mut root = default_rng(99u64);
        let kids = root.spawn(2);
        let (mut k0, mut k1) = (kids[0].clone(), kids[1].clone());
        assert_ne!(
            k0.random(&[8], DType::F64).unwrap().to_vec::<f64>().unwrap(),
            k1.random(&[8], DType::F64).unwrap().to_vec::<f64>().unwrap()
        );
        let mut j = root.jumped(1);
        assert_ne!(
            j.random(&[8], DType::F64).unwrap().to_vec::<f64>().unwrap(),
            root.random(&[8], DType::F64).unwrap().to_vec::<f64>().unwrap()
        );
        // The legacy functions on the global generator.
        random::seed(5u64);
        let r1 = random::rand(&[4]).unwrap().to_vec::<f64>().unwrap();
        random::seed(5u64);
        assert_eq!(r1, random::rand(&[4]).unwrap().to_vec::<f64>().unwrap());
        assert_eq!(random::randn(&[3, 2], DType::F32).unwrap().shape(), &[3, 2]);
        assert_eq!(random::randint(0, 10, &[5], DType::I64).unwrap().dtype(), DType::I64);
    });
}

#[test]
fn bad_arguments_are_errors_naming_the_call() {
    with_device(&cpu(), || {
        let mut g = default_rng(1u64);
        let msg = |e: Error| e.to_string();
        assert!(msg(g.normal(0.0, -1.0, &[3], DType::F32).unwrap_err()).contains("normal"));
        assert!(msg(g.integers(5, 5, &[3], DType::I64, false).unwrap_err()).contains("low >= high"));
        assert!(msg(g.random(&[3], DType::I32).unwrap_err()).contains("random"));
        let a = arange(0, 5, 1, Some(DType::I64)).unwrap();
        assert!(msg(g.choice(&a, &[6], false, None).unwrap_err()).contains("larger sample"));
        assert!(msg(g.exponential(-2.0, &[3], DType::F64).unwrap_err()).contains("scale"));
        assert!(msg(g.poisson(-1.0, &[3]).unwrap_err()).contains("lam"));
        assert!(msg(g.binomial(3, 1.5, &[3]).unwrap_err()).contains("binomial"));
        let p = Array::from_vec(vec![0.5, 0.6, 0.1, 0.0, 0.0]).unwrap();
        assert!(msg(g.choice(&a, &[2], true, Some(&p)).unwrap_err()).contains("sum to 1"));
    });
}

#[test]
fn integers_refuses_bounds_outside_the_dtype() {
    with_device(&cpu(), || {
        let mut g = default_rng(3u64);
        let (i32lo, i32hi) = (i32::MIN as i64, i32::MAX as i64);
        // NumPy's ValueError: `low` or `high` is out of bounds for the dtype (never draws that
        // wrap, as 0..1000 into uint8 did).
        for (low, high, dtype, endpoint) in [
            (0, 1000, DType::U8, false),
            (0, 257, DType::U8, false),
            (0, 256, DType::U8, true),
            (-1, 10, DType::U8, false),
            (-129, 0, DType::I8, false),
            (0, 129, DType::I8, false),
            (0, 128, DType::I8, true),
            (0, 65537, DType::U16, false),
            (-32769, 0, DType::I16, false),
            (0, (1 << 32) + 1, DType::U32, false),
            (-1, 1, DType::U32, false),
            (i32lo - 1, 0, DType::I32, false),
            (0, i32hi + 2, DType::I32, false),
            (0, i32hi + 1, DType::I32, true),
            (-1, 5, DType::U64, false),
            (i64::MIN, 0, DType::U64, false),
        ] {
            let e = g.integers(low, high, &[10], dtype, endpoint).unwrap_err();
            let m = e.to_string();
            assert_eq!(e.kind(), "Value", "{low}..{high} {dtype}: {m}");
            assert!(
                m.contains("integers")
                    && m.contains(&low.to_string())
                    && m.contains(&high.to_string())
                    && m.contains(dtype.name()),
                "{m}"
            );
        }
        // The widest bounds that fit are accepted, and every draw lies inside them.
        for (low, high, dtype, endpoint) in [
            (0, 256, DType::U8, false),
            (0, 255, DType::U8, true),
            (-128, 128, DType::I8, false),
            (-128, 127, DType::I8, true),
            (0, 65536, DType::U16, false),
            (-32768, 32767, DType::I16, true),
            (0, 1 << 32, DType::U32, false),
            (i32lo, i32hi + 1, DType::I32, false),
            (i64::MIN, i64::MAX, DType::I64, true),
            (0, i64::MAX, DType::U64, true),
        ] {
            let x = g.integers(low, high, &[2000], dtype, endpoint).unwrap();
            assert_eq!(x.dtype(), dtype);
            let top = if endpoint { high as i128 } else { high as i128 - 1 };
            let v: Vec<i128> = match dtype {
                DType::U64 => x.to_vec::<u64>().unwrap().into_iter().map(i128::from).collect(),
                _ => x.astype(DType::I64).unwrap().to_vec::<i64>().unwrap().into_iter().map(i128::from).collect(),
            };
            assert!(v.iter().all(|&k| k >= low as i128 && k <= top), "{low}..{high} {dtype}");
        }
    });
}
