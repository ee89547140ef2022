//! Tests of `xp::ndimage_filters` (see the module).
