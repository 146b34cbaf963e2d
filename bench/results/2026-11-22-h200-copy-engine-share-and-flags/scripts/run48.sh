#!/usr/bin/env bash
# 4 x H200: the two-shot pipeline depth at TP4 (GPUCOMM_TWOSHOT_CHUNKS 2, 3, 1), alternating, on the
# committed kernels.
# Usage: bash bench/results/2026-11-22-h200-copy-engine-share-and-flags/scripts/run48.sh
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
R="$WORK/r48"
mkdir -p "$R" $WORK/a && tar -xJf "$BUNDLE" -C $WORK/a
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r48.tar.gz" -C "$WORK" r48
}
diag() {  # diag NAME CHUNKS
  mkdir -p "$R/$1"
  GPUCOMM_TWOSHOT_CHUNKS="$2" step "$1" 90 bash "$ROOT/bench/cuda-diagnostics.sh" $WORK/a/gpucomm/bin/gpucomm 4 "$R/$1" --bench --samples 30 --json "$R/$1/all.json"
}
cd "$R"
diag c2-1 2
diag c3-1 3
diag c1-1 1
diag c2-2 2
diag c3-2 3
cat "$R/steps.txt"
for d in c2-1 c3-1 c1-1 c2-2 c3-2; do
  echo "== $d"; grep -E " (8388608|16777216|33554432|67108864) .*(kernel:twoshot_ws|kernel:twoshot |nccl)" "$R/$d"/tp4.rank0.log
done
