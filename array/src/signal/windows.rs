//! SciPy's `scipy.signal.windows`: the 25 window functions and [`get_window`], as float64
//! arrays on the current device.
//!
//! Every window takes its length `M` and `sym`: `true` gives the symmetric window (filter
//! design), `false` the periodic one (spectral analysis), which is the symmetric window of
//! length `M + 1` without its last sample — SciPy's rule. Lengths 0 and 1 give `[]` and `[1.0]`.
//!
//! A window's length is a parameter, not data: the samples are computed on the host in f64
//! (from the formulas of SciPy's documentation and the papers it cites: Harris 1978 for the
//! cosine-sum windows, Dolph 1946 for `chebwin` through a DFT of the Chebyshev polynomial, Slepian
//! 1978 for `dpss` through the largest eigenvector of the tridiagonal commuting matrix, found by
//! Sturm bisection and inverse iteration, Taylor 1955 / Doerry 2017 for `taylor`) and copied to
//! the device once.
//!
//! `dpss` returns the single window of order 0 (SciPy's `Kmax=None`), normalised as SciPy's
//! default `'approximate'` norm (peak 1, times `M²/(M²+NW)` for even lengths).

use std::f64::consts::PI;
use std::str::FromStr;

use xp_backend_api::{Error, Result};
use xp_kernels::special::i0_host;

use crate::Array;

/// A window by name and parameters, as `get_window` accepts it.
#[derive(Debug, Clone, PartialEq)]
pub enum Window {
    /// `barthann`.
    Barthann,
    /// `bartlett`.
    Bartlett,
    /// `blackman`.
    Blackman,
    /// `blackmanharris`.
    Blackmanharris,
    /// `bohman`.
    Bohman,
    /// `boxcar` (also `rectangular`, `ones`, `box`).
    Boxcar,
    /// `chebwin` with attenuation `at` in dB.
    Chebwin(f64),
    /// `cosine` (also `sine`).
    Cosine,
    /// `dpss` with the half-bandwidth `NW`.
    Dpss(f64),
    /// `exponential` with `center` (`None`: the middle) and decay `tau`.
    Exponential(Option<f64>, f64),
    /// `flattop`.
    Flattop,
    /// `gaussian` with standard deviation `std`.
    Gaussian(f64),
    /// `general_cosine` with its coefficients.
    GeneralCosine(Vec<f64>),
    /// `general_gaussian` with shape `p` and `sig`.
    GeneralGaussian(f64, f64),
    /// `general_hamming` with `alpha`.
    GeneralHamming(f64),
    /// `hamming`.
    Hamming,
    /// `hann` (also `hanning`).
    Hann,
    /// `kaiser` with `beta`.
    Kaiser(f64),
    /// `kaiser_bessel_derived` with `beta`.
    KaiserBesselDerived(f64),
    /// `lanczos` (also `sinc`).
    Lanczos,
    /// `nuttall`.
    Nuttall,
    /// `parzen`.
    Parzen,
    /// `taylor` with `nbar`, `sll` (dB) and `norm`.
    Taylor(usize, f64, bool),
    /// `triang`.
    Triang,
    /// `tukey` with `alpha`.
    Tukey(f64),
}

fn unknown() -> Error {
    Error::value("get_window", "Unknown window type.")
}

fn canonical(name: &str) -> Option<&'static str> {
    Some(match name {
        "barthann" | "brthan" | "bth" => "barthann",
        "bartlett" | "bart" | "brt" => "bartlett",
        "blackman" | "black" | "blk" => "blackman",
        "blackmanharris" | "blackharr" | "bkh" => "blackmanharris",
        "bohman" | "bman" | "bmn" => "bohman",
        "boxcar" | "box" | "ones" | "rect" | "rectangular" => "boxcar",
        "chebwin" | "cheb" => "chebwin",
        "cosine" | "halfcosine" => "cosine",
        "dpss" => "dpss",
        "exponential" | "poisson" => "exponential",
        "flattop" | "flat" | "flt" => "flattop",
        "gaussian" | "gauss" | "gss" => "gaussian",
        "general_cosine" | "general cosine" => "general_cosine",
        "general_gaussian" | "general gaussian" | "general gauss" | "general_gauss" | "ggs" => "general_gaussian",
        "general_hamming" | "general hamming" => "general_hamming",
        "hamming" | "hamm" | "ham" => "hamming",
        "hann" | "han" => "hann",
        "kaiser" | "ksr" => "kaiser",
        "kaiser_bessel_derived" | "kbd" => "kaiser_bessel_derived",
        "lanczos" | "sinc" => "lanczos",
        "nuttall" | "nutl" | "nut" => "nuttall",
        "parzen" | "parz" | "par" => "parzen",
        "taylor" | "taylorwin" => "taylor",
        "triangle" | "triang" | "tri" => "triang",
        "tukey" | "tuk" => "tukey",
        _ => return None,
    })
}

impl Window {
    /// A window from SciPy's tuple form `(name, param, ...)`; `None` parameters are allowed
    /// where SciPy has them (`exponential`'s `center`). A window that needs parameters and has
    /// none, or an unknown name, is SciPy's `ValueError`.
    pub fn with_params(name: &str, params: &[Option<f64>]) -> Result<Window> {
        let canon = canonical(name).ok_or_else(unknown)?;
        let need = |k: usize| -> Result<f64> {
            params.get(k).copied().flatten().ok_or_else(|| {
                Error::value("get_window", format!("The '{name}' window needs one or more parameters -- pass a tuple."))
            })
        };
        let opt = |k: usize, d: f64| params.get(k).copied().flatten().unwrap_or(d);
        Ok(match canon {
            "barthann" => Window::Barthann,
            "bartlett" => Window::Bartlett,
            "blackman" => Window::Blackman,
            "blackmanharris" => Window::Blackmanharris,
            "bohman" => Window::Bohman,
            "boxcar" => Window::Boxcar,
            "chebwin" => Window::Chebwin(need(0)?),
            "cosine" => Window::Cosine,
            "dpss" => Window::Dpss(need(0)?),
            "exponential" => Window::Exponential(params.first().copied().flatten(), opt(1, 1.0)),
            "flattop" => Window::Flattop,
            "gaussian" => Window::Gaussian(need(0)?),
            "general_cosine" => {
                return Err(Error::value(
                    "get_window",
                    "general_cosine takes a sequence of coefficients; use Window::GeneralCosine",
                ))
            }
            "general_gaussian" => Window::GeneralGaussian(need(0)?, need(1)?),
            "general_hamming" => Window::GeneralHamming(need(0)?),
            "hamming" => Window::Hamming,
            "hann" => Window::Hann,
            "kaiser" => Window::Kaiser(need(0)?),
            "kaiser_bessel_derived" => Window::KaiserBesselDerived(need(0)?),
            "lanczos" => Window::Lanczos,
            "nuttall" => Window::Nuttall,
            "parzen" => Window::Parzen,
            "taylor" => Window::Taylor(
                opt(0, 4.0) as usize,
                opt(1, 30.0),
                params.get(2).copied().flatten().is_none_or(|v| v != 0.0),
            ),
            "triang" => Window::Triang,
            "tukey" => Window::Tukey(opt(0, 0.5)),
            _ => return Err(unknown()),
        })
    }

    /// The window's `M` samples on the host.
    pub fn samples(&self, m: usize, sym: bool) -> Result<Vec<f64>> {
        Ok(match self {
            Window::Barthann => barthann_h(m, sym),
            Window::Bartlett => bartlett_h(m, sym),
            Window::Blackman => general_cosine_h(m, &[0.42, 0.50, 0.08], sym),
            Window::Blackmanharris => general_cosine_h(m, &[0.35875, 0.48829, 0.14128, 0.01168], sym),
            Window::Bohman => bohman_h(m, sym),
            Window::Boxcar => vec![1.0; m],
            Window::Chebwin(at) => chebwin_h(m, *at, sym),
            Window::Cosine => cosine_h(m, sym),
            Window::Dpss(nw) => dpss_h(m, *nw, sym)?,
            Window::Exponential(c, tau) => exponential_h(m, *c, *tau, sym)?,
            Window::Flattop => general_cosine_h(m, &FLATTOP, sym),
            Window::Gaussian(s) => gaussian_h(m, *s, sym),
            Window::GeneralCosine(a) => general_cosine_h(m, a, sym),
            Window::GeneralGaussian(p, s) => general_gaussian_h(m, *p, *s, sym),
            Window::GeneralHamming(a) => general_cosine_h(m, &[*a, 1.0 - *a], sym),
            Window::Hamming => general_cosine_h(m, &[0.54, 0.46], sym),
            Window::Hann => general_cosine_h(m, &[0.5, 0.5], sym),
            Window::Kaiser(b) => kaiser_h(m, *b, sym),
            Window::KaiserBesselDerived(b) => kbd_h(m, *b, sym)?,
            Window::Lanczos => lanczos_h(m, sym),
            Window::Nuttall => general_cosine_h(m, &[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym),
            Window::Parzen => parzen_h(m, sym),
            Window::Taylor(nbar, sll, norm) => taylor_h(m, *nbar, *sll, *norm, sym),
            Window::Triang => triang_h(m, sym),
            Window::Tukey(a) => tukey_h(m, *a, sym),
        })
    }
}

impl FromStr for Window {
    type Err = Error;
    /// A window by SciPy's name alone (windows with required parameters are an error).
    fn from_str(s: &str) -> Result<Window> {
        Window::with_params(s, &[])
    }
}

const FLATTOP: [f64; 5] = [0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368];

/// SciPy's `get_window(window, Nx, fftbins=True)`: the window of `Nx` samples, periodic when
/// `fftbins` (the default for spectral analysis), symmetric otherwise.
pub fn get_window(window: &Window, nx: usize, fftbins: bool) -> Result<Array> {
    Array::from_vec(window.samples(nx, !fftbins)?)
}

/// The length to compute (`M + 1` for a periodic window) and whether to drop the last sample.
fn extend(m: usize, sym: bool) -> (usize, bool) {
    if sym {
        (m, false)
    } else {
        (m + 1, true)
    }
}

fn finish(mut w: Vec<f64>, trunc: bool) -> Vec<f64> {
    if trunc {
        w.pop();
    }
    w
}

/// `linspace(a, b, n)` as NumPy computes it.
fn linspace_h(a: f64, b: f64, n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![a];
    }
    let step = (b - a) / (n - 1) as f64;
    let mut v: Vec<f64> = (0..n).map(|i| a + i as f64 * step).collect();
    v[n - 1] = b;
    v
}

pub(crate) fn general_cosine_h(m: usize, a: &[f64], sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let fac = linspace_h(-PI, PI, m);
    let w = fac.iter().map(|&f| a.iter().enumerate().map(|(k, &c)| c * (k as f64 * f).cos()).sum()).collect();
    finish(w, trunc)
}

fn barthann_h(m: usize, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let w = (0..m)
        .map(|n| {
            let fac = (n as f64 / (m - 1) as f64 - 0.5).abs();
            0.62 - 0.48 * fac + 0.38 * (2.0 * PI * fac).cos()
        })
        .collect();
    finish(w, trunc)
}

fn bartlett_h(m: usize, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let d = (m - 1) as f64;
    let w = (0..m)
        .map(|n| {
            let n = n as f64;
            if n <= d / 2.0 {
                2.0 * n / d
            } else {
                2.0 - 2.0 * n / d
            }
        })
        .collect();
    finish(w, trunc)
}

fn bohman_h(m: usize, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let x = linspace_h(-1.0, 1.0, m);
    let mut w = vec![0.0; m];
    for i in 1..m - 1 {
        let f = x[i].abs();
        w[i] = (1.0 - f) * (PI * f).cos() + (PI * f).sin() / PI;
    }
    finish(w, trunc)
}

fn cosine_h(m: usize, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    finish((0..m).map(|n| (PI / m as f64 * (n as f64 + 0.5)).sin()).collect(), trunc)
}

fn exponential_h(m: usize, center: Option<f64>, tau: f64, sym: bool) -> Result<Vec<f64>> {
    if sym && center.is_some() {
        return Err(Error::value("exponential", "If sym==True, center must be None."));
    }
    if m <= 1 {
        return Ok(vec![1.0; m]);
    }
    let (m, trunc) = extend(m, sym);
    let c = center.unwrap_or((m - 1) as f64 / 2.0);
    Ok(finish((0..m).map(|n| (-(n as f64 - c).abs() / tau).exp()).collect(), trunc))
}

fn gaussian_h(m: usize, std: f64, sym: bool) -> Vec<f64> {
    general_gaussian_h(m, 1.0, std, sym)
}

fn general_gaussian_h(m: usize, p: f64, sig: f64, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let w = (0..m)
        .map(|n| {
            let x = n as f64 - (m - 1) as f64 / 2.0;
            if p == 1.0 {
                (-x * x / (2.0 * sig * sig)).exp()
            } else {
                (-0.5 * (x / sig).abs().powf(2.0 * p)).exp()
            }
        })
        .collect();
    finish(w, trunc)
}

pub(crate) fn kaiser_h(m: usize, beta: f64, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let alpha = (m - 1) as f64 / 2.0;
    let d = i0_host(beta);
    let w = (0..m)
        .map(|n| {
            let r = (n as f64 - alpha) / alpha;
            i0_host(beta * (1.0 - r * r).max(0.0).sqrt()) / d
        })
        .collect();
    finish(w, trunc)
}

fn kbd_h(m: usize, beta: f64, sym: bool) -> Result<Vec<f64>> {
    if !sym {
        return Err(Error::value(
            "kaiser_bessel_derived",
            "Kaiser-Bessel Derived windows are only defined for symmetric shapes",
        ));
    }
    if m < 1 {
        return Ok(vec![]);
    }
    if m % 2 == 1 {
        return Err(Error::value(
            "kaiser_bessel_derived",
            "Kaiser-Bessel Derived windows are only defined for even number of points",
        ));
    }
    let k = kaiser_h(m / 2 + 1, beta, true);
    let mut csum = Vec::with_capacity(k.len());
    let mut s = 0.0;
    for v in &k {
        s += v;
        csum.push(s);
    }
    let half: Vec<f64> = csum[..csum.len() - 1].iter().map(|c| (c / s).sqrt()).collect();
    let mut w = half.clone();
    w.extend(half.iter().rev());
    Ok(w)
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        (PI * x).sin() / (PI * x)
    }
}

fn lanczos_h(m: usize, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let right =
        |start: usize| -> Vec<f64> { (start..m).map(|n| sinc(2.0 * n as f64 / (m - 1) as f64 - 1.0)).collect() };
    let w = if m % 2 == 0 {
        let wh = right(m / 2);
        let mut w: Vec<f64> = wh.iter().rev().copied().collect();
        w.extend(wh);
        w
    } else {
        let wh = right(m.div_ceil(2));
        let mut w: Vec<f64> = wh.iter().rev().copied().collect();
        w.push(1.0);
        w.extend(wh);
        w
    };
    finish(w, trunc)
}

fn parzen_h(m: usize, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let mf = m as f64;
    let w = (0..m)
        .map(|i| {
            let n = -(mf - 1.0) / 2.0 + i as f64;
            let a = n.abs();
            if a <= (mf - 1.0) / 4.0 {
                let r = a / (mf / 2.0);
                1.0 - 6.0 * r * r + 6.0 * r * r * r
            } else {
                2.0 * (1.0 - a / (mf / 2.0)).powi(3)
            }
        })
        .collect();
    finish(w, trunc)
}

fn triang_h(m: usize, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let half = m.div_ceil(2);
    let mut w: Vec<f64>;
    if m % 2 == 0 {
        w = (1..=half).map(|n| (2 * n - 1) as f64 / m as f64).collect();
        let r: Vec<f64> = w.iter().rev().copied().collect();
        w.extend(r);
    } else {
        w = (1..=half).map(|n| 2.0 * n as f64 / (m + 1) as f64).collect();
        let r: Vec<f64> = w[..half - 1].iter().rev().copied().collect();
        w.extend(r);
    }
    finish(w, trunc)
}

fn tukey_h(m: usize, alpha: f64, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    if alpha <= 0.0 {
        return vec![1.0; m];
    }
    if alpha >= 1.0 {
        return general_cosine_h(m, &[0.5, 0.5], sym);
    }
    let (m, trunc) = extend(m, sym);
    let d = (m - 1) as f64;
    let width = (alpha * d / 2.0).floor() as usize;
    let w = (0..m)
        .map(|n| {
            let nf = n as f64;
            if n <= width {
                0.5 * (1.0 + (PI * (-1.0 + 2.0 * nf / alpha / d)).cos())
            } else if n < m - width - 1 {
                1.0
            } else {
                0.5 * (1.0 + (PI * (-2.0 / alpha + 1.0 + 2.0 * nf / alpha / d)).cos())
            }
        })
        .collect();
    finish(w, trunc)
}

/// The DFT of a short complex sequence (host, O(n²); window lengths only).
fn dft(re: &[f64], im: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = re.len();
    let mut or = vec![0.0; n];
    let mut oi = vec![0.0; n];
    for k in 0..n {
        let (mut sr, mut si) = (0.0, 0.0);
        for t in 0..n {
            let ang = -2.0 * PI * ((k * t) % n) as f64 / n as f64;
            let (s, c) = ang.sin_cos();
            sr += re[t] * c - im[t] * s;
            si += re[t] * s + im[t] * c;
        }
        or[k] = sr;
        oi[k] = si;
    }
    (or, oi)
}

fn chebwin_h(m: usize, at: f64, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let order = (m - 1) as f64;
    let beta = ((10f64.powf(at.abs() / 20.0)).acosh() / order).cosh();
    let p: Vec<f64> = (0..m)
        .map(|i| {
            let x = beta * (PI * i as f64 / m as f64).cos();
            if x > 1.0 {
                (order * x.acosh()).cosh()
            } else if x < -1.0 {
                (2.0 * (m % 2) as f64 - 1.0) * (order * (-x).acosh()).cosh()
            } else {
                (order * x.acos()).cos()
            }
        })
        .collect();
    let mut w: Vec<f64>;
    if m % 2 == 1 {
        let (re, _) = dft(&p, &vec![0.0; m]);
        let n = m.div_ceil(2);
        w = re[1..n].iter().rev().copied().collect();
        w.extend_from_slice(&re[..n]);
    } else {
        let (pr, pi): (Vec<f64>, Vec<f64>) = p
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let (s, c) = (PI / m as f64 * i as f64).sin_cos();
                (v * c, v * s)
            })
            .unzip();
        let (re, _) = dft(&pr, &pi);
        let n = m / 2 + 1;
        w = re[1..n].iter().rev().copied().collect();
        w.extend_from_slice(&re[1..n]);
    }
    let mx = w.iter().cloned().fold(f64::MIN, f64::max);
    for v in &mut w {
        *v /= mx;
    }
    finish(w, trunc)
}

fn taylor_h(m: usize, nbar: usize, sll: f64, norm: bool, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let (m, trunc) = extend(m, sym);
    let b = 10f64.powf(sll / 20.0);
    let a = b.acosh() / PI;
    let nb = nbar as f64;
    let s2 = nb * nb / (a * a + (nb - 0.5) * (nb - 0.5));
    let ma: Vec<f64> = (1..nbar).map(|v| v as f64).collect();
    let fm: Vec<f64> = (0..ma.len())
        .map(|mi| {
            let m2 = ma[mi] * ma[mi];
            let sign = if mi % 2 == 0 { 1.0 } else { -1.0 };
            let numer: f64 =
                sign * ma.iter().map(|&k| 1.0 - m2 / s2 / (a * a + (k - 0.5) * (k - 0.5))).product::<f64>();
            let d1: f64 = ma[..mi].iter().map(|&k| 1.0 - m2 / (k * k)).product();
            let d2: f64 = ma[mi + 1..].iter().map(|&k| 1.0 - m2 / (k * k)).product();
            numer / (2.0 * d1 * d2)
        })
        .collect();
    let mf = m as f64;
    let wfun = |n: f64| -> f64 {
        1.0 + 2.0 * fm.iter().zip(&ma).map(|(f, k)| f * (2.0 * PI * k * (n - mf / 2.0 + 0.5) / mf).cos()).sum::<f64>()
    };
    let mut w: Vec<f64> = (0..m).map(|n| wfun(n as f64)).collect();
    if norm {
        let scale = 1.0 / wfun((mf - 1.0) / 2.0);
        for v in &mut w {
            *v *= scale;
        }
    }
    finish(w, trunc)
}

/// The eigenvector of the largest eigenvalue of the symmetric tridiagonal matrix (`d`, `e`):
/// Sturm-sequence bisection for the eigenvalue, then inverse iteration.
fn top_eigvec_tridiag(d: &[f64], e: &[f64]) -> Vec<f64> {
    let n = d.len();
    let count_below = |x: f64| -> usize {
        // number of eigenvalues < x
        let mut cnt = 0;
        let mut q = d[0] - x;
        if q < 0.0 {
            cnt += 1;
        }
        for i in 1..n {
            let qq = if q == 0.0 { f64::EPSILON * (e[i - 1].abs() + 1e-300) } else { q };
            q = d[i] - x - e[i - 1] * e[i - 1] / qq;
            if q < 0.0 {
                cnt += 1;
            }
        }
        cnt
    };
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for i in 0..n {
        let r = if i > 0 { e[i - 1].abs() } else { 0.0 } + if i + 1 < n { e[i].abs() } else { 0.0 };
        lo = lo.min(d[i] - r);
        hi = hi.max(d[i] + r);
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if count_below(mid) >= n {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let lam = hi + (hi.abs() + 1.0) * 1e-14;
    // inverse iteration: solve (T - lam I) x = b with Gaussian elimination (partial pivoting)
    let mut x = vec![1.0; n];
    for _ in 0..4 {
        x = solve_tridiag(d, e, lam, &x);
        let nrm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        for v in &mut x {
            *v /= nrm;
        }
    }
    x
}

fn solve_tridiag(d: &[f64], e: &[f64], lam: f64, b: &[f64]) -> Vec<f64> {
    let n = d.len();
    // banded storage with partial pivoting: each row holds sub, diag, sup and a second sup
    let mut sub: Vec<f64> = (0..n).map(|i| if i > 0 { e[i - 1] } else { 0.0 }).collect();
    let mut dia: Vec<f64> = d.iter().map(|v| v - lam).collect();
    let mut sup: Vec<f64> = (0..n).map(|i| if i + 1 < n { e[i] } else { 0.0 }).collect();
    let mut sup2 = vec![0.0; n];
    let mut rhs = b.to_vec();
    for i in 0..n.saturating_sub(1) {
        // pivot between row i and row i+1 on column i
        if sub[i + 1].abs() > dia[i].abs() {
            // swap rows i and i+1
            let (r0d, r0s, r0s2, r0b) = (dia[i], sup[i], sup2[i], rhs[i]);
            dia[i] = sub[i + 1];
            sup[i] = dia[i + 1];
            sup2[i] = sup[i + 1];
            rhs[i] = rhs[i + 1];
            sub[i + 1] = r0d;
            dia[i + 1] = r0s;
            sup[i + 1] = r0s2;
            rhs[i + 1] = r0b;
        }
        let piv = if dia[i] == 0.0 { 1e-300 } else { dia[i] };
        let f = sub[i + 1] / piv;
        dia[i + 1] -= f * sup[i];
        sup[i + 1] -= f * sup2[i];
        rhs[i + 1] -= f * rhs[i];
        sub[i + 1] = 0.0;
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut s = rhs[i];
        if i + 1 < n {
            s -= sup[i] * x[i + 1];
        }
        if i + 2 < n {
            s -= sup2[i] * x[i + 2];
        }
        let piv = if dia[i] == 0.0 { 1e-300 } else { dia[i] };
        x[i] = s / piv;
    }
    x
}

fn dpss_h(m: usize, nw: f64, sym: bool) -> Result<Vec<f64>> {
    if m <= 1 {
        return Ok(vec![1.0; m]);
    }
    let (m, trunc) = extend(m, sym);
    if nw <= 0.0 {
        return Err(Error::value("dpss", format!("NW must be positive, got {nw}")));
    }
    if nw >= m as f64 / 2.0 {
        return Err(Error::value("dpss", "NW must be less than M/2."));
    }
    let w = nw / m as f64;
    let c = (2.0 * PI * w).cos();
    let d: Vec<f64> = (0..m)
        .map(|i| {
            let v = (m as f64 - 1.0 - 2.0 * i as f64) / 2.0;
            v * v * c
        })
        .collect();
    let e: Vec<f64> = (1..m).map(|i| i as f64 * (m - i) as f64 / 2.0).collect();
    let mut v = top_eigvec_tridiag(&d, &e);
    if v.iter().sum::<f64>() < 0.0 {
        for x in &mut v {
            *x = -*x;
        }
    }
    let mx = v.iter().cloned().fold(f64::MIN, f64::max);
    let corr = if m % 2 == 0 { (m * m) as f64 / ((m * m) as f64 + nw) } else { 1.0 };
    for x in &mut v {
        *x = *x / mx * corr;
    }
    Ok(finish(v, trunc))
}

macro_rules! plain_window {
    ($name:ident, $variant:expr, $doc:literal) => {
        #[doc = $doc]
        pub fn $name(m: usize, sym: bool) -> Result<Array> {
            Array::from_vec($variant.samples(m, sym)?)
        }
    };
}

plain_window!(barthann, Window::Barthann, "The modified Bartlett-Hann window.");
plain_window!(bartlett, Window::Bartlett, "The Bartlett (triangular, zero at the ends) window.");
plain_window!(blackman, Window::Blackman, "The Blackman window (cosine sum 0.42, 0.5, 0.08).");
plain_window!(blackmanharris, Window::Blackmanharris, "The minimum 4-term Blackman-Harris window.");
plain_window!(bohman, Window::Bohman, "The Bohman window.");
plain_window!(boxcar, Window::Boxcar, "The rectangular window.");
plain_window!(cosine, Window::Cosine, "The simple cosine (sine) window.");
plain_window!(flattop, Window::Flattop, "The flat top window.");
plain_window!(hamming, Window::Hamming, "The Hamming window.");
plain_window!(hann, Window::Hann, "The Hann window.");
plain_window!(lanczos, Window::Lanczos, "The Lanczos (sinc) window.");
plain_window!(nuttall, Window::Nuttall, "Nuttall's minimum 4-term Blackman-Harris window.");
plain_window!(parzen, Window::Parzen, "The Parzen window.");
plain_window!(triang, Window::Triang, "The triangular window (non-zero ends).");

/// The Dolph-Chebyshev window with attenuation `at` dB.
pub fn chebwin(m: usize, at: f64, sym: bool) -> Result<Array> {
    Array::from_vec(chebwin_h(m, at, sym))
}

/// The first discrete prolate spheroidal (Slepian) sequence of half-bandwidth `nw`.
pub fn dpss(m: usize, nw: f64, sym: bool) -> Result<Array> {
    Array::from_vec(dpss_h(m, nw, sym)?)
}

/// The exponential (Poisson) window; `center` must be `None` when `sym`.
pub fn exponential(m: usize, center: Option<f64>, tau: f64, sym: bool) -> Result<Array> {
    Array::from_vec(exponential_h(m, center, tau, sym)?)
}

/// The Gaussian window of standard deviation `std`.
pub fn gaussian(m: usize, std: f64, sym: bool) -> Result<Array> {
    Array::from_vec(gaussian_h(m, std, sym))
}

/// The generalized cosine-sum window `Σ (-1)^k a_k cos(2πkn/(M-1))`.
pub fn general_cosine(m: usize, a: &[f64], sym: bool) -> Result<Array> {
    Array::from_vec(general_cosine_h(m, a, sym))
}

/// The generalized Gaussian window `exp(-½|n/σ|^{2p})`.
pub fn general_gaussian(m: usize, p: f64, sig: f64, sym: bool) -> Result<Array> {
    Array::from_vec(general_gaussian_h(m, p, sig, sym))
}

/// The generalized Hamming window `α - (1-α) cos(2πn/(M-1))`.
pub fn general_hamming(m: usize, alpha: f64, sym: bool) -> Result<Array> {
    Array::from_vec(general_cosine_h(m, &[alpha, 1.0 - alpha], sym))
}

/// The Kaiser window with shape `beta`.
pub fn kaiser(m: usize, beta: f64, sym: bool) -> Result<Array> {
    Array::from_vec(kaiser_h(m, beta, sym))
}

/// The Kaiser-Bessel derived window (even `M`, symmetric only, as SciPy).
pub fn kaiser_bessel_derived(m: usize, beta: f64, sym: bool) -> Result<Array> {
    Array::from_vec(kbd_h(m, beta, sym)?)
}

/// The Taylor window with `nbar` near sidelobes at `sll` dB, normalised to 1 at the centre
/// when `norm`.
pub fn taylor(m: usize, nbar: usize, sll: f64, norm: bool, sym: bool) -> Result<Array> {
    Array::from_vec(taylor_h(m, nbar, sll, norm, sym))
}

/// The Tukey (tapered cosine) window with taper fraction `alpha`.
pub fn tukey(m: usize, alpha: f64, sym: bool) -> Result<Array> {
    Array::from_vec(tukey_h(m, alpha, sym))
}
