#!/usr/bin/env bash
# The spread fused kernels against the plain all-reduce and the first fused kernels, at tokens
# 4-256 x hidden 8192 bf16 (64 KiB-4 MiB), in under 150 s on 2 GPUs: the GPU tests of the fused
# kernels (one rank, both kernel sets), selftest across the GPUs (every fused algorithm x pattern x
# dtype, validated on every rank), then three sweeps in CUDA graphs: plain all-reduce, the fused
# pattern on the spread kernels (the default), the fused pattern on the first kernels
# (GPUCOMM_FUSED_SPREAD=off). Each step stops at its time limit, and every step together at 145 s.
# Usage: bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v2.sh   (optional: RUN, WORLD)
#   Runs from any folder; needs WORLD (default 2; 4 also works) NVIDIA GPUs, the first WORLD of
#   CUDA_VISIBLE_DEVICES, and the environment of run.sh:
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz:
#           ./mvnw -q -pl app -am package -Pbundle -DskipTests)
#   GPURUN  folder with tests/*.jar (the runtime modules' test classes and their test libraries,
#           see bench/README.md) and junit.jar (default .gpurun at the repository root)
#   SKIP_JUNIT  if set, leaves out the GPU JUnit tests (they use one GPU; run them once per host)
#   WORK    scratch folder (default $TMPDIR or /tmp); OUT receives the raw output (default bench/out)
export NCCL_NVLS_ENABLE=0
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
WORLD="${WORLD:-2}"
RUN="${RUN:-fusion-v2-tp$WORLD}"
BUDGET=145
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
source "$ROOT/bench/libs.sh" >"$R/libs.txt"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
GPUS=$(nvidia-smi -L | wc -l)
# nvidia-smi lists every GPU of the host; count only those this process may use
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && GPUS=$(tr , "\n" <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
if [ "$GPUS" -lt "$WORLD" ]; then
  echo "WORLD=$WORLD needs $WORLD GPUs, $GPUS visible" | tee "$R/steps.txt"
  exit 1
fi
# step NAME LIMIT COMMAND...: runs COMMAND for at most LIMIT seconds and never past the budget.
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  local left=$((BUDGET - SECONDS))
  if [ "$left" -le 5 ]; then
    echo "$name: skipped, the ${BUDGET} s budget is spent" | tee -a "$R/steps.txt"
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
head -3 "$R/host.txt"
# the jlinked runtime has no jar file system, so JUnit scans the test classes as a folder
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
[ -n "${SKIP_JUNIT:-}" ] || step junit 35 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.CudaFusedAllReduceGpuTest \
  --include-tag gpu --fail-if-no-tests --details=tree --disable-banner
grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
grep -E "✘|MethodSource|=> " "$R/junit.log" | head -12
# selftest has no option to pick the fused cases; the whole run checks them with the plain ones
step "selftest-tp$WORLD" 45 "$G" selftest --device cuda --world "$WORLD"
grep -E "selftest passed|gpucomm selftest:|Exception|rror" "$R/selftest-tp$WORLD.log" | tail -8

T=(--device cuda --world "$WORLD" --tokens 4,32,64,128,256 --hidden 8192 --dtype bf16
  --algorithms nccl,oneshot,twoshot)
# the CUDA-graph latency table of a report (eager-only cells carry a *)
latency() { awk '/^## Latency/ {on = 1; next} /^## / {on = 0} on && /^\|/' "$1/report.md"; }
step "plain-tp$WORLD" 20 "$G" bench "${T[@]}" --pattern allreduce --name "plain-tp$WORLD" \
  --out "$R/plain-tp$WORLD"
echo "== plain all-reduce, TP$WORLD (graph medians in report.md)" && latency "$R/plain-tp$WORLD"
step "fused-tp$WORLD" 20 "$G" bench "${T[@]}" --pattern allreduceResidualRmsNorm \
  --name "fused-tp$WORLD" --out "$R/fused-tp$WORLD"
echo "== fused, spread kernels, TP$WORLD" && latency "$R/fused-tp$WORLD"
step "fused-first-tp$WORLD" 20 env GPUCOMM_FUSED_SPREAD=off "$G" bench "${T[@]}" \
  --pattern allreduceResidualRmsNorm --name "fused-first-tp$WORLD" --out "$R/fused-first-tp$WORLD"
echo "== fused, first kernels, TP$WORLD" && latency "$R/fused-first-tp$WORLD"
cat "$R/steps.txt"
echo "raw output: $OUT/r$RUN.tar.gz"
