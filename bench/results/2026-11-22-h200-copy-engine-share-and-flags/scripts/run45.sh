#!/usr/bin/env bash
# 2 x H200: the SM one-shot of the prototype with three ways of raising the pushing warps' chunk
# flags (team barrier + one release, one release per warp, a flag warp), 64, 32 and 16 MiB.
# Usage: bash bench/results/2026-11-22-h200-copy-engine-share-and-flags/scripts/run45.sh
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
R="$WORK/r45"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
P="$PROBES"
step() {
  local name="$1"
  shift
  timeout 200 "$@" >"$R/$name.txt" 2>&1
  echo "$name: exit $?" >>"$R/steps.txt"
}
step flags-64mib "$P/hybrid-oneshot-ws" --mib 64 --samples 50 --flags
step flags-32mib "$P/hybrid-oneshot-ws" --mib 32 --samples 50 --flags
step flags-16mib "$P/hybrid-oneshot-ws" --mib 16 --samples 50 --flags
step flags-64mib-again "$P/hybrid-oneshot-ws" --mib 64 --samples 50 --flags
tar -czf "$OUT/r45.tar.gz" -C "$WORK" r45
cat "$R/steps.txt"
grep -h "graph" "$R"/flags-64mib.txt "$R"/flags-64mib-again.txt
