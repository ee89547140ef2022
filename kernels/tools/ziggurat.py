"""Tables of the 256-layer ziggurat for the standard normal (Marsaglia and Tsang, "The
Ziggurat Method for Generating Random Variables", J. Stat. Software 5(8), 2000, with
Doornik's separation of the layer bits from the uniform, 2005) for kernels/include/xp_random.h,
computed with mpmath at 50 digits.

f(x) = exp(-x^2 / 2). The base layer (the rectangle [0, r] x [0, f(r)] and the tail past r) and
the 255 rectangles above it all have area v; r is solved so that the top rectangle ends at
f(0) = 1 exactly. Layer i (1 = top, 255 = just above the base) has width x_i, and spans
[f(x_i), f(x_{i-1})] (x_0 = 0); the base's width is q = v / f(r). With a 52-bit uniform
integer U, a draw in layer i is U w_i, w_i = x_i / 2^52, accepted at once when U < k_i,
k_i = floor(2^52 x_{i-1} / x_i) (the part of the layer under the curve everywhere); the base
accepts when U < 2^52 r / q. The float form (float32 draws by rejection) does the same with a
23-bit U from one 32-bit word: w_i = x_i / 2^23 rounded to float, k_i = floor(2^23 x_{i-1} / x_i).
Run: python3 kernels/tools/ziggurat.py
"""
import mpmath as mp
import numpy

mp.mp.dps = 50
N = 256
f = lambda x: mp.exp(-x * x / 2)
finv = lambda y: mp.sqrt(-2 * mp.log(y))
tail = lambda r: mp.sqrt(mp.pi / 2) * mp.erfc(r / mp.sqrt(2))


def top(r):
    """y at the top of the last rectangle, minus 1, for base width r."""
    v = r * f(r) + tail(r)
    x, y = r, f(r)
    for _ in range(N - 1):
        y = y + v / x
        if y >= 1:
            return y - 1  # overshoot: r too small
        x = finv(y)
    return y - 1


def main():
    r = mp.findroot(top, (mp.mpf("3.65"), mp.mpf("3.66")), solver="secant")
    v = r * f(r) + tail(r)
    xs = [mp.mpf(0)] * N  # xs[i]: width of layer i (i = 1..255); xs[0] the base's q
    x, y = r, f(r)
    xs[N - 1] = r
    for i in range(N - 2, 0, -1):
        y = y + v / x
        x = finv(y)
        xs[i] = x
    q = v / f(r)
    m = mp.mpf(2) ** 52
    k = [int(mp.floor(m * r / q))] + [0] + [int(mp.floor(m * xs[i - 1] / xs[i])) for i in range(2, N)]
    w = [q / m] + [xs[i] / m for i in range(1, N)]
    fv = [mp.mpf(1)] + [f(xs[i]) for i in range(1, N)]
    print(f"// r = {mp.nstr(r, 20)}, v = {mp.nstr(v, 20)}, top residual {mp.nstr(top(r), 5)}")
    print(f"#define XP_ZIG_R {float(r)!r}")
    print("XP_ZIG_TABLE(xp::u64, XP_ZIG_K) = {" + ", ".join(f"{v}ull" for v in k) + "};")
    print("XP_ZIG_TABLE(double, XP_ZIG_W) = {" + ", ".join(repr(float(v)) for v in w) + "};")
    print("XP_ZIG_TABLE(double, XP_ZIG_F) = {" + ", ".join(repr(float(v)) for v in fv) + "};")
    m23 = mp.mpf(2) ** 23
    k23 = [int(mp.floor(m23 * r / q))] + [0] + [int(mp.floor(m23 * xs[i - 1] / xs[i])) for i in range(2, N)]
    w23 = [q / m23] + [xs[i] / m23 for i in range(1, N)]
    print("XP_ZIG_TABLE(xp::u32, XP_ZIGF_K) = {" + ", ".join(f"{v}u" for v in k23) + "};")
    print("XP_ZIG_TABLE(float, XP_ZIGF_W) = {" + ", ".join(f"{float(numpy.float32(float(v))):.9g}f" for v in w23) + "};")


if __name__ == "__main__":
    main()
