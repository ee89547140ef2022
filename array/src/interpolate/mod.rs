//! SciPy's interpolation (`scipy.interpolate`; CuPy's `cupyx.scipy.interpolate`), under SciPy's
//! names and arguments: the interpolators are built from data and evaluated on the device.
