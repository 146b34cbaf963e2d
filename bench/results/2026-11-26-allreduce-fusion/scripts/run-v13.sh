#!/usr/bin/env bash
# Whether filling the outputs before measuring moves gpucomm's fused kernels, as it moves
# TensorRT-LLM's (run-v12.sh). gpucomm bench fills its outputs with 0xff bytes before the call it
# checks, just before its timed calls; the probes fill nothing unless FUSED_PROBE_FILL_OUTPUTS=1.
# Alternately on one host, twice each, 10 calls a graph:
#   bench/probes/fused-twoshot.cu (the runtime's fused_lamport2 and fused_lamport2_own, world 2)
#   bench/probes/fused-residency.cu (fused_lamport_spread and its variants, one-shot)
#   nvcc -O3 -arch=sm_90 -cudart static -o PROBES/fused-twoshot bench/probes/fused-twoshot.cu
#   nvcc -O3 -arch=sm_90 -cudart static -o PROBES/fused-residency bench/probes/fused-residency.cu
# Under 300 s on 2 GPUs.
# Usage: PROBES=.gpurun/probe bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v13.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
PROBES="${PROBES:-.gpurun/probe}"
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
nvidia-smi -L
for round in 1 2; do
  for fill in 0 1; do
    echo "== fill $fill, round $round"
    FUSED_PROBE_FILL_OUTPUTS=$fill FUSED_TWOSHOT_MODES=full,runtime-own timeout 100 \
      "$PROBES/fused-twoshot" --calls 10 --samples 30 >"$OUT/twoshot-fill$fill-$round.txt"
    echo "fused-twoshot exit $?"
    FUSED_PROBE_FILL_OUTPUTS=$fill timeout 100 "$PROBES/fused-residency" --calls 10 --samples 30 \
      >"$OUT/oneshot-fill$fill-$round.txt"
    echo "fused-residency exit $?"
  done
done
