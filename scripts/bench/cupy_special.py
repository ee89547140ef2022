"""CuPy anchor for xp's special functions and distributions (`cupyx.scipy.special`,
`cupy.random`), under the names the bench binary prints (`XP_BENCH_ONLY=special`): float32
maps of 2^26 elements, `logsumexp` over the rows of 4096^2, draws of 2^26 values."""
import sys
import cupy as cp
import cupyx.scipy.special as sp
from anchor import bench, Report

R = Report()
p = 26
n = 1 << p
x = cp.random.random(n, dtype=cp.float32) * 8 - 4
pos = cp.random.random(n, dtype=cp.float32) * 20 + cp.float32(0.01)
R.rep(f"special.erf f32 2^{p}", bench(lambda: sp.erf(x)))
R.rep(f"special.gammaln f32 2^{p}", bench(lambda: sp.gammaln(pos)))
R.rep(f"special.i0e f32 2^{p}", bench(lambda: sp.i0e(pos)))
m = cp.random.random((4096, 4096), dtype=cp.float32)
R.rep("special.logsumexp axis=1 f32 4096^2", bench(lambda: sp.logsumexp(m, axis=1)))
rs = cp.random.RandomState(1234)
R.rep(f"random.lognormal f32 2^{p}", bench(lambda: rs.lognormal(0.0, 1.0, size=n, dtype=cp.float32)))
R.rep(f"random.standard_gamma f32 2^{p}", bench(lambda: rs.standard_gamma(2.0, size=n, dtype=cp.float32)))
R.rep(f"random.standard_t f32 2^{p}", bench(lambda: rs.standard_t(5.0, size=n, dtype=cp.float32)))
R.rep(f"random.binomial int64 2^{p}", bench(lambda: rs.binomial(100, 0.3, size=n, dtype=cp.int64)))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_special.json")
