#!/usr/bin/env python3
"""PyTorch's all-reduce on this host, measured the way gpucomm measures its own.

Times torch.distributed NCCL all-reduce and PyTorch symmetric-memory one-shot / two-shot
all-reduce (torch.ops.symm_mem.one_shot_all_reduce / two_shot_all_reduce_) on bf16 tensors of
tokens x hidden elements, one process per GPU, with CUDA events: eager (an event after every call,
calls back to back) and CUDA graph (10 calls captured, replayed; time per call), median of the
timed iterations after a warm-up. Every result is checked against a float64 sum first.

torch.distributed.all_reduce runs in place (the output over the input): set it beside
`gpucomm bench --algorithms nccl --in-place`, which times NCCL the same way. gpucomm's default,
out of place, is up to ~4 % slower in NCCL at 16 MiB on H200s.

    python3 bench/compare-torch.py --world 4 [--tokens 32,64,...] [--json out.json]

With --collective allgather or reducescatter it times PyTorch's all-gather and reduce-scatter
instead (bench/torch_gather_scatter.py: NCCL, and symmetric memory's variants where this PyTorch
has them) over --sizes, bytes per rank as in `gpucomm bench --sizes`:

    python3 bench/compare-torch.py --world 2 --collective allgather --sizes 65536,1048576

Each of those runners runs in processes of its own under --runner-timeout seconds, so a runner
that hangs or aborts is reported as such and the others are still measured.
With --pattern allreduceResidualRmsNorm every runner is followed by PyTorch's composition of the
epilogue gpucomm fuses: residual_out = sum + residual, out = torch.nn.functional.rms_norm(
residual_out, (hidden,), gamma, eps) (runner names get "+rmsnorm"), checked against a float64
reference of the whole pattern; set it beside `gpucomm bench --pattern allreduceResidualRmsNorm`.

Keep NVLink multicast off where others share the GPUs:
NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1.
"""

import argparse
import json
import os
import statistics
import sys
import time
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

CALLS_PER_GRAPH = 10


def timed_eager(call, iterations, stream):
    events = [torch.cuda.Event(enable_timing=True) for _ in range(iterations + 1)]
    with torch.cuda.stream(stream):
        events[0].record(stream)
        for i in range(iterations):
            call()
            events[i + 1].record(stream)
    events[-1].synchronize()
    return statistics.median(events[i].elapsed_time(events[i + 1]) * 1000.0 for i in range(iterations))


def timed_graph(call, replays, stream):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.stream(stream):
        call()  # warm up outside the capture (lazy initialization)
    stream.synchronize()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(CALLS_PER_GRAPH):
            call()
    events = [torch.cuda.Event(enable_timing=True) for _ in range(replays + 1)]
    with torch.cuda.stream(stream):
        graph.replay()
        events[0].record(stream)
        for i in range(replays):
            graph.replay()
            events[i + 1].record(stream)
    events[-1].synchronize()
    return statistics.median(
        events[i].elapsed_time(events[i + 1]) * 1000.0 / CALLS_PER_GRAPH for i in range(replays))


def check(result, world, tokens, hidden):
    """Compares with the float64 sum of every rank's input (regenerated from the seeds), element by
    element: one bf16 rounding of the sum (u |sum|, u = 2^-8) plus one per addition, since NCCL's
    ring and PyTorch's kernels may round partial sums to bf16 ((world - 1) u sum |x|). A missing or
    doubled rank errs by about sum |x| / world, far above that."""
    expected = torch.zeros(tokens, hidden, dtype=torch.float64, device=result.device)
    magnitudes = torch.zeros_like(expected)
    for rank in range(world):
        x = make_input(rank, tokens, hidden, result.device).double()
        expected += x
        magnitudes += x.abs()
    u = 2.0 ** -8
    deviation = (result.double() - expected).abs()
    excess = deviation - (u * expected.abs() + (world - 1) * u * magnitudes)
    worst = int(excess.argmax().item())
    if excess.view(-1)[worst].item() > 0:
        raise AssertionError(
            f"all-reduce of {tokens} tokens off by {deviation.view(-1)[worst].item()} at element "
            f"{worst} (sum {expected.view(-1)[worst].item()}, sum of magnitudes "
            f"{magnitudes.view(-1)[worst].item()})")
    return deviation.max().item()


RMS_NORM_EPS = 1e-6


def make_residual_and_gamma(tokens, hidden, device):
    generator = torch.Generator(device=device).manual_seed(7 + tokens)
    residual = torch.rand(tokens, hidden, generator=generator, device=device) * 2 - 1
    gamma = torch.rand(hidden, generator=generator, device=device) * 2 - 1
    return residual.to(torch.bfloat16), gamma.to(torch.bfloat16)


def check_norm(out, world, tokens, hidden):
    """Compares out with the float64 reference of the whole pattern, R = sum x + residual,
    out = R / sqrt(mean(R^2) + eps) * gamma, element by element. The composition rounds the sum,
    then R, then out to bf16 (u = 2^-8 each) and NCCL may round partial sums ((world - 1) u sum|x|):
    with A = sum|x| + |residual| an element of R errs by at most (world + 1) u A, which moves out
    by |gamma| (world + 1) u A / rms and the row's rms by at most the root mean square of those
    errors; the final rounding adds u |out|. A missing rank or residual errs by a whole term."""
    residual, gamma = make_residual_and_gamma(tokens, hidden, out.device)
    total = residual.double()
    magnitudes = residual.double().abs()
    for rank in range(world):
        x = make_input(rank, tokens, hidden, out.device).double()
        total = total + x
        magnitudes = magnitudes + x.abs()
    rms = (total.pow(2).mean(dim=1, keepdim=True) + RMS_NORM_EPS).sqrt()
    expected = total / rms * gamma.double()
    u = 2.0 ** -8
    element_error = (world + 1) * u * magnitudes
    rms_error = element_error.pow(2).mean(dim=1, keepdim=True).sqrt()
    bound = (gamma.double().abs() * element_error / rms + expected.abs() * rms_error / (rms - rms_error)
             + 2 * u * expected.abs() + 2.0 ** -133)
    deviation = (out.double() - expected).abs()
    excess = deviation - bound
    worst = int(excess.argmax().item())
    if excess.view(-1)[worst].item() > 0:
        raise AssertionError(
            f"all-reduce + residual + rms_norm of {tokens} tokens off by "
            f"{deviation.view(-1)[worst].item()} at element {worst} (bound {bound.view(-1)[worst].item()})")
    return deviation.max().item()


def with_rms_norm(call, result, tokens, hidden, device):
    """The runner's all-reduce followed by the epilogue, as a model written in PyTorch runs it."""
    residual, gamma = make_residual_and_gamma(tokens, hidden, device)
    residual_out = torch.empty_like(residual)
    holder = [None]

    def fused():
        call()
        torch.add(result(), residual, out=residual_out)
        holder[0] = torch.nn.functional.rms_norm(residual_out, (hidden,), gamma, RMS_NORM_EPS)

    return fused, lambda: holder[0]


def make_input(rank, tokens, hidden, device):
    generator = torch.Generator(device=device).manual_seed(1000 + 17 * rank + tokens)
    return (torch.rand(tokens, hidden, generator=generator, device=device) * 2 - 1).to(torch.bfloat16)


def worker(rank, world, args, queue):
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
    torch.cuda.set_device(rank)
    device = torch.device("cuda", rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank,
                            world_size=world, device_id=device)
    group_name = dist.group.WORLD.group_name
    symm = None
    try:
        import torch.distributed._symmetric_memory as symm_mem
        if hasattr(symm_mem, "enable_symm_mem_for_group"):
            # Needed before PyTorch 2.10; later releases enable it themselves and warn.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                symm_mem.enable_symm_mem_for_group(group_name)
        symm = symm_mem
    except ImportError as e:  # pragma: no cover - depends on the PyTorch build
        print(f"symmetric memory unavailable: {e}", file=sys.stderr)
    stream = torch.cuda.Stream()
    rows = []
    if args.collective != "allreduce":
        rows = gather_scatter_rows(rank, world, args, device, symm, group_name, stream)
    for tokens in (args.tokens if args.collective == "allreduce" else []):
        shape = (tokens, args.hidden)
        source = make_input(rank, tokens, args.hidden, device)
        runners = {}
        nccl_buffer = torch.empty_like(source)

        def nccl_call(buffer=nccl_buffer):
            dist.all_reduce(buffer)

        runners["torch_nccl"] = (nccl_buffer, nccl_call, lambda b=nccl_buffer: b)
        if symm is not None:
            one = symm.empty(shape, dtype=torch.bfloat16, device=device)
            symm.rendezvous(one, group_name)
            one_out = torch.empty_like(one)

            if hasattr(torch.ops.symm_mem, "one_shot_all_reduce_out"):
                def one_shot(buffer=one, out=one_out):
                    torch.ops.symm_mem.one_shot_all_reduce_out(buffer, "sum", group_name, out)
            else:
                def one_shot(buffer=one, out=one_out):
                    out.copy_(torch.ops.symm_mem.one_shot_all_reduce(buffer, "sum", group_name))

            runners["symm_one_shot"] = (one, one_shot, lambda o=one_out: o)
            two = symm.empty(shape, dtype=torch.bfloat16, device=device)
            symm.rendezvous(two, group_name)

            def two_shot(buffer=two):
                torch.ops.symm_mem.two_shot_all_reduce_(buffer, "sum", group_name)

            runners["symm_two_shot"] = (two, two_shot, lambda b=two: b)
        verify = check
        if args.pattern == "allreduceResidualRmsNorm":
            verify = check_norm
            runners = {name + "+rmsnorm": (buffer, *with_rms_norm(call, result, tokens, args.hidden, device))
                       for name, (buffer, call, result) in runners.items()}
        for name, (buffer, call, result) in runners.items():
            try:
                buffer.copy_(source)
                dist.barrier()
                with torch.cuda.stream(stream):
                    call()
                stream.synchronize()
                error = verify(result(), world, tokens, args.hidden)
                with torch.cuda.stream(stream):
                    for _ in range(args.warmup):
                        call()
                stream.synchronize()
                dist.barrier()
                eager = timed_eager(call, args.iterations, stream)
                dist.barrier()
                graph = timed_graph(call, args.iterations, stream)
                rows.append({"world": world, "tokens": tokens, "bytes": source.numel() * 2,
                             "pattern": args.pattern, "runner": name, "eagerMicros": eager, "graphMicros": graph,
                             "maxAbsError": error})
            except Exception as e:  # keep measuring the others; say what failed
                rows.append({"world": world, "tokens": tokens, "runner": name, "error": str(e)})
            stream.synchronize()
    if rank == 0:
        queue.put(rows)
    dist.barrier()
    dist.destroy_process_group()


def gather_scatter_rows(rank, world, args, device, symm, group_name, stream):
    """All-gather or reduce-scatter rows, timed and checked as the all-reduce rows are."""
    import torch_gather_scatter

    rows = []
    notes = set()
    for size in args.sizes:
        elements = size // 2
        found = torch_gather_scatter.runners(
            args.collective, rank, world, elements, device, symm, group_name, notes)
        found = {name: runner for name, runner in found.items() if name == args.only}
        for name, (prepare, call, result, checker) in found.items():
            try:
                prepare()
                dist.barrier()
                with torch.cuda.stream(stream):
                    call()
                stream.synchronize()
                error = checker(result())
                with torch.cuda.stream(stream):
                    for _ in range(args.warmup):
                        call()
                stream.synchronize()
                dist.barrier()
                eager = timed_eager(call, args.iterations, stream)
                dist.barrier()
                graph = timed_graph(call, args.iterations, stream)
                rows.append({"world": world, "tokens": 0, "bytes": size, "runner": name,
                             "collective": args.collective, "eagerMicros": eager,
                             "graphMicros": graph, "maxAbsError": error})
            except Exception as e:  # keep measuring the others; say what failed
                rows.append({"world": world, "tokens": 0, "bytes": size, "runner": name,
                             "error": str(e)})
            stream.synchronize()
    if rank == 0:
        for note in sorted(notes):
            print(note, file=sys.stderr)
    return rows


GATHER_SCATTER_RUNNERS = ("torch_nccl", "symm_low_contention")


def run_isolated(args, runner):
    """Rows of one runner, measured in processes of its own; a hang or a crash becomes a row."""
    args.only = runner
    context = mp.get_context("spawn")
    queue = context.SimpleQueue()
    processes = mp.spawn(worker, args=(args.world, args, queue), nprocs=args.world, join=False)
    deadline = time.monotonic() + args.runner_timeout
    failure = None
    try:
        while not processes.join(timeout=1):
            if time.monotonic() > deadline:
                failure = f"timed out after {args.runner_timeout} s"
                break
    except mp.ProcessExitedException as e:
        failure = f"worker died: {e}"
    rows = queue.get() if not queue.empty() else []
    if failure is not None:
        for process in processes.processes:
            if process.is_alive():
                process.kill()
        for process in processes.processes:
            process.join()
        print(f"{runner}: {failure}", file=sys.stderr)
        rows.append({"world": args.world, "tokens": 0, "runner": runner, "error": failure})
    elif not rows:
        rows.append({"world": args.world, "tokens": 0, "runner": runner,
                     "error": "no rows came back"})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", type=int, default=torch.cuda.device_count())
    parser.add_argument("--tokens", default="32,64,128,256,512,1024,2048,4096")
    parser.add_argument("--hidden", type=int, default=8192)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--port", type=int, default=29650)
    parser.add_argument("--json")
    parser.add_argument("--collective", choices=["allreduce", "allgather", "reducescatter"],
                        default="allreduce")
    parser.add_argument("--sizes", default="65536,1048576,16777216,67108864,268435456",
                        help="bytes per rank for allgather and reducescatter")
    parser.add_argument("--runner-timeout", type=int, default=60,
                        help="seconds each allgather/reducescatter runner may take")
    parser.add_argument("--pattern", default="allreduce",
                        choices=["allreduce", "allreduceResidualRmsNorm"])
    args = parser.parse_args()
    args.tokens = [int(t) for t in args.tokens.split(",")]
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if args.collective == "allreduce":
        context = mp.get_context("spawn")
        queue = context.SimpleQueue()
        mp.spawn(worker, args=(args.world, args, queue), nprocs=args.world, join=True)
        rows = queue.get()
    else:
        rows = []
        base_port = args.port
        for index, runner in enumerate(GATHER_SCATTER_RUNNERS):
            args.port = base_port + index
            rows.extend(run_isolated(args, runner))
    print(f"PyTorch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, "
          f"{args.world} x {torch.cuda.get_device_name(0)}; microseconds, median of {args.iterations}")
    print(f"{'tokens':>6} {'bytes':>10}  {'runner':<22} {'eager':>8} {'graph':>8}")
    for row in rows:
        if "error" in row:
            print(f"{row['tokens']:>6} {'':>10}  {row['runner']:<22} failed: {row['error']}")
        else:
            print(f"{row['tokens']:>6} {row['bytes']:>10}  {row['runner']:<22} "
                  f"{row['eagerMicros']:>8.2f} {row['graphMicros']:>8.2f}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"torch": torch.__version__, "nccl": torch.cuda.nccl.version(),
                       "device": torch.cuda.get_device_name(0), "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main()
