#!/usr/bin/env bash
# Whether filling the outputs before measuring moves gpucomm's plain all-reduce kernels (the
# flag-free one-shot and two-shot), as it moves TensorRT-LLM's: bench/probes/plain-fill.cu,
#   nvcc -O3 -arch=sm_90 -cudart static -o PROBES/plain-fill bench/probes/plain-fill.cu
# Under 60 s on 2 GPUs.
# Usage: PROBES=.gpurun/probe bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v15.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
PROBES="${PROBES:-.gpurun/probe}"
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
nvidia-smi -L
timeout 150 "$PROBES/plain-fill" --calls 10 --samples 30 >"$OUT/plain-fill.txt" 2>&1
echo "plain-fill exit $?"
cat "$OUT/plain-fill.txt"
