#!/usr/bin/env bash
# 4 x H200: every probe of bench/probes rebuilt from the committed sources (the shared probe.h)
# and run once at 64 MiB, to check that they reproduce the figures of the runs before.
# Usage: bash bench/results/2026-11-22-2xH200-nvlink-ceiling/scripts/run40.sh
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
R="$WORK/r40"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
P="$PROBES"
step() {
  local name="$1"
  shift
  timeout 150 "$@" >"$R/$name.txt" 2>&1
  echo "$name: exit $?" >>"$R/steps.txt"
}
step stores "$P/nvlink-stores" --mib 64
step mix "$P/nvlink-stores" --mib 64 --mix
step ce-oneshot "$P/copy-engine-oneshot" --mib 64
step lamport-ws "$P/lamport-oneshot-ws" --mib 64
step all-to-all "$P/nvlink-all-to-all" --mib 64
tar -czf "$OUT/r40.tar.gz" -C "$WORK" r40
cat "$R/steps.txt"
grep -h "both-ways\|graph\|us \|GB/s per GPU" "$R"/*.txt | grep -v "^#" | head -80
