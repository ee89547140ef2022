"""NumPy anchor for xp's lazy fusion workloads on the CPU (the names the bench binary prints)."""
import sys
import numpy as np
from numpy_anchor import bench, Report

R = Report()
rng = np.random.default_rng(0)
x = rng.random(1 << 24, dtype=np.float32)
y = rng.random(1 << 24, dtype=np.float32)
R.rep("x**2+2*y f32 2^24", bench(lambda: x**2 + 2 * y))
R.rep("tanh(sin(x)+0.1*x) f32 2^24", bench(lambda: np.tanh(np.sin(x) + 0.1 * x)))
m = rng.random((1024, 1024), dtype=np.float32)

def softmax(m):
    e = np.exp(m - m.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

R.rep("softmax rows 1024^2 f32", bench(lambda: softmax(m)))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/numpy_fusion.json")
