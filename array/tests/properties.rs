//! Property tests: random shapes, slices (negative and huge steps and bounds, integer indices,
//! new axes) and views of views, held against a plain-Rust model of NumPy's views on the CPU
//! backend; element-wise ops on those views against the model's arithmetic, and `set` through
//! them against the model's writes.

use std::sync::Arc;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use xp_array::indexing::IndexItem;
use xp_array::{device, register_backend, with_device, Array, DType, SliceArg};
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

/// A view in the model: the data it reads, its shape, strides and offset (in elements).
#[derive(Debug, Clone)]
struct View {
    data: Arc<Vec<f64>>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: isize,
}

impl View {
    fn new(shape: &[usize]) -> View {
        let n: usize = shape.iter().product();
        let mut strides = vec![1isize; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * shape[i + 1] as isize;
        }
        View { data: Arc::new((0..n).map(|i| i as f64).collect()), shape: shape.to_vec(), strides, offset: 0 }
    }

    /// The elements in C order.
    fn values(&self) -> Vec<f64> {
        self.offsets().into_iter().map(|at| self.data[at]).collect()
    }

    /// Where each element lies in the data, in C order.
    fn offsets(&self) -> Vec<usize> {
        let n: usize = self.shape.iter().product();
        let mut out = Vec::with_capacity(n);
        let mut idx = vec![0usize; self.shape.len()];
        for _ in 0..n {
            let at: isize = self.offset + idx.iter().zip(&self.strides).map(|(&i, &s)| i as isize * s).sum::<isize>();
            out.push(at as usize);
            for d in (0..idx.len()).rev() {
                idx[d] += 1;
                if idx[d] < self.shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        out
    }

    /// Python's slicing of one dimension of extent `n`: first index, count.
    fn range(n: usize, start: Option<isize>, stop: Option<isize>, step: isize) -> (isize, usize) {
        let n = n as i128;
        let step = step as i128;
        let norm = |v: Option<isize>, lo: i128, hi: i128, default: i128| match v {
            None => default,
            Some(v) => {
                let v = v as i128;
                (if v < 0 { v + n } else { v }).clamp(lo, hi)
            }
        };
        let (first, count) = if step > 0 {
            let (a, b) = (norm(start, 0, n, 0), norm(stop, 0, n, n));
            (a, if b > a { (b - a + step - 1) / step } else { 0 })
        } else {
            let (a, b) = (norm(start, -1, n - 1, n - 1), norm(stop, -1, n - 1, -1));
            (a, if a > b { (a - b + (-step) - 1) / (-step) } else { 0 })
        };
        (if count == 0 { 0 } else { first as isize }, count as usize)
    }

    /// The model of `a[args]` (no ellipsis).
    fn slice(&self, args: &[SliceArg]) -> View {
        let (mut shape, mut strides, mut offset) = (Vec::new(), Vec::new(), self.offset);
        let mut dim = 0;
        for a in args {
            match *a {
                SliceArg::Index(i) => {
                    let n = self.shape[dim] as isize;
                    let i = if i < 0 { i + n } else { i };
                    offset += i * self.strides[dim];
                    dim += 1;
                }
                SliceArg::Range { start, stop, step } => {
                    let step = step.unwrap_or(1);
                    let (first, count) = View::range(self.shape[dim], start, stop, step);
                    if count > 0 {
                        offset += first * self.strides[dim];
                    }
                    shape.push(count);
                    // One element: the stride does not matter; keep it in range.
                    strides.push(if count > 1 { step * self.strides[dim] } else { self.strides[dim] });
                    dim += 1;
                }
                SliceArg::NewAxis => {
                    shape.push(1);
                    strides.push(0);
                }
                SliceArg::Ellipsis => unreachable!("the strategy makes none"),
            }
        }
        shape.extend_from_slice(&self.shape[dim..]);
        strides.extend_from_slice(&self.strides[dim..]);
        View { data: Arc::clone(&self.data), shape, strides, offset }
    }
}

/// A bound of a range: small, near the extent, or far beyond it (either sign).
fn bound() -> impl Strategy<Value = Option<isize>> {
    prop_oneof![
        3 => Just(None),
        6 => (-8isize..8).prop_map(Some),
        1 => prop_oneof![Just(isize::MAX), Just(isize::MIN), Just(isize::MAX / 2), Just(-(1isize << 40))].prop_map(Some),
    ]
}

/// A step: small of either sign, or huge.
fn step() -> impl Strategy<Value = Option<isize>> {
    prop_oneof![
        3 => Just(None),
        6 => prop_oneof![-3isize..0, 1isize..4].prop_map(Some),
        1 => prop_oneof![Just(isize::MAX), Just(isize::MIN + 1), Just(1isize << 40)].prop_map(Some),
    ]
}

/// Slice arguments for a view of `shape`: one per dimension for a prefix of its dimensions,
/// each possibly preceded by a new axis.
fn args_for(shape: Vec<usize>) -> impl Strategy<Value = Vec<SliceArg>> {
    let per_dim: Vec<BoxedStrategy<Vec<SliceArg>>> = shape
        .iter()
        .map(|&n| {
            let range = (bound(), bound(), step())
                .prop_map(|(start, stop, step)| SliceArg::Range { start, stop, step })
                .boxed();
            let arg = if n == 0 {
                range
            } else {
                let n = n as isize;
                prop_oneof![3 => range, 1 => (-n..n).prop_map(SliceArg::Index)].boxed()
            };
            (arg, prop::bool::weighted(0.2))
                .prop_map(|(a, new_axis)| if new_axis { vec![SliceArg::NewAxis, a] } else { vec![a] })
                .boxed()
        })
        .collect();
    (per_dim, 0..=shape.len()).prop_map(|(v, keep)| v.into_iter().take(keep).flatten().collect())
}

fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..6, 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, failure_persistence: None, ..ProptestConfig::default() })]

    /// A slice of a slice reads what the model reads, and so does an element-wise op on it.
    #[test]
    fn views_of_views_match_the_model((shape, first) in shape().prop_flat_map(|s| (Just(s.clone()), args_for(s))),
                                      second_seed in any::<u64>()) {
        let d = cpu();
        let model = View::new(&shape);
        let n: usize = shape.iter().product();
        let a = with_device(&d, || xp_array::arange(0i64, n as i64, 1i64, Some(DType::F64)))
            .unwrap()
            .reshape(&shape.iter().map(|&v| v as isize).collect::<Vec<_>>())
            .unwrap();
        let v1 = a.slice(&first).unwrap();
        let m1 = model.slice(&first);
        prop_assert_eq!(v1.shape(), &m1.shape[..]);
        prop_assert_eq!(v1.to_vec::<f64>().unwrap(), m1.values());
        // A second slice, chosen from the first view's shape by the seed.
        let mut runner = proptest::test_runner::TestRunner::new_with_rng(
            ProptestConfig::default(),
            proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &{
                let mut s = [0u8; 32];
                s[..8].copy_from_slice(&second_seed.to_le_bytes());
                s
            }),
        );
        let second = args_for(m1.shape.clone()).new_tree(&mut runner).unwrap().current();
        let v2 = v1.slice(&second).unwrap();
        let m2 = m1.slice(&second);
        prop_assert_eq!(v2.shape(), &m2.shape[..]);
        prop_assert_eq!(v2.to_vec::<f64>().unwrap(), m2.values());
        // Element-wise on the strided view: x * 2 + 1, exact in float64.
        let y = v2.mul_scalar(2.0).unwrap().add_scalar(1.0).unwrap();
        let want: Vec<f64> = m2.values().iter().map(|v| v * 2.0 + 1.0).collect();
        prop_assert_eq!(y.to_vec::<f64>().unwrap(), want);
        prop_assert!(Array::is_contiguous(&y));
    }

    /// `set` of a scalar through a slice writes exactly the elements the model's view reaches,
    /// and no other.
    #[test]
    fn set_through_a_slice_writes_the_models_elements(
        (shape, args) in shape().prop_flat_map(|s| (Just(s.clone()), args_for(s))),
        value in -100i64..0,
    ) {
        let d = cpu();
        let n: usize = shape.iter().product();
        let a = with_device(&d, || xp_array::arange(0i64, n as i64, 1i64, Some(DType::F64)))
            .unwrap()
            .reshape(&shape.iter().map(|&v| v as isize).collect::<Vec<_>>())
            .unwrap();
        let items: Vec<IndexItem<'_>> = args
            .iter()
            .map(|a| match *a {
                SliceArg::Index(i) => IndexItem::Int(i),
                SliceArg::Range { start, stop, step } => IndexItem::Slice(start, stop, step),
                SliceArg::NewAxis => IndexItem::NewAxis,
                SliceArg::Ellipsis => IndexItem::Ellipsis,
            })
            .collect();
        a.set(&items, value as f64).unwrap();
        let mut want: Vec<f64> = (0..n).map(|i| i as f64).collect();
        for at in View::new(&shape).slice(&args).offsets() {
            want[at] = value as f64;
        }
        prop_assert_eq!(a.to_vec::<f64>().unwrap(), want);
    }
}
