//! SciPy's `linalg.expm`: the matrix exponential by scaling and squaring with Padé
//! approximants, after A. H. Al-Mohy and N. J. Higham, "A New Scaling and Squaring Algorithm
//! for the Matrix Exponential", SIAM J. Matrix Anal. Appl. 31(3), 2009 (their Algorithm 5.1).
//!
//! - **Choice of degree and scaling.** The degree `m` (3, 5, 7, 9 or 13) and the number of
//!   squarings `s` follow the paper: `d_k = ||A^k||_1^(1/k)` for `k = 4, 6, 8, 10` bound the
//!   backward error of the `[m/m]` approximant (`θ_m` of the paper's Table 3.1), and the
//!   correction `ℓ(A, m)` (the paper's (5.2)), which avoids overscaling, uses
//!   `||(|A|)^(2m+1)||_1`. xp computes these 1-norms exactly rather than estimating them:
//!   `A^4, A^6, A^8, A^10` by four products, `||(|A|)^k||_1` by 27 vector-matrix products
//!   `v <- v |A|` from `v = 1^T`, normalised at each step so that nothing overflows.
//! - **On the device.** The products are `matmul`s and the approximant `q_m(A)^-1 p_m(A)` one
//!   batched LU solve; the host reads only a few norms per matrix (one synchronisation) to pick
//!   `m` and `s`. In a stack `(..., N, N)` each matrix gets its own `s` (matrices needing fewer
//!   squarings skip the later ones), and the stack shares the largest `m` picked, which is at
//!   least as accurate for the others.
//! - **dtypes.** float32 and complex64 stay in their precision (with the double-precision `θ_m`,
//!   which are conservative there), integers and bool become float64; the answer is complex
//!   only for complex `a`. SciPy's special handling of upper triangular `a` is not reproduced:
//!   the general algorithm is used.

use xp_backend_api::{DType, Error, Result};

use crate::Array;

use super::products::matmul;
use super::solve::solver_dtype;

/// The paper's `θ_m` for `m = 3, 5, 7, 9, 13` (Table 3.1, double precision).
#[allow(clippy::excessive_precision)] // the paper's digits, kept as printed
const THETA: [(usize, f64); 5] = [
    (3, 1.495585217958292e-2),
    (5, 2.539398330063230e-1),
    (7, 9.504178996162932e-1),
    (9, 2.097847961257068e0),
    (13, 4.25),
];

/// The coefficients `b_0, ..., b_m` of the `[m/m]` Padé approximant's numerator.
fn pade_coefficients(m: usize) -> &'static [f64] {
    match m {
        3 => &[120.0, 60.0, 12.0, 1.0],
        5 => &[30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0],
        7 => &[17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0],
        9 => &[
            17643225600.0,
            8821612800.0,
            2075673600.0,
            302702400.0,
            30270240.0,
            2162160.0,
            110880.0,
            3960.0,
            90.0,
            1.0,
        ],
        _ => &[
            64764752532480000.0,
            32382376266240000.0,
            7771770303897600.0,
            1187353796428800.0,
            129060195264000.0,
            10559470521600.0,
            670442572800.0,
            33522128640.0,
            1323241920.0,
            40840800.0,
            960960.0,
            16380.0,
            182.0,
            1.0,
        ],
    }
}

/// `log2 |c_(2m+1)|`, the leading coefficient of `exp(x) - r_m(x)`:
/// `c = (m!)^2 / ((2m)! (2m+1)!)`.
fn log2_error_coefficient(m: usize) -> f64 {
    let lf = |k: usize| (1..=k).map(|i| (i as f64).log2()).sum::<f64>();
    2.0 * lf(m) - lf(2 * m) - lf(2 * m + 1)
}

/// The 1-norm of each matrix of a stack (`(...)`, float64).
fn norm1(x: &Array) -> Result<Array> {
    x.abs()?.astype(DType::F64)?.sum(Some(&[-2]), false)?.max(Some(&[-1]), false)
}

/// What the host needs per matrix: `||A||_1`, `||A^k||_1` (k = 4, 6, 8, 10) and
/// `log2 ||(|A|)^k||_1` (k = 7, 11, 15, 19, 27).
struct Norms {
    a: f64,
    powers: [f64; 4],
    log2_abs: [f64; 5],
}

/// `ℓ(2^-s A, m)` of the paper (its (5.2)), from the norms of `A`.
fn ell(nm: &Norms, m: usize, s: i64) -> i64 {
    let k = [3, 5, 7, 9, 13].iter().position(|&d| d == m).expect("a Padé degree");
    let log2_abs = nm.log2_abs[k];
    if nm.a == 0.0 || log2_abs == f64::NEG_INFINITY {
        return 0;
    }
    // α = |c| ||(|2^-s A|)^(2m+1)|| / ||2^-s A||, in log2; u = 2^-53.
    let log2_alpha = log2_error_coefficient(m) + log2_abs - nm.a.log2() - (2 * m) as f64 * s as f64;
    (((log2_alpha + 53.0) / (2 * m) as f64).ceil() as i64).max(0)
}

/// The paper's Algorithm 5.1 choice of `(m, s)` for one matrix.
fn choose(nm: &Norms) -> (usize, i64) {
    if !nm.a.is_finite() || nm.powers.iter().any(|p| !p.is_finite()) {
        return (13, 0);
    }
    let d = |k: usize| nm.powers[k].powf(1.0 / [4.0, 6.0, 8.0, 10.0][k]);
    let (d4, d6, d8, d10) = (d(0), d(1), d(2), d(3));
    let eta1 = d4.max(d6);
    if eta1 <= THETA[0].1 && ell(nm, 3, 0) == 0 {
        return (3, 0);
    }
    if eta1 <= THETA[1].1 && ell(nm, 5, 0) == 0 {
        return (5, 0);
    }
    let eta3 = d6.max(d8);
    for &(m, theta) in &THETA[2..4] {
        if eta3 <= theta && ell(nm, m, 0) == 0 {
            return (m, 0);
        }
    }
    let eta4 = d8.max(d10);
    let eta5 = eta3.min(eta4);
    let mut s = ((eta5 / THETA[4].1).log2().ceil() as i64).max(0);
    s += ell(nm, 13, s);
    (13, s.min(2000))
}

/// SciPy's `linalg.expm(a)`: the exponential of each matrix of the stack `a` (`(..., N, N)`),
/// by Al-Mohy and Higham's scaling and squaring (module docs). A non-square `a` is `LinAlg`
/// (SciPy's "Last 2 dimensions of the array must be square").
pub fn expm(a: &Array) -> Result<Array> {
    let op = "expm";
    let nd = a.ndim();
    if nd < 2 || a.shape()[nd - 1] != a.shape()[nd - 2] {
        return Err(Error::LinAlg {
            op: op.into(),
            reason: format!("Last 2 dimensions of the array must be square, got shape {:?}", a.shape()),
        });
    }
    let dtype = solver_dtype(op, a.dtype())?;
    let a = a.astype_if(dtype)?;
    let n = a.shape()[nd - 1];
    let batch_shape = a.shape()[..nd - 2].to_vec();
    let batch: usize = batch_shape.iter().product();
    if n == 0 || batch == 0 {
        return a.copy();
    }
    if n == 1 {
        return a.exp();
    }
    let dev = a.device_arc();
    // Powers and norms (module docs), all read in one go.
    let a2 = matmul(&a, &a)?;
    let a4 = matmul(&a2, &a2)?;
    let a6 = matmul(&a2, &a4)?;
    let a8 = matmul(&a4, &a4)?;
    let a10 = matmul(&a4, &a6)?;
    let mut cols = vec![norm1(&a)?, norm1(&a4)?, norm1(&a6)?, norm1(&a8)?, norm1(&a10)?];
    let abs_a = a.abs()?.astype(DType::F64)?;
    let mut v = Array::full_on(&dev, &[&batch_shape[..], &[1, n]].concat(), 1, DType::F64)?;
    let mut log2_norm = Array::full_on(&dev, &batch_shape, 0, DType::F64)?;
    for k in 1..=27 {
        let w = matmul(&v, &abs_a)?;
        let c = w.max(Some(&[-2, -1]), false)?;
        log2_norm = log2_norm.add(&c.log2()?)?;
        // A zero matrix: keep v at zero (its norms are -inf in log2).
        let safe = crate::where_(&c.gt(0)?, (&c).into(), 1.0.into())?;
        v = w.div(&safe.expand_dims(-1)?.expand_dims(-1)?)?;
        if [7, 11, 15, 19, 27].contains(&k) {
            cols.push(log2_norm.clone());
        }
    }
    let refs: Vec<&Array> = cols.iter().collect();
    let table: Vec<f64> = crate::stack(&refs, -1)?.reshape(&[batch as isize, 10])?.to_vec()?;
    let plans: Vec<(usize, i64)> = table
        .chunks(10)
        .map(|r| choose(&Norms { a: r[0], powers: [r[1], r[2], r[3], r[4]], log2_abs: [r[5], r[6], r[7], r[8], r[9]] }))
        .collect();
    let m = plans.iter().map(|p| p.0).max().unwrap_or(3);
    let s_max = plans.iter().map(|p| p.1).max().unwrap_or(0);
    // Scale each matrix by 2^-s_i.
    let (a, a2, a4, a6) = if s_max > 0 {
        let scales: Vec<f64> = plans.iter().map(|p| (-p.1 as f64).exp2()).collect();
        let mut sshape: Vec<isize> = batch_shape.iter().map(|&d| d as isize).collect();
        sshape.extend([1, 1]);
        let sc = Array::from_slice_on(&dev, &scales, &[batch])?
            .reshape(&sshape)?
            .astype(xp_backend_api::solver::real_of(dtype))?;
        let sc2 = sc.mul(&sc)?;
        let sc4 = sc2.mul(&sc2)?;
        let sc6 = sc4.mul(&sc2)?;
        (a.mul(&sc)?, a2.mul(&sc2)?, a4.mul(&sc4)?, a6.mul(&sc6)?)
    } else {
        (a, a2, a4, a6)
    };
    let b = pade_coefficients(m);
    let eye = crate::with_device(&dev, || crate::eye(n, None, 0, dtype))?;
    let (u, v) = if m == 13 {
        let u_in = a6.mul_scalar(b[13])?.add(&a4.mul_scalar(b[11])?)?.add(&a2.mul_scalar(b[9])?)?;
        let u_in = matmul(&a6, &u_in)?
            .add(&a6.mul_scalar(b[7])?)?
            .add(&a4.mul_scalar(b[5])?)?
            .add(&a2.mul_scalar(b[3])?)?
            .add(&eye.mul_scalar(b[1])?)?;
        let u = matmul(&a, &u_in)?;
        let v_in = a6.mul_scalar(b[12])?.add(&a4.mul_scalar(b[10])?)?.add(&a2.mul_scalar(b[8])?)?;
        let v = matmul(&a6, &v_in)?
            .add(&a6.mul_scalar(b[6])?)?
            .add(&a4.mul_scalar(b[4])?)?
            .add(&a2.mul_scalar(b[2])?)?
            .add(&eye.mul_scalar(b[0])?)?;
        (u, v)
    } else {
        // Even powers A^0, A^2, ..., A^(m-1): U = A Σ b_(2j+1) A^2j, V = Σ b_2j A^2j.
        let mut pows = vec![eye.clone(), a2.clone()];
        while pows.len() < m.div_ceil(2) {
            let next = match pows.len() {
                2 => a4.clone(),
                3 => a6.clone(),
                _ => matmul(&a4, &a4)?,
            };
            pows.push(next);
        }
        let mut u_in = pows[0].mul_scalar(b[1])?;
        let mut v = pows[0].mul_scalar(b[0])?;
        for (j, p) in pows.iter().enumerate().skip(1) {
            u_in = u_in.add(&p.mul_scalar(b[2 * j + 1])?)?;
            v = v.add(&p.mul_scalar(b[2 * j])?)?;
        }
        (matmul(&a, &u_in)?, v)
    };
    // r_m = (V - U)^-1 (V + U)
    let mut x = super::solve::solve(&v.sub(&u)?, &v.add(&u)?)?;
    for j in 0..s_max {
        let sq = matmul(&x, &x)?;
        x = if plans.iter().all(|p| p.1 > j) {
            sq
        } else {
            let mask: Vec<bool> = plans.iter().map(|p| p.1 > j).collect();
            let mut mshape: Vec<isize> = batch_shape.iter().map(|&d| d as isize).collect();
            mshape.extend([1, 1]);
            let mask = Array::from_slice_on(&dev, &mask, &[batch])?.reshape(&mshape)?;
            crate::where_(&mask, (&sq).into(), (&x).into())?
        };
    }
    Ok(x)
}
