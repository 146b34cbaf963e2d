"""PyTorch's all-gather and reduce-scatter for bench/compare-torch.py --collective.

Runners per size (bytes per rank: all-gather's input, reduce-scatter's output, as in
`gpucomm bench --sizes`), bf16:
  torch_nccl      dist.all_gather_into_tensor / dist.reduce_scatter_tensor
  symm_low_contention
                  torch.ops.symm_mem._low_contention_all_gather / _low_contention_reduce_scatter
                  (symmetric memory, peers' buffers copied without NVLink multicast), where this
                  PyTorch has them; otherwise a line says why they are missing.
All-gather results must equal every rank's input bit for bit; reduce-scatter results are checked
against the float64 sum with the bound compare-torch.py uses for all-reduce.
"""

import torch
import torch.distributed as dist


def make_input(rank, elements, device, salt):
    generator = torch.Generator(device=device).manual_seed(5000 + 17 * rank + salt)
    return (torch.rand(elements, generator=generator, device=device) * 2 - 1).to(torch.bfloat16)


def check_gather(result, world, elements, device):
    for rank in range(world):
        expected = make_input(rank, elements, device, elements)
        if not torch.equal(result[rank * elements:(rank + 1) * elements], expected):
            raise AssertionError(f"all-gather: rank {rank}'s part differs from its input")
    return 0.0


def check_scatter(result, rank, world, elements, device):
    expected = torch.zeros(elements, dtype=torch.float64, device=device)
    magnitudes = torch.zeros_like(expected)
    for source in range(world):
        x = make_input(source, elements * world, device, elements)
        part = x[rank * elements:(rank + 1) * elements].double()
        expected += part
        magnitudes += part.abs()
    u = 2.0 ** -8
    deviation = (result.double() - expected).abs()
    excess = deviation - (u * expected.abs() + (world - 1) * u * magnitudes)
    worst = int(excess.argmax().item())
    if excess[worst].item() > 0:
        raise AssertionError(
            f"reduce-scatter off by {deviation[worst].item()} at element {worst}")
    return deviation.max().item()


def runners(collective, rank, world, elements, device, symm, group_name, notes):
    """name -> (prepare, call, check) for one size; prepare() copies fresh input in."""
    gather = collective == "allgather"
    source = make_input(rank, elements * (1 if gather else world), device, elements)
    out_elements = elements * world if gather else elements
    found = {}
    nccl_in = torch.empty_like(source)
    nccl_out = torch.empty(out_elements, dtype=torch.bfloat16, device=device)
    if gather:
        def nccl_call():
            dist.all_gather_into_tensor(nccl_out, nccl_in)
    else:
        def nccl_call():
            dist.reduce_scatter_tensor(nccl_out, nccl_in)
    found["torch_nccl"] = (lambda: nccl_in.copy_(source), nccl_call, lambda: nccl_out)
    op_name = "_low_contention_all_gather" if gather else "_low_contention_reduce_scatter"
    if symm is None:
        notes.add("symm_low_contention skipped: symmetric memory is unavailable in this PyTorch")
    elif not hasattr(torch.ops.symm_mem, op_name):
        notes.add(f"symm_low_contention skipped: torch.ops.symm_mem.{op_name} is absent in "
                  f"PyTorch {torch.__version__}")
    else:
        buffer = symm.empty(source.numel(), dtype=torch.bfloat16, device=device)
        symm.rendezvous(buffer, group_name)
        symm_out = torch.empty(out_elements, dtype=torch.bfloat16, device=device)
        op = getattr(torch.ops.symm_mem, op_name)
        if gather:
            def symm_call():
                symm_out.copy_(op(buffer, group_name))
        else:
            def symm_call():
                symm_out.copy_(op(buffer, "sum", group_name))
        found["symm_low_contention"] = (lambda: buffer.copy_(source), symm_call, lambda: symm_out)
    checker = (lambda r: check_gather(r, world, elements, device)) if gather else (
        lambda r: check_scatter(r, rank, world, elements, device))
    return {name: (prepare, call, result, checker) for name, (prepare, call, result) in found.items()}
