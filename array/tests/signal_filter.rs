//! Tests of `xp::signal_filter` (see the module).
