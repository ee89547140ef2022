#!/usr/bin/env python3
"""NumPy-made cases for the routines that the `routines` group of the shared generator lacks
(same format: CONFORMANCE.md beside generate.py), kept in tests/conformance-cases/ as cases
90001 and up of group `routines_extra`.

usage: routines_extra.py OUT_DIR   (needs ../shared/conformance/generate.py and numpy)

Routines with several results are answered as one array: `np.stack` of the results when
they share a shape and dtype, else `np.concatenate` of their ravels (the runner does the same).
"""
import os, sys, shutil
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "shared", "conformance"))
from generate import Gen  # noqa: E402


def flat(outs):
    return np.concatenate([np.asarray(o).ravel() for o in outs])


def main():
    out = sys.argv[1]
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    g = Gen(out, 20261123, "small")
    g.n = 90000
    G = "routines_extra"
    for dt in ["float32", "float64", "int64"]:
        x = g.arr((4, 6), dt)
        v = g.arr((24,), dt)
        mask = g.arr((4, 6), "bool")
        vals = g.arr((5,), dt)

        def place(x=x, mask=mask, vals=vals):
            y = x.copy(); np.place(y, mask, vals); return y
        g.try_case(G, "place", place, [x, mask, vals])
        g.try_case(G, "extract", lambda: np.extract(mask, x), [mask, x])

        def fill(x=x):
            y = x.copy(); np.fill_diagonal(y, 7); return y
        g.try_case(G, "fill_diagonal", fill, [x], kwargs={"val": 7})
        g.try_case(G, "fliplr", lambda: np.fliplr(x), [x])
        g.try_case(G, "flipud", lambda: np.flipud(x), [x])
        g.try_case(G, "split", lambda: np.stack(np.split(x, 3, axis=1)), [x], kwargs={"sections": 3, "axis": 1})
        g.try_case(G, "array_split", lambda: flat(np.array_split(v, 5)), [v], kwargs={"sections": 5, "axis": 0})
        g.try_case(G, "hsplit", lambda: np.stack(np.hsplit(x, 2)), [x], kwargs={"sections": 2})
        g.try_case(G, "vsplit", lambda: np.stack(np.vsplit(x, 2)), [x], kwargs={"sections": 2})
        c = x.reshape(2, 3, 4)
        g.try_case(G, "dsplit", lambda: np.stack(np.dsplit(c, 2)), [c], kwargs={"sections": 2})
        a2, b2, c1 = g.arr((2, 2), dt), g.arr((2, 3), dt), g.arr((5,), dt)
        g.try_case(G, "block", lambda: np.block([[a2, b2], [c1]]), [a2, b2, c1])
        col = g.arr((4, 1), dt)
        g.try_case(G, "broadcast_arrays", lambda: np.stack(np.broadcast_arrays(col, v[:6])), [col, v[:6].copy()])
        g.try_case(G, "unstack", lambda: np.stack(np.unstack(x, axis=1)), [x], kwargs={"axis": 1})
        for k in [-1, 0, 2]:
            g.try_case(G, "diagflat", lambda: np.diagflat(vals, k), [vals], kwargs={"k": k})
        z = np.concatenate([np.zeros(3, dt), v[:5], np.zeros(2, dt)])
        z[5] = 0
        for trim in ["fb", "f", "b"]:
            g.try_case(G, "trim_zeros", lambda: np.trim_zeros(z, trim), [z], kwargs={"trim": trim})
        g.try_case(G, "ediff1d", lambda: np.ediff1d(v), [v])
        if dt != "int64":
            g.try_case(G, "modf", lambda: np.stack(np.modf(v)), [v])
            g.try_case(G, "frexp_mantissa", lambda: np.frexp(v)[0], [v])
            g.try_case(G, "frexp_exponent", lambda: np.frexp(v)[1].astype(np.int32), [v])
            g.try_case(G, "isneginf", lambda: np.isneginf(g_special), [g_special := g.arr((33,), dt, "special")])
            g.try_case(G, "isposinf", lambda: np.isposinf(g_special), [g_special])
            xs = np.linspace(-2, 3, 17).astype(dt)
            ys = (0.5 * xs ** 3 - xs + 2 + 0.01 * g.arr((17,), dt)).astype(dt)
            for deg in [1, 3]:
                g.try_case(G, "polyfit", lambda: np.polyfit(xs, ys, deg), [xs, ys], kwargs={"deg": deg}, tol="rel:1e-6")
            q = [5, 50, 97.5]
            xn = g.arr((5, 9), dt, "special")
            g.try_case(G, "nanpercentile", lambda: np.nanpercentile(xn, q, axis=1), [xn], kwargs={"q": q, "axis": 1}, tol="rel:1e-6")
            g.try_case(G, "nanquantile", lambda: np.nanquantile(xn, 0.3, axis=0), [xn], kwargs={"q": 0.3, "axis": 0}, tol="rel:1e-6")
            g.try_case(G, "nanargmin", lambda: np.nanargmin(np.where(np.isnan(xn), 1.0, xn), axis=1), [np.where(np.isnan(xn), 1.0, xn).astype(dt)], kwargs={"axis": 1})
            g.try_case(G, "nancumprod", lambda: np.nancumprod(xn / 4, axis=1), [(xn / 4).astype(dt)], kwargs={"axis": 1}, tol="rel:1e-6")
        yv = g.arr((24,), dt, "positive")
        g.try_case(G, "divmod", lambda: np.stack(np.divmod(v, yv)), [v, yv])
        g.try_case(G, "array_equiv", lambda: np.array_equiv(x[:1], np.broadcast_to(x[:1], (3, 6))), [x[:1].copy(), np.broadcast_to(x[:1], (3, 6)).copy()])
        g.try_case(G, "array_equiv", lambda: np.array_equiv(x[:1], x), [x[:1].copy(), x])
        for meth in ["inverted_cdf", "averaged_inverted_cdf", "closest_observation"]:
            g.try_case(G, "quantile", lambda: np.quantile(x, [0.1, 0.5, 0.9], axis=1, method=meth), [x],
                       kwargs={"q": [0.1, 0.5, 0.9], "axis": 1, "method": meth}, tol="rel:1e-6")
        for mode, kw in [("linear_ramp", {"end_values": 2}), ("maximum", {}), ("minimum", {"stat_length": 2}),
                         ("mean", {}), ("median", {"stat_length": 3})]:
            npkw = {k: v for k, v in kw.items()}
            g.try_case(G, "pad", lambda: np.pad(x, ((1, 2), (3, 1)), mode=mode, **npkw), [x],
                       kwargs={"pad_width": [[1, 2], [3, 1]], "mode": mode, **kw}, tol="rel:1e-6")
        hx, hy = g.arr((200,), dt), g.arr((200,), dt)
        g.try_case(G, "histogram2d", lambda: np.histogram2d(hx, hy, bins=[5, 7])[0], [hx, hy], kwargs={"bins": [5, 7]})
        smp = np.stack([hx, hy, g.arr((200,), dt)], axis=1)
        g.try_case(G, "histogramdd", lambda: np.histogramdd(smp, bins=[3, 4, 2])[0], [smp], kwargs={"bins": [3, 4, 2]})
    for (n, k, m) in [(4, 0, None), (3, 1, 5), (5, -2, 3)]:
        kw = {"n": n, "k": k} | ({"m": m} if m is not None else {})
        g.try_case(G, "tril_indices", lambda: np.stack(np.tril_indices(n, k, m)).astype(np.int64), [], kwargs=kw)
        g.try_case(G, "triu_indices", lambda: np.stack(np.triu_indices(n, k, m)).astype(np.int64), [], kwargs=kw)
    g.try_case(G, "diag_indices", lambda: np.stack(np.diag_indices(4, 3)).astype(np.int64), [], kwargs={"n": 4, "ndim": 3})
    r_, c_ = np.array([1, 0, 2, 2], np.int64), np.array([3, 0, 1, 4], np.int64)
    g.try_case(G, "ravel_multi_index", lambda: np.ravel_multi_index((r_, c_), (3, 5)).astype(np.int64), [r_, c_], kwargs={"dims": [3, 5]})
    g.try_case(G, "ravel_multi_index", lambda: np.ravel_multi_index((r_, c_ + 3), (3, 5)), [r_, c_ + 3], kwargs={"dims": [3, 5]})
    fi = np.array([0, 7, 14, 9, 3], np.int64)
    g.try_case(G, "unravel_index", lambda: np.stack(np.unravel_index(fi, (3, 5))).astype(np.int64), [fi], kwargs={"shape": [3, 5]})
    bi = np.array([True, False, True, True])
    g.try_case(G, "ix_", lambda: flat(np.ix_(r_, bi)).astype(np.int64), [r_, bi])
    for p in [np.array([1.0, -6.0, 11.0, -6.0]), np.array([2.0, 0.0, 1.0, 0.0, 0.0]), np.array([0.0, 1.0, 2.0, 5.0])]:
        g.try_case(G, "roots", lambda: np.sort_complex(np.roots(p)).astype(np.complex128), [p], tol="rel:1e-9")
    zc = np.array([1 + 0j, 1 + 2j, -3 + 0j, 0 - 1e-30j], np.complex128)
    g.try_case(G, "iscomplex", lambda: np.iscomplex(zc), [zc])
    g.try_case(G, "isreal", lambda: np.isreal(zc), [zc])
    g.try_case(G, "iscomplex", lambda: np.iscomplex(fi), [fi])
    xp_, fp_ = np.array([190.0, -190.0, 350.0, -350.0]), np.array([5.0, 10.0, 3.0, 4.0])
    xq = np.array([-180.0, -170.0, -185.0, 185.0, -10.0, -5.0, 0.0, 365.0])
    g.try_case(G, "interp", lambda: np.interp(xq, xp_, fp_, period=360), [xq, xp_, fp_], kwargs={"period": 360}, tol="rel:1e-12")
    print(f"{g.n - 90000} cases in {out}")


if __name__ == "__main__":
    main()
