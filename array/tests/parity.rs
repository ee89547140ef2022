//! NumPy parity of `put` with repeated indices, `fill`, complex ordering and `numpy.linalg`'s
//! solvers on the CPU backend, whose launches run blocks on several workers at once. The checks
//! live in `parity_checks/` and run on GPUs from the root package's `tests/parity_gpu.rs`.

use std::sync::Arc;

use xp_array::{device, register_backend};
use xp_backend_api::{BackendHandle, DynDevice};
use xp_backend_cpu::CpuBackend;

mod parity_checks;
use parity_checks as checks;

fn cpu() -> Arc<dyn DynDevice> {
    register_backend(Arc::new(BackendHandle::<CpuBackend>::default()));
    device("cpu").unwrap()
}

#[test]
fn complex_max_and_min_return_the_first_nan() {
    checks::complex_order::complex_max_and_min_return_the_first_nan(&cpu());
}

#[test]
fn complex_max_along_an_axis() {
    checks::complex_order::complex_max_along_an_axis(&cpu());
}

#[test]
fn complex_max_of_many_elements_keeps_the_first_nan_across_blocks() {
    checks::complex_order::complex_max_of_many_elements_keeps_the_first_nan_across_blocks(&cpu());
}

#[test]
fn complex_maximum_minimum_fmax_fmin_follow_numpy_with_nans() {
    checks::complex_order::complex_maximum_minimum_fmax_fmin_follow_numpy_with_nans(&cpu());
}

#[test]
fn complex_comparisons_are_lexicographic_and_false_with_nan() {
    checks::complex_order::complex_comparisons_are_lexicographic_and_false_with_nan(&cpu());
}

#[test]
fn complex_clip_orders_lexicographically_and_propagates_nan() {
    checks::complex_order::complex_clip_orders_lexicographically_and_propagates_nan(&cpu());
}

#[test]
fn put_with_repeated_indices_keeps_the_last_value() {
    checks::put_last_write::put_with_repeated_indices_keeps_the_last_value(&cpu());
}

#[test]
fn put_keeps_the_last_value_when_an_earlier_write_runs_later() {
    checks::put_last_write::put_keeps_the_last_value_when_an_earlier_write_runs_later(&cpu());
}

#[test]
fn put_with_unique_negative_and_short_value_lists() {
    checks::put_last_write::put_with_unique_negative_and_short_value_lists(&cpu());
}

#[test]
fn fill_sets_every_element_in_place() {
    checks::fill::fill_sets_every_element_in_place(&cpu());
}

#[test]
fn fill_on_a_strided_view_writes_only_its_elements() {
    checks::fill::fill_on_a_strided_view_writes_only_its_elements(&cpu());
}

#[test]
fn fill_converts_as_numpy_stores_a_python_scalar() {
    checks::fill::fill_converts_as_numpy_stores_a_python_scalar(&cpu());
}

#[test]
fn fill_runs_on_the_current_stream() {
    checks::fill::fill_runs_on_the_current_stream(&cpu());
}

#[test]
fn solve_vectors_matrices_and_broadcast_stacks() {
    checks::linalg::solve_vectors_matrices_and_broadcast_stacks(&cpu());
}

#[test]
fn inv_of_a_stack_is_the_inverse() {
    checks::linalg::inv_of_a_stack_is_the_inverse(&cpu());
}

#[test]
fn det_and_slogdet_match_elimination() {
    checks::linalg::det_and_slogdet_match_elimination(&cpu());
}

#[test]
fn cholesky_lower_and_upper_factors() {
    checks::linalg::cholesky_lower_and_upper_factors(&cpu());
}

#[test]
fn qr_modes_on_tall_wide_and_stacked_matrices() {
    checks::linalg::qr_modes_on_tall_wide_and_stacked_matrices(&cpu());
}

#[test]
fn svd_full_reduced_and_svdvals() {
    checks::linalg::svd_full_reduced_and_svdvals(&cpu());
}

#[test]
fn eigh_and_eigvalsh_read_the_uplo_triangle() {
    checks::linalg::eigh_and_eigvalsh_read_the_uplo_triangle(&cpu());
}

#[test]
fn failures_name_the_failing_matrix_of_a_stack() {
    checks::linalg::failures_name_the_failing_matrix_of_a_stack(&cpu());
}

#[test]
fn eig_of_general_and_complex_matrices() {
    checks::linalg::eig_of_general_and_complex_matrices(&cpu());
}

#[test]
fn long_sorts_keep_order_across_many_tiles() {
    checks::sort::long_sorts_keep_order_across_many_tiles(&cpu());
}

#[test]
fn sort_and_argsort_match_host_sorts_for_every_dtype() {
    checks::sort::sort_and_argsort_match_host_sorts_for_every_dtype(&cpu());
}

#[test]
fn sorts_along_every_axis_of_many_rows() {
    checks::sort::sorts_along_every_axis_of_many_rows(&cpu());
}

#[test]
fn complex_sorts_in_numpy_order_with_nans() {
    checks::sort::complex_sorts_in_numpy_order_with_nans(&cpu());
}

#[test]
fn unique_with_index_inverse_and_counts() {
    checks::sort::unique_with_index_inverse_and_counts(&cpu());
}

#[test]
fn searchsorted_sides_nans_and_sorter() {
    checks::sort::searchsorted_sides_nans_and_sorter(&cpu());
}

#[test]
fn lexsort_sorts_by_the_last_key_first() {
    checks::sort::lexsort_sorts_by_the_last_key_first(&cpu());
}

#[test]
fn random_draws_have_the_same_bits_as_on_the_cpu() {
    checks::random::random_draws_have_the_same_bits_as_on_the_cpu(&cpu());
}

#[test]
fn masked_assignment_reads_values_in_order() {
    checks::put_last_write::masked_assignment_reads_values_in_order(&cpu());
}

#[test]
fn sparse_coo_to_csr_and_products_match_dense_arithmetic() {
    checks::sparse::coo_to_csr_and_products_match_dense_arithmetic(&cpu());
}

#[test]
fn sparse_products_sums_and_elementwise_match_dense() {
    checks::sparse::sparse_products_sums_and_elementwise_match_dense(&cpu());
}

#[test]
fn long_scans_match_host_sums() {
    checks::scan::long_scans_match_host_sums(&cpu());
}

#[test]
fn mask_selection_matches_host_filters_for_every_width() {
    checks::scan::mask_selection_matches_host_filters_for_every_width(&cpu());
}

#[test]
fn convolve2d_matches_host_sums_on_every_boundary_and_tile() {
    checks::signal::convolve2d_matches_host_sums_on_every_boundary_and_tile(&cpu());
}
