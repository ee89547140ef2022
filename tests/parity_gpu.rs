//! NumPy parity of `put` with repeated indices (the last write wins), `fill`, the order of
//! complex numbers and `numpy.linalg`'s solvers and decompositions on every GPU found: the
//! checks of `array/tests/parity_checks/`, which `array/tests/parity.rs` runs on the CPU
//! backend.

#[path = "../array/tests/parity_checks/mod.rs"]
mod checks;
mod gpus;

#[test]
fn parity_on_every_gpu() {
    for d in &gpus::gpus_or_skip("parity_on_every_gpu") {
        println!("parity checks on {}", d.label());
        checks::all(d);
    }
}

#[test]
fn sort_and_scan_parity_on_every_gpu() {
    for d in &gpus::gpus_or_skip("sort_and_scan_parity_on_every_gpu") {
        println!("sort and scan checks on {}", d.label());
        checks::sort_and_scan(d);
    }
}
