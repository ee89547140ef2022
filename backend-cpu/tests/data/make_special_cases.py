"""Writes special_cases.txt: inputs and SciPy's outputs for every type loop of xp's SciPy
special-function ops (`kernels/src/ops/special.rs`), in the format of ops_cases.txt (see
make_ops_cases.py). `backend-cpu/tests/ops.rs` reads both files.

Run once with NumPy 2 and SciPy (`python3 make_special_cases.py`). The loops are read from
`special.rs` itself, so a new op without cases fails the test. Inputs are typical values and
each function's edges (zeros, poles, the ends of the domain, points outside it, infinities,
NaN); the test allows each family's ulp tolerance (`SPECIAL_ULPS` in ops.rs).
"""

import pathlib
import re
import warnings

import numpy as np
import scipy.special as sc

HERE = pathlib.Path(__file__).resolve().parent
SPECIAL_RS = HERE.parents[2] / "kernels" / "src" / "ops" / "special.rs"
NP_CHAR = {"f": "f4", "d": "f8", "l": "i8", "D": "c16"}

inf, nan = np.inf, np.nan
COMMON = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.75, 0.1, 10.0, 1e-3, 30.0, -30.0, 1e-30, inf, -inf, nan]
NORMAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.75, 0.1, 1e-3, 1e-30, inf, -inf, nan]
# One argument: typical values and the function's own edges.
UNARY = {
    "expit": COMMON + [800.0, -800.0, 40.0, -40.0],
    "logit": [0.0, 1.0, 0.5, 0.25, 0.75, 0.3, 0.9, 1e-10, 1 - 1e-7, -0.5, 2.0, nan],
    "log_expit": COMMON + [800.0, -800.0, 40.0, -40.0],
    "entr": COMMON + [1e30],
    "erf": COMMON + [6.0, -6.0, 1e-300],
    "erfc": COMMON + [5.5, 26.5, 27.0],
    "erfcx": COMMON + [-27.0, 25.0, 26.0, 1e10, 1e300],
    "erfinv": [0.0, -0.0, 0.5, -0.5, 0.9, -0.999, 1 - 1e-7, 1e-10, 1.0, -1.0, 1.5, -2.0, inf, nan],
    "erfcinv": [0.0, 1.0, 2.0, 0.5, 1.5, 1e-5, 1e-30, 1.9999, 0.01, -1.0, 3.0, nan],
    # SciPy's ndtr and log_ndtr lose x^2/2 ulps in the far tails (the rounding of x/sqrt(2)):
    # no |x| between 6 and 38 here.
    "ndtr": NORMAL + [-3.0, 40.0, -40.0, 3.5],
    "ndtri": [0.0, 1.0, 0.5, 0.25, 0.975, 1e-10, 1e-30, 1 - 1e-7, -0.1, 1.1, nan],
    "log_ndtr": NORMAL + [40.0, -1e5, 5.0, -20.0, -30.0],
    # The gamma family away from its poles and digamma's zeros (a pole itself is an edge); the
    # Bessel functions where their relative condition (about x) is well inside their ulp count.
    "gamma": [1.0, 2.0, 0.5, -0.5, -1.5, 3.7, 10.25, 0.0, -0.0, -1.0, -2.0, 171.5, 1e-5, 25.5, inf, -inf, nan],
    "gammaln": [1.0, 2.0, 0.5, -0.5, -1.5, 3.7, 10.25, 0.0, -1.0, 1e-5, 25.5, 1e5, 1e300, inf, -inf, nan],
    "loggamma": [1.5, 0.5, 3.7, 10.25, 1e-5, 25.5, 1e5, 0.0, inf, nan],
    "rgamma": [1.0, 2.0, 0.5, -0.5, -1.5, 3.7, 10.25, 0.0, -1.0, -2.0, 25.5, 200.0, inf, nan],
    "digamma": [1.0, 2.0, 0.5, -0.25, -1.5, 3.7, 10.25, 0.0, -1.0, 1e-5, 25.5, 1e5, inf, nan],
    "_riemann_zeta": [2.0, 3.0, 1.5, 4.5, 10.0, 0.5, -0.5, -1.5, -2.5, 0.0, 1.0, 60.0, inf, nan],
    "j0": [0.0, 0.5, 1.0, 1.5, -3.0, 4.0, 10.5, 30.25, 1e-5, 60.5, inf, nan],
    "j1": [0.0, 0.5, 1.0, 1.5, -3.0, 4.5, 10.0, 30.25, 1e-5, 59.0, inf, nan],
    "y0": [0.5, 1.0, 1.5, 3.0, 4.5, 10.0, 30.25, 1e-5, 59.0, 0.0, -1.0, inf, nan],
    "y1": [0.5, 1.0, 1.5, 2.5, 4.5, 9.5, 30.25, 1e-5, 60.5, 0.0, -1.0, inf, nan],
    "i0": [0.0, 0.5, 1.0, -1.5, 3.0, 8.5, 10.0, 30.25, 100.0, 700.0, inf, nan],
    "i0e": [0.0, 0.5, 1.0, -1.5, 3.0, 8.5, 10.0, 30.25, 100.0, 1e5, inf, nan],
    "i1": [0.0, 0.5, 1.0, -1.5, 3.0, 8.5, 10.0, 30.25, 100.0, 700.0, inf, nan],
    "i1e": [0.0, 0.5, 1.0, -1.5, 3.0, 8.5, 10.0, 30.25, 100.0, 1e5, inf, nan],
    "k0": [0.5, 1.0, 1.5, 2.0, 3.0, 8.5, 10.0, 30.25, 1e-5, 0.0, -1.0, inf, nan],
    "k0e": [0.5, 1.0, 1.5, 2.0, 3.0, 8.5, 10.0, 30.25, 1e-5, 1e5, 0.0, -1.0, inf, nan],
    "k1": [0.5, 1.0, 1.5, 2.0, 3.0, 8.5, 10.0, 30.25, 1e-5, 0.0, -1.0, inf, nan],
    "k1e": [0.5, 1.0, 1.5, 2.0, 3.0, 8.5, 10.0, 30.25, 1e-5, 1e5, 0.0, -1.0, inf, nan],
    "exp1": [0.5, 1.0, 1.5, 2.0, 3.0, 8.5, 10.0, 30.25, 1e-5, 0.0, -1.0, 700.0, inf, nan],
    "expi": [0.5, 1.0, 1.5, 2.0, 3.0, 8.5, -2.5, -10.0, 30.25, 1e-5, 0.0, -700.0, inf, -inf, nan],
    "ellipk": [0.0, 0.5, 0.9, 0.99, -1.0, -10.0, 1e-5, 1.0, 2.0, -inf, nan],
    "ellipkm1": [1.0, 0.5, 0.1, 0.01, 1e-10, 2.0, 11.0, 1e-300, 0.0, -1.0, inf, nan],
    "lambertw": [0.0, 0.5, 1.0, 2.5, 10.0, 1e5, 1e300, -0.2, -0.3, -1.0, inf, nan],
}
# Two arguments: pairs.
BINARY = {
    "xlogy": [(0., 0.), (0., -1.), (1., 0.), (1., -1.), (-1., inf), (0., inf), (nan, 1.), (2., 1.), (0., nan),
              (2.5, 3.0), (-1.5, 0.25), (1e3, 1e-3)],
    "xlog1py": [(0., -1.), (1., -1.), (1., -2.), (0., 0.), (2., 0.), (nan, 1.), (1., inf), (2.5, 3.0), (3.0, -0.5),
                (1.0, 1e-8)],
    "rel_entr": [(0., 0.), (0., 1.), (1., 0.), (-1., 1.), (1., -1.), (inf, 1.), (1., inf), (nan, 1.), (2., 0.5),
                 (0.25, 3.0)],
    "kl_div": [(0., 0.), (0., 1.), (1., 0.), (-1., 1.), (1., -1.), (inf, 1.), (1., inf), (nan, 1.), (2., 0.5),
               (0.25, 3.0)],
    "huber": [(-1., 1.), (0., 1.), (0., 0.), (1., inf), (inf, 1.), (nan, 1.), (1., nan), (1.0, 0.5), (1.0, -3.0),
              (2.5, 2.5)],
    "pseudo_huber": [(0., 1.), (0., 0.), (-1., 1.), (1., inf), (nan, 1.), (1.0, 0.5), (1.0, -3.0), (0.1, 1e-5),
                     (2.5, 100.0)],
    "boxcox": [(0., 0.), (0., 2.), (-1., 1.), (1., 0.), (2., 0.), (inf, 1.), (nan, 1.), (3.0, 0.5), (0.2, -2.0),
               (50.0, 1.5)],
    "boxcox1p": [(-1., 0.), (-1., 2.), (-2., 1.), (0., 0.), (0., 1.), (1e-30, 0.5), (nan, 1.), (3.0, 0.5),
                 (-0.5, -2.0)],
    "inv_boxcox": [(0., 0.), (1., 0.), (-1., 1.), (nan, 1.), (0.5, 2.), (1.5, 0.5), (-0.3, -2.0), (-5.0, 1.0)],
    "inv_boxcox1p": [(0., 0.), (1., 0.), (-1., 1.), (nan, 1.), (0.5, 2.), (1.5, 0.5), (-0.3, -2.0), (-5.0, 1.0)],
    "polygamma": [(0., 3.5), (1., 1.5), (2., 0.5), (3., 10.25), (1., -1.5), (2., 25.5), (1., 0.0), (nan, 1.0),
                  (1., nan)],
    "_zeta": [(2., 1.), (2., 2.5), (3., 0.5), (4.5, 10.0), (1.5, 1e3), (1., 1.), (0.5, 1.), (2., -1.), (nan, 1.)],
    "beta": [(1., 1.), (0.5, 0.5), (2.5, 3.5), (10., 0.25), (1e-5, 2.), (30., 40.), (-0.5, 2.), (0., 1.), (nan, 1.)],
    "betaln": [(1., 1.), (0.5, 0.5), (2.5, 3.5), (10., 0.25), (1e-5, 2.), (300., 400.), (1e5, 3.), (nan, 1.)],
    "gammainc": [(1., 1.), (0.5, 0.25), (2.5, 3.5), (10., 8.), (30., 35.), (1e-3, 1.), (2., 0.), (0., 1.), (-1., 1.),
                 (1., inf), (nan, 1.)],
    "gammaincc": [(1., 1.), (0.5, 0.25), (2.5, 3.5), (10., 8.), (30., 35.), (1e-3, 1.), (2., 0.), (-1., 1.),
                  (1., inf), (nan, 1.)],
    "gammaincinv": [(1., 0.5), (0.5, 0.25), (2.5, 0.9), (10., 0.1), (30., 0.6), (2., 0.), (2., 1.), (2., 1.5),
                    (nan, 0.5)],
    "gammainccinv": [(1., 0.5), (0.5, 0.25), (2.5, 0.9), (10., 0.1), (30., 0.6), (2., 0.), (2., 1.), (2., 1.5),
                     (nan, 0.5)],
    "chdtr": [(1., 1.), (2., 0.5), (5.5, 3.), (10., 12.), (40., 35.), (3., 0.), (-1., 1.), (nan, 1.)],
    "chdtrc": [(1., 1.), (2., 0.5), (5.5, 3.), (10., 12.), (40., 35.), (3., 0.), (-1., 1.), (nan, 1.)],
    "chdtri": [(1., 0.5), (2., 0.25), (5.5, 0.9), (10., 0.1), (40., 0.6), (3., 1.), (3., 1.5), (nan, 0.5)],
    "pdtr": [(0., 1.), (2., 0.5), (5., 3.), (10., 12.), (40., 35.), (3., 0.), (-1., 1.), (nan, 1.)],
    "pdtrc": [(0., 1.), (2., 0.5), (5., 3.), (10., 12.), (40., 35.), (3., 0.), (-1., 1.), (nan, 1.)],
    "pdtri": [(0., 0.5), (2., 0.25), (5., 0.9), (10., 0.1), (40., 0.6), (3., 1.5), (-1., 0.5), (nan, 0.5)],
    "stdtr": [(1., 0.5), (2., -1.5), (5.5, 3.), (10., -0.25), (40., 2.), (3., 0.), (1., inf), (0., 1.), (nan, 1.)],
    "stdtrit": [(1., 0.5), (2., 0.25), (5.5, 0.9), (10., 0.1), (40., 0.6), (3., 0.), (3., 1.5), (nan, 0.5)],
    "jn": [(0., 1.5), (1., 2.5), (2., 4.5), (5., 10.), (3., -2.5), (10., 30.25), (-2., 3.), (2., 0.), (2., nan)],
    "yn": [(0., 1.5), (1., 2.5), (2., 4.5), (5., 10.), (3., 0.25), (10., 30.25), (-2., 3.), (2., 0.), (2., -1.),
           (2., nan)],
    "iv": [(0., 1.5), (1., 2.5), (2.5, 4.5), (5., 10.), (0.5, 0.25), (-1.5, 3.), (10., 30.25), (2., 0.), (2., nan)],
    "kv": [(0., 1.5), (1., 2.5), (2.5, 4.5), (5., 10.), (0.5, 0.25), (-1.5, 3.), (10., 30.25), (2., 0.), (2., -1.),
           (2., nan)],
    "expn": [(0., 1.5), (1., 2.5), (2., 0.5), (5., 10.), (3., 0.), (10., 30.25), (-1., 3.), (2., -1.), (2., nan)],
    "ellipj_sn": [(0.5, 0.5), (1.5, 0.25), (-2.5, 0.9), (3., 0.), (1.2, 1.), (0., 0.3), (1., 2.), (nan, 0.5)],
    "ellipj_cn": [(0.5, 0.5), (1.5, 0.25), (-2.5, 0.9), (3., 0.), (1.2, 1.), (0., 0.3), (1., 2.), (nan, 0.5)],
    "ellipj_dn": [(0.5, 0.5), (1.5, 0.25), (-2.5, 0.9), (3., 0.), (1.2, 1.), (0., 0.3), (1., 2.), (nan, 0.5)],
    "ellipj_ph": [(0.5, 0.5), (1.5, 0.25), (-2.5, 0.9), (3., 0.), (1.2, 1.), (0., 0.3), (1., 2.), (nan, 0.5)],
}
# Three arguments: triples.
TERNARY = {
    "betainc": [(1., 1., 0.5), (0.5, 0.5, 0.25), (2.5, 3.5, 0.6), (10., 8., 0.4), (30., 35., 0.5), (2., 3., 0.),
                (2., 3., 1.), (2., 3., 1.5), (-1., 2., 0.5), (nan, 1., 0.5)],
    "betaincinv": [(1., 1., 0.5), (0.5, 0.5, 0.25), (2.5, 3.5, 0.6), (10., 8., 0.4), (30., 35., 0.5), (2., 3., 0.),
                   (2., 3., 1.), (2., 3., 1.5), (nan, 1., 0.5)],
    "bdtr": [(0., 5., 0.5), (2., 5., 0.25), (5., 10., 0.6), (10., 20., 0.4), (3., 3., 0.5), (7., 40., 0.2),
             (2., 5., 1.5), (-1., 5., 0.5), (nan, 5., 0.5)],
    "bdtrc": [(0., 5., 0.5), (2., 5., 0.25), (5., 10., 0.6), (10., 20., 0.4), (7., 40., 0.2), (2., 5., 1.5),
              (-1., 5., 0.5), (nan, 5., 0.5)],
    "bdtri": [(0., 5., 0.5), (2., 5., 0.25), (5., 10., 0.6), (10., 20., 0.4), (7., 40., 0.2), (2., 5., 1.5),
              (nan, 5., 0.5)],
    "fdtr": [(1., 1., 0.5), (2., 3., 1.5), (5.5, 10., 2.), (10., 20., 0.4), (30., 35., 1.), (2., 3., 0.),
             (-1., 2., 0.5), (nan, 1., 0.5)],
    "fdtrc": [(1., 1., 0.5), (2., 3., 1.5), (5.5, 10., 2.), (10., 20., 0.4), (30., 35., 1.), (2., 3., 0.),
              (-1., 2., 0.5), (nan, 1., 0.5)],
    "fdtri": [(1., 1., 0.5), (2., 3., 0.25), (5.5, 10., 0.9), (10., 20., 0.1), (30., 35., 0.6), (2., 3., 1.5),
              (nan, 1., 0.5)],
    "gdtr": [(1., 1., 0.5), (2., 3., 1.5), (0.5, 10., 2.), (10., 20., 0.4), (3., 35., 10.), (2., 3., 0.),
             (2., 3., -1.), (nan, 1., 0.5)],
    "gdtrc": [(1., 1., 0.5), (2., 3., 1.5), (0.5, 10., 2.), (10., 20., 0.4), (3., 35., 10.), (2., 3., 0.),
              (2., 3., -1.), (nan, 1., 0.5)],
    "nbdtr": [(0., 5., 0.5), (2., 5., 0.25), (5., 10., 0.6), (10., 20., 0.4), (7., 40., 0.8), (2., 5., 1.5),
              (-1., 5., 0.5), (nan, 5., 0.5)],
    "nbdtrc": [(0., 5., 0.5), (2., 5., 0.25), (5., 10., 0.6), (10., 20., 0.4), (7., 40., 0.8), (2., 5., 1.5),
               (-1., 5., 0.5), (nan, 5., 0.5)],
}
# SciPy's functions behind names xp's op table gives differently.
SCIPY_FN = {
    "_riemann_zeta": sc.zeta,
    "_zeta": sc.zeta,
    "ellipj_sn": lambda u, m: sc.ellipj(u, m)[0],
    "ellipj_cn": lambda u, m: sc.ellipj(u, m)[1],
    "ellipj_dn": lambda u, m: sc.ellipj(u, m)[2],
    "ellipj_ph": lambda u, m: sc.ellipj(u, m)[3],
}
# Loops of the op-table macros of special.rs.
MACRO_LOOPS = {
    "unary_df": ["d->d", "f->f"], "unary_fd": ["f->f", "d->d"],
    "binary_df": ["dd->d", "ff->f"], "binary_fd": ["ff->f", "dd->d"],
    "ternary_fd": ["fff->f", "ddd->d"], "int_first_2": ["ld->d", "ff->f", "dd->d"],
    "int_second_3": ["fff->f", "dld->d", "ddd->d"], "int_two_3": ["lld->d", "fff->f", "ddd->d"],
}


def read_ops():
    """(name, [sig...]) of every op in special.rs."""
    src = SPECIAL_RS.read_text()
    ops = []
    for m in re.finditer(r'\w+, "(\w+)", \d, (?:PREAMBLE_\w+, )?(\w+)(!|\n|, &\[)', src):
        if m.group(3) == ", &[":
            sigs = re.findall(r'sig: "([^"]+)"', src[m.end():src.index("\n", m.end())])
        else:
            sigs = MACRO_LOOPS[m.group(2)]
        ops.append((m.group(1), sigs))
    return ops


def hexes(a, c):
    if c == "D":
        a = a.view(np.float64)
    u = a.view(np.dtype(a.dtype).str.replace("f", "u").replace("i", "u"))
    return " ".join(format(int(x), "x") for x in u)


def main():
    lines = []
    for name, sigs in read_ops():
        for sig in sigs:
            ins, outs = sig.split("->")
            if len(ins) == 1:
                cols = [UNARY[name]]
            else:
                rows = (BINARY if len(ins) == 2 else TERNARY)[name]
                # An integer argument's rows are those with a finite value there.
                rows = [r for r in rows if all(c != "l" or np.isfinite(v) for c, v in zip(ins, r))]
                cols = [[r[k] for r in rows] for k in range(len(ins))]
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                arrs = [np.array(col, dtype=NP_CHAR[c]) for c, col in zip(ins, cols)]
                # SciPy's float64 answer rounded once: what the float32 loop computes.
                fn = SCIPY_FN.get(name) or getattr(sc, name)
                out = np.asarray(fn(*[a if a.dtype == np.int64 else a.astype(np.float64) for a in arrs]))
                out = out.astype(NP_CHAR[outs])
            lines.append(f"{name} {sig} {len(arrs[0])}")
            for c, a in zip(ins, arrs):
                lines.append(hexes(a, c))
            lines.append(hexes(out, outs))
    (HERE / "special_cases.txt").write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} lines")


if __name__ == "__main__":
    main()
