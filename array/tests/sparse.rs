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
fn value_dtypes_follow_cupy_with_integers_as_float64() {
    with_device(&cpu(), || {
        let a = sparse::coo_matrix(
            &Array::from_vec(vec![1i32, 2]).unwrap(),
            &Array::from_vec(vec![0i32, 1]).unwrap(),
            &Array::from_vec(vec![1i32, 0]).unwrap(),
            None,
        )
        .unwrap();
        assert_eq!((a.shape(), a.dtype()), ((2, 2), DType::F64));
        let c = a.tocsr().unwrap().astype(DType::C64).unwrap();
        assert_eq!(c.dtype(), DType::C64);
        assert_eq!(f64s(&c.toarray().unwrap().real()), vec![0., 1., 2., 0.]);
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
        let e = err_text(sparse::random(3, 3, 0.5, DType::C64, 0));
        assert!(e.contains("random") && e.contains("complex64"), "{e}");
    });
}
