//! SciPy's additions to `xp_array::linalg` (triangular and LU/Cholesky solves, `expm`, special matrices) on the CPU backend.
