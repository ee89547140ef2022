"""torch.distributed (NCCL) beside xp's `XP_BENCH_ONLY=distributed` workloads, timed the same way:
20 (10) calls back to back between synchronisations of both GPUs, the median of 5 runs.

  all_reduce f32 256MiB (2 GPUs): two processes (one per GPU), in-place all_reduce, bus
      bandwidth = bytes * 2(n-1)/n / time, as nccl-tests count it;
  peer copy 1GiB cuda:0->cuda:1: tensor.to('cuda:1') of 2^28 float32.

Usage: python3 torch_distributed.py [out.json]
"""
import json
import os
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def all_reduce_rank(rank, world, init_file, q):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"file://{init_file}", rank=rank, world_size=world)
    n = (256 << 20) // 4
    x = torch.ones(n, dtype=torch.float32, device=f"cuda:{rank}")
    for _ in range(3):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    runs = []
    for _ in range(5):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(20):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        runs.append((time.perf_counter() - t0) * 1e3 / 20)
    if rank == 0:
        q.put(median(runs))
    dist.destroy_process_group()


def main():
    out = {}
    world = min(torch.cuda.device_count(), 2)
    if world < 2:
        print("torch distributed: needs two GPUs")
        return
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    init_file = tempfile.mktemp(prefix="torch-dist-")
    procs = [ctx.Process(target=all_reduce_rank, args=(r, world, init_file, q)) for r in range(world)]
    for p in procs:
        p.start()
    ms = q.get()
    for p in procs:
        p.join()
    n = 256 << 20
    busbw = n / (ms * 1e-3) * 2 * (world - 1) / world / 1e9
    print(f"{'all_reduce f32 256MiB (2 GPUs)':40} {ms:10.4f} ms  bus bandwidth {busbw:.1f} GB/s  (NCCL {'.'.join(map(str, torch.cuda.nccl.version()))})")
    out["all_reduce f32 256MiB (2 GPUs)"] = ms
    out["all_reduce f32 256MiB busbw (GB/s)"] = busbw

    x = torch.ones(1 << 28, dtype=torch.float32, device="cuda:0")
    def sync():
        torch.cuda.synchronize(0)
        torch.cuda.synchronize(1)
    for _ in range(3):
        x.to("cuda:1")
    sync()
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(10):
            y = x.to("cuda:1")
        sync()
        runs.append((time.perf_counter() - t0) * 1e3 / 10)
        del y
    ms = median(runs)
    gbs = (1 << 30) / (ms * 1e-3) / 1e9
    print(f"{'peer copy 1GiB cuda:0->cuda:1':40} {ms:10.4f} ms  {gbs:.1f} GB/s")
    out["peer copy 1GiB cuda:0->cuda:1"] = ms
    out["peer copy 1GiB (GB/s)"] = gbs
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
