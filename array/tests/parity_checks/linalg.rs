//! `numpy.linalg`'s solvers and decompositions on any device: `solve`, `inv`, `det`,
//! `slogdet`, `cholesky`, `qr`, `svd`, `svdvals`, `eigh` and `eigvalsh`, in float32, float64,
//! complex64 and complex128, on single matrices and on stacks. Results are checked on the host
//! against the identities that define them (`A x = b`, `L L^H = A`, `Q R = A`,
//! `U diag(S) V^H = A`, `A v = w v`) and determinants against Gaussian elimination; shapes and
//! dtypes are NumPy's, and a failure in a stack names the failing matrix.

use std::sync::Arc;

use xp_array::linalg::{self, QrMode};
use xp_array::*;
use xp_backend_api::solver::real_of;
use xp_backend_api::DynDevice;

use super::host::*;

/// `|A x - b| <= tol (|A| |x| + |b|)`.
fn assert_solves(a: &Mat, x: &Mat, b: &Mat, tol: f64, what: &str) {
    assert_small(&a.mm(x).sub(b), a.norm() * x.norm() + b.norm(), tol, what);
}

/// A column vector of `v`.
fn col(v: Vec<C>) -> Mat {
    Mat::new(v.len(), 1, v)
}

/// `e` is `Error::LinAlg` of `op` whose message names matrix `index` of the stack (and not
/// `later`, a failing matrix after it).
fn assert_names_matrix(e: Error, op: &str, index: &str, later: Option<&str>) {
    match e {
        Error::LinAlg { op: got, reason } => {
            assert_eq!(got, op, "{reason}");
            assert!(reason.contains(index), "{op}: {reason:?} should name matrix {index}");
            if let Some(later) = later {
                assert!(!reason.contains(later), "{op}: {reason:?} should name the first failing matrix, {index}");
            }
        }
        other => panic!("{op}: expected Error::LinAlg naming matrix {index}, got {other:?}"),
    }
}

pub fn solve_vectors_matrices_and_broadcast_stacks(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dt in SOLVER_DTYPES {
            let (cx, t) = (dt.is_complex(), tol(dt));
            let a = well_conditioned(4, cx, 1).array(dt);
            let am = &mats(&a)[0];
            // 1-d b: one right-hand side, x is 1-d.
            let b = random(4, 1, cx, 2).array(dt).reshape(&[4]).unwrap();
            let x = linalg::solve(&a, &b).unwrap();
            assert_eq!((x.shape(), x.dtype()), (&[4usize][..], dt));
            assert_solves(am, &col(values(&x)), &col(values(&b)), t, &format!("{dt} solve, 1-d b"));
            // 2-d b: three right-hand sides.
            let b = random(4, 3, cx, 3).array(dt);
            let x = linalg::solve(&a, &b).unwrap();
            assert_eq!((x.shape(), x.dtype()), (&[4usize, 3][..], dt));
            assert_solves(am, &mats(&x)[0], &mats(&b)[0], t, &format!("{dt} solve, 2-d b"));
            // Stacks of shapes (2, 1) and (3,) broadcast to (2, 3).
            let ams: Vec<Mat> = (0..2).map(|s| well_conditioned(4, cx, 10 + s)).collect();
            let a = stack_array(&ams, &[2, 1], dt);
            let bms: Vec<Mat> = (0..3).map(|s| random(4, 2, cx, 20 + s)).collect();
            let b = stack_array(&bms, &[3], dt);
            let x = linalg::solve(&a, &b).unwrap();
            assert_eq!((x.shape(), x.dtype()), (&[2usize, 3, 4, 2][..], dt));
            let (ams, bms, xs) = (mats(&a), mats(&b), mats(&x));
            for i in 0..2 {
                for j in 0..3 {
                    assert_solves(&ams[i], &xs[i * 3 + j], &bms[j], t, &format!("{dt} solve, stack [{i}, {j}]"));
                }
            }
            // A stack with a 1-d b: NumPy 2 solves every matrix for the one vector.
            let a = stack_array(&ams, &[2], dt);
            let b = random(4, 1, cx, 30).array(dt).reshape(&[4]).unwrap();
            let x = linalg::solve(&a, &b).unwrap();
            assert_eq!((x.shape(), x.dtype()), (&[2usize, 4][..], dt));
            for (i, xi) in rows_of(&x).into_iter().enumerate() {
                assert_solves(&ams[i], &col(xi), &col(values(&b)), t, &format!("{dt} solve, stack [{i}] and 1-d b"));
            }
        }
        // The operands promote: float32 with float64 solves in float64, with complex64 in
        // complex64.
        let a = well_conditioned(3, false, 31).array(DType::F32);
        let b = random(3, 1, false, 32).array(DType::F64);
        let x = linalg::solve(&a, &b).unwrap();
        assert_eq!(x.dtype(), DType::F64);
        assert_solves(&mats(&a)[0], &mats(&x)[0], &mats(&b)[0], 1e-10, "float32 a, float64 b");
        let b = random(3, 1, true, 33).array(DType::C64);
        let x = linalg::solve(&a, &b).unwrap();
        assert_eq!(x.dtype(), DType::C64);
        assert_solves(&mats(&a)[0], &mats(&x)[0], &mats(&b)[0], 1e-4, "float32 a, complex64 b");
    });
}

pub fn inv_of_a_stack_is_the_inverse(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dt in SOLVER_DTYPES {
            let ams: Vec<Mat> = (0..3).map(|s| well_conditioned(5, dt.is_complex(), 40 + s)).collect();
            let a = stack_array(&ams, &[3], dt);
            let x = linalg::inv(&a).unwrap();
            assert_eq!((x.shape(), x.dtype()), (a.shape(), dt));
            for (i, (a, x)) in mats(&a).iter().zip(mats(&x)).enumerate() {
                let scale = a.norm() * x.norm();
                assert_small(&a.mm(&x).sub(&Mat::eye(5)), scale, tol(dt), &format!("{dt} A @ inv(A) [{i}]"));
                assert_small(&x.mm(a).sub(&Mat::eye(5)), scale, tol(dt), &format!("{dt} inv(A) @ A [{i}]"));
            }
        }
    });
}

pub fn det_and_slogdet_match_elimination(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dt in SOLVER_DTYPES {
            let (cx, t) = (dt.is_complex(), tol(dt));
            // Diagonally dominant: partial pivoting keeps the rows in place.
            let m0 = well_conditioned(3, cx, 50);
            // Its first and last rows swapped: the LU must swap rows back, and the
            // determinant changes sign.
            let m1 = Mat::from_fn(3, 3, |i, j| m0.at(2 - i, j));
            // Exactly singular: the second row is twice the first.
            let m2 = Mat::real(3, 3, &[1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 1.0, 5.0]);
            // Exactly singular with a zero first column: no pivot at all in the first step.
            let m3 = Mat::real(3, 3, &[0.0, 1.0, 2.0, 0.0, 3.0, 4.0, 0.0, 5.0, 7.0]);
            let a = stack_array(&[m0, m1, m2, m3], &[2, 2], dt);
            let want: Vec<C> = mats(&a).iter().map(det_ref).collect();
            assert!(want[0].norm() > 1.0 && want[2] == C::new(0.0, 0.0) && want[3] == C::new(0.0, 0.0));

            let det = linalg::det(&a).unwrap();
            assert_eq!((det.shape(), det.dtype()), (&[2usize, 2][..], dt));
            let det = values(&det);
            for i in 0..2 {
                assert_close_c(det[i], want[i], t, &format!("{dt} det [{i}]"));
            }
            assert_close_c(det[1], -det[0], t, &format!("{dt} det after a row swap"));
            assert_eq!(&det[2..], &[C::new(0.0, 0.0); 2], "{dt} det of singular matrices");

            let (sign, logdet) = linalg::slogdet(&a).unwrap();
            assert_eq!((sign.shape(), sign.dtype()), (&[2usize, 2][..], dt));
            assert_eq!((logdet.shape(), logdet.dtype()), (&[2usize, 2][..], real_of(dt)));
            let (sign, logdet) = (values(&sign), values(&logdet));
            for i in 0..2 {
                let w = want[i];
                if cx {
                    assert_close_c(sign[i], w / w.norm(), t, &format!("{dt} slogdet sign [{i}]"));
                } else {
                    assert_eq!(sign[i], C::new(w.re.signum(), 0.0), "{dt} slogdet sign [{i}]");
                }
                let (got, lw) = (logdet[i].re, w.norm().ln());
                assert!((got - lw).abs() <= t * (1.0 + lw.abs()), "{dt} slogdet logabsdet [{i}]: {got} != {lw}");
            }
            for i in 2..4 {
                assert_eq!(sign[i], C::new(0.0, 0.0), "{dt} slogdet sign of a singular matrix [{i}]");
                assert_eq!(logdet[i].re, f64::NEG_INFINITY, "{dt} slogdet logabsdet of a singular matrix [{i}]");
            }
        }
    });
}

pub fn cholesky_lower_and_upper_factors(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dt in SOLVER_DTYPES {
            let (cx, t) = (dt.is_complex(), tol(dt));
            let hs: Vec<Mat> = (0..2).map(|s| hermitian_pd(4, cx, 60 + s)).collect();
            let a = stack_array(&hs, &[2], dt);
            let hs = mats(&a);
            let l = linalg::cholesky(&a, false).unwrap();
            let u = linalg::cholesky(&a, true).unwrap();
            assert_eq!((l.shape(), l.dtype()), (a.shape(), dt));
            assert_eq!((u.shape(), u.dtype()), (a.shape(), dt));
            let ls = mats(&l);
            for (i, ((h, l), u)) in hs.iter().zip(&ls).zip(mats(&u)).enumerate() {
                assert!(l.zero_off(true), "{dt} L [{i}] is lower triangular: {l:?}");
                for k in 0..4 {
                    let z = l.at(k, k);
                    assert!(
                        z.re > 0.0 && z.im.abs() <= t * z.re,
                        "{dt} L [{i}] diagonal {k} is real and positive: {z}"
                    );
                }
                assert_close(&l.mm(&l.h()), h, t, &format!("{dt} L L^H = A [{i}]"));
                assert!(u.zero_off(false), "{dt} upper=true [{i}] is upper triangular: {u:?}");
                assert_close(&u, &l.h(), t, &format!("{dt} upper=true gives L^H [{i}]"));
                assert_close(&u.h().mm(&u), h, t, &format!("{dt} U^H U = A [{i}]"));
            }
            // Only the lower triangle (and the diagonal) is read.
            let junk: Vec<Mat> = hs
                .iter()
                .map(|h| {
                    Mat::from_fn(4, 4, |i, j| if j > i { C::new(100.0 + (4 * i + j) as f64, -7.0) } else { h.at(i, j) })
                })
                .collect();
            let l2 = linalg::cholesky(&stack_array(&junk, &[2], dt), false).unwrap();
            for (i, (l, l2)) in ls.iter().zip(mats(&l2)).enumerate() {
                assert_close(&l2, l, t, &format!("{dt} cholesky ignores the upper triangle [{i}]"));
            }
        }
    });
}

pub fn qr_modes_on_tall_wide_and_stacked_matrices(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dt in SOLVER_DTYPES {
            let (cx, t) = (dt.is_complex(), tol(dt));
            for (m, n, batch) in [(5usize, 3usize, vec![]), (3, 5, vec![]), (4, 4, vec![]), (4, 3, vec![2usize])] {
                let count: usize = batch.iter().product();
                let ams: Vec<Mat> = (0..count).map(|s| random(m, n, cx, 70 + 10 * m as u64 + s as u64)).collect();
                let a = stack_array(&ams, &batch, dt);
                let ams = mats(&a);
                let k = m.min(n);
                let shape = |r: usize, c: usize| -> Vec<usize> { batch.iter().copied().chain([r, c]).collect() };
                let case = format!("{dt} {m}x{n} stack {batch:?}");
                for mode in [QrMode::Reduced, QrMode::Complete] {
                    let (q, r) = linalg::qr(&a, mode).unwrap();
                    let q = q.expect("Q in modes reduced and complete");
                    let qc = if mode == QrMode::Complete { m } else { k };
                    assert_eq!(q.shape(), &shape(m, qc)[..], "{case} {mode:?} Q shape");
                    assert_eq!(r.shape(), &shape(qc, n)[..], "{case} {mode:?} R shape");
                    assert_eq!((q.dtype(), r.dtype()), (dt, dt), "{case} {mode:?} dtypes");
                    for (i, ((a, q), r)) in ams.iter().zip(mats(&q)).zip(mats(&r)).enumerate() {
                        assert_orthonormal_cols(&q, t, &format!("{case} {mode:?} Q^H Q = I [{i}]"));
                        assert!(r.zero_off(false), "{case} {mode:?} R [{i}] is upper triangular: {r:?}");
                        assert_close(&q.mm(&r), a, t, &format!("{case} {mode:?} Q R = A [{i}]"));
                    }
                }
                let (q, r_only) = linalg::qr(&a, QrMode::R).unwrap();
                assert!(q.is_none(), "{case} mode r returns R only");
                assert_eq!((r_only.shape(), r_only.dtype()), (&shape(k, n)[..], dt), "{case} mode r");
                let (_, r) = linalg::qr(&a, QrMode::Reduced).unwrap();
                for (i, ((a, r_only), r)) in ams.iter().zip(mats(&r_only)).zip(mats(&r)).enumerate() {
                    assert!(r_only.zero_off(false), "{case} mode r [{i}] is upper triangular");
                    assert_close(
                        &r_only.h().mm(&r_only),
                        &a.h().mm(a),
                        t,
                        &format!("{case} mode r: R^H R = A^H A [{i}]"),
                    );
                    assert_close(&r_only, &r, t, &format!("{case} mode r gives the reduced mode's R [{i}]"));
                }
            }
        }
    });
}

pub fn svd_full_reduced_and_svdvals(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dt in SOLVER_DTYPES {
            let (cx, t) = (dt.is_complex(), tol(dt));
            for (m, n, batch) in [(5usize, 3usize, vec![]), (3, 5, vec![]), (4, 3, vec![2usize]), (2, 4, vec![3])] {
                let count: usize = batch.iter().product();
                let ams: Vec<Mat> = (0..count).map(|s| random(m, n, cx, 80 + 10 * m as u64 + s as u64)).collect();
                let a = stack_array(&ams, &batch, dt);
                let ams = mats(&a);
                let k = m.min(n);
                let with = |tail: &[usize]| -> Vec<usize> { batch.iter().chain(tail).copied().collect() };
                let case = format!("{dt} {m}x{n} stack {batch:?}");
                let mut first_s = None;
                for full in [true, false] {
                    let (u, s, vh) = linalg::svd(&a, full).unwrap();
                    let (uc, vr) = if full { (m, n) } else { (k, k) };
                    let case = format!("{case} full_matrices={full}");
                    assert_eq!(u.shape(), &with(&[m, uc])[..], "{case} U shape");
                    assert_eq!(s.shape(), &with(&[k])[..], "{case} S shape");
                    assert_eq!(vh.shape(), &with(&[vr, n])[..], "{case} Vh shape");
                    assert_eq!((u.dtype(), s.dtype(), vh.dtype()), (dt, real_of(dt), dt), "{case} dtypes");
                    let ss = rows_of(&s);
                    for (i, ((a, u), vh)) in ams.iter().zip(mats(&u)).zip(mats(&vh)).enumerate() {
                        let s = &ss[i];
                        assert!(s.iter().all(|x| x.re >= 0.0), "{case} S [{i}] >= 0: {s:?}");
                        assert!(s.windows(2).all(|w| w[0].re >= w[1].re), "{case} S [{i}] nonincreasing: {s:?}");
                        assert_orthonormal_cols(&u, t, &format!("{case} U^H U = I [{i}]"));
                        assert_orthonormal_cols(&vh.h(), t, &format!("{case} Vh Vh^H = I [{i}]"));
                        let usv = u.cols(0, k).scale_cols(s).mm(&vh.rows(0, k));
                        assert_close(&usv, a, t, &format!("{case} U diag(S) Vh = A [{i}]"));
                    }
                    first_s.get_or_insert(ss);
                }
                let sv = linalg::svdvals(&a).unwrap();
                assert_eq!((sv.shape(), sv.dtype()), (&with(&[k])[..], real_of(dt)), "{case} svdvals");
                for (i, (got, want)) in rows_of(&sv).iter().zip(first_s.unwrap()).enumerate() {
                    assert_close(&col(got.clone()), &col(want), t, &format!("{case} svdvals = svd's S [{i}]"));
                }
            }
        }
    });
}

pub fn eigh_and_eigvalsh_read_the_uplo_triangle(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dt in SOLVER_DTYPES {
            let (cx, t) = (dt.is_complex(), tol(dt));
            let hs: Vec<Mat> = (0..2).map(|s| hermitian(5, cx, 90 + s)).collect();
            let hs = mats(&stack_array(&hs, &[2], dt));
            for uplo in ["L", "U"] {
                // The triangle UPLO does not name holds junk, which must not be read.
                let junk: Vec<Mat> = hs
                    .iter()
                    .map(|h| {
                        Mat::from_fn(5, 5, |i, j| {
                            let unread = if uplo == "L" { j > i } else { j < i };
                            if unread {
                                C::new(50.0 + i as f64, 3.0 - j as f64)
                            } else {
                                h.at(i, j)
                            }
                        })
                    })
                    .collect();
                let a = stack_array(&junk, &[2], dt);
                let case = format!("{dt} UPLO={uplo}");
                let (w, v) = linalg::eigh(&a, uplo).unwrap();
                assert_eq!((w.shape(), w.dtype()), (&[2usize, 5][..], real_of(dt)), "{case} w");
                assert_eq!((v.shape(), v.dtype()), (&[2usize, 5, 5][..], dt), "{case} v");
                let ws = rows_of(&w);
                for (i, (h, v)) in hs.iter().zip(mats(&v)).enumerate() {
                    let w = &ws[i];
                    assert!(w.windows(2).all(|p| p[0].re <= p[1].re), "{case} w [{i}] ascending: {w:?}");
                    // The trace is the sum of the eigenvalues.
                    let trace: f64 = (0..5).map(|k| h.at(k, k).re).sum();
                    let sum: f64 = w.iter().map(|x| x.re).sum();
                    assert!((trace - sum).abs() <= t * h.norm(), "{case} sum of w [{i}] is the trace");
                    assert_orthonormal_cols(&v, t, &format!("{case} V^H V = I [{i}]"));
                    assert_close(&h.mm(&v), &v.scale_cols(w), t, &format!("{case} A V = V diag(w) [{i}]"));
                }
                let wv = linalg::eigvalsh(&a, uplo).unwrap();
                assert_eq!((wv.shape(), wv.dtype()), (&[2usize, 5][..], real_of(dt)), "{case} eigvalsh");
                for (i, (got, want)) in rows_of(&wv).into_iter().zip(&ws).enumerate() {
                    assert_close(&col(got), &col(want.clone()), t, &format!("{case} eigvalsh = eigh's w [{i}]"));
                }
            }
        }
    });
}

pub fn failures_name_the_failing_matrix_of_a_stack(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dt in [DType::F64, DType::C64] {
            let cx = dt.is_complex();
            let good = well_conditioned(3, cx, 100);
            // Exactly singular: a zero row.
            let bad = Mat::from_fn(3, 3, |i, j| if i == 1 { C::new(0.0, 0.0) } else { good.at(i, j) });
            // A (2, 3) stack whose matrices [1, 0] and [1, 2] are singular.
            let ms: Vec<Mat> = (0..6).map(|p| if p == 3 || p == 5 { bad.clone() } else { good.clone() }).collect();
            let a = stack_array(&ms, &[2, 3], dt);
            let b = random(3, 2, cx, 101).array(dt);
            assert_names_matrix(linalg::solve(&a, &b).unwrap_err(), "solve", "[1, 0]", Some("[1, 2]"));
            assert_names_matrix(linalg::inv(&a).unwrap_err(), "inv", "[1, 0]", Some("[1, 2]"));
            // det and slogdet do not fail: the singular matrices have determinant 0.
            let det = values(&linalg::det(&a).unwrap());
            assert!(
                det.iter().enumerate().all(|(p, x)| (*x == C::new(0.0, 0.0)) == (p == 3 || p == 5)),
                "{dt} det {det:?}"
            );
            // Not positive definite: the negated matrix, at [1] of a (3,) stack.
            let pd = hermitian_pd(3, cx, 102);
            let neg = Mat::from_fn(3, 3, |i, j| -pd.at(i, j));
            let a = stack_array(&[pd.clone(), neg, pd], &[3], dt);
            assert_names_matrix(linalg::cholesky(&a, false).unwrap_err(), "cholesky", "[1]", None);
            assert_names_matrix(linalg::cholesky(&a, true).unwrap_err(), "cholesky", "[1]", None);
        }
    });
}

/// A matrix with a NaN: the SVD and the 2-norm through it are NumPy's `LinAlgError` ("SVD did
/// not converge"), not NaNs or a hang, and the next SVD works.
pub fn svd_of_a_matrix_with_nans_does_not_converge(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dt in [DType::F32, DType::F64, DType::C128] {
            let mut v = vec![1.0f64; 16];
            v[5] = f64::NAN;
            let a = Array::from_slice(&v, &[4, 4]).unwrap().astype(dt).unwrap();
            for full in [false, true] {
                let e = linalg::svd(&a, full).unwrap_err();
                assert_eq!(e.kind(), "LinAlg", "{dt} svd: {e}");
                assert!(e.to_string().contains("SVD did not converge"), "{dt}: {e}");
            }
            let all_nan = Array::from_slice(&[f64::NAN; 6], &[3, 2]).unwrap().astype(dt).unwrap();
            assert_eq!(linalg::svd(&all_nan, false).unwrap_err().kind(), "LinAlg", "{dt}");
            let good = Array::from_slice(&[3.0f64, 0.0, 0.0, 4.0], &[2, 2]).unwrap().astype(dt).unwrap();
            let (_, s, _) = linalg::svd(&good, false).unwrap();
            let s: Vec<f64> = s.astype(DType::F64).unwrap().to_vec().unwrap();
            assert!((s[0] - 4.0).abs() < 1e-5 && (s[1] - 3.0).abs() < 1e-5, "{dt} {s:?}");
        }
    });
}

/// `eig` and `eigvals` of general real and complex stacks: `A v = w v` with unit
/// eigenvectors, conjugate pairs for real matrices, the trace and determinant as the sum and
/// product of the eigenvalues. (A library without a real general eigensolver computes a real
/// matrix as complex.)
pub fn eig_of_general_and_complex_matrices(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for (dt, cx) in [(DType::F64, false), (DType::C128, true), (DType::C64, true)] {
            // A stack of two general matrices.
            let ms: Vec<Mat> = (0..2).map(|s| random(5, 5, cx, 310 + s)).collect();
            let a = stack_array(&ms, &[2], dt);
            let (w, v) = linalg::eig(&a).unwrap();
            assert_eq!((w.shape(), v.shape()), (&[2usize, 5][..], &[2usize, 5, 5][..]));
            if cx {
                assert_eq!((w.dtype(), v.dtype()), (dt, dt));
            }
            for (i, ((am, w), v)) in mats(&a).iter().zip(rows_of(&w)).zip(mats(&v)).enumerate() {
                let what = format!("{dt} general [{i}]");
                assert_eigenpairs(am, &w, &v, tol(dt), &what);
                if !cx {
                    // A real matrix's eigenvalues come in conjugate pairs.
                    let conj: Vec<C> = w.iter().map(|z| z.conj()).collect();
                    assert_same_values(&w, &conj, tol(dt), am.norm(), &format!("{what}: conjugate pairs"));
                }
                let trace: C = (0..5).map(|k| am.at(k, k)).sum();
                assert_close_c(w.iter().sum(), trace, tol(dt), &format!("{what}: sum of w"));
                assert_close_c(w.iter().product(), det_ref(am), tol(dt), &format!("{what}: product of w"));
            }
            let wv = linalg::eigvals(&a).unwrap();
            assert_eq!(wv.dtype(), w.dtype());
            for (i, (got, want)) in rows_of(&wv).iter().zip(rows_of(&w)).enumerate() {
                assert_same_values(got, &want, tol(dt), 5.0, &format!("{dt} [{i}] eigvals = eig's w"));
            }
        }
    });
}
