//! `xp_array::interpolate`: interpolators on the CPU backend.
