//! `xp::sparse` on the CPU backend: the seeds' COO example, the constructors (`eye`,
//! `identity`, `diags`, `random`), explicit zeros, dtypes, and each bad input's error. The
//! products and conversions against dense arithmetic are in `parity_checks/sparse.rs`.

use std::sync::Arc;

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

fn seed_matrix() -> CsrMatrix {
    let rows = Array::from_vec(vec![0i64, 0, 1, 2, 2, 2]).unwrap();
    let cols = Array::from_vec(vec![0i64, 2, 2, 0, 1, 2]).unwrap();
    let vals = Array::from_vec(vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
    sparse::coo_matrix(&vals, &rows, &cols, Some((3, 3))).unwrap().tocsr().unwrap()
}

#[test]
fn the_seeds_coo_example_multiplies_to_7_9_32() {
    with_device(&cpu(), || {
        let a = seed_matrix();
        assert_eq!((a.shape(), a.nnz(), a.dtype()), ((3, 3), 6, DType::F32));
        assert_eq!(a.indices().dtype(), DType::I32, "SciPy's int32 indices when they fit");
        assert_eq!(i64s(a.indptr()), vec![0, 2, 3, 6]);
        let y = a.dot(&Array::from_vec(vec![1f32, 2., 3.]).unwrap()).unwrap();
        assert_eq!(y.dtype(), DType::F32);
        assert_eq!(f64s(&y), vec![7.0, 9.0, 32.0]);
        // A float64 vector promotes, as NumPy.
        let y = a.dot(&Array::from_vec(vec![1f64, 2., 3.]).unwrap()).unwrap();
        assert_eq!(y.dtype(), DType::F64);
    });
}

#[test]
fn constructors_build_what_scipy_builds() {
    with_device(&cpu(), || {
        let e = sparse::eye(3, Some(4), 1, DType::F64).unwrap();
        assert_eq!(f64s(&e.toarray().unwrap()), vec![0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.]);
        let e = sparse::eye(3, None, -1, DType::F32).unwrap();
        assert_eq!((e.nnz(), e.dtype()), (2, DType::F32));
        assert_eq!(f64s(&e.toarray().unwrap()), vec![0., 0., 0., 1., 0., 0., 0., 1., 0.]);
        let i = sparse::identity(4, DType::F64).unwrap();
        assert_eq!(f64s(&i.diagonal(0).unwrap()), vec![1.0; 4]);
        // diags([1, 2, 3], [0, 1, -2]) on 3x3: a broadcast scalar diagonal too.
        let main = Array::from_vec(vec![1f64, 2., 3.]).unwrap();
        let up = Array::from_vec(vec![5f64]).unwrap();
        let low = Array::from_vec(vec![7f64]).unwrap();
        let d = sparse::diags(&[&main, &up, &low], &[0, 1, -2], None, None).unwrap();
        assert_eq!(d.shape(), (3, 3));
        assert_eq!(f64s(&d.toarray().unwrap()), vec![1., 5., 0., 0., 2., 5., 7., 0., 3.]);
        // Longer diagonals are cut to the matrix (SciPy's diags([x, x], [0, -1], shape=(3, 3))).
        let d = sparse::diags(&[&main, &main], &[0, -1], Some((3, 3)), None).unwrap();
        assert_eq!(f64s(&d.toarray().unwrap()), vec![1., 0., 0., 1., 2., 0., 0., 2., 3.]);
        // random: the count, the range, the same matrix from the same seed.
        let r = sparse::random(200, 300, 0.05, DType::F64, 7).unwrap();
        assert_eq!(r.nnz(), 3000);
        let v = f64s(r.data());
        assert!(v.iter().all(|&x| (0.0..1.0).contains(&x)));
        let again = sparse::random(200, 300, 0.05, DType::F64, 7).unwrap();
        assert_eq!(f64s(again.data()), v);
        assert_eq!(i64s(again.indices()), i64s(r.indices()));
        let full = sparse::random(10, 10, 1.0, DType::F32, 1).unwrap();
        assert_eq!(full.nnz(), 100);
    });
}

#[test]
fn explicit_zeros_are_kept_until_eliminated() {
    with_device(&cpu(), || {
        let data = Array::from_vec(vec![1f64, 0., 2.]).unwrap();
        let mut a = sparse::csr_matrix(
            &data,
            &Array::from_vec(vec![0i64, 1, 1]).unwrap(),
            &Array::from_vec(vec![0i64, 2, 3]).unwrap(),
            None,
        )
        .unwrap();
        assert_eq!((a.shape(), a.nnz()), ((2, 2), 3));
        assert_eq!(a.indices().dtype(), DType::I64, "the given index dtype is kept");
        a.eliminate_zeros().unwrap();
        assert_eq!(a.nnz(), 2);
        assert_eq!(i64s(a.indptr()), vec![0, 1, 2]);
        assert_eq!(f64s(&a.toarray().unwrap()), vec![1., 0., 0., 2.]);
    });
}

#[test]
fn coo_keeps_integer_data_and_astype_converts() {
    with_device(&cpu(), || {
        let a = sparse::coo_matrix(
            &Array::from_vec(vec![1i32, 2]).unwrap(),
            &Array::from_vec(vec![0i32, 1]).unwrap(),
            &Array::from_vec(vec![1i32, 0]).unwrap(),
            None,
        )
        .unwrap();
        assert_eq!((a.shape(), a.dtype()), ((2, 2), DType::I32));
        assert_eq!(a.toarray().unwrap().dtype(), DType::I32);
        let c = a.tocsr().unwrap().astype(DType::C64).unwrap();
        assert_eq!(c.dtype(), DType::C64);
        assert_eq!(f64s(&c.toarray().unwrap().real()), vec![0., 1., 2., 0.]);
    });
}

/// `[[1, 0, -2], [0, 3, 0], [4, 0, 5]]` as int64.
fn int_matrix() -> CsrMatrix {
    let dense = Array::from_slice(&[1i64, 0, -2, 0, 3, 0, 4, 0, 5], &[3, 3]).unwrap();
    CsrMatrix::from_dense(&dense).unwrap()
}

/// The values of an int64 array, checking its dtype.
fn ints(a: &Array) -> Vec<i64> {
    assert_eq!(a.dtype(), DType::I64, "int64 kept");
    a.to_vec::<i64>().unwrap()
}

#[test]
fn integer_matrices_keep_int64_through_constructors_and_indexing() {
    // Expected values from SciPy 1.17 (`scipy.sparse` on the same matrices).
    with_device(&cpu(), || {
        let a = int_matrix();
        assert_eq!(a.dtype(), DType::I64);
        let b = CsrMatrix::from_dense(&Array::from_slice(&[0i64, 1, 2, 0], &[2, 2]).unwrap()).unwrap();
        let k = sparse::kron(&a, &b).unwrap();
        assert_eq!(
            ints(&k.toarray().unwrap()),
            vec![
                0, 1, 0, 0, 0, -2, 2, 0, 0, 0, -4, 0, 0, 0, 0, 3, 0, 0, 0, 0, 6, 0, 0, 0, 0, 4, 0, 0, 0, 5, 8, 0, 0, 0,
                10, 0
            ]
        );
        let h = sparse::hstack(&[&a, &a]).unwrap().toarray().unwrap();
        assert_eq!(ints(&h), vec![1, 0, -2, 1, 0, -2, 0, 3, 0, 0, 3, 0, 4, 0, 5, 4, 0, 5]);
        assert_eq!(
            sparse::vstack(&[
                &a,
                &b.slice_rows(None, None, None)
                    .unwrap()
                    .take_cols(&Array::from_vec(vec![0i64, 1, 1]).unwrap())
                    .unwrap()
            ])
            .unwrap()
            .dtype(),
            DType::I64
        );
        assert_eq!(sparse::block_diag(&[&a, &b]).unwrap().dtype(), DType::I64);
        assert_eq!(ints(&sparse::tril(&a, -1).unwrap().toarray().unwrap()), vec![0, 0, 0, 0, 0, 0, 4, 0, 0]);
        assert_eq!(ints(&sparse::triu(&a, 1).unwrap().toarray().unwrap()), vec![0, 0, -2, 0, 0, 0, 0, 0, 0]);
        assert_eq!(ints(&a.slice_rows(None, None, Some(-2)).unwrap().toarray().unwrap()), vec![4, 0, 5, 1, 0, -2]);
        let cols = Array::from_vec(vec![2i64, 0, 2]).unwrap();
        assert_eq!(ints(&a.take_cols(&cols).unwrap().toarray().unwrap()), vec![-2, 1, -2, 0, 0, 0, 5, 4, 5]);
        assert_eq!(ints(&a.tocsc().unwrap().toarray().unwrap()), ints(&a.toarray().unwrap()));
        assert_eq!(ints(&a.tocoo().unwrap().toarray().unwrap()), ints(&a.toarray().unwrap()));
        assert_eq!(ints(&a.diagonal(0).unwrap()), vec![1, 3, 5]);
        // Reductions: max/min keep int64, sum is int64, mean float64.
        assert_eq!(ints(&a.max(Some(0)).unwrap()), vec![4, 3, 5]);
        assert_eq!(ints(&a.min(Some(1)).unwrap()), vec![-2, 0, 0]);
        assert_eq!(ints(&a.argmin(None).unwrap().reshape(&[1]).unwrap()), vec![2]);
        assert_eq!(ints(&a.sum(Some(0)).unwrap().ravel().unwrap()), vec![5, 3, 3]);
        assert_eq!(ints(&a.sum(Some(1)).unwrap().ravel().unwrap()), vec![-1, 3, 9]);
        assert_eq!(ints(&a.sum(None).unwrap().reshape(&[1]).unwrap()), vec![11]);
        let mean = a.mean(Some(1)).unwrap();
        assert_eq!(mean.dtype(), DType::F64);
        let want = [-1.0 / 3.0, 1.0, 3.0];
        assert!(f64s(&mean).iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-15), "{:?}", f64s(&mean));
    });
}

#[test]
fn integer_products_and_sums_promote_as_scipy() {
    with_device(&cpu(), || {
        let a = int_matrix();
        let x = Array::from_vec(vec![1i64, 2, 3]).unwrap();
        assert_eq!(ints(&a.dot(&x).unwrap()), vec![-5, 6, 19]);
        assert_eq!(ints(&a.rdot(&x).unwrap()), vec![13, 6, 13], "A.T @ x without atomics");
        assert_eq!(ints(&a.T().dot(&x).unwrap()), vec![13, 6, 13], "a CSC matrix's product");
        let xm = Array::from_slice(&[1i64, 0, 2, 1, 3, 0], &[3, 2]).unwrap();
        assert_eq!(ints(&a.dot(&xm).unwrap().ravel().unwrap()), vec![-5, 0, 6, 3, 19, 0]);
        assert_eq!(ints(&a.rdot(&xm).unwrap().ravel().unwrap()), vec![13, 0, 6, 3, 13, 0]);
        // int64 @ float32 is float64 (NumPy's promotion), int8 @ float32 float32.
        let xf = Array::from_vec(vec![1f32, 2., 3.]).unwrap();
        assert_eq!(a.dot(&xf).unwrap().dtype(), DType::F64);
        assert_eq!(a.astype(DType::I8).unwrap().dot(&xf).unwrap().dtype(), DType::F32);
        assert_eq!(ints(&a.dot_sparse(&a).unwrap().toarray().unwrap()), vec![-7, 0, -12, 0, 9, 0, 24, 0, 17]);
        let at = a.T().tocsr().unwrap();
        assert_eq!(ints(&a.add(&at).unwrap().toarray().unwrap()), vec![2, 0, 2, 0, 6, 0, 2, 0, 10]);
        assert_eq!(ints(&a.sub(&at).unwrap().toarray().unwrap()), vec![0, 0, -6, 0, 0, 0, 6, 0, 0]);
        assert_eq!(ints(&a.multiply(&at).unwrap().toarray().unwrap()), vec![1, 0, -8, 0, 9, 0, -8, 0, 25]);
        assert_eq!(ints(&a.mul_scalar(3).unwrap().data().clone()), vec![3, -6, 9, 12, 15]);
        assert_eq!(a.mul_scalar(0.5).unwrap().dtype(), DType::F64);
        // int8 wraps as NumPy's and SciPy's; its sums are int64.
        let c = CsrMatrix::from_dense(&Array::from_slice(&[100i8, -100, 0, 50], &[2, 2]).unwrap()).unwrap();
        assert_eq!(c.dtype(), DType::I8);
        let cc = c.dot_sparse(&c).unwrap().toarray().unwrap();
        assert_eq!(cc.dtype(), DType::I8);
        assert_eq!(i64s(&cc), vec![16, 104, 0, -60]);
        assert_eq!(ints(&c.sum(Some(0)).unwrap().ravel().unwrap()), vec![100, -50]);
        let u = c.astype(DType::U8).unwrap();
        assert_eq!(u.sum(None).unwrap().dtype(), DType::U64);
        // Solvers and norms of integer matrices work in float64.
        let n = sparse::linalg::norm(&a, None, None).unwrap();
        assert_eq!(n.dtype(), DType::F64);
        assert!((n.item::<f64>().unwrap() - 55f64.sqrt()).abs() < 1e-12);
        let sol = sparse::linalg::spsolve(&a, &x).unwrap();
        assert_eq!(sol.dtype(), DType::F64);
        let back = a.dot(&sol).unwrap();
        assert!(f64s(&back).iter().zip([1.0, 2.0, 3.0]).all(|(g, w)| (g - w).abs() < 1e-12), "{:?}", f64s(&back));
    });
}

#[test]
fn bool_matrices_follow_scipys_logic() {
    with_device(&cpu(), || {
        let bools = |v: &[bool]| Array::from_slice(v, &[2, 2]).unwrap();
        let p = CsrMatrix::from_dense(&bools(&[true, false, true, true])).unwrap();
        let q = CsrMatrix::from_dense(&bools(&[true, true, false, true])).unwrap();
        assert_eq!(p.dtype(), DType::Bool);
        let dense = |m: CsrMatrix| {
            let d = m.toarray().unwrap();
            assert_eq!(d.dtype(), DType::Bool);
            d.to_vec::<bool>().unwrap()
        };
        assert_eq!(dense(p.add(&q).unwrap()), vec![true; 4], "or");
        assert_eq!(dense(p.sub(&q).unwrap()), vec![false, true, true, false], "exclusive or");
        assert_eq!(dense(p.dot_sparse(&q).unwrap()), vec![true; 4]);
        assert_eq!(dense(sparse::kron(&p, &q).unwrap()).iter().filter(|&&b| b).count(), 9);
        let y = p.dot(&Array::from_vec(vec![true, false]).unwrap()).unwrap();
        assert_eq!((y.dtype(), y.to_vec::<bool>().unwrap()), (DType::Bool, vec![true, true]));
        assert_eq!(ints(&p.sum(None).unwrap().reshape(&[1]).unwrap()), vec![3], "bool sums count in int64");
        assert_eq!(p.mean(None).unwrap().dtype(), DType::F64);
        assert_eq!(sparse::eye(3, None, 0, DType::Bool).unwrap().dtype(), DType::Bool);
    });
}

#[test]
fn float16_and_bool_diagonals_are_refused_by_name() {
    with_device(&cpu(), || {
        let h = Array::from_vec(vec![1f32, 2.]).unwrap().astype(DType::F16).unwrap();
        let i = Array::from_vec(vec![0i64, 1]).unwrap();
        let e = err_text(sparse::coo_matrix(&h, &i, &i, None));
        assert!(e.contains("coo_matrix") && e.contains("float16"), "{e}");
        let e = err_text(sparse::csr_matrix(&h, &i, &Array::from_vec(vec![0i64, 1, 2]).unwrap(), None));
        assert!(e.contains("csr_matrix") && e.contains("float16"), "{e}");
        let e = err_text(int_matrix().astype(DType::BF16));
        assert!(e.contains("astype") && e.contains("bfloat16"), "{e}");
        let e = err_text(sparse::eye(2, None, 0, DType::F16));
        assert!(e.contains("eye") && e.contains("float16"), "{e}");
        // A float16 vector counts as float32 in a product, as SciPy's `upcast`.
        let y = int_matrix()
            .astype(DType::F32)
            .unwrap()
            .dot(&Array::from_vec(vec![1f32, 1., 1.]).unwrap().astype(DType::F16).unwrap())
            .unwrap();
        assert_eq!(y.dtype(), DType::F32);
        let bd = Array::from_vec(vec![true, false]).unwrap();
        let e = err_text(sparse::diags(&[&bd], &[0], None, None));
        assert!(e.contains("diags") && e.contains("common type"), "{e}");
        assert_eq!(sparse::diags(&[&bd], &[0], None, Some(DType::Bool)).unwrap().dtype(), DType::Bool);
        let id = Array::from_vec(vec![1i32, 2]).unwrap();
        assert_eq!(sparse::diags(&[&id], &[0], None, None).unwrap().dtype(), DType::F64, "common_type of ints");
        // Complex matrices keep their dtype through the constructors.
        let c = int_matrix().astype(DType::C128).unwrap();
        assert_eq!(sparse::kron(&c, &c).unwrap().dtype(), DType::C128);
        assert_eq!(sparse::hstack(&[&c, &int_matrix()]).unwrap().dtype(), DType::C128);
    });
}

#[test]
fn random_draws_integers_over_the_dtypes_range() {
    with_device(&cpu(), || {
        let r = sparse::random(20, 30, 0.2, DType::I8, 7).unwrap();
        assert_eq!((r.dtype(), r.nnz()), (DType::I8, 120));
        let v = i64s(r.data());
        assert!(v.iter().all(|&x| (-128..127).contains(&x)));
        assert!(v.iter().any(|&x| x < 0) && v.iter().any(|&x| x > 0), "{v:?}");
        let c = sparse::random(10, 10, 0.5, DType::C64, 1).unwrap();
        assert_eq!(c.dtype(), DType::C64);
        let im = f64s(&c.data().imag().unwrap());
        assert!(im.iter().all(|&x| (0.0..1.0).contains(&x)) && im.iter().any(|&x| x > 0.0));
        let b = sparse::random(4, 4, 0.5, DType::Bool, 1).unwrap();
        assert_eq!((b.dtype(), b.sum(None).unwrap().item::<i64>().unwrap()), (DType::Bool, 8));
    });
}

fn err_text<T: std::fmt::Debug>(r: Result<T>) -> String {
    r.expect_err("an error").to_string()
}

#[test]
fn bad_input_is_a_clear_error() {
    with_device(&cpu(), || {
        let v = Array::from_vec(vec![1f32, 2.]).unwrap();
        let i = |x: Vec<i64>| Array::from_vec(x).unwrap();
        // COO: an index past the shape, a negative index, lengths, float indices.
        let e = err_text(sparse::coo_matrix(&v, &i(vec![0, 3]), &i(vec![0, 1]), Some((3, 3))));
        assert!(e.contains("row index 3 exceeds matrix dimensions (3, 3)"), "{e}");
        let e = err_text(sparse::coo_matrix(&v, &i(vec![0, 1]), &i(vec![0, 5]), Some((3, 3))));
        assert!(e.contains("column index 5"), "{e}");
        let e = err_text(sparse::coo_matrix(&v, &i(vec![0, -1]), &i(vec![0, 1]), Some((3, 3))));
        assert!(e.contains("negative row index"), "{e}");
        let e = err_text(sparse::coo_matrix(&v, &i(vec![0]), &i(vec![0, 1]), Some((3, 3))));
        assert!(e.contains("same length"), "{e}");
        let e = err_text(sparse::coo_matrix(&v, &v, &i(vec![0, 1]), Some((3, 3))));
        assert!(e.contains("row must be an integer array") && e.contains("float32"), "{e}");
        // CSR: indptr's length, start, end and order; columns past the shape.
        let e = err_text(sparse::csr_matrix(&v, &i(vec![0, 1]), &i(vec![0, 1, 2]), Some((3, 3))));
        assert!(e.contains("index pointer size (3) should be (4)"), "{e}");
        let e = err_text(sparse::csr_matrix(&v, &i(vec![0, 1]), &i(vec![1, 1, 2]), Some((2, 3))));
        assert!(e.contains("should start with 0"), "{e}");
        let e = err_text(sparse::csr_matrix(&v, &i(vec![0, 1]), &i(vec![0, 1, 3]), Some((2, 3))));
        assert!(e.contains("last value of index pointer (3)"), "{e}");
        let e = err_text(sparse::csr_matrix(
            &Array::from_vec(vec![1f32, 2., 3.]).unwrap(),
            &i(vec![0, 1, 2]),
            &i(vec![0, 2, 1, 3]),
            Some((3, 3)),
        ));
        assert!(e.contains("non-decreasing"), "{e}");
        let e = err_text(sparse::csr_matrix(&v, &i(vec![0, 3]), &i(vec![0, 1, 2]), Some((2, 3))));
        assert!(e.contains("column index values must be < 3"), "{e}");
        let e = err_text(sparse::csr_matrix(&v, &i(vec![0]), &i(vec![0, 1, 2]), Some((2, 3))));
        assert!(e.contains("indices and data should have the same size"), "{e}");
        // Products of shapes that do not multiply.
        let a = seed_matrix();
        let e = err_text(a.dot(&Array::from_vec(vec![1f32, 2.]).unwrap()));
        assert!(e.contains("dimension mismatch") && e.contains("(3, 3)") && e.contains("[2]"), "{e}");
        let e = err_text(a.rdot(&Array::from_vec(vec![1f32; 4]).unwrap()));
        assert!(e.contains("dimension mismatch"), "{e}");
        let b = sparse::eye(2, Some(3), 0, DType::F32).unwrap();
        let e = err_text(a.dot_sparse(&b));
        assert!(e.contains("(3, 3) @ (2, 3)"), "{e}");
        let e = err_text(a.add(&b));
        assert!(e.contains("inconsistent shapes"), "{e}");
        let e = err_text(a.multiply(&b));
        assert!(e.contains("inconsistent shapes"), "{e}");
        let e = err_text(a.sum(Some(2)));
        assert!(e.contains("axis 2"), "{e}");
        // Constructors.
        let e = err_text(sparse::diags(&[&v, &v], &[0, 0], Some((2, 2)), None));
        assert!(e.contains("repeated diagonal offset 0"), "{e}");
        let e = err_text(sparse::diags(&[&v], &[0, 1], None, None));
        assert!(e.contains("different number of diagonals"), "{e}");
        let e = err_text(sparse::diags(&[&Array::from_vec(vec![1f32, 2.]).unwrap()], &[0], Some((3, 3)), None));
        assert!(e.contains("is shorter than"), "{e}");
        let e = err_text(sparse::random(3, 3, 1.5, DType::F64, 0));
        assert!(e.contains("density"), "{e}");
        let e = err_text(CsrMatrix::from_dense(&v));
        assert!(e.contains("2-d"), "{e}");
        let e = err_text(sparse::diags(&[&v], &[5], Some((2, 2)), None));
        assert!(e.contains("offset 5 out of bounds for shape (2, 2)"), "{e}");
        let none = Array::from_vec(Vec::<i64>::new()).unwrap();
        let e = err_text(sparse::coo_matrix(&Array::from_vec(Vec::<f32>::new()).unwrap(), &none, &none, None));
        assert!(e.contains("cannot infer dimensions"), "{e}");
        let e = err_text(sparse::csr_matrix(&Array::from_vec(Vec::<f32>::new()).unwrap(), &none, &none, None));
        assert!(e.contains("at least one entry"), "{e}");
        let e = err_text(sparse::random(3, 3, 0.5, DType::F16, 0));
        assert!(e.contains("random") && e.contains("float16"), "{e}");
    });
}
