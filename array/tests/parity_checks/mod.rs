//! NumPy-parity checks of `put`, `fill` and the order of complex numbers, written once for any
//! device: `array/tests/parity.rs` runs them on the CPU backend, the root package's
//! `tests/parity_gpu.rs` on every GPU found.
#![allow(dead_code)]

use std::sync::Arc;

use xp_backend_api::DynDevice;

pub mod complex_order;
pub mod fill;
pub mod put_last_write;

/// Every check, in order, on `d`.
pub fn all(d: &Arc<dyn DynDevice>) {
    complex_order::complex_max_and_min_return_the_first_nan(d);
    complex_order::complex_max_along_an_axis(d);
    complex_order::complex_max_of_many_elements_keeps_the_first_nan_across_blocks(d);
    complex_order::complex_maximum_minimum_fmax_fmin_follow_numpy_with_nans(d);
    complex_order::complex_comparisons_are_lexicographic_and_false_with_nan(d);
    complex_order::complex_clip_orders_lexicographically_and_propagates_nan(d);
    put_last_write::put_with_repeated_indices_keeps_the_last_value(d);
    put_last_write::put_keeps_the_last_value_when_an_earlier_write_runs_later(d);
    put_last_write::put_with_unique_negative_and_short_value_lists(d);
    fill::fill_sets_every_element_in_place(d);
    fill::fill_on_a_strided_view_writes_only_its_elements(d);
    fill::fill_converts_as_numpy_stores_a_python_scalar(d);
    fill::fill_runs_on_the_current_stream(d);
}
