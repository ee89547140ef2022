//! `xp::random`: NumPy's `Generator` and CuPy's legacy `cupy.random` functions, on a
//! counter-based Philox4x32-10 that gives the same bits on every device.
//!
//! `default_rng(seed)` takes a `u64` or a slice of 32-bit words, every bit of which goes into
//! the 64-bit Philox key. Each call consumes counter blocks, so the same seed and the same
//! sequence of calls give the same bits on the CPU, CUDA and HIP, on any GPU model (see
//! `xp_kernels::random`). The values are not NumPy's bits (CuPy's are not either); the
//! distributions are. Arrays are made on the current device.
//!
//! # Contract
//! - Every distribution of `cupy.random` is a [`Generator`] method and a module-level function
//!   of the same name drawing from a global generator ([`seed`], [`get_random_state`],
//!   [`set_random_state`]; [`RandomState`] is [`Generator`]). `shape` is NumPy's `size`
//!   (`&[]` for `size=None`: a 0-d array).
//! - Parameters are scalars (NumPy also broadcasts arrays of parameters; here a loop over
//!   parameter values makes one call per value). `multinomial`'s `pvals` and `dirichlet`'s
//!   `alpha` are slices; `multivariate_normal` takes its mean and covariance as arrays.
//! - dtypes as CuPy's: the continuous distributions take `dtype` (CuPy's `dtype` argument,
//!   float64 or float32; anything else is an `UnsupportedDType` error), computed in double and
//!   rounded once, so a float32 draw is the float64 draw of the same seed rounded, except
//!   `standard_gamma`/`gamma`, `standard_t` and `chisquare`, whose float32 draws run their own
//!   float loop (as NumPy's float32 gamma does); the counts
//!   (`poisson`, `binomial`, `geometric`, `hypergeometric`, `logseries`, `negative_binomial`,
//!   `zipf`, `multinomial`) are int64; `dirichlet` is float64.
//! - Bad parameters are `Error::Value` naming the function and the condition with NumPy's
//!   words (`"scale < 0"`, `"p <= 0, p > 1 or p is NaN"`, `"ngood + nbad < nsample"`,
//!   `"covariance is not symmetric positive-semidefinite"`, …). NaN parameters fail the same
//!   checks. Where NumPy only warns (`multivariate_normal`'s `check_valid='warn'`) xp raises.
//!
//! # Algorithms
//! Every draw runs on the device. Uniform, normal (Box–Muller), exponential and integer draws
//! turn Philox blocks into several values each; every other distribution gives element `i` the
//! Philox blocks `(base + i, j = 0, 1, …)` as its own stream of words, and runs its rejection
//! loop inside the kernel (`dist.h`), in double precision from the engine's own `ln`, `exp`,
//! `sin`/`cos` and products that no compiler may contract, so the bits agree across backends
//! (von Mises' `acos` too: a Taylor series of `asin` and its half-angle forms). The normal
//! variates inside those streams (gamma, Student's t, lognormal, …) come from a 256-layer
//! ziggurat (Marsaglia and Tsang 2000, with Doornik's (2005) layer bits apart from the 52-bit
//! uniform; tables made by `kernels/tools/ziggurat.py`): two words and one product for 99.3%
//! of the draws. Float32 draws by rejection are the float64 draws rounded, written directly,
//! but for gamma and the two distributions made of one gamma (Student's t, chi-square): their
//! float32 form runs Marsaglia and Tsang's loop in float on a float ziggurat (one word, a 23-bit
//! uniform; the wedge, the tail and the logarithmic acceptance test stay in double), which
//! halves the Philox words per draw; every backend still gives the same bits.
//! - gamma: Marsaglia and Tsang (2000), with `u^(1/k)` boosting below 1; beta, chi-square
//!   (`2 gamma(df/2)`), Student's t (a normal over a chi-square's root), F (a ratio of
//!   chi-squares) and Dirichlet (normalised gammas) from it; Dirichlet rows whose gammas all
//!   underflow to 0 (every `alpha` far below 1e-2) are NaN.
//! - noncentral chi-square: `chi2(df - 1) + (z + sqrt(nonc))^2` for `df > 1`, else the
//!   Poisson mixture `chi2(df + 2K)`, `K ~ Poisson(nonc / 2)`; noncentral F from it.
//! - Poisson: multiplication of uniforms below a mean of 10, Hörmann's PTRS (1993) above;
//!   binomial: inversion while `n min(p, 1 - p) < 10`, else Hörmann's BTRD (1993: transformed
//!   rejection with decomposition, a few uniforms a draw).
//! - laplace, logistic, gumbel, weibull, pareto (NumPy's Lomax form), power, rayleigh,
//!   triangular, Cauchy (`tan` of a uniform angle), geometric: inversion of the distribution
//!   function; lognormal: `exp` of a normal.
//! - von Mises: Best and Fisher (1979) (a uniform angle for `kappa < 1e-8`, a wrapped normal
//!   above `1e6`); Wald: Michael, Schucany and Haas (1976).
//! - negative binomial: the gamma–Poisson mixture; logarithmic series: Kemp's LK (1981); Zipf:
//!   Devroye's rejection from `floor(u^(-1/(a-1)))` (1986, X.6); hypergeometric: the urn draw by
//!   draw below 10 draws, Stadlober's HRUA ratio-of-uniforms (1989) above.
//! - multinomial: conditional binomials category by category; multivariate normal:
//!   `mean + z (V sqrt(W))^T` from `linalg::eigh` of the covariance (a `k × k` factorisation on
//!   the device library's solver: setup whose size does not grow with the draws; its `k`
//!   eigenvalues come to the host for the check above).
//! - `permutation`, `shuffle`, `choice` without replacement: a stable sort of random 64-bit keys.
//!
//! # The legacy API
//! ```no_run
//! use xp_array::random;
//! use xp_backend_api::DType;
//! # fn main() -> xp_backend_api::Result<()> {
//! random::seed(42u64);
//! let u = random::rand(&[3, 4])?; // float64 in [0, 1)
//! let t = random::standard_t(5.0, &[1000], DType::F32)?; // float32
//! let k = random::hypergeometric(30, 20, 15, &[1000])?; // int64
//! let rs = random::get_random_state(); // a copy of the global generator
//! let z = random::lognormal(0.0, 0.5, &[], DType::F64)?; // size=None: 0-d
//! random::set_random_state(rs); // draws again what came after `k`
//! # let _ = (u, t, k, z);
//! # Ok(())
//! # }
//! ```

use std::sync::{Arc, Mutex};

use xp_backend_api::{DType, DynDevice, Error, Result};
use xp_kernels::plan::PlannedLaunch;
use xp_kernels::random::{self as kr, Bulk, Draw, Rejection};

use crate::exec::{run_launches, target_of, Bindings};
use crate::promote::int_range;
use crate::{current_device, Array};

mod kernels;
use kernels::{Dist, Vector};

/// A seed: a 64-bit integer or any number of 32-bit words (all bits are used).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seed {
    /// Words, least significant first.
    Words(Vec<u32>),
}

impl From<u64> for Seed {
    fn from(s: u64) -> Seed {
        Seed::Words(vec![s as u32, (s >> 32) as u32])
    }
}
impl From<i32> for Seed {
    fn from(s: i32) -> Seed {
        Seed::from(s as i64 as u64)
    }
}
impl From<&[u32]> for Seed {
    fn from(w: &[u32]) -> Seed {
        Seed::Words(w.to_vec())
    }
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn key_of(words: &[u32], salt: u64) -> [u32; 2] {
    let mut h = mix(0x243F_6A88_85A3_08D3 ^ salt ^ (words.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    for &w in words {
        h = mix(h.wrapping_add(0x9E37_79B9_7F4A_7C15) ^ w as u64);
    }
    [h as u32, (h >> 32) as u32]
}

/// NumPy's `Generator`: draws arrays of the distributions below.
#[derive(Debug, Clone)]
pub struct Generator {
    key: [u32; 2],
    stream: u32,
    next_block: u64,
    spawned: u64,
}

/// NumPy's `default_rng(seed)`.
pub fn default_rng(seed: impl Into<Seed>) -> Generator {
    let Seed::Words(w) = seed.into();
    Generator { key: key_of(&w, 0), stream: 0, next_block: 0, spawned: 0 }
}

fn check_float(op: &str, dtype: DType) -> Result<()> {
    match dtype {
        DType::F32 | DType::F64 => Ok(()),
        _ => Err(Error::UnsupportedDType {
            op: op.into(),
            dtypes: vec![dtype],
            detail: "float32 and float64 are supported".into(),
        }),
    }
}

fn require(op: &str, msg: &str, ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::value(op, msg))
    }
}

fn check_param(op: &str, name: &str, v: f64, ok: bool) -> Result<()> {
    if ok && !v.is_nan() {
        Ok(())
    } else {
        Err(Error::value(op, format!("{name} must be valid, got {v}")))
    }
}

impl Generator {
    fn draw(&mut self, blocks: u64) -> Draw {
        let d = Draw { base: self.next_block, stream: self.stream, key: self.key };
        self.next_block = self.next_block.wrapping_add(blocks);
        d
    }

    fn run(&mut self, dev: &Arc<dyn DynDevice>, out: &Array, plan: PlannedLaunch) -> Result<()> {
        run_launches(dev, &[plan], Bindings { output: Some(out), ..Default::default() })
    }

    fn bulk(&mut self, op: &str, kind: Bulk, shape: &[usize], dtype: DType, lo: f64, scale: f64) -> Result<Array> {
        check_float(op, dtype)?;
        let dev = current_device()?;
        let out = Array::empty_on(&dev, shape, dtype)?;
        let n = out.size();
        let f64 = dtype == DType::F64;
        let blocks = n.div_ceil(if f64 { 2 } else { 4 }) as u64;
        let draw = self.draw(blocks);
        if n > 0 {
            let (plan, _) = kr::plan_bulk(kind, f64, n, draw, lo, scale, target_of(&dev));
            self.run(&dev, &out, plan)?;
        }
        Ok(out)
    }

    fn rejection(&mut self, kind: Rejection, shape: &[usize], dtype: DType, a: f64, b: f64) -> Result<Array> {
        let dev = current_device()?;
        let out = Array::empty_on(&dev, shape, dtype)?;
        let n = out.size();
        let draw = self.draw(n as u64);
        if n > 0 {
            let (plan, _) = kr::plan_rejection(kind, dtype == DType::F32, n, draw, a, b, target_of(&dev));
            self.run(&dev, &out, plan)?;
        }
        Ok(out)
    }

    /// Uniform floats in [0, 1).
    pub fn random(&mut self, shape: &[usize], dtype: DType) -> Result<Array> {
        self.bulk("random", Bulk::Uniform, shape, dtype, 0.0, 1.0)
    }

    /// Uniform floats in [low, high).
    pub fn uniform(&mut self, low: f64, high: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        check_param("uniform", "high - low", high - low, (high - low).is_finite())?;
        self.bulk("uniform", Bulk::Uniform, shape, dtype, low, high - low)
    }

    /// Normal floats of mean `loc` and standard deviation `scale` (≥ 0).
    pub fn normal(&mut self, loc: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        check_param("normal", "scale", scale, scale >= 0.0)?;
        self.bulk("normal", Bulk::Normal, shape, dtype, loc, scale)
    }

    /// Standard normal floats.
    pub fn standard_normal(&mut self, shape: &[usize], dtype: DType) -> Result<Array> {
        self.bulk("standard_normal", Bulk::Normal, shape, dtype, 0.0, 1.0)
    }

    /// Exponential floats of mean `scale` (≥ 0).
    pub fn exponential(&mut self, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        check_param("exponential", "scale", scale, scale >= 0.0)?;
        self.bulk("exponential", Bulk::Exponential, shape, dtype, 0.0, scale)
    }

    /// Standard exponential floats.
    pub fn standard_exponential(&mut self, shape: &[usize], dtype: DType) -> Result<Array> {
        self.bulk("standard_exponential", Bulk::Exponential, shape, dtype, 0.0, 1.0)
    }

    /// Integers in `[low, high)` (`[low, high]` with `endpoint`) of an integer `dtype`; bounds
    /// whose values do not all fit `dtype` are a `Value` error, as NumPy's.
    pub fn integers(&mut self, low: i64, high: i64, shape: &[usize], dtype: DType, endpoint: bool) -> Result<Array> {
        if !dtype.is_integer() {
            return Err(Error::UnsupportedDType {
                op: "integers".into(),
                dtypes: vec![dtype],
                detail: "an integer dtype is needed".into(),
            });
        }
        let hi = if endpoint { high as i128 + 1 } else { high as i128 };
        if (low as i128) >= hi {
            return Err(Error::value("integers", format!("low >= high ({low} >= {high})")));
        }
        // NumPy's ValueError: every value of [low, hi) must fit the dtype, else the draws
        // would wrap when converted to it.
        let (min, max) = int_range(dtype).expect("an integer dtype has a range");
        if (low as i128) < min || hi - 1 > max {
            let bound = if (low as i128) < min { "low" } else { "high" };
            let interval = if endpoint { format!("[{low}, {high}]") } else { format!("[{low}, {high})") };
            return Err(Error::value(
                "integers",
                format!("{bound} is out of bounds for {dtype}: the values {interval} must lie in [{min}, {max}]"),
            ));
        }
        let dev = current_device()?;
        let out = Array::empty_on(&dev, shape, DType::I64)?;
        let n = out.size();
        let range = (hi - low as i128) as u128;
        let range = if range >= 1u128 << 64 { 0 } else { range as u64 };
        let draw = self.draw(n.div_ceil(2) as u64);
        if n > 0 {
            let (plan, _) = kr::plan_integers(n, draw, low, range, target_of(&dev));
            self.run(&dev, &out, plan)?;
        }
        if dtype == DType::I64 {
            Ok(out)
        } else {
            out.astype(dtype)
        }
    }

    /// Gamma floats of shape `shape_k` (≥ 0) and `scale` (≥ 0), float64 or float32.
    pub fn gamma(&mut self, shape_k: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        check_float("gamma", dtype)?;
        check_param("gamma", "shape", shape_k, shape_k >= 0.0)?;
        check_param("gamma", "scale", scale, scale >= 0.0)?;
        self.rejection(Rejection::Gamma, shape, dtype, shape_k, scale)
    }

    /// Beta floats of parameters `a` > 0 and `b` > 0.
    pub fn beta(&mut self, a: f64, b: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        check_float("beta", dtype)?;
        check_param("beta", "a", a, a > 0.0)?;
        check_param("beta", "b", b, b > 0.0)?;
        self.rejection(Rejection::Beta, shape, dtype, a, b)
    }

    /// Poisson counts (int64) of mean `lam` (≥ 0).
    pub fn poisson(&mut self, lam: f64, shape: &[usize]) -> Result<Array> {
        check_param("poisson", "lam", lam, (0.0..1e10).contains(&lam))?;
        self.rejection(Rejection::Poisson, shape, DType::I64, lam, 0.0)
    }

    /// Binomial counts (int64) of `n` trials with probability `p`.
    pub fn binomial(&mut self, n: i64, p: f64, shape: &[usize]) -> Result<Array> {
        check_param("binomial", "n", n as f64, n >= 0)?;
        check_param("binomial", "p", p, (0.0..=1.0).contains(&p))?;
        self.rejection(Rejection::Binomial, shape, DType::I64, n as f64, p)
    }

    fn dist(&mut self, dist: Dist, shape: &[usize], dtype: DType, p: [f64; 3]) -> Result<Array> {
        let dev = current_device()?;
        let out = Array::empty_on(&dev, shape, dtype)?;
        let n = out.size();
        let draw = self.draw(n as u64);
        if n > 0 {
            let plan = kernels::plan_dist(dist, dtype, n, draw, p, target_of(&dev));
            self.run(&dev, &out, plan)?;
        }
        Ok(out)
    }

    fn continuous(&mut self, op: &str, dist: Dist, shape: &[usize], dtype: DType, p: [f64; 3]) -> Result<Array> {
        check_float(op, dtype)?;
        self.dist(dist, shape, dtype, p)
    }

    /// Standard gamma floats of shape `shape_k` (≥ 0): [`Generator::gamma`] of scale 1.
    pub fn standard_gamma(&mut self, shape_k: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        check_float("standard_gamma", dtype)?;
        require("standard_gamma", "shape < 0", shape_k >= 0.0)?;
        self.rejection(Rejection::Gamma, shape, dtype, shape_k, 1.0)
    }

    /// Standard Cauchy floats (`tan` of a uniform angle).
    pub fn standard_cauchy(&mut self, shape: &[usize], dtype: DType) -> Result<Array> {
        self.continuous("standard_cauchy", Dist::StandardCauchy, shape, dtype, [0.0; 3])
    }

    /// Student's t floats of `df` > 0 degrees of freedom.
    pub fn standard_t(&mut self, df: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("standard_t", "df <= 0", df > 0.0)?;
        let [d, c, ..] = kr::rejection_constants(Rejection::Gamma, 0.5 * df, 1.0);
        self.continuous("standard_t", Dist::StandardT, shape, dtype, [df, d, c])
    }

    /// Chi-square floats of `df` > 0 degrees of freedom.
    pub fn chisquare(&mut self, df: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("chisquare", "df <= 0", df > 0.0)?;
        let [d, c, ..] = kr::rejection_constants(Rejection::Gamma, 0.5 * df, 1.0);
        self.continuous("chisquare", Dist::Chisquare, shape, dtype, [df, d, c])
    }

    /// Noncentral chi-square floats of `df` > 0 degrees of freedom and noncentrality `nonc` ≥ 0.
    pub fn noncentral_chisquare(&mut self, df: f64, nonc: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("noncentral_chisquare", "df <= 0", df > 0.0)?;
        require("noncentral_chisquare", "nonc < 0", nonc >= 0.0)?;
        self.continuous("noncentral_chisquare", Dist::NoncentralChisquare, shape, dtype, [df, nonc, 0.0])
    }

    /// F (Fisher–Snedecor) floats of `dfnum` > 0 and `dfden` > 0 degrees of freedom.
    pub fn f(&mut self, dfnum: f64, dfden: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("f", "dfnum <= 0", dfnum > 0.0)?;
        require("f", "dfden <= 0", dfden > 0.0)?;
        self.continuous("f", Dist::F, shape, dtype, [dfnum, dfden, 0.0])
    }

    /// Noncentral F floats of `dfnum` > 0, `dfden` > 0 degrees of freedom and noncentrality
    /// `nonc` ≥ 0.
    pub fn noncentral_f(&mut self, dfnum: f64, dfden: f64, nonc: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("noncentral_f", "dfnum <= 0", dfnum > 0.0)?;
        require("noncentral_f", "dfden <= 0", dfden > 0.0)?;
        require("noncentral_f", "nonc < 0", nonc >= 0.0)?;
        self.continuous("noncentral_f", Dist::NoncentralF, shape, dtype, [dfnum, dfden, nonc])
    }

    /// Log-normal floats: `exp` of a normal of mean `mean` and standard deviation `sigma` ≥ 0.
    pub fn lognormal(&mut self, mean: f64, sigma: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("lognormal", "mean is not finite", mean.is_finite())?;
        require("lognormal", "sigma < 0", sigma >= 0.0)?;
        self.continuous("lognormal", Dist::Lognormal, shape, dtype, [mean, sigma, 0.0])
    }

    /// Laplace (double exponential) floats of location `loc` and scale `scale` ≥ 0.
    pub fn laplace(&mut self, loc: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("laplace", "scale < 0", scale >= 0.0)?;
        self.continuous("laplace", Dist::Laplace, shape, dtype, [loc, scale, 0.0])
    }

    /// Logistic floats of location `loc` and scale `scale` ≥ 0.
    pub fn logistic(&mut self, loc: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("logistic", "scale < 0", scale >= 0.0)?;
        self.continuous("logistic", Dist::Logistic, shape, dtype, [loc, scale, 0.0])
    }

    /// Gumbel (extreme value type I) floats of location `loc` and scale `scale` ≥ 0.
    pub fn gumbel(&mut self, loc: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("gumbel", "scale < 0", scale >= 0.0)?;
        self.continuous("gumbel", Dist::Gumbel, shape, dtype, [loc, scale, 0.0])
    }

    /// Weibull floats of shape `a` ≥ 0 (scale 1): `E^(1/a)`, `E` standard exponential.
    pub fn weibull(&mut self, a: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("weibull", "a < 0", a >= 0.0)?;
        self.continuous("weibull", Dist::Weibull, shape, dtype, [a, 0.0, 0.0])
    }

    /// Pareto II (Lomax) floats of shape `a` > 0, as NumPy's: `exp(E / a) - 1`.
    pub fn pareto(&mut self, a: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("pareto", "a <= 0", a > 0.0)?;
        self.continuous("pareto", Dist::Pareto, shape, dtype, [a, 0.0, 0.0])
    }

    /// Power-function floats in [0, 1] of exponent `a` > 0 (density `a x^(a-1)`).
    pub fn power(&mut self, a: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("power", "a <= 0", a > 0.0)?;
        self.continuous("power", Dist::Power, shape, dtype, [a, 0.0, 0.0])
    }

    /// Rayleigh floats of scale `scale` ≥ 0.
    pub fn rayleigh(&mut self, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("rayleigh", "scale < 0", scale >= 0.0)?;
        self.continuous("rayleigh", Dist::Rayleigh, shape, dtype, [scale, 0.0, 0.0])
    }

    /// Von Mises floats in [-π, π) of mode `mu` and concentration `kappa` ≥ 0.
    pub fn vonmises(&mut self, mu: f64, kappa: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("vonmises", "mu is not finite", mu.is_finite())?;
        require("vonmises", "kappa < 0", kappa >= 0.0)?;
        self.continuous("vonmises", Dist::Vonmises, shape, dtype, [mu, kappa, 0.0])
    }

    /// Wald (inverse Gaussian) floats of mean `mean` > 0 and scale `scale` > 0.
    pub fn wald(&mut self, mean: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("wald", "mean <= 0", mean > 0.0)?;
        require("wald", "scale <= 0", scale > 0.0)?;
        self.continuous("wald", Dist::Wald, shape, dtype, [mean, scale, 0.0])
    }

    /// Triangular floats on `[left, right]` with mode `mode` (`left <= mode <= right`,
    /// `left < right`).
    pub fn triangular(&mut self, left: f64, mode: f64, right: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        require("triangular", "left > mode", left <= mode)?;
        require("triangular", "mode > right", mode <= right)?;
        require("triangular", "left == right", left < right)?;
        require("triangular", "left and right must be finite", left.is_finite() && right.is_finite())?;
        self.continuous("triangular", Dist::Triangular, shape, dtype, [left, mode, right])
    }

    /// Geometric counts (int64, ≥ 1): trials up to the first success of probability `p` in
    /// (0, 1].
    pub fn geometric(&mut self, p: f64, shape: &[usize]) -> Result<Array> {
        require("geometric", "p <= 0, p > 1 or p is NaN", p > 0.0 && p <= 1.0)?;
        self.dist(Dist::Geometric, shape, DType::I64, [p, (-p).ln_1p(), 0.0])
    }

    /// Hypergeometric counts (int64): good items among `nsample` drawn without replacement
    /// from `ngood` good and `nbad` bad ones.
    pub fn hypergeometric(&mut self, ngood: i64, nbad: i64, nsample: i64, shape: &[usize]) -> Result<Array> {
        require("hypergeometric", "ngood < 0", ngood >= 0)?;
        require("hypergeometric", "nbad < 0", nbad >= 0)?;
        require("hypergeometric", "nsample < 0", nsample >= 0)?;
        let total = ngood.checked_add(nbad).filter(|&t| t < 1 << 53);
        require("hypergeometric", "ngood + nbad must be below 2**53", total.is_some())?;
        require("hypergeometric", "ngood + nbad < nsample", total.is_some_and(|t| nsample <= t))?;
        self.dist(Dist::Hypergeometric, shape, DType::I64, [ngood as f64, nbad as f64, nsample as f64])
    }

    /// Logarithmic series counts (int64, ≥ 1) of parameter `p` in [0, 1).
    pub fn logseries(&mut self, p: f64, shape: &[usize]) -> Result<Array> {
        require("logseries", "p < 0, p >= 1 or p is NaN", (0.0..1.0).contains(&p))?;
        self.dist(Dist::Logseries, shape, DType::I64, [p, (-p).ln_1p(), 0.0])
    }

    /// Negative binomial counts (int64): failures before the `n`-th success (`n` > 0, real) of
    /// probability `p` in (0, 1].
    pub fn negative_binomial(&mut self, n: f64, p: f64, shape: &[usize]) -> Result<Array> {
        require("negative_binomial", "n <= 0", n > 0.0 && n.is_finite())?;
        require("negative_binomial", "p <= 0, p > 1 or p is NaN", p > 0.0 && p <= 1.0)?;
        self.dist(Dist::NegativeBinomial, shape, DType::I64, [n, p, 0.0])
    }

    /// Zipf counts (int64, ≥ 1) of exponent `a` > 1.
    pub fn zipf(&mut self, a: f64, shape: &[usize]) -> Result<Array> {
        require("zipf", "a <= 1 or a is NaN", a > 1.0)?;
        self.dist(Dist::Zipf, shape, DType::I64, [a, 0.0, 0.0])
    }

    fn vector(&mut self, kind: Vector, shape: &[usize], params: &[f64], trials: i64, dtype: DType) -> Result<Array> {
        let dev = current_device()?;
        let k = params.len();
        let mut full = shape.to_vec();
        full.push(k);
        let out = Array::empty_on(&dev, &full, dtype)?;
        let n: usize = shape.iter().product();
        let draw = self.draw(n as u64);
        if n > 0 && k > 0 {
            let p = Array::from_slice_on(&dev, params, &[k])?;
            let plan = kernels::plan_vector(kind, n, k, trials, draw, target_of(&dev));
            run_launches(&dev, &[plan], Bindings { output: Some(&out), operands: &[&p], ..Default::default() })?;
        }
        Ok(out)
    }

    /// Multinomial counts (int64) of `n` trials over the categories of probabilities `pvals`:
    /// shape `shape + [pvals.len()]`. The last category takes the probability left by the
    /// others (as NumPy, whose `pvals[-1]` is not read).
    pub fn multinomial(&mut self, n: i64, pvals: &[f64], shape: &[usize]) -> Result<Array> {
        require("multinomial", "n < 0", n >= 0)?;
        require("multinomial", "pvals must have at least one entry", !pvals.is_empty())?;
        require(
            "multinomial",
            "pvals < 0, pvals > 1 or pvals contains NaNs",
            pvals.iter().all(|p| (0.0..=1.0).contains(p)),
        )?;
        let head: f64 = pvals[..pvals.len() - 1].iter().sum();
        require("multinomial", "sum(pvals[:-1]) > 1.0", head <= 1.0 + 1e-12)?;
        self.vector(Vector::Multinomial, shape, pvals, n, DType::I64)
    }

    /// Dirichlet floats (float64) of concentrations `alpha` (each > 0): shape
    /// `shape + [alpha.len()]`, every row summing to 1.
    pub fn dirichlet(&mut self, alpha: &[f64], shape: &[usize]) -> Result<Array> {
        require("dirichlet", "alpha must have at least one entry", !alpha.is_empty())?;
        require("dirichlet", "alpha <= 0", alpha.iter().all(|&a| a > 0.0 && a.is_finite()))?;
        self.vector(Vector::Dirichlet, shape, alpha, 0, DType::F64)
    }

    /// Multivariate normal floats of mean `mean` (1-d, length `k`) and covariance `cov`
    /// (`k × k`, symmetric positive semidefinite): shape `shape + [k]`, `mean + z A^T` for
    /// standard normals `z` and `A = V sqrt(W)` from the eigendecomposition `cov = V W V^T`
    /// (`linalg::eigh`; a k × k factorisation, small setup beside the draws). A covariance that
    /// is not symmetric, or has an eigenvalue below `-1e-8` times the largest, is a `Value`
    /// error (NumPy's `check_valid='raise'`).
    pub fn multivariate_normal(&mut self, mean: &Array, cov: &Array, shape: &[usize], dtype: DType) -> Result<Array> {
        const OP: &str = "multivariate_normal";
        check_float(OP, dtype)?;
        require(OP, "mean must be 1 dimensional", mean.ndim() == 1)?;
        require(OP, "cov must be 2 dimensional and square", cov.ndim() == 2 && cov.shape()[0] == cov.shape()[1])?;
        let k = mean.size();
        require(OP, "mean and cov must have same length", cov.shape()[0] == k)?;
        let mean = mean.astype(DType::F64)?;
        let cov = cov.astype(DType::F64)?;
        let mut full = shape.to_vec();
        full.push(k);
        if k == 0 {
            return Array::empty_on(&current_device()?, &full, dtype);
        }
        let scale = cov.abs()?.max(None, false)?.item::<f64>()?;
        let asym = cov.sub(&cov.t())?.abs()?.max(None, false)?.item::<f64>()?;
        require(OP, "cov is not symmetric", asym <= 1e-8 * scale.max(1e-300) && scale.is_finite())?;
        let (w, v) = crate::linalg::eigh(&cov, "L")?;
        let wv = w.to_vec::<f64>()?;
        let top = wv.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        require(OP, "covariance is not symmetric positive-semidefinite", wv.iter().all(|&x| x >= -1e-8 * top))?;
        let a = v.mul(&w.maximum(0.0)?.sqrt()?)?;
        let n: usize = shape.iter().product();
        let z = self.standard_normal(&[n, k], DType::F64)?;
        let x = crate::linalg::matmul(&z, &a.t())?.add(&mean)?;
        let sh: Vec<isize> = full.iter().map(|&d| d as isize).collect();
        x.reshape(&sh)?.astype(dtype)
    }

    /// NumPy's `bytes(length)`: `length` random bytes.
    pub fn bytes(&mut self, length: usize) -> Result<Vec<u8>> {
        self.integers(0, 255, &[length], DType::U8, true)?.to_vec::<u8>()
    }

    /// Reseed in place (`RandomState.seed`): the generator [`default_rng`] makes of `seed`.
    pub fn seed(&mut self, seed: impl Into<Seed>) {
        *self = default_rng(seed);
    }

    /// A random permutation of `0..n` (int64): a stable sort of random 64-bit keys.
    pub fn permutation(&mut self, n: usize) -> Result<Array> {
        let keys = self.integers(i64::MIN, i64::MAX, &[n], DType::I64, true)?;
        keys.argsort(Some(-1))
    }

    /// The rows of `x` (along axis 0) in a random order (a copy).
    pub fn permuted_rows(&mut self, x: &Array) -> Result<Array> {
        if x.ndim() == 0 {
            return Err(Error::value("permutation", "x must be at least 1-d"));
        }
        let p = self.permutation(x.shape()[0])?;
        x.take(&p, Some(0))
    }

    /// NumPy's `shuffle(x)`: `x`'s rows (along axis 0) in a random order, in place.
    pub fn shuffle(&mut self, x: &Array) -> Result<()> {
        let y = self.permuted_rows(x)?;
        y.copy_into(x)
    }

    /// NumPy's `choice(a, size, replace, p)` from the elements of the 1-d `a`; `p`, when
    /// given, the probabilities of each (1-d, of `a`'s length, summing to 1).
    pub fn choice(&mut self, a: &Array, shape: &[usize], replace: bool, p: Option<&Array>) -> Result<Array> {
        if a.ndim() != 1 {
            return Err(Error::value("choice", format!("a must be 1-d, not of shape {:?}", a.shape())));
        }
        let pop = a.size();
        let n: usize = shape.iter().product();
        let sh: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
        if pop == 0 && n > 0 {
            return Err(Error::value("choice", "a cannot be empty unless no samples are taken"));
        }
        if let Some(p) = p {
            if p.shape() != a.shape() {
                return Err(Error::ShapeMismatch {
                    op: "choice".into(),
                    lhs: a.shape().to_vec(),
                    rhs: p.shape().to_vec(),
                    reason: "p must be 1-d and of a's length".into(),
                });
            }
            let p64 = p.astype(DType::F64)?;
            let neg = p64.lt(0.0)?.any(None, false)?.item::<bool>()?;
            let tot = p64.sum(None, false)?.item::<f64>()?;
            if neg || (tot - 1.0).abs() > 1e-8 {
                return Err(Error::value("choice", "probabilities are not non-negative or do not sum to 1"));
            }
            if !replace {
                return Err(Error::Unsupported("choice: p without replacement".into()));
            }
            let cdf = p64.cumsum(None)?;
            let u = self.random(&[n], DType::F64)?.mul(tot)?;
            let idx = crate::sort::searchsorted(&cdf, &u, crate::sort::Side::Right, None)?.minimum(pop as i64 - 1)?;
            return a.take(&idx, None)?.reshape(&sh);
        }
        if replace {
            let idx = self.integers(0, pop as i64, &[n], DType::I64, false)?;
            return a.take(&idx, None)?.reshape(&sh);
        }
        if n > pop {
            return Err(Error::value(
                "choice",
                format!("cannot take a larger sample ({n}) than the population ({pop}) when replace=False"),
            ));
        }
        let perm = self.permutation(pop)?;
        let first = perm.slice(&[crate::SliceArg::range(0, n as isize, 1)])?;
        a.take(&first, None)?.reshape(&sh)
    }

    /// NumPy's `spawn(n)`: `n` independent generators (keys derived from this one's and a
    /// spawn count).
    pub fn spawn(&mut self, n: usize) -> Vec<Generator> {
        (0..n)
            .map(|_| {
                self.spawned += 1;
                let words = [self.key[0], self.key[1], self.stream, self.spawned as u32, (self.spawned >> 32) as u32];
                Generator { key: key_of(&words, 1), stream: 0, next_block: 0, spawned: 0 }
            })
            .collect()
    }

    /// NumPy's `jumped(jumps)`: a generator whose stream is `jumps` further on (2^96 blocks
    /// apart: the stream is the counter's last word).
    pub fn jumped(&self, jumps: u32) -> Generator {
        Generator { key: self.key, stream: self.stream.wrapping_add(jumps), next_block: self.next_block, spawned: 0 }
    }

    /// The raw Philox blocks `base..base + blocks` of this generator's key and stream, with
    /// counter word `j` (`4 * blocks` uint32; for tests of the generator itself).
    pub fn philox_blocks(&self, base: u64, blocks: usize, j: u32) -> Result<Array> {
        let dev = current_device()?;
        let out = Array::empty_on(&dev, &[4 * blocks], DType::U32)?;
        if blocks > 0 {
            let plan = kr::plan_philox(blocks, base, j, self.stream, self.key, target_of(&dev));
            run_launches(&dev, &[plan], Bindings { output: Some(&out), ..Default::default() })?;
        }
        Ok(out)
    }

    /// A generator with the raw Philox key `key` (for known-answer tests).
    pub fn from_key(key: [u32; 2]) -> Generator {
        Generator { key, stream: 0, next_block: 0, spawned: 0 }
    }
}

/// Every kernel of this module's own distributions (`dist.h`), in each dtype it is launched
/// with: for the cross-vendor compile check (the engine's are in `xp_kernels::random`).
pub fn builtin_kernels() -> Vec<xp_kernels::render::Rendered> {
    kernels::all()
}

static GLOBAL: Mutex<Option<Generator>> = Mutex::new(None);

fn with_global<T>(f: impl FnOnce(&mut Generator) -> Result<T>) -> Result<T> {
    let mut g = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
    let gen = g.get_or_insert_with(|| {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        default_rng(Seed::Words(vec![t as u32, (t >> 32) as u32, (t >> 64) as u32, std::process::id()]))
    });
    f(gen)
}

/// NumPy's legacy `seed(s)`: reseed the global generator.
pub fn seed(s: impl Into<Seed>) {
    let mut g = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
    *g = Some(default_rng(s));
}

/// Legacy `random(size)`: float64 in [0, 1) (`dtype` as CuPy's).
pub fn random(shape: &[usize], dtype: DType) -> Result<Array> {
    with_global(|g| g.random(shape, dtype))
}

/// Legacy `rand(*shape)`: float64 in [0, 1).
pub fn rand(shape: &[usize]) -> Result<Array> {
    random(shape, DType::F64)
}

/// Legacy `randn(*shape)` (`dtype` as CuPy's): standard normal.
pub fn randn(shape: &[usize], dtype: DType) -> Result<Array> {
    with_global(|g| g.standard_normal(shape, dtype))
}

/// Legacy `uniform(low, high, size)`.
pub fn uniform(low: f64, high: f64, shape: &[usize], dtype: DType) -> Result<Array> {
    with_global(|g| g.uniform(low, high, shape, dtype))
}

/// Legacy `normal(loc, scale, size)`.
pub fn normal(loc: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
    with_global(|g| g.normal(loc, scale, shape, dtype))
}

/// Legacy `randint(low, high, size, dtype)`: integers in `[low, high)`.
pub fn randint(low: i64, high: i64, shape: &[usize], dtype: DType) -> Result<Array> {
    with_global(|g| g.integers(low, high, shape, dtype, false))
}

/// Legacy `random_sample(size)`: float64 (or `dtype`) in [0, 1).
pub fn random_sample(shape: &[usize], dtype: DType) -> Result<Array> {
    random(shape, dtype)
}

/// Legacy `ranf(size)`: [`random_sample`].
pub fn ranf(shape: &[usize], dtype: DType) -> Result<Array> {
    random(shape, dtype)
}

/// Legacy `sample(size)`: [`random_sample`].
pub fn sample(shape: &[usize], dtype: DType) -> Result<Array> {
    random(shape, dtype)
}

/// Legacy `random_integers(low, high, size)`: int64 in `[low, high]` (`[1, low]` when `high`
/// is `None`).
pub fn random_integers(low: i64, high: Option<i64>, shape: &[usize]) -> Result<Array> {
    let (lo, hi) = match high {
        Some(h) => (low, h),
        None => (1, low),
    };
    with_global(|g| g.integers(lo, hi, shape, DType::I64, true))
}

/// Legacy `bytes(length)`.
pub fn bytes(length: usize) -> Result<Vec<u8>> {
    with_global(|g| g.bytes(length))
}

/// Legacy `permutation(n)`: a random permutation of `0..n` (int64).
pub fn permutation(n: usize) -> Result<Array> {
    with_global(|g| g.permutation(n))
}

/// Legacy `shuffle(x)`: `x`'s rows in a random order, in place.
pub fn shuffle(x: &Array) -> Result<()> {
    with_global(|g| g.shuffle(x))
}

/// Legacy `choice(a, size, replace, p)` ([`Generator::choice`]).
pub fn choice(a: &Array, shape: &[usize], replace: bool, p: Option<&Array>) -> Result<Array> {
    with_global(|g| g.choice(a, shape, replace, p))
}

/// CuPy's `RandomState`: the legacy API's generator is this module's [`Generator`] (its
/// methods are the legacy functions' names; [`Generator::seed`] reseeds it).
pub type RandomState = Generator;

/// CuPy's `get_random_state()`: a copy of the global generator's state (draws from the copy do
/// not advance the global one; [`set_random_state`] puts a generator back).
pub fn get_random_state() -> RandomState {
    with_global(|g| Ok(g.clone())).expect("the global generator is always available")
}

/// CuPy's `set_random_state(rs)`: the global generator becomes `rs`.
pub fn set_random_state(rs: RandomState) {
    let mut g = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
    *g = Some(rs);
}

/// CuPy's `reset_states()`: forget the global generator; the next legacy draw seeds a new one
/// from the clock and the process id.
pub fn reset_states() {
    let mut g = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
    *g = None;
}

macro_rules! legacy {
    ($($(#[$doc:meta])* $name:ident($($p:ident: $t:ty),*) -> $($dt:ident)?;)*) => {$(
        $(#[$doc])*
        pub fn $name($($p: $t,)* shape: &[usize] $(, $dt: DType)?) -> Result<Array> {
            with_global(|g| g.$name($($p,)* shape $(, $dt)?))
        }
    )*};
}

legacy! {
    /// Legacy `standard_normal(size, dtype)`.
    standard_normal() -> dtype;
    /// Legacy `exponential(scale, size, dtype)`.
    exponential(scale: f64) -> dtype;
    /// Legacy `standard_exponential(size, dtype)`.
    standard_exponential() -> dtype;
    /// Legacy `gamma(shape, scale, size, dtype)`.
    gamma(shape_k: f64, scale: f64) -> dtype;
    /// Legacy `standard_gamma(shape, size, dtype)`.
    standard_gamma(shape_k: f64) -> dtype;
    /// Legacy `beta(a, b, size, dtype)`.
    beta(a: f64, b: f64) -> dtype;
    /// Legacy `standard_cauchy(size, dtype)`.
    standard_cauchy() -> dtype;
    /// Legacy `standard_t(df, size, dtype)`.
    standard_t(df: f64) -> dtype;
    /// Legacy `chisquare(df, size, dtype)`.
    chisquare(df: f64) -> dtype;
    /// Legacy `noncentral_chisquare(df, nonc, size, dtype)`.
    noncentral_chisquare(df: f64, nonc: f64) -> dtype;
    /// Legacy `f(dfnum, dfden, size, dtype)`.
    f(dfnum: f64, dfden: f64) -> dtype;
    /// Legacy `noncentral_f(dfnum, dfden, nonc, size, dtype)`.
    noncentral_f(dfnum: f64, dfden: f64, nonc: f64) -> dtype;
    /// Legacy `lognormal(mean, sigma, size, dtype)`.
    lognormal(mean: f64, sigma: f64) -> dtype;
    /// Legacy `laplace(loc, scale, size, dtype)`.
    laplace(loc: f64, scale: f64) -> dtype;
    /// Legacy `logistic(loc, scale, size, dtype)`.
    logistic(loc: f64, scale: f64) -> dtype;
    /// Legacy `gumbel(loc, scale, size, dtype)`.
    gumbel(loc: f64, scale: f64) -> dtype;
    /// Legacy `weibull(a, size, dtype)`.
    weibull(a: f64) -> dtype;
    /// Legacy `pareto(a, size, dtype)`.
    pareto(a: f64) -> dtype;
    /// Legacy `power(a, size, dtype)`.
    power(a: f64) -> dtype;
    /// Legacy `rayleigh(scale, size, dtype)`.
    rayleigh(scale: f64) -> dtype;
    /// Legacy `vonmises(mu, kappa, size, dtype)`.
    vonmises(mu: f64, kappa: f64) -> dtype;
    /// Legacy `wald(mean, scale, size, dtype)`.
    wald(mean: f64, scale: f64) -> dtype;
    /// Legacy `triangular(left, mode, right, size, dtype)`.
    triangular(left: f64, mode: f64, right: f64) -> dtype;
    /// Legacy `poisson(lam, size)` (int64).
    poisson(lam: f64) -> ;
    /// Legacy `binomial(n, p, size)` (int64).
    binomial(n: i64, p: f64) -> ;
    /// Legacy `geometric(p, size)` (int64).
    geometric(p: f64) -> ;
    /// Legacy `hypergeometric(ngood, nbad, nsample, size)` (int64).
    hypergeometric(ngood: i64, nbad: i64, nsample: i64) -> ;
    /// Legacy `logseries(p, size)` (int64).
    logseries(p: f64) -> ;
    /// Legacy `negative_binomial(n, p, size)` (int64).
    negative_binomial(n: f64, p: f64) -> ;
    /// Legacy `zipf(a, size)` (int64).
    zipf(a: f64) -> ;
}

/// Legacy `multinomial(n, pvals, size)` (int64, shape `size + [len(pvals)]`).
pub fn multinomial(n: i64, pvals: &[f64], shape: &[usize]) -> Result<Array> {
    with_global(|g| g.multinomial(n, pvals, shape))
}

/// Legacy `dirichlet(alpha, size)` (float64, shape `size + [len(alpha)]`).
pub fn dirichlet(alpha: &[f64], shape: &[usize]) -> Result<Array> {
    with_global(|g| g.dirichlet(alpha, shape))
}

/// Legacy `multivariate_normal(mean, cov, size, dtype)` (shape `size + [len(mean)]`).
pub fn multivariate_normal(mean: &Array, cov: &Array, shape: &[usize], dtype: DType) -> Result<Array> {
    with_global(|g| g.multivariate_normal(mean, cov, shape, dtype))
}
