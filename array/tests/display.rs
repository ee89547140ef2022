//! Printing (`xp_array::display`): `{}` is NumPy's `str(a)`, `{:#}` NumPy's `repr(a)`. Every
//! expected string below is NumPy 2.4's output for the same array (`str(a)`, `repr(a)`).

use std::sync::Arc;

use num_complex::{Complex32, Complex64};
use xp_array::*;
use xp_backend_api::BackendHandle;
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn xp_backend_api::DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

fn f64s(v: &[f64], shape: &[usize]) -> Array {
    Array::from_slice_on(&cpu(), v, shape).unwrap()
}

fn typed(v: &[f64], dtype: DType) -> Array {
    f64s(v, &[v.len()]).astype(dtype).unwrap()
}

/// `str` and `repr` of `a`, against NumPy's.
#[track_caller]
fn prints(a: &Array, str_: &str, repr: &str) {
    assert_eq!(format!("{a}"), str_, "str");
    assert_eq!(format!("{a:#}"), repr, "repr");
    assert_eq!(array_str(a).unwrap(), str_);
    assert_eq!(array_repr(a).unwrap(), repr);
}

#[test]
fn floats_share_one_layout() {
    prints(&typed(&[1.0, 1.5], DType::F32), "[1.  1.5]", "array([1. , 1.5], dtype=float32)");
    prints(&f64s(&[1.0, 2.0, 3.0], &[3]), "[1. 2. 3.]", "array([1., 2., 3.])");
    prints(
        &f64s(&[-1.5, 2.0, f64::NAN, f64::INFINITY], &[4]),
        "[-1.5  2.   nan  inf]",
        "array([-1.5,  2. ,  nan,  inf])",
    );
    prints(
        &f64s(&[0.1, 0.25, 1.0 / 3.0], &[3]),
        "[0.1        0.25       0.33333333]",
        "array([0.1       , 0.25      , 0.33333333])",
    );
    prints(&f64s(&[-0.0, 0.0], &[2]), "[-0.  0.]", "array([-0.,  0.])");
    prints(&f64s(&[f64::NAN, f64::INFINITY], &[2]), "[nan inf]", "array([nan, inf])");
    prints(&typed(&[0.1, 0.2, 0.3], DType::F16), "[0.1 0.2 0.3]", "array([0.1, 0.2, 0.3], dtype=float16)");
    prints(
        &f64s(&[1.5, 2.25, 3.0, -4.125], &[2, 2]).astype(DType::F32).unwrap(),
        "[[ 1.5    2.25 ]\n [ 3.    -4.125]]",
        "array([[ 1.5  ,  2.25 ],\n       [ 3.   , -4.125]], dtype=float32)",
    );
}

#[test]
fn wide_ranges_switch_to_scientific_notation() {
    prints(&f64s(&[1e-5, 1.0], &[2]), "[1.e-05 1.e+00]", "array([1.e-05, 1.e+00])");
    prints(
        &f64s(&[1.5e-10, 1e10, f64::NEG_INFINITY], &[3]),
        "[1.5e-10 1.0e+10    -inf]",
        "array([1.5e-10, 1.0e+10,    -inf])",
    );
    prints(&f64s(&[1e100, 1e-5], &[2]), "[1.e+100 1.e-005]", "array([1.e+100, 1.e-005])");
    prints(
        &f64s(&[123456789.0, 1.0], &[2]),
        "[1.23456789e+08 1.00000000e+00]",
        "array([1.23456789e+08, 1.00000000e+00])",
    );
}

#[test]
fn integers_and_bools() {
    let a = arange(0.0, 12.0, 1.0, Some(DType::I32)).unwrap().reshape(&[3, 4]).unwrap();
    prints(
        &a,
        "[[ 0  1  2  3]\n [ 4  5  6  7]\n [ 8  9 10 11]]",
        "array([[ 0,  1,  2,  3],\n       [ 4,  5,  6,  7],\n       [ 8,  9, 10, 11]], dtype=int32)",
    );
    let b = &arange(0.0, 24.0, 1.0, Some(DType::I64)).unwrap().reshape(&[2, 3, 4]).unwrap() - 5;
    prints(
        &b,
        "[[[-5 -4 -3 -2]\n  [-1  0  1  2]\n  [ 3  4  5  6]]\n\n [[ 7  8  9 10]\n  [11 12 13 14]\n  [15 16 17 18]]]",
        "array([[[-5, -4, -3, -2],\n        [-1,  0,  1,  2],\n        [ 3,  4,  5,  6]],\n\n       \
         [[ 7,  8,  9, 10],\n        [11, 12, 13, 14],\n        [15, 16, 17, 18]]])",
    );
    let extremes = Array::from_slice_on(&cpu(), &[i64::MAX, i64::MIN], &[2]).unwrap();
    prints(
        &extremes,
        "[ 9223372036854775807 -9223372036854775808]",
        "array([ 9223372036854775807, -9223372036854775808])",
    );
    prints(&typed(&[1.0, 0.0], DType::Bool), "[ True False]", "array([ True, False])");
}

#[test]
fn complex_parts_are_laid_out_separately() {
    let a = Array::from_slice_on(&cpu(), &[Complex64::new(1.0, 2.0), Complex64::new(3.0, -1.5)], &[2]).unwrap();
    prints(&a, "[1.+2.j  3.-1.5j]", "array([1.+2.j , 3.-1.5j])");
    let b = Array::from_slice_on(&cpu(), &[Complex32::new(0.5, 0.0), Complex32::new(-0.0, -1.0)], &[2]).unwrap();
    prints(&b, "[ 0.5+0.j -0. -1.j]", "array([ 0.5+0.j, -0. -1.j], dtype=complex64)");
}

#[test]
fn long_rows_wrap_and_large_arrays_are_summarised() {
    let a = linspace(0.0, 1.0, 30, true, None).unwrap();
    prints(
        &a,
        "[0.         0.03448276 0.06896552 0.10344828 0.13793103 0.17241379\n 0.20689655 0.24137931 \
         0.27586207 0.31034483 0.34482759 0.37931034\n 0.4137931  0.44827586 0.48275862 0.51724138 \
         0.55172414 0.5862069\n 0.62068966 0.65517241 0.68965517 0.72413793 0.75862069 0.79310345\n \
         0.82758621 0.86206897 0.89655172 0.93103448 0.96551724 1.        ]",
        "array([0.        , 0.03448276, 0.06896552, 0.10344828, 0.13793103,\n       0.17241379, \
         0.20689655, 0.24137931, 0.27586207, 0.31034483,\n       0.34482759, 0.37931034, 0.4137931 , \
         0.44827586, 0.48275862,\n       0.51724138, 0.55172414, 0.5862069 , 0.62068966, 0.65517241,\n       \
         0.68965517, 0.72413793, 0.75862069, 0.79310345, 0.82758621,\n       0.86206897, 0.89655172, \
         0.93103448, 0.96551724, 1.        ])",
    );
    let big = arange(0.0, 2000.0, 1.0, Some(DType::F64)).unwrap();
    prints(
        &big,
        "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]",
        "array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03], shape=(2000,))",
    );
    let grid = arange(0.0, 3000.0, 1.0, Some(DType::I64)).unwrap().reshape(&[50, 60]).unwrap();
    prints(
        &grid,
        "[[   0    1    2 ...   57   58   59]\n [  60   61   62 ...  117  118  119]\n [ 120  121  122 ...  177  \
         178  179]\n ...\n [2820 2821 2822 ... 2877 2878 2879]\n [2880 2881 2882 ... 2937 2938 2939]\n [2940 2941 \
         2942 ... 2997 2998 2999]]",
        "array([[   0,    1,    2, ...,   57,   58,   59],\n       [  60,   61,   62, ...,  117,  118,  119],\n       \
         [ 120,  121,  122, ...,  177,  178,  179],\n       ...,\n       [2820, 2821, 2822, ..., 2877, 2878, 2879],\n       \
         [2880, 2881, 2882, ..., 2937, 2938, 2939],\n       [2940, 2941, 2942, ..., 2997, 2998, 2999]], shape=(50, 60))",
    );
}

#[test]
fn empty_and_zero_d_arrays() {
    prints(&f64s(&[], &[0, 3]), "[]", "array([], shape=(0, 3), dtype=float64)");
    prints(&typed(&[], DType::I32), "[]", "array([], dtype=int32)");
    prints(&f64s(&[5.0], &[]), "5.0", "array(5.)");
    prints(&f64s(&[0.1], &[]).astype(DType::F32).unwrap(), "0.1", "array(0.1, dtype=float32)");
    prints(&f64s(&[7.0], &[]).astype(DType::U8).unwrap(), "7", "array(7, dtype=uint8)");
    prints(&f64s(&[1e20], &[]), "1e+20", "array(1.e+20)");
    let z = Array::from_slice_on(&cpu(), &[Complex64::new(1.5, -2.0)], &[]).unwrap();
    prints(&z, "(1.5-2j)", "array(1.5-2.j)");
}

#[test]
fn a_precision_in_the_format_string_cuts_the_digits() {
    let a = f64s(&[1.0 / 3.0, 2.0 / 3.0], &[2]);
    assert_eq!(format!("{a:.3}"), "[0.333 0.667]");
    assert_eq!(format!("{a:#.3}"), "array([0.333, 0.667])");
    let opts = PrintOptions { precision: 3, ..PrintOptions::NUMPY };
    assert_eq!(array2string(&a, opts).unwrap(), "[0.333 0.667]");
    assert_eq!(format!("{a:?}"), "Array(shape=[2], dtype=float64, device=cpu)");
}

#[test]
fn a_summarised_block_in_three_dimensions() {
    // NumPy's str(np.arange(3000).reshape(10, 10, 30)): only the shown elements are read.
    let a = arange(0.0, 3000.0, 1.0, Some(DType::I64)).unwrap().reshape(&[10, 10, 30]).unwrap();
    assert_eq!(format!("{a}"), "[[[   0    1    2 ...   27   28   29]\n  [  30   31   32 ...   57   58   59]\n  [  60   61   62 ...   87   88   89]\n  ...\n  [ 210  211  212 ...  237  238  239]\n  [ 240  241  242 ...  267  268  269]\n  [ 270  271  272 ...  297  298  299]]\n\n [[ 300  301  302 ...  327  328  329]\n  [ 330  331  332 ...  357  358  359]\n  [ 360  361  362 ...  387  388  389]\n  ...\n  [ 510  511  512 ...  537  538  539]\n  [ 540  541  542 ...  567  568  569]\n  [ 570  571  572 ...  597  598  599]]\n\n [[ 600  601  602 ...  627  628  629]\n  [ 630  631  632 ...  657  658  659]\n  [ 660  661  662 ...  687  688  689]\n  ...\n  [ 810  811  812 ...  837  838  839]\n  [ 840  841  842 ...  867  868  869]\n  [ 870  871  872 ...  897  898  899]]\n\n ...\n\n [[2100 2101 2102 ... 2127 2128 2129]\n  [2130 2131 2132 ... 2157 2158 2159]\n  [2160 2161 2162 ... 2187 2188 2189]\n  ...\n  [2310 2311 2312 ... 2337 2338 2339]\n  [2340 2341 2342 ... 2367 2368 2369]\n  [2370 2371 2372 ... 2397 2398 2399]]\n\n [[2400 2401 2402 ... 2427 2428 2429]\n  [2430 2431 2432 ... 2457 2458 2459]\n  [2460 2461 2462 ... 2487 2488 2489]\n  ...\n  [2610 2611 2612 ... 2637 2638 2639]\n  [2640 2641 2642 ... 2667 2668 2669]\n  [2670 2671 2672 ... 2697 2698 2699]]\n\n [[2700 2701 2702 ... 2727 2728 2729]\n  [2730 2731 2732 ... 2757 2758 2759]\n  [2760 2761 2762 ... 2787 2788 2789]\n  ...\n  [2910 2911 2912 ... 2937 2938 2939]\n  [2940 2941 2942 ... 2967 2968 2969]\n  [2970 2971 2972 ... 2997 2998 2999]]]");
}
