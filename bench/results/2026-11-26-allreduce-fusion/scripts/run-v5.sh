#!/usr/bin/env bash
# The fused two-shot on slices of whole rows (fused_lamport2_rows, the default) against slices of
# vectors (GPUCOMM_FUSED_ROWS=off, fused_lamport2), with the plain all-reduce and PyTorch's fused
# compositions in the same run, at tokens 32-256 x 8192 bf16 (0.5-4 MiB), in under 370 s on 2 GPUs:
# the fused GPU tests (one rank: both slicings at the shapes each takes, calls alternating between
# them), gpucomm selftest across the GPUs (the fused cases of 1, 3, 13 and 301 rows: ranks owning
# no row and the last rank the remainder), then the sweeps in CUDA graphs, rows / vectors / rows
# again (so that a drift of the host shows), every point validated on every rank against the
# float64 reference, and bench/compare-torch.py with the fused pattern.
# The row-sliced kernel exists at commit 44c579b only (removed after this comparison): build the
# bundle there; on later trees GPUCOMM_FUSED_ROWS is ignored and both fused sweeps run vectors.
# Usage: bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v5.sh   (environment of run-v3.sh)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
WORLD="${WORLD:-2}"
# the setting compared, on (the new kernel) against off, and the names of the sweeps: run-v6.sh
# runs this script for GPUCOMM_FUSED_RUNS
TOGGLE="${TOGGLE:-GPUCOMM_FUSED_ROWS}"
ON_NAME="${ON_NAME:-rows}"
OFF_NAME="${OFF_NAME:-vectors}"
# the setting's values for the new kernel and the old (run-v14.sh compares auto with 1)
ON_VALUE="${ON_VALUE:-on}"
OFF_VALUE="${OFF_VALUE:-off}"
RUN="${RUN:-fusion-v5-tp$WORLD}"
# the sweeps' rows and row length (run-v7.sh adds rows beyond the grid's blocks)
TOKENS="${TOKENS:-32,64,128,256}"
HIDDEN="${HIDDEN:-8192}"
BUDGET="${BUDGET:-370}"
# seconds each sweep and the GPU tests may take (run-v14.sh sweeps more rows)
SWEEP_LIMIT="${SWEEP_LIMIT:-30}"
JUNIT_LIMIT="${JUNIT_LIMIT:-110}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
source "$ROOT/bench/libs.sh" >"$R/libs.txt"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
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
[ -n "${SKIP_JUNIT:-}" ] || step junit "$JUNIT_LIMIT" "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.CudaFusedAllReduceGpuTest \
  --include-tag gpu --fail-if-no-tests --details=tree --disable-banner
[ -n "${SKIP_JUNIT:-}" ] || grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
[ -n "${SKIP_JUNIT:-}" ] || grep -E "✘|MethodSource|=> " "$R/junit.log" | head -12

step "selftest-tp$WORLD" 90 "$G" selftest --device cuda --world "$WORLD"
grep -E "selftest passed|gpucomm selftest:|Exception|rror" "$R/selftest-tp$WORLD.log" | tail -4

T=(--device cuda --world "$WORLD" --tokens "$TOKENS" --hidden "$HIDDEN" --dtype bf16
  --algorithms oneshot,twoshot -n 200)
# the CUDA-graph latency table of a report (eager-only cells carry a *)
latency() { awk '/^## Latency/ {on = 1; next} /^## / {on = 0} on && /^\|/' "$1/report.md"; }
sweep() { # NAME PATTERN ROWS
  step "$1" "$SWEEP_LIMIT" env "$TOGGLE=$3" "$G" bench "${T[@]}" --pattern "$2" --name "$1" --out "$R/$1"
  echo "== $1 ($TOGGLE=$3)" && latency "$R/$1"
}
sweep "plain-tp$WORLD" allreduce "$ON_VALUE"
sweep "fused-$ON_NAME-tp$WORLD" allreduceResidualRmsNorm "$ON_VALUE"
sweep "fused-$OFF_NAME-tp$WORLD" allreduceResidualRmsNorm "$OFF_VALUE"
sweep "fused-$ON_NAME-again-tp$WORLD" allreduceResidualRmsNorm "$ON_VALUE"
echo "== PyTorch, the fused pattern"
step torch-fused 100 python3 "$ROOT/bench/compare-torch.py" --world "$WORLD" --port 29702 \
  --tokens "$TOKENS" --hidden "$HIDDEN" --pattern allreduceResidualRmsNorm --iterations 100
tail -25 "$R/torch-fused.log"
cat "$R/steps.txt"
echo "raw output: $OUT/r$RUN.tar.gz"
