#!/usr/bin/env bash
# 2 x H200: prototype of a flag-free (with poll back-off) warp-specialized one-shot (16, 32, 64 MiB), then the CUDA
# diagnostics' bench (every kernel of the runtime, NCCL) in the same session for comparison.
# Usage: bash bench/results/2026-11-22-2xH200-nvlink-ceiling/scripts/run33.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
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
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
PROBES="${PROBES:-$B/probes}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r33"
mkdir -p "$R/diag" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
for mib in 64 32 16; do
  timeout 120 "$PROBES/lamport-oneshot-ws" --mib $mib --calls 10 --samples 30 >"$R/lamport-ws-${mib}mib.txt" 2>&1
  echo "lamport-ws $mib: exit $?" >>"$R/steps.txt"
done
timeout 200 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag" --bench --samples 100 --json "$R/diag/bench.json" >"$R/diag.log" 2>&1
echo "diag: exit $?" >>"$R/steps.txt"
tar -czf "$OUT/r33.tar.gz" -C "$WORK" r33
cat "$R/steps.txt" "$R"/lamport-ws-*.txt
grep -E " (16777216|33554432|67108864) " "$R/diag/tp2.rank0.log" | head -24
