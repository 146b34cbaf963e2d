#!/bin/bash
# Copy engine to a fixed GPU g + k, and the next GPU's part by the copy engine beside SM stores.
# Usage: bash bench/results/2026-11-22-4xH200-copy-engine-patterns/scripts/run84.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   PROBES  the bench/probes binaries (default $GPURUN/probes), built with
#           nvcc -O3 -arch=sm_90 -cudart static -o $PROBES/NAME bench/probes/NAME.cu
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
PROBES="${PROBES:-$B/probes}"
cd "$ROOT"
"$PROBES/nvlink-all-to-all" --mib 64 --calls 10 --samples 30 2>&1 | grep -v "^mix copy\|rounds\|pull" | tee $OUT/a2a-tp4.txt
"$PROBES/nvlink-all-to-all" --mib 32 --calls 10 --samples 30 2>&1 | grep -v "^mix copy\|rounds\|pull" | tee $OUT/a2a-tp4-32.txt
