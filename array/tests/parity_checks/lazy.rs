//! Lazy fusion (`xp_array::lazy`): fused chains give the bits of the same ops run one kernel
//! each (random chains, proptest), loops with changing scalars reuse a few kernels, pending
//! values never see later writes to what they read, errors come from the call, views and
//! consumers of pending arrays, several pending arrays computed by one kernel, bounds.
//!
//! When fusion is off for the process (`XP_LAZY=0`) the checks still run and compare, and
//! skip the assertions about what was fused.

use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use xp_array::*;
use xp_backend_api::DynDevice;

fn lazy_on() -> bool {
    lazy::enabled().unwrap()
}

fn randoms(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

#[derive(Debug, Clone)]
struct Chain {
    shape: Vec<usize>,
    dtype: usize,
    /// y broadcasts along the first axis (a row) when set.
    row: bool,
    ops: Vec<u8>,
    seed: u64,
}

const FLOATS: [DType; 3] = [DType::F32, DType::F64, DType::F16];

fn chain() -> impl Strategy<Value = Chain> {
    (
        prop::collection::vec(1usize..40, 1..=2),
        0..FLOATS.len(),
        any::<bool>(),
        prop::collection::vec(0u8..16, 2..9),
        any::<u64>(),
    )
        .prop_map(|(shape, dtype, row, ops, seed)| Chain { shape, dtype, row, ops, seed })
}

/// The chain's result bytes on `d`, with fusion as it is set on this thread.
fn run_chain(d: &Arc<dyn DynDevice>, c: &Chain) -> Result<Vec<u8>> {
    with_device(d, || {
        let dt = FLOATS[c.dtype];
        let n: usize = c.shape.iter().product();
        let x = Array::from_slice_on(d, &randoms(n, c.seed, -3.0, 3.0), &c.shape)?.astype(dt)?;
        let yshape: Vec<usize> = if c.row && c.shape.len() == 2 { vec![c.shape[1]] } else { c.shape.clone() };
        let yn: usize = yshape.iter().product();
        let y = Array::from_slice_on(d, &randoms(yn, c.seed ^ 7, -2.0, 2.0), &yshape)?.astype(dt)?;
        let mut acc = x.clone();
        for &op in &c.ops {
            acc = match op {
                0 => acc.add(&y)?,
                1 => acc.mul(&x)?,
                2 => acc.mul(0.37)?,
                3 => acc.sub(1.25)?,
                4 => acc.sin()?,
                5 => acc.clip(-4.0, 4.0)?.exp()?,
                6 => acc.tanh()?,
                7 => acc.abs()?.sqrt()?,
                8 => acc.div(&y.abs()?.add(0.5)?)?,
                9 => acc.maximum(&x)?,
                10 => where_(&acc.gt(&y)?, Operand::Array(&acc), Operand::Array(&y))?,
                11 => acc.astype(DType::F64)?.mul(1.0 / 3.0)?.astype(dt)?,
                12 => acc.pow(2)?,
                13 => acc.abs()?.log1p()?,
                14 => acc.mul(&acc)?.add(&acc.mul(2.0)?)?,
                _ => acc.negative()?.cos()?,
            };
        }
        acc.to_bytes()
    })
}

pub fn fused_chains_give_the_bits_of_op_by_op_kernels(d: &Arc<dyn DynDevice>) {
    let config = Config { cases: 16, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let before = lazy::stats();
    runner
        .run(&chain(), |c| {
            let lazy = run_chain(d, &c).unwrap();
            let eager = lazy::disabled(|| run_chain(d, &c)).unwrap();
            prop_assert!(lazy == eager, "fused and op-by-op results differ on {} for {:?}", d.label(), c);
            Ok(())
        })
        .unwrap();
    if lazy_on() {
        let s = lazy::stats();
        assert!(s.fused_kernels - before.fused_kernels >= 16, "{before:?} → {s:?}");
    }
}

pub fn loops_with_changing_scalars_reuse_a_few_kernels(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let before = lazy::stats();
        let mut b = Array::from_slice(&randoms(1000, 1, 0.0, 1.0), &[1000]).unwrap().astype(DType::F32).unwrap();
        let mut host: Vec<f32> = b.to_vec().unwrap();
        for k in 0..10_000 {
            let s = 0.02 + (k % 17) as f64 * 1e-3;
            b = &b + s;
            for v in &mut host {
                *v += s as f32;
            }
        }
        assert_eq!(b.to_vec::<f32>().unwrap(), host);
        // Mandelbrot's update, with a mask, on complex64.
        let re = Array::from_slice(&randoms(256, 2, -2.0, 0.5), &[256]).unwrap();
        let im = Array::from_slice(&randoms(256, 3, -1.2, 1.2), &[256]).unwrap();
        let c = re
            .astype(DType::C64)
            .unwrap()
            .add(&im.astype(DType::C64).unwrap().mul(Scalar::Complex(0.0, 1.0)).unwrap())
            .unwrap();
        let mandelbrot = || {
            let mut z = zeros(&[256], DType::C64).unwrap();
            let mut count = zeros(&[256], DType::F32).unwrap();
            for _ in 0..100 {
                let inside = z.abs().unwrap().le(2.0).unwrap();
                z = where_(&inside, Operand::Array(&z.mul(&z).unwrap().add(&c).unwrap()), Operand::Array(&z)).unwrap();
                count = count.add(&inside.astype(DType::F32).unwrap()).unwrap();
                // Both results of the step as one kernel (a no-op without fusion).
                lazy::eval(&[&z, &count]).unwrap();
            }
            (z.to_bytes().unwrap(), count.to_bytes().unwrap())
        };
        let fused = mandelbrot();
        let eager = lazy::disabled(mandelbrot);
        assert_eq!(fused, eager);
        if lazy_on() {
            let s = lazy::stats();
            let compiles = s.compiles - before.compiles;
            // 32-op pieces, the last piece, the complex's construction, the two-output update.
            assert!(compiles <= 8, "{compiles} fused kernels made for two loops ({before:?} → {s:?})");
            assert!(s.fused_kernels - before.fused_kernels >= 400, "{before:?} → {s:?}");
        }
    });
}

pub fn pending_values_never_see_later_writes(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = arange(0.0, 6.0, 1.0, Some(DType::F64)).unwrap();
        let y = x.mul(2.0).unwrap().add(1.0).unwrap();
        let z = y.sin().unwrap();
        if lazy_on() {
            assert!(y.is_pending() && z.is_pending());
        }
        x.fill(100.0).unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]);
        // The device's own sine, op by op (a GPU's may differ from the host's in the last bit).
        let sines =
            lazy::disabled(|| Array::from_slice(&[1.0f64, 3.0, 5.0, 7.0, 9.0, 11.0], &[6])?.sin()?.to_vec::<f64>())
                .unwrap();
        assert_eq!(z.to_vec::<f64>().unwrap(), sines);
        // A write through `out=`, a scalar store through `set`, and a copy.
        let a = arange(0.0, 4.0, 1.0, Some(DType::F32)).unwrap();
        let p = a.mul(10.0).unwrap().add(&a).unwrap();
        let q = a.sub(1.0).unwrap().abs().unwrap();
        call("add", &[(&a).into(), 1.0.into()], Some(&a)).unwrap();
        let r = a.mul(&a).unwrap().neg_via_sub();
        a.set(s![0], 50.0).unwrap();
        let b = zeros(&[4], DType::F32).unwrap();
        let t = b.add(1.0).unwrap();
        full(&[4], 9.0, DType::F32).unwrap().copy_into(&b).unwrap();
        assert_eq!(p.to_vec::<f32>().unwrap(), [0.0, 11.0, 22.0, 33.0]);
        assert_eq!(q.to_vec::<f32>().unwrap(), [1.0, 0.0, 1.0, 2.0]);
        assert_eq!(r.to_vec::<f32>().unwrap(), [-1.0, -4.0, -9.0, -16.0]);
        assert_eq!(t.to_vec::<f32>().unwrap(), [1.0; 4]);
        assert_eq!(a.to_vec::<f32>().unwrap(), [50.0, 2.0, 3.0, 4.0]);
    });
}

trait NegViaSub {
    fn neg_via_sub(&self) -> Array;
}
impl NegViaSub for Array {
    fn neg_via_sub(&self) -> Array {
        zeros(self.shape(), self.dtype()).unwrap().sub(self).unwrap()
    }
}

pub fn errors_come_from_the_call_that_makes_them(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let a = arange(0.0, 6.0, 1.0, Some(DType::F32)).unwrap().reshape(&[2, 3]).unwrap();
        let p = a.mul(2.0).unwrap();
        let u = Array::from_slice(&[1u8, 2, 3], &[3]).unwrap().add(1).unwrap();
        assert_eq!(u.add_scalar(300).unwrap_err().kind(), "Overflow");
        let b = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let e = p.add(&b).unwrap_err();
        assert_eq!(e.kind(), "ShapeMismatch");
        let m = p.gt(1.0).unwrap();
        assert_eq!(m.bitwise_and(&p).unwrap_err().kind(), "DType");
        assert_eq!(p.to_vec::<f32>().unwrap(), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(u.to_vec::<u8>().unwrap(), [2, 3, 4]);
    });
}

pub fn views_consumers_and_joint_evaluation_of_pending_arrays(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = arange(0.0, 12.0, 1.0, Some(DType::F64)).unwrap().reshape(&[3, 4]).unwrap();
        let y = x.mul(3.0).unwrap().sub(1.0).unwrap();
        // Views of a pending array, and ops on them.
        let t = y.t();
        let s = y.slice(&[SliceArg::range(1, 3, 1), SliceArg::range(0, 4, 2)]).unwrap();
        let r = y.reshape(&[12]).unwrap();
        let w = t.add(1.0).unwrap();
        assert_eq!(s.to_vec::<f64>().unwrap(), [11.0, 17.0, 23.0, 29.0]);
        assert_eq!(r.to_vec::<f64>().unwrap(), (0..12).map(|k| 3.0 * k as f64 - 1.0).collect::<Vec<_>>());
        let want: Vec<f64> = (0..4).flat_map(|j| (0..3).map(move |i| 3.0 * (4 * i + j) as f64)).collect();
        assert_eq!(w.to_vec::<f64>().unwrap(), want);
        // Reductions, libraries and sorts read pending values.
        let z = x.sub(5.5).unwrap().mul(&x).unwrap();
        let host: Vec<f64> = (0..12).map(|k| (k as f64 - 5.5) * k as f64).collect();
        assert_eq!(z.sum(None, false).unwrap().item::<f64>().unwrap(), host.iter().sum::<f64>());
        let g = linalg::matmul(&z.reshape(&[3, 4]).unwrap(), &x.t()).unwrap();
        assert_eq!(g.shape(), &[3, 3]);
        let mut sorted = host.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(sort(&z.reshape(&[12]).unwrap(), Some(-1)).unwrap().to_vec::<f64>().unwrap(), sorted);
        // Two pending arrays of one shape: one evaluation, one kernel.
        let a = x.mul(2.0).unwrap().add(1.0).unwrap();
        let b = a.mul(&a).unwrap().sub(&x).unwrap();
        let c = x.cos().unwrap().mul(&x).unwrap();
        let before = lazy::stats();
        eval(&[&b, &c, &a]).unwrap();
        if lazy_on() {
            let s = lazy::stats();
            assert_eq!((s.evaluations - before.evaluations, s.fused_kernels - before.fused_kernels), (1, 1), "{s:?}");
            assert!(!a.is_pending() && !b.is_pending() && !c.is_pending());
        }
        let xs: Vec<f64> = (0..12).map(f64::from).collect();
        assert_eq!(a.to_vec::<f64>().unwrap(), xs.iter().map(|v| 2.0 * v + 1.0).collect::<Vec<_>>());
        assert_eq!(
            b.to_vec::<f64>().unwrap(),
            xs.iter().map(|v| (2.0 * v + 1.0) * (2.0 * v + 1.0) - v).collect::<Vec<_>>()
        );
        let eager = lazy::disabled(|| x.reshape(&[12])?.cos()?.mul(&x.reshape(&[12])?)?.to_vec::<f64>()).unwrap();
        assert_eq!(c.to_vec::<f64>().unwrap(), eager);
        // Dropped before it is needed: never computed.
        let before = lazy::stats();
        drop(x.exp().unwrap().add(2.0).unwrap());
        assert_eq!(lazy::stats().evaluations, before.evaluations);
    });
}

pub fn long_chains_are_cut_by_the_depth_bound(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = arange(0.0, 8.0, 1.0, Some(DType::I64)).unwrap();
        let before = lazy::stats();
        let mut acc = x.clone();
        for _ in 0..100 {
            acc = acc.add(&x).unwrap();
        }
        if lazy_on() {
            let s = lazy::stats();
            assert_eq!(s.evaluations - before.evaluations, 3, "{s:?}");
            assert!(acc.is_pending());
        }
        assert_eq!(acc.to_vec::<i64>().unwrap(), (0..8).map(|k| 101 * k).collect::<Vec<i64>>());
    });
}

pub fn wide_trees_are_cut_by_the_op_count_bound(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = arange(0.0, 8.0, 1.0, Some(DType::F64)).unwrap();
        let before = lazy::stats();
        // 128 products summed pairwise: 8 ops deep, far from the depth bound, 255 ops in all.
        let mut level: Vec<Array> = (0..128).map(|k| x.mul_scalar(k as f64).unwrap()).collect();
        while level.len() > 1 {
            level = level.chunks(2).map(|p| p[0].add(&p[1]).unwrap()).collect();
        }
        let total = level.pop().unwrap();
        if lazy_on() {
            let s = lazy::stats();
            let n = s.evaluations - before.evaluations;
            assert!((1..128).contains(&n), "{n} evaluations: {s:?}");
        }
        assert_eq!(total.to_vec::<f64>().unwrap(), (0..8).map(|k| 8128.0 * k as f64).collect::<Vec<f64>>());
    });
}

#[derive(Debug, Clone)]
struct Reduction {
    shape: Vec<usize>,
    dtype: usize,
    map: u8,
    op: u8,
    /// None: every axis; else this axis (mod the rank).
    axis: Option<usize>,
    seed: u64,
}

fn reduction() -> impl Strategy<Value = Reduction> {
    (
        prop_oneof![
            prop::collection::vec(1usize..70, 1..=3),
            // Long enough to split a reduced range into segments, on the CPU and on GPUs.
            Just(vec![3, 40_000]),
            Just(vec![70_001]),
            Just(vec![5000, 9]),
        ],
        0..FLOATS.len(),
        0u8..5,
        0u8..9,
        prop::option::of(0usize..3),
        any::<u64>(),
    )
        .prop_map(|(shape, dtype, map, op, axis, seed)| Reduction { shape, dtype, map, op, axis, seed })
}

/// The reduction's result bytes on `d`, with fusion as it is set on this thread; and whether
/// the map was still pending after the reduction.
fn run_reduction(d: &Arc<dyn DynDevice>, c: &Reduction) -> Result<(Vec<u8>, bool)> {
    with_device(d, || {
        let dt = FLOATS[c.dtype];
        let n: usize = c.shape.iter().product();
        let rank = c.shape.len();
        let x = Array::from_slice_on(d, &randoms(n, c.seed, -2.0, 2.0), &c.shape)?.astype(dt)?;
        let y = Array::from_slice_on(d, &randoms(n, c.seed ^ 5, -1.0, 1.0), &c.shape)?.astype(dt)?;
        let last = c.shape[rank - 1];
        let row = Array::from_slice_on(d, &randoms(last, c.seed ^ 9, 0.5, 1.5), &[last])?.astype(dt)?;
        let m = eval_now(x.max(Some(&[rank as isize - 1]), true)?)?;
        let map = match c.map {
            0 => x.mul(&x)?.add(&y.mul(2.0)?)?,
            1 => x.sub(&m)?.exp()?,
            2 => x.sub(&row)?.div(&row.add(0.25)?)?,
            // A transposed operand beside a C-ordered one (square in the last two axes or not).
            3 => {
                let t =
                    if rank >= 2 && c.shape[rank - 1] == c.shape[rank - 2] { swapaxes(&y, -1, -2)? } else { y.clone() };
                x.abs()?.sqrt()?.mul(&t)?.sin()?
            }
            _ => x.astype(DType::F64)?.mul(0.1)?.tanh()?.astype(dt)?,
        };
        let axes: Option<Vec<isize>> = c.axis.map(|a| vec![(a % rank) as isize]);
        let ax = axes.as_deref();
        let r = match c.op {
            0 => map.sum(ax, false)?,
            1 => map.mean(ax, true)?,
            2 => map.max(ax, false)?,
            3 => map.min(ax, false)?,
            4 => map.var(ax, 1, false)?,
            5 => map.std(ax, 0, false)?,
            6 => map.argmax(c.axis.map(|a| (a % rank) as isize))?,
            7 => map.mul(0.5)?.add(0.75)?.prod(ax, false)?,
            _ => map.gt(0.3)?.any(ax, false)?,
        };
        let bytes = r.to_bytes()?;
        Ok((bytes, map.is_pending()))
    })
}

fn eval_now(a: Array) -> Result<Array> {
    eval(&[&a])?;
    Ok(a)
}

pub fn reductions_of_pending_maps_give_the_bits_of_computed_maps(d: &Arc<dyn DynDevice>) {
    let config = Config { cases: 24, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let before = lazy::stats();
    let kept_pending = std::cell::Cell::new(0usize);
    let expected = std::cell::Cell::new(0usize);
    // The CPU computes a transcendental map first (see `xp::lazy`): maps 0 and 2 are arithmetic.
    let host = d.properties().is_host;
    runner
        .run(&reduction(), |c| {
            let (lazy, pending) = run_reduction(d, &c).unwrap();
            let (eager, _) = lazy::disabled(|| run_reduction(d, &c)).unwrap();
            prop_assert!(lazy == eager, "fused and computed-map reductions differ on {} for {:?}", d.label(), c);
            kept_pending.set(kept_pending.get() + pending as usize);
            expected.set(expected.get() + (!host || matches!(c.map, 0 | 2)) as usize);
            Ok(())
        })
        .unwrap();
    if lazy_on() {
        // The map is computed inside the reduction's kernel and never stored.
        let s = lazy::stats();
        let (kept_pending, expected) = (kept_pending.get(), expected.get());
        assert!(expected >= 8, "only {expected} cases of maps the device reduces fused");
        assert!(
            kept_pending >= expected * 5 / 6,
            "{kept_pending} of {expected} maps stayed pending ({before:?} → {s:?})"
        );
        assert!(s.fused_kernels - before.fused_kernels >= (expected * 5 / 6) as u64, "{before:?} → {s:?}");
    }
}
