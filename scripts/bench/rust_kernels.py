"""CuPy anchor for xp's kernels written in Rust (`#[xp::rawkernel]`, `#[xp::kernel]`), under the
names the bench binary prints (`XP_BENCH_ONLY=rust_kernels`): the seeds' `saxpy_jit`, a block
sum with shared memory and the 16x16 tiled matmul as `cupyx.jit.rawkernel`s and as the seeds'
`RawKernel` strings, and `leaky_relu` as an `ElementwiseKernel`, timed with device events."""
import sys
import cupy as cp
from cupyx import jit
from anchor import bench, Report


@jit.rawkernel()
def saxpy_jit(a, x, y, out, size):
    tid = jit.threadIdx.x + jit.blockDim.x * jit.blockIdx.x
    if tid < size:
        out[tid] = a * x[tid] + y[tid]


saxpy_raw = cp.RawKernel(r"""
extern "C" __global__
void saxpy(const float a, const float* __restrict__ x,
           const float* __restrict__ y, float* __restrict__ out, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
""", "saxpy")

@jit.rawkernel()
def block_sum_jit(x, out, n):
    sdata = jit.shared_memory(cp.float32, 256)
    t = jit.threadIdx.x
    i = jit.blockIdx.x * jit.blockDim.x + t
    v = cp.float32(0)
    if i < n:
        v = x[i]
    sdata[t] = v
    jit.syncthreads()
    s = jit.blockDim.x // 2
    while s > 0:
        if t < s:
            sdata[t] += sdata[t + s]
        jit.syncthreads()
        s //= 2
    if t == 0:
        out[jit.blockIdx.x] = sdata[0]


# The same kernels in the plainest forms cupyx.jit takes (typed loop variables, no augmented
# division, `range` loops of a fixed count), tried when the forms above do not compile.
@jit.rawkernel()
def block_sum_jit_plain(x, out, n):
    sdata = jit.shared_memory(cp.float32, 256)
    t = jit.threadIdx.x
    i = jit.blockIdx.x * jit.blockDim.x + t
    if i < n:
        sdata[t] = x[i]
    else:
        sdata[t] = cp.float32(0)
    jit.syncthreads()
    for level in range(8):
        s = cp.uint32(128) >> cp.uint32(level)
        if t < s:
            sdata[t] = sdata[t] + sdata[t + s]
        jit.syncthreads()
    if t == 0:
        out[jit.blockIdx.x] = sdata[0]


@jit.rawkernel()
def matmul_tiled_jit(a, b, c, m, k, n):
    ta = jit.shared_memory(cp.float32, 256)
    tb = jit.shared_memory(cp.float32, 256)
    tx = jit.threadIdx.x
    ty = jit.threadIdx.y
    row = jit.blockIdx.y * 16 + ty
    col = jit.blockIdx.x * 16 + tx
    acc = cp.float32(0)
    for t0 in range(0, k, 16):
        va = cp.float32(0)
        if row < m and t0 + tx < k:
            va = a[row * k + t0 + tx]
        ta[ty * 16 + tx] = va
        vb = cp.float32(0)
        if t0 + ty < k and col < n:
            vb = b[(t0 + ty) * n + col]
        tb[ty * 16 + tx] = vb
        jit.syncthreads()
        for j in range(16):
            acc += ta[ty * 16 + j] * tb[j * 16 + tx]
        jit.syncthreads()
    if row < m and col < n:
        c[row * n + col] = acc


@jit.rawkernel()
def matmul_tiled_jit_plain(a, b, c, m, k, n):
    ta = jit.shared_memory(cp.float32, 256)
    tb = jit.shared_memory(cp.float32, 256)
    tx = jit.threadIdx.x
    ty = jit.threadIdx.y
    row = jit.blockIdx.y * 16 + ty
    col = jit.blockIdx.x * 16 + tx
    acc = cp.float32(0)
    for tile in range(k // 16):
        t0 = tile * 16
        ta[ty * 16 + tx] = a[row * k + t0 + tx]
        tb[ty * 16 + tx] = b[(t0 + ty) * n + col]
        jit.syncthreads()
        for j in range(16):
            acc = acc + ta[ty * 16 + j] * tb[j * 16 + tx]
        jit.syncthreads()
    c[row * n + col] = acc


BLOCK_SUM = r"""
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
"""
TILED_MATMUL = r"""
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
"""


def jit_row(R, name, *forms):
    """A cupyx.jit row: the first form the installed cupyx.jit compiles is timed; when none
    does, each form's error is reported, not fatal."""
    for f in forms:
        try:
            R.rep(name, bench(f))
            return
        except Exception as e:  # noqa: BLE001 (an anchor reports what it cannot time)
            print(f"{name:40}  cupyx.jit failed: {type(e).__name__}: {str(e)[:300]}", flush=True)


R = Report()
for p in (20, 26):
    n = 1 << p
    x = cp.random.random(n, dtype=cp.float32)
    y = cp.random.random(n, dtype=cp.float32)
    out = cp.empty(n, dtype=cp.float32)
    threads = 256
    blocks = (n + threads - 1) // threads
    a = cp.float32(2.0)
    size = cp.uint32(n)
    R.rep(f"saxpy jit f32 2^{p}", bench(lambda: saxpy_jit((blocks,), (threads,), (a, x, y, out, size))))
    R.rep(f"saxpy RawKernel f32 2^{p}", bench(lambda: saxpy_raw((blocks,), (threads,), (a, x, y, out, cp.int32(n)))))
    assert cp.allclose(out, 2 * x + y)

n = 1 << 26
x = cp.random.random(n, dtype=cp.float32)
blocks = n // 256
out = cp.empty(blocks, dtype=cp.float32)
jit_row(R, "block_sum jit f32 2^26", lambda: block_sum_jit((blocks,), (256,), (x, out, cp.uint32(n))),
        lambda: block_sum_jit_plain((blocks,), (256,), (x, out, cp.uint32(n))))
bs = cp.RawKernel(BLOCK_SUM, "block_sum")
R.rep("block_sum RawKernel f32 2^26", bench(lambda: bs((blocks,), (256,), (x, out, cp.int32(n)), shared_mem=256 * 4)))

side = 2048
a = cp.random.random(side * side, dtype=cp.float32)
b = cp.random.random(side * side, dtype=cp.float32)
c = cp.empty(side * side, dtype=cp.float32)
grid = (side // 16, side // 16)
sz = cp.int32(side)
# cupyx.jit types the thread indices uint32: the sizes are uint32 too, so that no index
# expression mixes signed and unsigned (which cupyx.jit refuses to assign).
usz = cp.uint32(side)
jit_row(R, f"matmul tiled jit f32 {side}", lambda: matmul_tiled_jit(grid, (16, 16), (a, b, c, usz, usz, usz)),
        lambda: matmul_tiled_jit_plain(grid, (16, 16), (a, b, c, usz, usz, usz)))
mm = cp.RawKernel(TILED_MATMUL, "matmul_tiled")
R.rep(f"matmul tiled RawKernel f32 {side}", bench(lambda: mm(grid, (16, 16), (a, b, c, sz, sz, sz))))

x = cp.random.random(n, dtype=cp.float32)
y = cp.empty(n, dtype=cp.float32)
lr = cp.ElementwiseKernel("T x, T alpha", "T y", "y = x > (T)0 ? x : alpha * x", "leaky_relu")
R.rep("leaky_relu ElementwiseKernel f32 2^26", bench(lambda: lr(x, cp.float32(0.1), y)))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_rust_kernels.json")
