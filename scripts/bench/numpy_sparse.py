"""SciPy anchor for xp's CPU sparse workloads: a random CSR matrix of 2^18 rows and 2^22
nonzeros built from COO, and its product with a vector."""
import sys
import numpy as np
import scipy.sparse as sp
from numpy_anchor import bench, Report

R = Report()
m, nnz = 1 << 18, 1 << 22
rng = np.random.default_rng(0)
rows = rng.integers(0, m, nnz, dtype=np.int32)
cols = rng.integers(0, m, nnz, dtype=np.int32)
vals = rng.random(nnz, dtype=np.float32)
R.rep("coo->csr 2^22", bench(lambda: sp.coo_matrix((vals, (rows, cols)), shape=(m, m)).tocsr(), reps=5))
a = sp.coo_matrix((vals, (rows, cols)), shape=(m, m)).tocsr()
x = rng.random(m, dtype=np.float32)
R.rep("spmv csr f32 random 2^18 rows, 2^22 nnz", bench(lambda: a @ x))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/numpy_sparse.json")
