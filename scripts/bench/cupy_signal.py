"""CuPy anchor for xp's `scipy.signal` beyond convolution (`cupyx.scipy.signal`), under the
names the bench binary prints (`XP_BENCH_ONLY=scipy_signal`): IIR filters designed by
`butter` (Wn = 0.25) with float32 or float64 coefficients along the last axis, spectral
estimates, polyphase resampling, peaks and the 2-d median filter, on float32 signals."""
import sys
import cupy as cp
import cupyx.scipy.signal as cs
from anchor import bench, Report

R = Report()
rs = cp.random.RandomState(7)


def ba(order, dtype):
    b, a = cs.butter(order, 0.25)
    return cp.asarray(b, dtype=dtype), cp.asarray(a, dtype=dtype)


x = rs.random_sample(1 << 24).astype(cp.float32)
for dt, tag in ((cp.float32, "f32"), (cp.float64, "f64")):
    b, a = ba(4, dt)
    xd = x.astype(dt)
    R.rep(f"lfilter butter4 {tag} 2^24", bench(lambda: cs.lfilter(b, a, xd), warm=2, reps=10))
b, a = ba(4, cp.float32)
xb = rs.random_sample((1024, 16384)).astype(cp.float32)
R.rep("lfilter butter4 f32 1024x16384", bench(lambda: cs.lfilter(b, a, xb, axis=-1), warm=2, reps=10))
del xb

x = rs.random_sample((64, 1 << 20)).astype(cp.float32)
b, a = ba(8, cp.float32)
sos = cp.asarray(cs.butter(8, 0.25, output="sos"), dtype=cp.float32)
R.rep("lfilter butter8 f32 64x2^20", bench(lambda: cs.lfilter(b, a, x, axis=-1), warm=2, reps=10))
R.rep("sosfilt butter8 f32 64x2^20", bench(lambda: cs.sosfilt(sos, x, axis=-1), warm=2, reps=10))
R.rep("sosfiltfilt butter8 f32 64x2^20", bench(lambda: cs.sosfiltfilt(sos, x, axis=-1), warm=2, reps=10))
del x

v = rs.random_sample(1 << 26).astype(cp.float32)
R.rep("welch f32 2^26 nperseg=1024", bench(lambda: cs.welch(v, nperseg=1024), warm=2, reps=10))
del v
v = rs.random_sample(1 << 24).astype(cp.float32)
R.rep("stft f32 2^24 nperseg=256", bench(lambda: cs.stft(v, nperseg=256), warm=2, reps=10))
R.rep("resample_poly 3/2 f32 2^24", bench(lambda: cs.resample_poly(v, 3, 2), warm=2, reps=10))
R.rep("find_peaks f32 2^24", bench(lambda: cs.find_peaks(v), warm=2, reps=10))
m = rs.random_sample((4096, 4096)).astype(cp.float32)
R.rep("medfilt2d f32 4096^2 k=5", bench(lambda: cs.medfilt2d(m, 5), warm=2, reps=10))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_signal.json")
