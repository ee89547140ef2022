"""SciPy anchor for xp's CPU sparse workloads: a random CSR matrix of 2^18 rows and 2^22
nonzeros built from COO, and its product with a vector; cg, gmres and spsolve on the 2-d
Poisson matrix of a 512^2 grid."""
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
import scipy.sparse.linalg as sla
side = 512
t = sp.diags([np.full(side, 2.0), np.full(side - 1, -1.0), np.full(side - 1, -1.0)], [0, 1, -1],
             shape=(side, side), format="csr")
eye = sp.identity(side, format="csr")
P = (sp.kron(t, eye, format="csr") + sp.kron(eye, t, format="csr")).tocsr()
rhs = np.ones(side * side)
R.rep("cg f64 poisson 512^2 rtol 1e-8", bench(lambda: sla.cg(P, rhs, rtol=1e-8), reps=3))
# GMRES(30) and the direct solve on a 256^2 grid (as the bench binary).
s2 = 256
t2 = sp.diags([np.full(s2, 2.0), np.full(s2 - 1, -1.0), np.full(s2 - 1, -1.0)], [0, 1, -1],
              shape=(s2, s2), format="csr")
e2 = sp.identity(s2, format="csr")
P2 = (sp.kron(t2, e2, format="csr") + sp.kron(e2, t2, format="csr")).tocsr()
rhs2 = np.ones(s2 * s2)
R.rep("gmres(30) f64 poisson 256^2 rtol 1e-8", bench(lambda: sla.gmres(P2, rhs2, restart=30, rtol=1e-8), reps=3))
R.rep("spsolve f64 poisson 256^2", bench(lambda: sla.spsolve(P2, rhs2), reps=3))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/numpy_sparse.json")
