//! The blocked parallel form of the IIR recursion (see `xp_kernels::iir` for the kernels and
//! the formulation): the host side makes the small matrices the scan needs, in complex128
//! from the normalised coefficients (powers of the companion matrix and the zero-input
//! response table), and runs the steps.

use num_complex::Complex64 as C;
use xp_backend_api::{DType, Error, Result};
use xp_kernels::iir::{self, SCAN_GROUP, STAGE};

use crate::exec::{run_launches, target_of, Bindings};
use crate::Array;

/// A `k × k` row-major matrix product.
fn mat_mul(x: &[C], y: &[C], k: usize) -> Vec<C> {
    let mut out = vec![C::new(0.0, 0.0); k * k];
    for r in 0..k {
        for m in 0..k {
            let v = x[r * k + m];
            if v == C::new(0.0, 0.0) {
                continue;
            }
            for c in 0..k {
                out[r * k + c] += v * y[m * k + c];
            }
        }
    }
    out
}

/// The DF2T companion matrix of `a` (normalised, length `k + 1`).
fn companion(a: &[C], k: usize) -> Vec<C> {
    let mut m = vec![C::new(0.0, 0.0); k * k];
    for j in 0..k {
        m[j * k] = -a[j + 1];
        if j + 1 < k {
            m[j * k + j + 1] = C::new(1.0, 0.0);
        }
    }
    m
}

/// `m^p` by repeated squaring.
fn mat_pow(m: &[C], k: usize, mut p: usize) -> Vec<C> {
    let mut out = vec![C::new(0.0, 0.0); k * k];
    for j in 0..k {
        out[j * k + j] = C::new(1.0, 0.0);
    }
    let mut base = m.to_vec();
    while p > 0 {
        if p & 1 == 1 {
            out = mat_mul(&out, &base, k);
        }
        p >>= 1;
        if p > 0 {
            base = mat_mul(&base, &base, k);
        }
    }
    out
}

/// Host values as a device array of `dtype` (the real parts for a real dtype).
fn upload(like: &Array, v: &[C], shape: &[usize], dtype: DType) -> Result<Array> {
    let dev = like.device_arc();
    if dtype.is_complex() {
        super::lines::cast(&Array::from_slice_on(&dev, v, shape)?, dtype)
    } else {
        let re: Vec<f64> = v.iter().map(|c| c.re).collect();
        super::lines::cast(&Array::from_slice_on(&dev, &re, shape)?, dtype)
    }
}

/// Whether the blocked kernels exist for this order.
pub(super) fn supports(k: usize) -> bool {
    (1..=iir::MAX_ORDER).contains(&k)
}

/// The DF2T recursion over contiguous `(lines, n)` data `x` with normalised `b`, `a` of length
/// `k + 1` (`1 ≤ k ≤ MAX_ORDER`) from the contiguous `(lines, k)` state `z`, updated in place to
/// the final state; `block` the block length (a multiple of [`STAGE`]; `None` for the
/// planner's choice).
pub(super) fn iir_blocked(x: &Array, b: &Array, a: &Array, z: &Array, block: Option<usize>) -> Result<Array> {
    let op = "lfilter";
    let dev = x.device_arc();
    let target = target_of(&dev);
    let dt = x.dtype();
    let (lines, n) = (x.shape()[0], x.shape()[1]);
    let k = b.size() - 1;
    let y = Array::empty_on(&dev, &[lines, n], dt)?;
    if lines == 0 || n == 0 {
        return Ok(y);
    }
    let len = match block {
        Some(l) if l == 0 || !l.is_multiple_of(STAGE) => {
            return Err(Error::value(op, format!("the block length must be a positive multiple of {STAGE}, got {l}")))
        }
        Some(l) => l,
        None => iir::block_length(lines, n, target),
    };
    let nb = n.div_ceil(len);
    let e = Array::empty_on(&dev, &[lines, nb, k], dt)?;
    let ah: Vec<C> = a.to_vec::<C>()?;
    let am = companion(&ah, k);
    let blocks = iir::plan_blocks(dt, k, lines, n, len, target)?;
    run_launches(&dev, &[blocks], Bindings { operands: &[x, b, a, z, &y, &e], ..Default::default() })?;
    if nb > 1 {
        let p = mat_pow(&am, k, len);
        scan_states(&e, lines, nb - 1, nb * k, &p, k)?;
        // O[i][:] = (A^i)[0][:], row by row: r_{i+1} = r_i A.
        let mut o = Vec::with_capacity(len * k);
        let mut r = vec![C::new(0.0, 0.0); k];
        r[0] = C::new(1.0, 0.0);
        for _ in 0..len {
            o.extend_from_slice(&r);
            let mut nr = vec![C::new(0.0, 0.0); k];
            nr[0] = -(0..k).map(|j| r[j] * ah[j + 1]).sum::<C>();
            nr[1..k].copy_from_slice(&r[..(k - 1)]);
            r = nr;
        }
        let od = upload(x, &o, &[len, k], dt)?;
        let fix = iir::plan_fix(dt, k, lines, n, len, target)?;
        run_launches(&dev, &[fix], Bindings { operands: &[&y, &e, &od], ..Default::default() })?;
    }
    let rlen = n - (nb - 1) * len;
    let ar = upload(x, &mat_pow(&am, k, rlen), &[k, k], dt)?;
    let fin = iir::plan_final(dt, k, lines, nb, target)?;
    run_launches(&dev, &[fin], Bindings { operands: &[&e, &ar, z], ..Default::default() })?;
    Ok(y)
}

/// The states `s[line · stride + i · k ..]`, `i < m`, scanned in place: `s[i] += P s[i − 1]`.
fn scan_states(s: &Array, lines: usize, m: usize, stride: usize, p: &[C], k: usize) -> Result<()> {
    if m <= 1 {
        return Ok(());
    }
    let dev = s.device_arc();
    let target = target_of(&dev);
    let dt = s.dtype();
    let g = SCAN_GROUP;
    let ng = m.div_ceil(g);
    let tot = Array::empty_on(&dev, &[lines, ng, k], dt)?;
    let pd = upload(s, p, &[k, k], dt)?;
    let local = iir::plan_scan_local(dt, k, lines, m, stride, g, target)?;
    run_launches(&dev, &[local], Bindings { operands: &[s, &tot, &pd], ..Default::default() })?;
    if ng > 1 {
        let mut powers = Vec::with_capacity(g * k * k);
        let mut cur = p.to_vec();
        for i in 0..g {
            if i > 0 {
                cur = mat_mul(&cur, p, k);
            }
            powers.extend_from_slice(&cur);
        }
        scan_states(&tot, lines, ng, ng * k, &cur, k)?;
        let pp = upload(s, &powers, &[g, k, k], dt)?;
        let fix = iir::plan_scan_fix(dt, k, lines, m, stride, g, target)?;
        run_launches(&dev, &[fix], Bindings { operands: &[s, &tot, &pp], ..Default::default() })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_powers_match_repeated_products() {
        let a = [C::new(1.0, 0.0), C::new(-0.5, 0.1), C::new(0.25, 0.0)];
        let m = companion(&a, 2);
        let mut want = m.clone();
        for _ in 1..7 {
            want = mat_mul(&want, &m, 2);
        }
        let got = mat_pow(&m, 2, 7);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).norm() < 1e-14);
        }
        assert_eq!(mat_pow(&m, 2, 0)[0], C::new(1.0, 0.0));
    }
}
