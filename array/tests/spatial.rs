//! `xp_array::spatial`: distances and nearest neighbours on the CPU backend, against SciPy's
//! answers (pasted below, computed with SciPy 1.17.1) and against brute force computed here.

use std::sync::Arc;

use xp_array::spatial::distance::{self, cdist, pdist, squareform, Force, Metric, MetricArgs};
use xp_array::spatial::{distance_matrix, minkowski_distance, KDTree, KDTreeSearch};
use xp_array::*;
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

const A: [f64; 12] = [0.5, -1.25, 2.0, 1.5, 0.25, -0.75, -2.0, 1.0, 0.5, 0.125, 0.375, -1.5];
const B: [f64; 9] = [1.0, 2.0, -0.5, -0.25, 0.75, 1.25, 2.5, -1.5, 0.0];
const V: [f64; 3] = [0.5, 1.5, 2.0];
const VI: [f64; 9] = [2.0, 0.3, -0.1, 0.3, 1.0, 0.2, -0.1, 0.2, 1.5];
const BA: [u8; 24] = [1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1];
const BB: [u8; 18] = [1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0];

fn mat(dev: &Arc<dyn DynDevice>, v: &[f64], cols: usize) -> Array {
    Array::from_slice_on(dev, v, &[v.len() / cols, cols]).unwrap()
}

fn bools(dev: &Arc<dyn DynDevice>, v: &[u8], cols: usize) -> Array {
    let b: Vec<bool> = v.iter().map(|&x| x != 0).collect();
    Array::from_slice_on(dev, &b, &[v.len() / cols, cols]).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    assert_eq!(a.dtype(), DType::F64);
    a.to_vec::<f64>().unwrap()
}

/// Each value within `rel` of the reference relative to the reference's largest magnitude
/// (NaN for NaN, infinities equal).
fn close(what: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    let scale = want.iter().filter(|w| w.is_finite()).fold(0.0f64, |s, w| s.max(w.abs())).max(1e-300);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= rel * scale;
        assert!(ok, "{what}[{i}]: got {g:e}, want {w:e}");
    }
}

fn kind<T: std::fmt::Debug>(r: Result<T>) -> &'static str {
    r.expect_err("an error").kind()
}

/// A metric's name, its `p`, SciPy's cdist(A, B) and pdist(A).
type Reference = (&'static str, Option<f64>, &'static [f64], &'static [f64]);

// SciPy 1.17.1's answers (scipy.spatial.distance.cdist / pdist) on A, B (round(A), round(B)
// for hamming and jaccard; |A| + 0.1, |B| + 0.1 for braycurtis and jensenshannon).
const FLOAT_REFS: &[Reference] = &[
    (
        "euclidean",
        None,
        &[
            4.130677910464576,
            2.2638462845343543,
            2.839454172900137,
            1.8371173070873836,
            2.704163456597992,
            2.1505813167606567,
            3.3166247903554,
            1.920286436967152,
            5.172040216394301,
            2.099106952968333,
            2.80066956280101,
            3.377314021526574,
        ],
        &[
            3.2882366094914763,
            3.6827299656640586,
            3.877015604817706,
            3.7914377220257753,
            1.571225636247067,
            2.9843340965783307,
        ],
    ),
    (
        "sqeuclidean",
        None,
        &[17.0625, 5.125, 8.0625, 3.375, 7.3125, 4.625, 11.0, 3.6875, 26.75, 4.40625, 7.84375, 11.40625],
        &[10.8125, 13.5625, 15.03125, 14.375, 2.46875, 8.90625],
    ),
    (
        "cityblock",
        None,
        &[6.25, 3.5, 4.25, 2.5, 4.25, 3.5, 5.0, 2.75, 7.5, 3.5, 3.5, 5.75],
        &[5.25, 6.25, 5.5, 5.5, 2.25, 4.75],
    ),
    (
        "chebyshev",
        None,
        &[3.25, 2.0, 2.0, 1.75, 2.0, 1.75, 3.0, 1.75, 4.5, 1.625, 2.75, 2.375],
        &[2.75, 2.5, 3.5, 3.5, 1.375, 2.125],
    ),
    (
        "minkowski",
        Some(3.0),
        &[
            3.6859492665550206,
            2.0679759595742233,
            2.5206620940226303,
            1.7651741676630315,
            2.3801825884445975,
            1.8927935695477132,
            3.072316825685847,
            1.7963790376632978,
            4.745609979014665,
            1.8131685999458782,
            2.754640923861382,
            2.8587616384718118,
        ],
        &[
            2.930703314411288,
            3.1206606438519358,
            3.6144162157747597,
            3.563467983600801,
            1.4459956899144384,
            2.612945483886103,
        ],
    ),
    (
        "minkowski",
        Some(0.5),
        &[
            16.73645485979187,
            9.898979485566358,
            11.078427124746192,
            6.400811130105813,
            11.862486080160911,
            10.16908996611139,
            13.928203230275509,
            7.230188906794655,
            19.44427190999916,
            10.305186453725726,
            8.312019202317979,
            17.099504937918596,
        ],
        &[
            15.078133735456557,
            18.54063445063475,
            14.122233354162246,
            14.860162154978017,
            5.722538234443635,
            13.414059717440672,
        ],
    ),
    (
        "cosine",
        None,
        &[
            1.5430753866417046,
            0.5968632970952922,
            0.5554106287315133,
            0.38868502051660236,
            1.448600307651304,
            0.3172756544773656,
            1.0476190476190477,
            0.4467166648275118,
            1.9730255451346557,
            0.5428030335053355,
            1.7082864948681542,
            1.0552789992822782,
        ],
        &[
            1.2599133167256225,
            1.2262814111007103,
            1.9108034421367057,
            1.8043618151097336,
            0.46534548641302287,
            1.1758449871133325,
        ],
    ),
    (
        "correlation",
        None,
        &[
            1.9873316923407112,
            0.7149191498651466,
            0.5880130491996614,
            0.45658701671240687,
            1.9920645329164457,
            0.3323791260641853,
            0.9587957178284836,
            0.11750249670723023,
            1.9750002110024925,
            0.040491838943190306,
            1.669829777692804,
            0.9797462512854761,
        ],
        &[
            1.4033309739309354,
            1.1992174173488823,
            1.9026585546419805,
            1.8163616384274361,
            0.2421294699349702,
            1.24190576356059,
        ],
    ),
    (
        "hamming",
        None,
        &[
            1.0,
            0.6666666666666666,
            1.0,
            1.0,
            1.0,
            0.6666666666666666,
            0.6666666666666666,
            0.6666666666666666,
            0.6666666666666666,
            1.0,
            0.6666666666666666,
            1.0,
        ],
        &[1.0, 1.0, 0.6666666666666666, 1.0, 0.6666666666666666, 1.0],
    ),
    (
        "jaccard",
        None,
        &[
            0.6666666666666666,
            0.0,
            0.6666666666666666,
            0.6666666666666666,
            0.6666666666666666,
            0.6666666666666666,
            0.0,
            0.6666666666666666,
            0.0,
            1.0,
            0.5,
            1.0,
        ],
        &[0.6666666666666666, 0.6666666666666666, 0.5, 0.6666666666666666, 0.5, 1.0],
    ),
    (
        "canberra",
        None,
        &[
            2.333333333333333,
            2.230769230769231,
            1.7575757575757576,
            1.1777777777777778,
            2.5,
            2.25,
            2.333333333333333,
            1.3492063492063493,
            3.0,
            1.9619883040935673,
            2.333333333333333,
            2.9047619047619047,
        ],
        &[2.5, 2.6, 2.6, 2.6, 1.3794871794871795, 2.4545454545454546],
    ),
    (
        "braycurtis",
        None,
        &[
            0.3503184713375796,
            0.22727272727272727,
            0.5089820359281436,
            0.3787878787878788,
            0.42056074766355134,
            0.4225352112676056,
            0.2631578947368421,
            0.43307086614173224,
            0.1851851851851852,
            0.5737704918032787,
            0.15463917525773196,
            0.7575757575757576,
        ],
        &[
            0.4744525547445255,
            0.41401273885350315,
            0.2755905511811023,
            0.22727272727272727,
            0.4411764705882352,
            0.5737704918032787,
        ],
    ),
    (
        "jensenshannon",
        None,
        &[
            0.2756436124568981,
            0.011501208739670126,
            0.4631926650634545,
            0.3287478488525237,
            0.33393859385678465,
            0.32200042962249914,
            0.20448781209987477,
            0.3474927891089791,
            0.1767375421459385,
            0.3964550084042994,
            0.12180017543159416,
            0.5581449641961435,
        ],
        &[
            0.3243952554243833,
            0.3369854287431873,
            0.12881229564296987,
            0.16896462053426148,
            0.3705614783131834,
            0.42739104646681286,
        ],
    ),
];
// SciPy's seuclidean with V and mahalanobis with VI on A, B; and with the defaults (pdist of
// C = [A; B]).
const SEUCLIDEAN_V: [f64; 12] = [
    3.265986323710904,
    2.0181468397187223,
    3.1688588903052572,
    1.6040313795766798,
    2.879525423861833,
    2.0791624916457745,
    4.377975178854566,
    2.539274830865432,
    6.692657668420421,
    1.9472202409246537,
    2.038688303787511,
    3.840572873934304,
];
const MAHALANOBIS_VI: [f64; 12] = [
    4.29097890929331,
    2.08716314647418,
    3.8421998906876254,
    1.825171224844398,
    3.598610843089316,
    2.044810504667853,
    4.743416490252569,
    2.5359909305831514,
    6.428452379850068,
    2.6457513110645903,
    3.507135583350036,
    3.6962819156552436,
];
const SEUCLIDEAN_DEFAULT_CDIST: [f64; 12] = [
    3.3623412729752102,
    1.8087467127859287,
    2.1808925527322622,
    1.4707057487132245,
    2.101792386457506,
    1.6956883994493277,
    2.4010690928356513,
    1.3904306179125265,
    3.7690526858998066,
    1.6690133361858632,
    2.314557592747699,
    2.5714710871290714,
];
const SEUCLIDEAN_DEFAULT_PDIST: [f64; 21] = [
    2.674945834104981,
    2.8144036433928,
    3.195044962222899,
    3.3623412729752102,
    1.8087467127859287,
    2.1808925527322622,
    2.7321385663019417,
    1.1517116940454806,
    1.4707057487132245,
    2.101792386457506,
    1.6956883994493277,
    2.2855707457706034,
    2.4010690928356513,
    1.3904306179125265,
    3.7690526858998066,
    1.6690133361858632,
    2.314557592747699,
    2.5714710871290714,
    1.9727148096203793,
    3.0441108238793944,
    2.8449815107160883,
];
const MAHALANOBIS_DEFAULT_PDIST: [f64; 21] = [
    2.382923387022542,
    2.4834869733775875,
    3.0977032214189575,
    3.1977238156493635,
    1.6357790291443572,
    1.9606730407829347,
    2.530911241361907,
    1.6689631668939506,
    1.785813232063029,
    1.9690787364657538,
    1.4283715737498484,
    2.0775819487278153,
    3.052193380397281,
    1.9083338097677394,
    3.217572671822413,
    3.0179070641716943,
    2.8524152298006547,
    2.396044488311368,
    1.88984417622462,
    2.961638429908799,
    2.5613546707523027,
];
// SciPy's boolean metrics on BA, BB.
const BOOL_REFS: &[(&str, &[f64], &[f64])] = &[
    (
        "hamming",
        &[0.6666666666666666, 0.5, 0.3333333333333333, 0.5, 0.0, 0.5, 0.5, 1.0, 0.5, 0.6666666666666666, 0.5, 1.0],
        &[0.5, 0.5, 0.6666666666666666, 1.0, 0.5, 0.5],
    ),
    ("jaccard", &[0.8, 1.0, 0.5, 1.0, 0.0, 1.0, 0.5, 1.0, 0.5, 0.8, 1.0, 1.0], &[1.0, 0.5, 0.8, 1.0, 1.0, 0.5]),
    (
        "dice",
        &[
            0.6666666666666666,
            1.0,
            0.3333333333333333,
            1.0,
            f64::NAN,
            1.0,
            0.3333333333333333,
            1.0,
            0.3333333333333333,
            0.6666666666666666,
            1.0,
            1.0,
        ],
        &[1.0, 0.3333333333333333, 0.6666666666666666, 1.0, 1.0, 0.3333333333333333],
    ),
    (
        "rogerstanimoto",
        &[
            0.8,
            0.6666666666666666,
            0.5,
            0.6666666666666666,
            0.0,
            0.6666666666666666,
            0.6666666666666666,
            1.0,
            0.6666666666666666,
            0.8,
            0.6666666666666666,
            1.0,
        ],
        &[0.6666666666666666, 0.6666666666666666, 0.8, 1.0, 0.6666666666666666, 0.6666666666666666],
    ),
    (
        "russellrao",
        &[0.8333333333333334, 1.0, 0.6666666666666666, 1.0, 1.0, 1.0, 0.5, 1.0, 0.5, 0.8333333333333334, 1.0, 1.0],
        &[1.0, 0.5, 0.8333333333333334, 1.0, 1.0, 0.5],
    ),
    (
        "sokalsneath",
        &[
            0.8888888888888888,
            1.0,
            0.6666666666666666,
            1.0,
            f64::NAN,
            1.0,
            0.6666666666666666,
            1.0,
            0.6666666666666666,
            0.8888888888888888,
            1.0,
            1.0,
        ],
        &[1.0, 0.6666666666666666, 0.8888888888888888, 1.0, 1.0, 0.6666666666666666],
    ),
    ("yule", &[1.6, 0.0, 0.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.6, 0.0, 2.0], &[0.0, 0.0, 1.6, 0.0, 0.0, 0.0]),
];
// SciPy's scipy.spatial.distance_matrix(A, B, p) and minkowski_distance(A[:3], B, p).
const MINKOWSKI_REFS: &[(f64, &[f64], &[f64])] = &[
    (1.0, &[6.25, 3.5, 4.25, 2.5, 4.25, 3.5, 5.0, 2.75, 7.5, 3.5, 3.5, 5.75], &[6.25, 4.25, 7.5]),
    (
        2.0,
        &[
            4.130677910464576,
            2.2638462845343543,
            2.839454172900137,
            1.8371173070873836,
            2.704163456597992,
            2.1505813167606567,
            3.3166247903554,
            1.920286436967152,
            5.172040216394301,
            2.099106952968333,
            2.80066956280101,
            3.377314021526574,
        ],
        &[4.130677910464576, 2.704163456597992, 5.172040216394301],
    ),
    (
        3.5,
        &[
            3.578413537332985,
            2.0360851785082326,
            2.4382677845676164,
            1.7567518417221055,
            2.301413277515979,
            1.8403129211156215,
            3.0361105631041183,
            1.7758368773232422,
            4.657863566339026,
            1.7504836921249665,
            2.7514704470731663,
            2.734336522692531,
        ],
        &[3.578413537332985, 2.301413277515979, 4.657863566339026],
    ),
    (f64::INFINITY, &[3.25, 2.0, 2.0, 1.75, 2.0, 1.75, 3.0, 1.75, 4.5, 1.625, 2.75, 2.375], &[3.25, 2.0, 4.5]),
];
// SciPy's KDTree(D, leafsize=2).query(X, k=3, distance_upper_bound=0.5).
const KD_D: [f64; 9] = [
    0.11180339887498945,
    0.11180339887498948,
    0.47169905660283024,
    0.223606797749979,
    f64::INFINITY,
    f64::INFINITY,
    0.4242640687119285,
    f64::INFINITY,
    f64::INFINITY,
];
const KD_I: [i64; 9] = [2, 5, 3, 0, 8, 8, 1, 8, 8];
// SciPy's KDTree(D, leafsize=2).query(X, k=2, p=1).
const KD_D_P1: [f64; 6] = [0.14999999999999997, 0.15000000000000002, 0.30000000000000004, 0.75, 0.6, 1.0];
const KD_I_P1: [i64; 6] = [2, 5, 0, 6, 1, 7];

#[test]
fn float_metrics_match_scipy() {
    let d = cpu();
    let (a, b) = (mat(&d, &A, 3), mat(&d, &B, 3));
    let round = |x: &Array| x.rint().unwrap();
    let prob = |x: &Array| x.abs().unwrap().add(0.1).unwrap();
    for &(name, p, want_c, want_p) in FLOAT_REFS {
        let metric: Metric = name.parse().unwrap();
        let args = MetricArgs { p, ..Default::default() };
        let (x, y) = match name {
            "hamming" | "jaccard" => (round(&a), round(&b)),
            "braycurtis" | "jensenshannon" => (prob(&a), prob(&b)),
            _ => (a.clone(), b.clone()),
        };
        let c = cdist(&x, &y, metric, &args).unwrap();
        assert_eq!(c.shape(), &[4, 3]);
        close(&format!("cdist {name} {p:?}"), &f64s(&c), want_c, 1e-14);
        let q = pdist(&x, metric, &args).unwrap();
        assert_eq!(q.shape(), &[6]);
        close(&format!("pdist {name} {p:?}"), &f64s(&q), want_p, 1e-14);
        // float32 points: SciPy works in float64 (A and B are exact in float32, |A| + 0.1 is not).
        if matches!(name, "braycurtis" | "jensenshannon") {
            continue;
        }
        let c32 = cdist(&x.astype(DType::F32).unwrap(), &y.astype(DType::F32).unwrap(), metric, &args).unwrap();
        close(&format!("cdist {name} float32"), &f64s(&c32), want_c, 1e-14);
    }
}

#[test]
fn variance_and_inverse_covariance_arguments() {
    let d = cpu();
    let (a, b) = (mat(&d, &A, 3), mat(&d, &B, 3));
    let v = Array::from_slice_on(&d, &V, &[3]).unwrap();
    let vi = mat(&d, &VI, 3);
    let c = cdist(&a, &b, Metric::SEuclidean, &MetricArgs::v(&v)).unwrap();
    close("seuclidean V", &f64s(&c), &SEUCLIDEAN_V, 1e-14);
    let c = cdist(&a, &b, Metric::Mahalanobis, &MetricArgs::vi(&vi)).unwrap();
    close("mahalanobis VI", &f64s(&c), &MAHALANOBIS_VI, 1e-14);
    let c = cdist(&a, &b, Metric::SEuclidean, &MetricArgs::default()).unwrap();
    close("seuclidean default", &f64s(&c), &SEUCLIDEAN_DEFAULT_CDIST, 1e-14);
    let all = routines::concatenate(&[&a, &b], 0).unwrap();
    let q = pdist(&all, Metric::SEuclidean, &MetricArgs::default()).unwrap();
    close("pdist seuclidean default", &f64s(&q), &SEUCLIDEAN_DEFAULT_PDIST, 1e-14);
    let q = pdist(&all, Metric::Mahalanobis, &MetricArgs::default()).unwrap();
    close("pdist mahalanobis default", &f64s(&q), &MAHALANOBIS_DEFAULT_PDIST, 1e-13);
    // The single-pair functions.
    let (u, w) = (a.at(s![0]).unwrap(), b.at(s![0]).unwrap());
    close("mahalanobis(u, v)", &[distance::mahalanobis(&u, &w, &vi).unwrap()], &MAHALANOBIS_VI[..1], 1e-14);
    close("seuclidean(u, v)", &[distance::seuclidean(&u, &w, &v).unwrap()], &SEUCLIDEAN_V[..1], 1e-14);
    close("euclidean(u, v)", &[distance::euclidean(&u, &w).unwrap()], &FLOAT_REFS[0].2[..1], 1e-15);
    close("minkowski(u, v, 3)", &[distance::minkowski(&u, &w, 3.0).unwrap()], &FLOAT_REFS[4].2[..1], 1e-15);
}

#[test]
fn boolean_metrics_match_scipy() {
    let d = cpu();
    let (a, b) = (bools(&d, &BA, 6), bools(&d, &BB, 6));
    for &(name, want_c, want_p) in BOOL_REFS {
        let metric: Metric = name.parse().unwrap();
        let c = cdist(&a, &b, metric, &MetricArgs::default()).unwrap();
        close(&format!("cdist {name}"), &f64s(&c), want_c, 1e-15);
        close(&format!("pdist {name}"), &f64s(&pdist(&a, metric, &MetricArgs::default()).unwrap()), want_p, 1e-15);
        if metric.is_boolean() {
            // Nonzero numbers are true.
            let x = a.astype(DType::F64).unwrap().mul(-2.5).unwrap();
            let y = b.astype(DType::I32).unwrap();
            close(
                &format!("cdist {name} of numbers"),
                &f64s(&cdist(&x, &y, metric, &MetricArgs::default()).unwrap()),
                want_c,
                1e-15,
            );
        }
    }
    assert!(distance::dice(&a.at(s![1]).unwrap(), &b.at(s![1]).unwrap()).unwrap().is_nan());
    assert_eq!(distance::yule(&a.at(s![0]).unwrap(), &b.at(s![0]).unwrap()).unwrap(), 1.6);
}

#[test]
fn minkowski_helpers_match_scipy() {
    let d = cpu();
    let (a, b) = (mat(&d, &A, 3), mat(&d, &B, 3));
    for &(p, want_m, want_k) in MINKOWSKI_REFS {
        close(&format!("distance_matrix p={p}"), &f64s(&distance_matrix(&a, &b, p).unwrap()), want_m, 1e-14);
        let k = minkowski_distance(&a.at(s![..3]).unwrap(), &b, p).unwrap();
        assert_eq!(k.shape(), &[3]);
        close(&format!("minkowski_distance p={p}"), &f64s(&k), want_k, 1e-14);
    }
    // Broadcasting: every row of A against the first of B.
    let k = minkowski_distance(&a, &b.at(s![0]).unwrap(), 2.0).unwrap();
    let want: Vec<f64> = (0..4).map(|i| MINKOWSKI_REFS[1].1[3 * i]).collect();
    close("minkowski_distance broadcast", &f64s(&k), &want, 1e-14);
    assert_eq!(kind(distance_matrix(&a, &b.at(s![.., ..2]).unwrap(), 2.0)), "Value");
    assert_eq!(kind(minkowski_distance(&a, &b, 2.0)), "ShapeMismatch");
}

/// A deterministic pseudo-random sequence in [0, 1).
fn uniform(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

fn brute(x: &[f64], y: &[f64], d: usize, f: impl Fn(&[f64], &[f64]) -> f64) -> Vec<f64> {
    let mut out = Vec::new();
    for u in x.chunks(d) {
        for v in y.chunks(d) {
            out.push(f(u, v));
        }
    }
    out
}

fn condensed(full: &[f64], m: usize) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..m {
        for j in i + 1..m {
            out.push(full[i * m + j]);
        }
    }
    out
}

#[test]
fn large_inputs_in_blocks_match_brute_force() {
    let d = cpu();
    // pdist of 600 points: three blocks of rows, against the condensed brute force.
    let (m, dim) = (600, 3);
    let x = uniform(1, m * dim);
    let xa = mat(&d, &x, dim);
    let eu = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
    let want = condensed(&brute(&x, &x, dim, eu), m);
    close("pdist 600 euclidean", &f64s(&pdist(&xa, Metric::Euclidean, &MetricArgs::default()).unwrap()), &want, 1e-14);
    // cdist whose stored map (minkowski p = 3 on the CPU) takes several blocks.
    let (ma, mb, dim) = (300, 250, 64);
    let (x, y) = (uniform(2, ma * dim), uniform(3, mb * dim));
    let mk = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(a, b)| (a - b).abs().powi(3)).sum::<f64>().cbrt();
    let got = cdist(&mat(&d, &x, dim), &mat(&d, &y, dim), Metric::Minkowski, &MetricArgs::p(3.0)).unwrap();
    assert_eq!(got.shape(), &[ma, mb]);
    close("cdist minkowski 3 in blocks", &f64s(&got), &brute(&x, &y, dim, mk), 1e-13);
    // pdist with a stored map in blocks too.
    let xa = mat(&d, &x, dim);
    let got = pdist(&xa, Metric::Minkowski, &MetricArgs::p(3.0)).unwrap();
    close("pdist minkowski 3 in blocks", &f64s(&got), &condensed(&brute(&x, &x, dim, mk), ma), 1e-13);
}

#[test]
fn unfused_evaluation_gives_the_same_distances() {
    let d = cpu();
    let x = mat(&d, &uniform(4, 40 * 5), 5);
    let y = mat(&d, &uniform(5, 30 * 5), 5);
    for metric in Metric::ALL {
        if matches!(metric, Metric::Mahalanobis) {
            continue; // default VI needs more points than dimensions: covered above
        }
        let args = MetricArgs::default();
        let lazy = f64s(&cdist(&x, &y, metric, &args).unwrap());
        let eager = f64s(&lazy::disabled(|| cdist(&x, &y, metric, &args)).unwrap());
        close(&format!("{metric} unfused"), &eager, &lazy, 1e-15);
        let lazy = f64s(&pdist(&x, metric, &args).unwrap());
        let eager = f64s(&lazy::disabled(|| pdist(&x, metric, &args)).unwrap());
        close(&format!("pdist {metric} unfused"), &eager, &lazy, 1e-15);
    }
}

#[test]
fn squareform_both_ways() {
    let d = cpu();
    let v = Array::from_slice_on(&d, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[6]).unwrap();
    let m = squareform(&v, Force::No, true).unwrap();
    assert_eq!(m.shape(), &[4, 4]);
    assert_eq!(f64s(&m), [0.0, 1.0, 2.0, 3.0, 1.0, 0.0, 4.0, 5.0, 2.0, 4.0, 0.0, 6.0, 3.0, 5.0, 6.0, 0.0]);
    assert_eq!(f64s(&squareform(&m, Force::No, true).unwrap()), f64s(&v));
    assert_eq!(f64s(&squareform(&m, Force::ToVector, false).unwrap()), f64s(&v));
    // Dtypes are kept; the empty vector is the 1×1 zero matrix and back.
    let vi = v.astype(DType::I32).unwrap();
    assert_eq!(squareform(&vi, Force::No, true).unwrap().dtype(), DType::I32);
    let e = Array::from_slice_on::<f64>(&d, &[], &[0]).unwrap();
    let one = squareform(&e, Force::No, true).unwrap();
    assert_eq!((one.shape(), f64s(&one)), (&[1usize, 1][..], vec![0.0]));
    assert_eq!(squareform(&one, Force::No, true).unwrap().shape(), &[0]);
    // pdist and squareform agree with cdist.
    let x = mat(&d, &A, 3);
    let full = cdist(&x, &x, Metric::Cityblock, &MetricArgs::default()).unwrap();
    let sq = squareform(&pdist(&x, Metric::Cityblock, &MetricArgs::default()).unwrap(), Force::No, true).unwrap();
    assert_eq!(f64s(&sq), f64s(&full));
    // Errors.
    let bad = Array::from_slice_on(&d, &[0.0f64; 7], &[7]).unwrap();
    assert_eq!(kind(squareform(&bad, Force::No, true)), "Value");
    assert_eq!(kind(squareform(&v, Force::ToVector, true)), "Value");
    assert_eq!(kind(squareform(&m, Force::ToMatrix, true)), "Value");
    assert_eq!(kind(squareform(&mat(&d, &A, 3), Force::No, true)), "Value");
    let asym = mat(&d, &[0.0, 1.0, 2.0, 0.0], 2);
    assert_eq!(kind(squareform(&asym, Force::No, true)), "Value");
    assert_eq!(f64s(&squareform(&asym, Force::No, false).unwrap()), [1.0]);
    let diag = mat(&d, &[1.0, 1.0, 1.0, 0.0], 2);
    assert_eq!(kind(squareform(&diag, Force::No, true)), "Value");
    assert_eq!(kind(squareform(&m.reshape(&[2, 2, 4]).unwrap(), Force::No, true)), "Value");
    assert_eq!("tomatrix".parse::<Force>().unwrap(), Force::ToMatrix);
    assert!("sideways".parse::<Force>().is_err());
}

#[test]
fn errors_are_scipys() {
    let d = cpu();
    let (a, b) = (mat(&d, &A, 3), mat(&d, &B, 3));
    let none = MetricArgs::default();
    assert_eq!(kind("cosin".parse::<Metric>()), "Value");
    assert_eq!("euclid".parse::<Metric>().unwrap(), Metric::Euclidean);
    assert_eq!("CB".parse::<Metric>().unwrap(), Metric::Cityblock);
    assert_eq!(kind(cdist(&a, &b.at(s![.., ..2]).unwrap(), Metric::Euclidean, &none)), "Value");
    assert_eq!(kind(cdist(&a.ravel().unwrap(), &b, Metric::Euclidean, &none)), "Value");
    assert_eq!(kind(pdist(&a.ravel().unwrap(), Metric::Euclidean, &none)), "Value");
    let v2 = Array::from_slice_on(&d, &[1.0f64, 2.0], &[2]).unwrap();
    assert_eq!(kind(cdist(&a, &b, Metric::SEuclidean, &MetricArgs::v(&v2))), "Value");
    assert_eq!(kind(cdist(&a, &b, Metric::SEuclidean, &MetricArgs::v(&mat(&d, &V, 1)))), "Value");
    assert_eq!(kind(pdist(&a, Metric::Mahalanobis, &MetricArgs::vi(&mat(&d, &VI[..4], 2)))), "Value");
    assert_eq!(kind(cdist(&a, &b, Metric::Mahalanobis, &MetricArgs::vi(&v2))), "Value");
    // Too few points for the default inverse covariance.
    assert_eq!(kind(pdist(&a.at(s![..3]).unwrap(), Metric::Mahalanobis, &none)), "Value");
    // An argument the metric does not take is SciPy's TypeError.
    assert_eq!(kind(cdist(&a, &b, Metric::Euclidean, &MetricArgs::p(3.0))), "DType");
    let c = a.astype(DType::C128).unwrap();
    assert_eq!(kind(cdist(&c, &b, Metric::Euclidean, &none)), "Value");
    assert_eq!(kind(distance::euclidean(&a, &b)), "Value");
    // Integer points and strided views read as float64.
    let ai = a.mul(8.0).unwrap().astype(DType::I64).unwrap();
    let want = f64s(&cdist(&ai.astype(DType::F64).unwrap(), &b, Metric::Cityblock, &none).unwrap());
    assert_eq!(f64s(&cdist(&ai, &b, Metric::Cityblock, &none).unwrap()), want);
    let at = a.t().copy().unwrap().t();
    assert!(!at.is_contiguous());
    assert_eq!(f64s(&cdist(&at, &b.at(s![..;-1]).unwrap(), Metric::Euclidean, &none).unwrap()), {
        let rev = f64s(&cdist(&a, &b, Metric::Euclidean, &none).unwrap());
        (0..12).map(|k| rev[(k / 3) * 3 + 2 - k % 3]).collect::<Vec<_>>()
    });
    assert_eq!(Metric::default(), Metric::Euclidean);
    // Empty sets.
    let e = Array::from_slice_on::<f64>(&d, &[], &[0, 3]).unwrap();
    assert_eq!(cdist(&e, &b, Metric::Euclidean, &none).unwrap().shape(), &[0, 3]);
    assert_eq!(pdist(&a.at(s![..1]).unwrap(), Metric::Euclidean, &none).unwrap().shape(), &[0]);
}

#[test]
fn kdtree_matches_scipy() {
    let d = cpu();
    let data = [0.1, 0.2, 0.9, 0.8, 0.4, 0.45, 0.75, 0.1, 0.3, 0.95, 0.55, 0.6, 0.05, 0.7, 0.95, 0.35];
    let x = mat(&d, &[0.5, 0.5, 0.0, 0.0, 1.2, 1.1], 2);
    let tree = KDTree::new(&mat(&d, &data, 2), 2).unwrap();
    assert_eq!((tree.n(), tree.m(), tree.leafsize()), (8, 2, 2));
    assert_eq!(f64s(tree.data()), data);
    let (dist, idx) = tree.query(&x, 3, 0.0, 2.0, 0.5).unwrap();
    assert_eq!((dist.shape(), idx.dtype()), (&[3usize, 3][..], DType::I64));
    close("query d", &f64s(&dist), &KD_D, 1e-15);
    assert_eq!(idx.to_vec::<i64>().unwrap(), KD_I);
    let (dist, idx) = tree.query(&x, 2, 0.0, 1.0, f64::INFINITY).unwrap();
    close("query d p=1", &f64s(&dist), &KD_D_P1, 1e-15);
    assert_eq!(idx.to_vec::<i64>().unwrap(), KD_I_P1);
    // k = 1 drops the neighbour axis, a single point gives a 0-d answer.
    let (dist, idx) = tree.query(&x, 1, 0.0, 2.0, f64::INFINITY).unwrap();
    assert_eq!(dist.shape(), &[3]);
    assert_eq!(idx.to_vec::<i64>().unwrap(), [KD_I[0], KD_I[3], KD_I[6]]);
    let (dist, _) = tree.query(&x.at(s![0]).unwrap(), 1, 0.0, 2.0, f64::INFINITY).unwrap();
    assert_eq!(dist.shape(), &[] as &[usize]);
    // Ties: by index.
    let sq = mat(&d, &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 2.0, 0.0], 2);
    let t = KDTree::new(&sq, 1).unwrap();
    let (dist, idx) = t.query(&mat(&d, &[0.5, 0.5], 2), 6, 0.0, 2.0, f64::INFINITY).unwrap();
    assert_eq!(idx.to_vec::<i64>().unwrap(), [0, 1, 2, 3, 4, 4]);
    assert_eq!(f64s(&dist)[4..], [f64::INFINITY, f64::INFINITY]);
    // Errors.
    assert_eq!(kind(tree.query(&mat(&d, &[0.0, 0.0, 0.0], 3), 1, 0.0, 2.0, f64::INFINITY)), "Value");
    assert_eq!(kind(tree.query(&x, 0, 0.0, 2.0, f64::INFINITY)), "Value");
    assert_eq!(kind(tree.query(&x, 1, 0.0, 0.5, f64::INFINITY)), "Value");
    assert_eq!(kind(KDTree::new(&x.ravel().unwrap(), 10)), "Value");
    assert_eq!(kind(KDTree::new(&x, 0)), "Value");
    // An empty tree: every neighbour is missing.
    let empty = KDTree::new(&Array::from_slice_on::<f64>(&d, &[], &[0, 2]).unwrap(), 10).unwrap();
    let (dist, idx) = empty.query(&x, 2, 0.0, 2.0, f64::INFINITY).unwrap();
    assert!(f64s(&dist).iter().all(|v| v.is_infinite()));
    assert!(idx.to_vec::<i64>().unwrap().iter().all(|&i| i == 0));
}

// SciPy's KDTree(D, leafsize=4).query(X, k, p=p, distance_upper_bound=b) for D = uniform(90)
// (60 × 3) and X = 1.2 uniform(91) - 0.1 (5 × 3): (k, p, b, distances, indices).
#[allow(clippy::type_complexity)]
const KD_RANDOM: [(usize, f64, f64, &[f64], &[i64]); 6] = [
    (
        4,
        1.0,
        f64::INFINITY,
        &[
            0.5392659293645321,
            0.5643604696548876,
            0.5862168473713748,
            0.6108402478469772,
            0.17499827171786095,
            0.21888771704906915,
            0.31336198198931653,
            0.32584965751069783,
            0.382034117538686,
            0.4667186679622055,
            0.48827170012262744,
            0.544774198137523,
            0.403434201294682,
            0.6307007238333258,
            0.6603792768156576,
            0.6880055469766019,
            0.3672516315194516,
            0.36972797784961,
            0.43970151015827286,
            0.4736112433739452,
        ],
        &[54, 29, 49, 51, 16, 25, 22, 28, 11, 0, 4, 37, 22, 29, 55, 17, 20, 39, 26, 1],
    ),
    (
        4,
        2.0,
        f64::INFINITY,
        &[
            0.3321943385569757,
            0.35384160526777786,
            0.4182889585000842,
            0.44882846037589025,
            0.13645046760454335,
            0.1457034359160737,
            0.20497893872324963,
            0.22073280008637458,
            0.25995267430990354,
            0.3012977275198274,
            0.3441648152900651,
            0.37943863614823253,
            0.23593374742217144,
            0.3713961172169208,
            0.4242233328595839,
            0.43806201335771966,
            0.22358649926615884,
            0.257805424635453,
            0.3015842435716547,
            0.33301230474986987,
        ],
        &[29, 54, 49, 5, 25, 16, 22, 28, 11, 4, 0, 8, 22, 29, 55, 18, 20, 39, 26, 15],
    ),
    (
        4,
        f64::INFINITY,
        f64::INFINITY,
        &[
            0.23572274794786252,
            0.3084855880850347,
            0.349693390665067,
            0.37467625789456976,
            0.11497713105380214,
            0.14205809061765484,
            0.15650023663526347,
            0.16299063188089868,
            0.23797225483993156,
            0.24251111963132255,
            0.29799308590412055,
            0.3164512719454291,
            0.16474834242436753,
            0.2692593025676865,
            0.2930531860128578,
            0.2961306392653934,
            0.15646531756488247,
            0.210896638351883,
            0.2239906596448913,
            0.27079505187157227,
        ],
        &[29, 54, 5, 13, 25, 16, 22, 28, 11, 4, 8, 0, 22, 29, 16, 25, 20, 39, 15, 26],
    ),
    (
        4,
        3.0,
        f64::INFINITY,
        &[
            0.281720420416478,
            0.3227178585069478,
            0.39949073334782237,
            0.40201651930468363,
            0.12165538095189248,
            0.1426168264027643,
            0.18197911461034255,
            0.1964623530150166,
            0.2429874825806615,
            0.2650761971206377,
            0.32434180363072324,
            0.33998385818399607,
            0.19903263835710497,
            0.3154439957946509,
            0.3754047165366641,
            0.3761647719185888,
            0.19321731302530692,
            0.23278799100367278,
            0.27983397112988534,
            0.2808363380304731,
        ],
        &[29, 54, 49, 5, 25, 16, 22, 28, 11, 4, 0, 8, 22, 29, 18, 55, 20, 39, 26, 15],
    ),
    (
        3,
        2.0,
        0.15,
        &[
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            0.13645046760454335,
            0.1457034359160737,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
        ],
        &[60, 60, 60, 25, 16, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60],
    ),
    (
        1,
        2.0,
        f64::INFINITY,
        &[0.3321943385569757, 0.13645046760454335, 0.25995267430990354, 0.23593374742217144, 0.22358649926615884],
        &[29, 25, 11, 22, 20],
    ),
];

#[test]
fn kdtree_random_points_match_scipy_by_both_searches() {
    let d = cpu();
    let data = uniform(90, 60 * 3);
    let x: Vec<f64> = uniform(91, 5 * 3).iter().map(|v| 1.2 * v - 0.1).collect();
    let tree = KDTree::new(&mat(&d, &data, 3), 4).unwrap();
    let x = mat(&d, &x, 3);
    for (k, p, b, want_d, want_i) in KD_RANDOM {
        for search in [KDTreeSearch::Host, KDTreeSearch::Device, KDTreeSearch::Auto] {
            let (dist, idx) = tree.query_with(&x, k, 0.0, p, b, search).unwrap();
            close(&format!("k {k} p {p} bound {b} {search:?}"), &f64s(&dist), want_d, 1e-15);
            assert_eq!(idx.to_vec::<i64>().unwrap(), want_i, "k {k} p {p} bound {b} {search:?}");
        }
    }
}

#[test]
fn kdtree_matches_brute_force() {
    let d = cpu();
    for (dim, n, leafsize) in [(2, 500, 10), (3, 300, 1), (5, 200, 16)] {
        let data = uniform(10 + dim as u64, n * dim);
        let queries = uniform(20 + dim as u64, 40 * dim).iter().map(|v| 1.2 * v - 0.1).collect::<Vec<_>>();
        let tree = KDTree::new(&mat(&d, &data, dim), leafsize).unwrap();
        let q = mat(&d, &queries, dim);
        for (k, p, dub) in [
            (1, 2.0, f64::INFINITY),
            (4, 2.0, f64::INFINITY),
            (3, 1.0, f64::INFINITY),
            (5, f64::INFINITY, f64::INFINITY),
            (6, 3.0, 0.15),
            (7, 2.0, 0.1),
        ] {
            let (dist, idx) = tree.query(&q, k, 0.0, p, dub).unwrap();
            let (dist, idx) = (f64s(&dist), idx.to_vec::<i64>().unwrap());
            for (c, qp) in queries.chunks(dim).enumerate() {
                let mut all: Vec<(f64, i64)> = data
                    .chunks(dim)
                    .enumerate()
                    .map(|(i, x)| {
                        let diffs = x.iter().zip(qp).map(|(a, b)| (a - b).abs());
                        let dd = if p.is_infinite() {
                            diffs.fold(0.0, f64::max)
                        } else {
                            diffs.map(|t| t.powf(p)).sum::<f64>().powf(1.0 / p)
                        };
                        (dd, i as i64)
                    })
                    .filter(|&(dd, _)| dd < dub)
                    .collect();
                all.sort_by(|a, b| a.partial_cmp(b).unwrap());
                for j in 0..k {
                    let (wd, wi) = all.get(j).copied().unwrap_or((f64::INFINITY, n as i64));
                    let (gd, gi) = (dist[c * k + j], idx[c * k + j]);
                    assert_eq!(gi, wi, "dim {dim} k {k} p {p} query {c} neighbour {j}");
                    assert!(gd == wd || (gd - wd).abs() <= 1e-14 * wd, "distance {gd} vs {wd}");
                }
            }
        }
        // eps: the k-th answer within 1 + eps of the true k-th distance.
        let (exact, _) = tree.query(&q, 4, 0.0, 2.0, f64::INFINITY).unwrap();
        let (approx, _) = tree.query(&q, 4, 0.5, 2.0, f64::INFINITY).unwrap();
        for (j, (e, a)) in f64s(&exact).iter().zip(f64s(&approx)).enumerate() {
            assert!(a >= *e - 1e-15, "an approximate neighbour nearer than the exact one");
            if j % 4 == 3 {
                assert!(a <= 1.5 * e + 1e-15, "the 4th neighbour {a} beyond 1.5 × {e}");
            }
        }
    }
}

#[test]
fn kdtree_many_queries_split_over_threads() {
    let d = cpu();
    let (n, count, k) = (400, 3000, 3);
    let data = uniform(30, n * 2);
    let queries = uniform(31, count * 2);
    let tree = KDTree::new(&mat(&d, &data, 2), 10).unwrap();
    let q = Array::from_slice_on(&d, &queries, &[count / 100, 100, 2]).unwrap();
    let (dist, idx) = tree.query(&q, k, 0.0, 2.0, f64::INFINITY).unwrap();
    assert_eq!(dist.shape(), &[count / 100, 100, k]);
    let (dist, idx) = (f64s(&dist), idx.to_vec::<i64>().unwrap());
    for (c, qp) in queries.chunks(2).enumerate() {
        let mut all: Vec<(f64, i64)> =
            data.chunks(2).enumerate().map(|(i, x)| ((x[0] - qp[0]).hypot(x[1] - qp[1]), i as i64)).collect();
        all.sort_by(|a, b| a.partial_cmp(b).unwrap());
        for j in 0..k {
            assert_eq!(idx[c * k + j], all[j].1, "query {c} neighbour {j}");
            assert!((dist[c * k + j] - all[j].0).abs() <= 1e-15 * all[j].0.max(1.0));
        }
    }
}
