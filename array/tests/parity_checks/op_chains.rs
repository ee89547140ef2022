//! Random arrays, views and chains of element-wise operations (proptest), each computed on the
//! device and on the CPU and compared bit for bit: shapes of one to three axes, every integer
//! and float width, reversed, transposed, strided and broadcast views, and chains of additions,
//! subtractions, products, maxima, minima, negations, absolute values, comparisons with
//! `where` and casts. Each of these operations is exactly rounded, so every backend must give
//! the same bits. On the CPU the check compares the CPU with itself (the views and chains still
//! run); the GPU run of this check is the comparison that counts.

use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use xp_array::*;
use xp_backend_api::DynDevice;

const DTYPES: [DType; 8] =
    [DType::I8, DType::U8, DType::I16, DType::I32, DType::I64, DType::U32, DType::F32, DType::F64];

#[derive(Debug, Clone)]
struct Case {
    shape: Vec<usize>,
    dtype: usize,
    view: u8,
    ops: Vec<u8>,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(1usize..6, 1..=3),
        0..DTYPES.len(),
        0u8..5,
        prop::collection::vec(0u8..9, 1..6),
        any::<u64>(),
    )
        .prop_map(|(shape, dtype, view, ops, seed)| Case { shape, dtype, view, ops, seed })
}

/// Small values from `seed` (a linear congruential sequence), fit for every dtype.
fn values(n: usize, seed: u64, unsigned: bool) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = ((s >> 33) % 15) as f64;
            if unsigned {
                v
            } else {
                v - 7.0
            }
        })
        .collect()
}

/// The case's chain on `d`: its bytes, or the error's kind.
fn run(d: &Arc<dyn DynDevice>, c: &Case) -> std::result::Result<(Vec<usize>, Vec<u8>), String> {
    let dt = DTYPES[c.dtype];
    let unsigned = matches!(dt, DType::U8 | DType::U32);
    let n: usize = c.shape.iter().product();
    let make =
        |seed: u64| -> Result<Array> { Array::from_slice_on(d, &values(n, seed, unsigned), &c.shape)?.astype(dt) };
    let r = with_device(d, || -> Result<(Vec<usize>, Vec<u8>)> {
        let x = make(c.seed)?;
        let y = make(c.seed.wrapping_add(1))?;
        let x = match c.view {
            0 => x,
            1 => flip(&x, Some(&[0]))?,
            2 => x.transpose(None)?,
            3 => x.slice(&[SliceArg::Ellipsis, SliceArg::range(0, c.shape[c.shape.len() - 1] as isize, 2)])?,
            _ => x.slice(&[SliceArg::Ellipsis, SliceArg::range(0, 1, 1)])?.broadcast_to(&c.shape)?,
        };
        // y takes x's shape (a view may have changed it): broadcast what fits, else its own
        // reversal of the right shape.
        let y = if y.shape() == x.shape() {
            y
        } else {
            let shape: Vec<isize> = x.shape().iter().map(|&k| k as isize).collect();
            let flat = make(c.seed ^ 0x5555)?.reshape(&[n as isize])?;
            flat.slice(&[SliceArg::range(0, x.size() as isize, 1)])?.reshape(&shape)?
        };
        let mut acc = x;
        for &op in &c.ops {
            acc = match op {
                0 => acc.add(&y)?,
                1 => acc.sub(&y)?,
                2 => acc.mul(&y)?,
                3 => acc.maximum(&y)?,
                4 => acc.minimum(&y)?,
                5 if !unsigned => acc.negative()?,
                5 | 6 => acc.abs()?,
                7 => where_(&acc.gt(&y)?, Operand::Array(&acc), Operand::Array(&y))?,
                _ => acc.astype(DType::F64)?.astype(dt)?,
            };
        }
        Ok((acc.shape().to_vec(), acc.to_bytes()?))
    });
    r.map_err(|e| e.kind().to_string())
}

pub fn random_views_and_op_chains_match_the_cpu(d: &Arc<dyn DynDevice>) {
    let cpu = device("cpu").unwrap();
    let config = Config { cases: 96, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let computed = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&case(), |c| {
            let (here, there) = (run(d, &c), run(&cpu, &c));
            prop_assert_eq!(&here, &there, "{} and the CPU differ on {:?}", d.label(), c);
            if here.is_ok() {
                computed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    // The chains are meant to compute: an error on both sides passes the comparison, but most
    // cases must have values.
    let computed = computed.into_inner();
    assert!(computed >= 80, "only {computed} of 96 cases computed values");
}

/// Broadcast operands along rows whose length is a multiple of four (GPUs take them four at a
/// time, reading a broadcast operand once per group), with the rows aligned and one element off
/// alignment (a view from offset 1), with a column, a row and a transposed operand, computed on
/// the device and on the CPU (exactly rounded ops only: the bits must agree).
pub fn broadcast_rows_of_four_match_the_cpu(d: &Arc<dyn DynDevice>) {
    let cpu = device("cpu").unwrap();
    let run = |dev: &Arc<dyn DynDevice>| -> Vec<Vec<u8>> {
        with_device(dev, || -> Result<Vec<Vec<u8>>> {
            let v: Vec<f32> = (0..(6 * 12 + 1)).map(|k| (k as f32 * 0.37).sin()).collect();
            let flat = Array::from_vec(v)?;
            let x = flat.at(s![0..72])?.reshape(&[6, 12])?;
            let off = flat.at(s![1..73])?.reshape(&[6, 12])?;
            let col = x.max(Some(&[1]), true)?;
            let row = Array::from_vec((0..12).map(|k| 0.25 * k as f32 - 1.0).collect())?.reshape(&[1, 12])?;
            let sq = Array::from_vec((0..144).map(|k| k as f32).collect())?.reshape(&[12, 12])?;
            let mut out = Vec::new();
            for a in [&x, &off] {
                out.push(a.sub(&col)?.to_bytes()?);
                out.push(a.sub(&row)?.div(&col)?.to_bytes()?);
                out.push(a.mul(2.5)?.add(&row)?.to_bytes()?);
            }
            out.push(sq.add(&sq.transpose(None)?)?.to_bytes()?);
            Ok(out)
        })
        .unwrap()
    };
    assert_eq!(run(d), run(&cpu));
}
