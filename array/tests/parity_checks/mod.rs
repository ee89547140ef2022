//! NumPy-parity checks of `put`, `fill`, the order of complex numbers, `numpy.linalg`'s
//! solvers and decompositions, sorting and searching, random bits identical across devices,
//! long scans, `convolve2d` and sparse matrices, written once for any device: `array/tests/parity.rs` runs them on the CPU backend, the root package's
//! `tests/parity_gpu.rs` on every GPU found.
#![allow(dead_code)]

use std::sync::Arc;

use xp_backend_api::DynDevice;

pub mod complex_order;
pub mod fill;
pub mod host;
pub mod linalg;
pub mod put_last_write;
pub mod random;
pub mod scan;
pub mod signal;
pub mod sort;
pub mod sparse;

/// Every check but [`sort_and_scan`], in order, on `d`.
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
    put_last_write::masked_assignment_reads_values_in_order(d);
    fill::fill_sets_every_element_in_place(d);
    fill::fill_on_a_strided_view_writes_only_its_elements(d);
    fill::fill_converts_as_numpy_stores_a_python_scalar(d);
    fill::fill_runs_on_the_current_stream(d);
    linalg::solve_vectors_matrices_and_broadcast_stacks(d);
    linalg::inv_of_a_stack_is_the_inverse(d);
    linalg::det_and_slogdet_match_elimination(d);
    linalg::cholesky_lower_and_upper_factors(d);
    linalg::qr_modes_on_tall_wide_and_stacked_matrices(d);
    linalg::svd_full_reduced_and_svdvals(d);
    linalg::eigh_and_eigvalsh_read_the_uplo_triangle(d);
    linalg::failures_name_the_failing_matrix_of_a_stack(d);
    linalg::eig_of_general_and_complex_matrices(d);
    random::random_draws_have_the_same_bits_as_on_the_cpu(d);
    sparse::coo_to_csr_and_products_match_dense_arithmetic(d);
    sparse::sparse_products_sums_and_elementwise_match_dense(d);
    signal::convolve2d_matches_host_sums_on_every_boundary_and_tile(d);
}

/// The sort, search, scan and compaction checks (run apart on GPUs, so that a race checker
/// can watch those kernels alone).
pub fn sort_and_scan(d: &Arc<dyn DynDevice>) {
    sort::sort_and_argsort_match_host_sorts_for_every_dtype(d);
    sort::sorts_along_every_axis_of_many_rows(d);
    sort::complex_sorts_in_numpy_order_with_nans(d);
    sort::unique_with_index_inverse_and_counts(d);
    sort::searchsorted_sides_nans_and_sorter(d);
    sort::lexsort_sorts_by_the_last_key_first(d);
    sort::long_sorts_keep_order_across_many_tiles(d);
    scan::long_scans_match_host_sums(d);
    scan::mask_selection_matches_host_filters_for_every_width(d);
}
