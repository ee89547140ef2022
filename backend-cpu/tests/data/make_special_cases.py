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
NP_CHAR = {"f": "f4", "d": "f8"}

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
}


def read_ops():
    """(name, [sig...]) of every op in special.rs."""
    src = SPECIAL_RS.read_text()
    loops = {
        "unary_df": ["d->d", "f->f"], "unary_fd": ["f->f", "d->d"],
        "binary_df": ["dd->d", "ff->f"], "binary_fd": ["ff->f", "dd->d"],
    }
    return [(m.group(1), loops[m.group(2)]) for m in re.finditer(r'\w+, "(\w+)", \d, (\w+)\n', src)]


def hexes(a, c):
    u = a.view(np.dtype(NP_CHAR[c]).str.replace("f", "u"))
    return " ".join(format(int(x), "x") for x in u)


def main():
    lines = []
    for name, sigs in read_ops():
        for sig in sigs:
            ins, outs = sig.split("->")
            if len(ins) == 1:
                cols = [UNARY[name]]
            else:
                pairs = BINARY[name]
                cols = [[p[0] for p in pairs], [p[1] for p in pairs]]
            arrs = [np.array(col, dtype=NP_CHAR[c]) for c, col in zip(ins, cols)]
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                # SciPy's float64 answer rounded once: what the float32 loop computes.
                out = np.asarray(getattr(sc, name)(*[a.astype(np.float64) for a in arrs])).astype(NP_CHAR[outs])
            lines.append(f"{name} {sig} {len(arrs[0])}")
            for c, a in zip(ins, arrs):
                lines.append(hexes(a, c))
            lines.append(hexes(out, outs))
    (HERE / "special_cases.txt").write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} lines")


if __name__ == "__main__":
    main()
