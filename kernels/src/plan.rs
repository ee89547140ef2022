//! Launch plans: what a plan is made for ([`Target`]), the launches it returns as data
//! ([`PlannedLaunch`] with symbolic arguments, [`PlanArg`]), and the planner of elementwise
//! launches ([`plan_elementwise`], [`plan_flat`]). The reduction and scan planners
//! ([`crate::reduce::plan_reduce`], [`crate::scan::plan_scan`]) return the same launches.
//!
//! A planner decides layouts, index widths, grids and argument bytes; the caller allocates
//! what the plan names, resolves the pointer arguments and launches. Planners know devices
//! only through [`Target`], built from a device's properties ([`Target::from_properties`]).

use xp_backend_api::{DeviceProperties, Error, LaunchConfig, Result};

use crate::elementwise::{collapse, gpu_layout, index_width_for, Layout};
use crate::render::{IndexWidth, Rendered};

/// The largest rank kernels address: the extents of an `xp::Shape` and the strides of an
/// `xp::Strides` (`XP_MAX_DIMS` in the prelude).
pub const MAX_RANK: usize = 8;

/// What a plan is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// The CPU backend with `workers` threads.
    Cpu {
        /// Worker threads.
        workers: usize,
    },
    /// A GPU.
    Gpu {
        /// Streaming multiprocessors / compute units.
        sm_count: u32,
        /// 32 on NVIDIA; 64 or 32 on AMD.
        warp_size: u32,
        /// The device's largest block.
        max_threads_per_block: u32,
        /// The device's largest grid extent along x.
        max_grid_x: u32,
    },
}

/// The family of a [`Target`], which decides the set of kernels plans can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetKind {
    /// CPU plans use 64-bit indexing only.
    Cpu,
    /// GPU plans use 32-bit indexing where offsets allow, else 64-bit.
    Gpu,
}

impl Target {
    /// The target a device's properties describe: the CPU backend's worker threads when the
    /// device is the host, else a GPU.
    pub fn from_properties(p: &DeviceProperties) -> Target {
        if p.is_host {
            Target::Cpu { workers: p.multiprocessor_count.max(1) as usize }
        } else {
            Target::Gpu {
                sm_count: p.multiprocessor_count,
                warp_size: p.warp_size,
                max_threads_per_block: p.max_threads_per_block,
                max_grid_x: p.max_grid_dim[0],
            }
        }
    }

    /// Whether the target's built-in loops exist only for the loop's own dtypes, compiled ahead
    /// of time (the CPU backend): inputs of other dtypes are then converted before the launch
    /// and scalars are passed as 0-d arrays, where GPU kernels, compiled per call signature,
    /// convert as they load and take scalars by value.
    pub fn prebuilt_loops(&self) -> bool {
        matches!(self, Target::Cpu { .. })
    }

    /// The target's family.
    pub fn kind(&self) -> TargetKind {
        match self {
            Target::Cpu { .. } => TargetKind::Cpu,
            Target::Gpu { .. } => TargetKind::Gpu,
        }
    }
}

impl TargetKind {
    /// The index widths plans for this family use (64-bit on the CPU; 32 and 64 on GPUs).
    pub fn index_widths(self) -> &'static [IndexWidth] {
        match self {
            TargetKind::Cpu => &[IndexWidth::I64],
            TargetKind::Gpu => &[IndexWidth::I32, IndexWidth::I64],
        }
    }
}

/// One argument of a planned launch, described symbolically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanArg {
    /// A pointer to the input's element at `offset_elems` elements from the input's first
    /// element (the element at the array's offset; nonzero when negative strides were
    /// flipped).
    Input {
        /// Elements from the input's first element (may be negative).
        offset_elems: isize,
    },
    /// A pointer to the start of the output.
    Output,
    /// A pointer into the plan's scratch buffer.
    Scratch {
        /// Bytes from the scratch buffer's start (a multiple of 16).
        offset_bytes: usize,
    },
    /// A pointer to the `k`-th array the caller binds beside the plan's input and output
    /// (indices, error flags, tables: what a planner names but does not allocate).
    Operand(usize),
    /// A null pointer.
    Null,
    /// An `xp::Shape` (rank, then up to [`MAX_RANK`] extents).
    Shape(Vec<i64>),
    /// An `xp::Strides` (up to [`MAX_RANK`] strides, in elements).
    Strides(Vec<i64>),
    /// An `xp::i32` by value.
    I32(i32),
    /// An `xp::i64` by value.
    I64(i64),
}

impl PlanArg {
    /// The bytes of a by-value argument in the kernel's C layout; `None` for pointers.
    pub fn value_bytes(&self) -> Option<Vec<u8>> {
        let words = |v: Vec<i64>| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        match self {
            PlanArg::Shape(d) => {
                let mut v = vec![d.len() as i64];
                v.extend(d);
                v.resize(1 + MAX_RANK, 0);
                Some(words(v))
            }
            PlanArg::Strides(s) => {
                let mut v = s.clone();
                v.resize(MAX_RANK, 0);
                Some(words(v))
            }
            PlanArg::I32(x) => Some(x.to_ne_bytes().to_vec()),
            PlanArg::I64(x) => Some(x.to_ne_bytes().to_vec()),
            PlanArg::Null => Some(0u64.to_ne_bytes().to_vec()),
            PlanArg::Input { .. } | PlanArg::Output | PlanArg::Scratch { .. } | PlanArg::Operand(_) => None,
        }
    }

    /// Append the bytes of a by-value argument to `out` (as [`PlanArg::value_bytes`], without
    /// allocating); returns `false`, appending nothing, for pointers.
    pub fn write_value(&self, out: &mut Vec<u8>) -> bool {
        let mut words = |first: Option<i64>, v: &[i64], len: usize| {
            out.extend(first.iter().chain(v).chain(std::iter::repeat(&0)).take(len).flat_map(|x| x.to_ne_bytes()));
        };
        match self {
            PlanArg::Shape(d) => words(Some(d.len() as i64), d, 1 + MAX_RANK),
            PlanArg::Strides(st) => words(None, st, MAX_RANK),
            PlanArg::I32(x) => out.extend(x.to_ne_bytes()),
            PlanArg::I64(x) => out.extend(x.to_ne_bytes()),
            PlanArg::Null => out.extend(0u64.to_ne_bytes()),
            PlanArg::Input { .. } | PlanArg::Output | PlanArg::Scratch { .. } | PlanArg::Operand(_) => return false,
        }
        true
    }

    /// A count or offset `v` in the index type of `index`.
    pub fn index(index: IndexWidth, v: i64) -> PlanArg {
        match index {
            IndexWidth::I32 => PlanArg::I32(v as i32),
            IndexWidth::I64 => PlanArg::I64(v),
        }
    }

    /// The `xp::Shape` of extents `dims`.
    pub fn shape(dims: &[usize]) -> PlanArg {
        PlanArg::Shape(dims.iter().map(|&x| x as i64).collect())
    }

    /// The `xp::Strides` of `strides` (in elements).
    pub fn strides(strides: &[isize]) -> PlanArg {
        PlanArg::Strides(strides.iter().map(|&x| x as i64).collect())
    }
}

/// One launch of a plan.
#[derive(Debug, Clone)]
pub struct PlannedLaunch {
    /// The kernel.
    pub kernel: Rendered,
    /// Grid, block, shared memory.
    pub config: LaunchConfig,
    /// Its arguments, in order.
    pub args: Vec<PlanArg>,
}

/// An error unless `shape` and `strides` have one rank of at most [`MAX_RANK`] (`op` names the
/// planner).
pub(crate) fn check_rank(op: &str, shape: &[usize], strides: &[isize]) -> Result<()> {
    if shape.len() != strides.len() || shape.len() > MAX_RANK {
        return Err(Error::value(
            op,
            format!("shape {shape:?} and strides {strides:?} must have one rank, at most {MAX_RANK}"),
        ));
    }
    Ok(())
}

/// Dimensions `(extent, stride)` with extents of 1 dropped and neighbours that address memory
/// as one dimension merged (empty when every extent is 1).
pub(crate) fn merge_dims(dims: &[(usize, isize)]) -> Vec<(usize, isize)> {
    let mut out: Vec<(usize, isize)> = Vec::new();
    for &(n, s) in dims {
        if n == 1 {
            continue;
        }
        if let Some(last) = out.last_mut() {
            if last.1 == s * n as isize {
                last.0 *= n;
                last.1 = s;
                continue;
            }
        }
        out.push((n, s));
    }
    out
}

/// Round up to a multiple of 16 bytes.
pub(crate) fn align16(x: usize) -> usize {
    x.div_ceil(16) * 16
}

/// The largest power of two not above `x` (`x >= 1`).
pub(crate) fn pow2_floor(x: u32) -> u32 {
    1u32 << (31 - x.max(1).leading_zeros())
}

/// Threads per block of GPU elementwise and grid-stride launches.
pub const GPU_BLOCK: u32 = 256;

/// One planned elementwise launch over `shape`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementwisePlan {
    /// How the kernel addresses its operands.
    pub layout: Layout,
    /// The kernel's index width.
    pub index: IndexWidth,
    /// Grid and block.
    pub config: LaunchConfig,
    /// Elements (the product of the extents).
    pub n: usize,
    /// The arguments after the operand pointers: for layouts that take strides the merged shape
    /// and one `Strides` per array operand (inputs then outputs), then `n` as I32 or I64.
    pub tail: Vec<PlanArg>,
}

/// Plan the elementwise launch of op `op` (named in errors) over `shape`, whose array operands
/// (inputs then outputs; by-value scalars are not operands here) have strides `operands[k].0`
/// (in elements, 0 for broadcast dimensions) and are C-contiguous when `operands[k].1`.
///
/// On a GPU, all-contiguous operands take a flat layout (four elements per thread from
/// [`crate::elementwise::VECTOR_MIN`] elements, see [`gpu_layout`]) with no strides; otherwise
/// the dimensions are merged ([`collapse`]) and the layout is strided, or contiguous when one
/// unit-stride dimension remains. The index width is 32-bit when every offset fits
/// ([`index_width_for`]). The CPU always takes [`Layout::Rows`] with 64-bit indices.
///
/// `min_reach` is the largest element offset the kernel addresses through other arguments
/// (`raw` arrays of user kernels, indexed by hand), which the index width must also cover.
///
/// `Ok(None)` when `shape` has no element: there is nothing to launch. An error when an
/// operand's rank is not `shape`'s, or when the merged layout needs more than [`MAX_RANK`]
/// dimensions.
pub fn plan_elementwise(
    op: &str,
    shape: &[usize],
    operands: &[(&[isize], bool)],
    min_reach: usize,
    target: Target,
) -> Result<Option<ElementwisePlan>> {
    if let Some((st, _)) = operands.iter().find(|(st, _)| st.len() != shape.len()) {
        return Err(Error::value(op, format!("operand strides {st:?} for shape {shape:?}")));
    }
    let n: usize = shape.iter().product();
    if n == 0 {
        return Ok(None);
    }
    let cpu = matches!(target, Target::Cpu { .. });
    // On GPUs, C-contiguous operands need neither merged dimensions nor strides.
    let flat = !cpu && operands.iter().all(|&(_, c)| c);
    let (cshape, cstrides) = if flat {
        (Vec::new(), Vec::new())
    } else {
        let strides: Vec<Vec<isize>> = operands.iter().map(|(s, _)| s.to_vec()).collect();
        collapse(shape, &strides)
    };
    if cshape.len() > MAX_RANK {
        return Err(Error::Unsupported(format!(
            "{op}: operands whose layouts need {} dimensions after merging (kernels take {MAX_RANK})",
            cshape.len()
        )));
    }
    let reach = if flat {
        n - 1
    } else {
        cstrides
            .iter()
            .map(|st| st.iter().zip(&cshape).map(|(s, d)| s.unsigned_abs() * (d - 1)).sum::<usize>())
            .max()
            .unwrap_or(0)
    }
    .max(min_reach);
    let (layout, index) = if cpu {
        (Layout::Rows, IndexWidth::I64)
    } else {
        let contiguous = flat || (cshape.len() == 1 && cstrides.iter().all(|s| s[0] == 1));
        (gpu_layout(n, contiguous), index_width_for(n, reach))
    };
    let mut tail = Vec::new();
    if layout.takes_strides() {
        tail.push(PlanArg::shape(&cshape));
        tail.extend(cstrides.iter().map(|s| PlanArg::strides(s)));
    }
    tail.push(PlanArg::index(index, n as i64));
    // The contiguous layout takes four elements per thread, and so does the strided one along
    // a last extent of a multiple of four (its loop over groups of four; when that loop
    // cannot run, the grid-stride loop gives each thread four elements).
    let fours = match layout {
        Layout::Contiguous => true,
        Layout::Strided => cshape.last().is_some_and(|l| l % 4 == 0),
        _ => false,
    };
    let work = if fours { n.div_ceil(4) } else { n };
    Ok(Some(ElementwisePlan { layout, index, config: plan_flat(work, target), n, tail }))
}

/// A launch configuration of `n` independent work items (grid-stride kernels): on the CPU one
/// block of one thread per 16384 items, at least one and at most four per worker; on a GPU
/// blocks of 256 threads, one thread per item up to the device's grid (and 65535·64 blocks).
pub fn plan_flat(n: usize, target: Target) -> LaunchConfig {
    match target {
        Target::Cpu { workers } => LaunchConfig::new((n / 16384).clamp(1, workers.max(1) * 4) as u32, 1),
        Target::Gpu { max_grid_x, .. } => {
            let max_grid = max_grid_x.max(1) as u64;
            let blocks = (n as u64).div_ceil(GPU_BLOCK as u64).clamp(1, max_grid.min(65535 * 64));
            LaunchConfig::new(blocks as u32, GPU_BLOCK)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPU: Target = Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024, max_grid_x: 1 << 30 };
    const CPU: Target = Target::Cpu { workers: 4 };

    fn plan(shape: &[usize], operands: &[(&[isize], bool)], target: Target) -> ElementwisePlan {
        plan_elementwise("add", shape, operands, 0, target).unwrap().expect("a launch")
    }

    #[test]
    fn values_are_written_as_value_bytes_says() {
        for a in [
            PlanArg::shape(&[2, 3]),
            PlanArg::strides(&[3, -1]),
            PlanArg::I32(-7),
            PlanArg::I64(1 << 40),
            PlanArg::Null,
            PlanArg::Output,
            PlanArg::Input { offset_elems: 2 },
        ] {
            let mut v = vec![9u8];
            let wrote = a.write_value(&mut v);
            assert_eq!(wrote, a.value_bytes().is_some(), "{a:?}");
            assert_eq!(v[1..].to_vec(), a.value_bytes().unwrap_or_default(), "{a:?}");
        }
    }

    #[test]
    fn raw_reach_widens_the_index() {
        let st: &[isize] = &[1];
        assert_eq!(plan_elementwise("k", &[100], &[(st, true)], 0, GPU).unwrap().unwrap().index, IndexWidth::I32);
        let wide = plan_elementwise("k", &[100], &[(st, true)], 1 << 33, GPU).unwrap().unwrap();
        assert_eq!(wide.index, IndexWidth::I64);
        assert_eq!(wide.tail, vec![PlanArg::I64(100)]);
    }

    #[test]
    fn max_rank_is_the_preludes() {
        assert!(crate::PRELUDE.contains(&format!("#define XP_MAX_DIMS {MAX_RANK}\n")));
        assert_eq!(PlanArg::shape(&[2, 3]).value_bytes().unwrap().len(), 8 * (1 + MAX_RANK));
        assert_eq!(PlanArg::strides(&[1]).value_bytes().unwrap().len(), 8 * MAX_RANK);
    }

    #[test]
    fn targets_come_from_device_properties() {
        let mut p = DeviceProperties {
            name: "test".into(),
            total_memory: 1 << 30,
            multiprocessor_count: 0,
            arch: "x86_64".into(),
            warp_size: 1,
            max_threads_per_block: 1,
            max_block_dim: [1, 1, 1],
            max_grid_dim: [1 << 20, 1, 1],
            max_shared_memory_per_block: 0,
            is_host: true,
            compute_capability: (0, 0),
            clock_rate_khz: 0,
        };
        assert_eq!(Target::from_properties(&p), Target::Cpu { workers: 1 });
        p.is_host = false;
        p.multiprocessor_count = 132;
        p.warp_size = 32;
        p.max_threads_per_block = 1024;
        p.max_grid_dim = [2147483647, 65535, 65535];
        let t = Target::from_properties(&p);
        assert_eq!(
            t,
            Target::Gpu { sm_count: 132, warp_size: 32, max_threads_per_block: 1024, max_grid_x: 2147483647 }
        );
        assert_eq!(t.kind(), TargetKind::Gpu);
        assert_eq!(TargetKind::Gpu.index_widths(), &[IndexWidth::I32, IndexWidth::I64]);
    }

    #[test]
    fn gpu_contiguous_operands_launch_flat() {
        let c: &[isize] = &[12, 4, 1];
        let p = plan(&[2, 3, 4], &[(c, true), (c, true), (c, true)], GPU);
        assert_eq!((p.layout, p.index, p.n), (Layout::Flat, IndexWidth::I32, 24));
        assert_eq!(p.tail, vec![PlanArg::I32(24)]);
        assert_eq!(p.config, LaunchConfig::new(1, 256));
        // From VECTOR_MIN elements: four per thread.
        let n = crate::elementwise::VECTOR_MIN * 4;
        let one: &[isize] = &[1];
        let p = plan(&[n], &[(one, true), (one, true)], GPU);
        assert_eq!(p.layout, Layout::Contiguous);
        assert_eq!(p.config, LaunchConfig::new((n / 4 / 256) as u32, 256));
        // The grid stops at the device's largest and at 65535 * 64 blocks.
        let small = Target::Gpu { sm_count: 1, warp_size: 32, max_threads_per_block: 1024, max_grid_x: 100 };
        assert_eq!(plan(&[n], &[(one, true)], small).config.grid.x, 100);
        let huge = [1usize << 33];
        let p = plan(&huge, &[(one, true)], GPU);
        assert_eq!((p.config.grid.x, p.index), (65535 * 64, IndexWidth::I64));
        assert_eq!(p.tail, vec![PlanArg::I64(1 << 33)]);
    }

    #[test]
    fn gpu_strided_and_broadcast_operands() {
        // A transposed input: two dimensions, strides per operand (inputs then output).
        let t: &[isize] = &[1, 3];
        let c: &[isize] = &[4, 1];
        let p = plan(&[3, 4], &[(t, false), (c, true)], GPU);
        assert_eq!(p.layout, Layout::Strided);
        assert_eq!(
            p.tail,
            vec![PlanArg::shape(&[3, 4]), PlanArg::strides(&[1, 3]), PlanArg::strides(&[4, 1]), PlanArg::I32(12)]
        );
        // A broadcast row (zero strides) beside contiguous operands merges to two dimensions.
        let row: &[isize] = &[0, 0, 1];
        let c3: &[isize] = &[12, 4, 1];
        let p = plan(&[2, 3, 4], &[(c3, true), (row, false), (c3, true)], GPU);
        assert_eq!(p.layout, Layout::Strided);
        assert_eq!(p.tail[0], PlanArg::shape(&[6, 4]));
        assert_eq!(p.tail[2], PlanArg::strides(&[0, 1]));
        // A non-contiguous view that merges to one unit-stride dimension is contiguous.
        let v: &[isize] = &[5, 1];
        let p = plan(&[1, 5], &[(v, false), (v, false)], GPU);
        assert_eq!((p.layout, p.tail.clone()), (Layout::Flat, vec![PlanArg::I32(5)]));
        // Offsets past 2^31 need 64-bit indices even for few elements.
        let far: &[isize] = &[1 << 32, 1];
        let p = plan(&[2, 2], &[(far, false), (&[2, 1], true)], GPU);
        assert_eq!(p.index, IndexWidth::I64);
        assert_eq!(*p.tail.last().unwrap(), PlanArg::I64(4));
    }

    #[test]
    fn cpu_takes_rows_with_64_bit_indices() {
        let c: &[isize] = &[4, 1];
        let p = plan(&[3, 4], &[(c, true), (c, true)], CPU);
        assert_eq!((p.layout, p.index), (Layout::Rows, IndexWidth::I64));
        assert_eq!(
            p.tail,
            vec![PlanArg::shape(&[12]), PlanArg::strides(&[1]), PlanArg::strides(&[1]), PlanArg::I64(12)]
        );
        assert_eq!(p.config, LaunchConfig::new(1, 1));
        // One block per 16384 elements, at most four per worker.
        let one: &[isize] = &[1];
        assert_eq!(plan(&[16384 * 10], &[(one, true)], CPU).config.grid.x, 10);
        assert_eq!(plan(&[16384 * 100], &[(one, true)], CPU).config.grid.x, 16);
    }

    #[test]
    fn empty_shapes_plan_no_launch_and_bad_ranks_are_errors() {
        let z: &[isize] = &[1, 1];
        assert_eq!(plan_elementwise("add", &[0, 3], &[(z, true)], 0, GPU).unwrap(), None);
        assert!(plan_elementwise("add", &[2, 3], &[(&[1], true)], 0, CPU).is_err());
        // Nine dimensions that do not merge.
        let shape = [2usize; 9];
        let st: Vec<isize> = (0..9).map(|d| 1isize << (2 * (8 - d))).collect();
        let e = plan_elementwise("my_op", &shape, &[(&st, false)], 0, GPU).unwrap_err().to_string();
        assert!(e.contains("my_op") && e.contains("9 dimensions") && e.contains("kernels take 8"), "{e}");
    }

    #[test]
    fn flat_configs() {
        assert_eq!(plan_flat(0, CPU), LaunchConfig::new(1, 1));
        assert_eq!(plan_flat(1 << 30, CPU), LaunchConfig::new(16, 1));
        assert_eq!(plan_flat(0, GPU), LaunchConfig::new(1, 256));
        assert_eq!(plan_flat(1000, GPU), LaunchConfig::new(4, 256));
        assert_eq!(plan_flat(usize::MAX, GPU).grid.x, 65535 * 64);
    }
}
