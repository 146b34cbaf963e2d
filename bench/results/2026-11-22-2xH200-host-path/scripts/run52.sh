#!/usr/bin/env bash
# 2 x H200: why the runtime's host path is slower than the prototype: the host-path copies with
# staging in a registered /dev/shm file against cudaHostAlloc memory, and the runtime's one-shot
# with the host path at other shares and chunk counts.
# Usage: bash bench/results/2026-11-22-2xH200-host-path/scripts/run52.sh
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
R="$WORK/r52"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r52.tar.gz" -C "$WORK" r52
}
cd "$R"
step pcie-hostalloc 60 "$PROBES/pcie-beside-nvlink" --mib 64 --samples 20
step pcie-shm 60 "$PROBES/pcie-beside-nvlink" --mib 64 --samples 20 --shm
for v in "SHARE=0.03" "SHARE=0.01" "CHUNKS=1" "CHUNKS=4"; do
  mkdir -p "$R/diag-$v"
  env "GPUCOMM_HOST_PATH_$v" bash -c "true" && \
  GPUCOMM_HOST_PATH_MIN_BYTES=33554432 env "GPUCOMM_HOST_PATH_$v" bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag-$v" --bench --samples 30 >"$R/diag-$v.log" 2>&1
  echo "diag-$v: exit $? (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r52.tar.gz" -C "$WORK" r52
done
cat "$R/steps.txt"
grep -h "share=1.00 chunks=16\|share=0.06\|share=0.00" "$R"/pcie-*.log
for v in "SHARE=0.03" "SHARE=0.01" "CHUNKS=1" "CHUNKS=4"; do
  echo "== $v"; grep -E "^ *(2048|4096) +[0-9]+ .*(oneshot_ws|oneshot_wsh|oneshot ) " "$R/diag-$v/tp2.rank0.log"
done
