//! The portable kernel dialect of xp.

/// The prelude every kernel source is compiled with.
pub const PRELUDE: &str = include_str!("../include/xp_prelude.h");
