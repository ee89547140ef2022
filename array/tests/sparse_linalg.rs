//! Tests of `xp::sparse::linalg`, `xp::sparse::csgraph`, the sparse constructors, indexing and
//! reductions on the CPU backend. Reference values are SciPy 1.14's (as noted at each).

use std::sync::Arc;

use xp_array::sparse::csgraph::{connected_components, Connection};
use xp_array::sparse::linalg::{self as sla, EigshOptions, LeastSquaresOptions, SolverOptions, SparseNormOrd, Which};
use xp_array::sparse::{self, CsrMatrix};
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

fn i64s(a: &Array) -> Vec<i64> {
    a.astype(DType::I64).unwrap().to_vec::<i64>().unwrap()
}

fn csr(rows: usize, cols: usize, dense: &[f64]) -> CsrMatrix {
    let a = Array::from_slice(dense, &[rows, cols]).unwrap();
    CsrMatrix::from_dense(&a).unwrap()
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tol * w.abs().max(1.0), "{got:?} vs {want:?}");
    }
}

/// A small symmetric positive definite matrix.
fn spd() -> CsrMatrix {
    csr(4, 4, &[4., 1., 0., 0., 1., 3., 0., -1., 0., 0., 2., 0., 0., -1., 0., 5.])
}

/// The 1-d Poisson matrix of order `n` (tridiagonal 2, -1).
fn poisson(n: usize) -> CsrMatrix {
    let main = full(&[n], 2.0, DType::F64).unwrap();
    let off = full(&[n - 1], -1.0, DType::F64).unwrap();
    sparse::diags(&[&main, &off, &off], &[0, 1, -1], Some((n, n)), None).unwrap()
}

fn residual(a: &CsrMatrix, x: &Array, b: &Array) -> f64 {
    let r = f64s(&a.dot(x).unwrap().sub(b).unwrap());
    let bn = f64s(b).iter().map(|v| v * v).sum::<f64>().sqrt();
    r.iter().map(|v| v * v).sum::<f64>().sqrt() / bn
}

fn err_text<T: std::fmt::Debug>(r: Result<T>) -> String {
    r.expect_err("an error").to_string()
}

#[test]
fn direct_solvers_match_scipy() {
    with_device(&cpu(), || {
        let b = Array::from_vec(vec![1.0, 2., 3., 4.]).unwrap();
        // SciPy: spsolve(A, b) = [0, 1, 1.5, 1]
        close(&f64s(&sla::spsolve(&spd(), &b).unwrap()), &[0., 1., 1.5, 1.], 1e-12);
        let l = sparse::tril(&spd(), 0).unwrap();
        let x = sla::spsolve_triangular(&l, &b, true, false).unwrap();
        close(&f64s(&l.dot(&x).unwrap()), &[1., 2., 3., 4.], 1e-12);
        // A unit diagonal ignores the stored one: L with ones on the diagonal.
        let x = sla::spsolve_triangular(&l, &b, true, true).unwrap();
        close(&f64s(&x), &[1., 1., 3., 5.], 1e-12);
        let e = err_text(sla::spsolve(&csr(2, 3, &[1., 0., 0., 0., 1., 0.]), &b));
        assert!(e.contains("matrix must be square"), "{e}");
        let e = err_text(sla::spsolve(&spd(), &Array::from_vec(vec![1.0, 2.]).unwrap()));
        assert!(e.contains("dimension mismatch"), "{e}");
        let e = err_text(sla::spsolve_triangular(
            &csr(2, 2, &[1., 0., 1., 0.]),
            &b.slice(&[SliceArg::range(0, 2, 1)]).unwrap(),
            true,
            false,
        ));
        assert!(e.contains("singular"), "{e}");
        // A singular system gives NaNs, as SciPy's.
        let x = sla::spsolve(&csr(2, 2, &[1., 1., 1., 1.]), &Array::from_vec(vec![1.0, 2.]).unwrap()).unwrap();
        assert!(f64s(&x).iter().all(|v| v.is_nan()));
    });
}

#[test]
fn krylov_solvers_reach_their_tolerance() {
    with_device(&cpu(), || {
        let a = poisson(50);
        let b = Array::from_vec((0..50).map(|i| ((i * 7) % 11) as f64 - 5.0).collect::<Vec<_>>()).unwrap();
        let o = SolverOptions { rtol: Some(1e-8), ..Default::default() };
        for (name, r) in [
            ("cg", sla::cg(&a, &b, &o)),
            ("cgs", sla::cgs(&a, &b, &o)),
            ("bicgstab", sla::bicgstab(&a, &b, &o)),
            ("gmres", sla::gmres(&a, &b, Some(50), &o)),
            ("minres", sla::minres(&a, &b, &o)),
        ] {
            let (x, info) = r.unwrap();
            assert_eq!(info, 0, "{name}");
            assert_eq!(x.dtype(), DType::F64);
            assert!(residual(&a, &x, &b) <= 1e-7, "{name}: {}", residual(&a, &x, &b));
        }
        // gmres restarted every 5 steps still converges; maxiter 1 of cg reports 1.
        let (x, info) =
            sla::gmres(&a, &b, Some(10), &SolverOptions { rtol: Some(1e-3), ..Default::default() }).unwrap();
        assert!(info == 0 && residual(&a, &x, &b) <= 1e-2);
        let (_, info) = sla::cg(&a, &b, &SolverOptions { maxiter: Some(1), ..Default::default() }).unwrap();
        assert_eq!(info, 1);
        // A Jacobi preconditioner (the inverse diagonal) as an operator.
        let m = sparse::diags(&[&full(&[50], 0.5, DType::F64).unwrap()], &[0], None, None).unwrap();
        let (x, info) =
            sla::cg(&a, &b, &SolverOptions { rtol: Some(1e-8), m: Some(&m), ..Default::default() }).unwrap();
        assert!(info == 0 && residual(&a, &x, &b) <= 1e-7);
        // float32 stays float32.
        let o32 = SolverOptions { maxiter: Some(5), ..Default::default() };
        let (x, _) = sla::cg(&a.astype(DType::F32).unwrap(), &b.astype(DType::F32).unwrap(), &o32).unwrap();
        assert_eq!(x.dtype(), DType::F32);
        // Bad input.
        let e = err_text(sla::cg(&csr(2, 3, &[1., 0., 0., 0., 1., 0.]), &b, &o));
        assert!(e.contains("expected square matrix"), "{e}");
        let e = err_text(sla::cg(&a, &Array::from_vec(vec![1.0, 2.]).unwrap(), &o));
        assert!(e.contains("are incompatible"), "{e}");
        let bad = poisson(3);
        let e = err_text(sla::cg(&a, &b, &SolverOptions { m: Some(&bad), ..Default::default() }));
        assert!(e.contains("preconditioner"), "{e}");
    });
}

#[test]
fn least_squares_of_a_tall_system() {
    with_device(&cpu(), || {
        let a = csr(6, 3, &[2., 0., 1., 0., 3., 0., 1., 0., 4., 0., 1., 0., 1., 1., 1., 0., 0., 2.]);
        let xt = Array::from_vec(vec![1.0, -2., 0.5]).unwrap();
        let b = a.dot(&xt).unwrap();
        let o = LeastSquaresOptions { atol: Some(1e-10), btol: Some(1e-10), ..Default::default() };
        for r in [sla::lsqr(&a, &b, &o).unwrap(), sla::lsmr(&a, &b, &o).unwrap()] {
            close(&f64s(&r.x), &[1., -2., 0.5], 1e-8);
            assert!(r.istop == 1 || r.istop == 2, "{}", r.istop);
        }
    });
}

#[test]
fn eigsh_and_svds_match_scipy() {
    with_device(&cpu(), || {
        let a = spd();
        // SciPy: eigvalsh = [2, 2.120614758428183, 4.347296355333861, 5.532088886237957]
        let o = EigshOptions { which: Which::LA, ..Default::default() };
        let (w, v) = sla::eigsh(&a, 2, &o).unwrap();
        close(&f64s(&w), &[4.347296355333861, 5.532088886237957], 1e-10);
        assert_eq!(v.shape(), &[4, 2]);
        let (w, _) = sla::eigsh(&a, 1, &EigshOptions { which: Which::SA, ..Default::default() }).unwrap();
        close(&f64s(&w), &[2.0], 1e-10);
        let n = 100;
        let p = poisson(n);
        let (w, _) = sla::eigsh(&p, 3, &EigshOptions::default()).unwrap();
        let exact: Vec<f64> =
            (n - 2..=n).map(|k| 2.0 - 2.0 * (k as f64 * std::f64::consts::PI / (n as f64 + 1.0)).cos()).collect();
        close(&f64s(&w), &exact, 1e-9);
        let e = err_text(sla::eigsh(&a, 4, &EigshOptions::default()));
        assert!(e.contains("k=4 must be between 1 and ndim(A)-1=3"), "{e}");
        // svds of a diagonal matrix with a zero row: the singular values are |d|.
        let d = csr(4, 3, &[3., 0., 0., 0., -5., 0., 0., 0., 1., 0., 0., 0.]);
        let (u, s, vt) = sla::svds(&d, 2, &EigshOptions::default()).unwrap();
        close(&f64s(&s), &[3., 5.], 1e-10);
        assert_eq!((u.shape(), vt.shape()), (&[4, 2][..], &[2, 3][..]));
        let e = err_text(sla::svds(&d, 3, &EigshOptions::default()));
        assert!(e.contains("k must be between 1 and min(A.shape)"), "{e}");
        assert!("XX".parse::<Which>().is_err());
    });
}

#[test]
fn norms_and_powers_match_scipy() {
    with_device(&cpu(), || {
        let a = spd();
        // SciPy: norm(A) = 7.615773105863909, ord 1 / inf = 6, ord -1 / -inf = 2
        let want = [
            (None, 7.615773105863909),
            (Some(SparseNormOrd::P(1.0)), 6.0),
            (Some(SparseNormOrd::P(f64::INFINITY)), 6.0),
            (Some(SparseNormOrd::P(-1.0)), 2.0),
            (Some(SparseNormOrd::P(f64::NEG_INFINITY)), 2.0),
        ];
        for (ord, w) in want {
            let v = sla::norm(&a, ord, None).unwrap();
            assert_eq!(v.ndim(), 0);
            close(&f64s(&v), &[w], 1e-14);
        }
        close(&f64s(&sla::norm(&a, None, Some(1)).unwrap()), &[17f64.sqrt(), 11f64.sqrt(), 2., 26f64.sqrt()], 1e-14);
        assert_eq!(sla::norm(&a.astype(DType::F32).unwrap(), None, None).unwrap().dtype(), DType::F32);
        assert_eq!("fro".parse::<SparseNormOrd>().unwrap(), SparseNormOrd::Fro);
        let p3 = sla::matrix_power(&a, 3).unwrap().toarray().unwrap();
        let d = a.toarray().unwrap();
        let want = d.matmul(&d).unwrap().matmul(&d).unwrap();
        close(&f64s(&p3), &f64s(&want), 1e-14);
        assert_eq!(
            f64s(&sla::matrix_power(&a, 0).unwrap().toarray().unwrap()),
            f64s(&sparse::identity(4, DType::F64).unwrap().toarray().unwrap())
        );
        assert!(err_text(sla::matrix_power(&csr(1, 2, &[1., 2.]), 2)).contains("not square"));
    });
}

#[test]
fn reductions_count_the_implicit_zeros() {
    with_device(&cpu(), || {
        let b = csr(3, 4, &[0., -2., 0., 3., 1., 0., 0., 0., 0., 0., 0., 0.]);
        // SciPy (csr_array): max/min/argmax/argmin/mean along 0, 1 and None.
        assert_eq!(f64s(&b.max(Some(0)).unwrap()), vec![1., 0., 0., 3.]);
        assert_eq!(f64s(&b.min(Some(0)).unwrap()), vec![0., -2., 0., 0.]);
        assert_eq!(i64s(&b.argmax(Some(0)).unwrap()), vec![1, 1, 0, 0]);
        assert_eq!(i64s(&b.argmin(Some(0)).unwrap()), vec![0, 0, 0, 1]);
        assert_eq!(f64s(&b.max(Some(1)).unwrap()), vec![3., 1., 0.]);
        assert_eq!(f64s(&b.min(Some(-1)).unwrap()), vec![-2., 0., 0.]);
        assert_eq!(i64s(&b.argmax(Some(1)).unwrap()), vec![3, 0, 0]);
        assert_eq!(i64s(&b.argmin(Some(1)).unwrap()), vec![1, 1, 0]);
        assert_eq!((f64s(&b.max(None).unwrap()), f64s(&b.min(None).unwrap())), (vec![3.], vec![-2.]));
        assert_eq!((i64s(&b.argmax(None).unwrap()), i64s(&b.argmin(None).unwrap())), (vec![3], vec![1]));
        assert_eq!(b.argmax(None).unwrap().dtype(), DType::I64);
        close(&f64s(&b.mean(Some(0)).unwrap()), &[1. / 3., -2. / 3., 0., 1.], 1e-15);
        close(&f64s(&b.mean(Some(1)).unwrap()), &[0.25, 0.25, 0.], 1e-15);
        close(&f64s(&b.mean(None).unwrap()), &[1. / 6.], 1e-15);
        assert!(matches!(b.max(Some(2)), Err(Error::Axis { .. })));
        assert!(err_text(csr(0, 3, &[]).max(Some(0))).contains("zero-size"));
        let c = b.astype(DType::C128).unwrap();
        assert!(matches!(c.max(None), Err(Error::DType { .. })));
    });
}

#[test]
fn indexing_rows_and_columns() {
    with_device(&cpu(), || {
        let b = csr(3, 4, &[0., -2., 0., 3., 1., 0., 0., 0., 0., 5., 0., 0.]);
        // SciPy: B[::-2] and B[:, [3, 3, -4]]
        let r = b.slice_rows(None, None, Some(-2)).unwrap();
        assert_eq!(r.shape(), (2, 4));
        assert_eq!(f64s(&r.toarray().unwrap()), vec![0., 5., 0., 0., 0., -2., 0., 3.]);
        let c = b.take_cols(&Array::from_vec(vec![3i64, 3, -4]).unwrap()).unwrap();
        assert_eq!(f64s(&c.toarray().unwrap()), vec![3., 3., 0., 0., 0., 1., 0., 0., 0.]);
        let r = b.take_rows(&Array::from_vec(vec![-1i64, 0, 0]).unwrap()).unwrap();
        assert_eq!(f64s(&r.toarray().unwrap()), vec![0., 5., 0., 0., 0., -2., 0., 3., 0., -2., 0., 3.]);
        assert_eq!(b.slice_rows(Some(5), Some(9), None).unwrap().shape(), (0, 4));
        assert!(matches!(b.take_cols(&Array::from_vec(vec![4i64]).unwrap()), Err(Error::Index { .. })));
        assert!(err_text(b.slice_rows(None, None, Some(0))).contains("step cannot be zero"));
    });
}

#[test]
fn constructors_match_scipy() {
    with_device(&cpu(), || {
        let a = csr(2, 2, &[1., 2., 0., 3.]);
        let b = csr(2, 2, &[0., 1., 1., 0.]);
        // SciPy: kron([[1, 2], [0, 3]], [[0, 1], [1, 0]])
        let k = sparse::kron(&a, &b).unwrap();
        assert_eq!(f64s(&k.toarray().unwrap()), vec![0., 1., 0., 2., 1., 0., 2., 0., 0., 0., 0., 3., 0., 0., 3., 0.]);
        let h = sparse::hstack(&[&a, &b]).unwrap();
        assert_eq!(f64s(&h.toarray().unwrap()), vec![1., 2., 0., 1., 0., 3., 1., 0.]);
        let v = sparse::vstack(&[&a, &b]).unwrap();
        assert_eq!(v.shape(), (4, 2));
        let d = sparse::block_diag(&[&a, &csr(1, 1, &[7.])]).unwrap();
        assert_eq!(f64s(&d.toarray().unwrap()), vec![1., 2., 0., 0., 3., 0., 0., 0., 7.]);
        assert_eq!(f64s(&sparse::tril(&a, 0).unwrap().toarray().unwrap()), vec![1., 0., 0., 3.]);
        assert_eq!(f64s(&sparse::triu(&a, 1).unwrap().toarray().unwrap()), vec![0., 2., 0., 0.]);
        let e = err_text(sparse::hstack(&[&a, &csr(3, 1, &[1., 2., 3.])]));
        assert!(e.contains("blocks[0,:] has incompatible row dimensions"), "{e}");
        let e = err_text(sparse::vstack(&[&a, &csr(1, 3, &[1., 2., 3.])]));
        assert!(e.contains("blocks[:,0] has incompatible column dimensions"), "{e}");
        assert_eq!(
            sparse::kron(&a.astype(DType::F32).unwrap(), &b.astype(DType::F32).unwrap()).unwrap().dtype(),
            DType::F32
        );
    });
}

#[test]
fn connected_components_match_scipy() {
    with_device(&cpu(), || {
        let rows = Array::from_vec(vec![0i64, 1, 2, 4, 5]).unwrap();
        let cols = Array::from_vec(vec![1i64, 0, 3, 5, 4]).unwrap();
        let g = sparse::coo_matrix(&full(&[5], 1.0, DType::F64).unwrap(), &rows, &cols, Some((7, 7)))
            .unwrap()
            .tocsr()
            .unwrap();
        // SciPy: strong (5, [0, 0, 2, 1, 3, 3, 4]) renumbered by first appearance; weak (4, ...)
        let (n, lab) = connected_components(&g, true, Connection::Strong).unwrap();
        assert_eq!((n, lab.dtype()), (5, DType::I32));
        assert_eq!(i64s(&lab), vec![0, 0, 1, 2, 3, 3, 4]);
        let (n, lab) = connected_components(&g, true, Connection::Weak).unwrap();
        assert_eq!((n, i64s(&lab)), (4, vec![0, 0, 1, 1, 2, 2, 3]));
        let (n, _) = connected_components(&g, false, Connection::Strong).unwrap();
        assert_eq!(n, 4);
        assert!(err_text("both".parse::<Connection>()).contains("connection must be 'weak' or 'strong'"));
        assert!(err_text(connected_components(&csr(1, 2, &[1., 0.]), true, Connection::Weak)).contains("(N, N)"));
    });
}

#[test]
fn splu_matches_scipys_natural_ordering_and_solves() {
    // SciPy 1.17: splu(A, permc_spec="NATURAL") of [[1, 2, 0], [3, 4, 5], [0, 6, 7]].
    with_device(&cpu(), || {
        let a = csr(3, 3, &[1., 2., 0., 3., 4., 5., 0., 6., 7.]);
        let lu = sla::splu_with(&a, "NATURAL".parse().unwrap()).unwrap();
        assert_eq!((lu.shape(), lu.dtype()), ((3, 3), DType::F64));
        close(&f64s(&lu.L().unwrap().toarray().unwrap()), &[1., 0., 0., 0., 1., 0., 1. / 3., 1. / 9., 1.], 1e-14);
        close(&f64s(&lu.U().unwrap().toarray().unwrap()), &[3., 4., 5., 0., 6., 7., 0., 0., -22. / 9.], 1e-14);
        assert_eq!(i64s(&lu.perm_r().unwrap()), vec![2, 0, 1]);
        assert_eq!(i64s(&lu.perm_c().unwrap()), vec![0, 1, 2]);
        assert_eq!(lu.nnz().unwrap(), 11);
        let b = Array::from_vec(vec![1f64, 2., 3.]).unwrap();
        close(&f64s(&lu.solve(&b, linalg::Trans::N).unwrap()), &[0.0, 0.5, 0.0], 1e-14);
        close(
            &f64s(&lu.solve(&b, linalg::Trans::T).unwrap()),
            &[-0.2272727272727274, 0.4090909090909091, 0.13636363636363638],
            1e-13,
        );
        let solve = sla::factorized(&a).unwrap();
        let bm = Array::from_slice(&[1f64, 0., 0., 1., 1., 1.], &[3, 2]).unwrap();
        let x = solve(&bm).unwrap();
        assert_eq!(x.shape(), &[3, 2]);
        close(
            &f64s(&x),
            &[
                -0.18181818181818166,
                0.09090909090909086,
                0.5909090909090908,
                -0.04545454545454545,
                -0.36363636363636365,
                0.18181818181818182,
            ],
            1e-13,
        );
        // An integer matrix is factored in float64; float32 stays float32.
        let ai = CsrMatrix::from_dense(&Array::from_slice(&[1i64, 2, 0, 3, 4, 5, 0, 6, 7], &[3, 3]).unwrap()).unwrap();
        assert_eq!(sla::splu(&ai).unwrap().dtype(), DType::F64);
        assert_eq!(sla::splu(&a.astype(DType::F32).unwrap()).unwrap().dtype(), DType::F32);
    });
}

#[test]
fn splu_refuses_singular_and_non_square_matrices() {
    with_device(&cpu(), || {
        let e = sla::splu(&csr(2, 2, &[1., 2., 2., 4.])).unwrap_err().to_string();
        assert!(e.contains("splu") && e.contains("exactly singular"), "{e}");
        let e = sla::splu(&csr(2, 3, &[1.; 6])).unwrap_err().to_string();
        assert!(e.contains("splu") && e.contains("square"), "{e}");
        let lu = sla::splu(&spd()).unwrap();
        let e = lu.solve(&Array::from_vec(vec![1f64, 2.]).unwrap(), linalg::Trans::N).unwrap_err().to_string();
        assert!(e.contains("SuperLU.solve") && e.contains("[2]"), "{e}");
    });
}

/// The 1-d Laplacian `tridiag(-1, 2, -1)` of order `n`: eigenvalues `2 - 2 cos(j π / (n + 1))`.
fn laplacian(n: usize) -> CsrMatrix {
    let main = Array::from_vec(vec![2f64; n]).unwrap();
    let off = Array::from_vec(vec![-1f64; n - 1]).unwrap();
    sparse::diags(&[&off, &main, &off], &[-1, 0, 1], None, None).unwrap()
}

fn laplacian_eigs(n: usize) -> Vec<f64> {
    (1..=n).map(|j| 2.0 - 2.0 * (j as f64 * std::f64::consts::PI / (n as f64 + 1.0)).cos()).collect()
}

#[test]
fn lobpcg_finds_the_extreme_eigenvalues() {
    with_device(&cpu(), || {
        // SciPy 1.17's lobpcg(A, X, largest=True, maxiter=200, tol=1e-8) on the Laplacian of
        // order 100: [3.99903256, 3.99613119, 3.9912987], the analytic values, largest first.
        let n = 100;
        let a = laplacian(n);
        let x0 = random::default_rng(3).standard_normal(&[n, 3], DType::F64).unwrap();
        let o = sla::LobpcgOptions { tol: Some(1e-8), maxiter: Some(200), ..Default::default() };
        let (w, v) = sla::lobpcg(&a, &x0, &o).unwrap();
        let ev = laplacian_eigs(n);
        close(&f64s(&w), &[ev[n - 1], ev[n - 2], ev[n - 3]], 1e-9);
        assert_eq!(v.shape(), &[n, 3]);
        // The vectors are eigenvectors: A v - v w is small.
        let res = a.dot(&v).unwrap().sub(&v.mul(&w.reshape(&[1, 3]).unwrap()).unwrap()).unwrap();
        let r = f64s(&res).iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!(r < 1e-6, "residual {r}");
        // The smallest of diag(1..100) with the Jacobi preconditioner: [1, 2, 3] (SciPy's too).
        let d = Array::from_vec((1..=n).map(|i| i as f64).collect()).unwrap();
        let dm = sparse::diags(&[&d], &[0], None, None).unwrap();
        let dinv = Array::from_vec((1..=n).map(|i| 1.0 / i as f64).collect()).unwrap();
        let inv = sparse::diags(&[&dinv], &[0], None, None).unwrap();
        let o = sla::LobpcgOptions { m: Some(&inv), tol: Some(1e-9), maxiter: Some(100), largest: false };
        let (w, _) = sla::lobpcg(&dm, &x0, &o).unwrap();
        close(&f64s(&w), &[1.0, 2.0, 3.0], 1e-9);
        // A small problem (n < 5 k) is solved in the whole space, as SciPy's.
        let small = laplacian(8);
        let x8 = random::default_rng(4).standard_normal(&[8, 2], DType::F64).unwrap();
        let o = sla::LobpcgOptions { largest: false, ..Default::default() };
        let (w, v) = sla::lobpcg(&small, &x8, &o).unwrap();
        close(&f64s(&w), &laplacian_eigs(8)[..2], 1e-12);
        assert_eq!(v.shape(), &[8, 2]);
    });
}

#[test]
fn lobpcg_refuses_bad_shapes_and_complex_operators() {
    with_device(&cpu(), || {
        let a = laplacian(30);
        let x = random::default_rng(1).standard_normal(&[30, 2], DType::F64).unwrap();
        let e = sla::lobpcg(&csr(2, 3, &[1.; 6]), &x, &Default::default()).unwrap_err().to_string();
        assert!(e.contains("lobpcg") && e.contains("square"), "{e}");
        let bad = random::default_rng(1).standard_normal(&[29, 2], DType::F64).unwrap();
        let e = sla::lobpcg(&a, &bad, &Default::default()).unwrap_err().to_string();
        assert!(e.contains("lobpcg") && e.contains("[29, 2]"), "{e}");
        let m = laplacian(10);
        let o = sla::LobpcgOptions { m: Some(&m), ..Default::default() };
        let e = sla::lobpcg(&a, &x, &o).unwrap_err().to_string();
        assert!(e.contains("lobpcg") && e.contains("preconditioner"), "{e}");
        let e = sla::lobpcg(&a.astype(DType::C128).unwrap(), &x, &Default::default()).unwrap_err().to_string();
        assert!(e.contains("lobpcg") && e.contains("complex"), "{e}");
    });
}

#[test]
fn spilu_is_ilu0_keeping_the_pattern_of_a() {
    with_device(&cpu(), || {
        // A tridiagonal matrix has no fill: ILU(0) is its LU, and solves exactly.
        let t = laplacian(10);
        let b = Array::from_vec((0..10).map(|i| (i as f64).sin()).collect()).unwrap();
        let ilu = sla::spilu(&t).unwrap();
        let exact = sla::splu(&t).unwrap().solve(&b, linalg::Trans::N).unwrap();
        close(&f64s(&ilu.solve(&b, linalg::Trans::N).unwrap()), &f64s(&exact), 1e-12);
        // Complex and float32 factors keep their dtype.
        let tc = t.astype(DType::C128).unwrap();
        let xc = sla::spilu(&tc).unwrap().solve(&b, linalg::Trans::N).unwrap();
        assert_eq!(xc.dtype(), DType::C128);
        close(&f64s(&xc.real()), &f64s(&exact), 1e-12);
        assert_eq!(sla::spilu(&t.astype(DType::F32).unwrap()).unwrap().dtype(), DType::F32);
        // The 2-d Laplacian of a 4 x 4 grid fills in: ILU(0) drops the fill, and L U equals
        // A on A's pattern.
        let t4 = laplacian(4);
        let i4 = sparse::identity(4, DType::F64).unwrap();
        let a = sparse::kron(&i4, &t4).unwrap().add(&sparse::kron(&t4, &i4).unwrap()).unwrap();
        let lu = sla::spilu(&a).unwrap();
        assert_eq!(lu.nnz().unwrap(), a.nnz() + 16, "no fill beyond A's pattern (and L's unit diagonal)");
        let l = lu.L().unwrap().toarray().unwrap();
        let u = lu.U().unwrap().toarray().unwrap();
        let prod = f64s(&linalg::matmul(&l, &u).unwrap());
        let dense = f64s(&a.toarray().unwrap());
        for (k, (&p, &d)) in prod.iter().zip(&dense).enumerate() {
            if d != 0.0 {
                assert!((p - d).abs() < 1e-12, "(L U)[{k}] = {p}, A = {d}");
            }
        }
        let exact = linalg::solve(&a.toarray().unwrap(), &Array::from_vec(vec![1f64; 16]).unwrap()).unwrap();
        let approx = lu.solve(&Array::from_vec(vec![1f64; 16]).unwrap(), linalg::Trans::N).unwrap();
        let err = f64s(&approx.sub(&exact).unwrap()).iter().map(|x| x.abs()).fold(0.0, f64::max);
        assert!(err > 1e-6 && err < 1.0, "an approximation, not the exact inverse: {err}");
        // A zero pivot (which partial pivoting would swap away) is an error.
        let e = sla::spilu(&csr(2, 2, &[0., 1., 1., 0.])).unwrap_err().to_string();
        assert!(e.contains("spilu") && e.contains("singular"), "{e}");
        assert!(sla::splu(&csr(2, 2, &[0., 1., 1., 0.])).is_ok());
    });
}

/// The 5-point Laplacian of an `nx × ny` grid (`4` on the diagonal, `-1` for each neighbour).
fn poisson2d(nx: usize, ny: usize) -> CsrMatrix {
    let ix = sparse::identity(nx, DType::F64).unwrap();
    let iy = sparse::identity(ny, DType::F64).unwrap();
    sparse::kron(&poisson(nx), &iy).unwrap().add(&sparse::kron(&ix, &poisson(ny)).unwrap()).unwrap()
}

/// `Pr A Pc` from SciPy's `perm_r`/`perm_c` (row `i` of `A` to row `perm_r[i]`, column `j`
/// to column `perm_c[j]`), dense, row-major.
fn permuted(a: &[f64], n: usize, pr: &[i64], pc: &[i64]) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            out[pr[i] as usize * n + pc[j] as usize] = a[i * n + j];
        }
    }
    out
}

#[test]
fn splu_is_sparse_for_a_2d_poisson_system() {
    with_device(&cpu(), || {
        let a = poisson2d(40, 50);
        let n = 2000;
        assert_eq!(a.shape(), (n, n));
        let b = Array::from_vec((0..n).map(|i| ((i * 7 % 13) as f64) - 6.0).collect()).unwrap();
        let lu = sla::splu(&a).unwrap();
        let x = lu.solve(&b, linalg::Trans::N).unwrap();
        assert!(residual(&a, &x, &b) < 1e-10, "residual {}", residual(&a, &x, &b));
        // Far fewer stored entries than the n² of a dense factorisation.
        let nnz = lu.nnz().unwrap();
        assert!(nnz < n * n / 20 && nnz > a.nnz(), "nnz(L) + nnz(U) = {nnz}");
        // spsolve and factorized take the same route.
        let x2 = sla::spsolve(&a, &b).unwrap();
        assert!(residual(&a, &x2, &b) < 1e-10);
        let solve = sla::factorized(&a).unwrap();
        assert!(residual(&a, &solve(&b).unwrap(), &b) < 1e-10);
        // Several right-hand sides at once, and the transposed system.
        let bm = stack(&[&b, &b.mul_scalar(2.0).unwrap()], 1).unwrap();
        let xm = lu.solve(&bm, linalg::Trans::T).unwrap();
        assert_eq!(xm.shape(), &[n, 2]);
        let at = a.transpose().tocsr().unwrap();
        let col = |k: isize| xm.slice(&[SliceArg::ALL, SliceArg::Index(k)]).unwrap();
        assert!(residual(&at, &col(0), &b) < 1e-10);
        assert!(residual(&at, &col(1), &b.mul_scalar(2.0).unwrap()) < 1e-10);
    });
}

#[test]
fn splu_factors_satisfy_pr_a_pc_equals_l_u() {
    with_device(&cpu(), || {
        // A non-symmetric matrix that needs pivoting, under both orderings.
        let n = 30;
        let mut dense = vec![0.0; n * n];
        for i in 0..n {
            dense[i * n + i] = 0.5 + (i % 3) as f64 * 0.25;
            dense[i * n + (i * 7 + 3) % n] += 2.0 + i as f64 * 0.1;
            dense[((i * 11 + 5) % n) * n + i] -= 1.5;
        }
        let a = csr(n, n, &dense);
        for ordering in [sla::ColumnOrdering::Natural, sla::ColumnOrdering::Colamd] {
            let lu = sla::splu_with(&a, ordering).unwrap();
            let l = f64s(&lu.L().unwrap().toarray().unwrap());
            let u = f64s(&lu.U().unwrap().toarray().unwrap());
            for i in 0..n {
                assert_eq!(l[i * n + i], 1.0, "unit diagonal");
                for j in i + 1..n {
                    assert_eq!(l[i * n + j], 0.0, "L is lower triangular");
                    assert_eq!(u[j * n + i], 0.0, "U is upper triangular");
                }
            }
            let prod = f64s(
                &linalg::matmul(&Array::from_slice(&l, &[n, n]).unwrap(), &Array::from_slice(&u, &[n, n]).unwrap())
                    .unwrap(),
            );
            let pa = permuted(&dense, n, &i64s(&lu.perm_r().unwrap()), &i64s(&lu.perm_c().unwrap()));
            close(&prod, &pa, 1e-12);
            let b = Array::from_vec((0..n).map(|i| i as f64).collect()).unwrap();
            assert!(residual(&a, &lu.solve(&b, linalg::Trans::N).unwrap(), &b) < 1e-12);
        }
        // A column without entries cannot be pivoted; spsolve answers NaNs for it.
        let mut gap = dense.clone();
        for i in 0..n {
            gap[i * n + 4] = 0.0;
        }
        let e = err_text(sla::splu(&csr(n, n, &gap)));
        assert!(e.contains("splu") && e.contains("exactly singular"), "{e}");
        let x = sla::spsolve(&csr(n, n, &gap), &Array::from_vec(vec![1.0; n]).unwrap()).unwrap();
        assert!(f64s(&x).iter().all(|v| v.is_nan()));
        assert!(err_text("MMD_ATA".parse::<sla::ColumnOrdering>()).contains("permc_spec"));
    });
}

#[test]
fn splu_solves_complex_and_conjugate_transposed_systems() {
    with_device(&cpu(), || {
        let a = poisson2d(6, 7);
        let n = 42;
        let shift = sparse::identity(n, DType::C128).unwrap().mul_scalar(J).unwrap();
        let ac = a.astype(DType::C128).unwrap().add(&shift).unwrap();
        let b = Array::from_vec((0..n).map(|i| (i as f64).cos()).collect()).unwrap().astype(DType::C128).unwrap();
        let lu = sla::splu(&ac).unwrap();
        assert_eq!(lu.dtype(), DType::C128);
        let dense = ac.toarray().unwrap();
        for (trans, m) in [
            (linalg::Trans::N, dense.clone()),
            (linalg::Trans::T, dense.permute(&[1, 0]).unwrap()),
            (linalg::Trans::C, dense.permute(&[1, 0]).unwrap().conj().unwrap()),
        ] {
            let x = lu.solve(&b, trans).unwrap();
            let want = linalg::solve(&m, &b).unwrap();
            let d = x.sub(&want).unwrap().abs().unwrap().max(None, false).unwrap();
            assert!(f64s(&d)[0] < 1e-12, "{trans:?}");
        }
        // A complex right-hand side for real factors.
        let lr = sla::splu(&a).unwrap();
        let bc = b.mul_scalar(num_complex::Complex::new(1.0, -2.0)).unwrap();
        let x = lr.solve(&bc, linalg::Trans::N).unwrap();
        assert_eq!(x.dtype(), DType::C128);
        let want = linalg::solve(&a.toarray().unwrap().astype(DType::C128).unwrap(), &bc).unwrap();
        assert!(f64s(&x.sub(&want).unwrap().abs().unwrap().max(None, false).unwrap())[0] < 1e-12);
        // float32 factors solve in float32.
        let l32 = sla::splu(&a.astype(DType::F32).unwrap()).unwrap();
        let x = l32.solve(&Array::from_vec(vec![1f32; n]).unwrap(), linalg::Trans::N).unwrap();
        assert_eq!(x.dtype(), DType::F32);
        assert!(residual(&a, &x.astype(DType::F64).unwrap(), &Array::from_vec(vec![1f64; n]).unwrap()) < 1e-5);
    });
}

/// ILU(0) of a canonical CSR matrix row by row on the host (the textbook IKJ order).
fn ilu0_reference(n: usize, ptr: &[i64], ind: &[i64], val: &mut [f64]) {
    for r in 0..n {
        let (s, e) = (ptr[r] as usize, ptr[r + 1] as usize);
        for p in s..e {
            let k = ind[p] as usize;
            if k >= r {
                break;
            }
            let (ks, ke) = (ptr[k] as usize, ptr[k + 1] as usize);
            let dk = (ks..ke).find(|&q| ind[q] as usize == k).unwrap();
            val[p] /= val[dk];
            let lik = val[p];
            let mut q = dk + 1;
            for pp in p + 1..e {
                let j = ind[pp];
                while q < ke && ind[q] < j {
                    q += 1;
                }
                if q < ke && ind[q] == j {
                    val[pp] -= lik * val[q];
                }
            }
        }
    }
}

#[test]
fn spilu_level_scheduled_equals_the_sequential_factorisation() {
    with_device(&cpu(), || {
        // A non-symmetric pattern with many levels and rows of several lengths.
        let n = 300;
        let mut dense = vec![0.0; n * n];
        for i in 0..n {
            dense[i * n + i] = 8.0 + (i % 5) as f64;
            for (k, off) in [1usize, 7, 30].iter().enumerate() {
                if i >= *off {
                    dense[i * n + i - off] = -1.0 - 0.1 * k as f64 - (i % 3) as f64 * 0.05;
                }
                if i + off * 2 < n {
                    dense[i * n + i + off * 2] = 0.7 + (i % 4) as f64 * 0.1;
                }
            }
        }
        let a = csr(n, n, &dense);
        let ptr = i64s(a.indptr());
        let ind = i64s(a.indices());
        let mut val = f64s(a.data());
        ilu0_reference(n, &ptr, &ind, &mut val);
        let lu = sla::spilu(&a).unwrap();
        let l = f64s(&lu.L().unwrap().toarray().unwrap());
        let u = f64s(&lu.U().unwrap().toarray().unwrap());
        for r in 0..n {
            for p in ptr[r] as usize..ptr[r + 1] as usize {
                let c = ind[p] as usize;
                let got = if c < r { l[r * n + c] } else { u[r * n + c] };
                assert_eq!(got.to_bits(), val[p].to_bits(), "({r}, {c})");
            }
        }
        // The level-scheduled triangular solves: L U x = b, (L U)ᵀ x = b.
        let b = Array::from_vec((0..n).map(|i| (i as f64 * 0.37).sin()).collect()).unwrap();
        let ld = Array::from_slice(&l, &[n, n]).unwrap();
        let ud = Array::from_slice(&u, &[n, n]).unwrap();
        let m = linalg::matmul(&ld, &ud).unwrap();
        let x = lu.solve(&b, linalg::Trans::N).unwrap();
        close(&f64s(&x), &f64s(&linalg::solve(&m, &b).unwrap()), 1e-12);
        let x = lu.solve(&b, linalg::Trans::T).unwrap();
        close(&f64s(&x), &f64s(&linalg::solve(&m.permute(&[1, 0]).unwrap(), &b).unwrap()), 1e-12);
        // Two right-hand sides at once.
        let bm = stack(&[&b, &b.mul_scalar(-3.0).unwrap()], 1).unwrap();
        let xm = lu.solve(&bm, linalg::Trans::N).unwrap();
        let want = linalg::solve(&m, &bm).unwrap();
        close(&f64s(&xm), &f64s(&want), 1e-12);
        // As GMRES's preconditioner it cuts the iterations.
        let o = SolverOptions { rtol: Some(1e-10), ..Default::default() };
        let (_, plain) = counted_gmres(&a, &b, &o, None);
        let (x, with) = counted_gmres(&a, &b, &o, Some(&lu));
        assert!(residual(&a, &x, &b) < 1e-9);
        assert!(with < plain, "{with} iterations with ILU(0), {plain} without");
    });
}

/// GMRES's answer and its number of products with `a`, with `m⁻¹` as the preconditioner.
fn counted_gmres(a: &CsrMatrix, b: &Array, o: &SolverOptions<'_>, m: Option<&sla::SuperLu>) -> (Array, usize) {
    let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c2 = count.clone();
    let n = a.shape().0;
    let ac = a.clone();
    let op = sla::FunctionOperator::new(
        (n, n),
        DType::F64,
        Box::new(move |x: &Array| {
            c2.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            ac.dot(x)
        }),
        None,
    );
    let pre = m.map(|m| {
        let m = m.clone();
        sla::FunctionOperator::new((n, n), DType::F64, Box::new(move |x: &Array| m.solve(x, linalg::Trans::N)), None)
    });
    let o = SolverOptions { m: pre.as_ref().map(|p| p as &dyn sla::LinearOperator), ..*o };
    let (x, info) = sla::gmres(&op, b, None, &o).unwrap();
    assert_eq!(info, 0);
    (x, count.load(std::sync::atomic::Ordering::Relaxed))
}

#[test]
fn expm_multiply_matches_scipy() {
    with_device(&cpu(), || {
        let dense = [-1., 2., 0., 0.5, 0., -3., 1., 0., 1.5, 0., -0.5, 2., 0., -1., 0., -2.];
        let a = csr(4, 4, &dense);
        let ad = Array::from_slice(&dense, &[4, 4]).unwrap();
        let b = Array::from_vec(vec![1., -1., 0.5, 2.]).unwrap();
        // SciPy 1.17: expm_multiply(csr_matrix(A), b).
        let want = [0.8530966913985051, 0.6522012511201469, 2.4619363697875, 0.13908539860643795];
        close(&f64s(&sla::expm_multiply(&a, &b, &Default::default()).unwrap()), &want, 1e-13);
        close(&f64s(&sla::expm_multiply(&ad, &b, &Default::default()).unwrap()), &want, 1e-13);
        // An operator known only by its products (Hager's norm estimate, no shift).
        let (a1, a2) = (ad.clone(), ad.clone());
        let f = sla::FunctionOperator::new(
            (4, 4),
            DType::F64,
            Box::new(move |x: &Array| a1.matmul(x)),
            Some(Box::new(move |x: &Array| a2.permute(&[1, 0])?.matmul(x))),
        );
        close(&f64s(&sla::expm_multiply(&f, &b, &Default::default()).unwrap()), &want, 1e-13);
        // expm_multiply(A, B, start=0, stop=2, num=4, endpoint=True): shape (4, 4, 2).
        let bm = Array::from_slice(&[1., 0., 0., 1., 1., 1., -1., 2.], &[4, 2]).unwrap();
        let o = sla::ExpmMultiplyOptions {
            start: Some(0.0),
            stop: Some(2.0),
            num: Some(4),
            endpoint: Some(true),
            trace_a: None,
        };
        let x = sla::expm_multiply(&a, &bm, &o).unwrap();
        assert_eq!(x.shape(), &[4, 4, 2]);
        close(
            &f64s(&x),
            &[
                1.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                -1.0,
                2.0,
                0.5422515521000635,
                0.9128828801803801,
                0.21405734097084209,
                0.6950883624810241,
                0.6688780470633271,
                2.232849153339151,
                -0.3281884382444701,
                0.26326044108323565,
                0.43287369284480415,
                1.1912026446307105,
                0.21150841182432487,
                0.7932572117116207,
                0.6279309147841631,
                2.4793045307262154,
                -0.1651811361273202,
                -0.2099695145865698,
                0.39455720135535005,
                1.3332763777235264,
                0.2120481328548991,
                0.8305739494980806,
                0.6423672575513756,
                2.5179643175037834,
                -0.12128569356275502,
                -0.3571923277399714,
            ],
            1e-12,
        );
        // expm_multiply(3 A, b, start=0.5, stop=1.5, num=3, endpoint=False) on a dense A.
        let a3 = ad.mul_scalar(3.0).unwrap();
        let o = sla::ExpmMultiplyOptions {
            start: Some(0.5),
            stop: Some(1.5),
            num: Some(3),
            endpoint: Some(false),
            trace_a: None,
        };
        let x = sla::expm_multiply(&a3, &b, &o).unwrap();
        assert_eq!(x.shape(), &[3, 4]);
        close(
            &f64s(&x),
            &[
                1.0924455006404956,
                0.7962046243602514,
                2.5242384144890155,
                -0.18608998754783565,
                1.344178740882828,
                0.8338317467802187,
                2.5027917829662267,
                -0.38378718658199934,
                1.4230967765184592,
                0.8387538019631384,
                2.5271569532734324,
                -0.4134460118394585,
            ],
            1e-12,
        );
        // A stiffer operator: -10 times tridiag(-1, 2, -1) of order 50 (s > 1 steps).
        let l10 = laplacian(50).mul_scalar(-10.0).unwrap();
        let v = Array::from_vec((0..50).map(|i| (i as f64).sin()).collect()).unwrap();
        let x = f64s(&sla::expm_multiply(&l10, &v, &Default::default()).unwrap());
        let want = [
            0.009975911391427957,
            0.018143410551588576,
            0.023266768275712436,
            0.024997902668822045,
            0.023820079288298962,
        ];
        close(&x[..5], &want, 1e-11);
        let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!((norm - 0.058883810566519826).abs() < 1e-12, "{norm}");
    });
}

#[test]
fn expm_multiply_refuses_bad_shapes() {
    with_device(&cpu(), || {
        let b = Array::from_vec(vec![1.0, 2.]).unwrap();
        let e = err_text(sla::expm_multiply(&csr(2, 3, &[1.; 6]), &b, &Default::default()));
        assert!(e.contains("expm_multiply") && e.contains("square"), "{e}");
        let e = err_text(sla::expm_multiply(&spd(), &b, &Default::default()));
        assert!(e.contains("expm_multiply") && e.contains("incompatible"), "{e}");
        let o = sla::ExpmMultiplyOptions { start: Some(0.0), stop: Some(1.0), num: Some(1), ..Default::default() };
        let e = err_text(sla::expm_multiply(&spd(), &Array::from_vec(vec![1.0; 4]).unwrap(), &o));
        assert!(e.contains("at least two time points"), "{e}");
        let o = sla::ExpmMultiplyOptions { num: Some(3), ..Default::default() };
        let e = err_text(sla::expm_multiply(&spd(), &Array::from_vec(vec![1.0; 4]).unwrap(), &o));
        assert!(e.contains("start and stop"), "{e}");
    });
}

#[test]
fn sparse_arrays_multiply_elementwise_and_reduce_to_1d() {
    with_device(&cpu(), || {
        // SciPy: csr_array(A) * csr_array(B) is A ⊙ B, @ the matrix product, sum(axis=0) 1-d.
        let a = sparse::CsrArray::from(csr(2, 3, &[1., 0., 2., 0., 3., 4.]));
        let b = sparse::CsrArray::from(csr(2, 3, &[5., 6., 0., 0., 7., 8.]));
        close(&f64s(&(&a * &b).toarray().unwrap()), &[5., 0., 0., 0., 21., 32.], 0.0);
        let x = Array::from_vec(vec![1.0, 1., 1.]).unwrap();
        close(&f64s(&a.matmul(&x).unwrap()), &[3., 7.], 0.0);
        let s0 = a.sum(Some(0)).unwrap();
        assert_eq!(s0.shape(), &[3]);
        close(&f64s(&s0), &[1., 3., 6.], 0.0);
        assert_eq!(a.sum(Some(1)).unwrap().shape(), &[2]);
        // The matrix form keeps numpy.matrix's 2-d sums.
        assert_eq!(a.clone().into_matrix().sum(Some(0)).unwrap().shape(), &[1, 3]);
        let c = sparse::CscArray::from(a.tocsc().unwrap());
        let d = sparse::CscArray::from(b.tocsc().unwrap());
        close(&f64s(&(&c * &d).toarray().unwrap()), &[5., 0., 0., 0., 21., 32.], 0.0);
        let coo = sparse::coo_array(
            &Array::from_vec(vec![1.0, 2.]).unwrap(),
            &Array::from_vec(vec![0i32, 1]).unwrap(),
            &Array::from_vec(vec![1i32, 1]).unwrap(),
            Some((2, 2)),
        )
        .unwrap();
        close(&f64s(&coo.sum(Some(0)).unwrap()), &[0., 3.], 0.0);
        // Mismatched shapes are an error from `multiply`.
        let e = err_text(a.multiply(&sparse::CsrArray::from(csr(3, 2, &[1.; 6]))));
        assert!(e.contains("multiply"), "{e}");
    });
}
