//! The CPU device's native forms and the one-launch kernels of the sparse stack and of `inv`:
//! the host conjugate gradients against the device iteration (`ndimage::with_device_kernels`),
//! the batched small inverse kernel against the solver library, and the row-writing kernels of
//! `kron` and row slicing, and the union–find of `connected_components`, against dense or
//! host references.

use std::sync::Arc;

use xp_array::sparse::csgraph::{connected_components, Connection};
use xp_array::sparse::linalg::{self as sla, SolverOptions};
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

/// The 5-point Laplacian of an `s × s` grid.
fn poisson2d(s: usize) -> CsrMatrix {
    let main = full(&[s], 2.0, DType::F64).unwrap();
    let off = full(&[s - 1], -1.0, DType::F64).unwrap();
    let t = sparse::diags(&[&main, &off, &off], &[0, 1, -1], Some((s, s)), None).unwrap();
    let i = sparse::identity(s, DType::F64).unwrap();
    sparse::kron(&t, &i).unwrap().add(&sparse::kron(&i, &t).unwrap()).unwrap()
}

fn rel_residual(a: &CsrMatrix, x: &Array, b: &Array) -> f64 {
    let r = f64s(&a.dot(&x.astype(DType::F64).unwrap()).unwrap().sub(&b.astype(DType::F64).unwrap()).unwrap());
    let bn = f64s(b).iter().map(|v| v * v).sum::<f64>().sqrt();
    r.iter().map(|v| v * v).sum::<f64>().sqrt() / bn
}

fn max_rel_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs())) / scale
}

/// A simple deterministic generator (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
fn native_cg_matches_the_device_iteration() {
    with_device(&cpu(), || {
        // 70² rows: more than one block of the native passes.
        let a = poisson2d(70);
        let n = 70 * 70;
        let b = Array::from_slice(&(0..n).map(|i| ((i % 13) as f64) - 6.0).collect::<Vec<_>>(), &[n]).unwrap();
        let o = SolverOptions { rtol: Some(1e-10), ..Default::default() };
        let (x, info) = sla::cg(&a, &b, &o).unwrap();
        let (xd, infod) = ndimage::with_device_kernels(|| sla::cg(&a, &b, &o)).unwrap();
        assert_eq!((info, infod), (0, 0));
        assert!(rel_residual(&a, &x, &b) <= 1e-10, "{}", rel_residual(&a, &x, &b));
        assert!(max_rel_diff(&f64s(&x), &f64s(&xd)) < 1e-8);
        // The same few steps from a start, when maxiter runs out: the same iterate.
        let x0 = full(&[n], 0.5, DType::F64).unwrap();
        let o = SolverOptions { x0: Some(&x0), rtol: Some(1e-12), maxiter: Some(7), ..Default::default() };
        let (x, info) = sla::cg(&a, &b, &o).unwrap();
        let (xd, infod) = ndimage::with_device_kernels(|| sla::cg(&a, &b, &o)).unwrap();
        assert_eq!((info, infod), (7, 7));
        assert!(max_rel_diff(&f64s(&x), &f64s(&xd)) < 1e-12);
    })
}

#[test]
fn native_cg_float32_int64_indices_and_breakdown() {
    with_device(&cpu(), || {
        let a = poisson2d(20);
        let n = 400;
        // int64 indices, float32 values: the answer stays float32.
        let a64 = sparse::csr_matrix(
            &a.data().astype(DType::F32).unwrap(),
            &a.indices().astype(DType::I64).unwrap(),
            &a.indptr().astype(DType::I64).unwrap(),
            Some((n, n)),
        )
        .unwrap();
        assert_eq!(a64.indices().dtype(), DType::I64);
        let b = ones(&[n], DType::F32).unwrap();
        let o = SolverOptions { rtol: Some(1e-5), ..Default::default() };
        let (x, info) = sla::cg(&a64, &b, &o).unwrap();
        let (xd, infod) = ndimage::with_device_kernels(|| sla::cg(&a64, &b, &o)).unwrap();
        assert_eq!((info, infod, x.dtype()), (0, 0, DType::F32));
        assert!(rel_residual(&a, &x, &b) <= 2e-5);
        assert!(max_rel_diff(&f64s(&x), &f64s(&xd)) < 1e-3);
        // A zero matrix breaks down at once (-10), as the device form.
        let z =
            sparse::csr_matrix(&zeros(&[a.nnz()], DType::F64).unwrap(), a.indices(), a.indptr(), Some((n, n))).unwrap();
        let b = ones(&[n], DType::F64).unwrap();
        assert_eq!(sla::cg(&z, &b, &Default::default()).unwrap().1, -10);
        assert_eq!(ndimage::with_device_kernels(|| sla::cg(&z, &b, &Default::default())).unwrap().1, -10);
    })
}

/// A stack of `batch` well-conditioned `n × n` matrices.
fn stack(batch: usize, n: usize, dt: DType, seed: u64) -> Array {
    let mut g = Rng(seed);
    let v: Vec<f64> = (0..batch * n * n)
        .map(|k| {
            let (i, j) = ((k / n) % n, k % n);
            g.unit() - 0.5 + if i == j { 2.0 } else { 0.0 }
        })
        .collect();
    Array::from_slice(&v, &[batch, n, n]).unwrap().astype(dt).unwrap()
}

#[test]
fn batched_small_inverse_kernel_matches_the_solver() {
    with_device(&cpu(), || {
        for dt in [DType::F64, DType::F32] {
            for n in [1usize, 3, 8, 17, 32, 33] {
                let a = stack(5, n, dt, n as u64);
                let want = linalg::inv(&a).unwrap();
                let got = ndimage::with_device_kernels(|| linalg::inv(&a)).unwrap();
                assert_eq!((got.dtype(), got.shape()), (dt, a.shape()));
                let tol = if dt == DType::F32 { 2e-3 } else { 1e-10 };
                let d = max_rel_diff(&f64s(&got), &f64s(&want));
                assert!(d < tol, "{dt} n={n}: {d:e}");
                // A @ inv(A) = I.
                let eye_b = eye(n, None, 0, DType::F64).unwrap().broadcast_to(&[5, n, n]).unwrap();
                let prod = a.astype(DType::F64).unwrap().matmul(&got.astype(DType::F64).unwrap()).unwrap();
                assert!(max_rel_diff(&f64s(&prod), &f64s(&eye_b.copy().unwrap())) < tol * 10.0);
            }
        }
        // A stack from a strided view (not C-ordered) and an integer stack (float64).
        let a = stack(4, 6, DType::F64, 9);
        let at = a.permute(&[0, 2, 1]).unwrap();
        let want = linalg::inv(&at).unwrap();
        let got = ndimage::with_device_kernels(|| linalg::inv(&at)).unwrap();
        assert!(max_rel_diff(&f64s(&got), &f64s(&want)) < 1e-12);
        let ai = Array::from_slice(&[2i32, 1, 1, 1, 3, 0, 0, 1, 4, 1, 0, 2], &[3, 2, 2]).unwrap();
        let got = ndimage::with_device_kernels(|| linalg::inv(&ai)).unwrap();
        assert_eq!(got.dtype(), DType::F64);
        assert!(max_rel_diff(&f64s(&got), &f64s(&linalg::inv(&ai).unwrap())) < 1e-12);
    })
}

#[test]
fn batched_small_inverse_kernel_reports_the_singular_matrix() {
    with_device(&cpu(), || {
        let mut v: Vec<f64> = f64s(&stack(4, 5, DType::F64, 3));
        // Matrix 2: a zero column (an exactly zero pivot for both paths).
        for i in 0..5 {
            v[2 * 25 + i * 5 + 3] = 0.0;
        }
        let a = Array::from_slice(&v, &[2, 2, 5, 5]).unwrap();
        let e = ndimage::with_device_kernels(|| linalg::inv(&a)).expect_err("singular");
        let want = linalg::inv(&a).expect_err("singular");
        assert!(matches!(e, Error::LinAlg { .. }), "{e}");
        assert_eq!(e.to_string(), want.to_string());
        assert!(e.to_string().contains("Singular matrix") && e.to_string().contains("[1, 0]"), "{e}");
        // An all-zero matrix is singular at its first column.
        let z = zeros(&[3, 2, 2], DType::F32).unwrap();
        assert!(matches!(ndimage::with_device_kernels(|| linalg::inv(&z)), Err(Error::LinAlg { .. })));
    })
}

/// A random `m × n` CSR matrix of about `nnz` entries (duplicates and unsorted rows when
/// `raw`), and its dense form (duplicates summed).
fn random_csr(m: usize, n: usize, nnz: usize, seed: u64, raw: bool) -> (CsrMatrix, Vec<f64>) {
    let mut g = Rng(seed);
    let mut rows: Vec<Vec<(i32, f64)>> = vec![vec![]; m];
    for _ in 0..nnz {
        let (i, j) = (g.below(m), g.below(n));
        rows[i].push((j as i32, (g.below(9) as f64) - 4.0));
    }
    let mut dense = vec![0.0; m * n];
    let (mut ptr, mut ind, mut dat) = (vec![0i32], vec![], vec![]);
    for (i, r) in rows.iter_mut().enumerate() {
        if !raw {
            r.sort_by_key(|e| e.0);
            r.dedup_by_key(|e| e.0);
        }
        for &(j, v) in r.iter() {
            ind.push(j);
            dat.push(v);
            dense[i * n + j as usize] += v;
        }
        ptr.push(ind.len() as i32);
    }
    let a = sparse::csr_matrix(
        &Array::from_slice(&dat, &[dat.len()]).unwrap(),
        &Array::from_slice(&ind, &[ind.len()]).unwrap(),
        &Array::from_slice(&ptr, &[ptr.len()]).unwrap(),
        Some((m, n)),
    )
    .unwrap();
    (a, dense)
}

#[test]
fn kron_rows_match_the_dense_kron() {
    with_device(&cpu(), || {
        for (seed, raw) in [(1u64, false), (2, true)] {
            let (a, da) = random_csr(7, 5, 12, seed, raw);
            let (b, db) = random_csr(4, 6, 9, seed + 10, raw);
            let k = sparse::kron(&a, &b).unwrap();
            assert_eq!((k.shape(), k.nnz()), ((28, 30), a.nnz() * b.nnz()));
            let want =
                linalg::kron(&Array::from_slice(&da, &[7, 5]).unwrap(), &Array::from_slice(&db, &[4, 6]).unwrap())
                    .unwrap();
            assert_eq!(f64s(&k.toarray().unwrap()), f64s(&want));
            // Canonical operands give canonical rows.
            if !raw {
                let ind = k.indices().astype(DType::I64).unwrap().to_vec::<i64>().unwrap();
                let ptr = k.indptr().astype(DType::I64).unwrap().to_vec::<i64>().unwrap();
                for r in 0..28 {
                    let row = &ind[ptr[r] as usize..ptr[r + 1] as usize];
                    assert!(row.windows(2).all(|w| w[0] < w[1]), "row {r}: {row:?}");
                }
            }
            // Other value dtypes: int8 wraps, bool is a logical and.
            for dt in [DType::I8, DType::U16, DType::Bool, DType::C64] {
                let (ka, kb) = (a.astype(dt).unwrap(), b.astype(dt).unwrap());
                let got = sparse::kron(&ka, &kb).unwrap().toarray().unwrap();
                let want = linalg::kron(&ka.toarray().unwrap(), &kb.toarray().unwrap()).unwrap();
                assert_eq!(got.dtype(), want.dtype());
                assert!(got.eq(&want).unwrap().all(None, false).unwrap().item::<bool>().unwrap(), "{dt}");
            }
        }
        // Empty rows and an empty operand.
        let e = sparse::csr_matrix(
            &zeros(&[0], DType::F64).unwrap(),
            &zeros(&[0], DType::I32).unwrap(),
            &zeros(&[4], DType::I32).unwrap(),
            Some((3, 3)),
        )
        .unwrap();
        let (a, _) = random_csr(2, 2, 3, 5, false);
        let k = sparse::kron(&a, &e).unwrap();
        assert_eq!((k.shape(), k.nnz()), ((6, 6), 0));
        assert_eq!(f64s(&k.toarray().unwrap()), vec![0.0; 36]);
    })
}

#[test]
fn row_slices_match_dense_slices() {
    with_device(&cpu(), || {
        let (a, d) = random_csr(37, 11, 150, 7, true);
        let dense = Array::from_slice(&d, &[37, 11]).unwrap();
        for (start, stop, step) in
            [(None, None, Some(2)), (Some(3), Some(30), Some(5)), (None, None, Some(-3)), (Some(-1), Some(0), Some(-1))]
        {
            let s = a.slice_rows(start, stop, step).unwrap();
            let want = dense.slice(&[layout::SliceArg::Range { start, stop, step }]).unwrap();
            assert_eq!(s.shape(), (want.shape()[0], 11));
            assert_eq!(f64s(&s.toarray().unwrap()), f64s(&want), "{start:?}:{stop:?}:{step:?}");
        }
        // Complex values move as 16-byte words.
        let c = a.astype(DType::C128).unwrap();
        let s = c.slice_rows(None, None, Some(2)).unwrap();
        let want = c.toarray().unwrap().slice(&[layout::SliceArg::range(0, 37, 2)]).unwrap();
        assert!(s.toarray().unwrap().eq(&want).unwrap().all(None, false).unwrap().item::<bool>().unwrap());
    })
}

/// Weak components by a host union–find: labels numbered by first appearance.
fn host_components(n: usize, edges: &[(usize, usize)]) -> (usize, Vec<i32>) {
    let mut p: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &(u, v) in edges {
        let (a, b) = (find(&mut p, u), find(&mut p, v));
        if a != b {
            p[a.max(b)] = a.min(b);
        }
    }
    let mut label = vec![-1i32; n];
    let mut next = 0;
    let mut out = vec![0i32; n];
    for (v, o) in out.iter_mut().enumerate() {
        let r = find(&mut p, v);
        if label[r] < 0 {
            label[r] = next;
            next += 1;
        }
        *o = label[r];
    }
    (next as usize, out)
}

#[test]
fn weak_components_by_union_find_match_a_host_reference() {
    with_device(&cpu(), || {
        // Sparse random graphs: many components, chains across the blocks of 256 nodes.
        for (n, m, seed) in [(1000usize, 600usize, 1u64), (5000, 4000, 2), (3000, 100, 3)] {
            let mut g = Rng(seed);
            let edges: Vec<(usize, usize)> = (0..m).map(|_| (g.below(n), g.below(n))).collect();
            let r: Vec<i64> = edges.iter().map(|e| e.0 as i64).collect();
            let c: Vec<i64> = edges.iter().map(|e| e.1 as i64).collect();
            let graph = sparse::coo_matrix(
                &ones(&[m], DType::F32).unwrap(),
                &Array::from_slice(&r, &[m]).unwrap(),
                &Array::from_slice(&c, &[m]).unwrap(),
                Some((n, n)),
            )
            .unwrap()
            .tocsr()
            .unwrap();
            let (want_n, want) = host_components(n, &edges);
            for directed in [true, false] {
                let (k, lab) = connected_components(&graph, directed, Connection::Weak).unwrap();
                assert_eq!(k, want_n);
                assert_eq!(lab.dtype(), DType::I32);
                assert_eq!(lab.to_vec::<i32>().unwrap(), want);
            }
        }
    })
}
