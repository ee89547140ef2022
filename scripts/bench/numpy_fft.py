"""NumPy (pocketfft) anchor for xp's FFT workloads on the CPU (the names the bench binary
prints). Median of 7 repeats after one warm-up, ms."""
import json, sys, time
import numpy as np

def bench(f, reps=7):
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); ts.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(ts))

res = {}
def rep(name, ms):
    res[name] = ms
    print(f"{name:40} {ms:10.4f} ms", flush=True)

rng = np.random.default_rng(0)
x = (rng.random(1 << 20) + 1j * rng.random(1 << 20)).astype(np.complex64)
rep("fft c64 2^20", bench(lambda: np.fft.fft(x)))
xr = rng.random(1 << 20)
rep("rfft f64 2^20", bench(lambda: np.fft.rfft(xr)))
m = (rng.random((1024, 1024)) + 1j * rng.random((1024, 1024))).astype(np.complex64)
rep("fft2 c64 1024^2", bench(lambda: np.fft.fft2(m)))
small = x[:1024].copy()
t0 = time.perf_counter()
for _ in range(20000):
    np.fft.fft(small)
us = (time.perf_counter() - t0) / 20000 * 1e6
print(f"fft c64 1024, cached plan, host time per call: {us:.2f} us")
res["fft c64 1024 cached plan (host-timed per call, us)"] = us
json.dump(res, open(sys.argv[1] if len(sys.argv) > 1 else "/tmp/numpy_fft.json", "w"), indent=1)
