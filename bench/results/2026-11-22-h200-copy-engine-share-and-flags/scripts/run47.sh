#!/usr/bin/env bash
# 4 x H200: the kernels raising and waiting for peers' flags only (no rank flags itself) against
# the committed kernels, alternating A B A B, TP2 (GPUs 0, 1) and TP4; checks and GPU tests of the
# communicator on the new kernels.
# Usage: bash bench/results/2026-11-22-h200-copy-engine-share-and-flags/scripts/run47.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   GPURUN  staging folder for what the repository does not hold (default .gpurun at the
#           repository root):
#           tests/ (gpucomm-tests.jar, assertj-core-3.27.3.jar, byte-buddy-1.17.6.jar), junit.jar
#           variants/*.jar (runtime jars built from the exploration diffs, git history)
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
R="$WORK/r47"
mkdir -p "$R" $WORK/a && tar -xJf "$BUNDLE" -C $WORK/a
cp -r $WORK/a $WORK/b && cp "$B/variants/peer-flags.jar" $WORK/b/gpucomm/lib/gpucomm-runtime-0.1.0-SNAPSHOT.jar
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r47.tar.gz" -C "$WORK" r47
}
diag() {  # diag NAME VARIANT WORLD ARGS...
  local name="$1" v="$2" world="$3"
  shift 3
  mkdir -p "$R/$name"
  step "$name" 90 bash "$ROOT/bench/cuda-diagnostics.sh" "$WORK/$v/gpucomm/bin/gpucomm" "$world" "$R/$name" "$@" --json "$R/$name/all.json"
}
cd "$R"
diag b-tp2-check b 2 --check --bench --samples 30
diag a-tp2-1 a 2 --bench --samples 30
diag b-tp2-1 b 2 --bench --samples 30
diag a-tp2-2 a 2 --bench --samples 30
diag b-tp2-2 b 2 --bench --samples 30
diag b-tp4-check b 4 --check --bench --samples 30
diag a-tp4-1 a 4 --bench --samples 30
diag b-tp4-1 b 4 --bench --samples 30
diag a-tp4-2 a 4 --bench --samples 30
diag b-tp4-2 b 4 --bench --samples 30
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls $WORK/b/gpucomm/lib/*.jar | tr '\n' ':')"
step junit-b 150 $WORK/b/gpucomm/jre/bin/java --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaDeviceGpuTest --details=tree
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit-b.log"
for d in b-tp2-check b-tp4-check; do grep -E "check:|diagnostics:" "$R/$d"/tp*.rank0.log | tail -3; done
for d in a-tp2-1 b-tp2-1 a-tp2-2 b-tp2-2 a-tp4-1 b-tp4-1 a-tp4-2 b-tp4-2; do
  echo "== $d"; grep -E " (16777216|33554432|67108864) .*(kernel:oneshot_ws|kernel:twoshot_ws|nccl)" "$R/$d"/tp*.rank0.log
done
