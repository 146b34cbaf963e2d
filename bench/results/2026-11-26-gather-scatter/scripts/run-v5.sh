#!/usr/bin/env bash
# How large the pipelined rounds of the kernel all-gather and reduce-scatter should be
# (GPUCOMM_ALLGATHER_ROUND_BYTES, GPUCOMM_REDUCESCATTER_ROUND_BYTES, both set alike here), and
# whether half a block copying out while the other half pushes (GPUCOMM_GATHER_OVERLAP) beats the
# kernels that take turns, in under 8 minutes on 2 GPUs: the GPU JUnit tests of gather-scatter,
# selftest on two ranks with the defaults and with every call in rounds (LL and single pass off) of
# 64 KiB and of 16 MiB, so that the pipelined kernels run between two processes with many rounds and
# with one, then both sweeps from 16 MiB to 256 MiB per rank: the turn-taking kernels with 16 MiB
# rounds, NCCL and copyengine, then the overlapping kernels with rounds of 4, 8 and 16 MiB (every
# point validated on every rank), and the copy-engine pair ceiling.
# The first run of the study, before the overlapping kernels, was OVERLAP=off ROUNDS="2 8 16".
# On an H200 host it also runs the fabric sweep's intra-node matrix.
# Usage: bash bench/results/2026-11-26-gather-scatter/scripts/run-v5.sh
#   (optional: RUN; ROUNDS, the round sizes in MiB to sweep; OVERLAP=off sweeps the turn-taking
#   kernels; SKIP_CHECKS=1 runs the sweeps only)
#   BUNDLE, GPURUN, WORK, OUT as in run-v3.sh.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-gather-rounds}"
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
if [ -z "${SKIP_CHECKS:-}" ]; then
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
selftest selftest-rounds-16m GPUCOMM_GATHER_LL_MAX_BYTES=0 GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES=0 \
  GPUCOMM_ALLGATHER_ROUND_BYTES=16777216 GPUCOMM_REDUCESCATTER_ROUND_BYTES=16777216
fi
SIZES=16M,32M,64M,128M,256M
sweep() { # name collective algorithms [env...]
  local name="$1" collective="$2" algorithms="$3"
  shift 3
  step "$name" 90 env "$@" "$G" bench --device cuda --world 2 --collective "$collective" \
    --sizes "$SIZES" --algorithms "$algorithms" --iterations 30 --warmup 10 \
    --name "$name" --out "$R/$name"
  echo "$name: bytes per rank, CUDA-graph medians (µs):"
  grep -A12 '## Latency' "$R/$name/report.md" | grep '^|'
}
OVERLAP="${OVERLAP:-on}"
for collective in allgather reducescatter; do
  baseline=nccl,oneshot,copyengine
  if [ "$OVERLAP" = on ]; then
    # the kernels that take turns, with their best round, as the baseline of the same run
    sweep "$collective-serial-16m" "$collective" "$baseline" GPUCOMM_GATHER_OVERLAP=off \
      GPUCOMM_ALLGATHER_ROUND_BYTES=16777216 GPUCOMM_REDUCESCATTER_ROUND_BYTES=16777216
    baseline=oneshot
  fi
  for mib in ${ROUNDS:-4 8 16}; do
    sweep "$collective-$OVERLAP-${mib}m" "$collective" "$baseline" \
      GPUCOMM_GATHER_OVERLAP="$OVERLAP" GPUCOMM_ALLGATHER_ROUND_BYTES=$((mib << 20)) \
      GPUCOMM_REDUCESCATTER_ROUND_BYTES=$((mib << 20))
    baseline=oneshot
  done
done
PY="${PYTHON:-python3}"
step ceiling-256 10 "$PY" -u "$ROOT/bench/probes/copy-engine.py" --gpus 2 --mib 256
grep "push" "$R/ceiling-256.log"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  OUT="$OUT" bash "$ROOT/bench/results/2026-11-26-fabric-sweep/scripts/run-gpu.sh"
fi
cat "$R/steps.txt"
echo "raw output: $OUT/r$RUN.tar.gz"
