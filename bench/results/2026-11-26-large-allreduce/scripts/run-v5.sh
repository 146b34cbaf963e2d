#!/usr/bin/env bash
# The streamed one-shot's defaults (streamed from 1 GiB, in passes below) checked on a second
# host: the GPU tests of passes; the streamed kernel validated on two ranks (every call streamed)
# with short last passes of more chunks than a whole one in three dtypes, with the default grid
# and buffer and a short last pass, and over two launches; bf16 all-reduce of 64 MiB to 2 GiB with
# the defaults beside NCCL (CUDA graphs and eager, 50 timed calls after 10 warm-up calls, every
# point validated); 128-512 MiB streamed and in passes without the host path, to tell the host
# path's share of the difference from the streaming's; and the TP2 sizes of 0.5 to 64 MiB, to
# check that nothing at or below one buffer moved. On an H200 host it first runs the fabric
# sweep's intra-node matrix (../../2026-11-26-fabric-sweep/scripts/run-gpu.sh).
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
check() { # name, dtype, sizes, environment...
  local name="$1" dtype="$2" sizes="$3"
  shift 3
  step "$name" 60 env GPUCOMM_ONESHOT_STREAM_MIN_BYTES=0 "$@" "$G" bench --device cuda --world 2 \
    --dtype "$dtype" --sizes "$sizes" --algorithms oneshot -n 3 -w 1 --no-graph \
    --name "$name" --out "$R/$name"
  grep '^| (' "$R/$name/report.md" | head -4
}
# One block, 144 KiB passes, 4 chunks a pass: a whole pass is 9 groups of 4 vectors per thread
# (3 chunks); 212992 and 1540096 end in a pass of 4 groups (4 chunks, the last overwriting what
# the whole pass's last chunk held), 294912 in a whole pass.
for dtype in bf16 fp16 fp32; do
  check "check-short-$dtype" "$dtype" 212992,294912,1540096,16842752 GPUCOMM_PEER_BUFFER_BYTES=147456 \
    GPUCOMM_ONESHOT_BLOCKS=1 GPUCOMM_ONESHOT_CHUNKS=4
done
# The default grid and buffer (16 chunks a pass) with a short last pass: 64 MiB + 16 bytes, 100 MiB + 16
check check-default bf16 67108880,104857616
# 64 KiB passes, 64 chunks: 1023 passes a launch, so 80 MiB takes two launches
check check-launches bf16 83886096 GPUCOMM_PEER_BUFFER_BYTES=65536 GPUCOMM_ONESHOT_CHUNKS=64
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
