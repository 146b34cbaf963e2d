#!/usr/bin/env bash
# The fused one-shot with its norm spread over the grid in 32-vector runs (fused_lamport_runs, the
# default) against one block per row (GPUCOMM_FUSED_RUNS=off, fused_lamport_spread), with the plain
# all-reduce and PyTorch's fused compositions in the same run, at tokens 32-256 x 8192 bf16
# (0.5-4 MiB), in under 330 s on 2 GPUs: the fused GPU tests (one rank: both kernels at the shapes
# each takes, calls alternating between them), gpucomm selftest across the GPUs, then the sweeps in
# CUDA graphs, runs / row blocks / runs again (so that a drift of the host shows), every point
# validated on every rank against the float64 reference, and bench/compare-torch.py with the fused
# pattern.
# The runs kernel exists at commit 9a24063 only (removed after this comparison): build the bundle
# there; on later trees GPUCOMM_FUSED_RUNS is ignored and every fused sweep runs the row blocks.
# Usage: bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v6.sh   (environment of run-v3.sh)
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOGGLE=GPUCOMM_FUSED_RUNS ON_NAME=runs OFF_NAME=rowblocks RUN="${RUN:-fusion-v6-tp${WORLD:-2}}" \
  exec bash "$HERE/run-v5.sh"
