"""CuPy anchor for xp's SciPy modules (`cupyx.scipy.spatial`, `.interpolate`, `.fft`), under
the names the bench binary prints (`XP_BENCH_ONLY=scipy`)."""
import sys
import cupy as cp
import cupyx.scipy.fft as cfft
import cupyx.scipy.interpolate as ci
import cupyx.scipy.spatial as cs
from cupyx.scipy.spatial import distance as cd
from anchor import bench, Report

R = Report()


def rep(name, f, **kw):
    """Times `f` unless CuPy lacks what it needs (cdist and pdist need cuVS or pylibraft)."""
    try:
        R.rep(name, bench(f, **kw))
    except (RuntimeError, ImportError) as e:
        print(f"{name:40} unavailable: {e}", flush=True)


rs = cp.random.RandomState(7)
xa = rs.random_sample((8192, 64), dtype=cp.float32)
xb = rs.random_sample((8192, 64), dtype=cp.float32)
rep("cdist 8192x8192x64 euclidean f32", lambda: cd.cdist(xa, xb, "euclidean"), reps=10)
rep("pdist 8192x64 euclidean f32", lambda: cd.pdist(xa, "euclidean"), reps=10)
# Without cuVS/pylibraft CuPy has no cdist; PyTorch's, on the same arrays (DLPack, no copy), is
# the stand-in: its default (matrix products for large inputs) and its exact pairwise form.
try:
    import torch

    ta, tb = torch.from_dlpack(xa), torch.from_dlpack(xb)
    rep("cdist 8192x8192x64 euclidean f32 (torch.cdist)", lambda: torch.cdist(ta, tb), reps=10)
    rep(
        "cdist 8192x8192x64 euclidean f32 (torch.cdist exact)",
        lambda: torch.cdist(ta, tb, compute_mode="donot_use_mm_for_euclid_dist"),
        reps=10,
    )
    rep("pdist 8192x64 euclidean f32 (torch.pdist)", lambda: torch.nn.functional.pdist(ta), reps=10)
    del ta, tb
except ImportError as e:
    print(f"{'torch stand-in':40} unavailable: {e}", flush=True)
del xa, xb

x = cp.linspace(0.0, 10.0, 1000)
y = cp.sin(x)
xq = rs.random_sample(1 << 24) * 10.0
f = ci.interp1d(x, y)
rep("interp1d linear 2^24 points", lambda: f(xq))
s = ci.CubicSpline(x, y)
rep("CubicSpline eval 2^24 points", lambda: s(xq))
del xq

g = cp.linspace(0.0, 1.0, 512)
vals = rs.random_sample((512, 512, 512), dtype=cp.float64)
pts = rs.random_sample((1 << 22, 3))
rgi = ci.RegularGridInterpolator((g, g, g), vals)
rep("RegularGridInterpolator linear 512^3 2^22 points", lambda: rgi(pts), reps=10)
del vals, pts, rgi

d = rs.random_sample((1 << 20, 3))
q = rs.random_sample((1 << 20, 3))
try:
    tree = cs.KDTree(d)
    rep("KDTree query k=8 2^20 in 2^20", lambda: tree.query(q, k=8), warm=1, reps=5)
except (RuntimeError, ImportError) as e:
    print(f"{'KDTree query k=8 2^20 in 2^20':40} unavailable: {e}", flush=True)
del d, q

v = rs.random_sample(1 << 24, dtype=cp.float32)
rep("dct f32 2^24", lambda: cfft.dct(v))
m = rs.random_sample((4096, 4096), dtype=cp.float32)
rep("dctn f32 4096^2", lambda: cfft.dctn(m))

if len(sys.argv) > 1:
    R.dump(sys.argv[1])
