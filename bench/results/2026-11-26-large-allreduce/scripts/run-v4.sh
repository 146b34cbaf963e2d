#!/usr/bin/env bash
# The streamed one-shot (oneshot_stream: a call larger than the peer buffer in one launch, the
# pushing warps a pass ahead of the reducing ones) against the one-shot in passes (one launch a
# pass, as below GPUCOMM_ONESHOT_STREAM_MIN_BYTES) and NCCL, bf16 all-reduce of 64 MiB to 2 GiB on 2 GPUs, CUDA
# graphs and eager, 50 timed calls after 10 warm-up calls, every point validated, all in one run.
# Before the timing: the GPU tests of passes and of the fused all-reduce, and gpucomm selftest on
# two ranks with a 1 MiB peer buffer (every all-reduce case above 1 MiB streamed) and with the
# default one. On an H200 host it first runs the fabric sweep's intra-node matrix
# (../../2026-11-26-fabric-sweep/scripts/run-gpu.sh).
# Usage: bash bench/results/2026-11-26-large-allreduce/scripts/run-v4.sh   (optional: RUN)
#   environment as in run.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-large-stream}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
head -3 "$R/host.txt"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  OUT="$OUT/fabric" bash "$ROOT/bench/results/2026-11-26-fabric-sweep/scripts/run-gpu.sh"
fi
# the ranks hold host copies of a 2 GiB input and output for validation
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  local status=$?
  echo "$name: exit $status after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
  return $status
}
# the jlinked runtime has no jar file system, so JUnit scans the test classes as a folder
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 150 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.CudaAllReduceInPassesGpuTest \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaFusedAllReduceGpuTest \
  --include-tag gpu --fail-if-no-tests --details=tree --disable-banner
grep -E "tests (successful|failed|skipped|aborted)|✘" "$R/junit.log" | head -20
streamed=ok
step selftest-1m 120 env GPUCOMM_PEER_BUFFER_BYTES=1048576 "$G" selftest --device cuda --world 2 || streamed=failed
grep -E "selftest passed|failed" "$R/selftest-1m.log" | tail -2
step selftest 120 "$G" selftest --device cuda --world 2
grep -E "selftest passed|failed" "$R/selftest.log" | tail -2
sweep() {
  local name="$1" algorithms="$2"
  shift 2
  step "$name" 170 env "$@" "$G" bench --device cuda --world 2 --dtype bf16 -b 64M -e 2G -f 2 \
    -n 50 -w 10 --algorithms "$algorithms" --name "$name" --out "$R/$name"
  # graph medians, then eager
  sed -n '/^## Latency/,/^## nccl-tests view/p' "$R/$name/report.md" | grep '^| ('
  cp "$R/$name/report.md" "$OUT/$name-report.md" 2>/dev/null
  cp "$R/$name/report.json" "$OUT/$name-report.json" 2>/dev/null
}
[ "$streamed" = ok ] && sweep streamed nccl,oneshot GPUCOMM_ONESHOT_STREAM_MIN_BYTES=0
sweep passes oneshot GPUCOMM_ONESHOT_STREAM_MIN_BYTES=$((1 << 40))
cp "$R/steps.txt" "$OUT/steps.txt"
