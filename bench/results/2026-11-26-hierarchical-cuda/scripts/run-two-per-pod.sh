#!/usr/bin/env bash
# Hierarchical all-reduce with two ranks per pod: 2 pods x 2 GPUs over NVLink and over sockets
# (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1), every call validated, 1 MiB to 256 MiB (above the
# 64 MiB peer buffer, so several chunks), then 2 pods x 1 GPU as a check that nothing regressed,
# and the hierarchical GPU JUnit test (which must pass or fail within its timeout, never block).
# Needs 4 NVIDIA GPUs. About 4 minutes.
# Usage: bash bench/results/2026-11-26-hierarchical-cuda/scripts/run-two-per-pod.sh (optional: RUN)
#   BUNDLE, GPURUN, WORK and OUT as for run.sh in this folder.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-hier2}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
source "$ROOT/bench/libs.sh" >"$R/libs.txt"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
GPUS=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
# nvidia-smi lists every GPU of the host; count only those this process may use
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && GPUS=$(tr , "\n" <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
show() { # the latency table, the decisions and the fabric section of one run's report
  grep -A10 '## Latency' "$R/$1/report.md" | grep '^| '
  grep -A8 '## Heuristic decisions' "$R/$1/report.md" | grep '^| ' | cut -c1-220
  sed -n '/## Fabric/,$p' "$R/$1/report.md"
}
head -3 "$R/host.txt"
if [ "$GPUS" -lt 4 ]; then
  echo "needs 4 GPUs, this host has $GPUS" >&2
  exit 2
fi
sed -e 's/, 1073741824\]/]/; s/worldSize: 2/worldSize: 4/; s/ranksPerPod: 1/ranksPerPod: 2/' \
  "$HERE/two-pods-hierarchical.yaml" >"$R/two-pods-of-two.yaml"
step 2x2-nvlink 120 "$G" run -f "$R/two-pods-of-two.yaml" --out "$R/2x2-nvlink"
show 2x2-nvlink
NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 step 2x2-sockets 150 "$G" run \
  -f "$R/two-pods-of-two.yaml" --out "$R/2x2-sockets"
show 2x2-sockets
sed -e 's/, 1073741824\]/]/' "$HERE/two-pods-hierarchical.yaml" >"$R/two-pods-256m.yaml"
step 2x1-nvlink 100 "$G" run -f "$R/two-pods-256m.yaml" --out "$R/2x1-nvlink"
show 2x1-nvlink
if [ -f "$B/junit.jar" ]; then
  rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
  CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
  # the test's own timeouts end it well before this limit
  step junit-hierarchical 280 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED \
    -jar "$B/junit.jar" execute -cp "$CP" --select-class \
    dev.gpucomm.runtime.collective.cuda.HierarchicalAllReduceGpuTest --fail-if-no-tests \
    --details=tree --disable-banner
  grep -E "tests (successful|failed|skipped|aborted)" "$R/junit-hierarchical.log"
fi
cat "$R/steps.txt"
