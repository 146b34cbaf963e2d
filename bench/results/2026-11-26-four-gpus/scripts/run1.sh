#!/usr/bin/env bash
# First of the two runs on one 4-GPU host: the studies of this round that need only two GPUs run
# as two lanes at once, one per GPU pair (GPUs 0,1 and 2,3; each pair's figures and their
# baselines come from the same lane), then the steps that need all four.
#   lane A (GPUs 0,1): every GPU JUnit test, selftest, all-reduce beyond 64 MiB
#                      (2026-11-26-large-allreduce)
#   lane B (GPUs 2,3): own all-gather/reduce-scatter (2026-11-26-gather-scatter)
#   all four:          the intra-node fabric matrix (2026-11-26-fabric-sweep)
# Usage: OUT=... bash bench/results/2026-11-26-four-gpus/scripts/run1.sh
#   BUNDLE, GPURUN as in the studies' scripts; each lane gets its own WORK folder.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
S="$ROOT/bench/results"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,memory.total --format=csv; nvidia-smi topo -m; nproc; free -g; } >"$OUT/host.txt" 2>&1
cat "$OUT/host.txt" | head -8
lane() { # name, GPUs, command...
  local name="$1" gpus="$2" start=$SECONDS
  shift 2
  mkdir -p "$OUT/$name" "/tmp/lane-$name"
  CUDA_VISIBLE_DEVICES="$gpus" WORK="/tmp/lane-$name" OUT="$OUT/$name" "$@" >"$OUT/$name.log" 2>&1
  echo "lane $name: exit $? after $((SECONDS - start)) s" | tee -a "$OUT/lanes.txt"
}
laneA() {
  # every GPU JUnit test (those needing more GPUs than the lane has skip with the reason)
  local W=/tmp/lane-A
  mkdir -p "$W/g" && tar -xJf "${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}" -C "$W/g"
  rm -rf "$W/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$W/test-classes"
  local CP="$W/test-classes:$(ls "$B"/tests/*.jar "$W"/g/gpucomm/lib/*.jar | tr '\n' ':')"
  timeout 200 "$W/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" \
    execute -cp "$CP" --scan-class-path "$W/test-classes" --include-tag gpu --fail-if-no-tests \
    --details=tree --disable-banner >"$OUT/junit.log" 2>&1
  echo "junit: exit $?"; grep -E "tests (successful|failed|skipped|aborted)|✘" "$OUT/junit.log" | head -30
  timeout 120 "$W/g/gpucomm/bin/gpucomm" selftest --device cuda --world 2 >"$OUT/selftest.log" 2>&1
  echo "selftest: exit $?"; tail -3 "$OUT/selftest.log"
  bash "$S/2026-11-26-large-allreduce/scripts/run.sh"
}
laneB() {
  bash "$S/2026-11-26-gather-scatter/scripts/run.sh"
}
export -f laneA laneB
export ROOT S OUT B
lane A 0,1 bash -c laneA &
lane B 2,3 bash -c laneB &
wait
# all four GPUs: the intra-node matrix (28 s of copies at most)
lane F 0,1,2,3 bash "$S/2026-11-26-fabric-sweep/scripts/run-gpu.sh"
cat "$OUT/lanes.txt"
