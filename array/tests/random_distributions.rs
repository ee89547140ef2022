//! Tests of `xp::random_distributions` (see the module).
