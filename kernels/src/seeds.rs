//! The user kernels of CuPy's tutorials that xp's tests, tour and compile checks run, written
//! once: raw CUDA sources (for `RawKernel`, `RawModule` or a device's `compile`) and the
//! parameter strings of `ElementwiseKernel` and `ReductionKernel`.
//!
//! The raw sources are plain CUDA C++, unchanged from what a CuPy user writes: no xp header,
//! `extern "C"` entry points. Every backend compiles them (the CPU one included).

/// Defines a macro that expands to a kernel's source literal, so that a module can be
/// assembled from several sources with `concat!` and each source stays written once.
macro_rules! source {
    ($name:ident, $text:literal) => {
        macro_rules! $name {
            () => {
                $text
            };
        }
    };
}

source!(
    my_add_src,
    r#"
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
"#
);

source!(
    saxpy_src,
    r#"
extern "C" __global__
void saxpy(const float a, const float* __restrict__ x,
           const float* __restrict__ y, float* __restrict__ out, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"#
);

source!(
    tiled_matmul_src,
    r#"
#define TILE 16
extern "C" __global__
void matmul_tiled(const float* A, const float* B, float* C, int M, int K, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = (row < M && t * TILE + threadIdx.x < K) ? A[row * K + t * TILE + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (t * TILE + threadIdx.y < K && col < N) ? B[(t * TILE + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
"#
);

source!(
    scale_src,
    r#"
extern "C" __global__ void scale(float* x, float s, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) x[i] *= s;
}
"#
);

source!(
    block_sum_src,
    r#"
extern "C" __global__ void block_sum(const float* x, float* out, int n) {
    extern __shared__ float sdata[];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sdata[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}
"#
);

/// `my_add(x1, x2, y)`: `y[i] = x1[i] + x2[i]` for `i` the global thread index (no bounds
/// check: launch exactly one thread per element).
pub const MY_ADD: &str = my_add_src!();

/// `saxpy(a, x, y, out, n)`: `out[i] = a * x[i] + y[i]` for `i < n` (`float`, `int n`).
pub const SAXPY: &str = saxpy_src!();

/// `matmul_tiled(A, B, C, M, K, N)`: `C = A B` for row-major `float` `A` (M×K) and `B` (K×N),
/// through 16×16 tiles in `__shared__` memory with `__syncthreads()`. Launch 16×16 blocks on a
/// grid of `(ceil(N/16), ceil(M/16))`.
pub const TILED_MATMUL: &str = tiled_matmul_src!();

/// `scale(x, s, n)`: `x[i] *= s` for `i < n`.
pub const SCALE: &str = scale_src!();

/// `block_sum(x, out, n)`: each block's sum of `x` into `out[blockIdx.x]`, as a tree in
/// dynamic shared memory (`extern __shared__`; launch with `blockDim.x * 4` bytes of it, a
/// power-of-two block).
pub const BLOCK_SUM: &str = block_sum_src!();

/// [`SCALE`] and [`BLOCK_SUM`] in one source: two kernels of one module (`RawModule`).
pub const SCALE_AND_BLOCK_SUM: &str = concat!(scale_src!(), block_sum_src!());

/// The raw kernels above as `(kernel name, source)`, one source per kernel.
pub const RAW_KERNELS: &[(&str, &str)] =
    &[("my_add", MY_ADD), ("saxpy", SAXPY), ("matmul_tiled", TILED_MATMUL), ("scale", SCALE), ("block_sum", BLOCK_SUM)];

/// The four strings of an `ElementwiseKernel` (CuPy's argument order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElementwiseSeed {
    /// Input parameters (`"float32 x, T y"`).
    pub in_params: &'static str,
    /// Output parameters.
    pub out_params: &'static str,
    /// The loop body.
    pub operation: &'static str,
    /// The kernel name.
    pub name: &'static str,
}

/// The seven strings of a `ReductionKernel` (CuPy's argument order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReductionSeed {
    /// Input parameters.
    pub in_params: &'static str,
    /// Output parameters.
    pub out_params: &'static str,
    /// The expression mapped over each input element.
    pub map_expr: &'static str,
    /// How two partial results `a` and `b` combine.
    pub reduce_expr: &'static str,
    /// What is written from the final `a`.
    pub post_map_expr: &'static str,
    /// The accumulator's starting value.
    pub identity: &'static str,
    /// The kernel name.
    pub name: &'static str,
}

/// `z = (x - y) * (x - y)` on `float32`.
pub const SQUARED_DIFF: ElementwiseSeed = ElementwiseSeed {
    in_params: "float32 x, float32 y",
    out_params: "float32 z",
    operation: "z = (x - y) * (x - y)",
    name: "my_kernel",
};

/// [`SQUARED_DIFF`] for any type, through the placeholder `T`.
pub const SQUARED_DIFF_GENERIC: ElementwiseSeed = ElementwiseSeed {
    in_params: "T x, T y",
    out_params: "T z",
    operation: "z = (x - y) * (x - y)",
    name: "my_kernel_generic",
};

/// `y = a * x + b` on `float32`.
pub const AXPB: ElementwiseSeed = ElementwiseSeed {
    in_params: "float32 x, float32 a, float32 b",
    out_params: "float32 y",
    operation: "y = a * x + b;",
    name: "axpb",
};

/// `y = x` where `x > 0`, else `alpha * x`.
pub const LEAKY_RELU: ElementwiseSeed = ElementwiseSeed {
    in_params: "T x, T alpha",
    out_params: "T y",
    operation: "y = x > (T)0 ? x : alpha * x",
    name: "leaky_relu",
};

/// The sum of squares of `float32` values.
pub const SUM_SQUARES: ReductionSeed = ReductionSeed {
    in_params: "float32 x",
    out_params: "float32 y",
    map_expr: "x * x",
    reduce_expr: "a + b",
    post_map_expr: "y = a",
    identity: "0",
    name: "sum_squares",
};

/// The L2 norm, `sqrt(sum(x * x))`, for any type.
pub const L2NORM: ReductionSeed = ReductionSeed {
    in_params: "T x",
    out_params: "T y",
    map_expr: "x * x",
    reduce_expr: "a + b",
    post_map_expr: "y = sqrt(a)",
    identity: "0",
    name: "l2norm",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_raw_source_defines_the_kernel_it_is_named_after() {
        for (name, code) in RAW_KERNELS {
            assert_eq!(crate::kernel_names(code), vec![name.to_string()], "{code}");
        }
        assert_eq!(crate::kernel_names(SCALE_AND_BLOCK_SUM), vec!["scale", "block_sum"]);
        assert!(crate::cpu::uses_barrier(TILED_MATMUL) && crate::cpu::uses_barrier(BLOCK_SUM));
        assert!(!crate::cpu::uses_barrier(SAXPY));
    }
}
