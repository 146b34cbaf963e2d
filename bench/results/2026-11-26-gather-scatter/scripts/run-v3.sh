#!/usr/bin/env bash
# The pipelined copy-engine all-gather and reduce-scatter (pieces through the parts of each slot,
# tokens raised by stream memory operations) beside NCCL and the oneshot kernels, in about two
# and a half minutes: the GPU JUnit tests of gather-scatter, selftest with 64 KiB slots (so that
# every copy-engine call larger than a slot wraps around the parts), CUDA-graph sweeps of both
# collectives from 64 KiB to 256 MiB per rank, and the copy-engine pair ceiling.
# Usage: [WORLD=4] bash bench/results/2026-11-26-gather-scatter/scripts/run-v3.sh
#   Runs from any folder; needs WORLD NVIDIA GPUs (default 2; CUDA_VISIBLE_DEVICES picks them) and:
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz:
#           ./mvnw -q -pl app -am package -Pbundle -DskipTests)
#   GPURUN  folder with tests/*.jar and junit.jar, as for the module-split study (bench/README.md)
#   SKIP_JUNIT  if set, leaves out the GPU JUnit tests (they use one GPU; run them once per host)
#   WORK    scratch folder (default $TMPDIR or /tmp); OUT receives the raw output (default bench/out)
#   PYTHON  a Python with PyTorch for the ceiling step (default python3)
#   GPUCOMM_COPYENGINE_PIECE_BYTES, if set, reaches the sweeps (largest copy-engine piece; 8 MiB);
#   RUN names the run's folder and archive, so that runs with other piece sizes stay apart
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
PY="${PYTHON:-python3}"
WORLD="${WORLD:-2}"
RUN="${RUN:-gather-scatter-v3-tp$WORLD}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
head -3 "$R/host.txt"
# GPU JUnit tests of gather-scatter (one rank, 64 KiB slots: every kernel and copy step, calls in
# up to 64 pieces, eager and graph replays, the variants after each other in any order)
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
[ -n "${SKIP_JUNIT:-}" ] || step junit 25 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.GatherScatterGpuTest \
  --include-tag gpu --fail-if-no-tests --details=summary --disable-banner
grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
# selftest with 64 KiB gather slots: two parts of 32 KiB, so the 65552-byte cases run in three
# pieces and reuse the first part's tokens; every result is checked against a float64 reference
# on every rank
GPUCOMM_PEER_BUFFER_BYTES=65536 GPUCOMM_LAMPORT_MAX_BYTES=0 GPUCOMM_LAMPORT2_MAX_BYTES=0 \
  GPUCOMM_HOST_PATH=off step "selftest-tp$WORLD-small-slots" 40 "$G" selftest --device cuda --world "$WORLD"
tail -1 "$R/selftest-tp$WORLD-small-slots.log"
SIZES=64K,1M,16M,64M,256M
sweep() { # collective
  step "bench-$1-tp$WORLD" 30 "$G" bench --device cuda --world "$WORLD" --collective "$1" \
    --sizes "$SIZES" --algorithms auto,nccl,oneshot,copyengine --iterations 30 --warmup 5 \
    --name "$1-tp$WORLD" --out "$R/$1-tp$WORLD"
  echo "$1, $WORLD ranks, bytes per rank, CUDA-graph medians (µs):"
  grep -A12 '## Latency' "$R/$1-tp$WORLD/report.md" | grep '^|'
}
sweep allgather
sweep reducescatter
# the copy-engine pair ceiling (GPUs 0 and 1 of those visible): one peer copy 0->1 and both
# directions at once; the probe's matmul part that follows is cut off by the time limit
for mib in 64 256; do
  step "ceiling-$mib" 10 "$PY" -u "$ROOT/bench/probes/copy-engine.py" --gpus 2 --mib "$mib"
  grep "push" "$R/ceiling-$mib.log"
done
tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
cp "$R/steps.txt" "$OUT/steps-$RUN.txt"
