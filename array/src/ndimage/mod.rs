//! SciPy's N-d image processing (`scipy.ndimage`; CuPy's `cupyx.scipy.ndimage`) under SciPy's
//! names and arguments.
//!
//! - [`filters`]: correlation and convolution (N-d and along one axis), Gaussian, uniform,
//!   rank (minimum, maximum, median, percentile) and derivative filters.
//! - [`fourier`]: the Fourier-domain filters (`fourier_gaussian`, `fourier_uniform`,
//!   `fourier_shift`).
//! - [`interpolation`]: spline interpolation (`map_coordinates`, `affine_transform`, `shift`,
//!   `zoom`, `rotate`, `spline_filter`).
//! - [`morphology`]: binary and grey morphology, structuring elements, distance transforms.
//! - [`measurements`]: labelling and the per-label statistics.
//!
//! Every function is re-exported here, so `xp::ndimage::gaussian_filter` reads as SciPy's.
//!
//! On the CPU device `label`, the binary erosion and dilation passes and the spline
//! interpolation of `map_coordinates`, `shift` and `zoom` run as native host code over the
//! arrays' memory (split over the host's threads), with the device kernels' answers;
//! [`with_device_kernels`] runs the device kernels there instead, to compare the two.

pub mod filters;
pub mod fourier;
mod host;
mod interp_kernels;
pub mod interpolation;
pub mod measurements;
pub mod morphology;

pub use filters::*;
pub use fourier::*;
pub use interp_kernels::interpolation_kernels;
pub use interpolation::{affine_transform, map_coordinates, rotate, shift, spline_filter, spline_filter1d, zoom};
pub use measurements::{
    center_of_mass, extrema, find_objects, find_objects_table, histogram, label, labeled_comprehension, maximum,
    maximum_position, mean, median, minimum, minimum_position, standard_deviation, sum, sum_labels, variance,
};
pub use morphology::{
    binary_closing, binary_dilation, binary_erosion, binary_fill_holes, binary_hit_or_miss, binary_opening,
    binary_propagation, black_tophat, distance_transform_edt, generate_binary_structure, grey_closing, grey_dilation,
    grey_erosion, grey_opening, iterate_structure, morphological_gradient, morphological_laplace, white_tophat,
};

use std::cell::Cell;
use std::str::FromStr;

use xp_backend_api::Error;

thread_local! {
    static DEVICE_KERNELS: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the device kernels in place of the CPU device's native forms (of `label`,
/// the binary erosion and dilation and the spline interpolation, and outside `ndimage` of the
/// IIR filters of `signal` and the distances of `spatial::distance`) on this thread: the answers
/// are the same, this is for comparing the two. Other devices always run their kernels.
///
/// ```
/// # xp_array::register_backend(std::sync::Arc::new(
/// #     xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// use xp_array::ndimage;
/// let cpu = xp_array::device("cpu").unwrap();
/// let img = xp_array::Array::from_slice_on(&cpu, &[true, true, false, true], &[2, 2]).unwrap();
/// let (a, n) = ndimage::label(&img, None).unwrap();
/// let (b, m) = ndimage::with_device_kernels(|| ndimage::label(&img, None)).unwrap();
/// assert_eq!((n, a.to_vec::<i32>().unwrap()), (m, b.to_vec::<i32>().unwrap()));
/// ```
pub fn with_device_kernels<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEVICE_KERNELS.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(DEVICE_KERNELS.with(|c| c.replace(true)));
    f()
}

/// Whether `dev` takes the native host forms: the CPU device, unless the kernels were asked for.
pub(crate) fn native(dev: &dyn xp_backend_api::DynDevice) -> bool {
    dev.properties().is_host && !DEVICE_KERNELS.with(|c| c.get())
}

/// SciPy's `mode`: how an image extends past its edges (the input `d c b a | a b c d | d c b a`
/// for `Reflect`). Filters default to `Reflect`, interpolation to `Constant`.
///
/// `"grid-mirror"` is SciPy's other name for `reflect` and parses as [`Mode::Reflect`].
/// `GridConstant` and `GridWrap` differ from `Constant` and `Wrap` only in interpolation
/// (where SciPy's `constant` and `wrap` treat the edge samples specially); filters treat each
/// pair alike, as SciPy does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `d c b a | a b c d | d c b a`: reflect about the edge of the last pixel.
    Reflect,
    /// `k k k k | a b c d | k k k k`: the constant `cval`.
    Constant,
    /// `a a a a | a b c d | d d d d`: repeat the edge pixel.
    Nearest,
    /// `d c b | a b c d | c b a`: reflect about the centre of the last pixel.
    Mirror,
    /// `a b c d | a b c d | a b c d`: periodic.
    Wrap,
    /// `cval` outside, with interpolation treating the grid's edge as SciPy's `grid-constant`.
    GridConstant,
    /// Periodic, with interpolation treating the grid's edge as SciPy's `grid-wrap`.
    GridWrap,
}

impl FromStr for Mode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Ok(match s {
            "reflect" | "grid-mirror" => Mode::Reflect,
            "constant" => Mode::Constant,
            "nearest" => Mode::Nearest,
            "mirror" => Mode::Mirror,
            "wrap" => Mode::Wrap,
            "grid-constant" => Mode::GridConstant,
            "grid-wrap" => Mode::GridWrap,
            _ => {
                return Err(Error::value(
                    "ndimage",
                    format!(
                        "boundary mode not supported: {s:?} (expected 'reflect', 'constant', 'nearest', 'mirror', \
                         'wrap', 'grid-constant', 'grid-mirror' or 'grid-wrap')"
                    ),
                ))
            }
        })
    }
}
