//! Every distribution of `xp::random` on the CPU backend: 200,000 draws at a fixed seed, their
//! mean and variance against the exact moments (within 5 standard errors, the variance's from
//! the sample's fourth moment), a Kolmogorov–Smirnov bound against the exact distribution
//! function (continuous; from `xp::special` or closed forms) or a chi-square bound against the
//! exact probabilities (discrete), each failing by chance with probability about 1e-6; then
//! dtypes, shapes, each bad parameter's `Value` error, reproducibility and the legacy API.

use std::f64::consts::PI;
use std::sync::Arc;

use xp_array::random::{self as rnd, default_rng, Generator};
use xp_array::*;
use xp_backend_api::{BackendHandle, Error};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

const N: usize = 200_000;
/// The KS distance N draws stay below with probability 1 - 1e-6 (sqrt(-ln(5e-7) / 2) / sqrt(N)).
fn ks_bound() -> f64 {
    2.7 / (N as f64).sqrt()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn i64s(a: &Array) -> Vec<i64> {
    a.to_vec::<i64>().unwrap()
}

/// Mean and variance within 5 standard errors of `mean` and `var` (the variance's standard
/// error from the sample's fourth central moment).
fn check_moments(name: &str, v: &[f64], mean: f64, var: f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let s2 = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n;
    let m4 = v.iter().map(|x| (x - m).powi(4)).sum::<f64>() / n;
    let se_m = (var / n).sqrt();
    let se_v = ((m4 - s2 * s2).max(0.0) / n).sqrt();
    assert!((m - mean).abs() <= 5.0 * se_m + 1e-12, "{name}: mean {m}, expected {mean} (se {se_m})");
    assert!((s2 - var).abs() <= 5.0 * se_v + 1e-12, "{name}: variance {s2}, expected {var} (se {se_v})");
}

/// The KS distance of `v` to the distribution function whose values at the sorted sample
/// `cdf(sorted)` gives, below the bound.
fn check_ks(name: &str, v: &[f64], cdf: impl Fn(&Array) -> Vec<f64>) {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = s.len();
    let f = cdf(&Array::from_slice(&s, &[n]).unwrap());
    let nf = n as f64;
    let d = f
        .iter()
        .enumerate()
        .map(|(i, &f)| (f - i as f64 / nf).abs().max(((i + 1) as f64 / nf - f).abs()))
        .fold(0.0, f64::max);
    assert!(d < ks_bound(), "{name}: KS distance {d} (bound {})", ks_bound());
}

/// A closed-form distribution function, applied on the host.
fn host(f: impl Fn(f64) -> f64) -> impl Fn(&Array) -> Vec<f64> {
    move |x: &Array| f64s(x).into_iter().map(&f).collect()
}

/// Chi-square test of integer draws against `pmf` on `lo..`: bins while their expected count
/// is at least 5 (from the mode outwards on the left too), the rest of each tail in one bin;
/// the statistic below the 1 - 1e-6 quantile (Wilson–Hilferty).
fn check_chi2(name: &str, v: &[i64], lo: i64, pmf: impl Fn(i64) -> f64) {
    let n = v.len() as f64;
    // The bins: values k in [a, b], each with expected count >= 5.
    let mut ks = Vec::new();
    let mut k = lo;
    let mut total = 0.0;
    let mut started = false;
    loop {
        let p = pmf(k);
        if p * n >= 5.0 {
            ks.push(k);
            started = true;
        } else if started {
            break;
        }
        total += p;
        k += 1;
        if k - lo > 1_000_000 || (!started && total > 0.999_999) {
            break;
        }
    }
    assert!(!ks.is_empty(), "{name}: no bins");
    let (a, b) = (ks[0], *ks.last().unwrap());
    let mut obs = vec![0.0f64; ks.len() + 2];
    for &x in v {
        assert!(x >= lo, "{name}: draw {x} below the support's {lo}");
        let j = if x < a {
            0
        } else if x > b {
            ks.len() + 1
        } else {
            (x - a) as usize + 1
        };
        obs[j] += 1.0;
    }
    let mut exp: Vec<f64> =
        std::iter::once(0.0).chain(ks.iter().map(|&k| pmf(k))).chain(std::iter::once(0.0)).collect();
    exp[0] = (lo..a).map(&pmf).sum();
    let mid: f64 = exp[1..=ks.len()].iter().sum();
    exp[ks.len() + 1] = (1.0 - mid - exp[0]).max(0.0);
    let mut stat = 0.0;
    let mut bins = 0;
    for (o, e) in obs.iter().zip(&exp) {
        let e = e * n;
        if e >= 5.0 {
            stat += (o - e).powi(2) / e;
            bins += 1;
        } else {
            assert!(*o <= e + 10.0 * e.sqrt() + 10.0, "{name}: {o} draws in a tail bin expecting {e}");
        }
    }
    let df = (bins - 1) as f64;
    let z = 4.75;
    let crit = df * (1.0 - 2.0 / (9.0 * df) + z * (2.0 / (9.0 * df)).sqrt()).powi(3);
    assert!(stat < crit, "{name}: chi-square {stat} over {bins} bins (bound {crit})");
}

fn value_error(r: Result<Array>, op: &str) {
    match r {
        Err(Error::Value { op: o, .. }) => assert_eq!(o, op),
        other => panic!("{op}: expected a Value error, got {other:?}"),
    }
}

/// `f(x)` of `xp::special` at a scalar.
fn sp(f: impl Fn(&Array) -> Result<Array>, x: f64) -> f64 {
    f(&Array::from_slice(&[x], &[1]).unwrap()).unwrap().to_vec::<f64>().unwrap()[0]
}

fn lgamma(x: f64) -> f64 {
    sp(|a: &Array| special::gammaln(a), x)
}

fn gamma_fn(x: f64) -> f64 {
    sp(|a: &Array| special::gamma(a), x)
}

fn poisson_pmf(k: usize, lam: f64) -> f64 {
    (-lam + k as f64 * lam.ln() - lgamma(k as f64 + 1.0)).exp()
}

#[test]
fn continuous_families_follow_their_distributions() {
    with_device(&cpu(), || {
        let mut g = default_rng(20_240_601u64);

        let x = f64s(&g.standard_gamma(2.5, &[N], DType::F64).unwrap());
        check_moments("standard_gamma", &x, 2.5, 2.5);
        check_ks("standard_gamma", &x, |s| f64s(&special::gammainc(2.5, s).unwrap()));

        // Standard Cauchy: no moments; the distribution function 1/2 + atan(x) / pi.
        let x = f64s(&g.standard_cauchy(&[N], DType::F64).unwrap());
        check_ks("standard_cauchy", &x, host(|x| 0.5 + x.atan() / PI));

        for df in [3.0, 10.0] {
            let x = f64s(&g.standard_t(df, &[N], DType::F64).unwrap());
            if df > 4.0 {
                check_moments("standard_t", &x, 0.0, df / (df - 2.0));
            }
            check_ks("standard_t", &x, |s| f64s(&special::stdtr(df, s).unwrap()));
        }

        for df in [0.7, 3.0] {
            let x = f64s(&g.chisquare(df, &[N], DType::F64).unwrap());
            check_moments("chisquare", &x, df, 2.0 * df);
            check_ks("chisquare", &x, |s| f64s(&special::chdtr(df, s).unwrap()));
        }

        // Noncentral chi-square, both branches (df > 1 and df <= 1): the Poisson mixture of
        // central chi-squares as its distribution function.
        for (df, nonc) in [(3.0, 2.0), (0.5, 1.5)] {
            let x = f64s(&g.noncentral_chisquare(df, nonc, &[N], DType::F64).unwrap());
            check_moments("noncentral_chisquare", &x, df + nonc, 2.0 * (df + 2.0 * nonc));
            check_ks("noncentral_chisquare", &x, |s| {
                let mut acc = vec![0.0; s.size()];
                for k in 0..60 {
                    let w = poisson_pmf(k, nonc / 2.0);
                    let c = f64s(&special::chdtr(df + 2.0 * k as f64, s).unwrap());
                    acc.iter_mut().zip(c).for_each(|(a, c)| *a += w * c);
                }
                acc
            });
        }

        let (d1, d2) = (5.0, 10.0);
        let x = f64s(&g.f(d1, d2, &[N], DType::F64).unwrap());
        let var = 2.0 * d2 * d2 * (d1 + d2 - 2.0) / (d1 * (d2 - 2.0).powi(2) * (d2 - 4.0));
        check_moments("f", &x, d2 / (d2 - 2.0), var);
        check_ks("f", &x, |s| f64s(&special::fdtr(d1, d2, s).unwrap()));

        // Noncentral F: the Poisson mixture of incomplete beta functions.
        let nonc = 2.0;
        let x = f64s(&g.noncentral_f(d1, d2, nonc, &[N], DType::F64).unwrap());
        let mean = d2 * (d1 + nonc) / (d1 * (d2 - 2.0));
        let var = 2.0 * (d2 / d1).powi(2) * ((d1 + nonc).powi(2) + (d1 + 2.0 * nonc) * (d2 - 2.0))
            / ((d2 - 2.0).powi(2) * (d2 - 4.0));
        check_moments("noncentral_f", &x, mean, var);
        check_ks("noncentral_f", &x, |s| {
            let y = s.mul(d1).unwrap();
            let y = y.div(&y.add(d2).unwrap()).unwrap();
            let mut acc = vec![0.0; s.size()];
            for k in 0..60 {
                let w = poisson_pmf(k, nonc / 2.0);
                let c = f64s(&special::betainc(d1 / 2.0 + k as f64, d2 / 2.0, &y).unwrap());
                acc.iter_mut().zip(c).for_each(|(a, c)| *a += w * c);
            }
            acc
        });

        let (mu, sigma) = (0.5, 0.75);
        let x = f64s(&g.lognormal(mu, sigma, &[N], DType::F64).unwrap());
        let s2 = sigma * sigma;
        check_moments("lognormal", &x, (mu + s2 / 2.0).exp(), (s2.exp() - 1.0) * (2.0 * mu + s2).exp());
        check_ks("lognormal", &x, |s| {
            f64s(&special::ndtr(&s.log().unwrap().sub(mu).unwrap().div(sigma).unwrap()).unwrap())
        });

        let (loc, b) = (1.0, 2.0);
        let x = f64s(&g.laplace(loc, b, &[N], DType::F64).unwrap());
        check_moments("laplace", &x, loc, 2.0 * b * b);
        check_ks(
            "laplace",
            &x,
            host(|x| if x < loc { 0.5 * ((x - loc) / b).exp() } else { 1.0 - 0.5 * (-(x - loc) / b).exp() }),
        );

        let x = f64s(&g.logistic(loc, b, &[N], DType::F64).unwrap());
        check_moments("logistic", &x, loc, b * b * PI * PI / 3.0);
        check_ks("logistic", &x, host(|x| 1.0 / (1.0 + (-(x - loc) / b).exp())));

        let x = f64s(&g.gumbel(loc, b, &[N], DType::F64).unwrap());
        let euler = 0.577_215_664_901_532_9;
        check_moments("gumbel", &x, loc + b * euler, PI * PI * b * b / 6.0);
        check_ks("gumbel", &x, host(|x| (-(-(x - loc) / b).exp()).exp()));

        for a in [0.8, 1.5] {
            let x = f64s(&g.weibull(a, &[N], DType::F64).unwrap());
            let (g1, g2) = (gamma_fn(1.0 + 1.0 / a), gamma_fn(1.0 + 2.0 / a));
            check_moments("weibull", &x, g1, g2 - g1 * g1);
            check_ks("weibull", &x, host(|x| 1.0 - (-x.powf(a)).exp()));
        }

        let a = 5.0;
        let x = f64s(&g.pareto(a, &[N], DType::F64).unwrap());
        check_moments("pareto", &x, 1.0 / (a - 1.0), a / ((a - 1.0).powi(2) * (a - 2.0)));
        check_ks("pareto", &x, host(|x| 1.0 - (1.0 + x).powf(-a)));

        for a in [0.5, 3.0] {
            let x = f64s(&g.power(a, &[N], DType::F64).unwrap());
            assert!(x.iter().all(|&v| (0.0..=1.0).contains(&v)), "power in [0, 1]");
            check_moments("power", &x, a / (a + 1.0), a / ((a + 1.0).powi(2) * (a + 2.0)));
            check_ks("power", &x, host(|x| x.max(0.0).powf(a)));
        }

        let sc = 2.0;
        let x = f64s(&g.rayleigh(sc, &[N], DType::F64).unwrap());
        check_moments("rayleigh", &x, sc * (PI / 2.0).sqrt(), (4.0 - PI) / 2.0 * sc * sc);
        check_ks("rayleigh", &x, host(|x| 1.0 - (-x * x / (2.0 * sc * sc)).exp()));

        // Wald: mean mu, variance mu^3 / lambda; its distribution function in ndtr.
        let (m, lam) = (2.0, 3.0);
        let x = f64s(&g.wald(m, lam, &[N], DType::F64).unwrap());
        check_moments("wald", &x, m, m * m * m / lam);
        check_ks("wald", &x, |s| {
            let r = s.reciprocal().unwrap().mul(lam).unwrap().sqrt().unwrap();
            let a = special::ndtr(&r.mul(&s.div(m).unwrap().sub(1.0).unwrap()).unwrap()).unwrap();
            let b = special::ndtr(&r.mul(&s.div(m).unwrap().add(1.0).unwrap()).unwrap().negative().unwrap()).unwrap();
            f64s(&a.add(&b.mul((2.0 * lam / m).exp()).unwrap()).unwrap())
        });

        let (l, md, r) = (-1.0, 0.5, 2.0);
        let x = f64s(&g.triangular(l, md, r, &[N], DType::F64).unwrap());
        assert!(x.iter().all(|&v| (l..=r).contains(&v)));
        check_moments("triangular", &x, (l + md + r) / 3.0, (l * l + md * md + r * r - l * md - l * r - md * r) / 18.0);
        check_ks(
            "triangular",
            &x,
            host(|x| {
                if x <= md {
                    (x - l).powi(2) / ((r - l) * (md - l))
                } else {
                    1.0 - (r - x).powi(2) / ((r - l) * (r - md))
                }
            }),
        );
    });
}

/// The von Mises distribution function by Simpson's rule on a fine grid of its density.
fn vonmises_cdf(mu: f64, kappa: f64) -> impl Fn(f64) -> f64 {
    let m = 40_000;
    let h = 2.0 * PI / m as f64;
    let dens = |x: f64| (kappa * ((x - mu).cos() - 1.0)).exp();
    let mut c = vec![0.0; m + 1];
    for i in 0..m {
        let a = -PI + i as f64 * h;
        c[i + 1] = c[i] + h / 6.0 * (dens(a) + 4.0 * dens(a + h / 2.0) + dens(a + h));
    }
    let tot = c[m];
    move |x: f64| {
        let t = ((x + PI) / h).clamp(0.0, m as f64);
        let i = (t.floor() as usize).min(m - 1);
        let f = t - i as f64;
        (c[i] + f * (c[i + 1] - c[i])) / tot
    }
}

#[test]
fn vonmises_follows_its_distribution() {
    with_device(&cpu(), || {
        let mut g = default_rng(7u64);
        for (mu, kappa) in [(0.5, 2.0), (-3.0, 0.3), (1.0, 1e-9), (2.0, 50.0), (PI - 0.1, 4.0)] {
            let x = f64s(&g.vonmises(mu, kappa, &[N], DType::F64).unwrap());
            assert!(x.iter().all(|&v| (-PI..=PI).contains(&v)), "vonmises in [-pi, pi]");
            // E[cos(x - mu)] = I1(kappa) / I0(kappa).
            let c: Vec<f64> = x.iter().map(|v| (v - mu).cos()).collect();
            let r = if kappa < 1e-6 {
                0.0
            } else {
                sp(|a: &Array| special::i1e(a), kappa) / sp(|a: &Array| special::i0e(a), kappa)
            };
            let var = 0.5
                * (1.0
                    + sp(|a: &Array| special::iv(2.0, a), kappa) / sp(|a: &Array| special::i0(a), kappa).max(1e-300))
                - r * r;
            let var = if kappa < 1e-6 { 0.5 } else { var };
            check_moments("vonmises cos", &c, r, var);
            check_ks("vonmises", &x, host(vonmises_cdf(mu, kappa)));
        }
        // Large concentrations: a wrapped normal of variance 1 / kappa.
        let x = f64s(&g.vonmises(0.0, 1e7, &[N], DType::F64).unwrap());
        check_moments("vonmises 1e7", &x, 0.0, 1e-7);
    });
}

fn ln_choose(n: i64, k: i64) -> f64 {
    if k < 0 || k > n {
        return f64::NEG_INFINITY;
    }
    let k = k.min(n - k);
    (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum()
}

#[test]
fn discrete_families_follow_their_probabilities() {
    with_device(&cpu(), || {
        let mut g = default_rng(99u64);

        for p in [0.3, 0.9] {
            let x = i64s(&g.geometric(p, &[N]).unwrap());
            let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            check_moments("geometric", &xf, 1.0 / p, (1.0 - p) / (p * p));
            check_chi2("geometric", &x, 1, |k| (1.0 - p).powi(k as i32 - 1) * p);
        }

        for (n, p) in [(3.5, 0.4), (0.5, 0.8), (40.0, 0.1)] {
            let x = i64s(&g.negative_binomial(n, p, &[N]).unwrap());
            let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            check_moments("negative_binomial", &xf, n * (1.0 - p) / p, n * (1.0 - p) / (p * p));
            let c = lgamma(n);
            check_chi2("negative_binomial", &x, 0, |k| {
                let k = k as f64;
                (lgamma(k + n) - lgamma(k + 1.0) - c + n * p.ln() + k * (1.0 - p).ln()).exp()
            });
        }

        // Binomial by inversion (n min(p, 1 - p) < 10) and by BTRD, either side of 1/2.
        for (n, p) in [(10i64, 0.3), (100, 0.3), (25, 0.6), (1000, 0.5), (60, 0.9), (5000, 0.02)] {
            let x = i64s(&g.binomial(n, p, &[N]).unwrap());
            let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let nf = n as f64;
            check_moments("binomial", &xf, nf * p, nf * p * (1.0 - p));
            assert!(x.iter().all(|&k| (0..=n).contains(&k)), "binomial {n} {p}: a draw outside [0, n]");
            let c = lgamma(nf + 1.0);
            check_chi2("binomial", &x, 0, |k| {
                let k = k as f64;
                if k > nf {
                    return 0.0;
                }
                (c - lgamma(k + 1.0) - lgamma(nf - k + 1.0) + k * p.ln() + (nf - k) * (1.0 - p).ln()).exp()
            });
        }

        for p in [0.2, 0.6, 0.95] {
            let x = i64s(&g.logseries(p, &[N]).unwrap());
            let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let l = (1.0 - p).ln();
            let mean = -p / ((1.0 - p) * l);
            let var = -p * (p + l) / ((1.0 - p).powi(2) * l * l);
            check_moments("logseries", &xf, mean, var);
            check_chi2("logseries", &x, 1, |k| -p.powi(k as i32) / (k as f64 * l));
        }

        for a in [1.5, 2.5, 5.0] {
            let x = i64s(&g.zipf(a, &[N]).unwrap());
            let z = sp(|s: &Array| special::zeta(s, None), a);
            if a > 3.0 {
                let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
                let z1 = sp(|s: &Array| special::zeta(s, None), a - 1.0);
                let z2 = sp(|s: &Array| special::zeta(s, None), a - 2.0);
                check_moments("zipf", &xf, z1 / z, z2 / z - (z1 / z).powi(2));
            }
            check_chi2("zipf", &x, 1, |k| (k as f64).powf(-a) / z);
        }

        // Hypergeometric: the urn (fewer than 10 draws), HRUA, and the complements (more than
        // half the items drawn, more good than bad).
        for (good, bad, ns) in [(5, 10, 4), (30, 20, 15), (20, 30, 40), (1000, 2000, 500), (7, 3, 9), (200, 800, 12)] {
            let x = i64s(&g.hypergeometric(good, bad, ns, &[N]).unwrap());
            assert!(x.iter().all(|&v| v >= 0.max(ns - bad) && v <= ns.min(good)), "hypergeometric support");
            let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let tot = (good + bad) as f64;
            let p = good as f64 / tot;
            let nf = ns as f64;
            check_moments("hypergeometric", &xf, nf * p, nf * p * (1.0 - p) * (tot - nf) / (tot - 1.0));
            let c = ln_choose(good + bad, ns);
            check_chi2("hypergeometric", &x, 0, |k| (ln_choose(good, k) + ln_choose(bad, ns - k) - c).exp());
        }
    });
}

#[test]
fn vector_distributions_follow_their_marginals() {
    with_device(&cpu(), || {
        let mut g = default_rng(5u64);
        // Multinomial: every row sums to n; each category a binomial; covariances -n p_i p_j.
        let pv = [0.2, 0.3, 0.1, 0.4];
        let n = 20;
        let m = g.multinomial(n, &pv, &[N / 2, 2]).unwrap();
        assert_eq!(m.shape(), &[N / 2, 2, 4]);
        assert_eq!(m.dtype(), DType::I64);
        let v = i64s(&m);
        for row in v.chunks(4) {
            assert_eq!(row.iter().sum::<i64>(), n);
        }
        for (j, &p) in pv.iter().enumerate() {
            let c: Vec<i64> = v.chunks(4).map(|r| r[j]).collect();
            let cf: Vec<f64> = c.iter().map(|&x| x as f64).collect();
            check_moments("multinomial", &cf, n as f64 * p, n as f64 * p * (1.0 - p));
            check_chi2("multinomial", &c, 0, |k| {
                (ln_choose(n, k) + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp()
            });
        }
        let rows = (v.len() / 4) as f64;
        let cov01 = v.chunks(4).map(|r| (r[0] as f64 - 4.0) * (r[1] as f64 - 6.0)).sum::<f64>() / rows;
        assert!((cov01 - (-(n as f64) * 0.2 * 0.3)).abs() < 0.05, "multinomial covariance {cov01}");

        // Dirichlet: rows sum to 1; marginal j is Beta(alpha_j, alpha_0 - alpha_j).
        let al = [2.0, 3.0, 0.5];
        let a0: f64 = al.iter().sum();
        let d = g.dirichlet(&al, &[N]).unwrap();
        assert_eq!(d.shape(), &[N, 3]);
        assert_eq!(d.dtype(), DType::F64);
        let v = f64s(&d);
        for row in v.chunks(3) {
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        for (j, &a) in al.iter().enumerate() {
            let c: Vec<f64> = v.chunks(3).map(|r| r[j]).collect();
            let b = a0 - a;
            check_moments("dirichlet", &c, a / a0, a * b / (a0 * a0 * (a0 + 1.0)));
            check_ks("dirichlet", &c, |s| f64s(&special::betainc(a, b, s).unwrap()));
        }

        // Multivariate normal: sample mean and covariance; each marginal normal.
        let mean = Array::from_slice(&[1.0, -2.0, 0.5], &[3]).unwrap();
        let cv = [2.0, 0.6, -0.3, 0.6, 1.0, 0.2, -0.3, 0.2, 0.5];
        let cov = Array::from_slice(&cv, &[3, 3]).unwrap();
        let x = g.multivariate_normal(&mean, &cov, &[N], DType::F64).unwrap();
        assert_eq!(x.shape(), &[N, 3]);
        let v = f64s(&x);
        let mu = [1.0, -2.0, 0.5];
        for i in 0..3 {
            let c: Vec<f64> = v.chunks(3).map(|r| r[i]).collect();
            check_moments("multivariate_normal", &c, mu[i], cv[4 * i]);
            let (m, s) = (mu[i], cv[4 * i].sqrt());
            check_ks("multivariate_normal", &c, |a| f64s(&special::ndtr(&a.sub(m).unwrap().div(s).unwrap()).unwrap()));
            for j in 0..i {
                let c = v.chunks(3).map(|r| (r[i] - mu[i]) * (r[j] - mu[j])).sum::<f64>() / N as f64;
                assert!((c - cv[3 * i + j]).abs() < 0.02, "multivariate_normal covariance ({i}, {j}): {c}");
            }
        }
        // A singular (positive semidefinite) covariance: both coordinates equal.
        let cov = Array::from_slice(&[1.0, 1.0, 1.0, 1.0], &[2, 2]).unwrap();
        let mean = Array::from_slice(&[0.0, 0.0], &[2]).unwrap();
        let x = f64s(&g.multivariate_normal(&mean, &cov, &[1000], DType::F32).unwrap());
        for r in x.chunks(2) {
            assert!((r[0] - r[1]).abs() < 1e-5);
        }
    });
}

#[test]
fn float32_draws_stay_float32_and_follow_their_distributions() {
    with_device(&cpu(), || {
        let mut g = default_rng(11u64);
        type Draw = fn(&mut Generator, &[usize], DType) -> Result<Array>;
        let cases: Vec<(&str, Draw)> = vec![
            ("standard_gamma", |g, s, d| g.standard_gamma(2.0, s, d)),
            ("standard_cauchy", |g, s, d| g.standard_cauchy(s, d)),
            ("standard_t", |g, s, d| g.standard_t(4.0, s, d)),
            ("chisquare", |g, s, d| g.chisquare(2.0, s, d)),
            ("noncentral_chisquare", |g, s, d| g.noncentral_chisquare(2.0, 1.0, s, d)),
            ("f", |g, s, d| g.f(3.0, 4.0, s, d)),
            ("noncentral_f", |g, s, d| g.noncentral_f(3.0, 4.0, 1.0, s, d)),
            ("lognormal", |g, s, d| g.lognormal(0.0, 1.0, s, d)),
            ("laplace", |g, s, d| g.laplace(0.0, 1.0, s, d)),
            ("logistic", |g, s, d| g.logistic(0.0, 1.0, s, d)),
            ("gumbel", |g, s, d| g.gumbel(0.0, 1.0, s, d)),
            ("weibull", |g, s, d| g.weibull(2.0, s, d)),
            ("pareto", |g, s, d| g.pareto(2.0, s, d)),
            ("power", |g, s, d| g.power(2.0, s, d)),
            ("rayleigh", |g, s, d| g.rayleigh(1.0, s, d)),
            ("vonmises", |g, s, d| g.vonmises(0.0, 1.0, s, d)),
            ("wald", |g, s, d| g.wald(1.0, 1.0, s, d)),
            ("triangular", |g, s, d| g.triangular(0.0, 0.5, 1.0, s, d)),
        ];
        for (name, f) in cases {
            for dt in [DType::F32, DType::F64] {
                let a = f(&mut g, &[3, 4], dt).unwrap();
                assert_eq!((a.dtype(), a.shape()), (dt, &[3usize, 4][..]), "{name}");
                let z = f(&mut g, &[], dt).unwrap();
                assert_eq!(z.shape(), &[] as &[usize], "{name}: size=None is 0-d");
                let e = f(&mut g, &[0, 5], dt).unwrap();
                assert_eq!(e.shape(), &[0, 5], "{name}");
            }
            // The float32 draws are the float64 draws rounded: same seed, same stream (but for
            // the gamma family's float loop, checked on its distribution below).
            if !matches!(name, "standard_gamma" | "standard_t" | "chisquare") {
                let a = f(&mut default_rng(3u64), &[1000], DType::F32).unwrap().to_vec::<f32>().unwrap();
                let b = f(&mut default_rng(3u64), &[1000], DType::F64).unwrap().to_vec::<f64>().unwrap();
                assert!(a.iter().zip(&b).all(|(&x, &y)| x == y as f32), "{name}: float32 is float64 rounded");
            }
            match f(&mut g, &[2], DType::I64) {
                Err(Error::UnsupportedDType { .. }) => {}
                other => panic!("{name}: int64 must be refused, got {other:?}"),
            }
        }
        // The float loops of the gamma family on their distribution functions: shapes below 1
        // (boosted), near 1 and large; Student's t of a few degrees of freedom; chi-square.
        for k in [0.3, 1.0, 2.0, 9.5] {
            let x = f64s(&g.standard_gamma(k, &[N], DType::F32).unwrap());
            check_ks(&format!("standard_gamma({k}) f32"), &x, |s| f64s(&special::gammainc(k, s).unwrap()));
            check_moments(&format!("standard_gamma({k}) f32"), &x, k, k);
        }
        for df in [1.0, 5.0] {
            let x = f64s(&g.standard_t(df, &[N], DType::F32).unwrap());
            check_ks(&format!("standard_t({df}) f32"), &x, |s| f64s(&special::stdtr(df, s).unwrap()));
        }
        let x = f64s(&g.chisquare(3.0, &[N], DType::F32).unwrap());
        check_ks("chisquare(3) f32", &x, |s| f64s(&special::chdtr(3.0, s).unwrap()));
        // Float32 lognormal on its distribution function.
        let x = f64s(&g.lognormal(0.0, 0.5, &[N], DType::F32).unwrap());
        check_ks("lognormal f32", &x, |s| f64s(&special::ndtr(&s.log().unwrap().div(0.5).unwrap()).unwrap()));
        // Integer distributions are int64.
        for a in [
            g.geometric(0.5, &[2, 3]).unwrap(),
            g.hypergeometric(3, 4, 5, &[2, 3]).unwrap(),
            g.logseries(0.5, &[2, 3]).unwrap(),
            g.negative_binomial(2.0, 0.5, &[2, 3]).unwrap(),
            g.zipf(2.0, &[2, 3]).unwrap(),
        ] {
            assert_eq!((a.dtype(), a.shape()), (DType::I64, &[2usize, 3][..]));
        }
    });
}

#[test]
fn bad_parameters_are_value_errors_naming_the_function() {
    with_device(&cpu(), || {
        let mut g = default_rng(1u64);
        let s = &[4usize][..];
        let f = DType::F64;
        value_error(g.standard_gamma(-1.0, s, f), "standard_gamma");
        value_error(g.standard_t(0.0, s, f), "standard_t");
        value_error(g.standard_t(f64::NAN, s, f), "standard_t");
        value_error(g.chisquare(-2.0, s, f), "chisquare");
        value_error(g.noncentral_chisquare(0.0, 1.0, s, f), "noncentral_chisquare");
        value_error(g.noncentral_chisquare(1.0, -1.0, s, f), "noncentral_chisquare");
        value_error(g.f(0.0, 1.0, s, f), "f");
        value_error(g.f(1.0, -1.0, s, f), "f");
        value_error(g.noncentral_f(1.0, 1.0, -0.5, s, f), "noncentral_f");
        value_error(g.lognormal(0.0, -1.0, s, f), "lognormal");
        value_error(g.laplace(0.0, -1.0, s, f), "laplace");
        value_error(g.logistic(0.0, -1.0, s, f), "logistic");
        value_error(g.gumbel(0.0, -1.0, s, f), "gumbel");
        value_error(g.weibull(-1.0, s, f), "weibull");
        value_error(g.pareto(0.0, s, f), "pareto");
        value_error(g.power(0.0, s, f), "power");
        value_error(g.rayleigh(-1.0, s, f), "rayleigh");
        value_error(g.vonmises(0.0, -1.0, s, f), "vonmises");
        value_error(g.wald(0.0, 1.0, s, f), "wald");
        value_error(g.wald(1.0, 0.0, s, f), "wald");
        value_error(g.triangular(1.0, 0.0, 2.0, s, f), "triangular");
        value_error(g.triangular(0.0, 3.0, 2.0, s, f), "triangular");
        value_error(g.triangular(1.0, 1.0, 1.0, s, f), "triangular");
        value_error(g.geometric(0.0, s), "geometric");
        value_error(g.geometric(1.5, s), "geometric");
        value_error(g.geometric(f64::NAN, s), "geometric");
        value_error(g.hypergeometric(-1, 3, 2, s), "hypergeometric");
        value_error(g.hypergeometric(1, -3, 2, s), "hypergeometric");
        value_error(g.hypergeometric(1, 3, -2, s), "hypergeometric");
        value_error(g.hypergeometric(1, 3, 5, s), "hypergeometric");
        value_error(g.logseries(1.0, s), "logseries");
        value_error(g.logseries(-0.1, s), "logseries");
        value_error(g.negative_binomial(0.0, 0.5, s), "negative_binomial");
        value_error(g.negative_binomial(1.0, 0.0, s), "negative_binomial");
        value_error(g.negative_binomial(1.0, 1.5, s), "negative_binomial");
        value_error(g.zipf(1.0, s), "zipf");
        value_error(g.multinomial(-1, &[0.5, 0.5], s), "multinomial");
        value_error(g.multinomial(3, &[0.7, 0.7, 0.2], s), "multinomial");
        value_error(g.multinomial(3, &[-0.1, 1.1], s), "multinomial");
        value_error(g.multinomial(3, &[], s), "multinomial");
        value_error(g.dirichlet(&[1.0, 0.0], s), "dirichlet");
        value_error(g.dirichlet(&[], s), "dirichlet");
        let mean = Array::from_slice(&[0.0, 0.0], &[2]).unwrap();
        let bad = Array::from_slice(&[1.0, 2.0, 2.0, 1.0], &[2, 2]).unwrap(); // eigenvalues 3, -1
        value_error(g.multivariate_normal(&mean, &bad, s, f), "multivariate_normal");
        let asym = Array::from_slice(&[1.0, 0.5, 0.0, 1.0], &[2, 2]).unwrap();
        value_error(g.multivariate_normal(&mean, &asym, s, f), "multivariate_normal");
        let wrong = Array::from_slice(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], &[3, 3]).unwrap();
        value_error(g.multivariate_normal(&mean, &wrong, s, f), "multivariate_normal");
        // Edge parameters that are allowed: zero scales, p = 1, empty samples.
        assert!(f64s(&g.laplace(2.0, 0.0, s, f).unwrap()).iter().all(|&x| x == 2.0));
        assert!(i64s(&g.geometric(1.0, s).unwrap()).iter().all(|&x| x == 1));
        assert!(i64s(&g.negative_binomial(2.0, 1.0, s).unwrap()).iter().all(|&x| x == 0));
        assert!(i64s(&g.logseries(0.0, s).unwrap()).iter().all(|&x| x == 1));
        assert!(i64s(&g.hypergeometric(5, 0, 3, s).unwrap()).iter().all(|&x| x == 3));
        assert!(i64s(&g.hypergeometric(5, 7, 0, s).unwrap()).iter().all(|&x| x == 0));
        assert!(f64s(&g.weibull(0.0, s, f).unwrap()).iter().all(|&x| x == 0.0));
    });
}

#[test]
fn the_same_seed_gives_the_same_stream() {
    with_device(&cpu(), || {
        let run = |seed: u64| {
            let mut g = default_rng(seed);
            let mut v = f64s(&g.standard_t(3.0, &[257], DType::F64).unwrap());
            v.extend(f64s(&g.vonmises(1.0, 2.0, &[100], DType::F64).unwrap()));
            v.extend(i64s(&g.hypergeometric(40, 60, 30, &[100]).unwrap()).iter().map(|&x| x as f64));
            v.extend(i64s(&g.zipf(2.0, &[100]).unwrap()).iter().map(|&x| x as f64));
            v.extend(f64s(&g.dirichlet(&[1.0, 2.0], &[50]).unwrap()));
            v.extend(i64s(&g.multinomial(10, &[0.5, 0.5], &[50]).unwrap()).iter().map(|&x| x as f64));
            v
        };
        let (a, b, c) = (run(42), run(42), run(43));
        assert_eq!(
            a.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            b.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert_ne!(a, c);
        // Successive calls draw fresh values.
        let mut g = default_rng(42u64);
        let x = f64s(&g.gumbel(0.0, 1.0, &[64], DType::F64).unwrap());
        let y = f64s(&g.gumbel(0.0, 1.0, &[64], DType::F64).unwrap());
        assert_ne!(x, y);
        // bytes
        let b1 = default_rng(9u64).bytes(1000).unwrap();
        assert_eq!(b1, default_rng(9u64).bytes(1000).unwrap());
        assert_eq!(b1.len(), 1000);
        let distinct = b1.iter().collect::<std::collections::HashSet<_>>().len();
        assert!(distinct > 240, "bytes cover the byte values: {distinct}");
    });
}

#[test]
fn the_legacy_module_functions_draw_from_the_seeded_global_generator() {
    with_device(&cpu(), || {
        let draw = || {
            vec![
                f64s(&rnd::standard_t(5.0, &[8], DType::F64).unwrap()),
                f64s(&rnd::lognormal(0.0, 1.0, &[8], DType::F32).unwrap()),
                f64s(&rnd::chisquare(2.0, &[8], DType::F64).unwrap()),
                f64s(&rnd::random_sample(&[8], DType::F64).unwrap()),
                i64s(&rnd::zipf(2.0, &[8]).unwrap()).iter().map(|&x| x as f64).collect(),
                i64s(&rnd::random_integers(3, Some(5), &[64]).unwrap()).iter().map(|&x| x as f64).collect(),
            ]
        };
        // Other tests may draw from the global generator at the same time: a few tries.
        let mut a = Vec::new();
        for _ in 0..5 {
            rnd::seed(2024u64);
            a = draw();
            rnd::seed(2024u64);
            if a == draw() {
                break;
            }
            a.clear();
        }
        assert!(!a.is_empty(), "the same seed gives the same draws");
        assert!(a[5].iter().all(|&x| (3.0..=5.0).contains(&x)));
        // get_random_state copies the state; set_random_state restores it.
        let mut same = false;
        for _ in 0..5 {
            let st = rnd::get_random_state();
            let x = f64s(&rnd::rand(&[16]).unwrap());
            rnd::set_random_state(st);
            same = x == f64s(&rnd::ranf(&[16], DType::F64).unwrap());
            if same {
                break;
            }
        }
        assert!(same, "set_random_state restores the state get_random_state copied");
        let mut rs: rnd::RandomState = rnd::get_random_state();
        rs.seed(1u64);
        assert_eq!(
            f64s(&rs.random(&[16], DType::F64).unwrap()),
            f64s(&default_rng(1u64).random(&[16], DType::F64).unwrap())
        );
        assert_eq!(rnd::multinomial(5, &[0.3, 0.7], &[4]).unwrap().shape(), &[4, 2]);
        assert_eq!(rnd::dirichlet(&[1.0, 1.0, 1.0], &[]).unwrap().shape(), &[3]);
        assert_eq!(rnd::permutation(10).unwrap().shape(), &[10]);
        assert_eq!(rnd::bytes(7).unwrap().len(), 7);
        assert!(matches!(rnd::pareto(-1.0, &[2], DType::F64), Err(Error::Value { .. })));
        rnd::reset_states();
        assert_eq!(rnd::standard_cauchy(&[3], DType::F32).unwrap().dtype(), DType::F32);
        let r = i64s(&rnd::random_integers(4, None, &[200]).unwrap());
        assert!(r.iter().all(|&x| (1..=4).contains(&x)));
    });
}
