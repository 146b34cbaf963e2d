#!/bin/bash
# TP4: host memory bandwidth per GPU with sets of GPUs at once, and a share of a two-shot's
# scatter through host memory beside NVLink.
# Usage: bash bench/results/2026-11-22-4xH200-host-path-twoshot/scripts/run65.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   PROBES  the bench/probes binaries (default $GPURUN/probes), built with
#           nvcc -O3 -arch=sm_90 -cudart static -o $PROBES/NAME bench/probes/NAME.cu
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -x
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
PROBES="${PROBES:-$B/probes}"
cd "$ROOT"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv > $OUT/gpus.txt
nvidia-smi topo -m > $OUT/topo.txt 2>&1
lscpu > $OUT/lscpu.txt
numactl -H > $OUT/numa.txt 2>&1
chmod +x "$PROBES/pcie-all-to-all"
"$PROBES/pcie-all-to-all" --mib 64 --calls 10 --samples 30 > $OUT/pcie-all-to-all.txt 2>&1
echo rc=$? >> $OUT/pcie-all-to-all.txt
cat $OUT/topo.txt $OUT/pcie-all-to-all.txt
