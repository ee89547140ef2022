//! Filter order selection: SciPy's `buttord`, `cheb1ord`, `cheb2ord`, `ellipord`,
//! `kaiserord`, and `iirdesign` built on them.
//!
//! **Host work.** Like the designs they feed ([`super::design`]), these are a few scalar
//! formulas on the band edges and gains, run on the host in float64; `iirdesign` hands the
//! order and edges to [`iirfilter`], whose coefficients land on the current device.
//!
//! **Algorithms.** The classical order formulas for the analog low-pass prototype
//! (Oppenheim & Schafer, *Discrete-Time Signal Processing*, §7.2; Parks & Burrus, *Digital
//! Filter Design*, ch. 7): band edges of digital filters are prewarped by `tan(π w / 2)`,
//! each band type is mapped to the low-pass prototype's stopband edge `nat` (the "natural
//! frequency" ratio), and the order is the smallest integer meeting
//! `10^(gstop/10) − 1 ≥ (10^(gpass/10) − 1) · F(nat)²`, `F` the Butterworth, Chebyshev or
//! elliptic (`K(1/nat²) K'(ε²) / (K'(1/nat²) K(ε²))`, complete elliptic integrals by the
//! arithmetic–geometric mean) growth. For band-stop filters the passband edges are first
//! moved, one at a time, to minimise the (non-integer) order over the interval up to the
//! stopband edge — SciPy's procedure, with its bounded minimiser (Brent's golden-section and
//! parabolic search, Forsythe, Malcolm & Moler's `fmin`, `xatol = 1e-5`, 500 evaluations) —
//! so the edges agree with SciPy's (to rounding for Butterworth and Chebyshev; `ellipord`'s
//! band-stop edges to about 1e-7, the elliptic objective's last bits differing from SciPy's
//! Cephes integrals by enough to end the search a step apart, well inside its 1e-5
//! tolerance). The returned natural frequencies (`wn`) are SciPy's: the
//! Butterworth −3 dB frequencies, the Chebyshev I and elliptic passband edges, the
//! Chebyshev II frequencies where the response is `−gpass` dB, mapped back from the prototype.
//!
//! **Errors** are SciPy's: `gpass ≤ 0`, `gstop ≤ 0`, `gpass > gstop`, `fs` with an analog
//! filter, `wp`/`ws` of other lengths than one or two or of different lengths, and in
//! `iirdesign` also edges outside `(0, 1)` (`(0, fs/2)`), a passband not strictly inside the
//! stopband or the reverse, and a filter type without order selection (Bessel).

use std::f64::consts::PI;

use xp_backend_api::{Error, Result};

use super::design::{ellipk, ellipkm1, iirfilter, kaiser_beta, BType, FType, Filter, Output};

/// Which order formula a selection uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Butter,
    Cheby,
    Ellip,
}

/// The band type SciPy numbers 1 (low), 2 (high), 3 (stop), 4 (pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Band {
    Low,
    High,
    Stop,
    Pass,
}

fn validate_gpass_gstop(op: &str, gpass: f64, gstop: f64) -> Result<()> {
    if gpass <= 0.0 {
        return Err(Error::value(op, "gpass should be larger than 0.0"));
    }
    if gstop <= 0.0 {
        return Err(Error::value(op, "gstop should be larger than 0.0"));
    }
    if gpass > gstop {
        return Err(Error::value(op, "gpass should be smaller than gstop"));
    }
    Ok(())
}

/// SciPy's `_validate_wp_ws` (plus the length checks NumPy's broadcasting makes): the edges
/// scaled to half-cycles per sample when `fs` is given, and the band type.
fn validate_wp_ws(
    op: &str,
    wp: &[f64],
    ws: &[f64],
    fs: Option<f64>,
    analog: bool,
) -> Result<(Vec<f64>, Vec<f64>, Band)> {
    if wp.len() != ws.len() || !(1..=2).contains(&wp.len()) {
        return Err(Error::value(
            op,
            format!(
                "wp and ws must have one or two elements each, and the same shape, got ({},) and ({},)",
                wp.len(),
                ws.len()
            ),
        ));
    }
    let (mut wp, mut ws) = (wp.to_vec(), ws.to_vec());
    if let Some(fs) = fs {
        if analog {
            return Err(Error::value(op, "fs cannot be specified for an analog filter"));
        }
        wp.iter_mut().for_each(|w| *w = 2.0 * *w / fs);
        ws.iter_mut().for_each(|w| *w = 2.0 * *w / fs);
    }
    let high = wp[0] >= ws[0];
    let band = match (wp.len(), high) {
        (1, false) => Band::Low,
        (1, true) => Band::High,
        (_, false) => Band::Stop,
        (_, true) => Band::Pass,
    };
    Ok((wp, ws, band))
}

/// Digital edges prewarped to the analog axis (`tan(π w / 2)`); analog edges as given.
fn pre_warp(w: &[f64], analog: bool) -> Vec<f64> {
    if analog {
        w.to_vec()
    } else {
        w.iter().map(|v| (PI * v / 2.0).tan()).collect()
    }
}

/// `10^x − 1`, accurate for small `x`.
fn pow10m1(x: f64) -> f64 {
    (std::f64::consts::LN_10 * x).exp_m1()
}

/// The (non-integer) order of an analog band-stop filter whose passband edge `ind` is moved to
/// `wp` (SciPy's `band_stop_obj`).
fn band_stop_order(wp: f64, ind: usize, passb: [f64; 2], stopb: [f64; 2], gpass: f64, gstop: f64, kind: Kind) -> f64 {
    let mut p = passb;
    p[ind] = wp;
    let nat = stopb.iter().map(|&s| (s * (p[0] - p[1]) / (s * s - p[0] * p[1])).abs()).fold(f64::INFINITY, f64::min);
    match kind {
        Kind::Butter => {
            let gs = 10f64.powf(0.1 * gstop.abs());
            let gp = 10f64.powf(0.1 * gpass.abs());
            ((gs - 1.0) / (gp - 1.0)).log10() / (2.0 * nat.log10())
        }
        Kind::Cheby => {
            let gs = 10f64.powf(0.1 * gstop.abs());
            let gp = 10f64.powf(0.1 * gpass.abs());
            ((gs - 1.0) / (gp - 1.0)).sqrt().acosh() / nat.acosh()
        }
        Kind::Ellip => {
            let gs = 10f64.powf(0.1 * gstop);
            let gp = 10f64.powf(0.1 * gpass);
            let arg1 = ((gp - 1.0) / (gs - 1.0)).sqrt();
            let arg0 = 1.0 / nat;
            let (d00, d01) = (ellipk(arg0 * arg0), ellipk(1.0 - arg0 * arg0));
            let (d10, d11) = (ellipk(arg1 * arg1), ellipk(1.0 - arg1 * arg1));
            d00 * d11 / (d01 * d10)
        }
    }
}

/// The minimiser of `f` on `[x1, x2]` by Brent's method without derivatives (golden-section
/// steps, parabolic interpolation where it is acceptable), stopped when the bracket is within
/// `2 (√ε |x| + xatol / 3)` of the best point or after `maxfun` evaluations: the procedure of
/// SciPy's `fminbound`, step for step.
fn fminbound(f: impl Fn(f64) -> f64, x1: f64, x2: f64, xatol: f64, maxfun: usize) -> f64 {
    let sqrt_eps = 2.2e-16f64.sqrt();
    let golden_mean = 0.5 * (3.0 - 5f64.sqrt());
    let (mut a, mut b) = (x1, x2);
    let mut fulc = a + golden_mean * (b - a);
    let (mut nfc, mut xf) = (fulc, fulc);
    let (mut rat, mut e) = (0.0f64, 0.0f64);
    let mut fx = f(xf);
    let mut num = 1;
    let (mut ffulc, mut fnfc) = (fx, fx);
    let mut xm = 0.5 * (a + b);
    let mut tol1 = sqrt_eps * xf.abs() + xatol / 3.0;
    let mut tol2 = 2.0 * tol1;
    let sign = |v: f64| -> f64 {
        if v > 0.0 {
            1.0
        } else if v < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    while (xf - xm).abs() > tol2 - 0.5 * (b - a) {
        let mut golden = true;
        if e.abs() > tol1 {
            golden = false;
            let mut r = (xf - nfc) * (fx - ffulc);
            let mut q = (xf - fulc) * (fx - fnfc);
            let mut p = (xf - fulc) * q - (xf - nfc) * r;
            q = 2.0 * (q - r);
            if q > 0.0 {
                p = -p;
            }
            q = q.abs();
            r = e;
            e = rat;
            if p.abs() < (0.5 * q * r).abs() && p > q * (a - xf) && p < q * (b - xf) {
                rat = p / q;
                let x = xf + rat;
                if (x - a) < tol2 || (b - x) < tol2 {
                    let si = sign(xm - xf) + if xm - xf == 0.0 { 1.0 } else { 0.0 };
                    rat = tol1 * si;
                }
            } else {
                golden = true;
            }
        }
        if golden {
            e = if xf >= xm { a - xf } else { b - xf };
            rat = golden_mean * e;
        }
        let si = sign(rat) + if rat == 0.0 { 1.0 } else { 0.0 };
        let x = xf + si * rat.abs().max(tol1);
        let fu = f(x);
        num += 1;
        if fu <= fx {
            if x >= xf {
                a = xf;
            } else {
                b = xf;
            }
            (fulc, ffulc) = (nfc, fnfc);
            (nfc, fnfc) = (xf, fx);
            (xf, fx) = (x, fu);
        } else {
            if x < xf {
                a = x;
            } else {
                b = x;
            }
            if fu <= fnfc || nfc == xf {
                (fulc, ffulc) = (nfc, fnfc);
                (nfc, fnfc) = (x, fu);
            } else if fu <= ffulc || fulc == xf || fulc == nfc {
                (fulc, ffulc) = (x, fu);
            }
        }
        xm = 0.5 * (a + b);
        tol1 = sqrt_eps * xf.abs() + xatol / 3.0;
        tol2 = 2.0 * tol1;
        if num >= maxfun {
            break;
        }
    }
    xf
}

/// SciPy's `_find_nat_freq`: the prototype's stopband edge and the (band-stop: moved)
/// passband edges.
fn nat_freq(stopb: &[f64], passb: &[f64], gpass: f64, gstop: f64, band: Band, kind: Kind) -> (f64, Vec<f64>) {
    let min_abs = |v: &[f64]| v.iter().map(|x| x.abs()).fold(f64::INFINITY, f64::min);
    match band {
        Band::Low => (stopb[0] / passb[0], passb.to_vec()),
        Band::High => (passb[0] / stopb[0], passb.to_vec()),
        Band::Stop => {
            let (p, s) = ([passb[0], passb[1]], [stopb[0], stopb[1]]);
            let obj0 = |w: f64| band_stop_order(w, 0, p, s, gpass, gstop, kind);
            let obj1 = |w: f64| band_stop_order(w, 1, p, s, gpass, gstop, kind);
            let wp0 = fminbound(obj0, p[0], s[0] - 1e-12, 1e-5, 500);
            let wp1 = fminbound(obj1, s[1] + 1e-12, p[1], 1e-5, 500);
            let pb = vec![wp0, wp1];
            let nat: Vec<f64> = s.iter().map(|&v| v * (pb[0] - pb[1]) / (v * v - pb[0] * pb[1])).collect();
            (min_abs(&nat), pb)
        }
        Band::Pass => {
            let nat: Vec<f64> =
                stopb.iter().map(|&v| (v * v - passb[0] * passb[1]) / (v * (passb[0] - passb[1]))).collect();
            (min_abs(&nat), passb.to_vec())
        }
    }
}

/// SciPy's `_postprocess_wn`: back to the digital axis (`atan(W) · 2 / π`) and to `fs` units.
fn postprocess_wn(wn: &[f64], analog: bool, fs: Option<f64>) -> Vec<f64> {
    wn.iter()
        .map(|&w| {
            let w = if analog { w } else { w.atan() * 2.0 / PI };
            match fs {
                Some(fs) => w * fs / 2.0,
                None => w,
            }
        })
        .collect()
}

/// An order from a real formula value: its ceiling, as SciPy's `int(ceil(...))`, or an error
/// when it is not a finite non-negative number (edges that leave no transition band).
fn order_of(op: &str, v: f64) -> Result<usize> {
    let c = v.ceil();
    if !c.is_finite() || c < 0.0 || c > u32::MAX as f64 {
        return Err(Error::value(op, format!("the band edges and gains give no valid filter order (got {v})")));
    }
    Ok(c as usize)
}

/// The common prelude: checks, prewarped edges, band type, prototype stopband edge.
struct Spec {
    band: Band,
    passb: Vec<f64>,
    nat: f64,
}

#[allow(clippy::too_many_arguments)]
fn spec(
    op: &str,
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
    kind: Kind,
) -> Result<Spec> {
    validate_gpass_gstop(op, gpass, gstop)?;
    let (wp, ws, band) = validate_wp_ws(op, wp, ws, fs, analog)?;
    let (passb, stopb) = (pre_warp(&wp, analog), pre_warp(&ws, analog));
    let (nat, passb) = nat_freq(&stopb, &passb, gpass, gstop, band, kind);
    Ok(Spec { band, passb, nat })
}

/// SciPy's `buttord(wp, ws, gpass, gstop, analog=False, fs=None)`: the lowest order of a
/// Butterworth filter losing at most `gpass` dB in the passband and attenuating at least
/// `gstop` dB in the stopband, and its natural (−3 dB) frequencies `wn` (one or two, in the
/// units of `wp`). `wp`, `ws`: one edge each (low-pass if `wp < ws`, else high-pass) or two
/// (band-pass when the passband lies inside the stopband, else band-stop).
///
/// ```
/// # use xp_array::signal::buttord;
/// // SciPy: buttord(0.2, 0.3, 3, 40) == (11, 0.2000403906692605)
/// let (n, wn) = buttord(&[0.2], &[0.3], 3.0, 40.0, false, None).unwrap();
/// assert_eq!(n, 11);
/// assert!((wn[0] - 0.2000403906692605).abs() < 1e-12);
/// ```
pub fn buttord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
) -> Result<(usize, Vec<f64>)> {
    let op = "buttord";
    let Spec { band, passb, nat } = spec(op, wp, ws, gpass, gstop, analog, fs, Kind::Butter)?;
    let gs = 10f64.powf(0.1 * gstop.abs());
    let gp = 10f64.powf(0.1 * gpass.abs());
    let ord = order_of(op, ((gs - 1.0) / (gp - 1.0)).log10() / (2.0 * nat.log10()))?;
    let w0 = if ord == 0 { 1.0 } else { (gp - 1.0).powf(-1.0 / (2.0 * ord as f64)) };
    let wn = match band {
        Band::Low => vec![w0 * passb[0]],
        Band::High => vec![passb[0] / w0],
        Band::Stop => {
            let d = passb[1] - passb[0];
            let discr = (d * d + 4.0 * w0 * w0 * passb[0] * passb[1]).sqrt();
            let mut v = [((d + discr) / (2.0 * w0)).abs(), ((d - discr) / (2.0 * w0)).abs()];
            v.sort_by(f64::total_cmp);
            v.to_vec()
        }
        Band::Pass => {
            let d = passb[1] - passb[0];
            let mut v: Vec<f64> = [-w0, w0]
                .iter()
                .map(|&w| (-w * d / 2.0 + (w * w / 4.0 * d * d + passb[0] * passb[1]).sqrt()).abs())
                .collect();
            v.sort_by(f64::total_cmp);
            v
        }
    };
    Ok((ord, postprocess_wn(&wn, analog, fs)))
}

/// The Chebyshev order for a prototype stopband edge `nat`.
fn cheby_order(op: &str, gpass: f64, gstop: f64, nat: f64) -> Result<(usize, f64)> {
    let gs = 10f64.powf(0.1 * gstop.abs());
    let gp = 10f64.powf(0.1 * gpass.abs());
    let v_pass_stop = ((gs - 1.0) / (gp - 1.0)).sqrt().acosh();
    Ok((order_of(op, v_pass_stop / nat.acosh())?, v_pass_stop))
}

/// SciPy's `cheb1ord(wp, ws, gpass, gstop, analog=False, fs=None)`: the lowest Chebyshev
/// type I order meeting the specification (see [`buttord`]), and its natural frequencies
/// (the passband edges; band-stop edges moved as SciPy's).
pub fn cheb1ord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
) -> Result<(usize, Vec<f64>)> {
    let op = "cheb1ord";
    let Spec { passb, nat, .. } = spec(op, wp, ws, gpass, gstop, analog, fs, Kind::Cheby)?;
    let (ord, _) = cheby_order(op, gpass, gstop, nat)?;
    Ok((ord, postprocess_wn(&passb, analog, fs)))
}

/// SciPy's `cheb2ord(wp, ws, gpass, gstop, analog=False, fs=None)`: the lowest Chebyshev
/// type II order meeting the specification (see [`buttord`]), and the frequencies where
/// that filter's response is `−gpass` dB.
pub fn cheb2ord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
) -> Result<(usize, Vec<f64>)> {
    let op = "cheb2ord";
    let Spec { band, passb, nat } = spec(op, wp, ws, gpass, gstop, analog, fs, Kind::Cheby)?;
    let (ord, v_pass_stop) = cheby_order(op, gpass, gstop, nat)?;
    let new_freq = 1.0 / (v_pass_stop / ord as f64).cosh();
    let (p0, p1) = (passb[0], passb.get(1).copied().unwrap_or(0.0));
    let wn = match band {
        Band::Low => vec![p0 / new_freq],
        Band::High => vec![p0 * new_freq],
        Band::Stop => {
            let n0 = new_freq / 2.0 * (p0 - p1) + (new_freq * new_freq * (p1 - p0) * (p1 - p0) / 4.0 + p1 * p0).sqrt();
            vec![n0, p1 * p0 / n0]
        }
        Band::Pass => {
            let n0 = 1.0 / (2.0 * new_freq) * (p0 - p1)
                + ((p1 - p0) * (p1 - p0) / (4.0 * new_freq * new_freq) + p1 * p0).sqrt();
            vec![n0, p0 * p1 / n0]
        }
    };
    Ok((ord, postprocess_wn(&wn, analog, fs)))
}

/// SciPy's `ellipord(wp, ws, gpass, gstop, analog=False, fs=None)`: the lowest elliptic
/// (Cauer) order meeting the specification (see [`buttord`]), and its natural frequencies
/// (the passband edges; band-stop edges moved as SciPy's).
pub fn ellipord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
) -> Result<(usize, Vec<f64>)> {
    let op = "ellipord";
    let Spec { passb, nat, .. } = spec(op, wp, ws, gpass, gstop, analog, fs, Kind::Ellip)?;
    let arg1_sq = pow10m1(0.1 * gpass) / pow10m1(0.1 * gstop);
    let arg0 = 1.0 / nat;
    let (d00, d01) = (ellipk(arg0 * arg0), ellipkm1(arg0 * arg0));
    let (d10, d11) = (ellipk(arg1_sq), ellipkm1(arg1_sq));
    let ord = order_of(op, d00 * d11 / (d01 * d10))?;
    Ok((ord, postprocess_wn(&passb, analog, fs)))
}

/// SciPy's `kaiserord(ripple, width)`: the number of taps and the Kaiser window's `beta` for
/// an FIR filter with `ripple` dB of error (its absolute value is used) and a transition
/// `width` (a fraction of Nyquist), by Kaiser's formula (Oppenheim & Schafer, pp. 475–476).
/// A ripple below 8 dB is outside the formula's range: an error, as SciPy's.
pub fn kaiserord(ripple: f64, width: f64) -> Result<(usize, f64)> {
    let op = "kaiserord";
    let a = ripple.abs();
    if a < 8.0 {
        return Err(Error::value(
            op,
            format!("Requested maximum ripple attenuation {a:.6} is too small for the Kaiser formula."),
        ));
    }
    let numtaps = (a - 7.95) / 2.285 / (PI * width) + 1.0;
    Ok((order_of(op, numtaps)?, kaiser_beta(a)))
}

/// The IIR family `iirdesign` designs (SciPy's `ftype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DesignFamily {
    /// Butterworth (`'butter'`).
    Butter,
    /// Chebyshev I (`'cheby1'`), ripple `gpass`.
    Cheby1,
    /// Chebyshev II (`'cheby2'`), attenuation `gstop`.
    Cheby2,
    /// Elliptic (`'ellip'`, SciPy's default).
    #[default]
    Ellip,
}

impl std::str::FromStr for DesignFamily {
    type Err = Error;
    fn from_str(s: &str) -> Result<DesignFamily> {
        match s {
            "butter" | "butterworth" => Ok(DesignFamily::Butter),
            "cheby1" | "chebyshev1" | "chebyshevi" => Ok(DesignFamily::Cheby1),
            "cheby2" | "chebyshev2" | "chebyshevii" => Ok(DesignFamily::Cheby2),
            "ellip" | "elliptic" | "cauer" => Ok(DesignFamily::Ellip),
            "bessel" => Err(Error::value("iirdesign", "bessel does not have order selection. Use iirfilter function.")),
            _ => Err(Error::value("iirdesign", format!("Invalid IIR filter type: {s}"))),
        }
    }
}

/// SciPy's `iirdesign(wp, ws, gpass, gstop, analog=False, ftype='ellip', output='ba',
/// fs=None)`: the lowest-order filter of `ftype` meeting the specification (order and
/// natural frequencies by [`buttord`], [`cheb1ord`], [`cheb2ord`] or [`ellipord`]), designed
/// by [`iirfilter`] with `rp = gpass`, `rs = gstop`. Edges must lie in `(0, 1)` (digital,
/// or `(0, fs/2)` with `fs`) and for two-edge specifications the passband strictly inside the
/// stopband or the reverse, as SciPy checks.
#[allow(clippy::too_many_arguments)]
pub fn iirdesign(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    ftype: DesignFamily,
    output: Output,
    fs: Option<f64>,
) -> Result<Filter> {
    let op = "iirdesign";
    validate_gpass_gstop(op, gpass, gstop)?;
    if wp.len() != ws.len() || !(1..=2).contains(&wp.len()) {
        return Err(Error::value(
            op,
            format!(
                "wp and ws must have one or two elements each, and the same shape, got ({},) and ({},)",
                wp.len(),
                ws.len()
            ),
        ));
    }
    if wp.iter().chain(ws).any(|&v| v <= 0.0) {
        return Err(Error::value(op, "Values for wp, ws must be greater than 0"));
    }
    if !analog {
        match fs {
            None if wp.iter().chain(ws).any(|&v| v >= 1.0) => {
                return Err(Error::value(op, "Values for wp, ws must be less than 1"));
            }
            Some(fs) if wp.iter().chain(ws).any(|&v| v >= fs / 2.0) => {
                return Err(Error::value(
                    op,
                    format!("Values for wp, ws must be less than fs/2 (fs={fs} -> fs/2={})", fs / 2.0),
                ));
            }
            _ => {}
        }
    }
    if wp.len() == 2 && !((ws[0] < wp[0] && wp[1] < ws[1]) || (wp[0] < ws[0] && ws[1] < wp[1])) {
        return Err(Error::value(op, "Passband must lie strictly inside stopband or vice versa"));
    }
    let btype = match (wp.len(), wp[0] >= ws[0]) {
        (1, false) => BType::Lowpass,
        (1, true) => BType::Highpass,
        (_, false) => BType::Bandstop,
        (_, true) => BType::Bandpass,
    };
    let (n, wn, family) = match ftype {
        DesignFamily::Butter => {
            let (n, wn) = buttord(wp, ws, gpass, gstop, analog, fs)?;
            (n, wn, FType::Butter)
        }
        DesignFamily::Cheby1 => {
            let (n, wn) = cheb1ord(wp, ws, gpass, gstop, analog, fs)?;
            (n, wn, FType::Cheby1 { rp: gpass })
        }
        DesignFamily::Cheby2 => {
            let (n, wn) = cheb2ord(wp, ws, gpass, gstop, analog, fs)?;
            (n, wn, FType::Cheby2 { rs: gstop })
        }
        DesignFamily::Ellip => {
            let (n, wn) = ellipord(wp, ws, gpass, gstop, analog, fs)?;
            (n, wn, FType::Ellip { rp: gpass, rs: gstop })
        }
    };
    iirfilter(n, &wn, family, btype, analog, output, fs)
}
