"""CuPy anchor for xp's graph rows: a chain of 20 small ops (1,000 float32 elements each:
multiply, add a scalar, sine, subtract, five times) issued one by one, and the same chain
captured with `stream.begin_capture()` / `end_capture()` and replayed with `graph.launch()`;
host time per op, the stream synchronised after each round of 500 repeats, median of 7,
under the names the bench binary prints (`XP_BENCH_ONLY=graphs`)."""
import sys, time
import cupy as cp
from anchor import Report

R = Report()
x = cp.arange(1000, dtype=cp.float32) * cp.float32(0.001)
c = x + cp.float32(0.5)


def chain():
    y = x
    for k in range(20):
        if k % 4 == 0:
            y = y * c
        elif k % 4 == 1:
            y = y + cp.float32(0.125)
        elif k % 4 == 2:
            y = cp.sin(y)
        else:
            y = y - x
    return y


s = cp.cuda.Stream(non_blocking=True)
with s:
    chain()  # compiles the kernels before the capture
    s.synchronize()
    s.begin_capture()
    y = chain()
    g = s.end_capture()
    g.upload(s)


def per_op(round_):
    with s:
        for _ in range(50):
            round_()
        s.synchronize()
        us = []
        for _ in range(7):
            t0 = time.perf_counter()
            for _ in range(500):
                round_()
            s.synchronize()
            us.append((time.perf_counter() - t0) / (500 * 20) * 1e6)
    us.sort()
    return us[3]


eager = per_op(chain)
replay = per_op(lambda: g.launch(s))
with s:
    same = bool(cp.array_equal(y, chain()))
print(f"chain of 20 ops on 1000 elements: one by one {eager:.2f} us per op, graph replay {replay:.2f} us per op "
      f"({eager / replay:.1f}x; replay {'matches' if same else 'MISMATCH'})")
R.res["chain of 20 ops 1000, one by one (host-timed per op, us)"] = eager
R.res["chain of 20 ops 1000, graph replay (host-timed per op, us)"] = replay
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_graphs.json")
