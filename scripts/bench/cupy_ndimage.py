"""CuPy anchor for `xp::ndimage` (`cupyx.scipy.ndimage`), under the names the bench binary
prints on GPUs (`XP_BENCH_ONLY=ndimage`): float32 images of uniform random values at the
issue's sizes (4096² for the filters, labelling and erosion; 2048² for the median filter,
zoom and the distance transform; 2^24 points for map_coordinates)."""
import sys
import cupy as cp
import cupyx.scipy.ndimage as cnd
from anchor import bench, Report

R = Report()
rs = cp.random.RandomState(61)
B = 4096
a = rs.random_sample((B, B), dtype=cp.float32)
R.rep(f"ndimage.gaussian_filter {B}^2 sigma=4", bench(lambda: cnd.gaussian_filter(a, 4.0), reps=10))
R.rep(f"ndimage.uniform_filter {B}^2 size=9", bench(lambda: cnd.uniform_filter(a, 9), reps=10))
R.rep(f"ndimage.sobel {B}^2 axis=0", bench(lambda: cnd.sobel(a, 0), reps=10))
b = rs.random_sample((2048, 2048), dtype=cp.float32)
for size in (3, 5):
    R.rep(f"ndimage.median_filter 2048^2 size={size}", bench(lambda: cnd.median_filter(b, size), reps=10))
R.rep("ndimage.zoom 2048^2->4096^2 order=3", bench(lambda: cnd.zoom(b, 2.0, order=3), reps=10))
coords = rs.random_sample((2, 1 << 24), dtype=cp.float32) * 2047.0
for order in (1, 3):
    R.rep(f"ndimage.map_coordinates order={order} 2^24 points",
          bench(lambda: cnd.map_coordinates(b, coords, order=order), reps=10))
del coords
mask = a > 0.5
R.rep(f"ndimage.label {B}^2 random", bench(lambda: cnd.label(mask), reps=10))
R.rep(f"ndimage.binary_erosion {B}^2 3x3", bench(lambda: cnd.binary_erosion(mask), reps=10))
bmask = b > 0.1
R.rep("ndimage.distance_transform_edt 2048^2", bench(lambda: cnd.distance_transform_edt(bmask), reps=10))

if len(sys.argv) > 1:
    R.dump(sys.argv[1])
