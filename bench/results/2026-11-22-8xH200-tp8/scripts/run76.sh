#!/usr/bin/env bash
# 4 x H200: what a ring's traffic gets (every GPU pushing to its next GPU only, or half to the next
# and half to the previous) against the all-to-all of the two-shot, on 4 and 2 GPUs.
# Usage: bash bench/results/2026-11-22-8xH200-tp8/scripts/run76.sh
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
R="$WORK/r76"
mkdir -p "$R"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r76.tar.gz" -C "$WORK" r76
}
{ nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
step a2a-4 90 "$PROBES/nvlink-all-to-all" --mib 64
CUDA_VISIBLE_DEVICES=0,1 step a2a-2 90 "$PROBES/nvlink-all-to-all" --mib 64
cat "$R/steps.txt"
for n in 4 2; do echo "== $n"; grep -E "^sm|^ce" "$R/a2a-$n.log"; done
