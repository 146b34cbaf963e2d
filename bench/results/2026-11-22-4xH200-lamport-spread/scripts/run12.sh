#!/usr/bin/env bash
# 4 x H200: columnParallelLinear with the local step reading its chunk in place (no copy),
# twice at TP4 and TP2, with the timeline of one traced pipelined run.
# Usage: bash bench/results/2026-11-22-4xH200-lamport-spread/scripts/run12.sh
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
R="$WORK/r12"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r12.tar.gz" -C "$WORK" r12
}
cd "$R"
for job in column-parallel-linear-tp4 column-parallel-linear-tp2 column-parallel-linear-tp4 column-parallel-linear-tp2; do n=$((${n:-0} + 1))
  step "$job-$n" 60 "$G" run -f "$HERE/programs/$job.yaml" --out "$R/programs/$job-$n"
done
cat "$R/steps.txt"
for job in column-parallel-linear-tp4-1 column-parallel-linear-tp2-2 column-parallel-linear-tp4-3 column-parallel-linear-tp2-4; do echo "== $job"; grep -E "^\| (unpipelined|pipelined|compute|communication)" "$R/$job.log"; sed -n '/^Timeline/,$p' "$R/$job.log" | head -30; done
