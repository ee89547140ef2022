"""CuPy anchor for xp's sparse workloads (the names the bench binary prints): a random CSR
matrix of 2^20 rows and 2^24 nonzeros built from COO (rows and columns uniform), a banded one of
2^22 rows and 4 diagonals, their products with a vector and with 64 dense columns; row slicing,
kron, connected_components, and the solvers cg, gmres, spsolve and eigsh on the 2-d Poisson
matrix of a 1024^2 grid."""
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
R.rep("csr row slice A[::2] f32 2^24 nnz", bench(lambda: a[::2], warm=2, reps=10))
k1 = sp.random(1000, 1000, density=0.01, format="csr", dtype=cp.float64, random_state=1)
k2 = sp.random(1000, 1000, density=0.01, format="csr", dtype=cp.float64, random_state=2)
R.rep("kron csr f64 1000^2 x 1000^2 density 0.01", bench(lambda: sp.kron(k1, k2, format="csr"), warm=1, reps=5))
import cupyx.scipy.sparse.csgraph as csgraph
nodes = 1 << 22
er = rng.integers(0, nodes, 2 * nodes, dtype=cp.int32)
ec = rng.integers(0, nodes, 2 * nodes, dtype=cp.int32)
graph = sp.coo_matrix((cp.ones(2 * nodes, cp.float32), (er, ec)), shape=(nodes, nodes)).tocsr()
try:
    R.rep("connected_components 2^22 nodes, 2^23 edges, weak",
          bench(lambda: csgraph.connected_components(graph, directed=True, connection="weak"), warm=1, reps=5))
except (RuntimeError, ImportError) as e:  # CuPy needs pylibcugraph for it
    print(f"{'connected_components 2^22 nodes, 2^23 edges, weak':40} unavailable: {e}", flush=True)

# The solvers on the 5-point Laplacian of a 1024^2 grid, float64, b = ones.
import cupyx.scipy.sparse.linalg as sla
side = 1024
t = sp.diags([cp.full(side, 2.0), cp.full(side - 1, -1.0), cp.full(side - 1, -1.0)], [0, 1, -1],
             shape=(side, side), format="csr", dtype=cp.float64)
eye = sp.identity(side, dtype=cp.float64, format="csr")
P = (sp.kron(t, eye, format="csr") + sp.kron(eye, t, format="csr")).tocsr()
rhs = cp.ones(side * side, dtype=cp.float64)


def tol_kw(v):
    """CuPy >= 13 names the relative tolerance rtol, older releases tol."""
    import inspect
    return {"rtol": v} if "rtol" in inspect.signature(sla.cg).parameters else {"tol": v}


R.rep("cg f64 poisson 1024^2 rtol 1e-8", bench(lambda: sla.cg(P, rhs, **tol_kw(1e-8)), warm=1, reps=3))
# GMRES(30) and the direct solve on a 256^2 grid (as the bench binary).
s2 = 256
t2 = sp.diags([cp.full(s2, 2.0), cp.full(s2 - 1, -1.0), cp.full(s2 - 1, -1.0)], [0, 1, -1],
              shape=(s2, s2), format="csr", dtype=cp.float64)
e2 = sp.identity(s2, dtype=cp.float64, format="csr")
P2 = (sp.kron(t2, e2, format="csr") + sp.kron(e2, t2, format="csr")).tocsr()
rhs2 = cp.ones(s2 * s2, dtype=cp.float64)
R.rep("gmres(30) f64 poisson 256^2 rtol 1e-8",
      bench(lambda: sla.gmres(P2, rhs2, restart=30, **tol_kw(1e-8)), warm=1, reps=3))
R.rep("spsolve f64 poisson 256^2", bench(lambda: sla.spsolve(P2, rhs2), warm=1, reps=3))
R.rep("eigsh k=6 f64 poisson 1024^2", bench(lambda: sla.eigsh(P, k=6), warm=1, reps=3))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_sparse.json")
