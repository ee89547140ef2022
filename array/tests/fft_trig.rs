//! `scipy.fft`'s transforms in `xp_array::fft` (DCT, DST, Hankel, Hermitian N-d) on the CPU backend.
