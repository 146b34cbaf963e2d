#!/usr/bin/env bash
# 2 x H200: NVLink write bandwidth by SM stores, TMA bulk stores and copy engines (one way and
# both ways), then the power drawn by transfers alone (copy engines, then SM stores), sampled by
# nvidia-smi every 20 ms.
# Usage: bash bench/results/2026-11-22-2xH200-nvlink-ceiling/scripts/run29.sh
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
R="$WORK/r29"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
P="$PROBES/nvlink-stores"
timeout 240 "$P" --mib 64 --calls 10 --samples 30 >"$R/stores-64mib.txt" 2>&1
echo "stores: exit $?" >>"$R/steps.txt"
for mode in ce sm; do
  nvidia-smi --query-gpu=timestamp,index,power.draw,power.draw.instant,clocks.sm,clocks.mem,utilization.gpu \
    --format=csv,nounits -lms 20 >"$R/smi-$mode.csv" 2>&1 &
  S=$!
  sleep 1
  timeout 60 "$P" --mib 64 --power-seconds 8 --power-mode $mode >"$R/power-$mode.txt" 2>&1
  echo "power $mode: exit $?" >>"$R/steps.txt"
  sleep 1
  kill $S
done
tar -czf "$OUT/r29.tar.gz" -C "$WORK" r29
cat "$R/steps.txt" "$R/stores-64mib.txt" "$R"/power-*.txt
