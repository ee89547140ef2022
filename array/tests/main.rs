//! The integration tests of `xp-array`, as one binary: every file of this folder is a module
//! here (a new file is added to this list). `device_tests!` and the check lists it expands
//! (`parity_checks/`, `user_kernel_checks/`) are mounted first, at the root, as their macros
//! expect. `fft.rs` is a binary of its own (see `Cargo.toml`).

#[macro_use]
mod device_tests;
#[macro_use]
mod parity_checks;
#[macro_use]
mod user_kernel_checks;

mod basic;
mod binning;
mod display;
mod errors;
mod fft_trig;
mod inplace;
mod interop;
mod interpolate;
mod linalg;
mod memory_order;
mod mixed_devices;
mod more_routines;
mod native_signal_spatial;
mod ndimage_filters;
mod ndimage_generic;
mod ndimage_interp;
mod ndimage_morph;
mod ndimage_native;
mod ndimage_tiled;
mod npy_numpy;
mod numpy_extras;
mod order;
mod parity;
mod products;
mod properties;
mod random;
mod random_distributions;
mod routines;
mod rows_cpu;
mod scipy_linalg;
mod signal;
mod signal_design;
mod signal_filter;
mod signal_more;
mod slicing;
mod sparse;
mod sparse_linalg;
mod sparse_native;
mod spatial;
mod special;
mod stats;
mod user_kernels;
