#!/usr/bin/env bash
# Third run on one 4-GPU host, two lanes at once: the fused all-reduce patterns
# (2026-11-26-allreduce-fusion) on GPUs 0,1 and the single-launch all-gather and reduce-scatter
# (2026-11-26-gather-scatter) on GPUs 2,3 (each lane's figures and baselines come from its own
# pair), then two pods of two GPUs each (2026-11-26-hierarchical-cuda, run-two-per-pod.sh).
# Usage: OUT=... bash bench/results/2026-11-26-four-gpus/scripts/run3.sh   (BUNDLE, GPURUN as run1.sh)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
S="$ROOT/bench/results"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv; } >"$OUT/host.txt" 2>&1
head -3 "$OUT/host.txt"
CUDA_VISIBLE_DEVICES=0,1 WORK=/tmp/lane-fusion OUT="$OUT/fusion" \
  bash "$S/2026-11-26-allreduce-fusion/scripts/run.sh" >"$OUT/fusion.log" 2>&1 &
CUDA_VISIBLE_DEVICES=2,3 WORK=/tmp/lane-gather OUT="$OUT/gather" \
  bash "$S/2026-11-26-gather-scatter/scripts/run.sh" >"$OUT/gather.log" 2>&1 &
wait
tail -60 "$OUT/fusion.log"; tail -40 "$OUT/gather.log"
# then all four GPUs: two pods of two GPUs, flat NCCL against hierarchical, NVLink and sockets
WORK=/tmp/lane-hier OUT="$OUT/hier" timeout 220 \
  bash "$S/2026-11-26-hierarchical-cuda/scripts/run-two-per-pod.sh" >"$OUT/hier.log" 2>&1
tail -40 "$OUT/hier.log"
