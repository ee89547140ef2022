// xp_prelude.h (being written)
