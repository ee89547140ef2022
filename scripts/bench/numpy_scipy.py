"""SciPy (CPU) anchor for xp's SciPy modules, under the names the bench binary prints on the
CPU (`XP_DEVICE=cpu XP_BENCH_ONLY=scipy`)."""
import sys
import numpy as np
import scipy.fft as sfft
import scipy.interpolate as si
from scipy.spatial import distance as sd
from numpy_anchor import bench, Report

R = Report()
rs = np.random.RandomState(7)
xa = rs.random_sample((2048, 64)).astype(np.float32)
xb = rs.random_sample((2048, 64)).astype(np.float32)
R.rep("cdist 2048x2048x64 euclidean f32 (scipy)", bench(lambda: sd.cdist(xa, xb, "euclidean")))
x = np.linspace(0.0, 10.0, 1000)
s = si.CubicSpline(x, np.sin(x))
xq = rs.random_sample(1 << 22) * 10.0
R.rep("CubicSpline eval 2^22 points (scipy)", bench(lambda: s(xq)))
v = rs.random_sample(1 << 22).astype(np.float32)
R.rep("dct f32 2^22 (scipy)", bench(lambda: sfft.dct(v)))

if len(sys.argv) > 1:
    R.dump(sys.argv[1])
