"""SciPy (CPU) anchor for xp's `scipy.signal` rows on the CPU, under the names the bench binary
prints there (`XP_DEVICE=cpu XP_BENCH_ONLY=scipy_signal`): order-8 Butterworth filtering of
8 float32 channels of 2^20 samples along the last axis, and `welch` of 2^24 samples."""
import sys
import numpy as np
import scipy.signal as ss
from numpy_anchor import bench, Report

R = Report()
rs = np.random.RandomState(7)
x = rs.random_sample((8, 1 << 20)).astype(np.float32)
b, a = ss.butter(8, 0.25)
b, a = b.astype(np.float32), a.astype(np.float32)
sos = ss.butter(8, 0.25, output="sos").astype(np.float32)
R.rep("lfilter butter8 f32 8x2^20 (scipy)", bench(lambda: ss.lfilter(b, a, x, axis=-1), reps=3))
R.rep("sosfilt butter8 f32 8x2^20 (scipy)", bench(lambda: ss.sosfilt(sos, x, axis=-1), reps=3))
R.rep("sosfiltfilt butter8 f32 8x2^20 (scipy)", bench(lambda: ss.sosfiltfilt(sos, x, axis=-1), reps=3))
v = rs.random_sample(1 << 24).astype(np.float32)
R.rep("welch f32 2^24 nperseg=1024 (scipy)", bench(lambda: ss.welch(v, nperseg=1024), reps=3))

if len(sys.argv) > 1:
    R.dump(sys.argv[1])
