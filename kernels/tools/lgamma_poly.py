"""Polynomial for the float32 loop of gammaln in kernels/include/xp_special_gamma.h, computed
with mpmath at 50 digits.

On [1.5, 2.5], log Gamma(2 + z) = z g(z) with g smooth on z in [-0.5, 0.5] (g(0) = 1 - Euler's
gamma); its nearest singularity is the pole at z = -2, so a Chebyshev series in t = 2z gains
almost a digit per term. The series is cut where its terms fall below 1e-9 of g (far below a
float's ulp) and turned into a polynomial in z (Horner's form), then checked in float64
arithmetic against mpmath on a dense grid. Run: python3 kernels/tools/lgamma_poly.py
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 50
N = 60


def g(z):
    z = mp.mpf(z)
    if z == 0:
        return 1 - mp.euler
    return mp.loggamma(2 + z) / z


def main():
    nodes = [mp.cos(mp.pi * (j + mp.mpf(1) / 2) / N) for j in range(N)]
    vals = [g(t / 2) for t in nodes]
    c = []
    for k in range(N):
        s = mp.fsum(vals[j] * mp.cos(mp.pi * k * (j + mp.mpf(1) / 2) / N) for j in range(N))
        c.append(2 * s / N)
    c[0] /= 2
    keep = [k for k in range(N) if abs(c[k]) > mp.mpf("1e-9") * abs(c[0])]
    deg = max(keep)
    # sum c_k T_k(2z) as a polynomial in z, exactly (mpmath), then rounded to doubles
    poly = [mp.mpf(0)] * (deg + 1)  # coefficients of z^j
    tprev, tcur = [mp.mpf(1)], [mp.mpf(0), mp.mpf(2)]  # T0, T1 in z
    basis = [tprev, tcur]
    for k in range(2, deg + 1):
        nxt = [mp.mpf(0)] * (k + 1)
        for j, v in enumerate(basis[-1]):
            nxt[j + 1] += 4 * v
        for j, v in enumerate(basis[-2]):
            nxt[j] -= v
        basis.append(nxt)
    for k in range(deg + 1):
        for j, v in enumerate(basis[k]):
            poly[j] += c[k] * v
    coef = [float(v) for v in poly]
    worst = 0.0
    for z in np.linspace(-0.5, 0.5, 20001):
        acc = 0.0
        for a in reversed(coef):
            acc = acc * z + a
        exact = mp.loggamma(2 + mp.mpf(z))
        if z != 0:
            worst = max(worst, float(abs((z * acc - exact) / exact)))
    print(f"degree {deg}, worst relative error of log Gamma(2 + z) on [-0.5, 0.5]: {worst:.2e}")
    print(", ".join(f"{v:.17e}" for v in coef))


if __name__ == "__main__":
    main()
