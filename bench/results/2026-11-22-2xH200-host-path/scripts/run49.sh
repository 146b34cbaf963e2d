#!/usr/bin/env bash
# 2 x H200: whether the PCIe links (through pinned host memory) add bandwidth beside NVLink.
# Usage: bash bench/results/2026-11-22-2xH200-host-path/scripts/run49.sh
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
R="$WORK/r49"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit,pcie.link.gen.max,pcie.link.width.max --format=csv; nvidia-smi topo -m; lscpu | grep -E "Model name|NUMA node"; } >"$R/host.txt" 2>&1
P="$PROBES"
step() {
  local name="$1"
  shift
  timeout 200 "$@" >"$R/$name.txt" 2>&1
  echo "$name: exit $? ($SECONDS s)" >>"$R/steps.txt"
}
step pcie-64mib "$P/pcie-beside-nvlink" --mib 64
step pcie-32mib "$P/pcie-beside-nvlink" --mib 32
tar -czf "$OUT/r49.tar.gz" -C "$WORK" r49
cat "$R/steps.txt" "$R/host.txt"
cat "$R/pcie-64mib.txt"
