#!/usr/bin/env bash
# 2 x H200, after the review (kernel variants looked up by name): the communicator's GPU tests and
# the CUDA diagnostics' checks (every kernel by name, bit-for-bit against the others).
# Usage: bash bench/results/2026-11-22-2xH200-warp-specialized/scripts/run28.sh
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
R="$WORK/r28"
mkdir -p "$R/diag" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
timeout 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree >"$R/junit.log" 2>&1
echo "junit: exit $?" >>"$R/steps.txt"
timeout 150 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check >"$R/diag.log" 2>&1
echo "diag: exit $?" >>"$R/steps.txt"
tar -czf "$OUT/r28.tar.gz" -C "$WORK" r28
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -E "check:|diagnostics:" "$R/diag/tp2.rank0.log"
