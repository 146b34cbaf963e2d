#!/usr/bin/env bash
# The streamed one-shot's defaults (streamed from 1 GiB, in passes below) checked on a second
# host: the GPU tests of passes; the streamed kernel validated on two ranks over many passes and
# two launches (a 64 KiB peer buffer, 64 chunks a pass, every call streamed, three dtypes,
# sizes that end mid-pass); bf16 all-reduce of 64 MiB to 2 GiB with the defaults beside NCCL (CUDA
# graphs and eager, 50 timed calls after 10 warm-up calls, every point validated); 128-512 MiB
# streamed and in passes without the host path, to tell the host path's share of the difference
# from the streaming's; and the TP2 sizes of 0.5 to 64 MiB, to check that nothing at or below
# one buffer moved. On an H200 host it first runs the fabric sweep's intra-node matrix
# (../../2026-11-26-fabric-sweep/scripts/run-gpu.sh).
# Usage: bash bench/results/2026-11-26-large-allreduce/scripts/run-v5.sh   (optional: RUN)
#   environment as in run.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-large-stream-defaults}"
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
step junit 90 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.CudaAllReduceInPassesGpuTest \
  --include-tag gpu --fail-if-no-tests --details=summary --disable-banner
grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
# 64 KiB buffer, 64 chunks: 1023 passes a launch, so 80 MiB takes two launches
for dtype in bf16 fp16 fp32; do
  step "check-$dtype" 60 env GPUCOMM_PEER_BUFFER_BYTES=65536 GPUCOMM_ONESHOT_CHUNKS=64 \
    GPUCOMM_ONESHOT_STREAM_MIN_BYTES=0 "$G" bench --device cuda --world 2 --dtype "$dtype" \
    --sizes 65552,200016,4194320,83886096 --algorithms oneshot -n 3 -w 1 --no-graph \
    --name "check-$dtype" --out "$R/check-$dtype"
  grep '^| (' "$R/check-$dtype/report.md" | head -4
done
sweep() {
  local name="$1" limit="$2"
  shift 2
  step "$name" "$limit" env "$@" --name "$name" --out "$R/$name"
  # graph medians, then eager
  sed -n '/^## Latency/,/^## nccl-tests view/p' "$R/$name/report.md" | grep '^| ('
  cp "$R/$name/report.md" "$OUT/$name-report.md" 2>/dev/null
  cp "$R/$name/report.json" "$OUT/$name-report.json" 2>/dev/null
}
L=(--device cuda --world 2 --dtype bf16 -n 50 -w 10)
sweep defaults 170 GPUCOMM_UNSET=1 "$G" bench "${L[@]}" -b 64M -e 2G -f 2 --algorithms nccl,oneshot
sweep streamed-mid 60 GPUCOMM_ONESHOT_STREAM_MIN_BYTES=0 "$G" bench "${L[@]}" -b 128M -e 512M -f 2 \
  --algorithms oneshot
sweep passes-no-host-mid 60 GPUCOMM_HOST_PATH=off "$G" bench "${L[@]}" -b 128M -e 512M -f 2 \
  --algorithms oneshot
sweep small-tp2 90 GPUCOMM_UNSET=1 "$G" bench --device cuda --world 2 --dtype bf16 \
  --tokens 32,64,128,256,1024,2048,4096 --hidden 8192 --algorithms nccl,oneshot,twoshot
cp "$R/steps.txt" "$OUT/steps.txt"
