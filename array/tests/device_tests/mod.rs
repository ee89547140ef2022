//! `device_tests!`: checks written once as `fn(&Arc<dyn DynDevice>)`, instantiated as one
//! `#[test]` per check, named after the check, for whichever devices the test file brings
//! (CubeCL's `testgen` pattern).
//!
//! Each checks module holds its list in a macro (`parity_tests!` in `parity_checks/mod.rs`,
//! `user_kernel_tests!` in `user_kernel_checks/mod.rs`) that calls `device_tests!`. A test file
//! mounts this module and the checks module at its root, both `#[macro_use]`, in that order,
//! and calls the list's macro with its runner, a function `run(test: &'static str, check:
//! fn(&Arc<dyn DynDevice>))` that runs `check` on its devices: the CPU in `array/tests/`, every
//! GPU found (or a visible skip) in the root package's `tests/` (`gpus::on_every_gpu`).
//!
//! ```text
//! #[macro_use]
//! #[path = "../array/tests/device_tests/mod.rs"]
//! mod device_tests;
//! #[macro_use]
//! #[path = "../array/tests/parity_checks/mod.rs"]
//! mod parity_checks;
//! mod gpus;
//!
//! parity_tests!(gpus::on_every_gpu);
//! ```

/// One `#[test]` per check, named after it, whose body is `$run("check", path::to::check)`.
///
/// `device_tests!(run; checks::{module: [check, ..], ..})` for checks in submodules of the
/// module `checks` at the crate root; `device_tests!(run; checks: [check, ..])` for checks in
/// `checks` itself.
macro_rules! device_tests {
    ($run:path; $root:ident: [$($check:ident),* $(,)?]) => {
        $(
            #[test]
            fn $check() {
                $run(stringify!($check), $crate::$root::$check);
            }
        )*
    };
    ($run:path; $root:ident::{$($module:ident: [$($check:ident),* $(,)?]),* $(,)?}) => {
        $($(
            #[test]
            fn $check() {
                $run(stringify!($check), $crate::$root::$module::$check);
            }
        )*)*
    };
}
