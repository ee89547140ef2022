//! The copy of a strided 2-d view (a transpose) into C order, tile by tile: its kernel and its
//! plan, as each of xp's own algorithms keeps its generator and planner in one file.

use xp_backend_api::LaunchConfig;

use crate::index::word;
use crate::plan::{plan_flat, PlanArg, PlannedLaunch, Target};
use crate::render::Rendered;

/// A copy of a 2-d view whose rows are strided (a transpose) into a C-contiguous
/// `rows`×`cols` output, tile by tile, so both sides stay in cache (CPU: 64×64 tiles, a
/// contiguous range of tiles per thread) or coalesced (GPU: 32×32 tiles through shared
/// memory, blocks of 32×8 threads, grid of (⌈cols/32⌉, ⌈rows/32⌉)).
///
/// Parameters: `const T* in, T* out, xp::i64 rows, xp::i64 cols, xp::i64 s0, xp::i64 s1`
/// (`in[i*s0 + j*s1]` is element (i, j)).
pub fn transpose_copy(bytes: usize, gpu: bool) -> Rendered {
    let t = word(bytes);
    let name = format!("xp_tcopy_{}_{bytes}", if gpu { "gpu" } else { "cpu" });
    let head = format!(
        "extern \"C\" __global__ void {name}(const {t}* __restrict__ in, {t}* __restrict__ out, xp::i64 rows, xp::i64 cols, xp::i64 s0, xp::i64 s1) {{\n"
    );
    let body = if gpu {
        format!(
            "  __shared__ {t} tile[32][33];
  const xp::i64 bi = (xp::i64)blockIdx.y * 32, bj = (xp::i64)blockIdx.x * 32;
  for (int k = threadIdx.y; k < 32; k += 8) {{
    const xp::i64 i = bi + threadIdx.x, j = bj + k;
    if (i < rows && j < cols) tile[k][threadIdx.x] = in[i * s0 + j * s1];
  }}
  __syncthreads();
  for (int k = threadIdx.y; k < 32; k += 8) {{
    const xp::i64 i = bi + k, j = bj + threadIdx.x;
    if (i < rows && j < cols) out[i * cols + j] = tile[threadIdx.x][k];
  }}
}}
"
        )
    } else {
        "  const xp::i64 tb = 64;
  const xp::i64 tr = (rows + tb - 1) / tb, tc = (cols + tb - 1) / tb;
  XP_FOR_EACH(xp::i64, t, tr * tc) {
    const xp::i64 bi = (t / tc) * tb, bj = (t % tc) * tb;
    const xp::i64 ie = bi + tb < rows ? bi + tb : rows, je = bj + tb < cols ? bj + tb : cols;
    for (xp::i64 i = bi; i < ie; ++i)
      for (xp::i64 j = bj; j < je; ++j) out[i * cols + j] = in[i * s0 + j * s1];
  }
}
"
        .to_string()
    };
    Rendered { name, code: head + &body }
}

/// Plan the copy of a 2-d view of `rows × cols` elements of `itemsize` bytes, element (i, j)
/// at `i*s0 + j*s1` of the input, into a C-contiguous output with the tiled transpose kernel
/// ([`transpose_copy`]): on a GPU 32×32 tiles through shared memory, on the CPU
/// 64×64 tiles spread over the workers. `None` when the GPU grid cannot hold the rows.
///
/// Arguments: [`PlanArg::Input`], [`PlanArg::Output`], then rows, cols, s0, s1 as `xp::i64`.
pub fn plan_transpose_copy(
    itemsize: usize,
    rows: usize,
    cols: usize,
    s0: isize,
    s1: isize,
    target: Target,
) -> Option<PlannedLaunch> {
    let gpu = !target.prebuilt_loops();
    let config = if gpu {
        if rows.div_ceil(32) > 65535 {
            return None;
        }
        LaunchConfig::new((cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, 1), (32, 8, 1))
    } else {
        plan_flat(rows.div_ceil(64) * cols.div_ceil(64) * 4096, target)
    };
    Some(PlannedLaunch {
        kernel: transpose_copy(itemsize, gpu),
        config,
        args: vec![
            PlanArg::Input { offset_elems: 0 },
            PlanArg::Output,
            PlanArg::I64(rows as i64),
            PlanArg::I64(cols as i64),
            PlanArg::I64(s0 as i64),
            PlanArg::I64(s1 as i64),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPU: Target = Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024, max_grid_x: 1 << 30 };
    const CPU: Target = Target::Cpu { workers: 4 };

    #[test]
    fn transpose_plans_tile_on_gpus_and_spread_on_the_cpu() {
        let g = plan_transpose_copy(4, 1000, 3000, 1, 1000, GPU).expect("fits");
        assert_eq!(g.config, LaunchConfig::new((94, 32, 1), (32, 8, 1)));
        assert!(g.kernel.name.contains("gpu"));
        assert_eq!(g.args[2..], [PlanArg::I64(1000), PlanArg::I64(3000), PlanArg::I64(1), PlanArg::I64(1000)]);
        assert!(plan_transpose_copy(4, 32 * 65536, 4, 1, 1 << 21, GPU).is_none());
        let c = plan_transpose_copy(8, 1000, 3000, 1, 1000, CPU).expect("always");
        assert!(c.kernel.name.contains("cpu"));
        assert_eq!(c.config, plan_flat(16 * 47 * 4096, CPU));
    }
}
