"""CuPy anchor for xp's lazy fusion workloads (chains of elementwise ops and the maps around
reductions), under the names the bench binary prints. CuPy runs each op as its own kernel;
`cupy.fuse` and `ElementwiseKernel` rows are the hand-fused forms."""
import sys
import cupy as cp
from anchor import bench, Report

R = Report()
x = cp.random.random(1 << 24, dtype=cp.float32)
R.rep("tanh(sin(x)+0.1*x) f32 2^24", bench(lambda: cp.tanh(cp.sin(x) + 0.1 * x)))
m = cp.random.random((4096, 4096), dtype=cp.float32)

def softmax(m):
    e = cp.exp(m - m.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

R.rep("softmax rows 4096^2 f32", bench(lambda: softmax(m)))
R.rep("(x-mean0)/std0 4096^2 f32", bench(lambda: (m - m.mean(axis=0, keepdims=True)) / m.std(axis=0, keepdims=True)))
a = cp.random.random(1 << 28, dtype=cp.float32)
b = cp.random.random(1 << 28, dtype=cp.float32)
R.rep("sum(x*x+2*y) f32 N=2^28", bench(lambda: cp.sum(a * a + 2 * b)))
del a, b
cp.get_default_memory_pool().free_all_blocks()

# CuPy's examples/finance/black_scholes.py, plain ops and its ElementwiseKernel form.
def black_scholes(s, x, t, r, v):
    sqrt_t = cp.sqrt(t)
    d1 = (cp.log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t

    def cdf(d):
        k = 1 / (1 + 0.2316419 * cp.abs(d))
        poly = ((((1.330274429 * k - 1.821255978) * k + 1.781477937) * k - 0.356563782) * k + 0.31938153) * k
        cnd = cp.exp(-0.5 * d * d) * 0.3989422804014327 * poly
        return cp.where(d > 0, 1 - cnd, cnd)

    c1, c2 = cdf(d1), cdf(d2)
    exp_rt = cp.exp(-r * t)
    return s * c1 - x * exp_rt * c2, x * exp_rt * (1 - c2) - s * (1 - c1)

n = 1 << 22
s = cp.random.random(n, dtype=cp.float32) * 25 + 5
k = cp.random.random(n, dtype=cp.float32) * 99 + 1
t = cp.random.random(n, dtype=cp.float32) * 9.75 + 0.25
R.rep("black-scholes f32 2^22 (plain ops)", bench(lambda: black_scholes(s, k, t, 0.02, 0.3)))
ek = cp.ElementwiseKernel("T s, T x, T t, T r, T v", "T call, T put", """
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;
    const T k1 = 1 / (1 + (T)0.2316419 * fabs(d1));
    const T k2 = 1 / (1 + (T)0.2316419 * fabs(d2));
    T c1 = (T)0.3989422804014327 * exp((T)-0.5 * d1 * d1) * (k1 * ((T)0.31938153 + k1 * ((T)-0.356563782 + k1 * ((T)1.781477937 + k1 * ((T)-1.821255978 + k1 * (T)1.330274429)))));
    T c2 = (T)0.3989422804014327 * exp((T)-0.5 * d2 * d2) * (k2 * ((T)0.31938153 + k2 * ((T)-0.356563782 + k2 * ((T)1.781477937 + k2 * ((T)-1.821255978 + k2 * (T)1.330274429)))));
    if (d1 > 0) c1 = 1 - c1;
    if (d2 > 0) c2 = 1 - c2;
    const T exp_rt = exp(-r * t);
    call = s * c1 - x * exp_rt * c2;
    put = x * exp_rt * (1 - c2) - s * (1 - c1);
""", "black_scholes")
co, po = cp.empty(n, cp.float32), cp.empty(n, cp.float32)
R.rep("black-scholes f32 2^22 (ElementwiseKernel)", bench(lambda: ek(s, k, t, cp.float32(0.02), cp.float32(0.3), co, po)))

# The seeds' masked Mandelbrot with smooth colouring.
def mandelbrot(width=2048, height=2048, max_iter=100):
    xs = cp.linspace(-2.0, 1.0, width, dtype=cp.float64)
    ys = cp.linspace(-1.5, 1.5, height, dtype=cp.float64)
    X, Y = cp.meshgrid(xs, ys, indexing="ij")
    C = X + 1j * Y
    Z = cp.zeros_like(C, dtype=cp.complex128)
    mat = cp.zeros(C.shape, dtype=cp.float64)
    mask = cp.ones(C.shape, dtype=bool)
    for n in range(max_iter):
        Z[mask] = Z[mask] * Z[mask] + C[mask]
        newly = (cp.abs(Z) > 2.0) & mask
        if newly.any():
            z_new = Z[newly]
            mat[newly] = n + 1 - cp.log(cp.log(cp.abs(z_new))) / cp.log(2.0)
            mask[newly] = False
        if not mask.any():
            break
    return mat

R.rep("mandelbrot masked 2048^2 100 iters (seed)", bench(mandelbrot, warm=1, reps=3))
R.dump(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cupy_fusion.json")
