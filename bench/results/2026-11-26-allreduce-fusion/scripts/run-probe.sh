#!/usr/bin/env bash
# One probe that takes only --calls and --samples, on 2 GPUs, its output kept in OUT:
#   fused-cluster  where the fused one-shot's cluster kernel runs its blocks (under 60 s)
#   plain-fill     whether the output fill moves the plain all-reduce kernels (under 60 s)
# built as the probe's header says:
#   nvcc -O3 -arch=sm_90 -cudart static -o PROBES/NAME bench/probes/NAME.cu
# Usage: PROBES=.gpurun/probe bash bench/results/2026-11-26-allreduce-fusion/scripts/run-probe.sh NAME
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
NAME="${1:?usage: run-probe.sh fused-cluster|plain-fill}"
case "$NAME" in
  fused-cluster | plain-fill) ;;
  *) echo "run-probe.sh: unknown probe '$NAME' (fused-cluster or plain-fill)" >&2; exit 2 ;;
esac
PROBES="${PROBES:-.gpurun/probe}"
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
nvidia-smi -L
timeout 150 "$PROBES/$NAME" --calls 10 --samples 30 >"$OUT/$NAME.txt" 2>&1
echo "$NAME exit $?"
cat "$OUT/$NAME.txt"
