//! SciPy's statistics (`scipy.stats`; CuPy's `cupyx.scipy.stats`), under SciPy's names and
//! arguments.
