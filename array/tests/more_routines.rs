//! Splits, joins, index helpers, `modf`/`frexp`, `polyfit`/`roots`, predicates and text files
//! on the CPU backend, against values NumPy printed for the same inputs; and their errors.

use std::sync::Arc;

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

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    assert!(
        got.iter().zip(want).all(|(g, w)| g == w || (g - w).abs() <= tol * w.abs().max(1.0)),
        "{got:?} vs {want:?}"
    );
}

#[test]
fn splits_stacks_and_blocks() {
    with_device(&cpu(), || {
        let a = arange(0, 7, 1, Some(DType::I64)).unwrap();
        let parts = array_split(&a, &Sections::Count(3), 0).unwrap();
        let got: Vec<Vec<i64>> = parts.iter().map(i64s).collect();
        assert_eq!(got, vec![vec![0, 1, 2], vec![3, 4], vec![5, 6]]);
        assert!(split(&a, &Sections::Count(3), 0).unwrap_err().to_string().contains("equal division"));
        let at = split(&a, &Sections::At(vec![2, -2, 10]), 0).unwrap();
        let got: Vec<Vec<i64>> = at.iter().map(i64s).collect();
        assert_eq!(got, vec![vec![0, 1], vec![2, 3, 4], vec![5, 6], vec![]]);
        let m = arange(0, 24, 1, Some(DType::F32)).unwrap().reshape(&[2, 3, 4]).unwrap();
        assert_eq!(dsplit(&m, &Sections::Count(2)).unwrap()[1].shape(), &[2, 3, 2]);
        assert_eq!(vsplit(&m, &Sections::Count(2)).unwrap()[0].shape(), &[1, 3, 4]);
        assert_eq!(hsplit(&m, &Sections::Count(3)).unwrap()[2].shape(), &[2, 1, 4]);
        assert!(dsplit(&a, &Sections::Count(1)).is_err());
        let u = unstack(&m, 1).unwrap();
        assert_eq!((u.len(), u[2].shape()), (3, &[2usize, 4][..]));
        let b = broadcast_arrays(&[&a.reshape(&[7, 1]).unwrap(), &arange(0, 3, 1, None).unwrap()]).unwrap();
        assert_eq!((b[0].shape(), b[1].shape()), (&[7usize, 3][..], &[7usize, 3][..]));
        let (one, two) = (ones(&[2, 2], DType::F64).unwrap(), zeros(&[2, 3], DType::F64).unwrap());
        let row = Array::from_vec(vec![5.0f64; 5]).unwrap();
        let blk = block(&[vec![&one, &two], vec![&row]]).unwrap();
        assert_eq!(blk.shape(), &[3, 5]);
        assert_eq!(f64s(&blk)[10..], [5.0; 5]);
        let t = trim_zeros(&Array::from_vec(vec![0i32, 0, 1, 2, 0, 3, 0]).unwrap(), "fb").unwrap();
        assert_eq!(i64s(&t), vec![1, 2, 0, 3]);
    });
}

#[test]
fn index_helpers_match_numpy() {
    with_device(&cpu(), || {
        let (r, c) = tril_indices(3, 0, Some(4)).unwrap();
        assert_eq!((i64s(&r), i64s(&c)), (vec![0, 1, 1, 2, 2, 2], vec![0, 0, 1, 0, 1, 2]));
        let (r, c) = triu_indices(3, 1, None).unwrap();
        assert_eq!((i64s(&r), i64s(&c)), (vec![0, 0, 1], vec![1, 2, 2]));
        let rows = Array::from_vec(vec![1i64, 2]).unwrap();
        let cols = Array::from_vec(vec![3i64, 0]).unwrap();
        assert_eq!(i64s(&ravel_multi_index(&[&rows, &cols], &[3, 4]).unwrap()), vec![7, 8]);
        assert!(ravel_multi_index(&[&rows, &rows.add(3).unwrap()], &[3, 4])
            .unwrap_err()
            .to_string()
            .contains("invalid entry"));
        let un = unravel_index(&Array::from_vec(vec![7i64, 11]).unwrap(), &[3, 4]).unwrap();
        assert_eq!((i64s(&un[0]), i64s(&un[1])), (vec![1, 2], vec![3, 3]));
        assert!(unravel_index(&Array::from_vec(vec![12i64]).unwrap(), &[3, 4]).is_err());
        let m = zeros(&[3, 4], DType::F32).unwrap();
        fill_diagonal(&m, 2.0).unwrap();
        assert_eq!(f64s(&m).iter().filter(|&&x| x == 2.0).count(), 3);
        assert_eq!(f64s(&m)[5], 2.0);
        let d = diagflat(&Array::from_vec(vec![1.0f64, 2.0]).unwrap().reshape(&[1, 2]).unwrap(), 1).unwrap();
        assert_eq!(f64s(&d), vec![0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0]);
        let w = argwhere(&Array::from_vec(vec![0i32, 1, 2, 0]).unwrap().reshape(&[2, 2]).unwrap()).unwrap();
        assert_eq!((w.shape(), i64s(&w)), (&[2usize, 2][..], vec![0, 1, 1, 0]));
        let arr = arange(0, 6, 1, Some(DType::F64)).unwrap();
        place(&arr, &arr.gt(2.0).unwrap(), &Array::from_vec(vec![-1.0f64, -2.0]).unwrap()).unwrap();
        assert_eq!(f64s(&arr), vec![0.0, 1.0, 2.0, -1.0, -2.0, -1.0]);
        assert_eq!(f64s(&extract(&arr.lt(0.0).unwrap(), &arr).unwrap()), vec![-1.0, -2.0, -1.0]);
        let ix = ix_(&[&rows, &cols]).unwrap();
        assert_eq!((ix[0].shape(), ix[1].shape()), (&[2usize, 1][..], &[1usize, 2][..]));
    });
}

#[test]
fn elementwise_pairs_polynomials_and_predicates() {
    with_device(&cpu(), || {
        let x = Array::from_vec(vec![8.0f64, -0.3, 0.0, 1e-310, 5.0, f64::INFINITY]).unwrap();
        let (m, e) = frexp(&x).unwrap();
        close(&f64s(&m)[..5], &[0.5, -0.6, 0.0, 0.5752618, 0.625], 1e-6);
        assert_eq!((e.dtype(), i64s(&e)), (DType::I32, vec![4, -1, 0, -1029, 3, 0]));
        let (f, i) = modf(&Array::from_vec(vec![-3.0f64, 2.5, -0.5, f64::INFINITY]).unwrap()).unwrap();
        let (f, i) = (f64s(&f), f64s(&i));
        assert_eq!((f[1], f[2], f[3], i[0], i[1], i[3]), (0.5, -0.5, 0.0, -3.0, 2.0, f64::INFINITY));
        assert!(f[0] == 0.0 && f[0].is_sign_negative() && i[2].is_sign_negative());
        let (q, r) =
            divmod(&Array::from_vec(vec![7i64, -7]).unwrap(), &Array::from_vec(vec![2i64, 2]).unwrap()).unwrap();
        assert_eq!((i64s(&q), i64s(&r)), (vec![3, -4], vec![1, 1]));
        let d = ediff1d(
            &Array::from_vec(vec![1i64, 4, 9]).unwrap(),
            Some(&Array::from_vec(vec![100i64]).unwrap()),
            Some(&Array::from_vec(vec![-1i64]).unwrap()),
        )
        .unwrap();
        assert_eq!(i64s(&d), vec![-1, 3, 5, 100]);
        let xs = Array::from_vec(vec![0.0f64, 1.0, 2.0, 3.0, 4.0]).unwrap();
        let c = polyfit(&xs, &Array::from_vec(vec![1.0f64, 3.0, 7.0, 13.0, 21.0]).unwrap(), 2).unwrap();
        close(&f64s(&c), &[1.0, 1.0, 1.0], 1e-10);
        let mut rt = f64s(&roots(&Array::from_vec(vec![1.0f64, -6.0, 11.0, -6.0, 0.0]).unwrap()).unwrap());
        rt.sort_by(|a, b| a.partial_cmp(b).unwrap());
        close(&rt, &[0.0, 1.0, 2.0, 3.0], 1e-10);
        let a = Array::from_vec(vec![1.0f64, 2.0]).unwrap();
        assert!(array_equiv(&a, &a.reshape(&[1, 2]).unwrap().broadcast_to(&[3, 2]).unwrap()).unwrap());
        assert!(!array_equiv(&a, &ones(&[3], DType::F64).unwrap()).unwrap());
        let inf = Array::from_vec(vec![f64::NEG_INFINITY, f64::INFINITY, 1.0]).unwrap();
        assert_eq!(isneginf(&inf).unwrap().to_vec::<bool>().unwrap(), vec![true, false, false]);
        assert_eq!(isposinf(&inf).unwrap().to_vec::<bool>().unwrap(), vec![false, true, false]);
        let z =
            Array::from_vec(vec![num_complex::Complex::new(1.0f64, 0.0), num_complex::Complex::new(1.0, 2.0)]).unwrap();
        assert_eq!(iscomplex(&z).unwrap().to_vec::<bool>().unwrap(), vec![false, true]);
        assert_eq!(isreal(&inf).unwrap().to_vec::<bool>().unwrap(), vec![true; 3]);
    });
}

#[test]
fn text_files_round_trip() {
    with_device(&cpu(), || {
        let dir = std::env::temp_dir().join(format!("xp-txt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let m = arange(0, 6, 1, Some(DType::F64)).unwrap().div(3.0).unwrap().reshape(&[2, 3]).unwrap();
        let p = dir.join("m.txt");
        savetxt(&p, &m, " ").unwrap();
        let back = loadtxt(&p, None).unwrap();
        assert_eq!((back.shape(), f64s(&back)), (&[2usize, 3][..], f64s(&m)));
        std::fs::write(dir.join("c.csv"), "# header\n1, 2\n3, 4\n").unwrap();
        assert_eq!(f64s(&loadtxt(dir.join("c.csv"), Some(",")).unwrap()), vec![1.0, 2.0, 3.0, 4.0]);
        std::fs::write(dir.join("bad.txt"), "1 2\n3\n").unwrap();
        assert!(loadtxt(dir.join("bad.txt"), None).unwrap_err().to_string().contains("columns"));
        assert!(loadtxt(dir.join("missing.txt"), None).unwrap_err().to_string().contains("loadtxt"));
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn bad_input_to_the_helpers_is_a_clear_error() {
    with_device(&cpu(), || {
        let v = arange(0, 6, 1, Some(DType::F64)).unwrap();
        let m = v.reshape(&[2, 3]).unwrap();
        let text = |r: Result<()>| r.expect_err("an error").to_string();
        // place: a mask of another size, nothing to insert from.
        let e = text(place(&v, &Array::from_vec(vec![true, false]).unwrap(), &v));
        assert!(e.contains("place") && e.contains("same size"), "{e}");
        let e = text(place(&v, &v.gt(2.0).unwrap(), &Array::from_vec(Vec::<f64>::new()).unwrap()));
        assert!(e.contains("empty"), "{e}");
        let e = extract(&Array::from_vec(vec![true]).unwrap(), &v).unwrap_err().to_string();
        assert!(e.contains("extract") && e.contains("same size"), "{e}");
        // polyfit: y of another length, or 3-d; roots of a matrix.
        let e = polyfit(&v, &arange(0, 5, 1, Some(DType::F64)).unwrap(), 1).unwrap_err().to_string();
        assert!(e.contains("polyfit") && e.contains("[6]") && e.contains("[5]"), "{e}");
        assert!(polyfit(&v, &v.reshape(&[6, 1, 1]).unwrap(), 1).is_err());
        assert!(roots(&m).unwrap_err().to_string().contains("rank-1"));
        // fill_diagonal of a vector or of unequal dimensions beyond 2-d.
        assert!(text(fill_diagonal(&v, 1.0)).contains("at least 2-d"));
        let cube = zeros(&[2, 3, 2], DType::F64).unwrap();
        assert!(text(fill_diagonal(&cube, 1.0)).contains("equal length"));
        // ix_ of a matrix, trim_zeros of a matrix, block of empty lists.
        assert!(ix_(&[&m]).unwrap_err().to_string().contains("1 dimensional"));
        assert!(trim_zeros(&m, "fb").unwrap_err().to_string().contains("1-d"));
        assert!(block(&[]).unwrap_err().to_string().contains("empty"));
        // savetxt: 3-d and complex arrays.
        let p = std::env::temp_dir().join(format!("xp-bad-{}.txt", std::process::id()));
        assert!(text(savetxt(&p, &cube, " ")).contains("savetxt"));
        let z = m.astype(DType::C64).unwrap();
        assert!(text(savetxt(&p, &z, " ")).contains("savetxt"));
        assert!(!p.exists(), "nothing is written for bad input");
    });
}
