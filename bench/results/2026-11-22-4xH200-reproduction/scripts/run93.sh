#!/usr/bin/env bash
# 4 x H200: our NCCL backend from graphs with NCCL's legacy-IPC registration of cuMemAlloc buffers
# (NCCL_LEGACY_CUDA_REGISTER=1) against the default, at TP4 and TP2, 16 to 64 MiB, beside our kernels.
# Usage: bash bench/results/2026-11-22-4xH200-reproduction/scripts/run93.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r93"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r93.tar.gz" -C "$WORK" r93
}
cd "$R"
run() { step "$1" 60 "$G" bench --device cuda --world "$2" --tokens 1024,2048,4096 --hidden 8192 --algorithms nccl,oneshot,twoshot --name "$1" --out "$R/$1"; }
run tp4-default 4
NCCL_LEGACY_CUDA_REGISTER=1 run tp4-legacy-register 4
run tp2-default 2
NCCL_LEGACY_CUDA_REGISTER=1 run tp2-legacy-register 2
for d in tp4-default tp4-legacy-register tp2-default tp2-legacy-register; do echo "== $d"; grep -A6 '## Latency' $d/report.md | grep 'MB |'; grep -A6 '## Eager' $d/report.md | grep 'MB |'; done
