#!/usr/bin/env bash
# 2 x H200: what a stream-to-stream hand-off through a word in memory costs (stream-handoff probe):
# words in GPU or host memory, one process or two, without copies or with 2 MiB and 256 KiB copies.
# Usage: bash bench/results/2026-11-22-4xH200-host-path-twoshot/scripts/run82.sh
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
R="$WORK/r82"
mkdir -p "$R"
{ nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
timeout 120 "$PROBES/stream-handoff" --calls 200 --samples 30 --chunk-kib 2048 >"$R/handoff-2mib.log" 2>&1
echo "exit $?" >>"$R/handoff-2mib.log"
timeout 90 "$PROBES/stream-handoff" --calls 200 --samples 30 --chunk-kib 256 >"$R/handoff-256kib.log" 2>&1
echo "exit $?" >>"$R/handoff-256kib.log"
tar -czf "$OUT/r82.tar.gz" -C "$WORK" r82
cat "$R"/handoff-*.log
