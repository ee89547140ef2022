#!/usr/bin/env python3
"""Writes the NumPy-made fixtures that `array/tests/npy_numpy.rs` reads, or checks with NumPy
the files that the same test writes.

    python3 array/tests/data/make_npy_fixtures.py            # regenerate the fixtures here
    python3 array/tests/data/make_npy_fixtures.py --verify DIR

`manifest.txt` lists every array: `FILE[:MEMBER] DTYPE SHAPE HEX`, where SHAPE is `2,3`
(`-` for a 0-d array) and HEX is the elements in C order, little-endian (`-` when empty).
The Rust test reads each fixture and compares it with its manifest line; it also writes each
array again with xp into `target/tmp/npy_written/` under the same names. `--verify` loads
those files with NumPy and compares them with the manifest the same way.
"""
import os
import sys

try:
    import numpy as np
except ImportError:
    print("SKIPPED: numpy is not importable by", sys.executable)
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def values(dtype, shape):
    """Deterministic, exactly representable values of `dtype` in C order."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n, dtype=np.int64)
    if dt.kind == "b":
        v = i % 3 == 0
    elif dt.kind in "iu":
        v = (i * 37 - 50).astype(dt)  # wraps for the narrow and the unsigned types
    elif dt.kind == "f":
        v = (i * 0.5 - 3.25).astype(dt)
    else:
        v = ((i * 0.5 - 3.25) + 1j * (1 - i * 0.25)).astype(dt)
    return v.reshape(shape)


def with_order(arr, order):
    """`arr` with byte order `order` ('<' or '>'); one-byte types keep '|'."""
    if arr.dtype.itemsize == 1 or arr.dtype.kind == "b":
        return arr
    return arr.astype(arr.dtype.newbyteorder(order))


def fixtures():
    """(file, member or None, array) for every fixture."""
    out = []
    for name in DTYPES:
        a = values(name, (2, 3))
        out.append((f"le_{name}.npy", None, with_order(a, "<")))
        if a.dtype.itemsize > 1:
            out.append((f"be_{name}.npy", None, with_order(a, ">")))
        out.append((f"fortran_{name}.npy", None, np.asfortranarray(with_order(values(name, (3, 4)), "<"))))
    out.append(("fortran_be_complex128_2x3x2.npy", None,
                np.asfortranarray(with_order(values("complex128", (2, 3, 2)), ">"))))
    out.append(("fortran_float32_2x3x4.npy", None, np.asfortranarray(values("float32", (2, 3, 4)))))
    out.append(("scalar_float64.npy", None, values("float64", ())))
    out.append(("scalar_be_int32.npy", None, with_order(values("int32", ()), ">")))
    out.append(("empty_int32_0x3.npy", None, values("int32", (0, 3))))
    out.append(("empty_complex64_3x0x2.npy", None, values("complex64", (3, 0, 2))))
    out.append(("v2_float32.npy", (2, 0), values("float32", (5,))))
    out.append(("v3_int64.npy", (3, 0), values("int64", (2, 2))))
    members = [("a", values("float64", (2, 3))), ("b", values("int16", (4,))),
               ("scalar", values("complex64", ())), ("empty", values("uint8", (0,))),
               ("flags", values("bool", (3, 2)))]
    for npz in ("arrays.npz", "arrays_compressed.npz"):
        for m, arr in members:
            out.append((npz, m, arr))
    return out


def manifest_line(file, member, arr):
    le = np.ascontiguousarray(with_order(arr, "<"))
    key = file if member is None else f"{file}:{member}"
    shape = ",".join(str(d) for d in arr.shape) or "-"
    return f"{key} {arr.dtype.name} {shape} {le.tobytes(order='C').hex() or '-'}"


def generate():
    entries = fixtures()
    npz = {}
    for file, member, arr in entries:
        path = os.path.join(HERE, file)
        if file.endswith(".npz"):
            npz.setdefault(file, {})[member] = arr
        elif isinstance(member, tuple):  # an explicit format version
            with open(path, "wb") as f:
                np.lib.format.write_array(f, arr, version=member)
        else:
            np.save(path, arr)
    np.savez(os.path.join(HERE, "arrays.npz"), **npz["arrays.npz"])
    np.savez_compressed(os.path.join(HERE, "arrays_compressed.npz"), **npz["arrays_compressed.npz"])
    with open(os.path.join(HERE, "manifest.txt"), "w") as f:
        for file, member, arr in entries:
            f.write(manifest_line(file, None if isinstance(member, tuple) else member, arr) + "\n")
    print(f"wrote {len(entries)} arrays in {HERE} with numpy {np.__version__}")


def verify(folder):
    failed = 0
    checked = 0
    with open(os.path.join(HERE, "manifest.txt")) as f:
        lines = [line.split() for line in f if line.strip()]
    for key, dtype, shape, hexdata in lines:
        file, _, member = key.partition(":")
        path = os.path.join(folder, file)
        if not os.path.exists(path):
            print(f"MISSING {path}")
            failed += 1
            continue
        if member:
            with np.load(path) as z:
                arr = z[member]
        else:
            arr = np.load(path)
        want_shape = () if shape == "-" else tuple(int(d) for d in shape.split(","))
        got = np.ascontiguousarray(with_order(arr, "<")).tobytes().hex() or "-"
        if arr.dtype.name != dtype or arr.shape != want_shape or got != hexdata:
            print(f"MISMATCH {key}: {arr.dtype.name} {arr.shape}, expected {dtype} {want_shape}")
            failed += 1
        checked += 1
    print(f"numpy {np.__version__}: {checked - failed} passed, {failed} failed")
    return failed == 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--verify":
        sys.exit(0 if verify(sys.argv[2]) else 1)
    elif len(sys.argv) == 1:
        generate()
    else:
        sys.exit(__doc__)
