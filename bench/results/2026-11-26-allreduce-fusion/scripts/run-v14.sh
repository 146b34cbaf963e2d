#!/usr/bin/env bash
# Where the fused one-shot's cluster kernel runs its blocks, and whether one block a
# multiprocessor makes it faster: bench/probes/fused-cluster.cu, built as its header says,
#   nvcc -O3 -arch=sm_90 -cudart static -o PROBES/fused-cluster bench/probes/fused-cluster.cu
# Under 60 s on 2 GPUs.
# Usage: PROBES=.gpurun/probe bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v14.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
PROBES="${PROBES:-.gpurun/probe}"
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
nvidia-smi -L
timeout 150 "$PROBES/fused-cluster" --calls 10 --samples 30 >"$OUT/fused-cluster.txt" 2>&1
echo "fused-cluster exit $?"
cat "$OUT/fused-cluster.txt"
