//! The CPU backend's dense solvers: [`faer`], a pure-Rust linear-algebra library whose LU,
//! Cholesky, QR, SVD and eigensolvers (self-adjoint and general) match LAPACK's speed and
//! accuracy, parallel on the rayon pool. It is built without its default features (only
//! `linalg`, `std` and `rayon`): no sparse solvers, random matrices or `.npy` files.
//!
//! faer works on strided views, so the column-major matrices of the contract are read and,
//! for the LU, factored in place. Its results are written back in LAPACK's form:
//! - `getrf`: faer's row permutation becomes LAPACK's sequence of swaps (`ipiv`, 1-based);
//!   `getrs` applies the swaps, then the two triangular solves. A matrix with an exactly zero
//!   pivot is factored again by LAPACK's unblocked algorithm, which goes on past the zero
//!   pivot where faer's reciprocal would fill the factors with NaN.
//! - `potrf`: faer's `L` (or `L^H` for the upper triangle); a non-positive pivot `i` is
//!   status `i + 1`.
//! - QR: `R` into the input's upper triangle, `Q`'s first `qcols` columns into `q`.
//! - SVD: `U`, the values (nonincreasing) and `V^H` (faer gives `V`).
//! - Eigenvectors of general matrices are scaled to unit norm, as LAPACK's `geev`.
//!
//! A batch of many matrices is spread over the pool, one matrix per task; one large matrix
//! uses the whole pool inside faer.

use std::sync::Arc;

use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::linalg::triangular_solve::{solve_unit_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::reborrow::{IntoConst, ReborrowMut};
use faer::{MatMut, Par, Side};
use num_complex::Complex;
use rayon::prelude::*;
use xp_backend_api::solver::check_operand_count;
use xp_backend_api::{Buffer, DType, Error, Result, Solver, SolverCall, SolverDesc, Stream, SvdJob};

use crate::memory::check_span;
use crate::stream::CpuStream;

/// The library's name in errors and `xp::show_config()`.
const NAME: &str = "faer 0.24";

/// The CPU backend's [`Solver`].
#[derive(Default)]
pub struct CpuSolver;

impl Solver for CpuSolver {
    fn name(&self) -> String {
        NAME.to_string()
    }

    fn supports(&self, dtype: DType, _call: &SolverCall) -> bool {
        xp_backend_api::solver::solver_supports(dtype)
    }

    fn run(&self, stream: &Arc<dyn Stream>, desc: &SolverDesc, operands: &[(&Buffer, usize)]) -> Result<()> {
        let op = format!("{NAME} {}", desc.lapack_name());
        desc.check(&op)?;
        check_operand_count(&op, desc, operands)?;
        let cpu = stream
            .as_any()
            .downcast_ref::<CpuStream>()
            .ok_or_else(|| Error::value(op.as_str(), "the stream is not a CPU stream"))?;
        let specs = desc.operands();
        let mut ptrs = Vec::with_capacity(specs.len());
        for (s, &(buf, off)) in specs.iter().zip(operands) {
            check_span(&op, s.name, buf, off, s.per_matrix * desc.batch, s.dtype.size())?;
            if off % s.dtype.size() != 0 {
                return Err(Error::value(op.as_str(), format!("the {} offset {off} is misaligned", s.name)));
            }
            ptrs.push(buf.device_ptr() as usize + off);
        }
        for (buf, _) in operands {
            buf.note_use(stream);
        }
        let d = *desc;
        cpu.enqueue("solver", move || {
            // SAFETY: every operand's span was checked against its buffer, which the
            // stream-ordered pool keeps until this task has run.
            unsafe {
                match d.dtype {
                    DType::F32 => run::<f32>(&d, &ptrs),
                    DType::F64 => run::<f64>(&d, &ptrs),
                    DType::C64 => run::<Complex<f32>>(&d, &ptrs),
                    _ => run::<Complex<f64>>(&d, &ptrs),
                }
            }
        })
    }
}

/// What the solvers need of an element type beyond faer's traits.
trait Elem:
    faer::traits::ComplexField<Real = Self::R>
    + Copy
    + Send
    + Sync
    + 'static
    + std::ops::Mul<Output = Self>
    + std::ops::SubAssign
    + std::ops::DivAssign
{
    /// The real type.
    type R: faer::traits::RealField + Copy + Send + Sync + 'static;
    fn conj_(self) -> Self;
    fn is_zero_(self) -> bool;
    fn is_nan_(self) -> bool;
    /// `|re| + |im|`, the magnitude LAPACK's pivoting compares.
    fn abs1_(self) -> f64;
    fn norm2(self) -> f64;
    fn scale(self, by: f64) -> Self;
    fn re_(self) -> Self::R;
}

macro_rules! real_elem {
    ($t:ty) => {
        impl Elem for $t {
            type R = $t;
            fn conj_(self) -> Self {
                self
            }
            fn is_zero_(self) -> bool {
                self == 0.0
            }
            fn is_nan_(self) -> bool {
                self.is_nan()
            }
            fn abs1_(self) -> f64 {
                self.abs() as f64
            }
            fn norm2(self) -> f64 {
                (self as f64) * (self as f64)
            }
            fn scale(self, by: f64) -> Self {
                (self as f64 * by) as $t
            }
            fn re_(self) -> $t {
                self
            }
        }
    };
}
real_elem!(f32);
real_elem!(f64);

macro_rules! complex_elem {
    ($t:ty) => {
        impl Elem for Complex<$t> {
            type R = $t;
            fn conj_(self) -> Self {
                self.conj()
            }
            fn is_zero_(self) -> bool {
                self.re == 0.0 && self.im == 0.0
            }
            fn is_nan_(self) -> bool {
                self.re.is_nan() || self.im.is_nan()
            }
            fn abs1_(self) -> f64 {
                self.re.abs() as f64 + self.im.abs() as f64
            }
            fn norm2(self) -> f64 {
                (self.re as f64).powi(2) + (self.im as f64).powi(2)
            }
            fn scale(self, by: f64) -> Self {
                Complex::new((self.re as f64 * by) as $t, (self.im as f64 * by) as $t)
            }
            fn re_(self) -> $t {
                self.re
            }
        }
    };
}
complex_elem!(f32);
complex_elem!(f64);

/// A column-major `rows × cols` matrix at `p`.
///
/// # Safety
/// `p` holds `rows * cols` elements of `T`, not otherwise borrowed while the view lives.
unsafe fn view<'a, T>(p: usize, rows: usize, cols: usize) -> MatMut<'a, T> {
    // SAFETY: the caller's.
    unsafe { MatMut::from_raw_parts_mut(p as *mut T, rows, cols, 1, rows.max(1) as isize) }
}

/// Element `i` of an array of `U` at `p`, for writing.
///
/// # Safety
/// `p` holds at least `i + 1` elements of `U`.
unsafe fn at<'a, U>(p: usize, i: usize) -> &'a mut U {
    // SAFETY: the caller's.
    unsafe { &mut *(p as *mut U).add(i) }
}

/// LAPACK's `ipiv` (1-based swaps applied in order) for faer's row permutation
/// (`forward[i]`: the original row at position `i` of `P A`).
fn swaps_of(forward: &[usize]) -> Vec<i32> {
    let n = forward.len();
    let (mut cur, mut pos): (Vec<usize>, Vec<usize>) = ((0..n).collect(), (0..n).collect());
    let mut ipiv = vec![0i32; n];
    for i in 0..n {
        let j = pos[forward[i]];
        ipiv[i] = (j + 1) as i32;
        let (ri, rj) = (cur[i], cur[j]);
        cur.swap(i, j);
        pos[ri] = j;
        pos[rj] = i;
    }
    ipiv
}

/// LAPACK's unblocked LU with partial pivoting (`getf2`) of the square `a`, in place: the
/// pivot of each column is its first element of largest `|re| + |im|` from the diagonal down;
/// a zero pivot leaves the column of `L` at zero (nothing to eliminate) and the factorisation
/// goes on. Writes LAPACK's 1-based swaps to `ipiv`; returns the status (the first zero
/// pivot, 1-based, or 0).
fn getf2<T: Elem>(mut a: MatMut<'_, T>, ipiv: &mut [i32]) -> i32 {
    let n = a.nrows();
    let mut info = 0;
    for k in 0..n {
        let p = (k + 1..n).fold(k, |best, i| if a[(i, k)].abs1_() > a[(best, k)].abs1_() { i } else { best });
        ipiv[k] = p as i32 + 1;
        let pivot = a[(p, k)];
        if pivot.is_zero_() {
            if info == 0 {
                info = k as i32 + 1;
            }
            continue;
        }
        if p != k {
            for j in 0..n {
                let (x, y) = (a[(k, j)], a[(p, j)]);
                a[(k, j)] = y;
                a[(p, j)] = x;
            }
        }
        for i in k + 1..n {
            a[(i, k)] /= pivot;
        }
        for j in k + 1..n {
            let u = a[(k, j)];
            for i in k + 1..n {
                let l = a[(i, k)];
                a[(i, j)] -= l * u;
            }
        }
    }
    info
}

/// Solve `A X = B` in place in `b` with LAPACK-form LU factors (`getrs`): the row swaps of
/// `ipiv` in order, then the unit lower and the upper triangular solves.
fn lu_solve<T: Elem>(lu: faer::MatRef<'_, T>, ipiv: &[i32], mut b: MatMut<'_, T>, par: Par) {
    let nrhs = b.ncols();
    for (i, &s) in ipiv.iter().enumerate() {
        let j = s as usize - 1;
        if j != i {
            for c in 0..nrhs {
                let (x, y) = (b[(i, c)], b[(j, c)]);
                b[(i, c)] = y;
                b[(j, c)] = x;
            }
        }
    }
    solve_unit_lower_triangular_in_place(lu, b.rb_mut(), par);
    solve_upper_triangular_in_place(lu, b.rb_mut(), par);
}

/// Run every matrix of `d`: one task per matrix over the pool for a batch, faer's own
/// parallelism for one matrix.
///
/// # Safety
/// `ptrs` are the addresses of the operands of `d`, each holding its span.
unsafe fn run<T: Elem>(d: &SolverDesc, ptrs: &[usize])
where
    Complex<T::R>: Elem,
{
    let specs = d.operands();
    let one = |b: usize, par: Par| {
        let p: Vec<usize> = specs.iter().zip(ptrs).map(|(s, &p)| p + b * s.per_matrix * s.dtype.size()).collect();
        // SAFETY: matrix `b` of each operand lies inside its span (the caller's).
        let info = unsafe { one_matrix::<T>(d.call, &p, par) };
        let info_ptr = *p.last().expect("every call has a status");
        // SAFETY: one int32 status per matrix.
        unsafe { *at::<i32>(info_ptr, 0) = info };
    };
    if d.batch == 1 {
        one(0, Par::rayon(0));
    } else {
        (0..d.batch).into_par_iter().for_each(|b| one(b, Par::Seq));
    }
}

/// One matrix of `call` with operands at `p`; returns its LAPACK status.
///
/// # Safety
/// `p` are the operands of one matrix, each holding its elements.
unsafe fn one_matrix<T: Elem>(call: SolverCall, p: &[usize], par: Par) -> i32
where
    Complex<T::R>: Elem,
{
    // SAFETY (every block below): the operands hold one matrix each (the caller's).
    match call {
        SolverCall::Getrf { n } => {
            let a = unsafe { view::<T>(p[0], n, n) };
            // faer scales the column below each pivot by the pivot's reciprocal, so an exactly
            // zero pivot (a column of zeros from the diagonal down) fills the rest of the
            // factors with NaN, where LAPACK leaves that column of L at zero and goes on (and
            // `det` is 0). Such a matrix is factored again, from a copy, as LAPACK's `getf2`.
            let original = faer::Mat::<T>::from_fn(n, n, |i, j| a[(i, j)]);
            let (mut fwd, mut inv) = (vec![0usize; n], vec![0usize; n]);
            let mut mem =
                faer::dyn_stack::MemBuffer::new(lu_in_place_scratch::<usize, T>(n, n, par, Default::default()));
            let stack = faer::dyn_stack::MemStack::new(&mut mem);
            let (_, perm) = lu_in_place(a, &mut fwd, &mut inv, par, stack, Default::default());
            let mut ipiv = swaps_of(perm.arrays().0);
            let mut a = unsafe { view::<T>(p[0], n, n) };
            let mut info = (0..n).find(|&i| a[(i, i)].is_zero_()).map_or(0, |i| i as i32 + 1);
            if info != 0 || (0..n).any(|i| a[(i, i)].is_nan_()) {
                a.copy_from(original.as_ref());
                info = getf2(a, &mut ipiv);
            }
            for (i, s) in ipiv.into_iter().enumerate() {
                unsafe { *at::<i32>(p[1], i) = s };
            }
            info
        }
        SolverCall::Getrs { n, nrhs } => {
            let lu = unsafe { view::<T>(p[0], n, n) }.into_const();
            // SAFETY: `ipiv` holds `n` pivots.
            let ipiv = unsafe { std::slice::from_raw_parts(p[1] as *const i32, n) };
            lu_solve(lu, ipiv, unsafe { view::<T>(p[2], n, nrhs) }, par);
            0
        }
        SolverCall::Getri { n } => {
            let lu = unsafe { view::<T>(p[0], n, n) }.into_const();
            let ipiv = unsafe { std::slice::from_raw_parts(p[1] as *const i32, n) };
            let mut c = unsafe { view::<T>(p[2], n, n) };
            c.copy_from(faer::Mat::<T>::identity(n, n).as_ref());
            lu_solve(lu, ipiv, c, par);
            0
        }
        SolverCall::Potrf { n, lower } => {
            let mut a = unsafe { view::<T>(p[0], n, n) };
            // The lower triangle of the Hermitian matrix, from whichever triangle is given.
            let full = faer::Mat::<T>::from_fn(n, n, |i, j| {
                let (i, j) = if i >= j { (i, j) } else { (j, i) };
                if lower {
                    a[(i, j)]
                } else {
                    a[(j, i)].conj_()
                }
            });
            match full.as_ref().llt(Side::Lower) {
                Ok(llt) => {
                    let l = llt.L();
                    for j in 0..n {
                        for i in j..n {
                            if lower {
                                a[(i, j)] = l[(i, j)];
                            } else {
                                a[(j, i)] = l[(i, j)].conj_();
                            }
                        }
                    }
                    0
                }
                Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => index as i32 + 1,
            }
        }
        SolverCall::Qr { m, n, qcols } => {
            let mut a = unsafe { view::<T>(p[0], m, n) };
            let qr = a.as_ref().qr();
            let k = m.min(n);
            let r = qr.thin_R();
            for j in 0..n {
                for i in 0..k.min(j + 1) {
                    a[(i, j)] = r[(i, j)];
                }
            }
            if qcols > 0 {
                let q = if qcols == k { qr.compute_thin_Q() } else { qr.compute_Q() };
                let mut out = unsafe { view::<T>(p[1], m, qcols) };
                out.copy_from(q.as_ref().get(.., ..qcols));
            }
            0
        }
        SolverCall::Gesvd { m, n, job } => {
            let a = unsafe { view::<T>(p[0], m, n) }.into_const();
            let k = m.min(n);
            let write_s = |s: &mut dyn Iterator<Item = T::R>| {
                for (i, v) in s.enumerate().take(k) {
                    unsafe { *at::<T::R>(p[1], i) = v };
                }
            };
            if job == SvdJob::ValuesOnly {
                return match a.singular_values() {
                    Ok(s) => {
                        write_s(&mut s.into_iter());
                        0
                    }
                    Err(_) => 1,
                };
            }
            let svd = if job == SvdJob::Full { a.svd() } else { a.thin_svd() };
            let Ok(svd) = svd else { return 1 };
            write_s(&mut svd.S().column_vector().iter().map(|v| v.re_()));
            let (u, v) = (svd.U(), svd.V());
            let (uc, vr) = if job == SvdJob::Full { (m, n) } else { (k, k) };
            unsafe { view::<T>(p[2], m, uc) }.copy_from(u.get(.., ..uc));
            let mut vt = unsafe { view::<T>(p[3], vr, n) };
            for j in 0..n {
                for i in 0..vr {
                    vt[(i, j)] = v[(j, i)].conj_();
                }
            }
            0
        }
        SolverCall::Syevd { n, lower, vectors } => {
            let mut a = unsafe { view::<T>(p[0], n, n) };
            let side = if lower { Side::Lower } else { Side::Upper };
            if !vectors {
                return match a.as_ref().self_adjoint_eigenvalues(side) {
                    Ok(w) => {
                        for (i, v) in w.into_iter().enumerate() {
                            unsafe { *at::<T::R>(p[1], i) = v };
                        }
                        0
                    }
                    Err(_) => 1,
                };
            }
            let Ok(e) = a.as_ref().self_adjoint_eigen(side) else { return 1 };
            for (i, v) in e.S().column_vector().iter().enumerate() {
                unsafe { *at::<T::R>(p[1], i) = v.re_() };
            }
            let u = e.U().to_owned();
            a.copy_from(u.as_ref());
            0
        }
        SolverCall::Geev { n, vectors } => {
            let a = unsafe { view::<T>(p[0], n, n) }.into_const();
            let write_w = |w: &mut dyn Iterator<Item = Complex<T::R>>| {
                for (i, v) in w.enumerate() {
                    unsafe { *at::<Complex<T::R>>(p[1], i) = v };
                }
            };
            if !vectors {
                return match a.eigenvalues() {
                    Ok(w) => {
                        write_w(&mut w.into_iter());
                        0
                    }
                    Err(_) => 1,
                };
            }
            let Ok(e) = a.eigen() else { return 1 };
            write_w(&mut e.S().column_vector().iter().copied());
            let u = e.U();
            let mut v = unsafe { view::<Complex<T::R>>(p[2], n, n) };
            for j in 0..n {
                let norm: f64 = (0..n).map(|i| u[(i, j)].norm2()).sum::<f64>().sqrt();
                let inv = if norm > 0.0 { 1.0 / norm } else { 1.0 };
                for i in 0..n {
                    v[(i, j)] = u[(i, j)].scale(inv);
                }
            }
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::swaps_of;

    /// Applying the swaps in order to the identity arrangement gives the permutation.
    #[test]
    fn swaps_reproduce_the_permutation() {
        for forward in [vec![0, 1, 2, 3], vec![3, 2, 1, 0], vec![2, 0, 3, 1], vec![1, 3, 0, 2]] {
            let ipiv = swaps_of(&forward);
            let mut rows: Vec<usize> = (0..forward.len()).collect();
            for (i, &s) in ipiv.iter().enumerate() {
                assert!(s as usize > i, "LAPACK swaps row i with a row at or below it");
                rows.swap(i, s as usize - 1);
            }
            assert_eq!(rows, forward);
        }
    }
}
