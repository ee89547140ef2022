"""CuPy anchor for xp's product and solver workloads that cupy_side_by_side.py lacks or
times differently (the names the bench binary prints)."""
import sys, time
import cupy as cp
from anchor import bench, Report

R = Report()

rng = cp.random.default_rng(0)
a = rng.random((10000, 32, 32), dtype=cp.float32)
b = rng.random((10000, 32, 32), dtype=cp.float32)
R.rep("matmul f32 batched 10000x(32x32)", bench(lambda: a @ b))
R.rep("einsum bij,bjk->bik f32 10000x(32x32)", bench(lambda: cp.einsum("bij,bjk->bik", a, b)))
# The solvers (linalg.solve and svd are also in cupy_side_by_side.py, with its timing).
n = 1024
A = rng.random((n, n), dtype=cp.float32) + n * cp.eye(n, dtype=cp.float32)
bb = rng.random(n, dtype=cp.float32)
R.rep("linalg.solve f32 1024", bench(lambda: cp.linalg.solve(A, bb), reps=10))
M = rng.random((n, n), dtype=cp.float32)
R.rep("svd f32 1024", bench(lambda: cp.linalg.svd(M), warm=1, reps=3))
S = rng.random((2048, 2048), dtype=cp.float32)
S = S + S.T
R.rep("eigh f32 2048", bench(lambda: cp.linalg.eigh(S), warm=1, reps=3))
C = rng.random((2048, 2048), dtype=cp.float32) + 2048 * cp.eye(2048, dtype=cp.float32)
C = C @ C.T
R.rep("cholesky f32 2048", bench(lambda: cp.linalg.cholesky(C), warm=2, reps=10))
R.rep("inv f32 1024", bench(lambda: cp.linalg.inv(A), warm=2, reps=10))
B = rng.random((1000, 32, 32), dtype=cp.float32) + 32 * cp.eye(32, dtype=cp.float32)
R.rep("inv f32 batched 1000x(32x32)", bench(lambda: cp.linalg.inv(B), warm=2, reps=10))
# cupyx.scipy.linalg: solve_triangular of the upper triangle of a 4096 system (4096 right-hand
# sides) and expm of a 1024 float64 matrix of norm about 1 (as xp's rows).
import cupyx.scipy.linalg as csl
T = cp.triu(rng.random((4096, 4096), dtype=cp.float32) + 4096 * cp.eye(4096, dtype=cp.float32))
RHS = rng.random((4096, 4096), dtype=cp.float32)
R.rep("solve_triangular f32 4096, 4096 rhs", bench(lambda: csl.solve_triangular(T, RHS, lower=False), warm=2, reps=10))
E = rng.random((1024, 1024), dtype=cp.float64) / 1024
R.rep("expm f64 1024", bench(lambda: csl.expm(E), warm=1, reps=5))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_linalg.json")
