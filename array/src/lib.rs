//! NumPy-style arrays for xp, on whichever backend the arrays live.
//!
//! This crate does not depend on any backend: the `xp` facade registers the backends its
//! features enable ([`register_backend`]), and device selection works over that registry.
//! Device selection follows CuPy: `XP_DEVICE=cpu|cuda:N|hip:N` names the default device;
//! without it the first GPU found is the default, else the CPU.
#![warn(missing_docs)]

pub mod device;

pub use device::{default_device, device, devices, parse_device_label, register_backend, registered_backends};
pub use xp_backend_api::{DType, Error, Result};
