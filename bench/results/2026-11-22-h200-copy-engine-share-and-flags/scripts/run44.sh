#!/usr/bin/env bash
# 4 x H200: the copy engine + SM stores one-shot prototype on GPUs 0 and 1 (64, 32, 16 MiB), and
# every GPU to its three peers with a share of the bytes on the copy engines.
# Usage: bash bench/results/2026-11-22-h200-copy-engine-share-and-flags/scripts/run44.sh
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
R="$WORK/r44"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
P="$PROBES"
step() {
  local name="$1"
  shift
  timeout 200 "$@" >"$R/$name.txt" 2>&1
  echo "$name: exit $?" >>"$R/steps.txt"
}
CUDA_VISIBLE_DEVICES=0,1 step hybrid-64mib "$P/hybrid-oneshot-ws" --mib 64
CUDA_VISIBLE_DEVICES=0,1 step hybrid-32mib "$P/hybrid-oneshot-ws" --mib 32
CUDA_VISIBLE_DEVICES=0,1 step hybrid-16mib "$P/hybrid-oneshot-ws" --mib 16
step all-to-all-mix "$P/nvlink-all-to-all" --mib 64
tar -czf "$OUT/r44.tar.gz" -C "$WORK" r44
cat "$R/steps.txt"
grep -h "graph\|GB/s per GPU" "$R"/hybrid-64mib.txt "$R"/all-to-all-mix.txt | head -90
