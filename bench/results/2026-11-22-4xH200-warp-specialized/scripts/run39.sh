#!/usr/bin/env bash
# 4 x H200: the two-shot with a pushed gather (twoshot_wsp: the reduce team stores each reduced
# chunk into the peers' gather areas; the gather team copies locally) against twoshot_ws (gather
# pulls) and the flag two-shot. GPU tests; diagnostics at TP4 (checks, bench, pipeline depths)
# and at TP2 (checks, bench).
# Usage: bash bench/results/2026-11-22-4xH200-warp-specialized/scripts/run39.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
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
R="$WORK/r39"
mkdir -p "$R/diag-tp4" "$R/chunks-tp4" "$R/diag-tp2" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r39.tar.gz" -C "$WORK" r39
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree
GPUCOMM_LAMPORT_MAX_BYTES=4194304 GPUCOMM_LAMPORT2_MAX_BYTES=4194304 \
  step diag-tp4 150 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 4 "$R/diag-tp4" --check --bench --samples 100 --json "$R/diag-tp4/bench.json"
step chunks-tp4 200 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 4 "$R/chunks-tp4" --tune-chunks --json "$R/chunks-tp4/chunks.json"
step diag-tp2 150 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag-tp2" --check --bench --samples 100 --json "$R/diag-tp2/bench.json"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -E "check:|diagnostics:" "$R/diag-tp4/tp4.rank0.log" "$R/diag-tp2/tp2.rank0.log" | tail -8
grep -E " (16777216|33554432|67108864) .*(twoshot|nccl)" "$R/diag-tp4/tp4.rank0.log" | grep -v "/" | tail -15
grep -E "twoshot_ws" "$R/chunks-tp4/tp4.rank0.log" | tail -12
grep -E " (33554432|67108864) .*(kernel:|nccl)" "$R/diag-tp2/tp2.rank0.log" | grep -v "/" | tail -14
