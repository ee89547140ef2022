//! `xp::random` gives the same bits on a device as on the CPU backend for the same seed and
//! calls: every distribution, both float widths.

use std::sync::Arc;

use xp_array::random::default_rng;
use xp_array::*;
use xp_backend_api::DynDevice;

/// Each distribution's draws from one seed, as raw 64-bit words, on the current device.
fn draws() -> Vec<(String, Vec<u64>)> {
    let mut g = default_rng(20_261_123u64);
    let n = 100_003;
    let mut out = Vec::new();
    let mut put = |name: &str, a: Array| {
        let bits: Vec<u64> = match a.dtype() {
            DType::F32 => a.to_vec::<f32>().unwrap().into_iter().map(|x| x.to_bits() as u64).collect(),
            DType::F64 => a.to_vec::<f64>().unwrap().into_iter().map(f64::to_bits).collect(),
            _ => a.astype(DType::I64).unwrap().to_vec::<i64>().unwrap().into_iter().map(|x| x as u64).collect(),
        };
        out.push((name.to_string(), bits));
    };
    for dt in [DType::F32, DType::F64] {
        put(&format!("random {dt}"), g.random(&[n], dt).unwrap());
        put(&format!("uniform {dt}"), g.uniform(-1.0, 1.0, &[n], dt).unwrap());
        put(&format!("normal {dt}"), g.normal(0.5, 2.0, &[n], dt).unwrap());
        put(&format!("exponential {dt}"), g.exponential(3.0, &[n], dt).unwrap());
    }
    put("integers", g.integers(-1000, 1_000_000_007, &[n], DType::I64, false).unwrap());
    put("gamma 0.3", g.gamma(0.3, 1.0, &[n], DType::F64).unwrap());
    put("gamma 4.5", g.gamma(4.5, 2.0, &[n], DType::F64).unwrap());
    put("beta", g.beta(2.0, 5.0, &[n], DType::F64).unwrap());
    put("poisson 4", g.poisson(4.0, &[n]).unwrap());
    put("poisson 1e4", g.poisson(1e4, &[n]).unwrap());
    put("binomial", g.binomial(100_000, 0.3, &[n]).unwrap());
    put("permutation", g.permutation(n).unwrap());
    for dt in [DType::F32, DType::F64] {
        put(&format!("standard_t {dt}"), g.standard_t(3.5, &[n], dt).unwrap());
        put(&format!("noncentral_chisquare {dt}"), g.noncentral_chisquare(0.5, 2.0, &[n], dt).unwrap());
        put(&format!("noncentral_f {dt}"), g.noncentral_f(3.0, 7.0, 1.5, &[n], dt).unwrap());
        put(&format!("lognormal {dt}"), g.lognormal(0.5, 0.8, &[n], dt).unwrap());
        put(&format!("vonmises {dt}"), g.vonmises(1.0, 3.0, &[n], dt).unwrap());
        put(&format!("wald {dt}"), g.wald(2.0, 3.0, &[n], dt).unwrap());
    }
    for (name, a) in [
        ("cauchy", g.standard_cauchy(&[n], DType::F64)),
        ("laplace", g.laplace(1.0, 2.0, &[n], DType::F64)),
        ("logistic", g.logistic(1.0, 2.0, &[n], DType::F64)),
        ("gumbel", g.gumbel(1.0, 2.0, &[n], DType::F64)),
        ("weibull", g.weibull(1.5, &[n], DType::F64)),
        ("pareto", g.pareto(3.0, &[n], DType::F64)),
        ("power", g.power(0.5, &[n], DType::F64)),
        ("rayleigh", g.rayleigh(2.0, &[n], DType::F64)),
        ("triangular", g.triangular(-1.0, 0.5, 2.0, &[n], DType::F64)),
        ("geometric", g.geometric(0.3, &[n])),
        ("hypergeometric", g.hypergeometric(300, 200, 150, &[n])),
        ("logseries", g.logseries(0.9, &[n])),
        ("negative_binomial", g.negative_binomial(3.5, 0.4, &[n])),
        ("zipf", g.zipf(2.5, &[n])),
        ("multinomial", g.multinomial(30, &[0.2, 0.3, 0.5], &[n / 3])),
        ("dirichlet", g.dirichlet(&[0.5, 2.0, 3.0], &[n / 3])),
    ] {
        put(name, a.unwrap());
    }
    out
}

pub fn random_draws_have_the_same_bits_as_on_the_cpu(d: &Arc<dyn DynDevice>) {
    let Ok(cpu) = device("cpu") else {
        println!("SKIPPED: random_draws_have_the_same_bits_as_on_the_cpu: no CPU backend registered");
        return;
    };
    let here = with_device(d, draws);
    let there = with_device(&cpu, draws);
    for ((name, a), (_, b)) in here.iter().zip(&there) {
        let diff = a.iter().zip(b).position(|(x, y)| x != y);
        assert_eq!(diff, None, "{name} on {} differs from the CPU's", d.label());
    }
}
