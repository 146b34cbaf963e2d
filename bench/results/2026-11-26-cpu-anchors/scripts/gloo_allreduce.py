"""Median time of torch.distributed.all_reduce on the gloo backend (fp32) per size.

Usage: python3 gloo_allreduce.py WARMUP ITERATIONS BYTES...  (starts 2 processes on this host)
"""
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, world, warmup, iterations, sizes):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    for size in sizes:
        tensor = torch.ones(size // 4, dtype=torch.float32)
        for _ in range(warmup):
            dist.all_reduce(tensor)
        times = []
        slowest = torch.zeros(1, dtype=torch.float64)
        for _ in range(iterations):
            dist.barrier()
            started = time.perf_counter()
            dist.all_reduce(tensor)
            slowest[0] = time.perf_counter() - started
            # the slowest rank's time per call, as nccl-tests and gpucomm report
            dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
            times.append(slowest.item())
        if rank == 0:
            print(f"gloo {size} bytes median {statistics.median(times) * 1e6:.1f} us", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) < 4:
        print("usage: gloo_allreduce.py WARMUP ITERATIONS BYTES...", file=sys.stderr)
        sys.exit(2)
    warmup, iterations = int(sys.argv[1]), int(sys.argv[2])
    sizes = [int(s) for s in sys.argv[3:]]
    mp.spawn(rank_main, args=(2, warmup, iterations, sizes), nprocs=2)
