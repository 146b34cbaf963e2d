#!/usr/bin/env bash
# 4 x H200: rowParallelLinear with serializeMatmuls and no SM split (the matmuls one after another
# on every SM), NCCL and IPC, 2 and 4 chunks, at TP2 and TP4; the no-split baselines beside them.
# Usage: bash bench/results/2026-11-22-4xH200-lamport-spread/scripts/run16.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r16"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r16.tar.gz" -C "$WORK" r16
}
cd "$R"
jobs=()
for w in 2 4; do for c in 2 4; do jobs+=(row-parallel-linear-tp$w-s$c-nccl-serial-all row-parallel-linear-tp$w-s$c-ipc-serial-all row-parallel-linear-tp$w-s$c); done; done
for job in "${jobs[@]}"; do
  step "$job" 60 "$G" run -f "$HERE/programs/$job.yaml" --out "$R/programs/$job"
done
cat "$R/steps.txt"
for job in "${jobs[@]}"; do echo "== $job: $(grep -E '^\| (unpipelined|pipelined) ' "$R/$job.log" | awk -F'|' '{printf "%s=%s ", $2, $3}')"; done
