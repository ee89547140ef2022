"""SciPy (CPU) anchor for `xp::ndimage`, under the names the bench binary prints on the CPU
(`XP_DEVICE=cpu XP_BENCH_ONLY=ndimage`): 2048² float32 images, uniform random values."""
import sys
import numpy as np
from scipy import ndimage as ndi
from numpy_anchor import bench, Report

R = Report()
rs = np.random.RandomState(61)
S = 2048
a = rs.random_sample((S, S)).astype(np.float32)
R.rep(f"ndimage.gaussian_filter {S}^2 sigma=4", bench(lambda: ndi.gaussian_filter(a, 4.0), reps=5))
R.rep(f"ndimage.uniform_filter {S}^2 size=9", bench(lambda: ndi.uniform_filter(a, 9), reps=5))
R.rep(f"ndimage.sobel {S}^2 axis=0", bench(lambda: ndi.sobel(a, 0), reps=5))
for size in (3, 5):
    R.rep(f"ndimage.median_filter 2048^2 size={size}", bench(lambda: ndi.median_filter(a, size), reps=5))
R.rep("ndimage.zoom 2048^2->4096^2 order=3", bench(lambda: ndi.zoom(a, 2.0, order=3), reps=5))
coords = (rs.random_sample((2, 1 << 22)) * 2047.0).astype(np.float32)
for order in (1, 3):
    R.rep(f"ndimage.map_coordinates order={order} 2^22 points",
          bench(lambda: ndi.map_coordinates(a, coords, order=order), reps=5))
mask = a > 0.5
R.rep(f"ndimage.label {S}^2 random", bench(lambda: ndi.label(mask), reps=5))
R.rep(f"ndimage.binary_erosion {S}^2 3x3", bench(lambda: ndi.binary_erosion(mask), reps=5))
bmask = a > 0.1
R.rep("ndimage.distance_transform_edt 2048^2", bench(lambda: ndi.distance_transform_edt(bmask), reps=5))

if len(sys.argv) > 1:
    R.dump(sys.argv[1])
