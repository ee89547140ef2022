//! See the module's functions (`xp::ndimage`).
