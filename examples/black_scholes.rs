//! Prices of European call and put options by the Black-Scholes formula, computed three ways
//! on the best device present: device-agnostic array code (the same function runs NumPy-style
//! on any module), one `ElementwiseKernel`, and plain Rust on the host. The three must agree.
//!
//! A port of CuPy's `examples/finance/black_scholes.py`; `cargo run --release --example
//! black_scholes`.

use xp::prelude::*;
use xp::{ArrayModule, ElementwiseKernel, Operand};

// The polynomial approximation of the cumulative normal distribution (Abramowitz and Stegun
// 26.2.17), as CUDA's sample uses.
const A: [f64; 5] = [0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429];
const RSQRT2PI: f64 = 0.398_942_280_401_432_7;
const W: f64 = 0.2316419;

/// Array code written once for any module: `xp` is the arrays' namespace.
fn black_scholes(xp: &ArrayModule, s: &Array, x: &Array, t: &Array, r: f64, v: f64) -> xp::Result<(Array, Array)> {
    let sqrt_t = xp.sqrt(t)?;
    let d1 = (xp.log(&(s / x))? + t * (r + v * v / 2.0)) / (&sqrt_t * v);
    let d2 = &d1 - &sqrt_t * v;
    let cnd = |d: &Array| -> xp::Result<Array> {
        let k = 1.0 / (1.0 + W * xp.abs(d)?);
        let poly = &k * (A[0] + &k * (A[1] + &k * (A[2] + &k * (A[3] + &k * A[4]))));
        let cnd = RSQRT2PI * xp.exp(&(-d * d / 2.0))? * poly;
        xp.where_(&d.gt(0.0)?, &(1.0 - &cnd), &cnd)
    };
    let (cnd_d1, cnd_d2) = (cnd(&d1)?, cnd(&d2)?);
    let exp_rt = xp.exp(&(-r * t))?;
    let call = s * &cnd_d1 - x * &exp_rt * &cnd_d2;
    let put = x * &exp_rt * (1.0 - &cnd_d2) - s * (1.0 - &cnd_d1);
    Ok((call, put))
}

/// The same formula as one kernel; its helper in the preamble uses the type placeholder `T`.
fn black_scholes_kernel() -> xp::Result<ElementwiseKernel> {
    let kernel = ElementwiseKernel::new(
        "T s, T x, T t, T r, T v",
        "T call, T put",
        "const T sqrt_t = sqrt(t);
         const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
         const T d2 = d1 - v * sqrt_t;
         const T cnd_d1 = cnd(d1), cnd_d2 = cnd(d2), exp_rt = exp(-r * t);
         call = s * cnd_d1 - x * exp_rt * cnd_d2;
         put = x * exp_rt * (1 - cnd_d2) - s * (1 - cnd_d1);",
        "black_scholes_kernel",
    )?;
    Ok(kernel.with_preamble(&format!(
        "__device__ inline T cnd(T d) {{
             const T k = 1 / (1 + T({W}) * abs(d));
             T c = T({RSQRT2PI}) * exp(-d * d / 2)
                 * (k * (T({}) + k * (T({}) + k * (T({}) + k * (T({}) + k * T({}))))));
             return d > 0 ? 1 - c : c;
         }}",
        A[0], A[1], A[2], A[3], A[4]
    )))
}

/// The formula in plain Rust, one option at a time.
fn host(s: f64, x: f64, t: f64, r: f64, v: f64) -> (f64, f64) {
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + W * d.abs());
        let c = RSQRT2PI * (-d * d / 2.0).exp() * (k * (A[0] + k * (A[1] + k * (A[2] + k * (A[3] + k * A[4])))));
        if d > 0.0 {
            1.0 - c
        } else {
            c
        }
    };
    let d1 = ((s / x).ln() + (r + v * v / 2.0) * t) / (v * t.sqrt());
    let d2 = d1 - v * t.sqrt();
    let exp_rt = (-r * t).exp();
    (s * cnd(d1) - x * exp_rt * cnd(d2), x * exp_rt * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)))
}

/// Run `f` between two events and print the time between them, as the Python's `timer`.
fn timer<R>(message: &str, f: impl FnOnce() -> xp::Result<R>) -> xp::Result<R> {
    let (start, end) = (Event::new(), Event::new());
    start.record(None)?;
    let r = f()?;
    end.record(None)?;
    end.synchronize()?;
    println!("{message}:\t{:.6} sec", get_elapsed_time(&start, &end)? / 1e3);
    Ok(r)
}

fn main() -> xp::Result<()> {
    let d = default_device()?;
    let n = if d.label() == "cpu" { 1_000_000 } else { 10_000_000 };
    xp::with_device(&d, || {
        println!("initializing {n} options on {}...", d.label());
        let rand_range = |m: f64, big_m: f64| xp::random::uniform(m, big_m, &[n], DType::F64);
        let (s, x, t) = (rand_range(5.0, 30.0)?, rand_range(1.0, 100.0)?, rand_range(0.25, 10.0)?);
        let (hs, hx, ht) = (s.to_vec::<f64>()?, x.to_vec::<f64>()?, t.to_vec::<f64>()?);
        let (risk_free, volatility) = (0.02, 0.3);
        let kernel = black_scholes_kernel()?;
        let xp = get_array_module(&[&s])?;

        println!("start computation");
        let (call_cpu, put_cpu): (Vec<f64>, Vec<f64>) = timer(" host (plain Rust)", || {
            Ok((0..n).map(|i| host(hs[i], hx[i], ht[i], risk_free, volatility)).unzip())
        })?;
        let (call1, put1) = timer(" device (array code)", || {
            let (c, p) = black_scholes(&xp, &s, &x, &t, risk_free, volatility)?;
            xp::eval(&[&c, &p])?;
            Ok((c, p))
        })?;
        let args: [Operand; 5] = [(&s).into(), (&x).into(), (&t).into(), risk_free.into(), volatility.into()];
        let out2 = timer(" device (ElementwiseKernel)", || kernel.call_all(&args))?;

        let (call_cpu, put_cpu) = (Array::from_vec(call_cpu)?, Array::from_vec(put_cpu)?);
        for (name, got, want) in [
            ("call", &call1, &call_cpu),
            ("call", &out2[0], &call_cpu),
            ("put", &put1, &put_cpu),
            ("put", &out2[1], &put_cpu),
        ] {
            // A billionth of a unit of price: the difference of two nearly equal terms
            // leaves far-out-of-the-money prices with no relative accuracy.
            if !xp::allclose(got, want, 1e-7, 1e-9, false)? {
                return Err(Error::value(
                    "black_scholes",
                    format!("the device's {name} prices differ from the host's"),
                ));
            }
        }
        println!("all prices agree with the host computation");
        Ok(())
    })
}
