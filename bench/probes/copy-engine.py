#!/usr/bin/env python3
"""Copy-engine probes on one multi-GPU host (PyTorch, one process driving every GPU).

1. Peer copy bandwidth through the copy engines (cudaMemcpyPeerAsync, what `Tensor.copy_`
   issues between GPUs): one direction, both directions of a pair at once, and the all-to-all
   pattern of a 4-GPU two-shot (every GPU pushing to every other at once).
2. Whether a large bf16 matmul slows down while a copy engine pulls a peer's buffer into the
   same GPU, the situation of a ring all-gather overlapped with a matmul.

Times are CUDA-event medians after warm-up, GB/s = bytes / time (10^9).

  python3 bench/probes/copy-engine.py [--gpus 4] [--mib 64]
"""
import argparse
import statistics

import torch


def timed(fn, streams, repeats=20, warmup=5):
    """Median time in ms of fn(), which enqueues work on `streams`; events on the first."""
    def idle():
        for d in range(torch.cuda.device_count()):
            torch.cuda.synchronize(d)

    for _ in range(warmup):
        fn()
    idle()
    times = []
    for _ in range(repeats):
        idle()
        start = [torch.cuda.Event(enable_timing=True) for _ in streams]
        end = [torch.cuda.Event(enable_timing=True) for _ in streams]
        for s, e in zip(streams, start):
            e.record(s)
        # every stream starts once all have recorded their start
        for s in streams:
            for e in start:
                s.wait_event(e)
        fn()
        for s, e in zip(streams, end):
            e.record(s)
        for e in end:
            e.synchronize()
        times.append(max(a.elapsed_time(b) for a, b in zip(start, end)))
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    parser.add_argument("--mib", type=int, default=64)
    args = parser.parse_args()
    n = args.gpus
    nbytes = args.mib << 20
    print(f"# {torch.cuda.get_device_name(0)} x {n}, torch {torch.__version__}")

    def buf(dev, elems):
        return torch.randn(elems, device=f"cuda:{dev}", dtype=torch.float32).to(torch.bfloat16)

    elems = nbytes // 2
    src = [buf(d, elems) for d in range(n)]
    dst = [[buf(d, elems) if d != p else None for p in range(n)] for d in range(n)]  # dst[d][p]: on d, from p
    # A copy between GPUs runs in the order of the current streams of both GPUs (PyTorch joins
    # them), so each (source, destination) pair gets its own stream on each side.
    send = [[torch.cuda.Stream(device=d) for _ in range(n)] for d in range(n)]  # send[d][p] on d
    recv = [[torch.cuda.Stream(device=p) for _ in range(n)] for p in range(n)]  # recv[p][d] on p

    def push(d, p, count=elems):
        with torch.cuda.stream(send[d][p]), torch.cuda.stream(recv[p][d]):
            dst[p][d][:count].copy_(src[d][:count], non_blocking=True)

    def pair_streams(pairs):
        return [x for d, p in pairs for x in (send[d][p], recv[p][d])]

    # 1a. one direction, 1b. both directions of a pair at once
    ms = timed(lambda: push(0, 1), pair_streams([(0, 1)]))
    print(f"push 0->1 {args.mib} MiB: {ms * 1e3:.1f} us, {nbytes / ms / 1e6:.0f} GB/s")
    ms = timed(lambda: (push(0, 1), push(1, 0)), pair_streams([(0, 1), (1, 0)]))
    print(f"push 0<->1 {args.mib} MiB each way: {ms * 1e3:.1f} us, {nbytes / ms / 1e6:.0f} GB/s per direction")

    # 1c. every GPU pushes nbytes/n to every other GPU at once (a two-shot phase)
    if n > 2:
        part = elems // n
        pairs = [(d, p) for d in range(n) for p in range(n) if p != d]
        ms = timed(lambda: [push(d, p, part) for d, p in pairs], pair_streams(pairs))
        out = (n - 1) * part * 2
        print(f"all-to-all push, {out >> 20} MiB out of each GPU: {ms * 1e3:.1f} us, {out / ms / 1e6:.0f} GB/s per GPU")

    # 2. matmul beside a copy-engine pull of a peer buffer into the same GPU
    m, k, nn = 16384, 16384, 8192
    a = [torch.randn(m, k, device=f"cuda:{d}", dtype=torch.bfloat16) for d in range(2)]
    b = [torch.randn(k, nn, device=f"cuda:{d}", dtype=torch.bfloat16) for d in range(2)]
    c = [torch.empty(m, nn, device=f"cuda:{d}", dtype=torch.bfloat16) for d in range(2)]
    landing = [torch.empty(m * k, device=f"cuda:{d}", dtype=torch.bfloat16) for d in range(2)]
    mm_stream = [torch.cuda.Stream(device=d) for d in range(2)]
    cp_stream = [torch.cuda.Stream(device=d) for d in range(2)]

    def matmuls():
        for d in range(2):
            with torch.cuda.stream(mm_stream[d]):
                torch.matmul(a[d], b[d], out=c[d])

    peer_stream = [torch.cuda.Stream(device=d) for d in range(2)]

    def copies():
        # GPU d pulls the peer's A into its own memory (the ring's get), issued on d's stream
        for d in range(2):
            with torch.cuda.stream(peer_stream[1 - d]), torch.cuda.stream(cp_stream[d]):
                landing[d].copy_(a[1 - d].view(-1), non_blocking=True)

    flops = 2 * m * k * nn
    ms_mm = timed(matmuls, mm_stream, repeats=10)
    ms_cp = timed(copies, cp_stream + peer_stream, repeats=10)
    ms_both_mm = timed(lambda: (matmuls(), copies()), mm_stream, repeats=10)
    ms_both = timed(lambda: (matmuls(), copies()), mm_stream + cp_stream + peer_stream, repeats=10)
    print(f"matmul {m}x{k}x{nn} bf16 alone: {ms_mm:.3f} ms ({flops / ms_mm / 1e9:.0f} TFLOP/s)")
    print(f"pull of {m * k * 2 >> 20} MiB from the peer alone: {ms_cp:.3f} ms ({m * k * 2 / ms_cp / 1e6:.0f} GB/s)")
    print(f"matmul beside the pull: matmul stream {ms_both_mm:.3f} ms, both {ms_both:.3f} ms "
          f"(matmul slowed by {ms_both_mm - ms_mm:+.3f} ms)")


if __name__ == "__main__":
    main()
