#!/usr/bin/env bash
# 2 x H200: the host-path prototype with its staged chunks handed on by events (one process) and by
# stream-written words (as two processes must), 64 and 32 MiB.
# Usage: bash bench/results/2026-11-22-2xH200-host-path/scripts/run54.sh
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
R="$WORK/r54"
mkdir -p "$R"
step() {
  local name="$1"
  shift
  timeout 100 "$@" >"$R/$name.txt" 2>&1
  echo "$name: exit $? ($SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r54.tar.gz" -C "$WORK" r54
}
step events-64mib "$PROBES/hybrid-oneshot-ws" --mib 64 --samples 30 --host
step words-64mib "$PROBES/hybrid-oneshot-ws" --mib 64 --samples 30 --host-words
step words-32mib "$PROBES/hybrid-oneshot-ws" --mib 32 --samples 30 --host-words
cat "$R/steps.txt"
grep -h "share=0.0[0136] copy-chunks=[02] sm-chunks=16 " "$R/events-64mib.txt" "$R/words-64mib.txt" "$R/words-32mib.txt"
