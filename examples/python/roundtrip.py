"""Zero-copy exchange between xp, PyTorch, CuPy and NumPy through DLPack.

Build the module first (in this folder): `cargo build --release`, then run
`python roundtrip.py` here; the script loads target/release/libxp_dlpack.so as `xp_dlpack`.

On a machine with a CUDA GPU, PyTorch and CuPy it checks, on cuda:0:
  1. torch -> xp -> torch: a tensor made by torch is scaled in place by xp, and torch reads the
     result back from the same memory (pointer equality, no bytes allocated);
  2. xp -> torch -> xp and xp -> cupy -> xp: an array made by xp is viewed and written by torch
     (and CuPy), then taken back by xp, all over one allocation;
  3. the host time of a 1 GiB round trip (xp -> torch -> xp), per exchange.
Without a GPU (or without torch/cupy) it runs the same checks on the CPU with NumPy.
"""

import importlib.machinery
import importlib.util
import os
import sys
import time


def load_module():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.environ.get("XP_DLPACK_SO") or os.path.join(here, "target", "release", "libxp_dlpack.so")
    loader = importlib.machinery.ExtensionFileLoader("xp_dlpack", path)
    spec = importlib.util.spec_from_file_location("xp_dlpack", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


xd = load_module()


def check_numpy():
    import numpy as np

    # numpy -> xp -> numpy: scaled in place by xp, read back by numpy.
    a = np.arange(1 << 16, dtype=np.float32)
    ptr = a.ctypes.data
    xd.scale_(a, 2.0)
    assert np.array_equal(a, np.arange(1 << 16, dtype=np.float32) * 2), "numpy sees xp's in-place write"
    x = xd.from_dlpack(a)
    assert x.data_ptr == ptr, "xp views numpy's memory"
    # Strided: every other element of a 2-d transpose.
    m = np.arange(12, dtype=np.float64).reshape(3, 4).T[::2]
    xm = xd.from_dlpack(m)
    assert xm.data_ptr == m.ctypes.data and xm.shape == [2, 3]
    assert xm.sum() == m.sum()

    # xp -> numpy -> xp.
    b = xd.arange(1000, "float64", "cpu")
    n = np.from_dlpack(b)
    assert n.ctypes.data == b.data_ptr, "numpy views xp's memory"
    assert n[999] == 999.0
    n *= 3  # numpy writes xp's memory
    assert b.sum() == 3 * 999 * 1000 / 2
    back = xd.from_dlpack(n)
    assert back.data_ptr == b.data_ptr
    # A read-only numpy array stays read-only in xp.
    r = np.arange(4.0)
    r.flags.writeable = False
    try:
        xd.scale_(r, 2.0)
    except (RuntimeError, BufferError) as e:
        print("read-only numpy array refused as expected:", str(e).splitlines()[0])
    else:
        raise AssertionError("an in-place write into a read-only array must fail")
    assert np.array_equal(r, np.arange(4.0))
    print("numpy <-> xp on the CPU: OK (pointer equality, 0 bytes copied)")


def check_gpu(torch, cupy):
    dev = torch.device("cuda:0")
    stream = torch.cuda.current_stream(dev).cuda_stream or 1  # 0 is the legacy stream: DLPack's 1

    # 1. torch -> xp -> torch, in place.
    t = torch.arange(1 << 20, device=dev, dtype=torch.float32)
    ptr = t.data_ptr()
    allocated = torch.cuda.memory_allocated(dev)
    xd.scale_(t, 2.0, stream=stream)
    expect = torch.arange(1 << 20, device=dev, dtype=torch.float32) * 2
    assert torch.equal(t, expect), "torch reads xp's in-place result"
    assert t.data_ptr() == ptr
    del expect
    assert torch.cuda.memory_allocated(dev) == allocated, "no torch allocation for the exchange"

    # 2. xp -> torch -> xp, and xp -> cupy -> xp.
    a = xd.arange(1 << 20, "float32", "cuda:0")
    tt = torch.from_dlpack(a)
    assert tt.data_ptr() == a.data_ptr, "torch views xp's memory"
    tt.mul_(3.0)  # torch writes xp's memory on its stream
    b = xd.from_dlpack(tt)  # xp passes its stream: torch orders its write before it
    assert b.data_ptr == a.data_ptr
    # torch's write is what xp reads: the values, element by element (a float32 sum of 2^20
    # values would round).
    assert torch.equal(torch.from_dlpack(b), torch.arange(1 << 20, device=dev, dtype=torch.float32) * 3)
    c = cupy.from_dlpack(a)
    assert c.data.ptr == a.data_ptr, "cupy views xp's memory"
    c *= 2
    assert xd.from_dlpack(c).data_ptr == a.data_ptr
    assert float(cupy.asnumpy(c[10])) == 60.0
    ct = cupy.arange(1 << 10, dtype=cupy.float64)
    xd.scale_(ct, 0.5, stream=cupy.cuda.get_current_stream().ptr or 1)
    assert float(ct[1000]) == 500.0
    print("torch/cupy <-> xp on cuda:0: OK (pointer equality, 0 bytes copied)")

    # 3. The host time of a 1 GiB round trip xp -> torch -> xp.
    big = xd.arange(1 << 28, "float32", "cuda:0")  # 2^28 float32 = 1 GiB
    torch.cuda.synchronize(dev)
    allocated = torch.cuda.memory_allocated(dev)
    n = 1000
    for _ in range(10):  # warm up
        xd.from_dlpack(torch.from_dlpack(big))
    # Each iteration also releases the previous iteration's import: dropping the last xp array
    # over foreign memory waits for xp's streams before the producer's deleter runs (the one
    # host wait of the protocol, at release; the exchanges themselves wait on the GPU only).
    t0 = time.perf_counter()
    for _ in range(n):
        back = xd.from_dlpack(torch.from_dlpack(big))
    t1 = time.perf_counter()
    assert back.data_ptr == big.data_ptr
    assert torch.cuda.memory_allocated(dev) == allocated, "the round trip copied"
    per_exchange_us = (t1 - t0) / n / 2 * 1e6
    print(f"1 GiB xp -> torch -> xp: {per_exchange_us:.2f} us of host time per exchange "
          f"({(t1 - t0) / n * 1e6:.2f} us per round trip, {n} round trips), 0 bytes copied")


def main():
    check_numpy()
    try:
        import torch
        import cupy
    except ImportError as e:
        print(f"GPU checks skipped: {e}")
        return 0
    if not torch.cuda.is_available():
        print("GPU checks skipped: no CUDA device")
        return 0
    check_gpu(torch, cupy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
