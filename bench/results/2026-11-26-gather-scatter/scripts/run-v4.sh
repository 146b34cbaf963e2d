#!/usr/bin/env bash
# The LL all-gather and reduce-scatter kernels (the data carries its own flags) and the flag single
# pass with the defaults they were given (LL up to 512 KiB per rank, the single pass up to 8 MiB,
# both on 128 blocks), in under 400 s on 2 GPUs: the GPU JUnit
# tests of gather-scatter (one rank: every size class after each other, eager and graph replays,
# bit for bit), selftest on two ranks with the defaults and with 64 KiB slots and LL up to 16 KiB
# or none (so that the LL, flag single-pass and pipelined kernels all run between two processes),
# both sweeps from 64 KiB to 256 MiB per rank with NCCL, oneshot and copyengine in the same run
# (every point validated on every rank), and the copy-engine pair ceiling.
# STUDY=ll instead runs the study that set the LL defaults: 64 KiB - 1 MiB with LL up to 1 MiB on
# 32 and on 128 blocks and with the flag kernels alone (GPUCOMM_GATHER_LL_MAX_BYTES=0, 32 blocks).
# STUDY=single-pass runs the one that set the single-pass defaults: 512 KiB - 8 MiB with the
# single pass up to 1 MiB (pipelined rounds above) and up to 8 MiB, on 32 and on 128 blocks.
# Usage: bash bench/results/2026-11-26-gather-scatter/scripts/run-v4.sh   (optional: RUN, STUDY)
#   BUNDLE, GPURUN, WORK, OUT as in run-v3.sh.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-gather-ll}"
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
[ -n "${SKIP_JUNIT:-}" ] || step junit 90 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.GatherScatterGpuTest \
  --include-tag gpu --fail-if-no-tests --details=tree --disable-banner
[ -n "${SKIP_JUNIT:-}" ] || grep -E "tests (successful|failed|skipped|aborted)|✘" "$R/junit.log" | head -20
step selftest-tp2 60 "$G" selftest --device cuda --world 2
tail -1 "$R/selftest-tp2.log"
small() { # name ll [env...]: selftest with 64 KiB slots and LL up to ll bytes
  local name="$1" ll="$2"
  shift 2
  step "$name" 60 env GPUCOMM_PEER_BUFFER_BYTES=65536 GPUCOMM_GATHER_LL_MAX_BYTES="$ll" \
    GPUCOMM_LAMPORT_MAX_BYTES=0 GPUCOMM_LAMPORT2_MAX_BYTES=0 GPUCOMM_HOST_PATH=off "$@" \
    "$G" selftest --device cuda --world 2
  grep -E "selftest passed|failed" "$R/$name.log" | tail -2
}
small selftest-small-ll16k 16384
small selftest-small-noll 0
sweep() { # name collective algorithms [env...]
  local name="$1" collective="$2" algorithms="$3"
  shift 3
  step "$name" 60 env "$@" "$G" bench --device cuda --world 2 --collective "$collective" \
    --sizes "$SIZES" --algorithms "$algorithms" --iterations 50 --warmup 10 \
    --name "$name" --out "$R/$name"
  echo "$name: bytes per rank, CUDA-graph medians (µs):"
  grep -A16 '## Latency' "$R/$name/report.md" | grep '^|'
}
if [ "${STUDY:-}" = single-pass ]; then
  SIZES=512K,1M,2M,4M,8M
  for collective in allgather reducescatter; do
    for blocks in 32 128; do
      sweep "$collective-pipelined-$blocks" "$collective" nccl,oneshot \
        GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES=1048576 GPUCOMM_GATHER_BLOCKS=$blocks
      sweep "$collective-single-pass-$blocks" "$collective" nccl,oneshot \
        GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES=8388608 GPUCOMM_GATHER_BLOCKS=$blocks
    done
  done
elif [ "${STUDY:-}" = ll ]; then
  SIZES=64K,128K,256K,512K,1M
  for collective in allgather reducescatter; do
    sweep "$collective-ll" "$collective" nccl,oneshot GPUCOMM_GATHER_LL_MAX_BYTES=1048576 \
      GPUCOMM_GATHER_BLOCKS=32
    sweep "$collective-ll128" "$collective" nccl,oneshot GPUCOMM_GATHER_LL_MAX_BYTES=1048576 \
      GPUCOMM_GATHER_BLOCKS=128
    sweep "$collective-flag" "$collective" nccl,oneshot GPUCOMM_GATHER_LL_MAX_BYTES=0 \
      GPUCOMM_GATHER_BLOCKS=32
  done
else
  SIZES=64K,128K,256K,512K,1M,2M,4M,8M,16M,64M,256M
  for collective in allgather reducescatter; do
    sweep "$collective" "$collective" nccl,oneshot,copyengine
  done
  # the copy-engine pair ceiling (GPUs 0 and 1): one peer copy 0->1 and both directions at once;
  # the probe's matmul part that follows is cut off by the time limit
  PY="${PYTHON:-python3}"
  for mib in 64 256; do
    step "ceiling-$mib" 10 "$PY" -u "$ROOT/bench/probes/copy-engine.py" --gpus 2 --mib "$mib"
    grep "push" "$R/ceiling-$mib.log"
  done
fi
cat "$R/steps.txt"
echo "raw output: $OUT/r$RUN.tar.gz"
