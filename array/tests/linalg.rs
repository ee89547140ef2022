//! `numpy.linalg` on the CPU backend beyond the device-generic parity checks
//! (`parity_checks/linalg.rs`): the general eigensolver, least squares, the pseudo-inverse,
//! rank and condition numbers, the spectral and nuclear norms, negative matrix powers,
//! `real`/`imag` views, the dtypes the solvers compute in, and each bad input's error.
//! Expected values come from host arithmetic (`parity_checks/host.rs`) or from the identities
//! that define each result.

use std::sync::Arc;

use xp_array::linalg::{self, NormOrd, QrMode};
use xp_array::*;
use xp_backend_api::solver::real_of;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

use crate::parity_checks::host::*;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

const ZERO: C = C::new(0.0, 0.0);

/// A column vector of `v`.
fn col(v: Vec<C>) -> Mat {
    Mat::new(v.len(), 1, v)
}

/// A 5x3 matrix of small integers (exact in every dtype) of rank 2: its third column is
/// `p` times the first plus `q` times the second.
fn rank_two(p: f64, q: f64) -> Mat {
    let (c0, c1) = ([1.0, 2.0, 0.0, -1.0, 3.0], [0.0, 1.0, 1.0, 2.0, -1.0]);
    Mat::from_fn(5, 3, |i, j| C::new([c0[i], c1[i], p * c0[i] + q * c1[i]][j], 0.0))
}

fn kind(e: Error) -> &'static str {
    e.kind()
}

fn assert_linalg_error<T: std::fmt::Debug>(r: Result<T>, what: &str) {
    match r {
        Err(Error::LinAlg { .. }) => {}
        other => panic!("{what}: expected Error::LinAlg, got {other:?}"),
    }
}

// ---- eig / eigvals ---------------------------------------------------------------------------

#[test]
fn eig_of_a_real_matrix_with_real_eigenvalues_is_real() {
    with_device(&cpu(), || {
        // Symmetric (real eigenvalues) and upper triangular (its diagonal, exactly).
        let sym = hermitian(4, false, 300);
        let tri = Mat::real(3, 3, &[2.0, 1.0, 3.0, 0.0, -1.0, 4.0, 0.0, 0.0, 5.0]);
        for (m, name) in [(sym, "symmetric"), (tri, "triangular")] {
            for dt in [DType::F64, DType::F32] {
                let a = m.array(dt);
                let am = &mats(&a)[0];
                let n = am.rows;
                let (w, v) = linalg::eig(&a).unwrap();
                let what = format!("{dt} {name}");
                assert_eq!((w.shape(), w.dtype()), (&[n][..], dt), "{what} eigenvalues are real");
                assert_eq!((v.shape(), v.dtype()), (&[n, n][..], dt), "{what} eigenvectors are real");
                let w = values(&w);
                assert_eigenpairs(am, &w, &mats(&v)[0], tol(dt), &what);
                // The trace and the determinant are the sum and the product.
                let trace: C = (0..n).map(|k| am.at(k, k)).sum();
                assert_close_c(w.iter().sum(), trace, tol(dt), &format!("{what}: sum of w"));
                assert_close_c(w.iter().product(), det_ref(am), tol(dt), &format!("{what}: product of w"));
                let wv = linalg::eigvals(&a).unwrap();
                assert_eq!(wv.dtype(), dt, "{what} eigvals is real");
                assert_same_values(&values(&wv), &w, tol(dt), am.norm(), &format!("{what}: eigvals = eig's w"));
            }
        }
        let tri = Mat::real(3, 3, &[2.0, 1.0, 3.0, 0.0, -1.0, 4.0, 0.0, 0.0, 5.0]);
        let w = values(&linalg::eigvals(&tri.array(DType::F64)).unwrap());
        let diag: Vec<C> = (0..3).map(|k| tri.at(k, k)).collect();
        assert_same_values(&w, &diag, 1e-12, 1.0, "triangular: the eigenvalues are the diagonal");
    });
}

#[test]
fn eig_of_a_rotation_is_complex() {
    with_device(&cpu(), || {
        // [[0, -1], [1, 0]] turns by 90 degrees: eigenvalues ±i.
        let rot = Mat::real(2, 2, &[0.0, -1.0, 1.0, 0.0]);
        for (dt, cdt) in [(DType::F64, DType::C128), (DType::F32, DType::C64)] {
            let (w, v) = linalg::eig(&rot.array(dt)).unwrap();
            assert_eq!((w.shape(), w.dtype()), (&[2usize][..], cdt), "{dt} rotation eigenvalues");
            assert_eq!((v.shape(), v.dtype()), (&[2usize, 2][..], cdt), "{dt} rotation eigenvectors");
            let w = values(&w);
            assert_same_values(&w, &[C::new(0.0, 1.0), C::new(0.0, -1.0)], tol(dt), 1.0, "rotation: ±i");
            assert_eigenpairs(&rot, &w, &mats(&v)[0], tol(dt), &format!("{dt} rotation"));
            let wv = linalg::eigvals(&rot.array(dt)).unwrap();
            assert_eq!(wv.dtype(), cdt);
            assert_same_values(&values(&wv), &w, tol(dt), 1.0, "rotation: eigvals = eig's w");
        }
    });
}

// ---- lstsq, pinv, matrix_rank, cond ------------------------------------------------------------

#[test]
fn lstsq_of_a_full_rank_overdetermined_system() {
    with_device(&cpu(), || {
        let (m, n) = (6, 3);
        for dt in [DType::F64, DType::C64] {
            let (cx, t) = (dt.is_complex(), tol(dt));
            let a = random(m, n, cx, 400).array(dt);
            let am = &mats(&a)[0];
            for k in [None, Some(2usize)] {
                let b = random(m, k.unwrap_or(1), cx, 401).array(dt);
                let bm = &mats(&b)[0];
                let b = if k.is_none() { b.reshape(&[m as isize]).unwrap() } else { b };
                let what = format!("{dt} lstsq, b of shape {:?}", b.shape());
                let (x, res, rank, s) = linalg::lstsq(&a, &b, None).unwrap();
                // The normal equations A^H A x = A^H b, solved on the host.
                let want = solve_ref(&am.h().mm(am), &am.h().mm(bm));
                let xm = match k {
                    None => {
                        assert_eq!(x.shape(), &[n], "{what}: x");
                        col(values(&x))
                    }
                    Some(k) => {
                        assert_eq!(x.shape(), &[n, k], "{what}: x");
                        mats(&x)[0].clone()
                    }
                };
                assert_eq!(x.dtype(), dt, "{what}: x");
                assert_close(&xm, &want, t, &format!("{what}: x solves the normal equations"));
                // Residuals: |b - A x|^2 of each column, real, shape (1,) for a 1-d b.
                let r = am.mm(&want).sub(bm);
                let want_res: Vec<C> = (0..bm.cols).map(|j| C::new(r.cols(j, j + 1).norm().powi(2), 0.0)).collect();
                assert_eq!((res.shape(), res.dtype()), (&[bm.cols][..], real_of(dt)), "{what}: residuals");
                assert_close(&col(values(&res)), &col(want_res), t, &format!("{what}: residuals"));
                assert_eq!(rank.item::<i64>().unwrap(), n as i64, "{what}: rank");
                assert_eq!((s.shape(), s.dtype()), (&[n][..], real_of(dt)), "{what}: s");
                let sv = values(&linalg::svdvals(&a).unwrap());
                assert_close(&col(values(&s)), &col(sv), t, &format!("{what}: s are the singular values"));
            }
        }
    });
}

#[test]
fn lstsq_of_rank_deficient_and_underdetermined_systems_gives_the_minimum_norm_solution() {
    with_device(&cpu(), || {
        // The third column is the sum of the first two: rank 2, null space along (1, 1, -1).
        let am = rank_two(1.0, 1.0);
        let a = am.array(DType::F64);
        let bm = random(5, 1, false, 411);
        let (x, res, rank, s) = linalg::lstsq(&a, &bm.array(DType::F64).reshape(&[5]).unwrap(), None).unwrap();
        assert_eq!(rank.item::<i64>().unwrap(), 2);
        assert_eq!((res.shape(), res.dtype()), (&[0usize][..], DType::F64), "rank-deficient: no residuals");
        assert_eq!(s.shape(), &[3]);
        let xm = col(values(&x));
        // x satisfies the normal equations and has no part along the null space.
        let grad = am.h().mm(&am.mm(&xm).sub(&bm));
        assert_small(&grad, am.norm() * (am.norm() * xm.norm() + bm.norm()), 1e-10, "A^T (A x - b) = 0");
        let along: C = xm.v[0] + xm.v[1] - xm.v[2];
        assert!(along.norm() <= 1e-10 * xm.norm(), "x is orthogonal to the null space: {along}");
        // Underdetermined (M < N): x solves the system exactly, with the least norm
        // (x = A^H (A A^H)^-1 b).
        let am = random(2, 4, true, 412);
        let bm = random(2, 3, true, 413);
        let (x, res, rank, _) = linalg::lstsq(&am.array(DType::C128), &bm.array(DType::C128), None).unwrap();
        assert_eq!((x.shape(), x.dtype()), (&[4usize, 3][..], DType::C128));
        assert_eq!((res.shape(), res.dtype()), (&[0usize][..], DType::F64), "M < N: no residuals");
        assert_eq!(rank.item::<i64>().unwrap(), 2);
        let want = am.h().mm(&solve_ref(&am.mm(&am.h()), &bm));
        assert_close(&mats(&x)[0], &want, 1e-10, "underdetermined: the minimum-norm solution");
    });
}

#[test]
fn pinv_satisfies_the_penrose_conditions() {
    with_device(&cpu(), || {
        // Rank 2, with a cutoff above the rounding of its zero singular value.
        let deficient = rank_two(1.0, -1.0);
        for (am, dt, rcond) in [
            (random(4, 3, false, 421), DType::F64, None),
            (random(3, 5, true, 422), DType::C128, None),
            (deficient, DType::F64, Some(1e-10)),
        ] {
            let a = am.array(dt);
            let p = linalg::pinv(&a, rcond).unwrap();
            assert_eq!((p.shape(), p.dtype()), (&[am.cols, am.rows][..], dt), "pinv of {}x{}", am.rows, am.cols);
            let pm = &mats(&p)[0];
            let what = format!("{dt} {}x{}", am.rows, am.cols);
            assert_close(&am.mm(pm).mm(&am), &am, 1e-10, &format!("{what}: A P A = A"));
            assert_close(&pm.mm(&am).mm(pm), pm, 1e-10, &format!("{what}: P A P = P"));
            let (ap, pa) = (am.mm(pm), pm.mm(&am));
            assert_close(&ap.h(), &ap, 1e-10, &format!("{what}: A P is Hermitian"));
            assert_close(&pa.h(), &pa, 1e-10, &format!("{what}: P A is Hermitian"));
        }
        // A stack keeps its batch axes.
        let a = stack_array(&[random(4, 2, false, 423), random(4, 2, false, 424)], &[2], DType::F32);
        let p = linalg::pinv(&a, None).unwrap();
        assert_eq!((p.shape(), p.dtype()), (&[2usize, 2, 4][..], DType::F32));
        for (am, pm) in mats(&a).iter().zip(mats(&p)) {
            assert_close(&pm.mm(am), &Mat::eye(2), 1e-4, "float32 stack: P A = I for full column rank");
        }
    });
}

#[test]
fn matrix_rank_of_full_deficient_and_1d_inputs() {
    with_device(&cpu(), || {
        let rank = |a: &Array| linalg::matrix_rank(a, None).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(rank(&well_conditioned(4, false, 430).array(DType::F64)), vec![4]);
        let deficient = rank_two(2.0, 1.0);
        assert_eq!(rank(&deficient.array(DType::F64)), vec![2]);
        assert_eq!(rank(&deficient.array(DType::C64)), vec![2]);
        assert_eq!(rank(&deficient.h().array(DType::F64)), vec![2], "the transpose has the same rank");
        // A stack: full, deficient, zero.
        let rank_one = Mat::real(3, 3, &[1.0, 2.0, -1.0, 2.0, 4.0, -2.0, -3.0, -6.0, 3.0]);
        let ms = [well_conditioned(3, false, 432), rank_one, Mat::new(3, 3, vec![ZERO; 9])];
        let a = stack_array(&ms, &[3], DType::F64);
        let got = linalg::matrix_rank(&a, None).unwrap();
        assert_eq!(got.shape(), &[3]);
        assert_eq!(got.to_vec::<i64>().unwrap(), vec![3, 1, 0]);
        // 1-d input: rank 1 unless all zero.
        let v = Array::from_slice(&[0.0, 2.0, 0.0], &[3]).unwrap();
        assert_eq!(linalg::matrix_rank(&v, None).unwrap().item::<i64>().unwrap(), 1);
        let z = Array::from_slice(&[0.0f32; 4], &[4]).unwrap();
        assert_eq!(linalg::matrix_rank(&z, None).unwrap().item::<i64>().unwrap(), 0);
        // An explicit tolerance above every singular value gives 0.
        let a = well_conditioned(3, false, 433).array(DType::F64);
        assert_eq!(linalg::matrix_rank(&a, Some(1e6)).unwrap().item::<i64>().unwrap(), 0);
    });
}

#[test]
fn cond_from_singular_values_and_from_norms() {
    with_device(&cpu(), || {
        let am = well_conditioned(4, false, 440);
        let a = am.array(DType::F64);
        let s = values(&linalg::svdvals(&a).unwrap());
        let (smax, smin) = (s[0].re, s[3].re);
        let c = |p: Option<NormOrd>| linalg::cond(&a, p).unwrap().item::<f64>().unwrap();
        let close = |got: f64, want: f64, what: &str| {
            assert!((got - want).abs() <= 1e-10 * want.abs(), "cond {what}: {got} != {want}");
        };
        close(c(None), smax / smin, "None");
        close(c(Some(NormOrd::P(2.0))), smax / smin, "2");
        close(c(Some(NormOrd::P(-2.0))), smin / smax, "-2");
        let inv = solve_ref(&am, &Mat::eye(4));
        close(c(Some(NormOrd::Fro)), am.norm() * inv.norm(), "'fro'");
        // The 1-norm: the largest column sum of magnitudes.
        let norm1 =
            |m: &Mat| (0..m.cols).map(|j| (0..m.rows).map(|i| m.at(i, j).norm()).sum::<f64>()).fold(0.0, f64::max);
        close(c(Some(NormOrd::P(1.0))), norm1(&am) * norm1(&inv), "1");
        // A stack gives one condition number per matrix.
        let ms = [well_conditioned(3, true, 441), random(3, 3, true, 442)];
        let a = stack_array(&ms, &[2], DType::C128);
        let got = linalg::cond(&a, None).unwrap();
        assert_eq!((got.shape(), got.dtype()), (&[2usize][..], DType::F64));
        let got = values(&got);
        for (i, s) in rows_of(&linalg::svdvals(&a).unwrap()).iter().enumerate() {
            close(got[i].re, s[0].re / s[2].re, &format!("stack [{i}]"));
        }
    });
}

// ---- norms and matrix_power --------------------------------------------------------------------

#[test]
fn spectral_and_nuclear_norms_are_singular_values() {
    with_device(&cpu(), || {
        for (dt, rdt) in [(DType::F64, DType::F64), (DType::C64, DType::F32), (DType::C128, DType::F64)] {
            let am = random(4, 3, dt.is_complex(), 450);
            let a = am.array(dt);
            let am = &mats(&a)[0];
            let t = tol(dt);
            // The singular values, checked against the eigenvalues of A^H A (their squares).
            let s: Vec<f64> = values(&linalg::svdvals(&a).unwrap()).iter().map(|z| z.re).collect();
            let ev = values(&linalg::eigvalsh(&am.h().mm(am).array(DType::C128), "L").unwrap());
            for (k, sk) in s.iter().enumerate() {
                let e = ev[2 - k].re;
                assert!((sk * sk - e).abs() <= t * (1.0 + e), "{dt} s[{k}]^2 = {} != eigenvalue {e}", sk * sk);
            }
            let norm = |ord| linalg::norm(&a, Some(ord), None, false).unwrap();
            for (ord, want) in
                [(NormOrd::P(2.0), s[0]), (NormOrd::P(-2.0), s[2]), (NormOrd::Nuc, s.iter().sum::<f64>())]
            {
                let got = norm(ord);
                assert_eq!((got.ndim(), got.dtype()), (0, rdt), "{dt} norm {ord:?}");
                let got = values(&got)[0].re;
                assert!((got - want).abs() <= t * want, "{dt} norm {ord:?}: {got} != {want}");
            }
        }
    });
}

#[test]
fn spectral_norms_over_two_axes_of_a_3d_array() {
    with_device(&cpu(), || {
        // x of shape (3, 4, 2); the matrices over axes (0, 1) are x[:, :, k].
        let (d0, d1, d2) = (3usize, 4usize, 2usize);
        let flat = random(1, d0 * d1 * d2, false, 460);
        let x = Array::from_slice(&flat.v.iter().map(|z| z.re).collect::<Vec<f64>>(), &[d0, d1, d2]).unwrap();
        let at = |i: usize, j: usize, k: usize| flat.v[(i * d1 + j) * d2 + k];
        let svals = |m: &Mat| -> Vec<f64> {
            values(&linalg::svdvals(&m.array(DType::F64)).unwrap()).iter().map(|z| z.re).collect()
        };
        let close = |got: &Array, want: &[f64], what: &str| {
            let got = values(got);
            assert_eq!(got.len(), want.len(), "{what}");
            for (g, w) in got.iter().zip(want) {
                assert!((g.re - w).abs() <= 1e-10 * w.abs(), "{what}: {} != {w}", g.re);
            }
        };
        for ord in [NormOrd::P(2.0), NormOrd::P(-2.0), NormOrd::Nuc] {
            let pick = |s: Vec<f64>| match ord {
                NormOrd::P(p) if p > 0.0 => s[0],
                NormOrd::P(_) => *s.last().unwrap(),
                _ => s.iter().sum(),
            };
            // axis (0, 1): one norm per k.
            let want: Vec<f64> = (0..d2).map(|k| pick(svals(&Mat::from_fn(d0, d1, |i, j| at(i, j, k))))).collect();
            let got = linalg::norm(&x, Some(ord), Some(&[0, 1]), false).unwrap();
            assert_eq!(got.shape(), &[d2], "{ord:?} axis (0, 1)");
            close(&got, &want, &format!("{ord:?} axis (0, 1)"));
            let kept = linalg::norm(&x, Some(ord), Some(&[0, 1]), true).unwrap();
            assert_eq!(kept.shape(), &[1, 1, d2], "{ord:?} axis (0, 1) keepdims");
            close(&kept, &want, &format!("{ord:?} axis (0, 1) keepdims"));
            // axis (-1, 0): the matrices x[:, j, :] transposed, one norm per j.
            let want: Vec<f64> = (0..d1).map(|j| pick(svals(&Mat::from_fn(d2, d0, |k, i| at(i, j, k))))).collect();
            let got = linalg::norm(&x, Some(ord), Some(&[-1, 0]), false).unwrap();
            assert_eq!(got.shape(), &[d1], "{ord:?} axis (-1, 0)");
            close(&got, &want, &format!("{ord:?} axis (-1, 0)"));
            let kept = linalg::norm(&x, Some(ord), Some(&[-1, 0]), true).unwrap();
            assert_eq!(kept.shape(), &[1, d1, 1], "{ord:?} axis (-1, 0) keepdims");
            close(&kept, &want, &format!("{ord:?} axis (-1, 0) keepdims"));
            // axis (1, 2): one norm per i.
            let want: Vec<f64> = (0..d0).map(|i| pick(svals(&Mat::from_fn(d1, d2, |j, k| at(i, j, k))))).collect();
            let kept = linalg::norm(&x, Some(ord), Some(&[1, 2]), true).unwrap();
            assert_eq!(kept.shape(), &[d0, 1, 1], "{ord:?} axis (1, 2) keepdims");
            close(&kept, &want, &format!("{ord:?} axis (1, 2) keepdims"));
        }
    });
}

#[test]
fn negative_matrix_powers_are_powers_of_the_inverse() {
    with_device(&cpu(), || {
        for dt in [DType::F64, DType::C128] {
            let am = well_conditioned(3, dt.is_complex(), 470);
            let a = am.array(dt);
            let inv = solve_ref(&am, &Mat::eye(3));
            let p2 = linalg::matrix_power(&a, -2).unwrap();
            assert_eq!((p2.shape(), p2.dtype()), (&[3usize, 3][..], dt));
            assert_close(&mats(&p2)[0], &inv.mm(&inv), 1e-10, &format!("{dt} A^-2 = inv(A) @ inv(A)"));
            assert_close(&mats(&p2)[0].mm(&am).mm(&am), &Mat::eye(3), 1e-10, &format!("{dt} A^-2 A A = I"));
            let p1 = linalg::matrix_power(&a, -1).unwrap();
            assert_close(&mats(&p1)[0], &inv, 1e-10, &format!("{dt} A^-1 = inv(A)"));
        }
        // Integers: the inverse is float64.
        let a = Array::from_slice(&[2i64, 1, 1, 3], &[2, 2]).unwrap();
        let p = linalg::matrix_power(&a, -3).unwrap();
        assert_eq!(p.dtype(), DType::F64);
        let am = Mat::real(2, 2, &[2.0, 1.0, 1.0, 3.0]);
        let a3 = am.mm(&am).mm(&am);
        assert_close(&mats(&p)[0].mm(&a3), &Mat::eye(2), 1e-12, "int64 A^-3 A^3 = I");
        // A stack.
        let ms = [well_conditioned(2, false, 471), well_conditioned(2, false, 472)];
        let a = stack_array(&ms, &[2], DType::F64);
        let p = linalg::matrix_power(&a, -2).unwrap();
        assert_eq!(p.shape(), &[2, 2, 2]);
        for (am, pm) in mats(&a).iter().zip(mats(&p)) {
            assert_close(&pm.mm(am).mm(am), &Mat::eye(2), 1e-10, "stack: A^-2 A A = I");
        }
    });
}

// ---- real / imag -------------------------------------------------------------------------------

#[test]
fn real_and_imag_are_views_of_complex_arrays() {
    with_device(&cpu(), || {
        let zs = [
            C::new(1.0, 2.0),
            C::new(-3.0, 0.5),
            C::new(0.0, -4.0),
            C::new(2.5, 0.0),
            C::new(-1.0, -1.0),
            C::new(7.0, 8.0),
        ];
        let z = Array::from_slice(&zs, &[2, 3]).unwrap();
        for (dt, rdt) in [(DType::C128, DType::F64), (DType::C64, DType::F32)] {
            let z = z.astype(dt).unwrap();
            let (re, im) = (z.real(), z.imag().unwrap());
            assert_eq!((re.shape(), re.dtype()), (&[2usize, 3][..], rdt));
            assert_eq!((im.shape(), im.dtype()), (&[2usize, 3][..], rdt));
            assert!(re.shares_buffer(&z) && im.shares_buffer(&z), "{dt}: real and imag are views");
            let got = |a: &Array| values(a).iter().map(|x| x.re).collect::<Vec<f64>>();
            assert_eq!(got(&re), zs.iter().map(|x| x.re).collect::<Vec<_>>());
            assert_eq!(got(&im), zs.iter().map(|x| x.im).collect::<Vec<_>>());
            // Of a transposed view: z.T.real is z.real.T.
            let zt = z.t();
            let want_t: Vec<C> = (0..3).flat_map(|j| (0..2).map(move |i| zs[i * 3 + j])).collect();
            assert_eq!(zt.real().shape(), &[3, 2]);
            assert_eq!(got(&zt.real()), want_t.iter().map(|x| x.re).collect::<Vec<_>>());
            assert_eq!(got(&zt.imag().unwrap()), want_t.iter().map(|x| x.im).collect::<Vec<_>>());
        }
        // Writing through the views changes the complex array (z.real[...] = 9; z.imag[...] = -1).
        let z = Array::from_slice(&zs, &[2, 3]).unwrap();
        z.real().fill(9.0).unwrap();
        assert_eq!(values(&z), zs.iter().map(|x| C::new(9.0, x.im)).collect::<Vec<_>>());
        z.imag().unwrap().fill(-1.0).unwrap();
        assert_eq!(values(&z), vec![C::new(9.0, -1.0); 6]);
        // A real array: real is itself, imag is zeros of its dtype.
        let r = Array::from_slice(&[1.5f32, -2.0, 3.0], &[3]).unwrap();
        let (re, im) = (r.real(), r.imag().unwrap());
        assert!(re.shares_buffer(&r));
        assert_eq!((re.dtype(), re.to_vec::<f32>().unwrap()), (DType::F32, vec![1.5, -2.0, 3.0]));
        assert_eq!((im.dtype(), im.shape(), im.to_vec::<f32>().unwrap()), (DType::F32, &[3usize][..], vec![0.0; 3]));
        let i = Array::from_slice(&[4i64, 5], &[2]).unwrap();
        assert_eq!(i.imag().unwrap().to_vec::<i64>().unwrap(), vec![0, 0]);
    });
}

// ---- dtypes ------------------------------------------------------------------------------------

#[test]
fn integer_and_bool_input_is_computed_in_float64() {
    with_device(&cpu(), || {
        let am = Mat::real(3, 3, &[4.0, 1.0, 2.0, 0.0, 3.0, -1.0, 1.0, 1.0, 5.0]);
        let a = Array::from_slice(&[4i64, 1, 2, 0, 3, -1, 1, 1, 5], &[3, 3]).unwrap();
        let b = Array::from_slice(&[1i64, -2, 3], &[3]).unwrap();
        let x = linalg::solve(&a, &b).unwrap();
        assert_eq!(x.dtype(), DType::F64, "solve of int64 arrays");
        let bm = Mat::real(3, 1, &[1.0, -2.0, 3.0]);
        assert_close(&col(values(&x)), &solve_ref(&am, &bm), 1e-12, "solve of int64 arrays");
        let a32 = a.astype(DType::I32).unwrap();
        let inv = linalg::inv(&a32).unwrap();
        assert_eq!(inv.dtype(), DType::F64, "inv of int32");
        assert_close(&mats(&inv)[0], &solve_ref(&am, &Mat::eye(3)), 1e-12, "inv of int32");
        let det = linalg::det(&a).unwrap();
        assert_eq!(det.dtype(), DType::F64, "det of int64");
        assert_close_c(values(&det)[0], det_ref(&am), 1e-12, "det of int64");
        let (sign, logdet) = linalg::slogdet(&a).unwrap();
        assert_eq!((sign.dtype(), logdet.dtype()), (DType::F64, DType::F64), "slogdet of int64");
        assert_eq!(linalg::svdvals(&a).unwrap().dtype(), DType::F64, "svdvals of int64");
        assert_eq!(linalg::eigvalsh(&a, "L").unwrap().dtype(), DType::F64, "eigvalsh of int64");
        assert_eq!(linalg::qr(&a, QrMode::R).unwrap().1.dtype(), DType::F64, "qr of int64");
        let u8s = Array::from_slice(&[2u8, 1, 1, 2], &[2, 2]).unwrap();
        assert_eq!(linalg::cholesky(&u8s, false).unwrap().dtype(), DType::F64, "cholesky of uint8");
        let bools = Array::from_slice(&[true, false, false, true], &[2, 2]).unwrap();
        let inv = linalg::inv(&bools).unwrap();
        assert_eq!((inv.dtype(), inv.to_vec::<f64>().unwrap()), (DType::F64, vec![1.0, 0.0, 0.0, 1.0]), "inv of bool");
        // With another operand, integers and bool count as float64 (NumPy's linalg
        // `_commonType`), whatever their width: float32 with int8 is float64, and complex64
        // with int32 complex128.
        let f32a = a.astype(DType::F32).unwrap();
        let c64a = a.astype(DType::C64).unwrap();
        for (x, y, want) in [
            (&f32a, b.clone(), DType::F64),
            (&f32a, b.astype(DType::I8).unwrap(), DType::F64),
            (&f32a, Array::from_slice(&[true, false, true], &[3]).unwrap(), DType::F64),
            (&c64a, b.astype(DType::I32).unwrap(), DType::C128),
            (&c64a, b.astype(DType::F32).unwrap(), DType::C64),
        ] {
            let what = format!("solve of {} and {}", x.dtype(), y.dtype());
            let got = linalg::solve(x, &y).unwrap();
            assert_eq!(got.dtype(), want, "{what}");
            assert_close(&col(values(&got)), &solve_ref(&am, &col(values(&y))), tol(want), &what);
            let (got, ..) = linalg::lstsq(x, &y, None).unwrap();
            assert_eq!(got.dtype(), want, "lstsq of {} and {}", x.dtype(), y.dtype());
        }
    });
}

#[test]
fn half_precision_input_is_unsupported() {
    with_device(&cpu(), || {
        let a = well_conditioned(2, false, 480).array(DType::F64);
        for dt in [DType::F16, DType::BF16] {
            let h = a.astype(dt).unwrap();
            let checks: Vec<(&str, Error)> = vec![
                ("solve", linalg::solve(&h, &h).unwrap_err()),
                ("inv", linalg::inv(&h).unwrap_err()),
                ("det", linalg::det(&h).unwrap_err()),
                ("slogdet", linalg::slogdet(&h).unwrap_err()),
                ("cholesky", linalg::cholesky(&h, false).unwrap_err()),
                ("qr", linalg::qr(&h, QrMode::Reduced).unwrap_err()),
                ("svd", linalg::svd(&h, false).unwrap_err()),
                ("svdvals", linalg::svdvals(&h).unwrap_err()),
                ("eigh", linalg::eigh(&h, "L").unwrap_err()),
                ("eig", linalg::eig(&h).unwrap_err()),
                ("pinv", linalg::pinv(&h, None).unwrap_err()),
                ("matrix_rank", linalg::matrix_rank(&h, None).unwrap_err()),
                ("lstsq", linalg::lstsq(&h, &h, None).unwrap_err()),
            ];
            for (op, e) in checks {
                assert!(matches!(e, Error::UnsupportedDType { .. }), "{op} of {dt}: {e:?}");
            }
            // With a supported operand too: NumPy refuses any float16 operand.
            let f = a.astype(DType::F32).unwrap();
            for (op, e) in [
                ("solve(float32, half)", linalg::solve(&f, &h).unwrap_err()),
                ("solve(half, float32)", linalg::solve(&h, &f).unwrap_err()),
                ("lstsq(float32, half)", linalg::lstsq(&f, &h, None).unwrap_err()),
            ] {
                assert!(matches!(e, Error::UnsupportedDType { .. }), "{op} of {dt}: {e:?}");
            }
        }
    });
}

// ---- errors ------------------------------------------------------------------------------------

#[test]
fn non_square_and_1d_input_is_a_linalg_error() {
    with_device(&cpu(), || {
        let wide = random(2, 3, false, 490).array(DType::F64);
        let stack = stack_array(&[random(3, 2, false, 491), random(3, 2, false, 492)], &[2], DType::F64);
        for a in [&wide, &stack] {
            assert_linalg_error(linalg::inv(a), "inv of a non-square matrix");
            assert_linalg_error(linalg::det(a), "det of a non-square matrix");
            assert_linalg_error(linalg::slogdet(a), "slogdet of a non-square matrix");
            assert_linalg_error(linalg::cholesky(a, false), "cholesky of a non-square matrix");
            assert_linalg_error(linalg::eigh(a, "L"), "eigh of a non-square matrix");
            assert_linalg_error(linalg::eigvalsh(a, "U"), "eigvalsh of a non-square matrix");
            assert_linalg_error(linalg::eig(a), "eig of a non-square matrix");
            assert_linalg_error(linalg::solve(a, &Array::from_slice(&[1.0, 2.0], &[2]).unwrap()), "solve");
            assert_linalg_error(linalg::matrix_power(a, -1), "matrix_power of a non-square matrix");
        }
        let v = Array::from_slice(&[1.0, 2.0, 3.0], &[3]).unwrap();
        assert_linalg_error(linalg::inv(&v), "inv of a 1-d array");
        assert_linalg_error(linalg::det(&v), "det of a 1-d array");
        assert_linalg_error(linalg::qr(&v, QrMode::Reduced), "qr of a 1-d array");
        assert_linalg_error(linalg::svd(&v, true), "svd of a 1-d array");
        assert_linalg_error(linalg::cholesky(&v, false), "cholesky of a 1-d array");
        assert_linalg_error(linalg::inv(&Array::from_slice(&[2.0], &[]).unwrap()), "inv of a 0-d array");
        // Singular matrices are LinAlg errors for solve and inv; det is 0.
        let sing = Mat::real(2, 2, &[1.0, 2.0, 2.0, 4.0]).array(DType::F64);
        assert_linalg_error(linalg::inv(&sing), "inv of a singular matrix");
        assert_linalg_error(linalg::matrix_power(&sing, -2), "matrix_power(-2) of a singular matrix");
        assert_eq!(linalg::det(&sing).unwrap().item::<f64>().unwrap(), 0.0);
    });
}

#[test]
fn solve_with_a_mismatched_b_is_a_value_error_naming_both_shapes() {
    with_device(&cpu(), || {
        let a = well_conditioned(3, false, 500).array(DType::F64);
        for b in [
            random(1, 4, false, 501).array(DType::F64).reshape(&[4]).unwrap(),
            random(4, 2, false, 502).array(DType::F64),
        ] {
            match linalg::solve(&a, &b) {
                Err(Error::Value { reason, .. }) => {
                    for shape in [format!("{:?}", a.shape()), format!("{:?}", b.shape())] {
                        assert!(reason.contains(&shape), "{reason:?} names shape {shape}");
                    }
                }
                other => panic!("solve with b of shape {:?}: expected Error::Value, got {other:?}", b.shape()),
            }
        }
        // Stacks that do not broadcast.
        let a = stack_array(&[well_conditioned(2, false, 503), well_conditioned(2, false, 504)], &[2], DType::F64);
        let b = stack_array(
            &[random(2, 1, false, 505), random(2, 1, false, 506), random(2, 1, false, 507)],
            &[3],
            DType::F64,
        );
        assert!(linalg::solve(&a, &b).is_err(), "stacks (2,) and (3,) do not broadcast");
    });
}

#[test]
fn bad_uplo_and_qr_mode_names_are_value_errors() {
    with_device(&cpu(), || {
        let a = hermitian(3, false, 510).array(DType::F64);
        for uplo in ["X", "lower", ""] {
            assert_eq!(kind(linalg::eigh(&a, uplo).unwrap_err()), "Value", "eigh UPLO={uplo:?}");
            assert_eq!(kind(linalg::eigvalsh(&a, uplo).unwrap_err()), "Value", "eigvalsh UPLO={uplo:?}");
        }
        for (name, mode) in [("reduced", QrMode::Reduced), ("complete", QrMode::Complete), ("r", QrMode::R)] {
            assert_eq!(QrMode::from_name(name).unwrap(), mode);
        }
        for name in ["raw", "economic", "full"] {
            assert_eq!(kind(QrMode::from_name(name).unwrap_err()), "Value", "qr mode {name:?}");
        }
    });
}

#[test]
fn empty_matrices() {
    with_device(&cpu(), || {
        let e = Array::from_slice::<f64>(&[], &[0, 0]).unwrap();
        let inv = linalg::inv(&e).unwrap();
        assert_eq!((inv.shape(), inv.dtype()), (&[0usize, 0][..], DType::F64));
        let det = linalg::det(&e).unwrap();
        assert_eq!((det.ndim(), det.dtype(), det.item::<f64>().unwrap()), (0, DType::F64, 1.0));
        let (sign, logdet) = linalg::slogdet(&e).unwrap();
        assert_eq!((sign.item::<f64>().unwrap(), logdet.item::<f64>().unwrap()), (1.0, 0.0));
        // A stack of two 0x0 matrices.
        let es = Array::from_slice::<f32>(&[], &[2, 0, 0]).unwrap();
        let det = linalg::det(&es).unwrap();
        assert_eq!((det.dtype(), det.to_vec::<f32>().unwrap()), (DType::F32, vec![1.0, 1.0]));
        assert_eq!(linalg::inv(&es).unwrap().shape(), &[2, 0, 0]);
        let x = linalg::solve(&e, &Array::from_slice::<f64>(&[], &[0]).unwrap()).unwrap();
        assert_eq!(x.shape(), &[0]);
        // Empty, not square: NumPy's shapes, with identity factors where they are square.
        let tall = Array::from_slice::<f64>(&[], &[3, 0]).unwrap();
        let (u, s, vh) = linalg::svd(&tall, true).unwrap();
        assert_eq!((u.shape(), s.shape(), vh.shape()), (&[3usize, 3][..], &[0usize][..], &[0usize, 0][..]));
        assert_eq!(mats(&u)[0], Mat::eye(3), "svd of a 3x0 matrix: U is the identity");
        let (u, s, vh) = linalg::svd(&tall, false).unwrap();
        assert_eq!((u.shape(), s.shape(), vh.shape()), (&[3usize, 0][..], &[0usize][..], &[0usize, 0][..]));
        let (u, _, vh) = linalg::svd(&tall.t(), true).unwrap();
        assert_eq!((u.shape(), vh.shape()), (&[0usize, 0][..], &[3usize, 3][..]));
        assert_eq!(mats(&vh)[0], Mat::eye(3), "svd of a 0x3 matrix: Vh is the identity");
        let (q, r) = linalg::qr(&tall, QrMode::Complete).unwrap();
        assert_eq!((q.as_ref().unwrap().shape(), r.shape()), (&[3usize, 3][..], &[3usize, 0][..]));
        assert_eq!(mats(&q.unwrap())[0], Mat::eye(3), "qr of a 3x0 matrix: Q is the identity");
        let (q, r) = linalg::qr(&tall, QrMode::Reduced).unwrap();
        assert_eq!((q.unwrap().shape(), r.shape()), (&[3usize, 0][..], &[0usize, 0][..]));
        assert_eq!(linalg::pinv(&tall, None).unwrap().shape(), &[0, 3]);
    });
}
