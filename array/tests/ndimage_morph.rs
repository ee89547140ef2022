//! Tests of `xp::ndimage_morph` (see the module).
