//! `xp_array::spatial`: distances and nearest neighbours on the CPU backend.
