//! Conjugate gradients on the host for a CSR matrix on the CPU device, whose buffers are host
//! memory: the matrix and the right-hand side are read in place and the answer is a host vector
//! handed to an array without a copy.
//!
//! It is the iteration of [`super::linalg::cg`] without a preconditioner, step for step: the
//! same recurrences in the same dtype (`p ← r + βp`, `q ← Ap`, `α ← ρ / (p·q)`, `x ← x + αp`,
//! `r ← r − αq`, `ρ ← r·r`), the same breakdown test and the same convergence test on `‖r‖`,
//! so it stops after the same number of iterations as the device form up to the rounding of
//! the dot products. What it saves is the per-operation cost of the device form on the CPU
//! (a kernel launch per step, a new vector per step, a read of each scalar): one iteration is
//! two passes over the rows, each split into fixed blocks of rows run on rayon's threads:
//! 1. `p ← r + βp` and `q ← Ap` together (each row of `q` forms the new `p` of its columns on
//!    the fly from the old `p`, kept in a second buffer, so the rows need no order), with the
//!    block's part of `p·q`;
//! 2. `x ← x + αp`, `r ← r − αq` and the block's part of `r·r`.
//!
//! Dot products add each block's products in float64 in row order and then the blocks' parts
//! in block order, so the answer does not depend on the number of threads or their timing.

use std::ops::{Add, Mul, Sub};

use rayon::prelude::*;

/// The rows of one block of a pass (the blocks are the unit of work and of the dot products'
/// partial sums).
const BLOCK: usize = 4096;

/// The value types of the native solver.
pub(crate) trait Real:
    Copy + Send + Sync + Default + Add<Output = Self> + Mul<Output = Self> + Sub<Output = Self>
{
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Real for f32 {
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Real for f64 {
    fn from_f64(v: f64) -> f64 {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// The index types of a CSR matrix.
pub(crate) trait Index: Copy + Send + Sync {
    fn at(self) -> usize;
}

impl Index for i32 {
    fn at(self) -> usize {
        self as usize
    }
}

impl Index for i64 {
    fn at(self) -> usize {
        self as usize
    }
}

/// A CSR matrix borrowed from host memory (square, `indptr.len() - 1` rows, canonical or not:
/// duplicates add, as in the device product).
#[derive(Clone, Copy)]
pub(crate) struct HostCsr<'a, T, I> {
    pub indptr: &'a [I],
    pub indices: &'a [I],
    pub data: &'a [T],
}

impl<T: Real, I: Index> HostCsr<'_, T, I> {
    /// Row `i` of `A v` where `v_j = f(j)`, added in the row's order in `T`.
    #[inline]
    fn row_dot(&self, i: usize, f: impl Fn(usize) -> T) -> T {
        let (s, e) = (self.indptr[i].at(), self.indptr[i + 1].at());
        let mut acc = T::default();
        for k in s..e {
            acc = acc + self.data[k] * f(self.indices[k].at());
        }
        acc
    }
}

/// The sum of the blocks' parts, in block order.
fn total(parts: &[f64]) -> f64 {
    parts.iter().sum()
}

/// `r ← b − A x` and `r·r`.
fn residual<T: Real, I: Index>(a: HostCsr<'_, T, I>, b: &[T], x: &[T], r: &mut [T]) -> f64 {
    let parts: Vec<f64> = r
        .par_chunks_mut(BLOCK)
        .enumerate()
        .map(|(blk, rc)| {
            let base = blk * BLOCK;
            let mut s = 0.0f64;
            for (o, ri) in rc.iter_mut().enumerate() {
                let i = base + o;
                *ri = b[i] - a.row_dot(i, |j| x[j]);
                s += (*ri * *ri).to_f64();
            }
            s
        })
        .collect();
    total(&parts)
}

/// Unpreconditioned conjugate gradients from `x0` until `‖r‖ ≤ tol` or `maxiter` iterations;
/// answers `(x, info)` as SciPy's `cg`: 0 converged, `maxiter` when it ran out, −10 on a
/// breakdown (a zero or non-finite `p·Ap`, as the device form).
pub(crate) fn cg<T: Real, I: Index>(
    a: HostCsr<'_, T, I>,
    b: &[T],
    x0: &[T],
    tol: f64,
    maxiter: usize,
) -> (Vec<T>, i64) {
    let n = b.len();
    let mut x = x0.to_vec();
    let mut r = vec![T::default(); n];
    let mut rr = residual(a, b, &x, &mut r);
    if rr.sqrt() <= tol {
        return (x, 0);
    }
    // The old and the new `p` (the first iteration's β is 0 on an old `p` of zeros, so its
    // `p` is `r`, as the device form's).
    let mut p_old = vec![T::default(); n];
    let mut p = vec![T::default(); n];
    let mut q = vec![T::default(); n];
    let mut rho_prev = 0.0f64;
    for it in 0..maxiter {
        let rho = rr;
        let beta = T::from_f64(if it == 0 { 0.0 } else { rho / rho_prev });
        let (rs, po) = (&r[..], &p_old[..]);
        let parts: Vec<f64> = p
            .par_chunks_mut(BLOCK)
            .zip(q.par_chunks_mut(BLOCK))
            .enumerate()
            .map(|(blk, (pc, qc))| {
                let base = blk * BLOCK;
                let mut s = 0.0f64;
                for (o, (pi, qi)) in pc.iter_mut().zip(qc.iter_mut()).enumerate() {
                    let i = base + o;
                    *pi = rs[i] + po[i] * beta;
                    *qi = a.row_dot(i, |j| rs[j] + po[j] * beta);
                    s += (*pi * *qi).to_f64();
                }
                s
            })
            .collect();
        let pq = total(&parts);
        if pq == 0.0 || !pq.is_finite() {
            return (x, -10);
        }
        let alpha = rho / pq;
        let (ta, tna) = (T::from_f64(alpha), T::from_f64(-alpha));
        let (pn, qn) = (&p[..], &q[..]);
        let parts: Vec<f64> = x
            .par_chunks_mut(BLOCK)
            .zip(r.par_chunks_mut(BLOCK))
            .enumerate()
            .map(|(blk, (xc, rc))| {
                let base = blk * BLOCK;
                let mut s = 0.0f64;
                for (o, (xi, ri)) in xc.iter_mut().zip(rc.iter_mut()).enumerate() {
                    let i = base + o;
                    *xi = *xi + pn[i] * ta;
                    *ri = *ri + qn[i] * tna;
                    s += (*ri * *ri).to_f64();
                }
                s
            })
            .collect();
        rr = total(&parts);
        if rr.sqrt() <= tol {
            return (x, 0);
        }
        rho_prev = rho;
        std::mem::swap(&mut p, &mut p_old);
    }
    (x, maxiter as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 1-d Laplacian `tridiag(-1, 2, -1)` of size `n`.
    fn laplacian(n: usize) -> (Vec<i32>, Vec<i32>, Vec<f64>) {
        let (mut ip, mut ix, mut d) = (vec![0i32], vec![], vec![]);
        for i in 0..n {
            for (j, v) in [(i as i64 - 1, -1.0), (i as i64, 2.0), (i as i64 + 1, -1.0)] {
                if (0..n as i64).contains(&j) {
                    ix.push(j as i32);
                    d.push(v);
                }
            }
            ip.push(ix.len() as i32);
        }
        (ip, ix, d)
    }

    #[test]
    fn solves_laplacian_across_blocks() {
        // More rows than one block, so the passes and the partial sums span blocks.
        let n = 3 * BLOCK + 17;
        let (ip, ix, d) = laplacian(n);
        let a = HostCsr { indptr: &ip, indices: &ix, data: &d };
        let want: Vec<f64> = (0..n).map(|i| ((i % 7) as f64) - 3.0).collect();
        let mut b = vec![0.0; n];
        for (i, bi) in b.iter_mut().enumerate() {
            *bi = a.row_dot(i, |j| want[j]);
        }
        let bn = b.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (x, info) = cg(a, &b, &vec![0.0; n], 1e-10 * bn, 10 * n);
        assert_eq!(info, 0);
        let res: f64 = b.iter().enumerate().map(|(i, bi)| (a.row_dot(i, |j| x[j]) - bi).powi(2)).sum();
        assert!(res.sqrt() <= 1e-10 * bn * 1.0001, "residual {}", res.sqrt());
    }

    #[test]
    fn runs_out_and_breaks_down() {
        let (ip, ix, d) = laplacian(50);
        let a = HostCsr { indptr: &ip, indices: &ix, data: &d };
        let b = vec![1.0; 50];
        assert_eq!(cg(a, &b, &[0.0; 50], 1e-12, 3).1, 3);
        // A zero matrix: p·Ap = 0 at once.
        let z = vec![0.0; d.len()];
        let a0 = HostCsr { indptr: &ip, indices: &ix, data: &z };
        assert_eq!(cg(a0, &b, &[0.0; 50], 1e-12, 10).1, -10);
    }
}
