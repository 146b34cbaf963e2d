#!/usr/bin/env bash
# 2 x H200: the one-shot prototype with a share of the bytes sent through pinned host memory
# (PCIe, copy engines) beside the SM stores over NVLink; 64 and 32 MiB, eager.
# Usage: bash bench/results/2026-11-22-2xH200-host-path/scripts/run50.sh
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
R="$WORK/r50"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit,pcie.link.gen.max,pcie.link.width.max --format=csv; } >"$R/host.txt" 2>&1
P="$PROBES"
step() {
  local name="$1"
  shift
  timeout 200 "$@" >"$R/$name.txt" 2>&1
  echo "$name: exit $? ($SECONDS s)" >>"$R/steps.txt"
}
step host-64mib "$P/hybrid-oneshot-ws" --mib 64 --samples 50 --host
step host-32mib "$P/hybrid-oneshot-ws" --mib 32 --samples 50 --host
step host-64mib-again "$P/hybrid-oneshot-ws" --mib 64 --samples 50 --host
tar -czf "$OUT/r50.tar.gz" -C "$WORK" r50
cat "$R/steps.txt"
cat "$R/host-64mib.txt"
grep -h "sm-chunks=16 .*eager" "$R/host-32mib.txt" | sort -k7 -n | head -5
