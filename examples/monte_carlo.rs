//! Prices of European call options by Monte Carlo simulation on the best device present,
//! checked against the closed form (Black-Scholes, as `examples/black_scholes.rs` computes it).
//!
//! Under the risk-neutral measure the stock price at expiry is lognormal, so a call's price is
//! the discounted mean payoff `exp(-r t) E[max(S exp((r - v²/2) t + v √t Z) - X, 0)]` over
//! standard normal `Z`. One `ElementwiseKernel` runs a thread per (option, path batch): each
//! thread seeds its own xorshift generator from its index, draws normals by inverting the
//! normal distribution with `erfcinv`, and averages its batch; the batches are averaged on the
//! device. A port of CuPy's `examples/finance/monte_carlo.py`; `cargo run --release --example
//! monte_carlo`.

use xp::prelude::*;
use xp::{ElementwiseKernel, Operand};

/// The simulation kernel; its helpers in the preamble use the type placeholder `T`.
fn monte_carlo_kernel() -> xp::Result<ElementwiseKernel> {
    let kernel = ElementwiseKernel::new(
        "T s, T x, T t, T r, T v, int32 n_samples, int32 seed",
        "T call",
        "unsigned long long state[2];
         seed_state(state, i, seed);
         const T v_sqrt_t = v * sqrt(t), mu_t = (r - v * v / 2) * t;
         T payoff_sum = 0;
         for (int k = 0; k < n_samples; ++k) {
             const T z = normal(state);
             payoff_sum += payoff(s, x, z, mu_t, v_sqrt_t);
         }
         call = exp(-r * t) * payoff_sum / n_samples;",
        "monte_carlo_kernel",
    )?;
    Ok(kernel.with_preamble(
        "__device__ inline T payoff(T s, T x, T z, T mu_t, T v_sqrt_t) {
             const T gain = s * exp(mu_t + v_sqrt_t * z) - x;
             return gain > 0 ? gain : T(0);
         }
         // Two words of state from the thread's index and the seed, mixed by splitmix64.
         __device__ inline unsigned long long splitmix(unsigned long long z) {
             z += 0x9e3779b97f4a7c15ull;
             z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
             z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
             return z ^ (z >> 31);
         }
         __device__ inline void seed_state(unsigned long long* st, long long i, int seed) {
             st[0] = splitmix(2 * (unsigned long long)i + ((unsigned long long)seed << 40));
             st[1] = splitmix(2 * (unsigned long long)i + 1 + ((unsigned long long)seed << 40));
         }
         // Marsaglia's xorshift128+; the top 53 bits give a uniform in (0, 1).
         __device__ inline T uniform(unsigned long long* st) {
             unsigned long long a = st[0];
             const unsigned long long b = st[1];
             st[0] = b;
             a ^= a << 23;
             st[1] = a ^ b ^ (a >> 17) ^ (b >> 26);
             return (T((st[1] + b) >> 11) + T(0.5)) / T(9007199254740992.0);
         }
         // The inverse of the normal distribution: Phi^-1(u) = -sqrt(2) erfcinv(2u).
         __device__ inline T normal(unsigned long long* st) {
             return T(-1.4142135623730951) * erfcinv(2 * uniform(st));
         }",
    ))
}

/// Each option's price: `n_threads` batches of `n_samples` paths, averaged.
#[allow(clippy::too_many_arguments)]
fn compute_option_prices(
    kernel: &ElementwiseKernel,
    (s, x, t): (&Array, &Array, &Array),
    r: f64,
    v: f64,
    n_threads: usize,
    n_samples: i32,
    seed: i32,
) -> xp::Result<Array> {
    let prices = xp::empty(&[s.size(), n_threads], DType::F64)?;
    // Broadcasting: the (n, 1) inputs fill the (n, n_threads) output, a thread per element.
    let col = |a: &Array| a.at(s![.., NewAxis]);
    let (sc, xc, tc) = (col(s)?, col(x)?, col(t)?);
    let out: Operand = (&prices).into();
    kernel.call_all(&[
        (&sc).into(),
        (&xc).into(),
        (&tc).into(),
        r.into(),
        v.into(),
        n_samples.into(),
        seed.into(),
        out,
    ])?;
    prices.mean(Some(&[1]), false)
}

/// The closed form of a call's price (Black-Scholes), with the exact normal distribution.
fn black_scholes_call(s: &Array, x: &Array, t: &Array, r: f64, v: f64) -> xp::Result<Array> {
    let d1 = ((s / x).log()? + t * (r + v * v / 2.0)) / (t.sqrt()? * v);
    let d2 = &d1 - t.sqrt()? * v;
    Ok(s * xp::special::ndtr(&d1)? - x * (-r * t).exp()? * xp::special::ndtr(&d2)?)
}

fn main() -> xp::Result<()> {
    let d = default_device()?;
    let cpu = d.label() == "cpu";
    let (n_options, n_threads, n_samples) = if cpu { (100, 1000, 100) } else { (1000, 10_000, 1000) };
    xp::with_device(&d, || {
        println!("initializing on {}...", d.label());
        xp::random::seed(0u64);
        let rand_range = |m: f64, big_m: f64| xp::random::uniform(m, big_m, &[n_options], DType::F64);
        let (s, x, t) = (rand_range(5.0, 30.0)?, rand_range(1.0, 100.0)?, rand_range(0.25, 10.0)?);
        let (risk_free, volatility) = (0.02, 0.3);
        let kernel = monte_carlo_kernel()?;

        println!("start computation");
        println!("    # of options: {n_options}");
        println!("    # of samples per option: {}", n_threads * n_samples as usize);
        let (start, end) = (Event::new(), Event::new());
        start.record(None)?;
        let call_mc = compute_option_prices(&kernel, (&s, &x, &t), risk_free, volatility, n_threads, n_samples, 0)?;
        xp::eval(&[&call_mc])?;
        end.record(None)?;
        end.synchronize()?;
        println!("device (Monte Carlo method):\t{:.6} sec", get_elapsed_time(&start, &end)? / 1e3);

        let call_bs = black_scholes_call(&s, &x, &t, risk_free, volatility)?;
        let error = (&call_mc - &call_bs).std(None, 0, false)?.item::<f64>()?;
        println!("Error: {error:.6}");
        // The payoff's standard deviation stays below 40 for these options.
        let bound = 40.0 * 3.0 / ((n_threads * n_samples as usize) as f64).sqrt();
        if error.is_nan() || error >= bound {
            return Err(Error::value("monte_carlo", format!("error {error} against the closed form exceeds {bound}")));
        }
        Ok(())
    })
}
