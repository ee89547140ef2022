//! Tests of `xp::signal_design` (see the module).
