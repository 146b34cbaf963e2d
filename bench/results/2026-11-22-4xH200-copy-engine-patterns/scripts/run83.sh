#!/bin/bash
# Copy-engine rounds against SM all-to-all on 4 and 2 GPUs.
# Usage: bash bench/results/2026-11-22-4xH200-copy-engine-patterns/scripts/run83.sh
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
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/host.txt
nvidia-smi topo -m >> $OUT/host.txt
"$PROBES/nvlink-all-to-all" --mib 64 --calls 10 --samples 30 2>&1 | tee $OUT/a2a-tp4.txt
CUDA_VISIBLE_DEVICES=0,1 "$PROBES/nvlink-all-to-all" --mib 64 --calls 10 --samples 30 2>&1 | tee $OUT/a2a-tp2.txt
"$PROBES/nvlink-all-to-all" --mib 32 --calls 10 --samples 30 2>&1 | tee $OUT/a2a-tp4-32.txt
