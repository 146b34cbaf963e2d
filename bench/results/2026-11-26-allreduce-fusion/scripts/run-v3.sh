#!/usr/bin/env bash
# The fused one-shot with each row's norm split over a cluster of blocks (fused_lamport_cluster,
# on Hopper with GPUCOMM_FUSED_CLUSTER=on) against the plain all-reduce and the spread kernel (the
# default), at tokens 4-256 x hidden 8192 bf16 (64 KiB-4 MiB), in under 200 s on 2 GPUs: the GPU tests of the fused
# kernels (one rank: both kernels at the shapes each takes, fallbacks, fp32 accumulation on and
# off), gpucomm selftest across the WORLD GPUs (every fused algorithm x pattern x dtype x
# fp32Accumulate with the plain collectives, in the PTX built for that world), then three sweeps
# in CUDA graphs, every point validated on every rank against the float64
# reference: plain all-reduce, the fused pattern (cluster kernel where it applies), the fused
# pattern with GPUCOMM_FUSED_CLUSTER=off (spread kernel). Each step stops at its time limit, and
# every step together at 195 s.
# Usage: bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v3.sh   (optional: RUN, WORLD)
#   Runs from any folder; needs WORLD (default 2) NVIDIA GPUs, the first WORLD of
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
RUN="${RUN:-fusion-v3-tp$WORLD}"
BUDGET=195
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
[ -n "${SKIP_JUNIT:-}" ] || step junit 80 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.CudaFusedAllReduceGpuTest \
  --include-tag gpu --fail-if-no-tests --details=tree --disable-banner
[ -n "${SKIP_JUNIT:-}" ] || grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
[ -n "${SKIP_JUNIT:-}" ] || grep -E "✘|MethodSource|=> " "$R/junit.log" | head -12

# selftest has no option to pick the fused cases; the whole run checks them with the plain ones
step "selftest-tp$WORLD" 50 "$G" selftest --device cuda --world "$WORLD"
grep -E "selftest passed|gpucomm selftest:|Exception|rror" "$R/selftest-tp$WORLD.log" | tail -4

T=(--device cuda --world "$WORLD" --tokens 4,32,64,128,256 --hidden 8192 --dtype bf16
  --algorithms oneshot,twoshot)
# the CUDA-graph latency table of a report (eager-only cells carry a *)
latency() { awk '/^## Latency/ {on = 1; next} /^## / {on = 0} on && /^\|/' "$1/report.md"; }
step "plain-tp$WORLD" 25 "$G" bench "${T[@]}" --pattern allreduce --name "plain-tp$WORLD" \
  --out "$R/plain-tp$WORLD"
echo "== plain all-reduce, TP$WORLD (graph medians in report.md)" && latency "$R/plain-tp$WORLD"
step "fused-cluster-tp$WORLD" 25 env GPUCOMM_FUSED_CLUSTER=on "$G" bench "${T[@]}" \
  --pattern allreduceResidualRmsNorm --name "fused-cluster-tp$WORLD" --out "$R/fused-cluster-tp$WORLD"
echo "== fused, cluster kernel where it applies (GPUCOMM_FUSED_CLUSTER=on), TP$WORLD" && latency "$R/fused-cluster-tp$WORLD"
step "fused-spread-tp$WORLD" 25 env GPUCOMM_FUSED_CLUSTER=off "$G" bench "${T[@]}" \
  --pattern allreduceResidualRmsNorm --name "fused-spread-tp$WORLD" --out "$R/fused-spread-tp$WORLD"
echo "== fused, spread kernel (GPUCOMM_FUSED_CLUSTER=off, the default), TP$WORLD" && latency "$R/fused-spread-tp$WORLD"
cat "$R/steps.txt"
echo "raw output: $OUT/r$RUN.tar.gz"
