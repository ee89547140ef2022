//! The integration tests of the CPU backend, as one binary: every file of this folder is a
//! module here (a new file is added to this list), but `environment.rs` and `memory_pool.rs`,
//! which have processes of their own (see `Cargo.toml`).

mod device_sync;
mod generated;
mod gpu_math;
mod ops;
mod raw_kernels;
mod reduce;
