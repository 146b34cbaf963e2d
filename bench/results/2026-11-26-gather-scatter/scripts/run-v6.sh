#!/usr/bin/env bash
# The defaults after the round study (run-v5.sh): half of each block copying out while the other
# half pushes, all-gather rounds of 16 MiB, reduce-scatter rounds of 8 MiB whose sums keep several
# loads in flight, in under 8 minutes on 2 GPUs: the GPU JUnit tests of gather-scatter, selftest on
# two ranks with the defaults and with every call in 64 KiB rounds (LL and single pass off), both
# sweeps from 64 KiB to 256 MiB per rank with NCCL, oneshot and copyengine in the same run (every
# point validated on every rank), the reduce-scatter from 16 to 256 MiB with rounds of 4 and
# 16 MiB and with the turn-taking kernels, and the copy-engine pair ceiling at 64 and 256 MiB.
# On an H200 host it also runs the fabric sweep's intra-node matrix.
# Usage: bash bench/results/2026-11-26-gather-scatter/scripts/run-v6.sh   (optional: RUN)
#   BUNDLE, GPURUN, WORK, OUT as in run-v3.sh.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-gather-defaults}"
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
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 90 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.GatherScatterGpuTest \
  --include-tag gpu --fail-if-no-tests --details=tree --disable-banner
grep -E "tests (successful|failed|skipped|aborted)|✘" "$R/junit.log" | head -20
selftest() { # name [env...]
  local name="$1"
  shift
  step "$name" 90 env "$@" "$G" selftest --device cuda --world 2
  grep -E "selftest passed|failed" "$R/$name.log" | tail -2
}
selftest selftest-tp2
selftest selftest-rounds-64k GPUCOMM_GATHER_LL_MAX_BYTES=0 GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES=0 \
  GPUCOMM_ALLGATHER_ROUND_BYTES=65536 GPUCOMM_REDUCESCATTER_ROUND_BYTES=65536
sweep() { # name collective algorithms [env...]
  local name="$1" collective="$2" algorithms="$3"
  shift 3
  step "$name" 120 env "$@" "$G" bench --device cuda --world 2 --collective "$collective" \
    --sizes "$SIZES" --algorithms "$algorithms" --iterations 30 --warmup 10 \
    --name "$name" --out "$R/$name"
  echo "$name: bytes per rank, CUDA-graph medians (µs):"
  grep -A16 '## Latency' "$R/$name/report.md" | grep '^|'
}
SIZES=64K,128K,256K,512K,1M,2M,4M,8M,16M,32M,64M,128M,256M
for collective in allgather reducescatter; do
  sweep "$collective" "$collective" nccl,oneshot,copyengine
done
SIZES=16M,32M,64M,128M,256M
for mib in 4 16; do
  sweep "reducescatter-${mib}m" reducescatter oneshot \
    GPUCOMM_REDUCESCATTER_ROUND_BYTES=$((mib << 20))
done
sweep reducescatter-serial-8m reducescatter oneshot GPUCOMM_GATHER_OVERLAP=off
PY="${PYTHON:-python3}"
for mib in 64 256; do
  step "ceiling-$mib" 10 "$PY" -u "$ROOT/bench/probes/copy-engine.py" --gpus 2 --mib "$mib"
  grep "push" "$R/ceiling-$mib.log"
done
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  OUT="$OUT" bash "$ROOT/bench/results/2026-11-26-fabric-sweep/scripts/run-gpu.sh"
fi
cat "$R/steps.txt"
echo "raw output: $OUT/r$RUN.tar.gz"
