"""CuPy anchor for xp's product workloads that cupy_side_by_side.py lacks (the names the
bench binary prints)."""
import sys, time
import cupy as cp
from anchor import bench, Report

R = Report()

rng = cp.random.default_rng(0)
a = rng.random((10000, 32, 32), dtype=cp.float32)
b = rng.random((10000, 32, 32), dtype=cp.float32)
R.rep("matmul f32 batched 10000x(32x32)", bench(lambda: a @ b))
R.rep("einsum bij,bjk->bik f32 10000x(32x32)", bench(lambda: cp.einsum("bij,bjk->bik", a, b)))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_linalg.json")
