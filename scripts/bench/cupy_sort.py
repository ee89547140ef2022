"""CuPy anchor for xp's sorting, searching and binning workloads that cupy_side_by_side.py lacks (the
names the bench binary prints)."""
import sys
import cupy as cp
from anchor import bench, Report

R = Report()
s = cp.random.random(1 << 26, dtype=cp.float32)
u = (s[: 1 << 24] * 1e6).astype(cp.int32)
R.rep("unique int32 2^24", bench(lambda: cp.unique(u), reps=10))
hay = cp.sort(s[: 1 << 20])
needles = s[: 1 << 24]
R.rep("searchsorted 2^24 into 2^20", bench(lambda: cp.searchsorted(hay, needles), reps=10))
rows = s[: 1 << 24].reshape(1 << 14, 1024)
R.rep("sort f32 axis -1 of 2^14 x 1024", bench(lambda: cp.sort(rows, axis=-1), reps=10))
bi = (s[: 1 << 24] * 1024).astype(cp.int32)
R.rep("bincount int32 2^24 into 1024 bins", bench(lambda: cp.bincount(bi, minlength=1024)))
R.rep("histogram f32 2^26, 256 bins", bench(lambda: cp.histogram(s, bins=256, range=(0.0, 1.0))))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_sort.json")
