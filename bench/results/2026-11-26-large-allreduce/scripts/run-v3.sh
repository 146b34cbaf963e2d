#!/usr/bin/env bash
# The one-shot's settings at 1 and 2 GiB, where it stays 0.94-0.97 x NCCL: bf16 all-reduce on
# 2 GPUs, NCCL once and the one-shot under each setting below (CUDA graphs and eager, 30 timed
# calls after 10 warm-up calls, every point validated), all in one run. On an H200 host it first
# runs the fabric sweep's intra-node matrix (../../2026-11-26-fabric-sweep/scripts/run-gpu.sh).
# Usage: bash bench/results/2026-11-26-large-allreduce/scripts/run-v3.sh   (optional: RUN)
#   environment as in run.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-large-settings}"
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
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
sweep() {
  local name="$1" algorithms="$2"
  shift 2
  step "$name" 150 env "$@" "$G" bench --device cuda --world 2 --dtype bf16 -b 1G -e 2G -f 2 \
    -n 30 -w 10 --algorithms "$algorithms" --name "$name" --out "$R/$name"
  # graph medians, then eager
  sed -n '/^## Latency/,/^## nccl-tests view/p' "$R/$name/report.md" | grep '^| ('
  cp "$R/$name/report.md" "$OUT/$name-report.md" 2>/dev/null
}
sweep defaults nccl,oneshot GPUCOMM_UNSET=1
sweep chunks-32 oneshot GPUCOMM_ONESHOT_CHUNKS=32
sweep chunks-64 oneshot GPUCOMM_ONESHOT_CHUNKS=64
sweep chunks-8 oneshot GPUCOMM_ONESHOT_CHUNKS=8
sweep blocks-64 oneshot GPUCOMM_ONESHOT_BLOCKS=64
sweep host-path-off oneshot GPUCOMM_HOST_PATH=off
sweep host-path-share-10 oneshot GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_SHARE=0.1
cp "$R/steps.txt" "$OUT/steps.txt"
