//! `xp::sparse` against dense host arithmetic: COO with duplicates to CSR and dense, the
//! products with vectors and matrices (short rows, long rows, empty rows, so that every group
//! width of the vector product runs), the transposed products, the sparse-sparse product,
//! sums, elementwise products, diagonals and CSC, in every value dtype.

use std::sync::Arc;

use xp_array::sparse::{self, CsrMatrix};
use xp_array::*;
use xp_backend_api::DynDevice;

use super::host::{assert_close, mats, values, Lcg, Mat, C, SOLVER_DTYPES as DTYPES};

/// `nnz` random coordinates in an `m` by `n` matrix (with duplicates), their values, and the
/// dense host matrix they sum to. Row `m / 2` is long (about `n / 2` entries) when `long`.
fn triplets(m: usize, n: usize, nnz: usize, complex: bool, long: bool, seed: u64) -> (Vec<i64>, Vec<i64>, Vec<C>, Mat) {
    let mut g = Lcg::new(seed);
    let mut idx = |k: usize| (((g.next() + 1.0) / 2.0) * k as f64) as i64;
    let (mut r, mut c) = (Vec::new(), Vec::new());
    for _ in 0..nnz {
        r.push(idx(m).min(m as i64 - 1));
        c.push(idx(n).min(n as i64 - 1));
    }
    if long {
        for j in (0..n).step_by(2) {
            r.push((m / 2) as i64);
            c.push(j as i64);
        }
    }
    let mut g = Lcg::new(seed ^ 0x9e37);
    let v: Vec<C> = r.iter().map(|_| C::new(g.next(), if complex { g.next() } else { 0.0 })).collect();
    let mut dense = Mat::new(m, n, vec![C::new(0.0, 0.0); m * n]);
    for k in 0..r.len() {
        dense.v[r[k] as usize * n + c[k] as usize] += v[k];
    }
    (r, c, v, dense)
}

fn vals(v: &[C], dtype: DType) -> Array {
    let a = if dtype.is_complex() {
        Array::from_slice(v, &[v.len()]).unwrap()
    } else {
        Array::from_slice(&v.iter().map(|z| z.re).collect::<Vec<f64>>(), &[v.len()]).unwrap()
    };
    a.astype(dtype).unwrap()
}

fn tol(dtype: DType) -> f64 {
    if matches!(dtype, DType::F32 | DType::C64) {
        1e-5
    } else {
        1e-12
    }
}

fn as_mat(a: &Array) -> Mat {
    if a.ndim() == 1 {
        Mat::new(a.shape()[0], 1, values(a))
    } else {
        mats(a).remove(0)
    }
}

pub fn coo_to_csr_and_products_match_dense_arithmetic(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for (m, n, nnz, long) in [(1, 1, 3, false), (7, 9, 0, false), (50, 40, 300, false), (300, 257, 4000, true)] {
            for dtype in DTYPES {
                let what = format!("{m}x{n} nnz {nnz} {dtype} on {}", d.label());
                let (r, c, v, dense) = triplets(m, n, nnz, dtype.is_complex(), long, (m * n + nnz) as u64);
                let t = tol(dtype);
                let coo = sparse::coo_matrix(
                    &vals(&v, dtype),
                    &Array::from_vec(r.clone()).unwrap(),
                    &Array::from_vec(c.clone()).unwrap(),
                    Some((m, n)),
                )
                .unwrap();
                assert_close(&as_mat(&coo.toarray().unwrap()), &dense, t, &format!("coo toarray {what}"));
                let a = coo.tocsr().unwrap();
                assert!(a.has_sorted_indices());
                assert_eq!(a.dtype(), dtype, "{what}");
                // Canonical: one entry per stored cell, columns increasing in each row.
                let ptr = a.indptr().astype(DType::I64).unwrap().to_vec::<i64>().unwrap();
                let ind = a.indices().astype(DType::I64).unwrap().to_vec::<i64>().unwrap();
                assert_eq!(ptr.len(), m + 1);
                for i in 0..m {
                    let row = &ind[ptr[i] as usize..ptr[i + 1] as usize];
                    assert!(row.windows(2).all(|w| w[0] < w[1]), "row {i} of {what}: {row:?}");
                }
                let mut cells: Vec<(i64, i64)> = r.iter().copied().zip(c.iter().copied()).collect();
                cells.sort();
                cells.dedup();
                assert_eq!(a.nnz(), cells.len(), "{what}");
                assert_close(&as_mat(&a.toarray().unwrap()), &dense, t, &format!("csr toarray {what}"));

                let x = super::host::random(n, 1, dtype.is_complex(), 11);
                let y = a.dot(&x.array(dtype).reshape(&[n as isize]).unwrap()).unwrap();
                assert_eq!(y.shape(), &[m]);
                assert_close(&as_mat(&y), &dense.mm(&x), t, &format!("A @ x {what}"));
                let xm = super::host::random(n, 5, dtype.is_complex(), 12);
                assert_close(&as_mat(&a.dot(&xm.array(dtype)).unwrap()), &dense.mm(&xm), t, &format!("A @ X {what}"));
                let w = super::host::random(m, 1, dtype.is_complex(), 13);
                let at = Mat::from_fn(n, m, |i, j| dense.at(j, i));
                let z = a.T().dot(&w.array(dtype).reshape(&[m as isize]).unwrap()).unwrap();
                assert_eq!(z.shape(), &[n]);
                assert_close(&as_mat(&z), &at.mm(&w), t, &format!("A.T @ w {what}"));
                let wm = super::host::random(m, 3, dtype.is_complex(), 14);
                assert_close(&as_mat(&a.rdot(&wm.array(dtype)).unwrap()), &at.mm(&wm), t, &format!("A.T @ W {what}"));

                let csc = a.tocsc().unwrap();
                assert_eq!(csc.shape(), (m, n));
                assert_close(&as_mat(&csc.toarray().unwrap()), &dense, t, &format!("csc toarray {what}"));
                assert_close(
                    &as_mat(&csc.dot(&xm.array(dtype)).unwrap()),
                    &dense.mm(&xm),
                    t,
                    &format!("csc @ X {what}"),
                );
                assert_close(
                    &as_mat(&csc.tocsr().unwrap().toarray().unwrap()),
                    &dense,
                    t,
                    &format!("csc.tocsr {what}"),
                );

                let rows: Vec<C> = (0..m).map(|i| (0..n).map(|j| dense.at(i, j)).sum()).collect();
                let cols: Vec<C> = (0..n).map(|j| (0..m).map(|i| dense.at(i, j)).sum()).collect();
                assert_close(
                    &as_mat(&a.sum(Some(1)).unwrap()),
                    &Mat::new(m, 1, rows.clone()),
                    t,
                    &format!("sum 1 {what}"),
                );
                assert_close(&as_mat(&a.sum(Some(0)).unwrap()), &Mat::new(1, n, cols), t, &format!("sum 0 {what}"));
                let total: C = rows.iter().sum();
                let s = values(&a.sum(None).unwrap())[0];
                assert!((s - total).norm() <= t * 10.0 * total.norm().max(1.0), "sum {what}: {s} != {total}");
                for k in [-2isize, 0, 3] {
                    let want: Vec<C> = (0..m as isize)
                        .filter(|&i| i + k >= 0 && ((i + k) as usize) < n)
                        .map(|i| dense.at(i as usize, (i + k) as usize))
                        .collect();
                    let got = a.diagonal(k).unwrap();
                    assert_close(&as_mat(&got), &Mat::new(want.len(), 1, want), t, &format!("diagonal {k} {what}"));
                }
            }
        }
    });
}

pub fn sparse_products_sums_and_elementwise_match_dense(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dtype in DTYPES {
            let what = format!("{dtype} on {}", d.label());
            let t = tol(dtype);
            let (r, c, v, da) = triplets(40, 30, 200, dtype.is_complex(), true, 5);
            let (r2, c2, v2, db) = triplets(30, 25, 150, dtype.is_complex(), false, 6);
            let (r3, c3, v3, dc) = triplets(40, 30, 100, dtype.is_complex(), false, 7);
            let mk = |r: &[i64], c: &[i64], v: &[C], s| -> CsrMatrix {
                sparse::coo_matrix(
                    &vals(v, dtype),
                    &Array::from_slice(r, &[r.len()]).unwrap(),
                    &Array::from_slice(c, &[c.len()]).unwrap(),
                    Some(s),
                )
                .unwrap()
                .tocsr()
                .unwrap()
            };
            let (a, b, cc) = (mk(&r, &c, &v, (40, 30)), mk(&r2, &c2, &v2, (30, 25)), mk(&r3, &c3, &v3, (40, 30)));
            let ab = a.dot_sparse(&b).unwrap();
            assert_eq!(ab.shape(), (40, 25));
            assert_close(&as_mat(&ab.toarray().unwrap()), &da.mm(&db), t, &format!("A @ B {what}"));
            let sum = a.add(&cc).unwrap();
            assert_close(
                &as_mat(&sum.toarray().unwrap()),
                &Mat::from_fn(40, 30, |i, j| da.at(i, j) + dc.at(i, j)),
                t,
                &format!("A + C {what}"),
            );
            let diff = a.sub(&cc).unwrap();
            assert_close(&as_mat(&diff.toarray().unwrap()), &da.sub(&dc), t, &format!("A - C {what}"));
            let prod = a.multiply(&cc).unwrap();
            assert_close(
                &as_mat(&prod.toarray().unwrap()),
                &Mat::from_fn(40, 30, |i, j| da.at(i, j) * dc.at(i, j)),
                t,
                &format!("A * C {what}"),
            );
            let stored = prod.data().ne(0.0).unwrap().all(None, false).unwrap().item::<bool>().unwrap();
            assert!(stored, "multiply drops zeros: {what}");
            let twice = a.mul_scalar(2.0).unwrap();
            assert_close(
                &as_mat(&twice.toarray().unwrap()),
                &Mat::from_fn(40, 30, |i, j| da.at(i, j) * 2.0),
                t,
                &format!("2 A {what}"),
            );
            let back = CsrMatrix::from_dense(&da.array(dtype)).unwrap();
            assert_close(&as_mat(&back.toarray().unwrap()), &da, t, &format!("from_dense {what}"));
            // A matrix given by its arrays, unsorted and with duplicates.
            let un = sparse::csr_matrix(
                &vals(&[C::new(1.0, 0.0), C::new(2.0, 0.0), C::new(3.0, 0.0), C::new(4.0, 0.0)], dtype),
                &Array::from_vec(vec![2i32, 0, 2, 1]).unwrap(),
                &Array::from_vec(vec![0i32, 3, 4]).unwrap(),
                Some((2, 3)),
            )
            .unwrap();
            assert_eq!(un.indices().dtype(), DType::I32);
            let want = Mat::real(2, 3, &[2.0, 0.0, 4.0, 0.0, 4.0, 0.0]);
            assert_close(&as_mat(&un.toarray().unwrap()), &want, t, &format!("duplicates in csr {what}"));
            let mut canon = un.clone();
            canon.sum_duplicates().unwrap();
            assert_eq!(canon.nnz(), 3);
            assert_eq!(canon.indices().astype(DType::I64).unwrap().to_vec::<i64>().unwrap(), vec![0, 2, 1]);
            assert_close(&as_mat(&canon.toarray().unwrap()), &want, t, &format!("sum_duplicates {what}"));
        }
    });
}

/// The integer and bool value dtypes (SciPy's, beyond the floating ones).
const INT_DTYPES: [DType; 9] =
    [DType::Bool, DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64];

/// An `m` by `n` dense host matrix of small integers (`-1..=1`, or `0..=1` for bool and
/// unsigned dtypes: every sum below stays in int8), about `fill` of its cells nonzero, row
/// `m / 2` full when `long`.
fn small_ints(m: usize, n: usize, fill: f64, signed: bool, long: bool, seed: u64) -> Vec<i64> {
    let mut g = Lcg::new(seed);
    (0..m * n)
        .map(|k| {
            let (u, s) = ((g.next() + 1.0) / 2.0, g.next());
            let v = if signed && s < 0.0 { -1 } else { 1 };
            if u < fill || (long && k / n == m / 2) {
                v
            } else {
                0
            }
        })
        .collect()
}

/// The host product of two dense integer matrices (`bool`: nonzero where any product is).
fn int_mm(a: &[i64], b: &[i64], (m, k, n): (usize, usize, usize), bool_: bool) -> Vec<i64> {
    let mut out = vec![0i64; m * n];
    for i in 0..m {
        for j in 0..n {
            let s: i64 = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
            out[i * n + j] = if bool_ { (s != 0) as i64 } else { s };
        }
    }
    out
}

fn as_i64s(a: &Array) -> Vec<i64> {
    a.astype(DType::I64).unwrap().to_vec::<i64>().unwrap()
}

pub fn integer_and_bool_sparse_keep_their_dtype_and_match_integer_arithmetic(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        for dtype in INT_DTYPES {
            let signed = dtype.is_signed_integer();
            let bool_ = dtype == DType::Bool;
            // Short rows, and a long row, so that every lane group of the vector product runs.
            for (m, n, fill, long) in [(7, 9, 0.3, false), (60, 90, 0.05, true)] {
                let what = format!("{m}x{n} {dtype} on {}", d.label());
                let da = small_ints(m, n, fill, signed, long, (m * n) as u64);
                let host = Array::from_slice(&da, &[m, n]).unwrap().to_device(d).unwrap();
                let a = CsrMatrix::from_dense(&host.astype(dtype).unwrap()).unwrap();
                assert_eq!(a.dtype(), dtype, "{what}");
                let dense = a.toarray().unwrap();
                assert_eq!(dense.dtype(), dtype, "{what}");
                assert_eq!(as_i64s(&dense), da, "toarray {what}");
                // COO with every entry twice: duplicates add (bool: or).
                let coo = a.tocoo().unwrap();
                let twice = sparse::coo_matrix(
                    &concatenate(&[coo.data(), coo.data()], 0).unwrap(),
                    &concatenate(&[coo.row(), coo.row()], 0).unwrap(),
                    &concatenate(&[coo.col(), coo.col()], 0).unwrap(),
                    Some((m, n)),
                )
                .unwrap()
                .tocsr()
                .unwrap();
                let want2: Vec<i64> = da.iter().map(|&v| if bool_ { v } else { 2 * v }).collect();
                assert_eq!((twice.dtype(), as_i64s(&twice.toarray().unwrap())), (dtype, want2), "duplicates {what}");

                let xs = small_ints(n, 3, 0.6, signed, false, 99);
                let x = Array::from_slice(&xs, &[n, 3]).unwrap().to_device(d).unwrap().astype(dtype).unwrap();
                let y = a.dot(&x).unwrap();
                assert_eq!((y.dtype(), as_i64s(&y)), (dtype, int_mm(&da, &xs, (m, n, 3), bool_)), "A @ X {what}");
                let x1 = x.slice(&[layout::SliceArg::ALL, layout::SliceArg::Index(0)]).unwrap();
                let y1 = a.dot(&x1).unwrap();
                let want1: Vec<i64> = int_mm(&da, &xs, (m, n, 3), bool_).iter().step_by(3).copied().collect();
                assert_eq!((y1.dtype(), as_i64s(&y1)), (dtype, want1), "A @ x {what}");
                let at: Vec<i64> = (0..n * m).map(|k| da[(k % m) * n + k / m]).collect();
                let ws = small_ints(m, 2, 0.6, signed, false, 98);
                let w = Array::from_slice(&ws, &[m, 2]).unwrap().to_device(d).unwrap().astype(dtype).unwrap();
                let z = a.rdot(&w).unwrap();
                assert_eq!((z.dtype(), as_i64s(&z)), (dtype, int_mm(&at, &ws, (n, m, 2), bool_)), "A.T @ W {what}");
                let z = a.T().dot(&w).unwrap();
                assert_eq!(as_i64s(&z), int_mm(&at, &ws, (n, m, 2), bool_), "csc @ W {what}");

                let aat = a.dot_sparse(&a.T().tocsr().unwrap()).unwrap();
                assert_eq!(aat.dtype(), dtype, "{what}");
                assert_eq!(as_i64s(&aat.toarray().unwrap()), int_mm(&da, &at, (m, n, m), bool_), "A @ A.T {what}");

                let rows: Vec<i64> = (0..m).map(|i| da[i * n..(i + 1) * n].iter().sum()).collect();
                let s1 = a.sum(Some(1)).unwrap();
                let sum_t = if dtype.is_unsigned_integer() { DType::U64 } else { DType::I64 };
                assert_eq!((s1.dtype(), as_i64s(&s1)), (sum_t, rows.clone()), "sum 1 {what}");
                let cols: Vec<i64> = (0..n).map(|j| (0..m).map(|i| da[i * n + j]).sum()).collect();
                assert_eq!(as_i64s(&a.sum(Some(0)).unwrap()), cols, "sum 0 {what}");
                assert_eq!(as_i64s(&a.sum(None).unwrap().reshape(&[1]).unwrap())[0], rows.iter().sum::<i64>());

                let k = sparse::kron(&a, &a.slice_rows(Some(0), Some(2), None).unwrap()).unwrap();
                assert_eq!((k.dtype(), k.shape()), (dtype, (2 * m, n * n)), "kron {what}");
                let kd = as_i64s(&k.toarray().unwrap());
                assert_eq!(kd[n * n + 1], da[0] * da[n + 1], "kron entry {what}");
                let both = sparse::hstack(&[&a, &a]).unwrap();
                assert_eq!((both.dtype(), both.nnz()), (dtype, 2 * a.nnz()), "hstack {what}");
                let mx = a.max(Some(1)).unwrap();
                let want_max: Vec<i64> = (0..m).map(|i| *da[i * n..(i + 1) * n].iter().max().unwrap()).collect();
                assert_eq!((mx.dtype(), as_i64s(&mx)), (dtype, want_max), "max {what}");
            }
        }
    });
}
