#!/usr/bin/env bash
# 2 x H200: oneshot_wst (the pushing team helps reduce the last chunk) against oneshot_ws: GPU
# tests of the communicator, diagnostics checks and bench, and the pipeline-depth sweep.
# Usage: bash bench/results/2026-11-22-2xH200-nvlink-ceiling/scripts/run42.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   GPURUN  staging folder for what the repository does not hold (default .gpurun at the
#           repository root):
#           tests/ (gpucomm-tests.jar, assertj-core-3.27.3.jar, byte-buddy-1.17.6.jar), junit.jar
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
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r42"
mkdir -p "$R/diag" "$R/chunks" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r42.tar.gz" -C "$WORK" r42
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree
step diag 150 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check --bench --samples 100 --json "$R/diag/bench.json"
step chunks 150 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/chunks" --tune-chunks --json "$R/chunks/chunks.json"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -E "check:|diagnostics:" "$R/diag/tp2.rank0.log" | tail -4
grep -E " (8388608|16777216|33554432|67108864) .*(oneshot_ws|oneshot_wst|oneshot )" "$R/diag/tp2.rank0.log" | grep -v "/"
grep -E "oneshot_wst?/" "$R/chunks/tp2.rank0.log"
