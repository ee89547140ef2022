//! NumPy parity of `put` with repeated indices (the last write wins), `fill`, the order of
//! complex numbers, `numpy.linalg`'s solvers and decompositions, sorts, scans, random bits,
//! `convolve2d`, sparse matrices, float → integer casts, out-of-range indices and overlapping
//! `out` on every GPU found: one test per check of
//! `array/tests/parity_checks/`, named after it, which runs the check on each GPU in turn or
//! prints a `SKIPPED` line (`gpus/mod.rs`). `array/tests/parity.rs` runs the same list on the
//! CPU backend.

parity_tests!(crate::gpus::on_every_gpu);
