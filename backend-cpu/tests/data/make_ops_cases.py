"""Writes ops_cases.txt: inputs and NumPy's outputs for every type loop of xp's built-in ops.

Run once with NumPy 2 (`python3 make_ops_cases.py`); `backend-cpu/tests/ops.rs` reads the result.
The loops are read from `ops.rs` itself, so a new loop without cases fails the test.

Format: per loop a header line `op sig n`, then one line per input and one for the output, each
holding n elements as hex bit patterns (two per complex element: real, imaginary). bfloat16
(`E`), which NumPy lacks, is computed as xp computes it: in float32 from bfloat16 inputs, the
result rounded once to bfloat16.
"""

import pathlib
import re
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
OPS_RS = HERE.parents[2] / "kernels" / "src" / "ops.rs"

NP_CHAR = {"?": "?", "b": "i1", "h": "i2", "i": "i4", "l": "i8", "B": "u1", "H": "u2", "I": "u4",
           "L": "u8", "e": "f2", "E": "f4", "f": "f4", "d": "f8", "F": "c8", "D": "c16"}


def read_ops():
    """(name, nin, [sig...]) of every op in ops.rs."""
    src = OPS_RS.read_text()
    ops = []
    for m in re.finditer(r'ElementwiseOp \{\s*name: "(\w+)",\s*nin: (\d+),\s*nout: \d+,\s*loops: &\[(.*?)\],\s*body:', src, re.S):
        sigs = re.findall(r'[lb]\(\s*"([^"]+)"', m.group(3))
        ops.append((m.group(1), int(m.group(2)), sigs))
    return ops


def to_bf16(x):
    """float32 array -> float32 values rounded to bfloat16 (nearest even), NaN kept."""
    x = np.asarray(x, dtype=np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    r = np.where(np.isnan(x), (u | 0x400000) & 0xFFFF0000, r)
    return r.astype(np.uint32).view(np.float32)


FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -3.75, 0.1, 10.0, 1e-3, 1e3, 0.99,
          1.01, 2.0, -7.25, 100.25, 1e-30, 65504.0, 1e30, np.inf, -np.inf, np.nan, np.pi, -np.e]
FLOATS_BIN = [0.0, -0.0, 1.0, -1.0, 2.5, -3.75, 0.5, 7.0, 1e3, np.inf, -np.inf, np.nan]
CPLX_PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.5, 1e-3]
CPLX_BIN = [(0.0, 0.0), (-0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.5), (2.0, -3.0), (0.5, 0.5),
            (np.nan, 0.0), (1.0, np.inf), (-2.0, -0.0)]
CPLX_SPECIAL = [(np.inf, 0.0), (-np.inf, 1.0), (np.nan, 1.0), (1.0, np.nan), (np.inf, np.inf),
                (0.0, np.inf), (10.0, 20.0), (-30.0, 0.25), (1e200, 3.0)]


def int_values(c, binary):
    info = np.iinfo(NP_CHAR[c])
    vals = [0, 1, -1, 2, -3, 7, 8, 33, 64, info.min, info.max] if binary else \
        [0, 1, -1, 2, -2, 3, -7, 7, 100, -100, info.min, info.max, info.min + 1, info.max - 1, 12345, -12345]
    out = []
    for v in vals:
        if info.min <= v <= info.max and v not in out:
            out.append(v)
    return out


def values(c, binary):
    if c == "?":
        return [False, True]
    if c in "bhilBHIL":
        return int_values(c, binary)
    if c in "efdE":
        v = FLOATS_BIN if binary else FLOATS
        return list(v) + ([np.finfo(np.float32).tiny / 8] if c == "f" and not binary else []) + \
            ([5e-324, 1.7976931348623157e308] if c == "d" and not binary else [])
    if c in "FD":
        if binary:
            return [complex(*p) for p in CPLX_BIN]
        return [complex(r, i) for r in CPLX_PARTS for i in CPLX_PARTS[:6]] + [complex(*p) for p in CPLX_SPECIAL]
    raise ValueError(c)


def operands(name, ins):
    """Input arrays (as NumPy arrays of the loop's dtypes; E as float32 of bfloat16 values)."""
    if len(ins) == 1:
        cols = [values(ins[0], False)]
    elif len(ins) == 2:
        if ins[0] != ins[1]:  # int64 against uint64
            a, b = int_values(ins[0], True), int_values(ins[1], True)
        else:
            a = b = values(ins[0], True)
        pairs = [(x, y) for x in a for y in b]
        cols = [[p[0] for p in pairs], [p[1] for p in pairs]]
        if name == "power" and ins[0] in "bhilBHIL":
            cols[1] = [abs(int(y)) % 70 if ins[0] in "bhil" else y % 70 for y in cols[1]]
    else:
        if name == "where":
            x = values(ins[1], True)
            cols = [[i % 2 == 0 for i in range(len(x))], x, list(reversed(x))]
        else:
            v = values(ins[0], True)
            lo = [v[i % len(v)] for i in range(3 * len(v))]
            hi = [v[(i * 5 + 3) % len(v)] for i in range(3 * len(v))]
            x = [v[(i * 7 + 1) % len(v)] for i in range(3 * len(v))]
            cols = [x, lo, hi]
    arrs = []
    for c, col in zip(ins, cols):
        a = np.array(col, dtype=NP_CHAR[c])
        if c == "E":
            a = to_bf16(a)
        arrs.append(a)
    return arrs


def ufunc(name):
    if name == "clip":
        return np._core.umath.clip
    return getattr(np, name)


def compute(name, sig, arrs):
    ins, outs = sig.split("->")
    if name == "copy":
        return arrs[0].copy()
    if name == "where":
        return np.where(arrs[0], arrs[1], arrs[2])
    dts = tuple(np.dtype(NP_CHAR[c]) for c in ins + outs)
    if ins in ("lL", "Ll"):  # NumPy's mixed loops are written with long long
        dts = sig.replace("l", "q").replace("L", "Q")
    r = ufunc(name)(*arrs, signature=dts)
    if "E" in outs:
        r = to_bf16(r)
    return r


def hexes(a, c):
    if c == "?":
        return " ".join("1" if x else "0" for x in a)
    if c in "FD":
        parts = np.stack([a.real, a.imag], axis=-1).reshape(-1)
        return hexes(parts, "f" if c == "F" else "d")
    if c == "E":
        u = a.view(np.uint32) >> 16
    else:
        u = a.view(np.dtype(NP_CHAR[c]).str.replace("i", "u").replace("f", "u"))
    return " ".join(format(int(x), "x") for x in u)


def main():
    lines = []
    total = 0
    for name, nin, sigs in read_ops():
        for sig in sigs:
            ins, outs = sig.split("->")
            arrs = operands(name, ins)
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                out = compute(name, sig, arrs)
            n = len(arrs[0])
            lines.append(f"{name} {sig} {n}")
            for c, a in zip(ins, arrs):
                lines.append(hexes(a, c))
            lines.append(hexes(np.asarray(out, dtype=NP_CHAR[outs]), outs))
            total += 1
    (HERE / "ops_cases.txt").write_text("\n".join(lines) + "\n")
    print(f"{total} loops")


if __name__ == "__main__":
    main()
