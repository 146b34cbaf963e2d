#!/usr/bin/env bash
# The streamed one-shot on four ranks (the w4 build of allreduce.cu): run-v5.sh's checks with
# --world 4 (every call streamed, every point validated on every rank against a float64
# reference): short last passes of more chunks than a whole one on one block, the default grid and
# buffer with short last passes, and 1 GiB with the defaults beside NCCL.
# Usage: bash bench/results/2026-11-26-large-allreduce/scripts/run-v6.sh   (optional: RUN)
#   needs 4 GPUs; environment as in run.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-large-stream-tp4}"
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
}
check() { # name, sizes, algorithms, environment...
  local name="$1" sizes="$2" algorithms="$3"
  shift 3
  step "$name" 90 env "$@" "$G" bench --device cuda --world 4 --dtype bf16 --sizes "$sizes" \
    --algorithms "$algorithms" -n 3 -w 1 --no-graph --name "$name" --out "$R/$name"
  grep '^| (' "$R/$name/report.md" | head -4
}
# One block, 144 KiB passes, 16 chunks a pass: at four ranks (2 vectors per thread a group) a whole
# pass is 18 groups (2 a chunk, 9 chunks); 245760 and 1572864 end in a pass of 12 groups (1 a
# chunk, 12 chunks), 294912 in a whole pass.
check check-short 245760,294912,1572864 oneshot GPUCOMM_ONESHOT_STREAM_MIN_BYTES=0 \
  GPUCOMM_PEER_BUFFER_BYTES=147456 GPUCOMM_ONESHOT_BLOCKS=1
check check-default 67108880,104857616 oneshot GPUCOMM_ONESHOT_STREAM_MIN_BYTES=0
check defaults-1g 1G nccl,oneshot GPUCOMM_UNSET=1
cp "$R/steps.txt" "$OUT/steps.txt"
