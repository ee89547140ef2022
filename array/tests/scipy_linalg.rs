//! SciPy's additions to `xp_array::linalg` (triangular and LU/Cholesky solves, `expm`, special matrices) on the CPU backend.
//! Reference values are SciPy 1.17's, printed to 17 digits and pasted here.

use std::sync::Arc;

use xp_array::linalg::{self, AssumeA, DftScale, SolveOptions, Trans};
use xp_array::signal::Mode;
use xp_array::*;
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn mat(dev: &Arc<dyn DynDevice>, rows: &[&[f64]]) -> Array {
    let flat: Vec<f64> = rows.iter().flat_map(|r| r.iter().copied()).collect();
    Array::from_slice_on(dev, &flat, &[rows.len(), rows[0].len()]).unwrap()
}

fn vecf(dev: &Arc<dyn DynDevice>, v: &[f64]) -> Array {
    Array::from_slice_on(dev, v, &[v.len()]).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// Every element within `rel` of the reference, relative to the reference's largest magnitude.
fn close(what: &str, got: &Array, want: &[f64], rel: f64) {
    let g = f64s(got);
    assert_eq!(g.len(), want.len(), "{what}: {g:?} vs {want:?}");
    let scale = want.iter().fold(0.0f64, |m, w| m.max(w.abs())).max(1e-300);
    for (i, (x, w)) in g.iter().zip(want).enumerate() {
        assert!((x - w).abs() <= rel * scale, "{what}[{i}]: got {x:e}, want {w:e} (all: {g:?})");
    }
}

fn kind(e: &Error) -> &'static str {
    e.kind()
}

#[test]
fn solve_triangular_every_trans_and_triangle() {
    let d = cpu();
    let u = mat(&d, &[&[4.0, 1.0, 2.0], &[0.0, 3.0, -1.0], &[0.0, 0.0, 2.0]]);
    let l = u.t();
    let b = vecf(&d, &[1.0, 2.0, 3.0]);
    // SciPy's answers.
    let x_n = [-0.7916666666666667, 1.1666666666666667, 1.5];
    let x_t = [0.25, 0.5833333333333334, 1.5416666666666667];
    for (trans, upper_want, lower_want) in [(Trans::N, x_n, x_t), (Trans::T, x_t, x_n), (Trans::C, x_t, x_n)] {
        close("upper", &linalg::solve_triangular(&u, &b, trans, false, false).unwrap(), &upper_want, 1e-15);
        close("lower", &linalg::solve_triangular(&l, &b, trans, true, false).unwrap(), &lower_want, 1e-15);
    }
    // Only the named triangle is read; a unit diagonal is not read at all.
    let full = u.add(&mat(&d, &[&[0.0, 0.0, 0.0], &[9.0, 0.0, 0.0], &[9.0, 9.0, 0.0]])).unwrap();
    close("triangle", &linalg::solve_triangular(&full, &b, Trans::N, false, false).unwrap(), &x_n, 1e-15);
    close("unit", &linalg::solve_triangular(&u, &b, Trans::N, false, true).unwrap(), &[-10.0, 5.0, 3.0], 1e-15);
    // float32 stays float32; several right-hand sides keep their shape.
    let x32 = linalg::solve_triangular(
        &u.astype(DType::F32).unwrap(),
        &b.astype(DType::F32).unwrap(),
        Trans::N,
        false,
        false,
    )
    .unwrap();
    assert_eq!(x32.dtype(), DType::F32);
    let bb = xp_array::stack(&[&b, &b.mul_scalar(2.0).unwrap()], 1).unwrap();
    let xx = linalg::solve_triangular(&u, &bb, Trans::N, false, false).unwrap();
    assert_eq!(xx.shape(), &[3, 2]);
    close("two", &xx, &[x_n[0], 2.0 * x_n[0], x_n[1], 2.0 * x_n[1], x_n[2], 2.0 * x_n[2]], 1e-15);
    // A stack of matrices with one vector each (b has one axis fewer than a).
    let stack = xp_array::stack(&[&u, &u], 0).unwrap();
    let bs = xp_array::stack(&[&b, &b], 0).unwrap();
    let xs = linalg::solve_triangular(&stack, &bs, Trans::N, false, false).unwrap();
    assert_eq!(xs.shape(), &[2, 3]);
    close("stack", &xs, &[x_n, x_n].concat(), 1e-15);
}

#[test]
fn solve_triangular_errors() {
    let d = cpu();
    let mut z = vec![1.0; 16];
    for i in 0..4 {
        for j in 0..i {
            z[i * 4 + j] = 0.0;
        }
    }
    z[2 * 4 + 2] = 0.0;
    let z = Array::from_slice_on(&d, &z, &[4, 4]).unwrap();
    let e = linalg::solve_triangular(&z, &vecf(&d, &[1.0; 4]), Trans::N, false, false).unwrap_err();
    assert_eq!(kind(&e), "LinAlg");
    assert!(e.to_string().contains("diagonal 2"), "{e}");
    let e = linalg::solve_triangular(&z, &vecf(&d, &[1.0; 3]), Trans::N, false, false).unwrap_err();
    assert_eq!(kind(&e), "Value");
    assert_eq!(kind(&Trans::from_int("solve_triangular", 3).unwrap_err()), "Value");
    assert_eq!("C".parse::<Trans>().unwrap(), Trans::C);
}

#[test]
fn lu_square_wide_and_tall_match_scipy() {
    let d = cpu();
    let m = mat(&d, &[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], &[7.0, 8.0, 10.0]]);
    let (p, l, u) = linalg::lu(&m, false).unwrap();
    let p = p.unwrap();
    assert_eq!(p.dtype(), DType::F64);
    close("P", &p, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0], 0.0);
    close("L", &l, &[1.0, 0.0, 0.0, 0.14285714285714285, 1.0, 0.0, 0.5714285714285714, 0.5000000000000002, 1.0], 1e-15);
    close("U", &u, &[7.0, 8.0, 10.0, 0.0, 0.8571428571428572, 1.5714285714285716, 0.0, 0.0, -0.5], 1e-15);
    let (none, pl, _) = linalg::lu(&m, true).unwrap();
    assert!(none.is_none());
    close("PL", &linalg::matmul(&pl, &u).unwrap(), &f64s(&m), 1e-15);

    let w = mat(&d, &[&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 9.0]]);
    let (p, l, u) = linalg::lu(&w, false).unwrap();
    close("wide P", &p.unwrap(), &[0.0, 1.0, 1.0, 0.0], 0.0);
    close("wide L", &l, &[1.0, 0.0, 0.2, 1.0], 1e-15);
    close("wide U", &u, &[5.0, 6.0, 7.0, 9.0, 0.0, 0.7999999999999998, 1.5999999999999999, 2.2], 1e-15);

    let t = mat(&d, &[&[1.0, 2.0], &[5.0, 6.0], &[7.0, 9.0], &[3.0, -4.0]]);
    let (p, l, u) = linalg::lu(&t, false).unwrap();
    close(
        "tall P",
        &p.unwrap(),
        &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        0.0,
    );
    close(
        "tall L",
        &l,
        &[
            1.0,
            0.0,
            0.42857142857142855,
            1.0,
            0.14285714285714285,
            -0.09090909090909094,
            0.7142857142857142,
            0.05454545454545447,
        ],
        1e-15,
    );
    close("tall U", &u, &[7.0, 9.0, 0.0, -7.857142857142857], 1e-15);
    // complex128 factors, float64 P.
    let (p, l, _) = linalg::lu(&m.astype(DType::C128).unwrap(), false).unwrap();
    assert_eq!((p.unwrap().dtype(), l.dtype()), (DType::F64, DType::C128));
}

#[test]
fn lu_factor_and_lu_solve() {
    let d = cpu();
    let m = mat(&d, &[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], &[7.0, 8.0, 10.0]]);
    let b = vecf(&d, &[1.0, 2.0, 3.0]);
    let (lu, piv) = linalg::lu_factor(&m).unwrap();
    assert_eq!(piv.dtype(), DType::I32);
    assert_eq!(piv.to_vec::<i32>().unwrap(), vec![2, 2, 2]);
    close(
        "lu",
        &lu,
        &[
            7.0,
            8.0,
            10.0,
            0.14285714285714285,
            0.8571428571428572,
            1.5714285714285716,
            0.5714285714285714,
            0.5000000000000002,
            -0.5,
        ],
        1e-15,
    );
    close("N", &linalg::lu_solve((&lu, &piv), &b, Trans::N).unwrap(), &[-1.0 / 3.0, 2.0 / 3.0, 0.0], 1e-15);
    close("T", &linalg::lu_solve((&lu, &piv), &b, Trans::T).unwrap(), &[1.0, 0.0, 0.0], 1e-15);
    let e = linalg::lu_solve((&lu, &piv), &vecf(&d, &[1.0; 4]), Trans::N).unwrap_err();
    assert_eq!(kind(&e), "Value");
}

#[test]
fn cholesky_factor_and_solve() {
    let d = cpu();
    let s = mat(&d, &[&[4.0, 2.0, 0.4], &[2.0, 5.0, 1.0], &[0.4, 1.0, 3.0]]);
    let b = vecf(&d, &[1.0, 2.0, 3.0]);
    let want = [0.0625, 0.18928571428571428, 0.9285714285714286];
    for lower in [false, true] {
        let (c, low) = linalg::cho_factor(&s, lower).unwrap();
        assert_eq!(low, lower);
        close("cho_solve", &linalg::cho_solve((&c, low), &b).unwrap(), &want, 1e-15);
    }
    let (c, _) = linalg::cho_factor(&s, false).unwrap();
    let c = f64s(&c);
    // SciPy's upper factor: [2, 1, 0.2], [., 2, 0.4], [., ., 1.6733200530681511].
    for (k, w) in [(0, 2.0), (1, 1.0), (2, 0.2), (4, 2.0), (5, 0.4), (8, 1.6733200530681511)] {
        assert!((c[k] - w).abs() < 1e-15, "c[{k}] = {}", c[k]);
    }
    let e = linalg::cho_factor(&mat(&d, &[&[-1.0, 0.0], &[0.0, -1.0]]), false).unwrap_err();
    assert_eq!(kind(&e), "LinAlg");
}

#[test]
fn solve_with_every_structure() {
    let d = cpu();
    let g = mat(&d, &[&[4.0, 1.0, 0.5], &[1.0, 5.0, 2.0], &[0.5, 2.0, 6.0]]);
    let b = mat(&d, &[&[1.0, 0.0], &[2.0, 1.0], &[3.0, -1.0]]);
    let want = f64s(&linalg::solve(&g, &b).unwrap());
    for assume in [
        None,
        Some(AssumeA::General),
        Some(AssumeA::Symmetric),
        Some(AssumeA::Hermitian),
        Some(AssumeA::PositiveDefinite),
        Some(AssumeA::Banded),
    ] {
        for lower in [false, true] {
            let opts = SolveOptions { assume_a: assume, lower, transposed: false };
            close(&format!("{assume:?}"), &linalg::solve_with(&g, &b, &opts).unwrap(), &want, 1e-14);
        }
    }
    // Only the named triangle is read for sym / pos.
    let upper_only = linalg::solve_with(
        &xp_array::triu(&g, 0).unwrap(),
        &b,
        &SolveOptions { assume_a: Some(AssumeA::PositiveDefinite), ..Default::default() },
    )
    .unwrap();
    close("pos upper", &upper_only, &want, 1e-14);
    // Structured matrices, named and detected.
    let tri = xp_array::triu(&g, 0).unwrap();
    let tri_want = f64s(&linalg::solve(&tri, &b).unwrap());
    for assume in [None, Some(AssumeA::UpperTriangular)] {
        let opts = SolveOptions { assume_a: assume, ..Default::default() };
        close("upper", &linalg::solve_with(&tri, &b, &opts).unwrap(), &tri_want, 1e-14);
    }
    let diag = mat(&d, &[&[2.0, 0.0, 0.0], &[0.0, 4.0, 0.0], &[0.0, 0.0, -8.0]]);
    let x = linalg::solve_with(&diag, &vecf(&d, &[1.0, 1.0, 1.0]), &SolveOptions::default()).unwrap();
    close("diagonal", &x, &[0.5, 0.25, -0.125], 0.0);
    // transposed
    let gt = mat(&d, &[&[4.0, 1.0, 0.0], &[2.0, 5.0, 2.0], &[0.5, 3.0, 6.0]]);
    let want_t = f64s(&linalg::solve(&gt.t(), &b).unwrap());
    let opts = SolveOptions { assume_a: Some(AssumeA::General), transposed: true, ..Default::default() };
    close("transposed", &linalg::solve_with(&gt, &b, &opts).unwrap(), &want_t, 1e-14);
    // Errors.
    let ones = mat(&d, &[&[1.0; 3], &[1.0; 3], &[1.0; 3]]);
    let general = SolveOptions { assume_a: Some(AssumeA::General), ..Default::default() };
    assert_eq!(kind(&linalg::solve_with(&ones, &vecf(&d, &[1.0; 3]), &general).unwrap_err()), "LinAlg");
    assert_eq!(kind(&linalg::solve_with(&g, &vecf(&d, &[1.0; 4]), &general).unwrap_err()), "Value");
    let pos = SolveOptions { assume_a: Some(AssumeA::PositiveDefinite), ..Default::default() };
    assert_eq!(kind(&linalg::solve_with(&g.negative().unwrap(), &b, &pos).unwrap_err()), "LinAlg");
    assert_eq!(kind(&"foo".parse::<AssumeA>().unwrap_err()), "Value");
    assert_eq!("upper triangular".parse::<AssumeA>().unwrap(), AssumeA::UpperTriangular);
}

#[test]
#[allow(clippy::excessive_precision)] // mpmath's digits, kept as printed
fn expm_matches_scipy() {
    let d = cpu();
    let e = mat(&d, &[&[0.0, 1.0], &[-2.0, -3.0]]);
    let small = [0.6004235991062717, 0.23254415793482947, -0.46508831586965843, -0.09720887469821604];
    close("expm", &linalg::expm(&e).unwrap(), &small, 1e-14);
    let big = mat(&d, &[&[3.0, 6.0], &[9.0, 12.0]]);
    // mpmath's (40 digits); SciPy's answer is 2e-12 away from it.
    let big_want = [2385847.2203626719, 3477197.9368894955, 5215796.9053342432, 7601644.1256969151];
    close("scaled", &linalg::expm(&big).unwrap(), &big_want, 1e-14);
    // A stack: each matrix its own scaling.
    let stack = xp_array::stack(&[&e, &big], 0).unwrap();
    let x = linalg::expm(&stack).unwrap();
    assert_eq!(x.shape(), &[2, 2, 2]);
    close("stack 0", &x.slice(&[SliceArg::range(0, 1, 1)]).unwrap(), &small, 1e-14);
    close("stack 1", &x.slice(&[SliceArg::range(1, 2, 1)]).unwrap(), &big_want, 1e-14);
    // Zero and nilpotent matrices; float32 stays float32.
    close("zero", &linalg::expm(&mat(&d, &[&[0.0, 0.0], &[0.0, 0.0]])).unwrap(), &[1.0, 0.0, 0.0, 1.0], 0.0);
    close("nilpotent", &linalg::expm(&mat(&d, &[&[0.0, 2.0], &[0.0, 0.0]])).unwrap(), &[1.0, 2.0, 0.0, 1.0], 1e-15);
    assert_eq!(linalg::expm(&e.astype(DType::F32).unwrap()).unwrap().dtype(), DType::F32);
    assert_eq!(kind(&linalg::expm(&Array::from_slice_on(&d, &[1.0; 6], &[2, 3]).unwrap()).unwrap_err()), "LinAlg");
}

#[test]
fn structured_matrices_from_vectors() {
    let d = cpu();
    let i64s = |v: &[i64]| Array::from_slice_on(&d, v, &[v.len()]).unwrap();
    let t = linalg::toeplitz(&i64s(&[1, 2, 3]), Some(&i64s(&[1, 4, 5, 6]))).unwrap();
    assert_eq!(t.dtype(), DType::I64);
    assert_eq!(t.to_vec::<i64>().unwrap(), vec![1, 4, 5, 6, 2, 1, 4, 5, 3, 2, 1, 4]);
    let h = linalg::hankel(&i64s(&[1, 2, 3]), Some(&i64s(&[3, 4, 5, 6]))).unwrap();
    assert_eq!(h.to_vec::<i64>().unwrap(), vec![1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6]);
    let c = linalg::circulant(&i64s(&[1, 2, 3])).unwrap();
    assert_eq!(c.to_vec::<i64>().unwrap(), vec![1, 3, 2, 2, 1, 3, 3, 2, 1]);
    assert_eq!(linalg::hankel(&i64s(&[1, 2]), None).unwrap().to_vec::<i64>().unwrap(), vec![1, 2, 2, 0]);
    assert_eq!(linalg::fiedler(&i64s(&[1, 4, 2])).unwrap().to_vec::<i64>().unwrap(), vec![0, 3, 1, 3, 0, 2, 1, 2, 0]);
    let kr = linalg::khatri_rao(
        &Array::from_slice_on(&d, &[1i64, 2, 3, 4], &[2, 2]).unwrap(),
        &Array::from_slice_on(&d, &[5i64, 6, 7, 8, 9, 10], &[3, 2]).unwrap(),
    )
    .unwrap();
    assert_eq!(kr.shape(), &[6, 2]);
    assert_eq!(kr.to_vec::<i64>().unwrap(), vec![5, 12, 7, 16, 9, 20, 15, 24, 21, 32, 27, 40]);
    let bd =
        linalg::block_diag(&[&Array::from_slice_on(&d, &[1i64, 2, 3, 4], &[2, 2]).unwrap(), &vecf(&d, &[5.0, 6.0])])
            .unwrap();
    assert_eq!((bd.shape(), bd.dtype()), (&[3usize, 4][..], DType::F64));
    close("block_diag", &bd, &[1.0, 2.0, 0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 5.0, 6.0], 0.0);
    assert_eq!(linalg::block_diag(&[]).unwrap().shape(), &[1, 0]);
    let cm = linalg::convolution_matrix(&vecf(&d, &[1.0, 2.0, 3.0, 4.0, 5.0]), 3, Mode::Same).unwrap();
    close("same", &cm, &[2.0, 1.0, 0.0, 3.0, 2.0, 1.0, 4.0, 3.0, 2.0, 5.0, 4.0, 3.0, 0.0, 5.0, 4.0], 0.0);
    assert_eq!(linalg::convolution_matrix(&vecf(&d, &[1.0; 5]), 8, Mode::Valid).unwrap().shape(), &[4, 8]);
    assert_eq!(linalg::convolution_matrix(&vecf(&d, &[1.0; 5]), 2, Mode::Full).unwrap().shape(), &[6, 2]);
    let (lo, up) = linalg::bandwidth(&mat(
        &d,
        &[&[1.0, 2.0, 0.0, 0.0], &[3.0, 4.0, 5.0, 0.0], &[0.0, 6.0, 7.0, 0.0], &[0.0, 0.0, 1.0, 1.0]],
    ))
    .unwrap();
    assert_eq!((lo.item::<i64>().unwrap(), up.item::<i64>().unwrap()), (1, 1));
}

#[test]
fn polynomial_and_population_matrices() {
    let d = cpu();
    let c = linalg::companion(&vecf(&d, &[2.0, -3.0, 0.5, 7.0])).unwrap();
    close("companion", &c, &[1.5, -0.25, -3.5, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], 0.0);
    let ci = linalg::companion(&Array::from_slice_on(&d, &[2i64, 1, 3], &[3]).unwrap()).unwrap();
    assert_eq!(ci.dtype(), DType::F64);
    let f = linalg::fiedler_companion(&vecf(&d, &[2.0, 1.0, 3.0, 4.0, 5.0, 6.0])).unwrap();
    #[rustfmt::skip]
    let f_want = [
        -0.5, -1.5, 1.0, 0.0, 0.0,
        1.0, 0.0, 0.0, 0.0, 0.0,
        0.0, -2.0, 0.0, -2.5, 1.0,
        0.0, 1.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, -3.0, 0.0,
    ];
    close("fiedler_companion", &f, &f_want, 0.0);
    let l = linalg::leslie(&vecf(&d, &[0.1, 2.0, 1.5]), &vecf(&d, &[0.2, 0.8])).unwrap();
    close("leslie", &l, &[0.1, 2.0, 1.5, 0.2, 0.0, 0.0, 0.0, 0.8, 0.0], 0.0);
    assert_eq!(kind(&linalg::companion(&vecf(&d, &[0.0, 1.0, 2.0])).unwrap_err()), "Value");
    assert_eq!(kind(&linalg::companion(&vecf(&d, &[1.0])).unwrap_err()), "Value");
    assert_eq!(kind(&linalg::fiedler_companion(&vecf(&d, &[0.0, 1.0])).unwrap_err()), "Value");
    assert_eq!(kind(&linalg::leslie(&vecf(&d, &[1.0, 2.0]), &vecf(&d, &[1.0, 2.0])).unwrap_err()), "Value");
    let two_d = Array::from_slice_on(&d, &[1.0; 3], &[3]).unwrap();
    assert_eq!(kind(&linalg::khatri_rao(&two_d, &two_d).unwrap_err()), "Value");
}

#[test]
fn generated_matrices_match_scipy() {
    let d = cpu();
    with_device(&d, || {
        let h = linalg::hadamard(4, None).unwrap();
        assert_eq!(h.dtype(), DType::I64);
        assert_eq!(h.to_vec::<i64>().unwrap(), vec![1, 1, 1, 1, 1, -1, 1, -1, 1, 1, -1, -1, 1, -1, -1, 1]);
        assert_eq!(linalg::hadamard(2, Some(DType::F32)).unwrap().dtype(), DType::F32);
        assert_eq!(kind(&linalg::hadamard(6, None).unwrap_err()), "Value");
        assert_eq!(kind(&linalg::hadamard(0, None).unwrap_err()), "Value");
        #[rustfmt::skip]
        let helmert = [
            0.5, 0.5, 0.5, 0.5,
            0.7071067811865475, -0.7071067811865475, 0.0, 0.0,
            0.4082482904638631, 0.4082482904638631, -0.8164965809277261, 0.0,
            0.2886751345948129, 0.2886751345948129, 0.2886751345948129, -0.8660254037844387,
        ];
        close("helmert", &linalg::helmert(4, true).unwrap(), &helmert, 0.0);
        assert_eq!(linalg::helmert(4, false).unwrap().shape(), &[3, 4]);
        let hil = f64s(&linalg::hilbert(3).unwrap());
        assert_eq!(hil, vec![1.0, 0.5, 1.0 / 3.0, 0.5, 1.0 / 3.0, 0.25, 1.0 / 3.0, 0.25, 0.2]);
        #[rustfmt::skip]
        let inv = [
            16.0, -120.0, 240.0, -140.0,
            -120.0, 1200.0, -2700.0, 1680.0,
            240.0, -2700.0, 6480.0, -4200.0,
            -140.0, 1680.0, -4200.0, 2800.0,
        ];
        close("invhilbert", &linalg::invhilbert(4).unwrap(), &inv, 0.0);
        let m = linalg::dft(3, None).unwrap();
        assert_eq!(m.dtype(), DType::C128);
        let re = f64s(&m.real());
        let im = f64s(&m.imag().unwrap());
        let s = 0.8660254037844386;
        let want_re = [1.0, 1.0, 1.0, 1.0, -0.5, -0.5, 1.0, -0.5, -0.5];
        let want_im = [0.0, 0.0, 0.0, 0.0, -s, s, 0.0, s, -s];
        for k in 0..9 {
            assert!((re[k] - want_re[k]).abs() < 1e-15 && (im[k] - want_im[k]).abs() < 1e-15, "dft[{k}]");
        }
        let unitary = linalg::dft(4, Some(DftScale::SqrtN)).unwrap();
        assert!((f64s(&unitary.real())[0] - 0.5).abs() < 1e-16);
        assert_eq!(kind(&"x".parse::<DftScale>().unwrap_err()), "Value");
    });
}

#[test]
fn lu_of_tall_rank_deficient_matrices() {
    let d = cpu();
    // SciPy's factors.
    let a = mat(&d, &[&[0.0, 0.0], &[0.0, 0.0], &[1.0, 0.0], &[0.0, 1.0], &[2.0, 0.0]]);
    let (p, l, u) = linalg::lu(&a, false).unwrap();
    #[rustfmt::skip]
    let p_want = [
        0.0, 0.0, 0.0, 0.0, 1.0,
        0.0, 0.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 1.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 0.0, 0.0,
        1.0, 0.0, 0.0, 0.0, 0.0,
    ];
    close("P", &p.unwrap(), &p_want, 0.0);
    close("L", &l, &[1.0, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0], 0.0);
    close("U", &u, &[2.0, 0.0, 0.0, 1.0], 0.0);
    let a = mat(&d, &[&[1.0, 2.0], &[1.0, 2.0], &[1.0, 2.0]]);
    let (p, l, u) = linalg::lu(&a, false).unwrap();
    close("P", &p.unwrap(), &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], 0.0);
    close("L", &l, &[1.0, 0.0, 1.0, 1.0, 1.0, 0.0], 0.0);
    close("U", &u, &[1.0, 2.0, 0.0, 0.0], 0.0);
}

#[test]
fn empty_matrices_keep_scipy_shapes() {
    let d = cpu();
    let z = |s: &[usize]| Array::full_on(&d, s, 0, DType::F64).unwrap();
    for (shape, want) in
        [([0, 0], [[0, 0], [0, 0], [0, 0]]), ([0, 3], [[0, 0], [0, 0], [0, 3]]), ([3, 0], [[3, 3], [3, 0], [0, 0]])]
    {
        let (p, l, u) = linalg::lu(&z(&shape), false).unwrap();
        assert_eq!([p.unwrap().shape(), l.shape(), u.shape()], [&want[0][..], &want[1][..], &want[2][..]], "{shape:?}");
    }
    assert_eq!(linalg::solve_triangular(&z(&[0, 0]), &z(&[0]), Trans::N, false, false).unwrap().shape(), &[0]);
    assert_eq!(linalg::expm(&z(&[0, 0])).unwrap().shape(), &[0, 0]);
    assert_eq!(linalg::solve_with(&z(&[0, 0]), &z(&[0, 2]), &SolveOptions::default()).unwrap().shape(), &[0, 2]);
    assert_eq!(linalg::toeplitz(&z(&[0]), None).unwrap().shape(), &[0, 0]);
    assert_eq!(linalg::circulant(&z(&[0])).unwrap().shape(), &[0, 0]);
    assert_eq!(linalg::fiedler(&z(&[0])).unwrap().shape(), &[0]);
    assert_eq!(linalg::lu_factor(&z(&[0, 0])).unwrap().1.shape(), &[0]);
}

#[test]
fn stacks_of_vectors_and_matrices() {
    let d = cpu();
    let ar = |v: Vec<f64>, s: &[usize]| Array::from_slice_on(&d, &v, s).unwrap();
    // SciPy 1.17's answers.
    let a = ar((0..6).map(f64::from).collect(), &[2, 3]);
    let cm = linalg::convolution_matrix(&a, 2, Mode::Full).unwrap();
    assert_eq!(cm.shape(), &[2, 4, 2]);
    let cm_want = [0.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 2.0, 3.0, 0.0, 4.0, 3.0, 5.0, 4.0, 0.0, 5.0];
    close("convolution_matrix", &cm, &cm_want, 0.0);
    let ka = ar((0..8).map(f64::from).collect(), &[2, 2, 2]);
    let kb = ar((1..5).map(f64::from).collect(), &[1, 2, 2]);
    let kr = linalg::khatri_rao(&ka, &kb).unwrap();
    assert_eq!(kr.shape(), &[2, 4, 2]);
    let kr_want = [0.0, 2.0, 0.0, 4.0, 2.0, 6.0, 6.0, 12.0, 4.0, 10.0, 12.0, 20.0, 6.0, 14.0, 18.0, 28.0];
    close("khatri_rao", &kr, &kr_want, 0.0);
    let bd = linalg::block_diag(&[&ka, &ar(vec![9.0], &[1])]).unwrap();
    assert_eq!(bd.shape(), &[2, 3, 3]);
    let bd_want = [0.0, 1.0, 0.0, 2.0, 3.0, 0.0, 0.0, 0.0, 9.0, 4.0, 5.0, 0.0, 6.0, 7.0, 0.0, 0.0, 0.0, 9.0];
    close("block_diag", &bd, &bd_want, 0.0);
    let t = linalg::toeplitz(&a, None).unwrap();
    assert_eq!(t.shape(), &[2, 3, 3]);
    close(
        "toeplitz",
        &t.slice(&[SliceArg::range(1, 2, 1)]).unwrap(),
        &[3.0, 4.0, 5.0, 4.0, 3.0, 4.0, 5.0, 4.0, 3.0],
        0.0,
    );
}
