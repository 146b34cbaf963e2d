#!/usr/bin/env bash
# Host-IR programs on 2 and 4 H200s: each job unpipelined vs pipelined, results under $OUT.
# Usage: bash bench/results/2026-11-22-4xH200-integrated/scripts/programs.sh
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
R="$WORK/programs"
mkdir -p "$R" "$WORK/g"; [ -x $WORK/g/gpucomm/bin/gpucomm ] || tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
for job in row-parallel-linear-tp2-s2 row-parallel-linear-tp2-s4 row-parallel-linear-tp4-s2 row-parallel-linear-tp4-s4 column-parallel-linear-tp2 column-parallel-linear-tp4 column-parallel-linear-permute-tp2 column-parallel-linear-permute-tp4; do
  start=$SECONDS
  timeout 90 "$G" run -f "$ROOT/bench/programs/$job.yaml" --dump-ir --out "$R/$job" >"$R/$job.log" 2>&1
  echo "$job: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/programs.tar.gz" -C "$WORK" programs
  [ $SECONDS -gt 250 ] && break
done
cat "$R/steps.txt"
for f in "$R"/*/report.md; do echo "== $f"; head -30 "$f"; done
