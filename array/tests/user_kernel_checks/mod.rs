//! The user-kernel checks (CuPy's tutorial kernels and their failure modes), each against a
//! host reference, written once for any device and listed once, in `user_kernel_tests!`:
//! `array/tests/user_kernels.rs` makes each a test on the CPU backend, the root package's
//! `tests/user_kernels_gpu.rs` a test on every GPU found.
//!
//! No `allow(dead_code)` here: a check left out of the list is never used, a warning that
//! clippy's `-D warnings` makes an error.

use std::sync::Arc;

use xp_array::user::{fuse, ElementwiseKernel, LaunchArg, RawKernel, RawModule, ReductionKernel};
use xp_array::{arange, empty, linspace, with_device, zeros, Array, DType, Operand, SliceArg};
use xp_backend_api::DynDevice;
use xp_kernels::seeds::{self, ElementwiseSeed, ReductionSeed, MY_ADD, SAXPY, SCALE_AND_BLOCK_SUM, TILED_MATMUL};

fn elementwise(s: ElementwiseSeed) -> ElementwiseKernel {
    ElementwiseKernel::new(s.in_params, s.out_params, s.operation, s.name).unwrap()
}

fn reduction(s: ReductionSeed) -> ReductionKernel {
    ReductionKernel::new(s.in_params, s.out_params, s.map_expr, s.reduce_expr, s.post_map_expr, s.identity, s.name)
        .unwrap()
}

/// `z = (x - y) * (x - y)` on float32.
pub fn my_kernel() -> ElementwiseKernel {
    elementwise(seeds::SQUARED_DIFF)
}

/// The same with a type placeholder.
pub fn my_kernel_generic() -> ElementwiseKernel {
    elementwise(seeds::SQUARED_DIFF_GENERIC)
}

/// `y = a * x + b`.
pub fn axpb() -> ElementwiseKernel {
    elementwise(seeds::AXPB)
}

/// `max(x, 0) + alpha * min(x, 0)`.
pub fn leaky_relu() -> ElementwiseKernel {
    elementwise(seeds::LEAKY_RELU)
}

/// Sum of squares.
pub fn sum_squares() -> ReductionKernel {
    reduction(seeds::SUM_SQUARES)
}

/// The L2 norm.
pub fn l2norm() -> ReductionKernel {
    reduction(seeds::L2NORM)
}

fn f32s(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn close(got: &[f32], want: &[f32], rtol: f32) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= rtol * w.abs().max(1.0), "element {k}: {g} vs {w}");
    }
}

fn arange_f32(n: usize) -> Array {
    arange(0.0, n as f64, 1.0, Some(DType::F32)).unwrap()
}

/// A deterministic pseudo-random f32 vector in [0, 1).
pub fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

/// `my_kernel` on float32 and generic, broadcasting (2,5) against (5,) and against a scalar.
pub fn elementwise_seed(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = arange_f32(10).reshape(&[2, 5]).unwrap();
        let y = arange_f32(5);
        for k in [my_kernel(), my_kernel_generic()] {
            let z = k.call(&[(&x).into(), (&y).into()]).unwrap();
            assert_eq!(z.shape(), &[2, 5]);
            assert_eq!(z.dtype(), DType::F32);
            assert_eq!(f32s(&z), [0., 0., 0., 0., 0., 25., 25., 25., 25., 25.]);
            let z = k.call(&[(&x).into(), 5.0.into()]).unwrap();
            assert_eq!(f32s(&z), [25., 16., 9., 4., 1., 0., 1., 4., 9., 16.]);
        }
        // Generic on float64 and int32, and on a transposed (strided) view.
        let xd = x.astype(DType::F64).unwrap();
        let z = my_kernel_generic().call(&[(&xd).into(), 5.0.into()]).unwrap();
        assert_eq!(z.dtype(), DType::F64);
        assert_eq!(z.to_vec::<f64>().unwrap(), [25., 16., 9., 4., 1., 0., 1., 4., 9., 16.]);
        let xi = x.astype(DType::I32).unwrap();
        let z = my_kernel_generic().call(&[(&xi).into(), (&xi.t().copy().unwrap().t()).into()]).unwrap();
        assert_eq!(z.to_vec::<i32>().unwrap(), vec![0; 10]);
        let z = my_kernel().call(&[(&x.t()).into(), 1.0.into()]).unwrap();
        assert_eq!(z.shape(), &[5, 2]);
        assert_eq!(f32s(&z), [1., 16., 0., 25., 1., 36., 4., 49., 9., 64.]);
        // An explicit output, written in place.
        let out = zeros(&[2, 5], DType::F32).unwrap();
        let r = my_kernel().call(&[(&x).into(), (&y).into(), (&out).into()]).unwrap();
        assert!(r.shares_buffer(&out));
        assert_eq!(f32s(&out)[5], 25.0);
        // Placeholders that inputs cannot bind need the output.
        let k = ElementwiseKernel::new("X x, Y y", "Z z", "z = (x - y) * (x - y)", "my_kernel_xyz").unwrap();
        assert_eq!(k.call(&[(&x).into(), (&y).into()]).unwrap_err().kind(), "DType");
        let out = empty(&[2, 5], DType::F64).unwrap();
        k.call(&[(&x).into(), (&y).into(), (&out).into()]).unwrap();
        assert_eq!(out.to_vec::<f64>().unwrap()[5..], [25.0; 5]);
    });
}

/// `y = a * x + b` (the seed's printed values) and `leaky_relu`.
pub fn axpb_and_leaky_relu(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = linspace(0.0, 1.0, 8, true, Some(DType::F32)).unwrap();
        let y = axpb().call(&[(&x).into(), 2.0.into(), 1.0.into()]).unwrap();
        close(&f32s(&y), &[1.0, 1.2857143, 1.5714285, 1.8571429, 2.142857, 2.4285715, 2.7142859, 3.0], 1e-6);
        let host: Vec<f32> = (0..1000).map(|k| (k as f32 - 500.0) / 37.0).collect();
        let x = Array::from_slice(&host, &[10, 100]).unwrap();
        let y = leaky_relu().call(&[(&x).into(), 0.1.into()]).unwrap();
        let want: Vec<f32> = host.iter().map(|&v| if v > 0.0 { v } else { 0.1f32 * v }).collect();
        assert_eq!(f32s(&y), want);
        // float64 binds T from the array; the scalar takes it.
        let y = leaky_relu().call(&[(&x.astype(DType::F64).unwrap()).into(), 0.1.into()]).unwrap();
        assert_eq!(y.dtype(), DType::F64);
    });
}

/// `raw` arguments indexed with `i`, and an output read before it is written.
pub fn raw_params(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = arange_f32(12);
        let rev = ElementwiseKernel::new("raw T x", "T y", "y = x[n - 1 - i]", "reverse").unwrap();
        let out = empty(&[3, 4], DType::F32).unwrap();
        rev.call(&[(&x).into(), (&out).into()]).unwrap();
        assert_eq!(f32s(&out), (0..12).rev().map(|v| v as f32).collect::<Vec<_>>());
        // A strided output: `i` is the flat C-order index of the element computed.
        let big = zeros(&[4, 6], DType::F32).unwrap();
        let view = big.slice(&[SliceArg::ALL, SliceArg::range(0, 6, 2)]).unwrap();
        let idx = ElementwiseKernel::new("raw T x", "T y", "y = x[i] + (T)100", "index_plus").unwrap();
        idx.call(&[(&x).into(), (&view).into()]).unwrap();
        let want: Vec<f32> = (0..24).map(|k| if k % 2 == 0 { 100.0 + (k / 2) as f32 } else { 0.0 }).collect();
        assert_eq!(f32s(&big), want);
        // An accumulating output: `y += x` reads the given output first.
        let acc = ElementwiseKernel::new("T x", "T y", "y += x", "accumulate").unwrap();
        let y = arange_f32(12);
        acc.call(&[(&x).into(), (&y).into()]).unwrap();
        acc.call(&[(&x).into(), (&y).into()]).unwrap();
        assert_eq!(f32s(&y), (0..12).map(|v| 3.0 * v as f32).collect::<Vec<_>>());
    });
}

/// Sum of squares of `arange(10)` and the L2 norm along axis 1 of `arange(10).reshape(2, 5)`.
pub fn reduction_seed(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let s = sum_squares().call(&arange_f32(10), None, false).unwrap();
        assert_eq!(s.shape(), &[] as &[usize]);
        assert_eq!(s.item::<f32>().unwrap(), 285.0);
        let x = arange_f32(10).reshape(&[2, 5]).unwrap();
        let n = l2norm().call(&x, Some(&[1]), false).unwrap();
        assert_eq!(n.dtype(), DType::F32);
        close(&f32s(&n), &[5.477226, 15.9687195], 1e-6);
        let n = l2norm().call(&x, Some(&[1]), true).unwrap();
        assert_eq!(n.shape(), &[2, 1]);
        let n = l2norm().call(&x, Some(&[0, 1]), false).unwrap();
        close(&f32s(&n), &[285f32.sqrt()], 1e-6);
        let n = l2norm().call(&x, Some(&[0]), false).unwrap();
        close(&f32s(&n), &[5.0, 37f32.sqrt(), 53f32.sqrt(), 73f32.sqrt(), 97f32.sqrt()], 1e-6);
        // float64 input: T binds float64.
        let n = l2norm().call(&x.astype(DType::F64).unwrap(), Some(&[1]), false).unwrap();
        assert_eq!(n.dtype(), DType::F64);
        // An output of the wrong shape.
        let bad = empty(&[3], DType::F32).unwrap();
        assert_eq!(l2norm().call_into(&x, &bad, Some(&[1]), false).unwrap_err().kind(), "ShapeMismatch");
        let good = empty(&[2], DType::F32).unwrap();
        l2norm().call_into(&x, &good, Some(&[1]), false).unwrap();
        close(&f32s(&good), &[5.477226, 15.9687195], 1e-6);
    });
}

/// Per-row L2 norms of a large matrix against the host, and its columns (a strided reduction).
pub fn row_norms(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let (rows, cols) = (1000, 1537);
        let host = noise(rows * cols, 7);
        let m = Array::from_slice(&host, &[rows, cols]).unwrap();
        let got = f32s(&l2norm().call(&m, Some(&[1]), false).unwrap());
        let want: Vec<f32> = (0..rows)
            .map(|r| host[r * cols..(r + 1) * cols].iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt() as f32)
            .collect();
        close(&got, &want, 1e-5);
        let got = f32s(&l2norm().call(&m, Some(&[0]), false).unwrap());
        let want: Vec<f32> = (0..cols)
            .map(|c| (0..rows).map(|r| (host[r * cols + c] as f64).powi(2)).sum::<f64>().sqrt() as f32)
            .collect();
        close(&got, &want, 1e-5);
    });
}

/// `my_add` on 5×5, saxpy, and the launch's argument count check.
pub fn raw_kernels(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let k = RawKernel::new(MY_ADD, "my_add");
        let x1 = arange_f32(25).reshape(&[5, 5]).unwrap();
        let x2 = arange_f32(25).reshape(&[5, 5]).unwrap();
        let y = zeros(&[5, 5], DType::F32).unwrap();
        k.launch(5, 5, &[(&x1).into(), (&x2).into(), (&y).into()]).unwrap();
        assert_eq!(f32s(&y), (0..25).map(|v| 2.0 * v as f32).collect::<Vec<_>>());
        // Too few arguments: refused before launching where the count is known.
        let e = k.launch(5, 5, &[(&x1).into(), (&x2).into()]);
        if k.kernel(d).unwrap().num_params().is_some() {
            assert_eq!(e.unwrap_err().kind(), "Value");
        }

        let n = 1 << 20;
        let (hx, hy) = (noise(n, 1), noise(n, 2));
        let x = Array::from_slice(&hx, &[n]).unwrap();
        let yv = Array::from_slice(&hy, &[n]).unwrap();
        let out = empty(&[n], DType::F32).unwrap();
        let saxpy = RawKernel::new(SAXPY, "saxpy");
        let threads = 256u32;
        let blocks = (n as u32).div_ceil(threads);
        saxpy
            .launch(blocks, threads, &[2.0f32.into(), (&x).into(), (&yv).into(), (&out).into(), (n as i32).into()])
            .unwrap();
        let got = f32s(&out);
        for k in [0, 1, 2, n / 2, n - 1] {
            assert_eq!(got[k], 2.0f32 * hx[k] + hy[k], "element {k}");
        }
        assert!(got.iter().zip(hx.iter().zip(&hy)).all(|(g, (a, b))| *g == 2.0f32 * a + b));
    });
}

/// A raw kernel's arguments are held against its signature on every backend. Before, `2.0`
/// (a double) for `const float a` arrived as a double whose low half is 0.0 and saxpy computed
/// `out = y`; a scalar in a pointer slot became an illegal address; a strided view handed its
/// first element's address to a kernel that read past the view.
pub fn raw_kernel_arguments_follow_the_signature(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let n = 1000usize;
        let (hx, hy) = (noise(n, 3), noise(n, 4));
        let x = Array::from_slice(&hx, &[n]).unwrap();
        let y = Array::from_slice(&hy, &[n]).unwrap();
        let out = zeros(&[n], DType::F32).unwrap();
        let saxpy = RawKernel::new(SAXPY, "saxpy");
        let blocks = (n as u32).div_ceil(256);
        // A double and an i64 for `const float a` and `int n`: converted as C converts them.
        saxpy
            .launch(blocks, 256u32, &[2.0f64.into(), (&x).into(), (&y).into(), (&out).into(), (n as i64).into()])
            .unwrap();
        let got = f32s(&out);
        assert!(got.iter().zip(hx.iter().zip(&hy)).all(|(g, (a, b))| *g == 2.0f32 * a + b));
        let refused = |args: &[LaunchArg<'_>], what: &str| {
            let e = saxpy.launch(blocks, 256u32, args).unwrap_err();
            assert_eq!(e.kind(), "Value", "{e}");
            assert!(e.to_string().contains(what), "{e}");
        };
        refused(&[2.0f32.into(), 1.0f32.into(), (&y).into(), (&out).into(), 5i32.into()], "is a pointer");
        refused(&[(&x).into(), (&x).into(), (&y).into(), (&out).into(), 5i32.into()], "is a value");
        refused(&[2.0f32.into(), (&x).into(), (&y).into(), (&out).into()], "takes 5 parameters");
        refused(&[2.0f32.into(), (&x).into(), (&y).into(), (&out).into(), (1i64 << 40).into()], "does not fit");
        refused(&[2.0f32.into(), (&x).into(), (&y).into(), (&out).into(), 5.0f64.into()], "takes an integer");
        // A strided view: refused, unless passed as a view on purpose.
        let every_other = x.slice(&[SliceArg::range(0, n as isize, 2)]).unwrap();
        refused(&[2.0f32.into(), (&every_other).into(), (&y).into(), (&out).into(), 5i32.into()], "C-contiguous");
        saxpy
            .launch(
                1u32,
                256u32,
                &[2.0f32.into(), LaunchArg::View(&every_other), (&y).into(), (&out).into(), 5i32.into()],
            )
            .unwrap();
    });
}

/// The 16×16 tiled matmul against a host product, and a module of two kernels with dynamic
/// shared memory.
pub fn tiled_matmul_and_module(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let (m, k, n) = (70usize, 50usize, 45usize);
        let (ha, hb) = (noise(m * k, 3), noise(k * n, 4));
        let a = Array::from_slice(&ha, &[m, k]).unwrap();
        let b = Array::from_slice(&hb, &[k, n]).unwrap();
        let c = zeros(&[m, n], DType::F32).unwrap();
        let mm = RawKernel::new(TILED_MATMUL, "matmul_tiled");
        let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
        mm.launch(
            grid,
            (16, 16),
            &[(&a).into(), (&b).into(), (&c).into(), (m as i32).into(), (k as i32).into(), (n as i32).into()],
        )
        .unwrap();
        let mut want = vec![0f32; m * n];
        for r in 0..m {
            for col in 0..n {
                want[r * n + col] = (0..k).map(|t| ha[r * k + t] as f64 * hb[t * n + col] as f64).sum::<f64>() as f32;
            }
        }
        close(&f32s(&c), &want, 1e-5);

        let module = RawModule::new(SCALE_AND_BLOCK_SUM, &[]);
        assert_eq!(module.kernel_names(), ["scale", "block_sum"]);
        assert_eq!(module.get_function("nope").unwrap_err().kind(), "Value");
        let x = Array::from_slice(&noise(1000, 5), &[1000]).unwrap();
        let host = f32s(&x);
        module.get_function("scale").unwrap().launch(4, 256, &[(&x).into(), 2.0f32.into(), 1000i32.into()]).unwrap();
        let sums = zeros(&[4], DType::F32).unwrap();
        let bs = module.get_function("block_sum").unwrap();
        let args: [LaunchArg<'_>; 3] = [(&x).into(), (&sums).into(), 1000i32.into()];
        bs.launch_with(4, 256, 256 * 4, None, &args).unwrap();
        let want: Vec<f32> =
            (0..4).map(|b| host[b * 256..((b + 1) * 256).min(1000)].iter().map(|v| 2.0 * v).sum()).collect();
        close(&f32s(&sums), &want, 1e-5);
    });
}

/// `squared_diff` through `fuse` (the seed's output), a fused reduction, and the trace cache.
pub fn fused(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let squared_diff = fuse("squared_diff", |[x, y]| (x - y) * (x - y));
        let x = arange_f32(10);
        let y = x.slice(&[SliceArg::Range { start: None, stop: None, step: Some(-1) }]).unwrap();
        let z = squared_diff.call(&[(&x).into(), (&y).into()]).unwrap();
        assert_eq!(z.dtype(), DType::F32);
        assert_eq!(f32s(&z), [81., 49., 25., 9., 1., 1., 9., 25., 49., 81.]);
        // Another dtype combination, a weak scalar, broadcasting.
        let xi = arange(0.0, 10.0, 1.0, Some(DType::I64)).unwrap().reshape(&[2, 5]).unwrap();
        let z = squared_diff.call(&[(&xi).into(), 5.into()]).unwrap();
        assert_eq!(z.dtype(), DType::I64);
        assert_eq!(z.to_vec::<i64>().unwrap(), [25, 16, 9, 4, 1, 0, 1, 4, 9, 16]);
        let z = squared_diff.call(&[(&x).into(), 0.5.into()]).unwrap();
        assert_eq!(z.dtype(), DType::F32);
        // Ops and constants: as the unfused ops.
        let f = fuse("mixed", |[x]| (x * 2.0 + 1i64).sqrt() / 3.0 - (-x).exp());
        let got = f32s(&f.call(&[(&x).into()]).unwrap());
        let want = f32s(&(&(&(&(&x * 2.0) + 1.0).sqrt().unwrap() / 3.0) - &x.negative().unwrap().exp().unwrap()));
        close(&got, &want, 1e-6);
        // A reduction at the end: one input (one kernel), two inputs, along an axis.
        let sumsq = fuse("sumsq", |[x]| (x * x).sum(None, false));
        assert_eq!(sumsq.call(&[(&x).into()]).unwrap().item::<f32>().unwrap(), 285.0);
        let m = x.reshape(&[2, 5]).unwrap();
        let rows = fuse("row_sq", |[x]| (x * x).sum(Some(&[1]), true));
        let r = rows.call(&[(&m).into()]).unwrap();
        assert_eq!(r.shape(), &[2, 1]);
        assert_eq!(f32s(&r), [30.0, 255.0]);
        let dist = fuse("dist", |[x, y]| ((x - y) * (x - y)).sum(None, false));
        assert_eq!(dist.call(&[(&x).into(), (&y).into()]).unwrap().item::<f32>().unwrap(), 330.0);
        // A reduction elsewhere than at the end is refused.
        let bad = fuse("bad", |[x]| x.sum(None, false) + x);
        assert_eq!(bad.call(&[(&x).into()]).unwrap_err().kind(), "Value");
        assert_eq!(squared_diff.call(&[(&x).into()]).unwrap_err().kind(), "Value");
    });
}

/// A fused `-x` refuses a bool input as the `negative` ufunc does (NumPy: "The numpy boolean
/// negative, the `-` operator, is not supported, use the `~` operator or the logical_not
/// function instead"), and runs on a float input.
pub fn fused_negative_on_bool(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let neg = fuse("fused_negative", |[x]| -x);
        let b = Array::from_slice(&[true, false, true], &[3]).unwrap();
        let plain = xp_array::call("negative", &[(&b).into()], None).unwrap_err();
        let fused = neg.call(&[(&b).into()]).unwrap_err();
        assert_eq!(fused.kind(), "DType", "{fused}");
        assert_eq!(fused.to_string(), plain.to_string());
        assert!(fused.to_string().contains("logical_not"), "{fused}");
        let x = arange_f32(4);
        assert_eq!(f32s(&neg.call(&[(&x).into()]).unwrap()), [-0.0, -1.0, -2.0, -3.0]);
    });
}

/// Bad input, each provoked.
pub fn bad_input(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let x = arange_f32(10).reshape(&[2, 5]).unwrap();
        let y64 = arange(0.0, 5.0, 1.0, Some(DType::F64)).unwrap();
        // A placeholder bound to two dtypes.
        let e = my_kernel_generic().call(&[(&x).into(), (&y64).into()]).unwrap_err();
        assert_eq!(e.kind(), "DType");
        assert!(e.to_string().contains('T') && e.to_string().contains("float64"), "{e}");
        // An output whose shape does not match.
        let out = empty(&[5, 2], DType::F32).unwrap();
        let e = my_kernel().call(&[(&x).into(), 1.0.into(), (&out).into()]).unwrap_err();
        assert_eq!(e.kind(), "ShapeMismatch");
        // Wrong argument counts.
        assert_eq!(my_kernel().call(&[(&x).into()]).unwrap_err().kind(), "Value");
        assert_eq!(my_kernel().call(&[(&x).into(), 1.0.into(), (&x).into(), (&x).into()]).unwrap_err().kind(), "Value");
        // An unknown dtype name, a reserved parameter name.
        let e = ElementwiseKernel::new("floot32 x", "float32 z", "z = x", "k").unwrap_err();
        assert_eq!(e.kind(), "DType");
        assert!(e.to_string().contains("floot32"), "{e}");
        assert_eq!(ElementwiseKernel::new("float32 i", "float32 z", "z = i", "k").unwrap_err().kind(), "Value");
        assert_eq!(ElementwiseKernel::new("float32 x", "float32 _z", "_z = x", "k").unwrap_err().kind(), "Value");
        assert_eq!(
            ReductionKernel::new("float32 a", "float32 y", "a", "a + b", "y = a", "0", "k").unwrap_err().kind(),
            "Value"
        );
        // A syntax error in the body: the compiler's log, with line numbers, and the kernel's
        // name; the fixed kernel then compiles.
        let broken = ElementwiseKernel::new("float32 x", "float32 z", "z = x *+* 2", "broken_kernel").unwrap();
        let e = broken.call(&[(&x).into()]).unwrap_err();
        assert_eq!(e.kind(), "Compile");
        let msg = e.to_string();
        assert!(msg.contains("broken_kernel"), "{msg}");
        // g++ and hiprtc write `file:LINE:COL: error`, NVRTC `file(LINE): error`.
        let has_line = |l: &str| {
            l.contains("error")
                && (l.split(':').any(|p| p.trim().parse::<u32>().is_ok())
                    || l.split(['(', ')']).any(|p| p.trim().parse::<u32>().is_ok()))
        };
        assert!(msg.lines().any(has_line), "no line number: {msg}");
        let fixed = ElementwiseKernel::new("float32 x", "float32 z", "z = x * 2", "broken_kernel").unwrap();
        assert_eq!(f32s(&fixed.call(&[(&x).into()]).unwrap())[9], 18.0);
        let raw = RawKernel::new("extern \"C\" __global__ void oops(float* x) { x[0] = ; }", "oops");
        let e = raw.launch(1, 1, &[(&x).into()]).unwrap_err();
        assert_eq!(e.kind(), "Compile");
        // A size-0 input: no launch (not even a compile: the body here would not compile), an
        // empty output of the broadcast shape.
        let empty_x = zeros(&[0, 5], DType::F32).unwrap();
        let z = broken.call(&[(&empty_x).into()]).unwrap();
        assert_eq!(z.shape(), &[0, 5]);
        assert_eq!(z.size(), 0);
        let z = my_kernel().call(&[(&empty_x).into(), (&arange_f32(5)).into()]).unwrap();
        assert_eq!(z.shape(), &[0, 5]);
        let sq = fuse("sq_empty", |[x]| x * x);
        assert_eq!(sq.call(&[(&empty_x).into()]).unwrap().shape(), &[0, 5]);
        let _ = Operand::from(1.0);
    });
}

/// The type placeholders are typedefs in a kernel's preamble too, as in CuPy: a helper written
/// `T f(T x)` serves every dtype the kernel is called with (here float32 and float64 from one
/// kernel), in an `ElementwiseKernel` and a `ReductionKernel`.
pub fn preamble_type_placeholders(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let k = ElementwiseKernel::new("T x", "T y", "y = halve_and_cube(x)", "preamble_t")
            .unwrap()
            .with_preamble("__device__ inline T halve_and_cube(T v) { const T h = v / 2; return h * h * h; }");
        let x = arange_f32(6);
        assert_eq!(f32s(&k.call(&[(&x).into()]).unwrap()), [0.0, 0.125, 1.0, 3.375, 8.0, 15.625]);
        let x64 = x.astype(DType::F64).unwrap();
        let y = k.call(&[(&x64).into()]).unwrap();
        assert_eq!(y.dtype(), DType::F64);
        // 1/3 is not a float32: the float64 helper kept float64's precision.
        let third = k.call(&[(&Array::from_slice(&[2.0f64 / 3.0], &[1]).unwrap()).into()]).unwrap();
        let t = 1.0f64 / 3.0;
        assert_eq!(third.to_vec::<f64>().unwrap()[0], t * t * t);
        assert_eq!(y.to_vec::<f64>().unwrap()[5], 15.625);
        let r = ReductionKernel::new("T x", "T y", "sq(x)", "a + b", "y = a", "0", "preamble_t_sum")
            .unwrap()
            .with_preamble("__device__ inline T sq(T v) { return v * v; }");
        assert_eq!(r.call(&arange_f32(10), None, false).unwrap().item::<f32>().unwrap(), 285.0);
        assert_eq!(
            r.call(&arange_f32(10).astype(DType::F64).unwrap(), None, false).unwrap().item::<f64>().unwrap(),
            285.0
        );
    });
}

/// CUDA's `erfcinv`, `erfinv`, `normcdf` and `normcdfinv` (and their `f` forms) in user
/// kernels on every backend: built in on GPUs, the library's own on the CPU.
pub fn cuda_math_functions(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let qs = [0.001f64, 0.25, 0.5, 1.0, 1.5, 1.999];
        let q = Array::from_slice(&qs, &[qs.len()]).unwrap();
        let k = ElementwiseKernel::new(
            "T q",
            "T z, T e, T p",
            "z = erfcinv(q); e = erfinv(q - 1); p = normcdf(normcdfinv(q / 2))",
            "inverse_erf",
        )
        .unwrap();
        let out = k.call_all(&[(&q).into()]).unwrap();
        let (z, e, p) =
            (out[0].to_vec::<f64>().unwrap(), out[1].to_vec::<f64>().unwrap(), out[2].to_vec::<f64>().unwrap());
        // erfc(erfcinv(q)) = q; erfinv(q - 1) = -erfcinv(q); normcdf inverts normcdfinv.
        let erfc = xp_array::special::erfc(&out[0]).unwrap().to_vec::<f64>().unwrap();
        for i in 0..qs.len() {
            assert!((erfc[i] - qs[i]).abs() <= 1e-14 * qs[i], "erfc(erfcinv({})) = {}", qs[i], erfc[i]);
            assert!(
                (e[i] + z[i]).abs() <= 1e-12 * (1.0 + z[i].abs()),
                "erfinv({}) = {}, erfcinv = {}",
                qs[i] - 1.0,
                e[i],
                z[i]
            );
            assert!((p[i] - qs[i] / 2.0).abs() <= 1e-14, "normcdf(normcdfinv({})) = {}", qs[i] / 2.0, p[i]);
        }
        assert_eq!(z[3], 0.0);
        let kf =
            ElementwiseKernel::new("float32 q", "float32 z", "z = erfcinvf(q) + erfcinv(q)", "inverse_erf_f").unwrap();
        let zf = kf.call(&[(&q.astype(DType::F32).unwrap()).into()]).unwrap().to_vec::<f32>().unwrap();
        assert!((zf[1] - 2.0 * z[1] as f32).abs() < 1e-5, "{zf:?}");
        let raw = RawKernel::new(
            "extern \"C\" __global__ void raw_erfcinv(double* x) { x[threadIdx.x] = erfcinv(x[threadIdx.x]); }",
            "raw_erfcinv",
        );
        let x = q.copy().unwrap();
        raw.launch(1, qs.len() as u32, &[(&x).into()]).unwrap();
        assert_eq!(x.to_vec::<f64>().unwrap(), z);
    });
}

/// Every check of this module, each as its own `#[test]` named after it that runs
/// `$run(name, check)` (`device_tests!`, `../device_tests/mod.rs`), for a test crate that mounts
/// this module at its root as `user_kernel_checks`. A new check goes in this list, and nowhere
/// else.
/// CuPy's k-means `sum_kernel` (`'T x, S mask'`: the samples of each cluster summed, the
/// mask broadcast over the coordinates), a weighted mean of two inputs, a scalar argument,
/// three inputs, and the axis, keepdims and out arguments, each against a host loop.
pub fn reduction_several_inputs(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        // k-means: 7 samples of 2 coordinates, 3 clusters.
        let xs: Vec<f64> = (0..14).map(|v| (v as f64) * 0.5 - 3.0).collect();
        let labels = [0i64, 2, 1, 0, 2, 2, 0];
        let x = Array::from_slice(&xs, &[7, 2]).unwrap();
        let pred = Array::from_slice(&labels, &[7]).unwrap();
        let i = arange(0.0, 3.0, 1.0, Some(DType::I64)).unwrap().reshape(&[3, 1]).unwrap();
        let mask = pred.eq(&i).unwrap();
        assert_eq!(mask.shape(), &[3, 7]);
        let sum_kernel =
            ReductionKernel::new("T x, S mask", "T out", "mask ? x : 0", "a + b", "out = a", "0", "sum_kernel")
                .unwrap();
        let mask3 = mask.reshape(&[3, 7, 1]).unwrap();
        let sums = sum_kernel.call_args(&[(&x).into(), (&mask3).into()], Some(&[1]), false).unwrap();
        assert_eq!(sums.shape(), &[3, 2]);
        assert_eq!(sums.dtype(), DType::F64);
        let mut want = [0.0f64; 6];
        for (s, &l) in labels.iter().enumerate() {
            for c in 0..2 {
                want[l as usize * 2 + c] += xs[s * 2 + c];
            }
        }
        assert_eq!(sums.to_vec::<f64>().unwrap(), want);
        // keepdims, a negative axis, and `out`.
        let kd = sum_kernel.call_args(&[(&x).into(), (&mask3).into()], Some(&[-2]), true).unwrap();
        assert_eq!(kd.shape(), &[3, 1, 2]);
        assert_eq!(kd.to_vec::<f64>().unwrap(), want);
        let out = zeros(&[3, 2], DType::F64).unwrap();
        let r = sum_kernel.call_args_into(&[(&x).into(), (&mask3).into()], &out, Some(&[1]), false).unwrap();
        assert_eq!(out.to_vec::<f64>().unwrap(), want);
        assert_eq!(r.to_vec::<f64>().unwrap(), want);
        // Every axis: the sum of the masked broadcast (each sample counted once, in its cluster).
        let all = sum_kernel.call_args(&[(&x).into(), (&mask3).into()], None, false).unwrap();
        assert_eq!(all.shape(), &[] as &[usize]);
        assert_eq!(all.item::<f64>().unwrap(), xs.iter().sum::<f64>());

        // A weighted mean of the rows of a (4, 5) float32 matrix, the weights a row vector.
        let xv: Vec<f32> = (0..20).map(|v| ((v * 7) % 11) as f32 - 4.0).collect();
        let wv: Vec<f32> = vec![0.5, 1.0, 2.0, 0.25, 1.25];
        let xm = Array::from_slice(&xv, &[4, 5]).unwrap();
        let w = Array::from_slice(&wv, &[5]).unwrap();
        let wsum = ReductionKernel::new("T x, T w", "T y", "x * w", "a + b", "y = a", "0", "weighted_sum").unwrap();
        let num = wsum.call_args(&[(&xm).into(), (&w).into()], Some(&[1]), false).unwrap();
        let mean = (&num / &w.sum(None, false).unwrap()).to_vec::<f32>().unwrap();
        let wt: f32 = wv.iter().sum();
        let want: Vec<f32> = (0..4).map(|r| (0..5).map(|c| xv[r * 5 + c] * wv[c]).sum::<f32>() / wt).collect();
        close(&mean, &want, 1e-6);
        // Down the columns: each column's sum of x * w.
        let cols = wsum.call_args(&[(&xm).into(), (&w).into()], Some(&[0]), false).unwrap();
        let want: Vec<f32> = (0..5).map(|c| (0..4).map(|r| xv[r * 5 + c] * wv[c]).sum()).collect();
        close(&f32s(&cols), &want, 1e-6);
        // `_n` (the number of reduced elements) in the post-map: the plain mean of x * w.
        let wmean = ReductionKernel::new("T x, T w", "T y", "x * w", "a + b", "y = a / _n", "0", "wmean").unwrap();
        let m = wmean.call_args(&[(&xm).into(), (&w).into()], Some(&[1]), false).unwrap();
        let want: Vec<f32> = (0..4).map(|r| (0..5).map(|c| xv[r * 5 + c] * wv[c]).sum::<f32>() / 5.0).collect();
        close(&f32s(&m), &want, 1e-6);

        // A scalar argument (its `T` bound by the array, so it is a float32 here) and a
        // placeholder only a scalar binds (an int64).
        let sq = ReductionKernel::new("T x, T c", "T y", "(x - c) * (x - c)", "a + b", "y = a", "0", "sqdev").unwrap();
        let r = sq.call_args(&[(&xm).into(), 2.5.into()], None, false).unwrap();
        assert_eq!(r.dtype(), DType::F32);
        close(&[r.item::<f32>().unwrap()], &[xv.iter().map(|v| (v - 2.5) * (v - 2.5)).sum()], 1e-6);
        let shift = ReductionKernel::new("T x, S k", "T y", "x + (T)k", "a + b", "y = a", "0", "shifted").unwrap();
        let r = shift.call_args(&[(&w).into(), 3.into()], None, false).unwrap();
        close(&[r.item::<f32>().unwrap()], &[wt + 15.0], 1e-6);

        // Three inputs, a column and a row broadcast against a matrix, max-reduced.
        let col = Array::from_slice(&[1.0f32, -1.0, 2.0, 0.5], &[4, 1]).unwrap();
        let three =
            ReductionKernel::new("T x, T r, T c", "T y", "x * r + c", "a > b ? a : b", "y = a", "-1e30", "three_max")
                .unwrap();
        let r = three.call_args(&[(&xm).into(), (&col).into(), (&w).into()], Some(&[0]), false).unwrap();
        let cv = [1.0f32, -1.0, 2.0, 0.5];
        let want: Vec<f32> =
            (0..5).map(|c| (0..4).map(|r| xv[r * 5 + c] * cv[r] + wv[c]).fold(f32::NEG_INFINITY, f32::max)).collect();
        assert_eq!(f32s(&r), want);
        // A transposed (strided) view as an input.
        let t = xm.transpose(None).unwrap();
        let wcol = w.reshape(&[5, 1]).unwrap();
        let r = wsum.call_args(&[(&t).into(), (&wcol).into()], Some(&[0]), false).unwrap();
        let want: Vec<f32> = (0..4).map(|r| (0..5).map(|c| xv[r * 5 + c] * wv[c]).sum()).collect();
        close(&f32s(&r), &want, 1e-6);
    });
}

/// The errors of a bad call to a `ReductionKernel` of several inputs name the kernel, the
/// dtypes and the shapes, as CuPy's.
pub fn reduction_argument_errors(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let k = ReductionKernel::new("T x, S mask", "T out", "mask ? x : 0", "a + b", "out = a", "0", "sum_kernel")
            .unwrap();
        let x = arange_f32(10).reshape(&[2, 5]).unwrap();
        let m = zeros(&[2, 5], DType::Bool).unwrap();
        // Wrong argument counts.
        let e = k.call_args(&[(&x).into()], None, false).unwrap_err();
        assert_eq!(e.kind(), "Value");
        assert!(e.to_string().contains("sum_kernel: takes 2 inputs (x, mask), 1 argument given"), "{e}");
        let e = k.call(&x, None, false).unwrap_err();
        assert_eq!(e.kind(), "Value");
        let e = k.call_args(&[(&x).into(), (&m).into(), (&m).into()], None, false).unwrap_err();
        assert!(e.to_string().contains("3 arguments given"), "{e}");
        // A placeholder bound to two dtypes.
        let k2 = ReductionKernel::new("T x, T w", "T y", "x * w", "a + b", "y = a", "0", "weighted").unwrap();
        let x64 = x.astype(DType::F64).unwrap();
        let e = k2.call_args(&[(&x).into(), (&x64).into()], None, false).unwrap_err();
        assert_eq!(e.kind(), "DType");
        let msg = e.to_string();
        assert!(msg.starts_with("weighted:") && msg.contains("float32") && msg.contains("float64"), "{msg}");
        // An input that does not convert safely to its fixed dtype.
        let kf = ReductionKernel::new("float32 x, T w", "T y", "x * w", "a + b", "y = a", "0", "fixed").unwrap();
        let e = kf.call_args(&[(&x64).into(), (&x).into()], None, false).unwrap_err();
        assert_eq!(e.kind(), "DType");
        assert!(e.to_string().contains("float64") && e.to_string().contains("float32"), "{e}");
        // Shapes that do not broadcast.
        let bad = arange_f32(4);
        let e = k2.call_args(&[(&x).into(), (&bad).into()], None, false).unwrap_err();
        assert_eq!(e.kind(), "ShapeMismatch");
        let msg = e.to_string();
        assert!(msg.starts_with("weighted:") && msg.contains("[2, 5]") && msg.contains("[4]"), "{msg}");
        // An output of the wrong shape, an axis out of range.
        let out = zeros(&[5], DType::F32).unwrap();
        let e = k2.call_args_into(&[(&x).into(), (&x).into()], &out, Some(&[1]), false).unwrap_err();
        assert_eq!(e.kind(), "ShapeMismatch");
        assert!(e.to_string().contains("[5]") && e.to_string().contains("[2]"), "{e}");
        let e = k2.call_args(&[(&x).into(), (&x).into()], Some(&[2]), false).unwrap_err();
        assert!(e.to_string().starts_with("weighted:") && e.to_string().contains('2'), "{e}");
        // Raw parameters and several outputs are refused when the kernel is made.
        let e = ReductionKernel::new("raw T x, T w", "T y", "w", "a + b", "y = a", "0", "rawred").unwrap_err();
        assert_eq!(e.kind(), "Unsupported");
        assert!(e.to_string().contains("`x`"), "{e}");
        let e = ReductionKernel::new("T x", "T y, T z", "x", "a + b", "y = a", "0", "two_outs").unwrap_err();
        assert_eq!(e.kind(), "Unsupported");
        // Every argument a scalar.
        assert_eq!(k2.call_args(&[1.0.into(), 2.0.into()], None, false).unwrap_err().kind(), "Value");
    });
}

/// A compile error in a user kernel quotes the user's own line, with the user's line number
/// and the piece it is in (a raw kernel's source, an elementwise kernel's operation and
/// preamble, a reduction's map expression), whichever compiler rejected it.
pub fn compile_errors_quote_the_users_lines(d: &Arc<dyn DynDevice>) {
    // The compiler's message first, then the user's line; a caret where the compiler gives a
    // column (g++ and hiprtc do, NVRTC does not).
    let check = |e: xp_array::Error, head: &str, line: &str, ident: &str| {
        assert_eq!(e.kind(), "Compile", "{e}");
        let msg = e.to_string();
        let first = msg.lines().find(|l| l.contains(head)).unwrap_or_else(|| panic!("no `{head}` in: {msg}"));
        assert!(first.contains(ident), "the compiler's message names `{ident}`: {msg}");
        assert!(msg.contains(&format!("  3 | {line}\n")), "the user's line 3 is quoted: {msg}");
        // The compiler's own log follows the explanation whole (warnings of the library's
        // headers included, as some NVRTC versions give them); the explanation quotes no line
        // of them.
        let explained = msg.split("compiler output:").next().unwrap_or(&msg);
        assert!(!explained.contains("xp_prelude.h"), "no line of the prelude is quoted: {msg}");
    };
    with_device(d, || {
        let x = arange_f32(8);
        let raw = RawKernel::new(
            "extern \"C\" __global__ void bad_raw(float* x) {\n  int i = threadIdx.x;\n  x[i] = undefined_k;\n}\n",
            "bad_raw",
        );
        let e = raw.launch(1, 1, &[(&x).into()]).unwrap_err();
        check(e, "bad_raw: source, line 3: error", "  x[i] = undefined_k;", "undefined_k");

        let op = ElementwiseKernel::new(
            "T x",
            "T z",
            "const T two = 2;\nT t = x * two;\nz = t + undefined_q;",
            "bad_operation",
        )
        .unwrap();
        let e = op.call(&[(&x).into()]).unwrap_err();
        check(e, "bad_operation: operation, line 3: error", "z = t + undefined_q;", "undefined_q");

        let pre = ElementwiseKernel::new("T x", "T z", "z = helper(x)", "bad_preamble")
            .unwrap()
            .with_preamble("__device__ inline T helper(T v) {\n  T w = v * 2;\n  return w + missing_r;\n}");
        let e = pre.call(&[(&x).into()]).unwrap_err();
        check(e, "bad_preamble: preamble, line 3: error", "  return w + missing_r;", "missing_r");

        let red = ReductionKernel::new("T x", "T y", "(x > 0\n ? x\n : undefined_m)", "a + b", "y = a", "0", "bad_map")
            .unwrap();
        let e = red.call(&x, None, false).unwrap_err();
        check(e, "bad_map: map_expr, line 3: error", " : undefined_m)", "undefined_m");
        // The same map in a kernel of two inputs (the fused reduction).
        let red2 = ReductionKernel::new(
            "T x, T w",
            "T y",
            "(x > 0\n ? x * w\n : undefined_m)",
            "a + b",
            "y = a",
            "0",
            "bad_map2",
        )
        .unwrap();
        let e = red2.call_args(&[(&x).into(), (&x).into()], None, false).unwrap_err();
        check(e, "bad_map2: map_expr, line 3: error", " : undefined_m)", "undefined_m");
        // A caret under the offending name where the compiler gives the column.
        let e = op.call(&[(&x).into()]).unwrap_err().to_string();
        if e.contains("<operation>:3:") {
            assert!(e.contains("  3 | z = t + undefined_q;\n    |         ^\n"), "{e}");
        }
        // The fixed kernels run.
        let ok =
            ElementwiseKernel::new("T x", "T z", "const T two = 2;\nT t = x * two;\nz = t + 1;", "fixed_op").unwrap();
        assert_eq!(f32s(&ok.call(&[(&x).into()]).unwrap())[3], 7.0);
    });
}

macro_rules! user_kernel_tests {
    ($run:path) => {
        device_tests!($run; user_kernel_checks: [
            elementwise_seed,
            axpb_and_leaky_relu,
            raw_params,
            reduction_seed,
            row_norms,
            raw_kernels,
            raw_kernel_arguments_follow_the_signature,
            tiled_matmul_and_module,
            fused,
            fused_negative_on_bool,
            bad_input,
            preamble_type_placeholders,
            cuda_math_functions,
            reduction_several_inputs,
            reduction_argument_errors,
            compile_errors_quote_the_users_lines,
        ]);
    };
}
