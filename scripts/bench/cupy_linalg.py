"""CuPy anchor for xp's product workloads that cupy_side_by_side.py lacks (the names the
bench binary prints). Device events, warm-up first, median of 20 repeats, ms."""
import json, sys
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

res = {}
def rep(name, ms):
    res[name] = ms
    print(f"{name:40} {ms:10.4f} ms", flush=True)

rng = cp.random.default_rng(0)
a = rng.random((10000, 32, 32), dtype=cp.float32)
b = rng.random((10000, 32, 32), dtype=cp.float32)
rep("matmul f32 batched 10000x(32x32)", bench(lambda: a @ b))
rep("einsum bij,bjk->bik f32 10000x(32x32)", bench(lambda: cp.einsum("bij,bjk->bik", a, b)))
json.dump(res, open(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_linalg.json", "w"), indent=1)
