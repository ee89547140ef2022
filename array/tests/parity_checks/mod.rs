//! NumPy-parity checks of `put`, `fill`, the order of complex numbers, `numpy.linalg`'s
//! solvers and decompositions, sorting and searching, random bits identical across devices,
//! long scans, `convolve2d`, sparse matrices, the k-d tree's device search, float → integer
//! casts, indices beyond int64's range, ufuncs whose `out` overlaps an input and `ndimage`'s
//! spline interpolation, written once for any device and listed once, in `parity_tests!`:
//! `array/tests/parity.rs` makes each a test on the CPU backend, the root package's
//! `tests/parity_gpu.rs` a test on every GPU found.
//!
//! No `allow(dead_code)` here: a check left out of the list is never used, a warning that
//! clippy's `-D warnings` makes an error.

pub mod casts;
pub mod complex_order;
pub mod fill;
pub mod host;
pub mod index_range;
pub mod kdtree;
pub mod lazy;
pub mod linalg;
pub mod memory_order;
pub mod ndimage_interp;
pub mod op_chains;
pub mod put_last_write;
pub mod random;
pub mod scan;
pub mod signal;
pub mod sort;
pub mod sparse;
pub mod streams;
pub mod ufunc_out;

/// Every check of this module, each as its own `#[test]` named after it that runs
/// `$run(name, check)` (`device_tests!`, `../device_tests/mod.rs`), for a test crate that mounts
/// this module at its root as `parity_checks`. A new check goes in this list, and nowhere else.
macro_rules! parity_tests {
    ($run:path) => {
        device_tests!($run; parity_checks::{
            casts: [
                float_to_integer_casts_follow_numpy_and_saturate_where_it_is_undefined,
                host_float_to_integer_conversions_match_the_device_cast,
            ],
            index_range: [uint64_indices_beyond_int64_are_out_of_bounds],
            kdtree: [
                kdtree_device_search_matches_the_host_search,
                kdtree_device_search_ties_missing_neighbours_and_errors,
            ],
            ufunc_out: [out_overlapping_an_input_gives_numpy_values],
            op_chains: [random_views_and_op_chains_match_the_cpu, broadcast_rows_of_four_match_the_cpu],
            lazy: [
                fused_chains_give_the_bits_of_op_by_op_kernels,
                loops_with_changing_scalars_reuse_a_few_kernels,
                pending_values_never_see_later_writes,
                errors_come_from_the_call_that_makes_them,
                views_consumers_and_joint_evaluation_of_pending_arrays,
                long_chains_are_cut_by_the_depth_bound,
                wide_trees_are_cut_by_the_op_count_bound,
                reductions_of_pending_maps_give_the_bits_of_computed_maps,
            ],
            complex_order: [
                complex_max_and_min_return_the_first_nan,
                complex_max_along_an_axis,
                complex_max_of_many_elements_keeps_the_first_nan_across_blocks,
                complex_maximum_minimum_fmax_fmin_follow_numpy_with_nans,
                complex_comparisons_are_lexicographic_and_false_with_nan,
                complex_clip_orders_lexicographically_and_propagates_nan,
            ],
            put_last_write: [
                put_with_repeated_indices_keeps_the_last_value,
                put_keeps_the_last_value_when_an_earlier_write_runs_later,
                put_with_unique_negative_and_short_value_lists,
                masked_assignment_reads_values_in_order,
            ],
            streams: [
                events_time_the_work_between_them,
                with_stream_and_the_guard_make_a_stream_current,
                a_captured_chain_replays_the_eager_values,
                a_captured_mandelbrot_step_gives_the_eager_bits,
                host_work_inside_a_capture_fails_it_and_leaks_nothing,
            ],
            fill: [
                fill_sets_every_element_in_place,
                fill_on_a_strided_view_writes_only_its_elements,
                fill_converts_as_numpy_stores_a_python_scalar,
                fill_runs_on_the_current_stream,
            ],
            linalg: [
                solve_vectors_matrices_and_broadcast_stacks,
                inv_of_a_stack_is_the_inverse,
                det_and_slogdet_match_elimination,
                cholesky_lower_and_upper_factors,
                qr_modes_on_tall_wide_and_stacked_matrices,
                svd_full_reduced_and_svdvals,
                eigh_and_eigvalsh_read_the_uplo_triangle,
                failures_name_the_failing_matrix_of_a_stack,
                svd_of_a_matrix_with_nans_does_not_converge,
                eig_of_general_and_complex_matrices,
            ],
            random: [random_draws_have_the_same_bits_as_on_the_cpu],
            memory_order: [fortran_arrays_give_the_values_of_c_arrays],
            ndimage_interp: [spline_interpolation_matches_the_cpu],
            sparse: [
                coo_to_csr_and_products_match_dense_arithmetic,
                sparse_products_sums_and_elementwise_match_dense,
                integer_and_bool_sparse_keep_their_dtype_and_match_integer_arithmetic,
            ],
            signal: [
                convolve2d_matches_host_sums_on_every_boundary_and_tile,
                spline_filters_and_gustafsson_filtfilt_match_the_cpu,
                iir_filters_match_the_cpu,
            ],
            sort: [
                sort_and_argsort_match_host_sorts_for_every_dtype,
                sorts_along_every_axis_of_many_rows,
                complex_sorts_in_numpy_order_with_nans,
                unique_with_index_inverse_and_counts,
                searchsorted_sides_nans_and_sorter,
                lexsort_sorts_by_the_last_key_first,
                long_sorts_keep_order_across_many_tiles,
            ],
            scan: [
                long_scans_match_host_sums,
                mask_selection_matches_host_filters_for_every_width,
            ],
        });
    };
}
