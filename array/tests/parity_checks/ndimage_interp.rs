//! `ndimage`'s spline interpolation on any device against the CPU device's answers: the
//! chunked prefilter of long lines (both axes), zoom, shift, `map_coordinates` with float32 and
//! float64 coordinates, `affine_transform` and `rotate`, orders 0–5 and every mode.

use std::sync::Arc;

use xp_array::ndimage::{self as nd, Mode};
use xp_array::*;
use xp_backend_api::DynDevice;

fn on_both(d: &Arc<dyn DynDevice>, f: impl Fn() -> Array) -> ((Vec<f64>, DType), (Vec<f64>, DType)) {
    let cpu = device("cpu").unwrap();
    let run = |dev: &Arc<dyn DynDevice>| {
        with_device(dev, || {
            let a = f();
            (a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap(), a.dtype())
        })
    };
    (run(d), run(&cpu))
}

fn agree(what: &str, (here, there): ((Vec<f64>, DType), (Vec<f64>, DType)), rtol: f64) {
    assert_eq!(here.1, there.1, "{what}: dtype");
    assert_eq!(here.0.len(), there.0.len(), "{what}: size");
    let scale = there.0.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (h, t)) in here.0.iter().zip(&there.0).enumerate() {
        assert!((h - t).abs() <= rtol * scale, "{what}[{i}]: {h} here, {t} on the CPU");
    }
}

/// Zoom, shift, `map_coordinates`, `affine_transform`, `rotate` and `spline_filter` give the
/// CPU's values on any device (float32 within 1e-5, float64 within 1e-12 of the largest value).
pub fn spline_interpolation_matches_the_cpu(d: &Arc<dyn DynDevice>) {
    let (h, w) = (260usize, 40usize);
    let img: Vec<f64> =
        (0..h * w).map(|k| ((k / w) as f64 * 0.07).sin() + ((k % w) as f64 * 0.3).cos() + 0.001 * k as f64).collect();
    let pts = 997usize;
    let crd: Vec<f64> =
        (0..2 * pts)
            .map(|k| {
                if k < pts {
                    (k as f64 * 0.618).fract() * 280.0 - 10.0
                } else {
                    (k as f64 * 0.382).fract() * 50.0 - 5.0
                }
            })
            .collect();
    let modes =
        [Mode::Constant, Mode::Reflect, Mode::Nearest, Mode::Mirror, Mode::Wrap, Mode::GridConstant, Mode::GridWrap];
    for dt in [DType::F32, DType::F64] {
        let tol = if dt == DType::F64 { 1e-12 } else { 1e-5 };
        let im = || Array::from_slice(&img, &[h, w]).unwrap().astype(dt).unwrap();
        let c = || Array::from_slice(&crd, &[2, pts]).unwrap().astype(dt).unwrap();
        for order in 0..=5i64 {
            for mode in modes {
                let tag = format!("{dt} order {order} {mode:?}");
                agree(
                    &format!("zoom {tag}"),
                    on_both(d, || nd::zoom(&im(), &[1.2, 1.5], order, mode, 0.5, true, false).unwrap()),
                    tol,
                );
                agree(
                    &format!("shift {tag}"),
                    on_both(d, || nd::shift(&im(), &[3.3, -1.6], order, mode, 0.5, true).unwrap()),
                    tol,
                );
                agree(
                    &format!("map_coordinates {tag}"),
                    on_both(d, || nd::map_coordinates(&im(), &c(), order, mode, 0.5, true).unwrap()),
                    tol,
                );
            }
            let m = || Array::from_slice(&[0.9, 0.2, -0.15, 1.1], &[2, 2]).unwrap();
            agree(
                &format!("affine_transform {dt} order {order}"),
                on_both(d, || {
                    nd::affine_transform(&im(), &m(), &[2.0, -3.0], None, order, Mode::Mirror, 0.0, true).unwrap()
                }),
                tol,
            );
            agree(
                &format!("rotate {dt} order {order}"),
                on_both(d, || nd::rotate(&im(), 33.0, (1, 0), true, order, Mode::Constant, 0.0, true).unwrap()),
                tol,
            );
        }
        for order in 2..=5i64 {
            for mode in [Mode::Mirror, Mode::Reflect, Mode::GridWrap] {
                agree(
                    &format!("spline_filter {dt} order {order} {mode:?}"),
                    on_both(d, || nd::spline_filter(&im(), order, None, mode).unwrap()),
                    1e-12,
                );
            }
        }
    }
}
