//! NumPy's products on the CPU backend beyond the conformance cases: broadcasting stacks,
//! transposed operands read in place, 1-d promotion, exact integer products, bfloat16,
//! `einsum`'s grammar, and each bad input's error.

use std::sync::Arc;

use xp_array::linalg::{self, TensorAxes};
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// Row-major `a (m×k) @ b (k×n)` on the host.
fn host_mm(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    c
}

fn seq(n: usize, scale: f64) -> Vec<f64> {
    (0..n).map(|i| ((i * 7 + 3) % 11) as f64 * scale - 2.0).collect()
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol * (1.0 + w.abs()), "element {i}: {g} != {w}");
    }
}

#[test]
fn stacks_broadcast_and_transposed_views_are_read_in_place() {
    with_device(&cpu(), || {
        let (m, k, n) = (5, 7, 3);
        let av = seq(2 * m * k, 0.5);
        let bv = seq(k * n, 0.25);
        let a = Array::from_slice(&av, &[2, 1, m, k]).unwrap();
        let b = Array::from_slice(&bv, &[k, n]).unwrap().broadcast_to(&[4, k, n]).unwrap();
        let c = a.matmul(&b).unwrap();
        assert_eq!(c.shape(), &[2, 4, m, n]);
        let got = c.to_vec::<f64>().unwrap();
        for s in 0..2 {
            let want = host_mm(&av[s * m * k..(s + 1) * m * k], &bv, m, k, n);
            for t in 0..4 {
                close(&got[(s * 4 + t) * m * n..(s * 4 + t + 1) * m * n], &want, 1e-12);
            }
        }
        // a.T @ b.T with both transposed views.
        let at = Array::from_slice(&av[..m * k], &[m, k]).unwrap().t().astype(DType::F32).unwrap();
        let bt = Array::from_slice(&seq(n * m, 1.0), &[n, m]).unwrap();
        let r = linalg::matmul(&at, &bt.t()).unwrap();
        assert_eq!((r.dtype(), r.shape()), (DType::F64, &[k, n][..]));
        let atv: Vec<f64> = (0..k).flat_map(|i| (0..m).map(move |j| (i, j))).map(|(i, j)| av[j * k + i]).collect();
        let btv: Vec<f64> = {
            let b = seq(n * m, 1.0);
            (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| b[j * m + i]).collect()
        };
        close(&r.to_vec::<f64>().unwrap(), &host_mm(&atv, &btv, k, m, n), 1e-6);
    });
}

#[test]
fn vectors_are_promoted_and_the_added_axes_removed() {
    with_device(&cpu(), || {
        let v = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
        let m = Array::from_slice(&[1.0f32, 0.0, 2.0, 1.0, 1.0, 1.0], &[3, 2]).unwrap();
        let r = v.matmul(&m).unwrap();
        assert_eq!((r.shape(), r.to_vec::<f32>().unwrap()), (&[2usize][..], vec![8.0, 5.0]));
        let r = m.t().matmul(&v).unwrap();
        assert_eq!(r.to_vec::<f32>().unwrap(), vec![8.0, 5.0]);
        let r = v.matmul(&v).unwrap();
        assert_eq!((r.ndim(), r.item::<f32>().unwrap()), (0, 14.0));
        assert_eq!(linalg::dot(&v, &v).unwrap().item::<f32>().unwrap(), 14.0);
        let o = linalg::outer(&v, &v).unwrap();
        assert_eq!(o.shape(), &[3, 3]);
    });
}

#[test]
fn integer_and_bool_products_are_exact() {
    with_device(&cpu(), || {
        let big = 3_000_000_000i64;
        let a = Array::from_slice(&[big, 1, 2, big], &[2, 2]).unwrap();
        let b = Array::from_slice(&[1i64, 1, 1, 1], &[2, 2]).unwrap();
        assert_eq!(a.matmul(&b).unwrap().to_vec::<i64>().unwrap(), vec![big + 1, big + 1, big + 2, big + 2]);
        let i = Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
        let r = i.matmul(&i.t()).unwrap();
        assert_eq!((r.dtype(), r.to_vec::<i32>().unwrap()), (DType::I32, vec![14, 32, 32, 77]));
        let t = Array::from_slice(&[true, false, false, false], &[2, 2]).unwrap();
        let r = t.matmul(&t).unwrap();
        assert_eq!((r.dtype(), r.to_vec::<bool>().unwrap()), (DType::Bool, vec![true, false, false, false]));
    });
}

#[test]
fn bfloat16_and_float16_products_round_once() {
    with_device(&cpu(), || {
        let a = Array::from_slice(&seq(12, 0.5), &[3, 4]).unwrap();
        let b = Array::from_slice(&seq(8, 0.5), &[4, 2]).unwrap();
        let want = host_mm(&seq(12, 0.5), &seq(8, 0.5), 3, 4, 2);
        for dt in [DType::BF16, DType::F16] {
            let r = a.astype(dt).unwrap().matmul(&b.astype(dt).unwrap()).unwrap();
            assert_eq!(r.dtype(), dt);
            close(&r.astype(DType::F64).unwrap().to_vec::<f64>().unwrap(), &want, 1e-2);
        }
    });
}

#[test]
fn einsum_takes_numpy_grammar() {
    with_device(&cpu(), || {
        let a = Array::from_slice(&seq(24, 1.0), &[2, 3, 4]).unwrap();
        let b = Array::from_slice(&seq(20, 0.5), &[4, 5]).unwrap();
        // Ellipsis and an implicit output.
        let r = linalg::einsum("...j,jk", &[&a, &b]).unwrap();
        assert_eq!(r.shape(), &[2, 3, 5]);
        close(&r.to_vec::<f64>().unwrap(), &a.matmul(&b).unwrap().to_vec::<f64>().unwrap(), 1e-12);
        // Three operands, a label summed without appearing twice, a trace.
        let c = Array::from_slice(&seq(5, 1.0), &[5]).unwrap();
        let r = linalg::einsum("bij,jk,k->b", &[&a, &b, &c]).unwrap();
        let want = a.matmul(&b).unwrap().matmul(&c).unwrap().sum(Some(&[1]), false).unwrap();
        close(&r.to_vec::<f64>().unwrap(), &want.to_vec::<f64>().unwrap(), 1e-12);
        let s = Array::from_slice(&seq(9, 1.0), &[3, 3]).unwrap();
        let tr = linalg::einsum("ii", &[&s]).unwrap();
        assert_eq!(tr.item::<f64>().unwrap(), s.trace(0).unwrap().item::<f64>().unwrap());
        assert!(linalg::einsum("ij,jk->ik", &[&a, &b]).is_err());
        assert!(linalg::einsum("ij->iz", &[&s]).is_err());
        assert!(linalg::einsum("ij,jk->ik", &[&s, &b]).is_err());
        // Two ellipses in a term (once read as labels '.', past the operand's axes: a panic).
        for bad in ["......", "...i...", "...,......", "ij->......"] {
            let e = linalg::einsum(bad, &[&s, &s][..bad.matches(',').count() + 1]).unwrap_err();
            assert_eq!(e.kind(), "Value", "{bad}: {e}");
        }
    });
}

#[test]
fn einsum_ellipsis_of_many_axes_never_meets_a_letter() {
    // Broadcast axes once had the labels '0', '1', …: the eighteenth was 'A', and "A..." over
    // 19 axes took the first axis's label for a broadcast axis's.
    with_device(&cpu(), || {
        let mut shape = vec![1usize; 19];
        shape[0] = 3;
        shape[1] = 2;
        let v = seq(6, 1.0);
        let a = Array::from_slice(&v, &shape).unwrap();
        let r = linalg::einsum("A...->A", &[&a]).unwrap();
        assert_eq!(r.shape(), &[3]);
        close(&r.to_vec::<f64>().unwrap(), &[v[0] + v[1], v[2] + v[3], v[4] + v[5]], 1e-12);
        // Implicit output: the broadcast axes, then the labels seen once.
        let r = linalg::einsum("A...", &[&a]).unwrap();
        assert_eq!(r.shape(), [&shape[1..], &[3]].concat());
        let t = linalg::einsum("...A->A...", &[&a]).unwrap();
        assert_eq!(t.shape()[0], 1);
        assert_eq!(t.shape()[1..3], [3, 2]);
    });
}

#[test]
fn kron_diag_and_diagonal_follow_numpy() {
    with_device(&cpu(), || {
        let a = Array::from_slice(&[1i64, 2, 3, 4], &[2, 2]).unwrap();
        let b = Array::from_slice(&[0i64, 1, 1, 0], &[2, 2]).unwrap();
        let k = linalg::kron(&a, &b).unwrap();
        assert_eq!(k.shape(), &[4, 4]);
        assert_eq!(k.to_vec::<i64>().unwrap(), vec![0, 1, 0, 2, 1, 0, 2, 0, 0, 3, 0, 4, 3, 0, 4, 0]);
        let d = linalg::diag(&Array::from_slice(&[7i64, 8], &[2]).unwrap(), -1).unwrap();
        assert_eq!(d.to_vec::<i64>().unwrap(), vec![0, 0, 0, 7, 0, 0, 0, 8, 0]);
        assert_eq!(linalg::diag(&d, -1).unwrap().to_vec::<i64>().unwrap(), vec![7, 8]);
        let m = arange(0, 12, 1, Some(DType::I64)).unwrap().reshape(&[3, 4]).unwrap();
        assert_eq!(m.diagonal(1, 0, 1).unwrap().to_vec::<i64>().unwrap(), vec![1, 6, 11]);
        assert_eq!(m.diagonal(-2, 0, 1).unwrap().to_vec::<i64>().unwrap(), vec![8]);
        assert_eq!(m.diagonal(5, 0, 1).unwrap().size(), 0);
        // A view: writing through it changes the array.
        m.diagonal(0, 0, 1).unwrap().fill(-1).unwrap();
        assert_eq!(m.to_vec::<i64>().unwrap()[..6], [-1, 1, 2, 3, 4, -1]);
    });
}

#[test]
fn shapes_that_do_not_multiply_are_value_errors_naming_both() {
    with_device(&cpu(), || {
        let a = zeros(&[4, 5], DType::F32).unwrap();
        let b = zeros(&[6], DType::F32).unwrap();
        let e = linalg::matmul(&a, &b).unwrap_err();
        assert_eq!(e.kind(), "Value");
        let msg = e.to_string();
        assert!(msg.contains("[4, 5]") && msg.contains("[6]"), "{msg}");
        assert_eq!(linalg::dot(&a, &b).unwrap_err().kind(), "Value");
        let s = Array::from_slice(&[1.0f32], &[]).unwrap();
        assert_eq!(linalg::matmul(&s, &a).unwrap_err().kind(), "Value");
        assert_eq!(linalg::tensordot(&a, &a, TensorAxes::Count(3)).unwrap_err().kind(), "Value");
        assert_eq!(linalg::tensordot(&a, &a, TensorAxes::Lists(vec![0], vec![1])).unwrap_err().kind(), "Value");
        assert_eq!(linalg::vdot(&a, &b).unwrap_err().kind(), "Value");
        let stacks = (zeros(&[2, 3, 3], DType::F64).unwrap(), zeros(&[4, 3, 3], DType::F64).unwrap());
        assert!(stacks.0.matmul(&stacks.1).is_err());
        // Empty operands: k = 0 gives zeros, m = 0 an empty result.
        let z = zeros(&[3, 0], DType::F64).unwrap().matmul(&zeros(&[0, 2], DType::F64).unwrap()).unwrap();
        assert_eq!(z.to_vec::<f64>().unwrap(), vec![0.0; 6]);
        let e = zeros(&[0, 4], DType::F64).unwrap().matmul(&zeros(&[4, 2], DType::F64).unwrap()).unwrap();
        assert_eq!(e.shape(), &[0, 2]);
    });
}

#[test]
fn norms_matrix_powers_and_chains_follow_numpy() {
    use linalg::NormOrd;
    with_device(&cpu(), || {
        let v = Array::from_slice(&[3.0f32, -4.0, 0.0], &[3]).unwrap();
        let n = |o: Option<NormOrd>| linalg::norm(&v, o, None, false).unwrap().item::<f32>().unwrap();
        assert_eq!(n(None), 5.0);
        assert_eq!(n(Some(NormOrd::P(1.0))), 7.0);
        assert_eq!(n(Some(NormOrd::P(f64::INFINITY))), 4.0);
        assert_eq!(n(Some(NormOrd::P(f64::NEG_INFINITY))), 0.0);
        assert_eq!(n(Some(NormOrd::P(0.0))), 2.0);
        assert!((n(Some(NormOrd::P(3.0))) - 91f32.powf(1.0 / 3.0)).abs() < 1e-5);
        let m = Array::from_slice(&[1.0f64, -2.0, 3.0, -4.0, 5.0, -6.0], &[2, 3]).unwrap();
        let mn = |o: NormOrd| linalg::norm(&m, Some(o), None, false).unwrap().item::<f64>().unwrap();
        assert_eq!(mn(NormOrd::P(1.0)), 9.0); // largest column sum of |m|
        assert_eq!(mn(NormOrd::P(-1.0)), 5.0);
        assert_eq!(mn(NormOrd::P(f64::INFINITY)), 15.0); // largest row sum
        assert_eq!(mn(NormOrd::P(f64::NEG_INFINITY)), 6.0);
        assert!((mn(NormOrd::Fro) - 91f64.sqrt()).abs() < 1e-12);
        let rows = linalg::norm(&m, None, Some(&[1]), true).unwrap();
        assert_eq!(rows.shape(), &[2, 1]);
        let c = Array::from_slice(&[num_complex::Complex::new(3.0f32, 4.0)], &[1]).unwrap();
        let r = linalg::norm(&c, None, None, false).unwrap();
        assert_eq!((r.dtype(), r.item::<f32>().unwrap()), (DType::F32, 5.0));
        // The spectral norm of a 2-row matrix lies between |m|_F / sqrt(2) and |m|_F.
        let two = mn(NormOrd::P(2.0));
        assert!(two <= 91f64.sqrt() + 1e-12 && two >= (91f64 / 2.0).sqrt() - 1e-12, "{two}");
        assert_eq!(linalg::norm(&v, Some(NormOrd::Fro), None, false).unwrap_err().kind(), "Value");
        // matrix_power and multi_dot.
        let s = Array::from_slice(&[1i64, 1, 1, 0], &[2, 2]).unwrap();
        assert_eq!(linalg::matrix_power(&s, 10).unwrap().to_vec::<i64>().unwrap(), vec![89, 55, 55, 34]);
        assert_eq!(linalg::matrix_power(&s, 0).unwrap().to_vec::<i64>().unwrap(), vec![1, 0, 0, 1]);
        assert_eq!(linalg::matrix_power(&m, 2).unwrap_err().kind(), "LinAlg");
        let a = Array::from_slice(&seq(6, 1.0), &[2, 3]).unwrap();
        let b = Array::from_slice(&seq(12, 1.0), &[3, 4]).unwrap();
        let c = Array::from_slice(&seq(4, 1.0), &[4]).unwrap();
        let want = a.matmul(&b).unwrap().matmul(&c).unwrap();
        let got = linalg::multi_dot(&[&a, &b, &c]).unwrap();
        assert_eq!(got.shape(), &[2]);
        close(&got.to_vec::<f64>().unwrap(), &want.to_vec::<f64>().unwrap(), 1e-12);
        assert_eq!(linalg::multi_dot(&[&a]).unwrap_err().kind(), "Value");
    });
}
