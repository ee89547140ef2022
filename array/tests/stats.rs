//! `xp_array::stats`: SciPy's statistics on the CPU backend.
