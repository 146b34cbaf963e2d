#!/usr/bin/env bash
# 2 x H200: host-IR programs with the ranks lined up before every timed and traced run (a
# one-element all-reduce on the main stream, untimed) against the same jobs without it
# (GPUCOMM_PROGRAM_ALIGN=off): columnParallelLinear and rowParallelLinear with 2 and 4 chunks.
# Usage: bash bench/results/2026-11-22-2xH200-warp-specialized/scripts/run25.sh
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
R="$WORK/r25"
mkdir -p "$R/programs" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r25.tar.gz" -C "$WORK" r25
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
runs=()
for job in column-parallel-linear-tp2 row-parallel-linear-tp2-s2-nccl-serial-all row-parallel-linear-tp2-s4-nccl-sm48; do
  for mode in aligned off aligned off; do
    runs+=("$job/$mode")
  done
done
i=0
for r in "${runs[@]}"; do
  i=$((i + 1)); job="${r%/*}"; mode="${r#*/}"
  if [ "$mode" = off ]; then
    GPUCOMM_PROGRAM_ALIGN=off step "$job-$mode-$i" 60 "$G" run -f "$HERE/programs/$job.yaml" --out "$R/programs/$job-$mode-$i"
  else
    step "$job-$mode-$i" 60 "$G" run -f "$HERE/programs/$job.yaml" --out "$R/programs/$job-$mode-$i"
  fi
done
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
i=0
for r in "${runs[@]}"; do i=$((i + 1)); job="${r%/*}"; mode="${r#*/}"; f="$R/$job-$mode-$i.log"; echo "== $job $mode: $(grep -E '^\| (unpipelined|pipelined|compute alone) ' "$f" | awk -F'|' '{printf "%s=%s ", $2, $3}')"; grep -E '^\| worker .*(recv|matmul)' "$f" | head -4; done
