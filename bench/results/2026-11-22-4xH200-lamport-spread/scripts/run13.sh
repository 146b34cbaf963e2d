#!/usr/bin/env bash
# 4 x H200: GPU tests of the host-IR programs (local step in place, traced runs), then the
# programs with the timeline from a traced run that reuses its events.
# Usage: bash bench/results/2026-11-22-4xH200-lamport-spread/scripts/run13.sh
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
R="$WORK/r13"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r13.tar.gz" -C "$WORK" r13
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 100 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
for job in row-parallel-linear-tp2-s4-nccl-sm48 row-parallel-linear-tp4-s4-nccl-sm48-serial row-parallel-linear-tp2-s2 column-parallel-linear-tp4 column-parallel-linear-tp2; do
  step "$job" 60 "$G" run -f "$HERE/programs/$job.yaml" --out "$R/programs/$job"
done
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
for job in row-parallel-linear-tp2-s4-nccl-sm48 row-parallel-linear-tp4-s4-nccl-sm48-serial row-parallel-linear-tp2-s2 column-parallel-linear-tp4 column-parallel-linear-tp2; do echo "== $job"; grep -E "^\| (unpipelined|pipelined|compute|communication)" "$R/$job.log"; sed -n '/^| stream/,$p' "$R/$job.log" | head -14; done
