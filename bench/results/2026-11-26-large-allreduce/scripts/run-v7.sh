#!/usr/bin/env bash
# gpucomm selftest across two GPUs with a peer buffer of 4 KiB, so that its all-reduce sizes above
# it (4112 and 65552 bytes) run in passes through the buffer, then the same with every such call
# streamed (GPUCOMM_ONESHOT_STREAM_MIN_BYTES=0): the paths beyond the peer buffer under every
# algorithm x dtype x collective of the selftest, validated on every rank against a float64
# reference, in under 200 s.
# Usage: bash bench/results/2026-11-26-large-allreduce/scripts/run-v7.sh   (optional: RUN)
#   needs 2 GPUs; environment as in run.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-large-selftest-tp2}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
head -3 "$R/host.txt"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
  grep -E "selftest passed|gpucomm selftest:|not measured|Exception|rror" "$R/$name.log" | tail -4
}
step selftest-passes 95 env GPUCOMM_PEER_BUFFER_BYTES=4096 "$G" selftest --device cuda --world 2
step selftest-streamed 95 env GPUCOMM_PEER_BUFFER_BYTES=4096 GPUCOMM_ONESHOT_STREAM_MIN_BYTES=0 \
  "$G" selftest --device cuda --world 2
cat "$R/steps.txt"
echo "raw output: $OUT/r$RUN.tar.gz"
