#!/usr/bin/env bash
# 2 x H200: NVLink writes shared between a copy engine and SM stores at once (64 and 32 MiB).
# Usage: bash bench/results/2026-11-22-2xH200-nvlink-ceiling/scripts/run34.sh
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
R="$WORK/r34"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
for mib in 64 32; do
  timeout 120 "$PROBES/nvlink-stores" --mib $mib --mix >"$R/mix-${mib}mib.txt" 2>&1
  echo "mix $mib: exit $?" >>"$R/steps.txt"
done
tar -czf "$OUT/r34.tar.gz" -C "$WORK" r34
cat "$R/steps.txt" "$R"/mix-*.txt
