"""CuPy anchor for xp's sparse workloads (the names the bench binary prints): a random CSR
matrix of 2^20 rows and 2^24 nonzeros built from COO (rows and columns uniform), a banded one of
2^22 rows and 4 diagonals, their products with a vector and with 64 dense columns."""
import sys
import cupy as cp
import cupyx.scipy.sparse as sp
from anchor import bench, Report

R = Report()
m, nnz = 1 << 20, 1 << 24
rng = cp.random.default_rng(0)
rows = rng.integers(0, m, nnz, dtype=cp.int32)
cols = rng.integers(0, m, nnz, dtype=cp.int32)
vals = rng.random(nnz, dtype=cp.float32)
R.rep("coo->csr 2^24", bench(lambda: sp.coo_matrix((vals, (rows, cols)), shape=(m, m)).tocsr(), reps=10))
a = sp.coo_matrix((vals, (rows, cols)), shape=(m, m)).tocsr()
x = rng.random(m, dtype=cp.float32)
R.rep("spmv csr f32 random 2^20 rows, 2^24 nnz", bench(lambda: a @ x))
X = rng.random((m, 64), dtype=cp.float32)
R.rep("spmm csr f32 random 2^24 nnz, 64 columns", bench(lambda: a @ X, reps=10))
R.rep("spmv csr^T f32 random 2^24 nnz", bench(lambda: a.T @ x))
nb = 1 << 22
band = sp.diags([cp.ones(nb, cp.float32)] * 4, [-1, 0, 1, 2], shape=(nb, nb), format="csr", dtype=cp.float32)
xb = rng.random(nb, dtype=cp.float32)
R.rep("spmv csr f32 banded 2^22 rows, 4 diagonals", bench(lambda: band @ xb))
small = sp.coo_matrix((vals[: 1 << 20], (rows[: 1 << 20] >> 6, cols[: 1 << 20] >> 6)), shape=(m >> 6, m >> 6)).tocsr()
R.rep("spgemm csr f32 2^14 rows, 2^20 nnz, A @ A", bench(lambda: small @ small, reps=5))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_sparse.json")
