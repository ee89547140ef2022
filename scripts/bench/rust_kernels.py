"""CuPy anchor for xp's kernels written in Rust (`#[xp::rawkernel]`), under the names the bench
binary prints (`XP_BENCH_ONLY=rust_kernels`): the seeds' `saxpy_jit` as a `cupyx.jit.rawkernel`
and the same saxpy as a `RawKernel` string, timed with device events."""
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
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_rust_kernels.json")
