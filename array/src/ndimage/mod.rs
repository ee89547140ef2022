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

pub mod filters;
pub mod fourier;
pub mod interpolation;
pub mod measurements;
pub mod morphology;
