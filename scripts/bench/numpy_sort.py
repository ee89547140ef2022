"""NumPy anchor for xp's CPU sorting workloads that numpy_side_by_side.py lacks."""
import sys
import numpy as np
from numpy_anchor import bench, Report

R = Report()
a = np.random.default_rng(0).random(1 << 22, dtype=np.float32)
R.rep("sort f32 2^22", bench(lambda: np.sort(a), reps=10))
R.rep("argsort f32 2^22", bench(lambda: np.argsort(a, kind="stable"), reps=10))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/numpy_sort.json")
