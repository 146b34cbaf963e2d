#!/usr/bin/env bash
# 2 x H200: prototype of a copy-engine one-shot all-reduce (64 and 16 MiB; 1, 2 or 4 copy streams;
# chunk counts; eager and graph), checked against a double-precision reference.
# Usage: bash bench/results/2026-11-22-2xH200-nvlink-ceiling/scripts/run31.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
#   PROBES  the bench/probes binaries (default $GPURUN/probes), built with
#           nvcc -O3 -arch=sm_90 -cudart static -o $PROBES/NAME bench/probes/NAME.cu
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
PROBES="${PROBES:-$B/probes}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r31"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
for mib in 64 16; do
  timeout 120 "$PROBES/copy-engine-oneshot" --mib $mib --calls 10 --samples 30 >"$R/ce-oneshot-${mib}mib.txt" 2>&1
  echo "ce-oneshot $mib: exit $?" >>"$R/steps.txt"
done
tar -czf "$OUT/r31.tar.gz" -C "$WORK" r31
cat "$R/steps.txt" "$R"/ce-oneshot-*.txt
