//! SciPy's spatial algorithms (`scipy.spatial`; CuPy's `cupyx.scipy.spatial`): distances
//! between point sets and nearest-neighbour queries, under SciPy's names and arguments.
