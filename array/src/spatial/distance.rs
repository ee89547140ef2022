//! SciPy's `scipy.spatial.distance`: distances between the rows of two point sets ([`cdist`]),
//! between the rows of one set ([`pdist`], condensed), the conversion between the condensed
//! and square forms ([`squareform`]) and the single-pair functions ([`euclidean`], …).
//!
//! # Contract
//! - Points are the rows of 2-d arrays `(m, d)`; the answer is float64 whatever the points'
//!   dtype (SciPy converts float32 and integer points to float64 and works in float64). The
//!   boolean metrics ([`Metric::is_boolean`]: `jaccard`, `dice`, …) read their points as bool
//!   (nonzero is true); `hamming` counts the coordinates that differ, of bool or float points.
//!   Complex points are a `Value` error, `Unsupported dtype complex128`, as SciPy's.
//! - A metric is a [`Metric`], parsed from SciPy's names and aliases (`"euclidean"`, `"eu"`,
//!   `"cityblock"`, `"cb"`, …); an unknown name is a `Value` error. Its keyword arguments are a
//!   [`MetricArgs`]: `p` (minkowski, default 2), `V` (seuclidean: the variances, one per
//!   coordinate; default the sample variance of the points, ddof 1) and `VI` (mahalanobis: the
//!   inverse covariance `(d, d)`; default the inverse of the points' sample covariance). An
//!   argument the metric does not take is a `DType` error (SciPy's `TypeError`); a `V` that is
//!   not 1-d of length `d`, a `VI` that is not `(d, d)`, points that are not 2-d or sets of
//!   different `d` are `Value` errors with SciPy's messages. (SciPy reads a wrongly shaped `VI`
//!   without checking it; here it is an error.) Weights (`w`) are not taken. The metrics are
//!   SciPy 1.17's: `kulczynski1` and `sokalmichener`, which SciPy removed, are unknown names.
//! - Special values are SciPy's: a zero row gives NaN for `cosine` and `correlation`;
//!   `canberra` drops the coordinates where both points are 0; `dice` and `sokalsneath` of two
//!   all-false points are NaN, `jaccard` 0, `yule` 0 when `ntf·nft = 0`; `jensenshannon` of a
//!   row with a negative entry or a zero sum is inf; `minkowski` takes any `p` (`p = inf` is
//!   `chebyshev`; `p = 1`, `2` are `cityblock`, `euclidean`).
//!
//! # How it is computed
//! Every distance is one broadcast map over the pairs' coordinates reduced over the last axis:
//! with `u = XA[:, None, :]` and `v = XB[None, :, :]` (views, no copies), `euclidean` is
//! `sqrt(sum((u - v)², axis=-1))`, `cityblock` `sum(|u - v|)`, `chebyshev` `max(|u - v|)`, the
//! counting metrics sums of comparisons cast to float64, `mahalanobis` the map
//! `(u_k - v_k) VI_kl (u_l - v_l)` over `(m, n, d, d)` reduced over its last two axes. The
//! elementwise ops of the map are lazy ([`crate::lazy`]), so the reduction's kernel computes
//! the map as it reads it: the `m·n·d` values are never stored, each output element is a direct
//! sum over its `d` coordinates in float64 (no `|a|² + |b|² - 2ab` product trick, whose
//! cancellation would lose the small distances), and one reduction launch covers the whole
//! matrix (the reduction engine's plan for `m·n` outputs of `d` terms each, reading `XA` and
//! `XB` through their broadcast strides, so each point is read from memory or cache, never
//! copied `n` times).
//! Per-row quantities (norms for `cosine`, centred rows for `correlation`, normalised rows for
//! `jensenshannon`, true counts for the boolean metrics) are computed once per point set, and
//! the final combination (`sqrt`, `1 - dot / (|u| |v|)`, the boolean formulas) is one fused
//! elementwise kernel over the `(m, n)` answer.
//!
//! Where the map cannot be fused — lazy fusion off (`XP_LAZY=0`), or the CPU with a map
//! holding a transcendental function (`minkowski`'s `pow`, `jensenshannon`'s logarithms),
//! which the CPU computes once and then reduces — the rows of `XA` are taken in blocks whose
//! map holds at most 2²² values, so the memory stays bounded.
//!
//! On the CPU device the metrics with a per-coordinate sum or maximum (`euclidean`,
//! `sqeuclidean`, `cityblock`, `chebyshev`, `minkowski`, `seuclidean`, `cosine`,
//! `correlation`, `hamming` of float points, `canberra`, `braycurtis`) run as a native blocked
//! host loop instead (`spatial::host`: register tiles of 4 × 8 pairs, each pair's sum over its
//! coordinates in order, as SciPy's loop; the upper triangle only for [`pdist`]; the host
//! threads over row blocks). `ndimage::with_device_kernels` runs the kernels instead.
//!
//! [`pdist`] computes only the pairs `i < j` up to a small margin: the rows are taken in
//! blocks of about `m/8` (at least 256); block `[r0, r1)` is measured against the points
//! `r0 + 1..m`, and its pairs with `j > i` (a boolean mask, kept in row-major order, which is
//! the condensed order) are concatenated. From 2048 points on at most an eighth more pairs
//! than needed are computed (smaller sets take fewer, larger blocks, up to the whole square
//! below 256 points, where launches cost more than pairs); each block is one fused reduction.

use std::str::FromStr;
use std::sync::Arc;

use xp_backend_api::{DType, DTypeKind, DynDevice, Error, Result};

use crate::promote::Scalar;
use crate::ufunc::{call, where_, Operand};
use crate::{Array, SliceArg};

/// A distance metric of [`cdist`] and [`pdist`], by SciPy's name.
///
/// `FromStr` takes SciPy's names and aliases (`"euclidean"`, `"euclid"`, `"eu"`, `"e"`,
/// `"sqeuclidean"`, `"cityblock"`, `"cb"`, `"minkowski"`, `"pnorm"`, …); an unknown name is a
/// `Value` error, `Unknown Distance Metric: NAME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// `sum|u - v| / sum|u + v|`.
    Braycurtis,
    /// `sum |u - v| / (|u| + |v|)`, coordinates where both are 0 left out.
    Canberra,
    /// `max |u - v|`.
    Chebyshev,
    /// `sum |u - v|` (Manhattan).
    Cityblock,
    /// The cosine distance of the centred points, `1 - (u - ū)·(v - v̄) / (|u - ū| |v - v̄|)`.
    Correlation,
    /// `1 - u·v / (|u| |v|)`, the cosine clamped to [-1, 1].
    Cosine,
    /// Boolean: `(ntf + nft) / (2 ntt + ntf + nft)`.
    Dice,
    /// `sqrt(sum (u - v)²)`.
    Euclidean,
    /// The fraction of coordinates that differ.
    Hamming,
    /// Boolean: `(ntf + nft) / (ntt + ntf + nft)`, 0 when both points are all false.
    Jaccard,
    /// `sqrt(JS / 2)` with `JS = KL(p ‖ m) + KL(q ‖ m)`, `p`, `q` the rows normalised to sum 1,
    /// `m = (p + q) / 2` (natural logarithms).
    JensenShannon,
    /// `sqrt((u - v) VI (u - v)ᵀ)` (argument `VI`).
    Mahalanobis,
    /// `(sum |u - v|^p)^(1/p)` (argument `p`, default 2).
    Minkowski,
    /// Boolean: `R / (ntt + nff + R)` with `R = 2 (ntf + nft)`.
    RogersTanimoto,
    /// Boolean: `(n - ntt) / n`.
    RussellRao,
    /// `sqrt(sum (u - v)² / V)` (argument `V`, the variances).
    SEuclidean,
    /// Boolean: `R / (ntt + R)` with `R = 2 (ntf + nft)`.
    SokalSneath,
    /// `sum (u - v)²`.
    SqEuclidean,
    /// Boolean: `2 ntf nft / (ntt nff + ntf nft)`, 0 when `ntf nft = 0`.
    Yule,
}

impl Metric {
    /// Every metric, in SciPy's (alphabetical) order.
    pub const ALL: [Metric; 19] = [
        Metric::Braycurtis,
        Metric::Canberra,
        Metric::Chebyshev,
        Metric::Cityblock,
        Metric::Correlation,
        Metric::Cosine,
        Metric::Dice,
        Metric::Euclidean,
        Metric::Hamming,
        Metric::Jaccard,
        Metric::JensenShannon,
        Metric::Mahalanobis,
        Metric::Minkowski,
        Metric::RogersTanimoto,
        Metric::RussellRao,
        Metric::SEuclidean,
        Metric::SokalSneath,
        Metric::SqEuclidean,
        Metric::Yule,
    ];

    /// SciPy's name of the metric.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Braycurtis => "braycurtis",
            Metric::Canberra => "canberra",
            Metric::Chebyshev => "chebyshev",
            Metric::Cityblock => "cityblock",
            Metric::Correlation => "correlation",
            Metric::Cosine => "cosine",
            Metric::Dice => "dice",
            Metric::Euclidean => "euclidean",
            Metric::Hamming => "hamming",
            Metric::Jaccard => "jaccard",
            Metric::JensenShannon => "jensenshannon",
            Metric::Mahalanobis => "mahalanobis",
            Metric::Minkowski => "minkowski",
            Metric::RogersTanimoto => "rogerstanimoto",
            Metric::RussellRao => "russellrao",
            Metric::SEuclidean => "seuclidean",
            Metric::SokalSneath => "sokalsneath",
            Metric::SqEuclidean => "sqeuclidean",
            Metric::Yule => "yule",
        }
    }

    /// SciPy's other names of the metric.
    fn aliases(self) -> &'static [&'static str] {
        match self {
            Metric::Chebyshev => &["ch", "cheb", "chebychev", "cheby"],
            Metric::Cityblock => &["cblock", "c", "cb"],
            Metric::Correlation => &["co"],
            Metric::Cosine => &["cos"],
            Metric::Euclidean => &["eu", "e", "euclid"],
            Metric::Hamming => &["hamm", "h", "matching", "ha"],
            Metric::Jaccard => &["ja", "jacc", "j"],
            Metric::JensenShannon => &["js"],
            Metric::Mahalanobis => &["mah", "mahal"],
            Metric::Minkowski => &["m", "pnorm", "mi"],
            Metric::SEuclidean => &["se", "s"],
            Metric::SqEuclidean => &["sqeuclid", "sqe"],
            _ => &[],
        }
    }

    /// Whether the metric reads its points as booleans whatever their dtype, nonzero as true
    /// (`jaccard`, `dice`, `rogerstanimoto`, `russellrao`, `sokalsneath`, `yule`). `hamming`
    /// reads bool points as bool, others as float64 (the same answer).
    pub fn is_boolean(self) -> bool {
        matches!(
            self,
            Metric::Jaccard
                | Metric::Dice
                | Metric::RogersTanimoto
                | Metric::RussellRao
                | Metric::SokalSneath
                | Metric::Yule
        )
    }
}

impl Default for Metric {
    /// SciPy's default metric, `euclidean`.
    fn default() -> Metric {
        Metric::Euclidean
    }
}

impl FromStr for Metric {
    type Err = Error;
    fn from_str(s: &str) -> Result<Metric> {
        let t = s.to_ascii_lowercase();
        Metric::ALL
            .into_iter()
            .find(|m| m.name() == t || m.aliases().contains(&t.as_str()))
            .ok_or_else(|| Error::value("spatial.distance", format!("Unknown Distance Metric: {s}")))
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The keyword arguments of a metric (SciPy's `p`, `V`, `VI`); `Default` is none of them.
#[derive(Clone, Copy, Debug, Default)]
pub struct MetricArgs<'a> {
    /// `p` of [`Metric::Minkowski`] (default 2; `f64::INFINITY` is Chebyshev).
    pub p: Option<f64>,
    /// `V` of [`Metric::SEuclidean`]: the variance of each coordinate, shape `(d,)`.
    pub v: Option<&'a Array>,
    /// `VI` of [`Metric::Mahalanobis`]: the inverse covariance matrix, shape `(d, d)`.
    pub vi: Option<&'a Array>,
}

impl<'a> MetricArgs<'a> {
    /// Only `p`.
    pub fn p(p: f64) -> MetricArgs<'a> {
        MetricArgs { p: Some(p), ..Default::default() }
    }
    /// Only `V`.
    pub fn v(v: &'a Array) -> MetricArgs<'a> {
        MetricArgs { v: Some(v), ..Default::default() }
    }
    /// Only `VI`.
    pub fn vi(vi: &'a Array) -> MetricArgs<'a> {
        MetricArgs { vi: Some(vi), ..Default::default() }
    }
}

/// A metric with its arguments resolved.
#[derive(Clone)]
pub(crate) enum Kernel {
    Euclidean,
    SqEuclidean,
    Cityblock,
    Chebyshev,
    Minkowski(f64),
    SEuclidean(Array),
    Mahalanobis(Array),
    Cosine,
    Correlation,
    Hamming,
    Canberra,
    BrayCurtis,
    JensenShannon,
    /// A boolean metric on bool points: hamming (of bool points), jaccard, dice,
    /// rogerstanimoto, russellrao, sokalsneath, yule.
    Bool(Metric),
}

impl Kernel {
    /// Whether the CPU computes the map inside the reduction (arithmetic and comparisons only).
    fn cheap_on_cpu(&self) -> bool {
        match self {
            // `pow` and logarithms (p = 1, 2 and inf are other kernels).
            Kernel::Minkowski(_) | Kernel::JensenShannon => false,
            _ => true,
        }
    }

    /// Map values per pair of points, in units of `d`.
    fn per_pair(&self, d: usize) -> usize {
        match self {
            Kernel::Mahalanobis(_) => d.max(1) * d.max(1),
            _ => d.max(1),
        }
    }
}

/// Points prepared for a metric: the rows (float64 or bool, contiguous) and a per-row value
/// (a norm, a flag or a count) where the metric needs one.
#[derive(Clone)]
pub(crate) struct Side {
    x: Array,
    extra: Option<Array>,
}

impl Side {
    fn rows(&self, r0: usize, r1: usize) -> Result<Side> {
        let r = |a: &Array| a.slice(&[range(r0, r1)]);
        Ok(Side { x: r(&self.x)?, extra: self.extra.as_ref().map(r).transpose()? })
    }
    fn len(&self) -> usize {
        self.x.shape()[0]
    }
}

fn range(start: usize, stop: usize) -> SliceArg {
    SliceArg::Range { start: Some(start as isize), stop: Some(stop as isize), step: None }
}

fn dtype_err(op: &str, reason: impl Into<String>) -> Error {
    Error::DType { op: op.into(), reason: reason.into() }
}

/// `x` as float64; complex is a `Value` error (SciPy's `Unsupported dtype`).
pub(crate) fn to_f64(op: &str, x: &Array) -> Result<Array> {
    match x.dtype() {
        DType::F64 => Ok(x.clone()),
        d if d.kind() == DTypeKind::Complex => Err(Error::value(op, format!("Unsupported dtype {d}"))),
        _ => x.astype(DType::F64),
    }
}

fn sum_last(x: &Array) -> Result<Array> {
    x.sum(Some(&[-1]), false)
}

/// `s - a`, elementwise.
fn rsub(s: f64, a: &Array) -> Result<Array> {
    call("subtract", &[Operand::Scalar(Scalar::Float(s)), Operand::Array(a)], None)
}

/// Whether the map of `k` is computed inside its reduction on `dev`.
fn fused(k: &Kernel, dev: &Arc<dyn DynDevice>) -> Result<bool> {
    Ok(crate::lazy::enabled()? && (!dev.properties().is_host || k.cheap_on_cpu()))
}

/// Map values a block may hold when its map is stored (not fused).
const UNFUSED_BLOCK: usize = 1 << 22;

/// Rows per block so that `rows × cols` pairs hold at most the bound's map values.
fn block_rows(k: &Kernel, dev: &Arc<dyn DynDevice>, cols: usize, d: usize) -> Result<usize> {
    if fused(k, dev)? {
        return Ok(usize::MAX);
    }
    Ok((UNFUSED_BLOCK / (cols.max(1) * k.per_pair(d))).max(1))
}

/// Checks a 2-d point set.
fn check_2d(op: &str, x: &Array, msg: impl FnOnce() -> String) -> Result<()> {
    if x.ndim() != 2 {
        return Err(Error::value(op, msg()));
    }
    if x.dtype().kind() == DTypeKind::Complex {
        return Err(Error::value(op, format!("Unsupported dtype {}", x.dtype())));
    }
    Ok(())
}

/// Resolves `metric` and `args` against the points `all` (every point, for the defaults of
/// `V` and `VI`; computed only when needed) of dimension `d`.
fn resolve(
    op: &str,
    metric: Metric,
    args: &MetricArgs<'_>,
    d: usize,
    all: impl FnOnce() -> Result<Array>,
    bool_points: bool,
) -> Result<Kernel> {
    let unexpected = |name: &str| dtype_err(op, format!("{metric}: got an unexpected keyword argument '{name}'"));
    if args.p.is_some() && metric != Metric::Minkowski {
        return Err(unexpected("p"));
    }
    if args.v.is_some() && metric != Metric::SEuclidean {
        return Err(unexpected("V"));
    }
    if args.vi.is_some() && metric != Metric::Mahalanobis {
        return Err(unexpected("VI"));
    }
    Ok(match metric {
        Metric::Euclidean => Kernel::Euclidean,
        Metric::SqEuclidean => Kernel::SqEuclidean,
        Metric::Cityblock => Kernel::Cityblock,
        Metric::Chebyshev => Kernel::Chebyshev,
        Metric::Minkowski => {
            let p = args.p.unwrap_or(2.0);
            if p.is_nan() {
                return Err(Error::value(op, "p must be a number, not NaN"));
            }
            match p {
                1.0 => Kernel::Cityblock,
                2.0 => Kernel::Euclidean,
                p if p == f64::INFINITY => Kernel::Chebyshev,
                p => Kernel::Minkowski(p),
            }
        }
        Metric::SEuclidean => {
            let v = match args.v {
                Some(v) => {
                    if v.ndim() != 1 {
                        return Err(Error::value(op, "Variance vector V must be one-dimensional."));
                    }
                    if v.shape()[0] != d {
                        return Err(Error::value(
                            op,
                            "Variance vector V must be of the same dimension as the vectors on which the distances \
                             are computed.",
                        ));
                    }
                    to_f64(op, v)?
                }
                None => to_f64(op, &all()?)?.var(Some(&[0]), 1, false)?,
            };
            Kernel::SEuclidean(v.ascontiguous()?)
        }
        Metric::Mahalanobis => {
            let vi = match args.vi {
                Some(vi) => {
                    if vi.shape() != [d, d] {
                        return Err(Error::value(
                            op,
                            format!("VI must be a ({d}, {d}) matrix for {d}-dimensional points, not {:?}", vi.shape()),
                        ));
                    }
                    to_f64(op, vi)?
                }
                None => {
                    let x = to_f64(op, &all()?)?;
                    let n = x.shape()[0];
                    if n <= d {
                        return Err(Error::value(
                            op,
                            format!(
                                "The number of observations ({n}) is too small; the covariance matrix is singular. \
                                 For observations with {d} dimensions, at least {} observations are required.",
                                d + 1
                            ),
                        ));
                    }
                    let c = crate::routines::cov(&x.t())?.reshape(&[d as isize, d as isize])?;
                    crate::linalg::inv(&c)?.t()
                }
            };
            Kernel::Mahalanobis(vi.ascontiguous()?)
        }
        Metric::Cosine => Kernel::Cosine,
        Metric::Correlation => Kernel::Correlation,
        Metric::Hamming if bool_points => Kernel::Bool(Metric::Hamming),
        Metric::Hamming => Kernel::Hamming,
        Metric::Canberra => Kernel::Canberra,
        Metric::Braycurtis => Kernel::BrayCurtis,
        Metric::JensenShannon => Kernel::JensenShannon,
        m => Kernel::Bool(m),
    })
}

/// The points `x` `(r, d)` prepared for `k`: converted, per-row values computed, evaluated.
fn prepare(op: &str, k: &Kernel, x: &Array) -> Result<Side> {
    let side = match k {
        Kernel::Bool(_) => {
            let b = if x.dtype() == DType::Bool { x.clone() } else { x.astype(DType::Bool)? };
            let b = b.ascontiguous()?;
            let count = sum_last(&b.astype(DType::F64)?)?;
            Side { x: b, extra: Some(count) }
        }
        Kernel::Cosine => {
            let f = to_f64(op, x)?.ascontiguous()?;
            let norm = sum_last(&f.square()?)?.sqrt()?;
            Side { x: f, extra: Some(norm) }
        }
        Kernel::Correlation => {
            let f = to_f64(op, x)?;
            let c = f.sub(&f.mean(Some(&[-1]), true)?)?.ascontiguous()?;
            let norm = sum_last(&c.square()?)?.sqrt()?;
            Side { x: c, extra: Some(norm) }
        }
        Kernel::JensenShannon => {
            let f = to_f64(op, x)?;
            let s = f.sum(Some(&[-1]), true)?;
            let p = f.div(&s)?.ascontiguous()?;
            // A row with a negative entry or a zero sum has no distribution: its distances are inf.
            let bad = f.lt(0.0)?.any(Some(&[-1]), false)?.logical_or(&s.eq(0.0)?.reshape(&[-1])?)?;
            Side { x: p, extra: Some(bad) }
        }
        _ => Side { x: to_f64(op, x)?.ascontiguous()?, extra: None },
    };
    let mut roots = vec![&side.x];
    roots.extend(side.extra.as_ref());
    crate::lazy::eval(&roots)?;
    Ok(side)
}

/// The distances `(ra, rb)` between the rows of `a` and of `b`.
fn block(k: &Kernel, a: &Side, b: &Side) -> Result<Array> {
    let (ra, rb, d) = (a.len(), b.len(), a.x.shape()[1]);
    let full = [ra, rb, d];
    let u = a.x.reshape(&[ra as isize, 1, d as isize])?.broadcast_to(&full)?;
    let v = b.x.reshape(&[1, rb as isize, d as isize])?.broadcast_to(&full)?;
    let col = |e: &Option<Array>| -> Result<Array> { e.as_ref().expect("a per-row value").reshape(&[ra as isize, 1]) };
    let row = |e: &Option<Array>| -> Result<Array> { e.as_ref().expect("a per-row value").reshape(&[1, rb as isize]) };
    let zero = || Operand::Scalar(Scalar::Float(0.0));
    let diff = || u.sub(&v);
    Ok(match k {
        Kernel::Euclidean => sum_last(&diff()?.square()?)?.sqrt()?,
        Kernel::SqEuclidean => sum_last(&diff()?.square()?)?,
        Kernel::Cityblock => sum_last(&diff()?.abs()?)?,
        Kernel::Chebyshev => diff()?.abs()?.max(Some(&[-1]), false)?,
        Kernel::Minkowski(p) => sum_last(&diff()?.abs()?.pow(*p)?)?.pow(1.0 / p)?,
        Kernel::SEuclidean(var) => sum_last(&diff()?.square()?.div(var)?)?.sqrt()?,
        Kernel::Mahalanobis(vi) => {
            let full4 = [ra, rb, d, d];
            let (ra, rb, d) = (ra as isize, rb as isize, d as isize);
            let view = |x: &Array, shape: [isize; 4]| x.reshape(&shape)?.broadcast_to(&full4);
            let dk = view(&a.x, [ra, 1, d, 1])?.sub(&view(&b.x, [1, rb, d, 1])?)?;
            let dl = view(&a.x, [ra, 1, 1, d])?.sub(&view(&b.x, [1, rb, 1, d])?)?;
            dk.mul(vi)?.mul(&dl)?.sum(Some(&[-2, -1]), false)?.sqrt()?
        }
        Kernel::Cosine | Kernel::Correlation => {
            let dot = sum_last(&u.mul(&v)?)?;
            let c = dot.div(&col(&a.extra)?.mul(&row(&b.extra)?)?)?.clip(-1.0, 1.0)?;
            rsub(1.0, &c)?
        }
        Kernel::Hamming => sum_last(&u.ne(&v)?.astype(DType::F64)?)?.div(d as f64)?,
        Kernel::Canberra => {
            let den = u.abs()?.add(&v.abs()?)?;
            let t = diff()?.abs()?.div(&den)?;
            sum_last(&where_(&den.eq(0.0)?, zero(), Operand::Array(&t))?)?
        }
        Kernel::BrayCurtis => sum_last(&diff()?.abs()?)?.div(&sum_last(&u.add(&v)?.abs()?)?)?,
        Kernel::JensenShannon => {
            let m = u.add(&v)?.mul(0.5)?;
            let t = crate::special::rel_entr(&u, &m)?.add(&crate::special::rel_entr(&v, &m)?)?;
            let js = sum_last(&t)?.div(2.0)?.sqrt()?;
            let bad = col(&a.extra)?.logical_or(&row(&b.extra)?)?;
            where_(&bad, Operand::Scalar(Scalar::Float(f64::INFINITY)), Operand::Array(&js))?
        }
        Kernel::Bool(m) => {
            // Counts of the pairs: ntt from the map, ntf and nft from the true counts.
            let n = d as f64;
            let ntt = sum_last(&u.logical_and(&v)?.astype(DType::F64)?)?;
            let ntf = col(&a.extra)?.sub(&ntt)?;
            let nft = row(&b.extra)?.sub(&ntt)?;
            let diff = ntf.add(&nft)?;
            match m {
                Metric::Hamming => diff.div(n)?,
                Metric::Jaccard => {
                    let den = ntt.add(&diff)?;
                    where_(&den.eq(0.0)?, zero(), Operand::Array(&diff.div(&den)?))?
                }
                Metric::Dice => diff.div(&ntt.mul(2.0)?.add(&diff)?)?,
                Metric::RogersTanimoto => {
                    let r = diff.mul(2.0)?;
                    let nff = rsub(n, &ntt.add(&diff)?)?;
                    r.div(&ntt.add(&nff)?.add(&r)?)?
                }
                Metric::RussellRao => rsub(n, &ntt)?.div(n)?,
                Metric::SokalSneath => {
                    let r = diff.mul(2.0)?;
                    r.div(&ntt.add(&r)?)?
                }
                Metric::Yule => {
                    let half = ntf.mul(&nft)?;
                    let nff = rsub(n, &ntt.add(&diff)?)?;
                    let y = half.mul(2.0)?.div(&ntt.mul(&nff)?.add(&half)?)?;
                    where_(&half.eq(0.0)?, zero(), Operand::Array(&y))?
                }
                other => unreachable!("{other} is not a boolean metric"),
            }
        }
    })
}

fn concat0(parts: &[Array]) -> Result<Array> {
    if parts.len() == 1 {
        return Ok(parts[0].clone());
    }
    let refs: Vec<&Array> = parts.iter().collect();
    crate::routines::concatenate(&refs, 0)
}

/// The distances by the native host loop ([`super::host`]) when the points live in host memory
/// (the CPU device) and the metric has a native form: the `(ra, rb)` matrix, or with `b`
/// `None` the condensed pairs of `a`'s rows. `None` where the device kernels run instead.
fn native(k: &Kernel, a: &Side, b: Option<&Side>, shape: &[usize]) -> Result<Option<Array>> {
    use super::host::{self, Points};
    if !crate::ndimage::native(&*a.x.device_arc()) {
        return Ok(None);
    }
    let d = a.x.shape()[1];
    let weights = |v: f64| vec![v; d];
    let w = match k {
        Kernel::Minkowski(p) => weights(*p),
        Kernel::SEuclidean(var) => var.to_vec::<f64>()?,
        Kernel::Mahalanobis(_) | Kernel::JensenShannon | Kernel::Bool(_) => return Ok(None),
        _ => weights(1.0),
    };
    let (ax, bx) = (a.x.ascontiguous()?, b.map(|s| s.x.ascontiguous()).transpose()?);
    let (ae, be) = (
        a.extra.as_ref().map(|e| e.ascontiguous()).transpose()?,
        b.and_then(|s| s.extra.as_ref()).map(|e| e.ascontiguous()).transpose()?,
    );
    fn view(x: &Array) -> Result<crate::interop::host::HostView<'_, f64>> {
        x.as_ndarray_view::<f64>()
    }
    fn flat<'a>(v: &'a crate::interop::host::HostView<'_, f64>) -> Result<&'a [f64]> {
        v.as_slice().ok_or_else(|| Error::value("spatial.distance", "the prepared points are not contiguous"))
    }
    let (av, bv) = (view(&ax)?, bx.as_ref().map(view).transpose()?);
    let (aev, bev) = (ae.as_ref().map(view).transpose()?, be.as_ref().map(view).transpose()?);
    let pa = Points { x: flat(&av)?, rows: a.len(), extra: aev.as_ref().map(flat).transpose()? };
    let pb = match (&bv, b) {
        (Some(v), Some(s)) => Some(Points { x: flat(v)?, rows: s.len(), extra: bev.as_ref().map(flat).transpose()? }),
        _ => None,
    };
    macro_rules! go {
        ($op:expr) => {
            match pb {
                Some(pb) => host::cdist(&$op, pa, pb, d, &w),
                None => host::pdist(&$op, pa, d, &w),
            }
        };
    }
    let out = match k {
        Kernel::Euclidean => go!(host::SqDiff(true)),
        Kernel::SqEuclidean => go!(host::SqDiff(false)),
        Kernel::Cityblock => go!(host::AbsDiff),
        Kernel::Chebyshev => go!(host::MaxAbsDiff),
        Kernel::Minkowski(p) => go!(host::PowDiff(*p)),
        Kernel::SEuclidean(_) => go!(host::SqDiffWeighted),
        Kernel::Cosine | Kernel::Correlation => go!(host::Cos),
        Kernel::Hamming => go!(host::Hamming(d as f64)),
        Kernel::Canberra => go!(host::Canberra),
        Kernel::BrayCurtis => go!(host::BrayCurtis),
        Kernel::Mahalanobis(_) | Kernel::JensenShannon | Kernel::Bool(_) => return Ok(None),
    };
    let arr = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), out)
        .map_err(|e| Error::value("spatial.distance", format!("shape {shape:?}: {e}")))?;
    Ok(Some(Array::from_ndarray_owned(arr)?))
}

/// SciPy's `cdist(XA, XB, metric, **kwargs)`: the `(mA, mB)` float64 matrix of the distances
/// between each row of `xa` `(mA, d)` and each row of `xb` `(mB, d)` under `metric` with its
/// `args` (see the module docs for the metrics, dtypes, errors and the kernel).
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::spatial::distance::{cdist, Metric, MetricArgs};
/// use xp_array::Array;
/// let a = Array::from_slice(&[0.0f64, 0.0, 1.0, 1.0], &[2, 2]).unwrap();
/// let b = Array::from_slice(&[3.0f64, 4.0], &[1, 2]).unwrap();
/// let d = cdist(&a, &b, Metric::Euclidean, &MetricArgs::default()).unwrap();
/// assert_eq!(d.shape(), &[2, 1]);
/// assert_eq!(d.to_vec::<f64>().unwrap()[0], 5.0);
/// let c = cdist(&a, &b, "cityblock".parse().unwrap(), &MetricArgs::default()).unwrap();
/// assert_eq!(c.to_vec::<f64>().unwrap(), [7.0, 5.0]);
/// # });
/// ```
pub fn cdist(xa: &Array, xb: &Array, metric: Metric, args: &MetricArgs<'_>) -> Result<Array> {
    let op = "cdist";
    check_2d(op, xa, || "XA must be a 2-dimensional array.".into())?;
    check_2d(op, xb, || "XB must be a 2-dimensional array.".into())?;
    let dev = crate::ufunc::common_device(op, &[xa, xb])?;
    let (ma, mb, d) = (xa.shape()[0], xb.shape()[0], xa.shape()[1]);
    if xb.shape()[1] != d {
        return Err(Error::value(op, "XA and XB must have the same number of columns (i.e. feature dimension.)"));
    }
    let bool_points = xa.dtype() == DType::Bool && xb.dtype() == DType::Bool;
    let k = resolve(op, metric, args, d, || crate::routines::concatenate(&[xa, xb], 0), bool_points)?;
    if ma == 0 || mb == 0 {
        return Array::full_on(&dev, &[ma, mb], 0.0, DType::F64);
    }
    let (a, b) = (prepare(op, &k, xa)?, prepare(op, &k, xb)?);
    if let Some(out) = native(&k, &a, Some(&b), &[ma, mb])? {
        return Ok(out);
    }
    let rows = block_rows(&k, &dev, mb, d)?;
    let mut parts = Vec::new();
    let mut r0 = 0;
    while r0 < ma {
        let r1 = ma.min(r0.saturating_add(rows));
        parts.push(block(&k, &a.rows(r0, r1)?, &b)?);
        r0 = r1;
    }
    concat0(&parts)
}

/// SciPy's `pdist(X, metric, **kwargs)`: the distances between the rows of `x` `(m, d)`, the
/// pairs `i < j` in row-major order (the condensed form, length `m(m-1)/2`, float64; see
/// [`squareform`]). Metrics, arguments and errors as [`cdist`] (a point set that is not 2-d is
/// `A 2-dimensional array must be passed.`).
pub fn pdist(x: &Array, metric: Metric, args: &MetricArgs<'_>) -> Result<Array> {
    let op = "pdist";
    check_2d(op, x, || format!("A 2-dimensional array must be passed. (Shape was {:?}).", x.shape()))?;
    let dev = x.device_arc();
    let (m, d) = (x.shape()[0], x.shape()[1]);
    let k = resolve(op, metric, args, d, || Ok(x.clone()), x.dtype() == DType::Bool)?;
    if m < 2 {
        return Array::full_on(&dev, &[0], 0.0, DType::F64);
    }
    let side = prepare(op, &k, x)?;
    if let Some(out) = native(&k, &side, None, &[m * (m - 1) / 2])? {
        return Ok(out);
    }
    // Blocks of about m/8 rows (at least 256) so that at most an eighth more pairs than needed
    // are computed, fewer where the map is stored.
    let rows = m.div_ceil(8).max(256).min(block_rows(&k, &dev, m, d)?);
    let mut parts = Vec::new();
    let mut r0 = 0;
    while r0 < m - 1 {
        let r1 = (m - 1).min(r0 + rows);
        let dist = block(&k, &side.rows(r0, r1)?, &side.rows(r0 + 1, m)?)?;
        // Row i of the block (point r0 + i) against point r0 + 1 + j: keep j >= i.
        let (h, w) = (r1 - r0, m - r0 - 1);
        let (ri, cj) = crate::device::with_device(&dev, || -> Result<(Array, Array)> {
            Ok((crate::arange(0, h as i64, 1, None)?.reshape(&[-1, 1])?, crate::arange(0, w as i64, 1, None)?))
        })?;
        parts.push(dist.compress_mask(&cj.ge(&ri)?)?);
        r0 = r1;
    }
    concat0(&parts)
}

/// What [`squareform`] is asked to give (SciPy's `force`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Force {
    /// `"no"`: a vector gives a matrix, a matrix a vector.
    #[default]
    No,
    /// `"tovector"`: the input must be a matrix.
    ToVector,
    /// `"tomatrix"`: the input must be a vector.
    ToMatrix,
}

impl FromStr for Force {
    type Err = Error;
    fn from_str(s: &str) -> Result<Force> {
        match s.to_ascii_lowercase().as_str() {
            "no" => Ok(Force::No),
            "tovector" => Ok(Force::ToVector),
            "tomatrix" => Ok(Force::ToMatrix),
            _ => Err(Error::value("squareform", format!("force must be 'no', 'tovector' or 'tomatrix', not {s:?}"))),
        }
    }
}

/// SciPy's `squareform(X, force, checks)`: a condensed distance vector (length `n(n-1)/2`) to
/// the symmetric `(n, n)` matrix with a zero diagonal, or such a matrix to its condensed
/// vector (the entries `i < j` in row-major order). The dtype is kept. An empty vector gives
/// the `(1, 1)` zero matrix, a `(1, 1)` or `(0, 0)` matrix the empty vector.
///
/// Errors (`Value`, SciPy's messages): a vector whose length is not `n(n-1)/2`, a matrix that
/// is not square, an input that is not 1-d or 2-d, an input that does not match `force`, and
/// with `checks` a matrix that is not exactly symmetric or whose diagonal is not zero.
///
/// Both directions are gathers on the device: the matrix reads the vector at the condensed
/// index of each entry, the vector is the matrix under the mask `j > i`.
pub fn squareform(x: &Array, force: Force, checks: bool) -> Result<Array> {
    let op = "squareform";
    let s = x.shape();
    let dev = x.device_arc();
    if force == Force::ToMatrix && s.len() != 1 {
        return Err(Error::value(op, "Forcing 'tomatrix' but input X is not a distance vector."));
    }
    if force == Force::ToVector && s.len() != 2 {
        return Err(Error::value(op, "Forcing 'tovector' but input X is not a distance matrix."));
    }
    let ar = |n: usize| crate::device::with_device(&dev, || crate::arange(0, n as i64, 1, None));
    match s.len() {
        1 => {
            let k = s[0];
            if k == 0 {
                return Array::full_on(&dev, &[1, 1], 0, x.dtype());
            }
            let d = (((2 * k) as f64).sqrt().ceil()) as usize;
            if d * (d - 1) != 2 * k {
                return Err(Error::value(
                    op,
                    "Incompatible vector size. It must be a binomial coefficient n choose 2 for some integer n >= 2.",
                ));
            }
            let i = ar(d)?.reshape(&[-1, 1])?;
            let j = ar(d)?.reshape(&[1, -1])?;
            let (lo, hi) = (i.minimum(&j)?, i.maximum(&j)?);
            // The condensed index of (lo, hi): lo (2d - lo - 1) / 2 + hi - lo - 1 (0 on the diagonal).
            let idx =
                lo.mul(&rsub_i((2 * d - 1) as i64, &lo)?)?.floor_divide(2)?.add(&hi.sub(&lo)?)?.add(-1)?.maximum(0)?;
            let vals = x.take(&idx, Some(0))?;
            let zero = Array::full_on(&dev, &[], 0, x.dtype())?;
            where_(&i.eq(&j)?, Operand::Array(&zero), Operand::Array(&vals))
        }
        2 => {
            if s[0] != s[1] {
                return Err(Error::value(op, "The matrix argument must be square."));
            }
            let d = s[0];
            if checks {
                if !x.eq(&x.t())?.all(None, false)?.item::<bool>()? {
                    return Err(Error::value(op, "Distance matrix 'X' must be symmetric."));
                }
                if d > 0 && !x.diagonal(0, 0, 1)?.eq(0)?.all(None, false)?.item::<bool>()? {
                    return Err(Error::value(op, "Distance matrix 'X' diagonal must be zero."));
                }
            }
            if d <= 1 {
                return Array::full_on(&dev, &[0], 0, x.dtype());
            }
            let i = ar(d)?.reshape(&[-1, 1])?;
            let j = ar(d)?.reshape(&[1, -1])?;
            x.compress_mask(&j.gt(&i)?.broadcast_to(&[d, d])?)
        }
        n => Err(Error::value(
            op,
            format!(
                "The first argument must be one or two dimensional array. A {n}-dimensional array is not permitted"
            ),
        )),
    }
}

/// `s - a` for an integer array.
fn rsub_i(s: i64, a: &Array) -> Result<Array> {
    call("subtract", &[Operand::Scalar(Scalar::Int(s as i128)), Operand::Array(a)], None)
}

/// One distance between the 1-d points `u` and `v` (SciPy's single-pair functions), as [`cdist`]
/// of the two points read to the host.
pub fn distance(u: &Array, v: &Array, metric: Metric, args: &MetricArgs<'_>) -> Result<f64> {
    let op = metric.name();
    if u.ndim() != 1 || v.ndim() != 1 {
        return Err(Error::value(op, "Input vector should be 1-D."));
    }
    if u.shape() != v.shape() {
        return Err(Error::value(
            op,
            format!("u and v must have the same length, not {} and {}", u.shape()[0], v.shape()[0]),
        ));
    }
    let row = |x: &Array| x.reshape(&[1, -1]);
    cdist(&row(u)?, &row(v)?, metric, args)?.item::<f64>()
}

macro_rules! pair_functions {
    ($($(#[$doc:meta])* $name:ident => $metric:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(u: &Array, v: &Array) -> Result<f64> {
            distance(u, v, Metric::$metric, &MetricArgs::default())
        }
    )*};
}

pair_functions! {
    /// SciPy's `braycurtis(u, v)` (see [`Metric::Braycurtis`]).
    braycurtis => Braycurtis;
    /// SciPy's `canberra(u, v)` (see [`Metric::Canberra`]).
    canberra => Canberra;
    /// SciPy's `chebyshev(u, v)` (see [`Metric::Chebyshev`]).
    chebyshev => Chebyshev;
    /// SciPy's `cityblock(u, v)` (see [`Metric::Cityblock`]).
    cityblock => Cityblock;
    /// SciPy's `correlation(u, v)` (see [`Metric::Correlation`]).
    correlation => Correlation;
    /// SciPy's `cosine(u, v)` (see [`Metric::Cosine`]).
    cosine => Cosine;
    /// SciPy's `euclidean(u, v)` (see [`Metric::Euclidean`]).
    euclidean => Euclidean;
    /// SciPy's `sqeuclidean(u, v)` (see [`Metric::SqEuclidean`]).
    sqeuclidean => SqEuclidean;
    /// SciPy's `jensenshannon(p, q)` of two distributions (natural logarithms; see
    /// [`Metric::JensenShannon`]).
    jensenshannon => JensenShannon;
    /// SciPy's `hamming(u, v)` (see [`Metric::Hamming`]).
    hamming => Hamming;
    /// SciPy's `jaccard(u, v)` (see [`Metric::Jaccard`]).
    jaccard => Jaccard;
    /// SciPy's `dice(u, v)` (see [`Metric::Dice`]).
    dice => Dice;
    /// SciPy's `rogerstanimoto(u, v)` (see [`Metric::RogersTanimoto`]).
    rogerstanimoto => RogersTanimoto;
    /// SciPy's `russellrao(u, v)` (see [`Metric::RussellRao`]).
    russellrao => RussellRao;
    /// SciPy's `sokalsneath(u, v)` (see [`Metric::SokalSneath`]).
    sokalsneath => SokalSneath;
    /// SciPy's `yule(u, v)` (see [`Metric::Yule`]).
    yule => Yule;
}

/// SciPy's `minkowski(u, v, p)` (see [`Metric::Minkowski`]).
pub fn minkowski(u: &Array, v: &Array, p: f64) -> Result<f64> {
    distance(u, v, Metric::Minkowski, &MetricArgs::p(p))
}

/// SciPy's `seuclidean(u, v, V)` (see [`Metric::SEuclidean`]).
pub fn seuclidean(u: &Array, v: &Array, var: &Array) -> Result<f64> {
    distance(u, v, Metric::SEuclidean, &MetricArgs::v(var))
}

/// SciPy's `mahalanobis(u, v, VI)` (see [`Metric::Mahalanobis`]).
pub fn mahalanobis(u: &Array, v: &Array, vi: &Array) -> Result<f64> {
    distance(u, v, Metric::Mahalanobis, &MetricArgs::vi(vi))
}

/// The `(m, n)` Minkowski distances between the rows of `x` `(m, k)` and `y` `(n, k)` under
/// `p` (the kernel of [`crate::spatial::distance_matrix`]).
pub(crate) fn minkowski_matrix(op: &str, x: &Array, y: &Array, p: f64) -> Result<Array> {
    let dev = crate::ufunc::common_device(op, &[x, y])?;
    let (m, n, d) = (x.shape()[0], y.shape()[0], x.shape()[1]);
    let k = resolve(op, Metric::Minkowski, &MetricArgs::p(p), d, || unreachable!("no default"), false)?;
    if m == 0 || n == 0 {
        return Array::full_on(&dev, &[m, n], 0.0, DType::F64);
    }
    let (a, b) = (prepare(op, &k, x)?, prepare(op, &k, y)?);
    if let Some(out) = native(&k, &a, Some(&b), &[m, n])? {
        return Ok(out);
    }
    let rows = block_rows(&k, &dev, n, d)?;
    let mut parts = Vec::new();
    let mut r0 = 0;
    while r0 < m {
        let r1 = m.min(r0.saturating_add(rows));
        parts.push(block(&k, &a.rows(r0, r1)?, &b)?);
        r0 = r1;
    }
    concat0(&parts)
}
