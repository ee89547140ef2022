//! Correlation: `pearsonr` (statistic and p-value) and `spearmanr` (Pearson's statistic of
//! the ranks).

use std::str::FromStr;

use xp_backend_api::{DType, Error, Result};

use super::rank::{rankdata, RankMethod};
use super::{as_f64, broadcast_pair, reduce_axes, result_dtype};
use crate::lazy::eval;
use crate::promote::{promote_types, Scalar};
use crate::ufunc::{where_, Operand};
use crate::Array;

/// The alternative hypothesis of a test (SciPy's `alternative`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Alternative {
    /// The correlation is not zero; SciPy's default.
    #[default]
    TwoSided,
    /// The correlation is negative.
    Less,
    /// The correlation is positive.
    Greater,
}

impl FromStr for Alternative {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "two-sided" => Alternative::TwoSided,
            "less" => Alternative::Less,
            "greater" => Alternative::Greater,
            _ => {
                return Err(Error::value(
                    "alternative",
                    format!("`alternative` must be 'two-sided', 'less' or 'greater', got {s:?}"),
                ))
            }
        })
    }
}

/// What [`pearsonr`] answers: SciPy's `PearsonRResult` (its confidence interval is not here).
#[derive(Debug, Clone)]
pub struct PearsonRResult {
    /// The correlation coefficient of each slice.
    pub statistic: Array,
    /// The p-value of each slice for the chosen [`Alternative`], assuming normal samples.
    pub pvalue: Array,
}

/// SciPy's `pearsonr(x, y, alternative, axis)`: Pearson's correlation coefficient of `x` and
/// `y` along `axis` (`None`: of the flattened operands; SciPy's default is `Some(0)`), and the
/// p-value of the test that it is zero.
///
/// The statistic is `Σ (x - x̄)(y - ȳ) / sqrt(Σ (x - x̄)² Σ (y - ȳ)²)`, two-pass in float64 on
/// the device, clipped to `[-1, 1]`; a constant slice gives NaN (as SciPy, which also warns).
/// The p-value is exact for independent normal samples: under the null hypothesis `(r + 1) /
/// 2` follows `Beta(n/2 - 1, n/2 - 1)`, so the two-sided p-value is the regularized
/// incomplete beta function `I(1 - r²; n/2 - 1, 1/2)` and the one-sided ones `I((1 ∓ r)/2;
/// n/2 - 1, n/2 - 1)`; with two values it is 1. It is evaluated on the host over the
/// statistics read back (one number per slice; see the module's notes for the algorithm).
///
/// `x` and `y` broadcast together (a `Value` error when they cannot), and a slice shorter
/// than two values is a `Value` error. Both answers keep the operands' float dtype (float32
/// stays float32), integers give float64.
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::{stats, Array};
/// let x = Array::from_slice(&[1.0f64, 2.0, 4.0, 3.0, 7.0], &[5]).unwrap();
/// let y = Array::from_slice(&[1.0f64, 3.0, 2.0, 2.0, 9.0], &[5]).unwrap();
/// let r = stats::pearsonr(&x, &y, stats::Alternative::TwoSided, Some(0)).unwrap();
/// // SciPy 1.17: statistic 0.8865122738709028, pvalue 0.04510477656839039
/// assert!((r.statistic.item::<f64>().unwrap() - 0.8865122738709028).abs() < 1e-14);
/// assert!((r.pvalue.item::<f64>().unwrap() - 0.04510477656839039).abs() < 1e-13);
/// # });
/// ```
pub fn pearsonr(x: &Array, y: &Array, alternative: Alternative, axis: Option<isize>) -> Result<PearsonRResult> {
    let op = "pearsonr";
    let out = result_dtype(op, promote_types(x.dtype(), y.dtype()))?;
    let (r, n) = pearson_statistic(op, x, y, axis)?;
    let pvalue = pearson_pvalue(&r, n, alternative)?.astype(out)?;
    Ok(PearsonRResult { statistic: r.astype(out)?, pvalue })
}

/// Pearson's r (float64) along `axis` of `x` and `y` broadcast together, and the slices' length.
fn pearson_statistic(op: &str, x: &Array, y: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    let shape = broadcast_pair(op, x, y)?;
    let (x, y) = (as_f64(op, x)?.broadcast_to(&shape)?, as_f64(op, y)?.broadcast_to(&shape)?);
    let (axes, n) = reduce_axes(op, &x, axis)?;
    if n < 2 {
        return Err(Error::value(op, format!("`x` and `y` must have length at least 2, got {n}")));
    }
    let axes = axes.as_deref();
    let dx = x.sub(&x.mean(axes, true)?)?;
    let dy = y.sub(&y.mean(axes, true)?)?;
    eval(&[&dx, &dy])?;
    let sxy = dx.mul(&dy)?.sum(axes, false)?;
    let sxx = dx.mul(&dx)?.sum(axes, false)?;
    let syy = dy.mul(&dy)?.sum(axes, false)?;
    let r = sxy.div(&sxx.sqrt()?.mul(&syy.sqrt()?)?)?.clip(-1.0, 1.0)?;
    // A constant slice has no correlation (its centred values may not be exactly zero).
    let constant =
        x.max(axes, false)?.eq(&x.min(axes, false)?)?.logical_or(&y.max(axes, false)?.eq(&y.min(axes, false)?)?)?;
    let r = where_(&constant, Operand::Scalar(Scalar::Float(f64::NAN)), (&r).into())?;
    Ok((r, n))
}

/// The p-values of the correlations `r` (float64) of samples of `n` values.
fn pearson_pvalue(r: &Array, n: usize, alternative: Alternative) -> Result<Array> {
    let rs = r.ascontiguous()?.to_vec::<f64>()?;
    let half = n as f64 / 2.0 - 1.0;
    let p: Vec<f64> = rs
        .iter()
        .map(|&r| {
            if r.is_nan() {
                f64::NAN
            } else if n == 2 {
                1.0
            } else {
                match alternative {
                    Alternative::TwoSided => betainc(half, 0.5, 1.0 - r * r),
                    Alternative::Greater => betainc(half, half, (1.0 - r) / 2.0),
                    Alternative::Less => betainc(half, half, (1.0 + r) / 2.0),
                }
            }
        })
        .collect();
    Array::from_slice_on(&r.device_arc(), &p, r.shape())
}

/// SciPy's `spearmanr(a, b, alternative)` for two 1-d samples: Spearman's rank correlation
/// (Pearson's r of the average ranks, [`rankdata`]) and its p-value, from Student's t with
/// `n - 2` degrees of freedom (which is [`pearsonr`]'s formula of the ranks' r). SciPy answers
/// float64 whatever the input's dtype, and so does this. A slice holding NaN gives NaN.
/// Operands that are not 1-d of one length are a `Value` error (SciPy's 2-d form, a matrix
/// of the columns' correlations, is not here).
pub fn spearmanr(a: &Array, b: &Array, alternative: Alternative) -> Result<PearsonRResult> {
    let op = "spearmanr";
    if a.ndim() != 1 || b.ndim() != 1 || a.size() != b.size() {
        return Err(Error::value(
            op,
            format!("expected two 1-d samples of one length, got shapes {:?} and {:?}", a.shape(), b.shape()),
        ));
    }
    result_dtype(op, promote_types(a.dtype(), b.dtype()))?;
    let (ra, rb) = (rankdata(a, RankMethod::Average, None)?, rankdata(b, RankMethod::Average, None)?);
    let (r, n) = pearson_statistic(op, &ra, &rb, Some(0))?;
    let p = pearson_pvalue(&r, n, alternative)?;
    Ok(PearsonRResult { statistic: r.astype(DType::F64)?, pvalue: p })
}

/// `ln Γ(x)` for `x > 0`: Lanczos' approximation (g = 7, nine coefficients, as published by
/// Godfrey; relative error about 1e-15), with the reflection-free shift for `x < 0.5`.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Γ(x) = Γ(x + 1) / x.
        return ln_gamma(x + 1.0) - x.ln();
    }
    let x = x - 1.0;
    let mut s = C[0];
    for (i, &c) in C.iter().enumerate().skip(1) {
        s += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + s.ln()
}

/// The regularized incomplete beta function `I(x; a, b)` for `a, b > 0`, `0 <= x <= 1`: the
/// continued fraction evaluated by the modified Lentz method on whichever of `x` and `1 - x`
/// converges (Press et al., "Numerical Recipes", 3rd ed., §6.4).
fn betainc(a: f64, b: f64, x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        (ln_front.exp() * beta_fraction(a, b, x) / a).clamp(0.0, 1.0)
    } else {
        (1.0 - ln_front.exp() * beta_fraction(b, a, 1.0 - x) / b).clamp(0.0, 1.0)
    }
}

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..10_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::{betainc, ln_gamma};

    #[test]
    fn ln_gamma_matches_factorials() {
        let mut f = 1.0f64;
        for n in 1..20 {
            f *= n as f64;
            assert!((ln_gamma(n as f64 + 1.0) - f.ln()).abs() < 1e-13 * f.ln().max(1.0), "n = {n}");
        }
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-14);
    }

    #[test]
    fn betainc_matches_scipy() {
        // scipy.special.betainc(a, b, x), SciPy 1.17.
        for (a, b, x, want) in [
            (1.5, 0.5, 0.214_095_988_276_241_43, 0.045_104_776_568_390_36),
            (2.0, 3.0, 0.4, 0.524_799_999_999_999_9),
            (10.0, 0.5, 0.9, 0.151_640_909_634_709_94),
            (0.5, 0.5, 0.5, 0.5),
        ] {
            let got = betainc(a, b, x);
            assert!((got - want).abs() <= 1e-13 * want, "I({x}; {a}, {b}) = {got}, want {want}");
        }
    }
}
