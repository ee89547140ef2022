//! Tests of `xp::sparse_linalg` (see the module).
