//! `Array::fill`, as NumPy's `a.fill(value)`, on any device.

use std::sync::Arc;

use num_complex::Complex;
use xp_array::*;
use xp_backend_api::DynDevice;

pub fn fill_sets_every_element_in_place(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let a = zeros(&[3, 4], DType::F32).unwrap();
        let view = a.clone();
        a.fill(1.0).unwrap();
        assert_eq!(view.to_vec::<f32>().unwrap(), vec![1.0; 12]);
        let c = zeros(&[3], DType::C64).unwrap();
        c.fill(Complex::new(1.5, -2.0)).unwrap();
        assert_eq!(c.to_vec::<Complex<f32>>().unwrap(), vec![Complex::new(1.5, -2.0); 3]);
        let big = zeros(&[100_000], DType::I16).unwrap();
        big.fill(-7).unwrap();
        assert!(big.to_vec::<i16>().unwrap().iter().all(|&x| x == -7));
        let empty = zeros(&[0, 3], DType::F64).unwrap();
        empty.fill(2.0).unwrap();
        assert_eq!(empty.size(), 0);
    });
}

pub fn fill_on_a_strided_view_writes_only_its_elements(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let a = Array::from_vec((0..24).collect::<Vec<i32>>()).unwrap().reshape(&[4, 6]).unwrap();
        // a[1::2, ::-3] (rows 1 and 3, columns 5 and 2), then its transpose.
        let v = a
            .slice(&[SliceArg::range(1, 4, 2), SliceArg::Range { start: None, stop: None, step: Some(-3) }])
            .unwrap()
            .t();
        assert!(!v.is_contiguous());
        v.fill(-1).unwrap();
        let mut want: Vec<i32> = (0..24).collect();
        for (r, col) in [(1, 5), (1, 2), (3, 5), (3, 2)] {
            want[r * 6 + col] = -1;
        }
        assert_eq!(a.to_vec::<i32>().unwrap(), want);
    });
}

pub fn fill_converts_as_numpy_stores_a_python_scalar(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let get = |dt: DType, v: Scalar| -> Result<Array> {
            let a = zeros(&[2], dt)?;
            a.fill(v)?;
            Ok(a)
        };
        // Floats into integers truncate toward zero.
        assert_eq!(get(DType::I32, Scalar::Float(1.5)).unwrap().to_vec::<i32>().unwrap(), [1, 1]);
        assert_eq!(get(DType::I32, Scalar::Float(-2.7)).unwrap().to_vec::<i32>().unwrap(), [-2, -2]);
        assert_eq!(get(DType::I8, Scalar::Float(-128.9)).unwrap().to_vec::<i8>().unwrap(), [-128, -128]);
        assert_eq!(get(DType::U8, Scalar::Float(-0.5)).unwrap().to_vec::<u8>().unwrap(), [0, 0]);
        let top = 18446744073709549568.0; // the largest float64 below 2^64
        assert_eq!(get(DType::U64, Scalar::Float(top)).unwrap().to_vec::<u64>().unwrap(), [top as u64; 2]);
        assert_eq!(get(DType::U64, Scalar::Int(u64::MAX as i128)).unwrap().to_vec::<u64>().unwrap(), [u64::MAX; 2]);
        assert_eq!(get(DType::I8, Scalar::Int(-1)).unwrap().to_vec::<i8>().unwrap(), [-1, -1]);
        // Out of range: NumPy's OverflowError; NaN: ValueError.
        for (dt, v) in [
            (DType::I8, Scalar::Int(300)),
            (DType::U8, Scalar::Int(-1)),
            (DType::I64, Scalar::Int(1 << 63)),
            (DType::I8, Scalar::Float(128.0)),
            (DType::I64, Scalar::Float((1u64 << 63) as f64)),
            (DType::U64, Scalar::Float(1.8446744073709552e19)),
            (DType::I32, Scalar::Float(f64::INFINITY)),
        ] {
            assert_eq!(get(dt, v).unwrap_err().kind(), "Overflow", "{dt} {v:?}");
        }
        assert_eq!(get(DType::I32, Scalar::Float(f64::NAN)).unwrap_err().kind(), "Value");
        // Complex into a real array: NumPy's TypeError, never a silently dropped imaginary part.
        let e = get(DType::F64, Scalar::Complex(1.0, 2.0)).unwrap_err();
        assert_eq!(e.kind(), "DType");
        assert!(e.to_string().contains("complex") && e.to_string().contains("float64"), "{e}");
        assert_eq!(get(DType::I32, Scalar::Complex(2.0, 3.0)).unwrap_err().kind(), "DType");
        // Bool tests against zero; float overflow gives infinity.
        assert_eq!(get(DType::Bool, Scalar::Complex(0.0, 1.0)).unwrap().to_vec::<bool>().unwrap(), [true; 2]);
        assert_eq!(get(DType::Bool, Scalar::Int(5)).unwrap().to_vec::<bool>().unwrap(), [true; 2]);
        assert_eq!(get(DType::Bool, Scalar::Float(0.0)).unwrap().to_vec::<bool>().unwrap(), [false; 2]);
        assert_eq!(get(DType::F32, Scalar::Float(1e300)).unwrap().to_vec::<f32>().unwrap(), [f32::INFINITY; 2]);
        assert_eq!(get(DType::F64, Scalar::Int(3)).unwrap().to_vec::<f64>().unwrap(), [3.0; 2]);
        // A failed fill leaves the array as it was.
        let a = Array::from_vec(vec![5u8, 6]).unwrap();
        assert!(a.fill(256).is_err());
        assert_eq!(a.to_vec::<u8>().unwrap(), [5, 6]);
    });
}

pub fn fill_runs_on_the_current_stream(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let s = d.new_stream().unwrap();
        let a = zeros(&[1 << 20], DType::F64).unwrap();
        current_stream(d).synchronize().unwrap();
        with_stream_on(d, &s, || {
            a.fill(3.0).unwrap();
            let b = a.add_scalar(1.0).unwrap();
            assert!(b.to_vec::<f64>().unwrap().iter().all(|&x| x == 4.0));
        });
    });
}
