#!/usr/bin/env bash
# 4 × H200, programs with serializeMatmuls (the matmul lane is now an option): rowParallelLinear
# at 4 GPUs with serialized matmuls, at 2 GPUs without, each key job twice.
# Usage: bash bench/results/2026-11-22-4xH200-pdl-overlap/scripts/run5.sh
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
R="$WORK/r5"
mkdir -p "$R/programs" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r5.tar.gz" -C "$WORK" r5
}
cd "$R"
for round in 1 2; do
  for job in row-parallel-linear-tp4-s4-nccl-sm48-serial row-parallel-linear-tp4-s2-nccl-sm32-serial row-parallel-linear-tp2-s4-nccl-sm48 row-parallel-linear-tp4-s4 row-parallel-linear-tp2-s4; do
    step "$job-$round" 60 "$G" run -f "$HERE/programs/$job.yaml" --dump-ir --out "$R/programs/$job-$round"
  done
done
for job in row-parallel-linear-tp4-s4-nccl-sm32-serial row-parallel-linear-tp4-s4-ipc-sm48-serial row-parallel-linear-tp4-s2-nccl-sm48-serial row-parallel-linear-tp2-s4-nccl-sm48-serial row-parallel-linear-tp2-s2-nccl-sm48-serial row-parallel-linear-tp4-s2 row-parallel-linear-tp2-s2; do
  step "$job" 60 "$G" run -f "$HERE/programs/$job.yaml" --dump-ir --out "$R/programs/$job"
  [ $SECONDS -gt 240 ] && break
done
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
for f in "$R"/programs/*/report.md; do echo "== $f"; grep -E "^\| (pipelined|unpipelined)|hid|SM partition" "$f"; done
