#!/usr/bin/env bash
# 2 x H200: warp-specialized one-shot and two-shot kernels. GPU tests, the CUDA diagnostics
# (every kernel checked against a float64 reference and bit-for-bit against each other, then timed
# with NCCL at 0.5-64 MiB), the pipeline-depth sweep, and selftest with the specialized kernels
# forced at every size.
# Usage: bash bench/results/2026-11-22-2xH200-warp-specialized/scripts/run17.sh
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
R="$WORK/r17"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r17.tar.gz" -C "$WORK" r17
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree
mkdir -p diag-check diag-chunks
step diag-check 200 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag-check" --check --bench --samples 100 --json "$R/diag-check/bench.json"
step diag-chunks 150 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag-chunks" --tune-chunks --json "$R/diag-chunks/chunks.json"
GPUCOMM_ONESHOT_WS_MIN_BYTES=16 GPUCOMM_TWOSHOT_WS_MIN_BYTES=16 GPUCOMM_LAMPORT_MAX_BYTES=0 GPUCOMM_LAMPORT2_MAX_BYTES=0 \
  step selftest-ws-tp2 60 "$G" selftest --device cuda --world 2
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -E "check:|FAIL|diagnostics:" "$R/diag-check/tp2.rank0.log" | head -30
grep -E "^ *[0-9]+ +[0-9]+ " "$R/diag-check/tp2.rank0.log"
grep -E "^ *[0-9]+ +[0-9]+ " "$R/diag-chunks/tp2.rank0.log"
tail -3 "$R/selftest-ws-tp2.log"
