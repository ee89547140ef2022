//! Tests of `xp::ndimage_interp` (see the module).
