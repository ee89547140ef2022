//! `xp::random`: NumPy's `Generator` on a counter-based Philox4x32-10, identical on every
//! device, and the legacy functions (`seed`, `random`, `rand`, `randn`, `uniform`, `normal`,
//! `randint`) on a global generator.
//!
//! `default_rng(seed)` takes a `u64` or a slice of 32-bit words, every bit of which goes into
//! the 64-bit Philox key. Each call consumes counter blocks, so the same seed and the same
//! sequence of calls give the same bits on the CPU, CUDA and HIP, on any GPU model (see
//! `xp_kernels::random`). The values are not NumPy's bits (CuPy's are not either); the
//! distributions are. Arrays are made on the current device. Parameters are scalars (NumPy
//! also broadcasts arrays of parameters). `dtype` is float32 or float64 for the continuous
//! distributions, as CuPy's `dtype` argument.

use std::sync::{Arc, Mutex};

use xp_backend_api::{DType, DynDevice, Error, Result};
use xp_kernels::plan::PlannedLaunch;
use xp_kernels::random::{self as kr, Bulk, Draw, Rejection};

use crate::exec::{run_launches, target_of, Bindings};
use crate::promote::int_range;
use crate::{current_device, Array};

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
            let (plan, _) = kr::plan_rejection(kind, n, draw, a, b, target_of(&dev));
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
        self.rejection(Rejection::Gamma, shape, DType::F64, shape_k, scale)?.astype(dtype)
    }

    /// Beta floats of parameters `a` > 0 and `b` > 0.
    pub fn beta(&mut self, a: f64, b: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        check_float("beta", dtype)?;
        check_param("beta", "a", a, a > 0.0)?;
        check_param("beta", "b", b, b > 0.0)?;
        self.rejection(Rejection::Beta, shape, DType::F64, a, b)?.astype(dtype)
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
