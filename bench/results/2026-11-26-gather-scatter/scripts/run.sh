#!/usr/bin/env bash
# gpucomm's own all-gather and reduce-scatter (oneshot: kernel pushes; copyengine: the copy
# engines push) beside NCCL and PyTorch: GPU JUnit tests, selftest (also with a 64 KiB peer buffer,
# so that calls run in pieces), CUDA-graph sweeps 64 KiB..256 MiB per rank on 2 GPUs (and 4 where
# present), the copy-engine pair ceiling, and bench/compare-torch.py for both collectives.
# Usage: bash bench/results/2026-11-26-gather-scatter/scripts/run.sh
#   Runs from any folder; needs 2 NVIDIA GPUs (4 for the world-4 steps) and:
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz:
#           ./mvnw -q -pl app -am package -Pbundle -DskipTests)
#   GPURUN  folder with tests/*.jar and junit.jar, as for the module-split study (bench/README.md)
#   WORK    scratch folder (default $TMPDIR or /tmp); OUT receives the raw output (default bench/out)
#   PYTHON  a Python with PyTorch for the ceiling and compare-torch steps (default python3)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
PY="${PYTHON:-python3}"
RUN="${RUN:-gather-scatter}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
GPUS="$(nvidia-smi -L | wc -l)"
# nvidia-smi lists every GPU of the host; count only those this process may use
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && GPUS=$(tr , "\n" <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
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
# GPU JUnit tests of this change (one rank: every kernel and copy step, eager and graph replays)
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 150 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.GatherScatterGpuTest \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --include-tag gpu \
  --fail-if-no-tests --details=summary --disable-banner
grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
# selftest: every collective, dtype and algorithm (oneshot and copyengine for all-gather and
# reduce-scatter); then with 64 KiB gather slots, so that the 64 KiB cases run in pieces
step selftest-tp2 120 "$G" selftest --device cuda --world 2
tail -1 "$R/selftest-tp2.log"
GPUCOMM_PEER_BUFFER_BYTES=65536 GPUCOMM_LAMPORT_MAX_BYTES=0 GPUCOMM_LAMPORT2_MAX_BYTES=0 \
  GPUCOMM_HOST_PATH=off step selftest-tp2-pieces 120 "$G" selftest --device cuda --world 2
tail -1 "$R/selftest-tp2-pieces.log"
SIZES=64K,256K,1M,4M,16M,64M,256M
sweep() { # collective, world
  step "bench-$1-tp$2" 150 "$G" bench --device cuda --world "$2" --collective "$1" --sizes "$SIZES" \
    --algorithms auto,nccl,oneshot,copyengine --iterations 50 --warmup 5 --name "$1-tp$2" \
    --out "$R/$1-tp$2"
  grep -A12 '## Latency' "$R/$1-tp$2/report.md" | grep 'iB |'
}
sweep allgather 2
sweep reducescatter 2
if [ "$GPUS" -ge 4 ]; then
  step selftest-tp4 120 "$G" selftest --device cuda --world 4
  tail -1 "$R/selftest-tp4.log"
  sweep allgather 4
  sweep reducescatter 4
fi
# the copy-engine pair ceiling: one peer copy 0->1 and both directions at once, 64 and 256 MiB
for mib in 64 256; do
  step "ceiling-$mib" 90 "$PY" "$ROOT/bench/probes/copy-engine.py" --gpus 2 --mib "$mib"
  grep "push" "$R/ceiling-$mib.log"
done
# PyTorch on the same host: NCCL and symmetric memory's variants where this PyTorch has them
S=65536,262144,1048576,4194304,16777216,67108864,268435456
for collective in allgather reducescatter; do
  step "torch-$collective-tp2" 180 "$PY" "$ROOT/bench/compare-torch.py" --world 2 \
    --collective "$collective" --sizes "$S" --iterations 50 --warmup 5 \
    --json "$R/torch-$collective-tp2.json"
  cat "$R/torch-$collective-tp2.log"
done
tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
cp "$R/steps.txt" "$OUT/steps.txt"
