"""CuPy anchor for xp's FFT workloads on a GPU (the names the bench binary prints)."""
import sys, time
import cupy as cp
from anchor import bench, Report

R = Report()

rng = cp.random.default_rng(0)
def cplx(n):
    return (rng.random(n, dtype=cp.float32) + 1j * rng.random(n, dtype=cp.float32)).astype(cp.complex64)

x = cplx(1 << 24)
R.rep("fft c64 2^24", bench(lambda: cp.fft.fft(x)))
img = rng.random((4096, 4096), dtype=cp.float32)
R.rep("rfft? fft2 f32->c64 4096^2", bench(lambda: cp.fft.fft2(img)))
xr = rng.random(1 << 24, dtype=cp.float32)
R.rep("rfft f32 2^24", bench(lambda: cp.fft.rfft(xr)))
h = cp.fft.rfft(xr)
R.rep("irfft c64->f32 2^24", bench(lambda: cp.fft.irfft(h)))
b = cplx(1024 * 16384).reshape(16384, 1024)
R.rep("fft c64 batched 16384 x 1024", bench(lambda: cp.fft.fft(b)))
v = cplx(256 ** 3).reshape(256, 256, 256)
R.rep("fftn c64 256^3", bench(lambda: cp.fft.fftn(v)))
small = cplx(1024)
for _ in range(100):
    cp.fft.fft(small)
cp.cuda.Device().synchronize()
us = []
for _ in range(5):
    t0 = time.perf_counter()
    for _ in range(2000):
        cp.fft.fft(small)
    cp.cuda.Device().synchronize()
    us.append((time.perf_counter() - t0) / 2000 * 1e6)
us.sort()
print(f"fft c64 1024, cached plan, host time per call: {us[2]:.2f} us")
R.res["fft c64 1024 cached plan (host-timed per call, us)"] = us[2]
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_fft.json")
