#!/usr/bin/env bash
# 4 x H200: NVLink traffic from every GPU to every other at once (the two-shot's): SM stores,
# SM loads (pull), both at once, and copy engines; 64 and 32 MiB.
# Usage: bash bench/results/2026-11-22-4xH200-warp-specialized/scripts/run38.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
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
R="$WORK/r38"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
for mib in 64 32; do
  timeout 120 "$PROBES/nvlink-all-to-all" --mib $mib --calls 10 --samples 30 >"$R/all-to-all-${mib}mib.txt" 2>&1
  echo "all-to-all $mib: exit $?" >>"$R/steps.txt"
done
tar -czf "$OUT/r38.tar.gz" -C "$WORK" r38
cat "$R/steps.txt" "$R"/all-to-all-*.txt
