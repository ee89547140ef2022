"""Shared timing for the CuPy anchor scripts of scripts/bench: device events around each
repeat after a warm-up, the median reported in ms under the bench binary's names."""
import json
import cupy as cp

def bench(f, warm=3, reps=20):
    for _ in range(warm):
        f()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); f(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    ts.sort()
    return ts[len(ts) // 2]

class Report:
    def __init__(self):
        self.res = {}

    def rep(self, name, ms):
        self.res[name] = ms
        print(f"{name:40} {ms:10.4f} ms", flush=True)

    def dump(self, path):
        json.dump(self.res, open(path, "w"), indent=1)
