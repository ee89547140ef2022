"""Chebyshev coefficients of the modified Bessel functions I0, I1, K0, K1 for
kernels/include/xp_special_bessel.h, computed with mpmath at 50 digits.

Each function is split at a point into a finite interval and a tail, and on each piece a smooth
function of a variable t in [-1, 1] is expanded as f = c0/2 + sum_k c_k T_k(t) (Clenshaw's
form), kept to the terms above 1e-18 of the largest:

  I0:  [0, 8]  e^-x I0(x)              t = x/4 - 1      (8, inf)  e^-x I0(x) sqrt(x)  t = 16/x - 1
  I1:  [0, 8]  e^-x I1(x) / x          t = x/4 - 1      (8, inf)  e^-x I1(x) sqrt(x)  t = 16/x - 1
  K0:  (0, 2]  K0(x) + log(x/2) I0(x)  t = x^2/2 - 1    (2, inf)  e^x K0(x) sqrt(x)   t = 4/x - 1
  K1:  (0, 2]  x K1(x) - x log(x/2) I1(x)  t = x^2/2 - 1   (2, inf)  e^x K1(x) sqrt(x)  t = 4/x - 1

(the small-argument pieces of K are even functions of x, so smooth in x^2; at t = -1 the tails
are their limits at infinity: 1/sqrt(2 pi) for I, sqrt(pi/2) for K). Run:
python3 kernels/tools/bessel_cheb.py > coefficients.txt
"""
import mpmath as mp

mp.mp.dps = 50
N = 80  # nodes; far more than the terms kept


def cheb(f):
    nodes = [mp.cos(mp.pi * (j + mp.mpf(1) / 2) / N) for j in range(N)]
    vals = [f(t) for t in nodes]
    c = []
    for k in range(N):
        s = mp.fsum(vals[j] * mp.cos(mp.pi * k * (j + mp.mpf(1) / 2) / N) for j in range(N))
        c.append(2 * s / N)
    big = max(abs(v) for v in c)
    keep = max(k for k in range(N) if abs(c[k]) > big * mp.mpf("1e-18")) + 1
    return c[:keep]


def tail(g, a):
    # x = a / ((t + 1) / 2)... the tails use t = 2a/x - 1, x = 2a/(t+1); t = -1 is x = inf.
    def f(t):
        if t + 1 < mp.mpf("1e-40"):
            return g(mp.inf)
        return g(2 * a / (t + 1))
    return f


I0 = lambda x: mp.besseli(0, x)
I1 = lambda x: mp.besseli(1, x)
K0 = lambda x: mp.besselk(0, x)
K1 = lambda x: mp.besselk(1, x)
LIM_I = 1 / mp.sqrt(2 * mp.pi)
LIM_K = mp.sqrt(mp.pi / 2)

pieces = {
    "I0_SMALL": lambda t: mp.exp(-(4 * (t + 1))) * I0(4 * (t + 1)),
    "I0_LARGE": tail(lambda x: LIM_I if x == mp.inf else mp.exp(-x) * I0(x) * mp.sqrt(x), 8),
    "I1_SMALL": lambda t: (mp.mpf(1) / 2 if t == -1 else mp.exp(-(4 * (t + 1))) * I1(4 * (t + 1)) / (4 * (t + 1))),
    "I1_LARGE": tail(lambda x: LIM_I if x == mp.inf else mp.exp(-x) * I1(x) * mp.sqrt(x), 8),
    "K0_SMALL": lambda t: (lambda x: K0(x) + mp.log(x / 2) * I0(x))(mp.sqrt(2 * (t + 1)) if t > -1 else mp.mpf("1e-30")),
    "K0_LARGE": tail(lambda x: LIM_K if x == mp.inf else mp.exp(x) * K0(x) * mp.sqrt(x), 2),
    "K1_SMALL": lambda t: (lambda x: x * K1(x) - x * mp.log(x / 2) * I1(x))(mp.sqrt(2 * (t + 1)) if t > -1 else mp.mpf("1e-30")),
    "K1_LARGE": tail(lambda x: LIM_K if x == mp.inf else mp.exp(x) * K1(x) * mp.sqrt(x), 2),
}

for name, f in pieces.items():
    c = cheb(f)
    print(f"// {name}: {len(c)} terms")
    print(f"#define XP_BESSEL_{name} \\")
    body = ", ".join(mp.nstr(v, 20, min_fixed=1, max_fixed=0) for v in c)
    # One XP_CHEB step per coefficient, the highest first.
    steps = " ".join(f"XP_CHEB({mp.nstr(v, 20)})" for v in reversed(c))
    print("  " + steps)

# J and Y of orders 0 and 1 for x >= 8 (Hankel's form): with xi0 = x - pi/4, xi1 = x - 3 pi/4,
#   J_n = sqrt(2/(pi x)) (P_n cos xi_n - Q_n sin xi_n),  Y_n = sqrt(2/(pi x)) (P_n sin xi_n + Q_n cos xi_n),
# P_n and x Q_n are smooth functions of t = 128/x^2 - 1 (their limits at infinity: 1 and -1/8 or 3/8).


def pq(n):
    def parts(x):
        xi = x - (2 * n + 1) * mp.pi / 4
        s = mp.sqrt(mp.pi * x / 2)
        j, y = mp.besselj(n, x), mp.bessely(n, x)
        return s * (j * mp.cos(xi) + y * mp.sin(xi)), s * (y * mp.cos(xi) - j * mp.sin(xi))

    def x_of(t):
        return mp.sqrt(128 / (t + 1))

    lim_q = mp.mpf(-1) / 8 if n == 0 else mp.mpf(3) / 8
    p = lambda t: mp.mpf(1) if t + 1 < mp.mpf("1e-40") else parts(x_of(t))[0]
    q = lambda t: lim_q if t + 1 < mp.mpf("1e-40") else x_of(t) * parts(x_of(t))[1]
    return p, q


if __name__ == "__main__":
    for n in (0, 1):
        p, q = pq(n)
        for name, f in ((f"P{n}", p), (f"XQ{n}", q)):
            c = cheb(f)
            print(f"// {name}: {len(c)} terms")
            print(f"#define XP_BESSEL_{name} \\")
            print("  " + " ".join(f"XP_CHEB({mp.nstr(v, 20)})" for v in reversed(c)))
